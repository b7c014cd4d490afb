# The escalation report of a blocked session, in markdown (the default).
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report
