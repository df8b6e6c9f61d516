/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP (MPA/DDP/RDMAP) and the MPA stream helper.
 *
 * References that do not come from libroce itself:
 *  - frames of the Wireshark iWARP samples and the lab's siw / siw-crc
 *    captures, with the values tshark 4.0.17 gives for them (pasted below);
 *  - CRC-32C computed bit by bit here, and RFC 1071 sums computed here;
 *  - the MPA/FPDU bytes of those captures, which the builders must reproduce.
 * Every truncation length of every vector is decoded from an exactly-sized
 * heap copy (ASan catches an over-read).  The stream helper is fed
 * builder-made streams split at every byte position, at random, byte by
 * byte, with gaps, retransmissions, out-of-order data, bad CRCs.
 */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"

/* iwarp_snd_recv_crc_mrkr.pcap frame 7 (110 bytes) */
static const uint8_t pub_mrkr_send[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x60, 0xac, 0x69, 0x40, 0x00, 0x40, 0x06, 0x7a, 0x0a, 0x0a, 0x00, 0x00, 0x12, 0x0a, 0x00,
	0x00, 0x13, 0x10, 0x72, 0xdc, 0xf9, 0xa4, 0x4c, 0x2a, 0x5f, 0xee, 0xcd, 0x3e, 0x89, 0x80, 0x18,
	0x00, 0x2e, 0x31, 0x68, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x04, 0xc4, 0x86, 0x24, 0x04, 0xc4,
	0x87, 0x32, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0xb0, 0x05, 0x08, 0x00, 0x00, 0x00, 0x00, 0x5e, 0x87, 0x89, 0xd7,
};
/* iwarp_rdma_read.pcap frame 12 (118 bytes) */
static const uint8_t pub_read_req[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x68, 0x1e, 0x92, 0x40, 0x00, 0x40, 0x06, 0x07, 0xda, 0x0a, 0x00, 0x00, 0x12, 0x0a, 0x00,
	0x00, 0x13, 0x10, 0x72, 0x99, 0x29, 0xc0, 0x12, 0x66, 0xdd, 0x0c, 0x55, 0x3f, 0xa8, 0x80, 0x18,
	0x00, 0x2e, 0x7f, 0xf9, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x01, 0x22, 0x7c, 0x0c, 0x01, 0x21,
	0xf8, 0x56, 0x00, 0x2e, 0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x05, 0x08, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x05, 0x08, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* iwarp_rdma_write_crc.pcap frame 12 (94 bytes) */
static const uint8_t pub_crc_send[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x50, 0x64, 0xb8, 0x40, 0x00, 0x40, 0x06, 0xc1, 0xcb, 0x0a, 0x00, 0x00, 0x12, 0x0a, 0x00,
	0x00, 0x13, 0x10, 0x72, 0xae, 0xdb, 0x47, 0xc5, 0x3c, 0x51, 0x93, 0x4c, 0x06, 0x2e, 0x80, 0x18,
	0x00, 0x2e, 0x6c, 0xcc, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x00, 0xb6, 0x53, 0x4e, 0x00, 0xb5,
	0xcf, 0x97, 0x00, 0x16, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x09, 0x09, 0x09, 0x09, 0x48, 0xcc, 0x58, 0x11,
};
/* iwarp_C11_M11.pcap frame 4 (93 bytes) */
static const uint8_t pub_req_mc[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x4f, 0x81, 0x05, 0x40, 0x00, 0x40, 0x06, 0xa5, 0x7f, 0x0a, 0x00, 0x00, 0x13, 0x0a, 0x00,
	0x00, 0x12, 0xe4, 0x75, 0x10, 0x72, 0x2c, 0xbf, 0x9c, 0x47, 0xe2, 0x28, 0x6f, 0x86, 0x80, 0x18,
	0x00, 0x2e, 0xa8, 0xde, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x03, 0x45, 0x1d, 0x45, 0x03, 0x45,
	0x1c, 0x3c, 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72, 0x61,
	0x6d, 0x65, 0xc0, 0x01, 0x00, 0x07, 0x61, 0x63, 0x74, 0x69, 0x76, 0x65, 0x00,
};
/* iwarp_C11_M11.pcap frame 6 (94 bytes) */
static const uint8_t pub_rep_mc[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x50, 0x73, 0xbb, 0x40, 0x00, 0x40, 0x06, 0xb2, 0xc8, 0x0a, 0x00, 0x00, 0x12, 0x0a, 0x00,
	0x00, 0x13, 0x10, 0x72, 0xe4, 0x75, 0xe2, 0x28, 0x6f, 0x86, 0x2c, 0xbf, 0x9c, 0x62, 0x80, 0x18,
	0x00, 0x2e, 0x42, 0xa9, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x03, 0x45, 0x1c, 0x3c, 0x03, 0x45,
	0x1d, 0x45, 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70, 0x20, 0x46, 0x72, 0x61,
	0x6d, 0x65, 0xc0, 0x01, 0x00, 0x08, 0x70, 0x61, 0x73, 0x73, 0x69, 0x76, 0x65, 0x00,
};
/* iwarp_C00_M00_reject.pcap frame 6 (94 bytes) */
static const uint8_t pub_rep_reject[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x50, 0x19, 0x03, 0x40, 0x00, 0x40, 0x06, 0x0d, 0x81, 0x0a, 0x00, 0x00, 0x12, 0x0a, 0x00,
	0x00, 0x13, 0x10, 0x72, 0xed, 0xdc, 0xe4, 0x66, 0x41, 0x0e, 0x2f, 0x44, 0x32, 0x09, 0x80, 0x18,
	0x00, 0x2e, 0x15, 0xbd, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x03, 0x3f, 0x58, 0x0c, 0x03, 0x3f,
	0x59, 0x15, 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70, 0x20, 0x46, 0x72, 0x61,
	0x6d, 0x65, 0x20, 0x01, 0x00, 0x08, 0x70, 0x61, 0x73, 0x73, 0x69, 0x76, 0x65, 0x00,
};
/* iwarp_snd_recv_inv.pcap frame 10 (106 bytes) */
static const uint8_t pub_send_inv[] = {
	0x00, 0x11, 0x25, 0x8d, 0x3b, 0x73, 0x00, 0x11, 0x25, 0x8d, 0x3c, 0xcd, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x5c, 0xbc, 0x5d, 0x40, 0x00, 0x40, 0x06, 0x6a, 0x1a, 0x0a, 0x00, 0x00, 0x13, 0x0a, 0x00,
	0x00, 0x12, 0x8c, 0x77, 0x10, 0x72, 0x2f, 0x55, 0xf1, 0x16, 0xe4, 0x27, 0xbb, 0xfb, 0x80, 0x18,
	0x00, 0x2e, 0x1a, 0xdf, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x04, 0xc3, 0x4c, 0xa3, 0x04, 0xc3,
	0x4b, 0x95, 0x00, 0x22, 0x41, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xb0,
	0x05, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* iwarp_crc_p2p_rping.pcap frame 4 (90 bytes) */
static const uint8_t lab_req_rev2[] = {
	0x52, 0x54, 0x00, 0x99, 0x00, 0x01, 0x52, 0x54, 0x00, 0x99, 0x00, 0x02, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x4c, 0x3d, 0xaf, 0x40, 0x00, 0x40, 0x06, 0xe8, 0x34, 0x0a, 0x63, 0x00, 0x02, 0x0a, 0x63,
	0x00, 0x01, 0x8d, 0x63, 0x1c, 0x06, 0x00, 0xf7, 0x44, 0xb1, 0xa6, 0x99, 0xda, 0x18, 0x80, 0x18,
	0x01, 0xf6, 0xb8, 0x48, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0xe5, 0x86, 0x2c, 0x50, 0xfa, 0xfe,
	0x3d, 0x6d, 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72, 0x61,
	0x6d, 0x65, 0x50, 0x02, 0x00, 0x04, 0x80, 0x01, 0xc0, 0x01,
};
/* iwarp_crc_p2p_rping.pcap frame 8 (86 bytes) */
static const uint8_t lab_rtr_write[] = {
	0x52, 0x54, 0x00, 0x99, 0x00, 0x01, 0x52, 0x54, 0x00, 0x99, 0x00, 0x02, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x48, 0x3d, 0xb1, 0x40, 0x00, 0x40, 0x06, 0xe8, 0x36, 0x0a, 0x63, 0x00, 0x02, 0x0a, 0x63,
	0x00, 0x01, 0x8d, 0x63, 0x1c, 0x06, 0x00, 0xf7, 0x44, 0xc9, 0xa6, 0x99, 0xda, 0x30, 0x80, 0x18,
	0x01, 0xf6, 0xac, 0x16, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0xe5, 0x86, 0x2c, 0x5a, 0xfa, 0xfe,
	0x3d, 0x75, 0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xeb, 0xd3, 0x4c, 0x5f,
};
/* iwarp_crc_p2p_rping.pcap frame 11 (118 bytes) */
static const uint8_t lab_read_req[] = {
	0x52, 0x54, 0x00, 0x99, 0x00, 0x02, 0x52, 0x54, 0x00, 0x99, 0x00, 0x01, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x68, 0xf5, 0xc2, 0x40, 0x00, 0x40, 0x06, 0x30, 0x05, 0x0a, 0x63, 0x00, 0x01, 0x0a, 0x63,
	0x00, 0x02, 0x1c, 0x06, 0x8d, 0x63, 0xa6, 0x99, 0xda, 0x30, 0x00, 0xf7, 0x45, 0x05, 0x80, 0x18,
	0x01, 0xfd, 0x9d, 0x14, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0xfa, 0xfe, 0x3d, 0x7f, 0xe5, 0x86,
	0x2c, 0x5a, 0x00, 0x2e, 0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x10, 0xa4, 0xf3, 0x00, 0x00, 0x00, 0x56, 0x28, 0xc2, 0x06,
	0x7b, 0xf0, 0x00, 0x00, 0x00, 0xc8, 0x9e, 0xaa, 0xac, 0x00, 0x00, 0x00, 0x55, 0x56, 0x03, 0x42,
	0x27, 0x90, 0x4f, 0xad, 0x13, 0x99,
};

/* ---- helpers ------------------------------------------------------------ */

static uint32_t ref_crc32c(const uint8_t *p, size_t n)
{
	uint32_t crc = ~0u;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* one's-complement sum of big-endian 16-bit words, folded */
static uint32_t ref_sum(const uint8_t *b, size_t n, uint32_t s)
{
	for (size_t i = 0; i < n; i++)
		s += (i & 1) ? b[i] : (uint32_t)b[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

#define MAXF 256
struct fl {
	unsigned n;
	struct {
		char key[64];
		int type;
		uint64_t u;
		char s[96];
		uint8_t b[128];
		uint32_t len;
	} f[MAXF];
};

/* while set: byte/string fields must point into [g_lo, g_hi) or be static
 * (roce.h: callers may keep fields after the walk) */
static const uint8_t *g_lo, *g_hi;

static void collect(void *ctx, const struct roce_field *f)
{
	struct fl *l = ctx;

	if (g_lo && f->b && f->len)
		assert_true(f->b >= g_lo && f->b + f->len <= g_hi);

	if (l->n >= MAXF)
		return;
	snprintf(l->f[l->n].key, sizeof(l->f[0].key), "%s", f->key);
	l->f[l->n].type = f->type;
	l->f[l->n].u = f->u;
	if (f->type == ROCE_F_STR)
		snprintf(l->f[l->n].s, sizeof(l->f[0].s), "%s", f->s);
	if (f->b) {
		l->f[l->n].len = f->len < 128 ? f->len : 128;
		memcpy(l->f[l->n].b, f->b, l->f[l->n].len);
	}
	l->n++;
}

/* index of the k-th field named key, or -1 */
static int fidx(const struct fl *l, const char *key, int k)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].key, key) && k-- == 0)
			return (int)i;
	return -1;
}

static uint64_t fu(const struct fl *l, const char *key)
{
	int i = fidx(l, key, 0);

	if (i < 0)
		fail_msg("field %s missing", key);
	return l->f[i].u;
}

static const char *fs(const struct fl *l, const char *key)
{
	int i = fidx(l, key, 0);

	if (i < 0)
		fail_msg("field %s missing", key);
	return l->f[i].s;
}

static void fb(const struct fl *l, const char *key, const void *want, uint32_t n)
{
	int i = fidx(l, key, 0);

	if (i < 0)
		fail_msg("field %s missing", key);
	assert_int_equal(l->f[i].len, n);
	assert_memory_equal(l->f[i].b, want, n);
}

static struct roce_cfg no_cfg;

static int decode(struct roce_pkt *p, const struct roce_cfg *cfg, const uint8_t *b, uint32_t len,
		  struct fl *l)
{
	int rc = roce_decode(p, cfg ? cfg : &no_cfg, ROCE_LINK_ETHERNET, b, len, len);

	if (l) {
		memset(l, 0, sizeof(*l));
		g_lo = b;
		g_hi = b + len;
		roce_foreach_field(p, collect, l);
		g_lo = g_hi = NULL;
	}
	return rc;
}

#define IW_BITS (ROCE_LBIT(ROCE_L_MPA) | ROCE_LBIT(ROCE_L_DDP) | ROCE_LBIT(ROCE_L_RDMAP))

static void summary_has(const struct roce_pkt *p, const char *needle)
{
	char s[512];

	roce_summary(p, s, sizeof(s));
	if (!strstr(s, needle))
		fail_msg("summary \"%s\" lacks \"%s\"", s, needle);
}

/* ---- public Wireshark samples and lab captures, against tshark ------------- */

static void test_public_marker_crc_send(void **state)
{
	struct roce_pkt p;
	struct fl l;
	const uint8_t *pl;

	(void)state;
	assert_int_equal(decode(&p, NULL, pub_mrkr_send, sizeof(pub_mrkr_send), &l), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, IW_BITS);
	assert_int_equal(p.invalid, 0);
	/* tshark: ulpdulength 34, crc_check 0x5e8789d7 (Good), marker 0/0, Send qn 0 msn 1 mo 0 */
	assert_int_equal(fu(&l, "iwarp_mpa.ulpdulength"), 34);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_check"), 0x5e8789d7);
	assert_int_equal(fu(&l, "iwarp_mpa.marker_res"), 0);
	assert_int_equal(fu(&l, "iwarp_mpa.marker_fpduptr"), 0);
	assert_string_equal(fs(&l, "roce.mpa.crc.status"), "good");
	assert_int_equal(fu(&l, "iwarp_rdma.opcode"), 3);
	assert_int_equal(fu(&l, "iwarp_ddp.qn"), 0);
	assert_int_equal(fu(&l, "iwarp_ddp.msn"), 1);
	assert_int_equal(fu(&l, "iwarp_ddp.mo"), 0);
	assert_int_equal(fu(&l, "iwarp_ddp.last_flag"), 1);
	assert_int_equal(fu(&l, "iwarp_ddp.tagged_flag"), 0);
	/* the CRC covers the leading marker, sent least significant byte first */
	pl = pub_mrkr_send + p.tcp_payload_off;
	assert_int_equal(p.tcp_payload_len, 44);
	assert_int_equal(ref_crc32c(pl, 40), (uint32_t)pl[40] | (uint32_t)pl[41] << 8 |
			 (uint32_t)pl[42] << 16 | (uint32_t)pl[43] << 24);
	summary_has(&p, "iWARP SEND qn 0 msn 1 mo 0 len 16 markers 1 crc good");
}

static void test_public_read_request(void **state)
{
	struct roce_pkt p;
	struct fl l;

	(void)state;
	assert_int_equal(decode(&p, NULL, pub_read_req, sizeof(pub_read_req), &l), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, IW_BITS);
	assert_int_equal(fu(&l, "iwarp_mpa.ulpdulength"), 46);
	assert_int_equal(fu(&l, "iwarp_mpa.crc"), 0);
	assert_string_equal(fs(&l, "roce.mpa.crc.status"), "unchecked");
	assert_int_equal(fu(&l, "iwarp_rdma.opcode"), 1);
	assert_int_equal(fu(&l, "iwarp_ddp.qn"), 1);
	assert_int_equal(fu(&l, "iwarp_ddp.msn"), 2);
	assert_int_equal(fu(&l, "iwarp_rdma.sinkstag"), 0x01000000);
	assert_true(fu(&l, "iwarp_rdma.sinkto") == 0x00c0050800000000ull);
	assert_int_equal(fu(&l, "iwarp_rdma.rdmardsz"), 262144);
	assert_int_equal(fu(&l, "iwarp_rdma.srcstag"), 0x01000000);
	assert_true(fu(&l, "iwarp_rdma.srcto") == 0x00c0050800000000ull);
	fb(&l, "iwarp_ddp.rsvdulp", "\x41\x00\x00\x00\x00", 5);
	fb(&l, "iwarp_rdma.reserved", "\x00\x00\x00\x00", 4);
	assert_int_equal(p.rdmap_off, p.ddp_off + ROCE_DDP_UNTAGGED_LEN);
	summary_has(&p, "iWARP RDMA_READ_REQ qn 1 msn 2 mo 0 sink 0x1000000@0xc0050800000000 src "
		    "0x1000000@0xc0050800000000 size 262144");
}

static void test_public_crc_send(void **state)
{
	struct roce_pkt p;
	struct fl l;

	(void)state;
	assert_int_equal(decode(&p, NULL, pub_crc_send, sizeof(pub_crc_send), &l), ROCE_OK);
	assert_int_equal(fu(&l, "iwarp_mpa.ulpdulength"), 22);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_check"), 0x48cc5811);
	assert_string_equal(fs(&l, "roce.mpa.crc.status"), "good");
	assert_int_equal(fu(&l, "iwarp_ddp.msn"), 2);
	assert_int_equal(fu(&l, "roce.ddp.payload_len"), 4);
	assert_int_equal(fidx(&l, "iwarp_mpa.pad", 0), -1);
}

static void test_public_send_inv(void **state)
{
	struct roce_pkt p;
	struct fl l;

	(void)state;
	assert_int_equal(decode(&p, NULL, pub_send_inv, sizeof(pub_send_inv), &l), ROCE_OK);
	assert_int_equal(fu(&l, "iwarp_rdma.opcode"), 4);
	assert_int_equal(fu(&l, "iwarp_rdma.inval_stag"), 1);
	assert_int_equal(fu(&l, "iwarp_ddp.msn"), 1);
	assert_int_equal(fidx(&l, "iwarp_rdma.reserved", 0), -1);
	summary_has(&p, "SEND_INV");
}

static void test_public_frames(void **state)
{
	struct roce_pkt p;
	struct fl l;

	(void)state;
	assert_int_equal(decode(&p, NULL, pub_req_mc, sizeof(pub_req_mc), &l), ROCE_OK);
	assert_true(p.present & ROCE_LBIT(ROCE_L_MPA));
	assert_false(p.present & ROCE_LBIT(ROCE_L_DDP));
	fb(&l, "iwarp_mpa.key.req", "MPA ID Req Frame", 16);
	assert_int_equal(fu(&l, "iwarp_mpa.marker_flag"), 1);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_flag"), 1);
	assert_int_equal(fu(&l, "iwarp_mpa.rej_flag"), 0);
	assert_int_equal(fu(&l, "iwarp_mpa.rev"), 1);
	assert_int_equal(fu(&l, "iwarp_mpa.pdlength"), 7);
	fb(&l, "iwarp_mpa.privatedata", "active", 7);
	summary_has(&p, "iWARP MPA Req M1 C1 rev 1 pd 7");

	assert_int_equal(decode(&p, NULL, pub_rep_mc, sizeof(pub_rep_mc), &l), ROCE_OK);
	fb(&l, "iwarp_mpa.key.rep", "MPA ID Rep Frame", 16);
	assert_int_equal(fu(&l, "iwarp_mpa.pdlength"), 8);
	fb(&l, "iwarp_mpa.privatedata", "passive", 8);
	assert_int_equal(fu(&l, "roce.mpa.reject"), 0);

	/* tshark: rej_flag 1, M 0, C 0, pdlength 8 */
	assert_int_equal(decode(&p, NULL, pub_rep_reject, sizeof(pub_rep_reject), &l), ROCE_OK);
	assert_int_equal(fu(&l, "iwarp_mpa.rej_flag"), 1);
	assert_int_equal(fu(&l, "iwarp_mpa.marker_flag"), 0);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_flag"), 0);
	assert_int_equal(fu(&l, "iwarp_mpa.pdlength"), 8);
	assert_int_equal(fu(&l, "roce.mpa.reject"), 1);
	summary_has(&p, "iWARP MPA Rep REJECT M0 C0 rev 1 pd 8");
}

static void test_lab_siw_crc_rev2(void **state)
{
	struct roce_pkt p;
	struct fl l;

	(void)state;
	/* MPA rev 2 request, PD 80 01 c0 01: P2P, IRD 1, WRITE and READ RTR, ORD 1 */
	assert_int_equal(decode(&p, NULL, lab_req_rev2, sizeof(lab_req_rev2), &l), ROCE_OK);
	assert_int_equal(fu(&l, "iwarp_mpa.rev"), 2);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_flag"), 1);
	assert_int_equal(fu(&l, "iwarp_mpa.marker_flag"), 0);
	fb(&l, "iwarp_mpa.privatedata", "\x80\x01\xc0\x01", 4);
	assert_int_equal(fu(&l, "roce.mpa.ird"), 1);
	assert_int_equal(fu(&l, "roce.mpa.ord"), 1);
	assert_int_equal(fu(&l, "roce.mpa.rtr.p2p"), 1);
	assert_int_equal(fu(&l, "roce.mpa.rtr.send"), 0);
	assert_int_equal(fu(&l, "roce.mpa.rtr.write"), 1);
	assert_int_equal(fu(&l, "roce.mpa.rtr.read"), 1);
	summary_has(&p, "iWARP MPA Req M0 C1 rev 2 pd 4 ird 1 ord 1 p2p rtr write read");

	/* the RTR: a zero-length RDMA WRITE, tshark crc_check 0xebd34c5f */
	assert_int_equal(decode(&p, NULL, lab_rtr_write, sizeof(lab_rtr_write), &l), ROCE_OK);
	assert_int_equal(fu(&l, "iwarp_mpa.ulpdulength"), 14);
	assert_int_equal(fu(&l, "iwarp_ddp.stag"), 1);
	assert_int_equal(fu(&l, "iwarp_ddp.tagged_offset"), 0);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_check"), 0xebd34c5f);
	assert_string_equal(fs(&l, "roce.mpa.crc.status"), "good");
	assert_int_equal(fu(&l, "roce.ddp.payload_len"), 0);
	summary_has(&p, "iWARP RDMA_WRITE stag 0x1 to 0x0 len 0 crc good");

	/* tshark: sinkstag 0x10a4f300 sinkto 0x00005628c2067bf0 size 200
	 * srcstag 0x9eaaac00 srcto 0x0000555603422790 msn 1 crc 0x4fad1399 */
	assert_int_equal(decode(&p, NULL, lab_read_req, sizeof(lab_read_req), &l), ROCE_OK);
	assert_int_equal(fu(&l, "iwarp_rdma.sinkstag"), 0x10a4f300);
	assert_true(fu(&l, "iwarp_rdma.sinkto") == 0x00005628c2067bf0ull);
	assert_int_equal(fu(&l, "iwarp_rdma.rdmardsz"), 200);
	assert_int_equal(fu(&l, "iwarp_rdma.srcstag"), 0x9eaaac00);
	assert_true(fu(&l, "iwarp_rdma.srcto") == 0x0000555603422790ull);
	assert_int_equal(fu(&l, "iwarp_ddp.msn"), 1);
	assert_int_equal(fu(&l, "iwarp_mpa.crc_check"), 0x4fad1399);
	assert_string_equal(fs(&l, "roce.mpa.crc.status"), "good");
}

struct vec {
	const uint8_t *b;
	uint32_t len;
};

static const struct vec vecs[] = {
	{ pub_mrkr_send, sizeof(pub_mrkr_send) }, { pub_read_req, sizeof(pub_read_req) },
	{ pub_crc_send, sizeof(pub_crc_send) },   { pub_req_mc, sizeof(pub_req_mc) },
	{ pub_rep_mc, sizeof(pub_rep_mc) },       { pub_rep_reject, sizeof(pub_rep_reject) },
	{ pub_send_inv, sizeof(pub_send_inv) },   { lab_req_rev2, sizeof(lab_req_rev2) },
	{ lab_rtr_write, sizeof(lab_rtr_write) }, { lab_read_req, sizeof(lab_read_req) },
};

static void ignore_field(void *ctx, const struct roce_field *f)
{
	(void)ctx;
	(void)f;
}

static void test_every_truncation(void **state)
{
	(void)state;
	for (size_t v = 0; v < sizeof(vecs) / sizeof(vecs[0]); v++) {
		struct roce_pkt full;

		assert_int_equal(decode(&full, NULL, vecs[v].b, vecs[v].len, NULL), ROCE_OK);
		assert_true(full.present & ROCE_LBIT(ROCE_L_MPA));
		for (uint32_t cl = 0; cl < vecs[v].len; cl++) {
			uint8_t *c = malloc(cl ? cl : 1);
			struct roce_pkt p;
			char s[512];
			int rc;

			assert_non_null(c);
			memcpy(c, vecs[v].b, cl);
			rc = roce_decode(&p, &no_cfg, ROCE_LINK_ETHERNET, c, cl, vecs[v].len);
			assert_int_equal(p.invalid, 0);
			if (rc == ROCE_OK) {
				/* too little of the payload to tell it is iWARP */
				assert_true(cl >= full.tcp_payload_off && cl <= full.tcp_payload_off + 8);
				assert_int_equal(p.present & IW_BITS, 0);
			} else {
				assert_int_equal(rc, ROCE_ETRUNC);
				assert_int_not_equal(p.truncated, 0);
			}
			if (cl > full.tcp_payload_off + 8)
				assert_true(p.truncated & ROCE_LBIT(ROCE_L_MPA));
			roce_foreach_field(&p, ignore_field, NULL);
			roce_summary(&p, s, sizeof(s));
			free(c);
		}
	}
}

/* ---- builders ------------------------------------------------------------ */

static const struct roce_eth_spec ETH = { { 2, 0, 0, 0, 0, 2 }, { 2, 0, 0, 0, 0, 1 }, 0, { { 0 } } };

static struct roce_ip_spec ip4(void)
{
	struct roce_ip_spec ip;

	memset(&ip, 0, sizeof(ip));
	ip.version = 4;
	memcpy(ip.src, "\x0a\x00\x00\x13", 4);
	memcpy(ip.dst, "\x0a\x00\x00\x12", 4);
	ip.ip_id = 0x1234;
	ip.dont_fragment = 1;
	return ip;
}

static struct roce_ip_spec ip6(void)
{
	struct roce_ip_spec ip;

	memset(&ip, 0, sizeof(ip));
	ip.version = 6;
	memcpy(ip.src, "\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01", 16);
	memcpy(ip.dst, "\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02", 16);
	ip.flow_label = 0x12345;
	return ip;
}

static void test_build_matches_captures(void **state)
{
	uint8_t out[256], ul[128];
	const uint8_t *pl;
	int n, u;
	struct roce_iwarp_msg_spec s;
	struct roce_pkt p;

	(void)state;
	/* MPA request M|C rev 1 "active\0" = the public sample's payload */
	assert_int_equal(decode(&p, NULL, pub_req_mc, sizeof(pub_req_mc), NULL), ROCE_OK);
	n = roce_mpa_build_frame(out, sizeof(out), ROCE_MPA_REQ, ROCE_MPA_FLAG_M | ROCE_MPA_FLAG_C, 1, NULL,
				 (const uint8_t *)"active", 7);
	assert_int_equal(n, (int)p.tcp_payload_len);
	assert_memory_equal(out, pub_req_mc + p.tcp_payload_off, (size_t)n);

	/* rev 2 request with the RTR bytes of the lab capture */
	{
		struct roce_mpa_rtr r = { 1, 1, 1, 0, 1, 1 };

		assert_int_equal(decode(&p, NULL, lab_req_rev2, sizeof(lab_req_rev2), NULL), ROCE_OK);
		n = roce_mpa_build_frame(out, sizeof(out), ROCE_MPA_REQ, ROCE_MPA_FLAG_C, 2, &r, NULL, 0);
		assert_int_equal(n, (int)p.tcp_payload_len);
		assert_memory_equal(out, lab_req_rev2 + p.tcp_payload_off, (size_t)n);
	}

	/* Send msn 1 + marker at stream position 0 + CRC = the marker sample */
	assert_int_equal(decode(&p, NULL, pub_mrkr_send, sizeof(pub_mrkr_send), NULL), ROCE_OK);
	pl = pub_mrkr_send + p.tcp_payload_off;
	memset(&s, 0, sizeof(s));
	s.opcode = ROCE_RDMAP_SEND;
	s.last = 1;
	s.qn = ~0u;
	s.msn = 1;
	s.payload = pl + 4 + 2 + 18;
	s.payload_len = 16;
	u = roce_iwarp_build_ulpdu(ul, sizeof(ul), &s);
	assert_int_equal(u, 34);
	n = roce_mpa_build_fpdu(out, sizeof(out), ul, (size_t)u, 1, 1, 0);
	assert_int_equal(n, 44);
	assert_int_equal(roce_mpa_fpdu_wire_len((size_t)u, 1, 0), 44);
	assert_memory_equal(out, pl, 44);

	/* the same without markers = the CRC sample (msn 2, 4 bytes) */
	assert_int_equal(decode(&p, NULL, pub_crc_send, sizeof(pub_crc_send), NULL), ROCE_OK);
	pl = pub_crc_send + p.tcp_payload_off;
	s.msn = 2;
	s.payload = pl + 2 + 18;
	s.payload_len = 4;
	u = roce_iwarp_build_ulpdu(ul, sizeof(ul), &s);
	n = roce_mpa_build_fpdu(out, sizeof(out), ul, (size_t)u, 1, 0, 0);
	assert_int_equal(n, 28);
	assert_memory_equal(out, pl, 28);

	/* Read Request of the public sample */
	assert_int_equal(decode(&p, NULL, pub_read_req, sizeof(pub_read_req), NULL), ROCE_OK);
	memset(&s, 0, sizeof(s));
	s.opcode = ROCE_RDMAP_READ_REQ;
	s.last = 1;
	s.qn = ~0u;
	s.msn = 2;
	s.sink_stag = 0x01000000;
	s.sink_to = 0x00c0050800000000ull;
	s.read_size = 262144;
	s.src_stag = 0x01000000;
	s.src_to = 0x00c0050800000000ull;
	u = roce_iwarp_build_ulpdu(ul, sizeof(ul), &s);
	n = roce_mpa_build_fpdu(out, sizeof(out), ul, (size_t)u, 0, 0, 0);
	assert_int_equal(n, (int)p.tcp_payload_len);
	assert_memory_equal(out, pub_read_req + p.tcp_payload_off, (size_t)n);

	/* every too-small buffer */
	for (int c = 0; c < n; c++)
		assert_int_equal(roce_mpa_build_fpdu(out, (size_t)c, ul, (size_t)u, 0, 0, 0), ROCE_ENOSPC);
	for (int c = 0; c < u; c++)
		assert_int_equal(roce_iwarp_build_ulpdu(ul, (size_t)c, &s), ROCE_ENOSPC);
	assert_int_equal(roce_mpa_build_frame(out, 26, ROCE_MPA_REQ, 0, 1, NULL, (const uint8_t *)"active", 7),
			 ROCE_ENOSPC);
	assert_int_equal(roce_mpa_build_frame(out, sizeof(out), ROCE_MPA_REQ, 0, 1, NULL, ul, 513), ROCE_EARG);
}

/* TCP checksum over the pseudo-header, computed here */
static void check_l4(const uint8_t *f, const struct roce_pkt *p)
{
	const uint8_t *ip = f + p->ip_off, *t = f + p->l4_off;
	uint32_t tl = p->tcp_payload_off + p->tcp_payload_len - p->l4_off, s;

	if (p->ip_version == 4) {
		assert_int_equal(ref_sum(ip, 20, 0), 0xffff);
		s = ref_sum(ip + 12, 8, 6 + tl);
	} else {
		s = ref_sum(ip + 8, 32, 6 + tl);
	}
	assert_int_equal(ref_sum(t, tl, s), 0xffff);
}

static int tcp_frame(uint8_t *dst, size_t cap, int v6, uint16_t sport, uint16_t dport, uint32_t seq,
		     const uint8_t *pl, size_t n)
{
	struct roce_ip_spec ip = v6 ? ip6() : ip4();

	return roce_build_tcp_frame(dst, cap, &ETH, &ip, sport, dport, seq, 77, ROCE_TCP_ACK | ROCE_TCP_PSH, pl, n);
}

static void test_tcp_frame_builder(void **state)
{
	uint8_t pl[64], f[256];
	struct roce_pkt p;
	struct fl l;
	int n;

	(void)state;
	for (int i = 0; i < 64; i++)
		pl[i] = (uint8_t)(i * 7);
	for (int v6 = 0; v6 < 2; v6++) {
		for (size_t len = 0; len <= 33; len += 11) {
			n = tcp_frame(f, sizeof(f), v6, 4210, 40000, 0xfffffff0u, pl, len);
			assert_true(n >= 60);
			assert_int_equal(decode(&p, NULL, f, (uint32_t)n, &l), ROCE_OK);
			assert_int_equal(p.ip_version, v6 ? 6 : 4);
			assert_int_equal(p.ip_proto, 6);
			assert_int_equal(p.sport, 4210);
			assert_int_equal(p.dport, 40000);
			assert_int_equal(p.tcp_seq, 0xfffffff0u);
			assert_int_equal(p.tcp_ack, 77);
			assert_int_equal(p.tcp_flags, ROCE_TCP_ACK | ROCE_TCP_PSH);
			assert_int_equal(p.tcp_payload_len, len);
			assert_memory_equal(f + p.tcp_payload_off, pl, len);
			check_l4(f, &p);
			for (int c = 0; c < n; c++)
				assert_int_equal(tcp_frame(f, (size_t)c, v6, 1, 2, 3, pl, len), ROCE_ENOSPC);
		}
	}
}

/* Every opcode: ULPDU -> FPDU (CRC) -> TCP frame -> roce_decode -> fields. */
static void test_opcode_round_trip(void **state)
{
	static const uint8_t tddp[18] = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0 };
	static const uint8_t trdma[28] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
					   15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28 };
	uint8_t payload[300], ul[2048], fp[2048], f[4096];
	struct roce_cfg cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(roce_cfg_add_iwarp_port(&cfg, 4210), ROCE_OK);
	for (int i = 0; i < 300; i++)
		payload[i] = (uint8_t)(i ^ 0x5a);
	for (unsigned op = 0; op < 16; op++) {
		for (int port = 0; port < 2; port++) {
			struct roce_iwarp_msg_spec s;
			struct roce_pkt p;
			struct fl l;
			int u, n, fl_;

			memset(&s, 0, sizeof(s));
			s.opcode = (uint8_t)op;
			s.last = op & 1;
			s.stag = 0xabcdef01;
			s.to = 0x1122334455667788ull;
			s.inv_stag = 0x77665544;
			s.qn = ~0u;
			s.msn = 9 + op;
			s.mo = op == ROCE_RDMAP_SEND ? 4096 : 0;
			s.sink_stag = 0x10;
			s.sink_to = 0x20;
			s.read_size = 0x30;
			s.src_stag = 0x40;
			s.src_to = 0x50;
			s.term_layer = ROCE_TERM_LLP;
			s.term_etype = 0;
			s.term_code = 2;
			s.term_hdrct = ROCE_TERM_HDRCT_M | ROCE_TERM_HDRCT_D | ROCE_TERM_HDRCT_R;
			s.term_seglen = 0x22;
			s.term_ddp = tddp;
			s.term_rdma = trdma;
			s.atomic_op = op == ROCE_RDMAP_ATOMIC_REQ && port ? ROCE_ATOMIC_CMP_SWAP : ROCE_ATOMIC_FETCH_ADD;
			s.req_id = 5;
			s.remote_stag = 6;
			s.remote_to = 7;
			s.add_swap = 8;
			s.add_swap_mask = 9;
			s.compare = 10;
			s.compare_mask = 11;
			s.orig_req_id = 12;
			s.orig_value = 13;
			s.imm = 0xfeedfacecafebeefull;
			s.payload = payload;
			s.payload_len = op == ROCE_RDMAP_TERMINATE || op == ROCE_RDMAP_READ_REQ || op >= ROCE_RDMAP_IMM ? 0 : 100 + op;
			u = roce_iwarp_build_ulpdu(ul, sizeof(ul), &s);
			if (!roce_rdmap_op_name((uint8_t)op)) {
				assert_int_equal(u, ROCE_EARG);
				continue;
			}
			assert_true(u > 0);
			n = roce_mpa_build_fpdu(fp, sizeof(fp), ul, (size_t)u, 1, 0, 0);
			fl_ = tcp_frame(f, sizeof(f), port, port ? 4210 : 5000, 6000, 1, fp, (size_t)n);
			assert_int_equal(decode(&p, port ? &cfg : NULL, f, (uint32_t)fl_, &l), ROCE_OK);
			assert_int_equal(p.present & IW_BITS, IW_BITS);
			assert_int_equal(p.invalid, 0);
			assert_int_equal(fu(&l, "iwarp_mpa.ulpdulength"), (uint64_t)u);
			assert_string_equal(fs(&l, "roce.mpa.crc.status"), "good");
			assert_int_equal(fu(&l, "iwarp_rdma.opcode"), op);
			assert_int_equal(fu(&l, "iwarp_ddp.last_flag"), op & 1);
			assert_int_equal(fu(&l, "iwarp_ddp.dv"), 1);
			assert_int_equal(fu(&l, "iwarp_rdma.version"), 1);
			assert_string_equal(fs(&l, "roce.rdmap.op"), roce_rdmap_op_tag((uint8_t)op));
			assert_int_equal(fu(&l, "roce.ddp.payload_len"), s.payload_len);
			if (roce_rdmap_op_tagged((uint8_t)op)) {
				assert_int_equal(fu(&l, "iwarp_ddp.stag"), 0xabcdef01);
				assert_true(fu(&l, "iwarp_ddp.tagged_offset") == 0x1122334455667788ull);
				summary_has(&p, "stag 0xabcdef01 to 0x1122334455667788");
			} else {
				static const uint8_t qn[16] = { 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 3, 3 };

				assert_int_equal(fu(&l, "iwarp_ddp.qn"), qn[op]);
				assert_int_equal(fu(&l, "iwarp_ddp.msn"), 9 + op);
				assert_int_equal(fu(&l, "iwarp_ddp.mo"), s.mo);
			}
			switch (op) {
			case ROCE_RDMAP_SEND_INV:
			case ROCE_RDMAP_SEND_SE_INV:
				assert_int_equal(fu(&l, "iwarp_rdma.inval_stag"), 0x77665544);
				break;
			case ROCE_RDMAP_READ_REQ:
				assert_int_equal(fu(&l, "iwarp_rdma.sinkstag"), 0x10);
				assert_int_equal(fu(&l, "iwarp_rdma.sinkto"), 0x20);
				assert_int_equal(fu(&l, "iwarp_rdma.rdmardsz"), 0x30);
				assert_int_equal(fu(&l, "iwarp_rdma.srcstag"), 0x40);
				assert_int_equal(fu(&l, "iwarp_rdma.srcto"), 0x50);
				break;
			case ROCE_RDMAP_TERMINATE:
				assert_int_equal(fu(&l, "iwarp_rdma.term_layer"), ROCE_TERM_LLP);
				assert_int_equal(fu(&l, "iwarp_rdma.term_etype_llp"), 0);
				assert_int_equal(fu(&l, "iwarp_rdma.term_errcode_llp"), 2);
				assert_int_equal(fu(&l, "iwarp_rdma.term_hdrct_m"), 1);
				assert_int_equal(fu(&l, "iwarp_rdma.hdrct_d"), 1);
				assert_int_equal(fu(&l, "iwarp_rdma.hdrct_r"), 1);
				fb(&l, "iwarp_rdma.term_ddp_seg_len", "\x00\x22", 2);
				fb(&l, "iwarp_rdma.term_ddp_h", tddp, 18);
				fb(&l, "iwarp_rdma.term_rdma_h", trdma, 28);
				assert_string_equal(fs(&l, "roce.rdmap.term.code"), "MPA CRC Error");
				summary_has(&p, "iWARP TERMINATE qn 2 msn 16 mo 0 LLP/MPA Error/MPA CRC Error len 0 crc good");
				break;
			case ROCE_RDMAP_ATOMIC_REQ:
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.opcode"), s.atomic_op);
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.request_identifier"), 5);
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.remote_stag"), 6);
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.remote_tagged_offset"), 7);
				assert_int_equal(fu(&l, port ? "iwarp_rdma.atomic.swap_data" : "iwarp_rdma.atomic.add_data"), 8);
				assert_int_equal(fu(&l, port ? "iwarp_rdma.atomic.swap_mask" : "iwarp_rdma.atomic.add_mask"), 9);
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.compare_data"), 10);
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.compare_mask"), 11);
				break;
			case ROCE_RDMAP_ATOMIC_RESP:
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.original_request_identifier"), 12);
				assert_int_equal(fu(&l, "iwarp_rdma.atomic.original_remote_data_value"), 13);
				break;
			case ROCE_RDMAP_IMM:
			case ROCE_RDMAP_IMM_SE:
				assert_true(fu(&l, "roce.rdmap.imm") == 0xfeedfacecafebeefull);
				break;
			default:
				break;
			}
		}
	}
}

/* Things that are not FPDUs stay plain TCP off the named ports, and a
 * continuation segment is not read as an FPDU even on them. */
static void test_heuristic_negative(void **state)
{
	uint8_t pl[1500], f[1600], ul[64], fp[128];
	struct roce_cfg cfg;
	struct roce_pkt p;
	struct roce_iwarp_msg_spec s;
	uint64_t r = 0x243f6a8885a308d3ull;
	int n, u;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	roce_cfg_add_iwarp_port(&cfg, 4210);
	n = tcp_frame(f, sizeof(f), 0, 5000, 80, 1, (const uint8_t *)"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
	assert_int_equal(decode(&p, NULL, f, (uint32_t)n, NULL), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, 0);
	memset(pl, 0, sizeof(pl));
	n = tcp_frame(f, sizeof(f), 0, 5000, 80, 1, pl, 64);
	assert_int_equal(decode(&p, NULL, f, (uint32_t)n, NULL), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, 0);
	for (int t = 0; t < 20000; t++) {
		size_t len = 14 + (size_t)(t % 200);

		for (size_t i = 0; i < len; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			pl[i] = (uint8_t)r;
		}
		n = tcp_frame(f, sizeof(f), t & 1, 5000, 80, 1, pl, len);
		assert_int_equal(decode(&p, NULL, f, (uint32_t)n, NULL), ROCE_OK);
		assert_int_equal(p.present & IW_BITS, 0);
		/* on a named port random bytes may look like a header; never a crash */
		n = tcp_frame(f, sizeof(f), t & 1, 4210, 80, 1, pl, len);
		(void)decode(&p, &cfg, f, (uint32_t)n, NULL);
	}

	/* a valid FPDU plus one stray byte: not iWARP by heuristic, iWARP on the port */
	memset(&s, 0, sizeof(s));
	s.opcode = ROCE_RDMAP_SEND;
	s.qn = ~0u;
	s.last = 1;
	u = roce_iwarp_build_ulpdu(ul, sizeof(ul), &s);
	n = roce_mpa_build_fpdu(fp, sizeof(fp), ul, (size_t)u, 0, 0, 0);
	fp[n] = 0xee;
	n = tcp_frame(f, sizeof(f), 0, 5000, 6000, 1, fp, (size_t)n + 1);
	assert_int_equal(decode(&p, NULL, f, (uint32_t)n, NULL), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, 0);
	n = tcp_frame(f, sizeof(f), 0, 4210, 6000, 1, fp, 24 + 1);
	assert_int_equal(decode(&p, &cfg, f, (uint32_t)n, NULL), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, IW_BITS);
	/* a bad CRC is not iWARP by heuristic */
	n = roce_mpa_build_fpdu(fp, sizeof(fp), ul, (size_t)u, 1, 0, 0);
	fp[n - 1] ^= 1;
	n = tcp_frame(f, sizeof(f), 0, 5000, 6000, 1, fp, (size_t)n);
	assert_int_equal(decode(&p, NULL, f, (uint32_t)n, NULL), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, 0);
	/* …but on the port it is, with a bad verdict */
	{
		struct fl l;

		n = tcp_frame(f, sizeof(f), 0, 5000, 4210, 1, fp, 24);
		assert_int_equal(decode(&p, &cfg, f, (uint32_t)n, &l), ROCE_OK);
		assert_string_equal(fs(&l, "roce.mpa.crc.status"), "bad");
		summary_has(&p, "crc bad");
	}
	/* continuation of a big Send (payload bytes) on the port: not an FPDU */
	memset(pl, 'A', 200);
	n = tcp_frame(f, sizeof(f), 0, 4210, 6000, 1, pl, 200);
	assert_int_equal(decode(&p, &cfg, f, (uint32_t)n, NULL), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, 0);
	/* an FPDU that goes on in the next segment, on the port: decoded, not invalid */
	{
		static uint8_t big[1200], fbig[1300];
		struct fl l;

		s.payload = big;
		s.payload_len = sizeof(big);
		u = roce_iwarp_build_ulpdu(pl, sizeof(pl), &s);
		n = roce_mpa_build_fpdu(fbig, sizeof(fbig), pl, (size_t)u, 1, 0, 0);
		assert_int_equal(n, 2 + 1218 + 0 + 4);
		n = tcp_frame(pl, sizeof(pl), 0, 4210, 6000, 1, fbig, 600);
		assert_int_equal(decode(&p, &cfg, pl, (uint32_t)n, &l), ROCE_OK);
		assert_int_equal(p.present & IW_BITS, IW_BITS);
		assert_int_equal(p.invalid, 0);
		assert_int_equal(fu(&l, "roce.mpa.continues"), 1);
		assert_int_equal(fidx(&l, "iwarp_mpa.crc", 0), -1);
		summary_has(&p, "(continues)");
		assert_int_equal(decode(&p, NULL, pl, (uint32_t)n, NULL), ROCE_OK);
		assert_int_equal(p.present & IW_BITS, 0);
	}
}

/* Several FPDUs in one segment (what TSO/GRO captures show): all listed. */
static void test_several_fpdus_per_segment(void **state)
{
	uint8_t pl[600], ul[200], f[800];
	struct roce_iwarp_msg_spec s;
	struct roce_pkt p;
	struct fl l;
	size_t off = 0;
	int n;

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		memset(&s, 0, sizeof(s));
		s.opcode = ROCE_RDMAP_SEND;
		s.qn = ~0u;
		s.last = 1;
		s.msn = 7 + i;
		s.payload = pl + 500;
		s.payload_len = 10 + i;
		n = roce_iwarp_build_ulpdu(ul, sizeof(ul), &s);
		off += (size_t)roce_mpa_build_fpdu(pl + off, sizeof(pl) - off, ul, (size_t)n, 1, 0, 0);
	}
	n = tcp_frame(f, sizeof(f), 0, 5000, 6000, 1, pl, off);
	assert_int_equal(decode(&p, NULL, f, (uint32_t)n, &l), ROCE_OK);
	assert_int_equal(p.present & IW_BITS, IW_BITS);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(l.f[fidx(&l, "iwarp_mpa.ulpdulength", i)].u, 28 + i);
		assert_int_equal(l.f[fidx(&l, "iwarp_ddp.msn", i)].u, 7 + i);
		assert_string_equal(l.f[fidx(&l, "roce.mpa.crc.status", i)].s, "good");
	}
	assert_int_equal(fidx(&l, "iwarp_mpa.ulpdulength", 3), -1);
	summary_has(&p, "iWARP SEND qn 0 msn 7 mo 0 len 10 crc good (+2 FPDUs)");
}

/* ---- the stream helper ------------------------------------------------------ */

#define SMAX 16384
#define NF 24

struct built {
	uint8_t b[SMAX];
	uint32_t len, start;
	unsigned nf;
	uint32_t off[NF], wlen[NF];
	uint16_t ulen[NF];
};

/* ULPDU i: Send (or a tagged Write when i % 5 == 4) of size[i] bytes */
static int ulpdu_of(unsigned i, uint32_t size, uint8_t *ul, size_t cap)
{
	static uint8_t pay[4096];
	struct roce_iwarp_msg_spec s;

	for (uint32_t k = 0; k < size; k++)
		pay[k] = (uint8_t)(i * 31 + k);
	memset(&s, 0, sizeof(s));
	s.opcode = i % 5 == 4 ? ROCE_RDMAP_WRITE : ROCE_RDMAP_SEND;
	s.last = 1;
	s.qn = ~0u;
	s.msn = i;
	s.stag = 0x100 + i;
	s.to = i;
	s.payload = pay;
	s.payload_len = size;
	return roce_iwarp_build_ulpdu(ul, cap, &s);
}

static const uint32_t sizes[] = { 0, 1, 2, 3, 100, 477, 480, 1000, 2900, 5, 509, 1480, 64, 7 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* frame (kind, flags) then NSIZES FPDUs */
static void build_stream(struct built *bs, int kind, uint8_t flags, int markers, int crc)
{
	uint8_t ul[4200];
	int n;

	memset(bs, 0, sizeof(*bs));
	n = roce_mpa_build_frame(bs->b, SMAX, kind, flags, 1, NULL, (const uint8_t *)"pd", 2);
	assert_true(n > 0);
	bs->start = bs->len = (uint32_t)n;
	for (unsigned i = 0; i < NSIZES; i++) {
		int u = ulpdu_of(i, sizes[i], ul, sizeof(ul));

		assert_true(u > 0);
		n = roce_mpa_build_fpdu(bs->b + bs->len, SMAX - bs->len, ul, (size_t)u, crc, markers,
					bs->len - bs->start);
		assert_true(n > 0);
		bs->off[bs->nf] = bs->len;
		bs->wlen[bs->nf] = (uint32_t)n;
		bs->ulen[bs->nf] = (uint16_t)u;
		bs->nf++;
		bs->len += (uint32_t)n;
	}
}

struct got {
	unsigned n, nev, ev[64];
	uint32_t ev_seq[64], ev_len[64];
	struct {
		uint32_t seq, wire_len, msn;
		uint8_t crc, markers, ok;
	} f[64];
	uint32_t seq0;
};

static void on_fpdu(void *ctx, const struct roce_mpa_stream_fpdu *r)
{
	struct got *g = ctx;
	uint8_t ul[4200];
	unsigned i;
	int u;

	assert_true(g->n < 64);
	g->f[g->n].seq = r->seq;
	g->f[g->n].wire_len = r->wire_len;
	g->f[g->n].msn = r->view.msg.tagged ? (uint32_t)r->view.msg.to : r->view.msg.msn;
	g->f[g->n].crc = r->view.crc_status;
	g->f[g->n].markers = r->n_markers;
	assert_int_equal(r->n_marker_bad, 0);
	assert_int_equal(r->view.msg_rc, ROCE_OK);
	/* the content is the one built */
	i = g->f[g->n].msn;
	assert_true(i < NSIZES);
	u = ulpdu_of(i, sizes[i], ul, sizeof(ul));
	assert_int_equal(r->view.ulpdu_len, u);
	assert_int_equal(r->len, 2 + (uint32_t)u + roce_mpa_pad((unsigned)u) + 4);
	g->f[g->n].ok = !memcmp(r->bytes + 2, ul, (size_t)u);
	g->n++;
}

static const char *last_resync;  /* how the last RESYNC event said it resynchronised */

static void on_event(void *ctx, const struct roce_mpa_event *e)
{
	struct got *g = ctx;

	if (e->type == ROCE_MPA_EV_RESYNC)
		last_resync = e->what;

	if (g->nev < 64) {
		g->ev[g->nev] = (unsigned)e->type;
		g->ev_seq[g->nev] = e->seq;
		g->ev_len[g->nev] = e->len;
	}
	g->nev++;
}

static unsigned count_ev(const struct got *g, int type)
{
	unsigned c = 0;

	for (unsigned i = 0; i < g->nev && i < 64; i++)
		c += g->ev[i] == (unsigned)type;
	return c;
}

static uint8_t bufA[ROCE_MPA_FPDU_MAX], bufB[ROCE_MPA_FPDU_MAX];

struct conn {
	struct roce_mpa_stream a, b;
	struct got ga, gb;
};

static void conn_init(struct conn *c, uint32_t capa, uint32_t capb)
{
	memset(&c->ga, 0, sizeof(c->ga));
	memset(&c->gb, 0, sizeof(c->gb));
	roce_mpa_stream_init(&c->a, bufA, capa, on_fpdu, on_event, &c->ga);
	roce_mpa_stream_init(&c->b, bufB, capb, on_fpdu, on_event, &c->gb);
	roce_mpa_stream_pair(&c->a, &c->b);
}

/* feeds bs[from, to) as one segment */
static void feed(struct roce_mpa_stream *s, const struct built *bs, uint32_t seq0, uint32_t from, uint32_t to,
		 unsigned flags)
{
	uint8_t *seg = malloc(to - from ? to - from : 1);

	assert_non_null(seg);
	memcpy(seg, bs->b + from, to - from);  /* exactly sized: ASan sees over-reads */
	roce_mpa_stream_feed(s, seq0 + from, seg, to - from, flags);
	free(seg);
}

/* every FPDU of bs delivered once, in order, good CRC, content equal */
static void all_delivered(const struct got *g, const struct built *bs, uint32_t seq0, int crc)
{
	assert_int_equal(g->n, bs->nf);
	for (unsigned i = 0; i < bs->nf; i++) {
		assert_int_equal(g->f[i].msn, i);
		assert_int_equal(g->f[i].seq, seq0 + bs->off[i]);
		assert_int_equal(g->f[i].wire_len, bs->wlen[i]);
		assert_int_equal(g->f[i].crc, crc ? ROCE_MPA_CRC_GOOD : ROCE_MPA_CRC_UNCHECKED);
		assert_true(g->f[i].ok);
	}
}

static struct built SA, SB;   /* A: request M|C, no markers towards B; B: reply C, markers towards A */

static void handshake(struct conn *c, uint32_t sa, int feed_b_frame, uint32_t sb)
{
	feed(&c->a, &SA, sa, 0, SA.start, 0);
	if (feed_b_frame)
		feed(&c->b, &SB, sb, 0, SB.start, 0);
}

static void test_stream_every_split(void **state)
{
	static struct conn c;
	const uint32_t sa = 0xfffff000u, sb = 0x7fffff00u;   /* A's sequence numbers wrap */
	unsigned markers_seen = 0;

	(void)state;
	build_stream(&SA, ROCE_MPA_REQ, ROCE_MPA_FLAG_M | ROCE_MPA_FLAG_C, 0, 1);
	build_stream(&SB, ROCE_MPA_REP, ROCE_MPA_FLAG_C, 1, 1);
	assert_true(SB.len > SA.len);   /* markers take room */

	/* two segments, cut at every byte of B's stream (inside lengths, markers, CRCs) */
	for (uint32_t cut = 1; cut < SB.len; cut++) {
		conn_init(&c, sizeof(bufA), sizeof(bufB));
		handshake(&c, sa, 0, sb);
		feed(&c.b, &SB, sb, 0, cut, 0);
		feed(&c.b, &SB, sb, cut, SB.len, 0);
		assert_int_equal(c.b.markers, 1);
		assert_int_equal(c.b.crc, 1);
		assert_int_equal(c.gb.nev, 1);
		assert_int_equal(c.gb.ev[0], ROCE_MPA_EV_FRAME);
		all_delivered(&c.gb, &SB, sb, 1);
		if (cut == 1)
			for (unsigned i = 0; i < c.gb.n; i++)
				markers_seen += c.gb.f[i].markers;
	}
	assert_int_equal(markers_seen, (SB.len - SB.start + 511) / 512);
	assert_int_equal(c.b.n_markers_bad, 0);

	/* A's direction: no markers, every cut */
	for (uint32_t cut = 1; cut < SA.len; cut++) {
		conn_init(&c, sizeof(bufA), sizeof(bufB));
		feed(&c.a, &SA, sa, 0, cut, 0);
		feed(&c.b, &SB, sb, 0, SB.start, 0);
		feed(&c.a, &SA, sa, cut, SA.len, 0);
		assert_int_equal(c.a.markers, 0);
		assert_int_equal(c.a.crc, 1);
		assert_int_equal(c.ga.nev, 1);
		all_delivered(&c.ga, &SA, sa, 1);
		assert_int_equal(c.a.n_crc_good, SA.nf);
	}
}

static void test_stream_byte_by_byte_and_random(void **state)
{
	static struct conn c;
	uint64_t r = 0x9e3779b97f4a7c15ull;

	(void)state;
	conn_init(&c, sizeof(bufA), sizeof(bufB));
	handshake(&c, 1000, 0, 2000);
	for (uint32_t i = 0; i < SB.len; i++)
		feed(&c.b, &SB, 2000, i, i + 1, 0);
	all_delivered(&c.gb, &SB, 2000, 1);
	assert_int_equal(c.gb.nev, 1);

	for (int it = 0; it < 300; it++) {
		uint32_t at = 0;

		conn_init(&c, sizeof(bufA), sizeof(bufB));
		handshake(&c, 1000, 0, 2000);
		while (at < SB.len) {
			uint32_t k;

			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			k = 1 + (uint32_t)(r % (it & 1 ? 40 : 3000));
			if (k > SB.len - at)
				k = SB.len - at;
			feed(&c.b, &SB, 2000, at, at + k, 0);
			at += k;
		}
		all_delivered(&c.gb, &SB, 2000, 1);
		assert_int_equal(c.gb.nev, 1);
	}
}

static void test_stream_gap_marker_resync(void **state)
{
	static struct conn c;
	const uint32_t sb = 5000;

	(void)state;
	/* drop [g0, g1) inside FPDU 8 (2900 bytes): FPDUs 0-7 arrive, 8 is lost,
	 * a later marker points at an FPDU start and the rest arrive */
	for (uint32_t d = 0; d < 64; d += 3) {
		uint32_t g0 = SB.off[8] + 100 + d, g1 = g0 + 700 + d * 5, resync = 0;
		unsigned i;

		conn_init(&c, sizeof(bufA), sizeof(bufB));
		handshake(&c, 1, 0, sb);
		feed(&c.b, &SB, sb, 0, g0, 0);
		feed(&c.b, &SB, sb, g1, SB.len, 0);
		assert_int_equal(c.gb.ev[0], ROCE_MPA_EV_FRAME);
		assert_int_equal(c.gb.ev[1], ROCE_MPA_EV_GAP);
		assert_int_equal(c.gb.ev_seq[1], sb + g0);
		assert_int_equal(c.gb.ev_len[1], g1 - g0);
		assert_int_equal(c.gb.ev[2], ROCE_MPA_EV_FPDU_LOST);
		assert_int_equal(c.gb.ev_seq[2], sb + SB.off[8]);
		assert_int_equal(count_ev(&c.gb, ROCE_MPA_EV_RESYNC), 1);
		for (i = 0; i < c.gb.nev; i++)
			if (c.gb.ev[i] == ROCE_MPA_EV_RESYNC)
				resync = c.gb.ev_seq[i] - sb;
		/* resynchronised at the start of an FPDU after the gap */
		assert_true(resync >= g1);
		for (i = 0; i < SB.nf && SB.off[i] != resync; i++)
			;
		assert_true(i < SB.nf);
		/* delivered: 0..7, then i..end, nothing else */
		assert_int_equal(c.gb.n, 8 + SB.nf - i);
		for (unsigned k = 0; k < c.gb.n; k++) {
			unsigned want = k < 8 ? k : i + (k - 8);

			assert_int_equal(c.gb.f[k].msn, want);
			assert_int_equal(c.gb.f[k].seq, sb + SB.off[want]);
			assert_int_equal(c.gb.f[k].crc, ROCE_MPA_CRC_GOOD);
			assert_true(c.gb.f[k].ok);
		}
		assert_int_equal(c.b.n_gaps, 1);
		assert_int_equal(c.b.n_gap_bytes, g1 - g0);
		assert_int_equal(c.b.n_sync_lost, 1);
		assert_int_equal(count_ev(&c.gb, ROCE_MPA_EV_SYNC_LOST), 1);
		assert_string_equal(last_resync, "marker");

		/* the hole arrives late: reported, ignored; old bytes again: retransmission */
		feed(&c.b, &SB, sb, g0, g1, 0);
		assert_int_equal(c.gb.ev[c.gb.nev - 1], ROCE_MPA_EV_OUT_OF_ORDER);
		feed(&c.b, &SB, sb, 10, 200, 0);
		assert_int_equal(c.gb.ev[c.gb.nev - 1], ROCE_MPA_EV_RETRANS);
		assert_int_equal(c.gb.n, 8 + SB.nf - i);
		/* partly new: the new part is used */
		feed(&c.b, &SB, sb, SB.len - 10, SB.len, 0);
		assert_int_equal(c.b.n_retrans, 2);
	}
}

static void test_stream_gap_without_markers(void **state)
{
	static struct conn c;
	const uint32_t sa = 77;
	uint32_t g0 = SA.off[7] + 10, g1 = SA.off[9] + 3;

	(void)state;
	conn_init(&c, sizeof(bufA), sizeof(bufB));
	feed(&c.a, &SA, sa, 0, g0, 0);
	feed(&c.b, &SB, 1, 0, SB.start, 0);
	feed(&c.a, &SA, sa, g1, SA.off[11], 0);       /* no way to find a boundary */
	assert_int_equal(c.ga.n, 7);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_GAP), 1);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_FPDU_LOST), 1);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_SKIPPED), 1);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_RESYNC), 0);
	assert_int_equal(c.a.n_skipped_bytes, SA.off[11] - g1);
	/* the caller knows this one starts an FPDU */
	feed(&c.a, &SA, sa, SA.off[11], SA.len, ROCE_MPA_SEG_FPDU_START);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_RESYNC), 1);
	assert_int_equal(c.ga.n, 7 + SA.nf - 11);
	assert_int_equal(c.ga.f[7].msn, 11);
	assert_int_equal(c.ga.f[c.ga.n - 1].msn, SA.nf - 1);
}

static void test_stream_crc_bad_too_big_bad_length(void **state)
{
	static struct conn c;
	static struct built bad;
	unsigned i;

	(void)state;
	/* one flipped payload byte: that FPDU bad, the others good */
	bad = SB;
	bad.b[bad.off[7] + 300] ^= 0x10;
	conn_init(&c, sizeof(bufA), sizeof(bufB));
	handshake(&c, 1, 0, 9);
	feed(&c.b, &bad, 9, 0, bad.len, 0);
	assert_int_equal(c.gb.n, bad.nf);
	for (i = 0; i < bad.nf; i++)
		assert_int_equal(c.gb.f[i].crc, i == 7 ? ROCE_MPA_CRC_BAD : ROCE_MPA_CRC_GOOD);
	assert_int_equal(c.b.n_crc_bad, 1);

	/* a 1200-byte buffer: the 2900- and 1480-byte FPDUs are too big, skipped */
	conn_init(&c, sizeof(bufA), 1200);
	handshake(&c, 1, 0, 9);
	feed(&c.b, &SB, 9, 0, SB.len, 0);
	assert_int_equal(count_ev(&c.gb, ROCE_MPA_EV_TOO_BIG), 2);
	assert_int_equal(c.gb.n, SB.nf - 2);
	assert_int_equal(c.b.n_fpdu, SB.nf);

	/* set() instead of a handshake; a ULPDU length of 5 loses the framing */
	{
		static const uint8_t junk[] = { 0x00, 0x05, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0 };
		struct roce_mpa_stream s;
		struct got g;

		memset(&g, 0, sizeof(g));
		roce_mpa_stream_init(&s, bufA, sizeof(bufA), on_fpdu, on_event, &g);
		roce_mpa_stream_set(&s, 100, 0, 0);
		roce_mpa_stream_feed(&s, 100, junk, sizeof(junk), 0);
		assert_int_equal(g.ev[0], ROCE_MPA_EV_BAD_LENGTH);
		assert_int_equal(g.ev[1], ROCE_MPA_EV_SYNC_LOST);
		assert_int_equal(g.ev[2], ROCE_MPA_EV_SKIPPED);
		assert_int_equal(g.ev_len[2], sizeof(junk) - 2);
		assert_int_equal(s.n_sync_lost, 1);
		assert_false(roce_mpa_stream_in_sync(&s));
		assert_int_equal(g.n, 0);
	}
	/* an MPA frame announcing 600 bytes of private data */
	{
		uint8_t fr[40];
		struct roce_mpa_stream s;
		struct got g;

		memset(&g, 0, sizeof(g));
		memcpy(fr, "MPA ID Req Frame\x40\x01\x02\x58", 20);
		memset(fr + 20, 0, 20);
		roce_mpa_stream_init(&s, bufA, sizeof(bufA), on_fpdu, on_event, &g);
		roce_mpa_stream_feed(&s, 1, fr, sizeof(fr), 0);
		assert_int_equal(g.ev[0], ROCE_MPA_EV_BAD_FRAME);
		assert_int_equal(g.n, 0);
	}
}


/* seq of the RESYNC event (offset from seq0); ~0u when none */
static uint32_t resync_at(const struct got *g, uint32_t seq0)
{
	for (unsigned i = 0; i < g->nev && i < 64; i++)
		if (g->ev[i] == ROCE_MPA_EV_RESYNC)
			return g->ev_seq[i] - seq0;
	return ~0u;
}

/* feeds FPDUs [from, to) of bs one segment each, flagged as starting an FPDU */
static void feed_fpdus(struct roce_mpa_stream *s, const struct built *bs, uint32_t seq0, unsigned from,
		       unsigned to)
{
	for (unsigned i = from; i < to; i++)
		feed(s, bs, seq0, bs->off[i], bs->off[i] + bs->wlen[i], ROCE_MPA_SEG_FPDU_START);
}

/* A wrong marker pointer in sync loses the framing; the FPDU of a later good
 * marker resynchronises; nothing in between is reported. */
static void test_stream_bad_marker(void **state)
{
	static struct conn c;
	static struct built bad;
	const uint32_t sb = 3000;
	unsigned tested = 0, resynced = 0;

	(void)state;
	for (unsigned k = 1; k * 512 + 4 < SB.len - SB.start; k++) {
		uint32_t mk = SB.start + k * 512, from = ~0u;
		unsigned hit = 0, first = SB.nf;

		for (unsigned i = 0; i < SB.nf; i++)
			if (SB.off[i] <= mk && mk < SB.off[i] + SB.wlen[i])
				hit = i;
		/* where a later marker leads: the first FPDU starting after the bad
		 * marker that holds (or is led by) a marker */
		for (unsigned j = k + 1; SB.start + j * 512 + 4 <= SB.len && first == SB.nf; j++) {
			uint32_t m = SB.start + j * 512;

			for (unsigned i = hit + 1; i < SB.nf; i++)
				if (SB.off[i] <= m && m < SB.off[i] + SB.wlen[i] && SB.off[i] >= mk + 4)
					first = i;
		}
		bad = SB;
		bad.b[mk + 2] ^= bad.b[mk + 3];  /* pointer byte-swapped */
		bad.b[mk + 3] ^= bad.b[mk + 2];
		bad.b[mk + 2] ^= bad.b[mk + 3];
		if (bad.b[mk + 2] == bad.b[mk + 3])
			continue;                /* swapping changes nothing */
		conn_init(&c, sizeof(bufA), sizeof(bufB));
		handshake(&c, 1, 0, sb);
		feed(&c.b, &bad, sb, 0, bad.len, 0);
		assert_int_equal(count_ev(&c.gb, ROCE_MPA_EV_MARKER_BAD), 1);
		assert_int_equal(count_ev(&c.gb, ROCE_MPA_EV_SYNC_LOST), 1);
		assert_int_equal(c.b.n_sync_lost, 1);
		if (first < SB.nf) {
			from = SB.off[first];
			assert_int_equal(resync_at(&c.gb, sb), from);
			assert_string_equal(last_resync, "marker");
			assert_true(roce_mpa_stream_in_sync(&c.b));
			resynced++;
		} else {
			assert_int_equal(resync_at(&c.gb, sb), ~0u);
		}
		/* delivered: those before the hit one, then from the resync on */
		assert_int_equal(c.gb.n, hit + (SB.nf - first));
		for (unsigned i = 0; i < c.gb.n; i++) {
			assert_int_equal(c.gb.f[i].msn, i < hit ? i : first + (i - hit));
			assert_true(c.gb.f[i].ok);
		}
		tested++;
	}
	assert_true(tested >= 10);
	assert_true(resynced >= 5);
}

/* CRC, no markers: a bad length loses the framing; a segment-start FPDU with a
 * bad CRC does not resynchronise, the next one with a good CRC does. */
static void test_stream_crc_resync(void **state)
{
	static struct conn c;
	static struct built bad;
	const uint32_t sa = 0xffffff00u;

	(void)state;
	bad = SA;
	bad.b[bad.off[5]] = 0;
	bad.b[bad.off[5] + 1] = 3;                     /* ULPDU length 3 */
	bad.b[bad.off[6] + bad.wlen[6] - 6] ^= 0x40;   /* FPDU 6: CRC bad */
	conn_init(&c, sizeof(bufA), sizeof(bufB));
	feed(&c.a, &bad, sa, 0, bad.start, 0);
	feed(&c.b, &SB, 1, 0, SB.start, 0);
	feed_fpdus(&c.a, &bad, sa, 0, bad.nf);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_BAD_LENGTH), 1);
	assert_int_equal(c.a.n_sync_lost, 1);
	assert_int_equal(c.a.n_resync, 1);
	assert_int_equal(c.a.n_resync_heuristic, 0);
	assert_int_equal(resync_at(&c.ga, sa), bad.off[7]);
	assert_string_equal(last_resync, "crc");
	assert_int_equal(c.a.n_skipped_bytes, bad.wlen[5] - 2 + bad.wlen[6]);
	assert_int_equal(c.ga.n, 5 + bad.nf - 7);
	for (unsigned i = 0; i < c.ga.n; i++) {
		assert_int_equal(c.ga.f[i].msn, i < 5 ? i : 7 + (i - 5));
		assert_int_equal(c.ga.f[i].crc, ROCE_MPA_CRC_GOOD);
	}
	assert_int_equal(c.a.n_crc_bad, 0);
}

/* Neither markers nor CRC: a bad length loses the framing; segments that do
 * not start an FPDU are skipped; the next that does resynchronises as a
 * heuristic. */
static void test_stream_heuristic_resync(void **state)
{
	static struct conn c;
	static struct built sn, sr;
	const uint32_t sa = 400;

	(void)state;
	build_stream(&sn, ROCE_MPA_REQ, 0, 0, 0);
	build_stream(&sr, ROCE_MPA_REP, 0, 0, 0);
	sn.b[sn.off[5]] = 0;
	sn.b[sn.off[5] + 1] = 2;
	conn_init(&c, sizeof(bufA), sizeof(bufB));
	feed(&c.a, &sn, sa, 0, sn.start, 0);
	feed(&c.b, &sr, 1, 0, sr.start, 0);
	assert_int_equal(c.a.crc, 0);
	assert_int_equal(c.a.crc_known, 1);
	feed_fpdus(&c.a, &sn, sa, 0, 6);
	feed(&c.a, &sn, sa, sn.off[6], sn.off[7], 0);  /* not flagged: skipped */
	assert_false(roce_mpa_stream_in_sync(&c.a));
	assert_int_equal(c.ga.n, 5);
	feed_fpdus(&c.a, &sn, sa, 7, sn.nf);
	assert_int_equal(c.a.n_sync_lost, 1);
	assert_int_equal(c.a.n_resync, 1);
	assert_int_equal(c.a.n_resync_heuristic, 1);
	assert_string_equal(last_resync, "heuristic");
	assert_int_equal(resync_at(&c.ga, sa), sn.off[7]);
	assert_int_equal(c.a.n_skipped_bytes, sn.wlen[5] - 2 + sn.wlen[6]);
	assert_int_equal(c.ga.n, 5 + sn.nf - 7);
	for (unsigned i = 0; i < c.ga.n; i++)
		assert_int_equal(c.ga.f[i].msn, i < 5 ? i : 7 + (i - 5));

	/* markers but no CRC: a segment start is not enough, only a marker */
	{
		struct roce_mpa_stream s;
		struct got g;

		memset(&g, 0, sizeof(g));
		roce_mpa_stream_init(&s, bufB, sizeof(bufB), on_fpdu, on_event, &g);
		roce_mpa_stream_set(&s, 1, 1, 0);
		feed(&s, &sn, 0, 1, 30, 0);                 /* out of sync */
		feed(&s, &sn, 0, sn.off[3], sn.off[4], ROCE_MPA_SEG_FPDU_START);
		assert_int_equal(g.n, 0);
		assert_int_equal(s.n_resync, 0);
	}
}

/* A DDP header no sender writes, without a CRC: framing lost, not reported. */
static void test_stream_bad_header(void **state)
{
	static struct conn c;
	static struct built sn, sr;

	(void)state;
	build_stream(&sn, ROCE_MPA_REQ, 0, 0, 0);
	build_stream(&sr, ROCE_MPA_REP, 0, 0, 0);
	sn.b[sn.off[4] + 2] = (uint8_t)((sn.b[sn.off[4] + 2] & ~ROCE_DDP_DV_MASK) | 2);  /* DDP version 2 */
	conn_init(&c, sizeof(bufA), sizeof(bufB));
	feed(&c.a, &sn, 9, 0, sn.start, 0);
	feed(&c.b, &sr, 1, 0, sr.start, 0);
	feed(&c.a, &sn, 9, sn.start, sn.len, 0);
	assert_int_equal(count_ev(&c.ga, ROCE_MPA_EV_BAD_HEADER), 1);
	assert_int_equal(c.a.n_sync_lost, 1);
	assert_int_equal(c.ga.n, 4);
	/* judged once its first 48 bytes (length, DDP, RDMAP) were in */
	assert_int_equal(c.a.n_skipped_bytes, sn.len - (sn.off[4] + 2 + ROCE_DDP_UNTAGGED_LEN + ROCE_RDMAP_ATOMIC_REQ_LEN));
}


/* A sender that misplaces its markers (the second 512 bytes after the first,
 * then every 516) with FPDUPTR right or byte-swapped: framing is lost at the
 * first marker that is not where it should be, and nothing read out of
 * payload is ever reported (on_fpdu checks each FPDU against what was built). */
static void test_stream_misplaced_markers(void **state)
{
	static uint8_t wire[SMAX * 2];
	static struct built sn;
	uint8_t fp[4200];

	(void)state;
	build_stream(&sn, ROCE_MPA_REQ, 0, 0, 0);
	for (int swap = 0; swap < 2; swap++) {
		struct roce_mpa_stream s;
		struct got g;
		uint32_t w = 0, next_mk = 0, gap = 512, seg_at[NF + 1];

		for (unsigned i = 0; i < sn.nf; i++) {
			uint32_t fstart = w;

			memcpy(fp, sn.b + sn.off[i], sn.wlen[i]);
			seg_at[i] = w;
			for (uint32_t k = 0; k < sn.wlen[i]; k++) {
				if (w == next_mk) {
					uint32_t ptr = w - fstart;

					wire[w] = wire[w + 1] = 0;
					wire[w + 2] = (uint8_t)(swap ? ptr : ptr >> 8);
					wire[w + 3] = (uint8_t)(swap ? ptr >> 8 : ptr);
					w += 4;
					next_mk += gap;
					gap = 516;
				}
				wire[w++] = fp[k];
			}
		}
		seg_at[sn.nf] = w;
		assert_true(w < sizeof wire);
		memset(&g, 0, sizeof(g));
		roce_mpa_stream_init(&s, bufA, sizeof(bufA), on_fpdu, on_event, &g);
		roce_mpa_stream_set(&s, 7000, 1, 0);
		for (unsigned i = 0; i < sn.nf; i++) {
			uint32_t n = seg_at[i + 1] - seg_at[i];
			uint8_t *seg = malloc(n);

			assert_non_null(seg);
			memcpy(seg, wire + seg_at[i], n);
			roce_mpa_stream_feed(&s, 7000 + seg_at[i], seg, n, ROCE_MPA_SEG_FPDU_START);
			free(seg);
		}
		/* the marker at 1024 (swapped: already the one at 512, inside FPDU 5)
		 * is not one: lost inside FPDU 6 (5), and no marker leads back */
		assert_int_equal(s.n_sync_lost, 1);
		assert_int_equal(s.n_resync, 0);
		assert_int_equal(s.n_markers_bad, 1);
		assert_int_equal(g.n, swap ? 5 : 6);
		for (unsigned i = 0; i < g.n; i++)
			assert_int_equal(g.f[i].msn, i);
		assert_int_equal(count_ev(&g, ROCE_MPA_EV_SYNC_LOST), s.n_sync_lost);
		assert_int_equal(count_ev(&g, ROCE_MPA_EV_BAD_HEADER), 0);
		assert_int_equal(s.n_resync_heuristic, 0);
	}
}

/* A capture that starts mid-stream: the caller knows the start and markers. */
static void test_stream_mid_stream_start(void **state)
{
	struct roce_mpa_stream s;
	struct got g;
	uint32_t from = SB.off[7] + 33;
	unsigned i;

	(void)state;
	memset(&g, 0, sizeof(g));
	roce_mpa_stream_init(&s, bufB, sizeof(bufB), on_fpdu, on_event, &g);
	roce_mpa_stream_set(&s, 40 + SB.start, 1, 1);
	feed(&s, &SB, 40, from, SB.len, 0);
	assert_int_equal(count_ev(&g, ROCE_MPA_EV_RESYNC), 1);
	assert_true(g.n > 0);
	for (i = 0; i < SB.nf && SB.off[i] + 40 != g.f[0].seq; i++)
		;
	assert_true(i > 7 && i < SB.nf);
	assert_int_equal(g.n, SB.nf - i);
	for (unsigned k = 0; k < g.n; k++)
		assert_int_equal(g.f[k].crc, ROCE_MPA_CRC_GOOD);
}

/* roce_mpa_segment_walk on one TCP segment that starts inside an FPDU */
struct wgot {
	unsigned n;
	uint32_t off[16];
	uint8_t crc[16];
};

static void on_walk(void *ctx, const uint8_t *seg, const struct roce_mpa_fpdu *f)
{
	struct wgot *w = ctx;
	struct fl l;

	(void)seg;
	if (w->n < 16) {
		w->off[w->n] = f->off;
		w->crc[w->n] = f->crc_status;
	}
	w->n++;
	memset(&l, 0, sizeof(l));
	roce_mpa_fpdu_fields(seg, f, collect, &l);
	assert_true(fidx(&l, "iwarp_mpa.ulpdulength", 0) >= 0);
}

static void test_segment_walk(void **state)
{
	static uint8_t frame[SMAX + 200];
	const uint32_t seq0 = 0x10000;
	struct roce_mpa_dir dir = { seq0 + SB.start, 1, 1, 1 };
	struct roce_pkt p;

	(void)state;
	for (uint32_t s = SB.off[4]; s < SB.off[8]; s += 97) {
		uint32_t e = s + 1400 < SB.len ? s + 1400 : SB.len;
		struct wgot w;
		int n = tcp_frame(frame, sizeof(frame), 0, 1, 2, seq0 + s, SB.b + s, e - s);
		int rc;

		assert_int_equal(decode(&p, NULL, frame, (uint32_t)n, NULL), ROCE_OK);
		memset(&w, 0, sizeof(w));
		rc = roce_mpa_segment_walk(&p, &dir, 0, on_walk, &w);
		assert_int_equal(rc, (int)w.n);
		for (unsigned k = 0; k < w.n && k < 16; k++) {
			unsigned i;

			for (i = 0; i < SB.nf && SB.off[i] != s + w.off[k]; i++)
				;
			assert_true(i < SB.nf);
			if (SB.off[i] + SB.wlen[i] <= e)
				assert_int_equal(w.crc[k], ROCE_MPA_CRC_GOOD);
		}
		/* starting at an FPDU boundary, the walk takes every FPDU */
		for (unsigned i = 4; i < 8; i++) {
			if (SB.off[i] == s) {
				memset(&w, 0, sizeof(w));
				assert_true(roce_mpa_segment_walk(&p, &dir, 1, on_walk, &w) >= 1);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_public_marker_crc_send),
		cmocka_unit_test(test_public_read_request),
		cmocka_unit_test(test_public_crc_send),
		cmocka_unit_test(test_public_send_inv),
		cmocka_unit_test(test_public_frames),
		cmocka_unit_test(test_lab_siw_crc_rev2),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_build_matches_captures),
		cmocka_unit_test(test_tcp_frame_builder),
		cmocka_unit_test(test_opcode_round_trip),
		cmocka_unit_test(test_heuristic_negative),
		cmocka_unit_test(test_several_fpdus_per_segment),
		cmocka_unit_test(test_stream_every_split),
		cmocka_unit_test(test_stream_byte_by_byte_and_random),
		cmocka_unit_test(test_stream_gap_marker_resync),
		cmocka_unit_test(test_stream_gap_without_markers),
		cmocka_unit_test(test_stream_crc_bad_too_big_bad_length),
		cmocka_unit_test(test_stream_mid_stream_start),
		cmocka_unit_test(test_stream_bad_marker),
		cmocka_unit_test(test_stream_crc_resync),
		cmocka_unit_test(test_stream_heuristic_resync),
		cmocka_unit_test(test_stream_bad_header),
		cmocka_unit_test(test_stream_misplaced_markers),
		cmocka_unit_test(test_segment_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
