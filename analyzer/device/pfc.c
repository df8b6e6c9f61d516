/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pfc.c — the per-vendor PFC names of ethtool -S (pfc.h), as data.
 *
 * mlx5_core: rx/tx_prioN_pause (frames), rx/tx_prioN_pause_duration (µs),
 *   rx_prioN_pause_transition (XOFF to XON), rx/tx_pause_ctrl_phy (802.3x);
 * ice: rx/tx_priority_N_xoff.nic (pause frames), …_xon.nic;
 *   link_xoff_rx/tx.nic, link_xon_rx/tx.nic (802.3x);
 * bnxt_en: rx/tx_pfc_ena_frames_priN, pfc_priN_rx/tx_duration_us,
 *   rx/tx_pause_frames (802.3x);
 * i40e: port.priority_N_xoff_rx/tx, port.priority_N_xon_rx/tx,
 *   port.link_xoff_rx/tx, port.link_xon_rx/tx.
 * A format's %u is the priority (0-7); formats without one are global.
 */
#include <stdio.h>
#include <string.h>
#include "devmon.h"
#include "pfc.h"

static const struct {
	const char *fmt;
	uint8_t tx, field;
} names[] = {
	{ "rx_prio%u_pause", 0, PFC_PAUSE },
	{ "tx_prio%u_pause", 1, PFC_PAUSE },
	{ "rx_prio%u_pause_duration", 0, PFC_PAUSE_US },
	{ "tx_prio%u_pause_duration", 1, PFC_PAUSE_US },
	{ "rx_prio%u_pause_transition", 0, PFC_XON },
	{ "rx_pause_ctrl_phy", 0, PFC_PAUSE },
	{ "tx_pause_ctrl_phy", 1, PFC_PAUSE },
	{ "rx_priority_%u_xoff.nic", 0, PFC_PAUSE },
	{ "tx_priority_%u_xoff.nic", 1, PFC_PAUSE },
	{ "rx_priority_%u_xon.nic", 0, PFC_XON },
	{ "tx_priority_%u_xon.nic", 1, PFC_XON },
	{ "link_xoff_rx.nic", 0, PFC_PAUSE },
	{ "link_xoff_tx.nic", 1, PFC_PAUSE },
	{ "link_xon_rx.nic", 0, PFC_XON },
	{ "link_xon_tx.nic", 1, PFC_XON },
	{ "rx_pfc_ena_frames_pri%u", 0, PFC_PAUSE },
	{ "tx_pfc_ena_frames_pri%u", 1, PFC_PAUSE },
	{ "pfc_pri%u_rx_duration_us", 0, PFC_PAUSE_US },
	{ "pfc_pri%u_tx_duration_us", 1, PFC_PAUSE_US },
	{ "rx_pause_frames", 0, PFC_PAUSE },
	{ "tx_pause_frames", 1, PFC_PAUSE },
	{ "port.priority_%u_xoff_rx", 0, PFC_PAUSE },
	{ "port.priority_%u_xoff_tx", 1, PFC_PAUSE },
	{ "port.priority_%u_xon_rx", 0, PFC_XON },
	{ "port.priority_%u_xon_tx", 1, PFC_XON },
	{ "port.link_xoff_rx", 0, PFC_PAUSE },
	{ "port.link_xoff_tx", 1, PFC_PAUSE },
	{ "port.link_xon_rx", 0, PFC_XON },
	{ "port.link_xon_tx", 1, PFC_XON },
};

/* Does name match fmt exactly; its priority (PFC_GLOBAL without %u). */
static int match(const char *fmt, const char *name, unsigned *prio)
{
	const char *pc = strstr(fmt, "%u");
	size_t pre, i;
	unsigned v = 0;

	if (!pc) {
		*prio = PFC_GLOBAL;
		return !strcmp(fmt, name);
	}
	pre = (size_t)(pc - fmt);
	if (strncmp(fmt, name, pre) || name[pre] < '0' || name[pre] > '7')
		return 0;
	for (i = pre; name[i] >= '0' && name[i] <= '9'; i++)
		v = v * 10 + (unsigned)(name[i] - '0');
	if (i != pre + 1 || strcmp(pc + 2, name + i))
		return 0;
	*prio = v;
	return 1;
}

int pfc_name(const char *name, unsigned *prio, int *tx, enum pfc_field *field)
{
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (match(names[k].fmt, name, prio)) {
			*tx = names[k].tx;
			*field = names[k].field;
			return 1;
		}
	return 0;
}

size_t pfc_collect(const struct etht *e, const struct dm_rate *rates, uint32_t nrates, struct pfc_prio out[9])
{
	size_t seen = 0;

	memset(out, 0, 9 * sizeof *out);
	for (uint32_t i = 0; e->names && i < e->n; i++) {
		unsigned prio;
		int tx;
		enum pfc_field field;
		struct pfc_val *v;

		if (!pfc_name(e->names[i], &prio, &tx, &field))
			continue;
		v = &out[prio].f[tx][field];
		v->v += e->values[i];
		v->have = 1;
		if (rates && i < nrates && rates[i].valid) {
			v->rate += rates[i].v;
			v->have_rate = 1;
		}
		seen += !out[prio].any;
		out[prio].any = 1;
	}
	return seen;
}
