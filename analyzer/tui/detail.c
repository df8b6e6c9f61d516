/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * detail.c — the detail view: one connection, both directions side by side
 * (counters, PSN state, history, recent events), scrolled with the keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include "detail.h"

/* The connection's title, then its counters, A->B and B->A side by side. */
static void counters_part(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p,
			  uint64_t now)
{
	const struct engine *e = v->e;
	char a[64], b[64], qa[24], qb[24] = "", da[160], db[160];

	host_str(e, f->src, a, sizeof a);
	host_str(e, f->dst, b, sizeof b);
	qpn_str(f, qa, sizeof qa);
	if (p)
		qpn_str(p, qb, sizeof qb);
	snprintf(da, sizeof da, "%s -> %s", a, b);
	snprintf(db, sizeof db, "%s -> %s", b, a);
	ln(L, pair_attr(v, P_TITLE), "Connection %s <-> %s  %s%s%s  paired by %s  upper layer %s", a, b,
	   flow_kind_name(f->kind), f->kind == FK_IWARP ? "" : " ",
	   f->kind == FK_IWARP ? "" : roce_version_name(f->version), p ? flow_pair_name(f->pair_how) : "(none seen)",
	   flow_ulp_name(f) ? flow_ulp_name(f) : "unknown");
	if (f->kind != FK_IWARP && p)
		ln(L, A_NORMAL, "  scheme of the connection: %s",
		   roce_seq_scheme_name(roce_seq_scheme_join(roce_seq_scheme(&f->u.seq), roce_seq_scheme(&p->u.seq))));
	diag_of_conn(v, L, f, p);
	ln(L, A_NORMAL, "%s", "");
	ln(L, A_BOLD, "  %-30s %-30.30s %-30.30s", "", da, p ? db : "(other direction not seen)");
	row2(L, A_NORMAL, f->kind == FK_IWARP ? "ports" : "DestQP", qa, p ? qb : "-");
	counters_rows(v, L, f, p, now);
	ln(L, A_NORMAL, "%s", "");
}

/* RoCE: PSN state; both: history and recent events. */
static void history_part(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p)
{
	char a[64], b[64];
	const char *dirs[2] = { "A->B", "B->A" };
	uint32_t ids[2] = { v->det_idx1, p ? f->peer : 0 };
	int width = COLS - 40 > HIST ? HIST : COLS - 40 < 10 ? 10 : COLS - 40;
	int g = history_group(v, ids, width);
	char step[32];

	step_str(v->tick_ns * (uint64_t)g, step, sizeof step);
	if (f->kind != FK_IWARP) {
		ln(L, A_BOLD, "PSN state (each direction's request PSNs)");
		psn_state(v, L, "A->B", f);
		if (p)
			psn_state(v, L, "B->A", p);
		ln(L, A_NORMAL, "%s", "");
		ln(L, A_BOLD, "History, one column per %s (newest right; PSNs: > progress  R retransmission  "
		   "N NAK  G gap  D duplicate  C CNP/ECN  X bad CRC)", step);
	} else {
		ln(L, A_BOLD, "History, one column per %s (newest right; TCP stream: > progress  "
		   "R TCP retransmission  G TCP gap  T terminate  X bad MPA CRC)", step);
	}
	timeline(v, L, "A->B", f, v->det_idx1, g);
	if (p)
		timeline(v, L, "B->A", p, f->peer, g);
	ln(L, A_NORMAL, "%s", "");
	ln(L, A_BOLD, "Recent events (counter increases per %s step, newest first; A->B = %s -> %s)",
	   step_str(v->tick_ns, step, sizeof step), host_str(v->e, f->src, a, sizeof a),
	   host_str(v->e, f->dst, b, sizeof b));
	recent_events(v, L, ids, dirs);
}

/* The lines from detail_off on, clamped so that the last line is at the bottom at most. */
static void scroll_out(struct tui *v, const struct dlines *L, int y0)
{
	int h = LINES - y0 - 1;

	if (v->detail_off > L->n - h)
		v->detail_off = L->n - h > 0 ? L->n - h : 0;
	if (v->detail_off < 0)
		v->detail_off = 0;
	for (int i = 0; i < h && v->detail_off + i < L->n; i++) {
		const struct dline *l = &L->l[v->detail_off + i];

		attrset(l->a);
		mvaddnstr(y0 + i, 0, l->s, COLS);
		attrset(A_NORMAL);
	}
}

static void draw_detail(struct tui *v, int y0, uint64_t now)
{
	struct engine *e = v->e;
	const struct flow *f = engine_flow(e, v->det_idx1), *p;
	struct dlines L = { 0, 0, NULL };

	if (!f || v->det_idx1 > e->nflows || f->src != v->det_src || f->dst != v->det_dst || f->qpn != v->det_qpn) {
		put(y0 + 1, 2, pair_attr(v, P_WARN), "This connection is no longer in the table (evicted or cleared). "
		    "Esc: back");
		return;
	}
	p = flow_peer(e, f);
	counters_part(v, &L, f, p, now);
	history_part(v, &L, f, p);
	scroll_out(v, &L, y0);
	free(L.l);
}

static int detail_key(struct tui *v, int ch, int *quit)
{
	int page = page_rows();

	(void)quit;
	switch (ch) {
	case 27:
	case KEY_BACKSPACE:
	case KEY_LEFT:
		v->mode = v->det_back == V_DIAG ? V_DIAG : V_TABLE;
		return 1;
	case KEY_UP: case 'k': v->detail_off--; return 1;
	case KEY_DOWN: case 'j': v->detail_off++; return 1;
	case KEY_PPAGE: v->detail_off -= page; return 1;
	case KEY_NPAGE: v->detail_off += page; return 1;
	case KEY_HOME: case 'g': v->detail_off = 0; return 1;
	case KEY_END: case 'G': v->detail_off = 1 << 20; return 1;   /* clamped when drawn */
	default: return 0;
	}
}

const struct tui_view tui_detail_view = {
	.name = "detail",
	.hint = "Esc back  Up/Down PgUp/PgDn Home/End scroll  v diagnosis  p pause  q quit",
	.draw = draw_detail,
	.key = detail_key,
};
