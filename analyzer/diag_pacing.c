/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_pacing.c — CNP pacing on the wire, per frame: each CNP's interval
 * since the last one to the same QP, to another QP of the same IP pair and
 * to another pair, kept per CNP source (dg_cnp_pace, fed by diag.c); in a
 * part of --threads, each CNP's time too (the pairs of other parts).
 * diag_pacing_view.c reads them out of the engines when a report asks.
 */
#include <stdlib.h>
#include <string.h>
#include "diag_int.h"

static void dg_min(uint64_t *m, uint64_t gap)
{
	gap++;                       /* + 1: 0 is "none" */
	if (!*m || gap < *m)
		*m = gap;
}

/* The record of CNP source host src; made at its first CNP. */
static uint32_t dg_csrc_of(struct diag *d, uint32_t src)
{
	for (uint32_t i = 0; i < d->ncsrc; i++)
		if (d->csrc[i].host == src)
			return i;
	if (d->ncsrc >= d->csrc_cap)
		d->csrc = dg_grow(d->csrc, &d->csrc_cap, d->ncsrc + 1, sizeof *d->csrc);
	memset(&d->csrc[d->ncsrc], 0, sizeof *d->csrc);
	d->csrc[d->ncsrc].host = src;
	return d->ncsrc++;
}

void dg_cnp_pace(struct diag *d, struct dg_conn *c, uint32_t src, uint32_t peer, uint32_t qpn, uint64_t ts)
{
	struct dg_cpair *p;
	struct dg_csrc *s;

	if (!c->cpair1) {
		uint32_t i;

		for (i = 0; i < d->ncpair; i++)
			if (d->cpair[i].src == src && d->cpair[i].peer == peer)
				break;
		if (i == d->ncpair) {
			if (d->ncpair >= d->cpair_cap)
				d->cpair = dg_grow(d->cpair, &d->cpair_cap, d->ncpair + 1, sizeof *d->cpair);
			p = &d->cpair[d->ncpair++];
			memset(p, 0, sizeof *p);
			p->src = src;
			p->peer = peer;
			p->csrc1 = dg_csrc_of(d, src) + 1;
		}
		c->cpair1 = i + 1;
	}
	p = &d->cpair[c->cpair1 - 1];
	s = &d->csrc[p->csrc1 - 1];
	/* the least interval between CNPs with different keys is between two
	 * consecutive ones of the stream that holds both */
	if (p->last_ns && p->last_qpn != qpn && ts >= p->last_ns)
		dg_min(&p->xqp_min, ts - p->last_ns);
	if (s->last_ns && s->last_peer != peer && ts >= s->last_ns)
		dg_min(&s->xpair_min, ts - s->last_ns);
	p->last_ns = ts;
	p->last_qpn = qpn;
	s->last_ns = ts;
	s->last_peer = peer;
	/* a part of --threads: the time, for CNPs to pairs of other parts */
	if (!d->cfg.cnp_times || s->cut || d->ntimes >= DIAG_CNP_TIMES) {
		s->cut = 1;
		return;
	}
	if (s->nt >= s->tcap)
		s->t = dg_grow(s->t, &s->tcap, s->nt + 1, sizeof *s->t);
	s->t[s->nt++] = ts;
	d->ntimes++;
}
