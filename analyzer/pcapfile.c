/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcapfile.c — classic pcap files read in large chunks (see pcapfile.h).
 *
 *   file header, 24 bytes  magic | version 2.4 | thiszone | sigfigs | snaplen | linktype
 *   each record            ts_sec | ts_usec or ts_nsec | caplen | len  (4 bytes each,
 *                          in the byte order of the magic) ‖ caplen bytes
 *
 * Why read() of 1 MiB: over a 744 MB, 1,000,000-frame capture in the page
 * cache, a loop touching every record costs 74 ns per frame with 256 KiB or
 * 1 MiB reads, 81 with 4 MiB, 107 with 16 MiB (the chunk falls out of the
 * cache between the kernel's copy and our loads), 150 with mmap() (a page
 * fault every few pages) and 181 with mmap(MAP_POPULATE); libpcap's loop
 * costs 165..185 (stdio reads 4 KiB at a time, then every frame is copied
 * once more).  With the CRC of every frame, as the analysis does, read()
 * of 256 KiB..4 MiB gives 93, mmap() 120.
 *
 * On a file of more than a few chunks, a second thread does the read()s
 * into a ring of RA_SLOTS chunk buffers while the first one decodes: the
 * kernel's copy out of the page cache (about half the cost of a replay)
 * runs on the other core, and the reader only copies each chunk from a
 * buffer that is still in the shared cache.
 *
 * pcapng is read here too (below), interface by interface.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pcapfile.h"

#define MAGIC_US 0xa1b2c3d4u
#define MAGIC_NS 0xa1b23c4du
#define FILE_HDR 24
#define REC_HDR 16
#define MAX_CAPLEN 262144u        /* libpcap's MAXIMUM_SNAPLEN: a longer record is damage */
#define RA_SLOTS 4                /* read-ahead chunks */
#define REC_ROOM 16384u           /* room for a partial record at first: grown to MAX_CAPLEN */
#define NG_SHB 0x0A0D0D0Au        /* pcapng section header block: the same in both orders */
#define NG_BOM 0x1A2B3C4Du
#define NG_BLOCK_MAX (MAX_CAPLEN + 65536u) /* longest block held whole; longer non-packet blocks are skipped */

/* A pcapng interface (IDB): its link type, snapshot and timestamp units. */
struct ngif {
	int dlt;
	uint32_t snap;
	uint64_t units;               /* per second: if_tsresol, 10^6 by default */
	int64_t offset;               /* if_tsoffset, seconds */
};

/* The read-ahead ring: the thread fills slots in order, the reader empties
 * them in order.  n < 0 carries the read() errno, n == 0 the end of file. */
struct readahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	size_t chunk;
	uint8_t *data[RA_SLOTS];
	ssize_t n[RA_SLOTS];
	int err[RA_SLOTS];
	unsigned head, tail;          /* filled: [tail, head); counts, modulo RA_SLOTS */
	int stop, done;
};

struct pcapfile {
	FILE *f;
	int fd;
	int swapped, nsec, dlt, snapshot;
	int failed, at_eof;
	uint8_t *buf;
	size_t cap, chunk;
	size_t off, have;             /* the unread bytes are buf[off..have) */
	uint64_t pos;                 /* file offset of buf[0] */
	uint64_t frames;              /* records returned */
	char err[PCAP_ERRBUF_SIZE + 64];
	struct readahead *ra;         /* NULL: read() in the caller's thread */
	int ng;                       /* pcapng: the interfaces of the current section */
	struct ngif *ifs;
	unsigned nifs, capifs;
	int frame_dlt;                /* link type of the last frame returned */
};

static void *ra_main(void *arg)
{
	struct readahead *ra = arg;

	for (;;) {
		unsigned slot;
		ssize_t n;

		pthread_mutex_lock(&ra->mu);
		while (!ra->stop && ra->head - ra->tail == RA_SLOTS)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			return NULL;
		}
		slot = ra->head % RA_SLOTS;
		pthread_mutex_unlock(&ra->mu);
		do
			n = read(ra->fd, ra->data[slot], ra->chunk);
		while (n < 0 && errno == EINTR);
		pthread_mutex_lock(&ra->mu);
		ra->n[slot] = n;
		ra->err[slot] = n < 0 ? errno : 0;
		ra->head++;
		if (n <= 0)
			ra->done = 1;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (n <= 0)
			return NULL;
	}
}

static struct readahead *ra_start(int fd, size_t chunk)
{
	struct readahead *ra = calloc(1, sizeof *ra);
	int i;

	if (!ra)
		return NULL;
	ra->fd = fd;
	ra->chunk = chunk;
	for (i = 0; i < RA_SLOTS; i++)
		if (!(ra->data[i] = malloc(chunk)))
			goto fail;
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->thread, NULL, ra_main, ra) == 0)
		return ra;
	pthread_cond_destroy(&ra->cv);
	pthread_mutex_destroy(&ra->mu);
fail:
	for (i = 0; i < RA_SLOTS; i++)
		free(ra->data[i]);
	free(ra);
	return NULL;
}

static void ra_stop(struct readahead *ra)
{
	pthread_mutex_lock(&ra->mu);
	ra->stop = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->thread, NULL);
	pthread_cond_destroy(&ra->cv);
	pthread_mutex_destroy(&ra->mu);
	for (int i = 0; i < RA_SLOTS; i++)
		free(ra->data[i]);
	free(ra);
}

/* One chunk's worth of the file into dst, as read() would give it. */
static ssize_t ra_read(struct readahead *ra, uint8_t *dst)
{
	unsigned slot;
	ssize_t n;

	pthread_mutex_lock(&ra->mu);
	while (ra->head == ra->tail)
		pthread_cond_wait(&ra->cv, &ra->mu);
	slot = ra->tail % RA_SLOTS;
	n = ra->n[slot];
	errno = ra->err[slot];
	pthread_mutex_unlock(&ra->mu);
	if (n > 0)
		memcpy(dst, ra->data[slot], (size_t)n);
	pthread_mutex_lock(&ra->mu);
	if (n > 0)            /* an end or an error stays for the next call */
		ra->tail++;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	if (n < 0)
		errno = ra->err[slot];
	return n;
}

/* The DLT_ value libpcap gives these LINKTYPE_ values (pcap-linktype(7)):
 * itself, but for LINKTYPE_RAW.  Others go to libpcap. */
static int linktype_dlt(uint32_t lt)
{
	switch (lt) {
	case 1: case 113: case 228: case 229: case 276: case 197: case 247:
		return (int)lt;
	case 101:
		return DLT_RAW;           /* 12 or 14, by platform */
	}
	return -1;
}

static size_t read_full(int fd, uint8_t *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

static int ng_next(struct pcapfile *pf, struct pcap_pkthdr *h, const uint8_t **data, int stop_at_idb);

static struct pcapfile *pf_new(FILE *f, size_t chunk, uint64_t fsize)
{
	struct pcapfile *pf = calloc(1, sizeof *pf);

	if (!pf)
		return NULL;
	pf->chunk = chunk ? chunk : PCAPFILE_CHUNK;
	/* a file smaller than a chunk needs no buffer larger than itself (a
	 * file still growing is read on in chunks of its size then) */
	if (fsize < pf->chunk)
		pf->chunk = fsize < 4096 ? 4096 : (size_t)fsize;
	/* room for a chunk after a record left unread: fill() makes more
	 * when a longer one needs it */
	pf->cap = pf->chunk + REC_HDR + REC_ROOM;
	pf->buf = malloc(pf->cap);
	if (!pf->buf) {
		free(pf);
		return NULL;
	}
	pf->f = f;
	pf->fd = fileno(f);
	return pf;
}

/* A pcapng file, read from its start up to its first interface, which
 * gives the file's link type and snapshot as libpcap gives them. */
static struct pcapfile *ng_open(FILE *f, size_t chunk, uint64_t fsize)
{
	struct pcapfile *pf;
	struct pcap_pkthdr h;
	const uint8_t *d;

	if (lseek(fileno(f), 0, SEEK_SET) != 0 || !(pf = pf_new(f, chunk, fsize)))
		return NULL;
	pf->ng = pf->nsec = 1;
	if (ng_next(pf, &h, &d, 1) != 2 || linktype_dlt((uint32_t)pf->ifs[0].dlt) < 0) {
		free(pf->ifs);
		free(pf->buf);
		free(pf);
		return NULL;
	}
	pf->dlt = pf->frame_dlt = pf->ifs[0].dlt;
	pf->snapshot = (int)(pf->ifs[0].snap == 0 || pf->ifs[0].snap > INT32_MAX ? MAX_CAPLEN : pf->ifs[0].snap);
	return pf;
}

struct pcapfile *pcapfile_open(const char *path, size_t chunk)
{
	return pcapfile_open_flags(path, chunk, 0);
}

struct pcapfile *pcapfile_open_flags(const char *path, size_t chunk, unsigned flags)
{
	struct pcapfile *pf;
	uint8_t h[FILE_HDR];
	uint32_t magic, snaplen, lt;
	uint16_t major, minor;
	struct stat st;
	int swapped;
	FILE *f;

	if (!strcmp(path, "-") || !(f = fopen(path, "rb")))
		return NULL;
	/* regular files only: a pipe cannot be handed to libpcap once read */
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || read_full(fileno(f), h, FILE_HDR) != FILE_HDR)
		goto other;
	memcpy(&magic, h, 4);
	if (magic == NG_SHB) {
		if (!(pf = ng_open(f, chunk, (uint64_t)st.st_size)))
			goto other;
		goto opened;
	}
	swapped = magic == __builtin_bswap32(MAGIC_US) || magic == __builtin_bswap32(MAGIC_NS);
	if (swapped)
		magic = __builtin_bswap32(magic);
	memcpy(&major, h + 4, 2);
	memcpy(&minor, h + 6, 2);
	memcpy(&snaplen, h + 16, 4);
	memcpy(&lt, h + 20, 4);
	if (swapped) {
		major = __builtin_bswap16(major);
		minor = __builtin_bswap16(minor);
		snaplen = __builtin_bswap32(snaplen);
		lt = __builtin_bswap32(lt);
	}
	/* 2.3 and older may swap caplen and len; the link type's top 6 bits
	 * carry flags (FCS length) */
	if ((magic != MAGIC_US && magic != MAGIC_NS) || major != 2 || minor != 4 || linktype_dlt(lt) < 0)
		goto other;
	if (!(pf = pf_new(f, chunk, (uint64_t)st.st_size)))
		goto other;
	pf->swapped = swapped;
	pf->nsec = magic == MAGIC_NS;
	pf->dlt = pf->frame_dlt = linktype_dlt(lt);
	/* as libpcap 1.10's pcap_adjust_snapshot(): it may exceed MAX_CAPLEN */
	pf->snapshot = (int)(snaplen == 0 || snaplen > INT32_MAX ? MAX_CAPLEN : snaplen);
	pf->pos = FILE_HDR;
opened:
	posix_fadvise(pf->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/* worth a thread only when there are chunks to read ahead */
	if (!(flags & PCAPFILE_NO_READAHEAD) && (uint64_t)st.st_size > FILE_HDR + (uint64_t)RA_SLOTS * pf->chunk)
		pf->ra = ra_start(pf->fd, pf->chunk);
	return pf;
other:
	fclose(f);
	return NULL;
}

void pcapfile_close(struct pcapfile *pf)
{
	if (!pf)
		return;
	if (pf->ra)
		ra_stop(pf->ra);
	fclose(pf->f);
	free(pf->ifs);
	free(pf->buf);
	free(pf);
}

__attribute__((format(printf, 2, 3)))
static int damaged(struct pcapfile *pf, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(pf->err, sizeof pf->err, "frame %llu at byte %llu: ", (unsigned long long)pf->frames + 1,
			 (unsigned long long)(pf->pos + pf->off));

	va_start(ap, fmt);
	vsnprintf(pf->err + n, sizeof pf->err - (size_t)n, fmt, ap);
	va_end(ap);
	pf->failed = 1;
	return -1;
}

/* Makes need unread bytes available (need <= pf->cap - pf->chunk), fewer
 * only at the end of the file.  The unread bytes move to the front of the
 * buffer only when a chunk no longer fits behind them: one partial record
 * per chunk; the buffer grows when a chunk does not fit behind a record
 * longer than any before (up to chunk + REC_HDR + MAX_CAPLEN). */
static int fill(struct pcapfile *pf, size_t need)
{
	while (pf->have - pf->off < need && !pf->at_eof) {
		ssize_t n;

		if (pf->cap - pf->have < pf->chunk) {
			memmove(pf->buf, pf->buf + pf->off, pf->have - pf->off);
			pf->pos += pf->off;
			pf->have -= pf->off;
			pf->off = 0;
		}
		if (pf->cap - pf->have < pf->chunk) {
			size_t cap = pf->chunk + NG_BLOCK_MAX; /* the longest record or block held whole */
			uint8_t *b = realloc(pf->buf, cap);

			if (!b)
				return damaged(pf, "error reading dump file: %s", strerror(ENOMEM));
			pf->buf = b;
			pf->cap = cap;
		}
		n = pf->ra ? ra_read(pf->ra, pf->buf + pf->have) : read(pf->fd, pf->buf + pf->have, pf->chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return damaged(pf, "error reading dump file: %s", strerror(errno));
		if (n == 0)
			pf->at_eof = 1;
		pf->have += (size_t)n;
	}
	return 0;
}

/* ---- pcapng (draft-ietf-opsawg-pcapng): read here, interface by
 * interface, so that a file whose interfaces differ in link type (an
 * Ethernet port and an ERF or InfiniBand one, as ibdump and merged
 * captures make) is read whole; libpcap stops at the first interface of
 * another link type.  Each frame carries its interface's link type
 * (pcapfile_frame_datalink()); the file's is its first interface's.
 *
 *   block   type | total length | body | total length   (4-byte aligned)
 *   SHB     0x0A0D0D0A | len | 0x1A2B3C4D (byte order) | major 1 | minor | section length | options
 *   IDB 1   link type (2) | reserved (2) | snaplen | options (if_tsresol 9, if_tsoffset 14)
 *   EPB 6   interface | ts high | ts low | caplen | len | data, padded | options
 *   SPB 3   len | data (caplen: the block's room, the snaplen of interface 0)
 *   OPB 2   interface (2) | drops (2) | ts high | ts low | caplen | len | data
 * Other blocks (name resolution, statistics, custom, …) are skipped. */

static uint32_t ng32(const struct pcapfile *pf, const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return pf->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t ng16(const struct pcapfile *pf, const uint8_t *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return pf->swapped ? __builtin_bswap16(v) : v;
}

/* An IDB's options: if_tsresol and if_tsoffset. */
static void ng_idb_options(const struct pcapfile *pf, struct ngif *i, const uint8_t *o, const uint8_t *end)
{
	while (end - o >= 4) {
		uint16_t code = ng16(pf, o), olen = ng16(pf, o + 2);

		o += 4;
		if (code == 0 || olen > end - o)
			break;
		if (code == 9 && olen >= 1) {
			unsigned e = o[0] & 127;

			if (o[0] & 128)
				i->units = e < 64 ? 1ull << e : 0;
			else
				for (i->units = 1; e--;)
					i->units = i->units > UINT64_MAX / 10 ? 0 : i->units * 10;
		} else if (code == 14 && olen >= 8) {
			uint64_t v;

			memcpy(&v, o, 8);
			i->offset = (int64_t)(pf->swapped ? __builtin_bswap64(v) : v);
		}
		o += (olen + 3u) & ~3u;
	}
}

static int ng_idb(struct pcapfile *pf, const uint8_t *b, uint32_t len)
{
	struct ngif *i;
	int dlt;

	if (len < 20)
		return damaged(pf, "interface description block of %u bytes", len);
	if (pf->nifs == pf->capifs) {
		unsigned n = pf->capifs ? pf->capifs * 2 : 4;
		struct ngif *a = realloc(pf->ifs, n * sizeof *a);

		if (!a)
			return damaged(pf, "out of memory");
		pf->ifs = a;
		pf->capifs = n;
	}
	i = &pf->ifs[pf->nifs++];
	dlt = linktype_dlt(ng16(pf, b + 8));
	*i = (struct ngif){ .dlt = dlt >= 0 ? dlt : ng16(pf, b + 8), .snap = ng32(pf, b + 12), .units = 1000000 };
	ng_idb_options(pf, i, b + 16, b + len - 4);
	if (!i->units)
		return damaged(pf, "interface %u: timestamp resolution out of range", pf->nifs - 1);
	return 0;
}

/* A packet block into h and *data; 0 when the block holds none. */
static int ng_packet(struct pcapfile *pf, uint32_t type, const uint8_t *b, uint32_t len, struct pcap_pkthdr *h,
		     const uint8_t **data)
{
	uint32_t ifn, caplen, wirelen, hdr = type == 3 ? 12 : 28;
	uint64_t t = 0, sec;
	const struct ngif *i;

	if (len < hdr + 4)
		return damaged(pf, "packet block of %u bytes", len);
	ifn = type == 6 ? ng32(pf, b + 8) : type == 2 ? ng16(pf, b + 8) : 0;
	if (ifn >= pf->nifs)
		return damaged(pf, "packet of interface %u, which was not described", ifn);
	i = &pf->ifs[ifn];
	if (type == 3) {
		wirelen = ng32(pf, b + 8);
		caplen = wirelen < len - 16 ? wirelen : len - 16;
		if (i->snap && caplen > i->snap)
			caplen = i->snap;
	} else {
		t = (uint64_t)ng32(pf, b + 12) << 32 | ng32(pf, b + 16);
		caplen = ng32(pf, b + 20);
		wirelen = ng32(pf, b + 24);
		if (caplen > len - hdr - 4)
			return damaged(pf, "packet of %u captured bytes in a block of %u", caplen, len);
	}
	if (caplen > MAX_CAPLEN)
		return damaged(pf, "invalid packet capture length %u, bigger than maximum of %u", caplen, MAX_CAPLEN);
	sec = t / i->units;
	h->ts.tv_sec = (time_t)(sec + (uint64_t)i->offset);
	h->ts.tv_usec = (suseconds_t)((unsigned __int128)(t % i->units) * 1000000000u / i->units);
	h->caplen = caplen > (uint32_t)pf->snapshot ? (uint32_t)pf->snapshot : caplen;
	h->len = wirelen;
	*data = b + hdr;
	pf->frame_dlt = i->dlt;
	return 1;
}

/* A section header: its byte order; the interfaces start again. */
static int ng_shb(struct pcapfile *pf, const uint8_t *b)
{
	uint32_t bom;

	memcpy(&bom, b + 8, 4);
	if (bom != NG_BOM && bom != __builtin_bswap32(NG_BOM))
		return damaged(pf, "section header with byte-order magic 0x%08x", bom);
	pf->swapped = bom != NG_BOM;
	if (ng16(pf, b + 12) != 1)
		return damaged(pf, "pcapng major version %u", ng16(pf, b + 12));
	pf->nifs = 0;
	return 0;
}

/* Skips the rest of a block too long to hold (its first bytes are read). */
static int ng_skip(struct pcapfile *pf, uint64_t n)
{
	while (n) {
		size_t have = pf->have - pf->off, k = have < n ? have : (size_t)n;

		pf->off += k;
		n -= k;
		if (n && (fill(pf, 1) < 0 || pf->have == pf->off))
			return pf->failed ? -1 : damaged(pf, "truncated block");
	}
	return 0;
}

/* 1: a frame; 0: end of file; -1: damage.  stop_at_idb: return 2 after the
 * first interface (pcapfile_open() learns the file's link type). */
static int ng_next(struct pcapfile *pf, struct pcap_pkthdr *h, const uint8_t **data, int stop_at_idb)
{
	for (;;) {
		const uint8_t *b;
		uint32_t type, len;
		size_t avail;
		int rc = 0;

		if (pf->have - pf->off < 12 && fill(pf, 12) < 0)
			return -1;
		avail = pf->have - pf->off;
		if (avail < 12)
			return avail ? damaged(pf, "truncated block header; only %zu bytes", avail) : 0;
		b = pf->buf + pf->off;
		memcpy(&type, b, 4);
		if (type == NG_SHB && ng_shb(pf, b) < 0)
			return -1;
		type = ng32(pf, b);
		len = ng32(pf, b + 4);
		if (len < 12 || len % 4)
			return damaged(pf, "block of type 0x%x with length %u", type, len);
		if (len > NG_BLOCK_MAX) {
			if (type == 1 || type == 2 || type == 3 || type == 6)
				return damaged(pf, "block of type %u with length %u, more than %u", type, len, NG_BLOCK_MAX);
			if (ng_skip(pf, len) < 0)
				return -1;
			continue;
		}
		if (avail < len && fill(pf, len) < 0)
			return -1;
		if (pf->have - pf->off < len)
			return damaged(pf, "truncated block; %u bytes, only %zu", len, pf->have - pf->off);
		b = pf->buf + pf->off;
		if (type == 1)
			rc = ng_idb(pf, b, len);
		else if (type == 2 || type == 3 || type == 6)
			rc = ng_packet(pf, type, b, len, h, data);
		if (rc < 0)
			return -1;
		pf->off += len;
		if (rc == 1) {
			pf->frames++;
			return 1;
		}
		if (type == 1 && stop_at_idb)
			return 2;
	}
}

int pcapfile_next(struct pcapfile *pf, struct pcap_pkthdr *h, const uint8_t **data)
{
	const uint8_t *r;
	uint32_t v[4], caplen, snap = (uint32_t)pf->snapshot;
	size_t avail;

	if (pf->failed)
		return -1;
	if (pf->ng)
		return ng_next(pf, h, data, 0);
	if (pf->have - pf->off < REC_HDR && fill(pf, REC_HDR) < 0)
		return -1;
	avail = pf->have - pf->off;
	if (avail < REC_HDR) {
		if (!avail)
			return 0;
		return damaged(pf, "truncated dump file; tried to read %d header bytes, only got %zu", REC_HDR, avail);
	}
	memcpy(v, pf->buf + pf->off, sizeof v);
	if (pf->swapped)
		for (int i = 0; i < 4; i++)
			v[i] = __builtin_bswap32(v[i]);
	caplen = v[2];
	if (caplen > MAX_CAPLEN) {   /* libpcap's words */
		if (caplen > snap)
			return damaged(pf, "invalid packet capture length %u, bigger than snaplen of %d", caplen,
				       pf->snapshot);
		return damaged(pf, "invalid packet capture length %u, bigger than maximum of %u", caplen, MAX_CAPLEN);
	}
	if (avail < REC_HDR + caplen) {
		if (fill(pf, REC_HDR + caplen) < 0)
			return -1;
		avail = pf->have - pf->off;
		if (avail < REC_HDR + caplen) {
			/* libpcap reads up to the snapshot length, then skips the rest */
			uint32_t want = caplen > snap && avail - REC_HDR < snap ? snap : caplen;

			return damaged(pf, "truncated dump file; tried to read %u captured bytes, only got %zu", want,
				       avail - REC_HDR);
		}
	}
	r = pf->buf + pf->off;
	/* As libpcap 1.10 reads them: signed 32-bit fields when the file is in
	 * this host's byte order, unsigned when swapped; microseconds scaled
	 * to nanoseconds. */
	if (pf->swapped) {
		h->ts.tv_sec = (time_t)v[0];
		h->ts.tv_usec = (suseconds_t)v[1];
	} else {
		h->ts.tv_sec = (int32_t)v[0];
		h->ts.tv_usec = (int32_t)v[1];
	}
	if (!pf->nsec)
		h->ts.tv_usec *= 1000;
	h->caplen = caplen > snap ? snap : caplen;   /* cut to the snapshot, as libpcap */
	h->len = v[3];
	*data = r + REC_HDR;
	pf->off += REC_HDR + caplen;
	pf->frames++;
	return 1;
}

const char *pcapfile_error(const struct pcapfile *pf) { return pf->err; }
int pcapfile_datalink(const struct pcapfile *pf) { return pf->dlt; }
int pcapfile_frame_datalink(const struct pcapfile *pf) { return pf->frame_dlt; }
int pcapfile_snapshot(const struct pcapfile *pf) { return pf->snapshot; }
int pcapfile_nsec_magic(const struct pcapfile *pf) { return pf->nsec; }
int pcapfile_swapped(const struct pcapfile *pf) { return pf->swapped; }
FILE *pcapfile_file(const struct pcapfile *pf) { return pf->f; }
