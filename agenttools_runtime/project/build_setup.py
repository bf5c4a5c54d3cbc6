"""How the project's build runs agenttools: the hatchling hook enabled (for every target), the
build requirement, the wrapping backend and the backend it wraps, and hatchling's ``sources``
option, which can move the agenttools files away from where the runtime looks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agenttools_runtime import names, schema
from agenttools_runtime.backend_names import WRAPPING_BACKEND, wrapped_backend_problem
from agenttools_runtime.project.context import BASE, HOOK, WHEEL_HOOK, Checker
from agenttools_runtime.project.keys import check_keys
from agenttools_runtime.project.problems import MISSING_CONFIG
from agenttools_runtime.project.values import dig, items, table
from agenttools_runtime.project_paths import RULE, is_project_path

DEFAULT_BACKEND = "setuptools.build_meta:__legacy__"  # PEP 517's, without build-backend

# The distribution name a PEP 508 requirement starts with (what follows is not needed here;
# packaging's parser would cost a build through agenttools_hook.backend a tenth of its time).
_REQUIREMENT_NAME_RE = re.compile(
    r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:$|[\[(;@<>=!~])"
)


def check_build_setup(checker: Checker) -> None:
    """The hook or the wrapping backend, and what each needs."""
    data = checker.project.data
    system = table(data.get("build-system"))
    backend = system.get("build-backend")
    config = checker.project.config
    if backend == WRAPPING_BACKEND:
        _check_wrapping_backend(checker, system, config)
        return
    if isinstance(config, dict) and "backend" in config:
        checker.add(
            (*BASE, "backend"),
            "UnusedBackend",
            f'is read only by build-backend = "{WRAPPING_BACKEND}"; this project '
            f'builds with "{backend or DEFAULT_BACKEND}"',
            "warning",
        )
    build = table(dig(data, "tool", "hatch", "build"))
    global_hook, wheel_hook = dig(data, *HOOK), dig(data, *WHEEL_HOOK)
    hook_enabled = global_hook is not None or wheel_hook is not None
    for hook, key in ((global_hook, HOOK), (wheel_hook, WHEEL_HOOK)):
        if isinstance(hook, dict):
            own = {k: v for k, v in hook.items() if k not in schema.HATCHLING_RESERVED_HOOK_KEYS}
            check_keys(checker, schema.HOOK_TABLE, own, key)
    if config is None:
        if hook_enabled:
            checker.add(HOOK, "MissingConfig", MISSING_CONFIG, "warning")
        return
    if not hook_enabled and backend != "hatchling.build":
        wrapped = backend or DEFAULT_BACKEND
        checker.add(
            ("build-system", "build-backend") if backend is not None else BASE,
            "BackendDoesNotBundle",
            f'the build backend "{wrapped}" does not bundle [tool.agenttools]; wrap it '
            f'(build-backend = "{WRAPPING_BACKEND}", and backend = "{wrapped}" in '
            "[tool.agenttools]) or run `agenttools bundle` on every wheel it builds",
            "warning",
        )
    elif not hook_enabled:
        checker.add(
            BASE,
            "HookNotEnabled",
            "the build hook is not enabled, so wheels would ship without these skills and "
            "servers; add an empty [tool.hatch.build.hooks.agenttools] table",
        )
    elif global_hook is None:
        checker.add(
            WHEEL_HOOK,
            "HookWheelOnly",
            "the hook runs for the wheel only, so the sdist may lack the skill sources and "
            "a wheel built from it would differ; use [tool.hatch.build.hooks.agenttools]",
            "warning",
        )
    _check_sources(checker, build)
    requires = items(system.get("requires"))
    if hook_enabled and not any(_requirement_name(r) == "agenttools" for r in requires):
        _missing_requirement(checker, "agenttools", "the hook")
    if hook_enabled and backend != "hatchling.build":
        checker.add(
            ("build-system", "build-backend"),
            "UnsupportedBackend",
            f'the agenttools hook runs under hatchling; set build-backend = "hatchling.build" '
            f"(found {backend!r}); for any other backend, set build-backend = "
            f'"{WRAPPING_BACKEND}" and backend = "{backend}" in [tool.agenttools]',
        )


def _check_wrapping_backend(checker: Checker, system: Mapping[str, Any], config: Any) -> None:
    """``build-backend = "agenttools_hook.backend"``: it needs ``backend`` (the backend it
    wraps) and both distributions in the build requirements."""
    required = {_requirement_name(r) for r in items(system.get("requires"))}
    if "agenttools" not in required:
        _missing_requirement(checker, "agenttools", "the build backend")
    if not isinstance(config, dict):
        if config is None:
            checker.add(
                ("build-system", "build-backend"),
                "MissingBackend",
                f'"{WRAPPING_BACKEND}" needs [tool.agenttools] with backend = the '
                'backend that builds the project (e.g. backend = "setuptools.build_meta")',
            )
        return  # not a table: reported by check_project
    inner = config.get("backend")
    if "backend" not in config:
        checker.add(
            BASE,
            "MissingBackend",
            f'build-backend is "{WRAPPING_BACKEND}", so backend must name the '
            'backend that builds the project (e.g. backend = "setuptools.build_meta")',
        )
    elif isinstance(inner, str):
        problem = wrapped_backend_problem(inner)
        if problem is not None:
            checker.add((*BASE, "backend"), "InvalidValue", problem)
        else:
            distribution = schema.KNOWN_BACKENDS.get(inner.split(".")[0].split(":")[0])
            if (
                distribution is not None
                and not config.get("backend-path")
                and names.canonical_dist_name(distribution) not in required
            ):
                _missing_requirement(checker, distribution, f'backend "{inner}"')
    for index, entry in enumerate(items(config.get("backend-path"))):
        if not isinstance(entry, str):
            continue  # (reported by check_keys)
        if not checker.inside_project(checker.project.root / entry):
            problem = f'"{entry}" must be a directory inside the project'
        elif not is_project_path(entry):  # the wrapping backend refuses it
            problem = f'"{entry}" must be a directory inside the project, {RULE}'
        else:
            continue
        checker.add((*BASE, "backend-path", index), "PathOutsideProject", problem)


def _check_sources(checker: Checker, build: Any) -> None:
    """hatchling applies the wheel's ``sources`` to extra-metadata targets too: a mapping
    of ``""`` (or of a directory named ``agenttools``) moves the manifest and skill files
    away from ``.dist-info/extra_metadata/agenttools/``, where the runtime looks. The build
    hook refuses such a build; say so before."""
    wheel = dig(build, "targets", "wheel")
    for section, key in (
        (wheel, ("tool", "hatch", "build", "targets", "wheel", "sources")),
        (build, ("tool", "hatch", "build", "sources")),
    ):
        if not isinstance(section, dict) or "sources" not in section:
            continue
        moved = _moved_by_sources(section["sources"], "agenttools/manifest.json")
        if moved is not None:
            checker.add(
                key,
                "SkillFileNotInWheel",
                f"would move the agenttools files inside the wheel's extra_metadata "
                f"(agenttools/manifest.json -> {moved}), where nothing finds them; map a "
                'named directory instead (e.g. sources = {"src" = ""})',
            )
        return  # the wheel's own sources replace the global ones


def _moved_by_sources(sources: Any, target: str) -> str | None:
    """Where hatchling's ``sources`` option (the TOML value) puts *target*, or None when it
    stays (hatchling: ``BuildConfig.get_distribution_path``; a list maps each to ``""``)."""

    def directory(path: str) -> str:
        path = path.replace("\\", "/").strip("/")
        return "" if path in ("", ".") else path + "/"

    if isinstance(sources, list):
        mapping = {directory(s): "" for s in sources if isinstance(s, str) and s}
    elif isinstance(sources, dict):
        mapping = {
            (directory(k) if k else ""): directory(v)
            for k, v in sources.items()
            if isinstance(v, str)
        }
    else:
        return None
    for source, replacement in sorted(mapping.items()):
        if not source:
            moved = replacement + target
        elif target.startswith(source):
            moved = target.replace(source, replacement, 1)
        else:
            continue
        return moved if moved != target else None
    return None


def _missing_requirement(checker: Checker, distribution: str, what: str) -> None:
    """``build-system.requires`` lacks *distribution*, where *what* lives."""
    checker.add(
        ("build-system", "requires"),
        "BuildRequirementMissing",
        f'the build requirements must include "{distribution}" ({what} lives there)',
    )


def _requirement_name(requirement: object) -> str | None:
    if not isinstance(requirement, str):
        return None
    match = _REQUIREMENT_NAME_RE.match(requirement)
    return names.canonical_dist_name(match.group(1)) if match else None
