#!/bin/sh
# `pallas-triage check-block`: the property table contract.tsv (arguments -> exit
# status and --json fields), then the few full-text goldens of this directory
# (NAME.args, NAME.expected, NAME.rc; see tests/golden.sh) for the
# presentation. The numbers are worked out by hand in docs/calculators.md.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
contract_table "$SRC/tests/check-block/contract.tsv" check-block
golden_dir "$SRC/tests/check-block"

# The ladder never proposes a block that check-block flags: for a lowering
# error on each chip (the log names the chip but no dtype, as these logs
# do), every block the ladder's values propose is legal and no E2002 risk
# for 32- and 16-bit values on that chip.
ladder_ok=1
nprop=0
for kind in 'TPU v5 lite' 'TPU v5p' 'TPU v6 lite' 'TPU7x' 'TPU8t'; do
	for shape in '(4, 512)/(4096, 512)' '(12, 200)/(4096, 1000)' '(8, 200)/(64, 1000)' '(20, 384)/(4096, 384)' '(48, 256)/(96, 256)'; do
		b=${shape%/*}
		arr=${shape#*/}
		printf '%s\n%s\n' "jax.devices(): [TpuDevice(id=0)] device_kind=$kind" \
			"ValueError: The Pallas TPU lowering currently requires that the last two dimensions of your block shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the overall array. Block spec for args[0] in pallas_call k at /w/k.py:3 has block shape $b, array shape $arr, and index_map { lambda ; a:i32[]. let  in (a, 0) }, in memory space None." \
			>"$T/blk.log"
		(cd "$T" && $PTRUN --rules "$SRC/rules" --json blk.log) >"$T/blk.json" 2>/dev/null
		props=$(python3 -c "
import json, sys
d = json.load(open('$T/blk.json'))
v = d['values']
print(d['chip'] or '-', ' '.join(v[k].replace(' ', '') for k in ('block_legal', 'block_halved_second', 'block_halved_minor') if k in v))")
		chip=${props%% *}
		for p in ${props#* }; do
			for dt in f32 bf16; do
				nprop=$((nprop + 1))
				(cd "$T" && $PTRUN --rules "$SRC/rules" check-block --chip "$chip" --block "$p" --dtype "$dt" --array "$arr" --json) >"$T/cb.json" 2>&1
				python3 -c "
import json, sys
d = json.load(open('$T/cb.json'))
sys.exit(0 if d['legal'] and not d['e2002_risk'] else 1)" || {
					ladder_ok=0
					echo "    $kind, block $b: the ladder proposes $p, which check-block calls $(python3 -c "import json; print(json.load(open('$T/cb.json')).get('verdict', 'a risk'))" 2>/dev/null) for $dt"
				}
			done
		done
	done
done
check "the ladder proposed blocks to check ($nprop)" test "$nprop" -ge 40
check "every block the ladder proposes is one check-block calls legal" test "$ladder_ok" = 1
finish
