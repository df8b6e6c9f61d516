/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view.h — what the files of the terminal view share: its state (struct tui),
 * the per-flow history the detail view draws, the table's columns, drawing
 * helpers, and the view interface: one struct tui_view per screen (table,
 * detail, help, filter prompt, device, diagnosis) in tui_views[], indexed
 * by tui->mode.
 *
 * core.c runs the loop and the keys every screen shares; term.c owns the
 * terminal (start, restore on any exit); history.c samples the flows once a
 * step of capture time (a second live; replay, fit to the capture); rows.c
 * orders and filters the table's rows; diag.c holds the verdicts; values.c turns a flow into the numbers shown; draw.c has the helpers.
 */
#ifndef ROCETOP_TUI_VIEW_H
#define ROCETOP_TUI_VIEW_H

#include <curses.h>
#include <signal.h>
#include <stdint.h>
#include "tui.h"
#include "../diag.h"

#define HIST 120                  /* samples of history per tracked flow */
#define TRACK_MAX 1024            /* flows with history */
#define EVENTS 24                 /* recent events per tracked flow */
#define TICK_NS 1000000000ull     /* live: one sample a second */
#define TICK_MIN_NS 1000000ull    /* replay: the first step, doubled whenever HIST samples are full */
#define RATE_WINDOW_NS 2000000000ull
#define FEED_SLICE_NS 20000000ull /* read frames this long between looks at the keyboard */

/* ---- the table's columns ------------------------------------------------------------------------ */

enum col { C_SRC, C_DST, C_QPN, C_KIND, C_OPS, C_RATE_S, C_AVG, C_PKTS, C_RETX, C_OOS, C_NAK, C_RNR,
	   C_CNP, C_ECN, C_RTT, C__N };

struct tui_col {
	const char *name;    /* header */
	const char *what;    /* for "sort:" and the help */
	int w, right, desc;  /* width (addresses: minimum), right-aligned, sorts descending first */
};
extern const struct tui_col cols[C__N];

/* ---- per-flow history --------------------------------------------------------------------------- */

enum { EV_RETX, EV_NAK, EV_RNR, EV_GAP, EV_DUP, EV_OOSR, EV_CNP, EV_ECN, EV_ICRC, EV_IMPLIED, EV_TIMEOUT,
       EV_TCP_RETX, EV_CRC, EV_TCP_GAP, EV_TERM, EV__N };

struct sample {
	float bytes;                  /* in this second */
	uint16_t retx;
	uint16_t marks;               /* 1 << EV_* seen in this second */
	uint32_t psn;                 /* highest request PSN + 1 at its end (iWARP: TCP sequence) */
};

struct event {
	uint64_t ts;
	uint32_t n;
	uint8_t what;
};

struct track {
	uint32_t idx1, src, dst, qpn; /* flow index + 1 (0 = free) and its key */
	uint8_t kind;
	uint64_t used;                /* tick of the last sample */
	uint64_t bytes;
	uint32_t c[EV__N];            /* counters at the last sample */
	uint16_t head, n;
	struct sample h[HIST];
	uint8_t ehead, en;
	struct event ev[EVENTS];
};

struct rate_sample {
	uint64_t t, frames, bytes;
};

struct row {
	uint32_t i;
	double key;
};

/* the device screen's QP table (devqp.c) */
enum qcol { Q_DEV, Q_LQPN, Q_TYPE, Q_STATE, Q_SQR, Q_RQR, Q_RQPN, Q_PID, Q_WIN, Q_WOUT, Q_RETX, Q_NAK,
	    Q_RTT, Q_COMM, Q__N };

struct devqp_row {
	uint32_t dev, qp, lqpn;       /* device index, QP index in it, its number */
	double key;
};

/* ---- the state -------------------------------------------------------------------------------- */

enum { V_TABLE, V_DETAIL, V_HELP, V_FILTER, V_DEVICE, V_DIAG, V__N };

struct tui {
	const struct tui_cfg *cfg;
	struct engine *e;
	struct source *src;
	int utf8, color;
	/* table */
	struct row *rows;
	uint32_t nrows, rows_cap;
	int sort, rev;
	uint32_t top, cur;            /* first row shown, cursor */
	uint32_t sel_idx1, sel_src, sel_dst, sel_qpn; /* the cursor's flow, to follow it */
	char filter[64];
	uint8_t *host_match;
	uint32_t host_match_cap;
	/* modes */
	int mode;                     /* V_*: the screen shown */
	int prev_mode;
	char prompt[64];
	int detail_off;
	int det_back;                 /* where Esc goes from the detail view: V_TABLE, or V_DIAG */
	uint32_t det_idx1, det_src, det_dst, det_qpn;
	int paused, ended, failed;
	char errmsg[512];
	/* history */
	struct track *tr;
	uint32_t ntr;
	uint64_t next_tick, tick;
	uint64_t tick_ns;             /* the history's time step: TICK_NS live; replay, from TICK_MIN_NS up,
					 so that HIST samples hold the whole capture */
	unsigned tick_n;              /* samples taken at this step (replay; HIST: the step doubles) */
	struct rate_sample rs[64];
	unsigned rs_head, rs_n;
	uint64_t last_rs_wall;
	int dev_off;                  /* device screen: first line shown */
	uint64_t dev_polled;          /* device screen: when the devices were last read */
	struct devqp_row *qrows;      /* device screen: the QP table's rows, sorted, filtered */
	uint32_t nq, q_cap, q_cur, q_top;
	int q_sort, q_rev, q_detail;  /* column (enum qcol), reversed, showing one QP */
	uint32_t q_sel_lqpn, q_sel_dev; /* the cursor's QP, to follow it */
	int q_sel_set, q_init;
	char q_filter[64];
	int filter_qps;               /* the filter prompt edits q_filter (from the device screen) */
	char msg[128];                /* one-shot status line */
	uint64_t msg_until;
	/* the diagnosis (diag.c): verdicts as last evaluated, most severe first */
	struct diag_list dl;
	int dl_valid;
	uint64_t dl_frames, dl_wall;  /* frames and clock of that evaluation */
	size_t dl_active;             /* verdicts raised now */
	int dl_worst;                 /* the most severe active one's severity, -1: none */
	uint32_t d_cur, d_top;        /* the diagnosis screen's cursor and first row */
	struct diag_pacing *dp;       /* CNP pacing per CNP source, of the same evaluation */
	size_t ndp;
	int d_prev_mode;              /* where v or Esc goes back to */
	int help_off;                 /* help screen: first line shown */
};

/* ---- the view interface ------------------------------------------------------------------------- */

struct tui_view {
	const char *name;
	int rows;                     /* needs the table's rows (built before the header is drawn) */
	int modal;                    /* takes every key: the shared keys (q h p c + -) do not apply */
	const char *hint;             /* the bottom line; NULL: draw() writes it */
	const char *hint_dev_only;    /* ... in a device-only view (no capture), when it differs */
	void (*draw)(struct tui *v, int y0, uint64_t now);
	/* 1 when the screen must be redrawn; sets *quit to end */
	int (*key)(struct tui *v, int ch, int *quit);
};
extern const struct tui_view *const tui_views[V__N];
extern const struct tui_view tui_table_view, tui_detail_view, tui_help_view, tui_filter_view, tui_device_view,
	tui_diag_view;

/* ---- terminal (term.c) -------------------------------------------------------------------------- */

enum { P_TITLE = 1, P_WARN, P_BAD, P_GOOD, P_INFO, P_ICRC, P_DIM };

extern volatile sig_atomic_t tui_quit_sig;
int term_start(struct tui *v);   /* 0, or -1 (said on stderr) */
void term_stop(void);

/* ---- drawing helpers (draw.c) --------------------------------------------------------------------- */

uint64_t mono_ns(void);
attr_t pair_attr(const struct tui *v, int pair);
void flash_msg(struct tui *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void put(int y, int x, attr_t a, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void sparkline(const struct tui *v, const double *val, int n, char *buf, size_t cap);
int page_rows(void);

/* ---- flow values (values.c) --------------------------------------------------------------------- */

uint32_t flow_retx(const struct flow *f);
uint32_t flow_naks(const struct flow *f);
int flow_ops(const struct flow *f, char out[5]);
uint32_t flow_rtt50(const struct engine *e, const struct flow *f);
void counters(const struct flow *f, uint32_t c[EV__N]);
const char *rate_str(double bps, char *buf, size_t cap);
void qpn_str(const struct flow *f, char *buf, size_t cap);
double flow_life_s(const struct engine *e, const struct flow *f);

/* ---- history (history.c) ------------------------------------------------------------------------ */

struct track *track_find(struct tui *v, uint32_t idx1);
struct track *track_get(struct tui *v, uint32_t idx1, uint64_t tick_ts);
void sample_tick(struct tui *v, uint64_t ts);
void history_reset(struct tui *v);
/* "250 ms", "2 s", "1 min 4 s" */
const char *step_str(uint64_t ns, char *buf, size_t cap);
void ticks(struct tui *v, uint64_t now);
void rate_note(struct tui *v, uint64_t now);
void rates_now(const struct tui *v, double *pps, double *bps);
int rate_whole(const struct tui *v, uint64_t now);
const char *col_name(const struct tui *v, int c, uint64_t now);

/* ---- rows (rows.c) and the header (header.c) ------------------------------------------------------ */

void lower(char *s);
void build_rows(struct tui *v, uint64_t now);
void remember_cursor(struct tui *v);
int draw_header(struct tui *v, uint64_t now);
void draw_table(struct tui *v, int y0, uint64_t now);

/* ---- the table (table.c) and the diagnosis (diag.c) ----------------------------------------------- */

/* Opens the detail view of flow index i (0-based). */
void open_detail_of(struct tui *v, uint32_t i);
/* Evaluates the verdicts again when the frames or the clock moved on. */
void diag_refresh(struct tui *v, uint64_t now);
/* The devices (--device) read again when the last read is older than the
 * interval, whichever screen is shown (the diagnosis reads their
 * discards: nic_drop); 1 when read. */
int device_poll_due(struct tui *v);
void diag_forget(struct tui *v);
/* The v key from another screen: opens the diagnosis; from it, goes back. */
void diag_toggle(struct tui *v);

/* ---- the device screen's QP table (devqp.c) ---------------------------------------------------- */

void devqp_build(struct tui *v);
void devqp_draw(struct tui *v, int y, int ymax);
void devqp_detail(struct tui *v, int y, int ymax);
int devqp_key(struct tui *v, int ch);
const char *devqp_sort_name(int c);

#endif
