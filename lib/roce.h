/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libroce — decode and build RoCE (v1, v2, legacy port 1021), iWARP and DCB frames.
 *
 * Decoding is zero-copy: roce_decode() fills a struct roce_pkt that holds
 * offsets into the caller's bytes plus a few hot fields (opcode, QPN, PSN) in
 * host order.  Everything else is read on demand through accessors.  The
 * library never allocates, prints or exits on the decode path, and never reads
 * a byte at or beyond the captured length.
 *
 * Each layer ends in one of three states: decoded, truncated (the capture
 * stopped before the layer ended) or invalid (a field contradicts the spec or
 * the lengths).  Both are kept per layer in bitmasks, and the first reason for
 * invalidity is kept as text.
 *
 * Builders write into a caller-owned buffer and return the frame length or a
 * negative roce_err.
 */
#ifndef ROCE_H
#define ROCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------ */

enum roce_err {
	ROCE_OK = 0,
	ROCE_ETRUNC = -1,   /* capture stopped before the bytes needed */
	ROCE_EINVAL = -2,   /* a field contradicts the spec or the lengths */
	ROCE_ENOSPC = -3,   /* builder: the caller's buffer is too small */
	ROCE_EUNSUP = -4,   /* link type or request not supported */
	ROCE_EARG = -5,     /* builder: an argument is out of range */
};

const char *roce_strerror(int err);

/* ---- link types (values are libpcap's LINKTYPE_*) --------------------- */

enum roce_linktype {
	ROCE_LINK_ETHERNET = 1,
	ROCE_LINK_RAW = 101,       /* raw IPv4 or IPv6 (also DLT_RAW 12/14) */
	ROCE_LINK_LINUX_SLL = 113,
	ROCE_LINK_IPV4 = 228,
	ROCE_LINK_IPV6 = 229,
	ROCE_LINK_LINUX_SLL2 = 276,
	ROCE_LINK_ERF = 197,       /* Endace ERF records (ibdump on IB ports, DAG cards) */
	ROCE_LINK_INFINIBAND = 247,/* native InfiniBand: LRH first, VCRC last */
};

/* Returns 1 when roce_decode() accepts this libpcap link type. */
int roce_linktype_supported(int linktype);

/* ---- layers ------------------------------------------------------------ */

enum roce_layer {
	ROCE_L_LINK = 0,   /* Ethernet II / SLL / SLL2 header */
	ROCE_L_VLAN,       /* 802.1Q / 802.1ad tags */
	ROCE_L_IPV4,
	ROCE_L_IPV6,
	ROCE_L_UDP,
	ROCE_L_GRH,        /* RoCEv1 global route header */
	ROCE_L_BTH,
	ROCE_L_EXT,        /* extended transport headers */
	ROCE_L_PAYLOAD,    /* payload + pad */
	ROCE_L_ICRC,
	ROCE_L_MAD,        /* CM MAD on QP1 */
	ROCE_L_TCP,
	ROCE_L_MPA,
	ROCE_L_DDP,
	ROCE_L_RDMAP,
	ROCE_L_MACCTRL,    /* 802.3x PAUSE, 802.1Qbb PFC */
	ROCE_L_CNM,        /* 802.1Qau CN-TAG / CNM */
	ROCE_L_LLDP,
	ROCE_L_FCS,
	ROCE_L_ENCAP,      /* GRE, ERSPAN, VXLAN around a mirrored frame */
	ROCE_L_LRH,        /* InfiniBand local route header (and VCRC) */
	ROCE_L_ERF,        /* ERF record header */
	ROCE_L__COUNT
};

#define ROCE_LBIT(l) (1u << (l))

const char *roce_layer_name(enum roce_layer l);

/* What the frame is, as far as libroce is concerned. */
enum roce_version {
	ROCE_VER_NONE = 0,   /* not RoCE */
	ROCE_VER_V1,         /* ethertype 0x8915 + GRH */
	ROCE_VER_V2,         /* UDP 4791 */
	ROCE_VER_V2_1021,    /* UDP 1021 (pre-WinOF 5.35 drivers) */
	ROCE_VER_V2_PORT,    /* a UDP port the caller added */
	ROCE_VER_IB,         /* native InfiniBand: LRH [GRH] BTH (LINKTYPE_INFINIBAND, ERF type 21) */
};

const char *roce_version_name(enum roce_version v); /* "v1", "v2", "v2-1021", "v2-port", "ib" */

/* ---- ethertypes, ports -------------------------------------------------- */

#define ROCE_ETH_IPV4   0x0800
#define ROCE_ETH_ARP    0x0806
#define ROCE_ETH_VLAN   0x8100
#define ROCE_ETH_QINQ   0x88a8
#define ROCE_ETH_IPV6   0x86dd
#define ROCE_ETH_MACCTL 0x8808
#define ROCE_ETH_ROCEV1 0x8915
#define ROCE_ETH_CNM    0x22e9
#define ROCE_ETH_LLDP   0x88cc

#define ROCE_UDP_PORT        4791
#define ROCE_UDP_PORT_LEGACY 1021

/* ---- decoder configuration --------------------------------------------- */

#define ROCE_CFG_MAX_PORTS 8

struct roce_cfg {
	uint16_t udp_ports[ROCE_CFG_MAX_PORTS];   /* extra RoCEv2 destination ports */
	unsigned n_udp_ports;
	uint16_t iwarp_ports[ROCE_CFG_MAX_PORTS]; /* TCP ports assumed to carry MPA FPDUs */
	unsigned n_iwarp_ports;
	unsigned no_legacy_port : 1;              /* do not treat UDP 1021 as RoCEv2 */
	/* Mirror encapsulations (lib/link/encap.c): VXLAN is looked for on UDP
	 * 4789 and 8472 and the ports added here; no_decap turns off every
	 * decapsulation (ERSPAN, GRE-TEB, VXLAN). */
	uint16_t vxlan_ports[ROCE_CFG_MAX_PORTS];
	unsigned n_vxlan_ports;
	unsigned no_default_vxlan : 1;            /* not 4789 and 8472 */
	unsigned no_decap : 1;
};

/* Adds a RoCEv2 UDP destination port; ROCE_EARG when the table is full. */
int roce_cfg_add_udp_port(struct roce_cfg *cfg, uint16_t port);
int roce_cfg_add_iwarp_port(struct roce_cfg *cfg, uint16_t port);
int roce_cfg_add_vxlan_port(struct roce_cfg *cfg, uint16_t port);

/* ---- mirror encapsulations (lib/link/encap.c) ---------------------------- */

enum roce_encap_kind {
	ROCE_ENCAP_NONE = 0,
	ROCE_ENCAP_ERSPAN1,    /* GRE 0x88BE without sequence number */
	ROCE_ENCAP_ERSPAN2,    /* GRE 0x88BE + sequence, 8-byte header (Ver 1) */
	ROCE_ENCAP_ERSPAN3,    /* GRE 0x22EB + sequence, 12-byte header (Ver 2) */
	ROCE_ENCAP_GRE_TEB,    /* GRE 0x6558, transparent Ethernet bridging */
	ROCE_ENCAP_VXLAN,      /* UDP 4789/8472 + 8-byte VXLAN header */
};
const char *roce_encap_name(enum roce_encap_kind k); /* "erspan2", "gre-teb", "vxlan", ... */

/* Frame times from ERSPAN III hardware timestamps (lib/link/mirror_time.c):
 * one clock per (hardware ID, session, granularity), anchored on the host
 * time of the first frame it stamps, its 32-bit wraps unwrapped against
 * the host clock (right while the two stay within half a wrap: 214 s at
 * 100 ns).  Zero-initialise. */
#define ROCE_MIRROR_CLOCKS 16
struct roce_mirror_clk {
	uint16_t session;
	uint8_t hwid, gra, anchored;
	uint32_t raw;              /* the anchor's hardware timestamp */
	uint64_t host_ns;          /* ... and host time */
};
struct roce_mirror_clock {
	unsigned n;
	struct roce_mirror_clk clk[ROCE_MIRROR_CLOCKS];
};
/* *ns: the frame's time by its mirror's clock (1), or host_ns (0) when it
 * carries no usable one (not ERSPAN III, granularity 3, more clocks than
 * ROCE_MIRROR_CLOCKS).  p: a decoded frame. */
struct roce_pkt;
int roce_mirror_time(struct roce_mirror_clock *c, const struct roce_pkt *p, uint64_t host_ns, uint64_t *ns);

#define ROCE_GRE_CSUM 0x8000
#define ROCE_GRE_KEY  0x2000
#define ROCE_GRE_SEQ  0x1000
#define ROCE_GRE_PROTO_ERSPAN2 0x88be
#define ROCE_GRE_PROTO_ERSPAN3 0x22eb
#define ROCE_GRE_PROTO_TEB     0x6558
#define ROCE_VXLAN_PORT        4789
#define ROCE_VXLAN_PORT_LINUX  8472

/* The mirror's own facts.  Only kind is meaningful when it is NONE (the
 * other members are then left as they were).  When kind is not NONE, the roce_pkt around it
 * describes the inner frame (data, caplen, wirelen, linktype and every
 * offset are the inner frame's, as if it had been captured directly), and
 * outer points at the captured bytes; the offsets here are from outer. */
struct roce_encap {
	uint8_t kind;              /* enum roce_encap_kind */
	uint8_t outer_ip_version;  /* 4 or 6 */
	uint8_t inner_truncated;   /* the copy is shorter than the inner frame's own lengths say */
	const uint8_t *outer;
	uint32_t outer_caplen, outer_wirelen;
	int outer_linktype;
	uint32_t outer_ip_off;
	uint32_t inner_off;        /* where the inner frame starts; 0: not decapsulated
				    * (the mirror header was cut short, invalid or of a
				    * frame type libroce does not decode: p is the outer) */
	uint32_t inner_end;        /* end of the carrying datagram on the wire */
	int inner_linktype;        /* Ethernet, or raw IP (ERSPAN III FT=2) */

	/* GRE (RFC 2784/2890) */
	uint32_t gre_off;
	uint16_t gre_flags;        /* the first 16 bits: C, K, S, version */
	uint16_t gre_proto;
	uint16_t gre_csum;
	uint32_t gre_key, gre_seq;

	/* ERSPAN II/III */
	uint32_t erspan_off;
	uint8_t erspan_ver;        /* 1 (type II), 2 (type III) */
	uint16_t erspan_vlan;
	uint8_t cos;
	uint8_t en_bso;            /* II: En (encapsulation), III: BSO */
	uint8_t trunc;             /* T: the mirror truncated the copy */
	uint16_t session;          /* SessionID / Wireshark's erspan.spanid */
	uint32_t index;            /* II */
	uint32_t timestamp;        /* III: hardware timestamp, in units of gra */
	uint16_t sgt;              /* III: security group tag */
	uint8_t p, ft, hwid, dir, gra, o;
	uint32_t platform_off;     /* III with O=1: 8-byte platform sub-header */

	/* VXLAN (RFC 7348) */
	uint32_t udp_off;
	uint32_t vxlan_off;
	uint8_t vxlan_flags;
	uint32_t vni;
};


/* ---- the decoded view --------------------------------------------------- */

struct roce_vlan {
	uint16_t tpid;     /* 0x8100 or 0x88a8 */
	uint8_t pcp;
	uint8_t dei;
	uint16_t vid;
};

/* Offsets are from the start of the captured frame; 0 means "absent"
 * (no header of interest ever starts at offset 0 except the link header,
 * whose presence is ROCE_L_LINK in .present). */
struct roce_pkt {
	const uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	int linktype;

	uint32_t present;     /* ROCE_LBIT(layer): layer was (at least partly) seen */
	uint32_t truncated;   /* layer ends beyond the captured bytes */
	uint32_t invalid;     /* layer contradicts the spec or the lengths */
	const char *why;      /* first reason for an invalid layer, or NULL */
	enum roce_layer why_layer;

	enum roce_version version;

	/* link */
	uint32_t eth_off;     /* destination MAC (Ethernet) or SLL header */
	uint16_t ethertype;   /* after the VLAN tags (protocol for SLL) */
	uint8_t n_vlan;
	uint8_t sll_pkttype;
	struct roce_vlan vlan[2];
	uint32_t trailer_off; /* bytes after the network datagram (padding/FCS) */
	uint32_t trailer_len;
	uint32_t fcs_off;     /* trailing Ethernet FCS that verified */

	/* IPv4 / IPv6 */
	uint32_t ip_off;
	uint32_t ip_end;      /* end of the datagram by its own length field */
	uint8_t ip_version;   /* 4 or 6 */
	uint8_t ip_proto;     /* after IPv6 extension headers */
	uint8_t dscp;
	uint8_t ecn;          /* 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE */
	uint8_t ip_hlen;      /* IPv4 header / IPv6 header + extensions */
	uint8_t ip_frag;      /* IPv4 MF or offset != 0, or IPv6 fragment header */
	uint8_t ttl;

	/* UDP / TCP */
	uint32_t l4_off;
	uint16_t sport;
	uint16_t dport;
	uint16_t udp_len;

	/* RoCEv1 GRH */
	uint32_t grh_off;

	/* BTH and extended headers */
	uint32_t bth_off;
	uint8_t opcode;
	uint8_t padcnt;
	uint8_t se, migreq, tver, ackreq, fecn, becn;
	uint16_t pkey;
	uint32_t dqpn;
	uint32_t psn;
	uint32_t rdeth_off, deth_off, xrceth_off, feth_off, reth_off;
	uint32_t atomiceth_off, aeth_off, atomicacketh_off, immdt_off, ieth_off;
	uint32_t payload_off;
	uint32_t payload_len; /* on the wire, pad excluded (may exceed what was captured) */
	uint32_t icrc_off;    /* where the ICRC is on the wire (may be beyond caplen) */

	/* CM MAD on QP1 */
	uint32_t mad_off;
	/* a MAD of another class (SMP on QP0, SA, PerfMgt, ... on QP1): its header */
	uint32_t mgmt_off;
	/* native IB raw packet (LNH 0): the 4-byte raw header */
	uint32_t rwh_off;
	/* IPoIB (native IB UD SEND): its 4-byte header (EtherType, reserved);
	 * the IPv4/IPv6 packet it carries is at ip_off (ip_*, l4_off, ... are
	 * the inner packet's), an ARP packet follows it */
	uint32_t ipoib_off;

	/* TCP / iWARP (issue 3 fills these) */
	uint32_t tcp_payload_off;
	uint32_t tcp_payload_len;
	uint32_t tcp_seq;
	uint32_t tcp_ack;
	uint8_t tcp_flags;
	uint32_t mpa_off;
	uint32_t ddp_off;
	uint32_t rdmap_off;

	/* DCB (issue 3 fills these) */
	uint32_t macctrl_off;
	uint32_t cnm_off;
	uint32_t lldp_off;

	/* mirror encapsulation (kind NONE for a frame captured directly);
	 * it and what follows it are not cleared for every frame: the decoder
	 * clears what comes before it, and these when it finds them */
	struct roce_encap encap;

	/* ERF record around the frame (linktype ROCE_LINK_ERF) */
	struct roce_erf {
		uint8_t present;      /* the rest is meaningful only when set */
		uint8_t type;         /* without the extension bit */
		uint8_t flags;        /* 0x03 interface, 0x04 varlen, 0x08 truncated, 0x10 rx error, 0x20 DS error */
		uint8_t n_ext;        /* extension headers */
		uint16_t rlen, lctr, wlen;
		uint64_t ts;          /* seconds << 32 | binary fraction */
		const uint8_t *rec;   /* the record (its header) */
		uint32_t hdr_len;     /* 16 + 8 * n_ext (+ 2 pad for Ethernet) */
		uint8_t fcs_status;   /* Ethernet: enum roce_icrc_status of the FCS, which is stripped */
		uint32_t fcs;         /* as on the wire, little-endian */
	} erf;

	/* native InfiniBand (version ROCE_VER_IB, or an IB link packet): the
	 * LRH is at offset 0 when ROCE_L_LRH is present; a GRH (LNH 3) is at
	 * grh_off; the VCRC follows the ICRC.  Meaningful only when ROCE_L_LRH
	 * is present (kept out of what the decoder clears for every frame) */
	uint8_t vl, lver, sl, lnh;
	uint16_t dlid, slid;
	uint16_t pktlen;      /* LRH PktLen, in 4-byte words (LRH .. ICRC) */
	uint32_t vcrc_off;    /* where the VCRC is on the wire (may be beyond caplen) */
	uint8_t ib_link;      /* an IB link (flow control) packet, not a data packet */
};

/* Decodes one captured frame.  cfg may be NULL (4791 and 1021).
 * Returns ROCE_OK when every layer present decoded, else ROCE_ETRUNC or
 * ROCE_EINVAL for the first problem; p is filled as far as the bytes go in
 * every case.  Frames that are not RoCE/iWARP/DCB return ROCE_OK with
 * p->version == ROCE_VER_NONE and only the lower layers filled. */
int roce_decode(struct roce_pkt *p, const struct roce_cfg *cfg, int linktype,
		const uint8_t *data, uint32_t caplen, uint32_t wirelen);

/* The packet's network source and destination addresses: IPv4 (4 bytes),
 * IPv6 or a RoCEv1 GRH's GIDs (16 bytes), pointing into the frame.  Returns
 * the address length, or 0 when the frame has none or they were not
 * captured. */
int roce_pkt_addrs(const struct roce_pkt *p, const uint8_t **src, const uint8_t **dst);

/* ---- splitting a capture across threads (lib/link/fanout.c) ------------ */

/* A key both directions of a conversation share: the XOR of the frame's
 * network source and destination addresses (IPv4, IPv6, a RoCEv1 GRH's
 * GIDs, InfiniBand LIDs), mixed.  Outer headers only (a mirror copy is keyed
 * on its tunnel's end points); 0 for frames without addresses (PFC, LLDP,
 * ARP), ERF records and frames too short for their addresses. */
uint32_t roce_flow_key(int linktype, const uint8_t *data, uint32_t caplen);

/* One classic BPF instruction, laid out as struct sock_filter. */
struct roce_bpf_insn {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};
/* The same key on a socket buffer, as a classic BPF program for a
 * PACKET_FANOUT_CBPF group (the kernel takes its value modulo the group's
 * sockets): Ethernet-borne IPv4, IPv6 and RoCEv1 (it reads skb->protocol
 * and loads relative to the network header, so VLAN tags do not matter).
 * Writes the program into v; returns its length, or -1 when cap is short. */
int roce_fanout_cbpf(struct roce_bpf_insn *v, unsigned cap);

/* ---- BTH opcodes -------------------------------------------------------- */

enum roce_transport {
	ROCE_TR_RC = 0x00,
	ROCE_TR_UC = 0x20,
	ROCE_TR_RD = 0x40,
	ROCE_TR_UD = 0x60,
	ROCE_TR_CNP = 0x80,
	ROCE_TR_XRC = 0xa0,
};

/* Low five opcode bits (IBTA 9.2, Linux include/rdma/ib_pack.h) */
enum roce_op {
	ROCE_OP_SEND_FIRST = 0x00,
	ROCE_OP_SEND_MIDDLE = 0x01,
	ROCE_OP_SEND_LAST = 0x02,
	ROCE_OP_SEND_LAST_IMM = 0x03,
	ROCE_OP_SEND_ONLY = 0x04,
	ROCE_OP_SEND_ONLY_IMM = 0x05,
	ROCE_OP_WRITE_FIRST = 0x06,
	ROCE_OP_WRITE_MIDDLE = 0x07,
	ROCE_OP_WRITE_LAST = 0x08,
	ROCE_OP_WRITE_LAST_IMM = 0x09,
	ROCE_OP_WRITE_ONLY = 0x0a,
	ROCE_OP_WRITE_ONLY_IMM = 0x0b,
	ROCE_OP_READ_REQUEST = 0x0c,
	ROCE_OP_READ_RESP_FIRST = 0x0d,
	ROCE_OP_READ_RESP_MIDDLE = 0x0e,
	ROCE_OP_READ_RESP_LAST = 0x0f,
	ROCE_OP_READ_RESP_ONLY = 0x10,
	ROCE_OP_ACK = 0x11,
	ROCE_OP_ATOMIC_ACK = 0x12,
	ROCE_OP_CMP_SWAP = 0x13,
	ROCE_OP_FETCH_ADD = 0x14,
	ROCE_OP_RESYNC = 0x15,          /* RD only */
	ROCE_OP_SEND_LAST_INV = 0x16,
	ROCE_OP_SEND_ONLY_INV = 0x17,
	ROCE_OP_FLUSH = 0x1c,
	ROCE_OP_ATOMIC_WRITE = 0x1d,
};

#define ROCE_OPCODE_CNP 0x81    /* RoCEv2 CNP (IBTA annex A17): BTH, 16 reserved bytes */
#define ROCE_OPCODE_CNP_IB 0x80 /* InfiniBand CNP (IBTA annex A10): BTH only, BECN set */

/* Extended headers, in wire order */
enum roce_hdr {
	ROCE_H_RDETH = 1u << 0,
	ROCE_H_DETH = 1u << 1,
	ROCE_H_XRCETH = 1u << 2,
	ROCE_H_FETH = 1u << 3,
	ROCE_H_RETH = 1u << 4,
	ROCE_H_ATOMICETH = 1u << 5,
	ROCE_H_AETH = 1u << 6,
	ROCE_H_ATOMICACKETH = 1u << 7,
	ROCE_H_IMMDT = 1u << 8,
	ROCE_H_IETH = 1u << 9,
	ROCE_H_PAYLOAD = 1u << 10,     /* the opcode carries a payload */
	ROCE_H_CNP_RSVD = 1u << 11,    /* CNP: 16 reserved bytes */
};

#define ROCE_BTH_LEN 12
#define ROCE_GRH_LEN 40
#define ROCE_RDETH_LEN 4
#define ROCE_DETH_LEN 8
#define ROCE_XRCETH_LEN 4
#define ROCE_FETH_LEN 4
#define ROCE_RETH_LEN 16
#define ROCE_ATOMICETH_LEN 28
#define ROCE_AETH_LEN 4
#define ROCE_ATOMICACKETH_LEN 8
#define ROCE_IMMDT_LEN 4
#define ROCE_IETH_LEN 4
#define ROCE_CNP_RSVD_LEN 16
#define ROCE_ICRC_LEN 4

enum roce_opkind {
	ROCE_OK_SEND,
	ROCE_OK_WRITE,
	ROCE_OK_READ_REQ,
	ROCE_OK_READ_RESP,
	ROCE_OK_ACK,
	ROCE_OK_ATOMIC,
	ROCE_OK_ATOMIC_ACK,
	ROCE_OK_FLUSH,
	ROCE_OK_ATOMIC_WRITE,
	ROCE_OK_RESYNC,
	ROCE_OK_CNP,
};

/* Position of a packet in its message */
enum roce_seg {
	ROCE_SEG_ONLY,
	ROCE_SEG_FIRST,
	ROCE_SEG_MIDDLE,
	ROCE_SEG_LAST,
};

struct roce_opinfo {
	const char *name;       /* "RC SEND_ONLY" */
	uint16_t hdrs;          /* ROCE_H_* */
	uint8_t kind;           /* enum roce_opkind */
	uint8_t seg;            /* enum roce_seg */
	uint8_t is_request;     /* sent by the requester (needs a PSN slot) */
};

/* NULL for a reserved/unknown opcode. */
const struct roce_opinfo *roce_opcode_info(uint8_t opcode);
/* Name, or "0xNN" style text written into a static per-opcode table. */
const char *roce_opcode_name(uint8_t opcode);
/* Sum of the extended header lengths for a set of ROCE_H_* flags. */
unsigned roce_ext_len(uint16_t hdrs);

/* A congestion notification packet: RoCEv2's 0x81 or InfiniBand's 0x80. */
static inline int roce_opcode_is_cnp(uint8_t opcode)
{
	return opcode == ROCE_OPCODE_CNP || opcode == ROCE_OPCODE_CNP_IB;
}

/* The congestion mark the analysis counts as ecn_ce: on RoCE the IP header's
 * (RoCEv1: the GRH's) ECN Congestion Experienced; on native InfiniBand, whose
 * GRH traffic class carries no ECN, BTH FECN (a switch marked the packet on
 * its way) or BECN (the destination echoes a mark on a response).  A CNP is
 * a CNP, not a mark. */
static inline int roce_pkt_ce(const struct roce_pkt *p)
{
	if (p->version == ROCE_VER_IB)
		return !roce_opcode_is_cnp(p->opcode) && (p->fecn || p->becn);
	return p->ecn == 3;
}

/* ---- accessors (caller checks the offset is non-zero) ------------------- */

uint64_t roce_reth_va(const struct roce_pkt *p);
uint32_t roce_reth_rkey(const struct roce_pkt *p);
uint32_t roce_reth_dmalen(const struct roce_pkt *p);
uint8_t roce_aeth_syndrome(const struct roce_pkt *p);
uint32_t roce_aeth_msn(const struct roce_pkt *p);
uint32_t roce_deth_qkey(const struct roce_pkt *p);
uint32_t roce_deth_srcqp(const struct roce_pkt *p);
uint32_t roce_rdeth_eecnxt(const struct roce_pkt *p);
uint32_t roce_xrceth_srq(const struct roce_pkt *p);
uint32_t roce_feth_word(const struct roce_pkt *p);
uint64_t roce_atomiceth_va(const struct roce_pkt *p);
uint32_t roce_atomiceth_rkey(const struct roce_pkt *p);
uint64_t roce_atomiceth_swap(const struct roce_pkt *p);
uint64_t roce_atomiceth_cmp(const struct roce_pkt *p);
uint64_t roce_atomicacketh_orig(const struct roce_pkt *p);
uint32_t roce_immdt(const struct roce_pkt *p);
uint32_t roce_ieth_rkey(const struct roce_pkt *p);

/* AETH syndrome */
enum roce_aeth_type {
	ROCE_AETH_ACK = 0,
	ROCE_AETH_RNR_NAK = 1,
	ROCE_AETH_RESERVED = 2,
	ROCE_AETH_NAK = 3,
};
#define ROCE_AETH_TYPE(syn) (((syn) >> 5) & 3)
#define ROCE_AETH_VALUE(syn) ((syn) & 0x1f)
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,
	ROCE_NAK_INVALID_REQ = 1,
	ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3,
	ROCE_NAK_INVALID_RD_REQ = 4,
};
const char *roce_nak_name(uint8_t code);
/* RNR timer code (0..31) to microseconds (IBTA table 45). */
uint32_t roce_rnr_timer_us(uint8_t code);

/* PSN arithmetic on 24-bit sequence numbers */
static inline int roce_psn_before(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) < 0;
}
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* ---- CRC and ICRC ------------------------------------------------------ */

/* zlib-compatible CRC-32: crc starts at 0, chains like zlib's crc32(). */
uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len);
/* CRC-32C (Castagnoli), same chaining convention (start at 0). */
uint32_t roce_crc32c(uint32_t crc, const void *buf, size_t len);
/* The portable implementations, exported so tests can compare. */
uint32_t roce_crc32_portable(uint32_t crc, const void *buf, size_t len);
uint32_t roce_crc32c_portable(uint32_t crc, const void *buf, size_t len);
/* Names of the implementations chosen at run time: CRC-32 "vpclmul",
 * "vpclmul-avx2", "pclmul" or "slice8"; CRC-32C "sse4.2" (three streams),
 * "sse4.2x1" or "slice8". */
const char *roce_crc32_impl(void);
const char *roce_crc32c_impl(void);
/* Force the portable implementations (for tests and benchmarks). */
void roce_crc_force_portable(int on);

enum roce_icrc_status {
	ROCE_ICRC_UNCHECKED = 0,   /* not RoCE, or the frame is truncated before the ICRC */
	ROCE_ICRC_GOOD,
	ROCE_ICRC_BAD,
};
const char *roce_icrc_status_name(enum roce_icrc_status s); /* "unchecked", "good", "bad" */

/* Computes the ICRC of a decoded RoCE frame (v1 or v2); ROCE_ETRUNC when
 * the bytes it covers were not all captured. */
int roce_icrc_compute(const struct roce_pkt *p, uint32_t *icrc);
/* The ICRC as it is on the wire (little-endian), or ROCE_ETRUNC. */
int roce_icrc_wire(const struct roce_pkt *p, uint32_t *icrc);
enum roce_icrc_status roce_icrc_verify(const struct roce_pkt *p, uint32_t *computed);

/* Computes the ICRC over a RoCE packet starting at its IP header (v2, ip_off)
 * or GRH (v1) and ending before the ICRC; used by builders. */
uint32_t roce_icrc_raw(int v1, const uint8_t *l3, size_t len);

/* InfiniBand VCRC (CRC-16, polynomial 0x100B, seed 0xFFFF, inverted) over
 * LRH .. ICRC, and its check on a native IB packet (unchecked when not
 * captured or not IB). */
uint16_t roce_vcrc16(const void *buf, size_t len);
enum roce_icrc_status roce_vcrc_verify(const struct roce_pkt *p, uint16_t *computed);

/* ---- CM MADs (QP1) ------------------------------------------------------ */

#define ROCE_MAD_LEN 256
#define ROCE_MAD_HDR_LEN 24
#define ROCE_CM_QKEY 0x80010000u
#define ROCE_MGMT_CLASS_CM 0x07

enum roce_cm_attr {
	ROCE_CM_REQ = 0x0010,
	ROCE_CM_MRA = 0x0011,
	ROCE_CM_REJ = 0x0012,
	ROCE_CM_REP = 0x0013,
	ROCE_CM_RTU = 0x0014,
	ROCE_CM_DREQ = 0x0015,
	ROCE_CM_DREP = 0x0016,
	ROCE_CM_SIDR_REQ = 0x0017,
	ROCE_CM_SIDR_REP = 0x0018,
};
const char *roce_cm_attr_name(uint16_t attr); /* "REQ", … or NULL */

/* Everything libroce reads from a CM MAD, in host order.  Fields that the
 * message type does not have stay 0. */
struct roce_cm {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;

	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint64_t service_id;
	uint64_t ca_guid;
	uint32_t qkey;
	uint32_t local_qpn;
	uint32_t remote_qpn;        /* DREQ */
	uint8_t resp_resources;
	uint8_t init_depth;
	uint32_t start_psn;
	uint8_t local_resp_timeout;
	uint8_t remote_resp_timeout;
	uint8_t transport;          /* REQ: 0 RC, 1 UC, 3 XRC */
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint16_t pkey;
	uint8_t path_mtu;           /* IB enum: 1=256 .. 5=4096 */
	uint8_t local_ack_timeout;
	uint8_t target_ack_delay;
	uint8_t srq;
	uint8_t primary_local_gid[16];
	uint8_t primary_remote_gid[16];
	uint8_t rej_reason_valid;
	uint16_t rej_reason;
	uint8_t msg_mraed;          /* MRA/REJ: which message */
	uint8_t service_timeout;    /* MRA */
	uint32_t sidr_request_id;
	uint8_t sidr_status;

	/* rdma_cm private-data header (REQ and SIDR_REQ) */
	uint8_t has_ip_hdr;
	uint8_t ip_major, ip_minor, ip_version; /* ip_version 4 or 6 */
	uint16_t ip_sport;
	uint8_t ip_src[16];         /* IPv4 in the last four bytes */
	uint8_t ip_dst[16];

	/* The consumer's private data in the frame: after rdma_cm's 36-byte
	 * header when has_ip_hdr is set (the same split roce_build_cm() takes). */
	uint32_t private_off;
	uint32_t private_len;       /* as captured */
};

/* Fills cm from a packet whose .mad_off is set.  ROCE_ETRUNC (what was
 * captured is filled in) / ROCE_EINVAL when the MAD is short or not CM;
 * ROCE_EUNSUP for a CM attribute it does not decode (LAP, APR). */
int roce_cm_decode(const struct roce_pkt *p, struct roce_cm *cm);

/* ---- the field walker -------------------------------------------------- */

enum roce_ftype {
	ROCE_F_UINT,     /* u */
	ROCE_F_BOOL,     /* u (0/1) */
	ROCE_F_STR,      /* s */
	ROCE_F_IPV4,     /* b, 4 bytes */
	ROCE_F_IPV6,     /* b, 16 bytes */
	ROCE_F_MAC,      /* b, 6 bytes */
	ROCE_F_BYTES,    /* b, len */
	ROCE_F_INT,      /* u holds an int64_t */
	ROCE_F_TEXT,     /* b, len: text from the frame, not NUL-terminated */
};

struct roce_field {
	const char *key;     /* Wireshark's field name, or "roce.…" */
	enum roce_ftype type;
	uint64_t u;
	const char *s;
	const uint8_t *b;
	uint32_t len;
};

typedef void (*roce_field_cb)(void *ctx, const struct roce_field *f);

/* Calls cb for every decoded field of p in wire order.  Never reads past
 * the captured bytes; fields of truncated layers are given as far as they
 * were captured.  The ICRC is verified and its status given.  A field's s
 * and b point into the frame or at static storage: they stay valid as long
 * as the frame's bytes do (callers may keep fields after the call). */
void roce_foreach_field(const struct roce_pkt *p, roce_field_cb cb, void *ctx);

/* roce_foreach_field() with flags; roce_foreach_field(p, cb, ctx) is flags 0.
 * ROCE_FIELDS_NO_FPDU: no fields of the FPDUs found in this one TCP segment
 * (iwarp_mpa.ulpdulength/pad/crc/markers, iwarp_ddp.*, iwarp_rdma.*, their
 * roce.mpa.crc.* / roce.ddp.* / roce.rdmap.*), for a caller that reassembles
 * the connection with struct roce_mpa_stream and gives each FPDU's fields
 * itself (roce_mpa_stream_fpdu_fields); TCP fields and the MPA request/reply
 * frame fields are still given. */
#define ROCE_FIELDS_NO_FPDU 0x1
void roce_foreach_field_flags(const struct roce_pkt *p, unsigned flags, roce_field_cb cb, void *ctx);

/* One tcpdump-like line describing the frame above the link layer, without
 * the timestamp.  Returns the length written (truncated to cap - 1). */
size_t roce_summary(const struct roce_pkt *p, char *buf, size_t cap);
/* The same with ROCE_FIELDS_* flags: ROCE_FIELDS_NO_FPDU leaves out the iWARP
 * FPDUs (for callers that list them from a reassembled stream). */
size_t roce_summary_flags(const struct roce_pkt *p, unsigned flags, char *buf, size_t cap);

/* ---- builders ------------------------------------------------------------ */

struct roce_eth_spec {
	uint8_t dst[6];
	uint8_t src[6];
	uint8_t n_vlan;            /* 0..2 */
	struct roce_vlan vlan[2];  /* outer first; tpid 0 means 0x8100 (0x88a8 outer when 2) */
};

struct roce_ip_spec {
	uint8_t version;           /* 4 or 6 */
	uint8_t src[16];           /* IPv4 in the first four bytes */
	uint8_t dst[16];
	uint8_t dscp;
	uint8_t ecn;
	uint8_t ttl;               /* hop limit; 0 means 64 */
	uint16_t ip_id;
	uint8_t dont_fragment;     /* IPv4 DF */
	uint32_t flow_label;       /* IPv6 / GRH */
};

/* Extended-header values; only the ones the opcode carries are written. */
struct roce_ext_spec {
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
	uint64_t swap_add;
	uint64_t compare;
	uint64_t orig;             /* AtomicAckETH */
	uint8_t syndrome;          /* AETH */
	uint32_t msn;
	uint32_t qkey;             /* DETH */
	uint32_t src_qp;
	uint32_t eecnxt;           /* RDETH */
	uint32_t xrc_srq;          /* XRCETH */
	uint32_t feth;             /* FLUSH: selectivity/placement word */
	uint32_t imm;
	uint32_t inv_rkey;         /* IETH */
};

struct roce_bth_spec {
	uint8_t opcode;
	uint8_t se, migreq, tver, ackreq, fecn, becn;
	uint16_t pkey;             /* 0 means 0xffff */
	uint32_t dqpn;
	uint32_t psn;
	int pad;                   /* -1: derive from payload length */
};

struct roce_frame_spec {
	enum roce_version version; /* V1, V2, V2_1021, V2_PORT */
	struct roce_eth_spec eth;
	struct roce_ip_spec ip;    /* for v1: the GRH (version must be 6) */
	uint16_t sport;            /* UDP source port; 0 means 0xc000 */
	uint16_t dport;            /* for V2_PORT */
	uint8_t udp_checksum;      /* 1: compute the UDP checksum (else 0) */
	struct roce_bth_spec bth;
	struct roce_ext_spec ext;
	const uint8_t *payload;
	uint32_t payload_len;
	uint8_t bad_icrc;          /* write a wrong ICRC on purpose */
	uint8_t fcs;               /* append an Ethernet FCS */
};

/* Builds a whole Ethernet frame; returns its length or a negative roce_err. */
int roce_build(uint8_t *dst, size_t cap, const struct roce_frame_spec *spec);

/* Mirror encapsulation: writes outer Ethernet + IP + GRE/ERSPAN or
 * UDP/VXLAN around the inner frame (an Ethernet frame, or for ERSPAN III
 * FT=2 an IP packet) into dst; returns the whole length or a negative
 * roce_err.  dst and inner may not overlap. */
struct roce_encap_spec {
	enum roce_encap_kind kind;
	struct roce_eth_spec eth;      /* outer Ethernet (VLAN/QinQ tags allowed) */
	struct roce_ip_spec ip;        /* outer IPv4 or IPv6 */
	uint8_t gre_key_present, gre_csum_present;
	uint32_t gre_key;
	uint32_t gre_seq;              /* ERSPAN II/III always carry one */
	uint16_t session;              /* ERSPAN session ID (10 bits) */
	uint16_t erspan_vlan;          /* 12 bits */
	uint8_t cos, trunc, en_bso, dir, gra, hwid;
	uint16_t sgt;
	uint32_t index;                /* ERSPAN II (20 bits) */
	uint32_t timestamp;            /* ERSPAN III */
	uint8_t ft;                    /* ERSPAN III: 0 Ethernet inside, 2 IP (inner starts at IP) */
	uint8_t platform_present;      /* ERSPAN III: O=1, 8 bytes below */
	uint8_t platform[8];
	uint32_t vni;                  /* VXLAN, 24 bits */
	uint16_t vxlan_sport;          /* 0: derived from the inner frame */
	uint16_t vxlan_dport;          /* 0: 4789 */
};
int roce_build_encap(uint8_t *dst, size_t cap, const struct roce_encap_spec *spec,
		     const uint8_t *inner, uint32_t inner_len);

/* Native InfiniBand: the same packet as roce_build() makes for RoCEv1
 * (spec->version must be ROCE_VER_V1 when grh is set; its GRH is kept as
 * the IB GRH, LNH 3), or without GRH (LNH 2), behind an LRH, with the IB
 * ICRC and the VCRC.  Returns the length or a negative roce_err. */
struct roce_lrh_spec {
	uint8_t vl, sl;
	uint16_t dlid, slid;
	uint8_t grh;               /* 1: LNH 3, keep the GRH */
};
int roce_build_ib(uint8_t *dst, size_t cap, const struct roce_frame_spec *spec,
		  const struct roce_lrh_spec *lrh);
/* Re-heads a decoded RoCE packet (v1 or v2) as native InfiniBand: the
 * LRH of lrh (LNH 3 with a GRH made from the GRH or IP header when
 * lrh->grh), the BTH .. payload as captured (IP CE becomes BTH FECN, the
 * RoCEv2 CNP opcode 0x81 IB's 0x80 without its 16 reserved bytes), a new ICRC (inverted when the
 * original's was bad) and the VCRC.  Returns the bytes written: fewer than
 * *wire, the packet's whole length, when the original was truncated (then
 * without ICRC and VCRC).  ROCE_EINVAL when p is not a RoCE packet that IB
 * can carry (its BTH .. ICRC not a whole number of words). */
int roce_build_ib_from(uint8_t *dst, size_t cap, const struct roce_pkt *p,
		       const struct roce_lrh_spec *lrh, uint32_t *wire);

/* IPoIB (RFC 4391) as native IB: a UD SEND_ONLY (spec's DestQP, DETH
 * Q_Key and source QP, addresses for the GRH when lrh->grh) carrying the
 * 4-byte IPoIB header (ethertype, reserved 0) and the datagram; returns
 * the length or a negative roce_err. */
int roce_build_ipoib(uint8_t *dst, size_t cap, const struct roce_frame_spec *spec,
		     const struct roce_lrh_spec *lrh, uint16_t ethertype, const uint8_t *dgram, uint32_t len);
/* An ARP packet over IPoIB (hardware type 32, 20-byte hardware addresses:
 * flags and QPN, then the port GID); op 1 request, 2 reply.  Returns 56. */
int roce_build_ipoib_arp(uint8_t *dst, size_t cap, uint16_t op, const uint8_t sha[20], const uint8_t spa[4],
			 const uint8_t tha[20], const uint8_t tpa[4]);

/* An ERF record: type 2 (Ethernet: 2 pad bytes, the frame, its FCS
 * computed and appended), 21 (InfiniBand) or 25 (IB link packet); ts as
 * in ERF (seconds << 32 | binary fraction); lctr the loss counter; the
 * frame is cut to caplen bytes with the truncated flag set when caplen <
 * len.  Returns the record length. */
int roce_build_erf(uint8_t *dst, size_t cap, uint8_t type, uint64_t ts, uint16_t lctr,
		   const uint8_t *frame, uint32_t len, uint32_t caplen);

/* A CM MAD (256 bytes) for the payload of a UD SEND_ONLY to QP1. */
int roce_build_cm(uint8_t *dst, size_t cap, const struct roce_cm *cm,
		  const uint8_t *private_data, size_t private_len);

/* Fills the fixed parts of a CNP frame spec for throttled QP dqpn. */
void roce_spec_cnp(struct roce_frame_spec *spec, uint32_t dqpn);

/* Template + patch: build once, then change PSN/QPN/payload and refresh. */
struct roce_tmpl {
	uint8_t *frame;
	size_t cap;
	uint32_t len;
	uint32_t ip_off, l4_off, bth_off, payload_off, icrc_off;
	uint8_t version, ip_version, udp_checksum, fcs;
};

int roce_tmpl_init(struct roce_tmpl *t, uint8_t *buf, size_t cap,
		   const struct roce_frame_spec *spec);
void roce_tmpl_set_psn(struct roce_tmpl *t, uint32_t psn);
void roce_tmpl_set_dqpn(struct roce_tmpl *t, uint32_t dqpn);
/* Replaces the payload bytes (same length only). */
int roce_tmpl_set_payload(struct roce_tmpl *t, const uint8_t *payload, uint32_t len);
/* Recomputes ICRC (and UDP checksum / FCS when the template has them). */
void roce_tmpl_refresh(struct roce_tmpl *t);

/* Internet checksum (RFC 1071).  16-bit words are read big-endian; an odd
 * trailing byte is padded with a zero on the right.  sum is added before
 * folding: 0, a partial sum of big-endian words (a pseudo-header), or
 * (uint16_t)~roce_inet_csum() of an even-length earlier piece to chain.
 * Returns the complemented folded sum: the value to store in a checksum
 * field, or 0 when verifying data whose correct checksum field is included. */
uint16_t roce_inet_csum(const void *buf, size_t len, uint32_t sum);

#ifdef __cplusplus
}
#endif

/* iWARP (MPA, DDP, RDMAP) and DCB (PAUSE, PFC, QCN, LLDP/DCBX) */
#include "iwarp.h"
#include "dcb.h"
/* RC sequence analysis (shared by rocetop and the Wireshark plugin) and the
 * user-space RC transport engine (rocegen) */
#include "seq.h"
#include "qp.h"

#endif /* ROCE_H */
