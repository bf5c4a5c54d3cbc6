"""Every field of an installed ``manifest.json`` given every JSON type (hypothesis), through
``show``, ``deploy --dry-run`` and ``mcp install`` (a real install into a temporary home): each
command ends in one clean error — naming the distribution, and for a server's field the server
and the field — or exit 0 with the entry the manifest declares, never a traceback, never a
value coerced into something else (a string split into arguments, a number as a URL)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import tomlkit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agenttools_runtime import schema
from agenttools_runtime.cli import main
from agenttools_runtime.skills.hashing import hash_bytes
from tests.helpers.venvs import (
    SKILL_TEMPLATE,
    STUB_SCRIPT,
    environment_scripts,
    fake_distribution,
    fake_site,
)

pytestmark = pytest.mark.slow

SKILL_MD = SKILL_TEMPLATE.format(name="weather-report", description="Weather reports.")
SERVER: dict[str, Any] = {
    "command": "weather-mcp",
    "args": ["--units", "metric"],
    "env": {"WEATHER_UNITS": "metric"},
    "description": "Weather lookups",
}


def base_manifest() -> dict[str, Any]:
    return {
        "schema": 1,
        "distribution": "weather-tools",
        "version": "1.0.0",
        "root": "skills",
        "bundles": [
            {
                "name": "weather-tools",
                "implicit": True,
                "mcp-servers": ["weather"],
                "skills": ["weather-report"],
            }
        ],
        "mcp-servers": {"weather": dict(SERVER)},
        "skills": {
            "weather-report": {
                "description": "Weather reports.",
                "kind": "directory",
                "files": {"SKILL.md": hash_bytes(SKILL_MD.encode())},
                "executable": [],
            }
        },
    }


# every field the manifest has, as a path from its root
FIELDS: list[tuple[str | int, ...]] = [
    *[(k,) for k in base_manifest()],
    ("source-root",),
    *[("bundles", 0, k) for k in ("name", "implicit", "mcp-servers", "skills", "description", "marker")],
    *[("skills", "weather-report", k) for k in ("description", "kind", "path", "files", "executable")],
    *[("mcp-servers", "weather", key.name) for key in schema.SERVER.keys],
]  # fmt: skip

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["weather_tools.server", "https://example.org/mcp", "http", "sse", "stdio"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@contextmanager
def environment() -> Iterator[tuple[Path, Path]]:
    """A virtual environment's site-packages and a home of their own, with HOME and the
    state there; the base manifest's command, ``weather-mcp``, a console script of that
    environment, on the PATH (so its entry can start, as the deploy checks)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        site = fake_site(root / "venv")
        scripts = environment_scripts(site)
        assert scripts is not None
        (scripts / "weather-mcp").write_text(STUB_SCRIPT)
        (scripts / "weather-mcp").chmod(0o755)
        env = {
            "HOME": str(root / "home"),
            "USERPROFILE": str(root / "home"),
            "AGENTTOOLS_HOME": str(root / "state"),
            "PATH": os.pathsep.join([str(scripts), os.environ.get("PATH", "")]),
        }
        with mock.patch.dict(os.environ, env):
            yield site, root / "home"


def mutated(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    manifest = base_manifest()
    parent: Any = manifest
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return manifest


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out + err


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(path=st.sampled_from(FIELDS), value=json_values)
# (settings without a value given: one left out, one written as its default)
@example(path=("mcp-servers", "weather", "env"), value={"A": {}, "B": {"default": "b"}})
def test_every_field_every_json_type(
    path: tuple[str | int, ...], value: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = mutated(path, value)
    with environment() as (site, home):
        dist_info = fake_distribution(site, "weather-tools", manifest=manifest)
        skill_dir = dist_info / "extra_metadata" / "agenttools" / "skills" / "weather-report"
        skill_dir.mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
        config = home / ".codex" / "config.toml"
        for argv in (
            ("show", "weather-tools"),
            ("deploy", "codex", "weather-tools", "--dry-run"),
            ("mcp", "install", "codex", "weather-tools/weather"),
        ):
            status, printed = run(capsys, *argv, "--path", str(site))
            assert status in (0, 1), (argv, printed)
            if status == 1:
                # (a dry run says a refusal in its plan: "would fail: …")
                errors = [
                    line
                    for line in printed.splitlines()
                    if line.startswith(("agenttools:", "  would fail: "))
                ]
                if argv[0] == "show" and not errors:  # a bundle shown with its problem
                    assert "    problem: " in printed, printed
                    continue
                assert len(errors) == 1, (argv, printed)
                if len(path) == 3 and path[0] == "mcp-servers" and "cannot be used" in errors[0]:
                    assert 'manifest of "weather-tools"' in errors[0], errors[0]
                    assert 'server "weather": ' in errors[0], errors[0]
                    assert str(path[2]) in errors[0].split('server "weather": ', 1)[1]
                continue
            if argv[0] == "mcp":  # the entry written is the one declared, nothing coerced
                declared = manifest["mcp-servers"]["weather"]
                key = declared.get("config-key") or "weather"
                entry = tomlkit.parse(config.read_text("utf-8")).unwrap()["mcp_servers"][key]
                assert entry["command"] == declared["command"]
                assert entry.get("args", []) == declared.get("args", [])
                assert entry.get("env", {}) == written_env(declared.get("env", {}))


def written_env(declared: dict[str, Any]) -> dict[str, Any]:
    """The env an install writes for *declared* with no value given: the literal values, and
    each setting (a table) as its default, or left out when it has none (docs/settings.md)."""
    return {
        name: value["default"] if isinstance(value, dict) else value
        for name, value in declared.items()
        if not isinstance(value, dict) or "default" in value
    }


@pytest.mark.parametrize(
    ("server", "field"),
    [
        ({"command": "echo", "env": [1, 2]}, "env"),
        ({"command": "echo", "env": "A=1"}, "env"),
        ({"url": "https://example.org/mcp", "headers": [1]}, "headers"),
        ({"command": ["echo"]}, "command"),
        ({"command": "echo", "args": "notalist"}, "args"),
        ({"url": 5}, "url"),
        ({"command": "echo", "env": {"a": [1]}}, "env"),
        ({"command": "echo", "args": [1, None]}, "args"),
    ],
)
def test_the_reported_manifests_are_one_clear_error(
    server: dict[str, Any], field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's cases: each one error naming distribution, server and field; no entry
    written anywhere."""
    manifest = mutated(("mcp-servers", "weather"), server)
    with environment() as (site, home):
        fake_distribution(site, "weather-tools", manifest=manifest)
        for argv in (
            ("show", "weather-tools"),
            ("deploy", "codex", "weather-tools", "--dry-run"),
            ("mcp", "install", "codex", "weather-tools/weather"),
        ):
            status, printed = run(capsys, *argv, "--path", str(site))
            assert status == 1, printed
            assert printed.startswith(
                'agenttools: The agenttools manifest of "weather-tools" cannot be used: '
                f'server "weather": "{field}"'
            ), printed
            assert len(printed.strip().splitlines()) == 1, printed
        assert not (home / ".codex").exists()
        assert json.dumps(manifest)  # (the manifest itself was JSON all along)
