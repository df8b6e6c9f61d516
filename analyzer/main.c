/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rocetop — RoCE and iWARP traffic analyzer.
 *
 *   rocetop -r FILE [--json] [-b] [-d SECONDS] [-n COUNT] [filter…]
 *   rocetop -r FILE --packets [--json] [filter…]
 *   rocetop -i IFACE … (as above)
 *
 * main.c parses options and wires the capture source either to the listing
 * (--packets) or to the flow engine (flow.c) and its batch views (report.c):
 * periodic snapshots with -b or with --json and -d/-n, then the summary.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "flow.h"
#include "listing.h"
#include "report.h"
#include "roce.h"
#include "seq.h"

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
		"      --json             with --packets: one JSON object per frame; without:\n"
		"                         JSON lines (snapshots with -d/-n, then the summary)\n"
		"  -b, --batch            periodic text snapshots (like top -b), then the summary\n"
		"  -d, --delay SECONDS    snapshot interval (default 2; capture time on replay)\n"
		"                         (with --packets, -d PORT is the old --roce-port)\n"
		"  -n, --iterations N     stop after N snapshots\n"
		"  -c, --count N          stop after N frames\n"
		"      --roce-port PORT   also decode UDP destination PORT as RoCEv2 (up to 8)\n"
		"      --no-legacy-port   do not decode UDP port 1021 as RoCEv2\n"
		"      --iwarp-port PORT  treat TCP PORT as carrying iWARP FPDUs\n"
		"      --pmtu BYTES       path MTU for READ accounting until the capture tells\n"
		"                         (256..4096, default 1024)\n"
		"      --link-speed SPEED link speed for PFC pause time (100G, 25G, 10000M; default 100G)\n"
		"      --max-flows N      flow table size; least recently seen evicted (default 1000000)\n"
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
	pcap_set_timeout(pc, 100);   /* wake up for snapshots on a quiet link */
	pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
	if (pcap_activate(pc) < 0) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(pc));
		pcap_close(pc);
		return NULL;
	}
	return pc;
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

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The flow engine's run: snapshots, progress, summary. */
struct run {
	struct engine eng;
	struct report_ctx ctx;
	int json, snapshots;
	uint64_t interval_ns, next_snap;
	long long iterations;
	unsigned nsnap;
	/* progress on stderr for a replay when stderr is a terminal */
	FILE *pf;
	off_t psize;
	int progress_shown;
};

static void update_drops(struct run *r, pcap_t *pc)
{
	struct pcap_stat st;

	if (r->ctx.live && pcap_stats(pc, &st) == 0) {
		r->ctx.drops.valid = 1;
		r->ctx.drops.received = st.ps_recv;
		r->ctx.drops.dropped = st.ps_drop;
		r->ctx.drops.if_dropped = st.ps_ifdrop;
	}
}

/* Emits a snapshot when the interval is over; 1 when -n snapshots are done. */
static int maybe_snapshot(struct run *r, pcap_t *pc, uint64_t now)
{
	if (!r->snapshots || !now)
		return 0;
	if (!r->next_snap) {
		r->next_snap = now + r->interval_ns;
		return 0;
	}
	if (now < r->next_snap)
		return 0;
	/* one snapshot per interval, aligned; quiet stretches are skipped */
	r->next_snap += (now - r->next_snap) / r->interval_ns * r->interval_ns;
	update_drops(r, pc);
	r->nsnap++;
	if (r->json)
		report_snapshot_json(stdout, &r->eng, &r->ctx, r->nsnap, r->next_snap);
	else
		report_snapshot_text(stdout, &r->eng, &r->ctx, r->nsnap, r->next_snap);
	fflush(stdout);
	r->next_snap += r->interval_ns;
	return r->iterations > 0 && r->nsnap >= (unsigned long long)r->iterations;
}

static void progress(struct run *r, uint64_t frames, int done)
{
	long pos;

	if (!r->pf || r->psize <= 0)
		return;
	if (done) {
		if (r->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	pos = ftell(r->pf);
	if (pos < 0)
		return;
	fprintf(stderr, "\rrocetop: %3.0f%% of %s, %llu frames", 100.0 * (double)pos / (double)r->psize,
		r->ctx.source, (unsigned long long)frames);
	r->progress_shown = 1;
}

int main(int argc, char **argv)
{
	enum { OPT_PACKETS = 256, OPT_JSON, OPT_NOLEGACY, OPT_IWARP, OPT_ROCEPORT, OPT_PMTU, OPT_SPEED,
	       OPT_MAXFLOWS };
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
		{ "pmtu", required_argument, NULL, OPT_PMTU },
		{ "link-speed", required_argument, NULL, OPT_SPEED },
		{ "max-flows", required_argument, NULL, OPT_MAXFLOWS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char err[PCAP_ERRBUF_SIZE] = "";
	const char *file = NULL, *iface = NULL, *dopt[8];
	struct roce_cfg cfg = { 0 };
	struct listing lst = { 0 };
	struct engine_cfg ecfg = { .max_flows = 1000000, .pmtu = 1024, .link_bps = 100000000000ull,
				   .check_icrc = 1 };
	static struct run run;
	int packets = 0, json = 0, batch = 0, c, rc = 0, lt, ndopt = 0, have_delay = 0;
	long long count = -1, iterations = -1;
	double delay = 2;
	uint64_t no = 0, v64;
	struct pcap_pkthdr *h;
	const u_char *data;
	char *filter;
	pcap_t *pc;
	uint16_t port;

	while ((c = getopt_long(argc, argv, "+r:i:c:d:n:bhV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': file = optarg; break;
		case 'i': iface = optarg; break;
		case OPT_PACKETS: packets = 1; break;
		case OPT_JSON: json = 1; break;
		case 'b': batch = 1; break;
		case 'c':
			count = strtoll(optarg, NULL, 10);
			if (count <= 0) {
				fprintf(stderr, "rocetop: bad count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1000000000, &v64)) {
				fprintf(stderr, "rocetop: bad iteration count '%s'\n", optarg);
				return 2;
			}
			iterations = (long long)v64;
			break;
		case 'd':
			/* SECONDS, or with --packets the old spelling of --roce-port:
			 * decided once every option is read */
			if (ndopt == (int)(sizeof dopt / sizeof dopt[0])) {
				fprintf(stderr, "rocetop: too many -d options\n");
				return 2;
			}
			dopt[ndopt++] = optarg;
			break;
		case OPT_ROCEPORT:
		case OPT_IWARP:
			if (parse_port(optarg, &port) ||
			    (c == OPT_ROCEPORT ? roce_cfg_add_udp_port(&cfg, port) : roce_cfg_add_iwarp_port(&cfg, port))) {
				fprintf(stderr, "rocetop: bad or too many ports: '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_NOLEGACY: cfg.no_legacy_port = 1; break;
		case OPT_PMTU:
			if (parse_u64(optarg, 256, 4096, &v64) || !roce_seq_mtu_code((uint32_t)v64)) {
				fprintf(stderr, "rocetop: bad --pmtu '%s' (256, 512, 1024, 2048 or 4096)\n", optarg);
				return 2;
			}
			ecfg.pmtu = (uint32_t)v64;
			break;
		case OPT_SPEED:
			if (parse_speed(optarg, &ecfg.link_bps)) {
				fprintf(stderr, "rocetop: bad --link-speed '%s' (e.g. 100G, 25G, 10000M)\n", optarg);
				return 2;
			}
			break;
		case OPT_MAXFLOWS:
			if (parse_u64(optarg, 1, 100000000, &v64)) {
				fprintf(stderr, "rocetop: bad --max-flows '%s'\n", optarg);
				return 2;
			}
			ecfg.max_flows = (uint32_t)v64;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("rocetop %s\n", ROCETOP_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	for (int i = 0; i < ndopt; i++) {
		if (packets) {
			if (parse_port(dopt[i], &port) || roce_cfg_add_udp_port(&cfg, port)) {
				fprintf(stderr, "rocetop: bad or too many ports: '%s'\n", dopt[i]);
				return 2;
			}
			continue;
		}
		{
			char *end;

			errno = 0;
			delay = strtod(dopt[i], &end);
			if (errno || *end || end == dopt[i] || !(delay >= 0.01) || delay > 86400) {
				fprintf(stderr, "rocetop: bad delay '%s' (seconds, 0.01 to 86400)\n", dopt[i]);
				return 2;
			}
			have_delay = 1;
		}
	}
	if (!file == !iface) {
		fprintf(stderr, "rocetop: give exactly one of -r FILE or -i IFACE (see --help)\n");
		return 2;
	}
	if (packets && (batch || iterations > 0)) {
		fprintf(stderr, "rocetop: -b and -n go with the flow analysis, not with --packets\n");
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

	if (!packets) {
		if (engine_init(&run.eng, &ecfg)) {
			fprintf(stderr, "rocetop: out of memory for %u flows\n", ecfg.max_flows);
			pcap_close(pc);
			return 1;
		}
		run.ctx.source = file ? file : iface;
		run.ctx.live = !file;
		run.json = json;
		/* text snapshots with -b (and, until the TUI, live); JSON ones with -d or -n */
		run.snapshots = json ? (have_delay || iterations > 0) : (batch || iface != NULL);
		run.interval_ns = (uint64_t)llround(delay * 1e9);
		run.iterations = iterations;
		if (file && isatty(2)) {
			struct stat st;

			run.pf = pcap_file(pc);
			if (run.pf && fstat(fileno(run.pf), &st) == 0 && st.st_size > (1 << 24))
				run.psize = st.st_size;
		}
	}

	lst.out = packets ? stdout : NULL;
	lst.json = json;
	lst.nsec = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO;
	while (!stop && (count < 0 || (long long)no < count)) {
		struct roce_pkt p;
		uint64_t ts;

		c = pcap_next_ex(pc, &h, &data);
		if (c == 0) {
			/* live: timeout */
			if (!packets && maybe_snapshot(&run, pc, wall_ns()))
				break;
			continue;
		}
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
		if (packets) {
			listing_frame(&lst, no, &h->ts, &p, h->caplen, h->len);
			continue;
		}
		ts = (uint64_t)h->ts.tv_sec * 1000000000ull +
		     (uint64_t)h->ts.tv_usec * (lst.nsec ? 1 : 1000);
		if (run.snapshots && maybe_snapshot(&run, pc, file ? ts : wall_ns())) {
			/* -n reached: this frame belongs after the last snapshot */
			break;
		}
		engine_packet(&run.eng, &p, ts, h->caplen, h->len);
		if (run.psize && !(no & 0xffff))
			progress(&run, no, 0);
	}
	if (!packets) {
		progress(&run, no, 1);
		update_drops(&run, pc);
		if (json)
			report_summary_json(stdout, &run.eng, &run.ctx);
		else
			report_summary_text(stdout, &run.eng, &run.ctx);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "rocetop: writing output: %s\n", strerror(errno));
		rc = 1;
	}
	if (!packets)
		engine_free(&run.eng);
	pcap_close(pc);
	return rc;
}
