#!/bin/sh
# `make bench`: pallas-triage against GNU grep, ripgrep and cat on three
# 1 GiB logs (a generated CI log, a Pallas-heavy CI log, a dense log of
# failing kernel tests), plus the 2 KB whole-run latency and `scan` over
# 1,000 small logs; compared in the same run with a baseline. Method and
# figures: docs/performance.md.
#
# Usage: tests/perf/bench.sh PATH-TO-pallas-triage (`make bench` runs it)
# Environment:
#   BENCH_DATA      data directory (default build/perf-data)
#   BENCH_RUNS      timed runs per command on the big logs (default 5)
#   BENCH_SIZE      bytes of each big log (default 1 GiB)
#   BENCH_INPUTS    which big logs (default big,pallas,dense)
#   BENCH_BASELINE  an older pallas-triage to time beside this one: a
#                   binary, or a git commit, built under BENCH_DATA (e.g.
#                   the previous release); without it the figures are
#                   compared with the saved ones (tests/perf/baseline.tsv)
# The data is generated once (tests/perf/gen_log.py, fixed seed) and again
# when the generator, the size or the patterns change. The tools it needs
# are installed by tests/deps.sh (make bench).
set -eu
PT=${1:?usage: tests/perf/bench.sh PATH-TO-pallas-triage}
B=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$B/../.." && pwd)
D=${BENCH_DATA:-$SRC/build/perf-data}
RUNS=${BENCH_RUNS:-5}
SIZE=${BENCH_SIZE:-1073741824}
INPUTS=$(echo "${BENCH_INPUTS:-big,pallas,dense}" | tr ',' ' ')
SAME=$(dirname "$PT")/perf/verdict_same
export LC_ALL=C    # grep is fastest in the C locale; rg and pallas-triage do not care
unset PALLAS_TRIAGE_RULES

need() { command -v "$1" >/dev/null 2>&1; }
if ! [ -x /usr/bin/time ] || ! need rg || ! need hyperfine; then
	echo "bench: needs /usr/bin/time, rg and hyperfine: 'make bench' installs them" >&2
	exit 1
fi
mkdir -p "$D"

echo "== baseline"
BASE=""
if [ -n "${BENCH_BASELINE:-}" ]; then
	if [ -x "$BENCH_BASELINE" ] && [ -f "$BENCH_BASELINE" ]; then
		BASE=$BENCH_BASELINE
	else
		rev=$(git -C "$SRC" rev-parse --short "$BENCH_BASELINE^{commit}")
		bdir=$D/baseline-$rev
		if ! [ -x "$bdir/build/pallas-triage" ]; then
			rm -rf "$bdir"
			git -C "$SRC" worktree add --detach "$bdir" "$rev" >/dev/null 2>&1 ||
				git -C "$SRC" archive "$rev" | (mkdir -p "$bdir" && tar -x -C "$bdir")
			make -C "$bdir" -j2 all >"$D/baseline-$rev.log" 2>&1
		fi
		BASE=$bdir/build/pallas-triage
	fi
	echo "timing beside $BASE"
else
	echo "none given (BENCH_BASELINE=COMMIT-or-BINARY); comparing with tests/perf/baseline.tsv"
fi

echo "== inputs"
# The peers get what pallas-triage runs: every pattern of every tier,
# context evidence and facts included, as far as they can be translated.
"$PT" rules export-patterns >"$D/patterns.pcre"
python3 "$B/translate.py" "$D/patterns.pcre" "$D/patterns.ere" "$D/patterns.rg" "$D/patterns.peer" \
	2>"$D/translate.txt"
cat "$D/translate.txt"
"$PT" rules export-patterns --specific >"$D/patterns-specific.pcre"
stamp="$(cat "$B/gen_log.py" "$B/pallas_lines.py" "$D/patterns.peer" | cksum) $SIZE $INPUTS"
if [ ! -f "$D/meta.json" ] || [ "$(cat "$D/.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$D/small"
	python3 "$B/gen_log.py" --out "$D" --size "$SIZE" --patterns "$D/patterns-specific.pcre" \
		--peer "$D/patterns.peer" --inputs "$(echo $INPUTS | tr ' ' ',')"
	echo "$stamp" >"$D/.stamp"
fi
python3 - "$D/meta.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for k, v in sorted(m["inputs"].items()):
    print("%s.log: %d bytes, %d lines, %d error lines, %d lines the patterns match"
          % (k, v["bytes"], v["lines"], v["error_lines"], v["matches"]))
print("small-2k.log: %d bytes; %d small logs" % (m["small_2k_bytes"], m["small_logs"]))
PY

# grep takes minutes per GiB on the Pallas logs (most lines match, and it
# checks each with its slow matcher): timed on the full log only when a
# 4 MiB slice says a run takes under a minute, else once on a 16 MiB slice
for i in $INPUTS; do
	head -c 4194304 "$D/$i.log" >"$D/$i-4m.log"
	# (stdout a pipe: with /dev/null GNU grep stops at the first match)
	s=$(python3 -c 'import time,subprocess,sys
t=time.time(); subprocess.run(["grep","-E","-c","-f",sys.argv[1],sys.argv[2]],stdout=subprocess.PIPE); print(time.time()-t)' \
		"$D/patterns.ere" "$D/$i-4m.log")
	if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) * int(sys.argv[2]) / 4194304 < 60 else 1)' "$s" "$SIZE"; then
		echo "$i.log" >"$D/$i.grep"
	else
		head -c 16777216 "$D/$i.log" >"$D/$i-16m.log"
		echo "$i-16m.log" >"$D/$i.grep"
	fi
	rm -f "$D/$i-4m.log"
done

echo "== same answers"
: >"$D/answers.txt"
for i in $INPUTS; do
	g=$(cat "$D/$i.grep")
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][sys.argv[2]]["matches"])' "$D/meta.json" "$i")
	nr=$(rg --no-unicode -c -f "$D/patterns.rg" "$D/$i.log" || true)
	ng=$(grep -E -c -f "$D/patterns.ere" "$D/$g" || true)
	if [ "$g" = "$i.log" ]; then
		echo "$i: matching lines: expected $want, rg $nr, grep $ng" | tee -a "$D/answers.txt"
		[ "$nr" = "$want" ] && [ "$ng" = "$want" ] || echo "$i: COUNTS DIFFER" | tee -a "$D/answers.txt"
	else
		ns=$(rg --no-unicode -c -f "$D/patterns.rg" "$D/$g" || true)
		echo "$i: matching lines: expected $want, rg $nr; on $g: rg $ns, grep $ng" | tee -a "$D/answers.txt"
		[ "$nr" = "$want" ] && [ "$ng" = "$ns" ] || echo "$i: COUNTS DIFFER" | tee -a "$D/answers.txt"
	fi
	"$PT" --json "$D/$i.log" >"$D/verdict-$i.json" || true
	"$PT" --json "$D/$i-errors.log" >"$D/verdict-$i-errors.json" || true
	python3 - "$i" "$D/verdict-$i.json" "$D/verdict-$i-errors.json" >>"$D/answers.txt" <<'PY' || true
import json, sys
name = sys.argv[1]
a, b = (json.load(open(p)) for p in sys.argv[2:4])
keys = ["class", "subkind", "rule", "confidence", "message", "fingerprint"]
diff = [k for k in keys if a[k] != b[k]]
# values and environment: the error lines' own must be there, the same; the
# whole log may add what its ordinary lines say (python_version from frames)
for k in ("values", "environment"):
    if any(a[k].get(n) != v for n, v in b[k].items()):
        diff.append(k)
ra = sorted({e["rule"] for e in a["evidence"]})
rb = sorted({e["rule"] for e in b["evidence"]})
print("%s: verdict %s %s %s" % (name, a["class"], a["rule"], a["fingerprint"]))
if diff:
    print("%s: DIFFERENT on its error lines alone: %s" % (name, ", ".join(diff)))
elif ra != rb:
    print("%s: same verdict on its error lines alone; evidence rules differ: only %s.log %s, only errors %s"
          % (name, name, sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))))
else:
    print("%s: same verdict and evidence rules on its error lines alone" % name)
PY
	# settled against exhaustive: the whole --json document
	if "$SAME" "$SRC/rules" "$D/$i.log" >"$D/same-$i.txt"; then
		echo "$i: settled and exhaustive readings give the same --json" >>"$D/answers.txt"
	else
		echo "$i: DIFFERENT settled and exhaustive readings (see $D/same-$i.txt)" >>"$D/answers.txt"
	fi
	tail -n 3 "$D/answers.txt"
done

echo "== peak RSS (/usr/bin/time)"
rss() { # LABEL COMMAND...: peak RSS in KiB
	label=$1
	shift
	/usr/bin/time -f "%M" -o "$D/rss.tmp" "$@" >/dev/null 2>&1 || true
	printf '%s\t%s\n' "$label" "$(tail -n 1 "$D/rss.tmp")"
}
{
	for i in $INPUTS; do
		rss "pallas-triage $i" "$PT" --json "$D/$i.log"
		rss "rg $i" rg --no-unicode -c -f "$D/patterns.rg" "$D/$i.log"
		rss "grep $i" grep -E -c -f "$D/patterns.ere" "$D/$(cat "$D/$i.grep")"
	done
	first=$(echo $INPUTS | cut -d' ' -f1)
	rss "pallas-triage $first (pipe)" sh -c "cat '$D/$first.log' | '$PT' --json -"
	rss "pallas-triage 2 KB" "$PT" --json "$D/small-2k.log"
	rss "scan 1,000 logs" "$PT" scan --jsonl "$D/small"
} >"$D/rss.tsv"
cat "$D/rss.tsv"

echo "== big logs ($RUNS runs each)"
for i in $INPUTS; do
	cat "$D/$i.log" >/dev/null    # warm the page cache
	hyperfine -N -i --warmup 1 --runs "$RUNS" --output=null --export-json "$D/h-$i-cat.json" \
		"cat $D/$i.log"
	set -- "$PT --json $D/$i.log" "env PALLAS_TRIAGE_THREADS=1 $PT --json $D/$i.log" \
		"rg --no-unicode -c -f $D/patterns.rg $D/$i.log"
	[ -z "$BASE" ] || set -- "$@" "$BASE --json $D/$i.log"
	hyperfine -N -i --warmup 1 --runs "$RUNS" --output=pipe --export-json "$D/h-$i.json" "$@"
	g=$(cat "$D/$i.grep")
	if [ "$g" = "$i.log" ]; then
		hyperfine -N -i --warmup 1 --runs "$RUNS" --output=pipe --export-json "$D/h-$i-grep.json" \
			"grep -E -c -f $D/patterns.ere $D/$g"
	else
		hyperfine -N -i --runs 1 --output=pipe --export-json "$D/h-$i-grep.json" \
			"grep -E -c -f $D/patterns.ere $D/$g"
	fi
done
first=$(echo $INPUTS | cut -d' ' -f1)
hyperfine -i --warmup 1 --runs "$RUNS" --output=pipe --export-json "$D/h-pipe.json" \
	"cat $D/$first.log | $PT --json -"

# ripgrep's default Unicode mode: \b, \w, \d, \s are Unicode-aware, and its
# lazy DFA gives up on a Unicode \b at the first non-ASCII byte (tqdm bars),
# falling back to a far slower engine. Timed once on a 1 MB slice only.
head -c 1000000 "$D/$first.log" >"$D/slice-1mb.log"
hyperfine -N -i --runs 1 --output=pipe --export-json "$D/h-rgu.json" \
	"rg -c -f $D/patterns.rg $D/slice-1mb.log"

echo "== small inputs"
set -- "$PT --json $D/small-2k.log" "$PT version"
[ -z "$BASE" ] || set -- "$@" "$BASE --json $D/small-2k.log"
hyperfine -N -i --warmup 3 --runs 40 --output=pipe --export-json "$D/h-small.json" "$@"
set -- "$PT scan --jsonl $D/small" "$PT scan --jsonl -j 1 $D/small"
[ -z "$BASE" ] || set -- "$@" "$BASE scan --jsonl $D/small" "$BASE scan --jsonl -j 1 $D/small"
hyperfine -N -i --warmup 1 --runs 5 --output=pipe --export-json "$D/h-scan.json" "$@"

echo "== summary"
python3 "$B/summary.py" "$D" "$B/baseline.tsv" "$INPUTS" "${BASE:+baseline}"

# ---- issue 25: `check` on a 1,000-line kernel file (target < 10 ms, docs/check.md)
python3 "$B/gen_check.py" "$D/check-1000.py" 1000
"$PT" check "$D/check-1000.py" || { echo "bench: check-1000.py should be clean" >&2; exit 1; }
hyperfine -N --warmup 3 --runs 40 --output=pipe --export-json "$D/h-check.json" "$PT check $D/check-1000.py"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["results"][0]["median"] * 1e3; print("check, 1,000-line file: %.2f ms (target < 10 ms): %s" % (t, "met" if t < 10 else "NOT met"))' "$D/h-check.json"
