/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tload.h — rocetarget's workload loop (tload.c): `load` and `lstat`.
 */
#ifndef ROCETARGET_TLOAD_H
#define ROCETARGET_TLOAD_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

#define TLOAD_MAX 16385   /* = rocetarget's MAX_OBJ: QP ids 1..16384 */

struct tload_qp {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

/* rocetarget.c: the status names of roce_wc_status_name() ("retry-exceeded", …) */
const char *rt_status_name(enum ibv_wc_status s);

/* `load` on QP id with its local MR; the reply in rep */
int tload_start(unsigned id, const struct tload_qp *t, const char *line, char *rep, size_t cap);
/* `lstat`: id 0 sums every load */
int tload_stat(unsigned id, char *rep, size_t cap);
/* one round over every running load: completions taken, requests posted (their number) */
int tload_run(void);
int tload_active(void);
void tload_reset(void);

#endif /* ROCETARGET_TLOAD_H */
