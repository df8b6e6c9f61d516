/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dcb_priv.h — what l2.c (the layer-2 hooks), dcb.c, pfc.c, cnm.c and lldp.c
 * share inside libroce.  Not installed.
 */
#ifndef ROCE_DCB_PRIV_H
#define ROCE_DCB_PRIV_H

#include "internal.h"
#include "dcb.h"

/* Decoders: off is the first byte after the ethertype, end the frame end on
 * the wire.  Each records its offset and layer state. */
void roce__decode_macctrl(struct roce_pkt *p, uint32_t off, uint32_t end);
void roce__decode_cn(struct roce_pkt *p, uint32_t off, uint32_t end);
void roce__decode_lldp(struct roce_pkt *p, uint32_t off, uint32_t end);

void roce__fields_macctrl(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__fields_cn(const struct roce_pkt *p, roce_field_cb cb, void *ctx);
void roce__fields_lldp(const struct roce_pkt *p, roce_field_cb cb, void *ctx);

void roce__summary_macctrl(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);
void roce__summary_cn(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);
void roce__summary_lldp(const struct roce_pkt *p, char *buf, size_t cap, size_t *n);

/* End of the frame on the wire as the accessors see it: before a verified
 * FCS, else the wire length (never less than what was captured). */
uint32_t roce__l2_end(const struct roce_pkt *p);

/* Builders: writes the Ethernet header (dst defaults to group when eth is
 * NULL or its dst is all zero) and the VLAN tags; returns the header length,
 * or a negative roce_err when a tag is out of range or cap is too small for
 * the header plus body_len (with padding to 60 and the FCS). */
int roce__l2_header(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
		    const uint8_t group[6], uint16_t ethertype, size_t body_len, int fcs);
/* Pads the frame of length len to 60 bytes, appends the FCS when asked and
 * returns the final length. */
int roce__l2_finish(uint8_t *dst, size_t len, int fcs);

#endif
