"""Whether a stdio server's entry can start, checked before it is written: its interpreter
exists and finds the module (a lookup of the module's spec along that environment's
``sys.path``, importing nothing), a script exists and is executable, a command is an
absolute path or found on the ``PATH``. ``deploy --no-check`` skips it; ``deploy --check``
goes further (:mod:`agenttools_runtime.mcp.probe`)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from importlib.machinery import PathFinder
from pathlib import Path

from agenttools_runtime.mcp.server import Environment, MCPServer


def start_problem(server: MCPServer, search_paths: Sequence[str] | None) -> str | None:
    """Why the entry of *server* (as written: after its runner) cannot start, or None.
    *search_paths*: the ``sys.path`` of the environment a ``python -m`` entry runs in (None:
    the module is not looked up)."""
    if server.is_remote:
        return None
    command, args = server.launch()
    problem = _command_problem(command)
    if problem is not None:
        return problem
    module = args[1] if len(args) >= 2 and args[0] == "-m" and server.module else None
    if module is None or search_paths is None:
        return None
    # what python -m finds, importing nothing: the module, or a package's __main__
    found, locations = _lookup(module, search_paths)
    if not found:
        return (
            f"the module {module} is not found by {command} (looked along its sys.path: "
            "is the distribution installed there?)"
        )
    if locations is not None and PathFinder.find_spec("__main__", locations) is None:
        return f"the package {module} has no __main__ module: python -m cannot run it"
    return None


def _command_problem(command: str) -> str | None:
    if os.path.isabs(command):
        if not os.path.isfile(command):
            return f"{command} does not exist"
        if not os.access(command, os.X_OK):
            return f"{command} is not executable"
        return None
    if os.path.dirname(command):  # (never looked for on the PATH)
        return (
            f"{command} is a path relative to the client's working directory, not this one "
            "(give it as an absolute path)"
        )
    # (a relative or empty PATH entry is relative to the client's working directory, which is
    # not this one: only the absolute entries say where the client finds it)
    path = os.environ.get("PATH", "")
    absolute = os.pathsep.join(p for p in path.split(os.pathsep) if os.path.isabs(p))
    if shutil.which(command, path=absolute) is None:
        return f"{command} is not on the PATH ({path})"
    return None


def _lookup(module: str, search_paths: Sequence[str]) -> tuple[bool, list[str] | None]:
    """Whether *module* is found along *search_paths* (each package's spec, then the next
    part within its locations), and its locations when it is a package (None: a plain
    module)."""
    locations: list[str] | None = [p for p in search_paths if Path(p).exists()]
    for part in module.split("."):
        if locations is None:
            return False, None  # a module is not a package: nothing inside it
        spec = PathFinder.find_spec(part, locations)
        if spec is None:
            return False, None
        found = spec.submodule_search_locations
        locations = None if found is None else list(found)
    return True, locations


def interpreter_paths(python: Path, probed: Sequence[str]) -> Sequence[str]:
    """The ``sys.path`` of *python*: this interpreter's own when it is this one, else
    *probed* (what discovery asked it for). (``PYTHONPATH`` counts, as the ``PATH`` does:
    a client started from this shell gives its servers this environment.)"""
    # (by path, not by file: two venvs' interpreters are often links to one binary)
    own = {os.path.abspath(sys.executable), os.fspath(Environment.current().python)}
    if os.path.abspath(python) in own:
        return [p or os.curdir for p in sys.path]
    return probed


def version_problem(dist_info: str | None, paths: Sequence[str], python: Path) -> str | None:
    """Why an entry run by *python* would not run the distribution at *dist_info* (its
    ``site-packages`` is not on that interpreter's ``sys.path``: ``deploy --path DIR``
    with another copy in the environment), or None."""
    if dist_info is None:
        return None
    site = Path(dist_info).parent
    for path in paths:
        try:
            if os.path.samefile(path, site):
                return None
        except OSError:
            continue
    return (
        f"it is installed in {site}, which {python} does not import from: its entry would "
        "run another copy, or none (give --python of an environment that has it installed, "
        "or use --runner uvx)"
    )
