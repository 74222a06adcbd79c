# vdso/bpf.mk: the BPF running-state provider for stock kernels.
#
# Always built: vdso/provider_bpf.c, in libuspin (the uspin-stated client:
# sockets and mmap only -- libuspin links libc alone and never loads BPF).
# Built where BTF, clang, bpftool and libbpf are present: the CO-RE
# program and its skeleton, the loader (rs_load.c) and the helper that
# loads them, uspin-stated (the opt-in).  The programs that load it for
# a test or a measurement are in tests/bpf/build.mk and bench/bench.mk.
# Elsewhere `make` still succeeds and they report themselves skipped with
# the reason.  USPIN_NO_BPF=1 forces the latter.

DEB_TEST += libbpf-dev bpftool clang libelf-dev zlib1g-dev

BPF_CLANG   ?= clang
BPFTOOL     ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool) bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_DIR     := $(BUILD)/bpf
# This fragment is read before libuspin/ and tests/ define their variables:
# prerequisites name those files by path, recipes may use the variables.
BPF_SKEL    := $(BPF_DIR)/running_state.skel.h
BPF_LOADER_O := $(BUILD)/obj/vdso/bpf/rs_load.o
USPIN_STATED := $(BUILD)/uspin-stated

# Why the BPF side cannot be built here; empty when it can (one shell
# for the three probes: every make parses this).
BPF_MISSING := $(strip \
  $(if $(USPIN_NO_BPF),USPIN_NO_BPF is set;) \
  $(if $(wildcard $(VMLINUX_BTF)),,no kernel BTF at $(VMLINUX_BTF);) \
  $(if $(USPIN_NO_BPF),,$(shell \
    command -v $(BPF_CLANG) >/dev/null 2>&1 || echo 'no $(BPF_CLANG);'; \
    command -v $(BPFTOOL) >/dev/null 2>&1 || echo 'no bpftool;'; \
    pkg-config --exists libbpf 2>/dev/null || echo 'no libbpf (libbpf-dev);')))

MAN_PAGES += vdso/stated/uspin-stated.8
LIB_SRCS += vdso/provider_bpf.c

.PHONY: install-bpf uninstall-bpf

ifeq ($(BPF_MISSING),)
# libbpf.pc's Libs (its Requires are private: static links only).
BPF_LDLIBS ?= -lbpf
BPF_CFLAGS := -target bpf -mcpu=v3 -g -O2 -Wall -Wextra -Wno-unused-parameter $(WERROR_FLAG) \
              -D__TARGET_ARCH_x86 -I$(BPF_DIR) -Ivdso/bpf

PRODUCT_TARGETS += $(USPIN_STATED)

# vmlinux.h describes the build machine's kernel; CO-RE relocates the
# program to whichever kernel loads it.
$(BPF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BPF_DIR)/running_state.bpf.o: vdso/bpf/running_state.bpf.c vdso/bpf/rs_layout.h $(BPF_DIR)/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BPF_SKEL): $(BPF_DIR)/running_state.bpf.o
	$(BPFTOOL) gen skeleton $< name running_state_bpf > $@.tmp && mv $@.tmp $@

# The skeleton is generated: named here, since no .d file can name it
# before the first build.
$(BPF_LOADER_O): $(BPF_SKEL)
$(BPF_LOADER_O): CPPFLAGS += -I$(BPF_DIR)

$(USPIN_STATED): vdso/stated/uspin-stated.c $(BPF_LOADER_O) $(FLAGS_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -o $@ $< $(BPF_LOADER_O) $(BPF_LDLIBS)

install-bpf: $(USPIN_STATED)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 755 $(USPIN_STATED) $(DESTDIR)$(SBINDIR)/
install: install-bpf
endif
# Why not, for a caller that needs it (debian/rules).
print-bpf-missing:
	@echo '$(or $(BPF_MISSING),nothing missing)'
.PHONY: print-bpf-missing
# Whether or not this build made it.
uninstall-bpf:
	rm -f $(DESTDIR)$(SBINDIR)/uspin-stated
uninstall: uninstall-bpf
