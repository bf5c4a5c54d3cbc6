"""``agenttools skill --list`` / ``skill URI`` as last printed (cli/recorded.py, kept with
every path the computation read) answer as the full path does (``run_skill``: the resolver and its
providers), cache cold and warm, and are not served once anything they were computed from
changed: a distribution installed, removed or upgraded, a manifest rewritten, a skill file
edited (even with its size and modification time kept). What the cache does not hold goes to
the full path."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

# the full path's modules, imported before sys.path is swapped
import agenttools_runtime.bundles
import agenttools_runtime.discovery
import agenttools_runtime.skills.skill_md
import agenttools_runtime.skilluri.resolver
import agenttools_runtime.verified  # noqa: F401
from agenttools_runtime.cli import lean_cache, quick_arguments
from agenttools_runtime.cli.uri import lean_skill, run_skill
from tests.helpers.venvs import fake_distribution, skill_files

LINES = (
    ["--list", "--no-local"],
    ["--list", "--no-local", "--json"],
    ["agenttools", "--no-local"],
    ["skill://weather-tools/weather-report", "--no-local"],
    ["weather-report", "--no-local", "--json"],
    ["skill://weather-tools/weather-report/scripts/run.sh", "--no-local"],
)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site directory as this interpreter's whole path, with one distribution."""
    site = tmp_path / "site"
    weather(site, "1.2.0")
    monkeypatch.setattr(sys, "path", [str(site)])
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setattr(lean_cache, "RACY_NS", 0)  # what was just written may be kept
    cache = lean_cache.cache_file("skill")
    assert cache is not None
    os.makedirs(os.path.dirname(os.path.dirname(cache)), exist_ok=True)  # agenttools was used
    return site


def weather(site: Path, version: str, body: str = "Report the weather.") -> Path:
    skill = skill_files("weather-report", "Reports the weather.", {"scripts/run.sh": "#!/bin/sh\n"})
    skill["files"]["SKILL.md"] = skill["files"]["SKILL.md"].replace("Do things.", body)
    skill["executable"] = ["scripts/run.sh"]
    return fake_distribution(site, "weather-tools", version, skills={"weather-report": skill})


def outputs(
    capsysbinary: pytest.CaptureFixture[bytes], line: list[str]
) -> tuple[tuple[int | None, bytes], tuple[int, bytes]]:
    """(lean status and output, full status and output) of ``skill LINE``."""
    args = quick_arguments(["skill", *line])
    assert args is not None
    lean = lean_skill(args), capsysbinary.readouterr().out
    try:
        status = run_skill(args)
    except Exception as exc:  # (the full path's error: the CLI's boundary prints it)
        status = 1
        print(type(exc).__name__)
    return lean, (status, capsysbinary.readouterr().out)


def same_answers(capsysbinary: pytest.CaptureFixture[bytes]) -> dict[str, bytes]:
    """Lean and full agree on every line, served by the lean path; line -> output."""
    found = {}
    for line in LINES:
        lean, full = outputs(capsysbinary, line)
        assert lean[0] == 0, f"the lean path left {line} to the full path"
        assert lean == full, line
        found[" ".join(line)] = lean[1]
    return found


def test_cold_and_warm_answers_are_the_full_paths(
    site: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime.cli import uri

    cold = same_answers(capsysbinary)
    assert b"weather-report" in cold["--list --no-local"]
    assert cold["skill://weather-tools/weather-report/scripts/run.sh --no-local"] == b"#!/bin/sh\n"

    def computed(*args: object) -> None:
        raise AssertionError("computed what the cache holds")

    with monkeypatch.context() as patch:
        patch.setattr(uri, "_computed_skill_output", computed)
        for line in LINES:
            assert outputs(capsysbinary, line)[0] == (0, cold[" ".join(line)])


def skill_md(site: Path) -> Path:
    dist_info = next(site.glob("weather_tools-*.dist-info"))
    return dist_info / "extra_metadata/agenttools/skills/weather-report/SKILL.md"


def test_changes_are_seen(site: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    same_answers(capsysbinary)
    # a skill file edited in place, its size and modification time kept: verification fails
    path = skill_md(site)
    before = path.stat()
    path.write_text(path.read_text().replace("weather.", "WEATHER."))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    line = ["skill://weather-tools/weather-report", "--no-local"]
    (lean_status, lean_out), (full_status, _) = outputs(capsysbinary, line)
    assert (lean_status, lean_out, full_status) == (None, b"", 1)
    # upgraded: another dist-info with another body, the old one removed
    shutil.rmtree(next(site.glob("weather_tools-*.dist-info")))
    weather(site, "1.3.0", body="Report the rain.")
    assert b"Report the rain." in same_answers(capsysbinary)[" ".join(line)]
    # the manifest rewritten in place: another description
    manifest = (
        next(site.glob("weather_tools-*.dist-info")) / "extra_metadata/agenttools/manifest.json"
    )
    manifest.write_text(manifest.read_text().replace("Reports the weather.", "Reports hail!"))
    assert b"Reports hail!" in same_answers(capsysbinary)["--list --no-local"]
    # another distribution installed, then removed
    fake_distribution(site, "other-tools", skills={"other-skill": skill_files("other-skill", "O.")})
    assert b"other-skill" in same_answers(capsysbinary)["--list --no-local"]
    shutil.rmtree(next(site.glob("other_tools-*.dist-info")))
    assert b"other-skill" not in same_answers(capsysbinary)["--list --no-local"]


@pytest.mark.parametrize("case", ["not found", "usage"])
def test_what_the_cache_does_not_hold_goes_to_the_full_path(
    case: str, site: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    line = ["no-such-skill", "--no-local"] if case == "not found" else ["--no-local"]
    for _ in range(2):
        args = quick_arguments(["skill", *line])
        assert args is not None
        assert (lean_skill(args), capsysbinary.readouterr().out) == (None, b"")


def test_an_editable_install_is_read_live(
    site: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    source = tmp_path / "project"
    skill = skill_files("live", "Live.")
    folder = source / "skills" / "live"
    folder.mkdir(parents=True)
    for rel, text in skill["files"].items():
        (folder / rel).write_text(text)
    fake_distribution(site, "other", skills={"live": skill}, source_root=source)
    line = ["skill://other/live", "--no-local"]
    for _ in range(2):
        lean, full = outputs(capsysbinary, line)
        assert lean[0] == 0 and lean == full
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "Edited live.\n")
    lean, full = outputs(capsysbinary, line)
    assert lean == full and b"Edited live." in lean[1]
    (folder / "notes.md").write_text("A new file.\n")  # a file added to the live folder
    line = ["--list", "--no-local", "--json"]
    for _ in range(2):
        lean, full = outputs(capsysbinary, line)
        assert lean[0] == 0 and lean == full


def local_skill(root: Path, name: str, description: str) -> None:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\nGo.\n")


def test_local_skills_are_recorded_and_their_changes_seen(
    site: Path,
    home: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agenttools_runtime.cli import uri

    project = tmp_path / "project"
    local_skill(project / ".claude" / "skills", "here-skill", "Here.")
    monkeypatch.chdir(project)
    lines = (["--list"], ["here-skill"], ["--list", "--json"])

    def answers() -> list[bytes]:
        found = []
        for line in lines:
            lean, full = outputs(capsysbinary, line)
            assert lean[0] == 0, line
            assert lean == full, line
            found.append(lean[1])
        return found

    cold = answers()
    assert b"here-skill" in cold[0]

    def computed(*args: object) -> None:
        raise AssertionError("computed what the cache holds")

    with monkeypatch.context() as patch:
        patch.setattr(uri, "_computed_skill_output", computed)
        assert [outputs(capsysbinary, line)[0][1] for line in lines] == cold
    # the local skill edited, another added here, one added in the home directory
    local_skill(project / ".claude" / "skills", "here-skill", "Here, edited.")
    assert b"Here, edited." in answers()[0]
    local_skill(project / ".cursor" / "skills", "cursor-skill", "Cursor's.")
    assert b"cursor-skill" in answers()[0]
    local_skill(home / ".claude" / "skills", "home-skill", "Home.")
    assert b"home-skill" in answers()[0]
    # another working directory: its own project scope
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    listing = outputs(capsysbinary, ["--list"])
    assert listing[0] == listing[1] and b"here-skill" not in listing[0][1]
