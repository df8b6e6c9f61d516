/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rocegen — RoCE / iWARP / DCB traffic generator.
 *
 *   rocegen frames KIND …   one kind of frame, every field from options
 *   rocegen flood [KIND] …  stateless streams: templates patched per frame
 *   rocegen recv -i IFACE … the receive path on its own
 *   rocegen conform …       the conformance catalogue (conform.c)
 *   rocegen stress …        many QPs, fault mixes, integrity (stress/)
 *   rocegen search …        anomaly search by simulated annealing (search/)
 *   rocegen fingerprint …   congestion-control fingerprint, Lumina-style (fingerprint/)
 *   rocegen isolation …     performance isolation, Husky's classes (isolation/)
 *   rocegen client / server  RC conversations with real peers (client.c, server.c)
 *   rocegen convert -r IN -w OUT  a capture re-encapsulated (convert.c, wrap.c)
 *
 * main.c only picks the command; each lives in its own file.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "conform.h"
#include "stress.h"

int gen_search_main(int argc, char **argv);   /* search/search.c */
int gen_fingerprint_main(int argc, char **argv);   /* fingerprint/fingerprint.c */
int gen_isolation_main(int argc, char **argv);   /* isolation/isolation.c */

#define ROCEGEN_VERSION "0.1.0"

static int run(int argc, char **argv);

/* No silent loss: a report or listing that did not reach stdout is an error. */
int main(int argc, char **argv)
{
	int rc = run(argc, argv);

	errno = 0;
	if (((fflush(stdout) != 0) | ferror(stdout)) && !rc) {
		/* (a command that failed has said why already) */
		fprintf(stderr, "rocegen: writing output: %s\n", strerror(errno ? errno : EIO));
		rc = 1;
	}
	return rc;
}

static int run(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	signal(SIGXFSZ, SIG_IGN);      /* a file size limit: write() fails with EFBIG, reported */

	if (!cmd) {
		fprintf(stderr, "rocegen: give a command: frames, flood, recv, kinds, client, server, conform, stress, search or convert (see rocegen --help)\n");
		return 2;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		gen_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("rocegen %s\n", ROCEGEN_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "frames"))
		return gen_frames_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "flood"))
		return gen_flood_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "recv"))
		return gen_recv_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "kinds")) {
		if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
			printf("usage: rocegen kinds\n  lists every KIND that rocegen frames and flood build"
			       " (no options)\n");
			return 0;
		}
		if (argc > 2) {
			fprintf(stderr, "rocegen kinds: %s '%s' (see rocegen kinds --help)\n",
				argv[2][0] == '-' ? "unknown option" : "unexpected argument", argv[2]);
			return 2;
		}
		gen_kinds_list(stdout);
		return 0;
	}
	if (!strcmp(cmd, "client"))
		return gen_client_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "server"))
		return gen_server_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "convert"))
		return gen_convert_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "conform"))
		return gen_conform_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "stress"))
		return gen_stress_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "search"))
		return gen_search_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "fingerprint"))
		return gen_fingerprint_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "isolation"))
		return gen_isolation_main(argc - 1, argv + 1);
	fprintf(stderr, "rocegen: unknown command '%s' (see rocegen --help)\n", cmd);
	return 2;
}
