/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c — batch snapshots and the summary report, as text and as JSON
 * lines.  The JSON keys of a flow are the counter names of lib/seq.h and
 * man/rocetop.8: duplicate_request, out_of_sequence, out_of_seq_request,
 * retransmissions, psn_gaps, missing_psns, acks, nak_seq_err,
 * nak_invalid_request, nak_remote_access, nak_remote_op, rnr_nak, ecn_ce,
 * cnp, icrc_bad, …
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "json.h"
#include "listing.h"
#include "report.h"

/* "1 frame", "2 frames": the noun after a count. */
static const char *pl(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static const char *const op_names[OP__COUNT] = { "send", "write", "read", "atomic" };

static int is_rc(const struct flow *f) { return f->kind == FK_RC || f->kind == FK_XRC; }
static int has_seq(const struct flow *f) { return f->kind != FK_IWARP; }

/* Counters of a flow's seq state, zero when it has no anomaly block. */
struct fc {
	uint32_t dup, oos, oosr, retrans, ooo, gaps, missing, nak_seq, nak_inv, nak_acc, nak_op,
		 nak_other, rnr, implied, dup_acks, unsolicited, gbn, sr, rnr_timers, gap_max;
	uint32_t ep[ROCE_SEQ_TRIG__COUNT];
	uint32_t episodes;
};

static void fc_get(const struct flow *f, struct fc *c)
{
	const struct roce_seq_anom *x = has_seq(f) ? f->u.seq.x : NULL;

	memset(c, 0, sizeof *c);
	if (!x)
		return;
	c->dup = x->duplicate_request;
	c->oos = x->out_of_sequence;
	c->oosr = x->out_of_seq_request;
	c->retrans = x->retransmissions;
	c->ooo = x->out_of_order;
	c->gaps = x->psn_gaps;
	c->missing = roce_seq_missing(&f->u.seq);
	c->nak_seq = x->nak_seq_err;
	c->nak_inv = x->nak_invalid_request;
	c->nak_acc = x->nak_remote_access;
	c->nak_op = x->nak_remote_op;
	c->nak_other = x->nak_other;
	c->rnr = x->rnr_nak;
	c->implied = x->implied_nak;
	c->dup_acks = x->dup_acks;
	c->unsolicited = x->unsolicited;
	c->gbn = x->go_back_n;
	c->sr = x->selective;
	c->rnr_timers = x->rnr_timers;
	c->gap_max = x->timeout_gap_max_us;
	for (int i = 0; i < ROCE_SEQ_TRIG__COUNT; i++) {
		c->ep[i] = x->episodes[i];
		c->episodes += x->episodes[i];
	}
}

static int timeout_exp(uint32_t gap_us)
{
	return gap_us ? (int)lround(log2(gap_us / 4.096)) : 0;
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

static int by_bytes(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a, *y = *(const struct flow *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x < y ? -1 : x > y;
}

static const struct engine *sort_engine;
static uint64_t sort_now;

static int by_rate(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a, *y = *(const struct flow *const *)b;
	double rx[3], ry[3];

	flow_rates(sort_engine, x, sort_now, rx);
	flow_rates(sort_engine, y, sort_now, ry);
	if (rx[0] != ry[0])
		return rx[0] < ry[0] ? 1 : -1;
	return by_bytes(a, b);
}

static const struct flow **sorted(const struct engine *e, int (*cmp)(const void *, const void *))
{
	const struct flow **v = malloc((e->nflows ? e->nflows : 1) * sizeof *v);

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < e->nflows; i++)
		v[i] = &e->flows[i];
	qsort(v, e->nflows, sizeof *v, cmp);
	return v;
}

/* Sums over live flows plus evicted ones. */
struct totals {
	uint64_t dup, oos, oosr, retrans, gaps, missing, acks, nak_seq, nak_inv, nak_acc, nak_op, rnr,
		 ecn_ce, cnp, icrc_bad, requests, episodes, ooo;
	uint32_t connections, conn_cm, conn_traffic, conn_tcp, half;
};

static void totals_get(const struct engine *e, struct totals *t)
{
	memset(t, 0, sizeof *t);
	t->dup = e->ev.duplicate_request;
	t->oos = e->ev.out_of_sequence;
	t->oosr = e->ev.out_of_seq_request;
	t->retrans = e->ev.retransmissions;
	t->gaps = e->ev.psn_gaps;
	t->missing = e->ev.missing_psns;
	t->acks = e->ev.acks;
	t->nak_seq = e->ev.nak_seq_err;
	t->rnr = e->ev.rnr_nak;
	t->ecn_ce = e->ev.ecn_ce;
	t->cnp = e->ev.cnp;
	t->icrc_bad = e->ev.icrc_bad;
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		struct fc c;

		if (f->peer && f->peer > i + 1) {
			t->connections++;
			t->conn_cm += f->pair_how == FP_CM;
			t->conn_traffic += f->pair_how == FP_TRAFFIC;
			t->conn_tcp += f->pair_how == FP_TCP;
		} else if (!f->peer && is_rc(f) && f->u.seq.requests) {
			t->half++;
		}
		if (!has_seq(f))
			continue;
		fc_get(f, &c);
		t->requests += f->u.seq.requests;
		t->dup += c.dup;
		t->oos += c.oos;
		t->oosr += c.oosr;
		t->retrans += c.retrans;
		t->episodes += c.episodes;
		t->ooo += c.ooo;
		t->gaps += c.gaps;
		t->missing += c.missing;
		t->acks += f->u.seq.acks;
		t->nak_seq += c.nak_seq;
		t->nak_inv += c.nak_inv;
		t->nak_acc += c.nak_acc;
		t->nak_op += c.nak_op;
		t->rnr += c.rnr;
		t->ecn_ce += f->u.seq.ecn_ce;
		t->cnp += f->u.seq.cnp;
		t->icrc_bad += f->u.seq.icrc_bad;
	}
}


/* ---- JSON ---------------------------------------------------------------------------- */

/* Microseconds from ns: whole when they are, else to the ns. */
static const char *us_str(uint64_t ns, char *b, size_t cap)
{
	if (ns % 1000)
		snprintf(b, cap, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	else
		snprintf(b, cap, "%" PRIu64, ns / 1000);
	return b;
}

/* A quantile as us_str, or "null" / "-" when the histogram was evicted. */
static const char *q_str(const struct engine *e, const struct roce_seq_dir *d, enum roce_rtt_which w, double q,
			 const char *none, char *b, size_t cap)
{
	uint64_t ns;

	if (!roce_rtt_stat(d, w)->n)
		return "0";
	if (roce_rtt_quantile(engine_rtt(e, d), d, w, q, &ns))
		return none;
	return us_str(ns, b, cap);
}

static void json_hist(FILE *o, const struct engine *e, const char *key, const struct roce_seq_dir *d,
		      enum roce_rtt_which w)
{
	const struct roce_rtt_stat *s = roce_rtt_stat(d, w);
	char b[5][32];

	fprintf(o, ",\"%s\":{\"n\":%" PRIu32 ",\"min\":%s,\"p50\":%s,\"p99\":%s,\"max\":%s,\"sum\":%s}", key,
		s->n, us_str(s->n ? s->min_ns : 0, b[0], sizeof b[0]), q_str(e, d, w, 0.5, "null", b[1], sizeof b[1]),
		q_str(e, d, w, 0.99, "null", b[2], sizeof b[2]), us_str(s->n ? s->max_ns : 0, b[3], sizeof b[3]),
		us_str(s->sum_ns, b[4], sizeof b[4]));
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

	if (has_seq(f)) {
		fc_get(f, &c);
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

	if (is_rc(f))
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
		timeout_exp(c->gap_max));
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

	fc_get(f, &c);
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

	sort_engine = e;
	sort_now = now;
	v = sorted(e, by_rate);
	totals_get(e, &t);
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

	fprintf(o, "{\"type\":\"summary\",\"source\":");
	json_string(o, c->source ? c->source : "");
	fprintf(o, ",\"frames\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"duration_s\":%.6f,\"avg_bps\":%.0f", t->frames,
		t->bytes, t->frames ? (double)(t->last_ns - t->first_ns) / 1e9 : 0.0, engine_avg_bps(e));
	fprintf(o, ",\"roce\":{\"v1\":%" PRIu64 ",\"v2\":%" PRIu64 ",\"v2_1021\":%" PRIu64 ",\"v2_port\":%" PRIu64
		"},\"other_frames\":%" PRIu64, t->roce[ROCE_VER_V1], t->roce[ROCE_VER_V2], t->roce[ROCE_VER_V2_1021],
		t->roce[ROCE_VER_V2_PORT], t->roce[ROCE_VER_NONE]);
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
	const struct flow **v = sorted(e, by_bytes);
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

	totals_get(e, &s);
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
	sum_flows_json(o, e, c, now);
	fputs("}\n", o);
}

/* ---- text ---------------------------------------------------------------------------------- */

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

	sort_engine = e;
	sort_now = now;
	v = sorted(e, by_rate);
	totals_get(e, &t);
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
		fc_get(f, &fcs);
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
	fprintf(o, "; %s us min/p50/p99/max %s/%s/%s/%s (n=%" PRIu32 ")", what, us_str(s->min_ns, b[0], sizeof b[0]),
		q_str(e, d, w, 0.5, "-", b[1], sizeof b[1]), q_str(e, d, w, 0.99, "-", b[2], sizeof b[2]),
		us_str(s->max_ns, b[3], sizeof b[3]), s->n);
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
	fc_get(f, &c);
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
				      " us (timeout exponent %d)", c.gap_max, timeout_exp(c.gap_max));
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
		flow_ulp_name(f) ? flow_ulp_name(f) : "unknown (no CM)", roce_seq_pmtu(&f->u.seq),
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
		if (!p && !(is_rc(f) && f->u.seq.requests))
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

	totals_get(e, &s);
	sum_head_text(o, e, c, &s);
	v = sorted(e, by_bytes);
	sum_flows_text(o, e, v, top);
	sum_conns_text(o, e, &s, top);
	sum_anomalies_text(o, e, v, top);
	free(v);
	if (e->nports) {
		fprintf(o, "\nPorts (link-level flow control at %.0f Gb/s)\n", e->cfg.link_bps / 1e9);
		for (uint32_t i = 0; i < e->nports; i++)
			port_text(o, &e->ports[i], e->t.last_ns);
	}
}
