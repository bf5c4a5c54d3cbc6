"""What goes wrong with an agent skill (read, found, named, written or removed), the skill
directories in the way of one, and the warnings about skills kept, shared or seen twice."""

from __future__ import annotations

from agenttools_runtime.errors.base import FORCE, UPGRADE, AgentToolsError, AgentToolsWarning

__all__ = [
    "AgentSkillBackupNotRemoved",
    "AgentSkillBackupsLeft",
    "AgentSkillConflict",
    "AgentSkillDuplicate",
    "AgentSkillExists",
    "AgentSkillInUse",
    "AgentSkillModified",
    "AgentSkillNameDiffers",
    "AgentSkillNewerVersionKept",
    "AgentSkillNotFound",
    "AgentSkillNotRemoved",
    "AgentSkillOtherVersion",
    "AgentSkillRemoveFailed",
    "AgentSkillRemoveFailedWarning",
    "AgentSkillReplacedKept",
    "AgentSkillReplacedNotRemoved",
    "AgentSkillSeenTwice",
    "AgentSkillShadowed",
    "AgentSkillShadowedWarning",
    "AgentSkillUnproven",
    "AgentSkillUnreadable",
    "AgentSkillUnsafeLink",
    "AgentSkillUpdate",
    "AgentSkillWriteFailed",
    "BuiltInAgentSkillMissing",
    "DuplicateAgentSkillName",
    "InvalidAgentSkill",
    "InvalidAgentSkillDescription",
    "InvalidAgentSkillName",
    "InvalidDistributionSkillDefinition",
    "InvalidSkillFrontmatter",
    "InvalidSkillsDirectory",
    "NoSkillsLocation",
    "SkillConflictError",
    "SkillError",
]


class SkillError(AgentToolsError):
    """An agent skill that cannot be read, found, named or written."""


class InvalidDistributionSkillDefinition(SkillError):
    template = "Invalid agent skill definition in {path} ({reason})."


class InvalidAgentSkill(SkillError):
    template = "Invalid agent skill specification: {reason}."


class AgentSkillNotFound(SkillError):
    template = 'No agent skill found for "{name}".'


class BuiltInAgentSkillMissing(SkillError):
    template = (
        'The built-in agent skill "{name}" is missing from the installed agenttools package. '
        "Reinstall it with: pip install --force-reinstall agenttools"
    )


class InvalidAgentSkillName(SkillError):
    template = (
        'Invalid agent skill name "{name}". Skill names must be 1 to 64 lowercase letters, '
        "digits, and hyphens, without leading, trailing, or consecutive hyphens."
    )


class InvalidAgentSkillDescription(SkillError):
    template = 'The agent skill "{name}" needs a description of 1 to 1024 characters.'


class InvalidSkillFrontmatter(SkillError):
    template = "Invalid SKILL.md {source}: {reason}"


class DuplicateAgentSkillName(SkillError):
    template = 'Several skills named "{name}" were given.'


class InvalidSkillsDirectory(SkillError):
    template = "Invalid skills directory: {path}. Expected a directory that contains skill folders."


class NoSkillsLocation(SkillError):
    template = (
        "Unable to determine where to install agent skills for {target}. "
        "Use --skills-dir (skills_dir=) to specify a directory."
    )


class AgentSkillUnreadable(SkillError):
    template = "Unable to read the agent skill file {path}."


class AgentSkillUnsafeLink(SkillError):
    template = (
        "The symbolic link {path} points outside its skill directory ({target}); "
        "skills may only link to files inside themselves."
    )


class AgentSkillWriteFailed(SkillError):
    template = 'Writing the agent skill "{name}" to {path} failed ({reason}); it was rolled back.'


class AgentSkillRemoveFailed(SkillError):
    template = (
        'Removing the agent skill "{name}" at {path} failed ({reason}); it was left in place.'
    )


class SkillConflictError(SkillError):
    """A skill directory in the way that the overwrite level in force may not replace."""


class AgentSkillExists(SkillConflictError):
    template = (
        'A different skill named "{name}" already exists at {path}. Use {option} to replace it.'
    )


class AgentSkillModified(SkillConflictError):
    template = (
        'The skill "{name}" at {path} has been modified since it was installed. '
        f"Use {FORCE} to replace it."
    )


class AgentSkillConflict(SkillConflictError):
    template = (
        'A different skill named "{name}" is already installed at {path}. '
        f"Use {FORCE} to replace it."
    )


class AgentSkillUpdate(SkillConflictError):
    template = (
        'A different version of the skill "{name}" is installed at {path}. '
        f"Use {UPGRADE} to update it."
    )


class AgentSkillShadowed(SkillConflictError):
    """A different skill of the same name in another skills root the client reads."""

    template = (
        '{client_name} also reads {path}, a different skill named "{name}": deploying this one '
        "would give {client_name} two skills of that name. Remove or rename one of them, or use "
        "{option} to deploy it anyway (that copy is left as it is)."
    )


# -- warnings ----------------------------------------------------------------------------------
class AgentSkillShadowedWarning(AgentToolsWarning):
    template = (
        'Warning: {client_name} also reads {path}, a different skill named "{name}": it now has '
        "two skills of that name ({duplicates})."
    )


class AgentSkillNameDiffers(AgentToolsWarning):
    template = (
        'Warning: The skill folder {source} is named "{folder}", but its SKILL.md names the skill '
        '"{name}": it is deployed as {path}. Rename the folder to "{name}" (agenttools validate: '
        "Directory name '{folder}' must match skill name '{name}')."
    )


class AgentSkillDuplicate(AgentToolsWarning):
    template = (
        'Warning: {client_name} also reads an identical copy of the skill "{name}" at {path}: '
        "it finds the skill in two folders ({duplicates})."
    )


class AgentSkillOtherVersion(AgentToolsWarning):
    template = (
        'Warning: {client_name} also reads another version of the skill "{name}" at {path}, '
        "which another deployment of it uses: it finds the skill in two folders "
        "({duplicates}) until 'agenttools sync' brings that deployment up to date."
    )


class AgentSkillSeenTwice(AgentToolsWarning):
    template = (
        'Warning: {client_name} reads the skill "{name}" from {other} (deployment {uuid}) and '
        "also reads the folder of the new copy {path}: it finds the skill in two folders "
        "({duplicates})."
    )


class AgentSkillNewerVersionKept(AgentToolsWarning):
    template = (
        'The skill "{name}" at {path} was not replaced because the installed version '
        "({installed_version}) is newer than {version}."
    )


class AgentSkillInUse(AgentToolsWarning):
    template = (
        'The skill "{name}" at {path} was not removed because other agent tools deployments '
        "still use it."
    )


class AgentSkillNotRemoved(AgentToolsWarning):
    template = (
        'The skill "{name}" at {path} was modified after it was installed, so it was not removed. '
        "Run {command} to remove it."
    )


class AgentSkillReplacedNotRemoved(AgentToolsWarning):
    template = (
        'The skill "{name}" at {path} was replaced by something that is not a skill directory, '
        "so it was not removed."
    )


class AgentSkillUnproven(AgentToolsWarning):
    template = (
        'Warning: The skill "{name}" at {path} was not removed: {reason}, so nothing proves '
        "agenttools wrote it. Run {command} to remove it."
    )


class AgentSkillReplacedKept(AgentToolsWarning):
    template = (
        'Warning: What the skill "{name}" replaced at {path} (a forced deploy) is kept at '
        "{backup}, not put back: {reason}. Move it back when you want it."
    )


class AgentSkillRemoveFailedWarning(AgentToolsWarning):
    """``AgentSkillRemoveFailed`` as a warning (a removal that goes on without that skill)."""

    tag = "AgentSkillRemoveFailed"
    template = AgentSkillRemoveFailed.template


class AgentSkillBackupNotRemoved(AgentToolsWarning):
    template = (
        'The agent skill "{name}" was removed, but its backup at {backup} could not be deleted '
        "completely. Delete it manually."
    )


class AgentSkillBackupsLeft(AgentToolsWarning):
    template = (
        "Backups left by an interrupted agenttools operation were found at {backups}: each holds "
        "a skill directory that was being replaced or removed in {root}. Move back what you want "
        "to keep, then delete them."
    )
