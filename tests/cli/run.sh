#!/bin/sh
# Command-line behaviour: help, version, usage errors, exit statuses, JSON
# shape, colour policy, and the rule search order.
. "$(dirname "$0")/../lib.sh"
L=$SRC/tests/triage
status() { "$@" >/dev/null 2>&1 </dev/null; echo $?; }

check "help lists commands" sh -c "$PT help | grep -q '^  explain '"
check "--help is help" sh -c "$PT --help | grep -q '^usage: pallas-triage'"
check "help for a subcommand" sh -c "$PT help rules test | grep -q 'rules test'"
check "command -h prints usage, exit 0" sh -c "$PT triage -h | grep -q 'exit status: 0 a Pallas failure'"
check "--version" sh -c "$PT --version | grep -Eq '^pallas-triage [0-9]+\.[0-9]+\.[0-9]+$'"
check "unknown command exits 2" test "$(status $PT rules frob)" = 2
check "unknown option exits 2" test "$(status $PT --frob x.log)" = 2
check "a class exits 0" test "$(status $PT --no-input $L/layout-block-divisible.log)" = 0
check "unknown exits 1" test "$(status $PT --no-input $L/unknown-plain.log)" = 1
check "missing log exits 3" test "$(status $PT --no-input $T/nope.log)" = 3
check "explain a class" sh -c "$PT explain capacity | grep -q 'fix ladder, cheapest first'"
check "explain an error code" sh -c "$PT explain E1001 | grep -q 'capacity'"
check "explain names a code only where a source does" sh -c \
	"$PT explain E1001 | head -n 1 | grep -qx 'E1001 CompileTimeScopedVmemOom (capacity)' &&
	 $PT explain E1002 | head -n 1 | grep -qx 'E1002 (unknown)'"
check "explain a rule" sh -c "$PT explain \$($PT rules list --class layout | head -1 | cut -d' ' -f1) | grep -q 'patterns:'"
check "explain nothing exits 2" test "$(status $PT explain no-such-thing)" = 2
$PT rules list --class numerics >"$T/numerics.list"
check "rules list --class filters" every_line "$T/numerics.list" ' numerics '

# Pallas on GPU: the smem command, the GPU rungs in explain, the backend in JSON
check "help lists smem" sh -c "$PT help | grep -q '^  smem '"
check "smem -h prints usage, exit 0" sh -c "$PT smem -h | grep -q 'exit status: 0 fits, 1 does not fit'"
check "smem without --block exits 2" test "$(status $PT smem --chip h100 --dtype f32)" = 2
check "explain shows the GPU ladder apart" sh -c "$PT explain capacity | grep -q '^fix ladder on GPU'"
check "explain a GPU rule" sh -c "$PT explain capacity.mgpu-smem | grep -q 'max_concurrent_steps'"
check "explain a GPU API name" sh -c "$PT explain plgpu.wgmma | grep -q 'Hopper'"
check "json names the backend and chip" sh -c "$PT --json $SRC/tests/triage/gpu-mgpu-smem.log | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"backend\"]==\"mosaic-gpu\" and d[\"chip\"]==\"h100\" and d[\"environment\"][\"cuda_version\"]==\"12.4\"'"
A=$SRC/tests/accuracy/logs
check "json reads the ROCm version and the AMD arch" sh -c "$PT --json $A/g2-rocm-smem.log | python3 -c 'import json,sys; e=json.load(sys.stdin)[\"environment\"]; assert e[\"rocm_version\"]==\"6.2.0\" and e[\"device_kind\"]==\"gfx942\" and e[\"chip\"]==\"mi300x\"'"
check "json reads JAX_PALLAS_USE_MOSAIC_GPU" sh -c "$PT --json $A/g1-triton-pow2-verbose.log | python3 -c 'import json,sys; e=json.load(sys.stdin)[\"environment\"]; assert e[\"jax_pallas_use_mosaic_gpu\"]==\"0\" and e[\"backend\"]==\"triton\"'"
check "the text names backend and chip" sh -c "$PT --no-input $SRC/tests/triage/gpu-mgpu-smem.log | grep -q '^environment  backend=mosaic-gpu' && $PT --no-input $SRC/tests/triage/gpu-mgpu-smem.log | grep -q '^             chip=h100'"
check "a TPU log names no GPU backend" sh -c "$PT --json $L/capacity-scoped.log | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"backend\"]==\"mosaic-tpu\" and d[\"chip\"]==\"v6e\"'"

# the README's worked example is what the binary prints, up to its "  ..." line
awk '/^\$ pallas-triage --no-input docs\/examples\/vmem-oom.log$/ { on = 1; next }
     on && /^  \.\.\.$/ { exit } on { print }' "$SRC/README.md" >"$T/readme.want"
(cd "$SRC" && $PT --no-input docs/examples/vmem-oom.log) >"$T/readme.all"
head -n "$(wc -l <"$T/readme.want")" "$T/readme.all" >"$T/readme.got"
check "README has its worked example" test "$(wc -l <"$T/readme.want")" -ge 20
check "README worked example is the real output" cmp -s "$T/readme.want" "$T/readme.got"

# JSON: one object with the documented keys
$PT --json $L/capacity-scoped.log >"$T/j.json"
check "json has the documented keys" python3 - "$T/j.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
need = ["schema_version", "class", "subkind", "confidence", "evidence", "runner_up",
        "location", "environment", "fingerprint", "ladder"]
assert all(k in d for k in need), [k for k in need if k not in d]
assert d["schema_version"] == 2 and d["class"] == "capacity"
assert all({"line", "text", "rule"} <= set(e) for e in d["evidence"])
PY
check "json values are typed: numbers, booleans, text" python3 - "$T/j.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["values"]
assert v["vmem_limit_bytes"] == 59768832 and type(v["vmem_limit_bytes"]) is int, v
assert v["used_bytes"] == 47290778, v
assert v["scoped_limit_hit"] is True, v
assert v["used"] == "45.10M" and v["vmem_limit_human"] == "57 MiB", v
env = json.load(open(sys.argv[1]))["environment"]
assert all(type(x) is str for x in env.values()), env
PY
check "json for unknown has a reason" sh -c "$PT --json $L/unknown-hbm-oom.log | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"class\"]==\"unknown\" and d[\"reason\"]'"

# colour only when asked or at a terminal, never with NO_COLOR
ESC=$(printf '\033')
BOLD=$(printf '\033[1m')
$PT --no-input $L/sync-race.log >"$T/pipe.out"
check "no colour in a pipe" lacks "$T/pipe.out" "$ESC"
$PT --color always --no-input $L/sync-race.log >"$T/always.out"
check "--color always colours" grep -qF "$BOLD" "$T/always.out"
(unset NO_COLOR; script -qec "$PT --no-input $L/sync-race.log" /dev/null) >"$T/tty.out"
check "a terminal gets colour" grep -qF "$BOLD" "$T/tty.out"
NO_COLOR=1 script -qec "$PT --no-input $L/sync-race.log" /dev/null >"$T/nocolor.out"
check "NO_COLOR wins over a terminal" lacks "$T/nocolor.out" "$BOLD"

# a log that tries to drive the terminal is escaped
printf 'RACE DETECTED \033]0;pwned\007 \033[2J \rfake\a\n' >"$T/evil.log"
check "control bytes from a log are shown escaped" sh -c "$PT --no-input $T/evil.log | grep -q 'x0dfake.x07'"
$PT --no-input --color never $T/evil.log >"$T/evil.out"
check "no raw ESC from a log reaches the terminal" lacks "$T/evil.out" "$ESC"

# no log at a terminal is a usage error, not a hang
check "no log at a terminal exits 2" sh -c "script -qec '$PT; echo rc=\$?' /dev/null </dev/null | grep -q 'rc=2'"

# rule search order: --rules beats PALLAS_TRIAGE_RULES beats the user dir
mkdir -p "$XDG_DATA_HOME/pallas-triage"
cp -r "$SRC/tests/fixtures/rules" "$XDG_DATA_HOME/pallas-triage/rules"
check "user rules dir is used" sh -c "$PT rules list | grep -q '^capacity.oom '"
PALLAS_TRIAGE_RULES=$SRC/rules $PT rules list >"$T/env.list"
check "PALLAS_TRIAGE_RULES beats the user dir" lacks "$T/env.list" 'capacity.oom '
check "--rules beats the environment" sh -c "PALLAS_TRIAGE_RULES=$SRC/rules $PT --rules $SRC/tests/fixtures/rules rules list | grep -q '^capacity.oom '"
check "a bad PALLAS_TRIAGE_RULES exits 3" test "$(PALLAS_TRIAGE_RULES=$T/none status $PT rules list)" = 3
rm -rf "$XDG_DATA_HOME/pallas-triage"

# typos: a word one edit away from a command is not a log to open; explain
# takes what the tool prints (rung ids, E1001, 1001, error names)
(cd "$T" && $PT sesion >"$T/typo.out" 2>&1; echo "rc=$?" >>"$T/typo.out")
check "a mistyped command suggests the command" grep -qx "did you mean 'pallas-triage session'?" "$T/typo.out"
check "... and exits 2" grep -qx "rc=2" "$T/typo.out"
check "... and is not opened as a log" sh -c "! grep -q 'cannot open' '$T/typo.out'"
printf 'x\n' >"$T/sesion"
check "a file with that name is still a log" test "$(cd "$T" && status $PT --no-input sesion)" = 1
check "a mistyped subcommand suggests the subcommand" sh -c "$PT rules tset 2>&1 | grep -qx \"did you mean 'pallas-triage rules test'?\""
check "-V prints the version" sh -c "$PT -V | grep -q '^pallas-triage [0-9]'"

# suggestions: a prefix of a command is one edit from it, and at equal
# distance a read-only command wins over one that changes state
# (`session start` sets the session aside); mistyped options and dtypes too
sugg() { "$@" 2>&1 >/dev/null | grep '^did you mean' ; }
check "session stat suggests status, not start" test "$(sugg $PT session stat)" = "did you mean 'pallas-triage session status'?"
check "session sta suggests status" test "$(sugg $PT session sta)" = "did you mean 'pallas-triage session status'?"
check "session strt still suggests start" test "$(sugg $PT session strt)" = "did you mean 'pallas-triage session start'?"
check "a mistyped option suggests the option" test "$(sugg $PT --no-input --jsn "$L/unknown-plain.log")" = "did you mean '--json'?"
check "a mistyped option of a command suggests its option" test "$(sugg $PT run --timout 5 -- true)" = "did you mean '--timeout'?"
check "... also with a value attached" test "$(sugg $PT vmem --chip v5e --block 8,128 --dtype f32 --limt=4M)" = "did you mean '--limit'?"
check "a mistyped dtype suggests the dtype" test "$(sugg $PT check-block --chip v5e --block 8,128 --dtype bfloat61)" = "did you mean 'bfloat16'?"
check "a mistyped chip suggests the chip" test "$(sugg $PT vmem --chip v6ee --block 8,128 --dtype f32)" = "did you mean 'v6e'?"
check "a dtype in --scratch too" test "$(sugg $PT vmem --chip v5e --block 8,128 --dtype f32 --scratch 8,128:flaot32)" = "did you mean 'float32'?"
check "an option far from any is not guessed" sh -c "$PT --no-input --zzzzzz x.log 2>&1 | grep -q 'unrecognized option' && ! $PT --no-input --zzzzzz x.log 2>&1 | grep -q 'did you mean'"

# an empty pipe: the traceback went to stderr, which '|' does not carry
python3 -c 'import sys; sys.stderr.write("Traceback (most recent call last):\n"); sys.exit(1)' 2>/dev/null |
	$PT --no-input >"$T/pipe.out" 2>"$T/pipe.err"
echo "rc=$?" >>"$T/pipe.out"
check "an empty pipe says why: Python writes tracebacks to stderr" sh -c \
	"grep -q 'Python writes tracebacks to standard error' '$T/pipe.err' && grep -qx '  python3 your_script.py 2>&1 | pallas-triage' '$T/pipe.err'"
check "... and exits 3" grep -qx "rc=3" "$T/pipe.out"
: >"$T/empty.log"
$PT --no-input - <"$T/empty.log" >/dev/null 2>"$T/file.err"
check "an empty file on stdin is no pipe: no 2>&1 hint" sh -c "grep -q \"'<stdin>' is empty\" '$T/file.err' && ! grep -q '2>&1' '$T/file.err'"

$PT --no-input "$L/unknown-plain.log" >"$T/next.out" 2>&1
check "the next steps name the log and the file the tool knows" grep -qF \
	"say so: \`pallas-triage --kernel train.py $L/unknown-plain.log\`" "$T/next.out"
check "... not k.py and LOG" lacks "$T/next.out" "--kernel k.py LOG"

# "not found" is no misuse of the command: the message (and a suggestion), no usage block
$PT help sesion >"$T/nf.out" 2>&1
check "help of a mistyped command suggests it, without the usage block" sh -c \
	"grep -qx \"did you mean 'session'?\" '$T/nf.out' && ! grep -q '^usage:' '$T/nf.out'"
$PT rules list --class capacty >"$T/nf.out" 2>&1
check "an unknown class suggests one, without the usage block" sh -c \
	"grep -qx \"did you mean 'capacity'?\" '$T/nf.out' && ! grep -q '^usage:' '$T/nf.out'"
$PT check-block --chip v99 --block 8,128 --dtype f32 >"$T/nf.out" 2>&1
check "an unknown chip lists the chips, without the usage block" sh -c \
	"grep -q \"unknown chip 'v99' (known: \" '$T/nf.out' && ! grep -q '^usage:' '$T/nf.out'"
$PT rules remove no-such-pack >"$T/nf.out" 2>&1
check "an unknown pack says so, without the usage block" sh -c \
	"grep -q \"no rule pack named 'no-such-pack'\" '$T/nf.out' && ! grep -q '^usage:' '$T/nf.out'"
$PT check-block --chip v5e --block 8,128 >"$T/nf.out" 2>&1
check "a real usage error still shows the usage" grep -q '^usage: pallas-triage check-block' "$T/nf.out"
check "explain a rung id" sh -c "$PT explain capacity.raise-scoped-limit | head -1 | grep -q 'a rung of the capacity ladder'"
check "explain 1001 is E1001" sh -c "$PT explain 1001 | head -1 | grep -q '^E1001 '"
check "explain an error name" sh -c "$PT explain CompileTimeScopedVmemOom | head -1 | grep -q '^E1001 '"
$PT explain capacty >"$T/ex.out" 2>&1
check "explain suggests a close name" grep -q "did you mean 'capacity'?" "$T/ex.out"
check "... without the usage block" sh -c "! grep -q '^usage:' '$T/ex.out'"
check "... and exits 2" test "$(status $PT explain capacty)" = 2

# stdout write errors are reported
check "write error to a full device exits 4" sh -c "$PT --no-input $L/sync-race.log >/dev/full 2>/dev/null; test \$? = 4"
# the rules cache: a hit, a stale key, a corrupt or truncated file all give the same answer
rm -rf "$HOME/.cache"
cp -r "$SRC/rules" "$T/r"
$PT --rules "$T/r" --json $L/layout-e2002-bf16.log >"$T/c1.json"
cache=$(ls "$HOME"/.cache/pallas-triage/rules-*.bin 2>/dev/null | head -1)
check "the cache is written" test -s "$cache"
$PT --rules "$T/r" --json $L/layout-e2002-bf16.log >"$T/c2.json"
check "a cache hit gives the same answer" cmp -s "$T/c1.json" "$T/c2.json"
PALLAS_TRIAGE_NO_CACHE=1 $PT --rules "$T/r" --json $L/layout-e2002-bf16.log >"$T/c3.json"
check "no cache gives the same answer" cmp -s "$T/c1.json" "$T/c3.json"
printf 'PTRC0001 garbage' >"$cache"
$PT --rules "$T/r" --json $L/layout-e2002-bf16.log >"$T/c4.json"
check "a corrupt cache is a miss" cmp -s "$T/c1.json" "$T/c4.json"
$PT --rules "$T/r" rules list >/dev/null
head -c 20000 "$cache" >"$T/trunc" && cp "$T/trunc" "$cache"
$PT --rules "$T/r" --json $L/layout-e2002-bf16.log >"$T/c5.json"
check "a truncated cache is a miss" cmp -s "$T/c1.json" "$T/c5.json"
sed -i 's/weight: 95/weight: 11/' "$T/r/layout.yaml"
sleep 0.01
$PT --rules "$T/r" --json $L/layout-e2002-bf16.log >"$T/c6.json"
check "an edited rule file invalidates the cache" sh -c "! cmp -s '$T/c1.json' '$T/c6.json'"
finish
