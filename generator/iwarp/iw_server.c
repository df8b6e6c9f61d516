/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_server.c — `rocegen server --transport iwarp`: the responder.  It
 * accepts one TCP connection on --port (default 5044), answers the MPA
 * request (or rejects it: --reject, --no-crc against C, no matching RTR),
 * and offers one region (STag --rkey, TO --va, --size x min(--iters, 16)
 * bytes holding sess_fill_region()'s pattern) in the reply's private data.
 * Then it serves: SENDs into a --size receive buffer (re-posted after each
 * message), WRITEs into the region, READs out of it — every error answered
 * with a Terminate (iw_rx.c) — until the client closes.  The report gives
 * the CRC-32 of the SEND payloads received and of the region at the end.
 * --fault zero-window[@N] (iw_tcp.c): after N messages (default: half of
 * --iters, else 1) it stops reading for IW_STALL_MS; --fault tcp-loss=P%
 * (iw_tcploss.c) drops P % of the segments with data it receives.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw.h"
#include "iw_perftest.h"
#include "session.h"

struct isv {
	struct gen_opts *o;
	struct iw w;
	uint32_t size;
	uint8_t *region, *rq;
	uint32_t rlen;
	uint64_t sends;
	uint32_t send_crc;
};

static void on_send(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct isv *v = ctx;

	(void)op;
	(void)inv;
	v->sends++;
	v->send_crc = roce_crc32(v->send_crc, data, len);
	iw_post_recv(w, v->rq, v->size);
}

static void be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Messages received whole (the RTR's WRITE aside). */
static uint64_t received(const struct isv *v)
{
	const struct iw *w = &v->w;

	return v->sends + w->st.rx_msgs[ROCE_RDMAP_WRITE] - (w->rtr == IW_RTR_WRITE ? w->st.rtr_rx : 0) +
	       w->st.read_served;
}

static int serve(struct isv *v)
{
	struct iw *w = &v->w;
	uint32_t stag = v->o->have_rkey ? v->o->ext.rkey : 0x51a60100u;
	uint64_t to = v->o->have_va ? v->o->ext.va : 0x10000;
	uint8_t pd[16];
	int idle = 0, limit = (int)(v->o->timeout > 0 ? v->o->timeout : 60);

	be(pd, stag, 4);
	be(pd + 4, to, 8);
	be(pd + 12, v->rlen, 4);
	iw_add_mr(w, stag, to, v->region, v->rlen, 1, 1);
	iw_post_recv(w, v->rq, v->size);
	if (iw_accept(w, pd, sizeof(pd)))
		return -1;
	/* until the client closes (also after a Terminate either way) */
	while (!gen_stop) {
		int r = iw_pump(w, 1000);

		if (r < 0)
			break;
		if (w->fault_armed && received(v) >= w->fault_at)
			iw_tcp_stall(w);
		idle = r ? 0 : idle + 1;
		if (idle >= limit) {
			snprintf(w->why, sizeof(w->why), "timed out: the client went quiet");
			return -1;
		}
	}
	if (!w->dead)
		shutdown(w->fd, SHUT_WR);
	return w->dead || !w->eof || w->tcp.reset_rx ? -1 : 0;
}

int iw_server_main(struct gen_opts *o)
{
	static struct isv v;
	struct iw_report r;
	uint64_t slots;
	int rc;

	if (o->oob && !strcmp(o->oob, "cm") && (!o->app || !strcmp(o->app, "rping")))
		return iw_rping_server(o);
	if (o->oob && !strcmp(o->oob, "cm") && !strcmp(o->app, "perftest"))
		return iw_perftest_server(o);
	if (o->oob && !strcmp(o->oob, "cm") && !strcmp(o->app, "ucmatose"))
		return iw_ucmatose_server(o);
	memset(&v, 0, sizeof(v));
	v.o = o;
	v.size = o->have_size ? (uint32_t)o->size : 65536;
	slots = o->have_iters && o->iters < 16 ? o->iters : 16;
	v.rlen = (uint32_t)(v.size * slots > 8 ? v.size * slots : 8);
	if (iw_init(&v.w, o, 1))
		return 2;
	if (o->n_fault > 1 || (o->n_fault && (iw_fault_parse(o->fault[0], &v.w.fault, &v.w.fault_at) ||
					      (v.w.fault != IW_F_ZERO_WINDOW && v.w.fault != IW_F_TCP_LOSS)))) {
		fprintf(stderr, GEN_NAME " server: --fault: zero-window[@N] or tcp-loss=P%% (the others are the client's)\n");
		iw_free(&v.w);
		return 2;
	}
	iw_tcp_loss_take(&v.w, &v.w.fault, &v.w.fault_at);
	if (v.w.fault && v.w.fault_at == UINT64_MAX)
		v.w.fault_at = o->have_iters && o->iters > 1 ? o->iters / 2 : 1;
	v.w.fault_armed = v.w.fault != IW_F_NONE;
	v.region = malloc(v.rlen);
	v.rq = malloc(v.size ? v.size : 1);
	if (!v.region || !v.rq)
		return 2;
	sess_fill_region(v.region, v.rlen);
	v.w.ctx = &v;
	v.w.on_send = on_send;
	gen_signals();
	memset(&r, 0, sizeof(r));
	r.t_start = sess_now();
	rc = serve(&v);
	r.t_end = sess_now();
	r.role = "server";
	r.op = o->op;
	r.oob = "mpa";
	r.size = v.size;
	r.iters = o->have_iters ? o->iters : 0;
	r.completed = received(&v);
	/* a reject (--reject, --no-crc, no RTR in common) was the job */
	r.ok = rc == 0 || v.w.rejected;
	r.why = v.w.why[0] ? v.w.why : NULL;
	r.have_crc = 1;
	r.crc = o->op && strcmp(o->op, "send") ? roce_crc32(0, v.region, v.rlen) : v.send_crc;
	r.w = &v.w;
	iw_report_print(&r, o->json);
	iw_free(&v.w);
	free(v.region);
	free(v.rq);
	return r.ok ? 0 : 1;
}
