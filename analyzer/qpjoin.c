/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qpjoin.c — the wire's flows joined with the device's QPs (qpjoin.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include "ctrtab.h"
#include "qpjoin.h"

/* Is the 16-byte address (IPv6, or IPv4-mapped) one of d's GIDs? */
static int local_addr(const struct dm_dev *d, const uint8_t a[16])
{
	for (size_t i = 0; i < d->nports; i++)
		for (size_t j = 0; j < d->ports[i].sp.ngid; j++) {
			uint8_t g[16];

			if (inet_pton(AF_INET6, d->ports[i].sp.gid[j].gid, g) == 1 && !memcmp(g, a, 16))
				return 1;
		}
	return 0;
}

/* A socket address as a 16-byte host address (IPv4 mapped); 0 when none. */
static int sa_addr(const struct sockaddr_storage *ss, uint8_t a[16])
{
	memset(a, 0, 16);
	if (ss->ss_family == AF_INET) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		return 1;
	}
	if (ss->ss_family == AF_INET6) {
		memcpy(a, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
		return 1;
	}
	return 0;
}

/* The CM ID that names lqpn (with both addresses), or NULL. */
static const struct nlp_cmid *cmid_of(const struct dm_dev *d, uint32_t lqpn)
{
	for (size_t i = 0; i < d->cmids.n; i++) {
		const struct nlp_cmid *c = NLP_AT(&d->cmids, struct nlp_cmid, i);

		if ((c->have & NLP_HAVE_LQPN) && c->lqpn == lqpn && c->src.ss_family && c->dst.ss_family)
			return c;
	}
	return NULL;
}

static int roce_flow(const struct flow *f)
{
	return f->kind && f->kind != FK_IWARP;
}

/* 1: f comes in to q, 2: f goes out from q, 0: neither. */
static int belongs(const struct engine *e, const struct dm_dev *d, const struct dm_qp *q,
		   const struct nlp_cmid *cm, const struct flow *f)
{
	const uint8_t *src = e->hosts[f->src].addr, *dst = e->hosts[f->dst].addr;
	uint8_t cs[16], cd[16];
	int have_cm = cm && sa_addr(&cm->src, cs) && sa_addr(&cm->dst, cd);

	if (!roce_flow(f))
		return 0;
	if (f->qpn == q->q.lqpn && local_addr(d, dst))
		return !have_cm || (!memcmp(dst, cs, 16) && !memcmp(src, cd, 16)) ? 1 : 0;
	if ((q->q.have & NLP_HAVE_RQPN) && f->qpn == q->q.rqpn && local_addr(d, src))
		return !have_cm || (!memcmp(src, cs, 16) && !memcmp(dst, cd, 16)) ? 2 : 0;
	return 0;
}

void qpjoin_qp(const struct engine *e, const struct dm_dev *d, const struct dm_qp *q, struct qp_wire *w)
{
	const struct nlp_cmid *cm = cmid_of(d, q->q.lqpn);

	memset(w, 0, sizeof *w);
	for (uint32_t i = 0; e && i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		const struct roce_seq_anom *x = f->u.seq.x;
		int how = belongs(e, d, q, cm, f);

		if (how == 1) {
			w->nflows_in++;
			w->pkts_in += f->packets;
			w->bytes_in += f->bytes;
			w->dup += x ? x->duplicate_request : 0;
			w->oosr += x ? x->out_of_seq_request : 0;
		} else if (how == 2) {
			w->nflows_out++;
			w->pkts_out += f->packets;
			w->bytes_out += f->bytes;
			w->retrans += x ? x->retransmissions : 0;
			w->naks_got += x ? x->nak_seq_err : 0;
			if (!w->rtt_p50_us)
				w->rtt_p50_us = flow_rtt_q_us(e, f, ROCE_RTT_ACK, 0.5);
		}
	}
}

/* What the wire shows of the events a counter meaning names (wire_of). */
enum wire_q {
	WQ_DUP,          /* duplicate requests on the flows coming in */
	WQ_OOS,          /* requests out of sequence on the flows coming in */
	WQ_OOSR,         /* sequence-error episodes (one NAK each) the responder had */
	WQ_NAK_GOT,      /* sequence-error NAKs answering this host's requests */
	WQ_CNP_OUT,      /* CNPs this host sent */
	WQ_CNP_IN,       /* CNPs sent to this host */
	WQ_CE_IN,        /* CE-marked packets of the flows coming in */
};

/* Counter meanings (ctrtab.h) the wire also counts, with the side the
 * counter must be on: every driver's counters of that meaning are
 * compared, whatever their names (the table says which they are). */
static const struct {
	unsigned meaning;
	int side;                            /* enum ctr_side */
	enum wire_q q;
	const char *what;
} pairs[] = {
	{ M_DUP_REQ, CTR_RESP, WQ_DUP, "duplicate requests received" },
	{ M_OOS_RECV, CTR_RESP, WQ_OOS, "requests received out of sequence" },
	{ M_SEQ_NAK_SENT, CTR_RESP, WQ_OOSR, "PSN sequence error NAKs sent (one per episode)" },
	{ M_SEQ_NAK_RECV, CTR_REQ, WQ_NAK_GOT, "PSN sequence error NAKs received" },
	{ M_CNP_SENT, CTR_RESP, WQ_CNP_OUT, "CNPs sent" },
	{ M_CNP_HANDLED, CTR_REQ, WQ_CNP_IN, "CNPs received and handled" },
	{ M_CNP_RECV, CTR_REQ, WQ_CNP_IN, "CNPs received" },
	{ M_ECN_MARKED_RECV, CTR_RESP, WQ_CE_IN,
	  "CE-marked packets received (wire: the RC conversations' marks on both directions)" },
};

/* The wire's count of q over the RoCE flows of device d's addresses.  An
 * RC/XRC flow is a PSN space: its CNPs and CE marks are counted on the
 * request flow (the CNPs come back from its destination); a UC/UD flow
 * counts the CNPs and marks it carries itself. */
static uint64_t wire_of(const struct engine *e, const struct dm_dev *d, enum wire_q q)
{
	uint64_t s = 0;

	for (uint32_t i = 0; e && i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		const struct roce_seq_anom *x;
		int in, out, rc;

		if (!roce_flow(f))
			continue;
		x = f->u.seq.x;
		in = local_addr(d, e->hosts[f->dst].addr);
		out = local_addr(d, e->hosts[f->src].addr);
		rc = f->kind == FK_RC || f->kind == FK_XRC;
		switch (q) {
		case WQ_DUP: s += in && x ? x->duplicate_request : 0; break;
		case WQ_OOS: s += in && x ? x->out_of_sequence : 0; break;
		case WQ_OOSR: s += in && x ? x->out_of_seq_request : 0; break;
		case WQ_NAK_GOT: s += out && x ? x->nak_seq_err : 0; break;
		case WQ_CNP_OUT: s += (rc ? in : out) ? f->u.seq.cnp : 0; break;
		case WQ_CNP_IN: s += (rc ? out : in) ? f->u.seq.cnp : 0; break;
		case WQ_CE_IN: s += in ? f->u.seq.ecn_ce : 0; break;
		}
	}
	return s;
}

size_t qpjoin_compare(const struct engine *e, const struct dm_dev *d, struct qpjoin_cmp *out, size_t cap)
{
	size_t n = 0;

	for (size_t k = 0; k < sizeof pairs / sizeof pairs[0] && n < cap; k++) {
		struct dm_meaning_sum m;
		size_t len = 0;

		/* the device's counters of that meaning that can say how far they
		 * moved (a first read, no reset since) */
		if (!devmon_meaning_side(d, pairs[k].meaning, pairs[k].side, &m) || !m.nmoved)
			continue;
		out[n].counter[0] = 0;
		for (size_t i = 0; i < m.n && i < DM_MEANING_NAMES; i++)
			len += (size_t)snprintf(out[n].counter + len, len < sizeof out[n].counter ?
						sizeof out[n].counter - len : 0, "%s%s", i ? "+" : "", m.names[i]);
		out[n].meaning = pairs[k].what;
		out[n].meaning_name = ctr_meaning_name(pairs[k].meaning);
		out[n].nic = m.since_first;
		out[n].wire = wire_of(e, d, pairs[k].q);
		n++;
	}
	return n;
}
