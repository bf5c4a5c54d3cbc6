"""toml_text.py: the one scanner of TOML text (key lines for problems, headers for config
edits), against what tomllib parses from the same text."""

from __future__ import annotations

import json
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from agenttools_runtime import limits
from agenttools_runtime.toml_text import TomlLines, deep_line, format_key, scan

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

AWKWARD = (
    "# [not.a.header]\n"
    'a = "[x] = 1 # not a comment"\n'
    "b = '''\n[inside.a.string]\nc = 1\n'''\n"
    'd = """\n\\""" still inside\n[nor.this]\n"""\n'
    'e = [\n  1,\n  # [comment]\n  [2, 3],\n  "]",\n]\n'
    "f = { g = 1, h = [1] }\r\n"
    '"q.k" = 1\n'
    "  [ t . 'u' ]  # a header\n"
    "v.w = 2\n"
    "[[arr]]\n"
    "x = 1\n"
    "[[arr]]\n"
    "x = 2\n"
)


def test_scan_finds_headers_and_keys_and_nothing_inside_values() -> None:
    tomllib.loads(AWKWARD)  # (TOML indeed)
    found = [(s.kind, s.key, s.line) for s in scan(AWKWARD)]
    assert found == [
        ("key", ("a",), 2),
        ("key", ("b",), 3),
        ("key", ("d",), 7),
        ("key", ("e",), 11),
        ("key", ("f",), 17),
        ("key", ("q.k",), 18),
        ("table", ("t", "u"), 19),
        ("key", ("v", "w"), 20),
        ("array", ("arr",), 21),
        ("key", ("x",), 22),
        ("array", ("arr",), 23),
        ("key", ("x",), 24),
    ]
    starts = {s.key: s.start for s in scan(AWKWARD) if s.kind == "table"}
    assert AWKWARD[starts[("t", "u")] :].startswith("  [ t . 'u' ]")


def test_the_lines_of_keys_inside_arrays_of_tables() -> None:
    lines = TomlLines(AWKWARD)
    assert lines.line(("arr", 1, "x")) == 24
    assert lines.line(("arr", 0)) == 21
    assert lines.line(("t", "u", "v", "w")) == 20
    assert lines.line(("nor",)) is None  # inside a multi-line string


def test_deep_line_counts_as_the_parsed_data_nests() -> None:
    allowed = limits.MAX_NESTING - 1  # the document is one level
    assert deep_line("a = " + "[" * allowed + "]" * allowed + "\n") is None
    text = "x = 1\na = [\n" + "[" * allowed + "]" * (allowed + 1) + "\n"
    assert deep_line(text) == 3
    dotted = ".".join(["k"] * (limits.MAX_NESTING + 1))
    assert deep_line(f"ok = 1\n{dotted} = 1\n") == 2
    assert deep_line(f"[{dotted}]\n") == 1


def test_format_key_quotes_what_is_not_bare() -> None:
    assert format_key(("tool", "agenttools", "bundles", 0, "a.b")) == (
        'tool.agenttools.bundles[0]."a.b"'
    )


BARE = st.text("abz-_09", min_size=1, max_size=4)
KEYS = st.one_of(BARE, st.text(" .#=[]'\"\\é", min_size=1, max_size=4))
VALUES = st.recursive(
    st.one_of(st.integers(), st.text(" []{}#='\"\\\n\té,azb", max_size=6), st.booleans()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(BARE, inner, max_size=2),
    max_leaves=6,
)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[\n  " + ",\n  ".join(_value(v) for v in value) + "\n]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {_value(v)}' for k, v in value.items()) + " }"
    return str(value)


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)  # (its escapes are TOML's)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(KEYS, st.dictionaries(KEYS, VALUES, max_size=3), max_size=3))
def test_every_key_tomllib_reads_has_its_line(tables: dict[str, dict[str, object]]) -> None:
    text = "".join(
        f"[{_key(name)}]\n" + "".join(f"{_key(k)} = {_value(v)}\n" for k, v in table.items())
        for name, table in tables.items()
    )
    assert tomllib.loads(text) == tables
    lines = TomlLines(text)
    source = text.split("\n")
    for name, table in tables.items():
        header = lines.line((name,))
        assert header is not None and source[header - 1].startswith("[")
        for key in table:
            line = lines.line((name, key))
            assert line is not None and source[line - 1].startswith(_key(key))
