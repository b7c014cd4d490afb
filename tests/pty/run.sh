#!/bin/sh
# The tests in a real terminal (tmux): the walk (walk_tmux.sh) and terminal
# manners (terminal_tmux.sh) and a session across five reruns of one kernel
# (trajectory_tmux.sh); their counts are added up into one line.
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
p=0
f=0
for t in walk_tmux.sh terminal_tmux.sh trajectory_tmux.sh; do
	sh "$here/$t" >"$out" 2>&1
	rc=$?
	grep -Ev '^[0-9]+ passed, [0-9]+ failed$' "$out"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $t: no summary line (exit $rc)"
		f=$((f + 1))
		continue
	fi
	p=$((p + ${line%% passed*}))
	n=${line#*, }
	f=$((f + ${n%% failed*}))
	[ "$rc" -ne 0 ] && [ "${n%% failed*}" -eq 0 ] && { echo "FAIL $t: exit $rc"; f=$((f + 1)); }
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
