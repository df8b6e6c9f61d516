/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_refload.c — `load` in the reference adapter: the adapter as
 * requester.  Each loaded QP's engine posts the workload of target/load.h
 * (the same one rocetarget posts through libibverbs) and folds its READ and
 * FETCH_ADD completions; refload_pump() posts more whenever the reference's
 * clock moves.  In bitflip mode every 97th SEND or WRITE (counted with the
 * READ responses flipped on their way in) leaves with one byte flipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress_ref_int.h"

static void post_more(struct st_ref *r, struct ref_qp *q)
{
	struct ctl_load_msg m;

	while (ctl_load_next(&q->L, r->now, &m)) {
		struct roce_wr w;
		uint64_t k = q->L.posted;

		memset(&w, 0, sizeof(w));
		w.wr_id = k;
		w.buf = q->lbuf + m.loff;
		w.len = m.len;
		w.remote_va = m.rva;
		w.rkey = q->L.rkey;
		switch (m.op) {
		case CTL_WL_SEND: w.op = ROCE_WR_SEND; break;
		case CTL_WL_WRITE: w.op = ROCE_WR_WRITE; break;
		case CTL_WL_READ: w.op = ROCE_WR_READ; break;
		default: w.op = ROCE_WR_FETCH_ADD; w.swap_add = m.add; break;
		}
		if (m.op == CTL_WL_SEND || m.op == CTL_WL_WRITE) {
			ctl_wl_fill(q->L.seed, q->L.idx, k, 0, w.buf, m.len);
			if (r->mode == ST_REF_BITFLIP && ++r->n_in % 97 == 0)
				w.buf[m.len / 2] ^= 0x10;   /* a broken adapter sends a wrong byte */
		} else
			memset(w.buf, 0xee, m.len);
		if (roce_qp_post_send(q->qp, &w, r->now)) {
			if (!q->L.errors++)
				snprintf(q->L.err, sizeof(q->L.err), "post-failed");
			return;
		}
		q->L.posted++;
	}
}

int refload_cmd(struct st_ref *r, struct ref_qp *q, struct ref_mr *m, const char *l, char *rep,
		size_t cap)
{
	unsigned *nl;

	if (!m)
		return snprintf(rep, cap, "err no such mr"), -1;
	if (q->L.active)
		return snprintf(rep, cap, "err already loaded"), -1;
	if (ctl_load_parse(&q->L, l, r->now, rep, cap))
		return -1;
	if ((uint64_t)q->L.qd * q->L.slot > m->len || q->L.qd > REF_WC) {
		q->L.active = 0;
		return snprintf(rep, cap, "err the mr is smaller than qd slots"), -1;
	}
	if (!(nl = realloc(r->loaded, (r->nloaded + 1) * sizeof(*nl))))
		return q->L.active = 0, snprintf(rep, cap, "err no memory"), -1;
	r->loaded = nl;
	r->loaded[r->nloaded++] = q->qpn - REF_QPN0;
	q->lbuf = m->buf;
	post_more(r, q);
	ref_arm_qp(r, q);
	return snprintf(rep, cap, "ok"), 0;
}

int refload_stat(struct st_ref *r, struct ref_qp *q, char *rep, size_t cap)
{
	unsigned running = 0;
	uint64_t posted = 0, completed = 0, errors = 0;

	if (q)
		return ctl_load_stat(&q->L, r->now, rep, cap), 0;
	for (unsigned i = 0; i < r->nloaded; i++) {
		struct ctl_load *L = &r->qp[r->loaded[i]]->L;

		running += (unsigned)ctl_load_running(L, r->now);
		posted += L->posted;
		completed += L->completed;
		errors += L->errors;
	}
	return snprintf(rep, cap, "ok running=%u posted=%llu completed=%llu errors=%llu", running,
			(unsigned long long)posted, (unsigned long long)completed,
			(unsigned long long)errors), 0;
}

int refload_wc(struct ref_qp *q, const struct roce_wc *wc)
{
	if (!q->L.active || wc->recv)
		return 0;
	ctl_load_done(&q->L, wc->status == ROCE_WC_SUCCESS ? NULL : roce_wc_status_name(wc->status),
		      q->lbuf, wc->orig);
	return 1;
}

void refload_pump(struct st_ref *r)
{
	for (unsigned i = 0; i < r->nloaded; i++) {
		struct ref_qp *q = r->qp[r->loaded[i]];

		if (q->qp && q->L.posted - q->L.completed < q->L.qd) {
			post_more(r, q);
			ref_arm_qp(r, q);
		}
	}
}

void refload_reset(struct st_ref *r)
{
	free(r->loaded);
	r->loaded = NULL;
	r->nloaded = 0;
}
