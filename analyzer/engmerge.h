/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engmerge.h — one read-only engine over several (rocetop --threads): each
 * capture thread owns an engine holding the flows of its address pairs; the
 * views (report.c, prom.c) read a merged view made at each snapshot.
 *
 * The view's flows are copies, in the order the parts first saw them (the
 * born[] key: the frame number on replay, the capture time live), so a
 * capture split by address pair (roce_flow_key) reads as it would have in
 * one engine: same flows, same order, same counters.  Totals are summed
 * (first and last frame times: min and max), hosts interned again, peers
 * renumbered, flow start times rebased.  The copies share the parts'
 * anomaly blocks and RTT state (engine_rtt() finds a flow's part): the
 * parts must not change while the view is read.
 *
 * What a view cannot make identical to one engine: evictions (each part has
 * its own --max-flows table and LRU), the RTT state's memory figures (one
 * table per part) and PFC/LLDP ports (frames without addresses all go to
 * part 0, so they stay whole, but a port seen by two parts is listed twice).
 */
#ifndef ROCETOP_ENGMERGE_H
#define ROCETOP_ENGMERGE_H

#include "flow.h"

#define ENGMERGE_MAX_PARTS 64

struct engmerge_part {
	struct engine *e;
	const uint64_t *born;     /* born[i]: order key of flow slot i (NULL: slot order) */
	const uint64_t *born_ts;  /* its first frame's time, exact (NULL: the engine's, whose
				     20 ns steps count from the part's own first frame) */
};

struct engmerge {
	struct engine v;          /* the view */
	struct engine *parts[ENGMERGE_MAX_PARTS];
	uint8_t *part_of;
};

/* Makes m->v the merged view of n parts (replacing the last one): 0, or -1
 * when out of memory (m->v is then empty). */
int engmerge(struct engmerge *m, const struct engmerge_part *parts, unsigned n);
void engmerge_free(struct engmerge *m);

#endif
