// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ctrtab.c — the driver counter table (analyzer/device/ctrtab_rdma.c):
 * each driver's registered names (listed here from the Linux drivers'
 * counter arrays, independently of the table) have an entry; 32-bit wraps
 * give the right step and resets none; gauges are gauges; sysfs ports are
 * sorted before the cap and ports past 255 kept; devmon_meaning sums a
 * device's counters of one meaning across drivers' names.
 */
#include "testutil.h"
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../analyzer/device/ctrtab_rdma.c"
#include "../../analyzer/device/sysfs.c"
#include "../../analyzer/device/devmeaning.c"

static const char *const mlx5_names[] = {
	"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect", "out_of_buffer",
	"out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
	"local_ack_timeout_err", "resp_local_length_error", "resp_cqe_error", "req_cqe_error",
	"req_remote_invalid_request", "req_remote_access_errors", "resp_remote_access_errors",
	"resp_cqe_flush_error", "req_cqe_flush_error", "roce_adp_retrans", "roce_adp_retrans_to",
	"roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans", "rp_cnp_ignored",
	"rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent", "rx_icrc_encapsulated",
	"cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts", "rdma_tx_packets", "rdma_tx_bytes",
	"rdma_rx_packets", "rdma_rx_bytes", NULL
};
static const char *const mlx4_names[] = {
	"rq_num_lle", "sq_num_lle", "rq_num_lqpoe", "sq_num_lqpoe", "rq_num_leeoe", "sq_num_leeoe",
	"rq_num_lpe", "sq_num_lpe", "rq_num_wrfe", "sq_num_wrfe", "sq_num_mwbe", "sq_num_bre", "rq_num_lae",
	"sq_num_rire", "rq_num_rire", "sq_num_rae", "rq_num_rae", "sq_num_roe", "sq_num_tree", "sq_num_rree",
	"rq_num_rnr", "sq_num_rnr", "rq_num_oos", "sq_num_oos", "rq_num_mce", "rq_num_udsdprd",
	"rq_num_ucsdprd", "num_cqovf", "num_eqovf", "num_baddb", "rq_num_dup", "sq_num_to", NULL
};
static const char *const bnxt_names[] = {
	"active_pds", "active_ahs", "active_qps", "active_rc_qps", "active_ud_qps", "active_srqs",
	"active_cqs", "active_mrs", "active_mws", "watermark_pds", "watermark_qps", "watermark_mrs",
	"rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "recoverable_errors", "rx_roce_errors",
	"rx_roce_discards", "to_retransmits", "seq_err_naks_rcvd", "max_retry_exceeded", "rnr_naks_rcvd",
	"missing_resp", "unrecoverable_err", "bad_resp_err", "local_qp_op_err", "local_protection_err",
	"mem_mgmt_op_err", "remote_invalid_req_err", "remote_access_err", "remote_op_err", "dup_req",
	"res_exceed_max", "res_length_mismatch", "res_exceeds_wqe", "res_opcode_err", "res_rx_invalid_rkey",
	"res_rx_domain_err", "res_rx_no_perm", "res_rx_range_err", "res_tx_invalid_rkey",
	"res_tx_domain_err", "res_tx_no_perm", "res_tx_range_err", "res_irrq_oflow", "res_unsup_opcode",
	"res_unaligned_atomic", "res_rem_inv_err", "res_mem_error", "res_srq_err", "res_cmp_err",
	"res_invalid_dup_rkey", "res_wqe_format_err", "res_cq_load_err", "res_srq_load_err",
	"res_tx_pci_err", "res_rx_pci_err", "oos_drop_count", NULL
};
static const char *const rxe_names[] = {
	"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err",
	"rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
	"completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs", NULL
};
static const char *const irdma_names[] = {
	"cnpHandled", "cnpIgnored", "cnpSent", "RxECNMrkd", "RxUDP", "TxUDP", "ip4InDiscards",
	"tcpRetransSegs", NULL
};

/* hfi1's port_cntrs (chip.c, the names without a per-VL suffix) and
 * driver_cntr_names (verbs.c) */
static const char *const hfi1_names[] = {
	"TxUnVLErr", "TxInvalLen", "TxMMLenErr", "TxUnderrun", "TxFlowStall", "TxDropped", "TxHdrErr", "TxPkt",
	"TxWords", "TxWait", "RxPkt", "RxWords", "SwLinkDown", "SwLinkUp", "UnknownFrame", "XmitDscd",
	"XmitCstrErr", "RcvCstrErr", "LoopPkts", "RcResend", "RnrNak", "OtherNak", "RcTimeOut", "PktDrop",
	"DmaWait", "RcSeqNak", "RcDupRew", "RdmaSeq", "Unaligned", "SeqNak", "RcAcks", "RcQacks", "RcDelayComp",
	"DRIVER_KernIntr", "DRIVER_ErrorIntr", "DRIVER_Tx_Errs", "DRIVER_Rcv_Errs", "DRIVER_HW_Errs",
	"DRIVER_NoPIOBufs", "DRIVER_CtxtsOpen", "DRIVER_RcvLen_Errs", "DRIVER_EgrBufFull", "DRIVER_EgrHdrFull",
	NULL
};

static void every_name(const char *drv, const char *const *names, unsigned *with_meaning)
{
	*with_meaning = 0;
	for (; *names; names++) {
		const struct ctr_entry *e = ctr_lookup(drv, *names);

		if (!e || strcmp(e->driver, drv))
			fail_msg("%s: no table entry for %s", drv, *names);
		*with_meaning += e->meaning != M_NONE;
	}
}

static void test_every_registered_name(void **state)
{
	unsigned n;

	(void)state;
	every_name("mlx5", mlx5_names, &n);
	assert_int_equal(n, 35);           /* all but rx_dct_connect */
	every_name("mlx4", mlx4_names, &n);
	assert_int_equal(n, 32);
	every_name("bnxt_re", bnxt_names, &n);
	assert_int_equal(n, 57);           /* all but recoverable_errors, unrecoverable_err */
	every_name("rxe", rxe_names, &n);
	assert_int_equal(n, 13);           /* all but ack_deferred, rdma_sends */
	every_name("irdma", irdma_names, &n);
	assert_int_equal(n, 8);
	every_name("hfi1", hfi1_names, &n);
	assert_int_equal(n, 24);
	/* the RC software counters, by meaning */
	assert_int_equal(ctr_lookup("hfi1", "RcDupRew")->meaning, M_DUP_REQ);
	assert_int_equal(ctr_lookup("hfi1", "RcSeqNak")->meaning, M_SEQ_NAK_SENT);
	assert_int_equal(ctr_lookup("hfi1", "SeqNak")->meaning, M_SEQ_NAK_RECV);
	assert_int_equal(ctr_lookup("hfi1", "RcTimeOut")->meaning, M_LOCAL_ACK_TIMEOUT);
	/* siw registers none: no entry of its own, PMA names still known */
	for (size_t i = 0; i < ctr_table_n; i++)
		assert_string_not_equal(ctr_table[i].driver, "siw");
	assert_int_equal(ctr_lookup("siw", "port_rcv_packets")->meaning, M_RX_PKTS);
}

static void test_table_sound(void **state)
{
	(void)state;
	for (size_t i = 0; i < ctr_table_n; i++) {
		const struct ctr_entry *e = &ctr_table[i];

		assert_true(e->meaning < M_NMEANINGS);
		if (e->meaning)
			assert_true(ctr_meaning_name(e->meaning)[0] != 0);
		/* gauges never wrap; PMA counters are every driver's */
		if (e->kind == CTR_GAUGE)
			assert_int_equal(e->width, CTR_W64);
		for (size_t j = i + 1; j < ctr_table_n; j++)
			if (!strcmp(e->name, ctr_table[j].name) && !strcmp(e->driver, ctr_table[j].driver))
				fail_msg("%s/%s twice in the table", e->driver, e->name);
	}
	/* the same name, each driver's own meaning */
	assert_int_equal(ctr_lookup("rxe", "duplicate_request")->width, CTR_W64);
	assert_int_equal(ctr_lookup("mlx5", "duplicate_request")->width, CTR_W32_WRAP);
	assert_int_equal(ctr_lookup("rxe", "out_of_seq_request")->meaning, M_SEQ_NAK_SENT);
	assert_int_equal(ctr_lookup("mlx5", "out_of_sequence")->meaning, M_OOS_RECV);
	/* PMA names for any driver; unknown names none */
	assert_int_equal(ctr_lookup("mlx5", "port_xmit_data")->width, CTR_PMA_SAT);
	assert_int_equal(ctr_lookup("", "symbol_error")->meaning, M_LINK_ERR);
	assert_null(ctr_lookup("mlx5", "no_such_counter"));
	assert_null(ctr_lookup("mlx4", "rp_cnp_handled"));
	assert_string_equal(ctr_driver_of("mlx5_9"), "mlx5");
	assert_string_equal(ctr_driver_of("bnxt_re0"), "bnxt_re");
	assert_string_equal(ctr_driver_of("rxe_eth0"), "rxe");
	assert_string_equal(ctr_driver_of("foo0"), "");
	assert_int_equal(ctr_lookup("bnxt_re", "active_qps")->kind, CTR_GAUGE);
	/* a same_as names a counter the driver (or the PMA) has, of the same meaning */
	for (size_t i = 0; i < ctr_table_n; i++) {
		const struct ctr_entry *e = &ctr_table[i], *o;

		if (!e->same_as)
			continue;
		o = ctr_lookup(e->driver, e->same_as);
		if (!o || o->meaning != e->meaning || o->same_as)
			fail_msg("%s/%s: same_as %s is no counter of that meaning", e->driver, e->name, e->same_as);
	}
	/* PMA data counts 4-octet words; everything else counts in the meaning's units */
	assert_int_equal(ctr_units(ctr_lookup("mlx5", "port_xmit_data"), 10), 40);
	assert_int_equal(ctr_units(ctr_lookup("mlx5", "rdma_tx_bytes"), 10), 10);
}

static void test_wrap_and_reset(void **state)
{
	const struct ctr_entry *q = ctr_lookup("mlx5", "out_of_sequence");
	const struct ctr_entry *pma = ctr_lookup("mlx5", "port_rcv_packets");
	const struct ctr_entry *g = ctr_lookup("bnxt_re", "active_qps");
	uint64_t d = 0;

	(void)state;
	assert_int_equal(ctr_delta(q, 4294967290u, 10, &d), 0);
	assert_int_equal(d, 16);                           /* 6 to 2^32, 10 after */
	assert_int_equal(ctr_delta(q, 100, 200, &d), 0);
	assert_int_equal(d, 100);
	assert_int_equal(ctr_delta(q, 1000, 10, &d), -1);  /* far from the top: a reset */
	assert_int_equal(ctr_delta(pma, 4294967290u, 10, &d), -1);   /* PMA saturates */
	assert_int_equal(ctr_delta(NULL, 4294967290u, 10, &d), -1);  /* unknown: 64-bit */
	assert_int_equal(ctr_delta(g, 7, 3, &d), -1);      /* a gauge falling is no step */
}

/* A sysfs tree with 300 ports named in scrambled order. */
static char root[200];

static void mk(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	if (text) {
		assert_non_null(f = fopen(p, "w"));
		fputs(text, f);
		fclose(f);
	} else {
		mkdir(p, 0755);
	}
}

static void test_ports_sorted_then_capped(void **state)
{
	unsigned out[64];
	char rel[128];
	size_t n;
	struct sysfs_port sp;

	(void)state;
	snprintf(root, sizeof root, "/tmp/test_ctrtab.%d", (int)getpid());
	mkdir(root, 0755);
	for (unsigned i = 0; i < 300; i++) {
		snprintf(rel, sizeof rel, "class/infiniband/mlx5_9/ports/%u", (i * 7919u) % 300 + 1);
		mk(rel, NULL);
	}
	mk("class/infiniband/mlx5_9/ports/299/state", "4: ACTIVE\n");
	mk("class/infiniband/mlx5_9/ports/299/hw_counters/out_of_sequence", "010\n");
	setenv("ROCETOP_SYSFS_ROOT", root, 1);   /* (after the tree: mk made it) */
	n = sysfs_ports("mlx5_9", out, 64);
	assert_int_equal(n, 64);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(out[i], i + 1);            /* the lowest 64, in order */
	unsigned *all = malloc(400 * sizeof *all);
	assert_int_equal(sysfs_ports("mlx5_9", all, 400), 300);
	assert_int_equal(all[299], 300);               /* past 255 kept */
	free(all);
	assert_int_equal(sysfs_read_port("mlx5_9", 299, 0, &sp), 0);
	assert_int_equal(sp.nctr, 1);
	assert_int_equal(sp.ctr[0].value, 10);         /* base 10, not octal 8 */
	sysfs_port_free(&sp);
	{
		char cmd[300];

		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

/* devmon_meaning: one question, every driver's own names. */
static void test_meaning_sum(void **state)
{
	struct sysfs_counter now[] = {
		{ "duplicate_request", 50, SYSFS_HW }, { "out_of_sequence", 10, SYSFS_HW },
		{ "port_rcv_errors", 3, SYSFS_PMA },
	};
	struct sysfs_counter base[] = {
		{ "duplicate_request", 20, SYSFS_HW }, { "out_of_sequence", 4294967290u, SYSFS_HW },
	};
	struct dm_rate rate[] = { { 15, 1 }, { 8, 1 }, { 0, 0 } };
	struct dm_port p = { .port = 1 };
	struct dm_dev d = { .name = "mlx5_0", .driver = "mlx5", .ports = &p, .nports = 1 };
	struct dm_meaning_sum s;

	(void)state;
	p.sp.ctr = now, p.sp.nctr = 3, p.rate = rate, p.base = base, p.nbase = 2, p.sysfs_ok = 1;
	assert_int_equal(devmon_meaning(&d, M_DUP_REQ, &s), 1);
	assert_int_equal(s.total, 50);
	assert_int_equal(s.since_first, 30);
	assert_true(s.have_rate && s.rate == 15);
	assert_string_equal(s.names[0], "duplicate_request");
	assert_int_equal(devmon_meaning(&d, M_OOS_RECV, &s), 1);
	assert_int_equal(s.since_first, 16);           /* across the 32-bit wrap */
	assert_int_equal(devmon_meaning(&d, M_DISCARD, &s), 1);
	assert_int_equal(s.total, 3);
	assert_false(s.have_rate);
	assert_int_equal(devmon_meaning(&d, M_CNP_SENT, &s), 0);
	/* the same names on rxe: out_of_sequence is no rxe counter */
	d.driver = "rxe";
	assert_int_equal(devmon_meaning(&d, M_OOS_RECV, &s), 0);
	assert_int_equal(devmon_meaning(&d, M_DUP_REQ, &s), 1);
}

/* Two counters of the same events count once; PMA words count as bytes. */
static void test_meaning_sum_once(void **state)
{
	struct sysfs_counter now[] = {
		{ "np_cnp_sent", 55, SYSFS_HW }, { "cc_tx_cnp_pkts", 45, SYSFS_NL },
		{ "port_xmit_packets", 100, SYSFS_PMA }, { "unicast_xmit_packets", 90, SYSFS_PMA },
		{ "multicast_xmit_packets", 10, SYSFS_PMA }, { "port_xmit_data", 1000, SYSFS_PMA },
		{ "rdma_rx_bytes", 777, SYSFS_NL },
	};
	struct dm_port p = { .port = 1 };
	struct dm_dev d = { .name = "mlx5_2", .driver = "mlx5", .ports = &p, .nports = 1 };
	struct dm_meaning_sum s;

	(void)state;
	p.sp.ctr = now, p.sp.nctr = 7, p.sysfs_ok = 1;
	assert_int_equal(devmon_meaning(&d, M_CNP_SENT, &s), 1);
	assert_int_equal(s.total, 55);
	assert_int_equal(devmon_meaning(&d, M_TX_PKTS, &s), 1);
	assert_int_equal(s.total, 100);
	assert_int_equal(devmon_meaning(&d, M_TX_BYTES, &s), 1);
	assert_int_equal(s.total, 4000);
	/* without its PMA twin, rdma_rx_bytes is the port's only rx_bytes */
	assert_int_equal(devmon_meaning(&d, M_RX_BYTES, &s), 1);
	assert_int_equal(s.total, 777);
	/* without np_cnp_sent, cc_tx_cnp_pkts counts */
	p.sp.ctr = now + 1, p.sp.nctr = 6;
	assert_int_equal(devmon_meaning(&d, M_CNP_SENT, &s), 1);
	assert_int_equal(s.total, 45);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_registered_name),
		cmocka_unit_test(test_table_sound),
		cmocka_unit_test(test_wrap_and_reset),
		cmocka_unit_test(test_ports_sorted_then_capped),
		cmocka_unit_test(test_meaning_sum),
		cmocka_unit_test(test_meaning_sum_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
