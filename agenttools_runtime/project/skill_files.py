"""The files of a skill directory: links that leave it or lead nowhere, entries that are not
regular files, names that differ only in case, and files the sdist would leave out."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agenttools_runtime import regular_files
from agenttools_runtime.backend_names import WRAPPING_BACKEND
from agenttools_runtime.project.context import HOOK, Checker
from agenttools_runtime.project.problems import display_path
from agenttools_runtime.project.values import dig
from agenttools_runtime.project_paths import is_skill_file_path
from agenttools_runtime.skills.walk import walk

if TYPE_CHECKING:
    import pathspec


def check_skill_files(checker: Checker, directory: Path) -> None:
    """Links that leave the skill or lead nowhere, entries that are not regular files, names
    that differ only in case, and files the sdist would leave out: what would not reach the
    wheel as it is. Links are looked at, not followed (what one leads to is checked where it
    is); what a build leaves out (junk, version-control metadata) is not looked at."""
    root = checker.project.root
    ignores = _sdist_ignores(checker)
    seen: dict[str, Path] = {}
    for entry in walk(directory, follow_links=False):
        path = Path(entry.path)
        if entry.kind == "dangling":
            where = display_path(path, root)
            checker.add(None, "BrokenLink", f"{where} is a broken link", path=path)
        elif entry.link is not None and entry.kind == "outside":
            checker.add(
                None,
                "UnsafeLink",
                f"the symbolic link {display_path(path, root)} points outside its skill "
                f"directory (to {display_path(entry.link, root)}); skills may only "
                "link to files inside themselves",
                path=path,
            )
        elif entry.link is not None and entry.kind == "loop":
            checker.add(
                None,
                "UnsafeLink",
                f"the symbolic link {display_path(path, root)} leads back to "
                f"{display_path(entry.link, root)}, which contains it; "
                "copying the skill would never end",
                path=path,
            )
        elif entry.kind in ("file", "directory", "other"):
            if entry.kind == "other":
                checker.add(
                    None,
                    "SkillFileNotInWheel",
                    f"{display_path(path, root)} is not a regular file and cannot be put "
                    "into a wheel",
                    path=path,
                )
            if entry.kind == "file" and not is_skill_file_path(entry.rel):
                checker.add(
                    None,
                    "SkillFileNotInWheel",
                    f"{display_path(path, root)} cannot be put into a wheel: its name holds "
                    'a backslash (a separator on Windows) or starts with a drive ("c:"), '
                    "which deploys refuse; rename it",
                    path=path,
                )
            folded = entry.rel.casefold()
            if folded in seen:
                checker.add(
                    None,
                    "SkillFileNotInWheel",
                    f"{display_path(path, root)} and {display_path(seen[folded], root)} differ "
                    "only in case; on Windows and macOS one would overwrite the other",
                    path=path,
                )
            seen.setdefault(folded, path)
            if entry.kind == "file" and ignores is not None:
                rel = Path(os.path.relpath(path, root)).as_posix()
                if ignores.match_file(rel):
                    checker.add(
                        None,
                        "SkillFileNotInWheel",
                        f"{rel} is ignored by .gitignore, so the sdist leaves it out and a "
                        "wheel built from the sdist would lack it; enable the hook for every "
                        "target with [tool.hatch.build.hooks.agenttools]",
                        path=path,
                    )


def _sdist_ignores(checker: Checker) -> pathspec.GitIgnoreSpec | None:
    """With the hook off for the sdist, the ``.gitignore`` whose skill files never reach it,
    nor a wheel built from it."""
    data = checker.project.data
    hooks = dig(data, *HOOK)
    backend = dig(data, "build-system", "build-backend")
    if hooks is not None or backend == WRAPPING_BACKEND or not checker.build_setup:
        return None  # the hook or the wrapping backend adds every skill file to the sdist
    gitignore = checker.project.root / ".gitignore"
    if not gitignore.is_file():
        return None
    try:  # optional: hatchling's own dependency, absent where agenttools runs without it
        import pathspec
    except ImportError:
        return None
    try:  # git reads .gitignore as bytes; a Latin-1 one is still a valid file
        lines = regular_files.read_bytes(gitignore).decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)
