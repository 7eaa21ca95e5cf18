# SPDX-License-Identifier: MIT
"""checks.py - what the CLI tests share: checks that count and print both
sides when they fail, and the last line, "NAME: N passed, M failed".

    sys.dont_write_bytecode = True   # no __pycache__ in the source tree
    from checks import ok, eq
"""
import sys

passed = failed = 0


def ok(name, cond, got=None, want=None):
    """Counts a check; a failed one prints what it got and what it wanted."""
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}: got {got!r}, want {want!r}", flush=True)


def eq(name, got, want):
    ok(name, got == want, got, want)


def broke(name, e):
    """A test that raised: a failure, with its reason."""
    global failed
    failed += 1
    print(f"FAIL: {name}: {type(e).__name__}: {e}", flush=True)


def finish(test):
    """The summary line, then the exit: 1 when a check failed."""
    print(f"{test}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
