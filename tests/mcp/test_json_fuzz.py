"""Randomized JSONC documents (layouts, comments, trailing commas, CRLF): installing an entry
only inserts text, the result parses to the old data plus the entry, and removing it gives
back the original bytes. Deterministic seeds, so a failure is reproducible."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from agenttools_runtime.mcp.formats import Container, get_format
from agenttools_runtime.mcp.formats.json_format import _Scanner
from tests.mcp.samples import only_insertions

FMT = get_format("json")
SERVERS = Container(("mcpServers",))
ENTRY = {"type": "stdio", "command": "/v/bin/python", "args": ["-m", "w"], "env": {"A": "1"}}


class Writer:
    """Serializes a value in a random but consistent layout, with random comments."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.unit = rng.choice(["  ", "    ", "\t", None])  # None: single line
        self.nl = rng.choice(["\n", "\r\n"])
        self.comments = rng.random() < 0.6
        self.trailing = rng.random() < 0.3

    def comment(self) -> str:
        if not self.comments or self.rng.random() < 0.7:
            return ""
        if self.unit is None or self.rng.random() < 0.5:
            return " /* c" + str(self.rng.randint(0, 99)) + " */"
        return " // note " + str(self.rng.randint(0, 99)) + self.nl

    def dump(self, value: Any, level: int = 0) -> str:
        if isinstance(value, dict):
            items = [json.dumps(k) + ": " + self.dump(v, level + 1) for k, v in value.items()]
            return self._wrap("{", "}", items, level)
        if isinstance(value, list):
            return self._wrap("[", "]", [self.dump(v, level + 1) for v in value], level)
        return json.dumps(value, ensure_ascii=self.rng.random() < 0.5)

    def _wrap(self, open_: str, close: str, items: list[str], level: int) -> str:
        if not items:
            return open_ + close
        if self.unit is None:
            body = ", ".join(i + self.comment().replace(self.nl, " ").rstrip() for i in items)
            comma = "," if self.trailing else ""
            return open_ + body.replace("// note", "/* n */") + comma + close
        inner = self.nl + self.unit * (level + 1)
        parts = []
        for index, item in enumerate(items):
            last = index == len(items) - 1
            sep = "," if (not last or self.trailing) else ""
            note = self.comment()
            if note.endswith(self.nl):  # a line comment ends the line: the next item indents
                parts.append(inner + item + sep + note.rstrip(self.nl))
            else:
                parts.append(inner + item + sep + note)
        return open_ + "".join(parts) + self.nl + self.unit * level + close


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth > 3 or kind < 0.4:
        return rng.choice([0, -1.5, 1e21, True, False, None, "s", 'q"uote', "ünï\\code", ""])
    if kind < 0.7:
        return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randint(0, 4))}
    return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def random_document(rng: random.Random) -> dict[str, Any]:
    doc = {f"setting{i}": random_value(rng, 1) for i in range(rng.randint(0, 5))}
    shape = rng.random()
    if shape < 0.3:
        servers: dict[str, Any] = {}
    elif shape < 0.8:
        servers = {f"s{i}": {"command": f"c{i}", "args": []} for i in range(rng.randint(1, 3))}
    else:
        return doc  # no container yet
    keys = list(doc)
    position = rng.randint(0, len(keys))
    ordered = {k: doc[k] for k in keys[:position]}
    ordered["mcpServers"] = servers
    ordered.update({k: doc[k] for k in keys[position:]})
    return ordered


@pytest.mark.parametrize("seed", range(300))
def test_random_jsonc_round_trip(seed: int) -> None:
    rng = random.Random(seed)
    doc = random_document(rng)
    writer = Writer(rng)
    text = writer.dump(doc)
    if rng.random() < 0.3:
        text = "// header" + writer.nl + text
    if rng.random() < 0.5:
        text += writer.nl

    new, existed = FMT.set_entry(text, SERVERS, "weather", ENTRY, {})
    assert not existed
    assert only_insertions(text, new), (text, new)
    parsed, _ = _Scanner(new).value(_Scanner(new).skip(0), True)
    expected = json.loads(json.dumps(doc))
    expected.setdefault("mcpServers", {})["weather"] = ENTRY
    assert parsed == expected, new
    if writer.nl == "\r\n":
        assert "\n" not in new.replace("\r\n", "")

    again, existed = FMT.set_entry(new, SERVERS, "weather", ENTRY, {})
    assert existed and again == new

    restored, removed = FMT.remove_entry(new, SERVERS, "weather")
    assert removed
    if doc.get("mcpServers"):  # added to an existing, non-empty container
        assert restored == text
    else:
        restored_data, _ = _Scanner(restored).value(_Scanner(restored).skip(0), True)
        assert restored_data == {**json.loads(json.dumps(doc)), "mcpServers": {}}
