#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps serve as the DaemonSet runs it (contrib/kubernetes/pmaps-daemonset.yaml): in a
new PID and mount namespace of its own, with the host's /proc and cgroup mount
mounted at /host (here: a directory of the test's) and named by --proc-root and
--cgroup-root, as the manifest's args say.

    namespace.py PMAPS HELPER

HELPER (tests/live/serve_helper.c) is a process of the host, outside the new PID
namespace: serve must show it under its host pid, with its figures as the kernel has
them (it holds still), its memory cgroup as the host names it, and that cgroup's
series; the namespace's own /proc does not have it (pmaps maps PID there fails).
Twice: in the host's cgroup namespace (cgroup v1 nodes), and in a cgroup namespace
of its own (what containerd and CRI-O give a container on cgroup v2 nodes) rooted at
a memory cgroup made below the test's own, the helper in a sibling cgroup: the
host's /proc then gives the helper's path from that root ("/../helper"), and serve
must find where its namespace starts in the host's tree and name the helper's
cgroup as the host does, and read it.
The manifest's args are used as they are but for the listen address (port 0) and
--group-by (dropped, to see the process's own series), and --pid to select the
helper. Needs root (unshare); exit 77 outside CI without it, in CI that fails.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.request

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from checks import eq, finish, ok  # noqa: E402

PMAPS, HELPER = sys.argv[1:3]
MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "contrib",
                        "kubernetes", "pmaps-daemonset.yaml")


def manifest_args():
    """The container's args, and its volume mounts (mountPath: hostPath path)."""
    ds = yaml.safe_load(open(MANIFEST))
    spec = ds["spec"]["template"]["spec"]
    c = spec["containers"][0]
    vols = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"]}
    mounts = {m["mountPath"]: vols[m["name"]] for m in c["volumeMounts"]}
    eq("manifest: every mount read-only", [m["mountPath"] for m in c["volumeMounts"]
                                           if not m.get("readOnly")], [])
    eq("manifest: the capabilities", (c["securityContext"]["capabilities"]["drop"],
                                      sorted(c["securityContext"]["capabilities"]["add"])),
       (["ALL"], ["DAC_READ_SEARCH", "SYS_PTRACE"]))
    eq("manifest: probes on /healthz", (c["readinessProbe"]["httpGet"]["path"],
                                        c["livenessProbe"]["httpGet"]["path"]),
       ("/healthz", "/healthz"))
    eq("manifest: no hostPID", spec.get("hostPID"), False)
    return c["args"], mounts


def rollup(pid):
    v = {}
    for ln in open(f"/proc/{pid}/smaps_rollup"):
        p = ln.split()
        if len(p) == 3 and p[2] == "kB":
            v[p[0].rstrip(":")] = int(p[1]) * 1024
    return v


def memcg(pid):
    v2 = None
    for ln in open(f"/proc/{pid}/cgroup"):
        n, ctrl, path = ln.rstrip("\n").split(":", 2)
        if "memory" in ctrl.split(","):
            return path
        if n == "0":
            v2 = path
    return v2


def memory_dir():
    """The directory of this test's memory cgroup: v1's memory controller, else cgroup2."""
    path = memcg(os.getpid())
    base = "/sys/fs/cgroup/memory" if os.path.isdir("/sys/fs/cgroup/memory") else "/sys/fs/cgroup"
    return base + path if path else None


def main():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        if os.environ.get("CI") not in (None, "", "false"):
            ok("namespace: root and unshare (CI has both)", False)
            finish("namespace")
        print("namespace: skipped: needs root and unshare")
        sys.exit(77)
    args, mounts = manifest_args()
    run_case(args, mounts, None)
    own = memory_dir()
    ok("namespace: the test's memory cgroup", own and os.path.isdir(own), own, "a directory")
    if own and os.path.isdir(own):
        base = os.path.join(own, f"pmaps-ns-{os.getpid()}")
        try:
            for d in (base, base + "/serve", base + "/helper"):
                os.mkdir(d)
            run_case(args, mounts, base)
        finally:
            for d in (base + "/serve", base + "/helper", base):
                try:
                    os.rmdir(d)
                except OSError as e:
                    ok(f"namespace: {d} removed", False, str(e), "removed")
    finish("namespace")


def run_case(args, mounts, cgbase):
    """
    serve in new PID and mount namespaces; with CGBASE, also in a cgroup namespace
    rooted at CGBASE/serve, the helper in CGBASE/helper.
    """
    what = "own cgroup namespace: " if cgbase else ""
    tmp = tempfile.mkdtemp(prefix="pmaps-ns-")
    helper = subprocess.Popen([HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    hpid = int(helper.stdout.readline().split()[0])
    serve = None
    try:
        if cgbase:
            with open(cgbase + "/helper/cgroup.procs", "w") as f:
                f.write(str(hpid))
        # The args, with /host under TMP; the listen port 0; no grouping; the helper.
        run, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "--group-by":
                skip = True
                continue
            if re.fullmatch(r"0\.0\.0\.0:\d+", a):
                a = "127.0.0.1:0"
            for m in mounts:
                if a == m:
                    a = tmp + m
            run.append(a)
        run += ["--pid", str(hpid), "--min-interval", "0"]
        binds = " && ".join(f"mkdir -p '{tmp}{m}' && mount --rbind '{h}' '{tmp}{m}' && "
                            f"mount -o remount,bind,ro '{tmp}{m}'" for m, h in mounts.items())
        # In the new namespaces: the host's mounts under TMP (recursive, as a container
        # runtime binds a hostPath: /sys/fs/cgroup's hierarchies are mounts below it),
        # then a /proc of its own.
        script = (f"{binds} && mount -t proc proc /proc && "
                  f"if '{PMAPS}' maps {hpid} >/dev/null 2>&1; then echo SEEN; else echo UNSEEN; fi"
                  f" >&2 && echo \"INSIDE $$\" >&2 && "
                  f"echo \"CG $(grep -m1 -E ':memory:|^0::' '{tmp}/host/proc/{hpid}/cgroup')\" >&2"
                  f" && exec \"$0\" \"$@\"")
        cmd = ["unshare", "--pid", "--fork", "--kill-child", "--mount", "--propagation",
               "private", "sh", "-c", script, PMAPS, *run]
        if cgbase:
            # Into CGBASE/serve first: the new cgroup namespace's root is where it starts.
            cmd = ["sh", "-c", f"echo $$ > '{cgbase}/serve/cgroup.procs' && exec \"$@\"",
                   "sh", cmd[0], "--cgroup", *cmd[1:]]
        serve = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        lines, port = [], None
        for _ in range(6):
            lines.append(serve.stderr.readline().decode())
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", lines[-1])
            if m:
                port = int(m.group(1))
                break
        # /metrics answers 503 until the first refresh has read every process:
        # wait for serve's ready line (notes of that refresh may come first).
        notes, ready = [], None
        for _ in range(port and 4 or 0):
            line = serve.stderr.readline().decode()
            if not line.startswith("pmaps: note: "):
                ready = line
                break
            notes.append(line)
        ok(f"{what}serve said it is ready", ready is not None and "ready:" in ready,
           notes + [ready], "pmaps serve: ready: ...")
        ok(f"{what}serve started in the namespaces", port is not None, lines, "a listening line")
        if port is None:
            return
        eq(f"{what}the namespace's own /proc has not the host's helper", lines[0].strip(), "UNSEEN")
        ok(f"{what}serve runs as a low pid of the new namespace",
           re.fullmatch(r"INSIDE [12]\n", lines[1]) is not None, lines[1], "INSIDE 1 or 2")
        for _ in range(5):
            before = rollup(hpid)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
                text = r.read().decode()
            after = rollup(hpid)
            if before == after:
                break
        got = {}
        for ln in text.splitlines():
            m = re.match(r'^(pmaps_[a-z_]+)\{([^}]*)\} (\S+)$', ln)
            if not m:
                continue
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
            if labels.get("pid") == str(hpid) or m.group(1) == "pmaps_cgroup_processes":
                got.setdefault(m.group(1), []).append((labels, float(m.group(3))))
        if cgbase:
            root = cgbase[len("/sys/fs/cgroup/memory"):] if cgbase.startswith(
                "/sys/fs/cgroup/memory/") else cgbase[len("/sys/fs/cgroup"):]
            eq(f"{what}serve's note of where its namespace starts in the tree",
               [n.split(" starts at ")[1].split(" ")[0] for n in notes if " starts at " in n],
               [root + "/serve"])
            ok(f"{what}inside, the helper's cgroup is named from the namespace's root",
               lines[2].rstrip("\n").endswith(":/../helper"), lines[2], "...:/../helper")
            eq(f"{what}no process counted as outside the tree",
               re.findall(r'^pmaps_scrape_cgroups\{outcome="outside"\} (\S+)$', text, re.M), ["0"])
        eq(f"{what}the helper by its host pid: PSS and USS, the kernel's",
           ([v for _, v in got.get("pmaps_process_pss_bytes", [])],
            [v for _, v in got.get("pmaps_process_uss_bytes", [])]),
           ([after["Pss"]], [after["Private_Clean"] + after["Private_Dirty"]]))
        cg = memcg(hpid)
        eq(f"{what}the helper's memory cgroup, as the host names it",
           [l.get("cgroup") for l, _ in got.get("pmaps_process_cgroup_info", [])], [cg])
        if cg and cg != "/":
            eq(f"{what}that cgroup's series: its one selected process",
               [v for l, v in got.get("pmaps_cgroup_processes", []) if l["cgroup"] == cg], [1.0])
    finally:
        if serve:
            # SIGTERM to pmaps serve itself (unshare's child, pid 1 of the namespace):
            # unshare then exits with its status.
            try:
                kids = open(f"/proc/{serve.pid}/task/{serve.pid}/children").read().split()
            except OSError:
                kids = []
            for k in kids:
                os.kill(int(k), signal.SIGTERM)
            try:
                rc = serve.wait(timeout=20)
            except subprocess.TimeoutExpired:
                serve.kill()
                rc = serve.wait()
            eq(f"{what}serve stopped by SIGTERM in the namespace, exit 0", rc, 0)
        helper.stdin.close()
        helper.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
