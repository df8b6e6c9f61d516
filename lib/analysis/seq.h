/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seq.h — libroce: RC sequence analysis, packet by packet (IBTA vol. 1
 * 9.7 "reliable service", C9-xx responder and requester rules).
 *
 * One struct roce_seq_dir models one direction of a reliable connection:
 * the PSN space of one requester's requests (SEND, WRITE, READ request,
 * ATOMIC, FLUSH, ATOMIC WRITE) and the responses that answer them (ACK and
 * NAK, READ responses, ATOMIC ACK), which travel the other way with the
 * requester's PSNs and DestQP = the requester's QPN.  A CNP whose DestQP is
 * the requester's QPN slows that requester and belongs here too.
 *
 *   requester A (QP QA)                         responder B (QP QB)
 *     requests  A→B  DestQP=QB  PSNs of A's space   ──▶  roce_seq_request(dir_A)
 *     responses B→A  DestQP=QA  PSNs of A's space   ◀──  roce_seq_response(dir_A)
 *     CNPs      B→A  DestQP=QA  (slow A down)       ◀──  roce_seq_response(dir_A)
 *
 * A connection is two directions (struct roce_seq_conn): a packet sent by
 * side s is a request of d[s] or a response/CNP for d[!s]; roce_seq_update()
 * does that dispatch.  Finding the connection and the side is the caller's
 * job (CM REQ/REP name both QPNs; without CM, responses are paired with the
 * requests whose PSNs they answer: roce_seq_covers()).
 *
 * Two views are kept side by side:
 *   - the responder's, exactly as an RC responder counts (Linux rxe's
 *     check_psn): an expected PSN that advances only on an in-order request
 *     (by 1, or for a READ request by the number of response packets,
 *     max(1, ceil(DMA length / path MTU))); requests before it are
 *     duplicate_request, beyond it out_of_sequence, and the first of a run
 *     of the latter is an out_of_seq_request (the responder sends one
 *     PSN-sequence-error NAK per run; an in-order request ends the run);
 *   - the wire's: a request PSN seen before in this direction is a
 *     retransmission; one never seen but below the highest is a late
 *     (out-of-order) arrival filling a hole; one beyond the highest + 1
 *     opens a hole (psn_gap).  Retransmissions are grouped into episodes,
 *     each with its trigger: a PSN-sequence-error NAK, an implied NAK (a
 *     gap in READ responses), an RNR NAK, or silence (a timeout: the gap
 *     and the local ACK timeout exponent it implies are reported).
 *
 * The path MTU (for READ accounting) comes from, strongest first: payloads
 * of FIRST/MIDDLE READ responses or requests (they are exactly one MTU), the
 * CM REQ (roce_seq_set_pmtu), the PSN of the request that follows a READ
 * request (which tells how many PSNs the READ took), and last the
 * configured default.
 *
 * Memory: struct roce_seq_dir is small and fixed (see ROCE_SEQ_DIR_SIZE
 * test in the unit tests).  What only a troubled direction needs (holes,
 * pending triggers, anomaly counters) lives in a struct roce_seq_anom that
 * the caller hands over when asked: pass a spare block in *spare; when the
 * direction needs one and has none, it takes it and sets *spare = NULL, and
 * the caller supplies a fresh one before the next call.  A caller that does
 * not care attaches one at init.  The library never allocates.
 *
 * Wireshark-style callers visit frames in capture order on the first pass
 * and must keep the verdict of each frame for later passes.
 */
#ifndef ROCE_SEQ_H
#define ROCE_SEQ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_pkt;

#define ROCE_SEQ_HOLES 8         /* PSN holes tracked at once */
#define ROCE_SEQ_RLOG 32         /* requests remembered for RNR NAK re-judging */

/* Retransmission episode triggers */
enum roce_seq_trigger {
	ROCE_SEQ_TRIG_NAK = 0,       /* after a PSN-sequence-error NAK */
	ROCE_SEQ_TRIG_IMPLIED,       /* after a READ response gap (implied NAK) */
	ROCE_SEQ_TRIG_RNR,           /* after an RNR NAK */
	ROCE_SEQ_TRIG_TIMEOUT,       /* after silence */
	ROCE_SEQ_TRIG_OTHER,         /* none of those: a copy made by the network */
	ROCE_SEQ_TRIG__COUNT
};
const char *roce_seq_trigger_name(int trig); /* "nak", "implied_nak", "rnr", "timeout", "other" */

/* Silence that counts as a timeout: shorter gaps are not local ACK timeouts
 * (4.096 us x 2^8 is the smallest timeout Linux rxe and common NICs use). */
#define ROCE_SEQ_TIMEOUT_MIN_US 1000

/* Where the path MTU came from, weakest first */
enum roce_seq_pmtu_src {
	ROCE_SEQ_PMTU_CONFIG = 0,
	ROCE_SEQ_PMTU_INFERRED,      /* from the PSN after a READ request */
	ROCE_SEQ_PMTU_CM,            /* CM REQ path MTU */
	ROCE_SEQ_PMTU_PAYLOAD,       /* a FIRST/MIDDLE request or READ response payload */
};
const char *roce_seq_pmtu_src_name(int src); /* "configured", "inferred", "cm", "payload" */

/* Per-packet verdict flags */
enum roce_seq_flag {
	ROCE_SEQ_V_REQUEST = 1u << 0,      /* a request of this PSN space */
	ROCE_SEQ_V_RESPONSE = 1u << 1,     /* ACK/NAK, READ response, ATOMIC ACK */
	ROCE_SEQ_V_CNP = 1u << 2,
	ROCE_SEQ_V_IN_ORDER = 1u << 3,     /* the expected PSN: the responder takes it */
	ROCE_SEQ_V_DUPLICATE = 1u << 4,    /* before the expected PSN (duplicate_request) */
	ROCE_SEQ_V_OUT_OF_SEQ = 1u << 5,   /* beyond the expected PSN (out_of_sequence) */
	ROCE_SEQ_V_OOS_START = 1u << 6,    /* first of such a run (out_of_seq_request): NAK due */
	ROCE_SEQ_V_RETRANS = 1u << 7,      /* PSN already seen in this direction */
	ROCE_SEQ_V_EPISODE = 1u << 8,      /* starts a retransmission episode (v->trigger) */
	ROCE_SEQ_V_OUT_OF_ORDER = 1u << 9, /* never seen, below the highest: fills a hole */
	ROCE_SEQ_V_PSN_GAP = 1u << 10,     /* v->missing PSNs skipped before this one */
	ROCE_SEQ_V_ACK = 1u << 11,         /* positive acknowledgement (ACK, ATOMIC ACK) */
	ROCE_SEQ_V_NAK = 1u << 12,         /* v->nak_code */
	ROCE_SEQ_V_RNR_NAK = 1u << 13,     /* v->rnr_timer, v->rnr_us */
	ROCE_SEQ_V_DUP_ACK = 1u << 14,     /* ACK for nothing new */
	ROCE_SEQ_V_IMPLIED_NAK = 1u << 15, /* READ response PSN jumped (v->missing lost) */
	ROCE_SEQ_V_RTT = 1u << 16,         /* v->rtt_ns: request -> its ACK (set by rtt.h) */
	ROCE_SEQ_V_READ_RTT = 1u << 17,    /* v->rtt_ns: READ request -> first response (rtt.h) */
	ROCE_SEQ_V_ECN_CE = 1u << 18,      /* IP ECN field = CE */
	ROCE_SEQ_V_ICRC_BAD = 1u << 19,    /* the responder drops it: not analysed further */
	ROCE_SEQ_V_PMTU = 1u << 20,        /* the path MTU estimate changed */
	ROCE_SEQ_V_UNSOLICITED = 1u << 21, /* response to a PSN never requested */
	ROCE_SEQ_V_REJUDGED = 1u << 22,    /* RNR NAK: earlier requests judged again, see
					    * roce_seq_rejudged() */
};

struct roce_seq_verdict {
	uint32_t flags;            /* ROCE_SEQ_V_* */
	uint32_t expected_psn;     /* requests: the responder's expected PSN before this one */
	uint32_t missing;          /* PSN_GAP / IMPLIED_NAK: PSNs skipped */
	uint32_t rtt_us;           /* RTT / READ_RTT (rtt_ns / 1000, saturated) */
	uint32_t acked_psn;        /* RTT: the request PSN it was measured from */
	uint32_t gap_us;           /* EPISODE with TIMEOUT: the silence before it */
	uint32_t rnr_us;           /* RNR_NAK: timer in microseconds */
	uint32_t req_id;           /* requests: this request's id, its ordinal among the
				    * direction's requests (d->requests after it: 1, 2, ..;
				    * 0 for a bad-ICRC one), for roce_seq_rejudged() */
	uint8_t nak_code;          /* NAK: enum roce_nak_code */
	uint8_t rnr_timer;         /* RNR_NAK: timer code 0..31 */
	uint8_t trigger;           /* EPISODE: enum roce_seq_trigger */
	int8_t timeout_exp;        /* EPISODE with TIMEOUT: round(log2(gap / 4.096 us)) */
	uint64_t rtt_ns;           /* RTT / READ_RTT, from roce_rtt_packet() */
};

/* A direction's round-trip times, exact (lib/analysis/rtt.h fills them). */
struct roce_rtt_stat {
	uint64_t sum_ns;
	uint64_t min_ns, max_ns;   /* valid when n > 0 */
	uint32_t n;                /* samples */
	uint32_t pad;
};

/* What only a troubled direction needs. */
struct roce_seq_anom {
	uint32_t hole[ROCE_SEQ_HOLES];   /* psn << 8 | length (1..255); 0 = free */
	uint32_t pend, pend2;            /* pending triggers, latest first: (kind + 1) << 24 | psn */
	uint32_t recov;                  /* recovery watch: count << 24 | next PSN */
	uint32_t recov_first;            /* its first PSN */
	uint32_t recov_end;              /* highest + 1 when it started */
	uint32_t rnr_timers;             /* bitmap of RNR timer codes seen */
	/* the last requests as the responder judged them (psn << 8 | span << 2
	 * | class), to judge them again when an RNR NAK shows the responder
	 * did not take one of them */
	uint32_t rlog[ROCE_SEQ_RLOG];
	uint8_t rlog_n, rlog_head;
	/* what the last RNR NAK re-judged (roce_seq_rejudged) */
	uint32_t rj_id;                  /* the first re-judged request's id */
	uint32_t rj_n;                   /* count << 2 | RJ_* mode (private) */
	uint32_t rj_psn;                 /* the RNR NAK's PSN */
	/* counters (all start at 0) */
	uint32_t duplicate_request;
	uint32_t out_of_sequence;
	uint32_t out_of_seq_request;
	uint32_t retransmissions;
	uint32_t episodes[ROCE_SEQ_TRIG__COUNT];
	uint32_t out_of_order;
	uint32_t psn_gaps;
	uint32_t missing_closed;         /* PSNs of holes given up on (see roce_seq_missing) */
	uint32_t go_back_n;              /* NAK-driven recoveries that resent seen PSNs */
	uint32_t selective;              /* NAK-driven recoveries that resent only the hole */
	uint32_t nak_seq_err;
	uint32_t rnr_nak;
	uint32_t implied_nak;
	uint32_t dup_acks;
	uint32_t unsolicited;
	uint32_t timeout_gap_max_us;
	uint16_t nak_invalid_request;
	uint16_t nak_remote_access;
	uint16_t nak_remote_op;
	uint16_t nak_other;
};

struct roce_seq_dir {
	uint32_t epsn;             /* responder's expected PSN */
	uint32_t next;             /* highest request PSN seen + its PSN count */
	uint32_t state;            /* private bits, path MTU code and source */
	uint32_t last_us;          /* last packet of this PSN space (us, mod 2^32) */
	uint32_t read_psn;         /* last in-order READ request, for MTU inference */
	uint32_t read_len;
	uint32_t resp_next;        /* next READ response PSN expected */
	uint32_t last_ack;         /* highest PSN positively acknowledged */
	uint32_t msn;              /* last MSN the responder sent */
	uint32_t rtt_id;           /* roce_rtt's name for this direction, 0 = none yet */
	uint32_t rtt_low;          /* oldest request PSN that may be outstanding there */
	/* counters */
	uint32_t requests;         /* request packets (bad ICRC excluded) */
	uint32_t responses;        /* response packets */
	uint32_t acks;             /* positive ACK / ATOMIC ACK packets */
	uint32_t ecn_ce;           /* CE-marked packets of this PSN space */
	uint32_t cnp;              /* CNPs slowing this requester */
	uint32_t icrc_bad;
	struct roce_rtt_stat rtt;      /* request -> its ACK / ATOMIC ACK (rtt.h) */
	struct roce_rtt_stat read_rtt; /* READ request -> first READ response */
	struct roce_seq_anom *x;   /* NULL until the first anomaly */
};

struct roce_seq_conn {
	struct roce_seq_dir d[2];
};

/* Path MTU codes: IBTA enum 1=256, 2=512, 3=1024, 4=2048, 5=4096 */
static inline uint32_t roce_seq_mtu_bytes(unsigned code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}
/* Code of an MTU in bytes (256..4096, exact), else 0. */
unsigned roce_seq_mtu_code(uint32_t bytes);

/* pmtu_default: bytes (256..4096) used until something better is known. */
void roce_seq_init(struct roce_seq_dir *d, uint32_t pmtu_default, struct roce_seq_anom *x);
void roce_seq_conn_init(struct roce_seq_conn *c, uint32_t pmtu_default);
/* The requester's starting PSN; ignored once requests were seen.  A CM
 * REQ's starting PSN is the one the passive side sends from, the REP's the
 * active side's (checked on lab/roce_rping.pcap: REQ 0x644726, the passive
 * side's first READ carries PSN 0x644726). */
void roce_seq_set_start(struct roce_seq_dir *d, uint32_t psn);
/* Path MTU (IBTA code) from a source; kept unless a stronger one has spoken. */
void roce_seq_set_pmtu(struct roce_seq_dir *d, unsigned code, enum roce_seq_pmtu_src src);
uint32_t roce_seq_pmtu(const struct roce_seq_dir *d);              /* bytes */
enum roce_seq_pmtu_src roce_seq_pmtu_source(const struct roce_seq_dir *d);

/* What a decoded packet is to this analysis. */
enum roce_seq_kind {
	ROCE_SEQ_NONE = 0,         /* not RC/XRC, or not a BTH */
	ROCE_SEQ_REQ,
	ROCE_SEQ_RESP,
	ROCE_SEQ_CNP_PKT,
};
enum roce_seq_kind roce_seq_classify(const struct roce_pkt *p);

/* Input flags */
#define ROCE_SEQ_IN_ICRC_BAD 0x1   /* the caller found the ICRC wrong */

/* A request of d's PSN space.  Returns 0, or -1 when p is not a request.
 * spare: see above (may point at NULL only if d already has its block). */
int roce_seq_request(struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts_ns,
		     unsigned in, struct roce_seq_anom **spare, struct roce_seq_verdict *v);
/* A response or CNP for d's PSN space. */
int roce_seq_response(struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts_ns,
		      unsigned in, struct roce_seq_anom **spare, struct roce_seq_verdict *v);
/* Dispatch for a packet sent by side (0 or 1) of connection c. */
int roce_seq_update(struct roce_seq_conn *c, int side, const struct roce_pkt *p, uint64_t ts_ns,
		    unsigned in, struct roce_seq_anom **spare, struct roce_seq_verdict *v);

/* After a response whose verdict has ROCE_SEQ_V_REJUDGED (an RNR NAK that
 * showed the responder did not take a request, so that it judged the
 * requests after it against that request's PSN), and before the next packet
 * of d: the i-th (0, 1, ..) request judged again, oldest first, with its new
 * class.  Those are the latest requests of d, with consecutive ids; their
 * wire-view flags (retransmission, gap, ...) are unchanged.  A
 * Wireshark-style caller keeps each request's verdict by v->req_id and
 * replaces its class with this one.  Returns 1, or 0 when there is no i-th. */
struct roce_seq_rejudge {
	uint32_t req_id;           /* the request's v->req_id */
	uint32_t flags;            /* ROCE_SEQ_V_IN_ORDER, ROCE_SEQ_V_DUPLICATE, or
				    * ROCE_SEQ_V_OUT_OF_SEQ (| ROCE_SEQ_V_OOS_START) */
	uint32_t expected_psn;     /* the responder's expected PSN before it */
};
#define ROCE_SEQ_V_CLASS (ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_DUPLICATE | ROCE_SEQ_V_OUT_OF_SEQ | \
			  ROCE_SEQ_V_OOS_START)
int roce_seq_rejudged(const struct roce_seq_dir *d, unsigned i, struct roce_seq_rejudge *r);

/* 1 when a response with this PSN can answer d's requests (PSN within the
 * span requested so far): used to pair response flows with request flows. */
int roce_seq_covers(const struct roce_seq_dir *d, uint32_t psn);
/* 1 when a request with this PSN continues d's requests: the next ones, a
 * loss ahead or a retransmission behind, within ROCE_SEQ_CONTINUE_WINDOW
 * PSNs of the highest seen (or at most that far past a CM starting PSN).
 * Used to recognise a QP whose path changed (InfiniBand LMC path bits or
 * automatic path migration give it new LIDs, not a new PSN space). */
#define ROCE_SEQ_CONTINUE_WINDOW 4096
int roce_seq_continues(const struct roce_seq_dir *d, uint32_t psn);

/* PSNs never seen at all: holes given up on plus holes still open. */
uint32_t roce_seq_missing(const struct roce_seq_dir *d);

/* Retransmission scheme observed on this direction. */
enum roce_seq_scheme {
	ROCE_SEQ_SCHEME_NONE = 0,     /* no retransmission */
	ROCE_SEQ_SCHEME_GO_BACK_N,    /* NAK-driven, resends everything from the hole */
	ROCE_SEQ_SCHEME_SELECTIVE,    /* NAK-driven, resends only the hole */
	ROCE_SEQ_SCHEME_TIMEOUT_ONLY, /* recovery by timeouts only */
	ROCE_SEQ_SCHEME_MIXED,        /* both go-back-N and selective recoveries */
	ROCE_SEQ_SCHEME_DUPLICATES,   /* only copies made by the network */
};
enum roce_seq_scheme roce_seq_scheme(const struct roce_seq_dir *d);
const char *roce_seq_scheme_name(enum roce_seq_scheme s); /* "none", "go-back-N", … */
/* Combines two schemes (a connection's directions). */
enum roce_seq_scheme roce_seq_scheme_join(enum roce_seq_scheme a, enum roce_seq_scheme b);

/* Upper layer protocol from a CM service ID (RDMA_PS_TCP/UDP/IB | port):
 * "NVMe-oF", "SMB Direct", "NFS/RDMA", "iSER", "rping", "perftest", … or NULL. */
const char *roce_seq_ulp_name(uint64_t service_id);

#ifdef __cplusplus
}
#endif
#endif /* ROCE_SEQ_H */
