# One rung and it fails: no rung is left, the walk stops before attempt 10
# and writes the report.
$PT session start unsupported.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
head -n 3 pallas-triage-report.md
