# A closed session is not walked again; resume says how it ended.
$PT session start --interpret no cap.log >/dev/null
$PT attempt --result fixed >/dev/null
printf 'same\n' > answers
$PT session resume --answers answers; echo "exit $?"
