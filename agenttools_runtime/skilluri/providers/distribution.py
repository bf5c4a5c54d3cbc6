"""One ``skill://`` provider per installed distribution that ships skills, named after the
distribution: the wheel's copy of each skill (or an editable install's live source folder)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

from agenttools_runtime.discovery import InstalledDistribution, SearchPath, find_distributions
from agenttools_runtime.errors import SkillProviderSkipped
from agenttools_runtime.installed_skills import is_wheel_copy, read_skill_file
from agenttools_runtime.names import is_provider_name
from agenttools_runtime.skilluri.providers.base import ProvidedSkill
from agenttools_runtime.skilluri.providers.directory import DirectorySkillProvider, SkillFolder


class DistributionSkillProvider(DirectorySkillProvider):
    """The skills an installed distribution ships, named after the distribution.

    Files come from ``<dist-info>/extra_metadata/agenttools/skills/<name>/`` (only the files
    the manifest lists); for editable installs, directory skills come from the live source
    folder (``source-root`` + the skill's ``path``).
    """

    kind = "distribution"

    def __init__(self, distribution: InstalledDistribution) -> None:
        super().__init__(distribution.name)
        self.distribution = distribution

    def _scan(self) -> Iterable[tuple[str, SkillFolder]]:
        dist = self.distribution
        if dist.manifest is None:
            return
        for name, entry in sorted(dist.manifest.skills.items()):
            directory = dist.skill_directory(name)
            # the wheel's copy: only what it lists; the live source of an editable install: all
            listed = frozenset(entry.files) if is_wheel_copy(dist, name) else None
            description = entry.description or None  # none recorded: read from SKILL.md
            yield name, SkillFolder(directory, listed, description)

    def _read_file(self, skill: ProvidedSkill, rel: str, path: Path) -> bytes:
        if self._entry(skill.name).files is None:
            return super()._read_file(skill, rel, path)
        # the wheel's copy: a regular file reached without a link, which must match the hash
        # its manifest recorded (BundledFileMissing / BundledFileMismatch: tampered or half
        # uninstalled)
        return read_skill_file(self.distribution, skill.name, rel)


def distribution_providers(search: SearchPath | None = None) -> list[DistributionSkillProvider]:
    """One provider per installed distribution whose manifest lists skills, by name.
    Distributions with a broken manifest are skipped with a ``SkillProviderSkipped`` warning."""
    providers = []
    for dist in find_distributions(search):
        if dist.problem is not None:
            warnings.warn(
                SkillProviderSkipped(provider=dist.name, reason=dist.problem), stacklevel=2
            )
            continue
        if dist.manifest is None or not dist.manifest.skills:
            continue
        if not is_provider_name(dist.name):
            reason = "its name is not a valid provider name"
            warnings.warn(SkillProviderSkipped(provider=dist.name, reason=reason), stacklevel=2)
            continue
        providers.append(DistributionSkillProvider(dist))
    return providers
