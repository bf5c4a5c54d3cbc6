"""Discovery of installed distributions that carry an agenttools manifest.

INTERFACE STUB (owned by the discovery work; signatures here are what other modules use).

The manifest is ``<dist-info>/extra_metadata/agenttools/manifest.json`` (see docs/wheel-format.md);
skill files are under ``<dist-info>/extra_metadata/agenttools/skills/<name>/``. Discovery never
imports a package and reads nothing but manifests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime.mcp.server import Environment

MANIFEST_DIR = "extra_metadata/agenttools"
MANIFEST_FILE = "extra_metadata/agenttools/manifest.json"
MANIFEST_SCHEMA = 1


@dataclass(frozen=True)
class SearchPath:
    """Where to look: ``sys.path``-like directories plus the environment whose interpreter
    starts ``module``/``script`` servers."""

    paths: tuple[Path, ...]
    environment: Environment

    @classmethod
    def current(cls) -> SearchPath:
        raise NotImplementedError

    @classmethod
    def for_python(cls, python: Path | str) -> SearchPath:
        """Ask that interpreter for its ``sys.path`` once."""
        raise NotImplementedError

    @classmethod
    def for_paths(cls, paths: Sequence[Path | str]) -> SearchPath:
        raise NotImplementedError


@dataclass(frozen=True)
class InstalledDistribution:
    """One installed distribution with an agenttools manifest.

    ``name`` is PEP 503-normalized; ``problem`` is set (and ``manifest`` empty) when the
    manifest is corrupt or its schema too new: such a distribution is listed, never used.
    ``source_root`` is set for editable installs (skill directories come from there).
    """

    name: str
    display_name: str
    version: str
    dist_info: Path
    manifest: dict[str, Any] = field(default_factory=dict)
    source_root: Path | None = None
    environment: Environment | None = None
    problem: str | None = None


def find_distributions(search: SearchPath | None = None) -> list[InstalledDistribution]:
    """Every distribution on *search* (default: this interpreter's) that ships a manifest,
    first occurrence on the path winning for duplicates, sorted by name."""
    raise NotImplementedError


def get_distribution(name: str, search: SearchPath | None = None) -> InstalledDistribution:
    """One distribution by (PEP 503-normalized) name; ``DistributionNotInstalled`` naming the
    ``pip install`` to run when absent, ``InvalidManifest``/``ManifestSchemaTooNew`` when it
    has a problem."""
    raise NotImplementedError
