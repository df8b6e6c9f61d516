/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pfc.h — one PFC view across vendors: per priority and direction, pause
 * frames, pause duration (µs) and XON/XOFF transitions, from the `ethtool -S`
 * names of mlx5_core, ice, bnxt_en and i40e (the table in pfc.c), plus the
 * global 802.3x pause counters (priority PFC_GLOBAL).
 */
#ifndef ROCETOP_PFC_H
#define ROCETOP_PFC_H

#include <stddef.h>
#include <stdint.h>
#include "ethtool.h"

#define PFC_GLOBAL 8                     /* the 802.3x link pause, no priority */

enum pfc_field { PFC_PAUSE = 0, PFC_PAUSE_US, PFC_XON, PFC_NFIELDS };

struct pfc_val {
	uint64_t v;
	double rate;                         /* per second */
	uint8_t have, have_rate;
};

struct pfc_prio {
	struct pfc_val f[2][PFC_NFIELDS];    /* [0] rx (received from the peer), [1] tx */
	int any;
};

/* Whether name is one of the table's PFC names: its priority (0-7, or
 * PFC_GLOBAL), direction (*tx: 1 sent, 0 received) and field. */
int pfc_name(const char *name, unsigned *prio, int *tx, enum pfc_field *field);

/* Fills out[0..8] (8: PFC_GLOBAL) from e's names; rates[i] (NULL: none)
 * per e->values[i], valid when valid[i].  The number of priorities seen. */
struct dm_rate;
size_t pfc_collect(const struct etht *e, const struct dm_rate *rates, uint32_t nrates, struct pfc_prio out[9]);

#endif
