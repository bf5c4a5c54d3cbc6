"""What ``agenttools validate`` and the build hook check in a project, one concern a module,
and the build plan compiled from a checked project. Every problem is collected (never only the
first), each with its file, line, code and a sentence that starts with the key it is about."""

from agenttools_runtime.project.build import BuildPlan, build_manifest
from agenttools_runtime.project.check import check_project, validate_project
from agenttools_runtime.project.context import CheckResult
from agenttools_runtime.project.invalid import ProjectInvalid
from agenttools_runtime.project.problems import (
    CODES,
    MISSING_CONFIG,
    Problem,
    display_path,
    errors_of,
)
from agenttools_runtime.project.pyproject import (
    PYPROJECT,
    Project,
    find_project_root,
    load_project,
)
from agenttools_runtime.project.skills import check_skill_md

__all__ = [
    "CODES",
    "MISSING_CONFIG",
    "PYPROJECT",
    "BuildPlan",
    "CheckResult",
    "Problem",
    "Project",
    "ProjectInvalid",
    "build_manifest",
    "check_project",
    "check_skill_md",
    "display_path",
    "errors_of",
    "find_project_root",
    "load_project",
    "validate_project",
]
