# tests/nptl: glibc's own NPTL mutex and condvar tests, built outside a glibc
# build from Debian's glibc-source against the installed glibc, and run by
# tests/nptl/run-nptl-tests (docs/nptl-tests.md).
#
#   make nptl-tests     build only: unpack, libsupport.a, the test binaries
#   make check-nptl     build and run them (NPTL_WRAPPER="CMD ARGS --" runs
#                       each test under CMD, e.g. the LD_PRELOAD drop-in)
#
# Everything lands in $(BUILD)/nptl; nothing is rebuilt unless the tarball
# (a glibc-source upgrade), the shim headers or this list change.

DEB_TEST += glibc-source

NPTL_DIR      := $(BUILD)/nptl
NPTL_TARBALL  := $(firstword $(wildcard /usr/src/glibc/glibc-*.tar.xz))
NPTL_GLIBC    := $(notdir $(NPTL_TARBALL:.tar.xz=))
NPTL_SRC      := $(NPTL_DIR)/src/$(NPTL_GLIBC)
NPTL_STAMP    := $(NPTL_DIR)/src/.unpacked
NPTL_INC      := $(NPTL_DIR)/include
NPTL_LIBSUPPORT := $(NPTL_DIR)/libsupport.a
NPTL_SHIM     := $(wildcard tests/nptl/shim/*.h tests/nptl/shim/*/*.h)
NPTL_LIST     := tests/nptl/tests.list
NPTL_EXCLUDED := tests/nptl/excluded.txt

# What is unpacked: the test sources, support/, and the few internal headers
# that support/ and the tests include (docs/nptl-tests.md, "How they are built").
NPTL_MEMBERS := nptl sysdeps/pthread support test-skeleton.c \
  include/intprops.h include/array_length.h include/scratch_buffer.h \
  include/allocate_once.h include/libc-diag.h sysdeps/x86_64/stackinfo.h \
  malloc/dynarray.h malloc/dynarray-skeleton.c
NPTL_INC_LINKS := intprops.h array_length.h scratch_buffer.h \
  allocate_once.h libc-diag.h

# The tests are compiled as glibc compiles its testsuite (-std=gnu11, -O2,
# _GNU_SOURCE via config.h), against the *installed* headers: only
# "..."-includes may reach the source tree (-iquote), so glibc's own copies
# of <threads.h> or <semaphore.h> in sysdeps/pthread never shadow them.
NPTL_CC       := $(CC)
NPTL_CFLAGS   := -std=gnu11 -fgnu89-inline -O2 -g -Wall -pthread
NPTL_CPPFLAGS := -include tests/nptl/shim/config.h -Itests/nptl/shim -I$(NPTL_INC)
NPTL_IQUOTE   := -iquote $(NPTL_SRC)/nptl -iquote $(NPTL_SRC)/sysdeps/pthread

# Per-test flags, as in glibc's nptl/Makefile.
NPTL_CFLAGS-tst-initializers1 := -W -Wall -Werror
$(foreach s,c89 gnu89 c99 gnu99 c11 gnu11,\
  $(eval NPTL_CFLAGS-tst-initializers1-$(s) := -W -Wall -Werror -std=$(s)))

# name:dir of every test listed, minus the excluded ones.
NPTL_LISTED   := $(shell awk '!/^\#/ && NF { print $$1 ":" $$2 }' $(NPTL_LIST))
NPTL_EXCL     := $(shell sed -n 's/^\([A-Za-z0-9_.+-]*\):.*/\1/p' $(NPTL_EXCLUDED))
NPTL_BUILT    := $(foreach t,$(NPTL_LISTED),\
                   $(if $(filter $(firstword $(subst :, ,$(t))),$(NPTL_EXCL)),,$(t)))
NPTL_BINS     := $(foreach t,$(NPTL_BUILT),$(NPTL_DIR)/bin/$(firstword $(subst :, ,$(t))))

.PHONY: nptl-tests check-nptl check-nptl-runner
nptl-tests: $(NPTL_BINS)

# The runner's own check (stand-in tests, a few seconds; make test), then
# the tests on glibc itself (check-full).
check-nptl-runner:
	tests/nptl/test-runner

check-nptl: nptl-tests
	NPTL_BUILD=$(NPTL_DIR) NPTL_WRAPPER="$(NPTL_WRAPPER)" tests/nptl/run-nptl-tests

TEST_STEPS += check-nptl-runner

# Unpack only what is needed.  The sources keep the tarball's (old) mtimes,
# so everything downstream depends on this stamp.  The tests only mean
# something against the glibc they were written for: refuse another version.
$(NPTL_STAMP): $(NPTL_TARBALL)
	@if [ -z "$(NPTL_TARBALL)" ]; then \
	  echo "nptl: no /usr/src/glibc/glibc-*.tar.xz; install glibc-source (make deps)" >&2; exit 1; fi
	@lib=$$(getconf GNU_LIBC_VERSION | tr ' ' -); if [ "$$lib" != "$(NPTL_GLIBC)" ]; then \
	  echo "nptl: $(NPTL_TARBALL) is $(NPTL_GLIBC) but the installed C library is $$lib" >&2; exit 1; fi
	rm -rf $(NPTL_DIR)/src $(NPTL_INC) $(NPTL_DIR)/support
	mkdir -p $(NPTL_DIR)/src $(NPTL_INC)
	tar -xJf $(NPTL_TARBALL) -C $(NPTL_DIR)/src $(addprefix $(NPTL_GLIBC)/,$(NPTL_MEMBERS))
	ln -s ../src/$(NPTL_GLIBC)/support $(NPTL_INC)/support
	ln -s ../src/$(NPTL_GLIBC)/malloc $(NPTL_INC)/malloc
	ln -s ../src/$(NPTL_GLIBC)/sysdeps/x86_64/stackinfo.h $(NPTL_INC)/stackinfo.h
	for h in $(NPTL_INC_LINKS); do ln -s ../src/$(NPTL_GLIBC)/include/$$h $(NPTL_INC)/$$h; done
	@src=$$(dpkg-query -W -f='$${Version}' glibc-source 2>/dev/null); \
	 lib=$$(dpkg-query -W -f='$${Version}' libc6 2>/dev/null); \
	 echo "glibc-source $$src, libc6 $$lib" > $(NPTL_DIR)/src/VERSION; \
	 if [ "$$src" != "$$lib" ]; then \
	   echo "nptl: warning: glibc-source $$src differs from the installed libc6 $$lib" >&2; fi
	touch $@

# glibc's support/ library, built by its own small makefile once the source
# exists (its routine list is read from support/Makefile).
$(NPTL_LIBSUPPORT): $(NPTL_STAMP) $(NPTL_SHIM) tests/nptl/support.mk
	+$(MAKE) --no-print-directory -f tests/nptl/support.mk \
	  SRC=$(NPTL_SRC) OUT=$(NPTL_DIR)/support LIB=$@ CC="$(NPTL_CC)" \
	  CFLAGS="$(NPTL_CFLAGS)" CPPFLAGS="$(NPTL_CPPFLAGS)" SHIM="$(NPTL_SHIM)"

$(NPTL_DIR)/bin:
	mkdir -p $@

# One rule per test: $(1) name, $(2) directory in the glibc tree.
define nptl-test-rule
$(NPTL_DIR)/bin/$(1): $(NPTL_STAMP) $(NPTL_LIBSUPPORT) $(NPTL_SHIM) | $(NPTL_DIR)/bin
	$$(NPTL_CC) $$(NPTL_CFLAGS) $$(NPTL_CFLAGS-$(1)) $$(NPTL_CPPFLAGS) $$(NPTL_IQUOTE) \
	  $(if $(filter %-static,$(1)),-static) -o $$@ $$(NPTL_SRC)/$(2)/$(1).c $$(NPTL_LIBSUPPORT)
endef
$(foreach t,$(NPTL_BUILT),$(eval $(call nptl-test-rule,$(firstword $(subst :, ,$(t))),$(word 2,$(subst :, ,$(t))))))

# glibc's own NPTL tests (tests/nptl) under uspin-run, once per policy, each
# with its own logs (build/nptl/log-dropin-POLICY): every policy of
# libuspin's table but the controls; NPTL_POLICIES="auto" to run fewer.  None that runs may fail (docs/pthread-dropin.md).  The
# tests in NPTL_DROPIN_ONCE (300,000 thread creations, ~2 min each) run
# under the first policy only; NPTL_DROPIN_ONCE= runs them under every one.
NPTL_POLICIES ?= $(filter-out $(USPIN_CONTROL_POLICIES),$(USPIN_POLICIES))
NPTL_DROPIN_ONCE ?= tst-pthread-timedlock-lockloop
# 0: not even under the first policy (make check).
NPTL_DROPIN_ONCE_RUN ?= 1
# glibc's TIMEOUTFACTOR for slow machines: tst-mutex10 (2 M barrier waits
# of 3 threads on 2 CPUs, TIMEOUT 50 s) takes 28-46 s under the spinning
# policies here, and went past 50 s while a kernel build shared the CPUs.
# Its subject is the init/destroy race, not speed: a timeout there says
# the machine was busy.  The per-test times stay in the summaries.
NPTL_DROPIN_TIMEOUTFACTOR ?= 2
.PHONY: check-nptl-dropin
check-nptl-dropin: nptl-tests $(USPIN_RUN) $(DROPIN_SO)
	@rc=0; first=$(NPTL_DROPIN_ONCE_RUN); for p in $(NPTL_POLICIES); do \
	  tests=; \
	  if [ $$first = 0 ] && [ -n "$(NPTL_DROPIN_ONCE)" ]; then \
	    tests=$$(tests/nptl/run-nptl-tests --list | awk '{ print $$1 }' | \
	      grep -vxF -e $$(echo $(NPTL_DROPIN_ONCE) | sed 's/ / -e /g')); \
	    echo "nptl-tests under policy $$p: not run here: $(NPTL_DROPIN_ONCE)"; \
	  fi; first=0; \
	  TIMEOUTFACTOR=$(NPTL_DROPIN_TIMEOUTFACTOR) \
	  NPTL_BUILD=$(NPTL_DIR) NPTL_LOG_DIR=$(NPTL_DIR)/log-dropin-$$p \
	  NPTL_WRAPPER="$(abspath $(USPIN_RUN)) --policy $$p --" \
	  tests/nptl/run-nptl-tests $$tests >$(NPTL_DIR)/dropin-$$p.out 2>&1 || rc=1; \
	  grep -E '^(FAIL|UNSUPPORTED|nptl-tests:)' $(NPTL_DIR)/dropin-$$p.out; \
	done; exit $$rc
# make check runs them once, under the policy whose path is farthest from
# glibc's: user-adaptive asks for the owner's running state on every
# contended lock and spins on it before FUTEX_WAIT (block is glibc's own
# sleep-at-once, and auto, spin and kernel-adaptive share the bounded
# spin on a stock kernel: build/uspin-info).  The NPTL_DROPIN_ONCE tests
# (thread creation, ~2 min) wait for check-full, which runs all five
# policies and glibc's tests on glibc itself (check-nptl).
NPTL_CHECK_POLICIES ?= user-adaptive
.PHONY: check-nptl-dropin-once
check-nptl-dropin-once:
	$(MAKE) check-nptl-dropin NPTL_POLICIES="$(NPTL_CHECK_POLICIES)" NPTL_DROPIN_ONCE_RUN=0
CHECK_STEPS += check-nptl-dropin-once
FULL_STEPS  += check-nptl check-nptl-dropin
