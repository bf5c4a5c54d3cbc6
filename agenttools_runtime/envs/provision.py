"""Getting a managed environment for a request: the one a previous run of the same request made
(found by its key, no index asked), else a new one — resolved by the installer into a lock
file, created at its final path, installed from exactly that lock (hashes checked), checked to
ship agent tools, and committed by writing its receipt. A new environment is journaled from
before it exists until the caller's deployment references it (:func:`commit`) or the caller
gives up (:func:`abandon`); a process killed in between leaves it to the next command's
recovery. Call everything here with the environments lock held.

A *metadata* environment (``--runner uvx``) is no virtual environment: only the wheel's
``.dist-info`` in ``<env>/site-packages``, what deployments and their status read.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name, parse_wheel_filename

from agenttools_runtime import fs
from agenttools_runtime.envs import installer as installers
from agenttools_runtime.envs import journal, layout, pylock, receipt
from agenttools_runtime.envs.envlock import environments_lock_held
from agenttools_runtime.envs.index import IndexOptions, redact, redact_text
from agenttools_runtime.envs.installer import Installer
from agenttools_runtime.envs.layout import ManagedEnvironment
from agenttools_runtime.envs.pylock import ResolvedDistribution
from agenttools_runtime.envs.receipt import METADATA, VENV, Receipt
from agenttools_runtime.envs.refs import references, release_unused, remove_environment
from agenttools_runtime.envs.requirement import InstallRequest
from agenttools_runtime.errors import (
    InstallerFailed,
    ManagedEnvironmentKept,
    ManagedEnvironmentRemoved,
    NoAgentTools,
    ReceiptNotReproducible,
)
from agenttools_runtime.wheel import layout as wheel_layout


@dataclass(frozen=True, slots=True)
class Provision:
    """An environment to deploy from: ``created`` (new: ``entry`` is its open journal) or
    reused."""

    environment: ManagedEnvironment
    created: bool
    entry: journal.EnvironmentJournal | None = None


@dataclass(frozen=True, slots=True)
class Identity:
    """What a request is, for its key: the request as it is identified, and for a wheel file
    its hash."""

    text: str
    source_sha256: str | None


def identity(request: InstallRequest) -> Identity:
    if request.kind == "wheel" and request.path is not None:
        digest = _file_sha256(request.path)
        return Identity(f"{request.name} @ sha256:{digest}", digest)
    return Identity(request.text, None)


def provision(
    request: InstallRequest,
    options: IndexOptions,
    installer: Installer,
    *,
    layout_name: str = VENV,
    replaces: Sequence[str] = (),
    reuse: bool = True,
) -> Provision:
    """An environment for *request* (see the module docstring); *reuse* False: resolve
    again (an upgrade), reusing only an environment of the version resolved. Raises
    ``InstallerFailed``, ``NoAgentTools``, what the index lookups raise; nothing is left of
    a new environment when it fails."""
    assert environments_lock_held()
    ident = identity(request)
    key = layout.request_key(ident.text, options, installer.name, layout_name)
    if reuse:  # the newest complete, usable environment made for the key (no index asked)
        busy = journal.busy()
        existing = layout.newest(lambda name, r, _: r.key == key and name not in busy)
        if existing is not None:
            return Provision(existing, created=False)
    staging = _staging()
    try:
        build = _metadata if layout_name == METADATA else _venv
        path, fill = build(request, options, installer, key, ident, staging)
        present = _complete_at(path, key)
        if present is not None:
            return Provision(present, created=False)
        return _create(path, replaces, fill)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def provision_pinned(
    request: InstallRequest,
    pinned: Sequence[tuple[ResolvedDistribution, Path]],
    options: IndexOptions,
    installer: Installer,
) -> Provision:
    """A virtual environment of exactly *pinned* — each distribution with its wheel file on
    this machine, already checked against its SHA-256 — for *request* (an ``==`` pin of one
    of them): nothing is resolved, no other version or distribution is installed, and the
    installer checks every file's hash again (:func:`find_pinned` first finds one made
    already). Raises ``InstallerFailed``, ``NoAgentTools``; nothing is left when it fails."""
    assert environments_lock_held()
    resolved = tuple(sorted((d for d, _ in pinned), key=lambda d: d.name))
    key = _pinned_key(request, resolved, options, installer)
    version = _version_in(resolved, installer, request)
    path = layout.environment_path(request.name, version, key)
    if path.exists():
        remove_environment(path)  # (a leftover nothing journals: not usable)
    lines = [f"{d.name} @ {file.resolve().as_uri()} --hash=sha256:{d.sha256}" for d, file in pinned]

    def fill() -> Receipt:
        installers.create_venv(installer, path)
        python = ManagedEnvironment(path, None).python
        installers.install_pinned(
            installer, python, lines, options, require_hashes=True, what=request.describe()
        )
        fs.checkpoint("envs.installed", path)
        _require_agent_tools(layout.site_packages(path), request.name, version)
        source_sha = identity(request).source_sha256
        return _receipt(
            request, options, installer, key, request.name, version, resolved, VENV, source_sha
        )

    return _create(path, (), fill)


def find_pinned(
    request: InstallRequest,
    pinned: Sequence[ResolvedDistribution],
    options: IndexOptions,
    installer: Installer,
) -> ManagedEnvironment | None:
    """The usable environment of *request* whose receipt lists exactly the distributions
    and files *pinned* does (``name``, ``version``, ``sha256``), made by a resolution of the
    request or by :func:`provision_pinned`; None when there is none (no index is asked)."""
    wanted = {(d.name, d.version, d.sha256) for d in pinned}
    plain = layout.request_key(identity(request).text, options, installer.name, VENV)
    key = _pinned_key(request, pinned, options, installer)
    busy = journal.busy()

    def same(name: str, r: Receipt, _: object) -> bool:
        files = {(d.name, d.version, d.sha256) for d in r.resolved}
        return r.key in (plain, key) and name not in busy and r.layout == VENV and files == wanted

    return layout.newest(same)


def _pinned_key(
    request: InstallRequest,
    pinned: Sequence[ResolvedDistribution],
    options: IndexOptions,
    installer: Installer,
) -> str:
    files = sorted(f"{d.name}=={d.version}:{d.sha256}" for d in pinned)
    pins = hashlib.sha256("\n".join(files).encode("utf-8")).hexdigest()
    text = f"{request.text} pinned sha256:{pins}"
    return layout.request_key(text, options, installer.name, VENV)


def resolve_only(
    request: InstallRequest, options: IndexOptions, installer: Installer
) -> tuple[str, tuple[ResolvedDistribution, ...]]:
    """What *request* resolves to now — its distribution's version and every distribution
    with its file and hash — without creating anything (a ``--dry-run``, an upgrade's plan).
    Call with the environments lock held (the staging directory)."""
    staging = _staging()
    try:
        _, resolved, _ = _resolve(request, options, installer, identity(request), staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _version_in(resolved, installer, request), resolved


def commit(done: Provision) -> list[ManagedEnvironmentRemoved | ManagedEnvironmentKept]:
    """The caller's deployment references the environment: the journal ends, and the
    environments it replaces go when nothing uses them."""
    if done.entry is None:
        return []
    journal.end(done.entry)
    return release_unused(done.entry.replaces, reason="replaced by " + done.environment.name)


def abandon(done: Provision) -> None:
    """The caller could not deploy from a new environment: it goes (unless a deployment
    references it after all), and its journal with it."""
    if done.entry is None:
        return
    if done.environment.path.is_dir() and not references().used(done.environment.name):
        remove_environment(done.environment.path)
    journal.end(done.entry)


def rebuild(env: ManagedEnvironment) -> ManagedEnvironment:
    """Make *env* again at its own path from its receipt: the same distributions, versions and
    files (hashes checked), with the installer it was made with. Raises
    ``ReceiptNotReproducible``, ``InstallerFailed``."""
    assert environments_lock_held()
    r = env.receipt
    if r is None:
        raise ReceiptNotReproducible(name=env.name, reason=env.problem or "it has no receipt")
    installer = installers.find_installer(r.installer)
    for item in r.resolved:
        if item.path is not None and not os.path.isfile(item.path):
            raise ReceiptNotReproducible(
                name=env.name, reason=f"the file {item.path} it was installed from is gone"
            )
    entry = journal.begin(journal.REBUILD, env.name, receipt=r.to_json())
    try:
        if env.path.exists():
            remove_environment(env.path)
        fs.checkpoint("envs.rebuild", env.path)
        if r.layout == METADATA:
            wheel = next((Path(d.path) for d in r.resolved if d.path), None)
            if wheel is None:
                raise ReceiptNotReproducible(name=env.name, reason="it names no wheel file")
            _unpack_dist_info(wheel, env.path / layout.METADATA_SITE)
        else:
            installers.create_venv(installer, env.path)
            lines, hashed = pylock.hashed_requirements(r.resolved)
            options = r.index.with_credentials_of(IndexOptions.from_sources())
            python = layout.ManagedEnvironment(env.path, r).python
            installers.install_pinned(
                installer, python, lines, options, require_hashes=hashed, what=r.requirement
            )
        receipt.write(env.path, r)
    except BaseException:
        if env.path.exists() and layout.load(env.path).receipt is None:
            remove_environment(env.path)
            fs.mkdir(env.path)
            receipt.write(env.path, r)  # (as before: doctor finds it again)
        journal.end(entry)
        raise
    journal.end(entry)
    return layout.load(env.path)


# -- building ----------------------------------------------------------------------------------


def _venv(
    request: InstallRequest,
    options: IndexOptions,
    installer: Installer,
    key: str,
    ident: Identity,
    staging: Path,
) -> tuple[Path, Callable[[], Receipt]]:
    """Where the virtual environment of *request* goes, resolved now (the lock file in
    *staging*), and what fills it there."""
    text, resolved, source_sha = _resolve(request, options, installer, ident, staging)
    version = _version_in(resolved, installer, request)
    path = layout.environment_path(request.name, version, key)

    def fill() -> Receipt:
        installers.create_venv(installer, path)
        fs.checkpoint("envs.created", path)
        python = ManagedEnvironment(path, None).python
        lock_file = staging / receipt.LOCK_FILE
        installers.install_locked(installer, python, lock_file, options, what=request.describe())
        fs.checkpoint("envs.installed", path)
        _require_agent_tools(layout.site_packages(path), request.name, version)
        fs.write_bytes_atomic(path / receipt.LOCK_FILE, redact_text(text).encode("utf-8"))
        sourced = _with_sources(resolved, options)
        return _receipt(
            request, options, installer, key, request.name, version, sourced, VENV, source_sha
        )

    return path, fill


def _metadata(
    request: InstallRequest,
    options: IndexOptions,
    installer: Installer,
    key: str,
    ident: Identity,
    staging: Path,
) -> tuple[Path, Callable[[], Receipt]]:
    """Where the metadata environment of *request* goes, its wheel found (downloaded into
    the cache, or built), and what fills it there."""
    from agenttools_runtime.envs import http, remote

    index = url = None
    if request.kind == "index":
        assert request.requirement is not None
        timeout = http.timeout_from_environment()
        found = remote.find_wheel(request.requirement, options, timeout=timeout)
        downloaded = remote.download_wheel(found, timeout=timeout)  # (its hash checked)
        wheel, digest = downloaded.path, downloaded.sha256
        index, url = redact(found.file.source), redact(found.file.url)
    else:
        local = _local_wheel(request, options, installer, ident, staging)
        assert local is not None
        wheel, digest = local
    dist, version = map(str, parse_wheel_filename(wheel.name)[:2])
    path = layout.environment_path(dist, version, key)
    resolved = (
        ResolvedDistribution(
            dist, version, wheel.name, digest, url=url, path=str(wheel), index=index
        ),
    )

    def fill() -> Receipt:
        site = path / layout.METADATA_SITE
        _unpack_dist_info(wheel, site)
        _require_agent_tools(site, dist, version)
        source_sha = None if request.kind == "index" else digest
        return _receipt(
            request, options, installer, key, dist, version, resolved, METADATA, source_sha
        )

    return path, fill


def _complete_at(path: Path, key: str) -> ManagedEnvironment | None:
    """The complete environment of *key* at *path* (made by an earlier run of the request),
    else None, with whatever else is there removed (a leftover nothing journals: not
    usable)."""
    if not path.is_dir():
        return None
    present = layout.load(path)
    r = present.receipt
    if r is not None and r.key == key and (r.layout != VENV or present.python.exists()):
        return present
    remove_environment(path)
    return None


def _create(path: Path, replaces: Sequence[str], fill: Callable[[], Receipt]) -> Provision:
    """A new environment at *path*: journaled (replacing *replaces*) from before it exists;
    *fill* makes its contents and returns its receipt, whose write commits it. On any failure
    what was made goes, and the journal with it."""
    name = path.name
    entry = journal.begin(journal.INSTALL, name, replaces=tuple(n for n in replaces if n != name))
    try:
        fs.checkpoint("envs.create", path)
        made = fill()
        receipt.write(path, made)
        fs.checkpoint("envs.receipt", path)
    except BaseException:
        _undo(path, entry)
        raise
    return Provision(ManagedEnvironment(path, made), created=True, entry=entry)


def _resolve(
    request: InstallRequest,
    options: IndexOptions,
    installer: Installer,
    ident: Identity,
    staging: Path,
) -> tuple[str, tuple[ResolvedDistribution, ...], str | None]:
    """The installer's resolution of *request* into the lock file in *staging*: its text,
    what it lists, and the hash of the wheel a file or directory request installs.
    When the installer fails and an index it was given cannot be reached, that is the error
    (``IndexUnreachable`` naming it), not the installer's words."""
    local = _local_wheel(request, options, installer, ident, staging)
    line = request.text if local is None else f"{request.name} @ {local[0].as_uri()}"
    lock_file = staging / receipt.LOCK_FILE
    try:
        installers.lock(installer, [line], options, lock_file, what=request.describe())
    except InstallerFailed:
        _probe(options)
        raise
    text = lock_file.read_text(encoding="utf-8")
    try:
        return text, pylock.read(text, staging), None if local is None else local[1]
    except pylock.LockFileError as exc:
        reason = f"its lock file cannot be read: {exc}"
        raise installer.failed("resolve", request.describe(), reason) from None


def _with_sources(
    resolved: tuple[ResolvedDistribution, ...], options: IndexOptions
) -> tuple[ResolvedDistribution, ...]:
    """*resolved* with the find-links location or index each file came from, which the
    installer's lock does not say (:func:`simple.with_sources`): what a project's lock names
    and a frozen sync fetches from."""
    from agenttools_runtime.envs import http, simple

    return simple.with_sources(resolved, options, timeout=http.timeout_from_environment())


def _probe(options: IndexOptions) -> None:
    """Raise ``IndexUnreachable`` for the first index of *options* that does not answer."""
    from agenttools_runtime.envs import http

    timeout = min(http.timeout_from_environment(), 10.0)
    for url in options.indexes if options.index_url or options.extra_index_urls else ():
        http.get(url.rstrip("/") + "/", index=url, timeout=timeout)


def _version_in(
    resolved: Sequence[ResolvedDistribution], installer: Installer, request: InstallRequest
) -> str:
    version = next((d.version for d in resolved if d.name == request.name), None)
    if version is None:
        reason = f"{request.name} is not in the resolution"
        raise installer.failed("resolve", request.describe(), reason)
    return version


def _local_wheel(
    request: InstallRequest,
    options: IndexOptions,
    installer: Installer,
    ident: Identity,
    staging: Path,
) -> tuple[Path, str] | None:
    """The wheel a file or directory request installs, and its hash: the file's, or the one
    built from the directory, which goes into the cache (None: an index request)."""
    if request.kind == "index":
        return None
    assert request.path is not None
    if request.kind == "wheel":
        assert ident.source_sha256 is not None
        return request.path, ident.source_sha256
    built = installers.build_wheel(installer, request.path, staging / "wheel", options)
    digest = _file_sha256(built)
    from agenttools_runtime.envs.remote import cache_dir

    kept = cache_dir() / "built" / digest / built.name
    if not kept.is_file():
        fs.mkdir(kept.parent)
        fs.copy_file(built, kept)
    return kept, digest


def _receipt(
    request: InstallRequest,
    options: IndexOptions,
    installer: Installer,
    key: str,
    distribution: str,
    version: str,
    resolved: tuple[ResolvedDistribution, ...],
    layout_name: str,
    source_sha: str | None,
) -> Receipt:
    return Receipt(
        requirement=request.text,
        kind=request.kind,
        distribution=distribution,
        version=version,
        key=key,
        index=options.redacted(),
        interpreter=sys.executable,
        python_version=platform.python_version(),
        installer=installer.name,
        installer_version=installer.version,
        resolved=resolved,
        layout=layout_name,
        source_sha256=source_sha,
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )


def _require_agent_tools(site: Path, distribution: str, version: str) -> None:
    """``NoAgentTools`` unless *distribution*'s ``.dist-info`` in *site* has a manifest."""
    wanted = canonicalize_name(distribution)
    for entry in os.scandir(site) if site.is_dir() else ():
        if not entry.name.endswith(".dist-info"):
            continue
        stem = entry.name[: -len(".dist-info")]
        project = stem.rpartition("-")[0] if "-" in stem else stem
        if canonicalize_name(project) == wanted:
            if os.path.isfile(os.path.join(entry.path, *wheel_layout.MANIFEST_FILE.split("/"))):
                return
            break
    raise NoAgentTools(distribution=distribution, version=version)


def _unpack_dist_info(wheel: Path, site: Path) -> None:
    from agenttools_runtime.envs.remote import dist_info_members

    for name, data in sorted(dist_info_members(wheel).items()):
        if ".." in name.split("/"):
            continue
        target = site.joinpath(*name.split("/"))
        fs.mkdir(target.parent)
        fs.write_bytes_atomic(target, data)


def _undo(path: Path, entry: journal.EnvironmentJournal) -> None:
    if path.exists():
        try:
            remove_environment(path)
        except OSError:
            return  # (the journal stays: the next command removes it)
    journal.end(entry)


def _staging() -> Path:
    layout.empty_staging()
    path = layout.staging_dir() / f"{os.getpid()}-{os.urandom(4).hex()}"
    fs.mkdir(path)
    return path


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
