#!/bin/sh
# check-deb.sh DIR - the packages `make deb` left in DIR, as a Debian user
# meets them (root: it installs them on this machine):
#   lintian finds nothing the packaging does not justify (debian/*.lintian-
#   overrides); dpkg installs the three packages; a program builds with
#   only `pkg-config --cflags --libs uspin` and runs, also under the
#   installed uspin-run; the man pages are found; `systemd-analyze verify`
#   accepts the unit; uspin-stated starts as the unit starts it (this
#   machine's PID 1 is not systemd: RuntimeDirectory=, UMask=,
#   CapabilityBoundingSet= and NoNewPrivileges= are applied by hand),
#   serves the default socket to uspin-info and runs as _uspin with no
#   capabilities; purge leaves no file, user, group, bpffs pin or /run
#   entry behind.
set -u
dir=$1
pkgs="libuspin2 libuspin-dev uspin-tools"
unit=/lib/systemd/system/uspin-stated.service
tmp=$(mktemp -d /tmp/check-deb.XXXXXX)
fail=0 helper=
bad() { echo "check-deb: FAIL: $*"; fail=1; }
finish() {
	[ -n "$helper" ] && kill "$helper" 2>/dev/null
	rm -rf "$tmp"
}
trap finish EXIT

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: check-deb: needs root (installs the packages)"
	exit 0
fi
debs=
for p in $pkgs; do
	f=$(ls "$dir"/${p}_*.deb 2>/dev/null | head -1)
	[ -n "$f" ] || { bad "no $p package in $dir"; exit 1; }
	debs="$debs $f"
done

# Info tags count: each remaining one is overridden with its reason.
if ! lintian --fail-on error,warning,info --info "$dir"/*.changes > "$tmp/lintian" 2>&1; then
	grep -v 'running with root privileges' "$tmp/lintian"; bad "lintian"
fi

# What is on the machine before: files (caches the system rewrites and
# dpkg's own database aside), users, groups.
snapshot() {
	find /usr /etc /lib /var/lib -xdev \
		-path /var/lib/dpkg -prune -o -path /var/lib/apt -prune -o \
		-name __pycache__ -prune -o -print 2>/dev/null | sort
	getent passwd | cut -d: -f1 | sed 's/^/user:/'
	getent group | cut -d: -f1 | sed 's/^/group:/'
}
# Installed, or partly: anything but gone (a purged package may stay
# known to dpkg as "not-installed").
present() {
	dpkg-query -W -f='${Status}\n' $pkgs 2>/dev/null | grep -qv ' not-installed$'
}
# A run that failed before its purge left them: start clean.
if present; then
	echo "check-deb: purging the packages an earlier run left"
	dpkg --purge $pkgs >/dev/null 2>&1
fi
if [ -e /run/uspin/stated.sock ] && pgrep -x uspin-stated >/dev/null; then
	bad "a uspin-stated already serves /run/uspin: stop it first"
	exit 1
fi
snapshot > "$tmp/before"

dpkg -i $debs > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; bad "dpkg -i"; exit 1; }

# A user's program, built as the -dev package says.
flags=$(pkg-config --cflags --libs uspin) || bad "pkg-config knows no uspin"
if cc -Wall -Werror -o "$tmp/api-program" tests/api_program.c $flags; then
	"$tmp/api-program" >/dev/null || bad "api-program failed"
	ldd "$tmp/api-program" | grep -Eq "libuspin.so.2 => (/usr)?/lib/" ||
		bad "api-program does not load the installed libuspin.so.2"
	out=$(uspin-run --policy block -- "$tmp/api-program" 2>&1) ||
		bad "uspin-run failed: $out"
else
	bad "tests/api_program.c does not build with pkg-config --cflags --libs uspin"
fi
for m in 3:uspin 1:uspin-info 1:uspin-run 8:uspin-stated; do
	man -w "${m%%:*}" "${m#*:}" >/dev/null 2>&1 || bad "man ${m%%:*} ${m#*:} not found"
done
getent passwd _uspin >/dev/null || bad "postinst made no _uspin user"

systemd-analyze verify "$unit" > "$tmp/verify" 2>&1 ||
	{ cat "$tmp/verify"; bad "systemd-analyze verify $unit"; }

# The service as systemd would start it.
key() { sed -n "s/^$1=//p" "$unit" | tail -1; }
exec_start=$(key ExecStart) rundir=$(key RuntimeDirectory)
mode=$(key RuntimeDirectoryMode) umask_=$(key UMask)
caps=$(key CapabilityBoundingSet | tr 'A-Z' 'a-z' |
	sed 's/cap_/+/g; s/ /,/g')
[ "$(key NoNewPrivileges)" = yes ] || bad "the unit does not set NoNewPrivileges"
[ -n "$exec_start" ] && [ -n "$rundir" ] && [ -n "$caps" ] ||
	bad "unit lacks ExecStart, RuntimeDirectory or CapabilityBoundingSet"
install -d -m "${mode:-0755}" "/run/$rundir"
# $exec_start is the unit's command line, split by the shell as systemd does.
# shellcheck disable=SC2086
setpriv --bounding-set "-all,$caps" --inh-caps -all --no-new-privs \
	sh -c "umask ${umask_:-0022}; exec $exec_start" > "$tmp/helper.log" 2>&1 &
helper=$!
i=0
while [ $i -lt 100 ] && [ ! -S /run/uspin/stated.sock ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
if kill -0 "$helper" 2>/dev/null; then
	uid=$(awk '/^Uid:/ { print $2 }' "/proc/$helper/status")
	capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$helper/status")
	[ "$uid" = "$(id -u _uspin)" ] || bad "the helper runs as uid $uid, not _uspin"
	[ "$capeff" = 0000000000000000 ] || bad "the helper keeps capabilities $capeff"
	uspin-info > "$tmp/info" 2>&1
	grep -q "running-state: *bpf" "$tmp/info" ||
		{ cat "$tmp/info"; bad "uspin-info does not find the helper at the default socket"; }
	kill -TERM "$helper"; wait "$helper"; helper=
else
	cat "$tmp/helper.log"; bad "the helper did not start as the unit starts it"
	helper=
fi
# Stopped, systemd removes the RuntimeDirectory (kept only on restart).
rm -rf "/run/$rundir"

dpkg --purge $pkgs > "$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; bad "dpkg --purge"; }
snapshot > "$tmp/after"
left=$(comm -13 "$tmp/before" "$tmp/after")
[ -z "$left" ] || bad "purge left behind: $left"
[ ! -e /sys/fs/bpf/uspin ] || bad "purge left the bpffs pin /sys/fs/bpf/uspin"
[ ! -e /run/uspin ] || bad "purge left /run/uspin"
present && bad "dpkg still has a package"

[ $fail = 0 ] && echo "check-deb: lintian, install, pkg-config, uspin-run, man, unit, helper as the unit, purge: ok"
exit $fail
