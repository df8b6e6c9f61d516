/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-roce.c — RoCE analysis for Wireshark, computed by libroce.
 *
 * Wireshark's InfiniBand dissector already shows every RoCE header (it owns
 * ethertype 0x8915 and UDP 4791); this plugin adds what it lacks, as the
 * protocol "RoCE" (filter prefix roce), and shows no header field twice:
 *
 *   roce.icrc.status / .computed   the ICRC checked (IBTA vol 1 7.8.1, Annexes A16, A17)
 *   roce.analysis.*                per-QP sequence analysis, like tcp.analysis
 *   roce.flow, roce.conn.*         QP directions and their pairing (CM or traffic)
 *   UDP ports                      1021 (pre-WinOF 5.35 drivers) and any others
 *                                  handed to the InfiniBand dissector as RoCEv2
 *
 * It is a post-dissector: it runs after every other dissector on the whole
 * frame, hands the frame's bytes (tvb_get_ptr on the frame tvb, so
 * bounds-checked by epan) to roce_decode(), and asks libroce for everything
 * it shows.  Because it never depends on how the frame was dissected, it
 * sees RoCEv1, RoCEv2 over IPv4 and IPv6, VLANs, SLL, and frames another
 * dissector claimed (UDP source port 69 decoded as TFTP, for instance).
 *
 * Sequence state is built on the first, in-order pass over the frames
 * (!PINFO_FD_VISITED) and kept per frame (p_add_proto_data, file scope), so
 * later passes show the same verdicts in any order, plus the forward links
 * (acked_in, response_in) that need frames read later: tshark shows those
 * with -2, Wireshark always.  The same goes for the class of a request that
 * a later RNR NAK makes libroce judge again (roce_seq_rejudged): its frame's
 * record is updated then, and later passes show the final class.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/range.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <wiretap/wtap.h>

#include "roce.h"
#include "seq.h"
#include "rtt.h"
#include "packet-roce.h"

void proto_register_roce(void);
void proto_reg_handoff_roce(void);

static int proto_roce = -1;
static int roce_tap = -1;
static dissector_handle_t roce_post_handle;
static dissector_handle_t ib_rroce_handle;   /* InfiniBand's RoCEv2 handle */

/* ---- preferences ---------------------------------------------------------- */

#define ROCE_DEFAULT_PORTS "4791,1021"

static range_t *pref_udp_ports;
static range_t *cur_udp_ports;          /* what is registered with udp.port */
static gboolean pref_check_icrc = TRUE;
static gboolean pref_analyze_seq = TRUE;
static gboolean pref_pair_traffic = TRUE;
static guint pref_pmtu = 1024;          /* until the capture tells better */
static struct roce_cfg dec_cfg;         /* libroce decoder config from the ports */

/* ---- fields ------------------------------------------------------------------ */

static int hf_version = -1;
static int hf_icrc_status = -1;
static int hf_icrc_computed = -1;
static int hf_flow = -1;
static int hf_conn_id = -1;
static int hf_conn_srcqp = -1;
static int hf_conn_peer_flow = -1;
static int hf_conn_pairing = -1;
static int hf_conn_cm_frame = -1;
static int hf_analysis = -1;
static int hf_a_psn_space = -1;
static int hf_a_retrans = -1;
static int hf_a_episode = -1;
static int hf_a_timeout_gap = -1;
static int hf_a_ooo = -1;
static int hf_a_oos = -1;
static int hf_a_oos_start = -1;
static int hf_a_dup = -1;
static int hf_a_gap = -1;
static int hf_a_expected = -1;
static int hf_a_nak = -1;
static int hf_a_rnr = -1;
static int hf_a_implied_nak = -1;
static int hf_a_dup_ack = -1;
static int hf_a_unsolicited = -1;
static int hf_a_rtt = -1;
static int hf_a_read_rtt = -1;
static int hf_a_pmtu = -1;
static int hf_a_acked_in = -1;
static int hf_a_ack_to = -1;
static int hf_a_request_in = -1;
static int hf_a_response_in = -1;
static int hf_a_cnp = -1;
static int hf_a_ecn_ce = -1;

static gint ett_roce = -1;
static gint ett_conn = -1;
static gint ett_analysis = -1;

static expert_field ei_icrc_bad = EI_INIT;
static expert_field ei_retrans = EI_INIT;
static expert_field ei_ooo = EI_INIT;
static expert_field ei_oos = EI_INIT;
static expert_field ei_dup = EI_INIT;
static expert_field ei_gap = EI_INIT;
static expert_field ei_nak = EI_INIT;
static expert_field ei_rnr = EI_INIT;
static expert_field ei_implied_nak = EI_INIT;
static expert_field ei_dup_ack = EI_INIT;
static expert_field ei_unsolicited = EI_INIT;
static expert_field ei_cnp = EI_INIT;
static expert_field ei_ecn_ce = EI_INIT;

/* Names come from libroce, filled in at registration. */
static value_string version_vals[] = {
	{ ROCE_VER_V1, NULL }, { ROCE_VER_V2, NULL }, { ROCE_VER_V2_1021, NULL },
	{ ROCE_VER_V2_PORT, NULL }, { 0, NULL },
};
static value_string nak_vals[] = {
	{ ROCE_NAK_PSN_SEQ_ERR, NULL }, { ROCE_NAK_INVALID_REQ, NULL },
	{ ROCE_NAK_REMOTE_ACCESS, NULL }, { ROCE_NAK_REMOTE_OP, NULL },
	{ ROCE_NAK_INVALID_RD_REQ, NULL }, { 0, NULL },
};

enum { PAIR_NONE = 0, PAIR_CM, PAIR_TRAFFIC };
static const value_string pairing_vals[] = {
	{ PAIR_NONE, "not paired" },
	{ PAIR_CM, "CM REQ/REP" },
	{ PAIR_TRAFFIC, "responses to requests" },
	{ 0, NULL },
};

static void fmt_rnr(gchar *s, guint32 v)
{
	guint32 us = roce_rnr_timer_us((guint8)v);

	snprintf(s, ITEM_LABEL_LENGTH, "%u (%u.%02u ms)", v, us / 1000, us % 1000 / 10);
}

/* ---- flows and connections ---------------------------------------------------- */

/* One direction of a QP: source, destination (IP addresses, or the GRH's
 * GIDs for RoCEv1), destination QPN. */
#define FLOW_KEY_LEN 37
typedef struct {
	guint8 b[FLOW_KEY_LEN];          /* family(1) src(16) dst(16) dqpn(4, BE) */
} flow_key;

typedef struct roce_flow {
	flow_key key;
	guint32 id;                      /* roce.flow, 1-based in order of appearance */
	guint32 conn;                    /* roce.conn.id */
	struct roce_flow *peer;          /* the other direction, once paired */
	guint32 srcqp;                   /* the sender's QPN, once paired */
	guint8 pairing;                  /* PAIR_* */
	guint32 cm_frame;                /* the CM REQ that set the pair up */
	/* The PSN space of the requests this direction carries (its sender's);
	 * the responses to them travel in peer. */
	struct roce_seq_dir dir;
	struct req_ring *unacked;        /* requests waiting for an ACK (frame links) */
	struct req_ring *rdat;           /* READ and ATOMIC requests (request/response links) */
	struct req_map *reqs;            /* the latest requests by libroce's request id */
} roce_flow;

/* A REQ waiting for its REP, by the requester's local communication ID. */
typedef struct {
	guint8 family;
	guint8 src[16], dst[16];         /* requester, responder */
	guint32 qpn;                     /* requester's QPN */
	guint32 start_psn;
	guint8 path_mtu;                 /* IBTA code */
	guint32 frame;
} cm_pending;

/* (family, src, dst) -> wmem_list of flows, to find the request flows a response answers */
#define PAIR_KEY_LEN 33

static wmem_map_t *flows;            /* flow_key -> roce_flow */
static wmem_map_t *flows_by_hosts;   /* pair key -> wmem_list of roce_flow */
static wmem_map_t *cm_reqs;          /* local comm ID -> cm_pending */
static guint32 n_flows, n_conns;
static struct roce_seq_anom *spare_anom;  /* handed to libroce when a QP needs one */
static struct roce_rtt *rtt_eng;          /* RTT of every request (rtt.h), one per file */

static guint flow_key_hash(gconstpointer k)
{
	return wmem_strong_hash((const guint8 *)k, FLOW_KEY_LEN);
}

static gboolean flow_key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, FLOW_KEY_LEN) == 0;
}

static guint pair_key_hash(gconstpointer k)
{
	return wmem_strong_hash((const guint8 *)k, PAIR_KEY_LEN);
}

static gboolean pair_key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, PAIR_KEY_LEN) == 0;
}

static void roce_init(void)
{
	n_flows = 0;
	n_conns = 0;
	spare_anom = NULL;               /* file-scope memory of the last file is gone */
	/* one RTT engine per file: outstanding requests and histograms (rtt.h);
	 * a file's seq directions were reset with it */
	roce_rtt_free(rtt_eng);
	rtt_eng = roce_rtt_new(0);
}

static void make_key(flow_key *k, guint8 family, const guint8 *src, const guint8 *dst,
		     guint32 dqpn)
{
	k->b[0] = family;
	memcpy(k->b + 1, src, 16);
	memcpy(k->b + 17, dst, 16);
	k->b[33] = (guint8)(dqpn >> 24);
	k->b[34] = (guint8)(dqpn >> 16);
	k->b[35] = (guint8)(dqpn >> 8);
	k->b[36] = (guint8)dqpn;
}

static roce_flow *flow_get(const flow_key *k)
{
	roce_flow *f = (roce_flow *)wmem_map_lookup(flows, k);
	wmem_list_t *l;

	if (f)
		return f;
	f = wmem_new0(wmem_file_scope(), roce_flow);
	f->key = *k;
	f->id = ++n_flows;
	roce_seq_init(&f->dir, pref_pmtu, NULL);
	wmem_map_insert(flows, &f->key, f);
	l = (wmem_list_t *)wmem_map_lookup(flows_by_hosts, f->key.b);
	if (!l) {
		l = wmem_list_new(wmem_file_scope());
		wmem_map_insert(flows_by_hosts, f->key.b, l);
	}
	wmem_list_append(l, f);
	return f;
}

static guint32 key_dqpn(const flow_key *k)
{
	return (guint32)k->b[33] << 24 | (guint32)k->b[34] << 16 | (guint32)k->b[35] << 8 | k->b[36];
}

/* req: the requester's direction (to the responder's QPN); rsp: the other. */
static void flow_pair(roce_flow *req, roce_flow *rsp, guint8 how, guint32 cm_frame)
{
	if (req->peer && req->peer != rsp)
		req->peer->peer = NULL;
	if (rsp->peer && rsp->peer != req)
		rsp->peer->peer = NULL;
	req->peer = rsp;
	rsp->peer = req;
	req->srcqp = key_dqpn(&rsp->key);
	rsp->srcqp = key_dqpn(&req->key);
	req->pairing = rsp->pairing = how;
	req->cm_frame = rsp->cm_frame = cm_frame;
	/* a flow gets its connection number with its first frame */
	if (req->conn)
		rsp->conn = req->conn;
	else if (rsp->conn)
		req->conn = rsp->conn;
}

/* ---- per-frame results ------------------------------------------------------------ */

/* The flow's pairing is read when the frame is shown: the first pass shows
 * what was known then, later passes what the whole capture told. */
typedef struct {
	roce_flow *flow;
	guint32 flags;                   /* ROCE_A_* */
	struct roce_seq_verdict v;       /* libroce's verdict */
	guint32 psn_space;               /* the flow whose PSN space the frame is in */
	guint32 acked_in;                /* request: the ACK covering it */
	guint32 ack_to;                  /* ACK: the newest request it covers */
	guint32 request_in;              /* READ response / ATOMIC ACK: its request */
	guint32 response_in;             /* READ / ATOMIC request: its first response */
} roce_fdata;

/* ---- helpers on the decoded packet ---------------------------------------------------- */

/* libpcap link type of the record, or -1 when libroce has no decoder for it. */
static int frame_linktype(const packet_info *pinfo)
{
	if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return -1;
	switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
	case WTAP_ENCAP_ETHERNET: return ROCE_LINK_ETHERNET;
	case WTAP_ENCAP_RAW_IP:   return ROCE_LINK_RAW;
	case WTAP_ENCAP_RAW_IP4:  return ROCE_LINK_IPV4;
	case WTAP_ENCAP_RAW_IP6:  return ROCE_LINK_IPV6;
	case WTAP_ENCAP_SLL:      return ROCE_LINK_LINUX_SLL;
	case WTAP_ENCAP_SLL2:     return ROCE_LINK_LINUX_SLL2;
	default:                  return -1;
	}
}

/* Source and destination as 16 bytes each (IPv4 in the first four), from
 * libroce: IPv4, IPv6, or the RoCEv1 GRH's GIDs. */
static guint8 packet_hosts(const struct roce_pkt *p, guint8 *src, guint8 *dst)
{
	const uint8_t *s, *d;
	int n = roce_pkt_addrs(p, &s, &d);

	memset(src, 0, 16);
	memset(dst, 0, 16);
	if (n) {
		memcpy(src, s, (size_t)n);
		memcpy(dst, d, (size_t)n);
	}
	return n == 4 ? 4 : 6;
}

static void set_host_address(wmem_allocator_t *scope, address *a, guint8 family, const guint8 *b)
{
	alloc_address_wmem(scope, a, family == 4 ? AT_IPv4 : AT_IPv6, family == 4 ? 4 : 16, b);
}

/* ---- connection management: pair QPNs from CM REQ/REP ----------------------------------- */

static void cm_track(packet_info *pinfo, const struct roce_pkt *p, guint8 family,
		     const guint8 *src, const guint8 *dst)
{
	struct roce_cm cm;
	cm_pending *req;

	if (roce_cm_decode(p, &cm) != ROCE_OK)
		return;
	if (cm.attr_id == ROCE_CM_REQ && cm.transport != 2) {
		req = wmem_new0(wmem_file_scope(), cm_pending);
		req->family = family;
		memcpy(req->src, src, 16);
		memcpy(req->dst, dst, 16);
		req->qpn = cm.local_qpn;
		req->start_psn = cm.start_psn;
		req->path_mtu = cm.path_mtu;
		req->frame = pinfo->num;
		wmem_map_insert(cm_reqs, GUINT_TO_POINTER(cm.local_comm_id), req);
	} else if (cm.attr_id == ROCE_CM_REP) {
		flow_key kreq, krsp;
		roce_flow *freq, *frsp;

		req = (cm_pending *)wmem_map_lookup(cm_reqs, GUINT_TO_POINTER(cm.remote_comm_id));
		/* the REP goes responder -> requester */
		if (!req || req->family != family || memcmp(req->dst, src, 16) != 0 ||
		    memcmp(req->src, dst, 16) != 0)
			return;
		make_key(&kreq, family, req->src, req->dst, cm.local_qpn);
		make_key(&krsp, family, req->dst, req->src, req->qpn);
		freq = flow_get(&kreq);
		frsp = flow_get(&krsp);
		flow_pair(freq, frsp, PAIR_CM, req->frame);
		/* Each side's first PSN, crosswise: a REQ's starting PSN is what
		 * the active side expects to receive, i.e. the passive side's
		 * first send PSN, and the REP's is the active side's (Linux
		 * cm.c; seen in captures/lab/roce_rping.pcap: REQ 0x644726 and
		 * the passive side's READ request in frame 8 has PSN 0x644726).
		 * The path MTU is the connection's. */
		roce_seq_set_start(&freq->dir, cm.start_psn);
		roce_seq_set_start(&frsp->dir, req->start_psn);
		roce_seq_set_pmtu(&freq->dir, req->path_mtu, ROCE_SEQ_PMTU_CM);
		roce_seq_set_pmtu(&frsp->dir, req->path_mtu, ROCE_SEQ_PMTU_CM);
	}
}

/* ---- pairing from traffic ------------------------------------------------------------------ */

/* A response (ACK, READ response, ATOMIC ACK) in flow rsp answers the
 * requests of a flow going the other way; pair them when exactly one unpaired
 * flow between the two hosts requested this PSN (libroce: roce_seq_covers). */
static void traffic_pair(roce_flow *rsp, guint32 psn)
{
	guint8 rev[PAIR_KEY_LEN];
	wmem_list_t *l;
	wmem_list_frame_t *it;
	roce_flow *found = NULL;
	guint n = 0;

	if (rsp->peer)
		return;
	rev[0] = rsp->key.b[0];
	memcpy(rev + 1, rsp->key.b + 17, 16);
	memcpy(rev + 17, rsp->key.b + 1, 16);
	l = (wmem_list_t *)wmem_map_lookup(flows_by_hosts, rev);
	if (!l)
		return;
	for (it = wmem_list_head(l); it; it = wmem_list_frame_next(it)) {
		roce_flow *f = (roce_flow *)wmem_list_frame_data(it);

		if (!f->peer && roce_seq_covers(&f->dir, psn)) {
			found = f;
			n++;
		}
	}
	if (n == 1)
		flow_pair(found, rsp, PAIR_TRAFFIC, 0);
}

/* ---- sequence analysis ------------------------------------------------------------------------ */

/* Recent requests of a flow, for the frame links libroce does not keep
 * (it keeps PSNs, not frames): a ring that grows from 8 to REQ_RING
 * entries as the flow keeps more requests outstanding, oldest overwritten. */
#define REQ_RING 512
typedef struct {
	guint32 psn;
	guint8 kind;                     /* enum roce_opkind */
	roce_fdata *fd;
	guint32 frame;
} req_ent;

typedef struct req_ring {
	guint head, n, cap;              /* oldest entry, entries, size of e */
	req_ent *e;
} req_ring;

#define RING_AT(r, i) (&(r)->e[((r)->head + (i)) % (r)->cap])

static void ring_push(req_ring **rp, guint32 psn, guint8 kind, roce_fdata *fd, guint32 frame)
{
	req_ring *r = *rp;
	req_ent *e;

	if (!r) {
		r = *rp = wmem_new0(wmem_file_scope(), req_ring);
		r->cap = 8;
		r->e = wmem_alloc_array(wmem_file_scope(), req_ent, r->cap);
	}
	if (r->n == r->cap && r->cap < REQ_RING) {
		req_ent *ne = wmem_alloc_array(wmem_file_scope(), req_ent, r->cap * 2);
		guint i;

		for (i = 0; i < r->n; i++)
			ne[i] = *RING_AT(r, i);
		wmem_free(wmem_file_scope(), r->e);
		r->e = ne;
		r->head = 0;
		r->cap *= 2;
	}
	if (r->n == r->cap) {
		r->head = (r->head + 1) % r->cap;
		r->n--;
	}
	e = RING_AT(r, r->n);
	r->n++;
	e->psn = psn;
	e->kind = kind;
	e->fd = fd;
	e->frame = frame;
}

/* An acknowledgement up to psn (a positive ACK: psn itself; a NAK or an RNR
 * NAK: everything before psn): the waiting requests it covers get acked_in
 * (the first one only), and those at or after a NAK's PSN are forgotten,
 * since the responder dropped them.  Returns the newest covered request. */
static guint32 ring_ack(req_ring *r, guint32 psn, gboolean nak, guint32 frame)
{
	guint32 newest = 0;
	gint32 best = G_MININT32;
	guint i, kept = 0;

	if (!r)
		return 0;
	for (i = 0; i < r->n; i++) {
		req_ent *e = RING_AT(r, i);
		gint32 d = roce_psn_diff(e->psn, psn);

		if (nak ? d < 0 : d <= 0) {
			if (!e->fd->acked_in)
				e->fd->acked_in = frame;
			if (d >= best) {
				best = d;
				newest = e->frame;
			}
		} else if (!nak) {
			*RING_AT(r, kept) = *e;
			kept++;
		}
	}
	r->n = kept;
	return newest;
}

/* The READ (or ATOMIC) request a response answers: the newest one at or
 * before its PSN (an ATOMIC ACK carries its request's PSN exactly). */
static req_ent *ring_find(req_ring *r, guint32 psn, gboolean atomic)
{
	guint i;

	if (!r)
		return NULL;
	for (i = r->n; i-- > 0;) {
		req_ent *e = RING_AT(r, i);
		gint32 d = roce_psn_diff(psn, e->psn);

		if (atomic ? (e->kind == ROCE_OK_ATOMIC && d == 0)
			   : (e->kind == ROCE_OK_READ_REQ && d >= 0 && d < 65536))
			return e;
	}
	return NULL;
}

/* The latest requests of a flow by their id (v.req_id), so that those an RNR
 * NAK makes libroce judge again (roce_seq_rejudged) get their final class
 * before any later pass shows them.  Grows (to REQ_MAP_MAX) when a report
 * names requests it no longer holds. */
#define REQ_MAP_MIN 64                   /* > ROCE_SEQ_RLOG: all a re-judge from the log names */
#define REQ_MAP_MAX 4096
typedef struct req_map {
	guint cap;                       /* a power of two */
	roce_fdata **fd;
} req_map;

static void req_map_put(req_map **mp, guint32 id, roce_fdata *fd)
{
	req_map *m = *mp;

	if (!m) {
		m = *mp = wmem_new0(wmem_file_scope(), req_map);
		m->cap = REQ_MAP_MIN;
		m->fd = wmem_alloc0_array(wmem_file_scope(), roce_fdata *, m->cap);
	}
	m->fd[id & (m->cap - 1)] = fd;
}

static roce_fdata *req_map_get(req_map *m, guint32 id)
{
	roce_fdata *fd = m ? m->fd[id & (m->cap - 1)] : NULL;

	return fd && fd->v.req_id == id ? fd : NULL;
}

static void req_map_grow(req_map *m, guint need)
{
	roce_fdata **n;
	guint nc = m->cap, i;

	while (nc < need && nc < REQ_MAP_MAX)
		nc *= 2;
	if (nc == m->cap)
		return;
	n = wmem_alloc0_array(wmem_file_scope(), roce_fdata *, nc);
	for (i = 0; i < m->cap; i++)
		if (m->fd[i])
			n[m->fd[i]->v.req_id & (nc - 1)] = m->fd[i];
	wmem_free(wmem_file_scope(), m->fd);
	m->fd = n;
	m->cap = nc;
}

static guint32 verdict_flags(guint32 vf)
{
	static const guint32 map[][2] = {
		{ ROCE_SEQ_V_RETRANS, ROCE_A_RETRANS },
		{ ROCE_SEQ_V_EPISODE, ROCE_A_EPISODE },
		{ ROCE_SEQ_V_OUT_OF_ORDER, ROCE_A_OOO },
		{ ROCE_SEQ_V_OUT_OF_SEQ, ROCE_A_OOS },
		{ ROCE_SEQ_V_OOS_START, ROCE_A_OOS_START },
		{ ROCE_SEQ_V_DUPLICATE, ROCE_A_DUP },
		{ ROCE_SEQ_V_PSN_GAP, ROCE_A_GAP },
		{ ROCE_SEQ_V_NAK, ROCE_A_NAK },
		{ ROCE_SEQ_V_RNR_NAK, ROCE_A_RNR },
		{ ROCE_SEQ_V_IMPLIED_NAK, ROCE_A_IMPLIED_NAK },
		{ ROCE_SEQ_V_DUP_ACK, ROCE_A_DUP_ACK },
		{ ROCE_SEQ_V_UNSOLICITED, ROCE_A_UNSOLICITED },
		{ ROCE_SEQ_V_RTT, ROCE_A_RTT },
		{ ROCE_SEQ_V_READ_RTT, ROCE_A_READ_RTT },
		{ ROCE_SEQ_V_ACK, ROCE_A_ACK },
		{ ROCE_SEQ_V_PMTU, ROCE_A_PMTU },
	};
	guint32 f = 0;
	unsigned i;

	for (i = 0; i < G_N_ELEMENTS(map); i++)
		if (vf & map[i][0])
			f |= map[i][1];
	return f;
}

/* An RNR NAK showed that the responder judged the latest requests of
 * owner's PSN space otherwise than libroce did at first: their frames take
 * the new class (first pass; later passes show it). */
static void rejudge(roce_flow *owner)
{
	const guint32 cls = ROCE_A_DUP | ROCE_A_OOS | ROCE_A_OOS_START;
	struct roce_seq_rejudge r;
	unsigned i;

	for (i = 0; roce_seq_rejudged(&owner->dir, i, &r); i++) {
		roce_fdata *rf = req_map_get(owner->reqs, r.req_id);

		if (!rf)
			continue;
		rf->v.flags = (rf->v.flags & ~(guint32)ROCE_SEQ_V_CLASS) | r.flags;
		rf->v.expected_psn = r.expected_psn;
		rf->flags = (rf->flags & ~cls) | verdict_flags(r.flags);
	}
	/* keep room for as many next time */
	if (owner->reqs && i > owner->reqs->cap / 2)
		req_map_grow(owner->reqs, 2 * i);
}

/* First pass, in capture order: libroce's RC model gives the verdict; the
 * plugin adds the frame links. */
static void analyze(packet_info *pinfo, const struct roce_pkt *p, const struct roce_opinfo *oi,
		    roce_flow *f, roce_fdata *fd, gboolean icrc_bad)
{
	uint64_t ts = (uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs;
	unsigned in = icrc_bad ? ROCE_SEQ_IN_ICRC_BAD : 0;
	roce_flow *owner;
	req_ent *e;
	int rc;

	if (!spare_anom)
		spare_anom = wmem_new0(wmem_file_scope(), struct roce_seq_anom);
	switch (roce_seq_classify(p)) {
	case ROCE_SEQ_REQ:
		owner = f;
		rc = roce_seq_request(&f->dir, p, ts, in, &spare_anom, &fd->v);
		break;
	case ROCE_SEQ_RESP:
	case ROCE_SEQ_CNP_PKT:
		/* Responses answer the other direction's requests.  Unpaired,
		 * a flow that sent no requests keeps them in its own PSN space
		 * (as rocetop does), so NAKs still count. */
		owner = f->peer ? f->peer : f->dir.requests ? NULL : f;
		if (!owner)
			return;
		rc = roce_seq_response(&owner->dir, p, ts, in, &spare_anom, &fd->v);
		break;
	default:
		return;
	}
	if (rc != 0)
		return;
	roce_rtt_packet(rtt_eng, &owner->dir, p, ts, &fd->v);
	fd->psn_space = owner->id;
	if (fd->v.flags & ROCE_SEQ_V_ICRC_BAD)
		return;
	fd->flags |= verdict_flags(fd->v.flags);

	if (fd->v.flags & ROCE_SEQ_V_REQUEST) {
		req_map_put(&f->reqs, fd->v.req_id, fd);
		if (oi->kind == ROCE_OK_READ_REQ || oi->kind == ROCE_OK_ATOMIC)
			ring_push(&f->rdat, p->psn, oi->kind, fd, pinfo->num);
		if (oi->kind != ROCE_OK_READ_REQ)
			ring_push(&f->unacked, p->psn, oi->kind, fd, pinfo->num);
		return;
	}
	if (fd->v.flags & ROCE_SEQ_V_REJUDGED)
		rejudge(owner);
	if (fd->v.flags & ROCE_SEQ_V_ACK)
		fd->ack_to = ring_ack(owner->unacked, p->psn, FALSE, pinfo->num);
	else if (fd->v.flags & (ROCE_SEQ_V_NAK | ROCE_SEQ_V_RNR_NAK))
		fd->ack_to = ring_ack(owner->unacked, p->psn, TRUE, pinfo->num);
	if (oi->kind == ROCE_OK_READ_RESP || oi->kind == ROCE_OK_ATOMIC_ACK) {
		e = ring_find(owner->rdat, p->psn, oi->kind == ROCE_OK_ATOMIC_ACK);
		if (e) {
			fd->request_in = e->frame;
			if (!e->fd->response_in)
				e->fd->response_in = pinfo->num;
		}
	}
}

/* ---- the post-dissector ---------------------------------------------------------------------------- */

static roce_fdata *first_pass(packet_info *pinfo, const struct roce_pkt *p,
			      gboolean icrc_bad)
{
	const struct roce_opinfo *oi = roce_opcode_info(p->opcode);
	roce_fdata *fd = wmem_new0(wmem_file_scope(), roce_fdata);
	guint8 family, src[16], dst[16];
	flow_key k;
	roce_flow *f;

	family = packet_hosts(p, src, dst);
	make_key(&k, family, src, dst, p->dqpn);
	f = flow_get(&k);

	if (p->mad_off)
		cm_track(pinfo, p, family, src, dst);

	if (pref_pair_traffic && !icrc_bad && roce_seq_classify(p) == ROCE_SEQ_RESP)
		traffic_pair(f, p->psn);
	if (!f->conn)
		f->conn = f->peer && f->peer->conn ? f->peer->conn : ++n_conns;
	if (pref_analyze_seq)
		analyze(pinfo, p, oi, f, fd, icrc_bad);

	fd->flow = f;
	/* a frame with a bad ICRC is dropped by its receiver: it is no CNP
	 * and its ECN mark reached no one (as rocetop counts) */
	if (oi && oi->kind == ROCE_OK_CNP && !icrc_bad)
		fd->flags |= ROCE_A_CNP;
	if (p->ecn == 3 && !icrc_bad)
		fd->flags |= ROCE_A_ECN_CE;
	p_add_proto_data(wmem_file_scope(), pinfo, proto_roce, 0, fd);
	return fd;
}

static proto_item *add_gen(proto_item *it)
{
	proto_item_set_generated(it);
	return it;
}

/* Info column marks, in the order they are added, like TCP's "[TCP ...] " */
static void add_col(wmem_strbuf_t *col, const char *text)
{
	if (text)
		wmem_strbuf_append_printf(col, "[%s] ", text);
}

static void add_flag(proto_tree *t, packet_info *pinfo, tvbuff_t *tvb, int hf,
		     expert_field *ei, wmem_strbuf_t *col, const char *text)
{
	proto_item *it = add_gen(proto_tree_add_item(t, hf, tvb, 0, 0, ENC_NA));

	expert_add_info(pinfo, it, ei);
	add_col(col, text);
}

static void add_frame_link(proto_tree *t, tvbuff_t *tvb, int hf, guint32 frame)
{
	if (frame)
		add_gen(proto_tree_add_uint(t, hf, tvb, 0, 0, frame));
}

static void add_us(proto_tree *t, tvbuff_t *tvb, int hf, guint32 us)
{
	nstime_t ns;

	ns.secs = us / 1000000;
	ns.nsecs = (int)(us % 1000000) * 1000;
	add_gen(proto_tree_add_time(t, hf, tvb, 0, 0, &ns));
}

static void add_ns(proto_tree *t, tvbuff_t *tvb, int hf, guint64 v)
{
	nstime_t ns;

	ns.secs = (time_t)(v / 1000000000u);
	ns.nsecs = (int)(v % 1000000000u);
	add_gen(proto_tree_add_time(t, hf, tvb, 0, 0, &ns));
}

static void show_analysis(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo,
			  const roce_fdata *fd)
{
	const struct roce_seq_verdict *v = &fd->v;
	wmem_strbuf_t *col = wmem_strbuf_new(pinfo->pool, "");
	proto_item *ti;
	proto_tree *t;

	/* RC/XRC frames the model took, and CNP / CE marks of any transport */
	if (!fd->psn_space && !(fd->flags & (ROCE_A_CNP | ROCE_A_ECN_CE)))
		return;
	ti = add_gen(proto_tree_add_item(tree, hf_analysis, tvb, 0, 0, ENC_NA));
	t = proto_item_add_subtree(ti, ett_analysis);
	if (fd->psn_space)
		add_gen(proto_tree_add_uint(t, hf_a_psn_space, tvb, 0, 0, fd->psn_space));

	add_frame_link(t, tvb, hf_a_acked_in, fd->acked_in);
	add_frame_link(t, tvb, hf_a_ack_to, fd->ack_to);
	add_frame_link(t, tvb, hf_a_request_in, fd->request_in);
	add_frame_link(t, tvb, hf_a_response_in, fd->response_in);
	if (fd->flags & ROCE_A_RTT)
		add_ns(t, tvb, hf_a_rtt, v->rtt_ns);
	if (fd->flags & ROCE_A_READ_RTT)
		add_ns(t, tvb, hf_a_read_rtt, v->rtt_ns);
	if (fd->flags & (ROCE_A_OOS | ROCE_A_DUP))
		add_gen(proto_tree_add_uint(t, hf_a_expected, tvb, 0, 0, v->expected_psn));

	if (fd->flags & ROCE_A_RETRANS)
		add_flag(t, pinfo, tvb, hf_a_retrans, &ei_retrans, col, "RoCE Retransmission");
	if (fd->flags & ROCE_A_EPISODE) {
		add_gen(proto_tree_add_string(t, hf_a_episode, tvb, 0, 0,
					      roce_seq_trigger_name(v->trigger)));
		if (v->trigger == ROCE_SEQ_TRIG_TIMEOUT)
			add_us(t, tvb, hf_a_timeout_gap, v->gap_us);
	}
	if (fd->flags & ROCE_A_OOO)
		add_flag(t, pinfo, tvb, hf_a_ooo, &ei_ooo, col, "RoCE Out-Of-Order");
	if (fd->flags & ROCE_A_DUP)
		add_flag(t, pinfo, tvb, hf_a_dup, &ei_dup, col,
			 fd->flags & ROCE_A_RETRANS ? NULL : "RoCE Duplicate");
	if (fd->flags & ROCE_A_OOS)
		add_flag(t, pinfo, tvb, hf_a_oos, &ei_oos, col,
			 fd->flags & ROCE_A_GAP ? NULL : "RoCE Out-Of-Sequence");
	if (fd->flags & ROCE_A_OOS_START)
		add_gen(proto_tree_add_item(t, hf_a_oos_start, tvb, 0, 0, ENC_NA));
	if (fd->flags & ROCE_A_GAP) {
		ti = add_gen(proto_tree_add_uint(t, hf_a_gap, tvb, 0, 0, v->missing));
		expert_add_info_format(pinfo, ti, &ei_gap,
				       "PSN gap: %u PSN(s) before this one never seen", v->missing);
		wmem_strbuf_append_printf(col, "[RoCE PSN gap: %u missing] ", v->missing);
	}
	if (fd->flags & ROCE_A_IMPLIED_NAK) {
		ti = add_gen(proto_tree_add_uint(t, hf_a_implied_nak, tvb, 0, 0, v->missing));
		expert_add_info_format(pinfo, ti, &ei_implied_nak,
				       "Implied NAK: READ response PSN jumped, %u response(s) lost",
				       v->missing);
		add_col(col, "RoCE Implied NAK");
	}
	if (fd->flags & ROCE_A_NAK) {
		ti = add_gen(proto_tree_add_uint(t, hf_a_nak, tvb, 0, 0, v->nak_code));
		expert_add_info_format(pinfo, ti, &ei_nak, "NAK: %s", roce_nak_name(v->nak_code));
		add_col(col, "RoCE NAK");
	}
	if (fd->flags & ROCE_A_RNR) {
		ti = add_gen(proto_tree_add_uint(t, hf_a_rnr, tvb, 0, 0, v->rnr_timer));
		expert_add_info_format(pinfo, ti, &ei_rnr, "RNR NAK: retry after %u.%02u ms",
				       v->rnr_us / 1000, v->rnr_us % 1000 / 10);
		add_col(col, "RoCE RNR NAK");
	}
	if (fd->flags & ROCE_A_DUP_ACK)
		add_flag(t, pinfo, tvb, hf_a_dup_ack, &ei_dup_ack, col, "RoCE Dup ACK");
	if (fd->flags & ROCE_A_UNSOLICITED)
		add_flag(t, pinfo, tvb, hf_a_unsolicited, &ei_unsolicited, col, NULL);
	if (fd->flags & ROCE_A_PMTU)
		add_gen(proto_tree_add_uint(t, hf_a_pmtu, tvb, 0, 0,
					    roce_seq_pmtu(&fd->flow->dir)));
	if (fd->flags & ROCE_A_CNP)
		add_flag(t, pinfo, tvb, hf_a_cnp, &ei_cnp, col, "RoCE CNP");
	if (fd->flags & ROCE_A_ECN_CE)
		add_flag(t, pinfo, tvb, hf_a_ecn_ce, &ei_ecn_ce, col, "RoCE ECN-CE");
	if (wmem_strbuf_get_len(col))
		col_prepend_fence_fstr(pinfo->cinfo, COL_INFO, "%s", wmem_strbuf_get_str(col));
}


static void show_icrc(proto_tree *rt, proto_item *ti, tvbuff_t *tvb, packet_info *pinfo,
		      const struct roce_pkt *p, enum roce_icrc_status st, uint32_t computed)
{
	guint caplen = tvb_captured_length(tvb);
	gboolean have = p->icrc_off + ROCE_ICRC_LEN <= caplen;
	guint off = have ? p->icrc_off : 0, len = have ? ROCE_ICRC_LEN : 0;
	proto_item *si;

	si = add_gen(proto_tree_add_string(rt, hf_icrc_status, tvb, off, len,
					   roce_icrc_status_name(st)));
	if (st != ROCE_ICRC_UNCHECKED) {
		proto_item *ci = add_gen(proto_tree_add_uint(rt, hf_icrc_computed, tvb, off, len,
							     computed));

		/* InfiniBand's Invariant CRC field reads the four bytes big-endian */
		proto_item_append_text(ci, " (on the wire %02x %02x %02x %02x)", computed & 0xff,
				       computed >> 8 & 0xff, computed >> 16 & 0xff, computed >> 24);
	}
	proto_item_append_text(ti, ", ICRC %s", roce_icrc_status_name(st));
	if (st == ROCE_ICRC_BAD) {
		uint32_t wire = 0;

		roce_icrc_wire(p, &wire);
		expert_add_info_format(pinfo, si, &ei_icrc_bad,
				       "Bad ICRC: 0x%08x on the wire, 0x%08x computed", wire, computed);
		col_append_str(pinfo->cinfo, COL_INFO, " [Bad ICRC]");
	}
}

static void show_conn(proto_tree *rt, tvbuff_t *tvb, const roce_flow *f)
{
	proto_tree *ct;

	add_gen(proto_tree_add_uint(rt, hf_flow, tvb, 0, 0, f->id));
	ct = proto_item_add_subtree(add_gen(proto_tree_add_uint(rt, hf_conn_id, tvb, 0, 0, f->conn)),
				    ett_conn);
	if (f->peer) {
		add_gen(proto_tree_add_uint(ct, hf_conn_srcqp, tvb, 0, 0, f->srcqp));
		add_gen(proto_tree_add_uint(ct, hf_conn_peer_flow, tvb, 0, 0, f->peer->id));
	}
	add_gen(proto_tree_add_uint(ct, hf_conn_pairing, tvb, 0, 0, f->pairing));
	if (f->cm_frame)
		add_gen(proto_tree_add_uint(ct, hf_conn_cm_frame, tvb, 0, 0, f->cm_frame));
}

static void queue_tap(tvbuff_t *tvb, packet_info *pinfo, const struct roce_pkt *p,
		      const roce_fdata *fd)
{
	roce_tap_info *tap = wmem_new0(pinfo->pool, roce_tap_info);
	const roce_flow *f = fd->flow;
	guint8 family, src[16], dst[16];

	family = packet_hosts(p, src, dst);
	set_host_address(pinfo->pool, &tap->src, family, src);
	set_host_address(pinfo->pool, &tap->dst, family, dst);
	tap->dqpn = p->dqpn;
	tap->srcqp = f->srcqp;
	tap->srcqp_known = f->peer != NULL;
	tap->flow = f->id;
	tap->space = fd->psn_space;
	tap->conn = f->conn;
	tap->version = (guint8)p->version;
	tap->opcode = p->opcode;
	tap->frame_len = tvb_reported_length(tvb);
	tap->flags = fd->flags;
	tap->gap_missing = fd->v.missing;
	tap->rtt_us = fd->v.rtt_us;
	tap_queue_packet(roce_tap, pinfo, tap);
}

static int dissect_roce(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	struct roce_pkt p;
	guint caplen = tvb_captured_length(tvb);
	int lt = frame_linktype(pinfo);
	roce_fdata *fd = NULL;
	proto_item *ti;
	proto_tree *rt;
	enum roce_icrc_status st = ROCE_ICRC_UNCHECKED;
	uint32_t computed = 0;
	gboolean bth;
	guint start, end;

	if (lt < 0 || caplen == 0)
		return 0;
	roce_decode(&p, &dec_cfg, lt, tvb_get_ptr(tvb, 0, caplen), caplen,
		    tvb_reported_length(tvb));
	if (p.version == ROCE_VER_NONE)
		return 0;
	/* a RoCE frame cut in its BTH still gets its version and ICRC status */
	bth = (p.present & ROCE_LBIT(ROCE_L_BTH)) && !(p.truncated & ROCE_LBIT(ROCE_L_BTH));
	if (p.icrc_off)
		st = roce_icrc_verify(&p, &computed);
	if (bth) {
		fd = (roce_fdata *)p_get_proto_data(wmem_file_scope(), pinfo, proto_roce, 0);
		/* the first pass only: the responder drops a bad-ICRC packet */
		if (!fd && !PINFO_FD_VISITED(pinfo))
			fd = first_pass(pinfo, &p, st == ROCE_ICRC_BAD);
	}
	if (fd) {
		if (pref_check_icrc && st == ROCE_ICRC_BAD)
			fd->flags |= ROCE_A_ICRC_BAD;
		else
			fd->flags &= ~(guint32)ROCE_A_ICRC_BAD;
	}

	start = p.version == ROCE_VER_V1 ? p.grh_off : p.ip_off;
	end = MIN(p.icrc_off ? p.icrc_off + ROCE_ICRC_LEN : caplen, caplen);
	ti = proto_tree_add_item(tree, proto_roce, tvb, start, end > start ? end - start : 0, ENC_NA);
	proto_item_append_text(ti, " %s", roce_version_name(p.version));
	if (bth)
		proto_item_append_text(ti, ", DestQP 0x%06x, PSN %u", p.dqpn, p.psn);
	rt = proto_item_add_subtree(ti, ett_roce);
	add_gen(proto_tree_add_uint(rt, hf_version, tvb, 0, 0, p.version));
	/* no ICRC where libroce found none (the BTH is invalid) */
	if (pref_check_icrc && p.icrc_off)
		show_icrc(rt, ti, tvb, pinfo, &p, st, computed);
	if (!fd)
		return caplen;
	show_conn(rt, tvb, fd->flow);
	show_analysis(rt, tvb, pinfo, fd);
	if (have_tap_listener(roce_tap))
		queue_tap(tvb, pinfo, &p, fd);
	return caplen;
}

/* ---- UDP ports ----------------------------------------------------------------------------------- */

static void add_port_cfg(guint32 port, gpointer ptr _U_)
{
	if (port != ROCE_UDP_PORT && port != ROCE_UDP_PORT_LEGACY && port <= 0xffff)
		roce_cfg_add_udp_port(&dec_cfg, (uint16_t)port);
}

/* The decoder learns the ports; the InfiniBand dissector gets every port but
 * 4791, which it registers itself (and which libroce always decodes). */
static void apply_ports(void)
{
	memset(&dec_cfg, 0, sizeof(dec_cfg));
	dec_cfg.no_legacy_port = !value_is_in_range(pref_udp_ports, ROCE_UDP_PORT_LEGACY);
	range_foreach(pref_udp_ports, add_port_cfg, NULL);

	if (!ib_rroce_handle)
		return;
	if (cur_udp_ports) {
		dissector_delete_uint_range("udp.port", cur_udp_ports, ib_rroce_handle);
		wmem_free(wmem_epan_scope(), cur_udp_ports);
	}
	cur_udp_ports = range_copy(wmem_epan_scope(), pref_udp_ports);
	range_remove_value(wmem_epan_scope(), &cur_udp_ports, ROCE_UDP_PORT);
	dissector_add_uint_range("udp.port", cur_udp_ports, ib_rroce_handle);
}

/* ---- registration ------------------------------------------------------------------------------------ */

void proto_register_roce(void)
{
	static hf_register_info hf[] = {
		{ &hf_version, { "RoCE version", "roce.version", FT_UINT8, BASE_DEC,
		  VALS(version_vals), 0, "v1 (ethertype 0x8915), v2 (UDP 4791), v2-1021, v2-port (a preference port)", HFILL } },
		{ &hf_icrc_status, { "ICRC status", "roce.icrc.status", FT_STRING, BASE_NONE,
		  NULL, 0, "good, bad, or unchecked (frame truncated before the ICRC)", HFILL } },
		{ &hf_icrc_computed, { "ICRC computed", "roce.icrc.computed", FT_UINT32, BASE_HEX,
		  NULL, 0, "Invariant CRC computed by libroce (wire order, least significant byte first)", HFILL } },
		{ &hf_flow, { "QP flow", "roce.flow", FT_UINT32, BASE_DEC, NULL, 0,
		  "Index of this QP direction (source, destination, destination QP)", HFILL } },
		{ &hf_conn_id, { "Connection", "roce.conn.id", FT_UINT32, BASE_DEC, NULL, 0,
		  "Index of the connection: both directions of a paired QP share it", HFILL } },
		{ &hf_conn_srcqp, { "Source QP", "roce.conn.srcqp", FT_UINT24, BASE_HEX, NULL, 0,
		  "QPN of the sender (the peer direction's destination QP)", HFILL } },
		{ &hf_conn_peer_flow, { "Peer flow", "roce.conn.peer_flow", FT_UINT32, BASE_DEC, NULL, 0,
		  "roce.flow of the other direction", HFILL } },
		{ &hf_conn_pairing, { "Paired by", "roce.conn.pairing", FT_UINT8, BASE_DEC,
		  VALS(pairing_vals), 0, "How the two directions were paired", HFILL } },
		{ &hf_conn_cm_frame, { "CM REQ in", "roce.conn.cm_frame", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The CM REQ that set the connection up", HFILL } },
		{ &hf_analysis, { "PSN analysis", "roce.analysis", FT_NONE, BASE_NONE, NULL, 0,
		  "Sequence analysis of this QP (responder's point of view)", HFILL } },
		{ &hf_a_psn_space, { "PSN space of flow", "roce.analysis.psn_space", FT_UINT32, BASE_DEC,
		  NULL, 0, "The flow (roce.flow) whose requests' PSN space this packet belongs to: its own for a request, the requester's for a response or CNP", HFILL } },
		{ &hf_a_retrans, { "Retransmission", "roce.analysis.retransmission", FT_NONE, BASE_NONE,
		  NULL, 0, "A request whose PSN was already seen in this direction (wire view)", HFILL } },
		{ &hf_a_episode, { "Retransmission episode", "roce.analysis.episode", FT_STRING, BASE_NONE,
		  NULL, 0, "This retransmission starts an episode; what triggered it: nak, implied_nak, rnr, timeout, other (a copy made by the network)", HFILL } },
		{ &hf_a_timeout_gap, { "Silence before the timeout", "roce.analysis.timeout_gap", FT_RELATIVE_TIME, BASE_NONE,
		  NULL, 0, "Time since the last packet of this PSN space, for a timeout episode", HFILL } },
		{ &hf_a_ooo, { "Out of order", "roce.analysis.out_of_order", FT_NONE, BASE_NONE,
		  NULL, 0, "A request never seen before whose PSN is below the highest seen: it fills a hole (wire view)", HFILL } },
		{ &hf_a_oos, { "Out of sequence", "roce.analysis.out_of_sequence", FT_NONE, BASE_NONE,
		  NULL, 0, "A request beyond the responder's expected PSN (rxe out_of_sequence)", HFILL } },
		{ &hf_a_oos_start, { "Out-of-sequence run starts", "roce.analysis.out_of_seq_request", FT_NONE, BASE_NONE,
		  NULL, 0, "First request of an out-of-sequence run: the responder sends one PSN sequence error NAK (rxe out_of_seq_request)", HFILL } },
		{ &hf_a_dup, { "Duplicate", "roce.analysis.duplicate", FT_NONE, BASE_NONE,
		  NULL, 0, "A request before the responder's expected PSN (rxe duplicate_request)", HFILL } },
		{ &hf_a_gap, { "PSN gap", "roce.analysis.psn_gap", FT_UINT32, BASE_DEC,
		  NULL, 0, "A request beyond the highest PSN seen + 1: the number of PSNs skipped", HFILL } },
		{ &hf_a_expected, { "Expected PSN", "roce.analysis.expected_psn", FT_UINT24, BASE_DEC,
		  NULL, 0, "The PSN the responder expected", HFILL } },
		{ &hf_a_nak, { "NAK", "roce.analysis.nak", FT_UINT8, BASE_DEC,
		  VALS(nak_vals), 0, "A NAK and its code", HFILL } },
		{ &hf_a_rnr, { "RNR NAK", "roce.analysis.rnr_nak", FT_UINT8, BASE_CUSTOM,
		  CF_FUNC(fmt_rnr), 0, "A receiver-not-ready NAK and its timer code", HFILL } },
		{ &hf_a_implied_nak, { "Implied NAK", "roce.analysis.implied_nak", FT_UINT32, BASE_DEC,
		  NULL, 0, "READ response PSN jumped: the number of responses lost", HFILL } },
		{ &hf_a_dup_ack, { "Duplicate ACK", "roce.analysis.dup_ack", FT_NONE, BASE_NONE,
		  NULL, 0, "An ACK that acknowledges nothing new", HFILL } },
		{ &hf_a_unsolicited, { "Unsolicited response", "roce.analysis.unsolicited", FT_NONE, BASE_NONE,
		  NULL, 0, "A response to a PSN never requested (in this capture)", HFILL } },
		{ &hf_a_rtt, { "ACK RTT", "roce.analysis.ack_rtt", FT_RELATIVE_TIME, BASE_NONE,
		  NULL, 0, "Time from the newest ACK-requesting request this ACK covers to the ACK (never measured across a retransmission)", HFILL } },
		{ &hf_a_read_rtt, { "READ response time", "roce.analysis.read_rtt", FT_RELATIVE_TIME, BASE_NONE,
		  NULL, 0, "Time from the READ request to its first response", HFILL } },
		{ &hf_a_pmtu, { "Path MTU", "roce.analysis.pmtu", FT_UINT32, BASE_DEC,
		  NULL, 0, "The path MTU estimate of this PSN space changed to this value (bytes)", HFILL } },
		{ &hf_a_acked_in, { "ACKed in", "roce.analysis.acked_in", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0, "The ACK that covers this request", HFILL } },
		{ &hf_a_ack_to, { "ACK to", "roce.analysis.ack_to", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The newest request this ACK covers", HFILL } },
		{ &hf_a_request_in, { "Request in", "roce.analysis.request_in", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The READ or ATOMIC request this answers", HFILL } },
		{ &hf_a_response_in, { "Response in", "roce.analysis.response_in", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0, "The first response to this READ or ATOMIC", HFILL } },
		{ &hf_a_cnp, { "CNP", "roce.analysis.cnp", FT_NONE, BASE_NONE, NULL, 0,
		  "Congestion notification packet: the destination QP is slowed down", HFILL } },
		{ &hf_a_ecn_ce, { "ECN CE", "roce.analysis.ecn_ce", FT_NONE, BASE_NONE, NULL, 0,
		  "The IP (or GRH) ECN field says Congestion Experienced", HFILL } },
	};
	static gint *ett[] = { &ett_roce, &ett_conn, &ett_analysis };
	static ei_register_info ei[] = {
		{ &ei_icrc_bad, { "roce.icrc.bad", PI_CHECKSUM, PI_WARN, "Bad ICRC", EXPFILL } },
		{ &ei_retrans, { "roce.analysis.retransmission.expert", PI_SEQUENCE, PI_NOTE,
		  "This frame is a (suspected) retransmission", EXPFILL } },
		{ &ei_ooo, { "roce.analysis.out_of_order.expert", PI_SEQUENCE, PI_WARN,
		  "This frame is out of order: it fills a PSN hole", EXPFILL } },
		{ &ei_oos, { "roce.analysis.out_of_sequence.expert", PI_SEQUENCE, PI_WARN,
		  "Request PSN beyond the expected PSN (out of sequence)", EXPFILL } },
		{ &ei_dup, { "roce.analysis.duplicate.expert", PI_SEQUENCE, PI_NOTE,
		  "Duplicate request (PSN before the expected PSN)", EXPFILL } },
		{ &ei_gap, { "roce.analysis.psn_gap.expert", PI_SEQUENCE, PI_WARN,
		  "PSN gap: previous packets not captured", EXPFILL } },
		{ &ei_nak, { "roce.analysis.nak.expert", PI_SEQUENCE, PI_WARN, "NAK", EXPFILL } },
		{ &ei_rnr, { "roce.analysis.rnr_nak.expert", PI_SEQUENCE, PI_WARN, "RNR NAK", EXPFILL } },
		{ &ei_implied_nak, { "roce.analysis.implied_nak.expert", PI_SEQUENCE, PI_WARN,
		  "Implied NAK", EXPFILL } },
		{ &ei_dup_ack, { "roce.analysis.dup_ack.expert", PI_SEQUENCE, PI_NOTE,
		  "Duplicate ACK", EXPFILL } },
		{ &ei_unsolicited, { "roce.analysis.unsolicited.expert", PI_SEQUENCE, PI_WARN,
		  "Response to a PSN never requested", EXPFILL } },
		{ &ei_cnp, { "roce.analysis.cnp.expert", PI_SEQUENCE, PI_NOTE,
		  "Congestion notification packet", EXPFILL } },
		{ &ei_ecn_ce, { "roce.analysis.ecn_ce.expert", PI_SEQUENCE, PI_NOTE,
		  "ECN Congestion Experienced", EXPFILL } },
	};
	module_t *m;
	expert_module_t *em;
	unsigned i;

	for (i = 0; i < 4; i++)
		version_vals[i].strptr = roce_version_name((enum roce_version)version_vals[i].value);
	for (i = 0; i < 5; i++)
		nak_vals[i].strptr = roce_nak_name((guint8)nak_vals[i].value);

	proto_roce = proto_register_protocol("RDMA over Converged Ethernet analysis (libroce)",
					     "RoCE", "roce");
	proto_register_field_array(proto_roce, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_roce);
	expert_register_field_array(em, ei, array_length(ei));

	m = prefs_register_protocol(proto_roce, apply_ports);
	range_convert_str(wmem_epan_scope(), &pref_udp_ports, ROCE_DEFAULT_PORTS, 65535);
	prefs_register_range_preference(m, "udp_ports", "RoCEv2 UDP ports",
		"UDP destination ports that carry RoCEv2 (4791 is always RoCEv2; 1021 is what "
		"drivers before WinOF 5.35 used). They are also handed to the InfiniBand dissector.",
		&pref_udp_ports, 65535);
	prefs_register_bool_preference(m, "check_icrc", "Check the ICRC",
		"Compute the invariant CRC of each RoCE packet and flag mismatches", &pref_check_icrc);
	prefs_register_bool_preference(m, "analyze_psn", "Analyze PSN sequences",
		"Per-QP retransmission, out-of-order, duplicate, gap, NAK and RTT analysis "
		"(roce.analysis.*)", &pref_analyze_seq);
	prefs_register_uint_preference(m, "pmtu", "Default path MTU",
		"Path MTU (256..4096 bytes) that counts the PSNs of a READ until the capture tells "
		"(CM REQ, MTU-sized payloads, the PSN after a READ)", 10, &pref_pmtu);
	prefs_register_bool_preference(m, "pair_from_traffic", "Pair QPs from traffic",
		"Without CM REQ/REP, pair a QP's two directions from the responses that answer "
		"its requests", &pref_pair_traffic);

	flows = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), flow_key_hash,
				       flow_key_equal);
	flows_by_hosts = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
						pair_key_hash, pair_key_equal);
	cm_reqs = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
					 g_direct_equal);
	register_init_routine(roce_init);

	roce_post_handle = create_dissector_handle(dissect_roce, proto_roce);
	roce_tap = register_tap("roce");
	roce_register_stats();
}

void proto_reg_handoff_roce(void)
{
	register_postdissector(roce_post_handle);
	ib_rroce_handle = dissector_get_default_uint_handle("udp.port", ROCE_UDP_PORT);
	apply_ports();
}
