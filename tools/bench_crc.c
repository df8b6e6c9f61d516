/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_crc — throughput of the CRC implementations and of the RoCE ICRC.
 *
 * One line per measurement: name, GB/s (1e9 bytes per second), ratio.  CRC-32
 * lines are compared with zlib's crc32() on the same buffer size, CRC-32C
 * lines with the portable table-driven CRC-32C, the ICRC with zlib on 1 KiB
 * buffers.  Each runs for about 0.3 s (the best of three 0.1 s runs).  Lines
 * with an implementation in brackets show the other accelerated
 * implementations this CPU has, for information.
 *
 * Exits 1 when a target is missed: accelerated CRC-32 under 3x zlib,
 * accelerated CRC-32C not faster than the table, or the ICRC of a 1078-byte
 * RoCEv2 frame under 3x zlib.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "roce.h"

#define RUN_SECONDS 0.3
#define BIG   (1u << 20)
#define SMALL 1024u
#define SMALL_SPAN (256u << 10)   /* 1 KiB buffers walk a 256 KiB region */

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

/* lib/crc.c's test and benchmark hook (not in roce.h). */
int roce__crc_select(const char *crc32_name, const char *crc32c_name);

static volatile uint32_t sink;
static uint8_t frame[1082];       /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + 1024 + ICRC 4 */
#define L3_OFF 14
#define ICRC_LEN (sizeof frame - L3_OFF - 4)   /* IP header .. end of payload: 1064 */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t zlib_crc32(uint32_t crc, const void *buf, size_t len)
{
	return (uint32_t)crc32(crc, buf, (uInt)len);
}

static uint32_t icrc_frame(uint32_t crc, const void *buf, size_t len)
{
	(void)crc;
	return roce_icrc_raw(0, (const uint8_t *)buf + L3_OFF, len);
}

/* GB/s of f over buf: whole buffers of `chunk` bytes laid end to end over
 * `span` bytes, independent calls (as packets are).  The best of RUNS runs
 * of RUN_SECONDS / RUNS each, so that a neighbour taking the core for a
 * moment does not count as our slowness. */
#define RUNS 3
static double measure(crc_fn f, const uint8_t *buf, size_t span, size_t chunk)
{
	size_t per_batch = span / chunk;
	size_t reps = span < SMALL_SPAN ? SMALL_SPAN / span : 1;   /* keep now() out of the figure */
	uint32_t acc = 0;
	double best = 0;

	for (size_t i = 0; i < per_batch; i++)   /* warm caches and branch predictors */
		acc ^= f(0, buf + i * chunk, chunk);
	for (int run = 0; run < RUNS; run++) {
		size_t calls = 0;
		double t, t0 = now();
		do {
			for (size_t r = 0; r < reps; r++)
				for (size_t i = 0; i < per_batch; i++)
					acc ^= f(0, buf + i * chunk, chunk);
			calls += reps * per_batch;
			t = now() - t0;
		} while (t < RUN_SECONDS / RUNS);
		double gbs = (double)calls * (double)chunk / t / 1e9;
		if (gbs > best)
			best = gbs;
	}
	sink ^= acc;
	return best;
}

static void report(const char *name, double gbs, double base)
{
	printf("%-24s %8.2f  %6.2fx\n", name, gbs, gbs / base);
}

/* A RoCEv2 RC SEND Only with 1024 bytes of payload (IBTA 9.2; annex A17). */
static void build_frame(void)
{
	uint8_t *e = frame, *ip = frame + L3_OFF, *udp = ip + 20, *bth = udp + 8;
	uint32_t sum = 0;

	memcpy(e, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	memcpy(ip, "\x45\x02\x04\x28\x12\x34\x40\x00\x40\x11\x00\x00"
		   "\xc0\xa8\x01\x01\xc0\xa8\x01\x02", 20);   /* ECT(0), DF, TTL 64, UDP */
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	memcpy(udp, "\xc3\x50\x12\xb7\x04\x14\x00\x00", 8);   /* 50000 -> 4791, len 1044 */
	memcpy(bth, "\x04\x00\xff\xff\x00\x00\x00\x11\x80\x00\x10\x00", 12); /* SEND Only, QP 0x11 */
	for (size_t i = 0; i < 1024; i++)
		bth[12 + i] = (uint8_t)(i * 7 + 3);
	uint32_t icrc = roce_icrc_raw(0, ip, ICRC_LEN);
	for (int i = 0; i < 4; i++)
		frame[sizeof frame - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));
}

int main(void)
{
	uint8_t *buf = malloc(BIG);
	int fail = 0;

	if (!buf) {
		fprintf(stderr, "bench_crc: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < BIG; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);
	build_frame();

	printf("# crc32: %s, crc32c: %s; GB/s = 1e9 B/s\n", roce_crc32_impl(), roce_crc32c_impl());
	printf("%-24s %8s  %7s\n", "name", "GB/s", "ratio");

	const struct { size_t span, chunk; const char *tag; } sz[] = {
		{ BIG, BIG, "1MiB" }, { SMALL_SPAN, SMALL, "1KiB" },
	};
	double zlib1k = 0;
	for (size_t s = 0; s < 2; s++) {
		char name[64];
		double z = measure(zlib_crc32, buf, sz[s].span, sz[s].chunk);
		double a = measure(roce_crc32, buf, sz[s].span, sz[s].chunk);
		double p = measure(roce_crc32_portable, buf, sz[s].span, sz[s].chunk);
		double ca = measure(roce_crc32c, buf, sz[s].span, sz[s].chunk);
		double cp = measure(roce_crc32c_portable, buf, sz[s].span, sz[s].chunk);

		snprintf(name, sizeof name, "zlib_crc32/%s", sz[s].tag);
		report(name, z, z);
		snprintf(name, sizeof name, "crc32/%s", sz[s].tag);
		report(name, a, z);
		snprintf(name, sizeof name, "crc32_portable/%s", sz[s].tag);
		report(name, p, z);
		snprintf(name, sizeof name, "crc32c/%s", sz[s].tag);
		report(name, ca, cp);
		snprintf(name, sizeof name, "crc32c_portable/%s", sz[s].tag);
		report(name, cp, cp);

		if (a < 3 * z) {
			fprintf(stderr, "bench_crc: MISS: crc32/%s is %.2fx zlib, target 3x\n",
				sz[s].tag, a / z);
			fail = 1;
		}
		if (ca <= cp) {
			fprintf(stderr, "bench_crc: MISS: crc32c/%s is %.2fx the table, target > 1x\n",
				sz[s].tag, ca / cp);
			fail = 1;
		}

		/* The accelerated implementations that were not chosen. */
		static const char *const alt32[] = { "pclmul", "vpclmul-avx2", "vpclmul" };
		static const char *const alt32c[] = { "sse4.2x1", "sse4.2" };
		for (size_t i = 0; i < sizeof alt32 / sizeof alt32[0]; i++) {
			if (strcmp(alt32[i], roce_crc32_impl()) &&
			    roce__crc_select(alt32[i], NULL) == ROCE_OK) {
				snprintf(name, sizeof name, "crc32[%s]/%s", alt32[i], sz[s].tag);
				report(name, measure(roce_crc32, buf, sz[s].span, sz[s].chunk), z);
			}
			roce_crc_force_portable(0);
		}
		for (size_t i = 0; i < sizeof alt32c / sizeof alt32c[0]; i++) {
			if (strcmp(alt32c[i], roce_crc32c_impl()) &&
			    roce__crc_select(NULL, alt32c[i]) == ROCE_OK) {
				snprintf(name, sizeof name, "crc32c[%s]/%s", alt32c[i], sz[s].tag);
				report(name, measure(roce_crc32c, buf, sz[s].span, sz[s].chunk), cp);
			}
			roce_crc_force_portable(0);
		}
		if (sz[s].chunk == SMALL)
			zlib1k = z;
	}

	/* Short buffers: the masked RoCE headers are 40..60 bytes. */
	{
		double z = measure(zlib_crc32, buf, 48 * 4096, 48);
		double a = measure(roce_crc32, buf, 48 * 4096, 48);

		report("zlib_crc32/48B", z, z);
		report("crc32/48B", a, z);
		printf("%-24s %8.1f ns per call (zlib %.1f)\n", "crc32/48B", 48 / a, 48 / z);
	}

	/* The ICRC over the 1064 bytes from the IP header to the end of the
	 * payload (the 8-byte LRH placeholder is not counted); and over the 44
	 * of an RC ACK (IPv4, UDP, BTH, AETH). */
	double ic = measure(icrc_frame, frame, ICRC_LEN, ICRC_LEN);
	report("icrc/rocev2-1078B", ic, zlib1k);
	printf("%-24s %8.1f ns per frame\n", "icrc/rocev2-1078B", ICRC_LEN / ic);
	double ia = measure(icrc_frame, frame, 44, 44);
	printf("%-24s %8.1f ns per frame\n", "icrc/rocev2-ack-58B", 44 / ia);
	if (ic < 3 * zlib1k) {
		fprintf(stderr, "bench_crc: MISS: icrc is %.2fx zlib (1 KiB), target 3x\n", ic / zlib1k);
		fail = 1;
	}

	free(buf);
	return fail;
}
