/* SPDX-License-Identifier: GPL-2.0-or-later */
/* listing.h — `rocetop --packets`: one line (or JSON object) per frame. */
#ifndef ROCETOP_LISTING_H
#define ROCETOP_LISTING_H

#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include "roce.h"

struct iwstream;

struct listing {
	FILE *out;
	int json;
	int nsec;                /* timestamps are nanoseconds */
	uint32_t verdict;        /* the flow engine's ROCE_SEQ_V_* for the frame: its marks */
	const char *file;        /* -r A -r B: the frame's file, before its number in it ("A:7",
				    JSON "rocetop.file"); NULL: one file */
	/* the diagnosis's verdicts naming the frame as their first or last
	 * (vmarks.h): " [verdict: NAME]", JSON "rocetop.diagnosis.verdict" */
#define LISTING_VERDICTS 4
	const char *vnames[LISTING_VERDICTS];
	unsigned nv;
	/* totals for the closing summary */
	uint64_t frames, roce[6], icrc[3], truncated, invalid;
	uint64_t iwarp;           /* of roce[ROCE_VER_NONE]: the engine's iWARP frames */
	/* iWARP connections whose FPDUs are reassembled (made on first use) */
	struct iwstream *iw;
};

void listing_frame(struct listing *l, uint64_t frame_no, const struct timeval *ts,
		   const struct roce_pkt *p, uint32_t caplen, uint32_t wirelen);
void listing_totals(const struct listing *l, FILE *f);
/* Frees what the listing allocated (also done at exit when not called). */
void listing_close(struct listing *l);

#endif
