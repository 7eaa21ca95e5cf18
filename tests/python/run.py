# SPDX-License-Identifier: MIT
"""ctest's entry to the Python binding's tests: pytest over test_pmaps.py.

Exit 77 (ctest: skipped) with the reason printed when pytest or psutil
cannot be imported, unless CI is set (as .ci/run does): there a missing one
fails, naming the Debian package (make deps installs both, as root).
Arguments are passed to pytest.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    missing = []
    for module, package in (("pytest", "python3-pytest"), ("psutil", "python3-psutil")):
        try:
            __import__(module)
        except ImportError:
            missing.append("%s (Debian's %s)" % (module, package))
    if missing:
        ci = os.environ.get("CI", "")
        print("python binding tests: %s cannot be imported by %s" %
              (" and ".join(missing), sys.executable))
        if ci and ci != "false":
            return 1
        print("skipped")
        return 77
    import pytest
    return pytest.main(["-q", "-p", "no:cacheprovider", "-rs", HERE] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
