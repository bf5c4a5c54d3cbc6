"""An output kept with everything it was computed from, recorded while it was computed: every
path the computation looked at (``os.stat``, ``os.lstat``, ``os.access``, ``os.scandir``,
``os.listdir``, ``open`` — what ``os.path``, ``pathlib`` and ``json`` go through) and every
environment variable it read; and shown again while each of those paths has the same stat
signature (``status_cache.signature``: times, size, inode, mode, a link's target) and each
variable the same value. Used where the inputs are many small looks at the file system that
no list written by hand would keep up with (``agenttools clients``: the client table, every
client's folders, files and executables on ``PATH``, what agenttools created).

Each entry is also keyed by ``sys.path`` (which ``PYTHONPATH`` and ``.pth`` files make at
start-up, unseen by the recording). It is honest as far as the computation reads through
those functions (a C extension's own file access is not seen: the computations using it are
pure Python over ``os``; nor is an environment variable that appears where the computation
only iterated over ``os.environ``), with the
"racily clean" rule of the other caches: nothing is kept when a path it read changed within
``RACY_NS`` of the computation. The modules that computed it, agenttools' and the libraries',
are paths like any other. Entries live in ``<state>/cache/NAME.marshal`` (``lean_cache``).
"""

from __future__ import annotations

import builtins
import io
import os
import sys
import time

from agenttools_runtime import status_cache
from agenttools_runtime.cli import lean_cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# the standard library's modules: the interpreter's (sys.version keys the cache)
_STDLIB = os.path.dirname(os.__file__) + os.sep
_LOOKS = ("stat", "lstat", "access", "scandir", "listdir")
KEPT_LINES = 16  # the command lines kept per interpreter, the latest


def cached_output(
    name: str, line: str, compute: Callable[[], str | bytes | None], *, here: bool = False
) -> str | bytes | None:
    """What *compute* printed for *line* last time, while nothing it read changed; else
    what it prints now (None: not for the cache, the full path answers). *here*: *line*
    names the working directory, so a relative path is read as the absolute one it is."""
    # (the module path: where distributions and modules are found; PYTHONPATH and .pth files
    # make it at start-up, read neither through os.environ nor through a path looked at here)
    line = f"{line}\n{sys.path!r}"
    cache_file = lean_cache.cache_file(name)
    stored = lean_cache.load(cache_file)
    interpreter = lean_cache.interpreter_key(())
    known: dict[str, Any] = lean_cache.entries(stored, interpreter)
    try:
        shown, environment, checks, resolved = known[line]
        if (
            all(os.environ.get(key) == value for key, value in environment)
            and status_cache.all_unchanged(checks)
            and all(os.path.realpath(path) == real for path, real in resolved)
        ):
            return shown  # type: ignore[no-any-return]
    except (KeyError, TypeError, ValueError):  # not held (or not as written)
        pass
    started = time.time_ns()
    paths: dict[str, None] = {}
    environment_read: dict[str, str | None] = {}
    recording = _Recording(paths, environment_read, here)
    with recording:
        shown = compute()
    if shown is None or recording.unseen:
        return shown
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and not path.startswith(_STDLIB):
            paths[path] = None
    checks = [(path, status_cache.signature(path)) for path in paths]
    limit = started - lean_cache.RACY_NS
    settled = all(sig is None or status_cache.changed_ns(sig) < limit for _, sig in checks)
    if settled and cache_file is not None:
        resolved = sorted(recording.resolved.items())
        entry = (shown, sorted(environment_read.items()), checks, resolved)
        kept = {key: value for key, value in known.items() if key != line}
        kept = dict([*list(kept.items())[-(KEPT_LINES - 1) :], (line, entry)])
        lean_cache.store(cache_file, stored, interpreter, kept)
    return shown


class _Recording:
    """While it is entered, every path looked at through ``os`` and ``open`` goes into
    *paths*, every environment variable read into *environment* (with its value)."""

    def __init__(
        self, paths: dict[str, None], environment: dict[str, str | None], here: bool = False
    ) -> None:
        self.paths = paths
        self.here = here
        self.environment = environment
        self.saved: dict[str, Any] = {}
        self.unseen = False  # a look this record cannot stand for: relative (the working
        # directory decides) or in bytes
        # os.path.realpath's answers: checked by asking again (the lstat of every component
        # it walks would tie the entry to the times of /tmp, /home, ...: never settled)
        self.resolved: dict[str, str] = {}
        self.resolving = 0

    def __enter__(self) -> None:
        for name in _LOOKS:
            self.saved[name] = getattr(os, name)
            setattr(os, name, self._looking(self.saved[name]))
        self.saved["open"] = builtins.open
        builtins.open = io.open = self._looking(builtins.open)
        self.saved["os.open"] = os.open  # (regular_files.read_bytes opens with it)
        os.open = self._looking(os.open)
        self.saved["realpath"] = os.path.realpath
        os.path.realpath = self._resolving(os.path.realpath)
        environ = type(os.environ)
        self.saved["getitem"] = environ.__getitem__
        getitem = self.saved["getitem"]
        seen = self.environment

        def reading(mapping: Any, key: str) -> Any:
            try:
                value = getitem(mapping, key)
            except KeyError:
                seen.setdefault(key, None)
                raise
            seen.setdefault(key, value)
            return value

        environ.__getitem__ = reading  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        for name in _LOOKS:
            setattr(os, name, self.saved[name])
        builtins.open = io.open = self.saved["open"]
        os.open = self.saved["os.open"]
        type(os.environ).__getitem__ = self.saved["getitem"]  # type: ignore[method-assign]
        os.path.realpath = self.saved["realpath"]

    def _resolving(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def resolving(path: Any, *args: Any, **kwargs: Any) -> Any:
            self.resolving += 1
            try:
                real = function(path, *args, **kwargs)
            finally:
                self.resolving -= 1
            name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
            lenient = args in ((), (False,)) and kwargs in ({}, {"strict": False})
            if isinstance(name, str) and lenient and (self.here or os.path.isabs(name)):
                self.resolved[os.path.abspath(name)] = real
            else:
                self.unseen = True
            return real

        return resolving

    def _looking(self, function: Callable[..., Any]) -> Callable[..., Any]:
        paths = self.paths

        def looking(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
            if self.resolving:  # (realpath's own walk: its answer is what is kept)
                return function(path, *args, **kwargs)
            if isinstance(path, (str, os.PathLike)):
                name = os.fspath(path)
                if isinstance(name, str) and (self.here or os.path.isabs(name)):
                    paths.setdefault(os.path.abspath(name), None)
                else:
                    self.unseen = True
            elif not isinstance(path, int):  # (a file descriptor: of a file opened here)
                self.unseen = True
            return function(path, *args, **kwargs)

        return looking
