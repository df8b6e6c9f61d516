/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rocetop — RoCE and iWARP traffic analyzer.
 *
 *   rocetop -r FILE [--json] [-b] [-d SECONDS] [-n COUNT] [filter…]
 *   rocetop -r FILE --packets [--json] [filter…]
 *   rocetop -i IFACE [-i IFACE…] … (as above)
 *   rocetop -r FILE | -i IFACE…   with a terminal and none of -b/--json/--packets: the TUI
 *   rocetop --device DEV[:PORT]|all [-i IFACE…|-r FILE] …   the NIC's own view (device/);
 *     alone on a terminal, the TUI's device screen; with -b/--json, snapshots
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
#include "args.h"
#include "devmon.h"
#include "nicdrop.h"
#include "flow.h"
#include "listing.h"
#include "vmarks.h"
#include "prom.h"
#include "report.h"
#include "pcapfile.h"
#include "roce.h"
#include "seq.h"
#include "source.h"
#include "threads.h"
#include "tui.h"


static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
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
	FILE *out;                   /* the reports: stdout, or stderr when -w - holds stdout */
	struct source *watch;        /* live with threads and --prometheus: its poll loop */
	struct source *src;          /* the replayed file, for progress */
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

/* --prometheus with threads: each scrape reads the merged view. */
static const struct engine *pe_view(void *ctx)
{
	return workers_view(ctx);
}

static void pe_release(void *ctx)
{
	workers_release(ctx);
}

static void pe_stats(void *ctx, unsigned i, struct source_stats *st)
{
	workers_stats(ctx, i, st);
}

/* Serves --prometheus: live with threads from a poll loop of this thread's
 * own (the capture threads' would hold their engines). */
static int prom_serve(struct prom *prom, struct run *r, struct source *src, int live)
{
	static struct prom_engines pe;

	if (!r->wk)
		return prom_attach(prom, src, &r->eng);
	pe = (struct prom_engines){ pe_view, pe_release, pe_stats, src, r->wk };
	prom_engines(prom, &pe);
	if (live && !(r->watch = source_open_watcher(source_name(src))))
		return -1;
	return prom_attach(prom, live ? r->watch : src, NULL);
}

/* Live with threads: the capture threads count; this one takes snapshots. */
static int live_threads_loop(struct run *r, struct source *src, int (*snap)(struct run *, struct source *, uint64_t))
{
	struct timespec ts = { 0, 20000000 };

	while (!stop && !workers_done(r->wk)) {
		if (r->watch)
			source_wait(r->watch, 20);   /* serves --prometheus */
		else
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
	d->nic_valid = st->nicdrop_valid;
	d->nic_dropped = st->nicdrop;
	d->nic_counters = st->nicdrop_names;
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
		d->sum.nic_valid |= one->nic_valid;
		d->sum.nic_dropped += one->nic_dropped;
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

		if (r->dev)
			r->dev->wire = e;   /* the QPs join the flows the views read (threads: merged) */
		if (r->json)
			report_snapshot_json(r->out, e, &r->ctx, r->nsnap, r->next_snap);
		else
			report_snapshot_text(r->out, e, &r->ctx, r->nsnap, r->next_snap);
		run_release(r);
		if (r->dev)
			r->dev->wire = &r->eng;
	}
	fflush(r->out);
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

static void dev_diag(const void *ctx, struct diag_input *in)
{
	nicdrop_devices(ctx, in);
}

/* A scrape reads the devices again when the last read is older than 1 s. */
static struct devmon *dev_fresh(const void *ctx)
{
	struct devmon *m = (struct devmon *)ctx;
	uint64_t now = wall_ns();

	if (now - m->last_ns > 1000000000ull)
		devmon_poll(m, now);
	return m;
}

static void dev_prom(FILE *f, const void *ctx)
{
	devmon_prom(f, dev_fresh(ctx));
}

/* A scrape's diagnosis (nic_drop): its evaluation comes before dev_prom. */
static void dev_prom_diag(const void *ctx, struct diag_input *in)
{
	nicdrop_devices(dev_fresh(ctx), in);
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

/* --device alone, -b, --json or no terminal: a snapshot of the devices
 * every interval until -n or a signal. */
static int device_snapshots(struct devmon *m, struct source *w, const struct args *a)
{
	uint64_t next, step = (uint64_t)llround(a->delay * 1e9);
	unsigned n = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	devmon_poll(m, wall_ns());
	next = wall_ns() + step;
	while (!stop && (a->iterations <= 0 || n < a->iterations)) {
		uint64_t now;

		wait_until(w, next);
		if (stop)
			break;
		now = wall_ns();
		next += step;
		devmon_poll(m, now);
		if (device_snapshot(m, a->json, ++n, now) < 0)
			return 1;
	}
	return 0;
}

/* --device alone on a terminal: the terminal view's device screen, as
 * key D shows it beside a capture.  No engine: the view never reads a
 * frame; its source only polls the terminal and the Prometheus sockets. */
static int device_tui(struct devmon *m, struct source **w, const struct prom *prom, const struct args *a)
{
	struct tui_cfg tc = { .interval = a->have_delay ? a->delay : 1, .version = ROCETOP_VERSION, .dev = m,
			      .dev_only = 1, .prom_addr = prom ? prom_address(prom) : NULL };

	if (!*w && !(*w = source_open_watcher("devices"))) {
		fprintf(stderr, "rocetop: out of memory\n");
		return 1;
	}
	tc.src = *w;
	return tui_run(&tc);
}

/* --device without -i or -r: the device screen on a terminal, else
 * snapshots; with --prometheus the device series on /metrics. */
static int device_only(struct devmon *m, const struct args *a)
{
	char err[256];
	struct source *w = NULL;
	struct prom *prom = NULL;
	int rc = 1;

	if (a->prom_addr && device_serve(m, a->prom_addr, a->prom_max, &w, &prom) < 0)
		goto out;
	if (prom)
		prom_web(prom, a->web);
	/* every descriptor is open: no capability is needed from here on */
	if ((a->user && source_drop_privileges(a->user, err, sizeof err) < 0) ||
	    (!a->user && source_shed_capabilities(err, sizeof err) < 0)) {
		fprintf(stderr, "rocetop: %s\n", err);
		goto out;
	}
	rc = a->tui ? device_tui(m, &w, prom, a) : device_snapshots(m, w, a);
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

static int feed_frame(void *ctx, struct source_frame *fr)
{
	struct feed *fd = ctx;
	struct roce_pkt p;

	roce_decode(&p, fd->cfg, fr->linktype, fr->data, fr->caplen, fr->len);
	mirror_time(fd->mclock, source_nsec(fd->src), fr, &p);
	engine_packet(fd->eng, &p, fr->ts_ns, fr->caplen, fr->len);
	return 0;
}

/* The terminal view's frames: SOURCE_FRAME when any came. */
static int feed(void *ctx, unsigned max)
{
	struct feed *fd = ctx;
	int c = source_batch(fd->src, max, feed_frame, fd);

	return c > 0 ? SOURCE_FRAME : c;
}

static void progress(struct run *r, uint64_t frames, int done)
{
	long long pos;
	uint64_t bytes;

	if (!r->pf || r->psize <= 0)
		return;
	if (done) {
		progress_erase(r);
		return;
	}
	if (r->wk && workers_is_direct(r->wk))
		workers_read(r->wk, NULL, &bytes), pos = (long long)bytes;
	else
		pos = r->src ? source_offset(r->src) : -1;
	if (pos < 0)
		return;
	fprintf(stderr, "\rrocetop: %3.0f%% of %s, %llu frames", 100.0 * (double)pos / (double)r->psize,
		r->ctx.source, (unsigned long long)frames);
	r->progress_shown = 1;
}

/* ---- the run: capture → decode → flow table → view ------------------------- */

struct app {
	struct args a;
	struct run run;
	struct source *src;
	struct prom *prom;
	struct devmon *dev;           /* --device, or the RDMA ports of -i's netdevs */
	struct roce_mirror_clock mclock_mem, *mclock;   /* --time mirror */
	struct listing lst;           /* --packets */
	struct vmarks vm;             /* --packets of a file: the frames the verdicts name */
	int engine_up;
	uint64_t no;                  /* frames read */
	int ended;                    /* -n reached */
	char err[PCAP_ERRBUF_SIZE + 256];
};

static void app_close(struct app *x)
{
	if (x->engine_up)
		engine_free(&x->run.eng);
	vmarks_free(&x->vm);
	workers_free(x->run.wk);
	prom_close(x->prom);
	if (x->run.watch)
		source_close(x->run.watch);
	if (x->src)
		source_close(x->src);
	devmon_close(x->dev);
}

static int fail(struct app *x, const char *msg)
{
	fprintf(stderr, "rocetop: %s\n", msg);
	app_close(x);
	return 1;
}

/* The device source: --device, and the RDMA ports of the -i netdevs. */
static int open_devices(struct app *x)
{
	struct args *a = &x->a;

	if (!a->dcfg.nspecs && !(a->iface && !a->packets))
		return -1;
	for (unsigned i = 0; i < a->scfg.nifaces && !a->packets; i++)
		a->dcfg.netdevs[a->dcfg.nnetdevs++] = a->scfg.ifaces[i];
	x->dev = devmon_open(&a->dcfg, x->err, sizeof x->err);
	if (!x->dev && x->err[0]) {
		fprintf(stderr, "rocetop: %s\n", x->err);
		return 1;
	}
	return -1;
}


/* A plain batch replay, whose reader the engine may walk itself (one
 * thread: direct_one(); --threads: workers_direct()): nothing needs each
 * frame as source.c hands it out — no snapshots, listing, TUI, --time
 * mirror, --prometheus or --device — and the source is one pcap or pcapng
 * file, not gzip, with no filter, -w or pacing (source_direct()). */
static struct pcapfile *direct_ok(struct app *x)
{
	struct args *a = &x->a;

	if (!a->file || a->packets || a->tui || x->mclock || a->have_delay || a->iterations > 0 || a->prom_addr ||
	    x->dev)
		return NULL;
	return source_direct(x->src);
}

/* The capture source (-i RDMA_DEVICE such as mlx5_0 goes to the verbs
 * sniffer: source.c, vsniff.c), its threads, Prometheus and -w; then the
 * privileges go.  -1, or the exit status. */
static int open_capture(struct app *x)
{
	struct args *a = &x->a;
	struct pcapfile *pf;
	enum source_err what;

	x->src = source_open(&a->scfg, &what, x->err, sizeof x->err);
	free(a->filter);
	a->filter = NULL;
	if (!x->src) {
		fprintf(stderr, "rocetop: %s\n", x->err);
		app_close(x);
		return what == SOURCE_E_FILTER || what == SOURCE_E_USAGE ? 2 : 1;
	}
	if (a->nthreads > 1 &&
	    (!(x->run.wk = workers_new(a->nthreads, &a->ecfg, &a->cfg, a->count > 0 ? (uint64_t)a->count : 0)) ||
	     (a->iface && workers_add_live(x->run.wk, x->src, &a->scfg, x->err, sizeof x->err) < 0)))
		return fail(x, x->run.wk ? x->err : "out of memory");
	if (a->prom_addr && (!(x->prom = prom_open(a->prom_addr, a->prom_max, x->err, sizeof x->err)) ||
			     prom_serve(x->prom, &x->run, x->src, a->iface != NULL) < 0))
		return fail(x, x->err);
	if (x->prom)
		prom_web(x->prom, a->web);
	/* as tcpdump: privileges go once the capture is open, before -w opens its file;
	 * with every descriptor open, no capability is needed to parse what comes */
	if ((a->user && source_drop_privileges(a->user, x->err, sizeof x->err) < 0) ||
	    (a->wfile && source_dump_open(x->src, a->wfile, x->err, sizeof x->err) < 0) ||
	    source_shed_capabilities(x->err, sizeof x->err) < 0)
		return fail(x, x->err);
	/* a batch replay's threads read the file themselves (threads.h) when
	 * nothing here needs each frame: no snapshots, listing, TUI, --time
	 * mirror, --prometheus or --device */
	if (x->run.wk && a->scfg.nfiles > 1)   /* -r A -r B: each flow says which files it was seen in */
		workers_files(x->run.wk, a->scfg.files, a->scfg.nfiles);
	if (x->run.wk && (pf = direct_ok(x)) && workers_direct(x->run.wk, pf) < 0)
		return fail(x, "out of memory");
	if (x->run.wk && workers_start(x->run.wk, x->err, sizeof x->err) < 0)
		return fail(x, x->err);
	return -1;
}

/* The flow engine and the views' settings; -1, or the exit status. */
static int setup_engine(struct app *x)
{
	struct args *a = &x->a;
	struct run *r = &x->run;

	if (engine_init(&r->eng, &a->ecfg)) {
		snprintf(x->err, sizeof x->err, "out of memory for %u flows", a->ecfg.max_flows);
		return fail(x, x->err);
	}
	x->engine_up = 1;
	if (a->scfg.nfiles > 1) {   /* -r A -r B: each flow says which files it was seen in */
		r->eng.file_names = a->scfg.files;
		r->eng.nfile_names = a->scfg.nfiles;
	}
	r->ctx.source = source_name(x->src);
	if (x->dev) {
		r->dev = x->dev;
		r->ctx.devices = x->dev;
		x->dev->wire = &r->eng;   /* one QP, one row: the device's QPs joined with the flows */
		r->ctx.devices_text = dev_text;
		r->ctx.devices_json = dev_json;
		r->ctx.devices_diag = dev_diag;
		devmon_poll(x->dev, wall_ns());
		if (x->prom) {
			prom_extra(x->prom, dev_prom, x->dev);
			prom_diag_devices(x->prom, dev_prom_diag, x->dev);
		}
	}
	r->ctx.live = !a->file;
	r->ctx.json_top = a->top;     /* --top: the summary's flow lists, JSON and text */
	r->ctx.summary_top = a->top;
	r->json = a->json;
	/* live: text snapshots (-b, or no terminal); JSON ones with -d or -n.
	 * Replay: snapshots only when -d or -n asks for them. */
	r->snapshots = a->json || a->file ? (a->have_delay || a->iterations > 0) : 1;
	r->interval_ns = (uint64_t)llround(a->delay * 1e9);
	r->iterations = a->iterations;
	if (a->file && isatty(2)) {
		struct stat st;

		r->pf = source_file(x->src);
		r->src = x->src;
		if (r->pf && fstat(fileno(r->pf), &st) == 0 && st.st_size > 0)
			r->psize = st.st_size;
		r->pnext = mono_ns() + PROGRESS_NS;
	}
	return -1;
}

static int run_tui(struct app *x)
{
	struct args *a = &x->a;
	struct feed fd = { x->src, &a->cfg, &x->run.eng, x->mclock };
	struct tui_cfg tc = { .eng = &x->run.eng, .ecfg = &a->ecfg, .src = x->src, .feed = feed, .feed_ctx = &fd,
			      .prom_addr = x->prom ? prom_address(x->prom) : NULL,
			      .interval = a->have_delay ? a->delay : 1, .version = ROCETOP_VERSION, .dev = x->dev };
	int rc = tui_run(&tc);

	if (source_dump_close(x->src, x->err, sizeof x->err) < 0) {
		fprintf(stderr, "rocetop: %s\n", x->err);
		rc = 1;
	}
	app_close(x);
	return rc;
}

static void read_error(struct app *x)
{
	if (source_write_failed(x->src))
		fprintf(stderr, "rocetop: %s (after %llu frames)\n", source_error(x->src), (unsigned long long)x->no);
	else
		fprintf(stderr, "rocetop: %s: %s (after %llu frames)\n", source_name(x->src), source_error(x->src),
			(unsigned long long)x->no);
}

/* One frame: listed (--packets), or to the engine or its thread. 1 when -n
 * is reached. */
static int one_frame(struct app *x, struct source_frame *fr)
{
	struct args *a = &x->a;
	struct run *r = &x->run;
	struct roce_pkt p;
	/* live, snapshots go by the frames' own capture times (the kernel's
	 * clock, before --time mirror): no clock read per frame */
	uint64_t now = fr->ts_ns;

	/* with workers, frames are decoded on their threads; --time mirror
	 * needs the decoded frame here, before it is handed over */
	if (!r->wk || x->mclock || a->packets) {
		roce_decode(&p, &a->cfg, fr->linktype, fr->data, fr->caplen, fr->len);
		if (x->mclock)
			mirror_time(x->mclock, source_nsec(x->src), fr, &p);
	}
	if (a->packets) {
		/* the engine only judges the frame: the listing marks what it found */
		r->eng.cur_file = fr->iface;
		engine_packet(&r->eng, &p, fr->ts_ns, fr->caplen, fr->len);
		x->lst.verdict = r->eng.verdict;
		/* (-r A -r B: each frame listed and marked by its file and its number there) */
		x->lst.nv = vmarks_at(&x->vm, vmarks_key(a->scfg.nfiles > 1 ? fr->iface : 0, fr->no), x->lst.vnames,
				      LISTING_VERDICTS);
		x->lst.file = a->scfg.nfiles > 1 ? a->scfg.files[fr->iface] : NULL;
		listing_frame(&x->lst, fr->no, &fr->hdr.ts, &p, fr->caplen, fr->len);
		return 0;
	}
	/* -n reached: this frame belongs after the last snapshot */
	if (r->snapshots && maybe_snapshot(r, x->src, a->file ? fr->ts_ns : now))
		return 1;
	if (r->wk) {
		workers_push(r->wk, fr);
	} else {
		r->eng.cur_file = fr->iface;
		engine_packet(&r->eng, &p, fr->ts_ns, fr->caplen, fr->len);
	}
	if (r->psize && !(x->no & 0xff) && mono_ns() >= r->pnext) {
		progress(r, x->no, 0);
		r->pnext = mono_ns() + PROGRESS_NS;
	}
	return 0;
}

/* --threads, the threads reading the file themselves: waits for them. */
static int direct_loop(struct app *x)
{
	struct run *r = &x->run;
	uint64_t last_ts;

	while (!stop && !workers_wait(r->wk, 100)) {
		if (r->psize && mono_ns() >= r->pnext) {
			progress(r, workers_frames(r->wk, NULL), 0);
			r->pnext = mono_ns() + PROGRESS_NS;
		}
	}
	workers_stop(r->wk);
	x->no = workers_read(r->wk, &last_ts, NULL);
	source_direct_done(x->src, x->no, last_ts);
	if (workers_error(r->wk)) {
		fprintf(stderr, "rocetop: %s: %s (after %llu frames)\n", source_name(x->src), workers_error(r->wk),
			(unsigned long long)x->no);
		return 1;
	}
	return 0;
}

/* One thread, a plain batch replay (direct_ok()): the engine walks the
 * file's records itself, as a --threads worker does (threads.c), without
 * source_batch()'s frame record, callback and per-frame checks (on the
 * 512-connection mix of bench/flow.sh, 2,761 -> 2,571 instructions per
 * frame, callgrind).  The frames, their numbers and times are source.c's:
 * one record is one frame, numbered from 1, its time in nanoseconds. */
static int direct_one(struct app *x, struct pcapfile *pf)
{
	struct args *a = &x->a;
	struct run *r = &x->run;
	struct pcap_pkthdr h;
	const uint8_t *d;
	struct roce_pkt p;
	uint64_t ts = 0;
	int rc = 0;

	r->eng.cur_file = 0;
	while (!stop && (a->count < 0 || (long long)x->no < a->count) && (rc = pcapfile_next(pf, &h, &d)) == 1) {
		x->no++;
		ts = pcapfile_ts_ns(&h);
		roce_decode(&p, &a->cfg, pcapfile_frame_datalink(pf), d, h.caplen, h.len);
		engine_packet(&r->eng, &p, ts, h.caplen, h.len);
		if (r->psize && !(x->no & 0xff) && mono_ns() >= r->pnext) {
			progress(r, x->no, 0);
			r->pnext = mono_ns() + PROGRESS_NS;
		}
	}
	source_direct_done(x->src, x->no, ts);
	if (rc < 0) {
		fprintf(stderr, "rocetop: %s: %s (after %llu frames)\n", source_name(x->src), pcapfile_error(pf),
			(unsigned long long)x->no);
		return 1;
	}
	return 0;
}

/* source_batch()'s callback: one frame; nonzero to stop. */
static int read_frame(void *ctx, struct source_frame *fr)
{
	struct app *x = ctx;

	x->no++;
	x->ended = one_frame(x, fr);
	return x->ended || stop;
}

#define READ_BATCH 8192   /* frames per source_batch(): live, some ring blocks */

/* Frames until the end, -c, -n, a signal or an error: 0 or 1. */
static int read_loop(struct app *x)
{
	struct args *a = &x->a;
	struct pcapfile *pf;
	int c;

	x->lst.out = a->packets ? stdout : NULL;
	x->lst.json = a->json;
	x->lst.nsec = source_nsec(x->src);
	if (x->run.wk && a->iface)
		return live_threads_loop(&x->run, x->src, maybe_snapshot);
	if (x->run.wk && workers_is_direct(x->run.wk))
		return direct_loop(x);
	if (!x->run.wk && (pf = direct_ok(x)))
		return direct_one(x, pf);
	while (!stop && !x->ended && (a->count < 0 || (long long)x->no < a->count)) {
		c = source_batch(x->src, READ_BATCH, read_frame, x);
		if (c > 0)
			continue;
		if (c == SOURCE_NONE) {
			/* live: quiet; paced replay: not due yet */
			if (!a->packets && maybe_snapshot(&x->run, x->src, a->file ? source_now(x->src) : wall_ns()))
				break;
			continue;
		}
		if (c == SOURCE_EOF)
			break;
		read_error(x);
		return 1;
	}
	return 0;
}

static void summary(struct app *x)
{
	struct run *r = &x->run;
	static uint64_t per[WORKERS_MAX];
	const struct engine *e;

	progress(r, x->no, 1);
	update_drops(r, x->src);
	if (r->dev)   /* the diagnosis compares the NICs' counters at the end with the wire (nic_drop) */
		devmon_poll(r->dev, wall_ns());
	e = run_engine(r);
	if (r->wk) {
		workers_frames(r->wk, per);
		r->ctx.nthreads = workers_count(r->wk);
		r->ctx.thread_frames = per;
	}
	if (x->a.json)
		report_summary_json(r->out, e, &r->ctx);
	else
		report_summary_text(r->out, e, &r->ctx);
	run_release(r);
}

/* -w closed, the summary, stdout checked, --linger; the exit status. */
static int finish(struct app *x, int rc)
{
	if (!source_write_failed(x->src) && source_dump_close(x->src, x->err, sizeof x->err) < 0) {
		fprintf(stderr, "rocetop: %s\n", x->err);
		rc = 1;
	}
	if (!x->a.packets)
		summary(x);
	errno = 0;
	/* -w -: stdout was the capture's, closed with it (its errors said above) */
	if (!x->run.out || x->run.out == stdout ? (fflush(stdout) != 0) | ferror(stdout) :
	    (fflush(stderr) != 0) | ferror(stderr)) {
		fprintf(stderr, "rocetop: writing output: %s\n", strerror(errno ? errno : EIO));
		rc = 1;
	}
	/* --linger: the final values stay scrapeable until we are told to stop */
	if (x->a.linger && x->prom && !x->a.packets && !stop)
		fprintf(stderr, "rocetop: the capture is read; serving its final values on http://%s/metrics "
			"until SIGINT or SIGTERM (--linger)\n", prom_address(x->prom));
	while (x->a.linger && x->prom && !x->a.packets && !stop)
		source_wait(x->src, 200);
	app_close(x);
	return rc;
}

int main(int argc, char **argv)
{
	static struct app x;
	struct args *a = &x.a;
	int rc;

	if ((rc = args_parse(a, argc, argv)) >= 0)
		return rc;
	if (a->tui) {
		const char *why = tui_unusable();

		if (why) {
			fprintf(stderr, "rocetop: %s: no terminal view; text snapshots as with -b instead "
				"(a TERM such as xterm-256color draws it)\n", why);
			a->tui = 0;
			a->batch = 1;
		}
	}
	if ((rc = open_devices(&x)) >= 0)
		return rc;
	if (!a->file && !a->iface)
		return device_only(x.dev, a);
	if ((rc = args_finish(a, argc, argv)) >= 0)
		return rc;
	x.mclock = a->mirror_time ? &x.mclock_mem : NULL;
	/* as tcpdump -w -: the capture alone on stdout, the reports on stderr */
	x.run.out = a->wfile && !strcmp(a->wfile, "-") ? stderr : stdout;
	if ((rc = open_capture(&x)) >= 0)
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGXFSZ, SIG_IGN);      /* a file size limit: write() fails with EFBIG, reported */
	if (!a->packets && (rc = setup_engine(&x)) >= 0)
		return rc;
	if (a->packets) {
		if (engine_init(&x.run.eng, &a->ecfg))
			return fail(&x, "out of memory for the flow table");
		x.engine_up = 1;
		/* a file: a first pass finds the frames the diagnosis names (vmarks.h) */
		if (vmarks_scan(&x.vm, &a->scfg, &a->cfg, &a->ecfg, x.err, sizeof x.err) < 0)
			return fail(&x, x.err);
	}
	if (a->tui)
		return run_tui(&x);
	return finish(&x, read_loop(&x));
}
