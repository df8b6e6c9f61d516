/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * detail_counters.c — the detail view's counters, A->B and B->A side by side.
 */
#include <inttypes.h>
#include <stdio.h>
#include "detail.h"

void counters_rows(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p, uint64_t now)
{
	const struct flow *d[2] = { f, p };
	char va[2][96];
	double r[2][3];

	for (int k = 0; k < 2; k++)
		if (d[k])
			flow_rates(v->e, d[k], now, r[k]);
#define ROW(label, attrexpr, ...) \
	do { \
		attr_t at_ = A_NORMAL; \
		for (int k = 0; k < 2; k++) { \
			const struct flow *F = d[k]; \
			va[k][0] = 0; \
			if (!F) \
				continue; \
			snprintf(va[k], sizeof va[k], __VA_ARGS__); \
			if (attrexpr) \
				at_ = pair_attr(v, P_WARN); \
		} \
		row2(L, at_, label, va[0], p ? va[1] : "-"); \
	} while (0)

	ROW("packets", 0, "%" PRIu64, F->packets);
	ROW("bytes", 0, "%" PRIu64, F->bytes);
	{
		char x1[24], x2[24], x3[24];

		for (int k = 0; k < 2; k++)
			if (d[k])
				snprintf(va[k], sizeof va[k], "%s %s %s", rate_str(r[k][0], x1, sizeof x1),
					 rate_str(r[k][1], x2, sizeof x2), rate_str(r[k][2], x3, sizeof x3));
		row2(L, A_NORMAL, "rate 2s 10s 40s", va[0], p ? va[1] : "-");
		for (int k = 0; k < 2; k++)
			if (d[k])
				snprintf(va[k], sizeof va[k], "%s over %.3f s", rate_str(flow_avg_bps(v->e, d[k]), x1,
					 sizeof x1), flow_life_s(v->e, d[k]));
		row2(L, A_NORMAL, "average rate (first to last)", va[0], p ? va[1] : "-");
	}
	ROW("messages S/W/R/A", 0, "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32, F->msgs[OP_SEND],
	    F->msgs[OP_WRITE], F->msgs[OP_READ], F->msgs[OP_ATOMIC]);
	ROW("message bytes, largest", 0, "%" PRIu64 ", %" PRIu32, F->msg_bytes, F->msg_max);
	if (f->kind == FK_IWARP) {
		ROW("segments, FPDUs", 0, "%" PRIu32 ", %" PRIu32, F->u.iw.segments, F->u.iw.fpdus);
		ROW("MPA CRC good/bad/unchecked", F->u.iw.crc_bad, "%" PRIu32 "/%" PRIu32 "/%" PRIu32,
		    F->u.iw.crc_good, F->u.iw.crc_bad, F->u.iw.crc_unchecked);
		ROW("TCP retransmissions", F->u.iw.tcp_retrans, "%" PRIu32, F->u.iw.tcp_retrans);
		ROW("TCP gaps", F->u.iw.tcp_gaps, "%" PRIu32, F->u.iw.tcp_gaps);
		ROW("terminates", F->u.iw.terminates, "%" PRIu32, F->u.iw.terminates);
		ROW("MPA out of sync, bytes", F->u.iw.sync_lost, "%" PRIu32 ", %" PRIu64, F->u.iw.sync_lost,
		    F->u.iw.unsync_bytes);
		ROW("MPA resyncs (heuristic)", F->u.iw.resync_heuristic, "%" PRIu32 " (%" PRIu32 ")", F->u.iw.resyncs,
		    F->u.iw.resync_heuristic);
		ROW("MPA", 0, "%s rev %u markers %s CRC %s",
		    F->u.iw.mpa_req ? "request" : F->u.iw.mpa_rep ? "reply" : "not seen", F->u.iw.mpa_rev,
		    F->u.iw.mpa_flags & ROCE_MPA_FLAG_M ? "on" : "off", F->u.iw.mpa_flags & ROCE_MPA_FLAG_C ? "on" : "off");
		return;
	}
	ROW("requests, responses", 0, "%" PRIu32 ", %" PRIu32, F->u.seq.requests, F->u.seq.responses);
	ROW("acks (requests per ACK)", 0, "%" PRIu32 " (%.2f)", F->u.seq.acks,
	    F->u.seq.acks ? (double)F->u.seq.requests / F->u.seq.acks : 0.0);
	ROW("duplicate_request", anom(F)->duplicate_request, "%" PRIu32, anom(F)->duplicate_request);
	ROW("out_of_sequence", anom(F)->out_of_sequence, "%" PRIu32, anom(F)->out_of_sequence);
	ROW("out_of_seq_request", anom(F)->out_of_seq_request, "%" PRIu32, anom(F)->out_of_seq_request);
	ROW("retransmissions", anom(F)->retransmissions, "%" PRIu32, anom(F)->retransmissions);
	ROW("episodes nak/impl/rnr/tmo/oth", 0, "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32,
	    anom(F)->episodes[0], anom(F)->episodes[1], anom(F)->episodes[2], anom(F)->episodes[3],
	    anom(F)->episodes[4]);
	ROW("out_of_order", 0, "%" PRIu32, anom(F)->out_of_order);
	ROW("psn_gaps, missing_psns", anom(F)->psn_gaps, "%" PRIu32 ", %" PRIu32, anom(F)->psn_gaps,
	    roce_seq_missing(&F->u.seq));
	ROW("nak_seq_err", anom(F)->nak_seq_err, "%" PRIu32, anom(F)->nak_seq_err);
	ROW("nak inv/access/op/other", flow_naks(F) - anom(F)->nak_seq_err,
	    "%u/%u/%u/%u", anom(F)->nak_invalid_request, anom(F)->nak_remote_access, anom(F)->nak_remote_op,
	    anom(F)->nak_other);
	ROW("rnr_nak", anom(F)->rnr_nak, "%" PRIu32, anom(F)->rnr_nak);
	ROW("implied_nak, dup_acks", 0, "%" PRIu32 ", %" PRIu32, anom(F)->implied_nak, anom(F)->dup_acks);
	ROW("cnp, ecn_ce", 0, "%" PRIu32 ", %" PRIu32, F->u.seq.cnp, F->u.seq.ecn_ce);
	ROW("icrc_bad", F->u.seq.icrc_bad, "%" PRIu32, F->u.seq.icrc_bad);
	ROW("RTT us min/p50/p99/max", 0, "%" PRIu64 "/%" PRIu32 "/%" PRIu32 "/%" PRIu64 " n=%" PRIu32,
	    F->u.seq.rtt.n ? (F->u.seq.rtt.min_ns + 500) / 1000 : 0, flow_rtt_q_us(v->e, F, ROCE_RTT_ACK, 0.5),
	    flow_rtt_q_us(v->e, F, ROCE_RTT_ACK, 0.99), F->u.seq.rtt.n ? (F->u.seq.rtt.max_ns + 500) / 1000 : 0,
	    F->u.seq.rtt.n);
	if (f->u.seq.read_rtt.n || (p && p->u.seq.read_rtt.n))
		ROW("READ RTT us p50/p99", 0, "%" PRIu32 "/%" PRIu32 " n=%" PRIu32,
		    flow_rtt_q_us(v->e, F, ROCE_RTT_READ, 0.5), flow_rtt_q_us(v->e, F, ROCE_RTT_READ, 0.99),
		    F->u.seq.read_rtt.n);
	ROW("path MTU", 0, "%" PRIu32 " (%s)", roce_seq_pmtu(&F->u.seq),
	    roce_seq_pmtu_src_name(roce_seq_pmtu_source(&F->u.seq)));
	ROW("retransmission scheme", 0, "%s", roce_seq_scheme_name(roce_seq_scheme(&F->u.seq)));
#undef ROW
}
