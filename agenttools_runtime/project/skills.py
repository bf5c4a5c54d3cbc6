"""Declared skills: ``root``, each skill defined once (a directory with a ``SKILL.md``, or
inline in ``[tool.agenttools.skills]``), checked strictly and normalized as the runtime does, and
the skill directories under ``root`` that nothing declares."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agenttools_runtime import errors, names, regular_files, schema
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.project.context import (
    BASE,
    DEFAULT_ROOT,
    NUL_MESSAGE,
    Checker,
    SkillDeclaration,
)
from agenttools_runtime.project.problems import CODES, Problem, display_path
from agenttools_runtime.project.skill_files import check_skill_files
from agenttools_runtime.project.values import items, strings
from agenttools_runtime.project_paths import RULE, is_project_path
from agenttools_runtime.skills import skill_md
from agenttools_runtime.skills.source import to_source
from agenttools_runtime.skills.spec import SkillSource
from agenttools_runtime.toml_text import KeyPath


def check_root(checker: Checker, config: Mapping[str, Any]) -> str:
    """``root``, the directory skills are under; it must stay inside the project."""
    root = config.get("root", DEFAULT_ROOT)
    if not isinstance(root, str):
        return DEFAULT_ROOT
    if "\x00" in root:
        checker.root_ok = False
        checker.add((*BASE, "root"), "InvalidValue", NUL_MESSAGE)
        return root
    if not root.strip() or not checker.inside_project(checker.project.root / root):
        checker.root_ok = False
        checker.add(
            (*BASE, "root"),
            "PathOutsideProject",
            f'"{root}" must be a directory inside the project, so that the sdist carries it',
        )
    elif not is_project_path(_manifest_path(checker.project.root, checker.project.root / root)):
        # (what each directory skill's manifest path starts with: the reader refuses it)
        checker.root_ok = False
        checker.add(
            (*BASE, "root"),
            "PathOutsideProject",
            f'"{root}" must be a directory inside the project, {RULE}',
        )
    return root


def check_skill(checker: Checker, name: str, table: Any) -> None:
    """One declared skill (*table*: its ``[tool.agenttools.skills]`` entry, None when only a
    bundle lists it); a usable one is recorded in ``checker.result.skills``."""
    key = (*BASE, "skills", name)
    root = checker.project.root
    directory = root / checker.result.root / name
    main_file = directory / SKILL_FILE
    has_dir = os.path.isfile(main_file)
    inline = isinstance(table, dict) and any(
        k in table for k in ("description", "body", "body-file")
    )
    if inline and has_dir:
        checker.add(
            key,
            "DuplicateDefinitionFiles",
            f'the skill "{name}" is defined twice: inline here and by '
            f"{display_path(main_file, root)}; keep one",
        )
        return
    if inline:
        assert isinstance(table, dict)
        _check_inline_skill(checker, name, table, key)
    elif has_dir:
        _check_directory_skill(checker, name, directory, key if table is not None else None)
    else:
        special = regular_files.problem(main_file)
        hint = (
            f"{display_path(main_file, root)} cannot be read ({special})"
            if special
            else f"{display_path(directory, root)} has no {SKILL_FILE}"
            if os.path.isdir(directory)
            else f"there is no {display_path(main_file, root)}"
        )
        checker.add(
            key if table is not None else _bundle_reference(checker, name),
            "MissingDefinitionFile",
            f'the skill "{name}" has no definition: {hint} and no inline description',
        )


def check_undeclared_skills(checker: Checker, declared: Sequence[str]) -> None:
    """A skill directory under ``root`` that no table or bundle declares is not bundled."""
    root = checker.project.root / checker.result.root
    if not checker.root_ok or not os.path.isdir(root):
        return
    for child in sorted(root.iterdir()):
        if (child / SKILL_FILE).is_file() and child.name not in declared:
            checker.add(
                None,
                "UndeclaredSkill",
                f"{display_path(child, checker.project.root)} holds a {SKILL_FILE} but is not "
                "declared in [tool.agenttools.skills] or a bundle, so it is not bundled",
                "warning",
                path=child / SKILL_FILE,
                line=1,
            )


def check_skill_md(
    path: Path, expected_name: str | None, problems: list[Problem]
) -> dict[str, Any] | None:
    """Check one ``SKILL.md`` strictly (:func:`agenttools_runtime.skills.skill_md.check`:
    skills-ref's rules and wording, portability, line numbers). Appends to *problems*; returns
    the frontmatter when it parsed, else None."""
    frontmatter, findings = skill_md.check(path, expected_name)
    for finding in findings:
        assert finding.code in CODES, finding.code
        problems.append(
            Problem(path, finding.line, finding.code, finding.message, finding.severity)
        )
    return frontmatter


def _check_inline_skill(
    checker: Checker, name: str, table: Mapping[str, Any], key: KeyPath
) -> None:
    before = len(checker.result.errors)
    description = table.get("description")
    if "description" not in table:
        checker.add(key, "InvalidSkillDefinition", "Missing required field: description")
    elif isinstance(description, str):
        for message in names.description_problems(description):
            checker.add((*key, "description"), "InvalidSkillDefinition", message)
    compatibility = table.get("compatibility")
    if isinstance(compatibility, str):
        for message in names.compatibility_problems(compatibility):
            checker.add((*key, "compatibility"), "InvalidSkillDefinition", message)
    body: str | None = table.get("body") if isinstance(table.get("body"), str) else None
    body_file = table.get("body-file")
    if ("body" in table) == ("body-file" in table):
        checker.add(key, "InvalidSkillDefinition", "needs exactly one of body and body-file")
    elif isinstance(body_file, str):
        body = _read_body_file(checker, (*key, "body-file"), body_file)
    if len(checker.result.errors) > before or body is None or not isinstance(description, str):
        return
    # The inline definition as the runtime takes one (``Skill.from_mapping``): one
    # generator of SKILL.md for wheels, ``skills install`` and deploys.
    frontmatter: dict[str, Any] = {"name": name, "description": description, "body": body}
    for k, v in table.items():
        spec = schema.SKILL.key(k)
        if spec is not None and schema.type_problem(spec, v):
            return  # reported by check_keys
        if k in schema.CLIENT_EXTENSION_KEYS or (spec is not None and k not in frontmatter):
            frontmatter.setdefault(k, v)
    frontmatter.pop("body-file", None)
    dashed = [k for k, v in frontmatter.items() if k != "body" and "---" in json.dumps(v)]
    for k in dashed:  # the generated frontmatter would carry it
        checker.add((*key, k), "SkillFrontmatterDashes", skill_md.DASHES_MESSAGE)
    if dashed:
        return
    source = _to_source(checker, key, frontmatter)
    if source is None:
        return
    sources = (checker.project.root / body_file,) if isinstance(body_file, str) else ()
    checker.result.skills[name] = SkillDeclaration("inline", source, sources=sources)


def _to_source(
    checker: Checker,
    key: KeyPath | None,
    spec: Path | Mapping[str, Any],
    *,
    path: Path | None = None,
) -> SkillSource | None:
    """The runtime's normalized source of a checked skill; anything it still refuses
    is reported (the checks above should have caught it: this keeps them honest)."""
    try:
        return to_source(spec)
    except errors.AgentToolsError as exc:
        checker.add(key, "InvalidSkillDefinition", str(exc), path=path)
        return None


def _read_body_file(checker: Checker, key: KeyPath, body_file: str) -> str | None:
    if "\x00" in body_file:
        checker.add(key, "InvalidValue", NUL_MESSAGE)
        return None
    path = checker.project.root / body_file
    if not checker.inside_project(path):
        checker.add(key, "PathOutsideProject", f'"{body_file}" must be a file inside the project')
        return None
    try:
        return regular_files.read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        checker.add(key, "MissingBodyFile", f'"{body_file}" does not exist')
    except UnicodeDecodeError:
        checker.add(key, "InvalidSkillDefinition", f'"{body_file}" is not UTF-8 text')
    except OSError as exc:
        checker.add(key, "MissingBodyFile", f'"{body_file}" cannot be read ({exc.strerror})')
    return None


def _check_directory_skill(
    checker: Checker, name: str, directory: Path, key: KeyPath | None
) -> None:
    before = len(checker.result.errors)
    root = checker.project.root
    if not checker.inside_project(directory):
        checker.add(
            key or _bundle_reference(checker, name),
            "PathOutsideProject",
            f"{display_path(directory, root)} leads outside the project",
        )
        return
    frontmatter = check_skill_md(directory / SKILL_FILE, name, checker.result.problems)
    checker.result.checked.add(Path(os.path.realpath(directory)))
    check_skill_files(checker, directory)
    if len(checker.result.errors) > before or frontmatter is None:
        return
    source = _to_source(checker, None, directory, path=directory / SKILL_FILE)
    if source is None:
        return
    rel_dir = _manifest_path(root, directory)
    sources = tuple(p for p in source.files.values() if isinstance(p, Path))
    checker.result.skills[name] = SkillDeclaration("directory", source, rel_dir, sources)


def _bundle_reference(checker: Checker, skill: str) -> KeyPath:
    """The key of the first bundle listing a skill (where to point a missing one)."""
    for index, bundle in enumerate(items(checker.project.config.get("bundles"))):
        if isinstance(bundle, dict) and skill in strings(bundle.get("skills")):
            return (*BASE, "bundles", index, "skills")
    return (*BASE, "skills", skill)


def _manifest_path(project: Path, directory: Path) -> str:
    """*directory* as the manifest records a skill's: relative to *project*, ``/``-separated."""
    return Path(os.path.relpath(directory, project)).as_posix()
