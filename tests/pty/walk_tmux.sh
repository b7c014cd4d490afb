#!/bin/sh
# The walk in a real pseudo-terminal (tmux): the log arrives on stdin through a
# pipe, the answers are typed on the terminal with send-keys, and the screen is
# read back with capture-pane. Also: Ctrl-C at a prompt saves the session and
# exits 130, and a terminal that goes away (the window is killed) leaves a
# session that loads with every answer given so far.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.sh"

session_log() { (cd "$dir" && "$PT" session log 2>&1); }

# 1. The log is piped into a walk; every answer is typed on the terminal.
#    `session resume` here reads stdin from the pipe, like `k.py | pallas-triage`.
start piped 'cat cap.log | { "$PT" session start - >/dev/null && "$PT" session resume; }'
wait_for "attempt 1 of 10: capacity.raise-limit" &&
	answer "result> " "same" && answer "changed> " "" &&
	wait_for "attempt 2 of 10: capacity.halve-minor" &&
	answer "result> " "fixed" 2 && answer "changed> " "lane dim 256" 2 &&
	wait_for "EXIT=" && rc_ok=1 || rc_ok=0
check "piped log, answers on the terminal" [ "$rc_ok" = 1 ]
check "piped walk exits 0 when fixed" sh -c "tmux -L '$sock' capture-pane -p -t walk 2>/dev/null | grep -q 'EXIT=0'"
check "piped walk recorded both attempts" sh -c "cd '$dir' && '$PT' session log | grep -q '2. capacity.halve-minor: fixed'"

# 2. The same through `pallas-triage` itself, once triage walks after the
#    diagnosis (it needs a terminal: tmux gives it one, stdin is the pipe).
if "$PT" help triage 2>/dev/null | grep -q -- '--answers'; then
	start triage 'cat cap.log | "$PT"'
	answer "result> " "same" && answer "changed> " "24M limit" &&
		answer "result> " "fixed" 2 && answer "changed> " "" 2 &&
		wait_for "EXIT=" && rc_ok=1 || rc_ok=0
	check "cat LOG | pallas-triage walks on the terminal" [ "$rc_ok" = 1 ]
	check "... and says attempt k of 10" sh -c "tmux -L '$sock' capture-pane -p -S -300 -t walk 2>/dev/null | grep -q 'attempt 2 of 10'"
	check "... and exits 0 when fixed" sh -c "tmux -L '$sock' capture-pane -p -S -300 -t walk 2>/dev/null | grep -q 'EXIT=0'"
else
	echo "skip: triage has no walk yet (no --answers in 'pallas-triage help triage')"
fi

# 3. Ctrl-C at the change prompt: exit 130, the result already given is kept.
start ctrlc 'cat cap.log | { "$PT" session start - >/dev/null && "$PT" session resume; }'
answer "result> " "same" && wait_for "changed> " &&
	tm send-keys -t walk C-c && wait_for "EXIT=" && rc_ok=1 || rc_ok=0
check "Ctrl-C at a prompt stops the walk" [ "$rc_ok" = 1 ]
check "Ctrl-C exits 130 and says the session is saved" sh -c \
	"tmux -L '$sock' capture-pane -p -S -300 -t walk 2>/dev/null | grep -q 'interrupted: the session is saved' &&
	 tmux -L '$sock' capture-pane -p -S -300 -t walk 2>/dev/null | grep -q 'EXIT=130'"
check "the answer before Ctrl-C is pending in the session" sh -c \
	"grep -A 2 '\"pending\"' '$dir/.pallas-triage/session.json' | grep -q '\"result\": \"same\"'"

# 4. The terminal goes away (the tmux session is killed: SIGHUP) mid-walk.
start hangup 'cat cap.log | { "$PT" session start - >/dev/null && "$PT" session resume; }'
answer "result> " "same" && answer "changed> " "limit 24M" &&
	answer "result> " "different" 2 && wait_for "changed> " 2 && rc_ok=1 || rc_ok=0
tm kill-session -t walk 2>/dev/null
sleep 0.3
check "walk reached the second attempt before the hang-up" [ "$rc_ok" = 1 ]
check "after a hang-up the session loads with the first attempt" sh -c \
	"cd '$dir' && '$PT' session log | grep -q '1. capacity.raise-limit: same'"
check "after a hang-up the pending answer is kept" sh -c \
	"grep -A 2 '\"pending\"' '$dir/.pallas-triage/session.json' | grep -q '\"result\": \"new\"'"
finish
