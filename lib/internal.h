/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libroce internals: byte-wise big-endian loads/stores (alignment never
 * matters, nothing casts captured bytes to a struct), layer bookkeeping, and
 * the hooks through which the per-protocol files plug into the decoder, the
 * field walker and the one-line summary.
 */
#ifndef ROCE_INTERNAL_H
#define ROCE_INTERNAL_H

#include <string.h>
#include "roce.h"

static inline uint16_t rd16(const uint8_t *b) { return (uint16_t)(b[0] << 8 | b[1]); }
/* bth.c's opcode table; roce_opcode_info() inline, for the per-frame paths. */
extern const struct roce_opinfo roce__optab[256];
static inline const struct roce_opinfo *roce__opinfo(uint8_t opcode)
{
	const struct roce_opinfo *oi = &roce__optab[opcode];

	return oi->name ? oi : NULL;
}

static inline uint32_t rd24(const uint8_t *b) { return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2]; }
static inline uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}
static inline uint64_t rd64(const uint8_t *b) { return (uint64_t)rd32(b) << 32 | rd32(b + 4); }
static inline uint32_t rd32le(const uint8_t *b)
{
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline void wr16(uint8_t *b, uint16_t v) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }
static inline void wr24(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 16); b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)v;
}
static inline void wr32(uint8_t *b, uint32_t v) { wr16(b, (uint16_t)(v >> 16)); wr16(b + 2, (uint16_t)v); }
static inline void wr64(uint8_t *b, uint64_t v) { wr32(b, (uint32_t)(v >> 32)); wr32(b + 4, (uint32_t)v); }
static inline void wr32le(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

/* ---- layer bookkeeping -------------------------------------------------- */

static inline void roce__seen(struct roce_pkt *p, enum roce_layer l) { p->present |= ROCE_LBIT(l); }

static inline void roce__trunc(struct roce_pkt *p, enum roce_layer l)
{
	p->present |= ROCE_LBIT(l);
	p->truncated |= ROCE_LBIT(l);
}

static inline void roce__invalid(struct roce_pkt *p, enum roce_layer l, const char *why)
{
	p->present |= ROCE_LBIT(l);
	p->invalid |= ROCE_LBIT(l);
	if (!p->why) {
		p->why = why;
		p->why_layer = l;
	}
}

/* Bytes captured from off up to end (end is a wire-length boundary). */
static inline uint32_t roce__avail(const struct roce_pkt *p, uint32_t off)
{
	return off < p->caplen ? p->caplen - off : 0;
}

/* crc.c: pick implementations by name (tests, benchmarks); ROCE_EARG when
 * this CPU lacks one. */
int roce__crc_select(const char *crc32_name, const char *crc32c_name);

/* ---- decoder hooks --------------------------------------------------------
 * off is where the protocol starts, end where it ends on the wire (may be
 * beyond caplen).  Each hook records present/truncated/invalid itself.
 *
 * The link decoders (link/: encap.c, erf.c, ib.c, ipoib.c) and bth.c decode
 * their own layer and return the layer that follows it; decode.c goes on
 * with that one.  So nothing below decode.c calls back up into it. */
enum roce__next_kind {
	ROCE_NEXT_NONE,        /* nothing more to decode here */
	ROCE_NEXT_FRAME,       /* a whole frame of link type `type` at off: len bytes on
				* the wire, cap of them captured */
	ROCE_NEXT_ETHERTYPE,   /* what follows EtherType `type`: off, len bytes */
	ROCE_NEXT_IB_BTH,      /* a BTH at off; len runs through the ICRC */
};

/* 16 bytes, so that it is returned in two registers. */
struct roce__next {
	uint8_t kind;          /* enum roce__next_kind */
	uint16_t type;         /* ETHERTYPE: the EtherType; FRAME: the link type */
	uint32_t off, len;     /* the next layer's bytes: from off, len of them on the wire */
	uint32_t cap;          /* FRAME: how many of the len bytes were captured */
};

/* A FRAME's link type that decode.c does not decode: p is only set to the
 * frame's bytes with every layer cleared (an ERF record with a bad header,
 * an IB link packet: erf.c fills in the rest). */
#define ROCE__LINK_NONE 0xffff

static inline struct roce__next roce__next_none(void)
{
	return (struct roce__next){ .kind = ROCE_NEXT_NONE };
}

static inline struct roce__next roce__next_at(enum roce__next_kind kind, uint16_t type,
					      uint32_t off, uint32_t end)
{
	return (struct roce__next){ .kind = (uint8_t)kind, .type = type, .off = off, .len = end - off };
}

/* bth.c: BTH, extended headers, payload and ICRC position; off = BTH,
 * end = end of the ICRC on the wire.  Then, for a native IB packet (only
 * such carries IPoIB), roce__ib_payload_ipoib() says whether its payload
 * (p->payload_off, p->payload_len) may be IPoIB: the dispatcher asks
 * rather than roce__decode_ib returning it, which would cost every RoCE
 * frame a few instructions for what only native IB needs. */
void roce__decode_ib(struct roce_pkt *p, uint32_t off, uint32_t end);
int roce__ib_payload_ipoib(const struct roce_pkt *p);

/* l2.c: MAC control (PAUSE/PFC), CN-TAG/CNM, LLDP.  Returns 1 when the
 * ethertype is one of its own, 0 otherwise. */
int roce__decode_l2(struct roce_pkt *p, uint16_t ethertype, uint32_t off, uint32_t end);
/* tcp.c: the TCP header and, when it carries iWARP, MPA/DDP/RDMAP. */
void roce__decode_tcp(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end);
/* decode.c: one frame, without touching p->encap (which says whether the
 * GRE/VXLAN hooks may decapsulate: only while its kind is NONE) or p->erf.
 * Returns ROCE_EUNSUP for a link type it does not know.  (fields.c decodes
 * a mirror's outer frame again with it.) */
int roce__decode_frame(struct roce_pkt *p, const struct roce_cfg *cfg, int linktype,
		       const uint8_t *data, uint32_t caplen, uint32_t wirelen);
/* link/encap.c: GRE at off (IP protocol 47); VXLAN header at off (UDP
 * payload); both only record the mirror in p->encap.  Once the outer frame
 * is decoded, roce__decap() keeps the outer frame's facts in p->encap and
 * returns the inner frame (FRAME, at an offset in the outer p->data), or
 * NONE when the mirror header was cut short or invalid. */
void roce__decode_gre(struct roce_pkt *p, uint32_t off, uint32_t end);
void roce__decode_udp_encap(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t udp_off);
struct roce__next roce__decap(struct roce_pkt *p);
/* Native IB sizes shared by link/ib.c, ib_conv.c, ib_build.c and ipoib.c:
 * the LRH, the VCRC that ends a packet, the IPoIB encapsulation header. */
#define IB_LRH_LEN 8
#define IB_VCRC_LEN 2
#define IPOIB_HLEN 4

/* link/ib.c: a native IB packet, LRH at offset 0, end = end of the VCRC.
 * Returns the BTH (IB_BTH, after the GRH when there is one), a raw
 * packet's datagram (ETHERTYPE), or NONE. */
struct roce__next roce__decode_lrh(struct roce_pkt *p, uint32_t end);
/* icrc.c: the IB ICRC (LRH with VL as ones, GRH masked, BTH byte 4 as ones). */
int roce__icrc_ib(const struct roce_pkt *p, uint32_t *icrc);
void roce__fields_ib(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__fields_vcrc(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
/* link/erf.c: an ERF record.  roce__erf_open() reads the record's header
 * into *r and returns the frame in it (FRAME, at an offset in the record;
 * its type is ROCE__LINK_NONE when there is nothing to decode);
 * roce__erf_close() adds the record's facts to p once that frame is
 * decoded. */
struct roce__erf_rec {
	struct roce_erf e;
	int bad;                /* the header: 0 good, 1 truncated, 2 invalid (why) */
	const char *why;
};
struct roce__next roce__erf_open(struct roce__erf_rec *r, const uint8_t *data, uint32_t caplen,
				 uint32_t wirelen);
void roce__erf_close(struct roce_pkt *p, const struct roce__erf_rec *r);
void roce__fields_erf(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
/* mad.c: a UD SEND to QP1 whose payload starts at p->payload_off. */
void roce__decode_mad(struct roce_pkt *p);
/* mgmt.c: a MAD of another class than CM (QP0 or QP1). */
void roce__decode_mgmt(struct roce_pkt *p);
void roce__fields_mgmt(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__summary_mgmt(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);
/* link/ipoib.c: the IPoIB header of an IB payload at off, len bytes (the
 * payload bth.c said may be IPoIB); returns the datagram after it
 * (ETHERTYPE) or NONE when the payload is not IPoIB. */
struct roce__next roce__decode_ipoib(struct roce_pkt *p, uint32_t off, uint32_t len);
void roce__fields_ipoib(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__summary_ipoib(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);

/* ---- field walker hooks ---------------------------------------------------- */

static inline void roce__emit(roce_field_cb cb, void *ctx, const char *key,
			      enum roce_ftype t, uint64_t u, const char *s,
			      const uint8_t *b, uint32_t len)
{
	struct roce_field f = { key, t, u, s, b, len };
	cb(ctx, &f);
}
#define EMIT_U(key, v)      roce__emit(cb, ctx, key, ROCE_F_UINT, (uint64_t)(v), NULL, NULL, 0)
#define EMIT_I(key, v)      roce__emit(cb, ctx, key, ROCE_F_INT, (uint64_t)(int64_t)(v), NULL, NULL, 0)
#define EMIT_B(key, v)      roce__emit(cb, ctx, key, ROCE_F_BOOL, (v) ? 1 : 0, NULL, NULL, 0)
#define EMIT_S(key, v)      roce__emit(cb, ctx, key, ROCE_F_STR, 0, (v), NULL, 0)
#define EMIT_IP4(key, b)    roce__emit(cb, ctx, key, ROCE_F_IPV4, 0, NULL, (b), 4)
#define EMIT_IP6(key, b)    roce__emit(cb, ctx, key, ROCE_F_IPV6, 0, NULL, (b), 16)
#define EMIT_MAC(key, b)    roce__emit(cb, ctx, key, ROCE_F_MAC, 0, NULL, (b), 6)
#define EMIT_TEXT(key, b, n) roce__emit(cb, ctx, key, ROCE_F_TEXT, 0, NULL, (b), (n))
#define EMIT_BYTES(key, b, n) roce__emit(cb, ctx, key, ROCE_F_BYTES, 0, NULL, (b), (n))

void roce__fields_mad(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__fields_tcp(const struct roce_pkt *p, unsigned flags, roce_field_cb cb, void *ctx);
void roce__fields_l2(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__fields_encap(const struct roce_pkt *p, roce_field_cb cb, void *ctx);

/* ---- summary hooks: append to buf at *n (never beyond cap - 1) -------------- */

void roce__sappend(char *buf, size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void roce__summary_mad(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);
void roce__summary_tcp(const struct roce_pkt *p, unsigned flags, char *buf, size_t cap, size_t *n);
void roce__summary_encap(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);
void roce__summary_l2(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);

#endif
