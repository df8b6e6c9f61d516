/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_fanout.c — roce_flow_key() and roce_fanout_cbpf(): the key is the
 * same both ways, tells apart pairs that share address bytes, is 0 without
 * addresses; the classic BPF program, run here by a small interpreter of
 * the instructions it may use (as the kernel runs it on a socket buffer:
 * skb->protocol, loads relative to the network header), computes the same
 * key as the C function on every frame of real captures.
 */
#include "testutil.h"
#include "roce.h"

/* ---- a classic BPF interpreter for the program's instructions ---------------------- */

struct skb {
	uint16_t protocol;            /* host order, VLAN tags already taken off */
	const uint8_t *net;           /* network header */
	uint32_t len;
};

static int load_w(const struct skb *s, uint32_t k, uint32_t *a)
{
	int32_t off = (int32_t)k;

	if (off == -0x1000) {          /* SKF_AD_OFF + SKF_AD_PROTOCOL */
		*a = s->protocol;
		return 0;
	}
	assert_true(off <= -0x100000 + 0xffff && off >= -0x100000); /* only SKF_NET_OFF loads */
	off += 0x100000;
	if ((uint32_t)off + 4 > s->len)
		return -1;
	*a = (uint32_t)s->net[off] << 24 | (uint32_t)s->net[off + 1] << 16 | (uint32_t)s->net[off + 2] << 8 |
	     s->net[off + 3];
	return 0;
}

static uint32_t run_cbpf(const struct roce_bpf_insn *p, int n, const struct skb *s)
{
	uint32_t a = 0, x = 0, m[16] = { 0 };

	for (int pc = 0; pc < n; pc++) {
		const struct roce_bpf_insn *i = &p[pc];

		switch (i->code) {
		case 0x20: if (load_w(s, i->k, &a)) return 0; break;   /* ld [k]: out of bounds ends with 0 */
		case 0x61: assert_true(i->k < 16); x = m[i->k]; break; /* ldx M[k] */
		case 0x02: assert_true(i->k < 16); m[i->k] = a; break; /* st M[k] */
		case 0x07: x = a; break;                              /* tax */
		case 0xac: a ^= x; break;
		case 0x0c: a += x; break;
		case 0x74: a >>= i->k; break;
		case 0x24: a *= i->k; break;
		case 0x15: pc += a == i->k ? i->jt : i->jf; break;
		case 0x16: return a;
		case 0x06: return i->k;
		default: fail_msg("instruction 0x%02x at %d", i->code, pc);
		}
		assert_true(pc + 1 < n || i->code == 0x16 || i->code == 0x06);
	}
	fail_msg("ran off the end");
	return 0;
}

static struct roce_bpf_insn prog[256];
static int prog_len;

/* The program's key of an Ethernet frame: the socket buffer the kernel would hand it. */
static uint32_t cbpf_key(const uint8_t *f, uint32_t caplen)
{
	struct skb s;
	uint32_t off = 12;

	assert_true(caplen >= 14);
	s.protocol = (uint16_t)(f[12] << 8 | f[13]);
	while (s.protocol == 0x8100 || s.protocol == 0x88a8) {
		off += 4;
		s.protocol = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	s.net = f + off + 2;
	s.len = caplen - off - 2;
	return run_cbpf(prog, prog_len, &s);
}

/* ---- frames ------------------------------------------------------------------------- */

static uint32_t ipv4_frame(uint8_t *f, uint32_t src, uint32_t dst, uint16_t sport)
{
	static const uint8_t hdr[42] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
					  0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 17 };

	memcpy(f, hdr, sizeof hdr);
	for (int i = 0; i < 4; i++) {
		f[26 + i] = (uint8_t)(src >> (24 - 8 * i));
		f[30 + i] = (uint8_t)(dst >> (24 - 8 * i));
	}
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[36] = 0x12;
	f[37] = 0xb7;
	return 42;
}

static void test_symmetric(void **state)
{
	uint8_t a[64] = { 0 }, b[64] = { 0 };
	uint32_t n = ipv4_frame(a, 0x0a000101, 0x0a000102, 49152);

	(void)state;
	ipv4_frame(b, 0x0a000102, 0x0a000101, 61000);     /* the answer: other source port */
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, a, n), roce_flow_key(ROCE_LINK_ETHERNET, b, n));
	assert_int_equal(cbpf_key(a, n), cbpf_key(b, n));
	assert_int_equal(cbpf_key(a, n), roce_flow_key(ROCE_LINK_ETHERNET, a, n));
	/* pairs sharing their address bytes but one stay apart (no XOR cancelling) */
	{
		uint32_t seen[16], distinct = 0;

		for (uint32_t k = 0; k < 16; k++) {
			ipv4_frame(b, 0x0a000001 | k << 8, 0x0a000002 | k << 8, 4791);
			seen[k] = roce_flow_key(ROCE_LINK_ETHERNET, b, n);
			assert_int_equal(seen[k], cbpf_key(b, n));
			distinct += k == 0 || seen[k] != seen[k - 1];
		}
		assert_true(distinct >= 15);
		/* and they spread over 2 threads */
		for (uint32_t k = 1, odd = seen[0] & 1; k < 16; k++)
			if ((seen[k] & 1) != odd)
				return;
		fail_msg("16 pairs, one parity");
	}
}

static void test_no_addresses(void **state)
{
	uint8_t f[64] = { 0 };
	uint32_t n = ipv4_frame(f, 0x0a000101, 0x0a000102, 1);

	(void)state;
	assert_int_not_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, n), 0);
	/* too short for the destination address */
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, 33), 0);
	assert_int_equal(cbpf_key(f, 33), 0);
	/* PFC (MAC control), ARP: no addresses */
	f[12] = 0x88;
	f[13] = 0x08;
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, n), 0);
	assert_int_equal(cbpf_key(f, n), 0);
	f[12] = 0x08;
	f[13] = 0x06;
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, n), 0);
	assert_int_equal(cbpf_key(f, n), 0);
	assert_int_equal(roce_flow_key(ROCE_LINK_ERF, f, n), 0);
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, 13), 0);
}

/* The same frame behind VLAN tags, as raw IP, behind Linux SLL: one key. */
static void test_link_types(void **state)
{
	uint8_t f[64] = { 0 }, t[80] = { 0 }, sll[80] = { 0 };
	uint32_t n = ipv4_frame(f, 0xc0a80001, 0xc0a80063, 7), k = roce_flow_key(ROCE_LINK_ETHERNET, f, n);

	(void)state;
	memcpy(t, f, 12);
	t[12] = 0x88; t[13] = 0xa8; t[16] = 0x81; t[17] = 0x00;  /* QinQ */
	memcpy(t + 20, f + 12, n - 12);
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, t, n + 8), k);
	assert_int_equal(cbpf_key(t, n + 8), k);
	assert_int_equal(roce_flow_key(ROCE_LINK_RAW, f + 14, n - 14), k);
	assert_int_equal(roce_flow_key(ROCE_LINK_IPV4, f + 14, n - 14), k);
	sll[14] = 0x08;
	memcpy(sll + 16, f + 14, n - 14);
	assert_int_equal(roce_flow_key(ROCE_LINK_LINUX_SLL, sll, n + 2), k);
}

/* Every frame of real captures (IPv4 RoCEv2, IPv6 GIDs, iWARP, RoCEv1 GRH,
 * VLAN): the program's key is the C key, and each capture's address pairs
 * keep one key both ways. */
static void test_captures(void **state)
{
	static const char *const files[] = {
		"captures/lab/roce_rping.pcap", "captures/lab/roce_rc_pingpong_ipv6gid.pcap", "captures/lab/roce_read_bw.pcap",
		"captures/lab/iwarp_rping.pcap", "captures/gen/linktypes_raw.pcap", "captures/gen/cm.pcap",
		"captures/gen/ecn_dscp.pcap", "captures/link/vxlan.pcap",
	};
	static struct test_frame fr[512];
	unsigned checked = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
		int lt;
		size_t n = test_load_pcap(files[i], fr, 512, &lt);

		for (size_t j = 0; j < n; j++) {
			uint32_t k = roce_flow_key(lt, fr[j].data, fr[j].caplen);

			if (lt == ROCE_LINK_ETHERNET && fr[j].caplen >= 14) {
				assert_int_equal(cbpf_key(fr[j].data, fr[j].caplen), k);
				checked++;
			}
			free(fr[j].data);
		}
	}
	assert_true(checked > 300);
}

static void test_rocev1_and_short_prog(void **state)
{
	uint8_t f[14 + 40 + 12] = { [12] = 0x89, [13] = 0x15, [14] = 0x60 }, g[sizeof f];
	struct roce_bpf_insn small[8];

	(void)state;
	for (int i = 0; i < 16; i++) {
		f[14 + 8 + i] = (uint8_t)(0xfe + i);    /* SGID */
		f[14 + 24 + i] = (uint8_t)(0x20 + i);   /* DGID */
	}
	memcpy(g, f, sizeof f);
	memcpy(g + 22, f + 38, 16);
	memcpy(g + 38, f + 22, 16);
	assert_int_not_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, sizeof f), 0);
	assert_int_equal(roce_flow_key(ROCE_LINK_ETHERNET, f, sizeof f), roce_flow_key(ROCE_LINK_ETHERNET, g, sizeof g));
	assert_int_equal(cbpf_key(f, sizeof f), roce_flow_key(ROCE_LINK_ETHERNET, f, sizeof f));
	assert_int_equal(cbpf_key(g, sizeof g), cbpf_key(f, sizeof f));
	assert_int_equal(roce_fanout_cbpf(small, 8), -1);
	/* InfiniBand: one key for both ways and for other LIDs (a QP's LIDs
	 * change with LMC and path migration) */
	{
		uint8_t a[8] = { 0xf0, 0x02, 0x00, 0x07, 0, 0, 0x00, 0x03 }, b[8] = { 0xf0, 0x02, 0x00, 0x03, 0, 0, 0x00, 0x07 };
		uint8_t c[8] = { 0xf0, 0x02, 0x00, 0x41, 0, 0, 0x00, 0x31 };

		assert_int_not_equal(roce_flow_key(ROCE_LINK_INFINIBAND, a, 8), 0);
		assert_int_equal(roce_flow_key(ROCE_LINK_INFINIBAND, a, 8), roce_flow_key(ROCE_LINK_INFINIBAND, b, 8));
		assert_int_equal(roce_flow_key(ROCE_LINK_INFINIBAND, a, 8), roce_flow_key(ROCE_LINK_INFINIBAND, c, 8));
		assert_int_equal(roce_flow_key(ROCE_LINK_INFINIBAND, a, 7), 0);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_no_addresses),
		cmocka_unit_test(test_link_types),
		cmocka_unit_test(test_captures),
		cmocka_unit_test(test_rocev1_and_short_prog),
	};

	prog_len = roce_fanout_cbpf(prog, 256);
	if (prog_len <= 0)
		return 1;
	return cmocka_run_group_tests(t, NULL, NULL);
}
