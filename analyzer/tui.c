/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui.c — the interactive view.  One loop: read ready frames for a few
 * milliseconds (cfg->feed), take the keys, sample the flows once per second
 * of capture time (for the sparklines, the PSN timeline and the recent
 * events of the detail view: view-side state, the engine keeps none), and
 * redraw every interval.  Then sleep in the source's poll() on the capture
 * handles, the terminal and the Prometheus sockets together.
 *
 * Time is capture time (source_now): the clock when live, the virtual clock
 * of a paced replay, the last frame of a fast one.
 */
#include <curses.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "tui.h"

#define HIST 120                  /* samples (seconds) of history per tracked flow */
#define TRACK_MAX 1024            /* flows with history */
#define EVENTS 24                 /* recent events per tracked flow */
#define TICK_NS 1000000000ull
#define RATE_WINDOW_NS 2000000000ull
#define FEED_SLICE_NS 20000000ull /* read frames this long between looks at the keyboard */

/* ---- restoring the terminal, whatever happens -------------------------------------------------- */

static volatile sig_atomic_t quit_sig;
static int tty_saved, curses_on;
static struct termios tty_mode;
static char reset_seq[128];
static size_t reset_len;
static struct sigaction old_crash[5];
static const int crash_sigs[5] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void on_quit(int sig)
{
	quit_sig = sig;
}

/* Async-signal-safe: write(2) and tcsetattr(3) only. */
static void on_crash(int sig)
{
	if (curses_on) {
		if (reset_len)
			(void)!write(STDOUT_FILENO, reset_seq, reset_len);
		if (tty_saved)
			tcsetattr(STDIN_FILENO, TCSANOW, &tty_mode);
		curses_on = 0;
	}
	for (int i = 0; i < 5; i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &old_crash[i], NULL);
	raise(sig);
}

static void add_cap(const char *name)
{
	const char *s = tigetstr((char *)name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (reset_len + n < sizeof reset_seq) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

static void curses_end(void)
{
	if (curses_on) {
		endwin();
		curses_on = 0;
	}
}

/* ---- view state -------------------------------------------------------------------------------- */

enum col { C_SRC, C_DST, C_QPN, C_KIND, C_OPS, C_RATE_S, C_RATE_L, C_PKTS, C_RETX, C_OOS, C_NAK, C_RNR,
	   C_CNP, C_ECN, C_RTT, C__N };

static const struct {
	const char *name;    /* header */
	const char *what;    /* for "sort:" and the help */
	int w, right, desc;  /* width (addresses: minimum), right-aligned, sorts descending first */
} cols[C__N] = {
	[C_SRC] = { "SRC", "source address", 15, 0, 0 },
	[C_DST] = { "DST", "destination address", 15, 0, 0 },
	[C_QPN] = { "QPN", "destination QP (iWARP: TCP ports)", 11, 0, 0 },
	[C_KIND] = { "KIND", "transport (RC UC UD XRC RD iWARP)", 5, 0, 0 },
	[C_OPS] = { "OPS", "operations seen: Send Write Read Atomic", 4, 0, 1 },
	[C_RATE_S] = { "RATE 2s", "rate over ~2 s", 10, 1, 1 },
	[C_RATE_L] = { "RATE 40s", "rate over ~40 s", 10, 1, 1 },
	[C_PKTS] = { "PACKETS", "packets", 9, 1, 1 },
	[C_RETX] = { "RETX", "retransmissions (iWARP: TCP)", 6, 1, 1 },
	[C_OOS] = { "OOS", "out_of_sequence requests", 6, 1, 1 },
	[C_NAK] = { "NAK", "NAKs other than RNR", 5, 1, 1 },
	[C_RNR] = { "RNR", "RNR NAKs", 5, 1, 1 },
	[C_CNP] = { "CNP", "CNPs slowing the sender", 5, 1, 1 },
	[C_ECN] = { "ECN", "ECN CE marked packets", 6, 1, 1 },
	[C_RTT] = { "RTT p50", "median request->ACK RTT, us", 8, 1, 1 },
};

enum { EV_RETX, EV_NAK, EV_RNR, EV_GAP, EV_DUP, EV_OOSR, EV_CNP, EV_ECN, EV_ICRC, EV_IMPLIED, EV_TIMEOUT,
       EV_TCP_RETX, EV_CRC, EV__N };
static const char *const ev_names[EV__N] = {
	"retransmissions", "nak_seq_err", "rnr_nak", "psn_gaps", "duplicate_request", "out_of_seq_request",
	"cnp", "ecn_ce", "icrc_bad", "implied_nak", "timeout episodes", "tcp retransmissions", "mpa crc_bad",
};

struct sample {
	float bytes;                  /* in this second */
	uint16_t retx;
	uint16_t marks;               /* 1 << EV_* seen in this second */
	uint32_t psn;                 /* highest request PSN + 1 at its end */
};

struct event {
	uint64_t ts;
	uint32_t n;
	uint8_t what;
};

struct track {
	uint32_t idx1, src, dst, qpn; /* flow index + 1 (0 = free) and its key */
	uint8_t kind;
	uint64_t used;                /* tick of the last sample */
	uint64_t bytes;
	uint32_t c[EV__N];            /* counters at the last sample */
	uint16_t head, n;
	struct sample h[HIST];
	uint8_t ehead, en;
	struct event ev[EVENTS];
};

struct rate_sample {
	uint64_t t, frames, bytes;
};

struct row {
	uint32_t i;
	double key;
};

struct view {
	const struct tui_cfg *cfg;
	struct engine *e;
	struct source *src;
	int utf8, color;
	/* table */
	struct row *rows;
	uint32_t nrows, rows_cap;
	int sort, rev;
	uint32_t top, cur;            /* first row shown, cursor */
	uint32_t sel_idx1, sel_src, sel_dst, sel_qpn; /* the cursor's flow, to follow it */
	char filter[64];
	uint8_t *host_match;
	uint32_t host_match_cap;
	/* modes */
	int mode;                     /* 0 table, 1 detail, 2 help, 3 filter prompt */
	int prev_mode;
	char prompt[64];
	int detail_off;
	uint32_t det_idx1, det_src, det_dst, det_qpn;
	int paused, ended, failed;
	char errmsg[512];
	/* history */
	struct track *tr;
	uint32_t ntr;
	uint64_t next_tick, tick;
	struct rate_sample rs[64];
	unsigned rs_head, rs_n;
	uint64_t last_rs_wall;
	char msg[128];                /* one-shot status line */
	uint64_t msg_until;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

enum { P_TITLE = 1, P_WARN, P_BAD, P_GOOD, P_INFO, P_ICRC, P_DIM };

static attr_t pair_attr(const struct view *v, int pair)
{
	if (!v->color)
		return pair == P_BAD || pair == P_ICRC ? A_BOLD : A_NORMAL;
	return COLOR_PAIR(pair) | (pair == P_BAD || pair == P_TITLE ? A_BOLD : 0);
}

static void flash_msg(struct view *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void flash_msg(struct view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof v->msg, fmt, ap);
	va_end(ap);
	v->msg_until = mono_ns() + 3000000000ull;
}

/* ---- flow values ------------------------------------------------------------------------------- */

static const struct roce_seq_anom zero_anom;

static const struct roce_seq_anom *anom(const struct flow *f)
{
	return f->kind != FK_IWARP && f->u.seq.x ? f->u.seq.x : &zero_anom;
}

static uint32_t flow_retx(const struct flow *f)
{
	return f->kind == FK_IWARP ? f->u.iw.tcp_retrans : anom(f)->retransmissions;
}

static uint32_t flow_naks(const struct flow *f)
{
	const struct roce_seq_anom *x = anom(f);

	return x->nak_seq_err + x->nak_invalid_request + x->nak_remote_access + x->nak_remote_op + x->nak_other;
}

static int flow_ops(const struct flow *f, char out[5])
{
	static const char l[OP__COUNT] = { 'S', 'W', 'R', 'A' };
	int m = 0;

	for (int i = 0; i < OP__COUNT; i++) {
		out[i] = f->msgs[i] ? l[i] : '-';
		m |= f->msgs[i] ? 1 << i : 0;
	}
	out[4] = 0;
	return m;
}

static uint32_t flow_rtt50(const struct engine *e, const struct flow *f)
{
	return flow_rtt_q_us(e, f, ROCE_RTT_ACK, 0.5);
}

/* The counters the events and sparklines follow. */
static void counters(const struct flow *f, uint32_t c[EV__N])
{
	const struct roce_seq_anom *x = anom(f);

	memset(c, 0, EV__N * sizeof c[0]);
	if (f->kind == FK_IWARP) {
		c[EV_TCP_RETX] = f->u.iw.tcp_retrans;
		c[EV_CRC] = f->u.iw.crc_bad;
		return;
	}
	c[EV_RETX] = x->retransmissions;
	c[EV_NAK] = x->nak_seq_err;
	c[EV_RNR] = x->rnr_nak;
	c[EV_GAP] = x->psn_gaps;
	c[EV_DUP] = x->duplicate_request;
	c[EV_OOSR] = x->out_of_seq_request;
	c[EV_CNP] = f->u.seq.cnp;
	c[EV_ECN] = f->u.seq.ecn_ce;
	c[EV_ICRC] = f->u.seq.icrc_bad;
	c[EV_IMPLIED] = x->implied_nak;
	c[EV_TIMEOUT] = x->episodes[ROCE_SEQ_TRIG_TIMEOUT];
}

/* Three significant digits: "6.71 Mb/s", "428 kb/s" (at most 9 characters). */
static const char *rate_str(double bps, char *buf, size_t cap)
{
	static const char *const u[] = { "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s" };
	int i = 0;

	while (bps >= 999.5 && i < 4) {
		bps /= 1000;
		i++;
	}
	snprintf(buf, cap, !i || bps >= 99.95 ? "%.0f %s" : bps >= 9.995 ? "%.1f %s" : "%.2f %s", bps, u[i]);
	return buf;
}

static void qpn_str(const struct flow *f, char *buf, size_t cap)
{
	if (f->kind == FK_IWARP)
		snprintf(buf, cap, "%u>%u", f->qpn >> 16, f->qpn & 0xffff);
	else
		snprintf(buf, cap, "0x%06" PRIx32, f->qpn);
}

/* ---- history ----------------------------------------------------------------------------------- */

static int track_is(const struct track *t, const struct flow *f, uint32_t idx1)
{
	return t->idx1 == idx1 && t->src == f->src && t->dst == f->dst && t->qpn == f->qpn && t->kind == f->kind;
}

static struct track *track_find(struct view *v, uint32_t idx1)
{
	const struct flow *f = engine_flow(v->e, idx1);

	if (!f || idx1 > v->e->nflows)
		return NULL;
	for (uint32_t i = 0; i < v->ntr; i++)
		if (track_is(&v->tr[i], f, idx1))
			return &v->tr[i];
	return NULL;
}

/* tick_ts: the end of the second being sampled (0: not sampling).  A flow
 * that started within that second has all its counts in it. */
static struct track *track_get(struct view *v, uint32_t idx1, uint64_t tick_ts)
{
	const struct flow *f = &v->e->flows[idx1 - 1];
	struct track *t = track_find(v, idx1), *old = NULL;

	if (t)
		return t;
	if (v->ntr < TRACK_MAX) {
		t = &v->tr[v->ntr++];
	} else {
		/* the least recently sampled one goes */
		for (uint32_t i = 0; i < v->ntr; i++)
			if (!old || v->tr[i].used < old->used)
				old = &v->tr[i];
		t = old;
	}
	memset(t, 0, sizeof *t);
	t->idx1 = idx1;
	t->src = f->src;
	t->dst = f->dst;
	t->qpn = f->qpn;
	t->kind = f->kind;
	t->used = v->tick;
	if (tick_ts && v->e->t.first_ns + (uint64_t)f->first_ms * 1000000ull + TICK_NS >= tick_ts)
		return t;
	t->bytes = f->bytes;
	counters(f, t->c);
	return t;
}

static void track_event(struct track *t, uint64_t ts, int what, uint32_t n)
{
	t->ev[t->ehead] = (struct event){ ts, n, (uint8_t)what };
	t->ehead = (uint8_t)((t->ehead + 1) % EVENTS);
	if (t->en < EVENTS)
		t->en++;
}

static void track_sample(struct view *v, struct track *t, const struct flow *f, uint64_t ts)
{
	struct sample *s = &t->h[t->head];
	uint32_t c[EV__N];

	counters(f, c);
	memset(s, 0, sizeof *s);
	s->bytes = (float)(f->bytes - t->bytes);
	s->retx = (uint16_t)((c[EV_RETX] + c[EV_TCP_RETX]) - (t->c[EV_RETX] + t->c[EV_TCP_RETX]) > 65535 ? 65535 :
			     (c[EV_RETX] + c[EV_TCP_RETX]) - (t->c[EV_RETX] + t->c[EV_TCP_RETX]));
	s->psn = f->kind == FK_IWARP ? 0 : f->u.seq.next;
	for (int k = 0; k < EV__N; k++)
		if (c[k] > t->c[k]) {
			s->marks |= (uint16_t)(1u << k);
			track_event(t, ts, k, c[k] - t->c[k]);
		}
	memcpy(t->c, c, sizeof c);
	t->bytes = f->bytes;
	t->head = (uint16_t)((t->head + 1) % HIST);
	if (t->n < HIST)
		t->n++;
	t->used = v->tick;
}

/* One tick: every flow when they are few, else the rows on top of the
 * current order and the connection in the detail view. */
static void sample_tick(struct view *v, uint64_t ts)
{
	struct engine *e = v->e;

	v->tick++;
	if (e->nflows <= TRACK_MAX) {
		for (uint32_t i = 0; i < e->nflows; i++)
			track_sample(v, track_get(v, i + 1, ts), &e->flows[i], ts);
		return;
	}
	for (uint32_t r = 0; r < v->nrows && r < TRACK_MAX - 2; r++)
		if (v->rows[r].i < e->nflows)
			track_sample(v, track_get(v, v->rows[r].i + 1, ts), &e->flows[v->rows[r].i], ts);
	if (v->det_idx1 && v->det_idx1 <= e->nflows) {
		const struct flow *f = &e->flows[v->det_idx1 - 1], *p = flow_peer(e, f);
		struct track *t = track_get(v, v->det_idx1, ts);

		if (t->used != v->tick)
			track_sample(v, t, f, ts);
		if (p && (t = track_get(v, f->peer, ts))->used != v->tick)
			track_sample(v, t, p, ts);
	}
}

static void ticks(struct view *v, uint64_t now)
{
	if (!now)
		return;
	if (!v->next_tick || now > v->next_tick + HIST * TICK_NS)
		v->next_tick = (now / TICK_NS + 1) * TICK_NS;  /* start, or after a long silence */
	while (now >= v->next_tick) {
		sample_tick(v, v->next_tick);
		v->next_tick += TICK_NS;
	}
}

/* Capture-wide packet and bit rates over the last ~2 s of capture time. */
static void rate_note(struct view *v, uint64_t now)
{
	uint64_t w = mono_ns();
	struct rate_sample *last = v->rs_n ? &v->rs[(v->rs_head + 63) % 64] : NULL;

	if (last && w - v->last_rs_wall < 50000000ull && now - last->t < RATE_WINDOW_NS / 8)
		return;
	if (last && now == last->t) {
		last->frames = v->e->t.frames;
		last->bytes = v->e->t.bytes;
		return;
	}
	v->last_rs_wall = w;
	v->rs[v->rs_head] = (struct rate_sample){ now, v->e->t.frames, v->e->t.bytes };
	v->rs_head = (v->rs_head + 1) % 64;
	if (v->rs_n < 64)
		v->rs_n++;
}

static void rates_now(const struct view *v, double *pps, double *bps)
{
	const struct rate_sample *a = NULL, *b;

	*pps = *bps = 0;
	if (v->rs_n < 2)
		return;
	b = &v->rs[(v->rs_head + 63) % 64];
	for (unsigned k = 1; k < v->rs_n; k++) {
		const struct rate_sample *s = &v->rs[(v->rs_head + 64 - 1 - k) % 64];

		if (b->t - s->t > RATE_WINDOW_NS && a)
			break;
		a = s;
	}
	if (!a || b->t <= a->t)
		return;
	*pps = (double)(b->frames - a->frames) * 1e9 / (double)(b->t - a->t);
	*bps = (double)(b->bytes - a->bytes) * 8e9 / (double)(b->t - a->t);
}

/* ---- the table's rows -------------------------------------------------------------------------- */

static const struct engine *cmp_e;
static int cmp_col, cmp_rev;

static int host_cmp(uint32_t a, uint32_t b)
{
	return memcmp(cmp_e->hosts[a].addr, cmp_e->hosts[b].addr, 16);
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	const struct flow *fa = &cmp_e->flows[a->i], *fb = &cmp_e->flows[b->i];
	int r = 0;

	switch (cmp_col) {
	case C_SRC:
		r = host_cmp(fa->src, fb->src);
		if (!r)
			r = host_cmp(fa->dst, fb->dst);
		break;
	case C_DST:
		r = host_cmp(fa->dst, fb->dst);
		if (!r)
			r = host_cmp(fa->src, fb->src);
		break;
	default:
		r = a->key < b->key ? -1 : a->key > b->key;
		if (cols[cmp_col].desc)
			r = -r;
		break;
	}
	if (cmp_rev)
		r = -r;
	if (!r)
		r = fa->packets != fb->packets ? (fa->packets < fb->packets ? 1 : -1) : 0;
	if (!r)
		r = a->i < b->i ? -1 : a->i > b->i;
	return r;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* Filter: a case-insensitive substring of an address, the QPN in hex
 * (0x0000d2, d2) or decimal, the kind, or an operation name. */
static int flow_matches(const struct view *v, const struct flow *f)
{
	static const char *const ops[OP__COUNT] = { "send", "write", "read", "atomic" };
	char buf[96];

	if (!v->filter[0])
		return 1;
	if (v->host_match[f->src] || v->host_match[f->dst])
		return 1;
	if (f->kind == FK_IWARP)
		snprintf(buf, sizeof buf, "%u %u iwarp", f->qpn >> 16, f->qpn & 0xffff);
	else
		snprintf(buf, sizeof buf, "0x%06" PRIx32 " %" PRIu32 " %s", f->qpn, f->qpn, flow_kind_name(f->kind));
	lower(buf);
	if (strstr(buf, v->filter))
		return 1;
	for (int i = 0; i < OP__COUNT; i++)
		if (f->msgs[i] && strstr(ops[i], v->filter))
			return 1;
	return 0;
}

static double row_key(const struct view *v, const struct flow *f, uint64_t now)
{
	double r[3];
	char ops[5];

	switch (v->sort) {
	case C_QPN: return f->qpn;
	case C_KIND: return f->kind;
	case C_OPS: return flow_ops(f, ops);
	case C_RATE_S:
	case C_RATE_L:
		flow_rates(v->e, f, now, r);
		return v->sort == C_RATE_S ? r[0] : r[2];
	case C_PKTS: return (double)f->packets;
	case C_RETX: return flow_retx(f);
	case C_OOS: return anom(f)->out_of_sequence;
	case C_NAK: return flow_naks(f);
	case C_RNR: return anom(f)->rnr_nak;
	case C_CNP: return f->kind == FK_IWARP ? 0 : f->u.seq.cnp;
	case C_ECN: return f->kind == FK_IWARP ? 0 : f->u.seq.ecn_ce;
	case C_RTT: return flow_rtt50(cmp_e, f);
	default: return 0;
	}
}

static void build_rows(struct view *v, uint64_t now)
{
	struct engine *e = v->e;
	uint32_t n = 0;

	if (v->rows_cap < e->nflows || !v->rows) {
		uint32_t nc = e->nflows > 1024 ? e->nflows : 1024;
		struct row *nr = realloc(v->rows, nc * sizeof *nr);

		if (!nr)
			return;
		v->rows = nr;
		v->rows_cap = nc;
	}
	if (v->filter[0]) {
		if (v->host_match_cap < e->nhosts) {
			uint8_t *m = realloc(v->host_match, e->nhosts);

			if (!m)
				return;
			v->host_match = m;
			v->host_match_cap = e->nhosts;
		}
		for (uint32_t h = 0; h < e->nhosts; h++) {
			char a[64];

			host_str(e, h, a, sizeof a);
			lower(a);
			v->host_match[h] = strstr(a, v->filter) != NULL;
		}
	}
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];

		if (!flow_matches(v, f))
			continue;
		v->rows[n].i = i;
		v->rows[n].key = row_key(v, f, now);
		n++;
	}
	v->nrows = n;
	cmp_e = e;
	cmp_col = v->sort;
	cmp_rev = v->rev;
	qsort(v->rows, n, sizeof *v->rows, row_cmp);
	/* the cursor follows its flow */
	if (v->sel_idx1) {
		for (uint32_t r = 0; r < n; r++) {
			const struct flow *f = &e->flows[v->rows[r].i];

			if (v->rows[r].i + 1 == v->sel_idx1 && f->src == v->sel_src && f->dst == v->sel_dst &&
			    f->qpn == v->sel_qpn) {
				v->cur = r;
				break;
			}
		}
	}
	if (v->cur >= n)
		v->cur = n ? n - 1 : 0;
}

static void remember_cursor(struct view *v)
{
	const struct flow *f;

	if (v->cur >= v->nrows) {
		v->sel_idx1 = 0;
		return;
	}
	f = &v->e->flows[v->rows[v->cur].i];
	v->sel_idx1 = v->rows[v->cur].i + 1;
	v->sel_src = f->src;
	v->sel_dst = f->dst;
	v->sel_qpn = f->qpn;
}

/* ---- drawing helpers ---------------------------------------------------------------------------- */

static void put(int y, int x, attr_t a, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(int y, int x, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int w = COLS - x;

	if (y < 0 || y >= LINES || w <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	attrset(a);
	mvaddnstr(y, x, buf, w);
	attrset(A_NORMAL);
}

/* A sparkline of n values (oldest first) into buf: UTF-8 blocks or ASCII. */
static void sparkline(const struct view *v, const double *val, int n, char *buf, size_t cap)
{
	static const char *const blocks[9] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
						"\u2587", "\u2588" };
	static const char ascii[] = " _.-:=+*#";
	double max = 0;
	size_t o = 0;

	for (int i = 0; i < n; i++)
		if (val[i] > max)
			max = val[i];
	for (int i = 0; i < n && o + 4 < cap; i++) {
		int k = max > 0 && val[i] > 0 ? 1 + (int)(val[i] / max * 7.999) : 0;

		if (k > 8)
			k = 8;
		if (v->utf8) {
			size_t l = strlen(blocks[k]);

			memcpy(buf + o, blocks[k], l);
			o += l;
		} else {
			buf[o++] = ascii[k];
		}
	}
	buf[o] = 0;
}

/* ---- header -------------------------------------------------------------------------------------- */

struct sums {
	uint64_t requests, retx, nak_seq, nak_other, rnr, cnp, ecn_ce, icrc_bad, dup, oosr;
	uint32_t connections;
};

static void sums_get(const struct engine *e, struct sums *s)
{
	memset(s, 0, sizeof *s);
	s->retx = e->ev.retransmissions;
	s->nak_seq = e->ev.nak_seq_err;
	s->rnr = e->ev.rnr_nak;
	s->cnp = e->ev.cnp;
	s->ecn_ce = e->ev.ecn_ce;
	s->icrc_bad = e->ev.icrc_bad;
	s->dup = e->ev.duplicate_request;
	s->oosr = e->ev.out_of_seq_request;
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		const struct roce_seq_anom *x = anom(f);

		if (f->peer > i + 1)
			s->connections++;
		if (f->kind == FK_IWARP)
			continue;
		s->requests += f->u.seq.requests;
		s->retx += x->retransmissions;
		s->nak_seq += x->nak_seq_err;
		s->nak_other += x->nak_invalid_request + x->nak_remote_access + x->nak_remote_op + x->nak_other;
		s->rnr += x->rnr_nak;
		s->cnp += f->u.seq.cnp;
		s->ecn_ce += f->u.seq.ecn_ce;
		s->icrc_bad += f->u.seq.icrc_bad;
		s->dup += x->duplicate_request;
		s->oosr += x->out_of_seq_request;
	}
}

static int draw_header(struct view *v, uint64_t now)
{
	const struct engine *e = v->e;
	const struct engine_totals *t = &e->t;
	struct sums s;
	double pps, bps;
	char clock[64] = "", st[96] = "", buf[512];
	uint64_t roce = t->roce[1] + t->roce[2] + t->roce[3] + t->roce[4], pfc[8] = { 0 }, pfc_all = 0;
	time_t sec = (time_t)(now / 1000000000ull);
	struct tm tm;
	int x, y = 0;

	sums_get(e, &s);
	rates_now(v, &pps, &bps);
	if (now && localtime_r(&sec, &tm))
		strftime(clock, sizeof clock, "%Y-%m-%d %H:%M:%S %Z", &tm);
	if (source_live(v->src)) {
		snprintf(st, sizeof st, "live %s", source_name(v->src));
	} else {
		double sp = source_speed(v->src);

		if (sp > 0)
			snprintf(st, sizeof st, "replay %s at %gx", source_name(v->src), sp);
		else
			snprintf(st, sizeof st, "replay %s as fast as possible", source_name(v->src));
	}
	put(y, 0, pair_attr(v, P_TITLE), "rocetop %s  %s", v->cfg->version ? v->cfg->version : "", st);
	x = (int)strlen(v->cfg->version ? v->cfg->version : "") + (int)strlen(st) + 11;
	if (v->failed)
		put(y, x, pair_attr(v, P_BAD), "[capture failed]"), x += 17;
	else if (v->ended)
		put(y, x, pair_attr(v, P_GOOD), "[end of capture]"), x += 17;
	if (v->paused)
		put(y, x, pair_attr(v, P_WARN) | A_REVERSE, "[PAUSED]"), x += 9;
	if (v->cfg->prom_addr)
		put(y, x, A_NORMAL, " metrics http://%s/metrics", v->cfg->prom_addr);
	put(y, COLS - (int)strlen(clock) - 1 > x ? COLS - (int)strlen(clock) - 1 : COLS, A_NORMAL, "%s", clock);
	y++;

	put(y, 0, A_NORMAL, "frames %" PRIu64 "  %.1f pkt/s  %.3f Gb/s  flows %" PRIu32 " (%" PRIu64
	    " evicted)  connections %" PRIu32 "  RoCE %" PRIu64 "  iWARP %" PRIu64 "  other %" PRIu64,
	    t->frames, pps, bps / 1e9, e->nflows, t->evicted, s.connections, roce, t->iwarp,
	    t->roce[0] > t->iwarp ? t->roce[0] - t->iwarp : 0);
	y++;

	x = 0;
	snprintf(buf, sizeof buf, "retransmit %.2f%% (%" PRIu64 " of %" PRIu64 " requests)",
		 s.requests ? 100.0 * (double)s.retx / (double)s.requests : 0.0, s.retx, s.requests);
	put(y, x, s.retx ? pair_attr(v, P_WARN) : A_NORMAL, "%s", buf);
	x += (int)strlen(buf) + 2;
	snprintf(buf, sizeof buf, "NAKs %" PRIu64 " (seq %" PRIu64 ", other %" PRIu64 ")  RNR %" PRIu64,
		 s.nak_seq + s.nak_other, s.nak_seq, s.nak_other, s.rnr);
	put(y, x, s.nak_seq + s.nak_other + s.rnr ? pair_attr(v, P_BAD) : A_NORMAL, "%s", buf);
	x += (int)strlen(buf) + 2;
	snprintf(buf, sizeof buf, "CNPs %" PRIu64 "  ECN CE %.2f%% (%" PRIu64 ")", t->cnp,
		 roce ? 100.0 * (double)t->roce_ce / (double)roce : 0.0, t->roce_ce);
	put(y, x, t->cnp + t->roce_ce ? pair_attr(v, P_INFO) : A_NORMAL, "%s", buf);
	x += (int)strlen(buf) + 2;
	put(y, x, t->icrc[ROCE_ICRC_BAD] ? pair_attr(v, P_ICRC) : A_NORMAL, "ICRC bad %" PRIu64,
	    t->icrc[ROCE_ICRC_BAD]);
	y++;

	for (uint32_t i = 0; i < e->nports; i++)
		for (int k = 0; k < 8; k++) {
			pfc[k] += e->ports[i].pfc[k].pauses;
			pfc_all += e->ports[i].pfc[k].pauses;
		}
	{
		int n = snprintf(buf, sizeof buf, "PFC pauses by priority");

		for (int k = 0; k < 8; k++)
			n += snprintf(buf + n, sizeof buf - (size_t)n, " %d:%" PRIu64, k, pfc[k]);
		snprintf(buf + n, sizeof buf - (size_t)n, "  802.3x %" PRIu64 "  QCN CNM %" PRIu64, t->pause_frames,
			 t->cnm);
		put(y, 0, pfc_all || t->pause_frames ? pair_attr(v, P_BAD) : A_NORMAL, "%s", buf);
		x = (int)strlen(buf) + 2;
	}
	if (source_live(v->src)) {
		int n = snprintf(buf, sizeof buf, "drops");
		uint64_t any = 0;

		for (unsigned i = 0; i < source_count(v->src); i++) {
			struct source_stats ss;

			source_stats(v->src, i, &ss);
			if (ss.valid)
				n += snprintf(buf + n, sizeof buf - (size_t)n, " %s %" PRIu64 "/%" PRIu64 " of %" PRIu64,
					      source_iface(v->src, i), ss.drop, ss.ifdrop, ss.recv);
			else
				n += snprintf(buf + n, sizeof buf - (size_t)n, " %s ?", source_iface(v->src, i));
			any |= ss.drop | ss.ifdrop;
		}
		put(y, x, any ? pair_attr(v, P_BAD) | A_REVERSE : A_NORMAL, "%s", buf);
	} else {
		put(y, x, A_NORMAL, "drops: none (file)");
	}
	y++;

	{
		enum fabric_mode fm = engine_fabric_mode(e, NULL, 0);
		int n = snprintf(buf, sizeof buf, "fabric %s   sort %s %s", fabric_mode_name(fm), cols[v->sort].name,
				 (cols[v->sort].desc ^ v->rev) ? "(high first)" : "(low first)");

		if (v->filter[0])
			snprintf(buf + n, sizeof buf - (size_t)n, "   filter \"%s\": %" PRIu32 " of %" PRIu32 " flows",
				 v->filter, v->nrows, e->nflows);
		put(y, 0, A_NORMAL, "%s", buf);
	}
	y++;
	return y;
}

/* ---- the table ------------------------------------------------------------------------------------ */

static int addr_width(void)
{
	int fixed = 0, w;

	for (int c = C_QPN; c < C__N; c++)
		fixed += cols[c].w + 1;
	w = (COLS - fixed - 2) / 2;
	return w < 15 ? 15 : w > 39 ? 39 : w;
}

static int col_width(int c, int aw)
{
	return c == C_SRC || c == C_DST ? aw : cols[c].w;
}

/* Characters (not bytes) of a UTF-8 string. */
static int ulen(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void cell(int y, int *x, int w, int right, attr_t a, const char *s)
{
	char buf[80];
	int len = ulen(s), pad;

	if (len > w) {
		/* keep the end of an address: its distinctive part (ASCII) */
		snprintf(buf, sizeof buf, "~%s", s + strlen(s) - (size_t)w + 1);
		s = buf;
		len = w;
	}
	pad = w - len;
	put(y, *x, a, "%*s%s%*s", right ? pad : 0, "", s, right ? 0 : pad, "");
	*x += w + 1;
}

static void draw_table(struct view *v, int y0, uint64_t now)
{
	const struct engine *e = v->e;
	int aw = addr_width(), x = 0, rows_h = LINES - y0 - 2;

	attrset(A_REVERSE);
	mvhline(y0, 0, ' ', COLS);
	for (int c = 0; c < C__N; c++) {
		char h[32];

		snprintf(h, sizeof h, "%s%s", cols[c].name,
			 c == v->sort ? ((cols[c].desc ^ v->rev) ? (v->utf8 ? "\u25bc" : "v") : (v->utf8 ? "\u25b2" : "^")) : "");
		cell(y0, &x, col_width(c, aw), cols[c].right, A_REVERSE | (c == v->sort ? A_BOLD : 0), h);
	}
	attrset(A_NORMAL);
	if (rows_h < 1)
		return;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (uint32_t)rows_h)
		v->top = v->cur - (uint32_t)rows_h + 1;
	if (v->top + (uint32_t)rows_h > v->nrows)
		v->top = v->nrows > (uint32_t)rows_h ? v->nrows - (uint32_t)rows_h : 0;
	if (!v->nrows)
		put(y0 + 2, 2, A_NORMAL, "%s", v->filter[0] ? "no flow matches the filter (/ to change it)" :
		    "no RoCE or iWARP flow yet");
	for (int r = 0; r < rows_h && v->top + (uint32_t)r < v->nrows; r++) {
		uint32_t ri = v->top + (uint32_t)r;
		const struct flow *f = &e->flows[v->rows[ri].i];
		const struct roce_seq_anom *xa = anom(f);
		int y = y0 + 1 + r, sel = ri == v->cur;
		attr_t base = sel ? A_REVERSE : A_NORMAL;
		char a[64], b[64], q[24], ops[5], r0[24], r2[24], n[16][24];
		double rt[3];
		uint32_t retx = flow_retx(f), naks = flow_naks(f), rtt = flow_rtt50(e, f);
		uint32_t cnp = f->kind == FK_IWARP ? 0 : f->u.seq.cnp, ecn = f->kind == FK_IWARP ? 0 : f->u.seq.ecn_ce;
		int icrc = f->kind == FK_IWARP ? f->u.iw.crc_bad > 0 : f->u.seq.icrc_bad > 0;

		x = 0;
		if (sel) {
			attrset(A_REVERSE);
			mvhline(y, 0, ' ', COLS);
			attrset(A_NORMAL);
		}
		flow_rates(e, f, now, rt);
		host_str(e, f->src, a, sizeof a);
		host_str(e, f->dst, b, sizeof b);
		qpn_str(f, q, sizeof q);
		flow_ops(f, ops);
		cell(y, &x, aw, 0, base, a);
		cell(y, &x, aw, 0, base, b);
		cell(y, &x, cols[C_QPN].w, 0, base, q);
		cell(y, &x, cols[C_KIND].w, 0, icrc ? base | pair_attr(v, P_ICRC) : base, flow_kind_name(f->kind));
		cell(y, &x, cols[C_OPS].w, 0, base, ops);
		cell(y, &x, cols[C_RATE_S].w, 1, base, rate_str(rt[0], r0, sizeof r0));
		cell(y, &x, cols[C_RATE_L].w, 1, base, rate_str(rt[2], r2, sizeof r2));
		snprintf(n[0], sizeof n[0], "%" PRIu64, f->packets);
		cell(y, &x, cols[C_PKTS].w, 1, base, n[0]);
		snprintf(n[1], sizeof n[1], "%" PRIu32, retx);
		cell(y, &x, cols[C_RETX].w, 1, retx ? base | pair_attr(v, P_WARN) : base, n[1]);
		snprintf(n[2], sizeof n[2], "%" PRIu32, xa->out_of_sequence);
		cell(y, &x, cols[C_OOS].w, 1, xa->out_of_sequence ? base | pair_attr(v, P_WARN) : base, n[2]);
		snprintf(n[3], sizeof n[3], "%" PRIu32, naks);
		cell(y, &x, cols[C_NAK].w, 1, naks ? base | pair_attr(v, P_BAD) : base, n[3]);
		snprintf(n[4], sizeof n[4], "%" PRIu32, xa->rnr_nak);
		cell(y, &x, cols[C_RNR].w, 1, xa->rnr_nak ? base | pair_attr(v, P_BAD) : base, n[4]);
		snprintf(n[5], sizeof n[5], "%" PRIu32, cnp);
		cell(y, &x, cols[C_CNP].w, 1, cnp ? base | pair_attr(v, P_INFO) : base, n[5]);
		snprintf(n[6], sizeof n[6], "%" PRIu32, ecn);
		cell(y, &x, cols[C_ECN].w, 1, ecn ? base | pair_attr(v, P_INFO) : base, n[6]);
		if (rtt || (f->kind != FK_IWARP && f->u.seq.rtt.n))
			snprintf(n[7], sizeof n[7], "%" PRIu32, rtt);
		else
			snprintf(n[7], sizeof n[7], "-");
		cell(y, &x, cols[C_RTT].w, 1, base, n[7]);
	}
}

/* ---- the detail view ---------------------------------------------------------------------------- */

struct dlines {
	int n, cap;
	struct dline {
		attr_t a;
		char s[320];
	} *l;
};

static void ln(struct dlines *L, attr_t a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ln(struct dlines *L, attr_t a, const char *fmt, ...)
{
	va_list ap;

	if (L->n == L->cap) {
		int nc = L->cap ? L->cap * 2 : 64;
		struct dline *nl = realloc(L->l, (size_t)nc * sizeof *nl);

		if (!nl)
			return;
		L->l = nl;
		L->cap = nc;
	}
	L->l[L->n].a = a;
	va_start(ap, fmt);
	vsnprintf(L->l[L->n].s, sizeof L->l[0].s, fmt, ap);
	va_end(ap);
	L->n++;
}

/* A row of the two-direction table: label, value A->B, value B->A. */
static void row2(struct dlines *L, attr_t a, const char *label, const char *va, const char *vb)
{
	ln(L, a, "  %-30s %-30s %-30s", label, va, vb ? vb : "");
}

static void counters_rows(struct view *v, struct dlines *L, const struct flow *f, const struct flow *p, uint64_t now)
{
	const struct flow *d[2] = { f, p };
	char va[2][96];
	double r[2][3];

	for (int k = 0; k < 2; k++)
		if (d[k])
			flow_rates(v->e, d[k], now, r[k]);
#define ROW(label, attrexpr, ...) \
	do { \
		attr_t at_ = A_NORMAL; \
		for (int k = 0; k < 2; k++) { \
			const struct flow *F = d[k]; \
			va[k][0] = 0; \
			if (!F) \
				continue; \
			snprintf(va[k], sizeof va[k], __VA_ARGS__); \
			if (attrexpr) \
				at_ = pair_attr(v, P_WARN); \
		} \
		row2(L, at_, label, va[0], p ? va[1] : "-"); \
	} while (0)

	ROW("packets", 0, "%" PRIu64, F->packets);
	ROW("bytes", 0, "%" PRIu64, F->bytes);
	{
		char x1[24], x2[24], x3[24];

		for (int k = 0; k < 2; k++)
			if (d[k])
				snprintf(va[k], sizeof va[k], "%s %s %s", rate_str(r[k][0], x1, sizeof x1),
					 rate_str(r[k][1], x2, sizeof x2), rate_str(r[k][2], x3, sizeof x3));
		row2(L, A_NORMAL, "rate 2s 10s 40s", va[0], p ? va[1] : "-");
	}
	ROW("messages S/W/R/A", 0, "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32, F->msgs[OP_SEND],
	    F->msgs[OP_WRITE], F->msgs[OP_READ], F->msgs[OP_ATOMIC]);
	ROW("message bytes, largest", 0, "%" PRIu64 ", %" PRIu32, F->msg_bytes, F->msg_max);
	if (f->kind == FK_IWARP) {
		ROW("segments, FPDUs", 0, "%" PRIu32 ", %" PRIu32, F->u.iw.segments, F->u.iw.fpdus);
		ROW("MPA CRC good/bad/unchecked", F->u.iw.crc_bad, "%" PRIu32 "/%" PRIu32 "/%" PRIu32,
		    F->u.iw.crc_good, F->u.iw.crc_bad, F->u.iw.crc_unchecked);
		ROW("TCP retransmissions", F->u.iw.tcp_retrans, "%" PRIu32, F->u.iw.tcp_retrans);
		ROW("TCP gaps", F->u.iw.tcp_gaps, "%" PRIu32, F->u.iw.tcp_gaps);
		ROW("terminates", F->u.iw.terminates, "%" PRIu32, F->u.iw.terminates);
		ROW("MPA", 0, "%s rev %u markers %s CRC %s",
		    F->u.iw.mpa_req ? "request" : F->u.iw.mpa_rep ? "reply" : "not seen", F->u.iw.mpa_rev,
		    F->u.iw.mpa_flags & ROCE_MPA_FLAG_M ? "on" : "off", F->u.iw.mpa_flags & ROCE_MPA_FLAG_C ? "on" : "off");
		return;
	}
	ROW("requests, responses", 0, "%" PRIu32 ", %" PRIu32, F->u.seq.requests, F->u.seq.responses);
	ROW("acks (requests per ACK)", 0, "%" PRIu32 " (%.2f)", F->u.seq.acks,
	    F->u.seq.acks ? (double)F->u.seq.requests / F->u.seq.acks : 0.0);
	ROW("duplicate_request", anom(F)->duplicate_request, "%" PRIu32, anom(F)->duplicate_request);
	ROW("out_of_sequence", anom(F)->out_of_sequence, "%" PRIu32, anom(F)->out_of_sequence);
	ROW("out_of_seq_request", anom(F)->out_of_seq_request, "%" PRIu32, anom(F)->out_of_seq_request);
	ROW("retransmissions", anom(F)->retransmissions, "%" PRIu32, anom(F)->retransmissions);
	ROW("episodes nak/impl/rnr/tmo/oth", 0, "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32,
	    anom(F)->episodes[0], anom(F)->episodes[1], anom(F)->episodes[2], anom(F)->episodes[3],
	    anom(F)->episodes[4]);
	ROW("out_of_order", 0, "%" PRIu32, anom(F)->out_of_order);
	ROW("psn_gaps, missing_psns", anom(F)->psn_gaps, "%" PRIu32 ", %" PRIu32, anom(F)->psn_gaps,
	    roce_seq_missing(&F->u.seq));
	ROW("nak_seq_err", anom(F)->nak_seq_err, "%" PRIu32, anom(F)->nak_seq_err);
	ROW("nak inv/access/op/other", flow_naks(F) - anom(F)->nak_seq_err,
	    "%u/%u/%u/%u", anom(F)->nak_invalid_request, anom(F)->nak_remote_access, anom(F)->nak_remote_op,
	    anom(F)->nak_other);
	ROW("rnr_nak", anom(F)->rnr_nak, "%" PRIu32, anom(F)->rnr_nak);
	ROW("implied_nak, dup_acks", 0, "%" PRIu32 ", %" PRIu32, anom(F)->implied_nak, anom(F)->dup_acks);
	ROW("cnp, ecn_ce", 0, "%" PRIu32 ", %" PRIu32, F->u.seq.cnp, F->u.seq.ecn_ce);
	ROW("icrc_bad", F->u.seq.icrc_bad, "%" PRIu32, F->u.seq.icrc_bad);
	ROW("RTT us min/p50/p99/max", 0, "%" PRIu64 "/%" PRIu32 "/%" PRIu32 "/%" PRIu64 " n=%" PRIu32,
	    F->u.seq.rtt.n ? (F->u.seq.rtt.min_ns + 500) / 1000 : 0, flow_rtt_q_us(v->e, F, ROCE_RTT_ACK, 0.5),
	    flow_rtt_q_us(v->e, F, ROCE_RTT_ACK, 0.99), F->u.seq.rtt.n ? (F->u.seq.rtt.max_ns + 500) / 1000 : 0,
	    F->u.seq.rtt.n);
	if (f->u.seq.read_rtt.n || (p && p->u.seq.read_rtt.n))
		ROW("READ RTT us p50/p99", 0, "%" PRIu32 "/%" PRIu32 " n=%" PRIu32,
		    flow_rtt_q_us(v->e, F, ROCE_RTT_READ, 0.5), flow_rtt_q_us(v->e, F, ROCE_RTT_READ, 0.99),
		    F->u.seq.read_rtt.n);
	ROW("path MTU", 0, "%" PRIu32 " (%s)", roce_seq_pmtu(&F->u.seq),
	    roce_seq_pmtu_src_name(roce_seq_pmtu_source(&F->u.seq)));
	ROW("retransmission scheme", 0, "%s", roce_seq_scheme_name(roce_seq_scheme(&F->u.seq)));
#undef ROW
}

static void psn_state(struct view *v, struct dlines *L, const char *dir, const struct flow *f)
{
	const struct roce_seq_dir *d = &f->u.seq;
	char holes[160] = "";
	int n = 0, nh = 0;

	(void)v;
	if (d->x)
		for (int i = 0; i < ROCE_SEQ_HOLES; i++)
			if (d->x->hole[i]) {
				nh++;
				if (n < (int)sizeof holes - 24)
					n += snprintf(holes + n, sizeof holes - (size_t)n, " 0x%06x+%u", d->x->hole[i] >> 8,
						      d->x->hole[i] & 0xff);
			}
	if (!d->requests) {
		ln(L, A_NORMAL, "  %s: no requests", dir);
		return;
	}
	ln(L, nh ? pair_attr(v, P_WARN) : A_NORMAL,
	   "  %s: last ACKed 0x%06" PRIx32 "  expected 0x%06" PRIx32 "  next 0x%06" PRIx32 "  outstanding %" PRId32
	   "  MSN %" PRIu32 "  holes %d%s", dir, d->last_ack & 0xffffff, d->epsn & 0xffffff, d->next & 0xffffff,
	   roce_psn_diff(d->next, d->last_ack + 1) > 0 ? roce_psn_diff(d->next, d->last_ack + 1) : 0, d->msn, nh,
	   holes);
}

static void timeline(struct view *v, struct dlines *L, const char *dir, const struct flow *f, uint32_t idx1,
		     int width)
{
	struct track *t = track_find(v, idx1);
	double val[HIST];
	char spark[HIST * 4 + 1], tl[HIST + 1];
	int n, start;
	double max = 0;

	if (!t || !t->n) {
		ln(L, A_NORMAL, "  %s: history starts at the next second", dir);
		return;
	}
	(void)f;
	n = t->n < width ? t->n : width;
	start = (t->head + HIST - n) % HIST;
	for (int i = 0; i < n; i++) {
		val[i] = t->h[(start + i) % HIST].bytes * 8.0;
		if (val[i] > max)
			max = val[i];
	}
	sparkline(v, val, n, spark, sizeof spark);
	{
		char mx[24];

		ln(L, A_NORMAL, "  %s rate   |%s| max %s", dir, spark, rate_str(max, mx, sizeof mx));
	}
	max = 0;
	for (int i = 0; i < n; i++) {
		val[i] = t->h[(start + i) % HIST].retx;
		if (val[i] > max)
			max = val[i];
	}
	sparkline(v, val, n, spark, sizeof spark);
	ln(L, max > 0 ? pair_attr(v, P_WARN) : A_NORMAL, "  %s retx   |%s| max %.0f/s", dir, spark, max);
	/* PSN timeline: one character per second */
	for (int i = 0; i < n; i++) {
		const struct sample *s = &t->h[(start + i) % HIST];
		const struct sample *pr = i ? &t->h[(start + i - 1) % HIST] : NULL;
		char c = '.';

		if (s->marks & (1u << EV_NAK | 1u << EV_RNR))
			c = 'N';
		else if (s->marks & (1u << EV_RETX | 1u << EV_TCP_RETX))
			c = 'R';
		else if (s->marks & (1u << EV_GAP))
			c = 'G';
		else if (s->marks & (1u << EV_DUP))
			c = 'D';
		else if (s->marks & (1u << EV_CNP | 1u << EV_ECN))
			c = 'C';
		else if (s->marks & (1u << EV_ICRC | 1u << EV_CRC))
			c = 'X';
		else if (pr ? s->psn != pr->psn : s->bytes > 0)
			c = '>';
		else if (s->bytes > 0)
			c = '-';
		tl[i] = c;
	}
	tl[n] = 0;
	ln(L, strpbrk(tl, "NRGX") ? pair_attr(v, P_WARN) : A_NORMAL, "  %s PSNs   |%s| next 0x%06" PRIx32, dir, tl,
	   f->kind == FK_IWARP ? 0 : f->u.seq.next & 0xffffff);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return x->ts < y->ts ? 1 : x->ts > y->ts ? -1 : 0;
}

static void recent_events(struct view *v, struct dlines *L, uint32_t idx1[2], const char *dirs[2])
{
	struct { struct event e; int dir; } all[2 * EVENTS];
	int n = 0;

	for (int k = 0; k < 2; k++) {
		struct track *t = idx1[k] ? track_find(v, idx1[k]) : NULL;

		if (!t)
			continue;
		for (int i = 0; i < t->en; i++) {
			all[n].e = t->ev[(t->ehead + EVENTS - 1 - i) % EVENTS];
			all[n].dir = k;
			n++;
		}
	}
	/* newest first; the struct starts with the event */
	qsort(all, (size_t)n, sizeof all[0], ev_cmp);
	if (!n)
		ln(L, A_NORMAL, "  (none since the view started watching this connection)");
	for (int i = 0; i < n && i < EVENTS; i++) {
		time_t sec = (time_t)(all[i].e.ts / 1000000000ull);
		struct tm tm;
		char ts[32] = "";

		if (localtime_r(&sec, &tm))
			strftime(ts, sizeof ts, "%H:%M:%S", &tm);
		ln(L, all[i].e.what == EV_NAK || all[i].e.what == EV_RNR || all[i].e.what == EV_ICRC ?
		   pair_attr(v, P_BAD) : pair_attr(v, P_WARN),
		   "  %s  %s  %s +%" PRIu32, ts, dirs[all[i].dir], ev_names[all[i].e.what], all[i].e.n);
	}
}

static void draw_detail(struct view *v, int y0, uint64_t now)
{
	struct engine *e = v->e;
	const struct flow *f = engine_flow(e, v->det_idx1), *p;
	struct dlines L = { 0, 0, NULL };
	char a[64], b[64], qa[24], qb[24], da[160], db[160];
	const char *dirs[2];
	uint32_t ids[2];
	int h = LINES - y0 - 1, width;

	if (!f || v->det_idx1 > e->nflows || f->src != v->det_src || f->dst != v->det_dst || f->qpn != v->det_qpn) {
		put(y0 + 1, 2, pair_attr(v, P_WARN), "This connection is no longer in the table (evicted or cleared). "
		    "Esc: back");
		return;
	}
	p = flow_peer(e, f);
	host_str(e, f->src, a, sizeof a);
	host_str(e, f->dst, b, sizeof b);
	qpn_str(f, qa, sizeof qa);
	if (p)
		qpn_str(p, qb, sizeof qb);
	snprintf(da, sizeof da, "%s -> %s", a, b);
	snprintf(db, sizeof db, "%s -> %s", b, a);
	ln(&L, pair_attr(v, P_TITLE), "Connection %s <-> %s  %s%s%s  paired by %s  upper layer %s", a, b,
	   flow_kind_name(f->kind), f->kind == FK_IWARP ? "" : " ",
	   f->kind == FK_IWARP ? "" : roce_version_name(f->version), p ? flow_pair_name(f->pair_how) : "(none seen)",
	   flow_ulp_name(f) ? flow_ulp_name(f) : "unknown");
	if (f->kind != FK_IWARP && p)
		ln(&L, A_NORMAL, "  scheme of the connection: %s",
		   roce_seq_scheme_name(roce_seq_scheme_join(roce_seq_scheme(&f->u.seq), roce_seq_scheme(&p->u.seq))));
	ln(&L, A_NORMAL, "%s", "");
	ln(&L, A_BOLD, "  %-30s %-30.30s %-30.30s", "", da, p ? db : "(other direction not seen)");
	row2(&L, A_NORMAL, f->kind == FK_IWARP ? "ports" : "DestQP", qa, p ? qb : "-");
	counters_rows(v, &L, f, p, now);
	ln(&L, A_NORMAL, "%s", "");
	if (f->kind != FK_IWARP) {
		ln(&L, A_BOLD, "PSN state (each direction's request PSNs)");
		psn_state(v, &L, "A->B", f);
		if (p)
			psn_state(v, &L, "B->A", p);
		ln(&L, A_NORMAL, "%s", "");
	}
	width = COLS - 40;
	if (width > HIST)
		width = HIST;
	if (width < 10)
		width = 10;
	ln(&L, A_BOLD, "History, one column per second (newest right; PSNs: > progress  R retransmission  N NAK  "
	   "G gap  D duplicate  C CNP/ECN  X bad CRC)");
	timeline(v, &L, "A->B", f, v->det_idx1, width);
	if (p)
		timeline(v, &L, "B->A", p, f->peer, width);
	ln(&L, A_NORMAL, "%s", "");
	ln(&L, A_BOLD, "Recent events (per second; A->B = %s)", da);
	ids[0] = v->det_idx1;
	ids[1] = p ? f->peer : 0;
	dirs[0] = "A->B";
	dirs[1] = "B->A";
	recent_events(v, &L, ids, dirs);

	if (v->detail_off > L.n - h)
		v->detail_off = L.n - h > 0 ? L.n - h : 0;
	if (v->detail_off < 0)
		v->detail_off = 0;
	for (int i = 0; i < h && v->detail_off + i < L.n; i++) {
		const struct dline *l = &L.l[v->detail_off + i];

		attrset(l->a);
		mvaddnstr(y0 + i, 0, l->s, COLS);
		attrset(A_NORMAL);
	}
	free(L.l);
}

/* ---- help ------------------------------------------------------------------------------------------- */

static void draw_help(int y0)
{
	static const char *const keys[] = {
		"Keys",
		"  Up/Down j/k       move the cursor        PgUp/PgDn  a page    Home/End g/G  first/last",
		"  < >  or  s        sort by the column to the left / right (s: next)    r  reverse the order",
		"  /                 filter: address, QPN (0x1a2b or decimal), kind or operation (send write read",
		"                    atomic); Enter applies, Esc cancels, an empty filter shows every flow",
		"  Enter             detail of the connection under the cursor (both directions, counters, PSN",
		"                    state, sparklines of rate and retransmissions, PSN timeline, recent events)",
		"  Esc               back to the table                            q  quit",
		"  p                 pause (replay: stops reading; live: freezes the screen, capture goes on)",
		"  + -               replay speed x2 / /2 (0: as fast as possible)    c  clear every counter",
		"  h ?               this help",
		"",
		"Columns",
	};
	int y = y0;

	for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++)
		put(y++, 1, i == 0 || i == sizeof keys / sizeof keys[0] - 1 ? A_BOLD : A_NORMAL, "%s", keys[i]);
	for (int c = 0; c < C__N; c++)
		put(y++, 1, A_NORMAL, "  %-8s %s", cols[c].name, cols[c].what);
	y++;
	put(y++, 1, A_NORMAL, "Colours: yellow retransmissions and sequence anomalies, red NAKs, RNR NAKs, PFC and "
	    "capture drops, cyan CNPs and ECN marks, magenta bad ICRC/CRC.");
	put(y++, 1, A_NORMAL, "Rates are over capture time; counters are rocetop(8)'s (as an RC responder counts).");
	put(y + 1, 1, A_BOLD, "Press any key to go back.");
}

/* ---- the loop ------------------------------------------------------------------------------------ */

static void draw(struct view *v)
{
	uint64_t now = source_now(v->src);
	int y;

	if (v->mode == 0 || v->mode == 3)
		build_rows(v, now);
	erase();
	y = draw_header(v, now);
	if (v->mode == 1)
		draw_detail(v, y, now);
	else if (v->mode == 2)
		draw_help(y);
	else
		draw_table(v, y, now);
	if (v->mode == 3) {
		put(LINES - 1, 0, A_BOLD, "filter: %s", v->prompt);
		curs_set(1);
		move(LINES - 1, 8 + (int)strlen(v->prompt));
	} else {
		const char *hint = v->mode == 1 ? "Esc back  Up/Down PgUp/PgDn Home/End scroll  p pause  q quit" :
				   v->mode == 2 ? "any key: back" :
				   "h help  Enter detail  / filter  < > s sort  r reverse  p pause  c clear  q quit";

		curs_set(0);
		if (v->failed)
			put(LINES - 1, 0, pair_attr(v, P_BAD), "%s", v->errmsg);
		else if (v->msg[0] && mono_ns() < v->msg_until)
			put(LINES - 1, 0, pair_attr(v, P_WARN), "%s", v->msg);
		else
			put(LINES - 1, 0, pair_attr(v, P_DIM), "%s", hint);
	}
	refresh();
}

static void clear_all(struct view *v)
{
	engine_free(v->e);
	if (engine_init(v->e, v->cfg->ecfg) != 0) {
		v->failed = 1;
		snprintf(v->errmsg, sizeof v->errmsg, "out of memory starting afresh");
		return;
	}
	v->ntr = 0;
	v->next_tick = 0;
	v->rs_n = 0;
	v->nrows = v->cur = v->top = 0;
	v->sel_idx1 = 0;
	v->det_idx1 = 0;
	if (v->mode == 1)
		v->mode = 0;
	flash_msg(v, "every counter cleared");
}

/* 1 when the screen must be redrawn. */
static int key(struct view *v, int ch, int *quit)
{
	int page = LINES - 9 > 1 ? LINES - 9 : 1;

	if (ch == KEY_RESIZE)
		return 1;
	if (v->mode == 3) {
		size_t l = strlen(v->prompt);

		if (ch == 27) {
			v->mode = 0;
		} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
			snprintf(v->filter, sizeof v->filter, "%s", v->prompt);
			lower(v->filter);
			v->mode = 0;
			v->cur = v->top = 0;
			v->sel_idx1 = 0;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (l)
				v->prompt[l - 1] = 0;
		} else if (ch == 21) {   /* ^U */
			v->prompt[0] = 0;
		} else if (ch >= 32 && ch < 127 && l + 1 < sizeof v->prompt) {
			v->prompt[l] = (char)ch;
			v->prompt[l + 1] = 0;
		}
		return 1;
	}
	if (v->mode == 2) {
		if (ch == 'q') {
			*quit = 1;
			return 0;
		}
		v->mode = v->prev_mode;
		return 1;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		*quit = 1;
		return 0;
	case 'h':
	case '?':
	case KEY_F(1):
		v->prev_mode = v->mode;
		v->mode = 2;
		return 1;
	case 'p':
	case 'P':
	case ' ':
		v->paused = !v->paused;
		if (!source_live(v->src))
			source_pause(v->src, v->paused);
		return 1;
	case 'c':
	case 'C':
		clear_all(v);
		return 1;
	case '+':
	case '=':
	case '-':
		if (source_live(v->src))
			return 0;
		{
			double s = source_speed(v->src);

			if (ch == '-')
				s = s <= 0 ? 1024 : s / 2;
			else
				s = s <= 0 ? 0 : s * 2;
			if (s > 1024 || (s > 0 && s < 1.0 / 64))
				s = ch == '-' ? 1.0 / 64 : 0;
			source_set_speed(v->src, s);
			if (s > 0)
				flash_msg(v, "replay speed %gx", s);
			else
				flash_msg(v, "replay as fast as possible");
		}
		return 1;
	default:
		break;
	}
	if (v->mode == 1) {
		switch (ch) {
		case 27:
		case KEY_BACKSPACE:
		case KEY_LEFT:
			v->mode = 0;
			return 1;
		case KEY_UP: case 'k': v->detail_off--; return 1;
		case KEY_DOWN: case 'j': v->detail_off++; return 1;
		case KEY_PPAGE: v->detail_off -= page; return 1;
		case KEY_NPAGE: v->detail_off += page; return 1;
		case KEY_HOME: case 'g': v->detail_off = 0; return 1;
		case KEY_END: case 'G': v->detail_off = 1 << 20; return 1;   /* clamped when drawn */
		default: return 0;
		}
	}
	switch (ch) {
	case KEY_UP: case 'k': if (v->cur) v->cur--; break;
	case KEY_DOWN: case 'j': if (v->cur + 1 < v->nrows) v->cur++; break;
	case KEY_PPAGE: v->cur = v->cur > (uint32_t)page ? v->cur - (uint32_t)page : 0; break;
	case KEY_NPAGE:
		v->cur += (uint32_t)page;
		if (v->cur >= v->nrows)
			v->cur = v->nrows ? v->nrows - 1 : 0;
		break;
	case KEY_HOME: case 'g': v->cur = 0; break;
	case KEY_END: case 'G': v->cur = v->nrows ? v->nrows - 1 : 0; break;
	case '<': case ',': v->sort = (v->sort + C__N - 1) % C__N; v->rev = 0; break;
	case '>': case '.': case 's': case 'S': v->sort = (v->sort + 1) % C__N; v->rev = 0; break;
	case 'r': case 'R': v->rev = !v->rev; break;
	case '/':
		snprintf(v->prompt, sizeof v->prompt, "%s", v->filter);
		v->mode = 3;
		return 1;
	case 27:
		if (v->filter[0]) {
			v->filter[0] = 0;
			flash_msg(v, "filter cleared");
		}
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (v->cur < v->nrows) {
			const struct flow *f = &v->e->flows[v->rows[v->cur].i];

			v->det_idx1 = v->rows[v->cur].i + 1;
			v->det_src = f->src;
			v->det_dst = f->dst;
			v->det_qpn = f->qpn;
			v->detail_off = 0;
			v->mode = 1;
			/* history starts now if the flow had none */
			if (!track_find(v, v->det_idx1))
				track_get(v, v->det_idx1, 0);
			if (f->peer && !track_find(v, f->peer))
				track_get(v, f->peer, 0);
		}
		break;
	default:
		return 0;
	}
	if (v->mode == 0)
		remember_cursor(v);
	return 1;
}

static void on_tty(void *ctx, int fd, short rev)
{
	(void)fd;
	(void)rev;
	*(int *)ctx = 1;
}

int tui_run(const struct tui_cfg *cfg)
{
	struct view v;
	struct sigaction sa;
	struct sigaction old_int, old_term, old_hup;
	uint64_t interval = (uint64_t)((cfg->interval > 0 ? cfg->interval : 1) * 1e9), last_draw = 0;
	int quit = 0, tty_ready = 0, rc = 0;
	const char *cs;

	memset(&v, 0, sizeof v);
	v.cfg = cfg;
	v.e = cfg->eng;
	v.src = cfg->src;
	v.sort = C_RATE_S;
	v.tr = calloc(TRACK_MAX, sizeof *v.tr);
	if (!v.tr) {
		fprintf(stderr, "rocetop: out of memory for the view\n");
		return 1;
	}

	/* wide characters without touching number formatting */
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	v.utf8 = cs && !strcmp(cs, "UTF-8");
	tty_saved = tcgetattr(STDIN_FILENO, &tty_mode) == 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);

	if (!initscr()) {
		fprintf(stderr, "rocetop: cannot start the terminal view\n");
		free(v.tr);
		return 1;
	}
	curses_on = 1;
	atexit(curses_end);
	reset_len = 0;
	add_cap("sgr0");
	add_cap("cnorm");
	add_cap("rmcup");
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (int i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &sa, &old_crash[i]);

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(P_TITLE, COLOR_CYAN, -1);
		init_pair(P_WARN, COLOR_YELLOW, -1);
		init_pair(P_BAD, COLOR_RED, -1);
		init_pair(P_GOOD, COLOR_GREEN, -1);
		init_pair(P_INFO, COLOR_CYAN, -1);
		init_pair(P_ICRC, COLOR_MAGENTA, -1);
		init_pair(P_DIM, COLOR_BLUE, -1);
		v.color = 1;
	}
	source_watch(v.src, STDIN_FILENO, POLLIN, on_tty, &tty_ready);

	while (!quit && !quit_sig) {
		uint64_t t0 = mono_ns(), now;
		int got = 0, dirty = 0, ch;

		/* frames */
		if (!v.failed && !v.ended && !(v.paused && !source_live(v.src))) {
			int r;

			do {
				r = cfg->feed(cfg->feed_ctx, 256);
				if (r == SOURCE_FRAME)
					got = 1;
				now = source_now(v.src);
				ticks(&v, now);
			} while (r == SOURCE_FRAME && mono_ns() - t0 < FEED_SLICE_NS && !quit_sig);
			if (r == SOURCE_EOF) {
				/* the last, partial second */
				if (v.e->t.frames)
					sample_tick(&v, source_now(v.src));
				v.ended = 1;
				dirty = 1;
			} else if (r == SOURCE_ERR) {
				v.failed = 1;
				snprintf(v.errmsg, sizeof v.errmsg, "capture failed: %s: %s (after %" PRIu64 " frames); q quits",
					 source_name(v.src), source_error(v.src), v.e->t.frames);
				rc = 1;
				dirty = 1;
			}
		}
		now = source_now(v.src);
		ticks(&v, now);
		rate_note(&v, now);

		/* keys */
		while ((ch = getch()) != ERR) {
			dirty |= key(&v, ch, &quit);
			if (quit)
				break;
		}
		tty_ready = 0;
		if (quit || quit_sig)
			break;

		if (dirty || (!(v.paused && source_live(v.src)) && mono_ns() - last_draw >= interval) || !last_draw) {
			draw(&v);
			last_draw = mono_ns();
		}
		if (!got) {
			/* sleep until a frame, a key, a scrape or the next redraw */
			uint64_t since = mono_ns() - last_draw;
			int ms = since >= interval ? 0 : (int)((interval - since) / 1000000) + 1;

			if (ms > 100)
				ms = 100;
			source_wait(v.src, ms);
		}
	}
	source_unwatch(v.src, STDIN_FILENO);
	curses_end();
	for (int i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &old_crash[i], NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (v.failed && rc)
		fprintf(stderr, "rocetop: %s: %s (after %" PRIu64 " frames)\n", source_name(v.src), source_error(v.src),
			v.e->t.frames);
	free(v.rows);
	free(v.host_match);
	free(v.tr);
	return rc;
}
