/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcapfile.h — a reader of classic pcap files (pcap-savefile(5): both byte
 * orders, microsecond magic 0xa1b2c3d4 and nanosecond magic 0xa1b23c4d,
 * version 2.4) that reads the file in large chunks and hands out frames
 * pointing into the chunk; only a record that straddles two chunks is moved.
 * libpcap reads the same file through stdio, 4 KiB at a time, and copies
 * every frame once more.
 *
 * It gives what pcap_next_ex() on a handle opened with
 * PCAP_TSTAMP_PRECISION_NANO gives: the same frames, the same headers
 * (ts.tv_usec holds nanoseconds; a record longer than the file's snapshot
 * length is cut to it), the end of the file at the same place, and an error
 * where libpcap reports one, with libpcap's text after "frame N at byte B: ".
 * pcapng files are read here too, whole, even when their interfaces differ
 * in link type (libpcap stops at the first interface whose link type is not
 * the first one's): each frame has its interface's link type
 * (pcapfile_frame_datalink()), timestamps in nanoseconds after the
 * interface's if_tsresol and if_tsoffset, the file's link type and
 * snapshot being its first interface's, as libpcap gives them.
 * A gzip file (told by its magic bytes) holding either is read as a
 * stream through zlib.
 * Anything else (other magic numbers or versions, link-type flags,
 * link types other than Ethernet, raw IP (101), Linux SLL and SLL2, IPv4
 * and IPv6 (228, 229), pipes, files it cannot open or whose header is
 * short) is left to libpcap: pcapfile_open() returns NULL and the caller
 * opens the file with libpcap, which then reports the errors it always
 * reported.
 *
 *   pcapfile_open() → pcapfile_next() … → pcapfile_close()
 */
#ifndef ROCETOP_PCAPFILE_H
#define ROCETOP_PCAPFILE_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAPFILE_CHUNK (1u << 20)     /* bytes per read(); see pcapfile.c */

struct pcapfile;

/* NULL: not a file this reader takes (or out of memory); use libpcap.
 * chunk: bytes per read(), 0 for PCAPFILE_CHUNK (tests use tiny ones). */
struct pcapfile *pcapfile_open(const char *path, size_t chunk);
/* The same, with PCAPFILE_NO_READAHEAD: read() in the caller's thread only
 * (the fuzzer starts the read-ahead thread on some inputs, not all). */
#define PCAPFILE_NO_READAHEAD 1u
#define PCAPFILE_MAP 2u               /* mmap() the file whole (pcapfile.c: slower here) */
struct pcapfile *pcapfile_open_flags(const char *path, size_t chunk, unsigned flags);
/* A second reader of a mapped file, at the same place (just opened: its
 * first frame), with its own position; the mapping stays the original's,
 * which must be closed last.  NULL: not mapped (or out of memory).  For
 * rocetop --threads: each worker walks the file itself. */
struct pcapfile *pcapfile_clone(const struct pcapfile *pf);
void pcapfile_close(struct pcapfile *pf);

/* 1: a frame (data valid until the next call); 0: end of file; -1: damaged
 * or unreadable file, pcapfile_error() says why. */
int pcapfile_next(struct pcapfile *pf, struct pcap_pkthdr *h, const uint8_t **data);
const char *pcapfile_error(const struct pcapfile *pf);
/* A record's time in nanoseconds (its ts.tv_usec holds nanoseconds, as
 * source.c's deliver() makes them). */
static inline uint64_t pcapfile_ts_ns(const struct pcap_pkthdr *h)
{
	return (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
}

/* rocetop --threads' workers, each analysing the frames of its shard (the
 * frames whose roce_flow_key() % n is its number), each through its own
 * clone of one reader.  pcapfile_shard(), on the reader just opened,
 * before its clones are made: each chunk read is indexed once, with every
 * record's place and shard, so that a worker visits only its own records
 * (pcapfile.c: the shard index); -1 where it cannot (pcapng, mapped, not
 * just opened): pcapfile_next_own() then walks every record.
 * pcapfile_next_own(): as pcapfile_next(), the next record of shard me of
 * n, *no its number in the file (from 1). */
int pcapfile_shard(struct pcapfile *pf, unsigned n);
int pcapfile_next_own(struct pcapfile *pf, unsigned me, unsigned n, struct pcap_pkthdr *h, const uint8_t **data,
		      uint64_t *no);
uint64_t pcapfile_frames(const struct pcapfile *pf);   /* records read or passed over */
uint64_t pcapfile_last_ts(const struct pcapfile *pf);  /* the last one's time, ns */

int pcapfile_datalink(const struct pcapfile *pf);   /* DLT_ value, as pcap_datalink() */
/* The DLT_ value of the frame pcapfile_next() returned last: its pcapng
 * interface's (the file's in a classic pcap file). */
int pcapfile_frame_datalink(const struct pcapfile *pf);
int pcapfile_pcapng(const struct pcapfile *pf);     /* a pcapng file */
int pcapfile_snapshot(const struct pcapfile *pf);   /* as pcap_snapshot() */
int pcapfile_nsec_magic(const struct pcapfile *pf); /* the file holds nanoseconds */
int pcapfile_swapped(const struct pcapfile *pf);    /* written in the other byte order */
FILE *pcapfile_file(const struct pcapfile *pf);     /* the open file (fstat()) */
uint64_t pcapfile_offset(const struct pcapfile *pf); /* how far it has read, in bytes */
int pcapfile_mapped(const struct pcapfile *pf);      /* the file is mapped */
/* A gzip-compressed file, read as a stream (pcapfile.c): no clone.  Its
 * offset is in the uncompressed stream; pcapfile_gz_offset() is how far
 * the compressed file was read. */
int pcapfile_gz(const struct pcapfile *pf);
uint64_t pcapfile_gz_offset(const struct pcapfile *pf);
/* After pcapfile_open() returned NULL on a gzip file (libpcap reads none):
 * why, in one line; else NULL. */
const char *pcapfile_gz_error(void);

#endif
