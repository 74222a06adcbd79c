# libuspin/: the mutex library, its pkg-config file and uspin-info.
# liburcu's headers carry the atomics and barriers (internal.h); the test
# and table-check scripts are python3.
DEB_TEST += liburcu-dev python3
# (build/uspin.pc is for in-tree use; install writes one for its PREFIX.)
USPIN_VERSION := 2.0.0
USPIN_SOVERSION := 2
LIB_SRCS += libuspin/setup.c libuspin/thread_self.c libuspin/policy.c \
            libuspin/spin.c libuspin/robust_list.c libuspin/mutex_init.c \
            libuspin/mutex_lock.c libuspin/mutex_trylock.c \
            libuspin/mutex_unlock.c libuspin/stats.c libuspin/info.c \
            libuspin/slice_ext.c libuspin/owner.c libuspin/claims.c \
            libuspin/cpu_wanted.c libuspin/spinners.c
# The condition variable (docs/condvar.md).
LIB_SRCS += libuspin/cond_init.c libuspin/cond_lock.c libuspin/cond_wait.c \
            libuspin/cond_signal.c
LIB_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
# The policy names of policy.c's table, read once, at parse time: every
# policy in the library's order, and the controls ("/* control */").
USPIN_POLICY_TABLE := $(shell sed -n 's|^[[:space:]]*\[USPIN_POLICY_[A-Z_]*\][[:space:]]*=[[:space:]]*"\([a-z-]*\)",[[:space:]]*\(/\* \(control\) \*/\)\{0,1\}$$|\1:\3|p' libuspin/policy.c)
USPIN_POLICIES := $(foreach p,$(USPIN_POLICY_TABLE),$(firstword $(subst :, ,$(p))))
USPIN_CONTROL_POLICIES := $(patsubst %:control,%,$(filter %:control,$(USPIN_POLICY_TABLE)))
$(if $(USPIN_POLICIES),,$(error libuspin/policy.c: no policy names found))
LIBUSPIN_A  := $(BUILD)/libuspin.a
LIBUSPIN_SO := $(BUILD)/libuspin.so
USPIN_INFO  := $(BUILD)/uspin-info
USPIN_PC    := $(BUILD)/uspin.pc
LIB_TARGETS := $(LIBUSPIN_A) $(LIBUSPIN_SO) $(USPIN_INFO) $(USPIN_PC)
PRODUCT_TARGETS += $(LIB_TARGETS)
# Man pages: each layer adds its own; install puts them in man<section>.
MAN_PAGES   += libuspin/uspin.3 libuspin/uspin-info.1
GUEST_BINS  += $(BUILD)/guest/uspin-info

$(LIBUSPIN_A): $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

# Only the uspin.h API is exported from the shared object.
$(LIBUSPIN_SO): $(LIB_OBJS) libuspin/libuspin.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libuspin.so.$(USPIN_SOVERSION) \
	  -Wl,--version-script=libuspin/libuspin.map -o $@ $(filter %.o,$^) -pthread
	ln -sf libuspin.so $(BUILD)/libuspin.so.$(USPIN_SOVERSION)

$(USPIN_INFO): libuspin/uspin-info.c $(LIBUSPIN_A) $(FLAGS_STAMP)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -o $@ $< $(LIBUSPIN_A) -pthread

$(BUILD)/guest/uspin-info: libuspin/uspin-info.c $(LIBUSPIN_A) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -static -o $@ $< $(LIBUSPIN_A) -pthread

# The in-tree uspin.pc names the install directories too (the variables
# of the top-level Makefile); install writes the same file.
USPIN_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(USPIN_VERSION)|'
$(USPIN_PC): libuspin/uspin.pc.in libuspin/build.mk FORCE
	@$(USPIN_PC_SED) $< > $@.tmp; cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# Every file install writes, relative to DESTDIR; uninstall removes them.
INSTALLED_FILES = $(INCLUDEDIR)/uspin.h $(LIBDIR)/libuspin.a \
	$(LIBDIR)/libuspin.so.$(USPIN_VERSION) $(LIBDIR)/libuspin.so.$(USPIN_SOVERSION) \
	$(LIBDIR)/libuspin.so $(PKGCONFIGDIR)/uspin.pc $(BINDIR)/uspin-info \
	$(foreach p,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p)))

.PHONY: install-lib uninstall-lib
install: install-lib
install-lib: $(LIB_TARGETS)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR)
	install -m 644 include/uspin.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(LIBUSPIN_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBUSPIN_SO) $(DESTDIR)$(LIBDIR)/libuspin.so.$(USPIN_VERSION)
	ln -sf libuspin.so.$(USPIN_VERSION) $(DESTDIR)$(LIBDIR)/libuspin.so.$(USPIN_SOVERSION)
	ln -sf libuspin.so.$(USPIN_SOVERSION) $(DESTDIR)$(LIBDIR)/libuspin.so
	install -m 644 $(USPIN_PC) $(DESTDIR)$(PKGCONFIGDIR)/uspin.pc
	install -m 755 $(USPIN_INFO) $(DESTDIR)$(BINDIR)/
	for p in $(MAN_PAGES); do \
	  sec=$${p##*.}; install -d $(DESTDIR)$(MANDIR)/man$$sec && \
	  install -m 644 $$p $(DESTDIR)$(MANDIR)/man$$sec/ || exit 1; \
	done

uninstall: uninstall-lib
uninstall-lib:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))
