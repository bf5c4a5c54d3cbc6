"""The wheel contract (agenttools_runtime/wheel/): the manifest's one writer and one reader
agree on every manifest (round trip), every manifest the hook writes for the sample packages
parses, the generated docs/wheel-format.md is current, and what parse refuses."""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenttools_runtime import schema
from agenttools_runtime.errors import InvalidManifest, ManifestError, ManifestSchemaTooNew
from agenttools_runtime.schema import SERVER
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import (
    FIELDS,
    MAX_DEPTH,
    SCHEMA_VERSION,
    SERVER_FIELDS,
    BundleEntry,
    ServerEntry,
    SkillEntry,
    WheelManifest,
    from_json,
    parse,
)
from tests.helpers.wheels import sample_wheel  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
SAMPLES = ("weather-tools", "multi-bundle", "skills-only", "keyed-forecast")

# -- strategies: every manifest the writer may produce ---------------------------------------
skill_names = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}", fullmatch=True)
dist_names = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,10}[A-Za-z0-9])?", fullmatch=True)
item_names = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() and "/" not in s)
rel_paths = st.lists(
    st.from_regex(r"[A-Za-z0-9_ #.-]{1,8}", fullmatch=True).filter(lambda p: p not in (".", "..")),
    min_size=1,
    max_size=3,
).map("/".join)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
hashes = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)


@st.composite
def skills(draw: st.DrawFn, name: str) -> SkillEntry:
    files = draw(st.dictionaries(rel_paths, hashes, max_size=4))
    kind = draw(st.sampled_from(["directory", "inline"]))
    return SkillEntry(
        name=name,
        description=draw(st.text(max_size=20)),
        files={"SKILL.md": draw(hashes), **files},
        kind=kind,
        executable=tuple(sorted(draw(st.sets(st.sampled_from(sorted(files) or ["x"]))))),
        path=draw(st.none() | st.just(f"skills/{name}")) if kind == "directory" else None,
    )


strings = st.text(max_size=8)
string_maps = st.dictionaries(st.text(max_size=5), strings, max_size=3)


@st.composite
def servers(draw: st.DrawFn, name: str) -> ServerEntry:
    """A server table the build hook accepts: one launch key, the keys that fit it."""
    kind = draw(st.sampled_from(["module", "script", "command", "url"]))
    value = {
        "module": st.from_regex(
            r"[a-z_][a-z0-9_]{0,5}(\.[a-z_][a-z0-9_]{0,5}){0,2}", fullmatch=True
        ),
        "script": st.text(min_size=1, max_size=8),
        "command": st.text(min_size=1, max_size=8),
        "url": st.from_regex(r"https?://[a-z]{1,8}\.org(/[a-z]{0,5})?", fullmatch=True),
    }[kind]
    optional = {
        "description": st.none() | strings,
        "config_key": st.none() | st.text(min_size=1, max_size=8),
    }
    if kind == "url":
        optional["transport"] = st.none() | st.sampled_from(["http", "sse"])
        optional["headers"] = st.none() | string_maps
    else:
        optional["transport"] = st.none() | st.just("stdio")
        optional["args"] = st.none() | st.lists(strings, max_size=3).map(tuple)
        optional["env"] = st.none() | string_maps
    return ServerEntry(name, **{kind: draw(value)}, **{k: draw(v) for k, v in optional.items()})


references = st.one_of(item_names, st.tuples(dist_names, item_names).map("/".join))
skill_references = st.one_of(skill_names, st.tuples(dist_names, skill_names).map("/".join))


@st.composite
def manifests(draw: st.DrawFn) -> WheelManifest:
    server_names = draw(st.lists(item_names, unique=True, max_size=3))
    names = draw(st.lists(skill_names, unique=True, max_size=3))
    return WheelManifest(
        distribution=draw(dist_names),
        version=draw(st.text(min_size=1, max_size=8)),
        root=draw(st.none() | st.just("skills")),
        source_root=draw(st.none() | st.just("/abs/project")),
        bundles=tuple(
            BundleEntry(
                name=draw(item_names),
                implicit=draw(st.booleans()),
                mcp_servers=tuple(draw(st.lists(references, max_size=3))),
                skills=tuple(draw(st.lists(skill_references, max_size=3))),
                description=draw(st.none() | st.text(max_size=10)),
                marker=draw(st.none() | st.just("sys_platform != 'win32'")),
            )
            for _ in range(draw(st.integers(0, 2)))
        ),
        servers={n: draw(servers(n)) for n in server_names},
        skills={n: draw(skills(n)) for n in names},
    )


# a manifest is a large draw: on a loaded machine generating one can take a second
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(manifests())
def test_round_trip(manifest: WheelManifest) -> None:
    data = manifest.to_bytes()
    assert parse(data, "x") == manifest
    assert parse(data, "x").to_bytes() == data  # canonical: one byte form per manifest


@pytest.mark.parametrize("name", SAMPLES)
def test_every_manifest_the_hook_writes_parses(name: str, sample_wheel) -> None:  # noqa: F811
    wheel = sample_wheel(name)
    with zipfile.ZipFile(wheel) as archive:
        (member,) = [n for n in archive.namelist() if n.endswith(f"/{layout.MANIFEST_FILE}")]
        data = archive.read(member)
        manifest = parse(data, name)
        assert manifest.to_bytes() == data
        dist_info = member.split("/", 1)[0]
        shipped = set(archive.namelist())
    prefix = f"{dist_info}/{layout.AGENTTOOLS_DIR}/"
    for skill in manifest.skills.values():  # every listed file is where the layout says
        for rel in skill.files:
            assert prefix + layout.skill_file(skill.name, rel) in shipped
    assert manifest.schema == manifest.needed_schema  # the lowest schema that carries it


def test_every_key_written_is_documented() -> None:
    documented = {kind: {key for key, _, _ in fields} for kind, fields in FIELDS.items()}
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import gen_wheel_format
    finally:
        sys.path.pop(0)
    full = json.loads(gen_wheel_format.example())
    assert set(full) == documented["manifest"]
    assert {k for b in full["bundles"] for k in b} == documented["bundle"]
    assert {k for s in full["skills"].values() for k in s} == documented["skill"]


def test_wheel_format_page_is_generated_and_current() -> None:
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import gen_wheel_format
    finally:
        sys.path.pop(0)
    page = (REPO / "docs" / "wheel-format.md").read_text(encoding="utf-8")
    assert page == gen_wheel_format.generate(), "run: python docs/gen_wheel_format.py"


DEEP_LIST: list[object] = []
for _ in range(MAX_DEPTH):
    DEEP_LIST = [DEEP_LIST]


def minimal(**changes: object) -> dict[str, object]:
    return {"schema": 1, "distribution": "d", "version": "1", **changes}


@pytest.mark.parametrize(
    ("manifest", "fragment"),
    [
        (minimal(skills={"Weather-Report": {"files": {}}}), "must be lowercase"),
        (minimal(skills={"a--b": {"files": {}}}), "consecutive hyphens"),
        (minimal(skills={"a" * 255: {"files": {}}}), "exceeds 64 character limit"),
        (minimal(skills={"s": {"files": {"a/../../b": "0"}}}), "not inside the skill"),
        (minimal(skills={"s": {"files": {"/etc/passwd": "0"}}}), "not inside the skill"),
        (minimal(skills={"s": {"files": {"a\\..\\b": "0"}}}), "not inside the skill"),
        (minimal(skills={"s": {"files": {"c:notes.md": "0"}}}), "not inside the skill"),
        (minimal(distribution="-bad-"), "not a distribution name"),
        (minimal(bundles=[{"name": "b", "skills": ["Bad_Skill"]}]), "bundles[0].skills"),
        (minimal(**{"mcp-servers": {"s": {"args": DEEP_LIST}}}), "nested more than"),
    ],
)
def test_parse_refuses_what_the_hook_would(manifest: object, fragment: str) -> None:
    with pytest.raises(InvalidManifest) as info:
        parse(json.dumps(manifest).encode(), "d")
    assert fragment in str(info.value)
    assert str(info.value).startswith('The agenttools manifest of "d" cannot be used: ')


def test_deep_json_is_a_manifest_error_not_a_recursion_error() -> None:
    with pytest.raises(InvalidManifest, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse(b"[" * 100_000 + b"]" * 100_000, "d")
    with pytest.raises(InvalidManifest, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse(json.dumps(minimal(x=DEEP_LIST)).encode(), "d")


def test_newer_schema_is_its_own_leaf() -> None:
    with pytest.raises(ManifestSchemaTooNew) as info:
        from_json(minimal(schema=SCHEMA_VERSION + 1), "d")
    assert isinstance(info.value, ManifestError)


# -- every field, every JSON type ------------------------------------------------------------
SERVER_KEYS = [key.name for key in SERVER.keys if key.name != "registry"]  # (never in a manifest)
JSON_KINDS: dict[str, object] = {
    "null": None,
    "boolean": True,
    "integer": 5,
    "float": 1.5,
    "string": "notalist",
    "array": [1, None],
    "array of strings": ["a", "b"],
    "table": {"a": {"b": 1}},
    "table of strings": {"A": "1"},
}


def good_server() -> dict[str, object]:
    return {"command": "weather-mcp", "args": ["--units", "metric"], "env": {"A": "1"}}


@pytest.mark.parametrize("kind", JSON_KINDS)
@pytest.mark.parametrize("key", SERVER_KEYS)
def test_a_server_key_of_any_json_type_is_typed_or_refused(key: str, kind: str) -> None:
    """Each key of a server table gets every JSON type: the manifest is refused naming the
    distribution, the server and the key, or read with exactly the value written (nothing
    coerced: no list of a string's letters, no number written as a URL)."""
    server = good_server()
    if key in ("module", "script", "url"):
        del server["command"]  # the key is the launch key
        server.pop("args")
        server.pop("env")
    server[key] = JSON_KINDS[kind]
    data = json.dumps(minimal(**{"mcp-servers": {"weather": server}})).encode()
    expected_ok = not schema.server_problems(server)
    try:
        manifest = parse(data, "weather-tools")
    except InvalidManifest as exc:
        assert not expected_ok, exc
        message = str(exc)
        assert message.startswith('The agenttools manifest of "weather-tools" cannot be used: ')
        assert 'server "weather"' in message
        assert f'"{key}"' in message or "exactly one of" in message
        return
    assert expected_ok
    entry = manifest.servers["weather"]
    # (a table in env or headers is a declared setting: keys it does not know are ignored)
    known = {
        k: {n: {s: v for s, v in t.items() if s in schema.SETTING.names} if isinstance(t, dict)
            else t for n, t in value.items()} if k in ("env", "headers") else value
        for k, value in server.items()
        if k != "registry"  # (the publishing side: it stays out of typed manifests)
    }  # fmt: skip
    assert entry.to_json() == known
    # what reaches a client: the declared values, unchanged
    from agenttools_runtime.mcp.server import MCPServer

    declared = MCPServer.from_entry(entry)
    assert list(declared.args) == server.get("args", [])
    literal = {n: v for n, v in server.get("env", {}).items() if isinstance(v, str)}
    assert dict(declared.env) == literal  # (a declared setting is no value yet)
    assert [s.name for s in declared.settings] == [
        n for n in known.get("env", {}) if n not in literal
    ]


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("args", "notalist", '"args" must be an array of strings (got string)'),
        ("args", [1, None], '"args" must be an array of strings (got integer at index 0)'),
        ("env", [1, 2], '"env" must be a table of strings or setting tables (got array)'),
        ("env", "A=1", '"env" must be a table of strings or setting tables (got string)'),
        (
            "env",
            {"a": 1},
            '"env" must be a table of strings or setting tables (got integer at "a")',
        ),
        ("env", {"a": {"secret": 1}}, '"env".a.secret must be a boolean (got integer)'),
        ("command", ["echo"], '"command" must be a string (got array)'),
        ("transport", "carrier-pigeon", '"transport": "carrier-pigeon" is not one of'),
        ("headers", [1], '"headers" must be a table of strings or setting tables (got array)'),
    ],
)
def test_wrong_server_fields_named(key: str, value: object, fragment: str) -> None:
    server = {**good_server(), key: value}
    with pytest.raises(InvalidManifest) as info:
        parse(json.dumps(minimal(**{"mcp-servers": {"weather": server}})).encode(), "d")
    prefix = 'The agenttools manifest of "d" cannot be used: server "weather": '
    assert str(info.value).startswith(prefix + fragment)


def test_url_servers_are_typed_like_the_hook_types_them() -> None:
    for server, fragment in (
        ({"url": 5}, '"url" must be a string (got integer)'),
        ({"url": "ftp://example.org"}, "is not an http:// or https:// URL"),
        ({"url": "https://example.org", "args": ["a"]}, "args has no meaning for a url server"),
        ({"command": "x", "headers": {"a": "b"}}, "headers need a url server"),
        ({"command": "x", "url": "https://example.org"}, "exactly one of module, script"),
        ({"module": "not a module"}, "is not a dotted module path"),
    ):
        with pytest.raises(InvalidManifest, match=re.escape(fragment)):
            parse(json.dumps(minimal(**{"mcp-servers": {"s": server}})).encode(), "d")


def test_unknown_keys_are_ignored_at_every_level() -> None:
    """The evolution rule: a key this reader does not know is left out, not refused."""
    data = minimal(
        future=[1, {"x": None}],
        bundles=[{"name": "b", "future": 1}],
        skills={"s": {"files": {"SKILL.md": "0" * 64}, "future": True}},
        **{"mcp-servers": {"w": {"command": "x", "future": {"y": 1}}}},
    )
    manifest = parse(json.dumps(data).encode(), "d")
    assert manifest.servers["w"].to_json() == {"command": "x"}
    assert manifest.bundles[0].name == "b" and list(manifest.skills) == ["s"]


def test_newer_schema_says_built_by_a_newer_agenttools() -> None:
    with pytest.raises(ManifestSchemaTooNew, match="built by a newer agenttools"):
        parse(json.dumps(minimal(schema=SCHEMA_VERSION + 1)).encode(), "d")


def test_every_server_key_is_documented() -> None:
    assert [key for key, _, _ in SERVER_FIELDS] == SERVER_KEYS
