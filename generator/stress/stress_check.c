/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_check.c — what `rocegen stress` checks data and counters against:
 * the byte patterns (seeded per QP and message, random access), the
 * checksum the target reports (ctl_sum), distributions, and a model of the
 * adapter's expected PSN driven by the request frames as they went on the
 * wire, from which the duplicate and out-of-sequence requests the adapter
 * should count follow.
 */
#include <stdlib.h>
#include <string.h>
#include "stress.h"
#include "ctl.h"

const char *const st_op_names[ST_N_OPS] = { "send", "write", "read", "atomic" };
const char *const st_fault_names[STF_N] = { "drop", "dup", "reorder", "corrupt", "ce", "delay",
					    "rnr", "lose", "exact" };
const char *const st_metric_names[STM_N] = { "nak_generation_us", "retransmission_us",
					     "cnp_generation_us", "send_latency_us", "write_latency_us",
					     "read_latency_us", "atomic_latency_us",
					     "nak_response_us", "timeout_retx_us", "rnr_wait_us",
					     "cnp_interval_us" };
const char *const st_cnt_names[STC_N] = { "duplicate_request", "out_of_seq_request", "seq_nak",
					  "cnp" };

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void st_pattern(uint64_t seed, unsigned qp, uint64_t msg, uint64_t from, uint8_t *buf, uint32_t len)
{
	uint64_t key = mix64(seed ^ mix64(((uint64_t)qp << 40) ^ msg));
	uint64_t w = 0, wi = UINT64_MAX;

	for (uint32_t i = 0; i < len; i++) {
		uint64_t j = from + i;

		if (j / 8 != wi) {
			wi = j / 8;
			w = mix64(key + wi * 0x632be59bd9b4e019ull);
		}
		buf[i] = (uint8_t)(w >> (8 * (j % 8)));
	}
}

uint64_t st_sum(const uint8_t *b, size_t n)
{
	return ctl_sum(b, n);
}

void st_dist_add(struct st_dist *d, uint64_t ns)
{
	if (d->n == d->cap) {
		size_t nc = d->cap ? 2 * d->cap : 256;
		uint64_t *nv = realloc(d->v, nc * sizeof(*nv));

		if (!nv)
			return;
		d->v = nv;
		d->cap = nc;
	}
	d->v[d->n++] = ns;
}

/* PSNs the responder's expected PSN moves by for this request packet */
static uint32_t req_span(const struct roce_pkt *p, uint16_t mtu)
{
	uint8_t op = p->opcode & 0x1f;

	if ((p->opcode >> 5) == 0 && op == 0x0c && p->reth_off) {   /* RDMA READ request */
		uint32_t len = (uint32_t)p->data[p->reth_off + 12] << 24 |
			       (uint32_t)p->data[p->reth_off + 13] << 16 |
			       (uint32_t)p->data[p->reth_off + 14] << 8 | p->data[p->reth_off + 15];

		return len ? (len + mtu - 1) / mtu : 1;
	}
	return 1;
}

uint64_t st_wire_pkts_since(const struct st_wire *w, uint32_t psn)
{
	uint32_t back = (w->epsn - psn) & 0xffffff;
	uint64_t n = back;

	for (unsigned i = 0; i < w->rd_n; i++) {
		uint32_t at = (w->rd[(w->rd_h + i) % ST_WIRE_RD].psn - psn) & 0xffffff;

		if (at < back)
			n -= w->rd[(w->rd_h + i) % ST_WIRE_RD].span - 1;
	}
	return n;
}

void st_wire_req(struct st_wire *w, const struct roce_pkt *p, uint16_t mtu, int icrc_ok)
{
	uint32_t d;

	if (!icrc_ok)
		return;                    /* dropped silently by the adapter */
	d = (p->psn - w->epsn) & 0xffffff;
	if (d == 0) {
		uint32_t span = req_span(p, mtu), n = (w->epsn + span) & 0xffffff;

		if (span > 1) {
			w->rd[(w->rd_h + w->rd_n) % ST_WIRE_RD].psn = w->epsn;
			w->rd[(w->rd_h + w->rd_n) % ST_WIRE_RD].span = span;
			if (w->rd_n < ST_WIRE_RD)
				w->rd_n++;
			else
				w->rd_h = (w->rd_h + 1) % ST_WIRE_RD;
		}
		w->wraps += n < w->epsn;
		w->epsn = n;
		w->oos_latched = 0;
	} else if (d >= 0x800000) {
		w->dup++;
	} else {
		w->oos++;
		if (!w->oos_latched)
			w->episodes++;
		w->oos_latched = 1;
	}
}
