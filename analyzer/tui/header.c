/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * header.c — the five lines on top of every screen: source and state,
 * capture-wide totals and rates, anomalies, PFC and drops, fabric mode, sort
 * and filter.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "view.h"

struct sums {
	uint64_t requests, retx, nak_seq, nak_other, rnr, cnp, ecn_ce, icrc_bad, dup, oosr;
	uint32_t connections;
};

static void sums_get(const struct engine *e, struct sums *s)
{
	memset(s, 0, sizeof *s);
	s->retx = e->ev.retransmissions;
	s->nak_seq = e->ev.nak_seq_err;
	s->rnr = e->ev.rnr_nak;
	s->cnp = e->ev.cnp;
	s->ecn_ce = e->ev.ecn_ce;
	s->icrc_bad = e->ev.icrc_bad;
	s->dup = e->ev.duplicate_request;
	s->oosr = e->ev.out_of_seq_request;
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		const struct roce_seq_anom *x = anom(f);

		if (f->peer > i + 1)
			s->connections++;
		if (f->kind == FK_IWARP)
			continue;
		s->requests += f->u.seq.requests;
		s->retx += x->retransmissions;
		s->nak_seq += x->nak_seq_err;
		s->nak_other += x->nak_invalid_request + x->nak_remote_access + x->nak_remote_op + x->nak_other;
		s->rnr += x->rnr_nak;
		s->cnp += f->u.seq.cnp;
		s->ecn_ce += f->u.seq.ecn_ce;
		s->icrc_bad += f->u.seq.icrc_bad;
		s->dup += x->duplicate_request;
		s->oosr += x->out_of_seq_request;
	}
}

int draw_header(struct tui *v, uint64_t now)
{
	const struct engine *e = v->e;
	const struct engine_totals *t = &e->t;
	struct sums s;
	double pps, bps;
	char clock[64] = "", st[96] = "", buf[512];
	uint64_t roce = t->roce[1] + t->roce[2] + t->roce[3] + t->roce[4], pfc[8] = { 0 }, pfc_all = 0;
	time_t sec = (time_t)(now / 1000000000ull);
	struct tm tm;
	int x, y = 0;

	sums_get(e, &s);
	rates_now(v, &pps, &bps);
	if (now && localtime_r(&sec, &tm))
		strftime(clock, sizeof clock, "%Y-%m-%d %H:%M:%S %Z", &tm);
	if (source_live(v->src)) {
		snprintf(st, sizeof st, "live %s", source_name(v->src));
	} else {
		double sp = source_speed(v->src);

		if (sp > 0)
			snprintf(st, sizeof st, "replay %s at %gx", source_name(v->src), sp);
		else
			snprintf(st, sizeof st, "replay %s as fast as possible", source_name(v->src));
	}
	put(y, 0, pair_attr(v, P_TITLE), "rocetop %s  %s", v->cfg->version ? v->cfg->version : "", st);
	x = (int)strlen(v->cfg->version ? v->cfg->version : "") + (int)strlen(st) + 11;
	if (v->failed)
		put(y, x, pair_attr(v, P_BAD), "[capture failed]"), x += 17;
	else if (v->ended)
		put(y, x, pair_attr(v, P_GOOD), "[end of capture]"), x += 17;
	if (v->paused)
		put(y, x, pair_attr(v, P_WARN) | A_REVERSE, "[PAUSED]"), x += 9;
	if (v->cfg->prom_addr)
		put(y, x, A_NORMAL, " metrics http://%s/metrics", v->cfg->prom_addr);
	put(y, COLS - (int)strlen(clock) - 1 > x ? COLS - (int)strlen(clock) - 1 : COLS, A_NORMAL, "%s", clock);
	y++;

	put(y, 0, A_NORMAL, "frames %" PRIu64 "  %.1f pkt/s  %.3f Gb/s  flows %" PRIu32 " (%" PRIu64
	    " evicted)  connections %" PRIu32 "  RoCE %" PRIu64 "  iWARP %" PRIu64 "  other %" PRIu64,
	    t->frames, pps, bps / 1e9, e->nflows, t->evicted, s.connections, roce, t->iwarp,
	    t->roce[0] > t->iwarp ? t->roce[0] - t->iwarp : 0);
	y++;

	x = 0;
	snprintf(buf, sizeof buf, "retransmit %.2f%% (%" PRIu64 " of %" PRIu64 " requests)",
		 s.requests ? 100.0 * (double)s.retx / (double)s.requests : 0.0, s.retx, s.requests);
	put(y, x, s.retx ? pair_attr(v, P_WARN) : A_NORMAL, "%s", buf);
	x += (int)strlen(buf) + 2;
	snprintf(buf, sizeof buf, "NAKs %" PRIu64 " (seq %" PRIu64 ", other %" PRIu64 ")  RNR %" PRIu64,
		 s.nak_seq + s.nak_other, s.nak_seq, s.nak_other, s.rnr);
	put(y, x, s.nak_seq + s.nak_other + s.rnr ? pair_attr(v, P_BAD) : A_NORMAL, "%s", buf);
	x += (int)strlen(buf) + 2;
	snprintf(buf, sizeof buf, "CNPs %" PRIu64 "  ECN CE %.2f%% (%" PRIu64 ")", t->cnp,
		 roce ? 100.0 * (double)t->roce_ce / (double)roce : 0.0, t->roce_ce);
	put(y, x, t->cnp + t->roce_ce ? pair_attr(v, P_INFO) : A_NORMAL, "%s", buf);
	x += (int)strlen(buf) + 2;
	put(y, x, t->icrc[ROCE_ICRC_BAD] ? pair_attr(v, P_ICRC) : A_NORMAL, "ICRC bad %" PRIu64,
	    t->icrc[ROCE_ICRC_BAD]);
	y++;

	for (uint32_t i = 0; i < e->nports; i++)
		for (int k = 0; k < 8; k++) {
			pfc[k] += e->ports[i].pfc[k].pauses;
			pfc_all += e->ports[i].pfc[k].pauses;
		}
	{
		int n = snprintf(buf, sizeof buf, "PFC pauses by priority");

		for (int k = 0; k < 8; k++)
			n += snprintf(buf + n, sizeof buf - (size_t)n, " %d:%" PRIu64, k, pfc[k]);
		snprintf(buf + n, sizeof buf - (size_t)n, "  802.3x %" PRIu64 "  QCN CNM %" PRIu64, t->pause_frames,
			 t->cnm);
		put(y, 0, pfc_all || t->pause_frames ? pair_attr(v, P_BAD) : A_NORMAL, "%s", buf);
		x = (int)strlen(buf) + 2;
	}
	if (source_live(v->src)) {
		int n = snprintf(buf, sizeof buf, "drops");
		uint64_t any = 0;

		for (unsigned i = 0; i < source_count(v->src); i++) {
			struct source_stats ss;

			source_stats(v->src, i, &ss);
			if (ss.valid)
				n += snprintf(buf + n, sizeof buf - (size_t)n, " %s %" PRIu64 "/%" PRIu64 " of %" PRIu64,
					      source_iface(v->src, i), ss.drop, ss.ifdrop, ss.recv);
			else
				n += snprintf(buf + n, sizeof buf - (size_t)n, " %s ?", source_iface(v->src, i));
			any |= ss.drop | ss.ifdrop;
		}
		put(y, x, any ? pair_attr(v, P_BAD) | A_REVERSE : A_NORMAL, "%s", buf);
	} else {
		put(y, x, A_NORMAL, "drops: none (file)");
	}
	y++;

	{
		enum fabric_mode fm = engine_fabric_mode(e, NULL, 0);
		int n = snprintf(buf, sizeof buf, "fabric %s   sort %s %s", fabric_mode_name(fm), cols[v->sort].name,
				 (cols[v->sort].desc ^ v->rev) ? "(high first)" : "(low first)");

		if (v->filter[0])
			snprintf(buf + n, sizeof buf - (size_t)n, "   filter \"%s\": %" PRIu32 " of %" PRIu32 " flows",
				 v->filter, v->nrows, e->nflows);
		put(y, 0, A_NORMAL, "%s", buf);
	}
	y++;
	return y;
}
