/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server.c — `rocegen server`: the passive side of an RC conversation, for
 * the standard tools' clients (and `rocegen client`):
 *
 *   --oob pingpong  ibv_rc_pingpong's server: the exchange, then every SEND
 *                   received is sent back (as rc_pingpong does: it sends the
 *                   buffer the message just landed in)
 *   --oob perftest  ib_{send,write,read,atomic}_bw's server: the exchange
 *                   answered message by message, a region for WRITE, READ and
 *                   atomics, receives for SEND; ends with "done"
 *   --oob cm        rdma_cm's passive side, then (--app, else by --port)
 *                   rping's server (7174), perftest -R's (18515: a control
 *                   connection, then the data one) or ucmatose's (7471)
 *   --oob none      everything from the command line; ends when --iters
 *                   messages were executed (then --idle of quiet), or after
 *                   --idle seconds without the peer
 *
 * The region (rkey --rkey, address --va for --oob none) holds
 * sess_fill_region()'s pattern at the start: 8 zero bytes (the atomic
 * counter), then a known pattern, so a client can check what it reads.  The
 * report gives the CRC-32 of every message received, of the region at the
 * end and the counter's value.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cm.h"
#include "iw.h"
#include "oob.h"
#include "session.h"

#define TMO 15000
#define NRECV 256

struct sv {
	struct gen_opts o;
	struct sess s;
	struct cm cm;
	struct sess_qp *q;
	uint32_t size;
	uint64_t iters;
	uint32_t lqpn, lpsn, rqpn, rpsn;
	/* the region */
	uint8_t *region;
	uint64_t region_len, crc_len;
	uint32_t rkey;
	uint64_t va;
	/* receives */
	uint8_t *rbufs;
	uint32_t rlen;
	uint64_t recvs, sends, failed, retried_pkts;
	uint32_t recv_crc;
	uint64_t recv_bytes;
	uint64_t peer_size;              /* perftest: the size in the client's results */
	int echo;                        /* pingpong: send back what arrives */
	uint64_t echo_pending;           /* receives not yet echoed */
	uint64_t echo_next;              /* next receive to echo (ring index) */
	uint8_t *ebuf;                   /* echo copies */
	uint32_t ering;
	uint64_t *rorder;                /* receive slots in completion order */
	uint8_t *rpbuf;                  /* rping: READ into, WRITE from */
	uint64_t t0, t1;
	struct roce_lat lat;
	uint64_t latbuf[1];
	char peer_tool[64];
	int oob_ok;
};

static uint64_t msn_of(const struct sv *v)
{
	struct roce_qp_info in;

	if (!v->q)
		return 0;
	roce_qp_info(v->q->qp, &in);
	return in.msn;
}

/* Completions: receives are checksummed and posted again; pingpong echoes. */
static void hook(void *ctx)
{
	struct sv *v = ctx;
	struct roce_wc wc;

	if (!v->q)
		return;
	while (sess_qp_poll(v->q, &wc)) {
		if (wc.status != ROCE_WC_SUCCESS) {
			if (!v->failed)
				fprintf(stderr, GEN_NAME " server: %s: %s\n", wc.recv ? "receive" : "send",
					roce_wc_status_name(wc.status));
			v->failed++;
			continue;
		}
		if (!wc.recv) {
			v->sends++;
			continue;
		}
		if (!v->t0)
			v->t0 = sess_now();
		v->t1 = sess_now();
		v->recvs++;
		{
			uint8_t *b = v->rbufs + (size_t)wc.wr_id * v->rlen;

			v->recv_crc = roce_crc32(v->recv_crc, b, wc.byte_len);
			v->recv_bytes += wc.byte_len;
			if (v->echo) {
				uint32_t e = (uint32_t)(v->echo_pending + v->echo_next) % v->ering;

				memcpy(v->ebuf + (size_t)e * v->rlen, b, wc.byte_len);
				v->rorder[e] = wc.byte_len;
				v->echo_pending++;
			}
			roce_qp_post_recv(v->q->qp, wc.wr_id, b, v->rlen, sess_now());
		}
	}
	/* rc_pingpong answers each message once its previous send completed */
	while (v->echo && v->echo_pending && v->sends + 1 > (v->echo_next)) {
		struct roce_wr wr;
		uint32_t e = (uint32_t)(v->echo_next % v->ering);

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = v->echo_next;
		wr.op = ROCE_WR_SEND;
		wr.buf = v->ebuf + (size_t)e * v->rlen;
		wr.len = (uint32_t)v->rorder[e];
		if (roce_qp_post_send(v->q->qp, &wr, sess_now()))
			break;
		v->echo_next++;
		v->echo_pending--;
	}
}

static int region(struct sv *v, uint64_t len, uint32_t rkey, uint64_t va)
{
	struct roce_mr m;

	v->region_len = len < 4096 ? 4096 : len;
	v->region = malloc(v->region_len);
	if (!v->region)
		return -1;
	sess_fill_region(v->region, v->region_len);
	v->rkey = rkey;
	v->va = va;
	memset(&m, 0, sizeof(m));
	m.rkey = rkey;
	m.va = va;
	m.addr = v->region;
	m.len = v->region_len;
	m.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	return roce_qp_reg_mr(v->q->qp, &m) ? -1 : 0;
}

static int receives(struct sv *v, unsigned n)
{
	v->rlen = v->size ? v->size : 1;
	v->rbufs = calloc(n, v->rlen);
	if (!v->rbufs)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (roce_qp_post_recv(v->q->qp, i, v->rbufs + (size_t)i * v->rlen, v->rlen, sess_now()))
			return -1;
	return 0;
}

static struct sess_qp *make_qp(struct sv *v, uint8_t rd_out, uint8_t rd_in)
{
	struct roce_qp_attr a;

	sess_qp_attr(&v->s, &a);
	a.qpn = v->lqpn;
	a.sq_psn = v->lpsn;
	a.remote_qpn = v->rqpn;
	a.rq_psn = v->rpsn;
	a.max_rd_atomic = rd_out ? rd_out : 1;
	a.max_dest_rd_atomic = rd_in ? rd_in : 1;
	a.sport = (uint16_t)(0xc000 | (v->lqpn & 0x3fff));
	return sess_add_qp(&v->s, &a, 1);
}

static void our_gid(const struct sv *v, uint8_t gid[16])
{
	if (v->s.ipver == 4)
		oob_gid_v4mapped(gid, v->s.src);
	else
		memcpy(gid, v->s.src, 16);
}

/* Tests wait for this line before starting the client. */
static void ready(const struct sv *v, const char *what)
{
	fprintf(stderr, GEN_NAME " server: ready (%s)\n", what);
	(void)v;
}

static int done_echoing(void *ctx)
{
	struct sv *v = ctx;

	return v->failed || v->sends >= v->iters;
}

/* ---- modes ------------------------------------------------------------------------------ */

static int pingpong(struct sv *v)
{
	struct oob_dest me, peer;
	char msg[OOB_PP_LEN], rmsg[OOB_PP_LEN], d[5];
	int lfd, fd, r;

	lfd = oob_listen(&v->s, (uint16_t)(v->o.port >= 0 ? v->o.port : OOB_PORT));
	if (lfd < 0)
		return 2;
	ready(v, "ibv_rc_pingpong exchange");
	fd = oob_accept(&v->s, lfd, -1);
	close(lfd);
	if (fd <= 0)
		return 1;
	if (oob_read(&v->s, fd, rmsg, sizeof(rmsg), TMO) || oob_pp_parse(rmsg, sizeof(rmsg), &peer)) {
		fprintf(stderr, GEN_NAME " server: the ibv_rc_pingpong exchange failed\n");
		close(fd);
		return 1;
	}
	v->rqpn = peer.qpn;
	v->rpsn = peer.psn;
	v->q = make_qp(v, 1, 1);
	if (!v->q)
		return 2;
	v->echo = 1;
	v->ering = NRECV;
	v->ebuf = calloc(v->ering, v->size ? v->size : 1);
	v->rorder = calloc(v->ering, sizeof(uint64_t));
	if (!v->ebuf || !v->rorder || receives(v, NRECV))
		return 2;
	memset(&me, 0, sizeof(me));
	me.qpn = v->lqpn;
	me.psn = v->lpsn;
	our_gid(v, me.gid);
	oob_pp_format(msg, &me);
	if (oob_write(&v->s, fd, msg, sizeof(msg))) {
		close(fd);
		return 1;
	}
	/* "done" (rc_pingpong's client closes right after it) */
	r = oob_read(&v->s, fd, d, sizeof(d), TMO);
	close(fd);
	if (r)
		return 1;
	snprintf(v->peer_tool, sizeof(v->peer_tool), "ibv_rc_pingpong");
	v->oob_ok = 1;
	if (sess_run(&v->s, done_echoing, v, -1) <= 0 || v->failed)
		return 1;
	return v->recvs >= v->iters ? 0 : 1;
}

/* perftest's first keys: the peer's QP; we make ours and our region, and
 * answer with our keys. */
static int pt_first_keys(struct sv *v, int fd, struct oob_dest *me, struct oob_dest *peer)
{
	char t[OOB_PT_KEYS_LEN];

	if (oob_read(&v->s, fd, t, sizeof(t), TMO) || oob_pt_parse(t, sizeof(t), peer)) {
		fprintf(stderr, GEN_NAME " server: perftest keys not understood\n");
		return -1;
	}
	v->rqpn = peer->qpn;
	v->rpsn = peer->psn;
	v->q = make_qp(v, (uint8_t)(peer->out_reads && peer->out_reads < 16 ? peer->out_reads : 16), 16);
	if (!v->q || region(v, (uint64_t)v->size * 64 > (1u << 20) ? (uint64_t)v->size * 64 : 1u << 20,
			    0x2000 | (sess_rand(&v->s) & 0xfff), 0x7f5500000000ull) ||
	    receives(v, NRECV))
		return -1;
	v->crc_len = v->size;
	me->rkey = v->rkey;
	me->va = v->va;
	oob_pt_format(t, me);
	if (oob_write(&v->s, fd, t, sizeof(t)))
		return -1;
	v->oob_ok = 1;
	return 0;
}

/* answer whatever comes: keys (text starting with the LID's digits),
 * results (a size in 8 big-endian bytes: starts with 0), "done" (0) */
static int pt_answer(struct sv *v, int fd, struct oob_chan *ch, struct oob_dest *me)
{
	struct oob_dest peer;

	for (;;) {
		uint8_t c0;
		int r = oob_peek(&v->s, fd, &c0, 600000);

		if (r <= 0)
			return 1;
		if (c0 == 'd')
			return pt_done(ch) == 0 ? 0 : 1;
		if (c0 == 0) {
			struct pt_result mine, theirs;

			memset(&mine, 0, sizeof(mine));
			mine.size = v->size;
			mine.iters = msn_of(v);
			if (pt_results(ch, &mine, &theirs))
				return 1;
			v->peer_size = theirs.size;
			continue;
		}
		if (!v->q) {
			if (pt_first_keys(v, fd, me, &peer))
				return 1;
			continue;
		}
		if (pt_keys(ch, me, &peer))
			return 1;
	}
}

static int perftest(struct sv *v)
{
	struct oob_chan ch;
	struct oob_dest me;
	char pver[17];
	unsigned mtu = (unsigned)v->o.mtu_enum;
	int lfd, fd, rc = 1;

	lfd = oob_listen(&v->s, (uint16_t)(v->o.port >= 0 ? v->o.port : OOB_PORT));
	if (lfd < 0)
		return 2;
	ready(v, "perftest exchange");
	fd = oob_accept(&v->s, lfd, -1);
	close(lfd);
	if (fd <= 0)
		return 1;
	oob_chan_tcp_init(&ch, &v->s, fd, 0, TMO);
	if (!pt_hello(&ch, &mtu, pver)) {
		snprintf(v->peer_tool, sizeof(v->peer_tool), "perftest %s", pver);
		v->o.mtu_enum = (int)mtu;
		memset(&me, 0, sizeof(me));
		me.qpn = v->lqpn;
		me.psn = v->lpsn;
		me.out_reads = 16;
		me.gid_index = 1;
		our_gid(v, me.gid);
		rc = pt_answer(v, fd, &ch, &me);
	}
	close(fd);
	return rc;
}

/* rping's server (librdmacm/examples/rping.c, rping_test_server) */
struct rp_wait {
	struct sv *v;
	struct cm_conn *c;
	uint64_t want_recvs, want_sends;
	uint64_t base_sends;
};

static int rp_ready(void *ctx)
{
	struct rp_wait *w = ctx;

	if (w->c->state == CM_CLOSED || w->c->state == CM_FAILED || w->v->failed)
		return 1;
	if (w->v->recvs)
		cm_established(w->c);
	return w->v->recvs >= w->want_recvs && w->v->sends >= w->want_sends;
}

static void be_info_parse(const uint8_t *b, uint64_t *va, uint32_t *rkey, uint32_t *size)
{
	*va = 0;
	for (int i = 0; i < 8; i++)
		*va = *va << 8 | b[i];
	*rkey = (uint32_t)b[8] << 24 | (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];
	*size = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
}

static int rping(struct sv *v, struct cm_conn *c)
{
	uint32_t cap = v->size > 64 ? v->size : 65536;
	uint8_t *buf = v->rpbuf = calloc(1, cap), info[16];
	uint64_t k = 0;

	if (!buf)
		return 2;
	v->size = 64;                    /* receive buffers: rping's 16-byte messages */
	if (receives(v, 16))
		return 2;
	memset(info, 0, sizeof(info));
	v->oob_ok = 1;
	for (;;) {
		struct rp_wait w = { v, c, v->recvs + 1, v->sends, 0 };
		struct roce_wr wr;
		uint64_t va;
		uint32_t rkey, len, n;
		const uint8_t *msg;

		if (sess_run(&v->s, rp_ready, &w, -1) <= 0)
			break;
		if (c->state == CM_CLOSED || v->failed || v->recvs < w.want_recvs)
			break;
		msg = v->rbufs + (size_t)((v->recvs - 1) % 16) * v->rlen;
		for (int step = 0; step < 2; step++) {
			be_info_parse(msg, &va, &rkey, &len);
			if (len > cap)
				len = cap;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 4 * k + 2 * step;
			wr.op = step ? ROCE_WR_WRITE : ROCE_WR_READ;
			wr.buf = buf;
			n = (uint32_t)strnlen((char *)buf, len) + 1;
			wr.len = step ? (n < len ? n : len) : len;
			wr.remote_va = va;
			wr.rkey = rkey;
			if (roce_qp_post_send(v->q->qp, &wr, sess_now()))
				return 1;
			w.want_recvs = v->recvs;
			w.want_sends = v->sends + 1;
			if (sess_run(&v->s, rp_ready, &w, TMO) <= 0 || v->failed || c->state == CM_CLOSED)
				goto out;
			if (!step)
				v->recv_crc = roce_crc32(v->recv_crc, buf, len);
			/* "go on" after the READ, "done" after the WRITE */
			wr.wr_id++;
			wr.op = ROCE_WR_SEND;
			wr.buf = info;
			wr.len = 16;
			if (roce_qp_post_send(v->q->qp, &wr, sess_now()))
				return 1;
			if (step)
				break;
			w.want_recvs = v->recvs + 1;
			w.want_sends = v->sends + 1;
			if (sess_run(&v->s, rp_ready, &w, TMO) <= 0 || v->failed || c->state == CM_CLOSED)
				goto out;
			msg = v->rbufs + (size_t)((v->recvs - 1) % 16) * v->rlen;
		}
		k++;
	}
out:
	v->iters = k;
	return v->failed ? 1 : 0;
}

/* perftest -R's server (perftest 6.06, lab capture of ib_write_bw -R between
 * the guests): a control connection first, on which perftest's items travel
 * as RC SENDs; a zeroed key sync; the data connection; a zeroed sync, then
 * the key syncs (3, 4 for SEND) with our region's keys; the test; a sync,
 * then for WRITE and READ the results and a last sync (ib_send_bw -R stops
 * after the first: lab capture between the guests).  The client DREQs the data
 * connection, we DREQ the control one.
 * Each phase returns 0, or what pt_cm returns at once (1, 2), or -1: the
 * conversation failed, close the control connection. */

/* The control connection: its REQ, our control QP and channel, perftest's
 * hello, the zeroed key sync. */
static int pt_control(struct sv *v, struct cm_conn *ctl, struct oob_chan *ch, const struct oob_dest *zero,
		      struct oob_dest *peer)
{
	uint32_t cqpn = v->lqpn + 1, cpsn = sess_rand(&v->s) & 0xffffff;
	struct roce_qp_attr a;
	struct sess_qp *cq;
	unsigned mtu;
	char pver[17];

	ready(v, "rdma_cm, perftest -R");
	if (cm_get_request(&v->cm, ctl, -1) <= 0)
		return 1;
	if (ctl->path_mtu >= 1 && ctl->path_mtu <= 5 && (int)ctl->path_mtu < v->o.mtu_enum)
		v->o.mtu_enum = ctl->path_mtu;
	sess_qp_attr(&v->s, &a);
	a.qpn = cqpn;
	a.sq_psn = ctl->remote_psn;
	a.remote_qpn = ctl->remote_qpn;
	a.rq_psn = cpsn;
	a.sport = (uint16_t)(0xc000 | (cqpn & 0x3fff));
	cq = sess_add_qp(&v->s, &a, 0);
	if (!cq || oob_chan_rc_init(ch, &v->s, cq, 0, TMO))
		return 2;
	if (cm_accept(&v->cm, ctl, cqpn, cpsn, ctl->init_depth, ctl->resp_res))
		return 1;
	mtu = (unsigned)v->o.mtu_enum;
	if (pt_hello(ch, &mtu, pver))
		return -1;
	cm_established(ctl);
	snprintf(v->peer_tool, sizeof(v->peer_tool), "perftest %s -R", pver);
	v->o.mtu_enum = (int)mtu;
	return pt_keys(ch, zero, peer) ? -1 : 0;
}

/* The data connection, on the same port: our data QP, region and receives,
 * the accept and a zeroed key sync. */
static int pt_data(struct sv *v, struct cm_conn *data, struct oob_chan *ch, const struct oob_dest *zero,
		   struct oob_dest *peer)
{
	if (cm_get_request(&v->cm, data, TMO) <= 0) {
		fprintf(stderr, GEN_NAME " server: perftest -R: no data connection\n");
		return -1;
	}
	v->rqpn = data->remote_qpn;
	v->rpsn = v->lpsn;
	v->lpsn = data->remote_psn;
	if (data->path_mtu >= 1 && data->path_mtu <= 5 && (int)data->path_mtu < v->o.mtu_enum)
		v->o.mtu_enum = data->path_mtu;
	v->q = make_qp(v, data->resp_res ? (data->resp_res < 16 ? data->resp_res : 16) : 1, 16);
	if (!v->q || region(v, (uint64_t)v->size * 64 > (1u << 20) ? (uint64_t)v->size * 64 : 1u << 20,
			    0x2000 | (sess_rand(&v->s) & 0xfff), 0x7f5500000000ull) ||
	    receives(v, NRECV))
		return 2;
	v->crc_len = v->size;
	if (cm_accept(&v->cm, data, v->lqpn, v->rpsn,
		      data->init_depth ? (data->init_depth < 16 ? data->init_depth : 16) : 1,
		      data->resp_res ? (data->resp_res < 16 ? data->resp_res : 16) : 1))
		return -1;
	if (pt_keys(ch, zero, peer))
		return -1;
	cm_established(data);
	return 0;
}

/* Our keys (3 syncs, 4 for SEND), the test up to the client's sync after
 * it, then for WRITE and READ the results and a last sync. */
static int pt_test(struct sv *v, struct oob_chan *ch, struct oob_dest *peer, int send)
{
	struct pt_result mine, theirs;
	struct oob_dest me;

	memset(&me, 0, sizeof(me));
	me.qpn = v->lqpn;
	me.psn = v->rpsn;
	me.out_reads = 1;
	me.rkey = v->rkey;
	me.va = v->va;
	me.gid_index = 1;
	our_gid(v, me.gid);
	for (int i = 0; i < (send ? 4 : 3); i++)
		if (pt_keys(ch, &me, peer))
			return -1;
	v->oob_ok = 1;
	v->t0 = sess_now();
	/* the test: the client's sync after it may be a while */
	ch->timeout_ms = 600000;
	if (pt_keys(ch, &me, peer))
		return -1;
	v->t1 = sess_now();
	ch->timeout_ms = TMO;
	if (send)
		return 0;
	memset(&mine, 0, sizeof(mine));
	mine.size = v->size;
	mine.iters = msn_of(v);
	if (pt_results(ch, &mine, &theirs))
		return -1;
	v->peer_size = theirs.size;
	return pt_keys(ch, &me, peer) ? -1 : 0;
}

static int pt_cm(struct sv *v)
{
	static struct cm_conn ctl, data;
	static struct oob_chan ch;
	struct oob_dest zero, peer;
	int send = v->o.op && !strcmp(v->o.op, "send");
	int rc;

	memset(&zero, 0, sizeof(zero));
	rc = pt_control(v, &ctl, &ch, &zero, &peer);
	if (!rc)
		rc = pt_data(v, &data, &ch, &zero, &peer);
	if (!rc)
		rc = pt_test(v, &ch, &peer, send);
	if (rc > 0)
		return rc;
	if (rc < 0) {
		rc = 1;
	} else {
		/* the client DREQs the data connection; we DREQ the control one */
		if (cm_wait(&v->cm, &data, CM_ESTABLISHED, 5000) < 0)
			rc = 1;
		if (data.state != CM_CLOSED && cm_disconnect(&v->cm, &data, 5000))
			rc = 1;
	}
	v->iters = send ? v->recvs : msn_of(v);
	if ((ctl.state == CM_ESTABLISHED || ctl.state == CM_REP_SENT) && cm_disconnect(&v->cm, &ctl, 5000))
		rc = rc ? rc : 1;
	return rc;
}

/* ucmatose's server (librdmacm/examples/cmatose.c, lab capture roce_ucmatose):
 * once established we SEND --iters messages of --size (its -C, -S), the
 * client answers with as many, and we disconnect. */
struct uc_wait {
	struct sv *v;
	struct cm_conn *c;
	uint64_t want_sends, want_recvs;
};

static int uc_ready(void *ctx)
{
	struct uc_wait *w = ctx;

	if (w->c->state == CM_CLOSED || w->c->state == CM_FAILED || w->v->failed)
		return 1;
	if (w->v->recvs)
		cm_established(w->c);
	return w->v->sends >= w->want_sends && w->v->recvs >= w->want_recvs;
}

static int ucmatose(struct sv *v, struct cm_conn *c)
{
	struct uc_wait w = { v, c, 0, 0 };
	uint8_t *sb;
	uint64_t n = v->iters;

	if (receives(v, NRECV))
		return 2;
	sb = v->rpbuf = calloc(1, v->size ? v->size : 1);
	if (!sb)
		return 2;
	v->oob_ok = 1;
	/* the RTU first: cmatose's client posts its receives before connecting,
	 * but sends only after its ESTABLISHED event */
	if (cm_wait(&v->cm, c, CM_REP_SENT, TMO) < 0 || c->state != CM_ESTABLISHED)
		cm_established(c);
	v->t0 = sess_now();
	for (uint64_t i = 0; i < n; i++) {
		struct roce_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.op = ROCE_WR_SEND;
		wr.buf = sb;
		wr.len = v->size;
		while (roce_qp_post_send(v->q->qp, &wr, sess_now()))
			if (sess_pump(&v->s, -1, 0, 10) < 0 || v->failed)
				return 1;
	}
	w.want_sends = n;
	w.want_recvs = n;
	if (sess_run(&v->s, uc_ready, &w, TMO) <= 0 || v->failed || v->sends < n || v->recvs < n) {
		fprintf(stderr, GEN_NAME " server: ucmatose: %llu of %llu sent, %llu received\n",
			(unsigned long long)v->sends, (unsigned long long)n, (unsigned long long)v->recvs);
		v->iters = v->recvs < v->sends ? v->recvs : v->sends;
		return 1;
	}
	v->t1 = sess_now();
	v->iters = n;
	return 0;
}

static int cm_mode(struct sv *v)
{
	static struct cm_conn c;
	const char *app = v->o.app;
	uint16_t port;
	int rc, r;

	if (!app)
		app = v->o.port == 7471 ? "ucmatose" : v->o.port == OOB_PORT ? "perftest" : "rping";
	if (strcmp(app, "rping") && strcmp(app, "perftest") && strcmp(app, "ucmatose")) {
		fprintf(stderr, GEN_NAME " server: --oob cm serves rping, perftest -R and ucmatose clients\n");
		return 2;
	}
	port = (uint16_t)(v->o.port >= 0 ? v->o.port :
			  !strcmp(app, "ucmatose") ? 7471 : !strcmp(app, "perftest") ? OOB_PORT : 7174);
	cm_init(&v->cm, &v->s);
	cm_listen(&v->cm, port);
	if (!strcmp(app, "perftest"))
		return pt_cm(v);
	ready(v, "rdma_cm");
	r = cm_get_request(&v->cm, &c, -1);
	if (r <= 0)
		return 1;
	/* rdma_cm: we send from the REQ's starting PSN, the peer from the REP's */
	v->rqpn = c.remote_qpn;
	v->rpsn = v->lpsn;
	v->lpsn = c.remote_psn;
	if (c.path_mtu >= 1 && c.path_mtu <= 5 && (int)c.path_mtu < v->o.mtu_enum)
		v->o.mtu_enum = c.path_mtu;
	v->q = make_qp(v, c.resp_res ? (c.resp_res < 16 ? c.resp_res : 16) : 1, 16);
	if (!v->q)
		return 2;
	if (cm_accept(&v->cm, &c, v->lqpn, v->rpsn, c.init_depth ? (c.init_depth < 16 ? c.init_depth : 16) : 1,
		      c.resp_res ? (c.resp_res < 16 ? c.resp_res : 16) : 1))
		return 1;
	snprintf(v->peer_tool, sizeof(v->peer_tool), "%s", app);
	if (!strcmp(app, "ucmatose")) {
		rc = ucmatose(v, &c);
	} else {
		v->t0 = sess_now();
		rc = rping(v, &c);
		v->t1 = sess_now();
	}
	if (c.state == CM_ESTABLISHED || c.state == CM_REP_SENT)
		if (cm_disconnect(&v->cm, &c, 5000))
			rc = rc ? rc : 1;
	return rc;
}

struct none_wait {
	struct sv *v;
	uint64_t quiet_ns;
};

static int none_done(void *ctx)
{
	struct none_wait *w = ctx;
	struct sv *v = w->v;
	uint64_t now = sess_now();

	if (v->failed)
		return 1;
	if (msn_of(v) >= (v->iters & 0xffffff) && v->s.last_rx && now - v->s.last_rx >= w->quiet_ns)
		return 1;
	/* --idle: the peer went quiet before the end */
	return v->s.last_rx && now - v->s.last_rx >= w->quiet_ns * 20;
}

static int none(struct sv *v)
{
	struct none_wait w = { v, (uint64_t)((v->o.idle > 0 ? v->o.idle : 0.3) * 1e9) };
	uint32_t slots = v->iters < 64 ? (uint32_t)v->iters : 64;

	if (!v->o.have_remote_qpn || !v->o.have_remote_psn) {
		fprintf(stderr, GEN_NAME " server: --oob none needs --remote-qpn and --remote-psn\n");
		return 2;
	}
	v->rqpn = v->o.remote_qpn;
	v->rpsn = v->o.remote_psn;
	v->q = make_qp(v, 16, 16);
	if (!v->q)
		return 2;
	if (region(v, (uint64_t)slots * v->size, v->o.have_rkey ? v->o.ext.rkey : 0x1234,
		   v->o.have_va ? v->o.ext.va : 0x10000) || receives(v, NRECV))
		return 2;
	v->crc_len = (uint64_t)slots * v->size;
	v->oob_ok = 1;
	snprintf(v->peer_tool, sizeof(v->peer_tool), "none");
	ready(v, "QP in RTS");
	if (sess_run(&v->s, none_done, &w, -1) <= 0 || v->failed)
		return 1;
	return msn_of(v) >= (v->iters & 0xffffff) ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------------------------- */

/* What is not given: the message size and count of each mode, our QP number and first PSN. */
static void sv_defaults(struct sv *v)
{
	int cm = !strcmp(v->o.oob, "cm");
	const char *app = v->o.app ? v->o.app : !cm ? "" : v->o.port == 7471 ? "ucmatose" :
			  v->o.port == OOB_PORT ? "perftest" : "rping";

	v->size = v->o.have_size ? (uint32_t)v->o.size :
		  !strcmp(v->o.oob, "pingpong") ? 4096 : !strcmp(v->o.oob, "perftest") ? 65536 :
		  !strcmp(app, "ucmatose") ? 100 : !strcmp(app, "perftest") ? 65536 : 4096;
	v->iters = v->o.have_iters ? v->o.iters : !strcmp(app, "ucmatose") ? 10 : 1000;
	v->lqpn = v->o.have_qpn ? v->o.qpn : 0x100 + sess_rand(&v->s) % 0xfffe00;
	v->lpsn = v->o.have_psn ? v->o.psn : sess_rand(&v->s) & 0xffffff;
}

/* The conversation of --oob's mode, then the last ACKs out. */
static int sv_converse(struct sv *v)
{
	int rc;

	if (!strcmp(v->o.oob, "pingpong"))
		rc = pingpong(v);
	else if (!strcmp(v->o.oob, "perftest"))
		rc = perftest(v);
	else if (!strcmp(v->o.oob, "cm"))
		rc = cm_mode(v);
	else
		rc = none(v);
	if (v->q)
		sess_wait_fd(&v->s, -1, 0, 50);
	return rc;
}

/* What came: the client decides how many messages of which size. */
static void sv_report_counts(const struct sv *v, struct report *r)
{
	r->size = v->size;
	r->iters = v->iters;
	r->completed = v->echo ? v->sends : v->recvs ? v->recvs : msn_of(v);
	if (!strcmp(v->o.oob, "cm"))
		r->completed = v->iters;
	/* the client decides how many: say what came */
	if (!strcmp(v->o.oob, "perftest") || !strcmp(v->o.oob, "cm"))
		r->iters = r->completed;
	r->bytes = v->recv_bytes;
	r->t_start = v->t0 ? v->t0 : v->s.first_rx;
	r->t_end = v->t1 ? v->t1 : v->s.last_rx;
	if (v->peer_size) {
		r->size = v->peer_size;
		r->bytes = r->completed * v->peer_size;
	} else if (!strcmp(v->o.oob, "none") && !v->recvs) {
		if (v->o.op && (!strcmp(v->o.op, "cmp_swap") || !strcmp(v->o.op, "fetch_add")))
			r->size = 8;
		r->bytes = r->completed * r->size;
	}
}

static void sv_report(struct sv *v, int rc)
{
	struct report r;

	sess_update_stats(&v->s);
	memset(&r, 0, sizeof(r));
	r.role = "server";
	r.oob = v->o.oob;
	r.op = v->o.op ? v->o.op : "-";
	r.app = v->o.app;
	sv_report_counts(v, &r);
	r.failed = v->failed;
	r.ok = rc == 0;
	r.why = rc == 0 ? NULL : !v->oob_ok ? "connection setup failed" : "the conversation did not finish";
	r.have_crc = v->recvs > 0;
	r.crc = v->recv_crc;
	if (v->region) {
		r.have_mr_crc = 1;
		r.mr_crc = roce_crc32(0, v->region, v->crc_len ? v->crc_len : v->size);
		memcpy(&r.atomic_value, v->region, 8);
		r.have_atomic = 1;
	}
	r.local_qpn = v->lqpn;
	r.local_psn = v->lpsn;
	r.remote_qpn = v->rqpn;
	r.remote_psn = v->rpsn;
	r.mtu = v->q ? v->q->attr.mtu : (uint16_t)(128u << v->o.mtu_enum);
	r.peer_tool = v->peer_tool;
	r.s = &v->s;
	r.q = v->q;
	/* the server sees no completions of WRITEs or READs: the peak comes
	 * from the payload bytes of the data QP's frames, either way */
	r.bw_peak = report_peak_meter(&v->s);
	report_cm(&r, &v->cm);
	report_print(&r, v->o.json);
}

/* Every buffer the modes allocated, and the options' own: each exit passes here. */
static void sv_free(struct sv *v)
{
	free(v->region);
	free(v->rbufs);
	free(v->ebuf);
	free(v->rorder);
	free(v->rpbuf);
	gen_opts_free(&v->o);
}

int gen_server_main(int argc, char **argv)
{
	static struct sv v;
	int rc;

	memset(&v, 0, sizeof(v));
	rc = gen_parse(GEN_SERVER, argc, argv, &v.o);
	if (rc)
		return gen_parse_exit(rc);          /* gen_parse freed what it had parsed */
	if (v.o.iwarp) {
		rc = iw_server_main(&v.o);
	} else if (!v.o.oob) {
		fprintf(stderr, GEN_NAME " server: --oob pingpong|perftest|cm|none is needed\n");
		rc = 2;
	} else if (sess_open(&v.s, &v.o)) {
		rc = 2;
	} else {
		gen_signals();
		v.s.hook = hook;
		v.s.hook_ctx = &v;
		sv_defaults(&v);
		rc = sv_converse(&v);
		sv_report(&v, rc);
		sess_close(&v.s);
		rc = rc == 2 ? 2 : rc ? 1 : 0;
	}
	sv_free(&v);
	return rc;
}
