/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mad.c — Communication Management MADs on QP1 (IBTA vol 1 ch. 12, 13.4).
 *
 * A CM message is the 256-byte payload of a UD SEND to QP1 (Q_Key
 * 0x80010000): the 24-byte MAD common header (IBTA 13.4.2), then one
 * attribute whose layout is fixed by its attribute ID (IBTA tables 99-121;
 * Linux include/rdma/ibta_vol1_c12.h gives every offset):
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +---------------+---------------+---------------+---------------+
 *   | BaseVersion=1 | MgmtClass=07h | ClassVersion=2|R|   Method    |
 *   +---------------+---------------+---------------+---------------+
 *   |            Status             |         ClassSpecific         |
 *   +---------------+---------------+---------------+---------------+
 *   |                     TransactionID (64)                        |
 *   +---------------+---------------+---------------+---------------+
 *   |          AttributeID          |           Reserved            |
 *   +---------------+---------------+---------------+---------------+
 *   |                     AttributeModifier                         |
 *   +---------------+---------------+---------------+---------------+
 *   |       attribute (232 bytes): REQ 0x10, MRA 0x11, REJ 0x12,     |
 *   |       REP 0x13, RTU 0x14, DREQ 0x15, DREP 0x16,                |
 *   |       SIDR_REQ 0x17, SIDR_REP 0x18 ... private data            |
 *   +---------------------------------------------------------------+
 *
 * REQ, the largest, after the header (byte offsets in the attribute):
 *    0 LocalCommID   8 ServiceID   16 LocalCAGUID   28 LocalQ_Key
 *   32 LocalQPN:24 ResponderResources:8   36 LocalEECN:24 InitiatorDepth:8
 *   40 RemoteEECN:24 RemoteCMRespTimeout:5 TransportType:2 E2EFlowCtrl:1
 *   44 StartingPSN:24 LocalCMRespTimeout:5 RetryCount:3   48 P_Key
 *   50 PathMTU:4 RDCExists:1 RNRRetry:3   51 MaxCMRetries:4 SRQ:1 ExtTransport:3
 *   52 primary path (LIDs, GIDs, flow label, packet rate, TC, hop limit,
 *      SL, subnet local, local ACK timeout: 44 bytes)   96 alternate path
 *  140 private data (92 bytes)
 *
 * rdma_cm puts its own 36-byte header at the start of the REQ and SIDR_REQ
 * private data when the service ID is in an RDMA port space
 * (0x00000000_PPPP_pppp, PPPP one of IPoIB 0x0002, TCP 0x0106, UDP 0x0111,
 * IB 0x013F, pppp the port):
 *
 *   | version (major:4 minor:4) | IPVer:4 rsvd:4 | source port (16)       |
 *   | source IP (16 bytes, IPv4 in the last four)                         |
 *   | destination IP (16 bytes, IPv4 in the last four)                    |
 *
 * Every wire field is described once, in the tables below; the decoder,
 * the builder and the field walker all use those tables, so they cannot
 * disagree about an offset.  Field values are given as Wireshark 4.0 shows
 * them (masked and shifted), under Wireshark's names where it has the field
 * (it does not dissect MRA or SIDR) and under roce.cm.* otherwise.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include "internal.h"

#define HDR ROCE_MAD_HDR_LEN     /* attribute offsets are counted from here */
#define CMA_HDR_LEN 36           /* rdma_cm's private-data header */
#define NODST 0xffff

enum fkind {
	FK_UINT,   /* width 1..8 bytes, then (v >> shift) & mask */
	FK_GID,    /* 16 bytes; shown as IPv4 (last 4) in an IPv4 frame */
	FK_BYTES,  /* width bytes */
};

struct cm_field {
	uint8_t off;        /* from the start of the MAD */
	uint8_t width;      /* bytes */
	uint8_t shift;
	uint8_t kind;       /* enum fkind */
	uint32_t mask;      /* after the shift; 0 = whole width */
	uint16_t dst;       /* offsetof(struct roce_cm, …) or NODST */
	uint8_t dsz;        /* size of that member */
	uint8_t ipcm;       /* a view Wireshark adds for IP CM service IDs only */
	uint16_t dflt;      /* builder: value for a field with no member */
	const char *key;    /* field name */
	const char *key4;   /* FK_GID: Wireshark's name for it in an IPv4 frame */
};

#define M(member) offsetof(struct roce_cm, member), sizeof(((struct roce_cm *)0)->member)
#define NOM NODST, 0
/* U(offset in attribute, width, shift, mask, member-or-NOM, default, key) */
#define U(o, w, s, m, d, def, k) { HDR + (o), (w), (s), FK_UINT, (m), d, 0, (def), (k), NULL }
#define G(o, d, k) { HDR + (o), 16, 0, FK_GID, 0, d, 0, 0, (k), k "_ipv4" }
#define B(o, w, k) { HDR + (o), (w), 0, FK_BYTES, 0, NOM, 0, 0, (k), NULL }
/* Wireshark's split of an IP CM service ID: prefix 5, protocol 1, port 2 */
#define SID_IPCM \
	{ HDR + 8, 5, 0, FK_BYTES, 0, NOM, 1, 0, "infiniband.cm.req.serviceid.prefix", NULL }, \
	{ HDR + 13, 1, 0, FK_UINT, 0, NOM, 1, 0, "infiniband.cm.req.serviceid.protocol", NULL }, \
	{ HDR + 14, 2, 0, FK_UINT, 0, NOM, 1, 0, "infiniband.cm.req.serviceid.dport", NULL }

/* IBTA 13.4.2 MAD common header (offsets from the MAD start). */
static const struct cm_field mad_hdr[] = {
	{ 0, 1, 0, FK_UINT, 0, M(base_version), 0, 1, "infiniband.mad.baseversion", NULL },
	{ 1, 1, 0, FK_UINT, 0, M(mgmt_class), 0, 7, "infiniband.mad.mgmtclass", NULL },
	{ 2, 1, 0, FK_UINT, 0, M(class_version), 0, 2, "infiniband.mad.classversion", NULL },
	{ 3, 1, 0, FK_UINT, 0, M(method), 0, 3, "infiniband.mad.method", NULL },
	{ 4, 2, 0, FK_UINT, 0, M(status), 0, 0, "infiniband.mad.status", NULL },
	{ 6, 2, 0, FK_UINT, 0, NOM, 0, 0, "infiniband.mad.classspecific", NULL },
	{ 8, 8, 0, FK_UINT, 0, M(tid), 0, 0, "infiniband.mad.transactionid", NULL },
	{ 16, 2, 0, FK_UINT, 0, M(attr_id), 0, 0, "infiniband.mad.attributeid", NULL },
	{ 20, 4, 0, FK_UINT, 0, M(attr_mod), 0, 0, "infiniband.mad.attributemodifier", NULL },
};

/* IBTA table 99, REQ.  On RoCE, Linux sets the LIDs to the permissive
 * 0xFFFF, hop limit 64 and 15 CM retries (seen on rdma_rxe): the builder
 * writes those for the fields struct roce_cm has no member for. */
static const struct cm_field req_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "infiniband.cm.req"),
	U(8, 8, 0, 0, M(service_id), 0, "infiniband.cm.req.serviceid"),
	SID_IPCM,
	U(16, 8, 0, 0, M(ca_guid), 0, "infiniband.cm.req.localcaguid"),
	U(28, 4, 0, 0, M(qkey), 0, "infiniband.cm.req.localqkey"),
	U(32, 3, 0, 0, M(local_qpn), 0, "infiniband.cm.req.localqpn"),
	U(35, 1, 0, 0, M(resp_resources), 0, "infiniband.cm.req.responderres"),
	U(36, 3, 0, 0, NOM, 0, "infiniband.cm.req.localeecn"),
	U(39, 1, 0, 0, M(init_depth), 0, "infiniband.cm.req.initdepth"),
	U(40, 3, 0, 0, NOM, 0, "infiniband.cm.req.remoteeecn"),
	U(43, 1, 3, 0x1f, M(remote_resp_timeout), 0, "infiniband.cm.req.remoteresptout"),
	U(43, 1, 1, 0x3, M(transport), 0, "infiniband.cm.req.transpsvctype"),
	U(43, 1, 0, 0x1, NOM, 0, "infiniband.cm.req.e2eflowctrl"),
	U(44, 3, 0, 0, M(start_psn), 0, "infiniband.cm.req.startpsn"),
	U(47, 1, 3, 0x1f, M(local_resp_timeout), 0, "infiniband.cm.req.localresptout"),
	U(47, 1, 0, 0x7, M(retry_count), 0, "infiniband.cm.req.retrcount"),
	U(48, 2, 0, 0, M(pkey), 0, "infiniband.cm.req.pkey"),
	U(50, 1, 4, 0xf, M(path_mtu), 0, "infiniband.cm.req.pppmtu"),
	U(50, 1, 3, 0x1, NOM, 0, "infiniband.cm.req.rdcexist"),
	U(50, 1, 0, 0x7, M(rnr_retry_count), 0, "infiniband.cm.req.rnrretrcount"),
	U(51, 1, 4, 0xf, NOM, 15, "infiniband.cm.req.maxcmretr"),
	U(51, 1, 3, 0x1, M(srq), 0, "infiniband.cm.req.srq"),
	U(51, 1, 0, 0x7, NOM, 0, "infiniband.cm.req.ext_transport"),
	U(52, 2, 0, 0, NOM, 0xffff, "infiniband.cm.req.prim_locallid"),
	U(54, 2, 0, 0, NOM, 0xffff, "infiniband.cm.req.prim_remotelid"),
	G(56, M(primary_local_gid), "infiniband.cm.req.prim_localgid"),
	G(72, M(primary_remote_gid), "infiniband.cm.req.prim_remotegid"),
	/* Wireshark 4.0 misreads these two (flow label = bytes 88..90 >> 12,
	 * packet rate = byte 88 & 0x3f); ours follow table 99.  rping's REQ
	 * says 0x51b22 (tshark: 0x51b), and the connection's UDP source port,
	 * which rdma_cm derives from the flow label, is 56118: 0x51b22's. */
	U(88, 4, 12, 0xfffff, NOM, 0, "infiniband.cm.req.prim_flowlabel"),
	U(88, 4, 0, 0x3f, NOM, 0, "infiniband.cm.req.prim_pktrate"),
	U(92, 1, 0, 0, NOM, 0, "infiniband.cm.req.prim_tfcclass"),
	U(93, 1, 0, 0, NOM, 64, "infiniband.cm.req.prim_hoplim"),
	U(94, 1, 4, 0xf, NOM, 0, "infiniband.cm.req.prim_sl"),
	U(94, 1, 3, 0x1, NOM, 0, "infiniband.cm.req.prim_subnetlocal"),
	U(94, 1, 0, 0x7, NOM, 0, "infiniband.cm.req.prim_reserved1"),
	U(95, 1, 3, 0x1f, M(local_ack_timeout), 0, "infiniband.cm.req.prim_localacktout"),
	U(95, 1, 0, 0x7, NOM, 0, "infiniband.cm.req.prim_reserved2"),
	U(96, 2, 0, 0, NOM, 0, "infiniband.cm.req.alt_locallid"),
	U(98, 2, 0, 0, NOM, 0, "infiniband.cm.req.alt_remotelid"),
	B(100, 16, "infiniband.cm.req.alt_localgid"),
	B(116, 16, "infiniband.cm.req.alt_remotegid"),
	U(132, 4, 12, 0xfffff, NOM, 0, "infiniband.cm.req.alt_flowlabel"),
	U(132, 4, 0, 0x3f, NOM, 0, "infiniband.cm.req.alt_pktrate"),
	U(136, 1, 0, 0, NOM, 0, "infiniband.cm.req.alt_tfcclass"),
	U(137, 1, 0, 0, NOM, 0, "infiniband.cm.req.alt_hoplim"),
	U(138, 1, 4, 0xf, NOM, 0, "infiniband.cm.req.alt_sl"),
	U(138, 1, 3, 0x1, NOM, 0, "infiniband.cm.req.alt_subnetlocal"),
	U(138, 1, 0, 0x7, NOM, 0, "infiniband.cm.req.alt_reserved1"),
	U(139, 1, 3, 0x1f, NOM, 0, "infiniband.cm.req.alt_localacktout"),
	/* (Wireshark 4.0 names these reserved bits alt_reserved1 too) */
	U(139, 1, 0, 0x7, NOM, 0, "infiniband.cm.req.alt_reserved1"),
};

/* IBTA table 107, MRA (Wireshark 4.0 has no MRA fields). */
static const struct cm_field mra_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "roce.cm.mra.localcommid"),
	U(4, 4, 0, 0, M(remote_comm_id), 0, "roce.cm.mra.remotecommid"),
	U(8, 1, 6, 0x3, M(msg_mraed), 0, "roce.cm.mra.msgmraed"),
	U(9, 1, 3, 0x1f, M(service_timeout), 0, "roce.cm.mra.servicetimeout"),
};

/* IBTA table 108, REJ. */
static const struct cm_field rej_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "infiniband.cm.rej.localcommid"),
	U(4, 4, 0, 0, M(remote_comm_id), 0, "infiniband.cm.rej.remotecommid"),
	U(8, 1, 6, 0x3, M(msg_mraed), 0, "infiniband.cm.rej.msgrej"),
	U(9, 1, 1, 0x7f, NOM, 0, "infiniband.cm.rej.rejinfolen"),
	U(9, 1, 0, 0x1, NOM, 0, "infiniband.cm.rej.reserved1"),
	U(10, 2, 0, 0, M(rej_reason), 0, "infiniband.cm.rej.reason"),
	B(12, 72, "infiniband.cm.rej.ari"),
};

/* IBTA table 103, REP. */
static const struct cm_field rep_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "infiniband.cm.rep"),
	U(4, 4, 0, 0, M(remote_comm_id), 0, "infiniband.cm.rep.remotecommid"),
	U(8, 4, 0, 0, M(qkey), 0, "infiniband.cm.rep.localqkey"),
	U(12, 3, 0, 0, M(local_qpn), 0, "infiniband.cm.rep.localqpn"),
	U(16, 3, 0, 0, NOM, 0, "infiniband.cm.rep.localeecn"),
	U(20, 3, 0, 0, M(start_psn), 0, "infiniband.cm.rep.startpsn"),
	U(24, 1, 0, 0, M(resp_resources), 0, "infiniband.cm.rep.respres"),
	U(25, 1, 0, 0, M(init_depth), 0, "infiniband.cm.rep.initdepth"),
	U(26, 1, 3, 0x1f, M(target_ack_delay), 0, "infiniband.cm.rep.tgtackdelay"),
	U(26, 1, 1, 0x3, NOM, 0, "infiniband.cm.rep.failoveracc"),
	U(26, 1, 0, 0x1, NOM, 0, "infiniband.cm.rep.e2eflowctrl"),
	U(27, 1, 5, 0x7, M(rnr_retry_count), 0, "infiniband.cm.rep.rnrretrcount"),
	U(27, 1, 4, 0x1, M(srq), 0, "infiniband.cm.rep.srq"),
	U(27, 1, 0, 0xf, NOM, 0, "infiniband.cm.rep.reserved"),
	U(28, 8, 0, 0, M(ca_guid), 0, "infiniband.cm.rep.localcaguid"),
};

/* IBTA table 104, RTU. */
static const struct cm_field rtu_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "infiniband.cm.rtu.localcommid"),
	U(4, 4, 0, 0, M(remote_comm_id), 0, "infiniband.cm.rtu.remotecommid"),
};

/* IBTA table 109, DREQ (Wireshark files the QPN under cm.req). */
static const struct cm_field dreq_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "infiniband.cm.dreq.localcommid"),
	U(4, 4, 0, 0, M(remote_comm_id), 0, "infiniband.cm.dreq.remotecommid"),
	U(8, 3, 0, 0, M(remote_qpn), 0, "infiniband.cm.req.remoteqpneecn"),
};

/* IBTA table 110, DREP. */
static const struct cm_field drep_f[] = {
	U(0, 4, 0, 0, M(local_comm_id), 0, "infiniband.cm.drsp.localcommid"),
	U(4, 4, 0, 0, M(remote_comm_id), 0, "infiniband.cm.drsp.remotecommid"),
};

/* IBTA table 119, SIDR_REQ (not dissected by Wireshark 4.0). */
static const struct cm_field sidr_req_f[] = {
	U(0, 4, 0, 0, M(sidr_request_id), 0, "roce.cm.sidr_req.requestid"),
	U(4, 2, 0, 0, M(pkey), 0, "roce.cm.sidr_req.pkey"),
	U(8, 8, 0, 0, M(service_id), 0, "roce.cm.sidr_req.serviceid"),
};

/* IBTA table 120, SIDR_REP. */
static const struct cm_field sidr_rep_f[] = {
	U(0, 4, 0, 0, M(sidr_request_id), 0, "roce.cm.sidr_rep.requestid"),
	U(4, 1, 0, 0, M(sidr_status), 0, "roce.cm.sidr_rep.status"),
	U(5, 1, 0, 0, NOM, 0, "roce.cm.sidr_rep.infolen"),
	U(8, 3, 0, 0, M(local_qpn), 0, "roce.cm.sidr_rep.qpn"),
	U(12, 8, 0, 0, M(service_id), 0, "roce.cm.sidr_rep.serviceid"),
	U(20, 4, 0, 0, M(qkey), 0, "roce.cm.sidr_rep.qkey"),
	B(24, 72, "roce.cm.sidr_rep.info"),
};

struct cm_attr {
	uint16_t id;
	const char *name;
	const struct cm_field *f;
	unsigned nf;
	uint8_t priv_off;       /* in the attribute */
	uint8_t priv_len;
	const char *priv_key;
	uint8_t has_cma;        /* may carry rdma_cm's header */
};

#define A(id, name, tab, po, pl, pk, cma) { id, name, tab, sizeof(tab) / sizeof(tab[0]), po, pl, pk, cma }
static const struct cm_attr attrs[] = {
	A(ROCE_CM_REQ, "REQ", req_f, 140, 92, "infiniband.cm.req.private", 1),
	A(ROCE_CM_MRA, "MRA", mra_f, 10, 222, "roce.cm.mra.private", 0),
	A(ROCE_CM_REJ, "REJ", rej_f, 84, 148, "infiniband.cm.rej.private", 0),
	A(ROCE_CM_REP, "REP", rep_f, 36, 196, "infiniband.cm.rep.private", 0),
	A(ROCE_CM_RTU, "RTU", rtu_f, 8, 224, "infiniband.cm.rtu.private", 0),
	A(ROCE_CM_DREQ, "DREQ", dreq_f, 12, 220, "infiniband.cm.dreq.private", 0),
	A(ROCE_CM_DREP, "DREP", drep_f, 8, 224, "infiniband.cm.drsp.private", 0),
	A(ROCE_CM_SIDR_REQ, "SIDR_REQ", sidr_req_f, 16, 216, "roce.cm.sidr_req.private", 1),
	A(ROCE_CM_SIDR_REP, "SIDR_REP", sidr_rep_f, 96, 136, "roce.cm.sidr_rep.private", 0),
};
#undef A
#undef U
#undef G
#undef B
#undef SID_IPCM
#undef M
#undef NOM

static const struct cm_attr *find_attr(uint16_t id)
{
	for (unsigned i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (attrs[i].id == id)
			return &attrs[i];
	return NULL;
}

const char *roce_cm_attr_name(uint16_t attr)
{
	const struct cm_attr *a = find_attr(attr);
	return a ? a->name : NULL;
}

/* ---- field access ------------------------------------------------------ */

static uint64_t rdn(const uint8_t *b, unsigned w)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < w; i++)
		v = v << 8 | b[i];
	return v;
}

static void wrn(uint8_t *b, unsigned w, uint64_t v)
{
	for (unsigned i = w; i-- > 0; v >>= 8)
		b[i] = (uint8_t)v;
}

static uint64_t fmask(const struct cm_field *f)
{
	if (f->mask)
		return f->mask;
	return f->width >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * f->width)) - 1;
}

static uint64_t field_value(const uint8_t *mad, const struct cm_field *f)
{
	return rdn(mad + f->off, f->width) >> f->shift & fmask(f);
}

static void put_member(struct roce_cm *cm, const struct cm_field *f, uint64_t v)
{
	uint8_t *d = (uint8_t *)cm + f->dst;
	switch (f->dsz) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(d, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(d, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(d, &x, 4); break; }
	case 8: memcpy(d, &v, 8); break;
	}
}

static uint64_t get_member(const struct roce_cm *cm, const struct cm_field *f)
{
	const uint8_t *s = (const uint8_t *)cm + f->dst;
	switch (f->dsz) {
	case 1: { uint8_t x; memcpy(&x, s, 1); return x; }
	case 2: { uint16_t x; memcpy(&x, s, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, s, 4); return x; }
	case 8: { uint64_t x; memcpy(&x, s, 8); return x; }
	}
	return 0;
}

/* MAD bytes that may be read: captured, within the MAD, within the payload. */
static uint32_t mad_lim(const struct roce_pkt *p)
{
	uint32_t n = roce__avail(p, p->mad_off);
	if (n > ROCE_MAD_LEN)
		n = ROCE_MAD_LEN;
	if (n > p->payload_len)
		n = p->payload_len;
	return n;
}

static int in_lim(uint32_t lim, unsigned off, unsigned len)
{
	return off + len <= lim;
}

/* rdma_cm's port spaces (Linux include/rdma/rdma_cm.h, enum rdma_ucm_port_space). */
static const char *rdma_ps_name(uint64_t sid)
{
	if (sid >> 32)
		return NULL;
	switch ((sid >> 16) & 0xffff) {
	case 0x0002: return "IPOIB";
	case 0x0106: return "TCP";
	case 0x0111: return "UDP";
	case 0x013f: return "IB";
	}
	return NULL;
}

/* Wireshark 4.0 shows a REQ as "IP CM" when the service ID's top 40 bits
 * are 0x00000000_01 (TCP, UDP and IB port spaces, not IPoIB). */
static int ws_ip_cm(uint64_t sid)
{
	return (sid >> 24) == 1;
}

/* ---- decode -------------------------------------------------------------- */

void roce__decode_mad(struct roce_pkt *p)
{
	uint32_t off = p->payload_off;
	uint32_t len = p->payload_len;
	uint32_t avail = roce__avail(p, off);
	const uint8_t *m;

	if (avail > len)
		avail = len;
	/* Every GMP on QP1 is one 256-byte MAD (IBTA 13.4.1). */
	if (len != ROCE_MAD_LEN)
		roce__invalid(p, ROCE_L_MAD, "QP1 payload is not a 256-byte MAD");
	if (avail < 2) {
		if (len >= 2)
			roce__trunc(p, ROCE_L_MAD);
		return;
	}
	m = p->data + off;
	if (m[1] != ROCE_MGMT_CLASS_CM) {
		roce__decode_mgmt(p);   /* SMP, SA, PerfMgt, ...: their headers */
		return;
	}
	p->mad_off = off;
	roce__seen(p, ROCE_L_MAD);
	if (m[0] != 1)
		roce__invalid(p, ROCE_L_MAD, "CM MAD base version is not 1");
	if (avail >= 3 && m[2] != 2)
		roce__invalid(p, ROCE_L_MAD, "CM MAD class version is not 2");
	if (avail < (len < ROCE_MAD_LEN ? len : ROCE_MAD_LEN))
		roce__trunc(p, ROCE_L_MAD);
}

static void decode_fields(const uint8_t *mad, uint32_t lim, const struct cm_field *f,
			  unsigned nf, struct roce_cm *cm)
{
	for (unsigned i = 0; i < nf; i++, f++) {
		if (f->dst == NODST || !in_lim(lim, f->off, f->width))
			continue;
		if (f->kind == FK_GID)
			memcpy((uint8_t *)cm + f->dst, mad + f->off, 16);
		else
			put_member(cm, f, field_value(mad, f));
	}
}

/* rdma_cm's header at pd (the start of the private data), as far as lim. */
static void decode_cma(const uint8_t *mad, uint32_t lim, unsigned pd, struct roce_cm *cm)
{
	if (!in_lim(lim, pd, 2) || (mad[pd + 1] >> 4 != 4 && mad[pd + 1] >> 4 != 6))
		return;         /* rdma_cm accepts only IPv4 and IPv6 here */
	cm->has_ip_hdr = 1;
	cm->ip_major = mad[pd] >> 4;
	cm->ip_minor = mad[pd] & 0xf;
	cm->ip_version = mad[pd + 1] >> 4;
	if (in_lim(lim, pd + 2, 2))
		cm->ip_sport = rd16(mad + pd + 2);
	if (in_lim(lim, pd + 4, 16))
		memcpy(cm->ip_src, mad + pd + 4, 16);
	if (in_lim(lim, pd + 20, 16))
		memcpy(cm->ip_dst, mad + pd + 20, 16);
}

int roce_cm_decode(const struct roce_pkt *p, struct roce_cm *cm)
{
	const struct cm_attr *a;
	const uint8_t *mad;
	uint32_t lim;
	unsigned pd, pl;
	int bad;

	memset(cm, 0, sizeof(*cm));
	if (!p->mad_off || p->mad_off >= p->caplen)
		return p->mad_off ? ROCE_ETRUNC : ROCE_EINVAL;
	mad = p->data + p->mad_off;
	lim = mad_lim(p);
	decode_fields(mad, lim, mad_hdr, sizeof(mad_hdr) / sizeof(mad_hdr[0]), cm);
	if (lim >= 2 && cm->mgmt_class != ROCE_MGMT_CLASS_CM)
		return ROCE_EINVAL;
	bad = p->payload_len != ROCE_MAD_LEN || (lim >= 1 && cm->base_version != 1) ||
	      (lim >= 3 && cm->class_version != 2);
	if (lim < HDR)
		return bad ? ROCE_EINVAL : ROCE_ETRUNC;

	a = find_attr(cm->attr_id);
	if (!a)
		return bad ? ROCE_EINVAL : ROCE_EUNSUP;
	decode_fields(mad, lim, a->f, a->nf, cm);
	if (a->id == ROCE_CM_REJ && in_lim(lim, HDR + 10, 2))
		cm->rej_reason_valid = 1;

	pd = HDR + a->priv_off;
	pl = a->priv_len;
	if (a->has_cma && in_lim(lim, HDR + 8, 8) && rdma_ps_name(cm->service_id)) {
		decode_cma(mad, lim, pd, cm);
		if (cm->has_ip_hdr) {
			pd += CMA_HDR_LEN;
			pl -= CMA_HDR_LEN;
		}
	}
	cm->private_off = p->mad_off + pd;
	cm->private_len = lim > pd ? (lim - pd < pl ? lim - pd : pl) : 0;

	if (bad)
		return ROCE_EINVAL;
	return lim < ROCE_MAD_LEN ? ROCE_ETRUNC : ROCE_OK;
}

/* ---- build --------------------------------------------------------------- */

static int build_fields(uint8_t *mad, const struct cm_field *f, unsigned nf,
			const struct roce_cm *cm)
{
	for (unsigned i = 0; i < nf; i++, f++) {
		uint64_t v, mk, old;

		if (f->kind == FK_GID) {
			memcpy(mad + f->off, (const uint8_t *)cm + f->dst, 16);
			continue;
		}
		if (f->kind != FK_UINT || f->ipcm)
			continue;
		v = f->dst == NODST ? f->dflt : get_member(cm, f);
		mk = fmask(f);
		if (v > mk)
			return ROCE_EARG;
		old = rdn(mad + f->off, f->width);
		old &= ~(mk << f->shift);
		wrn(mad + f->off, f->width, old | v << f->shift);
	}
	return 0;
}

int roce_build_cm(uint8_t *dst, size_t cap, const struct roce_cm *cm,
		  const uint8_t *private_data, size_t private_len)
{
	struct roce_cm h;
	const struct cm_attr *a;
	unsigned pd, room;
	uint8_t mad[ROCE_MAD_LEN];

	if (!cm || (private_len && !private_data))
		return ROCE_EARG;
	a = find_attr(cm->attr_id);
	if (!a)
		return ROCE_EARG;
	pd = HDR + a->priv_off;
	room = a->priv_len;
	if (cm->has_ip_hdr) {
		if (!a->has_cma || (cm->ip_version != 4 && cm->ip_version != 6) ||
		    cm->ip_major > 15 || cm->ip_minor > 15)
			return ROCE_EARG;
		room -= CMA_HDR_LEN;
	}
	if (private_len > room)
		return ROCE_EARG;
	if (cap < ROCE_MAD_LEN)
		return ROCE_ENOSPC;

	/* The header is always a CM one, whatever cm says about it. */
	h = *cm;
	h.base_version = 1;
	h.mgmt_class = ROCE_MGMT_CLASS_CM;
	h.class_version = 2;
	if (!h.method)
		h.method = 3;   /* Send() */
	memset(mad, 0, sizeof(mad));
	if (build_fields(mad, mad_hdr, sizeof(mad_hdr) / sizeof(mad_hdr[0]), &h) ||
	    build_fields(mad, a->f, a->nf, cm))
		return ROCE_EARG;
	if (cm->has_ip_hdr) {
		mad[pd] = (uint8_t)(cm->ip_major << 4 | cm->ip_minor);
		mad[pd + 1] = (uint8_t)(cm->ip_version << 4);
		wr16(mad + pd + 2, cm->ip_sport);
		memcpy(mad + pd + 4, cm->ip_src, 16);
		memcpy(mad + pd + 20, cm->ip_dst, 16);
		pd += CMA_HDR_LEN;
	}
	if (private_len)
		memcpy(mad + pd, private_data, private_len);
	memcpy(dst, mad, ROCE_MAD_LEN);
	return ROCE_MAD_LEN;
}


/* ---- fields -------------------------------------------------------------- */

static void emit_fields(const uint8_t *mad, uint32_t lim, const struct cm_field *f,
			unsigned nf, int ipcm, int ip4, roce_field_cb cb, void *ctx)
{
	for (unsigned i = 0; i < nf; i++, f++) {
		if ((f->ipcm && !ipcm) || !in_lim(lim, f->off, f->width))
			continue;
		switch (f->kind) {
		case FK_UINT:
			EMIT_U(f->key, field_value(mad, f));
			break;
		case FK_GID:
			/* Wireshark 4.0 shows a GID as IPv4 (its last four
			 * bytes) whenever the frame itself is IPv4. */
			if (ip4)
				EMIT_IP4(f->key4, mad + f->off + 12);
			else
				EMIT_IP6(f->key, mad + f->off);
			break;
		case FK_BYTES:
			EMIT_BYTES(f->key, mad + f->off, f->width);
			break;
		}
	}
}

/* Wireshark's "IP CM Private Data" view of a REQ's 92 private bytes. */
static void emit_ws_ip_cm(const uint8_t *mad, uint32_t lim, roce_field_cb cb, void *ctx)
{
	unsigned pd = HDR + 140;
	const uint8_t *h = mad + pd;

	if (in_lim(lim, pd, 92))
		EMIT_BYTES("infiniband.cm.req.ip_cm", h, 92);
	if (!in_lim(lim, pd, 2))
		return;
	EMIT_U("infiniband.cm.req.ip_cm.majv", h[0] >> 4);
	EMIT_U("infiniband.cm.req.ip_cm.minv", h[0] & 0xf);
	EMIT_U("infiniband.cm.req.ip_cm.ipv", h[1] >> 4);
	EMIT_U("infiniband.cm.req.ip_cm.reserved", h[1] & 0xf);
	if (in_lim(lim, pd + 2, 2))
		EMIT_U("infiniband.cm.req.ip_cm.sport", rd16(h + 2));
	if (in_lim(lim, pd + 4, 32)) {
		if (h[1] >> 4 == 4) {
			EMIT_IP4("infiniband.cm.req.ip_cm.sip4", h + 16);
			EMIT_IP4("infiniband.cm.req.ip_cm.dip4", h + 32);
		} else {
			EMIT_IP6("infiniband.cm.req.ip_cm.sip6", h + 4);
			EMIT_IP6("infiniband.cm.req.ip_cm.dip6", h + 20);
		}
	}
	if (in_lim(lim, pd + CMA_HDR_LEN, 92 - CMA_HDR_LEN))
		EMIT_BYTES("infiniband.cm.req.ip_cm.private", h + CMA_HDR_LEN, 92 - CMA_HDR_LEN);
}

/* IBTA table 112 (Linux enum ib_cm_rej_reason). */
static const char *rej_reason_name(uint16_t r)
{
	static const char *const n[] = {
		NULL, "no QP", "no EEC", "no resources", "timeout", "unsupported request",
		"invalid comm ID", "invalid comm instance", "invalid service ID",
		"invalid transport type", "stale connection", "RDC does not exist",
		"primary remote GID rejected", "primary remote LID rejected",
		"invalid primary SL", "invalid primary traffic class",
		"invalid primary hop limit", "invalid primary packet rate",
		"alternate remote GID rejected", "alternate remote LID rejected",
		"invalid alternate SL", "invalid alternate traffic class",
		"invalid alternate hop limit", "invalid alternate packet rate",
		"port CM redirection", "port redirection", "invalid path MTU",
		"insufficient responder resources", "consumer reject",
		"RNR retry count reject", "duplicate local comm ID",
		"unsupported class version", "invalid primary flow label",
		"invalid alternate flow label",
	};
	return r < sizeof(n) / sizeof(n[0]) ? n[r] : NULL;
}

static const char *msg_name(uint8_t m)
{
	static const char *const n[] = { "REQ", "REP", "LAP", "reserved" };
	return n[m & 3];
}

void roce__fields_mad(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const struct cm_attr *a;
	const uint8_t *mad;
	struct roce_cm cm;
	uint32_t lim;
	unsigned pd;
	int sid_known, ipcm = 0;

	if (!p->mad_off || p->mad_off >= p->caplen)
		return;
	mad = p->data + p->mad_off;
	lim = mad_lim(p);
	if (in_lim(lim, 0, ROCE_MAD_LEN))
		EMIT_BYTES("infiniband.mad", mad, ROCE_MAD_LEN);
	emit_fields(mad, lim, mad_hdr, sizeof(mad_hdr) / sizeof(mad_hdr[0]), 0, 0, cb, ctx);
	if (in_lim(lim, HDR, ROCE_MAD_LEN - HDR))
		EMIT_BYTES("infiniband.mad.data", mad + HDR, ROCE_MAD_LEN - HDR);
	if (!in_lim(lim, 16, 2) || mad[1] != ROCE_MGMT_CLASS_CM)
		return;
	a = find_attr(rd16(mad + 16));
	if (!a)
		return;
	EMIT_S("roce.cm.msg", a->name);
	(void)roce_cm_decode(p, &cm);
	sid_known = a->has_cma && in_lim(lim, HDR + 8, 8);
	if (sid_known && a->id == ROCE_CM_REQ)
		ipcm = ws_ip_cm(cm.service_id);
	emit_fields(mad, lim, a->f, a->nf, ipcm, p->ip_version == 4, cb, ctx);

	pd = HDR + a->priv_off;
	if (ipcm)
		emit_ws_ip_cm(mad, lim, cb, ctx);
	else if (in_lim(lim, pd, a->priv_len))
		EMIT_BYTES(a->priv_key, mad + pd, a->priv_len);

	if (a->id == ROCE_CM_REJ && cm.rej_reason_valid && rej_reason_name(cm.rej_reason))
		EMIT_S("roce.cm.rej.reasonname", rej_reason_name(cm.rej_reason));
	if (sid_known && rdma_ps_name(cm.service_id))
		EMIT_S("roce.cm.ps", rdma_ps_name(cm.service_id));
	if (cm.has_ip_hdr) {
		EMIT_U("roce.cm.ip.version", cm.ip_version);
		if (in_lim(lim, pd + 2, 2))
			EMIT_U("roce.cm.ip.sport", cm.ip_sport);
		if (in_lim(lim, pd + 4, 32)) {
			if (cm.ip_version == 4) {
				EMIT_IP4("roce.cm.ip.src", mad + pd + 16);
				EMIT_IP4("roce.cm.ip.dst", mad + pd + 32);
			} else {
				EMIT_IP6("roce.cm.ip.src", mad + pd + 4);
				EMIT_IP6("roce.cm.ip.dst", mad + pd + 20);
			}
		}
	}
}

/* ---- summary ------------------------------------------------------------- */

static void sappend_ip(char *buf, size_t cap, size_t *n, const struct roce_cm *cm,
		       const uint8_t *ip, unsigned port)
{
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(cm->ip_version == 4 ? AF_INET : AF_INET6,
		       cm->ip_version == 4 ? ip + 12 : ip, s, sizeof(s)))
		return;
	roce__sappend(buf, cap, n, cm->ip_version == 4 ? "%s.%u" : "[%s].%u", s, port);
}

void roce__summary_mad(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	struct roce_cm cm;
	const char *name;
	int rc;

	if (!p->mad_off)
		return;
	rc = roce_cm_decode(p, &cm);
	if (rc == ROCE_ETRUNC && mad_lim(p) < HDR) {
		roce__sappend(buf, cap, n, " CM [|cm]");
		return;
	}
	name = roce_cm_attr_name(cm.attr_id);
	if (!name) {
		roce__sappend(buf, cap, n, " CM attr 0x%04x", cm.attr_id);
		return;
	}
	roce__sappend(buf, cap, n, " CM %s", name);
	switch (cm.attr_id) {
	case ROCE_CM_REQ:
		roce__sappend(buf, cap, n, " comm 0x%x qpn 0x%x psn 0x%x svc 0x%llx",
			      cm.local_comm_id, cm.local_qpn, cm.start_psn,
			      (unsigned long long)cm.service_id);
		break;
	case ROCE_CM_REP:
		roce__sappend(buf, cap, n, " comm 0x%x rcomm 0x%x qpn 0x%x psn 0x%x",
			      cm.local_comm_id, cm.remote_comm_id, cm.local_qpn, cm.start_psn);
		break;
	case ROCE_CM_REJ:
		roce__sappend(buf, cap, n, " comm 0x%x rcomm 0x%x reason %u",
			      cm.local_comm_id, cm.remote_comm_id, cm.rej_reason);
		if (cm.rej_reason_valid && rej_reason_name(cm.rej_reason))
			roce__sappend(buf, cap, n, " (%s)", rej_reason_name(cm.rej_reason));
		break;
	case ROCE_CM_MRA:
		roce__sappend(buf, cap, n, " comm 0x%x rcomm 0x%x msg %s timeout %u",
			      cm.local_comm_id, cm.remote_comm_id, msg_name(cm.msg_mraed),
			      cm.service_timeout);
		break;
	case ROCE_CM_DREQ:
		roce__sappend(buf, cap, n, " comm 0x%x rcomm 0x%x qpn 0x%x",
			      cm.local_comm_id, cm.remote_comm_id, cm.remote_qpn);
		break;
	case ROCE_CM_RTU:
	case ROCE_CM_DREP:
		roce__sappend(buf, cap, n, " comm 0x%x rcomm 0x%x",
			      cm.local_comm_id, cm.remote_comm_id);
		break;
	case ROCE_CM_SIDR_REQ:
		roce__sappend(buf, cap, n, " req 0x%x svc 0x%llx", cm.sidr_request_id,
			      (unsigned long long)cm.service_id);
		break;
	case ROCE_CM_SIDR_REP:
		roce__sappend(buf, cap, n, " req 0x%x status %u qpn 0x%x qkey 0x%x",
			      cm.sidr_request_id, cm.sidr_status, cm.local_qpn, cm.qkey);
		break;
	}
	if (cm.has_ip_hdr && cm.private_off - p->mad_off <= mad_lim(p)) {
		roce__sappend(buf, cap, n, " ");
		sappend_ip(buf, cap, n, &cm, cm.ip_src, cm.ip_sport);
		roce__sappend(buf, cap, n, " > ");
		sappend_ip(buf, cap, n, &cm, cm.ip_dst, (unsigned)(cm.service_id & 0xffff));
	}
	if (rc == ROCE_ETRUNC)
		roce__sappend(buf, cap, n, " [|cm]");
}
