#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Each command maps only what it uses (docs/internals/LIBRARIES.md).

    lean.py PMAPS

pmaps links libc alone; libcurl, libmicrohttpd and ncursesw are opened by
the commands that need them (src/common/dl.h). The loader says what it
loads: with LD_DEBUG=files every library mapped into the process, at start
or by dlopen(), is a line "file=NAME [0];  needed by ..." or "dynamically
loaded by ...". Checked here:

  * the commands that need none of them load none: maps, pages, explain
    (no books, and of a process that is no Go program), top --once, phys
    --summary, watch and run without books, --version, --help; and
    `pmaps maps self`, pmaps reading its own /proc/self/maps, lists none;
  * the commands that need one load that one only (the controls: a test
    that could not see a library loaded would pass the first part too):
    serve loads libmicrohttpd, the live top ncursesw, --go-pprof libcurl;
  * the binary names the three in its .note.dlopen (readelf), and needs
    no other library than libc (its DT_NEEDED);
  * with a library hidden (as root: a private mount namespace with
    /dev/null bound over the file), the command that needs it fails with
    one line naming the library and the Debian package, exit 1, and maps
    still works.
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PMAPS = os.path.abspath(sys.argv[1])
# What the build has (CMake's PMAPS_WITH_*): --with=curl,serve,tui by default.
WITH = {"curl", "serve", "tui"}
for a in sys.argv[2:]:
    if a.startswith("--with="):
        WITH = {w for w in a[len("--with="):].split(",") if w}
FEATURE = {"curl": "curl", "mhd": "serve", "curses": "tui"}
OPTIONAL = {"curl": "libcurl.so.4", "mhd": "libmicrohttpd.so.12", "curses": "libncursesw.so.6"}
PACKAGES = {"curl": "libcurl4", "mhd": "libmicrohttpd12", "curses": "libncursesw6"}
failures = []
passed = 0


def check(ok, what, detail=""):
    global passed
    if ok:
        passed += 1
        print("ok  ", what)
    else:
        failures.append(what)
        print("FAIL", what, detail)


def loaded(stderr):
    """The libraries the loader mapped, by file name, from LD_DEBUG=files."""
    names = set()
    for m in re.finditer(r"file=(\S+) \[\d+\];\s+(needed by|dynamically loaded by)", stderr):
        names.add(os.path.basename(m.group(1)))
    return names


def optional_in(names):
    return sorted(k for k, so in OPTIONAL.items() if any(n.startswith(so.split(".so")[0] + ".so")
                                                          for n in names))


def run(args, env_extra=None, timeout=60, stdin=subprocess.DEVNULL):
    env = dict(os.environ, LD_DEBUG="files", NO_COLOR="1")
    env.pop("LD_DEBUG_OUTPUT", None)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([PMAPS] + args, env=env, stdin=stdin, capture_output=True,
                          text=True, errors="replace", timeout=timeout)


def sleeper():
    """A plain C process to read (no Go, no JVM: explain asks no runtime)."""
    return subprocess.Popen(["sleep", "60"])


def main():
    target = sleeper()
    pid = str(target.pid)
    root = os.geteuid() == 0
    try:
        lean_commands(pid, root)
        controls(pid)
        notes()
        if root and shutil.which("unshare"):
            hidden(pid)
        elif os.environ.get("CI"):
            check(False, "hidden libraries: CI runs as root with unshare")
        else:
            print("skip: hiding a library needs root and unshare(1)")
    finally:
        target.kill()
        target.wait()
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


def lean_commands(pid, root):
    cmds = [
        ["--version"],
        ["--help"],
        ["maps", pid],
        ["maps", "--total", pid],
        ["maps", "--fields", "rss,anonymous,swap", pid],
        ["maps", "--json", pid],
        ["pages", pid],
        ["explain", "--no-books", pid],
        ["explain", pid],  # a C process: no runtime asked, no libcurl
        ["explain", "--json", pid],
        ["top", "--once"],
        ["top", "--once", "--json"],
        ["watch", "--count", "2", "--interval", "0.05", "--no-books", pid],
        ["run", "--count", "1", "--no-books", "--", "true"],
    ]
    if root:
        cmds.append(["phys", "--summary"])
    for c in cmds:
        r = run(c)
        opt = optional_in(loaded(r.stderr))
        check(r.returncode == 0 and not opt, "pmaps %s loads no optional library" % " ".join(c),
              "exit %d, loaded %s; stderr tail: %s" % (r.returncode, opt,
                                                         r.stderr.strip().splitlines()[-3:]))
    # pmaps reading its own mappings while it runs.
    r = subprocess.run([PMAPS, "maps", "--json", "self"], capture_output=True, text=True)
    paths = [m.get("path") or "" for m in json.loads(r.stdout)["mappings"]] if r.returncode == 0 else []
    opt = optional_in({os.path.basename(p) for p in paths})
    libs = sorted({os.path.basename(p) for p in paths if ".so" in p})
    check(r.returncode == 0 and not opt and libs,
          "pmaps maps self: its own mappings hold no optional library",
          "exit %d, libraries mapped: %s" % (r.returncode, libs))


def controls(pid):
    # serve: libmicrohttpd, and nothing else optional.
    env = dict(os.environ, LD_DEBUG="files")
    p = subprocess.Popen([PMAPS, "serve", "--listen", "127.0.0.1:0", "--pid", pid], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, errors="replace")
    err = ""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ready, _, _ = select.select([p.stderr], [], [], 0.2)
        if ready:
            line = p.stderr.readline()
            if not line:
                break
            err += line
            if "libmicrohttpd" in line and ("needed by" in line or "loaded by" in line):
                time.sleep(0.3)
                break
    p.send_signal(signal.SIGTERM)
    try:
        rest = p.communicate(timeout=20)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        rest = p.communicate()[1]
    opt = optional_in(loaded(err + rest))
    if "serve" in WITH:
        check(opt == ["mhd"], "control: pmaps serve loads libmicrohttpd (only)", "loaded %s" % opt)
    else:
        check(opt == [] and p.returncode == 1 and "PMAPS_WITH_SERVE=OFF" in err + rest,
              "a build without serve: pmaps serve says so, exit 1, loads nothing",
              "loaded %s, exit %s, %r" % (opt, p.returncode, (err + rest)[-300:]))

    # --go-pprof: libcurl, read with the options (the URL is parsed with it).
    r = run(["explain", "--go-pprof", "http://127.0.0.1:1/", pid])
    opt = optional_in(loaded(r.stderr))
    if "curl" in WITH:
        check(opt == ["curl"], "control: pmaps explain --go-pprof loads libcurl (only)",
              "loaded %s, exit %d" % (opt, r.returncode))
    else:
        check(opt == [] and r.returncode == 1 and "PMAPS_WITH_CURL=OFF" in r.stderr,
              "a build without libcurl: --go-pprof says so, exit 1, loads nothing",
              "loaded %s, exit %d, %r" % (opt, r.returncode, r.stderr[-300:]))

    # The live top, on a terminal: ncursesw; q ends it.
    opt, rc, text = live_top()
    if "tui" in WITH:
        check(opt == ["curses"] and rc == 0, "control: the live pmaps top loads ncursesw (only)",
              "loaded %s, exit %s" % (opt, rc))
    else:
        check(opt == [] and "PID" in text and "\x1b[" not in text,
              "a build without the live views: top on a terminal writes snapshots, "
              "loads nothing", "loaded %s, exit %s, %r" % (opt, rc, text[-300:]))


def top_on_pty(env, args):
    """Runs pmaps ARGS on a pseudo-terminal with ENV added, sends q once its first
    screen (or a message) is out; returns (what it wrote, its exit status). A
    top that writes snapshots (a build without the live view) takes no q: it
    is ended with SIGTERM after 3 s."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.pop("LD_DEBUG_OUTPUT", None)
        os.environ.update(dict(env, TERM="xterm", NO_COLOR="1"))
        os.execv(PMAPS, [PMAPS] + args)
    out = b""
    deadline = time.monotonic() + 20
    sent = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5 if sent else 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif sent:
            break
        if not sent and (b"PID" in out or b"needs" in out):
            time.sleep(0.3)
            os.write(fd, b"q")
            sent = True
    end = time.monotonic() + 3
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > end:
            os.kill(pid, signal.SIGTERM)
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(0.05)
    os.close(fd)
    return out.decode("utf-8", "replace"), os.waitstatus_to_exitcode(status)


def live_top():
    """The live top under LD_DEBUG=files: (optional libraries loaded, exit, text)."""
    text, rc = top_on_pty({"LD_DEBUG": "files"}, ["top", "--delay", "0.2"])
    return optional_in(loaded(text)), rc, text


def notes():
    r = subprocess.run(["readelf", "--notes", "--wide", PMAPS], capture_output=True, text=True)
    # readelf prints each note's owner and type; the JSON is in the descriptor's bytes.
    with tempfile.TemporaryDirectory() as d:
        sec = os.path.join(d, "notes")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.note.dlopen", PMAPS, sec],
                       check=True)
        with open(sec, "rb") as f:
            blob = f.read().decode("latin-1")
    for k, so in OPTIONAL.items():
        if FEATURE[k] in WITH:
            check(so in blob, "the .note.dlopen names %s" % so,
                  "notes: %s" % r.stdout.strip().splitlines()[-4:])
        else:
            check(so not in blob, "a build without %s: its .note.dlopen leaves %s out"
                  % (FEATURE[k], so))
    n = len([k for k in OPTIONAL if FEATURE[k] in WITH])
    check(r.stdout.count("0x407c0c0a") == n,
          "%d FDO dlopen notes (type 0x407c0c0a)" % n, r.stdout[-400:])
    d = subprocess.run(["readelf", "--dynamic", "--wide", PMAPS], capture_output=True, text=True)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", d.stdout)
    extra = [n for n in needed if not re.match(r"lib(c|asan|ubsan|m|gcc_s|stdc\+\+)\.so", n)]
    check(needed and not extra, "pmaps needs libc only (DT_NEEDED %s)" % needed, "extra %s" % extra)


def hidden(pid):
    """The optional libraries hidden one at a time in a private mount namespace."""
    for k, so in OPTIONAL.items():
        if FEATURE[k] not in WITH:
            continue
        path = None
        for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"):
            if os.path.exists(os.path.join(d, so)):
                path = os.path.realpath(os.path.join(d, so))
                break
        if not path:
            check(False, "hidden %s: the library is installed" % so)
            continue
        if k == "curl":
            cmd = ["explain", "--go-pprof", "http://127.0.0.1:1/", pid]
        elif k == "mhd":
            cmd = ["serve", "--listen", "127.0.0.1:0", "--pid", pid]
        else:
            cmd = None  # the live top: on a terminal, below
        script = 'mount --bind /dev/null "$1" && shift && exec "$@"'
        if cmd:
            r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                                "sh", path, PMAPS] + cmd, capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL)
            lines = r.stderr.strip().splitlines()
            want = "needs %s (Debian package %s)" % (so, PACKAGES[k])
            check(r.returncode == 1 and len(lines) == 1 and want in lines[0],
                  "%s hidden: pmaps %s fails with one line naming %s" % (so, cmd[0], PACKAGES[k]),
                  "exit %d, stderr %r" % (r.returncode, r.stderr[-300:]))
        else:
            r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                                "sh", path, sys.executable, os.path.abspath(__file__), PMAPS,
                                "--live-top-alone"], capture_output=True, text=True, timeout=60)
            want = "needs %s (Debian package %s)" % (so, PACKAGES[k])
            check(want in r.stdout and "exit 1" in r.stdout,
                  "%s hidden: the live top fails with one line naming %s" % (so, PACKAGES[k]),
                  r.stdout[-400:] + r.stderr[-200:])
        # Everything else still works without it.
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                            path, PMAPS, "maps", "--total", pid], capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0 and "Rss" in r.stdout, "%s hidden: pmaps maps works" % so,
              "exit %d %r" % (r.returncode, r.stderr[-200:]))


def live_top_alone():
    """Inside the namespace: the live top's output and exit, for the parent to read."""
    text, rc = top_on_pty({}, ["top"])
    print(text.strip())
    print("exit %d" % rc)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--live-top-alone":
        sys.exit(live_top_alone())
    sys.exit(main())
