/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_req.c — `rocegen stress --role requester`: the adapter posts the
 * work requests (the control protocol's `load`: the target's own workload
 * loop, target/load.h), rocegen answers with lib/qp's RC responder, one
 * engine per QP, and faults what it sends (responses, ACKs, NAKs: the
 * engine's fault rules on ROCE_QPF_RSP), plus RNR NAKs instead of executing
 * a SEND (rnr=) and adapter requests discarded on receipt (lose=, so that
 * rocegen NAKs or the adapter times out).
 *
 * rocegen's MR of a QP (S = the largest size, rounded up to 8), as load.h says:
 *   [0, S) read area, [S, S + qd·S) write slots, [S + qd·S, +8) atomic word.
 * Integrity: every SEND received and every WRITE executed is checked against
 * the pattern of its message (ctl_wl_fill) as it lands (a WRITE slot cannot
 * be reused before rocegen's response to it went out); every READ's and
 * FETCH_ADD's result is folded by the target, and rocegen's fold of what it
 * should have returned must equal it; the final atomic word must be the sum.
 *
 * Reaction times (wire time of the adapter's frame − rocegen's emission):
 *   nak_response_us    sequence NAK → the request at its PSN
 *   rnr_wait_us        RNR NAK → the retried request (against the timer sent)
 *   timeout_retx_us    a retransmission after silence: from the last response
 *                      rocegen put on the wire (or the first request after it)
 *   retransmission_us  a response rocegen dropped or corrupted → the
 *                      adapter's next retransmission
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress.h"
#include "stress_int.h"
#include "ctl.h"

#include "stress_req_int.h"

#define LOAD_BATCH 16              /* `load` requests per multi line */

const char *st_role(const struct st_opts *o)
{
	return o->requester ? "requester" : "responder";
}

static unsigned qidx(const struct st_run *s, const struct st_qp *q)
{
	return (unsigned)(q - s->qp);
}

void st_req_fail(struct st_run *s, struct st_qp *q, int integrity, const char *msg)
{
	struct st_result *r = s->res;
	unsigned i = qidx(s, q);

	r->integrity_errors += integrity != 0;
	if (!r->first_error[0])
		snprintf(r->first_error, sizeof(r->first_error), "%s", msg);
	if (s->o->verbose)
		fprintf(stderr, "%s\n", msg);
	for (unsigned k = 0; k < r->n_failing; k++)
		if (r->failing_qp[k] == i)
			return;
	if (r->n_failing < sizeof(r->failing_qp) / sizeof(r->failing_qp[0]))
		r->failing_qp[r->n_failing++] = i;
}

unsigned st_wl_op(const struct st_run *s, unsigned i, uint64_t k)
{
	return ctl_wl_op(s->o->seed, i, k, s->o->ops);
}

uint32_t st_wl_len(const struct st_run *s, unsigned i, uint64_t k)
{
	return ctl_wl_len(s->o->seed, i, k, s->o->ops, s->o->size_min, s->o->size_max);
}

/* request packets (PSNs) of message k */
uint32_t st_wl_pkts(const struct st_run *s, unsigned i, uint64_t k)
{
	uint32_t len = st_wl_len(s, i, k);

	return st_wl_op(s, i, k) == CTL_WL_FADD ? 1 : (len + s->o->mtu - 1) / s->o->mtu;
}

/* Compares got with the pattern of message k; 0 when equal. */
int st_req_check_bytes(struct st_run *s, struct st_qp *q, uint64_t k, const char *what, uint32_t psn,
		       const uint8_t *got, uint32_t len)
{
	char msg[256];
	unsigned i = qidx(s, q);

	ctl_wl_fill(s->o->seed, i, k, 0, s->tmp, len);
	for (uint32_t j = 0; j < len; j++)
		if (got[j] != s->tmp[j]) {
			snprintf(msg, sizeof(msg),
				 "qp %u psn %u %s (message %" PRIu64 "): byte %u is 0x%02x, expected 0x%02x", i,
				 (psn + j / s->o->mtu) & 0xffffff, what, k, j, got[j], s->tmp[j]);
			st_req_fail(s, q, 1, msg);
			return -1;
		}
	return 0;
}

/* ---- rocegen's engine callbacks ---- */

static int req_tx(void *ctx, const uint8_t *f, uint32_t len)
{
	struct st_qp *q = ctx;
	struct st_run *s = q->s;
	uint64_t now = s->io->now(s->io->ctx);

	q->rq->anchor = now;
	q->rq->rx_since_tx = 0;
	st_pcap(s, f, len, now);
	return s->io->send(s->io->ctx, f, len);
}

static void req_event(void *ctx, const struct roce_qp_event *ev)
{
	struct st_qp *q = ctx;
	struct st_rq *rq = q->rq;
	unsigned type = ROCE_AETH_TYPE(ev->value), val = ROCE_AETH_VALUE(ev->value);

	if (ev->type == ROCE_QPE_NAK_TX && type == ROCE_AETH_NAK && val == ROCE_NAK_PSN_SEQ_ERR &&
	    !rq->nak_on) {
		rq->nak_on = 1;
		rq->nak_psn = ev->psn;
		rq->nak_t = ev->now;
	} else if (ev->type == ROCE_QPE_NAK_TX && type == ROCE_AETH_RNR_NAK) {
		rq->rnr_on = 1;
		rq->rnr_psn = ev->psn;
		rq->rnr_t = ev->now;
		q->s->res->rnr_ns = (uint64_t)roce_rnr_timer_us((uint8_t)val) * 1000;
	} else if (ev->type == ROCE_QPE_FAULT &&
		   (ev->value == ROCE_QPF_DROP || ev->value == ROCE_QPF_CORRUPT)) {
		/* a NAK that never arrives is not answered: its PSN comes back by timeout */
		if (rq->nak_on && rq->nak_psn == ev->psn && rq->nak_t == ev->now)
			rq->nak_on = 0;
		if (rq->rnr_on && rq->rnr_psn == ev->psn && rq->rnr_t == ev->now)
			rq->rnr_on = 0;
		if (!rq->drop_on) {
			rq->drop_on = 1;
			rq->drop_t = ev->now;
		}
	}
}

/* A SEND received: the next SEND of the schedule, byte for byte. */
static void req_complete(void *ctx, const struct roce_wc *wc)
{
	struct st_qp *q = ctx;
	struct st_run *s = q->s;
	struct st_rq *rq = q->rq;
	unsigned i = qidx(s, q);
	uint64_t k = rq->k_recv;
	char msg[200];

	if (!wc->recv || !(s->o->ops & CTL_WL_SEND))
		return;
	while (st_wl_op(s, i, k) != CTL_WL_SEND)
		k++;
	rq->k_recv = k + 1;
	if (rq->nrepost < RQ_MAX)
		rq->repost[rq->nrepost++] = (unsigned)wc->wr_id;
	if (wc->status != ROCE_WC_SUCCESS || wc->byte_len != st_wl_len(s, i, k)) {
		snprintf(msg, sizeof(msg), "qp %u psn %u send (message %" PRIu64 "): receive %s, %u bytes, expected %u",
			 i, wc->psn, k, roce_wc_status_name(wc->status), wc->byte_len, st_wl_len(s, i, k));
		st_req_fail(s, q, 1, msg);
		return;
	}
	st_req_check_bytes(s, q, k, "send", wc->psn, rq->rbuf + wc->wr_id * s->slot, wc->byte_len);
}

/* ---- setup ---- */

static int req_engine(struct st_run *s, struct st_qp *q, unsigned i, uint32_t dut_psn)
{
	const struct st_opts *o = s->o;
	struct st_rq *rq = q->rq;
	struct roce_qp_attr a;
	struct roce_qp_ops ops = { req_tx, req_complete, req_event, q };
	struct roce_mr mr;

	st_attr_base(s, q, dut_psn, &a);
	a.min_rnr_timer = o->min_rnr;
	a.sq_depth = 1;
	a.rq_depth = 2 * o->qd;
	a.max_dest_rd_atomic = 16;
	if (st_qp_open(s, q, i, &a, &ops))
		return -1;
	mr = (struct roce_mr){ rq->rkey, rq->va, rq->mem, s->slot * (o->qd + 1ull) + 8,
			       ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC };
	if (roce_qp_reg_mr(q->qp, &mr))
		return snprintf(s->res->first_error, sizeof(s->res->first_error), "qp %u: reg_mr", i), -1;
	for (unsigned b = 0; b < 2 * o->qd; b++)
		roce_qp_post_recv(q->qp, b, rq->rbuf + (size_t)b * s->slot, s->slot, 0);
	st_qp_faults(s, q, i);
	return 0;
}

static int req_setup_qp(struct st_run *s, unsigned i, uint64_t *rng)
{
	const struct st_opts *o = s->o;
	struct st_qp *q = &s->qp[i];
	struct st_rq *rq;
	uint32_t dut_psn;
	char rep[512];

	q->s = s;
	q->hkey = UINT64_MAX;
	q->qpn = ST_QPN0 + i;
	q->psn0 = (uint32_t)(st_mix(*rng += 0x77) & 0xffffff);
	dut_psn = st_first_psn(rng, i);   /* every fourth wraps past 2^24 - 1 */
	if (!(rq = q->rq = calloc(1, sizeof(*rq))) ||
	    !(rq->mem = calloc(1, s->slot * (o->qd + 1ull) + 8)) ||
	    !(rq->rbuf = malloc((size_t)s->slot * 2 * o->qd)))
		return snprintf(s->res->first_error, sizeof(s->res->first_error), "no memory"), -1;
	rq->rkey = 0x5000u + i;
	rq->va = 0x100000000ull * (i + 1);
	rq->rng = st_mix(o->seed ^ 0x105eull ^ ((uint64_t)i << 20));
	rq->psn_exec = dut_psn;
	ctl_wl_fill(o->seed, i, UINT64_MAX, 0, rq->mem, s->slot);
	if (st_ctl(s, rep, sizeof(rep), "qp depth=%u", 2 * o->qd))
		return -1;
	q->dut_qp = (unsigned)ctl_u64(rep, "qp", 0);
	q->dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
	if (st_ctl(s, rep, sizeof(rep), "mr len=%" PRIu64 " access=wra qp=%u", (uint64_t)s->slot * o->qd,
		   q->dut_qp))
		return -1;
	q->dut_mr = (unsigned)ctl_u64(rep, "mr", 0);
	if (st_ctl(s, rep, sizeof(rep),
		   "connect qp=%u rqpn=0x%x rpsn=%u psn=%u rgid=%s mtu=%u timeout=%u retry=7 rnr_retry=%u",
		   q->dut_qp, q->qpn, q->psn0, dut_psn, o->our_gid, o->mtu, o->timeout, o->rnr_retry))
		return -1;
	return req_engine(s, q, i, dut_psn);
}

/* Every QP's `load`, LOAD_BATCH to a control line. */
static int start_loads(struct st_run *s)
{
	const struct st_opts *o = s->o;
	static char req[CTL_LINE_MAX], rep[CTL_LINE_MAX];

	for (unsigned i = 0; i < s->n; i += LOAD_BATCH) {
		size_t n = (size_t)snprintf(req, sizeof(req), "multi");

		for (unsigned j = i; j < s->n && j < i + LOAD_BATCH; j++) {
			struct st_qp *q = &s->qp[j];

			n += (size_t)snprintf(req + n, sizeof(req) - n,
					      "%s load qp=%u mr=%u rva=0x%" PRIx64 " rkey=0x%x n=%" PRIu64
					      " dur_ms=%" PRIu64 " qd=%u ops=%u min=%u max=%u seed=%" PRIu64 " idx=%u",
					      j > i ? " ;" : "", q->dut_qp, q->dut_mr, q->rq->va, q->rq->rkey,
					      o->duration_ns ? 0 : o->messages, o->duration_ns / 1000000, o->qd,
					      o->ops, o->size_min, o->size_max, o->seed, j);
		}
		if (s->io->ctl(s->io->ctx, req, rep, sizeof(rep)) || strstr(rep, "err"))
			return snprintf(s->res->first_error, sizeof(s->res->first_error), "load: %.200s", rep), -1;
	}
	return 0;
}

int st_req_setup(struct st_run *s)
{
	const struct st_opts *o = s->o;
	uint64_t rng = st_mix(o->seed);

	s->slot = (o->size_max + 7) & ~7u;
	if (!(s->qp = calloc(s->n, sizeof(*s->qp))) || !(s->tmp = malloc(s->slot > 8192 ? s->slot : 8192)) ||
	    !(s->rules = calloc((size_t)s->n * STF_EXACT, sizeof(*s->rules))) ||
	    !(s->faults = calloc(s->n, sizeof(*s->faults))))
		return snprintf(s->res->first_error, sizeof(s->res->first_error), "no memory"), -1;
	s->res->timeout_ns = 4096ull << o->timeout;
	s->res->rnr_ns = (uint64_t)roce_rnr_timer_us(o->min_rnr) * 1000;
	st_fault_rules(s, ROCE_QPF_RSP);
	for (unsigned i = 0; i < s->n; i++)
		if (req_setup_qp(s, i, &rng))
			return -1;
	return start_loads(s);
}
