/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwstream.c — the per-connection MPA streams of iwstream.h: a hash table of
 * at most max_conns connections with an LRU list, each holding two paired
 * struct roce_mpa_stream and their reassembly buffers.
 */
#include <stdlib.h>
#include <string.h>
#include "iwstream.h"

/* version, then the two endpoints (address 16, port 2), lower one first */
#define IW_KEY_LEN 37
#define IW_NIL 0u                        /* links are index + 1 */

struct iwconn {
	uint8_t key[IW_KEY_LEN];
	uint8_t in_use;
	uint32_t hnext;                   /* hash chain */
	uint32_t newer, older;            /* LRU list */
	struct roce_mpa_stream st[2];     /* [0]: from the lower endpoint */
	uint8_t *buf;                     /* 2 x ROCE_MPA_FPDU_MAX, kept when the slot is reused */
};

struct iwstream {
	struct iwconn *c;
	unsigned max, used;
	uint32_t *bucket;
	uint32_t mask;
	uint32_t newest, oldest;
	const struct iwstream_cb *cur;    /* callbacks of the iwstream_packet() call running */
	struct iwstream_stats st;
};

static void iw_on_fpdu(void *ctx, const struct roce_mpa_stream_fpdu *f)
{
	struct iwstream *t = ctx;

	if (t->cur && t->cur->fpdu)
		t->cur->fpdu(t->cur->ctx, f);
}

static void iw_on_event(void *ctx, const struct roce_mpa_event *e)
{
	struct iwstream *t = ctx;

	if (t->cur && t->cur->event)
		t->cur->event(t->cur->ctx, e);
}

struct iwstream *iwstream_new(unsigned max_conns)
{
	struct iwstream *t = calloc(1, sizeof(*t));
	uint32_t nb = 16;

	if (!t)
		return NULL;
	t->max = max_conns ? max_conns : IWSTREAM_DEFAULT_CONNS;
	while (nb < 2 * t->max && nb < (1u << 24))
		nb <<= 1;
	t->mask = nb - 1;
	t->c = calloc(t->max, sizeof(*t->c));
	t->bucket = calloc(nb, sizeof(*t->bucket));
	if (!t->c || !t->bucket) {
		iwstream_free(t);
		return NULL;
	}
	t->st.max_conns = t->max;
	return t;
}

void iwstream_free(struct iwstream *t)
{
	if (!t)
		return;
	if (t->c)
		for (unsigned i = 0; i < t->used; i++)
			free(t->c[i].buf);
	free(t->c);
	free(t->bucket);
	free(t);
}

void iwstream_get_stats(const struct iwstream *t, struct iwstream_stats *st)
{
	*st = t->st;
}

static uint32_t iw_hash(const uint8_t *k)
{
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < IW_KEY_LEN; i++)
		h = (h ^ k[i]) * 16777619u;
	return h;
}

/* The connection key of a TCP frame and which side sent it; 0 when the
 * addresses or ports were not captured. */
static int iw_make_key(const struct roce_pkt *p, uint8_t *k, uint8_t *dir)
{
	uint8_t a[18], b[18];
	const uint8_t *sa, *da;
	int alen = roce_pkt_addrs(p, &sa, &da);

	if (!alen || !(p->present & ROCE_LBIT(ROCE_L_TCP)))
		return 0;
	memset(a, 0, sizeof a);
	memset(b, 0, sizeof b);
	memcpy(a, sa, (size_t)alen);
	memcpy(b, da, (size_t)alen);
	a[16] = (uint8_t)(p->sport >> 8);
	a[17] = (uint8_t)p->sport;
	b[16] = (uint8_t)(p->dport >> 8);
	b[17] = (uint8_t)p->dport;
	k[0] = p->ip_version;
	*dir = memcmp(a, b, sizeof a) > 0;
	memcpy(k + 1, *dir ? b : a, 18);
	memcpy(k + 19, *dir ? a : b, 18);
	return 1;
}

static struct iwconn *iw_lookup(struct iwstream *t, const uint8_t *k, uint32_t h)
{
	for (uint32_t i = t->bucket[h & t->mask]; i != IW_NIL; i = t->c[i - 1].hnext)
		if (!memcmp(t->c[i - 1].key, k, IW_KEY_LEN))
			return &t->c[i - 1];
	return NULL;
}

static uint32_t iw_idx(const struct iwstream *t, const struct iwconn *c)
{
	return (uint32_t)(c - t->c) + 1;
}

static void iw_lru_unlink(struct iwstream *t, struct iwconn *c)
{
	if (c->newer)
		t->c[c->newer - 1].older = c->older;
	else
		t->newest = c->older;
	if (c->older)
		t->c[c->older - 1].newer = c->newer;
	else
		t->oldest = c->newer;
	c->newer = c->older = IW_NIL;
}

static void iw_lru_front(struct iwstream *t, struct iwconn *c)
{
	uint32_t i = iw_idx(t, c);

	c->older = t->newest;
	c->newer = IW_NIL;
	if (t->newest)
		t->c[t->newest - 1].newer = i;
	t->newest = i;
	if (!t->oldest)
		t->oldest = i;
}

static void iw_touch(struct iwstream *t, struct iwconn *c)
{
	if (t->newest != iw_idx(t, c)) {
		iw_lru_unlink(t, c);
		iw_lru_front(t, c);
	}
}

/* Takes c out of the table (its slot and buffers stay for reuse). */
static void iw_forget(struct iwstream *t, struct iwconn *c)
{
	uint32_t *pp = &t->bucket[iw_hash(c->key) & t->mask], i = iw_idx(t, c);

	while (*pp != IW_NIL && *pp != i)
		pp = &t->c[*pp - 1].hnext;
	if (*pp == i)
		*pp = c->hnext;
	c->hnext = IW_NIL;
	iw_lru_unlink(t, c);
	c->in_use = 0;
	t->st.active--;
}

static struct iwconn *iw_create(struct iwstream *t, const uint8_t *k, uint32_t h)
{
	struct iwconn *c = NULL;

	/* a slot that was never used, one freed by a SYN, else the oldest connection */
	if (t->used < t->max) {
		c = &t->c[t->used];
		c->buf = malloc(2 * (size_t)ROCE_MPA_FPDU_MAX);
		if (!c->buf)
			return NULL;
		t->used++;
	} else {
		for (unsigned i = 0; i < t->used && !c; i++)
			if (!t->c[i].in_use)
				c = &t->c[i];
		if (!c) {
			c = &t->c[t->oldest - 1];
			iw_forget(t, c);
			t->st.evicted++;
		}
	}
	memcpy(c->key, k, IW_KEY_LEN);
	c->in_use = 1;
	c->hnext = t->bucket[h & t->mask];
	t->bucket[h & t->mask] = iw_idx(t, c);
	iw_lru_front(t, c);
	for (int d = 0; d < 2; d++)
		roce_mpa_stream_init(&c->st[d], c->buf + (size_t)d * ROCE_MPA_FPDU_MAX, ROCE_MPA_FPDU_MAX,
				     iw_on_fpdu, iw_on_event, t);
	roce_mpa_stream_pair(&c->st[0], &c->st[1]);
	t->st.conns++;
	t->st.active++;
	return c;
}

int iwstream_packet(struct iwstream *t, const struct roce_pkt *p, const struct iwstream_cb *cb,
		    struct iwstream_res *r)
{
	uint8_t k[IW_KEY_LEN], dir;
	struct roce_mpa_stream *s;
	struct roce_mpa_frame fr;
	struct iwconn *c;
	uint32_t h, off, len, old_seq, old_have;
	unsigned flags = 0;
	int old_open;

	memset(r, 0, sizeof(*r));
	if (!t || !iw_make_key(p, k, &dir))
		return 0;
	h = iw_hash(k);
	c = iw_lookup(t, k, h);
	if (c && (p->tcp_flags & ROCE_TCP_SYN)) {
		iw_forget(t, c);             /* a new connection on the same ports */
		t->st.reset++;
		c = NULL;
	}
	if (!c) {
		if (!p->mpa_off)
			return 0;
		c = iw_create(t, k, h);
		if (!c)
			return 0;
	} else {
		iw_touch(t, c);
	}
	r->tracked = 1;
	r->dir = dir;
	s = &c->st[dir];
	r->s = s;
	off = p->tcp_payload_off;
	len = p->tcp_payload_len;
	if (!off || !len || p->ip_frag || off >= p->caplen)
		return 1;
	if (len > p->caplen - off)
		len = p->caplen - off;  /* the rest was not captured: the stream will see a gap */
	/* An FPDU starts this segment: the decoder found one there (not an MPA
	 * frame), or its first bytes are a plausible FPDU header.  The stream
	 * takes the flag only when it is out of sync (first segment of a
	 * direction seen mid-stream, after a gap without markers to follow):
	 * Wireshark too starts again at the next segment after a hole. */
	if (roce_mpa_frame_parse(p->data + off, len, &fr) == 0 &&
	    ((p->mpa_off == off && p->ddp_off) ||
	     roce_mpa_fpdu_plausible(p->data + off, len, p->tcp_payload_len)))
		flags |= ROCE_MPA_SEG_FPDU_START;
	old_open = s->fpdu_open;
	old_seq = s->fpdu_seq;
	old_have = s->have;
	t->cur = cb;
	roce_mpa_stream_feed(s, p->tcp_seq, p->data + off, len, flags);
	t->cur = NULL;
	r->fed = 1;
	/* a resync candidate still being tried is not an FPDU yet */
	if (s->fpdu_open && roce_mpa_stream_in_sync(s) && (!old_open || old_seq != s->fpdu_seq || old_have != s->have)) {
		r->partial = 1;
		r->partial_seq = s->fpdu_seq;
		r->partial_have = s->have;
		r->partial_need = s->need;
	}
	return 1;
}
