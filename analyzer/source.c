/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.c — capture sources: live handles, non-blocking, polled together
 * through pcap_get_selectable_fd(); or one capture file,
 * read as fast as possible or paced on its timestamps by a virtual clock
 * (capture time = anchor + (wall time - wall anchor) x speed).
 *
 * A classic pcap file is read by pcapfile.c, in large chunks, frames
 * handed out where they lie: the full analysis of a 744 MB capture spends
 * less than half its time reading it that way.  libpcap then serves a
 * dead handle of the file's link type and snapshot length, for the BPF
 * filter (run per frame with pcap_offline_filter(), as libpcap does for
 * files), the names of link types and -w.  pcapng files are read there
 * too, each frame with its interface's link type (the filter is compiled
 * for each link type met); what pcapfile.c does not take is read by
 * libpcap, whose filter is applied here too: every frame of a file is read
 * and counted, so a frame's number is its position in the file as
 * Wireshark counts it (every packet block, across pcapng sections), with or
 * without a filter.
 *
 * Live handles are not in immediate mode: libpcap then uses TPACKET_V3,
 * whose ring is made of blocks holding frames back to back at their
 * captured size, handed over when a block is full or SOURCE_BLOCK_MS after
 * its first frame, so a busy link costs one wakeup per block rather than one
 * per frame.  (Immediate mode makes libpcap use TPACKET_V2 slots of the
 * snaplen each, 9 KiB, ~3,500 frames in 32 MiB, and a wakeup per frame: on a
 * veth pair it dropped a quarter of what tcpdump kept.)
 * The blocks a wakeup finds are read in one source_batch(): pcap_dispatch()
 * passes each frame where it lies in its block, which goes back to the
 * kernel once its last frame has been passed (source_next() uses
 * pcap_next_ex(), whose Linux version copies every frame out of the ring
 * first: the block may be handed back before its caller is done).  What is
 * copied per frame is its 24-byte pcap header, into the source_frame (its time
 * stamp made the source's precision).  The ring's geometry is libpcap's:
 * 256 KiB blocks (it sizes them for its largest snapshot length), -B bytes
 * of them; only their count and the block timeout are ours to set.
 *
 * Drop counters are read with PACKET_STATISTICS on the handle's socket
 * (not pcap_stats(): the kernel resets them on each read and libpcap keeps
 * 32-bit sums) and added up here in 64 bits; the interface's own drops
 * come from /proc/net/dev, counted from the moment the capture opened.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "nicdrop.h"
#include "pcapfile.h"
#include "roce.h"
#include "source.h"
#include "vsniff.h"

#define MAX_WATCH 64
#define V3_BLOCK (256u * 1024)  /* libpcap's TPACKET_V3 block (its MAXIMUM_SNAPLEN) */
#define WATCH_EVERY 1024          /* frames between polls of the watchers when busy */

struct handle {
	pcap_t *pc;                   /* for a pcapfile.c file: a dead handle */
	struct pcapfile *pf;
	int fd;
	int nsec;
	int linktype;
	int ng;                       /* a pcapng file read by pcapfile.c: link types per frame */
	const char *name;
	/* 64-bit sums of PACKET_STATISTICS, and /proc/net/dev rx drop+fifo at open */
	uint64_t recv, drop, freeze, dev_base;
	int dev_ok;
	struct nicdrop nd;            /* the NIC's own discards (ethtool -S) */
	uint64_t ring_bytes;
	uint32_t frame_max;           /* largest frame expected: min(snaplen, MTU + headers) */
	struct vsniff *vs;            /* -i RDMA_DEVICE: the verbs sniffer (vsniff.h); pc is a dead handle */
	/* -r A -r B: each file's next frame, read ahead to merge them by time */
	struct pcap_pkthdr fhdr;      /* a pcapfile.c file's last frame's header */
	struct pcap_pkthdr *ph;       /* the frame read ahead (has), its data */
	const u_char *pdata;
	uint64_t no;                  /* this file's frames read, filtered out or not */
	int has, done;
	int drained;                  /* live: its ring was found empty since the last poll */
};

struct watch {
	int fd;
	short events;
	void (*cb)(void *ctx, int fd, short revents);
	void *ctx;
};

struct source {
	struct source_cfg cfg;
	struct handle h[SOURCE_MAX_IFACES];
	unsigned n, rr;
	int live, nsec;
	char name[512];
	char err[PCAP_ERRBUF_SIZE + 128];
	pcap_t *dead;                 /* for the -w file's header */
	pcap_dumper_t *dump;
	char dump_path[256];          /* the -w file, for messages */
	int dump_errno;               /* its first write error, or 0 */
	struct bpf_program prog;      /* the filter of a file, run here */
	int has_prog;
	struct {                      /* ... for the other link types of a pcapng file */
		int dlt, ok;
		struct bpf_program prog;
	} xprog[8];
	unsigned nxprog;
	char *filter;                 /* our copy of cfg.filter */
	uint64_t frames, last_ts;     /* frames delivered */
	uint64_t file_no;             /* a file's frames read, filtered out or not */
	unsigned since_watch;
	int eof;
	/* replay */
	int pending;
	unsigned pend_idx;            /* the file of the pending frame (-r A -r B) */
	struct pcap_pkthdr pend_hdr;
	const u_char *pend_data;
	double speed;
	int paused, anchored;
	uint64_t anchor_cap, anchor_wall, frozen;
	struct watch w[MAX_WATCH];
	unsigned nw;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int set_filter(struct source *s, struct handle *h)
{
	struct bpf_program prog;

	if (!s->cfg.filter)
		return 0;
	if (!s->live) {
		/* a file's filter runs here, on every frame read, which is then
		 * counted: compiled for the file's link type and snapshot, as
		 * pcap_setfilter() would */
		if (pcap_compile(h->pc, &s->prog, s->cfg.filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
			snprintf(s->err, sizeof s->err, "%s", pcap_geterr(h->pc));
			return -1;
		}
		s->has_prog = 1;
		return 0;
	}
	if (pcap_compile(h->pc, &prog, s->cfg.filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    pcap_setfilter(h->pc, &prog) < 0) {
		snprintf(s->err, sizeof s->err, "%s", pcap_geterr(h->pc));
		return -1;
	}
	pcap_freecode(&prog);
	return 0;
}

/* The filter for a frame of a pcapng interface whose link type is not the
 * file's first one: compiled for that link type on first use.  A link type
 * the expression means nothing on (no UDP on InfiniBand, say) passes none. */
static int filter_other(struct source *s, struct handle *h, int dlt, const struct pcap_pkthdr *ph,
			const u_char *data)
{
	unsigned i;

	for (i = 0; i < s->nxprog && s->xprog[i].dlt != dlt; i++)
		;
	if (i == s->nxprog) {
		pcap_t *dead;

		if (i == sizeof s->xprog / sizeof s->xprog[0])
			return 0;
		dead = pcap_open_dead_with_tstamp_precision(dlt, pcap_snapshot(h->pc), PCAP_TSTAMP_PRECISION_NANO);
		s->xprog[i].dlt = dlt;
		s->xprog[i].ok = dead && pcap_compile(dead, &s->xprog[i].prog, s->cfg.filter, 1,
						      PCAP_NETMASK_UNKNOWN) == 0;
		if (dead)
			pcap_close(dead);
		s->nxprog++;
	}
	return s->xprog[i].ok && pcap_offline_filter(&s->xprog[i].prog, ph, data);
}

/* A pcapfile.c frame passes the filter. */
static int filter_frame(struct source *s, struct handle *h, const struct pcap_pkthdr *ph, const u_char *data)
{
	int dlt;

	if (!s->has_prog)
		return 1;
	dlt = pcapfile_frame_datalink(h->pf);
	if (dlt != h->linktype)
		return filter_other(s, h, dlt, ph, data);
	return pcap_offline_filter(&s->prog, ph, data);
}

static int check_linktype(struct source *s, struct handle *h)
{
	const char *n;

	h->linktype = pcap_datalink(h->pc);
	if (roce_linktype_supported(h->linktype))
		return 0;
	n = pcap_datalink_val_to_name(h->linktype);
	snprintf(s->err, sizeof s->err, "unsupported link type %s (%d)", n ? n : "?", h->linktype);
	return -1;
}

/* The interface's MTU, or 0 when it cannot be had. */
static unsigned iface_mtu(const char *iface)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unsigned mtu = 0;

	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", iface);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = (unsigned)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/* rx "drop" + "fifo" of iface in /proc/net/dev (this network namespace's);
 * -1 when it is not listed. */
static int dev_drops(const char *iface, uint64_t *v)
{
	FILE *f = fopen("/proc/net/dev", "re");
	char line[512];
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *c = strrchr(line, ':'), *p = line;
		unsigned long long st[5];

		if (!c)
			continue;
		*c = 0;
		while (*p == ' ')
			p++;
		if (strcmp(p, iface))
			continue;
		/* bytes packets errs drop fifo ... */
		if (sscanf(c + 1, "%llu %llu %llu %llu %llu", &st[0], &st[1], &st[2], &st[3], &st[4]) == 5) {
			*v = st[3] + st[4];
			rc = 0;
		}
		break;
	}
	fclose(f);
	return rc;
}

/* Bytes a frame of caplen takes in a TPACKET_V3 block: its tpacket3_hdr,
 * sockaddr_ll and alignment (plus room for a re-inserted VLAN tag). */
static uint64_t v3_footprint(uint32_t caplen)
{
	return 96 + ((caplen + 4 + 15) & ~15u);
}

/* The ring: -B bytes, or more when that would not hold --buffer-frames
 * frames of the largest size expected (the MTU's frame, up to the snaplen). */
static void size_ring(struct source *s, struct handle *h, const char *iface)
{
	unsigned mtu = iface_mtu(iface);
	uint64_t bytes = (uint64_t)s->cfg.buffer_kib * 1024, want;

	h->frame_max = (uint32_t)s->cfg.snaplen;
	if (mtu && mtu + 22 < h->frame_max)
		h->frame_max = mtu + 22;      /* Ethernet header, two VLAN tags */
	want = (uint64_t)s->cfg.buffer_frames * v3_footprint(h->frame_max);
	if (want > bytes)
		bytes = want;
	/* libpcap makes TPACKET_V3 blocks of 256 KiB, as many as it takes */
	bytes = (bytes + V3_BLOCK - 1) / V3_BLOCK * V3_BLOCK;
	if (bytes > SOURCE_BUFFER_MAX)
		bytes = SOURCE_BUFFER_MAX;
	h->ring_bytes = bytes;
}

/* ---- -i RDMA_DEVICE: the verbs sniffer (vsniff.c) --------------------------- */
static int open_verbs(struct source *s, struct handle *h, const char *dev)
{
	h->name = dev;
	if (!(h->vs = vsniff_open(dev, s->cfg.snaplen, s->err, sizeof s->err)))
		return SOURCE_E_OPEN;
	h->pc = vsniff_pcap(h->vs);
	h->nsec = 1;
	h->linktype = pcap_datalink(h->pc);
	h->fd = vsniff_fd(h->vs);
	if (vsniff_set_filter(h->vs, s->cfg.filter, s->err, sizeof s->err) < 0)
		return SOURCE_E_FILTER;
	return 0;
}
/* ---- end of the verbs sniffer ------------------------------------------------ */

/* 0, or the kind of failure with s->err set. */
static int open_live(struct source *s, struct handle *h, const char *iface)
{
	char eb[PCAP_ERRBUF_SIZE] = "";
	int rc;

	if (vsniff_is_rdma(iface))
		return open_verbs(s, h, iface);
	h->name = iface;
	h->pc = pcap_create(iface, eb);
	if (!h->pc) {
		snprintf(s->err, sizeof s->err, "%s", eb);
		return SOURCE_E_OPEN;
	}
	size_ring(s, h, iface);
	pcap_set_snaplen(h->pc, s->cfg.snaplen);
	pcap_set_promisc(h->pc, !s->cfg.no_promisc);
	/* no immediate mode: TPACKET_V3 blocks, handed over when full or after
	 * SOURCE_BLOCK_MS (see the top of this file) */
	pcap_set_timeout(h->pc, SOURCE_BLOCK_MS);
	pcap_set_buffer_size(h->pc, (int)h->ring_bytes);
	pcap_set_tstamp_precision(h->pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(h->pc);
	if (rc < 0) {
		const char *t = pcap_geterr(h->pc);

		/* PCAP_ERROR carries a text; the other codes may come with one */
		if (rc == PCAP_ERROR || !*t || !strcmp(t, pcap_statustostr(rc)))
			snprintf(s->err, sizeof s->err, "%s", *t ? t : pcap_statustostr(rc));
		else
			snprintf(s->err, sizeof s->err, "%s (%s)", pcap_statustostr(rc), t);
		if (rc == PCAP_ERROR_PERM_DENIED)
			snprintf(s->err + strlen(s->err), sizeof s->err - strlen(s->err),
				 "; run as root or give the binary cap_net_raw (see rocetop(8))");
		return SOURCE_E_OPEN;
	}
	h->nsec = pcap_get_tstamp_precision(h->pc) == PCAP_TSTAMP_PRECISION_NANO;
	if (check_linktype(s, h))
		return SOURCE_E_LINKTYPE;
	if (set_filter(s, h))
		return SOURCE_E_FILTER;
	if (pcap_setnonblock(h->pc, 1, eb) < 0) {
		snprintf(s->err, sizeof s->err, "%s", eb);
		return SOURCE_E_OPEN;
	}
	h->fd = pcap_get_selectable_fd(h->pc);
	if (h->fd < 0) {
		snprintf(s->err, sizeof s->err, "no selectable descriptor");
		return SOURCE_E_OPEN;
	}
	h->dev_ok = dev_drops(iface, &h->dev_base) == 0;
	nicdrop_open(&h->nd, iface, s->cfg.nic_drop_counters);
	return 0;
}

/* Why a capture file did not open, in our words where libpcap's are unclear,
 * and without libpcap's copy of the path (the caller prefixes it). */
static void file_open_error(struct source *s, const char *path, const char *eb)
{
	struct stat st;
	size_t pl = strlen(path);

	if (stat(path, &st) != 0)
		snprintf(s->err, sizeof s->err, "%s", strerror(errno));
	else if (S_ISREG(st.st_mode) && st.st_size == 0)
		snprintf(s->err, sizeof s->err, "empty file (not a pcap or pcapng capture)");
	else if (!strncmp(eb, path, pl) && !strncmp(eb + pl, ": ", 2))
		snprintf(s->err, sizeof s->err, "%s", eb + pl + 2);
	else
		snprintf(s->err, sizeof s->err, "%s", eb);
}

/* -r FILE: our pcapng reader where it can, else libpcap's; 0, or -1 with
 * s->err and *what saying what failed. */
static int open_file(struct source *s, const char *file, enum source_err *what)
{
	struct handle *h = &s->h[0];
	char eb[PCAP_ERRBUF_SIZE] = "";

	*what = SOURCE_E_OPEN;
	if (!s->n) {
		snprintf(s->name, sizeof s->name, "%s", file);
	} else {
		/* -r A -r B: the next handle; the source is named after them all */
		size_t nl = strlen(s->name);

		h = &s->h[s->n];
		snprintf(s->name + nl, sizeof s->name - nl, " + %s", file);
	}
	h->name = file;
	h->fd = -1;
	h->pf = pcapfile_open(file, 0);
	if (h->pf) {
		h->ng = pcapfile_pcapng(h->pf);
		h->pc = pcap_open_dead_with_tstamp_precision(pcapfile_datalink(h->pf), pcapfile_snapshot(h->pf),
							     PCAP_TSTAMP_PRECISION_NANO);
		if (!h->pc)
			snprintf(eb, sizeof eb, "out of memory");
	} else if (pcapfile_gz_error()) {
		/* gzip-compressed: libpcap reads none, so say what is inside */
		snprintf(eb, sizeof eb, "%s", pcapfile_gz_error());
	} else {
		h->pc = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, eb);
	}
	if (!h->pc) {
		file_open_error(s, file, eb);
		return -1;
	}
	s->n++;
	h->nsec = pcap_get_tstamp_precision(h->pc) == PCAP_TSTAMP_PRECISION_NANO;
	*what = SOURCE_E_LINKTYPE;
	if (check_linktype(s, h))
		return -1;
	if (h != &s->h[0])   /* compiled for the first file; other link types as a pcapng's */
		return 0;
	*what = SOURCE_E_FILTER;
	if (set_filter(s, h))
		return -1;
	s->nsec = h->nsec;
	return 0;
}

/* -i IFACE, repeatable: 0; -1 with s->err and *what saying what failed on
 * *bad; -2 with err said. */
static int open_ifaces(struct source *s, const struct source_cfg *cfg, enum source_err *what, const char **bad,
		       char *err, size_t errcap)
{
	int len = 0, rc;

	s->live = 1;
	s->nsec = 1;
	for (unsigned i = 0; i < cfg->nifaces; i++) {
		struct handle *h = &s->h[i];

		*bad = cfg->ifaces[i];
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(cfg->ifaces[k], cfg->ifaces[i])) {
				snprintf(err, errcap, "interface %s given twice", cfg->ifaces[i]);
				*what = SOURCE_E_USAGE;
				return -2;
			}
		s->n = i + 1;
		h->fd = -1;
		if ((rc = open_live(s, h, cfg->ifaces[i])) != 0) {
			*what = (enum source_err)rc;
			return -1;
		}
		s->nsec &= h->nsec;
		len += snprintf(s->name + len, sizeof s->name - (size_t)len, "%s%s", i ? "," : "", h->name);
		if (len >= (int)sizeof s->name)
			len = (int)sizeof s->name - 1;
	}
	return 0;
}

struct source *source_open(const struct source_cfg *cfg, enum source_err *what, char *err, size_t errcap)
{
	struct source *s = calloc(1, sizeof *s);
	const char *bad = "";
	int rc;

	*what = SOURCE_E_USAGE;
	if (!s) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	/* the filter is compiled again for each other link type a pcapng file
	 * holds, after the caller has let its string go */
	if (cfg->filter && !(s->cfg.filter = s->filter = strdup(cfg->filter))) {
		snprintf(err, errcap, "out of memory");
		*what = SOURCE_E_OPEN;
		free(s);
		return NULL;
	}
	/* frames longer than a jumbo frame: -s */
	if (s->cfg.snaplen <= 0)
		s->cfg.snaplen = SOURCE_SNAPLEN;
	if (s->cfg.buffer_kib <= 0)
		s->cfg.buffer_kib = SOURCE_BUFFER_KIB;
	if (!s->cfg.buffer_frames)
		s->cfg.buffer_frames = SOURCE_BUFFER_FRAMES;
	s->speed = cfg->speed > 0 ? cfg->speed : 0;
	if (!cfg->file == !cfg->nifaces) {
		snprintf(err, errcap, "give exactly one of -r FILE or -i IFACE (see --help)");
		source_close(s);
		return NULL;
	}
	if (cfg->file) {
		bad = cfg->file;
		rc = open_file(s, cfg->file, what);
		for (unsigned i = 1; !rc && i < cfg->nfiles; i++)
			rc = open_file(s, bad = cfg->files[i], what);
	} else {
		rc = open_ifaces(s, cfg, what, &bad, err, errcap);
	}
	if (!rc)
		return s;
	if (rc == -1 && *what == SOURCE_E_FILTER)
		snprintf(err, errcap, "filter '%s': %s", cfg->filter, s->err);
	else if (rc == -1)
		snprintf(err, errcap, "%s: %s", bad, s->err);
	source_close(s);
	return NULL;
}

struct source *source_open_watcher(const char *name)
{
	struct source *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->live = 1;   /* no handles: source_wait() polls the watched descriptors only */
	snprintf(s->name, sizeof s->name, "%s", name);
	return s;
}

void source_close(struct source *s)
{
	if (!s)
		return;
	if (s->dump)
		pcap_dump_close(s->dump);
	if (s->dead)
		pcap_close(s->dead);
	if (s->has_prog)
		pcap_freecode(&s->prog);
	for (unsigned i = 0; i < s->nxprog; i++)
		if (s->xprog[i].ok)
			pcap_freecode(&s->xprog[i].prog);
	free(s->filter);
	for (unsigned i = 0; i < s->n; i++) {
		if (s->h[i].vs)
			vsniff_close(s->h[i].vs);   /* closes its dead pc too */
		else if (s->h[i].pc)
			pcap_close(s->h[i].pc);
		pcapfile_close(s->h[i].pf);
		nicdrop_close(&s->h[i].nd);
	}
	free(s);
}

int source_dump_open(struct source *s, const char *path, char *err, size_t errcap)
{
	for (unsigned i = 1; i < s->n; i++)
		if (s->h[i].linktype != s->h[0].linktype) {
			snprintf(err, errcap, "-w %s: %s and %s have different link types (%s, %s); a pcap file holds one",
				 path, s->h[0].name, s->h[i].name, pcap_datalink_val_to_name(s->h[0].linktype),
				 pcap_datalink_val_to_name(s->h[i].linktype));
			return -1;
		}
	/* a replay keeps the file's own snaplen */
	s->dead = pcap_open_dead_with_tstamp_precision(s->h[0].linktype,
						       s->live ? s->cfg.snaplen : pcap_snapshot(s->h[0].pc),
						       s->nsec ? PCAP_TSTAMP_PRECISION_NANO :
						       PCAP_TSTAMP_PRECISION_MICRO);
	if (!s->dead) {
		snprintf(err, errcap, "-w %s: out of memory", path);
		return -1;
	}
	s->dump = s->dead ? pcap_dump_open(s->dead, path) : NULL;
	if (!s->dump) {
		snprintf(err, errcap, "%s: %s", path, s->dead ? pcap_geterr(s->dead) : "out of memory");
		return -1;
	}
	snprintf(s->dump_path, sizeof s->dump_path, "%s", path);
	return 0;
}

/* pcap_dump() returns nothing: a failed write only shows in the stream's
 * error flag, and errno right after it. */
static void dump_check(struct source *s)
{
	if (!s->dump_errno && ferror(pcap_dump_file(s->dump)))
		s->dump_errno = errno ? errno : EIO;
}

int source_dump_close(struct source *s, char *err, size_t errcap)
{
	int e;

	if (!s || !s->dump)
		return 0;
	if (pcap_dump_flush(s->dump) != 0 && !s->dump_errno)
		s->dump_errno = errno ? errno : EIO;
	dump_check(s);
	/* pcap_dump_close() is fclose(), whose result it drops: close a
	 * duplicate of the descriptor as well, which reports what close() would */
	e = dup(fileno(pcap_dump_file(s->dump)));
	pcap_dump_close(s->dump);
	s->dump = NULL;
	if (e >= 0 && close(e) != 0 && !s->dump_errno)
		s->dump_errno = errno;
	if (!s->dump_errno)
		return 0;
	snprintf(err, errcap, "-w %s: %s", s->dump_path, strerror(s->dump_errno));
	return -1;
}

int source_write_failed(const struct source *s)
{
	return s->dump_errno != 0;
}

/* ---- the virtual clock of a paced replay --------------------------------------------------- */

static uint64_t vclock(const struct source *s)
{
	uint64_t w;

	if (!s->anchored)
		return s->last_ts;
	if (s->paused || s->eof)
		return s->frozen;
	w = mono_ns() - s->anchor_wall;
	return s->anchor_cap + (uint64_t)((double)w * s->speed);
}

uint64_t source_now(const struct source *s)
{
	if (s->live)
		return real_ns();
	if (s->speed > 0)
		return vclock(s);
	return s->last_ts;
}

static void reanchor(struct source *s, uint64_t cap)
{
	s->anchor_cap = cap;
	s->anchor_wall = mono_ns();
	s->anchored = 1;
}

void source_set_speed(struct source *s, double speed)
{
	uint64_t now = source_now(s);

	if (speed < 0)
		speed = 0;
	if (s->live) {
		s->speed = speed;
		return;
	}
	if (s->speed > 0 && s->anchored)
		now = vclock(s);
	else if (s->pending)
		now = s->last_ts > 0 ? s->last_ts : now;
	s->speed = speed;
	if (speed > 0 && !s->paused && s->anchored)
		reanchor(s, now);
	else if (speed > 0 && !s->paused)
		s->anchored = 0;      /* anchors on the next frame */
	if (s->paused)
		s->frozen = now;
}

double source_speed(const struct source *s)
{
	return s->speed;
}

void source_pause(struct source *s, int on)
{
	if (!!on == s->paused)
		return;
	if (on) {
		s->frozen = source_now(s);
		s->paused = 1;
	} else {
		s->paused = 0;
		if (s->anchored)
			reanchor(s, s->frozen);
	}
}

int source_paused(const struct source *s)
{
	return s->paused;
}

/* ---- reading -------------------------------------------------------------------------------- */

static void run_watchers(struct source *s, struct pollfd *p, unsigned n)
{
	/* a callback may watch or unwatch descriptors: find each by fd again */
	for (unsigned i = 0; i < n; i++) {
		if (!p[i].revents)
			continue;
		for (unsigned k = 0; k < s->nw; k++)
			if (s->w[k].fd == p[i].fd) {
				s->w[k].cb(s->w[k].ctx, p[i].fd, p[i].revents);
				break;
			}
	}
}

static unsigned watch_fds(const struct source *s, struct pollfd *p)
{
	for (unsigned i = 0; i < s->nw; i++)
		p[i] = (struct pollfd){ .fd = s->w[i].fd, .events = s->w[i].events };
	return s->nw;
}

/* ms until the pending replay frame is due; -1 when none is waiting. */
static int due_ms(struct source *s)
{
	uint64_t now, ts;

	if (s->live || !s->pending || s->speed <= 0)
		return -1;
	if (s->paused)
		return 1000;
	if (!s->anchored)
		return 0;
	now = vclock(s);
	ts = s->pend_hdr.ts.tv_sec * 1000000000ull + (uint64_t)s->pend_hdr.ts.tv_usec * (s->h[0].nsec ? 1 : 1000);
	if (ts <= now)
		return 0;
	return (int)(((double)(ts - now) / s->speed) / 1e6) + 1;
}

int source_wait(struct source *s, int timeout_ms)
{
	struct pollfd p[SOURCE_MAX_IFACES + MAX_WATCH];
	unsigned n = 0, nh = 0;
	int rc, d;

	if (s->live) {
		for (unsigned i = 0; i < s->n; i++) {
			p[n++] = (struct pollfd){ .fd = s->h[i].fd, .events = POLLIN };
			s->h[i].drained = 0;   /* what the poll finds, the next read takes */
		}
		nh = n;
	} else if (!s->eof) {
		d = due_ms(s);
		if (d < 0 && !s->paused)
			timeout_ms = 0;   /* a fast replay is always ready */
		else if (d >= 0 && d < timeout_ms)
			timeout_ms = d;
	}
	n += watch_fds(s, p + n);
	s->since_watch = 0;
	if (!n) {
		if (timeout_ms > 0) {
			struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		return !s->live && !s->eof && !s->paused && due_ms(s) <= 0;
	}
	rc = poll(p, n, timeout_ms < 0 ? 0 : timeout_ms);
	if (rc > 0)
		run_watchers(s, p + nh, n - nh);
	if (!s->live)
		return !s->eof && !s->paused && due_ms(s) <= 0;
	for (unsigned i = 0; i < nh; i++)
		if (p[i].revents)
			return 1;
	return 0;
}

/* (inline, as file_frame(): every frame of a replay passes both) */
static inline __attribute__((always_inline)) void deliver(struct source *s, struct source_frame *f,
							   const struct pcap_pkthdr *h, const u_char *data, unsigned idx)
{
	const struct handle *hd = &s->h[idx];

	f->data = data;
	f->caplen = h->caplen;
	f->len = h->len;
	f->hdr = *h;
	f->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec * (hd->nsec ? 1 : 1000);
	if (hd->nsec && !s->nsec)
		f->hdr.ts.tv_usec /= 1000;
	else if (!hd->nsec && s->nsec)
		f->hdr.ts.tv_usec *= 1000;
	/* a pcapng file's interfaces may differ in link type */
	f->linktype = hd->ng ? pcapfile_frame_datalink(hd->pf) : hd->linktype;
	f->iface = idx;
	f->no = s->live ? s->frames + 1 : s->n > 1 ? hd->no : s->file_no;
	s->frames++;
	if (f->ts_ns > s->last_ts || !s->live)
		s->last_ts = f->ts_ns;
	if (s->dump && f->linktype == s->h[0].linktype) {   /* a pcap file holds one link type */
		errno = 0;
		pcap_dump((u_char *)s->dump, &f->hdr, data);
		dump_check(s);
	}
}

static int read_error(struct source *s, struct handle *h)
{
	snprintf(s->err, sizeof s->err, "%s", h->pf ? pcapfile_error(h->pf) :
		 h->vs ? vsniff_error(h->vs) : pcap_geterr(h->pc));
	return SOURCE_ERR;
}

/* pcap_next_ex() of a file, either reader. */
static inline __attribute__((always_inline)) int file_frame(struct source *s, struct handle *h,
							     struct pcap_pkthdr **ph, const u_char **data)
{
	int rc;

	if (!h->pf) {
		while ((rc = pcap_next_ex(h->pc, ph, data)) == 1) {
			s->file_no++;
			h->no++;
			if (!s->has_prog ||
			    (h->linktype == s->h[0].linktype ? pcap_offline_filter(&s->prog, *ph, *data)
							     : filter_other(s, h, h->linktype, *ph, *data)))
				return 1;
		}
		return rc;
	}
	while ((rc = pcapfile_next(h->pf, &h->fhdr, data)) == 1) {
		s->file_no++;
		h->no++;
		if (!s->has_prog || filter_frame(s, h, &h->fhdr, *data)) {
			*ph = &h->fhdr;
			return 1;
		}
	}
	return rc < 0 ? PCAP_ERROR : PCAP_ERROR_BREAK;
}

/* -r A -r B: the earliest of the files' next frames (the first file's on a
 * tie, as mergecap), each file read one frame ahead; *idx its file. */
static int merged_frame(struct source *s, unsigned *idx, struct pcap_pkthdr **ph, const u_char **data)
{
	uint64_t best_ts = 0;
	int best = -1;

	for (unsigned i = 0; i < s->n; i++) {
		struct handle *h = &s->h[i];
		uint64_t ts;

		if (!h->has && !h->done) {
			int rc = file_frame(s, h, &h->ph, &h->pdata);

			if (rc == 1) {
				h->has = 1;
			} else if (rc == PCAP_ERROR_BREAK) {
				h->done = 1;
			} else {
				*idx = i;
				return rc < 0 ? rc : PCAP_ERROR;
			}
		}
		if (!h->has)
			continue;
		ts = (uint64_t)h->ph->ts.tv_sec * 1000000000ull + (uint64_t)h->ph->ts.tv_usec * (h->nsec ? 1 : 1000);
		if (best < 0 || ts < best_ts) {
			best = (int)i;
			best_ts = ts;
		}
	}
	if (best < 0)
		return PCAP_ERROR_BREAK;
	*idx = (unsigned)best;
	s->h[best].has = 0;
	*ph = s->h[best].ph;
	*data = s->h[best].pdata;
	return 1;
}

static int next_live(struct source *s, struct source_frame *f)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned k = 0; k < s->n; k++) {
			unsigned i = (s->rr + k) % s->n;
			struct pcap_pkthdr *h;
			const u_char *data;
			int rc = s->h[i].vs ? vsniff_next(s->h[i].vs, &h, &data) :
				 pcap_next_ex(s->h[i].pc, &h, &data);

			if (rc == 1) {
				s->rr = i + 1;
				deliver(s, f, h, data, i);
				return SOURCE_FRAME;
			}
			if (rc < 0 && rc != PCAP_ERROR_BREAK)
				return read_error(s, &s->h[i]);
		}
		if (pass || s->cfg.timeout_ms <= 0 || !source_wait(s, s->cfg.timeout_ms))
			break;
	}
	return SOURCE_NONE;
}

static int next_file(struct source *s, struct source_frame *f)
{
	struct handle *h = &s->h[0];

	for (int pass = 0;; pass++) {
		if (!s->pending) {
			struct pcap_pkthdr *ph;
			const u_char *data;
			unsigned idx = 0;
			int rc = s->n > 1 ? merged_frame(s, &idx, &ph, &data) : file_frame(s, h, &ph, &data);

			if (rc == PCAP_ERROR_BREAK) {
				s->frozen = s->last_ts;
				s->eof = 1;
				return SOURCE_EOF;
			}
			if (rc < 0 && s->n > 1) {
				/* which file: "B: frame N at byte …" */
				char e[sizeof s->err];

				read_error(s, &s->h[idx]);
				snprintf(e, sizeof e, "%s", s->err);
				snprintf(s->err, sizeof s->err, "%.150s: %.200s", s->h[idx].name, e);
				return SOURCE_ERR;
			}
			if (rc < 0)
				return read_error(s, h);
			if (rc == 0)
				return SOURCE_NONE;
			if (s->speed <= 0 && !s->paused) {
				/* as fast as it reads: out at once, the header not copied to be held */
				deliver(s, f, ph, data, idx);
				return SOURCE_FRAME;
			}
			s->pend_hdr = *ph;
			s->pend_data = data;
			s->pend_idx = idx;
			s->pending = 1;
		}
		if (s->speed <= 0) {
			if (s->paused)
				goto wait;
			break;
		}
		if (!s->paused && !s->anchored) {
			reanchor(s, (uint64_t)s->pend_hdr.ts.tv_sec * 1000000000ull +
				 (uint64_t)s->pend_hdr.ts.tv_usec * (h->nsec ? 1 : 1000));
			break;
		}
		if (!s->paused && due_ms(s) == 0)
			break;
wait:
		if (pass || s->cfg.timeout_ms <= 0 || !source_wait(s, s->cfg.timeout_ms))
			return SOURCE_NONE;
	}
	s->pending = 0;
	deliver(s, f, &s->pend_hdr, s->pend_data, s->pend_idx);
	return SOURCE_FRAME;
}

/* Before reading: SOURCE_ERR (a failed -w), SOURCE_EOF, or 0. */
static int read_ended(struct source *s)
{
	if (s->dump_errno) {
		/* no silent loss: a capture that cannot be saved stops */
		snprintf(s->err, sizeof s->err, "-w %s: %s", s->dump_path, strerror(s->dump_errno));
		return SOURCE_ERR;
	}
	if (s->eof)
		return SOURCE_EOF;
	if (s->cfg.count && s->frames >= s->cfg.count) {
		s->frozen = source_now(s);
		s->eof = 1;
		return SOURCE_EOF;
	}
	return 0;
}

/* Busy: serves the watchers now and then (every WATCH_EVERY frames) without waiting. */
static void serve_watchers(struct source *s)
{
	struct pollfd p[MAX_WATCH];
	unsigned n;

	if (!s->nw || s->since_watch < WATCH_EVERY)
		return;
	n = watch_fds(s, p);
	s->since_watch = 0;
	if (poll(p, n, 0) > 0)
		run_watchers(s, p, n);
}

int source_next(struct source *s, struct source_frame *f)
{
	int rc = read_ended(s);

	if (rc)
		return rc;
	if (s->nw)
		s->since_watch++;
	serve_watchers(s);
	return s->live ? next_live(s, f) : next_file(s, f);
}

/* ---- batches: a live ring read in place ------------------------------------------------------ */

struct batch {
	struct source *s;
	pcap_t *pc;
	unsigned idx, n;
	source_frame_fn fn;
	void *ctx;
	int stop;
};

/* pcap_dispatch()'s callback: the frame where it lies in the ring block. */
static void batch_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct batch *b = (struct batch *)user;
	struct source_frame f;

	deliver(b->s, &f, h, data, b->idx);
	b->n++;
	if (b->fn(b->ctx, &f)) {
		/* non-blocking: only a flag, seen before the next frame */
		b->stop = 1;
		pcap_breakloop(b->pc);
	}
}

/* Handle i's ready frames, at most max: 0, or SOURCE_ERR. */
static int batch_handle(struct source *s, struct batch *b, unsigned i, unsigned max)
{
	struct handle *h = &s->h[i];
	unsigned before = b->n;
	int rc = 0;

	b->idx = i;
	b->pc = h->pc;
	if (h->vs) {   /* the verbs sniffer hands frames out one at a time */
		struct pcap_pkthdr *ph;
		const u_char *data;

		while (b->n - before < max && !b->stop && (rc = vsniff_next(h->vs, &ph, &data)) == 1)
			batch_frame((u_char *)b, ph, data);
		return rc < 0 && rc != PCAP_ERROR_BREAK ? read_error(s, h) : 0;
	}
	/* TPACKET_V3: every ready block, each frame passed in place; libpcap
	 * hands a block back to the kernel once its last frame has been passed */
	rc = pcap_dispatch(h->pc, (int)max, batch_frame, (u_char *)b);
	if (rc == PCAP_ERROR)
		return read_error(s, h);
	/* fewer than asked: the ring is empty now (libpcap would poll it again) */
	if (!b->stop && b->n - before < max)
		h->drained = 1;
	return 0;
}

int source_batch(struct source *s, unsigned max, source_frame_fn fn, void *ctx)
{
	struct batch b = { .s = s, .fn = fn, .ctx = ctx };
	int rc = SOURCE_NONE;

	if (!s->live) {
		struct source_frame f;

		while (b.n < max && (rc = source_next(s, &f)) == SOURCE_FRAME)
			if (b.n++, fn(ctx, &f))
				break;
		return b.n ? (int)b.n : rc;
	}
	if ((rc = read_ended(s)) != 0)
		return rc;
	if (s->cfg.count && max > s->cfg.count - s->frames)
		max = (unsigned)(s->cfg.count - s->frames);   /* -c: not a frame more */
	serve_watchers(s);
	for (int pass = 0; pass < 2; pass++) {
		unsigned first = s->rr;

		for (unsigned k = 0; k < s->n && b.n < max && !b.stop; k++) {
			unsigned i = (first + k) % s->n;

			if (s->h[i].drained)
				continue;
			if (batch_handle(s, &b, i, max - b.n) < 0)
				return SOURCE_ERR;
		}
		s->rr = (first + 1) % s->n;   /* the next batch starts with the next interface */
		if (b.n || pass || s->cfg.timeout_ms <= 0 || !source_wait(s, s->cfg.timeout_ms))
			break;
	}
	s->since_watch += b.n;
	return b.n ? (int)b.n : SOURCE_NONE;
}

const char *source_error(const struct source *s)
{
	return s->err;
}

int source_watch(struct source *s, int fd, short events, void (*cb)(void *ctx, int fd, short revents),
		 void *ctx)
{
	for (unsigned i = 0; i < s->nw; i++)
		if (s->w[i].fd == fd) {
			s->w[i] = (struct watch){ fd, events, cb, ctx };
			return 0;
		}
	if (s->nw == MAX_WATCH)
		return -1;
	s->w[s->nw++] = (struct watch){ fd, events, cb, ctx };
	return 0;
}

void source_unwatch(struct source *s, int fd)
{
	for (unsigned i = 0; i < s->nw; i++)
		if (s->w[i].fd == fd) {
			s->w[i] = s->w[--s->nw];
			return;
		}
}

#ifndef PACKET_FANOUT_FLAG_UNIQUEID
#define PACKET_FANOUT_FLAG_UNIQUEID 0x2000
#endif

int source_fanout(struct source *s, unsigned i, unsigned *group, const void *prog, unsigned len, char *err,
		  size_t errcap)
{
	struct sock_fprog fp = { (unsigned short)len, (struct sock_filter *)(uintptr_t)prog };
	int fd, v;
	socklen_t vl = sizeof v;

	if (!s->live || i >= s->n) {
		snprintf(err, errcap, "fanout: not a live interface");
		return -1;
	}
	if (s->h[i].vs) {
		snprintf(err, errcap, "%s: the verbs sniffer has no fanout (use --threads 1)", s->h[i].name);
		return -1;
	}
	fd = pcap_fileno(s->h[i].pc);
	/* the first member asks the kernel for an id no other group has */
	v = *group ? (int)(*group | PACKET_FANOUT_CBPF << 16)
		   : (int)(PACKET_FANOUT_CBPF << 16 | PACKET_FANOUT_FLAG_UNIQUEID);
	if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, sizeof v) < 0 ||
	    (!*group && getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, &vl) < 0) ||
	    setsockopt(fd, SOL_PACKET, PACKET_FANOUT_DATA, &fp, sizeof fp) < 0) {
		snprintf(err, errcap, "%s: PACKET_FANOUT: %s", s->h[i].name, strerror(errno));
		return -1;
	}
	if (!*group)
		*group = (unsigned)v & 0xffff;
	return 0;
}

void source_set_timeout(struct source *s, int timeout_ms)
{
	s->cfg.timeout_ms = timeout_ms;
}

int source_live(const struct source *s) { return s->live; }
int source_nsec(const struct source *s) { return s->nsec; }
int source_linktype(const struct source *s) { return s->h[0].linktype; }
const char *source_name(const struct source *s) { return s->name; }
unsigned source_count(const struct source *s) { return s->n; }
int source_eof(const struct source *s) { return s->eof; }

const char *source_iface(const struct source *s, unsigned i)
{
	return i < s->n ? s->h[i].name : NULL;
}

FILE *source_file(const struct source *s)
{
	if (s->live)
		return NULL;
	return s->h[0].pf ? pcapfile_file(s->h[0].pf) : pcap_file(s->h[0].pc);
}

struct pcapfile *source_direct(struct source *s)
{
	if (s->live || s->n != 1 || !s->h[0].pf || pcapfile_gz(s->h[0].pf) || s->has_prog || s->dump || s->speed > 0 || s->paused ||
	    s->pending || s->file_no || s->eof)
		return NULL;
	return s->h[0].pf;
}

void source_direct_done(struct source *s, uint64_t frames, uint64_t last_ts)
{
	s->file_no = s->frames = frames;
	if (frames)
		s->last_ts = last_ts;
	s->frozen = s->last_ts;
	s->eof = 1;
}

long long source_offset(const struct source *s)
{
	if (s->live)
		return -1;
	if (s->h[0].pf)
		return (long long)pcapfile_gz_offset(s->h[0].pf);   /* of the file's size */
	return pcap_file(s->h[0].pc) ? (long long)ftell(pcap_file(s->h[0].pc)) : -1;
}

/* Adds what PACKET_STATISTICS says (and resets) to the handle's sums. */
static void read_kstats(struct handle *h)
{
	struct tpacket_stats_v3 k;
	socklen_t len = sizeof k;

	if (h->vs) {   /* no socket: frames delivered, completions in error */
		vsniff_stats(h->vs, &h->recv, &h->drop);
		return;
	}
	memset(&k, 0, sizeof k);
	if (getsockopt(pcap_fileno(h->pc), SOL_PACKET, PACKET_STATISTICS, &k, &len) < 0)
		return;
	h->recv += k.tp_packets;     /* the kernel counts the dropped ones in */
	h->drop += k.tp_drops;
	if (len >= sizeof k)
		h->freeze += k.tp_freeze_q_cnt;
}

void source_stats(struct source *s, unsigned i, struct source_stats *st)
{
	struct handle *h;
	uint64_t dev;

	memset(st, 0, sizeof *st);
	if (!s->live || i >= s->n)
		return;
	h = &s->h[i];
	read_kstats(h);
	st->valid = 1;
	st->recv = h->recv;
	st->drop = h->drop;
	st->freeze = h->freeze;
	if (h->dev_ok && dev_drops(h->name, &dev) == 0) {
		st->ifdrop_valid = 1;
		st->ifdrop = dev >= h->dev_base ? dev - h->dev_base : 0;
	}
	if (nicdrop_read(&h->nd, &st->nicdrop) == 0) {
		st->nicdrop_valid = 1;
		st->nicdrop_names = h->nd.found;
	}
	st->ring_bytes = h->ring_bytes;
	st->ring_frames = h->ring_bytes / v3_footprint(h->frame_max);
}

void source_stats_restart(struct source *s)
{
	for (unsigned i = 0; s->live && i < s->n; i++) {
		read_kstats(&s->h[i]);
		s->h[i].recv = s->h[i].drop = s->h[i].freeze = 0;
	}
}

void source_stats_total(struct source *s, struct source_stats *st)
{
	memset(st, 0, sizeof *st);
	for (unsigned i = 0; i < s->n; i++) {
		struct source_stats one;

		source_stats(s, i, &one);
		if (!one.valid)
			continue;
		st->valid = 1;
		st->recv += one.recv;
		st->drop += one.drop;
		st->freeze += one.freeze;
		st->ifdrop += one.ifdrop;
		st->ifdrop_valid |= one.ifdrop_valid;
		st->nicdrop += one.nicdrop;
		st->nicdrop_valid |= one.nicdrop_valid;
		st->ring_bytes += one.ring_bytes;
		st->ring_frames += one.ring_frames;
	}
}

/* ---- privileges ------------------------------------------------------------------------------- */

/* Clears every capability set of this thread (always allowed). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	return (int)syscall(SYS_capset, &h, d);
}

/* Every capability goes (effective, permitted, inheritable; the ambient set
 * with them), no exec may gain new ones, and capget() must show none left. */
int source_shed_capabilities(char *err, size_t errcap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	if (drop_caps() != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errcap, "cannot drop capabilities: %s", strerror(errno));
		return -1;
	}
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0) {
		snprintf(err, errcap, "cannot read capabilities back: %s", strerror(errno));
		return -1;
	}
	if (d[0].effective | d[1].effective | d[0].permitted | d[1].permitted | d[0].inheritable | d[1].inheritable) {
		snprintf(err, errcap, "capabilities are still held after dropping them; refusing to go on");
		return -1;
	}
	return 0;
}

int source_drop_privileges(const char *user, char *err, size_t errcap)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(err, errcap, "-Z %s: %s", user, errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (geteuid() != 0 && getuid() != 0) {
		/* not root: only becoming ourselves (and shedding file capabilities) is possible */
		if (pw->pw_uid != getuid()) {
			snprintf(err, errcap, "-Z %s: only root can change to another user", user);
			return -1;
		}
	} else if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
		   setuid(pw->pw_uid) != 0) {
		snprintf(err, errcap, "-Z %s: cannot change to uid %u gid %u: %s", user, (unsigned)pw->pw_uid,
			 (unsigned)pw->pw_gid, strerror(errno));
		return -1;
	}
	if (drop_caps() != 0) {
		snprintf(err, errcap, "-Z %s: cannot drop capabilities: %s", user, strerror(errno));
		return -1;
	}
	if (pw->pw_uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
		snprintf(err, errcap, "-Z %s: root could be regained; refusing to go on", user);
		return -1;
	}
	if (getgid() != pw->pw_gid || getuid() != pw->pw_uid) {
		snprintf(err, errcap, "-Z %s: the change of user did not take", user);
		return -1;
	}
	return 0;
}
