# kernel/kernel.mk — the patched 6.12 kernel, its guest tests, and the VM loop.
# Included by the top-level Makefile.
#
#   make kernel                   build the patched kernel (cached by inputs)
#   make vm-check                 kernel + guest bins, boot, run all guest suites
#   make vm-check KCONFIG=debug   the same on the debug kernel (lockdep,
#                                 KASAN, UBSAN & co.), with the fuzzer longer
#   make vm-check KCONFIG=kcsan   the same on the KCSAN kernel
#   make vm-selftests-baseline    the futex selftests on the *unpatched* kernel
#   make kernel-check-series      checkpatch --strict + per-patch builds
#   make kernel-package           a kernel for a real machine: x86_64_defconfig
#                                 + distro.config as Debian packages
#   make vm-check KCONFIG=distro  the guest suites on that very kernel
#   kernel/vm-run -- CMD          run anything on the patched kernel
#
# The kernel tree and builds live in $(USPIN_CACHE), keyed by the series and
# the config (see kernel/build), so a warm `make vm-check` only boots.

KCONFIG ?= base
VM_RUN  := kernel/vm-run
KERNEL_BUILD := USPIN_CACHE=$(USPIN_CACHE) kernel/build --variant $(KCONFIG)

# Computed without building anything; the paths change with the inputs.
# One call: every make parses this fragment, whatever its goal.
KERNEL_PATHS     := $(shell $(KERNEL_BUILD) --print-all)
KERNEL_BUILD_DIR := $(word 1,$(KERNEL_PATHS))
KERNEL_TREE      := $(word 2,$(KERNEL_PATHS))
# The image to boot: vmlinux, or a bzImage for a KASAN variant (kernel/build).
VMLINUX          := $(word 3,$(KERNEL_PATHS))
KERNEL_HDR       := $(KERNEL_BUILD_DIR)/hdr/include
KERNEL_STAMP     := $(KERNEL_BUILD_DIR)/.uspin-headers

# To build the kernel (tinyconfig needs neither OpenSSL nor modules tools)
# and boot it; busybox-static is also the guest's userland.  6.12's
# headers_install copies with rsync.  vm-rs-cost's perf is in DEB_BENCH.
DEB_KERNEL += qemu-system-x86 busybox-static linux-source-6.12 build-essential \
	      flex bison bc libelf-dev cpio patch xz-utils gzip rsync
DEB_BENCH  += linux-perf

# Guest test programs: static, against the patched uapi headers (so the
# _Static_assert against libuspin/futex_lock_abi.h sees the kernel's numbers).
KTEST_CFLAGS := -O2 -g -std=gnu11 -pthread -static -Wall -Wextra \
		-Wno-unused-parameter $(WERROR_FLAG)
KTEST_LIBS   := -lcheck -lsubunit -lrt -lm
KTEST_HDRS   := tests/kernel/futex_lock_test.h tests/kernel/io_uring_raw.h tests/kernel/guest_util.h libuspin/futex_lock_abi.h tests/sys_util.h

GUEST_BINS += $(BUILD)/guest/test-futex-lock $(BUILD)/guest/test-futex-lock-adaptive \
	      $(BUILD)/guest/futex-lock-fairness $(BUILD)/guest/uspin-fuzz \
	      $(BUILD)/guest/run-guest-suites $(BUILD)/guest/run-futex-selftests \
	      $(BUILD)/guest/test-running-state-kernel $(BUILD)/guest/pingpong \
	      $(BUILD)/guest/running_state_test $(BUILD)/guest/librs-optin.so \
	      $(BUILD)/guest/librs-areas.so $(BUILD)/guest/rs-areas-probe \
	      $(BUILD)/guest/test-rs-areas-shim \
	      $(BUILD)/guest/running-state-cost $(BUILD)/guest/test-rseq-state \
	      $(BUILD)/guest/wait-clocksource \
	      $(BUILD)/guest/thread_state_test \
	      $(BUILD)/guest/test-rseq-slice $(BUILD)/guest/slice_test \
	      $(BUILD)/guest/test-exec-window $(BUILD)/guest/test-futex-lock-spinners

# The suites vm-check runs in the guest, in this order.  uspin-fuzz runs
# for VM_FUZZ_SECONDS (it reports its call count; vm-run fails the run on
# any kernel splat).  The debug kernel (KASAN) needs more guest memory.
VM_SUITES ?= test-futex-lock test-futex-lock-adaptive futex-selftests uspin-fuzz \
	     test-running-state-kernel running_state_test running-state-vdso \
	     uspin-info test-uspin uspin-torture uspin-kill-futex-wait test-lockpath \
	     thread_state_test test-rseq-state running-state-rseq uspin-spin-rseq \
	     test-rs-areas-shim \
	     test-rseq-slice slice_test uspin-slice \
	     $(if $(filter distro,$(KCONFIG)),,test-exec-window)
VM_TIMEOUT ?= 1800
# The sanitizer kernels (debug, kcsan) fuzz longer and need more memory;
# the distro kernel (a defconfig with modules) needs more memory too.
KCONFIG_SANITIZER := $(filter debug kcsan,$(KCONFIG))
VM_FUZZ_SECONDS ?= $(if $(KCONFIG_SANITIZER),30,10)
VM_MEM ?= $(if $(filter base,$(KCONFIG)),512,1024)
# futex_requeue's waiters give up after 30 ms, which thread creation
# outlasts on the sanitizer kernels in TCG (they time out before the
# requeue); it runs on the others only.
VM_SELFTESTS_SKIP ?= $(if $(KCONFIG_SANITIZER),futex_requeue)
# The slice extension's grants on the sanitizer kernels: 50 us, not the
# 5 us default, which their exit path to user space outlasts under TCG
# (tests/kernel/run-guest-suites).
VM_SLICE_EXT_NSEC ?= $(if $(KCONFIG_SANITIZER),50000)
VM_SELFTESTS_SKIP_WHY := its 30 ms waiter timeouts are shorter than thread creation on a sanitizer kernel in TCG; run on the base kernel

# The kernel's own futex selftests (tools/testing/selftests/futex/functional
# of the same tree), static; the same binaries run on both kernels.
# futex_lock is series A's own (kernel/patches/futex/0004).
FUTEX_SELFTESTS := futex_requeue_pi futex_requeue_pi_mismatched_ops \
	futex_requeue_pi_signal_restart futex_wait_timeout futex_wait_wouldblock \
	futex_wait_uninitialized_heap futex_wait_private_mapped_file futex_wait \
	futex_requeue futex_waitv futex_lock
SELFTEST_DIR  := $(BUILD)/futex-selftests
SELFTEST_BINS := $(addprefix $(SELFTEST_DIR)/,$(FUTEX_SELFTESTS))

.PHONY: kernel vm-check vm-check-tsc vm-check-smp4 vm-selftests-baseline kernel-check-series kernel-clean \
	vm-rs-cost kernel-package

# The stamp's path is keyed by every input, so "exists" means "up to date";
# one rule builds, so a parallel make never starts two kernel builds.
kernel: $(KERNEL_STAMP)

$(KERNEL_STAMP):
	$(KERNEL_BUILD) --headers

$(BUILD)/guest/test-futex-lock: tests/kernel/test_futex_lock.c $(KTEST_HDRS) $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< $(KTEST_LIBS)

$(BUILD)/guest/test-futex-lock-adaptive: tests/kernel/test_futex_lock_adaptive.c $(KTEST_HDRS) $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< $(KTEST_LIBS)

$(BUILD)/guest/test-futex-lock-spinners: tests/kernel/test_futex_lock_spinners.c $(KTEST_HDRS) $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< $(KTEST_LIBS)

# A measurement (fairness with and without FUTEX_UNLOCK's handoff), not a suite.
$(BUILD)/guest/futex-lock-fairness: tests/kernel/futex_lock_fairness.c $(KTEST_HDRS) $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< $(KTEST_LIBS)

# The fuzzer: every .c file of tests/kernel/fuzz/ (a new file registers its
# own cases, see fuzz.h), against the patched uapi headers.
FUZZ_SRCS := $(sort $(wildcard tests/kernel/fuzz/*.c))
$(BUILD)/guest/uspin-fuzz: $(FUZZ_SRCS) $(wildcard tests/kernel/fuzz/*.h) tests/sys_util.h \
		$(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $(FUZZ_SRCS)

# The running-state array's kernel-specific checks (the ABI drift
# _Static_asserts need the patched <linux/sched_running_state.h>).
$(BUILD)/guest/test-running-state-kernel: tests/kernel/test_running_state_kernel.c \
		tests/kernel/guest_util.h vdso/running_state_abi.h vdso/running_state.h tests/sys_util.h $(LIBUSPIN_A) \
		$(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< \
	  $(LIBUSPIN_A) $(KTEST_LIBS)

# The series' in-tree selftest (tools/testing/selftests/sched), static.
$(BUILD)/guest/running_state_test: $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -g -static -pthread -Wall -Werror \
	  -I$(KERNEL_TREE)/tools/testing/selftests -isystem $(KERNEL_HDR) -o $@ \
	  $(KERNEL_TREE)/tools/testing/selftests/sched/running_state_test.c

# The per-thread alternative (kernel/patches/rseq/): its in-tree selftest,
# and the rseq provider's own checks (the exit race, fork, other processes).
$(BUILD)/guest/thread_state_test: $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -g -static -pthread -Wall -Werror \
	  -I$(KERNEL_TREE)/tools/testing/selftests -isystem $(KERNEL_HDR) -o $@ \
	  $(KERNEL_TREE)/tools/testing/selftests/sched/thread_state_test.c

# The rseq time slice extension (kernel/patches/rseq-slice/): the ABI
# suite, and 7.0's own selftest with the rseq selftests' helpers.
$(BUILD)/guest/test-rseq-slice: tests/kernel/test_rseq_slice.c $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< $(KTEST_LIBS)

RSEQ_SELFTESTS = $(KERNEL_TREE)/tools/testing/selftests/rseq
$(BUILD)/guest/slice_test: $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -g -static -pthread -Wall -Werror \
	  -I$(KERNEL_TREE)/tools/testing/selftests -I$(RSEQ_SELFTESTS) \
	  -I$(KERNEL_TREE)/tools/include -isystem $(KERNEL_HDR) -o $@ \
	  $(RSEQ_SELFTESTS)/slice_test.c $(RSEQ_SELFTESTS)/rseq.c -ldl

# The exec windows of the running-state and per-thread series, widened by
# the test kernel's exec delay (kernel/patches/testing/; not in the
# distro kernel, whose vm-check leaves the suite out).
$(BUILD)/guest/test-exec-window: tests/kernel/test_exec_window.c tests/kernel/guest_util.h tests/sys_util.h \
		$(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< $(KTEST_LIBS)

$(BUILD)/guest/test-rseq-state: tests/kernel/test_rseq_state.c vdso/running_state.h vdso/running_state_abi.h \
		tests/sys_util.h $(LIBUSPIN_A) $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) $(CPPFLAGS) -isystem $(KERNEL_HDR) -o $@ $< \
	  $(LIBUSPIN_A) $(KTEST_LIBS)

# The context-switch cost of publication, toggled with the sysctl, and
# the LD_PRELOAD shim that opts unmodified programs (perf) in.
$(BUILD)/guest/pingpong: bench/pingpong.c $(BUILD)/obj/bench/stats.o $(LIBUSPIN_A) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -static -o $@ $< $(BUILD)/obj/bench/stats.o \
	  $(LIBUSPIN_A) -pthread

$(BUILD)/guest/librs-optin.so: vdso/rs_optin.c vdso/running_state_abi.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -o $@ $<

$(BUILD)/guest/librs-areas.so: vdso/rs_areas_optin.c vdso/running_state_abi.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -o $@ $<

# librs-areas.so's own check: a dynamic probe (LD_PRELOAD needs one; the
# guest gets its libraries from kernel/mkinitramfs) and the suite.
$(BUILD)/guest/rs-areas-probe: tests/kernel/rs_areas_probe.c $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -isystem $(KERNEL_HDR) -o $@ $<

$(BUILD)/guest/test-rs-areas-shim: tests/kernel/test-rs-areas-shim
	@mkdir -p $(@D)
	cp $< $@

$(BUILD)/guest/running-state-cost: tests/kernel/running_state_cost
	@mkdir -p $(@D)
	cp $< $@

# What publication costs per context switch, in one boot of the patched
# kernel (TCG: ratios inside one run only): pingpong, perf bench sched pipe
# and perf bench sched messaging (hackbench), publication on vs off,
# medians with bootstrap 95 % intervals.  perf is Debian's linux-perf
# (dynamically linked; vm-run carries its libraries).  Not part of check.
# The guest's TSC runs at the host's rate under TCG; giving it avoids the
# PIT calibration, which fails on a loaded host (then: jiffies, 4 ms steps).
RS_COST_REPS ?= 21
RS_COST_TSC_KHZ ?= $(shell awk '/^cpu MHz/ { printf "%d", $$4 * 1000; exit }' /proc/cpuinfo)
vm-rs-cost: kernel guest-bins
	USPIN_GUEST_BINS="$(GUEST_BINS)" USPIN_CACHE=$(USPIN_CACHE) \
	  $(VM_RUN) --kernel $(VMLINUX) --smp 2 \
	  --append "tsc=reliable tsc_early_khz=$(RS_COST_TSC_KHZ)" \
	  --timeout 1200 --files $$(command -v perf) \
	  --log $(BUILD)/vm-rs-cost.log -- running-state-cost $(RS_COST_REPS)

$(BUILD)/guest/run-guest-suites $(BUILD)/guest/run-futex-selftests $(BUILD)/guest/wait-clocksource: $(BUILD)/guest/%: tests/kernel/%
	@mkdir -p $(@D)
	cp $< $@

$(SELFTEST_DIR)/%: $(KERNEL_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -g -static -pthread -D_GNU_SOURCE= -w \
		-I$(KERNEL_TREE)/tools/testing/selftests/futex/include \
		-I$(KERNEL_TREE)/tools/testing/selftests -isystem $(KERNEL_HDR) \
		-o $@ $(KERNEL_TREE)/tools/testing/selftests/futex/functional/$*.c -lpthread -lrt

vm-check: kernel guest-bins $(SELFTEST_BINS)
	USPIN_GUEST_BINS="$(GUEST_BINS)" USPIN_CACHE=$(USPIN_CACHE) \
	  $(VM_RUN) --kernel $(VMLINUX) --smp 2 --mem $(VM_MEM) --timeout $(VM_TIMEOUT) \
	  --log $(BUILD)/vm-check-$(KCONFIG).log --files $(SELFTEST_DIR) \
	  -- USPIN_SLICE_EXT_NSEC=$(VM_SLICE_EXT_NSEC) \
	     USPIN_FUZZ_SECONDS=$(VM_FUZZ_SECONDS) USPIN_SELFTESTS_SKIP=\''$(VM_SELFTESTS_SKIP)'\' \
	     USPIN_SELFTESTS_SKIP_WHY=\''$(VM_SELFTESTS_SKIP_WHY)'\' run-guest-suites $(VM_SUITES)

# The lock-path suite again on a guest with a vDSO clock (tsc=reliable):
# vm-check's boot keeps time with jiffies (a clock read is a system call
# there, in 4 ms steps), this one with the TSC, so the library's spin
# bounds are checked on both (docs/design.md); the slice extension's
# suite too, whose grants are bounded by an hrtimer on either clock.
VM_TSC_SUITES ?= test-lockpath test-rseq-slice

# Every tsc boot (vm-check-tsc, vm-rs-cost, the bench and bench-apps
# guests) waits for the switch with tests/kernel/wait-clocksource; its
# own test runs on the host, under sh and the guest's busybox sh.
.PHONY: check-wait-clocksource
check-wait-clocksource:
	sh tests/kernel/test-wait-clocksource sh
	@if command -v busybox >/dev/null; then \
	  sh tests/kernel/test-wait-clocksource 'busybox sh'; \
	else echo "SKIP  wait-clocksource under busybox sh: busybox is not installed (make deps)"; fi
TEST_STEPS += check-wait-clocksource
vm-check-tsc: kernel guest-bins
	USPIN_GUEST_BINS="$(GUEST_BINS)" USPIN_CACHE=$(USPIN_CACHE) \
	  $(VM_RUN) --kernel $(VMLINUX) --smp 2 --mem $(VM_MEM) --timeout $(VM_TIMEOUT) \
	  --append "tsc=reliable tsc_early_khz=$(RS_COST_TSC_KHZ)" \
	  --log $(BUILD)/vm-check-tsc-$(KCONFIG).log \
	  -- USPIN_SLICE_EXT_NSEC=$(VM_SLICE_EXT_NSEC) USPIN_EXPECT_CLOCKSOURCE=tsc \
	     run-guest-suites $(VM_TSC_SUITES)
vm-check: vm-check-tsc

# FUTEX_LOCK_ADAPTIVE's spinners, queued per word: two spinners and the
# owner they spin on must be on CPUs at once, so a third boot with 4 vCPUs
# (TCG runs them on 2 host cores; the guest sees them all on CPUs).  Its
# scan sets deadlines of 300 us, which the jiffies clock would stretch to
# a tick each: tsc=reliable, as vm-check-tsc.
VM_SMP4_SUITES ?= test-futex-lock-spinners
vm-check-smp4: kernel guest-bins
	USPIN_GUEST_BINS="$(GUEST_BINS)" USPIN_CACHE=$(USPIN_CACHE) \
	  $(VM_RUN) --kernel $(VMLINUX) --smp 4 --mem $(VM_MEM) --timeout $(VM_TIMEOUT) \
	  --append "tsc=reliable tsc_early_khz=$(RS_COST_TSC_KHZ)" \
	  --log $(BUILD)/vm-check-smp4-$(KCONFIG).log \
	  -- USPIN_EXPECT_CLOCKSOURCE=tsc run-guest-suites $(VM_SMP4_SUITES)
vm-check: vm-check-smp4
CHECK_STEPS += vm-check
# A cold kernel build (how long: README.md, "Commands") starts right after
# deps, at SCHED_IDLE, and uses what the host steps leave idle; vm-check
# waits for it.
CHECK_BG_STEPS += bg:kernel

# The unpatched Debian kernel, same config and selftest binaries: the
# "no regression" baseline for the futex selftests.  Not part of `check`.
vm-selftests-baseline: $(SELFTEST_BINS) $(BUILD)/guest/run-guest-suites $(BUILD)/guest/run-futex-selftests
	USPIN_CACHE=$(USPIN_CACHE) kernel/build --variant $(KCONFIG) --unpatched
	USPIN_GUEST_BINS="$(BUILD)/guest/run-guest-suites $(BUILD)/guest/run-futex-selftests" \
	  USPIN_CACHE=$(USPIN_CACHE) $(VM_RUN) \
	  --kernel $$(USPIN_CACHE=$(USPIN_CACHE) kernel/build --variant $(KCONFIG) --unpatched --print-image) \
	  --smp 2 --timeout $(VM_TIMEOUT) --log $(BUILD)/vm-selftests-baseline.log \
	  --files $(SELFTEST_DIR) -- run-guest-suites futex-selftests

kernel-check-series:
	USPIN_CACHE=$(USPIN_CACHE) kernel/check-series

# The series on a distribution-like config (x86_64_defconfig +
# kernel/config/distro.config), built into installable Debian packages
# for a bare-metal run of `make bench` and `make bench-apps`
# (docs/bare-metal.md).  `make vm-check KCONFIG=distro` boots the same
# build in the VM.  Not part of check; how long: README.md, "Commands"
# (each build's seconds: build-info.txt).
KERNEL_PACKAGE_DEBS := dpkg-dev debhelper fakeroot rsync kmod libssl-dev bc flex bison libelf-dev
kernel-package:
	$(call deps-install,$(KERNEL_PACKAGE_DEBS) linux-source-6.12)
	USPIN_CACHE=$(USPIN_CACHE) kernel/build --variant distro --package >/dev/null
	@d=$$(USPIN_CACHE=$(USPIN_CACHE) kernel/build --variant distro --print-packages); \
	  cat $$d/build-info.txt; echo "install: dpkg -i $$d/linux-image-*.deb (docs/bare-metal.md)"

kernel-clean:
	rm -rf $(USPIN_CACHE)/build $(USPIN_CACHE)/tree $(USPIN_CACHE)/kvm-probe
