/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flow.h — rocetop's flow engine: decoded packets in, per-flow and
 * capture-wide state out.  It knows nothing about screens or formats; the
 * views (report.c, the TUI) read the structures below.
 *
 * A flow is one direction of packets: (source address, destination address,
 * destination QPN) for RoCE, the TCP 4-tuple for iWARP.  Flows live in one
 * array addressed by 32-bit indices (hash chains and the LRU list are index
 * links, so the array can grow by realloc); at --max-flows the least recently
 * seen flow is evicted and its counters are added to the engine's evicted
 * totals.  Addresses are interned (struct host), so a flow key is 12 bytes.
 *
 * For RC/XRC a flow's seq state is the PSN space of the requests it carries
 * (lib/seq.h).  Its peer is the flow of the other direction; the responses
 * to this flow's requests (ACKs, NAKs, READ responses) and the CNPs slowing
 * its sender arrive on the peer, and are counted here, on the requests'
 * flow.  A response flow whose requests were never seen keeps them itself.
 */
#ifndef ROCETOP_FLOW_H
#define ROCETOP_FLOW_H

#include <stdint.h>
#include "roce.h"
#include "seq.h"
#include "rtt.h"
#include "diag.h"

enum flow_kind {
	FK_RC = 1,
	FK_UC,
	FK_UD,
	FK_XRC,
	FK_RD,
	FK_IWARP,
};
const char *flow_kind_name(int kind);   /* "RC", "UC", "UD", "XRC", "RD", "iWARP" */

enum flow_pair {
	FP_NONE = 0,
	FP_CM,            /* CM REQ/REP named both QPNs */
	FP_TRAFFIC,       /* responses answered this flow's request PSNs */
	FP_TCP,           /* iWARP: the reverse 4-tuple */
};
const char *flow_pair_name(int how);    /* "none", "cm", "traffic", "tcp" */

enum flow_op { OP_SEND = 0, OP_WRITE, OP_READ, OP_ATOMIC, OP__COUNT };

/* iWARP: what one TCP direction carried. */
struct iw_flow {
	uint32_t next_seq;        /* highest sequence number + 1 */
	uint8_t have_seq;
	uint8_t mpa_req, mpa_rep; /* MPA request / reply frames seen */
	uint8_t mpa_flags;        /* flags byte of the frame this side sent */
	uint8_t mpa_rev;
	uint32_t segments;        /* segments with payload */
	uint32_t tcp_retrans;     /* payload bytes all sent before */
	uint32_t tcp_gaps;        /* sequence jumped ahead */
	uint32_t fpdus;
	uint32_t crc_good, crc_bad, crc_unchecked;
	uint32_t terminates;
	uint32_t read_resp;
	uint32_t ops[16];         /* by RDMAP opcode */
	/* MPA framing (the stream reassembler's word, iwstream.h) */
	uint32_t sync_lost;       /* times framing was lost (gap, bad length/marker/header) */
	uint32_t resyncs;         /* times it was found again (marker, CRC or heuristic) */
	uint32_t resync_heuristic;/* of those, by the heuristic (neither markers nor CRC) */
	uint64_t unsync_bytes;    /* payload bytes passed over out of sync */
};

struct flow {
	uint32_t hnext;           /* hash chain: index + 1, 0 ends */
	uint32_t lru_prev, lru_next;
	uint32_t src, dst;        /* host indices */
	uint32_t qpn;             /* RoCE: DestQP; iWARP: sport << 16 | dport */
	uint32_t peer;            /* the other direction: index + 1, 0 = none */
	uint8_t kind : 4;         /* enum flow_kind */
	uint8_t version : 4;      /* enum roce_version (iWARP: 0) */
	uint8_t pair_how : 4;     /* enum flow_pair */
	uint8_t ulp : 4;          /* upper layer (index into the ULP names + 1) */
	uint16_t first_20ns;      /* first packet: 20 ns units past first_ms (exact for us timestamps) */
	uint32_t msgt;            /* index + 1 of its message boundaries in the engine's msgt, 0: none */
	uint32_t first_ms;        /* first packet, ms after the engine's first */
	uint64_t packets, bytes;
	uint64_t last_ns;
	uint32_t msgs[OP__COUNT];
	uint32_t msg_max;
	float rate[3];            /* bytes per tick, EWMA over ~2 s, 10 s, 40 s */
	uint64_t msg_bytes;
	union {
		struct roce_seq_dir seq;
		struct iw_flow iw;
	} u;
};

struct host {
	uint8_t addr[16];         /* IPv6, or IPv4-mapped ::ffff:a.b.c.d */
};

/* Per port (source MAC) link-level flow control. */
struct pause_stat {
	uint32_t pauses;          /* frames asking for a pause (time > 0) */
	uint32_t xon;             /* frames with time 0 (resume) */
	uint64_t quanta;          /* sum of the times asked for */
	uint64_t paused_ns;       /* time paused: intervals joined, a frame replacing the last */
	uint64_t until_ns, since_ns;
};

/* Time paused until now: the closed intervals plus the running one. */
uint64_t pause_paused_ns(const struct pause_stat *s, uint64_t now);

struct port {
	uint8_t mac[6];
	uint8_t dcbx_seen, dcbx_pfc_enable, dcbx_willing, dcbx_cap;
	uint64_t frames;
	struct pause_stat pfc[8];
	struct pause_stat pause;  /* 802.3x */
	uint32_t pfc_frames, pause_frames;
	uint32_t cnm;             /* QCN CNMs sent from this port */
	uint32_t cnm_prio_mask;   /* encapsulated priorities they named */
};

struct engine_cfg {
	uint32_t max_flows;       /* default 1,000,000 */
	uint32_t pmtu;            /* bytes, default 1024 */
	uint64_t link_bps;        /* default 100 Gb/s */
	int check_icrc;           /* default 1 */
	uint64_t rtt_mem;         /* RTT table + histograms cap, bytes (0: rtt.h's default) */
	uint32_t pair_slots;      /* pairing cache slots, rounded up to a power of 2 (0: 65,536) */
	struct diag_cfg diag;     /* diagnosis thresholds (diag.h; all 0: its defaults) */
};

/* Capture-wide totals (also those of the listing's closing lines). */
struct engine_totals {
	uint64_t frames, bytes;
	uint64_t roce[6];
	uint64_t encapsulated;     /* mirror copies (ERSPAN, GRE-TEB, VXLAN) decapsulated */
	uint64_t encap_truncated;  /* of those, copies shorter than the frame they carry */
	uint64_t erf_records, erf_lost; /* ERF records, and the sum of their loss counters */         /* by enum roce_version */
	uint64_t icrc[3];         /* by enum roce_icrc_status */
	uint64_t truncated, invalid;
	uint64_t iwarp, tcp, dcb, pfc_frames, pause_frames, cnm, lldp;
	uint64_t cm_mads, cm_req, cm_rep;
	uint64_t roce_ect, roce_ce, cnp;     /* ECN-capable / CE-marked RoCE packets, CNPs */
	uint64_t ib_fecn, ib_becn;           /* native IB packets with BTH FECN / BECN (not CNPs) */
	uint64_t ib_lid_moves;               /* LID-routed IB QPs seen on a new LID pair (flow.c ib_identity) */
	uint64_t first_ns, last_ns;
	uint64_t evicted;
	uint64_t orphan_responses;          /* responses of no known request flow */
};

/* Sums of the counters of evicted flows, so capture totals stay right. */
struct evicted_sum {
	uint64_t packets, bytes;
	uint64_t requests, duplicate_request, out_of_sequence, out_of_seq_request, retransmissions,
		 psn_gaps, missing_psns, acks, nak_seq_err, nak_invalid_request, nak_remote_access,
		 nak_remote_op, rnr_nak, ecn_ce, cnp, icrc_bad;
};

struct iwstream;
struct ibident;

/* A flow's latest SEND/WRITE boundaries (flow.c: count_message), kept
 * beside the flow table for the flows with messages of several packets. */
struct msgtrack {
	uint32_t mark[8];         /* the latest message boundaries seen */
	uint32_t seg;             /* a FIRST packet's payload: the path MTU's; free list: next */
	uint32_t last[4];         /* the latest LAST counted: PSN, payload, PSNs before it, bytes */
	uint32_t cur;             /* bytes of the message being assembled, as seen */
};

struct engine {
	struct engine_cfg cfg;
	struct msgtrack *msgt;    /* the flows' message boundaries; slot 0 unused */
	uint32_t nmsgt, msgt_cap, msgt_free; /* slots used, allocated, free list (index) */
	struct iwstream *iw;      /* MPA streams of iWARP connections (made at the first one) */
	struct flow *flows;
	uint32_t nflows, cap;     /* flows in use (slots 0..nflows-1), array size */
	uint32_t *heads;          /* hash heads, index + 1 */
	uint32_t hmask;
	uint32_t lru_head, lru_tail; /* most / least recently seen, index + 1 */
	struct host *hosts;
	uint32_t nhosts, hosts_cap;
	uint32_t *host_tab;       /* open addressing: host index + 1 */
	uint32_t host_mask;
	struct port *ports;
	uint32_t nports;
	uint32_t (*pair_cache)[2];/* tag, flow index + 1 */
	uint32_t pair_mask;       /* its slots - 1 */
	struct roce_seq_anom *spare;
	struct roce_rtt *rtt;     /* outstanding requests and RTT histograms of all flows */
	struct roce_seq_anom **anom_free;
	uint32_t n_anom_free, anom_free_cap;
	uint64_t anom_live;       /* anomaly blocks attached to live flows */
	struct cm_pending *cm;    /* REQs waiting for their REP */
	struct ibident *ibid;     /* LID-routed IB flows' other LID pairs (ibident.c), made at the first */
	uint32_t ncm;
	uint32_t last_flow;       /* index + 1 of the flow of the last packet (lookup cache) */
	uint32_t verdict;         /* the last packet's ROCE_SEQ_V_* (0: none): --packets marks */
	/* rocetop -r A -r B (set by the caller): the files' names, and the file of the packet
	 * engine_packet() is given; the flows record which files they were seen in (JSON
	 * "files").  NULL: not recorded. */
	const char *const *file_names;
	unsigned nfile_names, cur_file;
	uint32_t *flow_files;     /* ... by flow index: bit i, file i (flow_file_mask()) */
	uint32_t flow_files_cap;
	/* IPv4 hosts by address, one probe (flow.c host_v4): slot = (id + 1) << 32 | address,
	 * 0 free; it was a cache of the last 4, which a mirror of many hosts always missed */
	uint64_t *v4_tab;
	uint32_t v4_mask, nv4;
	struct engine_totals t;
	struct evicted_sum ev;
	uint32_t conns_cm, conns_traffic;
	float decay[3][65];       /* a_i^k for k ticks */
	float weight[3];
	/* A merged view of several engines (engmerge.h, rocetop --threads):
	 * flow i's RTT state is in parts[part_of[i]]->rtt; NULL otherwise. */
	struct engine *const *parts;
	const uint8_t *part_of;
	unsigned nparts;
	struct diag *diag;        /* diagnosis evidence (diag.h); NULL in a merged view */
	uint64_t frame_no;        /* the frame being analysed: frame_next when the caller set it, else
				     the frames counted */
	uint64_t frame_next;
};

int engine_init(struct engine *e, const struct engine_cfg *cfg);
void engine_free(struct engine *e);
/* One captured frame, already decoded. */
void engine_packet(struct engine *e, const struct roce_pkt *p, uint64_t ts_ns, uint32_t caplen,
		   uint32_t wirelen);

static inline struct flow *engine_flow(const struct engine *e, uint32_t idx1)
{
	return idx1 ? &e->flows[idx1 - 1] : NULL;
}
static inline struct flow *flow_peer(const struct engine *e, const struct flow *f)
{
	return engine_flow(e, f->peer);
}

/* The RTT state (rtt.h) that holds direction d of one of e's flows (a
 * merged view keeps each flow's in the engine it came from). */
const struct roce_rtt *engine_rtt(const struct engine *e, const struct roce_seq_dir *d);
/* roce_rtt_totals() of the engine, summed over the parts of a merged view. */
void engine_rtt_totals(const struct engine *e, struct roce_rtt_totals *t);

/* Rates in bits per second at time now_ns (decayed to it), over windows
 * of ~2, 10 and 40 s, or the capture so far when it is shorter. */
void flow_rates(const struct engine *e, const struct flow *f, uint64_t now_ns, double bps[3]);
/* The window of rate i at now_ns, in seconds: 2, 10 or 40, or less when
 * the capture so far is shorter (0 before its first frame). */
double engine_rate_window(const struct engine *e, int i, uint64_t now_ns);
/* RTT quantile q of a flow's requests in whole microseconds (rounded);
 * 0 when it has no samples or its histogram was evicted. */
uint32_t flow_rtt_q_us(const struct engine *e, const struct flow *f, enum roce_rtt_which w, double q);
/* Average rates in bits per second: a flow's over its life (first to last
 * packet; 0 for a single packet), the capture's from its first frame to its
 * last (every frame).  flow_first_ns: the flow's first packet. */
uint64_t flow_first_ns(const struct engine *e, const struct flow *f);
/* The flow's RC sequence anomalies; all zero for iWARP and for a flow that
 * has none yet (never NULL). */
const struct roce_seq_anom *flow_anom(const struct flow *f);
double flow_avg_bps(const struct engine *e, const struct flow *f);
double engine_avg_bps(const struct engine *e);
/* 1 when most frames of a flow's connection (both directions) fail the ICRC
 * check, and at least ICRC_UNVERIFIABLE_MIN do: more likely a wrong ICRC
 * recipe or a middlebox rewriting headers than corruption; with the totals
 * (bad ICRCs, frames) of the connection. */
#define ICRC_UNVERIFIABLE_MIN 3
int flow_icrc_unverifiable(const struct engine *e, const struct flow *f, uint64_t *bad, uint64_t *frames);
/* "10.0.0.1", "fe80::1" */
const char *host_str(const struct engine *e, uint32_t host, char *buf, size_t cap);
const char *flow_ulp_name(const struct flow *f);
/* rocetop -r A -r B: bit i set when a frame of file i was of f (engine.file_names); 0: not known. */
uint32_t flow_file_mask(const struct engine *e, const struct flow *f);
/* Memory the table holds per flow slot (struct + hash head), bytes. */
double engine_bytes_per_flow(const struct engine *e);

/* Fabric mode from what the capture showed. */
enum fabric_mode {
	FM_UNKNOWN = 0,           /* no RoCE traffic */
	FM_LOSSLESS,              /* PFC pauses, no ECN marks or CNPs */
	FM_RESILIENT,             /* ECN (ECT/CE/CNP), no PFC */
	FM_ZERO_TOUCH,            /* neither */
	FM_MIXED,                 /* both PFC and ECN */
};
const char *fabric_mode_name(enum fabric_mode m);
enum fabric_mode engine_fabric_mode(const struct engine *e, char *evidence, size_t cap);

#endif
