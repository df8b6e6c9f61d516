/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flow.c — the flow engine: flow table (hash + LRU over an index-linked
 * array), pairing of the two directions of a connection (CM REQ/REP, else
 * responses answering request PSNs), per-flow accounting, the RC sequence
 * analysis of lib/seq.c, iWARP per-connection counts, and per-port PFC /
 * PAUSE / QCN.  No output here: views read struct engine.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flow.h"
#include "ibident.h"
#include "iwstream.h"

#define TICK_SHIFT 30                 /* rate tick: 2^30 ns = 1.074 s */
#define TICK_S 1.073741824
static const double rate_window_s[3] = { 2, 10, 40 };   /* the rates' time constants, s */
#define PAIR_CACHE 65536u             /* direct-mapped (hosts, PSN/256) -> request flow: default slots */
#define CM_MAX 64                     /* REQs waiting for a REP */
#define KEY_IWARP 0x80000000u         /* hashed with the key to keep RoCE and TCP apart */

struct cm_pending {
	uint32_t comm_id;
	uint32_t src, dst;                /* hosts: REQ sender (active side), receiver */
	uint32_t qpn, start_psn;
	uint8_t mtu, ulp, used;
	uint8_t ack_t, retry, rnr_retry;  /* for the diagnosis (diag_cm) */
	uint64_t service_id;
};

static const char *const ulp_names[] = {
	"NVMe-oF", "SMB Direct", "NFS/RDMA", "iSER", "rping", "ucmatose", "perftest", "Ceph",
};

const char *flow_kind_name(int kind)
{
	static const char *const n[] = { "?", "RC", "UC", "UD", "XRC", "RD", "iWARP" };
	return kind >= 0 && kind <= FK_IWARP ? n[kind] : "?";
}

const char *flow_pair_name(int how)
{
	static const char *const n[] = { "none", "cm", "traffic", "tcp" };
	return how >= 0 && how <= FP_TCP ? n[how] : "?";
}

int flow_icrc_unverifiable(const struct engine *e, const struct flow *f, uint64_t *bad, uint64_t *frames)
{
	const struct flow *p = flow_peer(e, f);

	*bad = *frames = 0;
	if (f->kind == FK_IWARP)
		return 0;
	*bad = f->u.seq.icrc_bad + (p ? p->u.seq.icrc_bad : 0);
	*frames = f->packets + (p ? p->packets : 0);
	return *bad >= ICRC_UNVERIFIABLE_MIN && *bad * 2 > *frames;
}

const char *flow_ulp_name(const struct flow *f)
{
	return f->ulp && f->ulp <= sizeof ulp_names / sizeof ulp_names[0] ? ulp_names[f->ulp - 1] : NULL;
}

static uint8_t ulp_code(const char *name)
{
	if (!name)
		return 0;
	for (unsigned i = 0; i < sizeof ulp_names / sizeof ulp_names[0]; i++)
		if (!strcmp(ulp_names[i], name))
			return (uint8_t)(i + 1);
	return 0;
}

static inline uint32_t mix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	h *= 0x846ca68bu;
	h ^= h >> 16;
	return h;
}

/* One mix() of the three words each multiplied by its own odd constant
 * (three mix()es before: 16 instructions more on every frame whose flow is
 * not the last one's, every frame of a many-connection mix). */
static inline uint32_t key_hash(uint32_t src, uint32_t dst, uint32_t qpn, uint32_t cls)
{
	return mix(src * 0x9e3779b1u ^ dst * 0x85ebca6bu ^ (qpn ^ cls) * 0xc2b2ae35u);
}

/* ---- set-up -------------------------------------------------------------------- */

/* e^x for the small |x| of the rate decay (no libm in the engine, so unit
 * tests link it with libroce alone) */
static double exp_small(double x)
{
	double s = 1, t = 1;

	for (int n = 1; n < 40; n++) {
		t *= x / n;
		s += t;
	}
	return s;
}

int engine_init(struct engine *e, const struct engine_cfg *cfg)
{
	uint32_t n = 1024, pc = 1;

	memset(e, 0, sizeof *e);
	e->cfg = *cfg;
	if (!e->cfg.max_flows)
		e->cfg.max_flows = 1000000;
	if (!roce_seq_mtu_code(e->cfg.pmtu))
		e->cfg.pmtu = 1024;
	if (!e->cfg.link_bps)
		e->cfg.link_bps = 100000000000ull;
	while (n < e->cfg.max_flows && n < (1u << 31))
		n <<= 1;
	e->hmask = n - 1;
	e->heads = calloc(n, sizeof *e->heads);
	e->host_mask = 255;
	e->host_tab = calloc(256, sizeof *e->host_tab);
	e->v4_mask = 255;
	e->v4_tab = calloc(256, sizeof *e->v4_tab);
	while (pc < (e->cfg.pair_slots ? e->cfg.pair_slots : PAIR_CACHE) && pc < (1u << 24))
		pc <<= 1;
	e->pair_mask = pc - 1;
	e->pair_cache = calloc(pc, sizeof *e->pair_cache);
	e->cm = calloc(CM_MAX, sizeof *e->cm);
	e->rtt = roce_rtt_new(e->cfg.rtt_mem);
	e->diag = diag_new(&e->cfg.diag);
	if (!e->heads || !e->host_tab || !e->v4_tab || !e->pair_cache || !e->cm || !e->rtt || !e->diag) {
		engine_free(e);
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		double a = exp_small(-TICK_S / rate_window_s[i]), ak = 1;

		e->weight[i] = (float)(1 - a);
		for (int k = 0; k <= 64; k++, ak *= a)
			e->decay[i][k] = k == 64 ? 0 : (float)ak;
	}
	return 0;
}

const struct roce_rtt *engine_rtt(const struct engine *e, const struct roce_seq_dir *d)
{
	uintptr_t off = (uintptr_t)d - (uintptr_t)e->flows, i = off / sizeof(struct flow);

	if (!e->part_of)
		return e->rtt;
	return (uintptr_t)d >= (uintptr_t)e->flows && i < e->nflows ? e->parts[e->part_of[i]]->rtt : NULL;
}

void engine_rtt_totals(const struct engine *e, struct roce_rtt_totals *t)
{
	struct roce_rtt_totals one;

	if (!e->parts) {
		roce_rtt_totals(e->rtt, t);
		return;
	}
	memset(t, 0, sizeof *t);
	for (unsigned k = 0; k < e->nparts; k++) {
		roce_rtt_totals(e->parts[k]->rtt, &one);
		t->outstanding += one.outstanding;
		t->requests_evicted += one.requests_evicted;
		t->histograms += one.histograms;
		t->histograms_evicted += one.histograms_evicted;
		t->mem_bytes += one.mem_bytes;
		t->mem_peak += one.mem_peak;
		t->mem_cap += one.mem_cap;
	}
}

uint32_t flow_rtt_q_us(const struct engine *e, const struct flow *f, enum roce_rtt_which w, double q)
{
	uint64_t ns;

	if (f->kind == FK_IWARP || roce_rtt_quantile(engine_rtt(e, &f->u.seq), &f->u.seq, w, q, &ns))
		return 0;
	ns = (ns + 500) / 1000;
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

void engine_free(struct engine *e)
{
	free(e->flow_files);
	e->flow_files = NULL;
	e->flow_files_cap = 0;
	if (e->flows)
		for (uint32_t i = 0; i < e->nflows; i++)
			if (e->flows[i].kind != FK_IWARP)
				free(e->flows[i].u.seq.x);
	for (uint32_t i = 0; i < e->n_anom_free; i++)
		free(e->anom_free[i]);
	free(e->anom_free);
	free(e->msgt);
	e->msgt = NULL;
	free(e->spare);
	roce_rtt_free(e->rtt);
	e->rtt = NULL;
	diag_free(e->diag);
	free(e->flows);
	free(e->heads);
	free(e->hosts);
	free(e->host_tab);
	free(e->v4_tab);
	free(e->ports);
	free(e->pair_cache);
	ibident_free(e->ibid);
	iwstream_free(e->iw);
	free(e->cm);
	memset(e, 0, sizeof *e);
}

double engine_bytes_per_flow(const struct engine *e)
{
	if (!e->nflows)
		return 0;
	return (double)sizeof(struct flow) * e->cap / e->nflows +
	       (double)sizeof(uint32_t) * (e->hmask + 1) / e->nflows;
}

/* ---- hosts ------------------------------------------------------------------------ */

static uint32_t host_id(struct engine *e, const uint8_t addr[16])
{
	uint32_t h, i;

	memcpy(&h, addr + 12, 4);
	h = mix(h ^ (uint32_t)addr[0] << 24 ^ (uint32_t)addr[15] << 8 ^ addr[8]);
	for (i = h & e->host_mask;; i = (i + 1) & e->host_mask) {
		uint32_t v = e->host_tab[i];

		if (!v)
			break;
		if (!memcmp(e->hosts[v - 1].addr, addr, 16))
			return v - 1;
	}
	if (e->nhosts == e->hosts_cap) {
		uint32_t nc = e->hosts_cap ? e->hosts_cap * 2 : 64;
		struct host *nh = realloc(e->hosts, nc * sizeof *nh);

		if (!nh)
			abort();
		e->hosts = nh;
		e->hosts_cap = nc;
	}
	memcpy(e->hosts[e->nhosts].addr, addr, 16);
	e->host_tab[i] = ++e->nhosts;
	if (e->nhosts * 2 > e->host_mask) {
		/* grow the index */
		uint32_t nm = e->host_mask * 2 + 1, *nt = calloc(nm + 1, sizeof *nt);

		if (!nt)
			abort();
		for (uint32_t k = 0; k < e->nhosts; k++) {
			uint32_t hh, j;

			memcpy(&hh, e->hosts[k].addr + 12, 4);
			hh = mix(hh ^ (uint32_t)e->hosts[k].addr[0] << 24 ^
				 (uint32_t)e->hosts[k].addr[15] << 8 ^ e->hosts[k].addr[8]);
			for (j = hh & nm; nt[j]; j = (j + 1) & nm)
				;
			nt[j] = k + 1;
		}
		free(e->host_tab);
		e->host_tab = nt;
		e->host_mask = nm;
	}
	return e->nhosts - 1;
}

const char *host_str(const struct engine *e, uint32_t host, char *buf, size_t cap)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const uint8_t *a = e->hosts[host].addr;

	if (!memcmp(a, v4map, 12))
		inet_ntop(AF_INET, a + 12, buf, (socklen_t)cap);
	else if (!memcmp(a, "IB-LID\0\0\0\0\0\0\0\0", 14))
		snprintf(buf, cap, "lid %u", (unsigned)(a[14] << 8 | a[15]));
	else
		inet_ntop(AF_INET6, a, buf, (socklen_t)cap);
	return buf;
}

/* The slot of IPv4 address v in the index: its own, or the free one it would take. */
static inline uint32_t v4_slot(const uint64_t *tab, uint32_t mask, uint32_t v)
{
	uint32_t i;

	for (i = mix(v) & mask; tab[i] && (uint32_t)tab[i] != v; i = (i + 1) & mask)
		;
	return i;
}

/* IPv4 address v (a4), not in the index: interned through host_id() and
 * put in slot i (out of line: the frames of a known host take none of
 * its registers or its 16-byte address). */
static __attribute__((noinline)) uint32_t host_v4_new(struct engine *e, const uint8_t *a4, uint32_t v, uint32_t i)
{
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff };
	uint32_t id;

	memcpy(a + 12, a4, 4);
	id = host_id(e, a);
	e->v4_tab[i] = (uint64_t)(id + 1) << 32 | v;
	if (++e->nv4 * 2 > e->v4_mask) {
		uint32_t nm = e->v4_mask * 2 + 1;
		uint64_t *nt = calloc((size_t)nm + 1, sizeof *nt);

		if (!nt)
			abort();
		for (uint32_t k = 0; k <= e->v4_mask; k++)
			if (e->v4_tab[k])
				nt[v4_slot(nt, nm, (uint32_t)e->v4_tab[k])] = e->v4_tab[k];
		free(e->v4_tab);
		e->v4_tab = nt;
		e->v4_mask = nm;
	}
	return id;
}

/* IPv4 addresses: one probe of their own index (a u32 compare), interned
 * through host_id() the first time.  (A cache of the last four addresses
 * before: on a mirror's mix of 512 host pairs it missed every frame, and
 * host_id()'s 16-byte hash and compare cost ~200 instructions a frame.) */
static inline uint32_t host_v4(struct engine *e, const uint8_t *a4)
{
	uint32_t v, i;

	memcpy(&v, a4, 4);
	i = v4_slot(e->v4_tab, e->v4_mask, v);
	if (e->v4_tab[i])
		return (uint32_t)(e->v4_tab[i] >> 32) - 1;
	return host_v4_new(e, a4, v, i);
}

/* An InfiniBand LID as a host: a 16-byte address no IP host has. */
static const uint8_t lid_prefix[14] = { 'I', 'B', '-', 'L', 'I', 'D' };

static uint32_t host_lid(struct engine *e, uint16_t lid)
{
	uint8_t a[16];

	memcpy(a, lid_prefix, 14);
	a[14] = (uint8_t)(lid >> 8);
	a[15] = (uint8_t)lid;
	return host_id(e, a);
}

/* Source and destination addresses of a RoCE / TCP packet (0 when absent). */
static int packet_hosts(struct engine *e, const struct roce_pkt *p, uint32_t *src, uint32_t *dst)
{
	const uint8_t *s, *d;

	if (p->version == ROCE_VER_IB && !p->grh_off) {
		/* LID-routed InfiniBand: the LIDs are the hosts (LMC and path
		 * migration may change them; the QP number stays the flow's) */
		*src = host_lid(e, p->slid);
		*dst = host_lid(e, p->dlid);
		return 0;
	}
	switch (roce_pkt_addrs(p, &s, &d)) {
	case 4:
		*src = host_v4(e, s);
		*dst = host_v4(e, d);
		return 0;
	case 16:
		*src = host_id(e, s);
		*dst = host_id(e, d);
		return 0;
	}
	return -1;
}

/* ---- anomaly blocks ------------------------------------------------------------------ */

static void ensure_spare(struct engine *e)
{
	if (e->spare)
		return;
	if (e->n_anom_free)
		e->spare = e->anom_free[--e->n_anom_free];
	else if (!(e->spare = malloc(sizeof *e->spare)))
		abort();
}

static void anom_release(struct engine *e, struct roce_seq_anom *x)
{
	if (!x)
		return;
	if (e->n_anom_free == e->anom_free_cap) {
		uint32_t nc = e->anom_free_cap ? e->anom_free_cap * 2 : 64;
		struct roce_seq_anom **n = realloc(e->anom_free, nc * sizeof *n);

		if (!n) {
			free(x);
			return;
		}
		e->anom_free = n;
		e->anom_free_cap = nc;
	}
	e->anom_free[e->n_anom_free++] = x;
	e->anom_live--;
}

/* ---- the table ------------------------------------------------------------------------ */

static inline uint32_t idx_of(const struct engine *e, const struct flow *f)
{
	return (uint32_t)(f - e->flows) + 1;
}

/* inline: flow_get() moves a flow to the LRU's head on nearly every frame */
static inline __attribute__((always_inline)) void lru_unlink(struct engine *e, struct flow *f)
{
	if (f->lru_prev)
		e->flows[f->lru_prev - 1].lru_next = f->lru_next;
	else
		e->lru_head = f->lru_next;
	if (f->lru_next)
		e->flows[f->lru_next - 1].lru_prev = f->lru_prev;
	else
		e->lru_tail = f->lru_prev;
	f->lru_prev = f->lru_next = 0;
}

static inline __attribute__((always_inline)) void lru_push(struct engine *e, struct flow *f)
{
	uint32_t i = idx_of(e, f);

	f->lru_prev = 0;
	f->lru_next = e->lru_head;
	if (e->lru_head)
		e->flows[e->lru_head - 1].lru_prev = i;
	e->lru_head = i;
	if (!e->lru_tail)
		e->lru_tail = i;
}

static inline uint32_t flow_class(const struct flow *f)
{
	return f->kind == FK_IWARP ? KEY_IWARP : 0;
}

/* A flow's message boundaries go back to the engine's free list. */
static void msgt_release(struct engine *e, struct flow *f)
{
	if (!f->msgt)
		return;
	e->msgt[f->msgt].seg = e->msgt_free;
	e->msgt_free = f->msgt;
	f->msgt = 0;
}

static void evict(struct engine *e, struct flow *f)
{
	uint32_t i = idx_of(e, f), *pp = &e->heads[key_hash(f->src, f->dst, f->qpn, flow_class(f)) & e->hmask];
	struct flow *peer = flow_peer(e, f);

	while (*pp && *pp != i)
		pp = &e->flows[*pp - 1].hnext;
	if (*pp)
		*pp = f->hnext;
	lru_unlink(e, f);
	msgt_release(e, f);
	if (e->last_flow == i)
		e->last_flow = 0;
	if (peer)
		peer->peer = 0;
	e->ev.packets += f->packets;
	e->ev.bytes += f->bytes;
	if (f->kind != FK_IWARP) {
		const struct roce_seq_dir *d = &f->u.seq;
		const struct roce_seq_anom *x = d->x;

		e->ev.requests += d->requests;
		e->ev.acks += d->acks;
		e->ev.ecn_ce += d->ecn_ce;
		e->ev.cnp += d->cnp;
		e->ev.icrc_bad += d->icrc_bad;
		if (x) {
			e->ev.duplicate_request += x->duplicate_request;
			e->ev.out_of_sequence += x->out_of_sequence;
			e->ev.out_of_seq_request += x->out_of_seq_request;
			e->ev.retransmissions += x->retransmissions;
			e->ev.psn_gaps += x->psn_gaps;
			e->ev.missing_psns += roce_seq_missing(d);
			e->ev.nak_seq_err += x->nak_seq_err;
			e->ev.nak_invalid_request += x->nak_invalid_request;
			e->ev.nak_remote_access += x->nak_remote_access;
			e->ev.nak_remote_op += x->nak_remote_op;
			e->ev.rnr_nak += x->rnr_nak;
		}
		anom_release(e, f->u.seq.x);
		roce_rtt_drop(e->rtt, &f->u.seq);
	}
	e->t.evicted++;
}

static struct flow *flow_find(struct engine *e, uint32_t src, uint32_t dst, uint32_t qpn, uint32_t cls)
{
	uint32_t i;

	if (e->last_flow) {
		struct flow *f = &e->flows[e->last_flow - 1];

		if (f->qpn == qpn && f->src == src && f->dst == dst && flow_class(f) == cls)
			return f;
	}
	i = e->heads[key_hash(src, dst, qpn, cls) & e->hmask];
	while (i) {
		struct flow *f = &e->flows[i - 1];

		if (f->qpn == qpn && f->src == src && f->dst == dst && flow_class(f) == cls) {
			e->last_flow = i;
			return f;
		}
		i = f->hnext;
	}
	return NULL;
}

/* -r A -r B: the flow at index i (fresh: a new one in the slot) had a frame of the current file. */
static void note_file(struct engine *e, uint32_t i, int fresh)
{
	if (!e->file_names || e->cur_file >= 32)
		return;
	if (i >= e->flow_files_cap) {
		uint32_t cap = e->cap > i ? e->cap : i + 1;
		uint32_t *b = realloc(e->flow_files, cap * sizeof *b);

		if (!b)
			return;   /* (the JSON then leaves "files" out) */
		memset(b + e->flow_files_cap, 0, (cap - e->flow_files_cap) * sizeof *b);
		e->flow_files = b;
		e->flow_files_cap = cap;
	}
	if (fresh)
		e->flow_files[i] = 0;
	e->flow_files[i] |= 1u << e->cur_file;
}

uint32_t flow_file_mask(const struct engine *e, const struct flow *f)
{
	uint32_t i = (uint32_t)(f - e->flows);

	return e->flow_files && i < e->flow_files_cap ? e->flow_files[i] : 0;
}

static struct flow *flow_new(struct engine *e, uint32_t src, uint32_t dst, uint32_t qpn, int kind,
			     uint8_t version, uint64_t ts);

/* The flow of the key, made when new.  The making is out of line
 * (flow_new): the frames of a known flow then save no registers for it. */
static inline struct flow *flow_get(struct engine *e, uint32_t src, uint32_t dst, uint32_t qpn, int kind,
				    uint8_t version, uint64_t ts)
{
	struct flow *f = flow_find(e, src, dst, qpn, kind == FK_IWARP ? KEY_IWARP : 0);

	if (!f)
		return flow_new(e, src, dst, qpn, kind, version, ts);
	note_file(e, idx_of(e, f) - 1, 0);
	if (e->lru_head != idx_of(e, f)) {
		lru_unlink(e, f);
		lru_push(e, f);
	}
	return f;
}

static __attribute__((noinline)) struct flow *flow_new(struct engine *e, uint32_t src, uint32_t dst, uint32_t qpn,
							int kind, uint8_t version, uint64_t ts)
{
	uint32_t cls = kind == FK_IWARP ? KEY_IWARP : 0, h, i;
	struct flow *f;

	if (e->nflows < e->cfg.max_flows) {
		if (e->nflows == e->cap) {
			uint64_t nc = e->cap ? (uint64_t)e->cap * 2 : 1024;
			struct flow *nf;

			if (nc > e->cfg.max_flows)
				nc = e->cfg.max_flows;
			nf = realloc(e->flows, nc * sizeof *nf);
			if (!nf)
				abort();
			e->flows = nf;
			e->cap = (uint32_t)nc;
		}
		f = &e->flows[e->nflows++];
	} else {
		f = &e->flows[e->lru_tail - 1];
		evict(e, f);
	}
	memset(f, 0, sizeof *f);
	f->src = src;
	f->dst = dst;
	f->qpn = qpn;
	f->kind = (uint8_t)kind;
	f->version = version;
	if (kind != FK_IWARP)
		roce_seq_init(&f->u.seq, e->cfg.pmtu, NULL);
	f->first_ms = (uint32_t)((ts - e->t.first_ns) / 1000000);
	f->first_20ns = (uint16_t)((ts - e->t.first_ns) % 1000000 / 20);
	i = idx_of(e, f);
	note_file(e, i - 1, 1);
	h = key_hash(src, dst, qpn, cls) & e->hmask;
	f->hnext = e->heads[h];
	e->heads[h] = i;
	lru_push(e, f);
	return f;
}

/* inline: once a frame */
static inline __attribute__((always_inline)) void flow_account(struct engine *e, struct flow *f, uint32_t len,
								 uint64_t ts)
{
	if (f->packets) {
		uint64_t k = (ts >> TICK_SHIFT) - (f->last_ns >> TICK_SHIFT);

		if (ts > f->last_ns && k) {
			if (k > 64)
				k = 64;
			for (int i = 0; i < 3; i++)
				f->rate[i] *= e->decay[i][k];
		}
	}
	for (int i = 0; i < 3; i++)
		f->rate[i] += (float)len * e->weight[i];
	f->packets++;
	f->bytes += len;
	if (ts > f->last_ns)
		f->last_ns = ts;
}

double engine_rate_window(const struct engine *e, int i, uint64_t now)
{
	double age = now > e->t.first_ns && e->t.frames ? (double)(now - e->t.first_ns) / 1e9 : 0;

	return age < rate_window_s[i] ? age : rate_window_s[i];
}

/* Over a window longer than the capture so far, the rate is the flow's
 * bytes over the capture so far: a 2 s window on a 0.5 s capture would
 * read a quarter of the truth.  Past it, the average decayed per tick,
 * without the bias of its start (divided by 1 - a^n after n ticks). */
void flow_rates(const struct engine *e, const struct flow *f, uint64_t now, double bps[3])
{
	uint64_t k = now > f->last_ns ? (now >> TICK_SHIFT) - (f->last_ns >> TICK_SHIFT) : 0;
	uint64_t n = now > e->t.first_ns ? (now >> TICK_SHIFT) - (e->t.first_ns >> TICK_SHIFT) + 1 : 1;

	if (k > 64)
		k = 64;
	if (n > 64)
		n = 64;
	for (int i = 0; i < 3; i++) {
		double w = engine_rate_window(e, i, now);

		if (w < rate_window_s[i])
			bps[i] = w > 0 ? (double)f->bytes * 8 / w : 0;
		else
			bps[i] = f->rate[i] * e->decay[i][k] * 8 / TICK_S / (1 - e->decay[i][n]);
	}
}

static void pair(struct flow *a, struct flow *b, struct engine *e, int how)
{
	struct flow *oa = flow_peer(e, a), *ob = flow_peer(e, b);

	if (oa == b && ob == a)
		return;
	if (oa)
		oa->peer = 0;
	if (ob)
		ob->peer = 0;
	a->peer = idx_of(e, b);
	b->peer = idx_of(e, a);
	a->pair_how = b->pair_how = (uint8_t)how;
	if (how == FP_CM)
		e->conns_cm++;
	else if (how == FP_TRAFFIC)
		e->conns_traffic++;
}

/* ---- pairing from traffic --------------------------------------------------------------- */

static inline uint32_t pc_hash(uint32_t src, uint32_t dst, uint32_t bucket)
{
	return mix(src * 0x9e3779b1u + mix(dst ^ 0x5bd1e995u) + bucket * 0x27d4eb2fu);
}

/* An unpaired request flow announces where its PSNs are. */
static void pair_note(struct engine *e, struct flow *f, uint32_t psn)
{
	uint32_t h = pc_hash(f->src, f->dst, psn >> 8), *slot = e->pair_cache[h & e->pair_mask];

	slot[0] = h;
	slot[1] = idx_of(e, f);
}

/* A response on unpaired flow r (B -> A) with PSN psn: the request flow
 * A -> B whose PSNs it answers. */
static struct flow *pair_lookup(struct engine *e, struct flow *r, uint32_t psn)
{
	for (uint32_t back = 0; back < 8; back++) {
		uint32_t b = ((psn >> 8) - back) & 0xffff, h = pc_hash(r->dst, r->src, b);
		uint32_t *slot = e->pair_cache[h & e->pair_mask];
		struct flow *c;

		if (slot[0] != h || !slot[1] || slot[1] > e->nflows)
			continue;
		c = &e->flows[slot[1] - 1];
		if (c == r || c->peer || c->src != r->dst || c->dst != r->src ||
		    (c->kind != FK_RC && c->kind != FK_XRC) || !roce_seq_covers(&c->u.seq, psn))
			continue;
		return c;
	}
	return NULL;
}

/* Whose PSN space a response or CNP arriving on flow f belongs to. */
static struct flow *resp_target(struct engine *e, struct flow *f, const struct roce_pkt *p, int cnp)
{
	struct flow *c = flow_peer(e, f);

	if (c)
		return c;
	if (!cnp && (c = pair_lookup(e, f, p->psn))) {
		pair(f, c, e, FP_TRAFFIC);
		return c;
	}
	/* no request flow known: a flow that sent no requests keeps them */
	return f->u.seq.requests ? NULL : f;
}

/* ---- CM ------------------------------------------------------------------------------------ */

static void cm_packet(struct engine *e, const struct roce_pkt *p, uint32_t src, uint32_t dst, uint64_t ts)
{
	struct roce_cm cm;
	struct cm_pending *r = NULL;

	if (roce_cm_decode(p, &cm) != ROCE_OK || cm.mgmt_class != ROCE_MGMT_CLASS_CM)
		return;
	e->t.cm_mads++;
	if (cm.attr_id == ROCE_CM_REQ && cm.transport == 0) {
		e->t.cm_req++;
		for (uint32_t i = 0; i < CM_MAX; i++)
			if (e->cm[i].used && e->cm[i].comm_id == cm.local_comm_id && e->cm[i].src == src)
				r = &e->cm[i];
		if (!r)
			r = &e->cm[e->ncm++ % CM_MAX];
		r->used = 1;
		r->comm_id = cm.local_comm_id;
		r->src = src;
		r->dst = dst;
		r->qpn = cm.local_qpn;
		r->start_psn = cm.start_psn;
		r->mtu = cm.path_mtu;
		r->ack_t = cm.local_ack_timeout;
		r->retry = cm.retry_count;
		r->rnr_retry = cm.rnr_retry_count;
		r->service_id = cm.service_id;
		r->ulp = ulp_code(roce_seq_ulp_name(cm.service_id));
	} else if (cm.attr_id == ROCE_CM_REP) {
		struct flow *fa, *fb;

		e->t.cm_rep++;
		for (uint32_t i = 0; i < CM_MAX; i++)
			if (e->cm[i].used && e->cm[i].comm_id == cm.remote_comm_id && e->cm[i].src == dst &&
			    e->cm[i].dst == src)
				r = &e->cm[i];
		if (!r)
			return;
		/* A (REQ sender) sends to B's QP; B sends to A's QP */
		fa = flow_get(e, r->src, r->dst, cm.local_qpn, FK_RC, p->version, ts);
		fb = flow_get(e, r->dst, r->src, r->qpn, FK_RC, p->version, ts);
		if (fa == fb)
			return;
		if (fa->kind != FK_RC && fa->kind != FK_XRC)
			fa->kind = FK_RC;
		if (fb->kind != FK_RC && fb->kind != FK_XRC)
			fb->kind = FK_RC;
		pair(fa, fb, e, FP_CM);
		/* Each side's starting PSN is the one it expects to receive: the
		 * REQ carries the PSN B sends from, the REP the PSN A sends from
		 * (checked on the lab's rping capture: REQ 0x644726 is the PSN
		 * of the passive side's first READ). */
		roce_seq_set_start(&fa->u.seq, cm.start_psn);
		roce_seq_set_start(&fb->u.seq, r->start_psn);
		roce_seq_set_pmtu(&fa->u.seq, r->mtu, ROCE_SEQ_PMTU_CM);
		roce_seq_set_pmtu(&fb->u.seq, r->mtu, ROCE_SEQ_PMTU_CM);
		fa->ulp = fb->ulp = r->ulp;
		diag_cm(e, fa, fb, r->ack_t, r->retry, r->rnr_retry, cm.rnr_retry_count);
		r->used = 0;
	}
}

/* ---- RoCE ------------------------------------------------------------------------------------ */

static int kind_of(uint8_t opcode)
{
	switch (opcode & 0xe0) {
	case ROCE_TR_RC: return FK_RC;
	case ROCE_TR_UC: return FK_UC;
	case ROCE_TR_UD: return FK_UD;
	case ROCE_TR_XRC: return FK_XRC;
	case ROCE_TR_RD: return FK_RD;
	default: return FK_RC;   /* CNP (0x81) and vendor opcodes: whatever the QP is */
	}
}

/* A SEND or WRITE counts once, at its LAST or ONLY packet seen for the
 * first time.  Its size comes from the message, not from the packets seen:
 * the PSNs from its FIRST to its LAST, each FIRST and MIDDLE a full path
 * MTU (IBA 9.7.1, 9.7.3), plus the LAST's payload, so that go-back-N
 * retransmissions and reordering change nothing.  The message began at the
 * nearest boundary before its LAST: its FIRST, or the PSN after the end of
 * the message before.  Under loss and reordering that boundary may come
 * after the LAST (a FIRST lost before the capture point and sent again),
 * so the latest LAST's size is corrected while a nearer boundary comes;
 * the bytes seen are the fallback when no boundary is known. */
#define MSG_VALID 0x80000000u
#define MSG_FIRST 0x40000000u

static void msg_max(struct flow *f, uint64_t size)
{
	if (size > f->msg_max)
		f->msg_max = (uint32_t)size;
}

/* PSNs of the message ending at last that come before it, when it began
 * at boundary m; >= 1 << 23 when m is not before it. */
static uint32_t msg_span(uint32_t last, uint32_t m)
{
	uint32_t d = (last - m) & 0xffffff;

	if (!(m & MSG_VALID) || !d || d >= 1u << 23)
		return 1u << 23;
	return m & MSG_FIRST ? d : d - 1;
}

static uint64_t msg_bytes(const struct msgtrack *m, uint32_t span, uint32_t last_len)
{
	return (uint64_t)span * m->seg + last_len;
}

static void msg_boundary(struct flow *f, struct msgtrack *t, uint32_t psn, uint32_t kind)
{
	uint32_t m = (psn & 0xffffff) | MSG_VALID | kind, *l = t->last, span;
	size_t n = sizeof t->mark / sizeof t->mark[0];

	/* an END and the FIRST after it say the same: one mark for both */
	uint32_t twin = kind ? (((psn - 1) & 0xffffff) | MSG_VALID) : (((psn + 1) & 0xffffff) | MSG_VALID | MSG_FIRST);
	size_t i;

	for (i = 0; i < n && t->mark[i] != m && t->mark[i] != twin; i++)
		;
	if (i < n && (t->mark[i] == m || !kind))
		return;
	if (i < n) {
		t->mark[i] = m;
	} else {
		memmove(t->mark + 1, t->mark, (n - 1) * sizeof t->mark[0]);
		t->mark[0] = m;
	}
	/* a nearer beginning of the latest message counted */
	span = msg_span(l[0], m);
	if ((l[0] & MSG_VALID) && t->seg && span < l[2]) {
		uint64_t size = msg_bytes(t, span, l[1]);

		f->msg_bytes += size - l[3];
		l[2] = span;
		l[3] = (uint32_t)size;
	}
}

/* A LAST (not seen before) at p: its size as far as known now. */
static uint32_t msg_size(struct flow *f, struct msgtrack *t, const struct roce_pkt *p)
{
	uint32_t *l = t->last, best = 1u << 23, first = 0, size = t->cur;

	if (l[0] & MSG_VALID)
		msg_max(f, l[3]);   /* the one before is as right as it gets */
	for (size_t i = 0; i < sizeof t->mark / sizeof t->mark[0]; i++) {
		uint32_t span = msg_span(p->psn, t->mark[i]);

		if (span < best) {
			best = span;
			first = t->mark[i] & MSG_FIRST;
		}
	}
	if (t->seg && best < (1u << 23) && msg_bytes(t, best, p->payload_len) <= 0xffffffffu)
		size = (uint32_t)msg_bytes(t, best, p->payload_len);
	l[0] = (p->psn & 0xffffff) | MSG_VALID;
	l[1] = p->payload_len;
	l[2] = best;
	l[3] = size;
	if (first)
		msg_max(f, size);   /* its own FIRST, seen before it: as right as it gets */
	return size;
}

/* The flow's boundaries, made at its first FIRST packet (NULL: none yet,
 * or out of memory: the bytes seen are counted then). */
static struct msgtrack *msgt_of(struct engine *e, struct flow *f, int make)
{
	uint32_t i;

	if (f->msgt || !make)
		return f->msgt ? &e->msgt[f->msgt] : NULL;
	if (e->msgt_free) {
		i = e->msgt_free;
		e->msgt_free = e->msgt[i].seg;
	} else {
		if (!e->nmsgt)
			e->nmsgt = 1;              /* slot 0: "none" */
		if (e->nmsgt >= e->msgt_cap) {
			uint32_t cap = e->msgt_cap ? e->msgt_cap * 2 : 64;
			struct msgtrack *n = cap > e->msgt_cap ? realloc(e->msgt, cap * sizeof *n) : NULL;

			if (!n)
				return NULL;
			e->msgt = n;
			e->msgt_cap = cap;
		}
		i = e->nmsgt++;
	}
	memset(&e->msgt[i], 0, sizeof e->msgt[i]);
	f->msgt = i;
	return &e->msgt[i];
}

static void count_message(struct engine *e, struct flow *f, const struct roce_pkt *p, const struct roce_opinfo *oi,
			  int retrans)
{
	struct msgtrack *t = msgt_of(e, f, oi->seg != ROCE_SEG_ONLY && (oi->kind == ROCE_OK_SEND || oi->kind == ROCE_OK_WRITE));
	uint32_t size = 0;
	int op;

	switch (oi->kind) {
	case ROCE_OK_SEND: op = OP_SEND; break;
	case ROCE_OK_WRITE: op = OP_WRITE; break;
	case ROCE_OK_READ_REQ: op = OP_READ; break;
	case ROCE_OK_ATOMIC:
	case ROCE_OK_ATOMIC_WRITE: op = OP_ATOMIC; break;
	default: return;
	}
	if (op != OP_SEND && op != OP_WRITE) {
		if (retrans)
			return;
		if (op == OP_ATOMIC) {
			size = 8;
			if (t)
				msg_boundary(f, t, p->psn, 0);
		} else if (p->reth_off && !(p->truncated & ROCE_LBIT(ROCE_L_EXT))) {
			size = roce_reth_dmalen(p);
			/* a READ takes one PSN per response packet (IBA 9.7.4.1.3) */
			if (t && t->seg)
				msg_boundary(f, t, p->psn + (size ? (size - 1) / t->seg : 0), 0);
		}
	} else {
		if (oi->seg == ROCE_SEG_FIRST && t) {
			t->seg = p->payload_len;
			msg_boundary(f, t, p->psn, MSG_FIRST);
		}
		if (!retrans && t) {
			if (oi->seg == ROCE_SEG_FIRST)
				t->cur = 0;
			t->cur += p->payload_len;
		}
		if (!retrans && oi->seg == ROCE_SEG_ONLY)
			size = p->payload_len;
		else if (!retrans && oi->seg == ROCE_SEG_LAST)
			size = t ? msg_size(f, t, p) : p->payload_len;
		if (t && (oi->seg == ROCE_SEG_LAST || oi->seg == ROCE_SEG_ONLY)) {
			msg_boundary(f, t, p->psn, 0);
			t->cur = 0;
		}
		if (retrans || (oi->seg != ROCE_SEG_LAST && oi->seg != ROCE_SEG_ONLY))
			return;
	}
	f->msgs[op]++;
	f->msg_bytes += size;
	if (oi->seg != ROCE_SEG_LAST || op == OP_READ || op == OP_ATOMIC)
		msg_max(f, size);
}

/* Native InfiniBand marks congestion in the BTH, not in an IP header:
 * FECN or BECN on a packet other than a CNP counts as a CE mark (the GRH's
 * traffic class carries no ECN on IB) and each bit on its own as well. */
static void ib_marks(struct engine *e, const struct roce_pkt *p, unsigned in)
{
	if (in || !(p->present & ROCE_LBIT(ROCE_L_BTH)) || (p->truncated & ROCE_LBIT(ROCE_L_BTH)) ||
	    roce_opcode_is_cnp(p->opcode))
		return;
	e->t.roce_ce += roce_pkt_ce(p);
	e->t.ib_fecn += p->fecn;
	e->t.ib_becn += p->becn;
}

/* ---- InfiniBand QP identity ------------------------------------------------------------- */

static int lid_host(const struct engine *e, uint32_t h)
{
	return h < e->nhosts && !memcmp(e->hosts[h].addr, lid_prefix, sizeof lid_prefix);
}

/* A LID-routed IB packet stays with its QP's flow when the QP's LIDs
 * changed (LMC path bits, automatic path migration): a (SLID, DLID, DestQP)
 * not seen before, whose DestQP's last flow ran between other LIDs and
 * expects this PSN (a request continuing its requests, a response
 * answering its peer's), is recorded as an alias of that flow, and the
 * reversed pair as one of its peer.  *src, *dst become the flow's hosts. */
static void ib_identity(struct engine *e, const struct roce_pkt *p, uint32_t *src, uint32_t *dst)
{
	struct flow *c, *peer;
	enum roce_seq_kind k;
	uint32_t i;
	int ok;

	if (p->dqpn <= 1 || (!e->ibid && !(e->ibid = ibident_new())))
		return;     /* QP0 and QP1 are every port's */
	if (ibident_lookup(e->ibid, src, dst, p->dqpn) || flow_find(e, *src, *dst, p->dqpn, 0))
		return;
	i = ibident_last(e->ibid, p->dqpn);
	if (!i || i > e->nflows)
		return;
	c = &e->flows[i - 1];
	if (c->qpn != p->dqpn || (c->kind != FK_RC && c->kind != FK_XRC) || !lid_host(e, c->src) ||
	    !lid_host(e, c->dst))
		return;
	k = roce_seq_classify(p);
	peer = flow_peer(e, c);
	if (k == ROCE_SEQ_REQ)
		ok = roce_seq_continues(&c->u.seq, p->psn);
	else
		ok = k == ROCE_SEQ_RESP && peer && roce_seq_covers(&peer->u.seq, p->psn);
	if (!ok || ibident_add(e->ibid, *src, *dst, p->dqpn, c->src, c->dst))
		return;
	if (peer)
		ibident_add(e->ibid, *dst, *src, peer->qpn, peer->src, peer->dst);
	e->t.ib_lid_moves++;
	*src = c->src;
	*dst = c->dst;
}

/* The hosts of a RoCE or InfiniBand frame with a whole BTH (0), and a
 * prefetch of its flow's hash head: engine_packet() asks before the ICRC
 * check, so that the head's cache miss (one a frame on a many-connection mix)
 * overlaps the CRC.  -1: no flow to find (no whole BTH, no addresses). */
static int packet_flow_hosts(struct engine *e, const struct roce_pkt *p, uint32_t *src, uint32_t *dst)
{
	if (!p->bth_off || !(p->present & ROCE_LBIT(ROCE_L_BTH)) || (p->truncated & ROCE_LBIT(ROCE_L_BTH)) ||
	    packet_hosts(e, p, src, dst))
		return -1;
	if (p->version != ROCE_VER_IB || p->grh_off)   /* LID-routed: the identity may change them */
		__builtin_prefetch(&e->heads[key_hash(*src, *dst, p->dqpn, 0) & e->hmask]);
	return 0;
}

/* hosts: what packet_flow_hosts() returned (0: src and dst are the frame's
 * hosts; -1: there is no flow to analyse) */
static void roce_packet(struct engine *e, const struct roce_pkt *p, uint64_t ts, uint32_t wirelen, int icrc,
			int hosts, uint32_t src, uint32_t dst)
{
	struct flow *f;
	const struct roce_opinfo *oi;
	struct roce_seq_verdict v;
	enum roce_seq_kind k;
	unsigned in = icrc == ROCE_ICRC_BAD ? ROCE_SEQ_IN_ICRC_BAD : 0;
	int kind, lid_routed;

	/* ECN of the IP header, or of the GRH on RoCEv1 (not of a frame with a
	 * bad ICRC: the receiver drops it, nothing of it is analysed) */
	if (p->version == ROCE_VER_IB)
		ib_marks(e, p, in);
	else if (!in && (p->ip_version || p->grh_off) && p->ecn == 3)
		e->t.roce_ce++;
	else if (!in && (p->ip_version || p->grh_off) && p->ecn)
		e->t.roce_ect++;
	if (hosts)
		return;
	lid_routed = p->version == ROCE_VER_IB && !p->grh_off;
	if (lid_routed)
		ib_identity(e, p, &src, &dst);
	kind = kind_of(p->opcode);
	if (roce_opcode_is_cnp(p->opcode)) {
		e->t.cnp += !in;
		f = flow_find(e, src, dst, p->dqpn, 0);
		if (f)
			kind = f->kind;
	}
	f = flow_get(e, src, dst, p->dqpn, kind, p->version, ts);
	if (lid_routed && e->ibid)
		ibident_note(e->ibid, p->dqpn, idx_of(e, f));
	flow_account(e, f, wirelen, ts);
	if (p->mad_off && p->dqpn == 1)
		cm_packet(e, p, src, dst, ts);
	oi = roce_opcode_info(p->opcode);
	if (f->kind != FK_RC && f->kind != FK_XRC) {
		/* UC, UD: no responder to model; count what is there */
		if (in) {
			f->u.seq.icrc_bad++;
			return;
		}
		if (roce_opcode_is_cnp(p->opcode))
			f->u.seq.cnp++;
		else if (roce_pkt_ce(p))
			f->u.seq.ecn_ce++;
		if (oi)
			count_message(e, f, p, oi, 0);
		return;
	}
	k = roce_seq_classify(p);
	if (k == ROCE_SEQ_REQ) {
		ensure_spare(e);
		if (!e->spare)
			return;
		roce_seq_request(&f->u.seq, p, ts, in, &e->spare, &v);
		roce_rtt_packet(e->rtt, &f->u.seq, p, ts, &v);
		if (!e->spare)
			e->anom_live++;
		if (!f->peer)
			pair_note(e, f, p->psn);
		e->verdict = v.flags;
		if (!(v.flags & ROCE_SEQ_V_ICRC_BAD))
			count_message(e, f, p, oi, !!(v.flags & ROCE_SEQ_V_RETRANS));
		diag_request(e, f, p, ts, wirelen, &v);
	} else if (k == ROCE_SEQ_RESP || k == ROCE_SEQ_CNP_PKT) {
		struct flow *t = resp_target(e, f, p, k == ROCE_SEQ_CNP_PKT);

		if (!t) {
			e->t.orphan_responses++;
			return;
		}
		ensure_spare(e);
		roce_seq_response(&t->u.seq, p, ts, in, &e->spare, &v);
		roce_rtt_packet(e->rtt, &t->u.seq, p, ts, &v);
		e->verdict = v.flags;
		if (!e->spare)
			e->anom_live++;
		diag_response(e, t, f, p, ts, &v);
	}
}

/* ---- DCB --------------------------------------------------------------------------------------- */

static struct port *port_of(struct engine *e, const struct roce_pkt *p)
{
	uint8_t mac[6] = { 0 };

	if (p->linktype == ROCE_LINK_ETHERNET && p->eth_off + 12 <= p->caplen)
		memcpy(mac, p->data + p->eth_off + 6, 6);
	for (uint32_t i = 0; i < e->nports; i++)
		if (!memcmp(e->ports[i].mac, mac, 6))
			return &e->ports[i];
	if (!(e->nports & (e->nports - 1)) || !e->nports) {
		uint32_t nc = e->nports ? e->nports * 2 : 8;
		struct port *np = realloc(e->ports, nc * sizeof *np);

		if (!np)
			abort();
		e->ports = np;
	}
	memset(&e->ports[e->nports], 0, sizeof e->ports[0]);
	memcpy(e->ports[e->nports].mac, mac, 6);
	return &e->ports[e->nports++];
}

uint64_t pause_paused_ns(const struct pause_stat *s, uint64_t now)
{
	uint64_t t = s->paused_ns;

	if (s->until_ns > s->since_ns) {
		uint64_t end = now < s->until_ns ? now : s->until_ns;

		if (end > s->since_ns)
			t += end - s->since_ns;
	}
	return t;
}

static void pause_apply(struct pause_stat *s, uint64_t ts, uint16_t quanta, uint64_t link_bps)
{
	s->paused_ns = pause_paused_ns(s, ts);   /* close the running pause at ts */
	if (quanta) {
		s->pauses++;
		s->quanta += quanta;
		s->since_ns = ts;
		s->until_ns = ts + roce_pause_quanta_ns(quanta, link_bps);
	} else {
		s->xon++;
		s->since_ns = s->until_ns = ts;
	}
}

static void dcb_packet(struct engine *e, const struct roce_pkt *p, uint64_t ts)
{
	struct port *pt = port_of(e, p);

	e->t.dcb++;
	pt->frames++;
	if (p->macctrl_off) {
		struct roce_pfc pf;

		if (roce_pfc_get(p, &pf) != ROCE_OK)
			return;
		if (pf.opcode == ROCE_MACC_PFC) {
			e->t.pfc_frames++;
			pt->pfc_frames++;
			for (int i = 0; i < 8; i++)
				if (pf.enable & (1u << i)) {
					pause_apply(&pt->pfc[i], ts, pf.times[i], e->cfg.link_bps);
					diag_pause(e, (uint32_t)(pt - e->ports), (unsigned)i, ts, pf.times[i],
						   pt->pfc[i].until_ns - ts);
				}
		} else if (pf.opcode == ROCE_MACC_PAUSE) {
			e->t.pause_frames++;
			pt->pause_frames++;
			pause_apply(&pt->pause, ts, pf.times[0], e->cfg.link_bps);
			diag_pause(e, (uint32_t)(pt - e->ports), 8, ts, pf.times[0], pt->pause.until_ns - ts);
		}
	} else if (p->cnm_off) {
		struct roce_cnm c;

		if (roce_cnm_get(p, &c) == ROCE_OK && c.is_cnm) {
			e->t.cnm++;
			pt->cnm++;
			pt->cnm_prio_mask |= 1u << (c.encap_priority & 7);
		}
	} else if (p->lldp_off) {
		struct roce_lldp_iter it;
		struct roce_lldp_tlv tlv;

		e->t.lldp++;
		roce_lldp_iter_init(p, &it);
		while (roce_lldp_next(p, &it, &tlv) == 1) {
			struct roce_dcbx_pfc pfc;

			if (tlv.has_oui && tlv.oui == ROCE_OUI_IEEE_8021 && tlv.subtype == ROCE_DCBX_PFC &&
			    roce_dcbx_pfc(&tlv, &pfc) == ROCE_OK) {
				pt->dcbx_seen = 1;
				pt->dcbx_pfc_enable = pfc.enable;
				pt->dcbx_willing = pfc.willing;
				pt->dcbx_cap = pfc.cap;
			}
		}
	}
}

/* ---- iWARP ------------------------------------------------------------------------------------ */

static void fpdu_cb(void *ctx, const struct roce_mpa_stream_fpdu *sf)
{
	const struct roce_mpa_fpdu *fp = &sf->view;
	struct flow *f = ctx;
	struct iw_flow *w = &f->u.iw;

	w->fpdus++;
	if (fp->crc_status == ROCE_MPA_CRC_GOOD)
		w->crc_good++;
	else if (fp->crc_status == ROCE_MPA_CRC_BAD)
		w->crc_bad++;
	else
		w->crc_unchecked++;
	if (fp->msg_rc != ROCE_OK)
		return;
	w->ops[fp->msg.opcode & 15]++;
	switch (fp->msg.opcode) {
	case ROCE_RDMAP_WRITE:
		if (fp->msg.last) {
			f->msgs[OP_WRITE]++;
		}
		f->msg_bytes += fp->msg.payload_len;
		break;
	case ROCE_RDMAP_READ_REQ:
		f->msgs[OP_READ]++;
		f->msg_bytes += fp->msg.read_size;
		if (fp->msg.read_size > f->msg_max)
			f->msg_max = fp->msg.read_size;
		break;
	case ROCE_RDMAP_READ_RESP:
		w->read_resp++;
		break;
	case ROCE_RDMAP_SEND:
	case ROCE_RDMAP_SEND_INV:
	case ROCE_RDMAP_SEND_SE:
	case ROCE_RDMAP_SEND_SE_INV:
		if (fp->msg.last)
			f->msgs[OP_SEND]++;
		f->msg_bytes += fp->msg.payload_len;
		break;
	case ROCE_RDMAP_ATOMIC_REQ:
		f->msgs[OP_ATOMIC]++;
		f->msg_bytes += 8;
		break;
	case ROCE_RDMAP_TERMINATE:
		w->terminates++;
		break;
	default:
		break;
	}
}

static void iw_event_cb(void *ctx, const struct roce_mpa_event *ev)
{
	struct iw_flow *w = &((struct flow *)ctx)->u.iw;

	switch (ev->type) {
	case ROCE_MPA_EV_SYNC_LOST:
		w->sync_lost++;
		break;
	case ROCE_MPA_EV_RESYNC:
		w->resyncs++;
		if (ev->what && !strcmp(ev->what, "heuristic"))
			w->resync_heuristic++;
		break;
	case ROCE_MPA_EV_SKIPPED:
		w->unsync_bytes += ev->len;
		break;
	default:
		break;
	}
}

/* The FPDUs of a segment are the ones the connection's MPA stream completes
 * with it: the stream alone decides where FPDUs start (never a header read
 * out of payload after framing was lost). */
static void iw_stream(struct engine *e, const struct roce_pkt *p, struct flow *f)
{
	struct iwstream_cb cb = { fpdu_cb, iw_event_cb, f };
	struct iwstream_res r;

	if (!e->iw) {
		if (!p->mpa_off)
			return;
		e->iw = iwstream_new(0);
		if (!e->iw)
			return;         /* out of memory: no FPDU counts */
	}
	iwstream_packet(e->iw, p, &cb, &r);
}

static void tcp_packet(struct engine *e, const struct roce_pkt *p, uint64_t ts, uint32_t wirelen)
{
	uint32_t src, dst, key = (uint32_t)p->sport << 16 | p->dport, len = p->tcp_payload_len;
	struct flow *f;
	struct iw_flow *w;

	if (packet_hosts(e, p, &src, &dst))
		return;
	f = flow_find(e, src, dst, key, KEY_IWARP);
	if (!f && !p->mpa_off)
		return;              /* TCP that never showed iWARP */
	f = flow_get(e, src, dst, key, FK_IWARP, 0, ts);
	e->t.iwarp++;
	flow_account(e, f, wirelen, ts);
	if (!f->peer) {
		struct flow *r = flow_find(e, dst, src, (uint32_t)p->dport << 16 | p->sport, KEY_IWARP);

		if (r)
			pair(f, r, e, FP_TCP);
	}
	w = &f->u.iw;
	iw_stream(e, p, f);
	if (!len)
		return;
	w->segments++;
	if (w->have_seq) {
		int32_t ahead = (int32_t)(p->tcp_seq + len - w->next_seq);

		if (ahead <= 0) {
			w->tcp_retrans++;
			return;
		}
		if ((int32_t)(p->tcp_seq - w->next_seq) > 0)
			w->tcp_gaps++;
	}
	w->have_seq = 1;
	w->next_seq = p->tcp_seq + len;
	if (p->mpa_off) {
		struct roce_mpa_frame fr;
		uint32_t avail = p->caplen > p->tcp_payload_off ? p->caplen - p->tcp_payload_off : 0;
		int rc;

		if (avail > len)
			avail = len;
		rc = p->mpa_off == p->tcp_payload_off ?
			roce_mpa_frame_parse(p->data + p->tcp_payload_off, avail, &fr) : 0;
		if (rc > 0) {
			if (fr.kind == ROCE_MPA_REQ)
				w->mpa_req++;
			else
				w->mpa_rep++;
			w->mpa_flags = fr.flags;
			w->mpa_rev = fr.rev;
		}
	}
}

/* ---- entry ------------------------------------------------------------------------------------ */

void engine_packet(struct engine *e, const struct roce_pkt *p, uint64_t ts, uint32_t caplen, uint32_t wirelen)
{
	struct engine_totals *t = &e->t;

	(void)caplen;
	e->verdict = 0;
	/* a mirror copy counts as the frame it carries */
	if (p->encap.kind && p->encap.inner_off) {
		wirelen = p->wirelen;
		t->encapsulated++;
		t->encap_truncated += p->encap.inner_truncated;
	}
	if (p->erf.present) {
		wirelen = p->wirelen;
		t->erf_records++;
		t->erf_lost += p->erf.lctr;
	}
	if (!t->frames || ts < t->first_ns)
		t->first_ns = ts;
	if (ts > t->last_ns)
		t->last_ns = ts;
	t->frames++;
	e->frame_no = e->frame_next ? e->frame_next : t->frames;
	t->bytes += wirelen;
	t->roce[p->version]++;
	if (p->truncated)
		t->truncated++;
	if (p->invalid)
		t->invalid++;
	if (p->version != ROCE_VER_NONE) {
		uint32_t src = 0, dst = 0;
		int hosts = packet_flow_hosts(e, p, &src, &dst);
		int icrc = e->cfg.check_icrc ? (int)roce_icrc_verify(p, NULL) : ROCE_ICRC_UNCHECKED;

		t->icrc[icrc]++;
		roce_packet(e, p, ts, wirelen, icrc, hosts, src, dst);
		return;
	}
	if (p->macctrl_off || p->cnm_off || p->lldp_off) {
		dcb_packet(e, p, ts);
		return;
	}
	if (p->present & ROCE_LBIT(ROCE_L_TCP)) {
		t->tcp++;
		tcp_packet(e, p, ts, wirelen);
	}
}

/* ---- capture-wide verdict ---------------------------------------------------------------------- */

const char *fabric_mode_name(enum fabric_mode m)
{
	static const char *const n[] = { "unknown", "lossless (PFC)", "Resilient RoCE (ECN, no PFC)",
					 "Zero Touch RoCE (no PFC, no ECN)", "mixed (PFC and ECN)" };
	return (unsigned)m < sizeof n / sizeof n[0] ? n[m] : "?";
}

enum fabric_mode engine_fabric_mode(const struct engine *e, char *ev, size_t cap)
{
	const struct engine_totals *t = &e->t;
	uint64_t roce = t->roce[1] + t->roce[2] + t->roce[3] + t->roce[4] + t->roce[5];
	uint64_t pfc_pauses = 0;
	unsigned prio = 0, dcbx_pfc = 0;
	int pfc, ecn;
	char pl[32] = "";

	for (uint32_t i = 0; i < e->nports; i++) {
		for (int k = 0; k < 8; k++)
			if (e->ports[i].pfc[k].pauses) {
				pfc_pauses += e->ports[i].pfc[k].pauses;
				prio |= 1u << k;
			}
		if (e->ports[i].dcbx_seen)
			dcbx_pfc |= e->ports[i].dcbx_pfc_enable;
	}
	for (int k = 0, n = 0; k < 8; k++)
		if (prio & (1u << k))
			n += snprintf(pl + n, sizeof pl - (size_t)n, "%s%d", n ? "," : "", k);
	pfc = pfc_pauses > 0 || dcbx_pfc;
	ecn = t->roce_ect + t->roce_ce + t->cnp > 0;
	if (ev)
		snprintf(ev, cap,
			 "%llu PFC pause frames%s%s%s, DCBX PFC enable 0x%02x, %llu 802.3x pauses; "
			 "%llu of %llu RoCE packets ECN-capable, %llu CE-marked, %llu CNPs, %llu QCN CNMs",
			 (unsigned long long)pfc_pauses, prio ? " on priority " : "", pl, "",
			 dcbx_pfc, (unsigned long long)t->pause_frames,
			 (unsigned long long)(t->roce_ect + t->roce_ce), (unsigned long long)roce,
			 (unsigned long long)t->roce_ce, (unsigned long long)t->cnp,
			 (unsigned long long)t->cnm);
	if (!roce && !pfc)
		return FM_UNKNOWN;
	if (pfc && ecn)
		return FM_MIXED;
	if (pfc)
		return FM_LOSSLESS;
	if (ecn)
		return FM_RESILIENT;
	return FM_ZERO_TOUCH;
}

static const struct roce_seq_anom zero_anom;

const struct roce_seq_anom *flow_anom(const struct flow *f)
{
	return f->kind != FK_IWARP && f->u.seq.x ? f->u.seq.x : &zero_anom;
}

uint64_t flow_first_ns(const struct engine *e, const struct flow *f)
{
	return e->t.first_ns + (uint64_t)f->first_ms * 1000000ull + (uint64_t)f->first_20ns * 20;
}

double flow_avg_bps(const struct engine *e, const struct flow *f)
{
	uint64_t t0 = flow_first_ns(e, f);

	return f->packets > 1 && f->last_ns > t0 ? (double)f->bytes * 8e9 / (double)(f->last_ns - t0) : 0;
}

double engine_avg_bps(const struct engine *e)
{
	const struct engine_totals *t = &e->t;

	return t->last_ns > t->first_ns ? (double)t->bytes * 8e9 / (double)(t->last_ns - t->first_ns) : 0;
}
