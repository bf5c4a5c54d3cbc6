"""Where a project's distributions come from: the newest version a requirement allows on the
index (locking), and a managed environment of one exact version whose wheel is the one the
lock names, SHA-256 checked (locking and syncing).

For ``uvx`` and ``script`` runners the environment is a *metadata* one (only the wheel's
``.dist-info``: the manifest and the skill files), for ``python`` a virtual environment —
resolved when locking, and when syncing made of exactly the files the lock pins. New
environments stay journaled until :meth:`Sources.close` commits them (a deployment uses them)
or abandons them (the command failed, or only locked).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.envs import http, provision, remote, simple
from agenttools_runtime.envs.deploying import collect_unused, managed_search, recover_environments
from agenttools_runtime.envs.envlock import environments_lock
from agenttools_runtime.envs.index import DEFAULT_INDEX, IndexOptions, is_url, redact
from agenttools_runtime.envs.installer import find_installer
from agenttools_runtime.envs.layout import ManagedEnvironment
from agenttools_runtime.envs.pylock import ResolvedDistribution
from agenttools_runtime.envs.receipt import METADATA, VENV
from agenttools_runtime.envs.requirement import parse_request
from agenttools_runtime.errors import (
    AgentToolsWarning,
    LockedFileNotServed,
    LockedHashMismatch,
    RemoteHashMismatch,
)
from agenttools_runtime.mcp.runners import uvx_sources
from agenttools_runtime.project_state.lockfile import (
    FIND_LINKS,
    LOCK_FILE,
    SIMPLE_API,
    LockedDistribution,
    Pin,
)


@dataclass(frozen=True, slots=True)
class Fetched:
    """One distribution at its locked version: the environment, its pin (the wheel the
    environment was made from), the source it came from (no credentials) and the kind of
    that source (``SIMPLE_API`` or ``FIND_LINKS``; None with no source), its dependencies'
    pins (virtual environments only)."""

    environment: ManagedEnvironment
    pin: Pin
    index: str | None
    index_kind: str | None
    dependencies: tuple[Pin, ...] = ()

    @property
    def search(self) -> SearchPath:
        return managed_search(self.environment)


@dataclass(slots=True)
class Sources:
    """The environments lock held, and the environments fetched under it (see the module
    docstring). Use as a context manager: on success :meth:`commit`, else everything new is
    abandoned."""

    options: IndexOptions
    said: list[AgentToolsWarning] = field(default_factory=list)
    _done: dict[tuple[str, str, str], tuple[Fetched, provision.Provision]] = field(
        default_factory=dict
    )
    _stack: ExitStack = field(default_factory=ExitStack)
    _committed: bool = False

    def __enter__(self) -> Sources:
        self._stack.enter_context(environments_lock())
        self.said.extend(recover_environments())
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if not self._committed:
                for _, done in self._done.values():
                    provision.abandon(done)
        finally:
            self._stack.close()

    def newest(self, requirement: Requirement) -> str:
        """The newest version of *requirement* on the index (no download)."""
        found = remote.find_wheel(
            requirement, self.options, timeout=http.timeout_from_environment()
        )
        return str(found.version)

    def exact(
        self,
        name: str,
        version: str,
        runner: str,
        *,
        sha256: str | None = None,
        options: IndexOptions | None = None,
    ) -> Fetched:
        """The environment of *name* == *version* for *runner*; with *sha256* (the lock's),
        its wheel must be that file: ``LockedHashMismatch`` otherwise. *options*: where to
        fetch from (else the project's options)."""
        layout_name = VENV if runner == "python" else METADATA
        key = (name, version, layout_name)
        if key in self._done:
            fetched = self._done[key][0]
        else:
            options = self.options if options is None else options
            request = parse_request(f"{name}=={version}")
            done = provision.provision(
                request, options, find_installer(None), layout_name=layout_name
            )
            fetched = _fetched(done.environment, name)
            if sha256 is not None and fetched.pin.sha256 != sha256 and not done.created:
                # (an environment made earlier from another file: fetch again, checked)
                done = provision.provision(
                    request, options, find_installer(None), layout_name=layout_name, reuse=False
                )
                fetched = _fetched(done.environment, name)
            self._done[key] = (fetched, done)
        if sha256 is not None and fetched.pin.sha256 != sha256:
            raise LockedHashMismatch(
                index=fetched.index or DEFAULT_INDEX,
                file=fetched.pin.wheel,
                served=fetched.pin.sha256,
                lock=LOCK_FILE,
                locked=sha256,
                distribution=name,
            )
        return fetched

    def locked(self, dist: LockedDistribution, runner: str, *, frozen: bool = False) -> Fetched:
        """*dist* as the lock has it. A virtual environment (``python``) whose lock pins its
        dependencies is made of exactly the pinned files — each found on the index by its
        file name, checked against the locked SHA-256 (``LockedHashMismatch``; a file the
        index no longer serves: ``LockedFileNotServed``) and installed without resolving;
        anything else as :meth:`exact`. *frozen*: fetched from the source the lock names
        (:meth:`_locked_source`), else from the project's options."""
        options = self._locked_source(dist.index, dist.index_kind) if frozen else self.options
        if runner != "python" or not dist.dependencies:
            return self.exact(
                dist.name, dist.pin.version, runner, sha256=dist.pin.sha256, options=options
            )
        key = (dist.name, dist.pin.version, VENV)
        if key in self._done:  # (locked in this run: the environment the lock was made from)
            return self.exact(dist.name, dist.pin.version, runner, sha256=dist.pin.sha256)
        request = parse_request(f"{dist.name}=={dist.pin.version}")
        installer = find_installer(None)
        pins = (dist.pin, *dist.dependencies)
        wanted = [ResolvedDistribution(p.name, p.version, p.wheel, p.sha256) for p in pins]
        found = provision.find_pinned(request, wanted, options, installer)
        if found is not None:
            done = provision.Provision(found, created=False)
        else:
            files = [self._locked_file(dist.pin, dist, options)]
            for pin in dist.dependencies:  # (frozen: each from its own source, as locked)
                where = self._locked_source(pin.index, pin.index_kind) if frozen else options
                files.append(self._locked_file(pin, dist, where))
            done = provision.provision_pinned(request, files, options, installer)
        fetched = _fetched(done.environment, dist.name)
        self._done[key] = (fetched, done)
        return fetched

    def _locked_file(
        self, pin: Pin, dist: LockedDistribution, options: IndexOptions
    ) -> tuple[ResolvedDistribution, Path]:
        """*pin*'s wheel on this machine (:func:`remote.download_wheel`: its hash checked there
        against the published one), which must be the locked file."""
        timeout = http.timeout_from_environment()
        version = Version(pin.version)
        served = [
            f
            for f in simple.project_files(pin.name, options, timeout=timeout)
            if f.filename == pin.wheel and (f.project_version or ("", None))[1] == version
        ]
        if not served:
            raise LockedFileNotServed(
                index=options.describe(), file=pin.wheel, lock=LOCK_FILE, distribution=dist.name
            )
        item = served[0]
        where = redact(item.source)

        def mismatch(served: str) -> LockedHashMismatch:
            return LockedHashMismatch(
                index=where,
                file=pin.wheel,
                served=served,
                lock=LOCK_FILE,
                locked=pin.sha256,
                distribution=dist.name,
            )

        if item.sha256 is not None and item.sha256.lower() != pin.sha256:
            raise mismatch(item.sha256.lower())
        try:  # (the file's hash is checked there, against the published one)
            wheel = remote.download_wheel(
                remote.RemoteWheel(pin.name, version, item), timeout=timeout
            )
        except RemoteHashMismatch as exc:
            raise mismatch(str(exc.data["actual"])) from None
        if wheel.sha256 != pin.sha256:
            raise mismatch(wheel.sha256)
        local = item.local_path
        made = ResolvedDistribution(
            pin.name,
            pin.version,
            pin.wheel,
            pin.sha256,
            url=None if local is not None else redact(item.url),
            path=None if local is None else str(local),
            index=where,
        )
        return made, wheel.path

    def commit(self) -> None:
        """The deployments made use the new environments: their journals end; what no
        deployment uses any more goes."""
        for _, done in self._done.values():
            self.said.extend(provision.commit(done))
        self._committed = True
        self.said.extend(collect_unused())

    def _locked_source(self, index: str | None, kind: str | None) -> IndexOptions:
        """The options to fetch a locked file from the source the lock names for it,
        *index* of the kind *kind* (none named: the project's options): a find-links
        location as find-links with no index, a simple-API index as the index. A lock that
        does not say the kind (from an earlier agenttools): a local directory or ``file:``
        URL, or a location the options given name as find-links, is find-links, anything
        else an index."""
        if index is None:
            return self.options
        given = IndexOptions.from_sources()
        if kind is None:
            links = {redact(f) for f in given.find_links}
            local = not is_url(index) or index.startswith("file:")
            kind = FIND_LINKS if local or index in links else SIMPLE_API
        if kind == FIND_LINKS:
            locked = IndexOptions(find_links=(index,), no_index=True)
        else:
            locked = IndexOptions(index_url=index)
        return locked.with_credentials_of(given)


@contextmanager
def entries_from(fetched: Fetched) -> Iterator[None]:
    """``uvx`` entries written in the block install from the source *fetched* came from (the
    locked one): ``--find-links LOCATION`` for a find-links location, ``--default-index URL``
    for an index (nothing for the default index), so that they are the same on every
    machine."""
    index = fetched.index
    arguments: tuple[str, ...] = ()
    if index is not None and fetched.index_kind == FIND_LINKS:
        arguments = ("--find-links", redact(index))
    elif index is not None and index.rstrip("/") != DEFAULT_INDEX.rstrip("/"):
        arguments = ("--default-index", redact(index))
    with uvx_sources(arguments):
        yield


def _fetched(environment: ManagedEnvironment, name: str) -> Fetched:
    r = environment.receipt
    assert r is not None
    own = next((d for d in r.resolved if d.name == name), r.resolved[0])

    def source(d: ResolvedDistribution) -> tuple[str | None, str | None]:
        """Where *d*'s file came from, as its receipt says (one made before it said: the
        index of the environment's options), and the kind of that source."""
        index = d.index or r.index.index_url
        if index is None:
            return None, None
        # (one of the find-links the environment was made with, or an index)
        return index, FIND_LINKS if index in r.index.find_links else SIMPLE_API

    pins = tuple(
        Pin(d.name, d.version, d.file or "", d.sha256 or "", *source(d))
        for d in sorted(r.resolved, key=lambda d: d.name)
        if d.name != name and d.file and d.sha256
    )
    pin = Pin(name, r.version, own.file or "", own.sha256 or "")
    return Fetched(environment, pin, *source(own), pins if r.layout == VENV else ())
