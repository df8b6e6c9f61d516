/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devrec.h — --device-record DIR: the readers (sysfs.c, nlsock.c,
 * ethtool.c) write what they read into the layout --device-replay reads
 * (devreplay.c), each under the snapshot number its replay counterpart
 * would read it from:
 *
 *   DIR/sys/K/class/infiniband/…   every sysfs file read in poll K
 *   DIR/netlink/K/NAME.bin         each RDMA netlink reply, as the kernel sent it
 *   DIR/ethtool/K/NETDEV           the `ethtool -S NETDEV` text of the K-th read
 *   DIR/times                      one line per poll: nanoseconds since the first
 *
 * ROCETOP_DEVICE_RECORD=DIR turns recording on (devmon_record sets it).
 * Header only: tools/nlrecord links nlsock.c without the rest.
 */
#ifndef ROCETOP_DEVREC_H
#define ROCETOP_DEVREC_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The recording directory, or NULL when not recording. */
static inline const char *devrec_dir(void)
{
	const char *d = getenv("ROCETOP_DEVICE_RECORD");

	return d && *d ? d : NULL;
}

/* mkdir -p of path's parent directories. */
static inline int devrec_mkdirs(const char *path)
{
	char p[4096];
	size_t n = strlen(path);

	if (n >= sizeof p)
		return -1;
	memcpy(p, path, n + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

/* Writes len bytes to DIR/SUB/K/REL (directories made as needed); 0 or -1. */
static inline int devrec_write(const char *sub, unsigned k, const char *rel, const void *buf, size_t len)
{
	const char *dir = devrec_dir();
	char path[4096];
	FILE *f;
	int bad;

	if (!dir)
		return 0;
	if ((size_t)snprintf(path, sizeof path, "%s/%s/%u/%s", dir, sub, k, rel) >= sizeof path ||
	    devrec_mkdirs(path) < 0 || !(f = fopen(path, "wb")))
		return -1;
	bad = fwrite(buf, 1, len, f) != len;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

#endif
