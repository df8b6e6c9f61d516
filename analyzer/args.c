/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * args.c — rocetop's command line, read into struct args (args.h): each
 * option by a table or a small case, then the combinations checked.
 * Errors are one line on stderr and exit status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "args.h"
#include "optctr.h"
#include "prom.h"
#include "seq.h"
#include "threads.h"
#include "webtls.h"

enum { OPT_PACKETS = 256, OPT_JSON, OPT_NOLEGACY, OPT_IWARP, OPT_ROCEPORT, OPT_PMTU, OPT_SPEED,
       OPT_MAXFLOWS, OPT_REPLAY, OPT_REALTIME, OPT_PROM, OPT_PROM_MAX, OPT_VXLAN, OPT_NODECAP,
       OPT_BUFFRAMES, OPT_LINGER, OPT_RTTMEM, OPT_DEVICE, OPT_QPINT, OPT_DEVALL, OPT_BINDQPC, OPT_DEVNODE, OPT_NICDROP, OPT_DEVREPLAY, OPT_DEVRECORD, OPT_DEVOPT, OPT_TOP,
       OPT_THREADS, OPT_TIME, OPT_PMTU_OLD };
/* the diagnosis thresholds, read by diag_option() under these names */
enum { OPT_DIAG = 512, OPT_DIAG_END = OPT_DIAG + 4 };
static const char *const diag_opts[] = { "ack-timeout", "pfc-watchdog", "cnp-reaction", "diag-tolerance" };
enum { OPT_WEBCFG = OPT_DIAG_END };      /* --web-config (webtls.h) */

static const struct option opts[] = {
	{ "read", required_argument, NULL, 'r' },
	{ "interface", required_argument, NULL, 'i' },
	{ "packets", no_argument, NULL, OPT_PACKETS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "batch", no_argument, NULL, 'b' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "count", required_argument, NULL, 'c' },
	{ "roce-port", required_argument, NULL, OPT_ROCEPORT },
	{ "no-legacy-port", no_argument, NULL, OPT_NOLEGACY },
	{ "iwarp-port", required_argument, NULL, OPT_IWARP },
	{ "vxlan-port", required_argument, NULL, OPT_VXLAN },
	{ "no-decap", no_argument, NULL, OPT_NODECAP },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "mtu", required_argument, NULL, OPT_PMTU },
	{ "pmtu", required_argument, NULL, OPT_PMTU_OLD },   /* the old spelling, until 0.2 */
	{ "link-speed", required_argument, NULL, OPT_SPEED },
	{ "max-flows", required_argument, NULL, OPT_MAXFLOWS },
	{ "buffer-size", required_argument, NULL, 'B' },
	{ "buffer-frames", required_argument, NULL, OPT_BUFFRAMES },
	{ "snaplen", required_argument, NULL, 's' },
	{ "write", required_argument, NULL, 'w' },
	{ "speed", required_argument, NULL, OPT_REPLAY },
	{ "realtime", no_argument, NULL, OPT_REALTIME },
	{ "relinquish-privileges", required_argument, NULL, 'Z' },
	{ "prometheus", required_argument, NULL, OPT_PROM },
	{ "prometheus-max-flows", required_argument, NULL, OPT_PROM_MAX },
	{ "web-config", required_argument, NULL, OPT_WEBCFG },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "linger", no_argument, NULL, OPT_LINGER },
	{ "rtt-memory", required_argument, NULL, OPT_RTTMEM },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "qp-interval", required_argument, NULL, OPT_QPINT },
	{ "device-all-counters", no_argument, NULL, OPT_DEVALL },
	{ "device-replay", required_argument, NULL, OPT_DEVREPLAY },
	{ "device-record", required_argument, NULL, OPT_DEVRECORD },
	{ "bind-qp-counters", no_argument, NULL, OPT_BINDQPC },
	{ "device-enable-optional", required_argument, NULL, OPT_DEVOPT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "prometheus-node-names", no_argument, NULL, OPT_DEVNODE },
	{ "nic-drop-counters", required_argument, NULL, OPT_NICDROP },
	{ "ack-timeout", required_argument, NULL, OPT_DIAG },
	{ "pfc-watchdog", required_argument, NULL, OPT_DIAG + 1 },
	{ "cnp-reaction", required_argument, NULL, OPT_DIAG + 2 },
	{ "diag-tolerance", required_argument, NULL, OPT_DIAG + 3 },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void args_usage(FILE *f)
{
	fprintf(f,
		"usage: rocetop -r FILE [options] [BPF filter...]\n"
		"       rocetop -i IFACE [options] [BPF filter...]\n"
		"  -r, --read FILE        read a pcap or pcapng capture (gzipped or not); repeat to\n"
		"                         merge several in one timeline by timestamp\n"
		"  -i, --interface IFACE  capture live from IFACE (repeat for several); the RDMA\n"
		"                         ports whose netdev it is join the device view\n"
		"      --device DEV[:PORT]  show what the RDMA device itself knows: QPs, CQs, MRs,\n"
		"                         CM IDs, port counters, GIDs, ethtool -S (repeatable; 'all'),\n"
		"                         alone or beside -i/-r\n"
		"      --qp-interval SECONDS  how often to dump the QP table (default: -d)\n"
		"      --device-all-counters  rates of every counter, not only those that moved\n"
		"      --device-replay DIR  read a recorded machine's devices from DIR (sys/, netlink/,\n"
		"                         ethtool/), nothing of this host; with --device\n"
		"      --device-record DIR  write what the device view reads (sysfs files, RDMA\n"
		"                         netlink replies, ethtool -S) into DIR, a recording for\n"
		"                         --device-replay: -n+1 snapshots -d apart (default -n 1)\n"
		"      --bind-qp-counters  bind new QPs of the --device ports to counters by QP type\n"
		"                         (changes the system: like rdma statistic qp set ... auto type on)\n"
		"      --device-enable-optional NAME[,NAME...]  enable these optional counters of the\n"
		"                         --device ports, those on stay on (changes the system: like\n"
		"                         rdma statistic set link ... optional-counters; CAP_NET_ADMIN)\n"
		"      --prometheus-node-names  the device's port metrics under node_exporter's names too\n"
		"  -B, --buffer-size KiB  kernel capture buffer per interface (default 32768)\n"
		"      --buffer-frames N  ... or larger, to hold N frames of the interface's MTU\n"
		"                         (up to the snaplen; default 8192)\n"
		"      --nic-drop-counters LIST  ethtool -S counters of the NIC's own receive\n"
		"                         discards, comma-separated (default rx_discards_phy,\n"
		"                         rx_out_of_buffer; \"\" for none)\n"
		"  -s, --snaplen BYTES    bytes captured per frame (default 9216)\n"
		"  -w, --write FILE       also save the frames read to a pcap file\n"
		"      --speed X          replay at X times the capture's pace (0: as fast as possible;\n"
		"                         default 1 in the TUI, 0 otherwise)\n"
		"      --realtime         --speed 1\n"
		"  -Z, --relinquish-privileges USER  become USER once the capture is open\n"
		"      --prometheus ADDR:PORT  serve GET /metrics (Prometheus text format) there\n"
		"      --prometheus-max-flows N  flows with per-flow series (largest by packets; default 1000)\n"
		"      --web-config FILE  --prometheus over TLS and/or with basic auth (exporter-toolkit's keys)\n"
		"      --linger           after a replay, keep serving --prometheus until SIGINT/SIGTERM\n"
		"      --packets          list frames one per line (tcpdump-like)\n"
		"      --json             with --packets: one JSON object per frame; without:\n"
		"                         JSON lines (snapshots with -d/-n, then the summary)\n"
		"  -b, --batch            periodic text snapshots (like top -b), then the summary\n"
		"  -d, --delay SECONDS    snapshot interval (default 2; capture time on replay)\n"
		"                         (with --packets, -d PORT is the old spelling of --roce-port,\n"
		"                         until 0.2)\n"
		"  -n, --iterations N     stop after N snapshots\n"
		"  -c, --count N          stop after N frames\n"
		"      --roce-port PORT   also decode UDP destination PORT as RoCEv2 (up to 8)\n"
		"      --no-legacy-port   do not decode UDP port 1021 as RoCEv2\n"
		"      --iwarp-port PORT  treat TCP PORT as carrying iWARP FPDUs\n"
		"      --vxlan-port PORT  also decapsulate VXLAN on UDP PORT (4789 and 8472 always)\n"
		"      --no-decap         do not decapsulate mirror copies (ERSPAN, GRE-TEB, VXLAN)\n"
		"      --time host|mirror frame times from the capture host (default) or from the\n"
		"                         ERSPAN III hardware timestamps, anchored on the host time\n"
		"      --mtu BYTES        path MTU for READ accounting until the capture tells\n"
		"                         (256..4096, default 1024; --pmtu: the old spelling)\n"
		"      --link-speed SPEED link speed for PFC pause time (100G, 25G, 10000M; default 100G)\n"
		"      --ack-timeout T    local ACK timeout when no CM REQ says: exponent (14) or time\n"
		"      --pfc-watchdog T   continuous pause that is a PFC storm (default 100ms)\n"
		"      --cnp-reaction T   time a sender has to slow after a CNP (default 1ms)\n"
		"      --diag-tolerance P timer waits within P %% match (default 25)\n"
		"      --max-flows N      flow table size; least recently seen evicted (default 1000000)\n"
		"      --top N            the summary lists the N largest flows (JSON: all by default,\n"
		"                         text: 50); its totals count every flow\n"
		"      --rtt-memory KiB   cap for outstanding requests and RTT histograms (default 262144)\n"
		"      --threads N        analyse on N threads, each with its own flow table (live: a\n"
		"                         fanout group per interface; default: CPUs, at most the\n"
		"                         interface's receive queues; replay: 1); not with the\n"
		"                         terminal view, --packets or -w\n"
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

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* "100G", "25g", "40000M", "10000000000" → bits per second */
static int parse_speed(const char *s, uint64_t *bps)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	switch (*end) {
	case 'T': case 't': v *= 1e12; end++; break;
	case 'G': case 'g': v *= 1e9; end++; break;
	case 'M': case 'm': v *= 1e6; end++; break;
	case 'K': case 'k': v *= 1e3; end++; break;
	default: break;
	}
	if (*end == 'b' && end[1] == 0)
		end++;
	if (*end || v < 1e6 || v > 1e13)
		return -1;
	*bps = (uint64_t)v;
	return 0;
}

/* Options that are one whole number in a range. */
enum num_kind { N_INT, N_UNSIGNED, N_U32, N_LLONG, N_KIB };
static const struct num_opt {
	int opt;
	uint64_t lo, hi;
	enum num_kind kind;
	size_t off;                   /* in struct args */
	const char *bad;              /* "rocetop: bad %s '%s'" */
} num_opts[] = {
	{ 'B', 1, 4194304, N_INT, offsetof(struct args, scfg.buffer_kib), "buffer size (KiB)" },
	{ 's', 64, 262144, N_INT, offsetof(struct args, scfg.snaplen), "snaplen" },
	{ OPT_BUFFRAMES, 1, 16777216, N_UNSIGNED, offsetof(struct args, scfg.buffer_frames),
	  "--buffer-frames '%s' (1 to 16777216)" },
	{ OPT_PROM_MAX, 0, 10000000, N_UNSIGNED, offsetof(struct args, prom_max), "--prometheus-max-flows" },
	{ OPT_TOP, 1, 100000000, N_UNSIGNED, offsetof(struct args, top),
	  "--top '%s' (a number of flows, 1 or more)" },
	{ 'c', 1, (uint64_t)1 << 62, N_LLONG, offsetof(struct args, count), "count" },
	{ 'n', 1, 1000000000, N_LLONG, offsetof(struct args, iterations), "iteration count" },
	{ OPT_MAXFLOWS, 1, 100000000, N_U32, offsetof(struct args, ecfg.max_flows), "--max-flows" },
	{ OPT_RTTMEM, 16, (uint64_t)1 << 30, N_KIB, offsetof(struct args, ecfg.rtt_mem),
	  "--rtt-memory '%s' (KiB, 16 or more)" },
	{ OPT_THREADS, 1, WORKERS_MAX, N_UNSIGNED, offsetof(struct args, nthreads), "--threads '%s' (1 to "
#define STR2(x) #x
#define STR(x) STR2(x)
	  STR(WORKERS_MAX) ")" },
};

static int bad(const char *what, const char *v)
{
	const char *fmt = strstr(what, "%s");

	if (fmt)                      /* the value goes where the text says */
		fprintf(stderr, "rocetop: bad %.*s%s%s\n", (int)(fmt - what), what, v, fmt + 2);
	else
		fprintf(stderr, "rocetop: bad %s '%s'\n", what, v);
	return 2;
}

/* 0 when c is a number option (set), 2 when its value is bad, 1 when c is
 * not one. */
static int opt_number(struct args *a, int c, const char *v)
{
	for (size_t i = 0; i < sizeof num_opts / sizeof num_opts[0]; i++) {
		const struct num_opt *n = &num_opts[i];
		void *dst = (char *)a + n->off;
		uint64_t x;

		if (n->opt != c)
			continue;
		if (parse_u64(v, n->lo, n->hi, &x))
			return bad(n->bad, v);
		switch (n->kind) {
		case N_INT: *(int *)dst = (int)x; break;
		case N_UNSIGNED: *(unsigned *)dst = (unsigned)x; break;
		case N_U32: *(uint32_t *)dst = (uint32_t)x; break;
		case N_LLONG: *(long long *)dst = (long long)x; break;
		case N_KIB: *(uint64_t *)dst = x << 10; break;
		}
		return 0;
	}
	return 1;
}

/* A double in [lo, hi], or -1. */
static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !(*out >= lo) || *out > hi ? -1 : 0;
}

/* Options that name what to read and where to write. */
static int opt_io(struct args *a, int c, const char *v)
{
	char err[256];

	switch (c) {
	case 'r':   /* repeatable: the files merged in one timeline (source.h) */
		if (a->scfg.nfiles == SOURCE_MAX_IFACES) {
			fprintf(stderr, "rocetop: at most %d files\n", SOURCE_MAX_IFACES);
			return 2;
		}
		a->scfg.files[a->scfg.nfiles++] = v;
		if (!a->file)
			a->file = v;
		return 0;
	case 'i':
		if (a->scfg.nifaces == SOURCE_MAX_IFACES) {
			fprintf(stderr, "rocetop: at most %d interfaces\n", SOURCE_MAX_IFACES);
			return 2;
		}
		a->iface = a->scfg.ifaces[a->scfg.nifaces++] = v;
		return 0;
	case 'w': a->wfile = v; return 0;
	case 'Z': a->user = v; return 0;
	case OPT_REALTIME: a->scfg.speed = 1; return 0;
	case OPT_REPLAY:
		if (parse_double(v, 0, 1e6, &a->scfg.speed)) {
			fprintf(stderr, "rocetop: bad --speed '%s' (0 for as fast as possible, 1 real time)\n", v);
			return 2;
		}
		return 0;
	case OPT_PROM:
		if (prom_check_spec(v, err, sizeof err) < 0) {
			fprintf(stderr, "rocetop: %s\n", err);
			return 2;
		}
		a->prom_addr = v;
		return 0;
	case OPT_WEBCFG: {
		char e[1024];

		webtls_free(a->web);   /* read here, before -Z drops the rights to the key */
		if (!(a->web = webtls_load(v, e, sizeof e))) {
			fprintf(stderr, "rocetop: --web-config %s\n", e);
			return 2;
		}
		return 0;
	}
	case OPT_DEVICE:
		if (a->dcfg.nspecs == DEVMON_MAX_SPECS) {
			fprintf(stderr, "rocetop: at most %d --device options\n", DEVMON_MAX_SPECS);
			return 2;
		}
		a->dcfg.specs[a->dcfg.nspecs++] = v;
		return 0;
	case OPT_QPINT:
		if (parse_double(v, 0.1, 86400, &a->dcfg.qp_interval)) {
			fprintf(stderr, "rocetop: bad --qp-interval '%s' (seconds, 0.1 to 86400)\n", v);
			return 2;
		}
		return 0;
	case OPT_DEVALL: a->dcfg.all_counters = 1; return 0;
	case OPT_DEVREPLAY: {
		char rerr[512];

		if (devmon_replay(v, rerr, sizeof rerr) < 0) {
			fprintf(stderr, "rocetop: %s\n", rerr);
			return 2;
		}
		return 0;
	}
	case OPT_DEVRECORD: {
		char rerr[512];

		if (devmon_record(v, rerr, sizeof rerr) < 0) {
			fprintf(stderr, "rocetop: %s\n", rerr);
			return 2;
		}
		a->device_record = 1;
		return 0;
	}
	case OPT_BINDQPC: a->dcfg.bind_qp_counters = 1; return 0;
	case OPT_DEVOPT: {
		char oerr[512];

		if (optctr_check_list(v, oerr, sizeof oerr) < 0) {
			fprintf(stderr, "rocetop: %s\n", oerr);
			return 2;
		}
		a->dcfg.enable_optional = v;
		return 0;
	}
	case OPT_DEVNODE: a->dcfg.node_names = 1; return 0;
	case OPT_NICDROP: a->scfg.nic_drop_counters = optarg; return 0;
	case OPT_PACKETS: a->packets = 1; return 0;
	case OPT_JSON: a->json = 1; return 0;
	case 'b': a->batch = 1; return 0;
	case OPT_LINGER: a->linger = 1; return 0;
	}
	return 1;
}

/* Options that change the decoding and the analysis. */
static int opt_analysis(struct args *a, int c, const char *v)
{
	uint64_t v64;
	uint16_t port;

	switch (c) {
	case 'd':
		/* SECONDS, or with --packets the old spelling of --roce-port:
		 * decided once every option is read */
		if (a->ndopt == (int)(sizeof a->dopt / sizeof a->dopt[0])) {
			fprintf(stderr, "rocetop: too many -d options\n");
			return 2;
		}
		a->dopt[a->ndopt++] = v;
		return 0;
	case OPT_ROCEPORT:
	case OPT_IWARP:
	case OPT_VXLAN:
		if (parse_port(v, &port) ||
		    (c == OPT_ROCEPORT ? roce_cfg_add_udp_port(&a->cfg, port) :
		     c == OPT_IWARP ? roce_cfg_add_iwarp_port(&a->cfg, port) : roce_cfg_add_vxlan_port(&a->cfg, port))) {
			fprintf(stderr, "rocetop: bad or too many ports: '%s'\n", v);
			return 2;
		}
		return 0;
	case OPT_NOLEGACY: a->cfg.no_legacy_port = 1; return 0;
	case OPT_NODECAP: a->cfg.no_decap = 1; return 0;
	case OPT_TIME:
		if (strcmp(v, "host") && strcmp(v, "mirror")) {
			fprintf(stderr, "rocetop: bad --time '%s' (host or mirror)\n", v);
			return 2;
		}
		a->mirror_time = !strcmp(v, "mirror");
		return 0;
	case OPT_PMTU_OLD:
		/* rocegen's spelling is the one of the three tools (issue 25) */
		fprintf(stderr, "rocetop: note: --pmtu is the old spelling of --mtu (until 0.2)\n");
		/* fall through */
	case OPT_PMTU:
		if (parse_u64(v, 256, 4096, &v64) || !roce_seq_mtu_code((uint32_t)v64)) {
			fprintf(stderr, "rocetop: bad --mtu '%s' (256, 512, 1024, 2048 or 4096)\n", v);
			return 2;
		}
		a->ecfg.pmtu = (uint32_t)v64;
		return 0;
	case OPT_SPEED:
		if (parse_speed(v, &a->ecfg.link_bps)) {
			fprintf(stderr, "rocetop: bad --link-speed '%s' (e.g. 100G, 25G, 10000M)\n", v);
			return 2;
		}
		return 0;
	}
	return 1;
}

/* -d: SECONDS, or with --packets the old spelling of --roce-port. */
static int resolve_d(struct args *a)
{
	uint16_t port;

	for (int i = 0; i < a->ndopt; i++) {
		if (a->packets) {
			/* the old spelling, said so: -d is the interval everywhere else */
			if (parse_port(a->dopt[i], &port)) {
				fprintf(stderr, "rocetop: -d '%s' is a snapshot interval, which --packets has none of "
					"(--roce-port PORT decodes a UDP port as RoCEv2)\n", a->dopt[i]);
				return 2;
			}
			if (roce_cfg_add_udp_port(&a->cfg, port)) {
				fprintf(stderr, "rocetop: too many ports: '%s'\n", a->dopt[i]);
				return 2;
			}
			fprintf(stderr, "rocetop: note: -d %s with --packets is the old spelling of --roce-port %s "
				"(until 0.2)\n", a->dopt[i], a->dopt[i]);
			continue;
		}
		if (parse_double(a->dopt[i], 0.01, 86400, &a->delay)) {
			fprintf(stderr, "rocetop: bad delay '%s' (seconds, 0.01 to 86400)\n", a->dopt[i]);
			return 2;
		}
		a->have_delay = 1;
	}
	return 0;
}

static void defaults(struct args *a)
{
	memset(a, 0, sizeof *a);
	a->scfg.speed = -1;
	a->prom_max = PROM_DEFAULT_MAX_FLOWS;
	a->ecfg.max_flows = 1000000;
	a->ecfg.pmtu = 1024;
	a->ecfg.link_bps = 100000000000ull;
	a->ecfg.check_icrc = 1;
	a->count = a->iterations = -1;
	a->delay = 2;
	a->dcfg.qp_interval = -1;
}

static int one_option(struct args *a, int c, char **argv)
{
	int r;

	switch (c) {
	case 'h': args_usage(stdout); return 0;
	case 'V': printf("rocetop %s\n", ROCETOP_VERSION); return 0;
	case ':':
		fprintf(stderr, "rocetop: option '%s' needs a value (see --help)\n", argv[optind - 1]);
		return 2;
	}
	if (c >= OPT_DIAG && c < OPT_DIAG_END)
		return diag_option(diag_opts[c - OPT_DIAG], optarg, &a->ecfg.diag) ? 2 : -1;
	if ((r = opt_number(a, c, optarg)) != 1 || (r = opt_io(a, c, optarg)) != 1 ||
	    (r = opt_analysis(a, c, optarg)) != 1)
		return r ? r : -1;
	/* one line, not the whole usage */
	fprintf(stderr, "rocetop: unknown option '%s' (see --help)\n", argv[optind - 1]);
	return 2;
}

int args_parse(struct args *a, int argc, char **argv)
{
	int c, r;

	defaults(a);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:r:i:c:d:n:bB:s:w:Z:hV", opts, NULL)) != -1)
		if ((r = one_option(a, c, argv)) >= 0)
			return r;
	if ((r = resolve_d(a)) != 0)
		return r;
	if (a->device_record && !a->file && !a->iface) {
		/* a recording: every device unless named, two snapshots unless -n, no terminal view */
		if (!a->dcfg.nspecs)
			a->dcfg.specs[a->dcfg.nspecs++] = "all";
		if (a->iterations < 0)
			a->iterations = 1;
		if (!a->json)
			a->batch = 1;
	}
	if ((a->file && a->iface) || (!a->file && !a->iface && !a->dcfg.nspecs)) {
		fprintf(stderr, "rocetop: give exactly one of -r FILE or -i IFACE, or --device (see --help)\n");
		return 2;
	}
	if (a->dcfg.enable_optional && (!a->dcfg.nspecs || devmon_isolated())) {
		fprintf(stderr, "rocetop: --device-enable-optional %s\n", devmon_isolated() ?
			"changes this host's devices: not with --device-replay" : "needs --device");
		return 2;
	}
	if (a->dcfg.qp_interval < 0)
		a->dcfg.qp_interval = a->delay;
	if (a->dcfg.nspecs && a->packets) {
		fprintf(stderr, "rocetop: --device goes with the flow analysis, not with --packets\n");
		return 2;
	}
	if (a->web && !a->prom_addr) {
		fprintf(stderr, "rocetop: --web-config needs --prometheus (see --help)\n");
		return 2;
	}
	/* here, not in args_finish(): --device alone (no capture) decides on it too */
	a->tui = !a->packets && !a->batch && !a->json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	return -1;
}

/* --threads N: N threads go with the rest of the command line (N becomes
 * 1 where they do not: the terminal view, --packets, -w, live --time
 * mirror: one mirror clock, on one thread);
 * -1, else the exit code of a usage error. */
static int threads_check(struct args *a)
{
	const char *why = a->tui ? "the terminal view (use -b or --json)" : a->packets ? "--packets" :
			  a->wfile ? "-w" : a->mirror_time && a->iface ? "live --time mirror" : NULL;
	int given = a->nthreads > 0;

	if (!given)
		a->nthreads = workers_default(&a->scfg);
	if (a->nthreads > 1 && why) {
		if (given) {
			fprintf(stderr, "rocetop: --threads %u does not go with %s yet\n", a->nthreads, why);
			return 2;
		}
		a->nthreads = 1;
	}
	if (a->nthreads > 1 && a->iface)
		a->scfg.count = 0;     /* the threads count -c together */
	return -1;
}

int args_finish(struct args *a, int argc, char **argv)
{
	if (a->packets && (a->batch || a->iterations > 0)) {
		fprintf(stderr, "rocetop: -b and -n go with the flow analysis, not with --packets\n");
		return 2;
	}
	if (a->packets && a->prom_addr) {
		fprintf(stderr, "rocetop: --prometheus goes with the flow analysis, not with --packets\n");
		return 2;
	}
	if (a->wfile && !strcmp(a->wfile, "-") && (a->packets || a->tui)) {
		fprintf(stderr, "rocetop: -w - writes the capture to stdout, where %s would go too "
			"(-w FILE, or -b/--json: their reports go to stderr)\n", a->packets ? "--packets" : "the terminal view");
		return 2;
	}
	if (optind < argc && !(a->filter = join_args(argc - optind, argv + optind))) {
		fprintf(stderr, "rocetop: out of memory\n");
		return 1;
	}
	a->scfg.file = a->file;
	a->scfg.filter = a->filter;
	a->scfg.count = a->count > 0 ? (uint64_t)a->count : 0;
	a->scfg.timeout_ms = a->tui ? 0 : 100;   /* batch: wake up for snapshots on a quiet link */
	if (a->scfg.speed < 0)
		a->scfg.speed = a->tui && a->file ? 1 : 0;
	if (a->linger && !a->prom_addr) {
		fprintf(stderr, "rocetop: --linger needs --prometheus (see --help)\n");
		return 2;
	}
	return threads_check(a);
}
