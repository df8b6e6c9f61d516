/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for rocetop's flow engine (analyzer/flow.c) and the
 * batch views over it (analyzer/report.c): a sequence of packets, decoded
 * and fed in order, then every view.
 *
 * Input: two control bytes — the flow table size (1..16, so eviction runs)
 * and options (bit 0: ICRC not checked; bit 1: TCP 4791..4800 carry iWARP
 * FPDUs; bits 2-3: path MTU 256 << n) — then records, each:
 *
 *   dt (1 byte: capture time advances by dt^3 microseconds, so seconds-long
 *   gaps happen), caplen (2 bytes, little-endian, at most what is left),
 *   link type (1 byte: 0 Ethernet, 1 raw IP, 2 Linux SLL, 3 SLL2), frame.
 *
 * Each frame is copied into a buffer of exactly its size and freed after
 * engine_packet(), as a capture buffer is reused: the engine keeping a
 * pointer into a frame, or reading past it, faults.  The views write to
 * /dev/null.  Seeds: fuzz/seeds/flow_*.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flow.h"
#include "report.h"
#include "roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int links[4] = { ROCE_LINK_ETHERNET, ROCE_LINK_RAW, ROCE_LINK_LINUX_SLL, ROCE_LINK_LINUX_SLL2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static struct engine e;
	struct engine_cfg ec = { .link_bps = 100000000000ull, .check_icrc = 1, .pair_slots = 64 };
	struct roce_cfg rc = { 0 };
	struct report_ctx ctx = { .source = "fuzz", .top = 5, .summary_top = 5 };
	uint64_t ts = 1700000000ull * 1000000000ull;
	size_t off = 2;

	if (size < 2)
		return 0;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	ec.max_flows = (uint32_t)(data[0] % 16) + 1;
	ec.check_icrc = !(data[1] & 1);
	ec.pmtu = 256u << ((data[1] >> 2) & 3);
	if (data[1] & 2)
		for (uint16_t port = 4791; port <= 4800; port++)
			roce_cfg_add_iwarp_port(&rc, port);
	if (engine_init(&e, &ec))
		abort();
	while (off + 4 <= size) {
		uint32_t dt = data[off], len = data[off + 1] | (uint32_t)data[off + 2] << 8;
		int lt = links[data[off + 3] & 3];
		struct roce_pkt p;
		uint8_t *f;

		off += 4;
		if (len > size - off)
			len = (uint32_t)(size - off);
		f = malloc(len ? len : 1);
		if (!f)
			abort();
		memcpy(f, data + off, len);
		off += len;
		ts += (uint64_t)dt * dt * dt * 1000u;
		roce_decode(&p, &rc, lt, f, len, len + (dt & 1 ? 4u : 0u));
		engine_packet(&e, &p, ts, len, p.wirelen);
		free(f);
	}
	for (uint32_t i = 1; i <= e.nflows; i++) {
		double bps[3];

		flow_rates(&e, engine_flow(&e, i), ts, bps);
	}
	report_snapshot_text(null, &e, &ctx, 1, ts);
	report_snapshot_json(null, &e, &ctx, 1, ts);
	report_summary_text(null, &e, &ctx);
	report_summary_json(null, &e, &ctx);
	engine_free(&e);
	return 0;
}
