"""What the managed-environment tests share: running ``agenttools`` in this process with its
output captured, a snapshot of everything a command may change (to prove a failure changed
nothing), and an MCP ``initialize`` over stdio against the command a client entry holds."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.cli import main


@dataclass(frozen=True)
class Ran:
    status: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Ran:
    """``agenttools ARGV`` in this process."""
    capsys.readouterr()
    status = main(list(argv))
    captured = capsys.readouterr()
    return Ran(status, captured.out, captured.err)


def use_home(monkeypatch: pytest.MonkeyPatch, base: Path) -> Path:
    """Another machine: HOME and the state directory under *base*."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("AGENTTOOLS_HOME", str(base / "agenttools-state"))
    return home


def snapshot(*roots: Path) -> dict[str, bytes | str]:
    """Every file (bytes) and link (target) under *roots*, but locks and the caches."""
    found: dict[str, bytes | str] = {}
    for root in roots:
        for directory, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in ("agenttools-cache", ".cache")]
            for name in files:
                if name.endswith(".lock"):  # (locks: ours, and uv's in its own folders)
                    continue
                path = Path(directory) / name
                key = str(path)
                found[key] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


def environments(state: Path) -> list[str]:
    """The names of the managed environments under the state directory *state*."""
    root = state / "envs"
    if not root.is_dir():
        return []
    return sorted(n for n in os.listdir(root) if not n.startswith("."))


def leftovers(state: Path) -> list[str]:
    """Journals, staging and trash entries left under ``<state>/envs``."""
    root = state / "envs"
    found = []
    for name in (".journal", ".staging"):
        directory = root / name
        if directory.is_dir():
            found += [f"{name}/{n}" for n in os.listdir(directory)]
    if root.is_dir():
        found += [n for n in os.listdir(root) if n.startswith(".trash-")]
    return found


def claude_entry(home: Path, key: str = "weather") -> dict[str, Any]:
    data = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = data["mcpServers"][key]
    return entry


def initialize(
    command: Sequence[str], env: Mapping[str, str] | None = None, *, deadline: float = 120.0
) -> dict[str, Any]:
    """Start *command*, send an MCP ``initialize`` over stdio, return the answer's result
    (waiting with a deadline: a first ``uvx`` run installs first)."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "agenttools-tests", "version": "1"},
        },
    }
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write((json.dumps(request) + "\n").encode())
        process.stdin.flush()
        end = time.monotonic() + deadline
        buffered = b""
        while time.monotonic() < end:
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                break
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            buffered += chunk
            for line in buffered.splitlines():
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if message.get("id") == 1:
                    result: dict[str, Any] = message["result"]
                    return result
        process.kill()
        _, stderr = process.communicate(timeout=30)
        raise AssertionError(f"no initialize answer from {command}: {buffered!r} {stderr!r}")
    finally:
        process.kill()
        process.wait()
