#!/bin/sh
# Golden cases for `pallas-triage vmem`: NAME.args, NAME.expected, NAME.rc, NAME.stderr
# (see tests/golden.sh). The numbers are worked out by hand in docs/calculators.md
# and tests/unit/test_vmem.c.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
golden_dir "$SRC/tests/vmem"
finish
