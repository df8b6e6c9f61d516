/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h — one live RC session on an interface, shared by `rocegen
 * client` (client.c) and `rocegen server` (server.c):
 *
 *   libpcap (rx.h) ─▶ roce_decode + ICRC verdict ─┬▶ roce_qp_input (by DestQP)
 *                                                 └▶ QP1 (CM MADs) ─▶ cm.c
 *   engine ops.emit ─▶ batch ─▶ tx_send_batch (tx.h, guarded: the peer only)
 *   poll(rx fd, one out-of-band socket, the engines' deadlines)
 *
 * The out-of-band exchanges (oob.c) and the CM handshake (cm.c) are written
 * as straight-line code: every wait of theirs goes through sess_pump(), so
 * the QPs keep answering the peer (ACKs, retransmissions, READ responses)
 * while a TCP read or a CM reply is pending.
 *
 * A UDP socket bound to our address and port 4791 keeps the kernel from
 * answering the peer's RoCE frames with ICMP port unreachable.
 */
#ifndef ROCEGEN_SESSION_H
#define ROCEGEN_SESSION_H

#include <stdint.h>
#include <stdio.h>
#include "gen.h"
#include "ifinfo.h"
#include "rx.h"
#include "tx.h"

#define SESS_MAX_QP 4
#define SESS_BATCH 64
#define SESS_CQ 16384            /* completions held per QP until polled */

struct sess;

struct sess_qp {
	struct sess *s;
	struct roce_qp *qp;
	void *mem;
	struct roce_qp_attr attr;
	struct roce_wc *cq;
	uint32_t cq_head, cq_tail;
	uint64_t cq_overflow;
	struct roce_qpf_rule rules[GEN_MAX_FAULTS];
	unsigned n_rules;
	struct roce_qp_faults faults;
	uint64_t ev[ROCE_QPE__COUNT];
	/* called for every engine event (may be NULL) */
	void (*on_event)(void *ctx, const struct roce_qp_event *ev);
	void *ev_ctx;
};

typedef void (*sess_qp1_fn)(void *ctx, const struct roce_pkt *p, uint64_t now);

struct sess_stats {
	uint64_t rx_frames;        /* from the peer, as libpcap gave them */
	uint64_t rx_roce;          /* RoCE frames with a BTH */
	uint64_t rx_qp1;           /* UD to QP1 (CM) */
	uint64_t rx_no_qp;         /* for a QPN we do not have */
	uint64_t rx_icrc_bad;
	uint64_t tx_frames, tx_bytes, tx_errors;
	uint64_t kernel_drops;     /* the capture's (pcap_stats) */
	uint64_t tx_drops;         /* the stack was full (tx.h: ENOBUFS) */
};

struct sess {
	const struct gen_opts *o;
	struct ifinfo ii;
	struct tx *tx;
	struct rx *rx;
	int udp_fd;
	int ipver;
	uint8_t src[16], dst[16];
	uint8_t smac[6], dmac[6];
	struct sess_qp *qp[SESS_MAX_QP];
	unsigned n_qp;
	sess_qp1_fn qp1;
	void *qp1_ctx;
	/* called at the end of every sess_pump() (completions, re-posting
	 * receives); must not call sess_pump() */
	void (*hook)(void *ctx);
	void *hook_ctx;
	uint8_t *bbuf;
	const uint8_t *bptr[SESS_BATCH];
	uint32_t blen[SESS_BATCH];
	unsigned bn;
	uint64_t t_end;            /* the whole run's deadline (ns), 0: none */
	uint64_t first_rx, last_rx;   /* when the peer first / last sent a RoCE frame */
	/* RC payload bytes either way, by time: for the report's peak bandwidth
	 * (a side that sees no completions, e.g. the target of WRITEs) */
	uint64_t *dm_t;
	uint32_t *dm_b;
	uint64_t dm_n, dm_cap;
	int failed;                /* a fatal error was printed */
	uint64_t rng;
	struct sess_stats st;
};

uint64_t sess_now(void);
/* Random numbers for QPNs, PSNs, keys: from --seed when given, else the clock. */
uint32_t sess_rand(struct sess *s);

/* Resolves addresses (-i, --peer, --src, --dmac), opens tx/rx and the UDP
 * 4791 socket.  0, or -1 after printing why. */
int sess_open(struct sess *s, const struct gen_opts *o);
void sess_close(struct sess *s);
/* Reads the capture's drop counters into s->st. */
void sess_update_stats(struct sess *s);

/* Engine attributes from the options (MTU, timers, retries) and the
 * session's addresses; the caller sets QPNs and PSNs. */
void sess_qp_attr(const struct sess *s, struct roce_qp_attr *a);
/* Adds a QP in RTS; with faults, the --fault rules (PSNs "@+N" counted from
 * a->sq_psn for requests, a->rq_psn for responses).  NULL after printing. */
struct sess_qp *sess_add_qp(struct sess *s, const struct roce_qp_attr *a, int faults);
/* Next completion of q: 1 and *wc, or 0. */
int sess_qp_poll(struct sess_qp *q, struct roce_wc *wc);

/* A frame we built ourselves (CM MADs): batched like the engines' frames. */
int sess_emit(struct sess *s, const uint8_t *frame, uint32_t len);
void sess_flush(struct sess *s);

/* One turn: flush, wait up to timeout_ms (-1: no limit of its own; the
 * engines' deadlines still bound it) for a frame or for fd (>= 0) to be
 * ready, take in every frame, run the timers, flush.
 * 1: fd is ready; 0: not (yet); -1: stop (signal, the run's deadline, an
 * error: printed). */
int sess_pump(struct sess *s, int fd, short events, int timeout_ms);
/* sess_pump() until done(ctx) is non-zero: 1; 0 when timeout_ms (-1: none)
 * went by first; -1 stop. */
int sess_run(struct sess *s, int (*done)(void *ctx), void *ctx, int timeout_ms);
/* sess_pump() until fd is ready: 1; 0 timeout; -1 stop. */
int sess_wait_fd(struct sess *s, int fd, short events, int timeout_ms);

/* "drop=2%", "dup/req=@+3,times=1", "psn-jump=@+5,arg=3,times=1", … (see
 * rocegen(8)).  base_req / base_rsp: what "@+N" counts from. */
int sess_fault_parse(const char *spec, uint32_t base_req, uint32_t base_rsp,
		     struct roce_qpf_rule *r, char *err, size_t errlen);

/* ---- data patterns (both ends compute the same bytes) ------------------- */

/* Message k, byte i of what a client sends or writes. */
uint8_t sess_pattern(uint32_t k, uint32_t i);
void sess_fill(uint8_t *buf, uint32_t len, uint32_t k);
/* A server's region: byte j is sess_pattern(0xffffffff, j), except the
 * first 8 bytes (the atomic counter), which are 0. */
void sess_fill_region(uint8_t *buf, uint64_t len);

/* ---- report.c ---------------------------------------------------------- */

struct report {
	const char *role;             /* "client", "server" */
	const char *oob, *op, *app;
	uint64_t size, iters;
	uint64_t completed, retried, failed;
	uint64_t bytes;
	uint64_t t_start, t_end;      /* ns */
	double bw_peak;               /* bytes/s */
	struct roce_lat_summary lat;
	int have_lat;
	int ok;                       /* the exit status will be 0 */
	const char *why;              /* when not ok */
	/* data checks */
	int have_crc;
	uint32_t crc;                 /* client: of what it sent/wrote/read; server: received */
	int have_mr_crc;
	uint32_t mr_crc;              /* server: its region at the end */
	int have_atomic;
	uint64_t atomic_value;        /* server: the counter at the end; client: the last orig + 1 */
	uint64_t mismatches;          /* data that differed from what was expected */
	int verified;                 /* 1: the data was checked end to end */
	/* peer */
	uint32_t local_qpn, local_psn, remote_qpn, remote_psn;
	uint16_t mtu;
	const char *peer_tool;        /* what the peer announced (perftest version, …) */
	const struct sess *s;
	const struct sess_qp *q;      /* the data QP */
	uint64_t cm_tx, cm_rx, cm_retx, cm_rej, cm_mra;
};

void report_text(FILE *f, const struct report *r);
void report_json(FILE *f, const struct report *r);
/* The CM exchange's counters into r. */
struct cm;
void report_cm(struct report *r, const struct cm *cm);
/* --json: JSON on stdout and the text on stderr; else the text on stdout. */
void report_print(const struct report *r, int json);
/* Bytes/s over the busiest window of completions: t[i] completion times. */
double report_peak(const uint64_t *t, uint64_t n, uint64_t bytes_each, uint64_t t0);
/* The same over the session's payload meter (sess.dm_*); 0 when it is empty. */
double report_peak_meter(const struct sess *s);

#endif /* ROCEGEN_SESSION_H */
