/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_impl.h — what a transmit backend provides to tx.c (private to tx_*.c).
 */
#ifndef ROCEGEN_TX_IMPL_H
#define ROCEGEN_TX_IMPL_H

#include "tx.h"

struct tx_ops {
	const char *name;
	/* Returns 0, or -1 with t->err filled.  May switch t->ops (fallback). */
	int (*open)(struct tx *t);
	/* Sends n frames (already checked by the guard).  Returns n or TX_EIO;
	 * updates t->st.frames / bytes / errors itself. */
	int (*send)(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n);
	int (*flush)(struct tx *t);   /* may be NULL */
	void (*close)(struct tx *t);
};

struct tx {
	const struct tx_ops *ops;
	enum tx_kind kind;
	struct tx_cfg cfg;
	struct tx_stats st;
	char err[TX_ERRLEN];
	void *priv;
	uint8_t *xbuf;             /* the transform's output: one slot per frame of a batch */
	unsigned xslots;
};

extern const struct tx_ops tx_pcap_ops;
extern const struct tx_ops tx_libnet_ops;
extern const struct tx_ops tx_ring_ops;
extern const struct tx_ops tx_mmsg_ops;
extern const struct tx_ops tx_dry_ops;

/* snprintf into t->err; returns -1 */
int tx_fail(struct tx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* ROCEGEN_TX_IMPL_H */
