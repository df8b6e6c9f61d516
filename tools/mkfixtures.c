/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkfixtures — writes the generated test captures (captures/gen/) with
 * libroce's builders.  Everything is deterministic: fixed addresses, values
 * and timestamps (2024-01-01 00:00:00 UTC, 1 ms apart in each file), so two
 * runs give the same bytes.
 *
 *   mkfixtures OUTDIR
 *
 * captures/README.md ("gen/") says what each file holds.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "roce.h"

#define T0 1704067200u   /* 2024-01-01T00:00:00Z */
#define MAXF 9216

/* ---- output ------------------------------------------------------------- */

struct out {
	pcap_t *p;
	pcap_dumper_t *d;
	unsigned n;
	char path[4096];
};

static const char *outdir;

/* "mkfixtures: what arg[: error]" and exit 1 */
static void die(const char *what, const char *arg, int err)
{
	fprintf(stderr, "mkfixtures: %s %s", what, arg);
	if (err)
		fprintf(stderr, ": %s", roce_strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* linktype: a libpcap DLT_* (pcap writes the matching LINKTYPE_*) */
static void out_open(struct out *o, const char *name, int linktype)
{
	snprintf(o->path, sizeof o->path, "%s/%s", outdir, name);
	o->n = 0;
	o->p = pcap_open_dead(linktype, 65535);
	if (!o->p)
		die("pcap_open_dead failed for", name, 0);
	o->d = pcap_dump_open(o->p, o->path);
	if (!o->d)
		die("cannot open", pcap_geterr(o->p), 0);
}

static void put(struct out *o, const uint8_t *f, uint32_t caplen, uint32_t len)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof h);
	h.ts.tv_sec = (time_t)(T0 + o->n / 1000);
	h.ts.tv_usec = (suseconds_t)(o->n % 1000) * 1000;
	h.caplen = caplen;
	h.len = len;
	pcap_dump((u_char *)o->d, &h, f);
	o->n++;
}

static void out_close(struct out *o)
{
	if (pcap_dump_flush(o->d) != 0)
		die("cannot write", o->path, 0);
	pcap_dump_close(o->d);
	pcap_close(o->p);
	printf("%-28s %4u frames\n", strrchr(o->path, '/') + 1, o->n);
}

/* ---- specs ---------------------------------------------------------------- */

static const uint8_t MAC1[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t MAC2[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

/* v2: 10.0.0.1 → 10.0.0.2 or fd00::1 → fd00::2; v1: link-local GIDs made
 * from the MACs (fe80::ff:fe00:1 → fe80::ff:fe00:2, as RoCEv1 does). */
static void spec_init(struct roce_frame_spec *s, enum roce_version v, int ipv, int reverse)
{
	int a = reverse ? 2 : 1, b = reverse ? 1 : 2;

	memset(s, 0, sizeof *s);
	s->version = v;
	memcpy(s->eth.src, reverse ? MAC2 : MAC1, 6);
	memcpy(s->eth.dst, reverse ? MAC1 : MAC2, 6);
	if (v == ROCE_VER_V1)
		ipv = 6;
	s->ip.version = (uint8_t)ipv;
	if (ipv == 4) {
		s->ip.src[0] = s->ip.dst[0] = 10;
		s->ip.src[3] = (uint8_t)a;
		s->ip.dst[3] = (uint8_t)b;
		s->ip.dont_fragment = 1;
	} else if (v == ROCE_VER_V1) {
		static const uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
						0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x00 };
		memcpy(s->ip.src, ll, 16);
		memcpy(s->ip.dst, ll, 16);
		s->ip.src[15] = (uint8_t)a;
		s->ip.dst[15] = (uint8_t)b;
	} else {
		s->ip.src[0] = s->ip.dst[0] = 0xfd;
		s->ip.src[15] = (uint8_t)a;
		s->ip.dst[15] = (uint8_t)b;
	}
	s->sport = 0xc123;
	s->bth.pkey = 0xffff;
	s->bth.pad = -1;
}

static uint8_t payload_bytes[MAXF];

/* Distinctive values per opcode: DestQP 0x01xxxx and PSN 0x20xxxx carry the
 * opcode, ext header values are recognisable patterns. */
static void op_values(struct roce_frame_spec *s, uint8_t op)
{
	const struct roce_opinfo *oi = roce_opcode_info(op);
	struct roce_ext_spec *x = &s->ext;

	s->bth.opcode = op;
	s->bth.dqpn = 0x010000u | (uint32_t)op << 4 | 0x1;
	s->bth.psn = 0x200000u + (uint32_t)op * 0x111;
	s->bth.se = oi->kind == ROCE_OK_SEND && (oi->seg == ROCE_SEG_ONLY || oi->seg == ROCE_SEG_LAST);
	s->bth.ackreq = oi->is_request && (oi->seg == ROCE_SEG_ONLY || oi->seg == ROCE_SEG_LAST);
	s->bth.migreq = (op & 0x20) == 0; /* RC/RD/XRC: APM armed; UC, UD: not */
	x->va = 0x00007f0000000000ull + (uint64_t)op * 0x1000;
	x->rkey = 0x00a00000u + op;
	x->dmalen = oi->kind == ROCE_OK_READ_REQ ? 4096 : 0x100 + op;
	x->swap_add = 0x1111111111111111ull * (op & 7);
	x->compare = 0xfedcba9876543210ull;
	x->orig = 0x0123456789abcdefull;
	x->syndrome = 0x1f;                /* ACK, credits invalid/unlimited */
	x->msn = 0x000300u + op;
	x->qkey = 0x12345678u;
	x->src_qp = 0x000042u;
	x->eecnxt = 0x00beefu;
	x->xrc_srq = 0x00c0deu;
	x->feth = 0x00000011u;
	x->imm = 0xdeadbe00u + op;
	x->inv_rkey = 0x0000ab00u + op;
	if (oi->hdrs & ROCE_H_PAYLOAD) {
		/* 8..36 bytes: every pad count 0..3 occurs */
		s->payload_len = oi->kind == ROCE_OK_ATOMIC_WRITE ? 8 : 8 + (op * 5u) % 29;
		s->payload = payload_bytes + op;
	} else {
		s->payload_len = 0;
		s->payload = NULL;
	}
	if (op == ROCE_OPCODE_CNP)
		roce_spec_cnp(s, 0x010811);
}

static int build(uint8_t *f, const struct roce_frame_spec *s, const char *what)
{
	int n = roce_build(f, MAXF, s);

	if (n < 0)
		die("roce_build:", what, n);
	return n;
}

static int tmpl(struct roce_tmpl *t, uint8_t *f, const struct roce_frame_spec *s, const char *what)
{
	int n = roce_tmpl_init(t, f, MAXF, s);

	if (n < 0)
		die("roce_tmpl_init:", what, n);
	return n;
}

static void put_spec(struct out *o, const struct roce_frame_spec *s, const char *what)
{
	uint8_t f[MAXF];
	int n = build(f, s, what);

	put(o, f, (uint32_t)n, (uint32_t)n);
}

/* AETH syndromes: ACK with credit counts, RNR NAK with timers, every NAK. */
static const uint8_t syndromes[] = {
	0x00, 0x0a, 0x1f,        /* ACK: 0 credits, 10 credits, unlimited */
	0x20, 0x2e, 0x3f,        /* RNR NAK: timer 0 (655.36 ms), 14 (1.28 ms), 31 */
	0x60, 0x61, 0x62, 0x63, 0x64, /* NAK: PSN seq, inv req, remote access, remote op, inv RD req */
};

/* ---- the files ----------------------------------------------------------------- */

static void gen_opcodes(const char *name, enum roce_version v, int ipv)
{
	struct roce_frame_spec s;
	struct out o;

	out_open(&o, name, DLT_EN10MB);
	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcode_info((uint8_t)op) || op == ROCE_OPCODE_CNP_IB)
			continue;     /* IB's CNP: in ib_lid_change.pcap */
		spec_init(&s, v, ipv, 0);
		op_values(&s, (uint8_t)op);
		put_spec(&o, &s, name);
	}
	/* RC ACK with every kind of syndrome, responder → requester */
	for (unsigned i = 0; i < sizeof syndromes; i++) {
		spec_init(&s, v, ipv, 1);
		op_values(&s, ROCE_OP_ACK);
		s.ext.syndrome = syndromes[i];
		s.ext.msn = 0x000400u + i;
		s.bth.psn = 0x200400u + i;
		put_spec(&o, &s, name);
	}
	out_close(&o);
}

static void gen_vlan(void)
{
	static const struct {
		uint8_t n;
		struct roce_vlan v[2];
	} tags[] = {
		{ 1, { { 0, 3, 0, 100 } } },
		{ 1, { { 0, 7, 1, 4094 } } },
		{ 1, { { 0, 5, 0, 0 } } },                        /* priority tag: VID 0 */
		{ 2, { { 0, 2, 0, 200 }, { 0, 3, 0, 100 } } },    /* 802.1ad + 802.1Q */
		{ 2, { { 0, 6, 1, 4000 }, { 0, 1, 1, 1 } } },
		{ 2, { { 0x8100, 4, 0, 10 }, { 0x8100, 4, 0, 20 } } }, /* two 802.1Q tags */
	};
	static const struct {
		enum roce_version v;
		int ipv;
	} encs[] = { { ROCE_VER_V2, 4 }, { ROCE_VER_V2, 6 }, { ROCE_VER_V1, 6 } };
	struct roce_frame_spec s;
	struct out o;

	out_open(&o, "vlan.pcap", DLT_EN10MB);
	for (unsigned e = 0; e < 3; e++)
		for (unsigned t = 0; t < sizeof tags / sizeof tags[0]; t++) {
			spec_init(&s, encs[e].v, encs[e].ipv, 0);
			op_values(&s, t & 1 ? ROCE_OP_ACK : ROCE_OP_SEND_ONLY);
			s.eth.n_vlan = tags[t].n;
			memcpy(s.eth.vlan, tags[t].v, sizeof s.eth.vlan);
			s.bth.psn = 0x000100u + e * 16 + t;
			put_spec(&o, &s, "vlan");
		}
	out_close(&o);
}

static void gen_ecn_dscp(void)
{
	static const uint8_t dscps[] = { 0, 10, 24, 26, 34, 46, 48, 63 };
	static const struct {
		enum roce_version v;
		int ipv;
	} encs[] = { { ROCE_VER_V2, 4 }, { ROCE_VER_V2, 6 }, { ROCE_VER_V1, 6 } };
	struct roce_frame_spec s;
	struct out o;
	unsigned k = 0;

	out_open(&o, "ecn_dscp.pcap", DLT_EN10MB);
	for (unsigned e = 0; e < 3; e++) {
		/* every ECN codepoint on DSCP 26 */
		for (uint8_t ecn = 0; ecn < 4; ecn++) {
			spec_init(&s, encs[e].v, encs[e].ipv, 0);
			op_values(&s, ROCE_OP_WRITE_ONLY);
			s.ip.dscp = 26;
			s.ip.ecn = ecn;
			s.ip.flow_label = 0x12345;
			s.bth.psn = 0x000500u + k++;
			put_spec(&o, &s, "ecn");
		}
		/* DSCPs, ECT(0) */
		for (unsigned d = 0; d < sizeof dscps; d++) {
			spec_init(&s, encs[e].v, encs[e].ipv, 0);
			op_values(&s, ROCE_OP_SEND_ONLY);
			s.ip.dscp = dscps[d];
			s.ip.ecn = 2;
			s.bth.psn = 0x000500u + k++;
			put_spec(&o, &s, "dscp");
		}
		/* FECN, BECN, both; CE-marked data with FECN, then the CNP */
		for (unsigned fb = 1; fb < 4; fb++) {
			spec_init(&s, encs[e].v, encs[e].ipv, 0);
			op_values(&s, ROCE_OP_SEND_MIDDLE);
			s.ip.dscp = 26;
			s.ip.ecn = 3;
			s.bth.fecn = fb & 1;
			s.bth.becn = fb >> 1;
			s.bth.psn = 0x000500u + k++;
			put_spec(&o, &s, "fecn/becn");
		}
		spec_init(&s, encs[e].v, encs[e].ipv, 1);
		roce_spec_cnp(&s, 0x010061);
		put_spec(&o, &s, "cnp");
	}
	out_close(&o);
}

static void gen_fcs(void)
{
	struct roce_frame_spec s;
	struct out o;

	out_open(&o, "fcs.pcap", DLT_EN10MB);
	/* 58 bytes padded to 60 + FCS */
	spec_init(&s, ROCE_VER_V2, 4, 1);
	op_values(&s, ROCE_OP_ACK);
	s.fcs = 1;
	put_spec(&o, &s, "fcs");
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	s.fcs = 1;
	put_spec(&o, &s, "fcs");
	spec_init(&s, ROCE_VER_V2, 6, 0);
	op_values(&s, ROCE_OP_WRITE_ONLY_IMM);
	s.payload_len = 1024;
	s.payload = payload_bytes;
	s.fcs = 1;
	put_spec(&o, &s, "fcs");
	spec_init(&s, ROCE_VER_V1, 6, 0);
	op_values(&s, ROCE_OP_READ_REQUEST);
	s.fcs = 1;
	put_spec(&o, &s, "fcs");
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, 0x64);
	s.eth.n_vlan = 1;
	s.eth.vlan[0].pcp = 3;
	s.eth.vlan[0].vid = 100;
	s.fcs = 1;
	put_spec(&o, &s, "fcs");
	spec_init(&s, ROCE_VER_V2, 4, 1);
	roce_spec_cnp(&s, 0x010011);
	s.fcs = 1;
	put_spec(&o, &s, "fcs");
	out_close(&o);
}

static void gen_bad_icrc(void)
{
	struct roce_frame_spec s;
	struct roce_tmpl t;
	uint8_t f[MAXF];
	struct out o;
	int n;

	out_open(&o, "bad_icrc.pcap", DLT_EN10MB);
	/* every ICRC bit inverted */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	s.bad_icrc = 1;
	put_spec(&o, &s, "bad icrc");
	spec_init(&s, ROCE_VER_V2, 6, 0);
	op_values(&s, ROCE_OP_WRITE_FIRST);
	s.bad_icrc = 1;
	put_spec(&o, &s, "bad icrc");
	spec_init(&s, ROCE_VER_V1, 6, 0);
	op_values(&s, ROCE_OP_SEND_ONLY_IMM);
	s.bad_icrc = 1;
	put_spec(&o, &s, "bad icrc");
	spec_init(&s, ROCE_VER_V2_1021, 4, 1);
	op_values(&s, ROCE_OP_ACK);
	s.bad_icrc = 1;
	put_spec(&o, &s, "bad icrc");
	spec_init(&s, ROCE_VER_V2, 4, 1);
	roce_spec_cnp(&s, 0x010011);
	s.bad_icrc = 1;
	put_spec(&o, &s, "bad icrc");
	/* correct ICRC, then one payload bit flipped (a corrupted frame) */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_WRITE_ONLY);
	n = tmpl(&t, f, &s, "bad icrc");
	f[t.payload_off + 3] ^= 0x10;
	put(&o, f, (uint32_t)n, (uint32_t)n);
	/* correct ICRC, then an unmasked header field changed (IPv6 source) */
	spec_init(&s, ROCE_VER_V2, 6, 0);
	op_values(&s, ROCE_OP_READ_REQUEST);
	n = tmpl(&t, f, &s, "bad icrc");
	f[t.ip_off + 8 + 15] ^= 0x80;
	put(&o, f, (uint32_t)n, (uint32_t)n);
	/* correct ICRC, then the BTH P_Key changed; with FCS recomputed so
	 * only the ICRC disagrees */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_FIRST);
	s.fcs = 1;
	n = tmpl(&t, f, &s, "bad icrc");
	f[t.bth_off + 3] ^= 0x01;
	{
		uint32_t fcs = roce_crc32(0, f, (size_t)n - 4);
		f[n - 4] = (uint8_t)fcs;
		f[n - 3] = (uint8_t)(fcs >> 8);
		f[n - 2] = (uint8_t)(fcs >> 16);
		f[n - 1] = (uint8_t)(fcs >> 24);
	}
	put(&o, f, (uint32_t)n, (uint32_t)n);
	out_close(&o);
}

/* Cuts a frame inside and at the end of every layer. */
static void cut_all(struct out *o, const struct roce_frame_spec *s, const char *what)
{
	static const struct {
		uint16_t h;
		uint32_t len;
	} ext[] = {
		{ ROCE_H_RDETH, ROCE_RDETH_LEN }, { ROCE_H_DETH, ROCE_DETH_LEN },
		{ ROCE_H_XRCETH, ROCE_XRCETH_LEN }, { ROCE_H_FETH, ROCE_FETH_LEN },
		{ ROCE_H_RETH, ROCE_RETH_LEN }, { ROCE_H_ATOMICETH, ROCE_ATOMICETH_LEN },
		{ ROCE_H_AETH, ROCE_AETH_LEN }, { ROCE_H_ATOMICACKETH, ROCE_ATOMICACKETH_LEN },
		{ ROCE_H_IMMDT, ROCE_IMMDT_LEN }, { ROCE_H_IETH, ROCE_IETH_LEN },
		{ ROCE_H_CNP_RSVD, ROCE_CNP_RSVD_LEN },
	};
	uint32_t b[64], nb = 0, cur, last = 0;
	uint16_t h = roce_opcode_info(s->bth.opcode)->hdrs;
	struct roce_tmpl t;
	uint8_t f[MAXF];
	int n = tmpl(&t, f, s, what);

	/* layer boundaries */
	b[nb++] = 0;
	b[nb++] = 12;                       /* MACs */
	b[nb++] = t.ip_off;                 /* Ethernet + tags */
	if (t.l4_off)
		b[nb++] = t.l4_off;
	b[nb++] = t.bth_off;
	cur = t.bth_off + ROCE_BTH_LEN;
	b[nb++] = cur;
	for (unsigned i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (h & ext[i].h)
			b[nb++] = cur += ext[i].len;
	if (t.payload_off != t.icrc_off)
		b[nb++] = t.payload_off + s->payload_len;  /* end of payload, pad follows */
	b[nb++] = t.icrc_off;
	b[nb++] = t.icrc_off + ROCE_ICRC_LEN;
	for (uint32_t i = 1; i < nb; i++) {
		uint32_t lo = b[i - 1], hi = b[i], mid = lo + (hi - lo) / 2;

		if (hi <= lo)
			continue;
		if (mid > last && mid < hi) {
			put(o, f, mid, (uint32_t)n);
			last = mid;
		}
		if (hi > last && hi < (uint32_t)n) {
			put(o, f, hi, (uint32_t)n);
			last = hi;
		}
	}
}

static void gen_truncated(void)
{
	static const struct {
		enum roce_version v;
		int ipv;
		uint8_t op;
		uint8_t vlan;
	} cases[] = {
		{ ROCE_VER_V2, 4, ROCE_OP_WRITE_ONLY_IMM, 1 }, /* RETH ImmDt payload */
		{ ROCE_VER_V2, 6, ROCE_OP_CMP_SWAP, 0 },       /* AtomicETH */
		{ ROCE_VER_V1, 6, ROCE_OP_ATOMIC_ACK, 0 },     /* AETH AtomicAckETH */
		{ ROCE_VER_V2, 4, 0x65, 2 },                   /* UD: DETH ImmDt payload */
		{ ROCE_VER_V2, 6, 0xb7, 0 },                   /* XRC SEND_ONLY_INV: XRCETH IETH */
		{ ROCE_VER_V2, 4, 0x44, 0 },                   /* RD SEND_ONLY: RDETH DETH */
		{ ROCE_VER_V2, 4, ROCE_OP_FLUSH, 0 },          /* FETH RETH */
		{ ROCE_VER_V2, 4, ROCE_OP_READ_RESP_ONLY, 0 }, /* AETH payload pad */
		{ ROCE_VER_V2_1021, 4, ROCE_OP_SEND_ONLY, 0 },
		{ ROCE_VER_V2, 4, ROCE_OPCODE_CNP, 0 },        /* 16 reserved bytes */
	};
	struct roce_frame_spec s;
	struct out o;

	out_open(&o, "truncated.pcap", DLT_EN10MB);
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		spec_init(&s, cases[i].v, cases[i].ipv, 0);
		op_values(&s, cases[i].op);
		s.eth.n_vlan = cases[i].vlan;
		s.eth.vlan[0].vid = 100;
		s.eth.vlan[1].vid = 200;
		if (s.payload_len)
			s.payload_len = 13;  /* pad 3 */
		cut_all(&o, &s, "truncated");
	}
	out_close(&o);
}

static void put_tmpl(struct out *o, struct roce_tmpl *t, int refresh)
{
	if (refresh)
		roce_tmpl_refresh(t);
	put(o, t->frame, t->len, t->len);
}

static void add16(uint8_t *b, unsigned v)
{
	unsigned x = (unsigned)(b[0] << 8 | b[1]) + v;

	b[0] = (uint8_t)(x >> 8);
	b[1] = (uint8_t)x;
}

static void fix_ip4_csum(uint8_t *ip)
{
	ip[10] = ip[11] = 0;
	uint16_t c = roce_inet_csum(ip, 20, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

static void gen_invalid(void)
{
	struct roce_frame_spec s;
	struct roce_tmpl t;
	uint8_t f[MAXF];
	struct out o;
	uint8_t *ip;

	out_open(&o, "invalid.pcap", DLT_EN10MB);

	/* 1: UDP length 8 bytes beyond the IP payload */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	tmpl(&t, f, &s, "invalid");
	add16(f + t.l4_off + 4, 8);
	put_tmpl(&o, &t, 1);

	/* 2: UDP length 16: too short for BTH + ICRC */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	tmpl(&t, f, &s, "invalid");
	f[t.l4_off + 4] = 0;
	f[t.l4_off + 5] = 16;
	put_tmpl(&o, &t, 1);

	/* 3: IPv4 total length 16, shorter than its header */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	tmpl(&t, f, &s, "invalid");
	ip = f + t.ip_off;
	ip[2] = 0;
	ip[3] = 16;
	fix_ip4_csum(ip);
	put_tmpl(&o, &t, 1);

	/* 4: IPv4 IHL 4 */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	tmpl(&t, f, &s, "invalid");
	ip = f + t.ip_off;
	ip[0] = 0x44;
	fix_ip4_csum(ip);
	put_tmpl(&o, &t, 1);

	/* 5: IPv4 header checksum wrong (ICRC good: the checksum is masked) */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	tmpl(&t, f, &s, "invalid");
	f[t.ip_off + 11] ^= 0x5a;
	put_tmpl(&o, &t, 1);

	/* 6: IPv6 payload length 100 bytes beyond the frame */
	spec_init(&s, ROCE_VER_V2, 6, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	tmpl(&t, f, &s, "invalid");
	add16(f + t.ip_off + 4, 100);
	put_tmpl(&o, &t, 1);

	/* 7, 8: reserved opcodes: RC 0x18, UD 0x60 (UD has only 0x64/0x65) */
	for (unsigned i = 0; i < 2; i++) {
		spec_init(&s, ROCE_VER_V2, 4, 0);
		op_values(&s, i ? 0x64 : ROCE_OP_SEND_ONLY);
		tmpl(&t, f, &s, "invalid");
		f[t.bth_off] = i ? 0x60 : 0x18;
		put_tmpl(&o, &t, 1);
	}

	/* 9: pad count 3 with no payload bytes at all */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	s.payload_len = 0;
	tmpl(&t, f, &s, "invalid");
	f[t.bth_off + 1] |= 0x30;
	put_tmpl(&o, &t, 1);

	/* 10: BTH TVer 1 */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	s.bth.tver = 1;
	put_spec(&o, &s, "invalid");

	/* 11: CNP with 4 bytes after the BTH instead of 16 (an RC ACK relabelled) */
	spec_init(&s, ROCE_VER_V2, 4, 1);
	op_values(&s, ROCE_OP_ACK);
	s.ext.syndrome = 0;
	s.ext.msn = 0;
	s.bth.psn = 0;
	s.bth.becn = 1;
	tmpl(&t, f, &s, "invalid");
	f[t.bth_off] = ROCE_OPCODE_CNP;
	put_tmpl(&o, &t, 1);

	/* 12: CNP with 32 bytes after the BTH (an RC SEND_ONLY relabelled) */
	spec_init(&s, ROCE_VER_V2, 4, 1);
	op_values(&s, ROCE_OP_SEND_ONLY);
	s.payload = NULL;
	s.payload_len = 32;
	s.bth.psn = 0;
	s.bth.becn = 1;
	tmpl(&t, f, &s, "invalid");
	f[t.bth_off] = ROCE_OPCODE_CNP;
	f[t.bth_off + 1] = 0;      /* no SE, no pad */
	f[t.bth_off + 8] = 0;      /* no AckReq */
	put_tmpl(&o, &t, 1);

	/* 13: RC WRITE_ONLY whose RETH runs past the ICRC (an ACK relabelled) */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_ACK);
	tmpl(&t, f, &s, "invalid");
	f[t.bth_off] = ROCE_OP_WRITE_ONLY;
	put_tmpl(&o, &t, 1);

	/* 14: RC READ_REQUEST followed by 8 stray bytes */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_WRITE_ONLY);
	s.payload_len = 8;
	tmpl(&t, f, &s, "invalid");
	f[t.bth_off] = ROCE_OP_READ_REQUEST;
	put_tmpl(&o, &t, 1);

	/* 15: ATOMIC WRITE with 16 payload bytes instead of 8 */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_ATOMIC_WRITE);
	s.payload_len = 16;
	put_spec(&o, &s, "invalid");

	/* 16: 4100-byte payload, beyond the 4096-byte IB MTU */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_MIDDLE);
	s.payload = payload_bytes;
	s.payload_len = 4100;
	put_spec(&o, &s, "invalid");

	/* 17: payload + pad not a multiple of 4 (PadCnt 0, 5 bytes) */
	spec_init(&s, ROCE_VER_V2, 4, 0);
	op_values(&s, ROCE_OP_SEND_ONLY);
	s.payload_len = 5;
	s.bth.pad = 0;
	put_spec(&o, &s, "invalid");

	out_close(&o);
}

static void gen_cm(void)
{
	struct cmsg {
		uint16_t attr;
		int reverse;
	};
	static const struct cmsg seq[] = {
		{ ROCE_CM_REQ, 0 }, { ROCE_CM_MRA, 1 }, { ROCE_CM_REP, 1 }, { ROCE_CM_RTU, 0 },
		{ ROCE_CM_DREQ, 0 }, { ROCE_CM_DREP, 1 },
		{ ROCE_CM_REQ, 0 }, { ROCE_CM_REJ, 1 },
		{ ROCE_CM_SIDR_REQ, 0 }, { ROCE_CM_SIDR_REP, 1 },
	};
	static const uint8_t priv[] = "rocetop mkfixtures private data";
	struct roce_frame_spec s;
	struct out o;
	uint8_t mad[ROCE_MAD_LEN];
	int n;

	/* probe first: without roce_build_cm there is no cm.pcap */
	{
		struct roce_cm cm;
		memset(&cm, 0, sizeof cm);
		cm.attr_id = ROCE_CM_RTU;
		n = roce_build_cm(mad, sizeof mad, &cm, NULL, 0);
		if (n < 0) {
			fprintf(stderr, "mkfixtures: cm.pcap skipped: roce_build_cm: %s\n", roce_strerror(n));
			return;
		}
	}
	out_open(&o, "cm.pcap", DLT_EN10MB);
	for (unsigned i = 0; i < sizeof seq / sizeof seq[0]; i++) {
		struct roce_cm cm;
		int second = i >= 6;   /* the REQ that is rejected */
		uint32_t cli = second ? 0x1002 : 0x1001, srv = 0x2001;
		uint32_t cli_qp = second ? 0x000112 : 0x000111, srv_qp = 0x000222;

		memset(&cm, 0, sizeof cm);
		cm.method = 3;
		cm.attr_id = seq[i].attr;
		cm.tid = 0x0000000100000000ull | (second ? 2 : 1) << 8 | i;
		cm.local_comm_id = seq[i].reverse ? srv : cli;
		cm.remote_comm_id = seq[i].attr == ROCE_CM_REQ ? 0 : seq[i].reverse ? cli : srv;
		switch (seq[i].attr) {
		case ROCE_CM_REQ:
			cm.service_id = 0x0000000001061c06ull; /* RDMA_PS_TCP, port 7174 */
			cm.ca_guid = 0x0200000000000001ull;
			cm.local_qpn = cli_qp;
			cm.resp_resources = 4;
			cm.init_depth = 4;
			cm.start_psn = 0x00abc0;
			cm.local_resp_timeout = 20;
			cm.remote_resp_timeout = 20;
			cm.transport = 0;
			cm.retry_count = 7;
			cm.rnr_retry_count = 7;
			cm.pkey = 0xffff;
			cm.path_mtu = 3;
			cm.local_ack_timeout = 14;
			cm.primary_local_gid[10] = cm.primary_local_gid[11] = 0xff;
			cm.primary_local_gid[12] = 10;
			cm.primary_local_gid[15] = 1;
			memcpy(cm.primary_remote_gid, cm.primary_local_gid, 16);
			cm.primary_remote_gid[15] = 2;
			cm.has_ip_hdr = 1;
			cm.ip_major = 0;
			cm.ip_minor = 0;
			cm.ip_version = 4;
			cm.ip_sport = 0x9c40;
			cm.ip_src[12] = cm.ip_dst[12] = 10;
			cm.ip_src[15] = 1;
			cm.ip_dst[15] = 2;
			break;
		case ROCE_CM_REP:
			cm.local_qpn = srv_qp;
			cm.start_psn = 0x00def0;
			cm.resp_resources = 4;
			cm.init_depth = 4;
			cm.target_ack_delay = 15;
			cm.rnr_retry_count = 7;
			cm.ca_guid = 0x0200000000000002ull;
			break;
		case ROCE_CM_MRA:
			cm.msg_mraed = 0;  /* REQ */
			cm.service_timeout = 18;
			break;
		case ROCE_CM_REJ:
			cm.msg_mraed = 0;  /* REQ */
			cm.rej_reason_valid = 1;
			cm.rej_reason = 28; /* consumer defined */
			break;
		case ROCE_CM_DREQ:
			cm.remote_qpn = srv_qp;
			break;
		case ROCE_CM_SIDR_REQ:
			cm.sidr_request_id = 0x5151;
			cm.pkey = 0xffff;
			cm.service_id = 0x0000000001111c06ull; /* RDMA_PS_UDP, port 7174 */
			cm.has_ip_hdr = 1;
			cm.ip_version = 4;
			cm.ip_sport = 0x9c41;
			cm.ip_src[12] = cm.ip_dst[12] = 10;
			cm.ip_src[15] = 1;
			cm.ip_dst[15] = 2;
			cm.local_comm_id = 0;
			cm.remote_comm_id = 0;
			break;
		case ROCE_CM_SIDR_REP:
			cm.sidr_request_id = 0x5151;
			cm.sidr_status = 0;
			cm.local_qpn = 0x000333;
			cm.qkey = 0x01234567;
			cm.service_id = 0x0000000001111c06ull;
			cm.local_comm_id = 0;
			cm.remote_comm_id = 0;
			break;
		default:
			break;
		}
		n = roce_build_cm(mad, sizeof mad,
				  &cm, seq[i].attr == ROCE_CM_REQ || seq[i].attr == ROCE_CM_REP ? priv : NULL,
				  seq[i].attr == ROCE_CM_REQ || seq[i].attr == ROCE_CM_REP ? sizeof priv : 0);
		if (n < 0)
			die("roce_build_cm", roce_cm_attr_name(seq[i].attr), n);
		spec_init(&s, ROCE_VER_V2, 4, seq[i].reverse);
		s.bth.opcode = 0x64;
		s.bth.dqpn = 1;
		s.bth.psn = 0x000010u + i;
		s.bth.se = 0;
		s.ext.qkey = ROCE_CM_QKEY;
		s.ext.src_qp = 1;
		s.payload = mad;
		s.payload_len = (uint32_t)n;
		put_spec(&o, &s, "cm");
	}
	out_close(&o);
}

/* Length of the network datagram of a built frame (no Ethernet padding/FCS). */
static uint32_t l3_len(const struct roce_tmpl *t)
{
	return t->icrc_off + ROCE_ICRC_LEN - t->ip_off;
}

static void gen_linktypes(void)
{
	static const struct {
		enum roce_version v;
		int ipv;
		uint8_t op;
		uint8_t pkttype;
	} cases[] = {
		{ ROCE_VER_V2, 4, ROCE_OP_SEND_ONLY, 0 },
		{ ROCE_VER_V2, 4, ROCE_OP_ACK, 4 },   /* outgoing */
		{ ROCE_VER_V2, 6, ROCE_OP_WRITE_ONLY_IMM, 0 },
		{ ROCE_VER_V1, 6, ROCE_OP_READ_REQUEST, 0 },
		{ ROCE_VER_V2, 4, ROCE_OPCODE_CNP, 0 },
	};
	struct roce_frame_spec s;
	struct roce_tmpl t;
	uint8_t f[MAXF], g[MAXF];
	struct out sll, sll2, raw;

	out_open(&sll, "linktypes_sll.pcap", DLT_LINUX_SLL);
	out_open(&sll2, "linktypes_sll2.pcap", DLT_LINUX_SLL2);
	out_open(&raw, "linktypes_raw.pcap", DLT_RAW); /* stored as LINKTYPE_RAW 101 */
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t n;
		uint16_t proto;

		spec_init(&s, cases[i].v, cases[i].ipv, cases[i].pkttype == 4);
		op_values(&s, cases[i].op);
		tmpl(&t, f, &s, "linktypes");
		n = l3_len(&t);
		proto = (uint16_t)(f[t.ip_off - 2] << 8 | f[t.ip_off - 1]);

		/* SLL: pkttype, ARPHRD_ETHER, address length, address(8), protocol */
		memset(g, 0, 16);
		g[1] = cases[i].pkttype;
		g[3] = 1;
		g[5] = 6;
		memcpy(g + 6, f + 6, 6);
		g[14] = (uint8_t)(proto >> 8);
		g[15] = (uint8_t)proto;
		memcpy(g + 16, f + t.ip_off, n);
		put(&sll, g, 16 + n, 16 + n);

		/* SLL2: protocol, reserved, ifindex, ARPHRD_ETHER, pkttype, address length, address(8) */
		memset(g, 0, 20);
		g[0] = (uint8_t)(proto >> 8);
		g[1] = (uint8_t)proto;
		g[7] = 3;
		g[9] = 1;
		g[10] = cases[i].pkttype;
		g[11] = 6;
		memcpy(g + 12, f + 6, 6);
		memcpy(g + 20, f + t.ip_off, n);
		put(&sll2, g, 20 + n, 20 + n);

		if (cases[i].v != ROCE_VER_V1)
			put(&raw, f + t.ip_off, n, n);
	}
	out_close(&sll);
	out_close(&sll2);
	out_close(&raw);
}

static void gen_udp_checksum(void)
{
	struct roce_frame_spec s;
	struct roce_tmpl t;
	uint8_t f[MAXF], pl[64];
	struct out o;

	out_open(&o, "udp_checksum.pcap", DLT_EN10MB);
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		spec_init(&s, ROCE_VER_V2, ipv, 0);
		op_values(&s, ROCE_OP_SEND_ONLY);
		s.udp_checksum = 1;
		put_spec(&o, &s, "udp csum");
		spec_init(&s, ROCE_VER_V2, ipv, 1);
		op_values(&s, ROCE_OP_ACK);
		s.udp_checksum = 1;
		put_spec(&o, &s, "udp csum");
		spec_init(&s, ROCE_VER_V2, ipv, 0);
		op_values(&s, 0x65);
		s.udp_checksum = 1;
		s.eth.n_vlan = 1;
		s.eth.vlan[0].vid = 100;
		put_spec(&o, &s, "udp csum");
		/* The first payload bytes chosen so the checksum computes to 0 and goes on
		 * the wire as 0xffff (RFC 768).  The search is deterministic. */
		spec_init(&s, ROCE_VER_V2, ipv, 0);
		op_values(&s, ROCE_OP_SEND_ONLY);
		memcpy(pl, payload_bytes, sizeof pl);
		s.payload = pl;
		s.payload_len = sizeof pl;
		s.udp_checksum = 1;
		for (uint32_t w = 0;; w++) {
			if (w > 0xffffff)
				die("no payload bytes give", "UDP checksum 0", 0);
			pl[0] = (uint8_t)(w >> 16);
			pl[1] = (uint8_t)(w >> 8);
			pl[2] = (uint8_t)w;
			tmpl(&t, f, &s, "udp csum");
			/* a computed checksum is never 0xffff (that needs an all-zero
			 * sum), so 0xffff on the wire is always the remapped 0 */
			if (f[t.l4_off + 6] == 0xff && f[t.l4_off + 7] == 0xff)
				break;
		}
		put(&o, f, t.len, t.len);
	}
	out_close(&o);
}

/* Native InfiniBand: every opcode LID-routed (LNH 2) and with a GRH
 * (LNH 3), as LINKTYPE_INFINIBAND and as ibdump's ERF type 21 records
 * (tshark reads only the latter); one bad ICRC and one bad VCRC. */
static int ib_frame(uint8_t *f, unsigned op, int grh, int k)
{
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { .vl = 0, .sl = (uint8_t)(k & 15), .dlid = 0x0002, .slid = 0x0001,
				   .grh = (uint8_t)grh };
	int n;

	spec_init(&s, ROCE_VER_V1, 6, 0);
	op_values(&s, (uint8_t)op);
	s.bad_icrc = k == 7;
	n = roce_build_ib(f, MAXF, &s, &l);
	if (n < 0)
		die("roce_build_ib failed:", roce_strerror(n), 0);
	if (k == 11)
		f[n - 1] ^= 0x5a;     /* VCRC */
	return n;
}

static void gen_ib(void)
{
	struct out o, e;
	uint8_t f[MAXF], r[MAXF + 64];
	int k = 0;

	out_open(&o, "ib_native.pcap", 247);
	out_open(&e, "ib_erf.pcap", 197);
	for (int grh = 0; grh < 2; grh++)
		for (unsigned op = 0; op < 256; op++) {
			int n, m;

			if (!roce_opcode_info((uint8_t)op) || roce_opcode_is_cnp((uint8_t)op))
				continue;
			n = ib_frame(f, op, grh, k++);
			put(&o, f, (uint32_t)n, (uint32_t)n);
			m = roce_build_erf(r, sizeof r, 21, (uint64_t)(T0 + k) << 32, (uint16_t)(k == 5),
					   f, (uint32_t)n, (uint32_t)n);
			put(&e, r, (uint32_t)m, (uint32_t)m);
		}
	out_close(&o);
	out_close(&e);
}

/* A QP whose LIDs change in mid-connection (flow identity; tests/link.sh):
 * RC WRITE_ONLY requests from A (QP 0x100) to B's QP 0x200, PSNs from
 * 0xfffff8 (wrapping), B ACKing to QP 0x100.  LID pairs: base LIDs 0x10 ->
 * 0x20 for requests 0-9; LMC path bits 0x12 -> 0x22 from a retransmission
 * of request 9 (a duplicate) and requests 10-19; migrated to the alternate
 * path 0x31 -> 0x41 for 20-35, request 25 lost before the capture point (a
 * gap), requests 30 and 31 with FECN, the ACK of 31 with BECN, and an IB
 * CNP (0x80) from B after request 33.  ib_lid_fixed.pcap: the same packets
 * between LIDs 0x10 and 0x20 throughout (the reference). */
static void ib_conn_frame(struct out *o, int fixed, int at, int i, int resp, int cnp, int mark)
{
	static const uint16_t lids[3][2] = { { 0x10, 0x20 }, { 0x12, 0x22 }, { 0x31, 0x41 } };
	int path = fixed ? 0 : at < 10 ? 0 : at < 20 ? 1 : 2;
	struct roce_lrh_spec l = { .sl = 3, .slid = lids[path][resp], .dlid = lids[path][!resp] };
	struct roce_frame_spec s;
	uint8_t f[MAXF];
	int n;

	spec_init(&s, ROCE_VER_V1, 6, resp);
	s.bth.opcode = cnp ? ROCE_OPCODE_CNP_IB : resp ? ROCE_OP_ACK : ROCE_OP_WRITE_ONLY;
	s.bth.dqpn = resp ? 0x100 : 0x200;
	s.bth.psn = cnp ? 0 : (0xfffff8u + (uint32_t)i) & 0xffffff;
	s.bth.fecn = (uint8_t)(mark && !resp);
	s.bth.becn = (uint8_t)((mark && resp) || cnp);
	s.bth.ackreq = (uint8_t)(!resp && i % 4 == 3);
	if (resp) {
		s.ext.syndrome = 0x1f;
		s.ext.msn = (uint32_t)i + 1;
	} else if (!cnp) {
		s.ext.va = 0x10000u + 64u * (uint32_t)i;
		s.ext.rkey = 0x1234;
		s.ext.dmalen = 64;
		s.payload = payload_bytes;
		s.payload_len = 64;
	}
	n = roce_build_ib(f, MAXF, &s, &l);
	if (n < 0)
		die("roce_build_ib failed:", roce_strerror(n), n);
	put(o, f, (uint32_t)n, (uint32_t)n);
}

static void gen_ib_lid_change(const char *name, int fixed)
{
	struct out o;

	out_open(&o, name, 247);
	for (int i = 0; i < 36; i++) {
		if (i == 10)
			ib_conn_frame(&o, fixed, 10, 9, 0, 0, 0);  /* request 9 again, on the new pair */
		if (i != 25)
			ib_conn_frame(&o, fixed, i, i, 0, 0, i == 30 || i == 31);
		if (i % 4 == 3)
			ib_conn_frame(&o, fixed, i, i, 1, 0, i == 31);
		if (i == 33)
			ib_conn_frame(&o, fixed, i, i, 1, 1, 0);
	}
	out_close(&o);
}

/* IPoIB (RFC 4391) in ibdump's ERF type 21 records (tshark reads them):
 * IPv4 TCP and IPv6 TCP datagrams LID-routed between LIDs 5 and 7 (QPs
 * 0x48 and 0x49, Q_Key 0x0b), an ARP request to the broadcast group (GRH,
 * multicast DLID 0xc001, DestQP 0xffffff) and its unicast reply. */
static int ipoib_one(uint8_t *f, int k, uint16_t type, const uint8_t *d, uint32_t n)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	struct roce_lrh_spec l = { .sl = 0, .slid = k & 1 ? 7 : 5, .dlid = k & 1 ? 5 : 7, .grh = k == 2 };
	struct roce_frame_spec s;
	int r;

	spec_init(&s, ROCE_VER_V1, 6, k & 1);
	s.bth.pkey = 0xffff;
	s.bth.dqpn = k == 2 ? 0xffffff : k & 1 ? 0x48 : 0x49;
	s.ext.qkey = 0x0b;
	s.ext.src_qp = k & 1 ? 0x49 : 0x48;
	if (k == 2) {
		memcpy(s.ip.dst, mgid, 16);
		l.dlid = 0xc001;
	}
	r = roce_build_ipoib(f, MAXF, &s, &l, type, d, n);
	if (r < 0)
		die("roce_build_ipoib failed:", roce_strerror(r), r);
	return r;
}

static void gen_ipoib(void)
{
	static const uint8_t ip5[4] = { 192, 168, 50, 5 }, ip7[4] = { 192, 168, 50, 7 };
	uint8_t f[MAXF], r[MAXF + 64], d[256], hw5[20] = { 0, 0, 0, 0x48, 0xfe, 0x80 }, hw7[20] = { 0, 0, 0, 0x49, 0xfe, 0x80 };
	struct roce_eth_spec eth = { .dst = { 0 } };
	struct roce_ip_spec ip;
	struct out e;
	int n, m;

	hw5[19] = 5;
	hw7[19] = 7;
	out_open(&e, "ipoib_erf.pcap", 197);
	for (int k = 0; k < 4; k++) {
		if (k < 2) {
			memset(&ip, 0, sizeof ip);
			ip.version = (uint8_t)(k ? 6 : 4);
			if (k) {
				ip.src[0] = ip.dst[0] = 0xfd;
				ip.src[15] = 7;
				ip.dst[15] = 5;
			} else {
				memcpy(ip.src, ip5, 4);
				memcpy(ip.dst, ip7, 4);
			}
			n = roce_build_tcp_frame(d, sizeof d, &eth, &ip, (uint16_t)(40000 + k), 22, 1000u * (uint32_t)k,
						 0, k ? ROCE_TCP_ACK | ROCE_TCP_PSH : ROCE_TCP_SYN, payload_bytes,
						 k ? 16 : 0);
			if (n < 14)
				die("roce_build_tcp_frame failed", "", n);
			n = ipoib_one(f, k, k ? ROCE_ETH_IPV6 : ROCE_ETH_IPV4, d + 14, (uint32_t)n - 14);
		} else {
			n = k == 2 ? roce_build_ipoib_arp(d, sizeof d, 1, hw5, ip5, (uint8_t[20]){ 0 }, ip7)
				   : roce_build_ipoib_arp(d, sizeof d, 2, hw7, ip7, hw5, ip5);
			n = ipoib_one(f, k, ROCE_ETH_ARP, d, (uint32_t)n);
		}
		m = roce_build_erf(r, sizeof r, 21, (uint64_t)(T0 + k) << 32, 0, f, (uint32_t)n, (uint32_t)n);
		put(&e, r, (uint32_t)m, (uint32_t)m);
	}
	out_close(&e);
}

/* ERF type 2: RoCEv2 frames with their FCS (one bad), one cut short */
static void gen_erf_eth(void)
{
	struct roce_frame_spec s;
	struct out o;
	uint8_t f[MAXF], r[MAXF + 64];

	out_open(&o, "erf_eth.pcap", 197);
	for (unsigned i = 0; i < 8; i++) {
		int n, m;

		spec_init(&s, ROCE_VER_V2, 4, i & 1);
		op_values(&s, i & 1 ? ROCE_OP_ACK : ROCE_OP_SEND_ONLY);
		s.bth.psn = 100 + i / 2;
		n = build(f, &s, "erf_eth");
		m = roce_build_erf(r, sizeof r, 2, (uint64_t)(T0 + i) << 32, 0, f, (uint32_t)n,
				   i == 6 ? 60u : (uint32_t)n + 4);
		if (i == 4)
			r[m - 1] ^= 0xff;     /* bad FCS */
		put(&o, r, (uint32_t)m, (uint32_t)m);
	}
	out_close(&o);
}

/* Mirror copies of a few RoCEv2 frames: ERSPAN II and III, GRE-TEB, VXLAN */
static void gen_encap(void)
{
	static const struct { const char *name; enum roce_encap_kind k; int v6, vlan; } t[] = {
		{ "erspan2.pcap", ROCE_ENCAP_ERSPAN2, 0, 1 },
		{ "erspan3.pcap", ROCE_ENCAP_ERSPAN3, 1, 0 },
		{ "gre_teb.pcap", ROCE_ENCAP_GRE_TEB, 0, 2 },
		{ "vxlan.pcap", ROCE_ENCAP_VXLAN, 0, 0 },
	};

	for (unsigned j = 0; j < sizeof t / sizeof t[0]; j++) {
		struct roce_frame_spec s;
		struct roce_encap_spec es;
		struct out o;
		uint8_t f[MAXF], w[MAXF + 128];

		out_open(&o, t[j].name, DLT_EN10MB);
		for (unsigned i = 0; i < 6; i++) {
			int n, m;

			spec_init(&s, ROCE_VER_V2, 4, i & 1);
			op_values(&s, i & 1 ? ROCE_OP_ACK : ROCE_OP_WRITE_ONLY);
			s.bth.psn = 200 + i / 2;
			n = build(f, &s, t[j].name);
			memset(&es, 0, sizeof es);
			es.kind = t[j].k;
			memcpy(es.eth.src, MAC1, 6);
			memcpy(es.eth.dst, MAC2, 6);
			es.eth.n_vlan = (uint8_t)t[j].vlan;
			es.eth.vlan[0].vid = 10;
			es.eth.vlan[1].vid = 20;
			es.ip.version = (uint8_t)(t[j].v6 ? 6 : 4);
			es.ip.src[0] = es.ip.dst[0] = t[j].v6 ? 0xfd : 192;
			es.ip.src[15] = es.ip.src[3] = 1;
			es.ip.dst[15] = es.ip.dst[3] = 2;
			es.gre_seq = i;
			es.gre_key_present = j == 0;
			es.gre_key = 0x77;
			es.session = (uint16_t)(100 + j);
			es.index = i;
			es.timestamp = 0x1000000u + i * 1000;
			es.gra = 1;
			es.hwid = 3;
			es.trunc = i == 4;
			es.vni = 5000 + j;
			m = roce_build_encap(w, sizeof w, &es, f, i == 4 ? 64u : (uint32_t)n);
			if (m < 0)
				die("roce_build_encap failed:", roce_strerror(m), 0);
			put(&o, w, (uint32_t)m, (uint32_t)m);
		}
		out_close(&o);
	}
}

/* ---- iWARP framing lost (issue 11 item 7) --------------------------------------------------
 *
 * One TCP connection 10.0.0.1:40001 → 10.0.0.2:7174 (not a configured
 * iWARP port: iWARP is found by the MPA frames), three-way handshake, MPA
 * request and reply, then the client's FPDUs, each RDMA WRITE (tagged,
 * STag 0x1000 + i, TO i × 0x10000) of IW_N bytes, every payload byte 0x02:
 * a DDP header read out of payload shows queue number 0x02020202. */

#define IW_CPORT 40001
#define IW_SPORT 7174
#define IW_PAYB 0x02
#define IW_MSS 1460

struct iwc {
	struct out o;
	uint32_t seq[2];                      /* next sequence number: [0] client → server */
	uint32_t start[2];                    /* first byte of each FPDU stream */
};

/* One TCP segment of direction dir (0: client → server); flags ROCE_TCP_*. */
static void iw_seg(struct iwc *c, int dir, const uint8_t *pl, size_t n, uint8_t flags)
{
	static uint8_t f[MAXF];
	struct roce_eth_spec eth;
	struct roce_ip_spec ip;
	int len;

	memset(&eth, 0, sizeof eth);
	memset(&ip, 0, sizeof ip);
	memcpy(eth.src, dir ? MAC2 : MAC1, 6);
	memcpy(eth.dst, dir ? MAC1 : MAC2, 6);
	ip.version = 4;
	ip.src[0] = ip.dst[0] = 10;
	ip.src[3] = (uint8_t)(dir ? 2 : 1);
	ip.dst[3] = (uint8_t)(dir ? 1 : 2);
	ip.dont_fragment = 1;
	ip.ip_id = (uint16_t)c->o.n;
	len = roce_build_tcp_frame(f, sizeof f, &eth, &ip, dir ? IW_SPORT : IW_CPORT, dir ? IW_CPORT : IW_SPORT,
				   c->seq[dir], c->seq[!dir], flags, pl, n);
	if (len < 0)
		die("cannot build", "iWARP TCP segment", len);
	put(&c->o, f, (uint32_t)len, (uint32_t)len);
	c->seq[dir] += (uint32_t)n + ((flags & (ROCE_TCP_SYN | ROCE_TCP_FIN)) ? 1 : 0);
}

/* Handshake, MPA request (client, req_flags) and reply (server, rep_flags). */
static void iw_open(struct iwc *c, const char *name, uint8_t req_flags, uint8_t rep_flags)
{
	static const struct roce_mpa_rtr rtr = { 8, 8, 1, 0, 1, 0 };
	uint8_t fr[64];
	int n;

	out_open(&c->o, name, DLT_EN10MB);
	c->seq[0] = 0x10000000u;
	c->seq[1] = 0x20000000u;
	iw_seg(c, 0, NULL, 0, ROCE_TCP_SYN);
	iw_seg(c, 1, NULL, 0, ROCE_TCP_SYN | ROCE_TCP_ACK);
	iw_seg(c, 0, NULL, 0, ROCE_TCP_ACK);
	n = roce_mpa_build_frame(fr, sizeof fr, ROCE_MPA_REQ, req_flags, 2, &rtr, NULL, 0);
	if (n < 0)
		die("cannot build", "MPA request", n);
	iw_seg(c, 0, fr, (size_t)n, ROCE_TCP_ACK | ROCE_TCP_PSH);
	n = roce_mpa_build_frame(fr, sizeof fr, ROCE_MPA_REP, rep_flags, 2, &rtr, NULL, 0);
	if (n < 0)
		die("cannot build", "MPA reply", n);
	iw_seg(c, 1, fr, (size_t)n, ROCE_TCP_ACK | ROCE_TCP_PSH);
	c->start[0] = c->seq[0];
	c->start[1] = c->seq[1];
}

static void iw_close(struct iwc *c)
{
	iw_seg(c, 0, NULL, 0, ROCE_TCP_FIN | ROCE_TCP_ACK);
	iw_seg(c, 1, NULL, 0, ROCE_TCP_FIN | ROCE_TCP_ACK);
	iw_seg(c, 0, NULL, 0, ROCE_TCP_ACK);
	out_close(&c->o);
}

/* The ULPDU of WRITE i with n payload bytes of IW_PAYB. */
static int iw_ulpdu(uint8_t *dst, size_t cap, unsigned i, uint32_t n)
{
	static uint8_t pay[4096];
	struct roce_iwarp_msg_spec m;
	int len;

	memset(pay, IW_PAYB, sizeof pay);
	memset(&m, 0, sizeof m);
	m.opcode = ROCE_RDMAP_WRITE;
	m.last = 1;
	m.stag = 0x1000 + i;
	m.to = (uint64_t)i << 16;
	m.payload = pay;
	m.payload_len = n;
	len = roce_iwarp_build_ulpdu(dst, cap, &m);
	if (len < 0)
		die("cannot build", "ULPDU", len);
	return len;
}

/* FPDU i (no markers) into dst; crc: computed, else zero. */
static int iw_fpdu(uint8_t *dst, size_t cap, unsigned i, uint32_t n, int crc)
{
	uint8_t ul[4200];
	int u = iw_ulpdu(ul, sizeof ul, i, n), w;

	w = roce_mpa_build_fpdu(dst, cap, ul, (size_t)u, crc, 0, 0);
	if (w < 0)
		die("cannot build", "FPDU", w);
	return w;
}

/* Sends an FPDU as segments of at most IW_MSS bytes; drop: skip the k-th
 * one (capture loss: its sequence space goes by unseen), -1 none. */
static void iw_send(struct iwc *c, const uint8_t *b, uint32_t len, int drop)
{
	for (uint32_t at = 0, k = 0; at < len; k++) {
		uint32_t n = len - at < IW_MSS ? len - at : IW_MSS;

		if ((int)k == drop)
			c->seq[0] += n;
		else
			iw_seg(c, 0, b + at, n, ROCE_TCP_ACK | ROCE_TCP_PSH);
		at += n;
	}
}

/* (a) markers asked for by the server (M in its reply), no CRC; the client
 * misplaces them: 512 bytes after the first, then every 516 (it counts
 * payload bytes between markers), and writes FPDUPTR least significant byte
 * first.  40 WRITEs of 1000 bytes, one FPDU (with its markers) a segment. */
static void gen_iwarp_markers(void)
{
	static uint8_t wire[65536];
	struct iwc c;
	uint32_t w = 0, next_mk = 0, gap = 512;

	iw_open(&c, "iwarp_misplaced_markers.pcap", ROCE_MPA_FLAG_ENHANCED, ROCE_MPA_FLAG_M);
	for (unsigned i = 0; i < 40; i++) {
		uint8_t fp[1100];
		uint32_t fl = (uint32_t)iw_fpdu(fp, sizeof fp, i, 1000, 0), seg = w, fstart = w;

		for (uint32_t k = 0; k < fl; k++) {
			if (w == next_mk) {
				uint32_t ptr = w - fstart;

				if (w + 4 > sizeof wire)
					die("too long:", "iwarp_misplaced_markers", 0);
				wire[w] = wire[w + 1] = 0;
				wire[w + 2] = (uint8_t)ptr;            /* byte-swapped */
				wire[w + 3] = (uint8_t)(ptr >> 8);
				w += 4;
				next_mk += gap;
				gap = 516;
			}
			wire[w++] = fp[k];
		}
		iw_seg(&c, 0, wire + seg, w - seg, ROCE_TCP_ACK | ROCE_TCP_PSH);
		if (i % 8 == 7)
			iw_seg(&c, 1, NULL, 0, ROCE_TCP_ACK);
	}
	iw_close(&c);
}

/* (b) CRC (C in both frames), no markers: 20 WRITEs of 600 bytes, one a
 * segment; FPDU 10's ULPDU length reads 3, FPDU 11 has a payload byte
 * changed (CRC bad), FPDU 12 on are good: in sync again at FPDU 12. */
static void gen_iwarp_crc_resync(void)
{
	struct iwc c;

	iw_open(&c, "iwarp_crc_resync.pcap", ROCE_MPA_FLAG_C | ROCE_MPA_FLAG_ENHANCED,
		ROCE_MPA_FLAG_C | ROCE_MPA_FLAG_ENHANCED);
	for (unsigned i = 0; i < 20; i++) {
		uint8_t fp[1100];
		int n = iw_fpdu(fp, sizeof fp, i, 600, 1);

		if (i == 10) {
			fp[0] = 0;
			fp[1] = 3;
		}
		if (i == 11)
			fp[300] ^= 0x20;
		iw_send(&c, fp, (uint32_t)n, -1);
	}
	iw_close(&c);
}

/* (c) neither markers nor CRC (siw's default): 20 WRITEs of 1000 bytes, one
 * a segment; FPDU 10's ULPDU length is 512 too long, so the next length is
 * read out of FPDU 11's payload.  The segment of FPDU 12 starts a plausible
 * FPDU: a heuristic resync. */
static void gen_iwarp_nocrc_bad_length(void)
{
	struct iwc c;

	iw_open(&c, "iwarp_nocrc_bad_length.pcap", ROCE_MPA_FLAG_ENHANCED, ROCE_MPA_FLAG_ENHANCED);
	for (unsigned i = 0; i < 20; i++) {
		uint8_t fp[1100];
		int n = iw_fpdu(fp, sizeof fp, i, 1000, 0);

		if (i == 10) {
			unsigned ul = (unsigned)(fp[0] << 8 | fp[1]) + 512;

			fp[0] = (uint8_t)(ul >> 8);
			fp[1] = (uint8_t)ul;
		}
		iw_send(&c, fp, (uint32_t)n, -1);
	}
	iw_close(&c);
}

/* (d) CRC, no markers: 12 WRITEs of 2000 bytes, each in two segments (1460 +
 * the rest); the second segment of FPDU 6 was not captured (a TCP gap). */
static void gen_iwarp_gap(void)
{
	struct iwc c;

	iw_open(&c, "iwarp_gap.pcap", ROCE_MPA_FLAG_C | ROCE_MPA_FLAG_ENHANCED,
		ROCE_MPA_FLAG_C | ROCE_MPA_FLAG_ENHANCED);
	for (unsigned i = 0; i < 12; i++) {
		uint8_t fp[2100];
		int n = iw_fpdu(fp, sizeof fp, i, 2000, 1);

		iw_send(&c, fp, (uint32_t)n, i == 6 ? 1 : -1);
	}
	iw_close(&c);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: mkfixtures OUTDIR [LINKDIR]\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) != 0 && errno != EEXIST)
		die("cannot create", outdir, 0);
	for (unsigned i = 0; i < sizeof payload_bytes; i++)
		payload_bytes[i] = (uint8_t)(i * 7 + 0x11);

	gen_opcodes("opcodes_v2_ipv4.pcap", ROCE_VER_V2, 4);
	gen_opcodes("opcodes_v2_ipv6.pcap", ROCE_VER_V2, 6);
	gen_opcodes("opcodes_v1.pcap", ROCE_VER_V1, 6);
	gen_opcodes("opcodes_v2_1021.pcap", ROCE_VER_V2_1021, 4);
	gen_vlan();
	gen_ecn_dscp();
	gen_fcs();
	gen_bad_icrc();
	gen_truncated();
	gen_invalid();
	gen_cm();
	gen_linktypes();
	gen_udp_checksum();
	gen_iwarp_markers();
	gen_iwarp_crc_resync();
	gen_iwarp_nocrc_bad_length();
	gen_iwarp_gap();
	if (argc == 3) {
		/* link types and mirror copies (issue 13) in a folder of their own:
		 * the gen/ ICRC assertions and the plugin test do not cover them */
		outdir = argv[2];
		if (mkdir(outdir, 0755) != 0 && errno != EEXIST)
			die("cannot create", outdir, 0);
		gen_ib();
		gen_ib_lid_change("ib_lid_change.pcap", 0);
		gen_ib_lid_change("ib_lid_fixed.pcap", 1);
		gen_ipoib();
		gen_erf_eth();
		gen_encap();
	}
	return 0;
}
