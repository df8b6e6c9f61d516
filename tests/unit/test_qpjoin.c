// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_qpjoin.c — one QP, one row (analyzer/qpjoin.c): the QPs and CM IDs
 * of RDMA netlink replies recorded in the lab (tests/fixtures/device/),
 * joined with the flows of lab captures run through the flow engine.
 * Expected packet counts come from an independent walk over the capture's
 * bytes (Ethernet, IPv4, UDP 4791, BTH destination QP); the NIC's counters
 * from the .counters file the lab wrote beside the capture.
 */
#include "testutil.h"
#include <arpa/inet.h>
#include <stdio.h>
#include "../../analyzer/flow.h"
#include "../../analyzer/iwstream.h"
#include "../../analyzer/ibident.h"
#include "../../analyzer/diag.h"
#include "../../analyzer/device/nlparse.h"
#include "../../analyzer/qpjoin.h"
#include "../../tools/fixcap/fixcap.c"

#define FX "tests/fixtures/device/traffic/vma/1"
#define MAXF 4096

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);

	if (!f)
		fail_msg("%s: missing fixture", path);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* Runs a capture through a fresh engine. */
static void run(struct engine *e, const char *pcap)
{
	static struct test_frame fr[MAXF];
	struct engine_cfg c = { .max_flows = 1000, .pmtu = 1024, .check_icrc = 1 };
	int lt;
	size_t n = test_load_pcap(pcap, fr, MAXF, &lt);

	assert_int_equal(engine_init(e, &c), 0);
	for (size_t i = 0; i < n; i++) {
		struct roce_pkt p;

		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, fr[i].data, fr[i].caplen, fr[i].len);
		engine_packet(e, &p, 1000000000ull + i * 1000, fr[i].caplen, fr[i].len);
	}
	test_free_frames(fr, n);
}

/* Frames of the capture to (dir 0) or from (dir 1) IPv4 address ip with BTH
 * destination QP qpn, read from the bytes themselves. */
static uint64_t count_raw(const char *pcap, const char *ip, uint32_t qpn, int dir)
{
	static struct test_frame fr[MAXF];
	struct in_addr a;
	int lt;
	size_t n = test_load_pcap(pcap, fr, MAXF, &lt);
	uint64_t k = 0;

	assert_int_equal(inet_pton(AF_INET, ip, &a), 1);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *d = fr[i].data;

		if (fr[i].caplen < 54 || d[12] != 0x08 || d[13] != 0x00 || d[23] != 17 || d[36] != 0x12 ||
		    d[37] != 0xb7)
			continue;
		if (memcmp(d + (dir ? 26 : 30), &a, 4) == 0 && ((uint32_t)d[47] << 16 | d[48] << 8 | d[49]) == qpn)
			k++;
	}
	test_free_frames(fr, n);
	return k;
}

/* A device with one port whose GID is ip (IPv4-mapped), the QPs and CM IDs
 * of the recorded replies. */
static void make_dev(struct dm_dev *d, const char *ip)
{
	static struct sysfs_gid g;
	struct nlp_vec v;
	size_t len;
	uint8_t *b;
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff };

	memset(d, 0, sizeof *d);
	d->driver = "rxe";               /* the lab's guests */
	assert_int_equal(inet_pton(AF_INET, ip, a + 12), 1);
	/* sysfs spells every group in full */
	snprintf(g.gid, sizeof g.gid, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a[12], a[13], a[14], a[15]);
	d->ports = calloc(1, sizeof *d->ports);
	assert_non_null(d->ports);
	d->nports = 1;
	d->ports[0].port = 1;
	d->ports[0].sp.gid = &g;
	d->ports[0].sp.ngid = 1;
	b = load(FX "/qp-0.bin", &len);
	nlp_vec_init(&v, NLP_QP);
	assert_int_equal(nlp_parse(NLP_QP, b, len, &v), NLP_DONE);
	free(b);
	d->qps = calloc(v.n, sizeof *d->qps);
	assert_non_null(d->qps);
	for (size_t i = 0; i < v.n; i++)
		d->qps[d->nqps++].q = *NLP_AT(&v, struct nlp_qp, i);
	nlp_vec_free(&v);
	b = load(FX "/cmid-0.bin", &len);
	nlp_vec_init(&d->cmids, NLP_CMID);
	assert_int_equal(nlp_parse(NLP_CMID, b, len, &d->cmids), NLP_DONE);
	free(b);
}

static void free_dev(struct dm_dev *d)
{
	free(d->ports);
	free(d->qps);
	nlp_vec_free(&d->cmids);
}

static const struct dm_qp *qp(const struct dm_dev *d, uint32_t lqpn)
{
	for (size_t i = 0; i < d->nqps; i++)
		if (d->qps[i].q.lqpn == lqpn)
			return &d->qps[i];
	fail_msg("no QP %u in the fixture", lqpn);
	return NULL;
}

/* The recorded vma: QP 17 (ib_write_bw, no CM ID), QP 18 (rping's, CM ID
 * 10.99.0.1:7174 -> 10.99.0.2), QP 1 (GSI).  roce_rping.pcap: rping over
 * QP 17 on both guests, its CM MADs on QP 1. */
static void test_join_by_qpn(void **state)
{
	const char *cap = "captures/lab/roce_rping.pcap";
	struct engine e;
	struct dm_dev d;
	struct qp_wire w;

	(void)state;
	run(&e, cap);
	make_dev(&d, "10.99.0.1");
	qpjoin_qp(&e, &d, qp(&d, 17), &w);
	assert_int_equal(w.nflows_in, 1);
	assert_int_equal(w.nflows_out, 1);
	assert_true(w.pkts_in > 0 && w.pkts_out > 0);
	assert_int_equal(w.pkts_in, count_raw(cap, "10.99.0.1", 17, 0));
	assert_int_equal(w.pkts_out, count_raw(cap, "10.99.0.1", 17, 1));
	assert_int_equal(w.retrans, 0);
	assert_true(w.rtt_p50_us > 0);  /* vma's requests (rping's READs and SENDs) were answered */
	/* QP 18's CM ID is for 10.99.0.2; the capture has no QP 18 at all */
	qpjoin_qp(&e, &d, qp(&d, 18), &w);
	assert_int_equal(w.nflows_in + w.nflows_out, 0);
	/* the GSI QP: the CM MADs coming in; no rqpn, so nothing goes out */
	qpjoin_qp(&e, &d, qp(&d, 1), &w);
	assert_int_equal(w.pkts_in, count_raw(cap, "10.99.0.1", 1, 0));
	assert_true(w.pkts_in > 0);
	assert_int_equal(w.nflows_out, 0);
	free_dev(&d);
	/* seen from the other host the same flows swap sides */
	make_dev(&d, "10.99.0.2");
	qpjoin_qp(&e, &d, qp(&d, 17), &w);
	assert_int_equal(w.pkts_in, count_raw(cap, "10.99.0.2", 17, 0));
	assert_int_equal(w.pkts_out, count_raw(cap, "10.99.0.2", 17, 1));
	free_dev(&d);
	engine_free(&e);
}

/* A CM ID that names the QP narrows the join to its addresses. */
static void test_join_cm_addresses(void **state)
{
	struct engine e;
	struct dm_dev d;
	struct qp_wire w;
	struct nlp_cmid *c = NULL;

	(void)state;
	run(&e, "captures/lab/roce_rping.pcap");
	make_dev(&d, "10.99.0.1");
	for (size_t i = 0; i < d.cmids.n; i++)
		if (NLP_AT(&d.cmids, struct nlp_cmid, i)->have & NLP_HAVE_LQPN)
			c = NLP_AT(&d.cmids, struct nlp_cmid, i);
	assert_non_null(c);
	assert_int_equal(c->lqpn, 18);
	c->lqpn = 17;                    /* rping's CM ID, 10.99.0.1 <-> 10.99.0.2, now on QP 17 */
	qpjoin_qp(&e, &d, qp(&d, 17), &w);
	assert_int_equal(w.nflows_in, 1);
	assert_int_equal(w.nflows_out, 1);
	((struct sockaddr_in *)&c->dst)->sin_addr.s_addr = htonl(0x0a630003);   /* 10.99.0.3 */
	qpjoin_qp(&e, &d, qp(&d, 17), &w);
	assert_int_equal(w.nflows_in + w.nflows_out, 0);
	free_dev(&d);
	engine_free(&e);
}

/* vma.NAME=VALUE from a lab .counters file. */
static uint64_t lab_counter(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char line[256], key[128];
	size_t kl;

	assert_non_null(f);
	kl = (size_t)snprintf(key, sizeof key, "vma.%s=", name);
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, kl)) {
			fclose(f);
			return strtoull(line + kl, NULL, 10);
		}
	fclose(f);
	fail_msg("%s: no vma.%s", path, name);
	return 0;
}

/* SEND with loss and duplication on the requester (vmb): the responder's
 * counters (vma, ground truth) against the wire, and the requester's view
 * of the same QP.  The device's counters start at an arbitrary base. */
static void test_compare_netem(void **state)
{
	const char *cap = "captures/lab/roce_netem_send_dup_loss_req.pcap";
	const char *cnt = "captures/lab/roce_netem_send_dup_loss_req.counters";
	struct sysfs_counter base[2] = { { "duplicate_request", 1000, SYSFS_HW }, { "out_of_seq_request", 50, SYSFS_HW } };
	struct sysfs_counter now[2] = { base[0], base[1] };
	struct qpjoin_cmp c[QPJOIN_MAX_CMP];
	struct engine e;
	struct dm_dev d;
	struct dm_qp q = { .q = { .lqpn = 0x18, .rqpn = 0x18, .type = 2, .have = NLP_HAVE_RQPN } };
	struct qp_wire w;
	size_t n;

	(void)state;
	now[0].value += lab_counter(cnt, "duplicate_request");
	now[1].value += lab_counter(cnt, "out_of_seq_request");
	assert_true(now[0].value > base[0].value && now[1].value > base[1].value);
	run(&e, cap);
	make_dev(&d, "10.99.0.1");
	d.ports[0].sysfs_ok = 1;
	d.ports[0].sp.ctr = now, d.ports[0].sp.nctr = 2;
	d.ports[0].base = base, d.ports[0].nbase = 2;
	n = qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP);
	assert_int_equal(n, 2);          /* rxe has no out_of_sequence */
	assert_string_equal(c[0].counter, "duplicate_request");
	assert_int_equal(c[0].nic, now[0].value - base[0].value);
	assert_int_equal(c[0].wire, c[0].nic);
	assert_string_equal(c[1].counter, "out_of_seq_request");
	assert_int_equal(c[1].wire, c[1].nic);
	/* the responder's QP holds the same counts on its incoming requests */
	qpjoin_qp(&e, &d, &q, &w);
	assert_int_equal(w.dup, c[0].wire);
	assert_int_equal(w.oosr, c[1].wire);
	assert_int_equal(w.pkts_in, count_raw(cap, "10.99.0.1", 0x18, 0));
	/* one more duplicate on the NIC than on the wire: they disagree */
	now[0].value++;
	n = qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP);
	assert_int_not_equal(c[0].nic, c[0].wire);
	/* a counter that went down (reset) is not compared */
	now[1].value = 0;
	assert_int_equal(qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP), 1);
	/* the same duplicates under mlx4's and bnxt_re's names: found by meaning */
	now[1].value = base[1].value;
	snprintf(now[0].name, sizeof now[0].name, "rq_num_dup");
	snprintf(base[0].name, sizeof base[0].name, "rq_num_dup");
	now[0].value = base[0].value + lab_counter(cnt, "duplicate_request");
	d.driver = "mlx4";
	n = qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP);
	assert_int_equal(n, 1);          /* out_of_seq_request is no mlx4 counter */
	assert_string_equal(c[0].counter, "rq_num_dup");
	assert_string_equal(c[0].meaning_name, "duplicate_request");
	assert_int_equal(c[0].wire, c[0].nic);
	snprintf(now[0].name, sizeof now[0].name, "dup_req");
	snprintf(base[0].name, sizeof base[0].name, "dup_req");
	d.driver = "bnxt_re";
	n = qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].counter, "dup_req");
	assert_int_equal(c[0].wire, lab_counter(cnt, "duplicate_request"));
	/* on rxe, dup_req is no counter: only rxe's own out_of_seq_request is compared */
	d.driver = "rxe";
	assert_int_equal(qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP), 1);
	assert_string_equal(c[0].counter, "out_of_seq_request");
	d.ports[0].sp.ctr = NULL, d.ports[0].base = NULL;
	free_dev(&d);
	/* the requester (vmb): its requests go out, retransmitted, NAKed */
	make_dev(&d, "10.99.0.2");
	qpjoin_qp(&e, &d, &q, &w);
	assert_int_equal(w.pkts_out, count_raw(cap, "10.99.0.2", 0x18, 1));
	assert_true(w.retrans > 0 && w.naks_got > 0);
	assert_int_equal(w.naks_got, lab_counter(cnt, "out_of_seq_request"));   /* one NAK per episode */
	assert_int_equal(w.dup + w.oosr, 0);
	/* its sequence-error NAKs received, under mlx5's, mlx4's, bnxt_re's and
	 * rxe's names, against the NAKs on the wire (vma sent one per episode) */
	{
		static const char *const drv[][2] = {
			{ "mlx5", "packet_seq_err" }, { "mlx4", "sq_num_oos" },
			{ "bnxt_re", "seq_err_naks_rcvd" }, { "rxe", "rcvd_seq_err" },
		};
		struct sysfs_counter b1 = { "", 5, SYSFS_HW }, n1;

		for (size_t k = 0; k < sizeof drv / sizeof drv[0]; k++) {
			d.driver = drv[k][0];
			snprintf(b1.name, sizeof b1.name, "%s", drv[k][1]);
			n1 = b1;
			n1.value += lab_counter(cnt, "out_of_seq_request");
			d.ports[0].sysfs_ok = 1;
			d.ports[0].sp.ctr = &n1, d.ports[0].sp.nctr = 1;
			d.ports[0].base = &b1, d.ports[0].nbase = 1;
			n = qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP);
			assert_int_equal(n, 1);
			assert_string_equal(c[0].counter, drv[k][1]);
			assert_string_equal(c[0].meaning_name, "seq_err_nak_received");
			assert_int_equal(c[0].wire, w.naks_got);
			assert_int_equal(c[0].nic, c[0].wire);
		}
		d.ports[0].sp.ctr = NULL, d.ports[0].base = NULL;
	}
	free_dev(&d);
	engine_free(&e);
}

/* One RoCEv2 frame from 10.99.0.a to 10.99.0.b's QP dqpn, fed to the engine. */
static void feed(struct engine *e, uint64_t *t, int a, int b, uint8_t opcode, uint32_t dqpn, uint32_t psn, uint8_t ecn)
{
	struct fixcap_ep from = { { 2, 0, 0, 0, 0, (uint8_t)a }, { 10, 99, 0, (uint8_t)a }, 0 };
	struct fixcap_ep to = { { 2, 0, 0, 0, 0, (uint8_t)b }, { 10, 99, 0, (uint8_t)b }, dqpn };
	struct roce_pkt p;
	uint8_t f[256];
	int n = fixcap_frame(f, sizeof f, &from, &to, opcode, psn, ecn,
			     opcode == (ROCE_TR_RC | ROCE_OP_WRITE_ONLY) ? 64 : 0);

	assert_true(n > 0);
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, (uint32_t)n, (uint32_t)n);
	engine_packet(e, &p, *t += 1000, (uint32_t)n, (uint32_t)n);
}

/* CNPs and ECN marks: the device (10.99.0.1) is the responder of one RC
 * conversation (requests from .2 to its QP 0x20, 3 of 10 CE-marked; it
 * sends 4 CNPs back to QP 0x30) and the requester of another (to .2's QP
 * 0x40; 2 CNPs come back to its QP 0x50).  Each driver's names of those
 * meanings (mlx5, bnxt_re, irdma) are compared with the same wire counts. */
static void test_compare_cnp_ecn(void **state)
{
	static const char *const names[][4] = {   /* driver, CNPs sent, CNPs handled/received, ECN marked */
		{ "mlx5", "np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets" },
		{ "bnxt_re", "tx_cnp_pkts", "rx_cnp_pkts", "rx_ecn_marked_pkts" },
		{ "irdma", "cnpSent", "cnpHandled", "RxECNMrkd" },
	};
	const uint64_t sent = 4, got = 2, marked = 3;
	struct engine_cfg cfg = { .max_flows = 100, .pmtu = 1024, .check_icrc = 1 };
	struct qpjoin_cmp c[QPJOIN_MAX_CMP];
	struct sysfs_counter base[3], now[3];
	struct engine e;
	struct dm_dev d;
	uint64_t t = 1000000000ull;
	uint32_t i;

	(void)state;
	assert_int_equal(engine_init(&e, &cfg), 0);
	for (i = 0; i < 10; i++)
		feed(&e, &t, 2, 1, ROCE_TR_RC | ROCE_OP_WRITE_ONLY, 0x20, i, i == 2 || i == 4 || i == 6 ? 3 : 2);
	feed(&e, &t, 1, 2, ROCE_TR_RC | ROCE_OP_ACK, 0x30, 9, 0);
	for (i = 0; i < sent; i++)
		feed(&e, &t, 1, 2, ROCE_OPCODE_CNP, 0x30, 0, 0);
	for (i = 0; i < 5; i++)
		feed(&e, &t, 1, 2, ROCE_TR_RC | ROCE_OP_WRITE_ONLY, 0x40, 100 + i, 2);
	feed(&e, &t, 2, 1, ROCE_TR_RC | ROCE_OP_ACK, 0x50, 104, 0);
	for (i = 0; i < got; i++)
		feed(&e, &t, 2, 1, ROCE_OPCODE_CNP, 0x50, 0, 0);
	assert_int_equal(e.t.cnp, sent + got);
	assert_int_equal(e.t.roce_ce, marked);
	make_dev(&d, "10.99.0.1");
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		size_t n;

		d.driver = names[k][0];
		for (int j = 0; j < 3; j++) {
			snprintf(base[j].name, sizeof base[j].name, "%s", names[k][j + 1]);
			base[j].value = 1000 * (uint64_t)(j + 1);
			base[j].group = SYSFS_HW;
			now[j] = base[j];
		}
		now[0].value += sent, now[1].value += got, now[2].value += marked;
		d.ports[0].sysfs_ok = 1;
		d.ports[0].sp.ctr = now, d.ports[0].sp.nctr = 3;
		d.ports[0].base = base, d.ports[0].nbase = 3;
		n = qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP);
		assert_int_equal(n, 3);
		assert_string_equal(c[0].counter, names[k][1]);
		assert_string_equal(c[0].meaning_name, "cnp_sent");
		assert_int_equal(c[0].wire, sent);
		assert_string_equal(c[1].counter, names[k][2]);
		assert_int_equal(c[1].wire, got);
		assert_string_equal(c[2].counter, names[k][3]);
		assert_string_equal(c[2].meaning_name, "ecn_marked_received");
		assert_int_equal(c[2].wire, marked);
		for (size_t j = 0; j < n; j++)
			assert_int_equal(c[j].nic, c[j].wire);
	}
	/* seen from the other host (.2), the CNPs go the other way and no mark comes in */
	d.ports[0].sp.ctr = NULL, d.ports[0].base = NULL;
	free_dev(&d);
	make_dev(&d, "10.99.0.2");
	d.driver = "mlx5";
	d.ports[0].sysfs_ok = 1;
	d.ports[0].sp.ctr = now, d.ports[0].sp.nctr = 3;
	d.ports[0].base = base, d.ports[0].nbase = 3;
	snprintf(now[0].name, sizeof now[0].name, "np_cnp_sent");
	snprintf(base[0].name, sizeof base[0].name, "np_cnp_sent");
	snprintf(now[1].name, sizeof now[1].name, "rp_cnp_handled");
	snprintf(base[1].name, sizeof base[1].name, "rp_cnp_handled");
	snprintf(now[2].name, sizeof now[2].name, "np_ecn_marked_roce_packets");
	snprintf(base[2].name, sizeof base[2].name, "np_ecn_marked_roce_packets");
	assert_int_equal(qpjoin_compare(&e, &d, c, QPJOIN_MAX_CMP), 3);
	assert_int_equal(c[0].wire, got);
	assert_int_equal(c[1].wire, sent);
	assert_int_equal(c[2].wire, 0);
	d.ports[0].sp.ctr = NULL, d.ports[0].base = NULL;
	free_dev(&d);
	engine_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_by_qpn),
		cmocka_unit_test(test_join_cm_addresses),
		cmocka_unit_test(test_compare_netem),
		cmocka_unit_test(test_compare_cnp_ecn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
