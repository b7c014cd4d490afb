#!/bin/sh
# A session across the reruns of one kernel, as a kernel author lives it
# (issue 20): five logs of tests/fixtures/trajectory (a VMEM OOM, the same
# OOM after raising the limit, a block-shape error, a Mosaic layout error,
# a bare assert_allclose mismatch), recorded without a terminal with
# `session start` and `attempt --result ... --log`, with the shipped rules.
# Also: what `attempt --log` takes, rungs that fit, the report of the
# current failure, fingerprints that tell kernels apart, the status lines,
# and a session file of schema 1. The same trajectory through a pipe in a
# real terminal is tests/pty/trajectory_tmux.sh.
. "$(dirname "$0")/../lib.sh"
export PALLAS_TRIAGE_RULES="$SRC/rules" PALLAS_TRIAGE_NOW=2026-01-02T03:04:05Z
FX="$SRC/tests/fixtures/trajectory"
# py FILE EXPR: EXPR over the JSON document in FILE (as d) is true
py() { python3 -c "import json,re,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
new_dir() { rm -rf "$T/$1" && mkdir -p "$T/$1" && cp "$FX"/*.log "$T/$1/" && cd "$T/$1" || exit 1; }

# --- 1. the five logs, without a terminal ------------------------------------
new_dir five
"$PT" session start --json 1-vmem-oom.log >s1.json 2>/dev/null
check "start: the OOM is capacity/scoped-vmem" py s1.json "d['class'] == 'capacity' and d['subkind'] == 'scoped-vmem'"
check "start: the session asserts the kernel context its first log showed" \
	py s1.json "any(a['context'] == 'pallas-kernel' and 'first log' in a['why'] for a in d['asserted'])"
check "start: the first rung raises the limit to 31 MiB" py s1.json "'vmem_limit_bytes=32505856' in d['next']['change']"

"$PT" attempt --json --result same --log 2-vmem-oom-raised.log >s2.json 2>/dev/null
check "same + --log: recorded (it was refused before)" py s2.json "d['attempts_used'] == 1 and d['last_attempt']['result'] == 'same'"
# 36.10M plus headroom: 46 MiB, above the limit now in force (34M) and the use
check "same + --log: the next change is filled from the latest log, above its 36.10M" \
	py s2.json "'vmem_limit_bytes=48234496' in d['next']['change'] and 48234496 > 36.10 * 2**20"
check "same + --log: the limit rung is offered again (its premise still holds)" \
	py s2.json "d['next']['rung'] == 'capacity.raise-scoped-limit'"
check "same + --log: the attempt keeps the log's key line" py s2.json "'36.10M of 34.00M' in d['last_attempt']['key_line']"

"$PT" attempt --json --result new --log 3-block-shape.log >s3.json 2>/dev/null
check "block-shape log: the session moves to layout" py s3.json "d['class'] == 'layout' and d['subkind'] == 'block-shape'"
check "block-shape log: the next rung is on the layout ladder, filled from it" \
	py s3.json "d['next']['rung'] == 'layout.round-block-up' and '(1, 1024, 128)' in d['next']['change']"
check "block-shape log: 'class changed'" py s3.json "any(m.startswith('class changed: capacity/scoped-vmem -> layout/block-shape') for m in d['messages'])"

"$PT" attempt --json --result new --log 4-mosaic-layout.log >s4.json 2>/dev/null
check "Mosaic layout log: layout/relayout" py s4.json "d['class'] == 'layout' and d['subkind'] == 'relayout'"
check "Mosaic layout log: 'subkind changed', not 'class changed'" \
	py s4.json "any(m.startswith('subkind changed: layout/block-shape -> layout/relayout') for m in d['messages']) and not any(m.startswith('class changed') for m in d['messages'])"

"$PT" attempt --json --result new --log 5-mismatch.log --change "upgraded to jax 0.8.2" >s5.json 2>/dev/null
check "the bare mismatch is numerics by the session's kernel context" \
	py s5.json "d['class'] == 'numerics' and d['current_failure']['class'] == 'numerics'"
check "... and the walk goes on, on the numerics ladder" \
	py s5.json "d['status'] == 'in-progress' and 3 <= d['attempts_used'] <= 5 and d['next'] and d['next']['rung'].startswith('numerics.')"
check "... and asks the interpret-mode question again" py s5.json "d['interpret'] == 'unasked'"
(cd "$T" && "$PT" --json "$FX/5-mismatch.log" >alone.json 2>/dev/null)
check "the same mismatch alone (no session) is unknown: the context came from the session" \
	py "$T/alone.json" "d['class'] == 'unknown'"
"$PT" --json 5-mismatch.log >in.json 2>/dev/null
check "triage in the session shows the kernel context as asserted" \
	py in.json "d['class'] == 'numerics' and any(c['id'] == 'pallas-kernel' and c['held'] and c['asserted'] and 'first log' in c['asserted'] for c in d['contexts'])"
"$PT" --no-input 5-mismatch.log >in.txt 2>&1
check "... and says so under contexts" grep -q "^contexts     pallas-kernel (asserted: the session's first log, line " in.txt

"$PT" report --format json >r.json 2>/dev/null
check "report: headed by the current failure" py r.json "d['title'].startswith('numerics failure') and d['current_failure']['class'] == 'numerics/precision'"
check "report: with the latest log's key line" py r.json "d['current_failure']['key_line'].startswith('Mismatched elements: 2871 / 4194304') and re.match(r'\.pallas-triage/logs/attempt-4-[0-9a-f]{12}\.log$', d['current_failure']['log'])"
check "report: the trajectory lists each log with its class and key line" \
	py r.json "[l['class'] for l in d['logs']] == ['capacity/scoped-vmem', 'capacity/scoped-vmem', 'layout/block-shape', 'layout/relayout', 'numerics/precision'] and all(l['key_line'] for l in d['logs'])"
check "report: the environment is the latest log's (jax 0.7.0)" \
	py r.json "d['environment']['jax_version'] == '0.7.0' and d['environment_from'] == 'the log of attempt 4'"
check "report: a TPU session lists no GPU-only debug flag" \
	py r.json "d['debug_flags'] and not any('MOSAIC_GPU' in f['snippet'] or 'gpu' in f['id'] for f in d['debug_flags'])"
"$PT" report >r.md 2>/dev/null
check "report (md): the current failure comes first" sh -c \
	"a=\$(grep -n '^## Current failure' r.md | cut -d: -f1) && b=\$(grep -n '^## First diagnosis' r.md | cut -d: -f1) && [ \"\$a\" -lt \"\$b\" ]"

# run: the diagnosis and "next" give the same, latest number
new_dir run
"$PT" session start 1-vmem-oom.log >/dev/null 2>&1
"$PT" run --change "vmem_limit_bytes=34 MiB" -- cat 2-vmem-oom-raised.log >run.out 2>&1
check "run: recorded as the same error" py .pallas-triage/session.json "d['attempts'][0]['result'] == 'same'"
check "run: 'next' is filled from the run's own log (46 MiB), not the first log's (31 MiB)" sh -c \
	"sed -n '/^next:/,\$p' run.out | grep -q 'vmem_limit_bytes=48234496' && ! grep -q 'vmem_limit_bytes=32505856' run.out"

# --- 2. attempt --log: every result, stdin, a log it has ----------------------
new_dir logs
"$PT" session start 1-vmem-oom.log >/dev/null 2>&1
"$PT" attempt --result same --log 2-vmem-oom-raised.log >/dev/null 2>&1
"$PT" attempt --result same --log 2-vmem-oom-raised.log >again.out 2>&1
rc=$?
check "a log the session has is not recorded twice" sh -c "[ $rc = 0 ] && grep -q 'already in the session (the log of attempt 1)' again.out"
check "... the attempt count stays 1" py .pallas-triage/session.json "len(d['attempts']) == 1"
"$PT" attempt --result same --log 1-vmem-oom.log >again.out 2>&1
check "... nor its first log" sh -c "grep -q 'already in the session (its first log)' again.out && python3 -c \"import json; assert len(json.load(open('.pallas-triage/session.json'))['attempts']) == 1\""
"$PT" attempt --result new --log - <3-block-shape.log >/dev/null 2>&1
check "--log -: the log from stdin is recorded" py .pallas-triage/session.json "d['attempts'][1]['result'] == 'new' and d['current']['class'] == 'layout'"
check "--log -: a copy is kept in the session, the attempt names it" sh -c \
	"f=\$(python3 -c \"import json; print(json.load(open('.pallas-triage/session.json'))['attempts'][1]['log'])\") &&
	 case \"\$f\" in .pallas-triage/logs/attempt-2-*.log) cmp -s \"\$f\" 3-block-shape.log ;; *) false ;; esac"
"$PT" attempt --result fixed --log 4-mosaic-layout.log >fx.out 2>&1
rc=$?
check "fixed with a log that shows a failure is refused (exit 2)" sh -c "[ $rc = 2 ] && grep -q 'so the failure is not fixed' fx.out"
check "... and nothing is recorded" py .pallas-triage/session.json "len(d['attempts']) == 2 and d['status'] == 'in-progress'"
check "... nor is a copy of its log left in the session" sh -c '! ls .pallas-triage/logs | grep -q "^attempt-3-" && ls .pallas-triage/logs | grep -q "^attempt-2-"'
"$PT" attempt --result same --log 4-mosaic-layout.log >sn.out 2>&1
check "same with a log of another failure counts as new, and says so" sh -c \
	"grep -q 'the log shows another failure (layout/relayout), so it counts as a different error' sn.out &&
	 python3 -c \"import json; a=json.load(open('.pallas-triage/session.json'))['attempts'][2]; assert a['result'] == 'new', a\""
printf '12 passed in 3.1s\n' >pass.log
"$PT" attempt --result fixed --log pass.log >/dev/null 2>&1
check "fixed with a log that shows none: resolved, the log recorded" \
	py .pallas-triage/session.json "d['status'] == 'resolved' and open(d['attempts'][3]['log']).read() == '12 passed in 3.1s\\n'"

# --- 3. a log that names no kernel failure: off the ladder, not an escalation --
new_dir unnamed
"$PT" session start 3-block-shape.log >/dev/null 2>&1
printf 'Traceback (most recent call last):\n  File "/home/ana/kern/flash.py", line 3, in <module>\n    import flashlib\nModuleNotFoundError: No module named %s\n' "'flashlib'" >odd.log
"$PT" attempt --json --result new --log odd.log >u.json 2>/dev/null
rc=$?
check "an unnamed failure does not stop the session (exit 0, in progress)" \
	sh -c "[ $rc = 0 ]" && check "... in progress, no report written" py u.json "d['status'] == 'in-progress' and d['report_md'] is None"
check "... it stands on no ladder and says what to capture next" \
	py u.json "d['class'] == 'unknown' and d['next'] is None and any('2>&1' in n for n in d['next_steps'])"
"$PT" attempt --json --result new --log 4-mosaic-layout.log >u2.json 2>/dev/null
check "the next log that names a failure is recorded, off the ladder, and the walk goes on" \
	py u2.json "d['class'] == 'layout' and d['last_attempt']['rung'] == 'custom' and d['next'] is not None"

# ... and in the loop: the walk says what to capture and waits, exit 0
new_dir unnamed-loop
"$PT" session start 3-block-shape.log >/dev/null 2>&1
printf 'Traceback (most recent call last):\n  File "/home/ana/kern/flash.py", line 3, in <module>\n    import flashlib\nModuleNotFoundError: No module named %s\n' "'flashlib'" >odd.log
printf 'different\nupgraded flashlib\n' >a1
cat odd.log | "$PT" -q --answers a1 >loop1.out 2>&1
rc=$?
check "loop: an unnamed failure ends the walk saved and waiting (exit 0)" sh -c \
	"[ $rc = 0 ] && grep -q 'waits for the next run' loop1.out && grep -q 'capture the whole output' loop1.out"
check "loop: ... without an escalation" sh -c "! grep -q 'escalate' loop1.out && test ! -e pallas-triage-report.md"
printf '\n' >a2
cat 4-mosaic-layout.log | "$PT" -q --answers a2 >loop2.out 2>&1
check "loop: the next run's log is the result, off the ladder, and the walk is back on a ladder" sh -c \
	"grep -q 'off the ladder: no rung was shown' loop2.out && grep -q 'class changed: unknown -> layout/relayout' loop2.out &&
	 python3 -c \"import json; d=json.load(open('.pallas-triage/session.json')); assert d['attempts'][1]['rung'] == 'custom' and d['status'] == 'in-progress'\""

# --- 4. rungs that fit ---------------------------------------------------------
new_dir fit
cp "$SRC/tests/triage/sync-race.log" same-core-race.log
"$PT" session start --json same-core-race.log >race.json 2>/dev/null
check "a same-core race: no barrier rung in the plan" py race.json "d['plan'] and 'sync.barrier-at-start' not in d['plan']"
cp "$SRC/tests/fixtures/walk-logs/unsupported.log" erf.log
"$PT" session start --json erf.log >erf.json 2>/dev/null
check "erf_inv not lowered: no 32-bit cast in the plan" py erf.json "d['plan'] and 'unsupported.cast-to-32bit' not in d['plan']"
"$PT" explain sync.pair-starts-and-waits >ex.out 2>&1
check "explain lists every subkind a rung is for" grep -q 'only for: semaphore, dma, race, hang, halt, remote-dma' ex.out

# --- 5. two sessions' reports are both kept ------------------------------------
new_dir reports
"$PT" session start 1-vmem-oom.log >/dev/null 2>&1
for i in 1 2 3 4 5 6 7 8 9 10; do "$PT" attempt --rung custom --change "try $i" --result same >/dev/null 2>&1; done
check "the first session stopped at attempt 10 and wrote its report" test -f pallas-triage-report.md
cp pallas-triage-report.md first.md
"$PT" session start 3-block-shape.log >/dev/null 2>&1
for i in 1 2 3 4 5 6 7 8 9 10; do "$PT" attempt --rung custom --change "try $i" --result same >/dev/null 2>&1; done
check "the second session's report does not replace the first's" cmp -s first.md pallas-triage-report.md
check "... it is written beside it, numbered" sh -c "test -f pallas-triage-report-2.md && grep -q 'layout failure' pallas-triage-report-2.md && test -f pallas-triage-report-2.json"
check "... and the session says where" py .pallas-triage/session.json "d['report']['md'] == 'pallas-triage-report-2.md'"
"$PT" report --format json >/dev/null 2>&1
check "rewriting a session's own report keeps to its own name" cmp -s first.md pallas-triage-report.md

# --- 6. fingerprints tell kernels apart ----------------------------------------
mkdir -p "$T/scan" && cd "$T/scan" || exit 1
mismatch() { # TEST FILE DTYPE
	printf 'FAILED tests/%s::%s - AssertionError\nTraceback (most recent call last):\n  File "/home/ana/kern/%s", line 41, in %s\n    out = pl.pallas_call(kernel, grid=(4, 4))(x, y)\nAssertionError:\nNot equal to tolerance rtol=0.01, atol=0.01\n\nMismatched elements: 37 / 262144 (0.0141%%)\n x: array([[ 1.5, -3.4]], dtype=%s)\n' \
		"$2" "$1" "$2" "$1" "$3"
}
mismatch test_matmul matmul_test.py bfloat16 >mm.log
mismatch test_flash flash_test.py float32 >fa.log
mismatch test_flash flash_test.py float32 | sed 's/Mismatched elements: 37/Mismatched elements: 12/' >fa-again.log
"$PT" scan --json . >"$T/scan.json" 2>/dev/null
check "scan: two kernels' mismatches are two groups" py "$T/scan.json" "d['classes']['numerics'] == 3 and len(d['groups']) == 2"
check "scan: the same kernel's mismatch with fewer wrong elements is the same group" \
	py "$T/scan.json" "sorted(g['logs'] for g in d['groups']) == [1, 2]"
check "the fingerprint text says what told them apart" py "$T/scan.json" "any('test_id=tests/matmul_test.py::test_matmul' in g['fingerprint_text'] for g in d['groups'])"

# --- 7. status lines -------------------------------------------------------------
new_dir status
cat >phys.log <<'EOF'
device kind: TPU v5 lite
Traceback (most recent call last):
  File "/home/ana/kern/mm.py", line 30, in <module>
    return pl.pallas_call(
jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 160.50M of 128.00M vmem. Exceeded vmem capacity by 32.50M.

  Largest program allocations in vmem:

  1. Size: 64.00M
     Shape: f32[4096,4096]{1,0:T(8,128)}
     Allocation type: scoped
EOF
"$PT" --json phys.log >phys.json 2>/dev/null
check "physical VMEM exceeded is its own subkind, not scoped-vmem" py phys.json "d['subkind'] == 'physical-vmem'"
check "... and not headed 'the scoped limit is 128.00M'" py phys.json "'scoped limit' not in d['message'] and 'the 128 MiB the chip has' in d['message']"
check "... the limit rungs are not offered" py phys.json "not any(r['id'].startswith('capacity.raise') for r in d['ladder'])"
check "'halve the largest block' is filled in from the listing's Shape" \
	py phys.json "any(r['id'] == 'capacity.halve-minor-block' and r['from_log'] and '(..., 4096, 2048)' in r['change'] for r in d['ladder'])"
cp "$SRC/tests/triage/sync-race.log" race.log
"$PT" session start race.log >/dev/null 2>&1
"$PT" attempt --result same >/dev/null 2>&1
"$PT" attempt --result same >/dev/null 2>&1
"$PT" attempt --result same >st.out 2>&1
check "three sames across families leave no family" sh -c "! grep -q 'leaving' st.out && grep -q 'recorded attempt 3' st.out"

# --- 8. a session file of schema 1 ---------------------------------------------
new_dir v1
mkdir -p .pallas-triage
# a schema-1 file: sources of rulings were told by their sentences
python3 - "$SRC/tests/report/json.in.session.json" <<'PY' >.pallas-triage/session.json
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1
d["status"] = "in-progress"
d["attempts"] = d["attempts"][:3]
d["report"] = None
d["ruled_out"] = [{"class": "numerics", "subkind": "logic",
                   "reason": "does not reproduce under interpret mode, so not a logic or indexing bug: those fail on CPU too"},
                  {"class": "layout", "subkind": None, "reason": "the sweep says so"}]
print(json.dumps(d, indent=2))
PY
"$PT" session status --json >v1.json 2>/dev/null
check "a schema-1 session loads" py v1.json "d['status'] == 'in-progress' and len(d['ruled_out']) == 2"
check "... its interpret ruling is read as one, the other as a run's" \
	py v1.json "[r['source'] for r in d['ruled_out']] == ['interpret', 'run']"
"$PT" attempt --result same --rung custom --change x >/dev/null 2>&1
check "... and is saved as schema 2" py .pallas-triage/session.json "d['schema_version'] == 2 and d['ruled_out'][0]['source'] == 'interpret'"
finish
