/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen.h — what rocegen's commands share: the parsed options (opts.c), frame
 * kinds and the frame builders behind `rocegen frames` (frames.c), which
 * `rocegen flood` (flood.c) reuses for its templates.
 */
#ifndef ROCEGEN_GEN_H
#define ROCEGEN_GEN_H

#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include "roce.h"
#include "tx.h"
#include "wrap.h"

#define GEN_NAME "rocegen"
#define GEN_DEFAULT_PPS_CAP 10000.0
#define GEN_MAX_FRAME 16384
#define GEN_MIX_MAX 16

enum gen_cmd { GEN_FRAMES, GEN_FLOOD, GEN_RECV, GEN_CLIENT, GEN_SERVER, GEN_CONVERT };

#define GEN_MAX_FAULTS 16

struct gen_mix {
	unsigned n;
	uint32_t size[GEN_MIX_MAX];     /* payload bytes */
	uint32_t weight[GEN_MIX_MAX];
};

struct gen_opts {
	enum gen_cmd cmd;
	const char *kind;               /* positional KIND (NULL: the command's default) */

	/* where frames go */
	const char *iface;
	const char *wfile;
	const char *rfile;              /* convert: -r */
	struct gen_wrap *wrap;          /* encapsulations (wrap.h); NULL: frames as built */
	int dry_run;
	int no_hex;
	enum tx_kind tx;
	int qdisc_bypass;
	int verbose;

	/* link */
	int have_smac, have_dmac;
	int dmac_given;                 /* --dmac was on the command line */
	uint8_t smac[6], dmac[6];
	unsigned n_vlan;
	struct roce_vlan vlan[2];

	/* network */
	int src_ver, dst_ver;           /* 0: not given, else 4 / 6 */
	uint8_t src[16], dst[16];
	int peer_ver;                   /* --peer: the only address frames may go to (default --dst) */
	uint8_t peer[16];
	enum roce_version version;
	int port;                       /* --port: UDP (RoCEv2) or TCP destination port; -1 unset */
	int dscp, ecn, ttl;             /* -1 unset */
	int flow_label;
	int ip_id;
	int df;
	int sport;                      /* -1 unset */
	int udp_csum;

	/* BTH and extended headers */
	uint32_t qpn, psn, psn_step;
	int pkey;                       /* -1 unset */
	int ackreq, se, fecn, becn, migreq, tver;
	int pad;                        /* -1: derived */
	struct roce_ext_spec ext;
	int have_len, have_syndrome;
	int credits;                    /* --ack credits */

	/* payload */
	uint8_t *payload;               /* --payload HEX (owned) */
	uint32_t payload_len;
	int payload_size;               /* --payload-size; -1 unset */
	int bad_icrc, fcs;
	uint64_t count;                 /* 0: unset */

	/* DCB */
	int prio_mask;                  /* -1 unset */
	int prio;                       /* -1 unset */
	int quanta;                     /* -1 unset */
	int have_times;
	uint16_t times[8];
	int qfb, cnm_qoffset, cnm_qdelta, flow_id;  /* flow_id -1: no CN-TAG */
	uint64_t cpid;
	int willing;
	int have_ets_bw;
	uint8_t ets_bw[8];
	int lldp_ttl;

	/* iWARP */
	int mpa_markers, mpa_crc, mpa_reject, mpa_rev;
	int ird, ord;                   /* -1: no RTR */
	const char *rdmap_op;
	int not_last;
	uint32_t qn, mo;
	int have_qn;
	uint32_t tcp_seq, tcp_ack;
	int no_crc;
	uint32_t stream_pos;
	uint32_t sink_stag;
	uint64_t sink_to;
	int have_rev;
	int iwarp;                      /* client/server --transport iwarp */
	const char *rtr;                /* --rtr none|write|read|send (comma list) */
	int mss;                        /* --mss: TCP_MAXSEG before connecting (0: the kernel's) */

	/* CM */
	uint32_t comm_id, remote_comm_id, cm_qpn, start_psn;
	uint64_t service_id, tid;
	int have_service_id;
	int rej_reason;
	int mtu_enum;
	int no_cma;

	/* flood */
	double pps, gbps, duration;
	int no_rate_cap;
	unsigned qps;
	struct gen_mix mix;
	int pfc_storm, cnp;
	double interval_us;
	const char *fill;               /* "count" (default), "zero", "random" */
	uint64_t seed;

	/* recv */
	double timeout;
	const char *filter;

	/* client / server (session.h) */
	const char *oob;                /* pingpong, perftest, cm, none */
	const char *op;                 /* send, write, read, cmp_swap, fetch_add */
	const char *app;                /* cm: rping, perftest, ucmatose, raw */
	uint64_t size, iters;
	int have_size, have_iters;
	unsigned qd;
	int json;
	const char *fault[GEN_MAX_FAULTS];
	unsigned n_fault;
	int have_seed;
	int have_qpn, have_psn, have_rkey, have_va;
	uint32_t remote_qpn, remote_psn;
	int have_remote_qpn, have_remote_psn;
	int have_mtu;
	int ack_timeout, retry, rnr_retry, min_rnr_timer;  /* -1 unset */
	double idle;
};

/* Set by SIGINT/SIGTERM once gen_signals() ran. */
extern volatile int gen_stop;
void gen_signals(void);

/* ---- opts.c ---- */
/* Parses argv (argv[0] is the command name).  0, or -1 after printing why
 * (a usage error), GEN_PARSE_NOIFACE when -i names no interface of this
 * host (said); 1 when --help was printed.  Only after a 0 does o hold
 * anything for gen_opts_free() to free.  gen_parse_exit() is the exit
 * status of a non-zero return: 0 after --help, 1 for a missing interface
 * (as rocetop's), 2 for a usage error. */
#define GEN_PARSE_NOIFACE (-3)
int gen_parse(enum gen_cmd cmd, int argc, char **argv, struct gen_opts *o);
static inline int gen_parse_exit(int r)
{
	return r > 0 ? 0 : r == GEN_PARSE_NOIFACE ? 1 : 2;
}
/* getopt_long's ':' (a missing value) or '?' for a subcommand's own parser: one line
 * naming the command and the option, with the hint of its --help; returns 2. */
static inline int gen_bad_opt(const char *cmd, int ch, const char *arg)
{
	fprintf(stderr, GEN_NAME " %s: %s '%s' (see " GEN_NAME " %s --help)\n", cmd,
		ch == ':' ? "option needs a value:" : "unknown option", arg, cmd);
	return 2;
}
/* -i IFACE that is no interface of this host: 1 after one line naming the
 * command ("rocegen CMD: IFACE: no such interface"), else 0. */
int gen_iface_missing(const char *cmd, const char *iface);
/* One line per command's --help: the usage of that command alone. */
void gen_cmd_usage(enum gen_cmd cmd, FILE *f);
void gen_usage(FILE *f);
void gen_opts_free(struct gen_opts *o);

/* Fills what the user left out from the interface (-i): source MAC and
 * address; the destination MAC from the neighbour table when need_dmac.
 * Without -i: documentation addresses (02:00:00:00:00:01 > :02, 192.0.2.1 >
 * 192.0.2.2).  0 or -1 after printing why. */
int gen_resolve(struct gen_opts *o, int need_ip, int need_dmac);

/* Opens the transmit backend for -w / -i / --dry-run (dflt for -i when
 * --tx is not given).  max_frame: the largest frame to come.  NULL after
 * printing why. */
struct tx *gen_open_tx(const struct gen_opts *o, enum tx_kind dflt, uint32_t max_frame);

/* The rate asked for: pps (frames/s) or bits/s; both 0 when unlimited.
 * live: applies the default cap when nothing was asked. */
void gen_rate(const struct gen_opts *o, int live, double *pps, double *bps);

/* Prints the transmit statistics line to stderr. */
void gen_report(const char *what, struct tx *t, uint64_t t0_ns, uint64_t t1_ns);

/* ---- frames.c ---- */

enum gen_kind_class {
	GK_ROCE,        /* any BTH opcode, CNP included */
	GK_PAUSE,
	GK_PFC,
	GK_CNM,
	GK_LLDP,
	GK_MPA_REQ,
	GK_MPA_REP,
	GK_FPDU,
	GK_CM,          /* CM MAD in a UD SEND_ONLY to QP1 */
};

struct gen_kind {
	enum gen_kind_class cls;
	uint8_t opcode;             /* GK_ROCE */
	uint16_t cm_attr;           /* GK_CM */
};

/* "rc-send-only", "ud-send-only-imm", "cnp", "0x0a", "pfc", "cm-req", …
 * 0, or -1 when unknown. */
int gen_kind_parse(const char *name, struct gen_kind *k);
/* Prints every kind name, one per line. */
void gen_kinds_list(FILE *f);

/* The RoCE frame spec of the options for an opcode (payload: the options'
 * payload, or payload_len bytes of pattern written into pbuf). */
int gen_roce_spec(const struct gen_opts *o, uint8_t opcode, struct roce_frame_spec *spec,
		  uint8_t *pbuf, uint32_t pcap, uint32_t payload_len);
/* Payload length the options ask for (--payload, --payload-size, or dflt). */
uint32_t gen_payload_len(const struct gen_opts *o, uint32_t dflt);
void gen_eth_spec(const struct gen_opts *o, struct roce_eth_spec *eth);
void gen_ip_spec(const struct gen_opts *o, struct roce_ip_spec *ip);

/* Frame i (0-based) of a `rocegen frames` run: PSN = psn + i * psn_step. */
int gen_build_frame(const struct gen_opts *o, const struct gen_kind *k, uint64_t i,
		    uint8_t *buf, size_t cap);

int gen_frames_main(int argc, char **argv);
int gen_flood_main(int argc, char **argv);
int gen_recv_main(int argc, char **argv);
int gen_client_main(int argc, char **argv);
int gen_server_main(int argc, char **argv);
int gen_convert_main(int argc, char **argv);

#endif /* ROCEGEN_GEN_H */
