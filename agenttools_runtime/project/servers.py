"""``[tool.agenttools.mcp-servers]``: one launch key each, keys that fit it, a module in the
project's source tree, a script among ``[project.scripts]``, an http(s) URL."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agenttools_runtime import schema
from agenttools_runtime.project.context import BASE, Checker
from agenttools_runtime.project.problems import display_path
from agenttools_runtime.project.registry import check_registry
from agenttools_runtime.project.values import dig, items, table
from agenttools_runtime.toml_text import KeyPath


def check_server(checker: Checker, name: str, table: Any) -> None:
    """One server; a usable one is recorded in ``checker.result.servers``."""
    key = (*BASE, "mcp-servers", name)
    if not checker.check_item_name(key, name, "server"):
        return
    if not isinstance(table, dict):
        return  # reported by check_keys
    for problem_key, code, message in schema.server_problems(table):
        if code not in ("InvalidType", "InvalidValue"):  # (those are check_keys')
            where = () if problem_key is None else problem_key
            checker.add((*key, *((where,) if isinstance(where, str) else where)), code, message)
    if not all(isinstance(table[k], str) for k in schema.LAUNCH_KEYS if k in table):
        return  # types reported by check_keys
    module, script = table.get("module"), table.get("script")
    if isinstance(module, str) and schema.is_module_path(module):
        _check_module(checker, (*key, "module"), module)
    if isinstance(script, str):
        _check_script(checker, (*key, "script"), script)
    if "registry" in table:
        check_registry(checker, name, table)
    # the registry entry is the publishing side (server.json), not how the server starts
    checker.result.servers[name] = {k: v for k, v in table.items() if k != "registry"}


def _check_module(checker: Checker, key: KeyPath, module: str) -> None:
    bases = _source_bases(checker)
    rel = Path(*module.split("."))
    if any(
        os.path.isfile((b / rel).with_suffix(".py")) or os.path.isfile(b / rel / "__main__.py")
        for b in bases
    ):
        return
    where = ", ".join(display_path(b, checker.project.root) for b in bases)
    checker.add(
        key,
        "UnknownModule",
        f'module "{module}" is not in the project\'s source tree '
        f"(looked for {rel.as_posix()}.py and {rel.as_posix()}/__main__.py under {where})",
    )


def _source_bases(checker: Checker) -> list[Path]:
    """The directories a module may be under: the project, ``src``, hatchling's packages."""
    root = checker.project.root
    bases = [root, root / "src"]
    wheel = table(dig(checker.project.data, "tool", "hatch", "build", "targets", "wheel"))
    # hatchling reports a malformed packages list itself; here it only adds no base
    bases += [(root / p).parent for p in items(wheel.get("packages")) if isinstance(p, str)]
    return list(dict.fromkeys(b for b in bases if os.path.isdir(b)))


def _check_script(checker: Checker, key: KeyPath, script: str) -> None:
    if "scripts" in items(dig(checker.project.data, "project", "dynamic")):
        return  # cannot be known before the build
    scripts = table(dig(checker.project.data, "project", "scripts"))
    if script not in scripts:
        known = ", ".join(sorted(scripts)) or "none"
        checker.add(
            key,
            "UnknownScript",
            f'"{script}" is not a [project.scripts] entry of this project (entries: {known})',
        )
