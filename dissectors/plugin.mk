# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark plugin (dissectors/), included by the top Makefile.
#
#   $(BUILD)/plugin/roce.so     the plugin, libroce linked in statically
#   make install-plugin         into PLUGINDIR/epan (under DESTDIR); PLUGINDIR is
#                               Wireshark's system plugin folder when PREFIX is /usr,
#                               else PREFIX/lib/wireshark/plugins/X.Y (point
#                               WIRESHARK_PLUGIN_DIR there, or give PLUGINDIR=…)
#   make install-plugin USER_PLUGIN=1
#                               into ~/.local/lib/wireshark/plugins/X.Y/epan
#
# Without wireshark-dev (pkg-config wireshark fails) the plugin is skipped
# with a message; `make deps` installs it.

WS_PKG := $(shell $(PKG_CONFIG) --exists wireshark 2>/dev/null && echo yes)

.PHONY: install-plugin

ifeq ($(WS_PKG),yes)

WS_CFLAGS    := $(shell $(PKG_CONFIG) --cflags wireshark)
WS_LIBS      := $(shell $(PKG_CONFIG) --libs wireshark)
WS_VERSION   := $(shell $(PKG_CONFIG) --modversion wireshark)
WS_MAJMIN    := $(word 1,$(subst ., ,$(WS_VERSION))).$(word 2,$(subst ., ,$(WS_VERSION)))
WS_PLUGINDIR := $(shell $(PKG_CONFIG) --variable=plugindir wireshark)
WS_USERDIR   := $(HOME)/.local/lib/wireshark/plugins/$(WS_MAJMIN)/epan
# under PREFIX unless told otherwise: a user's `make install PREFIX=~/x` writes
# nothing outside ~/x
PLUGINDIR    ?= $(if $(filter /usr,$(PREFIX)),$(WS_PLUGINDIR),$(PREFIX)/lib/wireshark/plugins/$(WS_MAJMIN))

PLUGIN := $(BUILD)/plugin/roce.so
CHECK_SCRIPTS += tests/plugin.sh

PLUGIN_SRCS := $(sort $(wildcard dissectors/*.c))
PLUGIN_OBJS := $(PLUGIN_SRCS:%.c=$(BUILD)/plugin/obj/%.o)

# No sanitizer flags: tshark cannot load a plugin built with them (with
# SAN=1 libroce_pic.a is sanitized anyway, so tests/plugin.sh skips).
PLUGIN_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE $(LIB_INC) -fno-strict-aliasing \
                 -fPIC -fvisibility=hidden -DROCE_VERSION='"$(VERSION)"' $(WS_CFLAGS) $(CFLAGS)

$(BUILD)/plugin/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -MMD -MP -c $< -o $@

# --exclude-libs: libroce's symbols stay inside the plugin; -z defs: no
# symbol is left for tshark to resolve (except with SAN=1's sanitized libroce).
$(PLUGIN): $(PLUGIN_OBJS) $(LIBPIC_A)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--exclude-libs,ALL $(if $(filter 1,$(SAN)),,-Wl,-z,defs) $(LDFLAGS) -o $@ \
		$(PLUGIN_OBJS) $(LIBPIC_A) $(WS_LIBS)

-include $(PLUGIN_OBJS:.o=.d)

install-plugin: $(PLUGIN)
ifeq ($(USER_PLUGIN),1)
	install -d $(WS_USERDIR)
	install -m 644 $(PLUGIN) $(WS_USERDIR)/roce.so
else
	install -d $(DESTDIR)$(PLUGINDIR)/epan
	install -m 644 $(PLUGIN) $(DESTDIR)$(PLUGINDIR)/epan/roce.so
endif

else

$(info plugin: pkg-config wireshark failed (wireshark-dev not installed); skipping the Wireshark plugin. `make deps` installs it.)

install-plugin:
	@echo "install-plugin: wireshark-dev is not installed; nothing to install (run make deps)"

endif
