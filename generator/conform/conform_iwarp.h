/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_iwarp.h — `rocegen conform --transport iwarp`: the iWARP
 * catalogue.  rocegen is the MPA initiator and RDMAP requester on a kernel
 * TCP connection (generator/iwarp), the peer under test is
 *
 *   --app rocegen   `rocegen server --transport iwarp` (its region in the
 *                   MPA reply's private data), port 5044
 *   --app rping     `rping -s -P` on siw or any iWARP adapter (rdma_cm on
 *                   iWARP is the TCP connection and MPA), port 7174: the
 *                   first rping round (our SEND, its RDMA READ of our start
 *                   buffer, its SEND) gives its buffer's STag and TO
 *   --reference     rocegen's own responder, forked for each case on
 *                   127.0.0.1 (make check: no lab, no root)
 *
 *   conform_iwarp.c        options, the peers, the run, evidence pcaps
 *   conform_iwarp_cases.c  the cases and what each expects (RFC 5040/5041/
 *                          5044/6581)
 *
 * Verdicts, metrics and reports are conform.h's (struct cf_result).
 */
#ifndef ROCEGEN_CONFORM_IWARP_H
#define ROCEGEN_CONFORM_IWARP_H

#include <sys/types.h>
#include "conform.h"
#include "iw.h"

enum cfi_app { CFI_APP_ROCEGEN = 0, CFI_APP_RPING };

#define CFI_RPING_SIZE 64           /* our rping buffers (the server's -S must be >= this) */
#define CFI_SINK_LEN 65536          /* our READ sink */
#define CFI_SINK_STAG 0x00c3d400u
#define CFI_SINK_TO 0x7f0000101000ull
#define CFI_MSG_MAX (128u * 1024)     /* the longest message a case sends */

struct cfi {
	struct cf *c;                   /* verdicts, metrics, the result */
	const char *peer, *iface;
	int port, app, reference;
	double wait_s;                  /* how long a reaction may take */
	int verbose;
	/* the case's connection */
	struct gen_opts o;
	int have_o;
	struct iw w;
	int have_w;
	uint8_t start[CFI_RPING_SIZE], rq[64];
	uint8_t *sink, *msg;
	uint64_t sends_rx;
	uint32_t stag, rlen;            /* the peer's region (tagged cases) */
	uint64_t to;
	int have_region;
	/* the reference peer of this case */
	pid_t srv;
	int srv_err;                    /* its stderr (a pipe) */
	int srv_port;
};

struct cfi_case {
	const char *name;
	const char *summary;
	const char *srv_args;           /* the reference peer's own options for this case */
	void (*run)(struct cfi *x);
};
extern const struct cfi_case cfi_cases[];
extern const unsigned cfi_n_cases;

/* ---- for the cases (conform_iwarp.c) ---- */
/* TCP connection and MPA exchange with extra client options (rocegen's
 * --crc, --markers, --rev N, --ird/--ord, --rtr …): 0 connected, 1 the peer
 * refused (an MPA reply with R, or closed it: w.why says which), -1 ERROR. */
int cfi_connect(struct cfi *x, const char *args);
/* The peer's region, and (rping) its first round: 0 or -1 (ERROR set). */
int cfi_region(struct cfi *x);
/* A Read Request of n bytes of the peer's region answered: 1, 0 not. */
int cfi_alive(struct cfi *x);
/* Pumps until cond(x) or s seconds: 1 cond, 0 timed out, -1 stream ended. */
int cfi_wait(struct cfi *x, int (*cond)(struct cfi *), double s);
/* The peer must answer what was just sent with this Terminate and close. */
void cfi_expect_term(struct cfi *x, uint8_t layer, uint8_t etype, uint8_t code, const char *rule);
/* Until the peer closes (or s seconds): 1 closed, 0 not. */
int cfi_closes(struct cfi *x, double s);
/* "LAYER/ETYPE/CODE (names)" of a Terminate, into buf. */
const char *cfi_term_text(char *buf, size_t cap, uint8_t layer, uint8_t etype, uint8_t code);

int gen_conform_iwarp_main(int argc, char **argv);
/* The usage of `rocegen conform --transport iwarp` (also in `rocegen conform --help`). */
void cfi_usage(FILE *f);

#endif /* ROCEGEN_CONFORM_IWARP_H */
