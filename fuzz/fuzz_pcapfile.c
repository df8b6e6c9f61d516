/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for rocetop's own pcap reader (analyzer/pcapfile.c),
 * held against libpcap.  Input: one control byte, then the file.  The
 * control byte picks the reader's chunk size (1..16 bytes or 16..1024,
 * or the default 1 MiB when it is 0), so records straddle chunks;
 * when its top two bits are set, the read-ahead thread runs (on a file of
 * more than 4 chunks).  Not on every input: a thread per input, created and
 * joined, would cost more than all the rest (the mappings of its stack are
 * shot down on every core).  The file lives in a memfd (a regular file, as
 * the reader needs).
 *
 * Checked: no crash or over-read (every byte of every frame is read), and
 * the contract of pcapfile.h: when the reader takes the file, it gives what
 * pcap_next_ex() gives on the same file opened with nanosecond precision —
 * the same frames and headers, the end at the same place, an error at the
 * same frame with libpcap's text after "frame N at byte B: ".
 * A pcapng file is read by the reader alone (libpcap stops at an interface
 * of another link type, and words its errors otherwise): no crash or
 * over-read, captured lengths within the maximum, and a failure that stays.
 * Seeds: fuzz/seeds/pcap_*.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pcapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAMES 4096

static volatile unsigned sink;

static void must(int cond)
{
	if (!cond)
		abort();
}

static int pcapng_alone(struct pcapfile *pf)
{
	struct pcap_pkthdr h;
	const uint8_t *d;
	unsigned n = 0;
	int rc;

	while (n++ < MAX_FRAMES && (rc = pcapfile_next(pf, &h, &d)) == 1) {
		unsigned s = 0;

		must(h.caplen <= 262144 && h.ts.tv_usec >= 0 && h.ts.tv_usec < 1000000000);
		for (uint32_t i = 0; i < h.caplen; i++)
			s += d[i];
		sink += s + (unsigned)pcapfile_frame_datalink(pf);
	}
	if (n <= MAX_FRAMES && rc < 0)
		must(pcapfile_next(pf, &h, &d) == -1);
	pcapfile_close(pf);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64], eb[PCAP_ERRBUF_SIZE];
	struct pcapfile *pf;
	pcap_t *pc;
	size_t chunk;
	unsigned flags;

	if (size < 1)
		return 0;
	/* chunks of 1..16 bytes on a sixteenth of the inputs, 16..1024 (in
	 * steps of 16) on the rest: every read() is a system call, and tiny
	 * chunks on every input made the harness slower than 1,000 runs/s */
	chunk = !data[0] ? 0 : (data[0] & 15) == 0 ? (size_t)(data[0] >> 4) + 1 : (size_t)(data[0] % 64 + 1) * 16;
	flags = (data[0] >> 6) == 3 ? 0 : PCAPFILE_NO_READAHEAD;
	data++;
	size--;
	if (fd < 0 && (fd = memfd_create("fuzz_pcapfile", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	pf = pcapfile_open_flags(path, chunk, flags);
	if (!pf)
		return 0;              /* left to libpcap */
	if (size >= 4 && !memcmp(data, "\x0a\x0d\x0d\x0a", 4))
		return pcapng_alone(pf);
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
	must(pc != NULL);          /* a file the reader takes, libpcap takes too */
	must(pcap_datalink(pc) == pcapfile_datalink(pf));
	must(pcap_snapshot(pc) == pcapfile_snapshot(pf));
	for (unsigned n = 0; n < MAX_FRAMES; n++) {
		struct pcap_pkthdr h, *lh;
		const uint8_t *d, *ld;
		int rc = pcapfile_next(pf, &h, &d), lrc = pcap_next_ex(pc, &lh, &ld);

		if (rc == 1) {
			unsigned s = 0;

			must(lrc == 1);
			must(h.caplen == lh->caplen && h.len == lh->len);
			must(h.ts.tv_sec == lh->ts.tv_sec && h.ts.tv_usec == lh->ts.tv_usec);
			for (uint32_t i = 0; i < h.caplen; i++)
				s += d[i];
			sink += s;
			must(!memcmp(d, ld, h.caplen));
			continue;
		}
		if (rc == 0) {
			must(lrc == PCAP_ERROR_BREAK);
			break;
		}
		/* an error where libpcap reports one, with its text */
		must(rc == -1 && lrc == PCAP_ERROR);
		must(strstr(pcapfile_error(pf), pcap_geterr(pc)) != NULL);
		must(pcapfile_next(pf, &h, &d) == -1);   /* and it stays failed */
		break;
	}
	pcap_close(pc);
	pcapfile_close(pf);
	return 0;
}
