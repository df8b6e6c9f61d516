/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm.c — the rdma_cm handshake over QP1 (cm.h).
 *
 * Field values follow what Linux's ib_cm/rdma_cm put in the REQ on rdma_rxe
 * (lab captures roce_rping, roce_ucmatose, roce_write_bw_rdmacm): CM
 * response timeouts 20, retry count 7, RNR retry 7, P_Key 0xffff, LIDs
 * 0xffff, hop limit 64, 15 max CM retries, IPv4-mapped GIDs, rdma_cm's
 * 36-byte IP header first in the private data.  A REP echoes the REQ's
 * transaction ID; the RTU and the active side's DREQ reuse it.
 */
#include <string.h>
#include "cm.h"

#define CM_RETX_NS 500000000ull
#define CM_RETRIES 8

static const char *const state_names[] = {
	"idle", "req-sent", "req-rcvd", "rep-sent", "established", "dreq-sent", "closed",
	"rejected", "failed",
};

const char *cm_state_name(enum cm_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

static uint64_t rnd64(struct cm *cm)
{
	static uint64_t x;

	if (!x)
		x = sess_now() ^ (uint64_t)cm->ca_guid ^ 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static void gid_of(const struct sess *s, const uint8_t *ip, uint8_t gid[16])
{
	if (s->ipver == 6) {
		memcpy(gid, ip, 16);
		return;
	}
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, ip, 4);
}

/* One MAD out: UD SEND_ONLY to QP1. */
static void mad_out(struct cm *cm, const uint8_t mad[ROCE_MAD_LEN])
{
	struct sess *s = cm->s;
	struct roce_frame_spec sp;
	uint8_t f[512];
	int n;

	memset(&sp, 0, sizeof(sp));
	sp.version = ROCE_VER_V2;
	memcpy(sp.eth.src, s->smac, 6);
	memcpy(sp.eth.dst, s->dmac, 6);
	sp.eth.n_vlan = (uint8_t)s->o->n_vlan;
	memcpy(sp.eth.vlan, s->o->vlan, sizeof(sp.eth.vlan));
	sp.ip.version = (uint8_t)s->ipver;
	memcpy(sp.ip.src, s->src, 16);
	memcpy(sp.ip.dst, s->dst, 16);
	sp.ip.ttl = 64;
	sp.ip.dont_fragment = 1;
	sp.sport = 0xd872;
	sp.bth.opcode = ROCE_TR_UD | ROCE_OP_SEND_ONLY;
	sp.bth.ackreq = 1;
	sp.bth.pkey = 0xffff;
	sp.bth.dqpn = 1;
	sp.bth.psn = cm->ud_psn++ & 0xffffff;
	sp.bth.pad = -1;
	sp.ext.qkey = ROCE_CM_QKEY;
	sp.ext.src_qp = 1;
	sp.payload = mad;
	sp.payload_len = ROCE_MAD_LEN;
	n = roce_build(f, sizeof(f), &sp);
	if (n > 0) {
		sess_emit(s, f, (uint32_t)n);
		cm->tx++;
	}
}

static int build(uint8_t mad[ROCE_MAD_LEN], const struct roce_cm *m, const void *priv, size_t plen)
{
	int n = roce_build_cm(mad, ROCE_MAD_LEN, m, priv, plen);

	if (n != ROCE_MAD_LEN) {
		fprintf(stderr, GEN_NAME ": cannot build a CM %s: %s\n", roce_cm_attr_name(m->attr_id),
			roce_strerror(n));
		return -1;
	}
	return 0;
}

static void send_last(struct cm *cm, struct cm_conn *c, int retx)
{
	mad_out(cm, c->last);
	if (retx)
		cm->retx++;
	c->t_retx = sess_now() + CM_RETX_NS;
}

static void send_simple(struct cm *cm, struct cm_conn *c, uint16_t attr, uint64_t tid, int keep)
{
	struct roce_cm m;
	uint8_t mad[ROCE_MAD_LEN];

	memset(&m, 0, sizeof(m));
	m.attr_id = attr;
	m.tid = tid;
	m.local_comm_id = c->local_id;
	m.remote_comm_id = c->remote_id;
	if (attr == ROCE_CM_DREQ)
		m.remote_qpn = c->remote_qpn;
	if (build(mad, &m, NULL, 0))
		return;
	if (keep) {
		memcpy(c->last, mad, sizeof(mad));
		c->retx_left = CM_RETRIES;
		send_last(cm, c, 0);
	} else {
		mad_out(cm, mad);
	}
}

static void send_rej(struct cm *cm, uint32_t local_id, uint32_t remote_id, uint64_t tid,
		     uint8_t msg, uint16_t reason)
{
	struct roce_cm m;
	uint8_t mad[ROCE_MAD_LEN];

	memset(&m, 0, sizeof(m));
	m.attr_id = ROCE_CM_REJ;
	m.tid = tid;
	m.local_comm_id = local_id;
	m.remote_comm_id = remote_id;
	m.msg_mraed = msg;
	m.rej_reason = reason;
	if (!build(mad, &m, NULL, 0)) {
		mad_out(cm, mad);
		cm->rej_tx++;
	}
}

static struct cm_conn *by_local(struct cm *cm, uint32_t id)
{
	for (unsigned i = 0; i < cm->n_conn; i++)
		if (cm->conn[i]->local_id == id)
			return cm->conn[i];
	return NULL;
}

static void add_conn(struct cm *cm, struct cm_conn *c)
{
	for (unsigned i = 0; i < cm->n_conn; i++)
		if (cm->conn[i] == c)
			return;
	if (cm->n_conn < CM_MAX_CONN)
		cm->conn[cm->n_conn++] = c;
}

/* ---- receive ------------------------------------------------------------------------------- */

static void on_req(struct cm *cm, const struct roce_pkt *p, const struct roce_cm *m)
{
	struct cm_conn *c = NULL;

	for (unsigned i = 0; i < cm->n_conn; i++)
		if (cm->conn[i]->remote_id == m->local_comm_id && cm->conn[i]->state != CM_REQ_SENT)
			c = cm->conn[i];
	if (c) {                        /* the REQ again: our REP was lost */
		cm->dup_rx++;
		if (c->state == CM_REP_SENT || c->state == CM_ESTABLISHED)
			send_last(cm, c, 1);
		return;
	}
	if (cm->have_pending && cm->pending.remote_id == m->local_comm_id) {
		cm->dup_rx++;
		return;
	}
	if (!cm->listening || m->service_id != CM_SERVICE_ID(cm->listen_port) || m->transport != 0) {
		send_rej(cm, 0, m->local_comm_id, m->tid, 0, 8 /* invalid service ID */);
		return;
	}
	if (cm->have_pending)
		return;                     /* one at a time; the peer will send it again */
	c = &cm->pending;
	memset(c, 0, sizeof(*c));
	c->state = CM_REQ_RCVD;
	c->remote_id = m->local_comm_id;
	c->tid = m->tid;
	c->service_id = m->service_id;
	c->port = (uint16_t)m->service_id;
	c->remote_qpn = m->local_qpn;
	c->remote_psn = m->start_psn;
	c->resp_res = m->resp_resources;
	c->init_depth = m->init_depth;
	c->path_mtu = m->path_mtu;
	c->rnr_retry = m->rnr_retry_count;
	c->retry_count = m->retry_count;
	c->ack_timeout = m->local_ack_timeout;
	c->peer_sport = m->ip_sport;
	if (m->private_len && m->private_off) {
		c->priv_len = m->private_len < CM_PRIV_MAX ? m->private_len : CM_PRIV_MAX;
		memcpy(c->priv, p->data + m->private_off, c->priv_len);
	}
	cm->have_pending = 1;
}

static void on_rep(struct cm *cm, const struct roce_pkt *p, const struct roce_cm *m)
{
	struct cm_conn *c = by_local(cm, m->remote_comm_id);

	if (!c) {
		cm->bad_rx++;
		return;
	}
	if (c->state == CM_ESTABLISHED || c->state == CM_DREQ_SENT || c->state == CM_CLOSED) {
		cm->dup_rx++;           /* our RTU was lost */
		if (c->state == CM_ESTABLISHED)
			send_simple(cm, c, ROCE_CM_RTU, c->tid, 0);
		return;
	}
	if (c->state != CM_REQ_SENT)
		return;
	c->remote_id = m->local_comm_id;
	c->remote_qpn = m->local_qpn;
	c->remote_psn = m->start_psn;
	c->resp_res = m->resp_resources;
	c->init_depth = m->init_depth;
	c->rnr_retry = m->rnr_retry_count;
	if (m->private_len && m->private_off) {
		c->priv_len = m->private_len < CM_PRIV_MAX ? m->private_len : CM_PRIV_MAX;
		memcpy(c->priv, p->data + m->private_off, c->priv_len);
	}
	send_simple(cm, c, ROCE_CM_RTU, c->tid, 0);
	c->state = CM_ESTABLISHED;
}

static void on_mad(void *ctx, const struct roce_pkt *p, uint64_t now)
{
	struct cm *cm = ctx;
	struct roce_cm m;
	struct cm_conn *c;

	(void)now;
	if (!p->deth_off || roce_deth_qkey(p) != ROCE_CM_QKEY || roce_cm_decode(p, &m) != ROCE_OK ||
	    m.method != 3) {
		cm->bad_rx++;
		return;
	}
	cm->rx++;
	switch (m.attr_id) {
	case ROCE_CM_REQ:
		on_req(cm, p, &m);
		break;
	case ROCE_CM_REP:
		on_rep(cm, p, &m);
		break;
	case ROCE_CM_RTU:
		c = by_local(cm, m.remote_comm_id);
		if (c && c->state == CM_REP_SENT)
			c->state = CM_ESTABLISHED;
		break;
	case ROCE_CM_MRA:
		cm->mra_rx++;
		c = by_local(cm, m.remote_comm_id);
		if (c && (c->state == CM_REQ_SENT || c->state == CM_REP_SENT)) {
			/* the peer needs 4.096 us * 2^service_timeout more */
			uint64_t more = m.service_timeout < 31 ? (uint64_t)4096 << m.service_timeout : 0;

			c->t_retx = sess_now() + more + CM_RETX_NS;
		}
		break;
	case ROCE_CM_REJ:
		cm->rej_rx++;
		c = by_local(cm, m.remote_comm_id);
		if (c && c->state != CM_CLOSED) {
			c->rej_reason = m.rej_reason;
			c->state = CM_REJECTED;
		}
		break;
	case ROCE_CM_DREQ:
		c = by_local(cm, m.remote_comm_id);
		if (c) {
			if (c->dreq_rcvd)
				cm->dup_rx++;
			c->dreq_rcvd = 1;
			send_simple(cm, c, ROCE_CM_DREP, m.tid, 0);
			c->state = CM_CLOSED;
		} else {
			/* a connection we forgot: answer anyway so the peer can finish */
			struct cm_conn t;

			memset(&t, 0, sizeof(t));
			t.local_id = m.remote_comm_id;
			t.remote_id = m.local_comm_id;
			send_simple(cm, &t, ROCE_CM_DREP, m.tid, 0);
		}
		break;
	case ROCE_CM_DREP:
		c = by_local(cm, m.remote_comm_id);
		if (c) {
			c->drep_rcvd = 1;
			if (c->state == CM_DREQ_SENT)
				c->state = CM_CLOSED;
		}
		break;
	default:
		cm->bad_rx++;
		break;
	}
}

/* ---- timers and waits ------------------------------------------------------------------------ */

static void tick(struct cm *cm, uint64_t now)
{
	for (unsigned i = 0; i < cm->n_conn; i++) {
		struct cm_conn *c = cm->conn[i];

		if ((c->state != CM_REQ_SENT && c->state != CM_REP_SENT && c->state != CM_DREQ_SENT) ||
		    now < c->t_retx)
			continue;
		if (c->retx_left-- <= 0) {
			if (c->state == CM_REP_SENT)
				continue;       /* data from the peer will establish it */
			c->state = CM_FAILED;
			continue;
		}
		send_last(cm, c, 1);
	}
}

int cm_wait(struct cm *cm, struct cm_conn *c, enum cm_state state, int timeout_ms)
{
	uint64_t end = timeout_ms >= 0 ? sess_now() + (uint64_t)timeout_ms * 1000000 : 0;

	while (c->state == state) {
		uint64_t now = sess_now(), next = now + 100000000ull;
		int left;

		tick(cm, now);
		if (c->state != state)
			break;
		if (end && now >= end)
			return 0;
		if (c->t_retx > now && c->t_retx < next)
			next = c->t_retx;
		if (end && end < next)
			next = end;
		left = (int)((next - now + 999999) / 1000000);
		if (sess_pump(cm->s, -1, 0, left) < 0)
			return -1;
	}
	return 1;
}

/* ---- the API ------------------------------------------------------------------------------------ */

void cm_init(struct cm *cm, struct sess *s)
{
	memset(cm, 0, sizeof(*cm));
	cm->s = s;
	cm->ca_guid = (uint64_t)(s->smac[0] ^ 2) << 56 | (uint64_t)s->smac[1] << 48 |
		      (uint64_t)s->smac[2] << 40 | 0xfffeull << 24 | (uint64_t)s->smac[3] << 16 |
		      (uint64_t)s->smac[4] << 8 | s->smac[5];
	cm->ack_timeout = s->o->ack_timeout >= 0 ? (uint8_t)s->o->ack_timeout : 14;
	s->qp1 = on_mad;
	s->qp1_ctx = cm;
}

int cm_connect(struct cm *cm, struct cm_conn *c, uint16_t port, uint32_t qpn, uint32_t psn,
	       uint8_t resp_res, uint8_t init_depth, const void *priv, size_t plen, int timeout_ms)
{
	struct sess *s = cm->s;
	struct roce_cm m;
	int r;

	memset(c, 0, sizeof(*c));
	c->local_id = (uint32_t)rnd64(cm);
	c->tid = rnd64(cm) & 0xffffffffffull;
	c->port = port;
	c->service_id = CM_SERVICE_ID(port);
	c->local_qpn = qpn;
	c->local_psn = psn;
	memset(&m, 0, sizeof(m));
	m.attr_id = ROCE_CM_REQ;
	m.tid = c->tid;
	m.local_comm_id = c->local_id;
	m.service_id = c->service_id;
	m.ca_guid = cm->ca_guid;
	m.local_qpn = qpn;
	m.resp_resources = resp_res;
	m.init_depth = init_depth;
	m.remote_resp_timeout = 20;
	m.local_resp_timeout = 20;
	m.start_psn = psn;
	m.retry_count = s->o->retry >= 0 ? (uint8_t)s->o->retry : 7;
	m.rnr_retry_count = s->o->rnr_retry >= 0 ? (uint8_t)s->o->rnr_retry : 7;
	m.pkey = 0xffff;
	m.path_mtu = (uint8_t)s->o->mtu_enum;
	m.local_ack_timeout = cm->ack_timeout;
	gid_of(s, s->src, m.primary_local_gid);
	gid_of(s, s->dst, m.primary_remote_gid);
	m.has_ip_hdr = 1;
	m.ip_version = (uint8_t)s->ipver;
	m.ip_sport = (uint16_t)(0x8000 | (rnd64(cm) & 0x7fff));
	if (s->ipver == 4) {
		memcpy(m.ip_src + 12, s->src, 4);
		memcpy(m.ip_dst + 12, s->dst, 4);
	} else {
		memcpy(m.ip_src, s->src, 16);
		memcpy(m.ip_dst, s->dst, 16);
	}
	add_conn(cm, c);
	for (int tries = 0;; tries++) {
		if (build(c->last, &m, priv, plen))
			return -1;
		c->state = CM_REQ_SENT;
		c->retx_left = CM_RETRIES;
		send_last(cm, c, 0);
		r = cm_wait(cm, c, CM_REQ_SENT, timeout_ms);
		if (r < 0)
			return -1;
		if (c->state == CM_ESTABLISHED)
			return 0;
		/* "invalid service ID": the peer's listener is not up yet (perftest
		 * -R listens for its data connection only after answering on the
		 * control one); rdma_cm's clients try again, so do we */
		if (c->state != CM_REJECTED || c->rej_reason != 8 || tries >= 50)
			break;
		if (sess_wait_fd(s, -1, 0, 100) < 0)
			return -1;
		c->local_id = (uint32_t)rnd64(cm);
		m.local_comm_id = c->local_id;
	}
	if (c->state == CM_REJECTED)
		fprintf(stderr, GEN_NAME ": the peer rejected the connection to port %u (REJ reason %u)\n",
			port, c->rej_reason);
	else
		fprintf(stderr, GEN_NAME ": no CM reply from the peer for port %u\n", port);
	return -1;
}

void cm_listen(struct cm *cm, uint16_t port)
{
	cm->listen_port = port;
	cm->listening = 1;
}

static int have_pending(void *ctx)
{
	return ((struct cm *)ctx)->have_pending;
}

int cm_get_request(struct cm *cm, struct cm_conn *c, int timeout_ms)
{
	int r = sess_run(cm->s, have_pending, cm, timeout_ms);

	if (r <= 0)
		return r;
	*c = cm->pending;
	cm->have_pending = 0;
	c->local_id = (uint32_t)rnd64(cm);
	add_conn(cm, c);
	return 1;
}

int cm_accept(struct cm *cm, struct cm_conn *c, uint32_t qpn, uint32_t psn, uint8_t resp_res,
	      uint8_t init_depth)
{
	struct roce_cm m;

	c->local_qpn = qpn;
	c->local_psn = psn;
	memset(&m, 0, sizeof(m));
	m.attr_id = ROCE_CM_REP;
	m.tid = c->tid;
	m.local_comm_id = c->local_id;
	m.remote_comm_id = c->remote_id;
	m.local_qpn = qpn;
	m.start_psn = psn;
	m.resp_resources = resp_res;
	m.init_depth = init_depth;
	m.target_ack_delay = 15;
	m.rnr_retry_count = cm->s->o->rnr_retry >= 0 ? (uint8_t)cm->s->o->rnr_retry : 7;
	m.ca_guid = cm->ca_guid;
	if (build(c->last, &m, NULL, 0))
		return -1;
	c->state = CM_REP_SENT;
	c->retx_left = CM_RETRIES;
	send_last(cm, c, 0);
	return 0;
}

void cm_established(struct cm_conn *c)
{
	if (c->state == CM_REP_SENT)
		c->state = CM_ESTABLISHED;
}

void cm_reject(struct cm *cm, struct cm_conn *c, uint16_t reason)
{
	send_rej(cm, c->local_id, c->remote_id, c->tid, 0, reason);
	c->state = CM_REJECTED;
}

int cm_disconnect(struct cm *cm, struct cm_conn *c, int timeout_ms)
{
	int r;

	if (c->state == CM_CLOSED)
		return 0;
	if (c->state != CM_ESTABLISHED && c->state != CM_REP_SENT)
		return -1;
	if (!c->dreq_tid)
		c->dreq_tid = c->tid ? c->tid : rnd64(cm) & 0xffffffffffull;
	send_simple(cm, c, ROCE_CM_DREQ, c->dreq_tid, 1);
	c->state = CM_DREQ_SENT;
	r = cm_wait(cm, c, CM_DREQ_SENT, timeout_ms);
	if (r < 0)
		return -1;
	if (c->state == CM_CLOSED)
		return 0;
	fprintf(stderr, GEN_NAME ": no DREP from the peer\n");
	return -1;
}
