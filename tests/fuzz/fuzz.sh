#!/bin/sh
# `make fuzz`: build the libFuzzer targets with clang (ASan + UBSan) against
# the library objects in build-fuzz, make the seed corpora, and run each
# target for FUZZ_SECONDS (default 60). Crashes land in
# build-fuzz/findings/TARGET/; keep one as tests/fuzz/regressions/TARGET/NAME.
# The corpora grow in build-fuzz/corpus/TARGET across runs.
# Usage: tests/fuzz/fuzz.sh deps|build|run [TARGET...]
#   deps    install clang and libclang-rt when missing (apt, as root)
#   build   compile the targets only (the Makefile built libpt.a already)
#   run     build, then fuzz each TARGET (default: all) for FUZZ_SECONDS
# FUZZ_JOBS=N runs N targets at once (default 1); FUZZ_ARGS adds libFuzzer flags.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC"
B=${FUZZ_BUILD:-build-fuzz}
secs=${FUZZ_SECONDS:-60}
mode=${1:-run}
[ $# -gt 0 ] && shift
targets=${*:-$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)}
# clang and its libFuzzer/sanitizer runtimes, installed the way
# tests/deps.sh installs the build dependencies
have_fuzzer() {
	command -v clang >/dev/null 2>&1 &&
		[ -f "$(clang -print-runtime-dir)/libclang_rt.fuzzer-$(uname -m).a" ]
}
if ! have_fuzzer; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "pallas-triage: fuzzing needs clang and libFuzzer:" \
		     "sudo apt-get install -y clang libclang-rt-14-dev" >&2
		exit 1
	fi
	echo "installing: clang libclang-rt-14-dev" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq </dev/null >&2
	apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev </dev/null >&2 || exit 1
fi
[ "$mode" = deps ] && exit 0
PKGS="yaml-0.1 libcjson libcurl libpcre2-8"
CPP="-Iinclude -Itests/fuzz -D_GNU_SOURCE -DPCRE2_CODE_UNIT_WIDTH=8 -DPT_SRCDIR=\"$SRC\" $(pkg-config --cflags $PKGS)"
FLAGS="-std=c11 -Wall -Wextra -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
for t in $targets; do
	bin=$B/fuzz_$t
	if [ ! -x "$bin" ] || [ -n "$(find "tests/fuzz/fuzz_$t.c" tests/fuzz/fuzz.h "$B/libpt.a" -newer "$bin" 2>/dev/null)" ]; then
		echo "clang -o $bin tests/fuzz/fuzz_$t.c"
		# shellcheck disable=SC2086
		clang $FLAGS $CPP -o "$bin" "tests/fuzz/fuzz_$t.c" "$B/libpt.a" $(pkg-config --libs $PKGS) -lpthread || exit 1
	fi
done
[ "$mode" = build ] && exit 0
PT="$SRC/build/pallas-triage" sh tests/fuzz/seeds.sh "$B/seeds"
fuzz_one() {
	t=$1
	mkdir -p "$B/corpus/$t" "$B/findings/$t"
	log=$B/fuzz_$t.log
	echo "fuzz_$t: ${secs}s, log in $log"
	# the cache seed (a real cache body) is 150 KB; logs past 128 KB add little
	case $t in cache) maxlen=262144 ;; *) maxlen=131072 ;; esac
	# -rss_limit_mb: the classifier promises bounded memory; -timeout: no hangs
	# shellcheck disable=SC2086
	"$B/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=$maxlen \
		-print_final_stats=1 -artifact_prefix="$B/findings/$t/" ${FUZZ_ARGS:-} \
		"$B/corpus/$t" "$B/seeds/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	found=$(find "$B/findings/$t" -type f | wc -l)
	echo "fuzz_$t: exit $rc, ${execs:-?} executions in ${secs}s, $found file(s) in $B/findings/$t"
	return "$rc"
}
jobs=${FUZZ_JOBS:-1}
status=0
pids=""
for t in $targets; do
	fuzz_one "$t" &
	pids="$pids $!"
	set -- $pids
	if [ $# -ge "$jobs" ]; then
		for p in $pids; do wait "$p" || status=1; done
		pids=""
	fi
done
for p in $pids; do wait "$p" || status=1; done
exit "$status"
