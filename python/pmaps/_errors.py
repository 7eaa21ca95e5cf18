# SPDX-License-Identifier: MIT
"""The exceptions, in psutil's habits, and the mapping from libpmaps's errors to them.

libpmaps returns a negative errno and a message. -ESRCH is a process gone
(NoSuchProcess), or a zombie when the message says so (ZombieProcess, a
NoSuchProcess as in psutil); -EACCES and -EPERM are AccessDenied; anything
else is Error with the library's message.
"""

import errno as _errno


class Error(Exception):
    """Base class of pmaps's exceptions. ERRNO is the library's error (positive), or None."""

    def __init__(self, msg, pid=None, errno=None):
        Exception.__init__(self, msg)
        self.msg = msg
        self.pid = pid
        self.errno = errno

    def __str__(self):
        return self.msg


class NoSuchProcess(Error):
    """The process does not exist (any more)."""


class ZombieProcess(NoSuchProcess):
    """The process has exited and its parent has not reaped it: it has no memory to read."""


class AccessDenied(Error):
    """The caller may not read the process (ptrace-read access, or root, is needed)."""


def error_for(err, pid, text):
    """The exception for the library's return ERR (a negative errno) with message TEXT."""
    e = -err
    if e == _errno.ESRCH:
        if "zombie" in text:
            return ZombieProcess(text, pid, e)
        return NoSuchProcess(text, pid, e)
    if e in (_errno.EACCES, _errno.EPERM):
        return AccessDenied(text, pid, e)
    return Error(text, pid, e)
