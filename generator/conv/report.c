/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c — what `rocegen client` and `rocegen server` print at the end:
 * a perftest-like table (bytes, iterations, BW peak/average in MB/s of
 * 2^20 bytes, message rate in Mpps, latency min/typical/p99/p99.9) and the
 * transport's story (retransmissions by trigger, NAKs, duplicates, faults),
 * or all of it as one JSON object (--json).
 */
#include <inttypes.h>
#include <string.h>
#include "cm.h"
#include "session.h"

#define LINE "---------------------------------------------------------------------------------------\n"

double report_peak(const uint64_t *t, uint64_t n, uint64_t bytes_each, uint64_t t0)
{
	uint64_t span, w, best = 0, lo = 0;

	if (!n || t[n - 1] <= t0)
		return 0;
	/* the most bytes completed in any window of a twentieth of the run
	 * (at least 100 us) */
	span = t[n - 1] - t0;
	w = span / 20 > 100000 ? span / 20 : 100000;
	if (w >= span)
		return (double)(n * bytes_each) / ((double)span / 1e9);
	for (uint64_t hi = 0; hi < n; hi++) {
		while (t[hi] - t[lo] >= w)
			lo++;
		if (hi - lo + 1 > best)
			best = hi - lo + 1;
	}
	return (double)(best * bytes_each) / ((double)w / 1e9);
}

double report_peak_meter(const struct sess *s)
{
	uint64_t span, w, sum = 0, best = 0, lo = 0;

	if (s->dm_n < 2 || s->dm_t[s->dm_n - 1] <= s->dm_t[0])
		return 0;
	/* the busiest window of a twentieth of the run (at least 100 us), as
	 * report_peak(); frames in time order (both directions merged as sent
	 * and received, so a sample may be slightly earlier than the last) */
	span = s->dm_t[s->dm_n - 1] - s->dm_t[0];
	w = span / 20 > 100000 ? span / 20 : 100000;
	if (w >= span) {
		for (uint64_t i = 0; i < s->dm_n; i++)
			sum += s->dm_b[i];
		return (double)sum / ((double)span / 1e9);
	}
	for (uint64_t hi = 0; hi < s->dm_n; hi++) {
		sum += s->dm_b[hi];
		while (lo < hi && s->dm_t[hi] > s->dm_t[lo] && s->dm_t[hi] - s->dm_t[lo] >= w)
			sum -= s->dm_b[lo++];
		if (sum > best)
			best = sum;
	}
	return (double)best / ((double)w / 1e9);
}

static double secs(const struct report *r)
{
	return r->t_end > r->t_start ? (double)(r->t_end - r->t_start) / 1e9 : 0;
}

static const char *title(const struct report *r)
{
	if (!strcmp(r->op, "send"))
		return "Send";
	if (!strcmp(r->op, "write"))
		return "RDMA_Write";
	if (!strcmp(r->op, "read"))
		return "RDMA_Read";
	if (!strcmp(r->op, "cmp_swap"))
		return "Atomic CMP_AND_SWAP";
	if (!strcmp(r->op, "fetch_add"))
		return "Atomic FETCH_AND_ADD";
	return r->op;
}

void report_text(FILE *f, const struct report *r)
{
	double s = secs(r);
	const struct roce_qp_stats *st = r->q ? roce_qp_stats(r->q->qp) : NULL;

	fprintf(f, LINE);
	fprintf(f, "                    %s %s (rocegen %s, --oob %s%s%s)\n", title(r),
		!strcmp(r->role, "client") ? "BW Test" : "responder", r->role, r->oob,
		r->app ? " --app " : "", r->app ? r->app : "");
	fprintf(f, " local address:  QPN 0x%06x PSN 0x%06x   remote address: QPN 0x%06x PSN 0x%06x\n",
		r->local_qpn, r->local_psn, r->remote_qpn, r->remote_psn);
	fprintf(f, " Mtu: %u[B]   peer: %s\n", r->mtu, r->peer_tool && *r->peer_tool ? r->peer_tool : "-");
	fprintf(f, LINE);
	fprintf(f, " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
	fprintf(f, " %-10" PRIu64 " %-10" PRIu64 "       %-10.2f         %-10.2f           %.6f\n", r->size,
		r->completed, r->bw_peak / 1048576.0, s > 0 ? (double)r->bytes / s / 1048576.0 : 0.0,
		s > 0 ? (double)r->completed / s / 1e6 : 0.0);
	if (r->have_lat) {
		fprintf(f, " #bytes #iterations    t_min[usec]    t_typical[usec]    t_p99[usec]    t_p99.9[usec]\n");
		fprintf(f, " %-6" PRIu64 " %-10" PRIu64 "       %-10.2f     %-10.2f         %-10.2f     %.2f\n",
			r->size, r->lat.n, r->lat.min / 1e3, r->lat.typical / 1e3, r->lat.p99 / 1e3,
			r->lat.p999 / 1e3);
	}
	fprintf(f, LINE);
	fprintf(f, " completed %" PRIu64 "  retried %" PRIu64 "  failed %" PRIu64 "  in %.3f s", r->completed,
		r->retried, r->failed, s);
	if (r->have_crc)
		fprintf(f, "  crc32 0x%08x", r->crc);
	if (r->have_mr_crc)
		fprintf(f, "  region crc32 0x%08x", r->mr_crc);
	if (r->have_atomic)
		fprintf(f, "  counter %" PRIu64, r->atomic_value);
	if (r->verified || r->mismatches)
		fprintf(f, "  data %s", r->mismatches ? "MISMATCH" : "verified");
	fputc('\n', f);
	if (st) {
		fprintf(f, " retransmitted packets: timeout %" PRIu64 ", nak %" PRIu64 ", implied %" PRIu64
			", rnr %" PRIu64 "; timeouts %" PRIu64 "; NAKs received %" PRIu64 " (seq %" PRIu64
			"), RNR %" PRIu64 "\n",
			st->retx_pkts[ROCE_RETX_TIMEOUT], st->retx_pkts[ROCE_RETX_NAK],
			st->retx_pkts[ROCE_RETX_IMPLIED], st->retx_pkts[ROCE_RETX_RNR], st->timeouts,
			st->nak_rx[0] + st->nak_rx[1] + st->nak_rx[2] + st->nak_rx[3] + st->nak_rx[4],
			st->nak_rx[ROCE_NAK_PSN_SEQ_ERR], st->rnr_nak_rx);
		fprintf(f, " responder: requests %" PRIu64 ", duplicates %" PRIu64 ", out of sequence %" PRIu64
			", NAKs sent %" PRIu64 ", ACKs sent %" PRIu64 "; bad ICRC dropped %" PRIu64 "\n",
			st->req_rx, st->dup_req_rx, st->oos_req_rx,
			st->nak_tx[0] + st->nak_tx[1] + st->nak_tx[2] + st->nak_tx[3] + st->nak_tx[4] + st->rnr_nak_tx,
			st->ack_tx, st->icrc_bad_rx);
		fprintf(f, " frames: sent %" PRIu64 ", received %" PRIu64 "; faults fired:", r->s->st.tx_frames,
			r->s->st.rx_roce);
		for (int k = 0; k < ROCE_QPF__COUNT; k++)
			if (st->faults[k])
				fprintf(f, " %s %" PRIu64, roce_qpf_kind_name((enum roce_qpf_kind)k), st->faults[k]);
		fputc('\n', f);
	}
	if (!r->ok)
		fprintf(f, " FAILED: %s\n", r->why ? r->why : "?");
	fprintf(f, LINE);
}

static void jstr(FILE *f, const char *k, const char *v, int comma)
{
	fprintf(f, "\"%s\":", k);
	if (!v) {
		fputs("null", f);
	} else {
		fputc('"', f);
		for (; *v; v++) {
			if (*v == '"' || *v == '\\')
				fprintf(f, "\\%c", *v);
			else if ((unsigned char)*v < 0x20)
				fprintf(f, "\\u%04x", *v);
			else
				fputc(*v, f);
		}
		fputc('"', f);
	}
	if (comma)
		fputc(',', f);
}

static void ju(FILE *f, const char *k, uint64_t v)
{
	fprintf(f, "\"%s\":%" PRIu64 ",", k, v);
}

/* "retx_pkts", "retx_episodes": per cause of retransmission. */
static void j_retx(FILE *f, const char *key, const uint64_t v[ROCE_RETX__COUNT])
{
	fprintf(f, "\"%s\":{", key);
	for (int k = 0; k < ROCE_RETX__COUNT; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", roce_qp_retx_name((enum roce_qp_retx)k), v[k]);
	fputc('}', f);
}

/* The data QP's engine counters: what it sent, received, retransmitted, completed, and the faults injected. */
static void j_qp_stats(FILE *f, const struct roce_qp_stats *st)
{
	fprintf(f, ",\"tx_pkts\":%" PRIu64 ",\"rx_pkts\":%" PRIu64 ",\"req_pkts\":%" PRIu64 ",", st->tx_pkts,
		st->rx_pkts, st->req_pkts);
	j_retx(f, "retx_pkts", st->retx_pkts);
	fputc(',', f);
	j_retx(f, "retx_episodes", st->retx_episodes);
	fprintf(f, ",\"retransmitted\":%" PRIu64, st->retx_pkts[0] + st->retx_pkts[1] +
		st->retx_pkts[2] + st->retx_pkts[3]);
	fprintf(f, ",\"timeouts\":%" PRIu64 ",\"nak_rx\":{\"seq\":%" PRIu64 ",\"inv_req\":%" PRIu64
		",\"access\":%" PRIu64 ",\"op\":%" PRIu64 "},\"rnr_nak_rx\":%" PRIu64,
		st->timeouts, st->nak_rx[0], st->nak_rx[1], st->nak_rx[2], st->nak_rx[3], st->rnr_nak_rx);
	fprintf(f, ",\"ack_rx\":%" PRIu64 ",\"read_rsp_rx\":%" PRIu64 ",\"atomic_ack_rx\":%" PRIu64
		",\"dup_rsp_rx\":%" PRIu64 ",\"ghost_rsp_rx\":%" PRIu64 ",\"implied_naks\":%" PRIu64,
		st->ack_rx, st->read_rsp_rx, st->atomic_ack_rx, st->dup_rsp_rx, st->ghost_rsp_rx,
		st->implied_naks);
	fprintf(f, ",\"req_rx\":%" PRIu64 ",\"dup_req_rx\":%" PRIu64 ",\"oos_req_rx\":%" PRIu64
		",\"ack_tx\":%" PRIu64 ",\"nak_tx\":{\"seq\":%" PRIu64 ",\"inv_req\":%" PRIu64
		",\"access\":%" PRIu64 ",\"op\":%" PRIu64 "},\"rnr_nak_tx\":%" PRIu64,
		st->req_rx, st->dup_req_rx, st->oos_req_rx, st->ack_tx, st->nak_tx[0], st->nak_tx[1],
		st->nak_tx[2], st->nak_tx[3], st->rnr_nak_tx);
	fprintf(f, ",\"read_replays\":%" PRIu64 ",\"atomic_replays\":%" PRIu64 ",\"icrc_bad_rx\":%" PRIu64
		",\"drop_rx\":%" PRIu64 ",\"comp_ok\":%" PRIu64 ",\"comp_err\":%" PRIu64,
		st->read_replays, st->atomic_replays, st->icrc_bad_rx, st->drop_rx, st->comp_ok,
		st->comp_err);
	fprintf(f, ",\"faults\":{");
	for (int k = 0; k < ROCE_QPF__COUNT; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", roce_qpf_kind_name((enum roce_qpf_kind)k),
			st->faults[k]);
	fputc('}', f);
}

/* What was asked and what happened: counts, rates, latency, the data's checks. */
static void j_outcome(FILE *f, const struct report *r)
{
	double s = secs(r);

	ju(f, "size", r->size);
	ju(f, "iters", r->iters);
	ju(f, "completed", r->completed);
	ju(f, "retried", r->retried);
	ju(f, "failed", r->failed);
	ju(f, "bytes", r->bytes);
	fprintf(f, "\"seconds\":%.6f,\"bw_peak_mbs\":%.3f,\"bw_avg_mbs\":%.3f,\"msg_rate_mpps\":%.6f,", s,
		r->bw_peak / 1048576.0, s > 0 ? (double)r->bytes / s / 1048576.0 : 0.0,
		s > 0 ? (double)r->completed / s / 1e6 : 0.0);
	if (r->have_lat)
		fprintf(f, "\"latency_us\":{\"n\":%" PRIu64 ",\"min\":%.3f,\"typical\":%.3f,\"p99\":%.3f,"
			"\"p999\":%.3f,\"max\":%.3f,\"avg\":%.3f},",
			r->lat.n, r->lat.min / 1e3, r->lat.typical / 1e3, r->lat.p99 / 1e3, r->lat.p999 / 1e3,
			r->lat.max / 1e3, r->lat.avg / 1e3);
	fprintf(f, "\"data\":{");
	if (r->have_crc)
		fprintf(f, "\"crc\":\"0x%08x\",", r->crc);
	if (r->have_mr_crc)
		fprintf(f, "\"region_crc\":\"0x%08x\",", r->mr_crc);
	if (r->have_atomic)
		fprintf(f, "\"counter\":%" PRIu64 ",", r->atomic_value);
	fprintf(f, "\"mismatches\":%" PRIu64 ",\"verified\":%s},", r->mismatches,
		r->verified ? "true" : "false");
}

void report_json(FILE *f, const struct report *r)
{
	const struct roce_qp_stats *st = r->q ? roce_qp_stats(r->q->qp) : NULL;

	fputc('{', f);
	jstr(f, "role", r->role, 1);
	jstr(f, "oob", r->oob, 1);
	jstr(f, "app", r->app, 1);
	jstr(f, "op", r->op, 1);
	jstr(f, "peer", r->peer_tool, 1);
	fprintf(f, "\"ok\":%s,", r->ok ? "true" : "false");
	jstr(f, "error", r->why, 1);
	j_outcome(f, r);
	fprintf(f, "\"qp\":{\"qpn\":%u,\"psn\":%u,\"remote_qpn\":%u,\"remote_psn\":%u,\"mtu\":%u", r->local_qpn,
		r->local_psn, r->remote_qpn, r->remote_psn, r->mtu);
	if (st)
		j_qp_stats(f, st);
	fprintf(f, "},");
	if (r->s)
		fprintf(f, "\"wire\":{\"tx_frames\":%" PRIu64 ",\"tx_errors\":%" PRIu64 ",\"tx_drops\":%" PRIu64 ",\"rx_frames\":%" PRIu64
			",\"rx_roce\":%" PRIu64 ",\"rx_qp1\":%" PRIu64 ",\"rx_no_qp\":%" PRIu64
			",\"rx_icrc_bad\":%" PRIu64 ",\"rx_kernel_drops\":%" PRIu64 "},",
			r->s->st.tx_frames, r->s->st.tx_errors, r->s->st.tx_drops, r->s->st.rx_frames, r->s->st.rx_roce,
			r->s->st.rx_qp1, r->s->st.rx_no_qp, r->s->st.rx_icrc_bad, r->s->st.kernel_drops);
	fprintf(f, "\"cm\":{\"tx\":%" PRIu64 ",\"rx\":%" PRIu64 ",\"retx\":%" PRIu64 ",\"rej_rx\":%" PRIu64
		",\"mra_rx\":%" PRIu64 "}}\n",
		r->cm_tx, r->cm_rx, r->cm_retx, r->cm_rej, r->cm_mra);
}

void report_cm(struct report *r, const struct cm *cm)
{
	r->cm_tx = cm->tx;
	r->cm_rx = cm->rx;
	r->cm_retx = cm->retx;
	r->cm_rej = cm->rej_rx;
	r->cm_mra = cm->mra_rx;
}

void report_print(const struct report *r, int json)
{
	if (json) {
		report_json(stdout, r);
		report_text(stderr, r);
	} else {
		report_text(stdout, r);
	}
	fflush(stdout);
}
