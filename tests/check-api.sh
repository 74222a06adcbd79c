#!/bin/sh
# check-api.sh DESTDIR BUILD - the installed tree, staged the way a
# distribution stages it:
#   make install DESTDIR=... PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu
# puts every file where it belongs (and nothing under PREFIX/lib); the
# staged uspin.pc reports that libdir; tests/api_program.c, built with
# only `pkg-config --cflags --libs uspin`, runs under every policy; the
# installed uspin-run runs it on the installed drop-in; `make uninstall` with
# the same variables leaves no file behind.
set -u
# make (not $(MAKE) in the recipe: make -n would run this for real); the
# caller's MAKEFLAGS (BUILD=..., WERROR=...) reach it through the environment.
make="make --no-print-directory"
dest=$1 b=$2
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null)
prefix=/usr
libdir=$prefix/lib/${multiarch:-x86_64-linux-gnu}
vars="DESTDIR=$dest PREFIX=$prefix LIBDIR=$libdir"
fail=0 policies=
bad() { echo "check-api: FAIL: $*"; fail=1; }

rm -rf "$dest"
$make install $vars >"$b/api-install.log" 2>&1 ||
	{ cat "$b/api-install.log"; bad "make install $vars failed"; exit 1; }

for f in include/uspin.h bin/uspin-info bin/uspin-run \
	 share/man/man3/uspin.3 share/man/man1/uspin-info.1 share/man/man1/uspin-run.1; do
	[ -f "$dest$prefix/$f" ] || bad "missing $prefix/$f"
done
for f in libuspin.a libuspin.so.2 libuspin.so libuspin-pthread.so pkgconfig/uspin.pc; do
	[ -e "$dest$libdir/$f" ] || bad "missing $libdir/$f"
done
[ "$(readlink "$dest$libdir/libuspin.so")" = libuspin.so.2 ] ||
	bad "$libdir/libuspin.so does not point at libuspin.so.2"
[ ! -e "$dest$prefix/lib/libuspin.so" ] || bad "$prefix/lib/libuspin.so installed beside LIBDIR"

# The variables as installed; to build against the staged tree, as a
# cross build does, PKG_CONFIG_SYSROOT_DIR prefixes -I and -L.
got=$(PKG_CONFIG_LIBDIR=$dest$libdir/pkgconfig pkg-config --variable=libdir uspin)
[ "$got" = "$libdir" ] || bad "pkg-config libdir is '$got', not $libdir"
got=$(PKG_CONFIG_LIBDIR=$dest$libdir/pkgconfig pkg-config --variable=includedir uspin)
[ "$got" = "$prefix/include" ] || bad "pkg-config includedir is '$got', not $prefix/include"
pc() {
	PKG_CONFIG_LIBDIR=$dest$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest \
		pkg-config "$@" uspin
}

if ${CC:-cc} -Wall -Werror -o "$b/api-program" tests/api_program.c $(pc --cflags --libs) \
	-Wl,-rpath,"$dest$libdir"; then
	policies=$("$dest$prefix/bin/uspin-info" --policies)
	[ -n "$policies" ] || bad "installed uspin-info --policies printed nothing"
	for p in $policies; do
		USPIN_POLICY=$p "$b/api-program" >/dev/null ||
			bad "api-program failed under USPIN_POLICY=$p"
	done
	# The installed uspin-run looks for the drop-in in the LIBDIR it was
	# installed for (staged here, so it is told where the file is).
	"$dest$prefix/bin/uspin-run" --help | grep -q "in $libdir\." ||
		bad "installed uspin-run does not look in $libdir"
	out=$(USPIN_PTHREAD_LIB=$dest$libdir/libuspin-pthread.so \
		"$dest$prefix/bin/uspin-run" --policy block -- "$b/api-program" 2>&1) ||
		bad "installed uspin-run failed: $out"
else
	bad "tests/api_program.c does not build against the staged tree"
fi

$make uninstall $vars >"$b/api-uninstall.log" 2>&1 ||
	{ cat "$b/api-uninstall.log"; bad "make uninstall $vars failed"; }
left=$(find "$dest" ! -type d | sed "s|^$dest||")
[ -z "$left" ] || bad "uninstall left: $left"
rm -rf "$dest"

[ $fail = 0 ] && echo "check-api: install, pkg-config, $(echo $policies | wc -w) policies, uninstall: ok"
exit $fail
