$PT session start --kernel k.py cap.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
echo "--- files"
ls . .pallas-triage .pallas-triage/logs
echo "--- pallas-triage-report.md"
cat pallas-triage-report.md
echo "--- pallas-triage-report.json"
cat pallas-triage-report.json
