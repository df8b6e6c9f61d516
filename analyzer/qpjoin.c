/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qpjoin.c — the wire's flows joined with the device's QPs (qpjoin.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
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

static const struct sysfs_counter *find_ctr(const struct sysfs_counter *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* Counter name of port p now and at the first read: 0, or -1 when the port
 * has no such counter (or it went down: a reset). */
static int counter_moved(const struct dm_port *p, const char *name, uint64_t *now, uint64_t *base)
{
	const struct sysfs_counter *c = p->sysfs_ok ? find_ctr(p->sp.ctr, p->sp.nctr, name) : NULL;
	const struct sysfs_counter *b = find_ctr(p->base, p->nbase, name);

	if (!c || !b || c->value < b->value)
		return -1;
	*now = c->value;
	*base = b->value;
	return 0;
}

/* Counters both count, by the kernel's name. */
static const struct {
	const char *counter, *meaning;
	size_t off;                          /* into struct roce_seq_anom */
} pairs[] = {
	{ "duplicate_request", "duplicate request packets the responder received",
	  offsetof(struct roce_seq_anom, duplicate_request) },
	{ "out_of_seq_request", "rxe: PSN sequence error episodes (one NAK each)",
	  offsetof(struct roce_seq_anom, out_of_seq_request) },
	{ "out_of_sequence", "mlx5: request packets dropped out of sequence",
	  offsetof(struct roce_seq_anom, out_of_sequence) },
	{ "rq_num_dup", "mlx4: duplicate requests the responder received",
	  offsetof(struct roce_seq_anom, duplicate_request) },
	{ "rq_num_oos", "mlx4: request packets the responder received out of sequence",
	  offsetof(struct roce_seq_anom, out_of_sequence) },
	{ "dup_req", "bnxt_re: duplicate requests the responder received",
	  offsetof(struct roce_seq_anom, duplicate_request) },
	{ "oos_drop_count", "bnxt_re: request packets dropped out of sequence",
	  offsetof(struct roce_seq_anom, out_of_sequence) },
};

/* The wire's sum of one anomaly counter over the RoCE flows coming in to d. */
static uint64_t wire_sum(const struct engine *e, const struct dm_dev *d, size_t off)
{
	uint64_t s = 0;

	for (uint32_t i = 0; e && i < e->nflows; i++) {
		const struct flow *f = &e->flows[i];
		uint32_t v;

		if (!roce_flow(f) || !f->u.seq.x || !local_addr(d, e->hosts[f->dst].addr))
			continue;
		memcpy(&v, (const uint8_t *)f->u.seq.x + off, sizeof v);
		s += v;
	}
	return s;
}

size_t qpjoin_compare(const struct engine *e, const struct dm_dev *d, struct qpjoin_cmp *out, size_t cap)
{
	size_t n = 0;

	for (size_t k = 0; k < sizeof pairs / sizeof pairs[0] && n < cap; k++) {
		uint64_t nic = 0;
		int have = 0;

		for (size_t i = 0; i < d->nports; i++) {
			uint64_t cur, base;

			if (counter_moved(&d->ports[i], pairs[k].counter, &cur, &base) == 0) {
				nic += cur - base;
				have = 1;
			}
		}
		if (!have)
			continue;
		out[n].counter = pairs[k].counter;
		out[n].meaning = pairs[k].meaning;
		out[n].nic = nic;
		out[n].wire = wire_sum(e, d, pairs[k].off);
		n++;
	}
	return n;
}
