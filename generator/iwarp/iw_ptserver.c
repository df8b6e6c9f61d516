/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_ptserver.c — `rocegen server --transport iwarp --oob cm --app perftest
 * --op write|read|send`: the server of `ib_{write,read,send}_bw -R` on an
 * iWARP device (the conversation is in iw_perftest.h): both connections
 * accepted on --port (18515), our region (WRITE, READ) or credit buffer
 * (SEND) in the keys, the client's WRITEs placed, its READs served, its
 * SENDs received with perftest's credits written back every rx_depth / 3;
 * the report holds our figures and the client's results message.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw_perftest.h"
#include "session.h"

static void le32w(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static void on_data(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct iwpt *p = ctx;

	(void)op;
	(void)inv;
	p->crc = roce_crc32(p->crc, data, len);
	p->done++;
	iw_post_recv(w, p->rq, p->size);
	/* perftest's run_iter_bw_server: rcnt % rx_depth % credit_cnt == 0 */
	if (p->rstag && (p->done % p->window) % p->credit_every == 0) {
		le32w(p->credit, (uint32_t)p->done);
		if (!iw_post_write(w, p->rstag, p->rva, p->credit, 4))
			p->credits_tx++;
	}
}

/* What the client has done so far: messages placed, READs served. */
static uint64_t count(const struct iwpt *p)
{
	const struct iw *w = &p->dat;

	if (!strcmp(p->op, "send"))
		return p->done;
	if (!strcmp(p->op, "write"))
		return w->st.rx_msgs[ROCE_RDMAP_WRITE] - (w->rtr == IW_RTR_WRITE ? w->st.rtr_rx : 0);
	return w->st.read_served - (w->rtr == IW_RTR_READ ? w->st.rtr_rx : 0);
}

static int accept_both(struct iwpt *p)
{
	int is_send = !strcmp(p->op, "send");
	uint32_t stag = is_send ? CREDIT_STAG : DATA_STAG;
	uint64_t va = is_send ? CREDIT_TO + 4 : DATA_TO;

	if (iw_accept(&p->ctl, NULL, 0) || iwpt_hello(&p->ch, p->pver) || iwpt_zero_keys(&p->ch))
		return -1;
	p->dat.ctx = p;
	p->dat.on_send = on_data;
	iw_post_recv(&p->dat, p->rq, p->size);
	if (iw_add_mr(&p->dat, DATA_STAG, DATA_TO, p->buf, p->size, 1, 1) ||
	    iw_add_mr(&p->dat, CREDIT_STAG, CREDIT_TO, p->credit, sizeof(p->credit), 0, 1))
		return -1;
	if (iw_accept(&p->dat, NULL, 0)) {
		snprintf(p->ctl.why, sizeof(p->ctl.why), "data connection: %.120s", p->dat.why);
		return -1;
	}
	p->ch.other = &p->dat;
	if (iwpt_zero_keys(&p->ch))
		return -1;
	for (int i = 0; i < (is_send ? 4 : 3); i++)
		if (iwpt_keys(&p->ch, stag, va, is_send ? 0 : (uint32_t)p->dat.ird, p->psn, &p->rstag, &p->rva))
			return -1;
	if (!is_send)
		p->rstag = 0;           /* the client's region is not ours to write */
	return 0;
}

/* Until --iters messages, or the client's next control message and a
 * second without data; per-message times as they are seen. */
static int serve(struct iwpt *p)
{
	uint64_t seen = 0;
	int quiet = 0, idle = 0, limit = (int)(p->o->timeout > 0 ? p->o->timeout : 30) * 10;

	p->t0 = p->t1 = sess_now();
	while (seen < p->iters && !gen_stop) {
		int r = iwpt_pump2(&p->dat, &p->ctl, 100);
		uint64_t n = count(p);

		if (r < 0 || p->dat.dead || p->dat.term_rx.have)
			return -1;
		quiet = n > seen ? 0 : quiet + 1;
		for (; seen < n && seen < p->iters; seen++)
			p->tcomp[seen] = p->t1 = sess_now();
		idle = r ? 0 : idle + 1;
		if ((p->ch.head != p->ch.tail && quiet >= 10) || idle >= limit)
			break;
	}
	if (strcmp(p->op, "send"))
		p->done = seen;
	/* READ: what the client must have read, our region once per READ */
	for (uint64_t k = 0; !strcmp(p->op, "read") && k < p->done; k++)
		p->crc = roce_crc32(p->crc, p->buf, p->size);
	return 0;
}

static int finish(struct iwpt *p)
{
	double s = p->t1 > p->t0 ? (double)(p->t1 - p->t0) / 1e9 : 1e-9;

	p->mine.size = p->size;
	p->mine.iters = p->done;
	p->mine.bw_peak = report_peak(p->tcomp, p->done < p->iters ? p->done : p->iters, p->size, p->t0) / 1048576.0;
	p->mine.bw_avg = (double)p->done * p->size / s / 1048576.0;
	p->mine.msg_rate = (double)p->done / s / 1e6;
	if (iwpt_keys(&p->ch, 0, 0, 0, p->psn, NULL, NULL))
		return -1;
	if (strcmp(p->op, "send")) {
		if (iwpt_results(&p->ch, &p->mine, &p->theirs) || iwpt_keys(&p->ch, 0, 0, 0, p->psn, NULL, NULL))
			return -1;
		p->have_theirs = p->theirs.size == p->size;
	}
	/* the client closes the data connection first, then we the control one */
	for (int n = 0; n < 50 && !p->dat.eof && iw_pump(&p->dat, 100) >= 0; n++)
		;
	for (int i = 0; i < 2; i++) {
		struct iw *w = i ? &p->ctl : &p->dat;

		if (!w->dead)
			shutdown(w->fd, SHUT_WR);
		for (int n = 0; n < 20 && !w->eof && iw_pump(w, 100) >= 0; n++)
			;
	}
	return 0;
}

static int init(struct iwpt *p, struct gen_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->server = 1;
	p->op = o->op ? o->op : "write";
	if (strcmp(p->op, "send") && strcmp(p->op, "write") && strcmp(p->op, "read")) {
		fprintf(stderr, GEN_NAME " server: perftest over iwarp: --op send, write or read\n");
		return -1;
	}
	p->size = o->have_size ? (uint32_t)o->size : 65536;
	p->iters = o->have_iters ? o->iters : 1000;
	p->window = (uint32_t)(p->iters < IWPT_RX_DEPTH ? (p->iters ? p->iters : 1) : IWPT_RX_DEPTH);
	p->credit_every = p->window / 3 ? p->window / 3 : 1;
	p->oc = *o;
	p->od = *o;
	if (p->oc.port < 0)
		p->oc.port = p->od.port = IWPT_PORT;
	p->oc.ird = p->oc.ord = 0;
	if (strcmp(p->op, "read"))
		p->od.ird = p->od.ord = 0;
	else if (p->od.ird < 0)
		p->od.ird = 128;        /* what siw offers (its device maximum), as perftest asks */
	p->psn = (uint32_t)sess_now() & 0xffffff;
	p->buf = calloc(1, p->size ? p->size : 1);
	p->rq = calloc(1, p->size ? p->size : 1);
	p->tcomp = calloc(p->iters ? p->iters : 1, sizeof(*p->tcomp));
	if (!p->buf || !p->rq || !p->tcomp || iw_init(&p->ctl, &p->oc, 1) || iw_init(&p->dat, &p->od, 1))
		return -1;
	sess_fill_region(p->buf, p->size);
	iwpt_chan_init(&p->ch, &p->ctl, 0, (int)o->timeout);
	return 0;
}

int iw_perftest_server(struct gen_opts *o)
{
	static struct iwpt p;
	const char *why;
	int rc, ok;

	if (init(&p, o))
		return 2;
	gen_signals();
	rc = accept_both(&p);
	if (!rc)
		rc = serve(&p);
	if (!rc)
		rc = finish(&p);
	ok = !rc && p.done == p.iters && !p.dat.term_rx.have && !p.ctl.term_rx.have;
	why = p.dat.why[0] ? p.dat.why : p.ctl.why[0] ? p.ctl.why : "incomplete";
	iwpt_report(&p, ok, why, o->json);
	iw_free(&p.dat);
	iw_free(&p.ctl);
	free(p.buf);
	free(p.rq);
	free(p.tcomp);
	return ok ? 0 : 1;
}
