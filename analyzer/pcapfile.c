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
	pf = calloc(1, sizeof *pf);
	if (!pf)
		goto other;
	pf->chunk = chunk ? chunk : PCAPFILE_CHUNK;
	/* a file smaller than a chunk needs no buffer larger than itself (a
	 * file still growing is read on in chunks of its size then) */
	if ((uint64_t)st.st_size < pf->chunk)
		pf->chunk = st.st_size < 4096 ? 4096 : (size_t)st.st_size;
	/* room for a chunk after a record left unread: fill() makes more
	 * when a longer one needs it */
	pf->cap = pf->chunk + REC_HDR + REC_ROOM;
	pf->buf = malloc(pf->cap);
	if (!pf->buf) {
		free(pf);
		goto other;
	}
	pf->f = f;
	pf->fd = fileno(f);
	pf->swapped = swapped;
	pf->nsec = magic == MAGIC_NS;
	pf->dlt = linktype_dlt(lt);
	/* as libpcap 1.10's pcap_adjust_snapshot(): it may exceed MAX_CAPLEN */
	pf->snapshot = (int)(snaplen == 0 || snaplen > INT32_MAX ? MAX_CAPLEN : snaplen);
	pf->pos = FILE_HDR;
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

/* Makes need unread bytes available (need <= REC_HDR + MAX_CAPLEN), fewer
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
			size_t cap = pf->chunk + REC_HDR + MAX_CAPLEN;
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

int pcapfile_next(struct pcapfile *pf, struct pcap_pkthdr *h, const uint8_t **data)
{
	const uint8_t *r;
	uint32_t v[4], caplen, snap = (uint32_t)pf->snapshot;
	size_t avail;

	if (pf->failed)
		return -1;
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
int pcapfile_snapshot(const struct pcapfile *pf) { return pf->snapshot; }
int pcapfile_nsec_magic(const struct pcapfile *pf) { return pf->nsec; }
int pcapfile_swapped(const struct pcapfile *pf) { return pf->swapped; }
FILE *pcapfile_file(const struct pcapfile *pf) { return pf->f; }
