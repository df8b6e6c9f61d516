/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * device.c — the device screen (key D, with --device or an -i netdev that
 * has an RDMA port): what the NIC itself knows.  At the top, as the batch
 * text shows it (devout.c), per port the state, MTU, GIDs and the counters that
 * moved with their rates, and the NIC-vs-wire comparisons; below, the QP
 * table (devqp.c): sortable, filterable, Enter for one QP.
 * The devices are read again every interval while the screen is shown.
 * With --device alone (no capture) this is the only screen: the view opens
 * on it, and Esc has no flow table to go back to.
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

/* The port part, from line dev_off, at most up to ymax; the next free row. */
static int draw_ports(struct tui *v, int y, int ymax)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;
	int skip = v->dev_off;

	if (!(f = open_memstream(&text, &len)))
		return y;
	devmon_text_ports(f, v->cfg->dev);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line && y < ymax; line = strtok_r(NULL, "\n", &save)) {
		if (skip-- > 0)
			continue;
		put(y++, 0, !strncmp(line, "device ", 7) ? A_BOLD : strstr(line, "DISAGREE") ? pair_attr(v, P_BAD) :
		    A_NORMAL, "%.*s", COLS > 0 ? COLS - 1 : 0, line);
	}
	free(text);
	return y;
}

static void draw_device(struct tui *v, int y0, uint64_t now)
{
	struct devmon *m = v->cfg->dev;
	uint64_t interval = (uint64_t)((v->cfg->interval > 0 ? v->cfg->interval : 1) * 1e9);
	int y;

	(void)now;
	if (!m)
		return;
	if (!v->dev_polled || mono_ns() - v->dev_polled >= interval) {
		devmon_poll(m, wall_now());
		v->dev_polled = mono_ns();
	}
	devqp_build(v);
	/* the ports take at most half the screen; the QPs the rest */
	y = draw_ports(v, y0, y0 + (LINES - 1 - y0) / 2);
	if (v->q_detail)
		devqp_detail(v, y + 1, LINES - 1);
	else
		devqp_draw(v, y + 1, LINES - 1);
}

static int device_key(struct tui *v, int ch, int *quit)
{
	(void)quit;
	if (devqp_key(v, ch))
		return 1;
	switch (ch) {
	case 27:
	case 'D':
		if (v->cfg->dev_only)
			flash_msg(v, "device-only view (no capture): no flow table to go back to; -i IFACE or -r FILE "
				  "adds the flows; q quits");
		else
			v->mode = V_TABLE;
		return 1;
	case KEY_NPAGE:
		v->dev_off++;
		return 1;
	case KEY_PPAGE:
		v->dev_off = v->dev_off > 0 ? v->dev_off - 1 : 0;
		return 1;
	default:
		return 0;
	}
}

const struct tui_view tui_device_view = {
	.name = "device",
	.hint = "RDMA devices: Up/Down QP  Enter: one QP  s/</>: sort  r: reverse  /: filter  PgUp/PgDn: "
		"scroll ports  D or Esc: flows  q: quit",
	.hint_dev_only = "RDMA devices (no capture): Up/Down QP  Enter: one QP  s/</>: sort  r: reverse  /: filter  "
		"PgUp/PgDn: ports  q: quit",
	.draw = draw_device,
	.key = device_key,
};
