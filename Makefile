# uspin — top-level build.  `make` builds the library and tools, `make check`
# installs what is missing, builds, and runs every suite (host, model, VM).
#
# Each layer contributes through its own fragment:
#   vdso/build.mk (first: it adds sources to the library)  libuspin/build.mk
#    tests/build.mk  tests/model/build.mk
#   kernel/kernel.mk   bench/bench.mk
# Fragments append to DEB_PACKAGES (Debian packages `make deps` installs),
# GUEST_BINS (static binaries packed into the VM's initramfs) and to the
# check-* targets.

PREFIX    ?= /usr/local
BUILD     ?= build
# Build outputs that are expensive and independent of this checkout (the
# kernel tree and its builds) live outside it, keyed by their inputs.
USPIN_CACHE ?= /var/cache/uspin

CC        ?= cc
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wpointer-arith -Wno-unused-parameter -Werror
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -fPIC -pthread $(WARN)
CPPFLAGS  += -D_GNU_SOURCE -Ilibuspin -Ivdso
LDLIBS_URCU := -lurcu-common

DEB_PACKAGES := build-essential pkg-config liburcu-dev check spin clang man-db groff-base
GUEST_BINS   :=

.PHONY: all check deps install clean distclean host-check guest-bins
all:

include vdso/build.mk
-include vdso/bpf.mk
include libuspin/build.mk
include tests/build.mk
include tests/model/build.mk
-include tests/nptl/build.mk
-include kernel/kernel.mk
-include bench/bench.mk

all: $(LIB_TARGETS)

# Installs only what is missing, so a warm machine pays one dpkg query.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "deps: need root to apt-get install$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

guest-bins: $(GUEST_BINS)

check: deps
	$(MAKE) all
	$(MAKE) host-check
	$(MAKE) model-check
	$(MAKE) vm-check

clean:
	rm -rf $(BUILD)

distclean: clean
	rm -rf $(USPIN_CACHE)
