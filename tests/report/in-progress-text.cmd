# A session in progress: the remaining rungs are what to try next.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --format text
