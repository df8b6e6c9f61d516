/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_report.c — how `rocegen conform` tells its verdicts: one text line
 * per case, a JSON document, or a JUnit XML file for CI systems.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "conform.h"
#include "gen.h"

/* A JSON string, escaped (also for stress/) */
void cf_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* XML text or attribute, escaped (also for stress/) */
void cf_xml_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void metrics_text(const struct cf_result *r, char *buf, size_t cap)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < r->n_m && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s=%.6g%s", i ? " " : "", r->m[i].name,
				      r->m[i].value, r->m[i].unit);
}

void cf_report_line(FILE *f, const struct cf_case *k, const struct cf_result *r)
{
	char m[256];

	metrics_text(r, m, sizeof(m));
	fprintf(f, "%-24s %-9s %-11s %s%s%s\n", k->name, k->role, cf_verdict_name(r->v), r->detail,
		m[0] ? " | " : "", m);
	fflush(f);
}

static void json_case(FILE *f, const struct cf_case *k, const struct cf_result *r)
{
	fprintf(f, "{\"name\":");
	cf_json_str(f, k->name);
	fprintf(f, ",\"role\":\"%s\",\"verdict\":\"%s\",\"detail\":", k->role, cf_verdict_name(r->v));
	cf_json_str(f, r->detail);
	fprintf(f, ",\"seconds\":%.6f,\"metrics\":{", (double)r->dur_ns / 1e9);
	for (unsigned j = 0; j < r->n_m; j++) {
		fprintf(f, "%s", j ? "," : "");
		cf_json_str(f, r->m[j].name);
		fprintf(f, ":{\"value\":%.9g,\"unit\":", r->m[j].value);
		cf_json_str(f, r->m[j].unit);
		fprintf(f, "}");
	}
	fprintf(f, "}");
	if (r->pcap[0]) {
		fprintf(f, ",\"pcap\":");
		cf_json_str(f, r->pcap);
	}
	fprintf(f, "}");
}

void cf_report_json(FILE *f, const char *target, const struct cf_run *run)
{
	fprintf(f, "{\"target\":");
	cf_json_str(f, target);
	fprintf(f, ",\"cases\":[");
	for (unsigned i = 0; i < run->n; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		json_case(f, run->ran[i], &run->res[i]);
	}
	fprintf(f, "\n],\"pass\":%u,\"fail\":%u,\"unsupported\":%u,\"error\":%u}\n",
		run->cnt[CF_PASS], run->cnt[CF_FAIL], run->cnt[CF_UNSUPPORTED], run->cnt[CF_ERROR]);
}

void cf_report_totals(FILE *f, const struct cf_run *run)
{
	fprintf(f, "%u cases: %u pass, %u fail, %u unsupported, %u error\n", run->n,
		run->cnt[CF_PASS], run->cnt[CF_FAIL], run->cnt[CF_UNSUPPORTED], run->cnt[CF_ERROR]);
}

static void junit_case(FILE *f, const struct cf_case *k, const struct cf_result *r)
{
	static const char *const el[] = { "", "failure", "skipped", "error" };
	char m[256];

	metrics_text(r, m, sizeof(m));
	fprintf(f, "  <testcase classname=\"conform.%s\" name=\"%s\" time=\"%.6f\">", k->role, k->name,
		(double)r->dur_ns / 1e9);
	if (r->v != CF_PASS) {
		fprintf(f, "\n    <%s message=\"", el[r->v]);
		cf_xml_str(f, r->detail);
		fprintf(f, "\"/>\n  ");
	}
	fprintf(f, "<system-out>");
	cf_xml_str(f, r->detail);
	if (m[0]) {
		fputs(" | ", f);
		cf_xml_str(f, m);
	}
	fprintf(f, "</system-out></testcase>\n");
}

int cf_report_junit(const char *path, const struct cf_run *run)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f) {
		fprintf(stderr, GEN_NAME " conform: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuite name=\"rocegen-conform\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n",
		run->n, run->cnt[CF_FAIL], run->cnt[CF_ERROR], run->cnt[CF_UNSUPPORTED]);
	for (unsigned i = 0; i < run->n; i++)
		junit_case(f, run->ran[i], &run->res[i]);
	fprintf(f, "</testsuite>\n");
	bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, GEN_NAME " conform: %s: %s\n", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
