/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rocetop — RoCE and iWARP traffic analyzer.
 *
 *   rocetop -r FILE [--json] [-b] [-d SECONDS] [-n COUNT] [filter…]
 *   rocetop -r FILE --packets [--json] [filter…]
 *   rocetop -i IFACE [-i IFACE…] … (as above)
 *   rocetop -r FILE | -i IFACE…   with a terminal and none of -b/--json/--packets: the TUI
 *   rocetop --device DEV[:PORT]|all [-i IFACE…|-r FILE] …   the NIC's own view (device/)
 *
 * main.c parses options and wires the capture source either to the listing
 * (--packets) or to the flow engine (flow.c) and its batch views (report.c):
 * periodic snapshots with -b or with --json and -d/-n, then the summary.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "devmon.h"
#include "flow.h"
#include "listing.h"
#include "prom.h"
#include "report.h"
#include "roce.h"
#include "seq.h"
#include "source.h"
#include "threads.h"
#include "tui.h"

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
		"  -i, --interface IFACE  capture live from IFACE (repeat for several); the RDMA\n"
		"                         ports whose netdev it is join the device view\n"
		"      --device DEV[:PORT]  show what the RDMA device itself knows: QPs, CQs, MRs,\n"
		"                         CM IDs, port counters, GIDs, ethtool -S (repeatable; 'all'),\n"
		"                         alone or beside -i/-r\n"
		"      --qp-interval SECONDS  how often to dump the QP table (default: -d)\n"
		"      --device-all-counters  rates of every counter, not only those that moved\n"
		"      --prometheus-node-names  the device's port metrics under node_exporter's names too\n"
		"  -B, --buffer-size KiB  kernel capture buffer per interface (default 32768)\n"
		"      --buffer-frames N  ... or larger, to hold N frames of the interface's MTU\n"
		"                         (up to the snaplen; default 8192)\n"
		"  -s, --snaplen BYTES    bytes captured per frame (default 9216)\n"
		"  -w, --write FILE       also save the frames read to a pcap file\n"
		"      --speed X          replay at X times the capture's pace (0: as fast as possible;\n"
		"                         default 1 in the TUI, 0 otherwise)\n"
		"      --realtime         --speed 1\n"
		"  -Z, --relinquish-privileges USER  become USER once the capture is open\n"
		"      --prometheus ADDR:PORT  serve GET /metrics (Prometheus text format) there\n"
		"      --prometheus-max-flows N  flows with per-flow series (largest by packets; default 1000)\n"
		"      --linger           after a replay, keep serving --prometheus until SIGINT/SIGTERM\n"
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
		"      --vxlan-port PORT  also decapsulate VXLAN on UDP PORT (4789 and 8472 always)\n"
		"      --no-decap         do not decapsulate mirror copies (ERSPAN, GRE-TEB, VXLAN)\n"
		"      --time host|mirror frame times from the capture host (default) or from the\n"
		"                         ERSPAN III hardware timestamps, anchored on the host time\n"
		"      --pmtu BYTES       path MTU for READ accounting until the capture tells\n"
		"                         (256..4096, default 1024)\n"
		"      --link-speed SPEED link speed for PFC pause time (100G, 25G, 10000M; default 100G)\n"
		"      --max-flows N      flow table size; least recently seen evicted (default 1000000)\n"
		"      --top N            the summary lists the N largest flows (JSON: all by default,\n"
		"                         text: 50); its totals count every flow\n"
		"      --rtt-memory KiB   cap for outstanding requests and RTT histograms (default 262144)\n"
		"      --threads N        analyse on N threads, each with its own flow table (live: a\n"
		"                         fanout group per interface; default: CPUs, at most the\n"
		"                         interface's receive queues; replay: 1); with -b or --json\n"
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
	/* progress on stderr for a replay when stderr is a terminal: from
	 * PROGRESS_NS on, every PROGRESS_NS of the run */
	FILE *pf;
	off_t psize;
	uint64_t pnext;
	int progress_shown;
	struct devmon *dev;          /* --device, or NULL */
	struct workers *wk;          /* --threads N > 1 (threads.h), or NULL */
};

/* ---- --threads: the engine the views read ---------------------------------- */

/* The run's engine, or the threads' merged view (held until run_release()). */
static const struct engine *run_engine(struct run *r)
{
	const struct engine *e = r->wk ? workers_view(r->wk) : &r->eng;

	if (!e) {
		fprintf(stderr, "rocetop: out of memory merging the threads' flow tables\n");
		exit(1);
	}
	return e;
}

static void run_release(struct run *r)
{
	if (r->wk)
		workers_release(r->wk);
}

/* --threads N: 0 when N threads go with the rest of the command line (n
 * becomes 1 where they do not: the terminal view, --packets, -w,
 * --prometheus), else the exit code of a usage error. */
static int threads_check(unsigned *n, int given, const struct source_cfg *scfg, int tui, int packets,
			 const char *wfile, const char *prom)
{
	const char *why = tui ? "the terminal view (use -b or --json)" : packets ? "--packets" :
			  wfile ? "-w" : prom ? "--prometheus" : NULL;

	if (!given)
		*n = workers_default(scfg);
	if (*n > 1 && why) {
		if (given) {
			fprintf(stderr, "rocetop: --threads %u does not go with %s yet\n", *n, why);
			return 2;
		}
		*n = 1;
	}
	return 0;
}

/* Live with threads: the capture threads count; this one takes snapshots. */
static int live_threads_loop(struct run *r, struct source *src, int (*snap)(struct run *, struct source *, uint64_t))
{
	struct timespec ts = { 0, 20000000 };

	while (!stop && !workers_done(r->wk)) {
		nanosleep(&ts, NULL);
		if (snap(r, src, wall_ns()))
			break;
	}
	workers_stop(r->wk);
	if (workers_error(r->wk)) {
		fprintf(stderr, "rocetop: %s: %s (after %llu frames)\n", source_name(src), workers_error(r->wk),
			(unsigned long long)workers_frames(r->wk, NULL));
		return 1;
	}
	return 0;
}

#define PROGRESS_NS 500000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Takes the progress line off the terminal (before a snapshot, at the end). */
static void progress_erase(struct run *r)
{
	if (r->progress_shown) {
		fputs("\r\033[K", stderr);
		r->progress_shown = 0;
	}
}

static void drop_counts(struct report_drop_counts *d, const struct source_stats *st, const char *name)
{
	d->name = name;
	d->received = st->recv;
	d->dropped = st->drop;
	d->freezes = st->freeze;
	d->if_dropped = st->ifdrop;
	d->ring_frames = st->ring_frames;
}

static void update_drops(struct run *r, struct source *src)
{
	struct report_drops *d = &r->ctx.drops;

	if (!r->ctx.live)
		return;
	memset(d, 0, sizeof *d);
	for (unsigned i = 0; i < source_count(src) && d->n < REPORT_MAX_IFACES; i++) {
		struct source_stats st;
		struct report_drop_counts *one = &d->iface[d->n];

		if (r->wk)
			workers_stats(r->wk, i, &st);
		else
			source_stats(src, i, &st);
		if (!st.valid)
			continue;
		drop_counts(one, &st, source_iface(src, i));
		d->n++;
		d->valid = 1;
		d->sum.received += one->received;
		d->sum.dropped += one->dropped;
		d->sum.freezes += one->freezes;
		d->sum.if_dropped += one->if_dropped;
		d->sum.ring_frames += one->ring_frames;
	}
}

/* Emits a snapshot when the interval is over; 1 when -n snapshots are done. */
static int maybe_snapshot(struct run *r, struct source *src, uint64_t now)
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
	update_drops(r, src);
	progress_erase(r);
	if (r->dev)
		devmon_poll(r->dev, wall_ns());
	r->nsnap++;
	{
		const struct engine *e = run_engine(r);

		if (r->json)
			report_snapshot_json(stdout, e, &r->ctx, r->nsnap, r->next_snap);
		else
			report_snapshot_text(stdout, e, &r->ctx, r->nsnap, r->next_snap);
		run_release(r);
	}
	fflush(stdout);
	r->next_snap += r->interval_ns;
	return r->iterations > 0 && r->nsnap >= (unsigned long long)r->iterations;
}

/* ---- the device source ------------------------------------------------------- */

static void dev_text(FILE *f, const void *ctx)
{
	devmon_text(f, ctx);
}

static void dev_json(FILE *f, const void *ctx)
{
	devmon_json(f, ctx);
}

/* A scrape reads the devices again when the last read is older than 1 s. */
static void dev_prom(FILE *f, const void *ctx)
{
	struct devmon *m = (struct devmon *)ctx;
	uint64_t now = wall_ns();

	if (now - m->last_ns > 1000000000ull)
		devmon_poll(m, now);
	devmon_prom(f, m);
}

/* Sleeps until t (wall clock) or a signal. */
static void sleep_until(uint64_t t)
{
	uint64_t now = wall_ns();
	struct timespec ts;

	if (now >= t)
		return;
	ts.tv_sec = (time_t)((t - now) / 1000000000ull);
	ts.tv_nsec = (long)((t - now) % 1000000000ull);
	nanosleep(&ts, NULL);
}

/* Sleeps until t (wall clock) or a signal; serves scrapes meanwhile when w
 * watches a Prometheus socket. */
static void wait_until(struct source *w, uint64_t t)
{
	for (uint64_t now = wall_ns(); !stop && now < t; now = wall_ns()) {
		if (!w) {
			sleep_until(t);
			return;
		}
		source_wait(w, (int)((t - now + 999999) / 1000000));
	}
}

/* One device snapshot, as text or a JSON line; 0, or -1 when stdout fails. */
static int device_snapshot(struct devmon *m, int json, unsigned n, uint64_t now)
{
	if (json) {
		printf("{\"type\":\"devices\",\"n\":%u,\"time\":%.6f,\"devices\":", n, now / 1e9);
		devmon_json(stdout, m);
		fputs("}\n", stdout);
	} else {
		time_t sec = (time_t)(now / 1000000000ull);
		struct tm tm;

		gmtime_r(&sec, &tm);
		printf("rocetop %u - %02d:%02d:%02d UTC, devices\n", n, tm.tm_hour, tm.tm_min, tm.tm_sec);
		devmon_text(stdout, m);
		fputc('\n', stdout);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "rocetop: writing output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* --prometheus for a --device run: a source with no capture handle that
 * only serves the scrapes (each reads the devices when older than 1 s). */
static int device_serve(struct devmon *m, const char *addr, unsigned max, struct source **w,
			struct prom **prom)
{
	char err[256];

	*w = source_open_watcher("devices");
	if (!*w) {
		fprintf(stderr, "rocetop: out of memory\n");
		return -1;
	}
	*prom = prom_open(addr, max, err, sizeof err);
	if (!*prom || prom_attach(*prom, *w, NULL) < 0) {
		fprintf(stderr, "rocetop: --prometheus %s: %s\n", addr, *prom ? "cannot serve" : err);
		return -1;
	}
	prom_extra(*prom, dev_prom, m);
	return 0;
}

/* --device without -i or -r: a snapshot of the devices every interval,
 * and with --prometheus the device series on /metrics. */
static int device_only(struct devmon *m, int json, double delay, long long iterations, const char *user,
		       const char *prom_addr, unsigned prom_max)
{
	char err[256];
	uint64_t next, step = (uint64_t)llround(delay * 1e9);
	unsigned n = 0;
	struct source *w = NULL;
	struct prom *prom = NULL;
	int rc = 0;

	if (prom_addr && device_serve(m, prom_addr, prom_max, &w, &prom) < 0) {
		rc = 1;
		goto out;
	}
	/* every descriptor is open: no capability is needed from here on */
	if ((user && source_drop_privileges(user, err, sizeof err) < 0) ||
	    (!user && source_shed_capabilities(err, sizeof err) < 0)) {
		fprintf(stderr, "rocetop: %s\n", err);
		rc = 1;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	devmon_poll(m, wall_ns());
	next = wall_ns() + step;
	while (!stop && (iterations <= 0 || n < iterations)) {
		uint64_t now;

		wait_until(w, next);
		if (stop)
			break;
		now = wall_ns();
		next += step;
		devmon_poll(m, now);
		if (device_snapshot(m, json, ++n, now) < 0) {
			rc = 1;
			break;
		}
	}
out:
	prom_close(prom);
	source_close(w);
	devmon_close(m);
	return rc;
}

/* The TUI's reader: ready frames, decoded, into the engine. */
struct feed {
	struct source *src;
	const struct roce_cfg *cfg;
	struct engine *eng;
	struct roce_mirror_clock *mclock;
};

/* --time mirror: the frame's time by its ERSPAN III clock, when it has one. */
static void mirror_time(struct roce_mirror_clock *mc, int nsec, struct source_frame *fr, const struct roce_pkt *p)
{
	uint64_t t;

	if (!mc || !roce_mirror_time(mc, p, fr->ts_ns, &t))
		return;
	fr->ts_ns = t;
	fr->hdr.ts.tv_sec = (time_t)(t / 1000000000ull);
	fr->hdr.ts.tv_usec = (suseconds_t)(nsec ? t % 1000000000ull : t % 1000000000ull / 1000);
}

static int feed(void *ctx, unsigned max)
{
	struct feed *fd = ctx;
	struct source_frame fr;
	struct roce_pkt p;
	int c = SOURCE_FRAME;

	for (unsigned i = 0; i < max && (c = source_next(fd->src, &fr)) == SOURCE_FRAME; i++) {
		roce_decode(&p, fd->cfg, fr.linktype, fr.data, fr.caplen, fr.len);
		if (fd->mclock)
			mirror_time(fd->mclock, source_nsec(fd->src), &fr, &p);
		engine_packet(fd->eng, &p, fr.ts_ns, fr.caplen, fr.len);
	}
	return c;
}

static void progress(struct run *r, uint64_t frames, int done)
{
	long pos;

	if (!r->pf || r->psize <= 0)
		return;
	if (done) {
		progress_erase(r);
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
	       OPT_MAXFLOWS, OPT_REPLAY, OPT_REALTIME, OPT_PROM, OPT_PROM_MAX, OPT_VXLAN, OPT_NODECAP,
	       OPT_BUFFRAMES, OPT_LINGER, OPT_RTTMEM, OPT_DEVICE, OPT_QPINT, OPT_DEVALL, OPT_DEVNODE, OPT_TOP,
	       OPT_THREADS, OPT_TIME };
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
		{ "pmtu", required_argument, NULL, OPT_PMTU },
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
		{ "top", required_argument, NULL, OPT_TOP },
		{ "linger", no_argument, NULL, OPT_LINGER },
		{ "rtt-memory", required_argument, NULL, OPT_RTTMEM },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "qp-interval", required_argument, NULL, OPT_QPINT },
		{ "device-all-counters", no_argument, NULL, OPT_DEVALL },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "prometheus-node-names", no_argument, NULL, OPT_DEVNODE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char err[PCAP_ERRBUF_SIZE + 256] = "";
	const char *file = NULL, *iface = NULL, *dopt[8], *wfile = NULL, *user = NULL, *prom_addr = NULL;
	struct source_cfg scfg = { .speed = -1 };
	struct source_frame fr;
	struct source *src;
	struct prom *prom = NULL;
	enum source_err what;
	unsigned prom_max = PROM_DEFAULT_MAX_FLOWS;
	int tui;
	struct roce_cfg cfg = { 0 };
	struct listing lst = { 0 };
	struct engine_cfg ecfg = { .max_flows = 1000000, .pmtu = 1024, .link_bps = 100000000000ull,
				   .check_icrc = 1 };
	static struct run run;
	int packets = 0, json = 0, batch = 0, c, rc = 0, ndopt = 0, have_delay = 0, linger = 0;
	long long count = -1, iterations = -1;
	unsigned top = 0;
	double delay = 2;
	uint64_t no = 0, v64;
	char *filter = NULL;
	uint16_t port;
	struct devmon_cfg dcfg = { .qp_interval = -1 };
	unsigned nthreads = 0;        /* --threads; 0: workers_default() */
	static struct devmon *dev;
	static struct roce_mirror_clock mclock_mem;
	struct roce_mirror_clock *mclock = NULL;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:r:i:c:d:n:bB:s:w:Z:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': file = optarg; break;
		case 'i':
			if (scfg.nifaces == SOURCE_MAX_IFACES) {
				fprintf(stderr, "rocetop: at most %d interfaces\n", SOURCE_MAX_IFACES);
				return 2;
			}
			iface = scfg.ifaces[scfg.nifaces++] = optarg;
			break;
		case 'B':
		case 's':
			if (parse_u64(optarg, c == 'B' ? 1 : 64, c == 'B' ? 4194304 : 262144, &v64)) {
				fprintf(stderr, "rocetop: bad %s '%s'\n", c == 'B' ? "buffer size (KiB)" : "snaplen", optarg);
				return 2;
			}
			*(c == 'B' ? &scfg.buffer_kib : &scfg.snaplen) = (int)v64;
			break;
		case OPT_BUFFRAMES:
			if (parse_u64(optarg, 1, 16777216, &v64)) {
				fprintf(stderr, "rocetop: bad --buffer-frames '%s' (1 to 16777216)\n", optarg);
				return 2;
			}
			scfg.buffer_frames = (unsigned)v64;
			break;
		case 'w': wfile = optarg; break;
		case 'Z': user = optarg; break;
		case OPT_REALTIME: scfg.speed = 1; break;
		case OPT_REPLAY: {
			char *end;

			errno = 0;
			scfg.speed = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(scfg.speed >= 0) || scfg.speed > 1e6) {
				fprintf(stderr, "rocetop: bad --speed '%s' (0 for as fast as possible, 1 real time)\n", optarg);
				return 2;
			}
			break;
		}
		case OPT_PROM:
			if (prom_check_spec(optarg, err, sizeof err) < 0) {
				fprintf(stderr, "rocetop: %s\n", err);
				return 2;
			}
			prom_addr = optarg;
			break;
		case OPT_PROM_MAX:
			if (parse_u64(optarg, 0, 10000000, &v64)) {
				fprintf(stderr, "rocetop: bad --prometheus-max-flows '%s'\n", optarg);
				return 2;
			}
			prom_max = (unsigned)v64;
			break;
		case OPT_DEVICE:
			if (dcfg.nspecs == DEVMON_MAX_SPECS) {
				fprintf(stderr, "rocetop: at most %d --device options\n", DEVMON_MAX_SPECS);
				return 2;
			}
			dcfg.specs[dcfg.nspecs++] = optarg;
			break;
		case OPT_QPINT: {
			char *end;

			errno = 0;
			dcfg.qp_interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(dcfg.qp_interval >= 0.1) || dcfg.qp_interval > 86400) {
				fprintf(stderr, "rocetop: bad --qp-interval '%s' (seconds, 0.1 to 86400)\n", optarg);
				return 2;
			}
			break;
		}
		case OPT_DEVALL: dcfg.all_counters = 1; break;
		case OPT_DEVNODE: dcfg.node_names = 1; break;
		case OPT_TOP:
			if (parse_u64(optarg, 1, 100000000, &v64)) {
				fprintf(stderr, "rocetop: bad --top '%s' (a number of flows, 1 or more)\n", optarg);
				return 2;
			}
			top = (unsigned)v64;
			break;
		case OPT_PACKETS: packets = 1; break;
		case OPT_JSON: json = 1; break;
		case 'b': batch = 1; break;
		case 'c':
			if (parse_u64(optarg, 1, (uint64_t)1 << 62, &v64)) {
				fprintf(stderr, "rocetop: bad count '%s'\n", optarg);
				return 2;
			}
			count = (long long)v64;
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
		case OPT_VXLAN:
			if (parse_port(optarg, &port) ||
			    (c == OPT_ROCEPORT ? roce_cfg_add_udp_port(&cfg, port) :
			     c == OPT_IWARP ? roce_cfg_add_iwarp_port(&cfg, port) : roce_cfg_add_vxlan_port(&cfg, port))) {
				fprintf(stderr, "rocetop: bad or too many ports: '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_NOLEGACY: cfg.no_legacy_port = 1; break;
		case OPT_NODECAP: cfg.no_decap = 1; break;
		case OPT_TIME:
			if (strcmp(optarg, "host") && strcmp(optarg, "mirror")) {
				fprintf(stderr, "rocetop: bad --time '%s' (host or mirror)\n", optarg);
				return 2;
			}
			mclock = strcmp(optarg, "mirror") ? NULL : &mclock_mem;
			break;
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
		case OPT_RTTMEM:
			if (parse_u64(optarg, 16, (uint64_t)1 << 30, &v64)) {
				fprintf(stderr, "rocetop: bad --rtt-memory '%s' (KiB, 16 or more)\n", optarg);
				return 2;
			}
			ecfg.rtt_mem = v64 << 10;
			break;
		case OPT_LINGER:
			linger = 1;
			break;
		case OPT_THREADS:
			if (parse_u64(optarg, 1, WORKERS_MAX, &v64)) {
				fprintf(stderr, "rocetop: bad --threads '%s' (1 to %d)\n", optarg, WORKERS_MAX);
				return 2;
			}
			nthreads = (unsigned)v64;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("rocetop %s\n", ROCETOP_VERSION); return 0;
		default:
			/* one line, not the whole usage */
			if (c == ':')
				fprintf(stderr, "rocetop: option '%s' needs a value (see --help)\n", argv[optind - 1]);
			else
				fprintf(stderr, "rocetop: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return 2;
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
	if ((file && iface) || (!file && !iface && !dcfg.nspecs)) {
		fprintf(stderr, "rocetop: give exactly one of -r FILE or -i IFACE, or --device (see --help)\n");
		return 2;
	}
	if (dcfg.qp_interval < 0)
		dcfg.qp_interval = delay;
	if (dcfg.nspecs && packets) {
		fprintf(stderr, "rocetop: --device goes with the flow analysis, not with --packets\n");
		return 2;
	}
	if (dcfg.nspecs || (iface && !packets)) {
		for (unsigned i = 0; i < scfg.nifaces && !packets; i++)
			dcfg.netdevs[dcfg.nnetdevs++] = scfg.ifaces[i];
		dev = devmon_open(&dcfg, err, sizeof err);
		if (!dev && err[0]) {
			fprintf(stderr, "rocetop: %s\n", err);
			return 1;
		}
	}
	if (!file && !iface)
		return device_only(dev, json, delay, iterations, user, prom_addr, prom_max);
	/* -i RDMA_DEVICE (mlx5_0) captures through the verbs sniffer (source.c, vsniff.c) */
	if (packets && (batch || iterations > 0)) {
		fprintf(stderr, "rocetop: -b and -n go with the flow analysis, not with --packets\n");
		return 2;
	}
	if (packets && prom_addr) {
		fprintf(stderr, "rocetop: --prometheus goes with the flow analysis, not with --packets\n");
		return 2;
	}
	tui = !packets && !batch && !json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	if (optind < argc && !(filter = join_args(argc - optind, argv + optind))) {
		fprintf(stderr, "rocetop: out of memory\n");
		return 1;
	}
	scfg.file = file;
	scfg.filter = filter;
	scfg.count = count > 0 ? (uint64_t)count : 0;
	scfg.timeout_ms = tui ? 0 : 100;   /* batch: wake up for snapshots on a quiet link */
	if (scfg.speed < 0)
		scfg.speed = tui && file ? 1 : 0;
	if (linger && !prom_addr) {
		fprintf(stderr, "rocetop: --linger needs --prometheus (see --help)\n");
		return 2;
	}
	if ((c = threads_check(&nthreads, nthreads > 0, &scfg, tui, packets, wfile, prom_addr)) != 0)
		return c;
	if (nthreads > 1 && iface)
		scfg.count = 0;        /* the threads count -c together */
	src = source_open(&scfg, &what, err, sizeof err);
	free(filter);
	if (!src) {
		fprintf(stderr, "rocetop: %s\n", err);
		return what == SOURCE_E_FILTER || what == SOURCE_E_USAGE ? 2 : 1;
	}
	if (nthreads > 1 && (!(run.wk = workers_new(nthreads, &ecfg, &cfg, count > 0 ? (uint64_t)count : 0)) ||
			     (iface && workers_add_live(run.wk, src, &scfg, err, sizeof err) < 0))) {
		fprintf(stderr, "rocetop: %s\n", run.wk ? err : "out of memory");
		workers_free(run.wk);
		source_close(src);
		return 1;
	}
	if (prom_addr && (!(prom = prom_open(prom_addr, prom_max, err, sizeof err)) ||
			  prom_attach(prom, src, &run.eng) < 0)) {
		fprintf(stderr, "rocetop: %s\n", err);
		source_close(src);
		return 1;
	}
	/* as tcpdump: privileges go once the capture is open, before -w opens its file */
	/* every descriptor is open: no capability is needed to parse what comes */
	if ((user && source_drop_privileges(user, err, sizeof err) < 0) ||
	    (wfile && source_dump_open(src, wfile, err, sizeof err) < 0) ||
	    source_shed_capabilities(err, sizeof err) < 0 ||
	    (run.wk && workers_start(run.wk, err, sizeof err) < 0)) {
		fprintf(stderr, "rocetop: %s\n", err);
		workers_free(run.wk);
		prom_close(prom);
		source_close(src);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGXFSZ, SIG_IGN);      /* a file size limit: write() fails with EFBIG, reported */

	if (!packets) {
		if (engine_init(&run.eng, &ecfg)) {
			fprintf(stderr, "rocetop: out of memory for %u flows\n", ecfg.max_flows);
			prom_close(prom);
			source_close(src);
			return 1;
		}
		run.ctx.source = source_name(src);
		if (dev) {
			run.dev = dev;
			run.ctx.devices = dev;
			dev->wire = &run.eng;   /* one QP, one row: the device's QPs joined with the flows */
			run.ctx.devices_text = dev_text;
			run.ctx.devices_json = dev_json;
			devmon_poll(dev, wall_ns());
			if (prom)
				prom_extra(prom, dev_prom, dev);
		}
		run.ctx.live = !file;
		run.ctx.json_top = top;       /* --top: the summary's flow lists, JSON and text */
		run.ctx.summary_top = top;
		run.json = json;
		/* live: text snapshots (-b, or no terminal); JSON ones with -d or -n.
		 * Replay: snapshots only when -d or -n asks for them. */
		run.snapshots = json || file ? (have_delay || iterations > 0) : 1;
		run.interval_ns = (uint64_t)llround(delay * 1e9);
		run.iterations = iterations;
		if (file && isatty(2)) {
			struct stat st;

			run.pf = source_file(src);
			if (run.pf && fstat(fileno(run.pf), &st) == 0 && st.st_size > 0)
				run.psize = st.st_size;
			run.pnext = mono_ns() + PROGRESS_NS;
		}
	}

	if (tui) {
		struct feed fd = { src, &cfg, &run.eng, mclock };
		struct tui_cfg tc = { .eng = &run.eng, .ecfg = &ecfg, .src = src, .feed = feed, .feed_ctx = &fd,
				      .prom_addr = prom ? prom_address(prom) : NULL, .interval = have_delay ? delay : 1,
				      .version = ROCETOP_VERSION, .dev = dev };

		rc = tui_run(&tc);
		if (source_dump_close(src, err, sizeof err) < 0) {
			fprintf(stderr, "rocetop: %s\n", err);
			rc = 1;
		}
		engine_free(&run.eng);
		prom_close(prom);
		source_close(src);
		return rc;
	}
	lst.out = packets ? stdout : NULL;
	lst.json = json;
	lst.nsec = source_nsec(src);
	if (run.wk && iface)
		rc = live_threads_loop(&run, src, maybe_snapshot);
	while (!(run.wk && iface) && !stop && (count < 0 || (long long)no < count)) {
		struct roce_pkt p;
		uint64_t ts;

		c = source_next(src, &fr);
		if (c == SOURCE_NONE) {
			/* live: quiet; paced replay: not due yet */
			if (!packets && maybe_snapshot(&run, src, file ? source_now(src) : wall_ns()))
				break;
			continue;
		}
		if (c == SOURCE_EOF)
			break;             /* end of file */
		if (c < 0) {
			if (source_write_failed(src))
				fprintf(stderr, "rocetop: %s (after %llu frames)\n", source_error(src),
					(unsigned long long)no);
			else
				fprintf(stderr, "rocetop: %s: %s (after %llu frames)\n", source_name(src),
					source_error(src), (unsigned long long)no);
			rc = 1;
			break;
		}
		no++;
		/* with workers, frames are decoded on their threads; --time mirror
		 * needs the decoded frame here, before it is handed over */
		if (!run.wk || mclock || packets) {
			roce_decode(&p, &cfg, fr.linktype, fr.data, fr.caplen, fr.len);
			if (mclock)
				mirror_time(mclock, source_nsec(src), &fr, &p);
		}
		if (packets) {
			listing_frame(&lst, fr.no, &fr.hdr.ts, &p, fr.caplen, fr.len);
			continue;
		}
		ts = fr.ts_ns;
		if (run.snapshots && maybe_snapshot(&run, src, file ? ts : wall_ns())) {
			/* -n reached: this frame belongs after the last snapshot */
			break;
		}
		if (run.wk)
			workers_push(run.wk, &fr);
		else
			engine_packet(&run.eng, &p, ts, fr.caplen, fr.len);
		if (run.psize && !(no & 0xff) && mono_ns() >= run.pnext) {
			progress(&run, no, 0);
			run.pnext = mono_ns() + PROGRESS_NS;
		}
	}
	if (!source_write_failed(src) && source_dump_close(src, err, sizeof err) < 0) {
		fprintf(stderr, "rocetop: %s\n", err);
		rc = 1;
	}
	if (!packets) {
		progress(&run, no, 1);
		update_drops(&run, src);
		{
			const struct engine *e = run_engine(&run);
			static uint64_t per[WORKERS_MAX];

			if (run.wk) {
				workers_frames(run.wk, per);
				run.ctx.nthreads = workers_count(run.wk);
				run.ctx.thread_frames = per;
			}

			if (json)
				report_summary_json(stdout, e, &run.ctx);
			else
				report_summary_text(stdout, e, &run.ctx);
			run_release(&run);
		}
	}
	errno = 0;
	if ((fflush(stdout) != 0) | ferror(stdout)) {
		fprintf(stderr, "rocetop: writing output: %s\n", strerror(errno ? errno : EIO));
		rc = 1;
	}
	/* --linger: the final values stay scrapeable until we are told to stop */
	while (linger && prom && !packets && !stop)
		source_wait(src, 200);
	if (!packets)
		engine_free(&run.eng);
	workers_free(run.wk);
	prom_close(prom);
	source_close(src);
	devmon_close(dev);
	return rc;
}
