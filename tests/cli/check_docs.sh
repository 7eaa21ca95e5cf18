#!/bin/sh
# SPDX-License-Identifier: MIT
# The man page, --help and the command list agree: every long option a
# command's --help shows is in its man page section and the other way round.
#   tests/cli/check_docs.sh PMAPS MANPAGE
set -u
PMAPS=$1 MAN=$2
pass=0 fail=0
opts() { grep -o -- '--[a-z][a-z-]*' | sort -u; }
for cmd in maps pages explain top watch run phys serve wss demo; do
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
# The man page's and the README's version are the tool's.
version=$("$PMAPS" --version | sed -n 's/^pmaps //p')
if sed -n 2p "$MAN" | grep -q "\"pmaps $version\""; then pass=$((pass + 1))
else echo "FAIL: the man page's .TH does not say pmaps $version: $(sed -n 2p "$MAN")"; fail=$((fail + 1)); fi
README=$(dirname "$MAN")/../README.md
if ! grep -q 'libpmaps\.so\.0\.[0-9]' "$README" || grep -q "libpmaps\.so\.$version" "$README"; then
	pass=$((pass + 1))
else
	echo "FAIL: README names another libpmaps.so than $version: $(grep -o 'libpmaps\.so\.0\.[0-9.]*' "$README")"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
