#!/bin/sh
# `pallas-triage LOG` with the shipped rules (and the fixture rules): the
# classification contract of every log in contract.tsv, then a few
# full-text goldens for the presentation and the usage errors.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
D=$SRC/tests/triage

# class, subkind, rule and the line of the rule's evidence, tab-separated
contract_fields() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
line = next((str(e["line"]) for e in d["evidence"] if e["rule"] == d["rule"]), "-")
print("\t".join([d["class"], d["subkind"] or "-", d["rule"] or "-", line]))'
}

ncases=0
while IFS='	' read -r log rules cls sub rule line rc; do
	case "$log" in '' | '#'*) continue ;; esac
	ncases=$((ncases + 1))
	set -- --no-input --json
	[ "$rules" = - ] || set -- "$@" --rules "$SRC/$rules"
	(cd "$T" && $PTRUN "$@" "$D/$log" >"$T/c.json" 2>"$T/c.err")
	got_rc=$?
	got=$(contract_fields <"$T/c.json" 2>&1)
	want=$(printf '%s\t%s\t%s\t%s' "$cls" "$sub" "$rule" "$line")
	name="contract $log"
	[ "$rules" = - ] || name="$name (rules $rules)"
	if [ "$got" = "$want" ] && [ "$got_rc" = "$rc" ]; then
		ok "$name"
	else
		not_ok "$name: got '$got' (exit $got_rc), expected '$want' (exit $rc)"
		sed 's/^/    /' "$T/c.err"
	fi
done <"$D/contract.tsv"
check "contract.tsv has cases" test "$ncases" -ge 20

# Every code snippet the ladders give for these logs (a rung's change that
# is not prose with `code` spans, every debug line) is Python that
# ast.parse() takes or a shell line sh -n takes, with no ${value} left in
for f in "$D"/*.log "$SRC"/tests/accuracy/logs/*.log; do
	(cd "$T" && $PTRUN --no-input --json "$f") 2>/dev/null
	echo
done >"$T/all.jsonl"
check "every code snippet of the ladders parses as Python or sh" python3 - "$T/all.jsonl" <<'PY'
import ast, json, subprocess, sys
snips = set()
text, pos, docs = open(sys.argv[1]).read(), 0, []
dec = json.JSONDecoder()
while True:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        break
    d, pos = dec.raw_decode(text, pos)
    docs.append(d)
for d in docs:
    for r in d.get("ladder", []):
        c = r["change"] or ""
        if c and not ("`" in c and c.count("`") >= 2):
            snips.add(c)
        snips.update(r["flags"])
bad = []
for s in sorted(snips):
    if "${" in s:
        bad.append(("a value left", s))
        continue
    try:
        ast.parse(s)
    except SyntaxError:
        if subprocess.run(["sh", "-n", "-c", s], capture_output=True).returncode:
            bad.append(("neither Python nor sh", s))
for why, s in bad:
    print("    %s: %r" % (why, s))
sys.exit(1 if bad or len(snips) < 40 else 0)
PY

golden_dir "$D"
finish
