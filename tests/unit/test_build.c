/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Builders: roce_build() against frames made by the lab's Python reference
 * (softroce-lab/examples/roce.py, run once; the bytes are pasted below), the
 * ICRC against zlib's crc32 over bytes masked here, the IPv4 and UDP
 * checksums against sums computed here, a build→decode round trip of every
 * opcode over every encapsulation, every too-small buffer, and the template
 * path against fresh builds.
 */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "roce.h"

#define BUF 4096

static const uint8_t MAC_A[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t MAC_B[6] = { 2, 0, 0, 0, 0, 2 };

static void unhex(const char *h, uint8_t *out, size_t *n)
{
	*n = 0;
	while (h[0] && h[1]) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[(*n)++] = (uint8_t)v;
		h += 2;
	}
}

static uint16_t be16(const uint8_t *b) { return (uint16_t)(b[0] << 8 | b[1]); }

/* One's-complement sum of big-endian words, folded (not complemented). */
static uint32_t ref_sum(const uint8_t *b, size_t n, uint32_t s)
{
	for (size_t i = 0; i < n; i++)
		s += (i & 1) ? b[i] : (uint32_t)b[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* The ICRC straight from PROTOCOL-NOTES, with zlib. */
static uint32_t ref_icrc(const uint8_t *f, size_t l3, size_t icrc_off, int v1)
{
	uint8_t m[BUF + 8];
	size_t n = icrc_off - l3, hl, bth;

	memset(m, 0xff, 8);
	memcpy(m + 8, f + l3, n);
	if (!v1 && (m[8] >> 4) == 4) {
		hl = (size_t)(m[8] & 15) * 4;
		m[8 + 1] = m[8 + 8] = m[8 + 10] = m[8 + 11] = 0xff;
	} else {
		hl = 40;
		m[8] |= 0x0f;
		m[9] = m[10] = m[11] = m[15] = 0xff;
	}
	if (!v1) {
		m[8 + hl + 6] = m[8 + hl + 7] = 0xff;
		bth = hl + 8;
	} else {
		bth = hl;
	}
	m[8 + bth + 4] = 0xff;
	return (uint32_t)crc32(0, m, (uInt)(n + 8));
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void base_spec(struct roce_frame_spec *s, enum roce_version v, int ipv)
{
	memset(s, 0, sizeof *s);
	s->version = v;
	memcpy(s->eth.dst, MAC_B, 6);
	memcpy(s->eth.src, MAC_A, 6);
	s->ip.version = (uint8_t)ipv;
	if (ipv == 4) {
		uint8_t a[4] = { 192, 168, 1, 1 }, b[4] = { 192, 168, 1, 2 };
		memcpy(s->ip.src, a, 4);
		memcpy(s->ip.dst, b, 4);
	} else {
		s->ip.src[0] = s->ip.dst[0] = 0xfe;
		s->ip.src[1] = s->ip.dst[1] = 0x80;
		s->ip.src[15] = 1;
		s->ip.dst[15] = 2;
	}
	s->bth.pad = -1;
}

/* ---- RFC 1071 ------------------------------------------------------------ */

static void test_inet_csum(void **st)
{
	/* RFC 1071 section 3: the sum of these words is 0xddf2 */
	static const uint8_t v[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	uint8_t odd[3] = { 0x12, 0x34, 0x56 };
	(void)st;

	assert_int_equal(roce_inet_csum(v, 8, 0), (uint16_t)~0xddf2);
	/* odd length: the last byte is the high half of a word */
	assert_int_equal(roce_inet_csum(odd, 3, 0), (uint16_t)~(0x1234 + 0x5600));
	/* chaining: a partial sum carried in from an earlier piece */
	assert_int_equal(roce_inet_csum(v + 4, 4, (uint16_t)~roce_inet_csum(v, 4, 0)),
			 roce_inet_csum(v, 8, 0));
	assert_int_equal(roce_inet_csum(v, 8, 0x12345), (uint16_t)~ref_sum(v, 8, 0x12345));
	assert_int_equal(roce_inet_csum(NULL, 0, 0), 0xffff);
}

/* ---- fixed vectors from roce.py -------------------------------------------- */

static void test_vector_v4(void **st)
{
	/* RC SEND_ONLY SE AckReq, DestQP 0x123456, PSN 0xabcdef, payload 01..05,
	 * TOS 0x6a (DSCP 26, ECT(0)), ID 0x1234, DF, TTL 64 */
	static const char *hex =
		"0200000000020200000000010800456a0034123440004011a4c7c0a80101c0a80102"
		"c00012b70020000004b0ffff0012345680abcdef01020304050000005812e994";
	static const uint8_t pl[5] = { 1, 2, 3, 4, 5 };
	uint8_t want[128], got[BUF];
	size_t wn;
	struct roce_frame_spec s;
	int n;
	(void)st;

	unhex(hex, want, &wn);
	base_spec(&s, ROCE_VER_V2, 4);
	s.ip.dscp = 26;
	s.ip.ecn = 2;
	s.ip.ip_id = 0x1234;
	s.ip.dont_fragment = 1;
	s.bth.opcode = 0x04;
	s.bth.se = 1;
	s.bth.ackreq = 1;
	s.bth.dqpn = 0x123456;
	s.bth.psn = 0xabcdef;
	s.payload = pl;
	s.payload_len = 5;
	n = roce_build(got, sizeof got, &s);
	assert_int_equal(n, (int)wn);
	assert_memory_equal(got, want, wn);
	/* IPv4 header checksum: the sum over the header is 0xffff */
	assert_int_equal(ref_sum(got + 14, 20, 0), 0xffff);
	assert_int_equal(roce_inet_csum(got + 14, 20, 0), 0);
	assert_int_equal(le32(got + n - 4), ref_icrc(got, 14, (size_t)n - 4, 0));
	assert_int_equal(le32(got + n - 4), (uint32_t)0x94e91258);
}

static void test_vector_v6(void **st)
{
	/* RC WRITE_ONLY_IMM, P_Key 0x8001, DestQP 0x11, PSN 0x22, RETH
	 * 0x1122334455667788/0xdeadbeef/6, imm 0xcafef00d, payload a0..a5,
	 * TC DSCP 10 ECT(1), flow label 0x12345, hop limit 1, sport 0xd00d */
	static const char *hex =
		"02000000000202000000000186dd6291234500341101fe80000000000000000000000000"
		"0001fe800000000000000000000000000002d00d12b7003400000b20800100000011000000"
		"221122334455667788deadbeef00000006cafef00da0a1a2a3a4a500005b172eca";
	static const uint8_t pl[6] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5 };
	uint8_t want[160], got[BUF];
	size_t wn;
	struct roce_frame_spec s;
	int n;
	(void)st;

	unhex(hex, want, &wn);
	base_spec(&s, ROCE_VER_V2, 6);
	s.ip.dscp = 10;
	s.ip.ecn = 1;
	s.ip.flow_label = 0x12345;
	s.ip.ttl = 1;
	s.sport = 0xd00d;
	s.bth.opcode = 0x0b;
	s.bth.pkey = 0x8001;
	s.bth.dqpn = 0x11;
	s.bth.psn = 0x22;
	s.ext.va = 0x1122334455667788ull;
	s.ext.rkey = 0xdeadbeef;
	s.ext.dmalen = 6;
	s.ext.imm = 0xcafef00d;
	s.payload = pl;
	s.payload_len = 6;
	n = roce_build(got, sizeof got, &s);
	assert_int_equal(n, (int)wn);
	assert_memory_equal(got, want, wn);
	assert_int_equal(le32(got + n - 4), ref_icrc(got, 14, (size_t)n - 4, 0));
}

/* Hand-written RoCEv1 bytes: GRH fields, NxtHdr 0x1B, PayLen = BTH..ICRC. */
static void test_v1_layout(void **st)
{
	uint8_t f[BUF];
	struct roce_frame_spec s;
	int n;
	(void)st;

	base_spec(&s, ROCE_VER_V1, 6);
	s.ip.dscp = 46;
	s.ip.ecn = 3;
	s.ip.flow_label = 0xabcde;
	s.ip.ttl = 255;
	s.bth.opcode = 0x11; /* RC ACK */
	s.bth.dqpn = 7;
	s.bth.psn = 9;
	s.ext.syndrome = 0x1f;
	s.ext.msn = 0x10203;
	n = roce_build(f, sizeof f, &s);
	assert_int_equal(n, 14 + 40 + 12 + 4 + 4);
	assert_int_equal(be16(f + 12), 0x8915);
	/* 6 | TClass 0xbb | flow 0xabcde */
	assert_int_equal(f[14], 0x6b);
	assert_int_equal(f[15], 0xba);
	assert_int_equal(f[16], 0xbc);
	assert_int_equal(f[17], 0xde);
	assert_int_equal(be16(f + 18), 20);
	assert_int_equal(f[20], 0x1b);
	assert_int_equal(f[21], 255);
	assert_int_equal(f[54], 0x11);
	assert_int_equal(f[66], 0x1f);
	assert_int_equal(f[67], 0x01);
	assert_int_equal(f[68], 0x02);
	assert_int_equal(f[69], 0x03);
	assert_int_equal(le32(f + 70), ref_icrc(f, 14, 70, 1));
}

/* ---- VLAN tags, Ethernet padding, FCS --------------------------------------- */

static void test_vlan_pad_fcs(void **st)
{
	uint8_t f[BUF];
	struct roce_frame_spec s;
	int n;
	(void)st;

	base_spec(&s, ROCE_VER_V2, 4);
	s.bth.opcode = 0x11;
	s.eth.n_vlan = 2;
	s.eth.vlan[0].pcp = 5;
	s.eth.vlan[0].vid = 100;
	s.eth.vlan[1].pcp = 3;
	s.eth.vlan[1].dei = 1;
	s.eth.vlan[1].vid = 0xfff;
	s.fcs = 1;
	n = roce_build(f, sizeof f, &s);
	assert_int_equal(n, 22 + 20 + 8 + 12 + 4 + 4 + 4);
	assert_int_equal(be16(f + 12), 0x88a8);
	assert_int_equal(be16(f + 14), 0xa064);
	assert_int_equal(be16(f + 16), 0x8100);
	assert_int_equal(be16(f + 18), 0x7fff);
	assert_int_equal(be16(f + 20), 0x0800);
	assert_int_equal(le32(f + n - 4), (uint32_t)crc32(0, f, (uInt)n - 4));
	assert_int_equal(le32(f + n - 8), ref_icrc(f, 22, (size_t)n - 8, 0));

	/* explicit TPIDs, one tag */
	s.eth.n_vlan = 1;
	s.eth.vlan[0].tpid = 0x9100;
	n = roce_build(f, sizeof f, &s);
	assert_int_equal(be16(f + 12), 0x9100);

	/* a 58-byte frame is padded to 60 with zeros before the FCS */
	s.eth.n_vlan = 0;
	s.fcs = 0;
	s.bth.opcode = 0x04;
	n = roce_build(f, sizeof f, &s);
	assert_int_equal(n, 60);
	assert_int_equal(be16(f + 16), 20 + 8 + 12 + 4);
	assert_int_equal(f[58], 0);
	assert_int_equal(f[59], 0);
	assert_int_equal(le32(f + 54), ref_icrc(f, 14, 54, 0));
	s.fcs = 1;
	n = roce_build(f, sizeof f, &s);
	assert_int_equal(n, 64);
	assert_int_equal(le32(f + 60), (uint32_t)crc32(0, f, 60));
}

/* ---- UDP checksum ------------------------------------------------------------ */

static uint16_t ref_udp(const uint8_t *f, size_t ip, int v6)
{
	size_t l4 = ip + (v6 ? 40 : 20);
	uint32_t ulen = be16(f + l4 + 4), s;
	uint8_t u[BUF];

	memcpy(u, f + l4, ulen);
	u[6] = u[7] = 0;
	s = v6 ? ref_sum(f + ip + 8, 32, 0) : ref_sum(f + ip + 12, 8, 0);
	s = ref_sum((const uint8_t[]){ 0, 17, (uint8_t)(ulen >> 8), (uint8_t)ulen }, 4, s);
	s = ref_sum(u, ulen, s);
	s = (uint16_t)~s;
	return s ? (uint16_t)s : 0xffff;
}

static void test_udp_checksum(void **st)
{
	uint8_t f[BUF], pl[37];
	struct roce_frame_spec s;
	(void)st;

	for (unsigned i = 0; i < sizeof pl; i++)
		pl[i] = (uint8_t)(i * 7 + 3);
	for (int v6 = 0; v6 < 2; v6++) {
		for (uint32_t len = 0; len <= sizeof pl; len++) {
			size_t l4 = 14 + (v6 ? 40 : 20);
			int n;

			base_spec(&s, ROCE_VER_V2, v6 ? 6 : 4);
			s.udp_checksum = 1;
			s.bth.opcode = 0x64;
			s.ext.qkey = 0x11111111;
			s.ext.src_qp = len;
			s.payload = pl;
			s.payload_len = len;
			n = roce_build(f, sizeof f, &s);
			assert_true(n > 0);
			assert_int_equal(be16(f + l4 + 6), ref_udp(f, 14, v6));
			/* the receiver's view: the sum including the field is all ones */
			{
				uint32_t ulen = be16(f + l4 + 4), ps;
				ps = v6 ? ref_sum(f + 22, 32, 0) : ref_sum(f + 26, 8, 0);
				ps = ref_sum((const uint8_t[]){ 0, 17, (uint8_t)(ulen >> 8), (uint8_t)ulen }, 4, ps);
				assert_int_equal(ref_sum(f + l4, ulen, ps), 0xffff);
			}
			/* the ICRC masks the checksum, so it equals the no-checksum build */
			assert_int_equal(le32(f + l4 + be16(f + l4 + 4) - 4),
					 ref_icrc(f, 14, l4 + be16(f + l4 + 4) - 4, 0));
		}
	}
}

/* A checksum that computes to 0 is sent as 0xffff (RFC 768): search payload
 * bytes until the independent sum says so (the ICRC moves with the payload,
 * so there is no closed form). */
static void test_udp_checksum_zero(void **st)
{
	uint8_t f[BUF], pl[16] = { 0 };
	(void)st;

	for (int v6 = 0; v6 < 2; v6++) {
		struct roce_frame_spec s;
		size_t l4 = 14 + (v6 ? 40 : 20);
		uint32_t w;

		base_spec(&s, ROCE_VER_V2, v6 ? 6 : 4);
		s.udp_checksum = 1;
		s.bth.opcode = 0x04;
		s.payload = pl;
		s.payload_len = sizeof pl;
		for (w = 0; w < 1u << 24; w++) {
			pl[0] = (uint8_t)(w >> 16);
			pl[1] = (uint8_t)(w >> 8);
			pl[2] = (uint8_t)w;
			assert_true(roce_build(f, sizeof f, &s) > 0);
			if (ref_udp(f, 14, v6) == 0xffff)
				break;
		}
		assert_true(w < 1u << 24);
		assert_int_equal(be16(f + l4 + 6), 0xffff);
	}
}

/* ---- round trip through the decoder ------------------------------------------- */

struct rt_cfg {
	enum roce_version v;
	int ipv;
};

static void fill_ext(struct roce_ext_spec *x, unsigned k)
{
	x->va = 0x0102030405060708ull * (k + 1);
	x->rkey = 0xa0000000u + k;
	x->dmalen = 0x1000 + k;
	x->swap_add = 0x1111111111111111ull + k;
	x->compare = 0x2222222222222222ull + k;
	x->orig = 0x3333333333333333ull + k;
	x->syndrome = (uint8_t)(k & 0x7f);
	x->msn = 0xabcd00 + (k & 0xff);
	x->qkey = 0x80010000u + k;
	x->src_qp = 0x000100 + k;
	x->eecnxt = 0x0e0e00 + (k & 0xff);
	x->xrc_srq = 0x5a5a00 + (k & 0xff);
	x->feth = 0x00000011 + k;
	x->imm = 0xc0ffee00 + k;
	x->inv_rkey = 0xb0000000u + k;
}

static void check_decoded(const struct roce_pkt *p, const struct roce_frame_spec *s,
			  uint16_t h, uint32_t plen)
{
	const struct roce_ext_spec *x = &s->ext;

	assert_int_equal(p->opcode, s->bth.opcode);
	assert_int_equal(p->dqpn, s->bth.dqpn);
	assert_int_equal(p->psn, s->bth.psn);
	assert_int_equal(p->se, s->bth.se);
	assert_int_equal(p->migreq, s->bth.migreq);
	assert_int_equal(p->ackreq, s->bth.ackreq);
	assert_int_equal(p->fecn, s->bth.fecn);
	assert_int_equal(p->becn, s->bth.becn);
	assert_int_equal(p->pkey, s->bth.pkey ? s->bth.pkey : 0xffff);
	assert_int_equal(p->dscp, s->ip.dscp);
	assert_int_equal(p->ecn, s->ip.ecn);
	assert_int_equal(p->n_vlan, s->eth.n_vlan);
	for (unsigned i = 0; i < s->eth.n_vlan; i++) {
		assert_int_equal(p->vlan[i].vid, s->eth.vlan[i].vid);
		assert_int_equal(p->vlan[i].pcp, s->eth.vlan[i].pcp);
		assert_int_equal(p->vlan[i].dei, s->eth.vlan[i].dei);
	}
	if (h & ROCE_H_PAYLOAD) {
		assert_int_equal(p->payload_len, plen);
		assert_int_equal(p->padcnt, (4 - plen % 4) % 4);
		if (plen)
			assert_memory_equal(p->data + p->payload_off, s->payload, plen);
	} else {
		assert_int_equal(p->padcnt, 0);
	}
	if (h & ROCE_H_RDETH) {
		assert_true(p->rdeth_off);
		assert_int_equal(roce_rdeth_eecnxt(p), x->eecnxt);
	}
	if (h & ROCE_H_DETH) {
		assert_true(p->deth_off);
		assert_int_equal(roce_deth_qkey(p), x->qkey);
		assert_int_equal(roce_deth_srcqp(p), x->src_qp);
	}
	if (h & ROCE_H_XRCETH) {
		assert_true(p->xrceth_off);
		assert_int_equal(roce_xrceth_srq(p), x->xrc_srq);
	}
	if (h & ROCE_H_FETH) {
		assert_true(p->feth_off);
		assert_int_equal(roce_feth_word(p), x->feth);
	}
	if (h & ROCE_H_RETH) {
		assert_true(p->reth_off);
		assert_true(roce_reth_va(p) == x->va);
		assert_int_equal(roce_reth_rkey(p), x->rkey);
		assert_int_equal(roce_reth_dmalen(p), x->dmalen);
	}
	if (h & ROCE_H_ATOMICETH) {
		assert_true(p->atomiceth_off);
		assert_true(roce_atomiceth_va(p) == x->va);
		assert_int_equal(roce_atomiceth_rkey(p), x->rkey);
		assert_true(roce_atomiceth_swap(p) == x->swap_add);
		assert_true(roce_atomiceth_cmp(p) == x->compare);
	}
	if (h & ROCE_H_AETH) {
		assert_true(p->aeth_off);
		assert_int_equal(roce_aeth_syndrome(p), x->syndrome);
		assert_int_equal(roce_aeth_msn(p), x->msn);
	}
	if (h & ROCE_H_ATOMICACKETH) {
		assert_true(p->atomicacketh_off);
		assert_true(roce_atomicacketh_orig(p) == x->orig);
	}
	if (h & ROCE_H_IMMDT) {
		assert_true(p->immdt_off);
		assert_int_equal(roce_immdt(p), x->imm);
	}
	if (h & ROCE_H_IETH) {
		assert_true(p->ieth_off);
		assert_int_equal(roce_ieth_rkey(p), x->inv_rkey);
	}
}

static void test_round_trip(void **st)
{
	static const struct rt_cfg cfgs[] = {
		{ ROCE_VER_V1, 6 }, { ROCE_VER_V2, 4 }, { ROCE_VER_V2, 6 },
		{ ROCE_VER_V2_1021, 4 }, { ROCE_VER_V2_1021, 6 },
	};
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 1024 };
	uint8_t *f = malloc(BUF), pl[1024];
	unsigned frames = 0, ops = 0;
	(void)st;

	for (unsigned i = 0; i < sizeof pl; i++)
		pl[i] = (uint8_t)(i ^ 0x5a);
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opinfo *oi = roce_opcode_info((uint8_t)op);

		if (!oi)
			continue;
		ops++;
		for (unsigned c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
			for (unsigned nv = 0; nv <= 2; nv++)
				for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++) {
					struct roce_frame_spec s;
					struct roce_pkt p;
					uint32_t plen = lens[li];
					unsigned k = frames;
					int n, rc;

					if (!(oi->hdrs & ROCE_H_PAYLOAD) && plen)
						continue;
					if (oi->kind == ROCE_OK_ATOMIC_WRITE)
						plen = 8;
					base_spec(&s, cfgs[c].v, cfgs[c].ipv);
					s.eth.n_vlan = (uint8_t)nv;
					for (unsigned t = 0; t < nv; t++) {
						s.eth.vlan[t].vid = (uint16_t)(10 + t + k % 4000);
						s.eth.vlan[t].pcp = (uint8_t)(k % 8);
						s.eth.vlan[t].dei = (uint8_t)(t & 1);
					}
					s.ip.dscp = (uint8_t)(k % 64);
					s.ip.ecn = (uint8_t)(k % 4);
					s.ip.flow_label = k * 0x101 & 0xfffff;
					s.bth.opcode = (uint8_t)op;
					s.bth.dqpn = (0x10000 + k * 37) & 0xffffff;
					s.bth.psn = (0xfffff0 + k) & 0xffffff;
					s.bth.se = k & 1;
					s.bth.migreq = (k >> 1) & 1;
					s.bth.ackreq = (k >> 2) & 1;
					s.bth.fecn = (k >> 3) & 1;
					s.bth.becn = (k >> 4) & 1;
					s.bth.pkey = (uint16_t)(k & 1 ? 0x8000 + k : 0);
					fill_ext(&s.ext, k);
					s.payload = pl;
					s.payload_len = plen;
					n = roce_build(f, BUF, &s);
					assert_true(n > 0);
					rc = roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, (uint32_t)n, (uint32_t)n);
					if (rc != ROCE_OK)
						fail_msg("opcode 0x%02x cfg %u vlan %u len %u: decode %d (%s)",
							 op, c, nv, plen, rc, p.why ? p.why : "");
					assert_int_equal(p.version, cfgs[c].v);
					check_decoded(&p, &s, oi->hdrs, plen);
					assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
					s.bad_icrc = 1;
					assert_int_equal(roce_build(f, BUF, &s), n);
					roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, (uint32_t)n, (uint32_t)n);
					assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_BAD);
					frames++;
				}
	}
	/* RC 25 (with FLUSH, ATOMIC WRITE), UC 12, RD 22 (with RESYNC), UD 2,
	 * CNP 2 (IB's 0x80, RoCEv2's 0x81), XRC 23 */
	assert_int_equal(ops, 25 + 12 + 22 + 2 + 2 + 23);
	assert_true(frames > 5000);
	free(f);
}

/* ---- CNP ---------------------------------------------------------------------- */

static void test_cnp(void **st)
{
	uint8_t f[BUF];
	struct roce_frame_spec s;
	struct roce_pkt p;
	static const uint8_t zero[16];
	int n;
	(void)st;

	base_spec(&s, ROCE_VER_V2, 4);
	s.payload_len = 9; /* cleared by roce_spec_cnp */
	roce_spec_cnp(&s, 0x00abcd);
	n = roce_build(f, sizeof f, &s);
	assert_int_equal(n, 14 + 60);
	assert_int_equal(f[15], 0xc2);              /* DSCP 48, ECT(0) */
	assert_int_equal(be16(f + 16), 60);         /* IP total length */
	assert_int_equal(be16(f + 38), 40);         /* UDP length */
	assert_int_equal(f[42], 0x81);
	assert_int_equal(f[46], 0x40);              /* BECN */
	assert_int_equal(be16(f + 44), 0xffff);
	assert_int_equal(f[48], 0xab);
	assert_int_equal(f[49], 0xcd);
	assert_memory_equal(f + 54, zero, 16);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, (uint32_t)n, (uint32_t)n), ROCE_OK);
	assert_int_equal(p.opcode, 0x81);
	assert_int_equal(p.psn, 0);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
}

/* ---- argument errors and ENOSPC ----------------------------------------------- */

static void test_errors(void **st)
{
	uint8_t f[BUF];
	struct roce_frame_spec s;
	(void)st;

	base_spec(&s, ROCE_VER_V2, 4);
	s.bth.opcode = 0x04;
	assert_true(roce_build(f, sizeof f, &s) > 0);
#define BAD(stmt) do { struct roce_frame_spec t = s; t.stmt; \
		assert_int_equal(roce_build(f, sizeof f, &t), ROCE_EARG); } while (0)
	BAD(bth.opcode = 0x18);
	BAD(bth.opcode = 0x60);
	BAD(bth.opcode = 0xc0);
	BAD(bth.dqpn = 0x1000000);
	BAD(bth.psn = 0x1000000);
	BAD(bth.tver = 16);
	BAD(bth.pad = 4);
	BAD(version = ROCE_VER_NONE);
	BAD(version = ROCE_VER_V2_PORT);   /* dport 0 */
	BAD(version = ROCE_VER_V1);        /* ip.version 4 */
	BAD(ip.version = 5);
	BAD(ip.dscp = 64);
	BAD(ip.ecn = 4);
	BAD(ip.flow_label = 0x100000);
	BAD(eth.n_vlan = 3);
	BAD(payload_len = 70000);
	{
		struct roce_frame_spec t = s;
		t.bth.opcode = 0x11;       /* ACK has no payload */
		t.payload_len = 4;
		assert_int_equal(roce_build(f, sizeof f, &t), ROCE_EARG);
		t.payload_len = 0;
		t.ext.msn = 0x1000000;
		assert_int_equal(roce_build(f, sizeof f, &t), ROCE_EARG);
		t.bth.opcode = 0x64;
		t.ext.msn = 0;
		t.ext.src_qp = 0x1000000;
		assert_int_equal(roce_build(f, sizeof f, &t), ROCE_EARG);
	}
	{
		struct roce_frame_spec t = s;
		t.eth.n_vlan = 1;
		t.eth.vlan[0].vid = 4096;
		assert_int_equal(roce_build(f, sizeof f, &t), ROCE_EARG);
	}
#undef BAD
	{
		struct roce_frame_spec t = s;
		t.version = ROCE_VER_V2_PORT;
		t.dport = 7777;
		assert_true(roce_build(f, sizeof f, &t) > 0);
		assert_int_equal(be16(f + 36), 7777);
	}
	/* 16-bit length fields: IPv4 total length counts IP + UDP + BTH ..
	 * ICRC, the GRH PayLen only BTH .. ICRC (payload + pad multiple of 4) */
	{
		struct roce_frame_spec t = s;
		uint8_t *big = calloc(1, 70000);
		t.payload_len = 65532 - 20 - 8 - 12 - 4;
		assert_int_equal(roce_build(big, 70000, &t), 65532 + 14);
		assert_int_equal(be16(big + 16), 65532);
		t.payload_len++;
		assert_int_equal(roce_build(big, 70000, &t), ROCE_EARG);
		base_spec(&t, ROCE_VER_V1, 6);
		t.bth.opcode = 0x04;
		t.payload_len = 65532 - 12 - 4;
		assert_int_equal(roce_build(big, 70000, &t), 65532 + 14 + 40);
		assert_int_equal(be16(big + 18), 65532);
		t.payload_len++;
		assert_int_equal(roce_build(big, 70000, &t), ROCE_EARG);
		free(big);
	}
}

static void test_enospc(void **st)
{
	static const uint8_t opcodes[] = { 0x04, 0x0b, 0x11, 0x13, 0x65, 0x81, 0xa4, 0x4c };
	uint8_t pl[13] = { 0 };
	(void)st;

	for (unsigned o = 0; o < sizeof opcodes; o++)
		for (int fcs = 0; fcs < 2; fcs++) {
			struct roce_frame_spec s;
			uint8_t ref[BUF];
			int need;

			base_spec(&s, o & 1 ? ROCE_VER_V1 : ROCE_VER_V2, o & 1 ? 6 : (o & 2 ? 6 : 4));
			s.eth.n_vlan = (uint8_t)(o % 3);
			s.fcs = (uint8_t)fcs;
			s.udp_checksum = 1;
			s.bth.opcode = opcodes[o];
			if (roce_opcode_info(opcodes[o])->hdrs & ROCE_H_PAYLOAD) {
				s.payload = pl;
				s.payload_len = sizeof pl;
			}
			need = roce_build(ref, sizeof ref, &s);
			assert_true(need >= 60);
			for (int cap = 0; cap <= need; cap++) {
				/* the buffer ends exactly at cap: ASan sees any overrun */
				uint8_t *b = malloc(cap ? (size_t)cap : 1);
				int n;

				memset(b, 0xee, cap ? (size_t)cap : 1);
				n = roce_build(b, (size_t)cap, &s);
				if (cap < need) {
					assert_int_equal(n, ROCE_ENOSPC);
					for (int i = 0; i < cap; i++)
						assert_int_equal(b[i], 0xee);
				} else {
					assert_int_equal(n, need);
					assert_memory_equal(b, ref, (size_t)need);
				}
				free(b);
			}
		}
}

/* ---- template + patch ----------------------------------------------------------- */

static void test_template(void **st)
{
	static const struct rt_cfg cfgs[] = {
		{ ROCE_VER_V1, 6 }, { ROCE_VER_V2, 4 }, { ROCE_VER_V2, 6 }, { ROCE_VER_V2_1021, 4 },
	};
	static const uint8_t opcodes[] = { 0x04, 0x0a, 0x11, 0x65, 0x81, 0xaa, 0x10 };
	uint8_t pl[300], pl2[300];
	(void)st;

	for (unsigned i = 0; i < sizeof pl; i++) {
		pl[i] = (uint8_t)i;
		pl2[i] = (uint8_t)(0xff - i * 3);
	}
	for (unsigned c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
		for (unsigned o = 0; o < sizeof opcodes; o++)
			for (unsigned flags = 0; flags < 8; flags++) {
				struct roce_frame_spec s;
				struct roce_tmpl t;
				uint8_t buf[BUF], ref[BUF];
				int payload = roce_opcode_info(opcodes[o])->hdrs & ROCE_H_PAYLOAD;
				uint32_t plen = payload ? 1 + 37 * (flags + o) % 299 : 0;
				int n;

				base_spec(&s, cfgs[c].v, cfgs[c].ipv);
				s.eth.n_vlan = (uint8_t)(flags % 3);
				s.udp_checksum = flags & 1;
				s.fcs = (flags >> 1) & 1;
				s.bad_icrc = (flags >> 2) & 1;  /* refresh always fixes it */
				s.ip.dscp = 26;
				s.ip.ecn = 1;
				s.ip.flow_label = 0x54321;
				s.ip.ip_id = 77;
				s.bth.opcode = opcodes[o];
				s.bth.ackreq = 1;
				s.bth.fecn = 1;
				s.bth.dqpn = 0x123;
				s.bth.psn = 0x456;
				fill_ext(&s.ext, o);
				s.payload = pl;
				s.payload_len = plen;
				if (opcodes[o] == 0x81)
					roce_spec_cnp(&s, 0x123);
				n = roce_tmpl_init(&t, buf, sizeof buf, &s);
				assert_true(n > 0);
				assert_int_equal(t.len, (uint32_t)n);

				for (uint32_t k = 0; k < 5; k++) {
					uint32_t psn = (0xfffffe + k * 0x10001) & 0xffffff;
					uint32_t qpn = (0x800000 + k * 977) & 0xffffff;

					roce_tmpl_set_psn(&t, psn);
					roce_tmpl_set_dqpn(&t, qpn);
					if (payload)
						assert_int_equal(roce_tmpl_set_payload(&t, k & 1 ? pl2 : pl, plen), ROCE_OK);
					roce_tmpl_refresh(&t);

					s.bth.psn = psn;
					s.bth.dqpn = qpn;
					s.payload = k & 1 ? pl2 : pl;
					s.bad_icrc = 0;
					assert_int_equal(roce_build(ref, sizeof ref, &s), n);
					assert_memory_equal(buf, ref, (size_t)n);
				}
				if (payload)
					assert_int_equal(roce_tmpl_set_payload(&t, pl, plen + 1), ROCE_EARG);
				else
					assert_int_equal(roce_tmpl_set_payload(&t, pl, 0), ROCE_OK);
			}
	/* init errors pass through */
	{
		struct roce_frame_spec s;
		struct roce_tmpl t;
		uint8_t buf[64];

		base_spec(&s, ROCE_VER_V2, 6);
		s.bth.opcode = 0x04;
		assert_int_equal(roce_tmpl_init(&t, buf, sizeof buf, &s), ROCE_ENOSPC);
		s.bth.opcode = 0x1e;
		assert_int_equal(roce_tmpl_init(&t, buf, sizeof buf, &s), ROCE_EARG);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inet_csum),
		cmocka_unit_test(test_vector_v4),
		cmocka_unit_test(test_vector_v6),
		cmocka_unit_test(test_v1_layout),
		cmocka_unit_test(test_vlan_pad_fcs),
		cmocka_unit_test(test_udp_checksum),
		cmocka_unit_test(test_udp_checksum_zero),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_cnp),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_template),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
