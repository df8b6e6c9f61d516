/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pfcjoin.h — NIC vs wire for link-level flow control: the PFC and 802.3x
 * pause counters of a port's netdev (ethtool -S, the one PFC view across
 * vendors, pfc.h) against the pause frames the capture holds (flow.h: per
 * source MAC, per priority).
 *
 * Sent (tx): the frames whose source MAC is the netdev's
 * (/sys/class/net/NETDEV/address); received (rx): those from any other
 * source, the peer's (a PFC frame goes to the reserved multicast address,
 * so the destination does not tell the port: the capture must be of that
 * port's link).  Both sides count frames asking for a pause (a time above
 * zero; XON frames are not compared), since rocetop's first read of the
 * counters.
 */
#ifndef ROCETOP_PFCJOIN_H
#define ROCETOP_PFCJOIN_H

#include <stddef.h>
#include <stdint.h>
#include "devmon.h"
#include "flow.h"
#include "pfc.h"

struct pfcjoin_cmp {
	unsigned prio;                       /* 0-7, or PFC_GLOBAL (802.3x) */
	int tx;                              /* 1: sent by the port, 0: received */
	char counter[96];                    /* the netdev's counters of it, "+" between */
	uint64_t nic;                        /* how far they moved since the first read */
	uint64_t wire;                       /* pause frames of that priority and direction captured */
};

#define PFCJOIN_MAX (2 * (PFC_GLOBAL + 1))
/* The comparisons port p allows: per priority and direction whose pause
 * frame counters the netdev has, with a first read and no reset since, and
 * where either side counted something; their number.  None without the
 * netdev's MAC or a first read. */
size_t pfcjoin_compare(const struct engine *e, const struct dm_port *p, struct pfcjoin_cmp *out, size_t cap);

#endif
