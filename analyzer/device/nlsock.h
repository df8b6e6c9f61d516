/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nlsock.h — RDMA netlink requests through libmnl: one dump at a time, the
 * whole reply gathered into one buffer for nlparse.
 *
 * Replay: with ROCETOP_NETLINK_REPLAY=DIR set, no socket is opened and each
 * dump is read from DIR/NAME.bin instead (NAME from nls_file_name(), the
 * names tools/nlrecord writes), so tests run on recorded kernel replies.
 * DIR1:DIR2:… are recordings in time order: each QP dump after the first
 * moves on to the next directory (the last one stays).
 */
#ifndef ROCETOP_NLSOCK_H
#define ROCETOP_NLSOCK_H

#include <stddef.h>
#include <stdint.h>

struct nls;

/* NULL with err[] set (no NETLINK_RDMA in this kernel, no memory). */
struct nls *nls_open(char *err, size_t errcap);
void nls_close(struct nls *s);

#define NLS_NO_DEV UINT32_MAX   /* a dump of every device (CMD_GET) */

/* Sends the dump request cmd (RDMA_NLDEV_CMD_*), with DEV_INDEX unless
 * dev_index is NLS_NO_DEV (device indexes start at 0), and gathers the reply until NLMSG_DONE or an error
 * answer.  *buf (valid until the next call) and *len hold every message.
 * 0, or a negative errno (the kernel's answer, or the socket's). */
int nls_dump(struct nls *s, uint8_t cmd, uint32_t dev_index, const uint8_t **buf, size_t *len);

/* STAT_GET asks for the QP counters (STAT_RES = RES_QP). */

/* A port's statistics (`rdma statistic show link DEV/PORT`): STAT_GET with
 * DEV_INDEX and PORT_INDEX, no STAT_RES, not a dump; the request built into
 * buf (at least 256 bytes, 4-byte aligned), its length returned. */
size_t nls_port_stat_request(void *buf, uint32_t seq, uint32_t dev_index, uint32_t port);
/* Sends it and gathers the answer (nlparse NLP_PORTSTAT).  snap (from 1) is
 * the poll: a replay reads DIRsnap/stat-DEV-PORT.bin, a --device-record
 * writes the answer there.  0, or a negative errno. */
int nls_port_stat(struct nls *s, uint32_t dev_index, uint32_t port, unsigned snap, const uint8_t **buf,
		  size_t *len);

/* The same for another per-port query: cmd STAT_GET (file stat-DEV-PORT.bin)
 * or STAT_GET_STATUS (the optional counters and whether each is enabled,
 * `rdma statistic mode supported link`; statstatus-DEV-PORT.bin). */
size_t nls_port_query_request(void *buf, uint8_t cmd, uint32_t seq, uint32_t dev_index, uint32_t port);
int nls_port_query(struct nls *s, uint8_t cmd, uint32_t dev_index, uint32_t port, unsigned snap,
		   const uint8_t **buf, size_t *len);

/* --bind-qp-counters: the request `rdma statistic qp set link DEV/PORT auto
 * type on` sends (STAT_SET: DEV_INDEX, PORT_INDEX, STAT_RES = RES_QP,
 * STAT_MODE = AUTO, STAT_AUTO_MODE_MASK = QP_TYPE), built into buf (at
 * least 256 bytes, 4-byte aligned); returns its length. */
size_t nls_bind_request(void *buf, uint32_t seq, uint32_t dev_index, uint32_t port);
/* Sends it and waits for the kernel's answer: 0, or a negative errno
 * (-EOPNOTSUPP from drivers without counters, rxe and siw).  Changes the
 * system's state: new QPs of the port are bound to counters by QP type.
 * With a replay (tests), nothing is sent: -EOPNOTSUPP. */
int nls_bind_qp_auto(struct nls *s, uint32_t dev_index, uint32_t port);

/* --device-enable-optional: the request `rdma statistic set link DEV/PORT
 * optional-counters NAME,...` sends (STAT_SET: DEV_INDEX, PORT_INDEX and a
 * STAT_HWCOUNTERS nest of one u32 STAT_HWCOUNTER_INDEX per counter, the
 * indexes STAT_GET_STATUS gave; NLM_F_REQUEST only: the kernel answers
 * with a STAT_SET message or an error).  The kernel enables exactly the
 * listed optional counters and disables the port's other optional ones
 * (nldev_stat_set_counter_dynamic_doit).  Built into buf (cap bytes, 4-byte
 * aligned); returns its length, 0 when it does not fit. */
size_t nls_optional_request(void *buf, size_t cap, uint32_t seq, uint32_t dev_index, uint32_t port,
			    const uint32_t *idx, size_t n);
/* Sends it and waits for the answer: 0, or a negative errno (EPERM without
 * CAP_NET_ADMIN).  With a replay nothing is sent: -EOPNOTSUPP. */
int nls_set_optional(struct nls *s, uint32_t dev_index, uint32_t port, const uint32_t *idx, size_t n);

/* "dev", "port-1", "qp-1", "cq-1", "mr-1", "cmid-1", "qpcnt-1" (cmd and device index). */
const char *nls_file_name(uint8_t cmd, uint32_t dev_index, char *buf, size_t cap);

#endif
