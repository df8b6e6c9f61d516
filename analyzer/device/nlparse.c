/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nlparse.c — RDMA netlink replies → structs (see nlparse.h).
 *
 * A reply is a run of netlink messages, each
 *
 *   struct nlmsghdr { len, type = RDMA_NL_NLDEV << 10 | cmd, flags, seq, pid }
 *   attributes (no family header): DEV_INDEX, DEV_NAME, …, and for the
 *   resource dumps one nest RES_xx holding nests RES_xx_ENTRY of attributes.
 *
 * Lengths are checked here (the message against the buffer) before libmnl
 * iterates attributes (mnl_attr_ok() checks each attribute against its
 * message); every value is read only after mnl_attr_validate() said its
 * payload has the right size.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nlparse.h"

#define NATTR RDMA_NLDEV_ATTR_MAX

struct tb {
	const struct nlattr *a[NATTR];
};

/* The payload type each attribute we read must have (0: not read). */
static enum mnl_attr_data_type attr_type(uint16_t t)
{
	switch (t) {
	case RDMA_NLDEV_ATTR_PORT_STATE: case RDMA_NLDEV_ATTR_PORT_PHYS_STATE:
	case RDMA_NLDEV_ATTR_RES_TYPE: case RDMA_NLDEV_ATTR_RES_STATE:
	case RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE: case RDMA_NLDEV_ATTR_RES_POLL_CTX:
	case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC:
		return MNL_TYPE_U8;
	case RDMA_NLDEV_ATTR_DEV_INDEX: case RDMA_NLDEV_ATTR_PORT_INDEX: case RDMA_NLDEV_ATTR_RES_LQPN:
	case RDMA_NLDEV_ATTR_RES_RQPN: case RDMA_NLDEV_ATTR_RES_RQ_PSN: case RDMA_NLDEV_ATTR_RES_SQ_PSN:
	case RDMA_NLDEV_ATTR_RES_PID: case RDMA_NLDEV_ATTR_RES_PDN: case RDMA_NLDEV_ATTR_RES_CQN:
	case RDMA_NLDEV_ATTR_RES_MRN: case RDMA_NLDEV_ATTR_RES_CM_IDN: case RDMA_NLDEV_ATTR_RES_CQE:
	case RDMA_NLDEV_ATTR_RES_RKEY: case RDMA_NLDEV_ATTR_RES_LKEY: case RDMA_NLDEV_ATTR_RES_PS:
	case RDMA_NLDEV_ATTR_NDEV_INDEX: case RDMA_NLDEV_ATTR_STAT_COUNTER_ID: case RDMA_NLDEV_ATTR_STAT_MODE:
	case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX:
		return MNL_TYPE_U32;
	case RDMA_NLDEV_ATTR_NODE_GUID: case RDMA_NLDEV_ATTR_RES_USECNT: case RDMA_NLDEV_ATTR_RES_IOVA:
	case RDMA_NLDEV_ATTR_RES_MRLEN: case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE:
		return MNL_TYPE_U64;
	case RDMA_NLDEV_ATTR_DEV_NAME: case RDMA_NLDEV_ATTR_FW_VERSION: case RDMA_NLDEV_ATTR_NDEV_NAME:
	case RDMA_NLDEV_ATTR_RES_KERN_NAME: case RDMA_NLDEV_ATTR_DEV_PROTOCOL:
	case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME:
		return MNL_TYPE_NUL_STRING;
	case RDMA_NLDEV_ATTR_RES_QP: case RDMA_NLDEV_ATTR_RES_QP_ENTRY: case RDMA_NLDEV_ATTR_RES_CQ:
	case RDMA_NLDEV_ATTR_RES_CQ_ENTRY: case RDMA_NLDEV_ATTR_RES_MR: case RDMA_NLDEV_ATTR_RES_MR_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CM_ID: case RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY:
	case RDMA_NLDEV_ATTR_STAT_COUNTER: case RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY:
	case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS: case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY:
		return MNL_TYPE_NESTED;
	case RDMA_NLDEV_ATTR_RES_SRC_ADDR: case RDMA_NLDEV_ATTR_RES_DST_ADDR:
		return MNL_TYPE_BINARY;
	default:
		return MNL_TYPE_UNSPEC;
	}
}

/* Keeps attributes we read whose payload has the right size; drops others. */
static int keep_attr(const struct nlattr *a, void *data)
{
	struct tb *tb = data;
	uint16_t t = mnl_attr_get_type(a);
	enum mnl_attr_data_type want;

	if (t >= NATTR || (want = attr_type(t)) == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	if (want == MNL_TYPE_BINARY) {
		uint16_t n = mnl_attr_get_payload_len(a);

		if (n < sizeof(sa_family_t) || n > sizeof(struct sockaddr_storage))
			return MNL_CB_OK;
	} else if (mnl_attr_validate(a, want) < 0) {
		return MNL_CB_OK;
	}
	tb->a[t] = a;
	return MNL_CB_OK;
}

static uint32_t u32(const struct tb *tb, uint16_t t, uint32_t *have, uint32_t bit)
{
	if (!tb->a[t])
		return 0;
	*have |= bit;
	return mnl_attr_get_u32(tb->a[t]);
}

static uint8_t u8(const struct tb *tb, uint16_t t, uint32_t *have, uint32_t bit)
{
	if (!tb->a[t])
		return 0;
	*have |= bit;
	return mnl_attr_get_u8(tb->a[t]);
}

static uint64_t u64(const struct tb *tb, uint16_t t)
{
	return tb->a[t] ? mnl_attr_get_u64(tb->a[t]) : 0;
}

static void str(const struct tb *tb, uint16_t t, char *dst, size_t cap)
{
	if (tb->a[t])
		snprintf(dst, cap, "%s", mnl_attr_get_str(tb->a[t]));
}

static void addr(const struct tb *tb, uint16_t t, struct sockaddr_storage *ss, uint32_t *have, uint32_t bit)
{
	if (!tb->a[t])
		return;
	memset(ss, 0, sizeof *ss);
	memcpy(ss, mnl_attr_get_payload(tb->a[t]), mnl_attr_get_payload_len(tb->a[t]));
	*have |= bit;
}

static void owner(const struct tb *tb, struct nlp_owner *o, uint32_t *have)
{
	o->pid = u32(tb, RDMA_NLDEV_ATTR_RES_PID, have, NLP_HAVE_PID);
	if (tb->a[RDMA_NLDEV_ATTR_RES_KERN_NAME]) {
		str(tb, RDMA_NLDEV_ATTR_RES_KERN_NAME, o->kern_name, sizeof o->kern_name);
		*have |= NLP_HAVE_KERN;
	}
}

static void *push(struct nlp_vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *nv = realloc(v->v, cap * v->esz);

		if (!nv)
			return NULL;
		v->v = nv;
		v->cap = cap;
	}
	memset((char *)v->v + v->n * v->esz, 0, v->esz);
	return (char *)v->v + v->n++ * v->esz;
}

/* ---- one entry per kind -------------------------------------------------- */

static int fill_dev(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_dev *d = push(out);
	uint32_t have = 0;

	if (!d)
		return NLP_ENOMEM;
	d->index = dev;
	d->nports = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &have, NLP_HAVE_PORT);
	d->node_guid = u64(tb, RDMA_NLDEV_ATTR_NODE_GUID);
	str(tb, RDMA_NLDEV_ATTR_DEV_NAME, d->name, sizeof d->name);
	str(tb, RDMA_NLDEV_ATTR_FW_VERSION, d->fw, sizeof d->fw);
	str(tb, RDMA_NLDEV_ATTR_DEV_PROTOCOL, d->protocol, sizeof d->protocol);
	return 0;
}

static int fill_port(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_port *p = push(out);

	if (!p)
		return NLP_ENOMEM;
	p->dev_index = dev;
	p->port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &p->have, NLP_HAVE_PORT);
	p->state = u8(tb, RDMA_NLDEV_ATTR_PORT_STATE, &p->have, NLP_HAVE_STATE);
	p->phys_state = u8(tb, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, &p->have, 0);
	p->ndev_index = u32(tb, RDMA_NLDEV_ATTR_NDEV_INDEX, &p->have, NLP_HAVE_NDEV);
	str(tb, RDMA_NLDEV_ATTR_DEV_NAME, p->dev_name, sizeof p->dev_name);
	str(tb, RDMA_NLDEV_ATTR_NDEV_NAME, p->ndev_name, sizeof p->ndev_name);
	return 0;
}

static int fill_qp(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_qp *q = push(out);

	if (!q)
		return NLP_ENOMEM;
	q->dev_index = dev;
	q->port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &q->have, NLP_HAVE_PORT);
	q->lqpn = u32(tb, RDMA_NLDEV_ATTR_RES_LQPN, &q->have, NLP_HAVE_LQPN);
	q->rqpn = u32(tb, RDMA_NLDEV_ATTR_RES_RQPN, &q->have, NLP_HAVE_RQPN);
	q->rq_psn = u32(tb, RDMA_NLDEV_ATTR_RES_RQ_PSN, &q->have, NLP_HAVE_RQ_PSN);
	q->sq_psn = u32(tb, RDMA_NLDEV_ATTR_RES_SQ_PSN, &q->have, NLP_HAVE_SQ_PSN);
	q->pdn = u32(tb, RDMA_NLDEV_ATTR_RES_PDN, &q->have, NLP_HAVE_PDN);
	q->type = u8(tb, RDMA_NLDEV_ATTR_RES_TYPE, &q->have, NLP_HAVE_TYPE);
	q->state = u8(tb, RDMA_NLDEV_ATTR_RES_STATE, &q->have, NLP_HAVE_STATE);
	q->pmig = u8(tb, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, &q->have, NLP_HAVE_PMIG);
	owner(tb, &q->own, &q->have);
	return 0;
}

static int fill_cq(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_cq *c = push(out);

	if (!c)
		return NLP_ENOMEM;
	c->dev_index = dev;
	c->cqn = u32(tb, RDMA_NLDEV_ATTR_RES_CQN, &c->have, 0);
	c->cqe = u32(tb, RDMA_NLDEV_ATTR_RES_CQE, &c->have, 0);
	c->users = u64(tb, RDMA_NLDEV_ATTR_RES_USECNT);
	c->poll_ctx = u8(tb, RDMA_NLDEV_ATTR_RES_POLL_CTX, &c->have, 0);
	owner(tb, &c->own, &c->have);
	return 0;
}

static int fill_mr(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_mr *m = push(out);

	if (!m)
		return NLP_ENOMEM;
	m->dev_index = dev;
	m->mrn = u32(tb, RDMA_NLDEV_ATTR_RES_MRN, &m->have, 0);
	m->rkey = u32(tb, RDMA_NLDEV_ATTR_RES_RKEY, &m->have, 0);
	m->lkey = u32(tb, RDMA_NLDEV_ATTR_RES_LKEY, &m->have, 0);
	m->pdn = u32(tb, RDMA_NLDEV_ATTR_RES_PDN, &m->have, NLP_HAVE_PDN);
	m->iova = u64(tb, RDMA_NLDEV_ATTR_RES_IOVA);
	m->len = u64(tb, RDMA_NLDEV_ATTR_RES_MRLEN);
	owner(tb, &m->own, &m->have);
	return 0;
}

static int fill_cmid(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_cmid *c = push(out);

	if (!c)
		return NLP_ENOMEM;
	c->dev_index = dev;
	c->port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &c->have, NLP_HAVE_PORT);
	c->cm_idn = u32(tb, RDMA_NLDEV_ATTR_RES_CM_IDN, &c->have, 0);
	c->lqpn = u32(tb, RDMA_NLDEV_ATTR_RES_LQPN, &c->have, NLP_HAVE_LQPN);
	c->ps = u32(tb, RDMA_NLDEV_ATTR_RES_PS, &c->have, 0);
	c->type = u8(tb, RDMA_NLDEV_ATTR_RES_TYPE, &c->have, NLP_HAVE_TYPE);
	c->state = u8(tb, RDMA_NLDEV_ATTR_RES_STATE, &c->have, NLP_HAVE_STATE);
	addr(tb, RDMA_NLDEV_ATTR_RES_SRC_ADDR, &c->src, &c->have, NLP_HAVE_SRC);
	addr(tb, RDMA_NLDEV_ATTR_RES_DST_ADDR, &c->dst, &c->have, NLP_HAVE_DST);
	owner(tb, &c->own, &c->have);
	return 0;
}

/* The nests of one counter entry: RES_QP → RES_QP_ENTRY → RES_LQPN, and
 * STAT_HWCOUNTERS → STAT_HWCOUNTER_ENTRY → NAME, VALUE. */
static void qpcnt_qps(const struct nlattr *table, struct nlp_qpcnt *c)
{
	const struct nlattr *e;

	mnl_attr_for_each_nested(e, table) {
		struct tb etb = { { 0 } };
		uint32_t have = 0, lqpn;

		if (mnl_attr_get_type(e) != RDMA_NLDEV_ATTR_RES_QP_ENTRY || mnl_attr_validate(e, MNL_TYPE_NESTED) < 0)
			continue;
		mnl_attr_parse_nested(e, keep_attr, &etb);
		lqpn = u32(&etb, RDMA_NLDEV_ATTR_RES_LQPN, &have, 1);
		if (!have)
			continue;
		c->nqps_total++;
		if (c->nqps < NLP_CNT_QPS)
			c->lqpn[c->nqps++] = lqpn;
	}
}

/* The HWCOUNTER entries of a STAT_HWCOUNTERS table (name, value), up to cap,
 * after the *n already there: a bound counter's and a port's alike. */
static void hw_entries(const struct nlattr *table, char (*name)[NLP_CNT_NAME], uint64_t *value,
		       uint32_t *n, uint32_t cap)
{
	const struct nlattr *e;

	mnl_attr_for_each_nested(e, table) {
		struct tb etb = { { 0 } };

		if (mnl_attr_get_type(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY ||
		    mnl_attr_validate(e, MNL_TYPE_NESTED) < 0)
			continue;
		mnl_attr_parse_nested(e, keep_attr, &etb);
		if (!etb.a[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
		    !etb.a[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] || *n >= cap)
			continue;
		str(&etb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name[*n], NLP_CNT_NAME);
		value[(*n)++] = u64(&etb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE);
	}
}

static int fill_qpcnt(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_qpcnt *c;

	if (!tb->a[RDMA_NLDEV_ATTR_STAT_COUNTER_ID])
		return 0;                /* not a counter entry */
	if (!(c = push(out)))
		return NLP_ENOMEM;
	c->dev_index = dev;
	c->port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &c->have, NLP_HAVE_PORT);
	c->id = u32(tb, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, &c->have, 0);
	if (tb->a[RDMA_NLDEV_ATTR_RES_QP])
		qpcnt_qps(tb->a[RDMA_NLDEV_ATTR_RES_QP], c);
	if (tb->a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		hw_entries(tb->a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], c->name, c->value, &c->nctr, NLP_CNT_CTRS);
	return 0;
}

static int fill_portstat(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	struct nlp_portstat *c;

	if (tb->a[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] || !tb->a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return 0;                /* a bound counter's entry, or no statistics */
	if (!(c = push(out)))
		return NLP_ENOMEM;
	c->dev_index = dev;
	c->port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &c->have, NLP_HAVE_PORT);
	hw_entries(tb->a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], c->name, c->value, &c->nctr, NLP_PS_CTRS);
	return 0;
}

static int fill_optstatus(const struct tb *tb, uint32_t dev, struct nlp_vec *out)
{
	const struct nlattr *e;
	struct nlp_portstat *c;

	if (!tb->a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return 0;
	if (!(c = push(out)))
		return NLP_ENOMEM;
	c->dev_index = dev;
	c->port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX, &c->have, NLP_HAVE_PORT);
	mnl_attr_for_each_nested(e, tb->a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]) {
		struct tb etb = { { 0 } };
		uint32_t have = 0;
		uint8_t on;

		if (mnl_attr_get_type(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY ||
		    mnl_attr_validate(e, MNL_TYPE_NESTED) < 0)
			continue;
		mnl_attr_parse_nested(e, keep_attr, &etb);
		on = u8(&etb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, &have, 1);
		if (!etb.a[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] || !have || c->nctr >= NLP_PS_CTRS)
			continue;           /* not an optional counter */
		str(&etb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, c->name[c->nctr], NLP_CNT_NAME);
		have = 0;
		c->index[c->nctr] = u32(&etb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, &have, 1);
		if (!have)
			c->index[c->nctr] = UINT32_MAX;
		c->value[c->nctr++] = on != 0;
	}
	return 0;
}

const struct nlp_qpcnt *nlp_qpcnt_find(const struct nlp_vec *v, uint32_t port, uint32_t lqpn)
{
	for (size_t i = 0; v && i < v->n; i++) {
		const struct nlp_qpcnt *c = NLP_AT(v, const struct nlp_qpcnt, i);

		if ((c->have & NLP_HAVE_PORT) && c->port != port)
			continue;
		for (uint32_t j = 0; j < c->nqps; j++)
			if (c->lqpn[j] == lqpn)
				return c;
	}
	return NULL;
}

struct kind_info {
	uint8_t cmd;
	uint16_t table, entry;   /* 0: the message itself is the entry */
	int (*fill)(const struct tb *tb, uint32_t dev, struct nlp_vec *out);
	size_t esz;
};

static const struct kind_info kinds[] = {
	[NLP_DEV] = { RDMA_NLDEV_CMD_GET, 0, 0, fill_dev, sizeof(struct nlp_dev) },
	[NLP_PORT] = { RDMA_NLDEV_CMD_PORT_GET, 0, 0, fill_port, sizeof(struct nlp_port) },
	[NLP_QP] = { RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY, fill_qp,
		     sizeof(struct nlp_qp) },
	[NLP_CQ] = { RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY, fill_cq,
		     sizeof(struct nlp_cq) },
	[NLP_MR] = { RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY, fill_mr,
		     sizeof(struct nlp_mr) },
	[NLP_CMID] = { RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_NLDEV_ATTR_RES_CM_ID, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY,
		       fill_cmid, sizeof(struct nlp_cmid) },
	[NLP_QPCNT] = { RDMA_NLDEV_CMD_STAT_GET, RDMA_NLDEV_ATTR_STAT_COUNTER, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY,
			fill_qpcnt, sizeof(struct nlp_qpcnt) },
	[NLP_PORTSTAT] = { RDMA_NLDEV_CMD_STAT_GET, 0, 0, fill_portstat, sizeof(struct nlp_portstat) },
	[NLP_OPTSTATUS] = { RDMA_NLDEV_CMD_STAT_GET_STATUS, 0, 0, fill_optstatus, sizeof(struct nlp_portstat) },
};

/* The entries of one RES_xx nest. */
static int parse_table(const struct kind_info *k, const struct nlattr *table, uint32_t dev, struct nlp_vec *out)
{
	const struct nlattr *e;
	int rc;

	mnl_attr_for_each_nested(e, table) {
		struct tb etb = { { 0 } };

		if (mnl_attr_get_type(e) != k->entry || mnl_attr_validate(e, MNL_TYPE_NESTED) < 0)
			continue;
		mnl_attr_parse_nested(e, keep_attr, &etb);
		if ((rc = k->fill(&etb, dev, out)) < 0)
			return rc;
	}
	return 0;
}

static int parse_msg(const struct kind_info *k, const struct nlmsghdr *nlh, struct nlp_vec *out)
{
	struct tb tb = { { 0 } };
	uint32_t dev, have = 0;

	if (nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, k->cmd))
		return 0;                /* not an answer to this request: ignored */
	mnl_attr_parse(nlh, 0, keep_attr, &tb);
	dev = u32(&tb, RDMA_NLDEV_ATTR_DEV_INDEX, &have, 1);
	if (!k->table)
		return k->fill(&tb, dev, out);
	if (!tb.a[k->table])
		return 0;
	return parse_table(k, tb.a[k->table], dev, out);
}

static int walk(const struct kind_info *k, const uint8_t *buf, size_t len, struct nlp_vec *out)
{
	size_t off = 0;
	int rc, last = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const void *)(buf + off);
		size_t step;

		if (nlh->nlmsg_len < sizeof *nlh || nlh->nlmsg_len > len - off)
			return NLP_EINVAL;
		if (nlh->nlmsg_type == NLMSG_DONE)
			return NLP_DONE;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			int e;

			if (nlh->nlmsg_len < sizeof *nlh + sizeof(int))
				return NLP_EINVAL;
			memcpy(&e, buf + off + sizeof *nlh, sizeof e);
			if (e > 0 || e < -4095)
				return NLP_EINVAL;
			return e ? NLP_KERNEL_ERR(-e) : NLP_DONE;
		}
		if (k && nlh->nlmsg_type >= NLMSG_MIN_TYPE && (rc = parse_msg(k, nlh, out)) < 0)
			return rc;
		if (!(nlh->nlmsg_flags & NLM_F_MULTI))
			last = 1;
		step = NLMSG_ALIGN(nlh->nlmsg_len);
		if (step >= len - off)
			return last ? NLP_DONE : NLP_MORE;
		off += step;
	}
	if (off != len)
		return NLP_EINVAL;
	return last ? NLP_DONE : NLP_MORE;
}

int nlp_parse(enum nlp_kind kind, const uint8_t *buf, size_t len, struct nlp_vec *out)
{
	const struct kind_info *k = NULL;
	uint8_t *copy = NULL;
	int rc;

	if (out) {
		if ((unsigned)kind >= sizeof kinds / sizeof kinds[0] || out->esz != kinds[kind].esz)
			return NLP_EINVAL;
		k = &kinds[kind];
	}
	if (len > (size_t)1 << 30)
		return NLP_EINVAL;
	/* Netlink structs are read in place: a 4-byte aligned copy, zero padded
	 * so that libmnl's view of a message (its length rounded up to 4) stays
	 * inside the allocation. */
	if (!(copy = calloc(1, len + NLMSG_ALIGNTO)))
		return NLP_ENOMEM;
	if (len)
		memcpy(copy, buf, len);
	buf = copy;
	rc = walk(k, buf, len, out);
	free(copy);
	return rc;
}

int nlp_status(const uint8_t *buf, size_t len)
{
	return nlp_parse(NLP_DEV, buf, len, NULL);
}

void nlp_vec_init(struct nlp_vec *v, enum nlp_kind kind)
{
	memset(v, 0, sizeof *v);
	v->esz = kinds[kind].esz;
}

void nlp_vec_clear(struct nlp_vec *v)
{
	v->n = 0;
}

void nlp_vec_free(struct nlp_vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/* ---- names ------------------------------------------------------------------ */

static const char *pick(const char *const *t, size_t n, unsigned i)
{
	return i < n && t[i] ? t[i] : "UNKNOWN";
}

#define PICK(t, i) pick(t, sizeof t / sizeof t[0], i)

const char *nlp_qp_type_str(uint8_t t)
{
	static const char *const n[] = { "SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", NULL,
					 "RAW_PACKET", "XRC_INI", "XRC_TGT" };

	return t == 0xff ? "DRIVER" : PICK(n, t);
}

const char *nlp_qp_state_str(uint8_t s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return PICK(n, s);
}

const char *nlp_pmig_str(uint8_t s)
{
	static const char *const n[] = { "MIGRATED", "REARM", "ARMED" };

	return PICK(n, s);
}

const char *nlp_port_state_str(uint8_t s)
{
	static const char *const n[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return PICK(n, s);
}

const char *nlp_phys_state_str(uint8_t s)
{
	static const char *const n[] = { NULL, "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION_TRAINING",
					 "LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST" };

	return PICK(n, s);
}

const char *nlp_cm_state_str(uint8_t s)
{
	static const char *const n[] = { "IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED",
					 "CONNECT", "DISCONNECT", "ADDR_BOUND", "LISTEN", "DEVICE_REMOVAL",
					 "DESTROYING" };

	return PICK(n, s);
}

const char *nlp_cm_ps_str(uint32_t ps)
{
	switch (ps) {
	case 0x0002: return "IPOIB";
	case 0x0106: return "TCP";
	case 0x0111: return "UDP";
	case 0x013f: return "IB";
	default: return "UNKNOWN";
	}
}

const char *nlp_addr_str(const struct sockaddr_storage *ss, char *buf, size_t cap)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		inet_ntop(AF_INET, &s->sin_addr, a, sizeof a);
		snprintf(buf, cap, "%s:%u", a, ntohs(s->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof a);
		snprintf(buf, cap, "[%s]:%u", a, ntohs(s->sin6_port));
	} else if (ss->ss_family == AF_IB) {
		snprintf(buf, cap, "ib");
	} else {
		snprintf(buf, cap, "-");
	}
	return buf;
}
