/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_ptreport.c — the report of perftest's conversation over iWARP
 * (iw_perftest.h): perftest's columns with our figures, and the peer's
 * results message where it holds figures; both streams' MPA.
 */
#include <inttypes.h>
#include <string.h>
#include "iw_perftest.h"

uint32_t iwpt_credits(const struct iwpt *p)
{
	const uint8_t *c = p->credit + 4;   /* perftest's credit_buf: host order */

	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

static const char *title(const char *op)
{
	return !strcmp(op, "write") ? "RDMA_Write BW Test" : !strcmp(op, "read") ? "RDMA_Read BW Test" :
	       "Send BW Test";
}

static void mpa_line(FILE *f, const char *name, const struct iw *w)
{
	fprintf(f, " %s: MPA rev %u CRC %s markers %s/%s IRD %u ORD %u (peer IRD %u ORD %u) RTR %s%s;"
		" FPDUs sent %" PRIu64 " received %" PRIu64 "\n", name, w->rev, w->crc ? "on" : "off",
		w->mk_tx ? "on" : "off", w->mk_rx ? "on" : "off", w->ird, w->ord, w->peer_ird, w->peer_ord,
		iw_rtr_name(w->rtr), w->p2p ? " (peer-to-peer)" : "", w->st.tx_fpdu, w->st.rx_fpdu);
}

#define LINE "---------------------------------------------------------------------------------------\n"
#define COLS " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"

static void res_line(FILE *f, const char *who, const struct iwpt_result *r)
{
	fprintf(f, " %-10" PRIu64 " %-10" PRIu64 "       %-10.2f         %-10.2f           %.6f%s\n", r->size,
		r->iters, r->bw_peak, r->bw_avg, r->msg_rate, who);
}

static void text(FILE *f, const struct iwpt *p, int ok, const char *why)
{
	fprintf(f, LINE);
	fprintf(f, "                    %s (rocegen %s, --transport iwarp, --oob cm --app perftest)\n",
		title(p->op), p->server ? "server" : "client");
	fprintf(f, " Transport type : IW   Connection type : RC   Data ex. method : rdma_cm   peer: perftest %s\n",
		p->pver[0] ? p->pver : "-");
	fprintf(f, " remote address: STag 0x%08x VA 0x%016" PRIx64 "   credits %s %u\n", p->rstag, p->rva,
		p->server ? "sent" : "received", p->server ? p->credits_tx : iwpt_credits(p));
	mpa_line(f, "control", &p->ctl);
	mpa_line(f, "data", &p->dat);
	fprintf(f, LINE COLS);
	res_line(f, "", &p->mine);
	if (p->have_theirs)
		res_line(f, p->server ? "   (the client's results message)" : "   (the server's results message)",
			 &p->theirs);
	fprintf(f, LINE);
	fprintf(f, " completed %" PRIu64 " of %" PRIu64 "  in %.3f s  crc32 0x%08x  control SENDs %" PRIu64
		"/%" PRIu64 "\n", p->done, p->iters, p->t1 > p->t0 ? (double)(p->t1 - p->t0) / 1e9 : 0.0, p->crc,
		p->ch.sends, p->ch.recvs);
	if (!ok)
		fprintf(f, " FAILED: %s\n", why);
	fprintf(f, LINE);
}

static void jres(FILE *f, const char *k, const struct iwpt_result *r)
{
	fprintf(f, "\"%s\":{\"size\":%" PRIu64 ",\"iters\":%" PRIu64 ",\"bw_peak_mbs\":%.3f,\"bw_avg_mbs\":%.3f,"
		"\"msg_rate_mpps\":%.6f},", k, r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
}

static void jmpa(FILE *f, const char *k, const struct iw *w)
{
	fprintf(f, "\"%s\":{\"rev\":%u,\"crc\":%s,\"markers_tx\":%s,\"markers_rx\":%s,\"rtr\":\"%s\",\"p2p\":%s,"
		"\"ird\":%u,\"ord\":%u,\"peer_ird\":%u,\"peer_ord\":%u,\"fpdu_tx\":%" PRIu64 ",\"fpdu_rx\":%" PRIu64
		",\"crc_bad\":%" PRIu64 ",\"term_rx\":%s,\"term_tx\":%s},", k, w->rev, w->crc ? "true" : "false",
		w->mk_tx ? "true" : "false", w->mk_rx ? "true" : "false", iw_rtr_name(w->rtr),
		w->p2p ? "true" : "false", w->ird, w->ord, w->peer_ird, w->peer_ord, w->st.tx_fpdu, w->st.rx_fpdu,
		w->st.rx_crc_bad, w->term_rx.have ? "true" : "false", w->term_tx.have ? "true" : "false");
}

static void json(FILE *f, const struct iwpt *p, int ok, const char *why)
{
	fprintf(f, "{\"role\":\"%s\",\"transport\":\"iwarp\",\"oob\":\"cm\",\"app\":\"perftest\",\"op\":\"%s\","
		"\"ok\":%s,\"peer_tool\":\"perftest %s\",", p->server ? "server" : "client", p->op, ok ? "true" : "false", p->pver);
	fprintf(f, "\"size\":%u,\"iters\":%" PRIu64 ",\"completed\":%" PRIu64 ",\"seconds\":%.6f,", p->size,
		p->iters, p->done, p->t1 > p->t0 ? (double)(p->t1 - p->t0) / 1e9 : 0.0);
	fprintf(f, "\"bw_peak_mbs\":%.3f,\"bw_avg_mbs\":%.3f,\"msg_rate_mpps\":%.6f,", p->mine.bw_peak,
		p->mine.bw_avg, p->mine.msg_rate);
	if (p->have_theirs)
		jres(f, "peer_result", &p->theirs);
	else
		fprintf(f, "\"peer_result\":null,");
	fprintf(f, "\"remote\":{\"stag\":%u,\"va\":%" PRIu64 "},\"credits\":%u,\"crc\":\"0x%08x\",", p->rstag,
		p->rva, p->server ? p->credits_tx : iwpt_credits(p), p->crc);
	fprintf(f, "\"control\":{\"sends\":%" PRIu64 ",\"recvs\":%" PRIu64 "},", p->ch.sends, p->ch.recvs);
	jmpa(f, "mpa_control", &p->ctl);
	jmpa(f, "mpa", &p->dat);
	fprintf(f, "\"why\":\"%s\"}\n", ok ? "" : why);
}

void iwpt_report(const struct iwpt *p, int ok, const char *why, int json_out)
{
	if (json_out)
		json(stdout, p, ok, why);
	text(json_out ? stderr : stdout, p, ok, why);
	fflush(stdout);
}
