# The generic golden runner, sourced by suites after lib.sh.
# golden_dir DIR: for each DIR/NAME.args (arguments, one per line; the word
# @DIR is replaced by the case directory) run the binary, and compare stdout
# with NAME.expected, stderr with NAME.stderr (default: empty), and the exit
# status with NAME.rc (default 0). NAME.stdin, if present, is standard input.
# UPDATE_GOLDEN=1 rewrites the expected files from what the binary printed.
golden_dir() {
	dir=$1
	for args in "$dir"/*.args; do
		[ -f "$args" ] || continue
		name=${args%.args}
		base=$(basename "$name")
		set --
		while IFS= read -r a || [ -n "$a" ]; do
			a=$(printf '%s' "$a" | sed "s|@DIR|$dir|g; s|@SRC|$SRC|g")
			set -- "$@" "$a"
		done <"$args"
		stdin=/dev/null
		[ -f "$name.stdin" ] && stdin="$name.stdin"
		(cd "$T" && $PTRUN "$@" <"$stdin" >"$T/out" 2>"$T/err")
		rc=$?
		want_rc=0
		[ -f "$name.rc" ] && want_rc=$(cat "$name.rc")
		sed -i "s|$dir/||g; s|$SRC/||g" "$T/out" "$T/err"
		if [ -n "${UPDATE_GOLDEN:-}" ]; then
			cp "$T/out" "$name.expected"
			if [ -s "$T/err" ]; then cp "$T/err" "$name.stderr"; else rm -f "$name.stderr"; fi
			if [ "$rc" -ne 0 ]; then echo "$rc" >"$name.rc"; else rm -f "$name.rc"; fi
			echo "updated $base"
			continue
		fi
		bad=""
		[ "$rc" -eq "$want_rc" ] || bad="exit status $rc, expected $want_rc"
		if ! diff -u "$name.expected" "$T/out" >"$T/diff" 2>&1; then bad="$bad stdout differs"; fi
		if [ -f "$name.stderr" ]; then
			diff -u "$name.stderr" "$T/err" >>"$T/diff" 2>&1 || bad="$bad stderr differs"
		elif [ -s "$T/err" ]; then
			bad="$bad unexpected stderr"
			cat "$T/err" >>"$T/diff"
		fi
		if [ -z "$bad" ]; then ok "$base"; else not_ok "$base: $bad"; sed 's/^/    /' "$T/diff" | head -40; fi
	done
}
# contract_table TABLE COMMAND: the rows of a property table (tests/contract.py
# says the format), counted with this suite's own cases
contract_table() {
	PTRUN=$PTRUN python3 "$SRC/tests/contract.py" "$1" "$2" >"$T/contract.out" 2>&1
	grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$T/contract.out"
	line=$(tail -n 1 "$T/contract.out")
	case "$line" in
	*' passed, '*' failed') ;;
	*) not_ok "$1: the table runner ended without a count"; return ;;
	esac
	npass=$((npass + ${line%% passed*}))
	f=${line#* passed, }
	nfail=$((nfail + ${f%% failed}))
}
