/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dcb.c — what the Data Center Bridging files share (pfc.c, cnm.c, lldp.c,
 * all declared in the public dcb.h): the end of the frame as their decoders
 * see it and the Ethernet framing their builders write.  The dispatch by
 * ethertype to these decoders lives above them, in l2.c.
 *
 *   +-------------+-------------+-----------+- - - - - - -+-----------+---------+-----+
 *   | destination | source      | [802.1Q]* | ethertype   | PDU       | pad to  | FCS |
 *   | 6           | 6           | 4 each    | 2           |           | 60      | [4] |
 *   +-------------+-------------+-----------+- - - - - - -+-----------+---------+-----+
 */
#include "dcb_priv.h"

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
