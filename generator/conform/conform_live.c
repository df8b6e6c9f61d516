/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_live.c — the wire and the control channel of `rocegen conform`
 * against a real adapter: frames go out and come in on IFACE, and
 * rocetarget on the adapter's host takes the control lines (ctl.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "conform.h"
#include "gen.h"
#include "rx.h"
#include "tx.h"
#include "ctl.h"
#include "ctlauth.h"

#define LIVE_CONNECT_MS 10000   /* for rocetarget's TCP connection */

struct cf_live {
	struct tx *tx;
	struct rx *rx;
	int udp;
	int fd;
	char buf[CTL_LINE_MAX];
	size_t have;
	struct ctl_key key;   /* of --key, len 0 without */
	int broken;           /* the control channel failed (cf_live_broken) */
};

static uint64_t live_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);   /* the clock of pcap timestamps */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int live_send(void *ctx, const uint8_t *f, uint32_t len)
{
	struct cf_live *l = ctx;
	const uint8_t *fr[1] = { f };
	uint32_t ln[1] = { len };

	return tx_send_batch(l->tx, fr, ln, 1) == 1 ? 0 : -1;
}

static int live_recv(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *ts,
		     uint64_t deadline)
{
	struct cf_live *l = ctx;
	struct rx_frame f;

	for (;;) {
		uint64_t now = live_now(NULL);
		int ms, got;

		if (now >= deadline)
			ms = 0;
		else
			ms = (int)((deadline - now + 999999) / 1000000);
		got = rx_next(l->rx, &f, ms);
		if (got <= 0)
			return got;
		*len = f.caplen < cap ? f.caplen : cap;
		memcpy(buf, f.data, *len);
		*ts = (uint64_t)f.ts.tv_sec * 1000000000u + (uint64_t)f.ts.tv_usec * 1000u;
		return 1;
	}
}

/* The next line from rocetarget into rep (without '\n'), within 10 s; 0 when
 * it is an "ok" reply, else -1 (rep then says what came or why nothing). */
static int live_line(struct cf_live *l, char *rep, size_t cap)
{
	uint64_t end = live_now(NULL) + 10000000000ull;

	for (;;) {
		char *nl = memchr(l->buf, '\n', l->have);
		struct pollfd p = { l->fd, POLLIN, 0 };
		ssize_t r;

		if (nl) {
			size_t ln = (size_t)(nl - l->buf);

			snprintf(rep, cap, "%.*s", (int)ln, l->buf);
			memmove(l->buf, nl + 1, l->have - ln - 1);
			l->have -= ln + 1;
			return strncmp(rep, "ok", 2) ? -1 : 0;
		}
		if (l->have >= sizeof(l->buf) || live_now(NULL) > end ||
		    poll(&p, 1, 1000) < 0) {
			snprintf(rep, cap, "control channel: no reply");
			l->broken = 1;
			return -1;
		}
		if (!p.revents)
			continue;
		r = read(l->fd, l->buf + l->have, sizeof(l->buf) - l->have);
		if (r <= 0) {
			snprintf(rep, cap, "control channel closed");
			l->broken = 1;
			return -1;
		}
		l->have += (size_t)r;
	}
}

static int live_ctl(void *ctx, const char *req, char *rep, size_t cap)
{
	struct cf_live *l = ctx;
	size_t n = strlen(req);

	if (write(l->fd, req, n) != (ssize_t)n || write(l->fd, "\n", 1) != 1) {
		snprintf(rep, cap, "control channel: %s", strerror(errno));
		l->broken = 1;
		return -1;
	}
	return live_line(l, rep, cap);
}

/* rocetarget's challenge, answered with the key of --key (ctlauth.h); 0, or
 * -1 after one line saying why. */
static int live_auth(struct cf_live *l, const struct cf_live_args *a, const char *tgt)
{
	uint8_t nonce[CTL_AUTH_NONCE];
	char line[512], hexn[2 * CTL_AUTH_NONCE + 8], mac[CTL_AUTH_HEX];

	live_line(l, line, sizeof(line));
	if (strncmp(line, "auth hmac-sha256 ", 17) || !ctl_get(line, "nonce", hexn, sizeof(hexn)) ||
	    strlen(hexn) != 2 * CTL_AUTH_NONCE || ctl_unhex(hexn, nonce, sizeof(nonce)) != CTL_AUTH_NONCE) {
		fprintf(stderr, GEN_NAME " %s: rocetarget at %s: no challenge (%s)\n", a->cmd, tgt, line);
		return -1;
	}
	if (!l->key.len) {
		fprintf(stderr, GEN_NAME " %s: rocetarget at %s asks for the shared key: give --key FILE\n",
			a->cmd, tgt);
		return -1;
	}
	ctl_auth_mac(&l->key, nonce, mac);
	snprintf(line, sizeof(line), "auth mac=%s", mac);
	if (live_ctl(l, line, line, sizeof(line))) {
		fprintf(stderr, GEN_NAME " %s: rocetarget at %s refused us: %s\n", a->cmd, tgt, line);
		return -1;
	}
	return 0;
}

/* connect(2) given up after ms (a guest whose network stalled answers no SYN:
 * the kernel's own retries would take about two minutes); 0, or -1 */
static int connect_within(int fd, const struct sockaddr *sa, socklen_t len, int ms)
{
	int fl = fcntl(fd, F_GETFL), err = 0;
	socklen_t el = sizeof(err);
	struct pollfd p = { fd, POLLOUT, 0 };

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return -1;
	if (connect(fd, sa, len) && (errno != EINPROGRESS || poll(&p, 1, ms) != 1 ||
				     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err))
		return -1;
	return fcntl(fd, F_SETFL, fl) ? -1 : 0;
}

static int tcp_connect(const char *hostport)
{
	char host[256], *colon;
	const char *port = "7471";
	struct addrinfo hints, *ai, *a;
	int fd = -1, one = 1;

	snprintf(host, sizeof(host), "%.255s", hostport);
	colon = strrchr(host, ':');
	if (colon && !strchr(colon + 1, ']') && strchr(host, ':') == colon) {
		*colon = 0;
		port = colon + 1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd >= 0 && !connect_within(fd, a->ai_addr, a->ai_addrlen, LIVE_CONNECT_MS))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int mac_parse(const char *s, uint8_t m[6])
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

/* Our addresses and the DUT's, resolved as every rocegen mode does. */
static int live_addresses(struct cf *c, const struct cf_live_args *a)
{
	struct gen_opts o;

	memset(&o, 0, sizeof(o));
	o.iface = a->iface;
	if (inet_pton(AF_INET, a->peer, o.dst) != 1) {
		fprintf(stderr, GEN_NAME " conform: --peer %s: IPv4 only\n", a->peer);
		return -1;
	}
	o.dst_ver = o.peer_ver = 4;
	memcpy(o.peer, o.dst, 16);
	if (a->src) {
		if (inet_pton(AF_INET, a->src, o.src) != 1) {
			fprintf(stderr, GEN_NAME " conform: --src %s: not an IPv4 address\n", a->src);
			return -1;
		}
		o.src_ver = 4;
	}
	if (a->dmac) {
		if (mac_parse(a->dmac, o.dmac)) {
			fprintf(stderr, GEN_NAME " conform: --dmac %s: not a MAC address\n", a->dmac);
			return -1;
		}
		o.have_dmac = 1;
	}
	o.verbose = a->verbose;
	if (gen_resolve(&o, 1, 1))
		return -1;
	memcpy(c->eth.src, o.smac, 6);
	memcpy(c->eth.dst, o.dmac, 6);
	c->ip.version = 4;
	memcpy(c->ip.src, o.src, 4);
	memcpy(c->ip.dst, o.dst, 4);
	return 0;
}

/* The transmit and receive handles on IFACE, and a UDP socket on 4791. */
static int live_wire(struct cf_live *l, const struct cf *c, const char *iface)
{
	struct tx_cfg tc;
	struct rx_cfg rc;
	char err[RX_ERRLEN];
	struct sockaddr_in sa;

	memset(&tc, 0, sizeof(tc));
	tc.kind = TX_MMSG;
	tc.iface = iface;
	tc.use_guard = 1;
	tc.guard.ipver = 4;
	memcpy(tc.guard.ip, c->ip.dst, 4);
	tc.max_frame = 9216;
	if (!(l->tx = tx_open(&tc, err))) {
		fprintf(stderr, GEN_NAME " conform: %s\n", err);
		return -1;
	}
	memset(&rc, 0, sizeof(rc));
	rc.iface = iface;
	rc.peer_ipver = 4;
	memcpy(rc.peer, c->ip.dst, 4);
	rc.filter = "udp dst port 4791";
	if (!(l->rx = rx_open(&rc, err))) {
		fprintf(stderr, GEN_NAME " conform: %s\n", err);
		return -1;
	}
	/* without a socket on 4791 our kernel answers the DUT's frames with
	 * ICMP port unreachable */
	l->udp = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(ROCE_UDP_PORT);
	memcpy(&sa.sin_addr, c->ip.src, 4);
	if (l->udp < 0 || bind(l->udp, (struct sockaddr *)&sa, sizeof(sa)))
		fprintf(stderr, GEN_NAME " conform: warning: cannot bind UDP 4791 (%s)\n",
			strerror(errno));
	return 0;
}

const char *cf_live_target(const struct cf_live_args *a, char *buf, size_t cap)
{
	if (a->target)
		snprintf(buf, cap, "%.250s", a->target);
	else
		snprintf(buf, cap, "%.200s:%d", a->peer ? a->peer : "?", CTL_PORT);
	return buf;
}

struct cf_live *cf_live_open(struct cf *c, const struct cf_live_args *a)
{
	struct cf_live *l;
	char tgt[300];

	if (!a->iface || !a->peer) {
		fprintf(stderr, GEN_NAME " conform: -i IFACE and --peer IP are needed (or --reference)\n");
		return NULL;
	}
	if (live_addresses(c, a))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		fprintf(stderr, GEN_NAME " conform: out of memory\n");
		return NULL;
	}
	l->udp = l->fd = -1;
	if (a->key && ctl_key_load(a->key, &l->key, tgt, sizeof(tgt))) {
		fprintf(stderr, GEN_NAME " %s: %s\n", a->cmd, tgt);
		goto fail;
	}
	if (live_wire(l, c, a->iface))
		goto fail;
	cf_live_target(a, tgt, sizeof(tgt));
	if ((l->fd = tcp_connect(tgt)) < 0) {
		fprintf(stderr, GEN_NAME " %s: cannot reach rocetarget at %s\n", a->cmd, tgt);
		goto fail;
	}
	if (live_auth(l, a, tgt))
		goto fail;
	c->io.now = live_now;
	c->io.send = live_send;
	c->io.recv = live_recv;
	c->io.ctl = live_ctl;
	c->io.ctx = l;
	return l;
fail:
	cf_live_close(l);
	return NULL;
}

int cf_live_broken(const struct cf_live *l)
{
	return l && l->broken;
}

void cf_live_close(struct cf_live *l)
{
	if (!l)
		return;
	if (l->fd >= 0) {
		if (write(l->fd, "quit\n", 5) < 0) {
			/* the target may be gone already; nothing to tell it */
		}
		close(l->fd);
	}
	if (l->tx)
		tx_close(l->tx);
	if (l->rx)
		rx_close(l->rx);
	if (l->udp >= 0)
		close(l->udp);
	memset(&l->key, 0, sizeof(l->key));
	free(l);
}

int cf_live_opt(struct cf_live_args *a, const char **dev, int ch, const char *arg)
{
	switch (ch) {
	case 'i': a->iface = arg; return 1;
	case 'P': a->peer = arg; return 1;
	case 'T': a->target = arg; return 1;
	case 'K': a->key = arg; return 1;
	case 'S': a->src = arg; return 1;
	case 'M': a->dmac = arg; return 1;
	case 'D': *dev = arg; return 1;
	}
	return 0;
}
