/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ethtool.h — a netdev's `ethtool -S` statistics through the SIOCETHTOOL
 * ioctl: ETHTOOL_GSSET_INFO (how many), ETHTOOL_GSTRINGS (their names, read
 * again whenever the count changes), ETHTOOL_GSTATS (the values).
 */
#ifndef ROCETOP_ETHTOOL_H
#define ROCETOP_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#define ETHT_NAME 32    /* ETH_GSTRING_LEN */

struct etht {
	char ifname[64];
	int fd;                       /* an AF_INET datagram socket for the ioctl */
	uint32_t n;                   /* statistics in the string set */
	char (*names)[ETHT_NAME];
	uint64_t *values;
	unsigned reread;              /* times the string set was read */
	unsigned reads;               /* etht_read calls (replay: which directory) */
};

void etht_init(struct etht *e, const char *ifname);
/* Reads the statistics; 0, or a negative errno (no such netdev, no stats).
 * ROCETOP_ETHTOOL_REPLAY=DIR1[:DIR2…]: the k-th read parses DIRk/IFNAME (the
 * last directory once they run out), the text `ethtool -S IFNAME` prints
 * ("NAME: VALUE" lines); no live netdev is asked then (-ENODEV without it). */
int etht_read(struct etht *e);
void etht_free(struct etht *e);

#endif
