"""The vocabulary of a project check: a located ``Problem`` and every problem code with its
severity (``ProjectInvalid``, the error that lists them, is ``project/invalid.py``'s)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agenttools_runtime.project.values import is_inside

Severity = Literal["error", "warning"]

MISSING_CONFIG = (
    "the agenttools build hook is enabled but there is no [tool.agenttools] table, so nothing "
    "is bundled; add one declaring the skills and MCP servers to ship"
)

# Every problem code, its default severity and what it means (docs/reference.md lists them).
CODES: dict[str, tuple[Severity, str]] = {
    "NoProject": ("error", "no pyproject.toml at or above the path"),
    "UnreadableProject": ("error", "pyproject.toml cannot be read"),
    "InvalidTOML": ("error", "pyproject.toml is not valid TOML"),
    "NestingTooDeep": ("error", "pyproject.toml nests values more than 100 levels deep"),
    "TooManyValues": ("error", "pyproject.toml holds more than 100,000 values"),
    "MissingProjectName": ("error", "[project] has no name"),
    "MissingConfig": ("warning", "the hook is enabled but [tool.agenttools] is missing"),
    "HookNotEnabled": ("error", "[tool.agenttools] exists but the build hook is not enabled"),
    "HookWheelOnly": ("warning", "the hook is enabled for the wheel target only"),
    "BuildRequirementMissing": ("error", "build-system.requires lacks agenttools"),
    "UnsupportedBackend": ("error", "the build backend is not hatchling"),
    "MissingBackend": ("error", "agenttools_hook.backend without the backend it wraps"),
    "BackendDoesNotBundle": ("warning", "the build backend does not run agenttools"),
    "UnusedBackend": ("warning", "backend set while build-backend is not agenttools_hook.backend"),
    "UnknownKey": ("error", "a key the schema does not know (with a did-you-mean)"),
    "InvalidType": ("error", "a value of the wrong type"),
    "InvalidValue": ("error", "a value outside its choices"),
    "PathOutsideProject": (
        "error",
        "root, backend-path or body-file leads outside the project, or is not relative to it",
    ),
    "InvalidItemName": ("error", "a server, bundle or skill reference name that is not allowed"),
    "InvalidServer": ("error", "a server without exactly one launch key, or with keys that clash"),
    "InvalidModule": ("error", "module is not a dotted module path"),
    "UnknownModule": ("error", "module is not in the project's source tree"),
    "UnknownScript": ("error", "script is not a [project.scripts] entry"),
    "InvalidURL": ("error", "url is not http(s)"),
    "InvalidSetting": (
        "error",
        "a declared setting (env.VAR, headers.NAME) that cannot be asked for",
    ),
    "MissingKey": ("error", "a table without a key it requires"),
    "InvalidRegistry": ("error", "a registry entry the MCP registry would refuse"),
    "RegistryScript": ("error", "uvx DIST would not start the server of a registry entry"),
    "RegistryReadme": ("error", "the README lacks the registry's mcp-name line"),
    "InvalidSkillName": ("error", "a skill name against the Agent Skills rules"),
    "InvalidSkillDefinition": ("error", "SKILL.md or an inline skill against the spec"),
    "SkillFrontmatterBOM": ("error", "SKILL.md starts with a byte order mark"),
    "SkillFrontmatterDashes": ("error", "a '---' inside the frontmatter"),
    "FlowStyle": ("warning", "YAML flow style, which skills-ref rejects"),
    "ClientExtensionKey": ("warning", "a client's frontmatter extension key"),
    "MissingDefinitionFile": ("error", "a declared skill with no SKILL.md and no inline form"),
    "DuplicateDefinitionFiles": ("error", "a skill defined inline and as a directory"),
    "MissingBodyFile": ("error", "body-file does not exist"),
    "UnsafeLink": ("error", "a symbolic link leaving its skill directory"),
    "BrokenLink": ("error", "a symbolic link to nothing"),
    "SkillFileNotInWheel": ("error", "a skill file that would not reach the wheel"),
    "UndeclaredSkill": ("warning", "a skill directory under root that nothing declares"),
    "UnknownServer": ("error", "a bundle lists a server that is not declared"),
    "DuplicateItem": ("warning", "a bundle lists an item twice"),
    "InvalidMarker": ("error", "a bundle marker that is not PEP 508"),
    "DuplicateBundleName": ("error", "two bundles of one name whose markers can both hold"),
    "AmbiguousBundleName": ("error", "a bundle named like a server it does not contain"),
    "DuplicateBundleConfigKey": ("error", "servers of one bundle with the same config key"),
    "EmptyBundle": ("warning", "a bundle with no servers and no skills"),
    "NothingDeclared": ("warning", "[tool.agenttools] declares nothing"),
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding. ``line`` is 1-based, or None when the file gives none."""

    path: Path
    line: int | None
    code: str
    message: str
    severity: Severity = "error"

    def format(self, base: Path | None = None) -> str:
        """``path:line: code: message`` (warnings: ``path:line: warning: code: message``);
        *path* relative to *base* (default: the current directory) when it is inside it."""
        where = display_path(self.path, base)
        if self.line is not None:
            where += f":{self.line}"
        kind = "warning: " if self.severity == "warning" else ""
        return f"{where}: {kind}{self.code}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "line": self.line,
            "code": self.code,
            "message": self.message,
            "severity": self.severity,
        }


def display_path(path: Path, base: Path | None = None) -> str:
    """*path* relative to *base* (default: the current directory) when inside it, else whole."""
    base = Path.cwd() if base is None else base
    try:
        return Path(os.path.relpath(path, base)).as_posix() if is_inside(path, base) else str(path)
    except ValueError:  # another drive on Windows
        return str(path)


def errors_of(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def problem_order(problem: Problem) -> tuple[str, int, str]:
    """File order: by path, then line, then code."""
    return (str(problem.path), problem.line or 0, problem.code)
