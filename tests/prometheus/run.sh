#!/bin/sh
# SPDX-License-Identifier: MIT
# The shipped Prometheus rules (contrib/prometheus/pmaps.rules.yml): promtool
# checks them, then runs their unit tests (pmaps.rules.test.yml here): each
# alert fires on the series it is written for, after its "for", with its
# annotations as written, and not on its near misses.
# Exit 77 (skipped) without promtool, outside CI; in CI that fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
if ! command -v promtool >/dev/null 2>&1; then
	case "${CI:-}" in
	"" | false) echo "prometheus_rules: skipped: no promtool (Debian's prometheus package)"; exit 77 ;;
	*) echo "FAIL: no promtool (CI runs every test: make deps installs it)"; echo "0 passed, 1 failed"; exit 1 ;;
	esac
fi
cd "$HERE" || exit 1
if promtool check rules ../../contrib/prometheus/pmaps.rules.yml; then
	pass=$((pass + 1))
else
	echo "FAIL: promtool check rules"; fail=$((fail + 1))
fi
if promtool test rules pmaps.rules.test.yml; then
	pass=$((pass + 1))
else
	echo "FAIL: promtool test rules"; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
