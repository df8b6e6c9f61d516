/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmarks.c — the frames the diagnosis names, for the packet listing
 * (vmarks.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "diag.h"
#include "vmarks.h"

static int vmark_cmp(const void *a, const void *b)
{
	const struct vmark *x = a, *y = b;

	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->id - y->id;
}

static int vm_add(struct vmarks *vm, size_t *cap, uint64_t frame, int id)
{
	if (!frame)
		return 0;
	if (vm->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct vmark *nm = realloc(vm->m, nc * sizeof *nm);

		if (!nm)
			return -1;
		vm->m = nm;
		*cap = nc;
	}
	vm->m[vm->n++] = (struct vmark){ frame, id };
	return 0;
}

int vmarks_scan(struct vmarks *vm, const struct source_cfg *cfg, const struct roce_cfg *dcfg,
		const struct engine_cfg *ecfg, char *err, size_t cap)
{
	uint64_t merged_no = 0;
	struct source_cfg c = *cfg;
	struct source *src;
	struct source_frame fr;
	struct engine e;
	struct diag_input in;
	struct diag_list l;
	enum source_err what;
	struct stat st;
	size_t mcap = 0;
	int r, rc = 0;

	memset(vm, 0, sizeof *vm);
	if (!cfg->file || !strcmp(cfg->file, "-") || stat(cfg->file, &st) || !S_ISREG(st.st_mode))
		return 1;
	c.nifaces = 0;
	c.filter = NULL;          /* the verdicts of the whole capture, as -b gives them */
	c.speed = 0;
	c.count = 0;
	c.timeout_ms = 0;
	if (!(src = source_open(&c, &what, err, cap)))
		return -1;
	if (engine_init(&e, ecfg)) {
		source_close(src);
		snprintf(err, cap, "out of memory for the flow table");
		return -1;
	}
	while ((r = source_next(src, &fr)) == SOURCE_FRAME) {
		struct roce_pkt p;

		roce_decode(&p, dcfg, fr.linktype, fr.data, fr.caplen, fr.len);
		/* the verdicts name frames by their number in the file; -r A -r B: by their
		 * place in the merged timeline (numbers repeat across the files) */
		e.frame_next = cfg->nfiles > 1 ? ++merged_no : fr.no;
		engine_packet(&e, &p, fr.ts_ns, fr.caplen, fr.len);
	}
	/* A read error (a truncated capture) ends this pass where the listing
	 * pass will stop too, which lists the frames before it and then says
	 * why: the verdicts are those of the frames that can be read. */
	(void)r;
	memset(&in, 0, sizeof in);
	in.now_ns = e.t.last_ns;
	if (!rc && !diag_evaluate(&e, &in, &l)) {
		for (size_t i = 0; i < l.n && !rc; i++) {
			if (vm_add(vm, &mcap, l.v[i].first_frame, l.v[i].id) ||
			    (l.v[i].last_frame != l.v[i].first_frame && vm_add(vm, &mcap, l.v[i].last_frame, l.v[i].id)))
				rc = -1;
		}
		diag_list_free(&l);
		if (rc)
			snprintf(err, cap, "out of memory for the diagnosis");
	} else if (!rc) {
		snprintf(err, cap, "out of memory for the diagnosis");
		rc = -1;
	}
	engine_free(&e);
	source_close(src);
	if (rc) {
		vmarks_free(vm);
		return -1;
	}
	if (vm->n)
		qsort(vm->m, vm->n, sizeof vm->m[0], vmark_cmp);
	return 0;
}

unsigned vmarks_at(struct vmarks *vm, uint64_t frame, const char **names, unsigned max)
{
	unsigned k = 0;

	while (vm->at < vm->n && vm->m[vm->at].frame < frame)
		vm->at++;
	for (size_t i = vm->at; i < vm->n && vm->m[i].frame == frame && k < max; i++)
		if (!k || strcmp(names[k - 1], diag_name(vm->m[i].id)))   /* sorted: a repeat is the one before */
			names[k++] = diag_name(vm->m[i].id);
	return k;
}

void vmarks_free(struct vmarks *vm)
{
	free(vm->m);
	memset(vm, 0, sizeof *vm);
}
