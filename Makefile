# SPDX-License-Identifier: GPL-2.0-or-later
# rocetop — top-level build.  `make` builds everything into build/;
# `make check` installs what is missing, builds, and runs every test.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
SAN     ?=

CC      ?= cc
PKG_CONFIG ?= pkg-config

VERSION   := 0.1.0
SOVERSION := 0

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2
CFLAGS  ?= -O2 -g
# lib/ by layer: link (capture link types, encapsulations), codec (one file
# per header), analysis (sequence and stream engines), transport (RC engine).
LIB_DIRS   := lib/link lib/codec lib/analysis lib/transport
LIB_INC    := -Ilib $(addprefix -I,$(LIB_DIRS))
GEN_INC    := -Igenerator $(addprefix -Igenerator/,tx conv conform iwarp stress fingerprint) -Itarget
BASECFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE $(LIB_INC) -fno-strict-aliasing
ifeq ($(SAN),1)
  BASECFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  LDSAN := -fsanitize=address,undefined
  # The tests start sanitized programs thousands of times, and a start is
  # mostly page faults (each a trap to the hypervisor on a VM).  So programs,
  # tests and tools take the sanitizer runtimes in statically (no dynamic
  # binding of libasan's interceptors) and are not position-independent (no
  # relocation of their data at start): `rocetop -r` on a capture of a few
  # KiB went from 5,686 to 4,020 page faults and 110 to 70 ms of CPU, then
  # to 3,482 (perf stat -r 20, 8 December 2026); golden.sh's sanitized run
  # 5.2-6.4 -> 3.9-4.5 CPU-s.  make check's total stayed within its
  # run-to-run noise (840 -> 878 CPU-s on clean clones).  What is checked
  # does not change.  libroce.so keeps LDSAN: a shared object carries no
  # runtime.
  LDSAN_EXE := $(LDSAN) -static-libasan -static-libubsan -no-pie
endif
ALLCFLAGS = $(BASECFLAGS) $(CFLAGS)
LDFLAGS ?=

# Debian packages the build and the tests need.
# Tests run Debian's programs (python3 from DEB_PKGS, not a pyenv shim that
# takes seconds to start) whatever else is first on the caller's PATH.
export PATH := /usr/sbin:/usr/bin:$(PATH)

DEB_PKGS := gcc make pkg-config python3 clang libclang-rt-14-dev libpcap-dev libnet1-dev \
            libncurses-dev libcmocka-dev zlib1g-dev tshark wireshark-dev libwireshark-dev tmux \
            libibverbs-dev librdmacm-dev libmnl-dev \
            tcpdump tcpreplay iproute2 iputils-ping jq prometheus prometheus-alertmanager nftables \
            debhelper dpkg-dev fakeroot lintian libcap2-bin adduser debconf util-linux git \
            systemd procps time \
            libssl-dev libcrypt-dev apache2-utils curl openssl valgrind

LIB_SRCS  := $(sort $(wildcard lib/*.c lib/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_PIC   := $(LIB_SRCS:%.c=$(BUILD)/pic/%.o)
# With SAN=1 libroce.a takes the position-independent objects of libroce.so
# (one object set instead of two: the sanitized build is for the tests, not
# for speed).  The normal build keeps non-PIC objects for its programs: one
# PIC set for all (-fPIC -fno-semantic-interposition) saves about 11 CPU-s of
# a make check's build, but GCC then leaves roce_icrc_wire(), roce_ext_len()
# and roce_seq_mtu_code() out of line and a replay costs 17.5 instructions a
# frame more (callgrind, bench/flow.sh's 512-connection mix: 2,580 against
# 2,563, 7 December 2026).
ifeq ($(SAN),1)
  LIB_OBJS := $(LIB_PIC)
endif
# analyzer/*/ holds the TUI (analyzer/tui/) and the device source (analyzer/device/:
# RDMA netlink through libmnl, sysfs, ethtool)
ANA_SRCS  := $(sort $(wildcard analyzer/*.c analyzer/*/*.c))
ANA_OBJS  := $(ANA_SRCS:%.c=$(BUILD)/obj/%.o)
GEN_SRCS  := $(sort $(wildcard generator/*.c generator/*/*.c))
# target/ctlauth.c: rocetarget's challenge-response, answered by conform_live.c
GEN_SRCS  += target/ctlauth.c
GEN_OBJS  := $(GEN_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(BUILD)/tools/%)
# The sanitized build (SAN=1) is for the tests: its `all` leaves out the tools
# no test runs (the benchmarks' bench_crc and bench_decode, the lab's netlink
# recorder nlrecord); bench_flow stays (tests/rtt.sh runs its mk1m).
SAN_SKIP_TOOLS := bench_crc bench_decode nlrecord
ifeq ($(SAN),1)
  TOOL_BINS := $(filter-out $(SAN_SKIP_TOOLS:%=$(BUILD)/tools/%),$(TOOL_BINS))
endif

# roce.h and the headers it includes
PUBLIC_HEADERS := lib/roce.h lib/codec/iwarp.h lib/codec/dcb.h lib/analysis/seq.h lib/analysis/rtt.h lib/transport/qp.h
LIBA   := $(BUILD)/lib/libroce.a
LIBSO  := $(BUILD)/lib/libroce.so.$(VERSION)
LIBPC  := $(BUILD)/lib/libroce.pc
ROCETOP := $(BUILD)/bin/rocetop
ROCEGEN := $(BUILD)/bin/rocegen

PROGRAMS := $(if $(ANA_SRCS),$(ROCETOP)) $(if $(GEN_SRCS),$(ROCEGEN))
LIBPIC_A := $(BUILD)/lib/libroce_pic.a

# Prometheus rules (with their promtool tests) and the Grafana dashboard,
# installed under $(PREFIX)/share/rocetop/
CONTRIB_PROM    := contrib/prometheus/rocetop.rules.yml contrib/prometheus/rocetop.rules.test.yml
CONTRIB_GRAFANA := contrib/grafana/rocetop-dashboard.json contrib/grafana/rocetop-provisioning.yml

# Test scripts run by check-one, each with BUILD in its environment, in this
# order; fragments below may append to it.
CHECK_SCRIPTS := tests/exports.sh tests/golden.sh tests/difftest.py tests/cli.sh tests/gen_cli.sh tests/install.sh tests/analysis.sh tests/iwarp_sync.sh tests/encap.sh tests/link.sh tests/rtt.sh tests/prom.sh tests/icrc.sh tests/device.sh tests/caps.sh tests/live.sh tests/tui.sh tests/gen.sh tests/rc.sh tests/frameno.sh
CHECK_SCRIPTS += tests/device_replay.sh
CHECK_SCRIPTS += tests/optctr.sh
CHECK_SCRIPTS += tests/device_record.sh
CHECK_SCRIPTS += tests/device_public.sh
CHECK_SCRIPTS += tests/threads.sh
CHECK_SCRIPTS += tests/invariance.sh
CHECK_SCRIPTS += tests/iwarp_conv.sh
CHECK_SCRIPTS += tests/conform_iwarp.sh
# issue 25: what a new user reads first (message sizes, short-capture rates, --packets marks, -w -, TERM)
CHECK_SCRIPTS += tests/firstread.sh
# every example of README.md and the man pages, run as written (issue 25)
CHECK_SCRIPTS += tests/examples.py
# the diagnosis: a raising capture and a near miss per verdict (tools/mkdiag)
CHECK_SCRIPTS += tests/diag.sh
# the diagnosis live: a verdict raised, cleared after 10 s, raised again (JSON snapshots, the v screen)
CHECK_SCRIPTS += tests/diag_live.sh

# `rocegen stress` against the in-process reference adapter (generator/stress/)
CHECK_SCRIPTS += tests/stress_unit.sh
CHECK_SCRIPTS += tests/stress_rnr.sh
# `rocegen search` (generator/search/) with the planted anomaly of the reference
CHECK_SCRIPTS += tests/search_unit.sh
# `rocegen search` through rocetarget when rocetarget fails (none reachable, the
# channel closed, no RDMA device): no anomaly of it, a stated stop; --time-limit
CHECK_SCRIPTS += tests/search_live.sh
# `rocegen isolation` through rocetarget when rocetarget fails (no RDMA device, a
# wrong key, nothing listening): one line, exit 1, no case reported
CHECK_SCRIPTS += tests/isolation_live.sh
# `rocegen fingerprint` (generator/fingerprint/) against the reference adapter's CNP modes
CHECK_SCRIPTS += tests/fingerprint_unit.sh
# `rocegen stress --sweep-qps` (the QP-scalability curve, its knee) against qpcache:N; 16,384 QPs
CHECK_SCRIPTS += tests/sweep_unit.sh
# `rocegen isolation` (generator/isolation/) against the reference's iso-shared/iso-fair modes
CHECK_SCRIPTS += tests/isolation_unit.sh
# `rocegen stress --reference pathloss`: loss rocegen did not inject, found and explained
CHECK_SCRIPTS += tests/pathloss_unit.sh
# contrib/'s rules (promtool) and dashboard queries against a real Prometheus
CHECK_SCRIPTS += tests/prom_rules.sh
# three exporters in network namespaces, Prometheus and Alertmanager (root)
CHECK_SCRIPTS += tests/prom_fleet.sh
CHECK_SCRIPTS += tests/prom_tls.sh
# The Wireshark plugin's rules (it sets PLUGIN and may append to CHECK_SCRIPTS).
PLUGIN :=
-include dissectors/plugin.mk
# rocetarget (libibverbs) and the conform catalogue's in-process test
-include target/target.mk

.PHONY: all lib check check-build-normal check-build-san check-build-fuzz unit check-one run bench fuzz fuzz-smoke install clean deps \
        have-deps golden difftest interop fixtures bench-gen bench-prom bench-lab bench-live bench-stress soak \
        dist-build print-public-headers print-programs print-plugin print-contrib-prom \
        print-contrib-grafana deb check-deb
.DEFAULT_GOAL := all

all: lib $(PROGRAMS) $(TOOL_BINS) $(PLUGIN)

lib: $(LIBA) $(LIBSO) $(LIBPC)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -fPIC -fno-semantic-interposition -fvisibility=default -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# position-independent static library, for the Wireshark plugin
$(LIBPIC_A): $(LIB_PIC)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# Only the public roce_* API is exported (lib/libroce.map, version node
# LIBROCE_0; regenerate with tools/libmap.sh write after adding API).
LIBMAP := lib/libroce.map

$(LIBSO): $(LIB_PIC) $(LIBMAP)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libroce.so.$(SOVERSION) -Wl,--version-script,$(LIBMAP) $(LDSAN) $(LDFLAGS) \
		-o $@ $(LIB_PIC)
	ln -sf libroce.so.$(VERSION) $(BUILD)/lib/libroce.so.$(SOVERSION)
	ln -sf libroce.so.$(SOVERSION) $(BUILD)/lib/libroce.so

# Headers go to $(INCLUDEDIR) (roce.h and what it includes, side by side:
# #include <roce.h> with pkg-config's -I), the library to $(LIBDIR).
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include/roce

$(LIBPC): Makefile
	@mkdir -p $(@D)
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: libroce\nDescription: RoCE, iWARP and DCB frame codec\nVersion: %s\nLibs: -L$${libdir} -lroce\nCflags: -I$${includedir}\n' \
		'$(PREFIX)' '$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))' \
		'$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))' '$(VERSION)' > $@

$(ROCETOP): $(ANA_OBJS) $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(LDSAN_EXE) $(LDFLAGS) -o $@ $(ANA_OBJS) $(LIBA) -lpcap -lz -lncursesw -lmnl -libverbs -lssl -lcrypto -lcrypt -lm

$(GEN_OBJS): ALLCFLAGS += $(GEN_INC)
$(ANA_OBJS): ALLCFLAGS += -Ianalyzer -Ianalyzer/device

$(ROCEGEN): $(GEN_OBJS) $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(LDSAN_EXE) $(LDFLAGS) -o $@ $(GEN_OBJS) $(LIBA) -lpcap -lnet -lcrypto -lm

$(BUILD)/tests/%: tests/unit/%.c $(LIBA) tests/unit/testutil.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Itests/unit $(LDSAN_EXE) -o $@ $< $(TEST_OBJS_$*) $(LIBA) -lcmocka -lz -lpcap $(TEST_LIBS_$*)

$(BUILD)/tools/%: tools/%.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) $(TOOL_CFLAGS_$*) $(LDSAN_EXE) -o $@ $< $(TOOL_EXTRA_$*) $(LIBA) -lpcap -lz -lm

# the fixture writers share their capture and .expect files (tools/fixcap/)
FIXCAP := tools/fixcap/fixcap.c
$(BUILD)/tools/mkanalysis $(BUILD)/tools/mkdiag: $(FIXCAP) tools/fixcap/fixcap.h
TOOL_EXTRA_mkanalysis := $(FIXCAP)
TOOL_EXTRA_mkdiag := $(FIXCAP)
TOOL_CFLAGS_mkanalysis := -Itools/fixcap
TOOL_CFLAGS_mkdiag := -Itools/fixcap

# the --device-replay recording of an mlx4 and an mlx5 (netlink answers built with libmnl)
$(BUILD)/tools/mkdevrec: $(FIXCAP) tools/fixcap/fixcap.h
TOOL_EXTRA_mkdevrec := -lmnl $(FIXCAP)
TOOL_CFLAGS_mkdevrec := -Itools/fixcap

# the netlink recorder: the device source's netlink files, libmnl
$(BUILD)/tools/nlrecord: tools/nlrecord.c analyzer/device/nlsock.c analyzer/device/nlparse.c analyzer/device/nlsock.h analyzer/device/nlparse.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Ianalyzer/device $(LDSAN_EXE) -o $@ $< analyzer/device/nlsock.c analyzer/device/nlparse.c -lmnl

# tests and tools that compile an analyzer file in (the flow engine; test_flow
# links the rest, see TEST_OBJS below)
$(BUILD)/tests/test_flow $(BUILD)/tools/bench_flow: analyzer/flow.c analyzer/flow.h analyzer/iwstream.c analyzer/iwstream.h analyzer/ibident.c analyzer/ibident.h \
	analyzer/diag.c analyzer/diag_rules.c analyzer/diag_pacing.c analyzer/diag_pacing_view.c analyzer/diag.h analyzer/diag_int.h
$(BUILD)/tests/test_pcapfile: analyzer/pcapfile.c analyzer/pcapfile.h
# the device source's netlink parser (libmnl)
$(BUILD)/tests/test_nlparse: analyzer/device/nlparse.c analyzer/device/nlparse.h analyzer/device/nlsock.c tests/unit/test_nlparse_fixtures.h
TEST_LIBS_test_nlparse := -lmnl
# Unit tests that reach only the public functions of analyzer files link the
# program's own objects of them (TEST_OBJS_test_X, $(BUILD)/obj/analyzer/, the
# same flags), rather than compiling the files into each test again; those
# that test a file's static functions (test_flow, test_pcapfile, ...) include it.
# the device source's port MTUs (libibverbs) and their views (devout.c)
TEST_OBJS_test_verbsport := $(addprefix $(BUILD)/obj/analyzer/,device/verbsport.o flow.o iwstream.o ibident.o \
	diag.o diag_rules.o diag_pacing.o diag_pacing_view.o json.o qpjoin.o pfcjoin.o device/nlparse.o device/devout.o \
	device/devnode.o device/ctrtab_rdma.o device/pfc.o device/devmeaning.o)
$(BUILD)/tests/test_verbsport: $(TEST_OBJS_test_verbsport)
TEST_LIBS_test_verbsport := -Ianalyzer -Ianalyzer/device -libverbs -lmnl -lm
# one QP, one row: the join of flows and device QPs
TEST_OBJS_test_qpjoin := $(addprefix $(BUILD)/obj/analyzer/,flow.o iwstream.o ibident.o diag.o diag_rules.o \
	diag_pacing.o diag_pacing_view.o device/nlparse.o qpjoin.o device/ctrtab_rdma.o device/devmeaning.o)
$(BUILD)/tests/test_qpjoin: $(TEST_OBJS_test_qpjoin) $(FIXCAP) tools/fixcap/fixcap.h
TEST_LIBS_test_qpjoin := -Ianalyzer -Ianalyzer/device -Itools/fixcap -lmnl -lm
# the driver counter table, wraps, ports past 255, counters by meaning
$(BUILD)/tests/test_ctrtab: analyzer/device/ctrtab_rdma.c analyzer/device/ctrtab.h analyzer/device/sysfs.c \
	analyzer/device/devmeaning.c analyzer/device/devmon.h
TEST_LIBS_test_ctrtab := -Ianalyzer -Ianalyzer/device
TEST_OBJS_test_flow := $(addprefix $(BUILD)/obj/analyzer/,iwstream.o ibident.o diag.o diag_rules.o diag_pacing.o diag_pacing_view.o)
$(BUILD)/tests/test_flow: $(TEST_OBJS_test_flow)
TEST_LIBS_test_flow := -lm

-include $(LIB_OBJS:.o=.d) $(LIB_PIC:.o=.d) $(ANA_OBJS:.o=.d) $(GEN_OBJS:.o=.d)

# ---- dependencies ---------------------------------------------------------

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: every package is installed"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; }; \
	else \
	  echo "deps: missing packages; run as root:"; \
	  echo "  sudo apt-get install -y --no-install-recommends$$missing"; exit 1; \
	fi

# `check` and `run` call deps only when something is missing.
have-deps:
	@for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || { $(MAKE) --no-print-directory deps; exit $$?; }; \
	done

# ---- running ---------------------------------------------------------------

# The analyzer's summary of real Soft-RoCE traffic with netem loss, reordering
# and duplication (retransmissions, NAKs, duplicates, go-back-N).
RUN_CAPTURE ?= captures/lab/roce_send_bw_netem.pcap
run: have-deps
	@$(MAKE) --no-print-directory all
	$(ROCETOP) -r $(RUN_CAPTURE) -b

# ---- tests -------------------------------------------------------------------

# One pass of every test against the binaries in $(BUILD).
check-one: all $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done
	@set -e; for s in $(CHECK_SCRIPTS); do echo "== $$s"; \
	  case $$s in *.py) BUILD=$(BUILD) SAN=$(SAN) python3 $$s;; *) BUILD=$(BUILD) SAN=$(SAN) $$s;; esac; done

# Every test, normally and under ASan+UBSan, plus short fuzz runs: both
# builds first, then tests/run.sh runs the independent jobs side by side
# (CHECK_JOBS at once; each script runs its two builds back to back).
# TEST_CACHE ($(BUILD)/testcache) keeps what does not depend on our code from
# one make check to the next: difftest.py's tshark decodes, keyed on tshark,
# its plugins and preferences, its arguments and the capture's bytes.
# The slowest scripts go first, slowest first (in CHECK_SLOW's order), so the
# pool drains evenly: a long job started last would run alone at the end.
# The scripts marked "# run.sh: timing" (rate checks) lead: while they run, no
# job runs beyond CHECK_JOBS; then the ones marked "# run.sh: waits" (they
# mostly wait) run beside the CHECK_JOBS others, up to CHECK_WAIT_JOBS of them.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_WAIT_JOBS ?= $(CHECK_JOBS)
CHECK_SLOW := tests/gen.sh tests/rc.sh tests/tui.sh \
              tests/difftest.py tests/examples.py tests/diag.sh tests/plugin.sh \
              tests/search_live.sh tests/device.sh tests/live.sh tests/diag_live.sh \
              tests/invariance.sh tests/cli.sh tests/gen_cli.sh
# unit binaries that take long under the sanitizers start with the scripts
CHECK_SLOW_UNITS := $(BUILD)/tests/test_pcapfile
check: have-deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-build-normal check-build-san check-build-fuzz
	@TEST_CACHE=$(abspath $(BUILD))/testcache tests/run.sh -j $(CHECK_JOBS) -w $(CHECK_WAIT_JOBS) -b $(BUILD):0 -b build-san:1 -- \
	  $(filter $(CHECK_SCRIPTS),$(CHECK_SLOW)) \
	  $(patsubst $(BUILD)/%,%,$(filter $(UNIT_BINS),$(CHECK_SLOW_UNITS))) \
	  $(filter-out $(CHECK_SLOW),$(CHECK_SCRIPTS)) \
	  $(patsubst $(BUILD)/%,%,$(filter-out $(CHECK_SLOW_UNITS),$(UNIT_BINS))) $(patsubst $(BUILD)/fuzz/%,fuzz:%,$(FUZZ_TARGETS))

# The three builds of check side by side in one jobserver (-j CHECK_JOBS in
# all): one build's serial tail (its last links) overlaps the others' compiles.
# They write apart: $(BUILD)/ (its fuzzobj/ and fuzz/ too) and build-san/.
check-build-normal:
	@$(MAKE) --no-print-directory all $(UNIT_BINS)
check-build-san:
	@$(MAKE) --no-print-directory BUILD=build-san SAN=1 CFLAGS="-O1 -g" all \
	  $(subst $(BUILD)/,build-san/,$(UNIT_BINS))
check-build-fuzz:
	@$(MAKE) --no-print-directory fuzz

unit: all $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

# Regenerates the builder-made fixtures (byte-for-byte reproducible).
fixtures: $(BUILD)/tools/mkfixtures
	$< captures/gen captures/link

golden: all
	BUILD=$(BUILD) tests/golden.sh

difftest: all
	BUILD=$(BUILD) python3 tests/difftest.py

# ---- fuzzing -----------------------------------------------------------------

FUZZ_CC := clang
FUZZ_COMMON := -std=gnu11 -g -O1 $(LIB_INC) -Ianalyzer -Ianalyzer/device -D_GNU_SOURCE
FUZZ_FLAGS := $(FUZZ_COMMON) -fsanitize=fuzzer,address,undefined
FUZZ_TARGETS := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(sort $(wildcard fuzz/fuzz_*.c)))
# libroce and the analyzer files the harnesses compile in are built once for
# all of them (same instrumentation: fuzzer-no-link is libFuzzer's coverage
# without its main), not once per harness; each harness links every libroce
# object that any harness reaches. No harness reaches the IB-to-RoCE
# conversion (ib_conv.c) or the mirror timestamps (mirror_time.c): a link map
# of every harness against an archive of all of libroce pulls neither in, so
# they are not compiled (a harness that comes to need one fails to link until
# it is taken off this list).  fuzz_qp needs the RC engine (lib/transport/).
FUZZ_LIB_UNUSED := lib/link/ib_conv.c lib/link/mirror_time.c
FUZZ_OBJDIR := $(BUILD)/fuzzobj
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(filter-out $(FUZZ_LIB_UNUSED),$(LIB_SRCS)))
$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_COMMON) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@

# Harnesses of analyzer code: the analyzer files each compiles in, and libraries.
FUZZ_EXTRA_fuzz_pcapfile := analyzer/pcapfile.c
FUZZ_LIBS_fuzz_pcapfile := -lpcap -lz -lpthread
FUZZ_EXTRA_fuzz_flow := analyzer/flow.c analyzer/diag.c analyzer/diag_rules.c analyzer/diag_pacing.c analyzer/diag_pacing_view.c analyzer/diag_out.c analyzer/report.c analyzer/report_json.c analyzer/report_text.c analyzer/json.c analyzer/listing.c analyzer/iwstream.c analyzer/ibident.c
FUZZ_LIBS_fuzz_flow := -lm
FUZZ_EXTRA_fuzz_netlink := analyzer/device/nlparse.c
FUZZ_LIBS_fuzz_netlink := -lmnl
fuzz_extra_objs = $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(FUZZ_EXTRA_$(1)))
FUZZ_EXTRA_OBJS := $(sort $(foreach t,$(FUZZ_TARGETS),$(call fuzz_extra_objs,$(notdir $(t)))))
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_EXTRA_OBJS:.o=.d)
# (explicit prerequisites, so that make builds the objects rather than taking
# them for intermediates of the pattern rule)
$(foreach t,$(FUZZ_TARGETS),$(eval $(t): $(FUZZ_LIB_OBJS) $(call fuzz_extra_objs,$(notdir $(t)))))

.SECONDEXPANSION:
$(BUILD)/fuzz/%: fuzz/%.c lib/roce.h $(wildcard analyzer/*.h analyzer/device/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIB_OBJS) $(call fuzz_extra_objs,$*) $(FUZZ_LIBS_$*)

fuzz: $(FUZZ_TARGETS)
	@echo "fuzzers: $(FUZZ_TARGETS)  (run e.g. $(firstword $(FUZZ_TARGETS)) fuzz/corpus)"

FUZZ_SECONDS ?= 10
fuzz-smoke: fuzz
	@set -e; for f in $(FUZZ_TARGETS); do \
	  n=$$(basename $$f); mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== $$n for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=2048 -print_final_stats=0 \
	      $(BUILD)/fuzz/corpus-$$n fuzz/seeds 2>&1 | tail -n 2; \
	done

# ---- benchmarks ----------------------------------------------------------------

bench: all
	BUILD=$(BUILD) bench/run.sh

bench-gen: all
	BUILD=$(BUILD) bench/gen.sh

# the /metrics page with 1k, 10k and 100k flows, with and without --prometheus-max-flows (also in bench)
bench-prom: all
	BUILD=$(BUILD) bench/prom.sh

# rocegen stress against the in-process reference adapter vs --qps (also in bench)
bench-stress: all
	BUILD=$(BUILD) bench/stress.sh

# live capture under load on a veth pair: rocetop vs tcpdump (root)
bench-live: all
	BUILD=$(BUILD) bench/live.sh

# rocegen client against a lab guest vs the guests' own ib_write_bw (needs the lab)
bench-lab: all
	BUILD=$(BUILD) bench/gen_lab.sh

# ---- interop (needs ../shared/softroce-lab, root) ------------------------------

# Each boots the lab if it is down (and takes it down again) and skips
# without ../shared/softroce-lab or root; fragments may append to the list.
INTEROP_SCRIPTS += tests/interop.sh tests/interop_flow.sh tests/interop_gen.sh tests/conform.sh
INTEROP_SCRIPTS += tests/interop_device.sh
INTEROP_SCRIPTS += tests/stress_lab.sh
INTEROP_SCRIPTS += tests/interop_iwarp.sh
INTEROP_SCRIPTS += tests/conform_iwarp_lab.sh
INTEROP_SCRIPTS += tests/interop_iwarp_perftest.sh
INTEROP_SCRIPTS += tests/interop_iwarp_tcp.sh
# the diagnosis's timer verdicts on rxe: perftest -u, rping through rdma_cm (issue 24)
INTEROP_SCRIPTS += tests/interop_diag.sh
# Each script runs holding /tmp/softroce-lab.lock (the lab is one per machine):
# stress_lab.sh takes the lock itself; the iWARP scripts do unless
# IWARP_LAB_LOCKED says their caller holds it; the others are wrapped here.
LAB_SELF_LOCKING := tests/stress_lab.sh
interop: all
	@set -e; for s in $(INTEROP_SCRIPTS); do echo "== $$s"; \
	case " $(LAB_SELF_LOCKING) " in *" $$s "*) BUILD=$(BUILD) $$s ;; \
	*) IWARP_LAB_LOCKED=1 BUILD=$(BUILD) flock -w 3600 /tmp/softroce-lab.lock $$s ;; esac; done

# rocegen stress against the lab's rxe for 10 min with 256 QPs (outside CI)
soak: all
	STRESS_SOAK=1 BUILD=$(BUILD) tests/stress_lab.sh

# ---- install -------------------------------------------------------------------

# Everything under PREFIX (a user can install into a folder of their own):
# headers in PREFIX/include/roce/ (the .pc file's includedir; <roce.h> with its
# Cflags, or <roce/roce.h>), the Wireshark plugin under PREFIX too unless
# PLUGINDIR says otherwise (see dissectors/plugin.mk).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
	           $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PREFIX)/share/man/man3 \
	           $(DESTDIR)$(PREFIX)/share/man/man7 $(DESTDIR)$(PREFIX)/share/man/man8
	for p in $(PROGRAMS); do install -m 755 $$p $(DESTDIR)$(PREFIX)/bin/; done
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf libroce.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libroce.so.$(SOVERSION)
	ln -sf libroce.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libroce.so
	sed 's|^prefix=.*|prefix=$(PREFIX)|' $(LIBPC) > $(DESTDIR)$(LIBDIR)/pkgconfig/libroce.pc
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	for m in man/*.3; do [ -f "$$m" ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man3/; done; true
	for m in man/*.7; do [ -f "$$m" ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man7/; done; true
	for m in man/*.8; do [ -f "$$m" ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/; done; true
	install -d $(DESTDIR)$(PREFIX)/share/rocetop/prometheus $(DESTDIR)$(PREFIX)/share/rocetop/grafana
	install -m 644 $(CONTRIB_PROM) $(DESTDIR)$(PREFIX)/share/rocetop/prometheus/
	install -m 644 $(CONTRIB_GRAFANA) $(DESTDIR)$(PREFIX)/share/rocetop/grafana/
	@if [ -n "$(PLUGIN)" ]; then $(MAKE) --no-print-directory install-plugin; fi

# What debian/rules builds and installs (no tests, tools or fuzzers).
dist-build: lib $(PROGRAMS) $(PLUGIN)
print-public-headers:
	@echo $(PUBLIC_HEADERS)
print-contrib-prom:
	@echo $(CONTRIB_PROM)
print-contrib-grafana:
	@echo $(CONTRIB_GRAFANA)
print-programs:
	@echo $(PROGRAMS)
print-plugin:
	@echo $(PLUGIN)

# ---- Debian packages (debian/) ---------------------------------------------------
# `make deb`: dpkg-buildpackage -us -uc -b on a copy of the tracked files (git
# ls-files, so nothing untracked or built gets in) in $(DEB_DIR)/rocetop-VERSION;
# the .deb files land in $(DEB_DIR).  `make check-deb` (root): tests/deb.sh
# builds them, runs lintian, installs them on this machine, checks and purges.
DEB_DIR := $(BUILD)/deb

deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/rocetop-$(VERSION)
	git ls-files -z | xargs -0 cp -P --parents -t $(DEB_DIR)/rocetop-$(VERSION)
	cd $(DEB_DIR)/rocetop-$(VERSION) && dpkg-buildpackage -us -uc -b
	@ls $(DEB_DIR)/*.deb

check-deb: have-deps
	@$(MAKE) --no-print-directory all
	BUILD=$(BUILD) tests/deb.sh

clean:
	rm -rf build build-san
