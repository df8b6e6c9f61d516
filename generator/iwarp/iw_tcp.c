/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_tcp.c — faults at the TCP level of an iWARP stream, and the TCP
 * figures of its report (iw.h).  The kernel's TCP carries the FPDUs, so
 * these act on the socket, never on a segment:
 *
 *   tcp-rst      (client --fault tcp-rst[@N]) message N's FPDUs before its
 *                middle one go out whole, then the first half of that one;
 *                once the peer has acknowledged every byte (SIOCOUTQ 0) the
 *                socket closes with SO_LINGER 0: an RST in the middle of the
 *                message and of an FPDU.  The peer must place nothing of the
 *                half FPDU (its CRC and length cannot be checked), complete
 *                no part of message N, send nothing back (there is no stream
 *                left for a Terminate) and report the reset.
 *   zero-window  (server --fault zero-window[@N]) a 4 KiB receive buffer
 *                (set on the listening socket, so the window is small from
 *                the SYN on); after message N the server stops reading for
 *                IW_STALL_MS: its window closes.  The sender must hold its
 *                data, probe the window and go on where it stopped: every
 *                message complete, markers and CRC right.
 *
 *   tcp-loss     (either side, --fault tcp-loss=P%) iw_tcploss.c: a socket
 *                filter drops P % of the segments with payload we receive.
 *
 * TCP hides segment loss from the socket.  The report gives TCP_INFO's
 * retransmissions, so a run over a lossy path (tcp-loss, or
 * tests/iwarp_conv.sh's nftables drops) shows that TCP repaired them while
 * MPA saw no bad CRC and no bad marker.
 */
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "iw.h"
#include "session.h"

#define STALL_RCVBUF 4096

int iw_tcp_prepare(struct iw *w, int fd)
{
	int rb = STALL_RCVBUF;

	if (w->fault == IW_F_ZERO_WINDOW)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	return w->tcp.loss_ppm ? iw_tcp_loss_attach(w, fd) : 0;
}

uint64_t iw_tcp_retrans(const struct iw *w)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (w->fd >= 0 && !getsockopt(w->fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) && ti.tcpi_total_retrans > w->tcp.retrans)
		return ti.tcpi_total_retrans;
	return w->tcp.retrans;
}

/* Waits until the peer acknowledged all we wrote; 0, or -1 after the timeout. */
static int drained(struct iw *w, int ms)
{
	for (int t = 0; t < ms; t++) {
		int q = 0;

		if (ioctl(w->fd, SIOCOUTQ, &q) || q == 0)
			return 0;
		poll(NULL, 0, 1);
	}
	return -1;
}

int iw_tcp_cut(struct iw *w, const uint8_t *fpdu, uint32_t n)
{
	struct linger lg = { 1, 0 };
	uint32_t half = n / 2;
	ssize_t r;

	if (drained(w, 10000))
		return snprintf(w->why, sizeof(w->why), "tcp-rst: the peer did not acknowledge our data"), -1;
	do
		r = send(w->fd, fpdu, half, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)half || drained(w, 10000))
		return snprintf(w->why, sizeof(w->why), "tcp-rst: the half FPDU did not go out"), -1;
	w->tcp.retrans = iw_tcp_retrans(w);
	setsockopt(w->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(w->fd);
	w->fd = -1;
	w->tcp.rst_tx = 1;
	w->tcp.cut_bytes = half;
	w->fault_armed = 0;
	w->st.faults[IW_F_TCP_RST]++;
	w->dead = 1;
	snprintf(w->why, sizeof(w->why), "sent a TCP RST after %u of an FPDU's %u bytes (--fault tcp-rst)", half, n);
	return -1;
}

void iw_tcp_stall(struct iw *w)
{
	uint64_t t0 = sess_now();

	poll(NULL, 0, IW_STALL_MS);
	w->tcp.stall_ms = (sess_now() - t0) / 1000000;
	w->fault_armed = 0;
	w->st.faults[IW_F_ZERO_WINDOW]++;
}

void iw_tcp_reset_rx(struct iw *w)
{
	w->tcp.reset_rx = 1;
	w->tcp.partial_bytes = w->rx_pos - (uint32_t)w->st.rx_bytes;
	snprintf(w->why, sizeof(w->why), "the peer reset the connection (TCP RST); %u bytes of an unfinished FPDU "
		 "dropped unplaced", w->tcp.partial_bytes);
}
