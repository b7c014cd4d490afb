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

golden_dir "$D"
finish
