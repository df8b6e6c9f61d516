/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devreplay.c — --device-replay DIR (devmon.h): a recording of another
 * machine's devices, played back isolated from this host.
 *
 *   DIR/sys/class/infiniband/…   the sysfs tree (ROCETOP_SYSFS_ROOT)
 *   DIR/netlink/1, DIR/netlink/2  RDMA netlink replies (ROCETOP_NETLINK_REPLAY);
 *                                 none: no QP table (as without RDMA netlink)
 *   DIR/ethtool/1/NETDEV, …/2/    `ethtool -S NETDEV` text (ROCETOP_ETHTOOL_REPLAY);
 *                                 none: no statistics, never this host's
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "devmon.h"

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "DIR/SUB/1:DIR/SUB/2" of the snapshots that exist (1 and 2); DIR/SUB
 * itself when it has no numbered ones; an absent path when none. */
static void snapshots(const char *dir, const char *sub, char *out, size_t cap)
{
	char a[4200], b[4200];

	snprintf(a, sizeof a, "%s/%s/1", dir, sub);
	snprintf(b, sizeof b, "%s/%s/2", dir, sub);
	if (is_dir(a) && is_dir(b))
		snprintf(out, cap, "%s:%s", a, b);
	else if (is_dir(a))
		snprintf(out, cap, "%s", a);
	else
		snprintf(out, cap, "%s/%s", dir, sub);   /* missing: every read fails, nothing live */
}

static int isolated;

int devmon_isolated(void)
{
	return isolated;
}

int devmon_replay(const char *dir, char *err, size_t errcap)
{
	char p[8500];

	snprintf(p, sizeof p, "%s/sys/class/infiniband", dir);
	if (!is_dir(p)) {
		snprintf(err, errcap, "--device-replay %s: no recording there (%s is not a directory)", dir, p);
		return -1;
	}
	snprintf(p, sizeof p, "%s/sys", dir);
	setenv("ROCETOP_SYSFS_ROOT", p, 1);
	snapshots(dir, "netlink", p, sizeof p);
	setenv("ROCETOP_NETLINK_REPLAY", p, 1);
	snapshots(dir, "ethtool", p, sizeof p);
	setenv("ROCETOP_ETHTOOL_REPLAY", p, 1);
	isolated = 1;
	return 0;
}
