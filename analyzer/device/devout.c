/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devout.c — the device source's views: batch text, the JSON "devices"
 * array, Prometheus series.  Counter names are the kernel's (sysfs file
 * names, ethtool strings).  Rates show only counters that moved in the last
 * interval unless --device-all-counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "devmon.h"
#include "pfc.h"
#include "json.h"
#include "pfcjoin.h"
#include "qpjoin.h"

static const char *port_state(const struct dm_port *p)
{
	if (p->sysfs_ok && p->sp.state[0])
		return p->sp.state;
	return p->have_nl_state ? nlp_port_state_str(p->nl_state) : "?";
}

static int show_rate(const struct devmon *m, const struct dm_rate *r)
{
	return r->valid && (m->cfg.all_counters || r->v != 0);
}

static void psn_text(FILE *f, const struct dm_rate *r)
{
	if (r->valid)
		fprintf(f, " %8.0f", r->v);
	else
		fprintf(f, " %8s", "-");
}

/* The wire's columns of a QP row (qpjoin.h), when a capture runs beside. */
static void wire_text(FILE *f, const struct devmon *m, const struct dm_dev *d, const struct dm_qp *q)
{
	struct qp_wire w;

	if (!m->wire)
		return;
	qpjoin_qp(m->wire, d, q, &w);
	if (!w.nflows_in && !w.nflows_out) {
		fprintf(f, " %8s %8s %5s %4s %5s %5s %6s", "-", "-", "-", "-", "-", "-", "-");
		return;
	}
	fprintf(f, " %8" PRIu64 " %8" PRIu64 " %5u %4u %5u %5u", w.pkts_in, w.pkts_out, w.retrans, w.naks_got,
		w.dup, w.oosr);
	if (w.rtt_p50_us)
		fprintf(f, " %6u", w.rtt_p50_us);
	else
		fprintf(f, " %6s", "-");
}

/* "PFC priority 3" or "802.3x" */
static void pfc_prio_words(const struct pfcjoin_cmp *c, char *b, size_t cap)
{
	if (c->prio == PFC_GLOBAL)
		snprintf(b, cap, "802.3x");
	else
		snprintf(b, cap, "PFC priority %u", c->prio);
}

/* Where the NIC and the wire count the same thing: both, and whether they agree. */
static void compare_text(FILE *f, const struct devmon *m, const struct dm_dev *d)
{
	struct qpjoin_cmp c[QPJOIN_MAX_CMP];
	size_t n = m->wire ? qpjoin_compare(m->wire, d, c, QPJOIN_MAX_CMP) : 0;

	for (size_t i = 0; i < n; i++)
		fprintf(f, "  NIC vs wire %-20s nic %+" PRId64 " wire %" PRIu64 " %s (%s; per device)\n", c[i].counter,
			(int64_t)c[i].nic, c[i].wire, c[i].nic == c[i].wire ? "agree" : "DISAGREE", c[i].meaning);
	for (size_t j = 0; m->wire && j < d->nports; j++) {   /* per port: its netdev's pause counters */
		const struct dm_port *p = &d->ports[j];
		struct pfcjoin_cmp pc[PFCJOIN_MAX];
		size_t np = pfcjoin_compare(m->wire, p, pc, PFCJOIN_MAX);

		for (size_t i = 0; i < np; i++) {
			char prio[24];

			pfc_prio_words(&pc[i], prio, sizeof prio);
			fprintf(f, "  NIC vs wire %s:%-20s nic %+" PRId64 " wire %" PRIu64 " %s (%s pause frames %s; per port)\n",
				p->netdev, pc[i].counter, (int64_t)pc[i].nic, pc[i].wire,
				pc[i].nic == pc[i].wire ? "agree" : "DISAGREE", prio, pc[i].tx ? "sent" : "received");
		}
	}
}

/* The hw counters of the counter each QP is bound to (STAT_GET), one line a QP. */
static void qpcnt_text(FILE *f, const struct dm_dev *d)
{
	for (size_t i = 0; i < d->nqps; i++) {
		const struct nlp_qpcnt *c = nlp_qpcnt_find(&d->qpcnts, d->qps[i].q.port, d->qps[i].q.lqpn);

		if (!c)
			continue;
		fprintf(f, "  qp %u counter %u:", d->qps[i].q.lqpn, c->id);
		for (uint32_t j = 0; j < c->nctr; j++)
			fprintf(f, " %s %" PRIu64, c->name[j], c->value[j]);
		fputc('\n', f);
	}
}

static void qps_text(FILE *f, const struct devmon *m, const struct dm_dev *d)
{
	if (d->qp_err)
		fprintf(f, "  QPs: netlink: %s\n", strerror(-d->qp_err));
	fprintf(f, "  QPs %zu  CQs %zu  MRs %zu  CM IDs %zu\n", d->nqps, d->cqs.n, d->mrs.n, d->cmids.n);
	if (!d->nqps)
		return;
	fprintf(f, "  %6s %4s %-5s %-4s %8s %8s %8s %8s %8s %4s %7s", "LQPN", "PORT", "TYPE", "STATE",
		"SQ-PSN", "SQ-PSN/s", "RQPN", "RQ-PSN", "RQ-PSN/s", "PDN", "PID");
	if (m->wire)   /* the wire's view of the same QP (qpjoin.h) */
		fprintf(f, " %8s %8s %5s %4s %5s %5s %6s", "W-IN", "W-OUT", "RETX", "NAKS", "DUP", "OOSR", "RTT-us");
	fprintf(f, " %s\n", "COMM");
	for (size_t i = 0; i < d->nqps; i++) {
		const struct dm_qp *q = &d->qps[i];
		char rqpn[16] = "-", rqpsn[16] = "-", pdn[16] = "-", pid[16] = "-";

		if (q->q.have & NLP_HAVE_RQPN)
			snprintf(rqpn, sizeof rqpn, "%u", q->q.rqpn);
		if (q->q.have & NLP_HAVE_RQ_PSN)
			snprintf(rqpsn, sizeof rqpsn, "%u", q->q.rq_psn);
		if (q->q.have & NLP_HAVE_PDN)
			snprintf(pdn, sizeof pdn, "%u", q->q.pdn);
		if (q->q.have & NLP_HAVE_PID)
			snprintf(pid, sizeof pid, "%u", q->q.own.pid);
		fprintf(f, "  %6u %4u %-5s %-5s %8u", q->q.lqpn, q->q.port, nlp_qp_type_str(q->q.type),
			nlp_qp_state_str(q->q.state), q->q.sq_psn);
		psn_text(f, &q->sq_rate);
		fprintf(f, " %8s %8s", rqpn, rqpsn);
		psn_text(f, &q->rq_rate);
		fprintf(f, " %4s %7s", pdn, pid);
		wire_text(f, m, d, q);
		fprintf(f, " %s%s%s\n", q->q.have & NLP_HAVE_KERN ? "[" : "", q->comm[0] ? q->comm : "-",
			q->q.have & NLP_HAVE_KERN ? "]" : "");
	}
	qpcnt_text(f, d);
	for (size_t i = 0; i < d->cmids.n; i++) {
		const struct nlp_cmid *c = NLP_AT(&d->cmids, struct nlp_cmid, i);
		char s[80], t[80];

		fprintf(f, "  cm_id %u %s %s %s -> %s", c->cm_idn, nlp_cm_ps_str(c->ps), nlp_cm_state_str(c->state),
			nlp_addr_str(&c->src, s, sizeof s), nlp_addr_str(&c->dst, t, sizeof t));
		if (c->have & NLP_HAVE_LQPN)
			fprintf(f, " lqpn %u", c->lqpn);
		fputc('\n', f);
	}
}

/* "  pfc prio 3: rx pause 52 (12.0/s), tx pause 7" per priority that has
 * moved or is not zero (pfc.h); the lines printed. */
static int pfc_text(FILE *f, const struct dm_port *p)
{
	static const char *const what[PFC_NFIELDS] = { "pause", "pause_us", "xon" };
	struct pfc_prio pr[9];
	int lines = 0;

	if (p->eth_err || !pfc_collect(&p->eth, p->eth_rate, p->eth_rate ? p->eth.n : 0, pr))
		return 0;
	for (unsigned k = 0; k < 9; k++) {
		int nz = 0;

		for (int d = 0; d < 2; d++)
			for (int x = 0; x < PFC_NFIELDS; x++)
				nz |= pr[k].f[d][x].v != 0;
		if (!pr[k].any || !nz)
			continue;
		if (k == PFC_GLOBAL)
			fprintf(f, "  pfc %s 802.3x:", p->netdev);
		else
			fprintf(f, "  pfc %s prio %u:", p->netdev, k);
		for (int d = 0; d < 2; d++)
			for (int x = 0; x < PFC_NFIELDS; x++) {
				const struct pfc_val *v = &pr[k].f[d][x];

				if (!v->have)
					continue;
				fprintf(f, " %s_%s %" PRIu64, d ? "tx" : "rx", what[x], v->v);
				if (v->have_rate)
					fprintf(f, " (%.1f/s)", v->rate);
			}
		fputc('\n', f);
		lines++;
	}
	return lines;
}

/* The table's meaning of a counter (ctrtab.h), or nothing for a raw name. */
static void meaning_text(FILE *f, const struct dm_dev *d, const struct sysfs_counter *c)
{
	const struct ctr_entry *e = ctr_lookup(d->driver, c->name);

	if (e && (e->meaning || e->kind == CTR_GAUGE))
		fprintf(f, "  %s%s", e->kind == CTR_GAUGE ? "gauge " : "", ctr_meaning_name(e->meaning));
}

/* Whether any of p's counters (sysfs or ethtool -S) shows a rate this time. */
static int port_moved(const struct devmon *m, const struct dm_port *p)
{
	for (size_t i = 0; p->rate && i < p->sp.nctr; i++)
		if (show_rate(m, &p->rate[i]))
			return 1;
	for (uint32_t i = 0; !p->eth_err && p->eth_rate && i < p->eth.n && i < p->eth_nprev; i++)
		if (show_rate(m, &p->eth_rate[i]))
			return 1;
	return 0;
}

static void port_text(FILE *f, const struct devmon *m, const struct dm_dev *d, const struct dm_port *p)
{
	int shown = 0, quiet = !port_moved(m, p), said = 0;

	fprintf(f, "device %s port %u: %s", d->name, p->port, port_state(p));
	if (p->sp.rate[0])
		fprintf(f, ", %s", p->sp.rate);
	if (p->sp.link_layer[0])
		fprintf(f, ", %s", p->sp.link_layer);
	if (p->active_mtu) {   /* libibverbs (verbsport.h); unknown: nothing said */
		fprintf(f, ", active MTU %u", p->active_mtu);
		if (p->max_mtu)
			fprintf(f, " (max %u)", p->max_mtu);
	}
	fprintf(f, ", netdev %s\n", p->netdev[0] ? p->netdev : "-");
	for (size_t i = 0; i < p->sp.ngid; i++)
		fprintf(f, "  gid %u %s %s %s\n", p->sp.gid[i].index, p->sp.gid[i].gid,
			p->sp.gid[i].type[0] ? p->sp.gid[i].type : "-", p->sp.gid[i].ndev[0] ? p->sp.gid[i].ndev : "-");
	for (size_t i = 0; i < p->sp.nctr; i++) {
		const struct sysfs_counter *c = &p->sp.ctr[i];
		const struct dm_rate *r = p->rate ? &p->rate[i] : NULL;

		/* without a rate yet (first read, reset), in the first snapshot
		 * (taken after one or two reads) and on a port where no counter
		 * moved: the totals that are not zero */
		if (!(r && show_rate(m, r)) && !((!r || !r->valid || m->polls <= 2 || quiet) && c->value))
			continue;
		if (quiet && m->polls > 2 && !said++)
			fprintf(f, "  (no counter moved; the totals that are not zero:)\n");
		fprintf(f, "  %-32s %14" PRIu64, c->name, c->value);
		if (r && r->valid)
			fprintf(f, " %12.1f/s", r->v);
		else
			fprintf(f, " %14s", "");
		meaning_text(f, d, c);
		if (c->group == SYSFS_DEV)
			fputs("  (device-wide)", f);
		else if (c->group == SYSFS_NL)
			fputs("  (netlink)", f);
		else if (c->group == SYSFS_EXT)
			fputs("  (counters_ext)", f);
		fputc('\n', f);
		shown++;
	}
	if (p->nopt) {       /* RDMA netlink STAT_GET_STATUS */
		fputs("  optional counters:", f);
		for (size_t i = 0; i < p->nopt; i++)
			fprintf(f, " %s %s", p->opt_name[i], p->opt_on[i] ? "on" : "off");
		fputc('\n', f);
	}
	if (p->netdev[0] && p->eth_err)
		fprintf(f, "  ethtool -S %s: %s\n", p->netdev, strerror(-p->eth_err));
	for (uint32_t i = 0; !p->eth_err && p->eth_rate && i < p->eth.n && i < p->eth_nprev; i++) {
		if (!show_rate(m, &p->eth_rate[i]))
			continue;
		fprintf(f, "  %s:%-27s %14" PRIu64 " %12.1f/s\n", p->netdev, p->eth.names[i], p->eth.values[i],
			p->eth_rate[i].v);
		shown++;
	}
	shown += pfc_text(f, p);
	if (!shown)
		fprintf(f, "  (no counter moved)\n");
}

void devmon_text_ports(FILE *f, const struct devmon *m)
{
	if (!m)
		return;
	if (!m->nl)
		fprintf(f, "devices: no QP table: %s\n", m->nl_err);
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct dm_dev *d = &m->devs[i];

		for (size_t j = 0; j < d->nports; j++)
			port_text(f, m, d, &d->ports[j]);
		if (d->qp_err)
			fprintf(f, "  QPs: netlink: %s\n", strerror(-d->qp_err));
		if (m->nl && d->have_index)
			fprintf(f, "  QPs %zu  CQs %zu  MRs %zu  CM IDs %zu\n", d->nqps, d->cqs.n, d->mrs.n, d->cmids.n);
		compare_text(f, m, d);
	}
}

void devmon_text(FILE *f, const struct devmon *m)
{
	if (!m)
		return;
	if (!m->nl)
		fprintf(f, "devices: no QP table: %s\n", m->nl_err);
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct dm_dev *d = &m->devs[i];

		for (size_t j = 0; j < d->nports; j++)
			port_text(f, m, d, &d->ports[j]);
		if (m->nl && d->have_index)
			qps_text(f, m, d);
		compare_text(f, m, d);   /* per device: with or without QPs or a QP table */
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_rate(FILE *f, const struct dm_rate *r)
{
	if (r->valid)
		fprintf(f, "%.3f", r->v);
	else
		fputs("null", f);
}

static void json_mtu(FILE *f, unsigned bytes)
{
	if (bytes)
		fprintf(f, "%u", bytes);
	else
		fputs("null", f);
}

static void pfc_jval(FILE *f, const char *key, const struct pfc_val *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v->have)
		fprintf(f, "%" PRIu64, v->v);
	else
		fputs("null", f);
	fprintf(f, ",\"%s_per_s\":", key);
	if (v->have_rate)
		fprintf(f, "%.3f", v->rate);
	else
		fputs("null", f);
}

/* "pfc": [{priority (null: 802.3x), rx_pause, tx_pause, rx_pause_us, tx_pause_us,
 * rx_xon, tx_xon, each with its _per_s}] of the netdev's ethtool -S (pfc.h). */
static void pfc_json(FILE *f, const struct dm_port *p)
{
	struct pfc_prio pr[9];
	int first = 1;

	if (p->eth_err || !pfc_collect(&p->eth, p->eth_rate, p->eth_rate ? p->eth.n : 0, pr))
		return;
	for (unsigned k = 0; k < 9; k++) {
		if (!pr[k].any)
			continue;
		fputs(first ? "{\"priority\":" : ",{\"priority\":", f);
		first = 0;
		if (k == PFC_GLOBAL)
			fputs("null", f);
		else
			fprintf(f, "%u", k);
		pfc_jval(f, "rx_pause", &pr[k].f[0][PFC_PAUSE]);
		pfc_jval(f, "tx_pause", &pr[k].f[1][PFC_PAUSE]);
		pfc_jval(f, "rx_pause_us", &pr[k].f[0][PFC_PAUSE_US]);
		pfc_jval(f, "tx_pause_us", &pr[k].f[1][PFC_PAUSE_US]);
		pfc_jval(f, "rx_xon", &pr[k].f[0][PFC_XON]);
		pfc_jval(f, "tx_xon", &pr[k].f[1][PFC_XON]);
		fputc('}', f);
	}
}

static void port_json(FILE *f, const struct devmon *m, const struct dm_dev *d, const struct dm_port *p)
{
	int first = 1;

	fprintf(f, "{\"port\":%u,\"netdev\":", p->port);
	json_string(f, p->netdev);
	fputs(",\"mac\":", f);
	if (p->have_mac)
		fprintf(f, "\"%02x:%02x:%02x:%02x:%02x:%02x\"", p->mac[0], p->mac[1], p->mac[2], p->mac[3], p->mac[4],
			p->mac[5]);
	else
		fputs("null", f);
	fputs(",\"state\":", f);
	json_string(f, port_state(p));
	fputs(",\"rate\":", f);
	json_string(f, p->sp.rate);
	fputs(",\"link_layer\":", f);
	json_string(f, p->sp.link_layer);
	fputs(",\"active_mtu\":", f);
	json_mtu(f, p->active_mtu);
	fputs(",\"max_mtu\":", f);
	json_mtu(f, p->max_mtu);
	fputs(",\"counters\":{", f);
	for (size_t i = 0; i < p->sp.nctr; i++) {
		fprintf(f, "%s", i ? "," : "");
		json_string(f, p->sp.ctr[i].name);
		fprintf(f, ":%" PRIu64, p->sp.ctr[i].value);
	}
	/* the optional counters (netlink STAT_GET_STATUS): enabled or not */
	fputs("},\"optional_counters\":{", f);
	for (size_t i = 0; i < p->nopt; i++) {
		fprintf(f, "%s", i ? "," : "");
		json_string(f, p->opt_name[i]);
		fputs(p->opt_on[i] ? ":true" : ":false", f);
	}
	/* where the counters that are not the port's own come from */
	fputs("},\"groups\":{", f);
	first = 1;
	for (size_t i = 0; i < p->sp.nctr; i++) {
		if (p->sp.ctr[i].group != SYSFS_DEV && p->sp.ctr[i].group != SYSFS_NL && p->sp.ctr[i].group != SYSFS_EXT)
			continue;
		fprintf(f, "%s", first ? "" : ",");
		first = 0;
		json_string(f, p->sp.ctr[i].name);
		fprintf(f, ":\"%s\"", sysfs_group_name(p->sp.ctr[i].group));
	}
	fputs("},\"meanings\":{", f);
	first = 1;
	for (size_t i = 0; i < p->sp.nctr; i++) {
		const struct ctr_entry *e = ctr_lookup(d->driver, p->sp.ctr[i].name);

		if (!e)
			continue;
		fprintf(f, "%s", first ? "" : ",");
		first = 0;
		json_string(f, p->sp.ctr[i].name);
		fputs(":{\"meaning\":", f);
		json_string(f, ctr_meaning_name(e->meaning));
		fprintf(f, ",\"kind\":\"%s\",\"width\":\"%s\",\"side\":\"%s\"", e->kind == CTR_GAUGE ? "gauge" : "counter",
			e->width == CTR_W32_WRAP ? "32" : e->width == CTR_PMA_SAT ? "pma" : "64",
			e->side == CTR_REQ ? "requester" : e->side == CTR_RESP ? "responder" :
			e->side == CTR_DEVICE ? "device" : "port");
		if (e->scale > 1)
			fprintf(f, ",\"scale\":%u", e->scale);
		if (e->same_as && dm_port_has(e->same_as, p)) {
			fputs(",\"same_as\":", f);
			json_string(f, e->same_as);
		}
		fputc('}', f);
	}
	first = 1;
	fputs("},\"rates\":{", f);
	for (size_t i = 0; p->rate && i < p->sp.nctr; i++) {
		if (!show_rate(m, &p->rate[i]))
			continue;
		fprintf(f, "%s", first ? "" : ",");
		first = 0;
		json_string(f, p->sp.ctr[i].name);
		fprintf(f, ":%.3f", p->rate[i].v);
	}
	fputs("},\"ethtool\":{", f);
	for (uint32_t i = 0; !p->eth_err && i < p->eth.n && p->eth.names; i++) {
		fprintf(f, "%s", i ? "," : "");
		json_string(f, p->eth.names[i]);
		fprintf(f, ":%" PRIu64, p->eth.values[i]);
	}
	fputs("},\"ethtool_rates\":{", f);
	first = 1;
	for (uint32_t i = 0; !p->eth_err && p->eth_rate && i < p->eth.n && i < p->eth_nprev; i++) {
		if (!show_rate(m, &p->eth_rate[i]))
			continue;
		fprintf(f, "%s", first ? "" : ",");
		first = 0;
		json_string(f, p->eth.names[i]);
		fprintf(f, ":%.3f", p->eth_rate[i].v);
	}
	fputs("},\"pfc\":[", f);
	pfc_json(f, p);
	fputs("],\"gids\":[", f);
	for (size_t i = 0; i < p->sp.ngid; i++) {
		fprintf(f, "%s{\"index\":%u,\"gid\":", i ? "," : "", p->sp.gid[i].index);
		json_string(f, p->sp.gid[i].gid);
		fputs(",\"type\":", f);
		json_string(f, p->sp.gid[i].type);
		fputs(",\"netdev\":", f);
		json_string(f, p->sp.gid[i].ndev);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void wire_json(FILE *f, const struct devmon *m, const struct dm_dev *d, const struct dm_qp *q)
{
	struct qp_wire w;

	qpjoin_qp(m->wire, d, q, &w);
	fprintf(f, ",\"wire\":{\"flows_in\":%u,\"flows_out\":%u,\"packets_in\":%" PRIu64 ",\"packets_out\":%" PRIu64
		",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64 ",\"retransmissions\":%u,\"nak_seq_err\":%u"
		",\"duplicate_request\":%u,\"out_of_seq_request\":%u,\"rtt_p50_us\":", w.nflows_in, w.nflows_out,
		w.pkts_in, w.pkts_out, w.bytes_in, w.bytes_out, w.retrans, w.naks_got, w.dup, w.oosr);
	if (w.rtt_p50_us)
		fprintf(f, "%u}", w.rtt_p50_us);
	else
		fputs("null}", f);
}

static void compare_json(FILE *f, const struct devmon *m, const struct dm_dev *d)
{
	struct qpjoin_cmp c[QPJOIN_MAX_CMP];
	size_t n = qpjoin_compare(m->wire, d, c, QPJOIN_MAX_CMP);

	fputs(",\"nic_vs_wire\":[", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"counter\":", i ? "," : "");
		json_string(f, c[i].counter);
		fprintf(f, ",\"nic\":%" PRIu64 ",\"wire\":%" PRIu64 ",\"agree\":%s,\"meaning\":", c[i].nic, c[i].wire,
			c[i].nic == c[i].wire ? "true" : "false");
		json_string(f, c[i].meaning);
		fputs(",\"meaning_name\":", f);
		json_string(f, c[i].meaning_name);
		fputc('}', f);
	}
	for (size_t j = 0; j < d->nports; j++) {   /* the ports' pause counters (pfcjoin.h) */
		const struct dm_port *p = &d->ports[j];
		struct pfcjoin_cmp pc[PFCJOIN_MAX];
		size_t np = pfcjoin_compare(m->wire, p, pc, PFCJOIN_MAX);

		for (size_t i = 0; i < np; i++, n++) {
			char prio[24], what[64];

			pfc_prio_words(&pc[i], prio, sizeof prio);
			snprintf(what, sizeof what, "%s pause frames %s", prio, pc[i].tx ? "sent" : "received");
			fprintf(f, "%s{\"counter\":", n ? "," : "");
			json_string(f, pc[i].counter);
			fprintf(f, ",\"nic\":%" PRIu64 ",\"wire\":%" PRIu64 ",\"agree\":%s,\"meaning\":", pc[i].nic,
				pc[i].wire, pc[i].nic == pc[i].wire ? "true" : "false");
			json_string(f, what);
			fprintf(f, ",\"meaning_name\":\"%s\",\"port\":%u,\"netdev\":",
				pc[i].tx ? "pause_frames_sent" : "pause_frames_received", p->port);
			json_string(f, p->netdev);
			fputs(",\"priority\":", f);
			if (pc[i].prio == PFC_GLOBAL)
				fputs("null", f);
			else
				fprintf(f, "%u", pc[i].prio);
			fprintf(f, ",\"direction\":\"%s\"}", pc[i].tx ? "tx" : "rx");
		}
	}
	fputc(']', f);
}

/* "counter_id" and "counters": {NAME: value} of the counter the QP is bound to. */
static void qpcnt_json(FILE *f, const struct dm_dev *d, const struct dm_qp *q)
{
	const struct nlp_qpcnt *c = nlp_qpcnt_find(&d->qpcnts, q->q.port, q->q.lqpn);

	if (!c)
		return;
	fprintf(f, ",\"counter_id\":%u,\"counters\":{", c->id);
	for (uint32_t j = 0; j < c->nctr; j++) {
		if (j)
			fputc(',', f);
		json_string(f, c->name[j]);
		fprintf(f, ":%" PRIu64, c->value[j]);
	}
	fputc('}', f);
}

static void qp_json(FILE *f, const struct devmon *m, const struct dm_dev *d, const struct dm_qp *q)
{
	fprintf(f, "{\"lqpn\":%u,\"port\":%u,\"type\":\"%s\",\"state\":\"%s\",\"path_mig_state\":\"%s\",\"sq_psn\":%u",
		q->q.lqpn, q->q.port, nlp_qp_type_str(q->q.type), nlp_qp_state_str(q->q.state),
		nlp_pmig_str(q->q.pmig), q->q.sq_psn);
	if (q->q.have & NLP_HAVE_RQPN)
		fprintf(f, ",\"rqpn\":%u", q->q.rqpn);
	if (q->q.have & NLP_HAVE_RQ_PSN)
		fprintf(f, ",\"rq_psn\":%u", q->q.rq_psn);
	if (q->q.have & NLP_HAVE_PDN)
		fprintf(f, ",\"pdn\":%u", q->q.pdn);
	if (q->q.have & NLP_HAVE_PID)
		fprintf(f, ",\"pid\":%u", q->q.own.pid);
	fputs(",\"comm\":", f);
	json_string(f, q->comm);
	if (q->q.have & NLP_HAVE_KERN)
		fputs(",\"kernel\":true", f);
	fputs(",\"sq_psn_per_s\":", f);
	json_rate(f, &q->sq_rate);
	fputs(",\"rq_psn_per_s\":", f);
	json_rate(f, &q->rq_rate);
	qpcnt_json(f, d, q);
	if (m->wire)
		wire_json(f, m, d, q);
	fputc('}', f);
}

static void cmid_json(FILE *f, const struct nlp_cmid *c)
{
	char s[80], t[80];

	fprintf(f, "{\"cm_idn\":%u,\"port\":%u,\"ps\":\"%s\",\"state\":\"%s\",\"src\":", c->cm_idn, c->port,
		nlp_cm_ps_str(c->ps), nlp_cm_state_str(c->state));
	json_string(f, nlp_addr_str(&c->src, s, sizeof s));
	fputs(",\"dst\":", f);
	json_string(f, nlp_addr_str(&c->dst, t, sizeof t));
	if (c->have & NLP_HAVE_LQPN)
		fprintf(f, ",\"lqpn\":%u", c->lqpn);
	if (c->have & NLP_HAVE_PID)
		fprintf(f, ",\"pid\":%u", c->own.pid);
	fputc('}', f);
}

void devmon_json(FILE *f, const struct devmon *m)
{
	fputc('[', f);
	for (size_t i = 0; m && i < m->ndevs; i++) {
		const struct dm_dev *d = &m->devs[i];

		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_string(f, d->name);
		fputs(",\"ports\":[", f);
		for (size_t j = 0; j < d->nports; j++) {
			if (j)
				fputc(',', f);
			port_json(f, m, d, &d->ports[j]);
		}
		fprintf(f, "],\"netlink\":%s", m->nl && d->have_index && !d->qp_err ? "true" : "false");
		fputs(",\"qps\":[", f);
		for (size_t j = 0; j < d->nqps; j++) {
			if (j)
				fputc(',', f);
			qp_json(f, m, d, &d->qps[j]);
		}
		fputc(']', f);
		if (m->wire)
			compare_json(f, m, d);
		fprintf(f, ",\"cqs\":%zu,\"mrs\":%zu,\"cm_ids\":[", d->cqs.n, d->mrs.n);
		for (size_t j = 0; j < d->cmids.n; j++) {
			if (j)
				fputc(',', f);
			cmid_json(f, NLP_AT(&d->cmids, struct nlp_cmid, j));
		}
		fputs("]}", f);
	}
	fputc(']', f);
}

/* ---- Prometheus ------------------------------------------------------------- */

static void plabel(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void phead(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The sysfs counters of every port: the counters (gauges 0) or the gauges. */
static void port_stats(FILE *f, const struct devmon *m, int gauges)
{
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];

			for (size_t k = 0; k < p->sp.nctr; k++) {
				const struct ctr_entry *e = ctr_lookup(m->devs[i].driver, p->sp.ctr[k].name);

				if ((e && e->kind == CTR_GAUGE) != gauges)
					continue;
				fputs(gauges ? "rocetop_rdma_port_stat{device=" : "rocetop_rdma_port_stat_total{device=", f);
				plabel(f, m->devs[i].name);
				fprintf(f, ",port=\"%u\",group=\"%s\",counter=", p->port,
					sysfs_group_name(p->sp.ctr[k].group));
				plabel(f, p->sp.ctr[k].name);
				fprintf(f, "} %" PRIu64 "\n", p->sp.ctr[k].value);
			}
		}
}

/* rocetop_rdma_meaning_total{device,port,driver,meaning}: per port, the sum
 * of its counters of each meaning, in the meaning's units (bytes, not PMA
 * words), each event once (ctr_counts_in_sum). */
static void meaning_series(FILE *f, const struct devmon *m)
{
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];
			uint64_t sum[M_NMEANINGS] = { 0 };
			int have[M_NMEANINGS] = { 0 };

			for (size_t k = 0; k < p->sp.nctr; k++) {
				const struct ctr_entry *e = ctr_lookup(m->devs[i].driver, p->sp.ctr[k].name);

				if (!ctr_counts_in_sum(e, dm_port_has, p))
					continue;
				sum[e->meaning] += ctr_units(e, p->sp.ctr[k].value);
				have[e->meaning] = 1;
			}
			for (unsigned k = 1; k < M_NMEANINGS; k++) {
				if (!have[k])
					continue;
				fputs("rocetop_rdma_meaning_total{device=", f);
				plabel(f, m->devs[i].name);
				fprintf(f, ",port=\"%u\",driver=", p->port);
				plabel(f, m->devs[i].driver ? m->devs[i].driver : "");
				fprintf(f, ",meaning=\"%s\"} %" PRIu64 "\n", ctr_meaning_name(k), sum[k]);
			}
		}
}

static void pfc_prom(FILE *f, const struct devmon *m, enum pfc_field x, const char *name, const char *help)
{
	phead(f, name, "counter", help);
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];
			struct pfc_prio pr[9];

			if (p->eth_err || !pfc_collect(&p->eth, NULL, 0, pr))
				continue;
			for (unsigned k = 0; k < 9; k++)
				for (int d = 0; d < 2; d++) {
					if (!pr[k].f[d][x].have)
						continue;
					fprintf(f, "%s{netdev=", name);
					plabel(f, p->netdev);
					if (k == PFC_GLOBAL)
						fputs(",priority=\"global\"", f);
					else
						fprintf(f, ",priority=\"%u\"", k);
					fprintf(f, ",direction=\"%s\"} ", d ? "tx" : "rx");
					if (x == PFC_PAUSE_US)
						fprintf(f, "%.6f\n", (double)pr[k].f[d][x].v / 1e6);
					else
						fprintf(f, "%" PRIu64 "\n", pr[k].f[d][x].v);
				}
		}
}

void devmon_prom(FILE *f, const struct devmon *m)
{
	if (!m)
		return;
	if (m->cfg.node_names)
		devmon_prom_node(f, m);
	phead(f, "rocetop_rdma_port_active", "gauge", "1 when the RDMA port is ACTIVE");
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			fputs("rocetop_rdma_port_active{device=", f);
			plabel(f, m->devs[i].name);
			fprintf(f, ",port=\"%u\"} %d\n", m->devs[i].ports[j].port,
				!strcmp(port_state(&m->devs[i].ports[j]), "ACTIVE"));
		}
	phead(f, "rocetop_rdma_port_active_mtu_bytes", "gauge",
	      "the RDMA port's active MTU in bytes (ibv_query_port; no sample when unknown)");
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			if (!m->devs[i].ports[j].active_mtu)
				continue;
			fputs("rocetop_rdma_port_active_mtu_bytes{device=", f);
			plabel(f, m->devs[i].name);
			fprintf(f, ",port=\"%u\"} %u\n", m->devs[i].ports[j].port, m->devs[i].ports[j].active_mtu);
		}
	phead(f, "rocetop_rdma_port_stat_total", "counter",
	      "an RDMA port counter (sysfs hw_counters and counters), named as the kernel names it");
	port_stats(f, m, 0);
	phead(f, "rocetop_rdma_port_stat", "gauge",
	      "an RDMA port value the driver keeps as a gauge (bnxt_re active_*, watermark_*), named as the kernel names it");
	port_stats(f, m, 1);
	phead(f, "rocetop_rdma_meaning_total", "counter",
	      "the RDMA port counters of one meaning (the driver table, ctrtab.h), summed per port");
	meaning_series(f, m);
	pfc_prom(f, m, PFC_PAUSE, "rocetop_netdev_pfc_pause_frames_total",
		 "PFC pause frames (802.3x: priority \"global\") per netdev, priority and direction (ethtool -S, every vendor's names)");
	pfc_prom(f, m, PFC_PAUSE_US, "rocetop_netdev_pfc_pause_seconds_total",
		 "seconds paused by PFC (the driver's microseconds over 1e6) per netdev, priority and direction, where the driver counts it (ethtool -S)");
	pfc_prom(f, m, PFC_XON, "rocetop_netdev_pfc_xon_total",
		 "PFC XON frames or XOFF-to-XON transitions per netdev, priority and direction (ethtool -S)");
	phead(f, "rocetop_netdev_ethtool_stat", "untyped", "a statistic of ethtool -S on the RDMA port's netdev");
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nports; j++) {
			const struct dm_port *p = &m->devs[i].ports[j];

			for (uint32_t k = 0; !p->eth_err && p->eth.names && k < p->eth.n; k++) {
				fputs("rocetop_netdev_ethtool_stat{netdev=", f);
				plabel(f, p->netdev);
				fputs(",stat=", f);
				plabel(f, p->eth.names[k]);
				fprintf(f, "} %" PRIu64 "\n", p->eth.values[k]);
			}
		}
	phead(f, "rocetop_rdma_qps", "gauge", "queue pairs on the RDMA device (netlink)");
	for (size_t i = 0; i < m->ndevs; i++) {
		fputs("rocetop_rdma_qps{device=", f);
		plabel(f, m->devs[i].name);
		fprintf(f, "} %zu\n", m->devs[i].nqps);
	}
	phead(f, "rocetop_rdma_qp_psn_per_second", "gauge", "advance of an RC/UC QP's sq-psn or rq-psn per second");
	for (size_t i = 0; i < m->ndevs; i++)
		for (size_t j = 0; j < m->devs[i].nqps; j++) {
			const struct dm_qp *q = &m->devs[i].qps[j];

			for (int rq = 0; rq < 2; rq++) {
				const struct dm_rate *r = rq ? &q->rq_rate : &q->sq_rate;

				if (!r->valid)
					continue;
				fputs("rocetop_rdma_qp_psn_per_second{device=", f);
				plabel(f, m->devs[i].name);
				fprintf(f, ",lqpn=\"%u\",queue=\"%s\"} %.3f\n", q->q.lqpn, rq ? "rq" : "sq", r->v);
			}
		}
}
