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

host-check: check-unit check-api
