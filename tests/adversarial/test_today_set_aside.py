"""Adversarial: ``doctor`` and ``doctor --fix`` on journals that cannot be used, for the
deployments and the managed environments: the set-aside place taken by something of the
user's, names taken there in every numbered form, both journal directories unusable at
once, a named pipe or a link where the directory goes, a directory where a journal file
goes. Nothing the user or an earlier fix left is ever replaced or lost, nothing hangs, no
traceback, and the JSON's ``ok`` always says what the exit status says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deploy

JOURNAL = "00000000000000000001-deploy-x.json"
ENV_JOURNAL = "00000000000000000001-install-weather.json"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"


@pytest.fixture
def deployed_once(home: Path, state: Path) -> Path:
    """One inline skill deployed to Cursor: the deployments' state exists; its journal
    directory."""
    skill = {"name": "one", "description": "Inline.", "body": "Inline body.\n"}
    deploy("cursor", AgentTools(name="b", skills=(skill,), mcp_servers=()))  # type: ignore[arg-type]
    return state / "deployments" / ".journal"


def doctor(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object], str]:
    """``doctor ARGV --json``: its status and JSON, checked to agree, and stderr."""
    status = main(["doctor", *argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    data = json.loads(out)
    assert data["ok"] is (status == 0), (status, data)
    return status, data, err


def everything(root: Path) -> dict[str, bytes | str]:
    """Every path under *root*: a file's bytes, a link's target, ``dir`` for a directory."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            found[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            found[rel] = "dir"
        elif path.is_file():
            found[rel] = path.read_bytes()
    return found


def contents(root: Path) -> list[bytes | str]:
    """What is under *root*, whatever its names: nothing may be lost by a move."""
    return sorted(everything(root).values(), key=repr)


def test_a_set_aside_place_that_is_a_file_keeps_it_and_the_journal(
    deployed_once: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``deployments/.journal-set-aside`` is the user's file: the unreadable journal cannot be
    moved there; both stay, no traceback, exit 1."""
    (deployed_once / JOURNAL).write_text("{not json")
    aside = state / "deployments" / ".journal-set-aside"
    aside.write_text("the user's\n")
    status, _, _ = doctor(capsys, "--fix")
    assert status == 1
    assert aside.read_text() == "the user's\n"
    assert (deployed_once / JOURNAL).read_text() == "{not json"


def test_a_set_aside_place_that_is_a_file_is_a_finding_not_the_end_of_the_report(
    deployed_once: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bug: doctor --fix stopped with 'Cannot create the directory
    deployments/.journal-set-aside: File exists', no report of the deployments or the
    environments."""
    (deployed_once / JOURNAL).write_text("{not json")
    (state / "deployments" / ".journal-set-aside").write_text("the user's\n")
    _, data, _ = doctor(capsys, "--fix")
    assert "error" not in data, data
    details = [f["detail"] for f in data["findings"]]  # type: ignore[attr-defined]
    assert any(JOURNAL in d and "could not be set aside" in d for d in details), details


def test_an_environment_set_aside_place_that_is_a_file_keeps_it_and_everything(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    envs = state / "envs"
    (envs / ".journal").mkdir(parents=True)
    (envs / ".journal" / ENV_JOURNAL).write_text("[")
    (envs / ".journal-set-aside").write_text("the user's\n")
    status, _, _ = doctor(capsys, "--fix")
    assert status == 1
    assert (envs / ".journal-set-aside").read_text() == "the user's\n"
    assert (envs / ".journal" / ENV_JOURNAL).read_text() == "["


def test_every_numbered_name_taken_goes_on_counting(
    deployed_once: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Taken in ``.journal-set-aside``: the journal's name, ``.1``'s side file only, ``.2``
    as a dangling link, ``.3`` as a directory: the journal and its side file go to ``.4``,
    everything there before stays as it was."""
    (deployed_once / JOURNAL).write_text("{not json")
    (deployed_once / "00000000000000000001-deploy-x.config-0").write_text("side\n")
    aside = state / "deployments" / ".journal-set-aside"
    aside.mkdir()
    (aside / JOURNAL).write_text("0\n")
    (aside / "00000000000000000001-deploy-x.1.config-0").write_text("1 side\n")
    (aside / "00000000000000000001-deploy-x.2.json").symlink_to(aside / "nowhere")
    (aside / "00000000000000000001-deploy-x.3.json").mkdir()
    (aside / "00000000000000000001-deploy-x.3.json" / "keep").write_text("3\n")
    before = everything(aside)
    doctor(capsys, "--fix")
    after = everything(aside)
    assert {k: after[k] for k in before} == before
    assert after["00000000000000000001-deploy-x.4.json"] == b"{not json"
    assert after["00000000000000000001-deploy-x.4.config-0"] == b"side\n"
    assert os.listdir(deployed_once) == []


def test_an_environment_journal_set_aside_counts_past_links_and_directories(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    envs = state / "envs"
    (envs / ".journal").mkdir(parents=True)
    (envs / ".journal" / ENV_JOURNAL).write_text("[")
    aside = envs / ".journal-set-aside"
    aside.mkdir()
    (aside / ENV_JOURNAL).symlink_to(aside / "nowhere")
    (aside / "00000000000000000001-install-weather.1.json").mkdir()
    before = everything(aside)
    status, _, _ = doctor(capsys, "--fix")
    assert status == 1  # (what is set aside is reported until deleted)
    after = everything(aside)
    assert {k: after[k] for k in before} == before
    assert after["00000000000000000001-install-weather.2.json"] == b"["


def test_a_directory_where_a_journal_file_goes_is_set_aside_whole(
    deployed_once: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory named like a journal, with the user's files in it: moved, never emptied."""
    odd = deployed_once / JOURNAL
    odd.mkdir()
    (odd / "notes.txt").write_text("mine\n")
    doctor(capsys, "--fix")
    aside = state / "deployments" / ".journal-set-aside"
    assert (aside / JOURNAL / "notes.txt").read_text() == "mine\n"
    assert not odd.exists()


def test_both_journal_directories_unusable_at_once_are_set_aside_apart(
    deployed_once: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for journals in (deployed_once, state / "envs" / ".journal"):
        if journals.is_dir():
            os.rmdir(journals)
        journals.parent.mkdir(parents=True, exist_ok=True)
        journals.write_text(f"the user's {journals.parent.name}\n")
    assert doctor(capsys)[0] == 1
    doctor(capsys, "--fix")
    assert (state / "deployments" / ".journal-set-aside" / ".journal").read_text() == (
        "the user's deployments\n"
    )
    assert (state / "envs" / ".journal-set-aside" / ".journal").read_text() == ("the user's envs\n")
    assert doctor(capsys)[0] == 0


@pytest.mark.parametrize("kind", ["fifo", "link to a file", "dangling link"])
def test_an_environment_journal_directory_of_another_kind_is_moved_as_itself(
    home: Path, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A named pipe (never opened: nothing hangs), a link (moved as the link: what it points
    to stays where it is, untouched)."""
    journals = state / "envs" / ".journal"
    journals.parent.mkdir(parents=True)
    target = tmp_path / "elsewhere.txt"
    if kind == "fifo":
        os.mkfifo(journals)
    else:
        if kind == "link to a file":
            target.write_text("pointed at\n")
        journals.symlink_to(target)
    status, data, _ = doctor(capsys)
    assert status == 1
    (finding,) = data["environments"]["findings"]  # type: ignore[index]
    assert finding["kind"] == "unusable journal directory" and finding["fixable"]
    status, data, _ = doctor(capsys, "--fix")
    assert status == 0, data
    moved = state / "envs" / ".journal-set-aside" / ".journal"
    assert not os.path.lexists(journals)
    if kind == "fifo":
        assert moved.is_fifo()
    else:
        assert os.readlink(moved) == str(target)
    if kind == "link to a file":
        assert target.read_text() == "pointed at\n"


def test_a_second_unusable_directory_keeps_the_first_one_set_aside(
    home: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Set aside once; the same thing comes back: the first stays where it was put, the second
    where it was, and doctor keeps saying so (exit 1), ``ok`` false."""
    journals = state / "envs" / ".journal"
    journals.parent.mkdir(parents=True)
    journals.write_text("first\n")
    assert doctor(capsys, "--fix")[0] == 0
    journals.write_text("second\n")
    assert doctor(capsys, "--fix")[0] == 1
    assert (state / "envs" / ".journal-set-aside" / ".journal").read_text() == "first\n"
    assert journals.read_text() == "second\n"


def test_ok_and_the_exit_status_agree_in_every_state_along_the_way(
    deployed_once: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Checked by :func:`doctor` at each step: a journal of each part unreadable, fixed,
    then only the set-aside journals left (reported, not fixable), then deleted."""
    (deployed_once / JOURNAL).write_text("{not json")
    env_journals = state / "envs" / ".journal"
    env_journals.mkdir(parents=True)
    (env_journals / ENV_JOURNAL).write_text("[")
    assert doctor(capsys)[0] == 1
    assert doctor(capsys, "--fix")[0] == 1
    assert doctor(capsys)[0] == 1
    for aside in (
        state / "deployments" / ".journal-set-aside",
        state / "envs" / ".journal-set-aside",
    ):
        for path in aside.iterdir():
            path.unlink()
    assert doctor(capsys)[0] == 0


@pytest.mark.parametrize("part", ["deployments", "envs"])
def test_a_named_pipe_named_like_a_journal_never_hangs_doctor(
    deployed_once: Path, state: Path, part: str
) -> None:
    """Opened, a named pipe with no writer waits forever: doctor must not open it, and
    --fix moves it aside as itself (run as a process, with a deadline)."""
    journals = deployed_once if part == "deployments" else state / "envs" / ".journal"
    journals.mkdir(parents=True, exist_ok=True)
    name = JOURNAL if part == "deployments" else ENV_JOURNAL
    os.mkfifo(journals / name)
    for argv in (["doctor"], ["doctor", "--fix"]):
        done = subprocess.run(
            [sys.executable, "-m", "agenttools", *argv, "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert json.loads(done.stdout)["ok"] is (done.returncode == 0)
    assert not os.path.lexists(journals / name)
    (moved,) = (state / part / ".journal-set-aside").glob(name)
    assert moved.is_fifo()
