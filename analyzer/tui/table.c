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
	[C_RATE_S] = { "RATE 2s", "rate over the last ~2 s (RATE all: over the capture, when shorter)", 9, 1, 1 },
	[C_AVG] = { "AVG", "average rate over the flow's life (first to last packet)", 9, 1, 1 },
	[C_PKTS] = { "PACKETS", "packets", 9, 1, 1 },
	[C_RETX] = { "RETX", "retransmissions (iWARP: TCP)", 6, 1, 1 },
	[C_OOS] = { "OOS", "out_of_sequence requests", 6, 1, 1 },
	[C_NAK] = { "NAK", "NAKs other than RNR", 5, 1, 1 },
	[C_RNR] = { "RNR", "RNR NAKs", 5, 1, 1 },
	[C_CNP] = { "CNP", "CNPs slowing the sender", 5, 1, 1 },
	[C_ECN] = { "ECN", "ECN CE marked packets", 6, 1, 1 },
	[C_RTT] = { "RTT p50", "median request->ACK RTT (us, ms, s; =: one sample, no median)", 8, 1, 1 },
};

#define ADDR_MIN 9                /* an address column narrower than this is elided ("~...") */
#define ADDR_MAX 39

/* Columns given up, in this order, when the terminal is too narrow for every
 * one with the addresses at ADDR_MIN: the anomaly columns stay. */
static const int drop_order[] = { C_OPS, C_KIND, C_RTT, C_AVG, C_PKTS, C_RATE_S, C_QPN };

struct layout {
	int show[C__N];
	int aw;                   /* width of an address column */
};

static void layout(struct layout *L)
{
	int fixed = 0;            /* the columns other than the addresses, a space after each */

	for (int c = 0; c < C__N; c++) {
		L->show[c] = 1;
		if (c != C_SRC && c != C_DST)
			fixed += cols[c].w + 1;
	}
	for (unsigned i = 0; i < sizeof drop_order / sizeof drop_order[0]; i++) {
		if (2 * (ADDR_MIN + 1) + fixed - 1 <= COLS)
			break;
		L->show[drop_order[i]] = 0;
		fixed -= cols[drop_order[i]].w + 1;
	}
	L->aw = (COLS + 1 - fixed) / 2 - 1;
	L->aw = L->aw < ADDR_MIN ? ADDR_MIN : L->aw > ADDR_MAX ? ADDR_MAX : L->aw;
}

static int col_width(const struct layout *L, int c)
{
	return c == C_SRC || c == C_DST ? L->aw : cols[c].w;
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

static void head_row(struct tui *v, const struct layout *L, int y0, uint64_t now)
{
	int x = 0;

	attrset(A_REVERSE);
	mvhline(y0, 0, ' ', COLS);
	for (int c = 0; c < C__N; c++) {
		char h[32];

		if (!L->show[c])
			continue;
		/* a capture shorter than the window: the rate over all of it (the header says how long) */
		snprintf(h, sizeof h, "%s%s", col_name(v, c, now),
			 c == v->sort ? ((cols[c].desc ^ v->rev) ? (v->utf8 ? "\u25bc" : "v") : (v->utf8 ? "\u25b2" : "^")) : "");
		cell(y0, &x, col_width(L, c), cols[c].right, A_REVERSE | (c == v->sort ? A_BOLD : 0), h);
	}
	attrset(A_NORMAL);
}

/* The column's heading: RATE 2s reads "RATE all" while the capture is shorter
 * than its window (the header says how long); the sort line says the same. */
const char *col_name(const struct tui *v, int c, uint64_t now)
{
	return c == C_RATE_S && rate_whole(v, now) ? "RATE all" : cols[c].name;
}

/* An RTT in microseconds with its unit ("812us", "1.60ms", "2.05s"); "=" before
 * the one sample of a flow that has no more (no median to speak of). */
static void rtt_cell(char *buf, size_t cap, uint32_t us, int one)
{
	const char *eq = one ? "=" : "";

	if (us < 1000)
		snprintf(buf, cap, "%s%" PRIu32 "us", eq, us);
	else if (us < 10000)
		snprintf(buf, cap, "%s%.2fms", eq, us / 1e3);
	else if (us < 1000000)
		snprintf(buf, cap, "%s%.1fms", eq, us / 1e3);
	else
		snprintf(buf, cap, "%s%.2fs", eq, us / 1e6);
}

struct cellv {
	char s[64];
	attr_t a;                 /* added to the row's */
};

static void num(struct cellv *c, uint64_t n, attr_t nonzero)
{
	snprintf(c->s, sizeof c->s, "%" PRIu64, n);
	c->a = n ? nonzero : A_NORMAL;
}

/* The text and colour of each column of flow f. */
static void row_cells(struct tui *v, const struct flow *f, uint64_t now, struct cellv c[C__N])
{
	const struct engine *e = v->e;
	const struct roce_seq_anom *xa = flow_anom(f);
	int iw = f->kind == FK_IWARP, icrc = iw ? f->u.iw.crc_bad > 0 : f->u.seq.icrc_bad > 0;
	double rt[3], avg = flow_avg_bps(e, f);

	memset(c, 0, C__N * sizeof *c);
	flow_rates(e, f, now, rt);
	host_str(e, f->src, c[C_SRC].s, sizeof c[C_SRC].s);
	host_str(e, f->dst, c[C_DST].s, sizeof c[C_DST].s);
	qpn_str(f, c[C_QPN].s, sizeof c[C_QPN].s);
	snprintf(c[C_KIND].s, sizeof c[C_KIND].s, "%s", flow_kind_name(f->kind));
	c[C_KIND].a = icrc ? pair_attr(v, P_ICRC) : A_NORMAL;
	flow_ops(f, c[C_OPS].s);
	rate_str(rt[0], c[C_RATE_S].s, sizeof c[C_RATE_S].s);
	if (avg > 0)
		rate_str(avg, c[C_AVG].s, sizeof c[C_AVG].s);
	else
		snprintf(c[C_AVG].s, sizeof c[C_AVG].s, "-");
	num(&c[C_PKTS], f->packets, A_NORMAL);
	num(&c[C_RETX], flow_retx(f), pair_attr(v, P_WARN));
	num(&c[C_OOS], xa->out_of_sequence, pair_attr(v, P_WARN));
	num(&c[C_NAK], flow_naks(f), pair_attr(v, P_BAD));
	num(&c[C_RNR], xa->rnr_nak, pair_attr(v, P_BAD));
	num(&c[C_CNP], iw ? 0 : f->u.seq.cnp, pair_attr(v, P_INFO));
	num(&c[C_ECN], iw ? 0 : f->u.seq.ecn_ce, pair_attr(v, P_INFO));
	if (flow_rtt50(v->e, f) || (!iw && f->u.seq.rtt.n))
		rtt_cell(c[C_RTT].s, sizeof c[C_RTT].s, flow_rtt50(v->e, f), !iw && f->u.seq.rtt.n == 1);
	else
		snprintf(c[C_RTT].s, sizeof c[C_RTT].s, "-");
}

static void flow_row(struct tui *v, const struct layout *L, int y, uint32_t ri, uint64_t now)
{
	const struct flow *f = &v->e->flows[v->rows[ri].i];
	attr_t base = ri == v->cur ? A_REVERSE : A_NORMAL;
	struct cellv c[C__N];
	int x = 0;

	if (ri == v->cur) {
		attrset(A_REVERSE);
		mvhline(y, 0, ' ', COLS);
		attrset(A_NORMAL);
	}
	row_cells(v, f, now, c);
	for (int k = 0; k < C__N; k++)
		if (L->show[k])
			cell(y, &x, col_width(L, k), cols[k].right, base | c[k].a, c[k].s);
}

void draw_table(struct tui *v, int y0, uint64_t now)
{
	struct layout L;
	int rows_h = LINES - y0 - 2;

	layout(&L);
	head_row(v, &L, y0, now);
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
	for (int r = 0; r < rows_h && v->top + (uint32_t)r < v->nrows; r++)
		flow_row(v, &L, y0 + 1 + r, v->top + (uint32_t)r, now);
}

void open_detail_of(struct tui *v, uint32_t i)
{
	const struct flow *f = &v->e->flows[i];

	v->det_idx1 = i + 1;
	v->det_src = f->src;
	v->det_dst = f->dst;
	v->det_qpn = f->qpn;
	v->detail_off = 0;
	v->mode = V_DETAIL;
	v->det_back = V_TABLE;
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
			open_detail_of(v, v->rows[v->cur].i);
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
	.hint = "h help Enter detail v diagnosis D device / filter <>s sort r rev p pause q quit",
	.draw = draw_table,
	.key = table_key,
};
