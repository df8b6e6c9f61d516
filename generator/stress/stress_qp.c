/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_qp.c — one QP of `rocegen stress`: its setup on both sides, the
 * workload it posts, and the callbacks of rocegen's engine: every frame it
 * sends passes st_tx (exact events, metrics, the wire model), every
 * completion is checked byte for byte against the pattern of its message.
 *
 * The adapter's MR of a QP (S = the largest size, rounded up to 8):
 *   [0, S)               read area, filled with the QP's read pattern
 *   [S, S + qd·S)        write slots, message idx → slot idx % qd
 *   [S + qd·S, S + 2qd·S) receive buffers, the k-th SEND → buffer k % qd
 *   [S + 2qd·S, +8)      the atomic word
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stress.h"
#include "stress_int.h"
#include "ctl.h"

#define READ_AREA_MSG UINT64_MAX   /* the pattern "message" of the read area */

static uint64_t off_write(const struct st_run *s, uint32_t k)
{
	return s->slot + (uint64_t)k * s->slot;
}

uint64_t st_off_recv(const struct st_run *s, uint32_t k)
{
	return s->slot + (uint64_t)(s->o->qd + k) * s->slot;
}

uint64_t st_off_atomic(const struct st_run *s)
{
	return s->slot + 2ull * s->o->qd * s->slot;
}

static unsigned qidx(const struct st_run *s, const struct st_qp *q)
{
	return (unsigned)(q - s->qp);
}

static void fail_qp(struct st_run *s, struct st_qp *q, int integrity, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail_qp(struct st_run *s, struct st_qp *q, int integrity, const char *fmt, ...)
{
	struct st_result *r = s->res;
	unsigned i = qidx(s, q);
	va_list ap;

	if (integrity)
		r->integrity_errors++;
	if (!r->first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(r->first_error, sizeof(r->first_error), fmt, ap);
		va_end(ap);
	}
	if (s->o->verbose) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	st_mark_failing(r, i);
}

void st_mark_failing(struct st_result *r, unsigned i)
{
	for (unsigned k = 0; k < r->n_failing; k++)
		if (r->failing_qp[k] == i)
			return;
	if (r->n_failing < sizeof(r->failing_qp) / sizeof(r->failing_qp[0]))
		r->failing_qp[r->n_failing++] = i;
}

/* ---- frames rocegen sends ---- */

static int is_request(uint8_t opcode)
{
	return (opcode >> 5) == 0 && ((opcode & 0x1f) < 0x0d || (opcode & 0x1f) > 0x12);
}

static void tx_metrics(struct st_run *s, struct st_qp *q, const struct roce_pkt *p, uint64_t now)
{
	int icrc_ok = 1;
	uint64_t before = q->w.episodes;
	uint32_t epsn = q->w.epsn;

	if (q->gap && p->psn == q->gap_psn) {
		if (q->gap_skip) {
			q->gap_skip--;
			if (!q->gap_retx)
				q->gap = 0;
		} else {
			st_dist_add(&s->res->m[STM_RETX], now - q->gap_t);
			q->gap = 0;
		}
	}
	if (p->ecn == 3)
		q->ce_since_cnp = 1;
	if (p->ecn == 3 && !q->ce) {
		q->ce = 1;
		q->ce_t = now;
	}
	if (s->o->ppm[STF_CORRUPT])
		icrc_ok = roce_icrc_verify(p, NULL) != ROCE_ICRC_BAD;
	{
		uint64_t dup = q->w.dup;

		st_wire_req(&q->w, p, (uint16_t)s->o->mtu, icrc_ok);
		if (q->tmo_on && ((p->psn - q->tmo_from) & 0xffffff) < ((q->tmo_to - q->tmo_from) & 0xffffff))
			q->tmo_dup += q->w.dup - dup;
		else
			q->tmo_on = 0;   /* past the go-back-N: new packets again */
		if (((p->psn + 1 - q->next_new) & 0xffffff) < 0x800000)
			q->next_new = (p->psn + 1) & 0xffffff;
	}
	if (q->w.episodes != before) {   /* a new episode: the adapter should NAK epsn */
		if (q->ep_n == ST_EP_RING) {
			q->ep_h = (q->ep_h + 1) % ST_EP_RING;
			q->ep_n--;
		}
		q->ep[(q->ep_h + q->ep_n++) % ST_EP_RING].epsn = epsn;
		q->ep[(q->ep_h + q->ep_n - 1) % ST_EP_RING].t = now;
	}
}

/* 1 to drop, 2 to send twice, 0 to send (every matching event counts the transmission) */
static int tx_event(struct st_run *s, struct st_qp *q, uint32_t psn, uint64_t now)
{
	const struct st_opts *o = s->o;
	int act = 0;

	for (unsigned k = 0; k < o->n_ev; k++) {
		struct st_event *e = &s->ev[k];

		if (e->qp != qidx(s, q) || e->fired || psn != ((q->psn0 + e->psn_off) & 0xffffff) ||
		    ++e->seen < e->iter)
			continue;
		e->fired = 1;
		s->res->faults[STF_EXACT]++;
		if (e->kind == STF_DROP)
			act = 1;
		else if (!act)
			act = 2;
	}
	if (act)
		q->fault_t = now ? now : 1;   /* an injected fault, as ROCE_QPE_FAULT */
	if (act == 1 && !q->gap) {
		q->gap = 1;
		q->gap_psn = psn;
		q->gap_t = now;
		q->gap_retx = 1;
		q->gap_skip = 0;
	}
	return act;
}

int st_tx(void *ctx, const uint8_t *f, uint32_t len)
{
	struct st_qp *q = ctx;
	struct st_run *s = q->s;
	uint64_t now = s->io->now(s->io->ctx);
	struct roce_pkt p;
	int ev = 0, rc;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
	if (p.bth_off && is_request(p.opcode)) {
		if ((ev = tx_event(s, q, p.psn, now)) == 1)
			return 0;
		tx_metrics(s, q, &p, now);
	}
	st_pcap(s, f, len, now);
	rc = s->io->send(s->io->ctx, f, len);
	if (ev == 2 && rc >= 0) {
		if (p.bth_off)
			tx_metrics(s, q, &p, now);
		st_pcap(s, f, len, now);
		rc = s->io->send(s->io->ctx, f, len);
	}
	return rc;
}

void st_event_cb(void *ctx, const struct roce_qp_event *ev)
{
	struct st_qp *q = ctx;
	struct st_run *s = q->s;

	if (s->o->verbose > 1)
		fprintf(stderr, "qp %u event %d psn %u value %llu at %llu\n", qidx(s, q), ev->type,
			ev->psn, (unsigned long long)ev->value, (unsigned long long)ev->now);
	switch (ev->type) {
	case ROCE_QPE_RETRANSMIT: {
		uint32_t ahead = (q->w.epsn - ev->psn) & 0xffffff;
		/* an injected fault within two ACK timeouts may explain it (a delayed or
		 * reordered frame, an injected loss the engine recovers by timer) */
		uint64_t window = 2 * (4096ull << s->o->timeout);
		int injected = q->fault_t && ev->now - q->fault_t < window;

		q->tmo_on = ev->value == ROCE_RETX_TIMEOUT && ahead && ahead < 0x800000 && !injected;
		if (q->tmo_on) {
			q->tmo_from = ev->psn;
			q->tmo_to = q->next_new;
			q->tmo_episodes++;
			q->tmo_oos += st_wire_pkts_since(&q->w, ev->psn) - 1;
		}
		break;
	}
	case ROCE_QPE_FAULT:
		q->fault_t = ev->now ? ev->now : 1;
		if (ev->value == ROCE_QPF_DUP || ev->value == ROCE_QPF_ECN_CE)
			break;
		if (q->gap) {
			if (ev->psn == q->gap_psn && ev->value != ROCE_QPF_DROP)
				q->gap_skip++;
			break;
		}
		q->gap = 1;
		q->gap_psn = ev->psn;
		q->gap_t = ev->now;
		q->gap_retx = ev->value == ROCE_QPF_DROP || ev->value == ROCE_QPF_CORRUPT;
		q->gap_skip = ev->value != ROCE_QPF_DROP;
		break;
	case ROCE_QPE_NAK_RX:
		if (ROCE_AETH_TYPE(ev->value) != ROCE_AETH_NAK ||
		    ROCE_AETH_VALUE(ev->value) != ROCE_NAK_PSN_SEQ_ERR)
			break;
		q->wire_nak++;
		{
			/* no episode of the wire model asks for this NAK and its PSN is behind
			 * the PSN the adapter should expect: a request lost on the path (or in
			 * the adapter), not by a fault of rocegen's.  The adapter saw the
			 * packets after it out of sequence, and sees the go-back-N resend in
			 * order: the wire model follows. */
			uint32_t back = (q->w.epsn - ev->psn) & 0xffffff;
			int expected = 0;

			for (unsigned i = 0; i < q->ep_n; i++)
				expected |= q->ep[(q->ep_h + i) % ST_EP_RING].epsn == ev->psn;
			/* (a NAK repeated for the PSN of the last one is the adapter's
			 * repetition, nak_per_episode's business, not a new loss) */
			if (!expected && back && back < 0x800000 && !(q->nak_seen && q->nak_psn == ev->psn)) {
				q->path_loss++;
				q->w.oos += st_wire_pkts_since(&q->w, ev->psn) - 1;
				q->w.episodes++;
				q->w.epsn = ev->psn;
				q->w.oos_latched = 1;
			}
			q->nak_seen = 1;
			q->nak_psn = ev->psn;
		}
		while (q->ep_n) {              /* the episode this NAK answers (its PSN) */
			int match = q->ep[q->ep_h].epsn == ev->psn;

			if (match)
				st_dist_add(&s->res->m[STM_NAK_GEN], s->rx_ts - q->ep[q->ep_h].t);
			q->ep_h = (q->ep_h + 1) % ST_EP_RING;
			q->ep_n--;
			if (match)
				break;
		}
		break;
	case ROCE_QPE_CNP_RX:
		q->wire_cnp++;
		if (q->ce)
			st_dist_add(&s->res->m[STM_CNP_GEN], s->rx_ts - q->ce_t);
		q->ce = 0;
		if (q->cnp_last_t && q->ce_since_cnp)
			st_dist_add(&s->res->m[STM_CNP_PACING], s->rx_ts - q->cnp_last_t);
		q->cnp_last_t = s->rx_ts;
		q->ce_since_cnp = 0;
		break;
	default:
		break;
	}
}

/* ---- integrity ---- */

/* A control request of a check; its round trip on the wall clock goes into
 * control_rtt_us (what rocegen's loop waits per check). */
static int qctl(struct st_run *s, const char *req, char *rep, size_t cap)
{
	struct timespec a, b;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = s->io->ctl(s->io->ctx, req, rep, cap);
	clock_gettime(CLOCK_MONOTONIC, &b);
	st_dist_add(&s->res->ctl_rtt, (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000ll +
						 (b.tv_nsec - a.tv_nsec)));
	return rc;
}

/* The adapter's bytes [off, off+len) of its MR mr against want; 0 when equal. */
static int check_remote(struct st_run *s, struct st_qp *q, unsigned mr, const char *what, uint32_t psn,
			uint64_t off, const uint8_t *want, uint32_t len)
{
	char rep[CTL_RD_MAX * 2 + 64], req[128];
	uint64_t got;

	snprintf(req, sizeof(req), "sum mr=%u off=%" PRIu64 " len=%u", mr, off, len);
	if (qctl(s, req, rep, sizeof(rep)))
		return fail_qp(s, q, 0, "qp %u: %s: %s", qidx(s, q), req, rep), -1;
	got = ctl_u64(rep, "sum", 0);
	if (got == st_sum(want, len))
		return 0;
	for (uint32_t o = 0; o < len; o += 2048) {
		uint32_t n = len - o < 2048 ? len - o : 2048;

		snprintf(req, sizeof(req), "rd mr=%u off=%" PRIu64 " len=%u", mr, off + o, n);
		if (qctl(s, req, rep, sizeof(rep)) || strncmp(rep, "ok hex=", 7) ||
		    ctl_unhex(rep + 7, s->tmp, n) != (long)n)
			break;
		for (uint32_t j = 0; j < n; j++)
			if (s->tmp[j] != want[o + j])
				return fail_qp(s, q, 1,
					       "qp %u psn %u %s: byte %u is 0x%02x, expected 0x%02x",
					       qidx(s, q), (psn + (o + j) / s->o->mtu) & 0xffffff, what, o + j,
					       s->tmp[j], want[o + j]), -1;
	}
	return fail_qp(s, q, 1, "qp %u psn %u %s: checksum 0x%" PRIx64 ", expected 0x%" PRIx64,
		       qidx(s, q), psn, what, got, st_sum(want, len)), -1;
}

/* One round trip (multi): the adapter's receive completion, the checksum of
 * the receive buffer, and the receive posted again. */
static void check_send(struct st_run *s, struct st_qp *q, const struct st_msg *m, uint32_t psn,
		       const uint8_t *buf)
{
	char req[320], rep[512], wc[96] = "", *part[3] = { rep, NULL, NULL };
	unsigned long long wr = 0;
	unsigned blen = 0;
	char st[32] = "", op[16] = "";
	uint64_t off = st_off_recv(s, m->slot);

	snprintf(req, sizeof(req),
		 "multi poll qp=%u max=1 ; sum mr=%u off=%" PRIu64 " len=%u ; recv qp=%u mr=%u len=%u off=%"
		 PRIu64 " n=1 wr=%u", q->dut_qp, q->dut_mr, off, m->len, q->dut_qp, q->dut_mr, s->slot, off,
		 m->slot);
	qctl(s, req, rep, sizeof(rep));
	for (int k = 1; k < 3 && part[k - 1]; k++)
		if ((part[k] = strstr(part[k - 1], " ; ")))
			*part[k] = 0, part[k] += 3;
	if (!part[2] || strncmp(part[2], "ok", 2))
		fail_qp(s, q, 0, "qp %u: %s: %s", qidx(s, q), req, part[2] ? part[2] : rep);
	if (ctl_u64(rep, "n", 0) != 1 || !ctl_get(rep, "wc", wc, sizeof(wc)) ||
	    sscanf(wc, "%llu,%31[^,],%15[^,],%u", &wr, st, op, &blen) != 4) {
		fail_qp(s, q, 1, "qp %u psn %u send: no receive completion on the adapter (%s)",
			qidx(s, q), psn, rep);
		return;
	}
	if (wr != m->slot || strcmp(st, "success") || blen != m->len) {
		fail_qp(s, q, 1, "qp %u psn %u send: receive completion %s, expected %u,success,recv,%u",
			qidx(s, q), psn, wc, m->slot, m->len);
		return;
	}
	if (!part[1] || ctl_u64(part[1], "sum", 0) != st_sum(buf, m->len))
		check_remote(s, q, q->dut_mr, "send", psn, off, buf, m->len);   /* names the byte */
}

static void check_msg(struct st_run *s, struct st_qp *q, const struct st_msg *m, const struct roce_wc *wc)
{
	uint8_t *buf = q->bufs + (m->idx % s->o->qd) * s->slot;

	if (s->o->nocheck)
		return;
	switch (m->op) {
	case ST_SEND:
		check_send(s, q, m, wc->psn, buf);
		break;
	case ST_WRITE:
		if (m->xmr)
			check_remote(s, q, q->xmr[m->xmr - 1].id, "write", wc->psn, 0, buf, m->len);
		else
			check_remote(s, q, q->dut_mr, "write", wc->psn,
				     off_write(s, (uint32_t)(m->idx % s->o->qd)), buf, m->len);
		break;
	case ST_READ:
		st_pattern(s->o->seed, qidx(s, q), READ_AREA_MSG, m->roff, s->tmp, m->len);
		for (uint32_t j = 0; j < m->len; j++)
			if (buf[j] != s->tmp[j]) {
				fail_qp(s, q, 1, "qp %u psn %u read: byte %u is 0x%02x, expected 0x%02x",
					qidx(s, q), (wc->psn + j / s->o->mtu) & 0xffffff, j, buf[j], s->tmp[j]);
				break;
			}
		break;
	case ST_ATOMIC:
		if (wc->orig != m->expect)
			fail_qp(s, q, 1, "qp %u psn %u atomic: original 0x%" PRIx64 ", expected 0x%" PRIx64,
				qidx(s, q), wc->psn, wc->orig, m->expect);
		break;
	}
}

void st_complete(void *ctx, const struct roce_wc *wc)
{
	struct st_qp *q = ctx;
	struct st_run *s = q->s;
	struct st_msg *m = &q->ring[wc->wr_id % s->o->qd];

	q->completed++;
	if (wc->status != ROCE_WC_SUCCESS) {
		if (!q->err)
			fail_qp(s, q, 0, "qp %u psn %u %s: completion %s", qidx(s, q), wc->psn,
				st_op_names[m->op], roce_wc_status_name(wc->status));
		q->err = 1;
	} else {
		check_msg(s, q, m, wc);
		s->res->messages++;
		s->res->by_op[m->op]++;
		s->res->bytes += m->len;
		q->bytes += m->len;
		st_tput_add(s, qidx(s, q), m->len, s->io->now(s->io->ctx));
		st_dist_add(&s->res->m[STM_LAT_SEND + m->op], wc->latency_ns);
		if (s->o->victim && q == s->qp)
			st_dist_add(&s->res->vlat[s->switched], wc->latency_ns);
	}
	if (!q->in_ready) {
		q->in_ready = 1;
		s->ready[s->nready++] = qidx(s, q);
	}
}
