# A session for another failure is kept in the archive, not overwritten;
# the same failure resumes its session.
$PT session start --interpret no cap.log | head -n 2
$PT attempt --result same | head -n 1
$PT session start cap-again.log | head -n 1
$PT session start layout.log | head -n 1
$PT session status | head -n 3
ls .pallas-triage/archive
$PT session reset
$PT session reset
ls .pallas-triage/archive
