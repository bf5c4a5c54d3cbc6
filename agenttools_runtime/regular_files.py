"""Reading a file of a project, a wheel, a client's config or the state: a regular file, or
an error.

A path names whatever is there: a named pipe waits for a writer that never comes (``open``
and ``read`` block forever), ``/dev/zero`` or ``/dev/urandom`` never end, a socket or a
terminal do neither of what a file does. :func:`read_bytes` opens without blocking, looks at
what it opened (``fstat``: no window between a check and the read), and reads only a regular
file; anything else raises :class:`NotRegularFile`, an ``OSError`` whose ``strerror`` says
what the path is (``it is a named pipe, not a regular file``), so every caller's handling of an
unreadable file reports it.
"""

from __future__ import annotations

import errno
import os
import stat

# O_NONBLOCK: opening a named pipe does not wait for its writer; O_NOCTTY: opening a terminal
# does not make it ours
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """*filename* is not a regular file (nor a directory): a named pipe, a device, a socket."""

    def __init__(self, filename: str | os.PathLike[str], mode: int) -> None:
        self.mode = mode
        self.kind = kind(mode)
        super().__init__(
            errno.EINVAL, f"it is {self.kind}, not a regular file", os.fspath(filename)
        )

    def __str__(self) -> str:
        return f"{self.filename} is {self.kind}, not a regular file"

    def __reduce__(self) -> tuple[type[NotRegularFile], tuple[str, int]]:
        return type(self), (self.filename, self.mode)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Every byte of the regular file at *path* (a symbolic link is followed). Raises
    ``NotRegularFile`` for a named pipe, a device or a socket, ``IsADirectoryError`` for a
    directory, and the ``OSError`` of anything else (missing, unreadable)."""
    return read_with_stat(path)[0]


def read_bytes_if_present(path: str | os.PathLike[str]) -> bytes | None:
    """:func:`read_bytes`, None when nothing is at *path* (``FileNotFoundError``)."""
    try:
        return read_bytes(path)
    except FileNotFoundError:
        return None


def read_with_stat(path: str | os.PathLike[str]) -> tuple[bytes, os.stat_result]:
    """:func:`read_bytes`, with the ``fstat`` of the file it read (its mode, without a
    second look at the path)."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
            raise NotRegularFile(path, info.st_mode)
        return read_all(fd, info.st_size), info
    finally:
        os.close(fd)


def problem(path: str | os.PathLike[str]) -> str | None:
    """``"it is a named pipe, not a regular file"`` when something other than a regular file
    or a directory is at *path* (a link followed); None otherwise, or when nothing is there."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return f"it is {kind(mode)}, not a regular file"


def kind(mode: int) -> str:
    """What a file of *mode* (``st_mode``, neither regular nor a directory) is, for messages:
    ``a named pipe``."""
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def read_all(fd: int, size: int) -> bytes:
    """Every byte of the open file *fd*, whose stat size was *size*. One ``read`` asks for a
    byte more than that: *size* bytes back is the whole file, and anything else (a file
    changed since, a file system whose reads come short) is read on to its end. A deploy
    reads every file of a wheel's skills: a buffered file object costs four more system
    calls a file (``fstat`` twice, ``ioctl``, ``lseek``) and a second ``read``."""
    data = os.read(fd, size + 1)
    if len(data) == size or not data:
        return data
    chunks = [data]
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
