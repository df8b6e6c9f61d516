/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads.c — rocetop --threads N (threads.h): per-thread engines fed by a
 * fanout group (live), by their own readers of the file (a fast replay:
 * workers_direct()) or by byte rings (other replays), and their merged
 * view.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "engmerge.h"
#include "pcapfile.h"
#include "threads.h"
#include "vsniff.h"

#define RING_BYTES (8u << 20)         /* per replay thread; a record is at most 40 B + snaplen */
#define PUBLISH_EVERY 64              /* records between handing a ring's new end over */
#define LIVE_BATCH 4096               /* frames read per hold of the engine's lock (some ring blocks) */
#define LIVE_WAIT_MS 100
#define DIRECT_CHECK 256              /* frames between looks at the stop flag */

/* A replay frame in a ring: this header, then caplen bytes, padded to 8. */
struct rec {
	uint64_t ts_ns, no;           /* no: the frame's number (-r A -r B: in the merged timeline) */
	uint32_t caplen, len;
	int32_t linktype;
	uint32_t size;                /* header + data + padding; 0: the ring wraps here */
	uint32_t file;                /* -r A -r B: the frame's file (source_frame.iface) */
};

struct ring {
	uint8_t *buf;
	size_t head, tail;            /* published: read up to head, written up to tail (under mu) */
	size_t ptail, chead;          /* the producer's and the consumer's own positions */
	size_t head_seen;             /* the producer's last look at head */
	unsigned unpublished;
	int done;
	pthread_mutex_t mu;
	pthread_cond_t data, space;
};

/* Aligned: one worker's per-frame writes never share a cache line with
 * another's. */
struct worker {
	_Alignas(64) struct workers *w;
	pthread_t th;
	int started;
	struct engine eng;
	uint64_t *born;               /* order key of each flow slot (engmerge.h) */
	uint64_t *born_ts;            /* and the exact time of its first frame */
	uint32_t nborn, born_cap;
	uint64_t evicted;
	struct ring q;                /* replay */
	struct source *src;           /* live */
	int own_src;                  /* opened here (not thread 0's) */
	pthread_mutex_t hold;         /* live: held while frames go into eng */
	uint64_t frames;
	struct pcapfile *rd;          /* direct replay: this worker's reader of the file */
	int own_rd;                   /* a clone, closed here */
	uint64_t rd_no, rd_ts;        /* records it read, the last one's time */
	atomic_uint_fast64_t rd_pos;  /* bytes it read, now and then (progress) */
};

struct workers {
	unsigned n;
	int live;
	const struct roce_cfg *rcfg;
	uint64_t count;               /* live -c */
	atomic_uint_fast64_t taken;   /* live: frames taken towards -c */
	atomic_int stop, done;
	atomic_int want;              /* live: the main thread waits for the engines */
	int direct;                   /* replay: each worker reads the file (workers_direct) */
	atomic_uint ndone;            /* direct: workers at the end */
	pthread_mutex_t done_mu;      /* direct: workers_wait() */
	pthread_cond_t done_cv;
	uint64_t err_no;              /* direct: frames read before the damage */
	uint64_t pushed;              /* replay: frames handed over (-r A -r B: their numbers) */
	int files;                    /* -r A -r B: the flows note their files (workers_files) */
	char err[512];
	struct engmerge m;
	struct worker wk[WORKERS_MAX];
};

/* ---- engines ------------------------------------------------------------------------ */

/* Flows created by the last frame get its order key: new slots, or the
 * slot an eviction reused (the new flow is the most recently seen). */
static void note_births(struct worker *k, uint64_t key, uint64_t ts)
{
	struct engine *e = &k->eng;

	if (e->nflows > k->nborn) {
		if (e->nflows > k->born_cap) {
			uint32_t nc = k->born_cap ? k->born_cap * 2 : 1024;
			uint64_t *nb, *nt;

			while (nc < e->nflows)
				nc *= 2;
			if (!(nb = realloc(k->born, nc * sizeof *nb)))
				abort();
			k->born = nb;
			if (!(nt = realloc(k->born_ts, nc * sizeof *nt)))
				abort();
			k->born_ts = nt;
			k->born_cap = nc;
		}
		for (; k->nborn < e->nflows; k->nborn++) {
			k->born[k->nborn] = key;
			k->born_ts[k->nborn] = ts;
		}
	}
	if (e->t.evicted != k->evicted) {
		k->evicted = e->t.evicted;
		if (e->lru_head) {
			k->born[e->lru_head - 1] = key;
			k->born_ts[e->lru_head - 1] = ts;
		}
	}
}

static void analyse(struct worker *k, int linktype, const uint8_t *data, uint32_t caplen, uint32_t len,
		    uint64_t ts, uint64_t key)
{
	struct roce_pkt p;

	roce_decode(&p, k->w->rcfg, linktype, data, caplen, len);
	engine_packet(&k->eng, &p, ts, caplen, len);
	note_births(k, key, ts);
	k->frames++;
}

struct workers *workers_new(unsigned n, const struct engine_cfg *ecfg, const struct roce_cfg *rcfg,
			    uint64_t count)
{
	struct workers *w;
	struct engine_cfg ec = *ecfg;
	uint64_t mem;

	if (n < 2 || n > WORKERS_MAX || !(w = calloc(1, sizeof *w)))
		return NULL;
	w->n = n;
	w->rcfg = rcfg;
	pthread_mutex_init(&w->done_mu, NULL);
	pthread_cond_init(&w->done_cv, NULL);
	w->count = count;
	/* --rtt-memory is the whole run's: each thread gets its share */
	mem = ecfg->rtt_mem ? ecfg->rtt_mem : ROCE_RTT_MEM_DEFAULT;
	ec.diag.cnp_times = n > 1;    /* CNP pacing across the parts (diag.h) */
	for (unsigned i = 0; i < n; i++) {
		struct worker *k = &w->wk[i];

		ec.rtt_mem = mem / n + (i ? 0 : mem % n);

		k->w = w;
		pthread_mutex_init(&k->hold, NULL);
		pthread_mutex_init(&k->q.mu, NULL);
		pthread_cond_init(&k->q.data, NULL);
		pthread_cond_init(&k->q.space, NULL);
		if (engine_init(&k->eng, &ec)) {
			workers_free(w);
			return NULL;
		}
	}
	return w;
}

void workers_files(struct workers *w, const char *const *names, unsigned n)
{
	w->files = 1;
	for (unsigned i = 0; i < w->n; i++) {
		w->wk[i].eng.file_names = names;
		w->wk[i].eng.nfile_names = n;
	}
}

/* ---- replay: rings --------------------------------------------------------------------- */

static void ring_publish(struct ring *q)
{
	pthread_mutex_lock(&q->mu);
	q->tail = q->ptail;
	q->head_seen = q->head;
	pthread_cond_signal(&q->data);
	pthread_mutex_unlock(&q->mu);
	q->unpublished = 0;
}

/* Waits until need more bytes fit behind ptail. */
static void ring_room(struct ring *q, size_t need)
{
	if (q->ptail + need - q->head_seen <= RING_BYTES)
		return;
	pthread_mutex_lock(&q->mu);
	q->tail = q->ptail;
	pthread_cond_signal(&q->data);
	while (q->ptail + need - q->head > RING_BYTES)
		pthread_cond_wait(&q->space, &q->mu);
	q->head_seen = q->head;
	pthread_mutex_unlock(&q->mu);
	q->unpublished = 0;
}

/* The one per-frame copy left on a replay: the main thread reads each
 * frame because something needs them all in file order (snapshots, the
 * listing, a BPF filter, -w, --speed, --time mirror, --prometheus,
 * --device, the TUI, -r A -r B, a gzip stream: main.c), then hands it to the worker of its key through that worker's
 * ring.  A plain batch replay takes workers_direct() instead: no copy. */
void workers_push(struct workers *w, const struct source_frame *f)
{
	struct worker *k = &w->wk[roce_flow_key(f->linktype, f->data, f->caplen) % w->n];
	struct ring *q = &k->q;
	size_t size = sizeof(struct rec) + ((f->caplen + 7u) & ~7u), pos = q->ptail % RING_BYTES;
	struct rec *r;

	if (pos + size > RING_BYTES) {
		/* no record straddles the end: a marker (when it fits) and a jump */
		ring_room(q, RING_BYTES - pos + size);
		if (RING_BYTES - pos >= sizeof *r)
			((struct rec *)(q->buf + pos))->size = 0;
		q->ptail += RING_BYTES - pos;
		pos = 0;
	} else {
		ring_room(q, size);
	}
	r = (struct rec *)(q->buf + pos);
	/* -r A -r B: numbers repeat across the files; the frame's place in the
	 * merged timeline orders the flows and names frames, as one thread's
	 * engine counts them */
	w->pushed++;
	*r = (struct rec){ f->ts_ns, w->files ? w->pushed : f->no, f->caplen, f->len, f->linktype,
			   (uint32_t)size, f->iface };
	memcpy(r + 1, f->data, f->caplen);
	q->ptail += size;
	if (++q->unpublished >= PUBLISH_EVERY)
		ring_publish(q);
}

/* Counts the records in [chead, end), handing room back every few. */
static void ring_consume(struct worker *k, size_t end)
{
	struct ring *q = &k->q;
	unsigned n = 0;

	while (q->chead != end) {
		size_t pos = q->chead % RING_BYTES;
		const struct rec *r = (const struct rec *)(q->buf + pos);

		if (RING_BYTES - pos < sizeof *r || !r->size) {
			q->chead += RING_BYTES - pos;
			continue;
		}
		k->eng.frame_next = r->no;   /* the diagnosis names frames by their number in the file */
		k->eng.cur_file = r->file;
		analyse(k, r->linktype, (const uint8_t *)(r + 1), r->caplen, r->len, r->ts_ns, r->no);
		q->chead += r->size;
		if (++n % 1024 == 0 && q->chead != end) {
			pthread_mutex_lock(&q->mu);
			q->head = q->chead;
			pthread_cond_broadcast(&q->space);
			pthread_mutex_unlock(&q->mu);
		}
	}
	pthread_mutex_lock(&q->mu);
	q->head = q->chead;
	pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->mu);
}

static void *replay_thread(void *arg)
{
	struct worker *k = arg;
	struct ring *q = &k->q;

	for (;;) {
		size_t end;
		int done;

		pthread_mutex_lock(&q->mu);
		while (q->tail == q->chead && !q->done)
			pthread_cond_wait(&q->data, &q->mu);
		end = q->tail;
		done = q->done;
		pthread_mutex_unlock(&q->mu);
		if (end == q->chead && done)
			return NULL;
		ring_consume(k, end);
	}
}

/* Every record handed over is counted. */
static void ring_drain(struct ring *q)
{
	ring_publish(q);
	pthread_mutex_lock(&q->mu);
	while (q->head != q->tail)
		pthread_cond_wait(&q->space, &q->mu);
	q->head_seen = q->head;
	pthread_mutex_unlock(&q->mu);
}

/* ---- live: fanout groups ----------------------------------------------------------------- */

/* source_batch()'s callback: one frame into the thread's engine, where it
 * lies in the ring; nonzero when -c is reached. */
static int live_frame(void *ctx, struct source_frame *fr)
{
	struct worker *k = ctx;
	struct workers *w = k->w;
	uint64_t nth = w->count ? atomic_fetch_add(&w->taken, 1) + 1 : 0;

	if (w->count && nth > w->count) {
		atomic_store(&w->stop, 1);
		return 1;
	}
	analyse(k, fr->linktype, fr->data, fr->caplen, fr->len, fr->ts_ns, fr->ts_ns);
	/* the -c'th frame ends the capture (not the frame after it, which
	 * may never come: threads.sh's live replay waited a minute) */
	if (nth == w->count && nth) {
		atomic_store(&w->stop, 1);
		return 1;
	}
	return 0;
}

static void *live_thread(void *arg)
{
	struct worker *k = arg;
	struct workers *w = k->w;

	while (!atomic_load(&w->stop)) {
		int c;

		pthread_mutex_lock(&k->hold);
		c = source_batch(k->src, LIVE_BATCH, live_frame, k);
		pthread_mutex_unlock(&k->hold);
		/* the lock is not fair: step aside while a snapshot takes the engines */
		while (atomic_load(&w->want) && !atomic_load(&w->stop))
			sched_yield();
		if (c == SOURCE_ERR) {
			pthread_mutex_lock(&w->wk[0].hold);
			if (!w->err[0])
				snprintf(w->err, sizeof w->err, "%s", source_error(k->src));
			pthread_mutex_unlock(&w->wk[0].hold);
			atomic_store(&w->stop, 1);
		} else if (c == SOURCE_NONE) {
			source_wait(k->src, LIVE_WAIT_MS);
		}
	}
	atomic_store(&w->done, 1);
	return NULL;
}

int workers_add_live(struct workers *w, struct source *src, const struct source_cfg *cfg, char *err,
		     size_t errcap)
{
	struct source_cfg c = *cfg;
	struct roce_bpf_insn prog[256];
	int plen = roce_fanout_cbpf(prog, 256);
	enum source_err what;

	if (plen < 0) {
		snprintf(err, errcap, "fanout: program too long");
		return -1;
	}

	c.count = 0;                  /* -c counts over all threads */
	c.timeout_ms = 0;             /* a thread waits outside its engine's lock */
	w->live = 1;
	w->wk[0].src = src;
	source_set_timeout(src, 0);
	for (unsigned k = 1; k < w->n; k++) {
		if (!(w->wk[k].src = source_open(&c, &what, err, errcap)))
			return -1;
		w->wk[k].own_src = 1;
	}
	for (unsigned i = 0; i < source_count(src); i++) {
		unsigned group = 0;

		for (unsigned k = 0; k < w->n; k++)
			if (source_fanout(w->wk[k].src, i, &group, prog, (unsigned)plen, err, errcap) < 0)
				return -1;
	}
	/* frames that came in before every socket joined reached every socket:
	 * let the ring blocks holding them be handed over, then drop them */
	usleep(3 * SOURCE_BLOCK_MS * 1000);
	for (unsigned k = 0; k < w->n; k++) {
		struct source_frame fr;

		while (source_next(w->wk[k].src, &fr) == SOURCE_FRAME)
			;
		source_stats_restart(w->wk[k].src);
	}
	return 0;
}

/* Interface i of every thread's source: the kernel's counts summed, the
 * interface's own (one device) taken once. */
void workers_stats(struct workers *w, unsigned i, struct source_stats *st)
{
	source_stats(w->wk[0].src, i, st);
	for (unsigned k = 1; k < w->n; k++) {
		struct source_stats one;

		source_stats(w->wk[k].src, i, &one);
		st->recv += one.recv;
		st->drop += one.drop;
		st->freeze += one.freeze;
		st->ring_bytes += one.ring_bytes;
		st->ring_frames += one.ring_frames;
	}
}

/* ---- replay: each worker reads the file ------------------------------------------------------------- */

/* Each worker reads the file through its own clone of one reader and
 * analyses the records of its key: no frame is handed over or copied, and
 * the file's chunks are read once for all (pcapfile_clone()); the key of
 * each record is computed once, by whoever read its chunk (the shard index:
 * pcapfile.c), so a worker passes over the others' records without loading
 * them.  (Before, every worker walked every record and computed its key:
 * on 1,000,000 frames over 512 connections --threads 2 was 1.19x slower
 * than one thread.)  A hand-off through a ring cost a copy of the frame and
 * its cache misses on the other core. */
static void direct_error(struct worker *k, uint64_t no)
{
	struct workers *w = k->w;

	pthread_mutex_lock(&w->wk[0].hold);
	if (!w->err[0]) {
		snprintf(w->err, sizeof w->err, "%s", pcapfile_error(k->rd));
		w->err_no = no;
	}
	pthread_mutex_unlock(&w->wk[0].hold);
}

/* Without -c: the worker's own records only (pcapfile_next_own(): through
 * the shard index, the others' records are not even looked at). */
static void direct_own(struct worker *k)
{
	struct workers *w = k->w;
	unsigned me = (unsigned)(k - w->wk), n = w->n, i = 0;
	struct pcap_pkthdr h;
	const uint8_t *d;
	uint64_t no;
	int rc;

	while ((rc = pcapfile_next_own(k->rd, me, n, &h, &d, &no)) == 1) {
		if (!(++i % DIRECT_CHECK)) {
			if (atomic_load_explicit(&w->stop, memory_order_relaxed))
				break;
			atomic_store_explicit(&k->rd_pos, pcapfile_offset(k->rd), memory_order_relaxed);
		}
		k->eng.frame_next = no;   /* the diagnosis names frames by their number */
		analyse(k, pcapfile_frame_datalink(k->rd), d, h.caplen, h.len, pcapfile_ts_ns(&h), no);
	}
	k->rd_no = pcapfile_frames(k->rd);
	k->rd_ts = pcapfile_last_ts(k->rd);
	if (rc < 0)
		direct_error(k, k->rd_no);
}

static void *direct_thread(void *arg)
{
	struct worker *k = arg;
	struct workers *w = k->w;
	unsigned me = (unsigned)(k - w->wk), n = w->n;
	struct pcap_pkthdr h;
	const uint8_t *d;
	uint64_t no = 0, ts = 0;

	if (!w->count) {
		direct_own(k);
		goto done;
	}
	/* -c: every record is read (the count and the last one's time are the file's) */
	for (;;) {
		int rc, lt;

		if (!(no % DIRECT_CHECK)) {
			if (atomic_load_explicit(&w->stop, memory_order_relaxed))
				break;
			atomic_store_explicit(&k->rd_pos, pcapfile_offset(k->rd), memory_order_relaxed);
		}
		if (w->count && no >= w->count)
			break;
		rc = pcapfile_next(k->rd, &h, &d);
		if (rc == 0)
			break;
		if (rc < 0) {
			direct_error(k, no);
			break;
		}
		no++;
		ts = pcapfile_ts_ns(&h);
		lt = pcapfile_frame_datalink(k->rd);
		if (roce_flow_key(lt, d, h.caplen) % n == me) {
			k->eng.frame_next = no;   /* the diagnosis names frames by their number */
			analyse(k, lt, d, h.caplen, h.len, ts, no);
		}
	}
	k->rd_no = no;
	k->rd_ts = ts;
done:
	atomic_store(&k->rd_pos, pcapfile_offset(k->rd));
	if (atomic_fetch_add(&w->ndone, 1) + 1 == n) {
		pthread_mutex_lock(&w->done_mu);
		atomic_store(&w->done, 1);
		pthread_cond_broadcast(&w->done_cv);
		pthread_mutex_unlock(&w->done_mu);
	}
	return NULL;
}

int workers_direct(struct workers *w, struct pcapfile *pf)
{
	w->wk[0].rd = pf;
	/* the records indexed by shard as they are read (the clones share it) */
	if (!w->count)
		pcapfile_shard(pf, w->n);
	for (unsigned k = 1; k < w->n; k++) {
		if (!(w->wk[k].rd = pcapfile_clone(pf))) {
			while (--k)
				pcapfile_close(w->wk[k].rd);
			w->wk[0].rd = NULL;
			return -1;
		}
		w->wk[k].own_rd = 1;
	}
	w->direct = 1;
	return 0;
}

int workers_wait(struct workers *w, int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	pthread_mutex_lock(&w->done_mu);
	while (!atomic_load(&w->done) && pthread_cond_timedwait(&w->done_cv, &w->done_mu, &t) == 0)
		;
	pthread_mutex_unlock(&w->done_mu);
	return atomic_load(&w->done);
}

int workers_is_direct(const struct workers *w)
{
	return w->direct;
}

uint64_t workers_read(const struct workers *w, uint64_t *last_ts, uint64_t *bytes)
{
	if (last_ts)
		*last_ts = w->wk[0].rd_ts;
	if (bytes)
		*bytes = atomic_load_explicit(&w->wk[0].rd_pos, memory_order_relaxed);
	return w->err[0] ? w->err_no : w->wk[0].rd_no;
}

/* ---- both --------------------------------------------------------------------------------------- */

int workers_start(struct workers *w, char *err, size_t errcap)
{
	for (unsigned k = 0; k < w->n; k++) {
		struct worker *wk = &w->wk[k];
		int rc;

		if (!w->live && !w->direct && !wk->q.buf && !(wk->q.buf = malloc(RING_BYTES))) {
			snprintf(err, errcap, "out of memory");
			return -1;
		}
		rc = pthread_create(&wk->th, NULL, w->live ? live_thread : w->direct ? direct_thread : replay_thread, wk);
		if (rc) {
			snprintf(err, errcap, "cannot start a thread: %s", strerror(rc));
			return -1;
		}
		wk->started = 1;
	}
	return 0;
}

const struct engine *workers_view(struct workers *w)
{
	struct engmerge_part pp[WORKERS_MAX];

	atomic_store(&w->want, 1);
	for (unsigned k = 0; k < w->n; k++) {
		if (w->live)
			pthread_mutex_lock(&w->wk[k].hold);
		else if (w->wk[k].started && !w->direct)
			ring_drain(&w->wk[k].q);
		pp[k] = (struct engmerge_part){ &w->wk[k].eng, w->wk[k].born, w->wk[k].born_ts };
	}
	atomic_store(&w->want, 0);
	if (engmerge(&w->m, pp, w->n) < 0) {
		workers_release(w);
		return NULL;
	}
	return &w->m.v;
}

void workers_release(struct workers *w)
{
	if (w->live)
		for (unsigned k = 0; k < w->n; k++)
			pthread_mutex_unlock(&w->wk[k].hold);
}

int workers_done(const struct workers *w)
{
	return atomic_load(&w->done);
}

const char *workers_error(const struct workers *w)
{
	return w->err[0] ? w->err : NULL;
}

uint64_t workers_frames(const struct workers *w, uint64_t *per)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < w->n; k++) {
		n += w->wk[k].frames;
		if (per)
			per[k] = w->wk[k].frames;
	}
	return n;
}

unsigned workers_count(const struct workers *w)
{
	return w->n;
}

void workers_stop(struct workers *w)
{
	atomic_store(&w->stop, 1);
	for (unsigned k = 0; k < w->n; k++) {
		struct worker *wk = &w->wk[k];

		if (!wk->started)
			continue;
		if (!w->live && !w->direct) {
			ring_publish(&wk->q);
			pthread_mutex_lock(&wk->q.mu);
			wk->q.done = 1;
			pthread_cond_signal(&wk->q.data);
			pthread_mutex_unlock(&wk->q.mu);
		}
		pthread_join(wk->th, NULL);
		wk->started = 0;
	}
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	workers_stop(w);
	engmerge_free(&w->m);
	for (unsigned k = 0; k < w->n; k++) {
		struct worker *wk = &w->wk[k];

		engine_free(&wk->eng);
		free(wk->born);
		free(wk->born_ts);
		free(wk->q.buf);
		if (wk->own_rd)
			pcapfile_close(wk->rd);
		if (wk->own_src)
			source_close(wk->src);
		pthread_mutex_destroy(&wk->hold);
		pthread_mutex_destroy(&wk->q.mu);
		pthread_cond_destroy(&wk->q.data);
		pthread_cond_destroy(&wk->q.space);
	}
	pthread_mutex_destroy(&w->done_mu);
	pthread_cond_destroy(&w->done_cv);
	free(w);
}

/* Receive queues of an interface (sysfs), 0 when unknown. */
static unsigned rx_queues(const char *iface)
{
	char path[300];
	DIR *d;
	struct dirent *de;
	unsigned n = 0;

	snprintf(path, sizeof path, "/sys/class/net/%s/queues", iface);
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "rx-", 3);
	closedir(d);
	return n;
}

unsigned workers_default(const struct source_cfg *cfg)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = cpus > 0 ? (unsigned)cpus : 1;

	if (cfg->file || !cfg->nifaces)
		return 1;
	for (unsigned i = 0; i < cfg->nifaces; i++) {
		unsigned q = rx_queues(cfg->ifaces[i]);

		if (vsniff_is_rdma(cfg->ifaces[i]))
			return 1;   /* -i mlx5_0: the verbs sniffer has no fanout */

		if (q && q < n)
			n = q;
	}
	return n > WORKERS_MAX ? WORKERS_MAX : n;
}
