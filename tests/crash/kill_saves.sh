#!/bin/sh
# Crash safety: `attempt` is killed with SIGKILL at varying moments, hundreds
# of times, many of them while it saves. After every kill the session must
# load (never a torn file) and hold every attempt that was acknowledged (the
# command exited before the kill); at most the one in flight may be added.
# Rounds: CRASH_ROUNDS (default 300).
. "$(dirname "$0")/../lib.sh"
export PALLAS_TRIAGE_RULES="$SRC/tests/fixtures/walk-rules"
rounds=${CRASH_ROUNDS:-300}
cd "$T" || exit 1
cp "$SRC/tests/fixtures/walk-logs/cap.log" .
fresh() { "$PT" session reset >/dev/null && "$PT" session start --interpret no cap.log >/dev/null; }
used() { "$PT" session status --json 2>"$T/err" | sed -n 's/^  "attempts_used": \([0-9]*\),$/\1/p'; }
state() { "$PT" session status --json 2>/dev/null | sed -n 's/^  "status": "\(.*\)",$/\1/p'; }
fresh || { not_ok "start a session"; finish; exit 1; }
# How long does one attempt take here? The kills are spread over that span,
# so they land in every phase (load, record, save) on fast and slow machines.
t0=$(date +%s%N)
for k in 1 2 3 4 5; do "$PT" attempt --rung custom --change probe --result same >/dev/null 2>&1; done
span_us=$(( ($(date +%s%N) - t0) / 5000 ))
[ "$span_us" -lt 1000 ] && span_us=1000
fresh
acked=0 killed=0 completed=0 torn=0 lost=0 temps=0 mid_save=0 i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	if [ "$(state)" != in-progress ]; then
		fresh
		acked=0
	fi
	"$PT" attempt --rung custom --change "change $i" --result same >/dev/null 2>&1 &
	pid=$!
	# spread the kills over 0 to 120% of the command's life, in a fixed pattern
	sleep "$(printf '0.%06d' $(( (i * 7919) % 100 * span_us * 12 / 1000 )))"
	kill -9 "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	# a temp file left behind: the kill landed inside a save
	ls .pallas-triage | grep -q '^session\.json\.tmp\.' && mid_save=$((mid_save + 1))
	if [ "$rc" -eq 137 ]; then killed=$((killed + 1)); else completed=$((completed + 1)); fi
	# exit 0 or 1 (recorded, and perhaps the walk stopped): acknowledged
	[ "$rc" -le 1 ] && acked=$((acked + 1))
	n=$(used)
	if [ -z "$n" ]; then
		torn=$((torn + 1))
		echo "round $i: the session does not load: $(cat "$T/err")"
		fresh
		acked=0
		continue
	fi
	if [ "$n" -lt "$acked" ] || [ "$n" -gt $((acked + 1)) ]; then
		lost=$((lost + 1))
		echo "round $i: $n attempts saved, $acked acknowledged"
	fi
	acked=$n
	# a killed save may leave one temp file; the next save removes it
	t=$(ls .pallas-triage | grep -c '^session\.json\.tmp\.' || true)
	[ "$t" -gt 1 ] && temps=$((temps + 1))
done
echo "$rounds rounds: $killed killed mid-run ($mid_save inside a save), $completed completed"
check "the session loads after every kill ($torn torn)" [ "$torn" -eq 0 ]
check "no acknowledged attempt is ever lost ($lost rounds wrong)" [ "$lost" -eq 0 ]
check "stale temp files are cleaned up ($temps rounds with more than one)" [ "$temps" -eq 0 ]
check "some kills hit the command while it ran" [ "$killed" -gt 0 ]
[ -n "${VALGRIND:-}" ] || check "some kills landed inside a save (between temp file and rename)" [ "$mid_save" -gt 0 ]  # valgrind starts too slowly to hit the window
check "some attempts completed" [ "$completed" -gt 0 ]
finish
