"""A YAML config whose server keys are written as numbers (``1:``, ``1.5:``): the entry is
listed by its key's text, and ``mcp uninstall`` of that name removes it — in block and flow
style — keeping the other entries; it never says it removed what is still there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.helpers.envs import run

CASES = {
    "block-integer": ("extensions:\n  1:\n    cmd: x\n  keep:\n    cmd: k\n", "1"),
    "block-float": ("extensions:\n  1.5:\n    cmd: x\n  keep:\n    cmd: k\n", "1.5"),
    "flow-integer": ("extensions: {1: {cmd: x}, keep: {cmd: k}}\n", "1"),
}


@pytest.mark.parametrize(("text", "name"), CASES.values(), ids=CASES.keys())
def test_uninstall_removes_the_entry_its_number_key_names(
    text: str, name: str, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".config" / "goose" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text(text)
    listed = re.compile(rf"^  {re.escape(name)} +x$", re.MULTILINE)
    assert listed.search(run(capsys, "mcp", "list", "goose").out)

    removed = run(capsys, "mcp", "uninstall", "goose", name)
    assert removed.status == 0, removed.err
    assert f'Successfully removed MCP server "{name}"' in removed.out
    assert yaml.safe_load(config.read_text()) == {"extensions": {"keep": {"cmd": "k"}}}
    assert not listed.search(run(capsys, "mcp", "list", "goose").out)
