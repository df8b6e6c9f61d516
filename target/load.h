/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load.h — the workload of the control protocol's `load` command (ctl.h),
 * independent of the verbs that post it: rocetarget (libibverbs) and the
 * reference adapter of `rocegen stress` (lib/qp) both drive one ctl_load
 * per QP.  ctl_load_next() describes the next message to post, and
 * ctl_load_done() takes its completion (in posting order, as RC completes).
 */
#ifndef ROCE_LOAD_H
#define ROCE_LOAD_H

#include <stdio.h>
#include "ctl.h"

struct ctl_load {
	unsigned idx, qd, ops;
	uint64_t seed, n;            /* n = 0: until t_end */
	uint32_t min, max, slot;
	uint64_t rva;
	uint32_t rkey;
	uint64_t t_end;              /* ns on the caller's clock; 0: n messages */
	uint64_t posted, completed, errors, fold;
	uint64_t rfold, afold;       /* the same fold over READs only, FETCH_ADDs only */
	uint64_t rbad;               /* READs whose bytes differ from the read area's pattern */
	uint64_t rbad_k, rbad_off;   /* the first of them: message, byte */
	char err[32];                /* the first failed completion's status */
	int active;
};

struct ctl_load_msg {
	unsigned op;                 /* CTL_WL_* */
	uint32_t len;
	uint64_t loff;               /* offset in the local MR */
	uint64_t rva;
	uint64_t add;                /* FETCH_ADD */
};

/* Parses a `load` line; 0, or -1 with a reason in rep. */
static inline int ctl_load_parse(struct ctl_load *L, const char *l, uint64_t now, char *rep,
				 size_t cap)
{
	uint64_t dur = ctl_u64(l, "dur_ms", 0);

	memset(L, 0, sizeof(*L));
	L->idx = (unsigned)ctl_u64(l, "idx", 0);
	L->qd = (unsigned)ctl_u64(l, "qd", 1);
	L->ops = (unsigned)ctl_u64(l, "ops", CTL_WL_SEND) & 15u;
	L->seed = ctl_u64(l, "seed", 1);
	L->n = ctl_u64(l, "n", 0);
	L->min = (uint32_t)ctl_u64(l, "min", 1);
	L->max = (uint32_t)ctl_u64(l, "max", L->min);
	L->slot = (L->max + 7) & ~7u;
	L->rva = ctl_u64(l, "rva", 0);
	L->rkey = (uint32_t)ctl_u64(l, "rkey", 0);
	L->t_end = dur ? now + dur * 1000000ull : 0;
	if (!L->qd || L->qd > 1024 || !L->ops || !L->min || L->min > L->max || L->max > (1u << 20) ||
	    (!L->n && !dur))
		return snprintf(rep, cap, "err bad load"), -1;
	L->active = 1;
	return 0;
}

/* 1 and the next message when one may be posted now; 0 otherwise. */
static inline int ctl_load_next(struct ctl_load *L, uint64_t now, struct ctl_load_msg *m)
{
	uint64_t k = L->posted;

	if (!L->active || L->errors || L->posted - L->completed >= L->qd ||
	    (L->n && k >= L->n) || (L->t_end && now >= L->t_end))
		return 0;
	m->op = ctl_wl_op(L->seed, L->idx, k, L->ops);
	m->len = ctl_wl_len(L->seed, L->idx, k, L->ops, L->min, L->max);
	m->loff = (k % L->qd) * L->slot;
	m->add = 0;
	switch (m->op) {
	case CTL_WL_READ:
		m->rva = L->rva + ctl_wl_roff(L->seed, L->idx, k, L->slot, m->len);
		break;
	case CTL_WL_FADD:
		m->rva = L->rva + L->slot + (uint64_t)L->qd * L->slot;
		m->add = ctl_wl_add(L->seed, L->idx, k);
		break;
	default:
		m->rva = L->rva + L->slot + (k % L->qd) * L->slot;
		break;
	}
	return 1;
}

/* Byte offset of the first difference of READ k's bytes b from the read
 * area's pattern (ctl_wl_fill of message UINT64_MAX from roff), or -1. */
static inline long ctl_load_read_diff(const struct ctl_load *L, uint64_t k, const uint8_t *b, uint32_t len)
{
	uint64_t roff = ctl_wl_roff(L->seed, L->idx, k, L->slot, len);
	uint8_t want[256];

	for (uint32_t o = 0; o < len; o += sizeof(want)) {
		uint32_t n = len - o < sizeof(want) ? len - o : (uint32_t)sizeof(want);

		ctl_wl_fill(L->seed, L->idx, UINT64_MAX, roff + o, want, n);
		for (uint32_t j = 0; j < n; j++)
			if (b[o + j] != want[j])
				return (long)(o + j);
	}
	return -1;
}

/* The completion of the oldest message: status NULL when it succeeded;
 * mr the local MR (READ data), orig the FETCH_ADD's original value. */
static inline void ctl_load_done(struct ctl_load *L, const char *status, const uint8_t *mr,
				 uint64_t orig)
{
	uint64_t k = L->completed++;
	unsigned op = ctl_wl_op(L->seed, L->idx, k, L->ops);
	uint32_t len = ctl_wl_len(L->seed, L->idx, k, L->ops, L->min, L->max);

	if (status) {
		if (!L->errors++)
			snprintf(L->err, sizeof(L->err), "%s", status);
		return;
	}
	if (op == CTL_WL_READ) {
		uint64_t v = ctl_sum(mr + (k % L->qd) * L->slot, len);
		long d = ctl_load_read_diff(L, k, mr + (k % L->qd) * L->slot, len);

		if (d >= 0 && !L->rbad++) {
			L->rbad_k = k;
			L->rbad_off = (uint64_t)d;
		}
		L->fold = ctl_mix(L->fold ^ v);
		L->rfold = ctl_mix(L->rfold ^ v);
	} else if (op == CTL_WL_FADD) {
		L->fold = ctl_mix(L->fold ^ orig);
		L->afold = ctl_mix(L->afold ^ orig);
	}
}

/* 1 while messages are outstanding or more will be posted */
static inline int ctl_load_running(const struct ctl_load *L, uint64_t now)
{
	if (!L->active)
		return 0;
	if (L->posted != L->completed)
		return 1;
	return !L->errors && (L->n ? L->posted < L->n : now < L->t_end);
}

static inline int ctl_load_stat(const struct ctl_load *L, uint64_t now, char *rep, size_t cap)
{
	return snprintf(rep, cap, "ok running=%d posted=%llu completed=%llu errors=%llu fold=0x%llx rfold=0x%llx afold=0x%llx rbad=%llu rbad_k=%llu rbad_off=%llu%s%s",
			ctl_load_running(L, now), (unsigned long long)L->posted,
			(unsigned long long)L->completed, (unsigned long long)L->errors,
			(unsigned long long)L->fold, (unsigned long long)L->rfold,
			(unsigned long long)L->afold, (unsigned long long)L->rbad,
			(unsigned long long)L->rbad_k, (unsigned long long)L->rbad_off,
			L->err[0] ? " err=" : "", L->err);
}

#endif /* ROCE_LOAD_H */
