# Without a session every reader says so (exit 1) and nothing is created.
$PT session status; echo "exit $?"
$PT session log; echo "exit $?"
$PT report; echo "exit $?"
$PT attempt --result same; echo "exit $?"
$PT session reset; echo "exit $?"
ls -a | grep pallas || echo "no .pallas-triage"
