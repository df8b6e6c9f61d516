/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mirror_time.c — frame times from ERSPAN III hardware timestamps (rocetop
 * --time mirror).
 *
 * The 32-bit timestamp counts units of its granularity (Gra): 0 100 µs,
 * 1 100 ns, 2 IEEE 1588 (the field is the nanoseconds of the PTP time, so
 * it wraps every second), 3 user-configured (units unknown: not used).  It
 * wraps every 2^32 units (429.5 s at 100 ns, 4.97 days at 100 µs), and its
 * epoch is the switch's, not the host's.  So each mirror clock (one per
 * ERSPAN hardware ID and session) is anchored on the first frame it
 * stamps: that frame keeps its host capture time, and every later frame's
 * time is that anchor plus the hardware time elapsed since, the wraps
 * counted by taking, among raw + k x 2^32, the one closest to what the
 * host clock says has elapsed.  That is right as long as the host clock
 * (capture delay and drift included) stays within half a wrap of the
 * switch's: 214 s at 100 ns, 0.5 s for 1588 nanoseconds.
 */
#include "internal.h"

static uint64_t gra_unit_ps(uint8_t gra)
{
	switch (gra) {
	case 0: return 100000000;      /* 100 µs */
	case 1: return 100000;         /* 100 ns */
	case 2: return 1000;           /* 1 ns */
	}
	return 0;
}

static uint64_t gra_period(uint8_t gra)
{
	return gra == 2 ? 1000000000ull : 1ull << 32;
}

static struct roce_mirror_clk *clk_find(struct roce_mirror_clock *c, const struct roce_encap *e)
{
	unsigned i;

	for (i = 0; i < c->n; i++)
		if (c->clk[i].session == e->session && c->clk[i].hwid == e->hwid && c->clk[i].gra == e->gra)
			return &c->clk[i];
	if (i == ROCE_MIRROR_CLOCKS)
		return NULL;
	c->n++;
	c->clk[i] = (struct roce_mirror_clk){ .session = e->session, .hwid = e->hwid, .gra = e->gra };
	return &c->clk[i];
}

int roce_mirror_time(struct roce_mirror_clock *c, const struct roce_pkt *p, uint64_t host_ns, uint64_t *ns)
{
	const struct roce_encap *e = &p->encap;
	struct roce_mirror_clk *k;
	uint64_t unit, period;
	int64_t host_ticks, k_wraps, ticks;

	*ns = host_ns;
	if (e->kind != ROCE_ENCAP_ERSPAN3 || !(unit = gra_unit_ps(e->gra)) || !(k = clk_find(c, e)))
		return 0;
	period = gra_period(e->gra);
	if (e->timestamp >= period)
		return 0;
	if (!k->anchored) {
		k->anchored = 1;
		k->host_ns = host_ns;
		k->raw = e->timestamp;
		return 1;
	}
	/* what the host clock says has elapsed, in ticks; then the number of
	 * wraps that brings raw nearest to it */
	host_ticks = (int64_t)(((__int128)(int64_t)(host_ns - k->host_ns) * 1000) / (int64_t)unit);
	ticks = (int64_t)e->timestamp - (int64_t)k->raw;
	k_wraps = (host_ticks - ticks) / (int64_t)period;
	if (host_ticks - ticks - k_wraps * (int64_t)period > (int64_t)period / 2)
		k_wraps++;
	else if (host_ticks - ticks - k_wraps * (int64_t)period < -(int64_t)period / 2)
		k_wraps--;
	ticks += k_wraps * (int64_t)period;
	*ns = k->host_ns + (uint64_t)(int64_t)(((__int128)ticks * (int64_t)unit) / 1000);
	return 1;
}
