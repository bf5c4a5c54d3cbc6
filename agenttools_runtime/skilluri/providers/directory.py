"""Skills that are folders on disk: the provider base of ``local``, distribution and built-in
skills (first folder of a name wins, files read through :func:`safe_skill_path`; a wheel's copy
only the files its manifest lists)."""

from __future__ import annotations

import abc
import functools
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime import regular_files
from agenttools_runtime.errors import AgentToolsError, SkillNameCollision, SkillReferenceNotFound
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.skills.hashing import hash_file, iter_source_files
from agenttools_runtime.skills.skill_md import skill_description
from agenttools_runtime.skilluri.parse import safe_skill_path
from agenttools_runtime.skilluri.providers.base import (
    ProvidedSkill,
    SkillProvider,
    file_listing_json,
)


@dataclass(frozen=True, slots=True)
class SkillFolder:
    """One folder a directory provider found for a skill name."""

    directory: Path
    # the files a wheel shipped (its manifest lists them); None: whatever is there
    files: frozenset[str] | None
    description: str | None = None


class DirectorySkillProvider(SkillProvider):
    """Skills that are folders on disk (the base of ``local`` and distribution providers)."""

    kind = "directory"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._provided: dict[str, ProvidedSkill] = {}

    @abc.abstractmethod
    def _scan(self) -> Iterable[tuple[str, SkillFolder]]:
        """``(name, folder)`` pairs in priority order; the first of a name wins."""

    @functools.cached_property
    def _candidates(self) -> dict[str, list[SkillFolder]]:
        """Every folder of each name, by name (scanned on first use)."""
        folders: dict[str, list[SkillFolder]] = {}
        for name, entry in self._scan():
            folders.setdefault(name, []).append(entry)
        return dict(sorted(folders.items()))

    def _entry(self, name: str) -> SkillFolder:
        return self._candidates[name][0]

    def _skill(self, name: str) -> ProvidedSkill:
        """The skill *name* (first folder of that name), built on first use: only skills that
        are asked for cost a SKILL.md parse, and a collision is reported when it matters."""
        skill = self._provided.get(name)
        if skill is None:
            kept, *others = self._candidates[name]
            if others:
                self._duplicates(name, kept, others)
            description = kept.description
            if description is None:
                description = _read_description(kept.directory)
            skill = ProvidedSkill(
                self.name, name, description, name, kept.directory, str(kept.directory)
            )
            self._provided[name] = skill
        return skill

    def _duplicates(self, name: str, kept: SkillFolder, others: list[SkillFolder]) -> None:
        """Several folders of one name inside this provider: the first wins. Identical copies
        (one skill deployed to several clients) are not worth a word; different ones are."""
        baseline = _folder_hashes(kept)
        differing = [o for o in others if baseline is None or _folder_hashes(o) != baseline]
        if differing:
            everyone = [str(e.directory) for e in (kept, *differing)]
            warnings.warn(
                SkillNameCollision(
                    skill=name, providers=everyone, chosen=kept.directory, provider=self.name
                ),
                stacklevel=5,
            )

    def skills(self) -> Sequence[ProvidedSkill]:
        return [self._skill(name) for name in self._candidates]

    def names(self) -> list[str]:
        return list(self._candidates)

    def find(self, name: str) -> ProvidedSkill | None:
        return self._skill(name) if name in self._candidates else None

    def files(self, skill: ProvidedSkill) -> dict[str, Path]:
        """Every file of *skill*: relative path → absolute path (junk and VCS skipped, regular
        files only, links inside the folder only; for a wheel's copy, exactly the files its
        manifest lists). Raises ``AgentSkillUnsafeLink`` and ``AgentSkillUnreadable``."""
        entry = self._entry(skill.name)
        if entry.files is not None:
            return {rel: entry.directory.joinpath(*rel.split("/")) for rel in sorted(entry.files)}
        return dict(iter_source_files(entry.directory))

    def contents(
        self, skill: ProvidedSkill, files: Mapping[str, Path] | None = None
    ) -> dict[str, bytes]:
        """The bytes of every file of *skill* (*files*: its :meth:`files`, listed already),
        each verified like :meth:`read`."""
        listed = self.files(skill) if files is None else files
        return {rel: self._read_file(skill, rel, path) for rel, path in listed.items()}

    def read(self, skill: ProvidedSkill, reference: Sequence[str]) -> bytes:
        entry = self._entry(skill.name)
        rel = "/".join(reference)
        listed = entry.files is not None and rel in entry.files
        try:
            path = safe_skill_path(entry.directory, reference, skill.name)
        except SkillReferenceNotFound:
            if not listed:
                raise
            path = entry.directory.joinpath(*reference)  # listed but gone: BundledFileMissing
        if entry.files is not None and not listed:
            raise SkillReferenceNotFound(reference=rel, skill=skill.name)
        return self._read_file(skill, rel, path)

    def _read_file(self, skill: ProvidedSkill, rel: str, path: Path) -> bytes:
        try:
            return regular_files.read_bytes(path)
        except OSError:
            raise SkillReferenceNotFound(reference=rel, skill=skill.name) from None

    def manifest(self, skill: ProvidedSkill) -> str:
        return file_listing_json(skill.name, self.contents(skill))


def skill_folders(root: Path) -> Iterable[tuple[str, SkillFolder]]:
    """The immediate sub-folders of a skills root that hold a ``SKILL.md`` file."""
    try:
        children = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for child in children:
        path = Path(child.path)
        # os.path: False (not an error) for a link loop or an unreadable entry
        if child.name.startswith(".") or not os.path.isdir(path):
            continue
        if os.path.isfile(path / SKILL_FILE):
            yield child.name, SkillFolder(path, None)


def _read_description(directory: Path) -> str:
    """The description of the skill in *directory*; ``""`` when its SKILL.md cannot be read
    or leads out of the folder (a link to a private file must not leak its first line)."""
    try:
        text = regular_files.read_bytes(safe_skill_path(directory, (SKILL_FILE,)))
    except (AgentToolsError, OSError):
        return ""
    return skill_description(text.decode("utf-8", errors="replace"))


def _folder_hashes(entry: SkillFolder) -> dict[str, str] | None:
    """Every file's hash; None when the folder cannot be read whole (a link leaving it, an
    unreadable file), which never counts as identical to anything."""
    try:
        return {rel: hash_file(path) for rel, path in iter_source_files(entry.directory)}
    except (AgentToolsError, OSError):
        return None
