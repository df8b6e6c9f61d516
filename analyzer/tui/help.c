/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * help.c — the help screen: the keys and what each column counts.
 */
#include "view.h"

static void draw_help(struct tui *v, int y0, uint64_t now)
{
	static const char *const keys[] = {
		"Keys",
		"  Up/Down j/k       move the cursor        PgUp/PgDn  a page    Home/End g/G  first/last",
		"  < >  or  s        sort by the column to the left / right (s: next)    r  reverse the order",
		"  /                 filter: address, QPN (0x1a2b or decimal), kind or operation (send write read",
		"                    atomic); Enter applies, Esc cancels, an empty filter shows every flow",
		"  Enter             detail of the connection under the cursor (both directions, counters, PSN",
		"                    state, sparklines of rate and retransmissions, PSN timeline, recent events)",
		"  Esc               back to the table                            q  quit",
		"  p                 pause (replay: stops reading; live: freezes the screen, capture goes on)",
		"  + -               replay speed x2 / /2 (+ past 1024x: as fast as possible)    c  clear every counter",
		"  D                 the RDMA devices (--device): port counters and rates; the QP table (PSN/s, pid,",
		"                    comm, the wire's view) sorts (s < > r), filters (/) and shows one QP (Enter)",
		"  v                 the diagnosis: verdicts (active, then past) most severe first, the evidence of",
		"                    the one selected; Enter its connection; Esc or v back (rocetop(8) DIAGNOSIS)",
		"  h ?               this help",
		"",
		"Columns",
	};
	int y = y0;

	(void)now;
	for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++)
		put(y++, 1, i == 0 || i == sizeof keys / sizeof keys[0] - 1 ? A_BOLD : A_NORMAL, "%s", keys[i]);
	for (int c = 0; c < C__N; c++)
		put(y++, 1, A_NORMAL, "  %-8s %s", cols[c].name, cols[c].what);
	y++;
	put(y++, 1, A_NORMAL, "Colours: yellow retransmissions and sequence anomalies, red NAKs, RNR NAKs, PFC and "
	    "capture drops, cyan CNPs and ECN marks, magenta bad ICRC/CRC.");
	put(y++, 1, A_NORMAL, "Rates are over capture time; counters are rocetop(8)'s (as an RC responder counts).");
	if (v->cfg->dev_only)   /* the keys above that need flows say so when pressed */
		put(y++, 1, pair_attr(v, P_WARN), "Device-only view (no capture): the flow table and its keys "
		    "(c, D, + -, Enter on a flow) need -i IFACE or -r FILE.");
	put(y + 1, 1, A_BOLD, "Press any key to go back.");
}

/* Any key goes back, q quits. */
static int help_key(struct tui *v, int ch, int *quit)
{
	if (ch == 'q') {
		*quit = 1;
		return 0;
	}
	v->mode = v->prev_mode;
	return 1;
}

const struct tui_view tui_help_view = {
	.name = "help",
	.modal = 1,
	.hint = "any key: back",
	.draw = draw_help,
	.key = help_key,
};
