/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/link/ib_conv.c (roce_build_ib_from): a RoCEv1 frame
 * re-headed gives byte for byte what roce_build_ib() builds from the same
 * spec, with and without GRH; a RoCEv2 frame (IPv4 and IPv6) gives the IB
 * packet with the BTH .. payload unchanged, the GRH made from the IP header,
 * ICRC and VCRC good; a bad ICRC stays bad, CE becomes FECN, the RoCEv2 CNP
 * IB's; every truncation length of the original gives a truncated copy
 * (never more than was there, the whole length kept); errors.
 */
#include "testutil.h"
#include "roce.h"

static uint8_t pay[300];

static void spec(struct roce_frame_spec *s, enum roce_version v, int ipv, uint8_t op, uint32_t plen)
{
	memset(s, 0, sizeof *s);
	s->version = v;
	s->ip.version = (uint8_t)ipv;
	if (ipv == 6) {
		s->ip.src[0] = 0xfe; s->ip.src[1] = 0x80; s->ip.src[15] = 1;
		s->ip.dst[0] = 0xfe; s->ip.dst[1] = 0x80; s->ip.dst[15] = 2;
		s->ip.flow_label = 0x12345;
	} else {
		memcpy(s->ip.src, "\x0a\x00\x00\x01", 4);
		memcpy(s->ip.dst, "\x0a\x00\x00\x02", 4);
	}
	s->ip.dscp = 26;
	s->ip.ttl = 33;
	s->bth.opcode = op;
	s->bth.dqpn = 0x1234;
	s->bth.psn = 77;
	s->bth.pad = -1;
	s->payload = pay;
	s->payload_len = plen;
}

/* Builds the RoCE frame of s and re-heads it; returns the IB length. */
static int convert(const struct roce_frame_spec *s, const struct roce_lrh_spec *l, uint8_t *ib,
		   size_t cap, uint32_t *wire, struct roce_pkt *q)
{
	static uint8_t eth[1024];
	struct roce_pkt p;
	int n = roce_build(eth, sizeof eth, s), m;

	assert_true(n > 0);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, eth, (uint32_t)n, (uint32_t)n), ROCE_OK);
	m = roce_build_ib_from(ib, cap, &p, l, wire);
	if (m > 0 && q)
		roce_decode(q, NULL, ROCE_LINK_INFINIBAND, ib, (uint32_t)m, *wire);
	return m;
}

static void test_v1_same_as_build_ib(void **st)
{
	uint8_t a[1024], b[1024];
	struct roce_frame_spec s;
	uint32_t wire;

	(void)st;
	for (int grh = 0; grh < 2; grh++) {
		struct roce_lrh_spec l = { .vl = 1, .sl = 5, .dlid = 0x1234, .slid = 0x42, .grh = (uint8_t)grh };
		int n, m;

		spec(&s, ROCE_VER_V1, 6, 0x04, 201);
		n = roce_build_ib(a, sizeof a, &s, &l);
		m = convert(&s, &l, b, sizeof b, &wire, NULL);
		assert_true(n > 0);
		assert_int_equal(m, n);
		assert_int_equal(wire, (uint32_t)n);
		assert_memory_equal(a, b, (size_t)n);
	}
}

static void test_v2(void **st)
{
	uint8_t ib[1024];
	struct roce_frame_spec s;
	struct roce_pkt q;
	uint32_t wire;

	(void)st;
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		struct roce_lrh_spec l = { .sl = 2, .dlid = 9, .slid = 8, .grh = 1 };
		const uint8_t *g;
		int m;

		spec(&s, ROCE_VER_V2, ipv, 0x0a, 101);    /* RDMA WRITE ONLY: RETH, pad 3 */
		m = convert(&s, &l, ib, sizeof ib, &wire, &q);
		assert_true(m > 0);
		assert_int_equal((uint32_t)m, wire);
		assert_int_equal(q.version, ROCE_VER_IB);
		assert_int_equal(q.lnh, 3);
		assert_int_equal(q.pktlen * 4 + 2, wire);
		assert_int_equal(q.dqpn, 0x1234);
		assert_int_equal(q.psn, 77);
		assert_int_equal(q.padcnt, 3);
		assert_int_equal(q.payload_len, 101);
		assert_memory_equal(ib + q.payload_off, pay, 101);
		assert_int_equal(roce_icrc_verify(&q, NULL), ROCE_ICRC_GOOD);
		assert_int_equal(roce_vcrc_verify(&q, NULL), ROCE_ICRC_GOOD);
		g = ib + 8;
		assert_int_equal(g[0] >> 4, 6);
		assert_int_equal((g[0] & 15) << 4 | g[1] >> 4, 26 << 2);  /* traffic class = DSCP 26 */
		assert_int_equal(g[6], 0x1b);
		assert_int_equal(g[7], 33);
		assert_int_equal(g[4] << 8 | g[5], wire - 8 - 40 - 2);
		if (ipv == 4) {
			assert_memory_equal(g + 8, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\0\0\x01", 16);
			assert_memory_equal(g + 24, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\0\0\x02", 16);
		} else {
			assert_int_equal((g[1] & 15) << 16 | g[2] << 8 | g[3], 0x12345);
			assert_int_equal(g[8], 0xfe);
			assert_int_equal(g[39], 2);
		}
		l.grh = 0;
		m = convert(&s, &l, ib, sizeof ib, &wire, &q);
		assert_int_equal((uint32_t)m, wire);
		assert_int_equal(q.lnh, 2);
		assert_int_equal(roce_icrc_verify(&q, NULL), ROCE_ICRC_GOOD);
	}
}

static void test_marks(void **st)
{
	uint8_t ib[1024];
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { .dlid = 2, .slid = 1 };
	struct roce_pkt q;
	uint32_t wire;

	(void)st;
	spec(&s, ROCE_VER_V2, 4, 0x04, 64);
	s.bad_icrc = 1;
	s.ip.ecn = 3;
	assert_true(convert(&s, &l, ib, sizeof ib, &wire, &q) > 0);
	assert_int_equal(roce_icrc_verify(&q, NULL), ROCE_ICRC_BAD);
	assert_int_equal(roce_vcrc_verify(&q, NULL), ROCE_ICRC_GOOD);
	assert_int_equal(q.fecn, 1);
	spec(&s, ROCE_VER_V2, 4, 0x81, 0);
	roce_spec_cnp(&s, 0x77);
	assert_true(convert(&s, &l, ib, sizeof ib, &wire, &q) > 0);
	assert_int_equal(ib[8], 0x80);
	assert_int_equal(q.dqpn, 0x77);
	assert_int_equal(roce_vcrc_verify(&q, NULL), ROCE_ICRC_GOOD);
}

static void test_truncated(void **st)
{
	uint8_t eth[1024], ib[1024];
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { .dlid = 2, .slid = 1, .grh = 1 };
	struct roce_pkt p;
	uint32_t wire, full;
	int n, copies = 0, refused = 0;

	(void)st;
	spec(&s, ROCE_VER_V2, 6, 0x0a, 77);
	n = roce_build(eth, sizeof eth, &s);
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, eth, (uint32_t)n, (uint32_t)n);
	assert_true(roce_build_ib_from(ib, sizeof ib, &p, &l, &full) > 0);
	for (int k = 1; k < n; k++) {
		uint8_t *cut = malloc((size_t)k);      /* ASan: no byte past k is read */
		int m;

		memcpy(cut, eth, (size_t)k);
		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, cut, (uint32_t)k, (uint32_t)n);
		m = roce_build_ib_from(ib, sizeof ib, &p, &l, &wire);
		if (m >= 0) {
			struct roce_pkt q;

			assert_int_equal(wire, full);
			assert_true((uint32_t)m < full);
			roce_decode(&q, NULL, ROCE_LINK_INFINIBAND, ib, (uint32_t)m, wire);
			assert_int_not_equal(roce_icrc_verify(&q, NULL), ROCE_ICRC_BAD);
			assert_int_equal(roce_vcrc_verify(&q, NULL), ROCE_ICRC_UNCHECKED);
			copies++;
		} else {
			assert_int_equal(m, ROCE_EINVAL);   /* cut before the BTH */
			refused++;
		}
		free(cut);
	}
	assert_int_equal(refused, 14 + 40 + 8 - 1);    /* cut inside Ethernet, IPv6, UDP */
	assert_int_equal(copies, n - 1 - refused);
}

static void test_errors(void **st)
{
	uint8_t f[1024], ib[64];
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { .dlid = 2, .slid = 1 };
	struct roce_pkt p;
	uint32_t wire;
	int n;

	(void)st;
	spec(&s, ROCE_VER_V2, 4, 0x04, 200);
	n = roce_build(f, sizeof f, &s);
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, (uint32_t)n, (uint32_t)n);
	assert_int_equal(roce_build_ib_from(ib, sizeof ib, &p, &l, &wire), ROCE_ENOSPC);
	assert_int_equal(roce_build_ib_from(NULL, sizeof ib, &p, &l, &wire), ROCE_EARG);
	assert_int_equal(roce_build_ib_from(ib, sizeof ib, &p, NULL, &wire), ROCE_EARG);
	f[12] = 0x08; f[13] = 0x06;      /* ARP, not RoCE */
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, (uint32_t)n, (uint32_t)n);
	assert_int_equal(roce_build_ib_from(ib, sizeof ib, &p, &l, &wire), ROCE_EINVAL);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_v1_same_as_build_ib),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_errors),
	};
	for (unsigned i = 0; i < sizeof pay; i++)
		pay[i] = (uint8_t)(i * 13 + 1);
	return cmocka_run_group_tests(t, NULL, NULL);
}
