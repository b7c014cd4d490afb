#!/bin/sh
# Seed corpora for the fuzz targets, generated from the tests and the shared
# corpus into $1 (default build-fuzz/seeds, gitignored): one directory per
# target. Cheap and idempotent; tests/fuzz/fuzz.sh runs it before fuzzing.
# Usage: tests/fuzz/seeds.sh [OUTDIR]
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$SRC/build-fuzz/seeds}
corpus=$SRC/../shared/corpus/cases
mkdir -p "$out"
out=$(cd "$out" && pwd)
mkdir -p "$out/rules" "$out/classify" "$out/session" "$out/pack" "$out/cache" "$out/check"
put() { # target, file
	[ -f "$2" ] || return 0
	cp "$2" "$out/$1/$(basename "$(dirname "$2")")-$(basename "$2")"
}
# rule files: the shipped rules, the fixtures, the rules-validate cases
for f in "$SRC"/rules/*.yaml "$SRC"/tests/fixtures/*/*.yaml "$SRC"/tests/rules-validate/*/*.yaml \
	 "$SRC"/tests/fuzz/regressions/rules/*; do
	put rules "$f"
	put pack "$f"
done
# a small self-contained pack: what `rules fetch` is meant to get
cat >"$out/pack/small-pack.yaml" <<'YAML'
schema_version: 1
rules:
  - id: capacity.fuzz-seed
    class: capacity
    stage: runtime
    weight: 60
    any: ['Ran out of memory in memory space vmem']
    message: scoped VMEM exhausted
    examples:
      match: ["RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating"]
      no_match: ["all good"]
YAML
for f in "$SRC"/tests/fuzz/regressions/pack/*; do put pack "$f"; done
# logs: every log in the tests and the shared corpus
for f in "$SRC"/tests/*/*.log "$SRC"/tests/*/*/*.log "$SRC"/docs/examples/*.log "$corpus"/*.log \
	 "$SRC"/tests/fuzz/regressions/classify/*; do
	put classify "$f"
done
# kernel sources: the check fixtures
for f in "$SRC"/tests/check/*.py "$SRC"/tests/check/text/*.py "$SRC"/tests/fuzz/regressions/check/*; do
	put check "$f"
done
# sessions: the test fixtures, plus real sessions made by the binary when it is built
for f in "$SRC"/tests/*/*.json "$SRC"/tests/*/*session*.json "$SRC"/tests/fuzz/regressions/session/*; do
	put session "$f"
done
PT=${PT:-$SRC/build/pallas-triage}
if [ -x "$PT" ] && [ -f "$SRC/tests/fixtures/walk-logs/cap.log" ]; then
	t=$(mktemp -d)
	(
		cd "$t"
		export HOME="$t" XDG_DATA_HOME="$t/share" XDG_CACHE_HOME="$t/cache" PALLAS_TRIAGE_NOW=2025-01-01T00:00:00Z
		export PALLAS_TRIAGE_RULES="$SRC/tests/fixtures/walk-rules"
		cp "$SRC/tests/fixtures/walk-logs/cap.log" .
		"$PT" session start --interpret no cap.log >/dev/null 2>&1 || true
		i=0
		for r in same same new same fixed; do
			i=$((i + 1))
			cp .pallas-triage/session.json "$out/session/made-$i.json" 2>/dev/null || true
			"$PT" attempt --rung custom --change "try $i" --result "$r" >/dev/null 2>&1 || true
		done
		cp .pallas-triage/session.json "$out/session/made-end.json" 2>/dev/null || true
		# a real cache body (without magic, key and hash) seeds the cache target
		unset PALLAS_TRIAGE_RULES
		"$PT" --rules "$SRC/rules" cap.log >/dev/null 2>&1 || true
		for c in "$t"/cache/pallas-triage/rules-*.bin; do
			[ -f "$c" ] || continue
			python3 - "$c" "$out/cache/shipped.body" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
k = struct.unpack('<I', d[8:12])[0]
open(sys.argv[2], 'wb').write(d[12 + k:-8])
PY
		done
	)
	rm -rf "$t"
fi
for f in "$SRC"/tests/fuzz/regressions/cache/*; do put cache "$f"; done
echo "seeds: $(find "$out" -type f | wc -l) files in $out"
