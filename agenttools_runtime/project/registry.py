"""``[tool.agenttools.mcp-servers.NAME.registry]``: what the MCP registry needs to accept the
``server.json`` the build writes for the server.

- the name and texts within the registry's schema (``schema.REGISTRY``: checked here, as the
  key checks test types only);
- a ``module``, ``script`` or ``url`` server: a ``command`` server runs some other package;
- for a ``module`` / ``script`` server, the console script named like the distribution, which
  is what ``uvx <distribution>`` runs, starting that server;
- the ``mcp-name: <name>`` line in the README that becomes the long description on PyPI, by
  which the registry checks that the publisher owns the PyPI project;
- one such server per distribution (the sdist holds one ``server.json``).
"""

from __future__ import annotations

import os
import re
from typing import Any

from agenttools_runtime import schema
from agenttools_runtime.project.context import BASE, Checker
from agenttools_runtime.project.values import dig, items, table
from agenttools_runtime.toml_text import KeyPath

MARKER = "mcp-name:"


def check_registry(checker: Checker, name: str, server: dict[str, Any]) -> None:
    """The registry table of server *name* (already type-checked); a usable one is recorded
    in ``checker.result.registries``."""
    registry = server.get("registry")
    key: KeyPath = (*BASE, "mcp-servers", name, "registry")
    if not isinstance(registry, dict) or not isinstance(registry.get("name"), str):
        return  # reported by check_keys
    ok = True
    for field in ("name", "title", "description"):
        value = registry.get(field)
        spec = schema.REGISTRY.key(field)
        if not isinstance(value, str) or spec is None or spec.text is None:
            continue
        if not _fits(value, spec.text):
            what = "1-100 characters" if field != "name" else "OWNER-NAMESPACE/NAME, at most 200"
            checker.add(
                (*key, field),
                "InvalidRegistry",
                f'"{value}" is not what the MCP registry accepts ({what}'
                + (", e.g. io.github.octocat/weather)" if field == "name" else ")"),
            )
            ok = False
    description = registry.get("description") or server.get("description")
    if description is None:
        description = dig(checker.project.data, "project", "description")
    if "description" not in registry and isinstance(description, str) and len(description) > 100:
        checker.add(
            key,
            "InvalidRegistry",
            f"the registry takes a description of at most 100 characters; the server's has "
            f"{len(description)}: give a shorter one as registry.description",
        )
        ok = False
    if "command" in server:
        checker.add(
            key,
            "InvalidRegistry",
            "a command server runs another package; the registry lists this distribution's "
            "module, script or url servers",
        )
        ok = False
    elif "url" not in server:
        ok = _check_script(checker, key, server) and ok
    ok = _check_readme(checker, (*key, "name"), registry["name"]) and ok
    others = [n for n in checker.result.registries if n != name]
    if others:
        checker.add(
            key,
            "InvalidRegistry",
            f'the server "{others[0]}" declares its registry entry already; a distribution '
            "publishes one server.json",
        )
        ok = False
    if ok:
        checker.result.registries[name] = dict(registry)


def _fits(value: str, rule: schema.Text) -> bool:
    if rule.max_length is not None and len(value) > rule.max_length:
        return False
    if rule.search:
        return re.search(rule.pattern, value) is not None
    return re.fullmatch(rule.pattern, value) is not None and len(value) >= 3


def _check_script(checker: Checker, key: KeyPath, server: dict[str, Any]) -> bool:
    """``uvx <distribution>`` runs the console script named like the distribution: it must
    exist and start this server."""
    project = checker.project
    dist = project.name
    if not dist or "scripts" in items(dig(project.data, "project", "dynamic")):
        return True  # known only when built
    target = table(dig(project.data, "project", "scripts")).get(dist)
    module, script = server.get("module"), server.get("script")
    if script is not None and script == dist:
        return True
    if module is not None and isinstance(target, str) and target.split(":")[0].strip() == module:
        return True
    if script is not None:
        fix = f'name the script "{dist}" (in [project.scripts] and here)'
    else:
        fix = f'add {dist} = "{module}:<function>" to [project.scripts]'
    checker.add(
        key,
        "RegistryScript",
        f'the registry runs the server with "uvx {dist}", which starts the console script '
        f'named "{dist}"'
        + ("" if target is None else f" (it runs {target}, not this server)")
        + f": {fix}",
    )
    return False


def _check_readme(checker: Checker, key: KeyPath, name: str) -> bool:
    """The long description holds ``mcp-name: <name>`` (as the registry looks for it)."""
    project = checker.project
    readme = dig(project.data, "project", "readme")
    if "readme" in items(dig(project.data, "project", "dynamic")):
        return True  # made by the build backend: not known here
    text: str | None = None
    where = "the long description ([project].readme)"
    if isinstance(readme, dict) and isinstance(readme.get("text"), str):
        text = readme["text"]
    else:
        file = readme.get("file") if isinstance(readme, dict) else readme
        if isinstance(file, str):
            where = file
            path = project.root / file
            if os.path.isfile(path):
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    text = None
    marker = f"{MARKER} {name}"
    if text is not None and re.search(rf"{re.escape(MARKER)}\s*{re.escape(name)}(?![\w./-])", text):
        return True
    if readme is None:
        problem = (
            "the project has no README ([project].readme), in which the MCP registry looks for "
            f'"{marker}" to check that you own the PyPI project: add one holding that line'
        )
    else:
        problem = (
            f'{where} lacks the line "{marker}", by which the MCP registry checks that you own '
            f"the PyPI project: add it (as an HTML comment, <!-- {marker} -->, it is not shown)"
        )
    checker.add(key, "RegistryReadme", problem)
    return False
