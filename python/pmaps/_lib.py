# SPDX-License-Identifier: MIT
"""Loading libpmaps.so.0 and declaring, through ctypes, the functions the binding calls.

Where the library comes from, first found wins:
1. pmaps/_paths.py, written by `cmake --install`: LIBPMAPS, the absolute path
   of the libpmaps.so.0 installed beside this package;
2. the environment variable PMAPS_LIBRARY (a path; for a build tree);
3. the soname, libpmaps.so.0, through the dynamic linker's search.

The package was written for libpmaps WRITTEN_FOR (PMAPS_VERSION_NUMBER:
major * 10000 + minor * 100 + patch). A library of another major version,
or older than that, is refused with an ImportError that says which one was
found and where: its functions or records may not be the ones declared here.
"""

import ctypes
import os

WRITTEN_FOR = 400  # 0.4.0
SONAME = "libpmaps.so.0"


def version_str(n):
    return "%d.%d.%d" % (n // 10000, n // 100 % 100, n % 100)


def _candidates():
    try:
        from . import _paths  # generated at install time
    except ImportError:
        _paths = None
    if _paths is not None and getattr(_paths, "LIBPMAPS", None):
        return _paths.LIBPMAPS, "pmaps/_paths.py"
    env = os.environ.get("PMAPS_LIBRARY")
    if env:
        return env, "PMAPS_LIBRARY"
    return SONAME, "the soname"


def load():
    """The loaded library, its version checked (ImportError otherwise)."""
    path, origin = _candidates()
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
    check_version(found, "%s (from %s)" % (path, origin))
    declare(lib)
    return lib, path, found


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
