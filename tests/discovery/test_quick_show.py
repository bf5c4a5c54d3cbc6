"""``agenttools show DIST/ITEM`` from its cache (cli/quick_show.py) answers as the full path
does (``run_show``: resolution, bundle objects, verified skill files), cache cold and warm,
and is not served once anything it was computed from changed: a skill file edited (even with
its size and modification time kept), replaced by a link, removed; the manifest rewritten;
the distribution upgraded or shadowed. What it does not hold goes to the full path."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import packaging.markers  # noqa: F401  (a bundle marker)
import pytest

# the full path's modules, imported before sys.path is swapped
import agenttools_runtime.bundles
import agenttools_runtime.discovery
import agenttools_runtime.skills.skill_md  # (an editable install's skill: yaml)
import agenttools_runtime.skills.source
import agenttools_runtime.verified  # noqa: F401
from agenttools_runtime.cli import lean_cache, quick_arguments
from agenttools_runtime.cli.discovery import lean_show, run_show
from tests.helpers.venvs import fake_distribution, skill_files

NAME = "weather-tools/weather-tools"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site directory as this interpreter's whole path, with one distribution."""
    site = tmp_path / "site"
    weather(site, "1.2.0")
    monkeypatch.setattr(sys, "path", [str(site)])
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setattr(lean_cache, "RACY_NS", 0)  # what was just written may be kept
    cache = lean_cache.cache_file("show")
    assert cache is not None
    os.makedirs(os.path.dirname(os.path.dirname(cache)), exist_ok=True)  # agenttools was used
    return site


def weather(site: Path, version: str, **extra: object) -> Path:
    skill = skill_files("weather-report", "Reports the weather.", {"scripts/run.sh": "#!/bin/sh\n"})
    skill["executable"] = ["scripts/run.sh"]
    return fake_distribution(
        site,
        "weather-tools",
        version,
        servers={
            "weather": {"module": "weather_tools.server", "env": {"UNITS": "metric"}},
            "remote": {"url": "https://example.org/mcp"},
        },
        skills={"weather-report": skill},
        **extra,  # type: ignore[arg-type]
    )


def outputs(
    capsys: pytest.CaptureFixture[str], name: str = NAME, *flags: str
) -> tuple[tuple[int | None, str], tuple[int, str]]:
    """(lean status and output, full status and output) of ``show NAME FLAGS``."""
    args = quick_arguments(["show", name, *flags])
    assert args is not None
    lean = lean_show(args), capsys.readouterr().out
    full = run_show(args), capsys.readouterr().out
    return lean, full


def same_answer(capsys: pytest.CaptureFixture[str], name: str = NAME) -> str:
    """Lean and full agree, as text and as JSON, served by the lean path; the text."""
    for flags in ((), ("--json",)):
        lean, full = outputs(capsys, name, *flags)
        assert lean[0] == 0, "the lean path left this to the full path"
        assert lean == full
    return outputs(capsys, name)[0][1]


def served_from_cache(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The lean answer, computing nothing."""
    from agenttools_runtime.cli import quick_show

    def computed(*args: object) -> None:
        raise AssertionError("computed what the cache holds")

    with monkeypatch.context() as patch:
        patch.setattr(quick_show, "_compute", computed)
        status, out = outputs(capsys)[0]
    assert status == 0
    return out


def skill_file(site: Path, rel: str) -> Path:
    dist_info = next(site.glob("weather_tools-*.dist-info"))
    return dist_info / "extra_metadata" / "agenttools" / "skills" / "weather-report" / rel


def test_cold_and_warm_answers_are_the_full_paths(
    site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = same_answer(capsys)
    assert "weather-tools/weather-report" in cold and "run.sh (executable)" in cold
    assert served_from_cache(capsys, monkeypatch) == cold
    same_answer(capsys, "weather-tools/remote")  # a server of the distribution on its own
    same_answer(capsys, "Weather_Tools/weather-tools")  # spelled otherwise


@pytest.mark.parametrize("change", ["edited in place", "linked", "removed", "directory linked"])
def test_a_changed_skill_file_is_never_served_from_the_cache(
    change: str, site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    same_answer(capsys)
    served_from_cache(capsys, monkeypatch)
    path = skill_file(site, "SKILL.md")
    if change == "edited in place":  # same size, modification time put back
        before = path.stat()
        path.write_text(path.read_text().replace("weather", "WEATHER"))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif change == "linked":
        copy = site.parent / "copy.md"
        copy.write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to(copy)
    elif change == "removed":
        path.unlink()
    else:
        scripts = skill_file(site, "scripts")
        shutil.move(scripts, site.parent / "scripts")
        scripts.symlink_to(site.parent / "scripts")
    (lean_status, lean_out), (full_status, full_out) = outputs(capsys)
    assert full_status == 1 and "problem:" in full_out  # verification says what changed
    assert (lean_status, lean_out) == (None, "")


def test_manifest_upgrade_and_shadowing_are_seen(
    site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    same_answer(capsys)
    # the manifest rewritten in place: a description changed
    manifest = (
        next(site.glob("weather_tools-*.dist-info")) / "extra_metadata/agenttools/manifest.json"
    )
    manifest.write_text(manifest.read_text().replace("Reports the weather.", "Reports rain!!"))
    assert "Reports rain!!" in same_answer(capsys)
    # upgraded: another dist-info, the old one removed
    shutil.rmtree(next(site.glob("weather_tools-*.dist-info")))
    weather(site, "1.3.0")
    assert "1.3.0" in same_answer(capsys)
    # shadowed by an earlier path entry
    earlier = site.parent / "earlier"
    weather(earlier, "0.9.0")
    sys.path.insert(0, str(earlier))
    assert "0.9.0" in same_answer(capsys)
    assert "0.9.0" in served_from_cache(capsys, monkeypatch)


@pytest.mark.parametrize("case", ["editable", "marker", "another distribution's skill", "missing"])
def test_what_the_cache_does_not_hold_goes_to_the_full_path(
    case: str, site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "other/b"
    if case == "editable":
        source = tmp_path / "project"
        skill = skill_files("live", "Live.")
        for rel, text in skill["files"].items():
            (source / "skills" / "live").mkdir(parents=True, exist_ok=True)
            (source / "skills" / "live" / rel).write_text(text)
        fake_distribution(site, "other", skills={"live": skill}, source_root=source)
        name = "other/other"
    elif case == "marker":
        bundle = {"name": "b", "mcp-servers": ["s"], "skills": [], "marker": "python_version>'3'"}
        fake_distribution(site, "other", servers={"s": {"command": "s"}}, bundles=[bundle])
    elif case == "another distribution's skill":
        bundle = {"name": "b", "mcp-servers": [], "skills": ["weather-tools/weather-report"]}
        fake_distribution(site, "other", servers={"s": {"command": "s"}}, bundles=[bundle])
    else:
        name = "other/nothing"
    for _ in range(2):
        args = quick_arguments(["show", name])
        assert args is not None
        assert (lean_show(args), capsys.readouterr().out) == (None, "")
        if case != "missing":  # (the full path raises DistributionNotInstalled)
            assert run_show(args) in (0, 1)
            capsys.readouterr()


def test_a_new_machine_gets_no_state_directory(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = lean_cache.cache_file("show")
    assert cache is not None
    state = os.path.dirname(os.path.dirname(cache))
    shutil.rmtree(state)
    assert outputs(capsys)[0][0] == 0
    assert not os.path.exists(state)
