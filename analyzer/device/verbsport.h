/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbsport.h — what only libibverbs tells about a port: its active MTU and
 * the largest MTU it supports (ibv_query_port(3)'s active_mtu and max_mtu;
 * sysfs has neither, RDMA netlink neither).
 *
 *   vport_open(name) once per device → vport_query(ctx, port, …) each
 *   port poll → vport_close(ctx)
 *
 * A device libibverbs does not list (no provider, no uverbs access, a
 * device known only from a replayed sysfs tree) has no context: its MTUs
 * are unknown, and the views say nothing about them.
 */
#ifndef ROCETOP_VERBSPORT_H
#define ROCETOP_VERBSPORT_H

struct ibv_context;

/* enum ibv_mtu (IBV_MTU_256 = 1 … IBV_MTU_4096 = 5) in bytes: 256 … 4096;
 * 0 for any other value (unknown). */
unsigned vport_mtu_bytes(int mtu);

/* The verbs context of the RDMA device called name (ibv_get_device_list,
 * ibv_get_device_name, ibv_open_device), or NULL when libibverbs lists no
 * such device or cannot open it. */
struct ibv_context *vport_open(const char *name);
void vport_close(struct ibv_context *ctx);

/* The port's active and largest MTU in bytes (0: unknown).  0, or a
 * negative errno (ctx NULL: -ENODEV; a port number above 255: -EINVAL;
 * ibv_query_port's error), with *active = *max = 0 then. */
int vport_query(struct ibv_context *ctx, unsigned port, unsigned *active, unsigned *max);

#endif
