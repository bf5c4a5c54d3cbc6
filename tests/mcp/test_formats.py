"""A corpus of awkward real-world config files: each round-trips an install and an uninstall
byte-for-byte, keeps every other byte, and reads back the entry."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

import pytest
import tomlkit

from agenttools_runtime.errors import ConfigFileUnparseable
from agenttools_runtime.limits import MAX_NESTING
from agenttools_runtime.mcp.formats import Container, ParseError, edit_config_file, get_format
from agenttools_runtime.mcp.formats.base import StructureError
from tests.mcp.samples import only_insertions

ENTRY = {"type": "stdio", "command": "/venv/bin/python", "args": ["-m", "w"], "env": {}}
SERVERS = Container(("mcpServers",))


def _deep(depth: int) -> str:
    inner = '{"leaf": [1, 2, {"x": null}]}'
    for i in range(depth):
        inner = f'{{"level{i}": {inner}, "n": {i}}}'
    return inner


def _large() -> str:
    projects = {
        f"/home/me/project-{i}": {
            "history": [
                {"display": f"prompt {j} \u00e9\u2603 \\n", "pastedContents": {}} for j in range(30)
            ],
            "allowedTools": ["Bash(ls:*)"],
            "lastCost": i * 0.25,
        }
        for i in range(300)
    }
    return json.dumps({"numStartups": 42, "projects": projects, "mcpServers": {}}, indent=2) + "\n"


JSON_CORPUS = {
    "crlf": '{\r\n  "a": 1,\r\n  "mcpServers": {\r\n    "o": {"command": "x"}\r\n  }\r\n}\r\n',
    "tabs": '{\n\t"mcpServers": {\n\t\t"o": {\n\t\t\t"command": "x"\n\t\t}\n\t}\n}\n',
    "four-spaces": '{\n    "mcpServers": {\n        "o": {}\n    }\n}',
    "trailing-commas": '{\n  "mcpServers": {\n    "o": {"command": "x",},\n  },\n  "z": [1, 2,],\n}\n',
    "comments-everywhere": (
        '/* header */\n{ // open\n  "mcpServers" /* k */ : /* v */ {\n    // none yet\n  }, '
        '// after\n  "s": "// not a comment", "t": "/* nor this */"\n} // end\n'
    ),
    "minified": '{"a":1,"mcpServers":{"o":{"command":"x"}},"b":[true,false,null]}',
    "single-line-spaced": '{"a": 1, "mcpServers": {"o": {"command": "x"}}}',
    "escapes": '{"k\\u00e9y": "\\ud83d\\ude00", "mcpServers": {"o\\"q": {}}, "n": -1.5e+10}\n',
    # as deep as accepted (agenttools_runtime.limits): the root, 96 levels, the leaf's 3
    "deeply-nested": '{"settings": ' + _deep(MAX_NESTING - 4) + ', "mcpServers": {}}\n',
    "empty-object": "{}",
    "no-container": '{\n  "theme": "dark"\n}\n',
    "very-large": _large(),
    "unicode": '{\n  "greeting": "h\u00e9llo \u2603 \U0001f600",\n  "mcpServers": {}\n}\n',
}


@pytest.mark.parametrize("name", sorted(JSON_CORPUS))
@pytest.mark.parametrize("bom", [False, True], ids=["", "bom"])
def test_json_corpus_round_trips(name: str, bom: bool, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    original = JSON_CORPUS[name].encode("utf-8")
    if bom:
        original = codecs.BOM_UTF8 + original
    path.write_bytes(original)
    fmt = get_format("json")
    _existed, written = edit_config_file(
        path, lambda text: fmt.set_entry(text, SERVERS, "weather", ENTRY, {})
    )
    assert written
    after = path.read_bytes()
    assert after.startswith(codecs.BOM_UTF8) == bom
    assert only_insertions(original.decode("utf-8-sig"), after.decode("utf-8-sig"))
    if b"\r\n" in original:
        assert b"\n" not in after.replace(b"\r\n", b"")
    assert fmt.read_entries(after.decode("utf-8-sig"), SERVERS)["weather"] == ENTRY
    edit_config_file(path, lambda text: fmt.remove_entry(text, SERVERS, "weather"))
    restored = path.read_bytes()
    if name in ("no-container", "empty-object"):
        assert b'"mcpServers": {}' in restored or b'"mcpServers":{}' in restored
    else:
        assert restored == original


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', 3, 3),
        ('{\n  "a": [1, 2\n}', 3, 1),
        ('{"a": tru}', 1, 7),
        ('{"a": 1}\n{"b": 2}', 2, 1),
        ('{\n  "a": "unterminated\n}', 2, 21),
        ("/* never closed\n{}", 1, 1),
        ('{"a": NaN}', 1, 7),
    ],
)
def test_json_errors_name_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(ParseError) as info:
        get_format("json").set_entry(text, SERVERS, "w", ENTRY, {})
    assert (info.value.line, info.value.column) == (line, column)


def test_non_utf8_file_is_unparseable(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b'{"a": "\xff"}')
    fmt = get_format("json")
    with pytest.raises(ConfigFileUnparseable, match="line 1, column 8"):
        edit_config_file(path, lambda text: fmt.set_entry(text, SERVERS, "w", ENTRY, {}))
    assert path.read_bytes() == b'{"a": "\xff"}'


def test_non_utf8_position_counts_characters(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes('{\n  "\u00e9t\u00e9": "\u2603'.encode() + b'\xff"}')
    fmt = get_format("json")
    with pytest.raises(ConfigFileUnparseable, match="line 2, column 12"):
        edit_config_file(path, lambda text: fmt.set_entry(text, SERVERS, "w", ENTRY, {}))


def test_duplicate_keys_last_one_wins_and_removal_takes_all() -> None:
    fmt = get_format("json")
    text = '{"mcpServers": {"w": {"old": 1}, "w": {"old": 2}}}'
    assert fmt.read_entries(text, SERVERS)["w"] == {"old": 2}
    new, existed = fmt.set_entry(text, SERVERS, "w", ENTRY, {})
    assert existed and new.startswith('{"mcpServers": {"w": {"old": 1}, "w": {"type"')
    gone, removed = fmt.remove_entry(new, SERVERS, "w")
    assert removed and gone == '{"mcpServers": {}}'


CODEX = Container(("mcp_servers",))
CODEX_ENTRY = {"command": "/venv/bin/python", "args": ["-m", "w"], "env": {"K": "v"}}
TOML_CORPUS = {
    "crlf": 'model = "o3"\r\n\r\n[mcp_servers.o]\r\ncommand = "x"\r\n',
    "multiline-values": (
        '[mcp_servers.o]\nargs = [\n  "a",\n  ["nested"]\n]\ndoc = """\n[mcp_servers.fake]\n"""\n'
        "lit = '''\n[also.fake]\n'''\n\n[mcp_servers.o.env]\nK = \"v\"  # why\n"
    ),
    "comments-and-dotted": (
        '# top\nmodel = "o3" # m\n\n[mcp_servers]\n# the container\na.command = "x"\n\n'
        '[profiles."quoted key"]\nx = 1\n'
    ),
    "no-trailing-newline": '[mcp_servers.o]\ncommand = "x"',
    "no-container": '# only settings\nmodel = "o3"\n',
    "inline-container": 'mcp_servers = { o = { command = "x" } }\n',
}


@pytest.mark.parametrize("name", sorted(TOML_CORPUS))
def test_toml_corpus_round_trips(name: str) -> None:
    fmt = get_format("toml")
    original = TOML_CORPUS[name]
    new, existed = fmt.set_entry(original, CODEX, "weather", CODEX_ENTRY, {})
    assert not existed
    assert only_insertions(original, new)
    assert fmt.read_entries(new, CODEX)["weather"] == CODEX_ENTRY
    restored, removed = fmt.remove_entry(new, CODEX, "weather")
    assert removed and restored == original


def test_toml_of_many_values_is_read() -> None:
    # TOML has no aliases: a large file is not refused as a YAML "billion laughs" (JSON's
    # is not either); only its nesting is limited
    text = '[mcp_servers.o]\ncommand = "x"\n\n[other]\nbig = [' + ",".join("1" * 100_001) + "]\n"
    assert get_format("toml").read_entries(text, CODEX) == {"o": {"command": "x"}}


def test_toml_entry_of_dotted_keys_is_replaced() -> None:
    # the entry is dotted keys of [mcp_servers]: a [mcp_servers.weather] table spliced after
    # them redefines it (tomlkit says so with a bare TOMLKitError); the edit is made another way
    fmt = get_format("toml")
    text = '[mcp_servers]\nweather.command = "old"\nother = { command = "o" }\n'
    new, existed = fmt.set_entry(text, CODEX, "weather", CODEX_ENTRY, {})
    assert existed
    assert fmt.read_entries(new, CODEX) == {"weather": CODEX_ENTRY, "other": {"command": "o"}}
    assert fmt.remove_entry(text, CODEX, "weather")[1]


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers.weather.command = "old"\nmodel = "o3"\n',
        'mcp_servers.weather.command = "old"\nmcp_servers.other.command = "o"\n',
        'a.b = 1\nmcp_servers.weather.command = "old"\na.c = 2\n',
    ],
)
def test_toml_edit_never_moves_other_keys(text: str) -> None:
    # the entry is dotted keys of the root, and root keys follow it: written back as a
    # [mcp_servers.weather] table, those keys would be read as the entry's ("model" a key
    # of the server, not Codex's model); the file is refused, never rewritten so
    fmt = get_format("toml")
    for edit in (
        lambda: fmt.set_entry(text, CODEX, "weather", CODEX_ENTRY, {}),
        lambda: fmt.remove_entry(text, CODEX, "weather"),
    ):
        try:
            new, _ = edit()
        except StructureError:
            continue
        data = tomlkit.parse(new).unwrap()
        before = tomlkit.parse(text).unwrap()
        servers = data.pop("mcp_servers", {})
        assert set(servers) - {"weather"} == set(before.pop("mcp_servers")) - {"weather"}
        assert servers.get("weather", CODEX_ENTRY) == CODEX_ENTRY
        assert data == before


def test_toml_of_nan_is_edited() -> None:
    # nan is not == nan: an edit is checked with nan the same as itself, never refused
    fmt = get_format("toml")
    text = "[a]\nx = [1, nan]\n"
    new, _ = fmt.set_entry(text, CODEX, "weather", CODEX_ENTRY, {})
    assert only_insertions(text, new)
    assert fmt.remove_entry(new, CODEX, "weather") == (text, True)


def test_toml_table_redefining_dotted_keys_is_a_located_parse_error() -> None:
    text = '[mcp_servers]\nweather.command = "old"\n[mcp_servers.weather]\nargs = []\n'
    fmt = get_format("toml")
    for edit in (
        lambda: fmt.read_entries(text, CODEX),
        lambda: fmt.set_entry(text, CODEX, "w", {"command": "x"}, {}),
        lambda: fmt.remove_entry(text, CODEX, "weather"),
    ):
        with pytest.raises(ParseError) as info:
            edit()
        # located at the redefining header: by the standard reader where tomlkit gives no
        # position (0.15.2), by tomlkit at the line after it where it does (0.15.3)
        assert info.value.line in (3, 4), info.value


GOOSE = Container(("extensions",))
GOOSE_ENTRY = {"name": "weather", "cmd": "/venv/bin/python", "args": ["-m", "w"], "enabled": True}
YAML_CORPUS = {
    "crlf": "GOOSE_MODEL: gpt\r\nextensions:\r\n  o:\r\n    cmd: x\r\n",
    "anchors": "base: &b {cmd: x}\nextensions:\n  o: *b\n  p:\n    <<: *b\n    name: p\n",
    "block-scalars": "note: |\n  line one\n  line two\nextensions:\n  o:\n    description: >\n      folded\n      text\n    cmd: x\n# end\n",
    "document-start": "%YAML 1.2\n---\nextensions:\n  o:\n    cmd: x\n",
    "indentless-lists": "extensions:\n  o:\n    args:\n    - a\n    - b\nother:\n- 1\n",
    "four-space-indent": "extensions:\n    o:\n        cmd: x\n# trailing\n",
    "quoted": "'extensions':\n  \"o\":\n    cmd: 'x'   # keep 'quotes'\n",
}


@pytest.mark.parametrize("name", sorted(YAML_CORPUS))
def test_yaml_corpus_round_trips(name: str) -> None:
    fmt = get_format("yaml")
    original = YAML_CORPUS[name]
    new, existed = fmt.set_entry(original, GOOSE, "weather", GOOSE_ENTRY, {})
    assert not existed
    assert only_insertions(original, new), new
    if "\r\n" in original:
        assert "\n" not in new.replace("\r\n", "")
    assert fmt.read_entries(new, GOOSE)["weather"] == GOOSE_ENTRY
    restored, removed = fmt.remove_entry(new, GOOSE, "weather")
    assert removed and restored == original


CONTINUE = Container(("mcpServers",), "name")


@pytest.mark.parametrize(
    ("text", "container"),
    [
        ("base: &b {weather: {cmd: x}}\nextensions: *b\n", GOOSE),  # the container an alias
        ("extensions: &b {weather: {cmd: x}}\nother: *b\n", GOOSE),  # the container an anchor
        ("extensions: &b\n  weather:\n    cmd: x\nother: *b\n", GOOSE),
        ("base: &b [{name: weather}]\nmcpServers: *b\n", CONTINUE),
        ("mcpServers: &b\n- name: weather\nother: *b\n", CONTINUE),
    ],
)
def test_a_yaml_container_shared_through_an_anchor_is_refused(
    text: str, container: Container
) -> None:
    """An entry written into (or removed from) an anchored mapping is also in every key that
    aliases it (the user's other keys change): set and remove are refused, saying why."""
    fmt = get_format("yaml")
    entry = {"name": "weather", "cmd": "y"} if container.list_key else {"cmd": "y"}
    for edit in (
        lambda: fmt.set_entry(text, container, "weather", entry, {}),
        lambda: fmt.remove_entry(text, container, "weather"),
    ):
        with pytest.raises(StructureError, match=re.escape("a YAML anchor or alias (&b / *b)")):
            edit()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<<: {extensions: {weather: {cmd: x}}}\n", "comes from a YAML merge key (<<)"),
        ("extensions:\n  <<: {weather: {cmd: x}}\n", "holds a YAML merge key (<<)"),
        ("b: &b {o: 1}\nextensions:\n  <<: *b\n  weather:\n    cmd: x\n", "merge key (<<)"),
        ("extensions: !!omap\n- weather: {cmd: x}\n", "is a YAML !!omap"),
        ("--- !!omap\n- extensions: {weather: {cmd: x}}\n", "the top level is a YAML !!omap"),
    ],
)
def test_a_yaml_container_of_merged_or_omap_keys_is_refused(text: str, problem: str) -> None:
    """Keys from a merge key (``<<``) and the pairs of an ``!!omap`` have no lines of their
    own: set and remove are refused, saying why; the entry's span is unknown (None)."""
    fmt = get_format("yaml")
    for edit in (
        lambda: fmt.set_entry(text, GOOSE, "weather", {"cmd": "y"}, {}),
        lambda: fmt.set_entry(text, GOOSE, "new", {"cmd": "y"}, {}),
        lambda: fmt.remove_entry(text, GOOSE, "weather"),
    ):
        with pytest.raises(StructureError, match=re.escape(problem)):
            edit()
    assert fmt.read_entries(text, GOOSE)["weather"] == {"cmd": "x"}
    if "<<: *b" not in text:  # (there the entry is the container's own key)
        assert fmt.entry_span(text, GOOSE, "weather") is None


@pytest.mark.parametrize(
    "text",
    [
        "extensions: !!omap\n",  # (on a scalar: ruamel raises AttributeError)
        "extensions: !!set\n",
        "x: !!int abc\nextensions: {}\n",  # ValueError
        "x: !!float abc\n",
        "x: !!bool abc\n",  # KeyError
        "base: &b\n  <<: *b\nextensions: {}\n",  # a mapping merged into itself
    ],
)
def test_a_yaml_value_ruamel_cannot_build_is_unparseable(text: str) -> None:
    """ruamel's constructor fails on these with a Python error of its own, not a YAML one:
    each is a ParseError (ConfigFileUnparseable, the file unchanged), never a traceback."""
    fmt = get_format("yaml")
    for edit in (
        lambda: fmt.read_entries(text, GOOSE),
        lambda: fmt.set_entry(text, GOOSE, "weather", {"cmd": "y"}, {}),
        lambda: fmt.remove_entry(text, GOOSE, "weather"),
    ):
        with pytest.raises(ParseError, match="a tag its value does not fit"):
            edit()


@pytest.mark.parametrize("container", [GOOSE, CONTINUE])
def test_a_yaml_edit_that_would_not_read_back_is_refused(container: Container) -> None:
    """ruamel reads ``\\t... a: b`` after blank lines (as ``{'... a': 'b'}``) but not with a
    line after it, and its round-trip dumper writes it back unparsable: the edit is
    refused rather than written."""
    text = "\n\n\t... a: b"
    fmt = get_format("yaml")
    assert fmt.read_entries(text, container) == {}
    entry = {"name": "weather", "cmd": "y"} if container.list_key else {"cmd": "y"}
    with pytest.raises(StructureError, match="cannot be written into this file's YAML"):
        fmt.set_entry(text, container, "weather", entry, {})


@pytest.mark.parametrize(
    ("original", "container"),
    [
        (
            "extensions: {developer: {enabled: true, name: developer, type: builtin}}  # flow\n",
            GOOSE,
        ),
        ("# keep me\nextensions: {o: {cmd: x}}\n", GOOSE),
        ("extensions: {\n  a: {cmd: x},   # a\n  b: {cmd: 'y'}\n}  # end\nother: 1\n", GOOSE),
        ("extensions: {}  # none yet\n", GOOSE),
        ("{extensions: {o: {cmd: x}}}  # root\n", GOOSE),
        (
            "mcpServers: [{name: a, command: x}]  # c\nname: cfg\n",
            Container(("mcpServers",), "name"),
        ),
    ],
)
def test_yaml_flow_container_round_trips_byte_for_byte(original: str, container: Container) -> None:
    """A flow-style container gets the entry spliced in as one flow item, and its removal
    gives back the original text (the comment after the bracket stays in its column)."""
    fmt = get_format("yaml")
    entry = {"name": "weather", **GOOSE_ENTRY} if container.list_key else GOOSE_ENTRY
    new, _ = fmt.set_entry(original, container, "weather", entry, {})
    if fmt.read_entries(original, container):  # (an empty {} becomes a block mapping)
        assert only_insertions(original, new), new
    assert fmt.read_entries(new, container)["weather"] == entry
    assert set(fmt.read_entries(new, container)) - {"weather"} == set(
        fmt.read_entries(original, container)
    )
    restored, removed = fmt.remove_entry(new, container, "weather")
    assert removed and restored == original, restored


@pytest.mark.parametrize(
    ("fmt_name", "text", "line"),
    [
        ("yaml", "extensions:\n  a: [1, 2\nother: 1\n", 3),
        ("yaml", "a: 1\na: 2\n", 2),
        ("toml", 'a = 1\n[mcp_servers.x\ncommand = "y"\n', 2),
        ("toml", "a = 1\na = 2\n", 2),
    ],
)
def test_errors_name_the_line(fmt_name: str, text: str, line: int) -> None:
    with pytest.raises(ParseError) as info:
        get_format(fmt_name).set_entry(text, GOOSE if fmt_name == "yaml" else CODEX, "w", {}, {})
    assert info.value.line == line


@pytest.mark.parametrize(
    ("fmt_name", "container", "text"),
    [
        ("json", SERVERS, '{"mcpServers": {"w": {"enabled": 1}}}'),
        ("toml", CODEX, "[mcp_servers.w]\nenabled = 1\n"),
        ("yaml", GOOSE, "extensions:\n  w:\n    enabled: 1\n"),
    ],
)
def test_true_is_not_one(fmt_name: str, container: Container, text: str) -> None:
    fmt = get_format(fmt_name)
    new, existed = fmt.set_entry(text, container, "w", {"enabled": True}, {})
    assert existed and new != text
    assert fmt.read_entries(new, container)["w"] == {"enabled": True}
    assert fmt.set_entry(new, container, "w", {"enabled": True}, {}) == (new, True)


def test_quoted_yaml_values_are_the_same_entry() -> None:
    fmt = get_format("yaml")
    text = "extensions:\n  w:\n    cmd: 'x'\n    envs: {A: \"1\"}\n"
    assert fmt.set_entry(text, GOOSE, "w", {"cmd": "x", "envs": {"A": "1"}}, {}) == (text, True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "mcpServers": null,\n  "x": 1\n}\n', '{\n  "mcpServers": {\n    "w": {\n      "command": "c"\n    }\n  },\n  "x": 1\n}\n'),
        ('{"mcpServers": null}', '{"mcpServers": {"w": {"command": "c"}}}'),
    ],
)  # fmt: skip
def test_null_container_is_replaced(text: str, expected: str) -> None:
    fmt = get_format("json")
    assert fmt.read_entries(text, SERVERS) == {}
    assert fmt.set_entry(text, SERVERS, "w", {"command": "c"}, {}) == (expected, False)
    assert fmt.remove_entry(text, SERVERS, "w") == (text, False)


@pytest.mark.parametrize("value", ["yes", "No", "on", "y", "1:20", "1_000", "0x1F", "~", "null"])
def test_yaml_strings_a_yaml_1_1_reader_would_misread_are_quoted(value: str) -> None:
    """ruamel writes YAML 1.2, where ``yes`` is a string; PyYAML and older client parsers
    read YAML 1.1, where it is True. What we write reads the same in both."""
    import yaml as pyyaml

    fmt = get_format("yaml")
    entry = {"name": value, "cmd": value, "args": [value], "envs": {value: value}}
    for text in ("", "extensions:\n  o:\n    cmd: x\n", "extensions: {o: {cmd: x}}\n"):
        new, _ = fmt.set_entry(text, GOOSE, value, entry, {})
        assert pyyaml.safe_load(new)["extensions"][value] == entry, new


def test_yaml_user_scalars_keep_their_spelling_in_the_round_trip_edit() -> None:
    fmt = get_format("yaml")
    text = "on: yes  # the user's own\nextensions: {o: {cmd: x}}\n"
    new, _ = fmt.set_entry(text, GOOSE, "w", {"cmd": "on"}, {})
    assert new.startswith("on: yes  # the user's own\n")
    assert "cmd: 'on'" in new


@pytest.mark.parametrize(
    ("text", "expected_head"),
    [
        ("# keep\n{}  # and this\n", "# keep\n# and this\nextensions:\n"),
        ("# keep\r\n{}\r\n", "# keep\r\nextensions:\r\n"),
        ("{}", "extensions:\n"),
    ],
)
def test_yaml_empty_flow_document_keeps_its_comments(text: str, expected_head: str) -> None:
    new, _ = get_format("yaml").set_entry(text, GOOSE, "w", {"cmd": "x"}, {})
    assert new.startswith(expected_head), new
    assert get_format("yaml").read_entries(new, GOOSE) == {"w": {"cmd": "x"}}


def test_yaml_round_trip_edit_keeps_crlf() -> None:
    text = "a: 1  # one\r\nextensions: {o: {cmd: x}}\r\n"
    new, _ = get_format("yaml").set_entry(text, GOOSE, "w", {"cmd": "y"}, {})
    assert "\r\n" in new and "\n" not in new.replace("\r\n", ""), new
    assert "\r\r" not in new


def test_yaml_line_separators_inside_strings_are_not_lines() -> None:
    """U+2028 and form feeds in a quoted scalar are not line breaks for ruamel: the splice
    must count lines the same way (``str.splitlines`` does not)."""
    fmt = get_format("yaml")
    text = 'note: "a\u2028b\x85c"\nextensions:\n  o:\n    cmd: x\ntail: 1\n'
    new, _ = fmt.set_entry(text, GOOSE, "w", {"cmd": "y"}, {})
    assert only_insertions(text, new), new
    assert fmt.remove_entry(new, GOOSE, "w") == (text, True)


@pytest.mark.parametrize("list_key", [None, "name"])
def test_yaml_nested_container_paths_are_created_as_mappings(list_key: str | None) -> None:
    fmt = get_format("yaml")
    container = Container(("mcp", "servers"), list_key)
    entry = {"name": "w", "command": "c"}
    for text in ("", "a: 1\n", "mcp:\n  other: 1  # keep\nb: 2\n"):
        new, _ = fmt.set_entry(text, container, "w", entry, {})
        assert fmt.read_entries(new, container) == {"w": entry}, new
        if text.startswith("mcp"):
            assert only_insertions(text, new), new
            assert fmt.remove_entry(new, container, "w")[0].startswith(text[:-5])


def test_json_error_messages_read_as_sentences() -> None:
    with pytest.raises(ParseError) as info:
        get_format("json").set_entry('{"a": "\x01"}', SERVERS, "w", ENTRY, {})
    assert info.value.describe() == "line 1, column 8: invalid control character"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[]", "the top level is not an object"),
        ('{"mcpServers": []}', '"mcpServers" is not an object'),
    ],
)
def test_json_structure_errors_quote_a_path_never_the_top_level(text: str, problem: str) -> None:
    with pytest.raises(StructureError) as info:
        get_format("json").set_entry(text, SERVERS, "w", ENTRY, {})
    assert str(info.value) == problem


@pytest.mark.parametrize("text", ["mcpServers: [{name: x, command: y}]\n", "---\na: 1\n...\n"])
def test_yaml_round_trip_edit_puts_the_required_keys_on_top_in_their_order(text: str) -> None:
    """As the splice does: the edit ruamel's dumper makes keeps the defaults' order."""
    defaults = {"name": "Local Config", "version": "1.0.0", "schema": "v1"}
    container = Container(("mcpServers",), "name")
    new, _ = get_format("yaml").set_entry(text, container, "w", {"command": "z"}, defaults)
    keys = [line.split(":")[0] for line in new.splitlines() if line[:1].isalpha()]
    assert keys[:3] == ["name", "version", "schema"], new


def test_yaml_round_trip_edit_with_an_empty_list_item() -> None:
    """ruamel's indentation guess fails on a line holding only "-": the edit goes on."""
    text = "a:\n  -   \nextensions: {o: {cmd: x}}\n"
    new, _ = get_format("yaml").set_entry(text, GOOSE, "w", {"cmd": "y"}, {})
    assert set(get_format("yaml").read_entries(new, GOOSE)) == {"o", "w"}


@pytest.mark.parametrize("text", ["// only a comment\n", "/* a */\r\n// b\r\n", "  \n"])
def test_json_file_of_only_comments_counts_as_empty(text: str) -> None:
    fmt = get_format("json")
    assert fmt.read_entries(text, SERVERS) == {}
    assert fmt.remove_entry(text, SERVERS, "w") == (text, False)
    new, existed = fmt.set_entry(text, SERVERS, "w", ENTRY, {})
    assert not existed and fmt.read_entries(new, SERVERS) == {"w": ENTRY}
    assert new.startswith(text.strip(" \n")), new
    if "\r\n" in text:
        assert "\n" not in new.replace("\r\n", "")


@pytest.mark.parametrize(
    "text",
    ['{\n  "a": 1 // c\n}\n', '{\n  "a": 1, // c\n}\n', '{"a": 1 /* c */}', "{}", "{\n}\n"],
)
def test_json_several_new_top_level_members_share_one_comma(text: str) -> None:
    """The container and required top-level keys added in one edit: valid JSONC, whatever
    follows the last value."""
    from tests.mcp.samples import load_jsonc

    defaults = {"name": "n", "version": "1"}
    new, _ = get_format("json").set_entry(text, SERVERS, "w", ENTRY, defaults)
    assert load_jsonc(new) == {**load_jsonc(text), "mcpServers": {"w": ENTRY}, **defaults}, new
    assert only_insertions(text, new)


def test_yaml_round_trip_edit_of_an_offset_list_is_valid() -> None:
    """Lists whose dashes sit 2 in from their key, edited by ruamel's dumper (an empty flow
    mapping on the path; an empty item, on which ruamel cannot guess the indentation): the
    new item's keys line up under its first key."""
    fmt = get_format("yaml")
    container = Container(("mcp", "servers"), "name")
    text = "mcp: {}\nother:\n  - \n  - false\n"
    entry = {"name": "w", "command": "c", "args": ["x"]}
    new, _ = fmt.set_entry(text, container, "w", entry, {})
    assert fmt.read_entries(new, container) == {"w": entry}, new


@pytest.mark.parametrize("list_key", [None, "name"])
@pytest.mark.parametrize(
    "text", ["a: 1\nmcp: {}  # none yet\nb: 2\n", "mcp:\nb: 2\n", "mcp: ~  # c\r\n"]
)
def test_yaml_empty_or_null_mapping_on_the_path_is_filled_by_splice(
    text: str, list_key: str | None
) -> None:
    """An empty or null mapping on the way to the container (nothing to lose) gets the rest
    of the path in place: every other line, comments included, stays."""
    fmt = get_format("yaml")
    container = Container(("mcp", "servers"), list_key)
    entry = {"name": "w", "command": "c"}
    new, _ = fmt.set_entry(text, container, "w", entry, {})
    assert fmt.read_entries(new, container) == {"w": entry}
    kept = [line for line in text.splitlines() if not line.startswith("mcp")]
    assert all(line in new.splitlines() for line in kept), new
    assert ("# none yet" in new) == ("# none yet" in text) and ("# c" in new) == ("# c" in text)
    if "\r\n" in text:
        assert "\n" not in new.replace("\r\n", "")
