"""Which project a command acts on: the nearest directory, from the current one up, that holds
an ``agenttools.toml`` (as git finds ``.git``): a look at each directory, nothing parsed
(``sync``/``verify`` outside a project ask this first)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_FILE = "agenttools.toml"


def find_project_file(start: Path | None = None) -> Path | None:
    """The ``agenttools.toml`` of the project *start* (default: the current directory) is
    in, or None outside any project."""
    here = Path(os.path.abspath(start if start is not None else os.getcwd()))
    for directory in (here, *here.parents):
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None
