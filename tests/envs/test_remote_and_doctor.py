"""Metadata without installing (``show --index``, ``list --index``: ranges of the wheel, or the
whole wheel from a server without ranges, cached by hash; no environment), and ``doctor`` for
managed environments: unused, interpreter gone, receipt mismatch — found, then repaired."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from uv import find_uv_bin

from tests.helpers.envs import claude_entry, environments, initialize, run
from tests.helpers.index import IndexServer
from tests.helpers.index_fixtures import Releases

pytestmark = pytest.mark.slow


def state_of(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"


def test_show_index_reads_the_newest_wheel_and_installs_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, index: IndexServer
) -> None:
    url = index.url()
    shown = run(capsys, "show", "weather-tools", "--index", "--index-url", url, "--json")
    assert shown.status == 0, shown.err
    data = shown.json()
    assert (data["distribution"], data["version"]) == ("weather-tools", "1.3.0")
    assert sorted(data["bundles"][0]["skills"]) == [
        "forecast-help",
        "station-lookup",
        "weather-report",
    ]
    assert data["mcp_servers"]["weather"]["module"] == "weather_tools.server"
    pinned = run(capsys, "show", "weather-tools==1.2.0", "--index", "-i", url)
    assert pinned.status == 0 and pinned.out.startswith("weather-tools 1.2.0 (")
    assert "skill weather-report:" in pinned.out and "MCP server weather: module" in pinned.out
    assert not (state_of(tmp_path) / "envs").exists()  # no environment, nothing installed
    cached = list((tmp_path / "agenttools-cache" / "manifests").glob("*.json"))
    assert sorted(p.stem for p in cached) == sorted([data["sha256"], pinned_sha(capsys, url)])
    bundle = run(capsys, "show", "weather-tools/weather-tools", "--index", "-i", url, "--json")
    assert bundle.status == 0 and len(bundle.json()["bundles"]) == 1


def pinned_sha(capsys: pytest.CaptureFixture[str], url: str) -> str:
    found: str = run(capsys, "show", "weather-tools==1.2.0", "--index", "-i", url, "--json").json()[
        "sha256"
    ]
    return found


def test_a_server_without_ranges_and_find_links(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, plain_http: str, wheelhouse: Path
) -> None:
    shown = run(
        capsys,
        "show",
        "weather-tools",
        "--index",
        "--no-index",
        "--find-links",
        plain_http,
        "--json",
    )
    assert shown.status == 0, shown.err
    assert shown.json()["version"] == "1.3.0"
    kept = list(
        (tmp_path / "agenttools-cache" / "wheels").glob("*/weather_tools-1.3.0-py3-none-any.whl")
    )
    assert len(kept) == 1  # the whole wheel, downloaded once (no hash published: not keyed by one)
    listed = run(capsys, "list", "--index", "--find-links", str(wheelhouse), "--json")
    assert listed.status == 0, listed.err
    rows = {r["distribution"]: r for r in listed.json()["distributions"]}
    assert sorted(rows) == ["skills-only", "weather-tools"]  # plain-dist ships none: not listed
    assert rows["weather-tools"]["version"] == "1.3.0"
    public = run(capsys, "list", "--index")
    assert public.status == 1 and "name the distributions" in public.err


def test_doctor_finds_and_repairs_managed_environments(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    old_index: IndexServer,
    releases: Releases,
) -> None:
    url = old_index.url()
    assert run(capsys, "deploy", "claude-code", "weather-tools", "-i", url, "--install").status == 0
    (name,) = environments(state_of(tmp_path))
    env = state_of(tmp_path) / "envs" / name
    assert run(capsys, "doctor").status == 0

    # a Python upgrade: the interpreter the environment was made with is gone
    for link in ("python", "python3", "python3.11"):
        target = env / "bin" / link
        if target.is_symlink():
            target.unlink()
            target.symlink_to("/nonexistent/python3.11")
    found = run(capsys, "doctor", "--json")
    assert found.status == 1
    kinds = [f["kind"] for f in found.json()["environments"]["findings"]]
    assert kinds == ["interpreter gone"]
    fixed = run(capsys, "doctor", "--fix")
    assert fixed.status == 0, fixed.out + fixed.err
    assert "rebuilt from its receipt" in fixed.out
    entry = claude_entry(home)
    assert (
        initialize([entry["command"], *entry["args"]], entry.get("env"))["serverInfo"]["name"]
        == "weather"
    )

    # something installed into it behind agenttools' back
    # the uv the test extras installed beside this interpreter, whichever venv runs the suite
    uv = find_uv_bin()
    subprocess.run([uv, "pip", "install", "--python", str(env / "bin" / "python"), str(releases.plain),
                    "--no-deps", "-q"], check=True)  # fmt: skip
    found = run(capsys, "doctor", "--json").json()["environments"]["findings"]
    assert [f["kind"] for f in found] == ["receipt mismatch"]
    assert "plain-dist 1.0 not in the receipt" in found[0]["message"]
    assert run(capsys, "doctor", "--fix").status == 0
    assert not list((env / "lib").glob("python*/site-packages/plain_dist-1.0.dist-info"))

    # a deployment gone without agenttools: its environment is unused
    record = next((state_of(tmp_path) / "deployments").glob("*/deployment.json"))
    json.loads(record.read_text())
    for file in record.parent.iterdir():
        file.unlink()
    record.parent.rmdir()
    found = run(capsys, "doctor", "--json").json()["environments"]["findings"]
    assert [f["kind"] for f in found] == ["unused"]
    assert run(capsys, "doctor", "--fix").status in (0, 1)
    assert environments(state_of(tmp_path)) == []
