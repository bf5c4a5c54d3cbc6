"""What ``deploy … DIST --install`` was asked to install: a PEP 508 requirement from an index
(``weather-tools``, ``'weather-tools==1.2.0'``), a wheel file, or a project directory."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from packaging.requirements import InvalidRequirement as _Invalid
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from agenttools_runtime.errors import InvalidRequirement, UnsupportedRequirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

Kind = Literal["index", "wheel", "directory"]


@dataclass(frozen=True, slots=True)
class InstallRequest:
    """One thing to install. ``text`` is what was asked (for an index requirement its
    normalized form, ``weather-tools==1.2.0``); ``name`` the distribution's normalized name
    (for a directory: its ``[project] name``); ``path`` the absolute wheel file or project
    directory; ``requirement`` the parsed requirement (index requests)."""

    text: str
    kind: Kind
    name: str
    path: Path | None = None
    requirement: Requirement | None = None

    @property
    def pinned_version(self) -> str | None:
        """The version a wheel file has, or an ``==`` requirement pins (else None)."""
        if self.kind == "wheel" and self.path is not None:
            return str(parse_wheel_filename(self.path.name)[1])
        if self.requirement is not None:
            pins = [s.version for s in self.requirement.specifier if s.operator in ("==", "===")]
            if len(pins) == 1 and "*" not in pins[0]:
                return pins[0]
        return None

    def describe(self) -> str:
        return self.text if self.kind == "index" else os.fspath(self.path or self.text)


def parse_request(text: str) -> InstallRequest:
    """*text* as an :class:`InstallRequest`. A path (an existing ``.whl`` file or a directory
    with ``pyproject.toml``) is that; ``git+…`` and other URLs are refused
    (``UnsupportedRequirement``); anything else must be a PEP 508 requirement without a URL
    (``InvalidRequirement``)."""
    stripped = text.strip()
    if not stripped:
        raise InvalidRequirement(requirement=text, reason="it is empty")
    if stripped.startswith(("git+", "hg+", "svn+", "bzr+")):
        raise UnsupportedRequirement(
            requirement=stripped, reason="installing from version control is not supported yet"
        )
    if "://" in stripped:
        raise UnsupportedRequirement(
            requirement=stripped,
            reason="direct URL requirements are not supported (give a requirement, a wheel "
            "file or a directory)",
        )
    candidate = Path(os.path.expanduser(stripped))
    if stripped.endswith(".whl") or os.sep in stripped or stripped.startswith("."):
        if candidate.is_file() and candidate.suffix == ".whl":
            return _wheel(candidate)
        if candidate.is_dir():
            return _directory(candidate)
        raise InvalidRequirement(requirement=stripped, reason="no such file or directory")
    try:
        requirement = Requirement(stripped)
    except _Invalid as exc:
        raise InvalidRequirement(requirement=stripped, reason=str(exc).splitlines()[0]) from None
    if requirement.url:
        raise UnsupportedRequirement(
            requirement=stripped, reason="direct URL requirements are not supported"
        )
    requirement.name = str(canonicalize_name(requirement.name))
    return InstallRequest(str(requirement), "index", requirement.name, None, requirement)


def _wheel(path: Path) -> InstallRequest:
    try:
        name = parse_wheel_filename(path.name)[0]
    except ValueError as exc:
        raise InvalidRequirement(requirement=str(path), reason=str(exc)) from None
    absolute = path.resolve()
    return InstallRequest(str(absolute), "wheel", str(name), absolute)


def _directory(path: Path) -> InstallRequest:
    absolute = path.resolve()
    pyproject = absolute / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        name = data["project"]["name"]
    except FileNotFoundError:
        raise InvalidRequirement(
            requirement=str(absolute), reason="a directory without pyproject.toml"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidRequirement(
            requirement=str(absolute), reason=f"its pyproject.toml has no [project] name ({exc})"
        ) from None
    return InstallRequest(str(absolute), "directory", str(canonicalize_name(str(name))), absolute)
