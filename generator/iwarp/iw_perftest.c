/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_perftest.c — `rocegen client --transport iwarp --oob cm --app perftest
 * --op write|read|send`: the client of `ib_{write,read,send}_bw -R` on an
 * iWARP device (the conversation is in iw_perftest.h), reported in
 * perftest's columns with the server's results message beside ours.
 *
 * Our figures: WRITE and SEND complete when the kernel's TCP has the data
 * acknowledged (SIOCOUTQ empty; per message, when it was handed to TCP),
 * READ when its Read Response was placed; BW peak as report_peak(), MB =
 * 2^20 as perftest.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "iw_perftest.h"
#include "session.h"

static void on_read(void *ctx, struct iw *w)
{
	struct iwpt *p = ctx;

	(void)w;
	if (p->done >= p->iters)
		return;
	p->crc = roce_crc32(p->crc, p->buf, p->size);
	p->tcomp[p->done++] = sess_now();
}

/* Waits (pumping both streams) until ok(p) or the time runs out. */
static int wait_until(struct iwpt *p, int (*ok)(struct iwpt *), const char *what, int ms)
{
	int idle = 0, limit = (int)(p->o->timeout > 0 ? p->o->timeout : 30) * 1000 / ms;

	while (!ok(p)) {
		int r = iwpt_pump2(&p->dat, &p->ctl, ms);

		if (r < 0 || p->dat.dead || gen_stop) {
			if (!p->dat.why[0])
				snprintf(p->dat.why, sizeof(p->dat.why), "the data connection ended while %s", what);
			return -1;
		}
		idle = r ? 0 : idle + 1;
		if (idle >= limit) {
			snprintf(p->dat.why, sizeof(p->dat.why), "timed out while %s", what);
			return -1;
		}
	}
	return 0;
}

static int read_room(struct iwpt *p)
{
	return p->dat.reads_out < (p->dat.ord ? p->dat.ord : 1u);
}

static int reads_done(struct iwpt *p)
{
	return p->dat.reads_out == 0;
}

static int send_room(struct iwpt *p)
{
	return (uint32_t)(p->done + 1 - iwpt_credits(p)) < p->window;
}

static int tcp_drained(struct iwpt *p)
{
	int n = 0;

	return ioctl(p->dat.fd, SIOCOUTQ, &n) == 0 && n == 0;
}

static int one(struct iwpt *p, uint64_t k)
{
	if (!strcmp(p->op, "read")) {
		if (wait_until(p, read_room, "waiting for Read Responses", 100))
			return -1;
		return iw_post_read(&p->dat, DATA_STAG, DATA_TO, p->size, p->rstag, p->rva);
	}
	sess_fill(p->buf, p->size, (uint32_t)k);
	p->crc = roce_crc32(p->crc, p->buf, p->size);
	if (!strcmp(p->op, "write")) {
		if (iw_post_write(&p->dat, p->rstag, p->rva, p->buf, p->size))
			return -1;
	} else {
		if (wait_until(p, send_room, "waiting for the receiver's credits", 100) ||
		    iw_post_send(&p->dat, ROCE_RDMAP_SEND, p->buf, p->size, 0))
			return -1;
	}
	p->tcomp[p->done++] = sess_now();
	return 0;
}

static int run_ops(struct iwpt *p)
{
	int rc = 0;

	p->t0 = sess_now();
	for (uint64_t k = 0; k < p->iters && !gen_stop && !rc; k++) {
		rc = one(p, k);
		while (!rc && iw_pump(&p->dat, 0) > 0 && !p->dat.dead)
			;
		if (p->dat.dead || p->dat.eof || p->dat.term_rx.have)
			rc = -1;
	}
	if (!rc && !strcmp(p->op, "read"))
		rc = wait_until(p, reads_done, "waiting for the last Read Responses", 100);
	else if (!rc)
		rc = wait_until(p, tcp_drained, "waiting for TCP to deliver our data", 1);
	p->t1 = sess_now();
	if (!rc && p->done && strcmp(p->op, "read"))
		p->tcomp[p->done - 1] = p->t1;
	return rc;
}

static void result_of(struct iwpt *p)
{
	double s = p->t1 > p->t0 ? (double)(p->t1 - p->t0) / 1e9 : 1e-9;

	p->mine.size = p->size;
	p->mine.iters = p->done;
	p->mine.bw_peak = report_peak(p->tcomp, p->done, p->size, p->t0) / 1048576.0;
	p->mine.bw_avg = (double)p->done * p->size / s / 1048576.0;
	p->mine.msg_rate = (double)p->done / s / 1e6;
}

/* iw_connect, again while the port refuses (perftest's server listens for
 * the data connection only after the control exchange) for up to 10 s;
 * then 100 ms before the first FPDU: siw (6.1 siw_accept) sends its MPA
 * reply before its QP takes the socket, and a SEND that came first was
 * seen lost (as in iw_rping.c), here with an RTR too (siw-crc: 1 of 3
 * runs; perftest's own client sends its first message 1 s after the
 * reply). */
static int connect_retry(struct iw *w)
{
	char refused[64];

	snprintf(refused, sizeof(refused), "%s", strerror(ECONNREFUSED));
	for (int n = 0;; n++) {
		if (!iw_connect(w, NULL, 0))
			break;
		if (n >= 200 || !strstr(w->why, refused) || gen_stop)
			return -1;
		close(w->fd);
		w->fd = -1;
		poll(NULL, 0, 50);
	}
	poll(NULL, 0, 100);
	return 0;
}

/* The data connection and the keys around it; 0 or -1. */
static int setup(struct iwpt *p)
{
	int is_send = !strcmp(p->op, "send");
	uint32_t out = !strcmp(p->op, "read") ? (uint32_t)(p->od.ord > 0 ? p->od.ord : 16) : 0;
	uint32_t stag = is_send ? CREDIT_STAG : DATA_STAG;
	uint64_t va = is_send ? CREDIT_TO + 4 : DATA_TO;

	if (connect_retry(&p->ctl) || iwpt_hello(&p->ch, p->pver) || iwpt_zero_keys(&p->ch))
		return -1;
	p->dat.ctx = p;
	p->dat.on_read = on_read;
	if (iw_add_mr(&p->dat, DATA_STAG, DATA_TO, p->buf, p->size, 1, 1) ||
	    iw_add_mr(&p->dat, CREDIT_STAG, CREDIT_TO, p->credit, sizeof(p->credit), 0, 1))
		return -1;
	if (connect_retry(&p->dat)) {
		snprintf(p->ctl.why, sizeof(p->ctl.why), "data connection: %.120s", p->dat.why);
		return -1;
	}
	p->ch.other = &p->dat;
	if (iwpt_zero_keys(&p->ch))
		return -1;
	for (int i = 0; i < (is_send ? 4 : 3); i++)
		if (iwpt_keys(&p->ch, stag, va, out, p->psn, &p->rstag, &p->rva))
			return -1;
	return 0;
}

static int finish(struct iwpt *p)
{
	if (iwpt_keys(&p->ch, 0, 0, 0, p->psn, NULL, NULL))
		return -1;
	if (strcmp(p->op, "send")) {
		if (iwpt_results(&p->ch, &p->mine, &p->theirs) || iwpt_keys(&p->ch, 0, 0, 0, p->psn, NULL, NULL))
			return -1;
		/* perftest's server sends what its struct holds: for WRITE and
		 * READ on siw, not figures of its own (seen: two addresses and
		 * zeros); shown only when it names our size and count */
		p->have_theirs = p->theirs.size == p->size && p->theirs.iters == p->done;
	}
	return 0;
}

/* perftest's client closes the data connection, its server the control one. */
static void close_both(struct iwpt *p)
{
	for (int i = 0; i < 2; i++) {
		struct iw *w = i ? &p->ctl : &p->dat;

		if (w->fd < 0)
			continue;
		if (!w->dead)
			shutdown(w->fd, SHUT_WR);
		for (int n = 0; n < 20 && !w->eof; n++)
			if (iw_pump(w, 100) < 0)
				break;
	}
}

static int init(struct iwpt *p, struct gen_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->op = o->op ? o->op : "write";
	if (strcmp(p->op, "send") && strcmp(p->op, "write") && strcmp(p->op, "read")) {
		fprintf(stderr, GEN_NAME " client: perftest over iwarp: --op send, write or read\n");
		return -1;
	}
	p->size = o->have_size ? (uint32_t)o->size : 65536;
	p->iters = o->have_iters ? o->iters : 1000;
	p->window = (uint32_t)(p->iters < IWPT_RX_DEPTH ? (p->iters ? p->iters : 1) : IWPT_RX_DEPTH);
	p->oc = *o;
	p->od = *o;
	if (p->oc.port < 0)
		p->oc.port = p->od.port = IWPT_PORT;
	p->oc.ird = p->oc.ord = 0;              /* perftest's control QP: no reads */
	if (strcmp(p->op, "read"))
		p->od.ird = p->od.ord = 0;
	p->psn = (uint32_t)sess_now() & 0xffffff;
	p->buf = calloc(1, p->size ? p->size : 1);
	p->tcomp = calloc(p->iters ? p->iters : 1, sizeof(*p->tcomp));
	if (!p->buf || !p->tcomp || iw_init(&p->ctl, &p->oc, 0) || iw_init(&p->dat, &p->od, 0))
		return -1;
	iwpt_chan_init(&p->ch, &p->ctl, 1, (int)o->timeout);
	return 0;
}

int iw_perftest_client(struct gen_opts *o)
{
	static struct iwpt p;
	const char *why;
	int rc, ok;

	if (init(&p, o))
		return 2;
	gen_signals();
	rc = setup(&p);
	if (!rc)
		rc = run_ops(&p);
	result_of(&p);
	if (!rc)
		rc = finish(&p);
	close_both(&p);
	ok = !rc && p.done == p.iters && !p.dat.term_rx.have && !p.ctl.term_rx.have;
	why = p.dat.why[0] ? p.dat.why : p.ctl.why[0] ? p.ctl.why : "incomplete";
	iwpt_report(&p, ok, why, o->json);
	iw_free(&p.dat);
	iw_free(&p.ctl);
	free(p.buf);
	free(p.tcomp);
	return ok ? 0 : 1;
}
