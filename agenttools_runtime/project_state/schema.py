"""``agenttools.toml``: what a project wants — the one typed schema that reading, validation,
the published JSON schema and the reference page (docs/gen_project_schema.py) all come from.

Every problem is collected, then one ``ProjectFileInvalid`` lists them, each as
``FILE:LINE: KEY: what is wrong`` (with a "did you mean" for an unknown key); a file that is
not TOML is one such line, at the parser's position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from agenttools_runtime import regular_files
from agenttools_runtime.errors import ProjectFileInvalid
from agenttools_runtime.project_state import rawfile
from agenttools_runtime.suggest import did_you_mean
from agenttools_runtime.toml_text import KeyPath, TomlLines, format_key

RUNNERS = ("uvx", "script", "python")
PORTABLE_RUNNERS = ("uvx", "script")
SCOPES = ("project", "user")


@dataclass(frozen=True, slots=True)
class Key:
    """One key of a table: its TOML type (``string``, ``array`` of strings), whether it must
    be there, its choices and default, and what it means (the docs' sentence)."""

    name: str
    type: str
    description: str
    required: bool = False
    choices: tuple[str, ...] = ()
    default: str | None = None


TOP_KEYS = (
    Key(
        "clients",
        "array",
        "The clients every bundle is deployed to (ids as 'agenttools clients' lists them), "
        "unless a bundle names its own.",
    ),
    Key(
        "index-url",
        "string",
        "The package index to resolve and download from (a simple index URL, no credentials: "
        "give those by PIP_INDEX_URL or netrc). Default: pip's and uv's own configuration, "
        "else PyPI.",
    ),
    Key("extra-index-urls", "array", "More indexes, looked in after index-url."),
    Key(
        "runner",
        "string",
        "How module and script servers are written into project-scope config files, unless a "
        "bundle says: 'uvx' (a pinned 'uvx --from DIST==X' line, portable) or 'script' (the "
        "console script, found on the client's PATH).",
        choices=PORTABLE_RUNNERS,
        default="uvx",
    ),
)

BUNDLE_KEYS = (
    Key(
        "requirement",
        "string",
        "The distribution and the versions allowed (PEP 508: 'weather-tools>=1.2').",
        required=True,
    ),
    Key(
        "bundles",
        "array",
        "The bundles of that distribution to deploy. Default: its only bundle (an error when "
        "it has several).",
    ),
    Key(
        "clients",
        "array",
        "The clients this bundle is deployed to, instead of [agenttools] clients.",
    ),
    Key(
        "runner",
        "string",
        "As [agenttools] runner, for this bundle; 'python' (its managed environment's "
        "interpreter, a path of this machine) only with scope = 'user'.",
        choices=RUNNERS,
    ),
    Key(
        "scope",
        "string",
        "'project': into the project's own files (committed, the same on every machine); "
        "'user': into each teammate's user-scope files (machine-local).",
        choices=SCOPES,
        default="project",
    ),
)

TABLES: tuple[tuple[str, str, tuple[Key, ...]], ...] = (
    ("agenttools", "table", TOP_KEYS),
    ("bundle", "array of tables", BUNDLE_KEYS),
)


@dataclass(frozen=True, slots=True)
class BundleSpec:
    """One ``[[bundle]]``: its requirement, the bundle names asked for (empty: the
    distribution's only one), its clients, runner and scope."""

    requirement: Requirement
    bundles: tuple[str, ...]
    clients: tuple[str, ...]
    runner: str
    scope: str

    @property
    def distribution(self) -> str:
        return str(canonicalize_name(self.requirement.name))


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """A read and validated ``agenttools.toml``: where it is, its text, the index options,
    its bundles in the file's order, and the fingerprint of its data (the lock's input)."""

    path: Path
    text: str
    index_url: str | None
    extra_index_urls: tuple[str, ...]
    bundles: tuple[BundleSpec, ...]
    fingerprint: str = ""

    @property
    def root(self) -> Path:
        return self.path.parent


def load(path: Path) -> ProjectFile:
    """Read and validate *path*. Raises ``ProjectFileInvalid`` (every problem, with its line)
    or ``OSError``."""
    text = regular_files.read_bytes(path).decode("utf-8", errors="replace")
    return parse(text, path)


def parse(text: str, path: Path) -> ProjectFile:
    """See :func:`load`: the same for the file's *text*."""
    data = rawfile.loads(text, path)
    problems = _Problems(path, TomlLines(text))
    top = data.get("agenttools", {})
    for name in data:
        if name not in ("agenttools", "bundle"):
            problems.unknown((name,), ("agenttools", "bundle"))
    if not isinstance(top, dict):
        problems.add(("agenttools",), "must be a table ([agenttools])")
        top = {}
    values = _table(top, ("agenttools",), TOP_KEYS, problems)
    default_clients = values.get("clients", ())
    default_runner = values.get("runner", "uvx")
    raw_bundles = data.get("bundle", [])
    if not isinstance(raw_bundles, list):
        problems.add(("bundle",), "must be an array of tables ([[bundle]])")
        raw_bundles = []
    bundles: list[BundleSpec] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_bundles):
        where: KeyPath = ("bundle", index)
        if not isinstance(raw, dict):
            problems.add(where, "must be a table")
            continue
        spec = _bundle(raw, where, problems, default_clients, default_runner)
        if spec is None:
            continue
        if spec.distribution in seen:
            problems.add(
                where,
                f'"{spec.distribution}" is listed twice (bundle[{seen[spec.distribution]}] too)',
            )
            continue
        seen[spec.distribution] = index
        bundles.append(spec)
    problems.raise_any()
    return ProjectFile(
        path=path,
        text=text,
        index_url=values.get("index-url"),
        extra_index_urls=tuple(values.get("extra-index-urls", ())),
        bundles=tuple(bundles),
        fingerprint=rawfile.fingerprint(data),
    )


def json_schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of ``agenttools.toml``, from the same keys."""

    def table(keys: Sequence[Key]) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        for key in keys:
            prop: dict[str, Any] = {"description": key.description}
            if key.type == "array":
                prop.update(type="array", items={"type": "string"})
            else:
                prop["type"] = "string"
            if key.choices:
                prop["enum"] = list(key.choices)
            if key.default is not None:
                prop["default"] = key.default
            properties[key.name] = prop
        out: dict[str, Any] = {
            "type": "object",
            "additionalProperties": False,
            "properties": properties,
        }
        required = [k.name for k in keys if k.required]
        if required:
            out["required"] = required
        return out

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agenttools.toml",
        "description": "The agent tools a project wants: bundles of Python distributions "
        "deployed into AI clients by 'agenttools sync'.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "agenttools": table(TOP_KEYS),
            "bundle": {"type": "array", "items": table(BUNDLE_KEYS)},
        },
    }


# -- validation ------------------------------------------------------------------------------


class _Problems:
    def __init__(self, path: Path, lines: TomlLines) -> None:
        self.path, self.lines = path, lines
        self.found: list[tuple[int, str]] = []

    def add(self, key: KeyPath, message: str) -> None:
        line = self.lines.line(key) or 1
        self.found.append((line, f"{self.path}:{line}: {format_key(key)}: {message}"))

    def unknown(self, key: KeyPath, known: Sequence[str]) -> None:
        name = str(key[-1])
        hint = did_you_mean(name, known)
        self.add(key, f"unknown key (known: {', '.join(known)}).{hint}".rstrip("."))

    def raise_any(self) -> None:
        if self.found:
            report = "\n".join(text for _, text in sorted(self.found, key=lambda p: p[0]))
            raise ProjectFileInvalid(report=report)


def _table(
    data: Mapping[str, Any], where: KeyPath, keys: Sequence[Key], problems: _Problems
) -> dict[str, Any]:
    """The values of *keys* in *data* (checked), unknown keys reported."""
    by_name = {k.name: k for k in keys}
    out: dict[str, Any] = {}
    for name, value in data.items():
        key = by_name.get(name)
        if key is None:
            problems.unknown((*where, name), list(by_name))
            continue
        path = (*where, name)
        if key.type == "array":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems.add(path, "must be an array of strings")
                continue
            out[name] = tuple(value)
        else:
            if not isinstance(value, str):
                problems.add(path, "must be a string")
                continue
            if key.choices and value not in key.choices:
                hint = did_you_mean(value, key.choices)
                problems.add(
                    path, f'"{value}" is not one of {", ".join(key.choices)}.{hint}'.rstrip(".")
                )
                continue
            out[name] = value
    for key in keys:
        if key.required and key.name not in data:
            problems.add(where, f'"{key.name}" is required')
    return out


def _bundle(
    raw: Mapping[str, Any],
    where: KeyPath,
    problems: _Problems,
    default_clients: tuple[str, ...],
    default_runner: str,
) -> BundleSpec | None:
    from agenttools_runtime import clients
    from agenttools_runtime.errors import UnknownClient

    before = len(problems.found)
    values = _table(raw, where, BUNDLE_KEYS, problems)
    requirement: Requirement | None = None
    if "requirement" in values:
        try:
            requirement = Requirement(values["requirement"])
        except InvalidRequirement as exc:
            problems.add((*where, "requirement"), f"not a PEP 508 requirement: {exc}")
        else:
            if requirement.url is not None:
                problems.add(
                    (*where, "requirement"),
                    "a URL requirement cannot be locked (name a version on an index)",
                )
    scope = values.get("scope", "project")
    runner = values.get("runner", default_runner if scope == "project" else "uvx")
    if scope == "project" and runner not in PORTABLE_RUNNERS:
        problems.add(
            (*where, "runner"),
            f'"{runner}" writes a path of this machine: at project scope use uvx or script',
        )
    client_path: KeyPath = (*where, "clients") if "clients" in values else ("agenttools", "clients")
    names = values.get("clients", default_clients)
    if not names:
        problems.add(where, "no clients: give [agenttools] clients or this bundle's clients")
    ids: list[str] = []
    for name in names:
        try:
            client = clients.get_client(name)
        except UnknownClient as exc:
            problems.add(
                client_path, f'unknown client "{name}".{exc.data.get("hint") or ""}'.rstrip(".")
            )
            continue
        if (
            scope == "project"
            and client.project_mcp_config is None
            and client.project_skills is None
        ):
            problems.add(
                client_path,
                f'the client "{client.id}" has no project scope: list it in a bundle with scope = "user", or leave it out',
            )
            continue
        if client.id not in ids:
            ids.append(client.id)
    if requirement is None or len(problems.found) > before:
        return None
    return BundleSpec(
        requirement=requirement,
        bundles=tuple(values.get("bundles", ())),
        clients=tuple(ids),
        runner=runner,
        scope=scope,
    )
