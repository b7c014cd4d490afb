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
check "0.4.35: pltpu.semaphore_signal (pl. has none before 0.6.0)" \
	has sync-hang-0.4.35 'pltpu.semaphore_signal(b, device_id=peer); pltpu.semaphore_wait(b, 1)'
check "0.11.0: pl.semaphore_signal (pltpu.'s is gone in 0.11.0)" \
	has sync-hang-0.11.0 '; pl.semaphore_signal(b, device_id=peer); pl.semaphore_wait(b, 1)'
check "0.11.0: no pltpu.semaphore_ anywhere" golden_lacks sync-hang-0.11.0 'pltpu.semaphore_'
check "0.4.35: interpret mode with the race detector is not offered" \
	has sync-hang-0.4.35 'change: not available in JAX 0.4.35: jax._src.pallas.mosaic.interpret.TPUInterpretParams (JAX >= 0.5.1), detect_races (JAX >= 0.5.3), dma_execution_mode (JAX >= 0.5.3); upgrade JAX to 0.5.3 or later'
check "0.4.35: no InterpretParams call to paste" golden_lacks sync-hang-0.4.35 'InterpretParams(detect_races'
check "0.4.35: the reset has its instead" \
	has sync-hang-0.4.35 'pltpu.reset_tpu_interpret_mode_state (JAX >= 0.7.0); upgrade JAX to 0.7.0 or later, or instead: run each failing case in a fresh Python process'
check "0.11.0: no notes under rungs" golden_lacks sync-hang-0.11.0 'note:   '
check "no version: the newest release's spelling" has sync-hang-none '; pl.semaphore_signal(b, device_id=peer)'
check "no version: said once" test "$(grep -c 'the log does not say which JAX ran' "$D/sync-hang-none.expected")" -eq 1
check "json: snippets_for_jax" has json-sync-hang-0.4.35 '"snippets_for_jax": "0.4.35"'
check "json: the interpret rung is not available" \
	has json-sync-hang-0.4.35 '"change": "not available in JAX 0.4.35: jax._src.pallas.mosaic.interpret.TPUInterpretParams (JAX >= 0.5.1)'

check "capacity: 0.4.35 and 0.11.0 render differently" differs capacity-0.4.35 capacity-0.11.0
check "capacity 0.4.35: pltpu.TPUCompilerParams" \
	has capacity-0.4.35 'compiler_params=pltpu.TPUCompilerParams(vmem_limit_bytes=53477376)'
check "capacity 0.11.0: pltpu.CompilerParams" \
	has capacity-0.11.0 'compiler_params=pltpu.CompilerParams(vmem_limit_bytes=53477376)'
check "capacity 0.4.35: no Buffered before 0.5.1" \
	has capacity-0.4.35 'not available in JAX 0.4.35: pipeline_mode (JAX >= 0.5.1), pl.Buffered (JAX >= 0.5.1)'

check "cast: 0.4.35 and 0.11.0 render differently" differs cast-0.4.35 cast-0.11.0
check "cast 0.4.35: upgrade to 0.9.2 first" has cast-0.4.35 '1/3 unsupported.upgrade-jax'
check "cast 0.4.35: the release that lowers it" has cast-0.4.35 'pip install -U "jax[tpu]>=0.9.2"'
check "cast 0.11.0: no upgrade (0.11.0 lowers it)" golden_lacks cast-0.11.0 'upgrade-jax'
check "erf_inv 0.4.30: upgrade to 0.4.31" has erf-inv-0.4.30 'pip install -U "jax[tpu]>=0.4.31"'
check "cast 0.4.35: verbose errors arrive in 0.4.36" \
	has cast-0.4.35 'debug:  not available in JAX 0.4.35: jax_pallas_verbose_errors (JAX >= 0.4.36)'

check "explain: --jax 0.4.35 and 0.11.0 differ" differs explain-sync-0.4.35 explain-sync-0.11.0
check "explain --jax 0.4.35: old spelling" has explain-sync-0.4.35 'pltpu.semaphore_signal(b, device_id=peer)'
check "explain --jax 0.4.35: prose marks what the release lacks" \
	has explain-sync-0.4.35 'with detect_races (JAX >= 0.5.3)=True prints races'
check "explain without --jax: the newest release, said once" \
	test "$(grep -c 'spelled for JAX 0.11.0, the newest release' "$D/explain-sync-current.expected")" -eq 1

# --jax on triage and on session start: the log's version is overridden
$PT --no-input --jax 0.7.2 "$D/capacity-0.4.35.log" >"$T/capacity-as-0.7.2" 2>&1
check "triage --jax 0.7.2 over the log's 0.4.35: pltpu.CompilerParams" \
	grep -qF 'compiler_params=pltpu.CompilerParams(vmem_limit_bytes=53477376)' "$T/capacity-as-0.7.2"
check "triage --jax 0.7.2: the version shown is the one given" grep -qF 'jax_version=0.7.2' "$T/capacity-as-0.7.2"
check "triage --jax 0.7.2: no TPUCompilerParams" sh -c "! grep -q TPUCompilerParams '$T/capacity-as-0.7.2'"
$PT --json --jax 0.4.31 "$D/capacity-0.11.0.log" >"$T/capacity-as-0.4.31.json" 2>&1
check "triage --json --jax 0.4.31: the dict form" \
	grep -qF 'compiler_params=dict(mosaic=dict(vmem_limit_bytes=53477376))' "$T/capacity-as-0.4.31.json"
check "triage --json --jax 0.4.31: snippets_for_jax" grep -qF '"snippets_for_jax": "0.4.31"' "$T/capacity-as-0.4.31.json"
$PT --no-input --jax 0.11.0 "$D/cast-0.4.35.log" >"$T/cast-as-0.11.0" 2>&1
check "triage --jax 0.11.0 over 0.4.35: no upgrade rung" sh -c "! grep -q upgrade-jax '$T/cast-as-0.11.0'"
$PT --jax 0.4 "$D/cast-0.4.35.log" >"$T/bad-jax" 2>&1
check "triage --jax 0.4: a usage error" test $? -eq 2
check "triage --jax 0.4: says why" grep -qF -- "--jax '0.4' is not a JAX release such as 0.4.35" "$T/bad-jax"
mkdir -p "$T/sj" && cd "$T/sj"
$PT session start --jax 0.11.0 "$D/sync-hang-0.4.35.log" >/dev/null 2>&1
$PT session status >"$T/status-as-0.11.0.txt" 2>&1
cd "$T"
check "session start --jax 0.11.0 over 0.4.35: the race detector is offered" \
	grep -qF 'interpret=pltpu.InterpretParams(detect_races=True, dma_execution_mode="eager")' "$T/status-as-0.11.0.txt"
check "session start --jax 0.11.0: recorded" grep -qF '"jax_version": "0.11.0"' "$T/sj/.pallas-triage/session.json"
$PT session start --jax x "$D/sync-hang-0.4.35.log" >"$T/sbad" 2>&1
check "session start --jax x: a usage error" test $? -eq 2

# The release sweep: every class's explanation and ladder (every rung's
# change, action, expect and debug switches) and every log here, rendered
# by the binary for each release; no placeholder may be left, and no name
# of ranges.txt written at a release outside its range unless marked.
older() { # A < B as releases
	[ "$1" = "$2" ] && return 1
	[ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n | head -n 1)" = "$1" ]
}
sweep_bad=0
for v in 0.4.30 0.4.31 0.4.35 0.5.0 0.5.1 0.6.0 0.6.1 0.6.2 0.7.0 0.7.2 0.8.0 0.9.0 0.10.2 0.11.0; do
	out=$T/sweep-$v.txt
	: >"$out"
	for c in layout capacity synchronization numerics unsupported unknown; do
		$PT explain --jax "$v" "$c" >>"$out" 2>&1
	done
	for log in "$D"/*.log; do
		$PT --no-input --jax "$v" "$log" >>"$out" 2>&1
	done
	if grep -qF '${api:' "$out"; then
		echo "sweep $v: a placeholder is left"; sweep_bad=$((sweep_bad + 1))
	fi
	grep -v '^#' "$D/ranges.txt" | while read -r name first gone; do
		[ -n "$name" ] || continue
		inside=true
		older "$v" "$first" && inside=false
		[ "$gone" != - ] && ! older "$v" "$gone" && inside=false
		$inside && continue
		# an occurrence followed by anything but its mark is a name the release lacks
		if awk -v n="$name" '{ s = $0; while ((i = index(s, n)) > 0) { r = substr(s, i + length(n));
			if (r !~ /^ \(JAX >= / && r !~ /^ \(removed in JAX /) bad = 1; s = r } }
			END { exit !bad }' "$out"; then
			echo "sweep $v: '$name' is written outside $first..$gone"
		fi
	done >"$T/sweep-$v.bad"
	[ -s "$T/sweep-$v.bad" ] && { cat "$T/sweep-$v.bad"; sweep_bad=$((sweep_bad + 1)); }
	check "sweep $v: rendered something" test "$(wc -l <"$out")" -gt 500
done
check "sweep: every rendered name within its range, at every release" test "$sweep_bad" -eq 0

# a session and its report, from the same logs with the shipped rules
for v in 0.4.35 0.11.0; do
	mkdir -p "$T/s$v" && cd "$T/s$v"
	$PT session start "$D/sync-hang-$v.log" >/dev/null 2>&1
	$PT session status >"$T/status-$v.txt" 2>&1
	$PT report --format text >"$T/report-$v.txt" 2>&1
	$PT report --format json >"$T/report-$v.json" 2>&1
	cd "$T"
done
check "walk 0.4.35: the interpret question offers no InterpretParams" \
	grep -qF 'not available in JAX 0.4.35: jax._src.pallas.mosaic.interpret.TPUInterpretParams (JAX >= 0.5.1)' "$T/status-0.4.35.txt"
check "walk 0.4.35: nothing to paste that 0.4.35 lacks" lacks "$T/status-0.4.35.txt" 'InterpretParams(detect_races'
check "walk 0.11.0: the session is there" grep -q '^session: in-progress' "$T/status-0.11.0.txt"
check "walk 0.11.0: no notes" lacks "$T/status-0.11.0.txt" note
check "report 0.4.35: pltpu.semaphore_signal" grep -qF 'pltpu.semaphore_signal(b, device_id=peer)' "$T/report-0.4.35.txt"
check "report 0.4.35: says the version" grep -qxF 'note: API names are spelled for JAX 0.4.35, the version in the log' "$T/report-0.4.35.txt"
check "report 0.4.35: the flag is not available" grep -qF 'not available in JAX 0.4.35: jax._src.pallas.mosaic.interpret.TPUInterpretParams (JAX >= 0.5.1), detect_races (JAX >= 0.5.3)' "$T/report-0.4.35.txt"
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
