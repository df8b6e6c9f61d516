/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_cases.c — the `rocegen conform` catalogue.  IBTA vol. 1 ch. 9.7
 * (RC), RoCEv2 annex A17 (CNPs).  Each case sets up its own connection
 * (cf_connect), drives the DUT with hand-made frames (responder cases) or
 * answers its requests by hand (requester cases), and judges:
 *   PASS         the DUT did what the spec requires;
 *   FAIL         it did something else (the detail says what was expected
 *                and what happened);
 *   UNSUPPORTED  an optional behaviour the DUT does not show (CNPs, rate
 *                reaction) or a configuration it cannot take;
 *   ERROR        the test could not run (control channel, setup).
 * Times are from the wire: frame timestamps of the capture, our send times.
 */
#include <stdio.h>
#include <string.h>
#include "conform.h"
#include "fp.h"

#define MS 1000000ull
#define RSP_WAIT (1000 * MS)     /* a response that must come */
#define QUIET (300 * MS)         /* a window in which nothing (more) may come */

static void pat(uint8_t *b, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static const char *syn_text(uint8_t syn)
{
	static char b[48];

	switch (ROCE_AETH_TYPE(syn)) {
	case ROCE_AETH_ACK: snprintf(b, sizeof(b), "ACK"); break;
	case ROCE_AETH_RNR_NAK: snprintf(b, sizeof(b), "RNR NAK (timer %u)", ROCE_AETH_VALUE(syn)); break;
	case ROCE_AETH_NAK: snprintf(b, sizeof(b), "NAK %s", roce_nak_name(ROCE_AETH_VALUE(syn))); break;
	default: snprintf(b, sizeof(b), "reserved syndrome 0x%02x", syn); break;
	}
	return b;
}

static const char *rx_text(struct cf *c)
{
	static char b[96];
	const struct roce_pkt *p = &c->rx.p;

	if (p->aeth_off)
		snprintf(b, sizeof(b), "%s PSN 0x%x %s MSN %u", roce_opcode_name(p->opcode), p->psn,
			 syn_text(roce_aeth_syndrome(p)), roce_aeth_msn(p));
	else
		snprintf(b, sizeof(b), "%s PSN 0x%x", roce_opcode_name(p->opcode), p->psn);
	return b;
}

/* The next frame from the DUT that is not a CNP. */
static int next_rsp(struct cf *c, uint64_t deadline)
{
	int g;

	while ((g = cf_next(c, deadline)) == 1)
		if (c->rx.p.opcode != ROCE_OPCODE_CNP)
			return 1;
	return g;
}

static int req(struct cf *c, uint8_t op, uint32_t psn, int ackreq, const uint8_t *pl, uint32_t len,
	       uint64_t va, uint32_t rkey, uint32_t dmalen)
{
	struct roce_frame_spec s;

	cf_spec(c, &s, op, psn);
	s.bth.ackreq = (uint8_t)ackreq;
	s.payload = pl;
	s.payload_len = len;
	s.ext.va = va;
	s.ext.rkey = rkey;
	s.ext.dmalen = dmalen;
	return cf_send(c, &s);
}

static int send_only(struct cf *c, uint32_t psn, const uint8_t *pl, uint32_t len)
{
	return req(c, ROCE_OP_SEND_ONLY, psn, 1, pl, len, 0, 0, 0);
}

/* Waits for the ACK of psn (earlier ACKs are skipped: coalescing).  msn < 0:
 * not checked.  0, or -1 with the verdict set. */
static int expect_ack(struct cf *c, uint32_t psn, int msn, const char *what)
{
	uint64_t dl = cf_now(c) + RSP_WAIT;

	for (;;) {
		const struct roce_pkt *p = &c->rx.p;
		int g = next_rsp(c, dl);
		uint8_t syn;

		if (g < 0)
			return -1;
		if (!g) {
			cf_fail(c, "%s: no ACK for PSN 0x%x within %llu ms", what, psn,
				(unsigned long long)(RSP_WAIT / MS));
			return -1;
		}
		if (p->opcode != ROCE_OP_ACK || !p->aeth_off)
			continue;
		syn = roce_aeth_syndrome(p);
		if (ROCE_AETH_TYPE(syn) != ROCE_AETH_ACK) {
			cf_fail(c, "%s: expected an ACK for PSN 0x%x, got %s", what, psn, rx_text(c));
			return -1;
		}
		if (roce_psn_before(p->psn, psn))
			continue;
		if (p->psn != psn) {
			cf_fail(c, "%s: expected an ACK for PSN 0x%x, got %s", what, psn, rx_text(c));
			return -1;
		}
		if (msn >= 0 && roce_aeth_msn(p) != (uint32_t)msn) {
			cf_fail(c, "%s: ACK PSN 0x%x carries MSN %u, expected %d", what, psn,
				roce_aeth_msn(p), msn);
			return -1;
		}
		return 0;
	}
}

/* Waits for a NAK/RNR NAK with this syndrome for psn.  0 or -1 (verdict set). */
static int expect_nak(struct cf *c, uint32_t psn, uint8_t syn, uint64_t t_sent, const char *what)
{
	uint64_t dl = cf_now(c) + RSP_WAIT;

	for (;;) {
		const struct roce_pkt *p = &c->rx.p;
		int g = next_rsp(c, dl);

		if (g < 0)
			return -1;
		if (!g) {
			cf_fail(c, "%s: expected %s for PSN 0x%x, got nothing within %llu ms", what,
				syn_text(syn), psn, (unsigned long long)(RSP_WAIT / MS));
			return -1;
		}
		if (p->opcode != ROCE_OP_ACK || !p->aeth_off) {
			cf_fail(c, "%s: expected %s for PSN 0x%x, got %s", what, syn_text(syn), psn, rx_text(c));
			return -1;
		}
		if (roce_aeth_syndrome(p) != syn || p->psn != psn) {
			char e[48];

			snprintf(e, sizeof(e), "%s", syn_text(syn));
			cf_fail(c, "%s: expected %s for PSN 0x%x, got %s", what, e, psn, rx_text(c));
			return -1;
		}
		cf_metric(c, "nak_latency", (double)(c->rx.ts - t_sent) / 1e3, "us");
		return 0;
	}
}

/* Nothing from the DUT for a while; 0, or -1 with a FAIL naming what came. */
static int expect_quiet(struct cf *c, uint64_t ns, const char *what)
{
	int g = next_rsp(c, cf_now(c) + ns);

	if (g < 0)
		return -1;
	if (g) {
		cf_fail(c, "%s: expected no response, got %s", what, rx_text(c));
		return -1;
	}
	return 0;
}

static int rd_big(struct cf *c, uint32_t off, uint8_t *b, uint32_t len)
{
	for (uint32_t o = 0; o < len; o += 4096)
		if (cf_rd(c, off + o, b + o, len - o < 4096 ? len - o : 4096))
			return -1;
	return 0;
}

static int wr_big(struct cf *c, uint32_t off, const uint8_t *b, uint32_t len)
{
	for (uint32_t o = 0; o < len; o += 2048)
		if (cf_wr(c, off + o, b + o, len - o < 2048 ? len - o : 2048))
			return -1;
	return 0;
}

/* Polls until n completions arrived (or the time is up); returns how many. */
static int wait_wcs(struct cf *c, struct cf_wc *wc, int n, uint64_t ns)
{
	uint64_t dl = cf_now(c) + ns;
	int got = 0;

	while (got < n) {
		int k = cf_poll(c, wc + got, n - got);

		if (k < 0)
			return -1;
		got += k;
		if (got >= n || cf_now(c) >= dl)
			break;
		/* let time pass (and keep the capture going) */
		if (cf_next(c, cf_now(c) + 5 * MS) < 0)
			return -1;
	}
	return got;
}

static void le64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

#define P0 0x100u          /* our first PSN */
#define D0 0x2000u         /* the DUT's first PSN */

static int resp_conn(struct cf *c, uint32_t n_recv, uint32_t our_psn, uint16_t mtu)
{
	struct cf_conn k = { .mtu = mtu, .dut_psn = D0, .our_psn = our_psn, .timeout = 14,
			     .retry = 7, .rnr_retry = 7, .min_rnr = 14, .n_recv = n_recv,
			     .recv_len = 4096 };

	return cf_connect(c, &k);
}

/* ======================= responder cases (the DUT answers) ======================= */

static void resp_send(struct cf *c)
{
	uint8_t a[64], b[100], got[100];
	struct cf_wc wc[4];
	uint64_t t;

	if (resp_conn(c, 4, P0, 0))
		return;
	pat(a, sizeof(a), 1);
	pat(b, sizeof(b), 2);
	t = cf_now(c);
	if (send_only(c, P0, a, sizeof(a)) || expect_ack(c, P0, 1, "SEND_ONLY 1"))
		return;
	cf_metric(c, "ack_latency", (double)(c->rx.ts - t) / 1e3, "us");
	if (send_only(c, P0 + 1, b, sizeof(b)) || expect_ack(c, P0 + 1, 2, "SEND_ONLY 2"))
		return;
	if (wait_wcs(c, wc, 2, RSP_WAIT) != 2) {
		cf_fail(c, "two SENDs ACKed, but not two receive completions");
		return;
	}
	if (strcmp(wc[0].status, "success") || wc[0].len != 64 || wc[1].len != 100) {
		cf_fail(c, "receive completions %s/%u, %s/%u; expected success/64, success/100",
			wc[0].status, wc[0].len, wc[1].status, wc[1].len);
		return;
	}
	if (cf_rd(c, CF_OFF_RECV, got, 64) || memcmp(got, a, 64) ||
	    cf_rd(c, CF_OFF_RECV + 4096, got, 100) || memcmp(got, b, 100)) {
		if (c->r.judged)
			return;
		cf_fail(c, "received data differs from what was sent");
		return;
	}
	cf_pass(c, "2 SENDs ACKed with MSN 1, 2; completions and data match");
}

static void resp_write(struct cf *c)
{
	uint8_t a[200], b[4096], got[4096];
	uint32_t m, len;

	if (resp_conn(c, 0, P0, 0))
		return;
	m = c->mtu;
	len = 2 * m + 100u <= sizeof(b) ? 2 * m + 100u : (uint32_t)sizeof(b);
	pat(a, sizeof(a), 3);
	pat(b, len, 4);
	if (req(c, ROCE_OP_WRITE_ONLY, P0, 1, a, sizeof(a), c->va + 0x100, c->rkey, sizeof(a)) ||
	    expect_ack(c, P0, 1, "WRITE_ONLY"))
		return;
	if (req(c, ROCE_OP_WRITE_FIRST, P0 + 1, 0, b, m, c->va + 0x1000, c->rkey, len) ||
	    req(c, ROCE_OP_WRITE_MIDDLE, P0 + 2, 0, b + m, m, 0, 0, 0) ||
	    req(c, ROCE_OP_WRITE_LAST, P0 + 3, 1, b + 2 * m, len - 2 * m, 0, 0, 0) ||
	    expect_ack(c, P0 + 3, 2, "WRITE FIRST/MIDDLE/LAST"))
		return;
	if (cf_rd(c, 0x100, got, sizeof(a)) || memcmp(got, a, sizeof(a)) ||
	    rd_big(c, 0x1000, got, len) || memcmp(got, b, len)) {
		if (!c->r.judged)
			cf_fail(c, "memory read back differs from what was written");
		return;
	}
	cf_pass(c, "WRITE_ONLY and a 3-packet WRITE ACKed with MSN 1, 2; memory matches");
}

/* Reads n response packets starting at psn into out; 0 or -1 (verdict set). */
static int read_rsps(struct cf *c, uint32_t psn, uint32_t len, uint8_t *out, int msn,
		     const char *what)
{
	uint32_t m = c->mtu, n = len ? (len + m - 1) / m : 1, got = 0;
	uint64_t dl = cf_now(c) + RSP_WAIT;

	for (uint32_t i = 0; i < n; i++) {
		const struct roce_pkt *p = &c->rx.p;
		uint8_t want = n == 1 ? ROCE_OP_READ_RESP_ONLY :
			       i == 0 ? ROCE_OP_READ_RESP_FIRST :
			       i == n - 1 ? ROCE_OP_READ_RESP_LAST : ROCE_OP_READ_RESP_MIDDLE;
		int g = next_rsp(c, dl);

		if (g < 0)
			return -1;
		if (!g) {
			cf_fail(c, "%s: expected %s PSN 0x%x, got nothing", what, roce_opcode_name(want),
				(psn + i) & 0xffffff);
			return -1;
		}
		if (p->opcode != want || p->psn != ((psn + i) & 0xffffff)) {
			cf_fail(c, "%s: expected %s PSN 0x%x, got %s", what, roce_opcode_name(want),
				(psn + i) & 0xffffff, rx_text(c));
			return -1;
		}
		if (p->aeth_off && msn >= 0 && (want == ROCE_OP_READ_RESP_LAST || want == ROCE_OP_READ_RESP_ONLY) &&
		    roce_aeth_msn(p) != (uint32_t)msn) {
			cf_fail(c, "%s: %s carries MSN %u, expected %d", what, roce_opcode_name(want),
				roce_aeth_msn(p), msn);
			return -1;
		}
		if (got + p->payload_len > len || p->payload_off + p->payload_len > c->rx.len) {
			cf_fail(c, "%s: response %s has %u bytes, more than asked", what, rx_text(c),
				p->payload_len);
			return -1;
		}
		memcpy(out + got, p->data + p->payload_off, p->payload_len);
		got += p->payload_len;
	}
	if (got != len) {
		cf_fail(c, "%s: %u bytes returned, %u asked", what, got, len);
		return -1;
	}
	return 0;
}

static void resp_read(struct cf *c)
{
	uint8_t b[4096], got[4096];
	uint32_t len;
	uint64_t t;

	if (resp_conn(c, 0, P0, 0))
		return;
	len = 2 * c->mtu + 100u <= sizeof(b) ? 2 * c->mtu + 100u : (uint32_t)sizeof(b);
	pat(b, len, 5);
	if (wr_big(c, 0x1000, b, len))
		return;
	t = cf_now(c);
	if (req(c, ROCE_OP_READ_REQUEST, P0, 1, NULL, 0, c->va + 0x1000, c->rkey, len) ||
	    read_rsps(c, P0, len, got, 1, "READ"))
		return;
	cf_metric(c, "read_latency", (double)(c->rx.ts - t) / 1e3, "us");
	if (memcmp(got, b, len)) {
		cf_fail(c, "READ response data differ from memory");
		return;
	}
	/* the READ took 3 PSNs: the next request is P0 + 3 */
	if (req(c, ROCE_OP_WRITE_ONLY, P0 + 3, 1, b, 16, c->va, c->rkey, 16) ||
	    expect_ack(c, P0 + 3, 2, "WRITE after the READ"))
		return;
	cf_pass(c, "READ of %u bytes answered FIRST/MIDDLE/LAST with the data, MSN 1; next PSN 0x%x ACKed with MSN 2",
		len, P0 + 3);
}

static int atomic(struct cf *c, uint8_t op, uint32_t psn, uint64_t va, uint64_t swap_add,
		  uint64_t cmp)
{
	struct roce_frame_spec s;

	cf_spec(c, &s, op, psn);
	s.bth.ackreq = 1;
	s.ext.va = va;
	s.ext.rkey = c->rkey;
	s.ext.swap_add = swap_add;
	s.ext.compare = cmp;
	return cf_send(c, &s);
}

static int expect_atomic_ack(struct cf *c, uint32_t psn, uint64_t orig, int msn, const char *what)
{
	const struct roce_pkt *p = &c->rx.p;
	int g = next_rsp(c, cf_now(c) + RSP_WAIT);

	if (g < 0)
		return -1;
	if (!g || p->opcode != ROCE_OP_ATOMIC_ACK || p->psn != psn) {
		cf_fail(c, "%s: expected ATOMIC_ACKNOWLEDGE PSN 0x%x, got %s", what, psn,
			g ? rx_text(c) : "nothing");
		return -1;
	}
	if (!p->atomicacketh_off || roce_atomicacketh_orig(p) != orig) {
		cf_fail(c, "%s: original value 0x%llx, expected 0x%llx", what,
			(unsigned long long)(p->atomicacketh_off ? roce_atomicacketh_orig(p) : 0),
			(unsigned long long)orig);
		return -1;
	}
	if (msn >= 0 && roce_aeth_msn(p) != (uint32_t)msn) {
		cf_fail(c, "%s: MSN %u, expected %d", what, roce_aeth_msn(p), msn);
		return -1;
	}
	return 0;
}

#define ATOMIC_V 0x1122334455667788ull

static void resp_atomic(struct cf *c)
{
	uint8_t b[8];

	if (resp_conn(c, 0, P0, 0))
		return;
	le64(b, ATOMIC_V);
	if (cf_wr(c, 0x2000, b, 8))
		return;
	if (atomic(c, ROCE_OP_FETCH_ADD, P0, c->va + 0x2000, 5, 0) ||
	    expect_atomic_ack(c, P0, ATOMIC_V, 1, "FETCH_ADD"))
		return;
	if (atomic(c, ROCE_OP_CMP_SWAP, P0 + 1, c->va + 0x2000, 0xabc, ATOMIC_V + 5) ||
	    expect_atomic_ack(c, P0 + 1, ATOMIC_V + 5, 2, "CMP_SWAP"))
		return;
	if (cf_rd(c, 0x2000, b, 8))
		return;
	if (get_le64(b) != 0xabc) {
		cf_fail(c, "memory holds 0x%llx after FETCH_ADD 5 and CMP_SWAP to 0xabc",
			(unsigned long long)get_le64(b));
		return;
	}
	cf_pass(c, "FETCH_ADD and CMP_SWAP returned the original values with MSN 1, 2; memory 0xabc");
}

static void resp_psn_gap(struct cf *c)
{
	uint8_t a[32];
	unsigned naks = 0, other = 0;
	uint32_t nak_psn = 0;
	uint64_t t_gap, t_nak = 0;
	int g;

	if (resp_conn(c, 8, P0, 0))
		return;
	pat(a, sizeof(a), 6);
	if (send_only(c, P0, a, sizeof(a)) || expect_ack(c, P0, 1, "first SEND"))
		return;
	/* P0+1 withheld; three later requests, each asking for an ACK */
	t_gap = cf_now(c);
	for (uint32_t i = 2; i <= 4; i++)
		if (send_only(c, P0 + i, a, sizeof(a)))
			return;
	while ((g = next_rsp(c, cf_now(c) + QUIET)) == 1) {
		const struct roce_pkt *p = &c->rx.p;

		if (p->opcode == ROCE_OP_ACK && p->aeth_off &&
		    roce_aeth_syndrome(p) == (ROCE_AETH_NAK << 5 | ROCE_NAK_PSN_SEQ_ERR)) {
			if (!naks++) {
				nak_psn = p->psn;
				t_nak = c->rx.ts;
			}
		} else {
			other++;
		}
	}
	if (g < 0)
		return;
	cf_metric(c, "naks", naks, "");
	if (naks)
		cf_metric(c, "nak_latency", (double)(t_nak - t_gap) / 1e3, "us");
	if (!naks) {
		cf_fail(c, "no PSN-sequence-error NAK for 3 requests after a gap (%u other responses)", other);
		return;
	}
	if (nak_psn != P0 + 1) {
		cf_fail(c, "the NAK carries PSN 0x%x, expected the missing 0x%x", nak_psn, P0 + 1);
		return;
	}
	if (naks > 1) {
		cf_fail(c, "%u sequence-error NAKs for one gap (NAK storm), expected exactly one", naks);
		return;
	}
	/* fill the gap: P0+1..P0+4 again, in order */
	for (uint32_t i = 1; i <= 4; i++)
		if (send_only(c, P0 + i, a, sizeof(a)))
			return;
	if (expect_ack(c, P0 + 4, 5, "after filling the gap"))
		return;
	cf_pass(c, "exactly one NAK (PSN 0x%x) for the gap; ACK PSN 0x%x MSN 5 once filled", nak_psn,
		P0 + 4);
}

static void resp_dup_send(struct cf *c)
{
	uint8_t a[64], b[64], got[64];
	struct cf_wc wc[4];
	int n;

	if (resp_conn(c, 4, P0, 0))
		return;
	pat(a, sizeof(a), 7);
	pat(b, sizeof(b), 8);
	if (send_only(c, P0, a, sizeof(a)) || expect_ack(c, P0, 1, "SEND"))
		return;
	if (send_only(c, P0, a, sizeof(a)) || expect_ack(c, P0, 1, "duplicate SEND"))
		return;
	if (send_only(c, P0 + 1, b, sizeof(b)) || expect_ack(c, P0 + 1, 2, "SEND after the duplicate"))
		return;
	n = wait_wcs(c, wc, 3, 200 * MS);
	if (n < 0)
		return;
	if (n != 2) {
		cf_fail(c, "%d receive completions for 2 SENDs and a duplicate, expected 2", n);
		return;
	}
	if (cf_rd(c, CF_OFF_RECV + 4096, got, 64))
		return;
	if (memcmp(got, b, 64)) {
		cf_fail(c, "the second receive buffer does not hold the second SEND (the duplicate was executed)");
		return;
	}
	cf_pass(c, "duplicate SEND re-ACKed (PSN 0x%x, MSN 1) and not executed: 2 completions", P0);
}

static void resp_dup_write(struct cf *c)
{
	uint8_t a[64], b[64], got[64];

	if (resp_conn(c, 0, P0, 0))
		return;
	pat(a, sizeof(a), 9);
	pat(b, sizeof(b), 10);
	if (req(c, ROCE_OP_WRITE_ONLY, P0, 1, a, 64, c->va + 0x300, c->rkey, 64) ||
	    expect_ack(c, P0, 1, "WRITE"))
		return;
	if (cf_wr(c, 0x300, b, 64))   /* the DUT's host changes the bytes */
		return;
	if (req(c, ROCE_OP_WRITE_ONLY, P0, 1, a, 64, c->va + 0x300, c->rkey, 64) ||
	    expect_ack(c, P0, 1, "duplicate WRITE"))
		return;
	if (cf_rd(c, 0x300, got, 64))
		return;
	if (!memcmp(got, a, 64)) {
		cf_fail(c, "the duplicate WRITE was executed again (memory overwritten)");
		return;
	}
	cf_pass(c, "duplicate WRITE re-ACKed (MSN 1) and not executed");
}

static void dup_read(struct cf *c, int partial)
{
	uint8_t b[4096], got[4096];
	uint32_t len, m;

	if (resp_conn(c, 0, P0, 0))
		return;
	m = c->mtu;
	len = 2 * m + 100u <= sizeof(b) ? 2 * m + 100u : (uint32_t)sizeof(b);
	pat(b, len, 11);
	if (wr_big(c, 0x1000, b, len))
		return;
	if (req(c, ROCE_OP_READ_REQUEST, P0, 1, NULL, 0, c->va + 0x1000, c->rkey, len) ||
	    read_rsps(c, P0, len, got, 1, "READ"))
		return;
	if (!partial) {
		if (req(c, ROCE_OP_READ_REQUEST, P0, 1, NULL, 0, c->va + 0x1000, c->rkey, len) ||
		    read_rsps(c, P0, len, got, -1, "duplicate READ"))
			return;
		if (memcmp(got, b, len)) {
			cf_fail(c, "replayed data differ");
			return;
		}
	} else {
		/* from the second packet on: PSN P0+1, VA + MTU */
		if (req(c, ROCE_OP_READ_REQUEST, P0 + 1, 1, NULL, 0, c->va + 0x1000 + m, c->rkey, len - m) ||
		    read_rsps(c, P0 + 1, len - m, got, -1, "partial duplicate READ"))
			return;
		if (memcmp(got, b + m, len - m)) {
			cf_fail(c, "replayed data differ");
			return;
		}
	}
	if (req(c, ROCE_OP_WRITE_ONLY, P0 + 3, 1, b, 16, c->va, c->rkey, 16) ||
	    expect_ack(c, P0 + 3, 2, "WRITE after the duplicate READ"))
		return;
	cf_pass(c, partial ? "duplicate READ of the last %u bytes from PSN 0x%x replayed with the data"
			   : "duplicate READ of %u bytes replayed from PSN 0x%x with the data",
		partial ? len - m : len, partial ? P0 + 1 : P0);
}

static void resp_dup_read_full(struct cf *c)
{
	dup_read(c, 0);
}

static void resp_dup_read_partial(struct cf *c)
{
	dup_read(c, 1);
}

static void resp_dup_atomic(struct cf *c)
{
	uint8_t b[8];

	if (resp_conn(c, 0, P0, 0))
		return;
	le64(b, ATOMIC_V);
	if (cf_wr(c, 0x2000, b, 8))
		return;
	if (atomic(c, ROCE_OP_FETCH_ADD, P0, c->va + 0x2000, 1, 0) ||
	    expect_atomic_ack(c, P0, ATOMIC_V, 1, "FETCH_ADD"))
		return;
	if (atomic(c, ROCE_OP_FETCH_ADD, P0, c->va + 0x2000, 1, 0) ||
	    expect_atomic_ack(c, P0, ATOMIC_V, -1, "duplicate FETCH_ADD"))
		return;
	if (cf_rd(c, 0x2000, b, 8))
		return;
	if (get_le64(b) != ATOMIC_V + 1) {
		cf_fail(c, "memory 0x%llx after FETCH_ADD 1 and its duplicate, expected 0x%llx (executed once)",
			(unsigned long long)get_le64(b), (unsigned long long)(ATOMIC_V + 1));
		return;
	}
	cf_pass(c, "duplicate FETCH_ADD answered with the saved value 0x%llx; executed once",
		(unsigned long long)ATOMIC_V);
}

static void resp_bad_icrc(struct cf *c)
{
	uint8_t a[64];
	struct roce_frame_spec s;
	struct cf_wc wc[2];

	if (resp_conn(c, 2, P0, 0))
		return;
	pat(a, sizeof(a), 12);
	cf_spec(c, &s, ROCE_OP_SEND_ONLY, P0);
	s.bth.ackreq = 1;
	s.payload = a;
	s.payload_len = sizeof(a);
	s.bad_icrc = 1;
	if (cf_send(c, &s) || expect_quiet(c, QUIET, "SEND with a bad ICRC"))
		return;
	if (send_only(c, P0, a, sizeof(a)) || expect_ack(c, P0, 1, "the same SEND, good ICRC"))
		return;
	if (wait_wcs(c, wc, 2, 100 * MS) != 1) {
		if (!c->r.judged)
			cf_fail(c, "not exactly one receive completion");
		return;
	}
	cf_pass(c, "bad ICRC dropped silently; the same PSN with a good ICRC ACKed with MSN 1");
}

static void nak_case(struct cf *c, uint8_t op, uint32_t len, int pad, uint64_t va, uint32_t rkey,
		     uint32_t dmalen, uint8_t code, const char *what)
{
	uint8_t a[4096];
	struct roce_frame_spec s;
	char st[32] = "?";
	uint64_t t;

	pat(a, len, 13);
	cf_spec(c, &s, op, P0);
	s.bth.ackreq = 1;
	s.bth.pad = pad;
	s.payload = a;
	s.payload_len = len;
	s.ext.va = va;
	s.ext.rkey = rkey;
	s.ext.dmalen = dmalen;
	t = cf_now(c);
	if (cf_send(c, &s) ||
	    expect_nak(c, P0, (uint8_t)(ROCE_AETH_NAK << 5 | code), t, what))
		return;
	cf_state(c, st, sizeof(st));
	cf_pass(c, "%s NAKed: %s PSN 0x%x (QP state after: %s)", what,
		syn_text((uint8_t)(ROCE_AETH_NAK << 5 | code)), P0, st);
}

static void resp_opseq_middle(struct cf *c)
{
	if (resp_conn(c, 2, P0, 0))
		return;
	nak_case(c, ROCE_OP_SEND_MIDDLE, c->mtu, -1, 0, 0, 0, ROCE_NAK_INVALID_REQ,
		 "SEND_MIDDLE without SEND_FIRST");
}

static void resp_bad_pad(struct cf *c)
{
	if (resp_conn(c, 2, P0, 0))
		return;
	/* a FIRST must carry exactly one MTU and pad 0: MTU - 2 bytes, pad 2 */
	nak_case(c, ROCE_OP_SEND_FIRST, c->mtu - 2u, 2, 0, 0, 0, ROCE_NAK_INVALID_REQ,
		 "SEND_FIRST of MTU-2 bytes with pad 2");
}

static void resp_bad_rkey(struct cf *c)
{
	if (resp_conn(c, 0, P0, 0))
		return;
	nak_case(c, ROCE_OP_WRITE_ONLY, 64, -1, c->va, c->rkey ^ 0x80000000u, 64,
		 ROCE_NAK_REMOTE_ACCESS, "WRITE with a bad rkey");
}

static void resp_bad_va(struct cf *c)
{
	if (resp_conn(c, 0, P0, 0))
		return;
	nak_case(c, ROCE_OP_WRITE_ONLY, 64, -1, c->va + CF_MR_LEN - 32, c->rkey, 64,
		 ROCE_NAK_REMOTE_ACCESS, "WRITE of 64 bytes 32 bytes before the MR's end");
}

static void resp_rnr(struct cf *c)
{
	uint8_t a[64];
	char rep[128];
	uint64_t t;

	if (resp_conn(c, 0, P0, 0))
		return;
	pat(a, sizeof(a), 14);
	t = cf_now(c);
	if (send_only(c, P0, a, sizeof(a)) ||
	    expect_nak(c, P0, (uint8_t)(ROCE_AETH_RNR_NAK << 5 | 14), t, "SEND with no receive posted"))
		return;
	if (cf_ctl(c, rep, sizeof(rep), "recv qp=%u mr=%u off=%u len=4096 n=1 wr=1", c->dut_qp,
		   c->dut_mr, CF_OFF_RECV))
		return;
	if (send_only(c, P0, a, sizeof(a)) || expect_ack(c, P0, 1, "the SEND again, receive posted"))
		return;
	cf_pass(c, "RNR NAK with the advertised timer 14 (1.28 ms); the retry after posting a receive ACKed");
}

static void resp_psn_wrap(struct cf *c)
{
	uint8_t a[32];
	uint32_t psn = 0xfffffe;

	if (resp_conn(c, 8, psn, 0))
		return;
	pat(a, sizeof(a), 15);
	for (int i = 0; i < 4; i++) {
		char w[32];

		snprintf(w, sizeof(w), "SEND PSN 0x%06x", (psn + (uint32_t)i) & 0xffffff);
		if (send_only(c, psn + (uint32_t)i, a, sizeof(a)) ||
		    expect_ack(c, (psn + (uint32_t)i) & 0xffffff, i + 1, w))
			return;
	}
	cf_pass(c, "SENDs at PSN 0xfffffe, 0xffffff, 0, 1 ACKed with MSN 1..4");
}

static void resp_mtu_pad(struct cf *c)
{
	static uint8_t b[4 * 4096 + 8], got[4 * 4096 + 8];
	char tested[64] = "", skipped[64] = "";
	size_t tl = 0, sl = 0;

	for (uint16_t m = 256; m <= 4096; m = (uint16_t)(m * 2)) {
		uint32_t psn = P0;
		int msn = 0;

		if (m > c->dut_mtu) {
			sl += (size_t)snprintf(skipped + sl, sizeof(skipped) - sl, "%s%u", sl ? "," : "", m);
			continue;
		}
		if (resp_conn(c, 0, P0, m))
			return;
		for (uint32_t r = 1; r <= 4; r++) {
			uint32_t len = 2 * m + r;
			char w[64];

			pat(b, len, m + r);
			if (req(c, ROCE_OP_WRITE_FIRST, psn, 0, b, m, c->va, c->rkey, len) ||
			    req(c, ROCE_OP_WRITE_MIDDLE, psn + 1, 0, b + m, m, 0, 0, 0) ||
			    req(c, ROCE_OP_WRITE_LAST, psn + 2, 1, b + 2 * m, r, 0, 0, 0))
				return;
			snprintf(w, sizeof(w), "MTU %u, WRITE of %u bytes (pad %u)", m, len, (4 - r) & 3);
			if (expect_ack(c, psn + 2, ++msn, w))
				return;
			if (rd_big(c, 0, got, len))
				return;
			if (memcmp(got, b, len)) {
				cf_fail(c, "%s: memory differs", w);
				return;
			}
			psn += 3;
		}
		/* SEND_ONLY of every pad count too, into a receive each */
		tl += (size_t)snprintf(tested + tl, sizeof(tested) - tl, "%s%u", tl ? "," : "", m);
	}
	if (!tl) {
		cf_unsup(c, "no path MTU fits the DUT's active MTU %d", c->dut_mtu);
		return;
	}
	cf_pass(c, "3-packet WRITEs with pad 3,2,1,0 at MTU %s ACKed, memory matches%s%s%s", tested,
		sl ? " (MTU " : "", skipped, sl ? " above the active MTU not tested)" : "");
}

static void resp_ecn_cnp(struct cf *c)
{
	uint8_t a[256];
	unsigned cnps = 0, n = 20;
	uint64_t t0 = 0, first = 0, last = 0, gap_min = UINT64_MAX;
	int g, acked = 0;

	if (resp_conn(c, 0, P0, 0))
		return;
	pat(a, sizeof(a), 16);
	for (unsigned i = 0; i < n; i++) {
		struct roce_frame_spec s;

		cf_spec(c, &s, ROCE_OP_WRITE_ONLY, P0 + i);
		s.bth.ackreq = i == n - 1;
		s.ip.ecn = 3;   /* CE */
		s.payload = a;
		s.payload_len = sizeof(a);
		s.ext.va = c->va;
		s.ext.rkey = c->rkey;
		s.ext.dmalen = sizeof(a);
		if (!i)
			t0 = cf_now(c);
		if (cf_send(c, &s))
			return;
	}
	while ((g = cf_next(c, cf_now(c) + QUIET)) == 1) {
		const struct roce_pkt *p = &c->rx.p;

		if (p->opcode == ROCE_OPCODE_CNP) {
			if (cnps++) {
				if (c->rx.ts - last < gap_min)
					gap_min = c->rx.ts - last;
			} else {
				first = c->rx.ts;
			}
			last = c->rx.ts;
		} else if (p->opcode == ROCE_OP_ACK && p->psn == ((P0 + n - 1) & 0xffffff)) {
			acked = 1;
		}
	}
	if (g < 0)
		return;
	cf_metric(c, "cnps", cnps, "");
	if (!acked) {
		cf_fail(c, "the CE-marked WRITEs were not ACKed");
		return;
	}
	if (!cnps) {
		cf_unsup(c, "no CNP for %u ECN-CE-marked requests (the adapter is no congestion notification point)", n);
		return;
	}
	cf_metric(c, "cnp_delay", (double)(first - t0) / 1e3, "us");
	if (cnps > 1)
		cf_metric(c, "cnp_min_gap", (double)gap_min / 1e3, "us");
	cf_pass(c, "%u CNP(s) for %u CE-marked requests", cnps, n);
}

/* resp.cnp-scope and resp.cnp-nak: the congestion fingerprint's probe and
 * rules (fp_probe.c, as `rocegen fingerprint` runs them): three QPs, QPs 0
 * and 1 from our address, QP 2 from --source2 (without it from ours too:
 * then a scope of one IP pair and one of the port look alike).  0 with *v,
 * or -1 with the verdict set: UNSUPPORTED when the adapter would not make
 * the three QPs (conform_ref.c's one-QP reference), else ERROR. */
static int cnp_probe(struct cf *c, struct fp *f, struct fp_verdict *v)
{
	int made;

	memset(f, 0, sizeof(*f));
	cf_record_io(c, &c->fpio);
	f->io = &c->fpio;
	f->tm = c->is_reference ? &fp_timing_reference : &fp_timing_live;
	memcpy(f->us_mac, c->eth.src, 6);
	memcpy(f->dut_mac, c->eth.dst, 6);
	memcpy(f->dut_ip, c->ip.dst, 4);
	memcpy(f->q[0].src, c->ip.src, 4);
	memcpy(f->q[1].src, c->ip.src, 4);
	memcpy(f->q[2].src, c->have_src2 ? c->src2 : c->ip.src, 4);
	made = fp_setup(f);
	if (!made)
		made = fp_probe(f);
	if (made) {
		if (strstr(f->err, "'qp' → 'err "))
			cf_unsup(c, "the adapter would not make the probe's %d QPs (%s)", FP_QPS, f->err);
		else
			cf_error(c, "%s", f->err);
		fp_free(f);
		return -1;
	}
	fp_decide(f, v);
	cf_metric(c, "cnps", (double)v->sent, "");
	return 0;
}

static void resp_cnp_scope(struct cf *c)
{
	struct fp f;
	struct fp_verdict v;
	const char *scope;

	if (cnp_probe(c, &f, &v))
		return;
	cf_metric(c, "cnps_solo", (double)v.solo, "");
	cf_metric(c, "cnps_pair_a", (double)v.pair_a, "");
	cf_metric(c, "cnps_pair_b", (double)v.pair_b, "");
	if (v.min_ns)
		cf_metric(c, "cnp_min_gap", (double)v.min_ns / 1e3, "us");
	scope = !v.pacing || c->have_src2 || strcmp(v.pacing, "port") ? v.pacing : "ip_pair or port";
	if (!strcmp(v.verdict, "UNSUPPORTED"))
		cf_unsup(c, "no CNP for %llu CE-marked requests on 3 QPs: no congestion notification point, no pacing to scope",
			 (unsigned long long)(f.ce[FP_PH_SOLO] + f.ce[FP_PH_MIXED]));
	else if (!strcmp(v.verdict, "FAIL"))
		cf_fail(c, "%s", v.why);
	else
		cf_pass(c, "CNP pacing scope %s: %s (solo QP 0 %llu CNPs; mixed: pair %u.%u.%u.%u %llu, pair %u.%u.%u.%u %llu; least interval %.1f us)%s",
			scope, v.why, (unsigned long long)v.solo, f.q[0].src[0], f.q[0].src[1], f.q[0].src[2], f.q[0].src[3],
			(unsigned long long)v.pair_a, f.q[2].src[0], f.q[2].src[1], f.q[2].src[2], f.q[2].src[3],
			(unsigned long long)v.pair_b, (double)v.min_ns / 1e3,
			c->have_src2 ? "" : " (no --source2: QP 2 from the same address)");
	fp_free(&f);
}

static void resp_cnp_nak(struct cf *c)
{
	struct fp f;
	struct fp_verdict v;

	if (cnp_probe(c, &f, &v))
		return;
	cf_metric(c, "naks", (double)f.naks[FP_PH_NAK], "");
	cf_metric(c, "cnps_beside_naks", (double)f.cnp[FP_PH_NAK][0], "");
	cf_metric(c, "with_nak", v.with_nak, "");
	if (!strcmp(v.verdict, "UNSUPPORTED"))
		cf_unsup(c, "no CNP for %llu CE-marked requests: no congestion notification point, so no CNP with a NAK to look for "
			 "(%llu sequence NAKs, %llu CNPs beside them)",
			 (unsigned long long)(f.ce[FP_PH_SOLO] + f.ce[FP_PH_MIXED]), (unsigned long long)f.naks[FP_PH_NAK],
			 (unsigned long long)f.cnp[FP_PH_NAK][0]);
	else if (!f.naks[FP_PH_NAK])
		cf_fail(c, "%d PSN gaps (no request CE-marked) got no sequence NAK", FP_NAKS);
	else
		cf_pass(c, "a CNP %s the sequence NAK: %llu CNPs beside %llu sequence NAKs for %d PSN gaps, no request CE-marked",
			v.with_nak ? "accompanies" : "does not accompany", (unsigned long long)f.cnp[FP_PH_NAK][0],
			(unsigned long long)f.naks[FP_PH_NAK], FP_NAKS);
	fp_free(&f);
}

/* ======================= requester cases (the DUT asks) ======================= */

static int req_conn(struct cf *c, uint8_t timeout, uint8_t retry, uint8_t rnr_retry)
{
	struct cf_conn k = { .dut_psn = D0, .our_psn = P0, .timeout = timeout, .retry = retry,
			     .rnr_retry = rnr_retry, .min_rnr = 14 };

	return cf_connect(c, &k);
}

static int dut_post(struct cf *c, const char *op, uint32_t len, unsigned n)
{
	char rep[128];

	return cf_ctl(c, rep, sizeof(rep),
		      "post qp=%u op=%s mr=%u off=%u len=%u rva=0x10000 rkey=0x1234 wr=1 n=%u", c->dut_qp,
		      op, c->dut_mr, CF_OFF_LOCAL, len, n);
}

/* The next request from the DUT (responses and CNPs are skipped). */
static int next_req(struct cf *c, uint64_t deadline)
{
	int g;

	while ((g = next_rsp(c, deadline)) == 1) {
		const struct roce_opinfo *oi = roce_opcode_info(c->rx.p.opcode);

		if (oi && oi->is_request)
			return 1;
	}
	return g;
}

static int send_aeth(struct cf *c, uint8_t op, uint32_t psn, uint8_t syn, uint32_t msn,
		     const uint8_t *pl, uint32_t len)
{
	struct roce_frame_spec s;

	cf_spec(c, &s, op, psn);
	s.ext.syndrome = syn;
	s.ext.msn = msn;
	s.payload = pl;
	s.payload_len = len;
	return cf_send(c, &s);
}

static int expect_wc(struct cf *c, const char *status, const char *what)
{
	struct cf_wc wc[1];
	int n = wait_wcs(c, wc, 1, RSP_WAIT);

	if (n < 0)
		return -1;
	if (!n) {
		cf_fail(c, "%s: no completion", what);
		return -1;
	}
	if (strcmp(wc[0].status, status)) {
		cf_fail(c, "%s: completion %s, expected %s", what, wc[0].status, status);
		return -1;
	}
	return 0;
}

static void req_ack_timeout(struct cf *c)
{
	const uint8_t T = 14;
	double nominal = (double)ROCE_QP_TIMEOUT_NS(T), d;
	uint64_t t1;

	if (req_conn(c, T, 3, 7) || dut_post(c, "send", 64, 1))
		return;
	if (next_req(c, cf_now(c) + RSP_WAIT) != 1 || c->rx.p.psn != D0) {
		if (!c->r.judged)
			cf_fail(c, "no SEND PSN 0x%x from the DUT", D0);
		return;
	}
	t1 = c->rx.ts;
	/* no ACK: the same PSN must come again after the local ACK timeout */
	if (next_req(c, t1 + (uint64_t)(nominal * 8) + RSP_WAIT) != 1) {
		if (!c->r.judged)
			cf_fail(c, "no retransmission within 8x the timeout");
		return;
	}
	if (c->rx.p.psn != D0) {
		cf_fail(c, "retransmission with PSN 0x%x, expected 0x%x", c->rx.p.psn, D0);
		return;
	}
	d = (double)(c->rx.ts - t1);
	cf_metric(c, "retx_latency", d / 1e6, "ms");
	cf_metric(c, "timeout_nominal", nominal / 1e6, "ms");
	cf_metric(c, "ratio", d / nominal, "");
	if (send_aeth(c, ROCE_OP_ACK, D0, 0x1f, 1, NULL, 0) || expect_wc(c, "success", "SEND ACKed"))
		return;
	/* IBTA 9.7.6.1.3: the timer fires no earlier than 4.096 us * 2^T and no
	 * later than four times that.  Up to 8 ms early is let through: a host
	 * timer of coarse granularity (rxe: jiffies, 4 ms at HZ 250) armed between
	 * ticks fires up to one tick early, and emulated guests add up to about a
	 * tick of scheduling delay to when the first transmission is seen; the
	 * detail says so. */
	if (d < nominal - 8e6 || d > 4 * nominal) {
		cf_fail(c, "retransmitted after %.2f ms; the timeout exponent %u asks for %.2f..%.2f ms",
			d / 1e6, T, nominal / 1e6, 4 * nominal / 1e6);
		return;
	}
	cf_pass(c, "retransmitted after %.2f ms (exponent %u: %.2f..%.2f ms%s); completed once ACKed",
		d / 1e6, T, nominal / 1e6, 4 * nominal / 1e6,
		d < nominal ? "; early, within the 8 ms (two 4 ms ticks) allowed for timer granularity" : "");
}

/* Counts transmissions of the DUT's SEND with no ACK until its completion. */
static void retry_exhaust(struct cf *c, uint8_t retry)
{
	const uint8_t T = 12;
	unsigned tx = 0, limit = retry + 5u;
	struct cf_wc wc[1];
	char st[32] = "?";
	uint64_t dl;
	int n = 0;

	if (req_conn(c, T, retry, 7) || dut_post(c, "send", 64, 1))
		return;
	dl = cf_now(c) + RSP_WAIT + (uint64_t)limit * 4 * ROCE_QP_TIMEOUT_NS(T);
	while (cf_now(c) < dl && tx < limit) {
		int g = next_req(c, cf_now(c) + 20 * MS);

		if (g < 0)
			return;
		if (g && c->rx.p.psn == D0)
			tx++;
		if ((n = cf_poll(c, wc, 1)) != 0)
			break;
	}
	if (n < 0)
		return;
	cf_metric(c, "transmissions", tx, "");
	if (!n)
		n = wait_wcs(c, wc, 1, 4 * ROCE_QP_TIMEOUT_NS(T) + 100 * MS);
	if (n < 0)
		return;
	if (!n) {
		cf_fail(c, "retry_cnt %u: %u transmissions and no error completion yet (expected %u, then retry-exceeded)%s",
			retry, tx, retry + 1u, retry == 7 ? "; retry_cnt 7 is treated as infinite" : "");
		return;
	}
	cf_state(c, st, sizeof(st));
	if (strcmp(wc[0].status, "retry-exceeded")) {
		cf_fail(c, "completion %s after %u transmissions, expected retry-exceeded", wc[0].status, tx);
		return;
	}
	if (tx != retry + 1u) {
		cf_fail(c, "retry_cnt %u: %u transmissions before retry-exceeded, expected %u", retry, tx,
			retry + 1u);
		return;
	}
	if (strcmp(st, "err")) {
		cf_fail(c, "QP state %s after retry-exceeded, expected err", st);
		return;
	}
	cf_pass(c, "retry_cnt %u: %u transmissions, then retry-exceeded and the QP in error", retry, tx);
}

static void req_retry_exhaust(struct cf *c)
{
	retry_exhaust(c, 2);
}

static void req_retry7(struct cf *c)
{
	retry_exhaust(c, 7);
}

static void req_seq_nak(struct cf *c)
{
	uint32_t m;
	uint64_t t_nak;
	unsigned seen = 0;

	if (req_conn(c, 18, 7, 7))
		return;
	m = c->mtu;
	if (dut_post(c, "write", 4 * m, 1))
		return;
	/* take all four packets */
	while (seen < 4) {
		if (next_req(c, cf_now(c) + RSP_WAIT) != 1) {
			if (!c->r.judged)
				cf_fail(c, "the DUT sent %u of the 4 WRITE packets", seen);
			return;
		}
		if (c->rx.p.psn == ((D0 + seen) & 0xffffff))
			seen++;
	}
	/* a sequence-error NAK for D0+2: D0, D0+1 are implicitly acknowledged */
	t_nak = cf_now(c);
	if (send_aeth(c, ROCE_OP_ACK, D0 + 2, ROCE_AETH_NAK << 5 | ROCE_NAK_PSN_SEQ_ERR, 0, NULL, 0))
		return;
	if (next_req(c, cf_now(c) + RSP_WAIT) != 1) {
		if (!c->r.judged)
			cf_fail(c, "no retransmission after the NAK");
		return;
	}
	cf_metric(c, "retx_after_nak", (double)(c->rx.ts - t_nak) / 1e3, "us");
	if (c->rx.p.psn != D0 + 2) {
		cf_fail(c, "after a NAK for PSN 0x%x the DUT resent from PSN 0x%x (%s)", D0 + 2,
			c->rx.p.psn, rx_text(c));
		return;
	}
	if (next_req(c, cf_now(c) + RSP_WAIT) != 1 || c->rx.p.psn != D0 + 3) {
		if (!c->r.judged)
			cf_fail(c, "after PSN 0x%x expected 0x%x, got %s", D0 + 2, D0 + 3, rx_text(c));
		return;
	}
	if (send_aeth(c, ROCE_OP_ACK, D0 + 3, 0x1f, 1, NULL, 0) || expect_wc(c, "success", "WRITE"))
		return;
	cf_pass(c, "go-back-N from the NAKed PSN 0x%x (not from 0x%x); completed once ACKed", D0 + 2, D0);
}

static void req_rnr(struct cf *c)
{
	const uint8_t code = 20;   /* 10.24 ms */
	double timer = roce_rnr_timer_us(code) * 1e3, d;
	uint64_t t;

	if (req_conn(c, 18, 7, 3) || dut_post(c, "send", 64, 1))
		return;
	if (next_req(c, cf_now(c) + RSP_WAIT) != 1) {
		if (!c->r.judged)
			cf_fail(c, "no SEND from the DUT");
		return;
	}
	t = cf_now(c);
	if (send_aeth(c, ROCE_OP_ACK, D0, (uint8_t)(ROCE_AETH_RNR_NAK << 5 | code), 0, NULL, 0))
		return;
	if (next_req(c, t + RSP_WAIT + (uint64_t)(timer * 4)) != 1) {
		if (!c->r.judged)
			cf_fail(c, "no retry after the RNR NAK");
		return;
	}
	d = (double)(c->rx.ts - t);
	cf_metric(c, "rnr_retry_delay", d / 1e6, "ms");
	cf_metric(c, "rnr_timer", timer / 1e6, "ms");
	if (c->rx.p.psn != D0) {
		cf_fail(c, "retry with PSN 0x%x, expected 0x%x", c->rx.p.psn, D0);
		return;
	}
	if (send_aeth(c, ROCE_OP_ACK, D0, 0x1f, 1, NULL, 0) || expect_wc(c, "success", "SEND"))
		return;
	if (d < timer) {
		cf_fail(c, "retried %.2f ms after an RNR NAK with timer %u (%.2f ms): too early", d / 1e6,
			code, timer / 1e6);
		return;
	}
	cf_pass(c, "retried after %.2f ms (RNR timer %u: %.2f ms); completed once ACKed", d / 1e6, code,
		timer / 1e6);
}

static void req_read_gap(struct cf *c)
{
	static uint8_t b[4 * 4096], got[4 * 4096];
	uint32_t m, len;
	uint64_t va, t_gap;
	double d;
	int late = 0;
	const struct roce_pkt *p = &c->rx.p;

	if (req_conn(c, 14, 7, 7))
		return;
	m = c->mtu;
	len = 4 * m;
	pat(b, len, 17);
	if (dut_post(c, "read", len, 1))
		return;
	if (next_req(c, cf_now(c) + RSP_WAIT) != 1 || p->opcode != ROCE_OP_READ_REQUEST) {
		if (!c->r.judged)
			cf_fail(c, "no READ request from the DUT");
		return;
	}
	va = roce_reth_va(p);
	/* FIRST, (MIDDLE D0+1 lost), MIDDLE D0+2, LAST D0+3 */
	if (send_aeth(c, ROCE_OP_READ_RESP_FIRST, D0, 0x1f, 0, b, m) ||
	    send_aeth(c, ROCE_OP_READ_RESP_MIDDLE, D0 + 2, 0, 0, b + 2 * m, m) ||
	    send_aeth(c, ROCE_OP_READ_RESP_LAST, D0 + 3, 0x1f, 1, b + 3 * m, m))
		return;
	t_gap = cf_now(c);
	if (next_req(c, t_gap + 8 * ROCE_QP_TIMEOUT_NS(14) + RSP_WAIT) != 1) {
		if (!c->r.judged)
			cf_fail(c, "no new READ after a missing READ response MIDDLE, not even after 8x the local ACK timeout");
		return;
	}
	d = (double)(c->rx.ts - t_gap);
	cf_metric(c, "reread_delay", d / 1e6, "ms");
	if (p->opcode == ROCE_OP_READ_REQUEST && p->psn == D0) {
		/* the whole READ again: allowed by go-back-N, but the gap was known */
		if (d >= 0.5 * (double)ROCE_QP_TIMEOUT_NS(14))
			late = 1;
		cf_fail(c, "after a missing READ response MIDDLE the DUT read everything again from PSN 0x%x after %.2f ms%s, expected a READ from the gap (PSN 0x%x)",
			D0, d / 1e6, late ? " (its local ACK timeout: the gap itself was ignored)" : "", D0 + 1);
		return;
	}
	if (p->opcode != ROCE_OP_READ_REQUEST || p->psn != D0 + 1 || roce_reth_va(p) != va + m ||
	    roce_reth_dmalen(p) != len - m) {
		cf_fail(c, "expected READ PSN 0x%x VA +%u length %u, got %s VA +%lld length %u", D0 + 1, m,
			len - m, rx_text(c), p->reth_off ? (long long)(roce_reth_va(p) - va) : 0,
			p->reth_off ? roce_reth_dmalen(p) : 0);
		return;
	}
	if (send_aeth(c, ROCE_OP_READ_RESP_FIRST, D0 + 1, 0x1f, 0, b + m, m) ||
	    send_aeth(c, ROCE_OP_READ_RESP_MIDDLE, D0 + 2, 0, 0, b + 2 * m, m) ||
	    send_aeth(c, ROCE_OP_READ_RESP_LAST, D0 + 3, 0x1f, 1, b + 3 * m, m) ||
	    expect_wc(c, "success", "READ"))
		return;
	if (rd_big(c, CF_OFF_LOCAL, got, len))
		return;
	if (memcmp(got, b, len)) {
		cf_fail(c, "the READ completed but the data in memory differ");
		return;
	}
	if (d >= 0.5 * (double)ROCE_QP_TIMEOUT_NS(14)) {
		cf_fail(c, "the READ from the gap (PSN 0x%x) came only after %.2f ms, with the local ACK timeout (%.2f ms): the gap itself was ignored (no implied NAK)",
			D0 + 1, d / 1e6, (double)ROCE_QP_TIMEOUT_NS(14) / 1e6);
		return;
	}
	cf_pass(c, "a missing READ response MIDDLE made the DUT read again from PSN 0x%x (VA +%u, %u bytes) after %.2f ms; data complete",
		D0 + 1, m, len - m, d / 1e6);
}

/* Three bursts of n one-packet WRITEs, each ACKed packet by packet the same
 * way: a baseline, one right after CNPs, a baseline again.  Before each
 * burst k frames go to the DUT: duplicate ACKs for the baselines, CNPs for
 * the middle one, so the DUT has the same frames to process each time and
 * only a congestion reaction point makes the middle burst slower.  Rates on
 * a loaded host vary several-fold from burst to burst: only a fall below a
 * quarter of the slower baseline counts. */
static void req_cnp_rate(struct cf *c)
{
	const unsigned n = 32, k = 8;
	/* baseline, CNPs, baseline, CNPs, baseline: a reaction point slows
	 * down after both bursts of CNPs; one slow phase alone is the DUT's
	 * (or a virtual machine's) scheduling, not a reaction */
	double rate[5] = { 0, 0, 0, 0, 0 }, base, slow;
	uint32_t psn = D0, msn = 0;
	struct cf_wc wc[16];

	if (req_conn(c, 18, 7, 7))
		return;
	for (int phase = 0; phase < 5; phase++) {
		uint64_t t_first = 0, t_last = 0;
		unsigned got = 0;
		int left = (int)n;

		for (unsigned i = 0; i < k; i++) {
			struct roce_frame_spec s;

			if (phase & 1) {
				cf_spec(c, &s, ROCE_OPCODE_CNP, 0);
				roce_spec_cnp(&s, c->dut_qpn);
				if (cf_send(c, &s))
					return;
			} else if (send_aeth(c, ROCE_OP_ACK, (psn - 1) & 0xffffff, 0x1f, msn, NULL, 0)) {
				return;
			}
		}
		if (dut_post(c, "write", c->mtu, n))
			return;
		while (got < n) {
			if (next_req(c, cf_now(c) + RSP_WAIT) != 1) {
				if (!c->r.judged)
					cf_fail(c, "the DUT sent %u of %u WRITEs", got, n);
				return;
			}
			if (c->rx.p.psn != (psn & 0xffffff))
				continue;
			if (!got++)
				t_first = c->rx.ts;
			t_last = c->rx.ts;
			if (send_aeth(c, ROCE_OP_ACK, psn, 0x1f, ++msn, NULL, 0))
				return;
			psn++;
		}
		rate[phase] = t_last > t_first ? (double)(n - 1) * 1e9 / (double)(t_last - t_first) : 0;
		while (left > 0) {
			int w = wait_wcs(c, wc, left < 16 ? left : 16, RSP_WAIT);

			if (w <= 0) {
				if (!c->r.judged)
					cf_fail(c, "WRITE completions missing");
				return;
			}
			left -= w;
		}
	}
	cf_metric(c, "rate_before", rate[0], "pps");
	cf_metric(c, "rate_after_cnps", rate[1], "pps");
	cf_metric(c, "rate_again", rate[2], "pps");
	cf_metric(c, "rate_after_cnps2", rate[3], "pps");
	cf_metric(c, "rate_last", rate[4], "pps");
	base = rate[0];
	for (int i = 2; i < 5; i += 2)
		base = rate[i] < base ? rate[i] : base;
	slow = rate[1] > rate[3] ? rate[1] : rate[3];
	if (base > 0 && rate[1] > 0 && rate[3] > 0 && slow < 0.25 * base) {
		cf_pass(c, "rate fell to %.0f and %.0f packets/s after %u CNPs each time (baselines %.0f, %.0f, %.0f)",
			rate[1], rate[3], k, rate[0], rate[2], rate[4]);
		return;
	}
	cf_unsup(c, "no rate reduction after %u CNPs twice (%.0f, %.0f packets/s; baselines %.0f, %.0f, %.0f): "
		 "no congestion reaction point", k, rate[1], rate[3], rate[0], rate[2], rate[4]);
}

const struct cf_case cf_cases[] = {
	{ "resp.send", "responder", "in-order SENDs ACKed with MSN 1, 2; receives complete with the data", resp_send },
	{ "resp.write", "responder", "WRITE_ONLY and FIRST/MIDDLE/LAST ACKed with MSN; memory read back", resp_write },
	{ "resp.read", "responder", "3-packet READ answered FIRST/MIDDLE/LAST with the data and MSN", resp_read },
	{ "resp.atomic", "responder", "FETCH_ADD and CMP_SWAP return the original value, MSN 1, 2", resp_atomic },
	{ "resp.psn-gap", "responder", "a PSN gap gives exactly one sequence-error NAK with the expected PSN", resp_psn_gap },
	{ "resp.dup-send", "responder", "a duplicate SEND is re-ACKed, not executed", resp_dup_send },
	{ "resp.dup-write", "responder", "a duplicate WRITE is re-ACKed, not executed (memory read back)", resp_dup_write },
	{ "resp.dup-read-full", "responder", "a duplicate READ is replayed in full", resp_dup_read_full },
	{ "resp.dup-read-partial", "responder", "a duplicate READ from its second packet is replayed from there", resp_dup_read_partial },
	{ "resp.dup-atomic", "responder", "a duplicate FETCH_ADD returns the saved value, executed once", resp_dup_atomic },
	{ "resp.bad-icrc", "responder", "a request with a bad ICRC is dropped silently", resp_bad_icrc },
	{ "resp.opseq-middle", "responder", "SEND_MIDDLE without FIRST is NAKed invalid request", resp_opseq_middle },
	{ "resp.bad-pad", "responder", "SEND_FIRST shorter than the MTU (pad 2) is NAKed invalid request", resp_bad_pad },
	{ "resp.bad-rkey", "responder", "WRITE with a wrong rkey is NAKed remote access error", resp_bad_rkey },
	{ "resp.bad-va", "responder", "WRITE beyond the MR is NAKed remote access error", resp_bad_va },
	{ "resp.rnr", "responder", "SEND with no receive posted gets an RNR NAK with the advertised timer", resp_rnr },
	{ "resp.psn-wrap", "responder", "PSNs wrapping from 0xffffff to 0 are in order", resp_psn_wrap },
	{ "resp.mtu-pad", "responder", "every path MTU up to the active one, every pad count", resp_mtu_pad },
	{ "resp.ecn-cnp", "responder", "ECN-CE-marked requests get CNPs (delay, spacing measured)", resp_ecn_cnp },
	{ "resp.cnp-scope", "responder", "CNP pacing scope: per QP, per IP pair or per port (3 QPs, 2 IP pairs)", resp_cnp_scope },
	{ "resp.cnp-nak", "responder", "whether a CNP accompanies a sequence NAK (informational)", resp_cnp_nak },
	{ "req.ack-timeout", "requester", "a withheld ACK: retransmission after the local ACK timeout", req_ack_timeout },
	{ "req.seq-nak", "requester", "a sequence-error NAK: go-back-N from the NAKed PSN", req_seq_nak },
	{ "req.rnr", "requester", "an RNR NAK: retry after its timer", req_rnr },
	{ "req.read-gap", "requester", "a missing READ response MIDDLE: a new READ from the gap", req_read_gap },
	{ "req.retry-exhaust", "requester", "retry_cnt 2 without ACKs: 3 transmissions, retry-exceeded, QP error", req_retry_exhaust },
	{ "req.retry7", "requester", "retry_cnt 7 without ACKs: 8 transmissions, retry-exceeded", req_retry7 },
	{ "req.cnp-rate", "requester", "CNPs received: the sending rate falls", req_cnp_rate },
};
const unsigned cf_n_cases = sizeof(cf_cases) / sizeof(cf_cases[0]);
