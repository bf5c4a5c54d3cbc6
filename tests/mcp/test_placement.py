"""Where a new entry goes: a placement corpus with the exact expected text.

TOML: a new ``[mcp_servers.<key>]`` table goes below the last ``mcp_servers`` table (and
the comment lines directly under it), or at the end; a blank line before and after it; never
between a comment and the table that comment heads. JSONC: a new member goes right below the
last member (and a comment on its line), above comment lines that follow. YAML: below the
last entry's block, above comments that are not indented into it. A file without a final
newline keeps lacking one. Removal gives back the original bytes (in the one case where it
cannot — a blank line added between two tables that had none — the test says so).
"""

from __future__ import annotations

import sys

import pytest

from agenttools_runtime.mcp.formats import Container, get_format

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CODEX = Container(("mcp_servers",))
ENTRY = {"command": "/venv/bin/python", "args": ["-m", "w"], "env": {"WEATHER_UNITS": "metric"}}
TABLE = (
    "[mcp_servers.weather]\n"
    'command = "/venv/bin/python"\n'
    'args = ["-m", "w"]\n'
    'env = {WEATHER_UNITS = "metric"}\n'
)

# name -> (original, expected after the install, removal restores the original bytes)
TOML_PLACEMENT: dict[str, tuple[str, str, bool]] = {
    # the report: the comment heading [profiles.fast] stays on top of it
    "comment-heads-next-table": (
        '[mcp_servers.other]\ncommand = "x"\n# profiles follow\n[profiles.fast]\nmodel = "o3"\n',
        '[mcp_servers.other]\ncommand = "x"\n\n'
        + TABLE
        + '\n# profiles follow\n[profiles.fast]\nmodel = "o3"\n',
        False,  # the blank line added after the new table cannot be told from the user's
    ),
    "comment-block-after-blank-line": (
        '[mcp_servers.other]\ncommand = "x"\n\n# profiles follow\n\n[profiles.fast]\nx = 1\n',
        '[mcp_servers.other]\ncommand = "x"\n\n'
        + TABLE
        + "\n# profiles follow\n\n[profiles.fast]\nx = 1\n",
        True,
    ),
    "commented-out-key-stays-with-its-table": (
        '[mcp_servers.other]\ncommand = "x"\n# args = ["later"]\n\n[profiles.fast]\nx = 1\n',
        '[mcp_servers.other]\ncommand = "x"\n# args = ["later"]\n\n'
        + TABLE
        + "\n[profiles.fast]\nx = 1\n",
        True,
    ),
    "after-the-last-mcp-servers-table": (
        '[mcp_servers.a]\ncommand = "a"\n\n[profiles.p]\nx = 1\n\n[mcp_servers.b]\n'
        'command = "b"\n\n[mcp_servers.b.env]\nK = "v"\n\n[tui]\ny = 2\n',
        '[mcp_servers.a]\ncommand = "a"\n\n[profiles.p]\nx = 1\n\n[mcp_servers.b]\n'
        'command = "b"\n\n[mcp_servers.b.env]\nK = "v"\n\n' + TABLE + "\n[tui]\ny = 2\n",
        True,
    ),
    "no-blank-lines-between-tables": (
        '[mcp_servers.other]\ncommand = "x"\n[profiles.fast]\nx = 1\n',
        '[mcp_servers.other]\ncommand = "x"\n\n' + TABLE + "\n[profiles.fast]\nx = 1\n",
        False,
    ),
    "no-trailing-newline": (
        '[mcp_servers.other]\ncommand = "x"',
        '[mcp_servers.other]\ncommand = "x"\n\n' + TABLE[:-1],
        True,
    ),
    "no-container-no-trailing-newline": (
        'model = "o3"',
        'model = "o3"\n\n' + TABLE[:-1],
        True,
    ),
    "no-container-at-the-end": (
        '# settings\nmodel = "o3"\n\n# fast profile\n[profiles.fast]\nx = 1\n# the end\n',
        '# settings\nmodel = "o3"\n\n# fast profile\n[profiles.fast]\nx = 1\n# the end\n\n' + TABLE,
        True,
    ),
    "super-table-only": (
        "[mcp_servers]\n# servers below\n\n[profiles.fast]\nx = 1\n",
        "[mcp_servers]\n# servers below\n\n" + TABLE + "\n[profiles.fast]\nx = 1\n",
        True,
    ),
    "crlf": (
        '[mcp_servers.other]\r\ncommand = "x"\r\n# heads\r\n[tui]\r\n',
        '[mcp_servers.other]\r\ncommand = "x"\r\n\r\n'
        + TABLE.replace("\n", "\r\n")
        + "\r\n# heads\r\n[tui]\r\n",
        False,
    ),
}


@pytest.mark.parametrize("name", sorted(TOML_PLACEMENT))
def test_toml_placement(name: str) -> None:
    original, expected, exact = TOML_PLACEMENT[name]
    fmt = get_format("toml")
    new, existed = fmt.set_entry(original, CODEX, "weather", ENTRY, {})
    assert not existed
    assert new == expected, new
    assert tomllib.loads(new)["mcp_servers"]["weather"] == ENTRY
    restored, removed = fmt.remove_entry(new, CODEX, "weather")
    assert removed
    assert tomllib.loads(restored) == tomllib.loads(original)
    if exact:
        assert restored == original, restored
    else:  # the one line we cannot tell apart: a blank line now separates the two tables
        assert restored.replace("\r\n", "\n").replace("\n\n", "\n") == original.replace(
            "\r\n", "\n"
        ).replace("\n\n", "\n")


def test_toml_inline_table_container_stays_inline() -> None:
    fmt = get_format("toml")
    original = 'mcp_servers = { other = { command = "x" } }  # inline\n[tui]\ny = 2\n'
    new, _ = fmt.set_entry(original, CODEX, "weather", ENTRY, {})
    data = tomllib.loads(new)
    assert data["mcp_servers"]["weather"] == ENTRY and data["tui"] == {"y": 2}
    assert "[mcp_servers.weather]" not in new  # an inline table cannot be extended by a header
    restored, _ = fmt.remove_entry(new, CODEX, "weather")
    assert tomllib.loads(restored) == tomllib.loads(original)


SERVERS = Container(("mcpServers",))
JSON_ENTRY = {"command": "c"}

# name -> (original, expected after the install); removal always restores the bytes
JSONC_PLACEMENT: dict[str, tuple[str, str]] = {
    "comment-after-the-last-member": (
        '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    // "b": {"command": "y"}\n  }\n}\n',
        '{\n  "mcpServers": {\n    "a": {"command": "x"},\n    "weather": {\n'
        '      "command": "c"\n    }\n    // "b": {"command": "y"}\n  }\n}\n',
    ),
    "comment-on-the-last-member-line": (
        '{\n  "mcpServers": {\n    "a": {"command": "x"}, // a\n    // end\n  }\n}\n',
        '{\n  "mcpServers": {\n    "a": {"command": "x"}, // a\n    "weather": {\n'
        '      "command": "c"\n    },\n    // end\n  }\n}\n',
    ),
    "new-container-above-a-closing-comment": (
        '{\n  "theme": "dark"\n  // the end\n}\n',
        '{\n  "theme": "dark",\n  "mcpServers": {\n    "weather": {\n      "command": "c"\n'
        "    }\n  }\n  // the end\n}\n",
    ),
}


@pytest.mark.parametrize("name", sorted(JSONC_PLACEMENT))
def test_jsonc_placement(name: str) -> None:
    original, expected = JSONC_PLACEMENT[name]
    fmt = get_format("json")
    new, _ = fmt.set_entry(original, SERVERS, "weather", JSON_ENTRY, {})
    assert new == expected, new
    restored, removed = fmt.remove_entry(new, SERVERS, "weather")
    if '"mcpServers"' in original:
        assert removed and restored == original


GOOSE = Container(("extensions",))
YAML_PLACEMENT: dict[str, tuple[str, str]] = {
    "comment-heads-next-key": (
        "extensions:\n  o:\n    cmd: x\n# profiles follow\nprofiles: 1\n",
        "extensions:\n  o:\n    cmd: x\n  weather:\n    cmd: c\n# profiles follow\nprofiles: 1\n",
    ),
    "commented-out-entry": (
        "extensions:\n  o:\n    cmd: x\n  # p:\n  #   cmd: y\n\nprofiles: 1\n",
        "extensions:\n  o:\n    cmd: x\n  weather:\n    cmd: c\n  # p:\n  #   cmd: y\n\n"
        "profiles: 1\n",
    ),
    "no-trailing-newline": (
        "extensions:\n  o:\n    cmd: x",
        "extensions:\n  o:\n    cmd: x\n  weather:\n    cmd: c",
    ),
}


@pytest.mark.parametrize("name", sorted(YAML_PLACEMENT))
def test_yaml_placement(name: str) -> None:
    original, expected = YAML_PLACEMENT[name]
    fmt = get_format("yaml")
    new, _ = fmt.set_entry(original, GOOSE, "weather", {"cmd": "c"}, {})
    assert new == expected, new
    assert fmt.remove_entry(new, GOOSE, "weather") == (original, True)
