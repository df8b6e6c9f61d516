/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_int.h — what stress.c and stress_qp.c share: the run and its QPs.
 */
#ifndef ROCEGEN_STRESS_INT_H
#define ROCEGEN_STRESS_INT_H

#include <pcap/pcap.h>
#include "stress.h"

#define ST_QPN0 0x1000u             /* rocegen's QPNs: ST_QPN0 + index */
#define ST_EP_RING 8
#define ST_TP_BINS 256              /* throughput intervals kept (later ones go in the last) */

struct st_msg {
	uint8_t op;                  /* enum st_op */
	uint32_t len;
	uint64_t idx;                /* message number on the QP */
	uint32_t slot;               /* write slot or receive buffer */
	uint64_t roff;               /* READ: offset in the read area */
	uint64_t expect;             /* ATOMIC: the original value expected */
	uint32_t xmr;                /* WRITE to the QP's extra MR xmr - 1 (0: its own MR) */
};

struct st_run;
struct st_qp {
	struct st_run *s;
	struct roce_qp *qp;
	void *mem;
	uint32_t qpn, dut_qpn, psn0;
	unsigned dut_qp, dut_mr;
	uint32_t rkey;
	uint64_t va;
	uint64_t rng;
	uint64_t posted, completed, sends;
	struct st_msg *ring;         /* qd messages in flight, by idx % qd */
	uint8_t *bufs;               /* qd local buffers of slot bytes */
	uint64_t atomic;             /* the model of the adapter's atomic word */
	uint64_t bytes;
	uint64_t t_done;
	int done, err, in_ready;
	uint64_t hkey;               /* the deadline it has in the heap (UINT64_MAX: none) */
	/* metrics */
	int gap, gap_retx, gap_skip, ce;
	uint32_t gap_psn;
	uint64_t gap_t, ce_t;
	struct {                     /* out-of-sequence episodes waiting for their NAK */
		uint32_t epsn;
		uint64_t t;
	} ep[ST_EP_RING];
	unsigned ep_h, ep_n;
	struct st_wire w;
	uint64_t wire_nak, wire_cnp;
	uint32_t nak_psn;            /* the PSN of the last sequence NAK (nak_seen) */
	int nak_seen;
	uint64_t path_loss;          /* sequence NAKs no fault of rocegen's explains: loss on the path */
	/* a timeout's go-back-N from tmo_from (behind the model's expected PSN: no NAK
	 * and no injected fault announced a loss) up to tmo_to (the next new PSN then).
	 * Either an ACK or the request at tmo_from was lost on the path; in the second
	 * case the resends the model counts as duplicates (tmo_dup) are first copies at
	 * the adapter, and the packets after the lost one (tmo_oos) came out of sequence */
	int tmo_on;
	uint64_t fault_t;            /* when an injected fault last fired on this QP (0: never) */
	uint32_t tmo_from, tmo_to, next_new;
	uint64_t tmo_episodes, tmo_dup, tmo_oos;
	uint64_t cnp_last_t;         /* wire time of the QP's last CNP */
	int ce_since_cnp;            /* a CE-marked request went out since */
	struct st_rq *rq;            /* the adapter as requester (stress_req.c) */
	struct st_xmr {              /* o->xmrs extra MRs on the adapter (4 KiB each) */
		unsigned id;
		uint32_t rkey;
		uint64_t va;
	} *xmr;
	unsigned n_xmr;
};

struct st_hent {
	uint64_t d;
	unsigned qi;
};

struct st_run {
	const struct st_opts *o;
	struct cf_io *io;
	struct st_result *res;
	struct st_qp *qp;
	unsigned n, done;
	struct st_hent *heap;
	size_t hn, hcap;
	unsigned *ready;
	unsigned nready;
	uint32_t slot;               /* bytes per area slot (size_max rounded up to 8) */
	struct roce_qpf_rule *rules; /* per QP: n_rules */
	struct roce_qp_faults *faults;
	unsigned n_rules;
	uint64_t t0, last_progress;
	uint64_t rx_ts;              /* wire time of the frame being input */
	int is_ref;
	uint8_t *tmp;
	struct st_event ev[ST_MAX_EVENTS];
	uint64_t cnt0[STC_N];        /* adapter counters before the traffic */
	int cnt_have[STC_N];
	const char *pcap_dir;
	pcap_t *pd;
	pcap_dumper_t *dump;
	char all_pcap[512];
	uint64_t next_poll;          /* requester role: the next lstat */
	uint64_t poll_completed, poll_t;   /* the loads' completions at the last progress */
	uint64_t *tp;                /* bytes per QP and interval: tp[qi * ST_TP_BINS + bin] */
	uint64_t tp_ns, t_switch, t_last;   /* interval; --victim: when the attackers start */
	uint64_t t_vlast;            /* --victim: the victim's last completion */
	uint64_t vbytes[2], abytes;  /* the victim's bytes alone / beside; the attackers' beside */
	int switched;
};

/* stress.c */
void st_touch(struct st_run *s, struct st_qp *q);
/* stress_qp.c: the engine callbacks */
int st_tx(void *ctx, const uint8_t *f, uint32_t len);
void st_event_cb(void *ctx, const struct roce_qp_event *ev);
void st_complete(void *ctx, const struct roce_wc *wc);
uint64_t st_off_atomic(const struct st_run *s);
uint64_t st_off_recv(const struct st_run *s, uint32_t k);
/* QP i among the failing ones (--pcap-dir keeps their frames), once */
void st_mark_failing(struct st_result *r, unsigned i);
/* stress_setup.c */
extern const uint8_t st_fault_kind[STF_EXACT];
uint64_t st_mix(uint64_t x);
int st_ctl(struct st_run *s, char *rep, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
uint32_t st_first_psn(uint64_t *rng, unsigned i);
/* The QP attributes both roles share (pair, first PSNs, MTU, addresses,
 * fault slots); the QP's memory and engine (-1 with first_error); the
 * fault rules of QP i, when --faults gave any. */
void st_attr_base(const struct st_run *s, const struct st_qp *q, uint32_t dut_psn, struct roce_qp_attr *a);
int st_qp_open(struct st_run *s, struct st_qp *q, unsigned i, const struct roce_qp_attr *a,
	       const struct roce_qp_ops *ops);
void st_qp_faults(struct st_run *s, struct st_qp *q, unsigned i);
void st_read_counters(struct st_run *s, uint64_t *v, int *have);
void st_fault_rules(struct st_run *s, int match);
int st_setup(struct st_run *s);
void st_post_more(struct st_run *s, struct st_qp *q, uint64_t now);
void st_fail_all(struct st_run *s, const char *why);
void st_finish(struct st_run *s);
void st_teardown(struct st_run *s);
/* stress_req.c: the adapter as requester */
int st_req_setup(struct st_run *s);
int st_req_input(struct st_run *s, struct st_qp *q, const struct roce_pkt *p, uint64_t ts);
int st_req_poll(struct st_run *s, uint64_t now);   /* lstat; -1 when the control channel fails */
void st_req_finish(struct st_run *s);
void st_req_teardown(struct st_run *s);
/* stress_tput.c */
int st_tput_init(struct st_run *s);
void st_tput_add(struct st_run *s, unsigned qi, uint64_t bytes, uint64_t now);
int st_victim_waits(const struct st_run *s, const struct st_qp *q, uint64_t now);
void st_victim_switch(struct st_run *s, uint64_t now);
void st_tput_finish(struct st_run *s);
/* stress_pcap.c */
int st_pcap_open(struct st_run *s);
void st_pcap(struct st_run *s, const uint8_t *f, uint32_t len, uint64_t ts);
void st_pcap_finish(struct st_run *s);

#endif /* ROCEGEN_STRESS_INT_H */
