#!/bin/sh
# SPDX-License-Identifier: MIT
# The man page, --help and the command list agree: every long option a
# command's --help shows is in its man page section and the other way round.
#   tests/cli/check_docs.sh PMAPS MANPAGE
set -u
PMAPS=$1 MAN=$2
pass=0 fail=0
opts() { grep -o -- '--[a-z][a-z-]*' | sort -u; }
for cmd in maps pages explain top watch run phys demo; do
	"$PMAPS" "$cmd" --help | opts >/tmp/pmaps-help.$$
	sed -n "/^\.SS \"pmaps $cmd\"/,/^\.S[SH]/p" "$MAN" | sed 's/\\-/-/g' | opts >/tmp/pmaps-man.$$
	if [ ! -s /tmp/pmaps-help.$$ ]; then
		echo "FAIL: pmaps $cmd --help shows no options"; fail=$((fail + 1))
	elif diff /tmp/pmaps-help.$$ /tmp/pmaps-man.$$ >/tmp/pmaps-diff.$$; then
		pass=$((pass + 1))
	else
		echo "FAIL: pmaps $cmd: --help (<) and the man page (>) differ:"; cat /tmp/pmaps-diff.$$
		fail=$((fail + 1))
	fi
	# Each command in the global help has a man page section.
	if "$PMAPS" --help | grep -q "^  $cmd " && grep -q "^\.SS \"pmaps $cmd\"" "$MAN"; then
		pass=$((pass + 1))
	else
		echo "FAIL: pmaps $cmd missing from --help or the man page"; fail=$((fail + 1))
	fi
done
rm -f /tmp/pmaps-help.$$ /tmp/pmaps-man.$$ /tmp/pmaps-diff.$$
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
