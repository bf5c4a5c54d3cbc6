"""``agenttools validate [PATH…]``: check ``[tool.agenttools]`` and the skills of projects."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import UsageError, add_command, emit
from agenttools_runtime.names import SKILL_FILE

if TYPE_CHECKING:
    from agenttools_runtime.project import CheckResult, Problem, Project


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "validate",
        run,
        formatter_class=argparse.HelpFormatter,
        help="check a project's [tool.agenttools], its skills and MCP server declarations",
        description=(
            "Check what the agenttools build hook would check, without building: "
            "[tool.agenttools] in pyproject.toml (keys, types, names, servers, bundles, "
            "markers), every skill's SKILL.md (the Agent Skills rules, with the reference "
            "validator's wording, plus portability checks) and files. Each PATH is a project "
            "directory or any file in one (a pyproject.toml, a SKILL.md, ...); the nearest "
            "pyproject.toml at or above it names the project, and each project is checked "
            "once. A SKILL.md or skill directory outside any project is checked on its own. "
            "Every problem is printed as 'path:line: code: message'."
        ),
        epilog="Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a project directory or a file in it (default: the current directory)",
    )


def run(args: argparse.Namespace) -> int:
    from agenttools_runtime.project import (
        PYPROJECT,
        Problem,
        Project,
        check_project,
        check_skill_md,
        errors_of,
        find_project_root,
        load_project,
        validate_project,
    )

    paths = [Path(p) for p in args.paths] or [Path.cwd()]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    # project root (or lone skill directory) -> the skill directories named inside it
    targets: dict[Path, list[Path]] = {}
    for path in paths:
        skill = _skill_directory(path)
        root = find_project_root(path) or skill or path.resolve()
        named = targets.setdefault(root, [])
        if skill is not None and skill != root:
            named.append(skill)
    reports = []
    summaries: dict[Path, dict[str, Any]] = {}
    for root, named in targets.items():
        checked: set[Path] = set()
        if (root / PYPROJECT).is_file():
            project = load_project(root)
            if isinstance(project, Problem):
                problems = [project]
            else:
                result = check_project(project)
                problems, checked = result.problems, result.checked
                summaries[root] = _summary(project, result)
            configured = isinstance(project, Project) and project.config is not None
            kind = "project" if configured or problems else "unconfigured"
        elif (root / SKILL_FILE).is_file():
            problems = []
            check_skill_md(root / SKILL_FILE, None, problems)
            kind = "skill"
        else:
            problems = validate_project(root)  # reports NoProject
            kind = "project"
        reports.append((root, kind, problems))
        # A SKILL.md named on the command line (pre-commit passes every changed one) that
        # its project does not bundle is still checked, on its own.
        for skill in dict.fromkeys(named):
            if skill not in checked:
                problems = []
                check_skill_md(skill / SKILL_FILE, None, problems)
                reports.append((skill, "skill", problems))
    all_problems = [p for _, _, problems in reports for p in problems]
    errors = errors_of(all_problems)
    data = {
        "ok": not errors,
        "projects": [
            {
                "path": str(root),
                "kind": kind,
                "valid": not errors_of(problems),
                "problems": [p.to_json() for p in problems],
                **(summaries.get(root, {}) if kind == "project" else {}),
            }
            for root, kind, problems in reports
        ],
    }
    emit(
        args,
        data,
        lambda: _render(reports, len(errors), len(all_problems) - len(errors), summaries),
    )
    return 1 if errors else 0


def _skill_directory(path: Path) -> Path | None:
    path = path.resolve()
    if path.is_file() and path.name == SKILL_FILE:
        return path.parent
    if path.is_dir() and (path / SKILL_FILE).is_file():
        return path
    return None


def _summary(project: Project, result: CheckResult) -> dict[str, Any]:
    """The project's name and what it declares (the implicit bundle, named after the
    distribution, counts)."""
    version = (project.data.get("project") or {}).get("version")
    return {
        "name": project.name,
        "version": version if isinstance(version, str) else None,
        "servers": len(result.servers),
        "skills": len(result.skills),
        "bundles": len(result.bundles),
        "implicit_bundle": any(b.implicit for b in result.bundles),
    }


def _counted(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _render(
    reports: list[tuple[Path, str, list[Problem]]],
    errors: int,
    warnings: int,
    summaries: dict[Path, dict[str, Any]],
) -> str:
    from agenttools_runtime.project import display_path, errors_of

    lines = []
    for root, kind, problems in reports:
        lines += [p.format() for p in problems]
        where = display_path(root) or "."
        if kind == "unconfigured":
            lines.append(f"{where}: no [tool.agenttools], nothing to check")
            continue
        invalid = errors_of(problems)
        line = f"{where}: {kind} {'invalid' if invalid else 'valid'}"
        summary = summaries.get(root)
        if kind == "project" and summary is not None and not invalid:
            name = " ".join(str(summary[k]) for k in ("name", "version") if summary[k])
            bundles = _counted(summary["bundles"], "bundle")
            if summary["implicit_bundle"] and summary["bundles"]:
                bundles += " (implicit)"
            servers = _counted(summary["servers"], "MCP server")
            skills = _counted(summary["skills"], "skill")
            line += f" ({name + ': ' if name else ''}{servers}, {skills}, {bundles})"
        lines.append(line)
    if errors or warnings:
        lines.append(f"{errors} error(s), {warnings} warning(s)")
    return "\n".join(lines)
