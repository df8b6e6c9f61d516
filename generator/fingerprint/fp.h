/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fp.h — the congestion fingerprint's probe of an adapter as responder and
 * its classifier (fp_probe.c), shared by `rocegen fingerprint`
 * (fingerprint.c) and the conform cases resp.cnp-scope and resp.cnp-nak
 * (conform_cases.c): one implementation of the phases and of the rules.
 *
 * The adapter is reached only through struct cf_io (conform.h).  Three RC
 * QPs on it, QPs 0 and 1 from src[0], QP 2 from src[1] (a second address of
 * ours: another IP pair); see fp_probe.c for the phases and the rules.
 */
#ifndef ROCEGEN_FP_H
#define ROCEGEN_FP_H

#include <stddef.h>
#include <stdint.h>
#include "conform.h"
#include "stress.h"

#define FP_QPS 3
#define FP_QPN0 0x2000u
#define FP_PAYLOAD 64
#define FP_NAKS 3                    /* sequence NAKs provoked in the nak phase */
#define FP_SCOPE_RATIO 1.4

enum { FP_PH_SOLO = 0, FP_PH_MIXED, FP_PH_NAK, FP_PH_N };
extern const char *const fp_phase_names[FP_PH_N];

/* The probe's times, ns.  The reference adapter runs on a simulated clock;
 * a real adapter answers after its host's scheduling (rxe under TCG: ms), so
 * its quiet times and NAK waits are longer, the marking pattern the same. */
struct fp_timing {
	uint64_t gap_ns;             /* between two marked requests */
	uint64_t phase_ns;           /* solo and mixed each */
	uint64_t quiet_ns;           /* before each phase: pacing state expires, responses drain */
	uint64_t nak_ns;             /* nak phase: wait for the sequence NAK */
	uint64_t load_ns;            /* requester phase: the whole load */
};
extern const struct fp_timing fp_timing_reference, fp_timing_live;

struct fp_qp {
	unsigned id;                 /* the adapter's QP id */
	uint32_t dut_qpn, psn;
	uint8_t src[4];
	uint64_t last_cnp;
	int have_cnp;
	uint64_t min_gap[FP_PH_N];   /* least interval between two of its CNPs */
	uint32_t resp_next;          /* the PSN the adapter expects, from its last ACK or NAK */
	int have_resp;
};

struct fp {
	struct cf_io *io;
	const struct fp_timing *tm;
	struct fp_qp q[FP_QPS];
	uint8_t us_mac[6], dut_mac[6], dut_ip[4];
	uint32_t rkey;
	uint64_t va;
	int phase;
	uint64_t cnp[FP_PH_N][FP_QPS], acks[FP_PH_N][FP_QPS], naks[FP_PH_N], ce[FP_PH_N], sent[FP_PH_N];
	struct st_dist gaps;         /* solo: QP 0's intervals */
	char err[320];               /* what failed (a control request and its reply) */
};

/* A frame spec from us (QP qi's address) to the adapter, the rest zero. */
void fp_spec(const struct fp *f, struct roce_frame_spec *s, unsigned qi);
/* One control request; 0 with rep "ok …", else -1 with f->err set. */
int fp_ctl(struct fp *f, char *rep, size_t cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The MR and the three QPs (after "reset"), then the three phases: 0, or -1
 * with f->err set.  f->io, f->tm, the addresses and q[i].src set by the caller. */
int fp_setup(struct fp *f);
int fp_probe(struct fp *f);
void fp_free(struct fp *f);

/* What the phases show (fp_decide): verdict PASS, FAIL or UNSUPPORTED. */
struct fp_verdict {
	const char *pacing;          /* "qp", "ip_pair", "port", "unpaced"; NULL: no CNP */
	uint64_t sent, min_ns, p50_ns, pair_a, pair_b, solo;
	int with_nak;
	const char *verdict, *why;
};
void fp_decide(struct fp *f, struct fp_verdict *v);
/* qsort order of uint64_t */
int fp_u64cmp(const void *a, const void *b);

#endif /* ROCEGEN_FP_H */
