#!/bin/sh
# `make install PREFIX=... DESTDIR=...` puts the binary, the rules and the
# man page in place, and the installed binary finds its installed rules.
. "$(dirname "$0")/../lib.sh"
make -s -C "$SRC" BUILD="$T/build" PREFIX="$T/prefix" install >"$T/make.out" 2>&1
check "make install succeeds" test $? -eq 0 || tail -20 "$T/make.out"
check "binary installed" test -x "$T/prefix/bin/pallas-triage"
check "rules installed" test -f "$T/prefix/share/pallas-triage/rules/classes.yaml"
check "man page installed" test -f "$T/prefix/share/man/man1/pallas-triage.1"
(cd "$T" && "$T/prefix/bin/pallas-triage" rules validate >"$T/v.out" 2>&1)
check "installed binary uses the installed rules" grep -q "^$T/prefix/share/pallas-triage/rules:" "$T/v.out"
make -s -C "$SRC" BUILD="$T/build" PREFIX=/opt/pt DESTDIR="$T/stage" install >/dev/null 2>&1
check "DESTDIR stages under the prefix" test -x "$T/stage/opt/pt/bin/pallas-triage"
make -s -C "$SRC" BUILD="$T/build" PREFIX=/opt/pt DESTDIR="$T/stage" uninstall >/dev/null 2>&1
check "uninstall removes it" test ! -e "$T/stage/opt/pt/bin/pallas-triage"
finish
