/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp.h — libroce: a user-space RC queue pair (IBTA vol. 1 ch. 9.7, "reliable
 * service"): requester and responder, with no I/O and no clock of its own.
 *
 *      post_send ──▶ requester ──frames──▶ ops.emit ──▶ (caller's wire)
 *      post_recv ──▶ responder ◀──decoded── roce_qp_input ◀── (caller's wire)
 *                        │
 *                        └── ops.complete (work completions), ops.event
 *
 * The caller feeds the engine received frames, already decoded by
 * roce_decode() (the engine only ever sees struct roce_pkt views), and the
 * current time in nanoseconds on every call.  The engine sends by calling
 * ops.emit with a complete Ethernet frame (built with roce_build() into the
 * engine's own buffer, valid only during the call), and says through
 * roce_qp_next_deadline() when it next wants roce_qp_tick().  Time is
 * whatever the caller says it is: a test can run a simulated clock that jumps
 * from deadline to deadline.
 *
 * One struct roce_qp is both halves of an RC QP, as in the spec: the
 * requester of its own send queue (PSN space starting at sq_psn) and the
 * responder to the peer's requests (expected PSN starting at rq_psn).
 *
 * Requester (C9-1xx): SEND, SEND with immediate, RDMA WRITE (with immediate),
 * RDMA READ, CMP_SWAP and FETCH_ADD work requests; segmentation by path MTU
 * (FIRST/MIDDLE/LAST/ONLY, pad); AckReq on the last packet of each message
 * (and every ackreq_every packets); at most max_rd_atomic READ/atomic
 * outstanding; completion when an ACK covers the message (ACK PSN), a READ's
 * last response arrives, or an ATOMIC ACK returns the original value;
 * implied NAK (a response PSN beyond the next READ/atomic response expected)
 * → a new READ from the gap; local ACK timeout 4.096 us * 2^timeout →
 * go-back-N from the oldest unacknowledged PSN, retry_cnt retries, then the
 * QP errors out; PSN-sequence-error NAK → go-back-N from the NAKed PSN (also
 * counted against retry_cnt, reset by progress, as rxe does); RNR NAK → wait
 * the timer it carries, rnr_retry retries (7 = infinite); remote access,
 * invalid request or remote operational error NAK → the WR fails, the QP
 * errors out and later WRs are flushed.
 *
 * Responder (C9-2xx): memory regions (rkey, VA, length, remote access
 * rights) with rkey/bounds/rights checks (→ remote access error NAK);
 * receive queue (none posted → RNR NAK carrying min_rnr_timer); in-order
 * requests executed; duplicates (PSN before the expected one) re-ACKed
 * without re-executing; duplicate READs replayed from the duplicate's RETH
 * (full or partial range) when a READ remembered in the responder-resources
 * ring covers the PSN; duplicate atomics answered with the saved original
 * value, never re-executed; an out-of-sequence request gets exactly one
 * PSN-sequence-error NAK carrying the expected PSN until an in-order request
 * arrives (no NAK storm; the same after an RNR NAK); a broken opcode
 * sequence (MIDDLE/LAST without FIRST, FIRST inside a message), a FIRST or
 * MIDDLE that is not exactly one MTU (wrong pad), a length that disagrees
 * with the RETH or the receive buffer, a misaligned atomic, or a frame the
 * decoder found invalid → invalid request NAK; MSN counts completed
 * messages; ACKs on AckReq, every ack_every requests, or (ack_msg_end) at
 * every message end.  Invalid request and remote access errors move the QP
 * to the error state (class C errors).  A frame with a bad ICRC is dropped
 * silently (counted in the statistics only).
 *
 * Deliberate choices where the spec leaves room (and where rxe differs):
 *   - a duplicate SEND/WRITE is ACKed (PSN = expected - 1, the current MSN)
 *     when it carries AckReq or ends a message; rxe ACKs every duplicate;
 *   - retry_cnt 7 means 7 retries, unless attr.retry7_infinite asks for rxe's
 *     "retry forever";
 *   - READ responses are generated at once, in PSN order with the ACKs.
 *
 * Faults (struct roce_qp_faults) act on the frames the engine emits, both
 * roles, deterministically from a seed: drop, duplicate, reorder, corrupt
 * the ICRC, mark ECN-CE, jump the PSN, bad rkey, out-of-range VA, delay —
 * by probability or at exact PSNs — plus RNR NAKs on the responder.  "Withhold
 * ACKs" is a drop rule matching ACKs; "delay ACKs" a delay rule.
 *
 * Memory: the engine never allocates.  roce_qp_mem_size() says how many bytes
 * one QP needs for its attributes (queues, MR table, responder resources,
 * frame buffers); the caller hands that memory to roce_qp_init().  Memory
 * regions and WR buffers are the caller's and must stay valid while in use.
 * The callbacks must not call back into the same QP.
 *
 * Normally included through roce.h.
 */
#ifndef ROCE_QP_H
#define ROCE_QP_H

#include <stddef.h>
#include <stdint.h>
#include "roce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest frame the engine builds: Ethernet + 2 tags + IPv6 + UDP + BTH
 * + AtomicETH/RETH+ImmDt + 4096 + pad + ICRC + FCS, rounded up. */
#define ROCE_QP_FRAME_MAX 4352

/* 4.096 us * 2^timeout, in ns; 0 for timeout 0 (no timer, IBTA 9.7.6.1.3). */
#define ROCE_QP_TIMEOUT_NS(t) ((t) ? (uint64_t)4096 << (t) : 0)

struct roce_qp;

/* ---- attributes ----------------------------------------------------------- */

struct roce_qp_attr {
	/* identity and path */
	uint32_t qpn;              /* local QPN (frames to us carry it as DestQP) */
	uint32_t remote_qpn;
	uint32_t sq_psn;           /* first PSN of our requests */
	uint32_t rq_psn;           /* first PSN expected from the peer (its sq_psn) */
	uint16_t mtu;              /* path MTU: 256, 512, 1024, 2048 or 4096 */
	uint16_t pkey;             /* 0 means 0xffff; frames with another P_Key are dropped */
	enum roce_version version; /* ROCE_VER_V2 (default when 0: NONE), V1, V2_1021, V2_PORT */
	uint16_t dport;            /* V2_PORT only */
	uint16_t sport;            /* UDP source port; 0 means 0xc000 */
	uint8_t udp_checksum;
	struct roce_eth_spec eth;  /* our MAC (src), the peer's (dst), VLAN tags */
	struct roce_ip_spec ip;    /* our address (src), the peer's (dst), DSCP, ECN, TTL */

	/* requester */
	uint8_t timeout;           /* local ACK timeout exponent 0..31 (0: none) */
	uint8_t retry_cnt;         /* 0..7 */
	uint8_t retry7_infinite;   /* retry_cnt 7 retries forever (rxe) */
	uint8_t rnr_retry;         /* 0..7; 7 = infinite */
	uint8_t max_rd_atomic;     /* initiator depth, >= 1 */
	uint16_t ackreq_every;     /* also AckReq every N request packets; 0: message ends only */
	uint32_t sq_depth;         /* work requests in the send queue, >= 1 */
	uint32_t tx_burst;         /* request packets per call; 0: no limit */

	/* responder */
	uint8_t min_rnr_timer;     /* RNR NAK timer code 0..31 */
	uint8_t max_dest_rd_atomic;/* responder resources (READ/atomic replay ring), >= 1 */
	uint16_t ack_every;        /* ACK after N unacknowledged requests; 0: only on AckReq */
	uint8_t ack_msg_end;       /* also ACK at every message end */
	uint8_t send_cnp;          /* answer ECN-CE-marked requests with a CNP */
	uint64_t cnp_gap_ns;       /* at most one CNP per this interval */
	uint32_t rq_depth;         /* posted receives, >= 1 */
	uint32_t max_mr;           /* memory regions, >= 1 */

	/* faults */
	uint32_t fault_slots;      /* frames held at once by delay/reorder faults */
};

/* Typical values: RoCEv2/IPv4, MTU 1024, timeout 14, retry 7, rnr_retry 7,
 * max_rd_atomic 16, min_rnr_timer 12, queues of 128, 8 MRs, 16 fault slots. */
void roce_qp_attr_default(struct roce_qp_attr *a);

/* ---- work requests and completions ---------------------------------------- */

enum roce_wr_op {
	ROCE_WR_SEND = 0,
	ROCE_WR_SEND_IMM,
	ROCE_WR_WRITE,
	ROCE_WR_WRITE_IMM,
	ROCE_WR_READ,
	ROCE_WR_CMP_SWAP,
	ROCE_WR_FETCH_ADD,
	ROCE_WR_RECV,              /* completions only: a SEND received */
	ROCE_WR_RECV_RDMA_IMM,     /* completions only: a WRITE with immediate received */
	ROCE_WR__COUNT
};
const char *roce_wr_op_name(enum roce_wr_op op); /* "send", "write", … */

struct roce_wr {
	uint64_t wr_id;
	enum roce_wr_op op;
	uint8_t *buf;              /* data to send/write; READ: where the data goes;
				    * atomics: 8 bytes that receive the original value */
	uint32_t len;              /* atomics: 8 */
	uint64_t remote_va;        /* WRITE, READ, atomics */
	uint32_t rkey;
	uint32_t imm;              /* *_IMM, network order as a number */
	uint64_t compare;          /* CMP_SWAP */
	uint64_t swap_add;         /* CMP_SWAP: the new value; FETCH_ADD: the addend */
	uint8_t solicited;         /* SE on the last packet */
};

/* Completion status, named as in libibverbs. */
enum roce_wc_status {
	ROCE_WC_SUCCESS = 0,
	ROCE_WC_LOC_LEN_ERR,       /* responder: the message does not fit the receive buffer */
	ROCE_WC_LOC_QP_OP_ERR,
	ROCE_WC_BAD_RESP_ERR,      /* requester: an unexpected response */
	ROCE_WC_REM_INV_REQ_ERR,   /* NAK invalid request */
	ROCE_WC_REM_ACCESS_ERR,    /* NAK remote access error */
	ROCE_WC_REM_OP_ERR,        /* NAK remote operational error */
	ROCE_WC_RETRY_EXC_ERR,     /* retry_cnt exhausted */
	ROCE_WC_RNR_RETRY_EXC_ERR, /* rnr_retry exhausted */
	ROCE_WC_WR_FLUSH_ERR,      /* the QP was in (or went to) the error state */
	ROCE_WC__COUNT
};
const char *roce_wc_status_name(enum roce_wc_status s); /* "success", "retry-exceeded", … */

struct roce_wc {
	uint64_t wr_id;
	enum roce_wc_status status;
	enum roce_wr_op op;
	uint8_t recv;              /* 1: a receive completion (responder side) */
	uint8_t has_imm;
	uint32_t imm;
	uint32_t byte_len;         /* bytes received (recv), read, or 8 for atomics */
	uint32_t psn;              /* first PSN of the message */
	uint64_t latency_ns;       /* requester: completion time - post time */
	uint64_t orig;             /* atomics: the value before the operation */
};

/* ---- events, for tests and reports -------------------------------------- */

enum roce_qp_retx {              /* what started a go-back-N */
	ROCE_RETX_TIMEOUT = 0,
	ROCE_RETX_NAK,               /* PSN-sequence-error NAK */
	ROCE_RETX_IMPLIED,           /* implied NAK: a gap in READ/atomic responses */
	ROCE_RETX_RNR,               /* after an RNR NAK's timer */
	ROCE_RETX__COUNT
};
const char *roce_qp_retx_name(enum roce_qp_retx t); /* "timeout", "nak", "implied", "rnr" */

enum roce_qp_ev_type {
	ROCE_QPE_TIMEOUT = 0,        /* local ACK timer expired: psn = oldest unacked, value = retries left */
	ROCE_QPE_RETRANSMIT,         /* go-back-N from psn; value = enum roce_qp_retx */
	ROCE_QPE_RNR_WAIT,           /* RNR NAK for psn: waiting value us */
	ROCE_QPE_NAK_RX,             /* NAK or RNR NAK for psn received; value = AETH syndrome */
	ROCE_QPE_NAK_TX,             /* NAK or RNR NAK for psn sent; value = AETH syndrome */
	ROCE_QPE_ACK_TX,             /* ACK for psn sent; value = MSN */
	ROCE_QPE_DUPLICATE,          /* responder: duplicate request psn; value = opcode */
	ROCE_QPE_OUT_OF_SEQ,         /* responder: request psn after the expected PSN (value) */
	ROCE_QPE_READ_REPLAY,        /* responder: duplicate READ at psn replayed, value packets */
	ROCE_QPE_ATOMIC_REPLAY,      /* responder: duplicate atomic at psn answered from the ring */
	ROCE_QPE_FAULT,              /* a fault rule fired on a frame with psn; value = enum roce_qpf_kind */
	ROCE_QPE_ERROR,              /* the QP went to the error state; value = enum roce_wc_status */
	ROCE_QPE_CNP_RX,
	ROCE_QPE_CNP_TX,
	ROCE_QPE__COUNT
};

struct roce_qp_event {
	enum roce_qp_ev_type type;
	uint64_t now;
	uint32_t psn;
	uint64_t value;
};

/* ---- callbacks --------------------------------------------------------------- */

struct roce_qp_ops {
	/* A complete Ethernet frame, valid during the call.  A negative return
	 * counts as a transmit error (the frame is lost; timers recover). */
	int (*emit)(void *ctx, const uint8_t *frame, uint32_t len);
	void (*complete)(void *ctx, const struct roce_wc *wc);   /* may be NULL */
	void (*event)(void *ctx, const struct roce_qp_event *ev); /* may be NULL */
	void *ctx;
};

/* ---- faults ------------------------------------------------------------------ */

enum roce_qpf_kind {
	ROCE_QPF_DROP = 0,   /* the frame is not emitted */
	ROCE_QPF_DUP,        /* emitted twice */
	ROCE_QPF_REORDER,    /* held and emitted after the next frame (or after reorder_hold_ns) */
	ROCE_QPF_DELAY,      /* held for delay_ns */
	ROCE_QPF_CORRUPT,    /* a wrong ICRC */
	ROCE_QPF_ECN_CE,     /* IP ECN = CE (3) */
	ROCE_QPF_PSN_JUMP,   /* the frame's PSN + arg (the engine's state does not change) */
	ROCE_QPF_BAD_RKEY,   /* a request's RETH/AtomicETH rkey xor (arg ? arg : 0x80000000) */
	ROCE_QPF_BAD_VA,     /* a request's VA + (arg ? arg : 1 << 40) */
	ROCE_QPF_RNR,        /* responder: answer an in-order SEND/WRITE-with-immediate with an
			      * RNR NAK as if no receive were posted */
	ROCE_QPF__COUNT
};
const char *roce_qpf_kind_name(enum roce_qpf_kind k); /* "drop", "dup", … */

/* Which frames a rule looks at */
enum roce_qpf_match {
	ROCE_QPF_ANY = 0,
	ROCE_QPF_REQ,        /* requests (our PSN space) */
	ROCE_QPF_RSP,        /* every response: ACK, NAK, READ response, ATOMIC ACK */
	ROCE_QPF_ACK,        /* ACK opcode with an ACK syndrome */
	ROCE_QPF_NAK,        /* ACK opcode with an RNR NAK or NAK syndrome */
	ROCE_QPF_READ_RSP,   /* READ responses */
	ROCE_QPF_CNP,
};

struct roce_qpf_rule {
	uint8_t kind;        /* enum roce_qpf_kind */
	uint8_t match;       /* enum roce_qpf_match */
	int16_t opcode;      /* -1: any; else only frames with this BTH opcode */
	uint8_t at_psn;      /* 1: only frames whose PSN is psn (before any PSN jump) */
	uint32_t psn;
	uint32_t ppm;        /* else: probability per matching frame, parts per million */
	uint32_t times;      /* fire at most this many times; 0: no limit */
	int64_t arg;         /* PSN_JUMP delta, BAD_RKEY xor, BAD_VA offset */
	uint64_t delay_ns;   /* DELAY */
	uint32_t fired;      /* written by the engine */
};

struct roce_qp_faults {
	uint64_t seed;               /* xorshift64* seed (0 is replaced by a constant) */
	struct roce_qpf_rule *rules; /* caller-owned; the engine updates .fired */
	unsigned n_rules;
	uint64_t reorder_hold_ns;    /* how long REORDER waits for a next frame; 0: 1 ms */
};

/* ---- statistics ------------------------------------------------------------ */

struct roce_qp_stats {
	uint64_t tx_pkts, tx_bytes;              /* frames handed to emit (duplicates included) */
	uint64_t rx_pkts, rx_bytes;              /* frames given to roce_qp_input */
	uint64_t tx_errors;                      /* emit returned < 0 */

	/* requester */
	uint64_t req_pkts;                       /* request packets built, first transmissions */
	uint64_t retx_pkts[ROCE_RETX__COUNT];    /* request packets built again, by trigger */
	uint64_t retx_episodes[ROCE_RETX__COUNT];
	uint64_t timeouts;
	uint64_t nak_rx[8];                      /* NAKs received by code (ROCE_NAK_*) */
	uint64_t rnr_nak_rx;
	uint64_t ack_rx, read_rsp_rx, atomic_ack_rx;
	uint64_t dup_rsp_rx;                     /* responses for PSNs already acknowledged */
	uint64_t ghost_rsp_rx;                   /* responses for PSNs never sent, or malformed */
	uint64_t implied_naks;
	uint64_t comp_ok, comp_err;
	uint64_t bytes_ok;                       /* payload bytes of successful WRs */

	/* responder */
	uint64_t req_rx;                         /* requests executed in order */
	uint64_t dup_req_rx;                     /* duplicate requests */
	uint64_t oos_req_rx;                     /* out-of-sequence requests */
	uint64_t ack_tx;
	uint64_t nak_tx[8];                      /* by code */
	uint64_t rnr_nak_tx;
	uint64_t read_rsp_tx, atomic_ack_tx;
	uint64_t read_replays, atomic_replays, replay_misses;
	uint64_t recv_ok, recv_err;

	/* both */
	uint64_t icrc_bad_rx;                    /* dropped silently */
	uint64_t drop_rx;                        /* other QPN/P_Key, not RC, truncated, QP in error */
	uint64_t ecn_ce_rx, cnp_rx, cnp_tx;
	uint64_t faults[ROCE_QPF__COUNT];        /* rules fired, by kind */
	uint64_t fault_slot_full;                /* delay/reorder with no free slot: sent at once */
};

/* ---- the QP ------------------------------------------------------------------- */

enum roce_qp_state {
	ROCE_QPS_RTS = 0,
	ROCE_QPS_ERR,
};

struct roce_qp_info {
	enum roce_qp_state state;
	enum roce_wc_status err;     /* why it went to error */
	uint32_t next_psn;           /* requester: PSN the next new request gets */
	uint32_t una_psn;            /* oldest unacknowledged PSN */
	uint32_t snd_psn;            /* next PSN to (re)transmit */
	uint32_t sq_outstanding;     /* posted, not completed */
	uint32_t rd_atomic_outstanding;
	uint8_t retry_left, rnr_left;
	uint64_t rto_deadline;       /* 0: timer not running */
	uint64_t rnr_deadline;       /* 0: not waiting */
	uint32_t epsn;               /* responder: expected PSN */
	uint32_t msn;
	uint32_t rq_posted;
	uint8_t nak_latched;         /* a sequence-error/RNR NAK is out and not yet resolved */
	uint8_t in_message;          /* 1 SEND, 2 WRITE in progress */
};

/* Bytes roce_qp_init() needs for these attributes (0 when they are invalid). */
size_t roce_qp_mem_size(const struct roce_qp_attr *attr);

/* Sets up a QP in mem (roce_qp_mem_size() bytes, any alignment) in RTS.
 * ROCE_EARG for invalid attributes or too small a block. */
int roce_qp_init(struct roce_qp **qp, void *mem, size_t size,
		 const struct roce_qp_attr *attr, const struct roce_qp_ops *ops);

/* Memory regions for the responder.  access: ROCE_ACCESS_*.  ROCE_ENOSPC
 * when the table is full, ROCE_EARG for a duplicate rkey or a NULL addr. */
#define ROCE_ACCESS_REMOTE_WRITE 1u
#define ROCE_ACCESS_REMOTE_READ 2u
#define ROCE_ACCESS_REMOTE_ATOMIC 4u
struct roce_mr {
	uint32_t rkey;
	uint64_t va;               /* the address the peer uses */
	uint8_t *addr;             /* where those bytes are here */
	uint64_t len;
	uint32_t access;
};
int roce_qp_reg_mr(struct roce_qp *qp, const struct roce_mr *mr);
int roce_qp_dereg_mr(struct roce_qp *qp, uint32_t rkey);

/* Queues a work request and transmits what may go now.  ROCE_ENOSPC when
 * the send queue is full, ROCE_EARG for a bad request.  In the error state
 * the WR completes at once with ROCE_WC_WR_FLUSH_ERR. */
int roce_qp_post_send(struct roce_qp *qp, const struct roce_wr *wr, uint64_t now);

/* Posts a receive buffer; ROCE_ENOSPC when the receive queue is full. */
int roce_qp_post_recv(struct roce_qp *qp, uint64_t wr_id, uint8_t *buf, uint32_t len,
		      uint64_t now);

/* A received frame.  icrc: ROCE_ICRC_GOOD or _BAD when the caller checked
 * it, ROCE_ICRC_UNCHECKED to let the engine verify it.  Frames for another
 * QPN return ROCE_EARG (and count in drop_rx), so a caller may try several
 * QPs; everything else returns ROCE_OK. */
int roce_qp_input(struct roce_qp *qp, const struct roce_pkt *p, enum roce_icrc_status icrc,
		  uint64_t now);

/* Runs the timers due at now and transmits what may go. */
void roce_qp_tick(struct roce_qp *qp, uint64_t now);

/* When roce_qp_tick() is next needed: UINT64_MAX for never; a time at or
 * before the last call's now means "at once" (tx_burst left work). */
uint64_t roce_qp_next_deadline(const struct roce_qp *qp);

/* Installs fault rules (NULL removes them) and reseeds the PRNG. */
void roce_qp_set_faults(struct roce_qp *qp, struct roce_qp_faults *f);

/* Moves the QP to the error state: WRs and receives are flushed. */
void roce_qp_set_error(struct roce_qp *qp, uint64_t now);

void roce_qp_info(const struct roce_qp *qp, struct roce_qp_info *info);
const struct roce_qp_stats *roce_qp_stats(const struct roce_qp *qp);
void roce_qp_stats_reset(struct roce_qp *qp);

/* For hand-made frames (conformance tests): a spec with this QP's
 * addresses, P_Key and the peer's QPN as DestQP; the caller sets opcode,
 * PSN, headers and payload.  roce_qp_emit_spec() builds it and emits it
 * through ops.emit, bypassing the engine's state and faults. */
void roce_qp_frame_spec(const struct roce_qp *qp, struct roce_frame_spec *spec);
int roce_qp_emit_spec(struct roce_qp *qp, const struct roce_frame_spec *spec);

/* ---- latency summary (perftest-like report) ------------------------------ */

struct roce_lat {
	uint64_t *v;                 /* caller's array */
	size_t n, cap;
	uint64_t overflow;           /* samples beyond cap (not kept) */
};

struct roce_lat_summary {
	uint64_t n;
	uint64_t min, max;
	uint64_t typical;            /* median */
	uint64_t p99, p999;
	double avg;
};

void roce_lat_init(struct roce_lat *l, uint64_t *buf, size_t cap);
void roce_lat_add(struct roce_lat *l, uint64_t ns);
/* Sorts the samples in place; all zero when there are none.  Percentiles
 * are nearest-rank: the smallest sample with at least p% at or below it. */
void roce_lat_summarize(struct roce_lat *l, struct roce_lat_summary *s);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_QP_H */
