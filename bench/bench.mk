# bench/: benchmarks that report (never timed tests).
#
#   make bench            the full comparison: every workload on the host and
#                         on the patched kernel (kernel/vm-run), report
#   make bench QUICK=1    every workload and lock on reduced grids, ~7 min
#   make bench-host       only the host part (BENCH_ARGS adds harness options)
#   make bench-calibrate  check the work unit's instructions with callgrind
#   make bench-uncontended  lock+unlock via the .so, against glibc, single-
#                         threaded and with a thread alive
#   make bench-check      does the machinery work (behaviour, never timing;
#                         part of make check)
#
# Results go to results/<timestamp>/{host,guest}/ (gitignored).
# docs/benchmarks.md explains the method, the workloads and every column.

BENCH_UNCONTENDED := $(BUILD)/bench-uncontended
USPIN_BENCH       := $(BUILD)/uspin-bench
USPIN_BENCH_GUEST := $(BUILD)/guest/uspin-bench
LIB_TARGETS += $(BENCH_UNCONTENDED) $(USPIN_BENCH)
GUEST_BINS  += $(USPIN_BENCH_GUEST)
DEB_PACKAGES += gnuplot-nox valgrind python3 qemu-system-x86 busybox-static

# Shared pieces first (each depends only on those above it), then the
# engine, the runner, the workloads (one file each) and the contenders
# (one file each); main.c is only the command line.
BENCH_SRCS := bench/clock.c bench/work.c bench/stats.c bench/output.c \
              bench/result.c bench/repeats.c bench/guard.c bench/hogs.c \
              bench/thread_stats.c \
              bench/locks/registry.c bench/locks/futex_sys.c \
              bench/locks/futex_wait.c bench/locks/futex_wait_adaptive.c \
              bench/locks/futex_wait_tid.c bench/locks/futex_lock.c \
              bench/locks/pthread_mutex.c bench/locks/uspin.c \
              bench/contention.c bench/child.c bench/runner.c bench/meta.c \
              bench/workloads/registry.c bench/workloads/contended.c \
              $(addprefix bench/workloads/,micro.c sweep.c preempt.c \
                sleep_fault.c open_loop.c oversub.c kv.c) \
              bench/main.c
BENCH_HDRS := $(wildcard bench/*.h bench/locks/*.h bench/workloads/*.h)
BENCH_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(BENCH_SRCS))
# libuspin.a is linked, not the .so: meta reads the running-state view,
# which the .so does not export.
BENCH_LDLIBS := -lurcu-cds -lurcu -lurcu-common -lm -pthread
# uspin_thread_stats() is referenced weakly (bench/thread_stats.c): pull it
# from the archive when the library defines it, leave it NULL otherwise.
BENCH_WEAK = $$(nm $(LIBUSPIN_A) 2>/dev/null | grep -q ' T uspin_thread_stats$$' && \
	echo -Wl,-u,uspin_thread_stats)
# libuspin v2 never loads BPF: the host's provider is uspin-stated, which
# bench/run starts for the host run.
$(BUILD)/obj/bench/%.o: bench/%.c $(BENCH_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ibench $(CFLAGS) -c -o $@ $<

$(USPIN_BENCH): $(BENCH_OBJS) $(LIBUSPIN_A)
	$(CC) $(CFLAGS) -o $@ $(BENCH_OBJS) $(BENCH_WEAK) $(LIBUSPIN_A) \
	  $(BENCH_LDLIBS)

# Static for the guest, whose userland is busybox alone.
$(USPIN_BENCH_GUEST): $(BENCH_OBJS) $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $(BENCH_OBJS) $(BENCH_WEAK) $(LIBUSPIN_A) \
	  $(BENCH_LDLIBS)

# Linked against libuspin.so, as applications are (PLT call, like glibc's).
$(BENCH_UNCONTENDED): bench/uncontended.c bench/stats.c bench/stats.h $(LIBUSPIN_SO)
	$(CC) $(CPPFLAGS) -Ibench $(CFLAGS) -o $@ bench/uncontended.c bench/stats.c \
	  -L$(BUILD) -luspin -Wl,-rpath,$(abspath $(BUILD)) -pthread

.PHONY: bench bench-host bench-guest bench-calibrate bench-uncontended bench-check
# The guest gets only what the run needs: a smaller initramfs, and no
# dependence on other layers' guest binaries.
BENCH_GUEST_BINS := $(USPIN_BENCH_GUEST) $(BUILD)/guest/uspin-info tests/kernel/wait-clocksource
# The host run starts uspin-stated (root, built) unless BENCH_STATED=0.
BENCH_HOST_DEPS := $(USPIN_BENCH) $(USPIN_INFO) $(if $(BPF_MISSING),,$(USPIN_STATED))
BENCH_RUN = USPIN_GUEST_BINS="$(BENCH_GUEST_BINS)" BUILD=$(BUILD) \
	$(if $(BENCH_STATED),BENCH_STATED=$(BENCH_STATED)) \
	bench/run $(if $(QUICK),--quick) $(if $(BENCH_OUT),--out $(BENCH_OUT))

bench: $(BENCH_HOST_DEPS) $(BENCH_GUEST_BINS)
	$(BENCH_RUN) -- $(BENCH_ARGS)

bench-host: $(BENCH_HOST_DEPS)
	$(BENCH_RUN) --host-only -- $(BENCH_ARGS)

bench-guest: $(USPIN_BENCH) $(BENCH_GUEST_BINS)
	$(BENCH_RUN) --guest-only -- $(BENCH_ARGS)

bench-calibrate: $(USPIN_BENCH)
	bench/calibrate.sh $(USPIN_BENCH)

# The pthread drop-in (libuspin-pthread.so, LD_PRELOAD) joins as a subject
# as soon as the tree builds it: BENCH_DROPIN names it.
BENCH_DROPIN ?= $(BUILD)/libuspin-pthread.so
bench-uncontended: $(BENCH_UNCONTENDED)
	$(BENCH_UNCONTENDED) $(BENCH_UNCONTENDED_ARGS) \
	  $(if $(wildcard $(BENCH_DROPIN)),--preload pthread_dropin=$(abspath $(BENCH_DROPIN)))

bench-check: $(USPIN_BENCH) $(BENCH_UNCONTENDED)
	BUILD=$(BUILD) bench/check.sh

# The machinery check is behaviour only and takes seconds: part of check.
host-check: bench-check

# Real applications (bench/apps/, docs/apps.md).
include bench/apps/apps.mk
