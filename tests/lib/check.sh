# SPDX-License-Identifier: MIT
# check.sh - the shell tests' counting (sourced): ok, bad MESSAGE, try COMMAND...
# (its output in $W/out, shown when it fails); the caller sets W and ends with
#   echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
try() {
	if "$@" >"$W/out" 2>&1; then ok; return 0; fi
	bad "$*"; sed 's/^/  /' "$W/out" | tail -40; return 1
}
