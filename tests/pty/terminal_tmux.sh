#!/bin/sh
# Terminal manners in a real pseudo-terminal (tmux), as a person meets them:
# the edit-and-rerun loop through a pipe, pagers that must never be asked
# anything, TERM=dumb, wrapping at 60 columns, a read-only directory, the
# session kept elsewhere, did-you-mean for a command and for an answer, a
# hang streaming through a pipe, and Ctrl-C in `run`.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.sh"

# in the case directory: what the session recorded
sjson() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 1. The edit-and-rerun loop: `python k.py 2>&1 | pallas-triage`, four times.
#    The first log starts the session; the next three are the same error, a
#    different one, and a run without a failure: one session, three attempts,
#    every piped log kept in the session directory.
start loop 'cat cap.log | "$PT"'
wait_for "attempt 1 of 10: capacity.raise-limit" && answer "result> " "q" &&
	wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "loop: the first piped log starts a session and the walk" [ "$rc_ok" = 1 ]
# the same error at a higher use: the limit rung comes back with the new number
start loop 'cat cap-again.log | "$PT"'
wait_for "this log is the result of attempt 1 (capacity.raise-limit): the same error as before" &&
	answer "changed> " "" && wait_for "attempt 2 of 10: capacity.raise-limit" &&
	wait_for "with N above 18.5M" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "loop: the same error again is attempt 1, recorded as same" [ "$rc_ok" = 1 ]
start loop 'cat layout.log | "$PT"'
wait_for "this log is the result of attempt 2 (capacity.raise-limit): a different error" &&
	answer "changed> " "weights in HBM" && wait_for "recorded attempt 2 of 10: new" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "loop: a different error is attempt 2, recorded as new" [ "$rc_ok" = 1 ]
start loop 'printf "12 passed in 3.1s\n" | "$PT"'
wait_for "it shows no Pallas failure" && answer "result> " "fixed" &&
	answer "changed> " "halved the block" && wait_for "the failure is fixed after 3 attempts" &&
	wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "loop: a run without a failure is attempt 3, fixed" [ "$rc_ok" = 1 ]
S="$T/loop/.pallas-triage/session.json"
check "loop: one session of three attempts: same, new, fixed" \
	test "$(sjson "$S" "' '.join(a['result'] for a in d['attempts'])")" = "same new fixed"
check "loop: nothing was archived" test ! -e "$T/loop/.pallas-triage/archive"
check "loop: the first piped log is kept" sh -c \
	"f=\$(python3 -c \"import json; print(json.load(open('$S'))['log_saved'])\") && cmp -s \"$T/loop/\$f\" '$T/loop/cap.log'"
check "loop: each attempt's piped log is kept" sh -c \
	"cd '$T/loop' && for n in 0 1 2; do f=\$(python3 -c \"import json; print(json.load(open('$S'))['attempts'][\$n]['log'])\") && test -s \"\$f\" || exit 1; done &&
	 cmp -s \"\$(python3 -c \"import json; print(json.load(open('$S'))['attempts'][1]['log'])\")\" layout.log"
check "loop: the changes were asked, not assumed" \
	test "$(sjson "$S" "d['attempts'][1]['change'] + '|' + d['attempts'][2]['change']")" = "weights in HBM|halved the block"

# 2. Pagers: `pallas-triage LOG | less` and `--json LOG | head` never ask,
#    and keep no session: nobody can answer through a pager.
start pager '"$PT" cap.log | less -FX'
wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "| less: the whole ladder, and the pager is not fought for" sh -c \
	"[ $rc_ok = 1 ] && tmux -L '$sock' capture-pane -p -J -t walk | grep -q '8/8 capacity.split-kernel'"
check "| less: nothing is asked" lacks_screen "result>"
check "| less: no session is started" test ! -e "$T/pager/.pallas-triage"
start pager-json '"$PT" --json cap.log | head -n 3'
wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "--json | head: the JSON, and no question" sh -c "[ $rc_ok = 1 ] && tmux -L '$sock' capture-pane -p -J -t walk | grep -q '\"schema_version\": 2'"
check "--json | head: nothing is asked" lacks_screen "result>"
check "--json | head: no session is started" test ! -e "$T/pager-json/.pallas-triage"

# 3. TERM=dumb: a terminal that understands no escape sequences gets none;
#    the same terminal called xterm gets colour (so the check can fail).
TENV="TERM=dumb" start dumb '"$PT" --no-input cap.log'
wait_for "EXIT=0" && tm capture-pane -e -p -t walk >"$T/dumb.screen" && rc_ok=1 || rc_ok=0
check "TERM=dumb: no colour" sh -c "[ $rc_ok = 1 ] && grep -q 'capacity/scoped-vmem' '$T/dumb.screen' && ! grep -q \"\$(printf '\\033')\\[\" '$T/dumb.screen'"
TENV="TERM=xterm-256color" start dumb '"$PT" --no-input cap.log'
wait_for "EXIT=0" && tm capture-pane -e -p -t walk >"$T/xterm.screen" && rc_ok=1 || rc_ok=0
check "TERM=xterm: colour (the TERM=dumb check can fail)" sh -c "[ $rc_ok = 1 ] && grep -q \"\$(printf '\\033')\\[\" '$T/xterm.screen'"

# 4. 60 columns: the text wraps at spaces, no word is cut (the words on the
#    screen are the words of the unwrapped output), and continuations line
#    up under their text. Code is never wrapped: a snippet longer than the
#    line overflows, the terminal soft-wraps it, and copying it (capture -J)
#    gives it back as one line.
WIDTH=60 start narrow '"$PT" --no-input cap.log'
# without -J a line the terminal had to wrap shows as two: the words are cut
# there; with -J it shows as one: too long
wait_for "EXIT=0" && tm capture-pane -p -S -300 -t walk | sed '/^EXIT=/,$d' >"$T/narrow.screen" &&
	tm capture-pane -p -J -S -300 -t walk | sed '/^EXIT=/,$d' >"$T/narrow.joined" && rc_ok=1 || rc_ok=0
(cd "$T/narrow" && "$PT" --no-input cap.log) >"$T/narrow.plain"
words() { tr -s ' \n' '\n\n' <"$1" | sed '/^$/d'; }
check "60 columns: the plain output has lines the terminal would have cut" \
	sh -c "[ $rc_ok = 1 ] && awk 'length > 60 { n++ } END { exit !(n > 0) }' '$T/narrow.plain'"
check "60 columns: only code needed the terminal to wrap it" \
	awk 'length > 60 && !/^       (change|debug): / { exit 1 }' "$T/narrow.joined"
words "$T/narrow.joined" >"$T/w1"
words "$T/narrow.plain" >"$T/w2"
check "60 columns: no word is cut (the same words, in order)" cmp -s "$T/w1" "$T/w2"
check "60 columns: a continuation lines up after its label" grep -q '^               with N above 20.0M' "$T/narrow.screen"
check "60 columns: a code span in prose is not cut" grep -qF '               `pltpu.CompilerParams(vmem_limit_bytes=N)`' "$T/narrow.screen"
WIDTH=60 start narrow 'cat cap.log | "$PT"'
answer "result> " "q" && wait_for "EXIT=0" && tm capture-pane -p -J -S -300 -t walk >"$T/walk.screen" && rc_ok=1 || rc_ok=0
# the program's own lines, echoed, are as it wrote them (tee does not wrap either)
check "60 columns: the walk wraps too" sh -c "[ $rc_ok = 1 ] && sed -n '/^capacity.scoped-vmem/,\$p' '$T/walk.screen' >'$T/walk.ours' &&
	grep -q '^  try it, then answer' '$T/walk.ours' && awk 'length > 60 && !/^ +(change|debug) +|^       (change|debug): |^ +(jax|pl|pltpu)\./ { exit 1 }' '$T/walk.ours'"

# 5. A read-only directory: the whole ladder, why no session was kept, no
#    question and no exit 4. Root writes anywhere, so as root the command
#    runs as nobody (setpriv), from copies nobody can read.
mkdir -p "$T/ro"
cp "$SRC"/tests/fixtures/walk-logs/cap.log "$T/ro/"
run_as=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir -p "$T/nobody"
	cp "$PT" "$T/nobody/pallas-triage"
	cp -R "$SRC/tests/fixtures/walk-rules" "$T/nobody/rules"
	chmod -R a+rX "$T/nobody" "$T/ro"
	chmod 755 "$T"
	run_as="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp PALLAS_TRIAGE_RULES=$T/nobody/rules $T/nobody/pallas-triage"
fi
chmod 555 "$T/ro"
if [ "$(id -u)" -ne 0 ] || [ -n "$run_as" ]; then
	start ro "${run_as:-\"\$PT\"} cap.log"
	wait_for "EXIT=" && rc_ok=1 || rc_ok=0
	check "read-only: the whole ladder" sh -c "[ $rc_ok = 1 ] && tmux -L '$sock' capture-pane -p -J -S -300 -t walk | grep -q '8/8 capacity.split-kernel'"
	check "read-only: it says why no session was kept" shows "no session was kept: '.pallas-triage' cannot be created (the directory is read-only)"
	check "read-only: and where to keep one" shows "--session-dir DIR or PALLAS_TRIAGE_SESSION_DIR"
	check "read-only: no question, exit 0 (not 4)" sh -c "tmux -L '$sock' capture-pane -p -J -t walk | grep -q '^EXIT=0' && ! tmux -L '$sock' capture-pane -p -J -S -300 -t walk | grep -q 'result>'"
	check "read-only: nothing was written" test ! -e "$T/ro/.pallas-triage"
else
	echo "skip read-only directory: root writes anywhere and setpriv is missing"
fi
chmod 755 "$T/ro"

# 6. The session kept elsewhere: --session-dir, then PALLAS_TRIAGE_SESSION_DIR
#    going on with the same session.
start sdir "cat cap.log | \"\$PT\" --session-dir $T/kept/s"
answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "--session-dir: the session is there" sh -c "[ $rc_ok = 1 ] && test -f '$T/kept/s/session.json'"
check "--session-dir: not in the working directory" test ! -e "$T/sdir/.pallas-triage"
TENV="NO_COLOR=1 PALLAS_TRIAGE_SESSION_DIR=$T/kept/s" start sdir 'cat cap-again.log | "$PT"'
wait_for "this log is the result of attempt 1" && answer "changed> " "" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "PALLAS_TRIAGE_SESSION_DIR: the same session goes on" sh -c \
	"[ $rc_ok = 1 ] && test \"\$(python3 -c \"import json; print(len(json.load(open('$T/kept/s/session.json'))['attempts']))\")\" = 1"
check "PALLAS_TRIAGE_SESSION_DIR: still nothing in the working directory" test ! -e "$T/sdir/.pallas-triage"

# 7. Did you mean: a mistyped command, and a mistyped answer at a prompt.
start typo '"$PT" sesion'
wait_for "EXIT=2" && rc_ok=1 || rc_ok=0
check "a mistyped command: did you mean" sh -c "[ $rc_ok = 1 ] && tmux -L '$sock' capture-pane -p -J -t walk | grep -qx \"did you mean 'pallas-triage session'?\""
start typo 'cat numerics.log | "$PT"'
answer "interpret> " "yse" && wait_for "did you mean 'yes'?" && answer "interpret> " "yes" 2 &&
	answer "result> " "fixd" && wait_for "did you mean 'fixed'?" && answer "result> " "q" 2 &&
	wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "a mistyped answer: did you mean, and asked again" [ "$rc_ok" = 1 ]

# 8. A hang through a pipe: the program's lines show while it runs; Ctrl-C
#    then diagnoses what came, below them.
start hang 'sh -c "echo step 1: compiled; echo step 2: waiting on the DMA semaphore; sleep 30" | "$PT"'
wait_for "step 2: waiting on the DMA semaphore" && sleep 0.5 && rc_ok=1 || rc_ok=0
check "hang: the program's lines show while it still runs" sh -c "[ $rc_ok = 1 ] && ! tmux -L '$sock' capture-pane -p -J -t walk | grep -q 'EXIT='"
tm send-keys -t walk C-c
wait_for "EXIT=" && rc_ok=1 || rc_ok=0
screen >"$T/hang.screen"
check "hang: Ctrl-C diagnoses what came, and says so" sh -c "[ $rc_ok = 1 ] && grep -q 'interrupted while the log was still coming' '$T/hang.screen'"
check "hang: the program's lines come before the diagnosis" sh -c \
	"a=\$(grep -n 'step 2: waiting on the DMA semaphore' '$T/hang.screen' | head -1 | cut -d: -f1) &&
	 b=\$(grep -n 'interrupted while the log' '$T/hang.screen' | head -1 | cut -d: -f1) && [ \"\$a\" -lt \"\$b\" ]"
check "hang: exit 130, no session" sh -c "grep -q '^EXIT=130' '$T/hang.screen' && test ! -e '$T/hang/.pallas-triage'"
# 9. `run` at a terminal: Ctrl-C stops the command and diagnoses what it
#    printed (here a VMEM OOM, then a wait that never ends), records nothing
#    and exits 130.
mkdir -p "$T/runint"
cat >"$T/runint/oom-then-hang.sh" <<'EOF'
echo 'jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem. tpu_custom_call pallas_call'
echo 'waiting for the next step'
sleep 60
EOF
start runint "\"\$PT\" --rules $SRC/rules run -- sh oom-then-hang.sh"
wait_for "waiting for the next step" && sleep 0.3 && tm send-keys -t walk C-c &&
	wait_for "EXIT=" && rc_ok=1 || rc_ok=0
screen >"$T/runint.screen"
check "run, Ctrl-C: what came is diagnosed" sh -c "[ $rc_ok = 1 ] && grep -q '^run: interrupted by SIGINT after 2 lines of output' '$T/runint.screen' &&
	grep -q '^capacity/' '$T/runint.screen'"
check "run, Ctrl-C: nothing recorded, and it says so" grep -q 'interrupted (SIGINT): the command was stopped; nothing was recorded' "$T/runint.screen"
check "run, Ctrl-C: exit 130" grep -q '^EXIT=130' "$T/runint.screen"
# 10. Forgetting 2>&1 at a terminal: the traceback shows on the screen, the
#     pipe brings nothing, and the tool says why and how to send both.
mkdir -p "$T/nopipe"
printf 'import sys\nsys.stderr.write("ValueError: bad block\\n")\nsys.exit(1)\n' >"$T/nopipe/k.py"
start nopipe 'python3 k.py | "$PT"'
wait_for "EXIT=" && rc_ok=1 || rc_ok=0
screen >"$T/nopipe.screen"
check "no 2>&1: the tool says Python writes tracebacks to stderr" sh -c "[ $rc_ok = 1 ] && grep -q 'Python writes tracebacks to standard error' '$T/nopipe.screen'"
check "no 2>&1: it shows the 2>&1 form, and exits 3" sh -c "grep -q '^  python3 your_script.py 2>&1 | pallas-triage' '$T/nopipe.screen' && grep -q '^EXIT=3' '$T/nopipe.screen'"
# 11. Code pastes: at 60 columns every snippet the diagnosis prints (a rung's
#     change, a debug line) is on the screen whole, as --json gives it, a
#     snippet of several lines as those lines, and each one parses as Python
#     (ast.parse) or as a shell line (sh -n). The capture joins what the
#     terminal soft-wrapped (-J), as copying from a terminal does.
snip_ok=1
nsnip=0
for log in tests/triage/numerics-allclose-pytest.log tests/triage/layout-e2002-bf16.log \
	tests/triage/capacity-scoped.log tests/triage/sync-race.log \
	tests/accuracy/logs/k1-pallas-softmax-mismatch.log tests/accuracy/logs/g1-mgpu-wgmma-swizzle.log; do
	name=$(basename "$log" .log)
	mkdir -p "$T/snip-$name"
	cp "$SRC/$log" "$T/snip-$name/in.log"
	WIDTH=60 start "snip-$name" "\"\$PT\" --rules $SRC/rules --no-input --color never in.log"
	wait_for "EXIT=" >/dev/null || { snip_ok=0; continue; }
	tm capture-pane -p -J -S -300 -t walk | sed '/^EXIT=/,$d' >"$T/snip-$name.screen"
	(cd "$T/snip-$name" && "$PT" --rules "$SRC/rules" --json in.log) >"$T/snip-$name.json" 2>/dev/null
	n=$(python3 - "$T/snip-$name.json" "$T/snip-$name.screen" <<'PY'
import ast, json, re, subprocess, sys
d = json.load(open(sys.argv[1]))
screen = open(sys.argv[2]).read().split("\n")
def prose(t):
    a = t.find("`")
    return a >= 0 and t.find("`", a + 1) > 0
snips = [r["change"] for r in d.get("ladder", []) if r["change"] and not prose(r["change"])]
snips += [f for r in d.get("ladder", []) for f in r["flags"]]
label = re.compile(r"^ +(?:change|debug): +(.*?)(?: +\(from your log\))?$")
found = 0
for s in dict.fromkeys(snips):
    lines = s.split("\n")
    if len(lines) == 1:
        ok = any((m := label.match(l)) and m.group(1) == s for l in screen)
    else:
        ok = False
        for i, l in enumerate(screen):
            if re.match(r"^ +change:(?: +\(from your log\))?$", l):
                block = screen[i + 1:i + 1 + len(lines)]
                ok = ok or [b[9:] for b in block] == lines and all(b.startswith(" " * 9) for b in block)
    if not ok:
        print("not on the screen whole: %r" % s, file=sys.stderr)
        continue
    try:
        ast.parse(s)
    except SyntaxError:
        if subprocess.run(["sh", "-n", "-c", s]).returncode != 0:
            print("neither Python nor sh: %r" % s, file=sys.stderr)
            continue
    found += 1
print(found if found == len(dict.fromkeys(snips)) else -1)
PY
)
	[ "${n:--1}" -gt 0 ] || { snip_ok=0; echo "    $name: a snippet does not paste"; }
	nsnip=$((nsnip + ${n#-}))
done
check "60 columns: every snippet pastes as Python or sh ($nsnip snippets)" sh -c "[ $snip_ok = 1 ] && [ $nsnip -ge 20 ]"
check "60 columns: a snippet of several lines is printed as lines" sh -c \
	"grep -qx '         def _init():' '$T/snip-k1-pallas-softmax-mismatch.screen' &&
	 grep -qx '             with jax.default_matmul_precision(p):' '$T/snip-numerics-allclose-pytest.screen'"
check "60 columns: a shell line is not cut at its spaces" grep -qF \
	'       debug:  LIBTPU_INIT_ARGS="--xla_mosaic_dump_to=/tmp/mosaic" python your_test.py' "$T/snip-layout-e2002-bf16.screen"
finish
