"""What goes wrong checking a project (``[tool.agenttools]``) and building it: a wheel or sdist
agenttools cannot add its files to, or a wrapped build backend that cannot be loaded."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError, AgentToolsWarning

__all__ = [
    "BuildBackendUnavailable",
    "BuildError",
    "InvalidProject",
    "InvalidSdist",
    "InvalidWheel",
    "ProjectError",
    "ProjectWarning",
    "WheelAlreadyBundled",
    "WheelProjectMismatch",
]


class ProjectError(AgentToolsError):
    """A project whose ``[tool.agenttools]`` does not pass validation (hook and ``validate``)."""


class InvalidProject(ProjectError):
    """Every problem of the project, one per line (``project/invalid.py``'s ``ProjectInvalid``
    builds the report)."""

    template = "{report}"


class ProjectWarning(AgentToolsWarning):
    """A warning of the project's check (``path:line: warning: code: message``, as the check
    and ``bundle --json`` say it), said by a command that goes on with the project
    (``bundle``, ``server-json``)."""

    template = "{problem}"

    @property
    def without_severity(self) -> str:
        """``path:line: code: message``: what stderr says after ``Warning:``, which says what
        the ``warning:`` of the check's line says."""
        where, marked, rest = str(self).partition(": warning: ")
        return f"{where}: {rest}" if marked else str(self)


class BuildError(AgentToolsError):
    """A wheel or sdist that agenttools cannot add its files to, or a wrapped build backend
    that cannot be loaded."""


class InvalidWheel(BuildError):
    template = "Cannot add agenttools files to {wheel}: {reason}"


class InvalidSdist(BuildError):
    template = "Cannot add the skill sources to the sdist {sdist}: {reason}"


class WheelAlreadyBundled(BuildError):
    template = (
        "{wheel} already carries different agenttools metadata ({difference}). "
        "Use --force to replace it."
    )


class WheelProjectMismatch(BuildError):
    template = (
        '{wheel} is a wheel of "{wheel_name}", but the project in {project} is "{project_name}"; '
        "agenttools adds a project's files to that project's wheels only."
    )


class BuildBackendUnavailable(BuildError):
    template = (
        'The build backend "{backend}" (tool.agenttools.backend in {pyproject}) cannot be '
        "imported: {reason}. Check the name, and that [build-system] requires lists the "
        "distribution that provides it."
    )
