"""The failures of checking a project and of building it: ``ProjectError`` and ``BuildError``
with their leaves (re-exported by the package, created on first use like every error)."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError


class ProjectError(AgentToolsError):
    """A project whose ``[tool.agenttools]`` does not pass validation (hook and ``validate``)."""


class BuildError(AgentToolsError):
    """A wheel or sdist that agenttools cannot add its files to, or a wrapped build backend
    that cannot be loaded."""


# ProjectError
class InvalidProject(ProjectError): ...


# BuildError
class InvalidWheel(BuildError): ...


class InvalidSdist(BuildError): ...


class WheelAlreadyBundled(BuildError): ...


class WheelProjectMismatch(BuildError): ...


class BuildBackendUnavailable(BuildError): ...
