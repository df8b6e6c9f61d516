/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fp_probe.c — the congestion fingerprint's probe of an adapter as
 * responder (DCQCN's notification point) and its classifier (fp.h); used by
 * `rocegen fingerprint` and by the conform cases resp.cnp-scope and
 * resp.cnp-nak.
 *
 * rocegen is the requester of three RC QPs on the adapter: QPs 0 and 1
 * from one IP address (one IP pair), QP 2 from a second address.  It sends
 * RDMA WRITE Only requests (64 bytes, AckReq) at exact times and PSNs and
 * marks them ECN CE itself, in three phases, each after a quiet time:
 *
 *   solo   QP 0 alone, a CE-marked request every gap_ns for phase_ns:
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
 * the verdict UNSUPPORTED.
 *
 * Each phase starts from the PSN the adapter expects: its last ACK (+1) or
 * sequence NAK of the QP says which, so a request lost on a real path (or
 * dropped by a slow soft adapter) does not leave the following phases out
 * of sequence.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fp.h"
#include "ctl.h"

const char *const fp_phase_names[FP_PH_N] = { "solo", "mixed", "nak" };

/* simulated clock: exact */
const struct fp_timing fp_timing_reference = { 1000, 4000000, 2000000, 200000, 50000000 };
/* a real adapter: the same marking, room for its host's latency (rxe under
 * TCG answers in milliseconds) */
const struct fp_timing fp_timing_live = { 1000, 4000000, 300000000, 100000000, 60000000000ull };

int fp_ctl(struct fp *f, char *rep, size_t cap, const char *fmt, ...)
{
	char req[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	if (f->io->ctl(f->io->ctx, req, rep, cap) || strncmp(rep, "ok", 2)) {
		snprintf(f->err, sizeof(f->err), "adapter: '%.120s' → '%.150s'", req, rep);
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
			if (f->phase == FP_PH_SOLO && i == 0)
				st_dist_add(&f->gaps, g);
		}
		q->last_cnp = ts;
		q->have_cnp = 1;
	} else if (p.opcode == ROCE_OP_ACK && p.aeth_off) {
		uint8_t t = ROCE_AETH_TYPE(roce_aeth_syndrome(&p));

		if (t == ROCE_AETH_NAK) {
			f->naks[f->phase]++;
			q->resp_next = p.psn;
			q->have_resp = 1;
		} else if (t == ROCE_AETH_ACK) {
			f->acks[f->phase][i]++;
			if (!q->have_resp || !roce_psn_before((p.psn + 1) & 0xffffff, q->resp_next)) {
				q->resp_next = (p.psn + 1) & 0xffffff;
				q->have_resp = 1;
			}
		}
	}
}

/* Everything the adapter sends until `until` (the io clock).  On a real
 * adapter a wait shorter than 2 ms polls (the wire's wait rounds up to whole
 * milliseconds, which would stretch the request pattern). */
static int fp_wait(struct fp *f, uint64_t until)
{
	uint8_t b[2048];
	uint32_t len;
	uint64_t ts, now;
	int rc;

	for (;;) {
		now = f->io->now(f->io->ctx);
		if (f->tm != &fp_timing_reference && until > now && until - now < 2000000) {
			while ((rc = f->io->recv(f->io->ctx, b, sizeof(b), &len, &ts, now)) == 1)
				fp_rx(f, b, len, ts);
			if (rc < 0)
				return -1;
			if (f->io->now(f->io->ctx) >= until)
				return 0;
			continue;
		}
		while ((rc = f->io->recv(f->io->ctx, b, sizeof(b), &len, &ts, until)) == 1)
			fp_rx(f, b, len, ts);
		return rc < 0 ? -1 : 0;
	}
}

void fp_spec(const struct fp *f, struct roce_frame_spec *s, unsigned qi)
{
	memset(s, 0, sizeof(*s));
	s->version = ROCE_VER_V2;
	memcpy(s->eth.src, f->us_mac, 6);
	memcpy(s->eth.dst, f->dut_mac, 6);
	s->ip.version = 4;
	memcpy(s->ip.src, f->q[qi].src, 4);
	memcpy(s->ip.dst, f->dut_ip, 4);
}

/* An RDMA WRITE Only of QP qi at PSN psn, CE-marked when ce. */
static int fp_send(struct fp *f, unsigned qi, uint32_t psn, int ce)
{
	static const uint8_t pay[FP_PAYLOAD];
	struct roce_frame_spec s;
	uint8_t b[256];
	int n;

	fp_spec(f, &s, qi);
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
	f->sent[f->phase]++;
	return f->io->send(f->io->ctx, b, (uint32_t)n) < 0 ? -1 : 0;
}

int fp_setup(struct fp *f)
{
	char rep[512];

	/* one MR for every QP (the reference registers an MR without qp= in each) */
	if (fp_ctl(f, rep, sizeof(rep), "reset") || fp_ctl(f, rep, sizeof(rep), "mr len=4096 access=w"))
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

/* A new phase: after the quiet time, from the PSNs the adapter expects. */
static int fp_phase(struct fp *f, int ph, uint64_t until)
{
	if (fp_wait(f, until))
		return -1;
	f->phase = ph;
	for (unsigned i = 0; i < FP_QPS; i++) {
		f->q[i].have_cnp = 0;
		if (f->q[i].have_resp)
			f->q[i].psn = f->q[i].resp_next;
	}
	return 0;
}

/* The three phases (see the top of the file). */
int fp_probe(struct fp *f)
{
	const struct fp_timing *tm = f->tm;
	uint64_t t, n = tm->phase_ns / tm->gap_ns;

	snprintf(f->err, sizeof(f->err), "the wire failed");
	t = f->io->now(f->io->ctx) + tm->quiet_ns;
	if (fp_phase(f, FP_PH_SOLO, t))
		return -1;
	t = f->io->now(f->io->ctx);
	for (uint64_t k = 0; k < n; k++)
		if (fp_wait(f, t + k * tm->gap_ns) || fp_send(f, 0, f->q[0].psn++, 1))
			return -1;
	t += tm->phase_ns + tm->quiet_ns;
	if (fp_phase(f, FP_PH_MIXED, t))
		return -1;
	t = f->io->now(f->io->ctx);
	for (uint64_t k = 0; k < n; k++) {
		unsigned qi = (unsigned)(k % FP_QPS);

		if (fp_wait(f, t + k * tm->gap_ns) || fp_send(f, qi, f->q[qi].psn++, 1))
			return -1;
	}
	t += tm->phase_ns + tm->quiet_ns;
	if (fp_phase(f, FP_PH_NAK, t))
		return -1;
	for (int j = 0; j < FP_NAKS; j++) {
		uint32_t p = f->q[0].psn;

		t = f->io->now(f->io->ctx);
		/* p, then p + 2: p + 1 left out */
		if (fp_send(f, 0, p, 0) || fp_wait(f, t + tm->nak_ns / 20) || fp_send(f, 0, p + 2, 0) ||
		    fp_wait(f, t + tm->nak_ns))
			return -1;
		/* go back to p + 1 (the NAK's PSN when there was one) */
		if (fp_send(f, 0, p + 1, 0) || fp_wait(f, t + tm->nak_ns + tm->nak_ns / 20) || fp_send(f, 0, p + 2, 0))
			return -1;
		f->q[0].psn = p + 3;
		if (fp_phase(f, FP_PH_NAK, t + tm->nak_ns + tm->quiet_ns))
			return -1;
	}
	f->err[0] = 0;
	return 0;
}

void fp_free(struct fp *f)
{
	free(f->gaps.v);
	memset(&f->gaps, 0, sizeof(f->gaps));
}

int fp_u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void fp_decide(struct fp *f, struct fp_verdict *v)
{
	memset(v, 0, sizeof(*v));
	for (int ph = 0; ph < FP_PH_N; ph++)
		for (int i = 0; i < FP_QPS; i++)
			v->sent += f->cnp[ph][i];
	v->solo = f->cnp[FP_PH_SOLO][0];
	v->pair_a = f->cnp[FP_PH_MIXED][0] + f->cnp[FP_PH_MIXED][1];
	v->pair_b = f->cnp[FP_PH_MIXED][2];
	v->with_nak = f->naks[FP_PH_NAK] && f->cnp[FP_PH_NAK][0] > 0;
	if (f->gaps.n) {
		qsort(f->gaps.v, f->gaps.n, sizeof(*f->gaps.v), fp_u64cmp);
		v->min_ns = f->gaps.v[0];
		v->p50_ns = f->gaps.v[f->gaps.n / 2];
	}
	v->verdict = "PASS";
	if (!v->solo && !v->pair_a && !v->pair_b) {
		v->verdict = "UNSUPPORTED";
		v->why = "no CNP for any CE-marked request: no congestion control";
	} else if (!v->solo) {
		v->verdict = "FAIL";
		v->why = "CNPs in the mixed phase but none for QP 0 alone";
	} else if ((double)v->solo >= 0.9 * (double)f->ce[FP_PH_SOLO]) {
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
