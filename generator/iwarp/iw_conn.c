/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_conn.c — the iWARP stream's connection (iw.h): a kernel TCP socket,
 * the MPA request/reply exchange (RFC 5044 7, RFC 6581 enhanced setup),
 * FPDUs out with markers and CRC as negotiated and MULPDU derived from
 * TCP_MAXSEG (RFC 5044 4.1), FPDUs in through lib's struct roce_mpa_stream.
 * What the FPDUs carry is iw_rx.c's: this file reaches it only through the
 * hooks iw_init (iw_rx.c) puts in struct iw (rtr_out, rx_done, and the MPA
 * receiver's callbacks), so the two files make no circle.
 *
 * Negotiation, as rocegen does it:
 *   CRC      used when either frame has C; a server with --no-crc refuses a
 *            request with C (reject), as siw does with mpa_crc_strict;
 *   markers  each side sends markers when the other's frame has M;
 *   revision the reply carries min(request's, the server's --rev); an
 *            initiator refuses a reply whose revision is above its own;
 *   rev 2    enhanced: IRD/ORD in the first private-data word; ORD is
 *            lowered to the peer's IRD; --rtr write|read|send (peer-to-peer
 *            mode) offers zero-length RDMA WRITE / READ / SEND as the RTR,
 *            the server picks write, then read, then send among those both
 *            allow.  Default: rev 2, IRD/ORD 16, no RTR — siw's default.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "iw.h"
#include "session.h"

static int fail(struct iw *w, const char *why, int err)
{
	if (err)
		snprintf(w->why, sizeof(w->why), "%s: %s", why, strerror(err));
	else
		snprintf(w->why, sizeof(w->why), "%s", why);
	return -1;
}

void iw_free(struct iw *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->tbuf);
	free(w->rbuf);
	w->tbuf = w->rbuf = NULL;
}

/* ---- bytes ------------------------------------------------------------------------ */

static int timeout_ms(const struct iw *w)
{
	return w->o->timeout > 0 ? (int)(w->o->timeout * 1000) : 15000;
}

static int read_exact(struct iw *w, uint8_t *dst, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		ssize_t r;
		int pr = poll(&p, 1, timeout_ms(w));

		if (pr < 0 && errno == EINTR && !gen_stop)
			continue;
		if (pr <= 0)
			return fail(w, pr == 0 ? "timed out waiting for the MPA frame" : "poll", pr ? errno : 0);
		r = recv(w->fd, dst + got, n - got, 0);
		if (r == 0)
			return fail(w, "the peer closed the connection during MPA setup", 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return fail(w, "recv", errno);
		}
		got += (size_t)r;
	}
	return 0;
}

static int write_all(struct iw *w, const uint8_t *b, size_t n)
{
	while (n) {
		uint64_t t0 = sess_now(), ms;
		ssize_t r = send(w->fd, b, n, MSG_NOSIGNAL);

		ms = (sess_now() - t0) / 1000000;
		if (ms > w->tcp.max_block_ms)
			w->tcp.max_block_ms = ms;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return fail(w, "send", errno);
		}
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* An MPA frame off the socket, exactly its bytes (FPDUs may follow). */
static int read_frame(struct iw *w, uint8_t *buf, struct roce_mpa_frame *f)
{
	int rc;

	if (read_exact(w, buf, ROCE_MPA_FRAME_HDR_LEN))
		return -1;
	rc = roce_mpa_frame_parse(buf, ROCE_MPA_FRAME_HDR_LEN, f);
	if (rc == 0)
		return fail(w, "not an MPA request/reply frame (key)", 0);
	if (f->pd_len > ROCE_MPA_PD_MAX)
		return fail(w, "MPA frame with private data longer than 512 bytes", 0);
	if (f->pd_len && read_exact(w, buf + ROCE_MPA_FRAME_HDR_LEN, f->pd_len))
		return -1;
	rc = roce_mpa_frame_parse(buf, ROCE_MPA_FRAME_HDR_LEN + f->pd_len, f);
	if (rc < 0 && !(rc == ROCE_EINVAL && f->kind))
		return fail(w, "invalid MPA frame", 0);
	return rc < 0 ? 1 : 0;
}

void iw_update_mulpdu(struct iw *w)
{
	int mss = 0;
	socklen_t sl = sizeof(mss);
	uint32_t emss, m;

	if (getsockopt(w->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl) || mss <= 64)
		mss = 536;
	emss = (uint32_t)mss;
	/* RFC 5044 4.1 */
	if (w->mk_tx)
		m = emss - (6 + 4 * ((emss + 511) / 512) + emss % 4);
	else
		m = emss - (6 + emss % 4);
	if (m > ROCE_MPA_ULPDU_MAX)
		m = ROCE_MPA_ULPDU_MAX & ~3u;
	if (w->mulpdu && m != w->mulpdu)
		w->st.mulpdu_changes++;
	w->mss = emss;
	w->mulpdu = m;
}

/* ---- the socket -------------------------------------------------------------- */

static socklen_t sockaddr_of(const uint8_t *ip, int ver, int port,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ver == 6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (ip)
			memcpy(&s6->sin6_addr, ip, 16);
		return sizeof(*s6);
	}
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (ip)
			memcpy(&s4->sin_addr, ip, 4);   /* opts.c keeps IPv4 in the first 4 bytes */
		return sizeof(*s4);
	}
}

static int port_of(const struct gen_opts *o)
{
	return o->port >= 0 ? o->port : IW_DEFAULT_PORT;
}

static int set_mss(struct iw *w, int fd)
{
	int one = 1;

	/* FPDUs go out whole and at once (small ones too: Read Requests, Terminates) */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (w->o->mss > 0)
		setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &w->o->mss, sizeof(w->o->mss));
	return iw_tcp_prepare(w, fd);
}

static int tcp_connect(struct iw *w)
{
	const struct gen_opts *o = w->o;
	struct sockaddr_storage ss;
	socklen_t sl;

	if (!o->peer_ver)
		return fail(w, "--peer IP is needed", 0);
	sl = sockaddr_of(o->peer, o->peer_ver, port_of(o), &ss);
	w->fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (w->fd < 0)
		return fail(w, "socket", errno);
	if (set_mss(w, w->fd))
		return -1;
	if (connect(w->fd, (struct sockaddr *)&ss, sl))
		return fail(w, "connect", errno);
	return 0;
}

static int tcp_accept(struct iw *w)
{
	const struct gen_opts *o = w->o;
	struct sockaddr_storage ss;
	int one = 1, ver = o->src_ver ? o->src_ver : o->peer_ver == 6 ? 6 : 4, lfd, pr;
	socklen_t sl = sockaddr_of(o->src_ver ? o->src : NULL, ver, port_of(o), &ss);
	struct pollfd p;

	lfd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (lfd < 0)
		return fail(w, "socket", errno);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (set_mss(w, lfd)) {
		close(lfd);
		return -1;
	}
	if (bind(lfd, (struct sockaddr *)&ss, sl) || listen(lfd, 1)) {
		fail(w, "bind/listen", errno);
		close(lfd);
		return -1;
	}
	fprintf(stderr, GEN_NAME " server: ready (iWARP, TCP port %d)\n", port_of(o));
	p.fd = lfd;
	p.events = POLLIN;
	do
		pr = poll(&p, 1, timeout_ms(w));
	while (pr < 0 && errno == EINTR && !gen_stop);
	w->fd = pr > 0 ? accept(lfd, NULL, NULL) : -1;
	close(lfd);
	if (w->fd < 0)
		return fail(w, pr == 0 ? "no connection before --timeout" : "accept", pr == 0 ? 0 : errno);
	return 0;
}

/* ---- MPA --------------------------------------------------------------------- */

static unsigned rtr_offer(const struct gen_opts *o)
{
	unsigned m = 0;

	if (!o->rtr || !strcmp(o->rtr, "none"))
		return 0;
	if (strstr(o->rtr, "write"))
		m |= IW_RTR_WRITE;
	if (strstr(o->rtr, "read"))
		m |= IW_RTR_READ;
	if (strstr(o->rtr, "send"))
		m |= IW_RTR_SEND;
	return m;
}

static unsigned rtr_bits(const struct roce_mpa_rtr *r)
{
	return (r->write ? IW_RTR_WRITE : 0) | (r->read ? IW_RTR_READ : 0) | (r->send ? IW_RTR_SEND : 0);
}

static void rtr_from(struct roce_mpa_rtr *r, unsigned bits)
{
	r->write = !!(bits & IW_RTR_WRITE);
	r->read = !!(bits & IW_RTR_READ);
	r->send = !!(bits & IW_RTR_SEND);
}

static int our_ird(const struct gen_opts *o)
{
	return o->ird >= 0 ? o->ird : IW_DEFAULT_IRD;
}

static int our_ord(const struct gen_opts *o)
{
	return o->ord >= 0 ? o->ord : IW_DEFAULT_ORD;
}

/* The stream is set up: receiver and MULPDU. */
static void streaming(struct iw *w)
{
	roce_mpa_stream_set(&w->rs, 0, w->mk_rx, w->crc);
	iw_update_mulpdu(w);
}

/* The initiator's reading of the reply. */
static int take_reply(struct iw *w, const struct roce_mpa_frame *f, unsigned offer)
{
	w->rep_flags = f->flags;
	if (f->kind != ROCE_MPA_REP)
		return fail(w, "expected an MPA reply", 0);
	if (f->reject) {
		w->rejected = 1;
		return fail(w, "MPA reply with the reject bit: the server refused the connection", 0);
	}
	if (f->rev > w->rev || f->rev < 1)
		return fail(w, "MPA reply with a revision above the request's", 0);
	w->rev = f->rev;
	w->crc = (w->req_flags & ROCE_MPA_FLAG_C) || f->crc;
	w->mk_tx = f->markers;
	w->mk_rx = !!(w->req_flags & ROCE_MPA_FLAG_M);
	if (f->has_rtr) {
		unsigned pick = rtr_bits(&f->rtr) & offer;

		w->enhanced = 1;
		w->peer_ird = f->rtr.ird;
		w->peer_ord = f->rtr.ord;
		if (w->ord > w->peer_ird)
			w->ord = w->peer_ird;
		w->p2p = offer && f->rtr.p2p;
		if (w->p2p) {
			w->rtr = pick & IW_RTR_WRITE ? IW_RTR_WRITE : pick & IW_RTR_READ ? IW_RTR_READ :
				 pick & IW_RTR_SEND ? IW_RTR_SEND : 0;
			if (!w->rtr)
				return fail(w, "no matching RTR option in the MPA reply", 0);
		}
		w->pd_len = (uint16_t)(f->pd_len - ROCE_MPA_RTR_LEN);
		memcpy(w->pd, f->pd + ROCE_MPA_RTR_LEN, w->pd_len);
	} else {
		w->pd_len = f->pd_len;
		memcpy(w->pd, f->pd, f->pd_len);
	}
	return 0;
}

int iw_connect(struct iw *w, const uint8_t *pd, uint16_t pd_len)
{
	const struct gen_opts *o = w->o;
	uint8_t buf[ROCE_MPA_FRAME_HDR_LEN + ROCE_MPA_PD_MAX];
	struct roce_mpa_rtr r = { 0 };
	struct roce_mpa_frame f;
	unsigned offer = rtr_offer(o);
	int n;

	if (tcp_connect(w))
		return -1;
	w->rev = (uint8_t)o->mpa_rev;
	w->ird = (uint16_t)our_ird(o);
	w->ord = (uint16_t)our_ord(o);
	w->req_flags = (uint8_t)((o->mpa_markers ? ROCE_MPA_FLAG_M : 0) | (o->mpa_crc ? ROCE_MPA_FLAG_C : 0));
	r.ird = w->ird;
	r.ord = w->ord;
	r.p2p = offer != 0;
	rtr_from(&r, offer);
	n = roce_mpa_build_frame(buf, sizeof(buf), ROCE_MPA_REQ, w->req_flags, w->rev, w->rev == 2 ? &r : NULL,
				 pd, pd_len);
	if (n < 0)
		return fail(w, "MPA request: private data too long", 0);
	if (write_all(w, buf, (size_t)n))
		return -1;
	if (read_frame(w, buf, &f))
		return -1;
	if (take_reply(w, &f, offer))
		return -1;
	streaming(w);
	if (w->p2p && w->rtr_delay_ms)
		poll(NULL, 0, w->rtr_delay_ms);
	return w->p2p ? w->rtr_out(w) : 0;
}

/* The responder's answer to a request: 0 accept, 1 reject (why set). */
static int decide(struct iw *w, const struct roce_mpa_frame *f, struct roce_mpa_rtr *r)
{
	const struct gen_opts *o = w->o;
	unsigned allow = rtr_offer(o);

	w->req_flags = f->flags;
	w->rev = (uint8_t)(f->rev < o->mpa_rev ? f->rev : o->mpa_rev);
	w->crc = f->crc || o->mpa_crc;
	w->mk_tx = f->markers;
	w->mk_rx = !!o->mpa_markers;
	w->ird = (uint16_t)our_ird(o);
	w->ord = (uint16_t)our_ord(o);
	if (o->mpa_reject)
		return snprintf(w->why, sizeof(w->why), "rejected the MPA request (--reject)"), 1;
	if (f->crc && o->no_crc)
		return snprintf(w->why, sizeof(w->why), "rejected the MPA request: CRC asked, --no-crc"), 1;
	if (f->rev < 1 || f->rev > 2)
		return snprintf(w->why, sizeof(w->why), "rejected the MPA request: revision %u", f->rev), 1;
	if (w->rev == 2 && f->has_rtr) {
		unsigned pick = rtr_bits(&f->rtr) & (allow ? allow : 7u);

		w->enhanced = 1;
		w->peer_ird = f->rtr.ird;
		w->peer_ord = f->rtr.ord;
		if (w->ord > w->peer_ird)
			w->ord = w->peer_ird;
		r->ird = w->ird;
		r->ord = w->ord;
		w->p2p = r->p2p = f->rtr.p2p;
		if (f->rtr.p2p) {
			w->rtr = pick & IW_RTR_WRITE ? IW_RTR_WRITE : pick & IW_RTR_READ ? IW_RTR_READ :
				 pick & IW_RTR_SEND ? IW_RTR_SEND : 0;
			rtr_from(r, w->rtr);
			if (!w->rtr)
				return snprintf(w->why, sizeof(w->why), "rejected the MPA request: no matching RTR option"), 1;
		} else if (allow) {
			return snprintf(w->why, sizeof(w->why), "rejected the MPA request: no RTR offered, --rtr asked"), 1;
		}
	}
	w->pd_len = (uint16_t)(f->has_rtr ? f->pd_len - ROCE_MPA_RTR_LEN : f->pd_len);
	memcpy(w->pd, f->pd + (f->has_rtr ? ROCE_MPA_RTR_LEN : 0), w->pd_len);
	return 0;
}

int iw_accept(struct iw *w, const uint8_t *pd, uint16_t pd_len)
{
	uint8_t buf[ROCE_MPA_FRAME_HDR_LEN + ROCE_MPA_PD_MAX];
	struct roce_mpa_rtr r = { 0 };
	struct roce_mpa_frame f;
	int rej, n, rc;

	if (tcp_accept(w))
		return -1;
	rc = read_frame(w, buf, &f);
	if (rc < 0)
		return -1;
	if (f.kind != ROCE_MPA_REQ || rc > 0)
		return fail(w, "invalid MPA request", 0);
	rej = decide(w, &f, &r);
	n = roce_mpa_build_frame(buf, sizeof(buf), ROCE_MPA_REP,
				 (uint8_t)((w->mk_rx ? ROCE_MPA_FLAG_M : 0) | (w->crc ? ROCE_MPA_FLAG_C : 0) |
					   (rej ? ROCE_MPA_FLAG_R : 0)),
				 w->rev, w->rev == 2 && f.has_rtr ? &r : NULL, pd, rej ? 0 : pd_len);
	w->rep_flags = buf[16];
	if (n < 0)
		return fail(w, "MPA reply: private data too long", 0);
	if (write_all(w, buf, (size_t)n))
		return -1;
	if (rej) {
		w->rejected = 1;
		shutdown(w->fd, SHUT_WR);
		return -1;
	}
	w->await_rtr = w->p2p;
	streaming(w);
	return 0;
}

/* ---- FPDUs out ----------------------------------------------------------------- */

/* The armed fault on the FPDU in tbuf (n bytes); 1 when it was applied. */
static int apply_fault(struct iw *w, uint32_t n)
{
	if (w->fault == IW_F_BAD_CRC) {
		w->tbuf[n - 1] ^= 0xa5;
		return 1;
	}
	if (w->fault == IW_F_BAD_MARKER && w->mk_tx) {
		uint32_t k = (ROCE_MPA_MARKER_INTERVAL - w->tx_pos % ROCE_MPA_MARKER_INTERVAL) % ROCE_MPA_MARKER_INTERVAL;

		if (k == 0)
			k = ROCE_MPA_MARKER_INTERVAL;   /* a leading marker reads 0 either way: the next */
		if (k + ROCE_MPA_MARKER_LEN <= n) {
			w->tbuf[k + 3] ^= 0x3c;
			return 1;
		}
	}
	return 0;
}

int iw_send_ulpdu(struct iw *w, const uint8_t *ulpdu, uint32_t len)
{
	int n = roce_mpa_build_fpdu(w->tbuf, IW_TBUF_CAP, ulpdu, len, w->crc, w->mk_tx, w->tx_pos);

	if (n < 0)
		return fail(w, "FPDU too long", 0);
	if (w->mk_tx)
		for (uint32_t k = (ROCE_MPA_MARKER_INTERVAL - w->tx_pos % ROCE_MPA_MARKER_INTERVAL) %
				  ROCE_MPA_MARKER_INTERVAL; k < (uint32_t)n; k += ROCE_MPA_MARKER_INTERVAL)
			w->st.tx_markers++;
	if (w->fault_armed && w->fault == IW_F_TCP_RST && w->tx_seg == w->tx_nseg / 2)
		return iw_tcp_cut(w, w->tbuf, (uint32_t)n);
	if (w->fault_armed && apply_fault(w, (uint32_t)n)) {
		w->fault_armed = 0;
		w->st.faults[w->fault]++;
	}
	if (write_all(w, w->tbuf, (size_t)n))
		return -1;
	w->tx_pos += (uint32_t)n;
	w->st.tx_fpdu++;
	w->st.tx_bytes += (uint64_t)n;
	return 0;
}

/* ---- FPDUs in ---------------------------------------------------------------------- */

int iw_pump(struct iw *w, int tmo)
{
	uint8_t buf[65536];
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	ssize_t r;
	int pr;

	if (w->eof)
		return -1;
	pr = poll(&p, 1, tmo);
	if (pr < 0)
		return errno == EINTR && !gen_stop ? 0 : -1;
	if (pr == 0)
		return 0;
	r = recv(w->fd, buf, sizeof(buf), 0);
	if (r < 0 && errno == EINTR)
		return 0;
	if (r < 0 && errno == ECONNRESET)
		iw_tcp_reset_rx(w);
	if (r <= 0) {
		w->eof = 1;
		return -1;
	}
	roce_mpa_stream_feed(&w->rs, w->rx_pos, buf, (uint32_t)r, w->rx_pos ? 0 : ROCE_MPA_SEG_FPDU_START);
	w->rx_pos += (uint32_t)r;
	if (!w->dead && w->rx_done(w))
		return -1;
	return 1;
}
