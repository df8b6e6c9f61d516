/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_ptchan.c — perftest's control channel over iWARP (iw_perftest.h):
 * each item a SEND, the client's first; the items are oob.h's.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include "iw_perftest.h"
#include "oob.h"

static void on_msg(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct iwpt_chan *c = ctx;

	(void)op;
	(void)inv;
	if (c->tail - c->head < IWPT_INBOX) {
		unsigned k = c->tail++ % IWPT_INBOX;

		memcpy(c->inbox[k], data, len < IWPT_MSG ? len : IWPT_MSG);
		c->inbox_len[k] = len;
	}
	iw_post_recv(w, c->rq, sizeof(c->rq));
}

void iwpt_chan_init(struct iwpt_chan *c, struct iw *w, int client, int timeout_s)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->client = client;
	c->timeout_s = timeout_s > 0 ? timeout_s : 30;
	w->ctx = c;
	w->on_send = on_msg;
	iw_post_recv(w, c->rq, sizeof(c->rq));
}

int iwpt_pump2(struct iw *a, struct iw *b, int ms)
{
	struct pollfd p[2] = { { .fd = a->eof ? -1 : a->fd, .events = POLLIN },
			       { .fd = b && !b->eof && b->fd >= 0 ? b->fd : -1, .events = POLLIN } };
	int r;

	if (a->eof || a->dead)
		return -1;
	r = poll(p, 2, ms);
	if (r < 0)
		return errno == EINTR && !gen_stop ? 0 : -1;
	if (p[1].revents && iw_pump(b, 0) < 0 && b->dead)
		return -1;
	if (p[0].revents)
		return iw_pump(a, 0);
	return 0;
}

static int chan_send(struct iwpt_chan *c, const void *buf, uint32_t len)
{
	c->sends++;
	return iw_post_send(c->w, ROCE_RDMAP_SEND, buf, len, 0);
}

/* The next message, at most len bytes (the rest zeroed). */
static int chan_recv(struct iwpt_chan *c, void *buf, uint32_t len)
{
	int idle = 0;

	while (c->head == c->tail) {
		int r = iwpt_pump2(c->w, c->other, 1000);

		if (r < 0 || c->w->dead || gen_stop) {
			if (!c->w->why[0])
				snprintf(c->w->why, sizeof(c->w->why), "the peer closed the control connection");
			return -1;
		}
		idle = r ? 0 : idle + 1;
		if (idle >= c->timeout_s) {
			snprintf(c->w->why, sizeof(c->w->why), "no control message from the peer");
			return -1;
		}
	}
	{
		unsigned k = c->head++ % IWPT_INBOX;
		uint32_t n = c->inbox_len[k] < len ? c->inbox_len[k] : len;

		memset(buf, 0, len);
		memcpy(buf, c->inbox[k], n);
	}
	c->recvs++;
	return 0;
}

int iwpt_xchg(struct iwpt_chan *c, const void *mine, uint32_t mlen, void *theirs, uint32_t tlen)
{
	if (c->client)
		return chan_send(c, mine, mlen) || chan_recv(c, theirs, tlen) ? -1 : 0;
	return chan_recv(c, theirs, tlen) || chan_send(c, mine, mlen) ? -1 : 0;
}

static void be32w(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint64_t be64r(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* version, cycle buffer, cache line, MTU (perftest's, as on siw: "3"). */
int iwpt_hello(struct iwpt_chan *c, char peer_version[17])
{
	char ver[16], rver[16], mtu[2] = { '3', 0 }, rmtu[2];
	uint8_t word[4], rword[4];

	memset(ver, 0, sizeof(ver));
	memcpy(ver, OOB_PT_VERSION, strlen(OOB_PT_VERSION));
	if (iwpt_xchg(c, ver, sizeof(ver), rver, sizeof(rver)))
		return -1;
	memcpy(peer_version, rver, 16);
	peer_version[16] = 0;
	be32w(word, 4096);
	if (iwpt_xchg(c, word, 4, rword, 4))
		return -1;
	be32w(word, 64);
	if (iwpt_xchg(c, word, 4, rword, 4))
		return -1;
	return iwpt_xchg(c, mtu, 2, rmtu, 2);
}

int iwpt_keys(struct iwpt_chan *c, uint32_t stag, uint64_t va, uint32_t out_reads, uint32_t psn,
	      uint32_t *peer_stag, uint64_t *peer_va)
{
	struct oob_dest me, peer;
	uint8_t m[IWPT_DEST_LEN], t[IWPT_DEST_LEN];

	memset(&me, 0, sizeof(me));
	me.out_reads = out_reads;
	me.qpn = 1;
	me.psn = psn & 0xffffff;
	me.rkey = stag;
	me.va = va;
	oob_pt_pack(m, &me);
	if (iwpt_xchg(c, m, sizeof(m), t, sizeof(t)))
		return -1;
	oob_pt_unpack(t, &peer);
	if (peer_stag)
		*peer_stag = peer.rkey;
	if (peer_va)
		*peer_va = peer.va;
	return 0;
}

int iwpt_zero_keys(struct iwpt_chan *c)
{
	uint8_t m[IWPT_DEST_LEN], t[IWPT_DEST_LEN];

	memset(m, 0, sizeof(m));
	return iwpt_xchg(c, m, sizeof(m), t, sizeof(t));
}

static uint64_t dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

int iwpt_results(struct iwpt_chan *c, const struct iwpt_result *mine, struct iwpt_result *theirs)
{
	uint64_t mv[5] = { mine->size, mine->iters, dbits(mine->bw_peak), dbits(mine->bw_avg),
			   dbits(mine->msg_rate) };
	uint64_t tv[5];

	for (int i = 0; i < 5; i++) {
		uint8_t m[8], t[8];

		be32w(m, (uint32_t)(mv[i] >> 32));
		be32w(m + 4, (uint32_t)mv[i]);
		if (iwpt_xchg(c, m, 8, t, 8))
			return -1;
		tv[i] = be64r(t);
	}
	theirs->size = tv[0];
	theirs->iters = tv[1];
	memcpy(&theirs->bw_peak, &tv[2], 8);
	memcpy(&theirs->bw_avg, &tv[3], 8);
	memcpy(&theirs->msg_rate, &tv[4], 8);
	return 0;
}
