/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nicdrop.h — what the NIC itself discarded on a capture interface, from its
 * `ethtool -S` statistics (device/ethtool.h): the counters of a list that the
 * netdev has, summed, counted from when the capture opened.  The default
 * list is mlx5's, whose kernel documentation defines both:
 * rx_discards_phy (no buffer on the physical port) and rx_out_of_buffer (no
 * receive descriptor posted).  Other drivers name theirs otherwise
 * (--nic-drop-counters).  /proc/net/dev (source_stats' ifdrop) is kept apart:
 * drivers differ in what they fold into rx_dropped.
 */
#ifndef ROCETOP_NICDROP_H
#define ROCETOP_NICDROP_H

#include <stdint.h>
#include "device/ethtool.h"

#define NICDROP_DEFAULT "rx_discards_phy,rx_out_of_buffer"

struct nicdrop {
	struct etht e;
	char list[256];               /* the names looked for, comma-separated */
	char found[256];              /* those the netdev has, comma-separated */
	uint64_t base;                /* their sum when the capture opened */
	int ok;                       /* at least one found */
	int opened;
};

/* list: NULL for NICDROP_DEFAULT, "" for none.  ok = 0 when the netdev has
 * none of them (or no ethtool statistics). */
void nicdrop_open(struct nicdrop *n, const char *ifname, const char *list);
/* Discards since the open; -1 when not ok or the read failed. */
int nicdrop_read(struct nicdrop *n, uint64_t *since_open);
void nicdrop_close(struct nicdrop *n);

/* The device view's discards and out-of-buffer drops (counters of meaning
 * M_DISCARD and M_OUT_OF_BUFFER, ctrtab.h) since its first read, summed over
 * its devices, into in->dev_* (diag.h); dev_valid = 0 when no device counts
 * either.  m: a struct devmon, or NULL. */
struct diag_input;
struct devmon;
void nicdrop_devices(const struct devmon *m, struct diag_input *in);

#endif
