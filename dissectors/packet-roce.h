/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-roce.h — what the RoCE post-dissector hands to its tap ("roce"),
 * for the per-QP statistics table (stats-roce.c, `tshark -z roce,qp`).
 */
#ifndef PACKET_ROCE_H
#define PACKET_ROCE_H

#include <epan/packet.h>

/* Flags of one frame, as shown under roce.analysis.* */
enum {
	ROCE_A_RETRANS   = 1u << 0,
	ROCE_A_OOO       = 1u << 1,
	ROCE_A_DUP       = 1u << 2,
	ROCE_A_GAP       = 1u << 3,
	ROCE_A_NAK       = 1u << 4,
	ROCE_A_RNR       = 1u << 5,
	ROCE_A_CNP       = 1u << 6,
	ROCE_A_ECN_CE    = 1u << 7,
	ROCE_A_ICRC_BAD  = 1u << 8,
	ROCE_A_RTT       = 1u << 9,   /* rtt_us: request -> covering ACK */
	ROCE_A_ACK       = 1u << 10,  /* a positive ACK (ACK or ATOMIC ACK) */
	ROCE_A_EPISODE   = 1u << 11,  /* starts a retransmission episode */
	ROCE_A_OOS       = 1u << 12,  /* beyond the responder's expected PSN */
	ROCE_A_OOS_START = 1u << 13,  /* first of an out-of-sequence run */
	ROCE_A_IMPLIED_NAK = 1u << 14,
	ROCE_A_DUP_ACK   = 1u << 15,
	ROCE_A_UNSOLICITED = 1u << 16,
	ROCE_A_READ_RTT  = 1u << 17,  /* rtt_us: READ request -> first response */
	ROCE_A_PMTU      = 1u << 18,  /* path MTU estimate changed */
};

/* Tap data, one per RoCE frame (packet scope). */
typedef struct roce_tap_info {
	address src;            /* IPv4/IPv6 source (RoCEv1: the GRH's SGID) */
	address dst;
	guint32 dqpn;           /* BTH destination QP */
	guint32 srcqp;          /* sender's QP when paired, else 0 */
	gboolean srcqp_known;
	guint32 flow;           /* roce.flow: index of this QP direction */
	guint32 space;          /* roce.analysis.psn_space: the request flow a response
				 * answers (this flow for a request), 0 when none */
	guint32 conn;           /* roce.conn.id */
	guint8 version;         /* enum roce_version */
	guint8 opcode;
	guint32 frame_len;      /* bytes on the wire */
	guint32 flags;          /* ROCE_A_* */
	guint32 gap_missing;    /* PSNs missing before this one (GAP, IMPLIED_NAK) */
	guint32 rtt_us;         /* RTT, READ_RTT */
} roce_tap_info;

void roce_register_stats(void);

#endif
