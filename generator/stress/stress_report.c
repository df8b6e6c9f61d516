/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_report.c — the verdicts of a `rocegen stress` run and how they are
 * told: a table, one JSON object (the last line), JUnit XML (one test case
 * per check).
 *
 * Checks:
 *   qps_completed     every QP completed its workload without an error completion
 *   integrity         no byte written, read, sent or atomically updated differs
 *   nak_per_episode   one PSN-sequence-error NAK per out-of-sequence episode the
 *                     wire model saw (more: a NAK storm; fewer: missing NAKs)
 *   cnp_generation    CE-marked requests were answered with CNPs (UNSUPPORTED when
 *                     none came: an adapter without a notification point)
 *   counters_vs_wire  the adapter's counter deltas equal what the wire implies,
 *                     read through the per-driver map below
 *   fairness          Jain's index of per-QP message rates >= 0.5 (no QP starved)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "conform.h"
#include "stress.h"
#include "gen.h"

/* What a driver's counter counts, in terms of the wire model: packets (0) or
 * NAK episodes (1).  rxe (Linux 6.1 drivers/infiniband/sw/rxe/rxe_resp.c,
 * check_psn()): a request beyond the expected PSN increments
 * RXE_CNT_OUT_OF_SEQ_REQ only while sent_psn_nak is clear, sets it and NAKs;
 * later ones go to RESPST_CLEANUP uncounted; an in-order request clears it.
 * RXE_CNT_DUP_REQ counts every request behind the expected PSN.  Seen in the
 * lab: 257 out-of-sequence packets, 147 episodes, out_of_seq_request 147.
 * The counters are per device (all QPs). */
static const struct {
	const char *driver;
	int cnt;
	int episodes;
} driver_map[] = {
	{ "rxe", STC_OOS, 1 },
	{ "reference", STC_OOS, 0 },
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void st_summarize(struct st_dist *d, struct st_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!d->n)
		return;
	qsort(d->v, d->n, sizeof(*d->v), cmp_u64);
	s->n = d->n;
	s->p50 = d->v[(d->n * 50 + 99) / 100 - 1];
	s->p99 = d->v[(d->n * 99 + 99) / 100 - 1];
	s->max = d->v[d->n - 1];
}

static void check(struct st_result *r, const char *name, enum cf_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void check(struct st_result *r, const char *name, enum cf_verdict v, const char *fmt, ...)
{
	struct st_check *c;
	va_list ap;

	if (r->n_chk >= ST_MAX_CHECKS)
		return;
	c = &r->chk[r->n_chk++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->v = v;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

static int wire_in_episodes(const struct st_result *r, int k)
{
	for (size_t i = 0; i < sizeof(driver_map) / sizeof(driver_map[0]); i++)
		if (!strcmp(r->driver, driver_map[i].driver) && driver_map[i].cnt == k)
			return driver_map[i].episodes;
	return 0;
}

/* Every difference between the adapter's counters and the wire model is explained or
 * FAILs: the wire side already holds what rocegen injected, the path-loss episodes its
 * NAKs revealed, and the driver's documented counting (driver_map).  What is left are
 * the timeouts no NAK or injected fault explains: each lost an ACK or a request on the
 * path; where it was the request, the resends were first copies at the adapter (a
 * duplicate_request short of the wire, by at most tmo_dup) and the packets after it
 * came out of sequence (out_of_seq_request above the wire, by at most tmo_oos, for a
 * driver that counts packets). */
static void check_counters(struct st_result *r)
{
	char d[256] = "";
	size_t o = 0;
	int any = 0, bad = 0;

	r->path_tail_dup = r->path_tail_oos = 0;
	for (int k = 0; k < STC_N; k++) {
		int epi = k == STC_OOS && wire_in_episodes(r, k);
		uint64_t w = epi ? r->wire_episodes : r->wire[k], a = r->adapter[k];
		const char *why = "";

		if (!r->have_adapter[k])
			continue;
		any = 1;
		if (k == STC_DUP && a < w && w - a <= r->tmo_dup) {
			r->path_tail_dup = w - a;
			why = " (fewer: resends after unexplained timeouts were first copies, lost on the path)";
		} else if (k == STC_OOS && !epi && a > w && a - w <= r->tmo_oos) {
			r->path_tail_oos = a - w;
			why = " (more: packets after requests lost on the path before unexplained timeouts)";
		} else if (a != w) {
			bad = 1;
			why = " (not explained)";
		}
		o += (size_t)snprintf(d + o, sizeof(d) - o, "%s%s adapter %" PRIu64 " wire %" PRIu64 "%s",
				      o ? ", " : "", st_cnt_names[k], r->adapter[k], w, why);
		if (o >= sizeof(d))
			break;
	}
	if (r->path_loss && o < sizeof(d))
		snprintf(d + o, sizeof(d) - o, " (the wire side includes %" PRIu64 " path-loss episodes)", r->path_loss);
	if (!any)
		check(r, "counters_vs_wire", CF_UNSUPPORTED, "the adapter reports none of the counters");
	else
		check(r, "counters_vs_wire", bad ? CF_FAIL : CF_PASS, "%s", d);
}

/* CNP pacing: no two CNPs of a QP closer than --cnp-gap-us while CE marks go on */
static void check_pacing(const struct st_opts *o, struct st_result *r)
{
	struct st_summary p;

	st_summarize(&r->m[STM_CNP_PACING], &p);
	if (!p.n) {
		check(r, "cnp_pacing", CF_UNSUPPORTED, "no two CNPs on a QP (%" PRIu64 " CNPs): no pacing to measure",
		      r->wire[STC_CNP]);
		return;
	}
	check(r, "cnp_pacing", r->m[STM_CNP_PACING].v[0] >= o->cnp_gap_ns ? CF_PASS : CF_FAIL,
	      "%" PRIu64 " intervals, shortest %.3f us, p50 %.3f us (expected >= %.3f us)", p.n,
	      (double)r->m[STM_CNP_PACING].v[0] / 1e3, (double)p.p50 / 1e3, (double)o->cnp_gap_ns / 1e3);
}

/* --victim: beside the attackers, QP 0 gets at least half of an equal share */
static void check_victim(struct st_result *r)
{
	double fair;

	if (r->victim_alone < 0)
		return;
	fair = (r->victim_shared + r->attackers_shared) / r->qps;
	check(r, "victim_share", fair > 0 && r->victim_shared >= fair / 2 ? CF_PASS : CF_FAIL,
	      "victim alone %.3f MB/s, beside %u attackers %.3f MB/s, an equal share %.3f MB/s",
	      r->victim_alone / 1e6, r->qps - 1, r->victim_shared / 1e6, fair / 1e6);
}

/* The adapter as requester: its reactions against the timers it was given. */
static void check_requester(struct st_result *r)
{
	struct st_summary nr, to, rw;

	st_summarize(&r->m[STM_NAK_RESP], &nr);
	st_summarize(&r->m[STM_TIMEOUT], &to);
	st_summarize(&r->m[STM_RNR_WAIT], &rw);
	if (r->wire[STC_NAK])
		check(r, "nak_response", nr.n ? CF_PASS : CF_FAIL,
		      "%" PRIu64 " retransmissions measured after %" PRIu64 " sequence NAKs, p50 %.3f us",
		      nr.n, r->wire[STC_NAK], (double)nr.p50 / 1e3);
	if (to.n)
		check(r, "timeout_retransmission",
		      r->m[STM_TIMEOUT].v[0] * 10 >= r->timeout_ns * 9 && to.p50 <= r->timeout_ns * 9 / 2 ?
		      CF_PASS : CF_FAIL,
		      "%" PRIu64 " after silence: shortest %.3f us, p50 %.3f us for a configured %.3f us (4.096 us x "
		      "2^timeout; PASS: none before 0.9x, the median within 4.5x)", to.n,
		      (double)r->m[STM_TIMEOUT].v[0] / 1e3, (double)to.p50 / 1e3, (double)r->timeout_ns / 1e3);
	if (r->faults[STF_RNR])
		check(r, "rnr_wait", rw.n && r->m[STM_RNR_WAIT].v[0] + r->clock_res_ns >= r->rnr_ns ? CF_PASS : CF_FAIL,
		      "%" PRIu64 " retries after %" PRIu64 " RNR NAKs; shortest wait %.3f us for a timer of %.3f us",
		      rw.n, r->faults[STF_RNR], rw.n ? (double)r->m[STM_RNR_WAIT].v[0] / 1e3 : 0.0,
		      (double)r->rnr_ns / 1e3);
	check(r, "counters_vs_wire", CF_UNSUPPORTED, "not compared with the adapter as requester");
}

void st_checks(const struct st_opts *o, struct st_result *r, int run_rc)
{
	uint64_t ce = r->faults[STF_CE];

	if (run_rc && !r->qps_completed && !r->messages) {
		check(r, "run", CF_ERROR, "%s", r->first_error);
		return;
	}
	check(r, "qps_completed", r->qps_completed == r->qps ? CF_PASS : CF_FAIL,
	      "%u of %u QPs completed%s%s", r->qps_completed, r->qps,
	      r->qps_completed < r->qps ? "; first error: " : "", r->qps_completed < r->qps ? r->first_error : "");
	check(r, "integrity", r->integrity_errors ? CF_FAIL : CF_PASS,
	      "%" PRIu64 " errors in %" PRIu64 " messages, %" PRIu64 " bytes%s%s", r->integrity_errors,
	      r->messages, r->bytes, r->integrity_errors ? "; first: " : "",
	      r->integrity_errors ? r->first_error : "");
	if (o->requester) {
		check_requester(r);
		check(r, "fairness", r->fairness >= 0.5 ? CF_PASS : CF_FAIL,
		      "Jain's index of per-QP bytes %.4f over %u QPs", r->fairness, r->qps);
		return;
	}
	check(r, "nak_per_episode", r->wire[STC_NAK] == r->wire_episodes ? CF_PASS : CF_FAIL,
	      "%" PRIu64 " sequence-error NAKs for %" PRIu64 " out-of-sequence episodes on the wire",
	      r->wire[STC_NAK], r->wire_episodes);
	if (ce)
		check(r, "cnp_generation", r->wire[STC_CNP] ? CF_PASS : CF_UNSUPPORTED,
		      "%" PRIu64 " CNPs for %" PRIu64 " CE-marked requests", r->wire[STC_CNP], ce);
	if (ce)
		check_pacing(o, r);
	check_counters(r);
	check(r, "path_loss", r->path_loss || r->tmo_episodes ? CF_FAIL : CF_PASS,
	      "%" PRIu64 " sequence NAKs no injected fault explains%s%s; %" PRIu64
	      " timeouts none explains (a request or its ACK lost on the path)%s%s", r->path_loss,
	      r->path_loss ? " (counted as path loss in counters_vs_wire): " : "", r->path_loss_qps,
	      r->tmo_episodes, r->tmo_episodes ? ": " : "", r->tmo_qps);
	check(r, "fairness", r->fairness >= 0.5 ? CF_PASS : CF_FAIL,
	      "Jain's index of per-QP message rates %.4f over %u QPs", r->fairness, r->qps);
	check_victim(r);
}

int st_any_failed(const struct st_result *r)
{
	for (unsigned i = 0; i < r->n_chk; i++)
		if (r->chk[i].v == CF_FAIL || r->chk[i].v == CF_ERROR)
			return 1;
	return 0;
}

void st_result_free(struct st_result *r)
{
	for (int k = 0; k < STM_N; k++)
		free(r->m[k].v);
	free(r->tp);
	free(r->ctl_rtt.v);
	free(r->vlat[0].v);
	free(r->vlat[1].v);
}

void st_report_table(FILE *f, const struct st_opts *o, struct st_result *r)
{
	fprintf(f, "stress: the adapter as %s, %u QPs, seed %" PRIu64 ", %" PRIu64 " messages, %" PRIu64
		" bytes, %.3f s on the %s clock (%.3f s wall, %.3f s CPU, %.0f messages/s)\n",
		st_role(o), r->qps, o->seed, r->messages, r->bytes, (double)r->sim_ns / 1e9, r->clock,
		(double)r->wall_ns / 1e9, (double)r->cpu_ns / 1e9, r->msg_rate);
	fprintf(f, "faults injected:");
	for (int k = 0; k < STF_N; k++)
		fprintf(f, " %s %" PRIu64, st_fault_names[k], r->faults[k]);
	fprintf(f, "\nrocegen's requests: %" PRIu64 " packets; go-back-N episodes/packets:", r->req_pkts);
	for (int k = 0; k < ROCE_RETX__COUNT; k++)
		fprintf(f, " %s %" PRIu64 "/%" PRIu64, roce_qp_retx_name((enum roce_qp_retx)k),
			r->retx_episodes[k], r->retx_pkts[k]);
	if (o->requester)
		fprintf(f, "\nconfigured: timeout %.3f us, RNR timer %.3f us", (double)r->timeout_ns / 1e3,
			(double)r->rnr_ns / 1e3);
	fprintf(f, "\n%-20s %8s %10s %10s %10s   (timing floor: %s clock, resolution %" PRIu64
		" ns, jitter %" PRIu64 " ns)\n", "metric", "n", "p50 us", "p99 us", "max us", r->clock,
		r->clock_res_ns, r->clock_jitter_ns);
	for (int k = 0; k < STM_N; k++) {
		struct st_summary s;

		st_summarize(&r->m[k], &s);
		fprintf(f, "%-20s %8" PRIu64 " %10.3f %10.3f %10.3f\n", st_metric_names[k], s.n,
			(double)s.p50 / 1e3, (double)s.p99 / 1e3, (double)s.max / 1e3);
	}
	{
		struct st_summary s;

		st_summarize(&r->ctl_rtt, &s);
		fprintf(f, "%-20s %8" PRIu64 " %10.3f %10.3f %10.3f   (wall clock: the loop waits)\n",
			"control_rtt_us", s.n, (double)s.p50 / 1e3, (double)s.p99 / 1e3, (double)s.max / 1e3);
	}
	st_report_tput_table(f, r);
	for (unsigned i = 0; i < r->n_chk; i++)
		fprintf(f, "%-20s %-11s %s\n", r->chk[i].name, cf_verdict_name(r->chk[i].v),
			r->chk[i].detail);
	fflush(f);
}

static void json_metrics(FILE *f, struct st_result *r)
{
	fputs("\"metrics\":{", f);
	for (int k = 0; k < STM_N; k++) {
		struct st_summary s;

		st_summarize(&r->m[k], &s);
		fprintf(f, "%s\"%s\":{\"n\":%" PRIu64 ",\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}", k ? "," : "",
			st_metric_names[k], s.n, (double)s.p50 / 1e3, (double)s.p99 / 1e3,
			(double)s.max / 1e3);
	}
	{
		struct st_summary s;

		st_summarize(&r->ctl_rtt, &s);
		fprintf(f, "},\"control_rtt_us\":{\"n\":%" PRIu64 ",\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f",
			s.n, (double)s.p50 / 1e3, (double)s.p99 / 1e3, (double)s.max / 1e3);
	}
	fprintf(f, "},\"timing_floor\":{\"clock\":\"%s\",\"resolution_ns\":%" PRIu64 ",\"jitter_ns\":%" PRIu64
		"}", r->clock, r->clock_res_ns, r->clock_jitter_ns);
}

void st_report_json(FILE *f, const struct st_opts *o, struct st_result *r)
{
	int first = 1;

	fprintf(f, "{\"adapter\":\"%s\",\"role\":\"%s\",\"configured\":{\"timeout_us\":%.3f,\"rnr_timer_us\":%.3f},\"seed\":%" PRIu64 ",\"qps\":%u,\"qps_completed\":%u,\"qps_error\":%u,"
		"\"messages\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"by_op\":{", o->is_ref ? "reference" : "live",
		st_role(o), (double)r->timeout_ns / 1e3, (double)r->rnr_ns / 1e3, o->seed, r->qps, r->qps_completed, r->qps_error, r->messages, r->bytes);
	for (int k = 0; k < ST_N_OPS; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", st_op_names[k], r->by_op[k]);
	fprintf(f, "},\"integrity_errors\":%" PRIu64 ",\"first_error\":", r->integrity_errors);
	cf_json_str(f, r->first_error);
	fputs(",\"faults_injected\":{", f);
	for (int k = 0; k < STF_N; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", st_fault_names[k], r->faults[k]);
	fputs("},", f);
	json_metrics(f, r);
	fputs(",\"counters_vs_wire\":{", f);
	for (int k = 0; k < STC_N; k++) {
		if (!r->have_adapter[k])
			continue;
		fprintf(f, "%s\"%s\":{\"adapter\":%" PRIu64 ",\"wire\":%" PRIu64 "}", first ? "" : ",",
			st_cnt_names[k], r->adapter[k],
			k == STC_OOS && wire_in_episodes(r, k) ? r->wire_episodes : r->wire[k]);
		first = 0;
	}
	fprintf(f, "},\"path\":{\"loss_naks\":%" PRIu64 ",\"timeouts\":%" PRIu64 ",\"timeout_dups\":%" PRIu64
		",\"timeout_oos\":%" PRIu64 ",\"dup_short\":%" PRIu64 ",\"oos_over\":%" PRIu64 ",\"loss_naks_per_qp\":",
		r->path_loss, r->tmo_episodes, r->tmo_dup, r->tmo_oos, r->path_tail_dup, r->path_tail_oos);
	cf_json_str(f, r->path_loss_qps);
	fputs(",\"timeouts_per_qp\":", f);
	cf_json_str(f, r->tmo_qps);
	fprintf(f, "},\"wire\":{\"duplicate_packets\":%" PRIu64 ",\"out_of_seq_packets\":%" PRIu64
		",\"episodes\":%" PRIu64 ",\"seq_naks\":%" PRIu64 ",\"cnps\":%" PRIu64 "}",
		r->wire[STC_DUP], r->wire[STC_OOS], r->wire_episodes, r->wire[STC_NAK], r->wire[STC_CNP]);
	fprintf(f, ",\"rocegen_requests\":{\"packets\":%" PRIu64, r->req_pkts);
	for (int k = 0; k < ROCE_RETX__COUNT; k++)
		fprintf(f, ",\"retx_%s\":{\"episodes\":%" PRIu64 ",\"packets\":%" PRIu64 "}",
			roce_qp_retx_name((enum roce_qp_retx)k), r->retx_episodes[k], r->retx_pkts[k]);
	fputc('}', f);
	st_report_tput_json(f, r);
	fprintf(f, ",\"psn_wraps\":%u,\"fairness\":%.4f,\"sim_s\":%.6f,\"wall_s\":%.3f,\"cpu_s\":%.3f,"
		"\"messages_per_s\":%.0f,\"checks\":[", r->psn_wraps, r->fairness, (double)r->sim_ns / 1e9,
		(double)r->wall_ns / 1e9, (double)r->cpu_ns / 1e9, r->msg_rate);
	for (unsigned i = 0; i < r->n_chk; i++) {
		fprintf(f, "%s{\"name\":\"%s\",\"verdict\":\"%s\",\"detail\":", i ? "," : "", r->chk[i].name,
			cf_verdict_name(r->chk[i].v));
		cf_json_str(f, r->chk[i].detail);
		fputc('}', f);
	}
	fputs("]}\n", f);
	fflush(f);
}

int st_report_junit(const char *path, const struct st_result *r)
{
	unsigned nf = 0, ne = 0, ns = 0;
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, GEN_NAME " stress: cannot write %s\n", path);
		return -1;
	}
	for (unsigned i = 0; i < r->n_chk; i++) {
		nf += r->chk[i].v == CF_FAIL;
		ne += r->chk[i].v == CF_ERROR;
		ns += r->chk[i].v == CF_UNSUPPORTED;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuite name=\"rocegen-stress\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n",
		r->n_chk, nf, ne, ns);
	for (unsigned i = 0; i < r->n_chk; i++) {
		const struct st_check *c = &r->chk[i];
		const char *tag = c->v == CF_FAIL ? "failure" : c->v == CF_ERROR ? "error" :
				  c->v == CF_UNSUPPORTED ? "skipped" : NULL;

		fprintf(f, "  <testcase classname=\"stress\" name=\"%s\">", c->name);
		if (tag) {
			fprintf(f, "<%s message=\"", tag);
			cf_xml_str(f, c->detail);
			fprintf(f, "\"/>");
		}
		fputs("</testcase>\n", f);
	}
	fputs("</testsuite>\n", f);
	if (fclose(f)) {
		fprintf(stderr, GEN_NAME " stress: cannot write %s\n", path);
		return -1;
	}
	return 0;
}
