#!/bin/sh
# Run every unit-test binary and every suite (tests/*/run.sh), add up their
# "N passed, N failed" lines and print the total the same way.
# Usage: tests/run.sh [SUITE-NAME-FILTER]
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
PT=${PT:-$SRC/$BUILD/pallas-triage}
export PT SRC BUILD
export LC_ALL=C TZ=UTC NO_COLOR=1
filter=${1:-}
passed=0
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
trap 'exit 130' INT TERM HUP

tally() { # name, then the command
	name=$1
	shift
	"$@" >"$out" 2>&1 </dev/null
	rc=$?
	line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	p=$(printf '%s\n' "$line" | sed -nE 's/.*(^|: )([0-9]+) passed, ([0-9]+) failed.*/\2/p')
	f=$(printf '%s\n' "$line" | sed -nE 's/.*(^|: )([0-9]+) passed, ([0-9]+) failed.*/\3/p')
	if [ -z "$p" ]; then
		p=0
		f=1
		echo "FAIL $name: no 'N passed, N failed' line (exit $rc)"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "FAIL $name: exit status $rc"
	fi
	if [ "$f" -ne 0 ]; then
		# every failure first (a long suite's early ones would scroll out
		# of the tail), then the tail for the context of the last ones
		grep -E '(^|[[:space:]])FAIL([[:space:]:]|$)|CHECK[A-Z_]* failed' "$out" |
			sed 's/^/    /'
		echo "    ... the last 60 lines of $name:"
		sed 's/^/    /' "$out" | tail -n 60
	fi
	echo "$name: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
}

if [ -z "$filter" ] || [ "$filter" = unit ]; then
	for t in "$SRC/$BUILD"/tests/test_*; do
		[ -x "$t" ] || continue
		tally "unit/$(basename "$t")" "$t"
	done
fi
for s in "$SRC"/tests/*/run.sh; do
	[ -f "$s" ] || continue
	suite=$(basename "$(dirname "$s")")
	case "$suite" in *"$filter"*) ;; *) continue ;; esac
	tally "$suite" sh "$s"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
