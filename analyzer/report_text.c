/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_text.c — batch snapshots and the summary as text: a top-like table
 * per snapshot; the summary's sections (capture, flows, connections,
 * anomalies, ports).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "json.h"
#include "listing.h"
#include "diag_out.h"
#include "report_int.h"

/* "1 frame", "2 frames": the noun after a count. */
static const char *pl(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static char *flow_label(const struct engine *e, const struct flow *f, char *buf, size_t cap)
{
	char a[64], b[64];

	host_str(e, f->src, a, sizeof a);
	host_str(e, f->dst, b, sizeof b);
	if (f->kind == FK_IWARP)
		snprintf(buf, cap, "%s:%u -> %s:%u", a, f->qpn >> 16, b, f->qpn & 0xffff);
	else
		snprintf(buf, cap, "%s -> %s QP 0x%06x", a, b, f->qpn);
	return buf;
}

static const char *rate_str(double bps, char *buf, size_t cap)
{
	static const char *const u[] = { "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s" };
	int i = 0;

	while (bps >= 1000 && i < 4) {
		bps /= 1000;
		i++;
	}
	snprintf(buf, cap, i ? "%.2f %s" : "%.0f %s", bps, u[i]);
	return buf;
}


void report_snapshot_text(FILE *o, const struct engine *e, const struct report_ctx *c, unsigned n,
			  uint64_t now)
{
	unsigned top = c->top ? c->top : 20;
	const struct flow **v;
	struct totals t;
	double sum = 0, r[3];
	char lab[160], rs[3][32];
	time_t sec = (time_t)(now / 1000000000ull);
	struct tm tm;

	v = rep_sorted_by_rate(e, now);
	rep_totals_get(e, &t);
	for (uint32_t i = 0; i < e->nflows; i++) {
		flow_rates(e, &e->flows[i], now, r);
		sum += r[0];
	}
	gmtime_r(&sec, &tm);
	fprintf(o, "rocetop %u - %02d:%02d:%02d.%03u UTC, %" PRIu64 " %s, %" PRIu32 " %s (%" PRIu64
		" evicted), %s\n", n, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(now % 1000000000ull / 1000000),
		e->t.frames, pl(e->t.frames, "frame", "frames"), e->nflows, pl(e->nflows, "flow", "flows"),
		e->t.evicted, rate_str(sum, rs[0], sizeof rs[0]));
	fprintf(o, "retransmissions %" PRIu64 " (%.2f%% of %" PRIu64 " requests), NAK seq %" PRIu64 ", RNR %" PRIu64
		", CNP %" PRIu64 ", ECN-CE %" PRIu64 ", PFC %" PRIu64, t.retrans,
		t.requests ? 100.0 * (double)t.retrans / (double)t.requests : 0.0, t.requests, t.nak_seq, t.rnr,
		e->t.cnp, e->t.roce_ce, e->t.pfc_frames);
	if (c->drops.valid)
		fprintf(o, ", captured %" PRIu64 ", dropped %" PRIu64 " (ring full %" PRIu64 " times; +%" PRIu64
			" by the interface", c->drops.sum.received, c->drops.sum.dropped, c->drops.sum.freezes,
			c->drops.sum.if_dropped);
	if (c->drops.valid)
		fprintf(o, c->drops.sum.nic_valid ? ", +%" PRIu64 " by the NIC)" : ")", c->drops.sum.nic_dropped);
	fprintf(o, "\n%-52s %-5s %9s %11s %12s %12s %12s %6s %5s\n", "FLOW", "KIND", "PACKETS", "BYTES", "RATE 2s",
		"RATE 10s", "RATE 40s", "RETX", "NAK");
	for (uint32_t i = 0; v && i < e->nflows && i < top; i++) {
		const struct flow *f = v[i];
		struct fc fcs;

		flow_rates(e, f, now, r);
		rep_fc_get(f, &fcs);
		fprintf(o, "%-52s %-5s %9" PRIu64 " %11" PRIu64 " %12s %12s %12s %6" PRIu32 " %5" PRIu32 "\n",
			flow_label(e, f, lab, sizeof lab), flow_kind_name(f->kind), f->packets, f->bytes,
			rate_str(r[0], rs[0], sizeof rs[0]), rate_str(r[1], rs[1], sizeof rs[1]),
			rate_str(r[2], rs[2], sizeof rs[2]), f->kind == FK_IWARP ? f->u.iw.tcp_retrans : fcs.retrans,
			fcs.nak_seq);
	}
	if (c->devices_text)
		c->devices_text(o, c->devices);
	fputc('\n', o);
	free(v);
}

static void hist_text(FILE *o, const struct engine *e, const char *what, const struct roce_seq_dir *d,
		      enum roce_rtt_which w)
{
	const struct roce_rtt_stat *s = roce_rtt_stat(d, w);
	char b[4][32];

	if (!s->n)
		return;
	fprintf(o, "; %s us min/p50/p99/max %s/%s/%s/%s (n=%" PRIu32 ")", what, rep_us_str(s->min_ns, b[0], sizeof b[0]),
		rep_q_str(e, d, w, 0.5, "-", b[1], sizeof b[1]), rep_q_str(e, d, w, 0.99, "-", b[2], sizeof b[2]),
		rep_us_str(s->max_ns, b[3], sizeof b[3]), s->n);
}

/* One direction of a connection: what its requests met. */
static void dir_text(FILE *o, const struct engine *e, const struct flow *f)
{
	const struct roce_seq_dir *d = &f->u.seq;
	char a[64], b[64];

	fprintf(o, "    %s -> %s: %" PRIu32 " requests, messages send %" PRIu32 " write %" PRIu32 " read %" PRIu32
		" atomic %" PRIu32, host_str(e, f->src, a, sizeof a), host_str(e, f->dst, b, sizeof b), d->requests,
		f->msgs[OP_SEND], f->msgs[OP_WRITE], f->msgs[OP_READ], f->msgs[OP_ATOMIC]);
	if (d->acks)
		fprintf(o, "; %" PRIu32 " ACKs (%.2f requests per ACK), MSN %" PRIu32, d->acks,
			(double)d->requests / d->acks, d->msn);
	hist_text(o, e, "RTT", d, ROCE_RTT_ACK);
	hist_text(o, e, "READ RTT", d, ROCE_RTT_READ);
	fprintf(o, "; retransmission scheme %s\n", roce_seq_scheme_name(roce_seq_scheme(d)));
}

static void iw_text(FILE *o, const struct engine *e, const struct flow *f)
{
	const struct iw_flow *w = &f->u.iw;
	char lab[160];

	fprintf(o, "    %s: %" PRIu32 " segments, %" PRIu32 " FPDUs (CRC good %" PRIu32 ", bad %" PRIu32
		", unchecked %" PRIu32 "), TCP retransmissions %" PRIu32 ", gaps %" PRIu32 ", terminates %" PRIu32,
		flow_label(e, f, lab, sizeof lab), w->segments, w->fpdus, w->crc_good, w->crc_bad, w->crc_unchecked,
		w->tcp_retrans, w->tcp_gaps, w->terminates);
	if (w->mpa_req || w->mpa_rep)
		fprintf(o, "; MPA %s rev %u markers %s CRC %s", w->mpa_req ? "request" : "reply", w->mpa_rev,
			w->mpa_flags & ROCE_MPA_FLAG_M ? "on" : "off", w->mpa_flags & ROCE_MPA_FLAG_C ? "on" : "off");
	if (w->sync_lost || w->unsync_bytes)
		fprintf(o, "; out of sync %" PRIu32 " times, %" PRIu64 " bytes unframed, resyncs %" PRIu32
			" (heuristic %" PRIu32 ")", w->sync_lost, w->unsync_bytes, w->resyncs, w->resync_heuristic);
	fputc('\n', o);
}

static int flow_has_anomaly(const struct flow *f)
{
	if (f->kind == FK_IWARP)
		return f->u.iw.tcp_retrans || f->u.iw.crc_bad || f->u.iw.terminates || f->u.iw.tcp_gaps ||
		       f->u.iw.sync_lost || f->u.iw.unsync_bytes;
	return f->u.seq.x || f->u.seq.ecn_ce || f->u.seq.cnp || f->u.seq.icrc_bad;
}

/* name=value for every non-zero anomaly counter of a flow; 0 when none. */
static int anomalies_text(FILE *o, const struct engine *e, const struct flow *f)
{
	const struct roce_seq_dir *d = &f->u.seq;
	char lab[160], buf[1024];
	int n = 0;
	struct fc c;

	if (f->kind == FK_IWARP) {
		const struct iw_flow *w = &f->u.iw;

		if (!flow_has_anomaly(f))
			return 0;
		fprintf(o, "  %s: tcp_retransmissions %" PRIu32 ", tcp_gaps %" PRIu32 ", crc_bad %" PRIu32
			", terminates %" PRIu32, flow_label(e, f, lab, sizeof lab), w->tcp_retrans, w->tcp_gaps,
			w->crc_bad, w->terminates);
		if (w->sync_lost || w->unsync_bytes)
			fprintf(o, ", out_of_sync %" PRIu32 " (%" PRIu64 " bytes)", w->sync_lost, w->unsync_bytes);
		fputc('\n', o);
		return 1;
	}
	rep_fc_get(f, &c);
#define ADD(name, v) \
	do { \
		if (v) \
			n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s %" PRIu32, n ? ", " : "", name, (uint32_t)(v)); \
	} while (0)
	ADD("duplicate_request", c.dup);
	ADD("out_of_sequence", c.oos);
	ADD("out_of_seq_request", c.oosr);
	ADD("retransmissions", c.retrans);
	if (c.episodes) {
		n += snprintf(buf + n, sizeof buf - (size_t)n, " in %" PRIu32 " episodes (", c.episodes);
		for (int i = 0, k = 0; i < ROCE_SEQ_TRIG__COUNT; i++)
			if (c.ep[i])
				n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s %" PRIu32, k++ ? ", " : "",
					      roce_seq_trigger_name(i), c.ep[i]);
		n += snprintf(buf + n, sizeof buf - (size_t)n, ")");
		if (c.ep[ROCE_SEQ_TRIG_TIMEOUT])
			n += snprintf(buf + n, sizeof buf - (size_t)n, ", longest silence %" PRIu32
				      " us (timeout exponent %d)", c.gap_max, rep_timeout_exp(c.gap_max));
	}
	ADD("out_of_order", c.ooo);
	ADD("psn_gaps", c.gaps);
	ADD("missing_psns", c.missing);
	ADD("nak_seq_err", c.nak_seq);
	ADD("nak_invalid_request", c.nak_inv);
	ADD("nak_remote_access", c.nak_acc);
	ADD("nak_remote_op", c.nak_op);
	ADD("nak_other", c.nak_other);
	ADD("rnr_nak", c.rnr);
	if (c.rnr_timers) {
		n += snprintf(buf + n, sizeof buf - (size_t)n, " (timers");
		for (unsigned i = 0; i < 32; i++)
			if (c.rnr_timers & (1u << i))
				n += snprintf(buf + n, sizeof buf - (size_t)n, " %" PRIu32 " us",
					      roce_rnr_timer_us((uint8_t)i));
		n += snprintf(buf + n, sizeof buf - (size_t)n, ")");
	}
	ADD("implied_nak", c.implied);
	ADD("dup_acks", c.dup_acks);
	ADD("unsolicited", c.unsolicited);
	ADD("ecn_ce", d->ecn_ce);
	ADD("cnp", d->cnp);
	ADD("icrc_bad", d->icrc_bad);
#undef ADD
	{
		uint64_t bad, frames;

		if (n && flow_icrc_unverifiable(e, f, &bad, &frames))
			n += snprintf(buf + n, sizeof buf - (size_t)n, "; ICRC unverifiable: %" PRIu64 " of the"
				      " connection's %" PRIu64 " frames fail (a wrong ICRC recipe or a middlebox"
				      " rewriting headers?), not analysed", bad, frames);
	}
	if (!n)
		return 0;
	fprintf(o, "  %s: %s\n", flow_label(e, f, lab, sizeof lab), buf);
	return 1;
}

/* The summary's head: the listing's totals, the capture, drops per interface, fabric mode, totals. */
static void sum_head_text(FILE *o, const struct engine *e, const struct report_ctx *c, const struct totals *s)
{
	const struct engine_totals *t = &e->t;
	struct listing lst;
	enum fabric_mode fm;
	char ev[512], rs[32];

	/* the same two lines as `rocetop -r FILE` without analysis always gave */
	memset(&lst, 0, sizeof lst);
	lst.frames = t->frames;
	memcpy(lst.roce, t->roce, sizeof lst.roce);
	memcpy(lst.icrc, t->icrc, sizeof lst.icrc);
	lst.truncated = t->truncated;
	lst.invalid = t->invalid;
	lst.iwarp = t->iwarp;
	listing_totals(&lst, o);

	fm = engine_fabric_mode(e, ev, sizeof ev);
	fprintf(o, "\n%s: %.6f s, %" PRIu64 " bytes (average %s); %" PRIu32 " %s (%" PRIu64 " evicted at --max-flows %"
		PRIu32 "), %" PRIu32 " %s (%" PRIu32 " paired by CM, %" PRIu32 " by traffic, %" PRIu32
		" iWARP), %" PRIu32 " request %s unpaired\n", c->source ? c->source : "capture",
		t->frames ? (double)(t->last_ns - t->first_ns) / 1e9 : 0.0, t->bytes,
		rate_str(engine_avg_bps(e), rs, sizeof rs), e->nflows, pl(e->nflows, "flow", "flows"), t->evicted,
		e->cfg.max_flows, s->connections, pl(s->connections, "connection", "connections"), s->conn_cm,
		s->conn_traffic, s->conn_tcp, s->half, pl(s->half, "flow", "flows"));
	for (unsigned i = 0; c->drops.valid && i < c->drops.n; i++) {
		const struct report_drop_counts *d = &c->drops.iface[i];

		fprintf(o, "capture %s: %" PRIu64 " received, %" PRIu64 " dropped (ring full %" PRIu64 " times, ring of %"
			PRIu64 " frames), %" PRIu64 " dropped by the interface", d->name, d->received, d->dropped,
			d->freezes, d->ring_frames, d->if_dropped);
		if (d->nic_valid)
			fprintf(o, ", %" PRIu64 " discarded by the NIC (%s)", d->nic_dropped, d->nic_counters);
		fputc('\n', o);
	}
	fprintf(o, "fabric mode: %s (%s)\n", fabric_mode_name(fm), ev);
	fprintf(o, "totals: %" PRIu64 " requests, duplicate_request %" PRIu64 ", out_of_sequence %" PRIu64
		", out_of_seq_request %" PRIu64 ", retransmissions %" PRIu64 ", psn_gaps %" PRIu64 ", missing_psns %"
		PRIu64 ", acks %" PRIu64 ", nak_seq_err %" PRIu64 ", rnr_nak %" PRIu64 ", ecn_ce %" PRIu64 ", cnp %"
		PRIu64 ", icrc_bad %" PRIu64 "\n", s->requests, s->dup, s->oos, s->oosr, s->retrans, s->gaps, s->missing,
		s->acks, s->nak_seq, s->rnr, s->ecn_ce, s->cnp, s->icrc_bad);
}

/* "Flows": the top flows by bytes (v is sorted so), one line each. */
static void sum_flows_text(FILE *o, const struct engine *e, const struct flow **v, unsigned top)
{
	char lab[160], rs[32];

	fprintf(o, "\nFlows (by bytes%s)\n", e->nflows > top ? ", largest first" : "");
	fprintf(o, "  %-52s %-5s %-7s %9s %11s %7s %7s %7s %7s %12s\n", "FLOW", "KIND", "VERSION", "PACKETS", "BYTES",
		"SEND", "WRITE", "READ", "ATOMIC", "AVG RATE");
	for (uint32_t i = 0; v && i < e->nflows && i < top; i++) {
		const struct flow *f = v[i];
		double avg = flow_avg_bps(e, f);

		fprintf(o, "  %-52s %-5s %-7s %9" PRIu64 " %11" PRIu64 " %7" PRIu32 " %7" PRIu32 " %7" PRIu32 " %7" PRIu32
			" %12s\n", flow_label(e, f, lab, sizeof lab), flow_kind_name(f->kind),
			f->kind == FK_IWARP ? "tcp" : roce_version_name(f->version), f->packets, f->bytes,
			f->msgs[OP_SEND], f->msgs[OP_WRITE], f->msgs[OP_READ], f->msgs[OP_ATOMIC],
			avg > 0 ? rate_str(avg, rs, sizeof rs) : "-");
	}
	if (v && e->nflows > top)
		fprintf(o, "  … and %" PRIu32 " more flows (--json lists them all)\n", e->nflows - top);
}

/* One connection (p NULL: a request flow whose responses were not seen), then each direction. */
static void conn_text(FILE *o, const struct engine *e, const struct flow *f, const struct flow *p)
{
	char a[64], b[64];

	host_str(e, f->src, a, sizeof a);
	host_str(e, f->dst, b, sizeof b);
	if (f->kind == FK_IWARP) {
		fprintf(o, "  %s:%u <-> %s:%u iWARP\n", a, f->qpn >> 16, b, f->qpn & 0xffff);
		iw_text(o, e, f);
		if (p)
			iw_text(o, e, p);
		return;
	}
	if (p)
		fprintf(o, "  %s QP 0x%06" PRIx32 " <-> %s QP 0x%06" PRIx32 "  %s, paired by %s", a, p->qpn, b,
			f->qpn, flow_kind_name(f->kind), flow_pair_name(f->pair_how));
	else
		fprintf(o, "  %s QP ? -> %s QP 0x%06" PRIx32 "  %s, responses not seen", a, b, f->qpn,
			flow_kind_name(f->kind));
	fprintf(o, ", upper layer %s, path MTU %" PRIu32 " (%s), retransmission scheme %s\n",
		flow_ulp_name(f) ? flow_ulp_name(f) : f->pair_how == FP_CM ? "unknown (a CM service ID rocetop does not know)" :
		"unknown (no CM)", roce_seq_pmtu(&f->u.seq),
		roce_seq_pmtu_src_name(roce_seq_pmtu_source(&f->u.seq)),
		roce_seq_scheme_name(roce_seq_scheme_join(roce_seq_scheme(&f->u.seq),
							  p ? roce_seq_scheme(&p->u.seq) : ROCE_SEQ_SCHEME_NONE)));
	dir_text(o, e, f);
	if (p)
		dir_text(o, e, p);
}

/* "Connections": each pair once, and RC request flows whose responses were not seen. */
static void sum_conns_text(FILE *o, const struct engine *e, const struct totals *s, unsigned top)
{
	int any = 0;

	fprintf(o, "\nConnections\n");
	for (uint32_t i = 0, shown = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i], *p = flow_peer(e, f);

		if (p && f->peer < i + 1)
			continue;
		if (!p && !(rep_is_rc(f) && f->u.seq.requests))
			continue;
		any = 1;
		if (shown++ == top) {
			fprintf(o, "  … and %" PRIu32 " more (--json lists them all)\n",
				s->connections + s->half - top);
			break;
		}
		conn_text(o, e, f, p);
	}
	if (!any)
		fprintf(o, "  (none)\n");
}

/* "Anomalies": flows with one, largest first; responses to no flow; the RTT memory cap. */
static void sum_anomalies_text(FILE *o, const struct engine *e, const struct flow **v, unsigned top)
{
	struct roce_rtt_totals r;
	int any = 0;

	fprintf(o, "\nAnomalies\n");
	for (uint32_t i = 0, shown = 0; v && i < e->nflows; i++) {
		FILE *out = shown < top ? o : NULL;

		if (out)
			shown += (unsigned)anomalies_text(out, e, v[i]);
		else if (flow_has_anomaly(v[i]))
			shown++;
		any |= shown > 0;
		if (i + 1 == e->nflows && shown > top)
			fprintf(o, "  … and %u more flows with anomalies (--json lists them all)\n", shown - top);
	}
	if (e->t.orphan_responses) {
		fprintf(o, "  %" PRIu64 " responses answered requests of no flow seen\n", e->t.orphan_responses);
		any = 1;
	}
	engine_rtt_totals(e, &r);
	if (r.requests_evicted || r.histograms_evicted) {
		fprintf(o, "  RTT memory cap (%" PRIu64 " KiB) reached: %" PRIu64 " outstanding requests dropped"
			" unsampled, %" PRIu64 " histograms dropped (their quantiles show as -)\n",
			r.mem_cap >> 10, r.requests_evicted, r.histograms_evicted);
		any = 1;
	}
	if (!any)
		fprintf(o, "  (none)\n");
}

/* One port's line, then a line per PFC priority that paused or resumed, then 802.3x PAUSE. */
static void port_text(FILE *o, const struct port *p, uint64_t now)
{
	fprintf(o, "  %02x:%02x:%02x:%02x:%02x:%02x: %" PRIu64 " %s, %" PRIu32 " PFC, %" PRIu32
		" PAUSE, %" PRIu32 " CNM", p->mac[0], p->mac[1], p->mac[2], p->mac[3], p->mac[4], p->mac[5],
		p->frames, pl(p->frames, "frame", "frames"), p->pfc_frames, p->pause_frames, p->cnm);
	if (p->dcbx_seen)
		fprintf(o, "; DCBX PFC enable 0x%02x%s", p->dcbx_pfc_enable, p->dcbx_willing ? " (willing)" : "");
	fputc('\n', o);
	for (int k = 0; k < 8; k++) {
		const struct pause_stat *ps = &p->pfc[k];

		if (ps->pauses || ps->xon)
			fprintf(o, "    priority %d: %" PRIu32 " pauses, %" PRIu32 " XON, %" PRIu64
				" quanta, paused %.3f us\n", k, ps->pauses, ps->xon, ps->quanta,
				pause_paused_ns(ps, now) / 1e3);
	}
	if (p->pause.pauses || p->pause.xon)
		fprintf(o, "    802.3x: %" PRIu32 " pauses, %" PRIu32 " XON, %" PRIu64
			" quanta, paused %.3f us\n", p->pause.pauses, p->pause.xon, p->pause.quanta,
			pause_paused_ns(&p->pause, now) / 1e3);
}

void report_summary_text(FILE *o, const struct engine *e, const struct report_ctx *c)
{
	unsigned top = c->summary_top ? c->summary_top : 50;
	const struct flow **v;
	struct totals s;

	rep_totals_get(e, &s);
	sum_head_text(o, e, c, &s);
	v = rep_sorted(e, rep_by_bytes);
	sum_flows_text(o, e, v, top);
	sum_conns_text(o, e, &s, top);
	sum_anomalies_text(o, e, v, top);
	free(v);
	if (e->nports) {
		fprintf(o, "\nPorts (link-level flow control at %.0f Gb/s)\n", e->cfg.link_bps / 1e9);
		for (uint32_t i = 0; i < e->nports; i++)
			port_text(o, &e->ports[i], e->t.last_ns);
	}
	diag_text(o, e, c);
}
