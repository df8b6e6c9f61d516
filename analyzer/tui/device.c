/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * device.c — the device screen (key D, with --device or an -i netdev that
 * has an RDMA port): what the NIC itself knows.  At the top, as the batch
 * text shows it (devout.c), per port the state, MTU, GIDs and the counters that
 * moved with their rates, and the NIC-vs-wire comparisons; then the PFC
 * table (pfc.h: per netdev and priority, pause frames received and sent,
 * their rates, pause time and XON where the driver counts them; a priority
 * whose pause counters moved is highlighted); below, the QP table
 * (devqp.c): sortable, filterable, Enter for one QP.
 * The devices are read again every interval while the screen is shown.
 * With --device alone (no capture) this is the only screen: the view opens
 * on it, and Esc has no flow table to go back to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "devmon.h"
#include "pfc.h"
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
		if (!strncmp(line, "  pfc ", 6))
			continue;           /* the PFC table below shows them */
		if (skip-- > 0)
			continue;
		put(y++, 0, !strncmp(line, "device ", 7) ? A_BOLD : strstr(line, "DISAGREE") ? pair_attr(v, P_BAD) :
		    A_NORMAL, "%.*s", COLS > 0 ? COLS - 1 : 0, line);
	}
	free(text);
	return y;
}

/* "52 (12.0/s)"-like cells: the value, or "-" where the driver counts none */
static void cell(char *b, size_t cap, const struct pfc_val *x, int rate)
{
	if (!x->have)
		snprintf(b, cap, "-");
	else if (rate)
		snprintf(b, cap, x->have_rate ? "%.1f" : "-", x->rate);
	else
		snprintf(b, cap, "%llu", (unsigned long long)x->v);
}

/* The PFC table: one row per priority a port's netdev counts (and 802.3x),
 * from y, at most up to ymax; the next free row. */
static int draw_pfc(struct tui *v, int y, int ymax)
{
	const struct devmon *m = v->cfg->dev;
	int head = 0;

	for (size_t i = 0; m && i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];
			struct pfc_prio pr[9];

			if (!p->netdev[0] || p->eth_err ||
			    !pfc_collect(&p->eth, p->eth_rate, p->eth_rate ? p->eth.n : 0, pr))
				continue;
			for (unsigned k = 0; k < 9 && y < ymax; k++) {
				char c[8][24], prio[8];
				int moving = 0;

				if (!pr[k].any)
					continue;
				if (!head++)
					put(y++, 0, A_BOLD, "  %-16s %-6s %12s %9s %10s %8s %12s %9s %10s %8s", "PFC NETDEV",
					    "PRIO", "RX-PAUSE", "RX/s", "RX-us", "RX-XON", "TX-PAUSE", "TX/s", "TX-us",
					    "TX-XON");
				if (y >= ymax)
					break;
				for (int d = 0; d < 2; d++) {
					cell(c[d * 4], sizeof c[0], &pr[k].f[d][PFC_PAUSE], 0);
					cell(c[d * 4 + 1], sizeof c[0], &pr[k].f[d][PFC_PAUSE], 1);
					cell(c[d * 4 + 2], sizeof c[0], &pr[k].f[d][PFC_PAUSE_US], 0);
					cell(c[d * 4 + 3], sizeof c[0], &pr[k].f[d][PFC_XON], 0);
					for (int x = 0; x < 2; x++)
						moving |= pr[k].f[d][x].have_rate && pr[k].f[d][x].rate > 0;
				}
				if (k == PFC_GLOBAL)
					snprintf(prio, sizeof prio, "802.3x");
				else
					snprintf(prio, sizeof prio, "%u", k);
				put(y++, 0, moving ? pair_attr(v, P_BAD) : A_NORMAL,
				    "  %-16.16s %-6s %12s %9s %10s %8s %12s %9s %10s %8s%s", p->netdev, prio, c[0], c[1], c[2],
				    c[3], c[4], c[5], c[6], c[7], moving ? "  paused" : "");
			}
		}
	return y;
}

int device_poll_due(struct tui *v)
{
	struct devmon *m = v->cfg->dev;
	uint64_t interval = (uint64_t)((v->cfg->interval > 0 ? v->cfg->interval : 1) * 1e9);

	if (!m || (v->dev_polled && mono_ns() - v->dev_polled < interval))
		return 0;
	devmon_poll(m, wall_now());
	v->dev_polled = mono_ns();
	return 1;
}

static void draw_device(struct tui *v, int y0, uint64_t now)
{
	int y;

	(void)now;
	if (!v->cfg->dev)
		return;
	device_poll_due(v);
	devqp_build(v);
	/* the ports take at most half the screen; the QPs the rest */
	y = draw_ports(v, y0, y0 + (LINES - 1 - y0) / 2);
	y = draw_pfc(v, y, y + 1 + 18 < LINES - 4 ? y + 1 + 18 : LINES - 4);
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
