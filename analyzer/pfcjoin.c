/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pfcjoin.c — the netdev's pause counters against the captured pause
 * frames (pfcjoin.h).
 */
#include <stdio.h>
#include <string.h>
#include "pfc.h"
#include "pfcjoin.h"

/* The first read of the counter called name; 0 when it was not there. */
static int base_of(const struct dm_port *p, const char *name, uint64_t *v)
{
	for (uint32_t i = 0; i < p->eth_nbase; i++)
		if (!strncmp(p->eth_base_names[i], name, ETHT_NAME)) {
			*v = p->eth_base[i];
			return 1;
		}
	return 0;
}

/* Pause frames (a time above zero) of priority k (PFC_GLOBAL: 802.3x)
 * captured from the MAC mac (tx) or from any other (rx). */
static uint64_t wire_pauses(const struct engine *e, const uint8_t mac[6], unsigned k, int tx)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < e->nports; i++) {
		const struct port *pt = &e->ports[i];

		if (!memcmp(pt->mac, mac, 6) != !!tx)
			continue;
		s += k == PFC_GLOBAL ? pt->pause.pauses : pt->pfc[k].pauses;
	}
	return s;
}

size_t pfcjoin_compare(const struct engine *e, const struct dm_port *p, struct pfcjoin_cmp *out, size_t cap)
{
	struct {
		uint64_t nic;
		size_t len;
		int have, reset;
		char names[96];
	} c[PFC_GLOBAL + 1][2];   /* 8 priorities and 802.3x, received and sent */
	size_t n = 0;

	if (!e || !p->have_mac || p->eth_err || !p->eth_base || !p->eth.names)
		return 0;
	memset(c, 0, sizeof c);
	for (uint32_t i = 0; i < p->eth.n; i++) {
		unsigned k;
		int tx;
		enum pfc_field fld;
		uint64_t b;

		if (!pfc_name(p->eth.names[i], &k, &tx, &fld) || fld != PFC_PAUSE)
			continue;
		if (!base_of(p, p->eth.names[i], &b) || p->eth.values[i] < b) {
			c[k][tx].reset = 1;   /* new since the first read, or reset: no advance known */
			continue;
		}
		c[k][tx].have = 1;
		c[k][tx].nic += p->eth.values[i] - b;
		if (c[k][tx].len < sizeof c[k][tx].names)
			c[k][tx].len += (size_t)snprintf(c[k][tx].names + c[k][tx].len,
							 sizeof c[k][tx].names - c[k][tx].len, "%s%s",
							 c[k][tx].len ? "+" : "", p->eth.names[i]);
	}
	for (unsigned k = 0; k <= PFC_GLOBAL; k++)
		for (int tx = 0; tx < 2 && n < cap; tx++) {
			uint64_t w;

			if (!c[k][tx].have || c[k][tx].reset)
				continue;
			w = wire_pauses(e, p->mac, k, tx);
			if (!w && !c[k][tx].nic)
				continue;
			out[n].prio = k;
			out[n].tx = tx;
			snprintf(out[n].counter, sizeof out[n].counter, "%s", c[k][tx].names);
			out[n].nic = c[k][tx].nic;
			out[n].wire = w;
			n++;
		}
	return n;
}
