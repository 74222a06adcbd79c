# debian/: the Debian packages (libuspin2, libuspin-dev, uspin-tools).
# `make deb` builds them with dpkg-buildpackage from a staged copy of this
# checkout (the files git tracks, and new ones it does not ignore), so the
# packaging's `clean` never touches $(BUILD); the .debs land in
# $(BUILD)/deb/.  tests/check-deb.sh installs them on this machine.
DEB_PACKAGING := debhelper lintian dpkg-dev adduser systemd
DEB_OUT := $(BUILD)/deb
# Read only by the targets that use it (a perl program: not at every parse).
DEB_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)

.PHONY: deb check-deb deps-deb
deps-deb: ; $(call deps-install,$(DEB_PACKAGING) $(DEB_TEST))

deb:
	@[ -n "$(DEB_VERSION)" ] || { echo "deb: dpkg-parsechangelog missing (make deps-deb)" >&2; exit 1; }
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "deb: needs a git checkout" >&2; exit 1; }
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src/uspin-$(DEB_VERSION)
	git ls-files -z --cached --others --exclude-standard | \
	  xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
	  tar --null -T - -cf - | tar -xf - -C $(DEB_OUT)/src/uspin-$(DEB_VERSION)
	cd $(DEB_OUT)/src/uspin-$(DEB_VERSION) && \
	  dpkg-buildpackage -b -us -uc -j2 > ../build.log 2>&1 || { tail -40 ../build.log; exit 1; }
	mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.changes $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/
	@ls -1 $(DEB_OUT)/*.deb

# Lintian, install, build a user's program with pkg-config, the unit,
# the helper started as the unit starts it, purge (root).
check-deb: deb
	tests/check-deb.sh $(DEB_OUT)
CHECK_STEPS += check-deb
