"""``[[tool.agenttools.bundles]]``: names, markers, the servers and skills each lists (a skill
of another distribution as ``dist/skill``), names shared only where markers exclude each
other, one config key per server of a bundle; and the bundle list the manifest carries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttools_runtime import names
from agenttools_runtime.project.context import BASE, Checker
from agenttools_runtime.project.markers import check_marker, markers_overlap
from agenttools_runtime.project.values import strings, table
from agenttools_runtime.toml_text import KeyPath
from agenttools_runtime.wheel.manifest import BundleEntry


def check_bundles(checker: Checker, bundles: list[Any]) -> list[str]:
    """Item references of every bundle; returns the local skill names they declare."""
    local: list[str] = []
    for index, bundle in enumerate(bundles):
        if not isinstance(bundle, dict):
            continue
        key = (*BASE, "bundles", index)
        name = bundle.get("name")
        if "name" not in bundle:
            checker.add(key, "InvalidItemName", "a bundle needs a name")
        elif isinstance(name, str):
            checker.check_item_name((*key, "name"), name, "bundle")
        marker = bundle.get("marker")
        if isinstance(marker, str):
            check_marker(checker, (*key, "marker"), marker)
        for server in strings(bundle.get("mcp-servers")):
            if checker.check_item_name((*key, "mcp-servers"), server, "server") and (
                server not in table(checker.project.config.get("mcp-servers"))
            ):
                checker.add(
                    (*key, "mcp-servers"),
                    "UnknownServer",
                    f'"{server}" is not declared in [tool.agenttools.mcp-servers]',
                )
        for skill in strings(bundle.get("skills")):
            own = _check_skill_reference(checker, (*key, "skills"), skill)
            if own is not None and own not in local:
                local.append(own)
        for field_name in ("mcp-servers", "skills"):
            listed = strings(bundle.get(field_name))
            for item in sorted({i for i in listed if listed.count(i) > 1}):
                checker.add(
                    (*key, field_name),
                    "DuplicateItem",
                    f'"{item}" is listed more than once',
                    "warning",
                )
    return local


def finish_bundles(checker: Checker, bundles: list[Any]) -> None:
    """Bundle-level checks once servers and skills are known, and the bundle list of the
    manifest (without bundles: the implicit one, named after the distribution)."""
    result = checker.result
    servers = result.servers
    if not bundles:
        skills = tuple(result.skills)
        if servers or skills or result.errors:
            implicit = names.canonical_dist_name(checker.project.name or "unnamed")
            result.bundles.append(BundleEntry(implicit, True, tuple(servers), skills))
            _check_config_keys(checker, (*BASE, "mcp-servers"), implicit, tuple(servers))
        else:
            checker.add(BASE, "NothingDeclared", "declares no MCP servers and no skills", "warning")
        return
    seen: list[tuple[int, str, str | None]] = []
    for index, bundle in enumerate(bundles):
        if not isinstance(bundle, dict) or not isinstance(bundle.get("name"), str):
            continue
        key = (*BASE, "bundles", index)
        name = str(bundle["name"])
        marker = bundle.get("marker") if isinstance(bundle.get("marker"), str) else None
        for other_index, other_name, other_marker in seen:
            if other_name == name and markers_overlap(marker, other_marker):
                checker.add(
                    (*key, "name"),
                    "DuplicateBundleName",
                    f'the bundle name "{name}" is also used by bundles[{other_index}], and '
                    "their markers can hold on the same system",
                )
        seen.append((index, name, marker))
        listed = tuple(strings(bundle.get("mcp-servers")))
        if name in servers and name not in listed:
            checker.add(
                (*key, "name"),
                "AmbiguousBundleName",
                f'the bundle "{name}" is named like the MCP server "{name}" but does not '
                "contain it; rename the bundle or add the server to it",
            )
        _check_config_keys(checker, (*key, "mcp-servers"), name, listed)
        skills = tuple(strings(bundle.get("skills")))
        if not listed and not skills:
            checker.add(key, "EmptyBundle", "lists no MCP servers and no skills", "warning")
        description = bundle.get("description")
        result.bundles.append(
            BundleEntry(
                name,
                False,
                tuple(dict.fromkeys(listed)),
                tuple(dict.fromkeys(skills)),
                description if isinstance(description, str) else None,
                marker,
            )
        )


def _check_skill_reference(checker: Checker, key: KeyPath, reference: str) -> str | None:
    """Check a bundle's skill name; return it when it is this distribution's."""
    if "/" not in reference:
        if not names.is_skill_name(reference):
            checker.add(
                key,
                "InvalidSkillName",
                f'"{reference}": ' + "; ".join(names.skill_name_problems(reference)),
            )
            return None
        return reference
    dist, _, skill = reference.partition("/")
    if not names.is_skill_reference(reference):
        checker.add(
            key,
            "InvalidItemName",
            f'"{reference}" must be a skill name or "distribution/skill-name"',
        )
        return None
    own = checker.project.name
    if own and names.canonical_dist_name(dist) == names.canonical_dist_name(own):
        return skill
    return None


def _check_config_keys(checker: Checker, key: KeyPath, bundle: str, listed: Sequence[str]) -> None:
    """The servers of one bundle are written under their config keys: no two may share one."""
    by_key: dict[str, list[str]] = {}
    for server in dict.fromkeys(listed):
        server_table = checker.result.servers.get(server)
        if server_table is None:
            continue
        config_key = server_table.get("config-key", server)
        by_key.setdefault(str(config_key), []).append(server)
    for config_key, sharing in by_key.items():
        if len(sharing) > 1:
            checker.add(
                key,
                "DuplicateBundleConfigKey",
                f'The MCP servers {", ".join(sharing)} of "{bundle}" would all be installed '
                f'with the configuration key "{config_key}".',
            )
