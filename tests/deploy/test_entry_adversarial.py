"""Registry entries a deploy finds unreadable where it writes (a file of garbage, text that is
not UTF-8, a torn new entry): the deploy answers with an error or a deployment, never a
traceback, and its journal can put back the bytes that were there."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import apply, deploy, registry
from agenttools_runtime.errors import AgentToolsError

from .conftest import bundle, inline


@pytest.mark.parametrize("garbage", [b"\xff\xfe", b'{"directory": "\xe9'])
def test_an_entry_that_is_not_utf8_crashes_no_deploy(
    home: Path, state: Path, garbage: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    deploy("codex", bundle("one", [inline("a")]))
    [entry] = list(registry.iter_entries())
    path = registry.entry_path(entry.key, paths.state_paths())
    path.write_bytes(garbage)
    with pytest.raises(AgentToolsError):
        deploy("codex", bundle("one", [inline("a")]))  # (differs: its entry is unreadable)

    # a deploy that fails after writing the entry: its undo puts back the very bytes
    def fail(operation: str, where: Path) -> None:
        if operation == "checkpoint:deploy:registry-written":
            raise OSError("disk full")

    from agenttools_runtime import fs

    token = fs._observer.set(fail)
    try:
        with pytest.raises((OSError, AgentToolsError)):
            deploy("codex", bundle("two", [inline("a")]))
    finally:
        fs._observer.reset(token)
    assert path.read_bytes() == garbage
    assert apply._read_text(path) is not None
