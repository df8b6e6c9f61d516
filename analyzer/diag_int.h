/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_int.h — the diagnosis layer's evidence (diag.c) as its rules
 * (diag_rules.c) read it.  Not for other files.
 */
#ifndef ROCETOP_DIAG_INT_H
#define ROCETOP_DIAG_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"

#define DIAG_CHAIN 8                 /* timeout waits of one PSN kept for the backoff rule */
#define DIAG_NAK_CNP_NS 10000ull     /* a CNP this close to a NAK goes out with it */
#define DIAG_CNP_FALL 0.9            /* a sender slowed: below 90 % of the rate before */

enum { FL_MAC = 1, FL_TAGGED = 2, FL_DSCP_MIXED = 4, FL_PCP_MIXED = 8, FL_REQ = 16 };

/* One flow slot: the flow's class and sending MAC, its request bytes in
 * rate bins of one reaction time, its troubled-connection record. */
struct dg_fl {
	uint32_t src, dst, qpn;      /* the flow this entry describes (slots are reused) */
	uint8_t used, flags;         /* FL_* */
	uint8_t dscp, pcp;           /* of its first packet */
	uint8_t ecn_req;             /* bit n: a request carried ECN codepoint n */
	uint8_t mac[6];
	uint32_t conn;               /* index + 1 in diag.conn */
	uint32_t cur, prev;          /* request bytes in bin `bin` and in the one before */
	uint64_t bin;
	uint64_t f0, f1;             /* first and last frame */
};

/* What only a troubled connection needs, for the requests of one flow. */
struct dg_conn {
	uint32_t src, dst, qpn;      /* the request flow (hosts of the engine) */
	uint32_t flow1;              /* its slot + 1 when made */
	uint8_t cm, ack_t, retry, rnr_retry;
	uint64_t cm_frame;
	uint64_t last_req_ns, last_ack_ns, last_req_frame;
	/* timeouts */
	uint32_t to_wait[DIAG_LIST_MAX];
	uint8_t n_to_w;
	uint32_t n_to;
	uint64_t to_f0, to_f1, to_ns;
	uint32_t ch_psn, ch[DIAG_CHAIN], bo[DIAG_CHAIN];
	uint8_t ch_n, bo_n;
	uint64_t ch_f0, bo_f0, bo_f1, bo_ns;
	/* retries of one PSN (current, and the most) */
	uint32_t rt_psn, rt_n, rt_rnr, rtx_max, rtx_rnr_max, rtx_psn;
	uint64_t rt_f0, rt_f1, rtx_f0, rtx_f1, rtx_ns;
	uint64_t ep_ns, ep_frame;    /* the last episode */
	uint32_t ep_wait_us;         /* its wait when a timeout */
	/* RNR */
	uint8_t rnr_pend, n_rnr_w;
	uint32_t rnr_psn, rnr_us, rnr_naks;
	uint64_t rnr_ns, rnr_f0, rnr_f1, rnr_last_ns;
	uint32_t rnr_wait[DIAG_LIST_MAX], rnr_timer[DIAG_LIST_MAX];
	/* CNPs and the sender's rate around them */
	uint32_t cnps, cpair1;       /* cpair1: its CNPs' IP pair (diag.cpair) + 1 */
	uint64_t cnp_last_ns, cnp_gap_min_ns, cnp_f0, cnp_f1;
	uint8_t cnp_matched, chk, nak_open;
	uint64_t chk_bin;
	double chk_before;
	uint32_t measured, fell;
	double before_sum, after_sum;
	/* NAKs */
	uint32_t naks, with_cnp;
	uint64_t nak_last_ns, nak_ns, nak_f0, nak_f1;
	/* PSNs missing where the capture sees them, and holes filled later */
	uint32_t missing, resent;
	uint64_t loss_f0, loss_f1, loss_ns;
};

/* CNP pacing (diag_pacing.c): each host that sends CNPs, and each IP pair
 * it sends them to; the least intervals between consecutive CNPs to
 * different QPs of one pair and to different pairs (+ 1 ns; 0: none). */
struct dg_csrc {
	uint32_t host, last_peer;
	uint64_t last_ns, xpair_min;
	/* a part of --threads (cfg.cnp_times): each CNP's time, until the
	 * engine's DIAG_CNP_TIMES are used (cut: some were not kept) */
	uint64_t *t;
	uint32_t nt, tcap;
	uint8_t cut;
};
struct dg_cpair {
	uint32_t src, peer, csrc1;   /* the CNP source, the hosts it sends to, its dg_csrc + 1 */
	uint32_t last_qpn;
	uint64_t last_ns, xqp_min;
};
/* Per-frame hook: a CNP from host src to host peer's QP qpn at ts, for c. */
struct diag;
void dg_cnp_pace(struct diag *d, struct dg_conn *c, uint32_t src, uint32_t peer, uint32_t qpn, uint64_t ts);

/* One port's priority (0..7; 8 = 802.3x PAUSE): its runs of continuous pause. */
struct dg_prio {
	uint64_t frames, f0, f1, last_ns;
	uint8_t in_run;
	uint64_t run0, until, run_f0, run_f1, run_quanta;
	uint64_t longest, long_f0, long_f1, long_quanta, long_end;
};
void dg_run_close(struct dg_prio *s);

struct diag {
	struct diag_cfg cfg;
	struct dg_fl *fl;
	uint32_t nfl;
	struct dg_conn *conn;
	uint32_t nconn, conn_cap;
	struct dg_prio *prio;        /* 9 per port, by port index */
	uint32_t nprio;
	uint64_t roce_pcp[8], roce_untagged;
	struct dg_csrc *csrc;
	uint32_t ncsrc, csrc_cap;
	struct dg_cpair *cpair;
	uint32_t ncpair, cpair_cap;
	uint32_t ntimes;             /* CNP times kept, all sources (≤ DIAG_CNP_TIMES) */
};
/* p (an array of *cap elements of size bytes) grown to hold need, doubling
 * from 64, the new elements zeroed; aborts when memory runs out, as the flow
 * table does.  Here, below diag.c and diag_pacing.c, which both grow arrays. */
static inline void *dg_grow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t nc = *cap ? *cap : 64;
	uint8_t *np;

	while (nc < need)
		nc *= 2;
	np = realloc(p, (size_t)nc * size);
	if (!np)
		abort();
	memset(np + (size_t)*cap * size, 0, (size_t)(nc - *cap) * size);
	*cap = nc;
	return np;
}

#endif
