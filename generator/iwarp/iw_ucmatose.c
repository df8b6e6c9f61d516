/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_ucmatose.c — `rocegen client|server --transport iwarp --oob cm --app
 * ucmatose`: both ends of `ucmatose` (rdma_cm's cmatose test) on an iWARP
 * device.  Port 7471, MPA IRD/ORD 1/1 (what cmatose's rdma_connect and
 * rdma_accept ask); the server SENDs --iters messages of --size bytes as
 * soon as its MPA reply is out (rocegen's server: 200 ms after it, see
 * serve(); peer-to-peer: once the client's RTR came),
 * the client receives them all (a receive is posted before the MPA request
 * goes out), SENDs as many back, and waits for the server to close (lab
 * capture iwarp_ucmatose).  The server closes (rdma_disconnect: our FIN)
 * once every reply came, then waits for the client's close.  As client,
 * peer-to-peer, our RTR goes 100 ms after the reply.  Each side's CRC-32 is
 * of the messages it received (both sides send sess_fill()'s messages, so
 * the two CRCs agree when every byte arrived).  The client's --fault
 * tcp-rst[@N] (iw_tcp.c) cuts its reply N (default: the middle one) with a
 * TCP RST; --fault tcp-loss=P% (either side, iw_tcploss.c) drops P % of the
 * segments with data it receives.  Reported as iw_report.c does.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw_perftest.h"
#include "session.h"

#define IWUC_SETTLE_MS 200      /* server, no RTR: from the MPA reply to the first SEND */

struct uc {
	struct gen_opts *o;
	struct iw w;
	uint32_t size;
	uint64_t iters, rx, sent, short_rx;
	uint8_t *rq;
	uint32_t crc;
	int fault;                  /* client: --fault tcp-rst[@N] on our reply N (tcp-loss: in u.w.tcp) */
	uint64_t fault_at;
};

static void on_msg(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct uc *u = ctx;

	(void)op;
	(void)inv;
	if (len != u->size)
		u->short_rx++;
	u->crc = roce_crc32(u->crc, data, len);
	u->rx++;
	iw_post_recv(w, u->rq, u->size + 64);
}

/* Pumps until cond holds; 0, or -1 (why set). */
static int pump_until(struct uc *u, const uint64_t *have, uint64_t want, int want_eof, const char *what)
{
	int idle = 0, limit = (int)(u->o->timeout > 0 ? u->o->timeout : 30);

	while (want_eof ? !u->w.eof : *have < want) {
		int r = iw_pump(&u->w, 1000);

		if ((r < 0 && !(want_eof && u->w.eof)) || u->w.dead || gen_stop) {
			if (!u->w.why[0])
				snprintf(u->w.why, sizeof(u->w.why), "the server closed while %s", what);
			return -1;
		}
		idle = r ? 0 : idle + 1;
		if (idle >= limit) {
			snprintf(u->w.why, sizeof(u->w.why), "timed out while %s", what);
			return -1;
		}
	}
	return 0;
}

/* Our --iters messages (sess_fill()'s pattern, message k). */
static int send_all(struct uc *u)
{
	uint8_t *m = calloc(1, u->size ? u->size : 1);
	int rc = 0;

	if (!m)
		return -1;
	for (uint64_t k = 0; k < u->iters && !rc; k++) {
		sess_fill(m, u->size, (uint32_t)k);
		if (u->fault && k == u->fault_at) {
			u->w.fault = u->fault;
			u->w.fault_armed = 1;
		}
		rc = iw_post_send(&u->w, ROCE_RDMAP_SEND, m, u->size, 0);
		if (!rc)
			u->sent++;
	}
	free(m);
	return rc;
}

static int converse(struct uc *u, struct iw_report *rep)
{
	int rc;

	iw_post_recv(&u->w, u->rq, u->size + 64);
	if (iw_connect(&u->w, NULL, 0))
		return -1;
	rep->t_start = sess_now();
	if (pump_until(u, &u->rx, u->iters, 0, "receiving its messages") || send_all(u))
		return -1;
	rep->t_end = sess_now();
	rc = pump_until(u, NULL, 0, 1, "waiting for its disconnect");
	if (!u->w.dead)
		shutdown(u->w.fd, SHUT_WR);
	return rc;
}

/* The server's side: accept, (the RTR,) our messages, the replies, our close. */
static int serve(struct uc *u, struct iw_report *rep)
{
	iw_post_recv(&u->w, u->rq, u->size + 64);
	if (iw_accept(&u->w, NULL, 0))
		return -1;
	rep->t_start = sess_now();
	if (u->w.await_rtr && pump_until(u, &u->w.st.rtr_rx, 1, 0, "waiting for its RTR"))
		return -1;
	/* siw as the initiator reads its reply's private data and 4 bytes more
	 * (siw_cm.c siw_recv_mpa_rr): an FPDU already there fails the
	 * connection (-EPROTO, ucmatose: CONNECT_ERROR -22, seen in the lab) */
	if (!u->w.p2p)
		poll(NULL, 0, IWUC_SETTLE_MS);
	if (send_all(u) || pump_until(u, &u->rx, u->iters, 0, "receiving its replies"))
		return -1;
	rep->t_end = sess_now();
	shutdown(u->w.fd, SHUT_WR);
	return pump_until(u, NULL, 0, 1, "waiting for its disconnect");
}

/* One end of the conversation (server: 1) and its report. */
static int ucmatose(struct gen_opts *o, int server)
{
	static struct uc u;
	struct iw_report rep;
	int rc;

	memset(&u, 0, sizeof(u));
	u.o = o;
	if (o->port < 0)
		o->port = IWUC_PORT;
	if (o->ird < 0)
		o->ird = 1;
	if (o->ord < 0)
		o->ord = 1;
	u.size = o->have_size ? (uint32_t)o->size : 100;
	u.iters = o->have_iters ? o->iters : 10;
	if (o->n_fault > 1 || (o->n_fault && (iw_fault_parse(o->fault[0], &u.fault, &u.fault_at) ||
					      (u.fault != IW_F_TCP_LOSS && (server || u.fault != IW_F_TCP_RST))))) {
		fprintf(stderr, GEN_NAME " %s: --fault: ucmatose takes tcp-loss=P%% (either side) or tcp-rst[@N] "
			"(the client)\n", server ? "server" : "client");
		return 2;
	}
	u.rq = calloc(1, u.size + 64);
	if (!u.rq || iw_init(&u.w, o, server))
		return 2;
	iw_tcp_loss_take(&u.w, &u.fault, &u.fault_at);
	if (u.fault && u.fault_at == UINT64_MAX)
		u.fault_at = u.iters / 2;
	u.w.ctx = &u;
	u.w.on_send = on_msg;
	gen_signals();
	memset(&rep, 0, sizeof(rep));
	rc = server ? serve(&u, &rep) : converse(&u, &rep);
	rep.role = server ? "server" : "client";
	rep.op = "ucmatose";
	rep.oob = "cm";
	rep.size = u.size;
	rep.iters = u.iters;
	rep.completed = u.rx < u.sent ? u.rx : u.sent;
	rep.ok = rc == 0 && u.rx == u.iters && u.sent == u.iters && !u.short_rx && !u.w.term_rx.have;
	rep.why = u.w.why[0] ? u.w.why : u.short_rx ? "a message of another size than --size" : NULL;
	rep.have_crc = 1;
	rep.crc = u.crc;
	rep.w = &u.w;
	iw_report_print(&rep, o->json);
	iw_free(&u.w);
	free(u.rq);
	return rep.ok ? 0 : 1;
}

int iw_ucmatose_client(struct gen_opts *o)
{
	return ucmatose(o, 0);
}

int iw_ucmatose_server(struct gen_opts *o)
{
	return ucmatose(o, 1);
}
