/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_rules.c — the diagnosis dr_rules: a table of dr_rules, each a function over
 * the evidence of one scope (a troubled connection, a flow, a port's
 * priority, a port, a priority, the capture) that raises at most one
 * verdict.  rocetop(8) "DIAGNOSIS" says each rule in words; keep the two
 * alike.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag_int.h"
#include "flow.h"

#define ENG_PARTS_MAX 64                    /* as ENGMERGE_MAX_PARTS */

enum scope { SC_CONN, SC_FLOW, SC_PRIO, SC_PORT, SC_PRIORITY, SC_CAPTURE };

/* What a rule sees. */
struct dr_ctx {
	const struct engine *v;             /* the whole view (totals, ports) */
	const struct engine *e;             /* the part holding the evidence */
	const struct diag *d;
	const struct diag_input *in;
	const struct engine *parts[ENG_PARTS_MAX];
	unsigned nparts;
	uint64_t pcp[8], untagged;          /* RoCE frames by priority, over the parts */
	uint64_t capture_lost;              /* frames the capture lost (0: none known) */
	const struct dg_conn *c;
	const struct flow *f;
	const struct dg_fl *x;
	uint32_t port;
	unsigned prio;
	struct diag_pacing *pace;           /* CNP sources (diag_pacing.c) */
	size_t npace;
};

typedef int (*rule_fn)(const struct dr_ctx *k, struct diag_verdict *v);

struct dr_rule {
	int id;
	int severity;
	enum scope scope;
	rule_fn fn;
};

/* ---- evidence helpers ---- */

static struct diag_ev *dr_ev_add(struct diag_verdict *v, const char *key, int kind)
{
	struct diag_ev *x = &v->ev[v->nev < DIAG_EV_MAX ? v->nev++ : DIAG_EV_MAX - 1];

	memset(x, 0, sizeof *x);
	x->key = key;
	x->kind = (uint8_t)kind;
	return x;
}

static void dr_ev_num(struct diag_verdict *v, const char *key, double n)
{
	dr_ev_add(v, key, DE_NUM)->num = n;
}

static void dr_ev_null(struct diag_verdict *v, const char *key)
{
	dr_ev_add(v, key, DE_NULL);
}

static void dr_ev_str(struct diag_verdict *v, const char *key, const char *s)
{
	snprintf(dr_ev_add(v, key, DE_STR)->str, sizeof v->ev[0].str, "%s", s);
}

static void dr_ev_list32(struct diag_verdict *v, const char *key, const uint32_t *a, unsigned n)
{
	struct diag_ev *x = dr_ev_add(v, key, DE_LIST);

	for (unsigned i = 0; i < n && i < DIAG_LIST_MAX; i++)
		x->list[x->n++] = a[i];
}

static void dr_ev_list2(struct diag_verdict *v, const char *key, double a, double b)
{
	struct diag_ev *x = dr_ev_add(v, key, DE_LIST);

	x->list[0] = a;
	x->list[1] = b;
	x->n = 2;
}

const char *diag_ev_str(const struct diag_ev *ev, char *buf, size_t cap)
{
	size_t n;

	switch (ev->kind) {
	case DE_NULL:
		snprintf(buf, cap, "%s=unknown", ev->key);
		break;
	case DE_STR:
		snprintf(buf, cap, "%s=%s", ev->key, ev->str);
		break;
	case DE_LIST:
		n = (size_t)snprintf(buf, cap, "%s=[", ev->key);
		for (unsigned i = 0; i < ev->n && n < cap; i++)
			n += (size_t)snprintf(buf + n, cap - n, "%s%.15g", i ? "," : "", ev->list[i]);
		if (n < cap)
			snprintf(buf + n, cap - n, "]");
		break;
	default:
		snprintf(buf, cap, "%s=%.15g", ev->key, ev->num);
		break;
	}
	return buf;
}

/* ---- subjects ---- */

static void dr_mac_str(const uint8_t *m, char *b, size_t cap)
{
	snprintf(b, cap, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void dr_subject_flow(const struct dr_ctx *k, struct diag_verdict *v, uint32_t src, uint32_t dst, uint32_t qpn,
			 int conn)
{
	char a[64], b[64];
	const struct flow *f = NULL, *p = NULL;

	host_str(k->e, src, a, sizeof a);
	host_str(k->e, dst, b, sizeof b);
	memcpy(v->src, k->e->hosts[src].addr, 16);
	memcpy(v->dst, k->e->hosts[dst].addr, 16);
	v->qpn = qpn;
	v->subject_kind = conn ? DSUB_CONN : DSUB_FLOW;
	if (k->f && k->f->src == src && k->f->dst == dst && k->f->qpn == qpn)
		f = k->f;
	if (f)
		p = flow_peer(k->e, f);
	if (conn && p)
		snprintf(v->subject, sizeof v->subject, "%s QP 0x%06" PRIx32 " <-> %s QP 0x%06" PRIx32, a,
			 p->qpn, b, qpn);
	else
		snprintf(v->subject, sizeof v->subject, "%s -> %s QP 0x%06" PRIx32, a, b, qpn);
}

static void dr_subject_conn(const struct dr_ctx *k, struct diag_verdict *v)
{
	dr_subject_flow(k, v, k->c->src, k->c->dst, k->c->qpn, 1);
}

static void dr_frames(struct diag_verdict *v, uint64_t f0, uint64_t f1, uint64_t last_ns)
{
	v->first_frame = f0;
	v->last_frame = f1 ? f1 : f0;
	v->last_ns = last_ns;
}

static void dr_text(struct diag_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dr_text(struct diag_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->text, sizeof v->text, fmt, ap);
	va_end(ap);
}

/* ---- 1. retransmission timers ---- */

static int dr_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double dr_median_u32(const uint32_t *a, unsigned n)
{
	uint32_t s[DIAG_LIST_MAX];

	memcpy(s, a, n * sizeof *s);
	qsort(s, n, sizeof *s, dr_cmp_u32);
	return n % 2 ? s[n / 2] : ((double)s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The negotiated local ACK timeout in us, 0 when unknown. */
static double dr_negotiated_us(const struct dr_ctx *k, const char **from)
{
	if (k->c->cm && k->c->ack_t) {
		*from = "the CM REQ negotiated";
		return 4.096 * (double)(1ull << k->c->ack_t);
	}
	if (k->d->cfg.ack_timeout_us > 0) {
		*from = "given by --ack-timeout";
		return k->d->cfg.ack_timeout_us;
	}
	*from = NULL;
	return 0;
}

static int r_timeout_mismatch(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;
	const char *from;
	double neg, med, tol = k->d->cfg.tolerance;

	if (!c->n_to_w)
		return 0;
	neg = dr_negotiated_us(k, &from);
	med = dr_median_u32(c->to_wait, c->n_to_w);
	if (neg > 0 && med >= neg * (1 - tol) && med <= neg * (1 + tol))
		return 0;
	dr_subject_conn(k, v);
	dr_frames(v, c->to_f0, c->to_f1, c->to_ns);
	dr_ev_list32(v, "waits_us", c->to_wait, c->n_to_w);
	dr_ev_num(v, "median_us", med);
	if (neg > 0) {
		dr_ev_num(v, "negotiated_us", round(neg * 10) / 10);
		dr_text(v, "%" PRIu32 " timeout resends waited %.0f us (median), not the %.1f us ACK timeout %s "
		     "(±%.0f %%)", c->n_to, med, neg, from, tol * 100);
	} else {
		dr_ev_null(v, "negotiated_us");
		v->severity = DS_INFO;
		dr_text(v, "%" PRIu32 " timeout resends waited %.0f us (median); the negotiated ACK timeout is "
		     "unknown (no CM REQ seen; state it with --ack-timeout)", c->n_to, med);
	}
	return 1;
}

static int r_timeout_backoff(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;
	double fmin = 1e9;

	if (c->bo_n < 3)
		return 0;
	for (unsigned i = 1; i < c->bo_n; i++)
		if (c->bo[i - 1] && (double)c->bo[i] / c->bo[i - 1] < fmin)
			fmin = (double)c->bo[i] / c->bo[i - 1];
	dr_subject_conn(k, v);
	dr_frames(v, c->bo_f0, c->bo_f1, c->bo_ns);
	dr_ev_list32(v, "waits_us", c->bo, c->bo_n);
	dr_ev_num(v, "factor", round(fmin * 100) / 100);
	dr_text(v, "the timeout resends of one PSN waited longer each time (at least %.2fx the last): the sender "
	     "backs its timer off (e.g. adaptive retransmission), it does not keep the negotiated timeout", fmin);
	return 1;
}

static int r_rnr_wait_mismatch(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;
	double r[DIAG_LIST_MAX], med, tol = k->d->cfg.tolerance;
	uint32_t rs[DIAG_LIST_MAX];

	if (!c->n_rnr_w)
		return 0;
	for (unsigned i = 0; i < c->n_rnr_w; i++) {
		r[i] = c->rnr_timer[i] ? (double)c->rnr_wait[i] / c->rnr_timer[i] : 1;
		rs[i] = (uint32_t)(r[i] * 1000);
	}
	med = dr_median_u32(rs, c->n_rnr_w) / 1000;
	if (med >= 1 - tol && med <= 1 + tol)
		return 0;
	dr_subject_conn(k, v);
	dr_frames(v, c->rnr_f0, c->rnr_f1, c->rnr_last_ns);
	dr_ev_list32(v, "waits_us", c->rnr_wait, c->n_rnr_w);
	dr_ev_list32(v, "rnr_timer_us", c->rnr_timer, c->n_rnr_w);
	dr_text(v, "resends after RNR NAKs waited %.2fx (median) the timer the NAKs named (±%.0f %%): the sender "
	     "does not honour the RNR timer", med, tol * 100);
	return 1;
}

static int r_retry_exhausted(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;
	uint64_t now = k->in->now_ns, quiet;
	int over = 0, over_rnr = 0, stopped = 0;

	if (!c->rtx_max && !c->rtx_rnr_max)
		return 0;
	if (c->cm) {
		over = c->rtx_max > c->retry;
		over_rnr = c->rnr_retry != 7 && c->rtx_rnr_max > c->rnr_retry;
	}
	/* the connection stopped after its last resends: no ACK since, and
	 * silent for twice the last wait (at least 1 ms) */
	quiet = 2ull * (c->ep_wait_us ? c->ep_wait_us : 1000) * 1000;
	if (c->ep_ns > c->last_ack_ns && now > c->last_req_ns && now - c->last_req_ns >= quiet &&
	    c->last_req_ns <= c->ep_ns && c->rt_n + c->rt_rnr >= (c->cm ? (c->retry ? c->retry : 1u) : 3u))
		stopped = 1;
	if (!over && !over_rnr && !stopped)
		return 0;
	dr_subject_conn(k, v);
	if (over || over_rnr) {
		dr_frames(v, c->rtx_f0, c->rtx_f1, c->rtx_ns);
		dr_ev_num(v, "retries", over_rnr && !over ? c->rtx_rnr_max : c->rtx_max);
		dr_ev_num(v, "retry_count", over_rnr && !over ? c->rnr_retry : c->retry);
		dr_ev_num(v, "psn", c->rtx_psn);
		dr_text(v, "PSN 0x%06" PRIx32 " was resent %" PRIu32 " times, more than the %s retry count %u the CM "
		     "exchange set", c->rtx_psn, over_rnr && !over ? c->rtx_rnr_max : c->rtx_max,
		     over_rnr && !over ? "RNR" : "", over_rnr && !over ? c->rnr_retry : c->retry);
	} else {
		dr_frames(v, c->rt_f0, c->ep_frame, c->ep_ns);
		dr_ev_num(v, "retries", c->rt_n + c->rt_rnr);
		if (c->cm)
			dr_ev_num(v, "retry_count", c->retry);
		else
			dr_ev_null(v, "retry_count");
		dr_ev_num(v, "psn", c->rt_psn);
		dr_text(v, "the connection stopped after resending PSN 0x%06" PRIx32 " %" PRIu32 " times with no ACK: "
		     "its retries were likely exhausted (the QP went to the error state)", c->rt_psn,
		     c->rt_n + c->rt_rnr);
	}
	return 1;
}

/* ---- 2. PFC and pause ---- */

static const struct dg_prio *dr_prio_of(const struct diag *d, uint32_t port, unsigned prio)
{
	return (port + 1) * 9 <= d->nprio ? &d->prio[port * 9 + prio] : NULL;
}

static void dr_subject_prio(const struct dr_ctx *k, struct diag_verdict *v, int prio, const uint8_t *mac)
{
	char m[24];

	v->priority = prio;
	if (mac) {
		memcpy(v->mac, mac, 6);
		dr_mac_str(mac, m, sizeof m);
		v->subject_kind = DSUB_MAC;
		if (prio >= 0 && prio < 8)
			snprintf(v->subject, sizeof v->subject, "priority %d from %s", prio, m);
		else if (prio == 8)
			snprintf(v->subject, sizeof v->subject, "802.3x PAUSE from %s", m);
		else
			snprintf(v->subject, sizeof v->subject, "%s", m);
	} else {
		v->subject_kind = DSUB_PRIORITY;
		snprintf(v->subject, sizeof v->subject, "priority %d", prio);
	}
	(void)k;
}

static int r_pfc_storm(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_prio *s = dr_prio_of(k->d, k->port, k->prio);
	uint64_t now = k->in->now_ns, longest, f0, f1, q, end;
	int running = 0;

	if (!s || !s->frames)
		return 0;
	longest = s->longest;
	f0 = s->long_f0;
	f1 = s->long_f1;
	q = s->long_quanta;
	end = s->long_end;
	if (s->in_run) {
		uint64_t e2 = s->until < now ? s->until : now, len = e2 > s->run0 ? e2 - s->run0 : 0;

		if (len >= longest) {
			longest = len;
			f0 = s->run_f0;
			f1 = s->run_f1;
			q = s->run_quanta;
			end = e2;
			running = s->until >= now;
		}
	}
	if (longest < k->d->cfg.pfc_watchdog_ns)
		return 0;
	dr_subject_prio(k, v, (int)k->prio, k->v->ports[k->port].mac);
	dr_frames(v, f0, f1, end);
	dr_ev_num(v, "priority", k->prio);
	{
		char m[24];

		dr_mac_str(k->v->ports[k->port].mac, m, sizeof m);
		dr_ev_str(v, "mac", m);
	}
	dr_ev_num(v, "paused_us", (double)(longest / 1000));
	dr_ev_num(v, "quanta", (double)q);
	dr_ev_num(v, "link_bps", (double)k->v->cfg.link_bps);
	dr_text(v, "%s held paused without a gap for %.1f ms (watchdog %.0f ms, pause time at %.0f Gb/s): a PFC "
	     "storm%s", v->subject, (double)longest / 1e6, (double)k->d->cfg.pfc_watchdog_ns / 1e6,
	     (double)k->v->cfg.link_bps / 1e9, running ? ", still going on" : "");
	if (running)
		v->last_ns = now;
	return 1;
}

/* 1 when some RoCE flow of any part sends from mac. */
static int dr_mac_sends_roce(const struct dr_ctx *k, const uint8_t *mac)
{
	for (unsigned i = 0; i < k->nparts; i++) {
		const struct diag *d = k->parts[i]->diag;

		for (uint32_t j = 0; d && j < d->nfl && j < k->parts[i]->nflows; j++)
			if (d->fl[j].used && (d->fl[j].flags & FL_MAC) && !memcmp(d->fl[j].mac, mac, 6))
				return 1;
	}
	return 0;
}

static void dr_port_pauses(const struct diag *d, uint32_t port, uint64_t *frames_, uint64_t *f0, uint64_t *f1,
			uint64_t *last, char *prios, size_t cap)
{
	size_t n = 0;

	*frames_ = *f0 = *f1 = *last = 0;
	prios[0] = 0;
	for (unsigned p = 0; p < 9; p++) {
		const struct dg_prio *s = dr_prio_of(d, port, p);

		if (!s || !s->frames)
			continue;
		*frames_ += s->frames;
		if (!*f0 || s->f0 < *f0)
			*f0 = s->f0;
		if (s->f1 > *f1)
			*f1 = s->f1;
		if (s->last_ns > *last)
			*last = s->last_ns;
		if (n < cap)
			n += (size_t)snprintf(prios + n, cap - n, "%s%s", n ? "," : "", p == 8 ? "802.3x" : "");
		if (p < 8 && n < cap)
			n += (size_t)snprintf(prios + n, cap - n, "%u", p);
	}
}

static int r_pause_from_host(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct port *pt = &k->v->ports[k->port];
	uint64_t n, f0, f1, last;
	char prios[64], m[24];

	dr_port_pauses(k->d, k->port, &n, &f0, &f1, &last, prios, sizeof prios);
	if (!n || !dr_mac_sends_roce(k, pt->mac))
		return 0;
	dr_subject_prio(k, v, -1, pt->mac);
	dr_mac_str(pt->mac, m, sizeof m);
	dr_frames(v, f0, f1, last);
	dr_ev_str(v, "priority", prios);
	dr_ev_str(v, "mac", m);
	dr_ev_num(v, "frames", (double)n);
	dr_text(v, "%s, which also sends RoCE, sent %" PRIu64 " pause frames (priority %s): a host asking its "
	     "link partner to stop is a receiver that cannot keep up", m, n, prios);
	return 1;
}

static int r_pfc_on_idle_priority(const struct dr_ctx *k, struct diag_verdict *v)
{
	uint64_t n = 0, f0 = 0, f1 = 0, last = 0, tagged = 0;

	for (unsigned p = 0; p < 8; p++)
		tagged += k->pcp[p];
	if (!tagged || k->pcp[k->prio])
		return 0;    /* untagged RoCE: its priority is not on the wire */
	for (uint32_t i = 0; i < k->v->nports; i++) {
		const struct dg_prio *s = dr_prio_of(k->parts[0]->diag, i, k->prio);

		if (!s || !s->frames)
			continue;
		n += s->frames;
		if (!f0 || s->f0 < f0)
			f0 = s->f0;
		if (s->f1 > f1)
			f1 = s->f1;
		if (s->last_ns > last)
			last = s->last_ns;
	}
	if (!n)
		return 0;
	dr_subject_prio(k, v, (int)k->prio, NULL);
	dr_frames(v, f0, f1, last);
	dr_ev_num(v, "priority", k->prio);
	dr_ev_num(v, "pause_frames", (double)n);
	dr_ev_num(v, "roce_frames", 0);
	dr_text(v, "priority %u was paused %" PRIu64 " times but carries no RoCE (RoCE travels in VLAN priority "
	     "tags, none on %u): PFC is configured on the wrong priority, or the traffic class is", k->prio, n,
	     k->prio);
	return 1;
}

static int r_roce_on_lossy_priority(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct port *pt = NULL;
	char m[24];

	if (!k->pcp[k->prio])
		return 0;
	for (uint32_t i = 0; i < k->v->nports; i++)
		if (k->v->ports[i].dcbx_seen && !(k->v->ports[i].dcbx_pfc_enable & (1u << k->prio))) {
			pt = &k->v->ports[i];
			break;
		}
	if (!pt)
		return 0;
	dr_subject_prio(k, v, (int)k->prio, NULL);
	dr_mac_str(pt->mac, m, sizeof m);
	dr_frames(v, 0, 0, k->v->t.last_ns);
	dr_ev_num(v, "priority", k->prio);
	dr_ev_num(v, "roce_frames", (double)k->pcp[k->prio]);
	dr_ev_num(v, "pfc_enable", pt->dcbx_pfc_enable);
	dr_ev_str(v, "dcbx_from", m);
	dr_text(v, "%" PRIu64 " RoCE frames travel in priority %u, whose PFC is off in the DCBX %s sent (enable "
	     "0x%02x): that RoCE is lossy", k->pcp[k->prio], k->prio, m, pt->dcbx_pfc_enable);
	return 1;
}

/* ---- 3. traffic class ---- */

static const struct dg_fl *dr_fl_get(const struct engine *e, const struct flow *f)
{
	const struct diag *d = e->diag;
	uint32_t i = (uint32_t)(f - e->flows);

	if (!d || i >= d->nfl || !d->fl[i].used || d->fl[i].src != f->src || d->fl[i].dst != f->dst ||
	    d->fl[i].qpn != f->qpn || !(d->fl[i].flags & FL_MAC))
		return NULL;
	return &d->fl[i];
}

static int r_class_asymmetry(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct flow *p = flow_peer(k->e, k->f);
	const struct dg_fl *a = k->x, *b;
	double pa, pb;
	char sa[8] = "none", sb[8] = "none";

	if (!p || p < k->f || !(b = dr_fl_get(k->e, p)))
		return 0;    /* each connection once, from its lower slot */
	pa = a->flags & FL_TAGGED ? a->pcp : -1;
	pb = b->flags & FL_TAGGED ? b->pcp : -1;
	if (a->dscp == b->dscp && pa == pb)
		return 0;
	dr_subject_flow(k, v, k->f->src, k->f->dst, k->f->qpn, 1);
	dr_frames(v, a->f0 < b->f0 ? a->f0 : b->f0, a->f1 > b->f1 ? a->f1 : b->f1,
	       k->f->last_ns > p->last_ns ? k->f->last_ns : p->last_ns);
	if (pa >= 0)
		snprintf(sa, sizeof sa, "%d", (int)pa);
	if (pb >= 0)
		snprintf(sb, sizeof sb, "%d", (int)pb);
	dr_ev_list2(v, "dscp", a->dscp, b->dscp);
	dr_ev_list2(v, "pcp", pa, pb);
	dr_text(v, "the two directions travel in different classes (DSCP %u and %u, PCP %s and %s; -1: untagged): "
	     "the traffic class was set on one side only", a->dscp, b->dscp, sa, sb);
	return 1;
}

static int r_not_ect(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct engine_totals *t = &k->v->t;
	char a[64], b[64], dir[140];

	/* ECN in use: CE marks or CNPs, and ECN-capable data besides the CNPs */
	if (!(k->x->flags & FL_REQ) || k->x->ecn_req != 1 || !(t->roce_ce + t->cnp) ||
	    t->roce_ect + t->roce_ce <= t->cnp)
		return 0;
	dr_subject_flow(k, v, k->f->src, k->f->dst, k->f->qpn, 0);
	dr_frames(v, k->x->f0, k->x->f1, k->f->last_ns);
	host_str(k->e, k->f->src, a, sizeof a);
	host_str(k->e, k->f->dst, b, sizeof b);
	snprintf(dir, sizeof dir, "%s -> %s", a, b);
	dr_ev_str(v, "direction", dir);
	dr_ev_num(v, "requests", k->f->u.seq.requests);
	dr_ev_num(v, "ce_marked_capture", (double)t->roce_ce);
	dr_ev_num(v, "cnps_capture", (double)t->cnp);
	dr_text(v, "the requests %s are not ECN-capable (Not-ECT) while ECN is in use on the capture (%" PRIu64
	     " CE marks, %" PRIu64 " CNPs): switches drop them instead of marking, and DCQCN cannot slow them", dir,
	     t->roce_ce, t->cnp);
	return 1;
}

/* ---- 4. congestion reaction ---- */

/* The rate checks after CNPs, with the one still open when the capture
 * is past it. */
static void dr_cnp_checks(const struct dr_ctx *k, uint32_t *measured, uint32_t *fell, double *before, double *after)
{
	const struct dg_conn *c = k->c;
	const struct dg_fl *x = NULL;
	uint64_t now_bin;

	*measured = c->measured;
	*fell = c->fell;
	*before = c->before_sum;
	*after = c->after_sum;
	if (!c->chk || !c->flow1 || c->flow1 > k->e->nflows)
		return;
	x = dr_fl_get(k->e, &k->e->flows[c->flow1 - 1]);
	if (!x)
		return;
	now_bin = (k->in->now_ns > k->e->t.first_ns ? k->in->now_ns - k->e->t.first_ns : 0) / k->d->cfg.cnp_react_ns;
	if (now_bin <= c->chk_bin)
		return;
	{
		double a = x->bin == c->chk_bin ? x->cur : 0;

		(*measured)++;
		*before += c->chk_before;
		*after += a;
		if (a < DIAG_CNP_FALL * c->chk_before)
			(*fell)++;
	}
}

/* The CNP pacing of the host that sends c's CNPs (its responder). */
static void dr_ev_pacing(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct diag_pacing *p = diag_pacing_find(k->pace, k->npace, k->e->hosts[k->c->dst].addr);

	dr_ev_str(v, "pacing", p ? p->pacing : "unknown");
}

static int r_cnp_ignored(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;
	uint32_t m, fell;
	double b, a, w = (double)k->d->cfg.cnp_react_ns / 1e9;

	if (c->cnps < 2)
		return 0;
	dr_cnp_checks(k, &m, &fell, &b, &a);
	if (!m || fell * 2 >= m)
		return 0;
	dr_subject_conn(k, v);
	dr_frames(v, c->cnp_f0, c->cnp_f1, c->cnp_last_ns);
	dr_ev_num(v, "cnps", c->cnps);
	dr_ev_num(v, "rate_before_bps", round(b * 8 / m / w));
	dr_ev_num(v, "rate_after_bps", round(a * 8 / m / w));
	dr_ev_num(v, "checks", m);
	dr_ev_num(v, "slowed", fell);
	dr_ev_num(v, "min_cnp_interval_us", c->cnp_gap_min_ns ? (double)((c->cnp_gap_min_ns - 1) / 1000) : 0);
	dr_ev_pacing(k, v);
	dr_text(v, "%" PRIu32 " CNPs reached the sender and its rate did not fall within %.3g ms (%.3g Gb/s before, "
	     "%.3g Gb/s after, slowed %" PRIu32 " of %" PRIu32 " times): congestion control is off or not "
	     "reacting", c->cnps, w * 1e3, b * 8 / m / w / 1e9, a * 8 / m / w / 1e9, fell, m);
	return 1;
}

static int r_cnp_with_nak(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;

	if (c->naks < 2 || c->with_cnp < c->naks)
		return 0;
	dr_subject_conn(k, v);
	dr_frames(v, c->nak_f0 < c->cnp_f0 ? c->nak_f0 : c->cnp_f0, c->nak_f1 > c->cnp_f1 ? c->nak_f1 : c->cnp_f1,
	       c->nak_ns);
	dr_ev_num(v, "naks", c->naks);
	dr_ev_num(v, "with_cnp", c->with_cnp);
	dr_ev_num(v, "min_cnp_interval_us", c->cnp_gap_min_ns ? (double)((c->cnp_gap_min_ns - 1) / 1000) : 0);
	dr_ev_pacing(k, v);
	dr_text(v, "each of the %" PRIu32 " NAKs went out with a CNP (within %.0f us): the responder's NIC sends a "
	     "CNP with every NAK, so the sender slows for loss, not only for congestion", c->naks,
	     (double)DIAG_NAK_CNP_NS / 1e3);
	return 1;
}

/* ---- 5. where the loss is ---- */

static void dr_caveat(const struct dr_ctx *k, struct diag_verdict *v)
{
	size_t n = strlen(v->text);

	if (!k->capture_lost)
		return;
	dr_ev_num(v, "capture_lost", (double)k->capture_lost);
	snprintf(v->text + n, sizeof v->text - n, "; but the capture itself lost %" PRIu64 " frames, so nothing "
		 "about loss can be concluded", k->capture_lost);
}

static int r_fabric_loss(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct dg_conn *c = k->c;

	if (!c->missing || !c->resent)
		return 0;
	dr_subject_conn(k, v);
	dr_frames(v, c->loss_f0, c->loss_f1, c->loss_ns);
	dr_ev_num(v, "missing_psns", c->missing);
	dr_ev_num(v, "resent", c->resent);
	dr_text(v, "%" PRIu32 " PSNs were missing in the requests reaching the capture point and %" PRIu32 " of the "
	     "holes were later filled by resends: the frames were lost between the sender and the capture point",
	     c->missing, c->resent);
	dr_caveat(k, v);
	return 1;
}

/* Pause frames from mac (any port, any priority). */
static uint64_t dr_pauses_from(const struct dr_ctx *k, const uint8_t *mac, uint64_t *f0, uint64_t *f1)
{
	uint64_t n = 0, a, l;
	char pr[64];

	for (uint32_t i = 0; i < k->v->nports; i++) {
		if (memcmp(k->v->ports[i].mac, mac, 6))
			continue;
		dr_port_pauses(k->parts[0]->diag, i, &a, f0, f1, &l, pr, sizeof pr);
		n += a;
	}
	return n;
}

static int r_slow_receiver(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct flow *p = flow_peer(k->e, k->f);
	const struct dg_fl *rx = p ? dr_fl_get(k->e, p) : NULL;
	const struct dg_conn *c = k->x->conn ? &k->d->conn[k->x->conn - 1] : NULL;
	uint64_t pauses = 0, pf0 = 0, pf1 = 0;
	uint32_t rnr = c ? c->rnr_naks : 0;

	if (!(k->x->flags & FL_REQ))
		return 0;
	if (rx)
		pauses = dr_pauses_from(k, rx->mac, &pf0, &pf1);
	if (!rnr && !pauses)
		return 0;
	dr_subject_flow(k, v, k->f->src, k->f->dst, k->f->qpn, 1);
	if (rnr)
		dr_frames(v, c->rnr_f0, c->rnr_f1, c->rnr_last_ns);
	else
		dr_frames(v, pf0, pf1, k->v->t.last_ns);
	dr_ev_num(v, "rnr_naks", rnr);
	dr_ev_num(v, "pause_frames", (double)pauses);
	dr_text(v, "the receiver %s (%" PRIu32 " RNR NAKs, %" PRIu64 " pause frames from its MAC): a slow receiver, "
	     "not the fabric", rnr && pauses ? "ran out of receive buffers and paused its link" :
	     rnr ? "ran out of posted receives" : "paused its link", rnr, pauses);
	dr_caveat(k, v);
	return 1;
}

/* RoCE frames the capture saw (any version; [ROCE_VER_NONE] counts the others). */
static uint64_t dr_roce_frames(const struct engine *v)
{
	uint64_t n = 0;

	for (size_t i = ROCE_VER_V1; i < sizeof v->t.roce / sizeof v->t.roce[0]; i++)
		n += v->t.roce[i];
	return n;
}

static int r_nic_drop(const struct dr_ctx *k, struct diag_verdict *v)
{
	const struct diag_input *in = k->in;
	uint64_t roce = dr_roce_frames(k->v);

	v->subject_kind = DSUB_CAPTURE;
	dr_frames(v, k->v->t.frames ? 1 : 0, k->v->t.frames, in->now_ns);
	if (in->dev_valid && in->dev_discards + in->dev_out_of_buffer && roce) {
		/* the device view: the NIC's own counters, by meaning */
		snprintf(v->subject, sizeof v->subject, "NIC %s", in->dev_names);
		dr_ev_num(v, "discards", (double)in->dev_discards);
		dr_ev_num(v, "out_of_buffer", (double)in->dev_out_of_buffer);
		dr_ev_str(v, "counters", in->dev_counters);
		dr_ev_num(v, "roce_frames", (double)roce);
		dr_text(v, "the NIC counted %" PRIu64 " discards and %" PRIu64 " drops for want of a receive buffer (%s) "
			"while the wire shows %" PRIu64 " RoCE frames arriving: lost in the receiving NIC, not in the fabric%s",
			in->dev_discards, in->dev_out_of_buffer, in->dev_counters, roce,
			in->dev_out_of_buffer ? " (out of buffer: a receiver that does not keep up)" : "");
		dr_caveat(k, v);
		return 1;
	}
	if (!in->nic_valid || !in->nic_dropped)
		return 0;
	snprintf(v->subject, sizeof v->subject, "capture interface");
	dr_ev_num(v, "discards", (double)in->nic_dropped);
	dr_ev_str(v, "counters", in->nic_counters ? in->nic_counters : "");
	dr_text(v, "the NIC discarded %" PRIu64 " frames (%s) that reached its port: lost in the receiving NIC, "
	     "not in the fabric", in->nic_dropped, in->nic_counters ? in->nic_counters : "");
	dr_caveat(k, v);
	return 1;
}

static int r_capture_loss(const struct dr_ctx *k, struct diag_verdict *v)
{
	if (!k->capture_lost)
		return 0;
	v->subject_kind = DSUB_CAPTURE;
	snprintf(v->subject, sizeof v->subject, "capture");
	dr_frames(v, k->v->t.frames ? 1 : 0, k->v->t.frames, k->in->now_ns);
	dr_ev_num(v, "dropped", (double)(k->in->drops_valid ? k->in->dropped : 0));
	dr_ev_num(v, "erf_lost", (double)k->v->t.erf_lost);
	dr_text(v, "the capture lost %" PRIu64 " frames (rocetop's, the kernel's or the capture card's drops): what "
	     "looks like loss may be the capture's own, and no loss verdict can be trusted while it lasts",
	     k->capture_lost);
	return 1;
}

/* ---- the table ---- */

static const struct dr_rule dr_rules[] = {
	{ DV_TIMEOUT_MISMATCH, DS_WARNING, SC_CONN, r_timeout_mismatch },
	{ DV_TIMEOUT_BACKOFF, DS_INFO, SC_CONN, r_timeout_backoff },
	{ DV_RNR_WAIT_MISMATCH, DS_WARNING, SC_CONN, r_rnr_wait_mismatch },
	{ DV_RETRY_EXHAUSTED, DS_ERROR, SC_CONN, r_retry_exhausted },
	{ DV_PFC_STORM, DS_ERROR, SC_PRIO, r_pfc_storm },
	{ DV_PAUSE_FROM_HOST, DS_WARNING, SC_PORT, r_pause_from_host },
	{ DV_PFC_ON_IDLE_PRIORITY, DS_WARNING, SC_PRIORITY, r_pfc_on_idle_priority },
	{ DV_ROCE_ON_LOSSY_PRIORITY, DS_WARNING, SC_PRIORITY, r_roce_on_lossy_priority },
	{ DV_CLASS_ASYMMETRY, DS_WARNING, SC_FLOW, r_class_asymmetry },
	{ DV_NOT_ECT, DS_WARNING, SC_FLOW, r_not_ect },
	{ DV_CNP_IGNORED, DS_WARNING, SC_CONN, r_cnp_ignored },
	{ DV_CNP_WITH_NAK, DS_INFO, SC_CONN, r_cnp_with_nak },
	{ DV_FABRIC_LOSS, DS_WARNING, SC_CONN, r_fabric_loss },
	{ DV_SLOW_RECEIVER, DS_WARNING, SC_FLOW, r_slow_receiver },
	{ DV_NIC_DROP, DS_WARNING, SC_CAPTURE, r_nic_drop },
	{ DV_CAPTURE_LOSS, DS_WARNING, SC_CAPTURE, r_capture_loss },
};

int diag_rule_severity(int id)
{
	for (size_t r = 0; r < sizeof dr_rules / sizeof dr_rules[0]; r++)
		if (dr_rules[r].id == id)
			return dr_rules[r].severity;
	return DS_INFO;
}

static int dr_emit(const struct dr_ctx *k, const struct dr_rule *r, struct diag_list *out)
{
	struct diag_verdict *v;

	if (out->n == out->cap) {
		size_t nc = out->cap ? out->cap * 2 : 16;
		struct diag_verdict *nv = realloc(out->v, nc * sizeof *nv);

		if (!nv)
			return -1;
		out->v = nv;
		out->cap = nc;
	}
	v = &out->v[out->n];
	memset(v, 0, sizeof *v);
	v->id = r->id;
	v->severity = r->severity;
	v->priority = -1;
	if (!r->fn(k, v))
		return 0;
	v->active = k->in->now_ns <= v->last_ns + k->d->cfg.clear_ns;
	out->n++;
	return 0;
}

static int dr_by_severity(const void *a, const void *b)
{
	const struct diag_verdict *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->first_frame != y->first_frame)
		return x->first_frame < y->first_frame ? -1 : 1;
	return strcmp(x->subject, y->subject);
}

void diag_list_free(struct diag_list *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

int diag_evaluate(const struct engine *view, const struct diag_input *in, struct diag_list *out)
{
	struct dr_ctx k;
	int rc = 0;

	memset(out, 0, sizeof *out);
	memset(&k, 0, sizeof k);
	k.v = view;
	k.in = in;
	if (view->nparts) {
		for (unsigned i = 0; i < view->nparts && i < ENG_PARTS_MAX; i++)
			k.parts[k.nparts++] = view->parts[i];
	} else {
		k.parts[k.nparts++] = view;
	}
	if (!k.parts[0]->diag)
		return 0;
	for (unsigned i = 0; i < k.nparts; i++) {
		const struct diag *d = k.parts[i]->diag;

		for (unsigned p = 0; d && p < 8; p++)
			k.pcp[p] += d->roce_pcp[p];
		if (d)
			k.untagged += d->roce_untagged;
	}
	k.capture_lost = view->t.erf_lost + (in->drops_valid ? in->dropped : 0);
	if (diag_pacing(view, k.parts[0]->diag->cfg.tolerance, &k.pace, &k.npace))
		return -1;
	for (size_t r = 0; r < sizeof dr_rules / sizeof dr_rules[0] && !rc; r++) {
		const struct dr_rule *ru = &dr_rules[r];

		switch (ru->scope) {
		case SC_CONN:
			for (unsigned i = 0; i < k.nparts && !rc; i++) {
				k.e = k.parts[i];
				k.d = k.e->diag;
				for (uint32_t j = 0; k.d && j < k.d->nconn && !rc; j++) {
					k.c = &k.d->conn[j];
					k.f = k.c->flow1 && k.c->flow1 <= k.e->nflows ? &k.e->flows[k.c->flow1 - 1] : NULL;
					if (k.f && (k.f->src != k.c->src || k.f->dst != k.c->dst || k.f->qpn != k.c->qpn))
						k.f = NULL;
					rc = dr_emit(&k, ru, out);
				}
			}
			break;
		case SC_FLOW:
			for (unsigned i = 0; i < k.nparts && !rc; i++) {
				k.e = k.parts[i];
				k.d = k.e->diag;
				for (uint32_t j = 0; k.d && j < k.e->nflows && !rc; j++) {
					k.f = &k.e->flows[j];
					if ((k.f->kind != FK_RC && k.f->kind != FK_XRC) || !(k.x = dr_fl_get(k.e, k.f)))
						continue;
					rc = dr_emit(&k, ru, out);
				}
			}
			break;
		case SC_PRIO:
		case SC_PORT:
			k.e = k.parts[0];
			k.d = k.e->diag;
			for (uint32_t i = 0; i < view->nports && i < k.parts[0]->nports && !rc; i++) {
				k.port = i;
				for (unsigned p = 0; p < (ru->scope == SC_PRIO ? 9u : 1u) && !rc; p++) {
					k.prio = p;
					rc = dr_emit(&k, ru, out);
				}
			}
			break;
		case SC_PRIORITY:
			k.e = k.parts[0];
			k.d = k.e->diag;
			for (unsigned p = 0; p < 8 && !rc; p++) {
				k.prio = p;
				rc = dr_emit(&k, ru, out);
			}
			break;
		case SC_CAPTURE:
			k.e = k.parts[0];
			k.d = k.e->diag;
			rc = dr_emit(&k, ru, out);
			break;
		}
	}
	free(k.pace);
	if (rc) {
		diag_list_free(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, dr_by_severity);
	return 0;
}
