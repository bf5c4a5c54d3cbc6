"""``agenttools clients`` as last printed (cli/recorded.py: kept with every path and
environment variable it read) answers as the full path does, cache cold and warm, and is not
served once anything it read changed: a client's folder or config file made, an executable
put on ``PATH`` or made executable, ``PATH`` or ``HOME`` changed, a deploy's files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools_runtime.cli import lean_cache, quick_arguments
from agenttools_runtime.cli.clients import lean_clients, run


@pytest.fixture
def used(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A state directory that exists (agenttools was used), an empty PATH directory, and
    no margin for racily clean signatures; the PATH directory."""
    monkeypatch.setattr(lean_cache, "RACY_NS", 0)
    cache = lean_cache.cache_file("clients")
    assert cache is not None
    os.makedirs(os.path.dirname(os.path.dirname(cache)), exist_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def outputs(
    capsys: pytest.CaptureFixture[str], *flags: str
) -> tuple[tuple[int | None, str], tuple[int, str]]:
    args = quick_arguments(["clients", *flags])
    assert args is not None
    lean = lean_clients(args), capsys.readouterr().out
    full = run(args), capsys.readouterr().out
    return lean, full


def same_answer(capsys: pytest.CaptureFixture[str]) -> str:
    for flags in ((), ("--json",)):
        lean, full = outputs(capsys, *flags)
        assert lean[0] == 0
        assert lean == full
    return outputs(capsys)[0][1]


def detected(text: str) -> set[str]:
    return {line.split()[0] for line in text.splitlines()[1:] if line.rstrip().endswith("yes")}


def test_cold_and_warm_answers_are_the_full_paths(
    used: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime.cli import clients

    cold = same_answer(capsys)
    assert detected(cold.split("\n\n")[0]) == set()

    def computed(*args: object) -> None:
        raise AssertionError("computed what the cache holds")

    with monkeypatch.context() as patch:
        patch.setattr(clients, "run", computed)
        assert outputs(capsys)[0] == (0, cold)


def test_changes_are_seen(
    used: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    same_answer(capsys)
    # a client's own folder made
    (home / ".cursor").mkdir()
    assert "cursor" in detected(same_answer(capsys).split("\n\n")[0])
    # an executable on PATH: first not executable, then executable
    claude = used / "claude"
    claude.write_text("#!/bin/sh\n")
    assert "claude-code" not in detected(same_answer(capsys).split("\n\n")[0])
    claude.chmod(0o755)
    assert "claude-code" in detected(same_answer(capsys).split("\n\n")[0])
    # PATH changed: gone again
    monkeypatch.setenv("PATH", str(home))
    assert "claude-code" not in detected(same_answer(capsys).split("\n\n")[0])
    # HOME changed: another user's folders
    other = home.parent / "other-home"
    other.mkdir()
    monkeypatch.setenv("HOME", str(other))
    monkeypatch.setenv("USERPROFILE", str(other))
    assert "cursor" not in detected(same_answer(capsys).split("\n\n")[0])


def test_what_agenttools_created_is_seen(
    used: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agenttools_runtime.bundles import AgentTools
    from agenttools_runtime.deploy import deploy

    same_answer(capsys)
    skill = {"name": "made", "description": "A skill.", "body": "Body.\n"}
    deploy("cursor", AgentTools(name="made", skills=(skill,)))
    text = same_answer(capsys)
    assert "only paths agenttools created" in text
    (home / ".cursor" / "auth.json").write_text("{}")  # the client itself, since
    assert "cursor" in detected(same_answer(capsys).split("\n\n")[0])


def test_a_relative_path_is_not_kept(
    used: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"relative-bin{os.pathsep}{used}")
    same_answer(capsys)
    cache = lean_cache.cache_file("clients")
    assert cache is not None
    assert not os.path.exists(cache)
