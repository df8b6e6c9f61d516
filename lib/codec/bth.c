/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bth.c — the InfiniBand Base Transport Header and its extended headers
 * (IBTA vol 1 rel 1.5, 9.2–9.5; FLUSH and ATOMIC WRITE from the 2021 Memory
 * Placement Extensions annex).
 *
 *   0               1               2               3
 *  +---------------+-+-+---+-------+-------------------------------+
 *  |    OpCode     |S|M|Pad| TVer  |            P_Key              |
 *  +-+-+-----------+-+-+---+-------+-------------------------------+
 *  |F|B|  resv6    |              Destination QP                   |
 *  +-+-------------+-----------------------------------------------+
 *  |A|   resv7     |              Packet Sequence Number           |
 *  +-+-------------+-----------------------------------------------+
 *
 * The extended headers follow in this order: RDETH, DETH, XRCETH, FETH,
 * RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; which ones an opcode
 * carries is the table below (the IBTA opcode table, as Linux's rxe_opcode.c
 * also lists it).
 */
#include <stdio.h>
#include "internal.h"

#define P ROCE_H_PAYLOAD
#define REQ 1
#define RSP 0

#define OP(code, nm, h, k, s, rq) [code] = { nm, (h), (k), (s), (rq) }

/* The operations shared by RC, UC, RD and XRC, with the per-transport
 * request header (RD: RDETH+DETH, XRC: XRCETH) and response header
 * (RD: RDETH) added by the macros below. */
#define SENDS(base, T, rq, rs)                                                                   \
	OP(base | 0x00, T " SEND_FIRST", (rq) | P, ROCE_OK_SEND, ROCE_SEG_FIRST, REQ),           \
	OP(base | 0x01, T " SEND_MIDDLE", (rq) | P, ROCE_OK_SEND, ROCE_SEG_MIDDLE, REQ),         \
	OP(base | 0x02, T " SEND_LAST", (rq) | P, ROCE_OK_SEND, ROCE_SEG_LAST, REQ),             \
	OP(base | 0x03, T " SEND_LAST_IMM", (rq) | ROCE_H_IMMDT | P, ROCE_OK_SEND, ROCE_SEG_LAST, REQ), \
	OP(base | 0x04, T " SEND_ONLY", (rq) | P, ROCE_OK_SEND, ROCE_SEG_ONLY, REQ),             \
	OP(base | 0x05, T " SEND_ONLY_IMM", (rq) | ROCE_H_IMMDT | P, ROCE_OK_SEND, ROCE_SEG_ONLY, REQ)

#define WRITES(base, T, rq)                                                                      \
	OP(base | 0x06, T " WRITE_FIRST", (rq) | ROCE_H_RETH | P, ROCE_OK_WRITE, ROCE_SEG_FIRST, REQ), \
	OP(base | 0x07, T " WRITE_MIDDLE", (rq) | P, ROCE_OK_WRITE, ROCE_SEG_MIDDLE, REQ),       \
	OP(base | 0x08, T " WRITE_LAST", (rq) | P, ROCE_OK_WRITE, ROCE_SEG_LAST, REQ),           \
	OP(base | 0x09, T " WRITE_LAST_IMM", (rq) | ROCE_H_IMMDT | P, ROCE_OK_WRITE, ROCE_SEG_LAST, REQ), \
	OP(base | 0x0a, T " WRITE_ONLY", (rq) | ROCE_H_RETH | P, ROCE_OK_WRITE, ROCE_SEG_ONLY, REQ), \
	OP(base | 0x0b, T " WRITE_ONLY_IMM", (rq) | ROCE_H_RETH | ROCE_H_IMMDT | P, ROCE_OK_WRITE, \
	   ROCE_SEG_ONLY, REQ)

#define READS_ATOMICS(base, T, rq, rs)                                                           \
	OP(base | 0x0c, T " READ_REQUEST", (rq) | ROCE_H_RETH, ROCE_OK_READ_REQ, ROCE_SEG_ONLY, REQ), \
	OP(base | 0x0d, T " READ_RESP_FIRST", (rs) | ROCE_H_AETH | P, ROCE_OK_READ_RESP, ROCE_SEG_FIRST, RSP), \
	OP(base | 0x0e, T " READ_RESP_MIDDLE", (rs) | P, ROCE_OK_READ_RESP, ROCE_SEG_MIDDLE, RSP), \
	OP(base | 0x0f, T " READ_RESP_LAST", (rs) | ROCE_H_AETH | P, ROCE_OK_READ_RESP, ROCE_SEG_LAST, RSP), \
	OP(base | 0x10, T " READ_RESP_ONLY", (rs) | ROCE_H_AETH | P, ROCE_OK_READ_RESP, ROCE_SEG_ONLY, RSP), \
	OP(base | 0x11, T " ACK", (rs) | ROCE_H_AETH, ROCE_OK_ACK, ROCE_SEG_ONLY, RSP),           \
	OP(base | 0x12, T " ATOMIC_ACK", (rs) | ROCE_H_AETH | ROCE_H_ATOMICACKETH, ROCE_OK_ATOMIC_ACK, \
	   ROCE_SEG_ONLY, RSP),                                                                  \
	OP(base | 0x13, T " CMP_SWAP", (rq) | ROCE_H_ATOMICETH, ROCE_OK_ATOMIC, ROCE_SEG_ONLY, REQ), \
	OP(base | 0x14, T " FETCH_ADD", (rq) | ROCE_H_ATOMICETH, ROCE_OK_ATOMIC, ROCE_SEG_ONLY, REQ)

#define INVS(base, T, rq)                                                                        \
	OP(base | 0x16, T " SEND_LAST_INV", (rq) | ROCE_H_IETH | P, ROCE_OK_SEND, ROCE_SEG_LAST, REQ), \
	OP(base | 0x17, T " SEND_ONLY_INV", (rq) | ROCE_H_IETH | P, ROCE_OK_SEND, ROCE_SEG_ONLY, REQ)

#define RDRQ (ROCE_H_RDETH | ROCE_H_DETH)

const struct roce_opinfo roce__optab[256] = {
	SENDS(0x00, "RC", 0, 0),
	WRITES(0x00, "RC", 0),
	READS_ATOMICS(0x00, "RC", 0, 0),
	INVS(0x00, "RC", 0),
	OP(0x1c, "RC FLUSH", ROCE_H_FETH | ROCE_H_RETH, ROCE_OK_FLUSH, ROCE_SEG_ONLY, REQ),
	OP(0x1d, "RC ATOMIC_WRITE", ROCE_H_RETH | P, ROCE_OK_ATOMIC_WRITE, ROCE_SEG_ONLY, REQ),

	SENDS(0x20, "UC", 0, 0),
	WRITES(0x20, "UC", 0),

	SENDS(0x40, "RD", RDRQ, ROCE_H_RDETH),
	WRITES(0x40, "RD", RDRQ),
	READS_ATOMICS(0x40, "RD", RDRQ, ROCE_H_RDETH),
	OP(0x55, "RD RESYNC", RDRQ, ROCE_OK_RESYNC, ROCE_SEG_ONLY, REQ),

	OP(0x64, "UD SEND_ONLY", ROCE_H_DETH | P, ROCE_OK_SEND, ROCE_SEG_ONLY, REQ),
	OP(0x65, "UD SEND_ONLY_IMM", ROCE_H_DETH | ROCE_H_IMMDT | P, ROCE_OK_SEND, ROCE_SEG_ONLY, REQ),

	/* InfiniBand's CNP (annex A10, Wireshark's "CNP"): BTH and ICRC only */
	OP(0x80, "CNP", 0, ROCE_OK_CNP, ROCE_SEG_ONLY, 0),
	OP(0x81, "CNP", ROCE_H_CNP_RSVD, ROCE_OK_CNP, ROCE_SEG_ONLY, 0),

	SENDS(0xa0, "XRC", ROCE_H_XRCETH, 0),
	WRITES(0xa0, "XRC", ROCE_H_XRCETH),
	READS_ATOMICS(0xa0, "XRC", ROCE_H_XRCETH, 0),
	INVS(0xa0, "XRC", ROCE_H_XRCETH),
};

const struct roce_opinfo *roce_opcode_info(uint8_t opcode)
{
	return roce__opinfo(opcode);
}

const char *roce_opcode_name(uint8_t opcode)
{
	static const char hex[] = "0123456789abcdef";
	static char unk[256][8];
	const struct roce_opinfo *oi = roce_opcode_info(opcode);

	if (oi)
		return oi->name;
	/* "op 0xNN": written once per opcode, the same bytes every time. */
	if (!unk[opcode][0]) {
		char *s = unk[opcode];
		memcpy(s, "op 0x", 5);
		s[5] = hex[opcode >> 4];
		s[6] = hex[opcode & 15];
		s[7] = 0;
	}
	return unk[opcode];
}

/* The length of each extended header by its ROCE_H_* bit (the bits are in
 * wire order; ROCE_H_PAYLOAD's is 0).  A loop over the set bits: a packet
 * has 0..2 of them, and this runs for every frame. */
static const uint8_t ext_len_of[12] = {
	ROCE_RDETH_LEN, ROCE_DETH_LEN, ROCE_XRCETH_LEN, ROCE_FETH_LEN, ROCE_RETH_LEN,
	ROCE_ATOMICETH_LEN, ROCE_AETH_LEN, ROCE_ATOMICACKETH_LEN, ROCE_IMMDT_LEN, ROCE_IETH_LEN,
	0, ROCE_CNP_RSVD_LEN,
};

unsigned roce_ext_len(uint16_t h)
{
	unsigned n = 0;

	for (h &= (1u << 12) - 1; h; h &= (uint16_t)(h - 1))
		n += ext_len_of[__builtin_ctz(h)];
	return n;
}

/* ---- accessors ------------------------------------------------------------
 * RETH:         VA(8) R_Key(4) DMA length(4)
 * AETH:         Syndrome(1) MSN(3)
 * DETH:         Q_Key(4) resv(1) SrcQP(3)
 * RDETH:        resv(1) EE context(3)
 * XRCETH:       resv(1) XRC SRQ(3)
 * FETH:         resv(26 bits) SEL(2) PLT(4)     (one word, kept whole)
 * AtomicETH:    VA(8) R_Key(4) Swap/Add(8) Compare(8)
 * AtomicAckETH: original remote data(8)
 * ImmDt, IETH:  4 bytes
 */
uint64_t roce_reth_va(const struct roce_pkt *p) { return rd64(p->data + p->reth_off); }
uint32_t roce_reth_rkey(const struct roce_pkt *p) { return rd32(p->data + p->reth_off + 8); }
uint32_t roce_reth_dmalen(const struct roce_pkt *p) { return rd32(p->data + p->reth_off + 12); }
uint8_t roce_aeth_syndrome(const struct roce_pkt *p) { return p->data[p->aeth_off]; }
uint32_t roce_aeth_msn(const struct roce_pkt *p) { return rd24(p->data + p->aeth_off + 1); }
uint32_t roce_deth_qkey(const struct roce_pkt *p) { return rd32(p->data + p->deth_off); }
uint32_t roce_deth_srcqp(const struct roce_pkt *p) { return rd24(p->data + p->deth_off + 5); }
uint32_t roce_rdeth_eecnxt(const struct roce_pkt *p) { return rd24(p->data + p->rdeth_off + 1); }
uint32_t roce_xrceth_srq(const struct roce_pkt *p) { return rd24(p->data + p->xrceth_off + 1); }
uint32_t roce_feth_word(const struct roce_pkt *p) { return rd32(p->data + p->feth_off); }
uint64_t roce_atomiceth_va(const struct roce_pkt *p) { return rd64(p->data + p->atomiceth_off); }
uint32_t roce_atomiceth_rkey(const struct roce_pkt *p) { return rd32(p->data + p->atomiceth_off + 8); }
uint64_t roce_atomiceth_swap(const struct roce_pkt *p) { return rd64(p->data + p->atomiceth_off + 12); }
uint64_t roce_atomiceth_cmp(const struct roce_pkt *p) { return rd64(p->data + p->atomiceth_off + 20); }
uint64_t roce_atomicacketh_orig(const struct roce_pkt *p) { return rd64(p->data + p->atomicacketh_off); }
uint32_t roce_immdt(const struct roce_pkt *p) { return rd32(p->data + p->immdt_off); }
uint32_t roce_ieth_rkey(const struct roce_pkt *p) { return rd32(p->data + p->ieth_off); }

const char *roce_nak_name(uint8_t code)
{
	static const char *const n[] = {
		"PSN sequence error", "invalid request", "remote access error",
		"remote operational error", "invalid RD request",
	};
	return code < sizeof n / sizeof n[0] ? n[code] : "reserved";
}

/* IBTA vol 1 table 45 (RNR NAK timer field), in microseconds. */
uint32_t roce_rnr_timer_us(uint8_t code)
{
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920,
		122880, 163840, 245760, 327680, 491520,
	};
	return us[code & 31];
}

/* The BTH fields, as far as they were captured (have bytes at b). */
static void bth_take(struct roce_pkt *p, const uint8_t *b, uint32_t have)
{
	if (have >= 1)
		p->opcode = b[0];
	if (have >= 2) {
		p->se = b[1] >> 7;
		p->migreq = (b[1] >> 6) & 1;
		p->padcnt = (b[1] >> 4) & 3;
		p->tver = b[1] & 15;
	}
	if (have >= 4)
		p->pkey = rd16(b + 2);
	if (have >= 5) {
		p->fecn = b[4] >> 7;
		p->becn = (b[4] >> 6) & 1;
	}
	if (have >= 8)
		p->dqpn = rd24(b + 5);
	if (have >= 12) {
		p->ackreq = b[8] >> 7;
		p->psn = rd24(b + 9);
	}
}

/* The extended headers opcode's h names, in their wire order from cur;
 * returns where they end.  An offset is recorded only when the whole
 * header was captured, so an accessor can never read past the captured
 * bytes. */
static const size_t ext_field[10] = {
	offsetof(struct roce_pkt, rdeth_off), offsetof(struct roce_pkt, deth_off),
	offsetof(struct roce_pkt, xrceth_off), offsetof(struct roce_pkt, feth_off),
	offsetof(struct roce_pkt, reth_off), offsetof(struct roce_pkt, atomiceth_off),
	offsetof(struct roce_pkt, aeth_off), offsetof(struct roce_pkt, atomicacketh_off),
	offsetof(struct roce_pkt, immdt_off), offsetof(struct roce_pkt, ieth_off),
};

static uint32_t ext_take(struct roce_pkt *p, uint16_t h, uint32_t cur)
{
	/* the set bits in wire order (a loop over 0..2 of them, not a test of
	 * all eleven); ROCE_H_CNP_RSVD has no offset field */
	for (h &= (uint16_t)~ROCE_H_PAYLOAD; h; h &= (uint16_t)(h - 1)) {
		unsigned bit = (unsigned)__builtin_ctz(h), len = ext_len_of[bit];

		if (roce__avail(p, cur) < len)
			roce__trunc(p, ROCE_L_EXT);
		else if (bit < 10)
			memcpy((char *)p + ext_field[bit], &cur, sizeof cur);
		cur += len;
	}
	return cur;
}

/* Payload and pad: what is left from cur before the ICRC; then the MADs of QP1 and QP0. */
static void payload_take(struct roce_pkt *p, const struct roce_opinfo *oi, uint32_t cur)
{
	p->payload_off = cur;
	roce__seen(p, ROCE_L_PAYLOAD);
	if (p->padcnt > p->icrc_off - cur) {
		roce__invalid(p, ROCE_L_PAYLOAD, "pad count exceeds the payload");
		p->payload_len = 0;
		return;
	}
	p->payload_len = p->icrc_off - cur - p->padcnt;
	if (p->payload_len > 4096)
		roce__invalid(p, ROCE_L_PAYLOAD, "payload larger than the 4096-byte IB MTU");
	else if (oi->kind == ROCE_OK_ATOMIC_WRITE && p->payload_len != 8)
		roce__invalid(p, ROCE_L_PAYLOAD, "ATOMIC WRITE payload is not 8 bytes");
	if (roce__avail(p, cur) < p->icrc_off - cur)
		roce__trunc(p, ROCE_L_PAYLOAD);

	if ((p->opcode & 0xfe) == 0x64 && p->dqpn == 1 && p->deth_off)
		roce__decode_mad(p);
	else if ((p->opcode & 0xfe) == 0x64 && p->dqpn == 0 && p->deth_off)
		roce__decode_mgmt(p);      /* QP0: subnet management */
}

/* IPoIB connected mode (RFC 4755): every message on its RC or UC connection
 * starts with the IPoIB header, so a SEND_FIRST or SEND_ONLY (no immediate)
 * carries it; the message's other packets do not. */
static int ipoib_cm_opcode(uint8_t op)
{
	return op == 0x00 || op == 0x04 || op == 0x20 || op == 0x24;
}

/* After roce__decode_ib: whether the payload may be IP over IB, datagram
 * mode (a UD SEND_ONLY to a QP other than 0 and 1, whose payloads are the
 * MADs above) or connected mode (RC, UC).  payload_off is set only once
 * payload_take ran; the dispatcher goes on with ipoib.c. */
int roce__ib_payload_ipoib(const struct roce_pkt *p)
{
	return p->payload_off && p->version == ROCE_VER_IB &&
	       ((p->opcode == 0x64 && p->deth_off && p->dqpn > 1) || ipoib_cm_opcode(p->opcode));
}

/* ---- decoding the transport headers ---------------------------------------
 * off: first byte of the BTH; end: end of the ICRC on the wire. */
void roce__decode_ib(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	const struct roce_opinfo *oi;
	uint32_t cur;
	uint16_t h;

	if (end < off + ROCE_BTH_LEN + ROCE_ICRC_LEN) {
		roce__invalid(p, ROCE_L_BTH, "packet shorter than BTH + ICRC");
		return;
	}
	p->bth_off = off;
	p->icrc_off = end - ROCE_ICRC_LEN;
	if (roce__avail(p, p->icrc_off) < ROCE_ICRC_LEN)
		roce__trunc(p, ROCE_L_ICRC);
	else
		roce__seen(p, ROCE_L_ICRC);
	bth_take(p, p->data + off, roce__avail(p, off));
	if (roce__avail(p, off) < ROCE_BTH_LEN) {
		roce__trunc(p, ROCE_L_BTH);
		return;
	}
	roce__seen(p, ROCE_L_BTH);
	if (p->tver != 0)
		roce__invalid(p, ROCE_L_BTH, "BTH transport version is not 0");

	oi = roce__opinfo(p->opcode);
	if (!oi) {
		roce__invalid(p, ROCE_L_BTH, "reserved opcode");
		return;
	}
	h = oi->hdrs;
	cur = off + ROCE_BTH_LEN;
	if (cur + roce_ext_len(h) > p->icrc_off) {
		roce__invalid(p, ROCE_L_EXT, "extended headers run past the ICRC");
		return;
	}
	if (h & ~(ROCE_H_PAYLOAD))
		roce__seen(p, ROCE_L_EXT);
	cur = ext_take(p, h, cur);

	/* The pad makes BTH..ICRC a whole number of 4-byte words. */
	if ((p->icrc_off - off) % 4)
		roce__invalid(p, ROCE_L_PAYLOAD, "transport packet length is not a multiple of 4");
	if (h & ROCE_H_PAYLOAD)
		payload_take(p, oi, cur);
	else if (cur != p->icrc_off)
		roce__invalid(p, ROCE_L_PAYLOAD, "bytes between headers and ICRC of an opcode without payload");
}
