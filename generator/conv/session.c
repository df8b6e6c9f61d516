/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.c — the live RC session behind `rocegen client` and `rocegen
 * server` (session.h): addresses, transmit/receive, the event loop, faults
 * from the command line, data patterns.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "session.h"

uint64_t sess_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint32_t sess_rand(struct sess *s)
{
	uint64_t x = s->rng;

	if (!x)
		x = (s->o->have_seed ? s->o->seed * 0x9e3779b97f4a7c15ull : sess_now() ^ ((uint64_t)getpid() << 32)) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return (uint32_t)(x >> 16);
}

/* ---- transmit ------------------------------------------------------------------ */

void sess_flush(struct sess *s)
{
	int rc;

	if (!s->bn)
		return;
	rc = tx_send_batch(s->tx, s->bptr, s->blen, s->bn);
	if (rc < 0) {
		s->st.tx_errors += s->bn;
		if (rc == TX_EREFUSED || s->st.tx_errors == s->bn)
			fprintf(stderr, GEN_NAME ": transmit: %s\n", tx_error(s->tx));
		if (rc == TX_EREFUSED)
			s->failed = 1;
	}
	s->bn = 0;
}

int sess_emit(struct sess *s, const uint8_t *frame, uint32_t len)
{
	uint8_t *slot;

	if (len > ROCE_QP_FRAME_MAX)
		return -1;
	slot = s->bbuf + (size_t)s->bn * ROCE_QP_FRAME_MAX;
	memcpy(slot, frame, len);
	s->bptr[s->bn] = slot;
	s->blen[s->bn] = len;
	s->st.tx_frames++;
	s->st.tx_bytes += len;
	if (++s->bn == SESS_BATCH)
		sess_flush(s);
	return 0;
}

/* Notes payload bytes at time now (at most 16 M samples, then the meter stops). */
static void meter(struct sess *s, const struct roce_pkt *p, uint64_t now)
{
	/* an atomic request moves its 8-byte operand (as the report's bytes) */
	uint32_t b = p->atomiceth_off ? 8 : p->payload_off ? p->payload_len : 0;

	if (!b)
		return;
	if (s->dm_n == s->dm_cap) {
		uint64_t nc = s->dm_cap ? s->dm_cap * 2 : 4096;
		uint64_t *nt;
		uint32_t *nb;

		if (nc > (1u << 24))
			return;
		nt = realloc(s->dm_t, nc * sizeof *nt);
		if (nt)
			s->dm_t = nt;
		nb = nt ? realloc(s->dm_b, nc * sizeof *nb) : NULL;
		if (!nb)
			return;
		s->dm_b = nb;
		s->dm_cap = nc;
	}
	s->dm_t[s->dm_n] = now;
	s->dm_b[s->dm_n++] = b;
}

static int qp_emit(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct sess_qp *q = ctx;
	struct roce_pkt p;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, frame, len, len);
	meter(q->s, &p, sess_now());
	return sess_emit(q->s, frame, len);
}

static void qp_complete(void *ctx, const struct roce_wc *wc)
{
	struct sess_qp *q = ctx;

	if (q->cq_tail - q->cq_head >= SESS_CQ) {
		q->cq_overflow++;
		return;
	}
	q->cq[q->cq_tail++ % SESS_CQ] = *wc;
}

static void qp_event(void *ctx, const struct roce_qp_event *ev)
{
	struct sess_qp *q = ctx;

	if ((unsigned)ev->type < ROCE_QPE__COUNT)
		q->ev[ev->type]++;
	if (q->on_event)
		q->on_event(q->ev_ctx, ev);
}

int sess_qp_poll(struct sess_qp *q, struct roce_wc *wc)
{
	if (q->cq_head == q->cq_tail)
		return 0;
	*wc = q->cq[q->cq_head++ % SESS_CQ];
	return 1;
}

/* ---- faults ----------------------------------------------------------------------- */

static const struct {
	const char *name;
	enum roce_qpf_match m;
} matches[] = {
	{ "any", ROCE_QPF_ANY }, { "req", ROCE_QPF_REQ }, { "rsp", ROCE_QPF_RSP },
	{ "ack", ROCE_QPF_ACK }, { "nak", ROCE_QPF_NAK }, { "read-rsp", ROCE_QPF_READ_RSP },
	{ "cnp", ROCE_QPF_CNP },
};

static int ferr(char *err, size_t len, const char *spec, const char *what)
{
	snprintf(err, len, "--fault %s: %s", spec, what);
	return -1;
}

static int num(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*v = x;
	return 0;
}

/* KIND and /MATCH: NULL, or what is wrong. */
static const char *fault_kind(const char *kind, const char *match, struct roce_qpf_rule *r)
{
	int k;

	for (k = 0; k < ROCE_QPF__COUNT; k++)
		if (!strcmp(kind, roce_qpf_kind_name((enum roce_qpf_kind)k)))
			break;
	if (k == ROCE_QPF__COUNT && !strcmp(kind, "ecn"))
		k = ROCE_QPF_ECN_CE;
	if (k == ROCE_QPF__COUNT)
		return "unknown kind (drop, dup, reorder, delay, corrupt, ecn-ce, psn-jump, bad-rkey, bad-va, rnr)";
	r->kind = (uint8_t)k;
	r->match = k == ROCE_QPF_PSN_JUMP || k == ROCE_QPF_BAD_RKEY || k == ROCE_QPF_BAD_VA ?
		   ROCE_QPF_REQ : ROCE_QPF_ANY;
	if (match) {
		unsigned i;

		for (i = 0; i < sizeof(matches) / sizeof(matches[0]); i++)
			if (!strcmp(match, matches[i].name))
				break;
		if (i == sizeof(matches) / sizeof(matches[0]))
			return "unknown match (any, req, rsp, ack, nak, read-rsp, cnp)";
		r->match = (uint8_t)matches[i].m;
	}
	return NULL;
}

/* When: @PSN, @+N (from the first PSN of the packets it matches), or a
 * probability (P% or a fraction).  NULL, or what is wrong. */
static const char *fault_when(char *when, uint32_t base_req, uint32_t base_rsp, struct roce_qpf_rule *r)
{
	char *pc, *end;
	double p;

	if (when[0] == '@') {
		int64_t v;
		int rel = when[1] == '+';
		int rsp = r->match == ROCE_QPF_RSP || r->match == ROCE_QPF_ACK ||
			  r->match == ROCE_QPF_NAK || r->match == ROCE_QPF_READ_RSP;

		if (num(when + 1 + rel, &v) || v < 0 || v > 0xffffff)
			return "bad PSN";
		r->at_psn = 1;
		r->psn = rel ? ((rsp ? base_rsp : base_req) + (uint32_t)v) & 0xffffff : (uint32_t)v;
		return NULL;
	}
	pc = strchr(when, '%');
	if (pc)
		*pc = 0;
	errno = 0;
	p = strtod(when, &end);
	if (errno || end == when || *end || p < 0 || (pc ? p > 100 : p > 1))
		return "want a probability: P% (0..100) or a fraction 0..1";
	r->ppm = (uint32_t)((pc ? p * 10000.0 : p * 1000000.0) + 0.5);
	return NULL;
}

/* ,times=N,arg=N,delay-us=N,opcode=N: NULL, or what is wrong. */
static const char *fault_opts(char *opt, struct roce_qpf_rule *r)
{
	static const char bad[] = "options are times=N, arg=N, delay-us=N, opcode=N";
	char *save = NULL;

	for (char *t = opt ? strtok_r(opt, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		char *v = strchr(t, '=');
		int64_t x;

		if (!v || num(v + 1, &x))
			return bad;
		*v = 0;
		if (!strcmp(t, "times") && x >= 0)
			r->times = (uint32_t)x;
		else if (!strcmp(t, "arg"))
			r->arg = x;
		else if (!strcmp(t, "delay-us") && x >= 0)
			r->delay_ns = (uint64_t)x * 1000;
		else if (!strcmp(t, "opcode") && x >= 0 && x < 256)
			r->opcode = (int16_t)x;
		else
			return bad;
	}
	return NULL;
}

int sess_fault_parse(const char *spec, uint32_t base_req, uint32_t base_rsp,
		     struct roce_qpf_rule *r, char *err, size_t errlen)
{
	char buf[256], *eq, *slash, *when, *opt;
	const char *why;

	memset(r, 0, sizeof(*r));
	r->opcode = -1;
	snprintf(buf, sizeof(buf), "%s", spec);
	eq = strchr(buf, '=');
	if (!eq)
		return ferr(err, errlen, spec, "want KIND[/MATCH]=P%|@PSN|@+N[,times=N][,arg=N][,delay-us=N]");
	*eq = 0;
	when = eq + 1;
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	opt = strchr(when, ',');
	if (opt)
		*opt++ = 0;
	why = fault_kind(buf, slash, r);
	if (!why)
		why = fault_when(when, base_req, base_rsp, r);
	if (!why)
		why = fault_opts(opt, r);
	if (why)
		return ferr(err, errlen, spec, why);
	if (r->kind == ROCE_QPF_DELAY && !r->delay_ns)
		r->delay_ns = 1000000;
	if (r->kind == ROCE_QPF_PSN_JUMP && !r->arg)
		r->arg = 1;
	return 0;
}

/* ---- QPs ---------------------------------------------------------------------------- */

void sess_qp_attr(const struct sess *s, struct roce_qp_attr *a)
{
	const struct gen_opts *o = s->o;

	roce_qp_attr_default(a);
	a->mtu = (uint16_t)(128u << o->mtu_enum);
	a->version = ROCE_VER_V2;
	a->ip.version = (uint8_t)s->ipver;
	memcpy(a->ip.src, s->src, 16);
	memcpy(a->ip.dst, s->dst, 16);
	a->ip.ttl = 64;
	a->ip.dont_fragment = 1;
	if (o->dscp >= 0)
		a->ip.dscp = (uint8_t)o->dscp;
	memcpy(a->eth.src, s->smac, 6);
	memcpy(a->eth.dst, s->dmac, 6);
	a->eth.n_vlan = (uint8_t)o->n_vlan;
	memcpy(a->eth.vlan, o->vlan, sizeof(a->eth.vlan));
	if (o->ack_timeout >= 0)
		a->timeout = (uint8_t)o->ack_timeout;
	if (o->retry >= 0)
		a->retry_cnt = (uint8_t)o->retry;
	if (o->rnr_retry >= 0)
		a->rnr_retry = (uint8_t)o->rnr_retry;
	if (o->min_rnr_timer >= 0)
		a->min_rnr_timer = (uint8_t)o->min_rnr_timer;
	a->sq_depth = o->qd > 64 ? 2 * o->qd : 128;
	a->rq_depth = 1024;
	a->max_mr = 8;
	a->fault_slots = 64;
}

struct sess_qp *sess_add_qp(struct sess *s, const struct roce_qp_attr *a, int faults)
{
	struct roce_qp_ops ops;
	struct sess_qp *q;
	size_t sz = roce_qp_mem_size(a);
	uint32_t hdr = 14 + 4 * a->eth.n_vlan + (a->ip.version == 6 ? 40 : 20) + 8 + 12 + 28 + 4;

	if (s->n_qp >= SESS_MAX_QP || !sz) {
		fprintf(stderr, GEN_NAME ": cannot make a QP with these attributes\n");
		return NULL;
	}
	if (s->ii.mtu > 0 && a->mtu + hdr > (uint32_t)s->ii.mtu + 14 + 4 * a->eth.n_vlan) {
		fprintf(stderr, GEN_NAME ": path MTU %u does not fit the MTU %d of %s (--mtu)\n",
			a->mtu, s->ii.mtu, s->ii.name);
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->s = s;
	q->attr = *a;
	q->mem = calloc(1, sz);
	q->cq = calloc(SESS_CQ, sizeof(*q->cq));
	if (!q->mem || !q->cq) {
		free(q->mem);
		free(q->cq);
		free(q);
		return NULL;
	}
	memset(&ops, 0, sizeof(ops));
	ops.emit = qp_emit;
	ops.complete = qp_complete;
	ops.event = qp_event;
	ops.ctx = q;
	if (roce_qp_init(&q->qp, q->mem, sz, &q->attr, &ops)) {
		fprintf(stderr, GEN_NAME ": roce_qp_init failed\n");
		free(q->mem);
		free(q->cq);
		free(q);
		return NULL;
	}
	if (faults && s->o->n_fault) {
		char err[256];

		for (unsigned i = 0; i < s->o->n_fault; i++)
			if (sess_fault_parse(s->o->fault[i], a->sq_psn, a->rq_psn, &q->rules[i], err,
					     sizeof(err))) {
				fprintf(stderr, GEN_NAME ": %s\n", err);
				return NULL;
			}
		q->n_rules = s->o->n_fault;
		q->faults.seed = s->o->seed + s->n_qp;
		q->faults.rules = q->rules;
		q->faults.n_rules = q->n_rules;
		roce_qp_set_faults(q->qp, &q->faults);
	}
	s->qp[s->n_qp++] = q;
	return q;
}

/* ---- open / close ------------------------------------------------------------------ */

static int bind_4791(struct sess *s)
{
	int fd, one = 1, small = 4096;

	fd = socket(s->ipver == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (s->ipver == 4) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(ROCE_UDP_PORT) };

		memcpy(&a.sin_addr, s->src, 4);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(ROCE_UDP_PORT) };

		memcpy(&a.sin6_addr, s->src, 16);
		if (s->src[0] == 0xfe && (s->src[1] & 0xc0) == 0x80)
			a.sin6_scope_id = s->ii.ifindex;
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
	}
	close(fd);
	return -1;
}

int sess_open(struct sess *s, const struct gen_opts *co)
{
	struct gen_opts *o = (struct gen_opts *)co;   /* gen_resolve fills in addresses */
	struct rx_cfg rc;
	char err[RX_ERRLEN];
	uint32_t max_frame;

	memset(s, 0, sizeof(*s));
	s->o = co;
	s->udp_fd = -1;
	if (!o->iface) {
		fprintf(stderr, GEN_NAME ": -i IFACE is needed\n");
		return -1;
	}
	if (!o->peer_ver) {
		fprintf(stderr, GEN_NAME ": --peer IP is needed\n");
		return -1;
	}
	if (gen_resolve(o, 1, 1))
		return -1;
	if (ifinfo_get(o->iface, &s->ii, err, sizeof(err))) {
		fprintf(stderr, GEN_NAME ": %s\n", err);
		return -1;
	}
	s->ipver = o->peer_ver;
	memcpy(s->src, o->src, 16);
	memcpy(s->dst, o->peer, 16);
	memcpy(s->smac, o->smac, 6);
	memcpy(s->dmac, o->dmac, 6);
	max_frame = ROCE_QP_FRAME_MAX;
	if (s->ii.mtu > 0 && max_frame > (uint32_t)s->ii.mtu + 14 + 4 * o->n_vlan)
		max_frame = (uint32_t)s->ii.mtu + 14 + 4 * o->n_vlan;
	s->tx = gen_open_tx(o, TX_MMSG, max_frame);
	if (!s->tx)
		return -1;
	memset(&rc, 0, sizeof(rc));
	rc.iface = o->iface;
	rc.peer_ipver = o->peer_ver;
	memcpy(rc.peer, o->peer, 16);
	rc.filter = "udp dst port 4791";
	s->rx = rx_open(&rc, err);
	if (!s->rx) {
		fprintf(stderr, GEN_NAME ": %s\n", err);
		sess_close(s);
		return -1;
	}
	s->udp_fd = bind_4791(s);
	if (s->udp_fd < 0 && o->verbose)
		fprintf(stderr, GEN_NAME ": cannot bind UDP port 4791 (%s): the kernel may answer with ICMP port unreachable\n",
			strerror(errno));
	s->bbuf = malloc((size_t)SESS_BATCH * ROCE_QP_FRAME_MAX);
	if (!s->bbuf) {
		sess_close(s);
		return -1;
	}
	if (o->timeout > 0)
		s->t_end = sess_now() + (uint64_t)(o->timeout * 1e9);
	if (o->verbose)
		fprintf(stderr, GEN_NAME ": %s, rx filter \"%s\", tx %s\n", o->iface, rx_filter(s->rx),
			tx_kind_name(tx_backend(s->tx)));
	return 0;
}

void sess_update_stats(struct sess *s)
{
	struct rx_stats rs;
	struct tx_stats ts;

	if (s->tx) {
		tx_get_stats(s->tx, &ts);
		s->st.tx_drops = ts.drops;
	}
	if (!s->rx)
		return;
	rx_get_stats(s->rx, &rs);
	s->st.kernel_drops = rs.kernel_drops;
}

void sess_close(struct sess *s)
{
	free(s->dm_t);
	free(s->dm_b);
	s->dm_t = NULL;
	s->dm_b = NULL;
	s->dm_n = s->dm_cap = 0;
	if (s->tx) {
		sess_flush(s);
		tx_flush(s->tx);
	}
	if (s->rx) {
		struct rx_stats rs;

		rx_get_stats(s->rx, &rs);
		s->st.kernel_drops = rs.kernel_drops;
		rx_close(s->rx);
		s->rx = NULL;
	}
	if (s->tx)
		tx_close(s->tx);
	s->tx = NULL;
	if (s->udp_fd >= 0)
		close(s->udp_fd);
	s->udp_fd = -1;
	for (unsigned i = 0; i < s->n_qp; i++) {
		free(s->qp[i]->mem);
		free(s->qp[i]->cq);
		free(s->qp[i]);
	}
	s->n_qp = 0;
	free(s->bbuf);
	s->bbuf = NULL;
}

/* ---- the loop ------------------------------------------------------------------------ */

static void input(struct sess *s, const struct rx_frame *f, uint64_t now)
{
	struct roce_pkt p;
	enum roce_icrc_status ic;
	unsigned i;

	s->st.rx_frames++;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f->data, f->caplen, f->wirelen);
	if (p.version == ROCE_VER_NONE || !p.bth_off)
		return;
	s->st.rx_roce++;
	if (!s->first_rx)
		s->first_rx = now;
	s->last_rx = now;
	ic = roce_icrc_verify(&p, NULL);
	if (ic == ROCE_ICRC_BAD)
		s->st.rx_icrc_bad++;
	if (!((p.opcode & 0xe0) == ROCE_TR_UD && p.dqpn == 1))
		meter(s, &p, now);
	if ((p.opcode & 0xe0) == ROCE_TR_UD && p.dqpn == 1) {
		s->st.rx_qp1++;
		if (ic == ROCE_ICRC_GOOD && s->qp1)
			s->qp1(s->qp1_ctx, &p, now);
		return;
	}
	for (i = 0; i < s->n_qp; i++)
		if (roce_qp_input(s->qp[i]->qp, &p, ic, now) != ROCE_EARG)
			break;
	if (i == s->n_qp)
		s->st.rx_no_qp++;
}

int sess_pump(struct sess *s, int fd, short events, int timeout_ms)
{
	struct pollfd pfd[2];
	uint64_t now = sess_now(), dl = UINT64_MAX;
	int wait, n, ready = 0;
	struct rx_frame f;

	sess_flush(s);
	if (gen_stop || s->failed)
		return -1;
	if (s->t_end && now >= s->t_end) {
		fprintf(stderr, GEN_NAME ": --timeout reached\n");
		s->failed = 1;
		return -1;
	}
	for (unsigned i = 0; i < s->n_qp; i++) {
		uint64_t d = roce_qp_next_deadline(s->qp[i]->qp);

		if (d < dl)
			dl = d;
	}
	if (s->t_end && s->t_end < dl)
		dl = s->t_end;
	if (dl <= now)
		wait = 0;
	else if (dl == UINT64_MAX)
		wait = timeout_ms;
	else {
		uint64_t ms = (dl - now + 999999) / 1000000;

		wait = ms > 60000 ? 60000 : (int)ms;
		if (timeout_ms >= 0 && timeout_ms < wait)
			wait = timeout_ms;
	}
	pfd[0].fd = rx_fd(s->rx);
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	pfd[1].fd = fd;
	pfd[1].events = events;
	pfd[1].revents = 0;
	n = poll(pfd, fd >= 0 ? 2 : 1, wait);
	if (n < 0 && errno != EINTR) {
		fprintf(stderr, GEN_NAME ": poll: %s\n", strerror(errno));
		s->failed = 1;
		return -1;
	}
	if (fd >= 0 && n > 0 && pfd[1].revents)
		ready = 1;
	now = sess_now();
	for (int k = 0; k < 4096; k++) {
		int r = rx_next(s->rx, &f, 0);

		if (r < 0) {
			fprintf(stderr, GEN_NAME ": receive: %s\n", rx_error(s->rx));
			s->failed = 1;
			return -1;
		}
		if (!r)
			break;
		input(s, &f, now);
	}
	now = sess_now();
	for (unsigned i = 0; i < s->n_qp; i++)
		if (roce_qp_next_deadline(s->qp[i]->qp) <= now)
			roce_qp_tick(s->qp[i]->qp, now);
	if (s->hook)
		s->hook(s->hook_ctx);
	sess_flush(s);
	if (gen_stop)
		return -1;
	return ready;
}

int sess_run(struct sess *s, int (*done)(void *ctx), void *ctx, int timeout_ms)
{
	uint64_t end = timeout_ms >= 0 ? sess_now() + (uint64_t)timeout_ms * 1000000 : 0;

	for (;;) {
		int left = 50;           /* done() may depend on time passing */

		if (done(ctx))
			return 1;
		if (end) {
			uint64_t now = sess_now();

			if (now >= end)
				return 0;
			if ((end - now + 999999) / 1000000 < (uint64_t)left)
				left = (int)((end - now + 999999) / 1000000);
		}
		if (sess_pump(s, -1, 0, left) < 0)
			return -1;
	}
}

int sess_wait_fd(struct sess *s, int fd, short events, int timeout_ms)
{
	uint64_t end = timeout_ms >= 0 ? sess_now() + (uint64_t)timeout_ms * 1000000 : 0;

	for (;;) {
		int left = -1, r;

		if (end) {
			uint64_t now = sess_now();

			if (now >= end)
				return 0;
			left = (int)((end - now + 999999) / 1000000);
		}
		r = sess_pump(s, fd, events, left);
		if (r)
			return r;
	}
}

/* ---- patterns ---------------------------------------------------------------------------- */

static uint32_t mix(uint32_t k, uint32_t w)
{
	uint32_t x = k * 0x9e3779b1u ^ (w * 0x85ebca77u + 0x165667b1u);

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	x *= 0x297a2d39u;
	x ^= x >> 15;
	return x;
}

uint8_t sess_pattern(uint32_t k, uint32_t i)
{
	return (uint8_t)(mix(k, i >> 2) >> (8 * (i & 3)));
}

void sess_fill(uint8_t *buf, uint32_t len, uint32_t k)
{
	uint32_t i = 0;

	for (; i + 4 <= len; i += 4) {
		uint32_t w = mix(k, i >> 2);

		buf[i] = (uint8_t)w;
		buf[i + 1] = (uint8_t)(w >> 8);
		buf[i + 2] = (uint8_t)(w >> 16);
		buf[i + 3] = (uint8_t)(w >> 24);
	}
	for (; i < len; i++)
		buf[i] = sess_pattern(k, i);
}

void sess_fill_region(uint8_t *buf, uint64_t len)
{
	sess_fill(buf, (uint32_t)len, 0xffffffffu);
	memset(buf, 0, len < 8 ? len : 8);
}
