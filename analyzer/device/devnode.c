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
 * are multiplied by 4 into bytes.  hw_counters/ have no node_exporter name
 * and stay rocetop_rdma_port_stat_total.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devmon.h"

static const struct {
	const char *file, *name, *help;
	unsigned mul;
} pma[] = {
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

void devmon_prom_node(FILE *f, const struct devmon *m)
{
	if (!m)
		return;
	gauges(f, m);
	for (size_t c = 0; c < sizeof pma / sizeof pma[0]; c++) {
		int head = 0;

		for (size_t i = 0; i < m->ndevs; i++)
			for (size_t j = 0; j < m->devs[i].nports; j++) {
				const struct dm_port *p = &m->devs[i].ports[j];

				for (size_t k = 0; p->sysfs_ok && k < p->sp.nctr; k++) {
					if (p->sp.ctr[k].group != SYSFS_PMA || strcmp(p->sp.ctr[k].name, pma[c].file))
						continue;
					if (!head++)
						fprintf(f, "# HELP node_infiniband_%s %s\n# TYPE node_infiniband_%s counter\n",
							pma[c].name, pma[c].help, pma[c].name);
					labels(f, pma[c].name, m->devs[i].name, p->port);
					fprintf(f, " %" PRIu64 "\n", p->sp.ctr[k].value * pma[c].mul);
				}
			}
	}
}
