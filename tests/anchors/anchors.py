# SPDX-License-Identifier: MIT
"""What the anchor tests share: the processes, their identity, the kernel's text.

The anchor tests hold pmaps against tools users already trust (procps pmap,
psutil, the kernel's page-types). Each compares what both sides print for the
same process, so the hard part is knowing that both looked at the same thing:

- A process is identified by its pid and start time (field 22 of
  /proc/PID/stat), read before and after both tools ran; a change, or either
  tool's failure while the process is gone, means "exited", never a difference.
- Memory of a live process moves between two reads. Around both tools the
  test reads /proc/PID/smaps itself (before and after); a value is held to
  account only where the kernel printed the same before and after. Where it
  moved, the test tries again (a few times), and what never held still is
  counted as "not compared" and said so, never silently dropped.
- The idle processes are started here and kept blocked on a read (the live
  layout helper and its child, a sleep, a python3 that maps files with odd
  names (odd_names.py), a bash): there every field must be still and agree. Processes the test did not start are only read.

Run with Debian's /usr/bin/python3 (psutil is installed for it).
"""

import os
import re
import subprocess
import sys
import time

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests

PF_KTHREAD = 0x00200000


def pmaps_layout_args(script):
    """SCRIPT's arguments PMAPS LAYOUT [--sample N]: (pmaps, layout, sample or None)."""
    args = sys.argv[1:]
    sample = None
    if "--sample" in args:
        i = args.index("--sample")
        sample = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit("usage: %s PMAPS LAYOUT [--sample N]" % script)
    return args[0], args[1], sample


def log(*args):
    print(*args, flush=True)


def short(v, limit=300, quote=True):
    """repr(V) (without its quotes: QUOTE false), cut in the middle when
    longer than LIMIT (a 75 KB path is still one readable line), saying how
    long it was."""
    r = repr(v) if quote else repr(v)[1:-1]
    if len(r) <= limit:
        return r
    return "%s...%s (%d characters)" % (r[:limit // 2], r[-limit // 3:], len(r))


def skip(reason):
    log("SKIP: " + reason)
    sys.exit(SKIP)


def stat_fields(pid):
    """Fields 3.. of /proc/PID/stat (state first), or None when it is gone.

    comm (field 2) may hold spaces and parentheses: split after the last ')'.
    """
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            s = f.read()
    except OSError:
        return None
    i = s.rfind(b")")
    if i < 0:
        return None
    return s[i + 2:].split()


def identity(pid):
    """(start time, state) of PID, or None when it is gone."""
    f = stat_fields(pid)
    if f is None or len(f) < 20:
        return None
    return (int(f[19]), f[0].decode())


def is_kernel_thread(pid):
    f = stat_fields(pid)
    return f is not None and len(f) > 6 and int(f[6]) & PF_KTHREAD != 0


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid, "rb") as f:
            return f.read().rstrip(b"\n").decode("utf-8", "backslashreplace")
    except OSError:
        return "?"


def pids():
    return sorted(int(d) for d in os.listdir("/proc") if d.isdigit())


def machine(exclude, sample=None):
    """(user processes to compare, note): every pid of the machine but EXCLUDE,
    this script and kernel threads; with SAMPLE, that many spread over the pid
    range (not only the oldest)."""
    me = os.getpid()
    every = [p for p in pids() if p not in exclude and p != me]
    users = [p for p in every if not is_kernel_thread(p)]
    note = "; %d kernel threads not compared" % (len(every) - len(users))
    if sample is None or len(users) <= sample:
        return users, note
    step = len(users) / sample
    return ([users[int(i * step)] for i in range(sample)],
            note + "; a sample of %d of the machine's %d user processes (sanitizer build)" %
            (sample, len(users)))


def read_bytes(path):
    """The whole file in one buffer, or the OSError."""
    try:
        with open(path, "rb", buffering=0) as f:
            chunks = []
            while True:
                b = f.read(1 << 20)
                if not b:
                    break
                chunks.append(b)
            return b"".join(chunks)
    except OSError as e:
        return e


HEADER = re.compile(rb"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) ([0-9a-f]+):([0-9a-f]+) (\d+) ?(.*)$")
FIELD = re.compile(rb"^([A-Za-z_]+):\s+(\S+)(?: kB)?\s*$")


def parse_smaps(text):
    """The kernel's smaps text: {start: {"end", "perms", ..., "fields": {Name: value}}}.

    Values stay as the kernel printed them (kB or a bare number) except
    VmFlags (its text). Only the test's own stability check reads this.
    """
    maps = {}
    cur = None
    for line in text.split(b"\n"):
        if not line:
            continue
        m = HEADER.match(line)
        if m and not line.startswith(b"VmFlags"):
            start = int(m.group(1), 16)
            cur = {"end": int(m.group(2), 16), "perms": m.group(3),
                   "offset": int(m.group(4), 16),
                   "dev": (int(m.group(5), 16), int(m.group(6), 16)),
                   "inode": int(m.group(7)), "name": m.group(8).lstrip(b" "),
                   "fields": {}}
            maps[start] = cur
            continue
        if cur is None:
            continue
        if line.startswith(b"VmFlags:"):
            cur["fields"]["VmFlags"] = line[8:].split()
            continue
        m = FIELD.match(line)
        if m:
            cur["fields"][m.group(1).decode()] = m.group(2)
    return maps


def layout_of(maps):
    """What cannot change without the address space changing."""
    return sorted((s, m["end"], m["perms"], m["offset"], m["dev"], m["inode"], m["name"])
                  for s, m in maps.items())


class Window:
    """The kernel's smaps read before and after both tools ran on one process."""

    def __init__(self, before, after):
        self.before = before
        self.after = after
        self.same_layout = layout_of(before) == layout_of(after)

    def still(self, start, kernel_name):
        """Whether the kernel printed the same value of a field before and after."""
        a = self.before.get(start)
        b = self.after.get(start)
        if a is None or b is None:
            return False
        return a["fields"].get(kernel_name) == b["fields"].get(kernel_name)


def run(argv, timeout=120):
    """(exit status, stdout bytes, stderr bytes); status -1 when it timed out."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return -1, e.stdout or b"", e.stderr or b""


# smaps names and pmaps's JSON keys. Every key of the kernel's smaps on 6.18
# is here; a name the kernel adds later goes through snake() and is compared
# all the same (pmaps documents that unknown fields keep their name in
# snake_case).
KERNEL_TO_JSON = {
    "Size": "size", "KernelPageSize": "kernel_page_size", "MMUPageSize": "mmu_page_size",
    "Rss": "rss", "Pss": "pss", "Pss_Dirty": "pss_dirty",
    "Shared_Clean": "shared_clean", "Shared_Dirty": "shared_dirty",
    "Private_Clean": "private_clean", "Private_Dirty": "private_dirty",
    "Referenced": "referenced", "Anonymous": "anonymous", "KSM": "ksm",
    "LazyFree": "lazy_free", "AnonHugePages": "anon_huge_pages",
    "ShmemPmdMapped": "shmem_pmd_mapped", "FilePmdMapped": "file_pmd_mapped",
    "Shared_Hugetlb": "shared_hugetlb", "Private_Hugetlb": "private_hugetlb",
    "Swap": "swap", "SwapPss": "swap_pss", "Locked": "locked",
    "THPeligible": "thp_eligible", "ProtectionKey": "protection_key",
}
# Printed as bare numbers by the kernel, not in kB.
BARE = {"THPeligible", "ProtectionKey"}


def snake(name):
    if name in KERNEL_TO_JSON:
        return KERNEL_TO_JSON[name]
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return s.replace("__", "_").lower()


def kernel_value(name, text):
    """A field's value as pmaps's JSON gives it: bytes, or a bare number."""
    v = int(text)
    return v if name in BARE else v * 1024


def pmaps_maps(pmaps, pid, total=False):
    """(status, document or None, stderr) of `pmaps maps PID --json`.

    The document must be strict JSON in UTF-8; anything else is returned as
    status "badjson" with the parser's complaint.
    """
    # --exact: smaps however big the process, as the peers read it.
    argv = [pmaps, "maps", str(pid), "--json", "--exact"] + (["--total"] if total else [])
    return pmaps_doc(*run(argv))


def pmaps_doc(rc, out, err):
    """(status, document or None, stderr) from pmaps's status and output."""
    import json
    if rc != 0:
        return rc, None, err
    try:
        return 0, json.loads(out.decode("utf-8")), err
    except (UnicodeDecodeError, ValueError) as e:
        return "badjson", None, str(e).encode()


def path_bytes(m):
    """A pmaps mapping's path as bytes, as the kernel printed it in maps.

    pmaps decodes the kernel's one escape (a newline printed as \\012); the
    kernel's text is that escape put back. A path that is not UTF-8 comes as
    U+FFFD in "path" with its exact bytes in "path_hex" (docs/pmaps.1).
    """
    hx = m.get("path_hex")
    b = bytes.fromhex(hx) if isinstance(hx, str) else m.get("path", "").encode("utf-8")
    return b.replace(b"\n", b"\\012")


def die_with_parent():
    """In a child before exec: SIGTERM when this script dies (a ctest timeout
    kills it), so no idle process outlives the test (the others end at EOF on
    stdin anyway; the sleep would not) and odd_names.py still cleans up."""
    import ctypes
    import signal
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class Idle:
    """The processes this test starts and keeps idle, blocked on a read of stdin.

    The layout helper (tests/live/layout.c) prints its regions and "ready";
    its child holds the shared region and blocks too. Each is stopped by
    closing its stdin (the sleep by SIGTERM: it is ours).
    """

    def __init__(self, layout):
        self.procs = []
        self.regions = {}
        self.names = {}
        if layout:
            p = subprocess.Popen([layout, "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 preexec_fn=die_with_parent)
            self.procs.append(p)
            for line in p.stdout:
                w = line.split()
                if w == [b"ready"]:
                    break
                if len(w) == 3:
                    self.regions[w[0].decode()] = (int(w[1], 16), int(w[2], 16))
            else:
                raise RuntimeError("layout helper exited before it was ready")
            self.names[p.pid] = "layout"
            kid = self._child_of(p.pid)
            if kid:
                self.names[kid] = "layout's child"
        p = subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL,
                             preexec_fn=die_with_parent)
        self.procs.append(p)
        self.names[p.pid] = "sleep"
        odd = os.path.join(os.path.dirname(os.path.abspath(__file__)), "odd_names.py")
        for argv, name in (([sys.executable, odd], "python3"),
                           (["bash", "-c", "echo ready; read -r x"], "bash")):
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 preexec_fn=die_with_parent)
            if p.stdout.readline() != b"ready\n":
                raise RuntimeError("%s did not start" % name)
            self.procs.append(p)
            self.names[p.pid] = name
        # Let start-up settle: the last page faults, the last reference bits.
        time.sleep(0.3)

    @staticmethod
    def _child_of(ppid):
        for pid in pids():
            f = stat_fields(pid)
            if f is not None and len(f) > 1 and int(f[1]) == ppid:
                return pid
        return None

    def pids(self):
        return sorted(self.names)

    def stop(self):
        for p in self.procs:
            if p.stdin:
                p.stdin.close()
            else:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


class Held:
    """A reader kept alive, blocked on its output, after it has read.

    A reader's own mappings are part of what it reads (see compare.py). To
    put a peer in the same state, pmaps writes into a pipe the test filled
    first: pmaps prints its document in one write() once it has read, so it
    blocks there with every page it touched still mapped, and the peer reads
    now. Then the test drains the pipe and pmaps finishes.
    """

    F_SETPIPE_SZ = 1031

    def __init__(self, argv, timeout=60):
        import fcntl
        import tempfile
        r, w = os.pipe()
        fcntl.fcntl(w, self.F_SETPIPE_SZ, 4096)
        os.set_blocking(w, False)
        self.filler = 0
        try:
            while True:
                self.filler += os.write(w, b"\0" * 4096)
        except BlockingIOError:
            pass
        os.set_blocking(w, True)
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen(argv, stdout=w, stderr=self.err)
        os.close(w)
        self.r = r
        self.blocked = False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.p.poll() is None:
            if self._in_write(self.p.pid):
                self.blocked = True
                break
            time.sleep(0.0005)

    @staticmethod
    def _in_write(pid):
        """Whether PID sleeps in write(1, ...): wchan names the pipe's wait
        where the kernel has symbols, /proc/PID/syscall says write on fd 1
        (x86-64: 1, arm64 and the generic table: 64) where it does not."""
        try:
            with open("/proc/%d/wchan" % pid) as f:
                if "pipe_write" in f.read():
                    return True
            with open("/proc/%d/syscall" % pid) as f:
                w = f.read().split()
            return len(w) > 1 and w[0] in ("1", "64") and w[1] == "0x1"
        except OSError:
            return False

    def finish(self):
        """(exit status, stdout, stderr) once it has written everything."""
        chunks = []
        while True:
            b = os.read(self.r, 1 << 16)
            if not b:
                break
            chunks.append(b)
        os.close(self.r)
        rc = self.p.wait()
        self.err.seek(0)
        return rc, b"".join(chunks)[self.filler:], self.err.read()
