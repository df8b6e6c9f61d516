/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c — string escaping and libroce field values as JSON. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "json.h"

static void json_chars(FILE *f, const unsigned char *c, const unsigned char *end)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', f);
	for (; c < end; c++) {
		switch (*c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*c < 0x20 || *c >= 0x7f)
				fprintf(f, "\\u00%c%c", hex[*c >> 4], hex[*c & 15]);
			else
				putc(*c, f);
		}
	}
	putc('"', f);
}

void json_string(FILE *f, const char *s)
{
	json_chars(f, (const unsigned char *)s, (const unsigned char *)s + strlen(s));
}

void json_field_value(FILE *f, const struct roce_field *fld)
{
	char a[INET6_ADDRSTRLEN];

	switch (fld->type) {
	case ROCE_F_UINT:
		fprintf(f, "%" PRIu64, fld->u);
		break;
	case ROCE_F_TEXT:
		json_chars(f, fld->b, fld->b + fld->len);
		break;
	case ROCE_F_INT:
		fprintf(f, "%" PRId64, (int64_t)fld->u);
		break;
	case ROCE_F_BOOL:
		fputs(fld->u ? "true" : "false", f);
		break;
	case ROCE_F_STR:
		json_string(f, fld->s ? fld->s : "");
		break;
	case ROCE_F_IPV4:
	case ROCE_F_IPV6:
		if (!inet_ntop(fld->type == ROCE_F_IPV4 ? AF_INET : AF_INET6, fld->b, a, sizeof a))
			a[0] = 0;
		json_string(f, a);
		break;
	case ROCE_F_MAC:
		fprintf(f, "\"%02x:%02x:%02x:%02x:%02x:%02x\"", fld->b[0], fld->b[1], fld->b[2],
			fld->b[3], fld->b[4], fld->b[5]);
		break;
	case ROCE_F_BYTES:
		putc('"', f);
		for (uint32_t i = 0; i < fld->len; i++)
			fprintf(f, "%02x", fld->b[i]);
		putc('"', f);
		break;
	}
}
