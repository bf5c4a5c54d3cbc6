"""The rules of the relative paths a project's build writes and the runtime reads: a path of
the project (a ``backend-path`` directory, a skill's directory as the manifest records it,
``<root>/<name>``) and a path of a skill's file. The project's checks refuse at build time
what breaks them, and the readers (the wrapping backend finding the backend it wraps, the
manifest reader, skill installation) refuse the same, so that a project that builds is one
whose wheel deploys. Apart from the checks because the wrapping backend's
``get_requires_for_build_*`` processes need the first and nothing else of them."""

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


def is_skill_file_path(rel: str) -> bool:
    """Whether *rel*, a ``/``-separated path of a file of a skill (a manifest's ``files``), stays
    inside the skill's directory on every system: no empty, ``.`` or ``..`` part (so not empty
    and not absolute), no backslash (a separator on Windows), no drive (``c:``) and no NUL (a
    terminator)."""
    return (
        "\\" not in rel
        and "\0" not in rel
        and rel[1:2] != ":"
        and all(part not in ("", ".", "..") for part in rel.split("/"))
    )
