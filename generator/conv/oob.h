/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob.h — the out-of-band exchanges of the standard tools, both ends:
 *
 * ibv_rc_pingpong (rdma-core libibverbs/examples/rc_pingpong.c), TCP 18515:
 *   client → "%04x:%06x:%06x:%s" LID:QPN:PSN:GID (32 hex digits, wire
 *   order), 52 bytes with the NUL; server → the same; client → "done\0".
 *
 * perftest 6.06 (Debian bookworm's perftest 4.5), TCP 18515, each item
 * written by the client first and answered by the server:
 *   version (16 bytes, "6.06" and NULs); cycle buffer (4, big-endian 4096);
 *   cache line (4, 64); MTU ("%d" of the IB MTU enum, 2 bytes: "3\0");
 *   keys "%04x:%04x:%06x:%06x:%08x:%016llx:" + 16 × "%02x:" GID + "%08x:"
 *   (LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID:SRQN, 108 bytes with the NUL), as
 *   many times as the tool syncs; results (5 × 8 bytes: size, iterations,
 *   BW peak, BW average, message rate, doubles byte-swapped to big-endian);
 *   "done\0" from both sides in either order.
 * With -R (rdma_cm) the same items travel as RC SENDs on a control QP
 * connected first, and a key message is the 56-byte struct pingpong_dest in
 * network order (lid, out_reads, qpn, psn, rkey, 4 pad, vaddr, gid, srqn,
 * gid_index) instead of text.
 *
 * Every wait goes through sess_pump(), so the QPs keep working meanwhile.
 */
#ifndef ROCEGEN_OOB_H
#define ROCEGEN_OOB_H

#include <stddef.h>
#include <stdint.h>
#include "session.h"

#define OOB_PORT 18515
#define OOB_PP_LEN 52
#define OOB_PT_KEYS_LEN 108
#define OOB_PT_DEST_LEN 56
#define OOB_PT_VERSION "6.06"

struct oob_dest {
	uint32_t lid, out_reads, qpn, psn, rkey, srqn;
	int32_t gid_index;
	uint64_t va;
	uint8_t gid[16];
};

/* ---- TCP ------------------------------------------------------------------- */

/* Connects to the peer's port, retrying refused connections until
 * timeout_ms: the fd (non-blocking), or -1 after printing why. */
int oob_connect(struct sess *s, uint16_t port, int timeout_ms);
/* Listens on our address: the fd, or -1. */
int oob_listen(struct sess *s, uint16_t port);
/* The next connection from the peer (others are closed): fd, 0 timeout, -1. */
int oob_accept(struct sess *s, int lfd, int timeout_ms);
/* Exactly n bytes: 0, or -1 (closed, timeout, stop; printed). */
int oob_read(struct sess *s, int fd, void *buf, size_t n, int timeout_ms);
int oob_write(struct sess *s, int fd, const void *buf, size_t n);
/* The first byte of the next message without taking it: 1, 0 on EOF, -1. */
int oob_peek(struct sess *s, int fd, uint8_t *c, int timeout_ms);

/* ---- formats ----------------------------------------------------------------- */

void oob_gid_v4mapped(uint8_t gid[16], const uint8_t ip4[4]);
void oob_pp_format(char out[OOB_PP_LEN], const struct oob_dest *d);
int oob_pp_parse(const char *msg, size_t len, struct oob_dest *d);
void oob_pt_format(char out[OOB_PT_KEYS_LEN], const struct oob_dest *d);
int oob_pt_parse(const char *msg, size_t len, struct oob_dest *d);
void oob_pt_pack(uint8_t out[OOB_PT_DEST_LEN], const struct oob_dest *d);
void oob_pt_unpack(const uint8_t in[OOB_PT_DEST_LEN], struct oob_dest *d);

/* ---- perftest's channel: TCP, or SENDs on an RC control QP (-R) ----------- */

#define OOB_CHAN_RBUFS 8
#define OOB_CHAN_MSG 128

struct oob_chan {
	struct sess *s;
	int fd;                       /* TCP, or -1 */
	struct sess_qp *q;            /* -R: the control QP */
	int client;                   /* writes first */
	int timeout_ms;
	uint8_t rbuf[OOB_CHAN_RBUFS][OOB_CHAN_MSG];
	uint8_t sbuf[OOB_CHAN_MSG];
	uint8_t inbox[OOB_CHAN_RBUFS][OOB_CHAN_MSG];
	uint32_t inbox_len[OOB_CHAN_RBUFS];
	unsigned in_head, in_tail;
	uint64_t sends, recvs;
};

/* RC: posts the receive buffers (before the connection is made). */
int oob_chan_rc_init(struct oob_chan *c, struct sess *s, struct sess_qp *q, int client, int timeout_ms);
void oob_chan_tcp_init(struct oob_chan *c, struct sess *s, int fd, int client, int timeout_ms);
int oob_chan_send(struct oob_chan *c, const void *buf, size_t len);
/* The next message, exactly len bytes (TCP) or at most len (RC: *got). */
int oob_chan_recv(struct oob_chan *c, void *buf, size_t len, size_t *got);
/* client: send then receive; server: receive then send. */
int oob_chan_xchg(struct oob_chan *c, const void *mine, size_t mlen, void *theirs, size_t tlen);

/* perftest's steps */
int pt_hello(struct oob_chan *c, unsigned *mtu_enum, char peer_version[17]);
int pt_keys(struct oob_chan *c, const struct oob_dest *mine, struct oob_dest *theirs);
struct pt_result {
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate;   /* MB/s (2^20), MB/s, Mpps */
};
int pt_results(struct oob_chan *c, const struct pt_result *mine, struct pt_result *theirs);
int pt_done(struct oob_chan *c);

#endif /* ROCEGEN_OOB_H */
