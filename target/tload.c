/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tload.c — rocetarget's own workload loop (the control protocol's `load`
 * and `lstat`, ctl.h and load.h): the adapter as requester.  Each loaded QP
 * posts the messages of load.h through libibverbs, at most qd in flight, and
 * takes its completions; tload_run() does one round over every loaded QP
 * and is called by rocetarget's serve loop between control lines, so that
 * one `load` keeps a QP busy without a control line per operation.
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "load.h"
#include "tload.h"

static struct {
	struct ctl_load L;
	struct tload_qp t;
} W[TLOAD_MAX];
static unsigned nactive, hi;   /* loads; every one below id hi */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int post_one(unsigned id, const struct ctl_load_msg *m)
{
	struct ctl_load *L = &W[id].L;
	struct tload_qp *t = &W[id].t;
	struct ibv_sge sg = { .addr = (uintptr_t)(t->buf + m->loff), .length = m->len,
			      .lkey = t->mr->lkey };
	struct ibv_send_wr w, *bad;

	memset(&w, 0, sizeof(w));
	w.wr_id = L->posted;
	w.sg_list = &sg;
	w.num_sge = 1;
	w.send_flags = IBV_SEND_SIGNALED;
	switch (m->op) {
	case CTL_WL_SEND:
	case CTL_WL_WRITE:
		ctl_wl_fill(L->seed, L->idx, L->posted, 0, t->buf + m->loff, m->len);
		w.opcode = m->op == CTL_WL_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = m->rva;
		w.wr.rdma.rkey = L->rkey;
		break;
	case CTL_WL_READ:
		memset(t->buf + m->loff, 0xee, m->len);
		w.opcode = IBV_WR_RDMA_READ;
		w.wr.rdma.remote_addr = m->rva;
		w.wr.rdma.rkey = L->rkey;
		break;
	default:
		w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		w.wr.atomic.remote_addr = m->rva;
		w.wr.atomic.rkey = L->rkey;
		w.wr.atomic.compare_add = m->add;
		break;
	}
	return ibv_post_send(t->qp, &w, &bad);
}

/* Completions, then new posts, of one QP; the number of both. */
static int run_one(unsigned id, uint64_t now)
{
	struct ctl_load *L = &W[id].L;
	struct tload_qp *t = &W[id].t;
	struct ibv_wc wc[16];
	struct ctl_load_msg m;
	int n = ibv_poll_cq(t->cq, 16, wc), done = n > 0 ? n : 0;

	for (int i = 0; i < n; i++) {
		uint64_t orig = 0;

		memcpy(&orig, t->buf + (L->completed % L->qd) * L->slot, 8);
		ctl_load_done(L, wc[i].status == IBV_WC_SUCCESS ? NULL : rt_status_name(wc[i].status),
			      t->buf, orig);
	}
	while (ctl_load_next(L, now, &m)) {
		if (post_one(id, &m)) {
			if (!L->errors++)
				snprintf(L->err, sizeof(L->err), "post-failed");
			break;
		}
		L->posted++;
		done++;
	}
	return done;
}

int tload_start(unsigned id, const struct tload_qp *t, const char *line, char *rep, size_t cap)
{
	struct ctl_load *L;

	if (id >= TLOAD_MAX || W[id].L.active)
		return snprintf(rep, cap, "err bad qp or already loaded"), -1;
	L = &W[id].L;
	if (ctl_load_parse(L, line, now_ns(), rep, cap))
		return -1;
	if ((uint64_t)L->qd * L->slot > t->len) {
		L->active = 0;
		return snprintf(rep, cap, "err the mr is smaller than qd slots"), -1;
	}
	W[id].t = *t;
	nactive++;
	if (id >= hi)
		hi = id + 1;
	run_one(id, now_ns());
	return snprintf(rep, cap, "ok"), 0;
}

int tload_run(void)
{
	uint64_t now;
	int n = 0;

	if (!nactive)
		return 0;
	now = now_ns();
	for (unsigned id = 0; id < hi; id++)
		if (W[id].L.active && ctl_load_running(&W[id].L, now))
			n += run_one(id, now);
	return n;
}

int tload_active(void)
{
	return nactive > 0;
}

int tload_stat(unsigned id, char *rep, size_t cap)
{
	uint64_t now = now_ns(), posted = 0, completed = 0, errors = 0;
	unsigned running = 0;

	if (id)
		return id < TLOAD_MAX ? ctl_load_stat(&W[id].L, now, rep, cap) :
					snprintf(rep, cap, "err no such qp");
	for (unsigned i = 0; i < hi; i++) {
		if (!W[i].L.active)
			continue;
		running += (unsigned)ctl_load_running(&W[i].L, now);
		posted += W[i].L.posted;
		completed += W[i].L.completed;
		errors += W[i].L.errors;
	}
	return snprintf(rep, cap, "ok running=%u posted=%llu completed=%llu errors=%llu", running,
			(unsigned long long)posted, (unsigned long long)completed, (unsigned long long)errors);
}

void tload_reset(void)
{
	memset(W, 0, (size_t)hi * sizeof(W[0]));
	nactive = hi = 0;
}
