#!/bin/sh
# The shipped rules validate cleanly and pass their own examples, and the
# examples in docs/rules.md are real rules that pass too.
. "$(dirname "$0")/../lib.sh"

$PT rules validate "$SRC/rules" >"$T/v.out" 2>"$T/v.err"
check "shipped rules validate" test $? -eq 0
check "shipped rules have no warnings" test ! -s "$T/v.err"
$PT rules test "$SRC/rules" >"$T/t.out" 2>&1
check "shipped rule examples pass" test $? -eq 0
grep -v ' passed, ' "$T/t.out" | head -20
check "rules test counts examples" grep -Eq '^[1-9][0-9]* passed, 0 failed$' "$T/t.out"

# docs/rules.md: every ```yaml block that starts with a section goes into a
# rules directory of its own, beside the shipped classes (every class must exist)
mkdir -p "$T/doc"
awk -v dir="$T/doc" '
	/^```yaml$/ { n++; f = dir "/doc" n ".yaml"; inblock = 1; next }
	/^```$/ { inblock = 0; next }
	inblock { print > f }
' "$SRC/docs/rules.md"
# the API table example goes to a directory of its own (the shipped flags
# need the shipped table, which would clash with it)
mkdir -p "$T/docapi"
for f in "$T"/doc/*.yaml; do
	if head -1 "$f" | grep -q '^jax_api:'; then
		mv "$f" "$T/docapi/"
	elif ! head -1 "$f" | grep -Eq '^(rules|flags|codes|facts|contexts):'; then
		rm -f "$f"
	fi
done
cp "$SRC/rules/classes.yaml" "$SRC/rules/jax-api.yaml" "$T/doc/"
check "docs/rules.md has rule examples" test "$(ls "$T"/doc | wc -l)" -ge 4
$PT rules validate "$T/doc" >"$T/dv.out" 2>&1
check "docs/rules.md examples validate" test $? -eq 0 || cat "$T/dv.out"
$PT rules test "$T/doc" >"$T/dt.out" 2>&1
check "docs/rules.md examples pass rules test" test $? -eq 0 || cat "$T/dt.out"

# contexts: a rule may name only contexts that exist, a context only those above it
mkdir -p "$T/ctx"
cp "$SRC/tests/fixtures/rules/classes.yaml" "$T/ctx/"
cat >"$T/ctx/r.yaml" <<'YAML'
contexts:
  - id: second
    summary: names a context declared below it
    threshold: 50
    requires: [first]
    evidence: [{ weight: 90, pattern: 'second marker' }]
    examples: { match: ['second marker'] }
  - id: first
    summary: the first
    threshold: 50
    evidence: [{ weight: 90, pattern: 'first marker' }]
    examples: { match: ['first marker'] }
rules:
  - id: layout.needs-missing
    class: layout
    stage: compile
    weight: 50
    requires: [no-such-context]
    match: { any: ['shape thing'] }
    message: 'x'
    examples: { match: ['shape thing'] }
YAML
$PT rules validate "$T/ctx" >"$T/cv.out" 2>&1
check "a rule naming an unknown context is refused" grep -q "rule 'layout.needs-missing' names unknown context 'no-such-context'" "$T/cv.out"
check "a context naming a later one is refused" grep -q "context 'second' names context 'first', which is not declared before it" "$T/cv.out"

# export-patterns --specific leaves out context evidence and the fallback tier
$PT rules export-patterns >"$T/all.pat"
$PT rules export-patterns --specific >"$T/spec.pat"
check "export-patterns prints the context evidence" grep -qF 'tpu_custom_call' "$T/all.pat"
check "export-patterns --specific prints fewer patterns" test "$(wc -l <"$T/spec.pat")" -lt "$(wc -l <"$T/all.pat")"
check "export-patterns --specific prints rule patterns" grep -qF 'Padded transposes unsupported' "$T/spec.pat"
check "export-patterns --specific leaves out context evidence" sh -c "! grep -qxF 'tpu_custom_call' '$T/spec.pat'"
check "export-patterns --specific leaves out the fallback tier" sh -c "! grep -qF 'Exception while lowering eqn' '$T/spec.pat'"

# the table example of docs/rules.md is a real table: with the doc's rules and
# the six classes
check "docs/rules.md has an API table example" test -n "$(ls "$T"/docapi)"
for f in "$T"/doc/doc*.yaml; do
	head -1 "$f" | grep -q '^rules:' && cp "$f" "$T/docapi/"
done
# the six classes bare: the shipped ones name APIs the example table lacks
cat >"$T/docapi/classes.yaml" <<'YAML'
classes:
  - { name: layout, title: Layout, summary: block shapes, interpret: not-modelled }
  - { name: capacity, title: Capacity, summary: VMEM, interpret: not-modelled }
  - { name: synchronization, title: Sync, summary: DMA and semaphores, interpret: reproduces }
  - { name: numerics, title: Numerics, summary: wrong numbers, interpret: partly }
  - { name: unsupported, title: Unsupported, summary: not lowered, interpret: partly }
  - { name: unknown, title: Not a Pallas failure, summary: none, interpret: partly }
YAML
$PT rules validate "$T/docapi" >"$T/da.out" 2>&1
check "docs/rules.md API table example validates" test $? -eq 0 || cat "$T/da.out"

# a folder of team rules (no classes of its own) is tested on top of the shipped
# rules: its rules may name the shipped contexts, and only its examples run
mkdir -p "$T/team"
cat >"$T/team/team.yaml" <<'YAML'
rules:
  - id: team.rope-cache-miss
    class: numerics
    subkind: logic
    stage: numeric
    weight: 70
    requires: [kernel-code]
    match:
      any: ['rope cache miss at position (?P<pos>\d+)']
    message: 'the rotary cache was read past its end at ${pos}'
    examples:
      match:
        - log: |
            File "/w/kernels/rope.py", line 3, in rope_kernel
            rope cache miss at position 4097
          captures: { pos: '4097' }
      no_match:
        - 'rope cache miss at position 4097'
YAML
$PT rules test "$T/team" >"$T/team.out" 2>&1
check "rules test DIR of extra rules passes on top of the shipped rules" test $? -eq 0
check "... says so" grep -q "^extra rules in .*team, tested on top of " "$T/team.out"
check "... and runs only the folder's examples" grep -qx "3 passed, 0 failed" "$T/team.out"
$PT rules validate "$T/team" >"$T/teamv.out" 2>&1
check "rules validate DIR of extra rules is valid on top" grep -q "valid; extra rules on top of " "$T/teamv.out"
sed -i 's/weight: 70/weight: 70\n    excludes: [no-such-context]/' "$T/team/team.yaml"
$PT rules validate "$T/team" >"$T/teamb.out" 2>&1
check "... and a bad context in it is still an error" grep -q "names unknown context 'no-such-context'" "$T/teamb.out"

# rules fetch FILE installs a pack from this machine; update reads it again
(
	export XDG_DATA_HOME="$T/xdg" XDG_CACHE_HOME="$T/xdgc"
	sed -i '/excludes: \[no-such-context\]/d' "$T/team/team.yaml"
	cd "$T/team" && $PT rules fetch ./team.yaml >"$T/fetch.out" 2>&1
	echo "rc=$?" >>"$T/fetch.out"
	$PT rules sources >>"$T/fetch.out" 2>&1
	sed -i 's/weight: 70/weight: 71/' "$T/team/team.yaml"
	$PT rules update >>"$T/fetch.out" 2>&1
	printf 'File "/w/kernels/rope.py", line 3, in rope_kernel\nrope cache miss at position 12\n' |
		$PT --no-input >>"$T/fetch.out" 2>&1
)
check "rules fetch ./FILE installs a local pack" grep -q "^installed rule pack 'team': 1 rule from .*/team/team.yaml" "$T/fetch.out"
check "... exit 0" grep -qx "rc=0" "$T/fetch.out"
check "... its origin is file://" grep -q "origin:   file://.*/team/team.yaml" "$T/fetch.out"
check "... rules update reads the file again" grep -q "^team: updated: 1 rule" "$T/fetch.out"
check "... and triage uses it" grep -q "the rotary cache was read past its end at 12" "$T/fetch.out"
$PT rules fetch "$T/no-such.yaml" >"$T/fetchm.out" 2>&1
check "rules fetch of a missing file exits 3" test $? -eq 3

# a failing example is reported with its place and fails the run
mkdir -p "$T/bad"
cp "$SRC/tests/fixtures/rules/classes.yaml" "$T/bad/"
cat >"$T/bad/r.yaml" <<'YAML'
rules:
  - id: layout.wrong-example
    class: layout
    stage: compile
    weight: 50
    match: { any: ['unsupported shape cast'] }
    message: m
    examples:
      match: ['unsupported reshape']
      no_match: ['unsupported shape cast']
YAML
$PT rules test "$T/bad" >"$T/b.out" 2>&1
check "failing examples exit 1" test $? -eq 1
check "failures name file, line and rule" grep -q 'r.yaml:9: layout.wrong-example: match example 1 did not fire' "$T/b.out"
check "no_match failures too" grep -q 'r.yaml:10: layout.wrong-example: no_match example 1 fired' "$T/b.out"
check "the summary line" grep -q '^0 passed, 2 failed$' "$T/b.out"

# make bench gives grep -E and rg the patterns pallas-triage runs, translated;
# the benchmark does not define the rule language: what the translator cannot
# translate (or a peer refuses) is skipped and counted, never an error
$PT rules export-patterns >"$T/p.pcre"
check "the shipped patterns export" test -s "$T/p.pcre"
python3 "$SRC/tests/perf/translate.py" "$T/p.pcre" "$T/p.ere" "$T/p.rg" "$T/p.py" 2>"$T/p.err"
check "... translate for grep and rg" test $? -eq 0
check "... and say how many each peer got" grep -Eq '^translate: [0-9]+ patterns; [0-9]+ for grep and rg' "$T/p.err"
check "... one line per pattern kept, for every peer" \
	sh -c "[ \$(wc -l <'$T/p.ere') -eq \$(wc -l <'$T/p.rg') ] && [ \$(wc -l <'$T/p.rg') -eq \$(wc -l <'$T/p.py') ] && [ -s '$T/p.ere' ]"
check "... and grep -E compiles them all" sh -c "LC_ALL=C grep -E -c -f '$T/p.ere' /dev/null >/dev/null 2>'$T/p.gerr'; [ \$? -le 1 ] && ! [ -s '$T/p.gerr' ]"
# valid PCRE2 the peers have no equivalent for: a branch reset, \K, a
# backreference, (?s); and a mid-pattern (?i), which is translated
printf '%s\n' 'ab(?|c|d)' 'x\Ky' '(a)\1' '(?s)a.b' 'foo(?i)bar|baz' 'plain one' >"$T/q.pcre"
python3 "$SRC/tests/perf/translate.py" "$T/q.pcre" "$T/q.ere" "$T/q.rg" "$T/q.py" 2>"$T/q.err"
check "an untranslatable pattern does not fail the translator" test $? -eq 0
check "... it is skipped and counted" grep -q '^translate: 6 patterns; 2 for grep and rg (4 skipped: ' "$T/q.err"
check "... with the reason" grep -q 'cannot translate: group (?|' "$T/q.err"
check "... the others are kept" test "$(wc -l <"$T/q.ere")" -eq 2
check "... an inline (?i) holds to the end of its group, later alternatives too" \
	grep -qxF 'foo[bB][aA][rR]|[bB][aA][zZ]' "$T/q.ere"
check "... and for rg it cannot leak into the next pattern" grep -qxF '(?:foo(?i:bar|baz))' "$T/q.rg"
finish
