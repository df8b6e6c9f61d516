/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pfc.c — MAC control frames (ethertype 0x8808): IEEE 802.3 Annex 31B PAUSE
 * and IEEE 802.1Qbb clause 36 priority-based flow control (PFC).
 *
 * PAUSE (opcode 0x0001)                 PFC (opcode 0x0101)
 *   +----------------+                    +----------------+
 *   | opcode   (2)   |                    | opcode   (2)   |
 *   | pause_time (2) |                    | class-enable vector (2):
 *   | reserved (42)  |                    |   high byte reserved, bit n of
 *   +----------------+                    |   the low byte = priority n
 *                                         | time[0..7] (2 each)
 *                                         | reserved (26)
 *                                         +----------------+
 *
 * Times are in pause quanta of 512 bit times; a time only matters for the
 * priorities whose enable bit is set.  The destination is normally
 * 01-80-C2-00-00-01 (802.3 also allows the peer's own address).  Opcodes
 * other than PAUSE and PFC are reported by number, not as invalid: 802.3
 * 31.5 says a receiver ignores opcodes it does not support.
 */
#include "dcb_priv.h"

static const uint8_t macc_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

#define PAUSE_LEN 4     /* opcode + pause_time */
#define PFC_LEN 20      /* opcode + vector + 8 times */

const char *roce_macc_opcode_name(uint16_t opcode)
{
	switch (opcode) {
	case 0x0001: return "PAUSE";
	case 0x0002: return "GATE";
	case 0x0003: return "REPORT";
	case 0x0004: return "REGISTER_REQ";
	case 0x0005: return "REGISTER";
	case 0x0006: return "REGISTER_ACK";
	case 0x0101: return "PFC";
	default: return NULL;
	}
}

/* How many bytes of parameters the opcode has (0 when unknown). */
static uint32_t macc_len(uint16_t opcode)
{
	return opcode == ROCE_MACC_PAUSE ? PAUSE_LEN : opcode == ROCE_MACC_PFC ? PFC_LEN : 2;
}

void roce__decode_macctrl(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	uint32_t need;

	p->macctrl_off = off;
	if (end < off + 2) {
		roce__invalid(p, ROCE_L_MACCTRL, "MAC control frame without an opcode");
		return;
	}
	if (roce__avail(p, off) < 2) {
		roce__trunc(p, ROCE_L_MACCTRL);
		return;
	}
	need = macc_len(rd16(p->data + off));
	if (end - off < need) {
		roce__invalid(p, ROCE_L_MACCTRL, "MAC control frame shorter than its parameters");
		return;
	}
	if (roce__avail(p, off) < need) {
		roce__trunc(p, ROCE_L_MACCTRL);
		return;
	}
	roce__seen(p, ROCE_L_MACCTRL);
	/* The reserved bytes, padding and any FCS follow the parameters. */
	if (end > off + need) {
		p->trailer_off = off + need;
		p->trailer_len = end - (off + need);
	}
}

int roce_pfc_get(const struct roce_pkt *p, struct roce_pfc *out)
{
	uint32_t off = p->macctrl_off, have;
	const uint8_t *b;

	memset(out, 0, sizeof *out);
	if (!off)
		return ROCE_EINVAL;
	have = roce__avail(p, off);
	b = p->data + off;
	if (have < 2)
		return ROCE_ETRUNC;
	out->opcode = rd16(b);
	if (out->opcode == ROCE_MACC_PAUSE) {
		out->known = 1;
		if (have < PAUSE_LEN)
			return ROCE_ETRUNC;
		out->times[0] = rd16(b + 2);
		return ROCE_OK;
	}
	if (out->opcode != ROCE_MACC_PFC)
		return ROCE_EUNSUP;
	out->known = 1;
	if (have < 4)
		return ROCE_ETRUNC;
	out->enable_vector = rd16(b + 2);
	out->enable = (uint8_t)out->enable_vector;
	out->reserved_set = out->enable_vector >> 8 ? 1 : 0;
	for (unsigned i = 0; i < 8; i++) {
		if (have < 6 + 2 * i)
			return ROCE_ETRUNC;
		out->times[i] = rd16(b + 4 + 2 * i);
	}
	return ROCE_OK;
}

/* quanta * 512 / link_bps seconds, in units of `unit` per second, rounded. */
static uint64_t quanta_time(uint32_t quanta, uint64_t link_bps, uint64_t unit)
{
	if (!link_bps)
		return 0;
#ifdef __SIZEOF_INT128__
	unsigned __int128 x = (unsigned __int128)quanta * ROCE_PAUSE_QUANTUM_BITS * unit;
	x = (x + link_bps / 2) / link_bps;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
#else
	long double x = (long double)quanta * ROCE_PAUSE_QUANTUM_BITS * unit / link_bps + 0.5L;
	return x >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)x;
#endif
}

uint64_t roce_pause_quanta_ns(uint32_t quanta, uint64_t link_bps)
{
	return quanta_time(quanta, link_bps, 1000000000ull);
}

uint64_t roce_pause_quanta_ps(uint32_t quanta, uint64_t link_bps)
{
	return quanta_time(quanta, link_bps, 1000000000000ull);
}

/* ---- fields and summary ---------------------------------------------------- */

static const char *const cbfc_enbv[8] = {
	"macc.cbfc.enbv.c0", "macc.cbfc.enbv.c1", "macc.cbfc.enbv.c2", "macc.cbfc.enbv.c3",
	"macc.cbfc.enbv.c4", "macc.cbfc.enbv.c5", "macc.cbfc.enbv.c6", "macc.cbfc.enbv.c7",
};
static const char *const cbfc_time[8] = {
	"macc.cbfc.pause_time.c0", "macc.cbfc.pause_time.c1", "macc.cbfc.pause_time.c2",
	"macc.cbfc.pause_time.c3", "macc.cbfc.pause_time.c4", "macc.cbfc.pause_time.c5",
	"macc.cbfc.pause_time.c6", "macc.cbfc.pause_time.c7",
};

void roce__fields_macctrl(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	uint32_t have = roce__avail(p, p->macctrl_off);
	const uint8_t *b = p->data + p->macctrl_off;
	uint16_t op;

	if (have < 2)
		return;
	op = rd16(b);
	EMIT_U("macc.opcode", op);
	if (op == ROCE_MACC_PAUSE) {
		if (have >= PAUSE_LEN)
			EMIT_U("macc.pause_time", rd16(b + 2));
	} else if (op == ROCE_MACC_PFC) {
		if (have < 4)
			return;
		uint16_t v = rd16(b + 2);

		EMIT_U("macc.cbfc.enbv", v);
		for (unsigned i = 0; i < 8; i++)
			EMIT_B(cbfc_enbv[i], v >> i & 1);
		for (unsigned i = 0; i < 8 && have >= 6 + 2 * i; i++)
			EMIT_U(cbfc_time[i], rd16(b + 4 + 2 * i));
	}
}

void roce__summary_macctrl(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	struct roce_pfc f;
	int rc = roce_pfc_get(p, &f);
	const char *name;

	if (rc == ROCE_ETRUNC && !f.opcode) {
		roce__sappend(buf, cap, n, " MAC control");
		return;
	}
	if (f.opcode == ROCE_MACC_PAUSE) {
		if (rc == ROCE_OK)
			roce__sappend(buf, cap, n, " PAUSE %u quanta", f.times[0]);
		else
			roce__sappend(buf, cap, n, " PAUSE");
		return;
	}
	if (f.opcode == ROCE_MACC_PFC) {
		int first = 1;

		roce__sappend(buf, cap, n, " PFC");
		if (rc != ROCE_OK)
			return;
		roce__sappend(buf, cap, n, " pause [");
		for (unsigned i = 0; i < 8; i++) {
			if (!(f.enable >> i & 1))
				continue;
			roce__sappend(buf, cap, n, "%sp%u:%u", first ? "" : " ", i, f.times[i]);
			first = 0;
		}
		roce__sappend(buf, cap, n, "] (enable 0x%02x%s)", f.enable,
			      f.reserved_set ? ", reserved bits set" : "");
		return;
	}
	name = roce_macc_opcode_name(f.opcode);
	if (name)
		roce__sappend(buf, cap, n, " MAC control %s", name);
	else
		roce__sappend(buf, cap, n, " MAC control opcode 0x%04x", f.opcode);
}

/* ---- builders -------------------------------------------------------------- */

int roce_build_pause(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		     uint16_t quanta, int fcs)
{
	int h = roce__l2_header(dst, cap, eth, macc_group, ROCE_ETH_MACCTL, PAUSE_LEN, fcs);

	if (h < 0)
		return h;
	wr16(dst + h, ROCE_MACC_PAUSE);
	wr16(dst + h + 2, quanta);
	return roce__l2_finish(dst, (size_t)h + PAUSE_LEN, fcs);
}

int roce_build_pfc(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		   uint8_t enable, const uint16_t times[8], int fcs)
{
	int h = roce__l2_header(dst, cap, eth, macc_group, ROCE_ETH_MACCTL, PFC_LEN, fcs);

	if (h < 0)
		return h;
	wr16(dst + h, ROCE_MACC_PFC);
	wr16(dst + h + 2, enable);
	for (unsigned i = 0; i < 8; i++)
		wr16(dst + h + 4 + 2 * i, times ? times[i] : 0);
	return roce__l2_finish(dst, (size_t)h + PFC_LEN, fcs);
}
