/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui.h — rocetop's interactive view (ncursesw): a header of capture-wide
 * totals over a sortable, filterable table of flows, a detail view of one
 * connection, help.  It reads struct engine (flow.h) and never sees a
 * frame: the caller's feed() reads frames from the capture source, decodes
 * them and hands them to the engine.  Without a capture (--device alone) it
 * shows the device screen only, over a source with no capture handle.
 *
 * The terminal is restored however the view ends: q, end of input after q,
 * SIGINT, SIGTERM, SIGHUP, and crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT: the terminal is reset from the handler, then the signal goes on
 * to its previous handler, so core dumps and sanitizer reports still happen).
 */
#ifndef ROCETOP_TUI_H
#define ROCETOP_TUI_H

#include "flow.h"
#include "source.h"

struct devmon;

struct tui_cfg {
	struct engine *eng;
	const struct engine_cfg *ecfg;  /* to start afresh on `c` */
	struct source *src;
	/* Reads at most max ready frames into the engine; returns the SOURCE_*
	 * code of its last source_next() (SOURCE_FRAME when max were read). */
	int (*feed)(void *ctx, unsigned max);
	void *feed_ctx;
	const char *prom_addr;          /* shown in the header, or NULL */
	double interval;                /* seconds between screen updates (-d); 0: 1 */
	const char *version;
	struct devmon *dev;             /* --device: the device screen (key D), or NULL */
	/* --device without -i or -r: no capture, so eng, ecfg and feed are NULL
	 * and src only watches the terminal and the Prometheus sockets
	 * (source_open_watcher); the view opens on the device screen and stays there */
	int dev_only;
};

/* Runs until q or a signal.  0, or 1 when the capture failed (the error is
 * printed on stderr once the terminal is restored). */
int tui_run(const struct tui_cfg *cfg);
/* Why the terminal (TERM, terminfo) cannot hold the terminal view, or NULL
 * when it can: main.c then falls back to -b and says so. */
const char *tui_unusable(void);

#endif
