# The same report as JSON.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --format json
