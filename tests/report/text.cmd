# The same report as plain text.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --format text
