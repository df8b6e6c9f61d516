/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prom.h — `--prometheus ADDR:PORT`: the flow engine's counters served as
 * GET /metrics in the Prometheus text exposition format (version 0.0.4),
 * so that an existing Prometheus scrapes a fleet of rocetops.
 *
 * A small non-blocking HTTP/1.0 server: the listening socket and its
 * clients are descriptors watched by the capture source's poll()
 * (source_watch), so it is served from the capture loop, without threads.
 * It binds to the address given and to nothing else.
 *
 * Per-flow series are bounded: the max_flows largest flows by packets are
 * exported (labels src, dst, destqp, kind; iWARP flows carry sport and dport
 * instead of a QPN), and rocetop_prometheus_flows_omitted says how many were
 * left out.  Capture-wide totals count every flow, evicted ones included.
 *
 * The diagnosis (diag.h) is evaluated at each scrape: at most 100
 * rocetop_diagnosis_active{verdict,severity,subject} series (1 active, 0
 * past), and rocetop_diagnosis_raised_total{verdict,severity}, counted from
 * scrape to scrape by the server (a verdict when first found, and again when
 * it turns active after being past).  The CNP pacing of every host that
 * sends CNPs (diag.h diag_pacing()): rocetop_cnp_pacing_info{source,pacing},
 * rocetop_cnp_pacing_least_interval_seconds{source,between} and
 * rocetop_cnp_pacing_cnps_total{source}, at most 100 sources.
 */
#ifndef ROCETOP_PROM_H
#define ROCETOP_PROM_H

#include <stddef.h>
#include <stdio.h>
#include "flow.h"
#include "source.h"

#define PROM_DEFAULT_MAX_FLOWS 1000

struct prom;

/* "127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464", "host:9464".  NULL with err[] set. */
struct prom *prom_open(const char *addr_port, unsigned max_flows, char *err, size_t errcap);
/* Only the syntax of addr_port (a usage error, exit 2): 0, or -1 with err[]. */
int prom_check_spec(const char *addr_port, char *err, size_t errcap);
/* Starts serving from src's poll loop; e is read at each scrape (NULL: only
 * the prom_extra() series). */
int prom_attach(struct prom *p, struct source *src, const struct engine *e);
void prom_close(struct prom *p);
/* "127.0.0.1:9464" as bound (the port filled in when 0 was asked for). */
const char *prom_address(const struct prom *p);
/* fn(f, ctx) appends more series to every scrape (the device source's). */
void prom_extra(struct prom *p, void (*fn)(FILE *f, const void *ctx), const void *ctx);
/* fn(ctx, in) adds the device view's discards to the diagnosis of every
 * scrape (nic_drop: nicdrop_devices()). */
struct diag_input;
void prom_diag_devices(struct prom *p, void (*fn)(const void *ctx, struct diag_input *in), const void *ctx);
/* rocetop --threads: each scrape reads view(ctx) (NULL: none), then calls
 * release(ctx); the capture counters of capture's interfaces come from
 * stats(ctx, i, st).  pe must outlive p. */
struct prom_engines {
	const struct engine *(*view)(void *ctx);
	void (*release)(void *ctx);
	void (*stats)(void *ctx, unsigned i, struct source_stats *st);
	struct source *capture;
	void *ctx;
};
void prom_engines(struct prom *p, const struct prom_engines *pe);
/* --web-config: TLS and basic authentication (webtls.h) on every connection
 * accepted from now on; p owns w (prom_close frees it).  NULL: plain HTTP. */
struct webtls;
void prom_web(struct prom *p, struct webtls *w);
/* Scrapes answered so far. */
unsigned long prom_scrapes(const struct prom *p);

/* The exposition text (what GET /metrics answers). */
void prom_write(FILE *f, const struct engine *e, struct source *src, unsigned max_flows);

#endif
