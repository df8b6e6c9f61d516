/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp.h — libroce's iWARP API: MPA (RFC 5044, RFC 6581 rev 2), DDP
 * (RFC 5041) and RDMAP (RFC 5040, atomics RFC 7306) over TCP.
 *
 * roce_decode() decodes the MPA/DDP/RDMAP layers of one TCP segment when it
 * can tell, from that segment alone, that it carries iWARP:
 *   - an MPA request or reply frame at the start of the payload (any port);
 *   - FPDUs starting at the start of the payload, on a port the caller named
 *     with roce_cfg_add_iwarp_port() (either direction), or anywhere when the
 *     conservative heuristic below holds.
 * A single segment does not tell where the FPDU stream began (needed to find
 * markers) nor what was negotiated (CRC), so:
 *   - the CRC field is verified when it is not zero; a zero field reads as
 *     "unchecked" (MPA without CRC sends zeros);
 *   - markers are found only when the segment starts with one (reserved 0,
 *     FPDU pointer 0), which pins the 512-byte grid; otherwise a caller that
 *     knows the stream start and the negotiation uses roce_mpa_segment_walk();
 *   - FPDUs split across segments and segments that start inside an FPDU
 *     need struct roce_mpa_stream (below), fed every segment of a direction.
 *
 * Heuristic (off the configured ports): the payload must be one or more whole
 * FPDUs back to back, exactly filling the segment, each with a ULPDU length
 * that holds the DDP+RDMAP headers of its opcode, DDP version 1 and zero
 * reserved bits, RDMAP version 1 and zero reserved bits, a known opcode whose
 * tagged/untagged model is the one RFC 5040 gives it, and a CRC field that is
 * zero or verifies.
 *
 * This header includes only <stdint.h> and <stddef.h>; roce.h includes it.
 */
#ifndef ROCE_IWARP_H
#define ROCE_IWARP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_pkt;
struct roce_eth_spec;
struct roce_ip_spec;
struct roce_field;

/* ---- MPA request / reply frames (RFC 5044 7.1, RFC 6581 7.1) ----------- */

#define ROCE_MPA_KEY_LEN 16
#define ROCE_MPA_FRAME_HDR_LEN 20    /* key, flags, revision, PD length */
#define ROCE_MPA_PD_MAX 512
#define ROCE_MPA_KEY_REQ "MPA ID Req Frame"
#define ROCE_MPA_KEY_REP "MPA ID Rep Frame"

#define ROCE_MPA_FLAG_M 0x80          /* the sender wants markers on what it receives */
#define ROCE_MPA_FLAG_C 0x40          /* CRC (both directions when either side sets it) */
#define ROCE_MPA_FLAG_R 0x20          /* reject (reply only) */
#define ROCE_MPA_FLAG_RSVD 0x1f
/* Not in RFC 5044/6581's header figure but sent by Linux (siw, cxgb4) with
 * rev 2: "the private data starts with the enhanced RTR control". */
#define ROCE_MPA_FLAG_ENHANCED 0x10

/* RFC 6581 enhanced RTR: first 4 bytes of the private data when rev = 2 */
#define ROCE_MPA_RTR_LEN 4
#define ROCE_MPA_RTR_IRD_P2P 0x8000   /* IRD word: peer-to-peer model */
#define ROCE_MPA_RTR_IRD_SEND 0x4000  /* IRD word: zero-length SEND as RTR */
#define ROCE_MPA_RTR_ORD_WRITE 0x8000 /* ORD word: zero-length RDMA WRITE as RTR */
#define ROCE_MPA_RTR_ORD_READ 0x4000  /* ORD word: zero-length RDMA READ as RTR */
#define ROCE_MPA_RTR_MASK 0x3fff      /* IRD / ORD value */

enum roce_mpa_frame_kind {
	ROCE_MPA_NOT_FRAME = 0,
	ROCE_MPA_REQ = 1,
	ROCE_MPA_REP = 2,
};

struct roce_mpa_rtr {
	uint16_t ird, ord;            /* 14 bits each */
	uint8_t p2p, send, write, read;
};

struct roce_mpa_frame {
	uint8_t kind;                 /* enum roce_mpa_frame_kind */
	uint8_t flags;                /* raw byte 16 */
	uint8_t markers, crc, reject, rsvd;
	uint8_t rev;
	uint16_t pd_len;              /* as on the wire */
	const uint8_t *pd;            /* into the caller's bytes */
	uint32_t pd_captured;         /* PD bytes available (<= pd_len) */
	uint8_t has_rtr;              /* rev 2, ROCE_MPA_FLAG_ENHANCED, at least 4 PD bytes */
	struct roce_mpa_rtr rtr;
	uint32_t len;                 /* 20 + pd_len */
};

/* Parses a request/reply frame at b.  Returns its length, 0 when b does not
 * start with either key, ROCE_ETRUNC when fewer than 20 bytes (or fewer PD
 * bytes than announced) are available, ROCE_EINVAL when PD length > 512 or a
 * request has the reject bit.  f is filled as far as the bytes go. */
int roce_mpa_frame_parse(const uint8_t *b, size_t len, struct roce_mpa_frame *f);

/* Builds a frame.  kind ROCE_MPA_REQ/REP; flags ROCE_MPA_FLAG_*; when
 * rev == 2 and rtr != NULL the 4 RTR bytes are written before pd (and count
 * in the PD length) and ROCE_MPA_FLAG_ENHANCED is set.  Returns the length or ROCE_ENOSPC / ROCE_EARG. */
int roce_mpa_build_frame(uint8_t *dst, size_t cap, int kind, uint8_t flags, uint8_t rev,
			 const struct roce_mpa_rtr *rtr, const uint8_t *pd, size_t pd_len);

/* ---- DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306) --------------------- */

#define ROCE_DDP_T 0x80
#define ROCE_DDP_L 0x40
#define ROCE_DDP_RSVD 0x3c
#define ROCE_DDP_DV_MASK 0x03
#define ROCE_RDMAP_RV_MASK 0xc0
#define ROCE_RDMAP_RSVD 0x30
#define ROCE_RDMAP_OP_MASK 0x0f

#define ROCE_DDP_TAGGED_LEN 14        /* ctl(1) rdmap ctl(1) STag(4) TO(8) */
#define ROCE_DDP_UNTAGGED_LEN 18      /* ctl(1) rdmap ctl(1) rsvd(4) QN MSN MO */
#define ROCE_RDMAP_READREQ_LEN 28
#define ROCE_RDMAP_TERM_LEN 4         /* terminate control, before the copied headers */
#define ROCE_RDMAP_ATOMIC_REQ_LEN 52
#define ROCE_RDMAP_ATOMIC_RESP_LEN 12
#define ROCE_RDMAP_IMM_LEN 8

enum roce_rdmap_op {
	ROCE_RDMAP_WRITE = 0x0,
	ROCE_RDMAP_READ_REQ = 0x1,
	ROCE_RDMAP_READ_RESP = 0x2,
	ROCE_RDMAP_SEND = 0x3,
	ROCE_RDMAP_SEND_INV = 0x4,
	ROCE_RDMAP_SEND_SE = 0x5,
	ROCE_RDMAP_SEND_SE_INV = 0x6,
	ROCE_RDMAP_TERMINATE = 0x7,
	ROCE_RDMAP_IMM = 0x8,          /* RFC 7306 Immediate Data */
	ROCE_RDMAP_IMM_SE = 0x9,       /* RFC 7306 Immediate Data with SE */
	ROCE_RDMAP_ATOMIC_REQ = 0xa,
	ROCE_RDMAP_ATOMIC_RESP = 0xb,
};

/* Untagged queue numbers (RFC 5040 5.1, RFC 7306 8.1) */
enum roce_ddp_qn {
	ROCE_DDP_QN_SEND = 0,
	ROCE_DDP_QN_READ_REQ = 1,
	ROCE_DDP_QN_TERMINATE = 2,
	ROCE_DDP_QN_ATOMIC = 3,
};

/* Terminate (RFC 5040 4.8; LLP codes RFC 5044 8, RFC 6581 9) */
enum roce_term_layer { ROCE_TERM_RDMAP = 0, ROCE_TERM_DDP = 1, ROCE_TERM_LLP = 2 };
#define ROCE_TERM_HDRCT_M 0x80        /* DDP segment length valid */
#define ROCE_TERM_HDRCT_D 0x40        /* DDP header included */
#define ROCE_TERM_HDRCT_R 0x20        /* RDMAP header included */

/* RFC 7306 atomic operation codes (as Wireshark 4.0 names them) */
#define ROCE_ATOMIC_FETCH_ADD 0x0
#define ROCE_ATOMIC_CMP_SWAP 0x2

/* One DDP segment with its RDMAP header, host order.  Fields that the opcode
 * does not have stay 0. */
struct roce_iwarp_msg {
	uint8_t ddp_ctl, rdmap_ctl;
	uint8_t tagged, last, ddp_rsvd, dv;
	uint8_t rv, rdmap_rsvd, opcode;
	uint32_t stag;                /* tagged */
	uint64_t to;
	uint32_t rsvd_ulp;            /* untagged bytes 2-5: Invalidate STag for *_INV */
	uint32_t qn, msn, mo;
	/* Read Request */
	uint32_t sink_stag, read_size, src_stag;
	uint64_t sink_to, src_to;
	/* Terminate */
	uint8_t term_layer, term_etype, term_code, term_hdrct;
	uint16_t term_rsvd;           /* 13 bits */
	uint16_t term_seglen;         /* when D: the 2 bytes before the copied DDP header */
	const uint8_t *term_ddp;      /* copied DDP header (when D), 14 or 18 bytes */
	uint8_t term_ddp_len;
	const uint8_t *term_rdma;     /* copied RDMAP header (when R), 28 bytes */
	/* Atomics (RFC 7306) */
	uint32_t atomic_rsvd;         /* 28 bits */
	uint8_t atomic_op;
	uint32_t req_id, remote_stag;
	uint64_t remote_to, add_swap, add_swap_mask, compare, compare_mask;
	uint32_t orig_req_id;
	uint64_t orig_value;
	uint64_t imm;                 /* Immediate Data */
	uint32_t hdr_len;             /* DDP + RDMAP headers */
	uint32_t payload_len;         /* ULPDU length - hdr_len */
	const uint8_t *payload;       /* into the bytes given */
};

/* Parses a DDP segment (a ULPDU) of ulpdu_len bytes of which avail are at b.
 * ROCE_OK; ROCE_EINVAL when ulpdu_len is shorter than the headers, DV or RV is
 * not 1, the opcode is unknown or uses the wrong buffer model; ROCE_ETRUNC
 * when the headers are not all in avail.  m is filled as far as the bytes go
 * (and the opcode is known). */
int roce_iwarp_msg_parse(const uint8_t *b, size_t avail, size_t ulpdu_len, struct roce_iwarp_msg *m);

/* Headers (DDP + RDMAP) for an opcode: 0 for an unknown opcode. */
unsigned roce_rdmap_hdr_len(uint8_t opcode);
/* 1 when the opcode is sent in the tagged buffer model. */
int roce_rdmap_op_tagged(uint8_t opcode);

/* Names: "Write", "Read Request", …; NULL when unknown. */
const char *roce_rdmap_op_name(uint8_t opcode);
/* "RDMA_WRITE", "SEND_SE_INV", … for summaries; "OP_0xN" text when unknown. */
const char *roce_rdmap_op_tag(uint8_t opcode);
const char *roce_term_layer_name(uint8_t layer);
const char *roce_term_etype_name(uint8_t layer, uint8_t etype);
const char *roce_term_code_name(uint8_t layer, uint8_t etype, uint8_t code);

/* What roce_iwarp_build_ulpdu() writes. */
struct roce_iwarp_msg_spec {
	uint8_t opcode;
	uint8_t last;                 /* DDP L */
	uint32_t stag;                /* tagged: data sink STag */
	uint64_t to;
	uint32_t inv_stag;            /* untagged bytes 2-5 (Invalidate STag) */
	uint32_t qn;                  /* untagged; ~0u means the opcode's own queue */
	uint32_t msn, mo;
	/* Read Request */
	uint32_t sink_stag, read_size, src_stag;
	uint64_t sink_to, src_to;
	/* Terminate: layer, etype, code, hdrct bits; copied headers */
	uint8_t term_layer, term_etype, term_code, term_hdrct;
	uint16_t term_seglen;
	const uint8_t *term_ddp;      /* 14 or 18 bytes by its T bit (when D) */
	const uint8_t *term_rdma;     /* 28 bytes (when R) */
	/* Atomics */
	uint8_t atomic_op;
	uint32_t req_id, remote_stag;
	uint64_t remote_to, add_swap, add_swap_mask, compare, compare_mask;
	uint32_t orig_req_id;
	uint64_t orig_value;
	uint64_t imm;
	const uint8_t *payload;
	uint32_t payload_len;
};

/* Writes the ULPDU (DDP + RDMAP headers + payload).  Returns its length. */
int roce_iwarp_build_ulpdu(uint8_t *dst, size_t cap, const struct roce_iwarp_msg_spec *s);

/* ---- FPDU framing (RFC 5044 4, 7) -------------------------------------- */

#define ROCE_MPA_MARKER_INTERVAL 512
#define ROCE_MPA_MARKER_LEN 4
#define ROCE_MPA_CRC_LEN 4
#define ROCE_MPA_ULPDU_MAX 65535
/* Largest FPDU without markers: length(2) + ULPDU + pad(3) + CRC(4). */
#define ROCE_MPA_FPDU_MAX (2 + ROCE_MPA_ULPDU_MAX + 3 + 4)

enum roce_mpa_crc_status {
	ROCE_MPA_CRC_UNCHECKED = 0,   /* zero field (no CRC negotiated), or not captured */
	ROCE_MPA_CRC_GOOD,
	ROCE_MPA_CRC_BAD,
};
const char *roce_mpa_crc_status_name(int s); /* "unchecked", "good", "bad" */

/* The value to put in the CRC field, as a big-endian read of the 4 wire
 * bytes gives it (this is what Wireshark shows): CRC-32C over everything
 * from the FPDU's first byte (markers included) to the CRC, byte-swapped
 * because MPA sends the CRC least significant byte first. */
uint32_t roce_mpa_crc_value(const uint8_t *b, size_t len);

/* Pad bytes after a ULPDU of this length. */
static inline unsigned roce_mpa_pad(unsigned ulpdu_len) { return (4 - ((ulpdu_len + 2) & 3)) & 3; }

/* One FPDU inside a TCP segment (offsets from the start of the bytes walked). */
struct roce_mpa_fpdu {
	uint32_t off;                 /* first byte: a marker or the ULPDU length */
	uint32_t len_off;             /* ULPDU length field */
	uint32_t ulpdu_off;           /* DDP header (0 until the length was read) */
	uint32_t wire_len;            /* from off to the end of the CRC, markers included */
	uint16_t ulpdu_len;
	uint8_t pad_len;
	uint8_t n_markers;            /* markers within [off, off + wire_len) that were captured */
	uint8_t n_marker_bad;         /* of those, how many have a wrong pointer or reserved bits */
	uint32_t marker_off[8];       /* the first eight of them (ptr/rsvd are read from the bytes) */
	uint32_t pad_off;
	uint32_t crc_off;
	uint32_t crc_wire;            /* big-endian read of the field */
	uint32_t crc_calc;            /* same convention; valid when crc_status != UNCHECKED */
	uint8_t crc_status;
	uint8_t whole;                /* every wire byte captured */
	uint8_t in_segment;           /* the FPDU ends inside the segment */
	uint8_t hdr_got;              /* header bytes copied into hdr */
	uint32_t avail;               /* captured bytes of the segment walked */
	int msg_rc;                   /* roce_iwarp_msg_parse() result on the ULPDU */
	struct roce_iwarp_msg msg;    /* pointers into `hdr` of the walk, or into the bytes */
	uint8_t hdr[ROCE_DDP_UNTAGGED_LEN + ROCE_RDMAP_ATOMIC_REQ_LEN]; /* headers, markers removed */
};

/* How roce_mpa_fpdu_at() treats the CRC field. */
enum roce_mpa_crc_mode {
	ROCE_MPA_CRC_AUTO = 0,        /* negotiation unknown: verify a nonzero field */
	ROCE_MPA_CRC_ON,              /* CRC negotiated: always verify */
	ROCE_MPA_CRC_OFF,             /* CRC not negotiated: never verify */
};

/* Result of roce_mpa_fpdu_at() when the FPDU goes on past the segment. */
#define ROCE_MPA_SPANS 1

/* Finds the FPDU whose first byte is at b + off, in a segment of wire_len
 * bytes of which avail were captured; markers sit at mark0 + 512 k (mark0 in
 * 0..511; -1: no markers).  Returns ROCE_OK (whole FPDU captured),
 * ROCE_MPA_SPANS (it ends after the segment), ROCE_ETRUNC (it ends in the
 * segment but after the captured bytes, or its length was not captured),
 * ROCE_EINVAL (ULPDU length shorter than a DDP header).  f->msg_rc tells how
 * the DDP/RDMAP headers went. */
int roce_mpa_fpdu_at(const uint8_t *b, uint32_t avail, uint32_t wire_len, uint32_t off,
		     int32_t mark0, int crc_mode, struct roce_mpa_fpdu *f);

/* What a caller that watched the MPA handshake knows about one direction. */
struct roce_mpa_dir {
	uint32_t start_seq;           /* sequence number of the first FPDU-stream byte */
	uint8_t markers;              /* the receiver asked for markers (M in its frame) */
	uint8_t crc;                  /* C in either frame */
	uint8_t crc_known;            /* 1: crc above is known (else: verify nonzero fields) */
};

/* Walks the FPDUs that start in one captured TCP segment of a decoded packet
 * (p->tcp_payload_off..), given what the caller knows of the direction (dir
 * may be NULL: no markers, CRC verified when nonzero).  Calls cb for every
 * FPDU whose first byte is at an FPDU boundary it can find: the segment must
 * start at one (first_is_fpdu) or, with markers, a marker pointer tells where.
 * Returns the number of FPDUs given to cb, or a negative roce_err. */
typedef void (*roce_mpa_walk_cb)(void *ctx, const uint8_t *seg, const struct roce_mpa_fpdu *f);
int roce_mpa_segment_walk(const struct roce_pkt *p, const struct roce_mpa_dir *dir, int first_is_fpdu,
			  roce_mpa_walk_cb cb, void *ctx);

/* 1 when an FPDU without markers plausibly starts at b (avail of its wire_len
 * bytes captured; it may go on past them): the test the decoder applies at
 * the start of a segment on a port named with roce_cfg_add_iwarp_port() —
 * a ULPDU length that holds the DDP/RDMAP headers of a known opcode, exactly
 * for those without payload, DDP and RDMAP version 1 with zero reserved bits,
 * the opcode's buffer model and untagged queue.  For a caller that resyncs a
 * struct roce_mpa_stream after a gap (ROCE_MPA_SEG_FPDU_START). */
int roce_mpa_fpdu_plausible(const uint8_t *b, uint32_t avail, uint32_t wire_len);

/* Emits the iwarp_mpa.* / iwarp_ddp.* / iwarp_rdma.* / roce.* fields of one
 * FPDU found by roce_mpa_segment_walk (seg as given to the callback).  Byte
 * fields point into seg (a header split by a marker gives none). */
void roce_mpa_fpdu_fields(const uint8_t *seg, const struct roce_mpa_fpdu *f,
			  void (*cb)(void *ctx, const struct roce_field *fld), void *ctx);

/* Builds an FPDU: ULPDU length, ulpdu, pad, CRC (crc != 0: computed, else
 * zero).  With markers != 0, markers are inserted where stream position pos
 * (bytes since the start of the FPDU stream, i.e. seq - start_seq) of the
 * FPDU's first byte plus k falls on a multiple of 512; a marker at pos itself
 * belongs to this FPDU (pointer 0).  Returns the wire length. */
int roce_mpa_build_fpdu(uint8_t *dst, size_t cap, const uint8_t *ulpdu, size_t ulpdu_len,
			int crc, int markers, uint32_t pos);

/* Wire length of that FPDU (markers included) without building it. */
uint32_t roce_mpa_fpdu_wire_len(size_t ulpdu_len, int markers, uint32_t pos);

/* ---- TCP frames ---------------------------------------------------------- */

#define ROCE_TCP_FIN 0x01
#define ROCE_TCP_SYN 0x02
#define ROCE_TCP_RST 0x04
#define ROCE_TCP_PSH 0x08
#define ROCE_TCP_ACK 0x10

/* Ethernet (+ VLAN tags) + IPv4/IPv6 + 20-byte TCP header + payload, IPv4
 * and TCP checksums filled (IP protocol 6).  Window 65535. */
int roce_build_tcp_frame(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
			 const struct roce_ip_spec *ip, uint16_t sport, uint16_t dport,
			 uint32_t seq, uint32_t ack, uint8_t flags,
			 const uint8_t *payload, size_t len);

/* ---- the stream helper ------------------------------------------------------
 * One struct per direction of a TCP connection, fed that direction's
 * segments in capture order.  It finds the MPA frame at the start (when fed
 * from the start), learns the negotiation when paired with the other
 * direction (roce_mpa_stream_pair) or takes it from roce_mpa_stream_set(),
 * strips and checks markers, reassembles FPDUs in the caller's buffer,
 * verifies CRCs and reports each FPDU and every gap, retransmission,
 * out-of-order or framing problem as an event.
 *
 * Framing is lost (ROCE_MPA_EV_SYNC_LOST) at a gap, a ULPDU length that
 * cannot hold a DDP header, a marker whose pointer or reserved bits disagree
 * with the framing, or an FPDU whose DDP/RDMAP header is invalid without a
 * good CRC to vouch for it.  Out of sync, no FPDU is reported (never a header
 * read out of payload bytes) until a candidate FPDU proves itself:
 *   - markers negotiated: a marker's pointer names an FPDU start; that FPDU
 *     must have a plausible header (roce_mpa_fpdu_plausible) and, with CRC,
 *     a good CRC ("marker");
 *   - CRC negotiated: a segment the caller flags ROCE_MPA_SEG_FPDU_START
 *     whose FPDU has a plausible header and a good CRC ("crc");
 *   - neither (siw's default): such a segment with a plausible header, a
 *     guess reported as such ("heuristic", n_resync_heuristic).
 * With markers but no CRC, only a marker resynchronises.  The candidate's
 * bytes are held back until it is proven; if it fails they are reported
 * SKIPPED.  No allocation; no reads outside what it is fed. */

enum roce_mpa_ev {
	ROCE_MPA_EV_FRAME = 1,        /* MPA request/reply parsed: ev->frame */
	ROCE_MPA_EV_BAD_FRAME,        /* request/reply invalid (PD length > 512 …); framing lost */
	ROCE_MPA_EV_GAP,              /* [seq, seq+len) never fed: framing lost */
	ROCE_MPA_EV_FPDU_LOST,        /* a partial FPDU was dropped at a gap */
	ROCE_MPA_EV_RETRANS,          /* already-fed bytes fed again: ignored */
	ROCE_MPA_EV_OUT_OF_ORDER,     /* bytes of a reported gap arrived late: ignored */
	ROCE_MPA_EV_SKIPPED,          /* bytes passed over while not in sync */
	ROCE_MPA_EV_RESYNC,           /* in sync again at seq (how: ev->what) */
	ROCE_MPA_EV_MARKER_BAD,       /* marker pointer/reserved bits disagree with the framing */
	ROCE_MPA_EV_BAD_LENGTH,       /* ULPDU length cannot hold DDP/RDMAP headers: framing lost */
	ROCE_MPA_EV_TOO_BIG,          /* FPDU larger than the caller's buffer: skipped */
	ROCE_MPA_EV_NO_START,         /* markers negotiated but stream start unknown */
	ROCE_MPA_EV_BAD_HEADER,       /* FPDU header invalid (and no good CRC): framing lost */
	ROCE_MPA_EV_SYNC_LOST,        /* was in sync, now is not (why: the event just before) */
};
const char *roce_mpa_ev_name(int ev);

struct roce_mpa_event {
	int type;                     /* enum roce_mpa_ev */
	uint32_t seq;
	uint32_t len;
	const char *what;
	const struct roce_mpa_frame *frame;
};

/* One reassembled FPDU.  view is roce_mpa_fpdu_at() over bytes (no markers
 * there) with the CRC verdict of the wire bytes (markers included), so
 * roce_mpa_fpdu_fields(f->bytes, &f->view, …) lists it like a single frame. */
struct roce_mpa_stream_fpdu {
	uint32_t seq;                 /* TCP sequence number of its first byte */
	uint32_t wire_len;            /* sequence space it took, markers included */
	const uint8_t *bytes;         /* ULPDU length .. CRC, markers removed */
	uint32_t len;                 /* 2 + ULPDU + pad + 4 */
	uint8_t n_markers;            /* markers inside it on the wire */
	uint8_t n_marker_bad;
	uint16_t marker_rsvd[8];      /* the first eight markers' two halves */
	uint16_t marker_ptr[8];
	struct roce_mpa_fpdu view;
};

/* The same fields as roce_mpa_fpdu_fields(), for a reassembled FPDU (its
 * markers included).  Byte fields point into the stream's buffer: valid
 * until the next roce_mpa_stream_feed() on that stream. */
void roce_mpa_stream_fpdu_fields(const struct roce_mpa_stream_fpdu *f,
				 void (*cb)(void *ctx, const struct roce_field *fld), void *ctx);
/* Its one-line summary as roce_summary() words an FPDU ("iWARP RDMA_WRITE stag
 * 0x1 to 0x0 len 1024 crc good", markers counted as on the wire), no leading
 * blank.  Returns the length written (truncated to cap - 1). */
size_t roce_mpa_stream_fpdu_summary(const struct roce_mpa_stream_fpdu *f, char *buf, size_t cap);

typedef void (*roce_mpa_fpdu_cb)(void *ctx, const struct roce_mpa_stream_fpdu *f);
typedef void (*roce_mpa_event_cb)(void *ctx, const struct roce_mpa_event *e);

#define ROCE_MPA_SEG_FPDU_START 0x1   /* the caller knows this segment starts an FPDU */

struct roce_mpa_stream {
	/* configuration (roce_mpa_stream_set or learned) */
	uint8_t have_start, markers, crc, crc_known;
	uint32_t start_seq;
	struct roce_mpa_stream *peer;
	/* callbacks */
	roce_mpa_fpdu_cb on_fpdu;
	roce_mpa_event_cb on_event;
	void *ctx;
	/* caller's reassembly buffer */
	uint8_t *buf;
	uint32_t cap;
	/* state */
	uint8_t state;
	uint8_t have_next;
	uint8_t have_gap;
	uint8_t frame_seen;           /* this direction's MPA frame was parsed */
	uint8_t frame_flags;          /* its byte 16 */
	uint8_t no_start_told;
	uint8_t try_how;              /* out of sync, trying a candidate: 1 marker, 2 segment start */
	uint8_t hdr_checked;          /* the candidate's header was found plausible */
	uint8_t heuristic;            /* in sync by the heuristic (no markers, no CRC) */
	uint32_t next_seq;            /* next byte expected */
	uint32_t gap_lo, gap_hi;      /* last gap reported */
	/* the FPDU being collected */
	uint8_t fpdu_open, lead, oversize, n_markers, n_marker_bad;
	uint8_t tail[4];              /* last four logical bytes (the CRC) */
	uint32_t fpdu_seq;            /* its first byte */
	uint32_t have;                /* logical bytes collected (markers removed) */
	uint32_t need;                /* 2 + ULPDU + pad + 4 once known, else 0 */
	uint32_t crc_run;             /* running CRC-32C (roce_crc32c chaining) */
	uint8_t mk[4];                /* the marker being read (may span segments) */
	uint32_t mk_seq;
	uint16_t mk_rsvd[8], mk_ptr[8];
	struct roce_mpa_frame frame;  /* the last MPA frame (pd valid during its event only) */
	/* counters */
	uint64_t n_fpdu, n_crc_good, n_crc_bad, n_crc_unchecked, n_gaps, n_gap_bytes,
		 n_resync, n_markers_seen, n_markers_bad, n_retrans, n_ooo, n_skipped_bytes,
		 n_sync_lost, n_resync_heuristic;
};

/* 1 when the stream is framing FPDUs it trusts (not out of sync, not trying
 * a resync candidate, not before its first byte). */
int roce_mpa_stream_in_sync(const struct roce_mpa_stream *s);

/* buf/cap: reassembly storage (ROCE_MPA_FPDU_MAX bytes hold any FPDU; it
 * must hold at least 532 bytes for an MPA frame with 512 bytes of PD). */
void roce_mpa_stream_init(struct roce_mpa_stream *s, uint8_t *buf, uint32_t cap,
			  roce_mpa_fpdu_cb on_fpdu, roce_mpa_event_cb on_event, void *ctx);
/* Tells the stream what the caller knows: FPDU stream start, markers, CRC. */
void roce_mpa_stream_set(struct roce_mpa_stream *s, uint32_t start_seq, int markers, int crc);
/* Links the two directions of one connection: each learns its markers (M of
 * the frame the other direction sent) and CRC (C of either) from the frames. */
void roce_mpa_stream_pair(struct roce_mpa_stream *a, struct roce_mpa_stream *b);
/* Feeds one segment (payload only; len may be 0).  flags ROCE_MPA_SEG_*. */
void roce_mpa_stream_feed(struct roce_mpa_stream *s, uint32_t seq, const uint8_t *data,
			  uint32_t len, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* ROCE_IWARP_H */
