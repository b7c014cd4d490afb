#!/bin/sh
# `make bench`: pallas-triage against GNU grep and ripgrep on a synthetic
# 1 GiB CI log, plus the 2 KB whole-run latency and `scan` over 1,000 small
# logs. Method and figures: docs/performance.md.
#
# Usage: tests/perf/bench.sh PATH-TO-pallas-triage (`make bench` runs it)
# Environment: BENCH_DATA (default build/perf-data), BENCH_RUNS (timed runs
# for the big log, default 5), BENCH_SIZE (bytes of the big log, default
# 1 GiB). The data is generated once (tests/perf/gen_log.py, fixed seed) and
# regenerated when the generator changes. The tools it needs are installed
# by tests/deps.sh (make bench).
set -eu
PT=${1:?usage: tests/perf/bench.sh PATH-TO-pallas-triage}
B=$(cd "$(dirname "$0")" && pwd)
D=${BENCH_DATA:-$(cd "$B/../.." && pwd)/build/perf-data}
RUNS=${BENCH_RUNS:-5}
SIZE=${BENCH_SIZE:-1073741824}
export LC_ALL=C    # grep is fastest in the C locale; rg and pallas-triage do not care
unset PALLAS_TRIAGE_RULES

need() { command -v "$1" >/dev/null 2>&1; }
if ! [ -x /usr/bin/time ] || ! need rg || ! need hyperfine; then
	echo "bench: needs /usr/bin/time, rg and hyperfine: 'make bench' installs them" >&2
	exit 1
fi
mkdir -p "$D"

echo "== inputs"
# The peers look for failure lines: the specific rules and the facts. The
# context evidence and the fallback tier, which pallas-triage also runs,
# match ordinary lines too (a Mosaic IR dump is Pallas evidence), so leaving
# them to pallas-triage alone makes the ratios conservative.
"$PT" rules export-patterns --specific >"$D/patterns.pcre"
python3 "$B/translate.py" "$D/patterns.pcre" "$D/patterns.ere" "$D/patterns.rg"
stamp="$(cksum <"$B/gen_log.py") $SIZE"
if [ ! -f "$D/meta.json" ] || [ "$(cat "$D/.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$D/small"
	python3 "$B/gen_log.py" --out "$D" --size "$SIZE" --patterns "$D/patterns.pcre"
	echo "$stamp" >"$D/.stamp"
fi
cat "$D/big.log" >/dev/null    # warm the page cache
python3 - "$D/meta.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print("big.log: %d bytes, %d lines, %d error lines; small-2k.log: %d bytes; %d small logs"
      % (m["big_bytes"], m["big_lines"], m["error_lines"], m["small_2k_bytes"], m["small_logs"]))
PY

echo "== same answers"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["expected_matches"])' "$D/meta.json")
ng=$(grep -E -c -f "$D/patterns.ere" "$D/big.log" || true)
nr=$(rg --no-unicode -c -f "$D/patterns.rg" "$D/big.log" || true)
echo "matching lines: expected $want, grep $ng, rg $nr"
"$PT" --json "$D/big.log" >"$D/verdict-big.json" || true
"$PT" --json "$D/big-errors.log" >"$D/verdict-errors.json" || true
python3 - "$D/verdict-big.json" "$D/verdict-errors.json" >"$D/verdict.txt" <<'PY' || true
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["class", "subkind", "rule", "confidence", "message", "fingerprint", "values", "environment"]
diff = [k for k in keys if a[k] != b[k]]
ra = sorted({e["rule"] for e in a["evidence"]})
rb = sorted({e["rule"] for e in b["evidence"]})
print("verdict on big.log: %s %s %s" % (a["class"], a["rule"], a["fingerprint"]))
print("verdict on its error lines alone: %s %s %s" % (b["class"], b["rule"], b["fingerprint"]))
if diff:
    print("DIFFERENT: " + ", ".join(diff))
elif ra != rb:
    print("same verdict; evidence rules differ: only big %s, only errors %s"
          % (sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))))
else:
    print("same verdict and evidence rules")
sys.exit(1 if diff else 0)
PY
cat "$D/verdict.txt"

echo "== peak RSS (/usr/bin/time)"
rss() { # LABEL COMMAND...: peak RSS in KiB
	label=$1
	shift
	/usr/bin/time -f "%M" -o "$D/rss.tmp" "$@" >/dev/null 2>&1 || true
	printf '%s\t%s\n' "$label" "$(tail -n 1 "$D/rss.tmp")"
}
{
	rss pallas-triage "$PT" --json "$D/big.log"
	rss "pallas-triage (pipe)" sh -c "cat '$D/big.log' | '$PT' --json -"
	rss grep grep -E -c -f "$D/patterns.ere" "$D/big.log"
	rss rg rg --no-unicode -c -f "$D/patterns.rg" "$D/big.log"
	rss "pallas-triage 2 KB" "$PT" --json "$D/small-2k.log"
	rss "scan 1,000 logs" "$PT" scan --jsonl "$D/small"
} >"$D/rss.tsv"
cat "$D/rss.tsv"

echo "== big log ($RUNS runs each)"
hyperfine -N -i --warmup 1 --runs "$RUNS" --output=null --export-json "$D/h-cat.json" \
	"cat $D/big.log"
hyperfine -N -i --warmup 1 --runs "$RUNS" --output=pipe --export-json "$D/h-big.json" \
	"$PT --json $D/big.log" \
	"rg --no-unicode -c -f $D/patterns.rg $D/big.log" \
	"grep -E -c -f $D/patterns.ere $D/big.log"
hyperfine -i --warmup 1 --runs "$RUNS" --output=pipe --export-json "$D/h-pipe.json" \
	"cat $D/big.log | $PT --json -"
hyperfine -N -i --warmup 1 --runs "$RUNS" --output=pipe --export-json "$D/h-one.json" \
	"env PALLAS_TRIAGE_THREADS=1 $PT --json $D/big.log"

# ripgrep's default Unicode mode: \b, \w, \d, \s are Unicode-aware, and its
# lazy DFA gives up on a Unicode \b at the first non-ASCII byte (tqdm bars),
# falling back to a far slower engine. Timed once on a 1 MB slice only.
head -c 1000000 "$D/big.log" >"$D/slice-1mb.log"
hyperfine -N -i --runs 1 --output=pipe --export-json "$D/h-rgu.json" \
	"rg -c -f $D/patterns.rg $D/slice-1mb.log"

echo "== small inputs"
hyperfine -N -i --warmup 3 --runs 40 --output=pipe --export-json "$D/h-small.json" \
	"$PT --json $D/small-2k.log" "$PT version"
hyperfine -N -i --warmup 1 --runs 5 --output=pipe --export-json "$D/h-scan.json" \
	"$PT scan --jsonl $D/small" "$PT scan --jsonl -j 1 $D/small"

echo "== summary"
python3 - "$D" <<'PY'
import json, os, sys
d = sys.argv[1]
meta = json.load(open(os.path.join(d, "meta.json")))
big, small = meta["big_bytes"], meta["small_2k_bytes"]
def res(name):
    return json.load(open(os.path.join(d, name)))["results"]
def med(r):
    return r["median"]
cpu = lambda r: r["user"] + r["system"]
big_runs = res("h-big.json")
cat = med(res("h-cat.json")[0])
pt, rg, grep = (med(r) for r in big_runs)
ptc, rgc, grepc = (cpu(r) for r in big_runs)
pipe = med(res("h-pipe.json")[0])
one = res("h-one.json")[0]
rgu = med(res("h-rgu.json")[0])
s2k, ver = (med(r) for r in res("h-small.json"))
scan2, scan1 = (med(r) for r in res("h-scan.json"))
rss = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(d, "rss.tsv")))
mbs = lambda t, n=big: n / t / 1e6
rows = [("cat (floor)", cat, None), ("pallas-triage", pt, ptc),
        ("pallas-triage, one thread", med(one), cpu(one)),
        ("cat | pallas-triage -", pipe, None),
        ("rg --no-unicode -c -f", rg, rgc), ("grep -E -c -f (LC_ALL=C)", grep, grepc)]
print("%-32s %9s %8s %9s %8s" % ("big log, %d bytes" % big, "median s", "MB/s", "CPU s", "MB/CPU-s"))
for name, t, c in rows:
    print("%-32s %9.3f %8.0f %9s %8s" % (name, t, mbs(t), "%.3f" % c if c else "-", "%.0f" % mbs(c) if c else "-"))
print("%-32s %9.3f %8.2f" % ("rg -c -f (Unicode), 1 MB slice", rgu, mbs(rgu, 1000000)))
print("load average during the run: %s" % open("/proc/loadavg").read().split()[0])
print()
print("pallas-triage vs rg:   %.2fx the throughput (target >= 3x); by CPU time %.2fx" % (rg / pt, rgc / ptc))
print("pallas-triage vs grep: %.2fx the throughput" % (grep / pt))
print("pallas-triage vs cat:  %.2fx the time (target <= 6x)" % (pt / cat))
print("one thread (PALLAS_TRIAGE_THREADS=1): %.2fx rg, %.2fx cat" % (rg / med(one), med(one) / cat))
print("2 KB log, whole run:   %.2f ms (target < 5 ms); '%s version' floor %.2f ms"
      % (s2k * 1e3, "pallas-triage", ver * 1e3))
print("scan 1,000 small logs: %.3f s with every core, %.3f s with -j 1" % (scan2, scan1))
print("peak RSS (KiB): " + ", ".join("%s %s" % kv for kv in rss.items()))
print(open(os.path.join(d, "verdict.txt")).read().rstrip())
ok = rg / pt >= 3 and pt / cat <= 6 and s2k < 0.005 and "DIFFERENT" not in open(os.path.join(d, "verdict.txt")).read()
print("targets: %s" % ("all met" if ok else "NOT all met"))
PY

# ---- issue 25: `check` on a 1,000-line kernel file (target < 10 ms, docs/check.md)
python3 "$B/gen_check.py" "$D/check-1000.py" 1000
"$PT" check "$D/check-1000.py" || { echo "bench: check-1000.py should be clean" >&2; exit 1; }
hyperfine -N --warmup 3 --runs 40 --output=pipe --export-json "$D/h-check.json" "$PT check $D/check-1000.py"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["results"][0]["median"] * 1e3; print("check, 1,000-line file: %.2f ms (target < 10 ms): %s" % (t, "met" if t < 10 else "NOT met"))' "$D/h-check.json"
