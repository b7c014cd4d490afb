# Input ends after the result of an attempt: the answer is kept as pending
# and the resumed walk asks only what is missing.
$PT session start cap.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
grep -A 5 '"pending"' .pallas-triage/session.json
$PT session resume --answers answers2
echo "exit $?"
