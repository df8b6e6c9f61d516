/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * draw.c — helpers every screen uses: colours, the one-shot status message,
 * bounded printing at a position, sparklines.
 */
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include "view.h"

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

attr_t pair_attr(const struct tui *v, int pair)
{
	if (!v->color)
		return pair == P_BAD || pair == P_ICRC ? A_BOLD : A_NORMAL;
	return COLOR_PAIR(pair) | (pair == P_BAD || pair == P_TITLE ? A_BOLD : 0);
}

void flash_msg(struct tui *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof v->msg, fmt, ap);
	va_end(ap);
	v->msg_until = mono_ns() + 3000000000ull;
}

void put(int y, int x, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int w = COLS - x;

	if (y < 0 || y >= LINES || w <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	attrset(a);
	mvaddnstr(y, x, buf, w);
	attrset(A_NORMAL);
}

/* A sparkline of n values (oldest first) into buf: UTF-8 blocks or ASCII. */
void sparkline(const struct tui *v, const double *val, int n, char *buf, size_t cap)
{
	static const char *const blocks[9] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
						"\u2587", "\u2588" };
	static const char ascii[] = " _.-:=+*#";
	double max = 0;
	size_t o = 0;

	for (int i = 0; i < n; i++)
		if (val[i] > max)
			max = val[i];
	for (int i = 0; i < n && o + 4 < cap; i++) {
		int k = max > 0 && val[i] > 0 ? 1 + (int)(val[i] / max * 7.999) : 0;

		if (k > 8)
			k = 8;
		if (v->utf8) {
			size_t l = strlen(blocks[k]);

			memcpy(buf + o, blocks[k], l);
			o += l;
		} else {
			buf[o++] = ascii[k];
		}
	}
	buf[o] = 0;
}

/* Rows a PgUp/PgDn moves. */
int page_rows(void)
{
	return LINES - 9 > 1 ? LINES - 9 : 1;
}
