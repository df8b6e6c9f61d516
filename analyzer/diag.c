/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag.c — the diagnosis layer's evidence, gathered on the per-frame path
 * (diag.h).  The rules that turn it into verdicts are in diag_rules.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag_int.h"
#include "flow.h"

static const char *const dg_names[DV__COUNT] = {
	"timeout_mismatch", "timeout_backoff", "rnr_wait_mismatch", "retry_exhausted",
	"pfc_storm", "pause_from_host", "pfc_on_idle_priority", "roce_on_lossy_priority",
	"class_asymmetry", "not_ect", "cnp_ignored", "cnp_with_nak",
	"fabric_loss", "slow_receiver", "nic_drop", "capture_loss",
};

const char *diag_name(int id)
{
	return id >= 0 && id < DV__COUNT ? dg_names[id] : "?";
}

const char *diag_severity_name(int s)
{
	static const char *const n[] = { "info", "warning", "error" };
	return s >= 0 && s <= DS_ERROR ? n[s] : "?";
}

void diag_cfg_default(struct diag_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->tolerance = 0.25;
	c->backoff_factor = 1.5;
	c->pfc_watchdog_ns = 100000000ull;
	c->cnp_react_ns = 1000000ull;
	c->clear_ns = 10000000000ull;
}

int diag_parse_ack_timeout(const char *s, double *us)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v <= 0 || v != v)
		return -1;
	if (!*end) {
		/* an exponent, as ibv_modify_qp's timeout and perftest -u */
		if (v != (double)(int)v || v < 1 || v > 31)
			return -1;
		*us = 4.096 * (double)(1ull << (int)v);
		return 0;
	}
	if (!strcmp(end, "us"))
		*us = v;
	else if (!strcmp(end, "ms"))
		*us = v * 1e3;
	else if (!strcmp(end, "s"))
		*us = v * 1e6;
	else
		return -1;
	return *us <= 3600e6 ? 0 : -1;
}

struct diag *diag_new(const struct diag_cfg *cfg)
{
	struct diag *d = calloc(1, sizeof *d);
	struct diag_cfg def;

	if (!d)
		return NULL;
	diag_cfg_default(&def);
	d->cfg = *cfg;
	/* each threshold left 0 takes its default */
	if (!(d->cfg.tolerance > 0))
		d->cfg.tolerance = def.tolerance;
	if (!(d->cfg.backoff_factor > 1))
		d->cfg.backoff_factor = def.backoff_factor;
	if (!d->cfg.pfc_watchdog_ns)
		d->cfg.pfc_watchdog_ns = def.pfc_watchdog_ns;
	if (!d->cfg.cnp_react_ns)
		d->cfg.cnp_react_ns = def.cnp_react_ns;
	if (!d->cfg.clear_ns)
		d->cfg.clear_ns = def.clear_ns;
	return d;
}

void diag_free(struct diag *d)
{
	if (!d)
		return;
	free(d->fl);
	free(d->conn);
	free(d->prio);
	for (uint32_t i = 0; i < d->ncsrc; i++)
		free(d->csrc[i].t);
	free(d->csrc);
	free(d->cpair);
	free(d);
}

size_t diag_bytes(const struct diag *d)
{
	return d ? sizeof *d + d->nfl * sizeof *d->fl + d->conn_cap * sizeof *d->conn +
		   d->nprio * sizeof *d->prio + d->csrc_cap * sizeof *d->csrc + d->cpair_cap * sizeof *d->cpair +
		   (size_t)d->ntimes * sizeof *d->csrc->t : 0;
}

/* ---- per-flow facts --------------------------------------------------------------------- */

/* The per-frame lookups below are inline and their making of an entry out
 * of line (dg_fl_new, dg_conn_new): called, the two lookups' register saves
 * and restores cost more than their work, on every RoCE frame. */
static __attribute__((noinline)) struct dg_fl *dg_fl_new(struct diag *d, struct engine *e, const struct flow *f,
							  const struct roce_pkt *p, uint32_t i)
{
	struct dg_fl *x;

	if (i >= d->nfl)
		d->fl = dg_grow(d->fl, &d->nfl, i + 1, sizeof *d->fl);
	x = &d->fl[i];
	memset(x, 0, sizeof *x);
	x->used = 1;
	x->src = f->src;
	x->dst = f->dst;
	x->qpn = f->qpn;
	if (p->linktype == ROCE_LINK_ETHERNET && p->eth_off + 12 <= p->caplen) {
		memcpy(x->mac, p->data + p->eth_off + 6, 6);
		x->flags |= FL_MAC;
	}
	x->dscp = p->dscp;
	x->pcp = p->n_vlan ? p->vlan[0].pcp : 0;
	if (p->n_vlan)
		x->flags |= FL_TAGGED;
	x->f0 = e->frame_no;
	return x;
}

/* The entry of flow f, made afresh when its slot now holds another flow. */
static inline struct dg_fl *dg_fl_of(struct diag *d, struct engine *e, const struct flow *f, const struct roce_pkt *p)
{
	uint32_t i = (uint32_t)(f - e->flows);
	struct dg_fl *x = i < d->nfl ? &d->fl[i] : NULL;

	if (x && x->used && x->src == f->src && x->dst == f->dst && x->qpn == f->qpn)
		return x;
	return dg_fl_new(d, e, f, p, i);
}

/* Class (DSCP, PCP) of every packet of the flow; the RoCE priorities. */
static inline void dg_fl_class(struct diag *d, struct dg_fl *x, const struct roce_pkt *p, uint64_t frame)
{
	unsigned tagged = p->n_vlan > 0, pcp = tagged ? p->vlan[0].pcp : 0;

	if (p->dscp != x->dscp)
		x->flags |= FL_DSCP_MIXED;
	if (tagged != !!(x->flags & FL_TAGGED) || pcp != x->pcp)
		x->flags |= FL_PCP_MIXED;
	x->f1 = frame;
	if (tagged)
		d->roce_pcp[pcp & 7]++;
	else
		d->roce_untagged++;
}

static __attribute__((noinline)) struct dg_conn *dg_conn_new(struct diag *d, struct engine *e, const struct flow *f,
							      struct dg_fl *x)
{
	struct dg_conn *c;

	if (d->nconn >= d->conn_cap)
		d->conn = dg_grow(d->conn, &d->conn_cap, d->nconn + 1, sizeof *d->conn);
	c = &d->conn[d->nconn++];
	memset(c, 0, sizeof *c);
	c->src = f->src;
	c->dst = f->dst;
	c->qpn = f->qpn;
	c->flow1 = (uint32_t)(f - e->flows) + 1;
	x->conn = d->nconn;
	return c;
}

static inline struct dg_conn *dg_conn_of(struct diag *d, struct engine *e, const struct flow *f, struct dg_fl *x)
{
	return x->conn ? &d->conn[x->conn - 1] : dg_conn_new(d, e, f, x);
}

static inline uint64_t dg_bin_of(const struct diag *d, const struct engine *e, uint64_t ts)
{
	return (ts > e->t.first_ns ? ts - e->t.first_ns : 0) / d->cfg.cnp_react_ns;
}

static void dg_span(uint64_t *f0, uint64_t *f1, uint64_t frame)
{
	if (!*f0)
		*f0 = frame;
	*f1 = frame;
}

static void dg_push(uint32_t *list, uint8_t *n, uint32_t v)
{
	if (*n < DIAG_LIST_MAX)
		list[(*n)++] = v;
}

/* A check of the sender's rate after a CNP: the bin before the CNP's
 * against the second bin after it (which starts at least one reaction time
 * after the CNP). */
static void dg_cnp_check_close(struct dg_conn *c, const struct dg_fl *x)
{
	double after = x->bin == c->chk_bin ? x->cur : 0;

	c->chk = 0;
	c->measured++;
	c->before_sum += c->chk_before;
	c->after_sum += after;
	if (after < DIAG_CNP_FALL * c->chk_before)
		c->fell++;
}

void diag_request(struct engine *e, struct flow *f, const struct roce_pkt *p, uint64_t ts, uint32_t wirelen,
		  const struct roce_seq_verdict *v)
{
	struct diag *d = e->diag;
	struct dg_fl *x;
	struct dg_conn *c;
	uint64_t b, fr = e->frame_no;

	if (!d)
		return;
	x = dg_fl_of(d, e, f, p);
	dg_fl_class(d, x, p, fr);
	x->flags |= FL_REQ;
	if (!(v->flags & ROCE_SEQ_V_ICRC_BAD))
		x->ecn_req |= (uint8_t)(1u << (p->ecn & 3));
	b = dg_bin_of(d, e, ts);
	if (b != x->bin) {
		if (x->conn && d->conn[x->conn - 1].chk && b > d->conn[x->conn - 1].chk_bin)
			dg_cnp_check_close(&d->conn[x->conn - 1], x);
		x->prev = b == x->bin + 1 ? x->cur : 0;
		x->cur = 0;
		x->bin = b;
	}
	x->cur += wirelen;
	if (!x->conn && !(v->flags & (ROCE_SEQ_V_EPISODE | ROCE_SEQ_V_PSN_GAP | ROCE_SEQ_V_OUT_OF_ORDER)))
		return;
	c = dg_conn_of(d, e, f, x);
	c->last_req_ns = ts;
	c->last_req_frame = fr;
	if (v->flags & ROCE_SEQ_V_PSN_GAP) {
		c->missing += v->missing;
		dg_span(&c->loss_f0, &c->loss_f1, fr);
		c->loss_ns = ts;
	}
	if (v->flags & ROCE_SEQ_V_OUT_OF_ORDER) {
		c->resent++;
		dg_span(&c->loss_f0, &c->loss_f1, fr);
		c->loss_ns = ts;
	}
	if (c->rnr_pend && p->psn == c->rnr_psn) {
		/* the resend after an RNR NAK: its wait against the NAK's timer */
		c->rnr_pend = 0;
		dg_push(c->rnr_wait, &c->n_rnr_w, (uint32_t)((ts - c->rnr_ns) / 1000));
		c->rnr_timer[c->n_rnr_w - 1] = c->rnr_us;
		dg_span(&c->rnr_f0, &c->rnr_f1, fr);
		c->rnr_last_ns = ts;
	}
	if (!(v->flags & ROCE_SEQ_V_EPISODE))
		return;
	/* resends of one PSN, by kind of trigger */
	if (!c->rt_n && !c->rt_rnr) {
		c->rt_psn = p->psn;
		c->rt_f0 = fr;
	} else if (p->psn != c->rt_psn) {
		c->rt_psn = p->psn;
		c->rt_n = c->rt_rnr = 0;
		c->rt_f0 = fr;
	}
	if (v->trigger == ROCE_SEQ_TRIG_RNR)
		c->rt_rnr++;
	else
		c->rt_n++;
	c->rt_f1 = fr;
	if (c->rt_n > c->rtx_max || c->rt_rnr > c->rtx_rnr_max) {
		if (c->rt_n > c->rtx_max)
			c->rtx_max = c->rt_n;
		if (c->rt_rnr > c->rtx_rnr_max)
			c->rtx_rnr_max = c->rt_rnr;
		c->rtx_psn = c->rt_psn;
		c->rtx_f0 = c->rt_f0;
		c->rtx_f1 = fr;
		c->rtx_ns = ts;
	}
	c->ep_ns = ts;
	c->ep_frame = fr;
	if (v->trigger != ROCE_SEQ_TRIG_TIMEOUT)
		return;
	c->ep_wait_us = v->gap_us;
	dg_push(c->to_wait, &c->n_to_w, v->gap_us);
	c->n_to++;
	dg_span(&c->to_f0, &c->to_f1, fr);
	c->to_ns = ts;
	/* backoff: a chain of timeout resends of one PSN, each wait at least
	 * the factor times the last */
	if (c->ch_n && p->psn == c->ch_psn && c->ch_n < DIAG_CHAIN &&
	    (double)v->gap_us >= d->cfg.backoff_factor * (double)c->ch[c->ch_n - 1]) {
		c->ch[c->ch_n++] = v->gap_us;
	} else {
		c->ch_psn = p->psn;
		c->ch_n = 1;
		c->ch[0] = v->gap_us;
		c->ch_f0 = fr;
	}
	if (c->ch_n >= 2 && c->ch_n > c->bo_n) {
		c->bo_n = c->ch_n;
		memcpy(c->bo, c->ch, sizeof c->bo);
		c->bo_f0 = c->ch_f0;
		c->bo_f1 = fr;
		c->bo_ns = ts;
	}
}

void diag_response(struct engine *e, struct flow *t, struct flow *r, const struct roce_pkt *p, uint64_t ts,
		   const struct roce_seq_verdict *v)
{
	struct diag *d = e->diag;
	struct dg_fl *x, *xt;
	struct dg_conn *c;
	uint64_t fr = e->frame_no;

	if (!d)
		return;
	x = dg_fl_of(d, e, r, p);
	dg_fl_class(d, x, p, fr);
	if (t == r)
		return;      /* responses of requests never seen: nobody to diagnose */
	xt = dg_fl_of(d, e, t, p);
	if (xt->f0 == fr && !(xt->flags & FL_REQ)) {
		/* made just now from this response: not t's class */
		xt->flags &= (uint8_t)~(FL_MAC | FL_TAGGED);
		xt->dscp = xt->pcp = 0;
	}
	if (!xt->conn && !(v->flags & (ROCE_SEQ_V_CNP | ROCE_SEQ_V_NAK | ROCE_SEQ_V_RNR_NAK)))
		return;
	c = dg_conn_of(d, e, t, xt);
	if (v->flags & ROCE_SEQ_V_ACK)
		c->last_ack_ns = ts;
	if (v->flags & ROCE_SEQ_V_RNR_NAK) {
		c->rnr_naks++;
		c->rnr_pend = 1;
		c->rnr_psn = p->psn;
		c->rnr_us = v->rnr_us;
		c->rnr_ns = ts;
		dg_span(&c->rnr_f0, &c->rnr_f1, fr);
		c->rnr_last_ns = ts;
	}
	if (v->flags & ROCE_SEQ_V_NAK) {
		c->naks++;
		dg_span(&c->nak_f0, &c->nak_f1, fr);
		c->nak_ns = ts;
		if (c->cnps && ts - c->cnp_last_ns <= DIAG_NAK_CNP_NS && !c->cnp_matched) {
			c->with_cnp++;
			c->cnp_matched = 1;
		} else {
			c->nak_open = 1;
			c->nak_last_ns = ts;
		}
	}
	if (v->flags & ROCE_SEQ_V_CNP) {
		uint64_t b = dg_bin_of(d, e, ts);

		if (c->cnps) {
			uint64_t g = ts - c->cnp_last_ns + 1;   /* + 1: 0 is "none" */

			if (!c->cnp_gap_min_ns || g < c->cnp_gap_min_ns)
				c->cnp_gap_min_ns = g;
		}
		dg_cnp_pace(d, c, r->src, r->dst, r->qpn, ts);
		c->cnps++;
		c->cnp_last_ns = ts;
		c->cnp_matched = 0;
		dg_span(&c->cnp_f0, &c->cnp_f1, fr);
		if (c->nak_open && ts - c->nak_last_ns <= DIAG_NAK_CNP_NS) {
			c->with_cnp++;
			c->nak_open = 0;
			c->cnp_matched = 1;
		}
		if (!c->chk) {
			double before = xt->bin == b ? xt->prev : xt->bin + 1 == b ? xt->cur : 0;

			if (before > 0) {
				c->chk = 1;
				c->chk_bin = b + 2;
				c->chk_before = before;
			}
		}
	}
}

void diag_cm(struct engine *e, struct flow *fa, struct flow *fb, unsigned ack_t, unsigned retry,
	     unsigned rnr_retry_req, unsigned rnr_retry_rep)
{
	struct diag *d = e->diag;
	struct flow *fl[2] = { fa, fb };

	if (!d)
		return;
	/* the REQ's local ACK timeout and retry count serve both QPs (rdma_cm
	 * and ib_cm set them from the one path record); each side retries RNR
	 * NAKs as many times as the other's message says */
	for (int i = 0; i < 2; i++) {
		struct roce_pkt none;
		struct dg_fl *x;
		struct dg_conn *c;

		memset(&none, 0, sizeof none);
		x = dg_fl_of(d, e, fl[i], &none);
		c = dg_conn_of(d, e, fl[i], x);
		c->cm = 1;
		c->ack_t = (uint8_t)ack_t;
		c->retry = (uint8_t)retry;
		c->rnr_retry = (uint8_t)(i ? rnr_retry_req : rnr_retry_rep);
		c->cm_frame = e->frame_no;
	}
}

void diag_pause(struct engine *e, uint32_t port_idx, unsigned prio, uint64_t ts, uint16_t quanta, uint64_t dur_ns)
{
	struct diag *d = e->diag;
	struct dg_prio *s;
	uint32_t need = (port_idx + 1) * 9;
	uint64_t fr = e->frame_no;

	if (!d || prio > 8)
		return;
	if (need > d->nprio)
		d->prio = dg_grow(d->prio, &d->nprio, need, sizeof *d->prio);
	s = &d->prio[port_idx * 9 + prio];
	dg_span(&s->f0, &s->f1, fr);
	s->frames++;
	if (quanta) {
		if (!s->in_run || ts > s->until) {
			/* a gap: the last run ended when its pause ran out */
			if (s->in_run)
				dg_run_close(s);
			s->in_run = 1;
			s->run0 = ts;
			s->run_f0 = fr;
			s->run_quanta = 0;
		}
		s->until = ts + dur_ns;
		s->run_quanta += quanta;
		s->run_f1 = fr;
	} else if (s->in_run) {
		if (ts < s->until)
			s->until = ts;
		s->run_f1 = fr;
		dg_run_close(s);
	}
	s->last_ns = ts;
}

void dg_run_close(struct dg_prio *s)
{
	uint64_t len = s->until > s->run0 ? s->until - s->run0 : 0;

	if (len > s->longest) {
		s->longest = len;
		s->long_f0 = s->run_f0;
		s->long_f1 = s->run_f1;
		s->long_quanta = s->run_quanta;
		s->long_end = s->until;
	}
	s->in_run = 0;
}

/* ---- options ---------------------------------------------------------------------------- */

/* A time: a number with us, ms or s. */
static int dg_parse_time(const char *s, uint64_t lo_ns, uint64_t hi_ns, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end), mul;

	if (end == s || !(v > 0))
		return -1;
	if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "s"))
		mul = 1e9;
	else
		return -1;
	v *= mul;
	if (v < (double)lo_ns || v > (double)hi_ns)
		return -1;
	*ns = (uint64_t)(v + 0.5);
	return 0;
}

int diag_option(const char *name, const char *v, struct diag_cfg *c)
{
	char *end;
	double x;

	if (!strcmp(name, "ack-timeout")) {
		if (diag_parse_ack_timeout(v, &c->ack_timeout_us)) {
			fprintf(stderr, "rocetop: bad --ack-timeout '%s' (an exponent 1..31, or a time: 67ms)\n", v);
			return 2;
		}
		return 0;
	}
	if (!strcmp(name, "pfc-watchdog")) {
		if (dg_parse_time(v, 1000, 3600000000000ull, &c->pfc_watchdog_ns)) {
			fprintf(stderr, "rocetop: bad --pfc-watchdog '%s' (a time from 1us: 100ms, 0.2s)\n", v);
			return 2;
		}
		return 0;
	}
	if (!strcmp(name, "cnp-reaction")) {
		if (dg_parse_time(v, 1000, 10000000000ull, &c->cnp_react_ns)) {
			fprintf(stderr, "rocetop: bad --cnp-reaction '%s' (a time, 1us to 10s: 1ms, 200us)\n", v);
			return 2;
		}
		return 0;
	}
	if (!strcmp(name, "diag-tolerance")) {
		x = strtod(v, &end);
		if (end == v || (*end && strcmp(end, "%")) || !(x > 0) || x >= 100) {
			fprintf(stderr, "rocetop: bad --diag-tolerance '%s' (a percentage above 0, below 100)\n", v);
			return 2;
		}
		c->tolerance = x / 100;
		return 0;
	}
	return 1;
}
