# pthread/: the drop-in.  build/libuspin-pthread.so interposes pthread_mutex_*,
# pthread_cond_* and C11 mtx_*/cnd_* (docs/pthread-dropin.md); build/uspin-run
# runs a program with it preloaded (uspin-run(1)).  Tests: tests/dropin/
# (tests/dropin/build.mk) and glibc's NPTL tests (tests/nptl/build.mk).
DROPIN_SRCS := pthread/mutex.c pthread/cond.c pthread/c11.c pthread/real.c
DROPIN_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(DROPIN_SRCS))
DROPIN_SO   := $(BUILD)/libuspin-pthread.so
USPIN_RUN   := $(BUILD)/uspin-run
PRODUCT_TARGETS += $(DROPIN_SO) $(USPIN_RUN)
MAN_PAGES   += pthread/uspin-run.1

# The drop-in is an ABI layer over libuspin's internal interface
# (libuspin/internal.h): libuspin.a, built from the same tree, goes inside
# (libc only, like libuspin.so; the map keeps its symbols local).
# -Bsymbolic-functions: the C11 wrappers and the condvar call our
# pthread_mutex_* directly, not through the PLT.
$(DROPIN_SO): $(DROPIN_OBJS) $(LIBUSPIN_A) pthread/libuspin-pthread.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libuspin-pthread.so \
	  -Wl,--version-script=pthread/libuspin-pthread.map -Wl,-Bsymbolic-functions \
	  -Wl,-z,now -o $@ $(DROPIN_OBJS) $(LIBUSPIN_A) -pthread

# uspin-run looks for the drop-in next to itself, in ../lib, then in
# LIBDIR: a build for another LIBDIR must relink it.
$(USPIN_RUN): pthread/uspin-run.c $(BUILD)/gen/policy_names.h $(FLAGS_STAMP) $(BUILD)/.libdir
	$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -DUSPIN_LIBDIR='"$(LIBDIR)"' \
	  -DUSPIN_VERSION='"$(USPIN_VERSION)"' -o $@ $<
# uspin-run checks --policy against libuspin's table without linking the
# library: USPIN_POLICIES (libuspin/build.mk), one initializer a line,
# rewritten only when the names change.
$(BUILD)/gen/policy_names.h: FORCE
	@mkdir -p $(@D)
	@printf '\t"%s",\n' $(USPIN_POLICIES) > $@.tmp; \
	  cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
$(BUILD)/.libdir: FORCE
	@mkdir -p $(@D); [ "$(LIBDIR)" = "$$(cat $@ 2>/dev/null)" ] || echo "$(LIBDIR)" > $@

.PHONY: install-dropin uninstall-dropin
install: install-dropin
install-dropin: $(DROPIN_SO) $(USPIN_RUN)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR)
	install -m 755 $(DROPIN_SO) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(USPIN_RUN) $(DESTDIR)$(BINDIR)/
uninstall: uninstall-dropin
uninstall-dropin:
	rm -f $(DESTDIR)$(LIBDIR)/libuspin-pthread.so $(DESTDIR)$(BINDIR)/uspin-run
