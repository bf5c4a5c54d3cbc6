"""Where an export takes a bundle from: an installed distribution (by name, as deploy resolves
it), a wheel file (every skill file checked against the manifest) or a project directory
(checked as validate checks it); and the bundle of a source with several."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from agenttools_runtime import errors
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.export.source import load_package
from agenttools_runtime.project import ProjectInvalid
from tests.helpers.venvs import fake_distribution, skill_files
from tests.helpers.weather import weather
from tests.helpers.wheels import build_sample_wheel

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_packages"


def test_an_installed_bundle_by_name(tmp_path: Path) -> None:
    site = tmp_path / "site"
    weather(site, "1.4.0")
    search = SearchPath.for_paths([site])
    with pytest.raises(errors.AgentToolsBundleNameAmbiguous):  # (it has two bundles)
        load_package("weather-tools", search=search)
    package = load_package("weather-tools/weather-tools", search=search)
    assert (package.name, package.distribution, package.version) == (
        "weather-tools",
        "weather-tools",
        "1.4.0",
    )
    (server,) = package.servers
    assert server.origin is not None and server.origin.version == "1.4.0"
    (skill,) = package.skills
    assert skill.name == "weather-report"
    assert skill.executable == frozenset({"scripts/run.sh"})
    assert skill.files["scripts/run.sh"] == b"#!/bin/sh\n"
    reports = load_package("weather-tools/reports", search=search)
    assert (reports.name, reports.servers) == ("reports", ())
    assert load_package("weather-tools", bundle="reports", search=search) == reports


def test_an_installed_skill_that_was_tampered_with_is_refused(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist_info = weather(site, "1.4.0")
    skill = dist_info / "extra_metadata/agenttools/skills/weather-report/SKILL.md"
    skill.write_text(skill.read_text() + "\nInjected.\n")
    with pytest.raises(errors.BundledFileMismatch):
        load_package("weather-tools/weather-tools", search=SearchPath.for_paths([site]))


def test_a_skill_of_another_distribution_comes_from_it_as_installed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    weather(site, "1.4.0")
    fake_distribution(
        site,
        "reports-plus",
        "0.1.0",
        skills={"summary": skill_files("summary", "Summaries.")},
        bundles=[{"name": "reports-plus", "skills": ["summary", "weather-tools/weather-report"]}],
    )
    package = load_package("reports-plus", search=SearchPath.for_paths([site]))
    assert [s.name for s in package.skills] == ["summary", "weather-report"]


@pytest.mark.slow
def test_a_wheel_whose_skill_file_differs_from_its_manifest_is_refused(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    wheel = build_sample_wheel("weather-tools", tmp_path_factory)
    tampered = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(tampered, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("skills/weather-report/SKILL.md"):
                data += b"\nInjected.\n"
            target.writestr(info, data)
    with pytest.raises(errors.ExportSourceInvalid, match="does not match the manifest"):
        load_package(str(tampered))


def test_a_wheel_without_agenttools_files_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "plain-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(
            "plain-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: plain\nVersion: 1.0\n\n"
        )
        archive.writestr("plain-1.0.dist-info/RECORD", "")
    with pytest.raises(errors.ExportSourceInvalid, match="no agenttools manifest"):
        load_package(str(wheel))
    with pytest.raises(errors.ExportSourceNotFound):
        load_package(str(tmp_path / "missing-1.0-py3-none-any.whl"))


def test_a_project_with_several_bundles_names_one(tmp_path: Path) -> None:
    project = SAMPLES / "multi-bundle"
    with pytest.raises(errors.ExportSourceInvalid, match="several bundles") as caught:
        load_package(str(project))
    assert "toolkit, toolkit-development" in str(caught.value)
    assert load_package(f"{project}#toolkit").name == "toolkit"
    # of the two bundles of that name, the one whose marker holds here: it names a skill of
    # weather-tools, which is not installed here
    with pytest.raises(errors.DistributionNotInstalled, match="weather-tools"):
        load_package(str(project), bundle="toolkit-development")


def test_a_project_is_checked_and_needs_a_static_version(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(SAMPLES / "broken" / "registry", broken)
    with pytest.raises(ProjectInvalid, match="RegistryReadme"):
        load_package(str(broken))
    dynamic = tmp_path / "dynamic"
    shutil.copytree(SAMPLES / "weather-tools", dynamic)
    text = (dynamic / "pyproject.toml").read_text()
    text = text.replace('version = "1.2.0"', 'dynamic = ["version"]')
    (dynamic / "pyproject.toml").write_text(text)
    with pytest.raises(errors.ExportSourceInvalid, match="version is dynamic"):
        load_package(str(dynamic))
    (tmp_path / "empty").mkdir()
    with pytest.raises(errors.ExportSourceNotFound, match=r"no pyproject\.toml"):
        load_package(str(tmp_path / "empty"))
