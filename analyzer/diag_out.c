/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_out.c — the diagnosis in the batch reports: the "Diagnosis" section
 * of the text summary and the "diagnosis" array of the JSON one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "diag_out.h"
#include "json.h"

void diag_input_of(const struct engine *e, const struct report_ctx *c, struct diag_input *in)
{
	struct timespec ts;

	memset(in, 0, sizeof *in);
	in->now_ns = e->t.last_ns;
	if (c && c->live && !clock_gettime(CLOCK_REALTIME, &ts)) {
		uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;

		if (now > in->now_ns)
			in->now_ns = now;
	}
	in->drops_valid = c && c->drops.valid;
	in->dropped = in->drops_valid ? c->drops.sum.dropped + c->drops.sum.if_dropped : 0;
	in->nic_valid = c && c->drops.valid && c->drops.sum.nic_valid;
	in->nic_dropped = in->nic_valid ? c->drops.sum.nic_dropped : 0;
	in->nic_counters = c && c->drops.n ? c->drops.iface[0].nic_counters : NULL;
	if (c && c->devices_diag)
		c->devices_diag(c->devices, in);
}

static void ev_json(FILE *o, const struct diag_ev *ev)
{
	json_string(o, ev->key);
	fputc(':', o);
	switch (ev->kind) {
	case DE_NULL:
		fputs("null", o);
		break;
	case DE_STR:
		json_string(o, ev->str);
		break;
	case DE_LIST:
		fputc('[', o);
		for (unsigned i = 0; i < ev->n; i++)
			fprintf(o, "%s%.15g", i ? "," : "", ev->list[i]);
		fputc(']', o);
		break;
	default:
		fprintf(o, "%.15g", ev->num);
		break;
	}
}

void diag_verdict_json(FILE *o, const struct diag_verdict *v)
{
	fprintf(o, "{\"verdict\":\"%s\",\"severity\":\"%s\",\"subject\":", diag_name(v->id),
		diag_severity_name(v->severity));
	json_string(o, v->subject);
	fprintf(o, ",\"first_frame\":%" PRIu64 ",\"last_frame\":%" PRIu64 ",\"evidence\":{", v->first_frame,
		v->last_frame);
	for (unsigned i = 0; i < v->nev; i++) {
		if (i)
			fputc(',', o);
		ev_json(o, &v->ev[i]);
	}
	fputs("},\"text\":", o);
	json_string(o, v->text);
	fprintf(o, ",\"active\":%s}", v->active ? "true" : "false");
}

static void us_json(FILE *o, const char *key, uint64_t ns1)
{
	fprintf(o, ",\"%s\":", key);
	if (ns1)
		fprintf(o, "%.15g", (double)(ns1 - 1) / 1e3);
	else
		fputs("null", o);
}

/* ,"cnp_pacing":[{"source", "cnps", "qps", "ip_pairs", "min_interval_us",
 * "min_cross_qp_us", "min_cross_pair_us", "pacing"}, …] */
static void pacing_json(FILE *o, const struct engine *e)
{
	struct diag_pacing *p;
	size_t n;

	fputs(",\"cnp_pacing\":[", o);
	if (!diag_pacing(e, diag_tolerance(e), &p, &n)) {
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",{\"source\":" : "{\"source\":", o);
			json_string(o, p[i].source);
			fprintf(o, ",\"cnps\":%" PRIu64 ",\"qps\":%" PRIu32 ",\"ip_pairs\":%" PRIu32, p[i].cnps, p[i].qps,
				p[i].ip_pairs);
			us_json(o, "min_interval_us", p[i].qp_min_ns);
			us_json(o, "min_cross_qp_us", p[i].xqp_min_ns);
			us_json(o, "min_cross_pair_us", p[i].xpair_min_ns);
			fprintf(o, ",\"pacing\":\"%s\"}", p[i].pacing);
		}
		free(p);
	}
	fputc(']', o);
}

static void pacing_text(FILE *o, const struct engine *e)
{
	struct diag_pacing *p;
	size_t n;
	char b[320];

	if (diag_pacing(e, diag_tolerance(e), &p, &n))
		return;
	if (n)
		fputs("\nCNP pacing (the least intervals between CNPs; rocetop(8) DIAGNOSIS)\n", o);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "  %s\n", diag_pacing_str(&p[i], b, sizeof b));
	free(p);
}

void diag_json(FILE *o, const struct engine *e, const struct report_ctx *c)
{
	struct diag_input in;
	struct diag_list l;

	diag_input_of(e, c, &in);
	fputs(",\"diagnosis\":[", o);
	if (!diag_evaluate(e, &in, &l)) {
		for (size_t i = 0; i < l.n; i++) {
			if (i)
				fputc(',', o);
			diag_verdict_json(o, &l.v[i]);
		}
		diag_list_free(&l);
	}
	fputc(']', o);
	pacing_json(o, e);
}

void diag_text(FILE *o, const struct engine *e, const struct report_ctx *c)
{
	struct diag_input in;
	struct diag_list l;
	char b[512];

	diag_input_of(e, c, &in);
	if (diag_evaluate(e, &in, &l)) {
		fputs("\nDiagnosis: out of memory\n", o);
		return;
	}
	if (!l.n) {
		diag_list_free(&l);     /* the rules may have made room without raising */
		pacing_text(o, e);
		return;
	}
	fprintf(o, "\nDiagnosis (%zu verdict%s; rocetop(8) DIAGNOSIS has the rules)\n", l.n, l.n == 1 ? "" : "s");
	for (size_t i = 0; i < l.n; i++) {
		const struct diag_verdict *v = &l.v[i];

		fprintf(o, "  %-7s %-22s %s  frames %" PRIu64 "-%" PRIu64 "%s\n", diag_severity_name(v->severity),
			diag_name(v->id), v->subject, v->first_frame, v->last_frame, v->active ? "" : " (past)");
		fprintf(o, "          %s\n          ", v->text);
		for (unsigned k = 0; k < v->nev; k++)
			fprintf(o, "%s%s", k ? " " : "", diag_ev_str(&v->ev[k], b, sizeof b));
		fputc('\n', o);
	}
	diag_list_free(&l);
	pacing_text(o, e);
}
