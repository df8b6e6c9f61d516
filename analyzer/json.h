/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h — a small JSON writer for one-object-per-line output. */
#ifndef ROCETOP_JSON_H
#define ROCETOP_JSON_H

#include <stdio.h>
#include "roce.h"

void json_string(FILE *f, const char *s);
/* Writes the value of a libroce field (number, bool, string, address, hex). */
void json_field_value(FILE *f, const struct roce_field *fld);

#endif
