/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fingerprint.c — `rocegen fingerprint`: a Lumina-style congestion-control
 * fingerprint of an adapter as responder (DCQCN's notification point).
 *
 *   rocegen fingerprint --reference cnp-qp|cnp-ip|cnp-port|no-cc[:US]|good [--json]
 *
 * rocegen is the requester of three RC QPs on the adapter: QPs 0 and 1
 * from one IP address (one IP pair), QP 2 from a second address.  It sends
 * RDMA WRITE Only requests (64 bytes, AckReq) at exact times and PSNs and
 * marks them ECN CE itself, in three phases, each after a quiet time:
 *
 *   solo   QP 0 alone, a CE-marked request every microsecond for 4 ms:
 *          the CNPs the adapter returns and the least interval between two
 *          (with every request marked, the adapter's pacing interval)
 *   mixed  QPs 0, 1, 2 in turn, the same rate for the same time: the CNPs
 *          per QP and per IP pair against the solo count decide the scope
 *          of the pacing —
 *            all three together no more than 1.4 × solo      → "port"
 *            else QPs 0 + 1 (one pair) no more than 1.4 × solo → "ip_pair"
 *            else                                              → "qp"
 *          (a CNP for nearly every marked request: "unpaced", no scope)
 *   nak    QP 0 without CE marks: a PSN left out (the next request comes
 *          early, a sequence NAK back), three times; a CNP in this phase
 *          can only accompany the NAK (Lumina: ConnectX-5/6 under
 *          slow_restart do, ConnectX-4 and E810 do not)
 *
 * No CNP in solo and mixed: the adapter has no congestion control (as rxe),
 * the verdict UNSUPPORTED.  The adapter's own counters (np_cnp_sent,
 * np_ecn_marked_roce_packets) before and after are given beside the wire.
 *
 * Then the adapter as requester (DCQCN's reaction point): it posts 600
 * WRITEs of 1 KiB on one QP (`load`), rocegen ACKs each at once and sends
 * one CNP after 200 have come: the median gap between requests before
 * against after (past the 32 following the CNP) gives the rate cut (20 %
 * or more is a reaction), the time from the CNP to the last request before
 * the first gap 1.5 times the old one the reaction time.
 *
 * Only the in-process reference adapter for now (stress_ref.c's cnp-*
 * modes, which exist to test this classifier, and `good`, whose CNPs come
 * from lib/qp's responder: per QP, 50 us).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "stress.h"
#include "ctl.h"

int gen_fingerprint_main(int argc, char **argv);

#define FP_QPS 3
#define FP_QPN0 0x2000u
#define FP_GAP_NS 1000ull            /* between two marked requests */
#define FP_PHASE_NS 4000000ull       /* solo and mixed: 4 ms each */
#define FP_QUIET_NS 2000000ull       /* before each phase: any pacing state expires */
#define FP_NAKS 3
#define FP_PAYLOAD 64
#define FP_SCOPE_RATIO 1.4

enum { PH_SOLO = 0, PH_MIXED, PH_NAK, PH_N };
static const char *const fp_phase_names[PH_N] = { "solo", "mixed", "nak" };

struct fp_qp {
	unsigned id;                 /* the adapter's QP id */
	uint32_t dut_qpn, psn;
	uint8_t src[4];
	uint64_t last_cnp;
	int have_cnp;
	uint64_t min_gap[PH_N];      /* least interval between two of its CNPs */
};

struct fp {
	struct cf_io *io;
	struct fp_qp q[FP_QPS];
	uint8_t us_mac[6], dut_mac[6], dut_ip[4];
	uint32_t rkey;
	uint64_t va;
	int phase;
	uint64_t cnp[PH_N][FP_QPS], naks[PH_N], ce[PH_N];
	uint64_t *gaps;              /* solo: QP 0's intervals */
	size_t ngaps, capgaps;
	int nak_seen;
	uint32_t nak_psn;
};

static int fp_ctl(struct fp *f, char *rep, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fp_ctl(struct fp *f, char *rep, size_t cap, const char *fmt, ...)
{
	char req[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	if (f->io->ctl(f->io->ctx, req, rep, cap) || strncmp(rep, "ok", 2)) {
		fprintf(stderr, GEN_NAME " fingerprint: adapter: '%s' → '%s'\n", req, rep);
		return -1;
	}
	return 0;
}

static void fp_rx(struct fp *f, const uint8_t *b, uint32_t len, uint64_t ts)
{
	struct roce_pkt p;
	struct fp_qp *q;
	uint32_t i;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, b, len, len);
	if (!p.bth_off || p.dqpn < FP_QPN0 || (i = p.dqpn - FP_QPN0) >= FP_QPS)
		return;
	q = &f->q[i];
	if (roce_opcode_is_cnp(p.opcode)) {
		f->cnp[f->phase][i]++;
		if (q->have_cnp) {
			uint64_t g = ts - q->last_cnp;

			if (!q->min_gap[f->phase] || g < q->min_gap[f->phase])
				q->min_gap[f->phase] = g;
			if (f->phase == PH_SOLO && i == 0) {
				if (f->ngaps == f->capgaps) {
					size_t nc = f->capgaps ? 2 * f->capgaps : 256;
					uint64_t *ng = realloc(f->gaps, nc * sizeof(*ng));

					if (!ng)
						return;
					f->gaps = ng;
					f->capgaps = nc;
				}
				f->gaps[f->ngaps++] = g;
			}
		}
		q->last_cnp = ts;
		q->have_cnp = 1;
	} else if (p.opcode == ROCE_OP_ACK && p.aeth_off &&
		   ROCE_AETH_TYPE(roce_aeth_syndrome(&p)) == ROCE_AETH_NAK) {
		f->naks[f->phase]++;
		if (i == 0) {
			f->nak_seen = 1;
			f->nak_psn = p.psn;
		}
	}
}

/* Everything the adapter sends until `until` (the io clock). */
static int fp_wait(struct fp *f, uint64_t until)
{
	uint8_t b[2048];
	uint32_t len;
	uint64_t ts;
	int rc;

	while ((rc = f->io->recv(f->io->ctx, b, sizeof(b), &len, &ts, until)) == 1)
		fp_rx(f, b, len, ts);
	return rc < 0 ? -1 : 0;
}

/* An RDMA WRITE Only of QP qi at PSN psn, CE-marked when ce. */
static int fp_send(struct fp *f, unsigned qi, uint32_t psn, int ce)
{
	static const uint8_t pay[FP_PAYLOAD];
	struct roce_frame_spec s;
	uint8_t b[256];
	int n;

	memset(&s, 0, sizeof(s));
	s.version = ROCE_VER_V2;
	memcpy(s.eth.src, f->us_mac, 6);
	memcpy(s.eth.dst, f->dut_mac, 6);
	s.ip.version = 4;
	memcpy(s.ip.src, f->q[qi].src, 4);
	memcpy(s.ip.dst, f->dut_ip, 4);
	s.ip.ecn = ce ? 3 : 2;
	s.sport = (uint16_t)(0xc000 + qi);
	s.bth.opcode = ROCE_OP_WRITE_ONLY;
	s.bth.ackreq = 1;
	s.bth.dqpn = f->q[qi].dut_qpn;
	s.bth.psn = psn & 0xffffff;
	s.bth.pad = -1;
	s.ext.va = f->va + (uint64_t)qi * FP_PAYLOAD;
	s.ext.rkey = f->rkey;
	s.ext.dmalen = FP_PAYLOAD;
	s.payload = pay;
	s.payload_len = FP_PAYLOAD;
	if ((n = roce_build(b, sizeof(b), &s)) < 0)
		return -1;
	if (ce)
		f->ce[f->phase]++;
	return f->io->send(f->io->ctx, b, (uint32_t)n) < 0 ? -1 : 0;
}

static int fp_setup(struct fp *f)
{
	char rep[512];

	/* one MR for every QP (the reference registers an MR without qp= in each) */
	if (fp_ctl(f, rep, sizeof(rep), "reset") ||
	    fp_ctl(f, rep, sizeof(rep), "mr len=4096 access=w"))
		return -1;
	f->rkey = (uint32_t)ctl_u64(rep, "rkey", 0);
	f->va = ctl_u64(rep, "va", 0);
	for (unsigned i = 0; i < FP_QPS; i++) {
		struct fp_qp *q = &f->q[i];

		if (fp_ctl(f, rep, sizeof(rep), "qp"))
			return -1;
		q->id = (unsigned)ctl_u64(rep, "qp", 0);
		q->dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
		q->psn = 0x100 * (i + 1);
		if (fp_ctl(f, rep, sizeof(rep), "connect qp=%u rqpn=0x%x psn=0 rpsn=0x%x mtu=1024 timeout=14 rgid=%u.%u.%u.%u",
			   q->id, FP_QPN0 + i, q->psn, q->src[0], q->src[1], q->src[2], q->src[3]))
			return -1;
	}
	return 0;
}

static int fp_counters(struct fp *f, uint64_t *cnp, uint64_t *ecn)
{
	char rep[1024];

	if (fp_ctl(f, rep, sizeof(rep), "counters"))
		return -1;
	*cnp = ctl_u64(rep, "np_cnp_sent", 0);
	*ecn = ctl_u64(rep, "np_ecn_marked_roce_packets", 0);
	return 0;
}

/* The three phases (see the top of the file). */
static int fp_probe(struct fp *f)
{
	uint64_t t;

	f->phase = PH_SOLO;
	t = f->io->now(f->io->ctx) + FP_QUIET_NS;
	if (fp_wait(f, t))
		return -1;
	for (uint64_t k = 0; k < FP_PHASE_NS / FP_GAP_NS; k++) {
		if (fp_wait(f, t + k * FP_GAP_NS) || fp_send(f, 0, f->q[0].psn++, 1))
			return -1;
	}
	t += FP_PHASE_NS + FP_QUIET_NS;
	if (fp_wait(f, t))
		return -1;
	f->phase = PH_MIXED;
	for (unsigned i = 0; i < FP_QPS; i++)
		f->q[i].have_cnp = 0;
	for (uint64_t k = 0; k < FP_PHASE_NS / FP_GAP_NS; k++) {
		unsigned qi = (unsigned)(k % FP_QPS);

		if (fp_wait(f, t + k * FP_GAP_NS) || fp_send(f, qi, f->q[qi].psn++, 1))
			return -1;
	}
	t += FP_PHASE_NS + FP_QUIET_NS;
	if (fp_wait(f, t))
		return -1;
	f->phase = PH_NAK;
	for (unsigned i = 0; i < FP_QPS; i++)
		f->q[i].have_cnp = 0;
	for (int j = 0; j < FP_NAKS; j++) {
		uint32_t p = f->q[0].psn;

		f->nak_seen = 0;
		/* p, then p + 2: p + 1 left out */
		if (fp_send(f, 0, p, 0) || fp_wait(f, t + 10000) || fp_send(f, 0, p + 2, 0) ||
		    fp_wait(f, t + 200000))
			return -1;
		/* go back to p + 1 (the NAK's PSN when there was one) */
		if (fp_send(f, 0, p + 1, 0) || fp_wait(f, t + 210000) || fp_send(f, 0, p + 2, 0))
			return -1;
		f->q[0].psn = p + 3;
		t += FP_QUIET_NS;
		if (fp_wait(f, t))
			return -1;
	}
	return 0;
}

/* ---- the adapter as requester: the reaction point ---- */

#define RP_MSGS 600                  /* WRITEs the adapter posts (1 KiB each, one packet) */
#define RP_CNP_AT 200                /* the CNP goes out after this many have arrived */
#define RP_WIDE 1.5                  /* a gap this much over the baseline: the rate was cut */
#define RP_MIN_CUT 0.2               /* the least cut of the rate that counts as a reaction */

struct fp_rp {
	int measured;                    /* the adapter ran its load */
	uint64_t n, t_cnp;
	uint64_t *ts;                    /* arrival of each request */
	double base_ns, after_ns, rate_cut, reaction_us;
	int reacted;
};

static int fp_u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double fp_median_gap(const uint64_t *ts, uint64_t from, uint64_t to)
{
	uint64_t g[RP_MSGS];
	size_t n = 0;

	for (uint64_t i = from + 1; i < to; i++)
		g[n++] = ts[i] - ts[i - 1];
	if (!n)
		return 0;
	qsort(g, n, sizeof(*g), fp_u64cmp);
	return (double)g[n / 2];
}

/* ACK of the adapter's request psn (MSN msn), or a CNP to its QP. */
static int fp_send_ack(struct fp *f, uint32_t dqpn, uint32_t psn, uint32_t msn, int cnp)
{
	struct roce_frame_spec s;
	uint8_t b[128];
	int n;

	memset(&s, 0, sizeof(s));
	s.version = ROCE_VER_V2;
	memcpy(s.eth.src, f->us_mac, 6);
	memcpy(s.eth.dst, f->dut_mac, 6);
	s.ip.version = 4;
	memcpy(s.ip.src, f->q[0].src, 4);
	memcpy(s.ip.dst, f->dut_ip, 4);
	if (cnp) {
		roce_spec_cnp(&s, dqpn);
	} else {
		s.ip.ecn = 2;
		s.bth.opcode = ROCE_OP_ACK;
		s.bth.dqpn = dqpn;
		s.bth.psn = psn & 0xffffff;
		s.ext.syndrome = 0x1f;   /* ACK, no credit count */
		s.ext.msn = msn & 0xffffff;
	}
	if ((n = roce_build(b, sizeof(b), &s)) < 0)
		return -1;
	return f->io->send(f->io->ctx, b, (uint32_t)n) < 0 ? -1 : 0;
}

/* The adapter posts RP_MSGS WRITEs of 1 KiB to us on one QP; we ACK each at
 * once and send one CNP after RP_CNP_AT have arrived: the median gap between
 * requests before it against after the first gap RP_WIDE times the baseline
 * gives the rate cut, the time from the CNP to that gap the reaction. */
static int fp_reaction(struct fp *f, struct fp_rp *rp)
{
	char rep[512];
	unsigned id, mr;
	uint32_t dut_qpn, msn = 0;
	uint64_t deadline;
	uint8_t b[2048];

	memset(rp, 0, sizeof(*rp));
	if (!(rp->ts = calloc(RP_MSGS, sizeof(*rp->ts))))
		return -1;
	if (fp_ctl(f, rep, sizeof(rep), "reset") || fp_ctl(f, rep, sizeof(rep), "mr len=65536 access=w"))
		return -1;
	mr = (unsigned)ctl_u64(rep, "mr", 0);
	if (fp_ctl(f, rep, sizeof(rep), "qp"))
		return -1;
	id = (unsigned)ctl_u64(rep, "qp", 0);
	dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
	if (fp_ctl(f, rep, sizeof(rep), "connect qp=%u rqpn=0x%x psn=0 rpsn=0 mtu=1024 timeout=14 rgid=%u.%u.%u.%u", id,
		   FP_QPN0, f->q[0].src[0], f->q[0].src[1], f->q[0].src[2], f->q[0].src[3]) ||
	    fp_ctl(f, rep, sizeof(rep), "load qp=%u mr=%u rva=0x10000 rkey=0x77 n=%u qd=16 ops=%u min=1024 max=1024 seed=1 idx=0",
		   id, mr, RP_MSGS, CTL_WL_WRITE))
		return -1;
	deadline = f->io->now(f->io->ctx) + 50000000ull;   /* 50 ms for the whole load */
	while (rp->n < RP_MSGS) {
		struct roce_pkt p;
		uint32_t len;
		uint64_t ts;
		int rc = f->io->recv(f->io->ctx, b, sizeof(b), &len, &ts, deadline);

		if (rc < 0)
			return -1;
		if (!rc)
			break;
		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, b, len, len);
		if (!p.bth_off || p.dqpn != FP_QPN0 || p.opcode != ROCE_OP_WRITE_ONLY)
			continue;
		rp->ts[rp->n++] = ts;
		if (fp_send_ack(f, dut_qpn, p.psn, ++msn, 0))
			return -1;
		if (rp->n == RP_CNP_AT) {
			rp->t_cnp = f->io->now(f->io->ctx);
			if (fp_send_ack(f, dut_qpn, 0, 0, 1))
				return -1;
		}
	}
	rp->measured = rp->n == RP_MSGS;
	if (!rp->measured)
		return 0;
	/* the medians before and well after the CNP (past a window of 16 already
	 * posted): a cut of RP_MIN_CUT or more is a reaction */
	rp->base_ns = fp_median_gap(rp->ts, RP_CNP_AT / 4, RP_CNP_AT);
	rp->after_ns = fp_median_gap(rp->ts, RP_CNP_AT + 32, rp->n);
	rp->rate_cut = rp->after_ns > 0 && rp->after_ns > rp->base_ns ? 1.0 - rp->base_ns / rp->after_ns : 0;
	rp->reacted = rp->rate_cut >= RP_MIN_CUT;
	for (uint64_t i = RP_CNP_AT; rp->reacted && i < rp->n; i++)
		if ((double)(rp->ts[i] - rp->ts[i - 1]) >= RP_WIDE * rp->base_ns) {
			rp->reaction_us = rp->ts[i - 1] > rp->t_cnp ? (double)(rp->ts[i - 1] - rp->t_cnp) / 1e3 : 0;
			break;
		}
	return 0;
}

static int fp_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct fp_verdict {
	const char *pacing;          /* NULL: no CNP */
	uint64_t sent, min_ns, p50_ns, pair_a, pair_b, solo;
	int with_nak;
	const char *verdict, *why;
};

static void fp_decide(struct fp *f, struct fp_verdict *v)
{
	memset(v, 0, sizeof(*v));
	for (int ph = 0; ph < PH_N; ph++)
		for (int i = 0; i < FP_QPS; i++)
			v->sent += f->cnp[ph][i];
	v->solo = f->cnp[PH_SOLO][0];
	v->pair_a = f->cnp[PH_MIXED][0] + f->cnp[PH_MIXED][1];
	v->pair_b = f->cnp[PH_MIXED][2];
	v->with_nak = f->naks[PH_NAK] && f->cnp[PH_NAK][0] > 0;
	if (f->ngaps) {
		qsort(f->gaps, f->ngaps, sizeof(*f->gaps), fp_cmp);
		v->min_ns = f->gaps[0];
		v->p50_ns = f->gaps[f->ngaps / 2];
	}
	v->verdict = "PASS";
	if (!v->solo && !v->pair_a && !v->pair_b) {
		v->verdict = "UNSUPPORTED";
		v->why = "no CNP for any CE-marked request: no congestion control";
	} else if (!v->solo) {
		v->verdict = "FAIL";
		v->why = "CNPs in the mixed phase but none for QP 0 alone";
	} else if ((double)v->solo >= 0.9 * (double)f->ce[PH_SOLO]) {
		v->pacing = "unpaced";
		v->why = "a CNP for nearly every CE-marked request: no pacing to scope";
	} else if ((double)(v->pair_a + v->pair_b) <= FP_SCOPE_RATIO * (double)v->solo) {
		v->pacing = "port";
		v->why = "the three QPs of two IP pairs together got no more CNPs than QP 0 alone";
	} else if ((double)v->pair_a <= FP_SCOPE_RATIO * (double)v->solo) {
		v->pacing = "ip_pair";
		v->why = "QPs 0 and 1 (one IP pair) together got no more CNPs than QP 0 alone; QP 2 (another pair) as many again";
	} else {
		v->pacing = "qp";
		v->why = "every QP got about as many CNPs as QP 0 alone";
	}
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void fp_report_json(const struct fp *f, const struct fp_verdict *v, const struct fp_rp *rp, const char *name,
			   uint64_t dcnp, uint64_t decn)
{
	printf("{\"adapter\": \"reference %s\", \"verdict\": \"%s\", \"why\": \"%s\", \"cnp\": {\"sent\": %llu, \"pacing\": ",
	       name, v->verdict, v->why ? v->why : "", (unsigned long long)v->sent);
	if (v->pacing)
		printf("\"%s\"", v->pacing);
	else
		printf("null");
	if (v->min_ns)
		printf(", \"min_interval_us\": %.3f, \"p50_interval_us\": %.3f", us(v->min_ns), us(v->p50_ns));
	else
		printf(", \"min_interval_us\": null, \"p50_interval_us\": null");
	printf(", \"with_nak\": %s}, ", v->with_nak ? "true" : "false");
	if (!rp->measured)
		printf("\"reaction\": {\"rate_cut\": null, \"reaction_us\": null, \"measured\": false, \"requests\": %llu}, ",
		       (unsigned long long)rp->n);
	else if (!rp->reacted)
		printf("\"reaction\": {\"rate_cut\": 0, \"reaction_us\": null, \"measured\": true, \"requests\": %llu, "
		       "\"gap_before_ns\": %.0f, \"gap_after_ns\": %.0f}, ",
		       (unsigned long long)rp->n, rp->base_ns, rp->after_ns);
	else
		printf("\"reaction\": {\"rate_cut\": %.3f, \"reaction_us\": %.3f, \"measured\": true, \"requests\": %llu, "
		       "\"gap_before_ns\": %.0f, \"gap_after_ns\": %.0f}, ",
		       rp->rate_cut, rp->reaction_us, (unsigned long long)rp->n, rp->base_ns, rp->after_ns);
	printf("\"evidence\": {\"request_gap_us\": %.3f, \"phase_us\": %.0f, \"scope_ratio\": %.1f, \"phases\": {",
	       us(FP_GAP_NS), us(FP_PHASE_NS), FP_SCOPE_RATIO);
	for (int ph = 0; ph < PH_N; ph++) {
		printf("%s\"%s\": {\"ce_marked\": %llu, \"naks\": %llu, \"cnp_per_qp\": [", ph ? ", " : "",
		       fp_phase_names[ph], (unsigned long long)f->ce[ph], (unsigned long long)f->naks[ph]);
		for (int i = 0; i < FP_QPS; i++)
			printf("%s%llu", i ? ", " : "", (unsigned long long)f->cnp[ph][i]);
		printf("], \"min_interval_us_per_qp\": [");
		for (int i = 0; i < FP_QPS; i++)
			if (f->q[i].min_gap[ph])
				printf("%s%.3f", i ? ", " : "", us(f->q[i].min_gap[ph]));
			else
				printf("%snull", i ? ", " : "");
		printf("]");
		if (ph == PH_MIXED)
			printf(", \"cnp_per_pair\": {\"%u.%u.%u.%u\": %llu, \"%u.%u.%u.%u\": %llu}",
			       f->q[0].src[0], f->q[0].src[1], f->q[0].src[2], f->q[0].src[3], (unsigned long long)v->pair_a,
			       f->q[2].src[0], f->q[2].src[1], f->q[2].src[2], f->q[2].src[3], (unsigned long long)v->pair_b);
		printf("}");
	}
	printf("}, \"counters\": {\"np_cnp_sent\": %llu, \"np_ecn_marked_roce_packets\": %llu}}}\n",
	       (unsigned long long)dcnp, (unsigned long long)decn);
}

static void fp_report_text(const struct fp *f, const struct fp_verdict *v, const struct fp_rp *rp, const char *name,
			   uint64_t dcnp, uint64_t decn)
{
	printf("congestion fingerprint of the reference adapter (%s): %s\n", name, v->verdict);
	if (v->pacing)
		printf("  CNP pacing     per %s, least interval %.1f us (median %.1f us)\n",
		       !strcmp(v->pacing, "ip_pair") ? "IP pair" : v->pacing, us(v->min_ns), us(v->p50_ns));
	else
		printf("  CNP pacing     none\n");
	printf("  why            %s\n", v->why ? v->why : "");
	printf("  CNP with NAK   %s (%llu CNPs beside %llu sequence NAKs, no request marked)\n",
	       v->with_nak ? "yes" : "no", (unsigned long long)f->cnp[PH_NAK][0], (unsigned long long)f->naks[PH_NAK]);
	printf("  solo           QP 0: %llu CNPs for %llu CE-marked requests in %.0f us\n",
	       (unsigned long long)f->cnp[PH_SOLO][0], (unsigned long long)f->ce[PH_SOLO], us(FP_PHASE_NS));
	printf("  mixed          QP 0 %llu, QP 1 %llu (pair %u.%u.%u.%u: %llu), QP 2 %llu (pair %u.%u.%u.%u: %llu) for %llu CE-marked\n",
	       (unsigned long long)f->cnp[PH_MIXED][0], (unsigned long long)f->cnp[PH_MIXED][1],
	       f->q[0].src[0], f->q[0].src[1], f->q[0].src[2], f->q[0].src[3], (unsigned long long)v->pair_a,
	       (unsigned long long)f->cnp[PH_MIXED][2],
	       f->q[2].src[0], f->q[2].src[1], f->q[2].src[2], f->q[2].src[3], (unsigned long long)v->pair_b,
	       (unsigned long long)f->ce[PH_MIXED]);
	printf("  counters       np_cnp_sent +%llu, np_ecn_marked_roce_packets +%llu (wire: %llu CNPs, %llu marked)\n",
	       (unsigned long long)dcnp, (unsigned long long)decn, (unsigned long long)v->sent,
	       (unsigned long long)(f->ce[PH_SOLO] + f->ce[PH_MIXED]));
	if (!rp->measured)
		printf("  reaction       not measured (%llu of %d requests came)\n", (unsigned long long)rp->n, RP_MSGS);
	else if (!rp->reacted)
		printf("  reaction       none: one CNP after %d of %d WRITEs, the gap between requests %.0f ns before, %.0f after\n",
		       RP_CNP_AT, RP_MSGS, rp->base_ns, rp->after_ns);
	else
		printf("  reaction       rate cut %.0f %% %.2f us after one CNP (the gap between requests %.0f ns before, %.0f after)\n",
		       100 * rp->rate_cut, rp->reaction_us, rp->base_ns, rp->after_ns);
}

static void fp_usage(FILE *out)
{
	fprintf(out, "usage: " GEN_NAME " fingerprint --reference cnp-qp|cnp-ip|cnp-port|no-cc[:US]|good [--json]\n"
		     "  CE-marked requests in exact patterns, three QPs over two IP pairs: does the adapter\n"
		     "  send CNPs, their least interval, whether it paces them per QP, per IP pair or per\n"
		     "  port, whether a CNP accompanies a sequence NAK.  -h, --help: this text.  See rocegen(8).\n");
}

static int fp_parse_ref(const char *arg, int *mode, uint64_t *gap)
{
	static const char *const names[] = { "cnp-qp", "cnp-ip", "cnp-port", "no-cc" };
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	*mode = -1;
	*gap = 0;
	if (!strcmp(arg, "good")) {   /* lib/qp's own notification point: per QP, 50 us */
		*mode = ST_REF_GOOD;
		return 0;
	}
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == n && !strncmp(arg, names[i], n))
			*mode = ST_REF_CNP_QP + i;
	if (*mode < 0 || (colon && *mode == ST_REF_NO_CC))
		return -1;
	*gap = 0;
	if (colon) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || !v || v > 1000000 || colon[1] == '-')
			return -1;
		*gap = v * 1000;
	}
	return 0;
}

int gen_fingerprint_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "reference", required_argument, NULL, 'r' }, { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },            { NULL, 0, NULL, 0 }
	};
	static const uint8_t us_mac[6] = { 2, 0, 0, 0, 0, 1 }, dut_mac[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t us_ip[4] = { 192, 0, 2, 1 }, us_ip2[4] = { 192, 0, 2, 3 }, dut_ip[4] = { 192, 0, 2, 2 };
	int mode = -1, json = 0, ch, rc = 0;
	uint64_t gap = 0, c0[2], c1[2];
	const char *name = NULL;
	struct st_ref *r;
	struct cf_io io;
	struct fp f;
	struct fp_verdict v;
	struct fp_rp rp;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (fp_parse_ref(optarg, &mode, &gap)) {
				fprintf(stderr, GEN_NAME " fingerprint: bad --reference '%s' (cnp-qp|cnp-ip|cnp-port|no-cc|good, cnp-*:US)\n",
					optarg);
				return 2;
			}
			name = optarg;
			break;
		case 'j': json = 1; break;
		case 'h': fp_usage(stdout); return 0;
		case ':':
			fprintf(stderr, GEN_NAME " fingerprint: option '%s' needs a value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, GEN_NAME " fingerprint: unknown option '%s' (see " GEN_NAME " fingerprint --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " fingerprint: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (mode < 0) {
		fprintf(stderr, GEN_NAME " fingerprint: give --reference (real adapters are not fingerprinted yet)\n");
		return 2;
	}
	if (!(r = st_ref_new((enum st_ref_mode)mode, dut_mac, dut_ip, us_mac, us_ip))) {
		fprintf(stderr, GEN_NAME " fingerprint: no memory\n");
		return 1;
	}
	st_ref_set_cnp_gap(r, gap);
	st_ref_io(r, &io);
	memset(&f, 0, sizeof(f));
	f.io = &io;
	memcpy(f.us_mac, us_mac, 6);
	memcpy(f.dut_mac, dut_mac, 6);
	memcpy(f.dut_ip, dut_ip, 4);
	memcpy(f.q[0].src, us_ip, 4);
	memcpy(f.q[1].src, us_ip, 4);
	memcpy(f.q[2].src, us_ip2, 4);
	memset(&rp, 0, sizeof(rp));
	if (fp_setup(&f) || fp_counters(&f, &c0[0], &c0[1]) || fp_probe(&f) || fp_counters(&f, &c1[0], &c1[1]) ||
	    fp_reaction(&f, &rp)) {
		fprintf(stderr, GEN_NAME " fingerprint: the probe failed (see above)\n");
		rc = 1;
	} else {
		fp_decide(&f, &v);
		if (json)
			fp_report_json(&f, &v, &rp, name, c1[0] - c0[0], c1[1] - c0[1]);
		else
			fp_report_text(&f, &v, &rp, name, c1[0] - c0[0], c1[1] - c0[1]);
		rc = !strcmp(v.verdict, "FAIL");
	}
	free(f.gaps);
	free(rp.ts);
	st_ref_free(r);
	return rc;
}
