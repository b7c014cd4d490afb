# The shortest happy walk: two attempts, fixed; no report files are written.
$PT session start --kernel k.py cap.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
ls
$PT session log
