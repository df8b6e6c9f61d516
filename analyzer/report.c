/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c — batch snapshots and the summary report, as text (report_text.c)
 * and as JSON lines (report_json.c); here what both share: a flow's anomaly
 * counters, the capture-wide totals, the sort orders, microsecond formats.
 * The JSON keys of a flow are the counter names of lib/seq.h and
 * man/rocetop.8: duplicate_request, out_of_sequence, out_of_seq_request,
 * retransmissions, psn_gaps, missing_psns, acks, nak_seq_err,
 * nak_invalid_request, nak_remote_access, nak_remote_op, rnr_nak, ecn_ce,
 * cnp, icrc_bad, …
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report_int.h"

void rep_fc_get(const struct flow *f, struct fc *c)
{
	const struct roce_seq_anom *x = rep_has_seq(f) ? f->u.seq.x : NULL;

	memset(c, 0, sizeof *c);
	if (!x)
		return;
	c->dup = x->duplicate_request;
	c->oos = x->out_of_sequence;
	c->oosr = x->out_of_seq_request;
	c->retrans = x->retransmissions;
	c->ooo = x->out_of_order;
	c->gaps = x->psn_gaps;
	c->missing = roce_seq_missing(&f->u.seq);
	c->nak_seq = x->nak_seq_err;
	c->nak_inv = x->nak_invalid_request;
	c->nak_acc = x->nak_remote_access;
	c->nak_op = x->nak_remote_op;
	c->nak_other = x->nak_other;
	c->rnr = x->rnr_nak;
	c->implied = x->implied_nak;
	c->dup_acks = x->dup_acks;
	c->unsolicited = x->unsolicited;
	c->gbn = x->go_back_n;
	c->sr = x->selective;
	c->rnr_timers = x->rnr_timers;
	c->gap_max = x->timeout_gap_max_us;
	for (int i = 0; i < ROCE_SEQ_TRIG__COUNT; i++) {
		c->ep[i] = x->episodes[i];
		c->episodes += x->episodes[i];
	}
}

int rep_timeout_exp(uint32_t gap_us)
{
	return gap_us ? (int)lround(log2(gap_us / 4.096)) : 0;
}

int rep_by_bytes(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a, *y = *(const struct flow *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x < y ? -1 : x > y;
}

static const struct engine *sort_engine;
static uint64_t sort_now;

static int by_rate(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a, *y = *(const struct flow *const *)b;
	double rx[3], ry[3];

	flow_rates(sort_engine, x, sort_now, rx);
	flow_rates(sort_engine, y, sort_now, ry);
	if (rx[0] != ry[0])
		return rx[0] < ry[0] ? 1 : -1;
	return rep_by_bytes(a, b);
}

const struct flow **rep_sorted(const struct engine *e, int (*cmp)(const void *, const void *))
{
	const struct flow **v = malloc((e->nflows ? e->nflows : 1) * sizeof *v);

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < e->nflows; i++)
		v[i] = &e->flows[i];
	qsort(v, e->nflows, sizeof *v, cmp);
	return v;
}

/* By the last 2 s rate, then by bytes: the snapshots' order. */
const struct flow **rep_sorted_by_rate(const struct engine *e, uint64_t now)
{
	sort_engine = e;
	sort_now = now;
	return rep_sorted(e, by_rate);
}

void rep_totals_get(const struct engine *e, struct totals *t)
{
	memset(t, 0, sizeof *t);
	t->requests = e->ev.requests;
	t->dup = e->ev.duplicate_request;
	t->oos = e->ev.out_of_sequence;
	t->oosr = e->ev.out_of_seq_request;
	t->retrans = e->ev.retransmissions;
	t->gaps = e->ev.psn_gaps;
	t->missing = e->ev.missing_psns;
	t->acks = e->ev.acks;
	t->nak_seq = e->ev.nak_seq_err;
	t->nak_inv = e->ev.nak_invalid_request;
	t->nak_acc = e->ev.nak_remote_access;
	t->nak_op = e->ev.nak_remote_op;
	t->rnr = e->ev.rnr_nak;
	t->ecn_ce = e->ev.ecn_ce;
	t->cnp = e->ev.cnp;
	t->icrc_bad = e->ev.icrc_bad;
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		struct fc c;

		if (f->peer && f->peer > i + 1) {
			t->connections++;
			t->conn_cm += f->pair_how == FP_CM;
			t->conn_traffic += f->pair_how == FP_TRAFFIC;
			t->conn_tcp += f->pair_how == FP_TCP;
		} else if (!f->peer && rep_is_rc(f) && f->u.seq.requests) {
			t->half++;
		}
		if (!rep_has_seq(f))
			continue;
		rep_fc_get(f, &c);
		t->requests += f->u.seq.requests;
		t->dup += c.dup;
		t->oos += c.oos;
		t->oosr += c.oosr;
		t->retrans += c.retrans;
		t->episodes += c.episodes;
		t->ooo += c.ooo;
		t->gaps += c.gaps;
		t->missing += c.missing;
		t->acks += f->u.seq.acks;
		t->nak_seq += c.nak_seq;
		t->nak_inv += c.nak_inv;
		t->nak_acc += c.nak_acc;
		t->nak_op += c.nak_op;
		t->rnr += c.rnr;
		t->ecn_ce += f->u.seq.ecn_ce;
		t->cnp += f->u.seq.cnp;
		t->icrc_bad += f->u.seq.icrc_bad;
	}
}

/* Microseconds from ns: whole when they are, else to the ns. */
const char *rep_us_str(uint64_t ns, char *b, size_t cap)
{
	if (ns % 1000)
		snprintf(b, cap, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	else
		snprintf(b, cap, "%" PRIu64, ns / 1000);
	return b;
}

/* A quantile as us_str, or "null" / "-" when the histogram was evicted. */
const char *rep_q_str(const struct engine *e, const struct roce_seq_dir *d, enum roce_rtt_which w, double q,
			 const char *none, char *b, size_t cap)
{
	uint64_t ns;

	if (!roce_rtt_stat(d, w)->n)
		return "0";
	if (roce_rtt_quantile(engine_rtt(e, d), d, w, q, &ns))
		return none;
	return rep_us_str(ns, b, cap);
}
