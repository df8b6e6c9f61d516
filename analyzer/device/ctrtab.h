/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctrtab.h — what the RDMA drivers' counters mean: one table (ctrtab_rdma.c)
 * of the names mlx5, mlx4, bnxt_re, irdma, efa, hfi1, rxe and siw register
 * under hw_counters/ and the PMA names under counters/, each with its kind
 * (counter or gauge), its width and how it overflows, its side and a meaning
 * from one small vocabulary.  Names the table lacks are shown raw.
 *
 *   ctr_lookup(driver, name) → entry or NULL
 *   ctr_delta(entry, prev, cur, &d) → 0, or -1 for a reset
 */
#ifndef ROCETOP_CTRTAB_H
#define ROCETOP_CTRTAB_H

#include <stddef.h>
#include <stdint.h>

enum ctr_kind { CTR_COUNTER = 0, CTR_GAUGE = 1 };

enum ctr_width {
	CTR_W64 = 0,       /* 64-bit: going down is a reset */
	CTR_W32_WRAP,      /* 32-bit, wraps to 0 (mlx5 queue counters) */
	CTR_PMA_SAT,       /* PMA counter: saturates at its width's maximum */
};

enum ctr_side { CTR_PORT = 0, CTR_REQ, CTR_RESP, CTR_DEVICE };

/* The vocabulary.  Keep ctr_meaning_name() (ctrtab_rdma.c) in step. */
enum ctr_meaning {
	M_NONE = 0,
	M_DUP_REQ,           /* duplicate requests received */
	M_OOS_RECV,          /* out-of-sequence packets received */
	M_SEQ_NAK_SENT,      /* sequence-error NAKs sent */
	M_SEQ_NAK_RECV,      /* sequence-error NAKs received */
	M_RNR_NAK_SENT,
	M_RNR_NAK_RECV,
	M_LOCAL_ACK_TIMEOUT,
	M_RETRY_EXCEEDED,
	M_RNR_RETRY_EXCEEDED,
	M_IMPLIED_NAK,
	M_CNP_SENT,
	M_CNP_HANDLED,
	M_CNP_IGNORED,
	M_CNP_RECV,
	M_ECN_MARKED_RECV,
	M_ICRC_ERR,
	M_DISCARD,           /* packets dropped (not out of buffer) */
	M_OUT_OF_BUFFER,     /* dropped: no receive WQE / buffer */
	M_RX_PKTS, M_TX_PKTS, M_RX_BYTES, M_TX_BYTES,
	M_CQE_ERR,           /* completions with error */
	M_REMOTE_ACCESS_ERR,
	M_REMOTE_INVALID_REQ,
	M_REMOTE_OP_ERR,
	M_LOCAL_ERR,         /* local length / protection / QP operation errors */
	M_RETRANSMIT,        /* retransmissions started (timeouts included) */
	M_LINK_ERR,          /* symbol errors, link recovery, link downed */
	M_RX_READ, M_RX_WRITE, M_RX_ATOMIC, M_RX_SEND,
	M_RES_ACTIVE,        /* resources in use (gauge) */
	M_RES_WATERMARK,     /* the most ever in use (gauge) */
	M_XMIT_WAIT,         /* ticks the port had data and could not send */
	M_NMEANINGS
};

struct ctr_entry {
	const char *driver;      /* "mlx5", …; "*" for every driver (PMA names) */
	const char *name;        /* as the kernel names it */
	uint8_t kind, width, side, meaning;
	uint8_t scale;           /* units of the meaning per count (0: 1); PMA data counts 4-octet words */
	/* A counter that already counts these events (or a superset of them),
	 * when the same port has it: e.g. mlx5's optional cc_tx_cnp_pkts counts
	 * the CNPs np_cnp_sent counts.  Shown with its meaning, but a sum by
	 * meaning (ctr_counts_in_sum) takes only one of the two. */
	const char *same_as;
};

/* The table; ctr_table_n entries, one per (driver, name). */
extern const struct ctr_entry ctr_table[];
extern const size_t ctr_table_n;

/* "mlx5" for "mlx5_0", "bnxt_re" for "bnxt_re1", "rxe" for "rxe0" or
 * "rxe_eth0": the driver a device name implies; "" when none is known. */
const char *ctr_driver_of(const char *dev);
/* The entry for driver's name (a driver's own first, then "*"); a per-VL
 * name ("TxPktVL3") without one of its own, its stem's ("TxPktVL"); NULL. */
const struct ctr_entry *ctr_lookup(const char *driver, const char *name);
/* "duplicate_request", … (snake case, the JSON and Prometheus label);
 * "" for M_NONE. */
const char *ctr_meaning_name(unsigned meaning);
/* The advance from prev to cur per e's width (e NULL: 64-bit); -1 when it
 * went down and cannot be a wrap (a reset). Gauges: always -1 when down. */
int ctr_delta(const struct ctr_entry *e, uint64_t prev, uint64_t cur, uint64_t *d);
/* raw in the meaning's units (bytes for port_xmit_data's words). */
uint64_t ctr_units(const struct ctr_entry *e, uint64_t raw);
/* Whether e goes into its port's sum by meaning: a counter, with a meaning,
 * and not the same events as a counter the port also has (has(name, ctx)
 * tells; e->same_as). */
int ctr_counts_in_sum(const struct ctr_entry *e, int (*has)(const char *name, const void *ctx), const void *ctx);

#endif
