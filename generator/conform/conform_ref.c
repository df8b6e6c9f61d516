/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_ref.c — the reference adapter for `rocegen conform --reference`:
 * a lib/qp RC engine (the spec's behaviour, see lib/qp.h) behind the
 * rocetarget control protocol (target/ctl.h), on a simulated clock.  Frames
 * the cases send go straight into the engine; what it emits comes back after
 * a fixed wire delay; waiting jumps the clock to the engine's next deadline.
 *
 * Modes that break the spec on purpose, to show that FAIL is reachable:
 *   nakstorm  every NAK is sent twice (a responder that NAKs more than once
 *             per sequence error)
 *   retry7    retry_cnt 7 means "retry forever" (what rxe does)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conform.h"
#include "ctl.h"

#define REF_WIRE_NS 2000           /* one-way delay of the simulated wire */
#define REF_QLEN 1024
#define REF_MR 8
#define REF_WC 256

struct ref_frame {
	uint8_t d[ROCE_QP_FRAME_MAX];
	uint32_t len;
	uint64_t ts;
};

struct cf_ref {
	enum cf_ref_mode mode;
	uint64_t now;
	uint8_t mac[6], peer_mac[6], ip[4], peer_ip[4];
	struct ref_frame *q;        /* DUT → rocegen, in time order */
	unsigned qh, qn;
	struct roce_qp *qp;
	void *qp_mem;
	int have_qp;
	uint32_t qpn, next_qpn;
	struct {
		uint8_t *buf;
		uint64_t len, va;
		uint32_t rkey, access;
	} mr[REF_MR];
	struct roce_wc wc[REF_WC];
	unsigned wch, wcn;
	struct roce_qpf_rule rule;
	struct roce_qp_faults faults;
};

static int ref_emit(void *ctx, const uint8_t *f, uint32_t len)
{
	struct cf_ref *r = ctx;
	struct ref_frame *e;

	if (r->qn >= REF_QLEN || len > ROCE_QP_FRAME_MAX)
		return -1;
	e = &r->q[(r->qh + r->qn++) % REF_QLEN];
	memcpy(e->d, f, len);
	e->len = len;
	e->ts = r->now + REF_WIRE_NS;
	/* keep time order (a delayed frame cannot overtake): never earlier than the last */
	if (r->qn > 1) {
		struct ref_frame *prev = &r->q[(r->qh + r->qn - 2) % REF_QLEN];

		if (e->ts < prev->ts)
			e->ts = prev->ts;
	}
	return 0;
}

static void ref_complete(void *ctx, const struct roce_wc *wc)
{
	struct cf_ref *r = ctx;

	if (r->wcn < REF_WC)
		r->wc[(r->wch + r->wcn++) % REF_WC] = *wc;
}

static uint64_t ref_now(void *ctx)
{
	return ((struct cf_ref *)ctx)->now;
}

static int ref_send(void *ctx, const uint8_t *f, uint32_t len)
{
	struct cf_ref *r = ctx;
	struct roce_pkt p;

	r->now += 100;   /* serialisation */
	if (!r->qp)
		return 0;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
	if (p.version == ROCE_VER_NONE || !p.bth_off)
		return 0;
	roce_qp_input(r->qp, &p, ROCE_ICRC_UNCHECKED, r->now);
	return 0;
}

static int ref_recv(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *ts,
		    uint64_t deadline)
{
	struct cf_ref *r = ctx;

	for (int guard = 0; guard < 1000000; guard++) {
		uint64_t dl = r->qp ? roce_qp_next_deadline(r->qp) : UINT64_MAX, next;

		if (r->qn) {
			struct ref_frame *e = &r->q[r->qh];

			if (e->ts <= deadline && e->ts <= dl) {
				if (r->now < e->ts)
					r->now = e->ts;
				*len = e->len < cap ? e->len : cap;
				memcpy(buf, e->d, *len);
				*ts = e->ts;
				r->qh = (r->qh + 1) % REF_QLEN;
				r->qn--;
				return 1;
			}
		}
		next = dl;
		if (r->qn && r->q[r->qh].ts < next)
			next = r->q[r->qh].ts;
		if (next > deadline) {
			if (r->now < deadline)
				r->now = deadline;
			return 0;
		}
		if (r->now < next)
			r->now = next;
		if (r->qp && dl <= r->now)
			roce_qp_tick(r->qp, r->now);
	}
	return -1;
}

/* ---- the control protocol ---- */

static void ref_reset(struct cf_ref *r)
{
	free(r->qp_mem);
	r->qp_mem = NULL;
	r->qp = NULL;
	r->have_qp = 0;
	for (int i = 0; i < REF_MR; i++)
		free(r->mr[i].buf);
	memset(r->mr, 0, sizeof(r->mr));
	r->qn = r->qh = 0;
	r->wcn = r->wch = 0;
}

static unsigned ref_access(const char *acc)
{
	unsigned a = 0;

	if (strchr(acc, 'w'))
		a |= ROCE_ACCESS_REMOTE_WRITE;
	if (strchr(acc, 'r'))
		a |= ROCE_ACCESS_REMOTE_READ;
	if (strchr(acc, 'a'))
		a |= ROCE_ACCESS_REMOTE_ATOMIC;
	return a;
}

static int ref_connect(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	struct roce_qp_attr a;
	struct roce_qp_ops ops = { ref_emit, ref_complete, NULL, r };
	size_t sz;

	if (!r->have_qp || r->qp)
		return snprintf(rep, cap, "err no qp or already connected"), -1;
	roce_qp_attr_default(&a);
	a.qpn = r->qpn;
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
	a.retry7_infinite = r->mode == CF_REF_RETRY7;
	a.send_cnp = 1;
	a.cnp_gap_ns = 50000;
	a.max_mr = REF_MR;
	memcpy(a.eth.src, r->mac, 6);
	memcpy(a.eth.dst, r->peer_mac, 6);
	a.ip.version = 4;
	memcpy(a.ip.src, r->ip, 4);
	memcpy(a.ip.dst, r->peer_ip, 4);
	sz = roce_qp_mem_size(&a);
	if (!sz || !(r->qp_mem = malloc(sz)) ||
	    roce_qp_init(&r->qp, r->qp_mem, sz, &a, &ops)) {
		free(r->qp_mem);
		r->qp_mem = NULL;
		r->qp = NULL;
		return snprintf(rep, cap, "err bad attributes"), -1;
	}
	for (int i = 1; i < REF_MR; i++)
		if (r->mr[i].buf) {
			struct roce_mr m = { r->mr[i].rkey, r->mr[i].va, r->mr[i].buf, r->mr[i].len,
					     r->mr[i].access };

			roce_qp_reg_mr(r->qp, &m);
		}
	if (r->mode == CF_REF_NAKSTORM) {
		memset(&r->rule, 0, sizeof(r->rule));
		r->rule.kind = ROCE_QPF_DUP;
		r->rule.match = ROCE_QPF_NAK;
		r->rule.opcode = -1;
		r->rule.ppm = 1000000;
		memset(&r->faults, 0, sizeof(r->faults));
		r->faults.seed = 1;
		r->faults.rules = &r->rule;
		r->faults.n_rules = 1;
		roce_qp_set_faults(r->qp, &r->faults);
	}
	return snprintf(rep, cap, "ok state=rts"), 0;
}

static int ref_mr_id(struct cf_ref *r, const char *l)
{
	unsigned id = (unsigned)ctl_u64(l, "mr", 0);

	return id && id < REF_MR && r->mr[id].buf ? (int)id : -1;
}

static int ref_hello(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	(void)r, (void)l;
	return snprintf(rep, cap, "ok proto=%d impl=reference", CTL_PROTO), 0;
}

static int ref_open(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	(void)l;
	return snprintf(rep, cap, "ok dev=ref0 gid=::ffff:%u.%u.%u.%u gid_index=1 active_mtu=4096",
			r->ip[0], r->ip[1], r->ip[2], r->ip[3]), 0;
}

static int ref_cmd_reset(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	(void)l;
	ref_reset(r);
	return snprintf(rep, cap, "ok"), 0;
}

/* A region in the first free slot; its va and rkey follow from the slot. */
static int ref_mr(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	uint64_t len = ctl_u64(l, "len", 4096);
	char acc[16] = "wra";
	int id;

	ctl_get(l, "access", acc, sizeof(acc));
	for (id = 1; id < REF_MR && r->mr[id].buf; id++)
		;
	if (id >= REF_MR || !len || len > (64u << 20) || !(r->mr[id].buf = calloc(1, len)))
		return snprintf(rep, cap, "err no slot"), -1;
	r->mr[id].len = len;
	r->mr[id].va = 0x7f0000000000ull + ((uint64_t)id << 32);
	r->mr[id].rkey = 0x1000u + (uint32_t)id * 0x101u;
	r->mr[id].access = ref_access(acc);
	return snprintf(rep, cap, "ok mr=%d rkey=0x%x lkey=0x%x va=0x%llx len=%llu", id,
			r->mr[id].rkey, r->mr[id].rkey, (unsigned long long)r->mr[id].va,
			(unsigned long long)len), 0;
}

static int ref_qp(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	(void)l;
	if (r->have_qp)
		return snprintf(rep, cap, "err the reference has one qp"), -1;
	r->have_qp = 1;
	r->qpn = 0x11 + r->next_qpn++ % 0x1000;
	return snprintf(rep, cap, "ok qp=1 qpn=0x%x", r->qpn), 0;
}

static int ref_state(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	struct roce_qp_info in;

	(void)l;
	if (!r->have_qp)
		return snprintf(rep, cap, "err no such qp"), -1;
	if (!r->qp)
		return snprintf(rep, cap, "ok state=reset"), 0;
	roce_qp_info(r->qp, &in);
	return snprintf(rep, cap, "ok state=%s", in.state == ROCE_QPS_RTS ? "rts" : "err"), 0;
}

/* The engine's counters under the hw_counters names rocetarget reports
 * (ctl.h: "counters"). */
static int ref_counters(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	const struct roce_qp_stats *st;

	(void)l;
	if (!r->qp)
		return snprintf(rep, cap, "ok"), 0;
	st = roce_qp_stats(r->qp);
	return snprintf(rep, cap,
			"ok sent_pkts=%llu rcvd_pkts=%llu duplicate_request=%llu out_of_seq_request=%llu rcvd_seq_err=%llu send_rnr_err=%llu rcvd_rnr_err=%llu",
			(unsigned long long)st->tx_pkts, (unsigned long long)st->rx_pkts,
			(unsigned long long)st->dup_req_rx, (unsigned long long)st->oos_req_rx,
			(unsigned long long)st->nak_rx[0], (unsigned long long)st->rnr_nak_tx,
			(unsigned long long)st->rnr_nak_rx), 0;
}

static int ref_rd(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);
	int id = ref_mr_id(r, l);

	if (id < 0)
		return snprintf(rep, cap, "err no such mr"), -1;
	if (len > CTL_RD_MAX || off + len > r->mr[id].len || cap < 2 * len + 8)
		return snprintf(rep, cap, "err bad range"), -1;
	memcpy(rep, "ok hex=", 7);
	ctl_hex(r->mr[id].buf + off, len, rep + 7);
	return 0;
}

static int ref_wr(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	static uint8_t b[CTL_LINE_MAX / 2];
	uint64_t off = ctl_u64(l, "off", 0);
	int id = ref_mr_id(r, l);
	const char *h;
	long n;

	if (id < 0)
		return snprintf(rep, cap, "err no such mr"), -1;
	h = strstr(l, " hex=");
	n = h ? ctl_unhex(h + 5, b, sizeof(b)) : -1;
	if (n < 0 || off + (uint64_t)n > r->mr[id].len)
		return snprintf(rep, cap, "err bad hex or range"), -1;
	memcpy(r->mr[id].buf + off, b, (size_t)n);
	return snprintf(rep, cap, "ok"), 0;
}

static int ref_recv_cmd(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);
	unsigned n = (unsigned)ctl_u64(l, "n", 1);
	uint64_t wr = ctl_u64(l, "wr", 0);
	int id;

	if ((id = ref_mr_id(r, l)) < 0 || off + len * n > r->mr[id].len)
		return snprintf(rep, cap, "err bad mr or range"), -1;
	for (unsigned i = 0; i < n; i++)
		if (roce_qp_post_recv(r->qp, wr + i, r->mr[id].buf + off + i * len, (uint32_t)len,
				      r->now))
			return snprintf(rep, cap, "err receive queue full"), -1;
	return snprintf(rep, cap, "ok"), 0;
}

/* n copies of one work request, wr ids counting up. */
static int ref_post(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	struct roce_wr w;
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);
	char s[64];
	int op = -1, id;

	ctl_get(l, "op", s, sizeof(s));
	for (int i = 0; i < ROCE_WR_RECV; i++)
		if (!strcmp(s, roce_wr_op_name((enum roce_wr_op)i)))
			op = i;
	if ((id = ref_mr_id(r, l)) < 0 || op < 0 || off + len > r->mr[id].len)
		return snprintf(rep, cap, "err bad op, mr or range"), -1;
	memset(&w, 0, sizeof(w));
	w.wr_id = ctl_u64(l, "wr", 0);
	w.op = (enum roce_wr_op)op;
	w.buf = r->mr[id].buf + off;
	w.len = (uint32_t)len;
	w.remote_va = ctl_u64(l, "rva", 0);
	w.rkey = (uint32_t)ctl_u64(l, "rkey", 0);
	w.imm = (uint32_t)ctl_u64(l, "imm", 0);
	w.compare = ctl_u64(l, "cmp", 0);
	w.swap_add = ctl_u64(l, "swap", 0);
	for (uint64_t i = 0, n = ctl_u64(l, "n", 1); i < n; i++, w.wr_id++)
		if (roce_qp_post_send(r->qp, &w, r->now))
			return snprintf(rep, cap, "err post failed"), -1;
	return snprintf(rep, cap, "ok"), 0;
}

void cf_ref_poll_reply(const struct roce_wc *ring, unsigned cap, unsigned *head, unsigned *n, unsigned max,
		       char *rep, size_t repcap)
{
	size_t o = (size_t)snprintf(rep, repcap, "ok n=%u", *n < max ? *n : max);

	for (unsigned i = 0; i < max && *n && o + 80 < repcap; i++) {
		const struct roce_wc *w = &ring[*head];

		o += (size_t)snprintf(rep + o, repcap - o, " wc=%llu,%s,%s,%u", (unsigned long long)w->wr_id,
				      roce_wc_status_name(w->status), roce_wr_op_name(w->op), w->byte_len);
		*head = (*head + 1) % cap;
		(*n)--;
	}
}

static int ref_poll(struct cf_ref *r, const char *l, char *rep, size_t cap)
{
	cf_ref_poll_reply(r->wc, REF_WC, &r->wch, &r->wcn, (unsigned)ctl_u64(l, "max", 16), rep, cap);
	return 0;
}

/* The control words and their handlers; conn: only with a connected QP. */
static const struct ref_cmd {
	const char *word;
	int (*fn)(struct cf_ref *r, const char *l, char *rep, size_t cap);
	int conn;
} ref_cmds[] = {
	{ "hello", ref_hello, 0 },
	{ "open", ref_open, 0 },
	{ "reset", ref_cmd_reset, 0 },
	{ "mr", ref_mr, 0 },
	{ "qp", ref_qp, 0 },
	{ "connect", ref_connect, 0 },
	{ "state", ref_state, 0 },
	{ "counters", ref_counters, 0 },
	{ "rd", ref_rd, 0 },
	{ "wr", ref_wr, 0 },
	{ "recv", ref_recv_cmd, 1 },
	{ "post", ref_post, 1 },
	{ "poll", ref_poll, 1 },
};

static int ref_ctl(void *ctx, const char *l, char *rep, size_t cap)
{
	struct cf_ref *r = ctx;
	const struct ref_cmd *c = NULL;
	char cmd[32] = "";

	sscanf(l, "%31s", cmd);
	for (size_t i = 0; i < sizeof(ref_cmds) / sizeof(ref_cmds[0]); i++)
		if (!strcmp(cmd, ref_cmds[i].word))
			c = &ref_cmds[i];
	/* without a connection a word the table lacks is answered like recv,
	 * post and poll: "not connected" */
	if ((!c || c->conn) && !r->qp)
		return snprintf(rep, cap, "err not connected"), -1;
	if (!c)
		return snprintf(rep, cap, "err unknown command %s", cmd), -1;
	return c->fn(r, l, rep, cap);
}

struct cf_ref *cf_ref_new(enum cf_ref_mode mode, const uint8_t dut_mac[6], const uint8_t dut_ip4[4],
			  const uint8_t peer_mac[6], const uint8_t peer_ip4[4])
{
	struct cf_ref *r = calloc(1, sizeof(*r));

	if (!r || !(r->q = calloc(REF_QLEN, sizeof(*r->q)))) {
		free(r);
		return NULL;
	}
	r->mode = mode;
	r->now = 1000000000ull;
	memcpy(r->mac, dut_mac, 6);
	memcpy(r->ip, dut_ip4, 4);
	memcpy(r->peer_mac, peer_mac, 6);
	memcpy(r->peer_ip, peer_ip4, 4);
	return r;
}

void cf_ref_io(struct cf_ref *r, struct cf_io *io)
{
	io->now = ref_now;
	io->send = ref_send;
	io->recv = ref_recv;
	io->ctl = ref_ctl;
	io->ctx = r;
}

void cf_ref_free(struct cf_ref *r)
{
	if (!r)
		return;
	ref_reset(r);
	free(r->q);
	free(r);
}
