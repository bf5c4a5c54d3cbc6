"""A lean cache (``<state>/cache/NAME.marshal``: list, show, skill, clients) that is not as
written — this interpreter's entries not a table, an entry of another shape — is a miss:
whole processes answer as with no cache at all, never with a traceback."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime import status_cache
from agenttools_runtime.cli import lean_cache, quick_list, quick_show
from tests.deploy.test_cli import weather

REPO = Path(__file__).resolve().parents[2]
COMMANDS = {
    "list": ["list"],
    "show": ["show", "weather-tools/weather-tools"],
    "skill": ["skill", "--list"],
    "clients": ["clients"],
}
CODE_FILES = {"list": quick_list.CODE_FILES, "show": quick_show.CODE_FILES}
SHAPES: dict[str, object] = {"a list": [1, 2], "a string": "x", "a number": 5, "none": None}


def agenttools(site: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    return subprocess.run(
        [sys.executable, "-m", "agenttools", *argv], env=env, cwd=cwd, capture_output=True,
        text=True, check=False, timeout=120,
    )  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    weather(path, "1.2.0")
    (tmp_path / "agenttools-state" / "cache").mkdir(parents=True)  # (agenttools was used)
    return path


def interpreter_key(name: str, site: Path, cwd: Path) -> object:
    """The key the child process files its entries under (its interpreter and code)."""
    code = (
        "from agenttools_runtime.cli import lean_cache as c; "
        f"print(repr(c.interpreter_key({CODE_FILES.get(name, ())!r})))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
        check=True, timeout=60,
    ).stdout  # fmt: skip
    return eval(out)  # (a tuple of literals)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_entries_not_a_table_are_a_miss(site: Path, tmp_path: Path, name: str) -> None:
    cache = lean_cache.cache_file(name)
    assert cache is not None
    expected = agenttools(site, tmp_path, *COMMANDS[name])
    assert expected.returncode == 0, expected.stderr
    key = interpreter_key(name, site, tmp_path)
    for shape, value in SHAPES.items():
        Path(cache).write_bytes(marshal.dumps({key: value}))
        found = agenttools(site, tmp_path, *COMMANDS[name])
        assert (found.returncode, found.stdout, found.stderr) == (0, expected.stdout, ""), shape


def test_a_shown_entry_not_a_table_is_a_miss(site: Path, tmp_path: Path) -> None:
    """``show``: the manifest's entry as stored (its signature true) with what was shown for
    it in another shape."""
    cache = lean_cache.cache_file("show")
    assert cache is not None
    expected = agenttools(site, tmp_path, *COMMANDS["show"])
    assert expected.returncode == 0, expected.stderr
    key = interpreter_key("show", site, tmp_path)
    (manifest,) = site.glob("*.dist-info/extra_metadata/agenttools/manifest.json")
    signature = status_cache.signature(str(manifest))
    for shape, value in SHAPES.items():
        Path(cache).write_bytes(marshal.dumps({key: {str(manifest): (signature, value)}}))
        found = agenttools(site, tmp_path, *COMMANDS["show"])
        assert (found.returncode, found.stdout, found.stderr) == (0, expected.stdout, ""), shape
