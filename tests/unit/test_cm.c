/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cm.c — CM MADs on QP1 (lib/mad.c).
 *
 * The vectors are the 256-byte MADs of real frames (rdma_rxe lab captures:
 * rping for REQ/REP/RTU/DREQ/DREP, udaddy for SIDR_REQ/SIDR_REP), of three
 * MADs written by hand (Python, from the IBTA tables) — REJ, MRA, and a REQ
 * with IPv6 GIDs and an IPv6 rdma_cm header, sent in an IPv6 frame — and of
 * two REQs that differ only in their service IDs, to pin down when Wireshark
 * calls a REQ "IP CM".  Each was wrapped in a RoCEv2 frame and read by
 * tshark 4.0.17; each want_* table is what tshark printed for it
 * (`tshark -T json -x`: value, and for bytes and addresses the offset and
 * length in the MAD), so the field walker is checked against Wireshark's
 * numbers, not against itself.  Except: Wireshark 4.0 reads the REQ flow
 * label and packet rate from the wrong bytes (rping's REQ has flow label
 * 0x51b22, which tshark shows as 0x51b; the connection then used UDP source
 * port 56118, which only 0x51b22 gives — test_flow_label_is_udp_sport):
 * libroce gives the spec's values under the same names, checked against
 * hand-computed bytes; and libroce leaves out the tshark fields that are a
 * misread or a partial view of reserved bits (prim/alt_reserved0,
 * rej.reserved0).  Wireshark does not dissect MRA or SIDR: their values come
 * from the spec tables, byte by byte.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce.h"
#include "internal.h"

enum wkind { W_U, W_IP4, W_IP6, W_BYTES };

struct want {
	const char *key;
	enum wkind kind;
	uint64_t u;             /* W_U */
	const char *ip;         /* W_IP4 / W_IP6, as tshark printed it */
	unsigned off, len;      /* where tshark found the bytes, in the MAD */
};

/* Generated from tshark 4.0.17 -T json -x; see the comment above struct want. */

/* roce_rping.pcap frame 3: MAD at frame offset 62 */
static const uint8_t mad_req[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x77,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xd2, 0x2c, 0xfc, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x1c, 0x06, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x99, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0xa0, 0x64, 0x47, 0x26, 0xa7, 0xff, 0xff, 0x37, 0xf0, 0xff, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x0a, 0x63, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x0a, 0x63, 0x00, 0x01,
	0x51, 0xb2, 0x20, 0x00, 0x00, 0x40, 0x00, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0xad, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x63, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x63, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_req[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd277ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x10ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.req", W_U, 0x77d22cfcULL, NULL, 24, 4 },
	{ "infiniband.cm.req.serviceid", W_U, 0x1061c06ULL, NULL, 32, 8 },
	{ "infiniband.cm.req.serviceid.prefix", W_BYTES, 0, NULL, 32, 5 },
	{ "infiniband.cm.req.serviceid.protocol", W_U, 0x6ULL, NULL, 37, 1 },
	{ "infiniband.cm.req.serviceid.dport", W_U, 0x1c06ULL, NULL, 38, 2 },
	{ "infiniband.cm.req.localcaguid", W_U, 0x505400fffe990002ULL, NULL, 40, 8 },
	{ "infiniband.cm.req.localqkey", W_U, 0x0ULL, NULL, 52, 4 },
	{ "infiniband.cm.req.localqpn", W_U, 0x11ULL, NULL, 56, 3 },
	{ "infiniband.cm.req.responderres", W_U, 0x1ULL, NULL, 59, 1 },
	{ "infiniband.cm.req.localeecn", W_U, 0x0ULL, NULL, 60, 3 },
	{ "infiniband.cm.req.initdepth", W_U, 0x1ULL, NULL, 63, 1 },
	{ "infiniband.cm.req.remoteeecn", W_U, 0x0ULL, NULL, 64, 3 },
	{ "infiniband.cm.req.remoteresptout", W_U, 0x14ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.transpsvctype", W_U, 0x0ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.e2eflowctrl", W_U, 0x0ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.startpsn", W_U, 0x644726ULL, NULL, 68, 3 },
	{ "infiniband.cm.req.localresptout", W_U, 0x14ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.retrcount", W_U, 0x7ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.pkey", W_U, 0xffffULL, NULL, 72, 2 },
	{ "infiniband.cm.req.pppmtu", W_U, 0x3ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rdcexist", W_U, 0x0ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rnrretrcount", W_U, 0x7ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.maxcmretr", W_U, 0xfULL, NULL, 75, 1 },
	{ "infiniband.cm.req.srq", W_U, 0x0ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.ext_transport", W_U, 0x0ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.prim_locallid", W_U, 0xffffULL, NULL, 76, 2 },
	{ "infiniband.cm.req.prim_remotelid", W_U, 0xffffULL, NULL, 78, 2 },
	{ "infiniband.cm.req.prim_localgid_ipv4", W_IP4, 0, "10.99.0.2", 92, 4 },
	{ "infiniband.cm.req.prim_remotegid_ipv4", W_IP4, 0, "10.99.0.1", 108, 4 },
	{ "infiniband.cm.req.prim_tfcclass", W_U, 0x0ULL, NULL, 116, 1 },
	{ "infiniband.cm.req.prim_hoplim", W_U, 0x40ULL, NULL, 117, 1 },
	{ "infiniband.cm.req.prim_sl", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_subnetlocal", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_reserved1", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_localacktout", W_U, 0x13ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.prim_reserved2", W_U, 0x0ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.alt_locallid", W_U, 0x0ULL, NULL, 120, 2 },
	{ "infiniband.cm.req.alt_remotelid", W_U, 0x0ULL, NULL, 122, 2 },
	{ "infiniband.cm.req.alt_localgid", W_BYTES, 0, NULL, 124, 16 },
	{ "infiniband.cm.req.alt_remotegid", W_BYTES, 0, NULL, 140, 16 },
	{ "infiniband.cm.req.alt_tfcclass", W_U, 0x0ULL, NULL, 160, 1 },
	{ "infiniband.cm.req.alt_hoplim", W_U, 0x0ULL, NULL, 161, 1 },
	{ "infiniband.cm.req.alt_sl", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_subnetlocal", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_localacktout", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.ip_cm", W_BYTES, 0, NULL, 164, 92 },
	{ "infiniband.cm.req.ip_cm.majv", W_U, 0x0ULL, NULL, 164, 1 },
	{ "infiniband.cm.req.ip_cm.minv", W_U, 0x0ULL, NULL, 164, 1 },
	{ "infiniband.cm.req.ip_cm.ipv", W_U, 0x4ULL, NULL, 165, 1 },
	{ "infiniband.cm.req.ip_cm.reserved", W_U, 0x0ULL, NULL, 165, 1 },
	{ "infiniband.cm.req.ip_cm.sport", W_U, 0xad64ULL, NULL, 166, 2 },
	{ "infiniband.cm.req.ip_cm.sip4", W_IP4, 0, "10.99.0.2", 180, 4 },
	{ "infiniband.cm.req.ip_cm.dip4", W_IP4, 0, "10.99.0.1", 196, 4 },
	{ "infiniband.cm.req.ip_cm.private", W_BYTES, 0, NULL, 200, 56 },
};

/* roce_rping.pcap frame 4: MAD at frame offset 62 */
static const uint8_t mad_rep[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x77,
	0x00, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xae, 0xd9, 0x6a, 0xbb, 0x77, 0xd2, 0x2c, 0xfc,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0xed, 0xb8, 0xd8, 0x00,
	0x01, 0x01, 0x78, 0xe0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x99, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_rep[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd277ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x13ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.rep", W_U, 0xaed96abbULL, NULL, 24, 4 },
	{ "infiniband.cm.rep.remotecommid", W_U, 0x77d22cfcULL, NULL, 28, 4 },
	{ "infiniband.cm.rep.localqkey", W_U, 0x0ULL, NULL, 32, 4 },
	{ "infiniband.cm.rep.localqpn", W_U, 0x11ULL, NULL, 36, 3 },
	{ "infiniband.cm.rep.localeecn", W_U, 0x0ULL, NULL, 40, 3 },
	{ "infiniband.cm.rep.startpsn", W_U, 0xedb8d8ULL, NULL, 44, 3 },
	{ "infiniband.cm.rep.respres", W_U, 0x1ULL, NULL, 48, 1 },
	{ "infiniband.cm.rep.initdepth", W_U, 0x1ULL, NULL, 49, 1 },
	{ "infiniband.cm.rep.tgtackdelay", W_U, 0xfULL, NULL, 50, 1 },
	{ "infiniband.cm.rep.failoveracc", W_U, 0x0ULL, NULL, 50, 1 },
	{ "infiniband.cm.rep.e2eflowctrl", W_U, 0x0ULL, NULL, 50, 1 },
	{ "infiniband.cm.rep.rnrretrcount", W_U, 0x7ULL, NULL, 51, 1 },
	{ "infiniband.cm.rep.srq", W_U, 0x0ULL, NULL, 51, 1 },
	{ "infiniband.cm.rep.reserved", W_U, 0x0ULL, NULL, 51, 1 },
	{ "infiniband.cm.rep.localcaguid", W_U, 0x505400fffe990001ULL, NULL, 52, 8 },
	{ "infiniband.cm.rep.private", W_BYTES, 0, NULL, 60, 196 },
};

/* roce_rping.pcap frame 5: MAD at frame offset 62 */
static const uint8_t mad_rtu[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x77,
	0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xd2, 0x2c, 0xfc, 0xae, 0xd9, 0x6a, 0xbb,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_rtu[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd277ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x14ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.rtu.localcommid", W_U, 0x77d22cfcULL, NULL, 24, 4 },
	{ "infiniband.cm.rtu.remotecommid", W_U, 0xaed96abbULL, NULL, 28, 4 },
	{ "infiniband.cm.rtu.private", W_BYTES, 0, NULL, 32, 224 },
};

/* roce_rping.pcap frame 54: MAD at frame offset 62 */
static const uint8_t mad_dreq[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x77,
	0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xd2, 0x2c, 0xfc, 0xae, 0xd9, 0x6a, 0xbb,
	0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_dreq[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd277ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x15ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.dreq.localcommid", W_U, 0x77d22cfcULL, NULL, 24, 4 },
	{ "infiniband.cm.dreq.remotecommid", W_U, 0xaed96abbULL, NULL, 28, 4 },
	{ "infiniband.cm.req.remoteqpneecn", W_U, 0x11ULL, NULL, 32, 3 },
	{ "infiniband.cm.dreq.private", W_BYTES, 0, NULL, 36, 220 },
};

/* roce_rping.pcap frame 55: MAD at frame offset 62 */
static const uint8_t mad_drep[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x77,
	0x00, 0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xae, 0xd9, 0x6a, 0xbb, 0x77, 0xd2, 0x2c, 0xfc,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_drep[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd277ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x16ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.drsp.localcommid", W_U, 0xaed96abbULL, NULL, 24, 4 },
	{ "infiniband.cm.drsp.remotecommid", W_U, 0x77d22cfcULL, NULL, 28, 4 },
	{ "infiniband.cm.drsp.private", W_BYTES, 0, NULL, 32, 224 },
};

/* roce_udaddy.pcap frame 1: MAD at frame offset 62 */
static const uint8_t mad_sidr_req[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x73,
	0x00, 0x17, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x73, 0xd2, 0x2c, 0xfc, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x11, 0x1c, 0x06, 0x00, 0x40, 0xa2, 0x03, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x63, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x63, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_sidr_req[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd273ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x17ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
};

/* roce_udaddy.pcap frame 2: MAD at frame offset 62 */
static const uint8_t mad_sidr_rep[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x2c, 0xd2, 0x73,
	0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x73, 0xd2, 0x2c, 0xfc, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x11, 0x1c, 0x06, 0x01, 0x23, 0x45, 0x67,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_sidr_rep[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x2fc2cd273ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x18ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
};

/* REJ, hand-built (REP rejected, reason 12, ARI = the GID).  hand.pcap frame 1: MAD at frame offset 62 */
static const uint8_t mad_rej[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44,
	0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5a, 0x5a, 0x00, 0x01, 0x6b, 0x6b, 0x00, 0x02,
	0x40, 0x20, 0x00, 0x0c, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x54, 0x00, 0xff,
	0xfe, 0x99, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x31, 0x32, 0x33,
	0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43,
	0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53,
	0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63,
	0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73,
	0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x82, 0x83,
	0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93,
	0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f, 0xa0, 0xa1, 0xa2, 0xa3,
	0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3,
	0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3,
};
static const struct want want_rej[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0xabcdef0011223344ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x12ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.rej.localcommid", W_U, 0x5a5a0001ULL, NULL, 24, 4 },
	{ "infiniband.cm.rej.remotecommid", W_U, 0x6b6b0002ULL, NULL, 28, 4 },
	{ "infiniband.cm.rej.msgrej", W_U, 0x1ULL, NULL, 32, 1 },
	{ "infiniband.cm.rej.rejinfolen", W_U, 0x10ULL, NULL, 33, 1 },
	{ "infiniband.cm.rej.reserved1", W_U, 0x0ULL, NULL, 33, 1 },
	{ "infiniband.cm.rej.reason", W_U, 0xcULL, NULL, 34, 2 },
	{ "infiniband.cm.rej.ari", W_BYTES, 0, NULL, 36, 72 },
	{ "infiniband.cm.rej.private", W_BYTES, 0, NULL, 108, 148 },
};

/* MRA, hand-built (msg 2 = LAP, timeout 23).  hand.pcap frame 2: MAD at frame offset 62 */
static const uint8_t mad_mra[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42,
	0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02, 0x02,
	0x80, 0xb8, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d,
	0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d,
	0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d,
	0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d,
	0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d,
	0x7e, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d,
	0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d,
	0x9e, 0x9f, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad,
	0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd,
	0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd,
	0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd,
	0xde, 0xdf, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed,
	0xee, 0xef, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd,
	0xfe, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
};
static const struct want want_mra[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x42ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x11ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
};

/* REQ, hand-built, IPv6 GIDs and rdma_cm header, IPv6 frame.  hand.pcap frame 3: MAD at frame offset 82 */
static const uint8_t mad_req6[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0xee, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x4e, 0x21, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34,
	0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x00, 0x01, 0x23, 0x03, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x88, 0xfe, 0xdc, 0xba, 0x97, 0x80, 0x01, 0x46, 0xf8, 0xff, 0xff, 0xff, 0xff,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x12, 0x34, 0x50, 0x10, 0x20, 0x40, 0x30, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x60, 0x9a, 0xbc, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
	0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67,
};
static const struct want want_req6[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x77ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x10ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.req", W_U, 0xc0ffee01ULL, NULL, 24, 4 },
	{ "infiniband.cm.req.serviceid", W_U, 0x1064e21ULL, NULL, 32, 8 },
	{ "infiniband.cm.req.serviceid.prefix", W_BYTES, 0, NULL, 32, 5 },
	{ "infiniband.cm.req.serviceid.protocol", W_U, 0x6ULL, NULL, 37, 1 },
	{ "infiniband.cm.req.serviceid.dport", W_U, 0x4e21ULL, NULL, 38, 2 },
	{ "infiniband.cm.req.localcaguid", W_U, 0x2c90300001234ULL, NULL, 40, 8 },
	{ "infiniband.cm.req.localqkey", W_U, 0x11223344ULL, NULL, 52, 4 },
	{ "infiniband.cm.req.localqpn", W_U, 0x123ULL, NULL, 56, 3 },
	{ "infiniband.cm.req.responderres", W_U, 0x3ULL, NULL, 59, 1 },
	{ "infiniband.cm.req.localeecn", W_U, 0x0ULL, NULL, 60, 3 },
	{ "infiniband.cm.req.initdepth", W_U, 0x2ULL, NULL, 63, 1 },
	{ "infiniband.cm.req.remoteeecn", W_U, 0x0ULL, NULL, 64, 3 },
	{ "infiniband.cm.req.remoteresptout", W_U, 0x11ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.transpsvctype", W_U, 0x0ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.e2eflowctrl", W_U, 0x0ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.startpsn", W_U, 0xfedcbaULL, NULL, 68, 3 },
	{ "infiniband.cm.req.localresptout", W_U, 0x12ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.retrcount", W_U, 0x7ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.pkey", W_U, 0x8001ULL, NULL, 72, 2 },
	{ "infiniband.cm.req.pppmtu", W_U, 0x4ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rdcexist", W_U, 0x0ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rnrretrcount", W_U, 0x6ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.maxcmretr", W_U, 0xfULL, NULL, 75, 1 },
	{ "infiniband.cm.req.srq", W_U, 0x1ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.ext_transport", W_U, 0x0ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.prim_locallid", W_U, 0xffffULL, NULL, 76, 2 },
	{ "infiniband.cm.req.prim_remotelid", W_U, 0xffffULL, NULL, 78, 2 },
	{ "infiniband.cm.req.prim_localgid", W_IP6, 0, "fe80::1", 80, 16 },
	{ "infiniband.cm.req.prim_remotegid", W_IP6, 0, "2001:db8::2", 96, 16 },
	{ "infiniband.cm.req.prim_tfcclass", W_U, 0x20ULL, NULL, 116, 1 },
	{ "infiniband.cm.req.prim_hoplim", W_U, 0x40ULL, NULL, 117, 1 },
	{ "infiniband.cm.req.prim_sl", W_U, 0x3ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_subnetlocal", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_reserved1", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_localacktout", W_U, 0x10ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.prim_reserved2", W_U, 0x0ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.alt_locallid", W_U, 0x0ULL, NULL, 120, 2 },
	{ "infiniband.cm.req.alt_remotelid", W_U, 0x0ULL, NULL, 122, 2 },
	{ "infiniband.cm.req.alt_localgid", W_BYTES, 0, NULL, 124, 16 },
	{ "infiniband.cm.req.alt_remotegid", W_BYTES, 0, NULL, 140, 16 },
	{ "infiniband.cm.req.alt_tfcclass", W_U, 0x0ULL, NULL, 160, 1 },
	{ "infiniband.cm.req.alt_hoplim", W_U, 0x0ULL, NULL, 161, 1 },
	{ "infiniband.cm.req.alt_sl", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_subnetlocal", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_localacktout", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.ip_cm", W_BYTES, 0, NULL, 164, 92 },
	{ "infiniband.cm.req.ip_cm.majv", W_U, 0x0ULL, NULL, 164, 1 },
	{ "infiniband.cm.req.ip_cm.minv", W_U, 0x0ULL, NULL, 164, 1 },
	{ "infiniband.cm.req.ip_cm.ipv", W_U, 0x6ULL, NULL, 165, 1 },
	{ "infiniband.cm.req.ip_cm.reserved", W_U, 0x0ULL, NULL, 165, 1 },
	{ "infiniband.cm.req.ip_cm.sport", W_U, 0x9abcULL, NULL, 166, 2 },
	{ "infiniband.cm.req.ip_cm.sip6", W_IP6, 0, "fe80::1", 168, 16 },
	{ "infiniband.cm.req.ip_cm.dip6", W_IP6, 0, "2001:db8::2", 184, 16 },
	{ "infiniband.cm.req.ip_cm.private", W_BYTES, 0, NULL, 200, 56 },
};

/* REQ with an IPoIB port-space service ID (0x0002): rdma_cm's header, which
 * Wireshark 4.0 does not show as IP CM (it wants 0x00000000_01......).
 * crafted.pcap frame 5: MAD at frame offset 62 */
static const uint8_t mad_req_ipoib[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x99,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef, 0x04, 0x00, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x00, 0xaa, 0x12, 0x34, 0x56, 0xa6, 0xff, 0xff, 0x55, 0xf8, 0xff, 0xff, 0xff, 0xff,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x99, 0x00, 0x02,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x02, 0xa0, 0xa1, 0xa2, 0xa3, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const struct want want_req_ipoib[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x99ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x10ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.req", W_U, 0xdeadbeefULL, NULL, 24, 4 },
	{ "infiniband.cm.req.serviceid", W_U, 0x21234ULL, NULL, 32, 8 },
	{ "infiniband.cm.req.localcaguid", W_U, 0x102030405060708ULL, NULL, 40, 8 },
	{ "infiniband.cm.req.localqkey", W_U, 0x0ULL, NULL, 52, 4 },
	{ "infiniband.cm.req.localqpn", W_U, 0xabcdefULL, NULL, 56, 3 },
	{ "infiniband.cm.req.responderres", W_U, 0x4ULL, NULL, 59, 1 },
	{ "infiniband.cm.req.localeecn", W_U, 0x0ULL, NULL, 60, 3 },
	{ "infiniband.cm.req.initdepth", W_U, 0x5ULL, NULL, 63, 1 },
	{ "infiniband.cm.req.remoteeecn", W_U, 0x0ULL, NULL, 64, 3 },
	{ "infiniband.cm.req.remoteresptout", W_U, 0x15ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.transpsvctype", W_U, 0x1ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.e2eflowctrl", W_U, 0x0ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.startpsn", W_U, 0x123456ULL, NULL, 68, 3 },
	{ "infiniband.cm.req.localresptout", W_U, 0x14ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.retrcount", W_U, 0x6ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.pkey", W_U, 0xffffULL, NULL, 72, 2 },
	{ "infiniband.cm.req.pppmtu", W_U, 0x5ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rdcexist", W_U, 0x0ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rnrretrcount", W_U, 0x5ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.maxcmretr", W_U, 0xfULL, NULL, 75, 1 },
	{ "infiniband.cm.req.srq", W_U, 0x1ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.ext_transport", W_U, 0x0ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.prim_locallid", W_U, 0xffffULL, NULL, 76, 2 },
	{ "infiniband.cm.req.prim_remotelid", W_U, 0xffffULL, NULL, 78, 2 },
	{ "infiniband.cm.req.prim_localgid_ipv4", W_IP4, 0, "254.153.0.2", 92, 4 },
	{ "infiniband.cm.req.prim_remotegid_ipv4", W_IP4, 0, "0.0.0.1", 108, 4 },
	{ "infiniband.cm.req.prim_tfcclass", W_U, 0x0ULL, NULL, 116, 1 },
	{ "infiniband.cm.req.prim_hoplim", W_U, 0x40ULL, NULL, 117, 1 },
	{ "infiniband.cm.req.prim_sl", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_subnetlocal", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_reserved1", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_localacktout", W_U, 0x13ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.prim_reserved2", W_U, 0x0ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.alt_locallid", W_U, 0x0ULL, NULL, 120, 2 },
	{ "infiniband.cm.req.alt_remotelid", W_U, 0x0ULL, NULL, 122, 2 },
	{ "infiniband.cm.req.alt_localgid", W_BYTES, 0, NULL, 124, 16 },
	{ "infiniband.cm.req.alt_remotegid", W_BYTES, 0, NULL, 140, 16 },
	{ "infiniband.cm.req.alt_tfcclass", W_U, 0x0ULL, NULL, 160, 1 },
	{ "infiniband.cm.req.alt_hoplim", W_U, 0x0ULL, NULL, 161, 1 },
	{ "infiniband.cm.req.alt_sl", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_subnetlocal", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_localacktout", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.private", W_BYTES, 0, NULL, 164, 92 },
};

/* REQ with service ID 0x0000000001230001: no RDMA port space, but Wireshark
 * 4.0 shows it as IP CM all the same.  crafted.pcap frame 9: MAD at frame offset 62 */
static const uint8_t mad_req_sid0123[256] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x99,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef, 0x04, 0x00, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x00, 0xaa, 0x12, 0x34, 0x56, 0xa6, 0xff, 0xff, 0x55, 0xf8, 0xff, 0xff, 0xff, 0xff,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x99, 0x00, 0x02,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
	0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb,
	0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb,
	0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb,
	0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb,
	0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb,
};
static const struct want want_req_sid0123[] = {
	{ "infiniband.mad", W_BYTES, 0, NULL, 0, 256 },
	{ "infiniband.mad.baseversion", W_U, 0x1ULL, NULL, 0, 1 },
	{ "infiniband.mad.mgmtclass", W_U, 0x7ULL, NULL, 1, 1 },
	{ "infiniband.mad.classversion", W_U, 0x2ULL, NULL, 2, 1 },
	{ "infiniband.mad.method", W_U, 0x3ULL, NULL, 3, 1 },
	{ "infiniband.mad.status", W_U, 0x0ULL, NULL, 4, 2 },
	{ "infiniband.mad.classspecific", W_U, 0x0ULL, NULL, 6, 2 },
	{ "infiniband.mad.transactionid", W_U, 0x99ULL, NULL, 8, 8 },
	{ "infiniband.mad.attributeid", W_U, 0x10ULL, NULL, 16, 2 },
	{ "infiniband.mad.attributemodifier", W_U, 0x0ULL, NULL, 20, 4 },
	{ "infiniband.mad.data", W_BYTES, 0, NULL, 24, 232 },
	{ "infiniband.cm.req", W_U, 0xdeadbeefULL, NULL, 24, 4 },
	{ "infiniband.cm.req.serviceid", W_U, 0x1230001ULL, NULL, 32, 8 },
	{ "infiniband.cm.req.serviceid.prefix", W_BYTES, 0, NULL, 32, 5 },
	{ "infiniband.cm.req.serviceid.protocol", W_U, 0x23ULL, NULL, 37, 1 },
	{ "infiniband.cm.req.serviceid.dport", W_U, 0x1ULL, NULL, 38, 2 },
	{ "infiniband.cm.req.localcaguid", W_U, 0x102030405060708ULL, NULL, 40, 8 },
	{ "infiniband.cm.req.localqkey", W_U, 0x0ULL, NULL, 52, 4 },
	{ "infiniband.cm.req.localqpn", W_U, 0xabcdefULL, NULL, 56, 3 },
	{ "infiniband.cm.req.responderres", W_U, 0x4ULL, NULL, 59, 1 },
	{ "infiniband.cm.req.localeecn", W_U, 0x0ULL, NULL, 60, 3 },
	{ "infiniband.cm.req.initdepth", W_U, 0x5ULL, NULL, 63, 1 },
	{ "infiniband.cm.req.remoteeecn", W_U, 0x0ULL, NULL, 64, 3 },
	{ "infiniband.cm.req.remoteresptout", W_U, 0x15ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.transpsvctype", W_U, 0x1ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.e2eflowctrl", W_U, 0x0ULL, NULL, 67, 1 },
	{ "infiniband.cm.req.startpsn", W_U, 0x123456ULL, NULL, 68, 3 },
	{ "infiniband.cm.req.localresptout", W_U, 0x14ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.retrcount", W_U, 0x6ULL, NULL, 71, 1 },
	{ "infiniband.cm.req.pkey", W_U, 0xffffULL, NULL, 72, 2 },
	{ "infiniband.cm.req.pppmtu", W_U, 0x5ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rdcexist", W_U, 0x0ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.rnrretrcount", W_U, 0x5ULL, NULL, 74, 1 },
	{ "infiniband.cm.req.maxcmretr", W_U, 0xfULL, NULL, 75, 1 },
	{ "infiniband.cm.req.srq", W_U, 0x1ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.ext_transport", W_U, 0x0ULL, NULL, 75, 1 },
	{ "infiniband.cm.req.prim_locallid", W_U, 0xffffULL, NULL, 76, 2 },
	{ "infiniband.cm.req.prim_remotelid", W_U, 0xffffULL, NULL, 78, 2 },
	{ "infiniband.cm.req.prim_localgid_ipv4", W_IP4, 0, "254.153.0.2", 92, 4 },
	{ "infiniband.cm.req.prim_remotegid_ipv4", W_IP4, 0, "0.0.0.1", 108, 4 },
	{ "infiniband.cm.req.prim_tfcclass", W_U, 0x0ULL, NULL, 116, 1 },
	{ "infiniband.cm.req.prim_hoplim", W_U, 0x40ULL, NULL, 117, 1 },
	{ "infiniband.cm.req.prim_sl", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_subnetlocal", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_reserved1", W_U, 0x0ULL, NULL, 118, 1 },
	{ "infiniband.cm.req.prim_localacktout", W_U, 0x13ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.prim_reserved2", W_U, 0x0ULL, NULL, 119, 1 },
	{ "infiniband.cm.req.alt_locallid", W_U, 0x0ULL, NULL, 120, 2 },
	{ "infiniband.cm.req.alt_remotelid", W_U, 0x0ULL, NULL, 122, 2 },
	{ "infiniband.cm.req.alt_localgid", W_BYTES, 0, NULL, 124, 16 },
	{ "infiniband.cm.req.alt_remotegid", W_BYTES, 0, NULL, 140, 16 },
	{ "infiniband.cm.req.alt_tfcclass", W_U, 0x0ULL, NULL, 160, 1 },
	{ "infiniband.cm.req.alt_hoplim", W_U, 0x0ULL, NULL, 161, 1 },
	{ "infiniband.cm.req.alt_sl", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_subnetlocal", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 162, 1 },
	{ "infiniband.cm.req.alt_localacktout", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.alt_reserved1", W_U, 0x0ULL, NULL, 163, 1 },
	{ "infiniband.cm.req.ip_cm", W_BYTES, 0, NULL, 164, 92 },
	{ "infiniband.cm.req.ip_cm.majv", W_U, 0xaULL, NULL, 164, 1 },
	{ "infiniband.cm.req.ip_cm.minv", W_U, 0x0ULL, NULL, 164, 1 },
	{ "infiniband.cm.req.ip_cm.ipv", W_U, 0xaULL, NULL, 165, 1 },
	{ "infiniband.cm.req.ip_cm.reserved", W_U, 0x1ULL, NULL, 165, 1 },
	{ "infiniband.cm.req.ip_cm.sport", W_U, 0xa2a3ULL, NULL, 166, 2 },
	{ "infiniband.cm.req.ip_cm.sip6", W_IP6, 0, "a4a5:a6a7:a8a9:aaab:acad:aeaf:b0b1:b2b3", 168, 16 },
	{ "infiniband.cm.req.ip_cm.dip6", W_IP6, 0, "b4b5:b6b7:b8b9:babb:bcbd:bebf:c0c1:c2c3", 184, 16 },
	{ "infiniband.cm.req.ip_cm.private", W_BYTES, 0, NULL, 200, 56 },
};

struct vec {
	const char *name;
	const uint8_t *mad;
	const struct want *w;
	size_t nw;
	uint8_t ipver;          /* of the frame that carried it */
};

#define V(n, ipv) { #n, mad_##n, want_##n, sizeof(want_##n) / sizeof(want_##n[0]), ipv }
static const struct vec vecs[] = {
	V(req, 4), V(rep, 4), V(rtu, 4), V(dreq, 4), V(drep, 4),
	V(sidr_req, 4), V(sidr_rep, 4), V(rej, 4), V(mra, 4), V(req6, 6),
	V(req_ipoib, 4), V(req_sid0123, 4),
};
#undef V
#define NVEC (sizeof(vecs) / sizeof(vecs[0]))

/* rping frame 3 around its MAD: Ethernet, IPv4, UDP, BTH (UD SEND_ONLY to
 * QP1), DETH; then the ICRC tshark showed (0x2e297eb3). */
#define PFX 62
static const uint8_t rping_req_pfx[PFX] = {
	0x52, 0x54, 0x00, 0x99, 0x00, 0x01, 0x52, 0x54, 0x00, 0x99, 0x00, 0x02, 0x08, 0x00, 0x45, 0x00,
	0x01, 0x34, 0xdb, 0x97, 0x40, 0x00, 0x40, 0x11, 0x49, 0x59, 0x0a, 0x63, 0x00, 0x02, 0x0a, 0x63,
	0x00, 0x01, 0xd8, 0x72, 0x12, 0xb7, 0x01, 0x20, 0x00, 0x00, 0x64, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x01, 0x80, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};
static const uint8_t rping_req_icrc[4] = { 0x2e, 0x29, 0x7e, 0xb3 };
#define FRAME_LEN (PFX + ROCE_MAD_LEN + 4)

/* A hand-made view of a frame whose MAD starts at PFX, in a malloc'd buffer
 * of exactly caplen bytes (so ASan sees any read past the capture). */
static uint8_t *mkpkt(struct roce_pkt *p, const uint8_t *mad, uint32_t caplen, uint8_t ipver)
{
	uint8_t full[FRAME_LEN];
	uint8_t *buf;

	memcpy(full, rping_req_pfx, PFX);
	memcpy(full + PFX, mad, ROCE_MAD_LEN);
	memcpy(full + PFX + ROCE_MAD_LEN, rping_req_icrc, 4);
	assert_true(caplen <= FRAME_LEN);
	buf = malloc(caplen ? caplen : 1);
	assert_non_null(buf);
	memcpy(buf, full, caplen);
	memset(p, 0, sizeof(*p));
	p->data = buf;
	p->caplen = caplen;
	p->wirelen = FRAME_LEN;
	p->ip_version = ipver;
	p->payload_off = PFX;
	p->payload_len = ROCE_MAD_LEN;
	p->icrc_off = PFX + ROCE_MAD_LEN;
	return buf;
}

/* ---- field collection ------------------------------------------------------ */

#define MAXF 160
struct fset {
	struct roce_field f[MAXF];
	unsigned n;
};

static void collect(void *ctx, const struct roce_field *f)
{
	struct fset *s = ctx;
	assert_true(s->n < MAXF);
	s->f[s->n++] = *f;
}

/* The n-th field named key (tshark repeats a few names), or NULL. */
static const struct roce_field *findn(const struct fset *s, const char *key, unsigned n)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->f[i].key, key) == 0 && n-- == 0)
			return &s->f[i];
	return NULL;
}

static const struct roce_field *find1(const struct fset *s, const char *key)
{
	const struct roce_field *r = NULL;
	for (unsigned i = 0; i < s->n; i++) {
		if (strcmp(s->f[i].key, key) == 0) {
			if (r)
				fail_msg("%s emitted twice", key);
			r = &s->f[i];
		}
	}
	return r;
}

static void fields_of(const struct roce_pkt *p, struct fset *s)
{
	s->n = 0;
	roce__fields_mad(p, collect, s);
}

/* ---- 1. the field walker against tshark ------------------------------------- */

/* REQ path fields Wireshark 4.0 reads from the wrong bytes; libroce gives
 * them under the same names with the values of IBTA table 99. */
static int ws_misread(const char *key)
{
	static const char *const k[] = {
		"infiniband.cm.req.prim_flowlabel", "infiniband.cm.req.prim_pktrate",
		"infiniband.cm.req.alt_flowlabel", "infiniband.cm.req.alt_pktrate",
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(key, k[i]) == 0)
			return 1;
	return 0;
}

static void check_want(const struct vec *v, const struct roce_pkt *p, const struct fset *s)
{
	char ip[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < v->nw; i++) {
		const struct want *w = &v->w[i];
		const struct roce_field *f;
		unsigned nth = 0;

		for (size_t j = 0; j < i; j++)
			nth += strcmp(v->w[j].key, w->key) == 0;
		f = findn(s, w->key, nth);
		if (!f)
			fail_msg("%s: %s (#%u) missing", v->name, w->key, nth + 1);
		switch (w->kind) {
		case W_U:
			if (f->type != ROCE_F_UINT || f->u != w->u)
				fail_msg("%s: %s = %#llx, tshark %#llx", v->name, w->key,
					 (unsigned long long)f->u, (unsigned long long)w->u);
			break;
		case W_IP4:
		case W_IP6:
			assert_int_equal(f->type, w->kind == W_IP4 ? ROCE_F_IPV4 : ROCE_F_IPV6);
			assert_non_null(inet_ntop(w->kind == W_IP4 ? AF_INET : AF_INET6, f->b, ip, sizeof(ip)));
			if (strcmp(ip, w->ip))
				fail_msg("%s: %s = %s, tshark %s", v->name, w->key, ip, w->ip);
			/* and the same bytes as tshark's */
			__attribute__((fallthrough));
		case W_BYTES:
			if (w->kind == W_BYTES)
				assert_int_equal(f->type, ROCE_F_BYTES);
			if (f->b != p->data + PFX + w->off || f->len != w->len)
				fail_msg("%s: %s at +%ld len %u, tshark +%u len %u", v->name, w->key,
					 (long)(f->b - p->data - PFX), f->len, w->off, w->len);
			break;
		}
	}
	/* Nothing under Wireshark's names that tshark did not show, but for
	 * the fields tshark misreads (checked against the spec elsewhere). */
	for (unsigned i = 0; i < s->n; i++) {
		size_t j;
		if (strncmp(s->f[i].key, "infiniband.", 11) || ws_misread(s->f[i].key))
			continue;
		unsigned ours = 0, theirs = 0;
		for (j = 0; j < v->nw; j++)
			theirs += strcmp(v->w[j].key, s->f[i].key) == 0;
		for (j = 0; j < s->n; j++)
			ours += strcmp(s->f[j].key, s->f[i].key) == 0;
		if (ours != theirs)
			fail_msg("%s: %s emitted %u times, tshark %u", v->name, s->f[i].key,
				 ours, theirs);
	}
}

static void test_fields_match_tshark(void **state)
{
	(void)state;
	for (size_t i = 0; i < NVEC; i++) {
		struct roce_pkt p;
		struct fset s;
		uint8_t *buf = mkpkt(&p, vecs[i].mad, FRAME_LEN, vecs[i].ipver);

		roce__decode_mad(&p);
		assert_int_equal(p.mad_off, PFX);
		assert_true(p.present & ROCE_LBIT(ROCE_L_MAD));
		assert_false(p.truncated & ROCE_LBIT(ROCE_L_MAD));
		assert_false(p.invalid & ROCE_LBIT(ROCE_L_MAD));
		fields_of(&p, &s);
		check_want(&vecs[i], &p, &s);
		free(buf);
	}
}

/* Project fields, against hand-computed bytes. */
static void test_project_fields(void **state)
{
	struct roce_pkt p;
	struct fset s;
	const struct roce_field *f;
	uint8_t *buf;

	(void)state;
	buf = mkpkt(&p, mad_req, FRAME_LEN, 4);
	roce__decode_mad(&p);
	fields_of(&p, &s);
	assert_string_equal(find1(&s, "roce.cm.msg")->s, "REQ");
	assert_string_equal(find1(&s, "roce.cm.ps")->s, "TCP");
	assert_int_equal(find1(&s, "infiniband.cm.req.prim_flowlabel")->u, 0x51b22);
	assert_int_equal(find1(&s, "infiniband.cm.req.prim_pktrate")->u, 0);
	assert_int_equal(find1(&s, "roce.cm.ip.version")->u, 4);
	assert_int_equal(find1(&s, "roce.cm.ip.sport")->u, 0xad64);
	f = find1(&s, "roce.cm.ip.src");
	assert_int_equal(f->type, ROCE_F_IPV4);
	assert_ptr_equal(f->b, p.data + PFX + 24 + 140 + 16);
	assert_memory_equal(f->b, "\x0a\x63\x00\x02", 4);
	assert_memory_equal(find1(&s, "roce.cm.ip.dst")->b, "\x0a\x63\x00\x01", 4);
	free(buf);

	buf = mkpkt(&p, mad_req6, FRAME_LEN, 6);
	roce__decode_mad(&p);
	fields_of(&p, &s);
	assert_int_equal(find1(&s, "infiniband.cm.req.prim_flowlabel")->u, 0x12345);
	assert_int_equal(find1(&s, "infiniband.cm.req.prim_pktrate")->u, 0x10);
	assert_int_equal(find1(&s, "infiniband.cm.req.alt_flowlabel")->u, 0);
	assert_int_equal(find1(&s, "infiniband.cm.req.alt_pktrate")->u, 0);
	assert_int_equal(find1(&s, "roce.cm.ip.version")->u, 6);
	f = find1(&s, "roce.cm.ip.dst");
	assert_int_equal(f->type, ROCE_F_IPV6);
	assert_memory_equal(f->b, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	free(buf);

	buf = mkpkt(&p, mad_mra, FRAME_LEN, 4);
	roce__decode_mad(&p);
	fields_of(&p, &s);
	assert_string_equal(find1(&s, "roce.cm.msg")->s, "MRA");
	assert_int_equal(find1(&s, "roce.cm.mra.localcommid")->u, 0x01010101);
	assert_int_equal(find1(&s, "roce.cm.mra.remotecommid")->u, 0x02020202);
	assert_int_equal(find1(&s, "roce.cm.mra.msgmraed")->u, 2);
	assert_int_equal(find1(&s, "roce.cm.mra.servicetimeout")->u, 23);
	f = find1(&s, "roce.cm.mra.private");
	assert_ptr_equal(f->b, p.data + PFX + 34);
	assert_int_equal(f->len, 222);
	free(buf);

	buf = mkpkt(&p, mad_sidr_rep, FRAME_LEN, 4);
	roce__decode_mad(&p);
	fields_of(&p, &s);
	assert_int_equal(find1(&s, "roce.cm.sidr_rep.requestid")->u, 0x73d22cfc);
	assert_int_equal(find1(&s, "roce.cm.sidr_rep.status")->u, 0);
	assert_int_equal(find1(&s, "roce.cm.sidr_rep.qpn")->u, 0x20);
	assert_int_equal(find1(&s, "roce.cm.sidr_rep.serviceid")->u, 0x1111c06);
	assert_int_equal(find1(&s, "roce.cm.sidr_rep.qkey")->u, 0x01234567);
	assert_int_equal(find1(&s, "roce.cm.sidr_rep.private")->len, 136);
	free(buf);

	buf = mkpkt(&p, mad_rej, FRAME_LEN, 4);
	roce__decode_mad(&p);
	fields_of(&p, &s);
	assert_string_equal(find1(&s, "roce.cm.rej.reasonname")->s, "primary remote GID rejected");
	free(buf);
}

/* ---- 2. roce_cm_decode against tshark's and the spec's numbers --------------- */

static void decode_vec(const uint8_t *mad, uint8_t ipver, struct roce_cm *cm, int want_rc)
{
	struct roce_pkt p;
	uint8_t *buf = mkpkt(&p, mad, FRAME_LEN, ipver);

	roce__decode_mad(&p);
	assert_int_equal(roce_cm_decode(&p, cm), want_rc);
	free(buf);
}

static const uint8_t ip_10_99_0_1[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 99, [15] = 1 };
static const uint8_t ip_10_99_0_2[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 99, [15] = 2 };

static void test_decode_values(void **state)
{
	struct roce_cm c;

	(void)state;
	decode_vec(mad_req, 4, &c, ROCE_OK);
	assert_int_equal(c.base_version, 1);
	assert_int_equal(c.mgmt_class, 7);
	assert_int_equal(c.class_version, 2);
	assert_int_equal(c.method, 3);
	assert_int_equal(c.tid, 0x2fc2cd277ULL);
	assert_int_equal(c.attr_id, ROCE_CM_REQ);
	assert_int_equal(c.local_comm_id, 0x77d22cfc);
	assert_int_equal(c.service_id, 0x1061c06);
	assert_int_equal(c.ca_guid, 0x505400fffe990002ULL);
	assert_int_equal(c.qkey, 0);
	assert_int_equal(c.local_qpn, 0x11);
	assert_int_equal(c.resp_resources, 1);
	assert_int_equal(c.init_depth, 1);
	assert_int_equal(c.remote_resp_timeout, 0x14);
	assert_int_equal(c.transport, 0);
	assert_int_equal(c.start_psn, 0x644726);
	assert_int_equal(c.local_resp_timeout, 0x14);
	assert_int_equal(c.retry_count, 7);
	assert_int_equal(c.pkey, 0xffff);
	assert_int_equal(c.path_mtu, 3);
	assert_int_equal(c.rnr_retry_count, 7);
	assert_int_equal(c.srq, 0);
	assert_int_equal(c.local_ack_timeout, 0x13);
	assert_memory_equal(c.primary_local_gid, ip_10_99_0_2, 16);
	assert_memory_equal(c.primary_remote_gid, ip_10_99_0_1, 16);
	assert_int_equal(c.has_ip_hdr, 1);
	assert_int_equal(c.ip_major, 0);
	assert_int_equal(c.ip_minor, 0);
	assert_int_equal(c.ip_version, 4);
	assert_int_equal(c.ip_sport, 0xad64);
	assert_memory_equal(c.ip_src + 12, "\x0a\x63\x00\x02", 4);
	assert_memory_equal(c.ip_dst + 12, "\x0a\x63\x00\x01", 4);
	/* the consumer's private data, after rdma_cm's 36 bytes */
	assert_int_equal(c.private_off, PFX + 24 + 140 + 36);
	assert_int_equal(c.private_len, 92 - 36);

	decode_vec(mad_rep, 4, &c, ROCE_OK);
	assert_int_equal(c.attr_id, ROCE_CM_REP);
	assert_int_equal(c.local_comm_id, 0xaed96abb);
	assert_int_equal(c.remote_comm_id, 0x77d22cfc);
	assert_int_equal(c.qkey, 0);
	assert_int_equal(c.local_qpn, 0x11);
	assert_int_equal(c.start_psn, 0xedb8d8);
	assert_int_equal(c.resp_resources, 1);
	assert_int_equal(c.init_depth, 1);
	assert_int_equal(c.target_ack_delay, 0x0f);
	assert_int_equal(c.rnr_retry_count, 7);
	assert_int_equal(c.srq, 0);
	assert_int_equal(c.ca_guid, 0x505400fffe990001ULL);
	assert_int_equal(c.has_ip_hdr, 0);
	assert_int_equal(c.private_off, PFX + 24 + 36);
	assert_int_equal(c.private_len, 196);

	decode_vec(mad_rtu, 4, &c, ROCE_OK);
	assert_int_equal(c.local_comm_id, 0x77d22cfc);
	assert_int_equal(c.remote_comm_id, 0xaed96abb);
	assert_int_equal(c.private_off, PFX + 24 + 8);
	assert_int_equal(c.private_len, 224);

	decode_vec(mad_dreq, 4, &c, ROCE_OK);
	assert_int_equal(c.local_comm_id, 0x77d22cfc);
	assert_int_equal(c.remote_comm_id, 0xaed96abb);
	assert_int_equal(c.remote_qpn, 0x11);
	assert_int_equal(c.private_off, PFX + 24 + 12);
	assert_int_equal(c.private_len, 220);

	decode_vec(mad_drep, 4, &c, ROCE_OK);
	assert_int_equal(c.local_comm_id, 0xaed96abb);
	assert_int_equal(c.remote_comm_id, 0x77d22cfc);
	assert_int_equal(c.private_len, 224);

	/* SIDR (IBTA tables 119/120; rdma_cm's UDP Q_Key is 0x01234567) */
	decode_vec(mad_sidr_req, 4, &c, ROCE_OK);
	assert_int_equal(c.attr_id, ROCE_CM_SIDR_REQ);
	assert_int_equal(c.sidr_request_id, 0x73d22cfc);
	assert_int_equal(c.pkey, 0xffff);
	assert_int_equal(c.service_id, 0x1111c06);
	assert_int_equal(c.has_ip_hdr, 1);
	assert_int_equal(c.ip_version, 4);
	assert_int_equal(c.ip_sport, 0xa203);
	assert_memory_equal(c.ip_src + 12, "\x0a\x63\x00\x02", 4);
	assert_memory_equal(c.ip_dst + 12, "\x0a\x63\x00\x01", 4);
	assert_int_equal(c.private_off, PFX + 24 + 16 + 36);
	assert_int_equal(c.private_len, 216 - 36);

	decode_vec(mad_sidr_rep, 4, &c, ROCE_OK);
	assert_int_equal(c.sidr_request_id, 0x73d22cfc);
	assert_int_equal(c.sidr_status, 0);
	assert_int_equal(c.local_qpn, 0x20);
	assert_int_equal(c.service_id, 0x1111c06);
	assert_int_equal(c.qkey, 0x01234567);
	assert_int_equal(c.private_off, PFX + 24 + 96);
	assert_int_equal(c.private_len, 136);

	decode_vec(mad_rej, 4, &c, ROCE_OK);
	assert_int_equal(c.local_comm_id, 0x5a5a0001);
	assert_int_equal(c.remote_comm_id, 0x6b6b0002);
	assert_int_equal(c.msg_mraed, 1);
	assert_int_equal(c.rej_reason_valid, 1);
	assert_int_equal(c.rej_reason, 12);
	assert_int_equal(c.private_off, PFX + 24 + 84);
	assert_int_equal(c.private_len, 148);

	decode_vec(mad_mra, 4, &c, ROCE_OK);
	assert_int_equal(c.local_comm_id, 0x01010101);
	assert_int_equal(c.remote_comm_id, 0x02020202);
	assert_int_equal(c.msg_mraed, 2);
	assert_int_equal(c.service_timeout, 23);
	assert_int_equal(c.private_off, PFX + 24 + 10);
	assert_int_equal(c.private_len, 222);

	decode_vec(mad_req6, 6, &c, ROCE_OK);
	assert_int_equal(c.local_comm_id, 0xc0ffee01);
	assert_int_equal(c.service_id, 0x1064e21);
	assert_int_equal(c.ca_guid, 0x0002c90300001234ULL);
	assert_int_equal(c.qkey, 0x11223344);
	assert_int_equal(c.local_qpn, 0x123);
	assert_int_equal(c.resp_resources, 3);
	assert_int_equal(c.init_depth, 2);
	assert_int_equal(c.remote_resp_timeout, 0x11);
	assert_int_equal(c.start_psn, 0xfedcba);
	assert_int_equal(c.local_resp_timeout, 0x12);
	assert_int_equal(c.retry_count, 7);
	assert_int_equal(c.pkey, 0x8001);
	assert_int_equal(c.path_mtu, 4);
	assert_int_equal(c.rnr_retry_count, 6);
	assert_int_equal(c.srq, 1);
	assert_int_equal(c.local_ack_timeout, 0x10);
	assert_memory_equal(c.primary_local_gid, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	assert_int_equal(c.ip_version, 6);
	assert_int_equal(c.ip_sport, 0x9abc);
	assert_memory_equal(c.ip_src, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	assert_memory_equal(c.ip_dst, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
}

/* rdma_cm derives a RoCEv2 flow's UDP source port from the path's flow label
 * (Linux rdma_flow_label_to_udp_sport): rping's REQ says 0x51b22, and every
 * RC packet of that connection in roce_rping.pcap came from port 56118. */
static void test_flow_label_is_udp_sport(void **state)
{
	struct roce_pkt p;
	struct fset s;
	uint8_t *buf = mkpkt(&p, mad_req, FRAME_LEN, 4);
	uint32_t fl, lo;

	(void)state;
	roce__decode_mad(&p);
	fields_of(&p, &s);
	fl = (uint32_t)find1(&s, "infiniband.cm.req.prim_flowlabel")->u;
	lo = (fl & 0x3fff) ^ ((fl & 0xfc000) >> 14);
	assert_int_equal(lo | 0xc000, 56118);
	free(buf);
}

static void cm_equal(const struct roce_cm *a, const struct roce_cm *b)
{
#define EQ(m) assert_int_equal(a->m, b->m)
	EQ(base_version); EQ(mgmt_class); EQ(class_version); EQ(method); EQ(status);
	EQ(tid); EQ(attr_id); EQ(attr_mod); EQ(local_comm_id); EQ(remote_comm_id);
	EQ(service_id); EQ(ca_guid); EQ(qkey); EQ(local_qpn); EQ(remote_qpn);
	EQ(resp_resources); EQ(init_depth); EQ(start_psn); EQ(local_resp_timeout);
	EQ(remote_resp_timeout); EQ(transport); EQ(retry_count); EQ(rnr_retry_count);
	EQ(pkey); EQ(path_mtu); EQ(local_ack_timeout); EQ(target_ack_delay); EQ(srq);
	EQ(rej_reason_valid); EQ(rej_reason); EQ(msg_mraed); EQ(service_timeout);
	EQ(sidr_request_id); EQ(sidr_status); EQ(has_ip_hdr); EQ(ip_major); EQ(ip_minor);
	EQ(ip_version); EQ(ip_sport); EQ(private_off); EQ(private_len);
#undef EQ
	assert_memory_equal(a->primary_local_gid, b->primary_local_gid, 16);
	assert_memory_equal(a->primary_remote_gid, b->primary_remote_gid, 16);
	assert_memory_equal(a->ip_src, b->ip_src, 16);
	assert_memory_equal(a->ip_dst, b->ip_dst, 16);
}

/* ---- 3. every truncation length ------------------------------------------ */

static void test_truncation(void **state)
{
	(void)state;
	for (size_t i = 0; i < NVEC; i++) {
		const struct vec *v = &vecs[i];
		struct roce_pkt full, p;
		struct roce_cm cfull, c;
		struct fset sfull, s;
		uint8_t *fbuf = mkpkt(&full, v->mad, FRAME_LEN, v->ipver);

		roce__decode_mad(&full);
		assert_int_equal(roce_cm_decode(&full, &cfull), ROCE_OK);
		fields_of(&full, &sfull);

		for (uint32_t cap = 0; cap < PFX + ROCE_MAD_LEN; cap++) {
			uint8_t *buf = mkpkt(&p, v->mad, cap, v->ipver);
			char line[256];
			size_t n = 0;

			roce__decode_mad(&p);
			assert_true(p.truncated & ROCE_LBIT(ROCE_L_MAD));
			assert_false(p.invalid & ROCE_LBIT(ROCE_L_MAD));
			assert_int_equal(p.mad_off, cap >= PFX + 2 ? PFX : 0);
			p.mad_off = PFX;        /* as if a caller insisted */
			assert_int_equal(roce_cm_decode(&p, &c), ROCE_ETRUNC);
			/* what was read is what the whole MAD says */
			if (cap >= PFX + 24) {
				assert_int_equal(c.tid, cfull.tid);
				assert_int_equal(c.attr_id, cfull.attr_id);
			}
			if (cap >= cfull.private_off) {
				struct roce_cm x = cfull;
				x.private_len = c.private_len;
				cm_equal(&c, &x);
				assert_int_equal(c.private_len, cap - cfull.private_off);
			}
			/* each field given is given whole, as in the full frame */
			fields_of(&p, &s);
			for (unsigned k = 0; k < s.n; k++) {
				const struct roce_field *f = &s.f[k], *g;
				unsigned nth = 0;
				for (unsigned j = 0; j < k; j++)
					nth += strcmp(s.f[j].key, f->key) == 0;
				g = findn(&sfull, f->key, nth);
				assert_non_null(g);
				assert_int_equal(f->type, g->type);
				assert_int_equal(f->u, g->u);
				assert_int_equal(f->len, g->len);
				if (f->b) {
					assert_ptr_equal(f->b - p.data, g->b - full.data);
					assert_true(f->b + f->len <= p.data + cap);
				}
				if (f->s)
					assert_string_equal(f->s, g->s);
			}
			if (cap >= PFX + 2) {
				line[0] = 0;
				roce__summary_mad(&p, line, sizeof(line), &n);
				assert_non_null(strstr(line, "[|cm]"));
			}
			free(buf);
		}
		free(fbuf);
	}
}

/* ---- 4. builder ------------------------------------------------------------ */

static void header(struct roce_cm *c, uint16_t attr)
{
	memset(c, 0, sizeof(*c));
	c->base_version = 1;
	c->mgmt_class = 7;
	c->class_version = 2;
	c->method = 3;
	c->status = 0x0102;
	c->tid = 0x0123456789abcdefULL;
	c->attr_id = attr;
	c->attr_mod = 0xa5a5a5a5;
}

/* Builds c with priv, decodes the result, and wants c back. */
static void roundtrip(struct roce_cm *c, unsigned priv_at, unsigned priv_room, size_t plen)
{
	uint8_t mad[ROCE_MAD_LEN + 8], pd[ROCE_MAD_LEN];
	struct roce_pkt p;
	struct roce_cm d;
	uint8_t *buf;

	for (unsigned i = 0; i < sizeof(pd); i++)
		pd[i] = (uint8_t)(0x80 ^ i);
	memset(mad, 0xee, sizeof(mad));
	assert_int_equal(roce_build_cm(mad, sizeof(mad), c, pd, plen), ROCE_MAD_LEN);
	assert_int_equal(mad[ROCE_MAD_LEN], 0xee);      /* wrote 256, not more */
	buf = mkpkt(&p, mad, FRAME_LEN, 4);
	roce__decode_mad(&p);
	assert_int_equal(p.mad_off, PFX);
	assert_int_equal(p.invalid, 0);
	assert_int_equal(roce_cm_decode(&p, &d), ROCE_OK);
	c->private_off = PFX + 24 + priv_at;
	c->private_len = priv_room;
	if (c->attr_id == ROCE_CM_REJ)
		c->rej_reason_valid = 1;
	cm_equal(&d, c);
	assert_memory_equal(p.data + d.private_off, pd, plen);
	for (unsigned i = (unsigned)plen; i < priv_room; i++)
		assert_int_equal(p.data[d.private_off + i], 0);
	free(buf);
}

static void test_build_roundtrip(void **state)
{
	struct roce_cm c;

	(void)state;
	header(&c, ROCE_CM_REQ);
	c.local_comm_id = 0x11111111; c.service_id = 0x1234567890abcdefULL;
	c.ca_guid = 0x0002c903000a0b0cULL; c.qkey = 0x80010000; c.local_qpn = 0xfedcba;
	c.resp_resources = 0xfe; c.init_depth = 0x7f; c.start_psn = 0xabcdef;
	c.local_resp_timeout = 31; c.remote_resp_timeout = 17; c.transport = 3;
	c.retry_count = 5; c.rnr_retry_count = 6; c.pkey = 0x8001; c.path_mtu = 5;
	c.local_ack_timeout = 30; c.srq = 1;
	memset(c.primary_local_gid, 0x5a, 16);
	memset(c.primary_remote_gid, 0xa5, 16);
	roundtrip(&c, 140, 92, 92);

	/* with rdma_cm's header: IPv4 and IPv6, TCP and IB port spaces */
	c.service_id = 0x0000000001060000ULL | 7174;
	c.has_ip_hdr = 1; c.ip_major = 1; c.ip_minor = 2; c.ip_version = 4; c.ip_sport = 40000;
	memset(c.ip_src, 0, 16); memset(c.ip_dst, 0, 16);
	memcpy(c.ip_src + 12, "\xc0\xa8\x01\x01", 4);
	memcpy(c.ip_dst + 12, "\xc0\xa8\x01\x02", 4);
	roundtrip(&c, 140 + 36, 56, 56);
	c.service_id = 0x00000000013f0001ULL; c.ip_version = 6;
	memset(c.ip_src, 0x11, 16); memset(c.ip_dst, 0x22, 16);
	roundtrip(&c, 140 + 36, 56, 3);

	header(&c, ROCE_CM_MRA);
	c.local_comm_id = 1; c.remote_comm_id = 2; c.msg_mraed = 2; c.service_timeout = 31;
	roundtrip(&c, 10, 222, 222);

	header(&c, ROCE_CM_REJ);
	c.local_comm_id = 3; c.remote_comm_id = 4; c.msg_mraed = 1; c.rej_reason = 28;
	roundtrip(&c, 84, 148, 148);

	header(&c, ROCE_CM_REP);
	c.local_comm_id = 5; c.remote_comm_id = 6; c.qkey = 0xdeadbeef; c.local_qpn = 0x800001;
	c.start_psn = 0x7fffff; c.resp_resources = 16; c.init_depth = 8; c.target_ack_delay = 29;
	c.rnr_retry_count = 7; c.srq = 1; c.ca_guid = UINT64_MAX;
	roundtrip(&c, 36, 196, 196);

	header(&c, ROCE_CM_RTU);
	c.local_comm_id = 7; c.remote_comm_id = 8;
	roundtrip(&c, 8, 224, 224);

	header(&c, ROCE_CM_DREQ);
	c.local_comm_id = 9; c.remote_comm_id = 10; c.remote_qpn = 0xffffff;
	roundtrip(&c, 12, 220, 220);

	header(&c, ROCE_CM_DREP);
	c.local_comm_id = 11; c.remote_comm_id = 12;
	roundtrip(&c, 8, 224, 0);

	header(&c, ROCE_CM_SIDR_REQ);
	c.sidr_request_id = 13; c.pkey = 0xffff; c.service_id = 0x0000000001110000ULL | 4791;
	roundtrip(&c, 16, 216, 216);
	c.has_ip_hdr = 1; c.ip_version = 4; c.ip_sport = 1;
	roundtrip(&c, 16 + 36, 180, 180);

	header(&c, ROCE_CM_SIDR_REP);
	c.sidr_request_id = 14; c.sidr_status = 5; c.local_qpn = 0x123456;
	c.service_id = 0x0000000001110000ULL | 4791; c.qkey = 0x01234567;
	roundtrip(&c, 96, 136, 136);
}

/* Decoding a captured MAD and building it again gives the same 256 bytes;
 * for the REQ, all but the flow label and packet rate, which struct
 * roce_cm has no member for (the builder writes Linux's RoCE defaults for
 * the rest: permissive LIDs, hop limit 64, 15 CM retries). */
static void test_rebuild_captured(void **state)
{
	static const struct { const uint8_t *mad; } v[] = {
		{ mad_rep }, { mad_rtu }, { mad_dreq }, { mad_drep }, { mad_sidr_req },
		{ mad_sidr_rep }, { mad_req },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct roce_pkt p;
		struct roce_cm c;
		uint8_t out[ROCE_MAD_LEN];
		uint8_t *buf = mkpkt(&p, v[i].mad, FRAME_LEN, 4);

		roce__decode_mad(&p);
		assert_int_equal(roce_cm_decode(&p, &c), ROCE_OK);
		assert_int_equal(roce_build_cm(out, sizeof(out), &c, p.data + c.private_off,
					       c.private_len), ROCE_MAD_LEN);
		if (v[i].mad == mad_req) {
			assert_memory_equal(out, v[i].mad, 24 + 88);
			assert_memory_equal(out + 24 + 88, "\0\0\0\0", 4);
			assert_memory_equal(out + 24 + 92, v[i].mad + 24 + 92, 256 - 24 - 92);
		} else {
			assert_memory_equal(out, v[i].mad, ROCE_MAD_LEN);
		}
		free(buf);
	}
}

static void test_build_errors(void **state)
{
	struct roce_cm c;
	uint8_t out[ROCE_MAD_LEN], pd[232] = { 0 };

	(void)state;
	header(&c, ROCE_CM_RTU);
	assert_int_equal(roce_build_cm(out, 255, &c, NULL, 0), ROCE_ENOSPC);
	assert_int_equal(roce_build_cm(out, sizeof(out), NULL, NULL, 0), ROCE_EARG);
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 1), ROCE_EARG);
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, pd, 225), ROCE_EARG);
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, pd, 224), ROCE_MAD_LEN);
	c.attr_id = 0x0019;     /* LAP: not built */
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);

	header(&c, ROCE_CM_REQ);
	c.local_qpn = 0x1000000;        /* 25 bits */
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);
	c.local_qpn = 1;
	c.local_ack_timeout = 32;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);
	c.local_ack_timeout = 0;
	c.path_mtu = 16;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);
	c.path_mtu = 5;
	c.transport = 4;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);
	c.transport = 0;
	c.has_ip_hdr = 1;
	c.ip_version = 5;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);
	c.ip_version = 4;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, pd, 57), ROCE_EARG);
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, pd, 56), ROCE_MAD_LEN);
	c.has_ip_hdr = 0;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, pd, 93), ROCE_EARG);
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, pd, 92), ROCE_MAD_LEN);

	header(&c, ROCE_CM_REP);
	c.has_ip_hdr = 1;       /* only REQ and SIDR_REQ carry rdma_cm's header */
	c.ip_version = 4;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_EARG);

	/* method 0 means Send(); the header is always a CM one */
	header(&c, ROCE_CM_DREP);
	c.method = 0;
	c.base_version = 9;
	c.mgmt_class = 1;
	c.class_version = 9;
	assert_int_equal(roce_build_cm(out, sizeof(out), &c, NULL, 0), ROCE_MAD_LEN);
	assert_memory_equal(out, "\x01\x07\x02\x03\x01\x02\x00\x00\x01\x23\x45\x67\x89\xab\xcd\xef"
			    "\x00\x16\x00\x00\xa5\xa5\xa5\xa5", 24);
}

/* ---- 5. the decode hook and odd MADs ---------------------------------------- */

static void test_decode_mad_hook(void **state)
{
	struct roce_pkt p;
	struct roce_cm c;
	uint8_t mad[ROCE_MAD_LEN];
	uint8_t *buf;

	(void)state;
	/* another management class (SA, 0x03): no CM message, not an error;
	 * its MAD header is decoded (mgmt_off) */
	memcpy(mad, mad_rtu, sizeof(mad));
	mad[1] = 0x03;
	buf = mkpkt(&p, mad, FRAME_LEN, 4);
	roce__decode_mad(&p);
	assert_int_equal(p.mad_off, 0);
	assert_int_equal(p.mgmt_off, PFX);
	assert_int_equal(p.invalid, 0);
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_EINVAL);
	free(buf);

	/* a QP1 payload that is not 256 bytes */
	buf = mkpkt(&p, mad_rtu, FRAME_LEN, 4);
	p.payload_len = 200;
	roce__decode_mad(&p);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_MAD));
	assert_non_null(p.why);
	assert_int_equal(p.why_layer, ROCE_L_MAD);
	assert_int_equal(p.mad_off, PFX);
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_EINVAL);
	assert_int_equal(c.local_comm_id, 0x77d22cfc);   /* as far as it goes */
	assert_int_equal(c.private_len, 200 - 24 - 8);
	free(buf);

	/* wrong base and class versions */
	memcpy(mad, mad_rtu, sizeof(mad));
	mad[0] = 2;
	buf = mkpkt(&p, mad, FRAME_LEN, 4);
	roce__decode_mad(&p);
	assert_int_equal(p.mad_off, PFX);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_MAD));
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_EINVAL);
	free(buf);
	memcpy(mad, mad_rtu, sizeof(mad));
	mad[2] = 1;
	buf = mkpkt(&p, mad, FRAME_LEN, 4);
	roce__decode_mad(&p);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_MAD));
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_EINVAL);
	free(buf);

	/* a CM attribute libroce does not decode (LAP) */
	memcpy(mad, mad_rtu, sizeof(mad));
	mad[17] = 0x19;
	buf = mkpkt(&p, mad, FRAME_LEN, 4);
	roce__decode_mad(&p);
	assert_int_equal(p.mad_off, PFX);
	assert_int_equal(p.invalid, 0);
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_EUNSUP);
	assert_int_equal(c.attr_id, 0x19);
	free(buf);

	/* no MAD at all */
	memset(&p, 0, sizeof(p));
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_EINVAL);
}

/* rdma_cm's header only in an RDMA port space, and only IPv4/IPv6 */
static void test_ip_hdr_rules(void **state)
{
	static const struct { uint64_t sid; uint8_t ipv; int want; } t[] = {
		{ 0x0000000001060001ULL, 0x40, 1 }, { 0x0000000001110001ULL, 0x60, 1 },
		{ 0x00000000013f0001ULL, 0x40, 1 }, { 0x0000000000020001ULL, 0x40, 1 },
		{ 0x0000000001070001ULL, 0x40, 0 }, { 0x0000000101060001ULL, 0x40, 0 },
		{ 0x0000000001060001ULL, 0x50, 0 }, { 0x0000000001060001ULL, 0x00, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t mad[ROCE_MAD_LEN];
		struct roce_pkt p;
		struct roce_cm c;
		uint8_t *buf;

		memcpy(mad, mad_req, sizeof(mad));
		wr64(mad + 24 + 8, t[i].sid);
		mad[24 + 140 + 1] = t[i].ipv;
		buf = mkpkt(&p, mad, FRAME_LEN, 4);
		roce__decode_mad(&p);
		assert_int_equal(roce_cm_decode(&p, &c), ROCE_OK);
		assert_int_equal(c.has_ip_hdr, t[i].want);
		assert_int_equal(c.private_len, t[i].want ? 56 : 92);
		free(buf);
	}
}

static void test_attr_names(void **state)
{
	static const char *const n[] = { "REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP",
					 "SIDR_REQ", "SIDR_REP" };
	(void)state;
	for (unsigned i = 0; i < 9; i++)
		assert_string_equal(roce_cm_attr_name((uint16_t)(0x10 + i)), n[i]);
	assert_null(roce_cm_attr_name(0x0f));
	assert_null(roce_cm_attr_name(0x19));
	assert_null(roce_cm_attr_name(0x0001));
}

static void summary_of(const uint8_t *mad, uint8_t ipver, const char *want)
{
	struct roce_pkt p;
	char line[256];
	size_t n = 0;
	uint8_t *buf = mkpkt(&p, mad, FRAME_LEN, ipver);

	line[0] = 0;
	roce__decode_mad(&p);
	roce__summary_mad(&p, line, sizeof(line), &n);
	assert_string_equal(line, want);
	assert_int_equal(n, strlen(want));
	free(buf);
}

static void test_summary(void **state)
{
	(void)state;
	summary_of(mad_req, 4, " CM REQ comm 0x77d22cfc qpn 0x11 psn 0x644726 svc 0x1061c06"
		   " 10.99.0.2.44388 > 10.99.0.1.7174");
	summary_of(mad_rep, 4, " CM REP comm 0xaed96abb rcomm 0x77d22cfc qpn 0x11 psn 0xedb8d8");
	summary_of(mad_rtu, 4, " CM RTU comm 0x77d22cfc rcomm 0xaed96abb");
	summary_of(mad_dreq, 4, " CM DREQ comm 0x77d22cfc rcomm 0xaed96abb qpn 0x11");
	summary_of(mad_drep, 4, " CM DREP comm 0xaed96abb rcomm 0x77d22cfc");
	summary_of(mad_sidr_req, 4, " CM SIDR_REQ req 0x73d22cfc svc 0x1111c06"
		   " 10.99.0.2.41475 > 10.99.0.1.7174");
	summary_of(mad_sidr_rep, 4, " CM SIDR_REP req 0x73d22cfc status 0 qpn 0x20 qkey 0x1234567");
	summary_of(mad_rej, 4, " CM REJ comm 0x5a5a0001 rcomm 0x6b6b0002 reason 12"
		   " (primary remote GID rejected)");
	summary_of(mad_mra, 4, " CM MRA comm 0x1010101 rcomm 0x2020202 msg LAP timeout 23");
	summary_of(mad_req6, 6, " CM REQ comm 0xc0ffee01 qpn 0x123 psn 0xfedcba svc 0x1064e21"
		   " [fe80::1].39612 > [2001:db8::2].20001");
}

/* The whole rping REQ frame through roce_decode(): the decoder hands the
 * MAD to mad.c, and the ICRC tshark showed verifies. */
static void test_full_frame(void **state)
{
	uint8_t frame[FRAME_LEN];
	struct roce_pkt p;
	struct roce_cm c;

	(void)state;
	memcpy(frame, rping_req_pfx, PFX);
	memcpy(frame + PFX, mad_req, ROCE_MAD_LEN);
	memcpy(frame + PFX + ROCE_MAD_LEN, rping_req_icrc, 4);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, frame, FRAME_LEN, FRAME_LEN), ROCE_OK);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	assert_int_equal(p.mad_off, PFX);
	assert_true(p.present & ROCE_LBIT(ROCE_L_MAD));
	assert_int_equal(roce_cm_decode(&p, &c), ROCE_OK);
	assert_int_equal(c.local_comm_id, 0x77d22cfc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_match_tshark),
		cmocka_unit_test(test_project_fields),
		cmocka_unit_test(test_decode_values),
		cmocka_unit_test(test_flow_label_is_udp_sport),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_build_roundtrip),
		cmocka_unit_test(test_rebuild_captured),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_decode_mad_hook),
		cmocka_unit_test(test_ip_hdr_rules),
		cmocka_unit_test(test_attr_names),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_full_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
