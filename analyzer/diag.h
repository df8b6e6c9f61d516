/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag.h — rocetop's diagnosis layer: verdicts over what the flow engine
 * saw, each with a fixed name, a severity, a subject (a connection, flow,
 * priority or MAC), the first and last frame numbers involved, its
 * evidence as numbers and one sentence.  rocetop(8) "DIAGNOSIS" has every
 * rule with its thresholds and its limits.
 *
 * Two halves:
 *   - evidence, gathered per engine on the per-frame path (diag_request(),
 *     diag_response(), diag_cm(), diag_pause(): thin hooks in flow.c).  Each
 *     engine (each --threads worker) owns its struct diag; nothing is
 *     shared.  A flow's small per-direction facts (class, MAC, rate bins)
 *     sit in an array parallel to the flow table; what only a troubled
 *     connection needs (waits, retries, CNPs, NAKs, holes) in a record made
 *     at its first such event, kept when the flow is evicted;
 *   - verdicts, made at report time by walking a table of rules over that
 *     evidence (diag_evaluate()), over one engine or the parts of a merged
 *     view (engmerge.h).
 */
#ifndef ROCETOP_DIAG_H
#define ROCETOP_DIAG_H

#include <stddef.h>
#include <stdint.h>

struct engine;
struct flow;
struct roce_pkt;
struct roce_seq_verdict;

enum diag_id {
	DV_TIMEOUT_MISMATCH = 0,
	DV_TIMEOUT_BACKOFF,
	DV_RNR_WAIT_MISMATCH,
	DV_RETRY_EXHAUSTED,
	DV_PFC_STORM,
	DV_PAUSE_FROM_HOST,
	DV_PFC_ON_IDLE_PRIORITY,
	DV_ROCE_ON_LOSSY_PRIORITY,
	DV_CLASS_ASYMMETRY,
	DV_NOT_ECT,
	DV_CNP_IGNORED,
	DV_CNP_WITH_NAK,
	DV_FABRIC_LOSS,
	DV_SLOW_RECEIVER,
	DV_NIC_DROP,
	DV_CAPTURE_LOSS,
	DV__COUNT
};
const char *diag_name(int id);          /* "timeout_mismatch", … */

enum diag_severity { DS_INFO = 0, DS_WARNING, DS_ERROR };
const char *diag_severity_name(int s);  /* "info", "warning", "error" */
/* The severity verdict id is raised with (a rule may lower it: a
 * timeout_mismatch against an unknown timeout is info). */
int diag_rule_severity(int id);

enum diag_subject { DSUB_CONN = 0, DSUB_FLOW, DSUB_PRIORITY, DSUB_MAC, DSUB_CAPTURE };

/* Thresholds (rocetop options). */
struct diag_cfg {
	double ack_timeout_us;    /* --ack-timeout: the local ACK timeout when no CM REQ says (0: unknown) */
	double tolerance;         /* --diag-tolerance: timer waits within ±this fraction match (0.25) */
	double backoff_factor;    /* each timeout wait ≥ this × the last is a backoff (1.5) */
	uint64_t pfc_watchdog_ns; /* --pfc-watchdog: continuous pause that is a storm (100 ms) */
	uint64_t cnp_react_ns;    /* --cnp-reaction: the sender must slow within this (1 ms) */
	uint64_t clear_ns;        /* live: a verdict with no new evidence for this long is past (10 s) */
	/* a part of --threads (threads.c): each CNP's time kept per CNP
	 * source, up to DIAG_CNP_TIMES per engine, so that a merged view
	 * compares CNPs to IP pairs of different parts (diag_pacing()) */
	int cnp_times;
};
#define DIAG_CNP_TIMES 262144u
void diag_cfg_default(struct diag_cfg *c);
/* --ack-timeout: an exponent 1..31 (4.096 us x 2^t, as perftest -u and
 * rdma_cm take it) or a time with a unit (us, ms, s).  0, or -1. */
int diag_parse_ack_timeout(const char *s, double *us);

/* The option --NAME with value v (ack-timeout, pfc-watchdog, cnp-reaction,
 * diag-tolerance): 0, 2 after a one-line error on stderr, 1 when NAME is
 * not one of them. */
int diag_option(const char *name, const char *v, struct diag_cfg *c);

struct diag;
struct diag *diag_new(const struct diag_cfg *cfg);
void diag_free(struct diag *d);
/* Memory held, bytes. */
size_t diag_bytes(const struct diag *d);

/* ---- the per-frame hooks (flow.c) ---- */
/* A request of flow f (v: its seq verdict). */
void diag_request(struct engine *e, struct flow *f, const struct roce_pkt *p, uint64_t ts, uint32_t wirelen,
		  const struct roce_seq_verdict *v);
/* A response or CNP arriving on flow r for the requests of flow t. */
void diag_response(struct engine *e, struct flow *t, struct flow *r, const struct roce_pkt *p, uint64_t ts,
		   const struct roce_seq_verdict *v);
/* A CM REQ/REP pair: fa carries the REQ sender's requests, fb the other
 * side's; the REQ's local ACK timeout exponent, retry and RNR retry
 * counts, and the REP's RNR retry count. */
void diag_cm(struct engine *e, struct flow *fa, struct flow *fb, unsigned ack_t, unsigned retry,
	     unsigned rnr_retry_req, unsigned rnr_retry_rep);
/* A PFC (prio 0..7) or 802.3x PAUSE (prio 8) request of quanta from port
 * index port_idx at ts, lasting dur_ns (0: XON). */
void diag_pause(struct engine *e, uint32_t port_idx, unsigned prio, uint64_t ts, uint16_t quanta, uint64_t dur_ns);

/* ---- verdicts ---- */
#define DIAG_EV_MAX 7
#define DIAG_LIST_MAX 16

enum { DE_NUM = 0, DE_NULL, DE_STR, DE_LIST };
struct diag_ev {
	const char *key;
	uint8_t kind;             /* DE_* */
	uint8_t n;                /* DE_LIST: entries */
	double num;
	char str[144];
	double list[DIAG_LIST_MAX];
};

struct diag_verdict {
	int id;                   /* enum diag_id */
	int severity;
	int subject_kind;         /* enum diag_subject */
	char subject[200];
	/* where the TUI jumps: the subject's flow (hosts' addresses, DestQP),
	 * priority or MAC */
	uint8_t src[16], dst[16];
	uint32_t qpn;
	int priority;             /* -1: none */
	uint8_t mac[6];
	uint64_t first_frame, last_frame;
	uint64_t last_ns;         /* the latest evidence */
	int active;               /* raised now (live: evidence within clear_ns, or still going on) */
	unsigned nev;
	struct diag_ev ev[DIAG_EV_MAX];
	char text[384];
};

struct diag_list {
	struct diag_verdict *v;
	size_t n, cap;
};

/* What the engine does not hold. */
struct diag_input {
	uint64_t now_ns;          /* the capture's last frame (replay) or the clock (live) */
	int drops_valid;          /* live capture statistics */
	uint64_t dropped;         /* rocetop's and the kernel's drops (ring, socket, interface) */
	int nic_valid;
	uint64_t nic_dropped;     /* the NIC's discards since the capture opened (nicdrop.h) */
	const char *nic_counters;
	/* the device view (--device, nicdrop_devices()): what the NICs counted
	 * as discarded or dropped for want of a receive buffer since its first
	 * read, by the counters' meanings (devmon_meaning) */
	int dev_valid;
	uint64_t dev_discards, dev_out_of_buffer;
	char dev_counters[144];   /* "mlx5_0: rx_discards_phy,out_of_buffer" */
	char dev_names[72];       /* the devices whose counts rose: "mlx5_0, bnxt_re0" */
};

/* Verdicts of e (a single engine or a merged view), most severe first.
 * 0, or -1 when out of memory.  diag_list_free() frees them. */
int diag_evaluate(const struct engine *e, const struct diag_input *in, struct diag_list *out);
void diag_list_free(struct diag_list *l);
/* "A -> B: text" for one-line output */
const char *diag_ev_str(const struct diag_ev *ev, char *buf, size_t cap);

/* CNP pacing (diag_pacing.c): per host that sends CNPs, the least
 * intervals between consecutive CNPs to one QP, to different QPs of one IP
 * pair and to different IP pairs (ns + 1; 0: none seen), and what they say
 * of its pacer: "qp", "ip_pair", "port", "qp_or_ip_pair", "qp_or_port",
 * "ip_pair_or_port" or "unknown" (rocetop(8) DIAGNOSIS). */
struct diag_pacing {
	uint8_t addr[16];
	char source[64];
	uint64_t cnps;
	uint32_t qps, ip_pairs, parts;
	uint64_t qp_min_ns, xqp_min_ns, xpair_min_ns;
	/* a merged view: CNPs to pairs of different parts compared only up to
	 * a part's DIAG_CNP_TIMES (or not at all): "port" cannot be told */
	int cross_cut;
	const char *pacing;
};
/* The CNP sources of e (a single engine or a merged view), tol as
 * --diag-tolerance; 0, or -1 when out of memory.  free(*out). */
int diag_pacing(const struct engine *e, double tol, struct diag_pacing **out, size_t *n);
const struct diag_pacing *diag_pacing_find(const struct diag_pacing *v, size_t n, const uint8_t *addr);
/* "10.0.0.2: 9 CNPs to 3 QPs of 2 IP pairs; least interval: to one QP
 * 50.0 us, QPs of one pair 50.0 us, pairs none; pacing port" (-b, the TUI) */
const char *diag_pacing_str(const struct diag_pacing *p, char *buf, size_t cap);
/* The tolerance e's diagnosis uses (its --diag-tolerance). */
double diag_tolerance(const struct engine *e);

#endif
