# SPDX-License-Identifier: MIT
"""Bytes a target chose (paths, a runtime's version and evidence) turned into str.

psutil's habit for paths (psutil/_pslinux.py, memory_maps): the file
system encoding with surrogateescape, white space stripped, "[anon]" for a
nameless mapping, " (deleted)" dropped when no file has the name with it
(psutil raises when stat() is refused; here the suffix then stays).

The JSON habit of `pmaps ... --json` (src/escape.c): UTF-8, each byte of an
invalid sequence replaced by U+FFFD, and then KEY_hex beside KEY with the
raw bytes in hex.
"""

import codecs
import os
import sys

_FS_ENCODING = sys.getfilesystemencoding()
_FS_ERRORS = sys.getfilesystemencodeerrors()


def _one_byte(e):
    # One U+FFFD per byte that is not part of a valid sequence, as src/escape.c.
    return "\ufffd", e.start + 1


codecs.register_error("pmaps.replace_byte", _one_byte)


def psutil_path(raw):
    """psutil's path for a mapping whose kernel name is RAW (bytes)."""
    if not raw:
        return "[anon]"
    path = raw.decode(_FS_ENCODING, _FS_ERRORS).strip()
    if path.endswith(" (deleted)"):
        try:
            os.stat(path)
        except PermissionError:
            pass
        except (OSError, ValueError):
            path = path[:-10]
    return path


def json_named(d, key, raw):
    """Sets D[KEY] as the JSON writer does, and D[KEY + '_hex'] when RAW is not UTF-8."""
    try:
        d[key] = raw.decode("utf-8")
    except UnicodeDecodeError:
        d[key] = raw.decode("utf-8", "pmaps.replace_byte")
        d[key + "_hex"] = raw.hex()


def names(fn, limit):
    """The keys a library function FN gives for 0, 1, ... until NULL (LIMIT at most)."""
    out = []
    while len(out) < limit:
        s = fn(len(out))
        if s is None:
            break
        out.append(s.decode())
    return out
