/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h — rocetop's batch views of the flow engine: periodic snapshots
 * (text like `top -b`, or one JSON object per line) and the summary report
 * printed when a replay ends (text, or a last JSON line holding "flows").
 */
#ifndef ROCETOP_REPORT_H
#define ROCETOP_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "flow.h"

/* Capture statistics of a live source, shown, never hidden: per interface
 * and summed (see source_stats()). */
#define REPORT_MAX_IFACES 16
struct report_drop_counts {
	const char *name;            /* the interface; NULL in the sum */
	uint64_t received, dropped, freezes, if_dropped, ring_frames;
	int nic_valid;               /* the NIC has a counter of --nic-drop-counters */
	uint64_t nic_dropped;        /* the NIC's own discards (nicdrop.h) */
	const char *nic_counters;    /* which, comma-separated; NULL in the sum */
};
struct report_drops {
	int valid;
	struct report_drop_counts sum;
	unsigned n;
	struct report_drop_counts iface[REPORT_MAX_IFACES];
};

struct diag_input;

struct report_ctx {
	const char *source;          /* file or interface name */
	int live;
	struct report_drops drops;
	unsigned top;                /* flows shown per snapshot (0: 20) */
	unsigned summary_top;        /* flows in the text summary table (0: 50) */
	/* The device source (--device): text after each snapshot; JSON as the
	 * value of each snapshot's "devices".  NULL: none. */
	void (*devices_text)(FILE *f, const void *ctx);
	void (*devices_json)(FILE *f, const void *ctx);
	/* the devices' discards for the diagnosis (nicdrop_devices(): nic_drop) */
	void (*devices_diag)(const void *ctx, struct diag_input *in);
	const void *devices;
	unsigned json_top;           /* flows in the JSON summary's list (0: all); totals stay whole */
	/* --threads N > 1: frames each thread analysed (JSON summary "threads") */
	unsigned nthreads;
	const uint64_t *thread_frames;
};

/* Snapshot number n at time now_ns. */
void report_snapshot_text(FILE *f, const struct engine *e, const struct report_ctx *c, unsigned n,
			  uint64_t now_ns);
void report_snapshot_json(FILE *f, const struct engine *e, const struct report_ctx *c, unsigned n,
			  uint64_t now_ns);
/* The closing report: the totals lines, flows, connections, anomalies,
 * ports, verdicts. */
void report_summary_text(FILE *f, const struct engine *e, const struct report_ctx *c);
/* One JSON line: {"type":"summary", …, "flows":[…]}. */
void report_summary_json(FILE *f, const struct engine *e, const struct report_ctx *c);

#endif
