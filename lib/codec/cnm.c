/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cnm.c — IEEE 802.1Qau congestion notification (802.1Q-2011 clauses 32-33):
 * the CN-TAG and the congestion notification message (CNM), both under
 * ethertype 0x22E9.
 *
 * CN-TAG (33.2):      | 0x22E9 | flow ID (2) | ethertype of the tagged frame |
 * CNM frame (33.3):   [CN-TAG with the sampled frame's flow ID] | 0x22E9 | CNM PDU
 * CNM PDU (33.4), 24 bytes + up to 64 bytes of the sampled frame's MSDU:
 *
 *   +-------+-----------+-----------+---------------------------------+
 *   |Ver (4)| Resv (6)  | QntzFb (6)| Congestion Point ID (8 octets)  |
 *   +-------+-----------+-----------+---------------------------------+
 *   | cnmQOffset (2, signed) | cnmQDelta (2, signed) | Encap prio (2) |
 *   +------------------------+-----------------------+----------------+
 *   | Encapsulated destination MAC (6) | Encapsulated MSDU length (2) |
 *   +----------------------------------+------------------------------+
 *   | Encapsulated MSDU (0..64) ...
 *
 * How a CN-TAG is told from a bare CNM is documented in dcb.h.
 */
#include "dcb_priv.h"

/* An inner ethertype that libroce would decode, with a plausible first byte
 * after it when it was captured (avail counts from the ethertype). */
static int plausible_inner(const uint8_t *b, uint32_t avail, uint16_t et)
{
	switch (et) {
	case ROCE_ETH_IPV4:
		return avail < 3 || (b[2] >> 4 == 4 && (b[2] & 15) >= 5);
	case ROCE_ETH_IPV6:
	case ROCE_ETH_ROCEV1:
		return avail < 3 || b[2] >> 4 == 6;
	case ROCE_ETH_VLAN:
	case ROCE_ETH_QINQ:
	case ROCE_ETH_MACCTL:
	case ROCE_ETH_LLDP:
		return 1;
	default:
		return 0;
	}
}

int roce_cntag_peek(const uint8_t *data, uint32_t caplen, uint32_t off, uint32_t end,
		    uint16_t *flow_id, uint16_t *inner_ethertype)
{
	uint32_t avail = off < caplen ? caplen - off : 0;
	const uint8_t *b = data + off;
	uint16_t et;

	(void)end;
	if (avail < 4)
		return ROCE_ETRUNC;
	et = rd16(b + 2);
	if (flow_id)
		*flow_id = rd16(b);
	if (inner_ethertype)
		*inner_ethertype = et;
	if (et == ROCE_ETH_CNM)
		return 1;
	if (b[0] || (b[1] & 0xc0))          /* CNM version and reserved bits are zero */
		return 1;
	return plausible_inner(b + 2, avail - 2, et) ? 1 : 0;
}

void roce__decode_cn(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	uint16_t inner;
	uint32_t pdu;
	int tag;

	/* A decoder that skipped the CN-TAG itself has already set cnm_off. */
	if (!p->cnm_off)
		p->cnm_off = off;
	if (end < off + 4) {
		roce__invalid(p, ROCE_L_CNM, "802.1Qau frame shorter than a CN-TAG");
		return;
	}
	tag = roce_cntag_peek(p->data, p->caplen, off, end, NULL, &inner);
	if (tag < 0) {
		roce__trunc(p, ROCE_L_CNM);
		return;
	}
	if (tag && inner != ROCE_ETH_CNM) {
		/* A data frame with a CN-TAG: what follows is not ours. */
		roce__seen(p, ROCE_L_CNM);
		return;
	}
	pdu = tag ? off + 4 : off;
	if (end - pdu < ROCE_CNM_HDR_LEN) {
		roce__invalid(p, ROCE_L_CNM, "CNM shorter than its 24-byte header");
		return;
	}
	if (roce__avail(p, pdu) < ROCE_CNM_HDR_LEN) {
		roce__trunc(p, ROCE_L_CNM);
		return;
	}
	roce__seen(p, ROCE_L_CNM);
}

int roce_cnm_get(const struct roce_pkt *p, struct roce_cnm *out)
{
	uint32_t off = p->cnm_off, end = roce__l2_end(p), pdu, have, n;
	const uint8_t *b;
	int tag;

	memset(out, 0, sizeof *out);
	if (!off)
		return ROCE_EINVAL;
	tag = roce_cntag_peek(p->data, p->caplen, off, end, &out->flow_id, &out->inner_ethertype);
	if (tag < 0) {
		out->flow_id = out->inner_ethertype = 0;
		return ROCE_ETRUNC;
	}
	if (tag) {
		out->has_tag = 1;
		out->inner_off = off + 4;
		if (out->inner_ethertype != ROCE_ETH_CNM)
			return ROCE_OK;
		pdu = off + 4;
	} else {
		out->flow_id = out->inner_ethertype = 0;
		pdu = off;
	}
	out->is_cnm = 1;
	out->pdu_off = pdu;
	have = roce__avail(p, pdu);
	if (pdu + ROCE_CNM_HDR_LEN > end)
		return ROCE_EINVAL;
	if (have < ROCE_CNM_HDR_LEN)
		return ROCE_ETRUNC;
	b = p->data + pdu;
	out->version = b[0] >> 4;
	out->reserved = (uint8_t)((b[0] & 15) << 2 | b[1] >> 6);
	out->qfb = b[1] & 0x3f;
	out->cpid = rd64(b + 2);
	out->qoffset = (int16_t)rd16(b + 10);
	out->qdelta = (int16_t)rd16(b + 12);
	out->encap_priority = rd16(b + 14);
	memcpy(out->encap_da, b + 16, 6);
	out->encap_len = rd16(b + 22);
	out->msdu_off = pdu + ROCE_CNM_HDR_LEN;
	n = have - ROCE_CNM_HDR_LEN;
	if (n > end - out->msdu_off)
		n = end - out->msdu_off;
	if (n > out->encap_len)         /* the rest is padding */
		n = out->encap_len;
	out->msdu_caplen = n > ROCE_CNM_MSDU_MAX ? ROCE_CNM_MSDU_MAX : n;
	return ROCE_OK;
}

/* ---- fields and summary ---------------------------------------------------- */

void roce__fields_cn(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	struct roce_cnm c;
	int rc = roce_cnm_get(p, &c);

	if (c.has_tag) {
		EMIT_U("roce.cntag.flow_id", c.flow_id);
		EMIT_U("roce.cntag.ethertype", c.inner_ethertype);
	}
	if (!c.is_cnm || rc != ROCE_OK)
		return;
	EMIT_U("roce.cnm.version", c.version);
	EMIT_U("roce.cnm.reserved", c.reserved);
	EMIT_U("roce.cnm.qfb", c.qfb);
	EMIT_U("roce.cnm.cpid", c.cpid);
	EMIT_I("roce.cnm.qoffset", c.qoffset);
	EMIT_I("roce.cnm.qdelta", c.qdelta);
	EMIT_U("roce.cnm.encap_priority", c.encap_priority);
	EMIT_MAC("roce.cnm.encap_da", p->data + c.pdu_off + 16);   /* from the frame: fields outlive c */
	EMIT_U("roce.cnm.encap_len", c.encap_len);
	if (c.msdu_caplen)
		EMIT_BYTES("roce.cnm.encap_msdu", p->data + c.msdu_off, c.msdu_caplen);
}

void roce__summary_cn(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	struct roce_cnm c;
	int rc = roce_cnm_get(p, &c);

	if (c.has_tag)
		roce__sappend(buf, cap, n, " CN-TAG flow 0x%04x", c.flow_id);
	if (!c.is_cnm) {
		if (!c.has_tag)
			roce__sappend(buf, cap, n, " 802.1Qau");
		else if (c.inner_ethertype != ROCE_ETH_CNM)
			roce__sappend(buf, cap, n, " ethertype 0x%04x", c.inner_ethertype);
		return;
	}
	if (rc != ROCE_OK) {
		roce__sappend(buf, cap, n, " CNM");
		return;
	}
	roce__sappend(buf, cap, n,
		      " CNM qfb %u cpid 0x%016llx qoff %d qdelta %d encap %02x:%02x:%02x:%02x:%02x:%02x len %u",
		      c.qfb, (unsigned long long)c.cpid, c.qoffset, c.qdelta,
		      c.encap_da[0], c.encap_da[1], c.encap_da[2], c.encap_da[3], c.encap_da[4],
		      c.encap_da[5], c.encap_len);
}

/* ---- builders -------------------------------------------------------------- */

int roce_build_cnm(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		   const struct roce_cnm *cnm, const uint8_t *msdu, size_t msdu_len, int fcs)
{
	size_t body, pos;
	int h;

	if (!cnm || cnm->version > 15 || cnm->qfb > 63 || cnm->reserved > 63 ||
	    msdu_len > ROCE_CNM_MSDU_MAX || (msdu_len && !msdu))
		return ROCE_EARG;
	body = (cnm->has_tag ? 4 : 0) + ROCE_CNM_HDR_LEN + msdu_len;
	h = roce__l2_header(dst, cap, eth, NULL, ROCE_ETH_CNM, body, fcs);
	if (h < 0)
		return h;
	pos = (size_t)h;
	if (cnm->has_tag) {
		wr16(dst + pos, cnm->flow_id);
		wr16(dst + pos + 2, ROCE_ETH_CNM);
		pos += 4;
	}
	dst[pos] = (uint8_t)(cnm->version << 4 | cnm->reserved >> 2);
	dst[pos + 1] = (uint8_t)((cnm->reserved & 3) << 6 | cnm->qfb);
	wr64(dst + pos + 2, cnm->cpid);
	wr16(dst + pos + 10, (uint16_t)cnm->qoffset);
	wr16(dst + pos + 12, (uint16_t)cnm->qdelta);
	wr16(dst + pos + 14, cnm->encap_priority);
	memcpy(dst + pos + 16, cnm->encap_da, 6);
	wr16(dst + pos + 22, cnm->encap_len ? cnm->encap_len : (uint16_t)msdu_len);
	pos += ROCE_CNM_HDR_LEN;
	if (msdu_len)
		memcpy(dst + pos, msdu, msdu_len);
	return roce__l2_finish(dst, pos + msdu_len, fcs);
}

int roce_build_cntag(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		     uint16_t flow_id, uint16_t ethertype, const uint8_t *payload,
		     size_t len, int fcs)
{
	int h;

	if (len && !payload)
		return ROCE_EARG;
	h = roce__l2_header(dst, cap, eth, NULL, ROCE_ETH_CNM, 4 + len, fcs);
	if (h < 0)
		return h;
	wr16(dst + h, flow_id);
	wr16(dst + h + 2, ethertype);
	if (len)
		memcpy(dst + h + 4, payload, len);
	return roce__l2_finish(dst, (size_t)h + 4 + len, fcs);
}
