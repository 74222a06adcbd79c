# uspin — top-level build.  `make help` lists the targets.
#
#   make                 the library, the drop-in and the tools, in build/
#   make test            host suites that take seconds: no root, no VM (< 3 min)
#   make check           what CI runs: deps, test, the NPTL tests under the
#                        drop-in, the bench machinery, the kernel and its guest
#   make check-full      everything: all policies, all models
#   make install / uninstall   PREFIX, LIBDIR, … and DESTDIR, as GNU does
#
# Each layer contributes through its own fragment:
#   vdso/build.mk (first: it adds sources to the library)  vdso/bpf.mk
#   libuspin/build.mk  pthread/build.mk
#   tests/build.mk (and tests/*/build.mk)  kernel/kernel.mk  bench/bench.mk
# Fragments append to the DEB_* package groups (`make deps-*`), GUEST_BINS
# (static binaries packed into the VM's initramfs), PRODUCT_TARGETS (what
# `make` builds and `make install` installs) and the tiers' step lists
# TEST_STEPS / CHECK_STEPS / FULL_STEPS (and CHECK_BG_STEPS, run in the
# background).

BUILD     ?= build
# Build outputs that are expensive and independent of this checkout (the
# kernel tree and its builds) live outside it, keyed by their inputs, and
# are shared by every checkout: `make distclean` leaves them,
# `make cache-clean` removes them.
USPIN_CACHE ?= /var/cache/uspin

# Installation directories, named as the GNU coding standards name them;
# DESTDIR stages an install (packaging).
PREFIX      ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR      ?= $(EXEC_PREFIX)/bin
SBINDIR     ?= $(EXEC_PREFIX)/sbin
LIBDIR      ?= $(EXEC_PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DATAROOTDIR ?= $(PREFIX)/share
MANDIR      ?= $(DATAROOTDIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR     ?=

# -Werror is for development and CI, where a new warning is a defect to
# fix now.  A user's `make` does not set it: a newer compiler's new
# warning must not stop a build of working code.  The test tiers default
# to WERROR=1; WERROR=0 turns it off there too.
ifneq ($(filter test check check-full,$(MAKECMDGOALS)),)
WERROR ?= 1
endif
WERROR ?= 0
WERROR_FLAG := $(if $(filter 1,$(WERROR)),-Werror)

CC        ?= cc
CXX       ?= g++
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wpointer-arith -Wno-unused-parameter $(WERROR_FLAG)
CFLAGS    ?= -O2 -g
# LDFLAGS (empty here) reaches the links of what gets installed.
CFLAGS    += -std=gnu11 -fPIC -pthread $(WARN)
CPPFLAGS  += -D_GNU_SOURCE -Iinclude -Ilibuspin -Ivdso
# Each compile writes the headers it read into a .d file next to its
# output (included at the end); -MP keeps a deleted header from breaking
# the build.
DEPFLAGS  := -MMD -MP
# Records the compiler and flags; everything compiled depends on it (below).
FLAGS_STAMP := $(BUILD)/.flags

# Debian packages, by what needs them (`make deps-<group>` installs one
# group, only what is missing, without recommends):
#   DEB_TEST    build the library and tools, run `make test` and the host
#               part of `make check`
#   DEB_KERNEL  build the patched kernel and boot it (vm-check)
#   DEB_BENCH   run the benchmark harness (bench-check needs only
#               DEB_BENCH_BUILD)
#   DEB_APPS    the real applications of `make bench-apps`
DEB_TEST   := build-essential pkg-config check man-db groff-base g++ spin
DEB_KERNEL :=
DEB_BENCH_BUILD :=
DEB_BENCH  :=
DEB_APPS   :=
GUEST_BINS :=
PRODUCT_TARGETS :=
# The tiers: each step is a make target, run by tests/run-tier.
TEST_STEPS  :=
CHECK_VARS  :=
FULL_VARS   :=
CHECK_STEPS :=
FULL_STEPS  :=
# Steps of check and check-full that start right after deps and run in the
# background at SCHED_IDLE (bg:STEP, tests/run-tier): the kernel build.
CHECK_BG_STEPS :=

.PHONY: all check check-full test host-check deps deps-test deps-kernel deps-bench \
	deps-apps deps-all install uninstall clean distclean cache-clean guest-bins help FORCE
all:

include vdso/build.mk
include vdso/bpf.mk
include libuspin/build.mk
include pthread/build.mk
include tests/build.mk
include tests/model/build.mk
include tests/nptl/build.mk
include kernel/kernel.mk
include bench/bench.mk
include debian/deb.mk

all: $(PRODUCT_TARGETS)

# Rebuild everything when the compiler or its flags change (WERROR=1
# after a plain `make` must see every warning): the file changes only
# when they do.
# (STAMP_FLAGS is expanded here, so per-target additions do not count.)
STAMP_FLAGS := $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D); f='$(STAMP_FLAGS)'; \
	  [ "$$f" = "$$(cat $@ 2>/dev/null)" ] || echo "$$f" > $@

# Every object of the tree; layers add per-target flags
# (`$(OBJS): CPPFLAGS += -Idir`).
$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Installs only what is missing, so a warm machine pays one dpkg query,
# and nothing but the named Debian packages.
define deps-install
@missing=""; for p in $(sort $(1)); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "deps: need root to apt-get install$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef
deps-test:   ; $(call deps-install,$(DEB_TEST))
deps-kernel: ; $(call deps-install,$(DEB_KERNEL))
deps-bench:  ; $(call deps-install,$(DEB_BENCH))
deps-apps:   ; $(call deps-install,$(DEB_APPS))
# What `make check` needs.
deps:        ; $(call deps-install,$(DEB_TEST) $(DEB_KERNEL) $(DEB_BENCH_BUILD) $(DEB_PACKAGING))
deps-all:    ; $(call deps-install,$(DEB_TEST) $(DEB_KERNEL) $(DEB_BENCH) $(DEB_APPS) $(DEB_PACKAGING))

guest-bins: $(GUEST_BINS)

# The tiers.  Each runs its steps through tests/run-tier, which ends with
# "N passed, N failed[, N skipped]" and fails if any step failed.
# CHECK_VARS / FULL_VARS (NAME=value, no spaces) are passed to the steps
# of check / check-full: a step can do more there than in make test.
run-tier = +@BUILD=$(BUILD) MAKE="$(MAKE) WERROR=$(WERROR) $(strip $(2))" tests/run-tier $(1)
test:
	$(call run-tier,test) all $(TEST_STEPS)
check:
	$(call run-tier,check,$(CHECK_VARS)) deps $(CHECK_BG_STEPS) all $(TEST_STEPS) \
	  $(CHECK_STEPS)
check-full:
	$(call run-tier,check-full,$(CHECK_VARS) $(FULL_VARS)) deps $(CHECK_BG_STEPS) all \
	  $(TEST_STEPS) $(CHECK_STEPS) $(FULL_STEPS)

# The host checks of `make check`, without deps, tier report or VM.
host-check: $(filter-out vm-check,$(TEST_STEPS) $(CHECK_STEPS))

clean:
	rm -rf $(BUILD)

# The checkout's outputs only: $(USPIN_CACHE) is shared with every other
# checkout on the machine.
distclean: clean
	rm -rf results

# The shared kernel cache (source, trees, builds: about 2 GB).
cache-clean:
	rm -rf $(USPIN_CACHE)

help:
	@echo 'Build and install:'
	@echo '  make                 library, drop-in, tools in $(BUILD)/ (WERROR=1 makes warnings errors)'
	@echo '  make install         PREFIX=/usr/local LIBDIR BINDIR INCLUDEDIR MANDIR DESTDIR'
	@echo '  make uninstall       the same variables as install'
	@echo 'Test (each ends with "N passed, N failed[, N skipped]"):'
	@echo '  make test            host suites, header/API/man checks, small models; no root (< 3 min)'
	@echo '  make check           deps (root), test, NPTL tests under the drop-in, apps,'
	@echo '                       bench machinery, kernel build and guest suites (CI, .ci/run)'
	@echo '  make check-full      check + glibc NPTL plain and under every policy, all Spin models'
	@echo '  make check-unit | check-api | check-dropin | ...   one step (make -n test lists them)'
	@echo '  make vm-check [KCONFIG=debug|kcsan]   guest suites on the patched kernel'
	@echo '  make torture [TORTURE_SECONDS=600]   random lock traffic: fork, exec, signals,'
	@echo '                       cancellation, SIGKILL, pid namespaces (root); every policy'
	@echo 'Packages (root, Debian 12, no recommends):'
	@echo '  make deps            what make check needs; deps-test deps-kernel deps-bench deps-apps deps-all'
	@echo 'Benchmarks (quiet machine; results/):'
	@echo '  make bench [QUICK=1] | bench-host | bench-guest    the synthetic harness (BENCH_WORKLOADS=holdtime,...)'
	@echo '  make bench-apps [QUICK=1]   real applications under each lock'
	@echo '  make bench-uncontended | bench-cond-csw | bench-pingpong | bench-spin-gaps | eval-plots'
	@echo 'Kernel:'
	@echo '  make kernel | kernel-check-series | kernel-package | vm-rs-cost | kernel-clean'
	@echo 'Clean:'
	@echo '  make clean           $(BUILD)/'
	@echo '  make distclean       $(BUILD)/ and results/ (not the shared cache)'
	@echo '  make cache-clean     the shared kernel cache $(USPIN_CACHE)'

-include $(wildcard $(BUILD)/*.d $(BUILD)/*/*.d $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d)
