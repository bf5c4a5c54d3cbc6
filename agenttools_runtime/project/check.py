"""The checks of a project, run in order: ``check_project`` (a loaded project: every problem,
and what it declares) and ``validate_project`` (any path: what ``agenttools validate`` reports)."""

from __future__ import annotations

import os
from pathlib import Path

from agenttools_runtime import names, schema
from agenttools_runtime.project.build_setup import check_build_setup
from agenttools_runtime.project.bundles import check_bundles, finish_bundles
from agenttools_runtime.project.context import BASE, Checker, CheckResult
from agenttools_runtime.project.keys import check_keys
from agenttools_runtime.project.problems import Problem, problem_order
from agenttools_runtime.project.pyproject import PYPROJECT, Project, find_project_root, load_project
from agenttools_runtime.project.servers import check_server
from agenttools_runtime.project.skills import (
    check_root,
    check_skill,
    check_undeclared_skills,
)
from agenttools_runtime.project.values import items, table


def check_project(project: Project, *, build_setup: bool = True) -> CheckResult:
    """Run every check on a loaded project (``build_setup=False``: all but those of how the
    project's build runs agenttools, which do not concern a wheel built by anything else)."""
    checker = Checker(project, build_setup)
    result = checker.result
    config = project.config
    if build_setup:
        check_build_setup(checker)
    if config is None:
        return result
    if not isinstance(config, dict):
        checker.add(BASE, "InvalidType", "must be a table")
        return result
    check_keys(checker, schema.AGENTTOOLS, config, BASE)
    if not project.name:
        checker.add(("project", "name"), "MissingProjectName", "the project needs a name")
    result.root = check_root(checker, config)
    for name, server in table(config.get("mcp-servers")).items():
        check_server(checker, name, server)
    skills = table(config.get("skills"))
    bundles = items(config.get("bundles"))
    declared = [*skills, *check_bundles(checker, bundles)]
    for name in dict.fromkeys(declared if checker.root_ok else ()):
        if name not in result.skills and names.is_skill_name(name):
            check_skill(checker, name, skills.get(name))
    for name in skills:
        if not names.is_skill_name(name):
            for message in names.skill_name_problems(name):
                checker.add((*BASE, "skills", name), "InvalidSkillName", message)
    check_undeclared_skills(checker, declared)
    finish_bundles(checker, bundles)
    result.problems.sort(key=problem_order)
    return result


def validate_project(path: Path | str) -> list[Problem]:
    """Validate the project holding *path* (its directory, its ``pyproject.toml`` or any file
    in it): every problem, errors and warnings, in file order."""
    root = find_project_root(Path(path))
    if root is None:
        where = Path(os.path.abspath(path))
        return [Problem(where, None, "NoProject", f"no {PYPROJECT} found at or above {where}")]
    project = load_project(root)
    if isinstance(project, Problem):
        return [project]
    return check_project(project).problems
