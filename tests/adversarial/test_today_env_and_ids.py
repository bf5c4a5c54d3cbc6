"""Adversarial: ``--env NAME=VALUE`` as deploy, configure and mcp install read it (one
parser: the name's spaces stripped, the value as given, a secret never shown), and
deployment IDs given by a prefix in any case, with spaces around it, to every command that
takes one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import activate, fake_distribution, fake_site

# a secret of the shape API keys often have: base64, with its padding
SECRET = "c2VjcmV0LXRva2VuLTEyMzQ1Njc4OQ=="
SETTINGS = {
    "UNITS": {"choices": ["metric", "imperial"], "default": "metric"},
    "TOKEN": {"secret": True, "required": True, "description": "The key"},
}
DEPLOY = ["deploy", "claude-code", "weather-tools", "--no-skills"]
INSTALL = ["mcp", "install", "claude-code", "weather-tools/weather"]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = fake_site(tmp_path / "venv")
    server = {"module": "weather_tools.server", "env": SETTINGS}
    fake_distribution(site, "weather-tools", servers={"weather": server}, schema=2)
    activate(monkeypatch, site)
    return site


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def entry_env(home: Path) -> dict[str, str]:
    (entry,) = json.loads((home / ".claude.json").read_text())["mcpServers"].values()
    return dict(entry["env"])


def state_text(home: Path) -> str:
    """Every file agenttools keeps, as text: where a secret must never be."""
    state = Path(os.environ["AGENTTOOLS_HOME"])
    return "".join(p.read_text(errors="replace") for p in state.rglob("*") if p.is_file())


def deploy_one(capsys: pytest.CaptureFixture[str], site: Path) -> str:
    status, _, err = run(capsys, *DEPLOY, "--path", str(site), "--env", f"TOKEN={SECRET}")
    assert status == 0, err
    (dep,) = deployed()
    return dep.uuid


@pytest.mark.parametrize("command", ["deploy", "mcp install"])
def test_the_name_is_stripped_and_the_value_kept_as_given(
    command: str, home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = DEPLOY if command == "deploy" else INSTALL
    given = ["--env", "\tUNITS  = imperial", "--env", f"  TOKEN={SECRET}=x"]
    status, out, err = run(capsys, *argv, "--path", str(site), *given)
    # " imperial" is no choice: refused, and the secret is not in what it says
    assert status != 0 and SECRET not in out + err
    given = ["--env", "\tUNITS  =imperial", "--env", f"  TOKEN={SECRET}=x"]
    status, out, err = run(capsys, *argv, "--path", str(site), *given)
    assert status == 0, err
    assert entry_env(home) == {"UNITS": "imperial", "TOKEN": f"{SECRET}=x"}
    assert SECRET not in out + err + state_text(home)


def test_configure_reads_its_values_alike(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uid = deploy_one(capsys, site)
    status, out, err = run(capsys, "configure", uid, "  UNITS =imperial")
    assert status == 0, err
    assert entry_env(home)["UNITS"] == "imperial"
    (dep,) = deployed()  # (deployed again: a new id)
    status, out, err = run(capsys, "configure", dep.uuid, f" TOKEN ={SECRET}")
    assert status == 0, err
    assert entry_env(home)["TOKEN"] == SECRET
    assert SECRET not in out + err + state_text(home)


@pytest.mark.parametrize("given", [SECRET[:-2], f"={SECRET}", f"  ={SECRET}", f"TOKN={SECRET}"])
@pytest.mark.parametrize("command", ["deploy", "mcp install", "configure"])
def test_a_value_in_the_wrong_place_is_never_shown(
    command: str, given: str, home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No ``=`` (the secret typed alone), no name, a misspelt name: refused, and neither the
    value nor anything of it is in what the command says, with or without ``--json``."""
    if command == "configure":
        argv = ["configure", deploy_one(capsys, site), given]
    else:
        argv = [*(DEPLOY if command == "deploy" else INSTALL), "--path", str(site)]
        argv += ["--env", "UNITS=metric", "--env", given]
    for json_flag in ([], ["--json"]):
        status, out, err = run(capsys, *argv, *json_flag)
        assert status in (1, 2), (out, err)
        assert SECRET[:12] not in out + err, (out, err)


@pytest.mark.parametrize("command", ["deploy", "mcp install", "configure"])
def test_a_secret_with_an_equals_sign_typed_alone_is_never_shown(
    command: str, home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if command == "configure":
        argv = ["configure", deploy_one(capsys, site), SECRET]
    else:
        argv = [*(DEPLOY if command == "deploy" else INSTALL), "--path", str(site)]
        argv += ["--env", SECRET]
    status, out, err = run(capsys, *argv)
    assert status in (1, 2)
    assert SECRET[:12] not in out + err, err


# -- deployment IDs --------------------------------------------------------------------------


def test_a_prefix_in_any_case_and_with_spaces_names_the_deployment_everywhere(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uid = deploy_one(capsys, site)
    for ident in (uid[:6].upper(), f"  {uid[:8].upper()} ", uid.upper(), f"{uid}\t"):
        status, out, err = run(capsys, "verify", ident)
        assert status == 0, (ident, out, err)
        status, out, err = run(capsys, "configure", ident)
        assert status == 0 and "UNITS" in out, (ident, out, err)
        status, out, err = run(capsys, "remove", ident, "--dry-run")
        assert status == 0 and uid in out, (ident, out, err)
    status, out, err = run(capsys, "remove", f" {uid[:8].upper()}")
    assert status == 0, (out, err)
    assert deployed() == []
    assert not os.path.exists(home / ".claude.json")  # (agenttools created it)


@pytest.mark.parametrize("ident", ["zz", "   ", "-", "00000000-0000"])
def test_an_id_that_matches_nothing_is_not_found_and_changes_nothing(
    ident: str, home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uid = deploy_one(capsys, site)
    before = (home / ".claude.json").read_bytes()
    for argv in (["remove", ident], ["verify", ident], ["configure", ident, "UNITS=imperial"]):
        status, out, err = run(capsys, *argv)
        assert status in (1, 2), (argv, out, err)
    assert [d.uuid for d in deployed()] == [uid]
    assert (home / ".claude.json").read_bytes() == before
