# libuspin/: the mutex library, its pkg-config file and uspin-info.
# (build/uspin.pc is for in-tree use; install writes one for its PREFIX.)
USPIN_VERSION := 2.0.0
USPIN_SOVERSION := 2
LIB_SRCS += libuspin/setup.c libuspin/thread_self.c libuspin/policy.c \
            libuspin/spin.c libuspin/robust_list.c libuspin/mutex_init.c \
            libuspin/mutex_lock.c libuspin/mutex_trylock.c \
            libuspin/mutex_unlock.c libuspin/stats.c libuspin/info.c
LIB_HDRS := $(wildcard libuspin/*.h vdso/*.h)

LIB_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIBUSPIN_A  := $(BUILD)/libuspin.a
LIBUSPIN_SO := $(BUILD)/libuspin.so
USPIN_INFO  := $(BUILD)/uspin-info
USPIN_PC    := $(BUILD)/uspin.pc
LIB_TARGETS := $(LIBUSPIN_A) $(LIBUSPIN_SO) $(USPIN_INFO) $(USPIN_PC)
# Man pages: each layer adds its own; install puts them in man<section>.
MAN_PAGES   += libuspin/uspin.3 libuspin/uspin-info.1
GUEST_BINS  += $(BUILD)/guest/uspin-info

$(BUILD)/obj/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBUSPIN_A): $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

# Only the uspin.h API is exported from the shared object.
$(LIBUSPIN_SO): $(LIB_OBJS) libuspin/libuspin.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libuspin.so.$(USPIN_SOVERSION) \
	  -Wl,--version-script=libuspin/libuspin.map -o $@ $(filter %.o,$^) -pthread $(LIB_LDLIBS)
	ln -sf libuspin.so $(BUILD)/libuspin.so.$(USPIN_SOVERSION)

# USPIN_INFO_LDLIBS: what a provider needs pulled from the archive (bpf.mk).
$(USPIN_INFO): libuspin/uspin-info.c $(LIBUSPIN_A)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBUSPIN_A) $(USPIN_INFO_LDLIBS) -pthread

$(BUILD)/guest/uspin-info: libuspin/uspin-info.c $(LIBUSPIN_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -static -o $@ $< $(LIBUSPIN_A) -pthread

$(USPIN_PC): libuspin/uspin.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(USPIN_VERSION)|' $< > $@

install: $(LIB_TARGETS)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 libuspin/uspin.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIBUSPIN_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBUSPIN_SO) $(DESTDIR)$(PREFIX)/lib/libuspin.so.$(USPIN_VERSION)
	ln -sf libuspin.so.$(USPIN_VERSION) $(DESTDIR)$(PREFIX)/lib/libuspin.so.$(USPIN_SOVERSION)
	ln -sf libuspin.so.$(USPIN_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libuspin.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(USPIN_VERSION)|' \
	  libuspin/uspin.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/uspin.pc
	install -m 755 $(USPIN_INFO) $(DESTDIR)$(PREFIX)/bin/
	for p in $(MAN_PAGES); do \
	  sec=$${p##*.}; install -d $(DESTDIR)$(PREFIX)/share/man/man$$sec && \
	  install -m 644 $$p $(DESTDIR)$(PREFIX)/share/man/man$$sec/ || exit 1; \
	done

# Every man page renders without a warning from man/groff.
.PHONY: check-man
check-man:
	@for p in $(MAN_PAGES); do \
	  w=$$(MANWIDTH=80 man --warnings -l -Tutf8 $$p 2>&1 >/dev/null); \
	  if [ -n "$$w" ]; then echo "check-man: $$p: $$w"; exit 1; fi; \
	  MANWIDTH=80 man -l -Tutf8 $$p | grep -q . || { echo "check-man: $$p renders empty"; exit 1; }; \
	done; echo "check-man: $(words $(MAN_PAGES)) pages ok"
host-check: check-man
