/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_tcploss.c — `--fault tcp-loss=P%` (client or server, --oob none):
 * the endpoint drops P % of the TCP segments with payload that it
 * RECEIVES, so the peer's TCP retransmits them; MPA's markers and CRC
 * must stay right across TCP's repairs and every message must complete
 * with its data intact.
 *
 * How: a classic BPF socket filter (SO_ATTACH_FILTER) on the socket, set
 * before connect() or listen() (an accepted socket inherits its listener's
 * filter).  Linux runs a TCP socket's filter on every segment it receives
 * (tcp_v4_rcv/tcp_v6_rcv → tcp_filter → sk_filter_trim_cap, with the
 * TCP header at offset 0 and the segment's length as the packet length);
 * a return of 0 discards the segment before TCP looks at it, so nothing
 * of it is acknowledged.  The program: a segment whose length exceeds its
 * header (doff × 4) is dropped when cBPF's ancillary SKF_AD_RANDOM (a
 * random u32 per run of the filter) is below P × 2^32; everything else is
 * kept whole.  Each copy is drawn anew, so a retransmission gets through
 * with probability 1 - P.  SYN, ACK and FIN without data always pass.
 *
 * What is measured: cBPF cannot count its drops, so the report gives
 * the kernel's view on our socket — TCP_INFO's tcpi_rcv_ooopack, the
 * segments that arrived out of order (after a gap a drop left; a drop of
 * the last segment before a pause leaves no gap and is not counted) —
 * and the peer's own report gives its retransmissions.  tests/iwarp_conv.sh
 * counts the drops in a capture (the same sequence number twice).
 */
#include <linux/filter.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw.h"

#define LOSS_PPM_MAX 500000   /* 50 %: beyond that TCP spends its time in back-off */

int iw_tcp_loss_parse(const char *arg, uint64_t *ppm)
{
	char *e;
	double pct = strtod(arg, &e);

	if (e == arg || strcmp(e, "%") || !(pct > 0) || pct * 10000 > LOSS_PPM_MAX)
		return -1;
	*ppm = (uint64_t)(pct * 10000 + 0.5);
	return *ppm ? 0 : -1;
}

void iw_tcp_loss_take(struct iw *w, int *kind, uint64_t *at)
{
	if (*kind != IW_F_TCP_LOSS)
		return;
	w->tcp.loss_ppm = (uint32_t)*at;
	*kind = IW_F_NONE;
	*at = UINT64_MAX;
}

int iw_tcp_loss_attach(struct iw *w, int fd)
{
	uint32_t thr = (uint32_t)((uint64_t)w->tcp.loss_ppm * 4294967296ull / 1000000);
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 12),                    /* data offset << 4 */
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),                     /* the header's bytes */
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 2),               /* no payload: keep */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_RANDOM)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, thr, 0, 1),             /* below P x 2^32: drop */
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog fp = { (unsigned short)(sizeof(prog) / sizeof(prog[0])), prog };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp))) {
		snprintf(w->why, sizeof(w->why), "tcp-loss: SO_ATTACH_FILTER failed");
		return -1;
	}
	w->st.faults[IW_F_TCP_LOSS] = 1;
	return 0;
}

uint64_t iw_tcp_ooo(const struct iw *w)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (w->fd >= 0 && !getsockopt(w->fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) &&
	    sl >= offsetof(struct tcp_info, tcpi_rcv_ooopack) + sizeof(ti.tcpi_rcv_ooopack))
		return ti.tcpi_rcv_ooopack;
	return 0;
}
