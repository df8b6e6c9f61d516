/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag_out.h — the diagnosis (diag.h) in rocetop's batch reports.
 */
#ifndef ROCETOP_DIAG_OUT_H
#define ROCETOP_DIAG_OUT_H

#include <stdio.h>
#include "diag.h"
#include "report.h"

/* What the report context adds to the engine: the time, capture drops. */
void diag_input_of(const struct engine *e, const struct report_ctx *c, struct diag_input *in);
/* ,"diagnosis":[{"verdict", "severity", "subject", "first_frame",
 * "last_frame", "evidence": {…}, "text", "active"}, …] */
void diag_json(FILE *o, const struct engine *e, const struct report_ctx *c);
void diag_verdict_json(FILE *o, const struct diag_verdict *v);
/* The "Diagnosis" section of the text summary (nothing when no verdict). */
void diag_text(FILE *o, const struct engine *e, const struct report_ctx *c);

#endif
