/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rocetarget — the adapter-side agent of `rocegen conform`.
 *
 * Runs on the host of the adapter under test and owns its queue pairs: RC
 * QPs with explicit attributes (PSN, MTU, timeout, retry counts, RNR timer,
 * read/atomic depths) moved to INIT, RTR and RTS by hand, memory regions,
 * receives, requests, completions, QP state and the port's hw_counters —
 * each on a line of the control protocol in ctl.h, from one rocegen at a
 * time over TCP.  libibverbs only; no rdma_cm (the connection is set up by
 * hand, so every attribute is the one asked for).
 *
 * `load` hands a QP to the workload loop of tload.c (the adapter as
 * requester of `rocegen stress --role requester`), which runs between
 * control lines; so does `recv … sink=1` (sink_run: a QP's receives posted
 * again as they complete, for `rocegen isolation`'s rnr case).
 *
 *   rocetarget --listen ADDR:PORT --key FILE [--once] [-v]
 *
 * Listens on the address given only: there is no default.  Every controller
 * first answers a challenge with the shared key of FILE (ctlauth.h); one that
 * cannot gets one line and a closed connection, before any command.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "ctl.h"
#include "ctlauth.h"
#include "tload.h"

#define ROCETARGET_VERSION "0.1.0"

#define MAX_OBJ TLOAD_MAX   /* MRs and QPs, each (rocegen stress: one of each per QP); ids 1..16384 */

struct tmr {
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

struct tqp {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	/* `recv … sink=1`: rocetarget takes the QP's receive completions itself
	 * between control lines and posts each receive again, so the QP never holds
	 * more than the n receives asked for (a receiver that posts too few) */
	int sink;
	unsigned sink_mr;
	uint64_t sink_off, sink_len, sink_wr0, sink_n;
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char dev[64];
	int gid_index;
	int active_mtu;
	struct tmr mr[MAX_OBJ];
	struct tqp qp[MAX_OBJ];
	int mr_free, qp_free;      /* no free slot below these (the search for one starts there) */
	unsigned sinks[MAX_OBJ];   /* the QP ids with a receive sink, nsinks of them */
	unsigned nsinks;
	int verbose;
	struct ctl_key key;
} T;

static char reply[CTL_LINE_MAX];

static void rep(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rep(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reply, sizeof(reply), fmt, ap);
	va_end(ap);
}

const char *rt_status_name(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_LOC_LEN_ERR: return "local-length-error";
	case IBV_WC_LOC_QP_OP_ERR: return "local-qp-op-error";
	case IBV_WC_BAD_RESP_ERR: return "bad-response";
	case IBV_WC_REM_INV_REQ_ERR: return "remote-invalid-request";
	case IBV_WC_REM_ACCESS_ERR: return "remote-access-error";
	case IBV_WC_REM_OP_ERR: return "remote-op-error";
	case IBV_WC_RETRY_EXC_ERR: return "retry-exceeded";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "rnr-retry-exceeded";
	case IBV_WC_WR_FLUSH_ERR: return "flushed";
	case IBV_WC_LOC_PROT_ERR: return "local-protection-error";
	case IBV_WC_GENERAL_ERR: return "general-error";
	default: return "other-error";
	}
}

/* op names of roce_wr_op_name(); the op is kept in wr_id's top byte so that
 * error completions (whose opcode is undefined) still say what failed */
static const char *const op_names[] = { "send", "send_imm", "write", "write_imm", "read",
					 "cmp_swap", "fetch_add", "recv", "recv_rdma_imm" };
enum { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_CAS, OP_FADD, OP_RECV,
       OP_RECV_IMM, OP__N };

static int op_parse(const char *s)
{
	for (int i = 0; i < OP__N; i++)
		if (!strcmp(s, op_names[i]))
			return i;
	return -1;
}

static void destroy_all(void)
{
	tload_reset();
	for (int i = 0; i < MAX_OBJ; i++) {
		if (T.qp[i].qp)
			ibv_destroy_qp(T.qp[i].qp);
		if (T.qp[i].cq)
			ibv_destroy_cq(T.qp[i].cq);
		if (T.mr[i].mr)
			ibv_dereg_mr(T.mr[i].mr);
		free(T.mr[i].buf);
	}
	memset(T.qp, 0, sizeof(T.qp));
	memset(T.mr, 0, sizeof(T.mr));
	T.mr_free = T.qp_free = 1;
	T.nsinks = 0;
}

static int mtu_enum(int mtu)
{
	switch (mtu) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return -1;
	}
}

static int mtu_bytes(enum ibv_mtu m)
{
	return 128 << m;
}

static void cmd_open(const char *l)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	char want[64] = "", gs[INET6_ADDRSTRLEN];
	int n;

	if (T.ctx) {
		destroy_all();
		ibv_dealloc_pd(T.pd);
		ibv_close_device(T.ctx);
		T.ctx = NULL;
	}
	ctl_get(l, "dev", want, sizeof(want));
	T.gid_index = (int)ctl_u64(l, "gid_index", 1);
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		rep("err no RDMA device");
		if (list)
			ibv_free_device_list(list);
		return;
	}
	for (int i = 0; i < n; i++)
		if (!want[0] || !strcmp(ibv_get_device_name(list[i]), want)) {
			T.ctx = ibv_open_device(list[i]);
			snprintf(T.dev, sizeof(T.dev), "%s", ibv_get_device_name(list[i]));
			break;
		}
	ibv_free_device_list(list);
	if (!T.ctx) {
		rep("err cannot open device %s", want[0] ? want : "(first)");
		return;
	}
	T.pd = ibv_alloc_pd(T.ctx);
	if (!T.pd || ibv_query_port(T.ctx, 1, &pa) || ibv_query_gid(T.ctx, 1, T.gid_index, &gid)) {
		rep("err pd/port/gid query failed: %s", strerror(errno));
		return;
	}
	T.active_mtu = mtu_bytes(pa.active_mtu);
	inet_ntop(AF_INET6, gid.raw, gs, sizeof(gs));
	rep("ok dev=%s gid=%s gid_index=%d active_mtu=%d state=%d", T.dev, gs, T.gid_index,
	    T.active_mtu, pa.state);
}

/* A free slot (lowest first) without scanning the taken ones each time: 16,384 QPs
 * set up one by one would otherwise cost 134 million looks. */
static int free_slot_mr(void)
{
	for (int i = T.mr_free > 1 ? T.mr_free : 1; i < MAX_OBJ; i++)
		if (!T.mr[i].mr)
			return T.mr_free = i;
	return -1;
}

static void cmd_mr(const char *l)
{
	size_t len = ctl_u64(l, "len", 4096);
	char acc[16] = "wra";
	int access = IBV_ACCESS_LOCAL_WRITE, id = free_slot_mr();
	void *buf;

	if (!T.pd) {
		rep("err open first");
		return;
	}
	if (id < 0 || !len || len > (64u << 20)) {
		rep("err no slot or bad len");
		return;
	}
	ctl_get(l, "access", acc, sizeof(acc));
	if (strchr(acc, 'w'))
		access |= IBV_ACCESS_REMOTE_WRITE;
	if (strchr(acc, 'r'))
		access |= IBV_ACCESS_REMOTE_READ;
	if (strchr(acc, 'a'))
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	if (posix_memalign(&buf, 4096, len)) {
		rep("err out of memory");
		return;
	}
	memset(buf, 0, len);
	T.mr[id].mr = ibv_reg_mr(T.pd, buf, len, access);
	if (!T.mr[id].mr) {
		free(buf);
		rep("err ibv_reg_mr: %s", strerror(errno));
		return;
	}
	T.mr[id].buf = buf;
	T.mr[id].len = len;
	rep("ok mr=%d rkey=0x%x lkey=0x%x va=0x%llx len=%zu", id, T.mr[id].mr->rkey,
	    T.mr[id].mr->lkey, (unsigned long long)(uintptr_t)buf, len);
}

static struct tqp *get_qp(const char *l)
{
	unsigned id = (unsigned)ctl_u64(l, "qp", 0);

	if (!id || id >= MAX_OBJ || !T.qp[id].qp) {
		rep("err no such qp");
		return NULL;
	}
	return &T.qp[id];
}

static struct tmr *get_mr(const char *l)
{
	unsigned id = (unsigned)ctl_u64(l, "mr", 0);

	if (!id || id >= MAX_OBJ || !T.mr[id].mr) {
		rep("err no such mr");
		return NULL;
	}
	return &T.mr[id];
}

static void cmd_qp(const char *l)
{
	struct ibv_qp_init_attr ia;
	int depth = (int)ctl_u64(l, "depth", 64), id = -1;

	if (!T.pd) {
		rep("err open first");
		return;
	}
	for (int i = T.qp_free > 1 ? T.qp_free : 1; i < MAX_OBJ; i++)
		if (!T.qp[i].qp) {
			id = T.qp_free = i;
			break;
		}
	if (id < 0) {
		rep("err no slot");
		return;
	}
	T.qp[id].cq = ibv_create_cq(T.ctx, depth * 2 + 1, NULL, NULL, 0);
	if (!T.qp[id].cq) {
		rep("err ibv_create_cq: %s", strerror(errno));
		return;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = T.qp[id].cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = (uint32_t)depth;
	ia.cap.max_recv_wr = (uint32_t)depth;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	T.qp[id].qp = ibv_create_qp(T.pd, &ia);
	if (!T.qp[id].qp) {
		ibv_destroy_cq(T.qp[id].cq);
		T.qp[id].cq = NULL;
		rep("err ibv_create_qp: %s", strerror(errno));
		return;
	}
	rep("ok qp=%d qpn=0x%x", id, T.qp[id].qp->qp_num);
}

static void cmd_connect(const char *l)
{
	struct tqp *q = get_qp(l);
	struct ibv_qp_attr a;
	char gs[64] = "";
	int mtu, e;

	if (!q)
		return;
	mtu = mtu_enum((int)ctl_u64(l, "mtu", (uint64_t)(T.active_mtu ? T.active_mtu : 1024)));
	if (mtu < 0 || !ctl_get(l, "rgid", gs, sizeof(gs))) {
		rep("err bad mtu or no rgid");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	e = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS);
	if (e) {
		rep("err INIT: %s", strerror(e));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)mtu;
	a.dest_qp_num = (uint32_t)ctl_u64(l, "rqpn", 0);
	a.rq_psn = (uint32_t)ctl_u64(l, "rpsn", 0);
	a.max_dest_rd_atomic = (uint8_t)ctl_u64(l, "max_dest_rd", 16);
	a.min_rnr_timer = (uint8_t)ctl_u64(l, "min_rnr", 12);
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = (uint8_t)ctl_u64(l, "hop", 64);
	a.ah_attr.grh.sgid_index = (uint8_t)ctl_u64(l, "gid_index", (uint64_t)T.gid_index);
	if (inet_pton(AF_INET6, gs, a.ah_attr.grh.dgid.raw) != 1) {
		struct in_addr v4;

		if (inet_pton(AF_INET, gs, &v4) != 1) {
			rep("err bad rgid %s", gs);
			return;
		}
		memset(a.ah_attr.grh.dgid.raw, 0, 16);
		a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
		memcpy(a.ah_attr.grh.dgid.raw + 12, &v4, 4);
	}
	e = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER);
	if (e) {
		rep("err RTR: %s", strerror(e));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = (uint8_t)ctl_u64(l, "timeout", 14);
	a.retry_cnt = (uint8_t)ctl_u64(l, "retry", 7);
	a.rnr_retry = (uint8_t)ctl_u64(l, "rnr_retry", 7);
	a.sq_psn = (uint32_t)ctl_u64(l, "psn", 0);
	a.max_rd_atomic = (uint8_t)ctl_u64(l, "max_rd", 16);
	e = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (e) {
		rep("err RTS: %s", strerror(e));
		return;
	}
	rep("ok state=rts");
}

/* One receive of len bytes at off of m, wr id wr; 0 or the errno of ibv_post_recv. */
static int post_recv(struct tqp *q, struct tmr *m, uint64_t off, uint64_t len, uint64_t wr)
{
	struct ibv_sge sg = { .addr = (uintptr_t)(m->buf + off), .length = (uint32_t)len, .lkey = m->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = ((uint64_t)OP_RECV << 56) | wr, .sg_list = &sg, .num_sge = 1 }, *bad;

	return ibv_post_recv(q->qp, &w, &bad);
}

static void cmd_recv(const char *l)
{
	struct tqp *q = get_qp(l);
	struct tmr *m = q ? get_mr(l) : NULL;
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);
	unsigned n = (unsigned)ctl_u64(l, "n", 1);
	uint64_t wr = ctl_u64(l, "wr", 0);
	int sink = ctl_u64(l, "sink", 0) != 0;

	if (!m)
		return;
	if (off + len * n > m->len) {
		rep("err beyond the mr");
		return;
	}
	if (sink && (q->sink || !n)) {
		rep("err sink: the qp has one already, or n=0");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		int e = post_recv(q, m, off + i * len, len, wr + i);

		if (e) {
			rep("err ibv_post_recv: %s", strerror(e));
			return;
		}
	}
	if (sink) {
		q->sink = 1;
		q->sink_mr = (unsigned)(m - T.mr);
		q->sink_off = off;
		q->sink_len = len;
		q->sink_wr0 = wr;
		q->sink_n = n;
		T.sinks[T.nsinks++] = (unsigned)(q - T.qp);
	}
	rep("ok");
}

/* One round over the receive sinks: every receive completion taken and its
 * receive posted again (a failed one is not: the QP is in error); the number
 * taken. */
static int sink_run(void)
{
	int busy = 0;

	for (unsigned k = 0; k < T.nsinks; k++) {
		struct tqp *q = &T.qp[T.sinks[k]];
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(q->cq, 16, wc);

		for (int i = 0; i < n; i++) {
			uint64_t wr = wc[i].wr_id & 0xffffffffffffffull;

			if ((wc[i].wr_id >> 56) != OP_RECV || wc[i].status != IBV_WC_SUCCESS ||
			    wr - q->sink_wr0 >= q->sink_n)
				continue;
			post_recv(q, &T.mr[q->sink_mr], q->sink_off + (wr - q->sink_wr0) * q->sink_len,
				  q->sink_len, wr);
			busy++;
		}
	}
	return busy;
}

static void cmd_post(const char *l)
{
	struct tqp *q = get_qp(l);
	struct tmr *m = q ? get_mr(l) : NULL;
	struct ibv_send_wr w, *bad;
	struct ibv_sge sg;
	char ops[32] = "";
	int op, e;
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);

	if (!m)
		return;
	ctl_get(l, "op", ops, sizeof(ops));
	op = op_parse(ops);
	if (op < 0 || op >= OP_RECV || off + len > m->len) {
		rep("err bad op or range");
		return;
	}
	memset(&w, 0, sizeof(w));
	sg.addr = (uintptr_t)(m->buf + off);
	sg.length = (uint32_t)len;
	sg.lkey = m->mr->lkey;
	w.wr_id = ((uint64_t)op << 56) | (ctl_u64(l, "wr", 0) & 0xffffffffffffffull >> 8);
	w.sg_list = &sg;
	w.num_sge = len ? 1 : 0;
	w.send_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case OP_SEND: w.opcode = IBV_WR_SEND; break;
	case OP_SEND_IMM: w.opcode = IBV_WR_SEND_WITH_IMM; break;
	case OP_WRITE: w.opcode = IBV_WR_RDMA_WRITE; break;
	case OP_WRITE_IMM: w.opcode = IBV_WR_RDMA_WRITE_WITH_IMM; break;
	case OP_READ: w.opcode = IBV_WR_RDMA_READ; break;
	case OP_CAS: w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP; break;
	case OP_FADD: w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; break;
	}
	w.imm_data = htonl((uint32_t)ctl_u64(l, "imm", 0));
	if (op == OP_CAS || op == OP_FADD) {
		w.wr.atomic.remote_addr = ctl_u64(l, "rva", 0);
		w.wr.atomic.rkey = (uint32_t)ctl_u64(l, "rkey", 0);
		w.wr.atomic.compare_add = op == OP_CAS ? ctl_u64(l, "cmp", 0) : ctl_u64(l, "swap", 0);
		w.wr.atomic.swap = ctl_u64(l, "swap", 0);
	} else {
		w.wr.rdma.remote_addr = ctl_u64(l, "rva", 0);
		w.wr.rdma.rkey = (uint32_t)ctl_u64(l, "rkey", 0);
	}
	/* n= posts the same request n times (wr ids wr, wr+1, …) in one call, so
	 * that a burst is not paced by the control channel */
	for (uint64_t i = 0, n = ctl_u64(l, "n", 1); i < n; i++) {
		e = ibv_post_send(q->qp, &w, &bad);
		if (e) {
			rep("err ibv_post_send: %s", strerror(e));
			return;
		}
		w.wr_id++;
	}
	rep("ok");
}

static void cmd_poll(const char *l)
{
	struct tqp *q = get_qp(l);
	struct ibv_wc wc[16];
	int max = (int)ctl_u64(l, "max", 16), n;
	size_t o;

	if (!q)
		return;
	if (max < 1 || max > 16)
		max = 16;
	n = ibv_poll_cq(q->cq, max, wc);
	if (n < 0) {
		rep("err ibv_poll_cq");
		return;
	}
	o = (size_t)snprintf(reply, sizeof(reply), "ok n=%d", n);
	for (int i = 0; i < n && o < sizeof(reply) - 128; i++) {
		unsigned op = (unsigned)(wc[i].wr_id >> 56);

		if (op == OP_RECV && wc[i].status == IBV_WC_SUCCESS &&
		    wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM)
			op = OP_RECV_IMM;
		o += (size_t)snprintf(reply + o, sizeof(reply) - o, " wc=%llu,%s,%s,%u",
				      (unsigned long long)(wc[i].wr_id & 0xffffffffffffffull),
				      rt_status_name(wc[i].status), op < OP__N ? op_names[op] : "?",
				      wc[i].byte_len);
	}
}

static void cmd_rd(const char *l)
{
	struct tmr *m = get_mr(l);
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);
	static char hex[2 * CTL_RD_MAX + 1];

	if (!m)
		return;
	if (len > CTL_RD_MAX || off + len > m->len) {
		rep("err bad range");
		return;
	}
	ctl_hex(m->buf + off, len, hex);
	rep("ok hex=%s", hex);
}

static void cmd_sum(const char *l)
{
	struct tmr *m = get_mr(l);
	uint64_t off = ctl_u64(l, "off", 0), len = ctl_u64(l, "len", 0);

	if (!m)
		return;
	if (off + len > m->len) {
		rep("err bad range");
		return;
	}
	rep("ok sum=0x%llx", (unsigned long long)ctl_sum(m->buf + off, (size_t)len));
}

static void cmd_wr(const char *l)
{
	struct tmr *m = get_mr(l);
	uint64_t off = ctl_u64(l, "off", 0);
	const char *h = strstr(l, " hex=");
	static uint8_t b[CTL_LINE_MAX / 2];
	long n;

	if (!m)
		return;
	n = h ? ctl_unhex(h + 5, b, sizeof(b)) : -1;
	if (n < 0 || off + (uint64_t)n > m->len) {
		rep("err bad hex or range");
		return;
	}
	memcpy(m->buf + off, b, (size_t)n);
	rep("ok");
}

static void cmd_state(const char *l)
{
	static const char *const names[] = { "reset", "init", "rtr", "rts", "sqd", "sqe", "err" };
	struct tqp *q = get_qp(l);
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!q)
		return;
	if (ibv_query_qp(q->qp, &a, IBV_QP_STATE, &ia)) {
		rep("err ibv_query_qp");
		return;
	}
	rep("ok state=%s", (unsigned)a.qp_state < 7 ? names[a.qp_state] : "unknown");
}

static void cmd_counters(void)
{
	char path[256], name[128], val[64];
	FILE *ls;
	size_t o = (size_t)snprintf(reply, sizeof(reply), "ok driver=%.*s", (int)strcspn(T.dev, "0123456789_"),
				    T.dev);

	snprintf(path, sizeof(path), "ls /sys/class/infiniband/%s/ports/1/hw_counters 2>/dev/null",
		 T.dev);
	if (!T.dev[0] || !(ls = popen(path, "r"))) {
		rep("err no device");
		return;
	}
	while (fgets(name, sizeof(name), ls) && o < sizeof(reply) - 200) {
		FILE *f;

		name[strcspn(name, "\n")] = 0;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s", T.dev,
			 name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(val, sizeof(val), f)) {
			val[strcspn(val, "\n")] = 0;
			o += (size_t)snprintf(reply + o, sizeof(reply) - o, " %s=%s", name, val);
		}
		fclose(f);
	}
	pclose(ls);
}

static void cmd_load(const char *l)
{
	struct tqp *q = get_qp(l);
	struct tmr *m = q ? get_mr(l) : NULL;
	struct tload_qp t;

	if (!m)
		return;
	t.qp = q->qp;
	t.cq = q->cq;
	t.mr = m->mr;
	t.buf = m->buf;
	t.len = m->len;
	tload_start((unsigned)(q - T.qp), &t, l, reply, sizeof(reply));
}

static int handle(char *l);

/* multi REQ ; REQ ; …: each request in turn, the replies joined by " ; " */
static void cmd_multi(char *l)
{
	static char all[CTL_LINE_MAX];
	size_t o = 0;
	char *part = l + 5, *next;

	all[0] = 0;
	for (; part; part = next) {
		if ((next = strstr(part, " ; ")))
			*next = 0, next += 3;
		part += strspn(part, " ");
		if (!strncmp(part, "multi", 5) || !strncmp(part, "quit", 4))
			rep("err multi: no nesting or quit");
		else
			handle(part);
		o += (size_t)snprintf(all + o, sizeof(all) - o, "%s%s", o ? " ; " : "", reply);
		if (o >= sizeof(all))
			break;
	}
	snprintf(reply, sizeof(reply), "%s", all);
}

/* One request; returns 1 on quit. */
static int handle(char *l)
{
	char cmd[32];

	l[strcspn(l, "\r\n")] = 0;
	if (sscanf(l, "%31s", cmd) != 1) {
		rep("err empty");
		return 0;
	}
	if (!strcmp(cmd, "quit"))
		return 1;
	if (!strcmp(cmd, "multi")) {
		cmd_multi(l);
		return 0;
	}
	if (!strcmp(cmd, "hello"))
		rep("ok proto=%d impl=rocetarget", CTL_PROTO);
	else if (!strcmp(cmd, "open"))
		cmd_open(l);
	else if (!strcmp(cmd, "mr"))
		cmd_mr(l);
	else if (!strcmp(cmd, "qp"))
		cmd_qp(l);
	else if (!strcmp(cmd, "connect"))
		cmd_connect(l);
	else if (!strcmp(cmd, "recv"))
		cmd_recv(l);
	else if (!strcmp(cmd, "post"))
		cmd_post(l);
	else if (!strcmp(cmd, "poll"))
		cmd_poll(l);
	else if (!strcmp(cmd, "rd"))
		cmd_rd(l);
	else if (!strcmp(cmd, "wr"))
		cmd_wr(l);
	else if (!strcmp(cmd, "sum"))
		cmd_sum(l);
	else if (!strcmp(cmd, "state"))
		cmd_state(l);
	else if (!strcmp(cmd, "counters"))
		cmd_counters();
	else if (!strcmp(cmd, "load"))
		cmd_load(l);
	else if (!strcmp(cmd, "lstat"))
		tload_stat((unsigned)ctl_u64(l, "qp", 0), reply, sizeof(reply));
	else if (!strcmp(cmd, "reset")) {
		destroy_all();
		rep("ok");
	} else
		rep("err unknown command %s", cmd);
	return 0;
}

/* The next control line into line (NUL-terminated, without '\n'), running
 * the loads while none is there; 0, or -1 when the connection ends. */
static int next_line(int fd, char *line, size_t cap, size_t *have)
{
	char *nl;

	while (!(nl = memchr(line, '\n', *have))) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int busy = tload_run() + sink_run(), r;
		ssize_t n;

		if (*have >= cap - 1)
			*have = 0;   /* an overlong line: dropped */
		r = poll(&p, 1, tload_active() || T.nsinks ? (busy ? 0 : 1) : -1);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r <= 0)
			continue;
		n = read(fd, line + *have, cap - 1 - *have);
		if (n <= 0)
			return -1;
		*have += (size_t)n;
	}
	*nl = 0;
	return (int)(nl - line);
}

static void serve(int fd)
{
	static char line[CTL_LINE_MAX + 1];
	size_t have = 0;
	int len;

	while ((len = next_line(fd, line, sizeof(line), &have)) >= 0) {
		int quit;

		if (T.verbose)
			fprintf(stderr, "< %.200s\n", line);
		quit = handle(line);
		have -= (size_t)len + 1;
		memmove(line, line + len + 1, have);
		if (quit)
			break;
		if (T.verbose)
			fprintf(stderr, "> %.200s\n", reply);
		strcat(reply, "\n");
		if (write(fd, reply, strlen(reply)) < 0)
			break;
	}
	close(fd);
	destroy_all();
}

/* One line of at most cap - 1 bytes (without '\n') within CTL_AUTH_TIMEOUT_MS,
 * read a byte at a time so that nothing after it is taken; 0, or -1. */
static int auth_line(int fd, char *b, size_t cap)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, CTL_AUTH_TIMEOUT_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || read(fd, b + n, 1) != 1)
			return -1;
		if (b[n] == '\n') {
			b[n] = 0;
			if (n && b[n - 1] == '\r')
				b[n - 1] = 0;
			return 0;
		}
		if (++n >= cap)
			return -1;
	}
}

/* The challenge-response of ctlauth.h on a new connection; 0 when the
 * controller holds the key, else -1 after one line to it and one to stderr. */
static int authenticate(int fd, const char *who)
{
	uint8_t nonce[CTL_AUTH_NONCE];
	char line[256], hexn[2 * CTL_AUTH_NONCE + 1], mac[CTL_AUTH_HEX + 8];
	const char *why;
	int n;

	if (ctl_auth_nonce(nonce)) {
		fprintf(stderr, "rocetarget: controller %s: no random bytes for a challenge (%s); connection closed\n",
			who, strerror(errno));
		return -1;
	}
	ctl_hex(nonce, sizeof(nonce), hexn);
	n = snprintf(line, sizeof(line), "auth hmac-sha256 nonce=%s\n", hexn);
	if (write(fd, line, (size_t)n) != n)
		return -1;
	if (auth_line(fd, line, sizeof(line)))
		why = "no answer to the challenge";
	else if (strncmp(line, "auth ", 5) || !ctl_get(line, "mac", mac, sizeof(mac)))
		why = "a command before authentication (the controller needs --key FILE)";
	else if (!ctl_auth_ok(&T.key, nonce, mac))
		why = "wrong key";
	else {
		if (write(fd, "ok auth\n", 8) != 8)
			return -1;
		if (T.verbose)
			fprintf(stderr, "rocetarget: controller %s: authenticated\n", who);
		return 0;
	}
	n = snprintf(line, sizeof(line), "err authentication failed: %s\n", why);
	if (write(fd, line, (size_t)n) != n) {
		/* it is going away anyway */
	}
	fprintf(stderr, "rocetarget: controller %s: %s; connection closed\n", who, why);
	return -1;
}

/* "ADDR:PORT" of the peer of fd, for the log */
static void peer_name(int fd, char *out, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[INET6_ADDRSTRLEN] = "?", p[16] = "?";

	if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(out, cap, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, p);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rocetarget --listen ADDR:PORT --key FILE [--once] [-v] | --version\n"
		   "The adapter-side agent of `rocegen conform`; see rocetarget(8).\n");
}

/* "10.0.0.1:7471", "[fe80::1%eth0]:7471" → a listening socket on exactly that
 * address; -1 with the reason printed. */
static int listen_on(const char *spec)
{
	char host[256];
	const char *given = spec, *colon = strrchr(spec, ':');
	struct addrinfo hints, *ai = NULL;
	size_t hl;
	int s, one = 1, rc;

	if (!colon || colon == spec || !colon[1]) {
		fprintf(stderr, "rocetarget: --listen %s: want ADDR:PORT (e.g. 10.99.0.2:%d); there is no default address\n",
			spec, CTL_PORT);
		return -1;
	}
	{
		char *end;
		long port = strtol(colon + 1, &end, 10);

		if (*end || port < 1 || port > 65535) {
			fprintf(stderr, "rocetarget: --listen %s: bad port (1..65535)\n", given);
			return -1;
		}
	}
	hl = (size_t)(colon - spec);
	if (spec[0] == '[' && colon[-1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host)) {
		fprintf(stderr, "rocetarget: --listen: address too long\n");
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, colon + 1, &hints, &ai);
	if (rc || !ai) {
		fprintf(stderr, "rocetarget: --listen %s: %s\n", given,
			rc == EAI_NONAME ? "not a numeric address and port" : gai_strerror(rc));
		if (ai)
			freeaddrinfo(ai);
		return -1;
	}
	s = socket(ai->ai_family, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, ai->ai_addr, ai->ai_addrlen) || listen(s, 1)) {
		fprintf(stderr, "rocetarget: --listen %s: %s\n", given, strerror(errno));
		if (s >= 0)
			close(s);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	return s;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' }, { "once", no_argument, NULL, '1' },
		{ "verbose", no_argument, NULL, 'v' },     { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },     { "key", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 }
	};
	const char *where = NULL, *keyfile = NULL;
	char err[512];
	int c, once = 0, s, one = 1;

	opterr = 0;   /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, "l:1vhVk:", lo, NULL)) != -1) {
		switch (c) {
		case 'l': where = optarg; break;
		case 'k': keyfile = optarg; break;
		case '1': once = 1; break;
		case 'v': T.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("rocetarget %s\n", ROCETARGET_VERSION); return 0;   /* as rocetop and rocegen */
		default:
			fprintf(stderr, "rocetarget: bad option '%s' (see --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rocetarget: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!where) {
		fprintf(stderr, "rocetarget: give --listen ADDR:PORT (the address of the test network; there is no default)\n");
		return 2;
	}
	if (!keyfile) {
		fprintf(stderr, "rocetarget: give --key FILE (the shared key of rocegen --key, mode 0600; e.g. head -c 32 /dev/urandom > FILE)\n");
		return 2;
	}
	if (ctl_key_load(keyfile, &T.key, err, sizeof(err))) {
		fprintf(stderr, "rocetarget: %s\n", err);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	s = listen_on(where);
	if (s < 0)
		return 2;
	fprintf(stderr, "rocetarget: listening on %s\n", where);
	for (;;) {
		int fd = accept(s, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			perror("rocetarget: accept");
			return 1;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		peer_name(fd, err, sizeof(err));
		if (authenticate(fd, err)) {
			close(fd);
			continue;   /* even with --once: the one session is an authenticated one */
		}
		serve(fd);
		if (once)
			break;
	}
	close(s);
	if (T.ctx) {
		ibv_dealloc_pd(T.pd);
		ibv_close_device(T.ctx);
	}
	return 0;
}
