/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_refqp.c — the reference adapter's per-QP bookkeeping that its modes
 * share (stress_ref.c, and the load and isolation modes in stress_refload.c
 * and stress_refiso.c): the LRU of QP contexts and the list of QPs with an
 * engine deadline.  It calls none of them.
 */
#include "stress_ref_int.h"

/* QP index i used: the LRU of QP contexts (qpcache, iso-*); 1 on a miss. */
int ref_qpc_use(struct st_ref *r, int i)
{
	struct ref_qp *q = r->qp[i];
	int miss = !q->cached;

	if (q->cached) {
		r->qpc_hit++;
		if (r->lru_head == i)
			return 0;
		r->qp[q->lru_prev]->lru_next = q->lru_next;   /* unlink (not the head) */
		if (q->lru_next >= 0)
			r->qp[q->lru_next]->lru_prev = q->lru_prev;
		else
			r->lru_tail = q->lru_prev;
	} else {
		r->qpc_miss++;
		if (r->qpc_n == r->qpc_cap) {   /* evict the least recently used */
			struct ref_qp *t = r->qp[r->lru_tail];

			t->cached = 0;
			r->lru_tail = t->lru_prev;
			if (r->lru_tail >= 0)
				r->qp[r->lru_tail]->lru_next = -1;
			else
				r->lru_head = -1;
			r->qpc_n--;
		}
		q->cached = 1;
		r->qpc_n++;
	}
	q->lru_prev = -1;
	q->lru_next = r->lru_head;
	if (r->lru_head >= 0)
		r->qp[r->lru_head]->lru_prev = i;
	r->lru_head = i;
	if (r->lru_tail < 0)
		r->lru_tail = i;
	return miss;
}

/* QP q on the list of QPs with an engine deadline, once, when it has one. */
void ref_arm_qp(struct st_ref *r, struct ref_qp *q)
{
	if (!q->armed && roce_qp_next_deadline(q->qp) != UINT64_MAX) {
		q->armed = 1;
		r->armed[r->narmed++] = (unsigned)(q->qpn - REF_QPN0);
	}
}
