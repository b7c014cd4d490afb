#!/bin/sh
# The scout (docs/performance.md): on big regular files a second thread runs
# the prefilter ahead. Whatever it does, the answer must be the one reading
# alone gives: the same JSON, byte for byte, apart from "threads". Logs are
# generated (tests/scout/gen.py) with real failure logs spliced across 1 MiB
# block boundaries, escape sequences, CRLF, over-long lines and rebuilds.
. "$(dirname "$0")/../lib.sh"
SIZE=$((34 * 1024 * 1024))
F=$SRC/tests/triage
SAME=$SRC/$BUILD/perf/verdict_same
same() { # NAME LOG: one thread and two give the same verdict; two did run;
	# and settling, the scout and its skips give what an exhaustive reading does
	PALLAS_TRIAGE_THREADS=1 $PTRUN --json "$2" >"$T/one.json" 2>"$T/one.err"
	r1=$?
	PALLAS_TRIAGE_THREADS=2 $PTRUN --json "$2" >"$T/two.json" 2>"$T/two.err"
	r2=$?
	check "$1: same exit status ($r1)" test "$r1" = "$r2"
	check "$1: one thread says threads 1" grep -q '"threads": 1$' "$T/one.json"
	check "$1: two threads ran" grep -q '"threads": 2$' "$T/two.json"
	grep -v '"threads":' "$T/one.json" >"$T/one.cmp"
	grep -v '"threads":' "$T/two.json" >"$T/two.cmp"
	check "$1: same verdict, evidence and line numbers" cmp -s "$T/one.cmp" "$T/two.cmp"
	check "$1: found the failure" grep -q '"class": "[a-z]' "$T/one.json"
	"$SAME" "$SRC/rules" "$2" >"$T/same.out" 2>&1
	check "$1: the same as an exhaustive reading" grep -q '^same: ' "$T/same.out" || head -c 2000 "$T/same.out"
}

python3 "$SRC/tests/scout/gen.py" "$T/mixed.log" $SIZE mixed "$F/layout-block-divisible.log" \
	"$F/sync-race.log" "$F/decorated-crlf-ansi.log" "$F/numerics-nan.log" "$F/capacity-scoped.log" \
	"$F/unsupported-primitive.log" "$F/chain-innermost.log"
same mixed "$T/mixed.log"
check "mixed: the 200 KB line was cut" grep -Eq '"long_lines": [12],' "$T/two.json"

python3 "$SRC/tests/scout/gen.py" "$T/dense.log" $SIZE dense "$F/sync-race.log" "$F/layout-shape-cast.log"
same dense "$T/dense.log"

python3 "$SRC/tests/scout/gen.py" "$T/frames.log" $SIZE frames "$F/unsupported-primitive.log" \
	"$F/chain-innermost.log" "$F/capacity-scoped.log"
same frames "$T/frames.log"
check "frames: the location is the user's frame" grep -q '"file": "/' "$T/one.json"

python3 "$SRC/tests/scout/gen.py" "$T/late.log" $SIZE late "$F/unknown-fusion-vmem.log" "$F/capacity-scoped.log"
same late "$T/late.log"

# The last line has no newline, and the failure is on it.
{ cat "$T/late.log"; printf 'RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.'; } >"$T/nonl.log"
same "no final newline" "$T/nonl.log"
check "no final newline: the last line is evidence" grep -q 'Used 20.00M of 16.00M vmem' "$T/two.json"

# Text output too (it shows line numbers and evidence).
PALLAS_TRIAGE_THREADS=1 $PTRUN --no-input "$T/mixed.log" >"$T/one.txt" 2>&1
PALLAS_TRIAGE_THREADS=2 $PTRUN --no-input "$T/mixed.log" >"$T/two.txt" 2>&1
check "text output is the same" cmp -s "$T/one.txt" "$T/two.txt"

# Where a scout cannot or should not run, one thread reads.
cat "$T/mixed.log" | PALLAS_TRIAGE_THREADS=2 $PTRUN --json - >"$T/pipe.json" 2>/dev/null
check "a pipe is read by one thread" grep -q '"threads": 1$' "$T/pipe.json"
head -c 1000000 "$T/mixed.log" >"$T/small.log"
PALLAS_TRIAGE_THREADS=2 $PTRUN --json "$T/small.log" >"$T/small.json" 2>/dev/null
check "a small file is read by one thread" grep -q '"threads": 1$' "$T/small.json"
# The log starts where the descriptor is, not at the file's start.
skip() { dd bs=5000 count=1 of=/dev/null 2>/dev/null; PALLAS_TRIAGE_THREADS=$1 $PTRUN --json -; }
skip 2 <"$T/mixed.log" >"$T/off.json" 2>/dev/null
skip 1 <"$T/mixed.log" 2>/dev/null | grep -v '"threads":' >"$T/off1.cmp"
grep -v '"threads":' "$T/off.json" >"$T/off.cmp"
check "standard input opened mid-file: two threads ran" grep -q '"threads": 2$' "$T/off.json"
check "standard input opened mid-file: same verdict as reading alone" cmp -s "$T/off.cmp" "$T/off1.cmp"
check "standard input opened mid-file: the bytes before were not read" sh -c \
	"test \$(grep '\"bytes\"' '$T/off.json' | tr -dc 0-9) -eq \$((\$(wc -c <'$T/mixed.log') - 5000))"
finish
