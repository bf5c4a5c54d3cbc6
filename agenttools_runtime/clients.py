"""The client table (``clients.json``, shipped in the package) and location helpers.

Every location is computed from ``Path.home()`` when it is asked for, so tests isolate by
setting ``HOME``. Clients are looked up by id (``claude-code``), by the spec's CamelCase name
(``ClaudeCode``) or by an alias (``VSCode``), case-insensitively.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from agenttools_runtime import errors
from agenttools_runtime.errors import (
    AgentToolsError,
    ClientError,
    InvalidProjectDirectory,
    UnknownInstallLocation,
    UnknownSkillsLocation,
    UnsupportedMCPClient,
    UnsupportedMCPClientProject,
    UnsupportedSkillsClient,
    UnsupportedSkillsClientProject,
)
from agenttools_runtime.paths import canonical_path_key
from agenttools_runtime.suggest import did_you_mean

if TYPE_CHECKING:
    OSName = Literal["macos", "windows", "unix"]
    ConfigFormat = Literal["json", "toml", "yaml"]

_T = TypeVar("_T")

_OS_ALIASES: dict[str, OSName] = {
    "macos": "macos",
    "macosx": "macos",
    "darwin": "macos",
    "mac": "macos",
    "osx": "macos",
    "windows": "windows",
    "win32": "windows",
    "win": "windows",
    "nt": "windows",
    "unix": "unix",
    "linux": "unix",
    "posix": "unix",
}
OS_DISPLAY: dict[OSName, str] = {"macos": "macOS", "windows": "Windows", "unix": "Unix"}


def normalize_os(os_name: str | None = None) -> OSName:
    """``None`` → this machine's OS; accepts ``macos``/``darwin``, ``windows``/``win32``,
    ``unix``/``linux`` (any other Unix-like platform counts as ``unix``)."""
    if os_name is None:
        os_name = sys.platform
    key = os_name.lower()
    if key in _OS_ALIASES:
        return _OS_ALIASES[key]
    if key.startswith(("linux", "freebsd", "openbsd", "netbsd", "sunos", "aix", "cygwin")):
        return "unix"
    raise ValueError(f"unknown operating system {os_name!r}; use macos, windows or unix")


@dataclass(frozen=True, slots=True)
class SkillReads:
    """The skills roots a client reads (not only the one agenttools writes), as table data:
    ``user`` locations (home-relative, in any form ``skills`` takes) and ``project`` paths
    (project-relative), in the client's order of precedence where it is known. How they were
    checked: ``by`` ``"running"`` the real client (``verified``: its version), ``"reading"``
    its docs or source (``verified``: the version read, when one was), or ``"spec"`` (only the
    behaviour spec's table, not checked against the client); ``checked`` the date of that
    check, ``how`` what showed them, ``duplicates`` what the client does with one skill name
    in two of them."""

    user: tuple[Any, ...]
    project: tuple[tuple[str, ...], ...]
    source: str
    by: str = "spec"
    checked: str | None = None
    verified: str | None = None
    how: str | None = None
    duplicates: str | None = None
    note: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SkillReads:
        project = tuple(tuple(p) for p in data["project"])
        return cls(**{**data, "user": tuple(data["user"]), "project": project})


@dataclass(frozen=True, slots=True)
class Client:
    """One AI client: where its MCP config file and skills directories are, and the shape of
    the entries it reads. Locations are raw table data; use the module's functions to turn
    them into paths."""

    id: str
    name: str
    display_name: str
    aliases: tuple[str, ...]
    url: str
    config_format: ConfigFormat
    container: tuple[str, ...]
    entry_style: str
    mcp_config: Any = field(repr=False)
    project_mcp_config: tuple[str, ...] | None
    skills: Any = field(repr=False)
    project_skills: tuple[str, ...] | None
    # {"executables": [...], "folders": [location, ...]}: how to tell it is installed here
    traces: Any = field(default=None, repr=False)
    # {"follows": false, "verified", "source"}: whether it loads a skill folder that is a link
    skill_links: Any = field(default=None, repr=False)
    skill_reads: SkillReads | None = field(default=None, repr=False)
    # how a project file refers to a secret in the client's environment (table data)
    secret_reference: Any = field(default=None, repr=False)

    @property
    def supports_mcp(self) -> bool:
        return self.mcp_config is not None

    @property
    def supports_project(self) -> bool:
        """Project-scope MCP config (the spec's ``ProjectSupport``)."""
        return self.project_mcp_config is not None

    @property
    def supports_skills(self) -> bool:
        return self.skills is not None

    @property
    def supports_project_skills(self) -> bool:
        return self.project_skills is not None

    @property
    def follows_skill_links(self) -> bool | None:
        """False when the client is known not to load a skill folder that is a symbolic
        link (``skill_links`` in the table, with its source); None when not known."""
        if not self.skill_links:
            return None
        return bool(self.skill_links.get("follows"))

    def __str__(self) -> str:
        return self.display_name

    def to_json(self, os_name: str | None = None) -> dict[str, Any]:
        """The row ``agenttools clients --json`` prints (locations for *os_name*)."""
        osn = normalize_os(os_name)
        return {
            "id": self.id,
            "name": self.name,
            "display_name": self.display_name,
            "aliases": list(self.aliases),
            "config_format": self.config_format,
            "container": list(self.container),
            "supports_mcp": self.supports_mcp,
            "supports_project": self.supports_project,
            "supports_skills": self.supports_skills,
            "supports_project_skills": self.supports_project_skills,
            "mcp_config": located(lambda: str(mcp_config_location(self, osn))),
            "project_mcp_config": _join(self.project_mcp_config),
            "skills": located(lambda: str(skills_location(self, osn))),
            "project_skills": _join(self.project_skills),
            "skill_reads": located(lambda: [str(p) for p in skill_read_locations(self, osn)]),
            "project_skill_reads": (
                None if self.skill_reads is None else [_join(p) for p in self.skill_reads.project]
            ),
            "url": self.url,
        }


class ClientTable(Mapping[str, Client]):
    """Read-only mapping id → :class:`Client`, sorted by id."""

    def __init__(self, clients: Sequence[Client]) -> None:
        self._clients = {c.id: c for c in sorted(clients, key=lambda c: c.id)}
        self._lookup: dict[str, str] = {}
        for client in self._clients.values():
            for key in (client.id, client.name, *client.aliases):
                self._lookup[_fold(key)] = client.id

    def __getitem__(self, key: str) -> Client:
        return self._clients[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._clients)

    def __len__(self) -> int:
        return len(self._clients)

    def find(self, name: str) -> Client | None:
        client_id = self._lookup.get(_fold(name))
        return None if client_id is None else self._clients[client_id]


def _fold(name: str) -> str:
    return name.casefold().replace("-", "").replace("_", "").replace(" ", "")


@cache
def all_clients() -> ClientTable:
    """``SUPPORTED_CLIENTS``: every client, by id."""
    # beside this module, like the built-in skills (importlib.resources costs more start-up
    # time than the rest of `agenttools clients`)
    with open(os.path.join(os.path.dirname(__file__), "clients.json"), encoding="utf-8") as f:
        data = json.load(f)
    return ClientTable([_client(row) for row in data["clients"]])


def _client(row: Mapping[str, Any]) -> Client:
    """A row of the table: its fields by name, its lists as tuples."""
    reads = row.get("skill_reads")
    paths = {
        name: None if row.get(name) is None else tuple(row[name])
        for name in ("aliases", "container", "project_mcp_config", "project_skills")
    }
    return Client(
        **{**row, **paths, "skill_reads": None if reads is None else SkillReads.from_json(reads)}
    )


def __getattr__(name: str) -> Any:
    # The tables are data files read on first use, not at import (CLI start-up time).
    if name == "SUPPORTED_CLIENTS":
        return all_clients()
    if name == "SUPPORTED_MCP_CLIENTS":
        return {k: c for k, c in all_clients().items() if c.supports_mcp}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_client(client: str | Client) -> Client:
    """Look a client up by id, CamelCase name or alias, case-insensitively.

    Raises ``UnknownClient`` (listing the ids) for anything else.
    """
    if isinstance(client, Client):
        return client
    table = all_clients()
    found = table.find(client)
    if found is None:
        spellings = {k: c.id for c in table.values() for k in (c.id, c.name, *c.aliases)}
        hint = did_you_mean(client, spellings)
        raise errors.UnknownClient(client=client, known=list(table), hint=hint)
    return found


# -- locations -------------------------------------------------------------------------------


def mcp_config_location(client: str | Client, os: str | None = None) -> Path:
    """The client's user-scope MCP config file on *os* (default: this machine's).

    Raises ``UnsupportedMCPClient`` when the client has no MCP config, and
    ``UnknownInstallLocation`` when it has none on that OS.
    """
    c = get_client(client)
    return _user_location(c, c.mcp_config, os, UnsupportedMCPClient, UnknownInstallLocation)


def project_mcp_config_location(client: str | Client, directory: Path | str) -> Path:
    """The client's project-scope MCP config file inside *directory*.

    Raises ``UnsupportedMCPClientProject`` or ``InvalidProjectDirectory``.
    """
    c = get_client(client)
    return _project_location(c, c.project_mcp_config, directory, UnsupportedMCPClientProject)


def skills_location(client: str | Client, os: str | None = None) -> Path:
    """The client's user-scope skills root (the directory holding skill folders) on *os*.

    Raises ``UnsupportedSkillsClient`` or ``UnknownSkillsLocation``.
    """
    c = get_client(client)
    return _user_location(c, c.skills, os, UnsupportedSkillsClient, UnknownSkillsLocation)


def project_skills_location(client: str | Client, directory: Path | str) -> Path:
    """The client's project-scope skills root inside *directory*.

    Raises ``UnsupportedSkillsClientProject`` or ``InvalidProjectDirectory``.
    """
    c = get_client(client)
    return _project_location(c, c.project_skills, directory, UnsupportedSkillsClientProject)


def check_skills_root(root: Path) -> None:
    """A skills root holds skill folders: ``InvalidSkillsDirectory`` when it is a file or
    itself a skill."""
    if (os.path.lexists(root) and not root.is_dir()) or (root / "SKILL.md").exists():
        raise errors.InvalidSkillsDirectory(path=root)


def skill_read_locations(client: str | Client, os: str | None = None) -> list[Path]:
    """Every user-scope skills root the client reads on *os*, its own (the one agenttools
    writes) first, then the others in the client's order; roots it has none of on that OS
    are left out. Raises ``UnsupportedSkillsClient`` or ``UnknownSkillsLocation`` as
    :func:`skills_location` does."""
    c = get_client(client)
    own = skills_location(c, os)
    if c.skill_reads is None:
        return [own]
    osn = normalize_os(os)
    resolved = (_resolve_location(spec, osn) for spec in c.skill_reads.user)
    found = [own, *(_home_join(parts) for parts in resolved if parts is not None)]
    return list(dict.fromkeys(found))  # (without repeats, in order)


def project_skill_read_locations(client: str | Client, directory: Path | str) -> list[Path]:
    """Every project-scope skills root the client reads inside *directory*, its own first.
    Raises as :func:`project_skills_location`."""
    c = get_client(client)
    own = project_skills_location(c, directory)
    if c.skill_reads is None:
        return [own]
    base = project_directory(directory)
    found = [own, *(base.joinpath(*rel) for rel in c.skill_reads.project)]
    return list(dict.fromkeys(found))


def client_for_config_file(path: Path | str) -> tuple[Client, Path | None] | None:
    """The client whose config file *path* is, by exact location only (never by format):
    ``(client, None)`` when it is the client's user-scope file on this OS, ``(client,
    project_dir)`` when the path ends with the client's project config path. ``None`` when no
    client matches."""
    key = canonical_path_key(path)
    table = all_clients()
    for c in table.values():
        try:
            if canonical_path_key(mcp_config_location(c)) == key:
                return c, None
        except (UnsupportedMCPClient, UnknownInstallLocation):
            pass
    target = Path(os.path.abspath(path))
    for c in table.values():
        rel = c.project_mcp_config
        if rel is None or len(target.parts) <= len(rel):
            continue
        if tuple(target.parts[-len(rel) :]) == rel:
            return c, target.parents[len(rel) - 1]
    return None


def trace_folders(client: Client, os_name: str | None = None) -> list[Path]:
    """The folders of *client*'s ``traces`` on *os_name* (default: this machine's)."""
    osn = normalize_os(os_name)
    resolved = (_resolve_location(spec, osn) for spec in (client.traces or {}).get("folders", ()))
    return [_home_join(parts) for parts in resolved if parts is not None]


def _resolve_location(spec: Any, osn: OSName) -> list[str] | None:
    if spec is None:
        return None
    if isinstance(spec, list):
        return [str(part) for part in spec]
    if "if_exists" in spec:
        marker = _home_join(spec["if_exists"])
        return _resolve_location(spec["then"] if marker.exists() else spec["else"], osn)
    value = spec.get(osn)
    return None if value is None else list(value)


def _user_location(
    c: Client,
    spec: Any,
    os: str | None,
    unsupported: type[ClientError],
    unknown: type[ClientError],
) -> Path:
    """The user-scope location *spec* (a column of the client table) on *os*: ``unsupported``
    when the client has none at all, ``unknown`` when it has none on that OS."""
    if spec is None:
        raise unsupported(client_name=c.display_name, client=c.id)
    osn = normalize_os(os)
    parts = _resolve_location(spec, osn)
    if parts is None:
        raise unknown(client_name=c.display_name, os_name=OS_DISPLAY[osn], client=c.id, os=osn)
    return _home_join(parts)


def _project_location(
    c: Client, parts: Sequence[str] | None, directory: Path | str, unsupported: type[ClientError]
) -> Path:
    """The project-scope location *parts* inside *directory*; ``unsupported`` when none."""
    if parts is None:
        raise unsupported(client_name=c.display_name, client=c.id)
    return project_directory(directory).joinpath(*parts)


def _home_join(parts: Sequence[str]) -> Path:
    return Path.home().joinpath(*parts)


def project_directory(directory: Path | str) -> Path:
    """*directory* made absolute (``~`` expanded); ``InvalidProjectDirectory`` when it is not
    a directory."""
    path = Path(directory).expanduser()
    if not path.is_dir():
        raise InvalidProjectDirectory(directory=directory)
    return path.absolute()


def _join(parts: Sequence[str] | None) -> str | None:
    return None if parts is None else "/".join(parts)


def located(locate: Callable[[], _T]) -> _T | None:
    """What *locate* returns, or None where the client has no such location (it raised an
    ``AgentToolsError``: unsupported, or unknown on that OS)."""
    try:
        return locate()
    except AgentToolsError:
        return None
