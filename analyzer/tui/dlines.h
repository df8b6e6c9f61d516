/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dlines.h — a growing list of screen lines, each with its attribute: what
 * the detail view and its parts write into, then scroll.  Below detail.c and
 * the files that draw its parts.
 */
#ifndef ROCETOP_TUI_DLINES_H
#define ROCETOP_TUI_DLINES_H

#include "view.h"

struct dlines {
	int n, cap;
	struct dline {
		attr_t a;
		char s[320];
	} *l;
};

/* One more line, printf-style (cut at 319 bytes); dropped when out of memory. */
void ln(struct dlines *L, attr_t a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A row of the two-direction table: label, value A->B, value B->A. */
void row2(struct dlines *L, attr_t a, const char *label, const char *va, const char *vb);

#endif
