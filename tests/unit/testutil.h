/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Common includes and helpers for the cmocka unit tests (cmocka needs the
 * standard headers first). */
#ifndef ROCE_TESTUTIL_H
#define ROCE_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

struct test_frame {
	uint8_t *data;
	uint32_t caplen, len;
};

/* Reads up to max frames of a capture into malloc'd copies; returns the
 * count and the link type through *linktype.  Fails the test when the
 * file cannot be read. */
static inline size_t test_load_pcap(const char *path, struct test_frame *out, size_t max,
				    int *linktype)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t n = 0;
	pcap_t *pc = pcap_open_offline(path, err);

	if (!pc)
		fail_msg("%s: %s", path, err);
	*linktype = pcap_datalink(pc);
	while (n < max && pcap_next_ex(pc, &h, &d) == 1) {
		out[n].data = malloc(h->caplen ? h->caplen : 1);
		assert_non_null(out[n].data);
		memcpy(out[n].data, d, h->caplen);
		out[n].caplen = h->caplen;
		out[n].len = h->len;
		n++;
	}
	pcap_close(pc);
	return n;
}

static inline void test_free_frames(struct test_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].data);
}

/* A copy of the first n bytes in a buffer of exactly n bytes, so that
 * AddressSanitizer catches any read past the captured length. */
static inline uint8_t *test_exact_copy(const uint8_t *src, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	assert_non_null(b);
	memcpy(b, src, n);
	return b;
}

#endif
