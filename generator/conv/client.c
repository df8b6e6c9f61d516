/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * client.c — `rocegen client`: the requester side of an RC conversation with
 * a real peer.  The peer is reached the way the standard tools reach each
 * other (oob.c, cm.c); then --iters work requests of --op and --size are
 * run with at most --qd outstanding, through the RC engine (lib/qp.c) on
 * the wire (session.c), and reported like perftest (report.c).
 *
 *   --oob pingpong  ibv_rc_pingpong's exchange and its ping-pong of SENDs
 *   --oob perftest  ib_{send,write,read,atomic}_bw's exchange, then the op
 *   --oob cm        rdma_cm over QP1, then what --app does: rping (port
 *                   7174), ucmatose (7471), perftest -R (18515), raw
 *   --oob none      everything from the command line (--remote-qpn …)
 *
 * Data is checked wherever the peer's behaviour is known: the echo of
 * ibv_rc_pingpong and rping, and everything against `rocegen server --oob
 * none` (its region holds a known pattern; atomics count from 0).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cm.h"
#include "iw.h"
#include "oob.h"
#include "session.h"

#define TMO 15000                    /* ms for each out-of-band step */
#define RKEY_L 0x1000               /* our own regions' keys */
#define MAX_SAMPLES (1u << 24)

struct wr_info {
	uint32_t psn, end;
	uint8_t retried;
};

struct cl {
	struct gen_opts o;
	struct sess s;
	struct cm cm;
	struct sess_qp *q;              /* the data QP */
	enum roce_wr_op op;
	uint32_t size;
	uint64_t iters;
	unsigned qd;
	/* remote region */
	uint32_t rkey;
	uint64_t va;
	uint32_t rslots;
	int verify_region;              /* the peer's region holds sess_fill_region() */
	int verify_atomic;              /* the peer's counter starts at 0 */
	/* local */
	uint8_t *lbuf;
	struct wr_info *wi;
	uint32_t wi_cap;
	uint64_t posted, done, failed, retried;
	uint64_t first_orig, last_orig;
	int have_orig;
	uint32_t crc;
	uint64_t mismatches;
	uint64_t *tcomp;
	uint64_t n_tcomp;
	struct roce_lat lat;
	uint64_t *latbuf;
	uint64_t t0, t1;
	uint32_t lqpn, lpsn, rqpn, rpsn;
	char peer_tool[64];
	int oob_ok;
	int verified;
	void *keep[80];                 /* buffers the QP may still touch: freed after it */
	unsigned n_keep;
};

static void *keep(struct cl *c, void *p)
{
	if (p && c->n_keep < sizeof(c->keep) / sizeof(c->keep[0]))
		c->keep[c->n_keep++] = p;
	return p;
}

static enum roce_wr_op parse_op(const char *s)
{
	if (!s || !strcmp(s, "send"))
		return ROCE_WR_SEND;
	if (!strcmp(s, "write"))
		return ROCE_WR_WRITE;
	if (!strcmp(s, "read"))
		return ROCE_WR_READ;
	if (!strcmp(s, "cmp_swap"))
		return ROCE_WR_CMP_SWAP;
	return ROCE_WR_FETCH_ADD;
}

static int is_atomic(enum roce_wr_op op)
{
	return op == ROCE_WR_CMP_SWAP || op == ROCE_WR_FETCH_ADD;
}

/* ---- the work requests ------------------------------------------------------------- */

static void on_event(void *ctx, const struct roce_qp_event *ev)
{
	struct cl *c = ctx;

	if (ev->type != ROCE_QPE_RETRANSMIT)
		return;
	/* go-back-N from ev->psn: every outstanding WR that ends after it goes again */
	for (uint64_t k = c->done + c->failed; k < c->posted; k++) {
		struct wr_info *w = &c->wi[k % c->wi_cap];

		if (roce_psn_before(ev->psn, w->end))
			w->retried = 1;
	}
}

static uint32_t npkts(const struct cl *c)
{
	uint32_t mtu = c->q->attr.mtu;

	if (is_atomic(c->op))
		return 1;
	return c->size ? (c->size + mtu - 1) / mtu : 1;
}

static int post(struct cl *c)
{
	uint64_t k = c->posted;
	uint8_t *buf = c->lbuf + (size_t)(k % c->qd) * (is_atomic(c->op) ? 8 : c->size);
	struct roce_qp_info info;
	struct roce_wr wr;
	struct wr_info *w = &c->wi[k % c->wi_cap];
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = k;
	wr.op = c->op;
	wr.buf = buf;
	wr.len = is_atomic(c->op) ? 8 : c->size;
	wr.rkey = c->rkey;
	wr.remote_va = c->va + (is_atomic(c->op) ? 0 : (uint64_t)(k % c->rslots) * c->size);
	if (c->op == ROCE_WR_SEND || c->op == ROCE_WR_WRITE) {
		sess_fill(buf, c->size, (uint32_t)k);
		if (c->op == ROCE_WR_SEND)
			c->crc = roce_crc32(c->crc, buf, c->size);
	} else if (c->op == ROCE_WR_FETCH_ADD) {
		wr.swap_add = 1;
	} else if (c->op == ROCE_WR_CMP_SWAP) {
		wr.compare = k;
		wr.swap_add = k + 1;
	}
	roce_qp_info(c->q->qp, &info);
	w->psn = info.next_psn;
	w->end = (info.next_psn + npkts(c)) & 0xffffff;
	w->retried = 0;
	rc = roce_qp_post_send(c->q->qp, &wr, sess_now());
	if (rc) {
		fprintf(stderr, GEN_NAME ": post_send: %s\n", roce_strerror(rc));
		return -1;
	}
	c->posted++;
	return 0;
}

static void completed(struct cl *c, const struct roce_wc *wc)
{
	uint64_t k = wc->wr_id;
	struct wr_info *w = &c->wi[k % c->wi_cap];
	uint64_t now = sess_now();

	if (wc->status != ROCE_WC_SUCCESS) {
		if (!c->failed)
			fprintf(stderr, GEN_NAME ": %s #%llu: %s\n", roce_wr_op_name(wc->op),
				(unsigned long long)k, roce_wc_status_name(wc->status));
		c->failed++;
		return;
	}
	c->done++;
	c->retried += w->retried;
	if (c->n_tcomp < MAX_SAMPLES)
		c->tcomp[c->n_tcomp++] = now;
	roce_lat_add(&c->lat, wc->latency_ns);
	if (c->op == ROCE_WR_READ) {
		const uint8_t *b = c->lbuf + (size_t)(k % c->qd) * c->size;

		c->crc = roce_crc32(c->crc, b, c->size);
		if (c->verify_region) {
			uint64_t off = (uint64_t)(k % c->rslots) * c->size;

			for (uint32_t i = 0; i < c->size; i++) {
				uint64_t j = off + i;
				uint8_t want = j < 8 ? 0 : sess_pattern(0xffffffffu, (uint32_t)j);

				if (b[i] != want) {
					c->mismatches++;
					break;
				}
			}
		}
	} else if (is_atomic(c->op)) {
		if (!c->have_orig) {
			c->first_orig = wc->orig;
			c->have_orig = 1;
		}
		c->last_orig = wc->orig;
		/* executed once each, in PSN order: FETCH_ADD's orig counts up by
		 * one; CMP_SWAP's (compare k, swap k + 1) too when the counter
		 * started at 0 */
		if ((c->op == ROCE_WR_FETCH_ADD && wc->orig != c->first_orig + k) ||
		    (c->verify_atomic && wc->orig != k))
			c->mismatches++;
	}
}

/* Runs the iterations with at most qd outstanding; 0 when all succeeded. */
static int run_ops(struct cl *c)
{
	struct roce_wc wc;

	c->q->on_event = on_event;
	c->q->ev_ctx = c;
	c->t0 = sess_now();
	while (c->done + c->failed < c->iters) {
		while (c->posted < c->iters && c->posted - c->done - c->failed < c->qd)
			if (post(c))
				return -1;
		if (sess_pump(&c->s, -1, 0, 1000) < 0)
			break;
		while (sess_qp_poll(c->q, &wc))
			if (!wc.recv)
				completed(c, &wc);
	}
	c->t1 = sess_now();
	if (c->op == ROCE_WR_WRITE) {
		/* what the peer's region holds now: the last message of each slot */
		uint8_t *tmp = malloc(c->size ? c->size : 1);

		c->crc = 0;
		for (uint32_t j = 0; tmp && j < c->rslots && j < c->iters; j++) {
			uint64_t last = c->iters - 1 - ((c->iters - 1 - j) % c->rslots);

			sess_fill(tmp, c->size, (uint32_t)last);
			c->crc = roce_crc32(c->crc, tmp, c->size);
		}
		free(tmp);
	}
	if (c->verify_region || (c->verify_atomic && is_atomic(c->op)))
		c->verified = 1;
	return c->done == c->iters ? 0 : -1;
}

/* ---- setup shared by the modes -------------------------------------------------------- */

static void defaults(struct cl *c, uint32_t size, uint64_t iters, unsigned qd)
{
	c->op = parse_op(c->o.op);
	c->size = c->o.have_size ? (uint32_t)c->o.size : size;
	if (is_atomic(c->op))
		c->size = 8;
	c->iters = c->o.have_iters ? c->o.iters : iters;
	c->qd = c->o.qd ? c->o.qd : qd;
	c->lqpn = c->o.have_qpn ? c->o.qpn : 0x100 + sess_rand(&c->s) % 0xfffe00;
	c->lpsn = c->o.have_psn ? c->o.psn : sess_rand(&c->s) & 0xffffff;
	c->rslots = 1;
}

static int alloc_bufs(struct cl *c)
{
	size_t slot = is_atomic(c->op) ? 8 : c->size;
	size_t nsamp = c->iters < MAX_SAMPLES ? (size_t)c->iters : MAX_SAMPLES;

	if (slot && (size_t)c->qd * slot > ((size_t)1 << 30)) {
		fprintf(stderr, GEN_NAME ": --qd x --size is more than 1 GiB\n");
		return -1;
	}
	c->lbuf = calloc((size_t)c->qd, slot ? slot : 1);
	c->wi_cap = 2 * c->qd + 2;
	c->wi = calloc(c->wi_cap, sizeof(*c->wi));
	c->tcomp = calloc(nsamp, sizeof(uint64_t));
	c->latbuf = calloc(nsamp, sizeof(uint64_t));
	if (!c->lbuf || !c->wi || !c->tcomp || !c->latbuf) {
		fprintf(stderr, GEN_NAME ": out of memory\n");
		return -1;
	}
	roce_lat_init(&c->lat, c->latbuf, nsamp);
	return 0;
}

static struct sess_qp *make_qp(struct cl *c, uint8_t rd_out, uint8_t rd_in, int faults)
{
	struct roce_qp_attr a;

	sess_qp_attr(&c->s, &a);
	a.qpn = c->lqpn;
	a.sq_psn = c->lpsn;
	a.remote_qpn = c->rqpn;
	a.rq_psn = c->rpsn;
	a.max_rd_atomic = rd_out ? rd_out : 1;
	a.max_dest_rd_atomic = rd_in ? rd_in : 1;
	a.sport = (uint16_t)(0xc000 | (c->lqpn & 0x3fff));
	return sess_add_qp(&c->s, &a, faults);
}

static void our_gid(const struct cl *c, uint8_t gid[16])
{
	if (c->s.ipver == 4)
		oob_gid_v4mapped(gid, c->s.src);
	else
		memcpy(gid, c->s.src, 16);
}

/* ---- --oob pingpong ------------------------------------------------------------------------ */

struct pp_wait {
	struct cl *c;
	int send_done, recv_done;
	uint64_t t_recv;
	uint64_t want;
	uint8_t **rbuf;
};

static int pp_ready(void *ctx)
{
	struct pp_wait *w = ctx;
	struct cl *c = w->c;
	struct roce_wc wc;

	while (sess_qp_poll(c->q, &wc)) {
		if (wc.status != ROCE_WC_SUCCESS) {
			fprintf(stderr, GEN_NAME ": %s: %s\n", wc.recv ? "receive" : "send",
				roce_wc_status_name(wc.status));
			c->failed++;
			return 1;
		}
		if (wc.recv) {
			uint8_t *b = w->rbuf[wc.wr_id];

			w->recv_done++;
			w->t_recv = sess_now();
			if (wc.byte_len != c->size)
				c->mismatches++;
			else
				for (uint32_t i = 0; i < c->size; i++)
					if (b[i] != sess_pattern((uint32_t)w->want, i)) {
						c->mismatches++;
						break;
					}
			roce_qp_post_recv(c->q->qp, wc.wr_id, b, c->size, sess_now());
		} else {
			w->send_done++;
		}
	}
	return w->send_done && w->recv_done;
}

static int pingpong(struct cl *c)
{
	struct oob_dest me, peer;
	char msg[OOB_PP_LEN], rmsg[OOB_PP_LEN], done[5] = "done";
	uint8_t *rbuf[64];
	unsigned nr;
	int fd;

	defaults(c, 4096, 1000, 1);
	if (c->op != ROCE_WR_SEND) {
		fprintf(stderr, GEN_NAME " client: --oob pingpong runs SENDs (ibv_rc_pingpong)\n");
		return 2;
	}
	c->qd = 1;
	if (alloc_bufs(c))
		return 2;
	memset(&me, 0, sizeof(me));
	me.qpn = c->lqpn;
	me.psn = c->lpsn;
	our_gid(c, me.gid);
	fd = oob_connect(&c->s, (uint16_t)(c->o.port >= 0 ? c->o.port : OOB_PORT), TMO);
	if (fd < 0)
		return 1;
	oob_pp_format(msg, &me);
	if (oob_write(&c->s, fd, msg, sizeof(msg)) || oob_read(&c->s, fd, rmsg, sizeof(rmsg), TMO) ||
	    oob_pp_parse(rmsg, sizeof(rmsg), &peer) || oob_write(&c->s, fd, done, sizeof(done))) {
		fprintf(stderr, GEN_NAME " client: the ibv_rc_pingpong exchange failed\n");
		close(fd);
		return 1;
	}
	close(fd);
	c->rqpn = peer.qpn;
	c->rpsn = peer.psn;
	snprintf(c->peer_tool, sizeof(c->peer_tool), "ibv_rc_pingpong");
	/* rc_pingpong's QP: min_rnr_timer 12, timeout 14, retry 7, rnr_retry 7,
	 * one READ/atomic each way */
	c->q = make_qp(c, 1, 1, 1);
	if (!c->q)
		return 2;
	c->q->on_event = on_event;
	c->q->ev_ctx = c;
	nr = c->iters < 64 ? (unsigned)c->iters : 64;
	for (unsigned i = 0; i < nr; i++) {
		rbuf[i] = keep(c, malloc(c->size ? c->size : 1));
		if (!rbuf[i] || roce_qp_post_recv(c->q->qp, i, rbuf[i], c->size, sess_now()))
			return 2;
	}
	c->oob_ok = 1;
	c->t0 = sess_now();
	for (uint64_t k = 0; k < c->iters; k++) {
		struct pp_wait w = { c, 0, 0, 0, k, rbuf };
		uint64_t tp = sess_now();
		int r;

		c->posted = k;
		if (post(c))
			return 1;
		r = sess_run(&c->s, pp_ready, &w, -1);
		if (r <= 0 || c->failed)
			break;
		c->done++;
		c->retried += c->wi[k % c->wi_cap].retried;
		if (c->n_tcomp < MAX_SAMPLES)
			c->tcomp[c->n_tcomp++] = w.t_recv;
		roce_lat_add(&c->lat, w.t_recv - tp);
	}
	c->t1 = sess_now();
	c->verified = 1;
	return c->done == c->iters && !c->mismatches ? 0 : 1;
}

/* ---- --oob perftest (and perftest -R over the CM) ---------------------------------------- */

static void pt_result_of(const struct cl *c, struct pt_result *r)
{
	double sec = c->t1 > c->t0 ? (double)(c->t1 - c->t0) / 1e9 : 1e-9;

	memset(r, 0, sizeof(*r));
	r->size = c->size;
	r->iters = c->done;
	r->bw_peak = report_peak(c->tcomp, c->n_tcomp, c->size, c->t0) / 1048576.0;
	r->bw_avg = (double)c->done * c->size / sec / 1048576.0;
	r->msg_rate = (double)c->done / sec / 1e6;
}

/* How many key exchanges perftest 6.06 makes before the test (bookworm
 * captures roce_{send,write,read,atomic}_bw and roce_write_bw_rdmacm). */
static int pt_syncs_before(const struct cl *c, int rdma_cm)
{
	return (c->op == ROCE_WR_SEND ? 4 : 3) + (rdma_cm ? 1 : 0);
}

/* -R: a zeroed sync on the control QP, then the data QP through the CM,
 * then a zeroed sync again; 0, or what pt_run returns. */
static int pt_data_cm(struct cl *c, struct oob_chan *ch, struct cm_conn *data_conn, uint8_t out_reads,
		      struct oob_dest *peer)
{
	struct oob_dest zero;

	memset(&zero, 0, sizeof(zero));
	if (pt_keys(ch, &zero, peer))
		return 1;
	if (cm_connect(&c->cm, data_conn, (uint16_t)(c->o.port >= 0 ? c->o.port : OOB_PORT),
		       c->lqpn, c->lpsn, out_reads, out_reads, NULL, 0, TMO))
		return 1;
	/* rdma_cm: each side sends from the PSN the other one chose */
	c->rqpn = data_conn->remote_qpn;
	c->rpsn = c->lpsn;
	c->lpsn = data_conn->remote_psn;
	c->q = make_qp(c, data_conn->resp_res ? data_conn->resp_res : 1, 16, 1);
	if (!c->q)
		return 2;
	return pt_keys(ch, &zero, peer) ? 1 : 0;
}

/* The key syncs before the test; without the CM the first one gives the
 * peer's QP, and we make ours. */
static int pt_key_syncs(struct cl *c, struct oob_chan *ch, int syncs, int rdma_cm, const struct oob_dest *me,
			struct oob_dest *peer)
{
	for (int i = 0; i < syncs; i++) {
		if (pt_keys(ch, me, peer))
			return 1;
		if (i == 0 && !rdma_cm) {
			uint32_t out = peer->out_reads ? peer->out_reads : 1;

			c->rqpn = peer->qpn;
			c->rpsn = peer->psn;
			c->q = make_qp(c, (uint8_t)(out < 16 ? out : 16), 16, 1);
			if (!c->q)
				return 2;
		}
	}
	return 0;
}

/* the peer never touches our region; it is there for the keys we gave */
static void pt_region(struct cl *c, uint64_t va)
{
	uint8_t *mr = keep(c, calloc(1, 4096));
	struct roce_mr m;

	memset(&m, 0, sizeof(m));
	m.rkey = RKEY_L;
	m.va = va;
	m.addr = mr;
	m.len = 4096;
	m.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	if (mr)
		roce_qp_reg_mr(c->q->qp, &m);
}

/* after the test: a sync, the results (not for SEND), a last sync, "done" */
static int pt_after(struct cl *c, struct oob_chan *ch, int rdma_cm, const struct oob_dest *me,
		    struct oob_dest *peer)
{
	struct pt_result mine, theirs;

	pt_result_of(c, &mine);
	if (pt_keys(ch, me, peer))
		return 1;
	if (c->op != ROCE_WR_SEND && (pt_results(ch, &mine, &theirs) || pt_keys(ch, me, peer)))
		return 1;
	if (!rdma_cm && pt_done(ch))
		return 1;
	return 0;
}

static int pt_run(struct cl *c, struct oob_chan *ch, int rdma_cm, struct cm_conn *data_conn)
{
	struct oob_dest me, peer;
	unsigned mtu = (unsigned)c->o.mtu_enum;
	char pver[17];
	int syncs, rc;

	if (pt_hello(ch, &mtu, pver))
		return 1;
	snprintf(c->peer_tool, sizeof(c->peer_tool), "perftest %s", pver);
	c->o.mtu_enum = (int)mtu;
	memset(&me, 0, sizeof(me));
	me.qpn = c->lqpn;
	me.psn = c->lpsn;
	me.out_reads = (c->op == ROCE_WR_READ || is_atomic(c->op)) ? 16 : 1;
	me.rkey = RKEY_L;
	me.va = 0x10000;
	me.gid_index = 1;
	our_gid(c, me.gid);
	syncs = pt_syncs_before(c, rdma_cm);
	if (rdma_cm) {
		rc = pt_data_cm(c, ch, data_conn, (uint8_t)me.out_reads, &peer);
		if (rc)
			return rc;
		syncs--;
	}
	rc = pt_key_syncs(c, ch, syncs, rdma_cm, &me, &peer);
	if (rc)
		return rc;
	c->rkey = peer.rkey;
	c->va = peer.va;
	if (is_atomic(c->op) && (c->va & 7)) {
		fprintf(stderr, GEN_NAME " client: the peer's address 0x%llx is not 8-byte aligned\n",
			(unsigned long long)c->va);
		return 1;
	}
	pt_region(c, me.va);
	c->oob_ok = 1;
	rc = run_ops(c);
	if (pt_after(c, ch, rdma_cm, &me, &peer))
		rc = 1, c->oob_ok = 0;
	return rc ? 1 : 0;
}

static int perftest(struct cl *c)
{
	struct oob_chan ch;
	int fd, rc;

	defaults(c, 65536, 1000, 16);
	if (alloc_bufs(c))
		return 2;
	fd = oob_connect(&c->s, (uint16_t)(c->o.port >= 0 ? c->o.port : OOB_PORT), TMO);
	if (fd < 0)
		return 1;
	oob_chan_tcp_init(&ch, &c->s, fd, 1, TMO);
	rc = pt_run(c, &ch, 0, NULL);
	close(fd);
	return rc;
}

/* ---- --oob cm -------------------------------------------------------------------------------- */

/* rping (rdma-core librdmacm/examples/rping.c): the client advertises its
 * source buffer {be64 addr, be32 rkey, be32 size}, the server READs it and
 * says "go on" with a SEND, the client advertises its sink, the server
 * WRITEs the data back and SENDs again. */
struct rp_wait {
	struct cl *c;
	int sends, recvs;
};

static int rp_ready(void *ctx)
{
	struct rp_wait *w = ctx;
	struct roce_wc wc;

	while (sess_qp_poll(w->c->q, &wc)) {
		if (wc.status != ROCE_WC_SUCCESS) {
			fprintf(stderr, GEN_NAME ": %s: %s\n", wc.recv ? "receive" : "send",
				roce_wc_status_name(wc.status));
			w->c->failed++;
			return 1;
		}
		if (wc.recv)
			w->recvs++;
		else
			w->sends++;
	}
	return w->sends >= 1 && w->recvs >= 1;
}

static void be_info(uint8_t out[16], uint64_t va, uint32_t rkey, uint32_t size)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(va >> (56 - 8 * i));
	for (int i = 0; i < 4; i++) {
		out[8 + i] = (uint8_t)(rkey >> (24 - 8 * i));
		out[12 + i] = (uint8_t)(size >> (24 - 8 * i));
	}
}

/* rping's buffers: start (the server READs it) and sink (it WRITEs there),
 * registered, and 16 receives of 64 bytes posted. */
static int rp_setup(struct cl *c, const struct cm_conn *conn, uint8_t **start, uint8_t **sink, uint8_t **rbuf)
{
	struct roce_mr m;

	*start = keep(c, calloc(1, c->size));
	*sink = keep(c, calloc(1, c->size));
	*rbuf = keep(c, calloc(16, 64));
	if (!*start || !*sink || !*rbuf)
		return 2;
	c->q = make_qp(c, conn->resp_res ? conn->resp_res : 1, 16, 1);
	if (!c->q)
		return 2;
	for (unsigned i = 0; i < 16; i++)
		roce_qp_post_recv(c->q->qp, i, *rbuf + 64 * i, 64, sess_now());
	memset(&m, 0, sizeof(m));
	m.rkey = RKEY_L + 1;
	m.va = 0x7f0000100000ull;
	m.addr = *start;
	m.len = c->size;
	m.access = ROCE_ACCESS_REMOTE_READ;
	roce_qp_reg_mr(c->q->qp, &m);
	m.rkey = RKEY_L + 2;
	m.va = 0x7f0000200000ull;
	m.addr = *sink;
	m.access = ROCE_ACCESS_REMOTE_WRITE;
	roce_qp_reg_mr(c->q->qp, &m);
	return 0;
}

/* rping's text: the counter, then letters A..z rotating from *ch */
static void rp_text(uint8_t *start, uint32_t size, uint64_t k, unsigned char *ch)
{
	int n = snprintf((char *)start, size, "rdma-ping-%llu: ", (unsigned long long)k);

	for (uint32_t i = (uint32_t)n, cc = *ch; i < size; i++) {
		start[i] = (uint8_t)cc;
		if (++cc > 122)
			cc = 65;
	}
	if (++*ch > 122)
		*ch = 65;
	start[size - 1] = 0;
}

/* One ping: our start buffer's keys (the server READs it), then our sink's
 * (it WRITEs the text back), each answered by the server's SEND. */
static int rp_ping(struct cl *c, uint64_t k, uint8_t *rbuf)
{
	struct rp_wait w = { c, 0, 0 };
	struct roce_wr wr;
	uint8_t info[16];

	for (int step = 0; step < 2; step++) {
		be_info(info, step ? 0x7f0000200000ull : 0x7f0000100000ull, RKEY_L + 1 + step, c->size);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 2 * k + step;
		wr.op = ROCE_WR_SEND;
		wr.buf = info;
		wr.len = 16;
		if (roce_qp_post_send(c->q->qp, &wr, sess_now()))
			return 1;
		w.sends = w.recvs = 0;
		if (sess_run(&c->s, rp_ready, &w, TMO) <= 0 || c->failed) {
			fprintf(stderr, GEN_NAME " client: rping: no answer from the server\n");
			return 1;
		}
		for (int r = 0; r < w.recvs; r++) {
			unsigned slot = (unsigned)((2 * k + step + r) % 16);

			roce_qp_post_recv(c->q->qp, slot, rbuf + 64 * slot, 64, sess_now());
		}
	}
	return 0;
}

static int rping(struct cl *c, const struct cm_conn *conn)
{
	uint8_t *start, *sink, *rbuf;
	unsigned char ch = 'A';

	c->op = ROCE_WR_SEND;
	if (c->size < 32) {
		fprintf(stderr, GEN_NAME " client: rping needs --size of at least 32\n");
		return 2;
	}
	if (rp_setup(c, conn, &start, &sink, &rbuf))
		return 2;
	c->oob_ok = 1;
	c->t0 = sess_now();
	for (uint64_t k = 0; k < c->iters; k++) {
		uint64_t tp;

		rp_text(start, c->size, k, &ch);
		tp = sess_now();
		memset(sink, 0, c->size);
		if (rp_ping(c, k, rbuf))
			return 1;
		if (memcmp(start, sink, c->size))
			c->mismatches++;
		c->crc = roce_crc32(c->crc, start, c->size);
		c->done++;
		if (c->n_tcomp < MAX_SAMPLES)
			c->tcomp[c->n_tcomp++] = sess_now();
		roce_lat_add(&c->lat, sess_now() - tp);
	}
	c->t1 = sess_now();
	c->verified = 1;
	return c->mismatches ? 1 : 0;
}

/* ucmatose (librdmacm/examples/cmatose.c): the server SENDs its messages
 * first, the client receives them all and answers with as many. */
struct uc_wait {
	struct cl *c;
	uint64_t sends, recvs, want_sends, want_recvs;
};

static int uc_ready(void *ctx)
{
	struct uc_wait *w = ctx;
	struct roce_wc wc;

	while (sess_qp_poll(w->c->q, &wc)) {
		if (wc.status != ROCE_WC_SUCCESS) {
			w->c->failed++;
			return 1;
		}
		if (wc.recv)
			w->recvs++;
		else
			w->sends++;
	}
	return w->sends >= w->want_sends && w->recvs >= w->want_recvs;
}

static int ucmatose(struct cl *c)
{
	struct uc_wait w = { c, 0, 0, 0, c->iters };
	uint8_t *rb;

	c->op = ROCE_WR_SEND;
	rb = keep(c, calloc(c->iters, c->size ? c->size : 1));
	if (!rb)
		return 2;
	c->q = make_qp(c, 1, 16, 1);
	if (!c->q)
		return 2;
	for (uint64_t i = 0; i < c->iters; i++)
		if (roce_qp_post_recv(c->q->qp, i, rb + i * c->size, c->size, sess_now()))
			return 2;
	c->oob_ok = 1;
	c->t0 = sess_now();
	if (sess_run(&c->s, uc_ready, &w, TMO) <= 0 || c->failed) {
		fprintf(stderr, GEN_NAME " client: ucmatose: %llu of %llu messages received\n",
			(unsigned long long)w.recvs, (unsigned long long)c->iters);
		return 1;
	}
	c->q->on_event = on_event;
	c->q->ev_ctx = c;
	c->qd = 1;
	c->rkey = 0;
	c->va = 0;
	return run_ops(c) ? 1 : 0;
}

/* --app perftest: the control connection first (perftest's rdma_cm
 * "socket"), its QP carrying perftest's exchange, then pt_run. */
static int cm_perftest(struct cl *c, uint16_t port)
{
	static struct cm_conn conn, data;
	struct oob_chan ch;
	struct roce_qp_attr a;
	struct sess_qp *ctl;
	uint32_t cqpn = c->lqpn + 1, cpsn = sess_rand(&c->s) & 0xffffff;
	int rc;

	if (cm_connect(&c->cm, &conn, port, cqpn, cpsn, 0, 0, NULL, 0, TMO))
		return 1;
	sess_qp_attr(&c->s, &a);
	a.qpn = cqpn;
	a.sq_psn = conn.remote_psn;
	a.remote_qpn = conn.remote_qpn;
	a.rq_psn = cpsn;
	a.sport = (uint16_t)(0xc000 | (cqpn & 0x3fff));
	ctl = sess_add_qp(&c->s, &a, 0);
	if (!ctl || oob_chan_rc_init(&ch, &c->s, ctl, 1, TMO))
		return 2;
	rc = pt_run(c, &ch, 1, &data);
	if (data.state == CM_ESTABLISHED && cm_disconnect(&c->cm, &data, 5000))
		rc = rc ? rc : 1;
	if (cm_disconnect(&c->cm, &conn, 5000))
		rc = rc ? rc : 1;
	return rc;
}

/* --app raw: --op against --rkey and --va, on the connection's QP. */
static int cm_raw(struct cl *c, const struct cm_conn *conn)
{
	if ((!c->o.have_rkey || !c->o.have_va) && c->op != ROCE_WR_SEND) {
		fprintf(stderr, GEN_NAME " client: --app raw needs --rkey and --va for %s\n",
			roce_wr_op_name(c->op));
		return 2;
	}
	c->rkey = c->o.ext.rkey;
	c->va = c->o.ext.va;
	c->q = make_qp(c, conn->resp_res ? conn->resp_res : 1, 16, 1);
	if (!c->q)
		return 2;
	c->oob_ok = 1;
	return run_ops(c) ? 1 : 0;
}

static int cm_mode(struct cl *c)
{
	static struct cm_conn conn;
	const char *app = c->o.app;
	uint16_t port;
	int rc;

	if (!app)
		app = c->o.port == 7471 ? "ucmatose" : c->o.port == 18515 ? "perftest" :
		      c->o.port < 0 || c->o.port == 7174 ? "rping" : "raw";
	port = (uint16_t)(c->o.port >= 0 ? c->o.port :
			  !strcmp(app, "ucmatose") ? 7471 : !strcmp(app, "perftest") ? OOB_PORT : 7174);
	if (!strcmp(app, "rping"))
		defaults(c, 64, 10, 1);
	else if (!strcmp(app, "ucmatose"))
		defaults(c, 100, 10, 1);
	else
		defaults(c, 65536, 1000, 16);
	if (alloc_bufs(c))
		return 2;
	cm_init(&c->cm, &c->s);
	snprintf(c->peer_tool, sizeof(c->peer_tool), "%s", app);
	if (!strcmp(app, "perftest"))
		return cm_perftest(c, port);
	if (cm_connect(&c->cm, &conn, port, c->lqpn, c->lpsn, 16, 16, NULL, 0, TMO))
		return 1;
	/* rdma_cm: the REQ's starting PSN is what the passive side sends from,
	 * the REP's what we send from (lab captures roce_rping, roce_ucmatose) */
	c->rqpn = conn.remote_qpn;
	c->rpsn = c->lpsn;
	c->lpsn = conn.remote_psn;
	if (!strcmp(app, "rping")) {
		rc = rping(c, &conn);
	} else if (!strcmp(app, "ucmatose")) {
		rc = ucmatose(c);
		/* the ucmatose server disconnects; answer its DREQ, or start our own */
		if (cm_wait(&c->cm, &conn, CM_ESTABLISHED, 3000) < 0)
			return 1;
	} else {
		rc = cm_raw(c, &conn);
	}
	if (conn.state != CM_CLOSED && cm_disconnect(&c->cm, &conn, 5000))
		rc = rc ? rc : 1;
	return rc;
}

/* ---- --oob none --------------------------------------------------------------------------------- */

static int none(struct cl *c)
{
	defaults(c, 4096, 1000, 16);
	if (!c->o.have_remote_qpn || !c->o.have_remote_psn) {
		fprintf(stderr, GEN_NAME " client: --oob none needs --remote-qpn and --remote-psn\n");
		return 2;
	}
	if (c->op != ROCE_WR_SEND && (!c->o.have_rkey || !c->o.have_va)) {
		fprintf(stderr, GEN_NAME " client: --op %s needs --rkey and --va\n", roce_wr_op_name(c->op));
		return 2;
	}
	c->rqpn = c->o.remote_qpn;
	c->rpsn = c->o.remote_psn;
	c->rkey = c->o.ext.rkey;
	c->va = c->o.ext.va;
	/* `rocegen server --oob none` keeps min(iters, 64) slots of --size */
	c->rslots = c->iters < 64 ? (uint32_t)c->iters : 64;
	c->verify_region = c->op == ROCE_WR_READ;
	c->verify_atomic = is_atomic(c->op);
	if (alloc_bufs(c))
		return 2;
	c->q = make_qp(c, 16, 16, 1);
	if (!c->q)
		return 2;
	c->oob_ok = 1;
	snprintf(c->peer_tool, sizeof(c->peer_tool), "none");
	return run_ops(c) ? 1 : 0;
}

/* ---- main --------------------------------------------------------------------------------------- */

/* The conversation of --oob's mode, the last ACKs out; 1 when it did not do all it should. */
static int cl_converse(struct cl *c)
{
	int rc;

	if (!strcmp(c->o.oob, "pingpong"))
		rc = pingpong(c);
	else if (!strcmp(c->o.oob, "perftest"))
		rc = perftest(c);
	else if (!strcmp(c->o.oob, "cm"))
		rc = cm_mode(c);
	else
		rc = none(c);
	/* let the last ACKs out and answer what the peer still retransmits */
	if (c->q)
		sess_wait_fd(&c->s, -1, 0, 20);
	if (!rc && (c->failed || c->done != c->iters || c->mismatches))
		rc = 1;
	return rc;
}

static void cl_report(struct cl *c, int rc)
{
	struct report r;

	sess_update_stats(&c->s);
	memset(&r, 0, sizeof(r));
	r.role = "client";
	r.oob = c->o.oob;
	r.op = roce_wr_op_name(c->op);
	r.app = c->o.app;
	r.size = c->size;
	r.iters = c->iters;
	r.completed = c->done;
	r.retried = c->retried;
	r.failed = c->failed + (c->iters > c->done + c->failed ? c->iters - c->done - c->failed : 0);
	r.bytes = c->done * c->size;
	r.t_start = c->t0;
	r.t_end = c->t1 ? c->t1 : c->t0;
	r.bw_peak = report_peak(c->tcomp, c->n_tcomp, c->size, c->t0);
	if (c->lat.n) {
		roce_lat_summarize(&c->lat, &r.lat);
		r.have_lat = 1;
	}
	r.ok = rc == 0;
	r.why = rc == 0 ? NULL : !c->oob_ok ? "connection setup failed" :
		c->mismatches ? "data mismatch" : "not every operation completed";
	r.have_crc = c->op == ROCE_WR_SEND || c->op == ROCE_WR_WRITE || c->op == ROCE_WR_READ;
	r.crc = c->crc;
	if (is_atomic(c->op) && c->have_orig) {
		r.have_atomic = 1;
		r.atomic_value = c->last_orig + 1;
	}
	r.mismatches = c->mismatches;
	r.verified = c->verified;
	r.local_qpn = c->lqpn;
	r.local_psn = c->lpsn;
	r.remote_qpn = c->rqpn;
	r.remote_psn = c->rpsn;
	r.mtu = c->q ? c->q->attr.mtu : (uint16_t)(128u << c->o.mtu_enum);
	r.peer_tool = c->peer_tool;
	r.s = &c->s;
	r.q = c->q;
	report_cm(&r, &c->cm);
	report_print(&r, c->o.json);
}

/* Every buffer the modes allocated, and the options' own: each exit passes here. */
static void cl_free(struct cl *c)
{
	for (unsigned i = 0; i < c->n_keep; i++)
		free(c->keep[i]);
	free(c->lbuf);
	free(c->wi);
	free(c->tcomp);
	free(c->latbuf);
	gen_opts_free(&c->o);
}

/* The session, with the client's default --timeout of 120 s. */
static int cl_open(struct cl *c)
{
	if (c->o.timeout <= 0)
		c->o.timeout = 120;
	return sess_open(&c->s, &c->o);
}

int gen_client_main(int argc, char **argv)
{
	static struct cl c;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = gen_parse(GEN_CLIENT, argc, argv, &c.o);
	if (rc)
		return gen_parse_exit(rc);          /* gen_parse freed what it had parsed */
	if (c.o.iwarp) {
		rc = iw_client_main(&c.o);
	} else if (!c.o.oob) {
		fprintf(stderr, GEN_NAME " client: --oob pingpong|perftest|cm|none is needed\n");
		rc = 2;
	} else if (cl_open(&c)) {
		rc = 2;
	} else {
		gen_signals();
		rc = cl_converse(&c);
		cl_report(&c, rc);
		sess_close(&c.s);
		rc = rc == 2 ? 2 : rc ? 1 : 0;
	}
	cl_free(&c);
	return rc;
}
