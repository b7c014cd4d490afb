#!/bin/sh
# Golden runner for the session, walk and report suites: tests as data.
# Usage: sh tests/walk/cmd-golden.sh SUITE-DIR
#
# For each SUITE-DIR/NAME.cmd (a few shell lines that run $PT):
#   - a fresh directory is made and the fixture logs are copied into it;
#   - every SUITE-DIR/NAME.in.FILE is copied into it as FILE (answers files,
#     session files, kernels);
#   - NAME.cmd runs there with stdout and stderr captured together; the
#     script's exit status is compared with NAME.rc (default 0) and the
#     transcript with NAME.expected.
# The rules are tests/fixtures/walk-rules (via PALLAS_TRIAGE_RULES) and the
# clock is fixed with PALLAS_TRIAGE_NOW, so transcripts are stable.
# UPDATE_GOLDEN=1 rewrites NAME.expected and NAME.rc from the actual run.
dir=$1
. "$(dirname "$0")/../lib.sh"
export PALLAS_TRIAGE_RULES="$SRC/tests/fixtures/walk-rules"
export PALLAS_TRIAGE_NOW=2026-01-02T03:04:05Z
LOGS="$SRC/tests/fixtures/walk-logs"
export PT="$PTRUN" LOGS
for cmd in "$dir"/*.cmd; do
	[ -f "$cmd" ] || continue
	name=$(basename "$cmd" .cmd)
	case_dir="$T/case-$name"
	mkdir -p "$case_dir"
	cp "$LOGS"/*.log "$case_dir"/
	for f in "$dir/$name".in.*; do
		[ -f "$f" ] && cp "$f" "$case_dir/${f##*/$name.in.}"
	done
	(cd "$case_dir" && sh "$cmd" >"$T/$name.out" 2>&1 </dev/null)
	rc=$?
	want_rc=0
	[ -f "$dir/$name.rc" ] && want_rc=$(cat "$dir/$name.rc")
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$T/$name.out" "$dir/$name.expected"
		if [ "$rc" -ne 0 ]; then echo "$rc" >"$dir/$name.rc"; else rm -f "$dir/$name.rc"; fi
		echo "updated $name"
		continue
	fi
	if [ "$rc" -ne "$want_rc" ]; then
		not_ok "$name (exit $rc, expected $want_rc)"
		sed 's/^/    /' "$T/$name.out" | tail -n 20
	elif ! diff -u "$dir/$name.expected" "$T/$name.out" >"$T/$name.diff" 2>&1; then
		not_ok "$name"
		sed 's/^/    /' "$T/$name.diff" | head -n 60
	else
		ok "$name"
	fi
done
finish
