/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress.c — the run of `rocegen stress`, adapter as responder: rocegen's
 * own lib/qp engines (one per QP) post the workload; the adapter's QPs are
 * set up through the control protocol; frames go through cf_io.  A timer
 * heap over rocegen's engines drives the loop; faults are the engines'
 * seeded fault rules on request frames plus exact events applied here.
 * Every frame rocegen sends passes st_tx (events, metrics, wire model).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stress.h"
#include "stress_int.h"
#include "ctl.h"

/* ---- the timer heap (lazy: stale entries are skipped) ---- */

static void heap_push(struct st_run *s, uint64_t d, unsigned qi)
{
	struct st_qp *q = &s->qp[qi];
	size_t i;

	if (d == UINT64_MAX || d >= q->hkey)
		return;
	q->hkey = d;
	if (s->hn == s->hcap) {
		size_t nc = s->hcap ? 2 * s->hcap : 1024;
		struct st_hent *nh = realloc(s->heap, nc * sizeof(*nh));

		if (!nh)
			return;
		s->heap = nh;
		s->hcap = nc;
	}
	i = s->hn++;
	while (i && s->heap[(i - 1) / 2].d > d) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i].d = d;
	s->heap[i].qi = qi;
}

static void heap_pop(struct st_run *s)
{
	struct st_hent last = s->heap[--s->hn];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->hn)
			break;
		if (c + 1 < s->hn && s->heap[c + 1].d < s->heap[c].d)
			c++;
		if (s->heap[c].d >= last.d)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->hn)
		s->heap[i] = last;
}

void st_touch(struct st_run *s, struct st_qp *q)
{
	if (q->qp)
		heap_push(s, roce_qp_next_deadline(q->qp), (unsigned)(q - s->qp));
}

/* The earliest valid deadline (stale entries dropped). */
static uint64_t heap_top(struct st_run *s)
{
	while (s->hn) {
		struct st_hent *h = &s->heap[0];

		if (s->qp[h->qi].hkey == h->d)
			return h->d;
		heap_pop(s);
	}
	return UINT64_MAX;
}

static void run_timers(struct st_run *s, uint64_t now)
{
	uint64_t d;

	while ((d = heap_top(s)) <= now) {
		struct st_qp *q = &s->qp[s->heap[0].qi];

		heap_pop(s);
		q->hkey = UINT64_MAX;
		roce_qp_tick(q->qp, now);
		st_touch(s, q);
	}
}

/* ---- frames from the adapter ---- */

static void dispatch(struct st_run *s, const uint8_t *f, uint32_t len, uint64_t ts)
{
	struct roce_pkt p;
	uint32_t i;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
	if (p.version == ROCE_VER_NONE || !p.bth_off)
		return;
	i = p.dqpn - ST_QPN0;
	if (p.dqpn < ST_QPN0 || i >= s->n || !s->qp[i].qp)
		return;
	st_pcap(s, f, len, ts);
	/* The engine gets the time it runs at: a frame that waited in the
	 * capture buffer (while the loop waited on the control channel) must not
	 * set its timers in the past — that turns lag into a storm of timeout
	 * retransmissions.  The reaction-time metrics take the wire time, rx_ts. */
	s->rx_ts = ts;
	if (s->o->requester)
		st_req_input(s, &s->qp[i], &p, ts);
	else
		roce_qp_input(s->qp[i].qp, &p, ROCE_ICRC_UNCHECKED, s->io->now(s->io->ctx));
	st_touch(s, &s->qp[i]);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t wall_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void progress(struct st_run *s, FILE *f, int last)
{
	uint64_t w = wall_ns();

	if (!f || (!last && w - s->last_progress < 1000000000ull))
		return;
	s->last_progress = w;
	fprintf(f, "\rstress: %.3f s  qps done %u/%u  messages %llu  bytes %llu  integrity errors %llu%s",
		(double)(s->io->now(s->io->ctx) - s->t0) / 1e9, s->done, s->n,
		(unsigned long long)s->res->messages, (unsigned long long)s->res->bytes,
		(unsigned long long)s->res->integrity_errors, last ? "\n" : "");
	fflush(f);
}

/* Posts what the QPs on the ready list may post now. */
static void post_ready(struct st_run *s, uint64_t now)
{
	while (s->nready) {
		struct st_qp *q = &s->qp[s->ready[--s->nready]];

		q->in_ready = 0;
		st_post_more(s, q, now);
		st_touch(s, q);
	}
}

static int loop(struct st_run *s, FILE *pf)
{
	static uint8_t buf[ROCE_QP_FRAME_MAX + 64];
	uint64_t idle_since = 0;

	while (s->done < s->n) {
		uint64_t now = s->io->now(s->io->ctx), dl, ts;
		uint32_t len;
		int r;

		if (s->o->limit_ns && now - s->t0 > s->o->limit_ns)
			return st_fail_all(s, "run limit: not done in time (an endless RNR or retry loop?)"), -1;
		run_timers(s, now);
		st_victim_switch(s, now);
		post_ready(s, now);
		if (s->o->requester && now >= s->next_poll) {
			if (st_req_poll(s, now))
				return st_fail_all(s, "the adapter's loads stalled or lstat failed"), -1;
			s->next_poll = now + (s->is_ref ? 2000000ull : 50000000ull);
		}
		if (s->done >= s->n)
			break;
		dl = heap_top(s);
		if (dl > now + 100000000ull)
			dl = now + 100000000ull;   /* look around every 100 ms */
		if (s->o->requester && dl > s->next_poll)
			dl = s->next_poll;
		if (s->o->victim && !s->switched && dl > s->t_switch)
			dl = s->t_switch;
		r = s->io->recv(s->io->ctx, buf, sizeof(buf), &len, &ts, dl);
		if (r < 0)
			return st_fail_all(s, "the wire failed"), -1;
		if (r == 1) {
			dispatch(s, buf, len, ts);
			idle_since = 0;
		} else if (!s->o->requester && heap_top(s) == UINT64_MAX && !s->nready) {
			if (!idle_since)
				idle_since = now;
			else if (now - idle_since > 10000000000ull)
				return st_fail_all(s, "stalled: nothing to do for 10 s"), -1;
		}
		progress(s, pf, 0);
	}
	progress(s, pf, 1);
	return 0;
}

static void timing_floor(struct st_run *s)
{
	struct timespec r;
	uint64_t a = s->io->now(s->io->ctx), b = s->io->now(s->io->ctx), j = b - a;

	for (int i = 0; i < 1000; i++) {
		a = s->io->now(s->io->ctx);
		b = s->io->now(s->io->ctx);
		if (b - a > j)
			j = b - a;
	}
	s->res->clock = s->is_ref ? "simulated" : "realtime (the pcap clock)";
	clock_getres(CLOCK_REALTIME, &r);
	s->res->clock_res_ns = s->is_ref ? 1 : (uint64_t)r.tv_nsec;
	s->res->clock_jitter_ns = j;
}

int st_run(const struct st_opts *o, struct cf_io *io, struct st_result *res, FILE *pf)
{
	struct st_run s;
	uint64_t w0, c0;
	char rep[256], req[128];
	int rc;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.io = io;
	s.res = res;
	s.n = o->qps;
	s.is_ref = o->is_ref;
	s.pcap_dir = o->pcap_dir;
	res->qps = o->qps;
	timing_floor(&s);
	snprintf(req, sizeof(req), "open%s%.64s gid_index=%d", o->dev ? " dev=" : "", o->dev ? o->dev : "",
		 o->gid_index);
	if (io->ctl(io->ctx, "hello", rep, sizeof(rep)) || io->ctl(io->ctx, req, rep, sizeof(rep)) ||
	    io->ctl(io->ctx, "reset", rep, sizeof(rep)))
		return snprintf(res->first_error, sizeof(res->first_error), "control: %.200s", rep), -1;
	if (st_pcap_open(&s) || (o->requester ? st_req_setup(&s) : st_setup(&s))) {
		o->requester ? st_req_teardown(&s) : st_teardown(&s);
		return -1;
	}
	w0 = wall_ns();
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	s.t0 = io->now(io->ctx);
	rc = st_tput_init(&s) ? -1 : loop(&s, pf);
	st_tput_finish(&s);
	res->sim_ns = io->now(io->ctx) - s.t0;
	res->wall_ns = wall_ns() - w0;
	res->cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	res->msg_rate = res->wall_ns ? (double)res->messages * 1e9 / (double)res->wall_ns : 0;
	if (o->requester) {
		st_req_finish(&s);
		st_req_teardown(&s);
	} else {
		st_finish(&s);
		st_teardown(&s);
	}
	return rc;
}
