# tests/torture/: random lock traffic through libuspin's API and through
# pthread_* (the drop-in under uspin-run, glibc as the control), every
# policy, private, shared and robust mutexes, with fork, exec, cancellation,
# signals and SIGKILL (tests/torture/torture.c, run.sh), on either table of
# tests/scenarios/ops.c.
#   make torture [TORTURE_SECONDS=600]   every combination, that long in all
#   check-torture (make check): the same for TORTURE_CHECK_SECONDS (60)
TORTURE      := $(BUILD)/uspin-torture
TORTURE_PT   := $(BUILD)/uspin-torture-pthread
TORTURE_SRCS := tests/torture/torture.c
TORTURE_HDRS := tests/scenarios/lock_ops.h tests/test_common.h tests/sys_util.h
TORTURE_USPIN_HDRS := $(wildcard libuspin/*.h)
TORTURE_CFLAGS := -O2 -g -std=gnu11 -pthread -Wall -Wextra $(WERROR_FLAG) \
                  -Wno-unused-parameter -D_GNU_SOURCE
TORTURE_SECONDS ?= 600
TORTURE_CHECK_SECONDS ?= 60
GUEST_BINS += $(BUILD)/guest/uspin-torture

$(TORTURE): $(TORTURE_SRCS) $(LOCK_OPS_SRC) $(TORTURE_HDRS) $(TORTURE_USPIN_HDRS) $(LIBUSPIN_A)
	$(CC) $(TORTURE_CFLAGS) -Iinclude -Ilibuspin -Ivdso -o $@ $(TORTURE_SRCS) $(LOCK_OPS_SRC) $(LIBUSPIN_A)

# No uspin header, no libuspin: glibc's pthread, or the drop-in's.
$(TORTURE_PT): $(TORTURE_SRCS) $(LOCK_OPS_SRC) $(TORTURE_HDRS)
	$(CC) $(TORTURE_CFLAGS) -DLOCK_OPS_PTHREAD -o $@ $(TORTURE_SRCS) $(LOCK_OPS_SRC)

$(BUILD)/guest/uspin-torture: $(TORTURE_SRCS) $(LOCK_OPS_SRC) $(TORTURE_HDRS) $(TORTURE_USPIN_HDRS) $(LIBUSPIN_A)
	@mkdir -p $(@D)
	$(CC) $(TORTURE_CFLAGS) -static -Iinclude -Ilibuspin -Ivdso -o $@ $(TORTURE_SRCS) \
	  $(LOCK_OPS_SRC) $(LIBUSPIN_A)

.PHONY: torture check-torture
TORTURE_DEPS := $(TORTURE) $(TORTURE_PT) $(DROPIN_SO) $(USPIN_RUN) $(USPIN_INFO)
torture: $(TORTURE_DEPS)
	@sh tests/torture/run.sh $(BUILD) $(TORTURE_SECONDS)
check-torture: $(TORTURE_DEPS)
	@sh tests/torture/run.sh $(BUILD) $(TORTURE_CHECK_SECONDS)
CHECK_STEPS += check-torture
