/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the MPA stream helper (lib/iwarp_stream.c).
 *
 * Input: byte 0 = mode (bit 0 markers, bit 1 CRC, bit 2 call set() instead
 * of learning from a frame, bit 3 small buffer, bits 4-7 feed flags), then
 * records of [len (1) | seq delta (1, signed) | flags (1)] + len bytes, each
 * fed as one TCP segment to one of two paired streams (direction = low bit
 * of flags).  Every byte handed to the library sits in an exactly-sized heap
 * copy, so ASan sees any over-read; every FPDU reported is walked by the
 * field emitter, and a segment is also decoded as a TCP frame.
 *
 * Invariants (abort() when broken): an FPDU is reported only while its
 * stream is in sync, never with an invalid DDP/RDMAP header unless its CRC
 * verified (no header read out of payload); a resync says how (marker, crc,
 * heuristic); heuristic resyncs never outnumber resyncs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"

static uint8_t big[2][ROCE_MPA_FPDU_MAX];
static unsigned sink;

static void on_field(void *ctx, const struct roce_field *f)
{
	(void)ctx;
	sink += (unsigned)f->u + f->len;
	if (f->b && f->len)
		sink += f->b[0] + f->b[f->len - 1];
	if (f->s)
		sink += (unsigned)strlen(f->s);
}

static void on_fpdu(void *ctx, const struct roce_mpa_stream_fpdu *f)
{
	const struct roce_mpa_stream *s = ctx;

	if (!roce_mpa_stream_in_sync(s))
		abort();
	if (f->bytes && f->view.msg_rc == ROCE_EINVAL && f->view.crc_status != ROCE_MPA_CRC_GOOD)
		abort();
	if (f->bytes && f->len)
		sink += f->bytes[0] + f->bytes[f->len - 1];
	roce_mpa_stream_fpdu_fields(f, on_field, NULL);
}

static void on_event(void *ctx, const struct roce_mpa_event *e)
{
	(void)ctx;
	if (e->type == ROCE_MPA_EV_RESYNC &&
	    (!e->what || (strcmp(e->what, "marker") && strcmp(e->what, "crc") && strcmp(e->what, "heuristic"))))
		abort();
	sink += (unsigned)e->type + e->len;
	if (e->frame && e->frame->pd && e->frame->pd_captured)
		sink += e->frame->pd[e->frame->pd_captured - 1];
}

static void decode_segment(const uint8_t *pl, size_t n, uint32_t seq)
{
	static const struct roce_eth_spec eth;
	static struct roce_ip_spec ip = { .version = 4 };
	static uint8_t frame[400];
	struct roce_cfg cfg;
	struct roce_pkt p;
	char s[256];
	int len;

	memset(&cfg, 0, sizeof(cfg));
	roce_cfg_add_iwarp_port(&cfg, 4210);
	len = roce_build_tcp_frame(frame, sizeof(frame), &eth, &ip, 4210, 1, seq, 0, 0x18, pl, n);
	if (len <= 0)
		return;
	uint8_t *c = malloc((size_t)len);
	if (!c)
		return;
	memcpy(c, frame, (size_t)len);
	roce_decode(&p, &cfg, ROCE_LINK_ETHERNET, c, (uint32_t)len, (uint32_t)len);
	roce_foreach_field(&p, on_field, NULL);
	roce_summary(&p, s, sizeof(s));
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_mpa_stream st[2];
	uint32_t seq[2] = { 1000, 0xfffffe00u };
	uint8_t mode;
	size_t i = 1;

	if (size < 1)
		return 0;
	mode = data[0];
	for (int d = 0; d < 2; d++) {
		roce_mpa_stream_init(&st[d], big[d], (mode & 8) ? 600 : sizeof(big[d]), on_fpdu, on_event, &st[d]);
		if (mode & 4)
			roce_mpa_stream_set(&st[d], seq[d], mode & 1, mode & 2);
	}
	roce_mpa_stream_pair(&st[0], &st[1]);
	while (i + 3 <= size) {
		size_t len = data[i];
		int8_t delta = (int8_t)data[i + 1];
		uint8_t fl = data[i + 2];
		int d = fl & 1;
		uint8_t *seg;

		i += 3;
		if (len > size - i)
			len = size - i;
		seg = malloc(len ? len : 1);
		if (!seg)
			return 0;
		memcpy(seg, data + i, len);
		seq[d] += (uint32_t)(int32_t)delta;
		roce_mpa_stream_feed(&st[d], seq[d], seg, (uint32_t)len, (fl >> 1) & (mode >> 4) & 1u);
		if (st[d].n_resync_heuristic > st[d].n_resync)
			abort();
		if (fl & 4)
			decode_segment(seg, len, seq[d]);
		seq[d] += (uint32_t)len;
		free(seg);
		i += len;
	}
	return 0;
}
