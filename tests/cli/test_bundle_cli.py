"""``agenttools bundle WHEEL``: a wheel built without the hook gets exactly the files the
hook writes; again is a no-op; other files are refused unless --force; a broken or foreign
project is a clear error and the wheel is left as it is."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.wheels import SAMPLES, build_sample_wheel, build_wheel

AGENTTOOLS = "extra_metadata/agenttools/"


def agenttools_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {n: archive.read(n) for n in archive.namelist() if AGENTTOOLS in n}


@pytest.fixture
def plain_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """weather-tools built by hatchling with every hook off: no agenttools files."""
    monkeypatch.setenv("HATCH_BUILD_NO_HOOKS", "true")
    wheel = build_wheel(SAMPLES / "weather-tools", tmp_path / "plain")
    monkeypatch.delenv("HATCH_BUILD_NO_HOOKS")
    assert agenttools_files(wheel) == {}
    return wheel


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_bundle_writes_what_the_hatchling_hook_writes(
    plain_wheel: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = str(SAMPLES / "weather-tools")
    status, out, err = run(
        capsys, "bundle", str(plain_wheel), "--project", project, "-o", str(tmp_path / "out")
    )
    assert status == 0, err
    bundled = tmp_path / "out" / plain_wheel.name
    assert out == (
        f"{bundled}: added the agenttools files of weather-tools 1.2.0 "
        "(6 files: the manifest and 3 skills)\n"
    )
    hooked = build_sample_wheel("weather-tools", tmp_path_factory)
    assert agenttools_files(bundled) == agenttools_files(hooked)  # one implementation
    assert agenttools_files(plain_wheel) == {}  # -o leaves WHEEL as it is


def test_bundling_again_changes_nothing(
    plain_wheel: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(SAMPLES / "weather-tools")  # --project defaults to the current directory
    assert run(capsys, "bundle", str(plain_wheel))[0] == 0
    data = plain_wheel.read_bytes()
    status, out, _ = run(capsys, "bundle", str(plain_wheel), "--json")
    assert status == 0
    result = json.loads(out)
    assert result["ok"] and result["outcome"] == "unchanged"
    assert (
        result["files"][0]
        == "weather_tools-1.2.0.dist-info/extra_metadata/agenttools/manifest.json"
    )
    assert plain_wheel.read_bytes() == data


def test_other_metadata_is_refused_unless_forced(
    plain_wheel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    assert run(capsys, "bundle", str(plain_wheel), "--project", str(project))[0] == 0
    forecast = project / "docs" / "forecast.md"
    forecast.write_text(forecast.read_text() + "\nA new paragraph.\n")
    before = plain_wheel.read_bytes()
    status, _, err = run(capsys, "bundle", str(plain_wheel), "--project", str(project))
    assert status == 1
    assert "already carries different agenttools metadata (differs: " in err
    assert "skills/forecast-help/SKILL.md" in err and "Use --force to replace it." in err
    assert plain_wheel.read_bytes() == before
    status, out, _ = run(
        capsys, "bundle", str(plain_wheel), "--project", str(project), "--force", "--json"
    )
    assert status == 0 and json.loads(out)["outcome"] == "replaced"
    files = agenttools_files(plain_wheel)
    inline = "weather_tools-1.2.0.dist-info/extra_metadata/agenttools/skills/forecast-help/SKILL.md"
    assert b"A new paragraph." in files[inline]


def test_a_wheel_of_another_distribution_is_refused(
    plain_wheel: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = plain_wheel.read_bytes()
    status, _, err = run(
        capsys, "bundle", str(plain_wheel), "--project", str(SAMPLES / "multi-bundle")
    )
    assert status == 1
    assert 'is a wheel of "weather-tools", but the project in' in err
    assert plain_wheel.read_bytes() == before


def test_a_broken_project_lists_its_problems_and_writes_nothing(
    plain_wheel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.agenttools.mcp-servers.weather]", "[tool.agenttools.mcp-server.weather]"
        )
    )
    before = plain_wheel.read_bytes()
    status, out, _ = run(capsys, "bundle", str(plain_wheel), "--project", str(project), "--json")
    assert status == 1
    error = json.loads(out)["error"]
    assert error["tag"] == "InvalidProject"
    assert 'UnknownKey: tool.agenttools.mcp-server: unknown key "mcp-server"' in error["message"]
    assert plain_wheel.read_bytes() == before


def test_the_build_setup_is_not_checked(
    plain_wheel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wheel built by anything: the project need not enable the hook or any backend."""
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace("[tool.hatch.build.hooks.agenttools]", "")
    pyproject.write_text(
        text.replace('requires = ["hatchling", "agenttools"]', 'requires = ["hatchling"]')
    )
    status, _, err = run(capsys, "bundle", str(plain_wheel), "--project", str(project))
    assert status == 0, err


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_the_projects_warnings_are_warnings_on_stderr(
    plain_wheel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    """Bug: they were printed as 'agenttools: …' (the prefix of an error), and not at all
    with --json, where every other command prints its warnings as 'Warning: …' on stderr;
    then as 'Warning: skills/…/SKILL.md:1: warning: UndeclaredSkill: …' (warning twice).
    The JSON's 'warnings' say each as the project check does (its 'warning:' once too)."""
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    (project / "skills" / "extra").mkdir()
    skill = "---\nname: extra\ndescription: Nobody declares it.\n---\nBody\n"
    (project / "skills" / "extra" / "SKILL.md").write_text(skill)
    json_flag = ["--json"] if as_json else []
    status, out, err = run(
        capsys, "bundle", str(plain_wheel), "--project", str(project), *json_flag
    )
    assert status == 0, err
    (line,) = err.splitlines()
    assert line.startswith(
        "Warning: skills/extra/SKILL.md:1: UndeclaredSkill: skills/extra holds a SKILL.md"
    ), err
    assert line.casefold().count("warning") == 1
    if as_json:
        (said,) = json.loads(out)["warnings"]
        checked = "skills/extra/SKILL.md:1: warning: UndeclaredSkill: skills/extra holds a SKILL.md"
        assert said.startswith(checked)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no-such.whl"], "no such file: no-such.whl"),
        (["{wheel}", "--project", "no-such-dir"], "no such directory: no-such-dir"),
    ],
)
def test_usage_errors_exit_2(
    plain_wheel: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, _, err = run(capsys, "bundle", *[a.format(wheel=plain_wheel) for a in argv])
    assert status == 2
    assert err == f"agenttools: {message}\n"


def test_not_a_wheel_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "fake-1.0-py3-none-any.whl"
    fake.write_bytes(b"PK but not really")
    status, _, err = run(capsys, "bundle", str(fake), "--project", str(SAMPLES / "weather-tools"))
    assert status == 1
    assert err.startswith(
        f"agenttools: Cannot add agenttools files to {fake}: it cannot be read as a zip file"
    )
