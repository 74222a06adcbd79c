# tests/dropin/: plain pthread programs, run on glibc (the control) and
# under uspin-run with each policy; uspin-run's command line; unmodified
# applications under uspin-run (docs/pthread-dropin.md).  The tests are
# built against the system's headers only, never libuspin's; the scenarios
# they share with test-uspin (tests/scenarios/) run on pthread_* here.
DROPIN_TEST     := $(BUILD)/test-dropin
DROPIN_TEST_CXX := $(BUILD)/test-dropin-cxx
DROPIN_TEST_DIR := $(BUILD)/dropin
DROPIN_TEST_SRCS := tests/dropin/main.c tests/dropin/kinds.c \
                    tests/dropin/cond.c tests/dropin/process.c tests/dropin/edges.c \
                    tests/dropin/kill.c $(SCENARIO_SRCS) $(LOCK_OPS_SRC)
DROPIN_HELPERS := $(DROPIN_TEST_DIR)/libhelper.so $(DROPIN_TEST_DIR)/libhelper-deep.so
DROPIN_EARLY := $(DROPIN_TEST_DIR)/libearly.so
DROPIN_TEST_CFLAGS := -O2 -g -std=gnu11 -pthread -Wall -Wextra $(WERROR_FLAG) \
                      -Wno-unused-parameter -D_GNU_SOURCE
DEB_TEST += sysbench pbzip2

$(DROPIN_TEST_DIR)/libhelper.so $(DROPIN_TEST_DIR)/libhelper-deep.so: tests/dropin/libhelper.c
	@mkdir -p $(dir $@)
	$(CC) $(DROPIN_TEST_CFLAGS) -fPIC -shared -o $@ $<

$(DROPIN_EARLY): tests/dropin/libearly.c tests/sys_util.h
	@mkdir -p $(dir $@)
	$(CC) $(DROPIN_TEST_CFLAGS) -fPIC -shared -o $@ $<

$(DROPIN_TEST): $(DROPIN_TEST_SRCS) tests/dropin/util.h $(SCENARIO_HDRS) \
		$(DROPIN_EARLY) $(DROPIN_HELPERS)
	$(CC) $(DROPIN_TEST_CFLAGS) -DLOCK_OPS_PTHREAD -o $@ $(DROPIN_TEST_SRCS) \
	  -L$(DROPIN_TEST_DIR) -learly -Wl,-rpath,$(abspath $(DROPIN_TEST_DIR)) \
	  $(CHECK_LIBS) -ldl

$(DROPIN_TEST_CXX): tests/dropin/cxx.cc tests/sys_util.h
	$(CXX) -std=c++17 -O2 -g -pthread -Wall -Wextra $(WERROR_FLAG) -o $@ $< $(CHECK_LIBS)

$(DROPIN_TEST_DIR)/static-hello: tests/dropin/static_hello.c
	@mkdir -p $(dir $@)
	$(CC) $(DROPIN_TEST_CFLAGS) -static -o $@ $<

# make test runs the suites on glibc and under the policies whose paths
# differ on a stock kernel (spin and kernel-adaptive take auto's plan
# there: build/uspin-info), and so does make check; check-full runs
# every policy (=all: uspin-info --policies).
DROPIN_TEST_POLICIES ?= auto block user-adaptive
FULL_VARS += DROPIN_TEST_POLICIES=all
.PHONY: check-dropin check-uspin-run check-apps
check-dropin: $(DROPIN_TEST) $(DROPIN_TEST_CXX) $(DROPIN_SO) $(USPIN_RUN) $(USPIN_INFO)
	@$(if $(filter all,$(DROPIN_TEST_POLICIES)),,DROPIN_POLICIES="$(DROPIN_TEST_POLICIES)") \
	  sh tests/dropin/check.sh $(BUILD)

check-uspin-run: $(USPIN_RUN) $(USPIN_INFO) $(DROPIN_SO) $(DROPIN_TEST_DIR)/static-hello
	@sh tests/dropin/check-cli.sh $(BUILD)

# Unmodified applications under uspin-run: output identical to without.
check-apps: $(USPIN_RUN) $(DROPIN_SO)
	@sh tests/dropin/check-apps.sh $(BUILD)

TEST_STEPS  += check-dropin check-uspin-run
CHECK_STEPS += check-apps
