"""Registry entries a deploy finds unreadable where it writes (a file of garbage, text that is
not UTF-8, a torn new entry): the deploy answers with an error or a deployment, never a
traceback, and its journal can put back the bytes that were there."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import apply, deploy, registry
from agenttools_runtime.errors import AgentToolsError, InterruptedOperationRecovered
from tests.helpers.state import iter_entries

from .conftest import bundle, inline


@pytest.mark.parametrize("garbage", [b"\xff\xfe", b'{"directory": "\xe9'])
def test_an_entry_that_is_not_utf8_crashes_no_deploy(
    home: Path, state: Path, garbage: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    deploy("codex", bundle("one", [inline("a")]))
    [entry] = list(iter_entries())
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


def _killed_child(tear: bool) -> None:
    """Deploy in a forked child killed (SIGKILL) once it has created its first new registry
    entry in place, which it first tears (*tear*: half its bytes, as a write cut short)."""
    import os
    import signal

    from agenttools_runtime import fs

    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)

        def kill(operation: str, where: Path) -> None:
            if operation == "checkpoint:deploy:entry-written":
                if tear:
                    data = where.read_bytes()
                    where.write_bytes(data[: len(data) // 2])
                os.kill(os.getpid(), signal.SIGKILL)

        fs._observer.set(kill)
        try:
            deploy("codex", bundle("two", [inline("b"), inline("c")]))
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


@pytest.mark.parametrize("tear", [True, False])
def test_a_new_entry_left_by_a_killed_deploy_is_undone(home: Path, state: Path, tear: bool) -> None:
    from agenttools_runtime.deploy import deployed

    from .invariants import inconsistencies

    deploy("codex", bundle("one", [inline("a")]))
    before = {e.key for e in iter_entries()}
    _killed_child(tear)
    state_paths = paths.state_paths()
    names = {p.name for p in state_paths.registry.iterdir()}
    assert len(names) == len(before) + 1  # the new entry, created in place
    with pytest.warns(InterruptedOperationRecovered):  # the entry deleted, torn or whole
        deploy("codex", bundle("three", [inline("d")]))
    assert {e.key for e in iter_entries()} - before == {
        s.registry_key for d in deployed() for s in d.record.installed
    } - before
    assert len(deployed()) == 2
    assert inconsistencies(state) == []
    deploy("codex", bundle("two", [inline("b"), inline("c")]))
    assert inconsistencies(state) == []


@pytest.mark.parametrize("tear", [True, False])
def test_doctor_does_not_call_a_torn_new_entry_unfixable(
    home: Path, state: Path, tear: bool
) -> None:
    """A new entry torn by a killed deploy is its journal's to delete: ``doctor`` reports the
    interrupted deploy (fixable), not an unreadable entry it cannot fix; ``--fix`` rolls it
    back, and nothing is left to report."""
    from agenttools_runtime.deploy.doctor import diagnose

    deploy("codex", bundle("one", [inline("a")]))
    _killed_child(tear)
    report = diagnose()
    assert report.findings[0].kind == "journal"
    assert all(f.fixable for f in report.findings)  # (whole: the index and a stale reference)
    assert "unreadable" not in [f.kind for f in report.findings]
    with pytest.warns(InterruptedOperationRecovered):
        deploy("codex", bundle("three", [inline("d")]))
    assert diagnose().findings == []
