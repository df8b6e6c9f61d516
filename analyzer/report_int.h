/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_int.h — what the text and JSON reports (report_text.c,
 * report_json.c) share, from report.c.  Not for other files.
 */
#ifndef ROCETOP_REPORT_INT_H
#define ROCETOP_REPORT_INT_H

#include <stdint.h>
#include "report.h"

static inline int rep_is_rc(const struct flow *f) { return f->kind == FK_RC || f->kind == FK_XRC; }
static inline int rep_has_seq(const struct flow *f) { return f->kind != FK_IWARP; }

/* Counters of a flow's seq state, zero when it has no anomaly block. */
struct fc {
	uint32_t dup, oos, oosr, retrans, ooo, gaps, missing, nak_seq, nak_inv, nak_acc, nak_op,
		 nak_other, rnr, implied, dup_acks, unsolicited, gbn, sr, rnr_timers, gap_max;
	uint32_t ep[ROCE_SEQ_TRIG__COUNT];
	uint32_t episodes;
};

void rep_fc_get(const struct flow *f, struct fc *c);
/* The IB timeout exponent whose 4.096 us * 2^n is nearest a silence of gap_us. */
int rep_timeout_exp(uint32_t gap_us);

/* Sums over live flows plus evicted ones. */
struct totals {
	uint64_t dup, oos, oosr, retrans, gaps, missing, acks, nak_seq, nak_inv, nak_acc, nak_op, rnr,
		 ecn_ce, cnp, icrc_bad, requests, episodes, ooo;
	uint32_t connections, conn_cm, conn_traffic, conn_tcp, half;
};

void rep_totals_get(const struct engine *e, struct totals *t);

/* Every flow, sorted by cmp (rep_by_bytes: largest first) or by rate; free() it; NULL on ENOMEM. */
int rep_by_bytes(const void *a, const void *b);
const struct flow **rep_sorted(const struct engine *e, int (*cmp)(const void *, const void *));
const struct flow **rep_sorted_by_rate(const struct engine *e, uint64_t now);

const char *rep_us_str(uint64_t ns, char *b, size_t cap);
const char *rep_q_str(const struct engine *e, const struct roce_seq_dir *d, enum roce_rtt_which w, double q,
		      const char *none, char *b, size_t cap);

#endif
