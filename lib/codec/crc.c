/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc.c — CRC-32 (IEEE 802.3 clause 3.2.9, ITU-T V.42; reflected polynomial
 * 0xEDB88320, the CRC zlib computes and the base of the RoCE ICRC, IBTA
 * vol. 1 annex A17) and CRC-32C (Castagnoli; RFC 3720 section 12.1 and
 * appendix B.4; reflected 0x82F63B78, the MPA FPDU CRC of RFC 5044).
 *
 * Both take and return the CRC the way zlib's crc32() does: start with 0 and
 * pass the previous result to continue; the register is inverted on entry and
 * on exit.
 *
 * Implementations, chosen once at run time (constructor, or the first call)
 * and named by roce_crc32_impl() / roce_crc32c_impl():
 *   slice8   portable slicing-by-8 over tables built at start-up;
 *   pclmul   CRC-32 by carry-less multiplication: four 128-bit lanes are
 *            folded 512 bits forward at a time, then folded into one and
 *            reduced to 32 bits with two folds and a Barrett step (method of
 *            Gopal et al., "Fast CRC Computation for Generic Polynomials
 *            Using PCLMULQDQ", Intel, 2009); buffers of 16..63 bytes fold
 *            16 bytes at a time in one register; the last 0..15 bytes are
 *            folded in as one overlapping block (pshufb); only buffers
 *            under 16 bytes go through slice8;
 *   vpclmul  the same with VPCLMULQDQ on four 512-bit registers (256 bytes
 *            per step) when the CPU has AVX-512F and VPCLMULQDQ; under 256
 *            bytes it is pclmul;
 *   vpclmul-avx2  the same on four 256-bit registers (128 bytes per step),
 *            for CPUs with VPCLMULQDQ and AVX2 but no AVX-512;
 *   sse4.2   CRC-32C with the crc32 instruction, three independent streams
 *            (its latency is 3 cycles, its throughput 1 per cycle) recombined
 *            by a multiplication by x^(8n) mod P done with PCLMULQDQ;
 *   sse4.2x1 one stream, for a CPU with SSE4.2 but no PCLMULQDQ.
 * roce__crc_select() picks one by name, for the tests and the benchmark.
 *
 * Every constant is computed from the polynomial at start-up (see
 * clmul_consts_init()); none is copied in.
 */
#include <pthread.h>
#include "internal.h"

#define CRC32_POLY_REFL  0xEDB88320u   /* x^32 + x^26 + ... + 1, bit 31 = x^0 */
#define CRC32C_POLY_REFL 0x82F63B78u

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_X86 1
#include <immintrin.h>
#endif

/* ---- portable: slicing-by-8 ------------------------------------------------ */

static uint32_t tab32[8][256], tab32c[8][256];

static void slice8_tables(uint32_t t[8][256], uint32_t poly_refl)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1u) ? poly_refl : 0);
		t[0][i] = c;
	}
	/* t[k][i]: byte i followed by k zero bytes. */
	for (int k = 1; k < 8; k++)
		for (int i = 0; i < 256; i++)
			t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
}

/* c is the register (not inverted). */
static uint32_t slice8(const uint32_t t[8][256], uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t lo = c ^ rd32le(p), hi = rd32le(p + 4);
		c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		    t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		    t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		    t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
	return c;
}

static uint32_t crc32_slice8(uint32_t crc, const void *buf, size_t len)
{
	return ~slice8(tab32, ~crc, buf, len);
}

static uint32_t crc32c_slice8(uint32_t crc, const void *buf, size_t len)
{
	return ~slice8(tab32c, ~crc, buf, len);
}

/* roce__crc32_or(): the first 64 bytes OR-ed with the mask in a copy. */
static uint32_t crc32_slice8_or(uint32_t crc, const void *buf, size_t len, const uint8_t *mask)
{
	const uint8_t *p = buf;
	size_t n = len < 64 ? len : 64;
	uint8_t t[64];

	for (size_t i = 0; i < n; i++)
		t[i] = p[i] | mask[i];
	return ~slice8(tab32, slice8(tab32, ~crc, t, n), p + n, len - n);
}

#ifdef CRC_X86
/* ---- CRC-32 with PCLMULQDQ ------------------------------------------------- *
 *
 * How the constants follow from P.  In the reflected order a 64-bit lane
 * whose bit i stands for x^(e-i) is said to have "frame e".  A carry-less
 * product of lanes of frames e and f has frame e+f (bit k of the product
 * collects the bits i+j = k).  Folding replaces a lane by its product with a
 * constant K and reads the result in another frame; the polynomial is then
 * multiplied by K / x^(frame difference), which must be 1 mod P, so K is
 * x^(frame difference) mod P.
 *
 * Constants are kept in frame 32: bit j is x^(32-j), i.e. the reflected
 * 32-bit residue shifted left by one (kf32()).  A 128-bit block whose low
 * lane (the first 8 bytes in memory, higher degree) has frame 127+D and high
 * lane frame 63+D, folded onto a block D bits later (frame 127), needs
 *   low lane:  K = x^(127+D+32-127) = x^(D+32) mod P,
 *   high lane: K = x^(63+D+32-127)  = x^(D-32) mod P.
 * kfold[D/128] holds the pair for D = 128 .. 2048.  The main loops fold each
 * accumulator over the others (D = 512 for four xmm, 1024 for four ymm,
 * 2048 for four zmm);
 * the accumulators and then the 128-bit lanes of the last one are folded
 * together in parallel, each by its own distance to the last block.
 *
 * Final reduction of the last block V (frame 127) to V*x^32 mod P, which is
 * the CRC register: read V as frame 159, fold its low lane into its high lane
 * (frame 95: K = x^(159+32-95) = x^96), fold the top 32 bits of the 96 left
 * into the lower 64 (frame 63: K = x^(95+32-63) = x^64), then Barrett:
 * q = floor(floor(T/x^32) * mu / x^32) with mu = floor(x^64 / P), and
 * T mod P = (T + q*P) mod x^32; mu and P (33 bits each) are kept in frame 32.
 */
static struct {
	uint64_t kfold[17][2];   /* [D/128]: x^(D+32), x^(D-32) */
	uint64_t r96, r64;       /* x^96, x^64 */
	uint64_t mu, poly;       /* floor(x^64/P), P */
} kc;

/* CRC-32C stream lengths (bytes per stream) and the multipliers that shift a
 * register over n bytes (frame 31: K = x^(8n-33) mod P, see crc32c_shift2()). */
static const size_t c_blk[3] = { 2048, 256, 64 };
static uint64_t c_k1[3], c_k2[3];

static uint32_t rev32(uint32_t v)
{
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

/* x^n mod P in the normal (non-reflected) bit order: bit i is x^i. */
static uint32_t xpow_mod(uint64_t n, uint32_t poly_norm)
{
	uint32_t r = 1;
	while (n--)
		r = (r << 1) ^ ((r & 0x80000000u) ? poly_norm : 0);
	return r;
}

static uint64_t kf32(uint64_t n, uint32_t poly_norm)
{
	return (uint64_t)rev32(xpow_mod(n, poly_norm)) << 1;
}

/* A 33-bit normal-order polynomial (bit i = x^i) in frame 32. */
static uint64_t rev33(uint64_t v)
{
	uint64_t r = 0;
	for (int i = 0; i <= 32; i++)
		r |= ((v >> i) & 1u) << (32 - i);
	return r;
}

static void clmul_consts_init(void)
{
	uint32_t pn = rev32(CRC32_POLY_REFL);
	uint64_t p33 = (uint64_t)1 << 32 | pn;

	for (int i = 1; i <= 16; i++) {
		kc.kfold[i][0] = kf32(128 * (uint64_t)i + 32, pn);
		kc.kfold[i][1] = kf32(128 * (uint64_t)i - 32, pn);
	}
	kc.r96 = kf32(96, pn);
	kc.r64 = kf32(64, pn);
	kc.poly = rev33(p33);

	/* mu = floor(x^64 / P) by long division. */
	unsigned __int128 rem = (unsigned __int128)1 << 64;
	uint64_t q = 0;
	for (int d = 64; d >= 32; d--) {
		if ((rem >> d) & 1) {
			q |= (uint64_t)1 << (d - 32);
			rem ^= (unsigned __int128)p33 << (d - 32);
		}
	}
	kc.mu = rev33(q);

	uint32_t cn = rev32(CRC32C_POLY_REFL);
	for (int i = 0; i < 3; i++) {
		c_k1[i] = rev32(xpow_mod(8 * c_blk[i] - 33, cn));
		c_k2[i] = rev32(xpow_mod(16 * c_blk[i] - 33, cn));
	}
}

__attribute__((target("pclmul,sse2")))
static inline __m128i kfold128(int d128)
{
	return _mm_set_epi64x((long long)kc.kfold[d128][1], (long long)kc.kfold[d128][0]);
}

/* x moved D bits forward (by k = kfold128(D/128)), plus next. */
__attribute__((target("pclmul,sse2")))
static inline __m128i fold(__m128i x, __m128i k, __m128i next)
{
	__m128i a = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i b = _mm_clmulepi64_si128(x, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(a, b), next);
}

/* pshufb masks for a shift by r bytes, r = 1..15: shufmask + r moves byte
 * k to k + 16 - r (the first r bytes to the top, zeros below); shufmask +
 * 16 + r moves byte k + r to k (zeros on top).  topmask + r keeps the top r
 * bytes. */
static const uint8_t shufmask[48] = {
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};
static const uint8_t topmask[32] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* 16 message bytes at p, OR-ed with the mask bytes at m unless m is NULL
 * (a constant in every caller once inlined: the unmasked paths keep plain
 * loads). */
__attribute__((target("sse2")))
static inline __m128i ld128(const uint8_t *p, const uint8_t *m)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	return m ? _mm_or_si128(v, _mm_loadu_si128((const __m128i *)m)) : v;
}

/* The end shared by the carry-less paths: x0 holds the message so far (at
 * least 16 bytes, folded, the register already added in); fold in the
 * remaining 16-byte blocks and the last 0..15 bytes, and reduce.  m: the
 * mask bytes matching p, or NULL.
 *
 * The last r bytes T: x0 = a0..a15 followed by T is the 16 + r bytes
 * (16 - r zero bytes) a0..a(r-1) || a(r)..a15 T, two blocks, the first
 * folded 128 bits onto the second.  T is read as the top r bytes of the
 * buffer's last 16 (they overlap what was folded already, which is masked
 * off), so nothing is read outside the buffer. */
__attribute__((target("pclmul,ssse3,sse2"), always_inline))
static inline uint32_t clmul_finish(__m128i x0, const uint8_t *p, size_t len, const uint8_t *m)
{
	const __m128i k = kfold128(1);
	while (len >= 16) {
		x0 = fold(x0, k, ld128(p, m));
		p += 16;
		m = m ? m + 16 : NULL;
		len -= 16;
	}
	if (len) {
		__m128i last = ld128(p + len - 16, m ? m + len - 16 : NULL);
		__m128i hi = _mm_shuffle_epi8(x0, _mm_loadu_si128((const __m128i *)(shufmask + len)));
		__m128i lo = _mm_shuffle_epi8(x0, _mm_loadu_si128((const __m128i *)(shufmask + 16 + len)));

		lo = _mm_or_si128(lo, _mm_and_si128(last, _mm_loadu_si128((const __m128i *)(topmask + len))));
		x0 = fold(hi, k, lo);
	}

	const __m128i m32 = _mm_set_epi32(0, 0, 0, -1);
	/* 128 -> 96 bits (frame 95, bits 0..95) */
	__m128i t = _mm_clmulepi64_si128(x0, _mm_cvtsi64_si128((long long)kc.r96), 0x00);
	t = _mm_xor_si128(t, _mm_srli_si128(x0, 8));
	/* 96 -> 64 bits (frame 63, bits 0..63) */
	__m128i u = _mm_clmulepi64_si128(_mm_and_si128(t, m32),
					 _mm_cvtsi64_si128((long long)kc.r64), 0x00);
	u = _mm_xor_si128(u, _mm_srli_si128(t, 4));
	/* Barrett: q in bits 0..31, remainder in bits 32..63 */
	__m128i q = _mm_clmulepi64_si128(_mm_and_si128(u, m32),
					 _mm_cvtsi64_si128((long long)kc.mu), 0x00);
	q = _mm_clmulepi64_si128(_mm_and_si128(q, m32),
				 _mm_cvtsi64_si128((long long)kc.poly), 0x00);
	u = _mm_xor_si128(u, q);
	return ~(uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(u, 4));
}

/* m: NULL, or 64 mask bytes OR-ed into the first 64 message bytes. */
__attribute__((target("pclmul,ssse3,sse2"), always_inline))
static inline uint32_t pclmul_body(uint32_t crc, const uint8_t *p, size_t len, const uint8_t *m)
{
	if (len < 16)
		return m ? crc32_slice8_or(crc, p, len, m) : crc32_slice8(crc, p, len);
	/* The inverted register joins the first 32 message bits. */
	__m128i x0 = _mm_xor_si128(ld128(p, m), _mm_cvtsi32_si128((int)~crc));
	if (len < 64)   /* one accumulator: the RoCE headers are 40..60 bytes */
		return clmul_finish(x0, p + 16, len - 16, m ? m + 16 : NULL);

	__m128i x1 = ld128(p + 16, m ? m + 16 : NULL);
	__m128i x2 = ld128(p + 32, m ? m + 32 : NULL);
	__m128i x3 = ld128(p + 48, m ? m + 48 : NULL);
	p += 64;
	len -= 64;

	__m128i k = kfold128(4);
	while (len >= 64) {
		x0 = fold(x0, k, _mm_loadu_si128((const __m128i *)p));
		x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)(p + 16)));
		x2 = fold(x2, k, _mm_loadu_si128((const __m128i *)(p + 32)));
		x3 = fold(x3, k, _mm_loadu_si128((const __m128i *)(p + 48)));
		p += 64;
		len -= 64;
	}

	x0 = fold(x0, kfold128(3), fold(x1, kfold128(2), fold(x2, kfold128(1), x3)));
	return clmul_finish(x0, p, len, NULL);   /* the last 0..63 bytes are past the mask */
}

__attribute__((target("pclmul,ssse3,sse2")))
static uint32_t crc32_pclmul(uint32_t crc, const void *buf, size_t len)
{
	return pclmul_body(crc, buf, len, NULL);
}

__attribute__((target("pclmul,ssse3,sse2")))
static uint32_t crc32_pclmul_or(uint32_t crc, const void *buf, size_t len, const uint8_t *mask)
{
	return pclmul_body(crc, buf, len, mask);
}

/* ---- CRC-32 with VPCLMULQDQ on 256-bit registers (AVX2) ----------------------
 * Four ymm accumulators cover 128 bytes, so each folds D = 1024 bits; what
 * is left after them is folded 32 bytes at a time into one ymm, so that at
 * most one 16-byte fold and the last 0..15 bytes remain for clmul_finish()
 * (16-byte folds, one after the other, are latency-bound). */

__attribute__((target("avx2,vpclmulqdq,pclmul,ssse3")))
static inline __m256i yfold(__m256i x, int d128, __m256i next)
{
	const __m256i k = _mm256_broadcastsi128_si256(kfold128(d128));
	return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
						 _mm256_clmulepi64_epi128(x, k, 0x11)), next);
}

__attribute__((target("avx2,vpclmulqdq,pclmul,ssse3")))
static inline __m256i ld256(const uint8_t *p, const uint8_t *m)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)p);
	return m ? _mm256_or_si256(v, _mm256_loadu_si256((const __m256i *)m)) : v;
}

__attribute__((target("avx2,vpclmulqdq,pclmul,ssse3"), always_inline))
static inline uint32_t avx2_body(uint32_t crc, const uint8_t *p, size_t len, const uint8_t *m)
{
	if (len < 128)
		return pclmul_body(crc, p, len, m);

	__m256i y0 = ld256(p, m);
	__m256i y1 = ld256(p + 32, m ? m + 32 : NULL);
	__m256i y2 = _mm256_loadu_si256((const __m256i *)(p + 64));
	__m256i y3 = _mm256_loadu_si256((const __m256i *)(p + 96));
	y0 = _mm256_xor_si256(y0, _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)~crc)));
	p += 128;
	len -= 128;

	while (len >= 128) {
		y0 = yfold(y0, 8, _mm256_loadu_si256((const __m256i *)p));
		y1 = yfold(y1, 8, _mm256_loadu_si256((const __m256i *)(p + 32)));
		y2 = yfold(y2, 8, _mm256_loadu_si256((const __m256i *)(p + 64)));
		y3 = yfold(y3, 8, _mm256_loadu_si256((const __m256i *)(p + 96)));
		p += 128;
		len -= 128;
	}

	/* y0, y1, y2 lie 768, 512, 256 bits before y3 */
	y3 = yfold(y0, 6, yfold(y1, 4, yfold(y2, 2, y3)));
	while (len >= 32) {
		y3 = yfold(y3, 2, _mm256_loadu_si256((const __m256i *)p));
		p += 32;
		len -= 32;
	}
	/* its low lane lies 128 bits before its high lane */
	__m128i x0 = fold(_mm256_castsi256_si128(y3), kfold128(1), _mm256_extracti128_si256(y3, 1));
	_mm256_zeroupper();   /* see vpclmul_body() */
	return clmul_finish(x0, p, len, NULL);
}

__attribute__((target("avx2,vpclmulqdq,pclmul,ssse3")))
static uint32_t crc32_vpclmul_avx2(uint32_t crc, const void *buf, size_t len)
{
	return avx2_body(crc, buf, len, NULL);
}

__attribute__((target("avx2,vpclmulqdq,pclmul,ssse3")))
static uint32_t crc32_vpclmul_avx2_or(uint32_t crc, const void *buf, size_t len, const uint8_t *mask)
{
	return avx2_body(crc, buf, len, mask);
}

/* ---- CRC-32 with VPCLMULQDQ on 512-bit registers ----------------------------
 * The same folding, four 128-bit blocks per instruction: four zmm
 * accumulators cover 256 bytes, so each folds D = 2048 bits forward; what
 * is left after them is folded 64 bytes at a time into one zmm. */

#define ZFOLD(x, k, next) _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128((x), (k), 0x00), \
	_mm512_clmulepi64_epi128((x), (k), 0x11), (next), 0x96)   /* a ^ b ^ c */

__attribute__((target("avx512f,vpclmulqdq,pclmul,ssse3")))
static inline __m512i kfold512(int d128)
{
	return _mm512_broadcast_i32x4(kfold128(d128));
}

__attribute__((target("avx512f,vpclmulqdq,pclmul,ssse3"), always_inline))
static inline uint32_t vpclmul_body(uint32_t crc, const uint8_t *p, size_t len, const uint8_t *m)
{
	if (len < 256)
		return pclmul_body(crc, p, len, m);

	__m512i z0 = _mm512_loadu_si512(p);
	__m512i z1 = _mm512_loadu_si512(p + 64);
	__m512i z2 = _mm512_loadu_si512(p + 128);
	__m512i z3 = _mm512_loadu_si512(p + 192);
	if (m)
		z0 = _mm512_or_si512(z0, _mm512_loadu_si512(m));
	z0 = _mm512_xor_si512(z0, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)~crc)));
	p += 256;
	len -= 256;

	__m512i k = kfold512(16);
	while (len >= 256) {
		z0 = ZFOLD(z0, k, _mm512_loadu_si512(p));
		z1 = ZFOLD(z1, k, _mm512_loadu_si512(p + 64));
		z2 = ZFOLD(z2, k, _mm512_loadu_si512(p + 128));
		z3 = ZFOLD(z3, k, _mm512_loadu_si512(p + 192));
		p += 256;
		len -= 256;
	}

	/* z0, z1, z2 lie 1536, 1024, 512 bits before z3. */
	z3 = ZFOLD(z2, kfold512(4), z3);
	z3 = ZFOLD(z1, kfold512(8), z3);
	z3 = ZFOLD(z0, kfold512(12), z3);
	k = kfold512(4);
	while (len >= 64) {
		z3 = ZFOLD(z3, k, _mm512_loadu_si512(p));
		p += 64;
		len -= 64;
	}
	/* Its lanes 0, 1, 2 lie 384, 256, 128 bits before lane 3, whose
	 * multiplier is 0 (it is added as it is). */
	const __m512i kl = _mm512_set_epi64(0, 0,
		(long long)kc.kfold[1][1], (long long)kc.kfold[1][0],
		(long long)kc.kfold[2][1], (long long)kc.kfold[2][0],
		(long long)kc.kfold[3][1], (long long)kc.kfold[3][0]);
	__m512i t = _mm512_xor_si512(_mm512_clmulepi64_epi128(z3, kl, 0x00),
				     _mm512_clmulepi64_epi128(z3, kl, 0x11));
	__m128i x0 = _mm_xor_si128(_mm_xor_si128(_mm512_extracti32x4_epi32(t, 0),
						 _mm512_extracti32x4_epi32(t, 1)),
				   _mm_xor_si128(_mm512_extracti32x4_epi32(t, 2),
						 _mm512_extracti32x4_epi32(z3, 3)));
	/* GCC does not always add it: without it every later legacy-SSE
	 * instruction (here and in the caller) waits on the dirty upper halves. */
	_mm256_zeroupper();
	return clmul_finish(x0, p, len, NULL);
}

__attribute__((target("avx512f,vpclmulqdq,pclmul,ssse3")))
static uint32_t crc32_vpclmul(uint32_t crc, const void *buf, size_t len)
{
	return vpclmul_body(crc, buf, len, NULL);
}

__attribute__((target("avx512f,vpclmulqdq,pclmul,ssse3")))
static uint32_t crc32_vpclmul_or(uint32_t crc, const void *buf, size_t len, const uint8_t *mask)
{
	return vpclmul_body(crc, buf, len, mask);
}

/* ---- CRC-32C with the SSE4.2 crc32 instruction ----------------------------- */

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);   /* x86 only: little-endian, unaligned loads are fine */
	return v;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t c = (uint32_t)~crc;

	while (len >= 8) {
		c = _mm_crc32_u64(c, ld64(p));
		p += 8;
		len -= 8;
	}
	uint32_t c32 = (uint32_t)c;
	while (len--)
		c32 = _mm_crc32_u8(c32, *p++);
	return ~c32;
}

/*
 * The crc32 instruction maps register r and 8 data bytes D (frame 63) to
 * (r*x^64 + D*x^32) mod P.  With r = 0 it reduces a 64-bit D*x^32; so a
 * register c (frame 31) times K (frame 31) gives a product of frame 62, read
 * as frame 63 it is c*K*x, and reduced it is c*K*x^33 mod P: the shift by n
 * bytes, c*x^(8n), takes K = x^(8n-33) mod P.  Two shifted registers are
 * summed before the single reduction (it is linear).
 */
__attribute__((target("sse4.2,pclmul")))
static inline uint32_t crc32c_shift2(uint32_t a, uint64_t ka, uint32_t b, uint64_t kb)
{
	__m128i pa = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a), _mm_cvtsi64_si128((long long)ka), 0);
	__m128i pb = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)b), _mm_cvtsi64_si128((long long)kb), 0);
	return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(pa, pb)));
}

__attribute__((target("sse4.2,pclmul")))
static uint32_t crc32c_sse42_3way(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t c0 = (uint32_t)~crc;

	/* Registers of A||B||C: shift(reg(A), |B|+|C|) ^ shift(reg0(B), |C|) ^ reg0(C). */
	for (int t = 0; t < 3; t++) {
		const size_t n = c_blk[t];
		while (len >= 3 * n) {
			uint64_t c1 = 0, c2 = 0;
			const uint8_t *end = p + n;
			do {
				c0 = _mm_crc32_u64(c0, ld64(p));
				c1 = _mm_crc32_u64(c1, ld64(p + n));
				c2 = _mm_crc32_u64(c2, ld64(p + 2 * n));
				p += 8;
			} while (p < end);
			c0 = crc32c_shift2((uint32_t)c0, c_k2[t], (uint32_t)c1, c_k1[t]) ^ c2;
			p += 2 * n;
			len -= 3 * n;
		}
	}
	while (len >= 8) {
		c0 = _mm_crc32_u64(c0, ld64(p));
		p += 8;
		len -= 8;
	}
	uint32_t c32 = (uint32_t)c0;
	while (len--)
		c32 = _mm_crc32_u8(c32, *p++);
	return ~c32;
}
#endif /* CRC_X86 */

/* ---- dispatch --------------------------------------------------------------- */

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);
typedef uint32_t (*crc_or_fn)(uint32_t, const void *, size_t, const uint8_t *);

struct crc_impl {
	crc_fn fn;
	const char *name;
	int usable;               /* set by crc_init() from the CPU's features */
	crc_or_fn or_fn;          /* roce__crc32_or() (CRC-32 only) */
};

/* In order of preference, the portable one first. */
static struct crc_impl impls32[] = {
	{ crc32_slice8, "slice8", 1, crc32_slice8_or },
#ifdef CRC_X86
	{ crc32_pclmul, "pclmul", 0, crc32_pclmul_or },
	{ crc32_vpclmul_avx2, "vpclmul-avx2", 0, crc32_vpclmul_avx2_or },
	{ crc32_vpclmul, "vpclmul", 0, crc32_vpclmul_or },
#endif
};
static struct crc_impl impls32c[] = {
	{ crc32c_slice8, "slice8", 1, NULL },
#ifdef CRC_X86
	{ crc32c_sse42, "sse4.2x1", 0, NULL },   /* one stream, when PCLMULQDQ is missing */
	{ crc32c_sse42_3way, "sse4.2", 0, NULL },
#endif
};
#define NIMPL(a) (sizeof (a) / sizeof (a)[0])

static const struct crc_impl *best32, *best32c;
static const struct crc_impl *cur32, *cur32c;   /* NULL until crc_init() */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static const struct crc_impl *best_of(const struct crc_impl *v, size_t n)
{
	while (!v[n - 1].usable)
		n--;
	return &v[n - 1];
}

static void crc_init(void)
{
	slice8_tables(tab32, CRC32_POLY_REFL);
	slice8_tables(tab32c, CRC32C_POLY_REFL);
#ifdef CRC_X86
	__builtin_cpu_init();
	/* every CPU with PCLMULQDQ has SSSE3 (pshufb, for the last 0..15 bytes) */
	int pclmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3");
	int sse42 = __builtin_cpu_supports("sse4.2");
	if (pclmul)
		clmul_consts_init();
	impls32[1].usable = pclmul;
	int vpclmul = pclmul && __builtin_cpu_supports("vpclmulqdq");
	impls32[2].usable = vpclmul && __builtin_cpu_supports("avx2");
	impls32[3].usable = vpclmul && __builtin_cpu_supports("avx512f");
	impls32c[1].usable = sse42;
	impls32c[2].usable = sse42 && pclmul;
#endif
	best32 = best_of(impls32, NIMPL(impls32));
	best32c = best_of(impls32c, NIMPL(impls32c));
	__atomic_store_n(&cur32, best32, __ATOMIC_RELEASE);
	__atomic_store_n(&cur32c, best32c, __ATOMIC_RELEASE);
}

__attribute__((constructor))
static void crc_ctor(void)
{
	pthread_once(&crc_once, crc_init);
}

/* Normally the constructor has run; the slow path covers calls made from
 * other constructors before it. */
static inline const struct crc_impl *impl_get(const struct crc_impl **slot)
{
	const struct crc_impl *i = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (__builtin_expect(i == NULL, 0)) {
		pthread_once(&crc_once, crc_init);
		i = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	}
	return i;
}

uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len)
{
	if (!len)
		return crc;
	return impl_get(&cur32)->fn(crc, buf, len);
}

/* For icrc.c (declared there too; not in roce.h): CRC-32 of buf with
 * its first min(len, 64) bytes OR-ed with mask[] -- the RoCE ICRC's
 * "fields set to ones" -- in one pass over the frame, without a copy. */
uint32_t roce__crc32_or(uint32_t crc, const void *buf, size_t len, const uint8_t mask[64]);

uint32_t roce__crc32_or(uint32_t crc, const void *buf, size_t len, const uint8_t mask[64])
{
	if (!len)
		return crc;
	return impl_get(&cur32)->or_fn(crc, buf, len, mask);
}

uint32_t roce_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (!len)
		return crc;
	return impl_get(&cur32c)->fn(crc, buf, len);
}

uint32_t roce_crc32_portable(uint32_t crc, const void *buf, size_t len)
{
	if (!len)
		return crc;
	impl_get(&cur32);
	return crc32_slice8(crc, buf, len);
}

uint32_t roce_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
	if (!len)
		return crc;
	impl_get(&cur32c);
	return crc32c_slice8(crc, buf, len);
}

const char *roce_crc32_impl(void)
{
	return impl_get(&cur32)->name;
}

const char *roce_crc32c_impl(void)
{
	return impl_get(&cur32c)->name;
}

void roce_crc_force_portable(int on)
{
	pthread_once(&crc_once, crc_init);
	__atomic_store_n(&cur32, on ? &impls32[0] : best32, __ATOMIC_RELEASE);
	__atomic_store_n(&cur32c, on ? &impls32c[0] : best32c, __ATOMIC_RELEASE);
}

/* Test and benchmark hook (not in roce.h): selects an implementation by the
 * name roce_crc32_impl() / roce_crc32c_impl() would give; NULL keeps the
 * current one.  ROCE_EUNSUP when the name is unknown or the CPU lacks it. */
int roce__crc_select(const char *crc32_name, const char *crc32c_name);

static const struct crc_impl *find_impl(const struct crc_impl *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].usable && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

int roce__crc_select(const char *crc32_name, const char *crc32c_name)
{
	const struct crc_impl *a = NULL, *b = NULL;

	pthread_once(&crc_once, crc_init);
	if ((crc32_name && !(a = find_impl(impls32, NIMPL(impls32), crc32_name))) ||
	    (crc32c_name && !(b = find_impl(impls32c, NIMPL(impls32c), crc32c_name))))
		return ROCE_EUNSUP;
	if (a)
		__atomic_store_n(&cur32, a, __ATOMIC_RELEASE);
	if (b)
		__atomic_store_n(&cur32c, b, __ATOMIC_RELEASE);
	return ROCE_OK;
}
