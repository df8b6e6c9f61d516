/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtt.c — round-trip times of every RC request (see rtt.h for the rule).
 *
 * Outstanding requests: a ring per direction (struct dq, found by the
 * direction's id: an index, no hash), request PSN p in slot p & mask,
 * holding the direction's window [rtt_low, hi) of PSNs.  PSNs of a
 * direction are sequential, so a request and its answer are one slot each,
 * and the requests an ACK covers are the slots before it, cleared in order.
 * (It was one hash table keyed by (direction, PSN) for all directions: a
 * probe per covered PSN, in a table that over 512 connections no longer
 * fits the cache; 20 % of a 512-connection replay was its lookup.)  Rings
 * of up to 16 slots come from a slab (a direction with one request
 * outstanding costs 16 bytes and its 24-byte struct dq), larger ones from
 * malloc; they grow by doubling, within a quarter of the memory cap.
 *
 * Histograms: an open-addressing table with linear probing and
 * backward-shift deletion, key (direction id << 1 | which), a pointer a
 * slot.
 * A histogram is a sorted array of (bucket, count) pairs.  Bucket b of a
 * value v in ns: v itself below 128, else with e = floor(log2 v):
 * (e - 6) * 128 + the 7 bits after the leading one.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"
#include "rtt.h"

#define PSN_MASK 0xffffffu
#define K_ACK 1u                 /* answered by an ACK or ATOMIC ACK */
#define K_READ 2u                /* answered by a READ response */
#define DQ_MIN 64
#define SLAB_CLASSES 5           /* rings of 1 .. 16 slots from the slab */
#define SLAB_BLOCK 4096          /* slots per slab block (64 KiB) */
#define MAP_MIN 64
#define EVICT_CANDIDATES 8

struct ent {
	uint64_t ts;             /* ns (free in the slab: the next free ring) */
	uint32_t pk;             /* kind << 24 | psn; 0: free */
	uint32_t pad;
};

/* A direction's outstanding requests (its id's). */
struct dq {
	struct ent *e;           /* mask + 1 slots, or NULL */
	uint32_t mask;
	uint32_t n;              /* requests in it */
	uint32_t hi;             /* one past the newest PSN held (free id: the next free id) */
	uint32_t pad;
};

struct hbin {
	uint16_t b;
	uint16_t pad;
	uint32_t cnt;
};

struct hist {
	uint32_t key;
	uint32_t nb, cap;        /* bins used, allocated */
	uint32_t sub_us;         /* some sample was not a whole microsecond */
	uint64_t last;           /* update tick, for eviction */
	struct hbin bin[];
};

struct roce_rtt {
	struct dq *dq;           /* by direction id (0: none) */
	uint32_t ndq, dqcap;     /* ids given (from 1), allocated */
	uint32_t free_ids;       /* ids dropped, to give again (linked through hi) */
	uint32_t qhand;          /* eviction clock over dq */
	uint64_t tn;             /* requests outstanding */
	uint64_t ring_bytes;
	struct ent *slab_free[SLAB_CLASSES];
	void **slab_blocks;
	uint32_t nslab_blocks, slab_left;
	struct ent *slab_next;
	struct hist **map;
	uint32_t mmask, mn;
	uint32_t hand;           /* eviction clock over map */
	uint64_t tick;
	uint64_t hist_bytes;
	uint64_t cap, peak;
	uint64_t req_evicted, hist_evicted;
};

static inline int32_t pdiff(uint32_t a, uint32_t b) { return roce_psn_diff(a, b); }

static uint32_t mix(uint32_t a, uint32_t b)
{
	uint64_t h = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

static uint64_t mem_now(const struct roce_rtt *r)
{
	return r->ring_bytes + (uint64_t)r->dqcap * sizeof(struct dq) + ((uint64_t)r->mmask + 1) * sizeof(void *) +
	       r->hist_bytes;
}

static void note_peak(struct roce_rtt *r)
{
	uint64_t m = mem_now(r);

	if (m > r->peak)
		r->peak = m;
}

struct roce_rtt *roce_rtt_new(uint64_t mem_cap)
{
	struct roce_rtt *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->cap = mem_cap ? mem_cap : ROCE_RTT_MEM_DEFAULT;
	r->dq = calloc(DQ_MIN, sizeof *r->dq);
	r->map = calloc(MAP_MIN, sizeof *r->map);
	if (!r->dq || !r->map) {
		roce_rtt_free(r);
		return NULL;
	}
	r->ndq = 1;
	r->dqcap = DQ_MIN;
	r->mmask = MAP_MIN - 1;
	note_peak(r);
	return r;
}

void roce_rtt_free(struct roce_rtt *r)
{
	if (!r)
		return;
	if (r->map)
		for (uint32_t i = 0; i <= r->mmask; i++)
			free(r->map[i]);
	free(r->map);
	if (r->dq)
		for (uint32_t i = 1; i < r->ndq; i++)
			if (r->dq[i].e && r->dq[i].mask + 1 >= 1u << SLAB_CLASSES)
				free(r->dq[i].e);
	free(r->dq);
	for (uint32_t i = 0; i < r->nslab_blocks; i++)
		free(r->slab_blocks[i]);
	free(r->slab_blocks);
	free(r);
}

/* ---- outstanding requests: a ring per direction ---------------------------------- */

/* A direction's ring of 2^k slots (k <= SLAB_CLASSES - 1 from the slab,
 * larger ones from malloc): request psn at slot psn & mask. */
static struct ent *ring_alloc(struct roce_rtt *r, uint32_t cap)
{
	unsigned c = (unsigned)__builtin_ctz(cap);
	struct ent *e;

	if (c >= SLAB_CLASSES)
		return calloc(cap, sizeof(struct ent));
	if ((e = r->slab_free[c])) {
		memcpy(&r->slab_free[c], &e->ts, sizeof e);
	} else {
		if (r->slab_left < cap) {
			void **b = realloc(r->slab_blocks, (r->nslab_blocks + 1) * sizeof *b);

			if (!b)
				return NULL;
			r->slab_blocks = b;
			if (!(b[r->nslab_blocks] = malloc(SLAB_BLOCK * sizeof(struct ent))))
				return NULL;
			r->slab_next = b[r->nslab_blocks++];
			r->slab_left = SLAB_BLOCK;
		}
		e = r->slab_next;
		r->slab_next += cap;
		r->slab_left -= cap;
	}
	memset(e, 0, cap * sizeof *e);
	return e;
}

static void ring_free(struct roce_rtt *r, struct ent *e, uint32_t cap)
{
	unsigned c;

	if (!e)
		return;
	c = (unsigned)__builtin_ctz(cap);
	if (c >= SLAB_CLASSES) {
		free(e);
		return;
	}
	memcpy(&e->ts, &r->slab_free[c], sizeof e);
	r->slab_free[c] = e;
}

/* The entry of psn in d's ring, or NULL. */
static inline struct ent *q_find(const struct dq *q, const struct roce_seq_dir *d, uint32_t psn)
{
	struct ent *e;

	if (!q->n || pdiff(psn, d->rtt_low) < 0 || pdiff(psn, q->hi) >= 0)
		return NULL;
	e = &q->e[psn & q->mask];
	return e->pk && (e->pk & PSN_MASK) == psn ? e : NULL;
}

static inline void q_del(struct roce_rtt *r, struct dq *q, struct ent *e)
{
	e->pk = 0;
	q->n--;
	r->tn--;
}

/* Clears d's requests in [rtt_low, end) (no sample); rtt_low = end. */
static void q_clear_to(struct roce_rtt *r, struct dq *q, struct roce_seq_dir *d, uint32_t end, int evicted)
{
	int32_t n = pdiff(end, d->rtt_low), span = pdiff(q->hi, d->rtt_low);

	if (n <= 0)
		return;
	for (int32_t k = 0; k < (n < span ? n : span) && q->n; k++) {
		struct ent *e = &q->e[(d->rtt_low + (uint32_t)k) & q->mask];

		if (e->pk) {
			q_del(r, q, e);
			r->req_evicted += (uint64_t)evicted;
		}
	}
	d->rtt_low = end;
	if (pdiff(q->hi, end) < 0)
		q->hi = end;
}

/* Frees a direction's ring; its requests count as evicted when asked. */
static void q_release(struct roce_rtt *r, struct dq *q, int evicted)
{
	if (evicted)
		r->req_evicted += q->n;
	r->tn -= q->n;
	r->ring_bytes -= q->e ? ((uint64_t)q->mask + 1) * sizeof(struct ent) : 0;
	ring_free(r, q->e, q->mask + 1);
	q->e = NULL;
	q->mask = q->n = 0;
}

/* Makes room for `more` bytes of rings within their quarter of the cap,
 * taking other directions' rings (a clock over them): 0, or -1 when there
 * is none to take. */
static int q_budget(struct roce_rtt *r, uint32_t keep, uint64_t more)
{
	uint32_t tries = r->ndq;

	while (r->ring_bytes + more > r->cap / 4) {
		struct dq *v;

		if (!tries--)
			return -1;
		r->qhand = r->qhand + 1 < r->ndq ? r->qhand + 1 : 1;
		v = &r->dq[r->qhand];
		if (r->qhand != keep && v->e)
			q_release(r, v, 1);
	}
	return 0;
}

/* d's ring holds [lo, hi) (span PSNs): grown, or, past the cap, the older
 * half of d's own requests dropped (counted).  0, or -1: psn not kept. */
static int q_room(struct roce_rtt *r, struct dq *q, struct roce_seq_dir *d, uint32_t psn)
{
	uint32_t lo = q->n && pdiff(psn, d->rtt_low) > 0 ? d->rtt_low : psn;
	uint32_t hi = q->n && pdiff(q->hi, psn) > 0 ? q->hi : (psn + 1) & PSN_MASK;
	uint32_t span = (uint32_t)pdiff(hi, lo), cap = q->e ? q->mask + 1 : 0, nc;
	struct ent *ne;

	if (span <= cap) {
		d->rtt_low = lo;
		q->hi = hi;
		return 0;
	}
	for (nc = cap ? cap : 1; nc < span; nc *= 2)
		;
	if (nc > (1u << 23) || q_budget(r, (uint32_t)(q - r->dq), (uint64_t)(nc - cap) * sizeof(struct ent)) ||
	    !(ne = ring_alloc(r, nc))) {
		/* no room to grow: the older half of this direction goes */
		if (!cap || pdiff(psn, d->rtt_low) < 0)
			return -1;
		q_clear_to(r, q, d, (psn + 1 - cap / 2) & PSN_MASK, 1);
		q->hi = (psn + 1) & PSN_MASK;
		if (pdiff(q->hi, d->rtt_low) > (int32_t)cap)
			d->rtt_low = (q->hi - cap) & PSN_MASK;
		return 0;
	}
	for (uint32_t i = 0; i < cap && q->n; i++)
		if (q->e[i].pk)
			ne[q->e[i].pk & (nc - 1) & PSN_MASK] = q->e[i];
	r->ring_bytes += (uint64_t)(nc - cap) * sizeof(struct ent);
	ring_free(r, q->e, cap);
	q->e = ne;
	q->mask = nc - 1;
	d->rtt_low = lo;
	q->hi = hi;
	note_peak(r);
	return 0;
}

/* d's ring, its id given on d's first request.  NULL: ids or memory spent. */
static struct dq *q_of(struct roce_rtt *r, struct roce_seq_dir *d)
{
	if (!d->rtt_id) {
		uint32_t id;

		if (r->free_ids) {
			id = r->free_ids;
			r->free_ids = r->dq[id].hi;
		} else {
			if (r->ndq >= (1u << 31))
				return NULL;          /* ids spent: no more directions */
			if (r->ndq == r->dqcap) {
				uint32_t nc = r->dqcap * 2;
				struct dq *n = realloc(r->dq, nc * sizeof *n);

				if (!n)
					return NULL;
				r->dq = n;
				r->dqcap = nc;
			}
			id = r->ndq++;
		}
		memset(&r->dq[id], 0, sizeof r->dq[id]);
		d->rtt_id = id;
	}
	return &r->dq[d->rtt_id];
}

/* ---- histograms --------------------------------------------------------------------- */

unsigned roce_rtt_bucket(uint64_t ns)
{
	unsigned e;

	if (ns < 128)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	return (e - 6) * 128 + (unsigned)((ns >> (e - 7)) & 127);
}

uint64_t roce_rtt_bucket_lo(unsigned b)
{
	unsigned e;

	if (b < 128)
		return b;
	e = b / 128 + 6;
	return (uint64_t)(128 + b % 128) << (e - 7);
}

uint64_t roce_rtt_bucket_width(unsigned b)
{
	return b < 256 ? 1 : 1ull << (b / 128 + 6 - 7);
}

static uint32_t map_slot(const struct roce_rtt *r, uint32_t key)
{
	uint32_t i = mix(key, 0x5bd1e995u) & r->mmask;

	while (r->map[i] && r->map[i]->key != key)
		i = (i + 1) & r->mmask;
	return i;
}

static void map_del_at(struct roce_rtt *r, uint32_t i)
{
	uint32_t j = i;

	r->hist_bytes -= sizeof(struct hist) + (uint64_t)r->map[i]->cap * sizeof(struct hbin);
	free(r->map[i]);
	r->map[i] = NULL;
	r->mn--;
	for (;;) {
		uint32_t home;

		j = (j + 1) & r->mmask;
		if (!r->map[j])
			return;
		home = mix(r->map[j]->key, 0x5bd1e995u) & r->mmask;
		if (((j - home) & r->mmask) >= ((j - i) & r->mmask)) {
			r->map[i] = r->map[j];
			r->map[j] = NULL;
			i = j;
		}
	}
}

static int map_grow(struct roce_rtt *r)
{
	uint32_t ns = (r->mmask + 1) * 2, om = r->mmask;
	struct hist **old = r->map, **n = calloc(ns, sizeof *n);

	if (!n)
		return -1;
	r->map = n;
	r->mmask = ns - 1;
	for (uint32_t i = 0; i <= om; i++)
		if (old[i])
			r->map[map_slot(r, old[i]->key)] = old[i];
	free(old);
	return 0;
}

/* Frees the least recently updated of a few histograms, never `keep`. */
static void hist_evict_one(struct roce_rtt *r, uint32_t keep)
{
	uint32_t best = UINT32_MAX, seen = 0;

	for (uint32_t k = 0; k <= r->mmask && seen < EVICT_CANDIDATES; k++) {
		uint32_t i = (r->hand + k) & r->mmask;

		if (!r->map[i] || r->map[i]->key == keep)
			continue;
		seen++;
		if (best == UINT32_MAX || r->map[i]->last < r->map[best]->last)
			best = i;
	}
	if (best == UINT32_MAX)
		return;
	r->hand = best + 1;
	map_del_at(r, best);
	r->hist_evicted++;
}

/* The histogram for key, created when fresh (a direction that had samples
 * before and none now lost it to the cap: NULL). */
static struct hist *hist_get(struct roce_rtt *r, uint32_t key, int fresh)
{
	uint32_t i = map_slot(r, key);
	struct hist *h;

	if (r->map[i] || !fresh)
		return r->map[i];
	if ((r->mn + 1) * 2 > r->mmask + 1) {
		if (map_grow(r))
			return NULL;
		i = map_slot(r, key);
	}
	h = calloc(1, sizeof *h + 4 * sizeof(struct hbin));
	if (!h)
		return NULL;
	h->key = key;
	h->cap = 4;
	r->map[i] = h;
	r->mn++;
	r->hist_bytes += sizeof *h + 4 * sizeof(struct hbin);
	return h;
}

static void hist_add(struct roce_rtt *r, uint32_t key, int fresh, uint64_t ns)
{
	struct hist *h = hist_get(r, key, fresh);
	unsigned b = roce_rtt_bucket(ns);
	uint32_t lo = 0, hi, i;

	if (!h)
		return;
	h->last = ++r->tick;
	if (ns % 1000)
		h->sub_us = 1;
	hi = h->nb;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (h->bin[mid].b < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->nb && h->bin[lo].b == b) {
		h->bin[lo].cnt++;
		return;
	}
	if (h->nb == h->cap) {
		uint32_t oc = h->cap, nc = oc * 2, slot = map_slot(r, key);
		struct hist *n = realloc(h, sizeof *h + nc * sizeof(struct hbin));

		if (!n)
			return;
		r->hist_bytes += (uint64_t)(nc - oc) * sizeof(struct hbin);
		h = r->map[slot] = n;
		h->cap = nc;
	}
	i = lo;
	memmove(&h->bin[i + 1], &h->bin[i], (h->nb - i) * sizeof h->bin[0]);
	h->bin[i].b = (uint16_t)b;
	h->bin[i].cnt = 1;
	h->nb++;
	note_peak(r);
	while (mem_now(r) > r->cap && r->mn > 1)
		hist_evict_one(r, key);
}

/* ---- packets ------------------------------------------------------------------------- */

static void sample(struct roce_rtt *r, struct roce_seq_dir *d, enum roce_rtt_which w, uint64_t ns,
		   uint32_t psn, struct roce_seq_verdict *v)
{
	struct roce_rtt_stat *s = w == ROCE_RTT_READ ? &d->read_rtt : &d->rtt;

	hist_add(r, d->rtt_id << 1 | (uint32_t)w, s->n == 0, ns);
	if (!s->n || ns < s->min_ns)
		s->min_ns = ns;
	if (!s->n || ns > s->max_ns)
		s->max_ns = ns;
	s->n++;
	s->sum_ns += ns;
	v->flags |= w == ROCE_RTT_READ ? ROCE_SEQ_V_READ_RTT : ROCE_SEQ_V_RTT;
	v->rtt_ns = ns;
	v->rtt_us = ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000);
	v->acked_psn = psn;
}

/* Every request before `end` is answered: out of the ring, unsampled. */
static void sweep(struct roce_rtt *r, struct roce_seq_dir *d, uint32_t end)
{
	q_clear_to(r, &r->dq[d->rtt_id], d, end, 0);
}

static void on_request(struct roce_rtt *r, struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts,
		       const struct roce_seq_verdict *v)
{
	const struct roce_opinfo *oi = roce__opinfo(p->opcode);
	uint32_t psn = p->psn & PSN_MASK;
	struct dq *q = q_of(r, d);
	struct ent *e;

	if (!q)
		return;
	if ((e = q_find(q, d, psn))) {
		q_del(r, q, e);               /* sent twice: Karn */
		return;
	}
	if (v->flags & ROCE_SEQ_V_RETRANS)
		return;                       /* sent before and answered already */
	if (q_room(r, q, d, psn))
		return;
	e = &q->e[psn & q->mask];
	e->ts = ts;
	e->pk = (oi && oi->kind == ROCE_OK_READ_REQ ? K_READ : K_ACK) << 24 | psn;
	q->n++;
	r->tn++;
}

/* The request psn of kind k answered at ts: its sample, if it waits. */
static void answer(struct roce_rtt *r, struct roce_seq_dir *d, uint32_t psn, uint32_t k, uint64_t ts,
		   struct roce_seq_verdict *v)
{
	struct dq *q = &r->dq[d->rtt_id];
	struct ent *e = q_find(q, d, psn);
	uint64_t t0;

	if (!e || e->pk >> 24 != k)
		return;
	t0 = e->ts;
	q_del(r, q, e);
	if (ts >= t0)
		sample(r, d, k == K_READ ? ROCE_RTT_READ : ROCE_RTT_ACK, ts - t0, psn, v);
}

void roce_rtt_packet(struct roce_rtt *r, struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts,
		     struct roce_seq_verdict *v)
{
	uint32_t psn = p->psn & PSN_MASK;
	uint8_t op = p->opcode & 0x1f;

	if (!r || !d || (v->flags & ROCE_SEQ_V_ICRC_BAD))
		return;
	if (v->flags & ROCE_SEQ_V_REQUEST) {
		on_request(r, d, p, ts, v);
		return;
	}
	if (!(v->flags & ROCE_SEQ_V_RESPONSE) || !d->rtt_id)
		return;
	if (op == ROCE_OP_ACK || op == ROCE_OP_ATOMIC_ACK) {
		if (v->flags & ROCE_SEQ_V_ACK) {
			answer(r, d, psn, K_ACK, ts, v);
			sweep(r, d, psn);     /* a READ waiting at psn stays */
		} else if (v->flags & (ROCE_SEQ_V_NAK | ROCE_SEQ_V_RNR_NAK)) {
			sweep(r, d, psn);     /* what precedes the NAKed PSN was taken */
		}
		return;
	}
	if (op == ROCE_OP_READ_RESP_FIRST || op == ROCE_OP_READ_RESP_ONLY)
		answer(r, d, psn, K_READ, ts, v);
	if (op == ROCE_OP_READ_RESP_LAST || op == ROCE_OP_READ_RESP_ONLY)
		sweep(r, d, (psn + 1) & PSN_MASK);
}

void roce_rtt_drop(struct roce_rtt *r, struct roce_seq_dir *d)
{
	if (!r || !d->rtt_id)
		return;
	for (uint32_t w = 0; w < 2; w++) {
		uint32_t i = map_slot(r, d->rtt_id << 1 | w);

		if (r->map[i])
			map_del_at(r, i);
	}
	q_release(r, &r->dq[d->rtt_id], 0);
	r->dq[d->rtt_id].hi = r->free_ids;
	r->free_ids = d->rtt_id;
	d->rtt_id = 0;
}

/* ---- reading ---------------------------------------------------------------------------- */

static const struct hist *hist_of(const struct roce_rtt *r, const struct roce_seq_dir *d, enum roce_rtt_which w)
{
	if (!r || !d->rtt_id || !roce_rtt_stat(d, w)->n)
		return NULL;
	return r->map[map_slot(r, d->rtt_id << 1 | (uint32_t)w)];
}

int roce_rtt_quantile(const struct roce_rtt *r, const struct roce_seq_dir *d, enum roce_rtt_which w, double q,
		      uint64_t *ns)
{
	const struct roce_rtt_stat *s = roce_rtt_stat(d, w);
	const struct hist *h = hist_of(r, d, w);
	uint64_t rank, acc = 0, v;

	if (!h)
		return -1;
	rank = (uint64_t)(q * s->n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank == 1 || q <= 0) {
		*ns = s->min_ns;
		return 0;
	}
	if (rank >= s->n) {
		*ns = s->max_ns;
		return 0;
	}
	for (uint32_t i = 0; i < h->nb; i++) {
		acc += h->bin[i].cnt;
		if (acc < rank)
			continue;
		v = roce_rtt_bucket_lo(h->bin[i].b) + roce_rtt_bucket_width(h->bin[i].b) / 2;
		if (!h->sub_us)
			v = (v + 500) / 1000 * 1000;
		*ns = v < s->min_ns ? s->min_ns : v > s->max_ns ? s->max_ns : v;
		return 0;
	}
	*ns = s->max_ns;
	return 0;
}

int64_t roce_rtt_count_le(const struct roce_rtt *r, const struct roce_seq_dir *d, enum roce_rtt_which w,
			  uint64_t le_ns)
{
	const struct hist *h = hist_of(r, d, w);
	int64_t n = 0;

	if (!h)
		return -1;
	for (uint32_t i = 0; i < h->nb && roce_rtt_bucket_lo(h->bin[i].b) <= le_ns; i++)
		n += h->bin[i].cnt;
	return n;
}

void roce_rtt_totals(const struct roce_rtt *r, struct roce_rtt_totals *t)
{
	memset(t, 0, sizeof *t);
	if (!r)
		return;
	t->outstanding = r->tn;
	t->requests_evicted = r->req_evicted;
	t->histograms = r->mn;
	t->histograms_evicted = r->hist_evicted;
	t->mem_bytes = mem_now(r);
	t->mem_peak = r->peak;
	t->mem_cap = r->cap;
}
