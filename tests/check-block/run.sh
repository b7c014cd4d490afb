#!/bin/sh
# Golden cases for `pallas-triage check-block`: NAME.args, NAME.expected, NAME.rc, NAME.stderr
# (see tests/golden.sh). The numbers are worked out by hand in docs/calculators.md
# and tests/unit/test_block.c.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
golden_dir "$SRC/tests/check-block"
finish
