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

# --- the session directory and its lock -----------------------------------

fresh
mkdir .pallas-triage
ln -s "$T/victim" .pallas-triage/lock
pt session start --interpret no "$LOG"
expect "a lock planted as a symlink is refused" 4 "'.pallas-triage/lock' is a symbolic link"
check "... nothing is written where it points" test ! -e "$T/victim"
check "... and no session is started" test ! -e .pallas-triage/session.json

fresh
printf 'keep me\n' >"$T/victim2"
mkdir .pallas-triage
ln "$T/victim2" .pallas-triage/lock
pt session start --interpret no "$LOG"
expect "a lock planted as a hard link is refused" 4 "not a regular file of its own"
check "... the other name's content is intact" grep -qx 'keep me' "$T/victim2"

fresh
pt session start --interpret no "$LOG"
rm .pallas-triage/lock
ln -s "$T/victim" .pallas-triage/lock
pt session reset
expect "session reset with a planted lock" 4 "is a symbolic link"
check "... keeps the session" test -s .pallas-triage/session.json
pt attempt --result same
expect "attempt with a planted lock" 4 "is a symbolic link"
printf 'same\n' >"$T/answers"
$PTRUN session resume --answers "$T/answers" >"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "the walk with a planted lock" 4 "is a symbolic link"
check "... nothing is written where it points" test ! -e "$T/victim"

fresh
mkdir -p "$T/elsewhere"
printf 'not yours\n' >"$T/elsewhere/lock"
ln -s "$T/elsewhere" .pallas-triage
pt session start --interpret no "$LOG"
expect "a .pallas-triage planted as a symlink is refused" 4 "'.pallas-triage' is a symbolic link"
check "... nothing is written into its target" test "$(ls "$T/elsewhere")" = lock
check "... whose lock file is untouched" grep -qx 'not yours' "$T/elsewhere/lock"
pt session status
expect "... session status refuses it too" 4 "is a symbolic link"

fresh
pt session start --interpret no "$LOG"
mv .pallas-triage/session.json "$T/session.json"
ln -s "$T/session.json" .pallas-triage/session.json
pt session status
expect "a session file planted as a symlink is not read" 3 "'.pallas-triage/session.json' is a symbolic link"

# --- links planted inside the session directory ----------------------------
# .pallas-triage/logs or archive planted as a link would receive every piped
# log, the output of `run` and every archived session, and `session restore`
# would move a file out of where it points: each is opened from the session
# directory without following links, and refused like .pallas-triage itself
OTHER=$SRC/tests/triage/layout-block-divisible.log
fresh
mkdir -p .pallas-triage "$T/planted"
ln -s "$T/planted" .pallas-triage/logs
$PTRUN session start --interpret no - <"$LOG" >"$T/out" 2>"$T/err"
rc=$?
expect "a piped log with .pallas-triage/logs planted as a link" 4 "'.pallas-triage/logs' is a symbolic link"
check "... nothing is written where it points" test -z "$(ls -A "$T/planted")"
check "... and no session is started" test ! -e .pallas-triage/session.json
pt session start --interpret no "$LOG"
expect "... a session from a log file needs no logs/" 0
pt run --change 'raised it' -- sh -c 'cat "$1"; echo more' sh "$LOG"
expect "run: the attempt is recorded, its output not saved through the planted link" 1 \
	"warning: the run's output was not saved: '.pallas-triage/logs' is a symbolic link"
check "... the attempt is recorded" grep -q '"change": "raised it"' .pallas-triage/session.json
check "... nothing is written where it points" test -z "$(ls -A "$T/planted")"
rm .pallas-triage/logs
printf 'not a directory\n' >.pallas-triage/logs
$PTRUN session start --interpret no - <"$OTHER" >"$T/out" 2>"$T/err"
rc=$?
expect "a file planted as .pallas-triage/logs" 4 "'.pallas-triage/logs' is not a directory"
check "... the session in progress is kept" grep -q '"class": "capacity"' .pallas-triage/session.json
rm .pallas-triage/logs
ln -s "$T/planted" .pallas-triage/archive
cp .pallas-triage/session.json "$T/before.json"
pt session reset
expect "session reset with .pallas-triage/archive planted as a link" 4 "'.pallas-triage/archive' is a symbolic link"
check "... the session stays where it was" cmp -s "$T/before.json" .pallas-triage/session.json
pt session start --interpret no "$OTHER"
expect "session start of another failure with the planted archive link" 4 "'.pallas-triage/archive' is a symbolic link"
check "... the session stays where it was" cmp -s "$T/before.json" .pallas-triage/session.json
check "... nothing is written where it points" test -z "$(ls -A "$T/planted")"
cp "$T/before.json" "$T/planted/session-1.json"
pt session restore 1
expect "session restore through a planted archive link" 4 "'.pallas-triage/archive' is a symbolic link"
check "... the file where it points is not moved" test -f "$T/planted/session-1.json"
check "... the session stays where it was" cmp -s "$T/before.json" .pallas-triage/session.json
rm .pallas-triage/archive
mkdir .pallas-triage/archive
ln -s "$T/planted/session-1.json" .pallas-triage/archive/session-1.json
pt session restore 1
expect "session restore of an archive entry planted as a link" 3 "is a symbolic link"
check "... the file it points to stays" test -f "$T/planted/session-1.json"
pt session reset
expect "session reset with real directories" 0
check "... archives past the planted entry, not over it" test -f .pallas-triage/archive/session-2.json -a -L .pallas-triage/archive/session-1.json

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

# --- file names are escaped -------------------------------------------------

fresh
name=$(printf 'log\033]0;pwned\007\033[2J\233x.log')
cp "$LOG" "$name"
pt session start --interpret no --kernel "$name" "$name"
expect "session start on a log named with escapes" 0
check "... prints no raw control byte" no_raw_controls "$T/out"
check "... shows the name escaped" grep -qF 'log\x1b]0;pwned\x07\x1b[2J\x9bx.log' "$T/out"
pt session status
check "session status prints no raw control byte" no_raw_controls "$T/out"
check "... shows the name escaped" grep -qF 'from log\x1b]0;pwned\x07' "$T/out"
printf 'quit\n' >"$T/answers"
$PTRUN session resume --answers "$T/answers" >"$T/out" 2>&1 </dev/null
check "session resume prints no raw control byte" no_raw_controls "$T/out"
pt --no-input "nothing-$name"
expect "an error naming a missing log" 3
check "... prints no raw control byte" no_raw_controls "$T/err"
pt report --format "$name"
expect "a usage error quoting an operand with escapes" 2
check "... prints no raw control byte" no_raw_controls "$T/err"

# --- bidirectional controls are escaped like the other controls -------------
# U+2066 (LRI), U+202E (RLO) and U+2069 (PDI) reorder what a terminal or a
# GitHub annotation shows ("Trojan Source"), in a log line, a traceback's
# file name and the log's own name
fresh
rlo=$(printf '\342\200\256') lri=$(printf '\342\201\246') pdi=$(printf '\342\201\251')
sed -e "s/compile permanent error/compile ${lri}permanent${rlo} error${pdi}/" \
	-e "s|kernels/flash.py|kernels/fl${rlo}ash.py|" "$LOG" >"bidi${rlo}.log"
pt --no-input bidi*.log
expect "a log with bidirectional controls" 0
check "... the text output shows them escaped" \
	grep -qF 'compile \xe2\x81\xa6permanent\xe2\x80\xae error\xe2\x81\xa9.' "$T/out"
check "... in the traceback's file name too" grep -qF 'kernels/fl\xe2\x80\xaeash.py:118' "$T/out"
check "... and none raw" no_raw_controls "$T/out"
pt --format github bidi*.log
expect "--format github on it" 0
check "... escapes them in the file property" grep -qF '::error file=/home/dev/attn/kernels/fl\xe2\x80\xaeash.py,' "$T/out"
check "... and in the log's name" grep -qF 'log: bidi\xe2\x80\xae.log, line 10' "$T/out"
check "... and none raw" no_raw_controls "$T/out"
pt --json bidi*.log
check "--json writes them as \\u escapes" grep -qF 'compile \u2066permanent\u202e error\u2069.' "$T/out"
check "... and none raw" no_raw_controls "$T/out"
check "... which a strict decoder reads back as the controls" python3 -c '
import json, sys
assert "\u202e error\u2069" in json.load(open(sys.argv[1]))["evidence"][0]["text"]' "$T/out"

# --- planted session fields: escaped in reports and the webhook body --------
# session.json is in the working directory, so a cloned repository can plant
# one. Names (rung ids, rules, subkinds) that are no names are refused when
# it loads; free text keeps its bytes and is escaped wherever it is shown:
# at the terminal, in the .md and .json report and in the webhook's body.
fresh
cp "$LOG" vmem.log
pt session start --interpret no vmem.log
$PTRUN attempt --result same --change 'a change' >/dev/null 2>&1 </dev/null
python3 - .pallas-triage/session.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
esc = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u009b\u202e"
d["tool"] = "pallas-triage" + esc
d["status"] = "blocked"
d["finding"] = "stopped" + esc
d["trajectory"][0]["why"] = "first" + esc
d["ruled_out"][0]["reason"] = "because" + esc
d["attempts"][0]["change"] = "changed" + esc
d["attempts"][0]["note"] = "noted" + esc
d["diagnosis"]["message"] = "message" + esc
d["diagnosis"]["vars"]["jax_version"] = "0.4.35" + esc
d["current"]["vars"]["jax_version"] = "0.4.35" + esc
d["diagnosis"]["evidence"][0]["text"] = "evidence" + esc
d["kernel"] = "k" + esc + ".py"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
for fmt in text md json; do
	pt report --format $fmt
	expect "report --format $fmt of a planted session" 0
	check "... no raw control byte, C1 or bidi" no_raw_controls "$T/out"
done
check "... the planted text is there, escaped" grep -qF 'stopped\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\xc2\\x9b\\xe2\\x80\\xae' "$T/out"
pt report --output planted.md
check "report --output writes no raw control byte" no_raw_controls planted.md
for cmd in status log; do
	pt session $cmd
	check "session $cmd of the planted session prints no raw control byte" no_raw_controls "$T/out"
done
# the webhook's body, from the loopback server of tests/http
mkdir -p "$T/srv"
python3 "$SRC/tests/http/server.py" "$T/srv" "$SRC/tests/http/packs" &
spid=$!
trap 'kill "$spid" 2>/dev/null; rm -rf "$T"' EXIT
i=0
while [ ! -s "$T/srv/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
env -u http_proxy -u HTTP_PROXY -u ALL_PROXY -u all_proxy \
	$PTRUN report --post "http://127.0.0.1:$(cat "$T/srv/port")/hook/ok" --allow-http \
	>"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "report --post of the planted session" 0
check "... the body holds no control, C1 or bidi character, even decoded" python3 - "$T/srv/last-body.bin" <<'PY'
import json, sys
bidi = {0x61c, 0x200e, 0x200f} | set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a))
def strings(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, str):
        yield v
body = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
text = "".join(strings(body))
assert "stopped\\x1b]52" in text, "the planted finding is not in the body"
bad = [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f or ord(c) in bidi]
sys.exit("raw controls: %r" % bad[:5] if bad else 0)
PY
# without a session the report files there are posted: one that is a hard
# link to another file of the user's is not sent (a symbolic link is refused
# too: tests/http)
hook="http://127.0.0.1:$(cat "$T/srv/port")/hook/ok"
mkdir nosession && cd nosession || exit 1
printf 'aws_secret_access_key = hard-link-secret\n' >"$T/credentials"
ln "$T/credentials" pallas-triage-report.md
cp ../pallas-triage-report.json .
nreq=$(wc -l <"$T/srv/requests.log")
env -u http_proxy -u HTTP_PROXY -u ALL_PROXY -u all_proxy \
	$PTRUN report --post "$hook" --allow-http >"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "report --post of a report file that is a hard link" 3 "'./pallas-triage-report.md' is a hard link (a file with 2 names)"
check "... nothing is sent" test "$(wc -l <"$T/srv/requests.log")" -eq "$nreq"
rm pallas-triage-report.md pallas-triage-report.json
cp ../pallas-triage-report.md .
ln ../pallas-triage-report.json pallas-triage-report.json
env -u http_proxy -u HTTP_PROXY -u ALL_PROXY -u all_proxy \
	$PTRUN report --post "$hook" --allow-http >"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "... the same for the JSON file" 3 "'./pallas-triage-report.json' is a hard link"
check "... nothing is sent" test "$(wc -l <"$T/srv/requests.log")" -eq "$nreq"
check "the secret never reached the server" lacks "$T/srv/requests.log" "hard-link-secret"
rm pallas-triage-report.json
printf '{"schema_version": 2, "status": "blocked", "status": "resolved"}\n' >pallas-triage-report.json
env -u http_proxy -u HTTP_PROXY -u ALL_PROXY -u all_proxy \
	$PTRUN report --post "$hook" --allow-http >"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "a report JSON with a key twice is refused (it used to abort)" 3 "duplicate key 'status' in the top object"
check "... nothing is sent" test "$(wc -l <"$T/srv/requests.log")" -eq "$nreq"
cd .. || exit 1
kill "$spid" 2>/dev/null
trap 'rm -rf "$T"' EXIT
python3 - .pallas-triage/session.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["attempts"][0]["rung"] = "capacity.raise\x1b]52;c;cHduZWQ=\x07"
json.dump(d, open(sys.argv[1], "w"))
PY
pt report
expect "a planted rung id that is no rung id: the report refuses the session" 3 "which is no rung id"
check "... the error shows it escaped" no_raw_controls "$T/err"

# --- logs in UTF-16 and UTF-32 ----------------------------------------------

fresh
for enc in utf-16 utf-16-le utf-16-be utf-32 utf-32-le utf-32-be utf-8-sig; do
	python3 -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read().decode().encode(sys.argv[2]))' \
		"$LOG" "$enc" >"$enc.log"
	pt --no-input "$enc.log"
	expect "a log in $enc" 0
	check "... is classified" grep -q '^capacity/scoped-vmem' "$T/out"
	$PTRUN --json - <"$enc.log" >"$T/out" 2>"$T/err"
	check "... also through a pipe" grep -q '"class": "capacity"' "$T/out"
done
pt scan --jsonl .
check "scan classifies all 7 of them too" test "$(grep -c '"class": "capacity"' "$T/out")" -eq 7
pt session start --interpret no utf-16.log
expect "session start on a UTF-16 log" 0
check "... sees the failure" grep -q '^failure: capacity/scoped-vmem' "$T/out"

# --- JSON is strict UTF-8, whatever the log holds ---------------------------

fresh
{ printf 'junk \377\376 \300\257 \355\240\200 \200\n'; sed 's/$/ \xc3\x28 \xff/' "$LOG"; } >bad.log
cp bad.log "$(printf 'bad-\377\376.log')"
$PTRUN --json bad.log >triage.json 2>/dev/null
check "--json after a log with invalid UTF-8 is strict UTF-8 JSON" strict_json triage.json
check "... the bad bytes are U+FFFD" grep -q "$(printf '\357\277\275')" triage.json
$PTRUN scan --jsonl . >scan.jsonl 2>/dev/null
check "scan --jsonl (a file name with bad bytes too)" strict_json --lines scan.jsonl
$PTRUN session start --interpret no --json bad.log >start.json 2>/dev/null </dev/null
check "session start --json" strict_json start.json
check "session.json" strict_json .pallas-triage/session.json
$PTRUN attempt --result different --log bad.log --change 'bl\377ock' >/dev/null 2>&1 </dev/null
$PTRUN session status --json >status.json 2>/dev/null
check "session status --json" strict_json status.json
$PTRUN session log --json >log.json 2>/dev/null
check "session log --json" strict_json log.json
$PTRUN report --format json >report.json 2>/dev/null
check "report --format json" strict_json report.json
$PTRUN run --json -- cat bad.log >run.json 2>/dev/null </dev/null
check "run --json on a command printing invalid UTF-8" strict_json run.json

# --- tests/run.sh shows every FAIL line of a failing suite, then the tail ---

fresh
mkdir -p tree/tests/noisy
cp "$SRC/tests/run.sh" tree/tests/run.sh
cat >tree/tests/noisy/run.sh <<'EOF'
echo "FAIL an early case"
i=0; while [ $i -lt 100 ]; do echo "ok case $i"; i=$((i + 1)); done
echo "99 passed, 1 failed"
exit 1
EOF
BUILD=nobuild sh tree/tests/run.sh noisy >"$T/out" 2>&1
check "run.sh: a failing suite's early FAIL line is shown" grep -q '^    FAIL an early case' "$T/out"
check "run.sh: and its tail" grep -q '^    ok case 99' "$T/out"
check "run.sh: the total counts the failure" grep -qx '99 passed, 1 failed' "$T/out"

# --- no HOME: the working directory is not a home ----------------------------
# With HOME unset (or relative) the user rules and packs directories are
# unknown, not ./.local/share/...: a cloned repository could plant both.
fresh
mkdir -p .local/share/pallas-triage/rules .local/share/pallas-triage/packs
printf 'rules: [not, a, rule]\n' >.local/share/pallas-triage/rules/planted.yaml
printf 'rules: [not, a, rule]\n' >.local/share/pallas-triage/packs/planted.yaml
printf '{"name":"planted"}\n' >.local/share/pallas-triage/packs/planted.meta.json
for home in unset relative; do
	if [ $home = unset ]; then
		env -u HOME -u XDG_DATA_HOME -u XDG_CACHE_HOME -u PALLAS_TRIAGE_RULES \
			$PTRUN --json "$LOG" >"$T/out" 2>"$T/err" </dev/null
	else
		env -u XDG_CACHE_HOME -u PALLAS_TRIAGE_RULES HOME=. XDG_DATA_HOME=.local/share \
			$PTRUN --json "$LOG" >"$T/out" 2>"$T/err" </dev/null
	fi
	rc=$?
	expect "HOME $home: planted rules and packs in the working directory are not read" 0
	check "... the shipped rules decide" grep -q '"class": "capacity"' "$T/out"
done
env -u HOME -u XDG_DATA_HOME -u PALLAS_TRIAGE_RULES $PTRUN rules remove planted \
	>"$T/out" 2>"$T/err" </dev/null
rc=$?
expect "HOME unset: no pack is installed, so none can be removed" 2
check "... and the planted one is still there" test -f .local/share/pallas-triage/packs/planted.yaml

finish
