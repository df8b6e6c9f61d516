/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_pacing_view.c — CNP pacing on the wire, as a report reads it
 * (diag.h diag_pacing()): per host that sends CNPs, the least interval
 * between CNPs to one QP, to different QPs of one IP pair and to different
 * IP pairs over the parts of a view, and from them whether its NIC paces
 * CNPs per QP, per IP pair or per port.  rocetop(8) DIAGNOSIS says the
 * rule; keep the two alike.  The per-frame side is diag_pacing.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag_int.h"

#define DP_PARTS_MAX 64   /* the parts of a merged view read (threads.h's WORKERS_MAX) */
#include "flow.h"

/* ---- per source over the parts of a view ---- */

static struct diag_pacing *dp_find(struct diag_pacing *v, size_t n, const uint8_t *addr)
{
	for (size_t i = 0; i < n; i++)
		if (!memcmp(v[i].addr, addr, 16))
			return &v[i];
	return NULL;
}

static void dp_min(uint64_t *m, uint64_t x)
{
	if (x && (!*m || x < *m))
		*m = x;
}

/* ---- CNPs to pairs of different parts (--threads) ---- */

struct dp_t {
	uint64_t t;
	unsigned part;
};

static int dp_t_cmp(const void *a, const void *b)
{
	const struct dp_t *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (int)x->part - (int)y->part;
}

/* The record of CNP source addr in part e, or NULL. */
static const struct dg_csrc *dp_csrc(const struct engine *e, const uint8_t *addr)
{
	const struct diag *d = e->diag;

	for (uint32_t i = 0; d && i < d->ncsrc; i++)
		if (!memcmp(e->hosts[d->csrc[i].host].addr, addr, 16))
			return &d->csrc[i];
	return NULL;
}

/* Parts hold whole IP pairs (one pair, one part: roce_flow_key()), so two
 * CNPs of s in different parts went to different pairs; the least interval
 * between such CNPs is between two neighbours of different parts in their
 * times sorted together.  Each part's times stop where it ran out of room
 * (cut): only CNPs up to the earliest such end are compared, and s->cross_cut
 * says so.  -1 when out of memory. */
static int dp_cross_parts(struct diag_pacing *s, const struct engine *const *parts, unsigned np)
{
	const struct dg_csrc *cs[DP_PARTS_MAX];
	uint64_t end = UINT64_MAX;
	struct dp_t *all;
	size_t n = 0, k = 0;

	for (unsigned i = 0; i < np; i++) {
		cs[i] = dp_csrc(parts[i], s->addr);
		if (!cs[i])
			continue;
		n += cs[i]->nt;
		if (cs[i]->cut) {
			uint64_t last = cs[i]->nt ? cs[i]->t[cs[i]->nt - 1] : 0;

			s->cross_cut = 1;
			if (last < end)
				end = last;
		}
	}
	if (!n)
		return 0;
	if (!(all = malloc(n * sizeof *all)))
		return -1;
	for (unsigned i = 0; i < np; i++)
		for (uint32_t j = 0; cs[i] && j < cs[i]->nt; j++)
			if (cs[i]->t[j] <= end)
				all[k++] = (struct dp_t){ cs[i]->t[j], i };
	qsort(all, k, sizeof *all, dp_t_cmp);
	for (size_t j = 1; j < k; j++)
		if (all[j].part != all[j - 1].part)
			dp_min(&s->xpair_min_ns, all[j].t - all[j - 1].t + 1);
	free(all);
	return 0;
}

static const char *dp_classify(const struct diag_pacing *s, double tol, unsigned pairs_multi_qp)
{
	double thr = (double)(s->qp_min_ns ? s->qp_min_ns - 1 : 0) * (1 - tol);

	if (!s->qp_min_ns || s->qps < 2)
		return "unknown";
	if (s->xqp_min_ns && (double)(s->xqp_min_ns - 1) < thr)
		return "qp";
	if (s->ip_pairs >= 2 && s->xpair_min_ns && (double)(s->xpair_min_ns - 1) < thr)
		return pairs_multi_qp ? "ip_pair" : "qp_or_ip_pair";
	if (s->ip_pairs < 2)
		return "ip_pair_or_port";
	/* under --threads, CNPs to pairs of different parts compared only
	 * in part (dp_cross_parts) */
	if (s->parts > 1 && s->cross_cut)
		return "ip_pair_or_port";
	return pairs_multi_qp ? "port" : "qp_or_port";
}

int diag_pacing(const struct engine *view, double tol, struct diag_pacing **out, size_t *nout)
{
	const struct engine *parts[DP_PARTS_MAX];
	unsigned np = 0, *multi = NULL;
	struct diag_pacing *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (view->nparts)
		for (unsigned i = 0; i < view->nparts && i < DP_PARTS_MAX; i++)
			parts[np++] = view->parts[i];
	else
		parts[np++] = view;
	for (unsigned pi = 0; pi < np; pi++) {
		const struct engine *e = parts[pi];
		const struct diag *d = e->diag;

		for (uint32_t i = 0; d && i < d->ncsrc; i++) {
			const struct dg_csrc *cs = &d->csrc[i];
			struct diag_pacing *s = dp_find(v, n, e->hosts[cs->host].addr);

			if (!s) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 8;
					void *nv = realloc(v, nc * sizeof *v), *nm = realloc(multi, nc * sizeof *multi);

					if (nv)
						v = nv;
					if (nm)
						multi = nm;
					if (!nv || !nm) {
						free(v);
						free(multi);
						return -1;
					}
					cap = nc;
				}
				s = &v[n];
				multi[n++] = 0;
				memset(s, 0, sizeof *s);
				memcpy(s->addr, e->hosts[cs->host].addr, 16);
				host_str(e, cs->host, s->source, sizeof s->source);
			}
			s->parts++;
			dp_min(&s->xpair_min_ns, cs->xpair_min);
			for (uint32_t j = 0; j < d->ncpair; j++) {
				const struct dg_cpair *p = &d->cpair[j];
				unsigned qps = 0;

				if (p->csrc1 != i + 1)
					continue;
				s->ip_pairs++;
				dp_min(&s->xqp_min_ns, p->xqp_min);
				for (uint32_t k = 0; k < d->nconn; k++) {
					const struct dg_conn *c = &d->conn[k];

					if (c->cpair1 != j + 1)
						continue;
					qps++;
					s->cnps += c->cnps;
					dp_min(&s->qp_min_ns, c->cnp_gap_min_ns);
				}
				s->qps += qps;
				if (qps >= 2)
					multi[s - v] = 1;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].parts > 1 && dp_cross_parts(&v[i], parts, np)) {
			free(v);
			free(multi);
			return -1;
		}
		v[i].pacing = dp_classify(&v[i], tol, multi[i]);
	}
	free(multi);
	*out = v;
	*nout = n;
	return 0;
}

const struct diag_pacing *diag_pacing_find(const struct diag_pacing *v, size_t n, const uint8_t *addr)
{
	return dp_find((struct diag_pacing *)v, n, addr);
}

double diag_tolerance(const struct engine *e)
{
	const struct engine *p = e->nparts ? e->parts[0] : e;

	return p && p->diag ? p->diag->cfg.tolerance : 0.25;
}

/* " to one QP 50.0 us" or " to one QP none", appended at *at */
static void dp_us(char *b, size_t cap, size_t *at, const char *what, uint64_t ns1)
{
	int w = ns1 ? snprintf(b + *at, cap - *at, "%s %.1f us", what, (double)(ns1 - 1) / 1e3) :
		snprintf(b + *at, cap - *at, "%s none", what);

	if (w > 0)
		*at = *at + (size_t)w < cap ? *at + (size_t)w : cap - 1;
}

const char *diag_pacing_str(const struct diag_pacing *p, char *b, size_t cap)
{
	size_t at;
	int w = snprintf(b, cap, "%s: %" PRIu64 " CNPs to %" PRIu32 " QP%s of %" PRIu32 " IP pair%s; least interval:",
			 p->source, p->cnps, p->qps, p->qps == 1 ? "" : "s", p->ip_pairs, p->ip_pairs == 1 ? "" : "s");

	if (w < 0 || (size_t)w >= cap)
		return b;
	at = (size_t)w;
	dp_us(b, cap, &at, " to one QP", p->qp_min_ns);
	dp_us(b, cap, &at, ", QPs of one pair", p->xqp_min_ns);
	dp_us(b, cap, &at, ", pairs", p->xpair_min_ns);
	snprintf(b + at, cap - at, "; pacing %s", p->pacing);
	return b;
}
