/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs.h — what /sys/class/infiniband says about a device's ports: every
 * hw_counters/NAME, counters/NAME and counters_ext/NAME value, the port state and rate, the link
 * layer, the GID table with each entry's RoCE version and netdev.
 *
 * ROCETOP_SYSFS_ROOT=DIR reads DIR/class/infiniband/… instead of
 * /sys/class/infiniband/… (tests use a recorded tree).
 */
#ifndef ROCETOP_SYSFS_H
#define ROCETOP_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#define SYSFS_NAME 64

enum sysfs_group {
	SYSFS_HW = 0,      /* ports/N/hw_counters/ */
	SYSFS_PMA = 1,     /* ports/N/counters/ */
	SYSFS_DEV = 2,     /* the device's own hw_counters/ (mlx4: num_cqovf, rq_num_udsdprd) */
	SYSFS_NL = 3,      /* RDMA netlink per-port statistics that sysfs does not have (devmon.c) */
	SYSFS_EXT = 4,     /* ports/N/counters_ext/ (64-bit PMA counters of kernels before 4.5: mlx4) */
};
/* "hw_counters", "counters", "device_hw_counters", "netlink", "counters_ext" */
static inline const char *sysfs_group_name(enum sysfs_group g)
{
	return g == SYSFS_HW ? "hw_counters" : g == SYSFS_PMA ? "counters" : g == SYSFS_DEV ? "device_hw_counters" :
	       g == SYSFS_EXT ? "counters_ext" : "netlink";
}

struct sysfs_counter {
	char name[SYSFS_NAME];
	uint64_t value;
	enum sysfs_group group;
};

struct sysfs_gid {
	unsigned index;
	char gid[48], type[16], ndev[SYSFS_NAME];   /* type: "RoCE v2", "IB/RoCE v1" */
};

struct sysfs_port {
	char state[32], phys_state[48], rate[64], link_layer[32];
	struct sysfs_counter *ctr;
	size_t nctr;
	struct sysfs_gid *gid;
	size_t ngid;
	uint64_t lifespan;                     /* hw_counters/lifespan (ms the driver caches reads) */
	int have_lifespan;
};

/* "/sys" or $ROCETOP_SYSFS_ROOT; ROOT1:ROOT2:… (a --device-replay of a
 * --device-record) are snapshots: the one sysfs_set_snapshot chose, the
 * last once they run out.  The string is valid until the next call. */
const char *sysfs_root(void);
/* The poll from 0 (devmon_poll): which root of a list to read, and which
 * snapshot directory a --device-record writes what it reads into. */
void sysfs_set_snapshot(unsigned k);

/* Device names under class/infiniband, sorted; *n of them.  NULL when none
 * (or no memory).  Free with free() (one block). */
char (*sysfs_devices(size_t *n))[SYSFS_NAME];
/* The port numbers of dev (ports/N), sorted, at most cap; their count. */
size_t sysfs_ports(const char *dev, unsigned *out, size_t cap);

/* State, rate, link layer and every counter, sorted by name.  With gids,
 * the GID table too (non-zero entries).  -1 when the port is gone. */
int sysfs_read_port(const char *dev, unsigned port, int gids, struct sysfs_port *p);
void sysfs_port_free(struct sysfs_port *p);
/* Adds the device-level class/infiniband/DEV/hw_counters/NAME values to
 * p's counters (group SYSFS_DEV), sorted again; 0, or -1 out of memory.
 * A device without that directory adds nothing. */
int sysfs_add_dev_counters(const char *dev, struct sysfs_port *p);
/* Appends one counter (unsorted until sysfs_sort_counters); 0 or -1. */
int sysfs_add_counter(struct sysfs_port *p, const char *name, uint64_t v, enum sysfs_group g);
void sysfs_sort_counters(struct sysfs_port *p);

/* The MAC of netdev NETDEV: ROOT/class/net/NETDEV/address (recorded and
 * replayed like the rest); 0, or -1 when there is none. */
int sysfs_netdev_mac(const char *netdev, uint8_t mac[6]);

/* The PMA counters (counters/NAME) saturate at their width's maximum rather
 * than wrap: a value below the last one means the counter was reset. */

#endif
