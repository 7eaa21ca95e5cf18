# SPDX-License-Identifier: MIT
"""The Python binding (python/pmaps) against psutil, the pmaps tool and the C compiler.

Run with PYTHONPATH at python/ and PMAPS_LIBRARY at a built libpmaps.so.0
(the ctest `python` does both); PMAPS_TOOL, the pmaps tool, for the tests
that compare with its JSON (skipped without it), CC for the layout test
(default cc; skipped when there is none).

Targets are this test's own children, stopped with SIGSTOP while they are
read. A stopped process's smaps still moves where it shares pages with the
rest of the machine (the Pss of libc's pages changes as other processes map
and unmap it): comparisons are read again, a few times, until both sides
were read on the same state.
"""

import contextlib
import ctypes
import errno
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import psutil
import pytest

import pmaps
from pmaps import _lib, _rows, _structs

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "tests", "anchors"))
import anchors  # noqa: E402  (tests/anchors: Held)
TOOL = os.environ.get("PMAPS_TOOL")
PSUTIL_FIELDS = ("rss", "size", "pss", "shared_clean", "shared_dirty", "private_clean",
                 "private_dirty", "referenced", "anonymous", "swap")

# A child with some of everything: heap, anonymous memory, a file mapping, a
# file deleted while mapped (psutil drops the kernel's " (deleted)"), threads.
CHILD = r"""
import mmap, os, sys, tempfile, threading, time
heap = [bytearray(4096) for _ in range(2000)]
anon = mmap.mmap(-1, 8 << 20)
anon[: 4 << 20] = b"x" * (4 << 20)
with open(sys.executable, "rb") as f:
    text = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    text[:1 << 16]
fd, name = tempfile.mkstemp(prefix="pmaps-deleted-")
os.write(fd, b"y" * 16384)
gone = mmap.mmap(fd, 16384)
os.unlink(name)
gone[0]
threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
print("ready", flush=True)
time.sleep(1000)
"""


def state(pid):
    with open("/proc/%d/stat" % pid, "rb") as f:
        data = f.read()
    return chr(data[data.rindex(b")") + 2])


def wait_state(pid, want, timeout=10.0):
    end = time.monotonic() + timeout
    while state(pid) not in want:
        if time.monotonic() > end:
            raise AssertionError("process %d never reached state %s" % (pid, want))
        time.sleep(0.005)


@pytest.fixture(scope="module")
def stopped():
    """The pid of a child stopped with SIGSTOP for the whole module."""
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline() == b"ready\n"
        os.kill(p.pid, signal.SIGSTOP)
        wait_state(p.pid, "T")
        yield p.pid
    finally:
        p.kill()
        p.wait()


def settle(read, tries=40):
    """Calls READ() (which returns (a, b)) until a == b, at most TRIES times; the last pair."""
    for _ in range(tries):
        a, b = read()
        if a == b:
            break
        time.sleep(0.05)
    return a, b


def open_fds():
    return set(os.listdir("/proc/self/fd"))


def tool_json(*args):
    if not TOOL:
        pytest.skip("PMAPS_TOOL is not set: no pmaps tool to compare with")
    out = subprocess.run([TOOL] + [str(a) for a in args], stdout=subprocess.PIPE, check=True)
    return json.loads(out.stdout)


@contextlib.contextmanager
def held(*args):
    """The tool run with ARGS, kept blocked on its output once it has read.

    The tool maps libc too: while it runs, the target's libc pages have one
    mapper more, and their Pss is less. tests/anchors/anchors.py's Held
    makes it write into a full pipe, where it blocks once it has read,
    every page it touched still mapped, while the binding reads. Then the
    pipe is drained: the dict yielded gets "doc", the tool's JSON."""
    if not TOOL:
        pytest.skip("PMAPS_TOOL is not set: no pmaps tool to compare with")
    h = anchors.Held([TOOL] + [str(a) for a in args])
    result = {}
    try:
        yield result
    finally:
        rc, out, err = h.finish()
    assert rc == 0, err
    result["doc"] = json.loads(out)


# --- loading ---------------------------------------------------------------

def test_version_check_refuses_another_major():
    _lib.check_version(_lib.WRITTEN_FOR, "here")
    _lib.check_version(_lib.WRITTEN_FOR + 99, "here")  # a newer minor or patch
    for bad in (_lib.WRITTEN_FOR + 10000, _lib.WRITTEN_FOR - 1):
        with pytest.raises(ImportError, match="this package needs"):
            _lib.check_version(bad, "here")


def test_loaded_library_version():
    assert pmaps.library_version == _lib.version_str(pmaps._loaded)
    assert pmaps._loaded // 10000 == _lib.WRITTEN_FOR // 10000 <= pmaps._loaded
    assert os.path.basename(pmaps.library_path).startswith("libpmaps.so")


def test_installed_paths_come_first(tmp_path):
    # An installed package names its library in _paths.py, whatever PMAPS_LIBRARY says.
    shutil.copytree(os.path.dirname(pmaps.__file__), tmp_path / "pmaps",
                    ignore=shutil.ignore_patterns("__pycache__", "_paths.py"))
    (tmp_path / "pmaps" / "_paths.py").write_text("LIBPMAPS = %r\n" % pmaps.library_path)
    env = dict(os.environ, PYTHONPATH=str(tmp_path), PMAPS_LIBRARY="/nonexistent/libpmaps.so.0",
               PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", "import pmaps; print(pmaps.library_path)"],
                       env=env, stdout=subprocess.PIPE, check=True)
    assert r.stdout.decode().strip() == pmaps.library_path


def test_unloadable_library_is_an_import_error():
    env = dict(os.environ, PMAPS_LIBRARY="/nonexistent/libpmaps.so.0")
    r = subprocess.run([sys.executable, "-c", "import pmaps"], env=env, stderr=subprocess.PIPE)
    assert r.returncode != 0
    assert b"ImportError: pmaps: cannot load /nonexistent/libpmaps.so.0 (from PMAPS_LIBRARY)" \
        in r.stderr



def _bare_env(**extra):
    """The environment of a python3 that finds libpmaps only its own way."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PMAPS_LIBRARY", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PYTHONPATH")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def _soname_loads():
    r = subprocess.run([sys.executable, "-c", "import ctypes; ctypes.CDLL(%r)" % _lib.SONAME],
                       env=_bare_env(), stderr=subprocess.DEVNULL)
    return r.returncode == 0


def _copy_package(dest):
    """This package, outside any source tree and without _paths.py, under DEST."""
    shutil.copytree(os.path.dirname(pmaps.__file__), dest / "pmaps",
                    ignore=shutil.ignore_patterns("__pycache__", "_paths.py"))


def _pkg_config_prefix(tmp_path):
    """TMP_PATH/prefix/lib, as `make install PREFIX=TMP_PATH/prefix` leaves it for pkg-config:
    pkgconfig/pmaps.pc and libpmaps.so.0 (this test's library)."""
    libdir = tmp_path / "prefix" / "lib"
    (libdir / "pkgconfig").mkdir(parents=True)
    os.symlink(pmaps.library_path, libdir / _lib.SONAME)
    (libdir / "pkgconfig" / "pmaps.pc").write_text(
        "prefix=%s\nlibdir=${prefix}/lib\nName: pmaps\nDescription: t\nVersion: %s\nLibs: -lpmaps\n"
        % (tmp_path / "prefix", pmaps.library_version))
    return libdir


def test_source_tree_build_is_found():
    # python/pmaps imported from the source tree finds the tree's newest build.
    builds = []
    for preset in ("dev", "release"):
        path = os.path.join(SOURCE, "build", preset, _lib.SONAME)
        if os.path.exists(path):
            builds.append((os.stat(path).st_mtime, path))
    if not builds or os.path.exists(os.path.join(SOURCE, "python", "pmaps", "_paths.py")):
        pytest.skip("no build/dev or build/release in %s" % SOURCE)
    r = subprocess.run([sys.executable, "-c", "import pmaps; print(pmaps.library_path)"],
                       env=_bare_env(PYTHONPATH=os.path.join(SOURCE, "python")),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().strip() == max(builds)[1]


def test_pkg_config_libdir_is_found(tmp_path):
    # A `make install PREFIX=P` out of the linker's paths: PKG_CONFIG_PATH finds it.
    if _soname_loads():
        pytest.skip("%s loads through the dynamic linker here: pkg-config is not reached"
                    % _lib.SONAME)
    _copy_package(tmp_path)
    libdir = _pkg_config_prefix(tmp_path)
    r = subprocess.run([sys.executable, "-c", "import pmaps; print(pmaps.library_path)"],
                       env=_bare_env(PYTHONPATH=str(tmp_path),
                                     PKG_CONFIG_PATH=str(libdir / "pkgconfig")),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().strip() == str(libdir / _lib.SONAME)


def test_old_library_is_passed_over(tmp_path):
    # A libpmaps 0.3.0 first on the linker's path: the search goes on to pkg-config's.
    if _soname_loads():
        pytest.skip("%s loads through the dynamic linker here" % _lib.SONAME)
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        pytest.skip("no C compiler (%s)" % cc)
    _copy_package(tmp_path)
    old = tmp_path / "old"
    old.mkdir()
    (old / "v.c").write_text("unsigned pmaps_version(void) { return 300; }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname," + _lib.SONAME, "-o",
                    str(old / _lib.SONAME), str(old / "v.c")], check=True)
    libdir = _pkg_config_prefix(tmp_path)
    code = "import pmaps; print(pmaps.library_path)"
    r = subprocess.run([sys.executable, "-c", code],
                       env=_bare_env(PYTHONPATH=str(tmp_path), LD_LIBRARY_PATH=str(old),
                                     PKG_CONFIG_PATH=str(libdir / "pkgconfig")),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().strip() == str(libdir / _lib.SONAME)
    # Without pkg-config's: the error names the old one and why.
    r = subprocess.run([sys.executable, "-c", code],
                       env=_bare_env(PYTHONPATH=str(tmp_path), LD_LIBRARY_PATH=str(old),
                                     PKG_CONFIG_PATH=str(tmp_path)),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode != 0
    last = r.stderr.decode().strip().splitlines()[-1]
    assert ("tried: %s (from the dynamic linker) is libpmaps 0.3.0; this package needs 0.x, "
            "at least %s; " % (old / _lib.SONAME, _lib.version_str(_lib.WRITTEN_FOR))) in last, last


def test_not_found_says_what_was_tried(tmp_path):
    if _soname_loads():
        pytest.skip("%s loads through the dynamic linker here" % _lib.SONAME)
    _copy_package(tmp_path)
    r = subprocess.run([sys.executable, "-c", "import pmaps"],
                       env=_bare_env(PYTHONPATH=str(tmp_path), PKG_CONFIG_PATH=str(tmp_path)),
                       stderr=subprocess.PIPE)
    assert r.returncode != 0
    last = r.stderr.decode().strip().splitlines()[-1]
    assert last.startswith("ImportError: pmaps: cannot find libpmaps; tried: cannot load "
                           "libpmaps.so.0 (from the dynamic linker): "), last
    assert "; pkg-config knows no pmaps (PKG_CONFIG_PATH)." in last or "; no pkg-config." in last, \
        last
    assert last.endswith("or set PMAPS_LIBRARY to its path"), last


def test_package_version_is_the_projects():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        project = [l for l in f if l.startswith("project(pmaps VERSION ")][0].split()[2]
    assert pmaps.__version__ == project
    assert _lib.version_str(_lib.WRITTEN_FOR) <= project


def test_pip_installs_the_package(tmp_path):
    # pip install --no-build-isolation ./python into a venv, offline, as python/README.md says.
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        if os.environ.get("CI") not in (None, "", "false"):
            pytest.fail("python3 -m venv: %s" % r.stdout.decode()[-400:])
        pytest.skip("no venv (Debian's python3-venv): %s" % r.stdout.decode()[-200:])
    # From a copy: pip builds in the tree it is given (egg-info, build/).
    src = tmp_path / "python"
    shutil.copytree(os.path.join(SOURCE, "python"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "_paths.py", "*.egg-info", "build"))
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", "--no-build-isolation",
                        str(src)], cwd=str(tmp_path),
                       env=_bare_env(PIP_NO_CACHE_DIR="1"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert r.returncode == 0, r.stdout.decode()[-2000:]
    code = ("import pmaps, psutil; print(pmaps.__file__); print(pmaps.library_path); "
            "print(issubclass(pmaps.NoSuchProcess, psutil.NoSuchProcess))")
    r = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd="/",
                       env=_bare_env(PMAPS_LIBRARY=pmaps.library_path),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    site = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    assert r.stdout.decode().splitlines() == [os.path.join(site, "pmaps", "__init__.py"),
                                              pmaps.library_path, "True"]
    r = subprocess.run([str(venv / "bin" / "pip"), "show", "pmaps"], stdout=subprocess.PIPE,
                       env=_bare_env(), check=True)
    assert "Version: %s" % pmaps.__version__ in r.stdout.decode().splitlines()


# --- memory_maps -----------------------------------------------------------

def test_memory_maps_ungrouped_equals_psutil(stopped):
    def read():
        ours = [tuple(r[:13]) for r in pmaps.memory_maps(stopped, grouped=False)]
        theirs = [tuple(r) for r in psutil.Process(stopped).memory_maps(grouped=False)]
        return ours, theirs
    ours, theirs = settle(read)
    assert len(ours) == len(theirs) > 10
    for a, b in zip(ours, theirs):
        assert a == b
    assert pmaps.memory_maps(stopped, grouped=False)[0]._fields[:13] == \
        ("addr", "perms", "path") + PSUTIL_FIELDS


def test_memory_maps_grouped_equals_psutil(stopped):
    def read():
        ours = {r.path: tuple(r[1:11]) for r in pmaps.memory_maps(stopped)}
        theirs = {r.path: tuple(r[1:]) for r in psutil.Process(stopped).memory_maps()}
        return ours, theirs
    ours, theirs = settle(read)
    assert set(ours) == set(theirs)
    for path in theirs:
        assert (path, ours[path]) == (path, theirs[path])
    assert "[anon]" in ours and "[heap]" in ours and os.path.realpath(sys.executable) in ours
    deleted = [p for p in ours if "pmaps-deleted-" in p]
    assert len(deleted) == 1 and not deleted[0].endswith(" (deleted)")


def test_memory_maps_other_fields_follow_psutils(stopped):
    rows = pmaps.memory_maps(stopped, grouped=False)
    fields = rows[0]._fields
    keys = [pmaps._cdll.pmaps_field_key(i).decode() for i in range(len(pmaps._ROWS.keys))]
    assert set(fields[13:]) == set(keys) - set(PSUTIL_FIELDS)
    assert all(r.kernel_page_size == os.sysconf("SC_PAGE_SIZE") for r in rows)
    # smaps_rollup's own fields are never in a mapping: absent, not 0.
    assert all(r.pss_anon is None for r in rows)
    grouped = pmaps.memory_maps(stopped)
    assert grouped[0]._fields == ("path",) + PSUTIL_FIELDS + fields[13:]


def test_memory_maps_fast_path_equals_accessors(stopped):
    def read():
        with pmaps._handles.proc(pmaps._L, stopped) as h:
            with pmaps._handles.maps(pmaps._L, stopped, h, _rows.SRC_SMAPS) as cur:
                fast = pmaps._ROWS.ungrouped(cur, stopped, fast=True)
            with pmaps._handles.maps(pmaps._L, stopped, h, _rows.SRC_SMAPS) as cur:
                slow = pmaps._ROWS.ungrouped(cur, stopped, fast=False)
        return fast, slow
    fast, slow = settle(read)
    assert fast == slow
    assert _rows.FAST, "the fast path disagreed with pmaps_mapping_value() and was turned off"


def test_memory_maps_self():
    rows = pmaps.memory_maps("self", grouped=False)
    assert any(r.path == "[stack]" for r in rows)


def test_memory_maps_kernel_thread_is_empty():
    assert pmaps.memory_maps(2) == []
    assert pmaps.memory_maps(2, grouped=False) == []


# --- memory_full_info ------------------------------------------------------

def test_memory_full_info_equals_psutil(stopped):
    def read():
        return tuple(pmaps.memory_full_info(stopped)), \
            tuple(psutil.Process(stopped).memory_full_info())
    ours, theirs = settle(read)
    assert pmaps.pfullmem._fields == psutil.Process().memory_full_info()._fields
    ours, theirs = pmaps.pfullmem(*ours), pmaps.pfullmem(*theirs)
    for f in ("uss", "pss", "swap", "rss", "vms", "shared", "text", "lib", "data", "dirty"):
        assert (f, getattr(ours, f)) == (f, getattr(theirs, f))


# --- errors ----------------------------------------------------------------

CALLS = {
    "memory_maps": lambda pid: pmaps.memory_maps(pid),
    "memory_maps_ungrouped": lambda pid: pmaps.memory_maps(pid, grouped=False),
    "memory_full_info": pmaps.memory_full_info,
    "pages": lambda pid: list(pmaps.pages(pid)),
    "explain": pmaps.explain,
}


def test_exception_classes():
    assert issubclass(pmaps.NoSuchProcess, pmaps.Error)
    assert issubclass(pmaps.ZombieProcess, pmaps.NoSuchProcess)
    assert issubclass(pmaps.AccessDenied, pmaps.Error)
    assert not issubclass(pmaps.AccessDenied, pmaps.NoSuchProcess)
    # psutil is importable here: the three are also psutil's; Error is not.
    assert issubclass(pmaps.NoSuchProcess, psutil.NoSuchProcess)
    assert issubclass(pmaps.ZombieProcess, psutil.ZombieProcess)
    assert issubclass(pmaps.AccessDenied, psutil.AccessDenied)
    assert not issubclass(pmaps.Error, psutil.Error)
    assert not issubclass(pmaps.AccessDenied, psutil.NoSuchProcess)


def test_psutil_user_catches_them():
    p = subprocess.Popen(["true"])
    p.wait()
    try:
        pmaps.memory_full_info(p.pid)
    except psutil.NoSuchProcess as e:
        assert (e.pid, e.name, e.errno) == (p.pid, None, errno.ESRCH)
        assert e.msg == str(e) and str(p.pid) in e.msg
        assert repr(e).startswith("pmaps.NoSuchProcess(pid=%d, " % p.pid)
    else:
        pytest.fail("no exception for a reaped pid")


def test_psutil_keywords():
    # Code that builds psutil's exceptions by keyword builds ours the same way.
    e = pmaps.NoSuchProcess(pid=1, name="init")
    assert (str(e), e.pid, e.name, e.errno) == ("process no longer exists", 1, "init", None)
    e = pmaps.ZombieProcess(pid=2, name="z", ppid=1)
    assert (str(e), e.pid, e.name, e.ppid) == ("process is a zombie", 2, "z", 1)
    e = pmaps.AccessDenied(pid=3, msg="no")
    assert isinstance(e, psutil.AccessDenied) and (str(e), e.pid, e.name) == ("no", 3, None)


EXCEPTIONS_WITHOUT_PSUTIL = r"""
import sys
sys.modules["psutil"] = None   # import psutil: ImportError
import pmaps, pickle, subprocess
for c in (pmaps.Error, pmaps.NoSuchProcess, pmaps.ZombieProcess, pmaps.AccessDenied):
    print(c.__name__, [b.__module__ + "." + b.__name__ for b in c.__mro__])
p = subprocess.Popen(["true"]); p.wait()
try:
    pmaps.memory_maps(p.pid)
except pmaps.NoSuchProcess as e:
    print(e.pid == p.pid, e.name, e.errno, e.msg == str(e))
    e.name = "true"
    back = pickle.loads(pickle.dumps(e))
    print(type(back).__name__, back.pid == p.pid, back.name, back.errno, back.msg == e.msg)
z = pmaps.ZombieProcess(pid=7, name="z", ppid=1)
print(str(z), z.pid, z.name, z.ppid, z.errno)
"""


def test_exceptions_without_psutil():
    r = subprocess.run([sys.executable, "-c", EXCEPTIONS_WITHOUT_PSUTIL], env=_bare_env(
        PYTHONPATH=os.path.dirname(os.path.dirname(pmaps.__file__)),
        PMAPS_LIBRARY=pmaps.library_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    exc = ["builtins.Exception", "builtins.BaseException", "builtins.object"]
    assert r.stdout.decode().splitlines() == [
        "Error %s" % (["pmaps.Error"] + exc),
        "NoSuchProcess %s" % (["pmaps.NoSuchProcess", "pmaps.Error"] + exc),
        "ZombieProcess %s" % (["pmaps.ZombieProcess", "pmaps.NoSuchProcess", "pmaps.Error"] + exc),
        "AccessDenied %s" % (["pmaps.AccessDenied", "pmaps.Error"] + exc),
        "True None %d True" % errno.ESRCH,
        "NoSuchProcess True true %d True" % errno.ESRCH,
        "process is a zombie 7 z 1 None"]


@pytest.mark.parametrize("call", sorted(CALLS))
def test_gone_pid_is_no_such_process(call):
    p = subprocess.Popen(["true"])
    p.wait()
    with pytest.raises(pmaps.NoSuchProcess) as e:
        CALLS[call](p.pid)
    assert not isinstance(e.value, pmaps.ZombieProcess)
    assert e.value.pid == p.pid and e.value.errno == errno.ESRCH


@pytest.mark.parametrize("call", sorted(CALLS))
def test_zombie_is_zombie_process(call):
    p = subprocess.Popen(["true"])
    try:
        wait_state(p.pid, "Z")
        with pytest.raises(pmaps.ZombieProcess) as e:
            CALLS[call](p.pid)
        assert "zombie" in str(e.value)
    finally:
        p.wait()


def test_bad_pids():
    with pytest.raises(ValueError):
        pmaps.memory_maps(-1)
    with pytest.raises(TypeError):
        pmaps.memory_maps("1")
    with pytest.raises(ValueError):
        pmaps.pages(1, start=-1)


def test_access_denied_as_nobody(stopped):
    if os.geteuid() != 0:
        pytest.skip("not root: cannot drop to nobody to be refused")
    if not os.path.isabs(pmaps.library_path):
        pytest.skip("the library was loaded by its soname: no file to hand to nobody")
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody")
    code = ("import sys, pmaps\n"
            "for name in %r:\n"
            "    call = {'memory_maps': pmaps.memory_maps, 'memory_full_info':\n"
            "            pmaps.memory_full_info, 'pages': lambda p: list(pmaps.pages(p)),\n"
            "            'explain': pmaps.explain}[name]\n"
            "    try:\n"
            "        call(%d)\n"
            "        print(name, 'read')\n"
            "    except pmaps.Error as e:\n"
            "        print(name, type(e).__name__, e.errno)\n" %
            (("memory_maps", "memory_full_info", "pages", "explain"), stopped))
    # nobody must be able to read the package and the library.
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        shutil.copytree(os.path.dirname(pmaps.__file__), os.path.join(tmp, "pmaps"),
                        ignore=shutil.ignore_patterns("__pycache__", "_paths.py"))
        lib = os.path.join(tmp, "libpmaps.so.0")
        shutil.copy(pmaps.library_path, lib)
        env = dict(os.environ, PYTHONPATH=tmp, PMAPS_LIBRARY=lib)
        r = subprocess.run([sys.executable, "-c", code], env=env, user="nobody", group="nogroup",
                           extra_groups=[], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=tmp)
    assert r.returncode == 0, r.stderr.decode()
    lines = r.stdout.decode().split("\n")[:-1]
    assert lines == ["%s AccessDenied %d" % (n, errno.EACCES) for n in
                     ("memory_maps", "memory_full_info", "pages", "explain")], lines


def test_nothing_left_open():
    before = open_fds()
    for _ in range(20):
        pmaps.memory_maps("self")
        pmaps.memory_maps("self", grouped=False)
        pmaps.memory_full_info("self")
        pmaps.explain("self")
        it = pmaps.pages("self")
        next(it)
        del it  # dropped half way: collected, closed
        with pmaps.pages("self") as it:
            next(it)
        for call in CALLS.values():
            with pytest.raises(pmaps.NoSuchProcess):
                call(2 ** 22 + 1)  # above pid_max's ceiling: never a process
    assert open_fds() == before


# --- pages -----------------------------------------------------------------

def runs_of_tool(doc):
    return [(int(r["start"], 16), int(r["end"], 16), frozenset(r["flags"]),
             frozenset(r["kflags"]) if "kflags" in r else None, r.get("mapcount"), r["path"])
            for r in doc["ranges"]]


def private(path):
    return path in ("", "[heap]", "[stack]") or path.startswith("[anon")


def comparable(runs):
    """RUNS as two lists that a busy machine leaves alone while the target is stopped.

    The runs of the target's own memory (anonymous, heap, stack), whole. Of
    every run, only (start, end, flags, path), adjacent runs of equal flags
    and path joined: as root, runs are split by kpagecount too, and a shared
    library's pages gain and lose mappers as other processes come and go."""
    own = [r for r in runs if private(r[5])]
    joined = []
    for r in runs:
        if joined and joined[-1][1] == r[0] and joined[-1][2:] == (r[2], r[5]):
            joined[-1] = (joined[-1][0], r[1], r[2], r[5])
        else:
            joined.append((r[0], r[1], r[2], r[5]))
    return own, joined


def test_pages_equal_the_tools(stopped):
    def read():
        with held("pages", "--flags", "--json", stopped) as tool:
            ours = [tuple(r) for r in pmaps.pages(stopped)]
        return comparable(ours), comparable(runs_of_tool(tool["doc"]))
    ours, theirs = settle(read)
    for part in (0, 1):
        assert len(ours[part]) == len(theirs[part]) > 2
        for a, b in zip(ours[part], theirs[part]):
            assert a == b
    with pmaps.pages(stopped) as it:
        assert it.strategy == tool_json("pages", "--json", stopped)["strategy"]
        assert it.kpage == tool_json("pages", "--json", stopped)["kpageflags"]


def test_pages_range(stopped):
    rows = pmaps.memory_maps(stopped, grouped=False)
    heap = [r for r in rows if r.path == "[heap]"][0]
    start, end = (int(x, 16) for x in heap.addr.split("-"))
    page = os.sysconf("SC_PAGE_SIZE")
    runs = list(pmaps.pages(stopped, start + page, end - page))
    assert runs[0].start == start + page and runs[-1].end == end - page
    assert all(r.path == "[heap]" for r in runs)
    assert all(a.end == b.start for a, b in zip(runs, runs[1:]))
    assert list(pmaps.pages(stopped, 0, 4096)) == []


def test_pages_kernel_thread_is_empty():
    assert list(pmaps.pages(2)) == []


# --- explain ---------------------------------------------------------------

@pytest.mark.parametrize("with_pages", [False, True])
def test_explain_equals_the_tools(stopped, with_pages):
    args = ("explain", "--json") + (("--pages",) if with_pages else ()) + (stopped,)

    def read():
        with held(*args) as tool:
            ours = pmaps.explain(stopped, pages=with_pages)
        return ours, tool["doc"]
    ours, theirs = settle(read)
    assert ours == theirs
    assert ours["runtime"]["name"] == "cpython"
    assert ("pages" in ours) == with_pages


def test_explain_kernel_thread():
    assert pmaps.explain(2) == tool_json("explain", "--json", 2)
    assert pmaps.explain(2)["kernel_thread"] is True


# --- the books' fetch ------------------------------------------------------

def test_go_fetch_timeout_bounds_the_whole_request():
    """A server that sends its reply a byte at a time, slower than any socket timeout
    notices: the fetch ends at its own timeout, with the tool's words, while the server
    is still sending (it would for 30 s)."""
    import socket
    import threading
    from pmaps import _books

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    stop = threading.Event()

    def dribble():
        c, _ = srv.accept()
        with c:
            for _ in range(300):
                if stop.wait(0.1):
                    return
                try:
                    c.sendall(b"H")
                except OSError:
                    return
    t = threading.Thread(target=dribble, daemon=True)
    t.start()
    try:
        books = pmaps._EXPLAIN.books
        b = _structs.Books()
        b.size = ctypes.sizeof(b)
        ln = _structs.Listener()
        ln.port, ln.ipv6, ln.host = port, 0, b"127.0.0.1"
        url = "http://127.0.0.1:%d/debug/pprof/heap?debug=1" % port
        why = books._go_fetch(b, ln, url, 0.5)
        assert why == "%s: timed out after 500 ms" % url
        assert t.is_alive(), "the server had finished: the timeout was not what ended it"
    finally:
        stop.set()
        t.join()
        srv.close()


def test_go_block_room_as_the_tools():
    """The MemStats block's room as src/books_go.c's go_fetch_line() counts it: each
    line takes its bytes, and " (cut)" and a newline are kept room for."""
    from pmaps import _books

    def block(fill):
        blk = _books._Block()
        blk.line(_books.HEADER, True)
        used = len(_books.HEADER) + 1
        while used + 100 + 1 <= fill:
            blk.line(b"# " + b"x" * 98, True)
            used += 101
        return blk, used

    blk, used = block(_books.BLOCK_MAX - 7 - 10)
    last = _books.BLOCK_MAX - used - 7
    blk.line(b"# " + b"y" * (last - 2), True)  # exactly the room: taken
    assert not blk.over and blk.size == used + last + 1
    blk, used = block(_books.BLOCK_MAX - 7 - 10)
    blk.line(b"# " + b"y" * (last - 1), True)  # a byte more: over
    assert blk.over


# --- layout ----------------------------------------------------------------

def test_struct_layouts_equal_the_compilers():
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        pytest.skip("no C compiler (%s) to print the header's sizes and offsets" % cc)
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include \"pmaps.h\"",
             "int main(void)", "{"]
    want = []
    for cname, mirror, members in _structs.LAYOUTS:
        if cname not in _structs.PREFIX_ONLY:
            lines.append('\tprintf("%%s %%zu\\n", "%s", sizeof(%s));' % (cname, cname))
            want.append("%s %d" % (cname, ctypes.sizeof(mirror)))
        for m in members:
            f = getattr(mirror, m)
            lines.append('\tprintf("%%s.%%s %%zu %%zu\\n", "%s", "%s", offsetof(%s, %s), '
                         'sizeof(((%s *)0)->%s));' % (cname, m, cname, m, cname, m))
            want.append("%s.%s %d %d" % (cname, m, f.offset, f.size))
    lines += ["\treturn 0;", "}"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([cc, "-std=c17", "-I", os.path.join(SOURCE, "include"), src, "-o", exe],
                       check=True)
        got = subprocess.run([exe], stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
    assert got[:-1] == want
