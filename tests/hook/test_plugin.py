"""The build hook (agenttools_hook/plugin.py): real wheels and sdists built by hatchling
in-process, inspected member by member; and the hook constructed directly."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from agenttools_hook.plugin import AgentToolsBuildError, AgentToolsBuildHook
from agenttools_runtime.skill_sources import distribution_skill_source
from agenttools_runtime.skills.hashing import hash_bytes
from agenttools_runtime.skills.skill_md import parse_skill_md
from tests.helpers.wheels import (  # noqa: F401
    SAMPLES,
    build_sdist,
    build_wheel,
    manifest_bytes,
    sample_sdist,
    sample_wheel,
)

EXTRA = "extra_metadata/agenttools"


def read_wheel(wheel: Path) -> tuple[zipfile.ZipFile, str]:
    archive = zipfile.ZipFile(wheel)
    dist_info = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
    return archive, dist_info.rsplit("/", 1)[0]


def manifest_of(wheel: Path) -> dict[str, Any]:
    archive, dist_info = read_wheel(wheel)
    with archive:
        return json.loads(archive.read(f"{dist_info}/{EXTRA}/manifest.json"))


def record_rows(archive: zipfile.ZipFile, dist_info: str) -> dict[str, tuple[str, str]]:
    rows = {}
    for line in archive.read(f"{dist_info}/RECORD").decode().splitlines():
        path, digest, size = line.rsplit(",", 2)
        rows[path] = (digest, size)
    return rows


# -- weather-tools ---------------------------------------------------------------------------


def test_weather_tools_manifest(sample_wheel) -> None:  # noqa: F811
    manifest = manifest_of(sample_wheel("weather-tools"))
    assert manifest["schema"] == 1
    assert manifest["distribution"] == "weather-tools"
    assert manifest["version"] == "1.2.0"
    assert manifest["root"] == "skills"
    assert "source-root" not in manifest
    assert manifest["bundles"] == [
        {
            "name": "weather-tools",
            "implicit": True,
            "mcp-servers": ["weather"],
            "skills": ["weather-report", "station-lookup", "forecast-help"],
        }
    ]
    assert manifest["mcp-servers"] == {
        "weather": {
            "description": "Weather lookups for a few known stations (offline, deterministic)",
            "module": "weather_tools.server",
            "env": {"WEATHER_UNITS": "metric"},
        }
    }
    report = manifest["skills"]["weather-report"]
    assert report["kind"] == "directory"
    assert report["path"] == "skills/weather-report"
    assert sorted(report["files"]) == ["SKILL.md", "references/units.md", "scripts/report.py"]
    assert report["executable"] == ["scripts/report.py"]
    assert manifest["skills"]["forecast-help"]["kind"] == "inline"
    assert "path" not in manifest["skills"]["forecast-help"]


def test_every_skill_file_is_in_the_wheel_with_its_hash_and_record(sample_wheel) -> None:  # noqa: F811
    archive, dist_info = read_wheel(sample_wheel("weather-tools"))
    with archive:
        manifest = json.loads(archive.read(f"{dist_info}/{EXTRA}/manifest.json"))
        rows = record_rows(archive, dist_info)
        members = set(archive.namelist())
        expected = {f"{dist_info}/{EXTRA}/manifest.json"}
        for name, skill in manifest["skills"].items():
            for rel, digest in skill["files"].items():
                member = f"{dist_info}/{EXTRA}/skills/{name}/{rel}"
                expected.add(member)
                data = archive.read(member)
                assert hash_bytes(data) == digest, member
                # the same file as the source tree, byte for byte (directory skills)
                if skill["kind"] == "directory":
                    assert data == (SAMPLES / "weather-tools" / skill["path"] / rel).read_bytes()
        ours = {m for m in members if f"/{EXTRA}/" in m}
        assert ours == expected
        for member in expected:
            data = archive.read(member)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert rows[member] == (f"sha256={digest.decode()}", str(len(data))), member


def test_exec_bits_survive(sample_wheel) -> None:  # noqa: F811
    archive, dist_info = read_wheel(sample_wheel("weather-tools"))
    with archive:
        skill = f"{dist_info}/{EXTRA}/skills/weather-report"
        script = archive.getinfo(f"{skill}/scripts/report.py")
        reference = archive.getinfo(f"{skill}/references/units.md")
    assert (script.external_attr >> 16) & 0o777 == 0o755
    assert (reference.external_attr >> 16) & 0o777 == 0o644


def test_inline_skill_is_generated_from_body_file(sample_wheel) -> None:  # noqa: F811
    archive, dist_info = read_wheel(sample_wheel("weather-tools"))
    with archive:
        text = archive.read(f"{dist_info}/{EXTRA}/skills/forecast-help/SKILL.md").decode()
    document = parse_skill_md(text)
    assert document.frontmatter["name"] == "forecast-help"
    assert document.frontmatter["license"] == "MIT"
    assert document.frontmatter["description"].startswith("How to read a weather forecast")
    body = (SAMPLES / "weather-tools" / "docs" / "forecast.md").read_text()
    assert document.body.strip() == body.strip()


def test_build_writes_nothing_into_the_source_tree_or_output(tmp_path: Path) -> None:
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project, symlinks=True)
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    out = tmp_path / "dist"
    wheel = build_wheel(project, out)
    after = sorted(p.relative_to(project) for p in project.rglob("*"))
    assert after == before
    assert sorted(p.name for p in out.iterdir()) == [wheel.name]


def test_builds_are_byte_identical(tmp_path: Path, sample_wheel) -> None:  # noqa: F811
    first = manifest_bytes(sample_wheel("weather-tools"))
    second = manifest_bytes(build_wheel(SAMPLES / "weather-tools", tmp_path))
    assert first == second


# -- the other samples -----------------------------------------------------------------------


def test_multi_bundle_manifest(sample_wheel) -> None:  # noqa: F811
    manifest = manifest_of(sample_wheel("multi-bundle"))
    bundles = manifest["bundles"]
    assert [b["name"] for b in bundles] == ["toolkit", "toolkit-development", "toolkit-development"]
    assert all(b["implicit"] is False for b in bundles)
    assert bundles[0]["mcp-servers"] == ["toolkit"]
    assert bundles[1]["marker"] == "sys_platform != 'win32'"
    assert bundles[2]["marker"] == "sys_platform == 'win32'"
    assert "weather-tools/weather-report" in bundles[1]["skills"]
    # a skill named only by bundles is found under root
    assert manifest["skills"]["toolkit-building"]["path"] == "skills/toolkit-building"
    assert manifest["skills"]["toolkit-development"]["kind"] == "inline"
    assert "weather-tools/weather-report" not in manifest["skills"]
    assert manifest["mcp-servers"]["docs-search"] == {
        "description": "Search the toolkit documentation (remote)",
        "url": "https://docs.example.org/mcp",
        "transport": "http",
        "headers": {"X-Client": "agenttools"},
    }


def test_skills_only_wheel_in_exclude_all_mode(sample_wheel) -> None:  # noqa: F811
    """bypass-selection puts hatchling in exclude-all mode, which drops mapped directories;
    the hook maps single files, so the skills still arrive."""
    archive, dist_info = read_wheel(sample_wheel("skills-only"))
    with archive:
        names = archive.namelist()
        manifest = json.loads(archive.read(f"{dist_info}/{EXTRA}/manifest.json"))
    assert manifest["bundles"][0]["name"] == "skills-only"
    assert manifest["mcp-servers"] == {}
    for name, skill in manifest["skills"].items():
        for rel in skill["files"]:
            assert f"{dist_info}/{EXTRA}/skills/{name}/{rel}" in names
    assert not [n for n in names if not n.startswith(dist_info)]  # no modules at all


# -- sdist -----------------------------------------------------------------------------------


def test_sdist_round_trip_gives_a_byte_identical_manifest(
    tmp_path: Path,
    sample_wheel,  # noqa: F811
    sample_sdist,  # noqa: F811
) -> None:
    sdist = sample_sdist("weather-tools")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
        archive.extractall(tmp_path, filter="data")
    top = names[0].split("/")[0]
    for rel in (
        "pyproject.toml",
        "docs/forecast.md",
        "skills/weather-report/scripts/report.py",
        "skills/station-lookup/SKILL.md",
    ):
        assert f"{top}/{rel}" in names
    wheel = build_wheel(tmp_path / top, tmp_path / "dist")
    assert manifest_bytes(wheel) == manifest_bytes(sample_wheel("weather-tools"))
    archive_, dist_info = read_wheel(wheel)
    with archive_:
        info = archive_.getinfo(f"{dist_info}/{EXTRA}/skills/weather-report/scripts/report.py")
    assert (info.external_attr >> 16) & 0o111


def test_sdist_carries_skills_that_hatchling_would_leave_out(tmp_path: Path) -> None:
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project, symlinks=True)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text()
        + '\n[tool.hatch.build.targets.sdist]\nonly-include = ["src", "README.md"]\n'
    )
    (project / ".gitignore").write_text("*.md\n")
    sdist = build_sdist(project, tmp_path / "dist")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames()}
    assert {
        "skills/weather-report/SKILL.md",
        "skills/weather-report/references/units.md",
        "skills/weather-report/scripts/report.py",
        "skills/station-lookup/SKILL.md",
        "docs/forecast.md",
        "pyproject.toml",
    } <= names


# -- editable --------------------------------------------------------------------------------


def test_editable_wheel_records_the_source_root(sample_wheel) -> None:  # noqa: F811
    editable = manifest_of(sample_wheel("weather-tools", editable=True))
    standard = manifest_of(sample_wheel("weather-tools"))
    assert editable.pop("source-root") == str(SAMPLES / "weather-tools")
    assert editable == standard


# -- failures --------------------------------------------------------------------------------


def test_standard_and_editable_in_one_build(tmp_path: Path) -> None:
    """hatchling runs one hook instance for both versions: each is verified on its own."""
    from hatchling.builders.wheel import WheelBuilder

    from tests.helpers.wheels import plugin_manager

    builder = WheelBuilder(str(SAMPLES / "skills-only"), plugin_manager=plugin_manager())
    editable, standard = builder.build(directory=str(tmp_path), versions=["editable", "standard"])
    assert editable == standard  # one file name: the standard wheel replaced the editable one
    assert "source-root" not in manifest_of(Path(standard))


def test_sources_that_move_extra_metadata_fail_the_build_with_the_reason(tmp_path: Path) -> None:
    """hatchling rewrites extra-metadata targets by `sources` too ("" = "pkg" puts the files
    under extra_metadata/pkg/agenttools/): refused before building, saying why."""
    project = tmp_path / "skills-only"
    shutil.copytree(SAMPLES / "skills-only", project)
    text = (project / "pyproject.toml").read_text()
    text = text.replace(
        "bypass-selection = true\n", 'bypass-selection = true\nsources = {"" = "pkg"}\n'
    )
    (project / "pyproject.toml").write_text(text)
    with pytest.raises(AgentToolsBuildError) as caught:
        build_wheel(project, tmp_path / "dist")
    assert "(agenttools/manifest.json -> pkg/agenttools/manifest.json)" in str(caught.value)
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").iterdir())


def test_broken_project_fails_with_every_problem(tmp_path: Path) -> None:
    project = tmp_path / "broken"
    shutil.copytree(SAMPLES / "broken", project, symlinks=True)
    with pytest.raises(AgentToolsBuildError) as caught:
        build_wheel(project, tmp_path / "dist")
    message = str(caught.value)
    expected = (SAMPLES / "broken" / "expected.txt").read_text().splitlines()
    errors = [line for line in expected if ": warning: " not in line]
    assert message.splitlines()[0] == f"[tool.agenttools] has {len(errors)} error(s):"
    for line in errors:
        assert f"  {line}" in message.splitlines()
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").iterdir())


def test_broken_project_fails_the_sdist_too(tmp_path: Path) -> None:
    project = tmp_path / "no-hook-ok"
    shutil.copytree(SAMPLES / "broken" / "outside-root", project)
    with pytest.raises(AgentToolsBuildError, match="PathOutsideProject"):
        build_sdist(project, tmp_path / "dist")


@pytest.mark.skipif(sys.platform == "win32", reason="a file name with a backslash")
def test_a_backslash_leading_root_fails_the_hatchling_build(tmp_path: Path) -> None:
    """Before, the wheel built with the skill's path "\\skills/tiny", which the manifest
    reader refuses: every deploy of the wheel failed."""
    project = tmp_path / "p"
    (project / "\\skills" / "tiny").mkdir(parents=True)
    (project / "\\skills" / "tiny" / "SKILL.md").write_text(
        "---\nname: tiny\ndescription: Tiny.\n---\n\nBody.\n"
    )
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling", "agenttools"]\nbuild-backend = "hatchling.build"\n'
        '\n[project]\nname = "demo"\nversion = "1.0"\n\n[tool.hatch.build.hooks.agenttools]\n'
        "[tool.hatch.build.targets.wheel]\nbypass-selection = true\n\n"
        "[tool.agenttools]\nroot = '\\skills'\n\n[tool.agenttools.skills.tiny]\n"
    )
    message = 'PathOutsideProject: tool.agenttools.root: "\\skills" must be a directory inside'
    for build in (build_wheel, build_sdist):
        with pytest.raises(AgentToolsBuildError, match=re.escape(message)):
            build(project, tmp_path / "dist")
    assert not list((tmp_path / "dist").iterdir())


# -- the hook constructed directly -------------------------------------------------------------


def make_hook(root: Path, target: str, tmp_path: Path) -> AgentToolsBuildHook:
    return AgentToolsBuildHook(str(root), {}, None, None, str(tmp_path / "out"), target)


def test_direct_wheel_hook_maps_every_file(tmp_path: Path) -> None:
    hook = make_hook(SAMPLES / "weather-tools", "wheel", tmp_path)
    build_data: dict[str, Any] = {"extra_metadata": {}, "force_include": {}}
    hook.initialize("standard", build_data)
    try:
        targets = sorted(build_data["extra_metadata"].values())
        assert targets == [
            "agenttools/manifest.json",
            "agenttools/skills/forecast-help/SKILL.md",
            "agenttools/skills/station-lookup/SKILL.md",
            "agenttools/skills/weather-report/SKILL.md",
            "agenttools/skills/weather-report/references/units.md",
            "agenttools/skills/weather-report/scripts/report.py",
        ]
        sources = {Path(s) for s in build_data["extra_metadata"]}
        generated = [s for s in sources if not s.is_relative_to(SAMPLES)]
        assert len(generated) == 2  # manifest.json and the inline SKILL.md, staged elsewhere
        assert all(not s.is_relative_to(tmp_path / "out") for s in generated)
        assert build_data["force_include"] == {}
    finally:
        hook._cleanup()  # what finalize() does after a build
    assert all(not s.exists() for s in generated)


def test_finalize_fails_when_the_wheel_lacks_a_file(tmp_path: Path) -> None:
    hook = make_hook(SAMPLES / "weather-tools", "wheel", tmp_path)
    build_data: dict[str, Any] = {"extra_metadata": {}, "force_include": {}}
    hook.initialize("standard", build_data)
    wheel = tmp_path / "weather_tools-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for source, target in build_data["extra_metadata"].items():
            if not target.endswith("units.md"):
                member = f"weather_tools-0.dist-info/extra_metadata/{target}"
                archive.writestr(member, Path(source).read_bytes())
        archive.writestr("weather_tools-0.dist-info/RECORD", "")
    staging = {Path(s).parent for s in build_data["extra_metadata"]}
    with pytest.raises(AgentToolsBuildError) as caught:
        hook.finalize("standard", build_data, str(wheel))
    assert "extra_metadata/agenttools/skills/weather-report/references/units.md: missing" in str(
        caught.value
    )
    assert "SKILL.md" not in str(caught.value)
    # the staging directory is gone even though finalize failed
    assert not any(p.exists() for p in staging if "agenttools-build-" in str(p))


def test_sdist_target_force_includes_sources(tmp_path: Path) -> None:
    root = SAMPLES / "weather-tools"
    hook = make_hook(root, "sdist", tmp_path)
    build_data: dict[str, Any] = {"force_include": {}, "artifacts": [], "dependencies": []}
    hook.initialize("standard", build_data)
    assert build_data["force_include"] == {
        str(root / rel): rel
        for rel in (
            "skills/weather-report/SKILL.md",
            "skills/weather-report/references/units.md",
            "skills/weather-report/scripts/report.py",
            "skills/station-lookup/SKILL.md",
            "docs/forecast.md",
            "pyproject.toml",
        )
    }


def test_other_targets_are_left_alone(tmp_path: Path) -> None:
    hook = make_hook(SAMPLES / "broken", "binary", tmp_path)
    build_data: dict[str, Any] = {"force_include": {}}
    hook.initialize("standard", build_data)
    assert build_data == {"force_include": {}}


def test_missing_config_does_nothing(tmp_path: Path) -> None:
    hook = make_hook(SAMPLES / "broken" / "hook-without-config", "wheel", tmp_path)
    build_data: dict[str, Any] = {"extra_metadata": {}, "force_include": {}}
    hook.initialize("standard", build_data)
    hook.finalize("standard", build_data, str(tmp_path / "never-opened.whl"))
    assert build_data == {"extra_metadata": {}, "force_include": {}}


def test_hatchling_reserved_keys_in_the_hook_table_are_accepted(tmp_path: Path) -> None:
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.hatch.build.hooks.agenttools]\n",
            "[tool.hatch.build.hooks.agenttools]\n"
            'dependencies = ["agenttools"]\nrequire-runtime-dependencies = false\n'
            "enable-by-default = true\n",
        )
    )
    wheel = build_wheel(project, tmp_path / "dist")
    assert manifest_of(wheel)["distribution"] == "weather-tools"


def test_force_include_fallback_without_extra_metadata(tmp_path: Path) -> None:
    """hatchling before 1.12 has no extra_metadata build data: the files go to the same
    place through force_include."""
    from hatchling.builders.wheel import WheelBuilder

    root = SAMPLES / "weather-tools"
    builder = WheelBuilder(str(root))
    hook = AgentToolsBuildHook(
        str(root), {}, builder.config, builder.metadata, str(tmp_path / "out"), "wheel"
    )
    build_data: dict[str, Any] = {"force_include": {}}
    hook.initialize("standard", build_data)
    try:
        targets = sorted(build_data["force_include"].values())
        prefix = "weather_tools-1.2.0.dist-info/extra_metadata/agenttools"
        assert targets[0] == f"{prefix}/manifest.json"
        assert f"{prefix}/skills/weather-report/scripts/report.py" in targets
        assert len(targets) == 6
    finally:
        hook._cleanup()


# -- what the hook writes is what the runtime verifies and installs ---------------------------


def test_crlf_and_shebang_skill_round_trips_from_wheel_to_skills_root(tmp_path: Path) -> None:
    """A CRLF checkout and a script whose mode bits were lost: the wheel's manifest verifies
    against the installed copy, and the installed skill is Unmodified and executable."""
    import os

    from agenttools_runtime.discovery import SearchPath, get_distribution
    from agenttools_runtime.skills.hashing import DirectoryState, directory_state
    from agenttools_runtime.skills.install import install_skills

    project = tmp_path / "crlf-tools"
    skill = project / "skills" / "crlf-skill"
    (skill / "scripts").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling", "agenttools"]\n'
        'build-backend = "hatchling.build"\n'
        '[project]\nname = "crlf-tools"\nversion = "1.0"\n'
        "[tool.hatch.build.targets.wheel]\nbypass-selection = true\n"
        "[tool.hatch.build.hooks.agenttools]\n[tool.agenttools.skills.crlf-skill]\n"
    )
    (skill / "SKILL.md").write_bytes(
        b"---\r\nname: crlf-skill\r\ndescription: Written on Windows.\r\n---\r\nBody\r\n"
    )
    (skill / "scripts" / "run.py").write_bytes(b"#!/usr/bin/env python3\r\nprint(1)\r\n")
    os.chmod(skill / "scripts" / "run.py", 0o644)
    wheel = build_wheel(project, tmp_path / "dist")
    site = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as archive:  # what an installer does with a pure wheel
        archive.extractall(site)
    dist = get_distribution("crlf-tools", SearchPath.for_paths([site]))
    assert dist.manifest is not None
    entry = dist.manifest.skills["crlf-skill"]
    assert entry.executable == ("scripts/run.py",)
    source = distribution_skill_source(
        dist, "crlf-skill"
    )  # verifies every file against the manifest
    installed = install_skills(tmp_path / "root", source)
    assert directory_state(installed.location, entry.files) is DirectoryState.UNMODIFIED
    assert (installed.location / "SKILL.md").read_bytes().count(b"\r\n") == 5
    assert os.access(installed.location / "scripts" / "run.py", os.X_OK)
