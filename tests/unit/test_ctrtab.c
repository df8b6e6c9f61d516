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

/* Each driver's hw_counters names as the Linux drivers register them (read
 * from the kernel sources, independently of the table):
 *   mlx5_ib counters.c: the q counters (basic, out_of_seq, retrans,
 *     extended_err, roce_accl) with their vport_ twins, cong_cnts,
 *     ext_ppcnt_cnts and the optional op counters;
 *   mlx4_ib main.c: diag_basic, diag_ext, diag_device_only;
 *   bnxt_re hw_counters.c bnxt_re_stat_descs (the extended set of gen P5+);
 *   irdma verbs.c irdma_hw_stat_names (gen1 and gen2);
 *   efa efa_verbs.c EFA_DEFINE_PORT_STATS and EFA_DEFINE_DEVICE_STATS;
 *   rxe rxe_hw_counters.c; hfi1 chip.c port_cntrs (the per-VL transmit
 *   counters expanded to VLs 0-7 and 15) and verbs.c driver_cntr_names.
 *   siw registers none. */
#define MLX5_Q(p) p "rx_write_requests", p "rx_read_requests", p "rx_atomic_requests", p "rx_dct_connect", \
	p "out_of_buffer", p "out_of_sequence", p "duplicate_request", p "rnr_nak_retry_err", p "packet_seq_err", \
	p "implied_nak_seq_err", p "local_ack_timeout_err", p "resp_local_length_error", p "resp_cqe_error", \
	p "req_cqe_error", p "req_remote_invalid_request", p "req_remote_access_errors", \
	p "resp_remote_access_errors", p "resp_cqe_flush_error", p "req_cqe_flush_error", \
	p "req_transport_retries_exceeded", p "req_rnr_retries_exceeded", p "roce_adp_retrans", \
	p "roce_adp_retrans_to", p "roce_slow_restart", p "roce_slow_restart_cnps", p "roce_slow_restart_trans"
static const char *const mlx5_names[] = {
	MLX5_Q(""), MLX5_Q("vport_"),
	"rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent", "rx_icrc_encapsulated",
	"cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts", "rdma_tx_packets", "rdma_tx_bytes",
	"rdma_rx_packets", "rdma_rx_bytes", NULL
};
static const char *const mlx4_names[] = {
	"rq_num_lle", "sq_num_lle", "rq_num_lqpoe", "sq_num_lqpoe", "rq_num_lpe", "sq_num_lpe", "rq_num_wrfe",
	"sq_num_wrfe", "sq_num_mwbe", "sq_num_bre", "sq_num_rire", "rq_num_rire", "sq_num_rae", "rq_num_rae",
	"sq_num_roe", "sq_num_tree", "sq_num_rree", "rq_num_rnr", "sq_num_rnr", "rq_num_oos", "sq_num_oos",
	"rq_num_dup", "sq_num_to", "num_cqovf", "rq_num_udsdprd", NULL
};
static const char *const bnxt_names[] = {
	"active_pds", "active_ahs", "active_qps", "active_rc_qps", "active_ud_qps", "active_srqs",
	"active_cqs", "active_mrs", "active_mws", "watermark_pds", "watermark_ahs", "watermark_qps",
	"watermark_rc_qps", "watermark_ud_qps", "watermark_srqs", "watermark_cqs", "watermark_mrs",
	"watermark_mws", "resize_cq_cnt", "rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "recoverable_errors",
	"tx_roce_errors", "tx_roce_discards", "rx_roce_errors", "rx_roce_discards", "to_retransmits",
	"seq_err_naks_rcvd", "max_retry_exceeded", "rnr_naks_rcvd", "missing_resp", "unrecoverable_err",
	"bad_resp_err", "local_qp_op_err", "local_protection_err", "mem_mgmt_op_err", "remote_invalid_req_err",
	"remote_access_err", "remote_op_err", "dup_req", "res_exceed_max", "res_length_mismatch",
	"res_exceeds_wqe", "res_opcode_err", "res_rx_invalid_rkey", "res_rx_domain_err", "res_rx_no_perm",
	"res_rx_range_err", "res_tx_invalid_rkey", "res_tx_domain_err", "res_tx_no_perm", "res_tx_range_err",
	"res_irrq_oflow", "res_unsup_opcode", "res_unaligned_atomic", "res_rem_inv_err", "res_mem_err",
	"res_srq_err", "res_cmp_err", "res_invalid_dup_rkey", "res_wqe_format_err", "res_cq_load_err",
	"res_srq_load_err", "res_tx_pci_err", "res_rx_pci_err", "oos_drop_count", "tx_atomic_req",
	"tx_read_req", "tx_read_resp", "tx_write_req", "tx_send_req", "tx_roce_only_pkts",
	"tx_roce_only_bytes", "rx_atomic_req", "rx_read_req", "rx_read_resp", "rx_write_req", "rx_send_req",
	"rx_roce_only_pkts", "rx_roce_only_bytes", "rx_roce_good_pkts", "rx_roce_good_bytes",
	"rx_out_of_buffer", "tx_cnp_pkts", "rx_cnp_pkts", "rx_ecn_marked_pkts", "pacing_reschedule",
	"pacing_complete", "pacing_alerts", "db_fifo_register", NULL
};
static const char *const rxe_names[] = {
	"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err",
	"rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
	"completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs", NULL
};
static const char *const irdma_names[] = {
	"ip4InDiscards", "ip4InTruncatedPkts", "ip4OutNoRoutes", "ip6InDiscards", "ip6InTruncatedPkts",
	"ip6OutNoRoutes", "tcpRetransSegs", "tcpInOptErrors", "tcpInProtoErrors", "rxVlanErrors",
	"ip4InOctets", "ip4InPkts", "ip4InReasmRqd", "ip4InMcastPkts", "ip4OutOctets", "ip4OutPkts",
	"ip4OutSegRqd", "ip4OutMcastPkts", "ip6InOctets", "ip6InPkts", "ip6InReasmRqd", "ip6InMcastPkts",
	"ip6OutOctets", "ip6OutPkts", "ip6OutSegRqd", "ip6OutMcastPkts", "tcpInSegs", "tcpOutSegs",
	"iwInRdmaReads", "iwInRdmaSends", "iwInRdmaWrites", "iwOutRdmaReads", "iwOutRdmaSends",
	"iwOutRdmaWrites", "iwRdmaBnd", "iwRdmaInv", "cnpHandled", "cnpIgnored", "cnpSent",
	"ip4InMcastOctets", "ip4OutMcastOctets", "ip6InMcastOctets", "ip6OutMcastOctets", "RxUDP", "TxUDP",
	"RxECNMrkd", NULL
};
static const char *const efa_names[] = {
	"tx_bytes", "tx_pkts", "rx_bytes", "rx_pkts", "rx_drops", "send_bytes", "send_wrs", "recv_bytes",
	"recv_wrs", "rdma_read_wrs", "rdma_read_bytes", "rdma_read_wr_err", "rdma_read_resp_bytes",
	"rdma_write_wrs", "rdma_write_bytes", "rdma_write_wr_err", "rdma_write_recv_bytes", "retrans_bytes",
	"retrans_pkts", "retrans_timeout_events", "unresponsive_remote_events", "impaired_remote_conn_events",
	"submitted_cmds", "completed_cmds", "cmds_err", "no_completion_cmds", "keep_alive_rcvd",
	"alloc_pd_err", "create_qp_err", "create_cq_err", "reg_mr_err", "alloc_ucontext_err", "create_ah_err",
	"mmap_err", NULL
};

/* hfi1's port_cntrs (chip.c; the per-VL transmit counters for VLs 0-7
 * and 15) and driver_cntr_names (verbs.c) */
#define HFI1_VL(n) n "0", n "1", n "2", n "3", n "4", n "5", n "6", n "7", n "15"
static const char *const hfi1_names[] = {
	HFI1_VL("TxFlitVL"), HFI1_VL("TxPktVL"), HFI1_VL("TxWaitVL"),
	"TxUnVLErr", "TxInvalLen", "TxMMLenErr", "TxUnderrun", "TxFlowStall", "TxDropped", "TxHdrErr", "TxPkt",
	"TxWords", "TxWait", "RxPkt", "RxWords", "SwLinkDown", "SwLinkUp", "UnknownFrame", "XmitDscd",
	"XmitCstrErr", "RcvCstrErr", "LoopPkts", "RcResend", "RnrNak", "OtherNak", "RcTimeOut", "PktDrop",
	"DmaWait", "RcSeqNak", "RcDupRew", "RdmaSeq", "Unaligned", "SeqNak", "RcAcks", "RcQacks", "RcDelayComp",
	"DRIVER_KernIntr", "DRIVER_ErrorIntr", "DRIVER_Tx_Errs", "DRIVER_Rcv_Errs", "DRIVER_HW_Errs",
	"DRIVER_NoPIOBufs", "DRIVER_CtxtsOpen", "DRIVER_RcvLen_Errs", "DRIVER_EgrBufFull", "DRIVER_EgrHdrFull",
	NULL
};

/* Every name has an entry of drv's own; *n names, *with_meaning of them
 * with a meaning; one line per driver on stdout (the table's coverage). */
static void every_name(const char *drv, const char *const *names, unsigned *n, unsigned *with_meaning)
{
	*n = *with_meaning = 0;
	for (; *names; names++) {
		const struct ctr_entry *e = ctr_lookup(drv, *names);

		if (!e || strcmp(e->driver, drv))
			fail_msg("%s: no table entry for %s", drv, *names);
		(*n)++;
		*with_meaning += e->meaning != M_NONE;
	}
	printf("coverage %-8s %3u registered names, every one in the table, %3u with a meaning\n", drv, *n,
	       *with_meaning);
}

static void test_every_registered_name(void **state)
{
	static const struct {
		const char *drv;
		const char *const *names;
		unsigned n, meaning;
	} drivers[] = {
		{ "mlx5", mlx5_names, 64, 62 },      /* all but rx_dct_connect, vport_rx_dct_connect */
		{ "mlx4", mlx4_names, 25, 25 },
		{ "bnxt_re", bnxt_names, 92, 79 },   /* not: tx_*_req, read responses, pacing, db_fifo, resize_cq_cnt, (un)recoverable */
		{ "irdma", irdma_names, 46, 35 },    /* not: reassembly/segmentation, TCP segments, iwOut*, bind/inv */
		{ "efa", efa_names, 34, 9 },         /* not: work-request counts and bytes, admin commands */
		{ "rxe", rxe_names, 15, 13 },        /* all but ack_deferred, rdma_sends */
		{ "hfi1", hfi1_names, 70, 42 },      /* not: flits, words, software link/ACK counts, interrupts, … */
	};
	unsigned n, m;

	(void)state;
	for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
		every_name(drivers[i].drv, drivers[i].names, &n, &m);
		assert_int_equal(n, drivers[i].n);
		assert_int_equal(m, drivers[i].meaning);
	}
	printf("coverage %-8s %3u registered names (no hw_counters), PMA counters/ names only\n", "siw", 0u);
	/* the RC software counters, by meaning */
	assert_int_equal(ctr_lookup("hfi1", "RcDupRew")->meaning, M_DUP_REQ);
	assert_int_equal(ctr_lookup("hfi1", "RcSeqNak")->meaning, M_SEQ_NAK_SENT);
	assert_int_equal(ctr_lookup("hfi1", "SeqNak")->meaning, M_SEQ_NAK_RECV);
	assert_int_equal(ctr_lookup("hfi1", "RcTimeOut")->meaning, M_LOCAL_ACK_TIMEOUT);
	/* a switchdev representor's vport_ twin means what its uplink name means */
	assert_int_equal(ctr_lookup("mlx5", "vport_out_of_sequence")->meaning, M_OOS_RECV);
	assert_int_equal(ctr_lookup("mlx5", "vport_out_of_sequence")->width, CTR_W32_WRAP);
	/* bnxt_re's CNP and ECN names; the register read is a level */
	assert_int_equal(ctr_lookup("bnxt_re", "tx_cnp_pkts")->meaning, M_CNP_SENT);
	assert_int_equal(ctr_lookup("bnxt_re", "rx_ecn_marked_pkts")->meaning, M_ECN_MARKED_RECV);
	assert_int_equal(ctr_lookup("bnxt_re", "db_fifo_register")->kind, CTR_GAUGE);
	assert_string_equal(ctr_driver_of("rdmap0s31"), "efa");
	/* hfi1's per-VL transmit counters, by their stem, VLs 0-7 and 15 */
	for (unsigned vl = 0; vl < 16; vl++) {
		char nm[32];

		if (vl > 7 && vl != 15)
			continue;
		snprintf(nm, sizeof nm, "TxPktVL%u", vl);
		assert_int_equal(ctr_lookup("hfi1", nm)->meaning, M_TX_PKTS);
		snprintf(nm, sizeof nm, "TxWaitVL%u", vl);
		assert_int_equal(ctr_lookup("hfi1", nm)->meaning, M_XMIT_WAIT);
		snprintf(nm, sizeof nm, "TxFlitVL%u", vl);
		assert_non_null(ctr_lookup("hfi1", nm));
	}
	assert_null(ctr_lookup("hfi1", "TxPkt3"));            /* only a VL number */
	assert_null(ctr_lookup("mlx5", "TxPktVL3"));          /* only the driver's own */
	{   /* a per-VL wait is part of TxWait: summed once */
		struct sysfs_counter now[] = { { "TxWait", 70, SYSFS_HW }, { "TxWaitVL0", 50, SYSFS_HW },
					       { "TxWaitVL1", 20, SYSFS_HW } };
		struct dm_port p = { .port = 1 };
		struct dm_dev d = { .name = "hfi1_0", .driver = "hfi1", .ports = &p, .nports = 1 };
		struct dm_meaning_sum sum;

		p.sp.ctr = now, p.sp.nctr = 3, p.sysfs_ok = 1;
		assert_int_equal(devmon_meaning(&d, M_XMIT_WAIT, &sum), 1);
		assert_int_equal(sum.total, 70);
	}
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
