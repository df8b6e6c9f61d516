/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.c — the filter prompt: the table with "filter: ..." on the bottom
 * line; Enter applies what was typed, Esc cancels, ^U empties it.
 */
#include <stdio.h>
#include <string.h>
#include "view.h"

static void draw_filter(struct tui *v, int y0, uint64_t now)
{
	if (v->filter_qps)
		tui_device_view.draw(v, y0, now);
	else
		draw_table(v, y0, now);
	put(LINES - 1, 0, A_BOLD, "filter: %s", v->prompt);
	curs_set(1);
	move(LINES - 1, 8 + (int)strlen(v->prompt));
}

static int filter_key(struct tui *v, int ch, int *quit)
{
	size_t l = strlen(v->prompt);

	(void)quit;
	if (ch == 27) {
		v->mode = v->filter_qps ? V_DEVICE : V_TABLE;
		v->filter_qps = 0;
	} else if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && v->filter_qps) {
		snprintf(v->q_filter, sizeof v->q_filter, "%s", v->prompt);   /* the device screen's QPs */
		lower(v->q_filter);
		v->mode = V_DEVICE;
		v->filter_qps = 0;
		v->q_cur = v->q_top = 0;
		v->q_sel_set = 0;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		snprintf(v->filter, sizeof v->filter, "%s", v->prompt);
		lower(v->filter);
		v->mode = V_TABLE;
		v->cur = v->top = 0;
		v->sel_idx1 = 0;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (l)
			v->prompt[l - 1] = 0;
	} else if (ch == 21) {   /* ^U */
		v->prompt[0] = 0;
	} else if (ch >= 32 && ch < 127 && l + 1 < sizeof v->prompt) {
		v->prompt[l] = (char)ch;
		v->prompt[l + 1] = 0;
	}
	return 1;
}

const struct tui_view tui_filter_view = {
	.name = "filter",
	.rows = 1,
	.modal = 1,
	.hint = NULL,
	.draw = draw_filter,
	.key = filter_key,
};
