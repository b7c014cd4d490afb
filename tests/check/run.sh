#!/bin/sh
# `pallas-triage check` on the kernel fixtures (tests/check/*.py, written for
# these tests): each file's first line says what the check must report,
#   # expect: clean                      no finding at all (not even a note)
#   # expect: L001@45 L002@46            exactly these codes at these lines
# and an optional second line `# args: --chip v5p ...` adds options. The
# clean kernels are realistic (matmul with an accumulator, flash attention,
# paged attention with double-buffered DMA and scalar prefetch, a ring
# collective, a softmax, a Triton matmul); each mutant plants one bug.
# Then the golden cases of tests/check/text (output formats, usage, exit
# statuses), and the triage cases that read a kernel.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
D=$SRC/tests/check

run_check() { # FILE ARGS...: the JSON in $T/json, the exit status in $rc
	f=$1
	shift
	(cd "$D" && $PTRUN check --json "$@" "$f") >"$T/json" 2>"$T/err"
	rc=$?
}
found() { # the CODE@LINE of every finding in $T/json, sorted, one line
	python3 - "$T/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s@%d" % (f["code"], f["line"]) for f in d["findings"])) or "clean")
PY
}

for f in "$D"/*.py; do
	name=$(basename "$f")
	want=$(sed -n '1s/^# expect: //p' "$f" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
	args=$(sed -n '2s/^# args: //p' "$f")
	if [ -z "$want" ]; then
		not_ok "$name: no '# expect:' line"
		continue
	fi
	# shellcheck disable=SC2086
	run_check "$name" $args
	got=$(found)
	if [ "$got" != "$want" ]; then
		not_ok "$name: expected $want, found $got"
		sed 's/^/    /' "$T/err" | head -5
		continue
	fi
	# the status follows: 0 clean (or notes only), 1 with an error or a warning
	want_rc=1
	python3 -c "import json,sys; d=json.load(open('$T/json')); sys.exit(0 if d['summary']['errors'] + d['summary']['warnings'] else 1)" || want_rc=0
	if [ "$rc" -ne "$want_rc" ]; then
		not_ok "$name: exit status $rc, expected $want_rc"
		continue
	fi
	ok "$name ($got)"
done
golden_dir "$D/text"
finish
