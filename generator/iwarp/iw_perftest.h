/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_perftest.h — perftest's and ucmatose's conversations over iWARP
 * (`--transport iwarp --oob cm --app perftest|ucmatose`).
 *
 * rdma_cm on iWARP is a TCP connection and the MPA exchange; the kernel's
 * iw_cm hands no private data of its own to MPA (rev 2: only the IRD/ORD
 * word).  perftest -R (6.06, Debian bookworm's perftest 4.5; lab captures
 * iwarp_{write,read,send}_bw_rdmacm) makes two connections to port 18515:
 *
 *   control  MPA IRD/ORD 0/0; then SENDs, the client's first and the
 *            server's answer each time, as perftest's TCP exchange (oob.h):
 *            version (16), cycle buffer (4), cache line (4), MTU (2), a
 *            zeroed struct pingpong_dest (56)
 *   data     the second connection (IRD/ORD 0/0 for WRITE and SEND, the
 *            device's maximum for READ: siw's 128)
 *   control  a zeroed pingpong_dest, then the keys (rkey = STag, vaddr =
 *            TO) 3 times (4 for SEND); the test on the data connection;
 *            keys; for WRITE and READ the results (5 × 8 bytes) and keys
 *            again; the client closes the data connection, the server the
 *            control connection.
 *
 * SEND over iWARP (perftest send_bw.c: ctx.send_rcredit): each side
 * advertises a 4-byte credit buffer in its keys; the receiver RDMA WRITEs
 * its count of receives (host order, little-endian on x86) there every
 * rx_depth / 3 receives, and the sender keeps fewer than rx_depth SENDs
 * beyond the last credit.
 *
 * ucmatose (librdmacm/examples/cmatose.c), port 7471, MPA IRD/ORD 1/1: the
 * server SENDs --iters messages of --size bytes right after its MPA reply
 * (peer-to-peer: after the RTR), the client receives them all and SENDs as
 * many back; the server closes.  rocegen speaks both ends.
 */
#ifndef ROCEGEN_IW_PERFTEST_H
#define ROCEGEN_IW_PERFTEST_H

#include <stdint.h>
#include "iw.h"

#define IWPT_PORT 18515
#define IWUC_PORT 7471
#define IWPT_DEST_LEN 56
#define IWPT_MSG 128
#define IWPT_INBOX 8

/* perftest's control channel: SENDs on one iWARP stream. */
struct iwpt_chan {
	struct iw *w;
	struct iw *other;           /* pumped too while we wait (the data stream) */
	uint8_t rq[IWPT_MSG];
	uint8_t inbox[IWPT_INBOX][IWPT_MSG];
	uint32_t inbox_len[IWPT_INBOX];
	unsigned head, tail;
	int client, timeout_s;
	uint64_t sends, recvs;
};

struct iwpt_result {
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate;   /* MB/s (2^20), MB/s, Mpps */
};

#define DATA_STAG 0x00b10000u
#define DATA_TO 0x7f0000400000ull
#define CREDIT_STAG 0x00b20000u
#define CREDIT_TO 0x7f0000500000ull
#define IWPT_RX_DEPTH 512                 /* perftest's DEF_RX_SEND (capped at --iters) */

struct iwpt {
	struct gen_opts *o, oc, od;      /* ours; the control and data streams' */
	struct iw ctl, dat;
	struct iwpt_chan ch;
	const char *op;
	uint32_t size, window;
	uint64_t iters, done;
	uint8_t *buf, credit[8];
	uint32_t rstag;
	uint64_t rva;
	uint64_t *tcomp, t0, t1;
	uint32_t crc, psn;
	char pver[17];
	struct iwpt_result mine, theirs;
	int have_theirs, server;
	uint32_t credits_tx, credit_every;   /* server, SEND */
	uint8_t *rq;
};

/* iw_ptreport.c: perftest's columns, the MPA of both streams; --json: one
 * object on stdout, the text on stderr. */
uint32_t iwpt_credits(const struct iwpt *p);
void iwpt_report(const struct iwpt *p, int ok, const char *why, int json);

/* iw_ptchan.c */
void iwpt_chan_init(struct iwpt_chan *c, struct iw *w, int client, int timeout_s);
/* Polls both streams for up to ms; -1 when ours ended. */
int iwpt_pump2(struct iw *a, struct iw *b, int ms);
int iwpt_xchg(struct iwpt_chan *c, const void *mine, uint32_t mlen, void *theirs, uint32_t tlen);
int iwpt_hello(struct iwpt_chan *c, char peer_version[17]);
int iwpt_keys(struct iwpt_chan *c, uint32_t stag, uint64_t va, uint32_t out_reads, uint32_t psn,
	      uint32_t *peer_stag, uint64_t *peer_va);
int iwpt_zero_keys(struct iwpt_chan *c);
int iwpt_results(struct iwpt_chan *c, const struct iwpt_result *mine, struct iwpt_result *theirs);

int iw_perftest_client(struct gen_opts *o);   /* iw_perftest.c */
int iw_perftest_server(struct gen_opts *o);   /* iw_ptserver.c */
int iw_ucmatose_client(struct gen_opts *o);   /* iw_ucmatose.c */
int iw_ucmatose_server(struct gen_opts *o);

#endif /* ROCEGEN_IW_PERFTEST_H */
