# --kernel saves FILE.pre-debug once and never overwrites it; a kernel that
# cannot be read stops before anything changes.
$PT session start --kernel k.py cap.log | head -n 1
echo v2 > k.py
$PT session start --kernel k.py cap.log | head -n 1
cat k.py.pre-debug
$PT session start --kernel k.py layout.log | head -n 2
cat k.py.pre-debug
$PT session start --kernel missing.py cap.log
echo "exit $?"
ls .pallas-triage/archive
