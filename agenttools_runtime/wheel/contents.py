"""What agenttools adds to a wheel: a checked project's build plan as the files of its
``.dist-info`` (:class:`Member`), in one fixed order. The hatchling hook, the wrapping PEP 517
backend and ``agenttools bundle`` all take their files from :func:`members`, so the three
paths ship the same bytes; :func:`agenttools_runtime.project.build.load_plan` is the one way
they check a project.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agenttools_runtime import regular_files
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import WheelManifest


class Plan(Protocol):
    """What :func:`members` reads of a :class:`~agenttools_runtime.project.BuildPlan`."""

    @property
    def manifest(self) -> WheelManifest: ...

    @property
    def files(self) -> Mapping[str, Path | str]: ...

    @property
    def contents(self) -> Mapping[str, bytes]: ...


# zip permission bits of what we add: what hatchling and installers normalize to
FILE_MODE = 0o644
EXECUTABLE_MODE = 0o755


@dataclass(frozen=True, slots=True)
class Member:
    """One file under ``.dist-info/extra_metadata/agenttools/``."""

    path: str  # relative to the .dist-info directory ("extra_metadata/agenttools/...")
    data: bytes
    executable: bool = False
    source: Path | None = None  # the project file it was read from; None: generated

    @property
    def mode(self) -> int:
        return EXECUTABLE_MODE if self.executable else FILE_MODE

    @property
    def target(self) -> str:
        """The path relative to ``extra_metadata/`` (hatchling's ``extra_metadata`` target)."""
        return self.path[len(layout.EXTRA_METADATA) + 1 :]


def members(plan: Plan) -> tuple[Member, ...]:
    """The files of *plan*: ``manifest.json`` first, then every skill file sorted by path,
    with the bytes the checks read (``plan.contents``; a file without them is read now).

    Raises ``OSError`` when such a file cannot be read (it was readable when checked)."""
    out = [Member(layout.MANIFEST_FILE, plan.manifest.to_bytes())]
    executable = {
        layout.skill_file(name, rel)
        for name, skill in plan.manifest.skills.items()
        for rel in skill.executable
    }
    for rel, source in sorted(plan.files.items()):
        if isinstance(source, str):  # generated (an inline skill's SKILL.md)
            out.append(Member(dist_info_path(rel), source.encode("utf-8"), rel in executable))
        else:
            data = plan.contents[rel] if rel in plan.contents else regular_files.read_bytes(source)
            out.append(Member(dist_info_path(rel), data, rel in executable, source))
    return tuple(out)


def dist_info_path(path: str) -> str:
    """*path* (relative to the agenttools directory) relative to the ``.dist-info``."""
    return f"{layout.AGENTTOOLS_DIR}/{path}"
