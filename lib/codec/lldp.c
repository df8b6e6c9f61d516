/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lldp.c — IEEE 802.1AB Link Layer Discovery Protocol (ethertype 0x88CC) and
 * the DCBX TLVs it carries: IEEE 802.1Qaz (802.1Q-2018 annex D: ETS
 * configuration/recommendation, PFC configuration, application priority,
 * congestion notification) and the pre-standard CEE DCBX TLV (OUI 00-1B-21,
 * "DCB Capability Exchange Protocol Base Specification" v1.01).
 *
 *   TLV:  +--------+---------+------------------------+
 *         | type 7 | len 9   | value (len octets)     |    type 0 = End of LLDPDU
 *         +--------+---------+------------------------+
 *   Org:  value = | OUI (3) | subtype (1) | information ... |
 *
 *   802.1AB-2016 8.2: Chassis ID (1), Port ID (2) and TTL (3) come first,
 *   in that order, and only once (the receiver discards an LLDPDU with a
 *   second one); Chassis/Port ID values are 2..256 octets (subtype + id);
 *   the End TLV is optional since 802.1AB-2016.
 *
 * The walk over the TLV list only ever moves forward by 2 + len bytes, stops
 * at the End TLV, at the end of the frame and at the end of the capture, so
 * it ends on any input; a TLV whose length runs past the frame is invalid,
 * one that runs past the capture is truncated.  Field layouts of the DCBX
 * TLVs are in dcb.h.
 */
#include "dcb_priv.h"

static const uint8_t lldp_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

const char *roce_lldp_type_name(uint8_t type)
{
	static const char *const names[] = {
		"End of LLDPDU", "Chassis ID", "Port ID", "Time To Live", "Port Description",
		"System Name", "System Description", "System Capabilities", "Management Address",
	};
	if (type < sizeof names / sizeof names[0])
		return names[type];
	return type == ROCE_LLDP_ORG ? "Organization specific" : NULL;
}

/* ---- the TLV iterator ------------------------------------------------------- */

void roce_lldp_iter_init(const struct roce_pkt *p, struct roce_lldp_iter *it)
{
	it->off = p->lldp_off;
	it->end = roce__l2_end(p);
	it->state = p->lldp_off ? 0 : ROCE_EINVAL;
	it->n = 0;
}

int roce_lldp_next(const struct roce_pkt *p, struct roce_lldp_iter *it,
		   struct roce_lldp_tlv *tlv)
{
	uint32_t avail;
	const uint8_t *b;

	if (!it->off && !it->state && !it->n)
		roce_lldp_iter_init(p, it);
	memset(tlv, 0, sizeof *tlv);
	if (it->state)
		return it->state > 0 ? 0 : it->state;
	if (it->off >= it->end || it->end - it->off < 2) {
		it->state = 1;                  /* no End TLV: the frame just ends */
		return 0;
	}
	avail = roce__avail(p, it->off);
	if (avail < 2) {
		it->state = ROCE_ETRUNC;
		return ROCE_ETRUNC;
	}
	b = p->data + it->off;
	tlv->type = b[0] >> 1;
	tlv->len = (uint16_t)((b[0] & 1) << 8 | b[1]);
	tlv->off = it->off + 2;
	tlv->value = b + 2;
	if (tlv->len > it->end - tlv->off) {
		it->state = ROCE_EINVAL;
		return ROCE_EINVAL;
	}
	tlv->caplen = avail - 2 < tlv->len ? avail - 2 : tlv->len;
	if (tlv->type == ROCE_LLDP_ORG && tlv->caplen >= 4) {
		tlv->has_oui = 1;
		tlv->oui = rd24(tlv->value);
		tlv->subtype = tlv->value[3];
	}
	it->off = tlv->off + tlv->len;
	it->n++;
	if (tlv->caplen < tlv->len)
		it->state = ROCE_ETRUNC;
	else if (tlv->type == ROCE_LLDP_END)
		it->state = 1;
	return 1;
}

/* ---- DCBX TLV decoders ------------------------------------------------------- */

/* Copies the captured value into a zeroed buffer so a decoder can read every
 * byte it wants; returns ROCE_ETRUNC when part was not captured. */
static int value_copy(const struct roce_lldp_tlv *tlv, uint8_t *buf, size_t size)
{
	uint32_t n = tlv->caplen < size ? tlv->caplen : (uint32_t)size;

	memset(buf, 0, size);
	if (n)
		memcpy(buf, tlv->value, n);
	return tlv->caplen < tlv->len ? ROCE_ETRUNC : ROCE_OK;
}

static int is_8021(const struct roce_lldp_tlv *tlv, uint8_t subtype)
{
	return tlv->type == ROCE_LLDP_ORG && tlv->has_oui && tlv->oui == ROCE_OUI_IEEE_8021 &&
	       tlv->subtype == subtype;
}

static void prio_nibbles(const uint8_t *b, uint8_t out[8])
{
	for (unsigned i = 0; i < 8; i++)
		out[i] = i & 1 ? b[i / 2] & 15 : b[i / 2] >> 4;
}

int roce_dcbx_ets(const struct roce_lldp_tlv *tlv, struct roce_dcbx_ets *out)
{
	uint8_t v[25];
	int rc;

	memset(out, 0, sizeof *out);
	if (!is_8021(tlv, ROCE_DCBX_ETS_CFG) && !is_8021(tlv, ROCE_DCBX_ETS_REC))
		return ROCE_EINVAL;
	if (tlv->len != 25)
		return ROCE_EINVAL;
	rc = value_copy(tlv, v, sizeof v);
	if (tlv->subtype == ROCE_DCBX_ETS_CFG) {
		out->willing = v[4] >> 7;
		out->cbs = v[4] >> 6 & 1;
		out->reserved = v[4] >> 3 & 7;
		out->max_tcs = v[4] & 7;
	} else {
		out->reserved = v[4];
	}
	prio_nibbles(v + 5, out->prio_tc);
	memcpy(out->tc_bw, v + 9, 8);
	memcpy(out->tsa, v + 17, 8);
	return rc;
}

int roce_dcbx_pfc(const struct roce_lldp_tlv *tlv, struct roce_dcbx_pfc *out)
{
	uint8_t v[6];
	int rc;

	memset(out, 0, sizeof *out);
	if (!is_8021(tlv, ROCE_DCBX_PFC) || tlv->len != 6)
		return ROCE_EINVAL;
	rc = value_copy(tlv, v, sizeof v);
	out->willing = v[4] >> 7;
	out->mbc = v[4] >> 6 & 1;
	out->reserved = v[4] >> 4 & 3;
	out->cap = v[4] & 15;
	out->enable = v[5];
	return rc;
}

int roce_dcbx_cn(const struct roce_lldp_tlv *tlv, struct roce_dcbx_cn *out)
{
	uint8_t v[6];
	int rc;

	memset(out, 0, sizeof *out);
	if (!is_8021(tlv, ROCE_DCBX_CN) || tlv->len != 6)
		return ROCE_EINVAL;
	rc = value_copy(tlv, v, sizeof v);
	out->cnpv = v[4];
	out->ready = v[5];
	return rc;
}

int roce_dcbx_app(const struct roce_lldp_tlv *tlv, struct roce_dcbx_app *out)
{
	uint32_t n;

	out->reserved = 0;
	out->n = 0;
	if (!is_8021(tlv, ROCE_DCBX_APP) || tlv->len < 5 || (tlv->len - 5) % 3)
		return ROCE_EINVAL;
	if (tlv->caplen < 5)
		return ROCE_ETRUNC;
	out->reserved = tlv->value[4];
	n = (tlv->caplen - 5) / 3;
	for (uint32_t i = 0; i < n && i < ROCE_DCBX_APP_MAX; i++) {
		const uint8_t *e = tlv->value + 5 + 3 * i;

		out->e[i].prio = e[0] >> 5;
		out->e[i].reserved = e[0] >> 3 & 3;
		out->e[i].sel = e[0] & 7;
		out->e[i].proto = rd16(e + 1);
		out->n = (uint16_t)(i + 1);
	}
	return tlv->caplen < tlv->len ? ROCE_ETRUNC : ROCE_OK;
}

/* Minimum lengths of the CEE sub-TLVs libroce reads. */
static uint32_t cee_min_len(uint8_t type)
{
	switch (type) {
	case ROCE_CEE_CONTROL: return 10;
	case ROCE_CEE_PG: return 17;
	case ROCE_CEE_PFC: return 6;
	case ROCE_CEE_APP: return 4;
	default: return 0;
	}
}

static void cee_feature(const uint8_t *s, struct roce_cee_feature *f)
{
	f->present = 1;
	f->oper_version = s[0];
	f->max_version = s[1];
	f->enabled = s[2] >> 7;
	f->willing = s[2] >> 6 & 1;
	f->error = s[2] >> 5 & 1;
	f->subtype = s[3];
}

int roce_dcbx_cee(const struct roce_lldp_tlv *tlv, struct roce_cee *out)
{
	uint32_t pos = 4;

	memset(out, 0, sizeof *out);
	if (tlv->type != ROCE_LLDP_ORG || !tlv->has_oui || tlv->oui != ROCE_OUI_CEE ||
	    tlv->subtype != 2)
		return ROCE_EINVAL;
	while (tlv->len - pos >= 2) {
		const uint8_t *s;
		uint8_t type;
		uint32_t len;

		if (tlv->caplen < pos + 2)
			return ROCE_ETRUNC;
		type = tlv->value[pos] >> 1;
		len = (uint32_t)(tlv->value[pos] & 1) << 8 | tlv->value[pos + 1];
		pos += 2;
		if (len > tlv->len - pos || len < cee_min_len(type))
			return ROCE_EINVAL;
		if (tlv->caplen < pos + len)
			return ROCE_ETRUNC;
		s = tlv->value + pos;
		switch (type) {
		case ROCE_CEE_CONTROL:
			out->has_control = 1;
			out->oper_version = s[0];
			out->max_version = s[1];
			out->seq = rd32(s + 2);
			out->ack = rd32(s + 6);
			break;
		case ROCE_CEE_PG:
			cee_feature(s, &out->pg);
			prio_nibbles(s + 4, out->pgid);
			memcpy(out->pg_pct, s + 8, 8);
			out->pg_numtcs = s[16];
			break;
		case ROCE_CEE_PFC:
			cee_feature(s, &out->pfc);
			out->pfc_enable = s[4];
			out->pfc_numtcs = s[5];
			break;
		case ROCE_CEE_APP:
			cee_feature(s, &out->app);
			for (uint32_t i = 0; 4 + 6 * (i + 1) <= len && i < ROCE_CEE_APP_MAX; i++) {
				const uint8_t *e = s + 4 + 6 * i;

				out->app_e[i].proto = rd16(e);
				out->app_e[i].sel = e[2] & 3;
				out->app_e[i].oui = rd24(e + 2) & 0xfcffffu;
				out->app_e[i].prio_map = e[5];
				out->n_app = (uint16_t)(i + 1);
			}
			break;
		default:
			break;
		}
		pos += len;
	}
	return ROCE_OK;
}

/* ---- decode path ------------------------------------------------------------- */

/* Length rules that need no more than the TLV header (and OUI/subtype). */
static const char *tlv_check(const struct roce_lldp_tlv *t, uint32_t idx)
{
	static const char *const order = "LLDP: the first TLVs are not Chassis ID, Port ID, TTL";

	if (idx < 3 && t->type != idx + 1)
		return order;
	if (idx >= 3 && t->type >= ROCE_LLDP_CHASSIS_ID && t->type <= ROCE_LLDP_TTL)
		return "LLDP: a second Chassis ID, Port ID or TTL TLV";
	switch (t->type) {
	case ROCE_LLDP_END:
		return t->len ? "LLDP End TLV with a non-zero length" : NULL;
	case ROCE_LLDP_CHASSIS_ID:
	case ROCE_LLDP_PORT_ID:
		return t->len < 2 || t->len > 256 ? "LLDP Chassis/Port ID length outside 2..256" : NULL;
	case ROCE_LLDP_TTL:
		return t->len < 2 ? "LLDP TTL TLV shorter than 2" : NULL;
	case ROCE_LLDP_ORG:
		if (t->len < 4)
			return "LLDP organizationally specific TLV shorter than 4";
		break;
	default:
		return NULL;
	}
	if (!t->has_oui)
		return NULL;
	if (t->oui == ROCE_OUI_IEEE_8021) {
		switch (t->subtype) {
		case ROCE_DCBX_ETS_CFG:
		case ROCE_DCBX_ETS_REC:
			return t->len != 25 ? "DCBX ETS TLV length is not 25" : NULL;
		case ROCE_DCBX_PFC:
			return t->len != 6 ? "DCBX PFC TLV length is not 6" : NULL;
		case ROCE_DCBX_CN:
			return t->len != 6 ? "DCBX congestion notification TLV length is not 6" : NULL;
		case ROCE_DCBX_APP:
			return t->len < 5 || (t->len - 5) % 3 ?
				"DCBX application priority TLV length is not 5 + 3n" : NULL;
		default:
			return NULL;
		}
	}
	if (t->oui == ROCE_OUI_CEE && t->subtype == 2 && t->caplen == t->len) {
		struct roce_cee cee;

		if (roce_dcbx_cee(t, &cee) == ROCE_EINVAL)
			return "CEE DCBX sub-TLV length runs past the TLV";
	}
	return NULL;
}

void roce__decode_lldp(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	struct roce_lldp_iter it = { off, end, 0, 0 };
	struct roce_lldp_tlv t;
	const char *why;
	int rc;

	p->lldp_off = off;
	if (end <= off || end - off < 2) {
		roce__invalid(p, ROCE_L_LLDP, "LLDP frame without TLVs");
		return;
	}
	while ((rc = roce_lldp_next(p, &it, &t)) == 1) {
		why = tlv_check(&t, it.n - 1);
		if (why) {
			roce__invalid(p, ROCE_L_LLDP, why);
			return;
		}
	}
	if (rc == ROCE_ETRUNC) {
		roce__trunc(p, ROCE_L_LLDP);
		return;
	}
	if (rc == ROCE_EINVAL) {
		roce__invalid(p, ROCE_L_LLDP, "LLDP TLV length runs past the end of the frame");
		return;
	}
	if (it.n < 3) {
		roce__invalid(p, ROCE_L_LLDP, "LLDPDU without Chassis ID, Port ID and TTL");
		return;
	}
	roce__seen(p, ROCE_L_LLDP);
	if (end > it.off) {     /* padding (and any FCS) after the End TLV */
		p->trailer_off = it.off;
		p->trailer_len = end - it.off;
	}
}

/* ---- fields -------------------------------------------------------------------- */

/* Text stops at the first NUL, as Wireshark's string fields do; it points
 * into the frame so that it outlives this call. */
static void emit_str(roce_field_cb cb, void *ctx, const char *key, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && b[i]; i++)
		;
	EMIT_TEXT(key, b, i);
}

#define K8(pfx) { pfx "0", pfx "1", pfx "2", pfx "3", pfx "4", pfx "5", pfx "6", pfx "7" }
static const char *const k_pgid[8] = K8("lldp.dcbx.feature.pg.pgid_prio");
static const char *const k_per[8] = K8("lldp.dcbx.feature.pg.per");
static const char *const k_tsa[8] = K8("lldp.dcbx.ieee.ets.tsa");
static const char *const k_pfcprio[8] = K8("lldp.dcbx.feature.pfc.prio");
static const char *const k_cnpv[8] = K8("lldp.ieee.802_1qau.cnpv.prio");
static const char *const k_ready[8] = K8("lldp.ieee.802_1qau.ready.prio");

static void addr_fields(roce_field_cb cb, void *ctx, const char *k4, const char *k6,
			const uint8_t *b, uint32_t n)
{
	if (n < 1)
		return;
	EMIT_U("lldp.network_address.subtype", b[0]);
	if (b[0] == 1 && n >= 5)
		EMIT_IP4(k4, b + 1);
	else if (b[0] == 2 && n >= 17)
		EMIT_IP6(k6, b + 1);
}

static void chassis_fields(roce_field_cb cb, void *ctx, const uint8_t *v, uint32_t n)
{
	if (n < 1)
		return;
	EMIT_U("lldp.chassis.subtype", v[0]);
	if (v[0] == 4 && n >= 7)
		EMIT_MAC("lldp.chassis.id.mac", v + 1);
	else if (v[0] == 5)
		addr_fields(cb, ctx, "lldp.chassis.id.ip4", "lldp.chassis.id.ip6", v + 1, n - 1);
	else if (n > 1)
		EMIT_BYTES("lldp.chassis.id", v + 1, n - 1);
}

static void port_fields(roce_field_cb cb, void *ctx, const uint8_t *v, uint32_t n)
{
	if (n < 1)
		return;
	EMIT_U("lldp.port.subtype", v[0]);
	if (v[0] == 3 && n >= 7)
		EMIT_MAC("lldp.port.id.mac", v + 1);
	else if (v[0] == 4)
		addr_fields(cb, ctx, "lldp.port.id.ip4", "lldp.port.id.ip6", v + 1, n - 1);
	else if (n > 1)
		emit_str(cb, ctx, "lldp.port.id", v + 1, n - 1);
}

static void mgmt_fields(roce_field_cb cb, void *ctx, const uint8_t *v, uint32_t n)
{
	uint32_t alen, i;

	if (n < 2)
		return;
	alen = v[0];
	EMIT_U("lldp.mgn.address.len", alen);
	EMIT_U("lldp.mgn.address.subtype", v[1]);
	if (alen < 1 || n < 1 + alen)
		return;
	if (v[1] == 1 && alen == 5)
		EMIT_IP4("lldp.mgn.addr.ip4", v + 2);
	else if (v[1] == 2 && alen == 17)
		EMIT_IP6("lldp.mgn.addr.ip6", v + 2);
	else if (alen > 1)
		EMIT_BYTES("lldp.mgn.addr.hex", v + 2, alen - 1);
	i = 1 + alen;
	if (n < i + 6)
		return;
	EMIT_U("lldp.mgn.interface.subtype", v[i]);
	EMIT_U("lldp.mgn.interface.number", rd32(v + i + 1));
	EMIT_U("lldp.mgn.obj.len", v[i + 5]);
}

/* 802.1 TLVs 1-4: port VLAN, port and protocol VLAN, VLAN name, protocol identity. */
static void ieee8021_vlan_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	const uint8_t *v = t->value;
	uint32_t n = t->caplen;

	switch (t->subtype) {
	case 1:
		if (n >= 6)
			EMIT_U("lldp.ieee.802_1.port_vlan.id", rd16(v + 4));
		break;
	case 2:
		if (n >= 7) {
			EMIT_U("lldp.ieee.802_1.port_and_vlan_id_flag", v[4]);
			EMIT_B("lldp.ieee.802_1.port_and_vlan_id_flag.supported", v[4] >> 1 & 1);
			EMIT_B("lldp.ieee.802_1.port_and_vlan_id_flag.enabled", v[4] >> 2 & 1);
			EMIT_U("lldp.ieee.802_1.port_proto_vlan.id", rd16(v + 5));
		}
		break;
	case 3:
		if (n >= 7) {
			EMIT_U("lldp.ieee.802_1.vlan.id", rd16(v + 4));
			EMIT_U("lldp.ieee.802_1.vlan.name_len", v[6]);
			if (v[6] && n >= 7u + v[6])
				emit_str(cb, ctx, "lldp.ieee.802_1.vlan.name", v + 7, v[6]);
		}
		break;
	case 4:
		if (n >= 5) {
			EMIT_U("lldp.ieee.802_1.proto.id_length", v[4]);
			if (v[4] && n >= 5u + v[4])
				EMIT_BYTES("lldp.ieee.802_1.proto.id", v + 5, v[4]);
		}
		break;
	}
}

static void dcbx_cn_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	struct roce_dcbx_cn c;

	if (roce_dcbx_cn(t, &c) != ROCE_OK)
		return;
	for (unsigned i = 0; i < 8; i++)
		EMIT_B(k_cnpv[i], c.cnpv >> i & 1);
	for (unsigned i = 0; i < 8; i++)
		EMIT_B(k_ready[i], c.ready >> i & 1);
}

/* ETS configuration or recommendation */
static void dcbx_ets_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	struct roce_dcbx_ets e;

	if (roce_dcbx_ets(t, &e) != ROCE_OK)
		return;
	if (t->subtype == ROCE_DCBX_ETS_CFG) {
		EMIT_B("lldp.dcbx.ieee.willing", e.willing);
		EMIT_B("lldp.dcbx.ieee.ets.cbs", e.cbs);
		EMIT_U("lldp.dcbx.ieee.ets.maxtcs", e.max_tcs);
	} else {
		EMIT_U("lldp.dcbx.feature.pg.reserved", e.reserved);
	}
	for (unsigned i = 0; i < 8; i++)
		EMIT_U(k_pgid[i], e.prio_tc[i]);
	for (unsigned i = 0; i < 8; i++)
		EMIT_U(k_per[i], e.tc_bw[i]);
	for (unsigned i = 0; i < 8; i++)
		EMIT_U(k_tsa[i], e.tsa[i]);
}

static void dcbx_pfc_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	struct roce_dcbx_pfc f;

	if (roce_dcbx_pfc(t, &f) != ROCE_OK)
		return;
	EMIT_B("lldp.dcbx.ieee.willing", f.willing);
	EMIT_B("lldp.dcbx.ieee.pfc.mbc", f.mbc);
	EMIT_U("lldp.dcbx.ieee.pfc.numtcs", f.cap);
	for (unsigned i = 0; i < 8; i++)
		EMIT_B(k_pfcprio[i], f.enable >> i & 1);
}

/* application priority: 3-byte entries after a reserved byte */
static void dcbx_app_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	const uint8_t *v = t->value;
	uint32_t n = t->caplen, cnt;

	if (t->len < 5 || (t->len - 5) % 3 || n < 5)
		return;
	EMIT_U("lldp.dcbx.ieee.app.reserved", v[4]);
	cnt = (n - 5) / 3;
	for (uint32_t i = 0; i < cnt; i++) {
		const uint8_t *e = v + 5 + 3 * i;

		EMIT_U("lldp.dcbx.ieee.app.prio", e[0] >> 5);
		EMIT_U("lldp.dcbx.iee.app.sf", e[0] & 7);   /* sic: Wireshark's name */
		EMIT_U("lldp.dcbx.feature.app.proto", rd16(e + 1));
	}
}

static void ieee8021_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	EMIT_U("lldp.ieee.802_1.subtype", t->subtype);
	switch (t->subtype) {
	case ROCE_DCBX_CN:
		dcbx_cn_fields(cb, ctx, t);
		break;
	case ROCE_DCBX_ETS_CFG:
	case ROCE_DCBX_ETS_REC:
		dcbx_ets_fields(cb, ctx, t);
		break;
	case ROCE_DCBX_PFC:
		dcbx_pfc_fields(cb, ctx, t);
		break;
	case ROCE_DCBX_APP:
		dcbx_app_fields(cb, ctx, t);
		break;
	default:
		ieee8021_vlan_fields(cb, ctx, t);
		break;
	}
}

static void cee_feature_fields(roce_field_cb cb, void *ctx, const struct roce_cee_feature *f)
{
	EMIT_U("lldp.dcbx.version", f->oper_version);
	EMIT_U("lldp.dcbx.max_version", f->max_version);
	EMIT_B("lldp.dcbx.feature.enabled", f->enabled);
	EMIT_B("lldp.dcbx.feature.willing", f->willing);
	EMIT_B("lldp.dcbx.feature.error", f->error);
	EMIT_U("lldp.dcbx.feature.subtype", f->subtype);
}

/* The CEE TLV, sub-TLV by sub-TLV, as far as it was captured and valid. */
static void cee_fields(roce_field_cb cb, void *ctx, const struct roce_lldp_tlv *t)
{
	const uint8_t *v = t->value;
	uint32_t pos = 4;

	EMIT_U("lldp.dcbx.proto", t->subtype);
	if (t->subtype != 2)
		return;
	while (t->len - pos >= 2 && t->caplen >= pos + 2) {
		uint8_t type = v[pos] >> 1;
		uint32_t len = (uint32_t)(v[pos] & 1) << 8 | v[pos + 1];
		const uint8_t *s = v + pos + 2;
		struct roce_cee_feature f;

		EMIT_U("lldp.dcbx.type", type);
		EMIT_U("lldp.dcbx.len", len);
		pos += 2;
		if (len > t->len - pos || t->caplen < pos + len || len < cee_min_len(type))
			return;
		pos += len;
		if (type == ROCE_CEE_CONTROL) {
			EMIT_U("lldp.dcbx.version", s[0]);
			EMIT_U("lldp.dcbx.max_version", s[1]);
			EMIT_U("lldp.dcbx.control.seq", rd32(s + 2));
			EMIT_U("lldp.dcbx.control.ack", rd32(s + 6));
			continue;
		}
		if (type < ROCE_CEE_PG || type > ROCE_CEE_APP)
			continue;
		cee_feature(s, &f);
		cee_feature_fields(cb, ctx, &f);
		if (type == ROCE_CEE_PG) {
			uint8_t pgid[8];

			prio_nibbles(s + 4, pgid);
			for (unsigned i = 0; i < 8; i++)
				EMIT_U(k_pgid[i], pgid[i]);
			for (unsigned i = 0; i < 8; i++)
				EMIT_U(k_per[i], s[8 + i]);
			EMIT_U("lldp.dcbx.feature.pg.numtcs", s[16]);
		} else if (type == ROCE_CEE_PFC) {
			for (unsigned i = 0; i < 8; i++)
				EMIT_B(k_pfcprio[i], s[4] >> i & 1);
			EMIT_U("lldp.dcbx.feature.pfc.numtcs", s[5]);
		} else {
			for (uint32_t i = 0; 4 + 6 * (i + 1) <= len; i++) {
				const uint8_t *e = s + 4 + 6 * i;

				EMIT_U("lldp.dcbx.feature.app.proto", rd16(e));
				EMIT_U("lldp.dcbx.feature.app.oui", rd24(e + 2) & 0xfcffffu);
				EMIT_U("lldp.dcbx.feature.app.sf", e[2] & 3);
				/* Wireshark shows the lowest priority of the map */
				if (e[5])
					EMIT_U("lldp.dcbx.feature.app.prio", __builtin_ctz(e[5]));
				EMIT_U("roce.dcbx.cee.app.prio_map", e[5]);
			}
		}
	}
}

void roce__fields_lldp(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	struct roce_lldp_iter it;
	struct roce_lldp_tlv t;

	roce_lldp_iter_init(p, &it);
	while (roce_lldp_next(p, &it, &t) == 1) {
		const uint8_t *v = t.value;
		uint32_t n = t.caplen;

		EMIT_U("lldp.tlv.type", t.type);
		EMIT_U("lldp.tlv.len", t.len);
		switch (t.type) {
		case ROCE_LLDP_CHASSIS_ID:
			chassis_fields(cb, ctx, v, n);
			break;
		case ROCE_LLDP_PORT_ID:
			port_fields(cb, ctx, v, n);
			break;
		case ROCE_LLDP_TTL:
			if (n >= 2)
				EMIT_U("lldp.time_to_live", rd16(v));
			break;
		case ROCE_LLDP_PORT_DESC:
			emit_str(cb, ctx, "lldp.port.desc", v, n);
			break;
		case ROCE_LLDP_SYS_NAME:
			emit_str(cb, ctx, "lldp.tlv.system.name", v, n);
			break;
		case ROCE_LLDP_SYS_DESC:
			emit_str(cb, ctx, "lldp.tlv.system.desc", v, n);
			break;
		case ROCE_LLDP_SYS_CAP:
			if (n >= 4) {
				EMIT_U("lldp.tlv.system_cap", rd16(v));
				EMIT_U("lldp.tlv.enable_system_cap", rd16(v + 2));
			}
			break;
		case ROCE_LLDP_MGMT_ADDR:
			mgmt_fields(cb, ctx, v, n);
			break;
		case ROCE_LLDP_ORG:
			if (!t.has_oui)
				break;
			EMIT_U("lldp.orgtlv.oui", t.oui);
			if (t.oui == ROCE_OUI_IEEE_8021) {
				ieee8021_fields(cb, ctx, &t);
			} else if (t.oui == ROCE_OUI_IEEE_8023) {
				EMIT_U("lldp.ieee.802_3.subtype", t.subtype);
				if (t.subtype == 4 && t.len >= 6 && n >= 6)
					EMIT_U("lldp.ieee.802_3.max_frame_size", rd16(v + 4));
			} else if (t.oui == ROCE_OUI_CEE) {
				cee_fields(cb, ctx, &t);
			}
			break;
		default:
			break;
		}
	}
}

/* ---- summary ------------------------------------------------------------------- */

static int summary_app(const struct roce_lldp_tlv *t, const char *sep, char *buf, size_t cap, size_t *n)
{
	struct roce_dcbx_app a;

	if (roce_dcbx_app(t, &a) != ROCE_OK)
		return 0;
	roce__sappend(buf, cap, n, "%sAPP%s", sep, a.n ? "(" : "");
	for (unsigned i = 0; i < a.n && i < 4; i++)
		roce__sappend(buf, cap, n, "%sp%u:sel%u:%u", i ? "," : "", a.e[i].prio, a.e[i].sel, a.e[i].proto);
	if (a.n > 4)
		roce__sappend(buf, cap, n, ",+%u", a.n - 4);
	if (a.n)
		roce__sappend(buf, cap, n, ")");
	return 1;
}

/* An IEEE 802.1 DCBX TLV after sep: 1 when it added a part. */
static int summary_8021(const struct roce_lldp_tlv *t, const char *sep, char *buf, size_t cap, size_t *n)
{
	struct roce_dcbx_ets e;
	struct roce_dcbx_pfc f;
	struct roce_dcbx_cn c;

	switch (t->subtype) {
	case ROCE_DCBX_ETS_CFG:
	case ROCE_DCBX_ETS_REC:
		if (roce_dcbx_ets(t, &e) != ROCE_OK)
			return 0;
		roce__sappend(buf, cap, n, "%s%s(", sep, t->subtype == ROCE_DCBX_ETS_CFG ? "ETS" : "ETS-REC");
		if (t->subtype == ROCE_DCBX_ETS_CFG && e.willing)
			roce__sappend(buf, cap, n, "willing,");
		roce__sappend(buf, cap, n, "bw %u/%u/%u/%u/%u/%u/%u/%u)", e.tc_bw[0], e.tc_bw[1], e.tc_bw[2],
			      e.tc_bw[3], e.tc_bw[4], e.tc_bw[5], e.tc_bw[6], e.tc_bw[7]);
		return 1;
	case ROCE_DCBX_PFC:
		if (roce_dcbx_pfc(t, &f) != ROCE_OK)
			return 0;
		roce__sappend(buf, cap, n, "%sPFC(%senable 0x%02x)", sep, f.willing ? "willing," : "", f.enable);
		return 1;
	case ROCE_DCBX_APP:
		return summary_app(t, sep, buf, cap, n);
	case ROCE_DCBX_CN:
		if (roce_dcbx_cn(t, &c) != ROCE_OK)
			return 0;
		roce__sappend(buf, cap, n, "%sCN(cnpv 0x%02x ready 0x%02x)", sep, c.cnpv, c.ready);
		return 1;
	default:
		return 0;
	}
}

/* A CEE DCBX TLV after sep: 1 when it added a part. */
static int summary_cee(const struct roce_lldp_tlv *t, const char *sep, char *buf, size_t cap, size_t *n)
{
	struct roce_cee c;

	if (roce_dcbx_cee(t, &c) != ROCE_OK)
		return 0;
	roce__sappend(buf, cap, n, "%sCEE", sep);
	if (c.pg.present)
		roce__sappend(buf, cap, n, "/PG%s", c.pg.willing ? "(willing)" : "");
	if (c.pfc.present)
		roce__sappend(buf, cap, n, "/PFC(%senable 0x%02x)", c.pfc.willing ? "willing," : "", c.pfc_enable);
	if (c.app.present) {
		roce__sappend(buf, cap, n, "/APP(");
		for (unsigned i = 0; i < c.n_app && i < 4; i++)
			roce__sappend(buf, cap, n, "%s0x%04x:map 0x%02x", i ? "," : "", c.app_e[i].proto,
				      c.app_e[i].prio_map);
		if (c.n_app > 4)
			roce__sappend(buf, cap, n, ",+%u", c.n_app - 4);
		roce__sappend(buf, cap, n, ")");
	}
	return 1;
}

void roce__summary_lldp(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	struct roce_lldp_iter it;
	struct roce_lldp_tlv t;
	int parts = 0;

	roce__sappend(buf, cap, n, " LLDP");
	roce_lldp_iter_init(p, &it);
	while (roce_lldp_next(p, &it, &t) == 1) {
		const char *sep = parts ? "/" : " DCBX ";

		if (t.type == ROCE_LLDP_TTL && t.caplen >= 2 && it.n == 3)
			roce__sappend(buf, cap, n, " ttl %u", rd16(t.value));
		else if (t.has_oui && t.oui == ROCE_OUI_IEEE_8021)
			parts += summary_8021(&t, sep, buf, cap, n);
		else if (t.has_oui && t.oui == ROCE_OUI_CEE && t.subtype == 2)
			parts += summary_cee(&t, sep, buf, cap, n);
	}
}

/* ---- builder ------------------------------------------------------------------- */

struct wbuf {
	uint8_t *b;      /* NULL: only count */
	size_t pos;
};

static void put_tlv_hdr(struct wbuf *w, uint8_t type, uint32_t len)
{
	if (w->b)
		wr16(w->b + w->pos, (uint16_t)(type << 9 | len));
	w->pos += 2;
}

static void put_bytes(struct wbuf *w, const void *src, size_t len)
{
	if (w->b && len)
		memcpy(w->b + w->pos, src, len);
	w->pos += len;
}

static void put_u8(struct wbuf *w, uint8_t v)
{
	put_bytes(w, &v, 1);
}

static void put_u16(struct wbuf *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put_bytes(w, b, 2);
}

static void put_org_hdr(struct wbuf *w, uint32_t len, uint32_t oui, uint8_t subtype)
{
	uint8_t b[4] = { (uint8_t)(oui >> 16), (uint8_t)(oui >> 8), (uint8_t)oui, subtype };

	put_tlv_hdr(w, ROCE_LLDP_ORG, len);
	put_bytes(w, b, 4);
}

static void put_nibbles(struct wbuf *w, const uint8_t v[8])
{
	for (unsigned i = 0; i < 8; i += 2)
		put_u8(w, (uint8_t)(v[i] << 4 | v[i + 1]));
}

static void put_ets(struct wbuf *w, const struct roce_dcbx_ets *e, uint8_t subtype)
{
	put_org_hdr(w, 25, ROCE_OUI_IEEE_8021, subtype);
	if (subtype == ROCE_DCBX_ETS_CFG)
		put_u8(w, (uint8_t)(e->willing << 7 | e->cbs << 6 | e->reserved << 3 | e->max_tcs));
	else
		put_u8(w, e->reserved);
	put_nibbles(w, e->prio_tc);
	put_bytes(w, e->tc_bw, 8);
	put_bytes(w, e->tsa, 8);
}

static void put_cee_feature_hdr(struct wbuf *w, uint8_t type, uint32_t len,
				const struct roce_cee_feature *f)
{
	put_tlv_hdr(w, type, len);
	put_u8(w, f->oper_version);
	put_u8(w, f->max_version);
	put_u8(w, (uint8_t)(f->enabled << 7 | f->willing << 6 | f->error << 5));
	put_u8(w, f->subtype);
}

static uint32_t cee_len(const struct roce_cee *c)
{
	return 4 + 12 + (c->pg.present ? 19 : 0) + (c->pfc.present ? 8 : 0) +
	       (c->app.present ? 6 + 6u * c->n_app : 0);
}

static void put_cee(struct wbuf *w, const struct roce_cee *c)
{
	put_org_hdr(w, cee_len(c), ROCE_OUI_CEE, 2);
	put_tlv_hdr(w, ROCE_CEE_CONTROL, 10);
	put_u8(w, c->oper_version);
	put_u8(w, c->max_version);
	put_u16(w, (uint16_t)(c->seq >> 16));
	put_u16(w, (uint16_t)c->seq);
	put_u16(w, (uint16_t)(c->ack >> 16));
	put_u16(w, (uint16_t)c->ack);
	if (c->pg.present) {
		put_cee_feature_hdr(w, ROCE_CEE_PG, 17, &c->pg);
		put_nibbles(w, c->pgid);
		put_bytes(w, c->pg_pct, 8);
		put_u8(w, c->pg_numtcs);
	}
	if (c->pfc.present) {
		put_cee_feature_hdr(w, ROCE_CEE_PFC, 6, &c->pfc);
		put_u8(w, c->pfc_enable);
		put_u8(w, c->pfc_numtcs);
	}
	if (c->app.present) {
		put_cee_feature_hdr(w, ROCE_CEE_APP, 4 + 6u * c->n_app, &c->app);
		for (unsigned i = 0; i < c->n_app; i++) {
			const struct roce_cee_app_entry *e = &c->app_e[i];

			put_u16(w, e->proto);
			put_u8(w, (uint8_t)((e->oui >> 16 & 0xfc) | e->sel));
			put_u16(w, (uint16_t)e->oui);
			put_u8(w, e->prio_map);
		}
	}
}

static void put_lldp(struct wbuf *w, const struct roce_lldp_dcbx_spec *s, const uint8_t *src)
{
	const uint8_t *cid = s->chassis_id ? s->chassis_id : src;
	const uint8_t *pid = s->port_id ? s->port_id : src;
	size_t clen = s->chassis_id ? s->chassis_id_len : 6;
	size_t plen = s->port_id ? s->port_id_len : 6;

	put_tlv_hdr(w, ROCE_LLDP_CHASSIS_ID, (uint32_t)(1 + clen));
	put_u8(w, s->chassis_subtype ? s->chassis_subtype : 4);
	put_bytes(w, cid, clen);
	put_tlv_hdr(w, ROCE_LLDP_PORT_ID, (uint32_t)(1 + plen));
	put_u8(w, s->port_subtype ? s->port_subtype : 3);
	put_bytes(w, pid, plen);
	put_tlv_hdr(w, ROCE_LLDP_TTL, 2);
	put_u16(w, s->ttl);
	if (s->has_ets)
		put_ets(w, &s->ets, ROCE_DCBX_ETS_CFG);
	if (s->has_ets_rec)
		put_ets(w, &s->ets_rec, ROCE_DCBX_ETS_REC);
	if (s->has_pfc) {
		put_org_hdr(w, 6, ROCE_OUI_IEEE_8021, ROCE_DCBX_PFC);
		put_u8(w, (uint8_t)(s->pfc.willing << 7 | s->pfc.mbc << 6 | s->pfc.reserved << 4 |
				    s->pfc.cap));
		put_u8(w, s->pfc.enable);
	}
	if (s->has_app || s->n_app) {
		put_org_hdr(w, 5 + 3u * s->n_app, ROCE_OUI_IEEE_8021, ROCE_DCBX_APP);
		put_u8(w, 0);
		for (unsigned i = 0; i < s->n_app; i++) {
			const struct roce_dcbx_app_entry *e = &s->app[i];

			put_u8(w, (uint8_t)(e->prio << 5 | e->reserved << 3 | e->sel));
			put_u16(w, e->proto);
		}
	}
	if (s->has_cn) {
		put_org_hdr(w, 6, ROCE_OUI_IEEE_8021, ROCE_DCBX_CN);
		put_u8(w, s->cn.cnpv);
		put_u8(w, s->cn.ready);
	}
	if (s->cee)
		put_cee(w, s->cee);
	put_tlv_hdr(w, ROCE_LLDP_END, 0);
}

static int ets_ok(const struct roce_dcbx_ets *e)
{
	for (unsigned i = 0; i < 8; i++)
		if (e->prio_tc[i] > 15)
			return 0;
	return e->willing <= 1 && e->cbs <= 1 && e->max_tcs <= 7;
}

static int spec_ok(const struct roce_lldp_dcbx_spec *s)
{
	if ((s->chassis_id && (s->chassis_id_len < 1 || s->chassis_id_len > 255)) ||
	    (s->port_id && (s->port_id_len < 1 || s->port_id_len > 255)))
		return 0;
	if (s->has_ets && (!ets_ok(&s->ets) || s->ets.reserved > 7))
		return 0;
	if (s->has_ets_rec && !ets_ok(&s->ets_rec))
		return 0;
	if (s->has_pfc && (s->pfc.willing > 1 || s->pfc.mbc > 1 || s->pfc.reserved > 3 ||
			   s->pfc.cap > 15))
		return 0;
	if (s->n_app > ROCE_DCBX_APP_MAX || (s->n_app && !s->app))
		return 0;
	for (unsigned i = 0; i < s->n_app; i++)
		if (s->app[i].prio > 7 || s->app[i].sel > 7 || s->app[i].reserved > 3)
			return 0;
	if (s->cee) {
		const struct roce_cee *c = s->cee;
		const struct roce_cee_feature *f[3] = { &c->pg, &c->pfc, &c->app };

		if (c->n_app > ROCE_CEE_APP_MAX || cee_len(c) > 511)
			return 0;
		for (unsigned i = 0; i < 3; i++)
			if (f[i]->enabled > 1 || f[i]->willing > 1 || f[i]->error > 1)
				return 0;
		for (unsigned i = 0; i < 8; i++)
			if (c->pgid[i] > 15)
				return 0;
		for (unsigned i = 0; i < c->n_app; i++)
			if (c->app_e[i].sel > 3 || c->app_e[i].oui > 0xffffff ||
			    (c->app_e[i].oui >> 16 & 3))
				return 0;
	}
	return 1;
}

int roce_build_lldp_dcbx(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
			 const struct roce_lldp_dcbx_spec *spec, int fcs)
{
	static const uint8_t zero[6];
	const uint8_t *src = zero;
	struct wbuf w = { NULL, 0 };
	int h;

	if (!spec || !spec_ok(spec))
		return ROCE_EARG;
	if (eth)
		src = eth->src;
	put_lldp(&w, spec, src);
	h = roce__l2_header(dst, cap, eth, lldp_group, ROCE_ETH_LLDP, w.pos, fcs);
	if (h < 0)
		return h;
	w.b = dst + h;
	w.pos = 0;
	put_lldp(&w, spec, src);
	return roce__l2_finish(dst, (size_t)h + w.pos, fcs);
}
