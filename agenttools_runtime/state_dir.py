"""Where the state directory is, as a string, without ``pathlib`` or ``platformdirs``: what
the lean paths of the CLI (``cli/lean_cache.py``, ``cli/quick_deployed.py``) read their caches
from. ``paths.state_dir`` is the full answer; this one answers where it can do so cheaply."""

from __future__ import annotations

import os
import sys

STATE_ENV = "AGENTTOOLS_HOME"


def lean_state_dir() -> str | None:
    """``$AGENTTOOLS_HOME`` (``~`` expanded), else on Linux what ``platformdirs.user_data_dir
    ("agenttools")`` answers (``$XDG_DATA_HOME/agenttools`` or ``~/.local/share/agenttools``:
    a test holds them equal); None elsewhere (importing platformdirs costs what the lean paths
    save)."""
    override = os.environ.get(STATE_ENV)
    if override:
        return os.path.expanduser(override)
    if sys.platform != "linux":
        return None
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    return os.path.join(data or os.path.expanduser("~/.local/share"), "agenttools")
