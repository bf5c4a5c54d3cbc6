"""``agenttools list`` read on strings with its manifest cache (cli/quick_list.py) answers as
the full path does (``run_list``: discovery, bundle objects), cache cold and warm, across what
changes an environment: distributions installed, removed, upgraded, shadowed, a manifest
rewritten in place; and leaves to the full path what it does not answer."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import packaging.markers  # noqa: F401  (a bundle marker)
import pytest

import agenttools_runtime.bundles
import agenttools_runtime.discovery  # noqa: F401
from agenttools_runtime.cli import lean_cache, quick_arguments
from agenttools_runtime.cli import quick_list as quick
from agenttools_runtime.cli.discovery import lean_list, run_list
from tests.helpers.venvs import fake_distribution, skill_files

OLD_NS = 1_600_000_000 * 10**9  # a modification time long past
stamps = iter(range(OLD_NS, OLD_NS + 10**12, 10**9))


def settle(site: Path) -> None:
    """Every manifest under *site* given a modification time of its own, long past (the
    tests also take any change before the run as settled: RACY_NS 0)."""
    for manifest in site.glob("*.dist-info/extra_metadata/agenttools/manifest.json"):
        stamp = next(stamps)
        os.utime(manifest, ns=(stamp, stamp))


def outputs(
    capsys: pytest.CaptureFixture[str], *flags: str
) -> tuple[tuple[int | None, str], tuple[int, str]]:
    """(lean status and output, full status and output) of ``list FLAGS``."""
    args = quick_arguments(["list", *flags])
    assert args is not None
    lean = lean_list(args), capsys.readouterr().out
    full = run_list(args), capsys.readouterr().out
    return lean, full


def same_answer(capsys: pytest.CaptureFixture[str]) -> str:
    """Lean and full agree, as text and as JSON; the text."""
    for flags in ((), ("--json",)):
        (lean_status, lean_out), (full_status, full_out) = outputs(capsys, *flags)
        assert lean_status == 0, "the lean path left this to the full path"
        assert (lean_status, lean_out) == (full_status, full_out)
        if flags:
            assert json.loads(lean_out)["bundles"] is not None
    return outputs(capsys)[0][1]


@pytest.fixture
def sites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Two site directories as this interpreter's whole path."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setattr(sys, "path", [str(first), str(second)])
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setattr(lean_cache, "RACY_NS", 0)  # (test_a_racily_changed_manifest_is_not_kept)
    state = lean_cache.cache_file("list")
    assert state is not None
    os.makedirs(os.path.dirname(os.path.dirname(state)), exist_ok=True)  # agenttools was used
    return first, second


def populate(site: Path) -> None:
    skill = skill_files("weather-report", "Reports the weather.")
    fake_distribution(
        site,
        "weather-tools",
        "1.2.0",
        servers={"weather": {"module": "weather_tools.server"}, "remote": {"url": "https://x"}},
        skills={"weather-report": skill},
    )
    fake_distribution(
        site,
        "Other.Tools",
        "2.0",
        servers={"o": {"command": "o"}},
        skills={"other-skill": skill_files("other-skill", "Other.")},
        bundles=[
            {"name": "main", "mcp-servers": ["o", "weather-tools/weather"], "skills": []},
            {
                "name": "docs",
                "mcp-servers": [],
                "skills": ["other-skill", "Weather_Tools/weather-report"],
                "description": "Docs.",
            },
        ],
    )
    fake_distribution(site, "plain", "1.0")  # no manifest
    (site / "old_egg-0.1.egg-info").mkdir()


def test_cold_and_warm_answers_are_the_full_paths(
    sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _ = sites
    populate(first)
    cold = same_answer(capsys)
    assert "weather-tools/weather-tools" in cold and "other-tools/docs" in cold
    settle(first)
    same_answer(capsys)  # kept now
    cache = lean_cache.cache_file("list")
    assert cache is not None and os.path.isfile(cache)

    def unread(*args: object) -> None:
        raise AssertionError("read a manifest the cache holds")

    monkeypatch.setattr(quick, "_read_rows", unread)
    assert outputs(capsys)[0] == (0, cold)  # warm: nothing read
    monkeypatch.undo()


def test_changes_to_the_environment_are_seen(
    sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = sites
    populate(first)
    settle(first)
    same_answer(capsys)
    same_answer(capsys)
    # installed
    fake_distribution(second, "new-tools", servers={"n": {"command": "n"}})
    settle(second)
    assert "new-tools/new-tools" in same_answer(capsys)
    # upgraded: another dist-info, the old one removed
    shutil.rmtree(second / "new_tools-1.0.0.dist-info")
    fake_distribution(second, "new-tools", "1.1", servers={"m": {"command": "m"}})
    settle(second)
    text = same_answer(capsys)
    assert "1.1" in text and "new-tools/m" not in text and " m" in text
    # shadowed by an earlier path entry
    fake_distribution(first, "new-tools", "0.9", skills={"s-one": skill_files("s-one", "S.")})
    settle(first)
    assert "s-one" in same_answer(capsys)
    # removed
    shutil.rmtree(first / "new_tools-0.9.dist-info")
    assert "s-one" not in same_answer(capsys)
    # a manifest rewritten in place, same size, modification time put back
    manifest = (
        next(first.glob("weather_tools-*.dist-info")) / "extra_metadata/agenttools/manifest.json"
    )
    data = manifest.read_bytes()
    manifest.write_bytes(data.replace(b'"remote"', b'"remots"'))
    settle(first)
    text = same_answer(capsys)
    assert "remots" in text and "remote," not in text
    # an editable install's source root
    fake_distribution(second, "live", skills={"l": skill_files("l", "L.")}, source_root=first)
    settle(second)
    same_answer(capsys)


@pytest.mark.parametrize(
    "case",
    ["problem", "marker", "zip", "unnormalized path", "schema too new"],
)
def test_what_the_lean_path_leaves_to_the_full_path(
    case: str, sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = sites
    populate(first)
    if case == "problem":
        fake_distribution(second, "broken", raw_manifest="{")
    elif case == "marker":
        bundle = {"name": "b", "mcp-servers": ["s"], "skills": [], "marker": "python_version>'3'"}
        fake_distribution(second, "marked", servers={"s": {"command": "s"}}, bundles=[bundle])
    elif case == "zip":
        import zipfile

        with zipfile.ZipFile(second / "archive.zip", "w") as zf:
            zf.writestr("zipped-1.0.dist-info/extra_metadata/agenttools/manifest.json", "{}")
        sys.path.append(str(second / "archive.zip"))
    elif case == "unnormalized path":
        sys.path.append(str(second) + "/")
    else:
        fake_distribution(second, "future", servers={"s": {"command": "s"}}, schema=99)
    settle(first)
    settle(second)
    for _ in range(2):  # cold, then with whatever the cache holds
        (lean_status, lean_out), (full_status, _) = outputs(capsys)
        assert lean_status is None and lean_out == ""
        assert full_status == 0


def test_main_answers_list_through_the_lean_path(
    sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime.cli import main

    populate(sites[0])
    settle(sites[0])
    full = outputs(capsys)[1][1]
    monkeypatch.setattr("agenttools_runtime.cli.discovery.run_list", None)  # not called
    assert main(["list"]) == 0
    assert capsys.readouterr().out == full


def test_the_cache_is_in_the_state_directory_platformdirs_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTTOOLS_HOME", str(tmp_path / "state"))
    assert lean_cache.cache_file("list") == str(tmp_path / "state" / "cache" / "list.marshal")
    if sys.platform != "linux":
        return
    import platformdirs

    monkeypatch.delenv("AGENTTOOLS_HOME")
    for xdg in (None, "", "  ", str(tmp_path / "xdg")):
        if xdg is None:
            monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_DATA_HOME", xdg)
        state = platformdirs.user_data_dir("agenttools", appauthor=False)
        assert lean_cache.cache_file("list") == os.path.join(state, "cache", "list.marshal")


def test_a_corrupt_cache_is_ignored(
    sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    populate(sites[0])
    settle(sites[0])
    same_answer(capsys)
    cache = lean_cache.cache_file("list")
    assert cache is not None
    for junk in (b"", b"\x00garbage", b"\xe9" * 40):
        Path(cache).write_bytes(junk)
        same_answer(capsys)


def test_a_racily_changed_manifest_is_not_kept(
    sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # changed within RACY_NS of the run: a change in the same clock tick could leave its
    # signature the same, so it is read again next time
    monkeypatch.setattr(lean_cache, "RACY_NS", 2_000_000_000)
    populate(sites[0])
    same_answer(capsys)
    cache = lean_cache.cache_file("list")
    assert cache is not None
    kept = lean_cache.load(cache)
    assert kept == {} or all(rows == {} for rows in kept.values())


def test_a_new_machine_gets_no_state_directory(
    sites: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cache = lean_cache.cache_file("list")
    assert cache is not None
    state = os.path.dirname(os.path.dirname(cache))
    shutil.rmtree(state)
    populate(sites[0])
    settle(sites[0])
    same_answer(capsys)
    assert not os.path.exists(state)
