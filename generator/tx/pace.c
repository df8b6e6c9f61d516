/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pace.c — the token bucket of pace.h, on CLOCK_MONOTONIC.
 */
#include <time.h>
#include "pace.h"

#define SPIN_NS 50000.0

uint64_t pace_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pace_init(struct pace *p, double rate, double burst)
{
	p->rate = rate > 0 ? rate : 0;
	p->burst = burst < 1 ? 1 : burst;
	p->tokens = p->burst;    /* the first batch may go at once */
	p->last_ns = pace_now_ns();
	p->waits = 0;
}

unsigned pace_batch_for(double fps, unsigned max)
{
	double b = fps / 1000.0;

	if (fps <= 0 || b >= max)
		return max;
	return b < 1 ? 1 : (unsigned)b;
}

static void refill(struct pace *p, double cap)
{
	uint64_t now = pace_now_ns();

	p->tokens += (double)(now - p->last_ns) * p->rate / 1e9;
	p->last_ns = now;
	if (p->tokens > cap)
		p->tokens = cap;
}

unsigned pace_grant(struct pace *p, unsigned max, const double *costs, volatile int *stop)
{
	double need = 0, cap;
	unsigned n;

	if (!max)
		return 0;
	if (p->rate <= 0)
		return max;
	/* wait for as much of the batch as the bucket can hold, at least one
	 * frame: batches stay whole at steady state instead of trickling out
	 * one frame per token */
	for (n = 0; n < max; n++) {
		double c = costs ? costs[n] : 1.0;

		if (n && need + c > p->burst)
			break;
		need += c;
	}
	/* room for one batch of catch-up after a late wake-up */
	cap = 2 * (p->burst < need ? need : p->burst);
	refill(p, cap);
	while (p->tokens < need) {
		double wait_ns = (need - p->tokens) / p->rate * 1e9;

		if (stop && *stop)
			return 0;
		p->waits++;
		if (wait_ns > SPIN_NS) {
			double ns = wait_ns - SPIN_NS / 2;
			struct timespec ts = { .tv_sec = (time_t)(ns / 1e9),
					       .tv_nsec = (long)((uint64_t)ns % 1000000000u) };

			nanosleep(&ts, NULL);
		}
		refill(p, cap);
	}
	for (n = 0; n < max; n++) {
		double c = costs ? costs[n] : 1.0;

		if (p->tokens < c)
			break;
		p->tokens -= c;
	}
	return n;
}
