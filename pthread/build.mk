# pthread/: the drop-in.  build/libuspin-pthread.so interposes pthread_mutex_*,
# pthread_cond_* and C11 mtx_*/cnd_* (docs/pthread-dropin.md); build/uspin-run
# runs a program with it preloaded (uspin-run(1)).  Tests: tests/dropin/.
DROPIN_SRCS := pthread/mutex.c pthread/cond.c pthread/c11.c pthread/real.c
DROPIN_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(DROPIN_SRCS))
DROPIN_SO   := $(BUILD)/libuspin-pthread.so
USPIN_RUN   := $(BUILD)/uspin-run
LIB_TARGETS += $(DROPIN_SO) $(USPIN_RUN)
MAN_PAGES   += pthread/uspin-run.1
DEB_PACKAGES += sysbench pbzip2 man-db g++

# libuspin's objects, minus the BPF loader (libbpf): libc only, like
# libuspin.so is meant to be.  -Bsymbolic-functions: the C11 wrappers and
# the condvar call our pthread_mutex_* directly, not through the PLT.
DROPIN_LIB_OBJS = $(filter-out $(RS_LOAD_O),$(LIB_OBJS))

$(BUILD)/obj/pthread/%.o: pthread/%.c pthread/dropin.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(DROPIN_SO): $(DROPIN_OBJS) $(DROPIN_LIB_OBJS) pthread/libuspin-pthread.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libuspin-pthread.so \
	  -Wl,--version-script=pthread/libuspin-pthread.map -Wl,-Bsymbolic-functions \
	  -Wl,-z,now -o $@ $(DROPIN_OBJS) $(DROPIN_LIB_OBJS) -pthread

$(USPIN_RUN): pthread/uspin-run.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -DUSPIN_LIBDIR='"$(PREFIX)/lib"' \
	  -DUSPIN_VERSION='"$(USPIN_VERSION)"' -o $@ $<

install: install-dropin
.PHONY: install-dropin
install-dropin: $(DROPIN_SO) $(USPIN_RUN)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(DROPIN_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(USPIN_RUN) $(DESTDIR)$(PREFIX)/bin/

# ---- tests/dropin: plain pthread programs, run on glibc and under uspin-run ----
DROPIN_TEST     := $(BUILD)/test-dropin
DROPIN_TEST_CXX := $(BUILD)/test-dropin-cxx
DROPIN_TEST_DIR := $(BUILD)/dropin
DROPIN_TEST_SRCS := tests/dropin/main.c tests/dropin/kinds.c \
                    tests/dropin/cond.c tests/dropin/process.c tests/dropin/edges.c
DROPIN_HELPERS := $(DROPIN_TEST_DIR)/libhelper.so $(DROPIN_TEST_DIR)/libhelper-deep.so
DROPIN_EARLY := $(DROPIN_TEST_DIR)/libearly.so
DROPIN_TEST_CFLAGS := -O2 -g -std=gnu11 -pthread -Wall -Wextra -Werror \
                      -Wno-unused-parameter -D_GNU_SOURCE

$(DROPIN_TEST_DIR)/libhelper.so $(DROPIN_TEST_DIR)/libhelper-deep.so: tests/dropin/libhelper.c
	@mkdir -p $(dir $@)
	$(CC) $(DROPIN_TEST_CFLAGS) -fPIC -shared -o $@ $<

$(DROPIN_EARLY): tests/dropin/libearly.c
	@mkdir -p $(dir $@)
	$(CC) $(DROPIN_TEST_CFLAGS) -fPIC -shared -o $@ $<

$(DROPIN_TEST): $(DROPIN_TEST_SRCS) tests/dropin/util.h $(DROPIN_EARLY) $(DROPIN_HELPERS)
	$(CC) $(DROPIN_TEST_CFLAGS) -o $@ $(DROPIN_TEST_SRCS) \
	  -L$(DROPIN_TEST_DIR) -learly -Wl,-rpath,$(abspath $(DROPIN_TEST_DIR)) \
	  $(CHECK_LIBS) -ldl

CXX ?= g++
$(DROPIN_TEST_CXX): tests/dropin/cxx.cc
	$(CXX) -std=c++17 -O2 -g -pthread -Wall -Wextra -Werror -o $@ $< $(CHECK_LIBS)

$(DROPIN_TEST_DIR)/static-hello: tests/dropin/static_hello.c
	@mkdir -p $(dir $@)
	$(CC) $(DROPIN_TEST_CFLAGS) -static -o $@ $<

.PHONY: check-dropin check-uspin-run
check-dropin: $(DROPIN_TEST) $(DROPIN_TEST_CXX) $(DROPIN_SO) $(USPIN_RUN) $(USPIN_INFO)
	@sh tests/dropin/check.sh $(BUILD)

check-uspin-run: $(USPIN_RUN) $(DROPIN_SO) $(DROPIN_TEST_DIR)/static-hello
	@sh tests/dropin/check-cli.sh $(BUILD)

host-check: check-dropin check-uspin-run

# Unmodified applications under uspin-run: output identical to without.
.PHONY: check-apps
check-apps: $(USPIN_RUN) $(DROPIN_SO)
	@sh tests/dropin/check-apps.sh $(BUILD)
host-check: check-apps

# Measurements (not checks): the drop-in's uncontended cost against glibc.
DROPIN_UNCONTENDED := $(BUILD)/dropin-uncontended
LIB_TARGETS += $(DROPIN_UNCONTENDED)
$(DROPIN_UNCONTENDED): pthread/uncontended.c
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $< -pthread -ldl

# make dropin-uncontended [PAIRS=2000000 REPS=21]
.PHONY: dropin-uncontended
dropin-uncontended: $(DROPIN_UNCONTENDED) $(USPIN_RUN) $(DROPIN_SO)
	$(DROPIN_UNCONTENDED) $(or $(PAIRS),2000000) $(or $(REPS),21)
	$(USPIN_RUN) $(DROPIN_UNCONTENDED) $(or $(PAIRS),2000000) $(or $(REPS),21)

# Context switches per broadcast, glibc's condvar against uspin's.
# make dropin-cond-csw [WAITERS=32 ROUNDS=200]
DROPIN_COND_CSW := $(BUILD)/dropin-cond-csw
LIB_TARGETS += $(DROPIN_COND_CSW)
$(DROPIN_COND_CSW): pthread/cond-csw.c
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $< -pthread

.PHONY: dropin-cond-csw
dropin-cond-csw: $(DROPIN_COND_CSW) $(USPIN_RUN) $(DROPIN_SO)
	@echo "glibc:"; $(DROPIN_COND_CSW) $(or $(WAITERS),32) $(or $(ROUNDS),200)
	@echo "uspin (uspin-run, policy auto):"; \
	  $(USPIN_RUN) $(DROPIN_COND_CSW) $(or $(WAITERS),32) $(or $(ROUNDS),200)
	@echo "uspin (uspin-run, policy block):"; \
	  $(USPIN_RUN) -p block $(DROPIN_COND_CSW) $(or $(WAITERS),32) $(or $(ROUNDS),200)

# glibc's own NPTL tests (tests/nptl) under uspin-run, once per policy, each
# with its own logs (build/nptl/log-dropin-POLICY); NPTL_POLICIES="auto"
# to run fewer.  None that runs may fail (docs/pthread-dropin.md).  The
# tests in NPTL_DROPIN_ONCE (300,000 thread creations, ~2 min each) run
# under the first policy only; NPTL_DROPIN_ONCE= runs them under every one.
NPTL_POLICIES ?= auto block spin kernel-adaptive user-adaptive
NPTL_DROPIN_ONCE ?= tst-pthread-timedlock-lockloop
# glibc's TIMEOUTFACTOR for slow machines: tst-mutex10 (2 M barrier waits
# of 3 threads on 2 CPUs, TIMEOUT 50 s) takes 28-46 s under the spinning
# policies here, and went past 50 s while a kernel build shared the CPUs.
# Its subject is the init/destroy race, not speed: a timeout there says
# the machine was busy.  The per-test times stay in the summaries.
NPTL_DROPIN_TIMEOUTFACTOR ?= 2
.PHONY: check-nptl-dropin
check-nptl-dropin: nptl-tests $(USPIN_RUN) $(DROPIN_SO)
	@rc=0; first=1; for p in $(NPTL_POLICIES); do \
	  tests=; \
	  if [ $$first = 0 ] && [ -n "$(NPTL_DROPIN_ONCE)" ]; then \
	    tests=$$(tests/nptl/run-nptl-tests --list | awk '{ print $$1 }' | \
	      grep -vxF -e $$(echo $(NPTL_DROPIN_ONCE) | sed 's/ / -e /g')); \
	    echo "nptl-tests under policy $$p: not run again: $(NPTL_DROPIN_ONCE)"; \
	  fi; first=0; \
	  TIMEOUTFACTOR=$(NPTL_DROPIN_TIMEOUTFACTOR) \
	  NPTL_BUILD=$(NPTL_DIR) NPTL_LOG_DIR=$(NPTL_DIR)/log-dropin-$$p \
	  NPTL_WRAPPER="$(abspath $(USPIN_RUN)) --policy $$p --" \
	  tests/nptl/run-nptl-tests $$tests >$(NPTL_DIR)/dropin-$$p.out 2>&1 || rc=1; \
	  grep -E '^(FAIL|UNSUPPORTED|nptl-tests:)' $(NPTL_DIR)/dropin-$$p.out; \
	done; exit $$rc
# In make check, the policies whose lock paths differ on the host: on a
# stock kernel without uspin-stated, spin and kernel-adaptive take auto's
# plan (bounded spin, then FUTEX_WAIT; `build/uspin-info`), so they would
# repeat auto's run (~2 min each).  `make check-nptl-dropin` runs all five.
NPTL_CHECK_POLICIES ?= auto block user-adaptive
.PHONY: check-nptl-dropin-host
check-nptl-dropin-host:
	$(MAKE) check-nptl-dropin NPTL_POLICIES="$(NPTL_CHECK_POLICIES)"
host-check: check-nptl-dropin-host
