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
#include "../../analyzer/flow.c"
#include "../../analyzer/iwstream.c"
#include "../../analyzer/ibident.c"
#include "../../analyzer/diag.c"
#include "../../analyzer/diag_rules.c"
#include "../../analyzer/diag_pacing.c"
#include "../../analyzer/device/nlparse.c"
#include "../../analyzer/qpjoin.c"

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
	d.ports[0].sp.ctr = NULL, d.ports[0].base = NULL;
	free_dev(&d);
	/* the requester (vmb): its requests go out, retransmitted, NAKed */
	make_dev(&d, "10.99.0.2");
	qpjoin_qp(&e, &d, &q, &w);
	assert_int_equal(w.pkts_out, count_raw(cap, "10.99.0.2", 0x18, 1));
	assert_true(w.retrans > 0 && w.naks_got > 0);
	assert_int_equal(w.naks_got, lab_counter(cnt, "out_of_seq_request"));   /* one NAK per episode */
	assert_int_equal(w.dup + w.oosr, 0);
	free_dev(&d);
	engine_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_by_qpn),
		cmocka_unit_test(test_join_cm_addresses),
		cmocka_unit_test(test_compare_netem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
