/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devqp.c — the device screen's QP table: every QP of every device, one row
 * each with the wire's view beside it (qpjoin.h), sorted by a column (s/<,>
 * and r, as the flow table), filtered by a substring of the row's text (/),
 * a cursor (Up/Down), and Enter for one QP's detail.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devmon.h"
#include "qpjoin.h"
#include "view.h"

static const struct {
	const char *name, *what;
	int w, desc;
} qcols[Q__N] = {
	[Q_DEV] = { "DEVICE", "device", 8, 0 },    [Q_LQPN] = { "LQPN", "lqpn", 7, 0 },
	[Q_TYPE] = { "TYPE", "type", 5, 0 },       [Q_STATE] = { "STATE", "state", 5, 0 },
	[Q_SQR] = { "SQ-PSN/s", "sq-psn/s", 9, 1 }, [Q_RQR] = { "RQ-PSN/s", "rq-psn/s", 9, 1 },
	[Q_RQPN] = { "RQPN", "rqpn", 7, 0 },       [Q_PID] = { "PID", "pid", 7, 0 },
	[Q_WIN] = { "W-IN", "wire packets in", 8, 1 }, [Q_WOUT] = { "W-OUT", "wire packets out", 8, 1 },
	[Q_RETX] = { "RETX", "retransmissions", 5, 1 }, [Q_NAK] = { "NAKS", "NAKs", 5, 1 },
	[Q_RTT] = { "RTT-us", "RTT p50", 7, 1 },   [Q_COMM] = { "COMM", "comm", 0, 0 },
};

const char *devqp_sort_name(int c)
{
	return c >= 0 && c < Q__N ? qcols[c].what : "?";
}

static const struct dm_qp *row_qp(const struct devmon *m, const struct devqp_row *r, const struct dm_dev **d)
{
	if (r->dev >= m->ndevs || r->qp >= m->devs[r->dev].nqps)
		return NULL;
	*d = &m->devs[r->dev];
	return &(*d)->qps[r->qp];
}

/* One row's cells as text, in column order. */
static void cells(const struct tui *v, const struct dm_dev *d, const struct dm_qp *q, char c[Q__N][64])
{
	struct qp_wire w;

	qpjoin_qp(v->e, d, q, &w);
	snprintf(c[Q_DEV], 64, "%s", d->name);
	snprintf(c[Q_LQPN], 64, "%u", q->q.lqpn);
	snprintf(c[Q_TYPE], 64, "%s", nlp_qp_type_str(q->q.type));
	snprintf(c[Q_STATE], 64, "%s", nlp_qp_state_str(q->q.state));
	snprintf(c[Q_SQR], 64, q->sq_rate.valid ? "%.0f" : "-", q->sq_rate.v);
	snprintf(c[Q_RQR], 64, q->rq_rate.valid ? "%.0f" : "-", q->rq_rate.v);
	snprintf(c[Q_RQPN], 64, q->q.have & NLP_HAVE_RQPN ? "%u" : "-", q->q.rqpn);
	snprintf(c[Q_PID], 64, q->q.have & NLP_HAVE_PID ? "%u" : "-", q->q.own.pid);
	if (w.nflows_in + w.nflows_out) {
		snprintf(c[Q_WIN], 64, "%" PRIu64, w.pkts_in);
		snprintf(c[Q_WOUT], 64, "%" PRIu64, w.pkts_out);
		snprintf(c[Q_RETX], 64, "%u", w.retrans);
		snprintf(c[Q_NAK], 64, "%u", w.naks_got);
		snprintf(c[Q_RTT], 64, w.rtt_p50_us ? "%u" : "-", w.rtt_p50_us);
	} else {
		for (int k = Q_WIN; k <= Q_RTT; k++)
			snprintf(c[k], 64, "-");
	}
	snprintf(c[Q_COMM], 64, q->q.have & NLP_HAVE_KERN ? "[%s]" : "%s", q->comm[0] ? q->comm : "-");
}

/* The sort key of a cell: its number, or for text columns the order of
 * its first characters (ties keep the device's order, by lqpn). */
static double key_of(int col, const char *cell)
{
	double k = 0;

	if (qcols[col].desc || col == Q_LQPN || col == Q_RQPN || col == Q_PID)
		return strcmp(cell, "-") ? strtod(cell, NULL) : -1e18;
	for (int i = 0; i < 6; i++)
		k = k * 256 + (unsigned char)(cell[0] ? *cell++ : 0);
	return k;
}

static int by_key(const void *a, const void *b)
{
	const struct devqp_row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->dev != y->dev ? (x->dev < y->dev ? -1 : 1) : (x->qp < y->qp ? -1 : x->qp > y->qp);
}

static int matches(const char *filter, char c[Q__N][64])
{
	char line[Q__N * 65] = "";

	if (!filter[0])
		return 1;
	for (int k = 0; k < Q__N; k++) {
		strcat(line, c[k]);
		strcat(line, " ");
	}
	lower(line);
	return strstr(line, filter) != NULL;
}

void devqp_build(struct tui *v)
{
	const struct devmon *m = v->cfg->dev;
	size_t n = 0;

	v->nq = 0;
	if (!v->q_init) {   /* by QP number first */
		v->q_sort = Q_LQPN;
		v->q_init = 1;
	}
	for (size_t i = 0; m && i < m->ndevs; i++)
		n += m->devs[i].nqps;
	if (n > v->q_cap) {
		struct devqp_row *r = realloc(v->qrows, n * sizeof *r);

		if (!r)
			return;
		v->qrows = r, v->q_cap = n;
	}
	for (size_t i = 0; m && i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nqps; j++) {
			char c[Q__N][64];
			struct devqp_row *r = &v->qrows[v->nq];

			cells(v, &m->devs[i], &m->devs[i].qps[j], c);
			if (!matches(v->q_filter, c))
				continue;
			r->dev = (uint32_t)i, r->qp = (uint32_t)j;
			r->lqpn = m->devs[i].qps[j].q.lqpn;
			r->key = key_of(v->q_sort, c[v->q_sort]);
			if (qcols[v->q_sort].desc != v->q_rev)
				r->key = -r->key;
			v->nq++;
		}
	if (v->nq)      /* no QPs: qrows may be NULL, which qsort must not get */
		qsort(v->qrows, v->nq, sizeof *v->qrows, by_key);
	/* the cursor follows its QP */
	for (uint32_t k = 0; v->q_sel_set && k < v->nq; k++)
		if (v->qrows[k].lqpn == v->q_sel_lqpn && v->qrows[k].dev == v->q_sel_dev)
			v->q_cur = k;
	if (v->q_cur >= v->nq)
		v->q_cur = v->nq ? v->nq - 1 : 0;
}

static void remember(struct tui *v)
{
	if (v->q_cur < v->nq) {
		v->q_sel_lqpn = v->qrows[v->q_cur].lqpn;
		v->q_sel_dev = v->qrows[v->q_cur].dev;
		v->q_sel_set = 1;
	}
}

static void put_row(struct tui *v, int y, attr_t a, char c[Q__N][64])
{
	char line[1024];
	int len = 0;

	for (int k = 0; k < Q__N && len < (int)sizeof line - 70; k++)
		len += snprintf(line + len, sizeof line - (size_t)len, k == Q_DEV || k == Q_TYPE || k == Q_STATE ||
				k == Q_COMM ? "%-*s " : "%*s ", qcols[k].w, c[k]);
	(void)v;
	put(y, 0, a, "%-*.*s", COLS > 0 ? COLS - 1 : 0, COLS > 0 ? COLS - 1 : 0, line);
}

/* The table from row y to ymax (exclusive). */
void devqp_draw(struct tui *v, int y, int ymax)
{
	const struct devmon *m = v->cfg->dev;
	char c[Q__N][64];
	int rows = ymax - y - 1;

	for (int k = 0; k < Q__N; k++)
		snprintf(c[k], 64, "%s%s", qcols[k].name, k == v->q_sort ? (v->q_rev ? "+" : "*") : "");
	put_row(v, y++, A_BOLD | A_UNDERLINE, c);
	if (!v->nq) {
		put(y, 0, A_NORMAL, "  (no QP%s%s)", v->q_filter[0] ? " matches " : "", v->q_filter);
		return;
	}
	if (v->q_cur < v->q_top)
		v->q_top = v->q_cur;
	if (rows > 0 && v->q_cur >= v->q_top + (uint32_t)rows)
		v->q_top = v->q_cur - (uint32_t)rows + 1;
	for (uint32_t k = v->q_top; k < v->nq && y < ymax; k++) {
		const struct dm_dev *d;
		const struct dm_qp *q = row_qp(m, &v->qrows[k], &d);

		if (!q)
			continue;
		cells(v, d, q, c);
		put_row(v, y++, k == v->q_cur ? A_REVERSE : A_NORMAL, c);
	}
}

/* The hw counters of the counter the QP is bound to (STAT_GET), a few a line. */
static int qpcnt_lines(const struct dm_dev *d, const struct dm_qp *q, int y, int ymax)
{
	const struct nlp_qpcnt *c = nlp_qpcnt_find(&d->qpcnts, q->q.port, q->q.lqpn);
	char line[160];
	size_t n = 0;

	if (!c)
		return y;
	put(y++, 2, A_NORMAL, "bound to counter %u (%u QP%s)", c->id, c->nqps_total, c->nqps_total == 1 ? "" : "s");
	for (uint32_t j = 0; j < c->nctr && y < ymax; j++) {
		n += (size_t)snprintf(line + n, sizeof line - n, "%s %" PRIu64 "   ", c->name[j], c->value[j]);
		if (n > 90 || j + 1 == c->nctr) {
			put(y++, 4, A_NORMAL, "%s", line);
			n = 0;
		}
		if (n >= sizeof line)
			n = 0;
	}
	return y;
}

/* One QP: every field netlink gave, its CM ID, its bound counter, the wire's view. */
void devqp_detail(struct tui *v, int y, int ymax)
{
	const struct devmon *m = v->cfg->dev;
	const struct dm_dev *d;
	const struct dm_qp *q = v->q_cur < v->nq ? row_qp(m, &v->qrows[v->q_cur], &d) : NULL;
	struct qp_wire w;
	char s[80], t[80];

	if (!q) {
		put(y, 0, A_NORMAL, "(the QP is gone)");
		return;
	}
	qpjoin_qp(v->e, d, q, &w);
	put(y++, 0, A_BOLD, "%s QP %u (port %u): %s %s, path migration %s", d->name, q->q.lqpn, q->q.port,
	    nlp_qp_type_str(q->q.type), nlp_qp_state_str(q->q.state), nlp_pmig_str(q->q.pmig));
	{
		char sqr[32] = "-", rqpsn[32] = "-", rqr[32] = "-", rqpn[32] = "-", pdn[32] = "-";

		if (q->sq_rate.valid)
			snprintf(sqr, sizeof sqr, "%.0f", q->sq_rate.v);
		if (q->rq_rate.valid)
			snprintf(rqr, sizeof rqr, "%.0f", q->rq_rate.v);
		if (q->q.have & NLP_HAVE_RQ_PSN)
			snprintf(rqpsn, sizeof rqpsn, "%u", q->q.rq_psn);
		if (q->q.have & NLP_HAVE_RQPN)
			snprintf(rqpn, sizeof rqpn, "%u", q->q.rqpn);
		if (q->q.have & NLP_HAVE_PDN)
			snprintf(pdn, sizeof pdn, "%u", q->q.pdn);
		put(y++, 2, A_NORMAL, "sq-psn %u (%s/s)   rq-psn %s (%s/s)   rqpn %s   pdn %s", q->q.sq_psn, sqr, rqpsn,
		    rqr, rqpn, pdn);
	}
	if (q->q.have & NLP_HAVE_KERN)
		put(y++, 2, A_NORMAL, "owner: kernel [%s]", q->comm);
	else
		put(y++, 2, A_NORMAL, "owner: pid %u %s", q->q.own.pid, q->comm[0] ? q->comm : "(exited)");
	for (size_t i = 0; i < d->cmids.n && y < ymax; i++) {
		const struct nlp_cmid *c = NLP_AT(&d->cmids, struct nlp_cmid, i);

		if ((c->have & NLP_HAVE_LQPN) && c->lqpn == q->q.lqpn)
			put(y++, 2, A_NORMAL, "rdma_cm: %s %s %s -> %s", nlp_cm_ps_str(c->ps), nlp_cm_state_str(c->state),
			    nlp_addr_str(&c->src, s, sizeof s), nlp_addr_str(&c->dst, t, sizeof t));
	}
	y = qpcnt_lines(d, q, y, ymax);
	y++;
	if (!v->e || !(w.nflows_in + w.nflows_out)) {
		put(y, 2, A_NORMAL, "wire: no flow of this QP seen%s", v->e ? "" : " (no capture)");
		return;
	}
	put(y++, 2, A_BOLD, "wire");
	put(y++, 4, A_NORMAL, "in:  %u flow(s), %" PRIu64 " packets, %" PRIu64 " bytes; as responder: duplicate_request %u, "
	    "out_of_seq_request %u", w.nflows_in, w.pkts_in, w.bytes_in, w.dup, w.oosr);
	put(y++, 4, A_NORMAL, "out: %u flow(s), %" PRIu64 " packets, %" PRIu64 " bytes; as requester: retransmissions %u, "
	    "NAKs (PSN sequence error) %u, RTT p50 %s us", w.nflows_out, w.pkts_out, w.bytes_out, w.retrans, w.naks_got,
	    w.rtt_p50_us ? (snprintf(s, sizeof s, "%u", w.rtt_p50_us), s) : "-");
}

/* Keys of the QP table (and of the detail: Esc leaves it).  1 when handled. */
int devqp_key(struct tui *v, int ch)
{
	if (v->q_detail) {
		if (ch == 27 || ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == KEY_LEFT) {
			v->q_detail = 0;
			return 1;
		}
		return 0;
	}
	switch (ch) {
	case KEY_UP: case 'k': if (v->q_cur) v->q_cur--; break;
	case KEY_DOWN: case 'j': if (v->q_cur + 1 < v->nq) v->q_cur++; break;
	case KEY_HOME: case 'g': v->q_cur = 0; break;
	case KEY_END: case 'G': v->q_cur = v->nq ? v->nq - 1 : 0; break;
	case '<': case ',': v->q_sort = (v->q_sort + Q__N - 1) % Q__N; v->q_rev = 0; break;
	case '>': case '.': case 's': case 'S': v->q_sort = (v->q_sort + 1) % Q__N; v->q_rev = 0; break;
	case 'r': case 'R': v->q_rev = !v->q_rev; break;
	case '/':
		snprintf(v->prompt, sizeof v->prompt, "%s", v->q_filter);
		v->filter_qps = 1;
		v->mode = V_FILTER;
		return 1;
	case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT:
		if (v->nq)
			v->q_detail = 1;
		break;
	default:
		return 0;
	}
	remember(v);
	return 1;
}
