# Helpers for the tests in a real pseudo-terminal, sourced by the
# tests/pty/*_tmux.sh scripts after tests/lib.sh: each script has its own
# tmux server (socket pt-NAME-PID), one window at a time named "walk", and
# reads the screen back with capture-pane.
if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux is not installed (make test installs it: tests/deps.sh)"
	not_ok "tmux available"
	finish
	exit 1
fi
export PALLAS_TRIAGE_RULES="$SRC/tests/fixtures/walk-rules"
export PALLAS_TRIAGE_NOW=2026-01-02T03:04:05Z
sock="pt-$(basename "$0" .sh)-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
# A session that lives as long as the test: killing the last session ends
# the tmux server, and a new-session racing that exit can fail, which
# showed as an empty screen and a 30 s timeout on a loaded machine.
tm new-session -d -s keeper 'sleep 3600'

screen() { tm capture-pane -p -J -S -300 -t walk 2>/dev/null; }
# wait_for TEXT [N]: until the screen shows TEXT on N lines (default 1); 30 s at most
wait_for() {
	i=0
	while [ $i -lt 600 ]; do	# 30 s: a loaded CI machine can be slow to start the first prompt
		[ "$(screen | grep -cF -- "$1")" -ge "${2:-1}" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	echo "timed out waiting for '$1'; the screen was:"
	screen | tail -n 25 | sed 's/^/    /'
	return 1
}
# answer PROMPT TEXT [N]: once PROMPT has shown N times (default 1), type TEXT.
# The terminal buffers what is typed, so answering a later prompt early is
# safe; N matters only before Ctrl-C or a hang-up.
answer() {
	wait_for "$1" "${3:-1}" || return 1
	tm send-keys -t walk -l "$2"
	tm send-keys -t walk Enter
}
# start NAME COMMAND: run COMMAND in the case directory NAME (made, and the
# fixture logs copied in, the first time; the same NAME reuses it, so a
# session carries over) inside tmux, WIDTH columns wide (default 160), with
# the variables in TENV (default NO_COLOR=1; the tests' own NO_COLOR is not
# passed on, so TENV decides). COMMAND is in single quotes inside: expand
# the test's own variables ($T) before passing it. The outer shell traps SIGINT,
# as an interactive shell would, so that Ctrl-C reaches the command without
# ending the window; EXIT=N shows its status.
start() {
	dir="$T/$1"
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir"
		cp "$SRC"/tests/fixtures/walk-logs/*.log "$dir"/
	fi
	tm kill-session -t walk 2>/dev/null
	tm new-session -d -x "${WIDTH:-160}" -y 50 -s walk -c "$dir" \
		"env -u NO_COLOR PALLAS_TRIAGE_RULES='$PALLAS_TRIAGE_RULES' PALLAS_TRIAGE_NOW=$PALLAS_TRIAGE_NOW \
		 ${TENV-NO_COLOR=1} LC_ALL=C PT='$PT' sh -c 'trap : INT; $2; echo EXIT=\$?; sleep 60'"
}
# shows TEXT: the screen has a line with TEXT; lacks_screen TEXT: the screen
# has output, and no line with TEXT
shows() { screen | grep -qF -- "$1"; }
lacks_screen() { screen >"$T/screen.txt"; lacks "$T/screen.txt" "$1"; }
