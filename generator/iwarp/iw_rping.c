/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_rping.c — `rocegen client --transport iwarp --oob cm --app rping`:
 * rping's client over iWARP.  rdma_cm on iWARP is the TCP connection and
 * the MPA exchange (the kernel's iw_cm hands the user's private data to MPA
 * as it is: rping has none), so the conversation is iw_conn.c's, on port
 * 7174, followed by rping's own protocol for each of --iters rounds:
 *
 *   client SEND {be64 buf, be32 rkey, be32 size} of its start buffer
 *   server RDMA READs the start buffer           (served by iw_rx.c)
 *   server SEND "go ahead"
 *   client SEND {…} of its sink buffer
 *   server RDMA WRITEs what it read into the sink
 *   server SEND "done"
 *
 * and the client checks sink == start (what `rping -v` checks).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw.h"
#include "session.h"

#define RP_PORT 7174
#define RP_INFO 16
#define START_STAG 0x00a1b200u
#define SINK_STAG 0x00c3d400u
#define START_TO 0x7f0000001000ull
#define SINK_TO 0x7f0000101000ull

struct rp {
	struct gen_opts *o;
	struct iw w;
	uint32_t size;
	uint64_t iters, done, mismatches, sends_rx;
	uint8_t *start, *sink;
	uint8_t rq[64];
	uint32_t crc;
};

static void on_send(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct rp *r = ctx;

	(void)op;
	(void)data;
	(void)len;
	(void)inv;
	r->sends_rx++;
	iw_post_recv(w, r->rq, sizeof(r->rq));
}

/* Round k's start buffer as rping's client makes it: a text line ending in
 * NUL, because rping's server writes back strlen() + 1 bytes of what it
 * read. */
static void fill(uint8_t *b, uint32_t size, uint64_t k)
{
	int n;
	char c = (char)('A' + k % 58);

	if (!size)
		return;
	n = snprintf((char *)b, size, "rocegen-ping-%llu: ", (unsigned long long)k);
	for (uint32_t i = n < 0 ? 0 : (uint32_t)n; i < size; i++) {
		b[i] = (uint8_t)c;
		c = c >= 'z' ? 'A' : (char)(c + 1);
	}
	b[size - 1] = 0;
}

static int info(struct rp *r, uint64_t to, uint32_t stag)
{
	uint8_t m[RP_INFO];

	for (int i = 0; i < 8; i++)
		m[i] = (uint8_t)(to >> (56 - 8 * i));
	for (int i = 0; i < 4; i++) {
		m[8 + i] = (uint8_t)(stag >> (24 - 8 * i));
		m[12 + i] = (uint8_t)(r->size >> (24 - 8 * i));
	}
	return iw_post_send(&r->w, ROCE_RDMAP_SEND, m, sizeof(m), 0);
}

/* Pumps until the server's SENDs number n; 0 or -1. */
static int sends_reach(struct rp *r, uint64_t n)
{
	int idle = 0, limit = (int)(r->o->timeout > 0 ? r->o->timeout : 30);

	while (r->sends_rx < n) {
		int k = iw_pump(&r->w, 1000);

		if (k < 0 || r->w.dead || gen_stop) {
			if (!r->w.why[0])
				snprintf(r->w.why, sizeof(r->w.why), "the server closed the connection");
			return -1;
		}
		idle = k ? 0 : idle + 1;
		if (idle >= limit) {
			snprintf(r->w.why, sizeof(r->w.why), "timed out waiting for rping's SEND");
			return -1;
		}
	}
	return 0;
}

static int rounds(struct rp *r, struct iw_report *rep)
{
	struct iw *w = &r->w;

	iw_post_recv(w, r->rq, sizeof(r->rq));
	if (iw_add_mr(w, START_STAG, START_TO, r->start, r->size, 1, 0) ||
	    iw_add_mr(w, SINK_STAG, SINK_TO, r->sink, r->size, 0, 1))
		return -1;
	if (iw_connect(w, NULL, 0))
		return -1;
	/* siw (6.1 siw_accept) sends its MPA reply before it hands the socket
	 * to the QP; without an RTR nothing tells when that is done, and a
	 * SEND that arrives first was seen to leave siw's Read Request unsent.
	 * Give it a moment, as a kernel initiator's own path does. */
	if (!w->p2p)
		poll(NULL, 0, 100);
	rep->t_start = sess_now();
	for (uint64_t k = 0; k < r->iters && !gen_stop; k++) {
		fill(r->start, r->size, k);
		memset(r->sink, 0, r->size);
		if (info(r, START_TO, START_STAG) || sends_reach(r, 2 * k + 1) ||
		    info(r, SINK_TO, SINK_STAG) || sends_reach(r, 2 * k + 2))
			return -1;
		if (memcmp(r->start, r->sink, r->size))
			r->mismatches++;
		r->crc = roce_crc32(r->crc, r->sink, r->size);
		r->done++;
	}
	rep->t_end = sess_now();
	shutdown(w->fd, SHUT_WR);
	while (iw_pump(w, 2000) > 0 && !w->eof)
		;
	return 0;
}

int iw_rping_client(struct gen_opts *o)
{
	static struct rp r;
	struct iw_report rep;
	int rc;

	memset(&r, 0, sizeof(r));
	r.o = o;
	if (o->port < 0)
		o->port = RP_PORT;
	r.size = o->have_size ? (uint32_t)o->size : 64;
	/* what rping's rdma_cm asks for (responder_resources, initiator_depth 1) */
	if (o->ird < 0)
		o->ird = 1;
	if (o->ord < 0)
		o->ord = 1;
	r.iters = o->have_iters ? o->iters : 10;
	if (iw_init(&r.w, o, 0))
		return 2;
	r.start = calloc(1, r.size ? r.size : 1);
	r.sink = calloc(1, r.size ? r.size : 1);
	if (!r.start || !r.sink)
		return 2;
	r.w.ctx = &r;
	r.w.on_send = on_send;
	gen_signals();
	memset(&rep, 0, sizeof(rep));
	rc = rounds(&r, &rep);
	rep.role = "client";
	rep.op = "rping";
	rep.oob = "cm";
	rep.size = r.size;
	rep.iters = r.iters;
	rep.completed = r.done;
	rep.ok = rc == 0 && r.done == r.iters && !r.w.term_rx.have && !r.mismatches;
	rep.why = r.w.why[0] ? r.w.why : r.mismatches ? "the data rping wrote back differs" : NULL;
	rep.have_crc = 1;
	rep.crc = r.crc;
	rep.mismatches = r.mismatches;
	rep.verified = 1;
	rep.w = &r.w;
	iw_report_print(&rep, o->json);
	iw_free(&r.w);
	free(r.start);
	free(r.sink);
	return rep.ok ? 0 : 1;
}

/* ---- rping's server ------------------------------------------------------------
 * `rocegen server --transport iwarp --oob cm --app rping` against `rping -c`:
 * per round, the client's SEND of its start buffer, our RDMA READ of it, our
 * SEND, the client's SEND of its sink buffer, our RDMA WRITE of what we read
 * (strlen + 1 bytes, as rping's server writes), our SEND; until the client
 * closes.  `rping -c -v` checks what we wrote against what it sent. */

#define SV_STAG 0x00e5f600u
#define SV_TO 0x7f0000201000ull

struct rps {
	struct rp r;
	uint8_t info[RP_INFO];
	uint64_t rx_to;
	uint32_t rx_stag, rx_size;
};

static void sv_on_send(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct rps *v = ctx;

	(void)op;
	(void)inv;
	if (len >= RP_INFO)
		memcpy(v->info, data, RP_INFO);
	v->r.sends_rx++;
	iw_post_recv(w, v->r.rq, sizeof(v->r.rq));
}

/* The client's {buf, rkey, size}. */
static void take_info(struct rps *v)
{
	v->rx_to = 0;
	for (int i = 0; i < 8; i++)
		v->rx_to = v->rx_to << 8 | v->info[i];
	v->rx_stag = (uint32_t)v->info[8] << 24 | (uint32_t)v->info[9] << 16 | (uint32_t)v->info[10] << 8 | v->info[11];
	v->rx_size = (uint32_t)v->info[12] << 24 | (uint32_t)v->info[13] << 16 | (uint32_t)v->info[14] << 8 | v->info[15];
}

static int reads_reach(struct rp *r, uint64_t n)
{
	while (r->w.st.reads_done < n) {
		int k = iw_pump(&r->w, 1000);

		if (k < 0 || r->w.dead || gen_stop)
			return -1;
	}
	return 0;
}

/* One round; 1 when the client closed instead of starting it. */
static int sv_round(struct rps *v, uint64_t k)
{
	struct rp *r = &v->r;
	uint32_t n;

	if (sends_reach(r, 2 * k + 1))
		return r->w.eof && !r->w.dead && r->w.reads_out == 0 ? 1 : -1;
	take_info(v);
	n = v->rx_size < r->size ? v->rx_size : r->size;
	if (iw_post_read(&r->w, SV_STAG, SV_TO, n, v->rx_stag, v->rx_to) || reads_reach(r, k + 1) ||
	    info(r, SV_TO, SV_STAG) || sends_reach(r, 2 * k + 2))
		return -1;
	take_info(v);
	n = (uint32_t)strnlen((const char *)r->sink, n ? n - 1 : 0) + 1;
	if (strncmp((const char *)r->sink, "rdma-ping-", 10) && strncmp((const char *)r->sink, "rocegen-ping-", 13))
		r->mismatches++;
	r->crc = roce_crc32(r->crc, r->sink, n);
	if (iw_post_write(&r->w, v->rx_stag, v->rx_to, r->sink, n < v->rx_size ? n : v->rx_size) ||
	    info(r, SV_TO, SV_STAG))
		return -1;
	r->done++;
	return 0;
}

int iw_rping_server(struct gen_opts *o)
{
	static struct rps v;
	struct rp *r = &v.r;
	struct iw_report rep;
	int rc = 0;

	memset(&v, 0, sizeof(v));
	r->o = o;
	if (o->port < 0)
		o->port = RP_PORT;
	if (o->ird < 0)
		o->ird = 1;
	if (o->ord < 0)
		o->ord = 1;
	r->size = o->have_size ? (uint32_t)o->size : 64;
	if (iw_init(&r->w, o, 1))
		return 2;
	r->sink = calloc(1, r->size ? r->size : 1);
	if (!r->sink)
		return 2;
	r->w.ctx = &v;
	r->w.on_send = sv_on_send;
	gen_signals();
	memset(&rep, 0, sizeof(rep));
	iw_post_recv(&r->w, r->rq, sizeof(r->rq));
	iw_add_mr(&r->w, SV_STAG, SV_TO, r->sink, r->size, 0, 1);
	if (iw_accept(&r->w, NULL, 0))
		rc = -1;
	rep.t_start = sess_now();
	for (uint64_t k = 0; !rc && !gen_stop; k++)
		rc = sv_round(&v, k);
	rep.t_end = sess_now();
	if (!r->w.dead)
		shutdown(r->w.fd, SHUT_WR);
	rep.role = "server";
	rep.op = "rping";
	rep.oob = "cm";
	rep.size = r->size;
	rep.iters = o->have_iters ? o->iters : r->done;
	rep.completed = r->done;
	rep.ok = rc == 1 && r->done > 0 && !r->mismatches && (!o->have_iters || r->done == o->iters);
	rep.why = r->w.why[0] ? r->w.why : r->mismatches ? "what rping sent is not rping's text" : NULL;
	rep.have_crc = 1;
	rep.crc = r->crc;
	rep.mismatches = r->mismatches;
	rep.w = &r->w;
	iw_report_print(&rep, o->json);
	iw_free(&r->w);
	free(r->sink);
	return rep.ok ? 0 : 1;
}
