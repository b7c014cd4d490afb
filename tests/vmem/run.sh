#!/bin/sh
# `pallas-triage vmem`: the property table contract.tsv (arguments -> exit
# status and --json fields), then the few full-text goldens of this directory
# (NAME.args, NAME.expected, NAME.rc; see tests/golden.sh) for the
# presentation. The numbers are worked out by hand in docs/calculators.md.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
contract_table "$SRC/tests/vmem/contract.tsv" vmem
golden_dir "$SRC/tests/vmem"
finish
