/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * csum.c — the Internet checksum (RFC 1071): the one-complement sum that the
 * IPv4 header, UDP, TCP and GRE checksums share; the builders write it, the
 * decoders, the field walker and the summary verify it.
 */
#include "internal.h"

/* The 16-bit words are read big-endian byte by byte, so the result does not
 * depend on the host; an odd trailing byte is padded with a zero on the
 * right.  sum is added as-is before folding: pass 0, a hand-made partial sum
 * of big-endian words (e.g. a pseudo-header), or (uint16_t)~roce_inet_csum()
 * of an even-length earlier piece to chain.  Returns the complemented folded
 * sum: the value to store in a checksum field, or 0 when verifying a header
 * whose checksum field is included and correct. */
uint16_t roce_inet_csum(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *b = buf;
	uint64_t acc = sum;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		acc += (uint32_t)b[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}
