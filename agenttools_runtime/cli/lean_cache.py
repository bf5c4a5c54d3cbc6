"""The caches of the CLI's lean paths (``cli/quick_list.py``, ``cli/quick_show.py``): one
``marshal`` file each under ``<state>/cache/``, holding per interpreter (and per version of
the code that computed them) what each manifest gave, keyed by the manifest's path and
checked against its stat signature by the caller. A cache is never the only copy of
anything: unreadable or foreign, it is empty; written atomically, failures ignored; never the
first thing in a state directory (a ``list`` on a new machine creates none)."""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

CACHE_SCHEMA = 2  # 2: the lines of skill and clients with what they read
# what changed within this of a computation is not kept: a change in the same clock tick as
# the read could leave its signature the same (git's "racily clean" entries)
RACY_NS = 2_000_000_000
KEPT_INTERPRETERS = 8  # a cache holds what this many interpreters saw, the latest first


def cache_file(name: str) -> str | None:
    """``<state>/cache/NAME.marshal`` (None: where the state directory is not cheap to know)."""
    from agenttools_runtime.state_dir import lean_state_dir

    state = lean_state_dir()
    return None if state is None else os.path.join(state, "cache", f"{name}.marshal")


def interpreter_key(code_files: Iterable[str]) -> tuple[object, ...]:
    """What every entry also depends on: the interpreter, and the code (its version, and the
    modules that compute the entries, relative to the package, by stat: an edited
    checkout)."""
    from agenttools_runtime import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = []
    for module in code_files:
        try:
            st = os.stat(os.path.join(package, module))
        except OSError:  # (not a plain file: an installed zip) the version says it
            continue
        code.append((module, st.st_mtime_ns, st.st_size))
    return (CACHE_SCHEMA, __version__, sys.executable, sys.version, tuple(code))


def load(path: str | None) -> dict[Any, Any]:
    """The stored cache: interpreter key -> (manifest path -> entry)."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            stored = marshal.loads(f.read())  # (marshal.load(f) reads in small pieces)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return stored if isinstance(stored, dict) else {}


def entries(stored: dict[Any, Any], interpreter: tuple[object, ...]) -> dict[Any, Any]:
    """The entries *stored* holds for *interpreter* (none when they are not a table: a cache
    not as written is a miss)."""
    found = stored.get(interpreter)
    return found if isinstance(found, dict) else {}


def store(
    path: str, stored: dict[Any, Any], interpreter: tuple[object, ...], kept: dict[str, Any]
) -> None:
    """Write this interpreter's entries first, then the other interpreters' (at most
    ``KEPT_INTERPRETERS`` in all), atomically; a failure is ignored. Only where agenttools
    keeps state already."""
    if not os.path.isdir(os.path.dirname(os.path.dirname(path))):
        return
    others = [(k, v) for k, v in stored.items() if k != interpreter]
    table = dict([(interpreter, kept), *others[: KEPT_INTERPRETERS - 1]])
    temp = temp_path(path)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temp, "wb") as f:
            f.write(marshal.dumps(table))
        os.replace(temp, path)
    except (OSError, ValueError):
        try:
            os.unlink(temp)
        except OSError:
            pass


def temp_path(path: str) -> str:
    """The temp file *path* is written through: named as ``fs.write_bytes_atomic`` names its
    own (``.<name>.agenttools-<pid>.tmp``, ``fs.is_temp_name``), so the one a killed write
    leaves is found and deleted by ``agenttools doctor --fix``. (``fs`` is not imported here:
    the lean paths do not load the writers' module.)"""
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{name}.agenttools-{os.getpid()}.tmp")
