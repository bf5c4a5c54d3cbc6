"""An edit of Codex's ``config.toml`` parses each text it needs once with tomlkit (the
round-trip document) and once with the standard reader (the validity check), as the JSON
format does (tests/deploy/test_one_read.py): a big file took minutes when every step of
``mcp install`` and ``deploy codex`` parsed it again."""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from agenttools_runtime.deploy import deploy
from agenttools_runtime.deploy.mcp_entry import install_entry
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.mcp.formats import toml_format
from agenttools_runtime.mcp.install import install_mcp_server, resolve_mcp_target
from agenttools_runtime.mcp.server import MCPServer
from tests.helpers.venvs import fake_site
from tests.helpers.weather import weather

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG = '# mine\nmodel = "o3"\n\n[profiles.fast]\nx = 1\n\n[mcp_servers.other]\ncommand = "x"\n'


def counting(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """Every ``(parser, text)`` the TOML format parses, counted."""
    parsed: Counter[tuple[str, str]] = Counter()
    parse, loads = tomlkit.parse, tomllib.loads

    def counted_parse(text: str) -> Any:
        parsed["tomlkit", text] += 1
        return parse(text)

    def counted_loads(text: str, **kwargs: Any) -> Any:
        parsed["tomllib", text] += 1
        return loads(text, **kwargs)

    monkeypatch.setattr(toml_format.tomlkit, "parse", counted_parse)
    monkeypatch.setattr(toml_format.tomllib, "loads", counted_loads)
    forget()
    return parsed


def forget() -> None:
    """The parses the format keeps, forgotten (as in a new process)."""
    for function in vars(toml_format).values():
        if hasattr(function, "cache_clear"):
            function.cache_clear()


def test_mcp_install_parses_each_text_once(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file (read, checked, edited) and the edit's result (the splice checked)."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CONFIG)
    parsed = counting(monkeypatch)
    install_mcp_server("codex", MCPServer("docs", url="https://docs.example.org/mcp"))
    after = config.read_text()
    assert after != CONFIG
    assert parsed == {
        ("tomlkit", CONFIG): 1,
        ("tomllib", CONFIG): 1,
        ("tomlkit", after): 1,
        ("tomllib", after): 1,
    }


def test_the_mcp_install_command_parses_each_text_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``agenttools mcp install``: also what the write adds besides the entry, for the
    uninstall to take away (the entry removed again from the text written)."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CONFIG)
    parsed = counting(monkeypatch)
    server = MCPServer("docs", url="https://docs.example.org/mcp")
    install_entry(resolve_mcp_target("codex"), server, "docs")
    after = config.read_text()
    assert after != CONFIG
    assert parsed == {
        ("tomlkit", CONFIG): 1,
        ("tomllib", CONFIG): 1,
        ("tomlkit", after): 1,
        ("tomllib", after): 1,
    }


def test_deploy_codex_parses_each_text_once(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planning the entry, what the write adds besides it (the entry removed again from the
    text written: the file's text back), the identical redeploy: each text once."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CONFIG)
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    search = SearchPath.for_paths([site])
    parsed = counting(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        deploy("codex", "weather-tools/weather-tools", search=search)
    after = config.read_text()
    assert after != CONFIG
    assert parsed == {
        ("tomlkit", CONFIG): 1,
        ("tomllib", CONFIG): 1,
        ("tomlkit", after): 1,
        ("tomllib", after): 1,
    }
    parsed.clear()
    forget()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        deploy("codex", "weather-tools/weather-tools", search=search, overwrite="upgrade")
    assert parsed == {("tomlkit", after): 1, ("tomllib", after): 1}
