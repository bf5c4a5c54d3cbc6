"""docs/cli.md is generated from the parser (docs/gen_cli.py): a change to a command, an
option or a help text that is not in the page fails here."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType

from agenttools_runtime.cli import build_parser

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "gen_cli.py"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_is_up_to_date() -> None:
    module = generator()
    text = module.render()
    assert module.DOC.read_text(encoding="utf-8") == text, "run: python docs/gen_cli.py"
    assert module.main(["--check"]) == 0


def test_the_reference_has_every_command_and_option() -> None:
    text = generator().render()
    (action,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in action.choices:
        assert f"\n### agenttools {name}\n" in text
    for sub in ("skills install", "skills uninstall", "mcp install", "mcp uninstall", "mcp list"):
        assert f"\n#### agenttools {sub}\n" in text
    for option in ("`--runner {python,script,uvx}`", "`--dry-run`", "`--long, -l`", "`--fix`"):
        assert option in text
    assert "| 141 |" in text and "| 2 | usage" in text
