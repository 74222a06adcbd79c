# glibc's test support library (support/, libsupport.a) built standalone.
# Invoked by tests/nptl/build.mk once the source is unpacked:
#   make -f tests/nptl/support.mk SRC=<glibc tree> OUT=<obj dir> LIB=<.a> \
#        CC=... CFLAGS=... CPPFLAGS=... SHIM="<shim headers>"
# The routine list is glibc's own (libsupport-routines in support/Makefile),
# so this follows the tarball; the per-file flags below mirror that Makefile.

ifeq ($(SRC),)
$(error support.mk: SRC (the unpacked glibc tree) is not set)
endif

# Left out: two routines need glibc-internal sysdeps headers (sysdep.h,
# socket-constants-time64.h) and serve only 32-bit time64 tests;
# resolv_test calls the resolver-internal __res_iclose and serves only the
# resolver tests.
SKIP := support_path_support_time64 support_socket_so_timestamp_time64 \
  resolv_test

ROUTINES := $(filter-out $(SKIP) libsupport-routines =,\
  $(shell sed -n '/^libsupport-routines =/,/^$$/p' $(SRC)/support/Makefile | tr -d '\\'))
ifeq ($(ROUTINES),)
$(error support.mk: no libsupport-routines in $(SRC)/support/Makefile)
endif
OBJS := $(addprefix $(OUT)/,$(addsuffix .o,$(ROUTINES)))

# support/Makefile: "Ensure that general support files use 64-bit time_t".
FOB64 := delayed_exit support_can_chroot support_copy_file \
  support_copy_file_range support_descriptor_supports_holes \
  support_descriptors support_process_state support_stat_nanoseconds \
  support_subprocess support_test_main xmkdirp temp_file
$(foreach r,$(FOB64),$(eval CFLAGS-$(r) := -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64))
CFLAGS-timespec := -fexcess-precision=standard
CFLAGS-timespec-time64 := -fexcess-precision=standard
# support_paths.c: where a glibc build tree would be; here, the installed
# system (x86-64 Debian multiarch layout).
MULTIARCH := $(shell $(CC) -print-multiarch)
CFLAGS-support_paths := \
  -DSRCDIR_PATH=\"$(abspath $(SRC))\" \
  -DOBJDIR_PATH=\"$(abspath $(OUT)/..)\" \
  -DOBJDIR_ELF_LDSO_PATH=\"/lib64/ld-linux-x86-64.so.2\" \
  -DINSTDIR_PATH=\"/usr\" \
  -DLIBDIR_PATH=\"/usr/lib/$(MULTIARCH)\" \
  -DBINDIR_PATH=\"/usr/bin\" \
  -DSBINDIR_PATH=\"/usr/sbin\" \
  -DSLIBDIR_PATH=\"/lib/$(MULTIARCH)\" \
  -DROOTSBINDIR_PATH=\"/sbin\" \
  -DCOMPLOCALEDIR_PATH=\"/usr/lib/locale\"

$(LIB): $(OBJS)
	rm -f $@
	ar rcs $@ $^

# support/ sources include their siblings as <support.h>, hence -I support.
# Some rely on glibc's internal header wrappers for <stdlib.h> and
# <string.h> (malloc, free, atoi, strcmp): include them up front, and make
# any other implicit declaration an error, since it would truncate a
# pointer result.
SUPPORT_FLAGS := -include stdlib.h -include string.h \
  -Werror=implicit-function-declaration -I$(SRC)/support
$(OUT)/%.o: $(SRC)/support/%.c $(SHIM) | $(OUT)
	$(CC) $(CFLAGS) $(CFLAGS-$*) $(CPPFLAGS) $(SUPPORT_FLAGS) -c -o $@ $<

$(OUT):
	mkdir -p $@
