/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nlrecord — records RDMA netlink replies as test fixtures.
 *
 *   nlrecord DIR
 *
 * Dumps the devices (RDMA_NLDEV_CMD_GET), then for each device its ports,
 * its QP, CQ, MR and CM ID tables and its bound QP counters (STAT_GET), and
 * writes each reply, byte for byte as the kernel sent it, to DIR/NAME.bin (dev.bin, port-1.bin, qp-1.bin, …:
 * the names ROCETOP_NETLINK_REPLAY reads).  Prints one line per file.
 * Built on the host and run in a lab guest (which has no nlmon).
 */
#include <errno.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nlparse.h"
#include "nlsock.h"

static int save(const char *dir, uint8_t cmd, uint32_t dev, const uint8_t *b, size_t len)
{
	char name[32], path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.bin", dir, nls_file_name(cmd, dev, name, sizeof name));
	if (!(f = fopen(path, "wb")) || fwrite(b, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "nlrecord: %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf("%s %zu bytes\n", path, len);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint8_t per_dev[] = { RDMA_NLDEV_CMD_PORT_GET, RDMA_NLDEV_CMD_RES_QP_GET,
					   RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_CMD_RES_MR_GET,
					   RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_NLDEV_CMD_STAT_GET };
	char err[256];
	struct nlp_vec devs;
	const uint8_t *b;
	size_t len;
	struct nls *s;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: nlrecord DIR\n");
		return 2;
	}
	if (!(s = nls_open(err, sizeof err))) {
		fprintf(stderr, "nlrecord: %s\n", err);
		return 1;
	}
	nlp_vec_init(&devs, NLP_DEV);
	if ((rc = nls_dump(s, RDMA_NLDEV_CMD_GET, NLS_NO_DEV, &b, &len)) < 0 || save(argv[1], RDMA_NLDEV_CMD_GET, 0, b, len) ||
	    nlp_parse(NLP_DEV, b, len, &devs) < 0) {
		fprintf(stderr, "nlrecord: device dump: %s\n", rc < 0 ? strerror(-rc) : "failed");
		return 1;
	}
	for (size_t i = 0; i < devs.n; i++) {
		uint32_t idx = NLP_AT(&devs, struct nlp_dev, i)->index;

		for (size_t c = 0; c < sizeof per_dev; c++) {
			if ((rc = nls_dump(s, per_dev[c], idx, &b, &len)) < 0)
				fprintf(stderr, "nlrecord: dump %u of device %u: %s\n", per_dev[c], idx, strerror(-rc));
			else if (save(argv[1], per_dev[c], idx, b, len))
				return 1;
		}
	}
	nlp_vec_free(&devs);
	nls_close(s);
	return 0;
}
