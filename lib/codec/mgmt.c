/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgmt.c — the MADs of other management classes than CM (IBTA vol 1
 * ch. 13.4, 14.2, 15.2, 16.1): on QP0 (subnet management) and QP1 (general
 * services), the common header and, for the classes below, their own
 * headers; the attribute data is not decoded.
 *
 *   common (24)  BaseVersion | MgmtClass | ClassVersion | R:1 Method:7 |
 *                Status (16) | ClassSpecific (16) | TransactionID (64) |
 *                AttributeID (16) | reserved (16) | AttributeModifier (32)
 *   0x01 SMP, LID-routed   M_Key (64) at 24, SMP data (64 bytes) at 64
 *   0x81 SMP, directed route: Status is D:1 Status:15, ClassSpecific is
 *                HopPointer | HopCount; M_Key at 24, DrSLID at 32, DrDLID
 *                at 34, SMP data at 64, InitialPath at 128, ReturnPath at 192
 *   0x03 SA      RMPP (12) at 24: version | type | RRespTime:5 Flags:3 |
 *                status | data1 | data2; SM_Key (64) at 36, AttributeOffset
 *                (16) at 44, ComponentMask (64) at 48, data at 56
 *   0x04 PerfMgt 40 reserved bytes, then 192 bytes of data
 *
 * Fields under Wireshark's names (infiniband.mad.*, infiniband.smplid.*,
 * infiniband.smpdirected.*, infiniband.rmpp.*, infiniband.sa.*), each given
 * only when its bytes were captured.
 */
#include "internal.h"

#define MGMT_SMP_LID 0x01
#define MGMT_SA      0x03
#define MGMT_PERF    0x04
#define MGMT_SMP_DR  0x81

/* A UD SEND to QP0, or one to QP1 whose class is not CM (from
 * roce__decode_mad()). */
void roce__decode_mgmt(struct roce_pkt *p)
{
	if (p->payload_len != ROCE_MAD_LEN)
		roce__invalid(p, ROCE_L_MAD, "QP0/QP1 payload is not a 256-byte MAD");
	if (roce__avail(p, p->payload_off) < 2 || p->payload_len < 2) {
		if (p->payload_len >= 2)
			roce__trunc(p, ROCE_L_MAD);
		return;
	}
	p->mgmt_off = p->payload_off;
	roce__seen(p, ROCE_L_MAD);
	if (p->data[p->mgmt_off] != 1)
		roce__invalid(p, ROCE_L_MAD, "MAD base version is not 1");
	if (roce__avail(p, p->mgmt_off) < (p->payload_len < ROCE_MAD_LEN ? p->payload_len : ROCE_MAD_LEN))
		roce__trunc(p, ROCE_L_MAD);
}

static const char *class_name(uint8_t c)
{
	switch (c) {
	case MGMT_SMP_LID: return "SMP";
	case MGMT_SMP_DR: return "SMP-DR";
	case MGMT_SA: return "SA";
	case MGMT_PERF: return "PerfMgt";
	case 0x05: return "BM";
	case 0x06: return "DevMgt";
	case 0x08: return "SNMP";
	case 0x21: return "CC";
	}
	return NULL;
}

static void common_fields(const uint8_t *m, uint32_t n, roce_field_cb cb, void *ctx)
{
	if (n < ROCE_MAD_HDR_LEN)
		return;
	EMIT_U("infiniband.mad.baseversion", m[0]);
	EMIT_U("infiniband.mad.mgmtclass", m[1]);
	EMIT_U("infiniband.mad.classversion", m[2]);
	EMIT_U("infiniband.mad.method", m[3]);
	EMIT_U("infiniband.mad.status", rd16(m + 4));
	EMIT_U("infiniband.mad.classspecific", rd16(m + 6));
	EMIT_U("infiniband.mad.transactionid", rd64(m + 8));
	EMIT_U("infiniband.mad.attributeid", rd16(m + 16));
	EMIT_U("infiniband.mad.attributemodifier", rd32(m + 20));
}

static void smp_dr_fields(const uint8_t *m, uint32_t n, roce_field_cb cb, void *ctx)
{
	/* Wireshark's infiniband.smpdirected.d reads other bits than the D bit */
	EMIT_U("roce.mad.smp_d", m[4] >> 7);
	EMIT_U("infiniband.smpdirected.smpstatus", rd16(m + 4));
	EMIT_U("infiniband.smpdirected.hoppointer", m[6]);
	EMIT_U("infiniband.smpdirected.hopcount", m[7]);
	if (n < 36)
		return;
	EMIT_U("infiniband.smplid.mkey", rd64(m + 24));
	EMIT_U("infiniband.smpdirected.drslid", rd16(m + 32));
	EMIT_U("infiniband.smpdirected.drdlid", rd16(m + 34));
	if (n >= 256) {
		EMIT_BYTES("infiniband.smpdirected.initialpath", m + 128, 64);
		EMIT_BYTES("infiniband.smpdirected.returnpath", m + 192, 64);
	}
}

static void sa_fields(const uint8_t *m, uint32_t n, roce_field_cb cb, void *ctx)
{
	if (n < 36)
		return;
	EMIT_U("infiniband.rmpp.rmppversion", m[24]);
	EMIT_U("infiniband.rmpp.rmpptype", m[25]);
	/* RRespTime:5 RMPPFlags:3 (IBTA 13.6.2.1); Wireshark splits the
	 * byte 4:4 under its names, so these are ours */
	EMIT_U("roce.rmpp.rresptime", m[26] >> 3);
	EMIT_U("roce.rmpp.flags", m[26] & 7);
	EMIT_U("infiniband.rmpp.rmppstatus", m[27]);
	if (m[25] == 1 || m[25] == 2)      /* DATA, ACK */
		EMIT_U("infiniband.rmpp.segmentnumber", rd32(m + 28));
	else
		EMIT_U("infiniband.rmpp.data1", rd32(m + 28));
	if (m[25] == 1)
		EMIT_U("infiniband.rmpp.payloadlength", rd32(m + 32));
	else if (m[25] == 2)
		EMIT_U("infiniband.rmpp.newwindowlast", rd32(m + 32));
	else
		EMIT_U("infiniband.rmpp.data2", rd32(m + 32));
	if (n < 56)
		return;
	EMIT_U("infiniband.sa.smkey", rd64(m + 36));
	EMIT_U("infiniband.sa.attributeoffset", rd16(m + 44));
	EMIT_U("infiniband.sa.componentmask", rd64(m + 48));
}

void roce__fields_mgmt(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const uint8_t *m = p->data + p->mgmt_off;
	uint32_t n = roce__avail(p, p->mgmt_off);

	if (n > p->payload_len)
		n = p->payload_len;
	if (n < ROCE_MAD_HDR_LEN)
		return;
	/* the whole MAD and what follows its common header, as tshark gives them
	 * on every MAD (mad.c on QP1's CM MADs) */
	if (n >= ROCE_MAD_LEN)
		EMIT_BYTES("infiniband.mad", m, ROCE_MAD_LEN);
	common_fields(m, n, cb, ctx);
	if (n >= ROCE_MAD_LEN)
		EMIT_BYTES("infiniband.mad.data", m + ROCE_MAD_HDR_LEN, ROCE_MAD_LEN - ROCE_MAD_HDR_LEN);
	EMIT_S("roce.mad.class", class_name(m[1]) ? class_name(m[1]) : "other");
	if (m[1] == MGMT_SMP_LID && n >= 32)
		EMIT_U("infiniband.smplid.mkey", rd64(m + 24));
	else if (m[1] == MGMT_SMP_DR)
		smp_dr_fields(m, n, cb, ctx);
	else if (m[1] == MGMT_SA)
		sa_fields(m, n, cb, ctx);
}

void roce__summary_mgmt(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	const uint8_t *m = p->data + p->mgmt_off;
	const char *c;

	if (roce__avail(p, p->mgmt_off) < ROCE_MAD_HDR_LEN || p->payload_len < ROCE_MAD_HDR_LEN)
		return;
	c = class_name(m[1]);
	if (c)
		roce__sappend(buf, cap, n, " MAD %s", c);
	else
		roce__sappend(buf, cap, n, " MAD class 0x%02x", m[1]);
	roce__sappend(buf, cap, n, " method 0x%02x attr 0x%04x mod 0x%08x tid 0x%016llx", m[3], rd16(m + 16),
		      rd32(m + 20), (unsigned long long)rd64(m + 8));
	if (m[1] == MGMT_SMP_DR)
		roce__sappend(buf, cap, n, " hop %u/%u", m[6], m[7]);
}
