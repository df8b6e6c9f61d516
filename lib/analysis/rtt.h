/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtt.h — libroce: round-trip times of RC requests, every one of them.
 *
 * The rule (what the capture point sees; a mirror mid-path sees part of
 * the path):
 *   - a request packet whose PSN was sent once (Karn: a PSN sent again
 *     never gives a sample) and that the responder answers with that same
 *     PSN gives one sample:
 *       ACK (AETH syndrome ACK) or ATOMIC ACK with the PSN  -> rtt
 *       the first READ response (FIRST or ONLY) with a READ
 *       request's PSN                                       -> read_rtt
 *   - NAKs and RNR NAKs give none; a second ACK of the same PSN gives none;
 *     a coalesced ACK samples only the PSN it names (the requests before
 *     it leave the table unsampled).
 *
 * One struct roce_rtt serves all connections:
 *   - the outstanding requests of a direction live in its own ring,
 *     indexed by PSN (PSNs are sequential per direction), 16 bytes a slot,
 *     sized by that direction's requests in flight: a request and its
 *     answer are one slot each; an ACK, NAK or last READ response clears
 *     every request it covers, the slots before it in order;
 *   - a direction's exact counts (n, min, max, sum) are in its struct
 *     roce_seq_dir; its sparse log-scale histogram (128 sub-buckets per
 *     power of two: a quantile is within 0.4 % of a sample of its bucket)
 *     is allocated on its first sample, so a direction without samples
 *     costs nothing here;
 *   - a memory cap (default 256 MiB) bounds both: the rings may take a
 *     quarter of it; past that, a ring that must grow takes other
 *     directions' rings (a clock over them), and when there are none, the
 *     older half of its own requests is dropped (counted, both:
 *     requests_evicted); they give no sample.  The
 *     histograms take the rest; past it, the least recently updated of a
 *     few candidates is freed (counted: histograms_evicted); its direction
 *     keeps n, min, max and sum exact but reports no quantiles from then on.
 *
 * Caller: after roce_seq_request()/roce_seq_response() (or _update()) on a
 * direction, hand the same packet and verdict to roce_rtt_packet(): it adds
 * ROCE_SEQ_V_RTT / ROCE_SEQ_V_READ_RTT, rtt_us and rtt_ns to the verdict.
 * Packets of a direction in capture order.  A direction that goes away
 * (flow evicted) is released with roce_rtt_drop().
 */
#ifndef ROCE_RTT_H
#define ROCE_RTT_H

#include <stddef.h>
#include <stdint.h>
#include "seq.h"

#ifdef __cplusplus
extern "C" {
#endif

struct roce_pkt;
struct roce_rtt;

#define ROCE_RTT_MEM_DEFAULT (256ull << 20)

enum roce_rtt_which {
	ROCE_RTT_ACK = 0,          /* request -> its ACK / ATOMIC ACK */
	ROCE_RTT_READ = 1,         /* READ request -> first READ response */
};

/* mem_cap: bytes for the table and the histograms together; 0 = default.
 * NULL when out of memory. */
struct roce_rtt *roce_rtt_new(uint64_t mem_cap);
void roce_rtt_free(struct roce_rtt *r);

/* d's packet p (at ts_ns), already judged by roce_seq_*() into v. */
void roce_rtt_packet(struct roce_rtt *r, struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts_ns,
		     struct roce_seq_verdict *v);
/* d goes away: its histograms are freed (its requests age out). */
void roce_rtt_drop(struct roce_rtt *r, struct roce_seq_dir *d);

/* Nearest-rank quantile (q in (0, 1]) of d's samples, in ns: the
 * midpoint of the sample's bucket (a whole microsecond when every sample
 * was), clamped to [min, max]; the exact min for the first rank and max
 * for the last.  0 on success, -1 when there are no samples or the
 * histogram was evicted. */
int roce_rtt_quantile(const struct roce_rtt *r, const struct roce_seq_dir *d, enum roce_rtt_which w, double q,
		      uint64_t *ns);
/* Samples of d whose bucket starts at or below le_ns (exact but for the
 * bucket holding le_ns: within 0.8 %); -1 when the histogram
 * was evicted (or there is none). */
int64_t roce_rtt_count_le(const struct roce_rtt *r, const struct roce_seq_dir *d, enum roce_rtt_which w,
			  uint64_t le_ns);

static inline const struct roce_rtt_stat *roce_rtt_stat(const struct roce_seq_dir *d, enum roce_rtt_which w)
{
	return w == ROCE_RTT_READ ? &d->read_rtt : &d->rtt;
}

struct roce_rtt_totals {
	uint64_t outstanding;         /* requests waiting for their answer now */
	uint64_t requests_evicted;    /* dropped from the table by the cap */
	uint64_t histograms;          /* live histograms */
	uint64_t histograms_evicted;  /* freed by the cap */
	uint64_t mem_bytes;           /* table + histograms now */
	uint64_t mem_peak;
	uint64_t mem_cap;
};
void roce_rtt_totals(const struct roce_rtt *r, struct roce_rtt_totals *t);

/* The histogram's bucket of a value and the bucket's bounds [lo, lo + width),
 * in ns (exposed for tests). */
unsigned roce_rtt_bucket(uint64_t ns);
uint64_t roce_rtt_bucket_lo(unsigned b);
uint64_t roce_rtt_bucket_width(unsigned b);

#ifdef __cplusplus
}
#endif
#endif /* ROCE_RTT_H */
