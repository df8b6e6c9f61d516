/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * values.c — the numbers of a flow the screens show (RoCE and iWARP alike).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "view.h"

uint32_t flow_retx(const struct flow *f)
{
	return f->kind == FK_IWARP ? f->u.iw.tcp_retrans : flow_anom(f)->retransmissions;
}

uint32_t flow_naks(const struct flow *f)
{
	const struct roce_seq_anom *x = flow_anom(f);

	return x->nak_seq_err + x->nak_invalid_request + x->nak_remote_access + x->nak_remote_op + x->nak_other;
}

int flow_ops(const struct flow *f, char out[5])
{
	static const char l[OP__COUNT] = { 'S', 'W', 'R', 'A' };
	int m = 0;

	for (int i = 0; i < OP__COUNT; i++) {
		out[i] = f->msgs[i] ? l[i] : '-';
		m |= f->msgs[i] ? 1 << i : 0;
	}
	out[4] = 0;
	return m;
}

uint32_t flow_rtt50(const struct engine *e, const struct flow *f)
{
	return flow_rtt_q_us(e, f, ROCE_RTT_ACK, 0.5);
}

/* The counters the events and sparklines follow. */
void counters(const struct flow *f, uint32_t c[EV__N])
{
	const struct roce_seq_anom *x = flow_anom(f);

	memset(c, 0, EV__N * sizeof c[0]);
	if (f->kind == FK_IWARP) {
		c[EV_TCP_RETX] = f->u.iw.tcp_retrans;
		c[EV_CRC] = f->u.iw.crc_bad;
		c[EV_TCP_GAP] = f->u.iw.tcp_gaps;
		c[EV_TERM] = f->u.iw.terminates;
		return;
	}
	c[EV_RETX] = x->retransmissions;
	c[EV_NAK] = x->nak_seq_err;
	c[EV_RNR] = x->rnr_nak;
	c[EV_GAP] = x->psn_gaps;
	c[EV_DUP] = x->duplicate_request;
	c[EV_OOSR] = x->out_of_seq_request;
	c[EV_CNP] = f->u.seq.cnp;
	c[EV_ECN] = f->u.seq.ecn_ce;
	c[EV_ICRC] = f->u.seq.icrc_bad;
	c[EV_IMPLIED] = x->implied_nak;
	c[EV_TIMEOUT] = x->episodes[ROCE_SEQ_TRIG_TIMEOUT];
}

/* Three significant digits: "6.71 Mb/s", "428 kb/s" (at most 9 characters). */
const char *rate_str(double bps, char *buf, size_t cap)
{
	static const char *const u[] = { "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s" };
	int i = 0;

	while (bps >= 999.5 && i < 4) {
		bps /= 1000;
		i++;
	}
	snprintf(buf, cap, !i || bps >= 99.95 ? "%.0f %s" : bps >= 9.995 ? "%.1f %s" : "%.2f %s", bps, u[i]);
	return buf;
}

void qpn_str(const struct flow *f, char *buf, size_t cap)
{
	if (f->kind == FK_IWARP)
		snprintf(buf, cap, "%u>%u", f->qpn >> 16, f->qpn & 0xffff);
	else
		snprintf(buf, cap, "0x%06" PRIx32, f->qpn);
}

/* Seconds from a flow's first packet to its last. */
double flow_life_s(const struct engine *e, const struct flow *f)
{
	uint64_t t0 = flow_first_ns(e, f);

	return f->last_ns > t0 ? (double)(f->last_ns - t0) / 1e9 : 0;
}

/* 1 when the capture so far is shorter than the RATE column's 2 s window:
 * the column is then the rate over all of it. */
int rate_whole(const struct tui *v, uint64_t now)
{
	return v->e && engine_rate_window(v->e, 0, now) < 2;
}
