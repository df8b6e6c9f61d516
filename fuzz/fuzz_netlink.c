/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the device source's RDMA netlink parser
 * (analyzer/device/nlparse.c).  Input: one control byte (its value mod 6
 * picks what the buffer is parsed as: devices, ports, QPs, CQs, MRs, CM
 * IDs), then the netlink messages, copied into a buffer of exactly their
 * size so that any over-read faults.  Every entry's strings and addresses
 * are then formatted.  Seeds: fuzz/seeds/netlink_* (lab recordings).
 */
#include <stdlib.h>
#include <string.h>
#include "nlparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum nlp_kind kind;
	struct nlp_vec v;
	uint8_t *buf;
	char a[128];
	size_t sum = 0;

	if (size < 1)
		return 0;
	kind = (enum nlp_kind)(data[0] % 9);
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	nlp_vec_init(&v, kind);
	(void)nlp_status(buf, size - 1);
	(void)nlp_parse(kind, buf, size - 1, &v);
	for (size_t i = 0; i < v.n; i++) {
		switch (kind) {
		case NLP_DEV: sum += strlen(NLP_AT(&v, struct nlp_dev, i)->name); break;
		case NLP_PORT: sum += strlen(NLP_AT(&v, struct nlp_port, i)->ndev_name); break;
		case NLP_QP: {
			const struct nlp_qp *q = NLP_AT(&v, struct nlp_qp, i);

			sum += strlen(nlp_qp_type_str(q->type)) + strlen(nlp_qp_state_str(q->state)) +
			       strlen(nlp_pmig_str(q->pmig)) + strlen(q->own.kern_name);
			break;
		}
		case NLP_CMID: {
			const struct nlp_cmid *c = NLP_AT(&v, struct nlp_cmid, i);

			sum += strlen(nlp_addr_str(&c->src, a, sizeof a)) + strlen(nlp_addr_str(&c->dst, a, sizeof a)) +
			       strlen(nlp_cm_state_str(c->state)) + strlen(nlp_cm_ps_str(c->ps));
			break;
		}
		case NLP_QPCNT: {
			const struct nlp_qpcnt *c = NLP_AT(&v, struct nlp_qpcnt, i);

			for (uint32_t j = 0; j < c->nctr; j++)
				sum += strlen(c->name[j]) + (size_t)c->value[j];
			sum += c->nqps ? c->lqpn[c->nqps - 1] : 0;
			break;
		}
		case NLP_PORTSTAT:
		case NLP_OPTSTATUS: {
			const struct nlp_portstat *c = NLP_AT(&v, struct nlp_portstat, i);

			for (uint32_t j = 0; j < c->nctr; j++)
				sum += strlen(c->name[j]) + (size_t)c->value[j];
			break;
		}
		default: break;
		}
	}
	nlp_vec_free(&v);
	free(buf);
	return (int)(sum & 0);
}
