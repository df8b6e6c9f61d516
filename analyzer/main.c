/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rocetop — RoCE and iWARP traffic analyzer.
 *
 *   rocetop -r FILE [--packets] [--json] [filter…]
 *   rocetop -i IFACE --packets [--json] [filter…]
 *
 * main.c parses options and wires the capture source to the listing.
 */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "listing.h"
#include "roce.h"

#define ROCETOP_VERSION "0.1.0"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rocetop -r FILE [options] [BPF filter...]\n"
		"       rocetop -i IFACE [options] [BPF filter...]\n"
		"  -r, --read FILE        read a pcap or pcapng capture\n"
		"  -i, --interface IFACE  capture live from IFACE\n"
		"      --packets          list frames one per line (tcpdump-like)\n"
		"      --json             with --packets: one JSON object per frame\n"
		"  -c, --count N          stop after N frames\n"
		"  -d, --roce-port PORT   also decode UDP destination PORT as RoCEv2 (up to 8)\n"
		"      --no-legacy-port   do not decode UDP port 1021 as RoCEv2\n"
		"      --iwarp-port PORT  treat TCP PORT as carrying iWARP FPDUs\n"
		"  -h, --help             this text\n"
		"  -V, --version          print the version\n");
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static pcap_t *open_source(const char *file, const char *iface, char *err)
{
	pcap_t *pc;

	if (file)
		return pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, err);
	pc = pcap_create(iface, err);
	if (!pc)
		return NULL;
	pcap_set_snaplen(pc, 65535);
	pcap_set_promisc(pc, 1);
	pcap_set_immediate_mode(pc, 1);
	pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
	if (pcap_activate(pc) < 0) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(pc));
		pcap_close(pc);
		return NULL;
	}
	return pc;
}

int main(int argc, char **argv)
{
	enum { OPT_PACKETS = 256, OPT_JSON, OPT_NOLEGACY, OPT_IWARP };
	static const struct option opts[] = {
		{ "read", required_argument, NULL, 'r' },
		{ "interface", required_argument, NULL, 'i' },
		{ "packets", no_argument, NULL, OPT_PACKETS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "count", required_argument, NULL, 'c' },
		{ "roce-port", required_argument, NULL, 'd' },
		{ "no-legacy-port", no_argument, NULL, OPT_NOLEGACY },
		{ "iwarp-port", required_argument, NULL, OPT_IWARP },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char err[PCAP_ERRBUF_SIZE] = "";
	const char *file = NULL, *iface = NULL;
	struct roce_cfg cfg = { 0 };
	struct listing lst = { 0 };
	int packets = 0, json = 0, c, rc = 0, lt;
	long long count = -1;
	uint64_t no = 0;
	struct pcap_pkthdr *h;
	const u_char *data;
	char *filter;
	pcap_t *pc;
	uint16_t port;

	while ((c = getopt_long(argc, argv, "+r:i:c:d:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': file = optarg; break;
		case 'i': iface = optarg; break;
		case OPT_PACKETS: packets = 1; break;
		case OPT_JSON: json = 1; break;
		case 'c':
			count = strtoll(optarg, NULL, 10);
			if (count <= 0) {
				fprintf(stderr, "rocetop: bad count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
		case OPT_IWARP:
			if (parse_port(optarg, &port) ||
			    (c == 'd' ? roce_cfg_add_udp_port(&cfg, port) : roce_cfg_add_iwarp_port(&cfg, port))) {
				fprintf(stderr, "rocetop: bad or too many ports: '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_NOLEGACY: cfg.no_legacy_port = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("rocetop %s\n", ROCETOP_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!file == !iface) {
		fprintf(stderr, "rocetop: give exactly one of -r FILE or -i IFACE (see --help)\n");
		return 2;
	}
	if (json && !packets) {
		fprintf(stderr, "rocetop: --json needs --packets\n");
		return 2;
	}
	pc = open_source(file, iface, err);
	if (!pc) {
		fprintf(stderr, "rocetop: %s: %s\n", file ? file : iface, err);
		return 1;
	}
	lt = pcap_datalink(pc);
	if (!roce_linktype_supported(lt)) {
		fprintf(stderr, "rocetop: %s: unsupported link type %s (%d)\n", file ? file : iface,
			pcap_datalink_val_to_name(lt) ? pcap_datalink_val_to_name(lt) : "?", lt);
		pcap_close(pc);
		return 1;
	}
	if (optind < argc) {
		struct bpf_program prog;

		filter = join_args(argc - optind, argv + optind);
		if (!filter || pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
		    pcap_setfilter(pc, &prog) < 0) {
			fprintf(stderr, "rocetop: filter '%s': %s\n", filter ? filter : "", pcap_geterr(pc));
			free(filter);
			pcap_close(pc);
			return 2;
		}
		pcap_freecode(&prog);
		free(filter);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	lst.out = packets ? stdout : NULL;
	lst.json = json;
	lst.nsec = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO;
	while (!stop && (count < 0 || (long long)no < count)) {
		struct roce_pkt p;

		c = pcap_next_ex(pc, &h, &data);
		if (c == 0)
			continue;          /* live: timeout */
		if (c == PCAP_ERROR_BREAK)
			break;             /* end of file */
		if (c < 0) {
			fprintf(stderr, "rocetop: %s: %s (after %llu frames)\n", file ? file : iface,
				pcap_geterr(pc), (unsigned long long)no);
			rc = 1;
			break;
		}
		no++;
		roce_decode(&p, &cfg, lt, data, h->caplen, h->len);
		listing_frame(&lst, no, &h->ts, &p, h->caplen, h->len);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "rocetop: writing output: %s\n", strerror(errno));
		rc = 1;
	}
	if (!packets)
		listing_totals(&lst, stdout);
	pcap_close(pc);
	return rc;
}
