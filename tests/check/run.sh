#!/bin/sh
# `pallas-triage check` on the kernel fixtures (tests/check/*.py, written for
# these tests): each file's first line says what the check must report,
#   # expect: clean                      no finding at all (not even a note)
#   # expect: L001@45 L002@46            exactly these codes at these lines
# and an optional second line `# args: --chip v5p ...` adds options. The
# clean kernels are realistic (matmul with an accumulator, flash attention,
# paged attention with double-buffered DMA and scalar prefetch, a ring
# collective, a softmax, a Triton matmul); each mutant plants one bug.
# Then the golden cases of tests/check/text (output formats, usage, exit
# statuses), and the triage cases that read a kernel.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
D=$SRC/tests/check

run_check() { # FILE ARGS...: the JSON in $T/json, the exit status in $rc
	f=$1
	shift
	(cd "$D" && $PTRUN check --json "$@" "$f") >"$T/json" 2>"$T/err"
	rc=$?
}
found() { # the CODE@LINE of every finding in $T/json, sorted, one line
	python3 - "$T/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s@%d" % (f["code"], f["line"]) for f in d["findings"])) or "clean")
PY
}

for f in "$D"/*.py; do
	name=$(basename "$f")
	want=$(sed -n '1s/^# expect: //p' "$f" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
	args=$(sed -n '2s/^# args: //p' "$f")
	if [ -z "$want" ]; then
		not_ok "$name: no '# expect:' line"
		continue
	fi
	# shellcheck disable=SC2086
	run_check "$name" $args
	got=$(found)
	if [ "$got" != "$want" ]; then
		not_ok "$name: expected $want, found $got"
		sed 's/^/    /' "$T/err" | head -5
		continue
	fi
	# the status follows: 0 clean (or notes only), 1 with an error or a warning
	want_rc=1
	python3 -c "import json,sys; d=json.load(open('$T/json')); sys.exit(0 if d['summary']['errors'] + d['summary']['warnings'] else 1)" || want_rc=0
	if [ "$rc" -ne "$want_rc" ]; then
		not_ok "$name: exit status $rc, expected $want_rc"
		continue
	fi
	ok "$name ($got)"
done
golden_dir "$D/text"

# every code the analyses report is defined in rules/check.yaml and listed in
# docs/check.md, and each of those is one the analyses report
codes_c=$(cat "$SRC"/src/check*.c | grep -o '"[LCSNU][0-9][0-9][0-9]"' | tr -d '"' | sort -u | tr '\n' ' ')
codes_r=$(sed -n 's/^ *- code: \([LCSNU][0-9][0-9][0-9]\)$/\1/p' "$SRC/rules/check.yaml" | sort -u | tr '\n' ' ')
codes_d=$(grep -o '^| `[LCSNU][0-9][0-9][0-9]`' "$SRC/docs/check.md" | tr -d '|` ' | sort -u | tr '\n' ' ')
check "the codes in src/check*.c are those of rules/check.yaml ($codes_c)" [ "$codes_c" = "$codes_r" ]
check "docs/check.md lists every code of rules/check.yaml" [ "$codes_d" = "$codes_r" ]

# ---- triage reads the kernel: --kernel FILE, or the file the traceback names
P=$T/proj
mkdir -p "$P" "$T/elsewhere" "$T/outside"
cp "$D/matmul-block-L001.py" "$P/tiled_mm.py"
cp "$D/paged-nowait-S001.py" "$P/paged.py"
cp "$D/text/vmem.py" "$P/big.py"
tri() { # NAME LOG ARGS...: triage in $P, output in $T/tri
	log=$1
	shift
	(cd "$P" && $PTRUN --no-input "$@" "$D/triage/$log") >"$T/tri" 2>"$T/tri.err"
	trc=$?
}
tri layout.log
check "triage: the traceback names tiled_mm.py, which is checked" \
	grep -q '^source       tiled_mm.py (named by the traceback; --no-kernel turns this off)$' "$T/tri"
check "triage: the rung names the line and value to change" \
	grep -q 'change: tiled_mm.py:35: bk=1000 -> 1024 (or 896)   (from your source)' "$T/tri"
check "triage: the source finding is shown" grep -q 'tiled_mm.py:35:33: error: .*\[L001 layout\]' "$T/tri"
check "triage: exit status 0 with a kernel" [ "$trc" -eq 0 ]
tri layout.log --no-kernel
check "triage --no-kernel: no source" lacks "$T/tri" "source       "
check "triage --no-kernel: the rung is the generic one" lacks "$T/tri" "(from your source)"
tri layout.log --json
check "triage --json: kernel_source with the finding and the rung from the source" python3 -c "
import json, sys
d = json.load(open('$T/tri'))
ks = d['kernel_source']
assert ks['file'] == 'tiled_mm.py' and ks['how'] == 'traceback', ks
assert [f['code'] for f in ks['findings']][:1] == ['L001'], ks['findings']
r = [x for x in d['ladder'] if x['id'] == 'layout.round-block-up'][0]
assert r['from_source'] and r['change'] == 'tiled_mm.py:35: bk=1000 -> 1024 (or 896)', r
"
check "triage --json: strict JSON" strict_json "$T/tri"
(cd "$T/elsewhere" && $PTRUN --no-input --kernel "$P/tiled_mm.py" "$D/triage/layout.log") >"$T/tri" 2>&1
check "triage --kernel FILE: checked although the traceback's file is not here" \
	grep -q "^source       $P/tiled_mm.py (--kernel)$" "$T/tri"
(cd "$T/elsewhere" && $PTRUN --no-input "$D/triage/layout.log") >"$T/tri" 2>&1
check "triage: no file of the traceback here, no source" lacks "$T/tri" "source       "
printf 'x = 1\n' >"$T/outside/tiled_mm.py"
mkdir -p "$T/linked"
ln -s "$T/outside/tiled_mm.py" "$T/linked/tiled_mm.py"
(cd "$T/linked" && $PTRUN --no-input "$D/triage/layout.log") >"$T/tri" 2>&1
check "triage: a planted symbolic link is not followed" lacks "$T/tri" "source       "
# the hang: the log says little, the source says which copy is never waited
tri hang.log --no-kernel
without=$(sed -n 's/.*(confidence \([0-9]*\)%).*/\1/p' "$T/tri")
tri hang.log
with=$(sed -n 's/.*(confidence \([0-9]*\)%).*/\1/p' "$T/tri")
check "triage hang: synchronization" grep -q '^synchronization/hang' "$T/tri"
check "triage hang: the unwaited copy is the diagnosis" \
	grep -q 'paged.py:51:13: error: the copy from v_hbm into v_buf.at\[slot\] .* never waited' "$T/tri"
check "triage hang: the source raises the confidence ($without% -> $with%)" \
	[ -n "$without" ] && [ -n "$with" ] && [ "$with" -gt "$without" ]
check "triage hang: the pairing rung names the copy's line" \
	grep -q 'change: paged.py:30: the copy into v_buf.at\[slot\] starts here and nothing waits for it' "$T/tri"
# capacity: the VMEM the source accounts for against the log's figure
tri vmem.log
check "triage vmem: the source's working set against the log's" \
	grep -q 'vmem: the source accounts for 112 MiB of the 130.07 MiB the log reports; the other 18.07 MiB' "$T/tri"
check "triage vmem: the halving rung names the constant" \
	grep -q 'change: big.py:10: BK=2048 -> 1024   (from your source)' "$T/tri"
# ---- the session keeps the kernel and re-checks it on every attempt
S=$T/sess
mkdir -p "$S"
cp "$D/matmul-block-L001.py" "$S/tiled_mm.py"
sess() { (cd "$S" && $PTRUN --no-input "$@") >"$T/s.out" 2>"$T/s.err"; }
sess session start --kernel tiled_mm.py "$D/triage/layout.log"
check "session start --kernel: started" [ $? -le 1 ]
sess attempt --result same --change "nothing yet"
sess attempt --result same --change "bk to 1024" && :
sed 's/bk=1000/bk=1024/' "$D/matmul-block-L001.py" >"$S/tiled_mm.py"
sess attempt --result fixed --change "bk to 1024"
sess report --format json
python3 - "$T/s.out" >"$T/kd" <<'PY'
import json, sys
for a in json.load(open(sys.argv[1]))["attempts"]:
    print("%d\t%s" % (a["n"], a["kernel"]))
PY
check "session: attempt 1 says the kernel is unchanged, with what the check finds" \
	grep -q '^1	tiled_mm.py is unchanged since the original (pre-debug) copy; the check finds 1 error and 1 warning$' "$T/kd"
check "session: attempt 2 compares with attempt 1's copy" \
	grep -q "^2	tiled_mm.py is unchanged since the last attempt's copy" "$T/kd"
check "session: attempt 3 names the line and the value that changed" \
	grep -q '^3	line 35: `bk=1000` -> `bk=1024`; gone: L001 block-not-tiled' "$T/kd"
check "session: attempt 3 says the check is clean now" \
	grep -q '^3	.*; the check finds no error or warning$' "$T/kd"
check "session: a copy of the kernel is kept per attempt" \
	[ "$(ls "$S/.pallas-triage/logs" | grep -c '^kernel-attempt-[123]-[0-9a-f]*\.log$')" -eq 3 ]
sess report
check "report: the attempt list says what changed in the kernel" \
	grep -q '^- Attempt 3: the kernel: line 35: ' "$T/s.out"
# a session file that names a kernel copy outside logs/ is refused, not read
sed 's/"kernel_copy": "kernel-attempt-1-[0-9a-f]*\.log"/"kernel_copy": "..\/..\/secret"/' \
	"$S/.pallas-triage/session.json" >"$T/planted" && cat "$T/planted" >"$S/.pallas-triage/session.json"
check "planted: the session file was changed" grep -q '"kernel_copy": "../../secret"' "$S/.pallas-triage/session.json"
sess session status
src=$?
check "planted kernel_copy: a load error (exit $src)" [ "$src" -eq 3 ]
check "planted kernel_copy: says which field" grep -q 'kernel_copy' "$T/s.err"
finish
