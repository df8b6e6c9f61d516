/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the DCB codec (lib/codec/dcb.c, l2.c, pfc.c, cnm.c, lldp.c).
 *
 * Reference values come from outside libroce: tcpdump's expected outputs for
 * its DCB captures (captures/public/tcpdump/dcb_*.out, lldp-app-priority.out),
 * tshark 4.0.17's reading of the same frames (field names and values noted
 * next to each check), and bytes computed by hand from IEEE 802.1Qbb/802.1Qau
 * /802.1Qaz.  Every vector is also decoded at every truncation length from a
 * buffer of exactly that size, so an over-read trips ASan.
 */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include <zlib.h>

#include "roce.h"
#include "internal.h"
#include "dcb.h"

/* ---- helpers ----------------------------------------------------------------- */

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (h[0] && h[1] && n < cap) {
		unsigned v;

		if (sscanf(h, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

/* The decoder hook alone, on a hand-made packet (Ethernet, no VLAN). */
static void hook_decode(struct roce_pkt *p, const uint8_t *b, uint32_t caplen, uint32_t wirelen)
{
	memset(p, 0, sizeof *p);
	p->data = b;
	p->caplen = caplen;
	p->wirelen = wirelen;
	p->linktype = ROCE_LINK_ETHERNET;
	if (caplen >= 14)
		assert_int_equal(roce__decode_l2(p, rd16(b + 12), 14, wirelen), 1);
}

struct fieldlist {
	unsigned n;
	char key[600][64];
	uint64_t u[600];
	char s[600][80];
	uint32_t len[600];
};

static void collect(void *ctx, const struct roce_field *f)
{
	struct fieldlist *l = ctx;

	assert_non_null(f->key);
	if (f->type == ROCE_F_STR)
		assert_non_null(f->s);
	if ((f->type >= ROCE_F_IPV4 && f->type <= ROCE_F_BYTES) || f->type == ROCE_F_TEXT)
		assert_non_null(f->b);
	if (l->n >= 600)
		return;
	snprintf(l->key[l->n], sizeof l->key[0], "%s", f->key);
	l->u[l->n] = f->u;
	l->len[l->n] = f->len;
	if (f->type == ROCE_F_STR)
		snprintf(l->s[l->n], sizeof l->s[0], "%s", f->s);
	else if (f->type == ROCE_F_TEXT)
		snprintf(l->s[l->n], sizeof l->s[0], "%.*s", (int)f->len, (const char *)f->b);
	else if (f->b) {
		char *w = l->s[l->n];

		for (uint32_t i = 0; i < f->len && i < 39; i++)
			w += sprintf(w, "%02x", f->b[i]);
	}
	l->n++;
}

/* Value of the k-th (0-based) occurrence of key; fails when missing. */
static uint64_t fu(const struct fieldlist *l, const char *key, unsigned k)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], key) && !k--)
			return l->u[i];
	fail_msg("field %s missing", key);
	return 0;
}

static const char *fs(const struct fieldlist *l, const char *key, unsigned k)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], key) && !k--)
			return l->s[i];
	fail_msg("field %s missing", key);
	return "";
}

static unsigned fcount(const struct fieldlist *l, const char *key)
{
	unsigned c = 0;

	for (unsigned i = 0; i < l->n; i++)
		c += !strcmp(l->key[i], key);
	return c;
}

static void walk_all(const struct roce_pkt *p)
{
	static struct fieldlist fl;
	struct roce_lldp_iter it = { 0 };
	struct roce_lldp_tlv t;
	struct roce_pfc pf;
	struct roce_cnm cn;
	char sum[256];
	int rc, guard = 0;

	fl.n = 0;
	roce_foreach_field(p, collect, &fl);
	roce__fields_l2(p, collect, &fl);
	roce_summary(p, sum, sizeof sum);
	roce_summary(p, sum, 8);
	(void)roce_pfc_get(p, &pf);
	(void)roce_cnm_get(p, &cn);
	while ((rc = roce_lldp_next(p, &it, &t)) == 1) {
		static struct roce_dcbx_app app;
		static struct roce_cee cee;
		struct roce_dcbx_ets ets;
		struct roce_dcbx_pfc pfc;
		struct roce_dcbx_cn cnt;

		assert_true(t.caplen <= t.len);
		assert_true(t.off + t.caplen <= p->caplen);
		(void)roce_dcbx_ets(&t, &ets);
		(void)roce_dcbx_pfc(&t, &pfc);
		(void)roce_dcbx_app(&t, &app);
		(void)roce_dcbx_cn(&t, &cnt);
		(void)roce_dcbx_cee(&t, &cee);
		assert_true(++guard < 100000);
	}
	/* once finished it stays finished */
	assert_int_equal(roce_lldp_next(p, &it, &t), rc);
}

#define HAS(p, l) (((p)->present >> (l)) & 1)
#define TRUNC(p, l) (((p)->truncated >> (l)) & 1)
#define INVAL(p, l) (((p)->invalid >> (l)) & 1)

/* Decodes b[0..n) at every capture length 0..n from an exactly-sized copy,
 * through roce_decode() and through the hook: below pdu_end the layer is
 * truncated (the link layer below 14), from pdu_end on it is decoded. */
static void every_truncation(const uint8_t *b, uint32_t n, uint32_t pdu_end, enum roce_layer layer)
{
	for (uint32_t len = 0; len <= n; len++) {
		uint8_t *c = malloc(len ? len : 1);
		struct roce_pkt p;

		assert_non_null(c);
		memcpy(c, b, len);
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 0) {
				roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, len, n);
			} else {
				if (len < 14)
					continue;
				hook_decode(&p, c, len, n);
			}
			if (len < 14) {
				assert_true(TRUNC(&p, ROCE_L_LINK));
			} else if (len < pdu_end) {
				if (!TRUNC(&p, layer) || INVAL(&p, layer))
					fail_msg("len %u/%u: layer %d not truncated (%s)", len, n, layer,
						 p.why ? p.why : "-");
			} else {
				if (!HAS(&p, layer) || TRUNC(&p, layer) || INVAL(&p, layer))
					fail_msg("len %u/%u: layer %d not clean (%s)", len, n, layer,
						 p.why ? p.why : "-");
			}
			walk_all(&p);
		}
		free(c);
	}
}

/* ---- vectors from the public captures ----------------------------------------- */

/* tcpdump dcb_ets.pcap frame 3 */
static const char ets_hex[] =
	"0180c200000e0800270df13c88cc0207040800270df13c0407030800270df13c06020078fe060080c2"
	"010001fe070080c202020000fe0e0080c20300010764656661756c74fe0d0080c2040800004242030000"
	"00fe190080c20900f411f41400320000320000000002000002000000fe190080c20a00f411f414003200"
	"003200000000020000020000000000000000000000000000";
/* tcpdump dcb_pfc.pcap frame 2 */
static const char pfc_lldp_hex[] =
	"0180c200000e08002742ba5988cc02070408002742ba5904070308002742ba5906020078fe060080c201"
	"0001fe070080c202020000fe0e0080c20300010764656661756c74fe0d0080c204080000424203000000"
	"fe060080c20b0434000000000000000000";
/* tcpdump dcb_qcn.pcap frame 6 */
static const char qcn_hex[] =
	"0180c200000e0800270df13c88cc0207040800270df13c0407030800270df13c06020078fe060080c201"
	"0001fe070080c202020000fe0e0080c20300010764656661756c74fe0d0080c204080000424203000000"
	"fe060080c2082000fe050080c20c00000000000000000000";
/* tcpdump lldp-app-priority.pcap frame 1 */
static const char app_hex[] =
	"0180c200000e00000000000088cc020704000000020002040d056c65616630622d657468313006020078"
	"082942696720436c6f7564204661627269632053776974636820506f7274206c65616630622d65746831"
	"300a066c65616630620c1135633a31363a63373a30303a30303a3031fe050026e10101fe090026e1026c"
	"65616630fe050026e10301fe100026e10400005c16c70bba1b00000000fe060080c20b0110fe080080c2"
	"0c00840cbc0000";
/* Wireshark sample ethernet_pause_frame.pcap frames 1 and 2 (with FCS) */
static const char pause0_hex[] =
	"0180c2000001000f5d304150880800010000000000000000000000000000000000000000000000000000"
	"000000000000000000000000000000000000bbc02512";
static const char pause_ffff_hex[] =
	"0180c2000001000f5d30415088080001ffff00000000000000000000000000000000000000000000000000"
	"00000000000000000000000000000000003fab2a6b";
/* Wireshark samples lldp_detailed.pcap and lldp_minimal.pcap */
static const char detailed_hex[] =
	"0180c200000e000130f9ada088cc020704000130f9ada0040405312f3106020078081753756d6d697433"
	"30302d34382d506f72742031303031000a0d53756d6d69743330302d3438000c4c53756d6d6974333030"
	"2d3438202d2056657273696f6e20372e34652e3120284275696c642035292062792052656c656173655f"
	"4d61737465722030352f32372f30352030343a35333a3131000e0400140014100e0706000130f9ada002"
	"000003e900fe0700120f02070100fe0900120f01036c000010fe0900120f030100000000fe0600120f04"
	"05f2fe060080c20101e8fe070080c202010000fe170080c20301e81076322d303438382d30332d303530"
	"3500fe050080c204000000";
static const char minimal_hex[] =
	"0180c200000e0004961fa72688cc0207040004961fa726040405312f3306020078060200010602000206"
	"0200030000ffffffffffffffffffffffffffffffaabb";

struct vec {
	const char *name;
	const char *hex;
	uint32_t len;      /* frame length (checks the hex) */
	uint32_t pdu_end;  /* first byte after the PDU (End TLV, PAUSE parameters) */
	enum roce_layer layer;
};

static const struct vec vecs[] = {
	{ "dcb_ets", ets_hex, 149, 140, ROCE_L_LLDP },
	{ "dcb_pfc", pfc_lldp_hex, 101, 94, ROCE_L_LLDP },
	{ "dcb_qcn", qcn_hex, 108, 101, ROCE_L_LLDP },
	{ "lldp-app-priority", app_hex, 175, 175, ROCE_L_LLDP },
	{ "pause0", pause0_hex, 64, 18, ROCE_L_MACCTRL },
	{ "pause_ffff", pause_ffff_hex, 64, 18, ROCE_L_MACCTRL },
	{ "lldp_detailed", detailed_hex, 263, 263, ROCE_L_LLDP },
};

static uint32_t load(const char *hex, uint8_t *b, size_t cap)
{
	return (uint32_t)unhex(hex, b, cap);
}

static void test_vectors_truncation(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
		uint8_t b[2048];
		uint32_t n = load(vecs[i].hex, b, sizeof b);

		assert_int_equal(n, vecs[i].len);
		every_truncation(b, n, vecs[i].pdu_end, vecs[i].layer);
	}
}

/* ---- PAUSE and PFC --------------------------------------------------------------- */

static void test_pause_capture(void **state)
{
	uint8_t b[64];
	struct roce_pkt p;
	struct roce_pfc f;
	static struct fieldlist fl;
	char sum[128];
	uint32_t n = load(pause_ffff_hex, b, sizeof b);

	(void)state;
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, b, n, n), ROCE_OK);
	assert_int_equal(p.macctrl_off, 14);
	assert_true(HAS(&p, ROCE_L_MACCTRL));
	/* the frame carries its FCS (zlib's crc32 of the first 60 bytes: 6b2aab3f) */
	assert_int_equal(p.fcs_off, 60);
	assert_int_equal(roce_pfc_get(&p, &f), ROCE_OK);
	assert_int_equal(f.opcode, ROCE_MACC_PAUSE);
	assert_int_equal(f.times[0], 0xffff);
	/* tshark: macc.opcode 0x0001, macc.pause_time 65535 */
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "macc.opcode", 0), 1);
	assert_int_equal(fu(&fl, "macc.pause_time", 0), 65535);
	sum[0] = 0;
	{
		size_t k = 0;

		roce__summary_l2(&p, sum, sizeof sum, &k);
	}
	assert_string_equal(sum, " PAUSE 65535 quanta");

	n = load(pause0_hex, b, sizeof b);
	hook_decode(&p, b, n, n);
	assert_int_equal(roce_pfc_get(&p, &f), ROCE_OK);
	assert_int_equal(f.times[0], 0);
}

/* A PFC frame made by hand from 802.1Qbb 36.1.3: priorities 3 and 4 enabled,
 * times 0xffff and 0; the disabled ones carry 0x1234 that must be ignored. */
static const char pfc_hand_hex[] =
	"0180c2000001020000000001" "8808" "0101" "0018"
	"1234" "1234" "1234" "ffff" "0000" "1234" "1234" "1234"
	"0000000000000000000000000000000000000000000000000000";

static void test_pfc(void **state)
{
	uint8_t b[64], c[128];
	struct roce_pkt p;
	struct roce_pfc f;
	static struct fieldlist fl;
	char sum[128];
	size_t k = 0;
	uint32_t n = load(pfc_hand_hex, b, sizeof b);
	const uint16_t t[8] = { 0x1234, 0x1234, 0x1234, 0xffff, 0, 0x1234, 0x1234, 0x1234 };
	struct roce_eth_spec eth = { .src = { 2, 0, 0, 0, 0, 1 } };
	int len;

	(void)state;
	assert_int_equal(n, 60);
	hook_decode(&p, b, n, n);
	assert_true(HAS(&p, ROCE_L_MACCTRL));
	assert_int_equal(roce_pfc_get(&p, &f), ROCE_OK);
	assert_int_equal(f.opcode, ROCE_MACC_PFC);
	assert_int_equal(f.enable, 0x18);
	assert_int_equal(f.reserved_set, 0);
	assert_int_equal(f.times[3], 65535);
	assert_int_equal(f.times[4], 0);
	assert_int_equal(f.times[0], 0x1234);
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " PFC pause [p3:65535 p4:0] (enable 0x18)");
	/* tshark 4.0.17 on this frame: macc.cbfc.enbv 0x0018, enbv.c3/c4 1,
	 * pause_time.c3 65535, pause_time.c0 4660 */
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "macc.opcode", 0), 0x0101);
	assert_int_equal(fu(&fl, "macc.cbfc.enbv", 0), 0x18);
	assert_int_equal(fu(&fl, "macc.cbfc.enbv.c3", 0), 1);
	assert_int_equal(fu(&fl, "macc.cbfc.enbv.c2", 0), 0);
	assert_int_equal(fu(&fl, "macc.cbfc.pause_time.c3", 0), 65535);
	assert_int_equal(fu(&fl, "macc.cbfc.pause_time.c0", 0), 4660);
	assert_int_equal(fu(&fl, "macc.cbfc.pause_time.c7", 0), 4660);

	/* the builder makes exactly these bytes */
	len = roce_build_pfc(c, sizeof c, &eth, 0x18, t, 0);
	assert_int_equal(len, 60);
	assert_memory_equal(c, b, 60);
	every_truncation(c, 60, 34, ROCE_L_MACCTRL);

	/* reserved high byte: decoded, flagged, not invalid */
	c[16] = 0x80;
	hook_decode(&p, c, 60, 60);
	assert_int_equal(p.invalid, 0);
	assert_int_equal(roce_pfc_get(&p, &f), ROCE_OK);
	assert_int_equal(f.reserved_set, 1);
	assert_int_equal(f.enable_vector, 0x8018);
	assert_int_equal(f.enable, 0x18);

	/* unknown opcode: reported, not invalid */
	wr16(c + 14, 0x0042);
	hook_decode(&p, c, 60, 60);
	assert_int_equal(p.invalid, 0);
	assert_true(HAS(&p, ROCE_L_MACCTRL));
	assert_int_equal(roce_pfc_get(&p, &f), ROCE_EUNSUP);
	assert_int_equal(f.opcode, 0x42);
	k = 0;
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " MAC control opcode 0x0042");

	/* a PFC frame whose wire length ends inside the times is invalid */
	wr16(c + 14, 0x0101);
	hook_decode(&p, c, 30, 30);
	assert_true(INVAL(&p, ROCE_L_MACCTRL));
}

static void test_pause_build(void **state)
{
	uint8_t c[80];
	struct roce_pkt p;
	struct roce_pfc f;
	struct roce_eth_spec eth = { .src = { 0x00, 0x0f, 0x5d, 0x30, 0x41, 0x50 } };
	uint8_t ref[64];
	uint32_t n = load(pause_ffff_hex, ref, sizeof ref);
	int len;

	(void)state;
	/* the Wireshark sample, FCS included, rebuilt byte for byte */
	len = roce_build_pause(c, sizeof c, &eth, 0xffff, 1);
	assert_int_equal(len, 64);
	assert_memory_equal(c, ref, n);
	/* FCS as zlib computes it */
	assert_int_equal(rd32le(c + 60), (uint32_t)crc32(0, c, 60));
	assert_int_equal(roce_build_pause(c, 63, &eth, 1, 1), ROCE_ENOSPC);
	assert_int_equal(roce_build_pause(c, 60, &eth, 1, 0), 60);
	assert_int_equal(roce_build_pause(c, 59, NULL, 1, 0), ROCE_ENOSPC);

	/* with a VLAN tag; through roce_decode */
	eth.n_vlan = 1;
	eth.vlan[0].vid = 100;
	eth.vlan[0].pcp = 7;
	len = roce_build_pause(c, sizeof c, &eth, 300, 0);
	assert_int_equal(len, 60);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, 60, 60), ROCE_OK);
	assert_int_equal(p.macctrl_off, 18);
	assert_int_equal(roce_pfc_get(&p, &f), ROCE_OK);
	assert_int_equal(f.times[0], 300);
	eth.vlan[0].vid = 5000;
	assert_int_equal(roce_build_pause(c, sizeof c, &eth, 1, 0), ROCE_EARG);
}

static void test_quanta(void **state)
{
	(void)state;
	/* 512 bit times: 5.12 ns at 100 Gb/s, 20.48 ns at 25 Gb/s, 51.2 ns at 10 Gb/s */
	assert_int_equal(roce_pause_quanta_ps(1, 100000000000ull), 5120);
	assert_int_equal(roce_pause_quanta_ps(1, 25000000000ull), 20480);
	assert_int_equal(roce_pause_quanta_ps(1, 10000000000ull), 51200);
	assert_int_equal(roce_pause_quanta_ns(1, 10000000000ull), 51);
	assert_int_equal(roce_pause_quanta_ns(1, 25000000000ull), 20);
	assert_int_equal(roce_pause_quanta_ns(1, 100000000000ull), 5);
	/* 65535 quanta: 3355392 ns at 10G; 1342156.8 at 25G; 335539.2 at 100G */
	assert_int_equal(roce_pause_quanta_ns(65535, 10000000000ull), 3355392);
	assert_int_equal(roce_pause_quanta_ns(65535, 25000000000ull), 1342157);
	assert_int_equal(roce_pause_quanta_ns(65535, 100000000000ull), 335539);
	assert_int_equal(roce_pause_quanta_ps(65535, 100000000000ull), 335539200);
	assert_int_equal(roce_pause_quanta_ns(0, 100000000000ull), 0);
	assert_int_equal(roce_pause_quanta_ns(5, 0), 0);
	/* large values stay exact; beyond 64 bits they saturate */
	assert_int_equal(roce_pause_quanta_ns(0xffffffffu, 1000000000ull), 0xffffffffull * 512);
	assert_true(roce_pause_quanta_ns(0xffffffffu, 1) == UINT64_MAX);
	assert_true(roce_pause_quanta_ps(0xffffffffu, 1) == UINT64_MAX);
}

/* ---- 802.1Qau ------------------------------------------------------------------- */

static void test_cnm(void **state)
{
	/* Hand-assembled from 802.1Q-2011 33.4: version 0, QntzFb 12, CPID
	 * 00:02:c9:00:00:01 + index 3, qOffset -100, qDelta 25, encapsulated
	 * priority 0x6000, DA 02:00:00:00:00:07, MSDU length 46, 8 bytes of MSDU. */
	static const char cnm_hex[] =
		"020000000007" "0002c9000001" "22e9"
		"000c" "0002c90000010003" "ff9c" "0019" "6000" "020000000007" "002e"
		"4500002e00000000";
	uint8_t b[80], c[160];
	uint8_t msdu[8];
	struct roce_pkt p;
	struct roce_cnm m, in;
	static struct fieldlist fl;
	char sum[256];
	size_t k = 0;
	uint32_t n = load(cnm_hex, b, sizeof b);
	struct roce_eth_spec eth = { .dst = { 2, 0, 0, 0, 0, 7 }, .src = { 0, 2, 0xc9, 0, 0, 1 } };
	int len;

	(void)state;
	assert_int_equal(n, 46);
	memset(b + n, 0, 60 - n);
	hook_decode(&p, b, 60, 60);
	assert_true(HAS(&p, ROCE_L_CNM));
	assert_int_equal(p.invalid | p.truncated, 0);
	assert_int_equal(roce_cnm_get(&p, &m), ROCE_OK);
	assert_int_equal(m.has_tag, 0);
	assert_int_equal(m.is_cnm, 1);
	assert_int_equal(m.version, 0);
	assert_int_equal(m.qfb, 12);
	assert_true(m.cpid == 0x0002c90000010003ull);
	assert_int_equal(m.qoffset, -100);
	assert_int_equal(m.qdelta, 25);
	assert_int_equal(m.encap_priority, 0x6000);
	assert_memory_equal(m.encap_da, eth.dst, 6);
	assert_int_equal(m.encap_len, 46);
	assert_int_equal(m.msdu_off, 38);
	assert_int_equal(m.msdu_caplen, 22);   /* 60-byte frame: 22 bytes after the header */
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " CNM qfb 12 cpid 0x0002c90000010003 qoff -100 qdelta 25 "
				 "encap 02:00:00:00:00:07 len 46");
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "roce.cnm.qfb", 0), 12);
	assert_int_equal((int64_t)fu(&fl, "roce.cnm.qoffset", 0), -100);
	assert_string_equal(fs(&fl, "roce.cnm.encap_da", 0), "020000000007");

	/* the builder: same bytes */
	memcpy(msdu, b + 38, 8);
	memset(&in, 0, sizeof in);
	in.qfb = 12;
	in.cpid = 0x0002c90000010003ull;
	in.qoffset = -100;
	in.qdelta = 25;
	in.encap_priority = 0x6000;
	memcpy(in.encap_da, eth.dst, 6);
	in.encap_len = 46;
	len = roce_build_cnm(c, sizeof c, &eth, &in, msdu, 8, 0);
	assert_int_equal(len, 60);
	assert_memory_equal(c, b, 60);
	every_truncation(c, 60, 38, ROCE_L_CNM);

	/* with a CN-TAG first (flow 0x0042) and an FCS, through roce_decode */
	in.has_tag = 1;
	in.flow_id = 0x42;
	in.encap_len = 0;                      /* 0 means msdu_len */
	len = roce_build_cnm(c, sizeof c, &eth, &in, msdu, 8, 1);
	assert_int_equal(len, 64);
	assert_int_equal(rd16(c + 12), 0x22e9);
	assert_int_equal(rd16(c + 14), 0x0042);
	assert_int_equal(rd16(c + 16), 0x22e9);
	assert_int_equal(rd32le(c + 60), (uint32_t)crc32(0, c, 60));
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, 64, 64);
	assert_true(HAS(&p, ROCE_L_CNM));
	assert_int_equal(p.invalid | p.truncated, 0);
	assert_int_equal(roce_cnm_get(&p, &m), ROCE_OK);
	assert_int_equal(m.has_tag, 1);
	assert_int_equal(m.flow_id, 0x42);
	assert_int_equal(m.is_cnm, 1);
	assert_int_equal(m.pdu_off, 18);
	assert_int_equal(m.encap_len, 8);
	assert_int_equal(m.msdu_caplen, 8);
	assert_int_equal(m.qoffset, -100);
	every_truncation(c, 64, 42, ROCE_L_CNM);

	/* range checks */
	in.qfb = 64;
	assert_int_equal(roce_build_cnm(c, sizeof c, &eth, &in, msdu, 8, 0), ROCE_EARG);
	in.qfb = 1;
	assert_int_equal(roce_build_cnm(c, sizeof c, &eth, &in, c, 65, 0), ROCE_EARG);
	assert_int_equal(roce_build_cnm(c, 59, &eth, &in, msdu, 8, 0), ROCE_ENOSPC);

	/* a CNM too short for its header on the wire is invalid */
	hook_decode(&p, b, 30, 30);
	assert_true(INVAL(&p, ROCE_L_CNM));
}

static void test_cntag(void **state)
{
	/* A RoCEv2-ish IPv4 frame carrying a CN-TAG (flow 0x0007) */
	static const uint8_t ip[20] = { 0x45, 0, 0, 20, 0, 0, 0x40, 0, 64, 17 };
	uint8_t c[128];
	struct roce_pkt p;
	struct roce_cnm m;
	uint16_t flow, inner;
	char sum[128];
	size_t k = 0;
	int len = roce_build_cntag(c, sizeof c, NULL, 7, ROCE_ETH_IPV4, ip, sizeof ip, 0);

	(void)state;
	assert_int_equal(len, 60);
	assert_int_equal(roce_cntag_peek(c, 60, 14, 60, &flow, &inner), 1);
	assert_int_equal(flow, 7);
	assert_int_equal(inner, ROCE_ETH_IPV4);
	hook_decode(&p, c, 60, 60);
	assert_true(HAS(&p, ROCE_L_CNM));
	assert_int_equal(roce_cnm_get(&p, &m), ROCE_OK);
	assert_int_equal(m.has_tag, 1);
	assert_int_equal(m.is_cnm, 0);
	assert_int_equal(m.inner_off, 18);
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " CN-TAG flow 0x0007 ethertype 0x0800");
	every_truncation(c, 60, 18, ROCE_L_CNM);

	/* flow ID with high bits set: always a tag */
	assert_int_equal(roce_cntag_peek((const uint8_t *)"\x80\x01\x12\x34", 4, 0, 4, &flow, &inner), 1);
	/* low flow ID, unknown inner ethertype: a CNM */
	assert_int_equal(roce_cntag_peek((const uint8_t *)"\x00\x05\x00\x02", 4, 0, 24, NULL, NULL), 0);
	/* low flow ID, IPv4 with a bad version nibble: a CNM */
	assert_int_equal(roce_cntag_peek((const uint8_t *)"\x00\x05\x08\x00\x27", 5, 0, 24, NULL, NULL), 0);
	assert_int_equal(roce_cntag_peek((const uint8_t *)"\x00\x05\x08", 3, 0, 24, NULL, NULL), ROCE_ETRUNC);
}

/* Regression (fuzz_lldp, issue 11): a CN-TAG, then ethertype 0x8915 and only 8
 * bytes of GRH.  The GRH is invalid ("frame too short"), yet marked present:
 * the summary must not hand the 16 GID bytes past the frame to inet_ntop (an
 * over-read that ASan catches in the sanitizer pass; without it, the summary
 * printed stale memory as GIDs). */
static void test_cntag_short_grh(void **state)
{
	static const uint8_t fr[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x22, 0xe9, 0, 1, 0x89, 0x15,
				      0x60, 0, 0, 0, 0, 0, 0x1b, 0x40 };
	uint8_t *c = malloc(sizeof fr);        /* exactly the frame: an over-read faults */
	struct roce_pkt p;
	char sum[256];

	(void)state;
	assert_non_null(c);
	memcpy(c, fr, sizeof fr);
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, sizeof fr, sizeof fr);
	assert_true(HAS(&p, ROCE_L_CNM));
	assert_int_equal(p.version, ROCE_VER_V1);
	assert_true(INVAL(&p, ROCE_L_GRH));
	roce_summary(&p, sum, sizeof sum);
	assert_non_null(strstr(sum, "v1 GRH:"));
	assert_null(strstr(sum, "::"));
	assert_non_null(strstr(sum, "[invalid"));
	walk_all(&p);
	/* every shorter capture of it, too */
	for (uint32_t cl = 0; cl < sizeof fr; cl++) {
		uint8_t *d = malloc(cl ? cl : 1);

		assert_non_null(d);
		memcpy(d, fr, cl);
		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, d, cl, sizeof fr);
		roce_summary(&p, sum, sizeof sum);
		assert_null(strstr(sum, "::"));
		walk_all(&p);
		free(d);
	}
	free(c);
}

/* ---- LLDP / DCBX ------------------------------------------------------------------- */

static void decode_hex(struct roce_pkt *p, uint8_t *b, size_t cap, const char *hex)
{
	uint32_t n = load(hex, b, cap);

	assert_int_equal(roce_decode(p, NULL, ROCE_LINK_ETHERNET, b, n, n), ROCE_OK);
	assert_int_equal(p->lldp_off, 14);
	assert_true(HAS(p, ROCE_L_LLDP));
}

/* Finds the 802.1 TLV with this subtype. */
static int find_8021(const struct roce_pkt *p, uint8_t subtype, struct roce_lldp_tlv *t)
{
	struct roce_lldp_iter it = { 0 };

	while (roce_lldp_next(p, &it, t) == 1)
		if (t->has_oui && t->oui == ROCE_OUI_IEEE_8021 && t->subtype == subtype)
			return 1;
	return 0;
}

static void test_lldp_ets(void **state)
{
	static const uint8_t prio[8] = { 15, 4, 1, 1, 15, 4, 1, 4 };
	static const uint8_t bw[8] = { 0, 50, 0, 0, 50, 0, 0, 0 };
	static const uint8_t tsa[8] = { 0, 2, 0, 0, 2, 0, 0, 0 };
	uint8_t b[256];
	struct roce_pkt p;
	struct roce_lldp_tlv t;
	struct roce_lldp_iter it = { 0 };
	struct roce_dcbx_ets e;
	static struct fieldlist fl;
	char sum[256];
	unsigned n = 0;
	int rc;

	(void)state;
	decode_hex(&p, b, sizeof b, ets_hex);
	/* the tcpdump listing: Chassis, Port, TTL, 4 x 802.1, ETS cfg, ETS rec, End */
	while ((rc = roce_lldp_next(&p, &it, &t)) == 1)
		n++;
	assert_int_equal(rc, 0);
	assert_int_equal(n, 10);
	assert_int_equal(t.type, 0);

	/* tcpdump: Willing:0, CBS:0, RES:0, Max TCs:0; prio 15 4 1 1 15 4 1 4;
	 * TC% 0 50 0 0 50 0 0 0; TSA 0 2 0 0 2 0 0 0 */
	assert_true(find_8021(&p, ROCE_DCBX_ETS_CFG, &t));
	assert_int_equal(t.len, 25);
	assert_int_equal(roce_dcbx_ets(&t, &e), ROCE_OK);
	assert_int_equal(e.willing, 0);
	assert_int_equal(e.cbs, 0);
	assert_int_equal(e.max_tcs, 0);
	assert_memory_equal(e.prio_tc, prio, 8);
	assert_memory_equal(e.tc_bw, bw, 8);
	assert_memory_equal(e.tsa, tsa, 8);
	assert_true(find_8021(&p, ROCE_DCBX_ETS_REC, &t));
	assert_int_equal(roce_dcbx_ets(&t, &e), ROCE_OK);
	assert_int_equal(e.reserved, 0);
	assert_memory_equal(e.prio_tc, prio, 8);
	assert_memory_equal(e.tc_bw, bw, 8);
	assert_memory_equal(e.tsa, tsa, 8);
	/* the wrong decoder refuses it */
	{
		struct roce_dcbx_pfc f;

		assert_int_equal(roce_dcbx_pfc(&t, &f), ROCE_EINVAL);
	}

	/* tshark 4.0.17: 10 lldp.tlv.type, chassis.id.mac 08:00:27:0d:f1:3c,
	 * time_to_live 120, vlan.name "default", pgid_prio0 15 (twice),
	 * per1 50, tsa1 2, ets.maxtcs 0 */
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fcount(&fl, "lldp.tlv.type"), 10);
	assert_string_equal(fs(&fl, "lldp.chassis.id.mac", 0), "0800270df13c");
	assert_int_equal(fu(&fl, "lldp.time_to_live", 0), 120);
	assert_int_equal(fu(&fl, "lldp.orgtlv.oui", 0), 0x0080c2);
	assert_int_equal(fu(&fl, "lldp.ieee.802_1.port_vlan.id", 0), 1);
	assert_string_equal(fs(&fl, "lldp.ieee.802_1.vlan.name", 0), "default");
	assert_int_equal(fu(&fl, "lldp.ieee.802_1.subtype", 4), 9);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.pgid_prio0", 0), 15);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.pgid_prio0", 1), 15);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.pgid_prio7", 1), 4);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.per1", 0), 50);
	assert_int_equal(fu(&fl, "lldp.dcbx.ieee.ets.tsa1", 0), 2);
	assert_int_equal(fu(&fl, "lldp.dcbx.ieee.ets.maxtcs", 0), 0);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.reserved", 0), 0);
	{
		size_t k = 0;

		roce__summary_l2(&p, sum, sizeof sum, &k);
		assert_string_equal(sum, " LLDP ttl 120 DCBX ETS(bw 0/50/0/0/50/0/0/0)/"
					 "ETS-REC(bw 0/50/0/0/50/0/0/0)");
	}
}

static void test_lldp_pfc_cn_app(void **state)
{
	uint8_t b[256];
	struct roce_pkt p;
	struct roce_lldp_tlv t;
	struct roce_dcbx_pfc f;
	struct roce_dcbx_cn cn;
	static struct roce_dcbx_app a;
	static struct fieldlist fl;
	char sum[256];
	size_t k = 0;

	(void)state;
	/* tcpdump dcb_pfc.out: Willing: 0, MBC: 0, RES: 0, PFC cap:4,
	 * enable values 0 0 1 0 1 1 0 0 */
	decode_hex(&p, b, sizeof b, pfc_lldp_hex);
	assert_true(find_8021(&p, ROCE_DCBX_PFC, &t));
	assert_int_equal(roce_dcbx_pfc(&t, &f), ROCE_OK);
	assert_int_equal(f.willing, 0);
	assert_int_equal(f.mbc, 0);
	assert_int_equal(f.reserved, 0);
	assert_int_equal(f.cap, 4);
	assert_int_equal(f.enable, 0x34);
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " LLDP ttl 120 DCBX PFC(enable 0x34)");
	/* tshark: lldp.dcbx.ieee.pfc.numtcs 4, feature.pfc.prio2/4/5 1 */
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "lldp.dcbx.ieee.pfc.numtcs", 0), 4);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pfc.prio2", 0), 1);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pfc.prio3", 0), 0);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pfc.prio5", 0), 1);

	/* tcpdump dcb_qcn.out: CNPV 0 0 0 0 0 1 0 0, ready all 0; App RES: 0, no entries */
	decode_hex(&p, b, sizeof b, qcn_hex);
	assert_true(find_8021(&p, ROCE_DCBX_CN, &t));
	assert_int_equal(roce_dcbx_cn(&t, &cn), ROCE_OK);
	assert_int_equal(cn.cnpv, 0x20);
	assert_int_equal(cn.ready, 0);
	assert_true(find_8021(&p, ROCE_DCBX_APP, &t));
	assert_int_equal(roce_dcbx_app(&t, &a), ROCE_OK);
	assert_int_equal(a.n, 0);
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "lldp.ieee.802_1qau.cnpv.prio5", 0), 1);
	assert_int_equal(fu(&fl, "lldp.ieee.802_1qau.cnpv.prio4", 0), 0);
	assert_int_equal(fu(&fl, "lldp.ieee.802_1qau.ready.prio5", 0), 0);

	/* tcpdump lldp-app-priority.out: PFC cap 1, enable priority 4;
	 * "Priority: 4, RES: 0, Sel: 4, Protocol ID: 3260" */
	decode_hex(&p, b, sizeof b, app_hex);
	assert_true(find_8021(&p, ROCE_DCBX_PFC, &t));
	assert_int_equal(roce_dcbx_pfc(&t, &f), ROCE_OK);
	assert_int_equal(f.cap, 1);
	assert_int_equal(f.enable, 0x10);
	assert_true(find_8021(&p, ROCE_DCBX_APP, &t));
	assert_int_equal(roce_dcbx_app(&t, &a), ROCE_OK);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.e[0].prio, 4);
	assert_int_equal(a.e[0].reserved, 0);
	assert_int_equal(a.e[0].sel, 4);
	assert_int_equal(a.e[0].proto, 3260);
	k = 0;
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " LLDP ttl 120 DCBX PFC(enable 0x10)/APP(p4:sel4:3260)");
	/* tshark: port.subtype 5, port.id leaf0b-eth10, port.desc, system.name
	 * leaf0b, system.desc 5c:16:c7:00:00:01, 4 x orgtlv.oui 9953, app.prio 4,
	 * iee.app.sf 4, feature.app.proto 0x0cbc */
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "lldp.port.subtype", 0), 5);
	assert_string_equal(fs(&fl, "lldp.port.id", 0), "leaf0b-eth10");
	assert_string_equal(fs(&fl, "lldp.port.desc", 0), "Big Cloud Fabric Switch Port leaf0b-eth10");
	assert_string_equal(fs(&fl, "lldp.tlv.system.name", 0), "leaf0b");
	assert_string_equal(fs(&fl, "lldp.tlv.system.desc", 0), "5c:16:c7:00:00:01");
	assert_int_equal(fu(&fl, "lldp.orgtlv.oui", 3), 9953);
	assert_int_equal(fu(&fl, "lldp.dcbx.ieee.app.prio", 0), 4);
	assert_int_equal(fu(&fl, "lldp.dcbx.iee.app.sf", 0), 4);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.app.proto", 0), 0x0cbc);
	assert_int_equal(fcount(&fl, "lldp.tlv.type"), 13);
}

static void test_lldp_detailed(void **state)
{
	uint8_t b[300];
	struct roce_pkt p;
	static struct fieldlist fl;

	(void)state;
	/* tshark on lldp_detailed.pcap: port.id "1/1", system.name
	 * "Summit300-48", system_cap 0x0014, mgn.address.len 7, subtype 6,
	 * mgn.addr.hex 00:01:30:f9:ad:a0, interface.subtype 2, number 1001,
	 * 802_3.subtype 2,1,3,4, max_frame_size 1522, port_vlan.id 488 */
	decode_hex(&p, b, sizeof b, detailed_hex);
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_string_equal(fs(&fl, "lldp.port.id", 0), "1/1");
	assert_string_equal(fs(&fl, "lldp.port.desc", 0), "Summit300-48-Port 1001");
	assert_string_equal(fs(&fl, "lldp.tlv.system.name", 0), "Summit300-48");
	assert_int_equal(fu(&fl, "lldp.tlv.system_cap", 0), 0x14);
	assert_int_equal(fu(&fl, "lldp.tlv.enable_system_cap", 0), 0x14);
	assert_int_equal(fu(&fl, "lldp.mgn.address.len", 0), 7);
	assert_int_equal(fu(&fl, "lldp.mgn.address.subtype", 0), 6);
	assert_string_equal(fs(&fl, "lldp.mgn.addr.hex", 0), "000130f9ada0");
	assert_int_equal(fu(&fl, "lldp.mgn.interface.subtype", 0), 2);
	assert_int_equal(fu(&fl, "lldp.mgn.interface.number", 0), 1001);
	assert_int_equal(fu(&fl, "lldp.mgn.obj.len", 0), 0);
	assert_int_equal(fu(&fl, "lldp.ieee.802_3.subtype", 3), 4);
	assert_int_equal(fu(&fl, "lldp.ieee.802_3.max_frame_size", 0), 1522);
	assert_int_equal(fu(&fl, "lldp.ieee.802_1.port_vlan.id", 0), 488);
	assert_int_equal(fu(&fl, "lldp.ieee.802_1.vlan.id", 0), 488);
	assert_string_equal(fs(&fl, "lldp.ieee.802_1.vlan.name", 0), "v2-0488-03-0505");
	assert_int_equal(fu(&fl, "lldp.ieee.802_1.proto.id_length", 0), 0);

	/* lldp_minimal repeats the TTL TLV three times: 802.1AB has the receiver
	 * discard such an LLDPDU (tshark 4.0.17 stops at the second one) */
	{
		uint32_t n = load(minimal_hex, b, sizeof b);

		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, b, n, n);
		assert_true(INVAL(&p, ROCE_L_LLDP));
		assert_string_equal(p.why, "LLDP: a second Chassis ID, Port ID or TTL TLV");
	}
}

/* The malformed captures from tcpdump's crash regressions end cleanly. */
static void run_capture(const char *path, unsigned *frames, uint32_t *inval, uint32_t *trunc)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *d;

	if (!pc)
		fail_msg("%s: %s", path, err);
	*frames = 0;
	*inval = *trunc = 0;
	while (pcap_next_ex(pc, &h, &d) == 1) {
		uint8_t *c = malloc(h->caplen ? h->caplen : 1);
		struct roce_pkt p;

		assert_non_null(c);
		memcpy(c, d, h->caplen);
		roce_decode(&p, NULL, pcap_datalink(pc), c, h->caplen, h->len);
		walk_all(&p);
		*inval |= p.invalid;
		*trunc |= p.truncated;
		if (h->caplen >= 14 && pcap_datalink(pc) == DLT_EN10MB &&
		    (rd16(c + 12) == ROCE_ETH_LLDP || rd16(c + 12) == ROCE_ETH_MACCTL ||
		     rd16(c + 12) == ROCE_ETH_CNM)) {
			hook_decode(&p, c, h->caplen, h->len);
			walk_all(&p);
		}
		free(c);
		(*frames)++;
	}
	pcap_close(pc);
}

static void test_infinite_loop_1(void **state)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline("captures/public/tcpdump/lldp-infinite-loop-1.pcap", err);
	struct pcap_pkthdr *h;
	const u_char *d;
	struct roce_pkt p;
	struct roce_lldp_tlv t;
	static struct roce_dcbx_app a;

	(void)state;
	assert_non_null(pc);
	assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, d, h->caplen, h->len);
	assert_int_equal(p.invalid | p.truncated, 0);
	assert_true(find_8021(&p, ROCE_DCBX_APP, &t));
	assert_int_equal(t.len, 263);
	assert_int_equal(roce_dcbx_app(&t, &a), ROCE_OK);
	assert_int_equal(a.n, 86);
	/* tcpdump: third entry "Priority: 0, RES: 0, Sel: 0, Protocol ID: 32962",
	 * fourth "Priority: 0, RES: 1, Sel: 4", seventh "Priority: 4 ... 49676" */
	assert_int_equal(a.e[2].proto, 32962);
	assert_int_equal(a.e[3].reserved, 1);
	assert_int_equal(a.e[3].sel, 4);
	assert_int_equal(a.e[6].prio, 4);
	assert_int_equal(a.e[6].proto, 49676);
	assert_int_equal(p.trailer_off, 351);
	pcap_close(pc);
}

static void test_malformed_captures(void **state)
{
	static const struct {
		const char *file;
		uint32_t inval, trunc;   /* LLDP state expected */
	} caps[] = {
		/* first TLV type 24, then a TLV beyond the 35 captured bytes */
		{ "captures/public/tcpdump/hoobr_safeputs.pcap", 1, 0 },
		/* well formed: a 263-byte application TLV (86 entries, as tcpdump's
		 * .out lists) and the End TLV; the loop was in tcpdump's printer */
		{ "captures/public/tcpdump/lldp-infinite-loop-1.pcap", 0, 0 },
		/* TLVs of types 97 and 83, then an End TLV with length 194 */
		{ "captures/public/tcpdump/lldp-infinite-loop-2.pcap", 1, 0 },
		/* first TLV is an 802.3 org TLV, capture ends after it */
		{ "captures/public/tcpdump/lldp_8023_mtu-oobr.pcap", 1, 0 },
		/* chassis ID then org TLVs: no Port ID */
		{ "captures/public/tcpdump/lldp_asan.pcap", 1, 0 },
		/* first TLV is a management address */
		{ "captures/public/tcpdump/lldp_mgmt_addr_tlv_asan.pcap", 1, 0 },
		/* Wireshark's lldp_minimal.pcap: the TTL TLV three times */
		{ "captures/public/wireshark/lldp_minimal.pcap", 1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		unsigned frames;
		uint32_t inval, trunc;

		run_capture(caps[i].file, &frames, &inval, &trunc);
		assert_true(frames >= 1);
		if (((inval >> ROCE_L_LLDP) & 1) != caps[i].inval ||
		    ((trunc >> ROCE_L_LLDP) & 1) != caps[i].trunc)
			fail_msg("%s: invalid %x truncated %x", caps[i].file, inval, trunc);
	}
}

/* Every frame of every public DCB/LLDP capture decodes without complaint. */
static void test_public_captures(void **state)
{
	static const char *const files[] = {
		"captures/public/tcpdump/dcb_ets.pcap",
		"captures/public/tcpdump/dcb_pfc.pcap",
		"captures/public/tcpdump/dcb_qcn.pcap",
		"captures/public/tcpdump/lldp-app-priority.pcap",
		"captures/public/tcpdump/evb.pcap",
		/* ethernet_pause_frame.pcap is in the DOS Sniffer format, which
		 * libpcap cannot read; its two frames are hex vectors above */
		"captures/public/wireshark/lldp_detailed.pcap",
	};
	const uint32_t mine = ROCE_LBIT(ROCE_L_LLDP) | ROCE_LBIT(ROCE_L_MACCTRL) |
			      ROCE_LBIT(ROCE_L_CNM);

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		unsigned frames;
		uint32_t inval, trunc;

		run_capture(files[i], &frames, &inval, &trunc);
		assert_true(frames >= 1);
		if ((inval | trunc) & mine)
			fail_msg("%s: invalid %x truncated %x", files[i], inval, trunc);
	}
}

static void test_lldp_iter_edges(void **state)
{
	uint8_t b[128];
	struct roce_pkt p;
	struct roce_lldp_iter it = { 0 };
	struct roce_lldp_tlv t;
	uint32_t n;

	(void)state;
	/* a TLV whose length runs past the frame: invalid, and the walk ends */
	n = load("0180c200000e020000000001" "88cc" "0207040200000000010407030200000000010602"
		 "0078" "fe40" "0080c20b", b, sizeof b);
	memset(b + n, 0, 60 - n);
	hook_decode(&p, b, 60, 60);
	assert_true(INVAL(&p, ROCE_L_LLDP));
	assert_int_equal(roce_lldp_next(&p, &it, &t), 1);
	assert_int_equal(roce_lldp_next(&p, &it, &t), 1);
	assert_int_equal(roce_lldp_next(&p, &it, &t), 1);
	assert_int_equal(roce_lldp_next(&p, &it, &t), ROCE_EINVAL);
	assert_int_equal(t.type, 127);
	assert_int_equal(t.len, 64);
	assert_int_equal(roce_lldp_next(&p, &it, &t), ROCE_EINVAL);

	/* a wrong-length DCBX PFC TLV is invalid */
	n = load("0180c200000e020000000001" "88cc" "0207040200000000010407030200000000010602"
		 "0078" "fe070080c20b043400" "0000", b, sizeof b);
	memset(b + n, 0, 60 - n);
	hook_decode(&p, b, 60, 60);
	assert_true(INVAL(&p, ROCE_L_LLDP));
	assert_string_equal(p.why, "DCBX PFC TLV length is not 6");

	/* End TLV straight away */
	memset(b + 14, 0, 46);
	hook_decode(&p, b, 60, 60);
	assert_true(INVAL(&p, ROCE_L_LLDP));

	/* no LLDP at all: the iterator says so */
	memset(&p, 0, sizeof p);
	memset(&it, 0, sizeof it);
	assert_int_equal(roce_lldp_next(&p, &it, &t), ROCE_EINVAL);
}

/* ---- builders: LLDP round trips ---------------------------------------------------- */

static void test_lldp_build(void **state)
{
	static const struct roce_dcbx_app_entry apps[2] = {
		{ .prio = 3, .sel = 3, .proto = 4791 },     /* RoCEv2: UDP port 4791 */
		{ .prio = 5, .sel = 1, .proto = 0x8915 },   /* RoCEv1 ethertype */
	};
	static const uint8_t port[] = "swp17";
	struct roce_eth_spec eth = { .src = { 0x0c, 0x42, 0xa1, 0x00, 0x00, 0x11 } };
	struct roce_lldp_dcbx_spec s;
	struct roce_pkt p;
	struct roce_lldp_tlv t;
	struct roce_dcbx_ets e;
	struct roce_dcbx_pfc f;
	struct roce_dcbx_cn cn;
	static struct roce_dcbx_app a;
	static struct fieldlist fl;
	uint8_t c[600];
	char sum[256];
	size_t k = 0;
	int len;

	(void)state;
	memset(&s, 0, sizeof s);
	s.port_subtype = 5;
	s.port_id = port;
	s.port_id_len = 5;
	s.ttl = 120;
	s.has_ets = 1;
	s.ets.willing = 1;
	s.ets.max_tcs = 7;
	for (unsigned i = 0; i < 8; i++) {
		s.ets.prio_tc[i] = (uint8_t)(i == 3 ? 1 : 0);
		s.ets.tsa[i] = 2;
	}
	s.ets.tc_bw[0] = 50;
	s.ets.tc_bw[1] = 50;
	s.has_pfc = 1;
	s.pfc.willing = 1;
	s.pfc.cap = 8;
	s.pfc.enable = 0x08;
	s.app = apps;
	s.n_app = 2;
	s.has_cn = 1;
	s.cn.cnpv = 0x08;
	s.cn.ready = 0x08;

	len = roce_build_lldp_dcbx(c, sizeof c, &eth, &s, 1);
	/* 14 + chassis 9 + port 8 + TTL 4 + ETS 27 + PFC 8 + APP 13 + CN 8 + End 2 = 93, + FCS */
	assert_int_equal(len, 97);
	assert_memory_equal(c, "\x01\x80\xc2\x00\x00\x0e", 6);
	assert_int_equal(rd32le(c + 93), (uint32_t)crc32(0, c, 93));
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, (uint32_t)len, (uint32_t)len),
			 ROCE_OK);
	assert_true(HAS(&p, ROCE_L_LLDP));
	assert_int_equal(p.fcs_off, 93);
	assert_true(find_8021(&p, ROCE_DCBX_ETS_CFG, &t));
	assert_int_equal(roce_dcbx_ets(&t, &e), ROCE_OK);
	assert_int_equal(e.willing, 1);
	assert_int_equal(e.max_tcs, 7);
	assert_memory_equal(e.prio_tc, s.ets.prio_tc, 8);
	assert_memory_equal(e.tc_bw, s.ets.tc_bw, 8);
	assert_memory_equal(e.tsa, s.ets.tsa, 8);
	assert_true(find_8021(&p, ROCE_DCBX_PFC, &t));
	assert_int_equal(roce_dcbx_pfc(&t, &f), ROCE_OK);
	assert_int_equal(f.willing, 1);
	assert_int_equal(f.cap, 8);
	assert_int_equal(f.enable, 8);
	assert_true(find_8021(&p, ROCE_DCBX_APP, &t));
	assert_int_equal(roce_dcbx_app(&t, &a), ROCE_OK);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.e[0].prio, 3);
	assert_int_equal(a.e[0].sel, 3);
	assert_int_equal(a.e[0].proto, 4791);
	assert_int_equal(a.e[1].proto, 0x8915);
	assert_true(find_8021(&p, ROCE_DCBX_CN, &t));
	assert_int_equal(roce_dcbx_cn(&t, &cn), ROCE_OK);
	assert_int_equal(cn.cnpv, 8);
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " LLDP ttl 120 DCBX ETS(willing,bw 50/50/0/0/0/0/0/0)/"
				 "PFC(willing,enable 0x08)/APP(p3:sel3:4791,p5:sel1:35093)/"
				 "CN(cnpv 0x08 ready 0x08)");
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_string_equal(fs(&fl, "lldp.chassis.id.mac", 0), "0c42a1000011");
	assert_string_equal(fs(&fl, "lldp.port.id", 0), "swp17");
	every_truncation(c, (uint32_t)len, 93, ROCE_L_LLDP);

	/* range checks */
	s.ets.prio_tc[0] = 16;
	assert_int_equal(roce_build_lldp_dcbx(c, sizeof c, &eth, &s, 0), ROCE_EARG);
	s.ets.prio_tc[0] = 0;
	assert_int_equal(roce_build_lldp_dcbx(c, 90, &eth, &s, 0), ROCE_ENOSPC);
	assert_int_equal(roce_build_lldp_dcbx(c, 93, &eth, &s, 0), 93);
}

static void test_cee_build(void **state)
{
	static struct roce_cee in, out;
	struct roce_lldp_dcbx_spec s;
	struct roce_pkt p;
	struct roce_lldp_iter it = { 0 };
	struct roce_lldp_tlv t;
	static struct fieldlist fl;
	uint8_t c[600];
	char sum[256];
	size_t k = 0;
	int len, found = 0;

	(void)state;
	memset(&in, 0, sizeof in);
	in.has_control = 1;
	in.max_version = 0;
	in.seq = 1;
	in.ack = 10;
	in.pg.present = in.pg.enabled = in.pg.willing = 1;
	for (unsigned i = 0; i < 8; i++)
		in.pgid[i] = (uint8_t)i;
	in.pg_pct[0] = 10;
	in.pg_pct[1] = 20;
	in.pg_pct[2] = 30;
	in.pg_pct[3] = 40;
	in.pg_numtcs = 8;
	in.pfc.present = in.pfc.enabled = 1;
	in.pfc_enable = 0x09;
	in.pfc_numtcs = 8;
	in.app.present = in.app.enabled = 1;
	in.n_app = 1;
	in.app_e[0].proto = 0x12b7;
	in.app_e[0].sel = 1;
	in.app_e[0].oui = 0x402233;
	in.app_e[0].prio_map = 0x08;
	memset(&s, 0, sizeof s);
	s.ttl = 120;
	s.cee = &in;

	len = roce_build_lldp_dcbx(c, sizeof c, NULL, &s, 0);
	assert_true(len > 0);
	/* the CEE TLV's bytes as tshark 4.0.17 decodes them (checked with a
	 * hand-made frame: control seq 1 ack 10; PGIDs 0..7; PFC prio0+prio3;
	 * app proto 0x12b7, oui 0x402233, sf 1, prio 3) */
	{
		static const char cee_hex[] =
			"fe37001b2102" "020a0000000000010000000a"
			"04110000c000" "01234567" "0a141e2800000000" "08"
			"06060000800009" "08"
			"080a00008000" "12b7412233" "08";
		uint8_t ref[64];
		uint32_t rn = load(cee_hex, ref, sizeof ref);

		assert_int_equal(rn, 57);
		assert_memory_equal(c + 14 + 9 + 9 + 4, ref, rn);
	}
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, (uint32_t)len, (uint32_t)len),
			 ROCE_OK);
	assert_true(HAS(&p, ROCE_L_LLDP));
	while (roce_lldp_next(&p, &it, &t) == 1) {
		if (!t.has_oui || t.oui != ROCE_OUI_CEE)
			continue;
		found = 1;
		assert_int_equal(roce_dcbx_cee(&t, &out), ROCE_OK);
	}
	assert_true(found);
	assert_int_equal(out.has_control, 1);
	assert_int_equal(out.seq, 1);
	assert_int_equal(out.ack, 10);
	assert_int_equal(out.pg.present, 1);
	assert_int_equal(out.pg.willing, 1);
	assert_memory_equal(out.pgid, in.pgid, 8);
	assert_memory_equal(out.pg_pct, in.pg_pct, 8);
	assert_int_equal(out.pg_numtcs, 8);
	assert_int_equal(out.pfc_enable, 9);
	assert_int_equal(out.n_app, 1);
	assert_int_equal(out.app_e[0].proto, 0x12b7);
	assert_int_equal(out.app_e[0].sel, 1);
	assert_int_equal(out.app_e[0].oui, 0x402233);
	assert_int_equal(out.app_e[0].prio_map, 8);
	roce__summary_l2(&p, sum, sizeof sum, &k);
	assert_string_equal(sum, " LLDP ttl 120 DCBX CEE/PG(willing)/PFC(enable 0x09)/"
				 "APP(0x12b7:map 0x08)");
	/* tshark field values for the same bytes */
	fl.n = 0;
	roce__fields_l2(&p, collect, &fl);
	assert_int_equal(fu(&fl, "lldp.dcbx.proto", 0), 2);
	assert_int_equal(fu(&fl, "lldp.dcbx.type", 1), 2);
	assert_int_equal(fu(&fl, "lldp.dcbx.len", 1), 17);
	assert_int_equal(fu(&fl, "lldp.dcbx.control.ack", 0), 10);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.willing", 0), 1);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.pgid_prio5", 0), 5);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pg.per3", 0), 40);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pfc.prio0", 0), 1);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pfc.prio3", 0), 1);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.pfc.prio1", 0), 0);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.app.oui", 0), 0x402233);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.app.sf", 0), 1);
	assert_int_equal(fu(&fl, "lldp.dcbx.feature.app.prio", 0), 3);
	every_truncation(c, (uint32_t)len, (uint32_t)(14 + 9 + 9 + 4 + 57 + 2), ROCE_L_LLDP);

	/* a CEE sub-TLV running past its TLV makes the LLDPDU invalid */
	c[14 + 9 + 9 + 4 + 6 + 12 + 1] = 0x40;       /* PG length 17 -> 64 */
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, c, (uint32_t)len, (uint32_t)len);
	assert_true(INVAL(&p, ROCE_L_LLDP));
	walk_all(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_truncation),
		cmocka_unit_test(test_pause_capture),
		cmocka_unit_test(test_pfc),
		cmocka_unit_test(test_pause_build),
		cmocka_unit_test(test_quanta),
		cmocka_unit_test(test_cnm),
		cmocka_unit_test(test_cntag),
		cmocka_unit_test(test_cntag_short_grh),
		cmocka_unit_test(test_lldp_ets),
		cmocka_unit_test(test_lldp_pfc_cn_app),
		cmocka_unit_test(test_lldp_detailed),
		cmocka_unit_test(test_infinite_loop_1),
		cmocka_unit_test(test_malformed_captures),
		cmocka_unit_test(test_public_captures),
		cmocka_unit_test(test_lldp_iter_edges),
		cmocka_unit_test(test_lldp_build),
		cmocka_unit_test(test_cee_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
