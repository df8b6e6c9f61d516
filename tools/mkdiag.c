/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkdiag — writes the diagnosis fixtures: for every verdict of rocetop's
 * diagnosis (rocetop(8) DIAGNOSIS) a capture built with libroce's builders
 * that must raise it and a near miss that must not, each NAME.pcap with
 * NAME.expect.  The expectations follow from how each capture is built (the
 * comment above each scenario), never from rocetop's output.
 * tests/diag.sh checks rocetop's JSON summary against them.
 *
 *   mkdiag OUTDIR
 *
 * Hosts: A = 10.0.0.1 (QP 0x100), B = 10.0.0.2 (QP 0x200); A's requests go
 * to B's QP, B's responses to A's.  A switch port 02:00:00:00:00:fe sends
 * pauses and LLDP.  Times in microseconds from 1700000000 s.
 *
 * .expect lines:
 *   options ARGS...              extra rocetop options
 *   raise VERDICT key=value...   a verdict that must be in "diagnosis" (keys:
 *                                its fields, evidence.KEY; values JSON, or
 *                                ~TEXT for a string starting with TEXT)
 *   none VERDICT                 a verdict that must not be there
 *   pacing HOST key=value...     the "cnp_pacing" entry of CNP source HOST
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "roce.h"
#include "fixcap.h"

static const struct fixcap_ep A = { { 2, 0, 0, 0, 0, 1 }, { 10, 0, 0, 1 }, 0x100 };
static const struct fixcap_ep B = { { 2, 0, 0, 0, 0, 2 }, { 10, 0, 0, 2 }, 0x200 };
static const struct fixcap_ep A2 = { { 2, 0, 0, 0, 0, 1 }, { 10, 0, 0, 1 }, 0x101 };
static const struct fixcap_ep B2 = { { 2, 0, 0, 0, 0, 2 }, { 10, 0, 0, 2 }, 0x201 };
static const struct fixcap_ep C = { { 2, 0, 0, 0, 0, 3 }, { 10, 0, 0, 3 }, 0x300 };
static const struct fixcap_ep B3 = { { 2, 0, 0, 0, 0, 2 }, { 10, 0, 0, 2 }, 0x202 };
static const uint8_t SWITCH_MAC[6] = { 2, 0, 0, 0, 0, 0xfe };

#define SYN_ACK 0x1f
#define SYN_NAK_SEQ 0x60
#define SYN_RNR(code) (0x20 | (code))

/* The class of the next packets (send_pk) */
struct cls {
	uint8_t dscp, ecn;
	int pcp;                  /* -1: untagged */
};
static struct cls req_cls = { 0, 0, -1 }, resp_cls = { 0, 0, -1 };

static const char *outdir;
static int errors;

static void open_cap_lt(struct fixcap *c, const char *name, int erf)
{
	fixcap_open(c, outdir, name, erf);
	req_cls = (struct cls){ 0, 0, -1 };
	resp_cls = (struct cls){ 0, 0, -1 };
}

static void open_cap(struct fixcap *c, const char *name)
{
	open_cap_lt(c, name, 0);
}

struct pk {
	uint8_t op;
	uint32_t psn;
	uint32_t len;
	int ackreq;
	uint8_t syn;
	uint32_t msn;
};

static void spec_base(struct roce_frame_spec *s, const struct fixcap_ep *from, const struct fixcap_ep *to, const struct cls *k)
{
	fixcap_spec(s, from, to);
	if (k && k->pcp >= 0) {
		s->eth.n_vlan = 1;
		s->eth.vlan[0].pcp = (uint8_t)k->pcp;
		s->eth.vlan[0].vid = 100;
	}
	if (k) {
		s->ip.dscp = k->dscp;
		s->ip.ecn = k->ecn;
	}
}

static void send_pk(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to, const struct pk *k,
		    const struct cls *cl)
{
	static const uint8_t zeros[8192];
	struct roce_frame_spec s;
	uint8_t f[9000];

	spec_base(&s, from, to, cl);
	s.bth.opcode = k->op;
	s.bth.ackreq = (uint8_t)k->ackreq;
	s.bth.dqpn = to->qpn;
	s.bth.psn = k->psn & 0xffffff;
	s.ext.syndrome = k->syn;
	s.ext.msn = k->msn;
	s.ext.dmalen = k->len;
	s.ext.va = 0x10000;
	s.ext.rkey = 0x1234;
	s.payload = zeros;
	s.payload_len = k->len;
	s.fcs = (uint8_t)c->erf;
	fixcap_emit(c, f, roce_build(f, sizeof f, &s));
}

/* A request from `from` to `to` (a WRITE_ONLY of len bytes) */
static void wr(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to, uint32_t psn, uint32_t len, int ackreq)
{
	struct pk k = { .op = ROCE_OP_WRITE_ONLY, .psn = psn, .len = len, .ackreq = ackreq };

	send_pk(c, from, to, &k, &req_cls);
}

static void req(struct fixcap *c, uint32_t psn, int ackreq)
{
	wr(c, &A, &B, psn, 64, ackreq);
}

static void ack_to(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to, uint32_t psn, uint8_t syn, uint32_t msn)
{
	struct pk k = { .op = ROCE_OP_ACK, .psn = psn, .syn = syn, .msn = msn };

	send_pk(c, from, to, &k, &resp_cls);
}

static void ack(struct fixcap *c, uint32_t psn, uint8_t syn, uint32_t msn)
{
	ack_to(c, &B, &A, psn, syn, msn);
}

static void cnp(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to)
{
	struct roce_frame_spec s;
	uint8_t f[256];

	spec_base(&s, from, to, &resp_cls);
	roce_spec_cnp(&s, to->qpn);
	s.ip.ecn = 2;
	fixcap_emit(c, f, roce_build(f, sizeof f, &s));
}

static void pfc(struct fixcap *c, const uint8_t *mac, unsigned prio, uint16_t quanta)
{
	uint16_t times[8] = { 0 };
	struct roce_eth_spec e;
	uint8_t f[128];

	memset(&e, 0, sizeof e);
	memcpy(e.src, mac, 6);
	times[prio] = quanta;
	fixcap_emit(c, f, roce_build_pfc(f, sizeof f, &e, (uint16_t)(1u << prio), times, 0));
}

/* An LLDP frame from the switch with an IEEE DCBX PFC configuration TLV. */
static void lldp_pfc(struct fixcap *c, uint8_t enable)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
	uint8_t f[128];
	int n = 0;

	memset(f, 0, sizeof f);
	memcpy(f, dst, 6);
	memcpy(f + 6, SWITCH_MAC, 6);
	f[12] = 0x88;
	f[13] = 0xcc;
	n = 14;
	/* chassis ID (MAC), port ID (local "1"), TTL 120 */
	f[n++] = 1 << 1; f[n++] = 7; f[n++] = 4; memcpy(f + n, SWITCH_MAC, 6); n += 6;
	f[n++] = 2 << 1; f[n++] = 2; f[n++] = 7; f[n++] = '1';
	f[n++] = 3 << 1; f[n++] = 2; f[n++] = 0; f[n++] = 120;
	/* type 127, length 6: OUI 00-80-C2, subtype 11 (PFC), willing 0 cap 8, enable */
	f[n++] = 127 << 1; f[n++] = 6; f[n++] = 0x00; f[n++] = 0x80; f[n++] = 0xc2; f[n++] = 11;
	f[n++] = 8; f[n++] = enable;
	f[n++] = 0; f[n++] = 0;     /* end */
	if (n < 60)
		n = 60;
	fixcap_emit(c, f, n);
}

/* REQ from A (ACK timeout exponent t, retry count retry; A's requests
 * start at PSN 100), REP from B, RTU. */
static void cm_connect(struct fixcap *c, unsigned t, unsigned retry)
{
	struct roce_cm cm;

	memset(&cm, 0, sizeof cm);
	cm.attr_id = ROCE_CM_REQ;
	cm.method = 3;
	cm.tid = 0x1000;
	cm.local_comm_id = 0x1111;
	cm.service_id = 0x0000000001060000ull | 7174;
	cm.local_qpn = A.qpn;
	cm.start_psn = 500;
	cm.path_mtu = 3;
	cm.pkey = 0xffff;
	cm.local_ack_timeout = (uint8_t)t;
	cm.retry_count = (uint8_t)retry;
	cm.rnr_retry_count = 7;
	fixcap_cm_mad(c, &A, &B, &cm);
	fixcap_at(c, 100);
	memset(&cm, 0, sizeof cm);
	cm.attr_id = ROCE_CM_REP;
	cm.method = 3;
	cm.tid = 0x1000;
	cm.local_comm_id = 0x2222;
	cm.remote_comm_id = 0x1111;
	cm.local_qpn = B.qpn;
	cm.start_psn = 100;
	cm.rnr_retry_count = 7;
	fixcap_cm_mad(c, &B, &A, &cm);
	fixcap_at(c, 100);
	memset(&cm, 0, sizeof cm);
	cm.attr_id = ROCE_CM_RTU;
	cm.method = 3;
	cm.tid = 0x1000;
	cm.local_comm_id = 0x1111;
	cm.remote_comm_id = 0x2222;
	fixcap_cm_mad(c, &A, &B, &cm);
	fixcap_at(c, 100);
}

static void expect(const char *name, const char *const *lines)
{
	if (fixcap_expect(outdir, name, "the diagnosis rocetop --json must give", lines))
		errors++;
}

/* ---- 1. retransmission timers ------------------------------------------------------------ */

/* timeout_cm(t, wait): CM with ACK timeout exponent t (retry 7); A sends
 * PSN 100, ACKed; PSN 101 twice gets no ACK and is resent after wait us of
 * silence each time, then ACKed.
 * timeout_mismatch: t 14 = 67108.9 us, waits 8390: the median 8390 is far
 * outside ±25 %.  timeout_match: t 13 = 33554.4 us, waits 33600: within. */
static void timeout_cm(const char *name, unsigned t, unsigned wait, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	cm_connect(&c, t, 7);
	req(&c, 100, 1);
	fixcap_at(&c, 10);
	ack(&c, 100, SYN_ACK, 1);
	fixcap_at(&c, 10);
	req(&c, 101, 1);
	for (int i = 0; i < 2; i++) {
		fixcap_at(&c, wait);
		req(&c, 101, 1);
	}
	fixcap_at(&c, 10);
	ack(&c, 101, SYN_ACK, 2);
	fixcap_close(&c);
	expect(name, e);
}

/* timeout_series(waits): no CM, --ack-timeout 11 (8388.6 us); PSN 200 resent
 * after each wait of silence, then ACKed.
 * timeout_backoff: 2000, 4000, 8000, 16000 us, each 2x the last: backoff,
 * factor 2; the median 6000 is 28 % short of 8388.6: a mismatch too.
 * timeout_steady: 8400 x 4: no growth, within ±25 %: neither. */
static void timeout_series(const char *name, const unsigned *waits, unsigned n, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	req(&c, 199, 1);
	fixcap_at(&c, 10);
	ack(&c, 199, SYN_ACK, 1);
	fixcap_at(&c, 10);
	req(&c, 200, 1);
	for (unsigned i = 0; i < n; i++) {
		fixcap_at(&c, waits[i]);
		req(&c, 200, 1);
	}
	fixcap_at(&c, 10);
	ack(&c, 200, SYN_ACK, 2);
	fixcap_close(&c);
	expect(name, e);
}

/* rnr(wait): PSNs 300, 301, 302: each gets an RNR NAK with timer code 14
 * (1.28 ms) 10 us after it, is resent wait us after the NAK and ACKed.
 * rnr_wait_mismatch: 200 us (0.16x the timer).  rnr_wait_match: 1290 us. */
static void rnr(const char *name, unsigned wait, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	for (uint32_t p = 300; p <= 302; p++) {
		req(&c, p, 1);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_RNR(14), p - 300);
		fixcap_at(&c, wait);
		req(&c, p, 1);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_ACK, p - 299);
		fixcap_at(&c, 10);
	}
	fixcap_close(&c);
	expect(name, e);
}

/* retry(n): CM with t 14 and retry count 3; PSN 101 resent n times after
 * 67200 us of silence each (the negotiated 67108.9 us), then ACKed.
 * retry_exhausted: 4 resends > 3.  retry_within: 3. */
static void retry(const char *name, unsigned n, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	cm_connect(&c, 14, 3);
	req(&c, 100, 1);
	fixcap_at(&c, 10);
	ack(&c, 100, SYN_ACK, 1);
	fixcap_at(&c, 10);
	req(&c, 101, 1);
	for (unsigned i = 0; i < n; i++) {
		fixcap_at(&c, 67200);
		req(&c, 101, 1);
	}
	fixcap_at(&c, 10);
	ack(&c, 101, SYN_ACK, 2);
	fixcap_close(&c);
	expect(name, e);
}

/* retry_stopped: no CM; PSN 101 resent 3 times after 8400 us each, never
 * ACKed; A's other QP (0x101 -> B's 0x201) goes on for 50 ms: the
 * connection stopped after its resends (retry count unknown). */
static void s_retry_stopped(void)
{
	static const char *const e[] = {
		"raise retry_exhausted severity=\"error\" evidence.retries=3 evidence.retry_count=null"
		" evidence.psn=101 subject=\"10.0.0.1 QP 0x000100 <-> 10.0.0.2 QP 0x000200\"",
		"none timeout_backoff",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "retry_stopped");
	req(&c, 100, 1);
	fixcap_at(&c, 10);
	ack(&c, 100, SYN_ACK, 1);
	fixcap_at(&c, 10);
	req(&c, 101, 1);
	for (int i = 0; i < 3; i++) {
		fixcap_at(&c, 8400);
		req(&c, 101, 1);
	}
	for (uint32_t p = 0; p < 50; p++) {
		fixcap_at(&c, 1000);
		wr(&c, &A2, &B2, 1000 + p, 64, 1);
		fixcap_at(&c, 10);
		ack_to(&c, &B2, &A2, 1000 + p, SYN_ACK, p + 1);
	}
	fixcap_close(&c);
	expect("retry_stopped", e);
}

/* ---- 2. PFC and pause -------------------------------------------------------------------- */

/* pfc_train(gap_at): the switch pauses priority 3 with 65535 quanta (335.5
 * us at 100 Gb/s) every 200 us for 150 ms, then XON: paused without a gap
 * for 150 ms >= the 100 ms watchdog: a storm (paused_us 150000).
 * pfc_train_gap: the same with no frame between 75 and 76.4 ms: the pause
 * runs out at 75.3355 ms, a gap of over 1 ms: two runs of about 75 ms. */
static void pfc_train(const char *name, int gap, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	for (unsigned t = 0; t < 150000; t += 200) {
		if (gap && t > 75000 && t < 76400)
			continue;
		c.t = (uint64_t)t * 1000;
		pfc(&c, SWITCH_MAC, 3, 0xffff);
	}
	c.t = 150000ull * 1000;
	pfc(&c, SWITCH_MAC, 3, 0);
	fixcap_close(&c);
	expect(name, e);
}

/* pauses(from, prio, pcp): RoCE WRITEs from A (5, ACKed; VLAN priority pcp
 * or untagged when -1) and 3 PFC pauses of 1000 quanta on prio from MAC
 * `from`, then an LLDP DCBX PFC TLV from the switch when dcbx >= 0. */
static void pauses(const char *name, const uint8_t *from, unsigned prio, int pcp, int dcbx, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	req_cls.pcp = resp_cls.pcp = pcp;
	if (dcbx >= 0) {
		lldp_pfc(&c, (uint8_t)dcbx);
		fixcap_at(&c, 10);
	}
	for (uint32_t p = 800; p <= 804; p++) {
		req(&c, p, 1);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_ACK, p - 799);
		fixcap_at(&c, 5);
		if (p <= 802) {
			pfc(&c, from, prio, 1000);
			fixcap_at(&c, 5);
		}
	}
	fixcap_close(&c);
	expect(name, e);
}

/* ---- 3. traffic class -------------------------------------------------------------------- */

/* class(resp_dscp): A's requests in DSCP 26 (ECT(0)), B's ACKs in resp_dscp.
 * class_asymmetry: ACKs in DSCP 0.  class_symmetric: ACKs in 26. */
static void class(const char *name, uint8_t resp_dscp, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	req_cls = (struct cls){ 26, 2, -1 };
	resp_cls = (struct cls){ resp_dscp, 2, -1 };
	for (uint32_t p = 10; p < 15; p++) {
		req(&c, p, 1);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_ACK, p - 9);
		fixcap_at(&c, 10);
	}
	fixcap_close(&c);
	expect(name, e);
}

/* ect(ecn1): A's QP 0x100 sends 5 WRITEs with ECN ecn1; A's QP 0x101 sends 5
 * ECT(0) WRITEs, the third CE-marked, answered by a CNP: ECN is in use.
 * not_ect: ecn1 = Not-ECT.  ect_all: ecn1 = ECT(0). */
static void ect(const char *name, uint8_t ecn1, const char *const *e)
{
	struct fixcap c;

	open_cap(&c, name);
	for (uint32_t p = 0; p < 5; p++) {
		req_cls.ecn = ecn1;
		wr(&c, &A, &B, 20 + p, 256, 1);
		fixcap_at(&c, 10);
		ack(&c, 20 + p, SYN_ACK, p + 1);
		fixcap_at(&c, 10);
		req_cls.ecn = p == 2 ? 3 : 2;
		wr(&c, &A2, &B2, 40 + p, 256, 1);
		fixcap_at(&c, 2);
		if (p == 2) {
			cnp(&c, &B2, &A2);
			fixcap_at(&c, 2);
		}
		fixcap_at(&c, 8);
		ack_to(&c, &B2, &A2, 40 + p, SYN_ACK, p + 1);
		fixcap_at(&c, 10);
	}
	fixcap_close(&c);
	expect(name, e);
}

/* ---- 4. congestion reaction -------------------------------------------------------------- */

/* cnp(obey): A writes 1024 bytes every 10 us (ECT(0)) for 6 ms, every 50th
 * ACKed; B sends 3 CNPs at 2000, 2050 and 2100 us.  The rate is measured in
 * 1 ms bins (--cnp-reaction 1ms): the bin before the CNPs' (1-2 ms: 100
 * frames of 1024 + headers) against the second after it (4-5 ms).
 * cnp_ignored: the rate stays: 100 frames there too.
 * cnp_obeyed: from 2200 us A sends every 20 us: 50 frames, below 90 %. */
static void cnp_rate(const char *name, int obey, const char *const *e)
{
	struct fixcap c;
	uint32_t psn = 600, msn = 0;
	unsigned cnps = 0;

	open_cap(&c, name);
	req_cls.ecn = 2;
	resp_cls.ecn = 2;
	for (unsigned t = 0; t < 6000;) {
		c.t = (uint64_t)t * 1000;
		wr(&c, &A, &B, psn, 1024, psn % 50 == 49);
		if (psn % 50 == 49) {
			c.t += 3000;
			ack(&c, psn, SYN_ACK, ++msn);
		}
		psn++;
		if (cnps < 3 && t + 10 > 2000 + 50 * cnps) {
			c.t = (uint64_t)(2000 + 50 * cnps) * 1000 + 5000;
			cnp(&c, &B, &A);
			cnps++;
		}
		t += obey && t >= 2200 ? 20 : 10;
	}
	fixcap_close(&c);
	expect(name, e);
}

/* nak_cnp(all): PSNs 400.. in three rounds: round i sends P, skips P+1 (lost
 * before the capture point), sends P+2; B answers with a PSN-sequence-error
 * NAK for P+1 and 1 us later a CNP (in the last round only when all); A
 * resends P+1, P+2; B ACKs.
 * cnp_with_nak: 3 NAKs, 3 with a CNP.  nak_without_cnp: 3 NAKs, 2. */
static void nak_cnp(const char *name, int all, const char *const *e)
{
	struct fixcap c;
	uint32_t msn = 0;

	open_cap(&c, name);
	for (uint32_t i = 0, p = 400; i < 3; i++, p += 3) {
		req(&c, p, 0);
		fixcap_at(&c, 5);
		req(&c, p + 2, 1);
		fixcap_at(&c, 10);
		ack(&c, p + 1, SYN_NAK_SEQ, ++msn);
		if (all || i < 2) {
			fixcap_at(&c, 1);
			cnp(&c, &B, &A);
		}
		fixcap_at(&c, 10);
		req(&c, p + 1, 0);
		fixcap_at(&c, 1);
		req(&c, p + 2, 1);
		fixcap_at(&c, 10);
		ack(&c, p + 2, SYN_ACK, ++msn);
		fixcap_at(&c, 100);
	}
	fixcap_close(&c);
	expect(name, e);
}

/* cnp_pacing(start): B (10.0.0.2) answers three connections, A's QP 0x100
 * (-> B's 0x200) and QP 0x101 (-> B's 0x201), one IP pair, and C's
 * (10.0.0.3) QP 0x300 (-> B's 0x202), another; each writes once (ECT(0))
 * and is ACKed.  Then B sends each of the three QPs 3 CNPs 50 us apart,
 * the first at start[i] us: the least interval to one QP is 50 us, and
 * within ±25 % (37.5 us) two CNPs share a pacer.
 * pacing_qp: 1000, 1010, 1020: A's two QPs 10 us apart: a pacer per QP.
 * pacing_ip_pair: 1000, 1150, 1010: A's QPs never closer than 50 us, but
 *   C's CNPs 10 us after A's: a pacer per IP pair.
 * pacing_port: 1000, 1150, 1300: all 50 us apart: one pacer for the port.
 * pacing_port_jitter (the near miss): 1000, 1140, 1280: 40 us apart, within
 *   the tolerance: still the port's pacer, neither per QP nor per pair. */
static void cnp_pacing(const char *name, const unsigned *start, const char *const *e)
{
	const struct fixcap_ep *req_ep[3] = { &A, &A2, &C }, *resp_ep[3] = { &B, &B2, &B3 };
	uint64_t t0;
	struct fixcap c;

	open_cap(&c, name);
	req_cls.ecn = 2;
	for (int i = 0; i < 3; i++) {
		wr(&c, req_ep[i], resp_ep[i], 700, 256, 1);
		fixcap_at(&c, 5);
		ack_to(&c, resp_ep[i], req_ep[i], 700, SYN_ACK, 1);
		fixcap_at(&c, 5);
	}
	t0 = c.t;
	/* the 9 CNPs in time order */
	for (unsigned k = 0, last = 0; k < 9; k++) {
		unsigned best = ~0u, bi = 0;

		for (unsigned j = 0; j < 9; j++) {
			unsigned at = start[j / 3] + 50 * (j % 3);

			if (at > last && at < best) {
				best = at;
				bi = j;
			}
		}
		last = best;
		c.t = t0 + (uint64_t)best * 1000;
		cnp(&c, resp_ep[bi / 3], req_ep[bi / 3]);
	}
	fixcap_close(&c);
	expect(name, e);
}

/* ---- 5. where the loss is ---------------------------------------------------------------- */

/* loss(before, erf, lctr): A sends 500..503, AckReq on 503.
 * before: 502 never reaches the capture point; B NAKs 502 and A resends 502
 * and 503: a PSN missing here, later resent: fabric_loss.
 * !before: all four pass, B's ACK is lost after the capture point; A resends
 * 502 and 503 after 8400 us: PSNs seen here again, nothing missing.
 * erf: ERF records; lctr on the record of 503: capture loss. */
static void loss(const char *name, int before, int erf, uint16_t lctr, const char *const *e)
{
	struct fixcap c;

	open_cap_lt(&c, name, erf);
	req(&c, 500, 0);
	fixcap_at(&c, 1);
	req(&c, 501, 0);
	fixcap_at(&c, 1);
	if (!before)
		req(&c, 502, 0);
	fixcap_at(&c, 1);
	c.lctr = lctr;
	req(&c, 503, 1);
	if (before) {
		fixcap_at(&c, 10);
		ack(&c, 502, SYN_NAK_SEQ, 0);
		fixcap_at(&c, 10);
	} else {
		fixcap_at(&c, 8400);
	}
	req(&c, 502, 0);
	fixcap_at(&c, 1);
	req(&c, 503, 1);
	fixcap_at(&c, 10);
	ack(&c, 503, SYN_ACK, 4);
	fixcap_close(&c);
	expect(name, e);
}

/* slow_receiver_pause: B (the receiver of A's WRITEs) sends 3 PFC pauses of
 * priority 3 besides its ACKs: pauses from the receiver.  Its near miss is
 * pause_from_switch (the pauses come from the switch), and rnr_wait_match
 * shows the RNR NAK form. */

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkdiag OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	fixcap_prog = "mkdiag";
	if (mkdir(outdir, 0777) && errno != EEXIST)
		fixcap_die("%s: %s", outdir, strerror(errno));
	{
		static const char *const pos[] = {
			"raise timeout_mismatch severity=\"warning\" evidence.waits_us=[8390,8390]"
			" evidence.negotiated_us=67108.9 evidence.median_us=8390"
			" subject=\"10.0.0.1 QP 0x000100 <-> 10.0.0.2 QP 0x000200\"",
			"none timeout_backoff", "none retry_exhausted", "none fabric_loss", NULL };
		static const char *const neg[] = {
			"none timeout_mismatch", "none timeout_backoff", "none retry_exhausted", NULL };

		timeout_cm("timeout_mismatch", 14, 8390, pos);
		timeout_cm("timeout_match", 13, 33600, neg);
	}
	{
		static const unsigned grow[] = { 2000, 4000, 8000, 16000 }, flat[] = { 8400, 8400, 8400, 8400 };
		static const char *const pos[] = {
			"options --ack-timeout 11",
			"raise timeout_backoff evidence.waits_us=[2000,4000,8000,16000] evidence.factor=2",
			"raise timeout_mismatch evidence.negotiated_us=8388.6 evidence.median_us=6000", NULL };
		static const char *const neg[] = {
			"options --ack-timeout 11", "none timeout_backoff", "none timeout_mismatch", NULL };

		timeout_series("timeout_backoff", grow, 4, pos);
		timeout_series("timeout_steady", flat, 4, neg);
	}
	{
		static const char *const pos[] = {
			"raise rnr_wait_mismatch evidence.waits_us=[200,200,200]"
			" evidence.rnr_timer_us=[1280,1280,1280]",
			"raise slow_receiver evidence.rnr_naks=3 evidence.pause_frames=0", NULL };
		static const char *const neg[] = {
			"none rnr_wait_mismatch", "raise slow_receiver evidence.rnr_naks=3", NULL };

		rnr("rnr_wait_mismatch", 200, pos);
		rnr("rnr_wait_match", 1290, neg);
	}
	{
		static const char *const pos[] = {
			"raise retry_exhausted severity=\"error\" evidence.retries=4 evidence.retry_count=3"
			" evidence.psn=101", "none timeout_mismatch", NULL };
		static const char *const neg[] = { "none retry_exhausted", "none timeout_mismatch", NULL };

		retry("retry_exhausted", 4, pos);
		retry("retry_within", 3, neg);
	}
	s_retry_stopped();
	{
		static const char *const pos[] = {
			"raise pfc_storm severity=\"error\" evidence.priority=3 evidence.mac=\"02:00:00:00:00:fe\""
			" evidence.paused_us=150000 first_frame=1 last_frame=751", NULL };
		static const char *const neg[] = { "none pfc_storm", NULL };

		pfc_train("pfc_storm", 0, pos);
		pfc_train("pfc_train_gap", 1, neg);
	}
	{
		static const char *const host[] = {
			"raise pause_from_host evidence.mac=\"02:00:00:00:00:01\" evidence.frames=3"
			" evidence.priority=\"3\"", "none slow_receiver", "none pfc_on_idle_priority", NULL };
		static const char *const sw[] = {
			"none pause_from_host", "none slow_receiver", "none pfc_on_idle_priority", NULL };
		static const char *const rx[] = {
			"raise slow_receiver evidence.pause_frames=3 evidence.rnr_naks=0",
			"raise pause_from_host evidence.mac=\"02:00:00:00:00:02\"", NULL };
		static const char *const idle[] = {
			"raise pfc_on_idle_priority evidence.priority=5 evidence.pause_frames=3"
			" subject=\"priority 5\"", "none roce_on_lossy_priority", NULL };
		static const char *const busy[] = { "none pfc_on_idle_priority", NULL };
		static const char *const lossy[] = {
			"raise roce_on_lossy_priority evidence.priority=4 evidence.roce_frames=10"
			" evidence.pfc_enable=8", NULL };
		static const char *const lossless[] = { "none roce_on_lossy_priority", "none pfc_on_idle_priority", NULL };

		pauses("pause_from_host", A.mac, 3, -1, -1, host);
		pauses("pause_from_switch", SWITCH_MAC, 3, -1, -1, sw);
		pauses("slow_receiver_pause", B.mac, 3, -1, -1, rx);
		pauses("pfc_on_idle_priority", SWITCH_MAC, 5, 3, -1, idle);
		pauses("pfc_on_busy_priority", SWITCH_MAC, 3, 3, -1, busy);
		pauses("roce_on_lossy_priority", SWITCH_MAC, 3, 4, 0x08, lossy);
		pauses("roce_on_lossless_priority", SWITCH_MAC, 3, 3, 0x08, lossless);
	}
	{
		static const char *const pos[] = {
			"raise class_asymmetry evidence.dscp=[26,0] evidence.pcp=[-1,-1]", NULL };
		static const char *const neg[] = { "none class_asymmetry", NULL };

		class("class_asymmetry", 0, pos);
		class("class_symmetric", 26, neg);
	}
	{
		static const char *const pos[] = {
			"raise not_ect evidence.direction=\"10.0.0.1 -> 10.0.0.2\" evidence.requests=5"
			" subject=\"10.0.0.1 -> 10.0.0.2 QP 0x000200\"", NULL };
		static const char *const neg[] = { "none not_ect", NULL };

		ect("not_ect", 0, pos);
		ect("ect_all", 2, neg);
	}
	{
		static const char *const pos[] = {
			"options --cnp-reaction 1ms",
			"raise cnp_ignored evidence.cnps=3 evidence.checks=1 evidence.slowed=0"
			" evidence.min_cnp_interval_us=50", NULL };
		static const char *const neg[] = { "options --cnp-reaction 1ms", "none cnp_ignored", NULL };

		cnp_rate("cnp_ignored", 0, pos);
		cnp_rate("cnp_obeyed", 1, neg);
	}
	{
		static const char *const pos[] = {
			"raise cnp_with_nak evidence.naks=3 evidence.with_cnp=3",
			"raise fabric_loss evidence.missing_psns=3 evidence.resent=3", NULL };
		static const char *const neg[] = { "none cnp_with_nak", NULL };

		nak_cnp("cnp_with_nak", 1, pos);
		nak_cnp("nak_without_cnp", 0, neg);
	}
	{
		static const unsigned qp[] = { 1000, 1010, 1020 }, pair[] = { 1000, 1150, 1010 },
				      port[] = { 1000, 1150, 1300 }, jitter[] = { 1000, 1140, 1280 };
		static const char *const eqp[] = {
			"pacing 10.0.0.2 cnps=9 qps=3 ip_pairs=2 min_interval_us=50 min_cross_qp_us=10"
			" pacing=\"qp\"", "none cnp_ignored", NULL };
		static const char *const epair[] = {
			"pacing 10.0.0.2 cnps=9 qps=3 min_interval_us=50 min_cross_qp_us=50 min_cross_pair_us=10"
			" pacing=\"ip_pair\"", NULL };
		static const char *const eport[] = {
			"pacing 10.0.0.2 cnps=9 qps=3 ip_pairs=2 min_interval_us=50 min_cross_qp_us=50"
			" min_cross_pair_us=50 pacing=\"port\"", NULL };
		static const char *const ejit[] = {
			"pacing 10.0.0.2 min_interval_us=50 min_cross_qp_us=40 min_cross_pair_us=40"
			" pacing=\"port\"", NULL };

		cnp_pacing("pacing_qp", qp, eqp);
		cnp_pacing("pacing_ip_pair", pair, epair);
		cnp_pacing("pacing_port", port, eport);
		cnp_pacing("pacing_port_jitter", jitter, ejit);
	}
	{
		static const char *const pos[] = {
			"raise fabric_loss evidence.missing_psns=1 evidence.resent=1 first_frame=3 last_frame=5",
			"none slow_receiver", "none capture_loss", NULL };
		static const char *const neg[] = { "none fabric_loss", "none capture_loss", NULL };
		static const char *const cap[] = {
			"raise capture_loss evidence.erf_lost=3",
			"raise fabric_loss evidence.capture_lost=3 text=~1", NULL };
		static const char *const nocap[] = { "none capture_loss", "raise fabric_loss evidence.resent=1", NULL };

		loss("fabric_loss", 1, 0, 0, pos);
		loss("loss_after_capture", 0, 0, 0, neg);
		loss("capture_loss", 1, 1, 3, cap);
		loss("capture_whole", 1, 1, 0, nocap);
	}
	return errors ? 1 : 0;
}
