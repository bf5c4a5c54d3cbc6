"""The files of a skill directory: links that leave it or lead nowhere, entries that are not
regular files, names that differ only in case, and files the sdist would leave out."""

from __future__ import annotations

import os
from pathlib import Path

from agenttools_runtime import regular_files
from agenttools_runtime.backend_names import WRAPPING_BACKEND
from agenttools_runtime.project.context import Checker
from agenttools_runtime.project.problems import display_path
from agenttools_runtime.project.values import dig, is_inside
from agenttools_runtime.skills.hashing import JUNK_DIRS, VCS_NAMES


def check_skill_files(checker: Checker, directory: Path) -> None:
    """Links that leave the skill, and files that cannot reach the wheel."""
    root_real = Path(os.path.realpath(directory))
    _check_entries(checker, directory, "", root_real, {})
    _check_sdist_reach(checker, directory)


def _check_entries(
    checker: Checker, current: Path, prefix: str, root_real: Path, seen: dict[str, Path]
) -> None:
    """The entries of *current* in name order, then its subdirectories (not links) in turn,
    as ``os.walk`` visits them; kinds from the directory listing (one stat per link only)."""
    root = checker.project.root
    try:
        entries = sorted(os.scandir(current), key=lambda e: e.name)
    except OSError:
        return
    subdirectories = []
    for entry in entries:
        is_dir = entry.is_dir()
        if is_dir and (entry.name in VCS_NAMES or entry.name in JUNK_DIRS):
            continue
        path = current / entry.name
        if entry.is_symlink():
            where = display_path(path, root)
            target = Path(os.path.realpath(path))
            if not is_inside(target, root_real):
                checker.add(
                    None,
                    "UnsafeLink",
                    f"the symbolic link {where} points outside its skill directory "
                    f"(to {display_path(target, root)}); skills may only "
                    "link to files inside themselves",
                    path=path,
                )
                continue
            if not target.exists():
                checker.add(None, "BrokenLink", f"{where} is a broken link", path=path)
                continue
            if target.is_dir() and is_inside(current, target):
                checker.add(
                    None,
                    "UnsafeLink",
                    f"the symbolic link {where} leads back to "
                    f"{display_path(target, root)}, which contains it; "
                    "copying the skill would never end",
                    path=path,
                )
                continue
        elif is_dir:
            subdirectories.append(entry.name)
        if not is_dir and not entry.is_file():
            checker.add(
                None,
                "SkillFileNotInWheel",
                f"{display_path(path, root)} is not a regular file and cannot be put into a wheel",
                path=path,
            )
        folded = (prefix + entry.name).casefold()
        if folded in seen:
            checker.add(
                None,
                "SkillFileNotInWheel",
                f"{display_path(path, root)} and {display_path(seen[folded], root)} differ only "
                "in case; on Windows and macOS one would overwrite the other",
                path=path,
            )
        seen.setdefault(folded, path)
    for name in subdirectories:
        _check_entries(checker, current / name, f"{prefix}{name}/", root_real, seen)


def _check_sdist_reach(checker: Checker, directory: Path) -> None:
    """With the hook off for the sdist, ``.gitignore``d skill files never reach it, nor a
    wheel built from it."""
    data = checker.project.data
    hooks = dig(data, "tool", "hatch", "build", "hooks", "agenttools")
    backend = dig(data, "build-system", "build-backend")
    if hooks is not None or backend == WRAPPING_BACKEND or not checker.build_setup:
        return  # the hook or the wrapping backend adds every skill file to the sdist
    gitignore = checker.project.root / ".gitignore"
    if not gitignore.is_file():
        return
    try:  # optional: hatchling's own dependency, absent where agenttools runs without it
        import pathspec
    except ImportError:
        return
    try:  # git reads .gitignore as bytes; a Latin-1 one is still a valid file
        lines = regular_files.read_bytes(gitignore).decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        return
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    for current, _dirs, files in os.walk(directory):
        for name in files:
            path = Path(current) / name
            rel = Path(os.path.relpath(path, checker.project.root)).as_posix()
            if spec.match_file(rel):
                checker.add(
                    None,
                    "SkillFileNotInWheel",
                    f"{rel} is ignored by .gitignore, so the sdist leaves it out and a "
                    "wheel built from the sdist would lack it; enable the hook for every "
                    "target with [tool.hatch.build.hooks.agenttools]",
                    path=path,
                )
