/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frames.c — `rocegen frames KIND`: one frame kind built from the options
 * (every field has one), N times, written to a pcap, sent, or printed.
 *
 * Kinds: every BTH opcode libroce knows, by its name ("rc-send-only",
 * "ud-send-only-imm", "xrc-rdma-…", "rd-resync", "flush", "atomic-write",
 * "cnp"; bare names mean RC) or number ("0x0a"); 802.3x "pause", 802.1Qbb
 * "pfc", 802.1Qau "cnm", "lldp-dcbx"; iWARP "mpa-req", "mpa-rep", "fpdu"
 * (TCP frames); CM MADs "cm-req", "cm-rep", "cm-rtu", "cm-dreq", "cm-drep",
 * "cm-rej", "cm-mra" (UD SEND_ONLY to QP1).
 *
 * The builders are libroce's; this file only turns options into specs.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "pace.h"

/* ---- kinds ------------------------------------------------------------------------- */

static const struct {
	const char *name;
	enum gen_kind_class cls;
	uint16_t attr;
} other_kinds[] = {
	{ "pause", GK_PAUSE, 0 },
	{ "pfc", GK_PFC, 0 },
	{ "cnm", GK_CNM, 0 },
	{ "lldp-dcbx", GK_LLDP, 0 },
	{ "lldp", GK_LLDP, 0 },
	{ "mpa-req", GK_MPA_REQ, 0 },
	{ "mpa-rep", GK_MPA_REP, 0 },
	{ "fpdu", GK_FPDU, 0 },
	{ "cm-req", GK_CM, ROCE_CM_REQ },
	{ "cm-mra", GK_CM, ROCE_CM_MRA },
	{ "cm-rej", GK_CM, ROCE_CM_REJ },
	{ "cm-rep", GK_CM, ROCE_CM_REP },
	{ "cm-rtu", GK_CM, ROCE_CM_RTU },
	{ "cm-dreq", GK_CM, ROCE_CM_DREQ },
	{ "cm-drep", GK_CM, ROCE_CM_DREP },
};
#define N_OTHER (sizeof(other_kinds) / sizeof(other_kinds[0]))

/* "RC SEND_ONLY" -> "rc-send-only"; InfiniBand's CNP (0x80) is "ib-cnp",
 * RoCEv2's (0x81) "cnp" */
static void opname(uint8_t op, char *buf, size_t cap)
{
	const struct roce_opinfo *oi = roce_opcode_info(op);
	size_t i;

	if (op == ROCE_OPCODE_CNP_IB) {
		snprintf(buf, cap, "ib-cnp");
		return;
	}
	for (i = 0; oi && oi->name[i] && i + 1 < cap; i++) {
		char c = oi->name[i];

		buf[i] = c == ' ' || c == '_' ? '-' : (char)tolower((unsigned char)c);
	}
	buf[i] = 0;
}

int gen_kind_parse(const char *name, struct gen_kind *k)
{
	char want[64], have[64];
	const char *p;
	size_t i;

	memset(k, 0, sizeof(*k));
	for (i = 0; name[i] && i + 1 < sizeof(want); i++)
		want[i] = name[i] == '_' ? '-' : (char)tolower((unsigned char)name[i]);
	want[i] = 0;
	for (i = 0; i < N_OTHER; i++)
		if (!strcmp(want, other_kinds[i].name)) {
			k->cls = other_kinds[i].cls;
			k->cm_attr = other_kinds[i].attr;
			return 0;
		}
	k->cls = GK_ROCE;
	if (isdigit((unsigned char)want[0])) {
		char *end;
		unsigned long v = strtoul(want, &end, 0);

		if (*end || v > 255 || !roce_opcode_info((uint8_t)v))
			return -1;
		k->opcode = (uint8_t)v;
		return 0;
	}
	/* aliases: read-response-* -> read-resp-*, no transport -> RC */
	if (strlen(want) > 40)
		return -1;
	p = strstr(want, "read-response-");
	if (p)
		memmove((char *)p + 9, p + 13, strlen(p + 13) + 1);  /* "read-resp" + "-…" */
	if (strncmp(want, "rc-", 3) && strncmp(want, "uc-", 3) && strncmp(want, "rd-", 3) &&
	    strncmp(want, "ud-", 3) && strncmp(want, "xrc-", 4) && strcmp(want, "cnp") && strcmp(want, "ib-cnp")) {
		memmove(want + 3, want, strlen(want) + 1);
		memcpy(want, "rc-", 3);
	}
	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcode_info((uint8_t)op))
			continue;
		opname((uint8_t)op, have, sizeof(have));
		if (!strcmp(want, have)) {
			k->opcode = (uint8_t)op;
			return 0;
		}
	}
	return -1;
}

void gen_kinds_list(FILE *f)
{
	char n[64];

	for (unsigned op = 0; op < 256; op++)
		if (roce_opcode_info((uint8_t)op)) {
			opname((uint8_t)op, n, sizeof(n));
			fprintf(f, "%s\t0x%02x\n", n, op);
		}
	for (unsigned i = 0; i < N_OTHER; i++)
		if (strcmp(other_kinds[i].name, "lldp"))
			fprintf(f, "%s\n", other_kinds[i].name);
}

/* ---- specs ---------------------------------------------------------------------------- */

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static void to_gid(uint8_t gid[16], int ver, const uint8_t *a)
{
	if (ver == 4) {
		memcpy(gid, v4mapped, 12);
		memcpy(gid + 12, a, 4);
	} else {
		memcpy(gid, a, 16);
	}
}

void gen_eth_spec(const struct gen_opts *o, struct roce_eth_spec *eth)
{
	memset(eth, 0, sizeof(*eth));
	memcpy(eth->dst, o->dmac, 6);
	memcpy(eth->src, o->smac, 6);
	eth->n_vlan = (uint8_t)o->n_vlan;
	memcpy(eth->vlan, o->vlan, sizeof(eth->vlan));
}

void gen_ip_spec(const struct gen_opts *o, struct roce_ip_spec *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (o->version == ROCE_VER_V1) {
		ip->version = 6;
		to_gid(ip->src, o->src_ver, o->src);
		to_gid(ip->dst, o->dst_ver, o->dst);
	} else {
		ip->version = (uint8_t)o->dst_ver;
		memcpy(ip->src, o->src, 16);
		memcpy(ip->dst, o->dst, 16);
	}
	ip->dscp = (uint8_t)(o->dscp >= 0 ? o->dscp : 0);
	ip->ecn = (uint8_t)(o->ecn >= 0 ? o->ecn : 0);
	ip->ttl = (uint8_t)(o->ttl >= 0 ? o->ttl : 0);
	ip->ip_id = (uint16_t)o->ip_id;
	ip->dont_fragment = (uint8_t)o->df;
	ip->flow_label = (uint32_t)o->flow_label;
}

uint32_t gen_payload_len(const struct gen_opts *o, uint32_t dflt)
{
	if (o->payload)
		return o->payload_len;
	if (o->payload_size >= 0)
		return (uint32_t)o->payload_size;
	return dflt;
}

int gen_roce_spec(const struct gen_opts *o, uint8_t opcode, struct roce_frame_spec *s,
		  uint8_t *pbuf, uint32_t pcap, uint32_t plen)
{
	const struct roce_opinfo *oi = roce_opcode_info(opcode);

	if (!oi)
		return -1;
	memset(s, 0, sizeof(*s));
	s->version = o->version;
	if (o->version == ROCE_VER_V2_PORT)
		s->dport = (uint16_t)o->port;
	gen_eth_spec(o, &s->eth);
	gen_ip_spec(o, &s->ip);
	s->sport = (uint16_t)(o->sport >= 0 ? o->sport : 0);
	s->udp_checksum = (uint8_t)o->udp_csum;
	s->bad_icrc = (uint8_t)o->bad_icrc;
	s->fcs = (uint8_t)o->fcs;

	if (roce_opcode_is_cnp(opcode)) {
		roce_spec_cnp(s, o->qpn);
		s->bth.opcode = opcode;     /* 0x80: IB's, without the 16 reserved bytes */
		if (o->dscp >= 0)
			s->ip.dscp = (uint8_t)o->dscp;
		if (o->ecn >= 0)
			s->ip.ecn = (uint8_t)o->ecn;
		s->bth.fecn = (uint8_t)o->fecn;
		if (o->pkey >= 0)
			s->bth.pkey = (uint16_t)o->pkey;
		if (plen || o->payload) {
			fprintf(stderr, GEN_NAME ": cnp carries no payload\n");
			return -1;
		}
		return 0;
	}
	s->bth.opcode = opcode;
	s->bth.se = (uint8_t)o->se;
	s->bth.migreq = (uint8_t)o->migreq;
	s->bth.tver = (uint8_t)o->tver;
	s->bth.ackreq = (uint8_t)o->ackreq;
	s->bth.fecn = (uint8_t)o->fecn;
	s->bth.becn = (uint8_t)o->becn;
	s->bth.pkey = (uint16_t)(o->pkey >= 0 ? o->pkey : 0xffff);
	s->bth.dqpn = o->qpn;
	s->bth.psn = o->psn;
	s->bth.pad = o->pad;
	s->ext = o->ext;
	if (!o->have_syndrome)
		s->ext.syndrome = 0x1f;     /* ACK, credits invalid ("unlimited"), as rxe sends */

	if (plen && !(oi->hdrs & ROCE_H_PAYLOAD)) {
		fprintf(stderr, GEN_NAME ": %s carries no payload\n", oi->name);
		return -1;
	}
	if (o->payload) {
		s->payload = o->payload;
		s->payload_len = o->payload_len;
	} else if (plen) {
		if (plen > pcap)
			return -1;
		for (uint32_t i = 0; i < plen; i++)
			pbuf[i] = (uint8_t)i;
		s->payload = pbuf;
		s->payload_len = plen;
	}
	if (!o->have_len && (oi->hdrs & ROCE_H_RETH) && (oi->hdrs & ROCE_H_PAYLOAD))
		s->ext.dmalen = s->payload_len;
	return 0;
}

/* ---- the other kinds -------------------------------------------------------------------- */

static int build_dcb(const struct gen_opts *o, const struct gen_kind *k, uint8_t *buf, size_t cap)
{
	struct roce_eth_spec eth;
	int quanta = o->quanta >= 0 ? o->quanta : 0xffff;
	uint8_t mask = (uint8_t)(o->prio_mask >= 0 ? o->prio_mask : o->prio >= 0 ? 1 << o->prio : 0x08);

	gen_eth_spec(o, &eth);
	if (!o->dmac_given && k->cls != GK_CNM)
		memset(eth.dst, 0, 6);   /* the protocol's group address */
	switch (k->cls) {
	case GK_PAUSE:
		return roce_build_pause(buf, cap, &eth, (uint16_t)quanta, o->fcs);
	case GK_PFC: {
		uint16_t times[8];

		for (int i = 0; i < 8; i++)
			times[i] = o->have_times ? o->times[i] : mask & (1 << i) ? (uint16_t)quanta : 0;
		return roce_build_pfc(buf, cap, &eth, mask, times, o->fcs);
	}
	case GK_CNM: {
		struct roce_cnm c;

		memset(&c, 0, sizeof(c));
		c.has_tag = o->flow_id >= 0;
		c.flow_id = (uint16_t)(o->flow_id >= 0 ? o->flow_id : 0);
		c.qfb = (uint8_t)o->qfb;
		c.cpid = o->cpid;
		c.qoffset = (int16_t)o->cnm_qoffset;
		c.qdelta = (int16_t)o->cnm_qdelta;
		c.encap_priority = (uint16_t)(o->prio >= 0 ? o->prio : 3);
		memcpy(c.encap_da, o->smac, 6);
		if (o->payload_len > ROCE_CNM_MSDU_MAX) {
			fprintf(stderr, GEN_NAME ": a CNM carries at most %d bytes of the sampled frame\n",
				ROCE_CNM_MSDU_MAX);
			return ROCE_EARG;
		}
		return roce_build_cnm(buf, cap, &eth, &c, o->payload, o->payload_len, o->fcs);
	}
	case GK_LLDP: {
		struct roce_lldp_dcbx_spec l;
		struct roce_dcbx_app_entry app = { .prio = 3, .sel = 3, .proto = ROCE_UDP_PORT };
		static const uint8_t dflt_bw[8] = { 13, 13, 12, 12, 12, 12, 13, 13 };

		memset(&l, 0, sizeof(l));
		l.ttl = (uint16_t)o->lldp_ttl;
		l.has_ets = 1;
		l.ets.willing = (uint8_t)o->willing;
		l.ets.max_tcs = 0;   /* 0 means 8 */
		for (int i = 0; i < 8; i++) {
			l.ets.prio_tc[i] = (uint8_t)i;
			l.ets.tc_bw[i] = o->have_ets_bw ? o->ets_bw[i] : dflt_bw[i];
			l.ets.tsa[i] = 2;
		}
		l.has_pfc = 1;
		l.pfc.willing = (uint8_t)o->willing;
		l.pfc.cap = 8;
		l.pfc.enable = mask;
		if (o->prio >= 0)
			app.prio = (uint8_t)o->prio;
		l.app = &app;
		l.n_app = 1;
		l.has_app = 1;
		return roce_build_lldp_dcbx(buf, cap, &eth, &l, o->fcs);
	}
	default:
		return ROCE_EARG;
	}
}

static const struct {
	const char *name;
	uint8_t op;
} rdmap_ops[] = {
	{ "write", ROCE_RDMAP_WRITE },       { "read-req", ROCE_RDMAP_READ_REQ },
	{ "read-resp", ROCE_RDMAP_READ_RESP }, { "send", ROCE_RDMAP_SEND },
	{ "send-inv", ROCE_RDMAP_SEND_INV }, { "send-se", ROCE_RDMAP_SEND_SE },
	{ "send-se-inv", ROCE_RDMAP_SEND_SE_INV }, { "terminate", ROCE_RDMAP_TERMINATE },
	{ "imm", ROCE_RDMAP_IMM },           { "imm-se", ROCE_RDMAP_IMM_SE },
	{ "atomic-req", ROCE_RDMAP_ATOMIC_REQ }, { "atomic-resp", ROCE_RDMAP_ATOMIC_RESP },
};

/* An MPA request or reply (--markers, --crc, --reject, --rev, --ird/--ord as the RTR) into seg. */
static int iw_mpa_seg(const struct gen_opts *o, const struct gen_kind *k, uint8_t *seg, size_t cap)
{
	struct roce_mpa_rtr rtr;
	uint8_t flags = (uint8_t)((o->mpa_markers ? ROCE_MPA_FLAG_M : 0) | (o->mpa_crc ? ROCE_MPA_FLAG_C : 0) |
				  (o->mpa_reject ? ROCE_MPA_FLAG_R : 0));
	int has_rtr = o->ird >= 0 || o->ord >= 0;

	memset(&rtr, 0, sizeof(rtr));
	rtr.ird = (uint16_t)(o->ird >= 0 ? o->ird : 0);
	rtr.ord = (uint16_t)(o->ord >= 0 ? o->ord : 0);
	rtr.p2p = 1;
	rtr.write = 1;
	if (has_rtr && o->mpa_rev != 2) {
		fprintf(stderr, GEN_NAME ": --ird/--ord need --rev 2\n");
		return ROCE_EARG;
	}
	return roce_mpa_build_frame(seg, cap, k->cls == GK_MPA_REQ ? ROCE_MPA_REQ : ROCE_MPA_REP, flags,
				    (uint8_t)o->mpa_rev, has_rtr ? &rtr : NULL, o->payload, o->payload_len);
}

/* --rdmap-op by name (SEND when not given); ROCE_EARG after saying what is wanted. */
static int iw_rdmap_op(const struct gen_opts *o, uint8_t *op)
{
	*op = ROCE_RDMAP_SEND;
	if (!o->rdmap_op)
		return 0;
	for (unsigned j = 0; j < sizeof(rdmap_ops) / sizeof(rdmap_ops[0]); j++)
		if (!strcmp(o->rdmap_op, rdmap_ops[j].name)) {
			*op = rdmap_ops[j].op;
			return 0;
		}
	fprintf(stderr, GEN_NAME ": --rdmap-op %s: want write, read-req, read-resp, send, send-inv, send-se, send-se-inv, terminate, imm, imm-se, atomic-req or atomic-resp\n",
		o->rdmap_op);
	return ROCE_EARG;
}

/* The DDP/RDMAP header fields of frame i from the options (each opcode takes the ones it has). */
static void iw_msg_fields(const struct gen_opts *o, uint64_t i, struct roce_iwarp_msg_spec *m)
{
	m->last = !o->not_last;
	m->stag = o->ext.rkey;
	m->to = o->ext.va;
	m->inv_stag = o->ext.inv_rkey;
	m->qn = o->have_qn ? o->qn : ~0u;
	m->msn = o->ext.msn + (uint32_t)i;
	m->mo = o->mo;
	m->sink_stag = o->sink_stag;
	m->sink_to = o->sink_to;
	m->read_size = o->ext.dmalen;
	m->src_stag = o->ext.rkey;
	m->src_to = o->ext.va;
	m->atomic_op = o->ext.compare ? ROCE_ATOMIC_CMP_SWAP : ROCE_ATOMIC_FETCH_ADD;
	m->req_id = o->ext.msn;
	m->remote_stag = o->ext.rkey;
	m->remote_to = o->ext.va;
	m->add_swap = o->ext.swap_add;
	m->compare = o->ext.compare;
	m->orig_value = o->ext.orig;
	m->imm = o->ext.imm;
}

/* An RDMAP message of frame i in one FPDU (--no-crc, --markers at --stream-pos) into seg. */
static int iw_fpdu_seg(const struct gen_opts *o, uint64_t i, uint8_t *seg, size_t cap)
{
	struct roce_iwarp_msg_spec m;
	uint8_t pat[GEN_MAX_FRAME], ulpdu[GEN_MAX_FRAME];
	uint32_t plen = gen_payload_len(o, 0);
	int n;

	memset(&m, 0, sizeof(m));
	if (iw_rdmap_op(o, &m.opcode))
		return ROCE_EARG;
	iw_msg_fields(o, i, &m);
	if (o->payload) {
		m.payload = o->payload;
		m.payload_len = o->payload_len;
	} else if (plen) {
		if (plen > sizeof(pat))
			return ROCE_EARG;
		for (uint32_t j = 0; j < plen; j++)
			pat[j] = (uint8_t)j;
		m.payload = pat;
		m.payload_len = plen;
	}
	n = roce_iwarp_build_ulpdu(ulpdu, sizeof(ulpdu), &m);
	if (n < 0)
		return n;
	return roce_mpa_build_fpdu(seg, cap, ulpdu, (size_t)n, !o->no_crc, o->mpa_markers, o->stream_pos);
}

static int build_iwarp(const struct gen_opts *o, const struct gen_kind *k, uint64_t i,
		       uint8_t *buf, size_t cap)
{
	struct roce_eth_spec eth;
	struct roce_ip_spec ip;
	uint8_t seg[GEN_MAX_FRAME];
	int n;
	uint16_t sport = (uint16_t)(o->sport >= 0 ? o->sport : 49152);
	uint16_t dport = (uint16_t)(o->port >= 0 ? o->port : 7174);

	gen_eth_spec(o, &eth);
	gen_ip_spec(o, &ip);
	if (o->version == ROCE_VER_V1 || ip.version != o->src_ver) {
		fprintf(stderr, GEN_NAME ": iWARP frames need IPv4 or IPv6 addresses of one family\n");
		return ROCE_EARG;
	}
	if (k->cls == GK_MPA_REQ || k->cls == GK_MPA_REP)
		n = iw_mpa_seg(o, k, seg, sizeof(seg));
	else
		n = iw_fpdu_seg(o, i, seg, sizeof(seg));
	if (n < 0)
		return n;
	return roce_build_tcp_frame(buf, cap, &eth, &ip, sport, dport,
				    o->tcp_seq + (uint32_t)(i * (uint64_t)n), o->tcp_ack,
				    ROCE_TCP_PSH | ROCE_TCP_ACK, seg, (size_t)n);
}

static int build_cm(const struct gen_opts *o, const struct gen_kind *k, uint64_t i, uint8_t *buf,
		    size_t cap)
{
	struct roce_frame_spec s;
	struct roce_cm cm;
	uint8_t mad[ROCE_MAD_LEN];
	uint16_t port = (uint16_t)(o->port >= 0 ? o->port : 7174);
	int n;

	memset(&cm, 0, sizeof(cm));
	cm.attr_id = k->cm_attr;
	cm.tid = o->tid + i;
	cm.local_comm_id = o->comm_id;
	cm.remote_comm_id = o->remote_comm_id;
	cm.service_id = o->have_service_id ? o->service_id : 0x0000000001060000ull | port;
	/* EUI-64 from the source MAC, as rxe derives its node GUID */
	cm.ca_guid = (uint64_t)(o->smac[0] ^ 2) << 56 | (uint64_t)o->smac[1] << 48 |
		     (uint64_t)o->smac[2] << 40 | 0xfffeull << 24 | (uint64_t)o->smac[3] << 16 |
		     (uint64_t)o->smac[4] << 8 | o->smac[5];
	cm.local_qpn = o->cm_qpn;
	cm.remote_qpn = o->cm_qpn;
	cm.resp_resources = 1;
	cm.init_depth = 1;
	cm.start_psn = o->start_psn;
	cm.local_resp_timeout = 20;
	cm.remote_resp_timeout = 20;
	cm.retry_count = 7;
	cm.rnr_retry_count = 7;
	cm.pkey = 0xffff;
	cm.path_mtu = (uint8_t)o->mtu_enum;
	cm.local_ack_timeout = 19;
	cm.target_ack_delay = 15;
	to_gid(cm.primary_local_gid, o->src_ver, o->src);
	to_gid(cm.primary_remote_gid, o->dst_ver, o->dst);
	cm.rej_reason = (uint16_t)o->rej_reason;
	cm.service_timeout = 18;
	if (k->cm_attr == ROCE_CM_REQ && !o->no_cma) {
		cm.has_ip_hdr = 1;
		cm.ip_version = (uint8_t)o->dst_ver;
		cm.ip_sport = 40000;
		memcpy(cm.ip_src + (o->src_ver == 4 ? 12 : 0), o->src, o->src_ver == 4 ? 4 : 16);
		memcpy(cm.ip_dst + (o->dst_ver == 4 ? 12 : 0), o->dst, o->dst_ver == 4 ? 4 : 16);
	}
	n = roce_build_cm(mad, sizeof(mad), &cm, NULL, 0);
	if (n < 0)
		return n;

	if (o->payload || o->payload_size >= 0) {
		fprintf(stderr, GEN_NAME ": a CM frame's payload is its MAD\n");
		return ROCE_EARG;
	}
	if (gen_roce_spec(o, 0x64, &s, NULL, 0, 0))
		return ROCE_EARG;
	s.bth.dqpn = 1;
	s.bth.psn = (o->psn + (uint32_t)(i * o->psn_step)) & 0xffffff;
	s.ext.qkey = o->ext.qkey ? o->ext.qkey : ROCE_CM_QKEY;
	s.ext.src_qp = 1;
	s.payload = mad;
	s.payload_len = ROCE_MAD_LEN;
	return roce_build(buf, cap, &s);
}

int gen_build_frame(const struct gen_opts *o, const struct gen_kind *k, uint64_t i, uint8_t *buf,
		    size_t cap)
{
	switch (k->cls) {
	case GK_ROCE: {
		struct roce_frame_spec s;
		uint8_t pbuf[GEN_MAX_FRAME];

		/* an ATOMIC WRITE carries exactly 8 bytes: that is its default */
		uint32_t dflt = (k->opcode & 0x1f) == ROCE_OP_ATOMIC_WRITE ? 8 : 0;

		if (gen_roce_spec(o, k->opcode, &s, pbuf, sizeof(pbuf), gen_payload_len(o, dflt)))
			return ROCE_EARG;
		if (!roce_opcode_is_cnp(k->opcode))
			s.bth.psn = (o->psn + (uint32_t)(i * o->psn_step)) & 0xffffff;
		return roce_build(buf, cap, &s);
	}
	case GK_PAUSE:
	case GK_PFC:
	case GK_CNM:
	case GK_LLDP:
		return build_dcb(o, k, buf, cap);
	case GK_MPA_REQ:
	case GK_MPA_REP:
	case GK_FPDU:
		return build_iwarp(o, k, i, buf, cap);
	case GK_CM:
		return build_cm(o, k, i, buf, cap);
	}
	return ROCE_EARG;
}

/* ---- the command ------------------------------------------------------------------------------ */

#define BATCH 64

/* KIND, and the addresses it needs (resolved); -1 after saying what is wrong. */
static int frames_kind(struct gen_opts *o, struct gen_kind *k)
{
	int need_ip, need_dmac;

	if (!o->kind) {
		fprintf(stderr, GEN_NAME " frames: which KIND? (rocegen kinds lists them)\n");
		return -1;
	}
	if (gen_kind_parse(o->kind, k)) {
		fprintf(stderr, GEN_NAME " frames: unknown KIND '%s' (rocegen kinds lists them)\n", o->kind);
		return -1;
	}
	if (o->wrap && o->wrap->ib && k->cls != GK_ROCE && k->cls != GK_CM) {
		fprintf(stderr, GEN_NAME " frames: --ib carries RoCE frames, not %s\n", o->kind);
		return -1;
	}
	need_ip = k->cls == GK_ROCE || k->cls == GK_CM || k->cls == GK_MPA_REQ || k->cls == GK_MPA_REP ||
		  k->cls == GK_FPDU;
	need_dmac = need_ip || k->cls == GK_CNM;
	if (gen_resolve(o, need_ip, need_dmac))
		return -1;
	if (need_ip && o->version != ROCE_VER_V1 && o->src_ver != o->dst_ver) {
		fprintf(stderr, GEN_NAME ": --src and --dst are of different families\n");
		return -1;
	}
	return 0;
}

/* The frames, built BATCH at a time into bufs and sent at the pace's rate
 * (pps, else bits); -1 after saying what failed. */
static int frames_send(const struct gen_opts *o, const struct gen_kind *k, struct tx *t, uint8_t *bufs,
		       struct pace *pace, double pps)
{
	uint64_t count = o->count ? o->count : 1, i = 0;
	const uint8_t *fr[BATCH];
	uint32_t lens[BATCH];
	double costs[BATCH];

	while (i < count && !gen_stop) {
		unsigned want = count - i < BATCH ? (unsigned)(count - i) : BATCH, got;

		for (unsigned j = 0; j < want; j++) {
			int n = gen_build_frame(o, k, i + j, bufs + (size_t)j * GEN_MAX_FRAME, GEN_MAX_FRAME);

			if (n < 0) {
				fprintf(stderr, GEN_NAME " frames: frame %llu: %s\n",
					(unsigned long long)(i + j), roce_strerror(n));
				return -1;
			}
			fr[j] = bufs + (size_t)j * GEN_MAX_FRAME;
			lens[j] = (uint32_t)n;
			costs[j] = pps ? 1.0 : 8.0 * (n + 24);
		}
		got = pace_grant(pace, want, costs, &gen_stop);
		if (!got)
			break;
		if (tx_send_batch(t, fr, lens, got) < 0) {
			fprintf(stderr, GEN_NAME " frames: %s\n", tx_error(t));
			return -1;
		}
		i += got;
	}
	if (tx_flush(t)) {
		fprintf(stderr, GEN_NAME " frames: %s\n", tx_error(t));
		return -1;
	}
	return 0;
}

int gen_frames_main(int argc, char **argv)
{
	struct gen_opts o;
	struct gen_kind k;
	struct tx *t = NULL;
	struct pace pace;
	uint8_t *bufs = NULL;
	double pps, bps;
	uint64_t t0;
	int rc = 2, n, live;

	n = gen_parse(GEN_FRAMES, argc, argv, &o);
	if (n)
		return gen_parse_exit(n);
	if (frames_kind(&o, &k))
		goto out;
	bufs = malloc((size_t)BATCH * GEN_MAX_FRAME);
	if (!bufs)
		goto out;
	n = gen_build_frame(&o, &k, 0, bufs, GEN_MAX_FRAME);
	if (n < 0) {
		fprintf(stderr, GEN_NAME " frames: cannot build %s: %s\n", o.kind, roce_strerror(n));
		goto out;
	}
	t = gen_open_tx(&o, TX_LIBNET, (uint32_t)n);
	if (!t)
		goto out;
	live = tx_kind_is_live(tx_backend(t));
	gen_rate(&o, live, &pps, &bps);
	if (!live)
		pps = bps = 0;
	pace_init(&pace, pps ? pps : bps, pace_batch_for(pps ? pps : bps / (8.0 * (n + 24)), BATCH) *
					      (pps ? 1.0 : 8.0 * (n + 24)));
	gen_signals();
	t0 = pace_now_ns();
	if (frames_send(&o, &k, t, bufs, &pace, pps))
		goto out;
	if (live || o.verbose)
		gen_report("frames", t, t0, pace_now_ns());
	rc = 0;
out:
	tx_close(t);
	free(bufs);
	gen_opts_free(&o);
	return rc;
}
