# Nothing archived is lost: 'session restore' brings back the latest archived
# session (or number N), archiving the one in its place first.
$PT session restore; echo "exit $?"
$PT session start --interpret no cap.log >/dev/null
$PT attempt --result same --change "limit 24M" >/dev/null
$PT session reset
$PT session start layout.log | head -n 1
$PT session restore; echo "exit $?"
$PT session status | head -n 2
ls .pallas-triage/archive
$PT session restore 1; echo "exit $?"
$PT session status | head -n 1
$PT session restore 7; echo "exit $?"
$PT session restore x; echo "exit $?"
echo '{' >.pallas-triage/archive/session-9.json
$PT session restore 9; echo "exit $?"
ls .pallas-triage/archive
