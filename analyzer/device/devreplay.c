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
 *
 * --device-record DIR writes the same layout (devrec.h), with the sysfs
 * tree per snapshot (DIR/sys/1/class/infiniband, …/2/…), as many numbered
 * directories as it took snapshots, and DIR/times: when each poll was
 * taken, so that the replay's rates are the recorded ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include "devmon.h"
#include "devrec.h"

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "DIR/SUB/1:DIR/SUB/2:…" of the numbered snapshots that exist (from 1,
 * up to the first missing); DIR/SUB itself when it has none; an absent
 * path when none. */
static void snapshots(const char *dir, const char *sub, const char *tail, char *out, size_t cap)
{
	char a[4200];
	size_t len = 0;

	out[0] = 0;
	for (unsigned k = 1; k < 100000; k++) {
		snprintf(a, sizeof a, "%s/%s/%u%s", dir, sub, k, tail);
		if (!is_dir(a))
			break;
		snprintf(a, sizeof a, "%s/%s/%u", dir, sub, k);
		if (len + strlen(a) + 2 > cap)
			break;
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ":" : "", a);
	}
	if (!len)
		snprintf(out, cap, "%s/%s", dir, sub);   /* missing: every read fails, nothing live */
}

/* DIR/times: the recorded poll times (ns since the first), or none. */
static uint64_t *times;
static unsigned ntimes;

static void load_times(const char *dir)
{
	char p[4200];
	unsigned long long v;
	unsigned cap = 0;
	FILE *f;

	snprintf(p, sizeof p, "%s/times", dir);
	if (!(f = fopen(p, "r")))
		return;
	while (fscanf(f, "%llu", &v) == 1) {
		if (ntimes == cap) {
			void *nt = realloc(times, (cap = cap ? cap * 2 : 16) * sizeof *times);

			if (!nt)
				break;
			times = nt;
		}
		times[ntimes++] = v;
	}
	fclose(f);
}

uint64_t devmon_clock(unsigned poll, uint64_t now_ns)
{
	static uint64_t first, shift;
	const char *rec = devrec_dir();

	if (rec) {                       /* recording: when this poll was taken */
		char p[4200];
		FILE *f;

		if (!poll)
			first = now_ns;
		snprintf(p, sizeof p, "%s/times", rec);
		if ((f = fopen(p, poll ? "a" : "w"))) {
			fprintf(f, "%llu\n", (unsigned long long)(now_ns - first));
			fclose(f);
		}
		return now_ns;
	}
	if (!ntimes)
		return now_ns;
	if (!poll)
		first = now_ns;
	if (poll < ntimes) {             /* the recorded clock, from this run's first poll */
		shift = first + times[poll] - now_ns;
		return first + times[poll];
	}
	return now_ns + shift;           /* past the recording: on from its last poll */
}

int devmon_record(const char *dir, char *err, size_t errcap)
{
	char p[4200];
	DIR *d;

	if ((d = opendir(dir))) {
		struct dirent *de;
		int used = 0;

		while ((de = readdir(d)))
			used |= de->d_name[0] != '.';
		closedir(d);
		if (used) {
			snprintf(err, errcap, "--device-record %s: not empty (a recording goes into a new directory)", dir);
			return -1;
		}
	}
	snprintf(p, sizeof p, "%s/", dir);
	if (devrec_mkdirs(p) < 0) {
		snprintf(err, errcap, "--device-record %s: %s", dir, strerror(errno));
		return -1;
	}
	setenv("ROCETOP_DEVICE_RECORD", dir, 1);
	return 0;
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
	if (is_dir(p)) {                 /* one tree for every snapshot */
		snprintf(p, sizeof p, "%s/sys", dir);
	} else {                         /* --device-record's: a tree per snapshot */
		snprintf(p, sizeof p, "%s/sys/1/class/infiniband", dir);
		if (!is_dir(p)) {
			snprintf(err, errcap, "--device-replay %s: no recording there (%s/sys/class/infiniband is not a directory)",
				 dir, dir);
			return -1;
		}
		snapshots(dir, "sys", "/class/infiniband", p, sizeof p);
	}
	setenv("ROCETOP_SYSFS_ROOT", p, 1);
	snapshots(dir, "netlink", "", p, sizeof p);
	setenv("ROCETOP_NETLINK_REPLAY", p, 1);
	snapshots(dir, "ethtool", "", p, sizeof p);
	setenv("ROCETOP_ETHTOOL_REPLAY", p, 1);
	load_times(dir);
	isolated = 1;
	return 0;
}
