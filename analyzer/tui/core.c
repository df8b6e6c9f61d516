/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core.c — the interactive view's loop.  Read ready frames for a few
 * milliseconds (cfg->feed), take the keys, sample the flows once per step
 * of capture time (history.c) (for the sparklines, the PSN timeline and the recent
 * events of the detail view: view-side state, the engine keeps none), and
 * redraw every interval.  Then sleep in the source's poll() on the capture
 * handles, the terminal and the Prometheus sockets together.
 *
 * Time is capture time (source_now): the clock when live, the virtual clock
 * of a paced replay, the last frame of a fast one.
 *
 * The screens are in tui_views[]; the keys every non-modal screen shares
 * (quit, help, pause, clear, replay speed) are here.
 *
 * Without a capture (cfg->dev_only) there is no engine and nothing to feed:
 * the device screen alone, redrawn every interval; the keys that need flows
 * say so on the status line.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"

const struct tui_view *const tui_views[V__N] = {
	[V_TABLE] = &tui_table_view,
	[V_DETAIL] = &tui_detail_view,
	[V_HELP] = &tui_help_view,
	[V_FILTER] = &tui_filter_view,
	[V_DEVICE] = &tui_device_view,
	[V_DIAG] = &tui_diag_view,
};

/* The bottom line: the error, a fresh message, or the view's hint. */
static void status_line(struct tui *v, const char *hint)
{
	curs_set(0);
	if (v->failed)
		put(LINES - 1, 0, pair_attr(v, P_BAD), "%s", v->errmsg);
	else if (v->msg[0] && mono_ns() < v->msg_until)
		put(LINES - 1, 0, pair_attr(v, P_WARN), "%s", v->msg);
	else
		put(LINES - 1, 0, pair_attr(v, P_DIM), "%s", hint);
}

static void draw(struct tui *v)
{
	const struct tui_view *tv = tui_views[v->mode];
	uint64_t now = source_now(v->src);
	int y;

	if (tv->rows && v->e)
		build_rows(v, now);
	diag_refresh(v, now);
	erase();
	y = draw_header(v, now);
	tv->draw(v, y, now);
	if (tv->hint)
		status_line(v, v->cfg->dev_only && tv->hint_dev_only ? tv->hint_dev_only : tv->hint);
	refresh();
}

static void clear_all(struct tui *v)
{
	engine_free(v->e);
	if (engine_init(v->e, v->cfg->ecfg) != 0) {
		v->failed = 1;
		snprintf(v->errmsg, sizeof v->errmsg, "out of memory starting afresh");
		return;
	}
	history_reset(v);
	v->rs_n = 0;
	v->nrows = v->cur = v->top = 0;
	v->sel_idx1 = 0;
	v->det_idx1 = 0;
	diag_forget(v);
	v->d_cur = v->d_top = 0;
	if (v->mode == V_DETAIL)
		v->mode = V_TABLE;
	flash_msg(v, "every counter cleared");
}

#define SPEED_MAX 1024.0
#define SPEED_MIN (1.0 / 1024)

/* + doubles the replay speed, up to SPEED_MAX, then 0 (as fast as possible);
 * - halves it, not below SPEED_MIN (or the --speed given, if slower). */
static int speed_key(struct tui *v, int ch)
{
	double s;

	if (source_live(v->src))
		return 0;
	s = source_speed(v->src);
	if (ch == '-')
		s = s <= 0 ? SPEED_MAX : s / 2 >= SPEED_MIN ? s / 2 : s;
	else if (s > 0)
		s = s * 2 > SPEED_MAX ? 0 : s * 2;
	source_set_speed(v->src, s);
	if (s > 0)
		flash_msg(v, "replay speed %gx", s);
	else
		flash_msg(v, "replay as fast as possible");
	return 1;
}

/* c, D, + and - want a capture; a device-only view has none (1: said so). */
static int needs_capture(struct tui *v, int ch)
{
	const char *what;

	if (!v->cfg->dev_only)
		return 0;
	switch (ch) {
	case 'c': case 'C': what = "no flows to clear"; break;
	case 'D': what = "no flow table to go back to"; break;
	case 'v': case 'V': what = "no frames to diagnose"; break;
	case '+': case '=': case '-': what = "no replay to speed up or slow down"; break;
	default: return 0;
	}
	flash_msg(v, "device-only view (no capture): %s; -i IFACE or -r FILE adds the flows; q quits", what);
	return 1;
}

/* The keys every non-modal view shares: 1 redraw, 0 nothing to do, -1 not one of them. */
static int shared_key(struct tui *v, int ch, int *quit)
{
	if (needs_capture(v, ch))
		return 1;
	switch (ch) {
	case 'q':
	case 'Q':
		*quit = 1;
		return 0;
	case 'h':
	case '?':
	case KEY_F(1):
		v->prev_mode = v->mode;
		v->mode = V_HELP;
		v->help_off = 0;
		return 1;
	case 'p':
	case 'P':
	case ' ':
		v->paused = !v->paused;
		if (!source_live(v->src))
			source_pause(v->src, v->paused);
		return 1;
	case 'c':
	case 'C':
		clear_all(v);
		return 1;
	case 'D':
		if (!v->cfg->dev) {
			flash_msg(v, "no RDMA device to show (--device DEV, or -i a netdev of an RDMA port)");
			return 1;
		}
		v->mode = v->mode == V_DEVICE ? V_TABLE : V_DEVICE;
		return 1;
	case 'v':
	case 'V':
		diag_toggle(v);
		return 1;
	case '+':
	case '=':
	case '-':
		return speed_key(v, ch);
	default:
		return -1;
	}
}

/* 1 when the screen must be redrawn. */
static int key(struct tui *v, int ch, int *quit)
{
	const struct tui_view *tv = tui_views[v->mode];
	int r;

	if (ch == KEY_RESIZE)
		return 1;
	if (!tv->modal && (r = shared_key(v, ch, quit)) >= 0)
		return r;
	return tv->key(v, ch, quit);
}

static void on_tty(void *ctx, int fd, short rev)
{
	(void)fd;
	(void)rev;
	*(int *)ctx = 1;
}

/* Reads frames for up to FEED_SLICE_NS; 1 when any came.  Sets *dirty at the
 * end of the capture or on its failure (then *rc = 1). */
static int feed(struct tui *v, int *dirty, int *rc)
{
	uint64_t t0 = mono_ns();
	int r, got = 0;

	if (v->cfg->dev_only || v->failed || v->ended || (v->paused && !source_live(v->src)))
		return 0;
	do {
		r = v->cfg->feed(v->cfg->feed_ctx, 256);
		if (r == SOURCE_FRAME)
			got = 1;
		ticks(v, source_now(v->src));
	} while (r == SOURCE_FRAME && mono_ns() - t0 < FEED_SLICE_NS && !tui_quit_sig);
	if (r == SOURCE_EOF) {
		/* the last, partial step */
		if (v->e->t.frames)
			sample_tick(v, source_now(v->src));
		v->ended = 1;
		*dirty = 1;
	} else if (r == SOURCE_ERR) {
		v->failed = 1;
		snprintf(v->errmsg, sizeof v->errmsg, "capture failed: %s: %s (after %" PRIu64 " frames); q quits",
			 source_name(v->src), source_error(v->src), v->e->t.frames);
		*rc = 1;
		*dirty = 1;
	}
	return got;
}

/* The keys waiting; 1 when the screen must be redrawn. */
static int keys(struct tui *v, int *quit)
{
	int ch, dirty = 0;

	while ((ch = getch()) != ERR) {
		dirty |= key(v, ch, quit);
		if (*quit)
			break;
	}
	return dirty;
}

/* Sleeps until a frame, a key, a scrape or the next redraw. */
static void wait_a_little(struct tui *v, uint64_t interval, uint64_t last_draw)
{
	uint64_t since = mono_ns() - last_draw;
	int ms = since >= interval ? 0 : (int)((interval - since) / 1000000) + 1;

	if (ms > 100)
		ms = 100;
	source_wait(v->src, ms);
}

static int run(struct tui *v, uint64_t interval)
{
	uint64_t last_draw = 0, now;
	int quit = 0, tty_ready = 0, rc = 0;

	source_watch(v->src, STDIN_FILENO, POLLIN, on_tty, &tty_ready);
	while (!quit && !tui_quit_sig) {
		int dirty = 0, got = feed(v, &dirty, &rc);

		now = source_now(v->src);
		if (v->e) {   /* the flows' history: none without a capture */
			ticks(v, now);
			rate_note(v, now);
		}
		dirty |= keys(v, &quit);
		tty_ready = 0;
		if (quit || tui_quit_sig)
			break;
		if (dirty || (!(v->paused && source_live(v->src)) && mono_ns() - last_draw >= interval) || !last_draw) {
			draw(v);
			last_draw = mono_ns();
		}
		if (!got)
			wait_a_little(v, interval, last_draw);
	}
	source_unwatch(v->src, STDIN_FILENO);
	return rc;
}

int tui_run(const struct tui_cfg *cfg)
{
	struct tui v;
	uint64_t interval = (uint64_t)((cfg->interval > 0 ? cfg->interval : 1) * 1e9);
	int rc;

	memset(&v, 0, sizeof v);
	v.cfg = cfg;
	v.e = cfg->eng;
	v.src = cfg->src;
	v.sort = C_RATE_S;
	v.mode = cfg->dev_only ? V_DEVICE : V_TABLE;
	v.dl_worst = -1;
	if (!cfg->dev_only)
		history_reset(&v);
	v.tr = calloc(TRACK_MAX, sizeof *v.tr);
	if (!v.tr) {
		fprintf(stderr, "rocetop: out of memory for the view\n");
		return 1;
	}
	if (term_start(&v) != 0) {
		free(v.tr);
		return 1;
	}
	rc = run(&v, interval);
	term_stop();
	if (v.failed && rc)
		fprintf(stderr, "rocetop: %s: %s (after %" PRIu64 " frames)\n", source_name(v.src), source_error(v.src),
			v.e->t.frames);
	diag_forget(&v);
	free(v.rows);
	free(v.qrows);
	free(v.host_match);
	free(v.tr);
	return rc;
}
