"""Other packaging formats, rendered from the same ``[tool.agenttools]`` manifest: Agent Plugins,
Claude Code and Codex plugins and marketplaces, Gemini CLI extensions (``agenttools export``),
and the MCP registry's ``server.json`` (``agenttools server-json``, the build hook, and
``mcp install --server-json`` reading one).

The pieces: a *source* (:mod:`.source`: an installed bundle, a wheel or a project, resolved to
a :class:`~.source.Package`), one renderer per format (a :class:`~.output.Tree` of files, every
document validated against the format's schema first: :mod:`.validation`), and
:func:`~.output.write_tree`, which writes it without replacing anything it did not write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.export import (
    agent_plugin,
    claude_plugin,
    codex_plugin,
    gemini_extension,
    marketplaces,
)
from agenttools_runtime.export.naming import suggest
from agenttools_runtime.export.output import Tree, WriteResult, write_tree
from agenttools_runtime.export.source import Package, load_package


@dataclass(frozen=True, slots=True)
class Format:
    """One output format: its id (``--format``), what it is called, and whether it takes
    several sources (a marketplace) or one."""

    id: str
    title: str
    marketplace: bool


FORMATS: dict[str, Format] = {
    f.id: f
    for f in (
        # (each with the client command that reads it)
        Format("agent-plugin", "Agent Plugins plugin", False),  # any Agent Plugins client
        Format("claude-plugin", "Claude Code plugin", False),  # claude plugin validate DIR
        Format("codex-plugin", "Codex plugin", False),  # a Codex marketplace
        Format("gemini-extension", "Gemini CLI extension", False),  # gemini extensions link DIR
        # claude plugin marketplace add DIR:
        Format("claude-marketplace", "Claude Code marketplace", True),
        Format("codex-marketplace", "Codex marketplace", True),  # codex plugin marketplace add DIR
    )
}


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What :func:`export` wrote: the format, the bundles (name and version) and the files."""

    format: str
    packages: tuple[Package, ...]
    written: WriteResult

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "plugins": [
                {"name": p.name, "distribution": p.distribution, "version": p.version}
                for p in self.packages
            ],
            **self.written.to_json(),
        }


def render(
    format_id: str,
    sources: Sequence[Package],
    *,
    name: str | None = None,
    owner: str | None = None,
    spec_version: str | None = None,
    default_name: str = "agenttools",
) -> Tree:
    """The files of *sources* in *format_id*, every document validated; nothing is written.
    *name* overrides the plugin's (or marketplace's) name, *owner* a marketplace's owner,
    *spec_version* the Agent Plugins version (1.0.0, 1.1.0)."""
    fmt = FORMATS[format_id]
    if not fmt.marketplace and len(sources) != 1:
        raise ValueError(f"{fmt.title} takes one source, not {len(sources)}")
    renderers: dict[str, Callable[[], Tree]] = {
        "agent-plugin": lambda: agent_plugin.render(
            sources[0], name=name, spec_version=spec_version
        ),
        "claude-plugin": lambda: claude_plugin.render(sources[0], name=name),
        "codex-plugin": lambda: codex_plugin.render(sources[0], name=name),
        "gemini-extension": lambda: gemini_extension.render(sources[0], name=name),
        "claude-marketplace": lambda: marketplaces.claude_marketplace(
            sources, name=name or default_name, owner=owner
        ),
        "codex-marketplace": lambda: marketplaces.codex_marketplace(
            sources, name=name or default_name
        ),
    }
    return renderers[format_id]()


def export(
    format_id: str,
    sources: Sequence[str],
    output: Path,
    *,
    name: str | None = None,
    owner: str | None = None,
    bundle: str | None = None,
    spec_version: str | None = None,
    force: bool = False,
    search: SearchPath | None = None,
) -> ExportResult:
    """Render *sources* (installed bundle names, wheel files, project directories) in
    *format_id* and write the files into *output* (see :func:`~.output.write_tree`). A
    marketplace's default name is *output*'s directory name, made kebab-case. Raises the
    errors of :func:`~.source.load_package`, of the format (``ExportNameInvalid``,
    ``ExportUnsupported``, ``ExportSchemaViolation``) and ``ExportOutputConflict``."""
    loaded = tuple(load_package(s, bundle=bundle, search=search) for s in sources)
    default_name = suggest(Path(output).resolve().name)
    tree = render(
        format_id,
        loaded,
        name=name,
        owner=owner,
        spec_version=spec_version,
        default_name=default_name,
    )
    return ExportResult(format_id, loaded, write_tree(tree, output, force=force))
