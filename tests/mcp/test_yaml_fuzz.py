"""Randomized Goose/Continue YAML files (indentation, list style, comments on their own lines
and after values, CRLF): installing an entry only inserts lines, and removing it gives back
the original bytes. Deterministic seeds."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from ruamel.yaml import YAML

from agenttools_runtime.mcp.formats import Container, get_format
from tests.mcp.samples import only_insertions

FMT = get_format("yaml")
GOOSE = Container(("extensions",))
CONTINUE = Container(("mcpServers",), "name")
ENTRY = {"name": "weather", "cmd": "/v/bin/python", "args": ["-m", "w"], "envs": {"A": "1"}}


def dump(data: Any, mapping: int, offset: int) -> str:
    yaml = YAML()
    yaml.indent(mapping=mapping, sequence=mapping + offset if offset else mapping, offset=offset)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def sprinkle(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        if rng.random() < 0.15:
            indent = rng.choice([0, 2, 4, len(line) - len(line.lstrip(" "))])
            out.append(" " * indent + f"# comment {rng.randint(0, 99)}\n")
        if rng.random() < 0.1:
            out.append("\n")
        if rng.random() < 0.15 and line.rstrip().endswith(("true", "false")) and "#" not in line:
            line = line.rstrip("\n") + "  # why\n"
        out.append(line)
    return "".join(out)


def random_file(rng: random.Random, continue_style: bool) -> tuple[str, bool]:
    others = rng.randint(0, 3)
    if continue_style:
        servers: Any = [
            {"name": f"s{i}", "command": "uvx", "args": [f"a{i}"]} for i in range(others)
        ]
        data: dict[str, Any] = {"name": "Local Config", "version": "1.0.0", "schema": "v1"}
        data["models"] = [{"name": "m", "provider": "ollama"}]
        key = "mcpServers"
    else:
        servers = {
            f"s{i}": {"name": f"s{i}", "cmd": "uvx", "args": ["x"], "enabled": rng.random() < 0.5}
            for i in range(others)
        }
        data = {"GOOSE_PROVIDER": "openai", "GOOSE_MODEL": "gpt-4o"}
        key = "extensions"
    if rng.random() < 0.9:
        data[key] = servers
    if rng.random() < 0.5:
        data["trailing_setting"] = {"a": [1, 2], "b": "text"}
    text = dump(data, rng.choice([2, 4]), rng.choice([0, 2]))
    text = sprinkle(text, rng)
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    return text, bool(servers) and key in data


@pytest.mark.parametrize("seed", range(200))
def test_random_yaml_round_trip(seed: int) -> None:
    rng = random.Random(seed)
    continue_style = rng.random() < 0.5
    container = CONTINUE if continue_style else GOOSE
    text, has_entries = random_file(rng, continue_style)
    new, existed = FMT.set_entry(text, container, "weather", ENTRY, {})
    assert not existed
    assert FMT.read_entries(new, container)["weather"] == ENTRY
    if has_entries:
        assert only_insertions(text, new), (text, new)
    if "\r\n" in text:
        assert "\n" not in new.replace("\r\n", "")
    restored, removed = FMT.remove_entry(new, container, "weather")
    assert removed
    if has_entries:
        assert restored == text, (text, new, restored)
    assert "weather" not in FMT.read_entries(restored, container)
