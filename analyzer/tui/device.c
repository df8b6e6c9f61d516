/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * device.c — the device screen (key D, with --device or an -i netdev that
 * has an RDMA port): what the NIC itself knows, as the batch text shows it
 * (devout.c): per port the state, GIDs and the counters that moved with
 * their rates, then the QP table with PSN/s, pid and comm, and the CM IDs.
 * The devices are read again every interval while the screen is shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "devmon.h"
#include "view.h"

static uint64_t wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void draw_device(struct tui *v, int y0, uint64_t now)
{
	struct devmon *m = v->cfg->dev;
	uint64_t interval = (uint64_t)((v->cfg->interval > 0 ? v->cfg->interval : 1) * 1e9);
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;
	int y = y0, skip = v->dev_off;

	(void)now;
	if (!m)
		return;
	if (!v->dev_polled || mono_ns() - v->dev_polled >= interval) {
		devmon_poll(m, wall_now());
		v->dev_polled = mono_ns();
	}
	if (!(f = open_memstream(&text, &len)))
		return;
	devmon_text(f, m);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line && y < LINES - 1; line = strtok_r(NULL, "\n", &save)) {
		if (skip-- > 0)
			continue;
		put(y++, 0, !strncmp(line, "device ", 7) || strstr(line, "LQPN") ? A_BOLD : A_NORMAL, "%.*s",
		    COLS > 0 ? COLS - 1 : 0, line);
	}
	free(text);
}

static int device_key(struct tui *v, int ch, int *quit)
{
	(void)quit;
	switch (ch) {
	case 27:
	case 'D':
		v->mode = V_TABLE;
		return 1;
	case KEY_DOWN:
	case 'j':
		v->dev_off++;
		return 1;
	case KEY_UP:
	case 'k':
		v->dev_off = v->dev_off > 0 ? v->dev_off - 1 : 0;
		return 1;
	case KEY_NPAGE:
		v->dev_off += page_rows();
		return 1;
	case KEY_PPAGE:
		v->dev_off = v->dev_off > page_rows() ? v->dev_off - page_rows() : 0;
		return 1;
	case KEY_HOME:
	case 'g':
		v->dev_off = 0;
		return 1;
	default:
		return 0;
	}
}

const struct tui_view tui_device_view = {
	.name = "device",
	.hint = "RDMA devices (--device): Up/Down scroll  D or Esc: back to the flows  q: quit",
	.draw = draw_device,
	.key = device_key,
};
