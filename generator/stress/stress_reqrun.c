/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_reqrun.c — `rocegen stress --role requester` while it runs and at
 * its end: every adapter frame passes st_req_input (lose faults, reaction
 * times, WRITEs checked as they execute, receives posted again); the loads'
 * progress is polled (`lstat`); at the end each QP's load is held against
 * what rocegen returned (the READ/FETCH_ADD fold, the atomic word).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress.h"
#include "stress_int.h"
#include "stress_req_int.h"
#include "ctl.h"

static unsigned qidx(const struct st_run *s, const struct st_qp *q)
{
	return (unsigned)(q - s->qp);
}

/* A request rocegen has seen (or lost, or NAKed) before: which reaction is
 * it?  An answer to rocegen's NAK or RNR NAK counts whenever it comes; a
 * timeout or a lost response only for the first frame of a go-back-N. */
static void retx_arrival(struct st_run *s, struct st_rq *rq, uint32_t psn, uint64_t ts)
{
	struct st_result *r = s->res;
	uint64_t gap = ts > rq->anchor ? ts - rq->anchor : 0;

	if (rq->rnr_on && psn == rq->rnr_psn && ts > rq->rnr_t) {
		st_dist_add(&r->m[STM_RNR_WAIT], ts - rq->rnr_t);
		rq->rnr_on = 0;
	} else if (rq->nak_on && psn == rq->nak_psn && ts > rq->nak_t) {
		st_dist_add(&r->m[STM_NAK_RESP], ts - rq->nak_t);
		rq->nak_on = 0;
	} else if (rq->in_retx) {
		return;
	} else if (gap >= r->timeout_ns / 2) {
		st_dist_add(&r->m[STM_TIMEOUT], gap);
	}
	if (rq->drop_on && ts > rq->drop_t) {
		st_dist_add(&r->m[STM_RETX], ts - rq->drop_t);
		rq->drop_on = 0;
	}
	if (rq->lost_on && psn == rq->lost_psn)
		rq->lost_on = 0;
	rq->in_retx = 1;
}

/* Before the engine sees the frame: retransmission or new request? */
static void classify(struct st_run *s, struct st_qp *q, const struct roce_pkt *p, uint64_t ts)
{
	struct st_rq *rq = q->rq;
	struct roce_qp_info in;
	uint32_t behind;
	int again;

	roce_qp_info(q->qp, &in);
	behind = (in.epsn - p->psn) & 0xffffff;
	again = (behind && behind < 0x800000) || (rq->lost_on && p->psn == rq->lost_psn) ||
		(rq->nak_on && p->psn == rq->nak_psn) || (rq->rnr_on && p->psn == rq->rnr_psn);
	if (again)
		retx_arrival(s, rq, p->psn, ts);
	else if (!again)
		rq->in_retx = 0;
	if (!rq->rx_since_tx) {
		if (ts > rq->anchor)
			rq->anchor = ts;
		rq->rx_since_tx = 1;
	}
}

/* WRITEs the engine executed since the last frame (its expected PSN moved). */
static void check_executed(struct st_run *s, struct st_qp *q, uint64_t now)
{
	struct st_rq *rq = q->rq;
	struct roce_qp_info in;
	unsigned i = qidx(s, q);

	roce_qp_info(q->qp, &in);
	for (;;) {
		uint32_t d = (in.epsn - rq->psn_exec) & 0xffffff, n = st_wl_pkts(s, i, rq->k_exec);
		uint64_t k = rq->k_exec;

		if (d < n || d >= 0x800000)
			break;
		if (st_wl_op(s, i, k) == CTL_WL_WRITE)
			st_req_check_bytes(s, q, k, "write", rq->psn_exec,
					   rq->mem + s->slot + (k % s->o->qd) * s->slot, st_wl_len(s, i, k));
		st_tput_add(s, i, st_wl_len(s, i, k), now);
		rq->wrapped |= rq->psn_exec + n > 0xffffff;
		rq->psn_exec = (rq->psn_exec + n) & 0xffffff;
		rq->k_exec++;
	}
}

int st_req_input(struct st_run *s, struct st_qp *q, const struct roce_pkt *p, uint64_t ts)
{
	struct st_rq *rq = q->rq;
	uint64_t now = s->io->now(s->io->ctx);
	int rc;

	classify(s, q, p, ts);   /* the adapter's reaction, even when rocegen then loses the frame */
	if (s->o->ppm[STF_LOSE] && st_mix(rq->rng++) % 1000000 < s->o->ppm[STF_LOSE]) {
		s->res->faults[STF_LOSE]++;
		if (!rq->lost_on) {
			rq->lost_on = 1;
			rq->lost_psn = p->psn;
		}
		return 0;
	}
	rc = roce_qp_input(q->qp, p, ROCE_ICRC_UNCHECKED, now);
	check_executed(s, q, now);
	while (rq->nrepost) {
		unsigned b = rq->repost[--rq->nrepost];

		roce_qp_post_recv(q->qp, b, rq->rbuf + (size_t)b * s->slot, s->slot, now);
	}
	return rc;
}

int st_req_poll(struct st_run *s, uint64_t now)
{
	char rep[256];
	uint64_t c;

	if (s->io->ctl(s->io->ctx, "lstat", rep, sizeof(rep)) || strncmp(rep, "ok", 2))
		return -1;
	if (ctl_u64(rep, "running", 1) == 0)
		s->done = s->n;
	c = ctl_u64(rep, "completed", 0);
	if (c != s->poll_completed || !s->poll_t) {
		s->poll_completed = c;
		s->poll_t = now;
	} else if (now - s->poll_t > 30000000000ull) {
		return -1;   /* no completion for 30 s: stalled */
	}
	s->res->messages = c;   /* for the progress line; st_req_finish counts again */
	return 0;
}

/* What the target's folds of QP i's first n messages should be (f[0] all,
 * f[1] READs, f[2] FETCH_ADDs), and the atomic word after them. */
static void expected_fold(struct st_run *s, struct st_qp *q, uint64_t n, uint64_t f[3], uint64_t *word)
{
	unsigned i = qidx(s, q);
	uint64_t w = 0;

	f[0] = f[1] = f[2] = 0;
	for (uint64_t k = 0; k < n; k++) {
		unsigned op = st_wl_op(s, i, k);
		uint32_t len = st_wl_len(s, i, k);

		if (op == CTL_WL_READ) {
			uint64_t roff = ctl_wl_roff(s->o->seed, i, k, s->slot, len);
			uint64_t v = ctl_sum(q->rq->mem + roff, len);

			f[0] = ctl_mix(f[0] ^ v);
			f[1] = ctl_mix(f[1] ^ v);
		} else if (op == CTL_WL_FADD) {
			f[0] = ctl_mix(f[0] ^ w);
			f[2] = ctl_mix(f[2] ^ w);
			w += ctl_wl_add(s->o->seed, i, k);
		}
	}
	*word = w;
}

static void tally(struct st_run *s, unsigned i, uint64_t n)
{
	static const int op_of[9] = { 0, ST_SEND, ST_WRITE, 0, ST_READ, 0, 0, 0, ST_ATOMIC };

	for (uint64_t k = 0; k < n; k++) {
		unsigned op = st_wl_op(s, i, k);

		s->res->messages++;
		s->res->by_op[op_of[op]]++;
		s->res->bytes += st_wl_len(s, i, k);
		s->qp[i].bytes += st_wl_len(s, i, k);
	}
}

/* One QP's load at the end: completions, errors, the fold, the atomic word. */
static void finish_qp(struct st_run *s, struct st_qp *q)
{
	char rep[512], msg[256], err[40] = "";
	unsigned i = qidx(s, q);
	uint64_t posted, completed, errors, fold, want[3], word, have;

	if (st_ctl(s, rep, sizeof(rep), "lstat qp=%u", q->dut_qp)) {
		q->err = 1;
		return;
	}
	posted = ctl_u64(rep, "posted", 0);
	completed = ctl_u64(rep, "completed", 0);
	errors = ctl_u64(rep, "errors", 0);
	fold = ctl_u64(rep, "fold", 0);
	ctl_get(rep, "err", err, sizeof(err));
	q->posted = posted;
	q->completed = completed;
	if (errors || completed != posted || ctl_u64(rep, "running", 1) ||
	    (!s->o->duration_ns && posted != s->o->messages)) {
		snprintf(msg, sizeof(msg), "qp %u: the adapter posted %" PRIu64 ", completed %" PRIu64
			 ", %" PRIu64 " errors%s%s", i, posted, completed, errors, err[0] ? ", first " : "", err);
		st_req_fail(s, q, 0, msg);
		q->err = 1;
	}
	tally(s, i, completed - errors);
	expected_fold(s, q, completed - errors, want, &word);
	memcpy(&have, q->rq->mem + s->slot + (uint64_t)s->o->qd * s->slot, 8);
	if (!errors && fold != want[0]) {
		snprintf(msg, sizeof(msg), "qp %u: the adapter's READ/atomic results fold to 0x%" PRIx64
			 ", expected 0x%" PRIx64 " (%" PRIu64 " messages; READs %s, atomics %s; %" PRIu64
			 " READs wrong, the first message %" PRIu64 " byte %" PRIu64 ")", i, fold, want[0],
			 completed, ctl_u64(rep, "rfold", 0) == want[1] ? "agree" : "differ",
			 ctl_u64(rep, "afold", 0) == want[2] ? "agree" : "differ", ctl_u64(rep, "rbad", 0),
			 ctl_u64(rep, "rbad_k", 0), ctl_u64(rep, "rbad_off", 0));
		st_req_fail(s, q, 1, msg);
	}
	if (!errors && have != word) {
		snprintf(msg, sizeof(msg), "qp %u atomic word: 0x%" PRIx64 ", expected 0x%" PRIx64, i, have, word);
		st_req_fail(s, q, 1, msg);
	}
	q->done = !q->err;
}

void st_req_finish(struct st_run *s)
{
	struct st_result *r = s->res;
	double sum = 0, sq = 0;

	r->messages = 0;
	for (unsigned i = 0; i < s->n; i++) {
		struct st_qp *q = &s->qp[i];
		const struct roce_qp_stats *st = roce_qp_stats(q->qp);
		double rate;

		finish_qp(s, q);
		r->qps_completed += q->done && !q->err;
		r->qps_error += q->err != 0;
		for (int k = 0; k < STF_LOSE; k++)
			r->faults[k] += st->faults[st_fault_kind[k]];
		r->wire[STC_DUP] += st->dup_req_rx;
		r->wire[STC_OOS] += st->oos_req_rx;
		r->wire[STC_NAK] += st->nak_tx[ROCE_NAK_PSN_SEQ_ERR];
		r->wire_episodes += st->nak_tx[ROCE_NAK_PSN_SEQ_ERR];
		r->psn_wraps += q->rq->wrapped;
		rate = (double)q->bytes;
		sum += rate;
		sq += rate * rate;
	}
	r->fairness = sq > 0 ? sum * sum / (s->n * sq) : 0;
	st_pcap_finish(s);   /* counters_vs_wire: responder counters, not compared in this role */
}

void st_req_teardown(struct st_run *s)
{
	char rep[64];

	if (s->qp)
		s->io->ctl(s->io->ctx, "reset", rep, sizeof(rep));
	for (unsigned i = 0; s->qp && i < s->n; i++) {
		free(s->qp[i].mem);
		if (s->qp[i].rq) {
			free(s->qp[i].rq->mem);
			free(s->qp[i].rq->rbuf);
			free(s->qp[i].rq);
		}
	}
	free(s->qp);
	free(s->tmp);
	free(s->rules);
	free(s->faults);
	free(s->heap);
}
