/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rows.c — the table's rows: the flows that pass the filter, in the order of
 * the sort column; the cursor follows its flow as the order changes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"

static const struct engine *cmp_e;
static int cmp_col, cmp_rev;

static int host_cmp(uint32_t a, uint32_t b)
{
	return memcmp(cmp_e->hosts[a].addr, cmp_e->hosts[b].addr, 16);
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	const struct flow *fa = &cmp_e->flows[a->i], *fb = &cmp_e->flows[b->i];
	int r = 0;

	switch (cmp_col) {
	case C_SRC:
		r = host_cmp(fa->src, fb->src);
		if (!r)
			r = host_cmp(fa->dst, fb->dst);
		break;
	case C_DST:
		r = host_cmp(fa->dst, fb->dst);
		if (!r)
			r = host_cmp(fa->src, fb->src);
		break;
	default:
		r = a->key < b->key ? -1 : a->key > b->key;
		if (cols[cmp_col].desc)
			r = -r;
		break;
	}
	if (cmp_rev)
		r = -r;
	if (!r)
		r = fa->packets != fb->packets ? (fa->packets < fb->packets ? 1 : -1) : 0;
	if (!r)
		r = a->i < b->i ? -1 : a->i > b->i;
	return r;
}

void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* Filter: a case-insensitive substring of an address, the QPN in hex
 * (0x0000d2, d2) or decimal, the kind, or an operation name. */
static int flow_matches(const struct tui *v, const struct flow *f)
{
	static const char *const ops[OP__COUNT] = { "send", "write", "read", "atomic" };
	char buf[96];

	if (!v->filter[0])
		return 1;
	if (v->host_match[f->src] || v->host_match[f->dst])
		return 1;
	if (f->kind == FK_IWARP)
		snprintf(buf, sizeof buf, "%u %u iwarp", f->qpn >> 16, f->qpn & 0xffff);
	else
		snprintf(buf, sizeof buf, "0x%06" PRIx32 " %" PRIu32 " %s", f->qpn, f->qpn, flow_kind_name(f->kind));
	lower(buf);
	if (strstr(buf, v->filter))
		return 1;
	for (int i = 0; i < OP__COUNT; i++)
		if (f->msgs[i] && strstr(ops[i], v->filter))
			return 1;
	return 0;
}

static double row_key(const struct tui *v, const struct flow *f, uint64_t now)
{
	double r[3];
	char ops[5];

	switch (v->sort) {
	case C_QPN: return f->qpn;
	case C_KIND: return f->kind;
	case C_OPS: return flow_ops(f, ops);
	case C_RATE_S:
		flow_rates(v->e, f, now, r);
		return r[0];
	case C_AVG: return flow_avg_bps(v->e, f);
	case C_PKTS: return (double)f->packets;
	case C_RETX: return flow_retx(f);
	case C_OOS: return flow_anom(f)->out_of_sequence;
	case C_NAK: return flow_naks(f);
	case C_RNR: return flow_anom(f)->rnr_nak;
	case C_CNP: return f->kind == FK_IWARP ? 0 : f->u.seq.cnp;
	case C_ECN: return f->kind == FK_IWARP ? 0 : f->u.seq.ecn_ce;
	case C_RTT: return flow_rtt50(v->e, f);
	default: return 0;
	}
}

void build_rows(struct tui *v, uint64_t now)
{
	struct engine *e = v->e;
	uint32_t n = 0;

	if (v->rows_cap < e->nflows || !v->rows) {
		uint32_t nc = e->nflows > 1024 ? e->nflows : 1024;
		struct row *nr = realloc(v->rows, nc * sizeof *nr);

		if (!nr)
			return;
		v->rows = nr;
		v->rows_cap = nc;
	}
	if (v->filter[0]) {
		if (v->host_match_cap < e->nhosts) {
			uint8_t *m = realloc(v->host_match, e->nhosts);

			if (!m)
				return;
			v->host_match = m;
			v->host_match_cap = e->nhosts;
		}
		for (uint32_t h = 0; h < e->nhosts; h++) {
			char a[64];

			host_str(e, h, a, sizeof a);
			lower(a);
			v->host_match[h] = strstr(a, v->filter) != NULL;
		}
	}
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];

		if (!flow_matches(v, f))
			continue;
		v->rows[n].i = i;
		v->rows[n].key = row_key(v, f, now);
		n++;
	}
	v->nrows = n;
	cmp_e = e;
	cmp_col = v->sort;
	cmp_rev = v->rev;
	qsort(v->rows, n, sizeof *v->rows, row_cmp);
	/* the cursor follows its flow */
	if (v->sel_idx1) {
		for (uint32_t r = 0; r < n; r++) {
			const struct flow *f = &e->flows[v->rows[r].i];

			if (v->rows[r].i + 1 == v->sel_idx1 && f->src == v->sel_src && f->dst == v->sel_dst &&
			    f->qpn == v->sel_qpn) {
				v->cur = r;
				break;
			}
		}
	}
	if (v->cur >= n)
		v->cur = n ? n - 1 : 0;
}

void remember_cursor(struct tui *v)
{
	const struct flow *f;

	if (v->cur >= v->nrows) {
		v->sel_idx1 = 0;
		return;
	}
	f = &v->e->flows[v->rows[v->cur].i];
	v->sel_idx1 = v->rows[v->cur].i + 1;
	v->sel_src = f->src;
	v->sel_dst = f->dst;
	v->sel_qpn = f->qpn;
}
