/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC-32 and CRC-32C: every implementation the CPU can run (selected in turn
 * through roce__crc_select) against zlib (CRC-32), a bitwise reference
 * written here (CRC-32C), the check values of the CRC catalogue and RFC 3720
 * appendix B.4, and each other; the masked CRC the ICRC uses and the ICRC
 * of every header layout against zlib over a masked copy.  Inputs sit at
 * the very end of a heap block so ASan flags any over-read.
 */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "roce.h"

/* lib/crc.c's test hook and the ICRC's masked CRC (not in roce.h). */
int roce__crc_select(const char *crc32_name, const char *crc32c_name);
uint32_t roce__crc32_or(uint32_t crc, const void *buf, size_t len, const uint8_t mask[64]);

static const char *const names32[] = { "slice8", "pclmul", "vpclmul-avx2", "vpclmul" };
static const char *const names32c[] = { "slice8", "sse4.2x1", "sse4.2", "sse4.2" };
#define NNAMES 4

/* Selects the i-th implementations; 0 when the CPU runs neither. */
static int select_impl(int i)
{
	int a = roce__crc_select(names32[i], NULL) == ROCE_OK;
	int b = roce__crc_select(NULL, names32c[i]) == ROCE_OK;
	if (a || b)
		print_message("  with crc32 %s, crc32c %s\n", roce_crc32_impl(), roce_crc32c_impl());
	return a || b;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

/* Bit at a time, straight from the definition (reflected, init and final
 * xor all ones). */
static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static uint32_t zcrc(uint32_t crc, const uint8_t *p, size_t n)
{
	/* zlib takes uInt lengths; our buffers are small. */
	return (uint32_t)crc32(crc, p, (uInt)n);
}

/* A copy of src[0..n) ending exactly at the end of a heap block, starting at
 * offset `align` from the block's (16-byte aligned) start. */
static uint8_t *tail_copy(const uint8_t *src, size_t n, size_t align, uint8_t **blk)
{
	*blk = malloc(n + align + 1);
	assert_non_null(*blk);
	memcpy(*blk + align, src, n);
	return *blk + align;
}

static void test_check_values_one(void)
{
	const char *s = "123456789";

	assert_int_equal(roce_crc32(0, s, 9), 0xCBF43926u);
	assert_int_equal(roce_crc32_portable(0, s, 9), 0xCBF43926u);
	assert_int_equal(zcrc(0, (const uint8_t *)s, 9), 0xCBF43926u);
	assert_int_equal(roce_crc32c(0, s, 9), 0xE3069283u);
	assert_int_equal(roce_crc32c_portable(0, s, 9), 0xE3069283u);
	assert_int_equal(ref_crc32c(0, (const uint8_t *)s, 9), 0xE3069283u);

	/* RFC 3720 B.4 (the CRC bytes there are listed as sent, LSB first). */
	uint8_t b[32];
	struct { int kind; uint32_t crc; } v[] = {
		{ 0, 0x8A9136AAu }, { 1, 0x62A8AB43u }, { 2, 0x46DD794Eu }, { 3, 0x113FDB5Cu },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		for (int j = 0; j < 32; j++)
			b[j] = (uint8_t)(v[i].kind == 0 ? 0 : v[i].kind == 1 ? 0xff :
					 v[i].kind == 2 ? j : 31 - j);
		assert_int_equal(roce_crc32c(0, b, 32), v[i].crc);
		assert_int_equal(roce_crc32c_portable(0, b, 32), v[i].crc);
		assert_int_equal(ref_crc32c(0, b, 32), v[i].crc);
	}

	/* Nothing to do: the CRC passed in comes back. */
	assert_int_equal(roce_crc32(0x12345678u, NULL, 0), 0x12345678u);
	assert_int_equal(roce_crc32c(0x12345678u, NULL, 0), 0x12345678u);
	assert_int_equal(roce_crc32_portable(0, s, 0), 0);
	assert_int_equal(roce_crc32c_portable(0, s, 0), 0);
}

static void test_check_values(void **state)
{
	(void)state;
	for (int i = 0; i < NNAMES; i++)
		if (select_impl(i))
			test_check_values_one();
	roce_crc_force_portable(0);
}

/* The best implementation is chosen, and every one the CPU has can be
 * selected (so the tests below run them all). */
static void test_impl_names(void **state)
{
	(void)state;
	const char *n32 = roce_crc32_impl(), *n32c = roce_crc32c_impl();

	assert_non_null(n32);
	assert_non_null(n32c);
	print_message("crc32: %s, crc32c: %s\n", n32, n32c);
#if defined(__x86_64__)
	__builtin_cpu_init();
	int pclmul = !!__builtin_cpu_supports("pclmul"), sse42 = !!__builtin_cpu_supports("sse4.2");
	int vpclmul = pclmul && __builtin_cpu_supports("vpclmulqdq");
	int avx2 = vpclmul && __builtin_cpu_supports("avx2");
	int avx512 = vpclmul && __builtin_cpu_supports("avx512f");
	assert_string_equal(n32, avx512 ? "vpclmul" : avx2 ? "vpclmul-avx2" :
				 pclmul ? "pclmul" : "slice8");
	assert_string_equal(n32c, sse42 && pclmul ? "sse4.2" : sse42 ? "sse4.2x1" : "slice8");
	assert_int_equal(roce__crc_select("pclmul", NULL) == ROCE_OK, pclmul);
	assert_int_equal(roce__crc_select("vpclmul-avx2", NULL) == ROCE_OK, avx2);
	assert_int_equal(roce__crc_select("vpclmul", NULL) == ROCE_OK, avx512);
	assert_int_equal(roce__crc_select(NULL, "sse4.2x1") == ROCE_OK, sse42);
	assert_int_equal(roce__crc_select(NULL, "sse4.2") == ROCE_OK, sse42 && pclmul);
#endif
	assert_int_equal(roce__crc_select("slice8", "slice8"), ROCE_OK);
	assert_string_equal(roce_crc32_impl(), "slice8");
	assert_string_equal(roce_crc32c_impl(), "slice8");
	assert_int_equal(roce__crc_select("crc32-by-hand", NULL), ROCE_EUNSUP);
	assert_int_equal(roce__crc_select(NULL, "crc32c-by-hand"), ROCE_EUNSUP);
	assert_string_equal(roce_crc32_impl(), "slice8");

	roce_crc_force_portable(0);     /* back to the best */
	assert_string_equal(roce_crc32_impl(), n32);
	assert_string_equal(roce_crc32c_impl(), n32c);
}

/* Every length 0..1024 at every start alignment 0..15, from 0 and from a
 * random starting CRC. */
static void test_all_lengths_alignments_one(void)
{
	enum { MAXLEN = 1024 };
	static uint8_t src[MAXLEN];

	for (size_t align = 0; align < 16; align++) {
		fill(src, MAXLEN);
		for (size_t len = 0; len <= MAXLEN; len++) {
			uint8_t *blk, *p = tail_copy(src, len, align, &blk);
			uint32_t seed = (len & 1) ? (uint32_t)rnd() : 0;

			uint32_t z = zcrc(seed, p, len);
			assert_int_equal(roce_crc32(seed, p, len), z);
			assert_int_equal(roce_crc32_portable(seed, p, len), z);

			uint32_t r = ref_crc32c(seed, p, len);
			assert_int_equal(roce_crc32c(seed, p, len), r);
			assert_int_equal(roce_crc32c_portable(seed, p, len), r);
			free(blk);
		}
	}
}

/* Long buffers: the edges of the CRC-32C stream tiers (3 x 64, 3 x 256,
 * 3 x 2048 bytes) and of the 64-byte CRC-32 folding, then random lengths. */
static void test_long_buffers_one(void)
{
	enum { MAXLEN = 70000 };
	uint8_t *src = malloc(MAXLEN);
	assert_non_null(src);
	fill(src, MAXLEN);

	size_t lens[200], n = 0;
	const size_t edges[] = { 192, 768, 960, 6144, 6912, 12288, 13248, 65536 };
	for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
		for (int d = -9; d <= 9; d += 3)
			lens[n++] = (size_t)((long)edges[e] + d);
	while (n < sizeof lens / sizeof lens[0])
		lens[n++] = rnd() % (MAXLEN - 16);

	for (size_t i = 0; i < n; i++) {
		size_t align = rnd() % 16;
		uint8_t *blk, *p = tail_copy(src + (rnd() % 16), lens[i], align, &blk);
		uint32_t z = zcrc(0, p, lens[i]);
		assert_int_equal(roce_crc32(0, p, lens[i]), z);
		assert_int_equal(roce_crc32_portable(0, p, lens[i]), z);
		uint32_t r = ref_crc32c(0, p, lens[i]);
		assert_int_equal(roce_crc32c(0, p, lens[i]), r);
		assert_int_equal(roce_crc32c_portable(0, p, lens[i]), r);
		free(blk);
	}
	free(src);
}

/* Splitting a buffer anywhere and chaining gives the one-call CRC, also
 * when accelerated and portable pieces alternate. */
static void test_chaining_one(void)
{
	enum { MAXLEN = 20000 };
	uint8_t *src = malloc(MAXLEN);
	assert_non_null(src);

	for (int round = 0; round < 300; round++) {
		size_t len = round < 150 ? rnd() % 2048 : rnd() % MAXLEN;
		fill(src, len);
		uint32_t whole = roce_crc32(0, src, len), wholec = roce_crc32c(0, src, len);
		assert_int_equal(whole, zcrc(0, src, len));

		size_t cuts[8], nc = 1 + rnd() % 7;
		for (size_t i = 0; i < nc; i++)
			cuts[i] = len ? rnd() % (len + 1) : 0;
		for (size_t i = 1; i < nc; i++)      /* insertion sort */
			for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
				size_t t = cuts[j];
				cuts[j] = cuts[j - 1];
				cuts[j - 1] = t;
			}
		uint32_t c = 0, cc = 0, m = 0, mc = 0;
		size_t at = 0;
		for (size_t i = 0; i <= nc; i++) {
			size_t end = i < nc ? cuts[i] : len, k = end - at;
			c = roce_crc32(c, src + at, k);
			cc = roce_crc32c(cc, src + at, k);
			m = (i & 1) ? roce_crc32_portable(m, src + at, k) : roce_crc32(m, src + at, k);
			mc = (i & 1) ? roce_crc32c(mc, src + at, k) : roce_crc32c_portable(mc, src + at, k);
			at = end;
		}
		assert_int_equal(c, whole);
		assert_int_equal(m, whole);
		assert_int_equal(cc, wholec);
		assert_int_equal(mc, wholec);
	}
	free(src);
}

static void test_all_lengths_alignments(void **state)
{
	(void)state;
	for (int i = 0; i < NNAMES; i++)
		if (select_impl(i))
			test_all_lengths_alignments_one();
	roce_crc_force_portable(0);
}

static void test_long_buffers(void **state)
{
	(void)state;
	for (int i = 0; i < NNAMES; i++)
		if (select_impl(i))
			test_long_buffers_one();
	roce_crc_force_portable(0);
}

static void test_chaining(void **state)
{
	(void)state;
	for (int i = 0; i < NNAMES; i++)
		if (select_impl(i))
			test_chaining_one();
	roce_crc_force_portable(0);
}

/* roce__crc32_or(): zlib's CRC of a copy whose first 64 bytes are OR-ed
 * with the mask, for every length 0..300 at every alignment, with sparse
 * masks (as the ICRC's) and dense random ones. */
static void test_or_mask_one(void)
{
	enum { MAXLEN = 300 };
	static uint8_t src[MAXLEN], ref[MAXLEN], mask[64];

	for (size_t align = 0; align < 16; align++) {
		fill(src, MAXLEN);
		for (size_t len = 0; len <= MAXLEN; len++) {
			uint8_t *blk, *p = tail_copy(src, len, align, &blk);
			uint32_t seed = (len & 1) ? (uint32_t)rnd() : 0;

			if (len % 3 == 0) {
				fill(mask, sizeof mask);
			} else {
				memset(mask, 0, sizeof mask);
				for (int k = 0; k < 8; k++)
					mask[rnd() % 64] = (uint8_t)(k & 1 ? 0xff : 0x0f);
			}
			memcpy(ref, src, len);
			for (size_t i = 0; i < len && i < 64; i++)
				ref[i] |= mask[i];
			assert_int_equal(roce__crc32_or(seed, p, len, mask), zcrc(seed, ref, len));
			free(blk);
		}
	}
}

/* The ICRC (IBTA annex A17.3.3, A16) computed here from its definition:
 * zlib over 8 x 0xFF and a copy with the variant fields set to ones. */
static uint32_t ref_icrc(int v1, const uint8_t *l3, size_t len)
{
	static uint8_t m[8 + 2048];
	size_t nh = v1 ? 40 : (l3[0] >> 4) == 4 ? (size_t)(l3[0] & 15) * 4 : 40;

	memset(m, 0xff, 8);
	memcpy(m + 8, l3, len);
	if (!v1 && (l3[0] >> 4) == 4) {
		m[8 + 1] = m[8 + 8] = m[8 + 10] = m[8 + 11] = 0xff;
	} else {
		m[8] |= 0x0f;
		m[8 + 1] = m[8 + 2] = m[8 + 3] = m[8 + 7] = 0xff;
	}
	if (!v1) {
		m[8 + nh + 6] = m[8 + nh + 7] = 0xff;
		nh += 8;
	}
	m[8 + nh + 4] = 0xff;
	return zcrc(0, m, 8 + len);
}

/* roce_icrc_raw() for RoCEv2 over IPv4 (no options: the one-pass masked
 * CRC; with options: the masked copy), over IPv6, and RoCEv1, every length
 * from the headers to 400 bytes past them, at every alignment. */
static void test_icrc_layouts_one(void)
{
	static uint8_t src[1024];
	const struct { int v1; uint8_t b0; size_t hl; } lay[] = {
		{ 0, 0x45, 20 + 8 + 12 }, { 0, 0x46, 24 + 8 + 12 }, { 0, 0x4f, 60 + 8 + 12 },
		{ 0, 0x60, 40 + 8 + 12 }, { 1, 0x60, 40 + 12 },
	};

	for (size_t l = 0; l < sizeof lay / sizeof lay[0]; l++)
		for (size_t align = 0; align < 16; align += 5) {
			fill(src, sizeof src);
			src[0] = lay[l].b0;
			for (size_t len = lay[l].hl; len <= lay[l].hl + 400; len++) {
				uint8_t *blk, *p = tail_copy(src, len, align, &blk);

				assert_int_equal(roce_icrc_raw(lay[l].v1, p, len), ref_icrc(lay[l].v1, src, len));
				free(blk);
			}
		}
}

static void test_or_mask(void **state)
{
	(void)state;
	for (int i = 0; i < NNAMES; i++)
		if (select_impl(i))
			test_or_mask_one();
	roce_crc_force_portable(0);
}

static void test_icrc_layouts(void **state)
{
	(void)state;
	for (int i = 0; i < NNAMES; i++)
		if (select_impl(i))
			test_icrc_layouts_one();
	roce_crc_force_portable(0);
}

static void test_force_portable(void **state)
{
	(void)state;
	enum { N = 64 };
	static uint8_t buf[5000];
	uint32_t a[N], ac[N];
	size_t lens[N];
	const char *n32 = roce_crc32_impl(), *n32c = roce_crc32c_impl();

	fill(buf, sizeof buf);
	for (int i = 0; i < N; i++) {
		lens[i] = rnd() % (sizeof buf - 16);
		a[i] = roce_crc32(0, buf + i % 16, lens[i]);
		ac[i] = roce_crc32c(0, buf + i % 16, lens[i]);
	}

	roce_crc_force_portable(1);
	assert_string_equal(roce_crc32_impl(), "slice8");
	assert_string_equal(roce_crc32c_impl(), "slice8");
	for (int i = 0; i < N; i++) {
		assert_int_equal(roce_crc32(0, buf + i % 16, lens[i]), a[i]);
		assert_int_equal(roce_crc32c(0, buf + i % 16, lens[i]), ac[i]);
	}

	roce_crc_force_portable(0);
	assert_string_equal(roce_crc32_impl(), n32);
	assert_string_equal(roce_crc32c_impl(), n32c);
	for (int i = 0; i < N; i++) {
		assert_int_equal(roce_crc32(0, buf + i % 16, lens[i]), a[i]);
		assert_int_equal(roce_crc32c(0, buf + i % 16, lens[i]), ac[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_impl_names),
		cmocka_unit_test(test_all_lengths_alignments),
		cmocka_unit_test(test_long_buffers),
		cmocka_unit_test(test_chaining),
		cmocka_unit_test(test_or_mask),
		cmocka_unit_test(test_icrc_layouts),
		cmocka_unit_test(test_force_portable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
