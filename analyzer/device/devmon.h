/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devmon.h — the device source: what the NIC itself knows, read each
 * interval from RDMA netlink (QPs, CQs, MRs, CM IDs, port netdevs), sysfs
 * (hw_counters, PMA counters, GIDs, port state and rate), libibverbs (the
 * port's active and largest MTU, verbsport.h) and the port's netdev
 * (ethtool -S), as totals and per-second rates.
 *
 *   devmon_open(specs, netdevs) → devmon_poll(now) … → views (devout.c)
 *
 * The QP table (a dump queries every QP; on mlx5 a firmware command each)
 * is read on its own interval; counters on every poll.  Per RC/UC QP the
 * advance of sq-psn and rq-psn per second (mod 2^24; negative when a
 * retransmission moved it back) is an activity view without any capture.
 */
#ifndef ROCETOP_DEVMON_H
#define ROCETOP_DEVMON_H

#include <stdint.h>
#include <stdio.h>
#include "ctrtab.h"
#include "ethtool.h"
#include "nlparse.h"
#include "sysfs.h"
#include "verbsport.h"

#define DEVMON_MAX_SPECS 16

struct devmon_cfg {
	const char *specs[DEVMON_MAX_SPECS];   /* "rxe0", "mlx5_0:1", "all" */
	unsigned nspecs;
	const char *netdevs[DEVMON_MAX_SPECS]; /* -i names: their RDMA ports join */
	unsigned nnetdevs;
	double qp_interval;                    /* seconds between QP dumps (0: every poll) */
	int all_counters;                      /* rates of counters that did not move too */
	int node_names;                        /* Prometheus: node_exporter's node_infiniband_* names too */
	int bind_qp_counters;                  /* --bind-qp-counters: STAT_SET auto type on, each port */
	const char *enable_optional;           /* --device-enable-optional NAME,...: each port (optctr.h) */
};

struct dm_rate {
	double v;                              /* per second */
	int valid;                             /* 0 on the first read or after a reset */
};

struct dm_port {
	unsigned port;
	char netdev[64];
	struct sysfs_port sp;                  /* state, rate, counters (sorted), GIDs */
	struct dm_rate *rate;                  /* per sp.ctr entry */
	struct sysfs_counter *prev;            /* the previous read */
	size_t nprev;
	struct sysfs_counter *base;            /* the first read (NIC-vs-wire comparisons) */
	size_t nbase;
	int sysfs_ok;
	unsigned active_mtu, max_mtu;          /* bytes (ibv_query_port each poll); 0: unknown */
	uint8_t nl_state, nl_phys;             /* from PORT_GET, when netlink answered */
	int have_nl_state;
	struct etht eth;                       /* the netdev's ethtool -S */
	uint64_t *eth_prev;
	uint32_t eth_nprev;
	struct dm_rate *eth_rate;
	int eth_err;                           /* the last read's negative errno */
	char (*eth_base_names)[ETHT_NAME];     /* the first successful read (NIC vs wire: pfcjoin.h) */
	uint64_t *eth_base;
	uint32_t eth_nbase;
	uint8_t mac[6];                        /* the netdev's (sysfs class/net/NETDEV/address) */
	int have_mac;
	/* optional counters (RDMA netlink STAT_GET_STATUS): names, enabled or not */
	char (*opt_name)[48];
	uint8_t *opt_on;
	size_t nopt;
};

struct dm_qp {
	struct nlp_qp q;
	char comm[64];                         /* /proc/PID/comm, or the kernel module's name */
	struct dm_rate sq_rate, rq_rate;       /* PSN/s */
};

struct dm_dev {
	char name[64];
	const char *driver;                    /* ctr_driver_of(name): "mlx5", …, or "" */
	uint32_t index;                        /* netlink device index (from 0) */
	int have_index;                        /* netlink knows the device */
	struct ibv_context *verbs;             /* for the port MTUs (verbsport.h); NULL: none */
	struct dm_port *ports;
	size_t nports;
	struct dm_qp *qps, *prev_qps;          /* sorted by lqpn */
	size_t nqps, nprev_qps;
	struct nlp_vec cqs, mrs, cmids;
	struct nlp_vec qpcnts;                 /* bound QP counters (STAT_GET); empty when none or unsupported */
	int qp_err;                            /* the last QP dump's negative errno */
};

struct devmon {
	struct devmon_cfg cfg;
	struct dm_dev *devs;
	size_t ndevs;
	struct nls *nl;                        /* NULL: no RDMA netlink here */
	char nl_err[256];
	uint64_t last_ns, last_qp_ns, next_qp_ns;
	double dt, qp_dt;                      /* seconds since the previous reads */
	unsigned polls;
	const void *wire;                      /* a struct engine (flow.h) to join QPs with (qpjoin.h),
						  or NULL: set by the caller */
};

/* Finds the devices and ports the specs and netdevs name.  NULL with err[]
 * set when a spec names nothing or netlink and sysfs both fail; NULL with
 * err[0] == 0 when only netdevs were given and none has an RDMA port. */
struct devmon *devmon_open(const struct devmon_cfg *cfg, char *err, size_t errcap);
void devmon_close(struct devmon *m);
/* Reads counters (and QPs when their interval is over) at now_ns. */
void devmon_poll(struct devmon *m, uint64_t now_ns);

/* The counters of device d (every selected port, hw_counters and counters)
 * whose meaning (ctrtab.h enum ctr_meaning: M_DUP_REQ, M_OOS_RECV,
 * M_DISCARD, M_OUT_OF_BUFFER, …) is the one asked, summed in the meaning's
 * units: their number (0: the device counts no such thing).  Gauges are left
 * out, and so is a counter of the same events as another the port has
 * (ctr_entry.same_as). */
#define DM_MEANING_NAMES 8
struct dm_meaning_sum {
	size_t n;                              /* counters found */
	const char *names[DM_MEANING_NAMES];   /* the first of them, the kernel's names */
	uint64_t total;                        /* their values now */
	uint64_t since_first;                  /* how far they moved since the first read */
	size_t nmoved;                         /* of them, those with a first read and no reset since */
	double rate;                           /* per second over the last interval */
	int have_rate;                         /* 0: no interval yet (first read, reset) */
};
int devmon_meaning(const struct dm_dev *d, unsigned meaning, struct dm_meaning_sum *out);
/* The same, of the counters of one side only (enum ctr_side; -1: any). */
int devmon_meaning_side(const struct dm_dev *d, unsigned meaning, int side, struct dm_meaning_sum *out);
/* Whether the port (a const struct dm_port *) has a counter of that name:
 * for ctr_counts_in_sum (a counter whose same_as the port also has is left
 * out of the sums by meaning). */
int dm_port_has(const char *name, const void *port);

/* --device-replay DIR (devreplay.c): points the sysfs, RDMA netlink and
 * ethtool readers at DIR's recording (DIR/sys, DIR/netlink/{1,2},
 * DIR/ethtool/{1,2}/NETDEV), so that nothing of this host is read.  -1 with
 * err[] set when DIR holds no sysfs tree. */
int devmon_replay(const char *dir, char *err, size_t errcap);
/* --device-record DIR (devreplay.c, devrec.h): what the readers read from
 * now on is written into DIR (made if missing; -1 with err[] set when it
 * holds anything or cannot be made), in the layout devmon_replay reads. */
int devmon_record(const char *dir, char *err, size_t errcap);
/* devmon_poll's clock: recording, notes when each poll was taken
 * (DIR/times); replaying a recording that has them, the recorded times
 * (rates as recorded); else now_ns. */
uint64_t devmon_clock(unsigned poll, uint64_t now_ns);
/* 1 after devmon_replay: no /proc of this host either (QP owners' comm). */
int devmon_isolated(void);

/* Views (devout.c).  The JSON is the value of "devices": an array. */
void devmon_text(FILE *f, const struct devmon *m);
/* The ports, resource counts and NIC-vs-wire lines of devmon_text, without
 * the QP and CM ID rows (the terminal view draws its own QP table). */
void devmon_text_ports(FILE *f, const struct devmon *m);
void devmon_json(FILE *f, const struct devmon *m);
void devmon_prom(FILE *f, const struct devmon *m);
/* node_exporter's node_infiniband_* series of the ports (devnode.c); devmon_prom
 * adds them when cfg.node_names. */
void devmon_prom_node(FILE *f, const struct devmon *m);

#endif
