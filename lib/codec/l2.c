/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * l2.c — Data Center Bridging frames carried directly on Ethernet: the
 * decoder, field-walker and summary hooks (internal.h) that dispatch by
 * ethertype to pfc.c (MAC control), cnm.c (802.1Qau CN-TAG/CNM) and lldp.c
 * (LLDP/DCBX).  What those three share sits below them, in dcb.c.
 */
#include "dcb_priv.h"

int roce__decode_l2(struct roce_pkt *p, uint16_t ethertype, uint32_t off, uint32_t end)
{
	switch (ethertype) {
	case ROCE_ETH_MACCTL:
		roce__decode_macctrl(p, off, end);
		return 1;
	case ROCE_ETH_CNM:
		roce__decode_cn(p, off, end);
		return 1;
	case ROCE_ETH_LLDP:
		roce__decode_lldp(p, off, end);
		return 1;
	default:
		return 0;
	}
}

void roce__fields_l2(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	if (p->macctrl_off)
		roce__fields_macctrl(p, cb, ctx);
	if (p->cnm_off)
		roce__fields_cn(p, cb, ctx);
	if (p->lldp_off)
		roce__fields_lldp(p, cb, ctx);
}

void roce__summary_l2(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	if (p->macctrl_off)
		roce__summary_macctrl(p, buf, cap, n);
	if (p->cnm_off)
		roce__summary_cn(p, buf, cap, n);
	if (p->lldp_off)
		roce__summary_lldp(p, buf, cap, n);
}
