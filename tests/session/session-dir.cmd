# --session-dir DIR and PALLAS_TRIAGE_SESSION_DIR keep the session elsewhere
# (like GIT_DIR); the option wins, and the report goes beside the directory.
mkdir elsewhere
$PT --session-dir elsewhere/s session start --interpret no cap.log | head -n 1
ls -a | grep pallas || echo "no .pallas-triage here"
PALLAS_TRIAGE_SESSION_DIR=elsewhere/s $PT attempt --result same | head -n 1
PALLAS_TRIAGE_SESSION_DIR=nowhere $PT session status --session-dir elsewhere/s | head -n 1
$PT session status; echo "exit $?"
for i in 2 3 4 5 6 7 8 9 10; do
	$PT attempt --session-dir elsewhere/s --rung custom --change "try $i" --result same >/dev/null
done
ls elsewhere
$PT --session-dir= session status; echo "exit $?"
