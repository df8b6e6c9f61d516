/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sappend.c — the one text primitive under every summary hook (summary.c and
 * each protocol's roce__summary_*): printf-append into a caller's buffer at
 * *n, never beyond cap - 1, so a long line is cut short, never overrun.
 */
#include <stdarg.h>
#include <stdio.h>
#include "internal.h"

void roce__sappend(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n + 1 >= cap)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, cap - *n, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	*n += (size_t)k;
	if (*n >= cap)
		*n = cap - 1;
}
