/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qpjoin.h — one QP, one row: the wire's flows (flow.h) joined with the
 * QPs the RDMA device lists (devmon.h) on QP numbers.
 *
 * A flow belongs to a local QP (lqpn, rqpn) when
 *   - it goes to this host (destination address one of the device's GIDs)
 *     and its destination QP is lqpn: what the QP receives (requests when
 *     it is a responder, responses when it is a requester), or
 *   - it comes from this host and its destination QP is rqpn: what the QP
 *     sends;
 * and, when an rdma_cm ID names the QP, its addresses are the ID's (many
 * QPs — ibv_*_pingpong, perftest without -R, UCX, NCCL — have none: then
 * QP numbers alone decide).
 *
 * Where the NIC and the wire count the same thing the device's counters
 * moved (since the first read) by what the wire saw on this host's flows.
 * What each counter means is the driver table's (ctrtab.h): rxe's
 * out_of_seq_request counts NAK episodes (seq_err_nak_sent), mlx5's
 * out_of_sequence and mlx4's rq_num_oos out-of-sequence packets received,
 * bnxt_re's dup_req, mlx4's rq_num_dup and rxe's duplicate_request
 * duplicates; all are per device, not per QP.
 */
#ifndef ROCETOP_QPJOIN_H
#define ROCETOP_QPJOIN_H

#include <stddef.h>
#include <stdint.h>
#include "devmon.h"
#include "flow.h"

struct qp_wire {
	unsigned nflows_in, nflows_out;
	uint64_t pkts_in, pkts_out, bytes_in, bytes_out;
	/* as a requester (its requests go out): resent packets, PSN sequence
	 * error NAKs it got, RTT of its requests (median, µs; 0: none) */
	uint32_t retrans, naks_got, rtt_p50_us;
	/* as a responder (requests come in): what its responder counted */
	uint32_t dup, oosr;
};

/* The wire view of device d's QP q. */
void qpjoin_qp(const struct engine *e, const struct dm_dev *d, const struct dm_qp *q, struct qp_wire *w);

/* One meaning both sides count. */
struct qpjoin_cmp {
	char counter[96];                    /* the kernel's names of the device's counters of it, "+" between */
	uint64_t nic;                        /* how far they moved since the first read */
	uint64_t wire;                       /* the same events on the wire */
	const char *meaning;                 /* what both count, in words */
	const char *meaning_name;            /* the table's meaning (ctr_meaning_name) */
};

#define QPJOIN_MAX_CMP 8
/* The comparisons device d allows: for each counter meaning the wire also
 * counts (duplicates, out-of-sequence, sequence-error NAKs sent and
 * received, CNPs sent, handled and received, ECN-marked received), the
 * device's counters of that meaning on the matching side, looked up in the
 * driver table (ctrtab.h) by meaning, never by name; their number. */
size_t qpjoin_compare(const struct engine *e, const struct dm_dev *d, struct qpjoin_cmp *out, size_t cap);

#endif
