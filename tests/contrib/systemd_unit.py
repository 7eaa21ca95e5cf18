#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The hardened unit (contrib/systemd/pmaps-serve.service) holds what it says.

    systemd_unit.py PMAPS MANPAGE HELPER

1. `systemd-analyze verify` passes on it (its ExecStart pointed at PMAPS, its
   man page reference resolved through MANPAGE).
2. Its ExecStart's options, run as another user with exactly the unit's
   capabilities (setpriv: a uid that is not root, no groups, the ambient set of
   AmbientCapabilities, no new privileges), read a root process's PSS and USS as
   the kernel has them (HELPER, tests/live/serve_helper.c: static, so that its
   PSS holds still whoever maps libc), and say they are privileged.
3. The same without the capabilities reads status figures only: they are needed.

Needs root (setpriv to another user); exit 77 outside CI without it or without
systemd-analyze, in CI that fails.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from checks import eq, finish, ok  # noqa: E402

PMAPS, MANPAGE, HELPER = sys.argv[1:4]
UNIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "contrib", "systemd",
                    "pmaps-serve.service")


def skip(why):
    if os.environ.get("CI") not in (None, "", "false"):
        ok(f"systemd_unit: {why} (CI has it)", False)
        finish("systemd_unit")
    print(f"systemd_unit: skipped: {why}")
    sys.exit(77)


def unit_values(key):
    return [ln.split("=", 1)[1].strip() for ln in open(UNIT)
            if ln.startswith(key + "=")]


def verify(tmp):
    man = os.path.join(tmp, "man", "man1")
    os.makedirs(man)
    shutil.copy(MANPAGE, os.path.join(man, "pmaps.1"))
    unit = os.path.join(tmp, "pmaps-serve.service")
    with open(UNIT) as f, open(unit, "w") as g:
        g.write(f.read().replace("/usr/bin/pmaps", os.path.abspath(PMAPS)))
    r = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True, timeout=60,
                       env=dict(os.environ, MANPATH=os.path.join(tmp, "man")))
    out = (r.stdout + r.stderr).decode(errors="replace").strip()
    eq(f"systemd-analyze verify ({out[:500]})", r.returncode, 0)
    eq("systemd-analyze verify says nothing", out, "")


def rollup(pid):
    v = {}
    for ln in open(f"/proc/{pid}/smaps_rollup"):
        p = ln.split()
        if len(p) == 3 and p[2] == "kB":
            v[p[0].rstrip(":")] = int(p[1]) * 1024
    return v


def serve_as(args, caps, target):
    """pmaps serve with ARGS as user nobody with CAPS; its stderr's first lines, and
    /metrics' samples of TARGET and the privileged gauge."""
    cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs"]
    if caps:
        c = ",".join("+" + x.lower().replace("cap_", "") for x in caps)
        cmd += [f"--inh-caps={c}", f"--ambient-caps={c}"]
    # Each scrape its own refresh: the figures of the moment the kernel's are read.
    cmd += [PMAPS, *args, "--pid", str(target), "--min-interval", "0"]
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    lines, port = [], None
    try:
        for _ in range(4):
            lines.append(p.stderr.readline().decode())
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", lines[-1])
            if m:
                port = int(m.group(1))
                lines.append(p.stderr.readline().decode())  # the ready line
                break
        if port is None:
            return lines, {}
        # The kernel's figures while pmaps serve runs (it maps libc too: a shared
        # library's PSS moves with who maps it), before and after the scrape.
        for _ in range(5):
            before = rollup(target)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
                text = r.read().decode()
            serve_as.kernel = rollup(target)
            if before == serve_as.kernel:
                break
        got = {}
        for ln in text.splitlines():
            m = re.match(r'^(pmaps_process_(?:pss|uss|resident)_bytes)\{pid="(\d+)"[^}]*\} (\d+)$', ln)
            if m and int(m.group(2)) == target:
                got[m.group(1)] = int(m.group(3))
            m = re.match(r"^pmaps_exporter_privileged (\d)$", ln)
            if m:
                got["privileged"] = int(m.group(1))
        return lines, got
    finally:
        p.terminate()
        p.wait(timeout=20)


def main():
    if os.geteuid() != 0:
        skip("not root (setpriv to another user)")
    if not shutil.which("systemd-analyze"):
        skip("no systemd-analyze (Debian's systemd package)")
    tmp = tempfile.mkdtemp(prefix="pmaps-unit-")
    target = None
    try:
        verify(tmp)
        execstart = shlex.split(unit_values("ExecStart")[0])
        args = [a if not a.startswith("127.0.0.1:") else "127.0.0.1:0" for a in execstart[1:]]
        caps = unit_values("AmbientCapabilities")[0].split()
        eq("the bounding set is the ambient set", unit_values("CapabilityBoundingSet")[0].split(),
           caps)
        # A root process at rest (serve_helper: "PID PAGESIZE NAMED", then still).
        target = subprocess.Popen([HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ok("the root process is ready", target.stdout.readline().split()[0].isdigit())
        lines, got = serve_as(args, caps, target.pid)
        after = serve_as.kernel
        eq("with the unit's capabilities: its PSS, USS and RSS, the kernel's",
           (got.get("pmaps_process_pss_bytes"), got.get("pmaps_process_uss_bytes"),
            got.get("pmaps_process_resident_bytes"), got.get("privileged")),
           (after["Pss"], after["Private_Clean"] + after["Private_Dirty"], after["Rss"], 1))
        ok("with them: no note that it is not root", not any("not root" in ln for ln in lines),
           lines, "no note")
        lines, got = serve_as(args, [], target.pid)
        eq("without them: status figures only, said", (got.get("pmaps_process_pss_bytes"),
                                                       "pmaps_process_resident_bytes" in got,
                                                       got.get("privileged"),
                                                       any("not root" in ln for ln in lines)),
           (None, True, 0, True))
    finally:
        if target:
            target.stdin.close()
            target.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
    finish("systemd_unit")


if __name__ == "__main__":
    main()
