/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_tput.c — throughput per QP over time (bytes of the messages that
 * completed, or with the adapter as requester executed, in intervals of the
 * io clock), Jain's fairness index per interval, and Husky's question with
 * --victim: QP 0 (the victim) runs alone for the first half of --duration,
 * then beside the other QPs (the attackers); its throughput alone and beside
 * them, and its share against an equal share of the second half.
 */
#include <stdlib.h>
#include <string.h>
#include "stress.h"
#include "stress_int.h"

int st_tput_init(struct st_run *s)
{
	const struct st_opts *o = s->o;

	s->tp_ns = o->interval_ns ? o->interval_ns :
		   o->duration_ns ? o->duration_ns / 10 : s->is_ref ? 100000ull : 1000000000ull;
	if (!s->tp_ns)
		s->tp_ns = 1;
	s->t_switch = o->victim ? s->t0 + o->duration_ns / 2 : 0;
	s->res->victim_alone = s->res->victim_shared = -1;
	s->tp = calloc((size_t)s->n * ST_TP_BINS, sizeof(*s->tp));
	return s->tp ? 0 : -1;
}

void st_tput_add(struct st_run *s, unsigned qi, uint64_t bytes, uint64_t now)
{
	uint64_t b = now > s->t0 ? (now - s->t0) / s->tp_ns : 0;

	if (!s->tp)
		return;
	s->tp[(size_t)qi * ST_TP_BINS + (b < ST_TP_BINS ? b : ST_TP_BINS - 1)] += bytes;
	if (now > s->t_last)
		s->t_last = now;
	if (!s->o->victim)
		return;
	if (qi == 0) {
		s->vbytes[now >= s->t_switch] += bytes;
		s->t_vlast = now;
	}
	else if (now >= s->t_switch)
		s->abytes += bytes;
}

/* An attacker before the switch: it may not post yet (and is not done). */
int st_victim_waits(const struct st_run *s, const struct st_qp *q, uint64_t now)
{
	return s->o->victim && q != s->qp && now < s->t_switch;
}

/* At the switch, every attacker goes on the ready list. */
void st_victim_switch(struct st_run *s, uint64_t now)
{
	if (!s->o->victim || s->switched || now < s->t_switch)
		return;
	s->switched = 1;
	for (unsigned i = 1; i < s->n; i++)
		if (!s->qp[i].in_ready && !s->qp[i].done) {
			s->qp[i].in_ready = 1;
			s->ready[s->nready++] = i;
		}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void summarize_bin(struct st_run *s, unsigned b, double *v, struct st_tbin *t)
{
	double sum = 0, sq = 0, sec = (double)s->tp_ns / 1e9;

	for (unsigned i = 0; i < s->n; i++) {
		v[i] = (double)s->tp[(size_t)i * ST_TP_BINS + b] / sec;
		sum += v[i];
		sq += v[i] * v[i];
	}
	qsort(v, s->n, sizeof(*v), cmp_dbl);
	t->t = b * sec;
	t->total = sum;
	t->min = v[0];
	t->p50 = v[(s->n - 1) / 2];
	t->max = v[s->n - 1];
	t->jain = sq > 0 ? sum * sum / (s->n * sq) : 0;
}

void st_tput_finish(struct st_run *s)
{
	struct st_result *r = s->res;
	uint64_t last = s->t_last > s->t0 ? (s->t_last - s->t0) / s->tp_ns : 0;
	double *v;

	r->tp_interval = (double)s->tp_ns / 1e9;
	if (!s->tp || !(v = malloc(s->n * sizeof(*v))))
		return;
	r->n_tp = (unsigned)(last < ST_TP_BINS ? last + 1 : ST_TP_BINS);
	if ((r->tp = calloc(r->n_tp, sizeof(*r->tp))))
		for (unsigned b = 0; b < r->n_tp; b++)
			summarize_bin(s, b, v, &r->tp[b]);
	else
		r->n_tp = 0;
	free(v);
	if (s->o->victim && s->t_switch > s->t0 && s->t_last > s->t_switch) {
		r->victim_alone = (double)s->vbytes[0] * 1e9 / (double)(s->t_switch - s->t0);
		/* up to its own last completion: attackers still draining (RNR retries) after
		 * the victim stopped posting do not dilute its rate */
		r->victim_shared = s->t_vlast > s->t_switch ?
				   (double)s->vbytes[1] * 1e9 / (double)(s->t_vlast - s->t_switch) : 0;
		r->attackers_shared = (double)s->abytes * 1e9 / (double)(s->t_last - s->t_switch);
	}
	free(s->tp);
	s->tp = NULL;
}

void st_report_tput_table(FILE *f, const struct st_result *r)
{
	double jmin = 2, jsum = 0;

	for (unsigned b = 0; b < r->n_tp; b++) {
		jmin = r->tp[b].jain < jmin ? r->tp[b].jain : jmin;
		jsum += r->tp[b].jain;
	}
	if (r->n_tp)
		fprintf(f, "throughput per QP over %u intervals of %.6f s: Jain's index min %.4f mean %.4f\n",
			r->n_tp, r->tp_interval, jmin, jsum / r->n_tp);
	for (unsigned b = 0; b < r->n_tp && r->n_tp <= 20; b++)
		fprintf(f, "  t %10.6f s  total %10.3f MB/s  per QP min %9.3f p50 %9.3f max %9.3f MB/s  Jain %.4f\n",
			r->tp[b].t, r->tp[b].total / 1e6, r->tp[b].min / 1e6, r->tp[b].p50 / 1e6,
			r->tp[b].max / 1e6, r->tp[b].jain);
	if (r->victim_alone >= 0)
		fprintf(f, "victim QP 0: alone %.3f MB/s, beside %u attackers %.3f MB/s (%.1f %%); attackers %.3f MB/s\n",
			r->victim_alone / 1e6, r->qps - 1, r->victim_shared / 1e6,
			r->victim_alone > 0 ? 100 * r->victim_shared / r->victim_alone : 0,
			r->attackers_shared / 1e6);
}

void st_report_tput_json(FILE *f, const struct st_result *r)
{
	fprintf(f, ",\"throughput\":{\"interval_s\":%.6f,\"bins\":[", r->tp_interval);
	for (unsigned b = 0; b < r->n_tp; b++)
		fprintf(f, "%s{\"t_s\":%.6f,\"total_Bps\":%.0f,\"qp_min_Bps\":%.0f,\"qp_p50_Bps\":%.0f,"
			"\"qp_max_Bps\":%.0f,\"jain\":%.4f}", b ? "," : "", r->tp[b].t, r->tp[b].total,
			r->tp[b].min, r->tp[b].p50, r->tp[b].max, r->tp[b].jain);
	fputs("]}", f);
	if (r->victim_alone >= 0)
		fprintf(f, ",\"victim\":{\"qp\":0,\"attackers\":%u,\"alone_Bps\":%.0f,\"shared_Bps\":%.0f,"
			"\"attackers_Bps\":%.0f}", r->qps - 1, r->victim_alone, r->victim_shared,
			r->attackers_shared);
}
