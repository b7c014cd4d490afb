#!/bin/sh
# The same failure from logs of different JAX releases (rules/jax-api.yaml):
# triage, --json, explain --jax, the session and the report spell each JAX
# API for the version in the log. Goldens pin the whole output; the checks
# below pin the spellings themselves, so a golden rewritten by mistake with
# a wrong spelling still fails.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
D=$SRC/tests/versions
golden_dir "$D"

differs() { ! cmp -s "$D/$1.expected" "$D/$2.expected"; }
has() { grep -qF -- "$2" "$D/$1.expected"; }
# lib.sh's lacks() on a golden: it fails on an empty file too
golden_lacks() { lacks "$D/$1.expected" "$2"; }

check "sync hang: 0.4.35 and 0.11.0 render differently" differs sync-hang-0.4.35 sync-hang-0.11.0
check "0.4.35: pltpu.semaphore_signal (pl. has none before 0.10.0)" \
	has sync-hang-0.4.35 'pltpu.semaphore_signal(b, device_id=peer); pltpu.semaphore_wait(b, 1)'
check "0.11.0: pl.semaphore_signal (pltpu.'s is gone in 0.11.0)" \
	has sync-hang-0.11.0 '; pl.semaphore_signal(b, device_id=peer); pl.semaphore_wait(b, 1)'
check "0.11.0: no pltpu.semaphore_ anywhere" golden_lacks sync-hang-0.11.0 'pltpu.semaphore_'
check "0.4.35: detect_races needs JAX >= 0.6.0" \
	has sync-hang-0.4.35 'note:   needs JAX >= 0.6.0 for detect_races (0.4.35 lacks it)'
check "0.11.0: no notes under rungs" golden_lacks sync-hang-0.11.0 'note:   '
check "no version: current spelling" has sync-hang-none '; pl.semaphore_signal(b, device_id=peer)'
check "no version: said once" test "$(grep -c 'the log does not say which JAX ran' "$D/sync-hang-none.expected")" -eq 1
check "json: snippets_for_jax" has json-sync-hang-0.4.35 '"snippets_for_jax": "0.4.35"'
check "json: notes of a rung" has json-sync-hang-0.4.35 '"notes": ["needs JAX >= 0.6.0 for detect_races (0.4.35 lacks it)"]'

check "capacity: 0.4.35 and 0.11.0 render differently" differs capacity-0.4.35 capacity-0.11.0
check "capacity 0.4.35: pltpu.TPUCompilerParams" \
	has capacity-0.4.35 'compiler_params=pltpu.TPUCompilerParams(vmem_limit_bytes=53477376)'
check "capacity 0.11.0: pltpu.CompilerParams" \
	has capacity-0.11.0 'compiler_params=pltpu.CompilerParams(vmem_limit_bytes=53477376)'

check "cast: 0.4.35 and 0.11.0 render differently" differs cast-0.4.35 cast-0.11.0
check "cast 0.4.35: upgrade to 0.10.0 first" has cast-0.4.35 '1/3 unsupported.upgrade-jax'
check "cast 0.4.35: the release that lowers it" has cast-0.4.35 'pip install -U "jax[tpu]>=0.10.0"'
check "cast 0.11.0: no upgrade (0.11.0 lowers it)" golden_lacks cast-0.11.0 'upgrade-jax'
check "erf_inv 0.4.35: upgrade to 0.8.2" has erf-inv-0.4.35 'pip install -U "jax[tpu]>=0.8.2"'

check "explain: --jax 0.4.35 and 0.11.0 differ" differs explain-sync-0.4.35 explain-sync-0.11.0
check "explain --jax 0.4.35: old spelling" has explain-sync-0.4.35 'pltpu.semaphore_signal(b, device_id=peer)'
check "explain without --jax: current spelling, said once" \
	test "$(grep -c 'spelled for current JAX' "$D/explain-sync-current.expected")" -eq 1

# a session and its report, from the same logs with the shipped rules
for v in 0.4.35 0.11.0; do
	mkdir -p "$T/s$v" && cd "$T/s$v"
	$PT session start "$D/sync-hang-$v.log" >/dev/null 2>&1
	$PT session status >"$T/status-$v.txt" 2>&1
	$PT report --format text >"$T/report-$v.txt" 2>&1
	$PT report --format json >"$T/report-$v.json" 2>&1
	cd "$T"
done
check "walk 0.4.35: the interpret question's note" grep -qxF '  note: needs JAX >= 0.6.0 for detect_races (0.4.35 lacks it)' "$T/status-0.4.35.txt"
check "walk 0.4.35: the rung's note" grep -qxF '  note    needs JAX >= 0.6.0 for detect_races (0.4.35 lacks it)' "$T/status-0.4.35.txt"
check "walk 0.11.0: the session is there" grep -q '^session: in-progress' "$T/status-0.11.0.txt"
check "walk 0.11.0: no notes" lacks "$T/status-0.11.0.txt" note
check "report 0.4.35: pltpu.semaphore_signal" grep -qF 'pltpu.semaphore_signal(b, device_id=peer)' "$T/report-0.4.35.txt"
check "report 0.4.35: says the version" grep -qxF 'note: API names are spelled for JAX 0.4.35, the version in the log' "$T/report-0.4.35.txt"
check "report 0.4.35: the flag's note" grep -qF 'give the run a timeout; needs JAX >= 0.6.0 for detect_races (0.4.35 lacks it)' "$T/report-0.4.35.txt"
check "report 0.11.0: pl.semaphore_signal" grep -qF '; pl.semaphore_signal(b, device_id=peer)' "$T/report-0.11.0.txt"
check "report 0.11.0: no pltpu.semaphore_" lacks "$T/report-0.11.0.txt" 'pltpu.semaphore_'
check "report json: snippets_for_jax" grep -qF '"snippets_for_jax": "0.11.0"' "$T/report-0.11.0.json"

# the rules cache keeps the table: a load from the cache spells, notes and
# upgrades like a load from the YAML
rm -rf "$HOME/.cache"
for f in sync-hang-0.4.35 cast-0.4.35; do
	PALLAS_TRIAGE_NO_CACHE=1 $PT --no-input "$D/$f.log" >"$T/$f.yaml-load" 2>&1
	$PT --no-input "$D/$f.log" >/dev/null 2>&1
	$PT --no-input "$D/$f.log" >"$T/$f.cache-load" 2>&1
	check "$f: the same from the YAML" cmp -s "$D/$f.expected" "$T/$f.yaml-load"
	check "$f: the same from the cache" cmp -s "$D/$f.expected" "$T/$f.cache-load"
done
check "the cache was written" sh -c "ls '$HOME'/.cache/pallas-triage/rules-*.bin >/dev/null 2>&1"
finish
