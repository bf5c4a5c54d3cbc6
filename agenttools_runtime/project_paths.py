"""The rule a path that a project names relative to itself follows: a ``backend-path``
directory, and the directory of a skill as the manifest records it (``<root>/<name>``). The
project's checks refuse at build time what breaks it, and the readers (the wrapping backend
finding the backend it wraps, the manifest reader) refuse the same, so that a project that
builds is one whose wheel deploys. Apart from the checks because the wrapping backend's
``get_requires_for_build_*`` processes need it and nothing else of them."""

from __future__ import annotations

import os
import re

# what a path that breaks the rule is told (after "must be a directory inside the project")
RULE = 'given as a relative path: not empty, no leading "/" or "\\", no ".." part'


def is_project_path(path: str) -> bool:
    """Whether *path*, joined to the project directory, stays inside it on every system: it
    is not empty, not absolute here or elsewhere (no leading ``/`` or ``\\``: on Windows the
    drive's root), and has no ``..`` part, with ``/`` and ``\\`` both separating parts."""
    return bool(path) and not (
        path.startswith(("/", "\\")) or os.path.isabs(path) or ".." in re.split(r"[/\\]", path)
    )
