/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_client.c — `rocegen client --transport iwarp`: the requester.  After
 * the MPA exchange (iw_conn.c) it learns the server's region from the
 * reply's private data (--oob mpa: STag 4, TO 8, length 4, big-endian,
 * after the RTR word; or --rkey/--va on the command line), then runs
 * --iters messages of --op and --size:
 *
 *   send   SENDs (--se: Send with SE); CRC-32 of all payloads sent
 *   write  RDMA WRITEs into slot k of the region; CRC-32 of the region as
 *          the client expects it to end up (the server prints its own)
 *   read   RDMA READs of slot k, at most ORD outstanding, each byte checked
 *          against the region's known pattern
 *
 * then a 1-byte READ as a fence (every earlier WRITE/SEND was placed), a
 * close, and the report.  --fault KIND[@N] spoils message N (default: the
 * middle one); the client then waits for the server's Terminate and close
 * (tcp-rst: iw_tcp.c cuts message N with a TCP RST, nothing is awaited).
 * --fault tcp-loss=P% spoils no message: iw_tcploss.c drops P % of the
 * segments the client receives, and the run must end clean.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw.h"
#include "iw_perftest.h"
#include "session.h"

#define SINK_STAG 0x2000

struct icl {
	struct gen_opts *o;
	struct iw w;
	const char *op;
	uint32_t size;
	uint64_t iters, done;
	uint32_t rstag, rlen, slots;
	uint64_t rto;
	int verify;
	uint8_t *img;            /* the server's region as we expect it */
	uint8_t *sink;           /* READ sink: ORD slots */
	uint32_t sink_slots;
	uint8_t *msg;
	uint32_t crc;
	uint64_t mismatches;
	uint64_t reads_posted;
	uint32_t skip_reads;     /* Read Responses that are not ours to count (the RTR) */
	int fault;
	uint64_t fault_at;
};

static void on_read(void *ctx, struct iw *w)
{
	struct icl *c = ctx;
	uint64_t k = c->done;

	(void)w;
	if (c->skip_reads) {
		c->skip_reads--;
		return;
	}
	if (k >= c->iters)
		return;   /* the fence or the RTR */
	if (c->verify) {
		const uint8_t *got = c->sink + (size_t)(k % c->sink_slots) * c->size;
		const uint8_t *want = c->img + (size_t)(k % c->slots) * c->size;

		if (memcmp(got, want, c->size))
			c->mismatches++;
	}
	c->crc = roce_crc32(c->crc, c->sink + (size_t)(k % c->sink_slots) * c->size, c->size);
	c->done++;
}

/* Pumps until cond() or the stream ends; 0, or -1 when it ended. */
static int wait_for(struct icl *c, int (*cond)(struct icl *))
{
	int idle = 0, limit = (int)(c->o->timeout > 0 ? c->o->timeout : 30);

	while (!cond(c)) {
		int r = iw_pump(&c->w, 1000);

		if (r < 0 || c->w.dead || gen_stop)
			return -1;
		idle = r ? 0 : idle + 1;
		if (idle >= limit) {
			snprintf(c->w.why, sizeof(c->w.why), "timed out waiting for the peer");
			return -1;
		}
	}
	return 0;
}

static int below_ord(struct icl *c)
{
	return c->w.reads_out < (c->w.ord ? c->w.ord : 1u);
}

static int no_reads(struct icl *c)
{
	return c->w.reads_out == 0;
}

static int closed(struct icl *c)
{
	return c->w.eof;
}

/* Message k with its fault (if it is the one). */
static int one(struct icl *c, uint64_t k)
{
	struct iw *w = &c->w;
	int f = k == c->fault_at ? c->fault : IW_F_NONE;
	uint32_t slot = (uint32_t)(k % c->slots), len = c->size, stag = c->rstag;
	uint64_t to = c->rto + (uint64_t)slot * c->size;

	w->fault = f;
	w->fault_armed = f != IW_F_NONE;
	if (f == IW_F_TERMINATE) {
		w->st.faults[f]++;
		iw_terminate(w, ROCE_TERM_RDMAP, 2, 0xff, NULL, NULL, 0);
		return 1;
	}
	if (f == IW_F_BAD_STAG || f == IW_F_BAD_OFFSET || f == IW_F_OVERSIZE)
		w->st.faults[f]++;
	if (f == IW_F_BAD_STAG)
		stag ^= 0x5a5a5a00u;
	if (f == IW_F_BAD_OFFSET)
		to = c->rto + c->rlen;
	if (f == IW_F_OVERSIZE)
		len = c->size + 64;
	if (!strcmp(c->op, "send")) {
		sess_fill(c->msg, len, (uint32_t)k);
		c->crc = roce_crc32(c->crc, c->msg, len);
		return iw_post_send(w, c->o->se ? ROCE_RDMAP_SEND_SE : ROCE_RDMAP_SEND, c->msg, len, 0);
	}
	if (!strcmp(c->op, "write")) {
		sess_fill(c->msg, len, (uint32_t)k);
		if (f == IW_F_NONE)
			memcpy(c->img + (size_t)slot * c->size, c->msg, len);
		return iw_post_write(w, stag, to, c->msg, len);
	}
	if (wait_for(c, below_ord))
		return -1;
	return iw_post_read(w, SINK_STAG, (uint64_t)(k % c->sink_slots) * c->size, len, stag, to);
}

static int region(struct icl *c)
{
	struct iw *w = &c->w;

	if (w->pd_len >= 16) {
		const uint8_t *p = w->pd;

		c->rstag = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		c->rto = 0;
		for (int i = 4; i < 12; i++)
			c->rto = c->rto << 8 | p[i];
		c->rlen = (uint32_t)p[12] << 24 | (uint32_t)p[13] << 16 | (uint32_t)p[14] << 8 | p[15];
		c->verify = 1;
	} else if (c->o->have_rkey) {
		c->rstag = c->o->ext.rkey;
		c->rto = c->o->ext.va;
		c->rlen = c->size * (uint32_t)(c->iters < 16 ? c->iters : 16);
	} else {
		snprintf(w->why, sizeof(w->why), "the server gave no region (private data) and no --rkey/--va");
		return -1;
	}
	c->slots = c->size ? c->rlen / c->size : 1;
	if (!c->slots) {
		snprintf(w->why, sizeof(w->why), "the server's region (%u bytes) is smaller than --size", c->rlen);
		return -1;
	}
	c->img = calloc(1, c->rlen ? c->rlen : 1);
	c->sink_slots = w->ord ? w->ord : 1;
	c->sink = calloc(c->sink_slots, c->size ? c->size : 1);
	if (!c->img || !c->sink)
		return -1;
	sess_fill_region(c->img, c->rlen);
	return iw_add_mr(w, SINK_STAG, 0, c->sink, (uint64_t)c->sink_slots * c->size, 0, 1);
}

static int run(struct icl *c, struct iw_report *r)
{
	struct iw *w = &c->w;
	uint64_t k;

	c->skip_reads = c->o->rtr && strstr(c->o->rtr, "read") ? 1 : 0;
	if (iw_connect(w, NULL, 0) || region(c))
		return -1;
	if (w->rtr != IW_RTR_READ)
		c->skip_reads = 0;
	r->t_start = sess_now();
	for (k = 0; k < c->iters && !gen_stop; k++) {
		int rc = one(c, k);

		if (rc)
			break;
		if (strcmp(c->op, "read"))
			c->done++;
		while (iw_pump(w, 0) > 0 && !w->dead)
			;
		if (w->dead || w->eof)
			break;
	}
	if (!w->dead && !w->eof && !strcmp(c->op, "read"))
		wait_for(c, no_reads);
	if (!w->dead && !w->eof) {   /* the fence: earlier WRITEs and SENDs were placed */
		if (iw_post_read(w, SINK_STAG, 0, c->size ? 1 : 0, c->rstag, c->rto) == 0)
			wait_for(c, no_reads);
	}
	r->t_end = sess_now();
	if (!w->dead)
		shutdown(w->fd, SHUT_WR);
	wait_for(c, closed);
	if (!strcmp(c->op, "write"))
		c->crc = roce_crc32(0, c->img, c->rlen);
	return w->dead || w->term_rx.have || c->done < c->iters ? -1 : 0;
}

int iw_client_main(struct gen_opts *o)
{
	static struct icl c;
	struct iw_report r;
	int rc;

	if (o->oob && !strcmp(o->oob, "cm") && (!o->app || !strcmp(o->app, "rping")))
		return iw_rping_client(o);
	if (o->oob && !strcmp(o->oob, "cm") && !strcmp(o->app, "perftest"))
		return iw_perftest_client(o);
	if (o->oob && !strcmp(o->oob, "cm") && !strcmp(o->app, "ucmatose"))
		return iw_ucmatose_client(o);
	if (o->oob && strcmp(o->oob, "none") && strcmp(o->oob, "cm")) {
		fprintf(stderr, GEN_NAME " client: --transport iwarp speaks --oob none (rocegen's own: the "
			"region in the MPA reply) or --oob cm --app rping|perftest|ucmatose\n");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.op = o->op ? o->op : "send";
	c.size = o->have_size ? (uint32_t)o->size : 65536;
	c.iters = o->have_iters ? o->iters : 1000;
	if (strcmp(c.op, "send") && strcmp(c.op, "write") && strcmp(c.op, "read")) {
		fprintf(stderr, GEN_NAME " client: --transport iwarp speaks --op send, write or read\n");
		return 2;
	}
	if (o->n_fault > 1 || (o->n_fault && (iw_fault_parse(o->fault[0], &c.fault, &c.fault_at) ||
					      c.fault == IW_F_ZERO_WINDOW))) {
		fprintf(stderr, GEN_NAME " client: --fault: one of bad-crc, bad-marker, bad-stag, bad-offset, "
			"msn-gap, bad-qn, oversize, terminate, tcp-rst, optionally @N (zero-window is the server's); "
			"or tcp-loss=P%%\n");
		return 2;
	}
	if (iw_init(&c.w, o, 0))
		return 2;
	iw_tcp_loss_take(&c.w, &c.fault, &c.fault_at);
	if (c.fault_at == UINT64_MAX)
		c.fault_at = c.fault ? c.iters / 2 : UINT64_MAX;
	c.msg = malloc(c.size + 64);
	if (!c.msg)
		return 2;
	c.w.ctx = &c;
	c.w.on_read = on_read;
	gen_signals();
	memset(&r, 0, sizeof(r));
	rc = run(&c, &r);
	r.role = "client";
	r.op = c.op;
	r.oob = "mpa";
	r.size = c.size;
	r.iters = c.iters;
	/* a failed run: only the messages before the failure are known done */
	r.completed = rc == 0 || c.done < c.fault_at || !c.fault ? c.done : c.fault_at;
	r.ok = rc == 0;
	r.why = c.w.why[0] ? c.w.why : NULL;
	r.have_crc = 1;
	r.crc = c.crc;
	r.mismatches = c.mismatches;
	r.verified = c.verify && !c.fault;
	r.w = &c.w;
	iw_report_print(&r, o->json);
	iw_free(&c.w);
	free(c.msg);
	free(c.img);
	free(c.sink);
	return r.ok && !c.mismatches ? 0 : 1;
}
