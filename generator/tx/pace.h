/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pace.h — rate control: a token bucket that hands out batches.
 *
 * Tokens are whatever unit the caller paces in: frames (--pps, each frame
 * costs 1) or bits on the wire (--gbps, each frame costs its L1 size).  The
 * bucket fills at `rate` units per second up to `burst` units; pace_grant()
 * waits until the bucket holds the next batch (as many of the frames asked
 * for as fit in `burst`, at least one), then hands out as many as it holds,
 * so the sender makes one system call per batch and the average rate is
 * exact over any interval longer than one batch.
 */
#ifndef ROCEGEN_PACE_H
#define ROCEGEN_PACE_H

#include <stdint.h>

struct pace {
	double rate;        /* units per second; 0: unlimited */
	double burst;       /* bucket depth in units */
	double tokens;
	uint64_t last_ns;
	uint64_t waits;     /* times pace_grant() had to wait */
};

uint64_t pace_now_ns(void);
/* rate 0: unlimited.  burst < 1 is taken as 1. */
void pace_init(struct pace *p, double rate, double burst);
/* Returns how many of the next max frames may go now (1..max; 0 only when
 * max is 0).  costs[i] is frame i's cost in units; NULL means 1 each.  Waits
 * (sleeps, then spins for the last ~50 us) until the frames that fit in the
 * burst are all covered.
 * If *stop becomes non-zero while waiting (stop may be NULL), returns 0. */
unsigned pace_grant(struct pace *p, unsigned max, const double *costs, volatile int *stop);
/* Batch size that keeps bursts to about 1 ms of traffic: rate/1000, 1..max. */
unsigned pace_batch_for(double frames_per_sec, unsigned max);

#endif /* ROCEGEN_PACE_H */
