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
# the shipped classes without their flags
check "docs/rules.md has an API table example" test -n "$(ls "$T"/docapi)"
for f in "$T"/doc/doc*.yaml; do
	head -1 "$f" | grep -q '^rules:' && cp "$f" "$T/docapi/"
done
sed '/^flags:/,$d' "$SRC/rules/classes.yaml" >"$T/docapi/classes.yaml"
$PT rules validate "$T/docapi" >"$T/da.out" 2>&1
check "docs/rules.md API table example validates" test $? -eq 0 || cat "$T/da.out"

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
finish
