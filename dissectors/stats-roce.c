/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats-roce.c — `tshark -z roce,qp[,FILTER]`: one row per QP direction
 * (source, destination, destination QP), like `-z conv,udp`, with the
 * counters of roce.analysis.* summed over the row's frames; NAK, RNR and the
 * RTT are those of the row's requests (from the reverse direction's ACK
 * frames), as in rocetop.  Printed when the capture has been read.
 */
#include <stdio.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <epan/to_str.h>

#include "packet-roce.h"

typedef struct {
	guint32 flow, conn;
	address src, dst;
	guint32 dqpn, srcqp;
	gboolean srcqp_known;
	guint64 frames, bytes;
	guint32 retrans, ooo, dup, gaps, missing, nak, rnr, cnp, ecn_ce, icrc_bad;
	guint32 n_rtt;
	double rtt_us;                  /* sum */
} qp_row;

typedef struct {
	char *filter;
	GHashTable *rows;               /* flow id -> qp_row */
} qp_stats;

static void qp_reset(void *arg)
{
	qp_stats *st = (qp_stats *)arg;

	g_hash_table_remove_all(st->rows);
}

static void qp_row_free(gpointer p)
{
	qp_row *r = (qp_row *)p;

	free_address(&r->src);
	free_address(&r->dst);
	g_free(r);
}

static qp_row *qp_row_get(qp_stats *st, guint32 flow, const address *src, const address *dst,
			  guint32 dqpn)
{
	qp_row *r = (qp_row *)g_hash_table_lookup(st->rows, GUINT_TO_POINTER(flow));

	if (!r) {
		r = g_new0(qp_row, 1);
		r->flow = flow;
		copy_address(&r->src, src);
		copy_address(&r->dst, dst);
		r->dqpn = dqpn;
		g_hash_table_insert(st->rows, GUINT_TO_POINTER(flow), r);
	}
	return r;
}

static tap_packet_status qp_packet(void *arg, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
				   const void *data, tap_flags_t flags _U_)
{
	qp_stats *st = (qp_stats *)arg;
	const roce_tap_info *ti = (const roce_tap_info *)data;
	qp_row *r = qp_row_get(st, ti->flow, &ti->src, &ti->dst, ti->dqpn);
	qp_row *req = r;

	/* the pairing may arrive after a flow's first frames: keep the latest */
	r->conn = ti->conn;
	if (ti->srcqp_known) {
		r->srcqp = ti->srcqp;
		r->srcqp_known = TRUE;
	}
	/* A NAK, an RNR NAK and an RTT sample answer the other direction's
	 * requests: count them on the request flow (roce.analysis.psn_space), as
	 * rocetop does, not on the flow of the ACK frame that carries them. */
	if (ti->space && ti->space != ti->flow) {
		req = (qp_row *)g_hash_table_lookup(st->rows, GUINT_TO_POINTER(ti->space));
		if (!req)       /* no request of it captured: the row of the frame */
			req = r;
	}
	r->frames++;
	r->bytes += ti->frame_len;
	r->retrans += !!(ti->flags & ROCE_A_RETRANS);
	r->ooo += !!(ti->flags & ROCE_A_OOO);
	r->dup += !!(ti->flags & ROCE_A_DUP);
	if (ti->flags & ROCE_A_GAP) {
		r->gaps++;
		r->missing += ti->gap_missing;
	}
	req->nak += !!(ti->flags & ROCE_A_NAK);
	req->rnr += !!(ti->flags & ROCE_A_RNR);
	r->cnp += !!(ti->flags & ROCE_A_CNP);
	r->ecn_ce += !!(ti->flags & ROCE_A_ECN_CE);
	r->icrc_bad += !!(ti->flags & ROCE_A_ICRC_BAD);
	if (ti->flags & ROCE_A_RTT) {
		req->n_rtt++;
		req->rtt_us += ti->rtt_us;
	}
	return TAP_PACKET_REDRAW;
}

static gint row_cmp(gconstpointer a, gconstpointer b)
{
	const qp_row *x = *(const qp_row *const *)a, *y = *(const qp_row *const *)b;

	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

#define RULE "================================================================================" \
	     "================================================================================"

static void qp_draw(void *arg)
{
	qp_stats *st = (qp_stats *)arg;
	GPtrArray *v = g_ptr_array_new();
	GHashTableIter it;
	gpointer val;
	int aw = 11;
	guint i;

	g_hash_table_iter_init(&it, st->rows);
	while (g_hash_table_iter_next(&it, NULL, &val)) {
		qp_row *r = (qp_row *)val;
		char *s = address_to_str(NULL, &r->src), *d = address_to_str(NULL, &r->dst);

		aw = MAX(aw, (int)MAX(strlen(s), strlen(d)));
		wmem_free(NULL, s);
		wmem_free(NULL, d);
		g_ptr_array_add(v, r);
	}
	g_ptr_array_sort(v, row_cmp);

	printf("%s\n", RULE);
	printf("RoCE QP flows (one row per direction: source, destination, destination QP)\n");
	printf("Filter:%s\n", st->filter ? st->filter : "<No Filter>");
	printf("%5s %5s  %-*s   %-*s  %8s  %8s  %8s  %10s  %7s  %5s  %5s  %5s  %7s  %5s  %5s  %5s  %6s  %8s  %11s\n",
	       "Flow", "Conn", aw, "Source", aw, "Destination", "DestQP", "SrcQP", "Frames", "Bytes",
	       "Retrans", "OOO", "Dup", "Gaps", "Missing", "NAK", "RNR", "CNP", "ECN-CE", "BadICRC",
	       "RTT avg us");
	for (i = 0; i < v->len; i++) {
		qp_row *r = (qp_row *)g_ptr_array_index(v, i);
		char *s = address_to_str(NULL, &r->src), *d = address_to_str(NULL, &r->dst);
		char srcqp[16], rtt[32];

		if (r->srcqp_known)
			snprintf(srcqp, sizeof(srcqp), "0x%06x", r->srcqp);
		else
			snprintf(srcqp, sizeof(srcqp), "-");
		if (r->n_rtt)
			snprintf(rtt, sizeof(rtt), "%.1f", r->rtt_us / r->n_rtt);
		else
			snprintf(rtt, sizeof(rtt), "-");
		printf("%5u %5u  %-*s -> %-*s  0x%06x  %8s  %8" G_GUINT64_FORMAT "  %10" G_GUINT64_FORMAT
		       "  %7u  %5u  %5u  %5u  %7u  %5u  %5u  %5u  %6u  %8u  %11s\n",
		       r->flow, r->conn, aw, s, aw, d, r->dqpn, srcqp, r->frames, r->bytes,
		       r->retrans, r->ooo, r->dup, r->gaps,
		       /* rocetop's missing_psns: PSNs skipped at gaps, less those that came
			* later (out of order) */
		       r->missing > r->ooo ? r->missing - r->ooo : 0, r->nak, r->rnr, r->cnp,
		       r->ecn_ce, r->icrc_bad, rtt);
		wmem_free(NULL, s);
		wmem_free(NULL, d);
	}
	printf("%s\n", RULE);
	g_ptr_array_free(v, TRUE);
}

static void qp_finish(void *arg)
{
	qp_stats *st = (qp_stats *)arg;

	g_hash_table_destroy(st->rows);
	g_free(st->filter);
	g_free(st);
}

static void qp_init(const char *opt_arg, void *userdata _U_)
{
	qp_stats *st = g_new0(qp_stats, 1);
	const char *prefix = "roce,qp,";
	GString *err;

	if (strncmp(opt_arg, prefix, strlen(prefix)) == 0 && opt_arg[strlen(prefix)])
		st->filter = g_strdup(opt_arg + strlen(prefix));
	st->rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, qp_row_free);
	err = register_tap_listener("roce", st, st->filter, 0, qp_reset, qp_packet, qp_draw,
				    qp_finish);
	if (err) {
		fprintf(stderr, "tshark: -z roce,qp: %s\n", err->str);
		g_string_free(err, TRUE);
		qp_finish(st);
		exit(1);
	}
}

static stat_tap_ui qp_ui = {
	REGISTER_STAT_GROUP_GENERIC,
	"RoCE QP flows",
	"roce,qp",
	qp_init,
	0,
	NULL,
};

void roce_register_stats(void)
{
	register_stat_tap_ui(&qp_ui, NULL);
}
