"""The one layer through which every filesystem mutation of agenttools goes.

Writes, renames, deletions, directory creation and mode changes of skill directories, config
files, registry entries and deployment records all call the functions here. That gives one
place to make writes atomic, and one place where tests can make the k-th mutation fail or
observe named points of an operation (:func:`checkpoint`) without monkeypatching internals:
:func:`observe` calls an observer before each of them (``tests/helpers/faults.py`` counts
them and fails one).

The observer is held in a :class:`contextvars.ContextVar`, so it is scoped to the ``with``
block (and the thread/task it runs in); there is no module-level mutable state.

An ``OSError`` raised by a mutation keeps its type (callers catch ``FileNotFoundError`` and
the like) and says what failed: :func:`failure_of` gives the operation and the path the
caller asked for (not a temp file's), which the CLI prints as one line.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import shutil
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, ParamSpec, TypeVar

from agenttools_runtime import regular_files

if TYPE_CHECKING:
    _P = ParamSpec("_P")
    _R = TypeVar("_R")

Observer = Callable[[str, Path], None]
"""Called as ``observer(operation, path)`` before every mutation and at every checkpoint.
Raising from it makes that operation fail (before anything is changed)."""

_observer: contextvars.ContextVar[Observer | None] = contextvars.ContextVar(
    "agenttools_fs_observer", default=None
)


@contextlib.contextmanager
def observe(observer: Observer) -> Iterator[Observer]:
    """Run the block with *observer* called before every mutation."""
    token = _observer.set(observer)
    try:
        yield observer
    finally:
        _observer.reset(token)


def checkpoint(name: str, path: Path | str = "") -> None:
    """A named point of an operation where tests may pause or fail the process."""
    _notify(f"checkpoint:{name}", Path(path))


def _notify(operation: str, path: Path | str) -> None:
    observer = _observer.get()
    if observer is not None:
        observer(operation, Path(path))


# -- what failed -----------------------------------------------------------------------------

# operation -> the verb of "Cannot <verb> <path>" (the CLI's message for a failed mutation)
OPERATIONS: dict[str, str] = {
    "write": "write",
    "copy": "copy a file to",
    "mkdir": "create the directory",
    "rename": "move",
    "replace": "replace",
    "chmod": "change the permissions of",
    "unlink": "delete",
    "rmtree": "delete",
    "rmdir": "delete",
    "symlink": "create the link",
}

_FAILURE = "agenttools_failure"


def failure_of(exc: BaseException) -> tuple[str, Path] | None:
    """``(operation, path)`` of an ``OSError`` raised by a mutation of this module, else
    None. The operation is a key of :data:`OPERATIONS`."""
    found = vars(exc).get(_FAILURE)
    return found if isinstance(found, tuple) else None


def _names_failure(
    operation: str, argument: str = "path"
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Tag an ``OSError`` of the decorated mutation with *operation* and the value of its
    parameter *argument* (the path the caller named; the innermost tag wins)."""

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        index = function.__code__.co_varnames.index(argument)

        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return function(*args, **kwargs)
            except OSError as exc:
                path = args[index] if index < len(args) else kwargs.get(argument)
                vars(exc).setdefault(_FAILURE, (operation, Path(str(path))))
                raise

        return wrapper

    return decorate


# -- mutations -------------------------------------------------------------------------------


TEMP_MARK = ".agenttools-"
"""Every temporary name agenttools creates contains it: temp files
``.<name>.agenttools-<random>.tmp``, ``.agenttools-staging-<uuid>``,
``.agenttools-backup-<uuid>``, so ``doctor`` can tell them from anyone else's."""

TEMP_SUFFIX = ".tmp"


@_names_failure("write")
def write_bytes_atomic(
    path: Path, data: bytes, mode: int | None = None, *, durable: bool = True
) -> None:
    """Write *data* to *path* through a temp file in the same directory and ``os.replace``.

    With *durable* (the default) the file and then its directory are fsynced, so the new bytes
    survive a power cut once this returns. Files whose content an intent journal can
    reconstruct (registry entries) pass ``durable=False``: a killed process cannot lose them
    (the page cache outlives it), and the journal covers a power cut. An existing file's
    permission bits are kept unless *mode* is given. The directory must exist.
    """
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = None
    write_stream_atomic(path, lambda handle: handle.write(data), mode, durable=durable)


@_names_failure("write")
def write_stream_atomic(
    path: Path, write: Callable[[BinaryIO], object], mode: int | None, *, durable: bool = True
) -> None:
    """:func:`write_bytes_atomic` for output too large to hold in memory (a wheel):
    ``write(handle)`` fills the temp file (*mode* None: the temp file's 0600). The directory
    must exist."""
    _notify("write", path)
    fd, tmp = _temp_file(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        checkpoint("atomic-write:temp-written", tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        sync_directory(path.parent)


def _temp_file(path: Path) -> tuple[int, str]:
    """A new file beside *path*, ``.<name>.agenttools-<random>.tmp``, open for writing, mode
    0600. Not ``tempfile.mkstemp``: inside :func:`listing_temp_files` its name is listed
    *before* it is created (a process killed in between leaves no file the log misses)."""
    log = _temp_log.get()
    while True:
        tmp = os.path.join(
            path.parent, f".{path.name}{TEMP_MARK}{os.urandom(6).hex()}{TEMP_SUFFIX}"
        )
        if log is not None:
            log.add(tmp)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600), tmp
        except FileExistsError:
            continue


_O_CLOEXEC = (
    getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0)
)


# -- the temp log ----------------------------------------------------------------------------
#
# A process killed between creating a temp file and renaming it leaves the temp file. Inside
# the state lock its name was listed first, in a log of that lock holder's in the journal
# directory; the next holder of the lock deletes what a dead holder's log lists (see
# agenttools_runtime.deploy.recovery), wherever the file was (beside a config file, beside
# the file a link points to).

TEMP_LOG_SUFFIX = ".temps"


class TempLog:
    """The log of one lock holder's temp files: absolute paths, each ended by a NUL byte,
    appended (one ``write`` each) before the file is created. Not fsynced: it has to outlive
    a killed process, not a power cut (after one, ``doctor`` finds such files by name)."""

    __slots__ = ("created", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.created = False

    def add(self, temp: str) -> None:
        # (bookkeeping, not a change the observer counts or fails: os, not _write_in_place)
        if not self.created:
            os.makedirs(self.path.parent, exist_ok=True)
            self.created = True
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _O_CLOEXEC, 0o600)
        try:
            os.write(fd, os.fsencode(os.path.abspath(temp)) + b"\0")
        finally:
            os.close(fd)


_temp_log: contextvars.ContextVar[TempLog | None] = contextvars.ContextVar(
    "agenttools_fs_temp_log", default=None
)


def new_temp_log(directory: Path) -> Path:
    """A fresh name for a temp log in *directory* (``<pid>-<random>.temps``)."""
    return directory / f"{os.getpid()}-{os.urandom(6).hex()}{TEMP_LOG_SUFFIX}"


@contextlib.contextmanager
def listing_temp_files(log: Path) -> Iterator[None]:
    """List every temp file that an atomic write of the block creates in *log*, before it is
    created; delete the log when the block ends (its temp files are gone by then: renamed, or
    deleted on failure). A process killed in the block leaves the log: see
    :func:`listed_temp_files`."""
    listing = TempLog(log)
    token = _temp_log.set(listing)
    try:
        yield
    finally:
        _temp_log.reset(token)
        if listing.created:
            with contextlib.suppress(OSError):
                os.unlink(log)


def current_temp_log() -> Path | None:
    """The log of this block's temp files (None outside :func:`listing_temp_files`)."""
    listing = _temp_log.get()
    return None if listing is None else listing.path


def listed_temp_files(log: Path) -> list[Path]:
    """The temp files *log* lists that are still there and carry a temp file's name (an
    entry torn by a kill, or any other name, is left out)."""
    try:
        data = regular_files.read_bytes(log)
    except OSError:
        return []
    found: list[Path] = []
    for raw in data.split(b"\0")[:-1]:
        path = Path(os.fsdecode(raw))
        if path.is_absolute() and is_temp_name(path.name) and os.path.lexists(path):
            found.append(path)
    return found


def is_temp_name(name: str) -> bool:
    """True for a temp file name :func:`write_bytes_atomic` makes (``.<name>.agenttools-….tmp``)."""
    return name.startswith(".") and TEMP_MARK in name and name.endswith(TEMP_SUFFIX)


@_names_failure("write")
def write_bytes(path: Path | str, data: bytes) -> None:
    """Create or truncate *path* with *data* (for files inside a directory being built, and
    cache files, which a torn write leaves unreadable: empty to their readers)."""
    _write_in_place(path, os.O_TRUNC, data)


@_names_failure("write")
def create_bytes(path: Path | str, data: bytes) -> None:
    """Create *path* with *data*; ``FileExistsError`` (nothing written) if anything is there.
    Not atomic: for files whose torn state an intent journal's undo removes."""
    _write_in_place(path, os.O_EXCL, data)


@_names_failure("write")
def append_bytes(path: Path | str, data: bytes) -> None:
    """Append *data* to *path* (created if missing) in one ``write`` of an ``O_APPEND`` file:
    for logs whose reader stops at a torn last line."""
    _write_in_place(path, os.O_APPEND, data)


def _write_in_place(path: Path | str, mode_flag: int, data: bytes) -> None:
    """Open *path* for writing (created if missing, with *mode_flag*: truncate, exclusive or
    append) and write all of *data*. os.write, not open(): no buffered file object for a
    file written in one call."""
    _notify("write", path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode_flag | _O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


@_names_failure("copy", "destination")
def copy_file(source: Path, destination: Path) -> None:
    """Copy the bytes of *source* (following links) to *destination*."""
    _notify("copy", destination)

    shutil.copyfile(source, destination)


@_names_failure("mkdir")
def mkdir(path: Path, parents: bool = True, exist_ok: bool = True) -> None:
    if exist_ok and path.is_dir():
        return
    _notify("mkdir", path)
    path.mkdir(parents=parents, exist_ok=exist_ok)


@_names_failure("rename", "source")
def rename(source: Path, destination: Path) -> None:
    """``os.rename``: moves a file, directory or link as itself."""
    _notify("rename", source)
    os.rename(source, destination)


@_names_failure("replace", "destination")
def replace(source: Path, destination: Path) -> None:
    _notify("replace", destination)
    os.replace(source, destination)


@_names_failure("symlink", "link")
def symlink(target: Path, link: Path) -> None:
    """Create the symbolic link *link* to the directory *target* (``deploy --link``)."""
    _notify("symlink", link)
    os.symlink(target, link, target_is_directory=True)


@_names_failure("rmdir")
def rmdir(path: Path) -> None:
    """Remove an empty directory (``OSError`` when it is not empty)."""
    _notify("rmdir", path)
    os.rmdir(path)


@_names_failure("chmod")
def chmod(path: Path | str, mode: int) -> None:
    _notify("chmod", path)
    os.chmod(path, mode)


@_names_failure("unlink")
def unlink(path: Path, missing_ok: bool = False) -> None:
    """Remove a file or a symbolic link (never its target)."""
    _notify("unlink", path)
    try:
        os.unlink(path)
    except FileNotFoundError:
        if not missing_ok:
            raise


@_names_failure("rmtree")
def rmtree(path: Path) -> None:
    """Remove a real directory tree. A link or file at *path* is unlinked as itself."""
    _notify("rmtree", path)
    if path.is_symlink() or not path.is_dir():
        os.unlink(path)
        return

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=_rmtree_retry_readonly)
    else:
        shutil.rmtree(path, onerror=_rmtree_retry_readonly)


def remove_entry(path: Path) -> None:
    """Remove whatever is at *path* (directory tree, file, link, dangling link) as itself."""
    if path.is_symlink() or (os.path.lexists(path) and not path.is_dir()):
        unlink(path)
    elif path.is_dir():
        rmtree(path)


def staging_path(next_to: Path) -> Path:
    """A fresh sibling path in *next_to*'s parent: ``.agenttools-staging-<uuid>``, where a
    directory is built before it is renamed into place."""
    return next_to.parent / f"{TEMP_MARK}staging-{os.urandom(16).hex()}"


def _rmtree_retry_readonly(func: Callable[..., object], path: str, _exc: object) -> None:
    # Read-only files (e.g. copied from a read-only wheel) block deletion on Windows.
    os.chmod(path, stat.S_IWRITE | stat.S_IREAD)
    func(path)


def sync_directory(directory: Path) -> None:
    """fsync a directory, so the names created, renamed or removed in it are durable (POSIX;
    elsewhere a no-op). Failures are ignored: some file systems refuse it."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
