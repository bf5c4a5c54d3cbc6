"""``manifest.json``, the contract between the build hook and the runtime: its typed model, its
one writer (:meth:`WheelManifest.to_bytes`, used by the build plan) and its one reader
(:func:`parse`, used by discovery), with the same naming and path rules on both sides.

``docs/wheel-format.md`` is generated from this module (``docs/gen_wheel_format.py``); a test
fails when the page is stale.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agenttools_runtime import jsonform, names, schema
from agenttools_runtime.errors import InvalidManifest, ManifestSchemaTooNew
from agenttools_runtime.limits import MAX_NESTING, shape_problem, too_deep
from agenttools_runtime.mcp.settings import Setting, SettingKind
from agenttools_runtime.project_paths import is_project_path, is_skill_file_path

if TYPE_CHECKING:
    from agenttools_runtime.errors import ManifestError

    Transport = Literal["stdio", "http", "sse"]  # schema.TRANSPORTS

SkillKind = Literal["directory", "inline"]  # (at run time: a skill's kind is read as one of these)

# The schemas and what each added (1: the first schema; 2: declared settings, a table, not a
# string, as a value of a server's env or headers): a manifest is written with the lowest
# schema that carries what it holds, so that a wheel without declared settings stays readable
# by an agenttools of schema 1.
SCHEMA_VERSION = 2
# Deepest nesting a manifest may have (agenttools_runtime/limits.py, as for every untrusted
# text): its own structure needs 4 levels, a server's args/env/headers a few more.
MAX_DEPTH = MAX_NESTING


# a server's keys as a manifest carries them: its registry entry is the publishing side (the
# server.json beside the wheel), not how the server starts, and stays out of the manifest
_MANIFEST_KEYS = tuple(key for key in schema.SERVER.keys if key.name != "registry")


@dataclass(frozen=True, slots=True)
class ServerEntry:
    """One MCP server: its ``[tool.agenttools.mcp-servers.<name>]`` table, typed by the one
    schema of that table (:data:`agenttools_runtime.schema.SERVER`); a key the table does not
    give is None. Built from a table by :meth:`from_table`, which refuses one that breaks
    :func:`~agenttools_runtime.schema.server_problems`, so every field holds what its key's
    type says."""

    name: str
    description: str | None = None
    module: str | None = None
    script: str | None = None
    command: str | None = None
    url: str | None = None
    args: tuple[str, ...] | None = None
    env: Mapping[str, str] | None = None
    transport: Transport | None = None
    headers: Mapping[str, str] | None = None
    placeholders: Mapping[str, str] | None = None  # (declared ones only: see settings)
    config_key: str | None = None
    # the declared settings of env and headers (tables, not strings), in table order; the
    # literal values stay in env and headers
    settings: tuple[Setting, ...] = ()

    @classmethod
    def from_table(cls, name: str, table: Mapping[str, Any]) -> ServerEntry:
        """The entry of a server table; ``ValueError`` naming the first key that breaks the
        schema. Keys the schema does not know are left out (see the evolution rule in
        ``docs/wheel-format.md``)."""
        problem = _server_problem(table)
        if problem is not None:
            raise ValueError(problem)
        fields: dict[str, Any] = {}
        settings: list[Setting] = []
        for spec in _MANIFEST_KEYS:
            if spec.name in table:
                value = table[spec.name]
                if spec.kind == "string-list":
                    value = tuple(value)
                elif spec.kind == "setting-map":
                    kind = _SETTING_KINDS[spec.name]
                    settings += [
                        _setting(n, t, kind) for n, t in value.items() if isinstance(t, dict)
                    ]
                    value = {n: v for n, v in value.items() if isinstance(v, str)}
                fields[spec.name.replace("-", "_")] = value
        return cls(name, **fields, settings=tuple(settings))

    def to_json(self) -> dict[str, Any]:
        """The table: the keys given, as the schema spells them."""
        data: dict[str, Any] = {}
        for spec in _MANIFEST_KEYS:
            value = getattr(self, spec.name.replace("-", "_"))
            if value is not None:
                data[spec.name] = list(value) if isinstance(value, tuple) else value
        for setting in self.settings:
            map_key = SETTING_TABLES[setting.kind]
            data[map_key] = {**data.get(map_key, {}), setting.name: setting_table(setting)}
        return data


# a table of declared settings -> the kind of its settings, and back
_SETTING_KINDS: dict[str, SettingKind] = {"env": "env", "headers": "header", "placeholders": "arg"}
SETTING_TABLES: dict[str, str] = {kind: key for key, kind in _SETTING_KINDS.items()}


def _setting(name: str, table: Mapping[str, Any], kind: SettingKind) -> Setting:
    """The :class:`Setting` of a declared setting's (checked) table."""
    return Setting(
        name,
        kind=kind,
        description=table.get("description"),
        required=bool(table.get("required", False)),
        secret=bool(table.get("secret", False)),
        default=table.get("default"),
        choices=tuple(table.get("choices", ())),
    )


def setting_table(setting: Setting) -> dict[str, Any]:
    """A declared setting's table as the schema spells it: the keys that differ from their
    defaults."""
    table: dict[str, Any] = {}
    if setting.description is not None:
        table["description"] = setting.description
    if setting.required:
        table["required"] = True
    if setting.secret:
        table["secret"] = True
    if setting.default is not None:
        table["default"] = setting.default
    if setting.choices:
        table["choices"] = list(setting.choices)
    return table


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillEntry(jsonform.Form):
    """One skill of the distribution and the hash of every file the wheel ships for it."""

    name: str = field(metadata=jsonform.NOT_JSON)  # (its key in the manifest's skills)
    description: str = ""
    kind: SkillKind = "directory"
    files: Mapping[str, str]  # "/"-separated relative path -> SHA-256 (hex)
    executable: tuple[str, ...] = ()  # sorted
    path: str | None = field(  # project-relative source directory (directory kind)
        default=None,
        # (it is joined to source-root: the rule the project's checks apply to root)
        metadata=jsonform.key(omit=None, check=is_project_path, means="inside the project"),
    )


def _are_references(rule: Callable[[object], bool]) -> Callable[[Any], bool]:
    return lambda items: all(map(rule, items))


@dataclass(frozen=True, slots=True)
class BundleEntry(jsonform.Form):
    """One bundle: server and skill references (``name`` or ``dist/name``), in order."""

    name: str = field(metadata=jsonform.key(check=names.is_item_name, means="a bundle name"))
    implicit: bool = False
    mcp_servers: tuple[str, ...] = field(
        default=(),
        metadata=jsonform.key(
            "mcp-servers",
            check=_are_references(names.is_item_reference),
            means='a list of names ("name" or "dist/name")',
        ),
    )
    skills: tuple[str, ...] = field(
        default=(),
        metadata=jsonform.key(
            check=_are_references(names.is_skill_reference),
            means='a list of names ("skill-name" or "dist/skill-name")',
        ),
    )
    description: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    marker: str | None = field(default=None, metadata=jsonform.OMIT_NONE)


@dataclass(frozen=True, slots=True)
class WheelManifest(jsonform.Form):
    """Everything the runtime needs to list and resolve a distribution's bundles."""

    WHAT = "the manifest"
    distribution: str = field(
        metadata=jsonform.key(check=names.is_dist_name, means="a distribution name")
    )
    version: str = field(metadata=jsonform.key(check=bool, means="a version"))
    bundles: tuple[BundleEntry, ...] = ()
    # (the servers' tables are the schema's, and a skill's name is its key: read by parse)
    servers: Mapping[str, ServerEntry] = field(default_factory=dict, metadata=jsonform.NOT_JSON)
    skills: Mapping[str, SkillEntry] = field(default_factory=dict, metadata=jsonform.NOT_JSON)
    root: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    source_root: str | None = field(default=None, metadata=jsonform.key("source-root", omit=None))
    # as read; None: the lowest that carries it
    schema: int | None = field(default=None, compare=False, metadata=jsonform.NOT_JSON)

    @property
    def needed_schema(self) -> int:
        """The lowest schema that carries this manifest (see :data:`SCHEMA_VERSION`)."""
        return 2 if any(s.settings for s in self.servers.values()) else 1

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``manifest.json``."""
        return {
            "schema": self.schema or self.needed_schema,
            **jsonform.Form.to_json(self),
            "mcp-servers": {n: s.to_json() for n, s in self.servers.items()},
            "skills": {n: s.to_json() for n, s in self.skills.items()},
        }

    def declared_bundles(self, implicit_name: str) -> list[BundleEntry]:
        """The bundles this manifest declares; without a bundles list, a manifest that has
        servers or skills still offers its implicit bundle of all of them, named
        *implicit_name*."""
        if self.bundles or not (self.servers or self.skills):
            return list(self.bundles)
        return [
            BundleEntry(
                name=implicit_name,
                implicit=True,
                mcp_servers=tuple(sorted(self.servers)),
                skills=tuple(sorted(self.skills)),
            )
        ]

    def to_bytes(self) -> bytes:
        """The canonical file: sorted keys, 2-space indent, UTF-8, one final newline, so that
        identical input gives byte-identical wheels."""
        return (json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n").encode("utf-8")


def parse(data: bytes, distribution: str) -> WheelManifest:
    """Read ``manifest.json`` bytes. *distribution* names the owner in messages.

    Raises a :class:`~agenttools_runtime.errors.ManifestError`: ``ManifestSchemaTooNew`` for
    a schema above :data:`SCHEMA_VERSION`, else ``InvalidManifest`` naming the first problem
    (not JSON, nested deeper than :data:`MAX_DEPTH`, a wrong type, a name the build hook
    would refuse, a file path that leaves its skill directory).
    """
    try:
        value = json.loads(data)
    except RecursionError:
        raise _invalid(distribution, f"it is {too_deep(MAX_DEPTH)}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise _invalid(distribution, f"not JSON ({exc})") from None
    return from_json(value, distribution)


def from_json(value: object, distribution: str) -> WheelManifest:
    """The manifest of an already decoded JSON value (see :func:`parse`)."""
    if not isinstance(value, dict):
        raise _invalid(distribution, "it is not a JSON object")
    schema = value.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise _invalid(distribution, f"its schema is {schema!r}, not a positive integer")
    if schema > SCHEMA_VERSION:
        raise ManifestSchemaTooNew(
            distribution=distribution, schema=schema, supported=SCHEMA_VERSION
        )
    shape = shape_problem(value, MAX_DEPTH)
    if shape is not None:
        raise _invalid(distribution, f"it is {shape}")
    try:
        return _manifest(value, schema)
    except jsonform.Malformed as problem:
        raise _invalid(distribution, str(problem)) from None


# -- the documented fields (docs/wheel-format.md is generated from these) ----------------------
# object -> (key, type, meaning); parse and to_json implement them, a test holds them together
FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "manifest": (
        (
            "schema",
            "integer",
            "`1`, or `2` when a server declares settings (the lowest that carries the manifest, "
            "so wheels without settings stay readable by agenttools of schema 1); this "
            f"agenttools reads 1 to {SCHEMA_VERSION}. A reader refuses a higher schema "
            '(`ManifestSchemaTooNew`: "built by a newer agenttools"); see the evolution rule.',
        ),
        (
            "distribution",
            "string",
            "`[project].name` as written (a PEP 508 name); compare after PEP 503 normalization.",
        ),
        ("version", "string", "the distribution's version."),
        ("root", "string, optional", "`[tool.agenttools].root`."),
        (
            "source-root",
            "string, optional",
            "only in editable installs: the absolute project directory. A directory skill's "
            "live files are `<source-root>/<path>`.",
        ),
        (
            "bundles",
            "list of bundles",
            "in declaration order. Without `[[tool.agenttools.bundles]]`, one bundle with "
            '`"implicit": true`, named after the normalized distribution name, holding every '
            "server (table order) and skill (table order).",
        ),
        (
            "mcp-servers",
            "table of servers",
            "server name (non-blank, no `/`) → its `[tool.agenttools.mcp-servers.<name>]` table "
            "as written (the keys given, no defaults filled in).",
        ),
        (
            "skills",
            "table of skills",
            "skill name (the Agent Skills rule: 1–64 of `a-z`, `0-9` and single inner hyphens) "
            "→ the skill.",
        ),
    ),
    "bundle": (
        ("name", "string", "the bundle name (non-blank, no `/`)."),
        ("implicit", "boolean", "true for the one bundle made when none is declared."),
        (
            "mcp-servers",
            "list of strings",
            "server references: `name` (this distribution's) or `dist/name`.",
        ),
        (
            "skills",
            "list of strings",
            "skill references: a skill name, or `dist/skill-name` for another distribution's.",
        ),
        ("description", "string, optional", "present only when given."),
        (
            "marker",
            "string, optional",
            "a PEP 508 environment marker; the bundle is offered only where it holds. Present "
            "only when given.",
        ),
    ),
    "skill": (
        ("description", "string", "the skill's description."),
        ("kind", "string", "`directory` or `inline` (a generated `SKILL.md`)."),
        (
            "path",
            "string, optional",
            "directory kind only: the project-relative source directory (relative, never "
            "leaving the project).",
        ),
        (
            "files",
            "table of strings",
            "every `/`-separated relative path the wheel ships (inside the skill directory: no "
            "empty, `.` or `..` segment, so no absolute path; no backslash, no leading drive "
            "such as `c:`, no NUL) → its SHA-256.",
        ),
        (
            "executable",
            "list of strings",
            "the files an install makes executable: any execute bit in the source, or a first "
            "line starting with `#!` (always present, sorted).",
        ),
    ),
}
# a server's keys, types and meaning are the schema's (agenttools_runtime/schema.py: SERVER)
SERVER_FIELDS: tuple[tuple[str, str, str], ...] = tuple(
    (
        key.name,
        schema.KIND_TEXT[key.kind]
        + (" (" + " / ".join(f"`{c}`" for c in key.choices) + ")" if key.choices else ""),
        key.doc,
    )
    for key in _MANIFEST_KEYS
)

# How the manifest changes between agenttools versions (docs/wheel-format.md quotes it).
EVOLUTION_RULE = (
    "A reader ignores a key it does not know, at every level (a later agenttools may add "
    "optional keys that an earlier one can do without); a key it knows must have the type "
    "documented here, or the manifest is refused. A change that an earlier reader would "
    "misread (a key whose absence or new meaning changes what gets deployed, a type that "
    "changes) raises `schema` instead, and a reader refuses a manifest whose `schema` is "
    'higher than the one it reads, with `ManifestSchemaTooNew` ("built by a newer '
    'agenttools"), rather than guess. A reader of schema N reads every schema from 1 to N.'
)


# -- reading ---------------------------------------------------------------------------------
# (a structural problem is raised as a jsonform.Malformed: its text follows "cannot be used: ")
def _invalid(distribution: str, reason: str) -> ManifestError:
    return InvalidManifest(distribution=distribution, reason=reason)


def _manifest(m: dict[str, Any], schema: int) -> WheelManifest:
    servers = m.get("mcp-servers", {})
    if not isinstance(servers, dict) or not all(isinstance(v, dict) for v in servers.values()):
        raise jsonform.Malformed('"mcp-servers" must map names to tables')
    entries: dict[str, ServerEntry] = {}
    for name, table in servers.items():
        if not names.is_item_name(name):
            raise jsonform.Malformed(f'"mcp-servers": "{name}" is not a server name')
        try:
            entries[name] = ServerEntry.from_table(name, table)
        except ValueError as problem:
            raise jsonform.Malformed(f'server "{name}": {problem}') from None
    skills = m.get("skills", {})
    if not isinstance(skills, dict):
        raise jsonform.Malformed('"skills" must map names to tables')
    return jsonform.load(
        WheelManifest,
        m,
        WheelManifest.WHAT,
        servers=entries,
        skills={n: _skill(n, s) for n, s in skills.items()},
        schema=schema,
    )


def _server_problem(table: Mapping[str, Any]) -> str | None:
    """The first way *table* breaks the server schema (``"args" must be an array of
    strings (got string)``), or None."""
    for key, _code, message in schema.server_problems(table):
        if key is None:
            return message
        # (a declared setting's key: the server's key quoted, then the path inside it)
        where = f'"{key}"' if isinstance(key, str) else f'"{key[0]}".' + ".".join(key[1:])
        return f"{where} {message}" if message.startswith("must be") else f"{where}: {message}"
    return None


def _skill(name: str, skill: object) -> SkillEntry:
    if not names.is_skill_name(name):  # it names the skill's directory: nothing elsewhere
        reason = "; ".join(names.skill_name_problems(name)) or "not a skill name"
        raise jsonform.Malformed(
            f'skill "{name}": its name is not a folder name a skill may have: {reason}'
        )
    entry = jsonform.load(SkillEntry, skill, f"{WheelManifest.WHAT}.skills.{name}", name=name)
    for rel in entry.files:
        if not is_skill_file_path(rel):
            raise jsonform.Malformed(
                f'skill "{name}" lists the file {rel}, which is not inside the skill'
            )
    return entry
