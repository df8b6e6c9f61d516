/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtt.c — round-trip times of every RC request (see rtt.h for the rule).
 *
 * Two open-addressing tables with linear probing and backward-shift
 * deletion:
 *   tab  outstanding requests, key (direction id, PSN), 16 bytes a slot;
 *   map  histograms, key (direction id << 1 | which), a pointer a slot.
 * A histogram is a sorted array of (bucket, count) pairs.  Bucket b of a
 * value v in ns: v itself below 128, else with e = floor(log2 v):
 * (e - 6) * 128 + the 7 bits after the leading one.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "roce.h"
#include "rtt.h"

#define PSN_MASK 0xffffffu
#define K_ACK 1u                 /* answered by an ACK or ATOMIC ACK */
#define K_READ 2u                /* answered by a READ response */
#define SWEEP_MAX 4096           /* PSNs an answer clears at once (the rest age out) */
#define TAB_MIN 1024
#define MAP_MIN 64
#define EVICT_CANDIDATES 8

struct ent {
	uint32_t id;             /* 0: free */
	uint32_t pk;             /* kind << 24 | psn */
	uint64_t ts;             /* ns */
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
	struct ent *tab;
	uint32_t tmask, tn;      /* slots - 1, entries */
	struct hist **map;
	uint32_t mmask, mn;
	uint32_t next_id;
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
	return ((uint64_t)r->tmask + 1) * sizeof(struct ent) + ((uint64_t)r->mmask + 1) * sizeof(void *) +
	       r->hist_bytes;
}

static void note_peak(struct roce_rtt *r)
{
	uint64_t m = mem_now(r);

	if (m > r->peak)
		r->peak = m;
}

/* The table's memory.  Past 4 MiB it is mapped with transparent huge pages
 * asked for: a one-way flood (never answered) leaves millions of requests
 * outstanding, each lookup lands on a random 4 KiB page, and the page walks
 * of the TLB misses, not the probes (1.4 a request, 2.9 a lookup), were
 * most of the time: on 2 M frames of 16 QPs, 1.30-1.75 s of user time
 * before, 0.85-0.97 s after. */
#define TAB_HUGE (4u << 20)

static struct ent *tab_alloc(uint32_t nslots)
{
	size_t len = (size_t)nslots * sizeof(struct ent);
	void *p;

	if (len < TAB_HUGE)
		return calloc(nslots, sizeof(struct ent));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

static void tab_release(struct ent *t, uint32_t nslots)
{
	size_t len = (size_t)nslots * sizeof(struct ent);

	if (len < TAB_HUGE)
		free(t);
	else if (t)
		munmap(t, len);
}

struct roce_rtt *roce_rtt_new(uint64_t mem_cap)
{
	struct roce_rtt *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->cap = mem_cap ? mem_cap : ROCE_RTT_MEM_DEFAULT;
	r->tab = tab_alloc(TAB_MIN);
	r->map = calloc(MAP_MIN, sizeof *r->map);
	if (!r->tab || !r->map) {
		roce_rtt_free(r);
		return NULL;
	}
	r->tmask = TAB_MIN - 1;
	r->mmask = MAP_MIN - 1;
	r->next_id = 1;
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
	tab_release(r->tab, r->tmask + 1);
	free(r);
}

/* ---- outstanding requests --------------------------------------------------------- */

/* A request's home slot.  (Eight consecutive PSNs sharing a run of eight
 * slots, for locality, made the probes 5 times longer: linear probing
 * clusters on such runs.) */
static inline uint32_t home(uint32_t id, uint32_t psn, uint32_t mask)
{
	return mix(id, psn) & mask;
}

static uint32_t tab_find(const struct roce_rtt *r, uint32_t id, uint32_t psn)
{
	uint32_t i = home(id, psn, r->tmask);

	for (; r->tab[i].id; i = (i + 1) & r->tmask)
		if (r->tab[i].id == id && (r->tab[i].pk & PSN_MASK) == psn)
			return i;
	return UINT32_MAX;
}


static void tab_put(struct ent *t, uint32_t mask, const struct ent *e)
{
	uint32_t i = home(e->id, e->pk & PSN_MASK, mask);

	while (t[i].id)
		i = (i + 1) & mask;
	t[i] = *e;
}

static void tab_del_at(struct roce_rtt *r, uint32_t i)
{
	uint32_t j = i;

	r->tab[i].id = 0;
	r->tn--;
	for (;;) {
		uint32_t h;

		j = (j + 1) & r->tmask;
		if (!r->tab[j].id)
			return;
		h = home(r->tab[j].id, r->tab[j].pk & PSN_MASK, r->tmask);
		/* move j back into the hole at i unless its home lies in (i, j] */
		if (((j - h) & r->tmask) >= ((j - i) & r->tmask)) {
			r->tab[i] = r->tab[j];
			r->tab[j].id = 0;
			i = j;
		}
	}
}

static void tab_del(struct roce_rtt *r, uint32_t id, uint32_t psn)
{
	uint32_t i = tab_find(r, id, psn);

	if (i != UINT32_MAX)
		tab_del_at(r, i);
}

/* Rebuilds into nslots slots; with purge, only entries newer than keep_after stay. */
static int tab_rebuild(struct roce_rtt *r, uint32_t nslots, int purge, uint64_t keep_after)
{
	struct ent *n = tab_alloc(nslots);
	uint32_t kept = 0;

	if (!n)
		return -1;
	for (uint32_t i = 0; i <= r->tmask; i++) {
		if (!r->tab[i].id)
			continue;
		if (purge && r->tab[i].ts <= keep_after) {
			r->req_evicted++;
			continue;
		}
		tab_put(n, nslots - 1, &r->tab[i]);
		kept++;
	}
	tab_release(r->tab, r->tmask + 1);
	r->tab = n;
	r->tmask = nslots - 1;
	r->tn = kept;
	note_peak(r);
	return 0;
}

/* Room for one more: grow while the table may take a quarter of the cap,
 * else drop the older half (by time) of what is outstanding. */
static int tab_room(struct roce_rtt *r, uint64_t now)
{
	uint64_t slots = (uint64_t)r->tmask + 1, lo = UINT64_MAX;

	if ((uint64_t)(r->tn + 1) * 4 <= slots * 3)
		return 0;
	if (slots * 2 * sizeof(struct ent) <= r->cap / 4 && slots < (1u << 31))
		return tab_rebuild(r, (uint32_t)slots * 2, 0, 0);
	for (uint32_t i = 0; i <= r->tmask; i++)
		if (r->tab[i].id && r->tab[i].ts < lo)
			lo = r->tab[i].ts;
	if (lo > now)
		lo = now;
	if (tab_rebuild(r, (uint32_t)slots, 1, lo + (now - lo) / 2))
		return -1;
	if ((uint64_t)(r->tn + 1) * 4 > slots * 3)   /* all of the same age: all go */
		return tab_rebuild(r, (uint32_t)slots, 1, UINT64_MAX);
	return 0;
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

/* Every request before `end` is answered: out of the table, unsampled. */
static void sweep(struct roce_rtt *r, struct roce_seq_dir *d, uint32_t end)
{
	int32_t n = pdiff(end, d->rtt_low);

	if (n <= 0)
		return;
	if (n <= SWEEP_MAX)
		for (int32_t k = 0; k < n && r->tn; k++)
			tab_del(r, d->rtt_id, (d->rtt_low + (uint32_t)k) & PSN_MASK);
	d->rtt_low = end;
}

static void on_request(struct roce_rtt *r, struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts,
		       const struct roce_seq_verdict *v)
{
	const struct roce_opinfo *oi = roce_opcode_info(p->opcode);
	uint32_t psn = p->psn & PSN_MASK, i;
	struct ent e;

	if (!d->rtt_id) {
		if (r->next_id >= (1u << 31))
			return;               /* ids spent: no more directions */
		d->rtt_id = r->next_id++;
		d->rtt_low = psn;
	}
	i = tab_find(r, d->rtt_id, psn);
	if (i != UINT32_MAX) {
		tab_del_at(r, i);             /* sent twice: Karn */
		return;
	}
	if (v->flags & ROCE_SEQ_V_RETRANS)
		return;                       /* sent before and answered already */
	if (pdiff(psn, d->rtt_low) < 0)
		d->rtt_low = psn;
	if (tab_room(r, ts))
		return;
	e.id = d->rtt_id;
	e.pk = (oi && oi->kind == ROCE_OK_READ_REQ ? K_READ : K_ACK) << 24 | psn;
	e.ts = ts;
	tab_put(r->tab, r->tmask, &e);
	r->tn++;
}

/* The request psn of kind k answered at ts: its sample, if it waits. */
static void answer(struct roce_rtt *r, struct roce_seq_dir *d, uint32_t psn, uint32_t k, uint64_t ts,
		   struct roce_seq_verdict *v)
{
	uint32_t i = tab_find(r, d->rtt_id, psn);
	uint64_t t0;

	if (i == UINT32_MAX || r->tab[i].pk >> 24 != k)
		return;
	t0 = r->tab[i].ts;
	tab_del_at(r, i);
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
