/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dlines.c — the lines a long view builds in full before it scrolls them
 * (the detail view and the parts it draws: counters, history, verdicts).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "dlines.h"

void ln(struct dlines *L, attr_t a, const char *fmt, ...)
{
	va_list ap;

	if (L->n == L->cap) {
		int nc = L->cap ? L->cap * 2 : 64;
		struct dline *nl = realloc(L->l, (size_t)nc * sizeof *nl);

		if (!nl)
			return;
		L->l = nl;
		L->cap = nc;
	}
	L->l[L->n].a = a;
	va_start(ap, fmt);
	vsnprintf(L->l[L->n].s, sizeof L->l[0].s, fmt, ap);
	va_end(ap);
	L->n++;
}

/* A row of the two-direction table: label, value A->B, value B->A. */
void row2(struct dlines *L, attr_t a, const char *label, const char *va, const char *vb)
{
	ln(L, a, "  %-30s %-30s %-30s", label, va, vb ? vb : "");
}
