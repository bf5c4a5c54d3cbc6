"""Discovery of installed distributions that carry an agenttools manifest.

The manifest is ``<dist-info>/extra_metadata/agenttools/manifest.json`` (written by the build
hook); skill files are under ``<dist-info>/extra_metadata/agenttools/skills/<name>/``.
Discovery never imports a package and reads nothing but manifests.

The scan follows ``importlib.metadata`` semantics — every ``*.dist-info`` directory of every
search-path entry, in path order, the first occurrence of a (PEP 503-normalized) name winning
— but lists the directories itself with ``os.scandir`` and probes for the manifest by opening
it: ``importlib.metadata`` builds a ``Distribution`` object per directory and costs several
times more (``benchmarks/discovery.py``). ``*.egg-info`` entries shadow like any other but never
carry a manifest; distributions inside zip files on the path are listed with a problem (their
skill files have no directory an AI client could use).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import regular_files
from agenttools_runtime.dist_scan import Entry as _Entry
from agenttools_runtime.dist_scan import iter_dist_infos
from agenttools_runtime.errors import (
    AgentToolsError,
    DistributionNotInstalled,
    DistributionServerNotFound,
    DistributionSkillNotFound,
    InvalidManifest,
    ManifestError,
)
from agenttools_runtime.mcp.server import Environment, MCPServer, Origin
from agenttools_runtime.names import canonical_dist_name
from agenttools_runtime.search_path import SearchPath as SearchPath  # re-exported
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import SkillEntry, WheelManifest, parse


@dataclass(frozen=True, slots=True)
class InstalledDistribution:
    """One installed distribution with an agenttools manifest.

    ``name`` is PEP 503-normalized; ``manifest`` is None when the distribution has none (it
    declares nothing) and when it cannot be used: then ``problem`` says why (corrupt, schema
    too new, a name or path the build hook would refuse) and ``error`` is the
    ``ManifestError``; such a distribution is listed, never used.
    ``source_root`` is set for editable installs (directory skills come from there, live,
    unverified). ``environment`` is where its ``module``/``script`` servers run. ``manifest``
    and ``error`` are not compared.
    """

    name: str
    display_name: str
    version: str
    dist_info: Path
    manifest: WheelManifest | None = field(default=None, compare=False)
    source_root: Path | None = None
    environment: Environment | None = None
    problem: str | None = None
    error: AgentToolsError | None = field(default=None, compare=False, repr=False)

    @property
    def skills_dir(self) -> Path:
        """Where the wheel put the skill files: ``<dist-info>/extra_metadata/agenttools/skills``."""
        return self.dist_info / layout.SKILLS_DIR

    @property
    def skill_names(self) -> list[str]:
        return sorted(self.manifest.skills) if self.manifest is not None else []

    @property
    def server_names(self) -> list[str]:
        return sorted(self.manifest.servers) if self.manifest is not None else []

    def raise_problem(self) -> None:
        """Raise the ``InvalidManifest`` / ``ManifestSchemaTooNew`` this distribution has."""
        if self.error is not None:
            raise self.error
        if self.problem is not None:
            raise InvalidManifest(distribution=self.display_name, reason=self.problem)

    def server(self, name: str) -> MCPServer:
        """The declared server *name*, started in this distribution's environment.
        Raises ``DistributionServerNotFound`` (a manifest's server tables were checked when
        it was read)."""
        self.raise_problem()
        entry = self.manifest.servers.get(name) if self.manifest is not None else None
        if entry is None:
            raise DistributionServerNotFound(name=name, distribution=self.display_name)
        origin = Origin.of_dist_info(self.display_name, self.version, self.dist_info)
        return MCPServer.from_entry(
            entry,
            distribution=self.name,
            environment=self.environment,
            origin=origin,
        )

    def skill_directory(self, name: str) -> Path:
        """Where skill *name*'s files are: the live source directory for directory skills of
        editable installs, else the wheel's copy in the dist-info."""
        entry = self.skill_entry(name)
        if self.source_root is not None and entry.kind == "directory" and entry.path:
            return self.source_root / entry.path
        return self.skills_dir / name

    def skill_entry(self, name: str) -> SkillEntry:
        """The manifest's entry of skill *name*; raises the distribution's problem, or
        ``DistributionSkillNotFound``."""
        self.raise_problem()
        entry = self.manifest.skills.get(name) if self.manifest is not None else None
        if entry is None:
            raise DistributionSkillNotFound(name=name, distribution=self.display_name)
        return entry

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "display_name": self.display_name,
            "version": self.version,
            "dist_info": str(self.dist_info),
            "editable": self.source_root is not None,
            "source_root": str(self.source_root) if self.source_root is not None else None,
            "problem": self.problem,
        }


def find_distributions(search: SearchPath | None = None) -> list[InstalledDistribution]:
    """Every distribution on *search* (default: this interpreter's) that ships a manifest,
    first occurrence on the path winning for duplicates, sorted by name. Distributions whose
    manifest is unusable are included with ``problem`` set; nothing raises for them."""
    search = search or SearchPath.current()
    found = [d for _, d in _scan(search, None) if d is not None]
    return sorted(found, key=lambda d: d.name)


def get_distribution(name: str, search: SearchPath | None = None) -> InstalledDistribution:
    """One distribution by (PEP 503-normalized) name; ``DistributionNotInstalled`` naming the
    ``pip install`` to run when absent, ``InvalidManifest``/``ManifestSchemaTooNew`` when it
    has a problem. An installed distribution without a manifest is returned with an empty
    manifest (it declares nothing, so lookups in it fail with "not found")."""
    search = search or SearchPath.current()
    dist = try_get_distribution(name, search)
    if dist is None:
        raise DistributionNotInstalled(
            name=name,
            environment=search.describe(),
            command=search.pip_install(name),
            distribution=canonical_dist_name(name),
        )
    dist.raise_problem()
    return dist


def try_get_distribution(
    name: str, search: SearchPath | None = None
) -> InstalledDistribution | None:
    """Like :func:`get_distribution` but None when not installed and no raising for problems
    (``problem`` is set)."""
    search = search or SearchPath.current()
    key = canonical_dist_name(name)
    for entry, dist in _scan(search, key):
        return dist if dist is not None else _from_entry(entry, search, None)
    return None


def is_installed(name: str, search: SearchPath | None = None) -> bool:
    """Whether a distribution *name* is installed on *search*, with or without a manifest:
    :func:`try_get_distribution` is not None, found without reading the manifest."""
    search = search or SearchPath.current()
    return next(iter_dist_infos(search.paths, canonical_dist_name(name)), None) is not None


# -- the scan --------------------------------------------------------------------------------
def _scan(
    search: SearchPath, only: str | None
) -> Iterator[tuple[_Entry, InstalledDistribution | None]]:
    """Each first-occurring dist-info with its distribution (None without a manifest)."""
    for entry in iter_dist_infos(search.paths, only):
        if entry.zip_file is not None:
            yield entry, _zipped_distribution(entry, search)
        else:
            yield entry, _load(entry, search)


def _load(entry: _Entry, search: SearchPath) -> InstalledDistribution | None:
    if entry.is_egg:
        return None
    try:  # (a named pipe or a device in its place: a problem, never a read that hangs)
        raw = regular_files.read_bytes(entry.dist_info + layout.MANIFEST_SUFFIX)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return _from_entry(
            entry, search, InvalidManifest(distribution=entry.key, reason=f"unreadable ({exc})")
        )
    try:
        manifest = parse(raw, entry.key)
    except ManifestError as exc:
        return _from_entry(entry, search, exc)
    return InstalledDistribution(
        name=entry.key,
        display_name=manifest.distribution,
        version=manifest.version,
        dist_info=Path(entry.dist_info),
        manifest=manifest,
        source_root=Path(manifest.source_root) if manifest.source_root else None,
        environment=search.environment,
    )


def _from_entry(
    entry: _Entry, search: SearchPath, error: AgentToolsError | None
) -> InstalledDistribution:
    """The distribution of *entry* known from its name alone (no manifest read), with the
    *error* that stops it from being used, if any."""
    location = entry.dist_info if entry.zip_file is None else f"{entry.zip_file}/{entry.dist_info}"
    return InstalledDistribution(
        name=entry.key,
        display_name=entry.key,
        version=entry.version,
        dist_info=Path(location),
        environment=search.environment,
        problem=None if error is None else str(error),
        error=error,
    )


def _zipped_distribution(entry: _Entry, search: SearchPath) -> InstalledDistribution | None:
    import zipfile  # (rare: only zipped entries of sys.path)

    assert entry.zip_file is not None
    try:
        with zipfile.ZipFile(entry.zip_file) as zf:
            zf.getinfo(f"{entry.dist_info}/{layout.MANIFEST_FILE}")
    except (KeyError, OSError, zipfile.BadZipFile):  # no manifest in it, or no zip file
        return None
    error = InvalidManifest(
        distribution=entry.key,
        reason=f"it is installed inside the zip file {entry.zip_file}; agenttools needs an "
        "unpacked install (pip install)",
    )
    return _from_entry(entry, search, error)
