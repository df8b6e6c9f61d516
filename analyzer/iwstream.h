/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwstream.h — iWARP FPDU reassembly per TCP connection for a walk over
 * captured frames (no output, no UI: the packet listing uses it, the flow
 * engine may).
 *
 * A connection is tracked from the first frame on which the decoder saw
 * iWARP (an MPA request/reply, or FPDUs: p->mpa_off set).  It gets two
 * struct roce_mpa_stream, one per direction, paired (so each learns markers
 * and CRC from the MPA frames), each with its own ROCE_MPA_FPDU_MAX-byte
 * buffer.  From then on every TCP payload of the connection, both ways, is
 * fed in capture order; the FPDUs a frame completes and the stream's events
 * (gap, retransmission, out-of-order, bad marker, ...) are handed to the
 * caller's callbacks during iwstream_packet().  A segment that starts with
 * an FPDU by the decoder's reading, or with a plausible FPDU header
 * (roce_mpa_fpdu_plausible), is fed with ROCE_MPA_SEG_FPDU_START, so a
 * direction first seen mid-stream, or out of sync after a gap without
 * markers to follow, may resynchronise there; a stream in sync ignores the
 * flag.  The flag only proposes: the stream decides (iwarp.h: with CRC the
 * FPDU must verify, with markers only a marker counts, with neither the
 * resync is reported as a heuristic).
 *
 * The table is bounded: at most max_conns connections, the least recently
 * used one is dropped (its buffers reused) when a new one is needed.  A SYN
 * on a tracked connection forgets it (a new connection on the same ports).
 */
#ifndef ROCETOP_IWSTREAM_H
#define ROCETOP_IWSTREAM_H

#include <stdint.h>
#include "roce.h"

#define IWSTREAM_DEFAULT_CONNS 256

struct iwstream;

struct iwstream_cb {
	/* an FPDU this frame completed; f and its bytes are valid during the call only */
	void (*fpdu)(void *ctx, const struct roce_mpa_stream_fpdu *f);
	/* a stream event caused by this frame */
	void (*event)(void *ctx, const struct roce_mpa_event *e);
	void *ctx;
};

/* What iwstream_packet() did with a frame. */
struct iwstream_res {
	int tracked;                  /* the frame belongs to a tracked iWARP connection */
	int fed;                      /* its payload (captured bytes) was fed */
	uint8_t dir;                  /* 0/1: which of the connection's two streams */
	const struct roce_mpa_stream *s;  /* that stream (valid until the next call) */
	/* the FPDU left open after this frame, when this frame added to it */
	int partial;
	uint32_t partial_seq, partial_have, partial_need;  /* need 0: length not read yet */
};

struct iwstream_stats {
	uint64_t conns;               /* connections ever tracked */
	uint64_t evicted;             /* dropped to make room (LRU) */
	uint64_t reset;               /* forgotten at a SYN */
	unsigned active;
	unsigned max_conns;
};

/* max_conns 0: IWSTREAM_DEFAULT_CONNS.  NULL when out of memory. */
struct iwstream *iwstream_new(unsigned max_conns);
void iwstream_free(struct iwstream *t);

/* Feeds one decoded frame (any frame: non-TCP ones are ignored).  cb may be
 * NULL.  Returns r->tracked; with it set, the frame's FPDUs are the ones
 * given to cb.fpdu, and a listing should not also give the FPDUs the decoder
 * found in the segment alone (ROCE_FIELDS_NO_FPDU). */
int iwstream_packet(struct iwstream *t, const struct roce_pkt *p, const struct iwstream_cb *cb,
		    struct iwstream_res *r);

void iwstream_get_stats(const struct iwstream *t, struct iwstream_stats *st);

#endif
