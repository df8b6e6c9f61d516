/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * detail_history.c — the detail view's PSN state, per-second history
 * (sparklines, PSN timeline) and recent events.
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

/* One character per second: the worst thing that happened in it, else
 * progress ('>': the PSN or, iWARP, the TCP stream moved on; '-': bytes
 * without progress) or nothing ('.'). */
static char second_mark(const struct sample *s, const struct sample *pr)
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

/* A sparkline of one field of the last n samples; returns the largest value. */
static double spark_of(struct tui *v, const struct track *t, int n, int retx, char *spark, size_t cap)
{
	double val[HIST], max = 0;
	int start = (t->head + HIST - n) % HIST;

	for (int i = 0; i < n; i++) {
		const struct sample *s = &t->h[(start + i) % HIST];

		val[i] = retx ? s->retx : s->bytes * 8.0;
		if (val[i] > max)
			max = val[i];
	}
	sparkline(v, val, n, spark, cap);
	return max;
}

void timeline(struct tui *v, struct dlines *L, const char *dir, const struct flow *f, uint32_t idx1,
	      int width)
{
	struct track *t = track_find(v, idx1);
	char spark[HIST * 4 + 1], tl[HIST + 1], mx[24];
	int n, start;
	double max;

	if (!t || !t->n) {
		ln(L, A_NORMAL, "  %s: history starts at the next second", dir);
		return;
	}
	n = t->n < width ? t->n : width;
	start = (t->head + HIST - n) % HIST;
	max = spark_of(v, t, n, 0, spark, sizeof spark);
	ln(L, A_NORMAL, "  %s rate   |%s| max %s", dir, spark, rate_str(max, mx, sizeof mx));
	max = spark_of(v, t, n, 1, spark, sizeof spark);
	ln(L, max > 0 ? pair_attr(v, P_WARN) : A_NORMAL, "  %s retx   |%s| max %.0f/s", dir, spark, max);
	for (int i = 0; i < n; i++)
		tl[i] = second_mark(&t->h[(start + i) % HIST], i ? &t->h[(start + i - 1) % HIST] : NULL);
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
		char ts[32] = "";

		if (localtime_r(&sec, &tm))
			strftime(ts, sizeof ts, "%H:%M:%S", &tm);
		ln(L, (1u << all[i].e.what) & BAD_EVENTS ? pair_attr(v, P_BAD) : pair_attr(v, P_WARN),
		   "  %s  %s  %s +%" PRIu32, ts, dirs[all[i].dir], ev_names[all[i].e.what], all[i].e.n);
	}
}
