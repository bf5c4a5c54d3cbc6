"""What the checks of one project share: the project, the result they collect
(``CheckResult``: every problem, and the declarations that passed) and ``Checker.add``, which
locates a problem at the line of its key."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agenttools_runtime import names
from agenttools_runtime.project.problems import CODES, Problem, Severity, errors_of
from agenttools_runtime.project.pyproject import Project
from agenttools_runtime.project.values import is_inside
from agenttools_runtime.skills.spec import SkillSource
from agenttools_runtime.toml_text import KeyPath, format_key
from agenttools_runtime.wheel.manifest import BundleEntry

BASE: KeyPath = ("tool", "agenttools")
# the hatchling hook's tables: for every target, and for the wheel only
HOOK = ("tool", "hatch", "build", "hooks", "agenttools")
WHEEL_HOOK = ("tool", "hatch", "build", "targets", "wheel", "hooks", "agenttools")
DEFAULT_ROOT = "skills"
NUL_MESSAGE = "contains a NUL character, which no file name can hold"


@dataclass(frozen=True, slots=True)
class SkillDeclaration:
    """A skill of this distribution, resolved through the runtime's own
    :func:`~agenttools_runtime.skills.source.to_source` (so the wheel carries exactly what
    ``agenttools skills install`` would write from the same definition): ``source.files`` maps
    ``/``-separated relative paths to source files or generated text, ``source.manifest``
    their hashes, ``source.executable`` the files made executable on install."""

    kind: Literal["directory", "inline"]
    source: SkillSource
    path: str | None = None  # project-relative directory (directory kind)
    sources: tuple[Path, ...] = ()  # project files it is built from (for the sdist)


class CheckResult:
    """Problems found, and what was declared (complete only when there are no errors)."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.root = DEFAULT_ROOT
        self.servers: dict[str, dict[str, Any]] = {}
        self.registries: dict[str, dict[str, Any]] = {}  # server -> its registry table
        self.skills: dict[str, SkillDeclaration] = {}
        self.bundles: list[BundleEntry] = []
        self.checked: set[Path] = set()  # real skill directories whose SKILL.md was checked

    @property
    def errors(self) -> list[Problem]:
        return errors_of(self.problems)


class Checker:
    """One run of the checks over *project*; ``build_setup=False`` leaves out those of how
    the project's own build runs agenttools."""

    def __init__(self, project: Project, build_setup: bool = True) -> None:
        self.project = project
        self.build_setup = build_setup
        self.result = CheckResult()
        self.root_ok = True  # skills are looked up under root only when it is usable
        self._real_root: Path | None = None  # the project directory, links resolved

    def add(
        self,
        key: KeyPath | None,
        code: str,
        message: str,
        severity: Severity = "error",
        *,
        path: Path | None = None,
        line: int | None = None,
    ) -> None:
        """Report a problem about *key* (its path starts the message; its line is looked up
        in ``pyproject.toml`` unless *path* names another file)."""
        assert code in CODES, code
        if path is None:
            path = self.project.pyproject
            if line is None and key is not None:
                line = self.project.lines.line(key)
        if key is not None:
            message = f"{format_key(key)}: {message}"
        self.result.problems.append(Problem(path, line, code, message, severity))

    def inside_project(self, path: Path) -> bool:
        """Whether *path*, links resolved, stays inside the project."""
        if self._real_root is None:
            self._real_root = Path(os.path.realpath(self.project.root))
        return is_inside(Path(os.path.realpath(path)), self._real_root)

    def check_item_name(self, key: KeyPath, name: object, what: str) -> bool:
        """Report a server or bundle name that is not allowed; whether it is."""
        problem = names.item_name_problem(name, what)
        if problem is not None:
            self.add(key, "InvalidItemName", problem)
        return problem is None
