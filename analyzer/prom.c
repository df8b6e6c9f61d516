/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prom.c — the Prometheus exporter: a listening socket and up to
 * MAX_CLIENTS connections, all non-blocking and watched by the capture
 * source's poll(); each GET /metrics renders the engine into memory
 * (open_memstream) and writes it as the socket accepts it.
 *
 * Exposition format: https://prometheus.io/docs/instrumenting/exposition_formats/
 * — "# HELP name text", "# TYPE name counter|gauge", then
 * name{label="value",…} number; in label values \, " and newline are escaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "dcb.h"
#include "diag.h"
#include "prom.h"
#include "webtls.h"

#define MAX_CLIENTS 16
#define REQ_MAX 4096
/* rocetop_diagnosis_active series at most (active verdicts first, then
 * past ones, each most severe first), and verdicts whose raising is
 * followed from scrape to scrape for rocetop_diagnosis_raised_total */
#define PROM_MAX_VERDICTS 100
#define PROM_RAISE_KEYS 4096
#define PROM_MAX_PACING 100     /* CNP sources in the rocetop_cnp_pacing series */
#define STR_(x) #x
#define STR(x) STR_(x)

/* A verdict (its name and subject, hashed) seen at a scrape. */
struct raise_key {
	uint64_t key;
	unsigned long gen;            /* the scrape that last saw it */
	int active;
};

/* rocetop_diagnosis_raised_total: a verdict counts when a scrape first
 * finds it (active or already past: it was raised since the last scrape)
 * and again each time it goes from past to active.  A verdict the
 * diagnosis no longer lists is forgotten. */
struct raises {
	struct raise_key *k;          /* sorted by key */
	size_t n;
	unsigned long gen;
	uint64_t count[DV__COUNT][DS_ERROR + 1];
	uint64_t untracked;           /* raises not followed: PROM_RAISE_KEYS were */
};

struct client {
	int fd;
	uint64_t since;               /* accept order, to drop the oldest when full */
	size_t rlen;
	char req[REQ_MAX];
	char *out;
	size_t olen, off;
	struct webconn *tls;          /* --web-config with TLS: the connection's, else NULL */
};

struct prom {
	int fd;
	unsigned max_flows;
	char addr[128];
	struct source *src;
	const struct engine *e;
	struct client c[MAX_CLIENTS];
	uint64_t accepts;
	unsigned long scrapes;
	void (*extra)(FILE *f, const void *ctx);  /* more series (the device source) */
	const void *extra_ctx;
	void (*diag_in)(const void *ctx, struct diag_input *in);  /* the device view's discards (nic_drop) */
	const void *diag_ctx;
	const struct prom_engines *pe;  /* rocetop --threads: the merged view, or NULL */
	struct webtls *web;             /* --web-config: TLS and basic auth, or NULL */
	struct raises raised;
};

/* ---- the text ------------------------------------------------------------------------------ */

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	head(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* The per-flow label set, with more labels (already escaped) or NULL. */
static void flow_labels(FILE *f, const struct engine *e, const struct flow *fl, const char *more)
{
	char a[64];

	fputs("{src=\"", f);
	esc(f, host_str(e, fl->src, a, sizeof a));
	fputs("\",dst=\"", f);
	esc(f, host_str(e, fl->dst, a, sizeof a));
	if (fl->kind == FK_IWARP)
		fprintf(f, "\",destqp=\"\",sport=\"%u\",dport=\"%u", fl->qpn >> 16, fl->qpn & 0xffff);
	else
		fprintf(f, "\",destqp=\"%" PRIu32, fl->qpn);
	fputs("\",kind=\"", f);
	esc(f, flow_kind_name(fl->kind));
	fprintf(f, "\"%s%s}", more ? "," : "", more ? more : "");
}

/* Per-flow metrics: name suffix, type, help, value. */
enum { V_PACKETS, V_BYTES, V_REQUESTS, V_RETRANS, V_DUP, V_OOS, V_OOSR, V_GAPS, V_MISSING, V_ACKS,
       V_NAK_SEQ, V_NAK_INV, V_NAK_ACC, V_NAK_OP, V_RNR, V_CNP, V_ECN, V_ICRC, V_TCP_RETRANS, V_CRC_BAD,
       V__COUNT };

static const struct {
	const char *name, *type, *help;
} flow_metric[V__COUNT] = {
	[V_PACKETS] = { "rocetop_flow_packets_total", "counter", "Packets of the flow (one direction)." },
	[V_BYTES] = { "rocetop_flow_bytes_total", "counter", "Bytes on the wire of the flow." },
	[V_REQUESTS] = { "rocetop_flow_requests_total", "counter", "RC request packets of the flow's PSN space." },
	[V_RETRANS] = { "rocetop_flow_retransmissions_total", "counter",
			"Request packets whose PSN was already seen in this direction." },
	[V_DUP] = { "rocetop_flow_duplicate_request_total", "counter",
		    "Request packets before the responder's expected PSN (as rxe counts duplicate_request)." },
	[V_OOS] = { "rocetop_flow_out_of_sequence_total", "counter",
		    "Request packets beyond the responder's expected PSN." },
	[V_OOSR] = { "rocetop_flow_out_of_seq_request_total", "counter",
		     "Runs of out-of-sequence requests, one PSN sequence error NAK each (as rxe counts out_of_seq_request)." },
	[V_GAPS] = { "rocetop_flow_psn_gaps_total", "counter", "Times the request PSN jumped ahead." },
	[V_MISSING] = { "rocetop_flow_missing_psns", "gauge", "Request PSNs never seen (open holes included)." },
	[V_ACKS] = { "rocetop_flow_acks_total", "counter", "Positive acknowledgements of the flow's requests." },
	[V_NAK_SEQ] = { "rocetop_flow_nak_seq_err_total", "counter", "PSN sequence error NAKs answering the flow." },
	[V_NAK_INV] = { "rocetop_flow_nak_invalid_request_total", "counter", "Invalid request NAKs." },
	[V_NAK_ACC] = { "rocetop_flow_nak_remote_access_total", "counter", "Remote access error NAKs." },
	[V_NAK_OP] = { "rocetop_flow_nak_remote_op_total", "counter", "Remote operational error NAKs." },
	[V_RNR] = { "rocetop_flow_rnr_nak_total", "counter", "Receiver not ready NAKs." },
	[V_CNP] = { "rocetop_flow_cnp_total", "counter", "Congestion notification packets slowing the flow's sender." },
	[V_ECN] = { "rocetop_flow_ecn_ce_total", "counter", "Packets of the flow marked ECN CE." },
	[V_ICRC] = { "rocetop_flow_icrc_bad_total", "counter", "Packets with a bad ICRC." },
	[V_TCP_RETRANS] = { "rocetop_flow_tcp_retransmissions_total", "counter", "iWARP: TCP segments resent." },
	[V_CRC_BAD] = { "rocetop_flow_mpa_crc_bad_total", "counter", "iWARP: FPDUs with a bad MPA CRC." },
};

/* 1 when the metric exists for the flow, with its value. */
static int flow_value(const struct flow *f, int m, uint64_t *v)
{
	const struct roce_seq_anom *x = flow_anom(f);
	const struct roce_seq_dir *d = &f->u.seq;
	int iw = f->kind == FK_IWARP;

	switch (m) {
	case V_PACKETS: *v = f->packets; return 1;
	case V_BYTES: *v = f->bytes; return 1;
	case V_TCP_RETRANS: *v = f->u.iw.tcp_retrans; return iw;
	case V_CRC_BAD: *v = f->u.iw.crc_bad; return iw;
	default: break;
	}
	if (iw)
		return 0;
	switch (m) {
	case V_REQUESTS: *v = d->requests; break;
	case V_RETRANS: *v = x->retransmissions; break;
	case V_DUP: *v = x->duplicate_request; break;
	case V_OOS: *v = x->out_of_sequence; break;
	case V_OOSR: *v = x->out_of_seq_request; break;
	case V_GAPS: *v = x->psn_gaps; break;
	case V_MISSING: *v = roce_seq_missing(d); break;
	case V_ACKS: *v = d->acks; break;
	case V_NAK_SEQ: *v = x->nak_seq_err; break;
	case V_NAK_INV: *v = x->nak_invalid_request; break;
	case V_NAK_ACC: *v = x->nak_remote_access; break;
	case V_NAK_OP: *v = x->nak_remote_op; break;
	case V_RNR: *v = x->rnr_nak; break;
	case V_CNP: *v = d->cnp; break;
	case V_ECN: *v = d->ecn_ce; break;
	case V_ICRC: *v = d->icrc_bad; break;
	default: return 0;
	}
	return 1;
}

/* The k largest flows by packets (a min-heap of k), largest first. */
/* One per-interface capture counter: which 0 received, 1 dropped, 2 ring
 * full, 3 interface drops (absent when /proc/net/dev does not list it), 4
 * the NIC's own discards (absent when it has none of the counters). */
static void capture_counter(FILE *f, const struct source *src, const struct source_stats *st, unsigned n,
			    const char *name, const char *help, int which)
{
	head(f, name, "counter", help);
	for (unsigned i = 0; i < n; i++) {
		const uint64_t v[] = { st[i].recv, st[i].drop, st[i].freeze, st[i].ifdrop, st[i].nicdrop };

		if (!st[i].valid || (which == 3 && !st[i].ifdrop_valid) || (which == 4 && !st[i].nicdrop_valid))
			continue;
		fprintf(f, "%s{iface=\"", name);
		esc(f, source_iface(src, i));
		fprintf(f, "\"} %" PRIu64 "\n", v[which]);
	}
}

static uint32_t top_flows(const struct engine *e, uint32_t k, uint32_t *out)
{
	uint32_t n = 0;

#define PK(i) (e->flows[out[i]].packets)
	for (uint32_t i = 0; i < e->nflows && k; i++) {
		uint32_t j;

		if (n < k) {
			/* sift up */
			for (j = n++; j && PK((j - 1) / 2) > e->flows[i].packets; j = (j - 1) / 2)
				out[j] = out[(j - 1) / 2];
			out[j] = i;
			continue;
		}
		if (e->flows[i].packets <= PK(0))
			continue;
		/* replace the root, sift down */
		for (j = 0;;) {
			uint32_t l = 2 * j + 1, m = j;
			uint64_t mv = e->flows[i].packets;

			if (l < n && PK(l) < mv)
				m = l, mv = PK(l);
			if (l + 1 < n && PK(l + 1) < mv)
				m = l + 1;
			if (m == j)
				break;
			out[j] = out[m];
			j = m;
		}
		out[j] = i;
	}
	/* heap sort: smallest to the end */
	for (uint32_t end = n; end > 1; end--) {
		uint32_t t = out[0], j = 0, last = out[end - 1];

		out[end - 1] = t;
		for (;;) {
			uint32_t l = 2 * j + 1, m = j;
			uint64_t mv = e->flows[last].packets;

			if (l < end - 1 && PK(l) < mv)
				m = l, mv = PK(l);
			if (l + 1 < end - 1 && PK(l + 1) < mv)
				m = l + 1;
			if (m == j)
				break;
			out[j] = out[m];
			j = m;
		}
		out[j] = last;
	}
#undef PK
	return n;
}

/* ---- RTT histograms ----------------------------------------------------------------------- */

static const double rtt_le[] = { 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3,
				 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 };
#define N_LE (sizeof rtt_le / sizeof rtt_le[0])

struct rtt_acc {
	uint64_t le[N_LE];
	uint64_t n, sum_ns;
};

/* Adds a flow's samples; a flow whose histogram the memory cap took counts in +Inf only. */
static void rtt_acc_add(struct rtt_acc *a, const struct engine *e, const struct flow *fl, enum roce_rtt_which w)
{
	const struct roce_rtt_stat *s = roce_rtt_stat(&fl->u.seq, w);

	a->n += s->n;
	a->sum_ns += s->sum_ns;
	for (unsigned k = 0; k < N_LE; k++) {
		int64_t c = roce_rtt_count_le(engine_rtt(e, &fl->u.seq), &fl->u.seq, w, (uint64_t)(rtt_le[k] * 1e9 + 0.5));

		if (c > 0)
			a->le[k] += (uint64_t)c;
	}
}

static void rtt_hist_out(FILE *f, const char *name, const struct engine *e, const struct flow *fl,
			 const struct rtt_acc *a)
{
	char lab[32];

	for (unsigned k = 0; k <= N_LE; k++) {
		if (k < N_LE)
			snprintf(lab, sizeof lab, "le=\"%g\"", rtt_le[k]);
		else
			snprintf(lab, sizeof lab, "le=\"+Inf\"");
		fprintf(f, "%s_bucket", name);
		if (fl)
			flow_labels(f, e, fl, lab);
		else
			fprintf(f, "{%s}", lab);
		fprintf(f, " %" PRIu64 "\n", k < N_LE ? a->le[k] : a->n);
	}
	fprintf(f, "%s_sum", name);
	if (fl)
		flow_labels(f, e, fl, NULL);
	fprintf(f, " %.9f\n%s_count", a->sum_ns / 1e9, name);
	if (fl)
		flow_labels(f, e, fl, NULL);
	fprintf(f, " %" PRIu64 "\n", a->n);
}

/* Capture-wide (live flows) and per exported flow, for both kinds of RTT. */
static void rtt_histograms(FILE *f, const struct engine *e, const uint32_t *top, uint32_t ntop)
{
	static const struct {
		const char *all, *flow, *help;
	} m[2] = {
		{ "rocetop_rtt_seconds", "rocetop_flow_rtt_seconds",
		  "Request to its ACK or ATOMIC ACK round trip time, every request sent once (Karn)." },
		{ "rocetop_read_rtt_seconds", "rocetop_flow_read_rtt_seconds",
		  "READ request to its first READ response." },
	};

	for (int w = 0; w < 2; w++) {
		struct rtt_acc all;
		int any = 0;

		memset(&all, 0, sizeof all);
		for (uint32_t i = 0; i < e->nflows; i++)
			if (e->flows[i].kind != FK_IWARP)
				rtt_acc_add(&all, e, &e->flows[i], (enum roce_rtt_which)w);
		head(f, m[w].all, "histogram", m[w].help);
		rtt_hist_out(f, m[w].all, e, NULL, &all);
		for (uint32_t i = 0; i < ntop; i++) {
			const struct flow *fl = &e->flows[top[i]];
			struct rtt_acc a;

			if (fl->kind == FK_IWARP || !roce_rtt_stat(&fl->u.seq, (enum roce_rtt_which)w)->n)
				continue;
			if (!any++)
				head(f, m[w].flow, "histogram", m[w].help);
			memset(&a, 0, sizeof a);
			rtt_acc_add(&a, e, fl, (enum roce_rtt_which)w);
			rtt_hist_out(f, m[w].flow, e, fl, &a);
		}
	}
}

static void write_all(FILE *f, const struct engine *e, struct source *src, unsigned max_flows,
		      const struct prom_engines *pe, struct raises *rs, const struct prom *p);

void prom_write(FILE *f, const struct engine *e, struct source *src, unsigned max_flows)
{
	write_all(f, e, src, max_flows, NULL, NULL, NULL);
}

/* Capture-wide frame counts: by RoCE version, by ICRC verdict, the kinds counted apart; the
 * flow table; the fabric mode. */
static void write_frames(FILE *f, const struct engine *e)
{
	const struct engine_totals *t = &e->t;
	static const char *const vn[6] = { "none", "v1", "v2", "v2-1021", "v2-port", "ib" };
	static const char *const fm[] = { "unknown", "lossless", "resilient", "zero_touch", "mixed" };
	enum fabric_mode m;

	one(f, "rocetop_frames_total", "counter", "Frames analysed.", t->frames);
	one(f, "rocetop_bytes_total", "counter", "Bytes of the frames analysed, as on the wire.", t->bytes);
	head(f, "rocetop_roce_frames_total", "counter", "Frames by RoCE version (none: not RoCE).");
	for (int i = 0; i < 6; i++)
		fprintf(f, "rocetop_roce_frames_total{version=\"%s\"} %" PRIu64 "\n", vn[i], t->roce[i]);
	head(f, "rocetop_icrc_total", "counter", "RoCE frames by ICRC verdict.");
	fprintf(f, "rocetop_icrc_total{status=\"good\"} %" PRIu64 "\nrocetop_icrc_total{status=\"bad\"} %" PRIu64
		"\nrocetop_icrc_total{status=\"unchecked\"} %" PRIu64 "\n", t->icrc[ROCE_ICRC_GOOD],
		t->icrc[ROCE_ICRC_BAD], t->icrc[ROCE_ICRC_UNCHECKED]);
	one(f, "rocetop_truncated_frames_total", "counter", "Frames cut short by the snapshot length.", t->truncated);
	one(f, "rocetop_invalid_frames_total", "counter", "Frames that contradict the specifications.", t->invalid);
	one(f, "rocetop_iwarp_frames_total", "counter", "iWARP frames.", t->iwarp);
	one(f, "rocetop_ecn_ce_frames_total", "counter", "RoCE frames marked ECN CE.", t->roce_ce);
	one(f, "rocetop_cnp_frames_total", "counter", "RoCE congestion notification packets.", t->cnp);
	one(f, "rocetop_cnm_frames_total", "counter", "802.1Qau (QCN) congestion notification messages.", t->cnm);
	one(f, "rocetop_flows", "gauge", "Flows in the table.", e->nflows);
	one(f, "rocetop_flows_evicted_total", "counter", "Flows evicted at --max-flows (least recently seen).",
	    t->evicted);
	m = engine_fabric_mode(e, NULL, 0);
	head(f, "rocetop_fabric_mode", "gauge",
	     "Fabric mode from what was seen: 1 for the current mode (lossless, resilient, zero_touch, mixed, unknown).");
	for (int i = 0; i < 5; i++)
		fprintf(f, "rocetop_fabric_mode{mode=\"%s\"} %d\n", fm[i], (int)m == i);
}

/* The live capture's statistics per interface (0 interfaces: not live). */
static unsigned capture_stats(struct source *src, const struct prom_engines *pe,
			      struct source_stats st[SOURCE_MAX_IFACES])
{
	unsigned n = src ? source_count(src) : 0;

	if (!n || !source_live(src))
		return 0;
	if (n > SOURCE_MAX_IFACES)
		n = SOURCE_MAX_IFACES;
	for (unsigned i = 0; i < n; i++)
		if (pe)
			pe->stats(pe->ctx, i, &st[i]);
		else
			source_stats(src, i, &st[i]);
	return n;
}

/* capture drops, per interface: never hidden */
static void write_capture(FILE *f, struct source *src, const struct source_stats *st, unsigned n)
{
	if (!n)
		return;
	capture_counter(f, src, st, n, "rocetop_capture_received_total",
			"Frames the capture socket saw, dropped ones included (PACKET_STATISTICS tp_packets).", 0);
	capture_counter(f, src, st, n, "rocetop_capture_dropped_total",
			"Frames dropped because the capture ring was full (PACKET_STATISTICS tp_drops).", 1);
	capture_counter(f, src, st, n, "rocetop_capture_ring_full_total",
			"Times the capture ring ran out of blocks (PACKET_STATISTICS tp_freeze_q_cnt).", 2);
	capture_counter(f, src, st, n, "rocetop_capture_if_dropped_total",
			"Frames the interface dropped since the capture opened (/proc/net/dev rx drop + fifo).", 3);
	capture_counter(f, src, st, n, "rocetop_capture_nic_dropped_total",
			"Frames the NIC discarded since the capture opened (ethtool -S, --nic-drop-counters).", 4);
}

/* One PFC counter by priority. */
static void write_by_prio(FILE *f, const char *name, const char *help, const uint64_t v[8])
{
	head(f, name, "counter", help);
	for (int k = 0; k < 8; k++)
		fprintf(f, "%s{priority=\"%d\"} %" PRIu64 "\n", name, k, v[k]);
}

/* link-level flow control, capture-wide by priority */
static void write_pause(FILE *f, const struct engine *e)
{
	uint64_t pfc_pauses[8] = { 0 }, pfc_xon[8] = { 0 }, pfc_ns[8] = { 0 }, pause = 0;

	for (uint32_t i = 0; i < e->nports; i++) {
		for (int k = 0; k < 8; k++) {
			pfc_pauses[k] += e->ports[i].pfc[k].pauses;
			pfc_xon[k] += e->ports[i].pfc[k].xon;
			pfc_ns[k] += pause_paused_ns(&e->ports[i].pfc[k], e->t.last_ns);
		}
		pause += e->ports[i].pause.pauses;
	}
	one(f, "rocetop_pfc_frames_total", "counter", "PFC (802.1Qbb) frames.", e->t.pfc_frames);
	write_by_prio(f, "rocetop_pfc_pauses_total", "PFC pause requests (time > 0) by priority, all ports.",
		      pfc_pauses);
	write_by_prio(f, "rocetop_pfc_xon_total", "PFC resumes (time 0) by priority, all ports.", pfc_xon);
	head(f, "rocetop_pfc_paused_seconds_total", "counter",
	     "Time paused by PFC by priority, summed over ports (quanta at --link-speed).");
	for (int k = 0; k < 8; k++)
		fprintf(f, "rocetop_pfc_paused_seconds_total{priority=\"%d\"} %.9f\n", k, pfc_ns[k] / 1e9);
	one(f, "rocetop_pause_frames_total", "counter", "802.3x PAUSE frames.", e->t.pause_frames);
	one(f, "rocetop_pause_requests_total", "counter", "802.3x pause requests (time > 0).", pause);
}

/* capture-wide sums of the flow counters (evicted flows included) */
static void write_sums(FILE *f, const struct engine *e)
{
	static const int tot[] = { V_RETRANS, V_DUP, V_OOS, V_OOSR, V_GAPS, V_ACKS, V_NAK_SEQ, V_NAK_INV,
				   V_NAK_ACC, V_NAK_OP, V_RNR, V_CNP, V_ECN, V_ICRC };
	uint64_t sums[V__COUNT] = { 0 };

	for (uint32_t i = 0; i < e->nflows; i++)
		for (int m = 0; m < V__COUNT; m++) {
			uint64_t v;

			if (flow_value(&e->flows[i], m, &v))
				sums[m] += v;
		}
	sums[V_PACKETS] += e->ev.packets;
	sums[V_BYTES] += e->ev.bytes;
	sums[V_RETRANS] += e->ev.retransmissions;
	sums[V_DUP] += e->ev.duplicate_request;
	sums[V_OOS] += e->ev.out_of_sequence;
	sums[V_OOSR] += e->ev.out_of_seq_request;
	sums[V_GAPS] += e->ev.psn_gaps;
	sums[V_ACKS] += e->ev.acks;
	sums[V_NAK_SEQ] += e->ev.nak_seq_err;
	sums[V_NAK_INV] += e->ev.nak_invalid_request;
	sums[V_NAK_ACC] += e->ev.nak_remote_access;
	sums[V_NAK_OP] += e->ev.nak_remote_op;
	sums[V_RNR] += e->ev.rnr_nak;
	sums[V_ECN] += e->ev.ecn_ce;
	sums[V_CNP] += e->ev.cnp;
	sums[V_ICRC] += e->ev.icrc_bad;
	for (unsigned i = 0; i < sizeof tot / sizeof tot[0]; i++) {
		char name[96];

		/* rocetop_flow_X_total -> rocetop_X_total */
		snprintf(name, sizeof name, "rocetop_%s", flow_metric[tot[i]].name + strlen("rocetop_flow_"));
		one(f, name, "counter", "Sum over all flows (evicted ones included).", sums[tot[i]]);
	}
}

/* per flow, bounded: the largest max_flows flows by packets, each counter, then RTT histograms */
static void write_flows(FILE *f, const struct engine *e, unsigned max_flows)
{
	uint32_t *top = NULL, ntop = 0;

	if (max_flows && e->nflows)
		top = malloc((max_flows < e->nflows ? max_flows : e->nflows) * sizeof *top);
	if (top)
		ntop = top_flows(e, max_flows < e->nflows ? max_flows : e->nflows, top);
	one(f, "rocetop_prometheus_flows_exported", "gauge",
	    "Flows with per-flow series here: the largest by packets, at most --prometheus-max-flows.", ntop);
	one(f, "rocetop_prometheus_flows_omitted", "gauge",
	    "Flows left out of the per-flow series (see --prometheus-max-flows); the totals count them.",
	    e->nflows - ntop);
	if (e->nflows > ntop)
		fprintf(f, "# rocetop: %" PRIu32 " of %" PRIu32 " flows exported (largest by packets, "
			"--prometheus-max-flows %u)\n", ntop, e->nflows, max_flows);
	for (int m = 0; m < V__COUNT; m++) {
		int any = 0;

		for (uint32_t i = 0; i < ntop; i++) {
			const struct flow *fl = &e->flows[top[i]];
			uint64_t v;

			if (!flow_value(fl, m, &v))
				continue;
			if (!any++)
				head(f, flow_metric[m].name, flow_metric[m].type, flow_metric[m].help);
			fputs(flow_metric[m].name, f);
			flow_labels(f, e, fl, NULL);
			fprintf(f, " %" PRIu64 "\n", v);
		}
	}
	rtt_histograms(f, e, top, ntop);
	free(top);
}

/* ---- the diagnosis ------------------------------------------------------------------------- */

/* What the report's diag_input_of() gives, from the capture statistics. */
static void prom_diag_input(const struct engine *e, const struct source_stats *st, unsigned n,
			    struct diag_input *in)
{
	struct timespec ts;

	memset(in, 0, sizeof *in);
	in->now_ns = e->t.last_ns;
	if (n && !clock_gettime(CLOCK_REALTIME, &ts)) {   /* live: the clock */
		uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;

		if (now > in->now_ns)
			in->now_ns = now;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!st[i].valid)
			continue;
		in->drops_valid = 1;
		in->dropped += st[i].drop + st[i].ifdrop;
		if (st[i].nicdrop_valid) {
			in->nic_valid = 1;
			in->nic_dropped += st[i].nicdrop;
		}
		if (!in->nic_counters)
			in->nic_counters = st[i].nicdrop_names;
	}
}

/* FNV-1a over the verdict's name and subject. */
static uint64_t verdict_key(const struct diag_verdict *v)
{
	uint64_t h = 1469598103934665603ull;
	const char *parts[2] = { diag_name(v->id), v->subject };

	for (int k = 0; k < 2; k++) {
		for (const unsigned char *c = (const unsigned char *)parts[k]; *c; c++)
			h = (h ^ *c) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;   /* the separator */
	}
	return h;
}

/* Index of key in rs->k, or where it goes (*found 0). */
static size_t raise_find(const struct raises *rs, uint64_t key, int *found)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->k[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < rs->n && rs->k[lo].key == key;
	return lo;
}

/* One scrape's verdicts into the raise counts. */
static void raises_update(struct raises *rs, const struct diag_list *l)
{
	size_t w = 0;

	if (!rs->k && !(rs->k = calloc(PROM_RAISE_KEYS, sizeof *rs->k)))
		return;
	rs->gen++;
	for (size_t i = 0; i < l->n; i++) {
		const struct diag_verdict *v = &l->v[i];
		uint64_t key = verdict_key(v);
		int found, sev = v->severity >= 0 && v->severity <= DS_ERROR ? v->severity : DS_INFO;
		size_t at = raise_find(rs, key, &found);

		if (v->id < 0 || v->id >= DV__COUNT)
			continue;
		if (found) {
			struct raise_key *k = &rs->k[at];

			if (k->gen != rs->gen && !k->active && v->active)
				rs->count[v->id][sev]++;
			if (k->gen != rs->gen)
				k->active = v->active;
			else
				k->active |= v->active;
			k->gen = rs->gen;
			continue;
		}
		if (rs->n == PROM_RAISE_KEYS) {
			rs->untracked++;
			continue;
		}
		memmove(&rs->k[at + 1], &rs->k[at], (rs->n - at) * sizeof *rs->k);
		rs->k[at] = (struct raise_key){ key, rs->gen, v->active };
		rs->n++;
		rs->count[v->id][sev]++;
	}
	/* forget the verdicts the diagnosis no longer lists */
	for (size_t i = 0; i < rs->n; i++)
		if (rs->k[i].gen == rs->gen)
			rs->k[w++] = rs->k[i];
	rs->n = w;
}

static int same_series(const struct diag_verdict *a, const struct diag_verdict *b)
{
	return a->id == b->id && a->severity == b->severity && !strcmp(a->subject, b->subject);
}

static void active_series(FILE *f, const struct diag_verdict *v)
{
	fprintf(f, "rocetop_diagnosis_active{verdict=\"%s\",severity=\"%s\",subject=\"", diag_name(v->id),
		diag_severity_name(v->severity));
	esc(f, v->subject);
	fprintf(f, "\"} %d\n", v->active ? 1 : 0);
}

/* rocetop_diagnosis_active (bounded), rocetop_diagnosis_raised_total. */
static void write_diagnosis(FILE *f, const struct engine *e, const struct source_stats *st, unsigned n,
			    struct raises *rs, const struct prom *p)
{
	struct diag_input in;
	struct diag_list l;
	const struct diag_verdict **shown = NULL;
	size_t nshown = 0, listed = 0;
	uint64_t count[DV__COUNT][DS_ERROR + 1] = { { 0 } };
	int ok;

	prom_diag_input(e, st, n, &in);
	if (p && p->diag_in)
		p->diag_in(p->diag_ctx, &in);
	ok = !diag_evaluate(e, &in, &l);
	if (!ok)
		diag_list_free(&l);     /* what it made room for; nothing listed */
	if (l.n)
		shown = malloc((l.n < PROM_MAX_VERDICTS ? l.n : PROM_MAX_VERDICTS) * sizeof *shown);
	/* active ones first, then past ones; each most severe first (the list's order) */
	for (int pass = 1; shown && pass >= 0; pass--)
		for (size_t i = 0; i < l.n; i++) {
			const struct diag_verdict *v = &l.v[i];
			size_t j;

			if (!!v->active != pass)
				continue;
			listed++;
			for (j = 0; j < nshown && !same_series(shown[j], v); j++)
				;
			if (j == nshown && nshown < PROM_MAX_VERDICTS)
				shown[nshown++] = v;
			else if (j < nshown)
				listed--;   /* the same series twice (a merged view): one */
		}
	if (l.n && !shown)
		listed = l.n;   /* out of memory: none shown, all omitted */
	head(f, "rocetop_diagnosis_active", "gauge",
	     "1 while the diagnosis verdict is active, 0 once it is past (rocetop(8) DIAGNOSIS); at most "
	     STR(PROM_MAX_VERDICTS) " series, active ones first.");
	for (size_t i = 0; i < nshown; i++)
		active_series(f, shown[i]);
	one(f, "rocetop_diagnosis_verdicts", "gauge", "Verdicts the diagnosis lists, active and past.", listed);
	one(f, "rocetop_diagnosis_omitted", "gauge",
	    "Verdicts left out of rocetop_diagnosis_active (past its cap of " STR(PROM_MAX_VERDICTS) " series).",
	    listed - nshown);

	if (rs) {
		if (ok)   /* out of memory is not every verdict gone */
			raises_update(rs, &l);
	} else {   /* stateless (prom_write): each listed verdict raised once */
		for (size_t i = 0; i < l.n; i++)
			if (l.v[i].id >= 0 && l.v[i].id < DV__COUNT && l.v[i].severity >= 0 && l.v[i].severity <= DS_ERROR)
				count[l.v[i].id][l.v[i].severity]++;
	}
	head(f, "rocetop_diagnosis_raised_total", "counter",
	     "Diagnosis verdicts raised: first seen at a scrape, or active again after being past.");
	for (int id = 0; id < DV__COUNT; id++)
		for (int sev = DS_ERROR; sev >= DS_INFO; sev--) {
			uint64_t c = rs ? rs->count[id][sev] : count[id][sev];

			if (c || sev == diag_rule_severity(id))
				fprintf(f, "rocetop_diagnosis_raised_total{verdict=\"%s\",severity=\"%s\"} %" PRIu64 "\n",
					diag_name(id), diag_severity_name(sev), c);
		}
	if (rs)
		one(f, "rocetop_diagnosis_untracked_total", "counter",
		    "Verdicts not counted in rocetop_diagnosis_raised_total: " STR(PROM_RAISE_KEYS)
		    " others were being followed.",
		    rs->untracked);
	free(shown);
	diag_list_free(&l);
}

/* The CNP pacing of each host that sends CNPs (diag.h diag_pacing(); the
 * JSON summary's cnp_pacing): its pacing as a label, its least intervals
 * and its CNPs, at most PROM_MAX_PACING sources (the first the view holds). */
static void pacing_series(FILE *f, const char *metric, const struct diag_pacing *s, const char *more)
{
	fprintf(f, "%s{source=\"", metric);
	esc(f, s->source);
	fprintf(f, "\"%s}", more);
}

static void write_pacing(FILE *f, const struct engine *e)
{
	static const char *const between[3] = { "one_qp", "qps_of_one_pair", "ip_pairs" };
	struct diag_pacing *v = NULL;
	size_t n = 0, shown;
	char more[64];

	if (diag_pacing(e, diag_tolerance(e), &v, &n))
		n = 0;
	shown = n < PROM_MAX_PACING ? n : PROM_MAX_PACING;
	head(f, "rocetop_cnp_pacing_info", "gauge",
	     "1 per host that sends CNPs, its pacer as the wire shows it: qp, ip_pair, port, or the two it "
	     "could be, or unknown (rocetop(8) DIAGNOSIS, CNP pacing).");
	for (size_t i = 0; i < shown; i++) {
		snprintf(more, sizeof more, ",pacing=\"%s\"", v[i].pacing);
		pacing_series(f, "rocetop_cnp_pacing_info", &v[i], more);
		fputs(" 1\n", f);
	}
	head(f, "rocetop_cnp_pacing_least_interval_seconds", "gauge",
	     "The least interval between consecutive CNPs of the source: to one QP, to different QPs of one "
	     "IP pair, to different IP pairs (absent: none seen).");
	for (size_t i = 0; i < shown; i++) {
		const uint64_t ns1[3] = { v[i].qp_min_ns, v[i].xqp_min_ns, v[i].xpair_min_ns };

		for (int k = 0; k < 3; k++) {
			if (!ns1[k])
				continue;
			snprintf(more, sizeof more, ",between=\"%s\"", between[k]);
			pacing_series(f, "rocetop_cnp_pacing_least_interval_seconds", &v[i], more);
			fprintf(f, " %.9g\n", (double)(ns1[k] - 1) / 1e9);
		}
	}
	head(f, "rocetop_cnp_pacing_cnps_total", "counter", "CNPs the source sent to the QPs the pacing is measured on.");
	for (size_t i = 0; i < shown; i++) {
		pacing_series(f, "rocetop_cnp_pacing_cnps_total", &v[i], "");
		fprintf(f, " %" PRIu64 "\n", v[i].cnps);
	}
	one(f, "rocetop_cnp_pacing_omitted", "gauge",
	    "CNP sources left out of the rocetop_cnp_pacing series (past " STR(PROM_MAX_PACING) ").", n - shown);
	free(v);
}

static void write_all(FILE *f, const struct engine *e, struct source *src, unsigned max_flows,
		      const struct prom_engines *pe, struct raises *rs, const struct prom *p)
{
	struct source_stats st[SOURCE_MAX_IFACES];
	unsigned n = capture_stats(src, pe, st);

	write_frames(f, e);
	write_capture(f, src, st, n);
	write_pause(f, e);
	write_sums(f, e);
	write_diagnosis(f, e, st, n, rs, p);
	write_pacing(f, e);
	write_flows(f, e, max_flows);
}

/* ---- the server ------------------------------------------------------------------------------ */

static void on_client(void *ctx, int fd, short rev);

static void drop_client(struct prom *p, struct client *c)
{
	if (c->fd < 0)
		return;
	if (p->src)
		source_unwatch(p->src, c->fd);
	webtls_close(c->tls);
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

static void respond(struct prom *p, struct client *c, const char *status, const char *ctype, const char *body,
		    size_t blen)
{
	FILE *m = open_memstream(&c->out, &c->olen);

	if (!m) {
		drop_client(p, c);
		return;
	}
	fprintf(m, "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", status,
		ctype, blen);
	fwrite(body, 1, blen, m);
	if (fclose(m) != 0) {
		drop_client(p, c);
		return;
	}
	c->off = 0;
	source_watch(p->src, c->fd, POLLOUT, on_client, p);
}

/* --web-config's basic_auth_users: the answer without the right credentials. */
static void respond_unauthorized(struct prom *p, struct client *c)
{
	static const char m[] = "unauthorized\n";
	FILE *f = open_memstream(&c->out, &c->olen);

	if (!f) {
		drop_client(p, c);
		return;
	}
	fprintf(f, "HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"rocetop\", charset=\"UTF-8\"\r\n"
		"Content-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s", sizeof m - 1, m);
	if (fclose(f) != 0) {
		drop_client(p, c);
		return;
	}
	c->off = 0;
	source_watch(p->src, c->fd, POLLOUT, on_client, p);
}

static void handle_request(struct prom *p, struct client *c)
{
	char method[16] = "", path[256] = "";
	char *q;

	if (!webtls_authorized(p->web, c->req)) {
		respond_unauthorized(p, c);
		return;
	}

	if (sscanf(c->req, "%15s %255s", method, path) != 2) {
		static const char m[] = "bad request\n";

		respond(p, c, "400 Bad Request", "text/plain", m, sizeof m - 1);
		return;
	}
	if ((q = strchr(path, '?')))
		*q = 0;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char m[] = "only GET\n";

		respond(p, c, "405 Method Not Allowed", "text/plain", m, sizeof m - 1);
		return;
	}
	if (!strcmp(path, "/metrics")) {
		char *body = NULL;
		size_t blen = 0;
		FILE *m = open_memstream(&body, &blen);

		if (!m) {
			drop_client(p, c);
			return;
		}
		if (p->pe) {
			const struct engine *e = p->pe->view(p->pe->ctx);

			if (e)
				write_all(m, e, p->pe->capture, p->max_flows, p->pe, &p->raised, p);
			p->pe->release(p->pe->ctx);
		} else if (p->e) {   /* NULL: a --device run without a capture */
			write_all(m, p->e, p->src, p->max_flows, NULL, &p->raised, p);
		}
		if (p->extra)
			p->extra(m, p->extra_ctx);
		if (fclose(m) != 0) {
			free(body);
			drop_client(p, c);
			return;
		}
		p->scrapes++;
		respond(p, c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body,
			strcmp(method, "HEAD") ? blen : 0);
		free(body);
		return;
	}
	if (!strcmp(path, "/")) {
		static const char m[] = "rocetop: the metrics are at /metrics\n";

		respond(p, c, "200 OK", "text/plain", m, sizeof m - 1);
		return;
	}
	{
		static const char m[] = "not found; try /metrics\n";

		respond(p, c, "404 Not Found", "text/plain", m, sizeof m - 1);
	}
}

static void on_client(void *ctx, int fd, short rev)
{
	struct prom *p = ctx;
	struct client *c = NULL;
	ssize_t n;

	for (int i = 0; i < MAX_CLIENTS; i++)
		if (p->c[i].fd == fd)
			c = &p->c[i];
	if (!c)
		return;
	if (c->tls && !webtls_done(c->tls)) {   /* the TLS handshake, a step per poll() */
		short ev = POLLIN;
		int rc = webtls_handshake(c->tls, &ev);

		if (rc < 0) {
			drop_client(p, c);
			return;
		}
		source_watch(p->src, fd, ev, on_client, p);
		if (rc == 0)
			return;
	}
	if (c->out) {
		if (!(rev & (POLLOUT | POLLERR | POLLHUP)))
			return;
		while (c->off < c->olen) {
			n = c->tls ? webtls_send(c->tls, c->out + c->off, c->olen - c->off)
				   : send(fd, c->out + c->off, c->olen - c->off, MSG_NOSIGNAL);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return;
			if (n <= 0) {
				drop_client(p, c);
				return;
			}
			c->off += (size_t)n;
		}
		if (!c->tls)   /* TLS: drop_client() sends close_notify */
			shutdown(fd, SHUT_WR);
		drop_client(p, c);
		return;
	}
	n = c->tls ? webtls_recv(c->tls, c->req + c->rlen, sizeof c->req - 1 - c->rlen)
		   : recv(fd, c->req + c->rlen, sizeof c->req - 1 - c->rlen, 0);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		drop_client(p, c);
		return;
	}
	c->rlen += (size_t)n;
	c->req[c->rlen] = 0;
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
		handle_request(p, c);
	else if (c->rlen == sizeof c->req - 1) {
		static const char m[] = "request too long\n";

		respond(p, c, "431 Request Header Fields Too Large", "text/plain", m, sizeof m - 1);
	}
}

static void on_listen(void *ctx, int fd, short rev)
{
	struct prom *p = ctx;

	(void)rev;
	for (int k = 0; k < 8; k++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c = NULL, *old = NULL;

		if (cfd < 0)
			return;
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (p->c[i].fd < 0) {
				c = &p->c[i];
				break;
			}
			if (!old || p->c[i].since < old->since)
				old = &p->c[i];
		}
		if (!c) {
			/* full: the oldest connection goes */
			drop_client(p, old);
			c = old;
		}
		c->fd = cfd;
		c->since = ++p->accepts;
		{
			int failed;

			c->tls = webtls_accept(p->web, cfd, &failed);
			if (failed) {
				drop_client(p, c);
				continue;
			}
		}
		if (source_watch(p->src, cfd, POLLIN, on_client, p) < 0)
			drop_client(p, c);
	}
}

/* "[v6]:port" or "host:port" (the port after the last colon) into host and
 * port; -1 with err[] set. */
static int split_spec(const char *spec, char host[256], char port[16], char *err, size_t errcap)
{
	const char *colon, *given = spec;
	size_t hl;

	if (spec[0] == '[') {
		const char *close_ = strchr(spec, ']');

		if (!close_ || close_[1] != ':') {
			snprintf(err, errcap, "--prometheus %s: want ADDR:PORT or [IPv6]:PORT", spec);
			return -1;
		}
		hl = (size_t)(close_ - spec - 1);
		colon = close_ + 1;
		spec++;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || colon == spec) {
			snprintf(err, errcap, "--prometheus %s: want ADDR:PORT (the address to bind, e.g. 127.0.0.1:9464)",
				 spec);
			return -1;
		}
		hl = (size_t)(colon - spec);
	}
	if (hl >= 256 || strlen(colon + 1) >= 16 || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535) {
		snprintf(err, errcap, "--prometheus %s: bad address or port", given);
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = 0;
	snprintf(port, 16, "%s", colon + 1);
	return 0;
}

int prom_check_spec(const char *spec, char *err, size_t errcap)
{
	char host[256], port[16];

	return split_spec(spec, host, port, err, errcap);
}

struct prom *prom_open(const char *spec, unsigned max_flows, char *err, size_t errcap)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE }, *ai = NULL, *a;
	char host[256], port[16], hs[NI_MAXHOST], ps[NI_MAXSERV];
	struct prom *p;
	int rc, one_ = 1;

	if (split_spec(spec, host, port, err, errcap) < 0)
		return NULL;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(err, errcap, "--prometheus %s: %s", host, gai_strerror(rc));
		return NULL;
	}
	p = calloc(1, sizeof *p);
	if (!p) {
		freeaddrinfo(ai);
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	p->fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		p->c[i].fd = -1;
	p->max_flows = max_flows;
	for (a = ai; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);

		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one_, sizeof one_);
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 16) == 0) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof ss;

			p->fd = fd;
			if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
			    getnameinfo((struct sockaddr *)&ss, sl, hs, sizeof hs, ps, sizeof ps,
					NI_NUMERICHOST | NI_NUMERICSERV) == 0)
				snprintf(p->addr, sizeof p->addr, strchr(hs, ':') ? "[%s]:%s" : "%s:%s", hs, ps);
			break;
		}
		rc = errno;
		close(fd);
		errno = rc;
	}
	if (p->fd < 0) {
		snprintf(err, errcap, "--prometheus %s: cannot listen on %s port %s: %s", spec, host, port,
			 strerror(errno));
		freeaddrinfo(ai);
		free(p);
		return NULL;
	}
	freeaddrinfo(ai);
	return p;
}

int prom_attach(struct prom *p, struct source *src, const struct engine *e)
{
	p->src = src;
	p->e = e;
	return source_watch(src, p->fd, POLLIN, on_listen, p);
}

void prom_engines(struct prom *p, const struct prom_engines *pe)
{
	p->pe = pe;
}

void prom_close(struct prom *p)
{
	if (!p)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++)
		drop_client(p, &p->c[i]);
	if (p->fd >= 0) {
		if (p->src)
			source_unwatch(p->src, p->fd);
		close(p->fd);
	}
	webtls_free(p->web);
	free(p->raised.k);
	free(p);
}

const char *prom_address(const struct prom *p)
{
	return p->addr;
}

unsigned long prom_scrapes(const struct prom *p)
{
	return p->scrapes;
}

void prom_extra(struct prom *p, void (*fn)(FILE *f, const void *ctx), const void *ctx)
{
	p->extra = fn;
	p->extra_ctx = ctx;
}

void prom_diag_devices(struct prom *p, void (*fn)(const void *ctx, struct diag_input *in), const void *ctx)
{
	p->diag_in = fn;
	p->diag_ctx = ctx;
}

void prom_web(struct prom *p, struct webtls *w)
{
	p->web = w;
}
