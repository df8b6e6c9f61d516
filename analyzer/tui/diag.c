/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag.c — the diagnosis screen (key v): the verdicts of the diagnosis
 * layer (analyzer/diag.h), active and past, most severe first, with the
 * evidence of the one under the cursor; Enter opens the detail view of its
 * connection.  The header's "diagnosis N active" comes from the same
 * evaluation, made again when frames came or, live, once a second (a
 * verdict with no new evidence is cleared over time).  The detail view
 * shows the verdicts about its connection (diag_of_conn).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detail.h"
#include "nicdrop.h"

void diag_forget(struct tui *v)
{
	if (v->dl_valid)
		diag_list_free(&v->dl);
	memset(&v->dl, 0, sizeof v->dl);
	v->dl_valid = 0;
	v->dl_active = 0;
	v->dl_worst = -1;
	free(v->dp);
	v->dp = NULL;
	v->ndp = 0;
}

/* Most severe first; the active before the past; then by first frame. */
static int verdict_cmp(const void *a, const void *b)
{
	const struct diag_verdict *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (!x->active != !y->active)
		return x->active ? -1 : 1;
	if (x->first_frame != y->first_frame)
		return x->first_frame < y->first_frame ? -1 : 1;
	return x->id - y->id;
}

/* What the engine does not hold: the time, live capture drops. */
static void input_of(struct tui *v, uint64_t now, struct diag_input *in)
{
	memset(in, 0, sizeof *in);
	in->now_ns = v->e->t.last_ns;
	if (source_live(v->src)) {
		struct source_stats ss;

		if (now > in->now_ns)
			in->now_ns = now;
		source_stats_total(v->src, &ss);
		in->drops_valid = ss.valid;
		in->dropped = ss.valid ? ss.drop + (ss.ifdrop_valid ? ss.ifdrop : 0) : 0;
		in->nic_valid = ss.valid && ss.nicdrop_valid;
		in->nic_dropped = in->nic_valid ? ss.nicdrop : 0;
		in->nic_counters = in->nic_valid ? ss.nicdrop_names : NULL;
	}
	nicdrop_devices(v->cfg->dev, in);
}

void diag_refresh(struct tui *v, uint64_t now)
{
	struct diag_input in;
	uint64_t w = mono_ns();
	int polled = device_poll_due(v);   /* new discards are new evidence (nic_drop) */

	if (!v->e)
		return;
	if (v->dl_valid && v->dl_frames == v->e->t.frames && !polled &&
	    (!source_live(v->src) || w - v->dl_wall < 1000000000ull))
		return;
	diag_forget(v);
	input_of(v, now, &in);
	v->dl_frames = v->e->t.frames;
	v->dl_wall = w;
	if (diag_pacing(v->e, diag_tolerance(v->e), &v->dp, &v->ndp) != 0)
		v->ndp = 0;
	if (diag_evaluate(v->e, &in, &v->dl) != 0) {
		memset(&v->dl, 0, sizeof v->dl);
		return;
	}
	v->dl_valid = 1;
	if (v->dl.n)
		qsort(v->dl.v, v->dl.n, sizeof v->dl.v[0], verdict_cmp);
	for (size_t i = 0; i < v->dl.n; i++)
		if (v->dl.v[i].active) {
			v->dl_active++;
			if (v->dl.v[i].severity > v->dl_worst)
				v->dl_worst = v->dl.v[i].severity;
		}
}

void diag_toggle(struct tui *v)
{
	if (v->mode == V_DIAG) {
		v->mode = v->d_prev_mode == V_DIAG ? V_TABLE : v->d_prev_mode;
		return;
	}
	v->d_prev_mode = v->mode;
	v->mode = V_DIAG;
}

static attr_t sev_attr(const struct tui *v, int sev, int active)
{
	if (!active)
		return pair_attr(v, P_DIM);
	return sev == DS_ERROR ? pair_attr(v, P_BAD) : sev == DS_WARNING ? pair_attr(v, P_WARN) : A_NORMAL;
}

/* s folded at spaces into lines of at most w characters, from row y; the next row. */
static int wrapped(int y, int ymax, int x, int w, attr_t a, const char *s)
{
	while (*s && y < ymax) {
		int n = (int)strlen(s), cut = n;

		if (n > w) {
			for (cut = w; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = w;
		}
		put(y++, x, a, "%.*s", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
	return y;
}

static void selected(struct tui *v, const struct diag_verdict *d, int y, int ymax)
{
	char b[512];

	put(y++, 0, sev_attr(v, d->severity, 1) | A_BOLD, "%s  %s, %s", diag_name(d->id),
	    diag_severity_name(d->severity), d->active ? "active" : "past (no new evidence)");
	if (y < ymax)
		put(y++, 2, A_NORMAL, "subject  %s", d->subject);
	if (y < ymax)
		put(y++, 2, A_NORMAL, "frames   %" PRIu64 " to %" PRIu64 "%s", d->first_frame, d->last_frame,
		    d->subject_kind == DSUB_CONN || d->subject_kind == DSUB_FLOW ? "  (Enter: its connection)" : "");
	y = wrapped(y, ymax, 2, COLS - 4, A_NORMAL, d->text);
	if (y < ymax)
		put(y++, 2, A_BOLD, "evidence");
	for (unsigned k = 0; k < d->nev && y < ymax; k++)
		put(y++, 4, A_NORMAL, "%s", diag_ev_str(&d->ev[k], b, sizeof b));
}

/* The CNP pacing of each CNP source, at most max rows from y; the next row. */
static int draw_pacing(struct tui *v, int y, int max)
{
	char b[320];
	int shown;

	if (!v->ndp || max < 2)
		return y;
	put(y++, 0, A_BOLD, "CNP pacing  (the least intervals between a source's CNPs; rocetop(8) DIAGNOSIS)");
	shown = (int)v->ndp < max - 1 ? (int)v->ndp : max - 1;
	if (shown < (int)v->ndp)
		shown--;
	for (int i = 0; i < shown; i++)
		put(y++, 2, A_NORMAL, "%.*s", COLS - 3, diag_pacing_str(&v->dp[i], b, sizeof b));
	if (shown < (int)v->ndp)
		put(y++, 2, pair_attr(v, P_DIM), "and %zu more CNP sources (the JSON summary lists every one)",
		    v->ndp - (size_t)shown);
	return y;
}

static void draw_diag(struct tui *v, int y0, uint64_t now)
{
	const struct diag_list *l = &v->dl;
	int ymax = LINES - 1, list_h, sw, y, pace_h = v->ndp ? (v->ndp < 4 ? (int)v->ndp + 2 : 6) : 0;

	(void)now;
	put(y0, 0, A_BOLD, "Diagnosis: %zu active, %zu past  (most severe first; rocetop(8) DIAGNOSIS has the rules)",
	    v->dl_active, l->n - v->dl_active);
	if (!l->n) {
		put(y0 + 2, 2, A_NORMAL, "%s", v->dl_valid ? "no verdict: nothing the rules look for has been seen" :
		    "the diagnosis could not be made (out of memory)");
		draw_pacing(v, y0 + 4, ymax - (y0 + 4));
		return;
	}
	if (v->d_cur >= l->n)
		v->d_cur = (uint32_t)l->n - 1;
	/* the list takes what the evidence below leaves, at least 3 rows */
	list_h = ymax - (y0 + 2) - 12 - pace_h;
	if (list_h < 3)
		list_h = 3;
	if (list_h > (int)l->n)
		list_h = (int)l->n;
	if (v->d_cur < v->d_top)
		v->d_top = v->d_cur;
	if (v->d_cur >= v->d_top + (uint32_t)list_h)
		v->d_top = v->d_cur - (uint32_t)list_h + 1;
	/* the subject as wide as the longest, in what the other columns leave */
	sw = 7;
	for (size_t i = 0; i < l->n; i++)
		if ((int)strlen(l->v[i].subject) > sw)
			sw = (int)strlen(l->v[i].subject);
	if (sw > COLS - 57)
		sw = COLS - 57;
	if (sw < 12)
		sw = 12;
	attrset(A_REVERSE);
	mvhline(y0 + 1, 0, ' ', COLS);
	put(y0 + 1, 0, A_REVERSE, "%-8s %-22s %-*s %-17s %s", "SEVERITY", "VERDICT", sw, "SUBJECT", "FRAMES", "STATE");
	for (int r = 0; r < list_h && v->d_top + (uint32_t)r < l->n; r++) {
		const struct diag_verdict *d = &l->v[v->d_top + (uint32_t)r];
		attr_t a = sev_attr(v, d->severity, d->active);
		char fr[48];
		int row = y0 + 2 + r;

		snprintf(fr, sizeof fr, "%" PRIu64 "-%" PRIu64, d->first_frame, d->last_frame);
		if (v->d_top + (uint32_t)r == v->d_cur) {
			a |= A_REVERSE;
			attrset(A_REVERSE);
			mvhline(row, 0, ' ', COLS);
		}
		put(row, 0, a, "%-8s %-22s %-*.*s %-17s %s", diag_severity_name(d->severity), diag_name(d->id), sw, sw,
		    d->subject, fr, d->active ? "active" : "past");
	}
	attrset(A_NORMAL);
	y = y0 + 2 + list_h + 1;
	if (pace_h && y + pace_h < ymax)
		y = draw_pacing(v, y, pace_h - 1) + 1;
	if (y < ymax)
		selected(v, &l->v[v->d_cur], y, ymax);
}

static int names_flow(const struct tui *v, const struct diag_verdict *d, const struct flow *f)
{
	return f && (d->subject_kind == DSUB_CONN || d->subject_kind == DSUB_FLOW) && f->qpn == d->qpn &&
	       f->src < v->e->nhosts && f->dst < v->e->nhosts && !memcmp(v->e->hosts[f->src].addr, d->src, 16) &&
	       !memcmp(v->e->hosts[f->dst].addr, d->dst, 16);
}

void diag_of_conn(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p)
{
	for (size_t i = 0; i < v->dl.n; i++) {
		const struct diag_verdict *d = &v->dl.v[i];

		if (names_flow(v, d, f) || names_flow(v, d, p))
			ln(L, sev_attr(v, d->severity, d->active), "  diagnosis: %s (%s, %s, frames %" PRIu64 "-%" PRIu64
			   "): %s", diag_name(d->id), diag_severity_name(d->severity), d->active ? "active" : "past",
			   d->first_frame, d->last_frame, d->text);
	}
	/* the CNP pacing of either end that sends CNPs */
	for (size_t i = 0; f && i < v->ndp; i++) {
		char b[320];

		if ((f->src < v->e->nhosts && !memcmp(v->e->hosts[f->src].addr, v->dp[i].addr, 16)) ||
		    (f->dst < v->e->nhosts && !memcmp(v->e->hosts[f->dst].addr, v->dp[i].addr, 16)))
			ln(L, A_NORMAL, "  CNP pacing of %s", diag_pacing_str(&v->dp[i], b, sizeof b));
	}
}

/* The connection of the verdict under the cursor. */
static void jump(struct tui *v)
{
	const struct diag_verdict *d;

	if (!v->dl.n || v->d_cur >= v->dl.n)
		return;
	d = &v->dl.v[v->d_cur];
	if (d->subject_kind != DSUB_CONN && d->subject_kind != DSUB_FLOW) {
		flash_msg(v, "%s is about %s, not a connection", diag_name(d->id), d->subject);
		return;
	}
	for (uint32_t i = 0; i < v->e->nflows; i++) {
		if (names_flow(v, d, &v->e->flows[i])) {
			open_detail_of(v, i);
			v->det_back = V_DIAG;
			return;
		}
	}
	flash_msg(v, "the flow of %s is no longer in the table (evicted)", diag_name(d->id));
}

static int diag_key(struct tui *v, int ch, int *quit)
{
	uint32_t page = (uint32_t)page_rows(), n = (uint32_t)v->dl.n;

	(void)quit;
	switch (ch) {
	case 27:
	case KEY_BACKSPACE:
	case KEY_LEFT:
		diag_toggle(v);
		return 1;
	case KEY_UP: case 'k': if (v->d_cur) v->d_cur--; return 1;
	case KEY_DOWN: case 'j': if (v->d_cur + 1 < n) v->d_cur++; return 1;
	case KEY_PPAGE: v->d_cur = v->d_cur > page ? v->d_cur - page : 0; return 1;
	case KEY_NPAGE: v->d_cur = v->d_cur + page < n ? v->d_cur + page : n ? n - 1 : 0; return 1;
	case KEY_HOME: case 'g': v->d_cur = 0; return 1;
	case KEY_END: case 'G': v->d_cur = n ? n - 1 : 0; return 1;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
		jump(v);
		return 1;
	default:
		return 0;
	}
}

const struct tui_view tui_diag_view = {
	.name = "diagnosis",
	.hint = "Esc/v back  Up/Down select  Enter its connection  h help  p pause  q quit",
	.draw = draw_diag,
	.key = diag_key,
};
