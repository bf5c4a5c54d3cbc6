"""Property tests of the three config formats ("we lose nothing"), with hypothesis.

Documents are generated with comments, odd whitespace, CRLF, unicode keys and escapes, keys
that need quoting, duplicate keys (JSON), nested containers and the entries' container at
several depths and positions (missing, null, empty, with other entries). For each:

- the result parses, with an independent parser (``json`` after stripping comments for JSONC,
  ``tomllib`` for TOML, ruamel *and* PyYAML — a YAML 1.1 reader — for YAML), to the old data
  plus the one entry;
- a strict-JSON file stays strict JSON (Claude Code reads ``~/.claude.json`` with
  ``JSON.parse``);
- installing only inserts text, and uninstalling gives back the original bytes, whenever the
  container already held other entries.

Runs derandomized (a fixed example sequence), so CI is reproducible.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml as pyyaml
from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from agenttools_runtime.mcp.formats import Container, ParseError, get_format
from tests.helpers.fuzz import fuzz
from tests.mcp.samples import load_jsonc, only_insertions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SETTINGS = settings(
    # NOSHRINK=1: report the first failing example as generated (faster when hunting)
    phases=[Phase.explicit, Phase.generate] if os.environ.get("NOSHRINK") else list(Phase),
    max_examples=int(os.environ.get("MCP_PROPERTY_EXAMPLES", "150")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# keys a user may have: unicode, escapes, quotes, spaces, dots, YAML/TOML specials
KEYS = st.sampled_from(
    [
        "a",
        "theme",
        "na me",
        "dotted.key",
        "k\u00e9y",
        "\u2603",
        "\U0001f600",
        'q"uote',
        "back\\slash",
        "tab\tkey",
        "yes",
        "on",
        "null",
        "1",
        "0x1F",
        "1:20",
        "a: b",
        "#hash",
        "- dash",
        "[x]",
        "",
        "mcpServers",
        "servers",
        "weather",
    ]
)
STRINGS = st.sampled_from(
    [
        "",
        "s",
        "yes",
        "No",
        "on",
        "null",
        "~",
        "1.0",
        "1_000",
        "12:30",
        "2001-01-01",
        "a: b",
        "# not a comment",
        "// not a comment",
        "/* nor this */",
        '"quoted"',
        "it's",
        "C:\\Users\\me\\venv\\Scripts\\python.exe",
        "\u00e9\u2603\U0001f600",
        "line\nbreak",
        "\u2028",
        "[not, a, list]",
        "{not: a map}",
    ]
)
SCALARS = st.one_of(
    STRINGS,
    st.booleans(),
    st.none(),
    st.integers(-(2**40), 2**40),
    st.sampled_from([0.5, -1.25, 1e21, 3.0]),
)


def values(scalars: st.SearchStrategy[Any] = SCALARS) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)
        ),
        max_leaves=8,
    )


# the entry written: a Windows launch (backslashes, .exe) and awkward strings
ENTRIES = st.fixed_dictionaries(
    {
        "command": st.sampled_from(
            ["C:\\Program Files\\Py\\python.exe", "/opt/venv/bin/python", "yes", "a: b"]
        ),
        "args": st.lists(STRINGS, max_size=3),
        "env": st.dictionaries(st.sampled_from(["A", "on", "K\u00e9"]), STRINGS, max_size=2),
    }
)
ENTRY_KEYS = st.sampled_from(["weather", "na me", "yes", "null", "\u00e9t\u00e9", "a.b", "1"])
OTHER_ENTRIES = st.dictionaries(
    st.sampled_from(["other", "o.2", "on", "\u2603"]),
    st.fixed_dictionaries({"command": STRINGS, "args": st.lists(STRINGS, max_size=2)}),
    max_size=3,
)
SEEDS = st.integers(0, 2**32)  # layout choices: a failure names its seed
PATHS = st.sampled_from([("mcpServers",), ("mcp", "servers"), ("a", "b", "c")])


@st.composite
def documents(
    draw: st.DrawFn, allow_null: bool = True
) -> tuple[dict[str, Any], tuple[str, ...], str]:
    """(document, container path, state of the container: missing/null/empty/full)."""
    path = draw(PATHS)
    root: dict[str, Any] = draw(st.dictionaries(KEYS, values(), max_size=4))
    node = root
    states = ["missing", "empty", "full", "full"] + (["null"] if allow_null else [])
    state = draw(st.sampled_from(states))
    for depth, part in enumerate(path):
        node.pop(part, None)
        last = depth == len(path) - 1
        if state == "missing" and (last or draw(st.booleans())):
            break
        if last:
            child: Any = {"empty": {}, "null": None}.get(state)
            if child is None and state == "full":
                child = draw(OTHER_ENTRIES.filter(bool))
        else:
            child = draw(st.dictionaries(KEYS, values(), max_size=2))
            child.pop(path[depth + 1], None)
        keys = list(node)
        at = draw(st.integers(0, len(keys)))
        rest = {k: node.pop(k) for k in keys[at:]}
        node[part] = child
        node.update(rest)
        if last or not isinstance(child, dict):
            break
        node = child
    return root, path, state


def with_entry(data: Any, path: tuple[str, ...], key: str, entry: Any) -> Any:
    data = copy.deepcopy(data)
    node = data
    for part in path:
        if node.get(part) is None:
            node[part] = {}
        node = node[part]
    if entry is None:
        node.pop(key, None)
    else:
        node[key] = entry
    return data


# -- JSONC ---------------------------------------------------------------------------------


class JSONWriter:
    """Serializes a value in a random layout: indentation, separators, comments, trailing
    commas, CRLF, escapes, and now and then a duplicate key before the real member."""

    def __init__(self, rng: random.Random, jsonc: bool) -> None:
        self.rng = rng
        self.jsonc = jsonc
        self.unit = rng.choice(["  ", "    ", "\t", " ", None])
        self.nl = rng.choice(["\n", "\r\n"])
        self.colon = rng.choice([": ", ":", " : "])
        self.ascii = rng.random() < 0.5
        self.trailing = jsonc and rng.random() < 0.3

    def comment(self) -> str:
        if not self.jsonc or self.rng.random() < 0.75:
            return ""
        if self.unit is None or self.rng.random() < 0.5:
            return self.rng.choice([" /* c */", "/**/", " /* a // b */", " /* , } */"])
        return self.rng.choice([" // note", " // } ] , /*", "//"]) + self.nl

    def scalar(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=self.ascii)

    def dump(self, value: Any, level: int = 0) -> str:
        if isinstance(value, dict):
            items = []
            for k, v in value.items():
                if self.rng.random() < 0.05:  # an earlier duplicate: the last one wins
                    items.append(self.scalar(k) + self.colon + self.scalar("dup"))
                items.append(self.scalar(k) + self.colon + self.dump(v, level + 1))
            return self._wrap("{", "}", items, level)
        if isinstance(value, list):
            return self._wrap("[", "]", [self.dump(v, level + 1) for v in value], level)
        return self.scalar(value)

    def _wrap(self, open_: str, close: str, items: list[str], level: int) -> str:
        if not items:
            return open_ + self.rng.choice(["", "", " "]) + close
        if self.unit is None:
            parts = [i + self.comment() for i in items]  # block comments only
            comma = "," if self.trailing else ""
            return open_ + ", ".join(parts) + comma + close
        inner = self.nl + self.unit * (level + 1)
        out = [open_, self.comment().rstrip(self.nl)]
        for index, item in enumerate(items):
            last = index == len(items) - 1
            sep = "," if (not last or self.trailing) else ""
            out.append(inner + item + sep + self.comment().rstrip(self.nl))
        return "".join(out) + self.nl + self.unit * level + close


JSON = get_format("json")


@pytest.mark.slow  # 150 examples: 1-10 s each, the longest tests outside -m slow
@SETTINGS
@given(documents(), ENTRY_KEYS, ENTRIES, st.booleans(), SEEDS)
def test_json_install_and_uninstall(
    doc: tuple[dict[str, Any], tuple[str, ...], str],
    key: str,
    entry: dict[str, Any],
    jsonc: bool,
    seed: int,
) -> None:
    rng = random.Random(seed)
    data, path, state = doc
    container = Container(path)
    writer = JSONWriter(rng, jsonc)
    text = writer.dump(data)
    if jsonc and rng.random() < 0.3:
        text = "// header" + writer.nl + text
    text += rng.choice(["", writer.nl, writer.nl + writer.nl, " "])
    before = load_jsonc(text)
    assert before == json.loads(json.dumps(data))
    assume(key not in (JSON.read_entries(text, container)))

    new, existed = JSON.set_entry(text, container, key, entry, {})
    assert not existed
    assert load_jsonc(new) == with_entry(before, path, key, entry), new
    if not jsonc:
        assert json.loads(new) == load_jsonc(new)  # strict stays strict
    if writer.nl == "\r\n" and writer.unit is not None:
        assert "\n" not in new.replace("\r\n", "")
    if state != "null":
        assert only_insertions(text, new), (text, new)
    assert JSON.set_entry(new, container, key, entry, {}) == (new, True)

    restored, removed = JSON.remove_entry(new, container, key)
    assert removed
    if state == "full":
        assert restored == text, (text, new, restored)
    else:
        after = load_jsonc(restored)
        assert after == with_entry(before, path, key, None) or _without(after, path, key) == before
    if not jsonc:
        json.loads(restored)


def _without(data: Any, path: tuple[str, ...], key: str) -> Any:
    """*data* with the (emptied) container path pruned, for comparing with a file that had
    none: an emptied container stays behind as ``{}``."""
    data = copy.deepcopy(data)
    chain = [data]
    for part in path:
        chain.append(chain[-1][part])
    chain[-1].pop(key, None)
    for depth in range(len(path) - 1, -1, -1):
        if chain[depth + 1] == {}:
            del chain[depth][path[depth]]
        else:
            break
    return data


# -- TOML ----------------------------------------------------------------------------------

TOML = get_format("toml")
TOML_SCALARS = st.one_of(STRINGS, st.booleans(), st.integers(-(2**40), 2**40), st.just(0.5))


def basic(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def toml_key(key: str) -> str:
    bare = key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key)
    return key if bare else basic(key)


@st.composite
def toml_documents(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    """A Codex-like config.toml, written by hand in one of several layouts:
    (text, data, state of ``mcp_servers``)."""
    rng = random.Random(draw(SEEDS))
    nl = rng.choice(["\n", "\r\n"])
    lines: list[str] = []

    def comment() -> None:
        if rng.random() < 0.3:
            lines.append(rng.choice(["# a comment", "   # indented", "#", "", "# [mcp_servers.x]"]))

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return basic(v) if rng.random() < 0.7 or "'" in v or "\n" in v else f"'{v}'"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    data: dict[str, Any] = {}
    top = draw(st.dictionaries(KEYS, TOML_SCALARS, max_size=3))
    for k, v in top.items():
        comment()
        lines.append(f"{toml_key(k)} = {value(v)}" + rng.choice(["", "  # why"]))
        data[k] = v
    state = draw(st.sampled_from(["missing", "super", "full", "full"]))
    others = draw(OTHER_ENTRIES.filter(bool)) if state == "full" else {}
    tables: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    if state == "super":
        tables.append((("mcp_servers",), {}))
    for name, server in others.items():
        if rng.random() < 0.2:
            tables.append((("mcp_servers",), {}))
        tables.append((("mcp_servers", name), server))
        if rng.random() < 0.3:
            tables.append((("mcp_servers", name, "env"), {"K": "v"}))
    tables.append((("profiles", "na me"), {"model": "o3"}))
    rng.shuffle(tables)
    seen: set[tuple[str, ...]] = set()
    ordered = []
    for table_path, body in tables:  # parents before children, each once
        if table_path not in seen and (len(table_path) < 3 or table_path[:2] in seen):
            seen.add(table_path)
            ordered.append((table_path, body))
    for table_path, body in ordered:
        comment()
        lines.append("")
        lines.append(
            "[" + ".".join(toml_key(p) for p in table_path) + "]" + rng.choice(["", " # t"])
        )
        node = data
        for part in table_path:
            node = node.setdefault(part, {})
        for k, v in body.items():
            comment()
            lines.append(f"{toml_key(k)} = {value(v)}")
            node[k] = v
    text = nl.join(lines) + rng.choice(["", nl])
    if state == "full" and not data.get("mcp_servers"):
        state = "super"
    return text, data, state


@pytest.mark.slow  # 150 examples: 1-10 s each, the longest tests outside -m slow
@SETTINGS
@given(toml_documents(), ENTRY_KEYS, ENTRIES)
def test_toml_install_and_uninstall(
    doc: tuple[str, dict[str, Any], str], key: str, entry: dict[str, Any]
) -> None:
    text, data, state = doc
    assert tomllib.loads(text) == data, text
    container = Container(("mcp_servers",))
    assume(key not in data.get("mcp_servers", {}))
    new, existed = TOML.set_entry(text, container, key, entry, {})
    assert not existed
    assert tomllib.loads(new) == with_entry(data, ("mcp_servers",), key, entry), new
    if "\r\n" in text:
        assert "\n" not in new.replace("\r\n", "")
    if text.endswith("\n") or not text:
        assert only_insertions(text, new), (text, new)
    assert TOML.set_entry(new, container, key, entry, {}) == (new, True)
    restored, removed = TOML.remove_entry(new, container, key)
    assert removed
    assert tomllib.loads(restored) in (data, with_entry(data, ("mcp_servers",), key, None))
    if state == "full" and text.endswith("\n"):
        assert restored == text, (text, new, restored)


# -- YAML ----------------------------------------------------------------------------------

YAML_FMT = get_format("yaml")


def ruamel_dump(data: Any, mapping: int, offset: int) -> str:
    yaml = YAML()
    yaml.indent(mapping=mapping, sequence=mapping + offset, offset=offset)
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def sprinkle(text: str, rng: random.Random) -> str:
    """Comment lines, blank lines and end-of-line comments (never inside block scalars:
    the generated strings are single-line or quoted)."""
    out = []
    for line in text.splitlines(keepends=True):
        if rng.random() < 0.15:
            indent = rng.choice([0, 2, 4, len(line) - len(line.lstrip(" "))])
            out.append(" " * indent + "# comment: [x] - y\n")
        if rng.random() < 0.1:
            out.append("\n")
        if rng.random() < 0.15 and line.rstrip().endswith((":", "true", "false", "1")):
            line = line.rstrip("\n") + "  # why\n"
        out.append(line)
    return "".join(out)


def ruamel_load(text: str) -> Any:
    return json.loads(json.dumps(YAML(typ="safe", pure=True).load(text), default=str))


@pytest.mark.slow  # 150 examples: 1-10 s each, the longest tests outside -m slow
@SETTINGS
@given(
    documents(allow_null=True),
    ENTRY_KEYS,
    ENTRIES,
    st.booleans(),
    SEEDS,
    st.booleans(),
)
def test_yaml_install_and_uninstall(
    doc: tuple[dict[str, Any], tuple[str, ...], str],
    key: str,
    entry: dict[str, Any],
    as_list: bool,
    seed: int,
    flow: bool,
) -> None:
    rng = random.Random(seed)
    data, path, state = doc
    if as_list:  # Continue: a list of entries matched by "name"
        _listify(data, path)
        entry = {"name": key, **entry}
    if flow and state == "full":  # the container in flow style: {a: {...}} / [{...}]
        data = _flowed(data, path)
    container = Container(path, "name" if as_list else None)
    text = ruamel_dump(data, rng.choice([2, 4]), rng.choice([0, 2]))
    text = sprinkle(text, rng)
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    before = ruamel_load(text)
    before_11 = pyyaml.safe_load(text)
    try:
        present = YAML_FMT.read_entries(text, container)
    except ParseError:  # refused as a whole (nothing is written): not this test's subject
        present = {key: None}
    assume(key not in present)

    new, existed = YAML_FMT.set_entry(text, container, key, entry, {})
    assert not existed
    assert YAML_FMT.read_entries(new, container)[key] == entry
    after = ruamel_load(new)
    expected = _yaml_with(before, path, key, entry, as_list)
    assert after == expected, new
    # a YAML 1.1 reader (PyYAML; older Goose/Continue parsers) reads our entry the same way
    after_11 = pyyaml.safe_load(new)
    assert _yaml_with(before_11, path, key, entry, as_list) == after_11, new
    if "\r\n" in text:
        assert "\n" not in new.replace("\r\n", "")
    if state == "full":
        assert only_insertions(text, new), (text, new)

    restored, removed = YAML_FMT.remove_entry(new, container, key)
    assert removed
    if state == "full":
        assert restored == text, (text, new, restored)
    assert key not in YAML_FMT.read_entries(restored, container)


def _flowed(data: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    value = node[path[-1]]
    flow = CommentedMap(value) if isinstance(value, dict) else CommentedSeq(value)
    flow.fa.set_flow_style()
    node[path[-1]] = flow
    return data


def _listify(data: dict[str, Any], path: tuple[str, ...]) -> None:
    node: Any = data
    for part in path[:-1]:
        node = node.get(part)
        if not isinstance(node, dict):
            return
    if isinstance(node.get(path[-1]), dict):
        node[path[-1]] = [{"name": k, **v} for k, v in node[path[-1]].items()]


def _yaml_with(data: Any, path: tuple[str, ...], key: str, entry: Any, as_list: bool) -> Any:
    data = copy.deepcopy(data) or {}
    node = data
    for part in path:
        if node.get(part) is None:
            node[part] = [] if as_list and part == path[-1] else {}
        node = node[part]
    if as_list:
        node.append(entry)
    else:
        node[key] = entry
    return data


# -- errors --------------------------------------------------------------------------------


@pytest.mark.slow  # 150 examples: 1-10 s each, the longest tests outside -m slow
@SETTINGS
@given(documents(), SEEDS, st.sampled_from(["json", "yaml", "toml"]))
def test_broken_documents_name_a_position_inside_the_text(
    doc: tuple[dict[str, Any], tuple[str, ...], str], seed: int, fmt_name: str
) -> None:
    rng = random.Random(seed)
    """Cutting a valid document short or adding junk makes it unparseable: the error names a
    line and column that exist in the text, and never passes for a valid edit."""
    data, path, _state = doc
    text = JSONWriter(rng, True).dump(data) if fmt_name == "json" else ""
    if fmt_name == "yaml":
        text = ruamel_dump(data, 2, 0)
    if fmt_name == "toml":
        text = "\n".join(f"{toml_key(k)} = {json.dumps(str(v))}" for k, v in data.items())
    cut = rng.randint(0, len(text))
    broken = text[:cut] + rng.choice(["{", '"', "[", "\n:\n", "\n  - ]", "= ="]) + text[cut:]
    try:
        get_format(fmt_name).set_entry(broken, Container(path), "w", {"command": "c"}, {})
    except ParseError as exc:
        lines = broken.split("\n")
        assert 1 <= exc.line <= len(lines) + 1
        assert 1 <= exc.column <= len(lines[exc.line - 1] if exc.line <= len(lines) else "") + 2
    except Exception as exc:  # a StructureError is fine; anything else is a bug
        assert type(exc).__name__ == "StructureError", repr(exc)


def test_the_independent_jsonc_reader() -> None:
    text = '// c\n{"a": "// x, }", /* y */ "b": [1, 2,],}\n'
    assert load_jsonc(text) == {"a": "// x, }", "b": [1, 2]}


# -- hostile files: mcp install / uninstall end to end (issue 11) --------------------------
#
# The documents above, written in each client's format, then damaged: cut short, a token of
# another syntax inserted, a span doubled, nesting beyond the limit, bytes that are not UTF-8,
# the container replaced by a value of another type. ``add_server_entry`` and
# ``remove_server_entry`` (what ``mcp install``/``uninstall`` and deploys run) either refuse
# with a located ``ConfigFileError`` and leave the file's bytes as they were, or make a
# lossless edit: the file parses with an independent reader to the old data plus (minus) the
# one entry. Never another exception, never a file the independent reader rejects.

HOSTILE_CLIENTS = st.sampled_from(["claude-code", "vscode", "codex", "goose", "continue"])
TOKENS = [
    "{", "}", "[", "]", '"', "'", ":", ",", "\n", "#", "//", "/*", "*/", "---", "\t", "&a",
    "*a", "!!str ", "\x00", "\ufeff", "=", "[[x]]", '"""', "\\", "? ", "- ", "\r",
]  # fmt: skip


@st.composite
def hostile_texts(draw: st.DrawFn, fmt: str) -> tuple[str | bytes, Any]:
    """(the file's content, its data before damage) for a client of format *fmt*."""
    data, path, _state = draw(documents())
    if draw(st.integers(0, 9)) == 0 and path:  # the container of another type
        data[path[0]] = draw(st.one_of(SCALARS, st.lists(SCALARS, max_size=2)))
    rng = random.Random(draw(SEEDS))
    if fmt == "json":
        text = JSONWriter(rng, jsonc=rng.random() < 0.5).dump(data)
    elif fmt == "yaml":
        text = ruamel_dump(data, rng.choice([2, 4]), rng.choice([0, 2]))
    else:
        text = "\n".join(f"{toml_key(k)} = {json.dumps(str(v))}" for k, v in data.items())
    damage = draw(st.sampled_from(["none", "cut", "token", "double", "deep", "bytes"]))
    at = draw(st.integers(0, len(text)))
    if damage == "cut":
        text = text[:at]
    elif damage == "token":
        text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
    elif damage == "double":
        end = draw(st.integers(at, len(text)))
        text = text[:end] + text[at:end] + text[end:]
    elif damage == "deep":
        depth = draw(st.sampled_from([50, 98, 99, 100, 101, 300]))
        nested = {
            "json": '"deep": ' + "[" * depth + "]" * depth + ",",
            "yaml": "deep: " + "[" * depth + "]" * depth + "\n",
            "toml": "deep = " + "[" * depth + "]" * depth + "\n",
        }[fmt]
        text = nested + text if fmt != "json" else text.replace("{", "{" + nested, 1)
    elif damage == "bytes":
        raw = text.encode("utf-8")
        return raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[
            at:
        ], data
    return text, data


def independent_load(fmt: str, raw: bytes) -> Any:
    """The data of a file as another reader sees it (raises on a file it rejects)."""
    text = raw.decode("utf-8").removeprefix("\ufeff")
    if fmt == "json":
        return load_jsonc(text) if text.strip() else None
    if fmt == "toml":
        return tomllib.loads(text)
    return ruamel_load(text) if text.strip() else None


@fuzz(ci_examples=300)
@given(HOSTILE_CLIENTS, st.data())
def test_hostile_files_give_a_located_problem_or_a_lossless_edit(
    client_id: str, data: st.DataObject
) -> None:
    import tempfile

    from agenttools_runtime.clients import get_client
    from agenttools_runtime.errors import ConfigFileError, ConfigFileUnparseable
    from agenttools_runtime.mcp.entries import container_for
    from agenttools_runtime.mcp.install import add_server_entry, remove_server_entry
    from agenttools_runtime.mcp.server import MCPServer

    client = get_client(client_id)
    fmt = client.config_format
    content, _data = data.draw(hostile_texts(fmt))
    raw = content if isinstance(content, bytes) else content.encode("utf-8")
    server = MCPServer("weather", command="weather-mcp", args=("--units", "metric"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / {"json": "mcp.json", "toml": "config.toml", "yaml": "config.yaml"}[fmt]
        path.write_bytes(raw)
        try:
            add_server_entry(path, client, "weather", server)
        except ConfigFileError as exc:
            assert path.read_bytes() == raw  # refused: not a byte changed
            event(f"{fmt}: refused ({type(exc).__name__})")
            if isinstance(exc, ConfigFileUnparseable) and exc.data.get("line"):
                lines = raw.decode("utf-8", "replace").split("\n")
                assert 1 <= exc.data["line"] <= len(lines) + 1, exc
            return
        after = path.read_bytes()
        event(f"{fmt}: edited")
        try:
            old = independent_load(fmt, raw)
        except Exception:  # accepted what the other reader rejects: at least no worse
            old = None
        new = independent_load(fmt, after)  # never an invalid file written
        container = container_for(client, path)
        entries = get_format(fmt).read_entries(
            after.decode("utf-8").removeprefix("\ufeff"), container
        )
        assert "weather" in entries
        if old is not None and isinstance(old, dict):
            for key, value in old.items():  # every other value kept
                if key not in container.path[:1] and key not in ("name", "version", "schema"):
                    assert new[key] == value, (raw, after)
        remove_server_entry(path, client, "weather")
        restored = independent_load(fmt, path.read_bytes())
        if old is not None and isinstance(old, dict) and isinstance(restored, dict):
            for key, value in old.items():
                if key not in container.path[:1]:
                    assert restored.get(key) == value, (raw, path.read_bytes())
