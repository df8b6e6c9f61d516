/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dcb.c — Data Center Bridging frames carried directly on Ethernet:
 * MAC control (802.3x PAUSE, 802.1Qbb PFC), 802.1Qau CN-TAG/CNM and LLDP/DCBX.
 * (Decoding of these lands with issue 3; until then they are reported as
 * plain Ethernet frames.)
 */
#include "internal.h"

int roce__decode_l2(struct roce_pkt *p, uint16_t ethertype, uint32_t off, uint32_t end)
{
	(void)p; (void)ethertype; (void)off; (void)end;
	return 0;
}

void roce__fields_l2(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	(void)p; (void)cb; (void)ctx;
}

void roce__summary_l2(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	(void)p; (void)buf; (void)cap; (void)n;
}
