/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctrtab_rdma.c — the RDMA counter table (ctrtab.h): one row per name a
 * driver registers.  Names from each driver's counter list in Linux
 * (drivers/infiniband/hw/{mlx5,mlx4,bnxt_re,irdma,efa,hfi1},
 * drivers/infiniband/sw/{rxe,siw}) and the PMA attributes of
 * drivers/infiniband/core/sysfs.c; the meanings are this project's words.
 *
 * Widths: mlx5's queue counters (QUERY_Q_COUNTER, big-endian 32-bit) wrap
 * at 2^32; its congestion and extended counters are 64-bit; PMA counters
 * (counters/) saturate; software drivers count in 64 bits.
 */
#include <string.h>
#include "ctrtab.h"

#define C(drv, n, w, s, m) { drv, n, CTR_COUNTER, w, s, m, 0, NULL }
#define G(drv, n, s, m)    { drv, n, CTR_GAUGE, CTR_W64, s, m, 0, NULL }
#define Q(n, s, m)   C("mlx5", n, CTR_W32_WRAP, s, m)   /* mlx5 queue counter */
#define X(n, s, m)   C("mlx5", n, CTR_W64, s, m)        /* mlx5 64-bit */
/* a queue counter and its vport_ twin (a switchdev representor port's) */
#define Q2(n, s, m)  Q(n, s, m), Q("vport_" n, s, m)
#define M4(n, s, m)  C("mlx4", n, CTR_W64, s, m)
#define B(n, s, m)   C("bnxt_re", n, CTR_W64, s, m)
#define BG(n, m)     G("bnxt_re", n, CTR_DEVICE, m)
#define I(n, s, m)   C("irdma", n, CTR_W64, s, m)
#define R(n, s, m)   C("rxe", n, CTR_W64, s, m)
#define E(n, s, m)   C("efa", n, CTR_W64, s, m)
#define P(n, m)      C("*", n, CTR_PMA_SAT, CTR_PORT, m)
/* the same events as (or a part of) counter `same` of the port: out of sums */
#define CS(drv, n, w, s, m, same) { drv, n, CTR_COUNTER, w, s, m, 0, same }
#define XS(n, s, m, same)  CS("mlx5", n, CTR_W64, s, m, same)
#define PS(n, m, same)     CS("*", n, CTR_PMA_SAT, CTR_PORT, m, same)
/* PMA port_xmit_data / port_rcv_data count 4-octet words */
#define PW(n, m)     { "*", n, CTR_COUNTER, CTR_PMA_SAT, CTR_PORT, m, 4, NULL }
/* counters_ext/ (kernels before 4.5): the 64-bit PMA counts, the same
 * events as the counters/ name beside them; data in 4-octet words (sc 4) */
#define PX(n, m, sc, same) { "*", n, CTR_COUNTER, CTR_W64, CTR_PORT, m, sc, same }

const struct ctr_entry ctr_table[] = {
	/* ---- mlx5 (mlx5_ib counters.c; the vport_ names on switchdev representor ports) ---- */
	Q2("rx_write_requests", CTR_RESP, M_RX_WRITE),
	Q2("rx_read_requests", CTR_RESP, M_RX_READ),
	Q2("rx_atomic_requests", CTR_RESP, M_RX_ATOMIC),
	Q2("rx_dct_connect", CTR_RESP, M_NONE),
	Q2("out_of_buffer", CTR_RESP, M_OUT_OF_BUFFER),
	Q2("out_of_sequence", CTR_RESP, M_OOS_RECV),
	Q2("duplicate_request", CTR_RESP, M_DUP_REQ),
	Q2("rnr_nak_retry_err", CTR_REQ, M_RNR_RETRY_EXCEEDED),
	Q2("packet_seq_err", CTR_REQ, M_SEQ_NAK_RECV),
	Q2("implied_nak_seq_err", CTR_REQ, M_IMPLIED_NAK),
	Q2("local_ack_timeout_err", CTR_REQ, M_LOCAL_ACK_TIMEOUT),
	Q2("resp_local_length_error", CTR_RESP, M_LOCAL_ERR),
	Q2("resp_cqe_error", CTR_RESP, M_CQE_ERR),
	Q2("req_cqe_error", CTR_REQ, M_CQE_ERR),
	Q2("req_remote_invalid_request", CTR_REQ, M_REMOTE_INVALID_REQ),
	Q2("req_remote_access_errors", CTR_REQ, M_REMOTE_ACCESS_ERR),
	Q2("resp_remote_access_errors", CTR_RESP, M_REMOTE_ACCESS_ERR),
	Q2("resp_cqe_flush_error", CTR_RESP, M_CQE_ERR),
	Q2("req_cqe_flush_error", CTR_REQ, M_CQE_ERR),
	Q2("req_transport_retries_exceeded", CTR_REQ, M_RETRY_EXCEEDED),
	Q2("req_rnr_retries_exceeded", CTR_REQ, M_RNR_RETRY_EXCEEDED),
	Q2("roce_adp_retrans", CTR_REQ, M_RETRANSMIT),
	Q2("roce_adp_retrans_to", CTR_REQ, M_RETRANSMIT),
	Q2("roce_slow_restart", CTR_REQ, M_RETRANSMIT),
	Q2("roce_slow_restart_cnps", CTR_REQ, M_CNP_RECV),
	Q2("roce_slow_restart_trans", CTR_REQ, M_RETRANSMIT),
	X("rp_cnp_ignored", CTR_REQ, M_CNP_IGNORED),
	X("rp_cnp_handled", CTR_REQ, M_CNP_HANDLED),
	X("np_ecn_marked_roce_packets", CTR_RESP, M_ECN_MARKED_RECV),
	X("np_cnp_sent", CTR_RESP, M_CNP_SENT),
	X("rx_icrc_encapsulated", CTR_PORT, M_ICRC_ERR),
	/* optional counters (RDMA netlink only) */
	XS("cc_rx_ce_pkts", CTR_RESP, M_ECN_MARKED_RECV, "np_ecn_marked_roce_packets"),
	X("cc_rx_cnp_pkts", CTR_REQ, M_CNP_RECV),
	XS("cc_tx_cnp_pkts", CTR_RESP, M_CNP_SENT, "np_cnp_sent"),
	XS("rdma_tx_packets", CTR_PORT, M_TX_PKTS, "port_xmit_packets"),
	XS("rdma_tx_bytes", CTR_PORT, M_TX_BYTES, "port_xmit_data"),
	XS("rdma_rx_packets", CTR_PORT, M_RX_PKTS, "port_rcv_packets"),
	XS("rdma_rx_bytes", CTR_PORT, M_RX_BYTES, "port_rcv_data"),

	/* ---- mlx4 (mlx4_ib main.c diag counters) ---- */
	M4("rq_num_lle", CTR_RESP, M_LOCAL_ERR),
	M4("sq_num_lle", CTR_REQ, M_LOCAL_ERR),
	M4("rq_num_lqpoe", CTR_RESP, M_LOCAL_ERR),
	M4("sq_num_lqpoe", CTR_REQ, M_LOCAL_ERR),
	M4("rq_num_leeoe", CTR_RESP, M_LOCAL_ERR),
	M4("sq_num_leeoe", CTR_REQ, M_LOCAL_ERR),
	M4("rq_num_lpe", CTR_RESP, M_LOCAL_ERR),
	M4("sq_num_lpe", CTR_REQ, M_LOCAL_ERR),
	M4("rq_num_wrfe", CTR_RESP, M_CQE_ERR),
	M4("sq_num_wrfe", CTR_REQ, M_CQE_ERR),
	M4("sq_num_mwbe", CTR_REQ, M_LOCAL_ERR),
	M4("sq_num_bre", CTR_REQ, M_REMOTE_INVALID_REQ),
	M4("rq_num_lae", CTR_RESP, M_LOCAL_ERR),
	M4("sq_num_rire", CTR_REQ, M_REMOTE_INVALID_REQ),
	M4("rq_num_rire", CTR_RESP, M_REMOTE_INVALID_REQ),
	M4("sq_num_rae", CTR_REQ, M_REMOTE_ACCESS_ERR),
	M4("rq_num_rae", CTR_RESP, M_REMOTE_ACCESS_ERR),
	M4("sq_num_roe", CTR_REQ, M_REMOTE_OP_ERR),
	M4("sq_num_tree", CTR_REQ, M_RETRY_EXCEEDED),
	M4("sq_num_rree", CTR_REQ, M_RNR_RETRY_EXCEEDED),
	M4("rq_num_rnr", CTR_RESP, M_RNR_NAK_SENT),
	M4("sq_num_rnr", CTR_REQ, M_RNR_NAK_RECV),
	M4("rq_num_oos", CTR_RESP, M_OOS_RECV),
	M4("sq_num_oos", CTR_REQ, M_SEQ_NAK_RECV),
	M4("rq_num_mce", CTR_RESP, M_DISCARD),
	M4("rq_num_udsdprd", CTR_DEVICE, M_DISCARD),
	M4("rq_num_ucsdprd", CTR_DEVICE, M_DISCARD),
	M4("num_cqovf", CTR_DEVICE, M_DISCARD),
	M4("num_eqovf", CTR_DEVICE, M_DISCARD),
	M4("num_baddb", CTR_DEVICE, M_LOCAL_ERR),
	M4("rq_num_dup", CTR_RESP, M_DUP_REQ),
	M4("sq_num_to", CTR_REQ, M_LOCAL_ACK_TIMEOUT),
	M4("iw_cc_delayed", CTR_REQ, M_NONE),

	/* ---- bnxt_re (hw_counters.c) ---- */
	BG("active_pds", M_RES_ACTIVE),
	BG("active_ahs", M_RES_ACTIVE),
	BG("active_qps", M_RES_ACTIVE),
	BG("active_rc_qps", M_RES_ACTIVE),
	BG("active_ud_qps", M_RES_ACTIVE),
	BG("active_srqs", M_RES_ACTIVE),
	BG("active_cqs", M_RES_ACTIVE),
	BG("active_mrs", M_RES_ACTIVE),
	BG("active_mws", M_RES_ACTIVE),
	BG("watermark_pds", M_RES_WATERMARK),
	BG("watermark_ahs", M_RES_WATERMARK),
	BG("watermark_qps", M_RES_WATERMARK),
	BG("watermark_rc_qps", M_RES_WATERMARK),
	BG("watermark_ud_qps", M_RES_WATERMARK),
	BG("watermark_srqs", M_RES_WATERMARK),
	BG("watermark_cqs", M_RES_WATERMARK),
	BG("watermark_mrs", M_RES_WATERMARK),
	BG("watermark_mws", M_RES_WATERMARK),
	B("resize_cq_cnt", CTR_DEVICE, M_NONE),
	B("rx_pkts", CTR_PORT, M_RX_PKTS),
	B("rx_bytes", CTR_PORT, M_RX_BYTES),
	B("tx_pkts", CTR_PORT, M_TX_PKTS),
	B("tx_bytes", CTR_PORT, M_TX_BYTES),
	B("recoverable_errors", CTR_PORT, M_NONE),
	B("tx_roce_errors", CTR_PORT, M_DISCARD),
	B("tx_roce_discards", CTR_PORT, M_DISCARD),
	B("rx_roce_errors", CTR_PORT, M_DISCARD),
	B("rx_roce_discards", CTR_PORT, M_DISCARD),
	B("to_retransmits", CTR_REQ, M_LOCAL_ACK_TIMEOUT),
	B("seq_err_naks_rcvd", CTR_REQ, M_SEQ_NAK_RECV),
	B("max_retry_exceeded", CTR_REQ, M_RETRY_EXCEEDED),
	B("rnr_naks_rcvd", CTR_REQ, M_RNR_NAK_RECV),
	B("missing_resp", CTR_REQ, M_IMPLIED_NAK),
	B("unrecoverable_err", CTR_PORT, M_NONE),
	B("bad_resp_err", CTR_REQ, M_CQE_ERR),
	B("local_qp_op_err", CTR_REQ, M_LOCAL_ERR),
	B("local_protection_err", CTR_REQ, M_LOCAL_ERR),
	B("mem_mgmt_op_err", CTR_REQ, M_LOCAL_ERR),
	B("remote_invalid_req_err", CTR_REQ, M_REMOTE_INVALID_REQ),
	B("remote_access_err", CTR_REQ, M_REMOTE_ACCESS_ERR),
	B("remote_op_err", CTR_REQ, M_REMOTE_OP_ERR),
	B("dup_req", CTR_RESP, M_DUP_REQ),
	B("res_exceed_max", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_length_mismatch", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_exceeds_wqe", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_opcode_err", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_rx_invalid_rkey", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_rx_domain_err", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_rx_no_perm", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_rx_range_err", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_tx_invalid_rkey", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_tx_domain_err", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_tx_no_perm", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_tx_range_err", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_irrq_oflow", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_unsup_opcode", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_unaligned_atomic", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_rem_inv_err", CTR_RESP, M_REMOTE_INVALID_REQ),
	B("res_mem_err", CTR_RESP, M_LOCAL_ERR),
	B("res_srq_err", CTR_RESP, M_LOCAL_ERR),
	B("res_cmp_err", CTR_RESP, M_CQE_ERR),
	B("res_invalid_dup_rkey", CTR_RESP, M_REMOTE_ACCESS_ERR),
	B("res_wqe_format_err", CTR_RESP, M_LOCAL_ERR),
	B("res_cq_load_err", CTR_RESP, M_LOCAL_ERR),
	B("res_srq_load_err", CTR_RESP, M_LOCAL_ERR),
	B("res_tx_pci_err", CTR_RESP, M_LOCAL_ERR),
	B("res_rx_pci_err", CTR_RESP, M_LOCAL_ERR),
	B("oos_drop_count", CTR_RESP, M_OOS_RECV),
	CS("bnxt_re", "rx_roce_good_pkts", CTR_W64, CTR_PORT, M_RX_PKTS, "rx_pkts"),
	CS("bnxt_re", "rx_roce_good_bytes", CTR_W64, CTR_PORT, M_RX_BYTES, "rx_bytes"),
	CS("bnxt_re", "rx_roce_only_pkts", CTR_W64, CTR_PORT, M_RX_PKTS, "rx_pkts"),
	CS("bnxt_re", "rx_roce_only_bytes", CTR_W64, CTR_PORT, M_RX_BYTES, "rx_bytes"),
	CS("bnxt_re", "tx_roce_only_pkts", CTR_W64, CTR_PORT, M_TX_PKTS, "tx_pkts"),
	CS("bnxt_re", "tx_roce_only_bytes", CTR_W64, CTR_PORT, M_TX_BYTES, "tx_bytes"),
	B("rx_out_of_buffer", CTR_RESP, M_OUT_OF_BUFFER),
	B("tx_cnp_pkts", CTR_RESP, M_CNP_SENT),
	B("rx_cnp_pkts", CTR_REQ, M_CNP_RECV),
	B("rx_ecn_marked_pkts", CTR_RESP, M_ECN_MARKED_RECV),
	B("rx_atomic_req", CTR_RESP, M_RX_ATOMIC),
	B("rx_read_req", CTR_RESP, M_RX_READ),
	B("rx_write_req", CTR_RESP, M_RX_WRITE),
	B("rx_send_req", CTR_RESP, M_RX_SEND),
	B("rx_read_resp", CTR_REQ, M_NONE),
	B("tx_atomic_req", CTR_REQ, M_NONE),
	B("tx_read_req", CTR_REQ, M_NONE),
	B("tx_read_resp", CTR_RESP, M_NONE),
	B("tx_write_req", CTR_REQ, M_NONE),
	B("tx_send_req", CTR_REQ, M_NONE),
	B("pacing_reschedule", CTR_DEVICE, M_NONE),   /* doorbell pacing */
	B("pacing_complete", CTR_DEVICE, M_NONE),
	B("pacing_alerts", CTR_DEVICE, M_NONE),
	G("bnxt_re", "db_fifo_register", CTR_DEVICE, M_NONE),   /* a register read: a level */

	/* ---- irdma (hw.c hw_stat_names) ---- */
	I("cnpHandled", CTR_REQ, M_CNP_HANDLED),
	I("cnpIgnored", CTR_REQ, M_CNP_IGNORED),
	I("cnpSent", CTR_RESP, M_CNP_SENT),
	I("RxECNMrkd", CTR_RESP, M_ECN_MARKED_RECV),
	CS("irdma", "RxUDP", CTR_W64, CTR_PORT, M_RX_PKTS, "ip4InPkts"),
	CS("irdma", "TxUDP", CTR_W64, CTR_PORT, M_TX_PKTS, "ip4OutPkts"),
	I("ip4InDiscards", CTR_PORT, M_DISCARD),
	I("ip6InDiscards", CTR_PORT, M_DISCARD),
	I("ip4InOctets", CTR_PORT, M_RX_BYTES),
	I("ip6InOctets", CTR_PORT, M_RX_BYTES),
	I("ip4OutOctets", CTR_PORT, M_TX_BYTES),
	I("ip6OutOctets", CTR_PORT, M_TX_BYTES),
	I("ip4InPkts", CTR_PORT, M_RX_PKTS),
	I("ip6InPkts", CTR_PORT, M_RX_PKTS),
	I("ip4OutPkts", CTR_PORT, M_TX_PKTS),
	I("ip6OutPkts", CTR_PORT, M_TX_PKTS),
	I("tcpRetransSegs", CTR_REQ, M_RETRANSMIT),
	I("rxVlanErrors", CTR_PORT, M_DISCARD),
	I("ip4InTruncatedPkts", CTR_PORT, M_DISCARD),
	I("ip6InTruncatedPkts", CTR_PORT, M_DISCARD),
	I("ip4OutNoRoutes", CTR_PORT, M_DISCARD),
	I("ip6OutNoRoutes", CTR_PORT, M_DISCARD),
	I("tcpInOptErrors", CTR_PORT, M_DISCARD),
	I("tcpInProtoErrors", CTR_PORT, M_DISCARD),
	I("ip4InReasmRqd", CTR_PORT, M_NONE),
	I("ip6InReasmRqd", CTR_PORT, M_NONE),
	I("ip4OutSegRqd", CTR_PORT, M_NONE),
	I("ip6OutSegRqd", CTR_PORT, M_NONE),
	/* multicast: a part of the InPkts/OutPkts (Octets) beside them */
	CS("irdma", "ip4InMcastPkts", CTR_W64, CTR_PORT, M_RX_PKTS, "ip4InPkts"),
	CS("irdma", "ip6InMcastPkts", CTR_W64, CTR_PORT, M_RX_PKTS, "ip6InPkts"),
	CS("irdma", "ip4OutMcastPkts", CTR_W64, CTR_PORT, M_TX_PKTS, "ip4OutPkts"),
	CS("irdma", "ip6OutMcastPkts", CTR_W64, CTR_PORT, M_TX_PKTS, "ip6OutPkts"),
	CS("irdma", "ip4InMcastOctets", CTR_W64, CTR_PORT, M_RX_BYTES, "ip4InOctets"),
	CS("irdma", "ip6InMcastOctets", CTR_W64, CTR_PORT, M_RX_BYTES, "ip6InOctets"),
	CS("irdma", "ip4OutMcastOctets", CTR_W64, CTR_PORT, M_TX_BYTES, "ip4OutOctets"),
	CS("irdma", "ip6OutMcastOctets", CTR_W64, CTR_PORT, M_TX_BYTES, "ip6OutOctets"),
	I("tcpInSegs", CTR_PORT, M_NONE),      /* iWARP: the TCP segments inside the IP packets */
	I("tcpOutSegs", CTR_PORT, M_NONE),
	I("iwInRdmaReads", CTR_RESP, M_RX_READ),
	I("iwInRdmaSends", CTR_RESP, M_RX_SEND),
	I("iwInRdmaWrites", CTR_RESP, M_RX_WRITE),
	I("iwOutRdmaReads", CTR_REQ, M_NONE),
	I("iwOutRdmaSends", CTR_REQ, M_NONE),
	I("iwOutRdmaWrites", CTR_REQ, M_NONE),
	I("iwRdmaBnd", CTR_REQ, M_NONE),
	I("iwRdmaInv", CTR_REQ, M_NONE),
	/* the same without "iw" (as later irdma versions and tools name them) */
	I("InRdmaReads", CTR_RESP, M_RX_READ),
	I("InRdmaSends", CTR_RESP, M_RX_SEND),
	I("InRdmaWrites", CTR_RESP, M_RX_WRITE),
	I("OutRdmaReads", CTR_REQ, M_NONE),
	I("OutRdmaSends", CTR_REQ, M_NONE),
	I("OutRdmaWrites", CTR_REQ, M_NONE),
	I("RdmaBnd", CTR_REQ, M_NONE),
	I("RdmaInv", CTR_REQ, M_NONE),

	/* ---- rxe (rxe_hw_counters.c) ---- */
	R("sent_pkts", CTR_PORT, M_TX_PKTS),
	R("rcvd_pkts", CTR_PORT, M_RX_PKTS),
	R("duplicate_request", CTR_RESP, M_DUP_REQ),
	R("out_of_seq_request", CTR_RESP, M_SEQ_NAK_SENT),
	R("rcvd_rnr_err", CTR_REQ, M_RNR_NAK_RECV),
	R("send_rnr_err", CTR_RESP, M_RNR_NAK_SENT),
	R("rcvd_seq_err", CTR_REQ, M_SEQ_NAK_RECV),
	R("ack_deferred", CTR_RESP, M_NONE),
	R("retry_exceeded_err", CTR_REQ, M_RETRY_EXCEEDED),
	R("retry_rnr_exceeded_err", CTR_REQ, M_RNR_RETRY_EXCEEDED),
	R("completer_retry_err", CTR_REQ, M_RETRANSMIT),
	R("send_err", CTR_REQ, M_DISCARD),
	R("link_downed", CTR_PORT, M_LINK_ERR),
	R("rdma_sends", CTR_REQ, M_NONE),
	R("rdma_recvs", CTR_RESP, M_RX_SEND),

	/* ---- efa (efa_verbs.c: EFA_DEFINE_PORT_STATS, EFA_DEFINE_DEVICE_STATS) ---- */
	E("tx_bytes", CTR_PORT, M_TX_BYTES),
	E("tx_pkts", CTR_PORT, M_TX_PKTS),
	E("rx_bytes", CTR_PORT, M_RX_BYTES),
	E("rx_pkts", CTR_PORT, M_RX_PKTS),
	E("rx_drops", CTR_PORT, M_DISCARD),
	E("send_bytes", CTR_REQ, M_NONE),
	E("send_wrs", CTR_REQ, M_NONE),
	E("recv_bytes", CTR_RESP, M_NONE),
	E("recv_wrs", CTR_RESP, M_NONE),
	E("rdma_read_wrs", CTR_REQ, M_NONE),
	E("rdma_read_bytes", CTR_REQ, M_NONE),
	E("rdma_read_wr_err", CTR_REQ, M_CQE_ERR),
	E("rdma_read_resp_bytes", CTR_RESP, M_NONE),
	E("rdma_write_wrs", CTR_REQ, M_NONE),
	E("rdma_write_bytes", CTR_REQ, M_NONE),
	E("rdma_write_wr_err", CTR_REQ, M_CQE_ERR),
	E("rdma_write_recv_bytes", CTR_RESP, M_NONE),
	E("retrans_bytes", CTR_REQ, M_NONE),
	E("retrans_pkts", CTR_REQ, M_RETRANSMIT),
	E("retrans_timeout_events", CTR_REQ, M_LOCAL_ACK_TIMEOUT),
	E("unresponsive_remote_events", CTR_REQ, M_NONE),
	E("impaired_remote_conn_events", CTR_REQ, M_NONE),
	E("submitted_cmds", CTR_DEVICE, M_NONE),      /* admin queue commands */
	E("completed_cmds", CTR_DEVICE, M_NONE),
	E("cmds_err", CTR_DEVICE, M_NONE),
	E("no_completion_cmds", CTR_DEVICE, M_NONE),
	E("keep_alive_rcvd", CTR_DEVICE, M_NONE),
	E("alloc_pd_err", CTR_DEVICE, M_NONE),
	E("create_qp_err", CTR_DEVICE, M_NONE),
	E("create_cq_err", CTR_DEVICE, M_NONE),
	E("reg_mr_err", CTR_DEVICE, M_NONE),
	E("alloc_ucontext_err", CTR_DEVICE, M_NONE),
	E("create_ah_err", CTR_DEVICE, M_NONE),
	E("mmap_err", CTR_DEVICE, M_NONE),

	/* ---- hfi1 (chip.c port_cntrs: port hw_counters; verbs.c driver_cntr_names,
	 * with chip.c's dev_cntrs, the device-level hw_counters).  The RC counters
	 * are rdmavt's software counts; the per-VL transmit counters (TxFlitVL0,
	 * …) by their stem; the hundreds of chip error-status counters are left
	 * raw. ---- */
	C("hfi1", "TxUnVLErr", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "TxInvalLen", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "TxMMLenErr", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "TxUnderrun", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "TxFlowStall", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "TxDropped", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "TxHdrErr", CTR_W64, CTR_PORT, M_DISCARD),
	CS("hfi1", "TxPkt", CTR_W64, CTR_PORT, M_TX_PKTS, "port_xmit_packets"),
	C("hfi1", "TxWords", CTR_W64, CTR_PORT, M_NONE),        /* 4-byte words */
	C("hfi1", "TxWait", CTR_W64, CTR_PORT, M_XMIT_WAIT),
	/* per-VL port counters: the entry's name is the stem, the kernel adds
	 * the VL number (TxPktVL0 … TxPktVL7, TxPktVL15; ctr_lookup) */
	C("hfi1", "TxFlitVL", CTR_W64, CTR_PORT, M_NONE),
	CS("hfi1", "TxPktVL", CTR_W64, CTR_PORT, M_TX_PKTS, "port_xmit_packets"),
	CS("hfi1", "TxWaitVL", CTR_W64, CTR_PORT, M_XMIT_WAIT, "TxWait"),
	CS("hfi1", "RxPkt", CTR_W64, CTR_PORT, M_RX_PKTS, "port_rcv_packets"),
	C("hfi1", "RxWords", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "SwLinkDown", CTR_W64, CTR_PORT, M_LINK_ERR),
	C("hfi1", "SwLinkUp", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "UnknownFrame", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "XmitDscd", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "XmitCstrErr", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "RcvCstrErr", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "LoopPkts", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "RcResend", CTR_W64, CTR_REQ, M_RETRANSMIT),
	C("hfi1", "RnrNak", CTR_W64, CTR_REQ, M_RNR_NAK_RECV),
	C("hfi1", "OtherNak", CTR_W64, CTR_REQ, M_NONE),
	C("hfi1", "RcTimeOut", CTR_W64, CTR_REQ, M_LOCAL_ACK_TIMEOUT),
	C("hfi1", "PktDrop", CTR_W64, CTR_PORT, M_DISCARD),
	C("hfi1", "DmaWait", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "RcSeqNak", CTR_W64, CTR_RESP, M_SEQ_NAK_SENT),
	C("hfi1", "RcDupRew", CTR_W64, CTR_RESP, M_DUP_REQ),
	C("hfi1", "RdmaSeq", CTR_W64, CTR_REQ, M_OOS_RECV),     /* READ responses out of sequence */
	C("hfi1", "Unaligned", CTR_W64, CTR_PORT, M_NONE),
	C("hfi1", "SeqNak", CTR_W64, CTR_REQ, M_SEQ_NAK_RECV),
	C("hfi1", "RcAcks", CTR_W64, CTR_RESP, M_NONE),
	C("hfi1", "RcQacks", CTR_W64, CTR_RESP, M_NONE),
	C("hfi1", "RcDelayComp", CTR_W64, CTR_RESP, M_NONE),
	C("hfi1", "DRIVER_KernIntr", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_ErrorIntr", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_Tx_Errs", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_Rcv_Errs", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_HW_Errs", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_NoPIOBufs", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_CtxtsOpen", CTR_W64, CTR_DEVICE, M_NONE),
	C("hfi1", "DRIVER_RcvLen_Errs", CTR_W64, CTR_DEVICE, M_DISCARD),
	C("hfi1", "DRIVER_EgrBufFull", CTR_W64, CTR_DEVICE, M_OUT_OF_BUFFER),   /* eager receive buffers */
	C("hfi1", "DRIVER_EgrHdrFull", CTR_W64, CTR_DEVICE, M_OUT_OF_BUFFER),   /* receive header queue */

	/* ---- siw registers no hw_counters at all (no alloc_hw_*_stats): its
	 * ports have only the PMA counters/ of the core, if any ---- */

	/* ---- PMA attributes (counters/), every driver ---- */
	P("symbol_error", M_LINK_ERR),
	P("link_error_recovery", M_LINK_ERR),
	P("link_downed", M_LINK_ERR),
	P("port_rcv_errors", M_DISCARD),
	P("port_rcv_remote_physical_errors", M_DISCARD),
	P("port_rcv_switch_relay_errors", M_DISCARD),
	P("port_xmit_discards", M_DISCARD),
	P("port_xmit_constraint_errors", M_DISCARD),
	P("port_rcv_constraint_errors", M_DISCARD),
	P("local_link_integrity_errors", M_LINK_ERR),
	P("excessive_buffer_overrun_errors", M_OUT_OF_BUFFER),
	P("VL15_dropped", M_DISCARD),
	P("port_xmit_wait", M_XMIT_WAIT),
	PW("port_xmit_data", M_TX_BYTES),
	PW("port_rcv_data", M_RX_BYTES),
	P("port_xmit_packets", M_TX_PKTS),
	P("port_rcv_packets", M_RX_PKTS),
	/* not in the core's list: older kernels' mlx4 (node_exporter's mlx4_0 fixture) */
	P("port_rcv_discards", M_DISCARD),
	PS("unicast_xmit_packets", M_TX_PKTS, "port_xmit_packets"),
	PS("unicast_rcv_packets", M_RX_PKTS, "port_rcv_packets"),
	PS("multicast_xmit_packets", M_TX_PKTS, "port_xmit_packets"),
	PS("multicast_rcv_packets", M_RX_PKTS, "port_rcv_packets"),

	/* ---- PMA extended counters in counters_ext/ (mlx4 on kernels before 4.5) ---- */
	PX("port_xmit_data_64", M_TX_BYTES, 4, "port_xmit_data"),
	PX("port_rcv_data_64", M_RX_BYTES, 4, "port_rcv_data"),
	PX("port_xmit_packets_64", M_TX_PKTS, 0, "port_xmit_packets"),
	PX("port_rcv_packets_64", M_RX_PKTS, 0, "port_rcv_packets"),
	PX("port_unicast_xmit_packets", M_TX_PKTS, 0, "port_xmit_packets"),
	PX("port_unicast_rcv_packets", M_RX_PKTS, 0, "port_rcv_packets"),
	PX("port_multicast_xmit_packets", M_TX_PKTS, 0, "port_xmit_packets"),
	PX("port_multicast_rcv_packets", M_RX_PKTS, 0, "port_rcv_packets"),
};

const size_t ctr_table_n = sizeof ctr_table / sizeof ctr_table[0];

static const char *const meaning_names[M_NMEANINGS] = {
	[M_NONE] = "",
	[M_DUP_REQ] = "duplicate_request",
	[M_OOS_RECV] = "out_of_sequence_received",
	[M_SEQ_NAK_SENT] = "seq_err_nak_sent",
	[M_SEQ_NAK_RECV] = "seq_err_nak_received",
	[M_RNR_NAK_SENT] = "rnr_nak_sent",
	[M_RNR_NAK_RECV] = "rnr_nak_received",
	[M_LOCAL_ACK_TIMEOUT] = "local_ack_timeout",
	[M_RETRY_EXCEEDED] = "retry_exceeded",
	[M_RNR_RETRY_EXCEEDED] = "rnr_retry_exceeded",
	[M_IMPLIED_NAK] = "implied_nak",
	[M_CNP_SENT] = "cnp_sent",
	[M_CNP_HANDLED] = "cnp_handled",
	[M_CNP_IGNORED] = "cnp_ignored",
	[M_CNP_RECV] = "cnp_received",
	[M_ECN_MARKED_RECV] = "ecn_marked_received",
	[M_ICRC_ERR] = "icrc_error",
	[M_DISCARD] = "discard",
	[M_OUT_OF_BUFFER] = "out_of_buffer",
	[M_RX_PKTS] = "rx_packets",
	[M_TX_PKTS] = "tx_packets",
	[M_RX_BYTES] = "rx_bytes",
	[M_TX_BYTES] = "tx_bytes",
	[M_CQE_ERR] = "cqe_error",
	[M_REMOTE_ACCESS_ERR] = "remote_access_error",
	[M_REMOTE_INVALID_REQ] = "remote_invalid_request",
	[M_REMOTE_OP_ERR] = "remote_operation_error",
	[M_LOCAL_ERR] = "local_error",
	[M_RETRANSMIT] = "retransmit",
	[M_LINK_ERR] = "link_error",
	[M_RX_READ] = "rx_read_request",
	[M_RX_WRITE] = "rx_write_request",
	[M_RX_ATOMIC] = "rx_atomic_request",
	[M_RX_SEND] = "rx_send",
	[M_RES_ACTIVE] = "resources_active",
	[M_RES_WATERMARK] = "resources_watermark",
	[M_XMIT_WAIT] = "xmit_wait",
};

const char *ctr_meaning_name(unsigned meaning)
{
	return meaning < M_NMEANINGS && meaning_names[meaning] ? meaning_names[meaning] : "";
}

/* Device-name prefixes the kernel drivers use. */
static const struct {
	const char *prefix, *driver;
} prefixes[] = {
	{ "mlx5_", "mlx5" }, { "mlx4_", "mlx4" }, { "bnxt_re", "bnxt_re" }, { "irdma", "irdma" },
	{ "i40iw", "irdma" }, { "rocep", "" }, { "efa_", "efa" }, { "hfi1_", "hfi1" },
	{ "rxe", "rxe" }, { "siw", "siw" }, { "rdmap", "efa" },
};

const char *ctr_driver_of(const char *dev)
{
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(dev, prefixes[i].prefix, strlen(prefixes[i].prefix)))
			return prefixes[i].driver;
	return "";
}

/* The entry of exactly that name: the driver's own first, then "*". */
static const struct ctr_entry *lookup_exact(const char *driver, const char *name)
{
	const struct ctr_entry *any = NULL;

	for (size_t i = 0; i < ctr_table_n; i++) {
		const struct ctr_entry *e = &ctr_table[i];

		if (strcmp(e->name, name))
			continue;
		if (driver && *driver && !strcmp(e->driver, driver))
			return e;
		if (!strcmp(e->driver, "*"))
			any = e;
	}
	return any;
}

const struct ctr_entry *ctr_lookup(const char *driver, const char *name)
{
	const struct ctr_entry *e = lookup_exact(driver, name);
	size_t n = strlen(name), k = n;
	char stem[64];

	if (e)
		return e;
	/* a per-VL counter: NAME "…VL<number>" by its stem "…VL" */
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == n || k < 3 || k >= sizeof stem || strncmp(name + k - 2, "VL", 2))
		return NULL;
	memcpy(stem, name, k);
	stem[k] = 0;
	return lookup_exact(driver, stem);
}

int ctr_delta(const struct ctr_entry *e, uint64_t prev, uint64_t cur, uint64_t *d)
{
	if (cur >= prev) {
		*d = cur - prev;
		return 0;
	}
	/* a 32-bit counter that went down from near the top wrapped, unless
	 * the step would be implausibly large (over half the range: a reset) */
	if (e && e->kind == CTR_COUNTER && e->width == CTR_W32_WRAP && prev <= UINT32_MAX &&
	    (uint64_t)UINT32_MAX + 1 - prev + cur < (uint64_t)1 << 31) {
		*d = (uint64_t)UINT32_MAX + 1 - prev + cur;
		return 0;
	}
	return -1;
}

uint64_t ctr_units(const struct ctr_entry *e, uint64_t raw)
{
	return e && e->scale > 1 ? raw * e->scale : raw;
}

int ctr_counts_in_sum(const struct ctr_entry *e, int (*has)(const char *name, const void *ctx), const void *ctx)
{
	if (!e || e->kind != CTR_COUNTER || !e->meaning)
		return 0;
	return !e->same_as || !has(e->same_as, ctx);
}
