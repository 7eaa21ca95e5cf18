# SPDX-License-Identifier: MIT
"""Loading libpmaps.so.0 and declaring, through ctypes, the functions the binding calls.

Where the library comes from:
1. pmaps/_paths.py, written by `cmake --install`: LIBPMAPS, the absolute path
   of the libpmaps.so.0 installed beside this package;
2. the environment variable PMAPS_LIBRARY (a path);
3. from a source tree (this package is python/pmaps beside include/pmaps.h):
   the tree's own builds, build/dev and build/release, the newer first;
4. the soname, libpmaps.so.0, through the dynamic linker's search
   (LD_LIBRARY_PATH, ld.so.cache: a Debian package, or ldconfig after an
   install into /usr/local);
5. `pkg-config --variable=libdir pmaps` (PKG_CONFIG_PATH at a prefix's
   LIB/pkgconfig: a `make install PREFIX=$HOME/.local`).
The first two are final (a library named there that does not load, or is
of a version this package does not run on, is the error); the others are
tried in turn, and when none serves the ImportError says what each gave.

The package was written for libpmaps WRITTEN_FOR (PMAPS_VERSION_NUMBER:
major * 10000 + minor * 100 + patch). A library of another major version,
or older than that, is refused with an ImportError that says which one was
found and where: its functions or records may not be the ones declared here.
"""

import ctypes
import os
import shutil
import subprocess

WRITTEN_FOR = 400  # 0.4.0
SONAME = "libpmaps.so.0"


def version_str(n):
    return "%d.%d.%d" % (n // 10000, n // 100 % 100, n % 100)


def _source_tree_builds():
    """The source tree's built libraries, the newest first: [] outside a source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))
    if os.path.basename(os.path.dirname(here)) != "python" or \
            not os.path.isfile(os.path.join(top, "include", "pmaps.h")):
        return []
    found = []
    for preset in ("dev", "release"):
        path = os.path.join(top, "build", preset, SONAME)
        try:
            found.append((os.stat(path).st_mtime, path))
        except OSError:
            pass
    return [path for _, path in sorted(found, reverse=True)]


def _pkg_config_libdir():
    """pkg-config's libdir for pmaps, or (None, why not)."""
    if not shutil.which("pkg-config"):
        return None, "no pkg-config"
    try:
        r = subprocess.run(["pkg-config", "--variable=libdir", "pmaps"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=10)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "pkg-config failed: %s" % e
    libdir = r.stdout.decode(errors="replace").strip()
    if r.returncode != 0 or not libdir:
        return None, "pkg-config knows no pmaps (PKG_CONFIG_PATH)"
    return libdir, None


def _candidates():
    """(path, origin, final) in the order they are tried; final: no fallback after it."""
    try:
        from . import _paths  # generated at install time
    except ImportError:
        _paths = None
    if _paths is not None and getattr(_paths, "LIBPMAPS", None):
        yield _paths.LIBPMAPS, "pmaps/_paths.py", True
        return
    env = os.environ.get("PMAPS_LIBRARY")
    if env:
        yield env, "PMAPS_LIBRARY", True
        return
    for path in _source_tree_builds():
        yield path, "the source tree's build", False
    yield SONAME, "the dynamic linker", False
    libdir, why = _pkg_config_libdir()
    yield (os.path.join(libdir, SONAME) if libdir else None), why or "pkg-config", False


def _loaded_from(lib, fallback):
    """The file the dynamic linker loaded LIB from (dladdr of one of its functions)."""

    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    try:
        dladdr = ctypes.CDLL(None).dladdr
    except AttributeError:
        return fallback
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    dladdr.restype = ctypes.c_int
    info = DlInfo()
    if dladdr(ctypes.cast(lib.pmaps_version, ctypes.c_void_p), ctypes.byref(info)) and \
            info.dli_fname:
        return os.fsdecode(info.dli_fname)
    return fallback


def _open(path, origin):
    """(lib, path loaded, version) for the library at PATH; ImportError saying why not."""
    if os.sep in path:
        path = os.path.abspath(path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("pmaps: cannot load %s (from %s): %s" % (path, origin, e)) from e
    try:
        version = lib.pmaps_version
    except AttributeError:
        raise ImportError("pmaps: %s (from %s) has no pmaps_version(): a libpmaps older "
                          "than %s, which this package needs" %
                          (path, origin, version_str(WRITTEN_FOR))) from None
    version.argtypes = []
    version.restype = ctypes.c_uint
    found = version()
    path = _loaded_from(lib, path)
    check_version(found, "%s (from %s)" % (path, origin))
    return lib, path, found


def load():
    """The loaded library, its version checked (ImportError otherwise)."""
    tried = []
    for path, origin, final in _candidates():
        if path is None:
            tried.append(origin)
            continue
        try:
            lib, path, found = _open(path, origin)
        except ImportError as e:
            if final:
                raise
            tried.append(str(e)[len("pmaps: "):])
            continue
        declare(lib)
        return lib, path, found
    raise ImportError("pmaps: cannot find libpmaps; tried: %s. Install libpmaps (the Debian "
                      "package libpmaps0, or make install), or set PMAPS_LIBRARY to its "
                      "path" % "; ".join(tried))


def check_version(found, where):
    """Raises ImportError unless version FOUND (a PMAPS_VERSION_NUMBER) is one this package
    runs on: the major it was written for, and no older than WRITTEN_FOR."""
    if found // 10000 != WRITTEN_FOR // 10000 or found < WRITTEN_FOR:
        raise ImportError("pmaps: %s is libpmaps %s; this package needs %d.x, at least %s" %
                          (where, version_str(found), WRITTEN_FOR // 10000,
                           version_str(WRITTEN_FOR)))


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_I = ctypes.c_int
_U = ctypes.c_uint
_U64 = ctypes.c_uint64
_SZ = ctypes.c_size_t
_S = ctypes.c_char_p

# name: (restype, argtypes). Handles and records are void pointers here; the
# records are read through the ctypes mirrors in _structs.py.
PROTOTYPES = {
    "pmaps_strerror": (_S, [_I]),
    "pmaps_proc_open": (_I, [_PP, _S, _S]),
    "pmaps_proc_close": (None, [_P]),
    "pmaps_proc_pid": (_I, [_P]),
    "pmaps_proc_dirfd": (_I, [_P]),
    "pmaps_field_key": (_S, [_I]),
    "pmaps_field_is_size": (_I, [_I]),
    "pmaps_mapping_value": (_I, [_P, _I, ctypes.POINTER(_U64)]),
    "pmaps_value_lookup": (_I, [_S, _SZ]),
    "pmaps_status_key": (_S, [_I]),
    "pmaps_status_read": (_I, [_P, _P, _P, _SZ]),
    "pmaps_maps_open": (_I, [_PP, _P, _I, _SZ]),
    "pmaps_maps_next": (_I, [_P, _PP]),
    "pmaps_maps_errmsg": (_S, [_P]),
    "pmaps_maps_close": (None, [_P]),
    "pmaps_page_flag_name": (_S, [_U]),
    "pmaps_kpage_flag_name": (_S, [_U64]),
    "pmaps_pages_open": (_I, [_PP, _P, _I, _U]),
    "pmaps_pages_strategy": (_I, [_P]),
    "pmaps_pages_seek": (_I, [_P, _U64, _U64]),
    "pmaps_pages_next": (_I, [_P, _PP]),
    "pmaps_pages_kpage": (_I, [_P]),
    "pmaps_pages_errmsg": (_S, [_P]),
    "pmaps_pages_close": (None, [_P]),
    "pmaps_xcat_name": (_S, [_I]),
    "pmaps_runtime_name": (_S, [_I]),
    "pmaps_xpage_key": (_S, [_I]),
    "pmaps_xcol_key": (_S, [_I]),
    "pmaps_source_name": (_S, [_I]),
    "pmaps_explain_known": (_I, [_P, _I, _I]),
    "pmaps_note_key": (_S, [_I]),
    "pmaps_note_value_key": (_S, [_I, _U]),
    "pmaps_explain_open": (_I, [_PP, _P, _U]),
    "pmaps_explain_run": (_I, [_P, _PP]),
    "pmaps_explain_errmsg": (_S, [_P]),
    "pmaps_explain_close": (None, [_P]),
    "pmaps_group_value": (_I, [_P, _I, ctypes.POINTER(_U64)]),
    "pmaps_group_open": (_I, [_PP, _I]),
    "pmaps_group_count": (_SZ, [_P]),
    "pmaps_group_get": (_P, [_P, _SZ]),
    "pmaps_group_read": (_I, [_P, _P]),
    "pmaps_group_close": (None, [_P]),
    "pmaps_total": (_I, [_P, _P, _SZ, ctypes.POINTER(_I), _P, _SZ]),
    # since 0.4.0: the source choice, the runtime's books and their join
    "pmaps_explain_choose": (_I, [_P, _I, _U64, _P, _P, _SZ]),
    "pmaps_choice_reason_key": (_S, [_I]),
    "pmaps_book_key": (_S, [_I]),
    "pmaps_book_value_key": (_S, [_I]),
    "pmaps_book_value_book": (_I, [_I]),
    "pmaps_book_value_unit": (_I, [_I]),
    "pmaps_nmt_state_key": (_S, [_I]),
    "pmaps_books_runtime": (_I, [_P]),
    "pmaps_books_jcmd_failed": (None, [_I, _S, _I, _S, _SZ, _S, _SZ, _I, _P, _SZ]),
    "pmaps_books_has": (_I, [_P, _I]),
    "pmaps_books_parse": (_I, [_P, _I, _P, _SZ, _P, _SZ]),
    "pmaps_books_go_env": (_I, [_P, _P]),
    "pmaps_books_finish": (_I, [_P, _P]),
    "pmaps_books_go_listeners": (_I, [_P, _P, _U, _P, _SZ]),
    "pmaps_books_jvm_attach": (_I, [_P, _P, _P, _SZ]),
    "pmaps_join_part_key": (_S, [_I]),
    "pmaps_join_src_key": (_S, [_I]),
    "pmaps_join_key": (_S, [_I]),
    "pmaps_join_term_how": (_S, [_P]),
    "pmaps_join_refusal_key": (_S, [_I]),
    "pmaps_books_join": (_I, [_P, _P, _U64, _P]),
}


def declare(lib):
    for name, (res, args) in PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("pmaps: the library has no %s()" % name) from None
        fn.restype = res
        fn.argtypes = args
