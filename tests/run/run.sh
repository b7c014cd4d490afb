#!/bin/sh
# `pallas-triage run`: the command is run for real. The commands are small
# scripts written here: a Mosaic VMEM failure, a hang, numbers that change on
# every run (a counter file, not $RANDOM), a kernel that is only right at
# HIGHEST precision, deaths by signal, 50 MB of fast output, a missing
# command, stdin, Ctrl-C, and sessions. Every run is bounded: timeouts are
# 1-2 s and each pallas-triage call is wrapped in timeout(1) as a backstop.
. "$(dirname "$0")/../lib.sh"
export T
RULES=$SRC/rules
unset JAX_DEFAULT_MATMUL_PRECISION PALLAS_TRIAGE_NOW
W=$T/work
mkdir -p "$W"
cd "$W" || exit 1

# pt ARGS...: run pallas-triage with the shipped rules; stdout, stderr and the
# status land in $W/out, $W/err and $rc
pt() {
	timeout -k 5 120 $PTRUN --rules "$RULES" "$@" >"$W/out" 2>"$W/err" </dev/null
	rc=$?
}
has() { grep -q -- "$1" "$W/${2:-out}"; }
json() { python3 -c "import json,sys; d=json.load(open('$W/out')); sys.exit(0 if ($1) else 1)"; }

# ---------------------------------------------------------------- commands
cat >"$T/vmem.sh" <<'EOF'
echo "compiling ragged_paged_attention"
cat >&2 <<'END'
Traceback (most recent call last):
  File "/srv/serve/attn.py", line 212, in forward
    out = ragged_paged_attention(q, kv, lens)
jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: CompileTimeScopedVmemOom: Ran out of memory in memory space vmem while allocating on stack for %ragged_paged_attention.3 = bf16[8,1024,128]{2,1,0} custom-call(%a, %b), custom_call_target="tpu_custom_call". Scoped allocation with size 45.10M and limit 32.00M exceeded scoped vmem limit by 13.10M.
END
exit 1
EOF
cat >"$T/hang.sh" <<'EOF'
echo $$ >"$T/hang.pid"
echo "pallas_call ring_allgather: started"
sleep 60
EOF
cat >"$T/stubborn.sh" <<'EOF'
trap '' TERM INT
echo $$ >"$T/stubborn.pid"
echo started
sleep 60
EOF
# a different max abs difference on every run
cat >"$T/flaky.sh" <<'EOF'
n=$(cat "$COUNTER" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$COUNTER"
cat <<END
  File "/w/kernels/matmul_test.py", line 40, in test_matmul
AssertionError:
Not equal to tolerance rtol=1e-05, atol=1e-05

Mismatched elements: 12 / 4096 (0.293%)
Max absolute difference among violations: 0.0$n
Max relative difference among violations: 0.00$n
END
exit 1
EOF
cat >"$T/steady.sh" <<'EOF'
cat <<END
  File "/w/kernels/matmul_test.py", line 40, in test_matmul
AssertionError:
Not equal to tolerance rtol=1e-05, atol=1e-05

Mismatched elements: 12 / 4096 (0.293%)
Max absolute difference among violations: 0.25
END
exit 1
EOF
# right only at HIGHEST, like an f32 matmul whose operands go through bf16
cat >"$T/precision.py" <<'EOF'
import os, sys
level = os.environ.get("JAX_DEFAULT_MATMUL_PRECISION", "")
print("JAX_DEFAULT_MATMUL_PRECISION=" + level)
if level == "highest":
    sys.exit(0)
err = {"default": "0.03125", "high": "0.0009765625"}.get(level, "1.0")
print('  File "/w/kernels/matmul_test.py", line 40, in test_matmul')
print("AssertionError:\nNot equal to tolerance rtol=1e-06, atol=1e-06\n")
print("Mismatched elements: 4000 / 65536 (6.1%)")
print("Max absolute difference among violations: " + err)
sys.exit(1)
EOF
# wrong at every level: a logic bug
cat >"$T/logic.py" <<'EOF'
import sys
print('  File "/w/kernels/matmul_test.py", line 40, in test_matmul')
print("AssertionError:\nNot equal to tolerance rtol=1e-06, atol=1e-06\n")
print("Mismatched elements: 65536 / 65536 (100%)")
print("Max absolute difference among violations: 7.5")
sys.exit(1)
EOF
# the same on a GPU with Pallas Triton: TF32 at default and high, IEEE at highest
cat >"$T/tf32.py" <<'EOF'
import os, sys
level = os.environ.get("JAX_DEFAULT_MATMUL_PRECISION", "")
print("JAX_DEFAULT_MATMUL_PRECISION=" + level)
print("devices: [CudaDevice(id=0)] NVIDIA H100 80GB HBM3")
print("    out = pl.pallas_call(mm_kernel, grid=(4, 4), compiler_params=pltriton.CompilerParams())(a, b)")
if level == "highest":
    sys.exit(0)
print('  File "/w/kernels/matmul_test.py", line 40, in test_matmul')
print("AssertionError:\nNot equal to tolerance rtol=1e-06, atol=1e-06\n")
print("Mismatched elements: 9000 / 65536 (13.7%)")
print("Max absolute difference among violations: 0.0078125")
sys.exit(1)
EOF
# a Mosaic GPU kernel wrong at every level: WGMMA runs f32 as TF32 at each one
cat >"$T/mgpu-wrong.py" <<'EOF'
import sys
print("    out = plgpu.kernel(body, out_shape=o, grid=(4,))(a, b)")
print('  File "/w/kernels/matmul_test.py", line 40, in test_matmul')
print("AssertionError:\nNot equal to tolerance rtol=1e-06, atol=1e-06\n")
print("Mismatched elements: 9000 / 65536 (13.7%)")
print("Max absolute difference among violations: 0.0078125")
sys.exit(1)
EOF
# the Mosaic GPU runtime prints its launch error and calls abort()
cat >"$T/mgpu-abort.py" <<'EOF'
import os, sys
print("compiling decode_attention with plgpu.kernel", flush=True)
sys.stderr.write("cuLaunchKernelEx: too many resources requested for launch\n")
sys.stderr.flush()
os.abort()
EOF
cat >"$T/segv.py" <<'EOF'
import os, signal, sys
print("launching kernel", flush=True)
os.kill(os.getpid(), signal.SIGSEGV)
EOF
cat >"$T/args.py" <<'EOF'
import sys
print(repr(sys.argv[1:]))
EOF
cat >"$T/stdin.py" <<'EOF'
import sys
data = sys.stdin.read()
print("read %d bytes" % len(data))
EOF
# half a line on stdout, a line on stderr, the rest of the line on stdout
cat >"$T/interleave.py" <<'EOF'
import sys, time
print('  File "/w/kernels/matmul_test.py", line 40, in test_matmul', flush=True)
sys.stdout.write("Max absolute difference among"); sys.stdout.flush(); time.sleep(0.05)
sys.stderr.write("a warning on stderr\n"); sys.stderr.flush(); time.sleep(0.05)
sys.stdout.write(" violations: 0.125\n"); sys.stdout.flush()
sys.stderr.write("Mismatched elements: 12 / 4096 (0.293%)\n")
sys.exit(1)
EOF
# Python writing to a pipe, then hanging: its line must not sit in a buffer
cat >"$T/pyhang.py" <<'EOF'
import time
print("pallas_call ring_allgather: waiting for the neighbour")
time.sleep(60)
EOF
# 50 MB as fast as it can, neutral lines, then a failure at the very end
cat >"$T/flood.sh" <<'EOF'
yes 'step 100: loss 0.25 grad_norm 1.5 lr 3e-4 tokens/s 12345' | head -c 52428800
echo '  File "/w/kernels/matmul_test.py", line 40, in test_matmul'
echo 'Max absolute difference among violations: 0.5'
echo 'Mismatched elements: 3 / 10 (30%)'
EOF

# ---------------------------------------------------------------- usage
pt run
check "no command is a usage error" test "$rc" = 2
check "usage error names the fix" has "put it after '--'" err
pt run --repeat 0 -- true
check "--repeat 0 is a usage error" test "$rc" = 2
pt run --timeout -1 -- true
check "a negative timeout is a usage error" test "$rc" = 2
pt run --repeat 2 --sweep-precision -- true
check "--repeat with --sweep-precision is a usage error" test "$rc" = 2
pt run -h
check "run -h prints the usage, exit 0" sh -c "test $rc = 0 && grep -q 'exit status: 0 the command passed' '$W/out'"
check "help lists run" sh -c "$PT help | grep -q '^  run '"

# ---------------------------------------------------------------- single runs
pt run -- sh "$T/vmem.sh"
check "a VMEM failure exits 1" test "$rc" = 1
check "the command's stdout is echoed on stdout" has "compiling ragged_paged_attention" out
check "the command's stderr is echoed on stderr" has "CompileTimeScopedVmemOom" err
check "a VMEM failure is classified capacity" has "^capacity/scoped-vmem"
check "the run line says how it ended" has "^run: exit 1$"

pt run --quiet -- sh "$T/vmem.sh"
check "--quiet echoes nothing" sh -c "! grep -q compiling '$W/out' && ! grep -q Traceback '$W/err'"

pt run -- true
check "a passing command exits 0" test "$rc" = 0
check "a passing command is reported as passing" has "the command passed"

pt run --timeout 1 -- sh "$T/hang.sh"
check "a hang exits 1" test "$rc" = 1
check "a hang is stopped with SIGTERM" has "timeout after 1 s: stopped with SIGTERM (a hang)"
check "a hang is synchronization evidence" has "^synchronization/hang"
check "the hang names a wait never satisfied" has "a wait that is never satisfied"

pt run --no-record --timeout 1 --grace 0.5 -- sh "$T/stubborn.sh"
check "a command that ignores SIGTERM gets SIGKILL" has "stopped with SIGKILL (a hang)"
# the command led its own process group: no live member of it may be left
# (an orphan may stay a zombie for a while when PID 1 does not reap it)
gone() {
	g=$(cat "$1")
	if command -v ps >/dev/null 2>&1; then
		! ps -eo pgid=,stat= | awk -v g="$g" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'
	else
		! kill -0 -- "-$g" 2>/dev/null
	fi
}
check "nothing of the stubborn command is left" gone "$T/stubborn.pid"

pt run -- python3 "$T/segv.py"
check "a SIGSEGV exits 1" test "$rc" = 1
check "a SIGSEGV is reported" has "^run: SIGSEGV$"
check "a SIGSEGV alone names no kernel class" has "^unknown/crash"
pt run -- sh -c 'kill -KILL $$'
check "SIGKILL points outside the program" has "^unknown/killed"
pt run -- sh -c 'python3 "$1"; exit $?' sh "$T/segv.py"
check "a shell's 139 is read as SIGSEGV" sh -c "grep -q '^unknown/crash' '$W/out' && grep -q 'pt-run: ending=exit exit_code=139 signal=11 signame=SIGSEGV' '$W/out'"

pt run -- python3 "$T/args.py" 'a b' '$HOME' '*' '' "--rules" "x"
check "arguments arrive exactly as given, no shell" has "\['a b', '\$HOME', '\*', '', '--rules', 'x'\]"

pt run -- "$T/does-not-exist" --flag
check "a missing command exits 4" test "$rc" = 4
check "a missing command says why" has "cannot run '.*does-not-exist': No such file or directory" err

printf 'secret input\n' >"$T/input"
timeout -k 5 60 $PTRUN --rules "$RULES" run -- python3 "$T/stdin.py" <"$T/input" >"$W/out" 2>&1
check "without --stdin the command reads EOF" has "^read 0 bytes"
timeout -k 5 60 $PTRUN --rules "$RULES" run --stdin -- python3 "$T/stdin.py" <"$T/input" >"$W/out" 2>&1
check "with --stdin the command reads our input" has "^read 13 bytes"

pt run --quiet --json -- python3 "$T/interleave.py"
check "stdout and stderr lines do not split each other" json "d['values']['max_abs'] == 0.125"
pt run --timeout 3 -- python3 "$T/pyhang.py"  # python may take a second to start on a busy machine
check "a hung Python command's output is not lost in its buffer" has "waiting for the neighbour"

pt run --json -- sh "$T/vmem.sh"
check "--json prints one object with a run member" json "d['class'] == 'capacity' and d['run']['mode'] == 'single' and d['run']['runs'][0]['exit_code'] == 1"
# stdout is the JSON object alone (the echoed line may only appear inside it, as evidence)
check "--json sends the command's stdout to stderr" sh -c "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$W/out' && ! grep -q '^compiling' '$W/out' && grep -q '^compiling' '$W/err'"

# ---------------------------------------------------------------- big output
if [ -z "${VALGRIND:-}" ] && [ -x /usr/bin/time ]; then
	timeout -k 5 120 /usr/bin/time -f '%M' -o "$W/rss" $PT --rules "$RULES" run -- sh "$T/flood.sh" >/dev/null 2>"$W/err"
	rc=$?
	check "50 MB of output: the failure at the end is found" test "$rc" = 1
	check "50 MB of output: max RSS under 32 MiB" test "$(tail -n 1 "$W/rss")" -lt 32768
fi
pt run --quiet --json -- sh "$T/flood.sh"
check "50 MB of output: every line was read" json "d['lines'] > 900000 and d['values']['max_abs'] == 0.5"

# ---------------------------------------------------------------- repeat
COUNTER=$T/counter
export COUNTER
rm -f "$COUNTER"
pt run --quiet --repeat 3 -- sh "$T/flaky.sh"
check "--repeat runs the command 3 times" test "$(cat "$COUNTER")" = 3
check "changing numbers are nondeterministic" has "^nondeterministic: outcomes differ between runs (max_abs, max_rel)"
check "nondeterminism points to a race" has "^synchronization/race"
check "the table lists every run" sh -c "grep -Ec '^[123] +fail +exit 1 ' '$W/out' | grep -qx 3"
check "the table shows each max_abs" sh -c "grep -q ' 0.01 ' '$W/out' && grep -q ' 0.03 ' '$W/out'"
pt run --quiet --repeat 3 -- sh "$T/steady.sh"
check "the same failure every time is deterministic" has "^deterministic: the same failure in all 3 runs (exit 1, numerics/"
check "a deterministic failure is not called a race" sh -c "! grep -q 'synchronization/race' '$W/out'"
pt run --quiet --repeat 3 -- true
check "--repeat of a passing command exits 0" test "$rc" = 0
check "--repeat of a passing command says so" has "^passed in all 3 runs"
rm -f "$COUNTER"
pt run --quiet --json --repeat 2 -- sh "$T/flaky.sh"
check "--repeat --json lists what differs" json "d['run']['repeat']['kind'] == 'nondeterministic' and d['run']['repeat']['differs'] == ['max_abs', 'max_rel'] and len(d['run']['runs']) == 2"

# ---------------------------------------------------------------- precision sweep
pt run --sweep-precision -- python3 "$T/precision.py"
check "the sweep exits 1 when a level fails" test "$rc" = 1
check "the sweep sets JAX_DEFAULT_MATMUL_PRECISION" sh -c "grep -q '=default$' '$W/out' && grep -q '=high$' '$W/out' && grep -q '=highest$' '$W/out'"
check "the sweep table has one row per level" sh -c "grep -Eq '^default +fail +exit 1 +numerics/[a-z]+ +0.03125' '$W/out' && grep -Eq '^highest +pass +exit 0' '$W/out'"
check "right at highest only is the precision policy" has "^precision policy: wrong at default, wrong at high, right at highest"
check "the precision policy is the diagnosis" has "^numerics/precision"
pt run --quiet --sweep-precision -- python3 "$T/logic.py"
check "wrong at every level is a logic bug" has "^logic bug: wrong at every precision"
check "a logic bug is the diagnosis" has "^numerics/logic"
pt run --quiet --sweep-precision -- true
check "right at every level did not reproduce" has "^right at every precision"
pt run --quiet --sweep-precision -- python3 "$T/tf32.py"
check "on a GPU right at highest only is TF32" has "^precision policy: wrong at default, wrong at high, right at highest: on a GPU f32 dots run as TF32"
check "TF32 is the diagnosis" sh -c "grep -q '^numerics/precision' '$W/out' && grep -q 'run.sweep-tf32-policy' '$W/out'"
check "the TF32 verdict names the backend and GPU" sh -c "grep -q 'backend=triton' '$W/out' && grep -q 'chip=h100' '$W/out'"
pt run --quiet --sweep-precision -- python3 "$T/mgpu-wrong.py"
check "Mosaic GPU wrong at every level is no proof of logic" has "^inconclusive: wrong at every precision, but Mosaic GPU runs f32"
check "Mosaic GPU wrong at every level rules nothing out" sh -c "! grep -q 'run.sweep-logic-bug' '$W/out'"
pt run --quiet -- python3 "$T/mgpu-abort.py"
check "an abort after the Mosaic GPU runtime's launch error" sh -c "grep -q '^capacity/launch' '$W/out' && grep -q 'run.mgpu-runtime-abort-launch' '$W/out'"
pt run --quiet --sweep-precision --json -- python3 "$T/precision.py"
check "--sweep-precision --json" json "d['run']['sweep']['conclusion'] == 'precision-policy' and [r['precision'] for r in d['run']['runs']] == ['default', 'high', 'highest'] and d['run']['sweep']['rules_out']['subkind'] == 'logic'"

# an exit 0 with a small printed error is a pass (issue 23): the script
# checks itself and prints "ok"; only default precision fails
cat >"$T/selfcheck.py" <<'EOF'
import os, sys
level = os.environ.get("JAX_DEFAULT_MATMUL_PRECISION", "")
print("out = pl.pallas_call(matmul_kernel, grid=(4, 4))(a, b)  # precision " + level)
err = {"high": "1.2e-06", "highest": "1.2e-06"}.get(level, "3.1e-02")
print("max abs err = %s: %s" % (err, "ok" if float(err) < 1e-5 else "too large"))
sys.exit(0 if float(err) < 1e-5 else 1)
EOF
pt run --sweep-precision --quiet --json -- python3 "$T/selfcheck.py"
check "the sweep: an exit 0 with a small printed error is right" json \
	"[r['result'] for r in d['run']['runs']] == ['fail', 'pass', 'pass'] and d['run']['runs'][1]['numbers']['max_abs'] == '1.2e-06'"
check "... so the sweep finds the precision policy and rules out logic" json \
	"d['run']['sweep']['conclusion'] == 'precision-policy' and d['run']['sweep']['rules_out']['subkind'] == 'logic' and d['class'] == 'numerics' and d['subkind'] == 'precision'"
JAX_DEFAULT_MATMUL_PRECISION=high pt run --quiet -- python3 "$T/selfcheck.py"
check "a single run that exits 0 with a small printed error passes" sh -c "test $rc = 0 && grep -q '^run: exit 0, and the error it printed (max_abs 1.2e-06) is within the bounds of a pass' '$W/out'"
cat >"$T/printonly.py" <<'EOF'
print("out = pl.pallas_call(matmul_kernel, grid=(4, 4))(a, b)")
print("max abs err = 0.4375")
EOF
pt run --quiet -- python3 "$T/printonly.py"
check "an exit 0 with a large printed error is still a failure" sh -c "test $rc = 1 && grep -q '^numerics/mismatch' '$W/out'"

# what the rules read is facts, NAME=VALUE tokens, never a sentence
: >"$T/factlines"
for c in "--timeout 1 -- sh $T/hang.sh" "-- python3 $T/segv.py" "-- sh -c 'exit 139'" \
	"--repeat 2 -- sh $T/steady.sh" "--sweep-precision -- python3 $T/precision.py" \
	"--sweep-precision -- python3 $T/logic.py"; do
	eval "pt run --quiet --json $c"
	python3 -c "
import json
d = json.load(open('$W/out'))
for e in d['evidence']:
    if e['text'].startswith('pt-run:'):
        print(e['text'])" >>"$T/factlines"
done
check "fact lines came from five kinds of run" test "$(sort -u "$T/factlines" | wc -l)" -ge 5
check "every pt-run line is NAME=VALUE tokens" python3 -c "
import re, sys
lines = open('$T/factlines').read().splitlines()
bad = [l for l in lines if not re.fullmatch(r'pt-run:( [a-z_]+=[A-Za-z0-9_.,+:/-]+)+', l)]
sys.exit('not facts: %r' % bad if bad or not lines else 0)"
check "the JSON gives the sweep's facts as an object" json \
	"d['run']['sweep']['facts']['sweep'] == 'logic-bug' and d['run']['sweep']['facts']['highest'] == 'wrong'"

# rewording every sentence of rules/run.yaml changes no verdict
cp -R "$RULES" "$T/reworded"
python3 - "$T/reworded/run.yaml" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
n = 0
def reword(m):
    global n
    n += 1
    body = m.group(2).replace("wrong", "incorrect").replace("right", "correct")
    return "%s'REWORDED %d: %s'" % (m.group(1), n, body)
s = re.sub(r"^(\s*(?:message|text|reason): )'((?:[^']|'')*)'$", reword, s, flags=re.M)
s = re.sub(r"^(\s*explain: \|\n)", r"\1      REWORDED.\n", s, flags=re.M)
open(p, "w").write(s)
assert n >= 25, n
PY
# and no pattern or example of run.yaml holds a phrase after "pt-run:": the
# rules read tokens (a sentence there would be a contract with the C code)
check "run.yaml matches pt-run facts, not sentences" python3 - "$RULES/run.yaml" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]) if "pt-run:" in l and not l.lstrip().startswith("#")]
phrase = re.compile(r"\b[a-z]+ [a-z]+ [a-z]+\b")
bad = [l.strip() for l in lines if phrase.search(l.split("pt-run:", 1)[1].split("'")[0])]
sys.exit("phrases: %r" % bad[:3] if bad or len(lines) < 10 else 0)
PY
# class, subkind, rule, sweep or repeat kind, what it rules out, passed
verdicts() {
	r=$1
	shift
	timeout -k 5 120 $PTRUN --rules "$r" run --quiet --json --no-record "$@" 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin); r = d['run']
s, p = r['sweep'] or {}, r['repeat'] or {}
ro = s.get('rules_out') or {}
print(d['class'], d['subkind'], d['rule'], s.get('conclusion'), p.get('kind'), ro.get('class'), ro.get('subkind'), r['passed'])"
}
same=1
for c in "--sweep-precision -- python3 $T/precision.py" "--sweep-precision -- python3 $T/logic.py" \
	"--sweep-precision -- python3 $T/tf32.py" "--sweep-precision -- python3 $T/mgpu-wrong.py" \
	"--sweep-precision -- python3 $T/selfcheck.py" "--repeat 2 -- sh $T/steady.sh" \
	"--repeat 2 -- sh $T/flaky.sh" "--timeout 1 -- sh $T/hang.sh" "-- python3 $T/segv.py" \
	"-- python3 $T/mgpu-abort.py"; do
	rm -f "$COUNTER"
	eval "a=\$(verdicts '$RULES' $c)"
	rm -f "$COUNTER"
	eval "b=\$(verdicts '$T/reworded' $c)"
	[ -n "$a" ] && [ "$a" = "$b" ] || { same=0; echo "    $c: '$a' became '$b'"; }
done
check "rewording every sentence of run.yaml changes no verdict" test "$same" = 1
timeout -k 5 120 $PTRUN --rules "$T/reworded" run --quiet --sweep-precision -- python3 "$T/logic.py" >"$W/out" 2>&1
check "... and the reworded sentences are what run prints" sh -c \
	"grep -q '^REWORDED [0-9]*: logic bug: incorrect at every precision' '$W/out' && grep -q '^  REWORDED [0-9]*: the output is incorrect at every' '$W/out'"

# no --timeout: the default one, said in the JSON and the help
pt run --quiet --json -- true
check "without --timeout the default of 1800 s applies" json "d['run']['timeout'] == 1800 and d['run']['timeout_from'] == 'default'"
pt run --quiet --json --timeout 0 -- true
check "--timeout 0 waits for ever" json "d['run']['timeout'] is None and d['run']['timeout_from'] is None"
pt run --help
check "the help gives the default timeout" has "default 1800"

# the hints name the command run ran, not python k.py; run read stderr
# itself, so nothing advises capturing it
pt run --quiet -- false
check "run -- false does not advise capturing stderr" lacks "$W/out" "stderr included"
check "... its next step reruns the same command through run" has "JAX_TRACEBACK_FILTERING=off pallas-triage run -- false"
check "... and names no python k.py" lacks "$W/out" "k.py"
pt run --quiet --json --timeout 1 -- sh "$T/hang.sh"
check "a rung's change runs the user's command" json \
	"any(('pallas-triage run --timeout 600 -- sh ' + '$T/hang.sh') in r['change'] for r in d['ladder'])"
check "... and no rung or flag says python your_test.py" json \
	"not any('your_test.py' in r['change'] or any('your_test.py' in f for f in r['flags']) for r in d['ladder'])"
pt run --quiet --json -- sh -c 'cat "$1"; exit 1' sh "$SRC/tests/triage/layout-e2002-bf16.log"
check "a debug line runs the command, quoted for a shell" json \
	"any(f == 'LIBTPU_INIT_ARGS=\"--xla_mosaic_dump_to=/tmp/mosaic\" sh -c \'cat \"\$1\"; exit 1\' sh $SRC/tests/triage/layout-e2002-bf16.log' for r in d['ladder'] for f in r['flags'])"

# ---------------------------------------------------------------- Ctrl-C
cat >"$T/ctrlc.py" <<'EOF'
import os, signal, subprocess, sys
# a background job of a script has SIGINT ignored; a terminal user's does not
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
p.stdout.readline()           # the command has started
p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=30)
sys.stdout.write("rc=%d\n" % p.returncode)
sys.stdout.write(err.decode())
sys.stdout.write(out.decode())
EOF

# ---------------------------------------------------------------- sessions
S=$T/sess
mkdir -p "$S"
cd "$S" || exit 1
export PALLAS_TRIAGE_NOW=2025-01-02T03:04:05Z
sh "$T/vmem.sh" >first.log 2>&1
$PT --rules "$RULES" session start first.log >/dev/null 2>&1
attempts() { python3 -c "import json; print(len(json.load(open('.pallas-triage/session.json'))['attempts']))"; }
last() { python3 -c "import json; a=json.load(open('.pallas-triage/session.json'))['attempts'][-1]; print(a$1)"; }
check "a session is in progress" test "$(attempts)" = 0

cp .pallas-triage/session.json "$T/before.json"
pt run -- "$T/does-not-exist"
check "a command that cannot start records nothing" sh -c "test $rc = 4 && cmp -s .pallas-triage/session.json '$T/before.json'"

timeout -k 5 60 python3 "$T/ctrlc.py" $PT --rules "$RULES" run -- sh "$T/hang.sh" >"$W/out" 2>&1
check "Ctrl-C stops the command with status 130" has "^rc=130$"
check "Ctrl-C says nothing was recorded" has "nothing was recorded and the session is as it was"
check "Ctrl-C diagnoses what the command printed" sh -c "grep -q '^run: interrupted by SIGINT after [0-9]* lines* of output' '$W/out' && grep -q '^unknown' '$W/out'"
check "Ctrl-C records no attempt" test "$(attempts)" = 0
check "Ctrl-C leaves no process behind" gone "$T/hang.pid"

flock .pallas-triage/lock $PT --rules "$RULES" run -- true >"$W/out" 2>"$W/err"
check "a locked session fails before running (exit 4)" sh -c "test $? = 4 && grep -q 'nothing was run' '$W/err'"

cp .pallas-triage/session.json "$T/before.json"
pt run -- sh "$T/vmem.sh"
check "rerunning the unchanged command right after session start records nothing" sh -c \
	"test \"\$(python3 -c \"import json; print(len(json.load(open('.pallas-triage/session.json'))['attempts']))\")\" = 0 &&
	 cmp -s .pallas-triage/session.json '$T/before.json'"
check "... and says why, and how to record it" has "^session: the same failure as before and no change named: nothing recorded"
check "... and saves no log" sh -c "! ls .pallas-triage/logs/attempt-1-*.log 2>/dev/null"

pt run --change "raised vmem_limit_bytes to 24M" -- sh "$T/vmem.sh"
check "the same failure is recorded as same" sh -c "test \"\$(python3 -c \"import json; print(json.load(open('.pallas-triage/session.json'))['attempts'][-1]['result'])\")\" = same"
check "... with the change the user named" sh -c "test \"\$(python3 -c \"import json; print(json.load(open('.pallas-triage/session.json'))['attempts'][-1]['change'])\")\" = 'raised vmem_limit_bytes to 24M'"
check "the attempt is on the next rung" has "^session: recorded attempt 1 of 10: capacity\.[a-z-]*: same$"
check "the attempt notes the run" sh -c "grep -q 'pallas-triage run: exit 1' .pallas-triage/session.json"
check "the run's output is saved as the attempt's log" sh -c \
	"log=\$(python3 -c \"import json; print(json.load(open('.pallas-triage/session.json'))['attempts'][-1]['log'])\") &&
	 case \$log in .pallas-triage/logs/attempt-1-*.log) ;; *) exit 1 ;; esac &&
	 grep -q 'Ran out of memory in memory space vmem' \$log"

pt run --timeout 1 -- sh "$T/hang.sh"
check "a hang after a VMEM error is new" has "^session: recorded attempt 2 of 10: .*: new$"
check "... recorded without claiming the rung's change was made" sh -c "test \"\$(python3 -c \"import json; print(json.load(open('.pallas-triage/session.json'))['attempts'][-1]['change'])\")\" = 'not stated (the run had no --change)'"
check "the class transition is shown" has "capacity/scoped-vmem -> synchronization/hang"

check "the hang's output is attempt 2's log, ending with the hang" sh -c \
	"tail -n 1 .pallas-triage/logs/attempt-2-*.log | grep -qx 'pt-run: ending=timeout timeout_s=1 timeout_from=option stopped_by=SIGTERM'"

pt run --no-record -- sh "$T/vmem.sh"
check "--no-record records nothing" test "$(attempts)" = 2
check "--no-record saves no log" sh -c "! ls .pallas-triage/logs/attempt-3-*.log 2>/dev/null"

pt run --sweep-precision --quiet -- python3 "$T/precision.py"
check "the sweep records no attempt" test "$(attempts)" = 2
check "the sweep saves no log" sh -c "! ls .pallas-triage/logs/attempt-3-*.log 2>/dev/null"
check "the sweep rules out a logic bug in the session" python3 -c "
import json
r = json.load(open('.pallas-triage/session.json'))['ruled_out']
assert any(x['class'] == 'numerics' and x['subkind'] == 'logic' and 'HIGHEST' in x['reason'] for x in r), r"
check "the sweep says what it ruled out" has "^session: ruled out numerics/logic: precision sweep"

# the sweep of a self-checking script, recorded in a session of its own
mkdir -p "$T/sess2" && cd "$T/sess2" || exit 1
JAX_DEFAULT_MATMUL_PRECISION=default python3 "$T/selfcheck.py" >first.log 2>&1
$PT --rules "$RULES" session start first.log >/dev/null 2>&1
pt run --sweep-precision --quiet -- python3 "$T/selfcheck.py"
check "a recorded sweep of exit-0 passes rules out logic, not precision" python3 -c "
import json
r = json.load(open('.pallas-triage/session.json'))['ruled_out']
assert [(x['class'], x['subkind']) for x in r] == [('numerics', 'logic')], r"
cd "$S" || exit 1

pt run --rung no.such-rung -- true
check "an unknown --rung is a usage error before running" test "$rc" = 2

pt run --json -- true
check "a passing run is recorded as fixed" json "d['run']['session']['attempt']['result'] == 'fixed' and d['run']['session']['status'] == 'resolved'"
check "the session is resolved" sh -c "grep -q '\"status\": \"resolved\"' .pallas-triage/session.json"
pt run -- sh "$T/vmem.sh"
check "a resolved session records nothing more" test "$(attempts)" = 3

finish
