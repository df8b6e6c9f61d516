/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * detail_counters.c — the detail view's counters, A->B and B->A side by side.
 */
#include <inttypes.h>
#include <stdio.h>
#include "detail.h"

/* The detail view's rows in the making: both directions and their values. */
struct rows {
	struct tui *v;
	struct dlines *L;
	const struct flow *d[2];        /* A->B, and B->A or NULL */
	char va[2][96];
};

/* One row: the same format for each direction (F), warning colours when attrexpr holds for either. */
#define ROW(R, label, attrexpr, ...) \
	do { \
		attr_t at_ = A_NORMAL; \
		for (int k = 0; k < 2; k++) { \
			const struct flow *F = (R)->d[k]; \
			(R)->va[k][0] = 0; \
			if (!F) \
				continue; \
			snprintf((R)->va[k], sizeof (R)->va[k], __VA_ARGS__); \
			if (attrexpr) \
				at_ = pair_attr((R)->v, P_WARN); \
		} \
		row2((R)->L, at_, label, (R)->va[0], (R)->d[1] ? (R)->va[1] : "-"); \
	} while (0)

/* Packets, bytes, rates and messages: every kind of flow. */
static void rows_traffic(struct rows *R, uint64_t now)
{
	char x1[24], x2[24], x3[24];
	double r[3];

	ROW(R, "packets", 0, "%" PRIu64, F->packets);
	ROW(R, "bytes", 0, "%" PRIu64, F->bytes);
	for (int k = 0; k < 2; k++)
		if (R->d[k]) {
			flow_rates(R->v->e, R->d[k], now, r);
			snprintf(R->va[k], sizeof R->va[k], "%s %s %s", rate_str(r[0], x1, sizeof x1),
				 rate_str(r[1], x2, sizeof x2), rate_str(r[2], x3, sizeof x3));
		}
	row2(R->L, A_NORMAL, "rate 2s 10s 40s", R->va[0], R->d[1] ? R->va[1] : "-");
	for (int k = 0; k < 2; k++)
		if (R->d[k])
			snprintf(R->va[k], sizeof R->va[k], "%s over %.3f s", rate_str(flow_avg_bps(R->v->e, R->d[k]), x1,
				 sizeof x1), flow_life_s(R->v->e, R->d[k]));
	row2(R->L, A_NORMAL, "average rate (first to last)", R->va[0], R->d[1] ? R->va[1] : "-");
	ROW(R, "messages S/W/R/A", 0, "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32, F->msgs[OP_SEND],
	    F->msgs[OP_WRITE], F->msgs[OP_READ], F->msgs[OP_ATOMIC]);
	ROW(R, "message bytes, largest", 0, "%" PRIu64 ", %" PRIu32, F->msg_bytes, F->msg_max);
}

static void rows_iwarp(struct rows *R)
{
	ROW(R, "segments, FPDUs", 0, "%" PRIu32 ", %" PRIu32, F->u.iw.segments, F->u.iw.fpdus);
	ROW(R, "MPA CRC good/bad/unchecked", F->u.iw.crc_bad, "%" PRIu32 "/%" PRIu32 "/%" PRIu32,
	    F->u.iw.crc_good, F->u.iw.crc_bad, F->u.iw.crc_unchecked);
	ROW(R, "TCP retransmissions", F->u.iw.tcp_retrans, "%" PRIu32, F->u.iw.tcp_retrans);
	ROW(R, "TCP gaps", F->u.iw.tcp_gaps, "%" PRIu32, F->u.iw.tcp_gaps);
	ROW(R, "terminates", F->u.iw.terminates, "%" PRIu32, F->u.iw.terminates);
	ROW(R, "MPA out of sync, bytes", F->u.iw.sync_lost, "%" PRIu32 ", %" PRIu64, F->u.iw.sync_lost,
	    F->u.iw.unsync_bytes);
	ROW(R, "MPA resyncs (heuristic)", F->u.iw.resync_heuristic, "%" PRIu32 " (%" PRIu32 ")", F->u.iw.resyncs,
	    F->u.iw.resync_heuristic);
	ROW(R, "MPA", 0, "%s rev %u markers %s CRC %s",
	    F->u.iw.mpa_req ? "request" : F->u.iw.mpa_rep ? "reply" : "not seen", F->u.iw.mpa_rev,
	    F->u.iw.mpa_flags & ROCE_MPA_FLAG_M ? "on" : "off", F->u.iw.mpa_flags & ROCE_MPA_FLAG_C ? "on" : "off");
}

/* RoCE requests: what the responder and the wire made of their PSNs. */
static void rows_seq_requests(struct rows *R)
{
	ROW(R, "requests, responses", 0, "%" PRIu32 ", %" PRIu32, F->u.seq.requests, F->u.seq.responses);
	ROW(R, "acks (requests per ACK)", 0, "%" PRIu32 " (%.2f)", F->u.seq.acks,
	    F->u.seq.acks ? (double)F->u.seq.requests / F->u.seq.acks : 0.0);
	ROW(R, "duplicate_request", flow_anom(F)->duplicate_request, "%" PRIu32, flow_anom(F)->duplicate_request);
	ROW(R, "out_of_sequence", flow_anom(F)->out_of_sequence, "%" PRIu32, flow_anom(F)->out_of_sequence);
	ROW(R, "out_of_seq_request", flow_anom(F)->out_of_seq_request, "%" PRIu32, flow_anom(F)->out_of_seq_request);
	ROW(R, "retransmissions", flow_anom(F)->retransmissions, "%" PRIu32, flow_anom(F)->retransmissions);
	ROW(R, "episodes nak/impl/rnr/tmo/oth", 0, "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32,
	    flow_anom(F)->episodes[0], flow_anom(F)->episodes[1], flow_anom(F)->episodes[2], flow_anom(F)->episodes[3],
	    flow_anom(F)->episodes[4]);
	ROW(R, "out_of_order", 0, "%" PRIu32, flow_anom(F)->out_of_order);
	ROW(R, "psn_gaps, missing_psns", flow_anom(F)->psn_gaps, "%" PRIu32 ", %" PRIu32, flow_anom(F)->psn_gaps,
	    roce_seq_missing(&F->u.seq));
}

/* RoCE responses: NAKs by kind, congestion, ICRC. */
static void rows_seq_responses(struct rows *R)
{
	ROW(R, "nak_seq_err", flow_anom(F)->nak_seq_err, "%" PRIu32, flow_anom(F)->nak_seq_err);
	ROW(R, "nak inv/access/op/other", flow_naks(F) - flow_anom(F)->nak_seq_err,
	    "%u/%u/%u/%u", flow_anom(F)->nak_invalid_request, flow_anom(F)->nak_remote_access, flow_anom(F)->nak_remote_op,
	    flow_anom(F)->nak_other);
	ROW(R, "rnr_nak", flow_anom(F)->rnr_nak, "%" PRIu32, flow_anom(F)->rnr_nak);
	ROW(R, "implied_nak, dup_acks", 0, "%" PRIu32 ", %" PRIu32, flow_anom(F)->implied_nak, flow_anom(F)->dup_acks);
	ROW(R, "cnp, ecn_ce", 0, "%" PRIu32 ", %" PRIu32, F->u.seq.cnp, F->u.seq.ecn_ce);
	ROW(R, "icrc_bad", F->u.seq.icrc_bad, "%" PRIu32, F->u.seq.icrc_bad);
}

/* RTT, path MTU and retransmission scheme. */
static void rows_seq_timing(struct rows *R)
{
	const struct flow *f = R->d[0], *p = R->d[1];
	const struct engine *e = R->v->e;

	ROW(R, "RTT us min/p50/p99/max", 0, "%" PRIu64 "/%" PRIu32 "/%" PRIu32 "/%" PRIu64 " n=%" PRIu32,
	    F->u.seq.rtt.n ? (F->u.seq.rtt.min_ns + 500) / 1000 : 0, flow_rtt_q_us(e, F, ROCE_RTT_ACK, 0.5),
	    flow_rtt_q_us(e, F, ROCE_RTT_ACK, 0.99), F->u.seq.rtt.n ? (F->u.seq.rtt.max_ns + 500) / 1000 : 0,
	    F->u.seq.rtt.n);
	if (f->u.seq.read_rtt.n || (p && p->u.seq.read_rtt.n))
		ROW(R, "READ RTT us p50/p99", 0, "%" PRIu32 "/%" PRIu32 " n=%" PRIu32,
		    flow_rtt_q_us(e, F, ROCE_RTT_READ, 0.5), flow_rtt_q_us(e, F, ROCE_RTT_READ, 0.99),
		    F->u.seq.read_rtt.n);
	ROW(R, "path MTU", 0, "%" PRIu32 " (%s)", roce_seq_pmtu(&F->u.seq),
	    roce_seq_pmtu_src_name(roce_seq_pmtu_source(&F->u.seq)));
	ROW(R, "retransmission scheme", 0, "%s", roce_seq_scheme_name(roce_seq_scheme(&F->u.seq)));
}
#undef ROW

void counters_rows(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p, uint64_t now)
{
	struct rows R = { v, L, { f, p }, { "", "" } };

	rows_traffic(&R, now);
	if (f->kind == FK_IWARP) {
		rows_iwarp(&R);
		return;
	}
	rows_seq_requests(&R);
	rows_seq_responses(&R);
	rows_seq_timing(&R);
}
