"""Marketplaces: several exported plugins in one directory (or repository) that a team or an
author publishes, each plugin under ``plugins/<name>/`` with its exact version.

- Claude Code: ``.claude-plugin/marketplace.json`` (``claude plugin marketplace add DIR``);
- Codex: ``.agents/plugins/marketplace.json`` (``codex plugin marketplace add DIR``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.export import claude_plugin, codex_plugin
from agenttools_runtime.export.common import metadata_fields
from agenttools_runtime.export.naming import check_name
from agenttools_runtime.export.output import Tree, tree_of
from agenttools_runtime.export.source import Package
from agenttools_runtime.export.validation import check

PLUGINS = "plugins"


def claude_marketplace(packages: Sequence[Package], *, name: str, owner: str | None = None) -> Tree:
    """A Claude Code marketplace of *packages*. Raises ``ExportNameInvalid``,
    ``ExportSourceInvalid`` (two plugins of one name) and the errors of each plugin."""
    title = "Claude Code marketplace"
    market_name = check_name(name, "claude-marketplace", title)
    plugins = _plugins(packages, claude_plugin.render)
    entries = [
        {
            "name": package.name,
            "source": f"./{PLUGINS}/{package.name}",
            "version": package.version,
            **metadata_fields(package),
        }
        for package in packages
    ]
    market: dict[str, Any] = {
        "name": market_name,
        "owner": {"name": owner or _owner(packages) or market_name},
        "description": _description(packages),
        "plugins": entries,
    }
    check(market, "claude-code-marketplace.schema.json", title)
    return _with(plugins, ".claude-plugin/marketplace.json", market)


def codex_marketplace(packages: Sequence[Package], *, name: str) -> Tree:
    """A Codex repository marketplace of *packages* (every plugin available to install)."""
    title = "Codex marketplace"
    market_name = check_name(name, "codex-marketplace", title)
    plugins = _plugins(packages, codex_plugin.render)
    entries = [
        {
            "name": package.name,
            "source": {"source": "local", "path": f"./{PLUGINS}/{package.name}"},
            "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        }
        for package in packages
    ]
    market = {"name": market_name, "plugins": entries}
    check(market, "codex-marketplace.schema.json", title)
    return _with(plugins, ".agents/plugins/marketplace.json", market)


def _plugins(packages: Sequence[Package], render: Callable[..., Tree]) -> list[Tree]:
    """Each package's plugin, rendered under ``plugins/<name>/``."""
    return [render(package, prefix=f"{PLUGINS}/{package.name}/") for package in _unique(packages)]


def _with(plugins: Sequence[Tree], path: str, market: dict[str, Any]) -> Tree:
    """The marketplace's tree: every plugin's files and the validated *market* at *path*."""
    files = {rel: file for plugin in plugins for rel, file in plugin.files.items()}
    documents = {rel: doc for plugin in plugins for rel, doc in plugin.documents.items()}
    return tree_of({**documents, path: market}, files)


def _unique(packages: Sequence[Package]) -> Sequence[Package]:
    seen: dict[str, Package] = {}
    for package in packages:
        if package.name in seen:
            reason = (
                f'it and {seen[package.name].source} are both a plugin named "{package.name}"; '
                "a marketplace lists one plugin of each name"
            )
            raise errors.ExportSourceInvalid(source=package.source, reason=reason)
        seen[package.name] = package
    return packages


def _owner(packages: Sequence[Package]) -> str | None:
    authors = {p.metadata.author for p in packages if p.metadata.author}
    return authors.pop() if len(authors) == 1 else None


def _description(packages: Sequence[Package]) -> str:
    listed = ", ".join(f"{p.name} {p.version}" for p in packages)
    return f"Agent tools from Python distributions: {listed}."
