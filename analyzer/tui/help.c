/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * help.c — the help screen: the keys and what each column counts.  Its
 * lines fit 80 columns; below the header they scroll (Up/Down, PgUp/PgDn,
 * Home/End) when the terminal is too short for all of them (80x24 is), and
 * the bottom line says where the view is.
 */
#include <stdlib.h>
#include "detail.h"

static const char *const keys[] = {
	"  Up/Down j/k      move the cursor; PgUp/PgDn a page; Home/End g/G first/last",
	"  < >  or  s       sort by the column to the left / right (s: the next one)",
	"  r                reverse the order",
	"  /                filter: address, QPN (0x1a2b or decimal), kind or operation",
	"                   (send write read atomic); Enter applies, Esc cancels, an",
	"                   empty filter shows every flow",
	"  Enter            detail of the connection under the cursor: both directions,",
	"                   counters, PSN state, history (sparklines of rate and",
	"                   retransmissions, PSN timeline), recent events",
	"  Esc              back to the table",
	"  v                the diagnosis: verdicts, active then past, most severe",
	"                   first, the evidence of the one selected; Enter its",
	"                   connection; Esc or v back (rocetop(8) DIAGNOSIS)",
	"  D                the RDMA devices (--device): port counters and rates; the QP",
	"                   table (PSN/s, pid, comm, the wire's view) sorts (s < > r),",
	"                   filters (/) and shows one QP (Enter)",
	"  p                pause (replay: stops reading; live: freezes the screen, the",
	"                   capture goes on)",
	"  + -              replay speed x2 / /2 (+ past 1024x: as fast as possible)",
	"  c                clear every counter",
	"  h ?              this help (Up/Down PgUp/PgDn Home/End scroll it)",
	"  q                quit",
};

static void help_lines(struct tui *v, struct dlines *L)
{
	/* first, where it is read without scrolling: the keys below that need
	 * flows say so when pressed */
	if (v->cfg->dev_only) {
		ln(L, pair_attr(v, P_WARN), "Device-only view (no capture): the flow table and its keys (c, D,");
		ln(L, pair_attr(v, P_WARN), "v, + -, Enter on a flow) need -i IFACE or -r FILE.");
		ln(L, A_NORMAL, "%s", "");
	}
	ln(L, A_BOLD, "Keys");
	for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++)
		ln(L, A_NORMAL, "%s", keys[i]);
	ln(L, A_NORMAL, "%s", "");
	ln(L, A_BOLD, "Columns");
	for (int c = 0; c < C__N; c++)
		ln(L, A_NORMAL, "  %-8s %s", cols[c].name, cols[c].what);
	ln(L, A_NORMAL, "%s", "");
	ln(L, A_BOLD, "Colours");
	ln(L, A_NORMAL, "  yellow retransmissions and sequence anomalies; red NAKs, RNR NAKs, PFC and");
	ln(L, A_NORMAL, "  capture drops; cyan CNPs and ECN marks; magenta bad ICRC/CRC.");
	ln(L, A_NORMAL, "Rates are over capture time; counters are rocetop(8)'s (as an RC responder");
	ln(L, A_NORMAL, "counts).");
}

static void draw_help(struct tui *v, int y0, uint64_t now)
{
	struct dlines L = { 0, 0, NULL };
	int h = LINES - y0 - 1;

	(void)now;
	help_lines(v, &L);
	if (h < 1)
		h = 1;
	if (v->help_off > L.n - h)
		v->help_off = L.n - h > 0 ? L.n - h : 0;
	if (v->help_off < 0)
		v->help_off = 0;
	for (int i = 0; i < h && v->help_off + i < L.n; i++)
		put(y0 + i, 1, L.l[v->help_off + i].a, "%s", L.l[v->help_off + i].s);
	if (L.n > h)
		put(LINES - 1, 0, pair_attr(v, P_DIM), "lines %d-%d of %d  Up/Down PgUp/PgDn Home/End scroll  "
		    "any other key: back", v->help_off + 1, v->help_off + h < L.n ? v->help_off + h : L.n, L.n);
	else
		put(LINES - 1, 0, pair_attr(v, P_DIM), "any key: back  q quit");
	free(L.l);
}

/* The scrolling keys scroll, q quits, any other key goes back. */
static int help_key(struct tui *v, int ch, int *quit)
{
	int page = LINES - 10 > 1 ? LINES - 10 : 1;

	switch (ch) {
	case 'q':
		*quit = 1;
		return 0;
	case KEY_UP: case 'k': v->help_off--; return 1;
	case KEY_DOWN: case 'j': v->help_off++; return 1;
	case KEY_PPAGE: v->help_off -= page; return 1;
	case KEY_NPAGE: v->help_off += page; return 1;
	case KEY_HOME: case 'g': v->help_off = 0; return 1;
	case KEY_END: case 'G': v->help_off = 1 << 20; return 1;   /* clamped when drawn */
	default:
		v->mode = v->prev_mode;
		return 1;
	}
}

const struct tui_view tui_help_view = {
	.name = "help",
	.modal = 1,
	.draw = draw_help,
	.key = help_key,
};
