"""A project: a directory and its ``pyproject.toml``, found from any path inside it and read
(``load_project``; a file that cannot be read or parsed is one located problem)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from agenttools_runtime import limits, regular_files
from agenttools_runtime.project.problems import Problem
from agenttools_runtime.project.values import dig
from agenttools_runtime.toml_text import TomlLines, deep_line

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PYPROJECT = "pyproject.toml"


@dataclass(eq=False)
class Project:
    """A project directory with its parsed ``pyproject.toml`` (and its text, whose lines are
    found when a problem needs one: a clean project's check never scans them)."""

    root: Path
    data: dict[str, Any]
    text: str

    @cached_property
    def lines(self) -> TomlLines:
        """Where each key of ``pyproject.toml`` is."""
        return TomlLines(self.text)

    @property
    def pyproject(self) -> Path:
        return self.root / PYPROJECT

    @property
    def name(self) -> str | None:
        name = dig(self.data, "project", "name")
        return name if isinstance(name, str) else None

    @property
    def config(self) -> Any:
        """``[tool.agenttools]`` (None when absent)."""
        return dig(self.data, "tool", "agenttools")


def find_project_root(path: Path) -> Path | None:
    """The nearest directory at or above *path* (a directory or any file) holding a
    ``pyproject.toml``."""
    current = path.resolve()
    if not current.is_dir():
        current = current.parent
    for candidate in (current, *current.parents):
        if os.path.lexists(candidate / PYPROJECT):  # (a pipe or a link named so: reported)
            return candidate
    return None


def load_project(root: Path, data: Mapping[str, Any] | None = None) -> Project | Problem:
    """Read ``root/pyproject.toml`` (or use *data*, the already parsed file, e.g. hatchling's
    ``metadata.config``). A file that does not parse is returned as a Problem."""
    root = Path(os.path.abspath(root))
    path = root / PYPROJECT
    try:
        text = regular_files.read_bytes(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        if data is None:
            return Problem(path, None, "UnreadableProject", f"cannot read {PYPROJECT}: {exc}")
        text = ""
    if data is None:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            match = re.search(r"\(at line (\d+), column \d+\)", str(exc))
            line = int(match.group(1)) if match else None
            return Problem(path, line, "InvalidTOML", f"{PYPROJECT} is not valid TOML: {exc}")
        except RecursionError:  # arrays or inline tables nested beyond what tomllib recurses
            return _too_deep(path, text)
    shape = limits.shape_problem(data)
    if shape == limits.too_deep():  # dotted keys nest without recursing
        return _too_deep(path, text)
    if shape is not None:  # too many values (a TOML file has no aliases to expand)
        reason = f"holds more than {limits.MAX_VALUES:,} values; agenttools reads no further"
        return Problem(path, None, "TooManyValues", f"{PYPROJECT} {reason}")
    return Project(root, dict(data), text)


def _too_deep(path: Path, text: str) -> Problem:
    return Problem(
        path,
        deep_line(text),
        "NestingTooDeep",
        f"{PYPROJECT} has values {limits.too_deep()}; agenttools reads no deeper",
    )
