#!/bin/sh
# Nothing in the working directory or a log is trusted (issue 13; the
# network side is in tests/http): a planted lock or session directory,
# special files given to `report --output`, the umask, file names with
# escape sequences, logs in UTF-16/UTF-32, and JSON output that must stay
# strict UTF-8 whatever bytes a log holds. Also the test runner's own
# failure report (tests/run.sh).
. "$(dirname "$0")/../lib.sh"
export PALLAS_TRIAGE_RULES=$SRC/rules PALLAS_TRIAGE_NOW=2025-01-01T00:00:00Z
LOG=$SRC/docs/examples/vmem-oom.log
cd "$T" || exit 1

# run the binary in the current directory: rc, $T/out, $T/err
pt() { $PTRUN "$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?; }
# expect NAME RC [TEXT]: the exit status, and TEXT (fixed string) in stderr
expect() {
	if [ "$rc" -eq "$2" ] && { [ -z "${3:-}" ] || grep -qF -- "$3" "$T/err"; }; then
		ok "$1 (exit $2)"
	else
		not_ok "$1: exit $rc, expected $2${3:+ and '$3' on stderr}"
		sed 's/^/    /' "$T/err" | head -n 5
	fi
}
mode() { stat -c %a "$1"; }
fresh() { rm -rf "$T/w" && mkdir -p "$T/w" && cd "$T/w" || exit 1; }

# --- report --output: write through what is not a regular file --------------

fresh
pt session start --interpret no "$LOG"
# A private null device when we may make one (root): a regression must not
# replace the machine's /dev/null. A user who is not root cannot replace it.
if mknod devnull c 1 3 2>/dev/null; then
	dev=$PWD/devnull
elif [ "$(id -u)" -ne 0 ]; then
	dev=/dev/null
else
	dev=
	echo "skip report --output to a device: root, but mknod fails here"
fi
if [ -n "$dev" ]; then
	pt report --output "$dev"
	expect "report --output a character device (a null device)" 0
	check "... it is still a character device" test -c "$dev"
fi
mkfifo fifo
# a reader that gives up: with the FIFO replaced by a file it would wait forever
(timeout 30 cat fifo >fifo.out) &
reader=$!
pt report --output fifo
expect "report --output FIFO" 0
wait "$reader"
check "... the FIFO is still a FIFO" test -p fifo
check "... and the reader got the report" grep -q '^# Debugging report' fifo.out
ln -s /proc/self/fd/1 stdout-link
pt report --output stdout-link
expect "report --output a symlink to /proc/self/fd/1" 0
check "... the report went to stdout" grep -q '^# Debugging report' "$T/out"
check "... the link is still a link" test -L stdout-link
printf 'old\n' >target.md
ln -s target.md link.md
pt report --output link.md
expect "report --output a symlink to a regular file" 0
check "... replaces the file it names" grep -q '^# Debugging report' target.md
check "... and keeps the link" test -L link.md
mkdir adir
pt report --output adir
expect "report --output a directory" 4 "'adir': it is a directory"

# --- modes follow the umask; a mode the user chose is kept ------------------

fresh
(umask 077 && $PTRUN session start --interpret no "$LOG" >/dev/null 2>&1 </dev/null &&
	$PTRUN report --output r.md >/dev/null 2>&1 </dev/null)
check "umask 077: session.json is 0600" test "$(mode .pallas-triage/session.json)" = 600
check "umask 077: the lock is 0600" test "$(mode .pallas-triage/lock)" = 600
check "umask 077: the session directory is 0700" test "$(mode .pallas-triage)" = 700
check "umask 077: report --output is 0600" test "$(mode r.md)" = 600
(umask 022 && $PTRUN report --output r2.md >/dev/null 2>&1 </dev/null)
check "umask 022: report --output is 0644" test "$(mode r2.md)" = 644
chmod 600 .pallas-triage/session.json r.md
chmod 640 r2.md
(umask 022 && $PTRUN attempt --result same >/dev/null 2>&1 </dev/null &&
	$PTRUN report --output r.md >/dev/null 2>&1 </dev/null &&
	$PTRUN report --output r2.md >/dev/null 2>&1 </dev/null)
check "a session file made 0600 stays 0600 after a save" test "$(mode .pallas-triage/session.json)" = 600
check "... and it was saved" grep -q '"result": "same"' .pallas-triage/session.json
check "a report made 0600 stays 0600 when replaced" test "$(mode r.md)" = 600
check "a report made 0640 stays 0640 when replaced" test "$(mode r2.md)" = 640

finish
