/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform.h — `rocegen conform`: a catalogue of RC transport conformance
 * cases run against an adapter (the device under test, DUT).
 *
 *   conform.c        options, the run loop, the live wire (AF_PACKET + pcap)
 *                    and the TCP control channel to rocetarget, reports
 *                    (table, JSON, JUnit), evidence pcaps
 *   conform_cases.c  the cases: each sets up its own connection through the
 *                    control channel, sends hand-made frames (or answers the
 *                    DUT's requests by hand) and judges what comes back
 *   conform_ref.c    the reference adapter: a lib/qp engine behind the same
 *                    control protocol on a simulated clock, so the whole
 *                    catalogue runs in-process (make check), conforming or
 *                    deliberately not (--reference nakstorm|retry7)
 *
 * A case sees only struct cf_io: a clock, frames to and from the DUT, and
 * control requests.  Everything it judges is what came back on the wire
 * (timestamps included) and what the DUT's host reported.
 */
#ifndef ROCEGEN_CONFORM_H
#define ROCEGEN_CONFORM_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "roce.h"

struct cf_io {
	uint64_t (*now)(void *ctx);                                /* ns */
	int (*send)(void *ctx, const uint8_t *f, uint32_t len);    /* to the DUT; <0 error */
	/* The next frame from the DUT: 1 (ts in ns, the now() clock), 0 when
	 * deadline (now() clock) passed, -1 error. */
	int (*recv)(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *ts,
		    uint64_t deadline);
	/* One control request (a line without '\n'); 0 with rep "ok …", -1 with
	 * rep "err …" or the transport's error. */
	int (*ctl)(void *ctx, const char *req, char *rep, size_t cap);
	void *ctx;
};

enum cf_verdict { CF_PASS = 0, CF_FAIL, CF_UNSUPPORTED, CF_ERROR };
const char *cf_verdict_name(enum cf_verdict v);
void cf_json_str(FILE *f, const char *s);
void cf_xml_str(FILE *f, const char *s);

#define CF_MAX_METRICS 8
struct cf_metric {
	char name[32];
	double value;
	char unit[8];
};

struct cf_result {
	enum cf_verdict v;
	int judged;                  /* a verdict was set */
	char detail[768];
	struct cf_metric m[CF_MAX_METRICS];
	unsigned n_m;
	uint64_t dur_ns;
	char pcap[512];
};

struct cf_frame {
	uint8_t d[ROCE_QP_FRAME_MAX + 64];
	uint32_t len;
	uint64_t ts;
	struct roce_pkt p;
};

/* How a case wants its connection */
struct cf_conn {
	uint16_t mtu;                /* 0: min(1024, the DUT's active MTU) */
	uint32_t dut_psn;            /* the DUT's first request PSN */
	uint32_t our_psn;            /* ours (the DUT's expected PSN) */
	uint8_t timeout, retry, rnr_retry, min_rnr;
	uint32_t n_recv, recv_len;   /* receives to post on the DUT */
	const char *access;          /* MR remote access letters; NULL: "wra" */
};

/* Memory layout of the DUT's one MR (offsets) */
#define CF_MR_LEN      (256u * 1024)
#define CF_OFF_REMOTE  0u               /* what our requests target */
#define CF_OFF_RECV    (128u * 1024)    /* receive buffers */
#define CF_OFF_LOCAL   (192u * 1024)    /* the DUT's own request buffers */

struct cf {
	struct cf_io io;
	/* addressing */
	struct roce_eth_spec eth;    /* ours as src, the DUT's as dst */
	struct roce_ip_spec ip;
	char our_gid[64];            /* IPv4 text (the DUT maps it) */
	uint8_t src2[4];             /* --source2: a second address of ours (another IP pair) */
	struct cf_io fpio;           /* io recording into the evidence pcap (cf_record_io) */
	int have_src2;
	char dev[64];
	int gid_index;
	int dut_mtu;                 /* active MTU the DUT reported */
	int is_reference;
	/* output */
	const char *pcap_dir;
	int verbose;
	/* the case running */
	const char *case_name;
	struct cf_result r;
	pcap_t *pd;
	pcap_dumper_t *dump;
	/* its connection */
	unsigned dut_qp, dut_mr;
	uint32_t dut_qpn, rkey;
	uint64_t va;
	uint32_t our_qpn;
	uint16_t mtu;
	struct roce_qp *qp;          /* our engine: addressing, and a normal peer when wanted */
	void *qp_mem;
	/* the last frame from the DUT (cf_next) */
	struct cf_frame rx;
};

struct cf_case {
	const char *name;
	const char *role;            /* "responder" or "requester": the DUT's role */
	const char *summary;
	void (*run)(struct cf *c);
};
extern const struct cf_case cf_cases[];
extern const unsigned cf_n_cases;

/* ---- helpers for cases (conform.c) ---- */
void cf_pass(struct cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cf_fail(struct cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cf_unsup(struct cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cf_error(struct cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cf_metric(struct cf *c, const char *name, double value, const char *unit);

/* A control request from a printf format: 0 (reply in rep), or -1 after
 * setting the case to ERROR. */
int cf_ctl(struct cf *c, char *rep, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* reset, mr, qp, our engine, connect, receives.  0 or -1 (ERROR set). */
int cf_connect(struct cf *c, const struct cf_conn *k);
/* A spec addressed to the DUT's QP with opcode and PSN (AckReq 0, pad derived). */
void cf_spec(struct cf *c, struct roce_frame_spec *s, uint8_t opcode, uint32_t psn);
/* An io that is c's own with every frame also in the case's evidence pcap
 * (for a case that drives the wire through another module: fp_probe.c). */
void cf_record_io(struct cf *c, struct cf_io *io);
int cf_send(struct cf *c, const struct roce_frame_spec *s);
/* Waits for the next RC/CNP frame addressed to our QPN until deadline (ns
 * on the io clock); 1 with c->rx, 0 on timeout, -1 error. */
int cf_next(struct cf *c, uint64_t deadline);
uint64_t cf_now(struct cf *c);
/* DUT memory (through the control channel); 0 or -1. */
int cf_rd(struct cf *c, uint32_t off, uint8_t *buf, uint32_t len);
int cf_wr(struct cf *c, uint32_t off, const uint8_t *buf, uint32_t len);

struct cf_wc {
	uint64_t wr;
	char status[32];
	char op[16];
	uint32_t len;
};
/* Polls the DUT's CQ once; the number of completions (<= max) or -1. */
int cf_poll(struct cf *c, struct cf_wc *wc, int max);
/* QP state text ("rts", "err", …) into buf; 0 or -1. */
int cf_state(struct cf *c, char *buf, size_t cap);

/* ---- the reference adapter (conform_ref.c) ---- */
enum cf_ref_mode { CF_REF_GOOD = 0, CF_REF_NAKSTORM, CF_REF_RETRY7 };
/* --reference cnp-qp|cnp-ip|cnp-port|no-cc: the stress reference adapter
 * (stress_ref.c, many QPs, congestion-control modes), mode CF_REF_STRESS + its
 * enum st_ref_mode, for the congestion cases */
#define CF_REF_STRESS 16
struct cf_ref;
/* A reference adapter at dut_eth.src/dut_ip.src talking to peer_eth.src/peer_ip.src. */
struct cf_ref *cf_ref_new(enum cf_ref_mode mode, const uint8_t dut_mac[6], const uint8_t dut_ip4[4],
			  const uint8_t peer_mac[6], const uint8_t peer_ip4[4]);
void cf_ref_io(struct cf_ref *r, struct cf_io *io);
void cf_ref_free(struct cf_ref *r);
/* The reply to `poll` (target/ctl.h) from a ring of completions (ring[cap],
 * *head the oldest, *n held): at most max taken, "ok n=… wc=…" in rep. */
void cf_ref_poll_reply(const struct roce_wc *ring, unsigned cap, unsigned *head, unsigned *n, unsigned max,
		       char *rep, size_t repcap);

/* ---- a real adapter: the wire on IFACE, rocetarget on --target (conform_live.c) ---- */
struct cf_live_args {
	const char *iface, *peer, *target, *src, *dmac;
	const char *key;    /* --key FILE: the key rocetarget's challenge is answered with */
	const char *cmd;    /* the subcommand, for messages ("conform", "stress") */
	int verbose;
};
struct cf_live;
/* Resolves addresses, opens the wire and connects to rocetarget; sets c->io.
 * NULL after printing why. */
struct cf_live *cf_live_open(struct cf *c, const struct cf_live_args *a);
void cf_live_close(struct cf_live *l);   /* NULL is fine */
/* rocetarget's HOST:PORT: --target, or --peer at CTL_PORT; in buf */
const char *cf_live_target(const struct cf_live_args *a, char *buf, size_t cap);
/* getopt's ch for the options that name a real adapter, as search and
 * isolation spell them ('i' --interface, 'P' --peer, 'T' --target, 'K' --key,
 * 'S' --src, 'M' --dmac into a; 'D' --device into *dev): 1 when ch was one. */
int cf_live_opt(struct cf_live_args *a, const char **dev, int ch, const char *arg);
/* The control channel failed (no reply within 10 s, closed, a write failed):
 * what went wrong after is rocetarget's reachability, not the adapter's answer. */
int cf_live_broken(const struct cf_live *l);

/* ---- the run and its reports (conform_report.c) ---- */
#define CF_MAX_RUN 64
struct cf_run {
	struct cf_result res[CF_MAX_RUN];
	const struct cf_case *ran[CF_MAX_RUN];
	unsigned n;
	unsigned cnt[4];             /* by enum cf_verdict */
	unsigned write_errors;       /* evidence pcaps that could not be written */
};
void cf_report_line(FILE *f, const struct cf_case *k, const struct cf_result *r);
void cf_report_totals(FILE *f, const struct cf_run *run);
void cf_report_json(FILE *f, const char *target, const struct cf_run *run);
int cf_report_junit(const char *path, const struct cf_run *run);   /* 0 or -1 (said why) */

/* Frees the case's engine (our QP) after a case. */
void cf_free_engine(struct cf *c);

int gen_conform_main(int argc, char **argv);

#endif /* ROCEGEN_CONFORM_H */
