"""Every skill a bundle names, resolved to its :class:`SkillSource`: distribution skills (the
wheel's verified copy, or the live source of an editable install), built-in skills, and the
skill values of ad hoc bundles. This is where ``SKILL.md`` files are read (deploys, exports,
``skills install``); listing bundles does not import it. Its reader (PyYAML, a sixth of
``show``'s start-up) is imported only where a ``SKILL.md`` is read: a wheel's verified copy
takes its description from the manifest.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from agenttools_runtime import __version__, errors
from agenttools_runtime.bundles import (
    BUILTIN_SKILL_NAMES,
    BUILTIN_SKILLS_DIR,
    AgentTools,
    skill_spec_name,
)
from agenttools_runtime.discovery import InstalledDistribution
from agenttools_runtime.installed_skills import is_wheel_copy, wheel_skill_source
from agenttools_runtime.names import SKILL_FILE, is_name_shaped
from agenttools_runtime.skills.spec import SkillSource

if TYPE_CHECKING:
    from agenttools_runtime.skills.spec import SkillSpec


def skill_sources(bundle: AgentTools) -> list[SkillSource]:
    """The bundle's skills, resolved and hashed; distribution skills verified against the
    manifest.

    Distribution skills have identifier ``"<dist>/<name>"`` and the distribution's version;
    built-in skills their name and the agenttools version; inline/ad hoc skills the default
    identifier ``"<ToolsetType>:<bundle name>/<skill>"``. Raises ``DistributionNotInstalled``,
    ``DistributionSkillNotFound``, ``BundledFileMismatch``, ``BundledFileMissing``,
    ``AgentSkillNotFound`` and the errors of ``to_source``."""
    return [skill_source(bundle, spec) for spec in bundle.skills]


def skill_source(bundle: AgentTools, spec: str | SkillSpec) -> SkillSource:
    """Resolve one of *bundle*'s skill specifications (see :func:`skill_sources`)."""
    if isinstance(spec, str) and is_name_shaped(spec):
        dist_name, _, item = spec.rpartition("/")
        if dist_name:
            return distribution_skill_source(bundle.item_distribution(dist_name), item)
        return builtin_skill_source(spec)
    from agenttools_runtime.skills.source import to_source

    if isinstance(spec, (str, os.PathLike)):  # a directory: identified by its path
        return to_source(spec)
    name = skill_spec_name(spec)
    return to_source(spec, default_identifier=f"{bundle.toolset_type}:{bundle.name}/{name}")


def distribution_skill_source(dist: InstalledDistribution, name: str) -> SkillSource:
    """The normalized source of skill *name* of *dist*: identifier ``"<dist>/<name>"``,
    version = the distribution's. Wheel copies are verified against the manifest's hashes
    first (``BundledFileMissing`` / ``BundledFileMismatch`` naming the file); directory skills
    of editable installs are the live source files (``InvalidDistributionSkillDefinition``
    when their ``SKILL.md`` now has another name). Raises ``DistributionSkillNotFound``."""
    if is_wheel_copy(dist, name):
        return wheel_skill_source(dist, name)
    directory = dist.skill_directory(name)
    if not directory.is_dir():  # the work tree moved or was deleted since the install
        missing = directory if dist.source_root and dist.source_root.is_dir() else None
        raise errors.EditableSourceMissing(
            distribution=dist.display_name,
            path=missing or dist.source_root,
            command=f"pip install --force-reinstall -e <the project directory of {dist.name}>",
        )
    from agenttools_runtime.skills.source import to_source

    live = to_source(directory)
    if live.name != name:  # renamed in the work tree since the editable install
        raise errors.InvalidDistributionSkillDefinition(
            path=directory / SKILL_FILE,
            reason=f'its name is "{live.name}", declared as "{name}"',
        )
    return replace(live, identifier=f"{dist.name}/{name}", version=dist.version)


def builtin_skill_source(name: str) -> SkillSource:
    """The built-in skill *name*: its directory inside the agenttools package, identifier =
    the name, version = the agenttools version. Raises ``AgentSkillNotFound`` for an unknown
    name and ``BuiltInAgentSkillMissing`` when the package lacks the directory."""
    if name not in BUILTIN_SKILL_NAMES:
        raise errors.AgentSkillNotFound(name=name)
    directory = BUILTIN_SKILLS_DIR / name
    if not (directory / SKILL_FILE).is_file():
        raise errors.BuiltInAgentSkillMissing(name=name, path=directory)
    from agenttools_runtime.skills.source import to_source

    return replace(to_source(directory), identifier=name, version=__version__)
