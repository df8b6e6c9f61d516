/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_req_int.h — what stress_req.c (setup, callbacks) and
 * stress_reqrun.c (input, polling, the end) share: the state of one QP with
 * the adapter as requester, and the workload of load.h seen from rocegen.
 */
#ifndef ROCEGEN_STRESS_REQ_INT_H
#define ROCEGEN_STRESS_REQ_INT_H

#include "stress_int.h"

#define RQ_MAX (2 * 32)            /* receive buffers per QP: 2·qd */

struct st_rq {
	uint8_t *mem, *rbuf;         /* the MR of load.h; 2·qd receive buffers */
	uint32_t rkey;
	uint64_t va, rng;
	uint64_t k_exec, k_recv;     /* next message to check on execution / on receipt */
	uint32_t psn_exec;           /* the first PSN of message k_exec */
	int wrapped;                 /* psn_exec went past 2^24 - 1 */
	unsigned repost[RQ_MAX], nrepost;
	int nak_on, rnr_on, drop_on, lost_on, in_retx, rx_since_tx;
	uint32_t nak_psn, rnr_psn, lost_psn;
	uint64_t nak_t, rnr_t, drop_t, anchor;
};

unsigned st_wl_op(const struct st_run *s, unsigned i, uint64_t k);       /* CTL_WL_* */
uint32_t st_wl_len(const struct st_run *s, unsigned i, uint64_t k);
uint32_t st_wl_pkts(const struct st_run *s, unsigned i, uint64_t k);     /* its PSNs */
int st_req_check_bytes(struct st_run *s, struct st_qp *q, uint64_t k, const char *what, uint32_t psn,
		       const uint8_t *got, uint32_t len);
void st_req_fail(struct st_run *s, struct st_qp *q, int integrity, const char *msg);

#endif /* ROCEGEN_STRESS_REQ_INT_H */
