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
 * The chunks are read (pread()) into a store of SLOTS chunk buffers
 * and the frames are handed out where they lie in them: the kernel's copy
 * out of the page cache is the only one.  Each slot has PREFIX bytes of
 * room before its chunk, filled with the file's bytes before the chunk, so
 * a record that straddles two chunks is whole in the second one's slot;
 * only a record longer than PREFIX is joined in a buffer of the reader's
 * (the next chunk with it: the old copying path, which tiny test chunks
 * take).  (Before, a read-ahead ring of chunks was copied into the
 * reader's buffer: on 1,000,000 frames over 512 connections, 13 % of a
 * replay in that memmove, 20 % in the kernel's copy.)
 *
 * A store serves several readers (pcapfile_clone(): rocetop --threads'
 * workers each walk the whole file for their share of it, no frame handed
 * over): a chunk is read once, by the first reader to need it or by the
 * read-ahead thread, and its slot is reused once every reader has left it.
 * The readers share a lock per chunk taken and left, never per frame.
 * On a file of more than a few chunks, a read-ahead thread does the
 * pread()s while the reader decodes: the kernel's copy (about a third of
 * a replay) runs on the other core.
 *
 * Why not mmap() (PCAPFILE_MAP, kept for measuring it: bench_flow rate):
 * on this kind of virtual machine a page-table update is a trap, and
 * touching each cache line of a 1 GB file costs 0.20-0.26 s mapped
 * (MAP_POPULATE, MADV_SEQUENTIAL, MADV_WILLNEED or MADV_HUGEPAGE alike) and
 * 0.06-0.08 s through read() of 1 MiB into a buffer that stays in the
 * cache: the copy is cheaper than the mapping.  Measured again (7 December
 * 2026, issue 26, the 1 GB 512-connection mix in the page cache, the CRC
 * of every frame as the analysis does, CPU time so that the other work on
 * the machine does not count): this reader 0.17-0.22 s, the same reader
 * mapped (MADV_SEQUENTIAL) 0.65-0.71 s; a bare mapped walk 0.63-0.68 s,
 * with MAP_POPULATE 0.56-0.63 s (0.03 s of it the population),
 * MADV_POPULATE_READ 512 KiB..8 MiB ahead 0.52-0.60 s, MADV_HUGEPAGE (no
 * huge pages for a file's page cache here) 0.66 s.  Most likely the mapped
 * loads miss the TLB every 4 KiB page (a nested walk under the hypervisor;
 * not measured: no hardware counters in this VM), where the kernel's copy
 * reads the page cache through its own huge-page mapping into a buffer
 * that stays in the TLB and the cache.  So the file's bytes are
 * copied once, by the kernel, per 1 MiB chunk, and never per frame: every
 * frame is decoded where pread() put it.
 *
 * pcapng is read here too (below), interface by interface.
 *
 * A gzip-compressed file (.pcap.gz, .pcapng.gz: told by its magic bytes
 * 1f 8b, whatever its name) is read as a stream through zlib: gzread() in
 * chunks into the reader's own buffer (join[]), the unread tail moved to
 * its start before each read; no store, no read-ahead thread, no mapping,
 * no clone (rocetop --threads feeds its workers by byte rings then).  The
 * byte offsets of errors are those of the uncompressed stream; a stream
 * cut short is the error "truncated gzip stream" after the frames before
 * the cut.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "pcapfile.h"
#include "roce.h"

#define MAGIC_US 0xa1b2c3d4u
#define MAGIC_NS 0xa1b23c4du
#define FILE_HDR 24
#define REC_HDR 16
#define MAX_CAPLEN 262144u        /* libpcap's MAXIMUM_SNAPLEN: a longer record is damage */
#define SLOTS 8                   /* chunks in a store */
#define RA_AHEAD 4                /* the read-ahead thread's lead, in chunks, over the slowest reader */
#define PREFIX 16384u             /* room before a slot's chunk: a straddling record this long stays in place */
#define SLACK 16u                 /* zeroed bytes after a buffer's end: a section header's fields are
				     read before its length is checked */
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

struct pcapfile {
	FILE *f;
	int fd;
	int swapped, nsec, dlt, snapshot;
	int failed, at_eof;
	const uint8_t *buf;           /* a slot's memory, join[] or the mapping */
	size_t off, have;             /* the unread bytes are buf[off..have) */
	uint64_t pos;                 /* file offset of buf[0] */
	uint64_t frames;              /* records returned */
	char err[PCAP_ERRBUF_SIZE + 64];
	struct store *st;             /* the chunks (NULL when mapped) */
	uint64_t cur;                 /* the chunk buf ends with */
	int held;                     /* buf is chunk cur's slot (else join[], or nothing yet) */
	int started;                  /* a chunk was taken */
	uint8_t *join;                /* a record longer than PREFIX across chunks */
	size_t join_cap;
	int ng;                       /* pcapng: the interfaces of the current section */
	struct ngif *ifs;
	unsigned nifs, capifs;
	int frame_dlt;                /* link type of the last frame returned */
	int mapped;                   /* buf is the file mapped, have its size (pos 0) */
	gzFile gz;                    /* a gzip file: read as a stream into join[] */
	size_t gz_chunk;              /* bytes per gzread() */
	int clone;                    /* pcapfile_clone(): the mapping and f are the original's */
	int ix;                       /* pcapfile_next_own() reads the store's shard index */
	uint32_t ixi;                 /* the next entry of chunk cur's index */
	uint64_t last_ts;             /* time of the last record read or passed over, ns */
};

/* Chunk c of a store is the file's bytes [start + c * chunk, + chunk),
 * read into slot c % SLOTS after the prefix bytes of the file before it. */
struct slot {
	uint8_t *mem;                 /* prefix + chunk bytes */
	ssize_t n;                    /* bytes of the chunk; 0: end of file; < 0: read error */
	int err;
	uint64_t seq;                 /* the chunk it holds */
	unsigned refs;                /* readers yet to leave it */
	/* the shard index (pcapfile_shard()): the records that end in this chunk */
	int indexed;                  /* the fields below are this chunk's */
	int stop;                     /* the index ends here: read on from rest record by record */
	uint32_t nent;
	uint32_t *eoff;               /* each record's offset in mem */
	uint8_t *eown;                /* and its shard */
	uint64_t rec0;                /* records in the file before the first */
	uint32_t rest;                /* offset in mem of the first record not indexed here */
	uint64_t rest_rec;            /* records before it */
	uint64_t last_ts;             /* time of the last record indexed (when nent) */
};

struct store {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	size_t chunk, prefix;
	uint64_t start;               /* file offset of chunk 0 */
	uint64_t loaded;              /* chunks [0, loaded) were read */
	int loading, ended;           /* a read is under way; the end (or an error) was read */
	unsigned readers;             /* readers not closed */
	struct slot s[SLOTS];
	pthread_t ra;                 /* the read-ahead thread */
	int has_ra, stop;
	/* the shard index: what the records are, and where it has got to */
	unsigned nshard;              /* 0: no index */
	int dlt, swapped, nsec;
	uint32_t snap;
	uint64_t icur, irec;          /* file offset of the next record to index, records before it */
	int idead;                    /* the index stopped */
};

static size_t pread_full(int fd, uint8_t *b, size_t n, uint64_t off, int *err)
{
	size_t got = 0;

	*err = 0;
	while (got < n) {
		ssize_t r = pread(fd, b + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			*err = errno;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* A record's header (at r) as libpcap 1.10 reads it: signed 32-bit
 * fields when the file is in this host's byte order, unsigned when
 * swapped; microseconds scaled to nanoseconds; caplen cut to the snapshot.
 * Returns the record's own caplen (its length in the file). */
static inline uint32_t rec_header(const uint8_t *r, int swapped, int nsec, uint32_t snap, struct pcap_pkthdr *h)
{
	uint32_t v[4];

	memcpy(v, r, sizeof v);
	if (swapped) {
		for (int i = 0; i < 4; i++)
			v[i] = __builtin_bswap32(v[i]);
		h->ts.tv_sec = (time_t)v[0];
		h->ts.tv_usec = (suseconds_t)v[1];
	} else {
		h->ts.tv_sec = (int32_t)v[0];
		h->ts.tv_usec = (int32_t)v[1];
	}
	if (!nsec)
		h->ts.tv_usec *= 1000;
	h->caplen = v[2] > snap ? snap : v[2];
	h->len = v[3];
	return v[2];
}

/*
 * The shard index (pcapfile_shard()): when a chunk has been read, the
 * loader (the read-ahead thread, or the first reader to need it) walks the
 * records that end in it while they are in its cache, and notes each one's
 * offset and shard (roce_flow_key() % nshard); each reader then visits
 * only its own records (pcapfile_next_own()), touching nothing of the
 * others' but a byte of the index.  Before, every worker walked every
 * record of the file and computed its key: n times the walk, and the
 * cache misses of every record's header on every core.  The index stops
 * (the readers go on record by record, pcapfile_next(), which says what is
 * wrong in libpcap's words) at the first record it does not take: damage,
 * a record too long for the next slot's prefix, a short read (the end of
 * the file, or a file still growing).
 */
static void store_index(struct store *st, struct slot *sl, uint64_t c, ssize_t n)
{
	uint64_t base = st->start + c * st->chunk, end, r = st->icur, rec = st->irec, last = 0;
	size_t pl = base - st->start < st->prefix ? (size_t)(base - st->start) : st->prefix;
	const uint8_t *m0 = sl->mem + st->prefix;   /* file byte base */
	uint32_t k = 0;
	int stop = 0, any = 0;
	struct pcap_pkthdr h;

	sl->indexed = 0;
	if (st->idead || n <= 0 || r < base - pl) {
		st->idead = 1;
		return;
	}
	end = base + (uint64_t)n;
	sl->rec0 = rec;
	while (end - r >= REC_HDR) {
		const uint8_t *p = m0 + (ptrdiff_t)(r - base);
		uint32_t caplen;

		caplen = rec_header(p, st->swapped, st->nsec, st->snap, &h);
		if (caplen > MAX_CAPLEN) {
			stop = 1;
			break;
		}
		if (end - r - REC_HDR < caplen)
			break;
		sl->eoff[k] = (uint32_t)(p - sl->mem);
		sl->eown[k] = (uint8_t)(roce_flow_key(st->dlt, p + REC_HDR, h.caplen) % st->nshard);
		k++;
		any = 1;
		last = pcapfile_ts_ns(&h);
		r += REC_HDR + caplen;
		rec++;
	}
	/* the rest is read whole in the next chunk's slot only if it fits its prefix */
	if (!stop && ((size_t)n < st->chunk || end - r > st->prefix))
		stop = 1;
	sl->nent = k;
	sl->rest = (uint32_t)(m0 + (ptrdiff_t)(r - base) - sl->mem);
	sl->rest_rec = rec;
	if (any)
		sl->last_ts = last;
	sl->stop = stop;
	sl->indexed = 1;
	st->icur = r;
	st->irec = rec;
	st->idead = stop;
}

/* Reads chunk st->loaded into its slot (left by every reader); called and
 * returns with mu held, which it leaves during the read. */
static void store_load(struct store *st)
{
	uint64_t c = st->loaded, off = st->start + c * st->chunk;
	struct slot *sl = &st->s[c % SLOTS];
	size_t pl = off - st->start < st->prefix ? (size_t)(off - st->start) : st->prefix;
	int err, perr, ix = st->nshard != 0;
	size_t n;

	st->loading = 1;
	pthread_mutex_unlock(&st->mu);
	n = pread_full(st->fd, sl->mem + st->prefix, st->chunk, off, &err);
	if (pl && n)
		pread_full(st->fd, sl->mem + st->prefix - pl, pl, off - pl, &perr);
	if (ix)
		store_index(st, sl, c, n ? (ssize_t)n : err ? -1 : 0);
	pthread_mutex_lock(&st->mu);
	sl->n = n ? (ssize_t)n : err ? -1 : 0;
	sl->err = n ? 0 : err;
	sl->seq = c;
	sl->refs = st->readers;
	st->loaded++;
	st->loading = 0;
	if (sl->n <= 0)
		st->ended = 1;
	pthread_cond_broadcast(&st->cv);
}

/* Chunk c can be read now: the next one, its slot left by every reader. */
static int store_loadable(const struct store *st, uint64_t c)
{
	return !st->loading && !st->ended && c == st->loaded && (c < SLOTS || !st->s[c % SLOTS].refs);
}

static void *ra_main(void *arg)
{
	struct store *st = arg;

	pthread_mutex_lock(&st->mu);
	while (!st->stop && !st->ended) {
		/* the slowest reader's chunk: the oldest slot still held */
		uint64_t low = st->loaded;

		for (unsigned i = 0; i < SLOTS; i++)
			if (st->s[i].refs && st->s[i].seq < low)
				low = st->s[i].seq;
		if (store_loadable(st, st->loaded) && st->loaded < low + RA_AHEAD)
			store_load(st);
		else
			pthread_cond_wait(&st->cv, &st->mu);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

static struct store *store_new(int fd, size_t chunk, uint64_t start)
{
	struct store *st = calloc(1, sizeof *st);

	if (!st)
		return NULL;
	st->fd = fd;
	st->chunk = chunk;
	st->prefix = chunk < PREFIX ? chunk : PREFIX;
	st->start = start;
	st->readers = 1;
	for (unsigned i = 0; i < SLOTS; i++)
		if (!(st->s[i].mem = calloc(1, st->prefix + chunk + SLACK))) {
			while (i--)
				free(st->s[i].mem);
			free(st);
			return NULL;
		}
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	return st;
}

static void store_start_ra(struct store *st)
{
	st->has_ra = pthread_create(&st->ra, NULL, ra_main, st) == 0;
}

/* The slot of chunk c, waited for (read here when this reader is first). */
static struct slot *store_get(struct store *st, uint64_t c)
{
	struct slot *sl = &st->s[c % SLOTS];

	pthread_mutex_lock(&st->mu);
	while (!(c < st->loaded && sl->seq == c)) {
		if (store_loadable(st, c))
			store_load(st);
		else
			pthread_cond_wait(&st->cv, &st->mu);
	}
	pthread_mutex_unlock(&st->mu);
	return sl;
}

/* This reader leaves chunk c. */
static void store_put(struct store *st, uint64_t c)
{
	struct slot *sl = &st->s[c % SLOTS];

	pthread_mutex_lock(&st->mu);
	if (sl->seq == c && sl->refs && !--sl->refs)
		pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/* The chunks read from chunk `from` on (a reader has left those before):
 * delta to each one's readers. */
static void store_refs(struct store *st, uint64_t from, int delta)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		struct slot *sl = &st->s[i];

		if (sl->seq < st->loaded && sl->seq >= from && (sl->refs || delta > 0))
			sl->refs = (unsigned)((int)sl->refs + delta);
	}
}

/* A second reader where one is, which has left the chunks before from. */
static void store_join(struct store *st, uint64_t from)
{
	pthread_mutex_lock(&st->mu);
	st->readers++;
	store_refs(st, from, 1);
	pthread_mutex_unlock(&st->mu);
}

/* A reader goes: it leaves every chunk from `from` on.  The last one
 * frees the store. */
static void store_leave(struct store *st, uint64_t from)
{
	int last;

	pthread_mutex_lock(&st->mu);
	store_refs(st, from, -1);
	last = !--st->readers;
	if (last)
		st->stop = 1;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
	if (!last)
		return;
	if (st->has_ra)
		pthread_join(st->ra, NULL);
	pthread_cond_destroy(&st->cv);
	pthread_mutex_destroy(&st->mu);
	for (unsigned i = 0; i < SLOTS; i++) {
		free(st->s[i].mem);
		free(st->s[i].eoff);
		free(st->s[i].eown);
	}
	free(st);
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
static int fill(struct pcapfile *pf, size_t need);
static struct pcapfile *gz_new(FILE *f, size_t chunk);

/* start: file offset of the first byte to read (the records, or the
 * pcapng file's first block). */
static struct pcapfile *pf_new(FILE *f, size_t chunk, uint64_t fsize, uint64_t start)
{
	struct pcapfile *pf = calloc(1, sizeof *pf);

	if (!pf)
		return NULL;
	chunk = chunk ? chunk : PCAPFILE_CHUNK;
	/* a file smaller than a chunk needs no buffer larger than itself (a
	 * file still growing is read on in chunks of its size then) */
	if (fsize < chunk)
		chunk = fsize < 4096 ? 4096 : (size_t)fsize;
	pf->f = f;
	pf->fd = fileno(f);
	if (!(pf->st = store_new(pf->fd, chunk, start))) {
		free(pf);
		return NULL;
	}
	pf->pos = start;
	return pf;
}

/* The first chunk pf has not left. */
static uint64_t pf_from(const struct pcapfile *pf)
{
	return !pf->started ? 0 : pf->held ? pf->cur : pf->cur + 1;
}

static void pf_free(struct pcapfile *pf)
{
	if (pf->gz)
		gzclose(pf->gz);
	if (pf->st)
		store_leave(pf->st, pf_from(pf));
	else if (pf->mapped && !pf->clone)
		munmap((void *)pf->buf, pf->have);
	free(pf->join);
	free(pf->ifs);
	free(pf);
}

/* Replaces pf's buffer with the whole file mapped, the unread bytes
 * starting at byte start: 0, or -1 (pf unchanged: the read() path). */
static int pf_map(struct pcapfile *pf, uint64_t fsize, size_t start)
{
	void *m;

	if (fsize <= start || fsize > SIZE_MAX)
		return -1;
	m = mmap(NULL, (size_t)fsize, PROT_READ, MAP_PRIVATE, pf->fd, 0);
	if (m == MAP_FAILED)
		return -1;
	madvise(m, (size_t)fsize, MADV_SEQUENTIAL);
	store_leave(pf->st, 0);
	pf->st = NULL;
	pf->buf = m;
	pf->have = (size_t)fsize;
	pf->off = start;
	pf->pos = 0;
	pf->mapped = 1;
	return 0;
}

/* The mapping's end reached: a file that grew since is mapped again at its
 * size (frames handed out before are not used after the next call). */
static void pf_remap(struct pcapfile *pf)
{
	struct stat st;
	void *m;

	if (fstat(pf->fd, &st) || (uint64_t)st.st_size <= pf->have || (uint64_t)st.st_size > SIZE_MAX)
		return;
	m = mremap((void *)pf->buf, pf->have, (size_t)st.st_size, MREMAP_MAYMOVE);
	if (m == MAP_FAILED)
		return;
	pf->buf = m;
	pf->have = (size_t)st.st_size;
}

/* A pcapng file, read from its start up to its first interface, which
 * gives the file's link type and snapshot as libpcap gives them. */
static struct pcapfile *ng_open(FILE *f, size_t chunk, uint64_t fsize, int map)
{
	struct pcapfile *pf;
	struct pcap_pkthdr h;
	const uint8_t *d;

	if (!(pf = pf_new(f, chunk, fsize, 0)))
		return NULL;
	if (map)
		pf_map(pf, fsize, 0);
	pf->ng = pf->nsec = 1;
	if (ng_next(pf, &h, &d, 1) != 2 || linktype_dlt((uint32_t)pf->ifs[0].dlt) < 0) {
		pf_free(pf);
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

/* A classic pcap file header this reader takes: 0 and pf's format filled
 * in, or -1. */
static int classic_hdr(struct pcapfile *pf, const uint8_t *h)
{
	uint32_t magic, snaplen, lt;
	uint16_t major, minor;
	int swapped;

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
		return -1;
	pf->swapped = swapped;
	pf->nsec = magic == MAGIC_NS;
	pf->dlt = pf->frame_dlt = linktype_dlt(lt);
	/* as libpcap 1.10's pcap_adjust_snapshot(): it may exceed MAX_CAPLEN */
	pf->snapshot = (int)(snaplen == 0 || snaplen > INT32_MAX ? MAX_CAPLEN : snaplen);
	return 0;
}

/* Why the last pcapfile_open() of a gzip file failed (libpcap reads none). */
static __thread char gz_err[PCAP_ERRBUF_SIZE + 64];

const char *pcapfile_gz_error(void)
{
	return gz_err[0] ? gz_err : NULL;
}

/* A gzip file: pcap or pcapng inside, or NULL with gz_err said. */
static struct pcapfile *gz_open(FILE *f, size_t chunk)
{
	struct pcapfile *pf = gz_new(f, chunk);
	struct pcap_pkthdr h;
	const uint8_t *d;
	uint32_t magic;

	if (!pf) {
		snprintf(gz_err, sizeof gz_err, "gzip: %s", strerror(errno ? errno : ENOMEM));
		fclose(f);
		return NULL;
	}
	if (fill(pf, FILE_HDR) < 0 || pf->have < FILE_HDR) {
		snprintf(gz_err, sizeof gz_err, "gzip-compressed, but %.200s",
			 pf->failed ? pf->err + strcspn(pf->err, ":") + 2 : "too short for a capture's file header");
		goto bad;
	}
	memcpy(&magic, pf->buf, 4);
	if (magic == NG_SHB) {
		pf->ng = pf->nsec = 1;
		if (ng_next(pf, &h, &d, 1) != 2 || linktype_dlt((uint32_t)pf->ifs[0].dlt) < 0) {
			snprintf(gz_err, sizeof gz_err, "gzip-compressed pcapng: %.200s",
				 pf->failed ? pf->err : "no interface of a link type rocetop reads");
			goto bad;
		}
		pf->dlt = pf->frame_dlt = pf->ifs[0].dlt;
		pf->snapshot = (int)(pf->ifs[0].snap == 0 || pf->ifs[0].snap > INT32_MAX ? MAX_CAPLEN
											  : pf->ifs[0].snap);
		return pf;
	}
	if (classic_hdr(pf, pf->buf) < 0) {
		snprintf(gz_err, sizeof gz_err, "gzip-compressed, but not a pcap or pcapng file of a link type "
			 "rocetop reads inside (gunzip it to see)");
		goto bad;
	}
	pf->off = FILE_HDR;
	return pf;
bad:
	pcapfile_close(pf);
	return NULL;
}

struct pcapfile *pcapfile_open_flags(const char *path, size_t chunk, unsigned flags)
{
	struct pcapfile *pf;
	uint8_t h[FILE_HDR];
	uint32_t magic;
	struct stat st;
	size_t got;
	int map = !!(flags & PCAPFILE_MAP);
	FILE *f;

	gz_err[0] = 0;
	if (!strcmp(path, "-") || !(f = fopen(path, "rb")))
		return NULL;
	/* regular files only: a pipe cannot be handed to libpcap once read */
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		goto other;
	got = read_full(fileno(f), h, FILE_HDR);
	if (got >= 2 && h[0] == 0x1f && h[1] == 0x8b)   /* gzip's magic, whatever the name */
		return gz_open(f, chunk);
	if (got != FILE_HDR)
		goto other;
	memcpy(&magic, h, 4);
	if (magic == NG_SHB) {
		if (!(pf = ng_open(f, chunk, (uint64_t)st.st_size, map)))
			goto other;
		goto opened;
	}
	if (!(pf = pf_new(f, chunk, (uint64_t)st.st_size, FILE_HDR)))
		goto other;
	if (classic_hdr(pf, h) < 0) {
		pf->f = NULL;
		pf_free(pf);
		goto other;
	}
	if (map)
		pf_map(pf, (uint64_t)st.st_size, FILE_HDR);
opened:
	posix_fadvise(pf->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/* worth a thread only when there are chunks to read ahead */
	if (pf->st && !(flags & PCAPFILE_NO_READAHEAD) &&
	    (uint64_t)st.st_size > FILE_HDR + (uint64_t)RA_AHEAD * pf->st->chunk)
		store_start_ra(pf->st);
	return pf;
other:
	fclose(f);
	return NULL;
}

struct pcapfile *pcapfile_clone(const struct pcapfile *orig)
{
	struct pcapfile *pf;

	if (orig->failed || orig->mapped || orig->gz || !(pf = malloc(sizeof *pf)))
		return NULL;
	*pf = *orig;
	pf->clone = 1;
	pf->ifs = NULL;
	pf->join = NULL;
	pf->join_cap = 0;
	if (orig->capifs && !(pf->ifs = malloc(orig->capifs * sizeof *pf->ifs))) {
		free(pf);
		return NULL;
	}
	if (orig->nifs)
		memcpy(pf->ifs, orig->ifs, orig->nifs * sizeof *pf->ifs);
	if (!orig->held && orig->have > orig->off) {
		/* the original reads from its join buffer: so does the copy */
		if (!(pf->join = calloc(1, orig->have + SLACK))) {
			free(pf->ifs);
			free(pf);
			return NULL;
		}
		memcpy(pf->join, orig->buf, orig->have);
		pf->join_cap = orig->have;
		pf->buf = pf->join;
	}
	store_join(pf->st, pf_from(pf));
	return pf;
}

void pcapfile_close(struct pcapfile *pf)
{
	if (!pf)
		return;
	if (!pf->clone)
		fclose(pf->f);
	pf_free(pf);
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

/* Makes need unread bytes available, fewer only at the end of the file.
 * The unread bytes are the end of chunk cur: the next chunk's slot holds
 * them in its prefix when they fit, else they and the next chunk are
 * joined in join[] (each chunk after an unread record longer than the
 * prefix is copied once: tiny test chunks, records of more than 16 KiB). */
static int gz_fill(struct pcapfile *pf, size_t need);

static int fill(struct pcapfile *pf, size_t need)
{
	if (pf->gz)
		return gz_fill(pf, need);
	if (pf->mapped) {
		if (pf->have - pf->off < need)
			pf_remap(pf);
		return 0;
	}
	while (pf->have - pf->off < need && !pf->at_eof) {
		struct store *st = pf->st;
		size_t tail = pf->have - pf->off;
		uint64_t next = pf->started ? pf->cur + 1 : 0;
		struct slot *sl = store_get(st, next);
		size_t n;

		if (sl->n <= 0) {
			/* an end or an error stays for the next call */
			if (sl->n == 0) {
				pf->at_eof = 1;
				break;
			}
			return damaged(pf, "error reading dump file: %s", strerror(sl->err));
		}
		n = (size_t)sl->n;
		if (tail <= st->prefix) {
			/* in place: the slot's prefix holds the tail */
			if (pf->held)
				store_put(st, pf->cur);
			pf->buf = sl->mem;
			pf->off = st->prefix - tail;
			pf->have = st->prefix + n;
			pf->held = 1;
		} else {
			if (tail + n > pf->join_cap) {
				size_t cap = tail + n;
				uint8_t *b = realloc(pf->join, cap + SLACK);

				if (!b)
					return damaged(pf, "error reading dump file: %s", strerror(ENOMEM));
				memset(b + cap, 0, SLACK);
				if (pf->buf == pf->join)
					pf->buf = b;
				pf->join = b;
				pf->join_cap = cap;
			}
			memmove(pf->join, pf->buf + pf->off, tail);
			memcpy(pf->join + tail, sl->mem + st->prefix, n);
			if (pf->held)
				store_put(st, pf->cur);
			store_put(st, next);
			pf->buf = pf->join;
			pf->off = 0;
			pf->have = tail + n;
			pf->held = 0;
		}
		pf->pos = st->start + next * st->chunk + n - pf->have;
		pf->cur = next;
		pf->started = 1;
	}
	return 0;
}

/* The gzip stream: the unread tail moved to the buffer's start, then as
 * many chunks read after it as need takes (fewer only at the end). */
static int gz_fill(struct pcapfile *pf, size_t need)
{
	while (pf->have - pf->off < need && !pf->at_eof) {
		size_t tail = pf->have - pf->off, want = pf->gz_chunk;
		int n, zerr;

		if (tail + want > pf->join_cap) {
			size_t cap = tail + want;
			uint8_t *b = realloc(pf->join, cap + SLACK);

			if (!b)
				return damaged(pf, "error reading dump file: %s", strerror(ENOMEM));
			pf->join = b;
			pf->join_cap = cap;
		}
		if (pf->off)
			memmove(pf->join, pf->join + pf->off, tail);
		pf->pos += pf->off;
		pf->buf = pf->join;
		pf->off = 0;
		pf->have = tail;
		n = gzread(pf->gz, pf->join + tail, (unsigned)want);
		if (n > 0) {
			pf->have += (size_t)n;
			memset(pf->join + pf->have, 0, SLACK);
			continue;
		}
		/* the end: a whole stream, or one cut short (zlib: "unexpected end of file") */
		{
			const char *why = gzerror(pf->gz, &zerr);

			if (!strncmp(why, "<fd:", 4) && strstr(why, ": "))   /* gzdopen()'s name for the file */
				why = strstr(why, ": ") + 2;

			if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
				pf->at_eof = 1;
				if (zerr == Z_BUF_ERROR)
					return damaged(pf, "truncated gzip stream (%s)", why);
				return damaged(pf, "error reading gzip stream: %s",
					       zerr == Z_ERRNO ? strerror(errno) : why);
			}
		}
		pf->at_eof = 1;
	}
	return 0;
}

/* A gzip file (f at its start): the stream's first bytes (hdr, n of them,
 * read by the caller), the rest through fill(). */
static struct pcapfile *gz_new(FILE *f, size_t chunk)
{
	struct pcapfile *pf = calloc(1, sizeof *pf);
	int fd;

	if (!pf)
		return NULL;
	pf->f = f;
	pf->fd = fileno(f);
	pf->gz_chunk = chunk ? chunk : PCAPFILE_CHUNK;
	if (lseek(pf->fd, 0, SEEK_SET) != 0 || (fd = dup(pf->fd)) < 0) {
		free(pf);
		return NULL;
	}
	if (!(pf->gz = gzdopen(fd, "rb"))) {
		close(fd);
		free(pf);
		return NULL;
	}
	gzbuffer(pf->gz, 1u << 17);
	return pf;
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
			pf->last_ts = pcapfile_ts_ns(h);
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
	rec_header(r, pf->swapped, pf->nsec, snap, h);   /* cut to the snapshot, as libpcap */
	pf->last_ts = pcapfile_ts_ns(h);
	*data = r + REC_HDR;
	pf->off += REC_HDR + caplen;
	pf->frames++;
	return 1;
}

/* ---- shards: rocetop --threads' workers, each reading its own records ---- */

int pcapfile_shard(struct pcapfile *pf, unsigned n)
{
	struct store *st = pf->st;
	size_t cap;
	int ok = 1;

	if (!st || pf->ng || pf->mapped || pf->clone || pf->started || pf->frames || n < 1 || n > 256 ||
	    st->nshard || st->readers != 1)
		return -1;
	cap = st->chunk / REC_HDR + 1;
	for (unsigned i = 0; i < SLOTS; i++) {
		struct slot *sl = &st->s[i];

		if (!sl->eoff && !(sl->eoff = malloc(cap * sizeof *sl->eoff)))
			return -1;
		if (!sl->eown && !(sl->eown = malloc(cap)))
			return -1;
	}
	pthread_mutex_lock(&st->mu);
	while (st->loading)
		pthread_cond_wait(&st->cv, &st->mu);
	st->dlt = pf->dlt;
	st->swapped = pf->swapped;
	st->nsec = pf->nsec;
	st->snap = (uint32_t)pf->snapshot;
	st->icur = st->start;
	st->irec = 0;
	st->idead = 0;
	st->nshard = n;
	/* the chunks the read-ahead thread has read already (none left yet) */
	for (uint64_t c = 0; c < st->loaded; c++) {
		struct slot *sl = &st->s[c % SLOTS];

		if (sl->seq != c) {
			ok = 0;
			break;
		}
		store_index(st, sl, c, sl->n);
	}
	if (!ok) {
		st->nshard = 0;
		for (unsigned i = 0; i < SLOTS; i++)
			st->s[i].indexed = 0;
	}
	pthread_mutex_unlock(&st->mu);
	if (!ok)
		return -1;
	pf->ix = 1;
	return 0;
}

/* pf's buffer: chunk c's slot (held). */
static void ix_hold(struct pcapfile *pf, struct slot *sl, uint64_t c)
{
	struct store *st = pf->st;

	pf->buf = sl->mem;
	pf->have = st->prefix + (size_t)sl->n;
	pf->off = st->prefix;
	pf->pos = st->start + c * st->chunk - st->prefix;
	pf->cur = c;
	pf->held = 1;
	pf->started = 1;
	pf->ixi = 0;
}

int pcapfile_next_own(struct pcapfile *pf, unsigned me, unsigned n, struct pcap_pkthdr *h, const uint8_t **data,
		      uint64_t *no)
{
	int rc;

	while (pf->ix && !pf->failed) {
		struct store *st = pf->st;
		struct slot *sl;

		if (!pf->started) {
			sl = store_get(st, 0);
			if (!sl->indexed) {
				pf->ix = 0;   /* nothing of it read yet: record by record from the start */
				break;
			}
			ix_hold(pf, sl, 0);
		}
		sl = &st->s[pf->cur % SLOTS];
		while (pf->ixi < sl->nent) {
			uint32_t i = pf->ixi++, caplen;
			const uint8_t *r;

			if (sl->eown[i] != me)
				continue;
			r = sl->mem + sl->eoff[i];
			caplen = rec_header(r, st->swapped, st->nsec, st->snap, h);
			*data = r + REC_HDR;
			pf->off = sl->eoff[i] + REC_HDR + caplen;
			pf->frames = sl->rec0 + i + 1;
			pf->last_ts = pcapfile_ts_ns(h);
			*no = pf->frames;
			return 1;
		}
		if (sl->nent)
			pf->last_ts = sl->last_ts;
		if (!sl->stop) {
			struct slot *nx = store_get(st, pf->cur + 1);

			if (nx->indexed) {
				store_put(st, pf->cur);
				ix_hold(pf, nx, pf->cur + 1);
				continue;
			}
		}
		/* on from the first record the index left, one by one */
		pf->off = sl->rest;
		pf->frames = sl->rest_rec;
		pf->ix = 0;
	}
	while ((rc = pcapfile_next(pf, h, data)) == 1)
		if (roce_flow_key(pf->frame_dlt, *data, h->caplen) % n == me) {
			*no = pf->frames;
			return 1;
		}
	return rc;
}

uint64_t pcapfile_frames(const struct pcapfile *pf) { return pf->frames; }
uint64_t pcapfile_last_ts(const struct pcapfile *pf) { return pf->last_ts; }

const char *pcapfile_error(const struct pcapfile *pf) { return pf->err; }
int pcapfile_datalink(const struct pcapfile *pf) { return pf->dlt; }
int pcapfile_frame_datalink(const struct pcapfile *pf) { return pf->frame_dlt; }
int pcapfile_pcapng(const struct pcapfile *pf) { return pf->ng; }
int pcapfile_snapshot(const struct pcapfile *pf) { return pf->snapshot; }
int pcapfile_nsec_magic(const struct pcapfile *pf) { return pf->nsec; }
int pcapfile_swapped(const struct pcapfile *pf) { return pf->swapped; }
FILE *pcapfile_file(const struct pcapfile *pf) { return pf->f; }
uint64_t pcapfile_offset(const struct pcapfile *pf) { return pf->pos + pf->off; }
int pcapfile_mapped(const struct pcapfile *pf) { return pf->mapped; }
int pcapfile_gz(const struct pcapfile *pf) { return !!pf->gz; }
uint64_t pcapfile_gz_offset(const struct pcapfile *pf)
{
	return pf->gz ? (uint64_t)gzoffset(pf->gz) : pcapfile_offset(pf);
}
