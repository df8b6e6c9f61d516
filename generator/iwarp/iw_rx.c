/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw_rx.c — DDP/RDMAP messages on the iWARP stream (iw.h): the senders
 * (segmentation at MULPDU, MSNs, MOs, TOs) and the receiver, whose checks
 * answer each error with the Terminate the RFCs name, then close:
 *
 *   MPA CRC wrong                        LLP   0 MPA error      2 CRC error (RFC 5044 8)
 *   marker pointer wrong                 LLP   0 MPA error      3 marker mismatch
 *   invalid DDP/RDMAP header (no CRC)    LLP   0 MPA error      3 (framing lost)
 *   DDP version not 1                    DDP   1/2 tagged/untagged 4/6 invalid DDP version
 *   RDMAP version not 1                  RDMAP 2 remote op      5 invalid RDMAP version
 *   tagged: STag unknown                 DDP   1 tagged buffer  0 invalid STag (RFC 5041 7.2)
 *   tagged: outside the region           DDP   1 tagged buffer  1 base or bounds
 *   tagged: TO + length wraps            DDP   1 tagged buffer  3 TO wrap
 *   tagged: not writable                 RDMAP 1 protection     2 access rights (RFC 5040 7.2)
 *   untagged: queue number > 2           DDP   2 untagged       1 invalid QN
 *   untagged: no receive posted          DDP   2 untagged       2 no buffer
 *   untagged: MSN not the next           DDP   2 untagged       3 MSN range not valid
 *   untagged: MO past the buffer         DDP   2 untagged       4 invalid MO
 *   untagged: message past the buffer    DDP   2 untagged       5 message too long
 *   Read Request: source STag unknown    RDMAP 1 protection     0 invalid STag
 *   Read Request: out of the region      RDMAP 1 protection     1 base or bounds
 *   Read Request: not readable           RDMAP 1 protection     2 access rights
 *   Read Request: more than IRD at once  RDMAP 2 remote op      7 catastrophic, stream
 *                                        (RFC 5040 5.3, RFC 6581 3; with the IRD announced: MPA rev 2)
 *   Read Response nobody asked for       RDMAP 2 remote op      6 unexpected opcode
 *   Send with Invalidate: unknown STag   RDMAP 1 protection     9 cannot be invalidated
 *   Terminate received                   no answer: the stream is over, we close
 * A zero-length tagged segment (the RTR's WRITE) is not checked against
 * any region (RFC 5040 5.4).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "iw.h"

#define L_RDMAP ROCE_TERM_RDMAP
#define L_DDP ROCE_TERM_DDP
#define L_LLP ROCE_TERM_LLP

int iw_add_mr(struct iw *w, uint32_t stag, uint64_t to, uint8_t *buf, uint64_t len, int rd, int wr)
{
	if (w->n_mr >= IW_MAX_MR)
		return -1;
	w->mr[w->n_mr++] = (struct iw_mr){ stag, to, buf, len, rd, wr };
	return 0;
}

void iw_post_recv(struct iw *w, uint8_t *buf, uint32_t cap)
{
	w->rq = buf;
	w->rq_cap = cap;
	w->rq_len = 0;
}

static struct iw_mr *find_mr(struct iw *w, uint32_t stag)
{
	for (unsigned i = 0; i < w->n_mr; i++)
		if (w->mr[i].stag == stag)
			return &w->mr[i];
	return NULL;
}

/* ---- senders ------------------------------------------------------------------------ */

/* Segment seg of nseg of a message. */
static int send_spec(struct iw *w, struct roce_iwarp_msg_spec *s, uint32_t seg, uint32_t nseg)
{
	uint8_t u[ROCE_MPA_ULPDU_MAX];
	int n = roce_iwarp_build_ulpdu(u, sizeof(u), s);

	w->tx_seg = seg;
	w->tx_nseg = nseg;

	if (n < 0) {
		snprintf(w->why, sizeof(w->why), "ULPDU build failed (%d)", n);
		return -1;
	}
	return iw_send_ulpdu(w, u, (uint32_t)n);
}

/* Payload bytes per segment after headers of hdr bytes. */
static uint32_t chunk(struct iw *w, unsigned hdr)
{
	iw_update_mulpdu(w);
	return w->mulpdu > hdr + 4 ? w->mulpdu - hdr : 4;
}

static int post_tagged(struct iw *w, uint8_t op, uint32_t stag, uint64_t to, const uint8_t *data, uint32_t len);

/* Read Responses go out in the order of their requests and before anything
 * posted after the requests arrived. */
int iw_irq_flush(struct iw *w)
{
	uint32_t n = w->reads_in;

	w->reads_in = 0;
	for (uint32_t i = 0; i < n; i++)
		if (post_tagged(w, ROCE_RDMAP_READ_RESP, w->irq[i].stag, w->irq[i].to, w->irq[i].src, w->irq[i].len))
			return -1;
	return 0;
}

int iw_post_send(struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv_stag)
{
	struct roce_iwarp_msg_spec s;
	uint32_t step = chunk(w, ROCE_DDP_UNTAGGED_LEN), mo = 0;

	if (w->reads_in && iw_irq_flush(w))
		return -1;
	if (w->fault == IW_F_MSN_GAP && w->fault_armed) {
		w->tx_msn[0]++;
		w->fault_armed = 0;
		w->st.faults[IW_F_MSN_GAP]++;
	}
	do {
		uint32_t n = len - mo < step ? len - mo : step;

		memset(&s, 0, sizeof(s));
		s.opcode = op;
		s.last = mo + n == len;
		s.inv_stag = inv_stag;
		s.qn = ~0u;
		if (w->fault == IW_F_BAD_QN && w->fault_armed) {
			s.qn = 7;
			w->fault_armed = 0;
			w->st.faults[IW_F_BAD_QN]++;
		}
		s.msn = w->tx_msn[0];
		s.mo = mo;
		s.payload = data ? data + mo : NULL;
		s.payload_len = n;
		if (send_spec(w, &s, mo / step, len ? (len + step - 1) / step : 1))
			return -1;
		mo += n;
	} while (mo < len);
	w->tx_msn[0]++;
	w->st.tx_msgs[op & 15]++;
	return 0;
}

static int post_tagged(struct iw *w, uint8_t op, uint32_t stag, uint64_t to, const uint8_t *data, uint32_t len)
{
	struct roce_iwarp_msg_spec s;
	uint32_t step = chunk(w, ROCE_DDP_TAGGED_LEN), off = 0;

	do {
		uint32_t n = len - off < step ? len - off : step;

		memset(&s, 0, sizeof(s));
		s.opcode = op;
		s.last = off + n == len;
		s.stag = stag;
		s.to = to + off;
		s.payload = data ? data + off : NULL;
		s.payload_len = n;
		if (send_spec(w, &s, off / step, len ? (len + step - 1) / step : 1))
			return -1;
		off += n;
	} while (off < len);
	w->st.tx_msgs[op & 15]++;
	return 0;
}

int iw_post_write(struct iw *w, uint32_t stag, uint64_t to, const uint8_t *data, uint32_t len)
{
	if (w->reads_in && iw_irq_flush(w))
		return -1;
	return post_tagged(w, ROCE_RDMAP_WRITE, stag, to, data, len);
}

int iw_post_read(struct iw *w, uint32_t sink_stag, uint64_t sink_to, uint32_t size, uint32_t src_stag,
		 uint64_t src_to)
{
	struct roce_iwarp_msg_spec s;

	if (w->reads_in && iw_irq_flush(w))
		return -1;
	memset(&s, 0, sizeof(s));
	s.opcode = ROCE_RDMAP_READ_REQ;
	s.last = 1;
	s.qn = ~0u;
	s.msn = w->tx_msn[1]++;
	s.sink_stag = sink_stag;
	s.sink_to = sink_to;
	s.read_size = size;
	s.src_stag = src_stag;
	s.src_to = src_to;
	w->reads_out++;
	w->st.tx_msgs[ROCE_RDMAP_READ_REQ]++;
	return send_spec(w, &s, 0, 1);
}

void iw_terminate(struct iw *w, uint8_t layer, uint8_t etype, uint8_t code, const struct roce_iwarp_msg *hdr,
		  const uint8_t *ulpdu, uint32_t ulpdu_len)
{
	struct roce_iwarp_msg_spec s;

	if (w->dead)
		return;
	if (w->reads_in)   /* the Read Requests accepted before the error are answered first */
		iw_irq_flush(w);
	memset(&s, 0, sizeof(s));
	s.opcode = ROCE_RDMAP_TERMINATE;
	s.last = 1;
	s.qn = ~0u;
	s.msn = w->tx_msn[2]++;
	s.term_layer = layer;
	s.term_etype = etype;
	s.term_code = code;
	if (hdr && ulpdu && ulpdu_len >= (hdr->tagged ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN)) {
		/* RFC 5040 4.8: the DDP header of the segment in error, and the
		 * RDMAP header of a Read Request */
		s.term_hdrct = ROCE_TERM_HDRCT_M | ROCE_TERM_HDRCT_D;
		s.term_seglen = (uint16_t)ulpdu_len;
		s.term_ddp = ulpdu;
		if (hdr->opcode == ROCE_RDMAP_READ_REQ && ulpdu_len >= ROCE_DDP_UNTAGGED_LEN + ROCE_RDMAP_READREQ_LEN) {
			s.term_hdrct |= ROCE_TERM_HDRCT_R;
			s.term_rdma = ulpdu + ROCE_DDP_UNTAGGED_LEN;
		}
	}
	w->fault_armed = 0;
	send_spec(w, &s, 0, 1);
	w->term_tx = (struct iw_term){ 1, layer, etype, code, s.term_hdrct };
	w->st.tx_msgs[ROCE_RDMAP_TERMINATE]++;
	w->dead = 1;
	snprintf(w->why, sizeof(w->why), "sent Terminate: %s %s: %s", roce_term_layer_name(layer),
		 roce_term_etype_name(layer, etype) ? roce_term_etype_name(layer, etype) : "?",
		 roce_term_code_name(layer, etype, code) ? roce_term_code_name(layer, etype, code) : "?");
	shutdown(w->fd, SHUT_WR);
}

/* ---- receiver ------------------------------------------------------------------------- */

struct seg {
	const struct roce_iwarp_msg *m;
	const uint8_t *u;            /* the ULPDU */
	uint32_t ulen;
};

static void term(struct iw *w, const struct seg *g, uint8_t layer, uint8_t etype, uint8_t code)
{
	iw_terminate(w, layer, etype, code, g ? g->m : NULL, g ? g->u : NULL, g ? g->ulen : 0);
}

static void tagged(struct iw *w, const struct seg *g)
{
	const struct roce_iwarp_msg *m = g->m;
	struct iw_mr *mr = find_mr(w, m->stag);
	int resp = m->opcode == ROCE_RDMAP_READ_RESP;

	if (resp && !w->reads_out)
		return term(w, g, L_RDMAP, 2, 0x06);
	if (m->payload_len) {
		if (!mr)
			return term(w, g, L_DDP, 1, 0x00);
		if (m->to + m->payload_len < m->to)
			return term(w, g, L_DDP, 1, 0x03);
		if (m->to < mr->to || m->to + m->payload_len > mr->to + mr->len)
			return term(w, g, L_DDP, 1, 0x01);
		if (!resp && !mr->wr)
			return term(w, g, L_RDMAP, 1, 0x02);
		memcpy(mr->buf + (m->to - mr->to), m->payload, m->payload_len);
	}
	if (!m->last)
		return;
	w->st.rx_msgs[m->opcode]++;
	if (resp) {
		w->reads_out--;
		w->st.reads_done++;
		if (w->on_read)
			w->on_read(w->ctx, w);
	}
}

static void read_req(struct iw *w, const struct seg *g)
{
	const struct roce_iwarp_msg *m = g->m;
	struct iw_mr *mr = find_mr(w, m->src_stag);
	const uint8_t *src = NULL;

	w->rreq_sink_stag = m->sink_stag;
	w->rreq_sink_to = m->sink_to;
	w->rreq_size = m->read_size;
	if (m->read_size) {
		if (!mr)
			return term(w, g, L_RDMAP, 1, 0x00);
		if (m->src_to < mr->to || m->src_to + m->read_size > mr->to + mr->len ||
		    m->src_to + m->read_size < m->src_to)
			return term(w, g, L_RDMAP, 1, 0x01);
		if (!mr->rd)
			return term(w, g, L_RDMAP, 1, 0x02);
		src = mr->buf + (m->src_to - mr->to);
	}
	/* IRD: the Read Requests we hold at once, as announced in MPA rev 2
	 * (RFC 6581 3); held from their arrival to the end of the pump that
	 * received them, so a burst of more than IRD in one read of the socket
	 * breaks the stream as RFC 5040 asks */
	if (w->enhanced && w->reads_in >= w->ird)
		return term(w, g, L_RDMAP, 2, 0x07);
	if (w->reads_in == IW_IRQ_MAX && iw_irq_flush(w))
		return;
	w->irq[w->reads_in++] = (struct iw_rresp){ m->sink_stag, m->sink_to, src, m->read_size };
	w->st.rx_msgs[ROCE_RDMAP_READ_REQ]++;
	w->st.read_served++;
}

static void send_seg(struct iw *w, const struct seg *g)
{
	const struct roce_iwarp_msg *m = g->m;

	if (m->opcode == ROCE_RDMAP_SEND_INV || m->opcode == ROCE_RDMAP_SEND_SE_INV) {
		struct iw_mr *mr = m->mo == 0 ? find_mr(w, m->rsvd_ulp) : NULL;

		if (m->mo == 0 && !mr)
			return term(w, g, L_RDMAP, 1, 0x09);
		if (mr)
			mr->stag ^= 0x80000000u;   /* invalid from now on */
	}
	if (!w->rq)
		return term(w, g, L_DDP, 2, 0x02);
	if (m->mo > w->rq_cap)
		return term(w, g, L_DDP, 2, 0x04);
	if (m->mo + m->payload_len > w->rq_cap)
		return term(w, g, L_DDP, 2, 0x05);
	memcpy(w->rq + m->mo, m->payload, m->payload_len);
	if (m->mo + m->payload_len > w->rq_len)
		w->rq_len = m->mo + m->payload_len;
	if (!m->last)
		return;
	{
		uint8_t *b = w->rq;
		uint32_t n = w->rq_len;

		w->rq = NULL;
		w->st.rx_msgs[m->opcode]++;
		if (w->on_send)
			w->on_send(w->ctx, w, m->opcode, b, n, m->rsvd_ulp);
	}
}

static void got_term(struct iw *w, const struct roce_iwarp_msg *m)
{
	w->term_rx = (struct iw_term){ 1, m->term_layer, m->term_etype, m->term_code, m->term_hdrct };
	w->st.rx_msgs[ROCE_RDMAP_TERMINATE]++;
	w->dead = 1;
	snprintf(w->why, sizeof(w->why), "peer sent Terminate: %s %s: %s", roce_term_layer_name(m->term_layer) ?
		 roce_term_layer_name(m->term_layer) : "?",
		 roce_term_etype_name(m->term_layer, m->term_etype) ? roce_term_etype_name(m->term_layer, m->term_etype) : "?",
		 roce_term_code_name(m->term_layer, m->term_etype, m->term_code) ?
		 roce_term_code_name(m->term_layer, m->term_etype, m->term_code) : "?");
	shutdown(w->fd, SHUT_WR);
}

static void untagged(struct iw *w, const struct seg *g)
{
	const struct roce_iwarp_msg *m = g->m;
	uint32_t want = m->opcode == ROCE_RDMAP_READ_REQ ? 1 : m->opcode == ROCE_RDMAP_TERMINATE ? 2 : 0;

	if (m->qn >= IW_NQ || m->qn != want)
		return term(w, g, L_DDP, 2, 0x01);
	if (m->msn != w->rx_msn[m->qn])
		return term(w, g, L_DDP, 2, 0x03);
	if (m->last)
		w->rx_msn[m->qn]++;
	if (m->opcode == ROCE_RDMAP_TERMINATE)
		return got_term(w, m);
	if (m->opcode == ROCE_RDMAP_READ_REQ)
		return read_req(w, g);
	if (m->opcode >= ROCE_RDMAP_SEND && m->opcode <= ROCE_RDMAP_SEND_SE_INV)
		return send_seg(w, g);
	term(w, g, L_RDMAP, 2, 0x06);
}

/* A header lib's parser refused: which Terminate. */
static void bad_header(struct iw *w, const struct seg *g)
{
	const struct roce_iwarp_msg *m = g->m;

	if (m->dv != 1)
		return term(w, g, L_DDP, m->tagged ? 1 : 2, m->tagged ? 0x04 : 0x06);
	if (m->rv != 1)
		return term(w, g, L_RDMAP, 2, 0x05);
	term(w, g, L_RDMAP, 2, 0x06);
}

/* Server, peer-to-peer: the first FPDU must be the negotiated RTR. */
static int rtr_in(struct iw *w, const struct seg *g)
{
	const struct roce_iwarp_msg *m = g->m;
	int ok = (w->rtr == IW_RTR_WRITE && m->opcode == ROCE_RDMAP_WRITE && !m->payload_len) ||
		 (w->rtr == IW_RTR_READ && m->opcode == ROCE_RDMAP_READ_REQ && !m->read_size) ||
		 (w->rtr == IW_RTR_SEND && m->opcode == ROCE_RDMAP_SEND && !m->payload_len);

	w->await_rtr = 0;
	if (!ok) {
		term(w, g, L_LLP, 0, 0x07);
		return 0;
	}
	w->st.rtr_rx++;
	if (m->opcode == ROCE_RDMAP_SEND) {
		w->rx_msn[0]++;
		return 0;
	}
	return 1;     /* WRITE / READ: processed as usual (no checks at length 0) */
}

static void on_fpdu(void *ctx, const struct roce_mpa_stream_fpdu *f)
{
	struct iw *w = ctx;
	struct seg g = { &f->view.msg, f->bytes + 2, f->view.ulpdu_len };

	if (w->dead)
		return;
	w->st.rx_fpdu++;
	w->st.rx_bytes += f->wire_len;
	w->st.rx_markers += f->n_markers;
	if (f->view.crc_status == ROCE_MPA_CRC_BAD) {
		w->st.rx_crc_bad++;
		return term(w, NULL, L_LLP, 0, 0x02);
	}
	if (f->n_marker_bad) {
		w->st.rx_marker_bad++;
		return term(w, NULL, L_LLP, 0, 0x03);
	}
	if (f->view.msg_rc != ROCE_OK)
		return bad_header(w, &g);
	if (w->await_rtr && !rtr_in(w, &g))
		return;
	if (g.m->tagged)
		tagged(w, &g);
	else
		untagged(w, &g);
}

static void on_event(void *ctx, const struct roce_mpa_event *e)
{
	struct iw *w = ctx;

	if (w->dead)
		return;
	if (e->type == ROCE_MPA_EV_MARKER_BAD) {
		w->st.rx_marker_bad++;
		term(w, NULL, L_LLP, 0, 0x03);
	} else if (e->type == ROCE_MPA_EV_BAD_LENGTH || e->type == ROCE_MPA_EV_BAD_HEADER ||
		   e->type == ROCE_MPA_EV_TOO_BIG || e->type == ROCE_MPA_EV_SYNC_LOST) {
		term(w, NULL, L_LLP, 0, 0x03);
	}
}

/* ---- the hooks iw_conn.c calls up through ---------------------------------------------- */

/* Our RTR (peer-to-peer initiator). */
static int send_rtr(struct iw *w)
{
	int rc = 0;

	if (w->rtr == IW_RTR_WRITE)
		rc = iw_post_write(w, 1, 0, NULL, 0);
	else if (w->rtr == IW_RTR_READ)
		rc = iw_post_read(w, 1, 0, 0, 1, 0);
	else if (w->rtr == IW_RTR_SEND)
		rc = iw_post_send(w, ROCE_RDMAP_SEND, NULL, 0, 0);
	w->st.rtr_tx++;
	return rc;
}

static int rx_done(struct iw *w)
{
	return w->reads_in ? iw_irq_flush(w) : 0;
}

int iw_init(struct iw *w, const struct gen_opts *o, int server)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->o = o;
	w->server = server;
	/* An initiator waits 100 ms between the MPA reply and its RTR.  siw
	 * (Linux 6.1, siw_accept) sends its MPA reply before it installs the
	 * socket callback that takes the RTR; an RTR in between is left unread
	 * in the socket and the connection stalls with nothing more to read
	 * (lab, siw-crc: rping's server, ucmatose's and perftest's; the first
	 * run after siw-crc is loaded lost it every time). */
	w->rtr_delay_ms = server ? 0 : 100;
	w->tbuf = malloc(IW_TBUF_CAP);
	w->rbuf = malloc(ROCE_MPA_FPDU_MAX);
	if (!w->tbuf || !w->rbuf) {
		snprintf(w->why, sizeof(w->why), "out of memory");
		return -1;
	}
	for (unsigned q = 0; q < IW_NQ; q++)
		w->tx_msn[q] = w->rx_msn[q] = 1;
	w->rtr_out = send_rtr;
	w->rx_done = rx_done;
	roce_mpa_stream_init(&w->rs, w->rbuf, ROCE_MPA_FPDU_MAX, on_fpdu, on_event, w);
	return 0;
}
