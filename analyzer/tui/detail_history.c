/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * detail_history.c — the detail view's PSN state, history (sparklines,
 * PSN timeline: one column per step of history.c, or per g steps when the
 * terminal is narrower than the samples) and recent events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "detail.h"

static const char *const ev_names[EV__N] = {
	"retransmissions", "nak_seq_err", "rnr_nak", "psn_gaps", "duplicate_request", "out_of_seq_request",
	"cnp", "ecn_ce", "icrc_bad", "implied_nak", "timeout episodes", "tcp retransmissions", "mpa crc_bad",
	"tcp gaps", "terminates",
};

void psn_state(struct tui *v, struct dlines *L, const char *dir, const struct flow *f)
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

/* One character per column: the worst thing that happened in it, else
 * progress ('>': the PSN or, iWARP, the TCP stream moved on; '-': bytes
 * without progress) or nothing ('.'). */
static char column_mark(const struct sample *s, const struct sample *pr)
{
	static const struct { uint16_t m; char c; } marks[] = {
		{ 1u << EV_TERM, 'T' },
		{ 1u << EV_NAK | 1u << EV_RNR, 'N' },
		{ 1u << EV_RETX | 1u << EV_TCP_RETX, 'R' },
		{ 1u << EV_GAP | 1u << EV_TCP_GAP, 'G' },
		{ 1u << EV_DUP, 'D' },
		{ 1u << EV_CNP | 1u << EV_ECN, 'C' },
		{ 1u << EV_ICRC | 1u << EV_CRC, 'X' },
	};

	for (unsigned k = 0; k < sizeof marks / sizeof marks[0]; k++)
		if (s->marks & marks[k].m)
			return marks[k].c;
	if (pr ? s->psn != pr->psn : s->bytes > 0)
		return '>';
	return s->bytes > 0 ? '-' : '.';
}

int history_group(const struct tui *v, uint32_t ids[2], int width)
{
	int n = 0;

	for (int k = 0; k < 2; k++) {
		struct track *t = ids[k] ? track_find((struct tui *)v, ids[k]) : NULL;

		if (t && t->n > n)
			n = t->n;
	}
	return n > width ? (n + width - 1) / width : 1;
}

struct column {
	double bytes, retx;
	uint16_t marks;
	uint32_t psn;
};

/* The track's samples in columns of g (the newest column whole), oldest first; how many. */
static int columns(const struct track *t, int g, struct column *c)
{
	int n = t->n, nc = (n + g - 1) / g, start = (t->head + HIST - n) % HIST;

	memset(c, 0, (size_t)nc * sizeof *c);
	for (int i = 0; i < n; i++) {
		const struct sample *s = &t->h[(start + i) % HIST];
		struct column *o = &c[(i + nc * g - n) / g];

		o->bytes += s->bytes;
		o->retx += s->retx;
		o->marks |= s->marks;
		o->psn = s->psn;
	}
	return nc;
}

void timeline(struct tui *v, struct dlines *L, const char *dir, const struct flow *f, uint32_t idx1,
	      int g)
{
	struct track *t = track_find(v, idx1);
	struct column c[HIST];
	char spark[HIST * 4 + 1], tl[HIST + 1], mx[24];
	double val[HIST], max = 0, col_s;
	int n;

	if (!t || !t->n) {
		ln(L, A_NORMAL, "  %s: history starts at the next step", dir);
		return;
	}
	n = columns(t, g, c);
	col_s = (double)v->tick_ns * g / 1e9;
	for (int i = 0; i < n; i++) {
		val[i] = c[i].bytes * 8.0 / col_s;
		max = val[i] > max ? val[i] : max;
	}
	sparkline(v, val, n, spark, sizeof spark);
	ln(L, A_NORMAL, "  %s rate   |%s| max %s", dir, spark, rate_str(max, mx, sizeof mx));
	max = 0;
	for (int i = 0; i < n; i++) {
		val[i] = c[i].retx / col_s;
		max = val[i] > max ? val[i] : max;
	}
	sparkline(v, val, n, spark, sizeof spark);
	ln(L, max > 0 ? pair_attr(v, P_WARN) : A_NORMAL, "  %s retx   |%s| max %.0f/s", dir, spark, max);
	for (int i = 0; i < n; i++) {
		struct sample s = { (float)c[i].bytes, 0, c[i].marks, c[i].psn }, pr;

		if (i)
			pr = (struct sample){ (float)c[i - 1].bytes, 0, c[i - 1].marks, c[i - 1].psn };
		tl[i] = column_mark(&s, i ? &pr : NULL);
	}
	tl[n] = 0;
	if (f->kind == FK_IWARP)
		ln(L, strpbrk(tl, "TRGX") ? pair_attr(v, P_WARN) : A_NORMAL,
		   "  %s stream |%s| next TCP seq %" PRIu32 ", %" PRIu32 " FPDUs", dir, tl, f->u.iw.next_seq,
		   f->u.iw.fpdus);
	else
		ln(L, strpbrk(tl, "NRGX") ? pair_attr(v, P_WARN) : A_NORMAL, "  %s PSNs   |%s| next 0x%06" PRIx32, dir,
		   tl, f->u.seq.next & 0xffffff);
}

#define BAD_EVENTS (1u << EV_NAK | 1u << EV_RNR | 1u << EV_ICRC | 1u << EV_TERM)

static int ev_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return x->ts < y->ts ? 1 : x->ts > y->ts ? -1 : 0;
}

void recent_events(struct tui *v, struct dlines *L, uint32_t idx1[2], const char *dirs[2])
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
		char ts[48] = "";

		/* UTC, as the header's clock and the listing; milliseconds when the step is shorter than a second */
		if (gmtime_r(&sec, &tm))
			strftime(ts, sizeof ts, "%H:%M:%S", &tm);
		if (v->tick_ns < TICK_NS)
			snprintf(ts + strlen(ts), sizeof ts - strlen(ts), ".%03u",
				 (unsigned)(all[i].e.ts / 1000000ull % 1000));
		ln(L, (1u << all[i].e.what) & BAD_EVENTS ? pair_attr(v, P_BAD) : pair_attr(v, P_WARN),
		   "  %s  %s  %s +%" PRIu32, ts, dirs[all[i].dir], ev_names[all[i].e.what], all[i].e.n);
	}
}
