/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * history.c — view-side history: each tracked flow sampled once per second
 * of capture time (bytes, retransmissions, PSN, events), for the detail
 * view's sparklines, timeline and recent events; and the capture-wide packet
 * and bit rates of the header.  The engine keeps none of this.
 */
#include <string.h>
#include "view.h"

static int track_is(const struct track *t, const struct flow *f, uint32_t idx1)
{
	return t->idx1 == idx1 && t->src == f->src && t->dst == f->dst && t->qpn == f->qpn && t->kind == f->kind;
}

struct track *track_find(struct tui *v, uint32_t idx1)
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
struct track *track_get(struct tui *v, uint32_t idx1, uint64_t tick_ts)
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
	if (tick_ts && flow_first_ns(v->e, f) + v->tick_ns >= tick_ts)
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

static void track_sample(struct tui *v, struct track *t, const struct flow *f, uint64_t ts)
{
	struct sample *s = &t->h[t->head];
	uint32_t c[EV__N];

	counters(f, c);
	memset(s, 0, sizeof *s);
	s->bytes = (float)(f->bytes - t->bytes);
	s->retx = (uint16_t)((c[EV_RETX] + c[EV_TCP_RETX]) - (t->c[EV_RETX] + t->c[EV_TCP_RETX]) > 65535 ? 65535 :
			     (c[EV_RETX] + c[EV_TCP_RETX]) - (t->c[EV_RETX] + t->c[EV_TCP_RETX]));
	s->psn = f->kind == FK_IWARP ? f->u.iw.next_seq : f->u.seq.next;
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
void sample_tick(struct tui *v, uint64_t ts)
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

/* Each track's samples merged two by two, the newest pair first. */
static void coarsen(struct tui *v)
{
	for (uint32_t k = 0; k < v->ntr; k++) {
		struct track *t = &v->tr[k];
		struct sample lin[HIST];
		int n = t->n, m = (n + 1) / 2, start = (t->head + HIST - n) % HIST;

		for (int i = 0; i < n; i++)
			lin[i] = t->h[(start + i) % HIST];
		/* the newest pair is (n-2, n-1): an odd oldest sample stays alone */
		for (int j = m - 1, i = n - 1; j >= 0; j--, i -= 2) {
			struct sample s = lin[i];

			if (i > 0) {
				const struct sample *o = &lin[i - 1];
				unsigned r = (unsigned)s.retx + o->retx;

				s.bytes += o->bytes;
				s.retx = (uint16_t)(r > 65535 ? 65535 : r);
				s.marks |= o->marks;
			}
			t->h[j] = s;
		}
		t->n = (uint16_t)m;
		t->head = (uint16_t)(m % HIST);
	}
	v->tick_n = (v->tick_n + 1) / 2;
	v->tick_ns *= 2;
}

void history_reset(struct tui *v)
{
	v->ntr = 0;
	v->next_tick = 0;
	v->tick_n = 0;
	v->tick_ns = source_live(v->src) ? TICK_NS : TICK_MIN_NS;
}

void ticks(struct tui *v, uint64_t now)
{
	int live = source_live(v->src);

	if (!now)
		return;
	if (!v->tick_ns)
		history_reset(v);
	/* start; live, after a long silence (a replay samples its silences, the step growing) */
	if (!v->next_tick || (live && now > v->next_tick + HIST * v->tick_ns))
		v->next_tick = (now / v->tick_ns + 1) * v->tick_ns;
	while (now >= v->next_tick) {
		sample_tick(v, v->next_tick);
		v->next_tick += v->tick_ns;
		if (!live && ++v->tick_n >= HIST) {
			/* the next sample covers twice the time, from the end of this one */
			v->next_tick += v->tick_ns;
			coarsen(v);
		}
	}
}

const char *step_str(uint64_t ns, char *buf, size_t cap)
{
	if (ns < 1000000ull)
		snprintf(buf, cap, "%" PRIu64 " us", (uint64_t)(ns / 1000u));
	else if (ns < 1000000000ull)
		snprintf(buf, cap, "%" PRIu64 " ms", (uint64_t)(ns / 1000000u));
	else if (ns < 60000000000ull && ns % 1000000000u)
		snprintf(buf, cap, "%.2f s", (double)ns / 1e9);   /* a replay's 1.02 s, 2.05 s, ... */
	else if (ns < 60000000000ull)
		snprintf(buf, cap, "%" PRIu64 " s", (uint64_t)(ns / 1000000000u));
	else
		snprintf(buf, cap, "%" PRIu64 " min %" PRIu64 " s", (uint64_t)(ns / 60000000000u), (uint64_t)(ns / 1000000000u % 60));
	return buf;
}

/* Capture-wide packet and bit rates over the last ~2 s of capture time. */
void rate_note(struct tui *v, uint64_t now)
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

void rates_now(const struct tui *v, double *pps, double *bps)
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
