/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dcb.c — Data Center Bridging frames carried directly on Ethernet: the
 * decoder, field-walker and summary hooks that dispatch to pfc.c (MAC
 * control), cnm.c (802.1Qau CN-TAG/CNM) and lldp.c (LLDP/DCBX), and the
 * Ethernet framing their builders share.
 *
 *   +-------------+-------------+-----------+- - - - - - -+-----------+---------+-----+
 *   | destination | source      | [802.1Q]* | ethertype   | PDU       | pad to  | FCS |
 *   | 6           | 6           | 4 each    | 2           |           | 60      | [4] |
 *   +-------------+-------------+-----------+- - - - - - -+-----------+---------+-----+
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

uint32_t roce__l2_end(const struct roce_pkt *p)
{
	if (p->fcs_off)
		return p->fcs_off;
	return p->wirelen > p->caplen ? p->wirelen : p->caplen;
}

/* ---- builders ------------------------------------------------------------ */

static int is_zero_mac(const uint8_t *m)
{
	return !(m[0] | m[1] | m[2] | m[3] | m[4] | m[5]);
}

int roce__l2_header(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		    const uint8_t group[6], uint16_t ethertype, size_t body_len, int fcs)
{
	static const uint8_t zero[6];
	unsigned nv = eth ? eth->n_vlan : 0;
	size_t hlen, len;
	uint8_t *w = dst;

	if (nv > 2)
		return ROCE_EARG;
	for (unsigned i = 0; i < nv; i++)
		if (eth->vlan[i].pcp > 7 || eth->vlan[i].dei > 1 || eth->vlan[i].vid > 0xfff)
			return ROCE_EARG;
	hlen = 14 + 4 * (size_t)nv;
	if (body_len > 0xffff)
		return ROCE_EARG;
	len = hlen + body_len;
	if (len < 60)
		len = 60;
	if (fcs)
		len += 4;
	if (!dst || cap < len)
		return ROCE_ENOSPC;

	memcpy(w, eth && !is_zero_mac(eth->dst) ? eth->dst : group ? group : zero, 6);
	memcpy(w + 6, eth ? eth->src : zero, 6);
	w += 12;
	for (unsigned i = 0; i < nv; i++) {
		const struct roce_vlan *v = &eth->vlan[i];
		uint16_t tpid = v->tpid ? v->tpid : nv == 2 && i == 0 ? ROCE_ETH_QINQ : ROCE_ETH_VLAN;

		wr16(w, tpid);
		wr16(w + 2, (uint16_t)(v->pcp << 13 | v->dei << 12 | v->vid));
		w += 4;
	}
	wr16(w, ethertype);
	return (int)hlen;
}

int roce__l2_finish(uint8_t *dst, size_t len, int fcs)
{
	if (len < 60) {
		memset(dst + len, 0, 60 - len);
		len = 60;
	}
	if (fcs) {
		wr32le(dst + len, roce_crc32(0, dst, len));
		len += 4;
	}
	return (int)len;
}
