/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * detail.h — the detail view's lines: built in full, then scrolled.
 */
#ifndef ROCETOP_TUI_DETAIL_H
#define ROCETOP_TUI_DETAIL_H

#include "view.h"
#include "dlines.h"

void counters_rows(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p, uint64_t now);
void psn_state(struct tui *v, struct dlines *L, const char *dir, const struct flow *f);
/* Columns of g samples each so that the history fits width columns. */
int history_group(const struct tui *v, uint32_t ids[2], int width);
void timeline(struct tui *v, struct dlines *L, const char *dir, const struct flow *f, uint32_t idx1, int g);
/* The diagnosis's verdicts about the connection of f and p (diag.c), one line each. */
void diag_of_conn(struct tui *v, struct dlines *L, const struct flow *f, const struct flow *p);
void recent_events(struct tui *v, struct dlines *L, uint32_t idx1[2], const char *dirs[2]);

#endif
