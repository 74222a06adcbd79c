# tests/: libuspin's Check suites (host and, statically linked, guest) and
# the check that a program written only against uspin.h builds through
# pkg-config and runs under every USPIN_POLICY.
TEST_SRCS := tests/test_main.c tests/test_errors.c tests/test_timed.c \
             tests/test_stress.c tests/test_shared.c tests/test_policy.c \
             tests/test_vdso_sym.c tests/test_running_state.c \
             tests/test_setup.c tests/test_process.c tests/test_fairness.c
TEST_USPIN := $(BUILD)/test-uspin
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt)
CHECK_STATIC_LIBS := -lcheck -lsubunit -lm -lrt
GUEST_BINS += $(BUILD)/guest/test-uspin

$(TEST_USPIN): $(TEST_SRCS) tests/test_util.h $(LIBUSPIN_A)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(TEST_SRCS) $(LIBUSPIN_A) $(CHECK_LIBS) -pthread

$(BUILD)/guest/test-uspin: $(TEST_SRCS) tests/test_util.h $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -static -o $@ $(TEST_SRCS) $(LIBUSPIN_A) \
	  $(CHECK_STATIC_LIBS) -pthread

# Every call libuspin.a makes to these lands in tests/test_lockpath.c's
# counters.
comma := ,
LOCKPATH_WRAP := $(addprefix -Wl$(comma)--wrap=,clock_gettime gettimeofday \
	malloc calloc realloc free getenv secure_getenv fopen fprintf vfprintf \
	fputs fwrite socket connect sendmsg recvmsg send recv)
TEST_LOCKPATH := $(BUILD)/test-lockpath
GUEST_BINS += $(BUILD)/guest/test-lockpath

$(TEST_LOCKPATH): tests/test_lockpath.c tests/test_util.h $(LIBUSPIN_A)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests -o $@ $< $(LIBUSPIN_A) $(LOCKPATH_WRAP) \
	  $(CHECK_LIBS) -pthread

$(BUILD)/guest/test-lockpath: tests/test_lockpath.c tests/test_util.h $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests -static -o $@ $< $(LIBUSPIN_A) \
	  $(LOCKPATH_WRAP) $(CHECK_STATIC_LIBS) -pthread

check-lockpath: $(TEST_LOCKPATH)
	$(TEST_LOCKPATH)

# The public header compiles alone under strict ISO C and as C++.
check-header:
	echo '#include "uspin.h"' | $(CC) -std=c11 -pedantic -Wall -Wextra -Werror \
	  -Ilibuspin -fsyntax-only -x c -
	echo '#include "uspin.h"' | $(CXX) -std=c++11 -pedantic -Wall -Wextra -Werror \
	  -Ilibuspin -fsyntax-only -x c++ -

# Install into a scratch prefix, build tests/api_program.c the way a user
# would, and run it under each policy.
API_PREFIX := $(abspath $(BUILD))/api-prefix
check-api: $(LIB_TARGETS)
	rm -rf $(API_PREFIX)
	$(MAKE) --no-print-directory install PREFIX=$(API_PREFIX) >/dev/null
	$(CC) -Wall -Werror -o $(BUILD)/api-program tests/api_program.c \
	  $$(PKG_CONFIG_PATH=$(API_PREFIX)/lib/pkgconfig pkg-config --cflags --libs uspin) \
	  -Wl,-rpath,$(API_PREFIX)/lib
	@for p in auto block spin kernel-adaptive user-adaptive; do \
	  USPIN_POLICY=$$p $(BUILD)/api-program || { echo "api-program failed under USPIN_POLICY=$$p"; exit 1; }; \
	done

check-unit: $(TEST_USPIN)
	$(TEST_USPIN)

host-check: check-unit check-lockpath check-header check-api

# libuspin's own rules on the stock-kernel path, beside uspin.pml's
# lock-word protocol (tests/model/check-library.sh; FULL=1 for K=2).
.PHONY: model-check-library
model-check-library:
	@sh tests/model/check-library.sh $(BUILD)/model
model-check: model-check-library
