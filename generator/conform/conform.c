/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform.c — `rocegen conform`: runs the catalogue (conform_cases.c)
 * against an adapter through rocetarget, or against the in-process
 * reference adapter (conform_ref.c), and reports every case as PASS, FAIL
 * (what was expected, what happened), UNSUPPORTED (why) or ERROR (the test
 * itself could not run), with measured values and an evidence pcap.
 * This file holds what the cases use: verdicts, metrics, frames to and from
 * the adapter, its control channel and memory, and the connection set-up.
 * conform_main.c runs the catalogue; conform_live.c is the real wire.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "conform.h"
#include "gen.h"
#include "rx.h"
#include "tx.h"
#include "ctl.h"

const char *cf_verdict_name(enum cf_verdict v)
{
	static const char *const n[] = { "PASS", "FAIL", "UNSUPPORTED", "ERROR" };
	return (unsigned)v < 4 ? n[v] : "?";
}

/* ---- verdicts --------------------------------------------------------------- */

static void verdict(struct cf *c, enum cf_verdict v, const char *fmt, va_list ap)
{
	/* the first non-PASS verdict wins; a later PASS does not hide a FAIL */
	if (c->r.judged && (c->r.v != CF_PASS || v == CF_PASS))
		return;
	c->r.v = v;
	c->r.judged = 1;
	vsnprintf(c->r.detail, sizeof(c->r.detail), fmt, ap);
}

#define VERDICT_FN(fn, v)                                 \
	void fn(struct cf *c, const char *fmt, ...)       \
	{                                                 \
		va_list ap;                               \
		va_start(ap, fmt);                        \
		verdict(c, v, fmt, ap);                   \
		va_end(ap);                               \
	}
VERDICT_FN(cf_pass, CF_PASS)
VERDICT_FN(cf_fail, CF_FAIL)
VERDICT_FN(cf_unsup, CF_UNSUPPORTED)
VERDICT_FN(cf_error, CF_ERROR)

void cf_metric(struct cf *c, const char *name, double value, const char *unit)
{
	struct cf_metric *m;

	if (c->r.n_m >= CF_MAX_METRICS)
		return;
	m = &c->r.m[c->r.n_m++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
}

/* ---- wire helpers ---------------------------------------------------------------- */

uint64_t cf_now(struct cf *c)
{
	return c->io.now(c->io.ctx);
}

static void record(struct cf *c, const uint8_t *f, uint32_t len, uint64_t ts)
{
	struct pcap_pkthdr h;

	if (!c->dump)
		return;
	h.ts.tv_sec = (time_t)(ts / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(ts % 1000000000u / 1000u);
	h.caplen = h.len = len;
	pcap_dump((u_char *)c->dump, &h, f);
}

static int raw_send(struct cf *c, const uint8_t *f, uint32_t len)
{
	record(c, f, len, cf_now(c));
	return c->io.send(c->io.ctx, f, len);
}

static int eng_emit(void *ctx, const uint8_t *f, uint32_t len)
{
	return raw_send(ctx, f, len);
}

/* c's io with every frame also in the case's evidence pcap (cf_record_io) */
static uint64_t rec_now(void *ctx)
{
	return cf_now(ctx);
}

static int rec_send(void *ctx, const uint8_t *f, uint32_t len)
{
	return raw_send(ctx, f, len);
}

static int rec_recv(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *ts, uint64_t deadline)
{
	struct cf *c = ctx;
	int g = c->io.recv(c->io.ctx, buf, cap, len, ts, deadline);

	if (g == 1)
		record(c, buf, *len, *ts);
	return g;
}

static int rec_ctl(void *ctx, const char *req, char *rep, size_t cap)
{
	struct cf *c = ctx;

	return c->io.ctl(c->io.ctx, req, rep, cap);
}

void cf_record_io(struct cf *c, struct cf_io *io)
{
	io->now = rec_now;
	io->send = rec_send;
	io->recv = rec_recv;
	io->ctl = rec_ctl;
	io->ctx = c;
}

void cf_spec(struct cf *c, struct roce_frame_spec *s, uint8_t opcode, uint32_t psn)
{
	roce_qp_frame_spec(c->qp, s);
	s->bth.opcode = opcode;
	s->bth.psn = psn & 0xffffff;
	s->bth.ackreq = 0;
	s->bth.pad = -1;
}

int cf_send(struct cf *c, const struct roce_frame_spec *s)
{
	uint8_t f[ROCE_QP_FRAME_MAX + 64];
	int n = roce_build(f, sizeof(f), s);

	if (n < 0) {
		cf_error(c, "cannot build a frame: %s", roce_strerror(n));
		return -1;
	}
	if (raw_send(c, f, (uint32_t)n) < 0) {
		cf_error(c, "send failed");
		return -1;
	}
	return 0;
}

int cf_next(struct cf *c, uint64_t deadline)
{
	for (;;) {
		struct cf_frame *x = &c->rx;
		int got = c->io.recv(c->io.ctx, x->d, sizeof(x->d), &x->len, &x->ts, deadline);

		if (got <= 0) {
			if (got < 0)
				cf_error(c, "receive failed");
			return got;
		}
		record(c, x->d, x->len, x->ts);
		roce_decode(&x->p, NULL, ROCE_LINK_ETHERNET, x->d, x->len, x->len);
		if (x->p.version == ROCE_VER_NONE || !x->p.bth_off || x->p.dqpn != c->our_qpn)
			continue;
		if (x->p.opcode != ROCE_OPCODE_CNP && (x->p.opcode & 0xe0) != ROCE_TR_RC)
			continue;
		return 1;
	}
}

/* ---- control helpers ---------------------------------------------------------------- */

int cf_ctl(struct cf *c, char *rep, size_t cap, const char *fmt, ...)
{
	char req[CTL_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	if (c->verbose > 1)
		fprintf(stderr, "ctl> %.200s\n", req);
	if (c->io.ctl(c->io.ctx, req, rep, cap) < 0) {
		cf_error(c, "control request '%.60s' failed: %.200s", req, rep);
		return -1;
	}
	if (c->verbose > 1)
		fprintf(stderr, "ctl< %.200s\n", rep);
	return 0;
}

int cf_rd(struct cf *c, uint32_t off, uint8_t *buf, uint32_t len)
{
	static char rep[CTL_LINE_MAX];
	char *h;

	if (cf_ctl(c, rep, sizeof(rep), "rd mr=%u off=%u len=%u", c->dut_mr, off, len))
		return -1;
	h = strstr(rep, "hex=");
	if (!h || ctl_unhex(h + 4, buf, len) != (long)len) {
		cf_error(c, "bad rd reply");
		return -1;
	}
	return 0;
}

int cf_wr(struct cf *c, uint32_t off, const uint8_t *buf, uint32_t len)
{
	static char req[CTL_LINE_MAX];
	char rep[256];

	if (len > CTL_RD_MAX)
		return -1;
	ctl_hex(buf, len, req);
	return cf_ctl(c, rep, sizeof(rep), "wr mr=%u off=%u hex=%s", c->dut_mr, off, req);
}

int cf_poll(struct cf *c, struct cf_wc *wc, int max)
{
	static char rep[CTL_LINE_MAX];
	const char *p;
	int n = 0;

	if (cf_ctl(c, rep, sizeof(rep), "poll qp=%u max=%d", c->dut_qp, max))
		return -1;
	for (p = strstr(rep, " wc="); p && n < max; p = strstr(p + 1, " wc=")) {
		unsigned long long wr;
		unsigned len;

		if (sscanf(p + 4, "%llu,%31[^,],%15[^,],%u", &wr, wc[n].status, wc[n].op, &len) == 4) {
			wc[n].wr = wr;
			wc[n].len = len;
			n++;
		}
	}
	return n;
}

int cf_state(struct cf *c, char *buf, size_t cap)
{
	char rep[256];

	if (cf_ctl(c, rep, sizeof(rep), "state qp=%u", c->dut_qp))
		return -1;
	if (!ctl_get(rep, "state", buf, cap))
		return -1;
	return 0;
}

void cf_free_engine(struct cf *c)
{
	free(c->qp_mem);
	c->qp_mem = NULL;
	c->qp = NULL;
}

int cf_connect(struct cf *c, const struct cf_conn *k)
{
	static uint32_t qpn_seq;
	char rep[512];
	struct roce_qp_attr a;
	struct roce_qp_ops ops = { eng_emit, NULL, NULL, c };
	size_t sz;

	cf_free_engine(c);
	c->mtu = k->mtu ? k->mtu : (uint16_t)(c->dut_mtu < 1024 ? c->dut_mtu : 1024);
	if (cf_ctl(c, rep, sizeof(rep), "reset") ||
	    cf_ctl(c, rep, sizeof(rep), "mr len=%u access=%s", CF_MR_LEN, k->access ? k->access : "wra"))
		return -1;
	c->dut_mr = (unsigned)ctl_u64(rep, "mr", 0);
	c->rkey = (uint32_t)ctl_u64(rep, "rkey", 0);
	c->va = ctl_u64(rep, "va", 0);
	if (cf_ctl(c, rep, sizeof(rep), "qp depth=64"))
		return -1;
	c->dut_qp = (unsigned)ctl_u64(rep, "qp", 0);
	c->dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
	c->our_qpn = 0xc0000 | (++qpn_seq & 0xffff);

	roce_qp_attr_default(&a);
	a.qpn = c->our_qpn;
	a.remote_qpn = c->dut_qpn;
	a.sq_psn = k->our_psn;
	a.rq_psn = k->dut_psn;
	a.mtu = c->mtu;
	a.eth = c->eth;
	a.ip = c->ip;
	a.timeout = 0;   /* our engine never retransmits on its own */
	sz = roce_qp_mem_size(&a);
	if (!sz || !(c->qp_mem = malloc(sz)) || roce_qp_init(&c->qp, c->qp_mem, sz, &a, &ops)) {
		cf_free_engine(c);
		cf_error(c, "cannot set up our QP");
		return -1;
	}
	if (cf_ctl(c, rep, sizeof(rep),
		   "connect qp=%u rqpn=0x%x rpsn=%u rgid=%s psn=%u mtu=%u timeout=%u retry=%u rnr_retry=%u min_rnr=%u gid_index=%d",
		   c->dut_qp, c->our_qpn, k->our_psn, c->our_gid, k->dut_psn, c->mtu, k->timeout,
		   k->retry, k->rnr_retry, k->min_rnr, c->gid_index))
		return -1;
	if (k->n_recv &&
	    cf_ctl(c, rep, sizeof(rep), "recv qp=%u mr=%u off=%u len=%u n=%u wr=1000", c->dut_qp,
		   c->dut_mr, CF_OFF_RECV, k->recv_len ? k->recv_len : 4096, k->n_recv))
		return -1;
	return 0;
}
