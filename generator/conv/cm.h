/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm.h — rdma_cm's connection handshake on the wire (IBTA vol. 1 ch. 12),
 * both ends, for RoCEv2: CM MADs in UD SEND_ONLY frames to QP1 (DETH Q_Key
 * 0x80010000, source QP 1), built with roce_build_cm() and read with
 * roce_cm_decode().
 *
 *   active (client)                      passive (server)
 *   REQ  (service ID 0x0000000001060000 | port, rdma_cm's IP header in the
 *         private data, our QPN and starting PSN)  ─▶
 *                                   ◀─  REP (its QPN, PSN), or REJ, or MRA
 *   RTU ─▶                              (data may flow)
 *   DREQ ─▶  ◀─ DREP      (either side may start; crossing DREQs are fine)
 *
 * Messages that go unanswered are sent again (REQ and DREQ every 500 ms,
 * REP until the RTU or the first data frame; an MRA pushes the REQ's timer
 * out by its service timeout); a repeated REQ, REP or DREQ from the peer is
 * answered again from the connection's state.  A REQ for a port nobody
 * listens on gets a REJ (invalid service ID).
 */
#ifndef ROCEGEN_CM_H
#define ROCEGEN_CM_H

#include <stdint.h>
#include "session.h"

#define CM_PS_TCP 0x0106
#define CM_SERVICE_ID(port) (0x0000000001000000ull | ((uint64_t)CM_PS_TCP << 16) | (port))
#define CM_MAX_CONN 4
#define CM_PRIV_MAX 92

enum cm_state {
	CM_IDLE = 0,
	CM_REQ_SENT,
	CM_REQ_RCVD,         /* passive: a REQ waits for cm_accept() */
	CM_REP_SENT,
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_CLOSED,           /* DREQ answered or DREP received */
	CM_REJECTED,
	CM_FAILED,           /* no answer */
};

struct cm_conn {
	enum cm_state state;
	uint32_t local_id, remote_id;
	uint64_t tid, dreq_tid;
	uint16_t port;
	uint64_t service_id;
	uint32_t local_qpn, remote_qpn;
	uint32_t local_psn, remote_psn;     /* the starting PSNs in our message and in
					     * the peer's: each side SENDS from the
					     * other's (ib_cm, lab captures) */
	uint8_t resp_res, init_depth;       /* what the peer offers */
	uint8_t path_mtu;                   /* IB enum, from the REQ */
	uint8_t rnr_retry, retry_count, ack_timeout;
	uint16_t rej_reason;
	uint16_t peer_sport;                /* rdma_cm header of a REQ */
	uint8_t priv[CM_PRIV_MAX];          /* consumer private data received */
	uint32_t priv_len;
	uint8_t last[ROCE_MAD_LEN];         /* our last message, for resending */
	uint64_t t_retx;
	int retx_left;
	int dreq_rcvd, drep_rcvd;
};

struct cm {
	struct sess *s;
	uint32_t ud_psn;
	uint64_t ca_guid;
	uint16_t listen_port;
	int listening;
	struct cm_conn *conn[CM_MAX_CONN];
	unsigned n_conn;
	struct cm_conn pending;             /* passive: the REQ not yet taken */
	int have_pending;
	uint8_t ack_timeout;                /* what we ask the peer for */
	uint64_t tx, rx, retx, rej_rx, rej_tx, mra_rx, dup_rx, bad_rx;
};

/* Hooks the CM up to the session's QP1. */
void cm_init(struct cm *cm, struct sess *s);
/* Active side: REQ to port for our QP, until REP (then RTU) or REJ.
 * 0 established; -1 rejected, no answer or stop (printed). */
int cm_connect(struct cm *cm, struct cm_conn *c, uint16_t port, uint32_t qpn, uint32_t psn,
	       uint8_t resp_res, uint8_t init_depth, const void *priv, size_t plen, int timeout_ms);
/* Passive side. */
void cm_listen(struct cm *cm, uint16_t port);
/* The next REQ: 1 (c filled, state CM_REQ_RCVD), 0 timeout, -1 stop. */
int cm_get_request(struct cm *cm, struct cm_conn *c, int timeout_ms);
/* REP with our QP; the connection is established by the RTU or by
 * cm_established() when the peer's first data frame comes. */
int cm_accept(struct cm *cm, struct cm_conn *c, uint32_t qpn, uint32_t psn, uint8_t resp_res,
	      uint8_t init_depth);
void cm_established(struct cm_conn *c);
/* REJ (consumer reject) to a REQ received. */
void cm_reject(struct cm *cm, struct cm_conn *c, uint16_t reason);
/* DREQ until DREP or the peer's own DREQ: 0, or -1 no answer / stop. */
int cm_disconnect(struct cm *cm, struct cm_conn *c, int timeout_ms);
/* Waits until c leaves state: 1, 0 timeout, -1 stop. */
int cm_wait(struct cm *cm, struct cm_conn *c, enum cm_state state, int timeout_ms);
const char *cm_state_name(enum cm_state s);

#endif /* ROCEGEN_CM_H */
