/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_report.c — the report of an iWARP conversation: perftest's columns
 * (#bytes, #iterations, BW peak, BW average, MsgRate), then the MPA
 * negotiation, the FPDU counters and any Terminate either way; --json puts
 * the same as one JSON object on stdout and the text on stderr.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "iw.h"

#define LINE "---------------------------------------------------------------------------------------\n"

static const char *const fault_names[IW_F__COUNT] = {
	"none", "bad-crc", "bad-marker", "bad-stag", "bad-offset", "msn-gap", "bad-qn", "oversize", "terminate",
	"tcp-rst", "zero-window", "tcp-loss",
};

const char *iw_fault_name(int f)
{
	return f >= 0 && f < IW_F__COUNT ? fault_names[f] : "?";
}

int iw_fault_parse(const char *spec, int *kind, uint64_t *at)
{
	const char *at_s = strchr(spec, '@'), *eq = strchr(spec, '=');
	size_t n = strcspn(spec, "@=");

	*kind = IW_F_NONE;
	for (int k = 1; k < IW_F__COUNT; k++)
		if (strlen(iw_fault_name(k)) == n && !strncmp(spec, iw_fault_name(k), n))
			*kind = k;
	if (*kind == IW_F_NONE || (*kind == IW_F_TCP_LOSS) != (eq != NULL))
		return -1;
	if (*kind == IW_F_TCP_LOSS)
		return at_s ? -1 : iw_tcp_loss_parse(eq + 1, at);
	*at = UINT64_MAX;
	if (at_s) {
		char *end;

		*at = strtoull(at_s + 1, &end, 0);
		if (*end || end == at_s + 1)
			return -1;
	}
	return 0;
}

const char *iw_rtr_name(int rtr)
{
	return rtr == IW_RTR_WRITE ? "write" : rtr == IW_RTR_READ ? "read" : rtr == IW_RTR_SEND ? "send" : "none";
}

static double secs(const struct iw_report *r)
{
	return r->t_end > r->t_start ? (double)(r->t_end - r->t_start) / 1e9 : 0;
}

static const char *title(const struct iw_report *r)
{
	if (!r->op)
		return "iWARP";
	if (!strcmp(r->op, "write"))
		return "RDMA_Write BW Test";
	if (!strcmp(r->op, "read"))
		return "RDMA_Read BW Test";
	if (!strcmp(r->op, "ucmatose"))
		return "ucmatose (SENDs each way)";
	if (!strcmp(r->op, "rping"))
		return "rping (SEND, RDMA READ, RDMA WRITE per round)";
	return "Send BW Test";
}

static void term_text(FILE *f, const char *dir, const struct iw_term *t)
{
	const char *e = roce_term_etype_name(t->layer, t->etype), *c = roce_term_code_name(t->layer, t->etype, t->code);

	if (!t->have)
		return;
	fprintf(f, " Terminate %s: layer %s (%u) etype %s (%u) code %s (0x%02x)%s%s\n", dir,
		roce_term_layer_name(t->layer) ? roce_term_layer_name(t->layer) : "?", t->layer, e ? e : "?", t->etype,
		c ? c : "?", t->code, t->hdrct & ROCE_TERM_HDRCT_D ? ", DDP header copied" : "",
		t->hdrct & ROCE_TERM_HDRCT_R ? ", RDMAP header copied" : "");
}

static void report_text(FILE *f, const struct iw_report *r)
{
	const struct iw *w = r->w;
	double s = secs(r), bw = s > 0 ? (double)r->completed * (double)r->size / s / 1e6 : 0;

	fprintf(f, LINE);
	fprintf(f, "                    %s (rocegen %s, --transport iwarp, --oob %s)\n", title(r), r->role,
		r->oob ? r->oob : "mpa");
	fprintf(f, " MPA rev %u  CRC %s  markers tx %s rx %s  %s IRD %u ORD %u (peer IRD %u ORD %u)  RTR %s%s\n",
		w->rev, w->crc ? "on" : "off", w->mk_tx ? "on" : "off", w->mk_rx ? "on" : "off",
		w->enhanced ? "enhanced" : "basic", w->ird, w->ord, w->peer_ird, w->peer_ord, iw_rtr_name(w->rtr),
		w->p2p ? " (peer-to-peer)" : "");
	fprintf(f, " MULPDU %u (TCP_MAXSEG %u)%s\n", w->mulpdu, w->mss, w->rejected ? "  MPA: rejected" : "");
	fprintf(f, LINE);
	fprintf(f, " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
	fprintf(f, " %-10" PRIu64 " %-10" PRIu64 "       %-10.2f         %-10.2f           %.6f\n", r->size,
		r->completed, bw, bw, s > 0 ? (double)r->completed / s / 1e6 : 0);
	fprintf(f, LINE);
	fprintf(f, " completed %" PRIu64 "  in %.3f s", r->completed, s);
	if (r->have_crc)
		fprintf(f, "  crc32 0x%08x", r->crc);
	if (r->verified)
		fprintf(f, "  data %s", r->mismatches ? "MISMATCH" : "verified");
	fprintf(f, "\n FPDUs: sent %" PRIu64 ", received %" PRIu64 "; CRC bad %" PRIu64 ", markers bad %" PRIu64
		"; markers sent %" PRIu64 ", received %" PRIu64 "; RTR sent %" PRIu64 ", received %" PRIu64 "\n",
		w->st.tx_fpdu, w->st.rx_fpdu, w->st.rx_crc_bad, w->st.rx_marker_bad, w->st.tx_markers,
		w->st.rx_markers, w->st.rtr_tx, w->st.rtr_rx);
	fprintf(f, " faults fired:");
	for (int k = 1; k < IW_F__COUNT; k++)
		if (w->st.faults[k])
			fprintf(f, " %s %" PRIu64, fault_names[k], w->st.faults[k]);
	fprintf(f, "\n TCP: retransmissions %" PRIu64 ", longest send %" PRIu64 " ms", iw_tcp_retrans(w),
		w->tcp.max_block_ms);
	if (w->tcp.stall_ms)
		fprintf(f, ", stopped reading %" PRIu64 " ms (zero window)", w->tcp.stall_ms);
	if (w->tcp.rst_tx)
		fprintf(f, ", RST sent after %u bytes of an FPDU", w->tcp.cut_bytes);
	if (w->tcp.reset_rx)
		fprintf(f, ", reset by the peer with %u bytes of an FPDU unplaced", w->tcp.partial_bytes);
	if (w->tcp.loss_ppm)
		fprintf(f, ", dropping %.2f %% of the segments with data received (tcp-loss), %" PRIu64
			" received out of order", (double)w->tcp.loss_ppm / 1e4, iw_tcp_ooo(w));
	fprintf(f, "\n");
	term_text(f, "sent", &w->term_tx);
	term_text(f, "received", &w->term_rx);
	if (!r->ok)
		fprintf(f, " FAILED: %s\n", r->why ? r->why : "?");
	fprintf(f, LINE);
}

static void jterm(FILE *f, const char *k, const struct iw_term *t)
{
	const char *e = roce_term_etype_name(t->layer, t->etype), *c = roce_term_code_name(t->layer, t->etype, t->code);

	if (!t->have) {
		fprintf(f, "\"%s\":null,", k);
		return;
	}
	fprintf(f, "\"%s\":{\"layer\":%u,\"etype\":%u,\"code\":%u,\"hdrct\":%u,\"layer_name\":\"%s\","
		"\"etype_name\":\"%s\",\"code_name\":\"%s\"},", k, t->layer, t->etype, t->code, t->hdrct,
		roce_term_layer_name(t->layer) ? roce_term_layer_name(t->layer) : "?", e ? e : "?", c ? c : "?");
}

static void report_json(FILE *f, const struct iw_report *r)
{
	const struct iw *w = r->w;
	double s = secs(r), bw = s > 0 ? (double)r->completed * (double)r->size / s / 1e6 : 0;

	fprintf(f, "{\"role\":\"%s\",\"transport\":\"iwarp\",\"oob\":\"%s\",\"op\":\"%s\",\"ok\":%s,", r->role,
		r->oob ? r->oob : "mpa", r->op ? r->op : "", r->ok ? "true" : "false");
	fprintf(f, "\"size\":%" PRIu64 ",\"iters\":%" PRIu64 ",\"completed\":%" PRIu64 ",", r->size, r->iters,
		r->completed);
	fprintf(f, "\"seconds\":%.6f,\"bw_peak_mbs\":%.3f,\"bw_avg_mbs\":%.3f,\"msg_rate_mpps\":%.6f,", s, bw, bw,
		s > 0 ? (double)r->completed / s / 1e6 : 0);
	fprintf(f, "\"mpa\":{\"rev\":%u,\"crc\":%s,\"markers_tx\":%s,\"markers_rx\":%s,\"enhanced\":%s,"
		"\"p2p\":%s,\"rtr\":\"%s\",\"ird\":%u,\"ord\":%u,\"peer_ird\":%u,\"peer_ord\":%u,\"rejected\":%s,"
		"\"req_flags\":%u,\"rep_flags\":%u},", w->rev, w->crc ? "true" : "false", w->mk_tx ? "true" : "false",
		w->mk_rx ? "true" : "false", w->enhanced ? "true" : "false", w->p2p ? "true" : "false",
		iw_rtr_name(w->rtr), w->ird, w->ord, w->peer_ird, w->peer_ord, w->rejected ? "true" : "false",
		w->req_flags, w->rep_flags);
	fprintf(f, "\"mulpdu\":%u,\"mss\":%u,\"mulpdu_changes\":%" PRIu64 ",", w->mulpdu, w->mss, w->st.mulpdu_changes);
	fprintf(f, "\"data\":{");
	if (r->have_crc)
		fprintf(f, "\"crc\":\"0x%08x\",", r->crc);
	fprintf(f, "\"mismatches\":%" PRIu64 ",\"verified\":%s},", r->mismatches, r->verified ? "true" : "false");
	fprintf(f, "\"fpdu\":{\"tx\":%" PRIu64 ",\"rx\":%" PRIu64 ",\"tx_bytes\":%" PRIu64 ",\"rx_bytes\":%" PRIu64
		",\"crc_bad\":%" PRIu64 ",\"marker_bad\":%" PRIu64 ",\"markers_tx\":%" PRIu64 ",\"markers_rx\":%" PRIu64
		",\"rtr_tx\":%" PRIu64 ",\"rtr_rx\":%" PRIu64 ",\"reads_served\":%" PRIu64 "},", w->st.tx_fpdu,
		w->st.rx_fpdu, w->st.tx_bytes, w->st.rx_bytes, w->st.rx_crc_bad, w->st.rx_marker_bad, w->st.tx_markers,
		w->st.rx_markers, w->st.rtr_tx, w->st.rtr_rx, w->st.read_served);
	fprintf(f, "\"msgs_rx\":{\"send\":%" PRIu64 ",\"write\":%" PRIu64 ",\"read_req\":%" PRIu64
		",\"read_resp\":%" PRIu64 ",\"terminate\":%" PRIu64 "},", w->st.rx_msgs[ROCE_RDMAP_SEND] +
		w->st.rx_msgs[ROCE_RDMAP_SEND_SE] + w->st.rx_msgs[ROCE_RDMAP_SEND_INV] + w->st.rx_msgs[ROCE_RDMAP_SEND_SE_INV],
		w->st.rx_msgs[ROCE_RDMAP_WRITE], w->st.rx_msgs[ROCE_RDMAP_READ_REQ], w->st.rx_msgs[ROCE_RDMAP_READ_RESP],
		w->st.rx_msgs[ROCE_RDMAP_TERMINATE]);
	fprintf(f, "\"faults\":{");
	for (int k = 1; k < IW_F__COUNT; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k > 1 ? "," : "", fault_names[k], w->st.faults[k]);
	fprintf(f, "},");
	fprintf(f, "\"tcp\":{\"retrans\":%" PRIu64 ",\"max_send_block_ms\":%" PRIu64 ",\"stall_ms\":%" PRIu64
		",\"rst_tx\":%s,\"cut_bytes\":%u,\"reset_rx\":%s,\"partial_bytes\":%u,\"loss_pct\":%.4f,"
		"\"rcv_ooopack\":%" PRIu64 "},", iw_tcp_retrans(w),
		w->tcp.max_block_ms, w->tcp.stall_ms, w->tcp.rst_tx ? "true" : "false", w->tcp.cut_bytes,
		w->tcp.reset_rx ? "true" : "false", w->tcp.partial_bytes, (double)w->tcp.loss_ppm / 1e4, iw_tcp_ooo(w));
	jterm(f, "term_tx", &w->term_tx);
	jterm(f, "term_rx", &w->term_rx);
	fprintf(f, "\"peer_closed\":%s,\"why\":\"%s\"}\n", w->eof ? "true" : "false", r->ok ? "" : (r->why ? r->why : ""));
}

void iw_report_print(const struct iw_report *r, int json)
{
	if (json) {
		report_json(stdout, r);
		report_text(stderr, r);
	} else {
		report_text(stdout, r);
	}
	fflush(stdout);
}
