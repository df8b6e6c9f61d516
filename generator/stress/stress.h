/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress.h — `rocegen stress`: many concurrent RC QPs against an adapter,
 * mixed operations, a seeded fault mix on the frames rocegen sends, every
 * byte checked, and the adapter's reaction times as distributions.
 *
 *   stress.c        the run: QP setup through the control protocol, the
 *                   event loop (a timer heap over rocegen's own lib/qp
 *                   engines), the workload, fault events and metrics
 *   stress_qp.c     one QP: setup, the workload, the callbacks of rocegen's
 *                   engine (faults, metrics, wire model), integrity checks
 *   stress_check.c  integrity (patterns, checksums, atomics model) and the
 *                   wire model behind counters_vs_wire
 *   stress_ref.c    the reference adapter: one lib/qp engine per QP behind
 *                   the rocetarget control protocol (target/ctl.h), on a
 *                   simulated clock (deterministic given the seed)
 *   stress_setup.c  QP setup on both sides, the workload, the end of a run
 *   stress_refload.c the reference adapter's `load`: its own workload loop
 *                   (the adapter as requester, target/load.h)
 *   stress_req.c    --role requester: rocegen's lib/qp responders, setup,
 *                   their callbacks (faults on responses, NAK/RNR times)
 *   stress_reqrun.c --role requester: input (lose, reaction times, WRITEs
 *                   checked as they execute), lstat polling, the end
 *   stress_tput.c   throughput per QP over time, Jain's index, --victim
 *   stress_pcap.c   evidence pcaps of failing QPs
 *   stress_report.c checks (verdicts), table, JSON, JUnit
 *   stress_main.c   options
 *
 * The adapter is reached only through struct cf_io (conform.h): a clock,
 * frames, and control lines.
 */
#ifndef ROCEGEN_STRESS_H
#define ROCEGEN_STRESS_H

#include <stdint.h>
#include <stdio.h>
#include "conform.h"

#define ST_MAX_QPS 16384
#define ST_MAX_EVENTS 32

enum st_op { ST_SEND = 0, ST_WRITE, ST_READ, ST_ATOMIC, ST_N_OPS };
extern const char *const st_op_names[ST_N_OPS];

/* fault kinds injected on the frames rocegen sends */
/* rnr (an RNR NAK instead of executing a SEND) and lose (an adapter request
 * rocegen discards on receipt, so that it NAKs or the adapter times out):
 * only with the adapter as requester */
enum st_fault { STF_DROP = 0, STF_DUP, STF_REORDER, STF_CORRUPT, STF_CE, STF_DELAY, STF_RNR,
		STF_LOSE, STF_EXACT, STF_N };
extern const char *const st_fault_names[STF_N];

/* an exact event: frame with PSN start+psn_off of QP qp, its iter-th transmission */
struct st_event {
	unsigned qp;
	uint32_t psn_off;
	unsigned iter;
	int kind;                    /* STF_DROP or STF_DUP */
	unsigned seen;
	int fired;
};

struct st_opts {
	unsigned qps, qd, mtu;
	unsigned ops;                /* bit mask of enum st_op */
	uint32_t size_min, size_max;
	uint64_t duration_ns;        /* 0: --messages */
	uint64_t messages;           /* per QP */
	uint64_t seed;
	uint32_t ppm[STF_EXACT];     /* per fault kind, parts per million of request frames */
	uint64_t delay_ns;
	struct st_event ev[ST_MAX_EVENTS];
	unsigned n_ev;
	uint8_t timeout;             /* local ACK timeout exponent of both sides */
	struct roce_eth_spec eth;    /* rocegen's MAC (src), the adapter's (dst) */
	struct roce_ip_spec ip;
	char our_gid[64];            /* rocegen's IPv4 address, for connect rgid= */
	int verbose, progress, is_ref;
	const char *pcap_dir;        /* evidence of failing QPs */
	const char *dev;             /* the adapter's device (open dev=), NULL: the first */
	int gid_index;
	int requester;               /* --role requester: the adapter posts (stress_req.c) */
	int victim;                  /* --victim: QP 0 alone for half the run, then beside the others */
	unsigned victim_qd, victim_ops;   /* the victim's own depth and op mask (0: as the others) */
	uint32_t victim_size;        /* the victim's message size (0: --sizes), may exceed size_max */
	uint64_t interval_ns;        /* --interval: throughput bins (0: a tenth of the run) */
	uint64_t cnp_gap_ns;         /* --cnp-gap-us: the least interval expected between CNPs of a QP */
	uint8_t min_rnr;             /* the RNR timer code rocegen's RNR NAKs carry */
	uint64_t limit_ns;           /* 0, or the run fails every QP not done this long after its start */
	/* `rocegen isolation` against a real adapter: */
	int nocheck;                 /* completions not checked against the adapter's memory one by one
				      * (no control round trip per message; a SEND QP then needs sink_recvs) */
	unsigned sink_recvs;         /* --victim: the receives of each attacker QP, a rocetarget sink
				      * (recv sink=1, target/ctl.h) reposting them itself; fewer than qd
				      * gives RNR NAKs (connect min_rnr=min_rnr); 0: qd, reposted by the checks */
	unsigned xmrs;               /* --victim: 4 KiB MRs of each attacker QP its WRITEs spread over
				      * (a multiple of qd; 0: none, the QP's own MR) */
	uint8_t rnr_retry;           /* --rnr-retry: RNR NAKs a requester retries in a row (7: without end),
				      * rocegen's own and the adapter's QPs */
};

/* a distribution of samples in ns */
struct st_dist {
	uint64_t *v;
	size_t n, cap;
};
void st_dist_add(struct st_dist *d, uint64_t ns);

/* the adapter as requester: STM_RETX is a response rocegen dropped → the
 * adapter's retransmission; STM_NAK_RESP rocegen's sequence NAK → the
 * retransmission of its PSN; STM_TIMEOUT the adapter's retransmission after
 * silence (from the last response it got); STM_RNR_WAIT rocegen's RNR NAK →
 * the retry; STM_CNP_PACING the interval between two CNPs of a QP with a
 * CE-marked request sent between them (under a CE storm: the NP's pacing) */
enum st_metric { STM_NAK_GEN = 0, STM_RETX, STM_CNP_GEN, STM_LAT_SEND, STM_LAT_WRITE, STM_LAT_READ,
		 STM_LAT_ATOMIC, STM_NAK_RESP, STM_TIMEOUT, STM_RNR_WAIT, STM_CNP_PACING, STM_N };
extern const char *const st_metric_names[STM_N];

/* counters the adapter reports vs what rocegen saw on the wire */
enum st_cnt { STC_DUP = 0, STC_OOS, STC_NAK, STC_CNP, STC_N };
extern const char *const st_cnt_names[STC_N];

#define ST_MAX_CHECKS 16
struct st_check {
	char name[40];
	enum cf_verdict v;
	char detail[256];
};

struct st_result {
	unsigned qps, qps_completed, qps_error;
	uint64_t messages, bytes, by_op[ST_N_OPS];
	uint64_t integrity_errors;
	char first_error[256];
	uint64_t faults[STF_N];
	struct st_dist m[STM_N];
	struct st_dist ctl_rtt;      /* control round trips of the checks (wall clock) */
	uint64_t adapter[STC_N], wire[STC_N];   /* counter deltas, and what the wire implies */
	int have_adapter[STC_N];
	uint64_t wire_episodes;      /* out-of-sequence episodes (one NAK each) */
	uint64_t path_loss;          /* NAKs behind the wire model's PSN: loss rocegen did not inject */
	char path_loss_qps[200];     /* the QPs with path loss, "qp N: n" each */
	/* timeouts no NAK or injected fault explains (stress_qp.c): episodes, the wire's
	 * duplicates among their resends, the packets after their first PSN */
	uint64_t tmo_episodes, tmo_dup, tmo_oos;
	char tmo_qps[200];           /* the QPs with such timeouts, "qp N: n" each */
	uint64_t path_tail_dup, path_tail_oos;   /* the counters' differences they explain */
	unsigned psn_wraps;          /* QPs whose PSN wrapped past 2^24 - 1 */
	/* rocegen's own go-back-N, by trigger (enum roce_qp_retx): episodes and packets */
	uint64_t retx_episodes[ROCE_RETX__COUNT], retx_pkts[ROCE_RETX__COUNT], req_pkts;
	char driver[32];             /* the counters' driver (counters driver=) */
	uint64_t sim_ns, wall_ns;    /* run time on the io clock and the wall clock */
	uint64_t cpu_ns;             /* CPU time of the run (rocegen and an in-process adapter) */
	double fairness;             /* Jain's index over bytes per QP */
	uint64_t timeout_ns, rnr_ns; /* requester role: the configured timeout, the RNR timer sent */
	struct st_tbin {             /* throughput per interval (stress_tput.c), bytes/s */
		double t, total, min, p50, max, jain;
	} *tp;
	unsigned n_tp;
	double tp_interval;          /* s */
	double victim_alone, victim_shared, attackers_shared;   /* bytes/s; victim_* < 0: no --victim */
	struct st_dist vlat[2];      /* the victim's message latencies alone, beside the attackers */
	double msg_rate;             /* messages per second of wall time */
	const char *clock;           /* "simulated" or "monotonic" */
	uint64_t clock_res_ns, clock_jitter_ns;
	struct st_check chk[ST_MAX_CHECKS];
	unsigned n_chk;
	unsigned failing_qp[64];     /* QPs with errors (evidence) */
	unsigned n_failing;
};

/* ---- the run (stress.c) ---- */
struct st_run;
int st_run(const struct st_opts *o, struct cf_io *io, struct st_result *res, FILE *progress);
void st_result_free(struct st_result *res);

/* ---- throughput over time, the victim (stress_tput.c) ---- */
void st_report_tput_table(FILE *f, const struct st_result *r);
void st_report_tput_json(FILE *f, const struct st_result *r);

/* ---- the adapter as requester (stress_req.c) ---- */
const char *st_role(const struct st_opts *o);   /* "responder" or "requester" */

/* ---- integrity and the wire model (stress_check.c) ---- */
/* byte j of the pattern of (seed, qp, msg) */
void st_pattern(uint64_t seed, unsigned qp, uint64_t msg, uint64_t from, uint8_t *buf, uint32_t len);
uint64_t st_sum(const uint8_t *b, size_t n);   /* = ctl_sum */

/* per QP wire model of the adapter's expected PSN */
#define ST_WIRE_RD 64                /* the last READ requests taken in order (their PSN spans) */
struct st_wire {
	uint32_t epsn;
	struct { uint32_t psn, span; } rd[ST_WIRE_RD];
	unsigned rd_h, rd_n;
	uint64_t dup, oos, episodes;  /* what the adapter should have seen */
	unsigned wraps;              /* times the expected PSN wrapped past 2^24 - 1 */
	int oos_latched;
};
/* A request frame rocegen put on the wire (p decoded, icrc_ok 0 for a corrupted one). */
void st_wire_req(struct st_wire *w, const struct roce_pkt *p, uint16_t mtu, int icrc_ok);
/* The request packets the model took in order with PSNs from psn up to epsn (a READ
 * request is one packet for all the PSNs of its responses). */
uint64_t st_wire_pkts_since(const struct st_wire *w, uint32_t psn);

/* ---- the reference adapter (stress_ref.c) ---- */
/* ST_REF_PLANTED: a planted anomaly for `rocegen search` (a QP-cache overflow
 * of a made-up adapter): with 24 or more QPs, every 61st full 1024-byte
 * request packet is lost on receipt — only a narrow corner of the workload
 * space (MTU 1024, messages over 1 KiB, many QPs) triggers it */
/* The congestion-control modes of `rocegen fingerprint` (the notification
 * point of DCQCN, as Lumina measured NICs differ): a CE-marked request gets
 * a CNP back, at most one per `cnp_us` per scope —
 *   cnp-qp    per QP (default 50 us), and a CNP with every sequence NAK
 *             (as Lumina saw ConnectX-5/6 do under slow_restart)
 *   cnp-ip    per IP pair (default 25 us), no CNP with a NAK
 *   cnp-port  per port: one pacing state for every peer (default 10 us),
 *             no CNP with a NAK
 *   no-cc     no CNP at all (the ECN mark is counted, nothing else: rxe)
 * As requesters the cnp-* modes are also a reaction point: each QP's
 * requests leave at most at 25 Gb/s, and every CNP received halves that
 * rate at once (DCQCN's first cut, alpha = 1; down to 1/64; no recovery is
 * modelled).  no-cc and the other modes send as fast as their window lets. */
/* ST_REF_QPCACHE (`qpcache:N`, SRNIC's connection-scalability curve): the
 * adapter keeps N QP contexts on chip, least recently used out; a request
 * to a QP outside holds the adapter REF_QPC_MISS_NS (a context fetch over
 * PCIe) before it answers anything, so throughput falls once the QPs in
 * use exceed N.  The engines are those of `good`. */
enum st_ref_mode { ST_REF_GOOD = 0, ST_REF_NAKSTORM, ST_REF_BITFLIP, ST_REF_PLANTED,
		   ST_REF_CNP_QP, ST_REF_CNP_IP, ST_REF_CNP_PORT, ST_REF_NO_CC, ST_REF_QPCACHE,
		   ST_REF_ISO_SHARED, ST_REF_ISO_FAIR, ST_REF_PATHLOSS, ST_REF_NORECV };
/* ST_REF_NORECV (`norecv`): a responder that never posts a receive (it takes
 * `recv` and posts nothing), so every SEND is answered with an RNR NAK; the
 * requester's --rnr-retry decides whether the QP ends in error. */
struct st_ref;
struct st_ref *st_ref_new(enum st_ref_mode mode, const uint8_t dut_mac[6], const uint8_t dut_ip4[4], const uint8_t peer_mac[6],
			  const uint8_t peer_ip4[4]);
void st_ref_io(struct st_ref *r, struct cf_io *io);
/* The CNP interval of the cnp-* modes, ns (before the first QP; 0: the mode's default). */
void st_ref_set_cnp_gap(struct st_ref *r, uint64_t ns);
uint64_t st_ref_cnp_gap(const struct st_ref *r);
/* qpcache: the QP contexts it holds (1..ST_MAX_QPS) */
void st_ref_set_qpcache(struct st_ref *r, unsigned n);
/* ST_REF_ISO_SHARED / ST_REF_ISO_FAIR (`rocegen isolation`, Husky's question): an adapter
 * whose request processing costs time — REF_ISO_PKT_NS per request packet plus its bytes
 * at 100 Gb/s, a QP context fetch on a miss of its QP_ISO_QPC-context LRU, a stall after
 * each RNR NAK it sends.  iso-shared: one processing stage and one context cache for every
 * QP (attackers delay the victim); iso-fair: a stage per QP and the victim (QP 0) in a cache
 * partition of its own (the attackers' load stays theirs).
 * st_ref_set_iso_rnr: the attackers (QPs other than 0) answer rnr_ppm of their in-order
 * SENDs with an RNR NAK, as receivers that post too few receives. */
void st_ref_set_iso_rnr(struct st_ref *r, uint32_t rnr_ppm);
/* ST_REF_PATHLOSS (`pathloss`): the path before the adapter loses every REF_PATH_DROP-th
 * request packet; rocegen is not told (it must find the loss itself).  The number lost,
 * for the tests: */
uint64_t st_ref_path_dropped(const struct st_ref *r);
/* The reference adapter at 192.0.2.2 with rocegen at 192.0.2.1, its io in *io and
 * the addresses in o (o->is_ref set); NULL without memory. */
struct st_ref *st_ref_open(int mode, struct st_opts *o, struct cf_io *io);
/* A real adapter: the wire on a->iface, rocetarget on a->target (conform_live.c); its
 * io in *io, the addresses in o; NULL after saying why (stress_main.c). */
struct cf_live *st_live_open(const struct cf_live_args *a, struct st_opts *o, struct cf_io *io);
void st_ref_free(struct st_ref *r);

/* ---- verdicts and reports (stress_report.c) ---- */
struct st_summary {
	uint64_t n, p50, p99, max;   /* ns */
};
void st_summarize(struct st_dist *d, struct st_summary *s);
void st_checks(const struct st_opts *o, struct st_result *r, int run_rc);
int st_any_failed(const struct st_result *r);
void st_report_table(FILE *f, const struct st_opts *o, struct st_result *r);
void st_report_json(FILE *f, const struct st_opts *o, struct st_result *r);
int st_report_junit(const char *path, const struct st_result *r);   /* 0 or -1 (said why) */

int gen_stress_main(int argc, char **argv);

#endif /* ROCEGEN_STRESS_H */
