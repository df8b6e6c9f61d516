/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * webcfg.h — `--web-config FILE`: the subset of Prometheus exporter-toolkit's
 * web configuration (https://github.com/prometheus/exporter-toolkit,
 * docs/web-configuration.md) that rocetop serves /metrics with:
 *
 *   tls_server_config:
 *     cert_file: server.crt          # PEM; both required when the block is given
 *     key_file: server.key
 *     client_ca_file: ca.crt         # optional
 *     client_auth_type: NoClientCert # or RequestClientCert, RequireAnyClientCert,
 *                                    # VerifyClientCertIfGiven, RequireAndVerifyClientCert
 *     min_version: TLS12             # TLS10 TLS11 TLS12 (default) TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...              # bcrypt hashes, as htpasswd -nbB makes
 *
 * A strict parser: block mappings indented by spaces, `# comments`, values
 * plain or in '…' or "…".  Any other key, a tab, a flow mapping, a list:
 * an error naming FILE:LINE.  Relative file names are taken from the
 * directory of FILE, as exporter-toolkit does.
 */
#ifndef ROCETOP_WEBCFG_H
#define ROCETOP_WEBCFG_H

#include <stddef.h>

enum webcfg_client_auth { WEB_NO_CLIENT_CERT, WEB_REQUEST_CLIENT_CERT, WEB_REQUIRE_ANY_CLIENT_CERT,
			  WEB_VERIFY_CLIENT_CERT_IF_GIVEN, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT };

struct webcfg_user {
	char *name, *hash;
};

struct webcfg {
	int tls;                        /* a tls_server_config block was given */
	char *cert_file, *key_file, *client_ca_file;
	enum webcfg_client_auth client_auth;
	int min_version;                /* 10, 11, 12, 13 */
	struct webcfg_user *users;
	size_t nusers;
	int auth;                       /* a basic_auth_users block was given */
};

/* NULL with err[] = "FILE:LINE: what is wrong" (or "FILE: …"). */
struct webcfg *webcfg_load(const char *file, char *err, size_t errcap);
void webcfg_free(struct webcfg *w);

#endif
