# vdso/bpf.mk: the BPF running-state provider for stock kernels.
#
# Always built: vdso/provider_bpf.c, in libuspin (the uspin-stated client:
# sockets and mmap only -- libuspin links libc alone and never loads BPF).
# Built where BTF, clang, bpftool and libbpf are present: the CO-RE
# program and its skeleton, the loader (rs_load.c), and the programs that
# load: uspin-stated (the opt-in), test-bpf and the bpf-pingpong bench.
# Elsewhere `make` still succeeds and check-bpf reports itself skipped
# with the reason.  USPIN_NO_BPF=1 forces the latter.

DEB_PACKAGES += libbpf-dev bpftool clang libelf-dev zlib1g-dev

BPF_CLANG   ?= clang
BPFTOOL     ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool) bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_DIR     := $(BUILD)/bpf
# This fragment is read before libuspin/ and tests/ define their variables:
# prerequisites name those files by path, recipes may use the variables.
BPF_SKEL    := $(BPF_DIR)/running_state.skel.h
# Not RS_LOAD_O: nothing outside this fragment links the loader any more.
BPF_LOADER_O := $(BUILD)/obj/vdso/bpf/rs_load.o
USPIN_STATED := $(BUILD)/uspin-stated
TEST_BPF    := $(BUILD)/test-bpf
PINGPONG    := $(BUILD)/bpf-pingpong

# Why the BPF side cannot be built here; empty when it can.
BPF_MISSING := $(strip \
  $(if $(USPIN_NO_BPF),USPIN_NO_BPF is set;) \
  $(if $(wildcard $(VMLINUX_BTF)),,no kernel BTF at $(VMLINUX_BTF);) \
  $(if $(shell command -v $(BPF_CLANG) 2>/dev/null),,no $(BPF_CLANG);) \
  $(if $(shell command -v $(BPFTOOL) 2>/dev/null),,no bpftool;) \
  $(if $(shell pkg-config --exists libbpf 2>/dev/null && echo y),,no libbpf (libbpf-dev);))

MAN_PAGES += vdso/stated/uspin-stated.8
LIB_SRCS += vdso/provider_bpf.c
$(BUILD)/obj/vdso/provider_bpf.o: vdso/bpf/rs_layout.h vdso/stated/proto.h

.PHONY: check-bpf bench-bpf-switch bench-bpf-stated install-bpf
host-check: check-bpf

ifeq ($(BPF_MISSING),)
BPF_LDLIBS := $(shell pkg-config --libs libbpf)
BPF_TARGETS := $(USPIN_STATED) $(TEST_BPF) $(PINGPONG)
TEST_BPF_SRCS := $(wildcard tests/bpf/*.c)
BPF_CFLAGS := -target bpf -mcpu=v3 -g -O2 -Wall -Wextra -Wno-unused-parameter -Werror \
              -D__TARGET_ARCH_x86 -I$(BPF_DIR) -Ivdso/bpf

all: $(BPF_TARGETS)

# vmlinux.h describes the build machine's kernel; CO-RE relocates the
# program to whichever kernel loads it.
$(BPF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BPF_DIR)/running_state.bpf.o: vdso/bpf/running_state.bpf.c vdso/bpf/rs_layout.h $(BPF_DIR)/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BPF_SKEL): $(BPF_DIR)/running_state.bpf.o
	$(BPFTOOL) gen skeleton $< name running_state_bpf > $@.tmp && mv $@.tmp $@

$(BPF_LOADER_O): vdso/bpf/rs_load.c $(BPF_SKEL) vdso/bpf/rs_load.h vdso/bpf/rs_layout.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BPF_DIR) $(CFLAGS) -c -o $@ $<

$(USPIN_STATED): vdso/stated/uspin-stated.c vdso/stated/proto.h vdso/bpf/rs_load.h \
		 vdso/bpf/rs_layout.h $(BPF_LOADER_O)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BPF_LOADER_O) $(BPF_LDLIBS)

# test-bpf links libbpf for its own checks (program ids, BPF stats), never
# to give libuspin a loader.
$(TEST_BPF): $(TEST_BPF_SRCS) tests/bpf/test_bpf.h vdso/stated/proto.h $(BUILD)/libuspin.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests -o $@ $(TEST_BPF_SRCS) \
	  $(BUILD)/libuspin.a $(BPF_LDLIBS) $(CHECK_LIBS) -pthread

$(PINGPONG): vdso/pingpong.c $(BPF_LOADER_O) $(BUILD)/libuspin.a
	$(CC) $(CPPFLAGS) -DUSPIN_PINGPONG_BPF $(CFLAGS) -o $@ $< $(BPF_LOADER_O) \
	  $(BUILD)/libuspin.a $(BPF_LDLIBS) -pthread

check-bpf: $(TEST_BPF) $(USPIN_STATED) $(BUILD)/uspin-info $(BUILD)/test-uspin $(BUILD)/libuspin.so
	@tests/bpf/run-check-bpf.sh $(BUILD)

bench-bpf-switch: $(PINGPONG)
	$(PINGPONG) --toggle bpf -r 7

# Attach latency (idle and with 200 silent connections), query cost and
# the programs' own run time, against a private helper.  Root.
bench-bpf-stated: $(TEST_BPF) $(USPIN_STATED)
	@tests/bpf/run-check-bpf.sh $(BUILD) measure

install-bpf: $(USPIN_STATED)
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 755 $(USPIN_STATED) $(DESTDIR)$(PREFIX)/sbin/
install: install-bpf
else
check-bpf:
	@echo "SKIP: check-bpf: BPF provider not built: $(BPF_MISSING)"
bench-bpf-switch bench-bpf-stated:
	@echo "SKIP: $@: BPF provider not built: $(BPF_MISSING)"
endif
