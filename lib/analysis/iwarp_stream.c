/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_stream.c — one direction of an MPA connection (RFC 5044), fed TCP
 * segments in capture order: the MPA request/reply at the start (7.1),
 * markers every 512 bytes of sequence space from the first byte of the FPDU
 * stream (4.3, pointer checked), FPDU reassembly across segments in the
 * caller's buffer, CRC-32C over each FPDU with its markers (4.4), and events
 * for everything it cannot account for.
 *
 *   seq:  |-- MPA frame --|M|FPDU ... |M| ... FPDU|FPDU ...   (M every 512)
 *                         ^ start_seq
 *
 * It never reads a header out of payload: once framing is lost (a gap, a
 * bad length, a bad marker, an invalid header) it is out of sync until a
 * candidate FPDU proves itself (iwarp.h: a marker's FPDU, a CRC-verified
 * FPDU at a segment start, or, with neither negotiated, a plausible header
 * at a segment start, reported as a heuristic).  A candidate is collected in
 * state TRY and handed on only once proven.  Negotiation (RFC 5044 7.1.1):
 * markers flow towards the side whose frame had M set; CRC is used both ways
 * when either frame had C.
 */
#include "internal.h"

enum { ST_START = 0, ST_FRAME, ST_SYNC, ST_UNSYNC, ST_TRY };
enum { TRY_MARKER = 1, TRY_SEGMENT };

/* Header bytes a candidate must show before it is judged plausible. */
#define HDR_CHECK (2 + ROCE_DDP_UNTAGGED_LEN + ROCE_RDMAP_ATOMIC_REQ_LEN)

const char *roce_mpa_ev_name(int ev)
{
	static const char *const n[] = {
		[ROCE_MPA_EV_FRAME] = "frame",
		[ROCE_MPA_EV_BAD_FRAME] = "bad-frame",
		[ROCE_MPA_EV_GAP] = "gap",
		[ROCE_MPA_EV_FPDU_LOST] = "fpdu-lost",
		[ROCE_MPA_EV_RETRANS] = "retransmission",
		[ROCE_MPA_EV_OUT_OF_ORDER] = "out-of-order",
		[ROCE_MPA_EV_SKIPPED] = "skipped",
		[ROCE_MPA_EV_RESYNC] = "resync",
		[ROCE_MPA_EV_MARKER_BAD] = "marker-bad",
		[ROCE_MPA_EV_BAD_LENGTH] = "bad-length",
		[ROCE_MPA_EV_TOO_BIG] = "too-big",
		[ROCE_MPA_EV_NO_START] = "no-start",
		[ROCE_MPA_EV_BAD_HEADER] = "bad-header",
		[ROCE_MPA_EV_SYNC_LOST] = "sync-lost",
	};
	return ev > 0 && ev <= ROCE_MPA_EV_SYNC_LOST ? n[ev] : "?";
}

int roce_mpa_stream_in_sync(const struct roce_mpa_stream *s)
{
	return s->state == ST_SYNC || s->state == ST_FRAME;
}

/* Framing bytes in sync or in a candidate being tried. */
static int framing(const struct roce_mpa_stream *s)
{
	return s->state == ST_SYNC || s->state == ST_TRY;
}

static void event(struct roce_mpa_stream *s, int type, uint32_t seq, uint32_t len, const char *what)
{
	struct roce_mpa_event e = { type, seq, len, what, NULL };

	if (type == ROCE_MPA_EV_FRAME || type == ROCE_MPA_EV_BAD_FRAME)
		e.frame = &s->frame;
	if (s->on_event)
		s->on_event(s->ctx, &e);
}

void roce_mpa_stream_init(struct roce_mpa_stream *s, uint8_t *buf, uint32_t cap,
			  roce_mpa_fpdu_cb on_fpdu, roce_mpa_event_cb on_event, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->cap = buf ? cap : 0;
	s->on_fpdu = on_fpdu;
	s->on_event = on_event;
	s->ctx = ctx;
}

void roce_mpa_stream_set(struct roce_mpa_stream *s, uint32_t start_seq, int markers, int crc)
{
	s->have_start = 1;
	s->start_seq = start_seq;
	s->markers = !!markers;
	s->crc = !!crc;
	s->crc_known = 1;
}

void roce_mpa_stream_pair(struct roce_mpa_stream *a, struct roce_mpa_stream *b)
{
	a->peer = b;
	b->peer = a;
}

/* What the frames seen so far say about the negotiation. */
static void negotiate(struct roce_mpa_stream *s)
{
	struct roce_mpa_stream *o = s->peer;
	int c = !!(s->frame_flags & ROCE_MPA_FLAG_C);

	if (!o)
		return;
	/* my frame's M asks the other side to send me markers */
	o->markers = !!(s->frame_flags & ROCE_MPA_FLAG_M);
	if (o->frame_seen) {
		c |= !!(o->frame_flags & ROCE_MPA_FLAG_C);
		s->markers = !!(o->frame_flags & ROCE_MPA_FLAG_M);
	}
	if (c || o->frame_seen) {
		s->crc = o->crc = (uint8_t)c;
		s->crc_known = o->crc_known = 1;
	}
}

static void fpdu_reset(struct roce_mpa_stream *s)
{
	s->fpdu_open = s->lead = s->oversize = 0;
	s->n_markers = s->n_marker_bad = 0;
	s->have = s->need = 0;
	s->crc_run = 0;
	s->hdr_checked = 0;
}

/* Framing lost at seq (the reason was reported just before). */
static void lose_sync(struct roce_mpa_stream *s, uint32_t seq)
{
	int was = s->state == ST_SYNC || s->state == ST_FRAME;

	fpdu_reset(s);
	s->state = ST_UNSYNC;
	s->heuristic = 0;
	s->try_how = 0;
	if (was) {
		s->n_sync_lost++;
		event(s, ROCE_MPA_EV_SYNC_LOST, seq, 0, "out of sync");
	}
}

/* The candidate FPDU being tried failed at end_seq: its bytes were skipped. */
static void try_fail(struct roce_mpa_stream *s, uint32_t end_seq, const char *why)
{
	uint32_t from = s->fpdu_open ? s->fpdu_seq : end_seq;

	fpdu_reset(s);
	s->state = ST_UNSYNC;
	s->try_how = 0;
	s->n_skipped_bytes += end_seq - from;
	event(s, ROCE_MPA_EV_SKIPPED, from, end_seq - from, why);
}

/* Starts trying a candidate FPDU (state TRY). */
static void try_start(struct roce_mpa_stream *s, int how)
{
	fpdu_reset(s);
	s->state = ST_TRY;
	s->try_how = (uint8_t)how;
}

/* The candidate proved itself: in sync from its first byte. */
static void try_ok(struct roce_mpa_stream *s, int crc_good)
{
	const char *how = s->try_how == TRY_MARKER ? "marker" : crc_good ? "crc" : "heuristic";

	s->state = ST_SYNC;
	s->n_resync++;
	s->heuristic = !crc_good && s->try_how != TRY_MARKER;
	if (s->heuristic)
		s->n_resync_heuristic++;
	s->try_how = 0;
	event(s, ROCE_MPA_EV_RESYNC, s->fpdu_seq, 0, how);
}

static void deliver(struct roce_mpa_stream *s, uint32_t end_seq)
{
	struct roce_mpa_stream_fpdu r;
	uint32_t crc_wire = rd32(s->tail);
	int verify = s->crc_known ? s->crc : crc_wire != 0;

	memset(&r, 0, sizeof(r));
	r.seq = s->fpdu_seq;
	r.wire_len = end_seq - s->fpdu_seq;
	r.n_markers = s->n_markers;
	r.n_marker_bad = s->n_marker_bad;
	memcpy(r.marker_rsvd, s->mk_rsvd, sizeof(r.marker_rsvd));
	memcpy(r.marker_ptr, s->mk_ptr, sizeof(r.marker_ptr));
	if (!s->oversize) {
		r.bytes = s->buf;
		r.len = s->need;
		roce_mpa_fpdu_at(s->buf, s->need, s->need, 0, -1, ROCE_MPA_CRC_OFF, &r.view);
	}
	r.view.crc_wire = crc_wire;
	if (verify) {
		r.view.crc_calc = s->crc_run >> 24 | (s->crc_run >> 8 & 0xff00) | (s->crc_run << 8 & 0xff0000) |
				  s->crc_run << 24;
		r.view.crc_status = r.view.crc_calc == crc_wire ? ROCE_MPA_CRC_GOOD : ROCE_MPA_CRC_BAD;
	} else {
		r.view.crc_calc = 0;
		r.view.crc_status = ROCE_MPA_CRC_UNCHECKED;
	}
	if (s->state == ST_TRY) {
		/* a candidate: a bad CRC, or no CRC and a header never checked, fails it */
		if (r.view.crc_status == ROCE_MPA_CRC_BAD ||
		    (r.view.crc_status == ROCE_MPA_CRC_UNCHECKED && !s->hdr_checked)) {
			try_fail(s, end_seq, "resync candidate is not a valid FPDU");
			return;
		}
		try_ok(s, r.view.crc_status == ROCE_MPA_CRC_GOOD);
	} else if (!s->oversize && r.view.msg_rc == ROCE_EINVAL && r.view.crc_status != ROCE_MPA_CRC_GOOD) {
		/* a header no sender writes, and no CRC to say the framing is right */
		event(s, ROCE_MPA_EV_BAD_HEADER, s->fpdu_seq, end_seq - s->fpdu_seq,
		      "DDP/RDMAP header invalid: framing lost");
		lose_sync(s, s->fpdu_seq);
		return;
	}
	s->n_fpdu++;
	if (r.view.crc_status == ROCE_MPA_CRC_GOOD)
		s->n_crc_good++;
	else if (r.view.crc_status == ROCE_MPA_CRC_BAD)
		s->n_crc_bad++;
	else
		s->n_crc_unchecked++;
	if (!s->oversize && s->on_fpdu)
		s->on_fpdu(s->ctx, &r);
	fpdu_reset(s);
}

/* The FPDU being collected shows its headers (seq: the byte after them):
 * a candidate must look plausible; in sync without a CRC to vouch for the
 * framing, an invalid DDP/RDMAP header means the framing was lost (with a
 * CRC, deliver() judges at the end).  Returns 0 when framing was lost. */
static int header_ok(struct roce_mpa_stream *s, uint32_t seq)
{
	struct roce_mpa_fpdu f;

	s->hdr_checked = 1;
	if (s->state == ST_TRY) {
		if (roce_mpa_fpdu_plausible(s->buf, s->have, s->need))
			return 1;
		try_fail(s, seq, "resync candidate has no plausible header");
		return 0;
	}
	if (!s->crc_known || s->crc)
		return 1;
	roce_mpa_fpdu_at(s->buf, s->have, s->need, 0, -1, ROCE_MPA_CRC_OFF, &f);
	if (f.msg_rc != ROCE_EINVAL)
		return 1;
	event(s, ROCE_MPA_EV_BAD_HEADER, s->fpdu_seq, seq - s->fpdu_seq, "DDP/RDMAP header invalid: framing lost");
	lose_sync(s, s->fpdu_seq);
	return 0;
}

/* Logical FPDU bytes (markers already taken out) at sequence seq; returns
 * how many were used before framing was lost (all of them if it was not). */
static uint32_t take(struct roce_mpa_stream *s, const uint8_t *p, uint32_t n, uint32_t seq)
{
	uint32_t n0 = n;

	while (n && framing(s)) {
		uint32_t k, covered;

		if (!s->fpdu_open) {
			s->fpdu_open = 1;
			s->fpdu_seq = seq;
			s->crc_run = 0;
		}
		if (!s->need) {
			/* the ULPDU length, possibly a byte at a time */
			uint8_t *lb = s->tail;

			lb[s->have] = *p;
			s->crc_run = roce_crc32c(s->crc_run, p, 1);
			s->have++;
			p++;
			n--;
			seq++;
			if (s->have < 2)
				continue;
			{
				uint32_t ul = (uint32_t)lb[0] << 8 | lb[1];

				if (ul < ROCE_DDP_TAGGED_LEN) {
					if (s->state == ST_TRY) {
						try_fail(s, seq, "resync candidate has a bad ULPDU length");
						return n0 - n;
					}
					event(s, ROCE_MPA_EV_BAD_LENGTH, seq - 2, 2, "ULPDU length cannot hold a DDP header");
					lose_sync(s, seq - 2);
					return n0 - n;
				}
				s->need = 2 + ul + roce_mpa_pad(ul) + ROCE_MPA_CRC_LEN;
				if (s->need > s->cap) {
					s->oversize = 1;
					if (s->state == ST_SYNC)
						event(s, ROCE_MPA_EV_TOO_BIG, s->fpdu_seq, s->need,
						      "FPDU larger than the buffer");
				} else {
					s->buf[0] = lb[0];
					s->buf[1] = lb[1];
				}
			}
			continue;
		}
		k = s->need - s->have;
		if (!s->hdr_checked && s->have < HDR_CHECK && k > HDR_CHECK - s->have)
			k = HDR_CHECK - s->have;        /* stop at the headers to judge them */
		if (k > n)
			k = n;
		if (!s->oversize)
			memcpy(s->buf + s->have, p, k);
		/* the CRC field itself is not covered */
		covered = s->have < s->need - ROCE_MPA_CRC_LEN ? s->need - ROCE_MPA_CRC_LEN - s->have : 0;
		if (covered > k)
			covered = k;
		if (covered)
			s->crc_run = roce_crc32c(s->crc_run, p, covered);
		/* keep the last four bytes (the CRC) even when not storing */
		for (uint32_t i = 0; i < k; i++) {
			uint32_t li = s->have + i;

			if (li >= s->need - ROCE_MPA_CRC_LEN)
				s->tail[li - (s->need - ROCE_MPA_CRC_LEN)] = p[i];
		}
		s->have += k;
		p += k;
		n -= k;
		seq += k;
		if (!s->hdr_checked && !s->oversize && s->have >= (s->need < HDR_CHECK ? s->need : HDR_CHECK) &&
		    !header_ok(s, seq))
			return n0 - n;
		if (s->have == s->need)
			deliver(s, seq);
	}
	return n0 - n;
}

/* A whole marker at mseq, in sync. */
static void marker_done(struct roce_mpa_stream *s)
{
	uint16_t ptr = rd16(s->mk + 2);
	uint32_t len_seq = s->fpdu_seq + (s->lead ? ROCE_MPA_MARKER_LEN : 0);
	int ok;

	s->n_markers_seen++;
	if (s->n_markers < 8) {
		s->mk_rsvd[s->n_markers] = rd16(s->mk);
		s->mk_ptr[s->n_markers] = ptr;
	}
	if (s->n_markers < 255)
		s->n_markers++;
	if (s->lead && s->mk_seq == s->fpdu_seq)
		ok = ptr == 0;
	else
		ok = ptr == (uint16_t)(s->mk_seq - len_seq) || (s->lead && ptr == (uint16_t)(s->mk_seq - s->fpdu_seq));
	if (ok)
		return;
	if (s->state == ST_TRY) {
		try_fail(s, s->mk_seq + ROCE_MPA_MARKER_LEN, "resync candidate contradicted by a marker");
		return;
	}
	s->n_markers_bad++;
	event(s, ROCE_MPA_EV_MARKER_BAD, s->mk_seq, ROCE_MPA_MARKER_LEN,
	      "marker pointer does not point at the FPDU");
	event(s, ROCE_MPA_EV_FPDU_LOST, s->fpdu_seq, s->mk_seq + ROCE_MPA_MARKER_LEN - s->fpdu_seq,
	      "partial FPDU dropped at a bad marker");
	lose_sync(s, s->mk_seq);
}

/* Bytes of the FPDU stream in sync, markers included; returns how many were
 * used before framing was lost. */
static uint32_t sync_bytes(struct roce_mpa_stream *s, const uint8_t *p, uint32_t n, uint32_t seq)
{
	uint32_t n0 = n;

	while (n && framing(s)) {
		uint32_t chunk = n;

		if (s->markers && s->have_start) {
			uint32_t in = (seq - s->start_seq) % ROCE_MPA_MARKER_INTERVAL;

			if (in < ROCE_MPA_MARKER_LEN) {
				uint32_t k = ROCE_MPA_MARKER_LEN - in;

				if (k > n)
					k = n;
				if (in == 0) {
					s->mk_seq = seq;
					if (!s->fpdu_open) {
						/* a marker just before an FPDU leads it */
						s->fpdu_open = 1;
						s->lead = 1;
						s->fpdu_seq = seq;
						s->crc_run = 0;
					}
				}
				memcpy(s->mk + in, p, k);
				s->crc_run = roce_crc32c(s->crc_run, p, k);
				p += k;
				n -= k;
				seq += k;
				if (in + k == ROCE_MPA_MARKER_LEN)
					marker_done(s);
				continue;
			}
			if (chunk > ROCE_MPA_MARKER_INTERVAL - in)
				chunk = ROCE_MPA_MARKER_INTERVAL - in;
		}
		chunk = take(s, p, chunk, seq);
		p += chunk;
		n -= chunk;
		seq += chunk;
	}
	return n0 - n;
}

/* Out of sync: look for a marker whose FPDU starts in these bytes. */
static uint32_t find_resync(struct roce_mpa_stream *s, const uint8_t *p, uint32_t n, uint32_t seq, int *found)
{
	uint32_t in, m;

	*found = 0;
	if (!s->markers)
		return 0;
	if (!s->have_start) {
		if (!s->no_start_told) {
			s->no_start_told = 1;
			event(s, ROCE_MPA_EV_NO_START, seq, n, "markers negotiated, stream start unknown");
		}
		return 0;
	}
	in = (seq - s->start_seq) % ROCE_MPA_MARKER_INTERVAL;
	m = in ? ROCE_MPA_MARKER_INTERVAL - in : 0;       /* offset of the first marker */
	for (; m + ROCE_MPA_MARKER_LEN <= n; m += ROCE_MPA_MARKER_INTERVAL) {
		uint16_t ptr = rd16(p + m + 2);
		uint32_t start;

		if (ptr == 0) {
			start = m;                              /* leads the FPDU after it */
		} else {
			if (ptr > m)
				continue;                       /* its FPDU began before these bytes */
			start = m - ptr;
			/* counted to a length field just after a marker: start at the marker */
			if (start >= ROCE_MPA_MARKER_LEN &&
			    (seq + start - ROCE_MPA_MARKER_LEN - s->start_seq) % ROCE_MPA_MARKER_INTERVAL == 0)
				start -= ROCE_MPA_MARKER_LEN;
			else if ((seq + start - s->start_seq) % ROCE_MPA_MARKER_INTERVAL != 0 &&
				 (seq + start - s->start_seq) % ROCE_MPA_MARKER_INTERVAL < ROCE_MPA_MARKER_LEN)
				continue;                       /* points into a marker: nonsense */
		}
		*found = 1;
		return start;
	}
	return 0;
}

/* Runs the bytes through sync / resync until they are used up. */
static void stream_bytes(struct roce_mpa_stream *s, const uint8_t *p, uint32_t n, uint32_t seq)
{
	while (n) {
		uint32_t used, start;
		int found;

		if (framing(s)) {
			used = sync_bytes(s, p, n, seq);
			p += used;
			n -= used;
			seq += used;
			continue;
		}
		start = find_resync(s, p, n, seq, &found);
		if (!found) {
			s->n_skipped_bytes += n;
			event(s, ROCE_MPA_EV_SKIPPED, seq, n, "not in sync");
			return;
		}
		if (start) {
			s->n_skipped_bytes += start;
			event(s, ROCE_MPA_EV_SKIPPED, seq, start, "not in sync");
		}
		try_start(s, TRY_MARKER);
		p += start;
		n -= start;
		seq += start;
	}
}

/* Collects the MPA request/reply; returns bytes consumed. */
static uint32_t frame_bytes(struct roce_mpa_stream *s, const uint8_t *p, uint32_t n, uint32_t seq)
{
	uint32_t used = 0, need;
	int rc;

	for (;;) {
		need = ROCE_MPA_FRAME_HDR_LEN;
		if (s->have >= ROCE_MPA_FRAME_HDR_LEN)
			need += rd16(s->buf + 18);
		if (s->have >= ROCE_MPA_KEY_LEN && memcmp(s->buf, ROCE_MPA_KEY_REQ, ROCE_MPA_KEY_LEN) &&
		    memcmp(s->buf, ROCE_MPA_KEY_REP, ROCE_MPA_KEY_LEN)) {
			memset(&s->frame, 0, sizeof(s->frame));
			event(s, ROCE_MPA_EV_BAD_FRAME, seq - s->have + used, s->have, "not an MPA key");
			lose_sync(s, seq - s->have + used);
			return used;
		}
		if (s->have >= ROCE_MPA_FRAME_HDR_LEN &&
		    (need > ROCE_MPA_FRAME_HDR_LEN + ROCE_MPA_PD_MAX || need > s->cap)) {
			roce_mpa_frame_parse(s->buf, s->have, &s->frame);
			event(s, ROCE_MPA_EV_BAD_FRAME, seq - s->have + used, s->have,
			      "MPA private data longer than 512 bytes");
			lose_sync(s, seq - s->have + used);
			return used;
		}
		if (s->have == need || used == n)
			break;
		{
			uint32_t k = need - s->have;

			if (k > n - used)
				k = n - used;
			memcpy(s->buf + s->have, p + used, k);
			s->have += k;
			used += k;
		}
	}
	if (s->have < need)
		return used;
	rc = roce_mpa_frame_parse(s->buf, s->have, &s->frame);
	s->frame_seen = 1;
	s->frame_flags = s->buf[16];
	s->have_start = 1;
	s->start_seq = seq + used;
	negotiate(s);
	event(s, rc > 0 ? ROCE_MPA_EV_FRAME : ROCE_MPA_EV_BAD_FRAME, seq + used - s->have, s->have,
	      rc > 0 ? (s->frame.kind == ROCE_MPA_REQ ? "request" : "reply") : "invalid MPA frame");
	fpdu_reset(s);
	s->state = ST_SYNC;
	return used;
}

/* Out of sync at a segment the caller says starts an FPDU: may it be tried?
 * Not with markers and no CRC (only a marker can tell then). */
static int segment_may_resync(const struct roce_mpa_stream *s)
{
	int crc = s->crc_known ? s->crc : 1;    /* unknown: a nonzero CRC field is checked */

	return !(s->markers && s->have_start && !crc);
}

static int key_prefix(const uint8_t *p, uint32_t n)
{
	uint32_t k = n < 9 ? n : 9;    /* "MPA ID Re" is common to both keys */

	return n >= 1 && !memcmp(p, ROCE_MPA_KEY_REQ, k);
}

void roce_mpa_stream_feed(struct roce_mpa_stream *s, uint32_t seq, const uint8_t *data,
			  uint32_t len, unsigned flags)
{
	if (!len || !data)
		return;
	if (!s->have_next) {
		s->have_next = 1;
		s->next_seq = seq;
		if (flags & ROCE_MPA_SEG_FPDU_START) {
			s->state = ST_SYNC;
		} else if (key_prefix(data, len) && s->cap >= ROCE_MPA_FRAME_HDR_LEN) {
			s->state = ST_FRAME;
			s->have = 0;
		} else if (s->have_start && seq == s->start_seq) {
			s->state = ST_SYNC;
		} else {
			s->state = ST_UNSYNC;
		}
		fpdu_reset(s);
	}

	{
		int32_t d = (int32_t)(seq - s->next_seq);

		if (d > 0) {
			int lost = s->state == ST_SYNC && (s->fpdu_open || s->have);

			s->n_gaps++;
			s->n_gap_bytes += (uint32_t)d;
			s->have_gap = 1;
			s->gap_lo = s->next_seq;
			s->gap_hi = seq;
			event(s, ROCE_MPA_EV_GAP, s->next_seq, (uint32_t)d, "bytes never seen");
			if (lost)
				event(s, ROCE_MPA_EV_FPDU_LOST, s->fpdu_seq, seq - s->fpdu_seq,
				      "partial FPDU dropped at a gap");
			if (s->state == ST_TRY)
				try_fail(s, s->next_seq, "resync candidate cut by a gap");
			else if (s->state != ST_START)
				lose_sync(s, s->next_seq);
			s->next_seq = seq;
		} else if (d < 0) {
			uint32_t old = 0u - (uint32_t)d;
			int ooo = s->have_gap && (int32_t)(seq - s->gap_lo) >= 0 && (int32_t)(seq - s->gap_hi) < 0;

			if (ooo)
				s->n_ooo++;
			else
				s->n_retrans++;
			event(s, ooo ? ROCE_MPA_EV_OUT_OF_ORDER : ROCE_MPA_EV_RETRANS, seq,
			      old < len ? old : len, ooo ? "bytes of a reported gap" : "bytes already seen");
			if (old >= len)
				return;
			data += old;
			len -= old;
			seq = s->next_seq;
			flags &= ~(unsigned)ROCE_MPA_SEG_FPDU_START;
		}
	}
	s->next_seq = seq + len;

	if (s->state == ST_UNSYNC && (flags & ROCE_MPA_SEG_FPDU_START) && segment_may_resync(s))
		try_start(s, TRY_SEGMENT);
	if (s->state == ST_FRAME) {
		uint32_t used = frame_bytes(s, data, len, seq);

		data += used;
		len -= used;
		seq += used;
		if (!len)
			return;
		if (s->state == ST_UNSYNC) {
			s->n_skipped_bytes += len;
			event(s, ROCE_MPA_EV_SKIPPED, seq, len, "after a bad MPA frame");
			return;
		}
	}
	stream_bytes(s, data, len, seq);
}
