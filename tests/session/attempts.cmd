# The non-interactive walk: every prompt has a flag.
$PT session start --interpret no cap.log; echo "exit $?"
$PT attempt --result same; echo "exit $?"
$PT attempt --result n-a; echo "exit $?"
$PT attempt --rung custom --change "tiled the K loop by hand" --result same; echo "exit $?"
$PT attempt --rung capacity.halve-second --result same --change "block (256, 512)"; echo "exit $?"
$PT attempt --result new --log layout.log --change "weights in HBM"; echo "exit $?"
$PT attempt --result fixed; echo "exit $?"
$PT attempt --result same; echo "exit $?"
$PT session log
