/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analyzer/pcapfile.c against libpcap (pcap_open_offline_with_tstamp_precision
 * NANO + pcap_next_ex) on the same files: both byte orders, microsecond and
 * nanosecond magic, chunks down to one byte (records straddle every
 * boundary), every truncation of a small file, records longer than the
 * snapshot or than 256 KiB, the files it leaves to libpcap, and BPF filters
 * (pcap_offline_filter on a dead handle) on lab captures.
 */
#include "testutil.h"
#include <fcntl.h>
#include <pthread.h>
#include <zlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../analyzer/pcapfile.c"

static char tmpl[64];

/* A fresh temporary path (the file is removed by the caller). */
static const char *tmp_path(void)
{
	const char *d = getenv("TMPDIR");
	int fd;

	snprintf(tmpl, sizeof tmpl, "%s/pcapfile.XXXXXX", d && strlen(d) < 40 ? d : "/tmp");
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	return tmpl;
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* ---- building pcap files in either byte order ---------------------------- */

struct img {
	uint8_t *b;
	size_t n, cap;
	int be;
};

static void put(struct img *m, const void *p, size_t n)
{
	if (m->n + n > m->cap) {
		m->cap = (m->n + n) * 2;
		m->b = realloc(m->b, m->cap);
		assert_non_null(m->b);
	}
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put32(struct img *m, uint32_t v)
{
	uint8_t b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(m->be ? v >> (24 - 8 * i) : v >> (8 * i));
	put(m, b, 4);
}

static void put16(struct img *m, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(m->be ? v >> 8 : v), (uint8_t)(m->be ? v : v >> 8) };

	put(m, b, 2);
}

static void file_header(struct img *m, int be, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snaplen,
			uint32_t linktype)
{
	memset(m, 0, sizeof *m);
	m->be = be;
	put32(m, magic);
	put16(m, major);
	put16(m, minor);
	put32(m, 0);
	put32(m, 0);
	put32(m, snaplen);
	put32(m, linktype);
}

static void record(struct img *m, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len, const uint8_t *d)
{
	put32(m, sec);
	put32(m, frac);
	put32(m, caplen);
	put32(m, len);
	put(m, d, caplen);
}

/* ---- the two readers side by side -------------------------------------------- */

/* Reads path with libpcap and with pcapfile (chunk bytes per read) and
 * asserts the same frames, headers and ending.  Returns the frames read;
 * *err_out: 1 when both ended in an error. */
static size_t compare(const char *path, size_t chunk, int *err_out)
{
	char eb[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
	struct pcapfile *pf = pcapfile_open(path, chunk);
	size_t n = 0;
	int a, b;

	*err_out = 0;
	if (!pc) {
		/* nothing libpcap cannot open is taken */
		assert_null(pf);
		*err_out = -1;
		return 0;
	}
	assert_non_null(pf);
	assert_int_equal(pcapfile_datalink(pf), pcap_datalink(pc));
	assert_int_equal(pcapfile_snapshot(pf), pcap_snapshot(pc));
	for (;;) {
		struct pcap_pkthdr *h, h2;
		const u_char *d;
		const uint8_t *d2;

		a = pcap_next_ex(pc, &h, &d);
		b = pcapfile_next(pf, &h2, &d2);
		if (a != 1 || b != 1)
			break;
		n++;
		assert_int_equal(h->ts.tv_sec, h2.ts.tv_sec);
		assert_int_equal(h->ts.tv_usec, h2.ts.tv_usec);
		assert_int_equal(h->caplen, h2.caplen);
		assert_int_equal(h->len, h2.len);
		assert_memory_equal(d, d2, h->caplen);
	}
	if (a == PCAP_ERROR_BREAK) {
		assert_int_equal(b, 0);
	} else {
		const char *e = pcapfile_error(pf), *t = strstr(e, ": ");

		if (a != PCAP_ERROR || b != -1)
			fail_msg("%s: libpcap %d (%s), pcapfile %d (%s) after %zu frames", path, a, pcap_geterr(pc), b, e, n);
		/* "frame N at byte B: " then libpcap's words */
		assert_non_null(t);
		assert_true(!strncmp(e, "frame ", 6));
		assert_string_equal(t + 2, pcap_geterr(pc));
		*err_out = 1;
		assert_int_equal(pcapfile_next(pf, &(struct pcap_pkthdr){ 0 }, &(const uint8_t *){ NULL }), -1);
	}
	pcap_close(pc);
	pcapfile_close(pf);
	return n;
}

/* The frames of a lab capture rewritten in each byte order with each
 * magic, read with chunks from 1 byte to 4 MiB. */
static void test_orders_magics_chunks(void **state)
{
	static struct test_frame fr[64];
	const size_t chunks[] = { 1, 7, 16, 17, 100, 1000, 1500, 4096, 65536, 0, 4u << 20 };
	int lt, err;
	size_t n = test_load_pcap("captures/lab/roce_rping.pcap", fr, 64, &lt);
	const char *path = tmp_path();

	(void)state;
	assert_true(n >= 50);
	for (int be = 0; be < 2; be++)
		for (int ns = 0; ns < 2; ns++) {
			struct img m;

			file_header(&m, be, ns ? MAGIC_NS : MAGIC_US, 2, 4, 65535, 1);
			for (size_t i = 0; i < n; i++)
				/* fields past 2^31: libpcap reads them signed or
				 * unsigned by byte order */
				record(&m, i == 3 ? 0x90000000u : i == 4 ? 0xfffffff0u : 1700000000u + (uint32_t)i,
				       i == 5 ? 0xf0000000u : ns ? 999999999u - (uint32_t)i : 999999u - (uint32_t)i,
				       fr[i].caplen, fr[i].len, fr[i].data);
			write_file(path, m.b, m.n);
			for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
				assert_int_equal(compare(path, chunks[c], &err), n);
				assert_int_equal(err, 0);
			}
			struct pcapfile *pf = pcapfile_open(path, 0);
			assert_non_null(pf);
			assert_int_equal(pcapfile_nsec_magic(pf), ns);
			assert_int_equal(pcapfile_swapped(pf), be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
			pcapfile_close(pf);
			free(m.b);
		}
	test_free_frames(fr, n);
	unlink(path);
}

/* A 3-frame file cut at every length: the frames libpcap gives, then an
 * error where libpcap gives one (same words), or the end of the file where
 * libpcap finds it.  Also with a snapshot length shorter than the frames
 * (libpcap cuts them) and chunks of 1, 5 and 64 bytes. */
static void test_every_truncation(void **state)
{
	uint8_t d[3][300];
	const uint32_t caplens[3] = { 60, 1, 250 };
	const size_t chunks[] = { 1, 5, 64, 0 };
	const char *path = tmp_path();

	(void)state;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 300; k++)
			d[i][k] = (uint8_t)(i * 31 + k);
	for (int be = 0; be < 2; be++)
		for (uint32_t snap = 0; snap <= 100; snap += 100) {   /* 0: none (262144) */
			struct img m;
			int errs = 0, eofs = 0, err;

			file_header(&m, be, MAGIC_NS, 2, 4, snap, 1);
			for (int i = 0; i < 3; i++)
				record(&m, 1, (uint32_t)i, caplens[i], caplens[i] + 4, d[i]);
			for (size_t len = 0; len <= m.n; len++) {
				write_file(path, m.b, len);
				for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
					size_t got = compare(path, chunks[c], &err);

					if (len == m.n)
						assert_true(got == 3 && err == 0);
					errs += err == 1;
					eofs += err == 0;
				}
			}
			/* both endings are exercised, not only one */
			assert_true(errs > 0 && eofs > 0);
			free(m.b);
		}
	unlink(path);
}

/* Records longer than the snapshot length are cut to it, as libpcap does;
 * longer than 256 KiB they are damage (the error names the frame). */
static void test_long_records(void **state)
{
	static uint8_t big[300000];
	const char *path = tmp_path();
	struct img m;
	int err;

	(void)state;
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 7);
	file_header(&m, 0, MAGIC_US, 2, 4, 128, 1);
	record(&m, 1, 1, 100, 100, big);
	record(&m, 1, 2, 200000, 200000, big);      /* cut to 128 */
	record(&m, 1, 3, 262144, 262144, big);
	record(&m, 1, 4, 50, 60, big);
	write_file(path, m.b, m.n);
	assert_int_equal(compare(path, 0, &err), 4);
	assert_int_equal(err, 0);
	assert_int_equal(compare(path, 3000, &err), 4);
	/* the buffer grows under tiny chunks: 541 bytes, so the 262144-byte
	 * record's header straddles two chunks and the two long records span
	 * 370 and 485 of them (joined, each longer than the slot's prefix).
	 * (Was 7: each chunk moved the whole unread record, 5 GB of memmove,
	 * 48 s under ASan; the chunks below a record header are
	 * test_orders_magics_chunks's.) */
	assert_int_equal(compare(path, 541, &err), 4);
	assert_int_equal(err, 0);
	record(&m, 1, 5, 262145, 262145, big);      /* damage */
	record(&m, 1, 6, 10, 10, big);
	write_file(path, m.b, m.n);
	assert_int_equal(compare(path, 0, &err), 4);
	assert_int_equal(err, 1);

	struct pcapfile *pf = pcapfile_open(path, 0);
	struct pcap_pkthdr h;
	const uint8_t *d;
	assert_non_null(pf);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pcapfile_next(pf, &h, &d), 1);
	assert_int_equal(pcapfile_next(pf, &h, &d), -1);
	assert_non_null(strstr(pcapfile_error(pf), "frame 5 at byte "));
	assert_non_null(strstr(pcapfile_error(pf), "262145"));
	pcapfile_close(pf);
	free(m.b);

	/* a snapshot length above 256 KiB (libpcap keeps it): the other words */
	file_header(&m, 0, MAGIC_US, 2, 4, 300000, 1);
	record(&m, 1, 1, 262144, 262144, big);
	record(&m, 1, 2, 262145, 262145, big);
	write_file(path, m.b, m.n);
	assert_int_equal(compare(path, 0, &err), 1);
	assert_int_equal(err, 1);
	free(m.b);

	/* 100 MB claimed in the first record */
	file_header(&m, 1, MAGIC_NS, 2, 4, 65535, 1);
	record(&m, 1, 1, 0, 0, big);
	m.n -= 8;
	put32(&m, 100000000);
	put32(&m, 100000000);
	put(&m, big, 64);
	write_file(path, m.b, m.n);
	assert_int_equal(compare(path, 0, &err), 0);
	assert_int_equal(err, 1);
	free(m.b);
	unlink(path);
}

/* Link types and snapshot lengths as libpcap reports them; what is left
 * to libpcap. */
static void test_header_fields_and_fallback(void **state)
{
	const uint32_t lts[] = { 1, 101, 113, 228, 229, 276 };
	const uint32_t snaps[] = { 0, 1, 1500, 65535, 262144, 262145, 0x7fffffffu, 0x80000000u, 0xffffffffu };
	const char *path = tmp_path();
	uint8_t fr[64] = { 0x45 };
	struct img m;
	int err;

	(void)state;
	for (size_t i = 0; i < sizeof lts / sizeof lts[0]; i++)
		for (size_t k = 0; k < sizeof snaps / sizeof snaps[0]; k++) {
			file_header(&m, (int)(i & 1), MAGIC_US, 2, 4, snaps[k], lts[i]);
			record(&m, 5, 6, sizeof fr, sizeof fr, fr);
			write_file(path, m.b, m.n);
			assert_int_equal(compare(path, 0, &err), 1);
			free(m.b);
		}

	/* libpcap's: other link types, link-type flags, versions, magic numbers */
	const struct { uint32_t magic; uint16_t major, minor; uint32_t lt; } other[] = {
		{ MAGIC_US, 2, 4, 105 }, { MAGIC_US, 2, 4, 12 }, { MAGIC_US, 2, 4, 1 | 0x14000000u },
		{ MAGIC_US, 2, 3, 1 }, { MAGIC_US, 2, 2, 1 }, { MAGIC_US, 2, 5, 1 }, { MAGIC_US, 1, 4, 1 },
		{ 0xa1b2cd34u, 2, 4, 1 }, { 0x0a0d0d0au, 2, 4, 1 }, { 0x12345678u, 2, 4, 1 },
	};
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		file_header(&m, 0, other[i].magic, other[i].major, other[i].minor, 65535, other[i].lt);
		record(&m, 5, 6, sizeof fr, sizeof fr, fr);
		write_file(path, m.b, m.n);
		assert_null(pcapfile_open(path, 0));
		free(m.b);
	}
	unlink(path);
	assert_null(pcapfile_open(path, 0));        /* missing */
	assert_null(pcapfile_open("-", 0));         /* standard input */
	assert_null(pcapfile_open("captures", 0));  /* a directory */
	assert_int_equal(mkfifo(path, 0600), 0);    /* a pipe */
	int wfd = open(path, O_RDWR | O_NONBLOCK);
	assert_true(wfd >= 0);
	assert_null(pcapfile_open(path, 0));
	close(wfd);
	unlink(path);
}

/* Lab captures: every frame as libpcap gives it, and for each filter the
 * frames it passes, with the program compiled on a dead handle of the
 * file's link type and snapshot and run per frame, against libpcap's own
 * filtering. */
/* gzip-compressed copies (zlib's gzwrite) of lab and builder-made captures
 * (pcapng.gz: tests/cli.sh): the same frames as libpcap gives for the uncompressed file,
 * with chunks from 1 byte up; cut anywhere inside, the frames before the
 * cut, then "truncated gzip stream". */
static void gz_copy(const char *from, const char *to)
{
	FILE *f = fopen(from, "rb");
	gzFile z = gzopen(to, "wb");
	uint8_t b[65536];
	size_t n;

	assert_non_null(f);
	assert_non_null(z);
	while ((n = fread(b, 1, sizeof b, f)) > 0)
		assert_int_equal(gzwrite(z, b, (unsigned)n), (int)n);
	fclose(f);
	assert_int_equal(gzclose(z), Z_OK);
}

static void test_gzip(void **state)
{
	const char *files[] = {
		"captures/lab/roce_rping.pcap", "captures/lab/roce_send_bw_netem.pcap",
		"captures/lab/iwarp_rping.pcap", "captures/gen/linktypes_sll2.pcap",
	};
	const size_t chunks[] = { 1, 7, 4096, 0 };
	char gz[80];

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char eb[PCAP_ERRBUF_SIZE];
		struct stat st;
		uint8_t *whole;

		snprintf(gz, sizeof gz, "%s", tmp_path());
		gz_copy(files[i], gz);
		for (size_t c = i ? 1 : 0; c < sizeof chunks / sizeof chunks[0]; c++) {   /* 1 byte: the small one */
			pcap_t *pc = pcap_open_offline_with_tstamp_precision(files[i], PCAP_TSTAMP_PRECISION_NANO, eb);
			struct pcapfile *pf = pcapfile_open(gz, chunks[c]);
			struct pcap_pkthdr *h, h2;
			const u_char *d;
			const uint8_t *d2;
			size_t n = 0;
			int a, b;

			assert_non_null(pc);
			assert_non_null(pf);
			assert_true(pcapfile_gz(pf));
			assert_null(pcapfile_clone(pf));
			assert_int_equal(pcapfile_datalink(pf), pcap_datalink(pc));
			assert_int_equal(pcapfile_snapshot(pf), pcap_snapshot(pc));
			while ((a = pcap_next_ex(pc, &h, &d)) == 1) {
				b = pcapfile_next(pf, &h2, &d2);
				assert_int_equal(b, 1);
				assert_int_equal(h->ts.tv_sec, h2.ts.tv_sec);
				assert_int_equal(h->ts.tv_usec, h2.ts.tv_usec);
				assert_int_equal(h->caplen, h2.caplen);
				assert_int_equal(h->len, h2.len);
				assert_memory_equal(d, d2, h->caplen);
				n++;
			}
			assert_int_equal(a, PCAP_ERROR_BREAK);
			assert_int_equal(pcapfile_next(pf, &h2, &d2), 0);
			assert_true(n > 0);
			assert_int_equal(pcapfile_gz_offset(pf), (uint64_t)gzoffset(pf->gz));
			pcap_close(pc);
			pcapfile_close(pf);
		}
		/* cut short: fewer frames, then the error; never a clean end */
		assert_int_equal(stat(gz, &st), 0);
		whole = malloc((size_t)st.st_size);
		assert_non_null(whole);
		{
			FILE *f = fopen(gz, "rb");

			assert_non_null(f);
			assert_int_equal(fread(whole, 1, (size_t)st.st_size, f), (size_t)st.st_size);
			fclose(f);
		}
		for (long cut = st.st_size - 1; cut > 0; cut = cut * 2 / 3) {
			struct pcapfile *pf;
			struct pcap_pkthdr h2;
			const uint8_t *d2;
			int b;

			write_file(gz, whole, (size_t)cut);
			pf = pcapfile_open(gz, 4096);
			if (!pf) {
				/* cut inside the capture's own header: said why (from gzip's
				 * two magic bytes on) */
				assert_true(cut < 2 || pcapfile_gz_error());
				if (cut < 2)
					continue;
				assert_non_null(strstr(pcapfile_gz_error(), "gzip"));
				continue;
			}
			while ((b = pcapfile_next(pf, &h2, &d2)) == 1)
				;
			assert_int_equal(b, -1);
			assert_non_null(strstr(pcapfile_error(pf), "truncated gzip stream"));
			pcapfile_close(pf);
		}
		free(whole);
		unlink(gz);
	}
}

static void test_lab_captures_and_filters(void **state)
{
	const char *files[] = {
		"captures/lab/roce_rping.pcap", "captures/lab/roce_send_bw_netem.pcap",
		"captures/lab/roce_rc_pingpong_ipv6gid.pcap", "captures/lab/iwarp_rping.pcap",
		"captures/gen/linktypes_raw.pcap", "captures/gen/linktypes_sll.pcap", "captures/gen/linktypes_sll2.pcap",
		"captures/gen/vlan.pcap", "captures/gen/truncated.pcap",
	};
	const char *filters[] = {
		"udp dst port 4791", "udp dst port 4791 and ip src 10.99.0.2", "ip6", "tcp", "len > 600",
		"udp[8] = 0x04", "vlan", "vlan and udp", "not udp", "greater 1000 or less 80",
	};
	int err;

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char eb[PCAP_ERRBUF_SIZE];
		size_t total = compare(files[i], 0, &err);

		assert_int_equal(err, 0);
		assert_true(total > 0);
		for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++) {
			pcap_t *pc = pcap_open_offline_with_tstamp_precision(files[i], PCAP_TSTAMP_PRECISION_NANO, eb);
			struct pcapfile *pf = pcapfile_open(files[i], 4096);
			struct bpf_program a, b;
			struct pcap_pkthdr *h, h2;
			const u_char *d;
			const uint8_t *d2;
			size_t passed = 0;
			pcap_t *dead;

			assert_non_null(pc);
			assert_non_null(pf);
			dead = pcap_open_dead_with_tstamp_precision(pcapfile_datalink(pf), pcapfile_snapshot(pf),
								    PCAP_TSTAMP_PRECISION_NANO);
			assert_non_null(dead);
			if (pcap_compile(pc, &a, filters[k], 1, PCAP_NETMASK_UNKNOWN) < 0) {
				/* e.g. vlan on raw IP: the dead handle refuses it too */
				assert_true(pcap_compile(dead, &b, filters[k], 1, PCAP_NETMASK_UNKNOWN) < 0);
				assert_string_equal(pcap_geterr(dead), pcap_geterr(pc));
				goto next;
			}
			assert_int_equal(pcap_setfilter(pc, &a), 0);
			assert_int_equal(pcap_compile(dead, &b, filters[k], 1, PCAP_NETMASK_UNKNOWN), 0);
			assert_int_equal(a.bf_len, b.bf_len);
			assert_memory_equal(a.bf_insns, b.bf_insns, a.bf_len * sizeof *a.bf_insns);
			while (pcap_next_ex(pc, &h, &d) == 1) {
				int rc;

				while ((rc = pcapfile_next(pf, &h2, &d2)) == 1 && !pcap_offline_filter(&b, &h2, d2))
					;
				assert_int_equal(rc, 1);
				assert_int_equal(h->caplen, h2.caplen);
				assert_int_equal(h->ts.tv_usec, h2.ts.tv_usec);
				assert_memory_equal(d, d2, h->caplen);
				passed++;
			}
			while (pcapfile_next(pf, &h2, &d2) == 1)
				assert_false(pcap_offline_filter(&b, &h2, d2));
			print_message("  %s '%s': %zu of %zu\n", files[i], filters[k], passed, total);
			pcap_freecode(&a);
			pcap_freecode(&b);
next:
			pcap_close(dead);
			pcap_close(pc);
			pcapfile_close(pf);
		}
	}
}

/* Readers of one chunk store (pcapfile_clone(): rocetop --threads' workers)
 * each give every frame libpcap gives, read in turns of 1, 2, 3 and 4
 * frames (a reader may run up to the store's slots ahead: here one thread
 * reads them all, so the others are kept near), or stopping early. */
static void test_clones(void **state)
{
	const char *files[] = { "captures/lab/roce_send_bw_netem.pcap", "captures/lab/roce_write_bw_rdmacm.pcap" };
	const size_t chunks[] = { 0, 4096, 65536 };

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char eb[PCAP_ERRBUF_SIZE];

		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
			struct pcapfile *orig = pcapfile_open_flags(files[i], chunks[c], c == 0 ? 0 : PCAPFILE_NO_READAHEAD);
			struct pcapfile *pf = orig, *cl[3];
			pcap_t *pc[4];
			size_t n[4] = { 0 };
			int live = 4;

			assert_non_null(orig);
			for (int k = 0; k < 3; k++)
				assert_non_null(cl[k] = pcapfile_clone(orig));
			for (int k = 0; k < 4; k++)
				assert_non_null(pc[k] = pcap_open_offline_with_tstamp_precision(files[i],
								PCAP_TSTAMP_PRECISION_NANO, eb));
			/* reader k reads k + 1 frames a turn while the others catch up;
			 * clone 2 stops after 50 */
			while (live) {
				live = 0;
				for (int k = 0; k < 4; k++) {
					struct pcapfile *r = k ? cl[k - 1] : pf;

					if (!r)
						continue;
					for (int j = 0; j <= k && n[k] <= n[0] + 4; j++) {
						struct pcap_pkthdr *h, h2;
						const u_char *d;
						const uint8_t *d2;
						int a = pcap_next_ex(pc[k], &h, &d), b = pcapfile_next(r, &h2, &d2);

						if (a != 1) {
							assert_int_equal(b, 0);
							if (k)
								pcapfile_close(r), cl[k - 1] = NULL;
							else
								pf = NULL;
							break;
						}
						assert_int_equal(b, 1);
						assert_int_equal(h->caplen, h2.caplen);
						assert_int_equal(h->ts.tv_usec, h2.ts.tv_usec);
						assert_memory_equal(d, d2, h->caplen);
						n[k]++;
					}
					if (k == 3 && cl[2] && n[3] >= 50) {
						pcapfile_close(cl[2]);
						cl[2] = NULL;
					}
					live += (k ? cl[k - 1] : pf) != NULL;
				}
			}
			assert_true(n[0] > 100);
			assert_int_equal(n[1], n[0]);
			assert_int_equal(n[2], n[0]);
			assert_true(n[3] >= 50 && n[3] < n[0]);
			for (int k = 0; k < 4; k++)
				pcap_close(pc[k]);
			/* the original is closed last (it owns the file) */
			pcapfile_close(orig);
		}
	}
}

/* ---- shards (pcapfile_shard(), pcapfile_next_own()): rocetop --threads ---- */

struct shard_rec {
	uint64_t no, ts;
	uint32_t caplen, len, sum;
};

struct shard_run {
	struct pcapfile *pf;
	unsigned me, n;
	struct shard_rec *v;
	size_t nv, cap;
	int rc;
	uint64_t frames, last_ts;
	char err[PCAP_ERRBUF_SIZE + 64];
};

static uint32_t shard_sum(const uint8_t *d, uint32_t n)
{
	return (uint32_t)crc32(0, d, n);
}

static void shard_add(struct shard_run *r, uint64_t no, const struct pcap_pkthdr *h, const uint8_t *d)
{
	if (r->nv == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, r->cap * sizeof *r->v);
		assert_non_null(r->v);
	}
	r->v[r->nv++] = (struct shard_rec){ no, (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec,
					    h->caplen, h->len, shard_sum(d, h->caplen) };
}

static void *shard_main(void *arg)
{
	struct shard_run *r = arg;
	struct pcap_pkthdr h;
	const uint8_t *d;
	uint64_t no;

	while ((r->rc = pcapfile_next_own(r->pf, r->me, r->n, &h, &d, &no)) == 1)
		shard_add(r, no, &h, d);
	r->frames = pcapfile_frames(r->pf);
	r->last_ts = pcapfile_last_ts(r->pf);
	snprintf(r->err, sizeof r->err, "%s", pcapfile_error(r->pf));
	return NULL;
}

/* path read by n workers (threads, each its clone) through the shard index
 * against one reader's pcapfile_next() with every record's key: each worker
 * gets exactly the records of its key, in order, with their numbers in the
 * file, and the same ending (the end, or the same error at the same
 * frame); all end with the file's record count and last time.  Returns
 * whether the index was used. */
static int shard_compare(const char *path, size_t chunk, unsigned n, unsigned flags)
{
	struct pcapfile *ref = pcapfile_open(path, chunk), *pf;
	struct shard_run want[4], got[4];
	pthread_t th[4];
	struct pcap_pkthdr h;
	const uint8_t *d;
	int rc, used;

	assert_true(n >= 1 && n <= 4);
	assert_non_null(ref);
	memset(want, 0, sizeof want);
	memset(got, 0, sizeof got);
	while ((rc = pcapfile_next(ref, &h, &d)) == 1)
		shard_add(&want[roce_flow_key(pcapfile_frame_datalink(ref), d, h.caplen) % n], pcapfile_frames(ref), &h, d);
	assert_non_null(pf = pcapfile_open_flags(path, chunk, flags));
	if (!(flags & PCAPFILE_NO_READAHEAD))
		usleep(2000);
	used = pcapfile_shard(pf, n) == 0;
	for (unsigned k = 0; k < n; k++) {
		got[k] = (struct shard_run){ .pf = k ? pcapfile_clone(pf) : pf, .me = k, .n = n };
		assert_non_null(got[k].pf);
	}
	for (unsigned k = 0; k < n; k++)
		assert_int_equal(pthread_create(&th[k], NULL, shard_main, &got[k]), 0);
	for (unsigned k = 0; k < n; k++)
		assert_int_equal(pthread_join(th[k], NULL), 0);
	for (unsigned k = 0; k < n; k++) {
		if (got[k].nv != want[k].nv)
			fail_msg("%s chunk %zu, shard %u of %u: %zu records, want %zu", path, chunk, k, n, got[k].nv,
				 want[k].nv);
		for (size_t i = 0; i < want[k].nv; i++) {
			const struct shard_rec *x = &got[k].v[i], *y = &want[k].v[i];

			if (x->no != y->no || x->ts != y->ts || x->caplen != y->caplen || x->len != y->len || x->sum != y->sum)
				fail_msg("%s chunk %zu, shard %u of %u, record %zu: no %llu/%llu caplen %u/%u sum %x/%x", path,
					 chunk, k, n, i, (unsigned long long)x->no, (unsigned long long)y->no, x->caplen,
					 y->caplen, x->sum, y->sum);
		}
		assert_int_equal(got[k].rc, rc);
		if (rc < 0)
			assert_string_equal(got[k].err, pcapfile_error(ref));
		assert_int_equal(got[k].frames, pcapfile_frames(ref));
		assert_int_equal(got[k].last_ts, pcapfile_last_ts(ref));
		free(got[k].v);
		free(want[k].v);
	}
	for (unsigned k = n; k-- > 1;)
		pcapfile_close(got[k].pf);
	pcapfile_close(pf);
	pcapfile_close(ref);
	return used;
}

/* A frame of its own connection (Ethernet, IPv4 10.x.y.1 -> 10.x.y.2). */
static uint32_t shard_frame(uint8_t *f, uint32_t len, unsigned conn)
{
	memset(f, 0, len);
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	f[26] = f[30] = 10;
	f[27] = f[31] = (uint8_t)(conn >> 8);
	f[28] = f[32] = (uint8_t)conn;
	f[29] = 1;
	f[33] = 2;
	for (uint32_t i = 34; i < len; i++)
		f[i] = (uint8_t)(i * 13 + conn);
	return len;
}

static void test_shards(void **state)
{
	static uint8_t f[40000];
	const char *files[] = { "captures/lab/roce_send_bw_netem.pcap", "captures/lab/roce_write_bw_rdmacm.pcap",
				"captures/lab/roce_rc_pingpong_ipv6gid.pcap", "captures/lab/iwarp_rping.pcap" };
	const size_t chunks[] = { 0, 1, 7, 100, 4096, 65536 };
	const char *path = tmp_path();
	uint32_t seed = 1;
	struct img m;
	int used = 0;

	(void)state;
	/* the 2 MB capture in 1 MiB and 4 KiB chunks, the 190 KB one from 100
	 * bytes, the small ones from 1 byte (tiny chunks take long) */
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
			for (unsigned n = 1; n <= 3; n++)
				if (i >= 2 || chunks[c] == 0 || chunks[c] == 4096 || (i == 1 && chunks[c] >= 100))
					used += shard_compare(files[i], chunks[c], n, c ? PCAPFILE_NO_READAHEAD : 0);
	assert_int_equal(used, (2 + 4 + 6 + 6) * 3);

	/* 1500 frames of 64 connections, 60 B to 1 KiB, a few of 20,000 (longer
	 * than a slot's prefix: the index stops there), both byte orders, cut short
	 * and damaged (a record of 300,000 bytes) */
	for (int be = 0; be < 2; be++) {
		file_header(&m, be, be ? MAGIC_US : MAGIC_NS, 2, 4, be ? 1500 : 0, 1);
		for (unsigned k = 0; k < 1500; k++) {
			uint32_t len;

			seed = seed * 1103515245u + 12345u;
			len = k % 499 == 250 ? 20000 : 60 + (seed >> 8) % 1000;
			record(&m, 1000 + k / 100, k * 7, shard_frame(f, len, (seed >> 4) % 64), len + 4, f);
		}
		for (int variant = 0; variant < 3; variant++) {
			size_t nbytes = m.n;

			if (variant == 1)
				nbytes -= 1000;                   /* the last record cut */
			write_file(path, m.b, nbytes);
			if (variant == 2) {
				struct img x = m;
				size_t mid = 24, k;

				/* record 1234's caplen made 300,000 */
				for (k = 0; k < 1234; k++) {
					uint32_t cl;

					memcpy(&cl, x.b + mid + 8, 4);
					if (be)
						cl = __builtin_bswap32(cl);
					mid += 16 + cl;
				}
				x.b = malloc(m.n);
				assert_non_null(x.b);
				memcpy(x.b, m.b, m.n);
				x.b[mid + 8] = be ? 0 : 0xe0;
				x.b[mid + 9] = be ? 0x04 : 0x93;
				x.b[mid + 10] = be ? 0x93 : 0x04;
				x.b[mid + 11] = be ? 0xe0 : 0;
				write_file(path, x.b, m.n);
				free(x.b);
			}
			/* 4 KiB and 64 KiB chunks (those under 4 KiB are the lab captures'),
			 * with the read-ahead thread, which has read chunks before the index
			 * starts (shard_compare() gives it time) */
			for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
				for (unsigned n = 2; n <= 3; n++)
					if (chunks[c] >= 4096)
						assert_true(shard_compare(path, chunks[c], n, 0));
		}
		free(m.b);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders_magics_chunks),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_long_records),
		cmocka_unit_test(test_header_fields_and_fallback),
		cmocka_unit_test(test_lab_captures_and_filters),
		cmocka_unit_test(test_clones),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_shards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
