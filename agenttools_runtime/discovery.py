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

import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import regular_files
from agenttools_runtime.dist_scan import Entry as _Entry
from agenttools_runtime.dist_scan import iter_dist_infos
from agenttools_runtime.errors import (
    AgentToolsError,
    BundledFileMismatch,
    BundledFileMissing,
    BundledFileNotRegular,
    DistributionNotInstalled,
    DistributionServerNotFound,
    DistributionSkillNotFound,
    EditableSourceMissing,
    InvalidDistributionSkillDefinition,
    InvalidManifest,
    ManifestError,
)
from agenttools_runtime.mcp.server import Environment, MCPServer, Origin
from agenttools_runtime.names import SKILL_FILE, canonical_dist_name
from agenttools_runtime.search_path import SearchPath as SearchPath  # re-exported
from agenttools_runtime.skills.hashing import hash_bytes
from agenttools_runtime.skills.source import SkillSource, to_source
from agenttools_runtime.verified import VerifiedFiles
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import SkillEntry, WheelManifest, parse

if TYPE_CHECKING:
    from agenttools_runtime.skills.source import SkillSource


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
        entry = self._skill_entry(name)
        if self.source_root is not None and entry.kind == "directory" and entry.path:
            return self.source_root / entry.path
        return self.skills_dir / name

    def skill_source(self, name: str) -> SkillSource:
        """The normalized source of skill *name*: identifier ``"<dist>/<name>"``, version = the
        distribution's. Wheel copies are verified against the manifest's hashes first
        (``BundledFileMissing`` / ``BundledFileMismatch`` naming the file); directory skills of
        editable installs are the live source files (``InvalidDistributionSkillDefinition``
        when their ``SKILL.md`` now has another name). Raises ``DistributionSkillNotFound``."""
        entry = self._skill_entry(name)
        identifier = f"{self.name}/{name}"
        directory = self.skill_directory(name)
        if directory != self.skills_dir / name:
            if not directory.is_dir():  # the work tree moved or was deleted since the install
                missing = directory if self.source_root and self.source_root.is_dir() else None
                raise EditableSourceMissing(
                    distribution=self.display_name,
                    path=missing or self.source_root,
                    command=f"pip install --force-reinstall -e <the project directory of {self.name}>",
                )
            live = to_source(directory)
            if live.name != name:  # renamed in the work tree since the editable install
                raise InvalidDistributionSkillDefinition(
                    path=directory / SKILL_FILE,
                    reason=f'its name is "{live.name}", declared as "{name}"',
                )
            return replace(live, identifier=identifier, version=self.version)
        contents: dict[str, bytes] = {}
        files = self._verify_skill(name, contents)
        return SkillSource(
            name=name,
            description=entry.description,
            identifier=identifier,
            version=self.version,
            files=_WheelFiles(directory, files),
            manifest=dict(files),
            directory=directory,
            executable=frozenset(entry.executable),
            contents=contents,
        )

    def verify_skill(self, name: str) -> dict[str, str]:
        """Check the wheel's copy of skill *name* against the manifest; return its sorted
        manifest (relative path → hash). Only the listed files are read, and only as regular
        files reached without a symbolic link (``BundledFileNotRegular``): a link planted in
        the ``.dist-info`` is never followed. Files not in the manifest are never used."""
        return self._verify_skill(name, None)

    def _verify_skill(self, name: str, contents: dict[str, bytes] | None) -> dict[str, str]:
        """:meth:`verify_skill`, keeping in *contents* the bytes of the files it had to read
        (those the cache of verified files does not hold): a deploy writes them as read,
        the one read of a file never verified before (not one to hash, one to copy)."""
        entry = self._skill_entry(name)
        if SKILL_FILE not in entry.files:
            raise InvalidManifest(
                distribution=self.display_name, reason=f'skill "{name}" lists no SKILL.md'
            )
        # a file verified before and unchanged since (by its stat) is not read again: see
        # agenttools_runtime/verified.py for the trade-off
        known = VerifiedFiles(self.dist_info, name)
        real_directories: set[str] = set()
        try:
            for rel, expected in entry.files.items():
                path, info = self._regular_file(entry, rel, real_directories)
                if not known.holds(rel, info, expected):
                    # the file just looked at
                    data = self._checked_bytes(entry, rel, path, info.st_size)
                    known.add(rel, info, expected)
                    if contents is not None:
                        contents[rel] = data
        finally:
            known.save()
        return dict(sorted(entry.files.items()))

    def read_skill_file(self, name: str, rel: str) -> bytes:
        """One listed file (*rel*, ``/``-separated) of the wheel's copy of skill *name*,
        verified as :meth:`verify_skill` does."""
        return self._verified_bytes(self._skill_entry(name), rel)

    def _verified_bytes(
        self, entry: SkillEntry, rel: str, real_directories: set[str] | None = None
    ) -> bytes:
        path, info = self._regular_file(entry, rel, real_directories)
        return self._checked_bytes(entry, rel, path, info.st_size)

    def _checked_bytes(
        self, entry: SkillEntry, rel: str, path: str, size: int | None = None
    ) -> bytes:
        """The bytes of *rel* at *path* (found a regular file reached without a link, of
        *size* bytes by its ``lstat``), checked against the manifest's hash."""
        data = self._file_bytes(path, size)
        if rel not in entry.files or hash_bytes(data) != entry.files[rel]:
            raise BundledFileMismatch(path=Path(path), distribution=self.display_name)
        return data

    def _file_bytes(self, path: str, size: int | None) -> bytes:
        """The bytes at *path*, a file found regular by its ``lstat`` (of *size* bytes);
        ``BundledFileMissing`` if it is gone or unreadable since."""
        try:
            # O_NOFOLLOW: a link swapped in since the lstat is refused, not followed;
            # O_NONBLOCK: a pipe swapped in does not hang the open (it reads as no bytes)
            fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_BINARY)
            try:
                return regular_files.read_all(fd, size)
            finally:
                os.close(fd)
        except OSError as exc:  # gone, or unreadable: either way not what was installed
            raise BundledFileMissing(path=Path(path), distribution=self.display_name) from exc

    def _regular_file(
        self, entry: SkillEntry, rel: str, real_directories: set[str] | None
    ) -> tuple[str, os.stat_result]:
        """The path and stat of *rel* of skill *entry*, a regular file reached without a
        symbolic link; ``BundledFileMissing`` / ``BundledFileNotRegular`` otherwise."""
        rel_path = f"{layout.SKILLS_DIR}/{entry.name}/{rel}"
        path, info = _without_links(self.dist_info, rel_path, real_directories)
        if info is None:
            raise BundledFileMissing(path=Path(path), distribution=self.display_name)
        if not stat.S_ISREG(info.st_mode):
            raise BundledFileNotRegular(path=Path(path), distribution=self.display_name)
        return path, info

    def _skill_entry(self, name: str) -> SkillEntry:
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
    except KeyError:
        return None
    except (OSError, zipfile.BadZipFile):
        return None
    error = InvalidManifest(
        distribution=entry.key,
        reason=f"it is installed inside the zip file {entry.zip_file}; agenttools needs an "
        "unpacked install (pip install)",
    )
    return _from_entry(entry, search, error)


# -- files of the wheel's copy -----------------------------------------------------------------


class _WheelFiles(Mapping[str, Path]):
    """The files of a wheel's skill: ``/``-separated relative path → its path under
    *directory*, each made when it is looked up (a deploy looks up none: it writes the bytes
    it verified; a ``Path`` for each of a thousand files was a twentieth of its own work)."""

    __slots__ = ("_directory", "_rels")

    def __init__(self, directory: Path, rels: Mapping[str, str]) -> None:
        self._directory = directory
        self._rels = rels

    def __getitem__(self, rel: str) -> Path:
        if rel not in self._rels:
            raise KeyError(rel)
        return self._directory.joinpath(*rel.split("/"))

    def __iter__(self) -> Iterator[str]:
        return iter(self._rels)

    def __len__(self) -> int:
        return len(self._rels)

    def __repr__(self) -> str:
        return repr(dict(self))


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _without_links(
    base: Path, rel: str, real_directories: set[str] | None = None
) -> tuple[str, os.stat_result | None]:
    """``base/rel`` and its ``lstat`` when every component of *rel* is reached from *base*
    without a symbolic link; else the first link and its ``lstat`` (not a regular file); a
    missing component: the whole path and None. Directories found real are added to
    *real_directories*, and those already in it are not looked at again (the files of one
    skill share their directories: a strings walk, a fifth of the ``lstat`` calls)."""
    parts = rel.split("/")
    path = os.fspath(base)
    info = None
    for index, part in enumerate(parts):
        path = f"{path}{os.sep}{part}"
        last = index == len(parts) - 1
        if not last and real_directories is not None and path in real_directories:
            continue
        try:
            info = os.lstat(path)
        except OSError:
            return os.path.join(base, *parts), None
        if stat.S_ISLNK(info.st_mode):
            return path, info
        if not last and real_directories is not None and stat.S_ISDIR(info.st_mode):
            real_directories.add(path)
    return path, info  # a string: a Path per file is a tenth of a fresh deploy's own work
