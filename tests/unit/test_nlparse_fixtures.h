/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture tests of test_nlparse.c: RDMA netlink replies recorded by
 * tools/nlrecord in the lab guests (Linux 6.1, rdma_rxe on eth0) during
 * ib_write_bw and rping; the values are those `rdma -j res show` printed
 * right after (tests/fixtures/device/GUEST/1/rdma-*.json; its PSNs were read
 * a moment later, while traffic flowed).
 */

static void test_fixture_dev_port(void **state)
{
	size_t len;
	uint8_t *b = load("vma/1/dev.bin", &len);
	struct nlp_vec v;
	const struct nlp_dev *d;
	const struct nlp_port *p;

	(void)state;
	nlp_vec_init(&v, NLP_DEV);
	assert_int_equal(nlp_parse(NLP_DEV, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 1);
	d = NLP_AT(&v, struct nlp_dev, 0);
	assert_int_equal(d->index, 0);          /* Linux numbers RDMA devices from 0 */
	assert_string_equal(d->name, "rxe0");
	assert_int_equal(d->nports, 1);
	assert_string_equal(d->protocol, "roce");
	nlp_vec_free(&v);
	free(b);

	b = load("vma/1/port-0.bin", &len);
	nlp_vec_init(&v, NLP_PORT);
	assert_int_equal(nlp_parse(NLP_PORT, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 1);
	p = NLP_AT(&v, struct nlp_port, 0);
	assert_int_equal(p->port, 1);
	assert_string_equal(nlp_port_state_str(p->state), "ACTIVE");
	assert_string_equal(nlp_phys_state_str(p->phys_state), "LINK_UP");
	assert_string_equal(p->ndev_name, "eth0");
	assert_true(p->have & NLP_HAVE_NDEV);
	nlp_vec_free(&v);
	free(b);
}

/* vma during ib_write_bw (its QP 17 in RTR: the server side of perftest's
 * write test only receives) and vmb during rping (QP 18, RTS). */
static void test_fixture_qps(void **state)
{
	size_t len;
	uint8_t *b = load("vma/1/qp-0.bin", &len);
	struct nlp_vec v;
	const struct nlp_qp *q;

	(void)state;
	nlp_vec_init(&v, NLP_QP);
	assert_int_equal(nlp_parse(NLP_QP, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 2);
	/* the kernel lists them newest first */
	q = NLP_AT(&v, struct nlp_qp, 1);
	assert_int_equal(q->lqpn, 1);
	assert_string_equal(nlp_qp_type_str(q->type), "GSI");
	assert_string_equal(q->own.kern_name, "ib_core");
	q = NLP_AT(&v, struct nlp_qp, 0);
	assert_int_equal(q->lqpn, 17);
	assert_int_equal(q->rqpn, 17);
	assert_string_equal(nlp_qp_type_str(q->type), "RC");
	assert_string_equal(nlp_qp_state_str(q->state), "RTR");
	assert_string_equal(nlp_pmig_str(q->pmig), "MIGRATED");
	assert_int_equal(q->sq_psn, 0);
	assert_int_equal(q->rq_psn, 3584557);   /* rdma, a moment later: 3584821 */
	assert_int_equal(q->pdn, 2);
	assert_int_equal(q->own.pid, 244);
	nlp_vec_free(&v);
	free(b);

	b = load("vmb/1/qp-0.bin", &len);
	nlp_vec_init(&v, NLP_QP);
	assert_int_equal(nlp_parse(NLP_QP, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 2);
	q = NLP_AT(&v, struct nlp_qp, 0);
	assert_int_equal(q->lqpn, 18);
	assert_int_equal(q->rqpn, 18);
	assert_string_equal(nlp_qp_state_str(q->state), "RTS");
	assert_int_equal(q->sq_psn, 8901746);   /* rdma: 8901774 */
	assert_int_equal(q->rq_psn, 9863524);   /* rdma: 9863580 */
	assert_int_equal(q->pdn, 3);
	assert_int_equal(q->own.pid, 245);
	nlp_vec_free(&v);
	free(b);
}

static void test_fixture_cm_ids(void **state)
{
	size_t len;
	uint8_t *b = load("vmb/1/cmid-0.bin", &len);
	struct nlp_vec v;
	const struct nlp_cmid *c;
	char a[80];

	(void)state;
	nlp_vec_init(&v, NLP_CMID);
	assert_int_equal(nlp_parse(NLP_CMID, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 1);
	c = NLP_AT(&v, struct nlp_cmid, 0);
	assert_string_equal(nlp_cm_state_str(c->state), "CONNECT");
	assert_string_equal(nlp_cm_ps_str(c->ps), "TCP");
	assert_int_equal(c->lqpn, 18);
	assert_int_equal(c->own.pid, 245);
	assert_string_equal(nlp_addr_str(&c->src, a, sizeof a), "10.99.0.2:52191");
	assert_string_equal(nlp_addr_str(&c->dst, a, sizeof a), "10.99.0.1:7174");
	nlp_vec_free(&v);
	free(b);
}

/* CQs and MRs: counts and owners as recorded on vmb (rping). */
static void test_fixture_cq_mr(void **state)
{
	size_t len;
	uint8_t *b = load("vmb/1/cq-0.bin", &len);
	struct nlp_vec v;

	(void)state;
	nlp_vec_init(&v, NLP_CQ);
	assert_int_equal(nlp_parse(NLP_CQ, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 2);
	assert_true(NLP_AT(&v, struct nlp_cq, 0)->cqe > 0);
	nlp_vec_free(&v);
	free(b);
	b = load("vmb/1/mr-0.bin", &len);
	nlp_vec_init(&v, NLP_MR);
	assert_int_equal(nlp_parse(NLP_MR, b, len, &v), NLP_DONE);
	assert_int_equal(v.n, 4);
	for (size_t i = 0; i < v.n; i++) {
		assert_int_equal(NLP_AT(&v, struct nlp_mr, i)->own.pid, 245);
		assert_true(NLP_AT(&v, struct nlp_mr, i)->len > 0);
	}
	nlp_vec_free(&v);
	free(b);
}

/* Every truncation of a real reply: no over-read, no DONE claimed. */
static void test_fixture_truncations(void **state)
{
	size_t len;
	uint8_t *b = load("vmb/1/qp-0.bin", &len);

	(void)state;
	for (size_t n = 0; n < len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		struct nlp_vec v;
		int rc;

		memcpy(copy, b, n);
		nlp_vec_init(&v, NLP_QP);
		rc = nlp_parse(NLP_QP, copy, n, &v);
		assert_true(rc == NLP_MORE || rc == NLP_EINVAL || rc == NLP_DONE);
		/* DONE only once the NLMSG_DONE message is whole */
		if (rc == NLP_DONE)
			assert_true(n == len);
		nlp_vec_free(&v);
		free(copy);
	}
	free(b);
}

#define FIXTURE_TESTS \
	cmocka_unit_test(test_fixture_dev_port), \
	cmocka_unit_test(test_fixture_qps), \
	cmocka_unit_test(test_fixture_cm_ids), \
	cmocka_unit_test(test_fixture_cq_mr), \
	cmocka_unit_test(test_fixture_truncations),
