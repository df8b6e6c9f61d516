/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_ref.c — the reference adapter of `rocegen stress --reference`: one
 * lib/qp engine per QP (up to ST_MAX_QPS) behind the rocetarget control
 * protocol (target/ctl.h), on a simulated clock.  Frames rocegen sends go
 * straight into the engine of their destination QP; what the engines emit
 * comes back in time order after a fixed wire delay; waiting jumps the clock
 * to the next frame or engine deadline.  Everything is deterministic.
 *
 * Modes that break the spec on purpose, to show that FAIL is reachable:
 *   nakstorm  every NAK is sent twice
 *   bitflip   the adapter does not check the ICRC, and every 97th request
 *             carrying payload has one payload byte flipped on its way in
 *             (an integrity error at a known QP, PSN and offset)
 *
 * The congestion-control modes of `rocegen fingerprint` (cnp-qp, cnp-ip,
 * cnp-port, no-cc; stress.h): the engines send no CNP themselves; ref_send
 * answers a CE-marked request with a CNP when the pacing state of its
 * scope (the QP, the peer IP, the port) allows, ref_emit adds one to every
 * sequence NAK in cnp-qp.
 *
 * qpcache:N (stress.h): an LRU of N QP contexts; a miss holds everything
 * the adapter emits REF_QPC_MISS_NS more (r->busy), hits cost nothing.
 *
 * iso-shared, iso-fair (stress.h, stress_refiso.c): request processing that
 * costs time, shared by every QP or a stage per QP.
 *
 * pathloss: every REF_PATH_DROP-th request packet is lost on the path before
 * the adapter (rocegen stress must find the loss itself: path_loss).
 *
 * norecv: no receive is ever posted (`recv` answers ok, posts nothing), so
 * every SEND gets an RNR NAK (rocegen stress --rnr-retry).
 *
 * Extension for many QPs: `mr len= qp=ID` registers the MR only in that QP
 * (each engine holds at most 8 MRs); an MR without qp= goes into every QP.
 * `counters` sums the engines' statistics, per device as rxe does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress.h"
#include "ctl.h"

#include "stress_ref_int.h"

/* ---- the wire ---- */

static int ref_cnp_emit(struct st_ref *r, struct ref_qp *q, const uint8_t ip4[4]);
static int ref_cc_mode(const struct st_ref *r);
static void ref_complete(void *ctx, const struct roce_wc *wc);

static int ref_emit(void *ctx, const uint8_t *f, uint32_t len)
{
	struct st_ref *r = ((struct ref_qp *)ctx)->r;
	struct ref_frame *e;

	if (len > ROCE_QP_FRAME_MAX)
		return -1;
	if (r->qn == r->qcap) {
		size_t nc = r->qcap ? 2 * r->qcap : 1024;
		struct ref_frame *nq = malloc(nc * sizeof(*nq));
		uint8_t **np = realloc(r->pool, nc * sizeof(*np));

		if (np)
			r->pool = np;
		if (!nq || !np)
			return free(nq), -1;
		for (size_t i = 0; i < r->qn; i++)
			nq[i] = r->q[(r->qh + i) % r->qcap];
		free(r->q);
		r->q = nq;
		r->qh = 0;
		r->qcap = nc;
	}
	e = &r->q[(r->qh + r->qn) % r->qcap];
	e->d = r->npool ? r->pool[--r->npool] : malloc(ROCE_QP_FRAME_MAX);
	if (!e->d)
		return -1;
	memcpy(e->d, f, len);
	e->len = len;
	e->ts = (r->busy > r->now ? r->busy : r->now) + REF_WIRE_NS;
	if (refiso_mode(r)) {
		/* iso-fair: the victim's answer may overtake the attackers' (time order
		 * kept by moving it before the later ones) */
		size_t k = r->qn;
		struct ref_frame me = *e;

		me.ts = refiso_ready(r, ctx) + REF_WIRE_NS;
		for (; k && r->q[(r->qh + k - 1) % r->qcap].ts > me.ts; k--)
			r->q[(r->qh + k) % r->qcap] = r->q[(r->qh + k - 1) % r->qcap];
		r->q[(r->qh + k) % r->qcap] = me;
		r->qn++;
		refiso_out(r, ctx, f, len);
		return 0;
	}
	if (r->qn && e->ts < r->q[(r->qh + r->qn - 1) % r->qcap].ts)
		e->ts = r->q[(r->qh + r->qn - 1) % r->qcap].ts;
	r->qn++;
	if (ref_cc_mode(r) && r->mode != ST_REF_NO_CC && !r->in_cnp && len > 14 + 20 + 8 + ROCE_BTH_LEN) {
		struct ref_qp *q = ctx;
		const struct roce_opinfo *oi;
		struct roce_pkt p;

		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
		if ((oi = roce_opcode_info(p.opcode)) && oi->is_request) {
			/* the reaction point: the request leaves at the QP's rate */
			if (e->ts < q->rp_next)
				e->ts = q->rp_next;
			q->rp_next = e->ts + (uint64_t)((double)len / (q->rp_rate > 0 ? q->rp_rate : REF_RP_LINE));
		}
		/* a CNP with every sequence NAK (Lumina: ConnectX under slow_restart) */
		if (r->mode == ST_REF_CNP_QP && p.opcode == ROCE_OP_ACK && p.aeth_off &&
		    roce_aeth_syndrome(&p) == (ROCE_AETH_NAK << 5 | ROCE_NAK_PSN_SEQ_ERR))
			return ref_cnp_emit(r, q, r->peer_ip);
	}
	return 0;
}

/* A CNP from the adapter to QP q's peer at ip4. */
static int ref_cnp_emit(struct st_ref *r, struct ref_qp *q, const uint8_t ip4[4])
{
	struct roce_frame_spec s;
	uint8_t f[128];
	int n, rc;

	memset(&s, 0, sizeof(s));
	s.version = ROCE_VER_V2;
	memcpy(s.eth.src, r->mac, 6);
	memcpy(s.eth.dst, r->peer_mac, 6);
	s.ip.version = 4;
	memcpy(s.ip.src, r->ip, 4);
	memcpy(s.ip.dst, ip4, 4);
	roce_spec_cnp(&s, q->rqpn);
	if ((n = roce_build(f, sizeof(f), &s)) < 0)
		return -1;
	r->in_cnp = 1;
	rc = ref_emit(q, f, (uint32_t)n);
	r->in_cnp = 0;
	if (!rc)
		r->cnp_tx++;
	return rc;
}

/* A CE-marked request from src4 to QP q: a CNP when its scope's pacing allows. */
static void ref_cnp_ce(struct st_ref *r, struct ref_qp *q, const uint8_t src4[4])
{
	uint64_t *last;
	int *sent, one = 1;
	unsigned i;

	switch (r->mode) {
	case ST_REF_CNP_QP:
		last = &q->cnp_last, sent = &q->cnp_sent;
		break;
	case ST_REF_CNP_IP:
		for (i = 0; i < r->npair && memcmp(r->pair[i].ip, src4, 4); i++)
			;
		if (i == r->npair) {
			if (i == REF_CNP_PAIRS)
				return;   /* more peers than states: not paced, not answered */
			memcpy(r->pair[i].ip, src4, 4);
			r->npair++;
			r->pair[i].last = r->now;
			ref_cnp_emit(r, q, src4);
			return;
		}
		last = &r->pair[i].last, sent = &one;
		break;
	case ST_REF_CNP_PORT:
		last = &r->cnp_port_last, sent = &r->port_sent;
		break;
	default:
		return;
	}
	if (*sent && r->now - *last < r->cnp_gap_ns)
		return;
	*sent = 1;
	*last = r->now;
	ref_cnp_emit(r, q, src4);
}

/* The congestion-control modes of `rocegen fingerprint` (stress.h). */
static int ref_cc_mode(const struct st_ref *r)
{
	return r->mode >= ST_REF_CNP_QP && r->mode <= ST_REF_NO_CC;
}

static struct ref_qp *ref_find(struct st_ref *r, uint32_t qpn)
{
	uint32_t i = qpn - REF_QPN0;

	return qpn >= REF_QPN0 && i < r->nqp && r->qp[i]->qp ? r->qp[i] : NULL;
}

static uint64_t ref_now(void *ctx)
{
	return ((struct st_ref *)ctx)->now;
}

static int ref_send(void *ctx, const uint8_t *f, uint32_t len)
{
	struct st_ref *r = ctx;
	struct roce_pkt p;
	struct ref_qp *q;

	r->now += REF_SER_NS;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
	if (p.version == ROCE_VER_NONE || !p.bth_off || !(q = ref_find(r, p.dqpn)))
		return 0;
	if (r->mode == ST_REF_QPCACHE && ref_qpc_use(r, (int)(q->qpn - REF_QPN0)))
		r->busy = (r->busy > r->now ? r->busy : r->now) + REF_QPC_MISS_NS;   /* a context fetch */
	if (refiso_mode(r))
		refiso_in(r, q, len);
	if (r->mode == ST_REF_PATHLOSS && ++r->n_path % REF_PATH_DROP == 0) {
		r->path_dropped++;
		return 0;   /* lost on the path: the adapter never sees it */
	}
	if (r->mode == ST_REF_PLANTED && r->nqp >= 24 && p.payload_len == 1024 && ++r->n_in % 61 == 0)
		return 0;   /* the planted anomaly: lost on receipt */
	if (r->mode == ST_REF_BITFLIP) {
		uint8_t *c = r->tmp;

		if (p.payload_len && ++r->n_in % 97 == 0 && len <= CTL_LINE_MAX / 2) {
			memcpy(c, f, len);
			c[p.payload_off + p.payload_len / 2] ^= 0x10;
			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, len, len);
		}
		roce_qp_input(q->qp, &p, ROCE_ICRC_GOOD, r->now);
		ref_arm_qp(r, q);
		return 0;
	}
	if (ref_cc_mode(r) && r->mode != ST_REF_NO_CC && roce_opcode_is_cnp(p.opcode) && q->rp_rate > REF_RP_MIN)
		q->rp_rate = (q->rp_rate > 0 ? q->rp_rate : REF_RP_LINE) / 2;   /* DCQCN's cut, alpha = 1 */
	if (ref_cc_mode(r) && p.ecn == 3 && p.ip_version == 4 && !roce_opcode_is_cnp(p.opcode) &&
	    p.opcode != ROCE_OP_ACK && p.opcode != ROCE_OP_ATOMIC_ACK)
		ref_cnp_ce(r, q, f + p.ip_off + 12);
	roce_qp_input(q->qp, &p, ROCE_ICRC_UNCHECKED, r->now);
	ref_arm_qp(r, q);
	return 0;
}

/* The earliest engine deadline (ticking the due ones drops them from the list). */
static uint64_t ref_deadline(struct st_ref *r)
{
	uint64_t d = UINT64_MAX;

	for (unsigned i = 0; i < r->narmed;) {
		struct ref_qp *q = r->qp[r->armed[i]];
		uint64_t x = q->qp ? roce_qp_next_deadline(q->qp) : UINT64_MAX;

		if (x == UINT64_MAX) {
			q->armed = 0;
			r->armed[i] = r->armed[--r->narmed];
			continue;
		}
		if (x < d)
			d = x;
		i++;
	}
	return d;
}

static void ref_tick(struct st_ref *r)
{
	for (unsigned i = 0; i < r->narmed; i++) {
		struct ref_qp *q = r->qp[r->armed[i]];

		if (q->qp && roce_qp_next_deadline(q->qp) <= r->now)
			roce_qp_tick(q->qp, r->now);
	}
}

static int ref_recv(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *ts,
		    uint64_t deadline)
{
	struct st_ref *r = ctx;

	for (int guard = 0; guard < 1000000; guard++) {
		uint64_t dl, next;

		refload_pump(r);
		dl = next = ref_deadline(r);

		if (r->qn) {
			struct ref_frame *e = &r->q[r->qh];

			if (e->ts <= deadline && e->ts <= dl) {
				if (r->now < e->ts)
					r->now = e->ts;
				*len = e->len < cap ? e->len : cap;
				memcpy(buf, e->d, *len);
				*ts = e->ts;
				r->pool[r->npool++] = e->d;
				r->qh = (r->qh + 1) % r->qcap;
				r->qn--;
				return 1;
			}
			if (e->ts < next)
				next = e->ts;
		}
		if (next > deadline) {
			if (r->now < deadline)
				r->now = deadline;
			return 0;
		}
		if (r->now < next)
			r->now = next;
		ref_tick(r);
	}
	return -1;
}

/* ---- objects ---- */

static void ref_reset(struct st_ref *r)
{
	for (unsigned i = 0; i < r->nqp; i++) {
		free(r->qp[i]->mem);
		free(r->qp[i]);
	}
	for (unsigned i = 0; i < r->nmr; i++)
		free(r->mr[i].buf);
	free(r->qp);
	free(r->mr);
	free(r->armed);
	r->qp = NULL;
	r->mr = NULL;
	r->armed = NULL;
	r->nqp = r->nmr = r->narmed = 0;
	r->npair = 0;
	r->port_sent = 0;
	r->qpc_n = 0;
	r->lru_head = r->lru_tail = -1;
	refload_reset(r);
	while (r->qn) {
		r->pool[r->npool++] = r->q[r->qh].d;
		r->qh = (r->qh + 1) % r->qcap;
		r->qn--;
	}
}

static void ref_complete(void *ctx, const struct roce_wc *wc)
{
	struct ref_qp *q = ctx;

	if (refload_wc(q, wc))
		return;
	if (q->wcn < REF_WC)
		q->wc[(q->wch + q->wcn++) % REF_WC] = *wc;
	else
		q->wc_lost++;
}

static unsigned ref_access(const char *acc)
{
	return (strchr(acc, 'w') ? ROCE_ACCESS_REMOTE_WRITE : 0) |
	       (strchr(acc, 'r') ? ROCE_ACCESS_REMOTE_READ : 0) |
	       (strchr(acc, 'a') ? ROCE_ACCESS_REMOTE_ATOMIC : 0);
}

static int ref_cmd_mr(struct st_ref *r, const char *l, char *rep, size_t cap)
{
	uint64_t len = ctl_u64(l, "len", 4096);
	char acc[16] = "wra";
	struct ref_mr *m, *nm;

	ctl_get(l, "access", acc, sizeof(acc));
	if (r->nmr >= 2 * ST_MAX_QPS || !len || len > (64u << 20))
		return snprintf(rep, cap, "err no slot"), -1;
	if (!(nm = realloc(r->mr, (r->nmr + 1) * sizeof(*nm))))
		return snprintf(rep, cap, "err no memory"), -1;
	r->mr = nm;
	m = &r->mr[r->nmr];
	if (!(m->buf = calloc(1, len)))
		return snprintf(rep, cap, "err no memory"), -1;
	m->len = len;
	m->va = 0x7f0000000000ull + ((uint64_t)(r->nmr + 1) << 27);
	m->rkey = 0x1000u + (r->nmr + 1) * 0x101u;
	m->access = ref_access(acc);
	m->qp = ctl_has(l, "qp") ? (int)ctl_u64(l, "qp", 0) - 1 : -1;
	r->nmr++;
	return snprintf(rep, cap, "ok mr=%u rkey=0x%x lkey=0x%x va=0x%llx len=%llu", r->nmr, m->rkey,
			m->rkey, (unsigned long long)m->va, (unsigned long long)len), 0;
}

static int ref_cmd_qp(struct st_ref *r, char *rep, size_t cap)
{
	struct ref_qp **nq, *q;
	unsigned *na;

	if (r->nqp >= ST_MAX_QPS)
		return snprintf(rep, cap, "err no slot"), -1;
	nq = realloc(r->qp, (r->nqp + 1) * sizeof(*nq));
	if (nq)
		r->qp = nq;
	na = realloc(r->armed, (r->nqp + 1) * sizeof(*na));
	if (na)
		r->armed = na;
	if (!nq || !na || !(q = calloc(1, sizeof(*q))))
		return snprintf(rep, cap, "err no memory"), -1;
	q->r = r;
	q->qpn = REF_QPN0 + r->nqp;
	r->qp[r->nqp++] = q;
	return snprintf(rep, cap, "ok qp=%u qpn=0x%x", r->nqp, REF_QPN0 + r->nqp - 1), 0;
}

static struct ref_qp *ref_qp_arg(struct st_ref *r, const char *l)
{
	uint64_t id = ctl_u64(l, "qp", 0);

	return id && id <= r->nqp ? r->qp[id - 1] : NULL;
}

static struct ref_mr *ref_mr_arg(struct st_ref *r, const char *l)
{
	uint64_t id = ctl_u64(l, "mr", 0);

	return id && id <= r->nmr ? &r->mr[id - 1] : NULL;
}

static int ref_cmd_connect(struct st_ref *r, const char *l, char *rep, size_t cap)
{
	struct ref_qp *q = ref_qp_arg(r, l);
	struct roce_qp_attr a;
	struct roce_qp_ops ops = { ref_emit, ref_complete, NULL, q };
	unsigned id, nreg = 0;
	size_t sz;

	if (!q || q->qp)
		return snprintf(rep, cap, "err no qp or already connected"), -1;
	id = q->qpn - REF_QPN0;
	roce_qp_attr_default(&a);
	a.qpn = q->qpn;
	a.remote_qpn = (uint32_t)ctl_u64(l, "rqpn", 0);
	a.sq_psn = (uint32_t)ctl_u64(l, "psn", 0) & 0xffffff;
	a.rq_psn = (uint32_t)ctl_u64(l, "rpsn", 0) & 0xffffff;
	a.mtu = (uint16_t)ctl_u64(l, "mtu", 1024);
	a.timeout = (uint8_t)ctl_u64(l, "timeout", 14);
	a.retry_cnt = (uint8_t)ctl_u64(l, "retry", 7);
	a.rnr_retry = (uint8_t)ctl_u64(l, "rnr_retry", 7);
	a.min_rnr_timer = (uint8_t)ctl_u64(l, "min_rnr", 12);
	a.max_rd_atomic = (uint8_t)ctl_u64(l, "max_rd", 16);
	a.max_dest_rd_atomic = (uint8_t)ctl_u64(l, "max_dest_rd", 16);
	a.send_cnp = !ref_cc_mode(r);   /* the cnp-* modes pace in ref_send */
	a.cnp_gap_ns = 50000;
	q->rqpn = a.remote_qpn;
	q->rp_rate = REF_RP_LINE;
	q->rp_next = 0;
	a.max_mr = REF_QP_MR;
	a.sq_depth = a.rq_depth = REF_WC;
	a.fault_slots = r->mode == ST_REF_NAKSTORM ? 4 : 0;   /* 4.3 KB each */
	memcpy(a.eth.src, r->mac, 6);
	memcpy(a.eth.dst, r->peer_mac, 6);
	a.ip.version = 4;
	memcpy(a.ip.src, r->ip, 4);
	memcpy(a.ip.dst, r->peer_ip, 4);
	sz = roce_qp_mem_size(&a);
	if (!sz || !(q->mem = malloc(sz)) || roce_qp_init(&q->qp, q->mem, sz, &a, &ops)) {
		free(q->mem);
		q->mem = NULL;
		q->qp = NULL;
		return snprintf(rep, cap, "err bad attributes"), -1;
	}
	for (unsigned i = 0; i < r->nmr && nreg < REF_QP_MR; i++)
		if (r->mr[i].qp < 0 || (unsigned)r->mr[i].qp == id) {
			struct roce_mr m = { r->mr[i].rkey, r->mr[i].va, r->mr[i].buf, r->mr[i].len,
					     r->mr[i].access };

			if (!roce_qp_reg_mr(q->qp, &m))
				nreg++;
		}
	if (r->mode == ST_REF_NAKSTORM)
		roce_qp_set_faults(q->qp, &r->faults);
	if (refiso_mode(r))
		refiso_connect(r, q);
	return snprintf(rep, cap, "ok state=rts"), 0;
}

static int ref_cmd_mem(struct st_ref *r, const char *cmd, const char *l, char *rep, size_t cap)
{
	struct ref_mr *m = ref_mr_arg(r, l);
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);

	if (!m)
		return snprintf(rep, cap, "err no such mr"), -1;
	if (!strcmp(cmd, "sum")) {
		if (off + len > m->len)
			return snprintf(rep, cap, "err bad range"), -1;
		return snprintf(rep, cap, "ok sum=0x%llx",
				(unsigned long long)ctl_sum(m->buf + off, (size_t)len)), 0;
	}
	if (!strcmp(cmd, "rd")) {
		if (len > CTL_RD_MAX || off + len > m->len || cap < 2 * len + 8)
			return snprintf(rep, cap, "err bad range"), -1;
		memcpy(rep, "ok hex=", 7);
		ctl_hex(m->buf + off, (size_t)len, rep + 7);
		return 0;
	}
	{
		const char *h = strstr(l, " hex=");
		long n = h ? ctl_unhex(h + 5, r->tmp, CTL_LINE_MAX / 2) : -1;

		if (n < 0 || off + (uint64_t)n > m->len)
			return snprintf(rep, cap, "err bad hex or range"), -1;
		memcpy(m->buf + off, r->tmp, (size_t)n);
		return snprintf(rep, cap, "ok"), 0;
	}
}

static int ref_cmd_recv(struct st_ref *r, struct ref_qp *q, const char *l, char *rep, size_t cap)
{
	struct ref_mr *m = ref_mr_arg(r, l);
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0), wr = ctl_u64(l, "wr", 0);
	unsigned n = (unsigned)ctl_u64(l, "n", 1);

	if (!m || off + len * n > m->len)
		return snprintf(rep, cap, "err bad mr or range"), -1;
	for (unsigned i = 0; i < n && r->mode != ST_REF_NORECV; i++)
		if (roce_qp_post_recv(q->qp, wr + i, m->buf + off + i * len, (uint32_t)len, r->now))
			return snprintf(rep, cap, "err receive queue full"), -1;
	return snprintf(rep, cap, "ok"), 0;
}

static int ref_cmd_poll(struct ref_qp *q, const char *l, char *rep, size_t cap)
{
	cf_ref_poll_reply(q->wc, REF_WC, &q->wch, &q->wcn, (unsigned)ctl_u64(l, "max", 16), rep, cap);
	return 0;
}

static int ref_cmd_counters(struct st_ref *r, char *rep, size_t cap)
{
	uint64_t dup = 0, oos = 0, nak = 0, cnp = 0, ecn = 0, rx = 0, tx = 0;

	for (unsigned i = 0; i < r->nqp; i++) {
		const struct roce_qp_stats *s;

		if (!r->qp[i]->qp)
			continue;
		s = roce_qp_stats(r->qp[i]->qp);
		dup += s->dup_req_rx;
		oos += s->oos_req_rx;
		nak += s->nak_tx[ROCE_NAK_PSN_SEQ_ERR];
		cnp += s->cnp_tx;
		ecn += s->ecn_ce_rx;
		rx += s->rx_pkts;
		tx += s->tx_pkts;
	}
	cnp += r->cnp_tx;
	return snprintf(rep, cap,
			"ok driver=reference sent_pkts=%llu rcvd_pkts=%llu duplicate_request=%llu out_of_seq_request=%llu seq_nak_sent=%llu np_cnp_sent=%llu np_ecn_marked_roce_packets=%llu qpc_hit=%llu qpc_miss=%llu",
			(unsigned long long)tx, (unsigned long long)rx, (unsigned long long)dup,
			(unsigned long long)oos, (unsigned long long)nak, (unsigned long long)cnp,
			(unsigned long long)ecn, (unsigned long long)r->qpc_hit, (unsigned long long)r->qpc_miss), 0;
}

static int ref_ctl(void *ctx, const char *l, char *rep, size_t cap);

/* multi REQ ; REQ …: the replies joined by " ; "; 0 when the first is ok */
static int ref_multi(struct st_ref *r, const char *l, char *rep, size_t cap)
{
	char part[CTL_LINE_MAX], one[CTL_LINE_MAX];
	const char *p = l + 5, *next;
	size_t o = 0;

	rep[0] = 0;
	for (; p; p = next) {
		size_t n = (next = strstr(p, " ; ")) ? (size_t)(next - p) : strlen(p);

		if (next)
			next += 3;
		snprintf(part, sizeof(part), "%.*s", (int)n, p + strspn(p, " "));
		if (!strncmp(part, "multi", 5))
			snprintf(one, sizeof(one), "err multi: no nesting");
		else
			ref_ctl(r, part, one, sizeof(one));
		o += (size_t)snprintf(rep + o, cap - o, "%s%s", o ? " ; " : "", one);
		if (o >= cap)
			return -1;
	}
	return strncmp(rep, "ok", 2) ? -1 : 0;
}

static int ref_ctl(void *ctx, const char *l, char *rep, size_t cap)
{
	struct st_ref *r = ctx;
	struct ref_qp *q;
	char cmd[32] = "";

	sscanf(l, "%31s", cmd);
	if (!strcmp(cmd, "hello"))
		return snprintf(rep, cap, "ok proto=%d impl=reference", CTL_PROTO), 0;
	if (!strcmp(cmd, "open"))
		return snprintf(rep, cap, "ok dev=ref0 gid=::ffff:%u.%u.%u.%u gid_index=1 active_mtu=4096",
				r->ip[0], r->ip[1], r->ip[2], r->ip[3]), 0;
	if (!strcmp(cmd, "reset"))
		return ref_reset(r), snprintf(rep, cap, "ok"), 0;
	if (!strcmp(cmd, "multi"))
		return ref_multi(r, l, rep, cap);
	if (!strcmp(cmd, "mr"))
		return ref_cmd_mr(r, l, rep, cap);
	if (!strcmp(cmd, "qp"))
		return ref_cmd_qp(r, rep, cap);
	if (!strcmp(cmd, "connect"))
		return ref_cmd_connect(r, l, rep, cap);
	if (!strcmp(cmd, "counters"))
		return ref_cmd_counters(r, rep, cap);
	if (!strcmp(cmd, "rd") || !strcmp(cmd, "wr") || !strcmp(cmd, "sum"))
		return ref_cmd_mem(r, cmd, l, rep, cap);
	if (!strcmp(cmd, "lstat"))
		return refload_stat(r, ctl_has(l, "qp") ? ref_qp_arg(r, l) : NULL, rep, cap);
	if (!(q = ref_qp_arg(r, l)))
		return snprintf(rep, cap, "err no such qp"), -1;
	if (!strcmp(cmd, "state")) {
		struct roce_qp_info in;

		if (!q->qp)
			return snprintf(rep, cap, "ok state=reset"), 0;
		roce_qp_info(q->qp, &in);
		return snprintf(rep, cap, "ok state=%s", in.state == ROCE_QPS_RTS ? "rts" : "err"), 0;
	}
	if (!q->qp)
		return snprintf(rep, cap, "err not connected"), -1;
	if (!strcmp(cmd, "recv"))
		return ref_cmd_recv(r, q, l, rep, cap);
	if (!strcmp(cmd, "poll"))
		return ref_cmd_poll(q, l, rep, cap);
	if (!strcmp(cmd, "load"))
		return refload_cmd(r, q, ref_mr_arg(r, l), l, rep, cap);
	return snprintf(rep, cap, "err unknown command %s", cmd), -1;
}

struct st_ref *st_ref_new(enum st_ref_mode mode, const uint8_t dut_mac[6], const uint8_t dut_ip4[4], const uint8_t peer_mac[6],
			  const uint8_t peer_ip4[4])
{
	struct st_ref *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tmp = malloc(CTL_LINE_MAX / 2);
	if (!r->tmp) {
		st_ref_free(r);
		return NULL;
	}
	r->now = 1000000000ull;
	r->mode = mode;
	r->rule.kind = ROCE_QPF_DUP;
	r->rule.match = ROCE_QPF_NAK;
	r->rule.opcode = -1;
	r->rule.ppm = 1000000;
	r->faults.seed = 1;
	r->faults.rules = &r->rule;
	r->faults.n_rules = 1;
	memcpy(r->mac, dut_mac, 6);
	memcpy(r->ip, dut_ip4, 4);
	memcpy(r->peer_mac, peer_mac, 6);
	memcpy(r->peer_ip, peer_ip4, 4);
	st_ref_set_cnp_gap(r, 0);
	r->qpc_cap = 1024;
	r->lru_head = r->lru_tail = -1;
	if (refiso_mode(r))
		refiso_init(r);
	return r;
}

struct st_ref *st_ref_open(int mode, struct st_opts *o, struct cf_io *io)
{
	static const uint8_t us_mac[6] = { 2, 0, 0, 0, 0, 1 }, dut_mac[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t us_ip[4] = { 192, 0, 2, 1 }, dut_ip[4] = { 192, 0, 2, 2 };
	struct st_ref *r = st_ref_new((enum st_ref_mode)mode, dut_mac, dut_ip, us_mac, us_ip);

	if (!r)
		return NULL;
	st_ref_io(r, io);
	memcpy(o->eth.src, us_mac, 6);
	memcpy(o->eth.dst, dut_mac, 6);
	o->ip.version = 4;
	memcpy(o->ip.src, us_ip, 4);
	memcpy(o->ip.dst, dut_ip, 4);
	snprintf(o->our_gid, sizeof(o->our_gid), "192.0.2.1");
	o->is_ref = 1;
	return r;
}

uint64_t st_ref_path_dropped(const struct st_ref *r)
{
	return r->path_dropped;
}

void st_ref_set_qpcache(struct st_ref *r, unsigned n)
{
	r->qpc_cap = n ? n : 1;
}

void st_ref_set_cnp_gap(struct st_ref *r, uint64_t ns)
{
	static const uint64_t dflt[] = { 50000, 25000, 10000, 0 };   /* cnp-qp, cnp-ip, cnp-port, no-cc */

	r->cnp_gap_ns = ns ? ns : ref_cc_mode(r) ? dflt[r->mode - ST_REF_CNP_QP] : 50000;
}

uint64_t st_ref_cnp_gap(const struct st_ref *r)
{
	return r->mode >= ST_REF_CNP_QP && r->mode < ST_REF_NO_CC ? r->cnp_gap_ns : 0;
}

void st_ref_io(struct st_ref *r, struct cf_io *io)
{
	io->now = ref_now;
	io->send = ref_send;
	io->recv = ref_recv;
	io->ctl = ref_ctl;
	io->ctx = r;
}

void st_ref_free(struct st_ref *r)
{
	if (!r)
		return;
	ref_reset(r);
	for (size_t i = 0; i < r->npool; i++)
		free(r->pool[i]);
	free(r->pool);
	free(r->q);
	free(r->tmp);
	free(r);
}
