# tests/bpf/: the BPF provider and uspin-stated (vdso/bpf.mk builds them).
# test-bpf links libbpf for its own checks (program ids, BPF stats), never
# to give libuspin a loader.  check-bpf needs root; it reports itself
# skipped otherwise, and where vdso/bpf.mk could not build the BPF side.
TEST_BPF := $(BUILD)/test-bpf
TEST_BPF_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/bpf/*.c))
TEST_STEPS += check-bpf
.PHONY: check-bpf bench-bpf-stated

ifeq ($(BPF_MISSING),)
$(TEST_BPF_OBJS): CPPFLAGS += -Itests
$(TEST_BPF): $(TEST_BPF_OBJS) $(LIBUSPIN_A)
	$(CC) $(CFLAGS) -o $@ $(TEST_BPF_OBJS) $(LIBUSPIN_A) $(BPF_LDLIBS) $(CHECK_LIBS) -pthread

check-bpf: $(TEST_BPF) $(USPIN_STATED) $(USPIN_INFO) $(TEST_USPIN) $(TEST_LOCKPATH) $(LIBUSPIN_SO)
	@tests/bpf/run-check-bpf.sh $(BUILD)

# Attach latency (idle and with 200 silent connections), query cost and
# the programs' own run time, against a private helper.  Root.  A
# measurement, run by the test program's measure mode.
bench-bpf-stated: $(TEST_BPF) $(USPIN_STATED)
	@tests/bpf/run-check-bpf.sh $(BUILD) measure
else
check-bpf bench-bpf-stated:
	@echo "SKIP: $@: BPF provider not built: $(BPF_MISSING)"
endif
