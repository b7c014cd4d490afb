# A torn or hand-broken file: exit 3, the file is kept, reset moves it aside.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT session status; echo "exit $?"
$PT attempt --result same; echo "exit $?"
$PT report; echo "exit $?"
cmp session.json .pallas-triage/session.json && echo "the file is kept"
$PT session reset; echo "exit $?"
cmp session.json .pallas-triage/archive/session-1.json && echo "archived as it was"
$PT session status; echo "exit $?"
