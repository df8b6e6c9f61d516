/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_setup.c — `rocegen stress`: QPs set up on both sides, the workload
 * each QP posts, and what is gathered at the end (final atomic words, fault
 * counts, the adapter's counters).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress.h"
#include "stress_int.h"
#include "ctl.h"

/* the engine's fault kind of each --faults kind (lose: none, rocegen drops on receipt) */
const uint8_t st_fault_kind[STF_EXACT] = { ROCE_QPF_DROP, ROCE_QPF_DUP, ROCE_QPF_REORDER,
					   ROCE_QPF_CORRUPT, ROCE_QPF_ECN_CE, ROCE_QPF_DELAY,
					   ROCE_QPF_RNR, ROCE_QPF__COUNT };

uint64_t st_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int st_ctl(struct st_run *s, char *rep, size_t cap, const char *fmt, ...)
{
	char req[CTL_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	if (s->io->ctl(s->io->ctx, req, rep, cap)) {
		snprintf(s->res->first_error, sizeof(s->res->first_error), "control: %.60s: %.150s", req,
			 rep);
		return -1;
	}
	return 0;
}

/* the first PSN of QP i: every fourth starts just below 2^24 (wraparound) */
uint32_t st_first_psn(uint64_t *rng, unsigned i)
{
	uint64_t x = st_mix(*rng += 0x51);

	return i % 4 == 1 ? 0xffffff - (uint32_t)(x % 16) : (uint32_t)(x & 0xffffff);
}

void st_attr_base(const struct st_run *s, const struct st_qp *q, uint32_t dut_psn, struct roce_qp_attr *a)
{
	const struct st_opts *o = s->o;

	roce_qp_attr_default(a);
	a->qpn = q->qpn;
	a->remote_qpn = q->dut_qpn;
	a->sq_psn = q->psn0;
	a->rq_psn = dut_psn;
	a->mtu = (uint16_t)o->mtu;
	a->max_mr = 1;
	a->fault_slots = o->ppm[STF_REORDER] || o->ppm[STF_DELAY] ? 16 : 0;   /* 4.3 KB each */
	a->eth = o->eth;
	a->ip = o->ip;
}

int st_qp_open(struct st_run *s, struct st_qp *q, unsigned i, const struct roce_qp_attr *a,
	       const struct roce_qp_ops *ops)
{
	size_t sz = roce_qp_mem_size(a);

	if (!sz || !(q->mem = malloc(sz)) || roce_qp_init(&q->qp, q->mem, sz, a, ops)) {
		snprintf(s->res->first_error, sizeof(s->res->first_error), "qp %u: bad attributes", i);
		return -1;
	}
	return 0;
}

void st_qp_faults(struct st_run *s, struct st_qp *q, unsigned i)
{
	struct roce_qp_faults *f = &s->faults[i];

	if (!s->n_rules)
		return;
	f->seed = st_mix(s->o->seed ^ ((uint64_t)i << 32));
	f->rules = &s->rules[i * s->n_rules];
	f->n_rules = s->n_rules;
	roce_qp_set_faults(q->qp, f);
}

static int engine(struct st_run *s, struct st_qp *q, unsigned i, uint32_t dut_psn)
{
	struct roce_qp_attr a;
	struct roce_qp_ops ops = { st_tx, st_complete, st_event_cb, q };

	st_attr_base(s, q, dut_psn, &a);
	a.timeout = s->o->timeout;
	a.rnr_retry = s->o->rnr_retry;
	a.sq_depth = s->o->qd;
	a.rq_depth = 1;
	if (st_qp_open(s, q, i, &a, &ops))
		return -1;
	st_qp_faults(s, q, i);
	return 0;
}

static int fill_read_area(struct st_run *s, struct st_qp *q, unsigned i)
{
	static char hex[2 * 4096 + 1];
	char rep[256];

	for (uint32_t o = 0; o < s->slot; o += 4096) {
		uint32_t n = s->slot - o < 4096 ? s->slot - o : 4096;

		st_pattern(s->o->seed, i, UINT64_MAX, o, s->tmp, n);
		ctl_hex(s->tmp, n, hex);
		if (st_ctl(s, rep, sizeof(rep), "wr mr=%u off=%u hex=%s", q->dut_mr, o, hex))
			return -1;
	}
	memset(s->tmp, 0, 8);
	ctl_hex(s->tmp, 8, hex);
	return st_ctl(s, rep, sizeof(rep), "wr mr=%u off=%" PRIu64 " hex=%s", q->dut_mr, st_off_atomic(s),
		   hex);
}

#define ST_XMR_LEN 4096u
#define ST_XMR_BATCH 64u            /* MRs registered per control round trip (multi) */

/* o->xmrs MRs of ST_XMR_LEN for attacker QP q, registered ST_XMR_BATCH at a time */
static int setup_xmrs(struct st_run *s, struct st_qp *q)
{
	unsigned n = s->o->xmrs;
	char req[ST_XMR_BATCH * 32], *rep;

	if (n % s->o->qd)
		return snprintf(s->res->first_error, sizeof(s->res->first_error),
				"%u extra MRs per QP: not a multiple of the depth %u", n, s->o->qd), -1;
	if (!(q->xmr = calloc(n, sizeof(*q->xmr))) || !(rep = malloc(CTL_LINE_MAX)))
		return snprintf(s->res->first_error, sizeof(s->res->first_error), "no memory"), -1;
	while (q->n_xmr < n) {
		unsigned k = n - q->n_xmr < ST_XMR_BATCH ? n - q->n_xmr : ST_XMR_BATCH;
		size_t o = (size_t)snprintf(req, sizeof(req), "multi");
		char *part = rep;

		for (unsigned j = 0; j < k; j++)
			o += (size_t)snprintf(req + o, sizeof(req) - o, "%s mr len=%u access=w", j ? " ;" : "",
					      ST_XMR_LEN);
		if (st_ctl(s, rep, CTL_LINE_MAX, "%s", req)) {
			free(rep);
			return -1;
		}
		for (unsigned j = 0; j < k; j++, q->n_xmr++) {
			struct st_xmr *x = &q->xmr[q->n_xmr];
			char *next = part ? strstr(part, " ; ") : NULL;

			if (next)
				*next = 0;
			if (!part || strncmp(part, "ok", 2) || !(x->id = (unsigned)ctl_u64(part, "mr", 0))) {
				snprintf(s->res->first_error, sizeof(s->res->first_error),
					 "control: mr %u of %u: %.150s", q->n_xmr + 1, n, part ? part : "no reply");
				free(rep);
				return -1;
			}
			x->rkey = (uint32_t)ctl_u64(part, "rkey", 0);
			x->va = ctl_u64(part, "va", 0);
			part = next ? next + 3 : NULL;
		}
	}
	free(rep);
	return 0;
}

static int setup_qp(struct st_run *s, unsigned i, uint64_t *rng)
{
	const struct st_opts *o = s->o;
	struct st_qp *q = &s->qp[i];
	uint64_t mrlen = st_off_atomic(s) + 8;
	uint32_t dut_psn;
	char rep[512], rnr[32] = "";
	int attacker = o->victim && i > 0, sink = attacker && o->sink_recvs;

	q->s = s;
	q->hkey = UINT64_MAX;
	q->qpn = ST_QPN0 + i;
	q->psn0 = st_first_psn(rng, i);
	q->w.epsn = q->psn0;
	q->next_new = q->psn0;
	q->rng = st_mix(o->seed ^ st_mix(i + 1));
	dut_psn = (uint32_t)(st_mix(*rng += 0x77) & 0xffffff);
	if (!(q->ring = calloc(o->qd, sizeof(*q->ring))) || !(q->bufs = calloc(o->qd, s->slot)))
		return snprintf(s->res->first_error, sizeof(s->res->first_error), "no memory"), -1;
	if (st_ctl(s, rep, sizeof(rep), "qp depth=%u", 2 * o->qd))
		return -1;
	q->dut_qp = (unsigned)ctl_u64(rep, "qp", 0);
	q->dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
	if (st_ctl(s, rep, sizeof(rep), "mr len=%" PRIu64 " access=wra qp=%u", mrlen, q->dut_qp))
		return -1;
	q->dut_mr = (unsigned)ctl_u64(rep, "mr", 0);
	q->rkey = (uint32_t)ctl_u64(rep, "rkey", 0);
	q->va = ctl_u64(rep, "va", 0);
	if (sink)   /* the RNR timer the adapter's RNR NAKs carry */
		snprintf(rnr, sizeof(rnr), " min_rnr=%u", o->min_rnr);
	if (st_ctl(s, rep, sizeof(rep),
		"connect qp=%u rqpn=0x%x rpsn=%u psn=%u rgid=%s mtu=%u timeout=%u retry=7 rnr_retry=%u%s",
		q->dut_qp, q->qpn, q->psn0, dut_psn, o->our_gid, o->mtu, o->timeout, o->rnr_retry, rnr) ||
	    fill_read_area(s, q, i) ||
	    st_ctl(s, rep, sizeof(rep), "recv qp=%u mr=%u len=%u off=%" PRIu64 " n=%u wr=0%s", q->dut_qp,
		q->dut_mr, s->slot, st_off_recv(s, 0), sink ? o->sink_recvs : o->qd, sink ? " sink=1" : "") ||
	    (attacker && o->xmrs && setup_xmrs(s, q)))
		return -1;
	return engine(s, q, i, dut_psn);
}

void st_fault_rules(struct st_run *s, int match)
{
	const struct st_opts *o = s->o;

	for (int k = 0; k < STF_EXACT; k++) {
		struct roce_qpf_rule *r;

		if (!o->ppm[k] || k == STF_LOSE)
			continue;
		r = &s->rules[s->n_rules++];
		memset(r, 0, sizeof(*r));
		r->kind = st_fault_kind[k];
		r->match = (uint8_t)(k == STF_RNR ? ROCE_QPF_REQ : match);
		r->opcode = -1;
		r->ppm = o->ppm[k];
		r->delay_ns = o->delay_ns;
	}
	for (unsigned i = 1; i < s->n; i++)
		memcpy(&s->rules[i * s->n_rules], s->rules, s->n_rules * sizeof(*s->rules));
}

void st_read_counters(struct st_run *s, uint64_t *v, int *have)
{
	static const char *const key[STC_N] = { "duplicate_request", "out_of_seq_request",
						"seq_nak_sent", "np_cnp_sent" };
	char rep[2048];

	if (s->io->ctl(s->io->ctx, "counters", rep, sizeof(rep)))
		return;
	for (int k = 0; k < STC_N; k++) {
		have[k] = ctl_has(rep, key[k]);
		v[k] = ctl_u64(rep, key[k], 0);
	}
	ctl_get(rep, "driver", s->res->driver, sizeof(s->res->driver));
}

int st_setup(struct st_run *s)
{
	const struct st_opts *o = s->o;
	uint64_t rng = st_mix(o->seed);

	s->slot = ((o->victim_size > o->size_max ? o->victim_size : o->size_max) + 7) & ~7u;
	memcpy(s->ev, o->ev, sizeof(s->ev));
	if (!(s->qp = calloc(s->n, sizeof(*s->qp))) || !(s->ready = calloc(s->n, sizeof(*s->ready))) ||
	    !(s->tmp = malloc(s->slot > 8192 ? s->slot : 8192)) ||
	    !(s->rules = calloc((size_t)s->n * STF_EXACT, sizeof(*s->rules))) ||
	    !(s->faults = calloc(s->n, sizeof(*s->faults))))
		return snprintf(s->res->first_error, sizeof(s->res->first_error), "no memory"), -1;
	st_fault_rules(s, ROCE_QPF_REQ);
	for (unsigned i = 0; i < s->n; i++)
		if (setup_qp(s, i, &rng))
			return -1;
	st_read_counters(s, s->cnt0, s->cnt_have);
	for (unsigned i = 0; i < s->n; i++) {
		s->qp[i].in_ready = 1;
		s->ready[s->nready++] = s->n - 1 - i;
	}
	return 0;
}

/* ---- the workload ---- */

static int more(struct st_run *s, struct st_qp *q, uint64_t now)
{
	if (q->err)
		return 0;
	if (s->o->duration_ns)
		return now - s->t0 < s->o->duration_ns;
	return q->posted < s->o->messages;
}

/* QP 0 with --victim and a victim workload of its own */
static int own_victim(const struct st_run *s, const struct st_qp *q)
{
	return s->o->victim && q == s->qp;
}

static enum st_op pick_op(struct st_run *s, struct st_qp *q)
{
	unsigned n = 0, ops[ST_N_OPS], k;
	unsigned mask = own_victim(s, q) && s->o->victim_ops ? s->o->victim_ops : s->o->ops;

	for (k = 0; k < ST_N_OPS; k++)
		if (mask & (1u << k))
			ops[n++] = k;
	return (enum st_op)ops[st_mix(q->rng += 0x1234567) % n];
}

static void build(struct st_run *s, struct st_qp *q, struct st_msg *m, struct roce_wr *w, uint8_t *buf)
{
	const struct st_opts *o = s->o;
	unsigned i = (unsigned)(q - s->qp);
	uint64_t x = st_mix(q->rng += 0x9e3779b9);

	w->buf = buf;
	w->rkey = q->rkey;
	switch (m->op) {
	case ST_SEND:
	case ST_WRITE:
		st_pattern(o->seed, i, m->idx, 0, buf, m->len);
		w->op = m->op == ST_SEND ? ROCE_WR_SEND : ROCE_WR_WRITE;
		m->slot = m->op == ST_SEND ? (uint32_t)(q->sends++ % o->qd) : (uint32_t)(m->idx % o->qd);
		w->remote_va = q->va + s->slot + (uint64_t)m->slot * s->slot;
		if (m->op == ST_WRITE && q->n_xmr && m->len <= ST_XMR_LEN) {
			/* an MR congruent to the slot: the WRITEs in flight never share one */
			uint32_t j = m->slot + o->qd * (uint32_t)(x % (q->n_xmr / o->qd));

			m->xmr = j + 1;
			w->rkey = q->xmr[j].rkey;
			w->remote_va = q->xmr[j].va;
		}
		break;
	case ST_READ:
		memset(buf, 0xee, m->len);
		m->roff = x % (s->slot - m->len + 1);
		w->op = ROCE_WR_READ;
		w->remote_va = q->va + m->roff;
		break;
	default:
		m->expect = q->atomic;
		w->remote_va = q->va + st_off_atomic(s);
		if (x & 1) {
			w->op = ROCE_WR_FETCH_ADD;
			w->swap_add = x >> 8;
			q->atomic += w->swap_add;
		} else {
			w->op = ROCE_WR_CMP_SWAP;
			w->compare = (x & 6) ? q->atomic : q->atomic ^ 1;   /* 1 in 4 fails */
			w->swap_add = st_mix(x);
			if (w->compare == q->atomic)
				q->atomic = w->swap_add;
		}
		break;
	}
	w->len = m->len;
}

void st_post_more(struct st_run *s, struct st_qp *q, uint64_t now)
{
	const struct st_opts *o = s->o;
	unsigned depth = own_victim(s, q) && o->victim_qd && o->victim_qd < o->qd ? o->victim_qd : o->qd;

	if (st_victim_waits(s, q, now))
		return;
	while (more(s, q, now) && q->posted - q->completed < depth) {
		struct st_msg *m = &q->ring[q->posted % o->qd];
		struct roce_wr w;

		memset(&w, 0, sizeof(w));
		memset(m, 0, sizeof(*m));
		m->idx = q->posted;
		m->op = (uint8_t)pick_op(s, q);
		m->len = m->op == ST_ATOMIC ? 8 : own_victim(s, q) && o->victim_size ? o->victim_size :
			 o->size_min + (uint32_t)(st_mix(q->rng += 0x3779) % (o->size_max - o->size_min + 1));
		w.wr_id = m->idx;
		build(s, q, m, &w, q->bufs + (m->idx % o->qd) * s->slot);
		if (roce_qp_post_send(q->qp, &w, now)) {
			snprintf(s->res->first_error, sizeof(s->res->first_error),
				 "qp %u: post_send failed", (unsigned)(q - s->qp));
			q->err = 1;
			break;
		}
		q->posted++;
	}
	if (!q->done && q->completed == q->posted && !more(s, q, now)) {
		q->done = 1;
		q->t_done = now;
		s->done++;
	}
}

void st_fail_all(struct st_run *s, const char *why)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!s->qp[i].done) {
			s->qp[i].err = 1;
			st_mark_failing(s->res, i);   /* its frames are the evidence (an endless RNR loop) */
			if (!s->res->first_error[0])
				snprintf(s->res->first_error, sizeof(s->res->first_error), "qp %u: %s", i,
					 why);
		}
}

/* ---- the end ---- */

static void final_atomic(struct st_run *s, struct st_qp *q)
{
	char rep[128];
	uint8_t b[8];
	uint64_t v;

	if (!(s->o->ops & (1u << ST_ATOMIC)) ||
	    st_ctl(s, rep, sizeof(rep), "rd mr=%u off=%" PRIu64 " len=8", q->dut_mr, st_off_atomic(s)) ||
	    ctl_unhex(rep + 7, b, 8) != 8)
		return;
	memcpy(&v, b, 8);
	if (v != q->atomic) {
		s->res->integrity_errors++;
		if (!s->res->first_error[0])
			snprintf(s->res->first_error, sizeof(s->res->first_error),
				 "qp %u atomic word: 0x%" PRIx64 ", expected 0x%" PRIx64,
				 (unsigned)(q - s->qp), v, q->atomic);
	}
}

void st_finish(struct st_run *s)
{
	struct st_result *r = s->res;
	double sum = 0, sq = 0;
	uint64_t cnt[STC_N] = { 0 };
	int have[STC_N] = { 0 };

	for (unsigned i = 0; i < s->n; i++) {
		struct st_qp *q = &s->qp[i];
		const struct roce_qp_stats *st = roce_qp_stats(q->qp);
		double rate;

		if (!q->err)
			final_atomic(s, q);
		r->qps_completed += q->done && !q->err;
		r->qps_error += q->err != 0;
		for (int k = 0; k < STF_LOSE; k++)
			r->faults[k] += st->faults[st_fault_kind[k]];
		for (int k = 0; k < ROCE_RETX__COUNT; k++) {
			r->retx_episodes[k] += st->retx_episodes[k];
			r->retx_pkts[k] += st->retx_pkts[k];
		}
		r->req_pkts += st->req_pkts;
		r->wire[STC_DUP] += q->w.dup;
		r->wire[STC_OOS] += q->w.oos;
		r->wire_episodes += q->w.episodes;
		r->psn_wraps += q->w.wraps != 0;
		r->wire[STC_NAK] += q->wire_nak;
		if (q->path_loss) {
			size_t n = strlen(r->path_loss_qps);

			if (n < sizeof(r->path_loss_qps) - 24)
				snprintf(r->path_loss_qps + n, sizeof(r->path_loss_qps) - n, "%sqp %u: %llu",
					 n ? ", " : "", i, (unsigned long long)q->path_loss);
			r->path_loss += q->path_loss;
		}
		if (q->tmo_episodes) {
			size_t n = strlen(r->tmo_qps);

			if (n < sizeof(r->tmo_qps) - 24)
				snprintf(r->tmo_qps + n, sizeof(r->tmo_qps) - n, "%sqp %u: %llu", n ? ", " : "", i,
					 (unsigned long long)q->tmo_episodes);
			r->tmo_episodes += q->tmo_episodes;
			r->tmo_dup += q->tmo_dup;
			r->tmo_oos += q->tmo_oos;
		}
		r->wire[STC_CNP] += q->wire_cnp;
		rate = q->t_done > s->t0 ? (double)q->completed / (double)(q->t_done - s->t0) : 0;
		sum += rate;
		sq += rate * rate;
	}
	r->fairness = sq > 0 ? sum * sum / (s->n * sq) : 0;
	st_read_counters(s, cnt, have);
	for (int k = 0; k < STC_N; k++) {
		r->have_adapter[k] = have[k] && s->cnt_have[k];
		r->adapter[k] = cnt[k] - s->cnt0[k];
	}
	st_pcap_finish(s);
}

void st_teardown(struct st_run *s)
{
	char rep[64];

	if (s->qp)
		s->io->ctl(s->io->ctx, "reset", rep, sizeof(rep));
	for (unsigned i = 0; s->qp && i < s->n; i++) {
		free(s->qp[i].mem);
		free(s->qp[i].ring);
		free(s->qp[i].bufs);
		free(s->qp[i].xmr);
	}
	free(s->qp);
	free(s->ready);
	free(s->tmp);
	free(s->rules);
	free(s->faults);
	free(s->heap);
}
