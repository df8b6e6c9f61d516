/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmarks.h — `rocetop -r FILE --packets`: the frames the diagnosis's
 * verdicts name (diag.h: each verdict's first and last frame), found by a
 * first pass of the flow engine over the whole file, so that the listing
 * can mark them (" [verdict: timeout_mismatch]").  A verdict is only known
 * once its evidence is in, often after the frames it names: hence the
 * first pass, and none for a capture that cannot be read twice (live,
 * standard input, a pipe).
 */
#ifndef ROCETOP_VMARKS_H
#define ROCETOP_VMARKS_H

#include <stddef.h>
#include <stdint.h>
#include "flow.h"
#include "roce.h"
#include "source.h"

struct vmark {
	uint64_t frame;
	int id;                   /* enum diag_id */
};

struct vmarks {
	struct vmark *m;          /* by frame key, then verdict */
	size_t n;
};

/* A frame's key: its file (-r A -r B: source_frame.iface; else 0) and its
 * number in that file, which a BPF filter does not change. */
static inline uint64_t vmarks_key(unsigned file, uint64_t no)
{
	return (uint64_t)file << 48 | no;
}

/* The first pass over cfg->file (its filter, pace and -c left out): 0
 * (vm filled), 1 when the file cannot be read twice (vm empty), -1 with
 * err[] set. */
int vmarks_scan(struct vmarks *vm, const struct source_cfg *cfg, const struct roce_cfg *dcfg,
		const struct engine_cfg *ecfg, char *err, size_t cap);
/* The verdicts naming the frame of that key (at most max, each once). */
unsigned vmarks_at(const struct vmarks *vm, uint64_t key, const char **names, unsigned max);
void vmarks_free(struct vmarks *vm);

#endif
