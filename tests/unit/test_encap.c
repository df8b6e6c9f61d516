/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/link/encap.c and encap_build.c: every mirror kind
 * built around a real RoCE frame decodes back to the same inner frame with
 * the mirror's facts; every truncation length decodes without over-reading
 * and without calling the ICRC bad; malformed headers are invalid; VXLAN
 * ports and no_decap are honoured.
 */
#include "testutil.h"
#include "roce.h"

#define LAB "captures/lab/roce_rping.pcap"

static struct test_frame fr[64];
static size_t nfr;
static int lt;

static int setup(void **st)
{
	(void)st;
	nfr = test_load_pcap(LAB, fr, 64, &lt);
	return nfr > 20 ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	test_free_frames(fr, nfr);
	return 0;
}

/* the first RoCE frame of the capture */
static const struct test_frame *roce_frame(void)
{
	struct roce_pkt p;

	for (size_t i = 0; i < nfr; i++) {
		roce_decode(&p, NULL, lt, fr[i].data, fr[i].caplen, fr[i].len);
		if (p.version == ROCE_VER_V2 && p.opcode == 0x04)
			return &fr[i];
	}
	fail_msg("no RC SEND_ONLY in " LAB);
	return NULL;
}

static void spec(struct roce_encap_spec *s, enum roce_encap_kind k, int v6)
{
	memset(s, 0, sizeof *s);
	s->kind = k;
	s->ip.version = v6 ? 6 : 4;
	s->ip.src[0] = 192; s->ip.dst[0] = 192;
	s->session = 0x2aa;
	s->gre_seq = 77;
	s->index = 0xabcde;
	s->timestamp = 0xdeadbeef;
	s->vni = 0x123456;
	s->gra = 1;
	s->hwid = 0x2b;
	s->sgt = 0x4321;
}

static void test_round_trip(void **st)
{
	static const enum roce_encap_kind kinds[] = { ROCE_ENCAP_ERSPAN1, ROCE_ENCAP_ERSPAN2,
		ROCE_ENCAP_ERSPAN3, ROCE_ENCAP_GRE_TEB, ROCE_ENCAP_VXLAN };
	const struct test_frame *in = roce_frame();
	struct roce_pkt ref, p;
	uint8_t out[4096];

	(void)st;
	roce_decode(&ref, NULL, lt, in->data, in->caplen, in->len);
	for (unsigned k = 0; k < 5; k++)
		for (unsigned v = 0; v < 16; v++) {
			struct roce_encap_spec s;
			int n;

			spec(&s, kinds[k], v & 1);
			s.gre_key_present = !!(v & 2);
			s.gre_key = 0x01020304;
			s.gre_csum_present = !!(v & 4);
			s.platform_present = !!(v & 8);
			s.eth.n_vlan = (uint8_t)(v % 3);
			n = roce_build_encap(out, sizeof out, &s, in->data, in->caplen);
			assert_true(n > (int)in->caplen);
			assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, out, (uint32_t)n, (uint32_t)n),
					 ROCE_OK);
			assert_int_equal(p.encap.kind, kinds[k]);
			assert_int_equal(p.caplen, in->caplen);
			assert_int_equal(p.bth_off, ref.bth_off);
			assert_int_equal(p.psn, ref.psn);
			assert_int_equal(p.dqpn, ref.dqpn);
			assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
			assert_int_equal(p.encap.outer_ip_version, v & 1 ? 6 : 4);
			if (kinds[k] == ROCE_ENCAP_VXLAN) {
				assert_int_equal(p.encap.vni, 0x123456);
				continue;
			}
			assert_int_equal(!!(p.encap.gre_flags & ROCE_GRE_KEY), !!(v & 2));
			if (v & 2)
				assert_int_equal(p.encap.gre_key, 0x01020304);
			if (v & 4)   /* the GRE checksum verifies */
				assert_int_equal(roce_inet_csum(out + p.encap.gre_off,
								(size_t)n - p.encap.gre_off, 0), 0);
			if (kinds[k] == ROCE_ENCAP_ERSPAN2) {
				assert_int_equal(p.encap.session, 0x2aa);
				assert_int_equal(p.encap.index, 0xabcde);
				assert_int_equal(p.encap.gre_seq, 77);
			}
			if (kinds[k] == ROCE_ENCAP_ERSPAN3) {
				assert_int_equal(p.encap.timestamp, 0xdeadbeef);
				assert_int_equal(p.encap.hwid, 0x2b);
				assert_int_equal(p.encap.gra, 1);
				assert_int_equal(p.encap.sgt, 0x4321);
				assert_int_equal(p.encap.o, !!(v & 8));
			}
		}
}

static void count(void *ctx, const struct roce_field *f)
{
	unsigned *n = ctx;

	if (!strncmp(f->key, "erspan.", 7) || !strncmp(f->key, "gre.", 4) || !strncmp(f->key, "vxlan.", 6))
		(*n)++;
}

static void test_every_length(void **st)
{
	const struct test_frame *in = roce_frame();
	uint8_t out[4096];
	struct roce_encap_spec s;

	(void)st;
	for (unsigned k = ROCE_ENCAP_ERSPAN1; k <= ROCE_ENCAP_VXLAN; k++) {
		int n;

		spec(&s, (enum roce_encap_kind)k, k & 1);
		s.platform_present = 1;
		n = roce_build_encap(out, sizeof out, &s, in->data, in->caplen);
		assert_true(n > 0);
		for (int cap = 0; cap <= n; cap++) {
			uint8_t *b = test_exact_copy(out, (size_t)cap);
			struct roce_pkt p;
			unsigned nf = 0;
			char line[256];

			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, b, (uint32_t)cap, (uint32_t)n);
			roce_foreach_field(&p, count, &nf);
			roce_summary(&p, line, sizeof line);
			assert_int_not_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_BAD);
			if (cap < n && p.encap.kind && p.encap.inner_off)
				assert_true(p.truncated);
			if (cap == n)
				assert_true(nf > 0);
			free(b);
		}
	}
}

static void test_mirror_truncation(void **st)
{
	const struct test_frame *in = roce_frame();
	uint8_t out[4096];
	struct roce_encap_spec s;
	struct roce_pkt p;
	int n;

	(void)st;
	spec(&s, ROCE_ENCAP_ERSPAN3, 0);
	s.trunc = 1;
	n = roce_build_encap(out, sizeof out, &s, in->data, 70);   /* BTH and a bit */
	assert_true(n > 0);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, out, (uint32_t)n, (uint32_t)n), ROCE_ETRUNC);
	assert_int_equal(p.encap.trunc, 1);
	assert_int_equal(p.encap.inner_truncated, 1);
	assert_int_equal(p.caplen, 70);
	assert_int_equal(p.wirelen, in->len);     /* from the inner IP length */
	assert_int_equal(p.version, ROCE_VER_V2);
	assert_int_equal(p.opcode, 0x04);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_UNCHECKED);
}

static void test_invalid_and_cfg(void **st)
{
	const struct test_frame *in = roce_frame();
	uint8_t out[4096];
	struct roce_encap_spec s;
	struct roce_cfg cfg = { 0 };
	struct roce_pkt p;
	uint32_t gre;
	int n;

	(void)st;
	spec(&s, ROCE_ENCAP_ERSPAN2, 0);
	n = roce_build_encap(out, sizeof out, &s, in->data, in->caplen);
	gre = 14 + 20;
	out[gre + 8] = 0x30;          /* ERSPAN version 3 under 0x88BE */
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, out, (uint32_t)n, (uint32_t)n), ROCE_EINVAL);
	assert_int_equal(p.encap.inner_off, 0);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_ENCAP));

	/* VXLAN on a port of the caller's; the defaults can be turned off */
	spec(&s, ROCE_ENCAP_VXLAN, 0);
	s.vxlan_dport = 9000;
	n = roce_build_encap(out, sizeof out, &s, in->data, in->caplen);
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, out, (uint32_t)n, (uint32_t)n);
	assert_int_equal(p.encap.kind, ROCE_ENCAP_NONE);
	assert_int_equal(roce_cfg_add_vxlan_port(&cfg, 9000), ROCE_OK);
	roce_decode(&p, &cfg, ROCE_LINK_ETHERNET, out, (uint32_t)n, (uint32_t)n);
	assert_int_equal(p.encap.kind, ROCE_ENCAP_VXLAN);
	assert_int_equal(p.version, ROCE_VER_V2);
	cfg.no_decap = 1;
	roce_decode(&p, &cfg, ROCE_LINK_ETHERNET, out, (uint32_t)n, (uint32_t)n);
	assert_int_equal(p.encap.kind, ROCE_ENCAP_NONE);
	assert_int_equal(p.version, ROCE_VER_NONE);

	/* builder arguments */
	spec(&s, ROCE_ENCAP_ERSPAN3, 0);
	s.ft = 1;
	assert_int_equal(roce_build_encap(out, sizeof out, &s, in->data, in->caplen), ROCE_EARG);
	s.ft = 0;
	assert_int_equal(roce_build_encap(out, 20, &s, in->data, in->caplen), ROCE_ENOSPC);
}

/* --time mirror: ERSPAN III clocks anchored on the host time of their first
 * frame, 32-bit wraps unwrapped against the host clock; granularities
 * 100 µs, 100 ns, 1588 ns (wraps every second); 3 and other kinds keep the
 * host time; one clock per session. */
static void test_mirror_time(void **st)
{
	static const struct { uint8_t gra; uint64_t unit_ps, period; } g[] = {
		{ 0, 100000000, 1ull << 32 }, { 1, 100000, 1ull << 32 }, { 2, 1000, 1000000000 },
	};
	const uint64_t t0 = 1704067200ull * 1000000000ull;
	struct roce_pkt p;
	uint64_t ns;

	(void)st;
	for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
		struct roce_mirror_clock c = { 0 };
		uint64_t period_ns = g[k].period * g[k].unit_ps / 1000, step = period_ns / 3 + 12345;
		uint32_t raw0 = (uint32_t)(g[k].period - 7);

		memset(&p, 0, sizeof p);
		p.encap.kind = ROCE_ENCAP_ERSPAN3;
		p.encap.gra = g[k].gra;
		p.encap.session = 5;
		for (uint64_t i = 0; i < 12; i++) {
			uint64_t hw_ns = i * step - i * step % (g[k].unit_ps / 1000 ? g[k].unit_ps / 1000 : 1);
			/* the host sees each copy late by up to a sixth of a wrap */
			uint64_t host = t0 + hw_ns + (i % 3) * (period_ns / 6);

			p.encap.timestamp = (uint32_t)((raw0 + hw_ns * 1000 / g[k].unit_ps) % g[k].period);
			assert_int_equal(roce_mirror_time(&c, &p, host, &ns), 1);
			assert_true(ns == t0 + hw_ns);
		}
	}
	/* granularity 3 and ERSPAN II keep the host's time */
	{
		struct roce_mirror_clock c = { 0 };

		p.encap.gra = 3;
		assert_int_equal(roce_mirror_time(&c, &p, t0 + 5, &ns), 0);
		assert_true(ns == t0 + 5);
		p.encap.gra = 1;
		p.encap.kind = ROCE_ENCAP_ERSPAN2;
		assert_int_equal(roce_mirror_time(&c, &p, t0 + 6, &ns), 0);
		assert_true(ns == t0 + 6);
		/* two sessions, two anchors */
		p.encap.kind = ROCE_ENCAP_ERSPAN3;
		p.encap.session = 1;
		p.encap.timestamp = 1000;
		roce_mirror_time(&c, &p, t0, &ns);
		p.encap.session = 2;
		p.encap.timestamp = 5;
		roce_mirror_time(&c, &p, t0 + 1000000, &ns);
		assert_true(ns == t0 + 1000000);
		p.encap.session = 1;
		p.encap.timestamp = 1010;     /* 1 µs after session 1's anchor */
		roce_mirror_time(&c, &p, t0 + 2000000, &ns);
		assert_true(ns == t0 + 1000);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_length),
		cmocka_unit_test(test_mirror_truncation),
		cmocka_unit_test(test_invalid_and_cfg),
		cmocka_unit_test(test_mirror_time),
	};
	return cmocka_run_group_tests(t, setup, teardown);
}
