#!/bin/sh
# pan.sh - the check() function the model runners share (sourced).
#
#   MODEL=file.pml; out=OUTDIR; check NAME EXPECT "SPIN_DEFINES" [PAN_CFLAGS [PAN_RUNFLAGS]]
#
# Generates, compiles and runs pan for one configuration in OUTDIR/NAME/
# (nothing is written to the source folder).  EXPECT is "ok" (a complete
# search with "errors: 0"), or the error pan must report after "pan:1: "
# for a negative control (e.g. "invalid end state", "assertion violated").
# pan exits 0 even when it finds errors, so its output is parsed.  Counts
# go to $pass and $fail.  Set before sourcing, optionally: LABEL (the
# prefix of the result lines, default "model"), PAN_CFLAGS (pan's flags
# where a check names none, default -DSAFETY; pan.c is compiled -O1
# unless they name another -O).

SPIN=${SPIN:-spin}
PANCC=${PANCC:-gcc}
MAXDEPTH=${MAXDEPTH:-100000}	# pan -m; the deepest run reaches a few hundred
PANTIMEOUT=${PANTIMEOUT:-300}	# seconds per pan run
LABEL=${LABEL:-model}
PAN_CFLAGS=${PAN_CFLAGS:--DSAFETY}
pass=0
fail=0

for tool in "$SPIN" "$PANCC"; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "$LABEL: $tool not found (make deps installs spin and gcc)" >&2; exit 1; }
done

ok()  { pass=$((pass + 1)); echo "$LABEL $1: OK ($2)"; }
bad() { fail=$((fail + 1)); echo "$LABEL $1: FAILED ($2)"; }

check() {
	name=$1 expect=$2 defs=$3 cflags=${4:-$PAN_CFLAGS} rflags=${5:-}
	d=$out/$name
	m=$(basename "$MODEL")
	replay="cd $d && $SPIN -t -p -g $defs $m"
	rm -rf "$d" && mkdir -p "$d" && cp "$MODEL" "$d/" ||
		{ bad "$name" "cannot set up $d"; return; }
	(cd "$d" && $SPIN $defs -a "$m") >"$d/spin.log" 2>&1 ||
		{ bad "$name" "spin -a failed, see $d/spin.log"; return; }
	# -O1: compiles twice as fast as -O2, pan runs as fast (a later -O in
	# $cflags wins).
	# -w: pan.c trips gcc's -Wstringop-overflow on bounds-checked arrays.
	(cd "$d" && $PANCC -w -O1 $cflags -o pan pan.c) >"$d/cc.log" 2>&1 ||
		{ bad "$name" "compiling pan.c failed, see $d/cc.log"; return; }
	(cd "$d" && timeout $PANTIMEOUT ./pan -m$MAXDEPTH $rflags) >"$d/pan.log" 2>&1
	rc=$?
	log=$d/pan.log
	[ $rc -eq 0 ] || { bad "$name" "pan exited with $rc, see $log"; return; }
	states=$(sed -n 's/^ *\([0-9][0-9]*\) states, stored.*/\1/p' "$log")
	depth=$(sed -n 's/.*depth reached \([0-9][0-9]*\).*/\1/p' "$log")
	if [ -z "$states" ] || [ -z "$depth" ]; then
		bad "$name" "no statistics in $log"; return
	fi
	if grep -q "max search depth too small" "$log" || [ "$depth" -ge "$MAXDEPTH" ]; then
		bad "$name" "search truncated at depth $MAXDEPTH"; return
	fi
	if [ "$expect" = ok ]; then
		if grep -q "errors: 0" "$log" && ! grep -q "Search not completed" "$log"; then
			ok "$name" "states $states"
		else
			bad "$name" "$(grep -m1 '^pan:1:' "$log"); replay: $replay"
		fi
	else
		if grep -q "errors: [1-9]" "$log" && grep -qF "pan:1: $expect" "$log"; then
			ok "$name" "negative control: spin found '$expect' as required, states $states"
		else
			bad "$name" "negative control: spin did not report '$expect', see $log"
		fi
	fi
}
