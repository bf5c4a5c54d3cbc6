"""The engine-free answer to an identical redeploy (``agenttools_runtime/uptodate.py``): after
each change to one of its inputs, the ticket either answers exactly as the engine does, or
does not answer. Tickets are written right after the files they depend on (``RACY_NS`` 0);
every case runs with the verified-files cache warm and cold."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agenttools_runtime import fs, status_cache, uptodate
from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import fake_distribution, skill_files

from .test_cli import weather
from .test_lifecycle import upgrade

TOOLS = "weather-tools/weather-tools"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_cache, "RACY_NS", 0)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    weather(path, "1.2.0")
    return path


def engine(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> tuple[int, str]:
    """The engine's answer (the ticket not consulted; it leaves one when nothing changed)."""
    capsys.readouterr()
    with monkeypatch.context() as m:
        m.setattr(uptodate, "answer", lambda words: None)
        status = main(argv)
    return status, capsys.readouterr().out


def agrees(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> tuple[uptodate.Answer | None, tuple[int, str]]:
    """The ticket's answer to *argv* (asked first) and the engine's; they agree when the
    ticket answers at all."""
    fast = uptodate.answer(argv[1:])
    slow = engine(capsys, monkeypatch, argv)
    if fast is not None:
        assert (fast.status, fast.output) == slow
        assert "up to date" in slow[1] or '"unchanged"' in slow[1]
    return fast, slow


def settle(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> tuple[uptodate.Answer | None, tuple[int, str]]:
    """:func:`agrees`, until the ticket answers (at most three runs): an engine run that
    wrote into the state it depends on (the verified-files cache, a registry entry's stat)
    leaves no ticket; the one after it does."""
    for _ in range(3):
        fast, slow = agrees(capsys, monkeypatch, argv)
        if fast is not None:
            break
    return fast, slow


def deploy_argv(site: Path, *extra: str, client: str = "claude-code") -> list[str]:
    return ["deploy", client, TOOLS, "--path", str(site), "--upgrade", *extra]


def warm(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    cold: bool,
    state: Path,
) -> None:
    """Deploy, redeploy (which leaves the ticket), check that the ticket answers; *cold*:
    then forget which wheel files were verified."""
    assert engine(capsys, monkeypatch, argv)[0] == 0
    # the first redeploy after a fresh one writes the verified-files cache (in the state it
    # depends on): the ticket comes with the next
    for _ in range(3):
        status, out = engine(capsys, monkeypatch, argv)
        assert status == 0 and "already deployed to Claude Code, up to date" in out
        found = uptodate.answer(argv[1:])
        if found is not None:
            break
    assert found is not None and (found.status, found.output) == (status, out)
    if cold:
        shutil.rmtree(state / "deployments" / ".verified", ignore_errors=True)


def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"


def skill_dir(home: Path) -> Path:
    return home / ".claude" / "skills" / "weather-report"


def edit_config(home: Path, change: Callable[[dict[str, object]], None]) -> None:
    config = home / ".claude.json"
    data = json.loads(config.read_text())
    change(data)
    config.write_text(json.dumps(data, indent=2))


# each: a change to one input -> whether the engine still answers "up to date"
CHANGES: dict[str, tuple[Callable[[Path, Path], None], bool]] = {
    "bundle upgraded": (lambda home, site: upgrade(site, "1.3.0"), False),
    "bundle rebuilt, same version": (
        lambda home, site: upgrade(site, "1.2.0", body="Rebuilt."),
        False,
    ),
    "wheel file edited in place": (
        lambda home, site: next(site.rglob("run.sh")).write_text("#!/bin/sh\nexit 1\n"),
        False,
    ),
    "skill file edited": (
        lambda home, site: (skill_dir(home) / "SKILL.md").write_text("mine\n"),
        False,
    ),
    "skill file deleted": (lambda home, site: (skill_dir(home) / "scripts/run.sh").unlink(), False),
    "skill file added": (lambda home, site: (skill_dir(home) / "notes.md").write_text("x"), False),
    "config entry edited": (
        lambda home, site: edit_config(
            home,
            lambda d: d["mcpServers"]["weather"].update(command="/bin/other"),  # type: ignore[attr-defined]
        ),
        False,
    ),
    "config entry removed": (
        lambda home, site: edit_config(home, lambda d: d["mcpServers"].pop("weather")),  # type: ignore[attr-defined]
        False,
    ),
    "config file rewritten, same entries": (
        lambda home, site: edit_config(home, lambda d: d.update(theme="dark")),
        True,
    ),
    "skill file touched": (lambda home, site: os.utime(skill_dir(home) / "SKILL.md"), True),
    "a copy in another root a client reads": (
        lambda home, site: shutil.copytree(
            skill_dir(home), home / ".agents" / "skills" / "weather-report"
        ),
        True,
    ),
    "a distribution installed beside it": (
        lambda home, site: fake_distribution(site, "notes", "2.0", skills={"n": skill_files("n")}),
        True,
    ),
}


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_changed_input_is_never_answered_from_the_ticket(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
    change: str,
    cold: bool,
) -> None:
    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, cold, state)
    apply, still_up_to_date = CHANGES[change]
    apply(home, site)
    fast, (status, out) = agrees(capsys, monkeypatch, argv)
    assert fast is None  # every one of these changes a path the answer was computed from
    assert ("up to date" in out) == still_up_to_date
    if still_up_to_date:  # the engine found nothing to do: its new ticket answers next time
        again = uptodate.answer(argv[1:])
        if again is None:  # it wrote (a registry entry's stat, the verified files): once more
            assert engine(capsys, monkeypatch, argv) == (status, out)
            again = uptodate.answer(argv[1:])
        assert again is not None and (again.status, again.output) == (status, out)


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
def test_other_command_lines_are_the_engines(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
    tmp_path: Path,
    cold: bool,
) -> None:
    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, cold, state)
    project = tmp_path / "project"
    project.mkdir()
    # lines that leave the deployment as it is, then lines that change it
    same = [
        [*argv, "--json"],
        ["deploy", "claude-code", TOOLS, "--path", str(site)],  # no --upgrade: its own ticket
        [*argv[:-1], "--force"],
        [*argv, "--dry-run"],
        ["deploy", "claude-code", "--upgrade", TOOLS, "--path", str(site)],  # a usage error
        ["deploy", "claude-code", TOOLS, "--path", str(site), "--upg"],  # an abbreviation
        [*argv, "--runner", "python"],
    ]
    changing = [
        [*argv, "--name", "other"],
        [*argv, "--no-skills"],
        [*argv, "--project", str(project)],
        [*argv, "--skills-dir", str(tmp_path / "elsewhere")],
        deploy_argv(site, client="cursor"),
        ["deploy", "claude-code,codex", TOOLS, "--path", str(site), "--upgrade"],
    ]
    for other in same:
        fast, _ = agrees(capsys, monkeypatch, other)
        assert fast is None, other
    # the engine found these up to date: their tickets answer as it did
    for other in same[:2]:
        fast, (status, _) = settle(capsys, monkeypatch, other)
        assert fast is not None and status == 0
    assert json.loads(uptodate.answer(same[0][1:]).output)["result"] == "unchanged"  # type: ignore[union-attr]
    for other in changing:
        fast, _ = agrees(capsys, monkeypatch, other)
        assert fast is None, other
        assert uptodate.answer(argv[1:]) is None  # (the state changed)


def test_a_journal_left_or_another_context_is_the_engines(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
    tmp_path: Path,
) -> None:
    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, False, state)
    journal = state / "deployments" / ".journal" / "left.json"
    journal.write_text("{}")
    assert uptodate.answer(argv[1:]) is None
    journal.unlink()
    assert uptodate.answer(argv[1:]) is None  # (the journal directory changed since)
    assert engine(capsys, monkeypatch, argv)[0] == 0
    assert uptodate.answer(argv[1:]) is not None
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "elsewhere"))
    assert uptodate.answer(argv[1:]) is None
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.chdir(tmp_path)
    assert uptodate.answer(argv[1:]) is None


def test_removed_or_replaced_deployment(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
) -> None:
    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, False, state)
    (dep,) = deployed()
    assert main(["remove", dep.uuid]) == 0
    fast, (_, out) = agrees(capsys, monkeypatch, argv)
    assert fast is None and "Deployed" in out
    fast, _ = settle(capsys, monkeypatch, argv)  # the new deployment found up to date
    assert fast is not None


def test_the_answer_imports_no_engine(home: Path, site: Path, tmp_path: Path) -> None:
    """Whole processes: the engine leaves the ticket, the next run answers from it without
    importing the deploy package, printing what the engine printed."""
    argv = deploy_argv(site)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = (
        "import sys; from agenttools_runtime import status_cache as c; c.RACY_NS = 0; "
        "from agenttools_runtime.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    reader = (
        "import sys; from agenttools_runtime.cli import main; status = main(sys.argv[1:]); "
        "engine = sorted(m for m in sys.modules if m.startswith('agenttools_runtime.deploy')); "
        "print(engine, file=sys.stderr); sys.exit(status)"
    )

    def run(code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code, *argv], env=env, cwd=tmp_path, capture_output=True,
            text=True, check=False, timeout=120,
        )  # fmt: skip

    assert run(writer).returncode == 0
    tickets = state_dir(tmp_path) / "deployments" / ".index"
    for _ in range(3):  # the engine: up to date, leaves the ticket (see warm())
        second = run(writer)
        assert second.returncode == 0 and "up to date" in second.stdout
        if any(tickets.glob(uptodate.PREFIX + "*")):
            break
    third = run(reader)
    assert third.returncode == 0 and third.stdout == second.stdout
    assert third.stderr.strip() == "[]"
    (skill_dir(home) / "SKILL.md").write_text("mine\n")
    fourth = run(reader)
    assert fourth.returncode == 1 and "has been modified" in fourth.stderr
    assert "agenttools_runtime.deploy" in fourth.stderr


def test_tickets_are_few(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
) -> None:
    """One ticket per command line and context, the newest ``KEEP`` kept."""
    monkeypatch.setattr(uptodate, "KEEP", 2)
    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, False, state)
    for shell in range(3):  # a new shell's environment: a new context, a new ticket
        monkeypatch.setenv("SHELL_SESSION", str(shell))
        assert settle(capsys, monkeypatch, argv)[0] is not None
    tickets = list((state / "deployments" / ".index").glob(uptodate.PREFIX + "*"))
    assert len(tickets) == 2
    assert uptodate.answer(argv[1:]) is not None  # the newest stays


@pytest.mark.parametrize(
    "content",
    [b"", b"\x00garbage", b"marshal", "list", "wrong types", "no such paths"],
)
def test_a_damaged_ticket_is_no_answer(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
    content: bytes | str,
) -> None:
    import marshal

    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, False, state)
    (ticket,) = (state / "deployments" / ".index").glob(uptodate.PREFIX + "*")
    schema, digest, output, status, journals, clean, depends = marshal.loads(ticket.read_bytes())
    damaged = {
        b"marshal": marshal.dumps(7),
        "list": marshal.dumps([1, 2]),
        "wrong types": marshal.dumps((schema, digest, 7, "0", journals, clean, depends)),
        "no such paths": marshal.dumps(
            (schema, digest, output, status, journals, [5], [[3, None]])
        ),
    }
    ticket.write_bytes(damaged.get(content, content))  # type: ignore[arg-type]
    assert uptodate.answer(argv[1:]) is None
    status_now, out = engine(capsys, monkeypatch, argv)  # the engine answers, a ticket again
    assert (status_now, out) == (status, output)
    assert uptodate.answer(argv[1:]) is not None


def test_an_answer_with_a_warning_leaves_no_ticket(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    state: Path,
) -> None:
    """A warning the engine gives with its answer (here: a backup an interrupted operation
    left beside the skills root) is given every time: no ticket answers without it."""
    argv = deploy_argv(site)
    warm(capsys, monkeypatch, argv, False, state)
    backup = home / ".claude" / ".agenttools-backup-left"
    (backup / "mine").mkdir(parents=True)
    for _ in range(3):
        assert uptodate.answer(argv[1:]) is None
        capsys.readouterr()
        with monkeypatch.context() as m:
            m.setattr(uptodate, "answer", lambda words: None)
            assert main(argv) == 0
        captured = capsys.readouterr()
        assert "up to date" in captured.out and ".agenttools-backup-left" in captured.err
    assert uptodate.answer(argv[1:]) is None
    assert uptodate.TEMP_PREFIX == fs.TEMP_MARK
    shutil.rmtree(backup)  # (gone: the engine answers without a warning, and leaves a ticket)
    assert settle(capsys, monkeypatch, argv)[0] is not None
