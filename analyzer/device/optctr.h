/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * optctr.h — --device-enable-optional NAME[,NAME...]: optional counters of a
 * port (mlx5's cc_rx_ce_pkts, rdma_rx_bytes, …) enabled through RDMA netlink,
 * as `rdma statistic set link DEV/PORT optional-counters` does.  Those
 * already enabled stay enabled (the kernel's STAT_SET takes the whole set).
 */
#ifndef ROCETOP_OPTCTR_H
#define ROCETOP_OPTCTR_H

#include <stddef.h>
#include <stdint.h>

struct nls;

/* A well-formed list: comma-separated names of [A-Za-z0-9_], none empty or
 * longer than 47 characters.  0, or -1 with err[] set. */
int optctr_check_list(const char *list, char *err, size_t errcap);

/* Enables list's counters on dev/port (STAT_GET_STATUS first: each name must
 * be one of the port's optional counters).  0 (also when all were on
 * already); -1 with err[] set: a name the port does not have (the port's
 * optional counters listed), no answer to STAT_GET_STATUS, or the kernel's
 * refusal of STAT_SET (EPERM without CAP_NET_ADMIN). */
int optctr_enable(struct nls *nl, uint32_t dev_index, const char *dev, uint32_t port, const char *list,
		  char *err, size_t errcap);

#endif
