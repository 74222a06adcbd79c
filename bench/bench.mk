# bench/: benchmarks that report (never timed tests).  None of it is
# built by `make` or installed: each target below builds what it runs
# (`make bench-bins` builds all of it).
#
#   make bench            the full comparison: every workload on the host and
#                         on the patched kernel (kernel/vm-run), report
#   make bench QUICK=1    every workload and lock on reduced grids, ~7 min
#   make bench-host       only the host part (BENCH_ARGS adds harness options,
#                         BENCH_WORKLOADS=a,b runs only those workloads)
#   make bench-calibrate  check the work unit's instructions with callgrind
#   make bench-uncontended  lock+unlock via the .so, against glibc, single-
#                         threaded and with a thread alive; the drop-in too
#   make bench-cond-csw   context switches per condvar broadcast, glibc's
#                         against the drop-in's
#   make bench-pingpong   what publishing the running state adds to a
#                         context switch (BPF toggle, host; the guest build
#                         runs in make vm-rs-cost)
#   make bench-spin-gaps  the gaps an undisturbed spinner sees, host and
#                         guest: what libuspin's self-preemption stop
#                         must stay above (docs/design.md)
#   make bench-check      does the machinery work (behaviour, never timing;
#                         the verdict rule's simulated error rates; part of
#                         make check)
#   make eval-plots       the plots of the runs kept in docs/eval/, redrawn
#                         from their CSVs into $(BUILD)/eval/, and the
#                         evaluation's figures into docs/figures/*.svg
#                         (committed; make check-eval-figures: unchanged?)
#
# Results go to results/<timestamp>/{host,guest}/ (gitignored).
# docs/benchmarks.md explains the method, the workloads and every column.

BENCH_UNCONTENDED := $(BUILD)/bench-uncontended
USPIN_BENCH       := $(BUILD)/uspin-bench
USPIN_BENCH_GUEST := $(BUILD)/guest/uspin-bench
BENCH_COND_CSW    := $(BUILD)/bench-cond-csw
BENCH_SPIN_GAPS   := $(BUILD)/bench-spin-gaps
BENCH_BINS  := $(BENCH_UNCONTENDED) $(USPIN_BENCH) $(BENCH_COND_CSW) \
               $(BENCH_SPIN_GAPS)
GUEST_BINS  += $(USPIN_BENCH_GUEST) $(BUILD)/guest/bench-spin-gaps
# To build the harness and run bench-check, whose report draws the plots /
# to run the benchmarks, whose guest half boots the patched kernel.
DEB_BENCH_BUILD += liburcu-dev python3 gnuplot-nox
DEB_BENCH  += $(DEB_BENCH_BUILD) valgrind $(DEB_KERNEL)

# Shared pieces first (each depends only on those above it), then the
# engine, the runner, the workloads (one file each) and the contenders
# (one file each); main.c is only the command line.
BENCH_SRCS := bench/clock.c bench/work.c bench/stats.c bench/output.c \
              bench/result.c bench/repeats.c bench/guard.c bench/hogs.c \
              bench/preemptor.c \
              bench/thread_stats.c \
              bench/locks/registry.c bench/locks/futex_sys.c \
              bench/locks/futex_wait.c bench/locks/futex_wait_adaptive.c \
              bench/locks/futex_wait_tid.c bench/locks/futex_lock.c \
              bench/locks/parking_lot.c \
              bench/locks/pthread_mutex.c bench/locks/uspin.c \
              bench/contention.c bench/child.c bench/runner.c bench/meta.c \
              bench/workloads/registry.c bench/workloads/contended.c \
              $(addprefix bench/workloads/,micro.c sweep.c preempt.c \
                sleep_fault.c open_loop.c oversub.c kv.c holdtime.c) \
              bench/main.c
BENCH_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(BENCH_SRCS))
$(BUILD)/obj/bench/%.o: CPPFLAGS += -Ibench
# libuspin.a is linked, not the .so: meta reads the running-state view,
# which the .so does not export.  libuspin v2 never loads BPF: the host's
# provider is uspin-stated, which bench/run starts for the host run.
BENCH_LDLIBS := -lurcu-cds -lurcu -lurcu-common -lm -pthread

$(USPIN_BENCH): $(BENCH_OBJS) $(LIBUSPIN_A)
	$(CC) $(CFLAGS) -o $@ $(BENCH_OBJS) $(LIBUSPIN_A) $(BENCH_LDLIBS)

# Static for the guest, whose userland is busybox alone.
$(USPIN_BENCH_GUEST): $(BENCH_OBJS) $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $(BENCH_OBJS) $(LIBUSPIN_A) $(BENCH_LDLIBS)

# Linked against libuspin.so, as applications are (PLT call, like glibc's).
$(BENCH_UNCONTENDED): $(BUILD)/obj/bench/uncontended.o $(LIBUSPIN_SO)
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) \
	  -L$(BUILD) -luspin -Wl,-rpath,$(abspath $(BUILD)) -pthread

# Static for the guest; libuspin's counter (cycles.h) and its calibration.
$(BENCH_SPIN_GAPS) $(BUILD)/guest/bench-spin-gaps: bench/spin_gaps.c libuspin/cycles.h $(LIBUSPIN_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(if $(findstring guest,$@),-static) -o $@ $< $(LIBUSPIN_A) -pthread

# Both with nothing else on the spinner's CPU and with a hog beside it.
bench-spin-gaps: $(BENCH_SPIN_GAPS) $(BUILD)/guest/bench-spin-gaps kernel
	$(BENCH_SPIN_GAPS) 2 0; $(BENCH_SPIN_GAPS) 2 1
	USPIN_GUEST_BINS=$(BUILD)/guest/bench-spin-gaps USPIN_CACHE=$(USPIN_CACHE) \
	  kernel/vm-run --smp 2 --timeout 300 -- 'bench-spin-gaps 2 0; bench-spin-gaps 2 1'

# Plain pthread, no libuspin: uspin-run gives it the drop-in.
$(BENCH_COND_CSW): $(BUILD)/obj/bench/cond_csw.o
	$(CC) $(CFLAGS) -o $@ $< -pthread

.PHONY: bench bench-host bench-guest bench-calibrate bench-uncontended bench-check bench-spin-gaps \
	eval-plots bench-bins bench-cond-csw bench-pingpong bench-bpf-switch
# The guest gets only what the run needs: a smaller initramfs, and no
# dependence on other layers' guest binaries.
BENCH_GUEST_BINS := $(USPIN_BENCH_GUEST) $(BUILD)/guest/uspin-info tests/kernel/wait-clocksource
# The host run starts uspin-stated (root, built) unless BENCH_STATED=0.
BENCH_HOST_DEPS := $(USPIN_BENCH) $(USPIN_INFO) $(if $(BPF_MISSING),,$(USPIN_STATED))
BENCH_RUN = USPIN_GUEST_BINS="$(BENCH_GUEST_BINS)" BUILD=$(BUILD) \
	$(if $(BENCH_STATED),BENCH_STATED=$(BENCH_STATED)) \
	bench/run $(if $(QUICK),--quick) $(if $(BENCH_OUT),--out $(BENCH_OUT)) \
	  $(if $(BENCH_WORKLOADS),--workloads $(BENCH_WORKLOADS))

bench: $(BENCH_HOST_DEPS) $(BENCH_GUEST_BINS) | deps-bench
	$(BENCH_RUN) -- $(BENCH_ARGS)

bench-host: $(BENCH_HOST_DEPS) | deps-bench
	$(BENCH_RUN) --host-only -- $(BENCH_ARGS)

bench-guest: $(USPIN_BENCH) $(BENCH_GUEST_BINS) | deps-bench
	$(BENCH_RUN) --guest-only -- $(BENCH_ARGS)

bench-calibrate: $(USPIN_BENCH)
	bench/calibrate.sh $(USPIN_BENCH)

# The pthread drop-in (libuspin-pthread.so, LD_PRELOAD) joins as a subject
# as soon as the tree builds it: BENCH_DROPIN names it.  rounds.csv and
# summary.txt (the run's checks, then bench/uncontended_report.py's table
# under the one verdict rule) go to results/<timestamp>/uncontended/
# (BENCH_OUT=dir picks the parent).
BENCH_DROPIN ?= $(DROPIN_SO)
bench-uncontended: $(BENCH_UNCONTENDED) $(BENCH_DROPIN)
	@d=$(or $(BENCH_OUT),results/$$(date +%Y%m%d-%H%M%S))/uncontended && mkdir -p $$d && \
	echo "bench-uncontended: results in $$d" && \
	$(BENCH_UNCONTENDED) $(BENCH_UNCONTENDED_ARGS) -o $$d/rounds.csv \
	  $(if $(BENCH_DROPIN),--preload pthread_dropin=$(abspath $(BENCH_DROPIN))) >$$d/summary.txt && \
	python3 bench/uncontended_report.py $$d/rounds.csv >>$$d/summary.txt && \
	cat $$d/summary.txt

# Context switches per broadcast, glibc's condvar against uspin's.
# make bench-cond-csw [WAITERS=32 ROUNDS=200]
bench-cond-csw: $(BENCH_COND_CSW) $(USPIN_RUN) $(DROPIN_SO)
	@echo "glibc:"; $(BENCH_COND_CSW) $(or $(WAITERS),32) $(or $(ROUNDS),200)
	@echo "uspin (uspin-run, policy auto):"; \
	  $(USPIN_RUN) $(BENCH_COND_CSW) $(or $(WAITERS),32) $(or $(ROUNDS),200)
	@echo "uspin (uspin-run, policy block):"; \
	  $(USPIN_RUN) -p block $(BENCH_COND_CSW) $(or $(WAITERS),32) $(or $(ROUNDS),200)

# What publishing the running state adds to a context switch
# (bench/pingpong.c): on the host with the BPF toggle (root; the guest's
# static build, with the sysctl toggle, is in kernel/kernel.mk).
BENCH_PINGPONG := $(BUILD)/bpf-pingpong
ifeq ($(BPF_MISSING),)
$(BENCH_PINGPONG): bench/pingpong.c $(BUILD)/obj/bench/stats.o $(BPF_LOADER_O) $(LIBUSPIN_A) \
		$(FLAGS_STAMP)
	$(CC) $(CPPFLAGS) -DUSPIN_PINGPONG_BPF $(CFLAGS) $(DEPFLAGS) -o $@ $< \
	  $(BUILD)/obj/bench/stats.o $(BPF_LOADER_O) $(LIBUSPIN_A) $(BPF_LDLIBS) -pthread
bench-pingpong: $(BENCH_PINGPONG)
	$(BENCH_PINGPONG) --toggle bpf -r 7
else
bench-pingpong:
	@echo "SKIP: $@: BPF provider not built: $(BPF_MISSING)"
endif
bench-bpf-switch: bench-pingpong

bench-bins: $(BENCH_BINS) $(if $(BPF_MISSING),,$(BENCH_PINGPONG))

# The machinery check is behaviour only and takes seconds: part of check.
bench-check: $(USPIN_BENCH) $(BENCH_UNCONTENDED)
	BUILD=$(BUILD) bench/check.sh
CHECK_STEPS += bench-check

# docs/eval/ keeps each run's CSVs, meta.json and reports, not the plots,
# which are derived: this draws them (gnuplot, DEB_BENCH) into a copy,
# where the reports' plot links resolve.  It also redraws the figures that
# docs/evaluation.md and the README embed (docs/figures/, committed;
# docs/figures/README.md says what each shows) from the same stored runs.
# The SVGs carry no date: check-eval-figures redraws them into a temporary
# folder and fails if a committed one differs (about a second; skipped
# without gnuplot, or with another gnuplot version than drew them).
eval-plots:
	python3 bench/eval_plots.py docs/eval $(BUILD)/eval
	python3 -B bench/eval_figures.py docs/figures

# gnuplot: the figures check redraws them (make test).
DEB_TEST += gnuplot-nox
check-eval-figures:
	python3 -B bench/eval_figures.py --check docs/figures
.PHONY: check-eval-figures
TEST_STEPS += check-eval-figures

# Real applications (bench/apps/, docs/apps.md).
include bench/apps/apps.mk

# The evaluation's tables recompute from the runs stored under docs/eval/
# (each is marked with the bench/compare.py or regimes.py command that
# made it) and the verdict rule's simulated error rates from
# bench/benchlib/selftest.py; the selftest shows that a changed number is
# caught.
check-eval-tables:
	python3 -B bench/check_eval_tables.py --selftest docs/evaluation.md
.PHONY: check-eval-tables
TEST_STEPS += check-eval-tables

# The many-core model (bench/model/, docs/model.md): its properties in a
# second; the whole run (primitives, validation, maps, sensitivity) into
# docs/eval/model/, from the measured runs in docs/eval/v3-full/ (the
# primitives and the first validation from hold/, more from duty/ and
# preempt/).
check-model:
	python3 bench/model/run.py --selftest

eval-model:
	python3 bench/model/run.py --out docs/eval/model --data docs/eval/v3-full/hold \
	  --also docs/eval/v3-full/duty --also docs/eval/v3-full/preempt
.PHONY: check-model eval-model
TEST_STEPS += check-model
