# SPDX-License-Identifier: MIT
"""gentle.py - the one-shot commands hold their reads of a big process to the
limit (pmaps(1), GENTLE BY DEFAULT): a process with 2 GiB resident, whose
smaps read the estimate prices over 5 ms, is read by maps, maps --total,
explain and pages paced, from the pages source where smaps would have been
read, and as before with --exact; JSON and -v say which, and the paced
figures equal the exact ones.

    gentle.py PMAPS
"""
import json
import os
import subprocess
import sys

PMAPS = sys.argv[1]
GIB = 1 << 30

# The target: 2 GiB of anonymous memory, in huge pages where the kernel gives
# them (one write each), else every page written; then it waits on stdin.
TARGET = r"""
import mmap, sys
n = 2 << 30
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
try:
    m.madvise(mmap.MADV_HUGEPAGE)
except (AttributeError, OSError):
    pass
for i in range(0, n, 2 << 20):
    m[i] = 1
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) << 10
if rss() < n:
    for i in range(0, n, mmap.PAGESIZE):
        m[i] = 1
print(rss(), flush=True)
sys.stdin.read()
"""

failures = 0


def fail(what):
    global failures
    failures += 1
    print("FAIL: " + what, flush=True)


def run(*args):
    """pmaps ARGS: (stdout, stderr), exit status 0 or a failure."""
    p = subprocess.run([PMAPS] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        fail("pmaps %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout, p.stderr


def choice(doc):
    return doc.get("source_choice", {})


def expect(what, got, want):
    if got != want:
        fail("%s: %r, want %r" % (what, got, want))


def main():
    target = subprocess.Popen([sys.executable, "-c", TARGET], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        rss = int(target.stdout.readline() or 0)
        if rss < 2 * GIB:
            fail("the target has %d bytes resident, want 2 GiB" % rss)
            return 1
        pid = str(target.pid)

        # maps, default columns: smaps would hold the lock too long: pages, paced.
        out, err = run("maps", "--json", pid)
        doc = json.loads(out)
        expect("maps --json: source", doc["source"], "pages")
        c = choice(doc)
        expect("maps --json: reason", c.get("reason"), "over")
        expect("maps --json: gentle", c.get("gentle"), True)
        expect("maps --json: policy", c.get("policy"), "paced")
        if not c.get("hold_ns", 0) > c.get("limit_ns", 0) == 5000000:
            fail("maps --json: hold_ns %s not over limit_ns %s" % (c.get("hold_ns"),
                                                                  c.get("limit_ns")))
        out, err = run("maps", "--exact", "--json", pid)
        doc = json.loads(out)
        expect("maps --exact --json: source", doc["source"], "smaps")
        expect("maps --exact --json: reason", choice(doc).get("reason"), "asked")
        expect("maps --exact --json: gentle", choice(doc).get("gentle"), False)

        # The table says so on standard error, and what the pages source lacks.
        out, err = run("maps", pid)
        if "values from the pages source, paced, not smaps" not in err or \
                "private_clean, private_dirty" not in err or "--exact reads it" not in err:
            fail("maps: the note: %r" % err)

        # A page source asked for is paced, the same source.
        out, err = run("maps", "-v", "--fields", "rss,anonymous,swap", pid)
        if "paced: back to back its calls would keep the process's mmap() waiting" not in err:
            fail("maps --fields rss,anonymous,swap -v: %r" % err)

        # In total: the paced pages source's figures are the kernel's.
        for attempt in range(3):
            paced = json.loads(run("maps", "--total", "--json", pid)[0])
            exact = json.loads(run("maps", "--total", "--exact", "--json", pid)[0])
            expect("maps --total --json: source", paced["source"], "pages")
            expect("maps --total --json: policy", choice(paced).get("policy"), "paced")
            expect("maps --total --exact --json: source", exact["source"], "smaps_rollup")
            if paced["total"]["rss"] == exact["total"]["rss"]:
                break
            print("note: rss moved between the reads (%d, %d)" % (paced["total"]["rss"],
                                                                 exact["total"]["rss"]))
        else:
            fail("maps --total: paced rss %d, smaps_rollup's %d" % (paced["total"]["rss"],
                                                                    exact["total"]["rss"]))

        # explain: the pages source, paced; --exact: smaps.
        doc = json.loads(run("explain", "--json", pid)[0])
        expect("explain --json: source", doc["source"], "pages")
        expect("explain --json: reason", choice(doc).get("reason"), "over")
        expect("explain --json: policy", choice(doc).get("policy"), "paced")
        doc = json.loads(run("explain", "--exact", "--json", pid)[0])
        expect("explain --exact --json: source", doc["source"], "smaps")
        expect("explain --exact --json: gentle", choice(doc).get("gentle"), False)
        doc = json.loads(run("explain", "--source", "pages", "--gentle", "--json", pid)[0])
        expect("explain --source pages --gentle --json: policy", choice(doc).get("policy"),
               "gentle")

        # pages: paced, --exact not, --gentle gently.
        for args, gentle, policy in ((["--summary"], True, "paced"),
                                     (["--summary", "--exact"], False, None),
                                     (["--summary", "--gentle"], True, "gentle")):
            doc = json.loads(run("pages", "--json", *args, pid)[0])
            expect("pages %s --json: gentle" % " ".join(args), doc.get("gentle"), gentle)
            expect("pages %s --json: policy" % " ".join(args), doc.get("policy"), policy)
        out, err = run("pages", "-v", "--summary", pid)
        if "; paced: without pauses the walk would keep the process's mmap() waiting" not in err:
            fail("pages -v: %r" % err)

        # A small process: as before, no pauses, no note.
        doc = json.loads(run("maps", "--json", "self")[0])
        expect("maps --json self: reason", choice(doc).get("reason"), "fits")
        expect("maps --json self: source", doc["source"], "smaps")
    finally:
        target.stdin.close()
        target.wait()
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
