/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * args.h — rocetop's command line: every option read into one struct args,
 * then checked as a whole.  main.c runs what it describes.
 */
#ifndef ROCETOP_ARGS_H
#define ROCETOP_ARGS_H

#include <stdio.h>
#include "devmon.h"
#include "flow.h"
#include "roce.h"
#include "source.h"

#define ROCETOP_VERSION "0.1.0"

struct webtls;

struct args {
	const char *file, *iface, *wfile, *user, *prom_addr;
	const char *dopt[8];          /* -d values: decided once every option is read */
	int ndopt;
	struct source_cfg scfg;
	struct roce_cfg cfg;
	struct engine_cfg ecfg;
	struct devmon_cfg dcfg;
	unsigned prom_max, top;
	unsigned nthreads;            /* --threads; 0: not given */
	int packets, json, batch, have_delay, linger, mirror_time;
	int device_record;            /* --device-record DIR given */
	long long count, iterations;  /* -1: not given */
	double delay;                 /* -d SECONDS */
	char *filter;                 /* the BPF expression after the options, or NULL */
	int tui;                      /* the terminal view: a terminal, none of -b --json --packets */
	struct webtls *web;           /* --web-config, read; prom_web() takes it */
};

/* Reads the command line into a.  Returns -1 when the program goes on,
 * else the exit status (0 after --help or --version, 2 on a usage error,
 * 1 when out of memory), having said why on stderr. */
int args_parse(struct args *a, int argc, char **argv);

/* After args_parse() and the device source: what follows from the rest
 * (the filter, the capture source's settings); -1 or an
 * exit status as args_parse(). */
int args_finish(struct args *a, int argc, char **argv);

void args_usage(FILE *f);

#endif
