"""Discovery on fake dist-info trees (agenttools_runtime/discovery.py): the scan, duplicates,
problems, editable sources, verification of skill files, search paths."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

from agenttools_runtime.discovery import (
    InstalledDistribution,
    SearchPath,
    find_distributions,
    get_distribution,
    try_get_distribution,
)
from agenttools_runtime.errors import (
    BundledFileMismatch,
    BundledFileMissing,
    BundledFileNotRegular,
    DistributionNotInstalled,
    DistributionServerNotFound,
    DistributionSkillNotFound,
    EditableSourceMissing,
    InvalidDistributionSkillDefinition,
    InvalidManifest,
    InvalidPythonEnvironment,
    ManifestError,
    ManifestSchemaTooNew,
)
from agenttools_runtime.mcp.server import Environment
from agenttools_runtime.skill_sources import distribution_skill_source
from agenttools_runtime.wheel.layout import MANIFEST_FILE
from agenttools_runtime.wheel.manifest import from_json
from tests.helpers.venvs import fake_distribution, skill_files, write_tree

WEATHER_SERVERS = {"weather": {"module": "weather_tools.server", "description": "Weather"}}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site-packages"
    path.mkdir()
    return path


def search_for(*paths: Path) -> SearchPath:
    return SearchPath(tuple(paths), Environment(Path("/env/bin/python"), Path("/env/bin")))


def test_finds_only_distributions_with_a_manifest(site: Path) -> None:
    fake_distribution(site, "plain", "2.0")
    fake_distribution(
        site,
        "weather-tools",
        "1.2.0",
        servers=WEATHER_SERVERS,
        skills={"weather-report": skill_files("weather-report")},
    )
    (site / "weather_tools").mkdir(exist_ok=True)  # a package directory is never looked into
    dists = find_distributions(search_for(site))
    assert [d.name for d in dists] == ["weather-tools"]
    dist = dists[0]
    assert dist.display_name == "weather-tools"
    assert dist.version == "1.2.0"
    assert dist.dist_info == site / "weather_tools-1.2.0.dist-info"
    assert dist.problem is None
    assert dist.skill_names == ["weather-report"]
    assert dist.server_names == ["weather"]
    assert dist.environment == search_for(site).environment


def test_sorted_by_normalized_name(site: Path) -> None:
    for name in ("zeta", "Alpha_Tools", "mid"):
        fake_distribution(site, name, servers={"s": {"command": "x"}})
    assert [d.name for d in find_distributions(search_for(site))] == ["alpha-tools", "mid", "zeta"]


def test_first_occurrence_on_the_path_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    fake_distribution(first, "tools", "1.0", servers={"a": {"command": "one"}})
    fake_distribution(second, "tools", "2.0", servers={"a": {"command": "two"}})
    # a shadowing copy without a manifest hides a later one with a manifest (import precedence)
    fake_distribution(first, "hidden", "1.0")
    fake_distribution(second, "hidden", "2.0", servers={"a": {"command": "x"}})
    dists = find_distributions(search_for(first, second))
    assert [(d.name, d.version) for d in dists] == [("tools", "1.0")]
    assert find_distributions(search_for(second, first))[0].version == "2.0"


def test_egg_info_shadows_but_never_carries(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write_tree(first, {"tools-1.0-py3.11.egg-info/PKG-INFO": "Name: tools\n"})
    fake_distribution(second, "tools", "2.0", servers={"a": {"command": "x"}})
    assert find_distributions(search_for(first, second)) == []
    dist = try_get_distribution("tools", search_for(first, second))
    assert dist is not None and dist.manifest is None


def test_missing_and_file_entries_on_the_path_are_skipped(site: Path, tmp_path: Path) -> None:
    fake_distribution(site, "tools", servers={"a": {"command": "x"}})
    not_a_zip = tmp_path / "notes.txt"
    not_a_zip.write_text("hello")
    dists = find_distributions(search_for(tmp_path / "missing", not_a_zip, site, site))
    assert [d.name for d in dists] == ["tools"]


def test_corrupt_manifest_is_a_problem_not_a_crash(site: Path) -> None:
    fake_distribution(site, "broken", raw_manifest=b"{not json")
    fake_distribution(site, "good", servers={"a": {"command": "x"}})
    dists = {d.name: d for d in find_distributions(search_for(site))}
    assert dists["good"].problem is None
    broken = dists["broken"]
    assert broken.manifest is None
    assert broken.problem is not None and "not JSON" in broken.problem
    assert '"broken"' in broken.problem
    with pytest.raises(InvalidManifest, match="broken"):
        get_distribution("broken", search_for(site))
    with pytest.raises(InvalidManifest):
        broken.server("a")


def test_schema_too_new_is_a_problem(site: Path) -> None:
    fake_distribution(site, "future", servers={"a": {"command": "x"}}, schema=99)
    (dist,) = find_distributions(search_for(site))
    assert dist.problem is not None
    assert "schema 99" in dist.problem and "pip install --upgrade agenttools" in dist.problem
    with pytest.raises(ManifestSchemaTooNew):
        get_distribution("future", search_for(site))


@pytest.mark.parametrize(
    ("manifest", "fragment"),
    [
        ([], "not a JSON object"),
        ({"schema": "1"}, "schema"),
        ({"schema": 1, "version": "1"}, "has no distribution"),
        ({"schema": 1, "distribution": "x", "version": "1", "mcp-servers": []}, "mcp-servers"),
        (
            {"schema": 1, "distribution": "x", "version": "1", "skills": {"s": {"files": []}}},
            "files",
        ),
        ({"schema": 1, "distribution": "x", "version": "1", "bundles": [{}]}, "bundles[0]"),
        # a skill's name is a folder name: nothing that leads elsewhere
        *(
            (
                {"schema": 1, "distribution": "x", "version": "1", "skills": {bad: {"files": {}}}},
                "not a folder name",
            )
            for bad in ("..", "../../x", "a/b", "a\\b", "", ".", "x\0")
        ),
        (
            {
                "schema": 1,
                "distribution": "x",
                "version": "1",
                "bundles": [{"name": "b", "skills": "s"}],
            },
            "bundles[0].skills",
        ),
        # unexpected types where the runtime iterates or joins paths
        *(
            (
                {"schema": 1, "distribution": "x", "version": "1", "skills": {"s": skill}},
                fragment,
            )
            for skill, fragment in (
                ({"files": {}, "executable": "scripts/run.sh"}, "skills.s.executable"),
                ({"files": {}, "executable": [1]}, "skills.s.executable[0]"),
                ({"files": {}, "kind": 3}, "skills.s.kind"),
                ({"files": {}, "kind": "zip"}, "skills.s.kind"),
                ({"files": {}, "path": ["skills"]}, "skills.s.path"),
                ({"files": {}, "description": 5}, "skills.s.description"),
                ({"files": {}, "path": "../outside"}, "skills.s.path"),
                ({"files": {}, "path": "skills\\..\\..\\x"}, "skills.s.path"),
                ({"files": {}, "path": "/etc"}, "skills.s.path"),
            )
        ),
        (
            {
                "schema": 1,
                "distribution": "x",
                "version": "1",
                "bundles": [{"name": "b", "implicit": "yes"}],
            },
            "bundles[0].implicit",
        ),
        # names AgentTools would refuse: one bad manifest must not break listing all others
        *(
            ({"schema": 1, "distribution": "x", "version": "1", "bundles": [b]}, fragment)
            for b, fragment in (
                ({"name": ""}, "not a bundle name"),
                ({"name": " "}, "not a bundle name"),
                ({"name": "a/b"}, "not a bundle name"),
                ({"name": "b", "skills": ["x/y/z"]}, "bundles[0].skills"),
                ({"name": "b", "mcp-servers": ["../x"]}, "bundles[0].mcp-servers"),
                ({"name": "b", "mcp-servers": [" "]}, "bundles[0].mcp-servers"),
            )
        ),
        (
            {"schema": 1, "distribution": "x", "version": "1", "mcp-servers": {"a/b": {}}},
            "not a server name",
        ),
    ],
)
def test_check_manifest_names_the_first_problem(manifest: object, fragment: str) -> None:
    with pytest.raises(ManifestError) as error:
        from_json(manifest, "x")
    assert fragment in str(error.value)


def test_get_distribution_not_installed_names_pip_install(site: Path) -> None:
    search = search_for(site)
    with pytest.raises(DistributionNotInstalled) as info:
        get_distribution("Other_Tools", search)
    message = str(info.value)
    assert "/env/bin/python -m pip install Other_Tools" in message
    assert info.value.data["distribution"] == "other-tools"
    current = SearchPath((site,), Environment.current())
    with pytest.raises(DistributionNotInstalled, match="Install it with: pip install other"):
        get_distribution("other", current)


def test_get_distribution_matches_after_normalization(site: Path) -> None:
    fake_distribution(site, "Weather_Tools", servers=WEATHER_SERVERS)
    dist = get_distribution("weather.tools", search_for(site))
    assert dist.name == "weather-tools"
    assert dist.display_name == "Weather_Tools"


def test_installed_distribution_without_manifest_declares_nothing(site: Path) -> None:
    fake_distribution(site, "plain", "3.1")
    dist = get_distribution("plain", search_for(site))
    assert dist.manifest is None and dist.version == "3.1"
    with pytest.raises(DistributionSkillNotFound, match='"x" not found in distribution "plain"'):
        distribution_skill_source(dist, "x")
    with pytest.raises(DistributionServerNotFound):
        dist.server("x")


def test_server_runs_in_the_distribution_environment(site: Path) -> None:
    fake_distribution(site, "weather-tools", servers=WEATHER_SERVERS)
    dist = get_distribution("weather-tools", search_for(site))
    server = dist.server("weather")
    assert server.distribution == "weather-tools"
    assert server.qualified_name == "weather-tools/weather"
    assert server.command_line() == ["/env/bin/python", "-m", "weather_tools.server"]


def test_skill_source_is_verified_and_identified(site: Path) -> None:
    skill = skill_files("weather-report", "Reports.", {"scripts/run.sh": "#!/bin/sh\necho hi\n"})
    skill["executable"] = ["scripts/run.sh"]
    dist_info = fake_distribution(site, "weather-tools", "1.2.0", skills={"weather-report": skill})
    dist = get_distribution("weather-tools", search_for(site))
    source = distribution_skill_source(dist, "weather-report")
    skill_dir = dist_info / "extra_metadata/agenttools/skills/weather-report"
    assert source.identifier == "weather-tools/weather-report"
    assert source.version == "1.2.0"
    assert source.description == "Reports."
    assert source.directory == skill_dir
    assert dict(source.files) == {
        "SKILL.md": skill_dir / "SKILL.md",
        "scripts/run.sh": skill_dir / "scripts" / "run.sh",
    }
    assert list(source.manifest) == ["SKILL.md", "scripts/run.sh"]
    assert source.executable == frozenset({"scripts/run.sh"})


def test_tampered_skill_file_is_refused(site: Path) -> None:
    dist_info = fake_distribution(
        site, "weather-tools", skills={"weather-report": skill_files("weather-report")}
    )
    skill_md = dist_info / "extra_metadata/agenttools/skills/weather-report/SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nrm -rf ~\n")
    dist = get_distribution("weather-tools", search_for(site))
    with pytest.raises(BundledFileMismatch) as info:
        distribution_skill_source(dist, "weather-report")
    assert str(skill_md) in str(info.value)
    assert "pip install --force-reinstall weather-tools" in str(info.value)


def test_crlf_rewrite_is_not_tampering(site: Path) -> None:
    dist_info = fake_distribution(
        site, "weather-tools", skills={"weather-report": skill_files("weather-report")}
    )
    skill_md = dist_info / "extra_metadata/agenttools/skills/weather-report/SKILL.md"
    skill_md.write_bytes(skill_md.read_bytes().replace(b"\n", b"\r\n"))
    distribution_skill_source(get_distribution("weather-tools", search_for(site)), "weather-report")


def test_missing_skill_file_is_refused(site: Path) -> None:
    skill = skill_files("weather-report", extra={"references/guide.md": "# Guide\n"})
    dist_info = fake_distribution(site, "weather-tools", skills={"weather-report": skill})
    guide = dist_info / "extra_metadata/agenttools/skills/weather-report/references/guide.md"
    guide.unlink()
    dist = get_distribution("weather-tools", search_for(site))
    with pytest.raises(BundledFileMissing) as info:
        distribution_skill_source(dist, "weather-report")
    assert str(guide) in str(info.value)


def test_manifest_listing_a_path_outside_is_invalid(site: Path) -> None:
    skill = skill_files("s")
    dist_info = fake_distribution(site, "evil", skills={"s": skill})
    manifest_path = dist_info / MANIFEST_FILE
    data = json.loads(manifest_path.read_text())
    data["skills"]["s"]["files"]["../../../../etc/passwd"] = "0" * 64
    manifest_path.write_text(json.dumps(data))
    with pytest.raises(InvalidManifest, match="etc/passwd"):
        distribution_skill_source(get_distribution("evil", search_for(site)), "s")


def test_editable_directory_skills_are_live(site: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_tree(
        project,
        {
            "skills/weather-report/SKILL.md": (
                "---\nname: weather-report\ndescription: Live.\n---\n\nEdited after install.\n"
            ),
            "skills/weather-report/notes.md": "new file\n",
        },
    )
    skill = skill_files("weather-report", "Built.")
    inline = skill_files("forecast-help", "Inline.")
    inline["kind"] = "inline"
    fake_distribution(
        site,
        "weather-tools",
        "0.1",
        skills={"weather-report": skill, "forecast-help": inline},
        source_root=project,
    )
    dist = get_distribution("weather-tools", search_for(site))
    assert dist.source_root == project
    live = distribution_skill_source(dist, "weather-report")
    assert live.directory == project / "skills" / "weather-report"
    assert sorted(live.files) == ["SKILL.md", "notes.md"]
    assert live.description == "Live."
    assert live.identifier == "weather-tools/weather-report"
    assert live.version == "0.1"
    # inline skills have no source directory: the generated copy in the dist-info is used
    generated = distribution_skill_source(dist, "forecast-help")
    assert generated.directory == dist.skills_dir / "forecast-help"


def test_editable_skill_renamed_in_the_work_tree_is_refused(site: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_tree(
        project,
        {"skills/weather-report/SKILL.md": "---\nname: renamed\ndescription: d\n---\n"},
    )
    fake_distribution(
        site,
        "weather-tools",
        skills={"weather-report": skill_files("weather-report")},
        source_root=project,
    )
    dist = get_distribution("weather-tools", search_for(site))
    with pytest.raises(InvalidDistributionSkillDefinition, match='declared as "weather-report"'):
        distribution_skill_source(dist, "weather-report")


def test_manifest_with_unexpected_types_is_a_problem_not_a_crash(site: Path) -> None:
    dist_info = fake_distribution(site, "odd", skills={"s": skill_files("s")})
    manifest_file = dist_info / "extra_metadata" / "agenttools" / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["skills"]["s"]["executable"] = "scripts/run.sh"  # a string where a list belongs
    manifest_file.write_text(json.dumps(manifest))
    fake_distribution(site, "fine", servers={"s": {"command": "x"}})
    found = {d.name: d for d in find_distributions(search_for(site))}
    assert sorted(found) == ["fine", "odd"]
    problem = found["odd"].problem
    assert problem is not None and "skills.s.executable" in problem
    assert found["fine"].problem is None
    with pytest.raises(InvalidManifest, match=r"skills\.s\.executable"):
        get_distribution("odd", search_for(site))


@pytest.mark.parametrize("deleted", ["project", "skill"])
def test_editable_source_moved_or_deleted_is_a_clear_error(
    site: Path, tmp_path: Path, deleted: str
) -> None:
    project = tmp_path / "project"
    if deleted == "skill":  # the project is there, the skill directory is not
        project.mkdir()
    fake_distribution(
        site,
        "weather-tools",
        skills={"weather-report": skill_files("weather-report")},
        source_root=project,
    )
    dist = get_distribution("weather-tools", search_for(site))
    missing = project if deleted == "project" else project / "skills" / "weather-report"
    with pytest.raises(EditableSourceMissing) as info:
        distribution_skill_source(dist, "weather-report")
    assert str(missing) in str(info.value)
    assert "pip install --force-reinstall -e" in str(info.value)


def test_zipped_distribution_is_listed_with_a_problem(tmp_path: Path) -> None:
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped_tools-1.0.dist-info/METADATA", "Name: zipped-tools\n")
        zf.writestr(f"zipped_tools-1.0.dist-info/{MANIFEST_FILE}", "{}")
        zf.writestr("plain-1.0.dist-info/METADATA", "Name: plain\n")
    (dist,) = find_distributions(search_for(archive))
    assert dist.name == "zipped-tools"
    assert dist.problem is not None and "zip file" in dist.problem


def test_search_path_current_is_sys_path() -> None:
    search = SearchPath.current()
    assert search.paths == tuple(Path(p or os.curdir) for p in sys.path)
    assert search.environment == Environment.current()
    assert search.marker_environment is None


def test_search_path_for_paths_finds_the_venv_interpreter(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin").mkdir()
    (venv / "bin" / "python").write_text("")
    search = SearchPath.for_paths([site])
    assert search.paths == (site,)
    assert search.environment == Environment(venv / "bin" / "python", venv / "bin")
    # not inside a venv: servers start with this interpreter
    assert SearchPath.for_paths([tmp_path]).environment == Environment.current()


def test_search_path_for_paths_wants_an_interpreter_file(tmp_path: Path) -> None:
    """A directory where a venv's interpreter would be is no interpreter: its servers
    start with this one, as outside a venv (not with a directory as the command)."""
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").mkdir(parents=True)
    assert SearchPath.for_paths([site]).environment == Environment.current()


def test_search_path_for_python_asks_the_interpreter_once() -> None:
    search = SearchPath.for_python(sys.executable)
    assert search.environment.python == Path(sys.executable)
    assert search.marker_environment is not None
    assert search.marker_environment["sys_platform"] == sys.platform
    site_dirs = [p for p in sys.path if p.endswith("site-packages")]
    assert [str(p) for p in search.paths if str(p).endswith("site-packages")] == site_dirs


def test_search_path_for_python_rejects_a_non_interpreter(tmp_path: Path) -> None:
    with pytest.raises(InvalidPythonEnvironment, match="nope"):
        SearchPath.for_python(tmp_path / "nope")
    with pytest.raises(InvalidPythonEnvironment, match="not a virtual environment"):
        SearchPath.for_python(tmp_path)
    script = tmp_path / "fake-python"
    script.write_text("#!/bin/sh\necho not json\n")
    script.chmod(0o755)
    if sys.platform != "win32":
        with pytest.raises(InvalidPythonEnvironment, match="unexpected answer"):
            SearchPath.for_python(script)


def test_installed_distribution_to_json(site: Path) -> None:
    fake_distribution(site, "weather-tools", servers=WEATHER_SERVERS)
    dist = get_distribution("weather-tools", search_for(site))
    data = dist.to_json()
    assert data["name"] == "weather-tools" and data["editable"] is False
    assert data["problem"] is None
    assert isinstance(dist, InstalledDistribution)


def test_a_link_planted_in_the_wheels_skill_copy_is_never_followed(
    site: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token\n")
    skill = skill_files("s", extra={"notes.md": "notes\n"})
    dist_info = fake_distribution(site, "planted", skills={"s": skill})
    notes = dist_info / "extra_metadata/agenttools/skills/s/notes.md"
    notes.unlink()
    notes.symlink_to(secret)
    dist = get_distribution("planted", search_for(site))
    with pytest.raises(BundledFileNotRegular, match="symbolic link"):
        distribution_skill_source(dist, "s")
    folder = dist_info / "extra_metadata/agenttools/skills/s"
    moved = tmp_path / "elsewhere"
    folder.rename(moved)
    folder.symlink_to(moved, target_is_directory=True)  # the whole folder a link
    with pytest.raises(BundledFileNotRegular):
        distribution_skill_source(dist, "s")
