/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the device source's RDMA netlink parser
 * (analyzer/device/nlparse.c): messages built here with libmnl (every
 * attribute, truncations at every length, kernel error answers, attributes
 * of the wrong size) and replies recorded from the lab guests' Linux 6.1
 * rdma_rxe (tests/fixtures/device/, see its README).
 */
#include "testutil.h"
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <arpa/inet.h>
#include <stdio.h>
#include "../../analyzer/device/nlparse.c"
#include "../../analyzer/device/nlsock.c"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/device"
#endif

static uint8_t msgbuf[8192] __attribute__((aligned(4)));

/* One RES_QP_GET answer: device 1 "rxe0", one RC QP of a user process
 * and one GSI QP of the kernel; then NLMSG_DONE.  Returns the length. */
static size_t build_qp_reply(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct nlattr *tab, *e;

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
	nlh->nlmsg_flags = NLM_F_MULTI;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 17);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQPN, 18);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQ_PSN, 0x123456);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 0xabcdef);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 2);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 4242);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 5);
	mnl_attr_nest_end(nlh, e);
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 7);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 1);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, tab);
	nlh = mnl_nlmsg_put_header(msgbuf + nlh->nlmsg_len);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	return (size_t)((uint8_t *)nlh - msgbuf) + nlh->nlmsg_len;
}

static void test_qp_entries(void **state)
{
	size_t len = build_qp_reply();
	struct nlp_vec v;
	const struct nlp_qp *q;

	(void)state;
	nlp_vec_init(&v, NLP_QP);
	assert_int_equal(nlp_parse(NLP_QP, msgbuf, len, &v), NLP_DONE);
	assert_int_equal(v.n, 2);
	q = NLP_AT(&v, struct nlp_qp, 0);
	assert_int_equal(q->dev_index, 1);
	assert_int_equal(q->lqpn, 17);
	assert_int_equal(q->rqpn, 18);
	assert_int_equal(q->rq_psn, 0x123456);
	assert_int_equal(q->sq_psn, 0xabcdef);
	assert_string_equal(nlp_qp_type_str(q->type), "RC");
	assert_string_equal(nlp_qp_state_str(q->state), "RTS");
	assert_string_equal(nlp_pmig_str(q->pmig), "ARMED");
	assert_int_equal(q->own.pid, 4242);
	assert_int_equal(q->pdn, 5);
	assert_true(q->have & NLP_HAVE_RQPN);
	assert_false(q->have & NLP_HAVE_KERN);
	q = NLP_AT(&v, struct nlp_qp, 1);
	assert_int_equal(q->lqpn, 1);
	assert_string_equal(nlp_qp_type_str(q->type), "GSI");
	assert_string_equal(q->own.kern_name, "ib_core");
	assert_true(q->have & NLP_HAVE_KERN);
	assert_false(q->have & (NLP_HAVE_RQPN | NLP_HAVE_PID | NLP_HAVE_RQ_PSN));
	nlp_vec_free(&v);
}

/* Every truncation: never reads past the end (ASan), never claims DONE. */
static void test_truncations(void **state)
{
	size_t len = build_qp_reply();

	(void)state;
	for (size_t n = 0; n < len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		struct nlp_vec v;
		int rc;

		memcpy(copy, msgbuf, n);
		nlp_vec_init(&v, NLP_QP);
		rc = nlp_parse(NLP_QP, copy, n, &v);
		assert_true(rc == NLP_MORE || rc == NLP_EINVAL);
		assert_true(v.n <= 2);
		nlp_vec_free(&v);
		free(copy);
	}
}

/* A u32 attribute with a 2-byte payload is ignored, not read. */
static void test_bad_attribute_size(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct nlattr *tab, *e;
	struct nlp_vec v;
	uint16_t two = 7;

	(void)state;
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_LQPN, sizeof two, &two);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, 3, "abc");   /* no NUL */
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, tab);
	nlp_vec_init(&v, NLP_QP);
	assert_int_equal(nlp_parse(NLP_QP, msgbuf, nlh->nlmsg_len, &v), NLP_DONE);   /* not multipart */
	assert_int_equal(v.n, 1);
	assert_int_equal(NLP_AT(&v, struct nlp_qp, 0)->dev_index, 3);
	assert_false(NLP_AT(&v, struct nlp_qp, 0)->have & (NLP_HAVE_LQPN | NLP_HAVE_KERN));
	nlp_vec_free(&v);
}

/* The kernel's answer to a bad request: NLMSG_ERROR with -EINVAL. */
static void test_kernel_error(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct nlmsgerr *err;
	struct nlp_vec v;

	(void)state;
	nlh->nlmsg_type = NLMSG_ERROR;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof *err);
	err->error = -EINVAL;
	nlp_vec_init(&v, NLP_PORT);
	assert_int_equal(nlp_parse(NLP_PORT, msgbuf, nlh->nlmsg_len, &v), NLP_KERNEL_ERR(EINVAL));
	assert_int_equal(nlp_status(msgbuf, nlh->nlmsg_len), NLP_KERNEL_ERR(EINVAL));
	err->error = 0;    /* an ACK ends the reply */
	assert_int_equal(nlp_status(msgbuf, nlh->nlmsg_len), NLP_DONE);
	/* a message length beyond the buffer */
	nlh->nlmsg_len = 4096;
	assert_int_equal(nlp_status(msgbuf, 64), NLP_EINVAL);
	nlp_vec_free(&v);
}

static void test_cm_id_addresses(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(7174) };
	struct nlattr *tab, *e;
	struct nlp_vec v;
	char a[80];

	(void)state;
	inet_pton(AF_INET, "10.99.0.1", &sin.sin_addr);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CM_ID);
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PS, 0x106);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 8);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof sin, &sin);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, tab);
	nlp_vec_init(&v, NLP_CMID);
	assert_int_equal(nlp_parse(NLP_CMID, msgbuf, nlh->nlmsg_len, &v), NLP_DONE);
	assert_int_equal(v.n, 1);
	assert_string_equal(nlp_cm_ps_str(NLP_AT(&v, struct nlp_cmid, 0)->ps), "TCP");
	assert_string_equal(nlp_cm_state_str(NLP_AT(&v, struct nlp_cmid, 0)->state), "LISTEN");
	assert_string_equal(nlp_addr_str(&NLP_AT(&v, struct nlp_cmid, 0)->src, a, sizeof a), "10.99.0.1:7174");
	assert_string_equal(nlp_addr_str(&NLP_AT(&v, struct nlp_cmid, 0)->dst, a, sizeof a), "-");
	nlp_vec_free(&v);
}

/* ---- bound QP counters (STAT_GET, STAT_RES = RES_QP) ------------------------ */

static void put_hwcounter(struct nlmsghdr *nlh, const char *name, uint64_t value)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
	mnl_attr_nest_end(nlh, e);
}

/* One counter entry as nldev.c's fill_res_counter_entry() lays it out:
 * PORT_INDEX, STAT_COUNTER_ID, STAT_MODE (+ RES_TYPE in auto mode), RES_QP
 * nest of RES_QP_ENTRY {RES_LQPN}, STAT_HWCOUNTERS nest of entries. */
static void put_counter(struct nlmsghdr *nlh, uint32_t port, uint32_t id, const uint32_t *qpn, size_t nqp,
			uint64_t base)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY), *t, *q;

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, id);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_AUTO);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
	for (size_t i = 0; i < nqp; i++) {
		q = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, qpn[i]);
		mnl_attr_nest_end(nlh, q);
	}
	mnl_attr_nest_end(nlh, t);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	put_hwcounter(nlh, "rx_write_requests", base + 1);
	put_hwcounter(nlh, "out_of_sequence", base + 2);
	put_hwcounter(nlh, "packet_seq_err", (uint64_t)1 << 40);
	mnl_attr_nest_end(nlh, t);
	mnl_attr_nest_end(nlh, e);
}

/* Two STAT_GET messages (one counter each, as the kernel's dumpit sends
 * them, the second one on port 2), then NLMSG_DONE. */
static size_t build_qpcnt_reply(void)
{
	static const uint32_t qa[] = { 17, 18 }, qb[] = { 17 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct nlattr *tab;

	for (int m = 0; m < 2; m++) {
		if (m)
			nlh = mnl_nlmsg_put_header((uint8_t *)nlh + nlh->nlmsg_len);
		nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
		nlh->nlmsg_flags = NLM_F_MULTI;
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 2);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
		tab = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER);
		if (m == 0)
			put_counter(nlh, 1, 4, qa, 2, 1000);
		else
			put_counter(nlh, 2, 9, qb, 1, 5000);
		mnl_attr_nest_end(nlh, tab);
	}
	nlh = mnl_nlmsg_put_header((uint8_t *)nlh + nlh->nlmsg_len);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	return (size_t)((uint8_t *)nlh - msgbuf) + nlh->nlmsg_len;
}

static void test_qp_counters(void **state)
{
	size_t len = build_qpcnt_reply();
	const struct nlp_qpcnt *c;
	struct nlp_vec v;

	(void)state;
	nlp_vec_init(&v, NLP_QPCNT);
	assert_int_equal(nlp_parse(NLP_QPCNT, msgbuf, len, &v), NLP_DONE);
	assert_int_equal(v.n, 2);
	c = NLP_AT(&v, struct nlp_qpcnt, 0);
	assert_int_equal(c->dev_index, 2);
	assert_int_equal(c->port, 1);
	assert_int_equal(c->id, 4);
	assert_int_equal(c->nqps, 2);
	assert_int_equal(c->lqpn[0], 17);
	assert_int_equal(c->lqpn[1], 18);
	assert_int_equal(c->nctr, 3);
	assert_string_equal(c->name[0], "rx_write_requests");
	assert_int_equal(c->value[0], 1001);
	assert_string_equal(c->name[1], "out_of_sequence");
	assert_int_equal(c->value[1], 1002);
	assert_true(c->value[2] == (uint64_t)1 << 40);
	/* lookup by (port, lqpn): QP 17 of port 2 is on counter 9, not 4 */
	assert_ptr_equal(nlp_qpcnt_find(&v, 1, 18), c);
	assert_int_equal(nlp_qpcnt_find(&v, 2, 17)->id, 9);
	assert_int_equal(nlp_qpcnt_find(&v, 2, 17)->value[0], 5001);
	assert_null(nlp_qpcnt_find(&v, 2, 18));
	assert_null(nlp_qpcnt_find(&v, 1, 19));
	/* the same bytes are no QP dump (another command's messages are ignored) */
	nlp_vec_free(&v);
	nlp_vec_init(&v, NLP_QP);
	assert_int_equal(nlp_parse(NLP_QP, msgbuf, len, &v), NLP_DONE);
	assert_int_equal(v.n, 0);
	nlp_vec_free(&v);
}

/* Truncated counter replies: never a read past the end, never DONE. */
static void test_qp_counters_truncated(void **state)
{
	size_t len = build_qpcnt_reply();

	(void)state;
	for (size_t n = 0; n < len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		struct nlp_vec v;
		int rc;

		memcpy(copy, msgbuf, n);
		nlp_vec_init(&v, NLP_QPCNT);
		rc = nlp_parse(NLP_QPCNT, copy, n, &v);
		assert_true(rc == NLP_MORE || rc == NLP_EINVAL);
		assert_true(v.n <= 2);
		nlp_vec_free(&v);
		free(copy);
	}
}

/* rxe and other drivers without counter binding answer EOPNOTSUPP. */
static void test_qp_counters_unsupported(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct nlmsgerr *err;
	struct nlp_vec v;

	(void)state;
	nlh->nlmsg_type = NLMSG_ERROR;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof *err);
	err->error = -EOPNOTSUPP;
	nlp_vec_init(&v, NLP_QPCNT);
	assert_int_equal(nlp_parse(NLP_QPCNT, msgbuf, nlh->nlmsg_len, &v), NLP_KERNEL_ERR(EOPNOTSUPP));
	assert_int_equal(v.n, 0);
	assert_null(nlp_qpcnt_find(&v, 1, 17));
	nlp_vec_free(&v);
}

/* --bind-qp-counters: the request holds what `rdma statistic qp set link
 * DEV/PORT auto type on` sends, read back with libmnl. */
static int bind_attr(const struct nlattr *a, void *data)
{
	uint32_t *v = data;
	uint16_t t = mnl_attr_get_type(a);

	if (t < RDMA_NLDEV_ATTR_MAX && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		v[t] = mnl_attr_get_u32(a) + 1;     /* 0: absent */
	return MNL_CB_OK;
}

static void test_bind_request(void **state)
{
	uint8_t req[256] __attribute__((aligned(4)));
	uint32_t v[RDMA_NLDEV_ATTR_MAX] = { 0 };
	const struct nlmsghdr *nlh = (const void *)req;
	size_t n = nls_bind_request(req, 77, 3, 2);

	(void)state;
	assert_int_equal(n, nlh->nlmsg_len);
	assert_int_equal(nlh->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_SET));
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);   /* not a dump */
	assert_int_equal(nlh->nlmsg_seq, 77);
	assert_int_equal(mnl_attr_parse(nlh, 0, bind_attr, v), MNL_CB_OK);
	assert_int_equal(v[RDMA_NLDEV_ATTR_DEV_INDEX], 3 + 1);
	assert_int_equal(v[RDMA_NLDEV_ATTR_PORT_INDEX], 2 + 1);
	assert_int_equal(v[RDMA_NLDEV_ATTR_STAT_RES], RDMA_NLDEV_ATTR_RES_QP + 1);
	assert_int_equal(v[RDMA_NLDEV_ATTR_STAT_MODE], RDMA_COUNTER_MODE_AUTO + 1);
	assert_int_equal(v[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK], RDMA_COUNTER_MASK_QP_TYPE + 1);
}

/* --device-enable-optional: the STAT_SET request nldev_stat_set_doit takes
 * for optional counters (drivers/infiniband/core/nldev.c): DEV_INDEX and
 * PORT_INDEX (u32, required), then STAT_HWCOUNTERS whose nested attributes
 * nldev_stat_set_counter_dynamic_doit reads each with nla_get_u32 as a
 * counter index (STAT_HWCOUNTER_INDEX, NLA_U32 in nldev_policy).  Written
 * out byte by byte (little-endian host, as the test machines are). */
static void test_optional_request(void **state)
{
	uint8_t req[256] __attribute__((aligned(4)));
	const uint32_t idx[2] = { 3, 40 };
	const uint16_t type = (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_STAT_SET;
	const uint16_t nest = NLA_F_NESTED | RDMA_NLDEV_ATTR_STAT_HWCOUNTERS;
	const uint8_t want[] = {
		52, 0, 0, 0,                          /* nlmsg_len: 16 + 8 + 8 + 4 + 2 * 8 */
		type & 0xff, type >> 8,               /* nlmsg_type */
		NLM_F_REQUEST, 0,                     /* flags: no dump, no ACK (the answer is a STAT_SET message) */
		9, 0, 0, 0,                           /* seq */
		0, 0, 0, 0,                           /* pid */
		8, 0, RDMA_NLDEV_ATTR_DEV_INDEX, 0, 2, 0, 0, 0,
		8, 0, RDMA_NLDEV_ATTR_PORT_INDEX, 0, 1, 0, 0, 0,
		20, 0, nest & 0xff, nest >> 8,
		8, 0, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 0, 3, 0, 0, 0,
		8, 0, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 0, 40, 0, 0, 0,
	};
	size_t n = nls_optional_request(req, sizeof req, 9, 2, 1, idx, 2);

	(void)state;
	assert_int_equal(n, sizeof want);
	assert_memory_equal(req, want, sizeof want);
	/* too small a buffer: nothing built */
	assert_int_equal(nls_optional_request(req, sizeof want - 1, 9, 2, 1, idx, 2), 0);
}

/* STAT_GET_STATUS as nldev_stat_get_counter_status_doit lays it out: every
 * counter with NAME and INDEX, DYNAMIC (enabled) on the optional ones only;
 * the optional ones parse with their kernel index. */
static void test_optstatus_index(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	const struct nlp_portstat *ps;
	struct nlattr *t, *e;
	struct nlp_vec vec;
	const char *names[3] = { "rx_write_requests", "cc_rx_ce_pkts", "rdma_tx_bytes" };

	(void)state;
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET_STATUS);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (uint32_t i = 0; i < 3; i++) {
		e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, names[i]);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 30 + i);
		if (i)
			mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, i == 1);
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, t);
	nlp_vec_init(&vec, NLP_OPTSTATUS);
	assert_int_equal(nlp_parse(NLP_OPTSTATUS, msgbuf, nlh->nlmsg_len, &vec), NLP_DONE);
	assert_int_equal(vec.n, 1);
	ps = NLP_AT(&vec, struct nlp_portstat, 0);
	assert_int_equal(ps->nctr, 2);
	assert_string_equal(ps->name[0], "cc_rx_ce_pkts");
	assert_int_equal(ps->index[0], 31);
	assert_int_equal(ps->value[0], 1);
	assert_string_equal(ps->name[1], "rdma_tx_bytes");
	assert_int_equal(ps->index[1], 32);
	assert_int_equal(ps->value[1], 0);
	nlp_vec_free(&vec);
}

/* A port's statistics (STAT_GET for DEV/PORT, no STAT_RES): the request has
 * no STAT_RES and is not a dump; the answer (one message, as
 * stat_get_doit_default_counter lays it out) parses into one entry, a bound
 * counter's entry (STAT_COUNTER_ID) into none. */
static void test_port_stat(void **state)
{
	uint8_t req[256] __attribute__((aligned(4)));
	uint32_t v[RDMA_NLDEV_ATTR_MAX] = { 0 };
	const struct nlmsghdr *rq = (const void *)req;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	const struct nlp_portstat *ps;
	struct nlattr *t;
	struct nlp_vec vec;
	size_t n = nls_port_stat_request(req, 5, 1, 3);

	(void)state;
	assert_int_equal(n, rq->nlmsg_len);
	assert_int_equal(rq->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET));
	assert_int_equal(rq->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(mnl_attr_parse(rq, 0, bind_attr, v), MNL_CB_OK);
	assert_int_equal(v[RDMA_NLDEV_ATTR_DEV_INDEX], 1 + 1);
	assert_int_equal(v[RDMA_NLDEV_ATTR_PORT_INDEX], 3 + 1);
	assert_int_equal(v[RDMA_NLDEV_ATTR_STAT_RES], 0);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_1");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 3);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	put_hwcounter(nlh, "cc_rx_ce_pkts", 77);
	put_hwcounter(nlh, "rdma_rx_bytes", (uint64_t)1 << 45);
	mnl_attr_nest_end(nlh, t);
	nlp_vec_init(&vec, NLP_PORTSTAT);
	assert_int_equal(nlp_parse(NLP_PORTSTAT, msgbuf, nlh->nlmsg_len, &vec), NLP_DONE);
	assert_int_equal(vec.n, 1);
	ps = NLP_AT(&vec, struct nlp_portstat, 0);
	assert_int_equal(ps->dev_index, 1);
	assert_int_equal(ps->port, 3);
	assert_int_equal(ps->nctr, 2);
	assert_string_equal(ps->name[0], "cc_rx_ce_pkts");
	assert_int_equal(ps->value[0], 77);
	assert_true(ps->value[1] == (uint64_t)1 << 45);
	/* truncated: never DONE with a partial entry read past the end */
	for (size_t k = 0; k < nlh->nlmsg_len; k++) {
		nlp_vec_clear(&vec);
		assert_true(nlp_parse(NLP_PORTSTAT, msgbuf, k, &vec) != NLP_DONE || k == 0);
	}
	nlp_vec_free(&vec);
	/* a bound QP counter's dump is no port statistics */
	nlp_vec_init(&vec, NLP_PORTSTAT);
	assert_int_equal(nlp_parse(NLP_PORTSTAT, msgbuf, build_qpcnt_reply(), &vec), NLP_DONE);
	assert_int_equal(vec.n, 0);
	nlp_vec_free(&vec);
}

/* ---- recorded replies (tests/fixtures/device) ------------------------------- */

static uint8_t *load(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	uint8_t *b = malloc(1 << 20);

	snprintf(path, sizeof path, "%s/%s", FIXTURES, name);
	assert_non_null(b);
	if (!(f = fopen(path, "rb")))
		fail_msg("%s: missing fixture", path);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

#include "test_nlparse_fixtures.h"

/* STAT_GET (QP counters) recorded from a lab guest's Linux 6.1 rxe0: the
 * kernel answers with an empty dump (only NLMSG_DONE), not an error. */
static void test_fixture_qpcnt_rxe(void **state)
{
	size_t len;
	uint8_t *b = load("qpcnt/rxe-qpcnt-0.bin", &len);
	struct nlp_vec v;

	(void)state;
	assert_int_equal(len, 20);
	nlp_vec_init(&v, NLP_QPCNT);
	assert_int_equal(nlp_parse(NLP_QPCNT, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 0);
	nlp_vec_free(&v);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_entries),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_bad_attribute_size),
		cmocka_unit_test(test_kernel_error),
		cmocka_unit_test(test_cm_id_addresses),
		cmocka_unit_test(test_qp_counters),
		cmocka_unit_test(test_qp_counters_truncated),
		cmocka_unit_test(test_qp_counters_unsupported),
		cmocka_unit_test(test_bind_request),
		cmocka_unit_test(test_port_stat),
		cmocka_unit_test(test_optional_request),
		cmocka_unit_test(test_optstatus_index),
		cmocka_unit_test(test_fixture_qpcnt_rxe),
		FIXTURE_TESTS
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
