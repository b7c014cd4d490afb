#!/bin/sh
# Fuzz regressions: every input that once made a fuzz target fail is kept as
# tests/fuzz/regressions/TARGET/NAME and replayed two ways:
#   1. through the real binary, the way such data reaches it (a log, a rules
#      file, a session file, a downloaded pack, a cache file): no crash, no
#      sanitizer report, an exit status from docs/exit-codes.md;
#   2. through the target's harness, built with $CC against $BUILD/libpt.a and
#      tests/fuzz/replay.c (with the build's sanitizers), which also checks the
#      harness's invariants (e.g. chunking does not change a verdict).
# Open findings (not fixed yet) are in tests/fuzz/open/ and are not replayed.
. "$(dirname "$0")/../lib.sh"
F=$SRC/tests/fuzz
R=$F/regressions
export PALLAS_TRIAGE_NOW=2025-01-01T00:00:00Z
unset PALLAS_TRIAGE_NO_CACHE
cd "$T" || exit 1

# no signal, no sanitizer report, and rc one of the allowed statuses
clean() { # NAME ALLOWED-STATUSES...
	n=$1
	shift
	if [ "$rc" -ge 128 ] || grep -Eq 'Sanitizer|runtime error|==[0-9]+==' "$T/err"; then
		not_ok "$n: exit $rc"
		sed 's/^/    /' "$T/err" | head -20
		return
	fi
	for s in "$@"; do
		[ "$rc" -eq "$s" ] && { ok "$n (exit $rc)"; return; }
	done
	not_ok "$n: exit $rc, expected one of $*"
	sed 's/^/    /' "$T/err" | head -5
}
pt() { "$PT" "$@" >"$T/out" 2>"$T/err"; rc=$?; }

for f in "$R"/classify/*; do
	[ -f "$f" ] || continue
	pt --rules "$SRC/rules" --no-input "$f"
	clean "binary: classify/$(basename "$f")" 0 1 3
done
# a kernel source: checked within 10 s (a slow input was a fuzz finding too)
for f in "$R"/check/*; do
	[ -f "$f" ] || continue
	timeout 10 "$PT" --rules "$SRC/rules" check "$f" >"$T/out" 2>"$T/err"
	rc=$?
	clean "binary: check/$(basename "$f")" 0 1 3
done
for f in "$R"/rules/*; do
	[ -f "$f" ] || continue
	rm -rf "$T/r" && mkdir "$T/r" && cp "$f" "$T/r/rules.yaml"
	pt rules validate "$T/r"
	clean "binary: rules/$(basename "$f")" 0 1
done
for f in "$R"/session/*; do
	[ -f "$f" ] || continue
	rm -rf "$T/s" && mkdir -p "$T/s/.pallas-triage" && cp "$f" "$T/s/.pallas-triage/session.json"
	(cd "$T/s" && PALLAS_TRIAGE_RULES=$SRC/rules "$PT" session status >"$T/out" 2>"$T/err")
	rc=$?
	clean "binary: session/$(basename "$f") status" 0 1 3
	(cd "$T/s" && PALLAS_TRIAGE_RULES=$SRC/rules "$PT" report >"$T/out" 2>"$T/err")
	rc=$?
	clean "binary: session/$(basename "$f") report" 0 1 3
done
# a pack: served by the loopback server of tests/http, fetched with `rules fetch`
if ls "$R"/pack/* >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	mkdir -p "$T/srv"
	python3 "$SRC/tests/http/server.py" "$T/srv" "$R/pack" &
	spid=$!
	trap 'kill "$spid" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
	i=0
	while [ ! -s "$T/srv/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$T/srv/port" 2>/dev/null)
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
	for f in "$R"/pack/*; do
		pt --rules "$SRC/rules" rules fetch --allow-http --name fuzz-regression \
			"http://127.0.0.1:$port/packs/$(basename "$f")"
		clean "binary: pack/$(basename "$f") fetch" 0 3
		pt --rules "$SRC/rules" rules list
		clean "binary: pack/$(basename "$f"): the rules still load" 0
		"$PT" rules remove fuzz-regression >/dev/null 2>&1
	done
	kill "$spid" 2>/dev/null
fi
# a cache file: the body of a real one replaced by the input, the hash fixed up
if ls "$R"/cache/* >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	PALLAS_TRIAGE_NO_CACHE=1 "$PT" --rules "$SRC/rules" --json "$SRC/docs/examples/vmem-oom.log" >"$T/want"
	for f in "$R"/cache/*; do
		rm -rf "$HOME/.cache"
		"$PT" --rules "$SRC/rules" --json "$SRC/docs/examples/vmem-oom.log" >/dev/null 2>&1
		if ! ls "$HOME"/.cache/pallas-triage/rules-*.bin >/dev/null 2>&1; then
			not_ok "binary: cache/$(basename "$f"): no cache file was written"
			continue
		fi
		python3 - "$HOME"/.cache/pallas-triage/rules-*.bin "$f" <<'PY'
import struct, sys
path, body = sys.argv[1], open(sys.argv[2], 'rb').read()
d = open(path, 'rb').read()
k = struct.unpack('<I', d[8:12])[0]
head = d[8:12 + k]
# rules_cache_checksum(): FNV-1a over 8-byte little-endian words in four
# lanes (word i in lane i % 4, whole groups of four), the lanes folded into
# one, then the words and bytes left
data, p, m = head + body, 0x100000001b3, 0xffffffffffffffff
lane = [0xcbf29ce484222325 + k for k in range(4)]
n32, n8 = len(data) // 32 * 32, len(data) // 8 * 8
for i in range(0, n32, 8):
    k = i // 8 % 4
    lane[k] = ((lane[k] ^ int.from_bytes(data[i:i + 8], 'little')) * p) & m
h = lane[0]
for k in range(1, 4):
    h = ((h ^ lane[k]) * p) & m
for i in range(n32, n8, 8):
    h = ((h ^ int.from_bytes(data[i:i + 8], 'little')) * p) & m
for c in data[n8:]:
    h = ((h ^ c) * p) & m
open(path, 'wb').write(d[:8] + head + body + struct.pack('<Q', h))
PY
		pt --rules "$SRC/rules" --json "$SRC/docs/examples/vmem-oom.log"
		clean "binary: cache/$(basename "$f")" 0
		check "binary: cache/$(basename "$f"): same answer as without the cache" cmp -s "$T/want" "$T/out"
	done
fi

# the harnesses, replayed with the compiler and sanitizers of $BUILD
CC=${CC:-cc}
lib=$SRC/$BUILD/libpt.a
san=""
if [ -f "$lib" ]; then
	nm "$lib" 2>/dev/null | grep -q '__asan_' && san="$san,address"
	nm "$lib" 2>/dev/null | grep -q '__ubsan_' && san="$san,undefined"
fi
[ -n "$san" ] && san="-fsanitize=${san#,} -fno-sanitize-recover=all"
PKGS="yaml-0.1 libcjson libcurl libpcre2-8"
for d in "$R"/*/; do
	t=$(basename "$d")
	ls "$d"* >/dev/null 2>&1 || continue
	if [ ! -f "$lib" ]; then
		not_ok "harness $t: no $lib"
		continue
	fi
	# shellcheck disable=SC2086
	if ! $CC -std=c11 -g $san -I"$SRC/include" -I"$F" -D_GNU_SOURCE -DPCRE2_CODE_UNIT_WIDTH=8 \
		-DPT_SRCDIR="\"$SRC\"" $(pkg-config --cflags $PKGS) -o "$T/replay_$t" \
		"$F/fuzz_$t.c" "$F/replay.c" "$lib" $(pkg-config --libs $PKGS) -lpthread 2>"$T/err"; then
		not_ok "harness $t: does not build"
		sed 's/^/    /' "$T/err" | head -10
		continue
	fi
	for f in "$d"*; do
		"$T/replay_$t" "$f" >"$T/out" 2>"$T/err"
		rc=$?
		clean "harness: $t/$(basename "$f")" 0
	done
done
finish
