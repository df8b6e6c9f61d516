/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_pacing_view.c — CNP pacing on the wire, as a report reads it
 * (diag.h diag_pacing()): per host that sends CNPs, the least interval
 * between CNPs to one QP, to different QPs of one IP pair and to different
 * IP pairs over the parts of a view, and from them whether its NIC paces
 * CNPs per QP, per IP pair or per port.  rocetop(8) DIAGNOSIS says the
 * rule; keep the two alike.  The per-frame side is diag_pacing.c.
 */
#include <stdlib.h>
#include <string.h>
#include "diag_int.h"
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
	/* under --threads, each part holds some pairs: CNPs to pairs of
	 * different parts were never compared */
	if (s->parts > 1)
		return "ip_pair_or_port";
	return pairs_multi_qp ? "port" : "qp_or_port";
}

int diag_pacing(const struct engine *view, double tol, struct diag_pacing **out, size_t *nout)
{
	const struct engine *parts[64];
	unsigned np = 0, *multi = NULL;
	struct diag_pacing *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (view->nparts)
		for (unsigned i = 0; i < view->nparts && i < 64; i++)
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
	for (size_t i = 0; i < n; i++)
		v[i].pacing = dp_classify(&v[i], tol, multi[i]);
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
