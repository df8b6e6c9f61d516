/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * webcfg.c — reads `--web-config FILE` (webcfg.h): a line at a time, each
 * line a key, its value, its indentation; two levels, nothing more.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "webcfg.h"

enum section { S_NONE, S_TLS, S_USERS };

struct rd {
	const char *file;
	unsigned line;
	char *err;
	size_t errcap;
	char *dir;                      /* FILE's directory with a trailing '/', or "" */
};

static int bad(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, r->errcap, "%s:%u: ", r->file, r->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->errcap)
		vsnprintf(r->err + n, r->errcap - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The value after "key:" at s: plain (up to " #"), '…' or "…".  In place;
 * *out points into s. */
static int value(struct rd *r, char *s, char **out)
{
	char *e;

	s += strspn(s, " ");
	if (*s == '\'' || *s == '"') {
		char q = *s++;

		if (!(e = strchr(s, q)))
			return bad(r, "unterminated %c-quoted value", q);
		if (q == '"' && memchr(s, '\\', (size_t)(e - s)))
			return bad(r, "escapes in \"…\" are not supported; use '…'");
		*e++ = 0;
		e += strspn(e, " ");
		if (*e && *e != '#')
			return bad(r, "text after the closing quote");
		*out = s;
		return 0;
	}
	if (strchr("[{&*!|>%@`", *s) && *s)
		return bad(r, "'%c': only plain or quoted scalars are supported", *s);
	if ((e = strstr(s, " #")) || (*s == '#' && (e = s)))
		*e = 0;
	e = s + strlen(s);
	while (e > s && e[-1] == ' ')
		*--e = 0;
	*out = s;
	return 0;
}

static int set_path(struct rd *r, char **dst, const char *key, const char *v)
{
	if (*dst)
		return bad(r, "%s given twice", key);
	if (!*v)
		return bad(r, "%s: a file name is needed", key);
	if (asprintf(dst, "%s%s", v[0] == '/' ? "" : r->dir, v) < 0) {
		*dst = NULL;
		return bad(r, "out of memory");
	}
	return 0;
}

static int tls_key(struct rd *r, struct webcfg *w, const char *k, const char *v)
{
	static const char *const auth[] = { "NoClientCert", "RequestClientCert", "RequireAnyClientCert",
					    "VerifyClientCertIfGiven", "RequireAndVerifyClientCert" };
	static const char *const unsupported[] = { "cert", "key", "cipher_suites", "curve_preferences",
						   "max_version", "prefer_server_cipher_suites",
						   "client_allowed_sans" };

	if (!strcmp(k, "cert_file"))
		return set_path(r, &w->cert_file, k, v);
	if (!strcmp(k, "key_file"))
		return set_path(r, &w->key_file, k, v);
	if (!strcmp(k, "client_ca_file"))
		return set_path(r, &w->client_ca_file, k, v);
	if (!strcmp(k, "client_auth_type")) {
		for (unsigned i = 0; i < sizeof auth / sizeof auth[0]; i++)
			if (!strcmp(v, auth[i])) {
				w->client_auth = (enum webcfg_client_auth)i;
				return 0;
			}
		return bad(r, "client_auth_type '%s': want NoClientCert, RequestClientCert, RequireAnyClientCert, "
			   "VerifyClientCertIfGiven or RequireAndVerifyClientCert", v);
	}
	if (!strcmp(k, "min_version")) {
		if (strlen(v) == 5 && !strncmp(v, "TLS1", 4) && v[4] >= '0' && v[4] <= '3') {
			w->min_version = 10 + (v[4] - '0');
			return 0;
		}
		return bad(r, "min_version '%s': want TLS10, TLS11, TLS12 or TLS13", v);
	}
	for (unsigned i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
		if (!strcmp(k, unsupported[i]))
			return bad(r, "tls_server_config: %s is not supported by rocetop", k);
	return bad(r, "tls_server_config: unknown key '%s'", k);
}

static int user_key(struct rd *r, struct webcfg *w, const char *k, const char *v)
{
	struct webcfg_user *u;

	for (size_t i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, k))
			return bad(r, "basic_auth_users: user '%s' given twice", k);
	if (strncmp(v, "$2a$", 4) && strncmp(v, "$2b$", 4) && strncmp(v, "$2y$", 4))
		return bad(r, "basic_auth_users: user '%s': not a bcrypt hash ($2y$…, as htpasswd -nbB makes)", k);
	if (strchr(k, ':'))
		return bad(r, "basic_auth_users: a user name cannot hold ':'");
	if (!(u = realloc(w->users, (w->nusers + 1) * sizeof *u)))
		return bad(r, "out of memory");
	w->users = u;
	u += w->nusers;
	u->name = strdup(k);
	u->hash = strdup(v);
	w->nusers++;
	if (!u->name || !u->hash)
		return bad(r, "out of memory");
	return 0;
}

static int parse(struct rd *r, struct webcfg *w, FILE *f)
{
	char *line = NULL, *k, *v = NULL, *c;
	size_t cap = 0;
	ssize_t n;
	enum section sec = S_NONE;
	size_t indent = 0, ind;
	int seen_tls = 0, seen_users = 0, rc = 0;

	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		r->line++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		ind = strspn(line, " ");
		k = line + ind;
		if (!*k || *k == '#' || (r->line == 1 && !strcmp(line, "---")))
			continue;
		if (*k == '\t' || strchr(line, '\t')) {
			rc = bad(r, "a tab; YAML indents with spaces");
			break;
		}
		if (*k == '-') {
			rc = bad(r, "lists are not part of this configuration");
			break;
		}
		/* the key: up to ": " or a final ':'; quoted user names allowed */
		if (*k == '\'' || *k == '"') {
			char q = *k++;

			if (!(c = strchr(k, q)) || c[1] != ':') {
				rc = bad(r, "bad quoted key");
				break;
			}
			*c = 0;
			c++;
		} else {
			for (c = k; *c && !(*c == ':' && (c[1] == ' ' || !c[1])); c++)
				;
			if (!*c) {
				rc = bad(r, "want 'key: value'");
				break;
			}
		}
		*c = 0;
		if ((rc = value(r, c + 1, &v)) < 0)
			break;
		if (ind == 0) {
			if (*v) {
				rc = bad(r, "%s: want a block of keys under it, not a value", k);
				break;
			}
			if (!strcmp(k, "tls_server_config")) {
				if (seen_tls++)
					rc = bad(r, "tls_server_config given twice");
				sec = S_TLS;
				w->tls = 1;
			} else if (!strcmp(k, "basic_auth_users")) {
				if (seen_users++)
					rc = bad(r, "basic_auth_users given twice");
				sec = S_USERS;
			} else if (!strcmp(k, "http_server_config") || !strcmp(k, "rate_limit")) {
				rc = bad(r, "%s is not supported by rocetop", k);
			} else {
				rc = bad(r, "unknown key '%s' (want tls_server_config or basic_auth_users)", k);
			}
			indent = 0;
			continue;
		}
		if (sec == S_NONE) {
			rc = bad(r, "indented, but under no key");
			break;
		}
		if (!indent)
			indent = ind;
		if (ind != indent) {
			rc = bad(r, "indented by %zu, the block above by %zu (nesting stops at two levels)", ind,
				 indent);
			break;
		}
		rc = sec == S_TLS ? tls_key(r, w, k, v) : user_key(r, w, k, v);
	}
	free(line);
	if (rc == 0 && ferror(f)) {
		snprintf(r->err, r->errcap, "%s: %s", r->file, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && w->tls && (!w->cert_file || !w->key_file)) {
		snprintf(r->err, r->errcap, "%s: tls_server_config needs cert_file and key_file", r->file);
		rc = -1;
	}
	w->auth = w->nusers > 0;
	if (!w->min_version)
		w->min_version = 12;
	return rc;
}

struct webcfg *webcfg_load(const char *file, char *err, size_t errcap)
{
	struct rd r = { file, 0, err, errcap, NULL };
	struct webcfg *w = calloc(1, sizeof *w);
	const char *slash = strrchr(file, '/');
	FILE *f;

	if (!w || !(r.dir = strndup(file, slash ? (size_t)(slash - file) + 1 : 0))) {
		free(w);
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	if (!(f = fopen(file, "r"))) {
		snprintf(err, errcap, "%s: %s", file, strerror(errno));
		free(r.dir);
		free(w);
		return NULL;
	}
	if (parse(&r, w, f) < 0) {
		webcfg_free(w);
		w = NULL;
	}
	fclose(f);
	free(r.dir);
	return w;
}

void webcfg_free(struct webcfg *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->cert_file);
	free(w->key_file);
	free(w->client_ca_file);
	free(w);
}
