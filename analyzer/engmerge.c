/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engmerge.c — the merged view of several flow engines (engmerge.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "engmerge.h"

struct ref {
	uint64_t born;
	uint32_t part, idx;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->born != y->born)
		return x->born < y->born ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void engmerge_free(struct engmerge *m)
{
	free(m->v.flow_files);
	free(m->v.flows);
	free(m->v.hosts);
	free(m->v.ports);
	free(m->part_of);
	memset(&m->v, 0, sizeof m->v);
	m->part_of = NULL;
}

/* Hosts: the parts' addresses interned once more; hmap[k][i] is part k's host i in the view. */
struct interner {
	struct host *hosts;
	uint32_t n, *tab, mask;
};

static uint32_t addr_hash(const uint8_t a[16])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ a[i]) * 16777619u;
	return h;
}

static uint32_t intern(struct interner *in, const uint8_t a[16])
{
	uint32_t i;

	for (i = addr_hash(a) & in->mask; in->tab[i]; i = (i + 1) & in->mask)
		if (!memcmp(in->hosts[in->tab[i] - 1].addr, a, 16))
			return in->tab[i] - 1;
	memcpy(in->hosts[in->n].addr, a, 16);
	in->tab[i] = ++in->n;
	return in->n - 1;
}

static int merge_hosts(struct engmerge *m, const struct engmerge_part *pp, unsigned n, uint32_t **hmap)
{
	struct interner in = { 0 };
	uint32_t total = 0, sz = 2;

	for (unsigned k = 0; k < n; k++)
		total += pp[k].e->nhosts;
	while (sz < 2 * total)
		sz <<= 1;
	in.mask = sz - 1;
	in.tab = calloc(sz, sizeof *in.tab);
	in.hosts = malloc((total ? total : 1) * sizeof *in.hosts);
	if (!in.tab || !in.hosts)
		goto fail;
	for (unsigned k = 0; k < n; k++) {
		const struct engine *e = pp[k].e;

		if (!(hmap[k] = malloc((e->nhosts ? e->nhosts : 1) * sizeof **hmap)))
			goto fail;
		for (uint32_t i = 0; i < e->nhosts; i++)
			hmap[k][i] = intern(&in, e->hosts[i].addr);
	}
	free(in.tab);
	m->v.hosts = in.hosts;
	m->v.nhosts = m->v.hosts_cap = in.n;
	return 0;
fail:
	free(in.tab);
	free(in.hosts);
	return -1;
}

/* Sums of all-uint64_t structs, but for the fields [skip_lo, skip_hi). */
static void add_u64s(void *dst, const void *src, size_t size, size_t skip_lo, size_t skip_hi)
{
	uint64_t *d = dst;
	const uint64_t *s = src;

	for (size_t i = 0; i < size / sizeof *d; i++)
		if (i * sizeof *d < skip_lo || i * sizeof *d >= skip_hi)
			d[i] += s[i];
}

static void merge_totals(struct engine *v, const struct engmerge_part *pp, unsigned n)
{
	const size_t lo = offsetof(struct engine_totals, first_ns), hi = offsetof(struct engine_totals, last_ns) + 8;

	_Static_assert(sizeof(struct engine_totals) % 8 == 0 && sizeof(struct evicted_sum) % 8 == 0,
		       "totals are uint64_t fields");
	_Static_assert(offsetof(struct engine_totals, last_ns) == offsetof(struct engine_totals, first_ns) + 8,
		       "first_ns, last_ns adjacent");
	for (unsigned k = 0; k < n; k++) {
		const struct engine *e = pp[k].e;

		add_u64s(&v->t, &e->t, sizeof v->t, lo, hi);
		add_u64s(&v->ev, &e->ev, sizeof v->ev, 0, 0);
		if (e->t.last_ns > v->t.last_ns)
			v->t.last_ns = e->t.last_ns;
		v->conns_cm += e->conns_cm;
		v->conns_traffic += e->conns_traffic;
		v->anom_live += e->anom_live;
		v->ncm += e->ncm;
	}
	for (unsigned k = 0, seen = 0; k < n; k++)
		if (pp[k].e->t.frames && (!seen++ || pp[k].e->t.first_ns < v->t.first_ns))
			v->t.first_ns = pp[k].e->t.first_ns;
}

static int merge_ports(struct engine *v, const struct engmerge_part *pp, unsigned n)
{
	uint32_t total = 0;

	for (unsigned k = 0; k < n; k++)
		total += pp[k].e->nports;
	if (!total)
		return 0;
	if (!(v->ports = malloc(total * sizeof *v->ports)))
		return -1;
	for (unsigned k = 0; k < n; k++) {
		if (!pp[k].e->nports)
			continue;       /* a worker that saw no port has no array */
		memcpy(v->ports + v->nports, pp[k].e->ports, pp[k].e->nports * sizeof *v->ports);
		v->nports += pp[k].e->nports;
	}
	return 0;
}

/* The flows in birth order; pos[k][i]: part k's flow i in the view. */
static struct ref *order(const struct engmerge_part *pp, unsigned n, uint32_t total)
{
	struct ref *r = malloc((total ? total : 1) * sizeof *r);
	uint32_t j = 0;

	if (!r)
		return NULL;
	for (unsigned k = 0; k < n; k++)
		for (uint32_t i = 0; i < pp[k].e->nflows; i++)
			r[j++] = (struct ref){ pp[k].born ? pp[k].born[i] : i, k, i };
	qsort(r, total, sizeof *r, ref_cmp);
	return r;
}

/* A copy of flow f of part e as the view's flow; pos maps e's flow indices. */
static void copy_flow(struct engine *v, struct flow *d, const struct engmerge_part *pp, const struct flow *f,
		      const uint32_t *hmap, const uint32_t *pos)
{
	const struct engine *e = pp->e;
	uint64_t rel = (pp->born_ts ? pp->born_ts[f - e->flows] : flow_first_ns(e, f)) - v->t.first_ns;

	*d = *f;
	d->src = hmap[f->src];
	d->dst = hmap[f->dst];
	d->peer = f->peer ? pos[f->peer - 1] + 1 : 0;
	d->hnext = d->lru_prev = d->lru_next = 0;
	d->first_ms = (uint32_t)(rel / 1000000);
	d->first_20ns = (uint16_t)(rel % 1000000 / 20);
}

static int merge_flows(struct engmerge *m, const struct engmerge_part *pp, unsigned n, uint32_t **hmap,
		       uint32_t **pos)
{
	struct engine *v = &m->v;
	uint32_t total = 0;
	struct ref *r;

	for (unsigned k = 0; k < n; k++)
		total += pp[k].e->nflows;
	v->flows = malloc((total ? total : 1) * sizeof *v->flows);
	m->part_of = malloc(total ? total : 1);
	if (!v->flows || !m->part_of || !(r = order(pp, n, total)))
		return -1;
	for (unsigned k = 0; k < n; k++)
		if (!(pos[k] = malloc((pp[k].e->nflows ? pp[k].e->nflows : 1) * sizeof **pos))) {
			free(r);
			return -1;
		}
	for (uint32_t j = 0; j < total; j++) {
		pos[r[j].part][r[j].idx] = j;
		m->part_of[j] = (uint8_t)r[j].part;
	}
	for (uint32_t j = 0; j < total; j++) {
		const struct engmerge_part *p = &pp[r[j].part];

		copy_flow(v, &v->flows[j], p, &p->e->flows[r[j].idx], hmap[r[j].part], pos[r[j].part]);
	}
	v->nflows = v->cap = total;
	/* -r A -r B: each flow's files, as its part noted them */
	if (pp[0].e->file_names && (v->flow_files = calloc(total ? total : 1, sizeof *v->flow_files))) {
		v->flow_files_cap = total;
		v->file_names = pp[0].e->file_names;
		v->nfile_names = pp[0].e->nfile_names;
		for (uint32_t j = 0; j < total; j++)
			v->flow_files[j] = flow_file_mask(pp[r[j].part].e, &pp[r[j].part].e->flows[r[j].idx]);
	}
	free(r);
	return 0;
}

int engmerge(struct engmerge *m, const struct engmerge_part *pp, unsigned n)
{
	struct engine *v = &m->v;
	uint32_t *hmap[ENGMERGE_MAX_PARTS] = { 0 }, *pos[ENGMERGE_MAX_PARTS] = { 0 };
	int rc = -1;

	engmerge_free(m);
	if (!n || n > ENGMERGE_MAX_PARTS)
		return -1;
	v->cfg = pp[0].e->cfg;
	memcpy(v->decay, pp[0].e->decay, sizeof v->decay);
	memcpy(v->weight, pp[0].e->weight, sizeof v->weight);
	merge_totals(v, pp, n);
	if (merge_hosts(m, pp, n, hmap) || merge_ports(v, pp, n) || merge_flows(m, pp, n, hmap, pos))
		goto out;
	for (unsigned k = 0; k < n; k++)
		m->parts[k] = pp[k].e;
	v->parts = m->parts;
	v->part_of = m->part_of;
	v->nparts = n;
	rc = 0;
out:
	for (unsigned k = 0; k < n; k++) {
		free(hmap[k]);
		free(pos[k]);
	}
	if (rc)
		engmerge_free(m);
	return rc;
}
