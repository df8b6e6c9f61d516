/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * header.c — the five lines on top of every screen: source and state,
 * capture-wide totals and rates, anomalies, PFC and drops, fabric mode, sort
 * and filter.  A device-only view (no capture) has two: the title, and what
 * it shows instead.
 */
#include <inttypes.h>
#include <stdarg.h>
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
		const struct roce_seq_anom *x = flow_anom(f);

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

/* The sum of the flows' RATE 2s column: the header's rate agrees with the rows. */
static double flows_rate(const struct engine *e, uint64_t now)
{
	double sum = 0, r[3];

	for (uint32_t i = 0; i < e->nflows; i++) {
		flow_rates(e, &e->flows[i], now, r);
		sum += r[0];
	}
	return sum;
}

/* The header's lines are runs of figures two spaces apart: on a narrow
 * terminal a figure that does not fit goes on the next line, whole, so
 * that every one stays on screen (80x24 included). */
struct flowline {
	int y, x;
};

static void seg(struct flowline *L, attr_t a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seg(struct flowline *L, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof buf - 1)
		n = (int)sizeof buf - 1;
	if (L->x > 0 && L->x + n > COLS) {
		L->y++;
		L->x = 0;
	}
	put(L->y, L->x, a, "%s", buf);
	L->x += n + 2;
}

/* name in at most w characters: whole, else its last component, else
 * "~" and its end (the distinctive part) */
static const char *fit_name(const char *name, int w, char *buf, size_t cap)
{
	const char *base = strrchr(name, '/');

	if ((int)strlen(name) <= w)
		return name;
	if (base && base[1] && (int)strlen(base + 1) <= w)
		return base + 1;
	if (w < 2)
		w = 2;
	snprintf(buf, cap, "~%s", name + strlen(name) - (size_t)(w - 1 < (int)strlen(name) ? w - 1 : (int)strlen(name)));
	return buf;
}

/* The title: what runs, its state, the clock.  On a narrow terminal the
 * clock goes first, then the source's name shrinks (fit_name), so that the
 * state ([end of capture], [PAUSED]) stays on screen. */
static void title_line(struct tui *v, int y, uint64_t now)
{
	char clock[64] = "", st[600] = "", nb[512], metrics[160] = "";
	const char *ver = v->cfg->version ? v->cfg->version : "", *name = "", *mark = "";
	time_t sec = (time_t)(now / 1000000000ull);
	struct tm tm;
	int x, fixed, w = 0, markw = 0, pausew = v->paused ? 9 : 0;
	double sp = 0;
	enum { T_DEV, T_LIVE, T_SPEED, T_FAST } kind;

	if (now && localtime_r(&sec, &tm))
		strftime(clock, sizeof clock, "%Y-%m-%d %H:%M:%S %Z", &tm);
	if (v->cfg->dev_only) {
		kind = T_DEV;
	} else {
		name = source_name(v->src);
		kind = source_live(v->src) ? T_LIVE : (sp = source_speed(v->src)) > 0 ? T_SPEED : T_FAST;
	}
	if (v->failed)
		mark = "[capture failed]", markw = 17;
	else if (v->ended)
		mark = "[end of capture]", markw = 17;
	if (v->cfg->prom_addr)
		snprintf(metrics, sizeof metrics, " metrics http://%s/metrics", v->cfg->prom_addr);
	/* the state's words around the name; then everything but the name: "rocetop VER  " + words +
	 * marks + metrics */
	for (int pass = 0; pass < 2; pass++) {
		const char *nm = pass ? fit_name(name, w, nb, sizeof nb) : "";

		if (kind == T_DEV)
			snprintf(st, sizeof st, "device-only view (no capture)");
		else if (kind == T_LIVE)
			snprintf(st, sizeof st, "live %s", nm);
		else if (kind == T_SPEED)
			snprintf(st, sizeof st, "replay %s at %gx", nm, sp);
		else
			snprintf(st, sizeof st, "replay %s as fast as possible", nm);
		if (pass)
			break;
		fixed = 8 + (int)strlen(ver) + 2 + (int)strlen(st) + 1 + markw + pausew + (int)strlen(metrics);
		w = COLS - fixed;
		if (w < (int)strlen(name) || w - (int)strlen(name) < (int)strlen(clock) + 1)
			clock[0] = 0;     /* the clock goes before the name shrinks */
	}
	put(y, 0, pair_attr(v, P_TITLE), "rocetop %s  %s", ver, st);
	x = (int)strlen(ver) + (int)strlen(st) + 11;
	if (markw)
		put(y, x, pair_attr(v, v->failed ? P_BAD : P_GOOD), "%s", mark), x += markw;
	if (v->paused)
		put(y, x, pair_attr(v, P_WARN) | A_REVERSE, "[PAUSED]"), x += 9;
	if (metrics[0])
		put(y, x, A_NORMAL, "%s", metrics);
	if (clock[0])
		put(y, COLS - (int)strlen(clock) - 1 > x ? COLS - (int)strlen(clock) - 1 : COLS, A_NORMAL, "%s", clock);
}

/* A capture's length: "0.48 s" (prec decimals), or below 0.1 s in ms ("0.576 ms",
 * not "0.00 s": pfc.pcap is that short); 0 as "0 s". */
static const char *secs_str(double s, int prec, char *buf, size_t cap)
{
	if (s > 0 && s < 0.1)
		snprintf(buf, cap, "%.3g ms", s * 1e3);
	else
		snprintf(buf, cap, "%.*f s", prec, s);
	return buf;
}

/* Frames, rates (now: the flows' RATE 2s summed; avg: every frame over the
 * capture so far), flows and what the frames were. */
static int totals_line(struct tui *v, int y, uint64_t now, const struct sums *s)
{
	const struct engine *e = v->e;
	const struct engine_totals *t = &e->t;
	uint64_t roce = t->roce[1] + t->roce[2] + t->roce[3] + t->roce[4];
	double pps, bps;
	char r2[24], avg[24], win[32] = "2s", dur[24];
	struct flowline L = { y, 0 };

	rates_now(v, &pps, &bps);
	rate_str(flows_rate(e, now), r2, sizeof r2);
	rate_str(engine_avg_bps(e), avg, sizeof avg);
	if (rate_whole(v, now))
		snprintf(win, sizeof win, "all %s", secs_str(engine_rate_window(e, 0, now), 2, dur, sizeof dur));
	seg(&L, A_NORMAL, "frames %" PRIu64, t->frames);
	seg(&L, A_NORMAL, "%.1f pkt/s", pps);
	seg(&L, A_NORMAL, "rate %s %s", win, r2);
	seg(&L, A_NORMAL, "avg %s over %s", avg,
	    secs_str(t->last_ns > t->first_ns ? (double)(t->last_ns - t->first_ns) / 1e9 : 0.0, 3, dur, sizeof dur));
	seg(&L, A_NORMAL, "flows %" PRIu32 " (%" PRIu64 " evicted)", e->nflows, t->evicted);
	seg(&L, A_NORMAL, "connections %" PRIu32, s->connections);
	seg(&L, A_NORMAL, "RoCE %" PRIu64, roce);
	seg(&L, A_NORMAL, "iWARP %" PRIu64, t->iwarp);
	seg(&L, A_NORMAL, "other %" PRIu64, t->roce[0] > t->iwarp ? t->roce[0] - t->iwarp : 0);
	return L.y + 1;
}

static int anomalies_line(struct tui *v, int y, const struct sums *s)
{
	const struct engine_totals *t = &v->e->t;
	uint64_t roce = t->roce[1] + t->roce[2] + t->roce[3] + t->roce[4];
	struct flowline L = { y, 0 };

	seg(&L, s->retx ? pair_attr(v, P_WARN) : A_NORMAL, "retransmit %.2f%% (%" PRIu64 " of %" PRIu64 " requests)",
	    s->requests ? 100.0 * (double)s->retx / (double)s->requests : 0.0, s->retx, s->requests);
	seg(&L, s->nak_seq + s->nak_other + s->rnr ? pair_attr(v, P_BAD) : A_NORMAL,
	    "NAKs %" PRIu64 " (seq %" PRIu64 ", other %" PRIu64 ")  RNR %" PRIu64,
	    s->nak_seq + s->nak_other, s->nak_seq, s->nak_other, s->rnr);
	seg(&L, t->cnp + t->roce_ce ? pair_attr(v, P_INFO) : A_NORMAL, "CNPs %" PRIu64 "  ECN CE %.2f%% (%" PRIu64 ")",
	    t->cnp, roce ? 100.0 * (double)t->roce_ce / (double)roce : 0.0, t->roce_ce);
	seg(&L, t->icrc[ROCE_ICRC_BAD] ? pair_attr(v, P_ICRC) : A_NORMAL, "ICRC bad %" PRIu64, t->icrc[ROCE_ICRC_BAD]);
	/* the verdicts raised now (v: the diagnosis screen) */
	seg(&L, v->dl_worst == DS_ERROR ? pair_attr(v, P_BAD) | A_REVERSE : v->dl_worst == DS_WARNING ?
	    pair_attr(v, P_WARN) | A_REVERSE : A_NORMAL, "diagnosis %zu active", v->dl_active);
	return L.y + 1;
}

/* PFC pauses; returns where the drops go. */
static int pfc_part(struct tui *v, int y)
{
	const struct engine *e = v->e;
	uint64_t pfc[8] = { 0 }, pfc_all = 0;
	char buf[512];
	int n;

	for (uint32_t i = 0; i < e->nports; i++)
		for (int k = 0; k < 8; k++) {
			pfc[k] += e->ports[i].pfc[k].pauses;
			pfc_all += e->ports[i].pfc[k].pauses;
		}
	n = snprintf(buf, sizeof buf, "PFC pauses by priority");
	for (int k = 0; k < 8; k++)
		n += snprintf(buf + n, sizeof buf - (size_t)n, " %d:%" PRIu64, k, pfc[k]);
	snprintf(buf + n, sizeof buf - (size_t)n, "  802.3x %" PRIu64 "  QCN CNM %" PRIu64, e->t.pause_frames,
		 e->t.cnm);
	put(y, 0, pfc_all || e->t.pause_frames ? pair_attr(v, P_BAD) : A_NORMAL, "%s", buf);
	return (int)strlen(buf) + 2;
}

static int pfc_drops_line(struct tui *v, int y)
{
	char buf[512];
	int x = pfc_part(v, y), n;
	uint64_t any = 0;

	if (!source_live(v->src)) {
		if (x + 18 > COLS)
			y++, x = 0;
		put(y, x, A_NORMAL, "drops: none (file)");
		return y + 1;
	}
	n = snprintf(buf, sizeof buf, "drops");
	/* per interface: ring drops / interface drops of received, and how often the ring was full */
	for (unsigned i = 0; i < source_count(v->src) && n < (int)sizeof buf - 1; i++) {
		struct source_stats ss;

		source_stats(v->src, i, &ss);
		if (ss.valid)
			n += snprintf(buf + n, sizeof buf - (size_t)n, " %s %" PRIu64 "/%" PRIu64 " of %" PRIu64,
				      source_iface(v->src, i), ss.drop, ss.ifdrop, ss.recv);
		else
			n += snprintf(buf + n, sizeof buf - (size_t)n, " %s ?", source_iface(v->src, i));
		if (ss.freeze && n < (int)sizeof buf - 1)
			n += snprintf(buf + n, sizeof buf - (size_t)n, " (ring full %" PRIu64 "x)", ss.freeze);
		if (ss.nicdrop_valid && n < (int)sizeof buf - 1)
			n += snprintf(buf + n, sizeof buf - (size_t)n, " nic %" PRIu64, ss.nicdrop);
		any |= ss.drop | ss.ifdrop | ss.freeze | ss.nicdrop;
	}
	if (x + n > COLS)
		y++, x = 0;
	put(y, x, any ? pair_attr(v, P_BAD) | A_REVERSE : A_NORMAL, "%s", buf);
	return y + 1;
}

static void fabric_line(struct tui *v, int y, uint64_t now)
{
	const struct engine *e = v->e;
	enum fabric_mode fm = engine_fabric_mode(e, NULL, 0);
	char buf[512];
	int n = snprintf(buf, sizeof buf, "fabric %s   sort %s %s", fabric_mode_name(fm), col_name(v, v->sort, now),
			 (cols[v->sort].desc ^ v->rev) ? "(high first)" : "(low first)");

	if (v->filter[0])
		snprintf(buf + n, sizeof buf - (size_t)n, "   filter \"%s\": %" PRIu32 " of %" PRIu32 " flows",
			 v->filter, v->nrows, e->nflows);
	put(y, 0, A_NORMAL, "%s", buf);
}

/* Without a capture there are no totals: say what the screen holds instead. */
static int dev_only_header(struct tui *v, uint64_t now)
{
	title_line(v, 0, now);
	put(1, 0, pair_attr(v, P_DIM), "the NICs' own counters and QPs, redrawn every %g s; no wire columns "
	    "(-i IFACE or -r FILE adds them)", v->cfg->interval > 0 ? v->cfg->interval : 1);
	return 3;
}

/* Draws the header; returns the first row below it. */
int draw_header(struct tui *v, uint64_t now)
{
	struct sums s;
	int y;

	if (v->cfg->dev_only)
		return dev_only_header(v, now);
	sums_get(v->e, &s);
	title_line(v, 0, now);
	y = totals_line(v, 1, now, &s);
	y = anomalies_line(v, y, &s);
	y = pfc_drops_line(v, y);
	fabric_line(v, y, now);
	return y + 1;
}
