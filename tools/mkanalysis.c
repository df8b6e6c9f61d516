/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkanalysis — writes captures/analysis/NAME.pcap, RC conversations built
 * with libroce's builders with known anomalies, and NAME.expect: the counts
 * rocetop's JSON summary must give, written here from how each capture is
 * built (the reasoning is in the comment above each scenario), never from
 * rocetop's own output.  tests/analysis.sh compares the two.
 *
 *   mkanalysis OUTDIR
 *
 * Two hosts: A = 10.0.0.1 (QP 0x100 = 256), B = 10.0.0.2 (QP 0x200 = 512).
 * A's requests go to B's QP, so A's request flow is "10.0.0.1 10.0.0.2 512";
 * B's responses go to A's QP: flow "10.0.0.2 10.0.0.1 256".  Path MTU 1024
 * unless said.  Timestamps in nanoseconds from 1700000000 s.
 *
 * .expect lines:
 *   options ARGS...                    extra rocetop options
 *   flow SRC DST DESTQP key=value...   a flow of the summary's "flows"
 *   summary key=value...               the summary object
 *   port MAC key=value...              an entry of the summary's "ports"
 * Keys are JSON paths with dots (rtt_us.n, pfc.3.pauses: a port's "pfc" list
 * is indexed by priority); a value is JSON, or ~TEXT for a string starting
 * with TEXT.
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
static const uint8_t SWITCH_MAC[6] = { 2, 0, 0, 0, 0, 0xfe };

#define AB "10.0.0.1 10.0.0.2 512"   /* A's requests */
#define BA "10.0.0.2 10.0.0.1 256"   /* B's responses (and B's requests) */

#define SYN_ACK 0x1f
#define SYN_NAK_SEQ 0x60
#define SYN_RNR(code) (0x20 | (code))

static const char *outdir;
static int errors;

static void open_cap(struct fixcap *c, const char *name)
{
	fixcap_open(c, outdir, name, 0);
}

struct pk {
	uint8_t op;               /* full BTH opcode (RC = low five bits) */
	uint32_t psn;
	uint32_t len;             /* payload bytes */
	int ackreq;
	uint8_t syn;              /* AETH */
	uint32_t msn;
	uint32_t dmalen;          /* RETH */
	uint8_t ecn;
	int bad_icrc;
};

static void send_pk(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to, const struct pk *k)
{
	static const uint8_t zeros[8192];
	struct roce_frame_spec s;
	uint8_t f[9000];

	fixcap_spec(&s, from, to);
	s.ip.ecn = k->ecn;
	s.bth.opcode = k->op;
	s.bth.ackreq = (uint8_t)k->ackreq;
	s.bth.dqpn = to->qpn;
	s.bth.psn = k->psn & 0xffffff;
	s.ext.syndrome = k->syn;
	s.ext.msn = k->msn;
	s.ext.dmalen = k->dmalen;
	s.ext.va = 0x10000;
	s.ext.rkey = 0x1234;
	s.ext.swap_add = 1;
	s.payload = zeros;
	s.payload_len = k->len;
	s.bad_icrc = (uint8_t)k->bad_icrc;
	fixcap_emit(c, f, roce_build(f, sizeof f, &s));
}

/* Requests from A to B, responses from B to A. */
static void req(struct fixcap *c, uint8_t op, uint32_t psn, uint32_t len, int ackreq)
{
	struct pk k = { .op = op, .psn = psn, .len = len, .ackreq = ackreq };

	send_pk(c, &A, &B, &k);
}

static void req_read(struct fixcap *c, uint32_t psn, uint32_t dmalen)
{
	struct pk k = { .op = ROCE_OP_READ_REQUEST, .psn = psn, .dmalen = dmalen, .ackreq = 1 };

	send_pk(c, &A, &B, &k);
}

static void resp(struct fixcap *c, uint8_t op, uint32_t psn, uint32_t len, uint8_t syn, uint32_t msn)
{
	struct pk k = { .op = op, .psn = psn, .len = len, .syn = syn, .msn = msn };

	send_pk(c, &B, &A, &k);
}

static void ack(struct fixcap *c, uint32_t psn, uint8_t syn, uint32_t msn)
{
	resp(c, ROCE_OP_ACK, psn, 0, syn, msn);
}

/* ---- the .expect file ------------------------------------------------------------ */

static void expect(const char *name, const char *const *lines)
{
	if (fixcap_expect(outdir, name, "expected rocetop --json summary values", lines))
		errors++;
}

/* ---- scenarios ---------------------------------------------------------------------- */

/* inorder_write: ten 3000-byte WRITEs (FIRST 1024, MIDDLE 1024, LAST 952 with
 * AckReq), PSNs 1000..1029, each ACKed 10 us after its LAST.  Nothing wrong:
 * 30 requests, 10 ACKs (3 requests per ACK), 10 RTT samples of exactly 10 us,
 * the path MTU learned from the FIRST/MIDDLE payloads; paired by traffic. */
static void s_inorder_write(void)
{
	static const char *const e[] = {
		"flow " AB " kind=\"RC\" packets=30 requests=30 responses=10 acks=10 messages.write=10"
		" message_bytes=30000 message_max=3000 pmtu=1024 pmtu_source=\"payload\" duplicate_request=0"
		" out_of_sequence=0 out_of_seq_request=0 retransmissions=0 out_of_order=0 psn_gaps=0"
		" missing_psns=0 nak_seq_err=0 rnr_nak=0 ecn_ce=0 cnp=0 icrc_bad=0 requests_per_ack=3.0"
		" msn=10 rtt_us.n=10 rtt_us.min=10 rtt_us.max=10 scheme=\"none\" paired=\"traffic\" peer_destqp=256",
		"flow " BA " packets=10 requests=0",
		"summary flows_live=2 connections.paired=1 connections.traffic=1 fabric.mode=~Zero totals.retransmissions=0",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "inorder_write");
	for (uint32_t m = 0; m < 10; m++) {
		uint32_t psn = 1000 + 3 * m;
		struct pk first = { .op = ROCE_OP_WRITE_FIRST, .psn = psn, .len = 1024, .dmalen = 3000 };

		send_pk(&c, &A, &B, &first);
		fixcap_at(&c, 1);
		req(&c, ROCE_OP_WRITE_MIDDLE, psn + 1, 1024, 0);
		fixcap_at(&c, 1);
		req(&c, ROCE_OP_WRITE_LAST, psn + 2, 952, 1);
		fixcap_at(&c, 10);
		ack(&c, psn + 2, SYN_ACK, m + 1);
		fixcap_at(&c, 5);
	}
	fixcap_close(&c);
	expect("inorder_write", e);
}

/* lost_gbn: SEND_ONLY 100..103 (103 AckReq) ACKed; 104 is lost before the
 * capture point; 105 reaches B, which NAKs (PSN sequence error, PSN 104);
 * 106..109 were already in flight (B drops them silently); A goes back to
 * 104 and resends 104..109; ACK 109; then a new SEND 110, ACKed.
 * Responder: 105..109 beyond the expected 104: out_of_sequence 5, one run:
 * out_of_seq_request 1; nothing before it: duplicate_request 0.
 * Wire: 104 never seen until the resend: psn_gaps 1, the resent 104 fills it
 * (out_of_order 1, missing_psns 0); 105..109 seen before: retransmissions 5
 * in one episode after the NAK; the recovery resent more than the hole and
 * ended with new data (110): go_back_n 1.  Requests 4 + 5 + 6 + 1 = 16;
 * messages 100..110 = 11 (resends are not new messages); ACKs 3 (103, 109,
 * 110); RTT from 103 and 110 only (109's entry is dropped when 105 is resent). */
static void s_lost_gbn(void)
{
	static const char *const e[] = {
		"flow " AB " requests=16 messages.send=11 duplicate_request=0 out_of_sequence=5"
		" out_of_seq_request=1 retransmissions=5 retransmission_episodes.nak=1"
		" retransmission_episodes.timeout=0 retransmission_episodes.other=0 out_of_order=1"
		" psn_gaps=1 missing_psns=0 acks=3 nak_seq_err=1 go_back_n=1 selective_repeat=0"
		" scheme=\"go-back-N\" rtt_us.n=2",
		"summary totals.nak_seq_err=1 totals.out_of_seq_request=1 connections.traffic=1",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "lost_gbn");
	for (uint32_t p = 100; p <= 103; p++) {
		req(&c, ROCE_OP_SEND_ONLY, p, 256, p == 103);
		fixcap_at(&c, 1);
	}
	fixcap_at(&c, 9);
	ack(&c, 103, SYN_ACK, 4);
	fixcap_at(&c, 2);
	req(&c, ROCE_OP_SEND_ONLY, 105, 256, 0);
	fixcap_at(&c, 1);
	ack(&c, 104, SYN_NAK_SEQ, 4);
	for (uint32_t p = 106; p <= 109; p++) {
		fixcap_at(&c, 1);
		req(&c, ROCE_OP_SEND_ONLY, p, 256, p == 109);
	}
	for (uint32_t p = 104; p <= 109; p++) {
		fixcap_at(&c, 1);
		req(&c, ROCE_OP_SEND_ONLY, p, 256, p == 109);
	}
	fixcap_at(&c, 10);
	ack(&c, 109, SYN_ACK, 10);
	fixcap_at(&c, 2);
	req(&c, ROCE_OP_SEND_ONLY, 110, 256, 1);
	fixcap_at(&c, 10);
	ack(&c, 110, SYN_ACK, 11);
	fixcap_close(&c);
	expect("lost_gbn", e);
}

/* duplicates: SEND_ONLY 200..204, each AckReq, each ACKed 10 us later; the
 * network delivers 202 and 204 twice (1 us after their ACK), and B ACKs each
 * copy again with the same PSN (Linux rxe: the last PSN taken).  Then a copy
 * of SEND 205 with a bad ICRC (B drops it, nothing counts it but icrc_bad),
 * the good 205, its ACK.
 * Responder: two requests before the expected PSN: duplicate_request 2.
 * Wire: retransmissions 2, each its own episode with no NAK and no silence:
 * trigger "other" 2; scheme duplicates-only; ACKs 8, two of them for nothing
 * new: dup_acks 2; 8 requests (the bad copy excluded); 6 messages; RTT
 * samples 200, 201, 202, 203, 204, 205 = 6, all 10 us. */
static void s_duplicates(void)
{
	static const char *const e[] = {
		"flow " AB " requests=8 messages.send=6 duplicate_request=2 out_of_sequence=0"
		" out_of_seq_request=0 retransmissions=2 retransmission_episodes.other=2"
		" retransmission_episodes.nak=0 retransmission_episodes.timeout=0 out_of_order=0 psn_gaps=0"
		" acks=8 dup_acks=2 icrc_bad=1 scheme=\"duplicates-only\" rtt_us.n=6 rtt_us.min=10 rtt_us.max=10",
		"summary icrc.bad=1 totals.icrc_bad=1 totals.duplicate_request=2",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "duplicates");
	for (uint32_t p = 200; p <= 204; p++) {
		req(&c, ROCE_OP_SEND_ONLY, p, 64, 1);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_ACK, p - 199);
		fixcap_at(&c, 1);
		if (p == 202 || p == 204) {
			req(&c, ROCE_OP_SEND_ONLY, p, 64, 1);
			fixcap_at(&c, 10);
			ack(&c, p, SYN_ACK, p - 199);
			fixcap_at(&c, 1);
		}
	}
	{
		struct pk bad = { .op = ROCE_OP_SEND_ONLY, .psn = 205, .len = 64, .ackreq = 1, .bad_icrc = 1 };

		send_pk(&c, &A, &B, &bad);
	}
	fixcap_at(&c, 1);
	req(&c, ROCE_OP_SEND_ONLY, 205, 64, 1);
	fixcap_at(&c, 10);
	ack(&c, 205, SYN_ACK, 6);
	fixcap_close(&c);
	expect("duplicates", e);
}

/* read_gap: READ 300 for 4096 bytes = 4 responses (300..303 at MTU 1024);
 * response 302 is lost, so LAST 303 arrives after MIDDLE 301: an implied NAK
 * (one PSN missing).  A re-issues the READ from 302 for the last 2048 bytes:
 * FIRST 302, LAST 303.  Then a new READ 304 for 512 bytes: ONLY 304.
 * Responder: the re-issued READ 302 is before the expected 304: a duplicate
 * (rxe counts it in duplicate_request and replays the responses).
 * Wire: 302 was used by the first READ: retransmissions 1, its episode
 * triggered by the implied NAK; no request PSN skipped: psn_gaps 0.
 * READ RTT samples: 300 and 304 (a resent request gives none) = 2.
 * Messages: reads 2 (4096 + 512 bytes). */
static void s_read_gap(void)
{
	static const char *const e[] = {
		"flow " AB " requests=3 responses=6 messages.read=2 message_bytes=4608 duplicate_request=1"
		" out_of_sequence=0 out_of_seq_request=0 retransmissions=1"
		" retransmission_episodes.implied_nak=1 retransmission_episodes.nak=0 implied_nak=1"
		" psn_gaps=0 missing_psns=0 unsolicited=0 read_rtt_us.n=2 pmtu=1024 acks=0 scheme=\"go-back-N\"",
		"flow " BA " packets=6",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "read_gap");
	req_read(&c, 300, 4096);
	fixcap_at(&c, 20);
	resp(&c, ROCE_OP_READ_RESP_FIRST, 300, 1024, SYN_ACK, 1);
	fixcap_at(&c, 1);
	resp(&c, ROCE_OP_READ_RESP_MIDDLE, 301, 1024, 0, 0);
	fixcap_at(&c, 2);
	resp(&c, ROCE_OP_READ_RESP_LAST, 303, 1024, SYN_ACK, 1);
	fixcap_at(&c, 5);
	{
		struct pk k = { .op = ROCE_OP_READ_REQUEST, .psn = 302, .dmalen = 2048, .ackreq = 1 };

		send_pk(&c, &A, &B, &k);
	}
	fixcap_at(&c, 20);
	resp(&c, ROCE_OP_READ_RESP_FIRST, 302, 1024, SYN_ACK, 1);
	fixcap_at(&c, 1);
	resp(&c, ROCE_OP_READ_RESP_LAST, 303, 1024, SYN_ACK, 1);
	fixcap_at(&c, 5);
	req_read(&c, 304, 512);
	fixcap_at(&c, 20);
	resp(&c, ROCE_OP_READ_RESP_ONLY, 304, 512, SYN_ACK, 2);
	fixcap_close(&c);
	expect("read_gap", e);
}

/* rnr: SEND 400 finds no receive WQE: RNR NAK (timer code 14 = 1.28 ms);
 * A resends 400 after 1.29 ms: ACK.  SEND 401: RNR NAK (code 16 = 2.56 ms),
 * resent after 2.57 ms: ACK.
 * Responder: the RNR NAK means B did not take the request, so each resend
 * is in order again: duplicate_request 0, out_of_sequence 0.
 * Wire: two resends of PSNs seen: retransmissions 2, two episodes triggered
 * by RNR NAKs; rnr_nak 2 with timers 1280 and 2560 us; ACKs 2; RNR retries
 * are not a loss-recovery scheme: "none".  No RTT sample (Karn). */
static void s_rnr(void)
{
	static const char *const e[] = {
		"flow " AB " requests=4 messages.send=2 duplicate_request=0 out_of_sequence=0"
		" out_of_seq_request=0 retransmissions=2 retransmission_episodes.rnr=2"
		" retransmission_episodes.timeout=0 rnr_nak=2 rnr_timers_us=[1280,2560] acks=2"
		" nak_seq_err=0 scheme=\"none\" rtt_us.n=0",
		"summary totals.rnr_nak=2",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "rnr");
	req(&c, ROCE_OP_SEND_ONLY, 400, 128, 1);
	fixcap_at(&c, 10);
	ack(&c, 400, SYN_RNR(14), 0);
	fixcap_at(&c, 1290);
	req(&c, ROCE_OP_SEND_ONLY, 400, 128, 1);
	fixcap_at(&c, 10);
	ack(&c, 400, SYN_ACK, 1);
	fixcap_at(&c, 5);
	req(&c, ROCE_OP_SEND_ONLY, 401, 128, 1);
	fixcap_at(&c, 10);
	ack(&c, 401, SYN_RNR(16), 1);
	fixcap_at(&c, 2570);
	req(&c, ROCE_OP_SEND_ONLY, 401, 128, 1);
	fixcap_at(&c, 10);
	ack(&c, 401, SYN_ACK, 2);
	fixcap_close(&c);
	expect("rnr", e);
}

/* cnp_ecn: WRITE_ONLY 500..519 (512 bytes), ECN-capable (ECT(0)); 505, 510
 * and 515 arrive CE-marked, and B answers each with a CNP to A's QP 2 us
 * later (DCQCN notification point; CNPs are ECT(0) as the builder makes
 * them); AckReq on 504, 509, 514, 519, each ACKed (Not-ECT).
 * The CNPs name A's QP: they slow A's requests, so they count on A's request
 * flow (paired by the ACK of 504 before the first CNP): cnp 3, ecn_ce 3.
 * Capture: 17 ECT(0) requests + 3 CNPs ECT(0) + 3 CE = 23 ECN-capable
 * packets; no PFC: Resilient RoCE. */
static void s_cnp_ecn(void)
{
	static const char *const e[] = {
		"flow " AB " requests=20 messages.write=20 ecn_ce=3 cnp=3 acks=4 retransmissions=0"
		" out_of_sequence=0",
		"flow " BA " packets=7 cnp=0",
		"summary fabric.mode=~Resilient fabric.ecn_capable=23 fabric.ecn_ce=3 fabric.cnp=3"
		" totals.cnp=3 totals.ecn_ce=3",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "cnp_ecn");
	for (uint32_t p = 500; p <= 519; p++) {
		struct pk k = { .op = ROCE_OP_WRITE_ONLY, .psn = p, .len = 512, .dmalen = 512,
				.ackreq = (p % 5) == 4, .ecn = (p % 5 == 0 && p != 500) ? 3 : 2 };

		send_pk(&c, &A, &B, &k);
		fixcap_at(&c, 1);
		if (k.ecn == 3) {
			struct roce_frame_spec s;
			uint8_t f[256];

			fixcap_at(&c, 1);
			fixcap_spec(&s, &B, &A);
			roce_spec_cnp(&s, A.qpn);
			fixcap_emit(&c, f, roce_build(f, sizeof f, &s));
			fixcap_at(&c, 1);
		}
		if (k.ackreq) {
			fixcap_at(&c, 5);
			ack(&c, p, SYN_ACK, p - 499);
			fixcap_at(&c, 1);
		}
	}
	fixcap_close(&c);
	expect("cnp_ecn", e);
}

/* pfc: a switch port (02:00:00:00:00:fe) pauses priority 3 with 65535
 * quanta at 0, 100, 200, 300 and 400 us, then XON (time 0) at 500 us.  At
 * 100 Gb/s 65535 quanta last 335.5 us, so each frame replaces the previous
 * one before it expires: paused continuously from 0 to 500 us = 500000 ns;
 * asked for 5 x 65535 = 327675 quanta = 1677696 ns.  Host A sends one
 * 802.3x PAUSE of 1000 quanta at 50 us (5120 ns, over before the capture
 * ends).  The switch then sends one QCN CNM (802.1Qau) to A.  RoCE
 * traffic: WRITE_ONLY 800..804, ACKed, not ECN-capable.  PFC and no ECN:
 * lossless (QCN is not ECN). */
static void s_pfc(void)
{
	static const char *const e[] = {
		"port 02:00:00:00:00:fe pfc_frames=6 cnm=1 pfc.3.pauses=5 pfc.3.xon=1 pfc.3.quanta=327675"
		" pfc.3.paused_ns=500000 pfc.3.pause_time_ns=1677696",
		"port 02:00:00:00:00:01 pause_frames=1 pause.pauses=1 pause.quanta=1000 pause.paused_ns=5120",
		"summary fabric.mode=~lossless fabric.pfc_frames=6 fabric.pause_frames=1 fabric.cnm=1 dcb_frames=8",
		"flow " AB " requests=5 acks=5 retransmissions=0",
		NULL,
	};
	uint16_t times[8] = { 0 };
	struct roce_eth_spec sw, host;
	struct fixcap c;
	uint8_t f[128];

	memset(&sw, 0, sizeof sw);
	memcpy(sw.src, SWITCH_MAC, 6);
	memset(&host, 0, sizeof host);
	memcpy(host.src, A.mac, 6);
	open_cap(&c, "pfc");
	for (int i = 0; i < 5; i++) {
		times[3] = 0xffff;
		fixcap_emit(&c, f, roce_build_pfc(f, sizeof f, &sw, 0x08, times, 0));
		if (i == 0) {
			fixcap_at(&c, 50);
			fixcap_emit(&c, f, roce_build_pause(f, sizeof f, &host, 1000, 0));
			fixcap_at(&c, 50);
		} else {
			fixcap_at(&c, 100);
		}
	}
	times[3] = 0;
	fixcap_emit(&c, f, roce_build_pfc(f, sizeof f, &sw, 0x08, times, 0));
	{
		/* one QCN congestion notification from the switch to host A */
		struct roce_cnm cnm;
		uint8_t msdu[64] = { 0 };

		memset(&cnm, 0, sizeof cnm);
		cnm.qfb = 10;
		cnm.cpid = 0x0200000000fe0003ull;
		cnm.qoffset = -100;
		cnm.qdelta = 20;
		cnm.encap_priority = 3;
		memcpy(cnm.encap_da, B.mac, 6);
		memcpy(sw.dst, A.mac, 6);
		fixcap_at(&c, 1);
		fixcap_emit(&c, f, roce_build_cnm(f, sizeof f, &sw, &cnm, msdu, sizeof msdu, 0));
	}
	for (uint32_t p = 800; p <= 804; p++) {
		struct pk k = { .op = ROCE_OP_WRITE_ONLY, .psn = p, .len = 256, .dmalen = 256, .ackreq = 1 };

		fixcap_at(&c, 5);
		send_pk(&c, &A, &B, &k);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_ACK, p - 799);
	}
	fixcap_close(&c);
	expect("pfc", e);
}

/* timeout: SEND 600..602, AckReq, each ACKed; 603 and 604 (AckReq) get no
 * ACK (lost on the way back, past the capture point); after 8390 us of
 * silence A resends 603 and 604; ACK 604.
 * Responder: B took 603 and 604 the first time: the resends are duplicates
 * (duplicate_request 2).  Wire: retransmissions 2 in one episode after
 * silence: trigger timeout, gap 8390 us, exponent round(log2(8390 / 4.096))
 * = 11.  Scheme timeout-only.  RTT samples 600, 601, 602 = 3 (604's entry is
 * dropped when 603 is resent). */
static void s_timeout(void)
{
	static const char *const e[] = {
		"flow " AB " requests=7 messages.send=5 duplicate_request=2 out_of_sequence=0"
		" retransmissions=2 retransmission_episodes.timeout=1 retransmission_episodes.nak=0"
		" retransmission_episodes.other=0 timeout_gap_max_us=8390 timeout_exponent=11 acks=4"
		" scheme=\"timeout-only\" rtt_us.n=3",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "timeout");
	for (uint32_t p = 600; p <= 602; p++) {
		req(&c, ROCE_OP_SEND_ONLY, p, 64, 1);
		fixcap_at(&c, 10);
		ack(&c, p, SYN_ACK, p - 599);
		fixcap_at(&c, 1);
	}
	req(&c, ROCE_OP_SEND_ONLY, 603, 64, 0);
	fixcap_at(&c, 1);
	req(&c, ROCE_OP_SEND_ONLY, 604, 64, 1);
	fixcap_at(&c, 8390);
	req(&c, ROCE_OP_SEND_ONLY, 603, 64, 0);
	fixcap_at(&c, 1);
	req(&c, ROCE_OP_SEND_ONLY, 604, 64, 1);
	fixcap_at(&c, 10);
	ack(&c, 604, SYN_ACK, 5);
	fixcap_close(&c);
	expect("timeout", e);
}

/* wrap: the PSN wraps 0xFFFFFF -> 0.  SEND 0xFFFFFC..0xFFFFFF (last AckReq),
 * ACKed; PSN 0 is lost; 1 reaches B: NAK PSN 0; A resends 0 and 1; ACK 1;
 * new SEND 2, ACKed.
 * Responder: 1 beyond the expected 0: out_of_sequence 1, out_of_seq_request
 * 1.  Wire: a gap of 1 across the wrap (psn_gaps 1), filled by the resent 0
 * (out_of_order 1, missing 0); 1 resent: retransmissions 1, one NAK episode;
 * the recovery resent past the hole and new data followed: go_back_n 1. */
static void s_wrap(void)
{
	static const char *const e[] = {
		"flow " AB " requests=8 messages.send=7 duplicate_request=0 out_of_sequence=1"
		" out_of_seq_request=1 retransmissions=1 retransmission_episodes.nak=1 out_of_order=1"
		" psn_gaps=1 missing_psns=0 nak_seq_err=1 acks=3 go_back_n=1 scheme=\"go-back-N\"",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "wrap");
	for (uint32_t p = 0xfffffc; p <= 0xffffff; p++) {
		req(&c, ROCE_OP_SEND_ONLY, p, 64, p == 0xffffff);
		fixcap_at(&c, 1);
	}
	fixcap_at(&c, 9);
	ack(&c, 0xffffff, SYN_ACK, 4);
	fixcap_at(&c, 2);
	req(&c, ROCE_OP_SEND_ONLY, 1, 64, 1);
	fixcap_at(&c, 10);
	ack(&c, 0, SYN_NAK_SEQ, 4);
	fixcap_at(&c, 5);
	req(&c, ROCE_OP_SEND_ONLY, 0, 64, 0);
	fixcap_at(&c, 1);
	req(&c, ROCE_OP_SEND_ONLY, 1, 64, 1);
	fixcap_at(&c, 10);
	ack(&c, 1, SYN_ACK, 6);
	fixcap_at(&c, 2);
	req(&c, ROCE_OP_SEND_ONLY, 2, 64, 1);
	fixcap_at(&c, 10);
	ack(&c, 2, SYN_ACK, 7);
	fixcap_close(&c);
	expect("wrap", e);
}

/* cm_nvme: rdma_cm connection to port 4420 (NVMe-oF): REQ from A (QP 256,
 * path MTU 4096, starting PSN 0x123456 = the PSN B will send from), REP
 * from B (QP 512, starting PSN 0x654321 = the PSN A sends from), RTU.  A
 * READs 4096 bytes at 0x654321 and 4000 bytes at 0x654322: one response each
 * at MTU 4096 (READ_RESP_ONLY: no payload tells the MTU, so it must come from
 * the REQ; at the default 1024 the second READ would be out of sequence).  B
 * SENDs at 0x123456, ACKed.
 * Both flows paired by CM, upper layer NVMe-oF, no anomaly; 2 CM flows (UD,
 * QP 1) besides. */
static void s_cm_nvme(void)
{
	static const char *const e[] = {
		"flow " AB " paired=\"cm\" ulp=\"NVMe-oF\" pmtu=4096 pmtu_source=\"cm\" requests=2"
		" messages.read=2 duplicate_request=0 out_of_sequence=0 psn_gaps=0 retransmissions=0"
		" read_rtt_us.n=2 peer_destqp=256",
		"flow " BA " paired=\"cm\" ulp=\"NVMe-oF\" requests=1 acks=1 duplicate_request=0"
		" out_of_sequence=0 psn_gaps=0",
		"summary flows_live=4 cm_mads=3 connections.cm=1 connections.paired=1",
		NULL,
	};
	struct roce_cm cm;
	struct fixcap c;

	open_cap(&c, "cm_nvme");
	memset(&cm, 0, sizeof cm);
	cm.attr_id = ROCE_CM_REQ;
	cm.method = 3;
	cm.tid = 0x1000;
	cm.local_comm_id = 0x1111;
	cm.service_id = 0x0000000001060000ull | 4420;
	cm.local_qpn = A.qpn;
	cm.start_psn = 0x123456;
	cm.path_mtu = 5;
	cm.transport = 0;
	cm.pkey = 0xffff;
	fixcap_cm_mad(&c, &A, &B, &cm);
	fixcap_at(&c, 100);
	memset(&cm, 0, sizeof cm);
	cm.attr_id = ROCE_CM_REP;
	cm.method = 3;
	cm.tid = 0x1000;
	cm.local_comm_id = 0x2222;
	cm.remote_comm_id = 0x1111;
	cm.local_qpn = B.qpn;
	cm.start_psn = 0x654321;
	fixcap_cm_mad(&c, &B, &A, &cm);
	fixcap_at(&c, 100);
	memset(&cm, 0, sizeof cm);
	cm.attr_id = ROCE_CM_RTU;
	cm.method = 3;
	cm.tid = 0x1000;
	cm.local_comm_id = 0x1111;
	cm.remote_comm_id = 0x2222;
	fixcap_cm_mad(&c, &A, &B, &cm);
	fixcap_at(&c, 100);
	req_read(&c, 0x654321, 4096);
	fixcap_at(&c, 1);
	req_read(&c, 0x654322, 4000);
	fixcap_at(&c, 20);
	resp(&c, ROCE_OP_READ_RESP_ONLY, 0x654321, 4096, SYN_ACK, 1);
	fixcap_at(&c, 2);
	resp(&c, ROCE_OP_READ_RESP_ONLY, 0x654322, 4000, SYN_ACK, 2);
	fixcap_at(&c, 20);
	{
		struct pk k = { .op = ROCE_OP_SEND_ONLY, .psn = 0x123456, .len = 64, .ackreq = 1 };

		send_pk(&c, &B, &A, &k);
		fixcap_at(&c, 10);
		k = (struct pk){ .op = ROCE_OP_ACK, .psn = 0x123456, .syn = SYN_ACK, .msn = 1 };
		send_pk(&c, &A, &B, &k);
	}
	fixcap_close(&c);
	expect("cm_nvme", e);
}

/* read_infer: no CM, READs of 4096 bytes at 700, 701, 702 answered by one
 * READ_RESP_ONLY each: the path MTU is 4096, but nothing says so before the
 * second READ.  At the default 1024 the first READ would take 4 PSNs; the
 * PSN of the next READ (701) tells it took 1, which only MTU 4096 gives:
 * inferred.  No anomaly.  Each READ is answered: 3 READ RTT samples (23,
 * 25 and 27 us: requests at 0, 1, 2 us, responses at 23, 26, 29 us). */ 
static void s_read_infer(void)
{
	static const char *const e[] = {
		"flow " AB " requests=3 messages.read=3 pmtu=4096 pmtu_source=\"inferred\" duplicate_request=0"
		" out_of_sequence=0 out_of_seq_request=0 retransmissions=0 psn_gaps=0 unsolicited=0"
		" read_rtt_us.n=3 read_rtt_us.min=23 read_rtt_us.max=27",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "read_infer");
	for (uint32_t p = 700; p <= 702; p++) {
		req_read(&c, p, 4096);
		fixcap_at(&c, 1);
	}
	fixcap_at(&c, 20);
	for (uint32_t p = 700; p <= 702; p++) {
		resp(&c, ROCE_OP_READ_RESP_ONLY, p, 4096, SYN_ACK, p - 699);
		fixcap_at(&c, 3);
	}
	fixcap_close(&c);
	expect("read_infer", e);
}

/* evict: one UD SEND_ONLY from A to each of QPs 0x300..0x309 (10 flows),
 * analysed with --max-flows 4: 4 flows live, 6 evicted (least recently
 * seen first: the live ones are the last four, QPs 0x306..0x309). */
static void s_evict(void)
{
	static const char *const e[] = {
		"options --max-flows 4",
		"summary flows_live=4 flows_evicted=6 frames=10",
		"flow 10.0.0.1 10.0.0.2 777 kind=\"UD\" packets=1 messages.send=1",
		"flow 10.0.0.1 10.0.0.2 774 packets=1",
		NULL,
	};
	struct fixcap c;

	open_cap(&c, "evict");
	for (uint32_t q = 0x300; q <= 0x309; q++) {
		struct roce_frame_spec s;
		struct fixcap_ep to = B;
		uint8_t f[256], pl[32] = { 0 };

		to.qpn = q;
		fixcap_spec(&s, &A, &to);
		s.bth.opcode = ROCE_TR_UD | ROCE_OP_SEND_ONLY;
		s.bth.dqpn = q;
		s.bth.psn = q;
		s.ext.qkey = 0x11111111;
		s.ext.src_qp = A.qpn;
		s.payload = pl;
		s.payload_len = sizeof pl;
		fixcap_emit(&c, f, roce_build(f, sizeof f, &s));
		fixcap_at(&c, 1);
	}
	fixcap_close(&c);
	expect("evict", e);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkanalysis OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	fixcap_prog = "mkanalysis";
	if (mkdir(outdir, 0777) && errno != EEXIST)
		fixcap_die("%s: %s", outdir, strerror(errno));
	s_inorder_write();
	s_lost_gbn();
	s_duplicates();
	s_read_gap();
	s_rnr();
	s_cnp_ecn();
	s_pfc();
	s_timeout();
	s_wrap();
	s_cm_nvme();
	s_read_infer();
	s_evict();
	return errors ? 1 : 0;
}
