"""An identical redeploy: the engine answers "already deployed …, up to date" and writes no
file — no journal, record, registry entry, index or index-log line, cache or temporary file
(the lock file is only opened). After each change to something the answer rests on, the
engine answers from what is there now: up to date or not, with the verified-files cache
warm and cold."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agenttools_runtime import verified
from agenttools_runtime.cli import main
from tests.helpers.venvs import fake_distribution, fake_site, skill_files
from tests.helpers.weather import upgrade, weather

TOOLS = "weather-tools/weather-tools"
UP_TO_DATE = '"weather-tools/weather-tools" 1.2.0 is already deployed to Claude Code, up to date'

Snapshot = dict[str, tuple[object, ...]]


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The distributions here are written just before they are deployed: their files are
    taken as settled at once (the racily-clean rule: tests/discovery/test_verified.py)."""
    monkeypatch.setattr(verified, "RACY_NS", 0)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


def snapshot(*roots: Path) -> Snapshot:
    """Every file, folder and link under *roots*: its times, inode, mode and bytes."""
    found: Snapshot = {}
    for root in roots:
        for directory, folders, files in os.walk(root):
            for name in ["", *folders, *files]:
                path = os.path.join(directory, name) if name else directory
                info = os.lstat(path)
                data: object = None
                if os.path.islink(path):
                    data = os.readlink(path)
                elif os.path.isfile(path):
                    data = Path(path).read_bytes()
                found[path] = (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode, data)
    return found


def changes(before: Snapshot, after: Snapshot, state: Path) -> list[str]:
    lock = str(state / "deployments" / ".lock")
    return sorted(
        p for p in before.keys() | after.keys() if p != lock and before.get(p) != after.get(p)
    )


def deploy_argv(site: Path, *extra: str) -> list[str]:
    return ["deploy", "claude-code", TOOLS, "--path", str(site), *extra]


def answer(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = main(argv)
    return status, capsys.readouterr().out


@pytest.mark.parametrize("first", ["fresh state", "state there", "an older agenttools"])
def test_an_identical_redeploy_writes_no_file(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    state: Path,
    site: Path,
    tmp_path: Path,
    first: str,
) -> None:
    """``deploy`` and ``deploy --upgrade`` (text and ``--json``) of what is deployed: the same
    answer, and every file under HOME and the state directory as it was, to the inode and
    the change time. The first deploy on a machine (no state directory while its bundle was
    verified) leaves the verified-files cache all the same; a deployment an older agenttools
    made keeps its record as that version wrote it."""
    if first == "state there":
        other = fake_site(tmp_path / "other")
        weather(other, "1.2.0")
        assert main(["deploy", "cursor", TOOLS, "--path", str(other)]) == 0
    assert answer(capsys, deploy_argv(site))[0] == 0
    if first == "an older agenttools":
        (record,) = (state / "deployments").glob("*/deployment.json")
        data = json.loads(record.read_text())
        data["agenttools_version"] = "0.0.1"
        record.write_text(json.dumps(data, indent=2))
        assert answer(capsys, deploy_argv(site))[0] == 0  # (the index takes the edit in)
    before = snapshot(home, state)
    assert list((state / "deployments" / verified.DIRECTORY).iterdir())
    for extra in ((), ("--upgrade",), ("--json",), ("--upgrade", "--json")):
        status, out = answer(capsys, deploy_argv(site, *extra))
        assert status == 0, out
        if "--json" in extra:
            data = json.loads(out)
            assert data["ok"] is True and data["result"] == "unchanged"
        else:
            assert out.startswith(UP_TO_DATE) and out.rstrip().endswith(": nothing to do.")
        assert changes(before, snapshot(home, state), state) == [], extra


def skill_dir(home: Path) -> Path:
    return home / ".claude" / "skills" / "weather-report"


def edit_config(home: Path, change: Callable[[dict[str, object]], None]) -> None:
    config = home / ".claude.json"
    data = json.loads(config.read_text())
    change(data)
    config.write_text(json.dumps(data, indent=2))


# each: a change to what the answer rests on -> whether the engine still answers "up to date"
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
def test_after_a_change_the_answer_is_what_is_there(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    site: Path,
    state: Path,
    change: str,
    cold: bool,
) -> None:
    argv = deploy_argv(site, "--upgrade")
    assert answer(capsys, deploy_argv(site))[0] == 0
    status, out = answer(capsys, argv)
    assert status == 0 and out.startswith(UP_TO_DATE)
    if cold:  # which wheel files were verified, forgotten
        shutil.rmtree(state / "deployments" / verified.DIRECTORY)
    apply, still_up_to_date = CHANGES[change]
    apply(home, site)
    status, out = answer(capsys, argv)
    assert ("up to date" in out) == still_up_to_date, out
    assert status == 0 or not still_up_to_date  # (an entry the user edited: refused)


def venv_site(root: Path) -> Path:
    """A virtual environment's layout around a site-packages directory: ``--path`` to it
    launches the bundle's servers with that environment's interpreter."""
    site = fake_site(root)
    weather(site, "1.2.0")
    return site


def test_the_environment_a_site_belongs_to(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    """The servers' interpreter comes from the environment around ``--path``: when it is no
    longer a virtual environment, the config entry the engine wants is another one."""
    venv = tmp_path / "venv"
    argv = deploy_argv(venv_site(venv))
    assert answer(capsys, argv)[0] == 0
    assert answer(capsys, argv)[1].startswith(UP_TO_DATE)
    command = json.loads((home / ".claude.json").read_text())["mcpServers"]["weather"]["command"]
    assert command == str(venv / "bin" / "python")
    (venv / "pyvenv.cfg").unlink()
    status, out = answer(capsys, argv)
    assert status == 1 and "up to date" not in out


def test_a_virtual_environment_made_where_virtual_env_points(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    tmp_path: Path,
) -> None:
    """``VIRTUAL_ENV`` names a folder without an interpreter (the environment deleted while
    active): the engine looks in this interpreter's path. Once an environment is made there
    again, the engine looks in it instead."""
    monkeypatch.syspath_prepend(str(site))
    venv = tmp_path / "venv"
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    argv = ["deploy", "claude-code", TOOLS, "--upgrade"]
    assert answer(capsys, argv)[0] == 0
    status, out = answer(capsys, argv)
    assert status == 0 and out.startswith(UP_TO_DATE)
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)  # (without the site above)
    status, out = answer(capsys, argv)
    assert status != 0 and "up to date" not in out


def test_a_linked_dist_info_edited_where_it_leads(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    """The ``.dist-info`` a link into a store (a symlink forest's site-packages): a wheel file
    rewritten where it leads is a change of the source, though the link and the folder it
    leads to keep their times."""
    store = tmp_path / "store"
    weather(store, "1.2.0")
    site = fake_site(tmp_path / "site")
    (dist_info,) = store.glob("*.dist-info")
    for installed in store.iterdir():  # (the package too: its server's module)
        (site / installed.name).symlink_to(installed)
    argv = deploy_argv(site, "--upgrade")
    assert answer(capsys, argv)[0] == 0
    assert answer(capsys, argv)[1].startswith(UP_TO_DATE)
    (run,) = dist_info.rglob("run.sh")
    run.write_text("#!/bin/sh\nexit 1\n")
    _, out = answer(capsys, argv)
    assert "up to date" not in out
