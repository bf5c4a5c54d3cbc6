"""The ``agenttools`` provider: the skills agenttools itself ships (the built-in bundle's)."""

from __future__ import annotations

from collections.abc import Iterable

from agenttools_runtime.bundles import BUILTIN_SKILL_NAMES, BUILTIN_SKILLS_DIR
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.skilluri.providers.directory import DirectorySkillProvider, SkillFolder

BUILTIN_PROVIDER = "agenttools"


class BuiltinSkillProvider(DirectorySkillProvider):
    """``agenttools``: the skills agenttools itself ships (the built-in bundle's skills)."""

    kind = "builtin"

    def __init__(self, name: str = BUILTIN_PROVIDER) -> None:
        super().__init__(name)

    def _scan(self) -> Iterable[tuple[str, SkillFolder]]:
        for name in BUILTIN_SKILL_NAMES:
            directory = BUILTIN_SKILLS_DIR / name
            if (directory / SKILL_FILE).is_file():
                yield name, SkillFolder(directory, None)
