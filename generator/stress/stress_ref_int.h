/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_ref_int.h — the reference adapter's state, shared by stress_ref.c
 * (wire, objects, control) and stress_refload.c (`load`: the adapter as
 * requester).
 */
#ifndef ROCEGEN_STRESS_REF_INT_H
#define ROCEGEN_STRESS_REF_INT_H

#include "stress.h"
#include "load.h"

#define REF_WIRE_NS 2000           /* one-way delay of the simulated wire */
#define REF_SER_NS 100             /* serialisation of each frame rocegen sends */
#define REF_QPN0 0x100u
#define REF_WC 64
#define REF_QP_MR 8
#define REF_QPC_MISS_NS 500        /* qpcache: a QP context fetched (a PCIe round trip) */
#define REF_RP_LINE 3.125          /* cnp-*: the reaction point's line rate, bytes/ns (25 Gb/s) */
#define REF_RP_MIN (REF_RP_LINE / 64)
#define REF_ISO_PKT_NS 150         /* iso-*: a request packet's fixed cost (descriptor, DMA setup) */
#define REF_ISO_BPNS 12.5          /* iso-*: its bytes at 100 Gb/s, bytes/ns */
#define REF_ISO_RNR_NS 20000       /* iso-*: the stage held after an RNR NAK */
#define REF_ISO_QPC 64             /* iso-*: QP contexts on chip */
#define REF_PATH_DROP 157          /* pathloss: one request packet in this many lost on the path */

struct ref_frame {
	uint8_t *d;
	uint32_t len;
	uint64_t ts;
};

struct ref_qp {
	struct st_ref *r;
	struct roce_qp *qp;
	void *mem;
	struct roce_wc wc[REF_WC];
	unsigned wch, wcn, wc_lost;
	uint32_t qpn;
	int armed;                 /* in the armed list (may have a deadline) */
	struct ctl_load L;         /* the adapter as requester (`load`) */
	uint8_t *lbuf;             /* its local MR's bytes */
	int in_pump;               /* on the pump list: completed something, may post */
	uint32_t rqpn;             /* the peer's QPN (CNPs of the cnp-* modes) */
	uint64_t cnp_last;         /* cnp-qp: when it last sent a CNP */
	int cnp_sent;
	double rp_rate;            /* cnp-*: the reaction point's rate for its requests, bytes/ns */
	uint64_t rp_next;          /* when its next request may leave */
	int lru_prev, lru_next;    /* qpcache: the LRU list of QP indices (-1: end) */
	int cached;
	uint64_t busy;             /* iso-fair: its own stage answers nothing before this */
};

#define REF_CNP_PAIRS 64           /* cnp-ip: pacing states, one per peer IP */

struct ref_mr {
	uint8_t *buf;
	uint64_t len, va;
	uint32_t rkey, access;
	int qp;                    /* -1: every QP */
};

struct st_ref {
	enum st_ref_mode mode;
	uint64_t now, n_in;
	struct roce_qpf_rule rule;
	struct roce_qp_faults faults;
	uint8_t mac[6], peer_mac[6], ip[4], peer_ip[4];
	struct ref_frame *q;       /* ring, time order */
	size_t qh, qn, qcap;
	uint8_t **pool;            /* free frame buffers */
	size_t npool;
	struct ref_qp **qp;        /* each allocated alone: engines keep pointers */
	unsigned nqp, nmr;
	struct ref_mr *mr;
	unsigned *armed;
	unsigned narmed;
	uint8_t *tmp;              /* wr/rd hex conversions */
	unsigned *loaded;          /* QPs with a load */
	unsigned nloaded;
	unsigned *pump;            /* loaded QPs that completed a message since the last pump */
	unsigned npump;
	uint64_t cnp_gap_ns;       /* cnp-*: the pacing interval */
	struct {                   /* cnp-ip: per peer IP; cnp-port: pair[0] for all */
		uint8_t ip[4];
		uint64_t last;
	} pair[REF_CNP_PAIRS];
	unsigned npair;
	int port_sent;
	uint64_t cnp_port_last;
	uint64_t cnp_tx;           /* CNPs of the cnp-* modes */
	int in_cnp;                /* emitting a CNP (no NAK check of it) */
	unsigned qpc_cap, qpc_n;   /* qpcache: contexts held, in use */
	int lru_head, lru_tail;    /* most and least recently used */
	uint64_t busy;             /* qpcache: the adapter answers nothing before this */
	uint64_t qpc_hit, qpc_miss;
	struct roce_qpf_rule iso_rule;   /* iso-*: the attackers' RNR NAKs */
	struct roce_qp_faults iso_faults;
	uint64_t n_path, path_dropped;   /* pathloss: request packets seen, lost */
};

/* stress_refqp.c: below stress_ref.c, stress_refiso.c, stress_refload.c */
void ref_arm_qp(struct st_ref *r, struct ref_qp *q);
int ref_qpc_use(struct st_ref *r, int i);   /* the LRU of QP contexts; 1 on a miss */

/* stress_refiso.c: the iso-* modes */
int refiso_mode(const struct st_ref *r);
void refiso_in(struct st_ref *r, struct ref_qp *q, uint32_t len);   /* a request arrives */
uint64_t refiso_ready(const struct st_ref *r, const struct ref_qp *q);   /* when q's answer may leave */
void refiso_out(struct st_ref *r, struct ref_qp *q, const uint8_t *f, uint32_t len);   /* q emitted f */
void refiso_connect(struct st_ref *r, struct ref_qp *q);
void refiso_init(struct st_ref *r);

/* stress_refload.c */
int refload_cmd(struct st_ref *r, struct ref_qp *q, struct ref_mr *m, const char *l, char *rep,
		size_t cap);
int refload_stat(struct st_ref *r, struct ref_qp *q, char *rep, size_t cap);
int refload_wc(struct ref_qp *q, const struct roce_wc *wc);   /* 1 when taken */
void refload_pump(struct st_ref *r);
void refload_reset(struct st_ref *r);

#endif /* ROCEGEN_STRESS_REF_INT_H */
