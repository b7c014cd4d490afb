#!/bin/sh
# `pallas-triage scan`: a tree of small logs of different classes, with
# duplicates, classified with the fixture rules. Checks the summary counts,
# the grouping by fingerprint, --jsonl, recursion, determinism across job
# counts, unreadable paths and the exit statuses (docs/scan.md).
. "$(dirname "$0")/../lib.sh"
R="--rules $SRC/tests/fixtures/rules"
status() { "$@" >/dev/null 2>&1 </dev/null; echo $?; }

D=$T/logs
mkdir -p "$D/a/deep/er" "$D/b" "$D/.hidden"
oom() { # FILE USED: a VMEM OOM in a Pallas kernel; the numbers differ, the failure does not
	printf 'step 1 ok\nI0101 pallas_call kernel started\nRESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used %s of 16.00M vmem.\n' "$2" >"$1"
}
oom "$D/a/job-1.log" 20.00M
oom "$D/a/job-2.log" 24.50M
oom "$D/a/deep/er/job-3.log" 31.25M
oom "$D/b/job-4.log" 17.00M
printf 'ValueError: last two dims of your block shape are divisible by 8 and 128 respectively. got block shape (100, 128)\n' >"$D/b/job-5.log"
printf 'ValueError: last two dims of your block shape are divisible by 8 and 128 respectively. got block shape (7, 3)\n' >"$D/b/job-6.log"
printf 'WARNING: RACE DETECTED\n' >"$D/b/job-7.log"
printf 'all good\nnothing to see\n' >"$D/b/job-8.log"
printf 'WARNING: RACE DETECTED\n' >"$D/.hidden/skipped.log"
ln -s .. "$D/b/loop"                # a link to a directory: not followed

$PTRUN scan $R "$D" >"$T/sum.out" 2>"$T/sum.err"
rc=$?
check "summary exits 0 when a failure was found" test "$rc" = 0
check "summary: nothing on stderr" test ! -s "$T/sum.err"
check "summary counts every log, hidden ones skipped" grep -q '^8 logs, ' "$T/sum.out"
check "summary: per-class counts" sh -c "grep -Eq '^capacity +4\$' '$T/sum.out' && grep -Eq '^layout +2\$' '$T/sum.out' &&
	grep -Eq '^synchronization +1\$' '$T/sum.out' && grep -Eq '^unknown +1\$' '$T/sum.out' &&
	grep -Eq '^numerics +0\$' '$T/sum.out'"
check "summary: the four OOMs are one fingerprint, first in the table" sh -c \
	"grep -E '^ +[0-9]+  [a-z]+-[0-9a-f]{16} ' '$T/sum.out' | head -1 | grep -Eq '^ +4  capacity-[0-9a-f]{16} +capacity.oom +$D/a/deep/er/job-3.log\$'"
check "summary: the two layout logs are one group" sh -c \
	"grep -Eq '^ +2  layout-[0-9a-f]{16} +layout.divisible +$D/b/job-5.log\$' '$T/sum.out'"
check "summary: four groups" test "$(grep -Ec '^ +[0-9]+  [a-z]+-[0-9a-f]{16} ' "$T/sum.out")" = 4
check "summary: masked key line under each group" grep -q 'Used #M of #M vmem' "$T/sum.out"
check "summary: a log without error line" grep -q '(no error line)' "$T/sum.out"

# --jsonl: one diagnosis per log, in walk order
$PTRUN scan $R --jsonl "$D" >"$T/j.out" 2>"$T/j.err"
check "jsonl exits 0" test $? = 0
check "jsonl: one line per log" test "$(wc -l <"$T/j.out")" = 8
check "jsonl: every line is a diagnosis object, in walk order" python3 - "$T/j.out" "$D" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]
d = sys.argv[2]
want = [d + "/a/deep/er/job-3.log", d + "/a/job-1.log", d + "/a/job-2.log"] + \
       [d + "/b/job-%d.log" % i for i in range(4, 9)]
assert [o["source"] for o in objs] == want, [o["source"] for o in objs]
assert all(o["schema_version"] == 2 and o["fingerprint"] for o in objs)
assert [o["class"] for o in objs] == ["capacity"] * 4 + ["layout"] * 2 + ["synchronization", "unknown"]
assert len({o["fingerprint"] for o in objs[:4]}) == 1
PY

# the same output whatever the number of workers
$PT scan $R --jsonl -j 1 "$D" >"$T/j1.out" 2>/dev/null
$PT scan $R -j 1 "$D" >"$T/s1.out" 2>/dev/null
check "jsonl is the same with 1 and 2 jobs" cmp -s "$T/j.out" "$T/j1.out"
check "summary is the same with 1 and 2 jobs" cmp -s "$T/sum.out" "$T/s1.out"

# each log's line is what triaging that log alone prints (scan starts every
# log from one prefilter built per worker; triage builds its own)
check "jsonl: each log as triage --json sees it" python3 - "$T/j.out" "$PT" $R <<'PY'
import json, subprocess, sys
path, pt, rules = sys.argv[1], sys.argv[2], sys.argv[3:]
keys = ["class", "rule", "fingerprint", "confidence", "evidence", "values", "lines"]
for line in open(path):
    o = json.loads(line)
    r = subprocess.run([pt, *rules, "--json", o["source"]], capture_output=True, text=True)
    t = json.loads(r.stdout)
    assert all(o[k] == t[k] for k in keys), o["source"]
PY

# files and directories mixed, in argument order
$PT scan $R --jsonl "$D/b/job-7.log" "$D/a/deep" >"$T/mix.out" 2>/dev/null
check "files and directories mixed" sh -c "python3 -c 'import json,sys; print(\" \".join(json.loads(l)[\"class\"] for l in open(sys.argv[1])))' '$T/mix.out' |
	grep -qx 'synchronization capacity'"

# --json: the summary as one object, in the table's order
$PTRUN scan $R --json "$D" >"$T/sum.json" 2>"$T/sum.json.err"
check "--json prints one strict JSON object" strict_json "$T/sum.json"
check "--json: the counts and groups of the table" python3 - "$T/sum.json" "$D" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["logs"] == 8 and d["unreadable"] == 0, d
assert d["classes"] == {"layout": 2, "capacity": 4, "synchronization": 1, "numerics": 0,
                        "unsupported": 0, "unknown": 1}, d["classes"]
g = d["groups"]
assert [x["logs"] for x in g] == [4, 2, 1, 1], g
assert g[0]["class"] == "capacity" and g[0]["rule"] == "capacity.oom", g[0]
assert g[0]["example"] == sys.argv[2] + "/a/deep/er/job-3.log", g[0]
assert "Used #M of #M vmem" in g[0]["fingerprint_text"], g[0]
assert isinstance(d["bytes"], int) and d["bytes"] > 0
PY
check "--format json is --json" sh -c "$PT scan $R --format json '$D' | cmp -s - '$T/sum.json'"

# --format github: one annotation per failing log, on the kernel's line
mkdir -p "$T/gh/ws/kern"
printf 'Traceback (most recent call last):\n  File "%s/ws/kern/flash.py", line 118, in flash_fwd\n    out = pl.pallas_call(kernel)(x)\nRESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.\n' "$T/gh" >"$T/gh/job-1.log"
printf 'all good\n' >"$T/gh/job-2.log"
GITHUB_WORKSPACE="$T/gh/ws" $PTRUN scan $R --format github "$T/gh" >"$T/gh.out" 2>"$T/gh.err"
check "--format github: one line per failing log, none for a clean one" test "$(wc -l <"$T/gh.out")" = 1
check "--format github: an error on the kernel's line, relative to the workspace" \
	grep -q '^::error file=kern/flash.py,line=118,title=pallas-triage%3A capacity/scoped-vmem::' "$T/gh.out"
check "--format github: the message names the log line and the first fix" \
	sh -c "grep -q '%0Alog: $T/gh/job-1.log, line 4' '$T/gh.out' && grep -q '%0Afirst fix (' '$T/gh.out'"

# A worker keeps each rung's rendered advice per JAX release (the shipped
# rules, whose API table spells it by release): logs that name other
# releases, or none, must each get what a run on that log alone gives.
V=$T/versions
mkdir -p "$V"
i=0
for v in 0.4.30 0.6.2 none 0.4.30 0.5.1 0.4.31.dev20240601 0.7.0 none; do
	i=$((i + 1))
	{
		[ "$v" = none ] || echo "jax==$v"
		printf '  File "/src/kern.py", line 10, in run\n    out = pl.pallas_call(kernel, grid=(4,))(x)\n'
		echo 'jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.'
	} >"$V/log-$i.log"
done
for j in 1 2; do
	$PTRUN scan --jsonl -j $j "$V" >"$T/v$j.out" 2>"$T/v$j.err"
	check "advice by release, -j $j: one line per log" test "$(wc -l <"$T/v$j.out")" = 8
	check "advice by release, -j $j: each log's line is its run alone" python3 - "$T/v$j.out" "$PT" "$V" <<'PY'
import json, subprocess, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
old = 0
for d in lines:
    alone = json.loads(subprocess.run([sys.argv[2], "--json", d["source"]],
                                      capture_output=True, text=True).stdout)
    if alone != d:
        sys.exit("differs: " + d["source"])
    old += "not available in JAX 0.4.30" in json.dumps(d)
sys.exit(0 if old == 2 else "the two 0.4.30 logs should be told pl.Buffered is missing")
PY
done

# exit statuses
check "no failure anywhere exits 1" test "$(status $PT scan $R "$D/b/job-8.log")" = 1
(cd "$D/b" && $PTRUN scan $R) >"$T/dot.out" 2>&1
check "no path scans the working directory" grep -q '^5 logs, ' "$T/dot.out"
check "... as '.' would" sh -c "(cd '$D/b' && $PT scan $R .) | cmp -s - '$T/dot.out'"
check "a bad --jobs is a usage error (2)" test "$(status $PT scan $R -j 0 "$D")" = 2
check "an unknown option is a usage error (2)" test "$(status $PT scan $R --frob "$D")" = 2
$PTRUN scan $R "$D/a" "$T/nope" "$D/b/job-8.log" >"$T/miss.out" 2>"$T/miss.err"
rc=$?
check "a missing path exits 3" test "$rc" = 3
check "a missing path is named on stderr" grep -q "^pallas-triage: error: cannot open '$T/nope': No such file or directory\$" "$T/miss.err"
check "the other logs are still reported" grep -q '^4 logs, .*; 1 path could not be read$' "$T/miss.out"
check "an empty directory: no logs, exit 1" sh -c "mkdir -p '$T/empty' && $PT scan $R '$T/empty' >'$T/e.out' 2>&1; test \$? = 1 && grep -q '^0 logs, 0 bytes' '$T/e.out'"
check "help names the exit statuses" sh -c "$PT scan -h | grep -q 'exit status: 0 a Pallas failure class was identified in at least one log'"
check "write error exits 4" sh -c "$PT scan $R '$D' >/dev/full 2>/dev/null; test \$? = 4"
finish
