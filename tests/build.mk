# tests/: libuspin's Check suites (host and, statically linked, guest),
# the lock-path proof, the header, the installed tree and the man pages.
# Each check is a step of a tier (Makefile: TEST_STEPS, CHECK_STEPS,
# FULL_STEPS); the other test folders have fragments of their own,
# included here.

# tests/scenarios/: the scenarios test-uspin and test-dropin both run
# (and the torture test's lock table), through the lock API of
# tests/scenarios/ops.c: uspin_* as it is, pthread_* with -DLOCK_OPS_PTHREAD
# (then without any uspin header).
LOCK_OPS_SRC  := tests/scenarios/ops.c
SCENARIO_SRCS := tests/scenarios/cond.c tests/scenarios/process.c \
                 tests/scenarios/kill.c
SCENARIO_HDRS := $(wildcard tests/scenarios/*.h) tests/test_common.h \
                 tests/check_suites.h tests/sys_util.h
TEST_SRCS := tests/test_main.c tests/test_errors.c tests/test_timed.c \
             tests/test_stress.c tests/test_shared.c tests/test_policy.c \
             tests/test_vdso_sym.c tests/test_running_state.c \
             tests/test_setup.c tests/test_process.c tests/test_fairness.c \
             tests/test_cond.c tests/test_spin.c tests/test_kill.c \
             tests/test_slice_ext.c tests/test_shapes.c \
             $(SCENARIO_SRCS) $(LOCK_OPS_SRC)
TEST_USPIN := $(BUILD)/test-uspin
TEST_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_SRCS))
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt)
CHECK_STATIC_LIBS := -lcheck -lsubunit -lm -lrt
GUEST_BINS += $(BUILD)/guest/test-uspin

# The same objects for the host and (statically linked) the guest.
$(TEST_USPIN): $(TEST_OBJS) $(LIBUSPIN_A)
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJS) $(LIBUSPIN_A) $(CHECK_LIBS) -pthread

$(BUILD)/guest/test-uspin: $(TEST_OBJS) $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $(TEST_OBJS) $(LIBUSPIN_A) \
	  $(CHECK_STATIC_LIBS) -pthread

# Every call libuspin.a makes to these lands in tests/test_lockpath.c's
# counters.
comma := ,
LOCKPATH_WRAP := $(addprefix -Wl$(comma)--wrap=,clock_gettime gettimeofday \
	malloc calloc realloc free getenv secure_getenv fopen fprintf vfprintf \
	fputs fwrite socket connect sendmsg recvmsg send recv)
TEST_LOCKPATH := $(BUILD)/test-lockpath
GUEST_BINS += $(BUILD)/guest/test-lockpath

$(TEST_LOCKPATH): $(BUILD)/obj/tests/test_lockpath.o $(LIBUSPIN_A)
	$(CC) $(CFLAGS) -o $@ $< $(LIBUSPIN_A) $(LOCKPATH_WRAP) $(CHECK_LIBS) -pthread

$(BUILD)/guest/test-lockpath: $(BUILD)/obj/tests/test_lockpath.o $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $< $(LIBUSPIN_A) \
	  $(LOCKPATH_WRAP) $(CHECK_STATIC_LIBS) -pthread

.PHONY: check-unit check-lockpath check-header check-api check-man
check-lockpath: $(TEST_LOCKPATH)
	$(TEST_LOCKPATH)

# The public header compiles alone under strict ISO C and as C++ (a
# warning here is the defect tested, whatever WERROR says).
# git lists the tree's files for check-header.
DEB_TEST += git
# Every object searches include/, libuspin/ and vdso/ (CPPFLAGS): a header
# there must not share its name with one elsewhere, which a file outside
# its folder would then get instead (bench/stats.h did).
check-header:
	echo '#include "uspin.h"' | $(CC) -std=c11 -pedantic -Wall -Wextra -Werror \
	  -Iinclude -fsyntax-only -x c -
	echo '#include "uspin.h"' | $(CXX) -std=c++11 -pedantic -Wall -Wextra -Werror \
	  -Iinclude -fsyntax-only -x c++ -
	@dup=$$(for h in $$(ls include/*.h libuspin/*.h vdso/*.h | xargs -n1 basename); do \
	  git ls-files -co --exclude-standard -- "*/$$h" "$$h" | grep -c . | \
	  sed "s|^|$$h |"; done | awk '$$2 > 1 { print $$1 }'); \
	  [ -z "$$dup" ] || { echo "check-header: searched on every path and elsewhere too: $$dup" >&2; exit 1; }

# The installed tree, as a distribution would stage it (DESTDIR, a
# multiarch LIBDIR): every file where it belongs, pkg-config's view of it,
# tests/api_program.c built the way a user would and run under each
# policy, then uninstall leaves nothing (tests/check-api.sh).
API_DESTDIR := $(abspath $(BUILD))/api-destdir
check-api: $(PRODUCT_TARGETS)
	@sh tests/check-api.sh $(API_DESTDIR) $(BUILD)

# Every man page renders without a warning from man/groff.
check-man:
	@for p in $(MAN_PAGES); do \
	  w=$$(MANWIDTH=80 man --warnings -l -Tutf8 $$p 2>&1 >/dev/null); \
	  if [ -n "$$w" ]; then echo "check-man: $$p: $$w"; exit 1; fi; \
	  MANWIDTH=80 man -l -Tutf8 $$p | grep -q . || { echo "check-man: $$p renders empty"; exit 1; }; \
	done; echo "check-man: $(words $(MAN_PAGES)) pages ok"

check-unit: $(TEST_USPIN)
	$(TEST_USPIN)

TEST_STEPS += check-header check-man check-unit check-lockpath check-api

# The tiers' own runner (tests/run-tier) on a stub makefile.
.PHONY: check-run-tier
check-run-tier:
	tests/test-run-tier
TEST_STEPS += check-run-tier

# libuspin's own rules on the stock-kernel path, beside uspin.pml's
# lock-word protocol (tests/model/check-library.sh; FULL=1 for K=2):
# seconds, so in make test; the other models in check-full.
.PHONY: model-check-library
model-check-library:
	@sh tests/model/check-library.sh $(BUILD)/model
model-check: model-check-library
TEST_STEPS += model-check-library

# The queue of a private mutex's spinners (tests/model/spin_queue.pml,
# libuspin/spinners.c), negative controls included: seconds.
.PHONY: model-check-spin-queue
model-check-spin-queue:
	@sh tests/model/check-spin-queue.sh $(BUILD)/model
model-check: model-check-spin-queue
TEST_STEPS += model-check-spin-queue

# The Spin model of the condvar (tests/model/condvar.pml) in every
# configuration, negative controls included; `make model-check` runs it too.
.PHONY: model-check-condvar
model-check-condvar:
	@sh tests/model/check-condvar.sh $(BUILD)/model-condvar
model-check: model-check-condvar

include tests/dropin/build.mk
include tests/bpf/build.mk
include tests/torture/build.mk
