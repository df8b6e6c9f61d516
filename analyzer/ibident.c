/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibident.c — the identity of a LID-routed InfiniBand QP across LID changes.
 *
 * A flow is (source host, destination host, DestQP); on LID-routed IB the
 * hosts are LIDs.  LMC path bits and automatic path migration give a QP new
 * LIDs in mid-connection; flow.c (ib_identity) recognises that from the PSN
 * sequence and records here that the new (SLID, DLID, DestQP) is an alias
 * of the flow's first one.  Two small open-addressing tables, made at the
 * first LID-routed IB packet (RoCE captures never pay for them):
 *   aliases: (src, dst, qpn) -> the flow's (src, dst); never removed; at
 *            most IBID_ALIASES (then further LID changes split flows);
 *   last:    qpn -> the flow (index + 1) that last carried it, overwritten
 *            on collision: where to look for the QP a new LID pair continues.
 */
#include <stdlib.h>
#include "ibident.h"

#define IBID_LAST 4096

struct ibid_alias {
	uint32_t src, dst, qpn;        /* as the packet names them; qpn + 1, 0 = empty */
	uint32_t fsrc, fdst;           /* as the flow is keyed */
};

struct ibident {
	struct ibid_alias a[IBID_ALIASES];
	uint32_t n;
	uint32_t last[IBID_LAST][2];   /* qpn + 1, flow index + 1 */
};

static uint32_t h3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t h = a * 0x9e3779b1u ^ b * 0x85ebca6bu ^ c * 0xc2b2ae35u;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ h >> 12;
}

struct ibident *ibident_new(void)
{
	return calloc(1, sizeof(struct ibident));
}

void ibident_free(struct ibident *t)
{
	free(t);
}

uint32_t ibident_aliases(const struct ibident *t)
{
	return t ? t->n : 0;
}

int ibident_lookup(const struct ibident *t, uint32_t *src, uint32_t *dst, uint32_t qpn)
{
	uint32_t i;

	if (!t || !t->n)
		return 0;
	for (i = h3(*src, *dst, qpn) & (IBID_ALIASES - 1); t->a[i].qpn; i = (i + 1) & (IBID_ALIASES - 1)) {
		const struct ibid_alias *x = &t->a[i];

		if (x->qpn == qpn + 1 && x->src == *src && x->dst == *dst) {
			*src = x->fsrc;
			*dst = x->fdst;
			return 1;
		}
	}
	return 0;
}

int ibident_add(struct ibident *t, uint32_t src, uint32_t dst, uint32_t qpn, uint32_t fsrc, uint32_t fdst)
{
	uint32_t i;

	if (!t || t->n >= IBID_ALIASES * 3 / 4)
		return -1;
	for (i = h3(src, dst, qpn) & (IBID_ALIASES - 1); t->a[i].qpn; i = (i + 1) & (IBID_ALIASES - 1))
		if (t->a[i].qpn == qpn + 1 && t->a[i].src == src && t->a[i].dst == dst)
			return 0;
	t->a[i] = (struct ibid_alias){ src, dst, qpn + 1, fsrc, fdst };
	t->n++;
	return 0;
}

void ibident_note(struct ibident *t, uint32_t qpn, uint32_t flow_idx)
{
	uint32_t *s = t->last[h3(qpn, 0, 0) & (IBID_LAST - 1)];

	s[0] = qpn + 1;
	s[1] = flow_idx;
}

uint32_t ibident_last(const struct ibident *t, uint32_t qpn)
{
	const uint32_t *s = t->last[h3(qpn, 0, 0) & (IBID_LAST - 1)];

	return s[0] == qpn + 1 ? s[1] : 0;
}
