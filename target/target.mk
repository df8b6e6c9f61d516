# SPDX-License-Identifier: GPL-2.0-or-later
# target/target.mk — rocetarget, the adapter-side agent of `rocegen conform`
# (libibverbs).  Included by the top Makefile:  -include target/target.mk
# Built only when libibverbs is there (pkg-config or the header); `all` does
# not fail without it.
ROCETARGET := $(BUILD)/bin/rocetarget
HAVE_VERBS := $(shell $(PKG_CONFIG) --exists libibverbs 2>/dev/null && echo 1 || \
                { [ -f /usr/include/infiniband/verbs.h ] && echo 1; })
VERBS_LIBS := $(shell $(PKG_CONFIG) --libs libibverbs 2>/dev/null || echo -libverbs)

ifeq ($(HAVE_VERBS),1)
PROGRAMS += $(ROCETARGET)
endif

$(ROCETARGET): target/rocetarget.c target/tload.c target/tload.h target/load.h target/ctl.h \
               target/ctlauth.c target/ctlauth.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) $(LDSAN_EXE) $(LDFLAGS) -o $@ target/rocetarget.c target/tload.c target/ctlauth.c \
	  $(VERBS_LIBS) -lcrypto

# The conform catalogue against the in-process reference adapter (no network,
# no libibverbs needed).
CHECK_SCRIPTS += tests/conform_unit.sh
# rocetarget's key and challenge-response (skips without rocetarget)
CHECK_SCRIPTS += tests/target_auth.sh
