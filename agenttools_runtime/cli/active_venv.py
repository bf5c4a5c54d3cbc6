"""Which environment the active virtual environment (``$VIRTUAL_ENV``) makes a command look
at, and the paths that answer rests on. Its own module: the lean ``skill`` path asks it
before anything else (``cli/discovery.py``, where the ``--python``/``--path`` choice is made,
is 0.05x ``python -c pass`` to import)."""

from __future__ import annotations

import os
import sys


def active_venv_python() -> str | None:
    """The interpreter of ``$VIRTUAL_ENV`` when it is set and is not this interpreter's
    environment (None otherwise, or when it holds no interpreter)."""
    venv = os.environ.get("VIRTUAL_ENV")
    if not venv or os.path.realpath(venv) == os.path.realpath(sys.prefix):
        return None
    for candidate in _venv_pythons(venv):
        if os.path.isfile(candidate):
            return candidate
    return None


def active_venv_inputs() -> list[str]:
    """The paths :func:`active_venv_python` looked at (``$VIRTUAL_ENV``, where a link leads,
    and its interpreters): an answer computed without that environment holds while they are
    unchanged (an up-to-date ticket keeps them)."""
    venv = os.environ.get("VIRTUAL_ENV")
    return [os.path.abspath(venv), *_venv_pythons(os.path.abspath(venv))] if venv else []


def _venv_pythons(venv: str) -> tuple[str, str]:
    return os.path.join(venv, "bin", "python"), os.path.join(venv, "Scripts", "python.exe")
