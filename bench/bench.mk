# bench/: benchmarks that report (never timed tests).
BENCH_UNCONTENDED := $(BUILD)/bench-uncontended
LIB_TARGETS += $(BENCH_UNCONTENDED)

# Linked against libuspin.so, as applications are (PLT call, like glibc's).
$(BENCH_UNCONTENDED): bench/uncontended.c $(LIBUSPIN_SO)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(BUILD) -luspin \
	  -Wl,-rpath,$(abspath $(BUILD)) -pthread

.PHONY: bench-uncontended
bench-uncontended: $(BENCH_UNCONTENDED)
	$(BENCH_UNCONTENDED)
