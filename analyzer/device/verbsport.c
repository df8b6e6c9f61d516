/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbsport.c — a port's MTUs through libibverbs (verbsport.h).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stddef.h>
#include <string.h>
#include "verbsport.h"

unsigned vport_mtu_bytes(int mtu)
{
	switch (mtu) {
	case IBV_MTU_256: return 256;
	case IBV_MTU_512: return 512;
	case IBV_MTU_1024: return 1024;
	case IBV_MTU_2048: return 2048;
	case IBV_MTU_4096: return 4096;
	default: return 0;
	}
}

struct ibv_context *vport_open(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0;

	if (!name || !*name || !(list = ibv_get_device_list(&n)))
		return NULL;
	for (int i = 0; i < n && !ctx; i++) {
		const char *dn = ibv_get_device_name(list[i]);

		if (dn && !strcmp(dn, name))
			ctx = ibv_open_device(list[i]);
	}
	ibv_free_device_list(list);
	return ctx;
}

void vport_close(struct ibv_context *ctx)
{
	if (ctx)
		ibv_close_device(ctx);
}

int vport_query(struct ibv_context *ctx, unsigned port, unsigned *active, unsigned *max)
{
	struct ibv_port_attr a;
	int rc;

	*active = *max = 0;
	if (!ctx)
		return -ENODEV;
	if (port < 1 || port > 255)
		return -EINVAL;
	memset(&a, 0, sizeof a);
	/* libibverbs returns an errno (older versions -1 with errno set) */
	if ((rc = ibv_query_port(ctx, (uint8_t)port, &a)) != 0)
		return rc > 0 ? -rc : errno ? -errno : -EIO;
	*active = vport_mtu_bytes(a.active_mtu);
	*max = vport_mtu_bytes(a.max_mtu);
	return 0;
}
