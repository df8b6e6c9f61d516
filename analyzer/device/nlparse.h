/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nlparse.h — RDMA netlink (NETLINK_RDMA, the nldev client) replies parsed
 * into plain structs: devices (CMD_GET), ports (CMD_PORT_GET) and the
 * resource tables (RES_QP_GET, RES_CQ_GET, RES_MR_GET, RES_CM_ID_GET) and the
 * QP counters (STAT_GET with STAT_RES = RES_QP: counters QPs are bound to).
 *
 * Pure functions over a byte buffer: one or more netlink messages exactly as
 * recv() returned them (or as tools/nlrecord saved them).  No I/O here, so
 * the parsers are unit-tested with replies recorded from real kernels and
 * fuzzed (fuzz/fuzz_netlink.c).  Attributes go through libmnl's iterators;
 * every length is checked here before libmnl sees it, and every attribute's
 * type and size before its value is read.
 */
#ifndef ROCETOP_NLPARSE_H
#define ROCETOP_NLPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NLP_NAME 64

/* which optional attributes an entry carried */
enum {
	NLP_HAVE_RQPN = 1 << 0, NLP_HAVE_RQ_PSN = 1 << 1, NLP_HAVE_SQ_PSN = 1 << 2,
	NLP_HAVE_PID = 1 << 3, NLP_HAVE_PDN = 1 << 4, NLP_HAVE_KERN = 1 << 5,
	NLP_HAVE_PORT = 1 << 6, NLP_HAVE_STATE = 1 << 7, NLP_HAVE_PMIG = 1 << 8,
	NLP_HAVE_LQPN = 1 << 9, NLP_HAVE_SRC = 1 << 10, NLP_HAVE_DST = 1 << 11,
	NLP_HAVE_NDEV = 1 << 12, NLP_HAVE_TYPE = 1 << 13,
};

struct nlp_dev {
	uint32_t index, nports;
	char name[NLP_NAME], fw[NLP_NAME], protocol[16];
	uint64_t node_guid;
};

struct nlp_port {
	uint32_t dev_index, port, ndev_index, have;
	uint8_t state, phys_state;
	char dev_name[NLP_NAME], ndev_name[NLP_NAME];
};

/* One resource owner: a user process (pid) or a kernel module (kern_name). */
struct nlp_owner {
	uint32_t pid;
	char kern_name[NLP_NAME];
};

struct nlp_qp {
	uint32_t dev_index, port, lqpn, rqpn, rq_psn, sq_psn, pdn, have;
	uint8_t type, state, pmig;
	struct nlp_owner own;
};

struct nlp_cq {
	uint32_t dev_index, cqn, cqe, have;
	uint64_t users;
	uint8_t poll_ctx;
	struct nlp_owner own;
};

struct nlp_mr {
	uint32_t dev_index, mrn, rkey, lkey, pdn, have;
	uint64_t iova, len;
	struct nlp_owner own;
};

struct nlp_cmid {
	uint32_t dev_index, port, cm_idn, lqpn, ps, have;
	uint8_t type, state;
	struct sockaddr_storage src, dst;
	struct nlp_owner own;
};

/* One bound QP counter (STAT_GET dump, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY):
 * its id, the QPs bound to it (RES_QP nest of RES_QP_ENTRY/RES_LQPN) and its
 * hw counters (STAT_HWCOUNTERS nest of STAT_HWCOUNTER_ENTRY NAME/VALUE).
 * Entries beyond the caps are dropped (nqps_total counts every bound QP). */
#define NLP_CNT_QPS 64
#define NLP_CNT_CTRS 64
#define NLP_CNT_NAME 48
struct nlp_qpcnt {
	uint32_t dev_index, port, id, have;
	uint32_t nqps, nqps_total, nctr;
	uint32_t lqpn[NLP_CNT_QPS];
	char name[NLP_CNT_CTRS][NLP_CNT_NAME];
	uint64_t value[NLP_CNT_CTRS];
};

/* A port's statistics (STAT_GET for DEV_INDEX and PORT_INDEX without
 * STAT_RES, what `rdma statistic show link DEV/PORT` asks): every hw counter
 * of the port the driver has enabled, optional ones (mlx5's cc_rx_ce_pkts,
 * rdma_rx_bytes, …) included; STAT_HWCOUNTERS → ENTRY → NAME, VALUE. */
#define NLP_PS_CTRS 256
struct nlp_portstat {
	uint32_t dev_index, port, have, nctr;
	char name[NLP_PS_CTRS][NLP_CNT_NAME];
	uint64_t value[NLP_PS_CTRS];         /* NLP_OPTSTATUS: 1 enabled, 0 disabled */
	uint32_t index[NLP_PS_CTRS];         /* NLP_OPTSTATUS: STAT_HWCOUNTER_INDEX (UINT32_MAX: none) */
};
/* NLP_OPTSTATUS (STAT_GET_STATUS for DEV/PORT, what `rdma statistic mode
 * supported link` asks) fills the same struct: the port's optional
 * counters (entries with STAT_HWCOUNTER_DYNAMIC), value = enabled. */

/* A growable array of one entry type (v holds n entries of size esz). */
struct nlp_vec {
	void *v;
	size_t n, cap, esz;
};

enum nlp_kind { NLP_DEV, NLP_PORT, NLP_QP, NLP_CQ, NLP_MR, NLP_CMID, NLP_QPCNT, NLP_PORTSTAT, NLP_OPTSTATUS };

/* Return values of nlp_parse */
#define NLP_MORE 0         /* the buffer held entries, no NLMSG_DONE yet */
#define NLP_DONE 1         /* NLMSG_DONE seen (or a non-multipart reply ended) */
#define NLP_EINVAL (-1)    /* malformed: a length or attribute does not fit */
#define NLP_ENOMEM (-2)
/* A kernel NLMSG_ERROR answer: the negative errno minus 1000 (e.g. -1022 for EINVAL). */
#define NLP_KERNEL_ERR(e) (-1000 - (e))

/* Parses the messages in buf[0..len) and appends each entry of `kind` to
 * out (out->esz must match the kind: nlp_vec_init does it; NULL: entries
 * are only checked). */
int nlp_parse(enum nlp_kind kind, const uint8_t *buf, size_t len, struct nlp_vec *out);

/* Only where the reply stands: NLP_DONE, NLP_MORE or an error. */
int nlp_status(const uint8_t *buf, size_t len);

void nlp_vec_init(struct nlp_vec *v, enum nlp_kind kind);
void nlp_vec_free(struct nlp_vec *v);
void nlp_vec_clear(struct nlp_vec *v);
#define NLP_AT(vec, T, i) (&((T *)(vec)->v)[i])

/* Names as `rdma res show` prints them ("RC", "RTS", "MIGRATED", "ACTIVE", …). */
/* The counter a QP (port, lqpn) is bound to in a NLP_QPCNT vector, or NULL. */
const struct nlp_qpcnt *nlp_qpcnt_find(const struct nlp_vec *v, uint32_t port, uint32_t lqpn);

const char *nlp_qp_type_str(uint8_t t);
const char *nlp_qp_state_str(uint8_t s);
const char *nlp_pmig_str(uint8_t s);
const char *nlp_port_state_str(uint8_t s);
const char *nlp_phys_state_str(uint8_t s);
const char *nlp_cm_state_str(uint8_t s);
const char *nlp_cm_ps_str(uint32_t ps);
/* "10.99.0.1:7174" / "[fe80::1]:4791" into buf; "-" for an empty address. */
const char *nlp_addr_str(const struct sockaddr_storage *ss, char *buf, size_t cap);

#endif
