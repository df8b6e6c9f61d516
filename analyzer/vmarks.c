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
	uint64_t merged_no = 0, *keys = NULL;   /* -r A -r B: keys[i], the key of merged frame i + 1 */
	size_t nkeys = 0, kcap = 0;
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
		 * place in the merged timeline (numbers repeat across the files), each
		 * place's file and number kept for the marks' keys */
		e.frame_next = cfg->nfiles > 1 ? ++merged_no : fr.no;
		if (cfg->nfiles > 1) {
			if (nkeys == kcap) {
				size_t nc = kcap ? kcap * 2 : 4096;
				uint64_t *nk = realloc(keys, nc * sizeof *nk);

				if (!nk) {
					snprintf(err, cap, "out of memory for the frames' places");
					rc = -1;
					break;
				}
				keys = nk;
				kcap = nc;
			}
			keys[nkeys++] = vmarks_key(fr.iface, fr.no);
		}
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
			uint64_t first = l.v[i].first_frame, last = l.v[i].last_frame;

			if (keys) {     /* merged places to (file, number) */
				first = first && first <= nkeys ? keys[first - 1] : 0;
				last = last && last <= nkeys ? keys[last - 1] : 0;
			}
			if (vm_add(vm, &mcap, first, l.v[i].id) ||
			    (last != first && vm_add(vm, &mcap, last, l.v[i].id)))
				rc = -1;
		}
		diag_list_free(&l);
		if (rc)
			snprintf(err, cap, "out of memory for the diagnosis");
	} else if (!rc) {
		snprintf(err, cap, "out of memory for the diagnosis");
		rc = -1;
	}
	free(keys);
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

unsigned vmarks_at(const struct vmarks *vm, uint64_t key, const char **names, unsigned max)
{
	size_t lo = 0, hi = vm->n;
	unsigned k = 0;

	while (lo < hi) {          /* the first mark at or after key */
		size_t mid = lo + (hi - lo) / 2;

		if (vm->m[mid].frame < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < vm->n && vm->m[i].frame == key && k < max; i++)
		if (!k || strcmp(names[k - 1], diag_name(vm->m[i].id)))   /* sorted: a repeat is the one before */
			names[k++] = diag_name(vm->m[i].id);
	return k;
}

void vmarks_free(struct vmarks *vm)
{
	free(vm->m);
	memset(vm, 0, sizeof *vm);
}
