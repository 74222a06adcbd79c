# bench/apps/: real, unmodified Debian applications under each lock
# configuration, on the host and in the guest (docs/apps.md).
#
#   make bench-apps            host then guest, 5 rounds, full grids
#   make bench-apps QUICK=1    one thread count per application (~5 min host)
#   make bench-apps-host / bench-apps-guest   one side only
#   make bench-apps-check      the checks can fail: parsers and checks on
#                              a tiny glibc run and on broken copies of it
#
# Results go to results/<timestamp>/apps/ (BENCH_OUT=dir picks the parent).
# APPS_* variables pass through to bench/apps/run and apps.sh (docs/apps.md).

APPS_UTIL := $(BUILD)/apps-util
BENCH_BINS += $(APPS_UTIL)
DEB_APPS += memcached libmemcached-tools rocksdb-tools kyotocabinet-utils \
            sysbench pbzip2 $(DEB_BENCH)

# The hogs are bench's (bench/hogs.c, bench/work.c and the clock it needs).
APPS_UTIL_OBJS := $(addprefix $(BUILD)/obj/bench/,hogs.o work.o clock.o)

# Dynamically linked on purpose: run under a wrapper, `apps-util maps`
# tells whether its LD_PRELOAD took effect.  (In the guest, vm-run
# carries its libraries like the applications'.)
$(APPS_UTIL): $(BUILD)/obj/bench/apps/util.o $(APPS_UTIL_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ -lm

# The pthread drop-in and its wrapper (pthread/build.mk: USPIN_RUN,
# DROPIN_SO), when this tree builds them.
APPS_DROPIN := $(if $(USPIN_RUN),$(USPIN_RUN) $(DROPIN_SO))
APPS_DEPS := $(APPS_UTIL) $(USPIN_INFO) $(if $(BPF_MISSING),,$(USPIN_STATED)) $(APPS_DROPIN)
APPS_GUEST_DEPS := $(APPS_UTIL) $(BUILD)/guest/uspin-info $(APPS_DROPIN)
APPS_RUN = BUILD=$(BUILD) $(if $(BENCH_STATED),BENCH_STATED=$(BENCH_STATED)) \
	bench/apps/run $(if $(QUICK),--quick) $(if $(BENCH_OUT),--out $(BENCH_OUT))

.PHONY: bench-apps bench-apps-host bench-apps-guest bench-apps-check
bench-apps: $(APPS_DEPS) $(APPS_GUEST_DEPS) | deps-apps
	$(APPS_RUN)

bench-apps-host: $(APPS_DEPS) | deps-apps
	$(APPS_RUN) --host-only

bench-apps-guest: $(APPS_GUEST_DEPS) | deps-apps
	$(APPS_RUN) --guest-only

bench-apps-check: $(APPS_UTIL)
	BUILD=$(BUILD) bench/apps/check.sh
FULL_STEPS += bench-apps-check

# What each application exercises: its mutex / condvar / rwlock / yield
# calls per operation, counted once under glibc with an LD_PRELOAD
# counter (never during measured runs).
APPS_LOCKCOUNT := $(BUILD)/apps-lockcount.so
$(APPS_LOCKCOUNT): bench/apps/lockcount.c $(FLAGS_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -shared -o $@ $< -ldl

.PHONY: bench-apps-lockcount
bench-apps-lockcount: $(APPS_UTIL) $(APPS_LOCKCOUNT) | deps-apps
	BUILD=$(BUILD) APPS_LOCKCOUNT_SO=$(abspath $(APPS_LOCKCOUNT)) APPS_CONFIGS=glibc \
	  APPS_REPS=1 APPS_ALLOW_FEW=1 APPS_HOGS=0 bench/apps/run --host-only \
	  $(if $(QUICK),--quick) --out $(or $(BENCH_OUT),results/$(shell date +%Y%m%d-%H%M%S)-lockcount)
bench-bins: $(APPS_UTIL)
