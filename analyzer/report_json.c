/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_json.c — batch snapshots and the summary as JSON lines: one object
 * per snapshot (the top flows by rate), one for the summary (totals, fabric
 * mode, ports, connections, every flow with every counter).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "diag_out.h"
#include "report_int.h"

static const char *const op_names[OP__COUNT] = { "send", "write", "read", "atomic" };

static void json_hist(FILE *o, const struct engine *e, const char *key, const struct roce_seq_dir *d,
		      enum roce_rtt_which w)
{
	const struct roce_rtt_stat *s = roce_rtt_stat(d, w);
	char b[5][32];

	fprintf(o, ",\"%s\":{\"n\":%" PRIu32 ",\"min\":%s,\"p50\":%s,\"p99\":%s,\"max\":%s,\"sum\":%s}", key,
		s->n, rep_us_str(s->n ? s->min_ns : 0, b[0], sizeof b[0]), rep_q_str(e, d, w, 0.5, "null", b[1], sizeof b[1]),
		rep_q_str(e, d, w, 0.99, "null", b[2], sizeof b[2]), rep_us_str(s->n ? s->max_ns : 0, b[3], sizeof b[3]),
		rep_us_str(s->sum_ns, b[4], sizeof b[4]));
}

static void json_rtt_mem(FILE *o, const struct engine *e)
{
	struct roce_rtt_totals r;

	engine_rtt_totals(e, &r);
	fprintf(o, ",\"rtt_state\":{\"outstanding\":%" PRIu64 ",\"requests_evicted\":%" PRIu64
		",\"histograms\":%" PRIu64 ",\"histograms_evicted\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"peak_bytes\":%" PRIu64 ",\"cap_bytes\":%" PRIu64 "}", r.outstanding, r.requests_evicted,
		r.histograms, r.histograms_evicted, r.mem_bytes, r.mem_peak, r.mem_cap);
}

static void json_addr(FILE *o, const char *key, const struct engine *e, uint32_t host)
{
	char a[64];

	fprintf(o, "\"%s\":", key);
	json_string(o, host_str(e, host, a, sizeof a));
}

/* What every flow object starts with: who, which QP or ports, how much, how fast. */
static void json_flow_id(FILE *o, const struct engine *e, const struct flow *f, const double r[3])
{
	fputc('{', o);
	json_addr(o, "src", e, f->src);
	fputc(',', o);
	json_addr(o, "dst", e, f->dst);
	if (f->kind == FK_IWARP)
		fprintf(o, ",\"destqp\":null,\"sport\":%u,\"dport\":%u", f->qpn >> 16, f->qpn & 0xffff);
	else
		fprintf(o, ",\"destqp\":%" PRIu32 ",\"version\":\"%s\"", f->qpn, roce_version_name(f->version));
	fprintf(o, ",\"kind\":\"%s\",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"rate_bps\":[%.0f,%.0f,%.0f]", flow_kind_name(f->kind), f->packets, f->bytes, r[0], r[1], r[2]);
}

/* The end of a snapshot's flow object: the few anomaly counters a top view shows. */
static void json_flow_brief(FILE *o, const struct flow *f)
{
	struct fc c;

	if (rep_has_seq(f)) {
		rep_fc_get(f, &c);
		fprintf(o, ",\"retransmissions\":%" PRIu32 ",\"nak_seq_err\":%" PRIu32 ",\"cnp\":%" PRIu32
			",\"ecn_ce\":%" PRIu32 "}", c.retrans, c.nak_seq, f->u.seq.cnp, f->u.seq.ecn_ce);
	} else {
		fprintf(o, ",\"tcp_retransmissions\":%" PRIu32 "}", f->u.iw.tcp_retrans);
	}
}

/* A summary flow's times, messages and pairing, whatever its kind. */
static void json_flow_common(FILE *o, const struct engine *e, const struct flow *f)
{
	const struct flow *peer = flow_peer(e, f);

	fprintf(o, ",\"avg_bps\":%.0f,\"first_s\":%.6f,\"last_s\":%.6f", flow_avg_bps(e, f),
		(double)(flow_first_ns(e, f) - e->t.first_ns) / 1e9,
		(double)(f->last_ns - e->t.first_ns) / 1e9);
	fprintf(o, ",\"messages\":{");
	for (int i = 0; i < OP__COUNT; i++)
		fprintf(o, "%s\"%s\":%" PRIu32, i ? "," : "", op_names[i], f->msgs[i]);
	fprintf(o, "},\"message_bytes\":%" PRIu64 ",\"message_max\":%" PRIu32, f->msg_bytes, f->msg_max);
	fprintf(o, ",\"paired\":\"%s\"", flow_pair_name(f->pair_how));
	if (peer && f->kind != FK_IWARP)
		fprintf(o, ",\"peer_destqp\":%" PRIu32, peer->qpn);
	if (flow_ulp_name(f)) {
		fprintf(o, ",\"ulp\":");
		json_string(o, flow_ulp_name(f));
	}
	if (e->file_names && e->nfile_names > 1 && flow_file_mask(e, f)) {   /* -r A -r B: its files */
		uint32_t m = flow_file_mask(e, f);
		int first = 1;

		fprintf(o, ",\"files\":[");
		for (unsigned i = 0; i < e->nfile_names && i < 32; i++)
			if (m & (1u << i)) {
				fprintf(o, "%s", first ? "" : ",");
				json_string(o, e->file_names[i]);
				first = 0;
			}
		fprintf(o, "]");
	}
}

/* An iWARP flow: MPA negotiation, TCP and FPDU counters, RDMAP opcodes, framing sync. */
static void json_flow_iwarp(FILE *o, const struct iw_flow *w)
{
	fprintf(o, ",\"mpa\":{\"req\":%u,\"rep\":%u,\"markers\":%s,\"crc\":%s,\"rev\":%u}",
		w->mpa_req, w->mpa_rep, w->mpa_flags & ROCE_MPA_FLAG_M ? "true" : "false",
		w->mpa_flags & ROCE_MPA_FLAG_C ? "true" : "false", w->mpa_rev);
	fprintf(o, ",\"segments\":%" PRIu32 ",\"tcp_retransmissions\":%" PRIu32 ",\"tcp_gaps\":%" PRIu32
		",\"fpdus\":%" PRIu32 ",\"crc_good\":%" PRIu32 ",\"crc_bad\":%" PRIu32
		",\"terminates\":%" PRIu32 ",\"read_responses\":%" PRIu32 ",\"rdmap_ops\":{",
		w->segments, w->tcp_retrans, w->tcp_gaps, w->fpdus, w->crc_good, w->crc_bad,
		w->terminates, w->read_resp);
	for (int i = 0, n = 0; i < 16; i++)
		if (w->ops[i]) {
			fprintf(o, "%s", n++ ? "," : "");
			json_string(o, roce_rdmap_op_name((uint8_t)i) ? roce_rdmap_op_name((uint8_t)i) : "?");
			fprintf(o, ":%" PRIu32, w->ops[i]);
		}
	fprintf(o, "},\"out_of_sync\":{\"times\":%" PRIu32 ",\"bytes\":%" PRIu64 ",\"resyncs\":%" PRIu32
		",\"heuristic_resyncs\":%" PRIu32 "}}", w->sync_lost, w->unsync_bytes, w->resyncs,
		w->resync_heuristic);
}

/* The requests of a RoCE flow: path MTU, counts, retransmissions and their episodes, PSN order. */
static void json_seq_requests(FILE *o, const struct flow *f, const struct fc *c)
{
	const struct roce_seq_dir *d = &f->u.seq;

	if (rep_is_rc(f))
		fprintf(o, ",\"pmtu\":%" PRIu32 ",\"pmtu_source\":\"%s\"", roce_seq_pmtu(d),
			roce_seq_pmtu_src_name(roce_seq_pmtu_source(d)));
	fprintf(o, ",\"requests\":%" PRIu32 ",\"responses\":%" PRIu32, d->requests, d->responses);
	fprintf(o, ",\"duplicate_request\":%" PRIu32 ",\"out_of_sequence\":%" PRIu32
		",\"out_of_seq_request\":%" PRIu32 ",\"retransmissions\":%" PRIu32, c->dup, c->oos, c->oosr,
		c->retrans);
	fprintf(o, ",\"retransmission_episodes\":{");
	for (int i = 0; i < ROCE_SEQ_TRIG__COUNT; i++)
		fprintf(o, "%s\"%s\":%" PRIu32, i ? "," : "", roce_seq_trigger_name(i), c->ep[i]);
	fprintf(o, "},\"timeout_gap_max_us\":%" PRIu32 ",\"timeout_exponent\":%d", c->gap_max,
		rep_timeout_exp(c->gap_max));
	fprintf(o, ",\"out_of_order\":%" PRIu32 ",\"psn_gaps\":%" PRIu32 ",\"missing_psns\":%" PRIu32,
		c->ooo, c->gaps, c->missing);
}

/* The responses a RoCE flow's requests met: ACKs, NAKs by syndrome, RNR timers. */
static void json_seq_acks(FILE *o, const struct roce_seq_dir *d, const struct fc *c)
{
	fprintf(o, ",\"acks\":%" PRIu32 ",\"dup_acks\":%" PRIu32 ",\"nak_seq_err\":%" PRIu32
		",\"nak_invalid_request\":%" PRIu32 ",\"nak_remote_access\":%" PRIu32
		",\"nak_remote_op\":%" PRIu32 ",\"nak_other\":%" PRIu32 ",\"rnr_nak\":%" PRIu32,
		d->acks, c->dup_acks, c->nak_seq, c->nak_inv, c->nak_acc, c->nak_op, c->nak_other, c->rnr);
	fprintf(o, ",\"rnr_timers_us\":[");
	for (unsigned i = 0, n = 0; i < 32; i++)
		if (c->rnr_timers & (1u << i))
			fprintf(o, "%s%" PRIu32, n++ ? "," : "", roce_rnr_timer_us((uint8_t)i));
	fprintf(o, "],\"implied_nak\":%" PRIu32 ",\"unsolicited\":%" PRIu32, c->implied, c->unsolicited);
	if (d->acks)
		fprintf(o, ",\"requests_per_ack\":%.2f", (double)d->requests / d->acks);
	else
		fprintf(o, ",\"requests_per_ack\":null");
	fprintf(o, ",\"msn\":%" PRIu32, d->msn);
}

/* A RoCE flow's sequence analysis, then RTT, congestion, ICRC and the retransmission scheme. */
static void json_flow_seq(FILE *o, const struct engine *e, const struct flow *f)
{
	const struct roce_seq_dir *d = &f->u.seq;
	uint64_t bad, frames;
	struct fc c;

	rep_fc_get(f, &c);
	json_seq_requests(o, f, &c);
	json_seq_acks(o, d, &c);
	json_hist(o, e, "rtt_us", d, ROCE_RTT_ACK);
	json_hist(o, e, "read_rtt_us", d, ROCE_RTT_READ);
	fprintf(o, ",\"ecn_ce\":%" PRIu32 ",\"cnp\":%" PRIu32 ",\"icrc_bad\":%" PRIu32, d->ecn_ce, d->cnp,
		d->icrc_bad);
	if (flow_icrc_unverifiable(e, f, &bad, &frames))
		fprintf(o, ",\"icrc_unverifiable\":true");
	fprintf(o, ",\"go_back_n\":%" PRIu32 ",\"selective_repeat\":%" PRIu32 ",\"scheme\":\"%s\"}", c.gbn,
		c.sr, roce_seq_scheme_name(roce_seq_scheme(d)));
}

/* One flow object: brief in snapshots, every counter in the summary (full). */
static void json_flow(FILE *o, const struct engine *e, const struct flow *f, uint64_t now, int full)
{
	double r[3];

	flow_rates(e, f, now, r);
	json_flow_id(o, e, f, r);
	if (!full) {
		json_flow_brief(o, f);
		return;
	}
	json_flow_common(o, e, f);
	if (f->kind == FK_IWARP)
		json_flow_iwarp(o, &f->u.iw);
	else
		json_flow_seq(o, e, f);
}

static void json_drop_counts(FILE *o, const struct report_drop_counts *d)
{
	fprintf(o, "\"received\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"freezes\":%" PRIu64 ",\"if_dropped\":%" PRIu64
		",\"ring_frames\":%" PRIu64, d->received, d->dropped, d->freezes, d->if_dropped, d->ring_frames);
	/* the NIC's own discards: null where it has none of the counters */
	if (d->nic_valid)
		fprintf(o, ",\"nic_dropped\":%" PRIu64, d->nic_dropped);
	else
		fputs(",\"nic_dropped\":null", o);
	if (d->nic_counters) {
		fputs(",\"nic_counters\":", o);
		json_string(o, d->nic_counters);
	}
}

/* "capture": the sums, then each interface's counts */
static void json_drops(FILE *o, const struct report_ctx *c)
{
	if (!c->drops.valid)
		return;
	fputs(",\"capture\":{", o);
	json_drop_counts(o, &c->drops.sum);
	fputs(",\"interfaces\":[", o);
	for (unsigned i = 0; i < c->drops.n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", o);
		json_string(o, c->drops.iface[i].name ? c->drops.iface[i].name : "");
		fputc(',', o);
		json_drop_counts(o, &c->drops.iface[i]);
		fputc('}', o);
	}
	fputs("]}", o);
}

/* "threads": frames per analysis thread (rocetop --threads) */
static void json_threads(FILE *o, const struct report_ctx *c)
{
	if (c->nthreads < 2)
		return;
	fputs(",\"threads\":[", o);
	for (unsigned i = 0; i < c->nthreads; i++)
		fprintf(o, "%s%" PRIu64, i ? "," : "", c->thread_frames[i]);
	fputc(']', o);
}

void report_snapshot_json(FILE *o, const struct engine *e, const struct report_ctx *c, unsigned n,
			  uint64_t now)
{
	unsigned top = c->top ? c->top : 20;
	const struct flow **v;
	struct totals t;

	v = rep_sorted_by_rate(e, now);
	rep_totals_get(e, &t);
	fprintf(o, "{\"type\":\"snapshot\",\"n\":%u,\"time\":%.6f,\"frames\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"flows\":%" PRIu32 ",\"flows_evicted\":%" PRIu64, n, now / 1e9, e->t.frames, e->t.bytes,
		e->nflows, e->t.evicted);
	json_drops(o, c);
	fprintf(o, ",\"retransmissions\":%" PRIu64 ",\"nak_seq_err\":%" PRIu64 ",\"cnp\":%" PRIu64
		",\"ecn_ce\":%" PRIu64 ",\"pfc_frames\":%" PRIu64 ",\"top\":[", t.retrans, t.nak_seq, e->t.cnp,
		e->t.roce_ce, e->t.pfc_frames);
	for (uint32_t i = 0; v && i < e->nflows && i < top; i++) {
		if (i)
			fputc(',', o);
		json_flow(o, e, v[i], now, 0);
	}
	fputc(']', o);
	diag_json(o, e, c);   /* live: raised and cleared as the snapshots go */
	if (c->devices_json) {
		fputs(",\"devices\":", o);
		c->devices_json(o, c->devices);
	}
	fputs("}\n", o);
	free(v);
}

/* The summary's opening: the source, frame counts by RoCE version and link, ICRC verdicts. */
static void sum_frames_json(FILE *o, const struct engine *e, const struct report_ctx *c)
{
	const struct engine_totals *t = &e->t;
	/* other_frames: neither RoCE nor iWARP (iwarp_frames), as the terminal view */
	uint64_t iw = t->iwarp < t->roce[ROCE_VER_NONE] ? t->iwarp : t->roce[ROCE_VER_NONE];

	fprintf(o, "{\"type\":\"summary\",\"source\":");
	json_string(o, c->source ? c->source : "");
	fprintf(o, ",\"frames\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"duration_s\":%.6f,\"avg_bps\":%.0f", t->frames,
		t->bytes, t->frames ? (double)(t->last_ns - t->first_ns) / 1e9 : 0.0, engine_avg_bps(e));
	fprintf(o, ",\"roce\":{\"v1\":%" PRIu64 ",\"v2\":%" PRIu64 ",\"v2_1021\":%" PRIu64 ",\"v2_port\":%" PRIu64
		"},\"other_frames\":%" PRIu64, t->roce[ROCE_VER_V1], t->roce[ROCE_VER_V2], t->roce[ROCE_VER_V2_1021],
		t->roce[ROCE_VER_V2_PORT], t->roce[ROCE_VER_NONE] - iw);
	/* given only when present, so that RoCE-only summaries keep their shape */
	if (t->roce[ROCE_VER_IB])
		fprintf(o, ",\"ib_frames\":%" PRIu64 ",\"ib_lid_moves\":%" PRIu64, t->roce[ROCE_VER_IB],
			t->ib_lid_moves);
	if (t->encapsulated)
		fprintf(o, ",\"mirror_copies\":%" PRIu64 ",\"mirror_truncated\":%" PRIu64, t->encapsulated,
			t->encap_truncated);
	if (t->erf_records)
		fprintf(o, ",\"erf_records\":%" PRIu64 ",\"erf_lost\":%" PRIu64, t->erf_records, t->erf_lost);
	fprintf(o, ",\"icrc\":{\"good\":%" PRIu64 ",\"bad\":%" PRIu64 ",\"unchecked\":%" PRIu64
		"},\"truncated\":%" PRIu64 ",\"invalid\":%" PRIu64, t->icrc[ROCE_ICRC_GOOD], t->icrc[ROCE_ICRC_BAD],
		t->icrc[ROCE_ICRC_UNCHECKED], t->truncated, t->invalid);
	fprintf(o, ",\"iwarp_frames\":%" PRIu64 ",\"dcb_frames\":%" PRIu64 ",\"cm_mads\":%" PRIu64, t->iwarp,
		t->dcb, t->cm_mads);
}

/* The flow table's occupancy and how its flows paired into connections. */
static void sum_table_json(FILE *o, const struct engine *e, const struct totals *s)
{
	fprintf(o, ",\"flows_live\":%" PRIu32 ",\"flows_evicted\":%" PRIu64 ",\"max_flows\":%" PRIu32,
		e->nflows, e->t.evicted, e->cfg.max_flows);
	fprintf(o, ",\"connections\":{\"paired\":%" PRIu32 ",\"cm\":%" PRIu32 ",\"traffic\":%" PRIu32
		",\"tcp\":%" PRIu32 ",\"unpaired_request_flows\":%" PRIu32 "}", s->connections, s->conn_cm,
		s->conn_traffic, s->conn_tcp, s->half);
	fprintf(o, ",\"orphan_responses\":%" PRIu64, e->t.orphan_responses);
}

/* "fabric": the mode verdict with its evidence and the counts it rests on. */
static void sum_fabric_json(FILE *o, const struct engine *e)
{
	const struct engine_totals *t = &e->t;
	enum fabric_mode fm;
	char ev[512];

	fm = engine_fabric_mode(e, ev, sizeof ev);
	fprintf(o, ",\"fabric\":{\"mode\":");
	json_string(o, fabric_mode_name(fm));
	fprintf(o, ",\"evidence\":");
	json_string(o, ev);
	fprintf(o, ",\"pfc_frames\":%" PRIu64 ",\"pause_frames\":%" PRIu64 ",\"ecn_capable\":%" PRIu64
		",\"ecn_ce\":%" PRIu64 ",\"cnp\":%" PRIu64 ",\"cnm\":%" PRIu64, t->pfc_frames, t->pause_frames,
		t->roce_ect + t->roce_ce, t->roce_ce, t->cnp, t->cnm);
	/* native IB marks congestion with BTH FECN/BECN (counted in ecn_ce too) */
	if (t->roce[ROCE_VER_IB])
		fprintf(o, ",\"ib_fecn\":%" PRIu64 ",\"ib_becn\":%" PRIu64, t->ib_fecn, t->ib_becn);
	fputc('}', o);
}

static void sum_totals_json(FILE *o, const struct totals *s)
{
	fprintf(o, ",\"totals\":{\"requests\":%" PRIu64 ",\"duplicate_request\":%" PRIu64
		",\"out_of_sequence\":%" PRIu64 ",\"out_of_seq_request\":%" PRIu64 ",\"retransmissions\":%" PRIu64
		",\"psn_gaps\":%" PRIu64 ",\"missing_psns\":%" PRIu64 ",\"acks\":%" PRIu64 ",\"nak_seq_err\":%" PRIu64
		",\"nak_invalid_request\":%" PRIu64 ",\"nak_remote_access\":%" PRIu64 ",\"nak_remote_op\":%" PRIu64
		",\"rnr_nak\":%" PRIu64 ",\"ecn_ce\":%" PRIu64 ",\"cnp\":%" PRIu64 ",\"icrc_bad\":%" PRIu64 "}",
		s->requests, s->dup, s->oos, s->oosr, s->retrans, s->gaps, s->missing, s->acks, s->nak_seq, s->nak_inv,
		s->nak_acc, s->nak_op, s->rnr, s->ecn_ce, s->cnp, s->icrc_bad);
}

/* One port: its PFC priorities that paused or resumed, 802.3x PAUSE, DCBX. */
static void port_json(FILE *o, const struct engine *e, const struct port *p, uint64_t now)
{
	fprintf(o, "{\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\",\"pfc_frames\":%" PRIu32
		",\"pause_frames\":%" PRIu32 ",\"cnm\":%" PRIu32 ",\"pfc\":[", p->mac[0],
		p->mac[1], p->mac[2], p->mac[3], p->mac[4], p->mac[5], p->pfc_frames, p->pause_frames, p->cnm);
	for (int k = 0, n = 0; k < 8; k++) {
		const struct pause_stat *ps = &p->pfc[k];

		if (!ps->pauses && !ps->xon)
			continue;
		fprintf(o, "%s{\"priority\":%d,\"pauses\":%" PRIu32 ",\"xon\":%" PRIu32 ",\"quanta\":%" PRIu64
			",\"pause_time_ns\":%" PRIu64 ",\"paused_ns\":%" PRIu64 "}", n++ ? "," : "", k,
			ps->pauses, ps->xon, ps->quanta,
			(uint64_t)((double)ps->quanta * ROCE_PAUSE_QUANTUM_BITS * 1e9 / (double)e->cfg.link_bps),
			pause_paused_ns(ps, now));
	}
	fprintf(o, "],\"pause\":{\"pauses\":%" PRIu32 ",\"xon\":%" PRIu32 ",\"quanta\":%" PRIu64
		",\"paused_ns\":%" PRIu64 "}", p->pause.pauses, p->pause.xon, p->pause.quanta,
		pause_paused_ns(&p->pause, now));
	if (p->dcbx_seen)
		fprintf(o, ",\"dcbx_pfc\":{\"enable\":%u,\"willing\":%u,\"cap\":%u}", p->dcbx_pfc_enable,
			p->dcbx_willing, p->dcbx_cap);
	fputc('}', o);
}

/* A paired connection: both ends, QPs or ports, and the scheme of both directions together. */
static void conn_json(FILE *o, const struct engine *e, const struct flow *f, const struct flow *p)
{
	enum roce_seq_scheme sch;

	fputc('{', o);
	json_addr(o, "a", e, f->src);
	fputc(',', o);
	json_addr(o, "b", e, f->dst);
	if (f->kind == FK_IWARP) {
		fprintf(o, ",\"a_port\":%u,\"b_port\":%u", f->qpn >> 16, f->qpn & 0xffff);
	} else {
		fprintf(o, ",\"a_qpn\":%" PRIu32 ",\"b_qpn\":%" PRIu32, p->qpn, f->qpn);
		sch = roce_seq_scheme_join(roce_seq_scheme(&f->u.seq), roce_seq_scheme(&p->u.seq));
		fprintf(o, ",\"scheme\":\"%s\"", roce_seq_scheme_name(sch));
	}
	fprintf(o, ",\"kind\":\"%s\",\"paired\":\"%s\"", flow_kind_name(f->kind), flow_pair_name(f->pair_how));
	if (flow_ulp_name(f)) {
		fprintf(o, ",\"ulp\":");
		json_string(o, flow_ulp_name(f));
	}
	fputc('}', o);
}

/* "connections_list": each pair once, from the flow with the lower index */
static void sum_conns_json(FILE *o, const struct engine *e)
{
	int first = 1;

	fprintf(o, ",\"connections_list\":[");
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i], *p = flow_peer(e, f);

		if (!p || f->peer < i + 1)
			continue;
		if (!first)
			fputc(',', o);
		first = 0;
		conn_json(o, e, f, p);
	}
	fputc(']', o);
}

/* "flows": --top N gives the N largest flows by bytes; every total above counts them all */
static void sum_flows_json(FILE *o, const struct engine *e, const struct report_ctx *c, uint64_t now)
{
	const struct flow **v = rep_sorted(e, rep_by_bytes);
	uint32_t n = c->json_top && c->json_top < e->nflows ? c->json_top : e->nflows;

	fprintf(o, ",\"flows_listed\":%" PRIu32 ",\"flows\":[", v ? n : 0);
	for (uint32_t i = 0; v && i < n; i++) {
		if (i)
			fputc(',', o);
		json_flow(o, e, v[i], now, 1);
	}
	free(v);
	fputc(']', o);
}

void report_summary_json(FILE *o, const struct engine *e, const struct report_ctx *c)
{
	uint64_t now = e->t.last_ns;
	struct totals s;

	rep_totals_get(e, &s);
	sum_frames_json(o, e, c);
	json_drops(o, c);
	json_threads(o, c);
	sum_table_json(o, e, &s);
	json_rtt_mem(o, e);
	sum_fabric_json(o, e);
	sum_totals_json(o, &s);
	fprintf(o, ",\"ports\":[");
	for (uint32_t i = 0; i < e->nports; i++) {
		if (i)
			fputc(',', o);
		port_json(o, e, &e->ports[i], now);
	}
	fputc(']', o);
	sum_conns_json(o, e);
	diag_json(o, e, c);
	sum_flows_json(o, e, c, now);
	fputs("}\n", o);
}
