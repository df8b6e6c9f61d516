/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_decode — the decode-only rate of libroce against a bare libpcap read
 * loop over the same file, measured in the same run.
 *
 *   bench_decode OUT.pcap FRAMES SOURCE.pcap...
 *
 * Writes OUT.pcap holding FRAMES frames cycled from the RoCE frames of the
 * sources (real rxe captures), then times, best of five passes each:
 *   bare:   pcap_next_ex() over the file, touching each frame's first byte
 *   decode: the same loop plus roce_decode() of every frame
 * and prints frames/s, ns/frame and the ratio decode/bare.  Target: decoding
 * adds at most 30% (ratio <= 1.30); exit status 1 when missed.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "roce.h"

struct frame {
	uint8_t *data;
	uint32_t len;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t load_roce_frames(char **files, int n, struct frame **out)
{
	size_t cnt = 0, cap = 0;
	char err[PCAP_ERRBUF_SIZE];

	for (int i = 0; i < n; i++) {
		struct pcap_pkthdr *h;
		const u_char *d;
		pcap_t *pc = pcap_open_offline(files[i], err);

		if (!pc) {
			fprintf(stderr, "bench_decode: %s: %s\n", files[i], err);
			exit(2);
		}
		while (pcap_next_ex(pc, &h, &d) == 1) {
			struct roce_pkt p;

			if (pcap_datalink(pc) != DLT_EN10MB || h->caplen != h->len)
				continue;
			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, d, h->caplen, h->len);
			if (p.version == ROCE_VER_NONE)
				continue;
			if (cnt == cap) {
				cap = cap ? cap * 2 : 1024;
				*out = realloc(*out, cap * sizeof **out);
				if (!*out)
					exit(2);
			}
			(*out)[cnt].data = malloc(h->caplen);
			if (!(*out)[cnt].data)
				exit(2);
			memcpy((*out)[cnt].data, d, h->caplen);
			(*out)[cnt].len = h->caplen;
			cnt++;
		}
		pcap_close(pc);
	}
	return cnt;
}

static void write_capture(const char *path, const struct frame *src, size_t nsrc, long frames,
			  uint64_t *bytes)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *dp = pcap_dump_open(dead, path);

	if (!dp) {
		fprintf(stderr, "bench_decode: %s: %s\n", path, pcap_geterr(dead));
		exit(2);
	}
	*bytes = 0;
	for (long i = 0; i < frames; i++) {
		const struct frame *f = &src[(size_t)i % nsrc];
		struct pcap_pkthdr h = { .caplen = f->len, .len = f->len };

		h.ts.tv_sec = 1700000000 + i / 1000000;
		h.ts.tv_usec = i % 1000000;
		pcap_dump((u_char *)dp, &h, f->data);
		*bytes += f->len;
	}
	pcap_dump_close(dp);
	pcap_close(dead);
}

static volatile uint64_t sink;

static double pass(const char *path, int decode, long *frames)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t acc = 0;
	long n = 0;
	double t0;
	pcap_t *pc = pcap_open_offline(path, err);

	if (!pc) {
		fprintf(stderr, "bench_decode: %s: %s\n", path, err);
		exit(2);
	}
	t0 = now();
	if (decode) {
		while (pcap_next_ex(pc, &h, &d) == 1) {
			struct roce_pkt p;

			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, d, h->caplen, h->len);
			acc += p.psn + p.opcode + d[0];
			n++;
		}
	} else {
		while (pcap_next_ex(pc, &h, &d) == 1) {
			acc += h->caplen + d[0];
			n++;
		}
	}
	t0 = now() - t0;
	pcap_close(pc);
	sink += acc;
	*frames = n;
	return t0;
}

int main(int argc, char **argv)
{
	struct frame *src = NULL;
	double best[2] = { 1e30, 1e30 };
	uint64_t bytes;
	long frames, n;
	size_t nsrc;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_decode OUT.pcap FRAMES SOURCE.pcap...\n");
		return 2;
	}
	frames = strtol(argv[2], NULL, 10);
	nsrc = load_roce_frames(argv + 3, argc - 3, &src);
	if (!nsrc || frames <= 0) {
		fprintf(stderr, "bench_decode: no RoCE frames in the sources\n");
		return 2;
	}
	write_capture(argv[1], src, nsrc, frames, &bytes);
	printf("decode bench: %ld frames (%zu distinct rxe frames cycled), %.1f MB, %s\n", frames,
	       nsrc, (double)bytes / 1e6, argv[1]);
	/* warm the page cache, then alternate the two loops */
	pass(argv[1], 0, &n);
	for (int r = 0; r < 5; r++)
		for (int k = 0; k < 2; k++) {
			double t = pass(argv[1], k, &n);
			if (n != frames) {
				fprintf(stderr, "bench_decode: read %ld frames, wrote %ld\n", n, frames);
				return 2;
			}
			if (t < best[k])
				best[k] = t;
		}
	printf("  %-28s %10.2f Mframes/s  %7.1f ns/frame\n", "bare libpcap read loop",
	       frames / best[0] / 1e6, best[0] * 1e9 / frames);
	printf("  %-28s %10.2f Mframes/s  %7.1f ns/frame\n", "read loop + roce_decode",
	       frames / best[1] / 1e6, best[1] * 1e9 / frames);
	printf("  decode/bare time ratio %.3f (decoding adds %.1f%%; target <= 30%%) %s\n",
	       best[1] / best[0], (best[1] / best[0] - 1) * 100,
	       best[1] / best[0] <= 1.30 ? "PASS" : "MISS");
	for (size_t i = 0; i < nsrc; i++)
		free(src[i].data);
	free(src);
	return best[1] / best[0] <= 1.30 ? 0 : 1;
}
