# Bad command lines exit 2 and change nothing.
$PT session start --interpret no cap.log >/dev/null
$PT attempt; echo "exit $?"
$PT attempt --result maybe; echo "exit $?"
$PT attempt --interpret perhaps; echo "exit $?"
$PT attempt --log layout.log --result n-a; echo "exit $?"
$PT attempt --rung no.such-rung --result same; echo "exit $?"
$PT attempt --rung custom --result same; echo "exit $?"
$PT attempt --rung custom --change x --result n-a; echo "exit $?"
$PT attempt --interpret yes; echo "exit $?"
$PT session status --answers x; echo "exit $?"
$PT session start; echo "exit $?"
$PT session resume; echo "exit $?"
$PT report --format pdf; echo "exit $?"
$PT session log | head -n 1
