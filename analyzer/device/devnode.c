/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devnode.c — the device metrics under node_exporter's names
 * (--prometheus-node-names): node_infiniband_{state_id, physical_state_id,
 * rate_bytes_per_second} and the PMA counters/ files as node_exporter's
 * infiniband collector names them, labels {device, port}, so dashboards
 * made for node_exporter work on rocetop's exporter.  Off by default: beside
 * a real node_exporter every series would count twice.
 *
 * As node_exporter does, port_rcv_data and port_xmit_data (4-octet units)
 * are multiplied by 4 into bytes.  The port hw_counters/ files node_exporter
 * v1.11.0 and later know (through procfs: mlx5's names, whichever driver has
 * them) get its names too, and hw_counters/lifespan becomes
 * lifespan_seconds (ms / 1000, a whole number, as node_exporter divides);
 * every other hw_counter stays rocetop_rdma_port_stat_total only.  The
 * counters_ext/ files (kernels before 4.5) are node_exporter's legacy_*
 * series.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devmon.h"

struct node_name {
	const char *file, *name, *help;
	unsigned mul;
};

static const struct node_name pma[] = {
	{ "excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors_total",
	  "Number of times that OverrunErrors consecutive flow control update periods occurred", 1 },
	{ "link_downed", "link_downed_total", "Number of times the link failed to recover from an error state", 1 },
	{ "link_error_recovery", "link_error_recovery_total", "Number of times the link recovered from an error state", 1 },
	{ "local_link_integrity_errors", "local_link_integrity_errors_total",
	  "Number of times local physical errors exceeded the threshold", 1 },
	{ "multicast_rcv_packets", "multicast_packets_received_total", "Multicast packets received", 1 },
	{ "multicast_xmit_packets", "multicast_packets_transmitted_total", "Multicast packets transmitted", 1 },
	{ "port_rcv_constraint_errors", "port_constraint_errors_received_total",
	  "Packets received on the port that were discarded (constraints)", 1 },
	{ "port_xmit_constraint_errors", "port_constraint_errors_transmitted_total",
	  "Packets not transmitted from the port (constraints)", 1 },
	{ "port_rcv_data", "port_data_received_bytes_total", "Data octets received (port_rcv_data x 4)", 4 },
	{ "port_xmit_data", "port_data_transmitted_bytes_total", "Data octets transmitted (port_xmit_data x 4)", 4 },
	{ "port_rcv_discards", "port_discards_received_total", "Inbound packets discarded", 1 },
	{ "port_xmit_discards", "port_discards_transmitted_total", "Outbound packets discarded", 1 },
	{ "port_rcv_errors", "port_errors_received_total", "Packets with an error received", 1 },
	{ "port_rcv_packets", "port_packets_received_total", "Packets received", 1 },
	{ "port_xmit_packets", "port_packets_transmitted_total", "Packets transmitted", 1 },
	{ "port_xmit_wait", "port_transmit_wait_total", "Ticks with data to transmit but none sent", 1 },
	{ "port_rcv_remote_physical_errors", "port_receive_remote_physical_errors_total",
	  "Packets marked with the EBP delimiter received", 1 },
	{ "port_rcv_switch_relay_errors", "port_receive_switch_relay_errors_total",
	  "Packets that could not be forwarded by the switch", 1 },
	{ "symbol_error", "symbol_error_total", "Minor link errors on one or more physical lanes", 1 },
	{ "unicast_rcv_packets", "unicast_packets_received_total", "Unicast packets received", 1 },
	{ "unicast_xmit_packets", "unicast_packets_transmitted_total", "Unicast packets transmitted", 1 },
	{ "VL15_dropped", "vl15_dropped_total", "Incoming VL15 packets dropped", 1 },
};

/* counters_ext/ (kernels before 4.5, mlx4): node_exporter's legacy_* series,
 * the data counts in 4-octet words as well */
static const struct node_name ext[] = {
	{ "port_multicast_rcv_packets", "legacy_multicast_packets_received_total",
	  "Multicast packets received (counters_ext)", 1 },
	{ "port_multicast_xmit_packets", "legacy_multicast_packets_transmitted_total",
	  "Multicast packets transmitted (counters_ext)", 1 },
	{ "port_rcv_data_64", "legacy_data_received_bytes_total", "Data octets received (counters_ext port_rcv_data_64 x 4)", 4 },
	{ "port_rcv_packets_64", "legacy_packets_received_total", "Packets received (counters_ext)", 1 },
	{ "port_unicast_rcv_packets", "legacy_unicast_packets_received_total", "Unicast packets received (counters_ext)", 1 },
	{ "port_unicast_xmit_packets", "legacy_unicast_packets_transmitted_total",
	  "Unicast packets transmitted (counters_ext)", 1 },
	{ "port_xmit_data_64", "legacy_data_transmitted_bytes_total",
	  "Data octets transmitted (counters_ext port_xmit_data_64 x 4)", 4 },
	{ "port_xmit_packets_64", "legacy_packets_transmitted_total", "Packets transmitted (counters_ext)", 1 },
};

/* hw_counters/ (node_exporter >= 1.11.0), labels {device, port} */
static const struct {
	const char *file, *name, *help;
} hw[] = {
	{ "duplicate_request", "duplicate_requests_packets_total", "Duplicate requests received (hw_counters)" },
	{ "implied_nak_seq_err", "implied_nak_seq_errors_total", "Implied NAK sequence errors (hw_counters)" },
	{ "local_ack_timeout_err", "local_ack_timeout_errors_total", "Local ACK timeouts (hw_counters)" },
	{ "np_cnp_sent", "np_cnp_packets_sent_total", "CNPs sent by the notification point (hw_counters)" },
	{ "np_ecn_marked_roce_packets", "np_ecn_marked_roce_packets_received_total",
	  "ECN-marked RoCE packets received (hw_counters)" },
	{ "out_of_buffer", "out_of_buffer_drops_total", "Packets dropped for lack of a receive buffer (hw_counters)" },
	{ "out_of_sequence", "out_of_sequence_packets_received_total", "Out-of-sequence packets received (hw_counters)" },
	{ "packet_seq_err", "packet_sequence_errors_total", "Sequence-error NAKs received (hw_counters)" },
	{ "req_cqe_error", "req_cqes_errors_total", "Requester completions with error (hw_counters)" },
	{ "req_cqe_flush_error", "req_cqes_flush_errors_total", "Requester completions flushed with error (hw_counters)" },
	{ "req_remote_access_errors", "req_remote_access_errors_total", "Requester remote access errors (hw_counters)" },
	{ "req_remote_invalid_request", "req_remote_invalid_request_errors_total",
	  "Requester remote invalid request errors (hw_counters)" },
	{ "resp_cqe_error", "resp_cqes_errors_total", "Responder completions with error (hw_counters)" },
	{ "resp_cqe_flush_error", "resp_cqes_flush_errors_total", "Responder completions flushed with error (hw_counters)" },
	{ "resp_local_length_error", "resp_local_length_errors_total", "Responder local length errors (hw_counters)" },
	{ "resp_remote_access_errors", "resp_remote_access_errors_total", "Responder remote access errors (hw_counters)" },
	{ "rnr_nak_retry_err", "rnr_nak_retry_packets_received_total", "RNR NAK retries exceeded (hw_counters)" },
	{ "roce_adp_retrans", "roce_adp_retransmits_total", "Adaptive retransmissions (hw_counters)" },
	{ "roce_adp_retrans_to", "roce_adp_retransmits_timeout_total", "Adaptive retransmission timeouts (hw_counters)" },
	{ "roce_slow_restart", "roce_slow_restart_used_total", "Slow restarts used (hw_counters)" },
	{ "roce_slow_restart_cnps", "roce_slow_restart_cnps_total", "CNPs generated by slow restart (hw_counters)" },
	{ "roce_slow_restart_trans", "roce_slow_restart_total", "Transitions to slow restart (hw_counters)" },
	{ "rp_cnp_handled", "rp_cnp_packets_handled_total", "CNPs handled by the reaction point (hw_counters)" },
	{ "rp_cnp_ignored", "rp_cnp_ignored_packets_received_total", "CNPs received and ignored (hw_counters)" },
	{ "rx_atomic_requests", "rx_atomic_requests_total", "Atomic requests received (hw_counters)" },
	{ "rx_dct_connect", "rx_dct_connect_requests_total", "DCT connect requests received (hw_counters)" },
	{ "rx_read_requests", "rx_read_requests_total", "READ requests received (hw_counters)" },
	{ "rx_write_requests", "rx_write_requests_total", "WRITE requests received (hw_counters)" },
	{ "rx_icrc_encapsulated", "rx_icrc_encapsulated_errors_total", "Encapsulated packets with an ICRC error (hw_counters)" },
};

/* The number sysfs wrote before the name ("4: ACTIVE"), from the name
 * sysfs.c kept; -1 when unknown. */
static int state_id(const char *s)
{
	static const char *const st[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
	static const char *const ph[] = { "", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
					  "LinkErrorRecovery", "Phy Test" };

	for (int i = 0; i < 6; i++)
		if (!strcmp(s, st[i]))
			return i;
	for (int i = 1; i < 8; i++)
		if (!strcmp(s, ph[i]))
			return i;
	return -1;
}

static void labels(FILE *f, const char *name, const char *dev, unsigned port)
{
	fprintf(f, "node_infiniband_%s{device=\"%s\",port=\"%u\"}", name, dev, port);
}

static void gauges(FILE *f, const struct devmon *m)
{
	static const char *const g[3][2] = {
		{ "state_id", "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, "
			      "5: act defer)" },
		{ "physical_state_id", "Physical state of the InfiniBand port (0: no change, 1: sleep, 2: polling, "
				       "3: disable, 4: shift, 5: link up, 6: link error recover, 7: phytest)" },
		{ "rate_bytes_per_second", "Maximum signal transfer rate" },
	};

	for (int k = 0; k < 3; k++) {
		fprintf(f, "# HELP node_infiniband_%s %s\n# TYPE node_infiniband_%s gauge\n", g[k][0], g[k][1], g[k][0]);
		for (size_t i = 0; i < m->ndevs; i++)
			for (size_t j = 0; j < m->devs[i].nports; j++) {
				const struct dm_port *p = &m->devs[i].ports[j];
				double v = k == 0 ? state_id(p->sp.state) : k == 1 ? state_id(p->sp.phys_state) :
					   strtod(p->sp.rate, NULL) * 1e9 / 8;   /* "2.5 Gb/sec (1X SDR)" */

				if (!p->sysfs_ok || v < 0 || (k == 2 && !p->sp.rate[0]))
					continue;
				labels(f, g[k][0], m->devs[i].name, p->port);
				fprintf(f, " %.0f\n", v);
			}
	}
}

/* one family of counters/ (PMA) or hw_counters/ files under node_exporter's name */
static void family(FILE *f, const struct devmon *m, enum sysfs_group g, const char *file, const char *name,
		   const char *help, unsigned mul)
{
	int head = 0;

	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];

			for (size_t k = 0; p->sysfs_ok && k < p->sp.nctr; k++) {
				if (p->sp.ctr[k].group != g || strcmp(p->sp.ctr[k].name, file))
					continue;
				if (!head++)
					fprintf(f, "# HELP node_infiniband_%s %s\n# TYPE node_infiniband_%s counter\n", name,
						help, name);
				labels(f, name, m->devs[i].name, p->port);
				fprintf(f, " %" PRIu64 "\n", p->sp.ctr[k].value * mul);
			}
		}
}

static void lifespan(FILE *f, const struct devmon *m)
{
	int head = 0;

	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];

			if (!p->sysfs_ok || !p->sp.have_lifespan)
				continue;
			if (!head++)
				fputs("# HELP node_infiniband_lifespan_seconds How long the driver serves a counter read "
				      "from its cache (hw_counters/lifespan)\n# TYPE node_infiniband_lifespan_seconds gauge\n", f);
			labels(f, "lifespan_seconds", m->devs[i].name, p->port);
			fprintf(f, " %" PRIu64 "\n", p->sp.lifespan / 1000);
		}
}

void devmon_prom_node(FILE *f, const struct devmon *m)
{
	if (!m)
		return;
	gauges(f, m);
	lifespan(f, m);
	for (size_t c = 0; c < sizeof hw / sizeof hw[0]; c++)
		family(f, m, SYSFS_HW, hw[c].file, hw[c].name, hw[c].help, 1);
	for (size_t c = 0; c < sizeof pma / sizeof pma[0]; c++)
		family(f, m, SYSFS_PMA, pma[c].file, pma[c].name, pma[c].help, pma[c].mul);
	for (size_t c = 0; c < sizeof ext / sizeof ext[0]; c++)
		family(f, m, SYSFS_EXT, ext[c].file, ext[c].name, ext[c].help, ext[c].mul);
}
