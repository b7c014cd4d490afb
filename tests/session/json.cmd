# --json everywhere for agents and CI.
$PT session start --json numerics.log; echo "exit $?"
$PT attempt --json --interpret skip; echo "exit $?"
$PT attempt --json --result same; echo "exit $?"
$PT session status --json; echo "exit $?"
$PT session log --json; echo "exit $?"
