/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * table.c — the flow table: one row per flow, its columns, and the keys
 * that move the cursor, sort, filter and open the detail view.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "view.h"

const struct tui_col cols[C__N] = {
	[C_SRC] = { "SRC", "source address", 15, 0, 0 },
	[C_DST] = { "DST", "destination address", 15, 0, 0 },
	[C_QPN] = { "QPN", "destination QP (iWARP: TCP ports)", 11, 0, 0 },
	[C_KIND] = { "KIND", "transport (RC UC UD XRC RD iWARP)", 5, 0, 0 },
	[C_OPS] = { "OPS", "operations seen: Send Write Read Atomic", 4, 0, 1 },
	[C_RATE_S] = { "RATE 2s", "rate over ~2 s", 10, 1, 1 },
	[C_RATE_L] = { "RATE 40s", "rate over ~40 s", 10, 1, 1 },
	[C_PKTS] = { "PACKETS", "packets", 9, 1, 1 },
	[C_RETX] = { "RETX", "retransmissions (iWARP: TCP)", 6, 1, 1 },
	[C_OOS] = { "OOS", "out_of_sequence requests", 6, 1, 1 },
	[C_NAK] = { "NAK", "NAKs other than RNR", 5, 1, 1 },
	[C_RNR] = { "RNR", "RNR NAKs", 5, 1, 1 },
	[C_CNP] = { "CNP", "CNPs slowing the sender", 5, 1, 1 },
	[C_ECN] = { "ECN", "ECN CE marked packets", 6, 1, 1 },
	[C_RTT] = { "RTT p50", "median request->ACK RTT, us", 8, 1, 1 },
};

static int addr_width(void)
{
	int fixed = 0, w;

	for (int c = C_QPN; c < C__N; c++)
		fixed += cols[c].w + 1;
	w = (COLS - fixed - 2) / 2;
	return w < 15 ? 15 : w > 39 ? 39 : w;
}

static int col_width(int c, int aw)
{
	return c == C_SRC || c == C_DST ? aw : cols[c].w;
}

/* Characters (not bytes) of a UTF-8 string. */
static int ulen(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void cell(int y, int *x, int w, int right, attr_t a, const char *s)
{
	char buf[80];
	int len = ulen(s), pad;

	if (len > w) {
		/* keep the end of an address: its distinctive part (ASCII) */
		snprintf(buf, sizeof buf, "~%s", s + strlen(s) - (size_t)w + 1);
		s = buf;
		len = w;
	}
	pad = w - len;
	put(y, *x, a, "%*s%s%*s", right ? pad : 0, "", s, right ? 0 : pad, "");
	*x += w + 1;
}

void draw_table(struct tui *v, int y0, uint64_t now)
{
	const struct engine *e = v->e;
	int aw = addr_width(), x = 0, rows_h = LINES - y0 - 2;

	attrset(A_REVERSE);
	mvhline(y0, 0, ' ', COLS);
	for (int c = 0; c < C__N; c++) {
		char h[32];

		snprintf(h, sizeof h, "%s%s", cols[c].name,
			 c == v->sort ? ((cols[c].desc ^ v->rev) ? (v->utf8 ? "\u25bc" : "v") : (v->utf8 ? "\u25b2" : "^")) : "");
		cell(y0, &x, col_width(c, aw), cols[c].right, A_REVERSE | (c == v->sort ? A_BOLD : 0), h);
	}
	attrset(A_NORMAL);
	if (rows_h < 1)
		return;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (uint32_t)rows_h)
		v->top = v->cur - (uint32_t)rows_h + 1;
	if (v->top + (uint32_t)rows_h > v->nrows)
		v->top = v->nrows > (uint32_t)rows_h ? v->nrows - (uint32_t)rows_h : 0;
	if (!v->nrows)
		put(y0 + 2, 2, A_NORMAL, "%s", v->filter[0] ? "no flow matches the filter (/ to change it)" :
		    "no RoCE or iWARP flow yet");
	for (int r = 0; r < rows_h && v->top + (uint32_t)r < v->nrows; r++) {
		uint32_t ri = v->top + (uint32_t)r;
		const struct flow *f = &e->flows[v->rows[ri].i];
		const struct roce_seq_anom *xa = anom(f);
		int y = y0 + 1 + r, sel = ri == v->cur;
		attr_t base = sel ? A_REVERSE : A_NORMAL;
		char a[64], b[64], q[24], ops[5], r0[24], r2[24], n[16][24];
		double rt[3];
		uint32_t retx = flow_retx(f), naks = flow_naks(f), rtt = flow_rtt50(f);
		uint32_t cnp = f->kind == FK_IWARP ? 0 : f->u.seq.cnp, ecn = f->kind == FK_IWARP ? 0 : f->u.seq.ecn_ce;
		int icrc = f->kind == FK_IWARP ? f->u.iw.crc_bad > 0 : f->u.seq.icrc_bad > 0;

		x = 0;
		if (sel) {
			attrset(A_REVERSE);
			mvhline(y, 0, ' ', COLS);
			attrset(A_NORMAL);
		}
		flow_rates(e, f, now, rt);
		host_str(e, f->src, a, sizeof a);
		host_str(e, f->dst, b, sizeof b);
		qpn_str(f, q, sizeof q);
		flow_ops(f, ops);
		cell(y, &x, aw, 0, base, a);
		cell(y, &x, aw, 0, base, b);
		cell(y, &x, cols[C_QPN].w, 0, base, q);
		cell(y, &x, cols[C_KIND].w, 0, icrc ? base | pair_attr(v, P_ICRC) : base, flow_kind_name(f->kind));
		cell(y, &x, cols[C_OPS].w, 0, base, ops);
		cell(y, &x, cols[C_RATE_S].w, 1, base, rate_str(rt[0], r0, sizeof r0));
		cell(y, &x, cols[C_RATE_L].w, 1, base, rate_str(rt[2], r2, sizeof r2));
		snprintf(n[0], sizeof n[0], "%" PRIu64, f->packets);
		cell(y, &x, cols[C_PKTS].w, 1, base, n[0]);
		snprintf(n[1], sizeof n[1], "%" PRIu32, retx);
		cell(y, &x, cols[C_RETX].w, 1, retx ? base | pair_attr(v, P_WARN) : base, n[1]);
		snprintf(n[2], sizeof n[2], "%" PRIu32, xa->out_of_sequence);
		cell(y, &x, cols[C_OOS].w, 1, xa->out_of_sequence ? base | pair_attr(v, P_WARN) : base, n[2]);
		snprintf(n[3], sizeof n[3], "%" PRIu32, naks);
		cell(y, &x, cols[C_NAK].w, 1, naks ? base | pair_attr(v, P_BAD) : base, n[3]);
		snprintf(n[4], sizeof n[4], "%" PRIu32, xa->rnr_nak);
		cell(y, &x, cols[C_RNR].w, 1, xa->rnr_nak ? base | pair_attr(v, P_BAD) : base, n[4]);
		snprintf(n[5], sizeof n[5], "%" PRIu32, cnp);
		cell(y, &x, cols[C_CNP].w, 1, cnp ? base | pair_attr(v, P_INFO) : base, n[5]);
		snprintf(n[6], sizeof n[6], "%" PRIu32, ecn);
		cell(y, &x, cols[C_ECN].w, 1, ecn ? base | pair_attr(v, P_INFO) : base, n[6]);
		if (rtt || (f->kind != FK_IWARP && f->u.seq.rtt.n))
			snprintf(n[7], sizeof n[7], "%" PRIu32, rtt);
		else
			snprintf(n[7], sizeof n[7], "-");
		cell(y, &x, cols[C_RTT].w, 1, base, n[7]);
	}
}

static void open_detail(struct tui *v)
{
	const struct flow *f = &v->e->flows[v->rows[v->cur].i];

	v->det_idx1 = v->rows[v->cur].i + 1;
	v->det_src = f->src;
	v->det_dst = f->dst;
	v->det_qpn = f->qpn;
	v->detail_off = 0;
	v->mode = V_DETAIL;
	/* history starts now if the flow had none */
	if (!track_find(v, v->det_idx1))
		track_get(v, v->det_idx1, 0);
	if (f->peer && !track_find(v, f->peer))
		track_get(v, f->peer, 0);
}

/* The cursor keys; 0 when ch is not one of them. */
static int move_key(struct tui *v, int ch)
{
	uint32_t page = (uint32_t)page_rows();

	switch (ch) {
	case KEY_UP: case 'k': if (v->cur) v->cur--; break;
	case KEY_DOWN: case 'j': if (v->cur + 1 < v->nrows) v->cur++; break;
	case KEY_PPAGE: v->cur = v->cur > page ? v->cur - page : 0; break;
	case KEY_NPAGE:
		v->cur += page;
		if (v->cur >= v->nrows)
			v->cur = v->nrows ? v->nrows - 1 : 0;
		break;
	case KEY_HOME: case 'g': v->cur = 0; break;
	case KEY_END: case 'G': v->cur = v->nrows ? v->nrows - 1 : 0; break;
	default: return 0;
	}
	return 1;
}

static int table_key(struct tui *v, int ch, int *quit)
{
	(void)quit;
	if (move_key(v, ch)) {
		remember_cursor(v);
		return 1;
	}
	switch (ch) {
	case '<': case ',': v->sort = (v->sort + C__N - 1) % C__N; v->rev = 0; break;
	case '>': case '.': case 's': case 'S': v->sort = (v->sort + 1) % C__N; v->rev = 0; break;
	case 'r': case 'R': v->rev = !v->rev; break;
	case '/':
		snprintf(v->prompt, sizeof v->prompt, "%s", v->filter);
		v->mode = V_FILTER;
		return 1;
	case 27:
		if (v->filter[0]) {
			v->filter[0] = 0;
			flash_msg(v, "filter cleared");
		}
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (v->cur < v->nrows)
			open_detail(v);
		break;
	default:
		return 0;
	}
	if (v->mode == V_TABLE)
		remember_cursor(v);
	return 1;
}

const struct tui_view tui_table_view = {
	.name = "table",
	.rows = 1,
	.hint = "h help  Enter detail  / filter  < > s sort  r reverse  p pause  c clear  q quit",
	.draw = draw_table,
	.key = table_key,
};
