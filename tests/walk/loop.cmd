# The edit-and-rerun loop: `python k.py 2>&1 | pallas-triage`, again and
# again. The first log starts the session (and is kept: a pipe cannot be
# read twice); each new log is the result of the last change: the same
# error, a different one, then no failure (fixed). One session, three
# attempts, every piped log kept. The same log piped again is no attempt.
printf 'q\n' >quit
printf '\nq\n' >same
printf 'weights in HBM\nq\n' >different
printf 'fixed\nhalved the block\n' >fixed
cat cap.log | $PT --answers quit >first.out; echo "exit $?"
head -n 3 first.out
cat cap.log | $PT -q --answers quit | grep -E '^(resuming|this log)'
cat cap-again.log | $PT -q --answers same | sed -n '/^this log/,/^changed>/p'
cat layout.log | $PT -q --answers different | sed -n '/^this log/,/^  recorded/p'
printf 'all 12 tests passed\n' | $PT -q --answers fixed | sed -n '/^this log/,$p'; echo "exit $?"
$PT session log
ls .pallas-triage/logs
$PT report | grep -F 'Log'
