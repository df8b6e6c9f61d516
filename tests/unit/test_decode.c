/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoder tests: hex vectors with values taken from tshark 4.0 and the
 * IBTA spec, ICRC against an independent zlib computation, every truncation
 * length of every vector and of real rxe frames, invalid frames, link types,
 * ports.
 */
#include "testutil.h"
#include <zlib.h>
#include "roce.h"

/* Frame 8 of captures/lab/roce_rping.pcap (rxe, RC READ REQUEST).  tshark:
 * opcode 12, destqp 0x000011, psn 6571814, reth.va 0x000055f977933910,
 * r_key 0x00000514, dmalen 200, invariant.crc 0xb3657169. */
static const uint8_t read_req[] = {
	0x52, 0x54, 0x00, 0x99, 0x00, 0x02, 0x52, 0x54, 0x00, 0x99, 0x00, 0x01, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x3c, 0xfd, 0xb6, 0x40, 0x00, 0x40, 0x11, 0x28, 0x32, 0x0a, 0x63, 0x00, 0x01, 0x0a, 0x63,
	0x00, 0x02, 0xdb, 0x36, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x0c, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x11, 0x80, 0x64, 0x47, 0x26, 0x00, 0x00, 0x55, 0xf9, 0x77, 0x93, 0x39, 0x10, 0x00, 0x00,
	0x05, 0x14, 0x00, 0x00, 0x00, 0xc8, 0xb3, 0x65, 0x71, 0x69,
};

/* ICRC computed the long way with zlib, following IBTA A17.3.3 for IPv4. */
static uint32_t zlib_icrc_v4(const uint8_t *frame, size_t len)
{
	uint8_t buf[2048];
	size_t n = 0, ip = 14, ihl = (frame[ip] & 15) * 4;

	memset(buf, 0xff, 8);
	n = 8;
	memcpy(buf + n, frame + ip, len - ip - 4);
	buf[n + 1] = 0xff;                        /* TOS */
	buf[n + 8] = 0xff;                        /* TTL */
	buf[n + 10] = buf[n + 11] = 0xff;         /* header checksum */
	buf[n + ihl + 6] = buf[n + ihl + 7] = 0xff; /* UDP checksum */
	buf[n + ihl + 8 + 4] = 0xff;              /* BTH FECN/BECN/resv6 */
	n += len - ip - 4;
	return (uint32_t)crc32(0, buf, (uInt)n);
}

static void test_read_request_vector(void **state)
{
	struct roce_pkt p;
	uint32_t c;

	(void)state;
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, read_req, sizeof read_req,
				     sizeof read_req), ROCE_OK);
	assert_int_equal(p.version, ROCE_VER_V2);
	assert_int_equal(p.ethertype, 0x0800);
	assert_int_equal(p.ip_version, 4);
	assert_int_equal(p.sport, 0xdb36);
	assert_int_equal(p.dport, 4791);
	assert_int_equal(p.opcode, 12);
	assert_int_equal(p.dqpn, 0x11);
	assert_int_equal(p.psn, 6571814);
	assert_int_equal(p.ackreq, 1);
	assert_int_equal(p.pkey, 0xffff);
	assert_true(p.reth_off != 0);
	assert_true(roce_reth_va(&p) == 0x000055f977933910ull);
	assert_int_equal(roce_reth_rkey(&p), 0x514);
	assert_int_equal(roce_reth_dmalen(&p), 200);
	assert_int_equal(p.payload_off, 0);
	assert_int_equal(p.icrc_off, sizeof read_req - 4);
	assert_int_equal(roce_icrc_verify(&p, &c), ROCE_ICRC_GOOD);
	assert_int_equal(c, zlib_icrc_v4(read_req, sizeof read_req));
	assert_int_equal(c, 0x697165b3);          /* wire bytes b3 65 71 69, LSB first */
	assert_string_equal(roce_opcode_name(p.opcode), "RC READ_REQUEST");
}

/* Each variant field the ICRC masks can change without breaking it; any
 * other byte breaks it. */
static void test_icrc_masking(void **state)
{
	uint8_t f[sizeof read_req];
	struct roce_pkt p;

	(void)state;
	static const size_t variant[] = { 15, 22, 24, 25, 40, 41, 46 }; /* TOS TTL csum csum udpcsum udpcsum FECN byte */
	for (size_t i = 0; i < sizeof variant / sizeof variant[0]; i++) {
		memcpy(f, read_req, sizeof f);
		f[variant[i]] ^= 0x5a;
		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, sizeof f, sizeof f);
		assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	}
	for (size_t i = 14; i < sizeof f; i++) {
		int is_variant = 0;
		for (size_t j = 0; j < sizeof variant / sizeof variant[0]; j++)
			is_variant |= variant[j] == i;
		/* bytes that change lengths/versions make the frame undecodable */
		if (is_variant || i == 14 || i == 16 || i == 17 || i == 20 || i == 21 || i == 23 || i == 36 || i == 37 ||
		    i == 38 || i == 39 || i == 42 || i == 43)
			continue;
		memcpy(f, read_req, sizeof f);
		f[i] ^= 0x01;
		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, sizeof f, sizeof f);
		if (roce_icrc_verify(&p, NULL) != ROCE_ICRC_BAD)
			fail_msg("flipping byte %zu did not break the ICRC", i);
	}
}

static void count_cb(void *ctx, const struct roce_field *f)
{
	volatile unsigned *n = ctx;
	if (f->type == ROCE_F_BYTES || f->type == ROCE_F_MAC || f->type == ROCE_F_IPV4 ||
	    f->type == ROCE_F_IPV6 || f->type == ROCE_F_TEXT) {
		/* touch every byte a field points at */
		unsigned s = 0;
		for (uint32_t i = 0; i < f->len; i++)
			s += f->b[i];
		*n += s & 1;
	}
	(*n)++;
}

static void check_truncations_fields(const uint8_t *frame, uint32_t len, int linktype)
{
	struct roce_pkt full, p;
	char line[512];
	volatile unsigned n = 0;
	uint32_t need;

	roce_decode(&full, NULL, linktype, frame, len, len);
	need = full.icrc_off ? full.icrc_off + 4 : (full.ip_end ? full.ip_end : len);
	for (uint32_t k = 0; k < len; k++) {
		uint8_t *b = test_exact_copy(frame, k);
		int rc = roce_decode(&p, NULL, linktype, b, k, len);

		if (k < need && !full.invalid && rc != ROCE_ETRUNC)
			fail_msg("caplen %u of %u: rc %d, want truncated", k, len, rc);
		if (full.version != ROCE_VER_NONE && k < need)
			assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_UNCHECKED);
		roce_summary(&p, line, sizeof line);
		roce_foreach_field(&p, count_cb, (void *)&n);
		free(b);
	}
}

static void test_truncations_vector(void **state)
{
	(void)state;
	check_truncations_fields(read_req, sizeof read_req, ROCE_LINK_ETHERNET);
}

/* Every frame of the real rxe captures: decodes cleanly, ICRC good (but for
 * the one deliberately bad frame), and every truncation is "truncated". */
static void test_lab_captures(void **state)
{
	static const char *const files[] = {
		"captures/lab/roce_rping.pcap", "captures/lab/roce_rc_pingpong.pcap",
		"captures/lab/roce_rc_pingpong_ipv6gid.pcap", "captures/lab/roce_uc_pingpong.pcap",
		"captures/lab/roce_ud_pingpong.pcap", "captures/lab/roce_atomic_bw_cas.pcap",
		"captures/lab/roce_atomic_bw_fadd.pcap", "captures/lab/roce_read_bw.pcap",
		"captures/lab/roce_udaddy.pcap", "captures/lab/roce_host_inject.pcap",
		"captures/lab/roce_write_bw_rdmacm.pcap",
	};
	static struct test_frame fr[400];
	unsigned good = 0, bad = 0, roce = 0;

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		int lt;
		size_t n = test_load_pcap(files[i], fr, 400, &lt);

		assert_true(n > 0);
		for (size_t j = 0; j < n; j++) {
			struct roce_pkt p;
			int rc = roce_decode(&p, NULL, lt, fr[j].data, fr[j].caplen, fr[j].len);

			assert_int_equal(rc, ROCE_OK);
			if (p.version == ROCE_VER_NONE)
				continue;
			roce++;
			if (roce_icrc_verify(&p, NULL) == ROCE_ICRC_GOOD)
				good++;
			else
				bad++;
			/* truncation sweep on a sample (all of the small captures) */
			if (j < 40)
				check_truncations_fields(fr[j].data, fr[j].caplen, lt);
		}
		test_free_frames(fr, n);
	}
	print_message("lab: %u RoCE frames, %u good ICRC, %u bad\n", roce, good, bad);
	assert_int_equal(bad, 1);   /* roce_host_inject's deliberate bad ICRC */
	assert_true(good > 500);
}

/* Builds a frame by hand: Ethernet + IPv4 + UDP(dport) + BTH(opcode) + rest. */
static uint32_t mk(uint8_t *f, uint16_t dport, uint8_t opcode, uint8_t bth1, const uint8_t *rest,
		   uint32_t rest_len)
{
	uint32_t udp_len = 8 + 12 + rest_len + 4, ip_len = 20 + udp_len;

	memset(f, 0, 14 + ip_len);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(ip_len >> 8);
	f[17] = (uint8_t)ip_len;
	f[22] = 64;
	f[23] = 17;
	f[34] = 0xc0;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[38] = (uint8_t)(udp_len >> 8);
	f[39] = (uint8_t)udp_len;
	f[42] = opcode;
	f[43] = bth1;
	f[44] = f[45] = 0xff;
	f[49] = 0x12;                 /* QPN 0x12 */
	f[53] = 7;                    /* PSN 7 */
	memcpy(f + 54, rest, rest_len);
	return 14 + ip_len;
}

static void test_invalid_frames(void **state)
{
	uint8_t f[256], rest[64] = { 0 };
	struct roce_pkt p;
	uint32_t n;

	(void)state;
	/* reserved opcode 0x18 */
	n = mk(f, 4791, 0x18, 0, rest, 8);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_BTH));
	assert_false(p.truncated);
	/* pad count 3 with a 2-byte payload */
	n = mk(f, 4791, 0x04, 0x30, rest, 2);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_PAYLOAD));
	/* pad count 2 with 4 bytes: 2 payload bytes, valid */
	n = mk(f, 4791, 0x04, 0x20, rest, 4);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_OK);
	assert_int_equal(p.payload_len, 2);
	/* TVer 1 */
	n = mk(f, 4791, 0x04, 0x01, rest, 4);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	/* ACK with trailing bytes after the AETH */
	n = mk(f, 4791, 0x11, 0, rest, 8);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_PAYLOAD));
	/* READ request too short for its RETH */
	n = mk(f, 4791, 0x0c, 0, rest, 8);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_EXT));
	/* UDP length larger than the IP payload */
	n = mk(f, 4791, 0x04, 0, rest, 4);
	f[39] += 4;
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_UDP));
	/* IPv4 total length beyond the frame is invalid, not truncated */
	n = mk(f, 4791, 0x04, 0, rest, 4);
	f[17] += 10;
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_IPV4));
	assert_non_null(p.why);
	/* …but the same frame cut by the capture is truncated */
	n = mk(f, 4791, 0x04, 0, rest, 4);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n - 10, n), ROCE_ETRUNC);
	assert_false(p.invalid);
	/* three VLAN tags */
	memmove(f + 24, f + 12, n - 12);
	for (int i = 0; i < 3; i++) {
		f[12 + 4 * i] = 0x81;
		f[13 + 4 * i] = 0x00;
		f[14 + 4 * i] = 0x00;
		f[15 + 4 * i] = 0x05;
	}
	assert_int_equal(roce_decode(&p, NULL, 1, f, n + 12, n + 12), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_VLAN));
	assert_int_equal(p.n_vlan, 2);
}

static void test_ports(void **state)
{
	uint8_t f[256], rest[8] = { 0 };
	struct roce_cfg cfg = { 0 };
	struct roce_pkt p;
	uint32_t n;

	(void)state;
	n = mk(f, 1021, 0x04, 0, rest, 4);
	assert_int_equal(roce_decode(&p, NULL, 1, f, n, n), ROCE_OK);
	assert_int_equal(p.version, ROCE_VER_V2_1021);
	assert_string_equal(roce_version_name(p.version), "v2-1021");
	cfg.no_legacy_port = 1;
	roce_decode(&p, &cfg, 1, f, n, n);
	assert_int_equal(p.version, ROCE_VER_NONE);
	n = mk(f, 5000, 0x04, 0, rest, 4);
	roce_decode(&p, NULL, 1, f, n, n);
	assert_int_equal(p.version, ROCE_VER_NONE);
	assert_int_equal(roce_cfg_add_udp_port(&cfg, 5000), ROCE_OK);
	roce_decode(&p, &cfg, 1, f, n, n);
	assert_int_equal(p.version, ROCE_VER_V2_PORT);
	for (uint16_t i = 0; i < 7; i++)
		assert_int_equal(roce_cfg_add_udp_port(&cfg, (uint16_t)(6000 + i)), ROCE_OK);
	assert_int_equal(roce_cfg_add_udp_port(&cfg, 7000), ROCE_EARG);
	/* the source port does not matter: 4791 as source only is not RoCE */
	n = mk(f, 69, 0x04, 0, rest, 4);
	f[34] = 0x12;
	f[35] = 0xb7;
	roce_decode(&p, NULL, 1, f, n, n);
	assert_int_equal(p.version, ROCE_VER_NONE);
}

/* The same RoCE packet under each link type. */
static void test_linktypes(void **state)
{
	uint8_t f[512];
	struct roce_pkt p, ref;
	uint32_t ip_len = sizeof read_req - 14;

	(void)state;
	roce_decode(&ref, NULL, ROCE_LINK_ETHERNET, read_req, sizeof read_req, sizeof read_req);
	/* raw IP */
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_RAW, read_req + 14, ip_len, ip_len), ROCE_OK);
	assert_int_equal(p.psn, ref.psn);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_IPV4, read_req + 14, ip_len, ip_len), ROCE_OK);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	/* SLL: pkttype 0 (to us), hatype 1, halen 6, address, protocol */
	memset(f, 0, 16);
	f[3] = 1;
	f[5] = 6;
	memcpy(f + 6, read_req + 6, 6);
	f[14] = 0x08;
	memcpy(f + 16, read_req + 14, ip_len);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_LINUX_SLL, f, 16 + ip_len, 16 + ip_len), ROCE_OK);
	assert_int_equal(p.opcode, 12);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	/* SLL2: protocol first */
	memset(f, 0, 20);
	f[0] = 0x08;
	f[9] = 1;
	f[11] = 6;
	memcpy(f + 20, read_req + 14, ip_len);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_LINUX_SLL2, f, 20 + ip_len, 20 + ip_len), ROCE_OK);
	assert_int_equal(roce_reth_dmalen(&p), 200);
	check_truncations_fields(f, 20 + ip_len, ROCE_LINK_LINUX_SLL2);
	/* unsupported */
	assert_int_equal(roce_decode(&p, NULL, 105, f, 20, 20), ROCE_EUNSUP);
	assert_int_equal(roce_linktype_supported(105), 0);
}

/* A frame with an Ethernet FCS after the ICRC: found by verifying it. */
static void test_fcs(void **state)
{
	uint8_t f[sizeof read_req + 4];
	struct roce_pkt p;
	uint32_t fcs = (uint32_t)crc32(0, read_req, sizeof read_req);

	(void)state;
	memcpy(f, read_req, sizeof read_req);
	f[sizeof read_req] = (uint8_t)fcs;
	f[sizeof read_req + 1] = (uint8_t)(fcs >> 8);
	f[sizeof read_req + 2] = (uint8_t)(fcs >> 16);
	f[sizeof read_req + 3] = (uint8_t)(fcs >> 24);
	assert_int_equal(roce_decode(&p, NULL, 1, f, sizeof f, sizeof f), ROCE_OK);
	assert_int_equal(p.fcs_off, sizeof read_req);
	assert_int_equal(p.trailer_len, 4);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	f[sizeof read_req] ^= 1;      /* not an FCS any more: just a trailer */
	roce_decode(&p, NULL, 1, f, sizeof f, sizeof f);
	assert_int_equal(p.fcs_off, 0);
	assert_int_equal(p.trailer_len, 4);
}

/* RoCE behind an 802.1Qau CN-TAG (type 0x22E9, flow ID, inner type). */
static void test_cntag(void **state)
{
	uint8_t f[sizeof read_req + 4];
	struct roce_pkt p;

	(void)state;
	memcpy(f, read_req, 12);
	f[12] = 0x22;
	f[13] = 0xe9;
	f[14] = 0x12;
	f[15] = 0x34;
	memcpy(f + 16, read_req + 12, sizeof read_req - 12);
	assert_int_equal(roce_decode(&p, NULL, 1, f, sizeof f, sizeof f), ROCE_OK);
	assert_int_equal(p.version, ROCE_VER_V2);
	assert_int_equal(p.cnm_off, 14);
	assert_int_equal(p.ethertype, 0x0800);
	assert_int_equal(p.psn, 6571814);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	check_truncations_fields(f, sizeof f, ROCE_LINK_ETHERNET);
}

static void test_psn_and_tables(void **state)
{
	(void)state;
	assert_true(roce_psn_before(0xfffffe, 0x000001));
	assert_false(roce_psn_before(0x000001, 0xfffffe));
	assert_int_equal(roce_psn_diff(0x000002, 0xfffffe), 4);
	assert_int_equal(roce_psn_diff(0xfffffe, 0x000002), -4);
	assert_int_equal(roce_rnr_timer_us(0), 655360);
	assert_int_equal(roce_rnr_timer_us(12), 640);
	assert_int_equal(roce_rnr_timer_us(31), 491520);
	/* header sets of a few opcodes, from the IBTA opcode table */
	assert_int_equal(roce_opcode_info(0x0b)->hdrs, ROCE_H_RETH | ROCE_H_IMMDT | ROCE_H_PAYLOAD);
	assert_int_equal(roce_opcode_info(0x12)->hdrs, ROCE_H_AETH | ROCE_H_ATOMICACKETH);
	assert_int_equal(roce_opcode_info(0x1c)->hdrs, ROCE_H_FETH | ROCE_H_RETH);
	assert_int_equal(roce_opcode_info(0x4c)->hdrs, ROCE_H_RDETH | ROCE_H_DETH | ROCE_H_RETH);
	assert_int_equal(roce_opcode_info(0x51)->hdrs, ROCE_H_RDETH | ROCE_H_AETH);
	assert_int_equal(roce_opcode_info(0xb7)->hdrs, ROCE_H_XRCETH | ROCE_H_IETH | ROCE_H_PAYLOAD);
	assert_int_equal(roce_opcode_info(0xb1)->hdrs, ROCE_H_AETH);
	assert_int_equal(roce_opcode_info(0x65)->hdrs, ROCE_H_DETH | ROCE_H_IMMDT | ROCE_H_PAYLOAD);
	assert_null(roce_opcode_info(0x15));
	assert_null(roce_opcode_info(0x2c));   /* UC has no READ */
	assert_null(roce_opcode_info(0x66));
	assert_string_equal(roce_opcode_name(0x2c), "op 0x2c");
	assert_int_equal(roce_ext_len(ROCE_H_ATOMICETH | ROCE_H_RDETH | ROCE_H_DETH), 40);
	/* 0x00-0x1f of RC: 26 opcodes defined */
	int n = 0;
	for (int op = 0; op < 0x20; op++)
		n += roce_opcode_info((uint8_t)op) != NULL;
	assert_int_equal(n, 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_request_vector),
		cmocka_unit_test(test_icrc_masking),
		cmocka_unit_test(test_truncations_vector),
		cmocka_unit_test(test_invalid_frames),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_linktypes),
		cmocka_unit_test(test_fcs),
		cmocka_unit_test(test_cntag),
		cmocka_unit_test(test_psn_and_tables),
		cmocka_unit_test(test_lab_captures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
