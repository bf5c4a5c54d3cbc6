"""What goes wrong with a project's ``agenttools.toml`` and ``agenttools.lock``: the file, the
lock, and what locking and syncing the project meet."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError

__all__ = [
    "BundleAlreadyInProject",
    "BundleNotInProject",
    "DuplicateProjectConfigKey",
    "LockFromNewerAgentTools",
    "LockInvalid",
    "LockMissing",
    "LockStale",
    "LockedBundleNotFound",
    "LockedDependenciesDiffer",
    "LockedFileNotServed",
    "LockedHashMismatch",
    "NotInProject",
    "ProjectFileInvalid",
    "ProjectStateError",
]


class ProjectStateError(AgentToolsError):
    """A project's ``agenttools.toml`` or ``agenttools.lock`` that cannot be used as it is,
    or a project that cannot be made to match them."""


class ProjectFileInvalid(ProjectStateError):
    """Every problem of the file, one per line, each ``FILE:LINE: …`` (nothing is changed)."""

    template = "{report}"


class NotInProject(ProjectStateError):
    template = (
        "No agenttools.toml in {start} or a directory above it: 'agenttools add DIST' makes "
        "one here"
    )


class BundleAlreadyInProject(ProjectStateError):
    template = '{path} lists "{name}" already ({requirement}): edit that entry, or drop it first'


class BundleNotInProject(ProjectStateError):
    template = '{path} lists no bundle of "{name}" (it lists: {listed})'


class LockMissing(ProjectStateError):
    template = "{project} has no lock file {lock}: run 'agenttools lock' (or 'agenttools sync')"


class LockStale(ProjectStateError):
    template = (
        "{lock} is out of date with {project} ({reason}): run 'agenttools lock' and commit the lock"
    )


class LockInvalid(ProjectStateError):
    template = "{path} is not an agenttools lock this agenttools can read: {reason}"


class LockFromNewerAgentTools(ProjectStateError):
    template = (
        "{path} is lock version {version}, written by a newer agenttools; this agenttools "
        "({agenttools}) reads lock version {supported}: upgrade agenttools"
    )


class LockedHashMismatch(ProjectStateError):
    template = (
        "Refused: the index {index} serves {file} with SHA-256 {served}, but {lock} records "
        "{locked}. The published file changed since it was locked (a supply-chain change): "
        "check the index; 'agenttools lock --upgrade {distribution}' locks what it serves now"
    )


class LockedFileNotServed(ProjectStateError):
    template = (
        "Refused: {lock} pins the file {file} for {distribution}, and {index} does not serve "
        "it: 'agenttools lock --upgrade {distribution}' locks what it serves now"
    )


class LockedBundleNotFound(ProjectStateError):
    template = '{distribution} {version} has no bundle "{bundle}" (its bundles: {known})'


class DuplicateProjectConfigKey(ProjectStateError):
    template = (
        'The bundles {first} and {second} both write the MCP entry "{key}" into {file} '
        "({client}): give one of them other clients, or drop one"
    )


class LockedDependenciesDiffer(ProjectStateError):
    template = (
        "Refused: {distribution} {version} resolves its dependencies to {resolved} today, but "
        "{lock} pins {locked}: 'agenttools lock --upgrade {distribution}' locks what resolves now"
    )
