/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devmon.c — the device source (devmon.h): choosing devices and ports,
 * reading them, and turning totals into rates.
 */
#include <errno.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devmon.h"
#include "ctrtab.h"
#include "nlsock.h"
#include "optctr.h"

#define MAX_PORTS 4096   /* sorted first, then capped (sysfs_ports) */

static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* ---- finding devices -------------------------------------------------------- */

/* Netlink's device list (index, name); 0 entries when netlink is missing. */
static void nl_devices(struct devmon *m, struct nlp_vec *devs)
{
	const uint8_t *b;
	size_t len;
	int rc;

	nlp_vec_init(devs, NLP_DEV);
	if (!m->nl)
		return;
	if ((rc = nls_dump(m->nl, RDMA_NLDEV_CMD_GET, NLS_NO_DEV, &b, &len)) < 0 ||
	    (rc = nlp_parse(NLP_DEV, b, len, devs)) < 0)
		snprintf(m->nl_err, sizeof m->nl_err, "RDMA netlink device dump: %s",
			 rc < -1000 ? strerror(-rc - 1000) : rc < 0 && rc > -200 ? strerror(-rc) : "malformed reply");
}

static void nl_ports(struct devmon *m, struct dm_dev *d)
{
	struct nlp_vec v;
	const uint8_t *b;
	size_t len;

	if (!m->nl || !d->have_index)
		return;
	nlp_vec_init(&v, NLP_PORT);
	if (nls_dump(m->nl, RDMA_NLDEV_CMD_PORT_GET, d->index, &b, &len) == 0 &&
	    nlp_parse(NLP_PORT, b, len, &v) >= 0) {
		for (size_t i = 0; i < v.n; i++) {
			const struct nlp_port *np = NLP_AT(&v, struct nlp_port, i);

			for (size_t j = 0; j < d->nports; j++) {
				struct dm_port *p = &d->ports[j];

				if (p->port != np->port)
					continue;
				p->nl_state = np->state;
				p->nl_phys = np->phys_state;
				p->have_nl_state = !!(np->have & NLP_HAVE_STATE);
				if (np->ndev_name[0])
					scopy(p->netdev, sizeof p->netdev, np->ndev_name);
			}
		}
	}
	nlp_vec_free(&v);
}

/* The netdev of a port without netlink: the first GID's (sysfs). */
static void sysfs_netdev(const char *dev, struct dm_port *p)
{
	struct sysfs_port sp;

	if (p->netdev[0] || sysfs_read_port(dev, p->port, 1, &sp) < 0)
		return;
	for (size_t i = 0; i < sp.ngid && !p->netdev[0]; i++)
		scopy(p->netdev, sizeof p->netdev, sp.gid[i].ndev);
	sysfs_port_free(&sp);
}

/* Does spec ("all", "DEV", "DEV:PORT") select (dev, port)? */
static int spec_match(const char *spec, const char *dev, unsigned port)
{
	const char *colon = strrchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	if (!strcmp(spec, "all"))
		return 1;
	if (strlen(dev) != n || strncmp(spec, dev, n))
		return 0;
	return !colon || strtoul(colon + 1, NULL, 10) == port;
}

static int wanted(const struct devmon_cfg *c, const char *dev, const struct dm_port *p)
{
	for (unsigned i = 0; i < c->nspecs; i++)
		if (spec_match(c->specs[i], dev, p->port))
			return 1;
	for (unsigned i = 0; i < c->nnetdevs; i++)
		if ((p->netdev[0] && !strcmp(c->netdevs[i], p->netdev)) || !strcmp(c->netdevs[i], dev))
			return 1;   /* -i eth0, or -i mlx5_0 (the verbs sniffer) */
	return 0;
}

/* Every device under sysfs and netlink, with every port. */
static int all_devices(struct devmon *m, struct nlp_vec *nd)
{
	size_t ns = 0;
	char (*names)[SYSFS_NAME] = sysfs_devices(&ns);
	size_t total = ns + nd->n;

	m->devs = calloc(total ? total : 1, sizeof *m->devs);
	if (!m->devs) {
		free(names);
		return -1;
	}
	for (size_t i = 0; i < total; i++) {
		const char *name = i < ns ? names[i] : NLP_AT(nd, struct nlp_dev, i - ns)->name;
		struct dm_dev *d = &m->devs[m->ndevs];
		unsigned ports[MAX_PORTS];
		size_t np = sysfs_ports(name, ports, MAX_PORTS);
		int dup = 0;

		for (size_t j = 0; j < m->ndevs; j++)
			dup |= !strcmp(m->devs[j].name, name);
		if (dup)
			continue;
		scopy(d->name, sizeof d->name, name);
		d->driver = ctr_driver_of(name);
		for (size_t j = 0; j < nd->n; j++)
			if (!strcmp(NLP_AT(nd, struct nlp_dev, j)->name, name)) {
				d->index = NLP_AT(nd, struct nlp_dev, j)->index;
				d->have_index = 1;
				if (!np)
					for (unsigned k = 1; k <= NLP_AT(nd, struct nlp_dev, j)->nports && np < MAX_PORTS; k++)
						ports[np++] = k;
			}
		d->ports = calloc(np ? np : 1, sizeof *d->ports);
		if (!d->ports)
			break;
		for (size_t k = 0; k < np; k++) {
			d->ports[k].port = ports[k];
			etht_init(&d->ports[k].eth, "");
		}
		d->nports = np;
		nlp_vec_init(&d->cqs, NLP_CQ);
		nlp_vec_init(&d->mrs, NLP_MR);
		nlp_vec_init(&d->cmids, NLP_CMID);
		nlp_vec_init(&d->qpcnts, NLP_QPCNT);
		m->ndevs++;
	}
	free(names);
	return 0;
}

static void free_port(struct dm_port *p)
{
	sysfs_port_free(&p->sp);
	free(p->rate);
	free(p->prev);
	free(p->base);
	etht_free(&p->eth);
	free(p->eth_prev);
	free(p->eth_rate);
	free(p->eth_base_names);
	free(p->eth_base);
	free(p->opt_name);
	free(p->opt_on);
}

static void free_dev(struct dm_dev *d)
{
	vport_close(d->verbs);
	d->verbs = NULL;
	for (size_t j = 0; j < d->nports; j++)
		free_port(&d->ports[j]);
	free(d->ports);
	free(d->qps);
	free(d->prev_qps);
	nlp_vec_free(&d->cqs);
	nlp_vec_free(&d->mrs);
	nlp_vec_free(&d->cmids);
	nlp_vec_free(&d->qpcnts);
}

/* Keeps the ports wanted, drops devices left without one. */
static void select_ports(struct devmon *m)
{
	size_t nd = 0;

	for (size_t i = 0; i < m->ndevs; i++) {
		struct dm_dev *d = &m->devs[i];
		size_t np = 0;

		for (size_t j = 0; j < d->nports; j++) {
			if (wanted(&m->cfg, d->name, &d->ports[j]))
				d->ports[np++] = d->ports[j];
			else
				free_port(&d->ports[j]);
		}
		d->nports = np;
		if (np)
			m->devs[nd++] = *d;
		else
			free_dev(d);
	}
	m->ndevs = nd;
}

/* A spec that selected nothing, for the error message; NULL if none. */
static const char *unmatched(const struct devmon *m)
{
	for (unsigned i = 0; i < m->cfg.nspecs; i++) {
		int hit = 0;

		for (size_t d = 0; d < m->ndevs; d++)
			for (size_t p = 0; p < m->devs[d].nports; p++)
				hit |= spec_match(m->cfg.specs[i], m->devs[d].name, m->devs[d].ports[p].port);
		if (!hit && strcmp(m->cfg.specs[i], "all"))
			return m->cfg.specs[i];
	}
	return NULL;
}

/* --bind-qp-counters: each selected port's new QPs bound to counters by QP
 * type.  Drivers without counters (EOPNOTSUPP) are passed over silently;
 * other refusals (EPERM without CAP_NET_ADMIN) get one line. */
static void bind_qp_counters(struct devmon *m)
{
	for (size_t i = 0; m->nl && i < m->ndevs; i++) {
		struct dm_dev *d = &m->devs[i];

		for (size_t j = 0; d->have_index && j < d->nports; j++) {
			int rc = nls_bind_qp_auto(m->nl, d->index, d->ports[j].port);

			if (rc < 0 && rc != -EOPNOTSUPP)
				fprintf(stderr, "rocetop: --bind-qp-counters %s/%u: %s\n", d->name, d->ports[j].port,
					strerror(-rc));
		}
	}
}

/* --device-enable-optional: the named optional counters on, each selected
 * port; the first refusal ends it (-1, err[] set). */
static int enable_optional(struct devmon *m, char *err, size_t errcap)
{
	if (!m->nl) {
		snprintf(err, errcap, "--device-enable-optional: %s", m->nl_err);
		return -1;
	}
	for (size_t i = 0; i < m->ndevs; i++) {
		struct dm_dev *d = &m->devs[i];

		for (size_t j = 0; j < d->nports; j++)
			if (!d->have_index ||
			    optctr_enable(m->nl, d->index, d->name, d->ports[j].port, m->cfg.enable_optional, err, errcap) < 0) {
				if (!d->have_index)
					snprintf(err, errcap, "--device-enable-optional %s: not known to RDMA netlink", d->name);
				return -1;
			}
	}
	return 0;
}

/* A replayed sysfs tree or netlink recording describes another machine's
 * devices: this host's libibverbs devices of the same names are not asked. */
static int replaying(void)
{
	const char *s = getenv("ROCETOP_SYSFS_ROOT"), *n = getenv("ROCETOP_NETLINK_REPLAY");

	return (s && *s) || (n && *n);
}

struct devmon *devmon_open(const struct devmon_cfg *cfg, char *err, size_t errcap)
{
	struct devmon *m = calloc(1, sizeof *m);
	struct nlp_vec nd;
	const char *bad;

	err[0] = 0;
	if (!m) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	m->cfg = *cfg;
	m->nl = nls_open(m->nl_err, sizeof m->nl_err);
	nl_devices(m, &nd);
	if (all_devices(m, &nd) < 0) {
		nlp_vec_free(&nd);
		devmon_close(m);
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	nlp_vec_free(&nd);
	for (size_t i = 0; i < m->ndevs; i++) {
		nl_ports(m, &m->devs[i]);
		for (size_t j = 0; j < m->devs[i].nports; j++)
			sysfs_netdev(m->devs[i].name, &m->devs[i].ports[j]);
	}
	select_ports(m);
	if ((bad = unmatched(m))) {
		snprintf(err, errcap, "--device %s: no such RDMA device or port (%s)", bad,
			 m->nl ? "see `rdma link`" : m->nl_err);
	} else if (!m->ndevs && cfg->nspecs) {
		snprintf(err, errcap, "--device: no RDMA devices here (%s/class/infiniband is empty%s%s)",
			 sysfs_root(), m->nl ? "" : "; ", m->nl ? "" : m->nl_err);
	}
	if (err[0] || !m->ndevs) {
		devmon_close(m);
		return NULL;
	}
	for (size_t i = 0; i < m->ndevs; i++) {
		for (size_t j = 0; j < m->devs[i].nports; j++)
			etht_init(&m->devs[i].ports[j].eth, m->devs[i].ports[j].netdev);
		/* the port MTUs: one verbs context per device, for as long as the view runs */
		if (!replaying())
			m->devs[i].verbs = vport_open(m->devs[i].name);
	}
	if (cfg->bind_qp_counters)
		bind_qp_counters(m);
	if (cfg->enable_optional && enable_optional(m, err, errcap) < 0) {
		devmon_close(m);
		return NULL;
	}
	return m;
}

void devmon_close(struct devmon *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ndevs; i++)
		free_dev(&m->devs[i]);
	free(m->devs);
	nls_close(m->nl);
	free(m);
}

/* ---- counters ---------------------------------------------------------------- */

static const struct sysfs_counter *find_prev(const struct dm_port *p, size_t hint, const struct sysfs_counter *c)
{
	if (hint < p->nprev && p->prev[hint].group == c->group && !strcmp(p->prev[hint].name, c->name))
		return &p->prev[hint];
	for (size_t i = 0; i < p->nprev; i++)
		if (p->prev[i].group == c->group && !strcmp(p->prev[i].name, c->name))
			return &p->prev[i];
	return NULL;
}

/* Totals that went down were reset (PMA counters saturate, 64-bit ones do
 * not wrap): no rate for that interval.  A 32-bit counter (ctrtab.h) that
 * went down from near 2^32 wrapped: its rate counts the wrap. */
static struct dm_rate rate_of_e(const struct ctr_entry *e, uint64_t cur, uint64_t prev, double dt)
{
	struct dm_rate r = { 0, 0 };
	uint64_t d;

	if (dt > 0 && ctr_delta(e, prev, cur, &d) == 0) {
		r.v = (double)d / dt;
		r.valid = 1;
	}
	return r;
}

static struct dm_rate rate_of(uint64_t cur, uint64_t prev, double dt)
{
	return rate_of_e(NULL, cur, prev, dt);
}

/* RDMA netlink's statistics of the port (`rdma statistic show link`): the
 * counters sysfs does not show (mlx5's optional cc_rx_ce_pkts, rdma_rx_bytes,
 * …), group SYSFS_NL.  Drivers without them (rxe, siw: EOPNOTSUPP) and
 * replays without the file add nothing. */
static void add_nl_stats(struct devmon *m, struct dm_dev *d, struct dm_port *p, struct sysfs_port *sp)
{
	struct nlp_vec v;
	const uint8_t *b;
	size_t len, n0 = sp->nctr;

	if (!m->nl || !d->have_index)
		return;
	nlp_vec_init(&v, NLP_PORTSTAT);
	if (nls_port_stat(m->nl, d->index, p->port, m->polls + 1, &b, &len) == 0 &&
	    nlp_parse(NLP_PORTSTAT, b, len, &v) >= 0) {
		for (size_t i = 0; i < v.n; i++) {
			const struct nlp_portstat *ps = NLP_AT(&v, struct nlp_portstat, i);

			if ((ps->have & NLP_HAVE_PORT) && ps->port != p->port)
				continue;
			for (uint32_t k = 0; k < ps->nctr; k++) {
				int dup = 0;

				for (size_t j = 0; j < n0 && !dup; j++)
					dup = sp->ctr[j].group != SYSFS_PMA && !strcmp(sp->ctr[j].name, ps->name[k]);
				if (!dup && sysfs_add_counter(sp, ps->name[k], ps->value[k], SYSFS_NL) < 0)
					break;
			}
		}
		sysfs_sort_counters(sp);
	}
	nlp_vec_free(&v);
}

/* Which optional counters the port has and which are enabled (enabling them
 * changes the system: only --device-enable-optional does, optctr.c).  Unanswered: none known. */
static void read_opt_status(struct devmon *m, struct dm_dev *d, struct dm_port *p)
{
	struct nlp_vec v;
	const uint8_t *b;
	size_t len;

	if (!m->nl || !d->have_index)
		return;
	nlp_vec_init(&v, NLP_OPTSTATUS);
	if (nls_port_query(m->nl, RDMA_NLDEV_CMD_STAT_GET_STATUS, d->index, p->port, m->polls + 1, &b, &len) == 0 &&
	    nlp_parse(NLP_OPTSTATUS, b, len, &v) >= 0) {
		for (size_t i = 0; i < v.n; i++) {
			const struct nlp_portstat *ps = NLP_AT(&v, struct nlp_portstat, i);
			void *nn, *no;

			if ((ps->have & NLP_HAVE_PORT) && ps->port != p->port)
				continue;
			nn = realloc(p->opt_name, (ps->nctr ? ps->nctr : 1) * sizeof *p->opt_name);
			if (nn)
				p->opt_name = nn;
			no = nn ? realloc(p->opt_on, ps->nctr ? ps->nctr : 1) : NULL;
			if (!no)
				break;
			p->opt_on = no;
			for (uint32_t k = 0; k < ps->nctr; k++) {
				scopy(p->opt_name[k], sizeof p->opt_name[k], ps->name[k]);
				p->opt_on[k] = ps->value[k] != 0;
			}
			p->nopt = ps->nctr;
		}
	}
	nlp_vec_free(&v);
}

static void read_port(struct devmon *m, struct dm_dev *d, struct dm_port *p, int gids, double dt)
{
	struct sysfs_port sp;

	if (sysfs_read_port(d->name, p->port, gids, &sp) < 0) {
		p->sysfs_ok = 0;
		return;
	}
	/* the device's own hw_counters/ go with its first selected port (once) */
	if (p == &d->ports[0])
		sysfs_add_dev_counters(d->name, &sp);
	add_nl_stats(m, d, p, &sp);
	read_opt_status(m, d, p);
	if (!gids) {                    /* keep the GID table of the last QP poll */
		sp.gid = p->sp.gid, sp.ngid = p->sp.ngid;
		p->sp.gid = NULL, p->sp.ngid = 0;
	}
	free(p->prev);
	p->prev = p->sp.ctr, p->nprev = p->sp.nctr;
	p->sp.ctr = NULL, p->sp.nctr = 0;
	sysfs_port_free(&p->sp);
	p->sp = sp;
	p->sysfs_ok = 1;
	if (!p->base && sp.nctr && (p->base = malloc(sp.nctr * sizeof *p->base))) {
		memcpy(p->base, sp.ctr, sp.nctr * sizeof *p->base);
		p->nbase = sp.nctr;
	}
	free(p->rate);
	p->rate = calloc(sp.nctr ? sp.nctr : 1, sizeof *p->rate);
	for (size_t i = 0; p->rate && i < sp.nctr; i++) {
		const struct sysfs_counter *pc = m->polls ? find_prev(p, i, &sp.ctr[i]) : NULL;

		if (pc)
			p->rate[i] = rate_of_e(ctr_lookup(d->driver, sp.ctr[i].name), sp.ctr[i].value, pc->value, dt);
	}
}

static void read_ethtool(struct dm_port *p, double dt, int first)
{
	uint32_t n;

	if (!p->netdev[0])
		return;
	p->have_mac = sysfs_netdev_mac(p->netdev, p->mac) == 0;   /* each poll: recorded in each snapshot */
	if ((p->eth_err = etht_read(&p->eth)) < 0)
		return;
	n = p->eth.n;
	if (!p->eth_base && n && p->eth.names) {   /* the first read: what the advances are counted from */
		p->eth_base_names = malloc(n * sizeof *p->eth_base_names);
		p->eth_base = malloc(n * sizeof *p->eth_base);
		if (p->eth_base_names && p->eth_base) {
			memcpy(p->eth_base_names, p->eth.names, n * sizeof *p->eth_base_names);
			memcpy(p->eth_base, p->eth.values, n * sizeof *p->eth_base);
			p->eth_nbase = n;
		} else {
			free(p->eth_base_names);
			free(p->eth_base);
			p->eth_base_names = NULL;
			p->eth_base = NULL;
		}
	}
	free(p->eth_rate);
	p->eth_rate = calloc(n ? n : 1, sizeof *p->eth_rate);
	if (!p->eth_rate)
		return;
	/* the string set changed size: its names were re-read, no rates this time */
	if (!first && p->eth_prev && p->eth_nprev == n)
		for (uint32_t i = 0; i < n; i++)
			p->eth_rate[i] = rate_of(p->eth.values[i], p->eth_prev[i], dt);
	free(p->eth_prev);
	p->eth_prev = malloc((n ? n : 1) * sizeof(uint64_t));
	if (p->eth_prev)
		memcpy(p->eth_prev, p->eth.values, n * sizeof(uint64_t));
	p->eth_nprev = p->eth_prev ? n : 0;
}

/* ---- QPs and the other resources ------------------------------------------ */

static void read_comm(uint32_t pid, char *buf, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%u/comm", pid);
	buf[0] = 0;
	/* the process may be gone by now: no comm then */
	if (!(f = fopen(path, "r")))
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int by_lqpn(const void *a, const void *b)
{
	const struct dm_qp *x = a, *y = b;

	return x->q.lqpn < y->q.lqpn ? -1 : x->q.lqpn > y->q.lqpn;
}

/* PSN advance mod 2^24 as a signed step: a retransmission moves it back. */
static struct dm_rate psn_rate(uint32_t cur, uint32_t prev, double dt)
{
	int32_t d = (int32_t)((cur - prev) & 0xffffff);
	struct dm_rate r = { 0, 0 };

	if (d >= 0x800000)
		d -= 0x1000000;
	if (dt > 0) {
		r.v = d / dt;
		r.valid = 1;
	}
	return r;
}

static void qp_rates(struct dm_dev *d, double dt)
{
	for (size_t i = 0; i < d->nqps; i++) {
		struct dm_qp *q = &d->qps[i];
		const struct dm_qp *o = d->nprev_qps ? bsearch(q, d->prev_qps, d->nprev_qps, sizeof *q, by_lqpn) : NULL;

		if (!o || q->q.type != o->q.type || (q->q.type != 2 && q->q.type != 3))
			continue;       /* RC and UC only */
		if ((q->q.have & o->q.have & NLP_HAVE_SQ_PSN))
			q->sq_rate = psn_rate(q->q.sq_psn, o->q.sq_psn, dt);
		if ((q->q.have & o->q.have & NLP_HAVE_RQ_PSN))
			q->rq_rate = psn_rate(q->q.rq_psn, o->q.rq_psn, dt);
	}
}

static int dump_into(struct devmon *m, struct dm_dev *d, uint8_t cmd, enum nlp_kind kind, struct nlp_vec *v)
{
	const uint8_t *b;
	size_t len;
	int rc;

	nlp_vec_clear(v);
	if ((rc = nls_dump(m->nl, cmd, d->index, &b, &len)) < 0)
		return rc;
	rc = nlp_parse(kind, b, len, v);
	if (rc <= NLP_KERNEL_ERR(0))
		return -(NLP_KERNEL_ERR(0) - rc);
	return rc < 0 ? -EPROTO : 0;
}

static void read_qps(struct devmon *m, struct dm_dev *d, double dt)
{
	struct nlp_vec v;

	nlp_vec_init(&v, NLP_QP);
	d->qp_err = dump_into(m, d, RDMA_NLDEV_CMD_RES_QP_GET, NLP_QP, &v);
	free(d->prev_qps);
	d->prev_qps = d->qps, d->nprev_qps = d->nqps;
	d->qps = calloc(v.n ? v.n : 1, sizeof *d->qps);
	d->nqps = 0;
	for (size_t i = 0; d->qps && i < v.n; i++) {
		struct dm_qp *q = &d->qps[d->nqps++];

		q->q = *NLP_AT(&v, struct nlp_qp, i);
		if (q->q.have & NLP_HAVE_KERN)
			scopy(q->comm, sizeof q->comm, q->q.own.kern_name);
		else if ((q->q.have & NLP_HAVE_PID) && !devmon_isolated())
			read_comm(q->q.own.pid, q->comm, sizeof q->comm);
	}
	nlp_vec_free(&v);
	if (d->qps)
		qsort(d->qps, d->nqps, sizeof *d->qps, by_lqpn);
	qp_rates(d, dt);
	dump_into(m, d, RDMA_NLDEV_CMD_RES_CQ_GET, NLP_CQ, &d->cqs);
	dump_into(m, d, RDMA_NLDEV_CMD_RES_MR_GET, NLP_MR, &d->mrs);
	dump_into(m, d, RDMA_NLDEV_CMD_RES_CM_ID_GET, NLP_CMID, &d->cmids);
	/* QP counters: only bindings that exist (rocetop never binds); a
	 * device without counter support (rxe: EOPNOTSUPP) just has none */
	if (dump_into(m, d, RDMA_NLDEV_CMD_STAT_GET, NLP_QPCNT, &d->qpcnts) < 0)
		nlp_vec_clear(&d->qpcnts);
	nl_ports(m, d);
}

void devmon_poll(struct devmon *m, uint64_t now_ns)
{
	int qp_due;

	now_ns = devmon_clock(m->polls, now_ns);
	sysfs_set_snapshot(m->polls);          /* replayed or recorded: which snapshot */
	qp_due = !m->polls || now_ns >= m->next_qp_ns;
	m->dt = m->polls && now_ns > m->last_ns ? (double)(now_ns - m->last_ns) / 1e9 : 0;
	m->qp_dt = m->polls && now_ns > m->last_qp_ns ? (double)(now_ns - m->last_qp_ns) / 1e9 : 0;
	for (size_t i = 0; i < m->ndevs; i++) {
		struct dm_dev *d = &m->devs[i];

		for (size_t j = 0; j < d->nports; j++) {
			struct dm_port *p = &d->ports[j];

			read_port(m, d, p, qp_due, m->dt);
			read_ethtool(p, m->dt, !m->polls);
			/* the MTUs follow the netdev's MTU (RoCE): read again each poll */
			if (d->verbs)
				vport_query(d->verbs, p->port, &p->active_mtu, &p->max_mtu);
		}
		if (qp_due && m->nl && d->have_index)
			read_qps(m, d, m->qp_dt);
	}
	if (qp_due) {
		m->last_qp_ns = now_ns;
		m->next_qp_ns = now_ns + (uint64_t)(m->cfg.qp_interval * 1e9);
	}
	m->last_ns = now_ns;
	m->polls++;
}

