/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dcb.h — libroce: Data Center Bridging frames carried directly on Ethernet.
 *
 *   ethertype 0x8808  MAC control: IEEE 802.3 Annex 31B PAUSE, IEEE 802.1Qbb PFC
 *   ethertype 0x22E9  IEEE 802.1Qau (802.1Q clause 32/33) CN-TAG and CNM
 *   ethertype 0x88CC  IEEE 802.1AB LLDP, with the IEEE 802.1Qaz DCBX TLVs
 *                     (ETS, PFC, application priority, congestion notification)
 *                     and the older CEE DCBX TLV (OUI 00-1B-21, DCBX base v1.01)
 *
 * roce_decode() records where each of these starts (p->macctrl_off,
 * p->cnm_off, p->lldp_off) and the layer state (ROCE_L_MACCTRL, ROCE_L_CNM,
 * ROCE_L_LLDP).  The accessors below read the rest on demand; none of them
 * reads at or beyond the captured length.  Accessors return ROCE_OK, or
 * ROCE_ETRUNC when the capture stopped early (what was captured is filled in),
 * or ROCE_EINVAL when the packet does not hold that kind of PDU.
 *
 * Builders write a whole Ethernet frame into (dst, cap), padded to 60 bytes,
 * plus a 4-byte FCS when fcs is non-zero, and return its length or a negative
 * roce_err.  eth may be NULL; an all-zero eth->dst means the standard group
 * address of the protocol (01-80-C2-00-00-01 for MAC control,
 * 01-80-C2-00-00-0E for LLDP; a CNM has none, so it stays zero).  VLAN tags
 * follow struct roce_eth_spec's rules (MAC control and LLDP frames are
 * normally untagged).
 *
 * Normally included through roce.h.
 */
#ifndef ROCE_DCB_H
#define ROCE_DCB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_pkt;
struct roce_eth_spec;

/* ==== MAC control: PAUSE and PFC ========================================== */

#define ROCE_MACC_PAUSE 0x0001   /* 802.3 Annex 31B */
#define ROCE_MACC_PFC   0x0101   /* 802.1Qbb clause 36 ("class-based flow control") */

/* One pause quantum is 512 bit times at the link's speed. */
#define ROCE_PAUSE_QUANTUM_BITS 512

struct roce_pfc {
	uint16_t opcode;         /* MAC control opcode */
	uint8_t known;           /* opcode is PAUSE or PFC */
	uint8_t reserved_set;    /* PFC: high byte of the class-enable vector is non-zero */
	uint16_t enable_vector;  /* PFC: the 16-bit class-enable vector as on the wire */
	uint8_t enable;          /* PFC: its low byte; bit n = priority n */
	uint16_t times[8];       /* PFC: pause time per priority; PAUSE: times[0] */
};

/* Fills out from a MAC control frame (p->macctrl_off set).  ROCE_EUNSUP for
 * an opcode other than PAUSE/PFC (out->opcode is filled).  A non-zero
 * reserved byte in the class-enable vector is reported in out->reserved_set
 * but is not an error: 802.1Qbb says it is ignored on receipt. */
int roce_pfc_get(const struct roce_pkt *p, struct roce_pfc *out);

/* "PAUSE", "PFC", the EPON MPCP names (802.3 clause 64), or NULL. */
const char *roce_macc_opcode_name(uint16_t opcode);

/* Duration of `quanta` pause quanta on a link of link_bps bits per second,
 * rounded to the nearest nanosecond / picosecond; 0 when link_bps is 0.
 * One quantum is 5.12 ns at 100 Gb/s, 20.48 ns at 25 Gb/s, 51.2 ns at 10 Gb/s. */
uint64_t roce_pause_quanta_ns(uint32_t quanta, uint64_t link_bps);
uint64_t roce_pause_quanta_ps(uint32_t quanta, uint64_t link_bps);

/* 802.3x PAUSE with one pause time. */
int roce_build_pause(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		     uint16_t quanta, int fcs);
/* 802.1Qbb PFC: class-enable vector `enable` (bit n = priority n, the
 * reserved high byte is written as zero) and eight pause times (times may be
 * NULL for all zero).  Times of disabled priorities are written as given. */
int roce_build_pfc(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		   uint8_t enable, const uint16_t times[8], int fcs);

/* ==== 802.1Qau congestion notification ====================================
 *
 * Ethertype 0x22E9 starts either a CN-TAG (2-byte flow identifier, then the
 * ethertype of what it tags; it sits among the VLAN tags) or a CNM PDU.  A
 * CNM may itself follow a CN-TAG (the flow ID copied from the sampled frame).
 * The two share the ethertype, so libroce tells them apart like this:
 *   1. tag whose inner ethertype is 0x22E9 again: CN-TAG followed by a CNM;
 *   2. first 10 bits non-zero (CNM version and reserved bits must be zero):
 *      CN-TAG;
 *   3. otherwise a CN-TAG only when the inner ethertype is one libroce knows
 *      (IPv4/IPv6/RoCEv1 with a matching IP version nibble after it, VLAN,
 *      MAC control, LLDP), else a CNM.
 *
 * CNM PDU (802.1Q-2011 33.4; 24 bytes then up to 64 bytes of the sampled frame):
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-------+-----------+-----------+-------------------------------+
 *   |Version| Reserved  |  QntzFb   |  Congestion Point Identifier  |
 *   +-------+-----------+-----------+          (8 octets)           |
 *   |                                                               |
 *   +                               +-------------------------------+
 *   |                               |  cnmQOffset (signed)          |
 *   +-------------------------------+-------------------------------+
 *   |  cnmQDelta (signed)           |  Encapsulated priority        |
 *   +-------------------------------+-------------------------------+
 *   |          Encapsulated destination MAC address                 |
 *   +                               +-------------------------------+
 *   |                               |  Encapsulated MSDU length     |
 *   +-------------------------------+-------------------------------+
 *   |          Encapsulated MSDU (0..64 octets) ...
 */

#define ROCE_CNM_HDR_LEN 24
#define ROCE_CNM_MSDU_MAX 64

struct roce_cnm {
	uint8_t has_tag;           /* a CN-TAG came first */
	uint16_t flow_id;          /* its flow identifier (RPID) */
	uint16_t inner_ethertype;  /* its inner ethertype (0x22E9 when a CNM follows) */
	uint32_t inner_off;        /* offset of what the CN-TAG tags */

	uint8_t is_cnm;            /* a CNM PDU is present */
	uint32_t pdu_off;          /* its offset */
	uint8_t version;           /* 4 bits, 0 */
	uint8_t reserved;          /* 6 bits */
	uint8_t qfb;               /* quantized feedback, 6 bits */
	uint64_t cpid;             /* congestion point identifier */
	int16_t qoffset;           /* cnmQOffset */
	int16_t qdelta;            /* cnmQDelta */
	uint16_t encap_priority;   /* as on the wire (the sampled frame's priority) */
	uint8_t encap_da[6];       /* destination MAC of the sampled frame */
	uint16_t encap_len;        /* MSDU length of the sampled frame */
	uint32_t msdu_off;         /* encapsulated MSDU */
	uint32_t msdu_caplen;      /* its bytes that were captured (at most 64) */
};

/* Fills out from a frame whose p->cnm_off is set. */
int roce_cnm_get(const struct roce_pkt *p, struct roce_cnm *out);

/* For a decoder's tag loop: off is the first byte after a 0x22E9 ethertype,
 * end the frame end on the wire.  Returns 1 and the flow ID and inner
 * ethertype when a CN-TAG starts there (including one that carries a CNM),
 * 0 when a bare CNM PDU starts there, ROCE_ETRUNC when the bytes needed to
 * tell were not captured. */
int roce_cntag_peek(const uint8_t *data, uint32_t caplen, uint32_t off, uint32_t end,
		    uint16_t *flow_id, uint16_t *inner_ethertype);

/* A CNM: with cnm->has_tag a CN-TAG carrying cnm->flow_id comes first.
 * Writes cnm->version, qfb, cpid, qoffset, qdelta, encap_priority, encap_da,
 * encap_len (0 means msdu_len) and the msdu bytes (at most 64).
 * ROCE_EARG when version > 15, qfb > 63, reserved > 63 or msdu_len > 64. */
int roce_build_cnm(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		   const struct roce_cnm *cnm, const uint8_t *msdu, size_t msdu_len, int fcs);
/* Any frame with a CN-TAG: CN-TAG(flow_id), ethertype, payload. */
int roce_build_cntag(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		     uint16_t flow_id, uint16_t ethertype, const uint8_t *payload,
		     size_t len, int fcs);

/* ==== LLDP ================================================================
 *
 * An LLDPDU is a list of TLVs ending with the End TLV (type 0, length 0):
 *
 *    0                   1
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 *   +-------------+-----------------+--------------------------+
 *   | type (7)    | length (9)      | value (length octets)... |
 *   +-------------+-----------------+--------------------------+
 *
 * The first three TLVs must be Chassis ID, Port ID and Time To Live
 * (802.1AB-2016 8.2).  Type 127 is organizationally specific: a 3-byte OUI
 * and a 1-byte subtype start the value.
 */

enum roce_lldp_type {
	ROCE_LLDP_END = 0,
	ROCE_LLDP_CHASSIS_ID = 1,
	ROCE_LLDP_PORT_ID = 2,
	ROCE_LLDP_TTL = 3,
	ROCE_LLDP_PORT_DESC = 4,
	ROCE_LLDP_SYS_NAME = 5,
	ROCE_LLDP_SYS_DESC = 6,
	ROCE_LLDP_SYS_CAP = 7,
	ROCE_LLDP_MGMT_ADDR = 8,
	ROCE_LLDP_ORG = 127,
};

#define ROCE_OUI_IEEE_8021 0x0080c2u
#define ROCE_OUI_IEEE_8023 0x00120fu
#define ROCE_OUI_CEE       0x001b21u   /* CEE DCBX (Intel OUI), subtype 2 */

/* IEEE 802.1 organizationally specific subtypes used by DCBX (802.1Q D.2) */
enum roce_dcbx_subtype {
	ROCE_DCBX_CN = 8,        /* congestion notification */
	ROCE_DCBX_ETS_CFG = 9,   /* ETS configuration */
	ROCE_DCBX_ETS_REC = 10,  /* ETS recommendation */
	ROCE_DCBX_PFC = 11,      /* PFC configuration */
	ROCE_DCBX_APP = 12,      /* application priority */
};

/* Iterator: zero it (or call roce_lldp_iter_init) before the first call. */
struct roce_lldp_iter {
	uint32_t off;     /* next TLV header; 0 = not started */
	uint32_t end;     /* end of the frame on the wire */
	int state;        /* 0 running, 1 done, or a negative roce_err */
	uint32_t n;       /* TLVs returned so far */
};

struct roce_lldp_tlv {
	uint8_t type;            /* 7 bits */
	uint16_t len;            /* 9 bits: value length as declared */
	uint32_t off;            /* frame offset of the value */
	const uint8_t *value;    /* p->data + off */
	uint32_t caplen;         /* value bytes captured (< len when truncated) */
	uint8_t has_oui;         /* type 127 with OUI and subtype captured */
	uint32_t oui;
	uint8_t subtype;
};

void roce_lldp_iter_init(const struct roce_pkt *p, struct roce_lldp_iter *it);
/* Returns 1 with the next TLV (the End TLV included), 0 after the End TLV or
 * at the end of the frame, ROCE_ETRUNC when the capture ends before the next
 * TLV (or inside the previous one), ROCE_EINVAL when a TLV's length runs past
 * the end of the frame.  Every call advances by at least two bytes, so a walk
 * always ends; once it returns <= 0 it keeps returning that value. */
int roce_lldp_next(const struct roce_pkt *p, struct roce_lldp_iter *it,
		   struct roce_lldp_tlv *tlv);
/* "Chassis ID", "Port ID", …, "Organization specific", or NULL. */
const char *roce_lldp_type_name(uint8_t type);

/* ---- IEEE 802.1Qaz DCBX TLVs (OUI 00-80-C2) ----
 *
 * ETS configuration (subtype 9) / recommendation (10), length 25:
 *   OUI(3) subtype(1) | W CBS rsv(3) MaxTCs(3) | prio->TC 4 bits x 8 (4) |
 *   TC bandwidth % x 8 (8) | TSA x 8 (8)      (recommendation: byte 4 reserved)
 * PFC configuration (11), length 6:
 *   OUI subtype | W MBC rsv(2) PFCcap(4) | enable (bit n = priority n)
 * Application priority (12), length 5 + 3n:
 *   OUI subtype | reserved(1) | n x { prio(3) rsv(2) sel(3) | protocol ID(16) }
 * Congestion notification (8), length 6:
 *   OUI subtype | CNPV indicators | ready indicators   (bit n = priority n)
 */

struct roce_dcbx_ets {
	uint8_t willing, cbs, max_tcs;   /* configuration only (max_tcs 0 means 8) */
	uint8_t reserved;                /* recommendation: byte 4 */
	uint8_t prio_tc[8];              /* traffic class of each priority */
	uint8_t tc_bw[8];                /* bandwidth % of each traffic class */
	uint8_t tsa[8];                  /* 0 strict, 1 CBS, 2 ETS, 255 vendor */
};

struct roce_dcbx_pfc {
	uint8_t willing, mbc, reserved;
	uint8_t cap;                     /* PFC-enabled traffic classes supported */
	uint8_t enable;                  /* bit n = priority n */
};

#define ROCE_DCBX_APP_MAX 168        /* (511 - 5) / 3 */

struct roce_dcbx_app_entry {
	uint8_t prio;                    /* 3 bits */
	uint8_t reserved;                /* 2 bits */
	uint8_t sel;                     /* 3 bits: 1 ethertype, 2 TCP/SCTP, 3 UDP/DCCP,
					  * 4 TCP/SCTP/UDP/DCCP, 5 DSCP */
	uint16_t proto;
};

struct roce_dcbx_app {
	uint8_t reserved;
	uint16_t n;
	struct roce_dcbx_app_entry e[ROCE_DCBX_APP_MAX];
};

struct roce_dcbx_cn {
	uint8_t cnpv;                    /* CNPV indicators, bit n = priority n */
	uint8_t ready;                   /* ready indicators */
};

/* Decoders for a TLV returned by roce_lldp_next (OUI 00-80-C2 and the
 * subtype checked).  ROCE_EINVAL for another TLV or a wrong length,
 * ROCE_ETRUNC when the value was not all captured (fields captured filled). */
int roce_dcbx_ets(const struct roce_lldp_tlv *tlv, struct roce_dcbx_ets *out);
int roce_dcbx_pfc(const struct roce_lldp_tlv *tlv, struct roce_dcbx_pfc *out);
int roce_dcbx_app(const struct roce_lldp_tlv *tlv, struct roce_dcbx_app *out);
int roce_dcbx_cn(const struct roce_lldp_tlv *tlv, struct roce_dcbx_cn *out);

/* ---- CEE DCBX (OUI 00-1B-21, subtype 2) ----
 *
 * The value holds sub-TLVs with the same 7/9-bit header.  Control (type 1,
 * length 10): oper version, max version, sequence number(32), ack number(32).
 * Features (type 2 PG, 3 PFC, 4 application) start with oper version, max
 * version, flags (enable 0x80, willing 0x40, error 0x20), subtype; then
 *   PG:  PGID 4 bits x 8 priorities (4) | PG bandwidth % x 8 (8) | num TCs (1)
 *   PFC: enable (bit n = priority n) | num TCs
 *   App: n x { protocol ID(16) | OUI upper 6 bits, selector(2) | OUI lower 16 |
 *        priority map (bit n = priority n) }
 */

#define ROCE_CEE_CONTROL 1
#define ROCE_CEE_PG 2
#define ROCE_CEE_PFC 3
#define ROCE_CEE_APP 4
#define ROCE_CEE_APP_MAX 84

struct roce_cee_feature {
	uint8_t present;
	uint8_t oper_version, max_version;
	uint8_t enabled, willing, error;
	uint8_t subtype;
};

struct roce_cee_app_entry {
	uint16_t proto;
	uint8_t sel;                     /* 0 ethertype, 1 TCP/UDP port */
	uint32_t oui;                    /* 24-bit OUI with the selector bits cleared */
	uint8_t prio_map;                /* bit n = priority n */
};

struct roce_cee {
	uint8_t has_control;
	uint8_t oper_version, max_version;
	uint32_t seq, ack;
	struct roce_cee_feature pg, pfc, app;
	uint8_t pgid[8];                 /* PG of each priority (15 = no bandwidth limit) */
	uint8_t pg_pct[8];               /* bandwidth % of each PG */
	uint8_t pg_numtcs;
	uint8_t pfc_enable;
	uint8_t pfc_numtcs;
	uint16_t n_app;
	struct roce_cee_app_entry app_e[ROCE_CEE_APP_MAX];
};

/* Decodes a CEE DCBX TLV (OUI 00-1B-21 subtype 2).  Unknown sub-TLVs are
 * skipped; ROCE_EINVAL when a sub-TLV overruns the TLV or a known one has
 * a wrong length. */
int roce_dcbx_cee(const struct roce_lldp_tlv *tlv, struct roce_cee *out);

/* ---- LLDP builder ---- */

struct roce_lldp_dcbx_spec {
	uint8_t chassis_subtype;         /* 0: 4 (MAC address) */
	const uint8_t *chassis_id;       /* NULL: the source MAC */
	uint16_t chassis_id_len;         /* 1..255 */
	uint8_t port_subtype;            /* 0: 3 (MAC address) */
	const uint8_t *port_id;          /* NULL: the source MAC */
	uint16_t port_id_len;
	uint16_t ttl;

	uint8_t has_ets, has_ets_rec, has_pfc, has_cn;
	struct roce_dcbx_ets ets;        /* configuration TLV */
	struct roce_dcbx_ets ets_rec;    /* recommendation TLV */
	struct roce_dcbx_pfc pfc;
	struct roce_dcbx_cn cn;
	const struct roce_dcbx_app_entry *app;   /* an application priority TLV */
	uint16_t n_app;                  /* when n_app > 0 or has_app */
	uint8_t has_app;

	const struct roce_cee *cee;      /* non-NULL: a CEE TLV too (control +
					  * the features whose .present is set) */
};

/* Chassis ID, Port ID, TTL, the DCBX TLVs asked for, End.  ROCE_EARG for a
 * field out of range (a 4-bit value over 15, 3-bit over 7, too many entries). */
int roce_build_lldp_dcbx(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
			 const struct roce_lldp_dcbx_spec *spec, int fcs);

#ifdef __cplusplus
}
#endif
#endif /* ROCE_DCB_H */
