/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob.c — ibv_rc_pingpong's and perftest's out-of-band exchanges (oob.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "oob.h"

/* ---- TCP ---------------------------------------------------------------------- */

static socklen_t peer_addr(const struct sess *s, const uint8_t *ip, uint16_t port,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (s->ipver == 4) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		memcpy(&a->sin_addr, ip, 4);
		return sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		memcpy(&a->sin6_addr, ip, 16);
		if (ip[0] == 0xfe && (ip[1] & 0xc0) == 0x80)
			a->sin6_scope_id = s->ii.ifindex;
		return sizeof(*a);
	}
}

static int tcp_socket(const struct sess *s)
{
	int fd = socket(s->ipver == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;

	if (fd < 0)
		return -1;
	/* the exchange goes out on the named interface only */
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, s->ii.name, (socklen_t)strlen(s->ii.name));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int oob_connect(struct sess *s, uint16_t port, int timeout_ms)
{
	struct sockaddr_storage ss;
	socklen_t sl = peer_addr(s, s->dst, port, &ss);
	uint64_t end = sess_now() + (uint64_t)timeout_ms * 1000000;
	int err = 0;

	for (;;) {
		int fd = tcp_socket(s), r;
		socklen_t el = sizeof(err);

		if (fd < 0) {
			fprintf(stderr, GEN_NAME ": socket: %s\n", strerror(errno));
			return -1;
		}
		r = connect(fd, (struct sockaddr *)&ss, sl);
		if (r < 0 && errno != EINPROGRESS) {
			err = errno;
		} else {
			uint64_t now = sess_now();
			int left = now < end ? (int)((end - now) / 1000000) + 1 : 1;

			r = sess_wait_fd(s, fd, POLLOUT, left);
			if (r < 0) {
				close(fd);
				return -1;
			}
			err = ETIMEDOUT;
			if (r > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && !err)
				return fd;
		}
		close(fd);
		if (sess_now() >= end || (err != ECONNREFUSED && err != EHOSTUNREACH && err != ETIMEDOUT))
			break;
		/* the peer's server may not be listening yet */
		if (sess_wait_fd(s, -1, 0, 200) < 0)
			return -1;
	}
	fprintf(stderr, GEN_NAME ": cannot connect to the peer's port %u: %s\n", port, strerror(err));
	return -1;
}

int oob_listen(struct sess *s, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t sl = peer_addr(s, s->src, port, &ss);
	int fd = tcp_socket(s), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 4)) {
		fprintf(stderr, GEN_NAME ": listen on port %u: %s\n", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int oob_accept(struct sess *s, int lfd, int timeout_ms)
{
	uint64_t end = timeout_ms >= 0 ? sess_now() + (uint64_t)timeout_ms * 1000000 : 0;

	for (;;) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int left = -1, r, fd;

		if (end) {
			uint64_t now = sess_now();

			if (now >= end)
				return 0;
			left = (int)((end - now) / 1000000) + 1;
		}
		r = sess_wait_fd(s, lfd, POLLIN, left);
		if (r <= 0)
			return r;
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			continue;
		/* only the peer may drive us */
		if ((ss.ss_family == AF_INET && s->ipver == 4 &&
		     !memcmp(&((struct sockaddr_in *)&ss)->sin_addr, s->dst, 4)) ||
		    (ss.ss_family == AF_INET6 && s->ipver == 6 &&
		     !memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, s->dst, 16))) {
			int one = 1;

			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			return fd;
		}
		close(fd);
	}
}

int oob_read(struct sess *s, int fd, void *buf, size_t n, int timeout_ms)
{
	uint8_t *p = buf;
	size_t got = 0;
	uint64_t end = sess_now() + (uint64_t)timeout_ms * 1000000;

	while (got < n) {
		ssize_t r = recv(fd, p + got, n - got, 0);

		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0) {
			fprintf(stderr, GEN_NAME ": the peer closed the out-of-band connection (%zu of %zu bytes)\n",
				got, n);
			return -1;
		}
		if (errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, GEN_NAME ": out-of-band read: %s\n", strerror(errno));
			return -1;
		}
		{
			uint64_t now = sess_now();
			int rr;

			if (now >= end) {
				fprintf(stderr, GEN_NAME ": out-of-band read: no answer from the peer\n");
				return -1;
			}
			rr = sess_wait_fd(s, fd, POLLIN, (int)((end - now) / 1000000) + 1);
			if (rr < 0)
				return -1;
		}
	}
	return 0;
}

int oob_peek(struct sess *s, int fd, uint8_t *c, int timeout_ms)
{
	uint64_t end = sess_now() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		ssize_t r = recv(fd, c, 1, MSG_PEEK);
		uint64_t now;

		if (r == 1)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		now = sess_now();
		if (now >= end) {
			fprintf(stderr, GEN_NAME ": out-of-band read: no answer from the peer\n");
			return -1;
		}
		if (sess_wait_fd(s, fd, POLLIN, (int)((end - now) / 1000000) + 1) < 0)
			return -1;
	}
}

int oob_write(struct sess *s, int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	size_t put = 0;

	while (put < n) {
		ssize_t r = send(fd, p + put, n - put, MSG_NOSIGNAL);

		if (r > 0) {
			put += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (sess_wait_fd(s, fd, POLLOUT, 10000) <= 0)
				return -1;
			continue;
		}
		fprintf(stderr, GEN_NAME ": out-of-band write: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- formats ---------------------------------------------------------------------- */

void oob_gid_v4mapped(uint8_t gid[16], const uint8_t ip4[4])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, ip4, 4);
}

void oob_pp_format(char out[OOB_PP_LEN], const struct oob_dest *d)
{
	char g[33];

	for (int i = 0; i < 16; i++)
		snprintf(g + 2 * i, 3, "%02x", d->gid[i]);
	memset(out, 0, OOB_PP_LEN);
	snprintf(out, OOB_PP_LEN, "%04x:%06x:%06x:%s", d->lid & 0xffff, d->qpn & 0xffffff,
		 d->psn & 0xffffff, g);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int oob_pp_parse(const char *msg, size_t len, struct oob_dest *d)
{
	char m[OOB_PP_LEN + 1], g[40];
	unsigned lid, qpn, psn;

	if (len > OOB_PP_LEN)
		len = OOB_PP_LEN;
	memcpy(m, msg, len);
	m[len] = 0;
	memset(d, 0, sizeof(*d));
	if (sscanf(m, "%x:%x:%x:%39s", &lid, &qpn, &psn, g) != 4 || strlen(g) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		int hi = hexval(g[2 * i]), lo = hexval(g[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		d->gid[i] = (uint8_t)(hi << 4 | lo);
	}
	d->lid = lid;
	d->qpn = qpn & 0xffffff;
	d->psn = psn & 0xffffff;
	return 0;
}

void oob_pt_format(char out[OOB_PT_KEYS_LEN], const struct oob_dest *d)
{
	size_t n;

	memset(out, 0, OOB_PT_KEYS_LEN);
	n = (size_t)snprintf(out, OOB_PT_KEYS_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:",
			     d->lid & 0xffff, d->out_reads & 0xffff, d->qpn & 0xffffff,
			     d->psn & 0xffffff, d->rkey, (unsigned long long)d->va);
	for (int i = 0; i < 16; i++)
		n += (size_t)snprintf(out + n, OOB_PT_KEYS_LEN - n, "%02x:", d->gid[i]);
	snprintf(out + n, OOB_PT_KEYS_LEN - n, "%08x:", d->srqn);
}

int oob_pt_parse(const char *msg, size_t len, struct oob_dest *d)
{
	char m[OOB_PT_KEYS_LEN + 1], *save = NULL, *t;
	uint64_t v[23];
	int k = 0;

	if (len > OOB_PT_KEYS_LEN)
		len = OOB_PT_KEYS_LEN;
	memcpy(m, msg, len);
	m[len] = 0;
	for (t = strtok_r(m, ":", &save); t && k < 23; t = strtok_r(NULL, ":", &save)) {
		char *end;

		errno = 0;
		v[k++] = strtoull(t, &end, 16);
		if (errno || *end)
			return -1;
	}
	if (k != 23)
		return -1;
	memset(d, 0, sizeof(*d));
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2] & 0xffffff;
	d->psn = (uint32_t)v[3] & 0xffffff;
	d->rkey = (uint32_t)v[4];
	d->va = v[5];
	for (int i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)v[6 + i];
	d->srqn = (uint32_t)v[22];
	return 0;
}

static void be32w(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t be32r(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void be64w(uint8_t *p, uint64_t v)
{
	be32w(p, (uint32_t)(v >> 32));
	be32w(p + 4, (uint32_t)v);
}

static uint64_t be64r(const uint8_t *p)
{
	return (uint64_t)be32r(p) << 32 | be32r(p + 4);
}

void oob_pt_pack(uint8_t out[OOB_PT_DEST_LEN], const struct oob_dest *d)
{
	memset(out, 0, OOB_PT_DEST_LEN);
	be32w(out, d->lid);
	be32w(out + 4, d->out_reads);
	be32w(out + 8, d->qpn);
	be32w(out + 12, d->psn);
	be32w(out + 16, d->rkey);
	be64w(out + 24, d->va);
	memcpy(out + 32, d->gid, 16);
	be32w(out + 48, d->srqn);
	be32w(out + 52, (uint32_t)d->gid_index);
}

void oob_pt_unpack(const uint8_t in[OOB_PT_DEST_LEN], struct oob_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->lid = be32r(in);
	d->out_reads = be32r(in + 4);
	d->qpn = be32r(in + 8) & 0xffffff;
	d->psn = be32r(in + 12) & 0xffffff;
	d->rkey = be32r(in + 16);
	d->va = be64r(in + 24);
	memcpy(d->gid, in + 32, 16);
	d->srqn = be32r(in + 48);
	d->gid_index = (int32_t)be32r(in + 52);
}

/* ---- the channel ------------------------------------------------------------------------ */

void oob_chan_tcp_init(struct oob_chan *c, struct sess *s, int fd, int client, int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->fd = fd;
	c->client = client;
	c->timeout_ms = timeout_ms;
}

int oob_chan_rc_init(struct oob_chan *c, struct sess *s, struct sess_qp *q, int client, int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->fd = -1;
	c->q = q;
	c->client = client;
	c->timeout_ms = timeout_ms;
	for (unsigned i = 0; i < OOB_CHAN_RBUFS; i++)
		if (roce_qp_post_recv(q->qp, i, c->rbuf[i], OOB_CHAN_MSG, sess_now()))
			return -1;
	return 0;
}

/* RC: takes the control QP's completions; -1 on an error completion. */
static int chan_reap(struct oob_chan *c, int *send_done)
{
	struct roce_wc wc;

	while (sess_qp_poll(c->q, &wc)) {
		if (wc.status != ROCE_WC_SUCCESS) {
			fprintf(stderr, GEN_NAME ": control QP: %s %s\n", wc.recv ? "receive" : "send",
				roce_wc_status_name(wc.status));
			return -1;
		}
		if (!wc.recv) {
			if (send_done)
				*send_done = 1;
			continue;
		}
		if (wc.wr_id < OOB_CHAN_RBUFS && c->in_tail - c->in_head < OOB_CHAN_RBUFS) {
			unsigned k = c->in_tail++ % OOB_CHAN_RBUFS;

			memcpy(c->inbox[k], c->rbuf[wc.wr_id], OOB_CHAN_MSG);
			c->inbox_len[k] = wc.byte_len;
			roce_qp_post_recv(c->q->qp, wc.wr_id, c->rbuf[wc.wr_id], OOB_CHAN_MSG, sess_now());
		}
	}
	return 0;
}

struct chan_wait {
	struct oob_chan *c;
	int send_done;
	int want_recv;
	int err;
};

static int chan_ready(void *ctx)
{
	struct chan_wait *w = ctx;

	if (chan_reap(w->c, &w->send_done)) {
		w->err = 1;
		return 1;
	}
	return w->want_recv ? w->c->in_tail != w->c->in_head : w->send_done;
}

int oob_chan_send(struct oob_chan *c, const void *buf, size_t len)
{
	struct roce_wr wr;
	struct chan_wait w = { c, 0, 0, 0 };
	int r;

	if (c->fd >= 0)
		return oob_write(c->s, c->fd, buf, len);
	if (len > OOB_CHAN_MSG)
		return -1;
	memcpy(c->sbuf, buf, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ++c->sends;
	wr.op = ROCE_WR_SEND;
	wr.buf = c->sbuf;
	wr.len = (uint32_t)len;
	if (roce_qp_post_send(c->q->qp, &wr, sess_now()))
		return -1;
	r = sess_run(c->s, chan_ready, &w, c->timeout_ms);
	if (r <= 0 || w.err) {
		if (!r)
			fprintf(stderr, GEN_NAME ": control QP: no ACK for our message\n");
		return -1;
	}
	return 0;
}

int oob_chan_recv(struct oob_chan *c, void *buf, size_t len, size_t *got)
{
	struct chan_wait w = { c, 0, 1, 0 };
	unsigned k;
	int r;

	if (c->fd >= 0) {
		if (got)
			*got = len;
		return oob_read(c->s, c->fd, buf, len, c->timeout_ms);
	}
	r = sess_run(c->s, chan_ready, &w, c->timeout_ms);
	if (r <= 0 || w.err) {
		if (!r)
			fprintf(stderr, GEN_NAME ": control QP: no message from the peer\n");
		return -1;
	}
	k = c->in_head++ % OOB_CHAN_RBUFS;
	memset(buf, 0, len);
	memcpy(buf, c->inbox[k], c->inbox_len[k] < len ? c->inbox_len[k] : len);
	if (got)
		*got = c->inbox_len[k];
	c->recvs++;
	return 0;
}

int oob_chan_xchg(struct oob_chan *c, const void *mine, size_t mlen, void *theirs, size_t tlen)
{
	if (c->client)
		return oob_chan_send(c, mine, mlen) || oob_chan_recv(c, theirs, tlen, NULL) ? -1 : 0;
	return oob_chan_recv(c, theirs, tlen, NULL) || oob_chan_send(c, mine, mlen) ? -1 : 0;
}

/* ---- perftest ----------------------------------------------------------------------------- */

int pt_hello(struct oob_chan *c, unsigned *mtu_enum, char peer_version[17])
{
	char ver[16], rver[16], mtu[2], rmtu[3];
	uint8_t word[4], rword[4];
	long rm;

	memset(ver, 0, sizeof(ver));
	memcpy(ver, OOB_PT_VERSION, strlen(OOB_PT_VERSION));
	if (oob_chan_xchg(c, ver, sizeof(ver), rver, sizeof(rver)))
		return -1;
	memcpy(peer_version, rver, 16);
	peer_version[16] = 0;
	be32w(word, 4096);          /* cycle buffer: the page size */
	if (oob_chan_xchg(c, word, 4, rword, 4))
		return -1;
	be32w(word, 64);            /* cache line */
	if (oob_chan_xchg(c, word, 4, rword, 4))
		return -1;
	mtu[0] = (char)('0' + *mtu_enum);
	mtu[1] = 0;
	memset(rmtu, 0, sizeof(rmtu));
	if (oob_chan_xchg(c, mtu, 2, rmtu, 2))
		return -1;
	rm = strtol(rmtu, NULL, 10);
	if (rm >= 1 && rm <= 5 && (unsigned)rm < *mtu_enum)
		*mtu_enum = (unsigned)rm;
	return 0;
}

int pt_keys(struct oob_chan *c, const struct oob_dest *mine, struct oob_dest *theirs)
{
	if (c->fd >= 0) {
		char m[OOB_PT_KEYS_LEN], t[OOB_PT_KEYS_LEN];

		oob_pt_format(m, mine);
		if (oob_chan_xchg(c, m, sizeof(m), t, sizeof(t)))
			return -1;
		if (oob_pt_parse(t, sizeof(t), theirs)) {
			fprintf(stderr, GEN_NAME ": perftest keys not understood: %.107s\n", t);
			return -1;
		}
	} else {
		uint8_t m[OOB_PT_DEST_LEN], t[OOB_PT_DEST_LEN];

		oob_pt_pack(m, mine);
		if (oob_chan_xchg(c, m, sizeof(m), t, sizeof(t)))
			return -1;
		oob_pt_unpack(t, theirs);
	}
	return 0;
}

static uint64_t dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

static double bitsd(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

int pt_results(struct oob_chan *c, const struct pt_result *mine, struct pt_result *theirs)
{
	uint64_t mv[5] = { mine->size, mine->iters, dbits(mine->bw_peak), dbits(mine->bw_avg),
			   dbits(mine->msg_rate) };
	uint64_t tv[5];

	for (int i = 0; i < 5; i++) {
		uint8_t m[8], t[8];

		be64w(m, mv[i]);
		if (oob_chan_xchg(c, m, 8, t, 8))
			return -1;
		tv[i] = be64r(t);
	}
	theirs->size = tv[0];
	theirs->iters = tv[1];
	theirs->bw_peak = bitsd(tv[2]);
	theirs->bw_avg = bitsd(tv[3]);
	theirs->msg_rate = bitsd(tv[4]);
	return 0;
}

int pt_done(struct oob_chan *c)
{
	char d[5];

	if (c->fd < 0)
		return 0;
	/* both sides write "done" and then read it, in either order */
	if (oob_write(c->s, c->fd, "done", 5) || oob_read(c->s, c->fd, d, 5, c->timeout_ms))
		return -1;
	return memcmp(d, "done", 5) ? -1 : 0;
}
