/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ibident.h — aliases of LID-routed InfiniBand flows whose LIDs changed (ibident.c). */
#ifndef IBIDENT_H
#define IBIDENT_H

#include <stdint.h>

#define IBID_ALIASES 1024      /* slots; at most 3/4 of them used */

struct ibident;

struct ibident *ibident_new(void);
void ibident_free(struct ibident *t);
/* LID pairs recorded as aliases so far. */
uint32_t ibident_aliases(const struct ibident *t);
/* When (*src, *dst, qpn) is an alias, rewrites *src and *dst to the flow's
 * hosts and returns 1; else 0 (t may be NULL). */
int ibident_lookup(const struct ibident *t, uint32_t *src, uint32_t *dst, uint32_t qpn);
/* Records (src, dst, qpn) as an alias of the flow keyed (fsrc, fdst, qpn);
 * -1 when the table is full. */
int ibident_add(struct ibident *t, uint32_t src, uint32_t dst, uint32_t qpn, uint32_t fsrc, uint32_t fdst);
/* The flow (index + 1) that last carried DestQP qpn, 0 when not known. */
void ibident_note(struct ibident *t, uint32_t qpn, uint32_t flow_idx);
uint32_t ibident_last(const struct ibident *t, uint32_t qpn);

#endif
