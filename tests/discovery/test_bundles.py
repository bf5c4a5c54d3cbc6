"""Bundles and name resolution on fake dist-info trees (agenttools_runtime/bundles.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agenttools_runtime import __version__
from agenttools_runtime.bundles import (
    BUILTIN_BUNDLE,
    BUILTIN_SKILLS_DIR,
    DEFAULT_AGENT_TOOLS,
    AgentTools,
    agent_tools_objects,
    distribution_bundles,
    marker_holds,
    resolve_tools,
)
from agenttools_runtime.discovery import SearchPath, get_distribution
from agenttools_runtime.errors import (
    AgentSkillNotFound,
    AgentToolsBundleNameAmbiguous,
    AgentToolsNotForEnvironment,
    AgentToolsNotFound,
    DistributionAgentToolsNotFound,
    DistributionNotInstalled,
    DistributionSkillNotFound,
    InvalidAgentToolsObject,
    InvalidManifest,
    MCPServerNameAmbiguous,
    MCPServerNotFound,
)
from agenttools_runtime.mcp.server import Environment, MCPServer
from agenttools_runtime.skill_sources import builtin_skill_source, skill_sources
from agenttools_runtime.skills.spec import Skill
from tests.helpers.venvs import fake_distribution, skill_files, write_tree

ENV = Environment(Path("/env/bin/python"), Path("/env/bin"))


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site-packages"
    path.mkdir()
    return path


@pytest.fixture
def search(site: Path) -> SearchPath:
    return SearchPath((site,), ENV)


def weather(site: Path) -> None:
    fake_distribution(
        site,
        "weather-tools",
        "1.2.0",
        servers={"weather": {"module": "weather_tools.server", "description": "Weather"}},
        skills={
            "weather-report": skill_files("weather-report"),
            "forecast-help": skill_files("forecast-help"),
        },
    )


def two_bundles(site: Path) -> None:
    fake_distribution(
        site,
        "my-tools",
        "2.0",
        servers={"tools": {"command": "tools"}, "dev": {"command": "dev"}},
        skills={"using": skill_files("using"), "building": skill_files("building")},
        bundles=[
            {"name": "my-tools", "mcp-servers": ["tools"], "skills": ["using"]},
            {
                "name": "my-tools-dev",
                "description": "For developers",
                "mcp-servers": ["tools", "dev"],
                "skills": ["using", "building", "weather-tools/weather-report"],
            },
        ],
    )


# -- construction ----------------------------------------------------------------------------
def test_ad_hoc_bundle_defaults_and_names() -> None:
    bundle = AgentTools("mine")
    assert bundle.mcp_servers == () and bundle.skills == ()
    assert bundle.location is None and bundle.toolset_type == "AgentTools"
    assert bundle.qualified_name == "mine"
    server = MCPServer(name="echo", command="echo")
    bundle = AgentTools(
        "mine",
        mcp_servers=[server, "agenttools"],
        skills=[Skill("hello", "Hi."), {"name": "inline", "description": "d"}, "agenttools"],
    )
    assert bundle.server_names == ["echo", "agenttools"]
    assert bundle.skill_names == ["hello", "inline", "agenttools"]
    assert isinstance(bundle.mcp_servers, tuple)


def test_skill_names_of_directories_come_from_skill_md(tmp_path: Path) -> None:
    write_tree(tmp_path / "dir-name", {"SKILL.md": "---\nname: real-name\ndescription: d\n---\n"})
    bundle = AgentTools("mine", skills=[tmp_path / "dir-name", str(tmp_path / "dir-name")])
    assert bundle.skill_names == ["real-name", "real-name"]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"name": "a/b"}, 'contains "/"'),
        ({"name": BUILTIN_BUNDLE}, "built-in bundle"),
        ({"name": ""}, "non-empty string"),
        ({"name": 3}, "non-empty string"),
        ({"name": "x", "skills": "abc"}, "must be a list"),
        ({"name": "x", "mcp_servers": "abc"}, "must be a list"),
        ({"name": "x", "mcp_servers": [3]}, "not a server name"),
        ({"name": "x", "skills": [3]}, "not a skill specification"),
        ({"name": "x", "mcp_servers": ["a/b/c"]}, "not an MCP server name"),
        ({"name": "x", "mcp_servers": [" "]}, "not an MCP server name"),
        ({"name": "x", "mcp_servers": ["../x"]}, "not an MCP server name"),
        ({"name": "x", "description": 3}, "description"),
        ({"name": "x", "skills": b"ab"}, "must be a list"),
        ({"name": "x", "mcp_servers": b"ab"}, "must be a list"),
    ],
)
def test_invalid_ad_hoc_bundles(kwargs: dict, fragment: str) -> None:
    with pytest.raises(InvalidAgentToolsObject, match=fragment):
        AgentTools(**kwargs)


def test_wrapped_server_may_have_any_name() -> None:
    wrapped = resolve_tools(MCPServer(name=BUILTIN_BUNDLE, command="x"))
    assert wrapped.toolset_type == "MCPServer"
    assert wrapped.name == BUILTIN_BUNDLE and wrapped.location is None


def test_mapping_is_an_ad_hoc_bundle() -> None:
    bundle = resolve_tools(
        {
            "name": "mine",
            "description": "Mine",
            "mcp-servers": [{"name": "echo", "command": "echo", "args": ["hi"]}],
            "skills": [{"name": "hello", "description": "Says hi.", "body": "Hi"}],
        }
    )
    assert bundle.description == "Mine"
    (server,) = bundle.servers()
    assert server.command_line() == ["echo", "hi"]
    (source,) = skill_sources(bundle)
    assert source.identifier == "AgentTools:mine/hello"
    with pytest.raises(InvalidAgentToolsObject, match="unknown keys servers"):
        resolve_tools({"name": "x", "servers": []})
    # both spellings at once: one would be dropped silently
    with pytest.raises(InvalidAgentToolsObject, match='both "mcp-servers" and "mcp_servers"'):
        resolve_tools({"name": "x", "mcp-servers": [], "mcp_servers": ["agenttools"]})
    with pytest.raises(InvalidAgentToolsObject):
        resolve_tools(42)  # type: ignore[arg-type]


def test_ad_hoc_directory_skill_keeps_its_file_identity(tmp_path: Path) -> None:
    write_tree(tmp_path / "s", {"SKILL.md": "---\nname: s\ndescription: d\n---\n"})
    (source,) = skill_sources(AgentTools("mine", skills=[tmp_path / "s"]))
    assert source.identifier is not None and source.identifier.startswith("File:")


def test_unknown_builtin_names_in_ad_hoc_bundles() -> None:
    bundle = AgentTools("mine", mcp_servers=["nope"], skills=["nope"])
    with pytest.raises(MCPServerNotFound):
        bundle.servers()
    with pytest.raises(AgentSkillNotFound):
        skill_sources(bundle)


# -- the built-in bundle ---------------------------------------------------------------------
def test_builtin_bundle() -> None:
    (builtin,) = DEFAULT_AGENT_TOOLS
    assert builtin.name == BUILTIN_BUNDLE and builtin.location == "builtin"
    assert resolve_tools(None) is builtin
    assert resolve_tools(BUILTIN_BUNDLE) is builtin
    (server,) = builtin.servers()
    assert server.command_line() == [sys.executable, "-m", "agenttools", "serve"]
    (source,) = skill_sources(builtin)
    assert source.name == "agenttools"
    assert source.identifier == "agenttools"
    assert source.version == __version__
    assert source.directory == BUILTIN_SKILLS_DIR / "agenttools"
    assert "deploy" in (BUILTIN_SKILLS_DIR / "agenttools" / "SKILL.md").read_text()


def test_builtin_skill_source_unknown_name() -> None:
    with pytest.raises(AgentSkillNotFound):
        builtin_skill_source("nope")


# -- distribution bundles --------------------------------------------------------------------
def test_implicit_bundle_of_a_distribution(site: Path, search: SearchPath) -> None:
    weather(site)
    bundle = resolve_tools("weather-tools", search)
    assert bundle.name == "weather-tools"
    assert bundle.qualified_name == "weather-tools/weather-tools"
    assert bundle.server_names == ["weather-tools/weather"]
    assert bundle.skill_names == ["weather-tools/forecast-help", "weather-tools/weather-report"]
    (server,) = bundle.servers()
    assert server.environment == ENV
    sources = skill_sources(bundle)
    assert [s.identifier for s in sources] == [
        "weather-tools/forecast-help",
        "weather-tools/weather-report",
    ]
    assert {s.version for s in sources} == {"1.2.0"}
    assert resolve_tools("weather-tools/weather-tools", search) == bundle
    assert resolve_tools("Weather_Tools", search) == bundle
    data = bundle.to_json()
    assert data["location"]["distribution"] == "weather-tools"
    assert data["skills"] == bundle.skill_names


def test_two_bundles_in_one_distribution(site: Path, search: SearchPath) -> None:
    two_bundles(site)
    weather(site)
    with pytest.raises(AgentToolsBundleNameAmbiguous) as info:
        resolve_tools("my-tools", search)
    assert "my-tools/my-tools, my-tools/my-tools-dev" in str(info.value)
    # "my-tools/my-tools" is the bundle, never reinterpreted
    assert resolve_tools("my-tools/my-tools", search).server_names == ["my-tools/tools"]
    dev = resolve_tools("my_tools/my-tools-dev", search)
    assert dev.description == "For developers"
    assert [s.qualified_name for s in dev.servers()] == ["my-tools/tools", "my-tools/dev"]
    sources = skill_sources(dev)
    assert [s.identifier for s in sources] == [
        "my-tools/using",
        "my-tools/building",
        "weather-tools/weather-report",
    ]
    assert [s.version for s in sources] == ["2.0", "2.0", "1.2.0"]


def test_server_of_a_distribution_is_wrapped(site: Path, search: SearchPath) -> None:
    two_bundles(site)
    wrapped = resolve_tools("my-tools/dev", search)
    assert wrapped.toolset_type == "MCPServer"
    assert wrapped.name == "dev" and wrapped.qualified_name == "my-tools/dev"
    assert [s.command for s in wrapped.servers()] == ["dev"]
    # a bare server name, declared by exactly one distribution
    assert resolve_tools("dev", search).qualified_name == "my-tools/dev"


def test_unrelated_package_does_not_hide_a_server(site: Path, search: SearchPath) -> None:
    fake_distribution(site, "dev", "9.9")  # an installed package without agenttools data
    two_bundles(site)
    assert resolve_tools("dev", search).qualified_name == "my-tools/dev"
    # a distribution that ships a manifest keeps its name, even with no bundle offered here
    fake_distribution(
        site,
        "tools",
        servers={"s": {"command": "x"}},
        bundles=[{"name": "tools", "mcp-servers": ["s"], "marker": "sys_platform == 'none'"}],
    )
    fake_distribution(site, "other", servers={"tools": {"command": "y"}})
    with pytest.raises(AgentToolsNotFound, match='"tools"'):
        resolve_tools("tools", search)


def test_bare_server_name_in_two_distributions_is_ambiguous(site: Path, search: SearchPath) -> None:
    fake_distribution(site, "one", servers={"srv": {"command": "a"}})
    fake_distribution(site, "two", servers={"srv": {"command": "b"}})
    with pytest.raises(MCPServerNameAmbiguous, match="one/srv, two/srv"):
        resolve_tools("srv", search)


def test_not_found_errors(site: Path, search: SearchPath) -> None:
    weather(site)
    fake_distribution(site, "plain")
    with pytest.raises(AgentToolsNotFound, match='"nothing"'):
        resolve_tools("nothing", search)
    with pytest.raises(AgentToolsNotFound, match='"plain"'):
        resolve_tools("plain", search)
    with pytest.raises(DistributionAgentToolsNotFound, match='"nope" not found in distribution'):
        resolve_tools("weather-tools/nope", search)
    with pytest.raises(DistributionNotInstalled, match="pip install absent"):
        resolve_tools("absent/bundle", search)
    for bad in ("a/b/c", "/x", "x/", " "):
        with pytest.raises(AgentToolsNotFound):
            resolve_tools(bad, search)


def test_skill_of_a_missing_distribution_names_pip_install(site: Path, search: SearchPath) -> None:
    fake_distribution(
        site,
        "needs-other",
        skills={"mine": skill_files("mine")},
        bundles=[{"name": "needs-other", "skills": ["mine", "other-dist/theirs"]}],
    )
    bundle = resolve_tools("needs-other", search)
    assert bundle.skill_names == ["needs-other/mine", "other-dist/theirs"]
    with pytest.raises(DistributionNotInstalled) as info:
        skill_sources(bundle)
    assert "/env/bin/python -m pip install other-dist" in str(info.value)


def test_skill_not_declared(site: Path, search: SearchPath) -> None:
    fake_distribution(
        site,
        "liar",
        skills={"mine": skill_files("mine")},
        bundles=[{"name": "liar", "skills": ["mine", "undeclared"]}],
    )
    with pytest.raises(DistributionSkillNotFound, match="undeclared"):
        skill_sources(resolve_tools("liar", search))


def test_markers_filter_offered_bundles(site: Path, tmp_path: Path) -> None:
    fake_distribution(
        site,
        "plat",
        servers={"s": {"command": "x"}},
        bundles=[
            {"name": "plat-win", "mcp-servers": ["s"], "marker": "sys_platform == 'win32'"},
            {"name": "plat-posix", "mcp-servers": ["s"], "marker": "sys_platform != 'win32'"},
        ],
    )
    linux = SearchPath((site,), ENV, {**_markers(), "sys_platform": "linux"})
    windows = SearchPath((site,), ENV, {**_markers(), "sys_platform": "win32"})
    assert resolve_tools("plat", linux).name == "plat-posix"
    assert resolve_tools("plat", windows).name == "plat-win"
    with pytest.raises(AgentToolsNotForEnvironment, match="sys_platform == 'win32'"):
        resolve_tools("plat/plat-win", linux)
    dist = get_distribution("plat", linux)
    assert [b.name for b in distribution_bundles(dist, linux, all_markers=True)] == [
        "plat-win",
        "plat-posix",
    ]
    assert resolve_tools("plat/plat-posix", linux).marker == "sys_platform != 'win32'"


def test_false_marker_bundle_is_not_replaced_by_a_server_of_its_name(site: Path) -> None:
    # an old or foreign manifest: a bundle named like a server (AmbiguousBundleName at build)
    fake_distribution(
        site,
        "plat",
        servers={"win": {"command": "x"}, "s": {"command": "y"}},
        bundles=[
            {"name": "win", "mcp-servers": ["s"], "marker": "sys_platform == 'win32'"},
            {"name": "tools", "mcp-servers": ["s"], "marker": "sys_platform == 'win32'"},
            {"name": "tools", "mcp-servers": ["win"], "marker": "sys_platform != 'win32'"},
        ],
    )
    linux = SearchPath((site,), ENV, {**_markers(), "sys_platform": "linux"})
    windows = SearchPath((site,), ENV, {**_markers(), "sys_platform": "win32"})
    with pytest.raises(AgentToolsNotForEnvironment) as info:
        resolve_tools("Plat/win", linux)
    assert "win" in str(info.value) and "not offered" in str(info.value)
    assert isinstance(info.value, DistributionAgentToolsNotFound)  # callers catching it still do
    # where the marker holds, the bundle wins over the server of the same name
    found = resolve_tools("plat/win", windows)
    assert (found.toolset_type, found.server_names) == ("AgentTools", ["plat/s"])
    # two bundles of one name with exclusive markers: the one offered here
    assert resolve_tools("plat/tools", linux).server_names == ["plat/win"]
    assert resolve_tools("plat/tools", windows).server_names == ["plat/s"]


def test_server_names_the_hook_allows_are_listed_and_resolved(
    site: Path, search: SearchPath
) -> None:
    # the hook allows any server name without "/"; "My Server" must not break listing
    fake_distribution(site, "spaced", servers={"My Server": {"command": "x"}})
    fake_distribution(site, "bad", servers={"s": {"command": "x"}}, bundles=[{"name": ""}])
    weather(site)
    names = [b.qualified_name for b in agent_tools_objects(search=search)]
    assert names == ["spaced/spaced", "weather-tools/weather-tools"]
    (bundle,) = [b for b in agent_tools_objects(search=search) if b.distribution == "spaced"]
    assert bundle.server_names == ["spaced/My Server"]
    wrapped = resolve_tools("spaced/My Server", search)
    assert wrapped.toolset_type == "MCPServer"
    assert [s.command_line() for s in wrapped.servers()] == [["x"]]


def _markers() -> dict[str, str]:
    from packaging.markers import default_environment

    return {k: str(v) for k, v in default_environment().items()}


def test_marker_holds() -> None:
    assert marker_holds(f"sys_platform == '{sys.platform}'")
    assert not marker_holds("sys_platform == 'nowhere'")
    assert not marker_holds("this is not a marker")
    assert marker_holds("os_name == 'nt'", {"os_name": "nt"})
    # a variable the environment lacks (a foreign manifest, an older interpreter's answer)
    assert not marker_holds("dependency_groups == 'x'")


def test_marker_on_an_undefined_variable_hides_the_bundle(site: Path, search: SearchPath) -> None:
    fake_distribution(
        site,
        "odd",
        servers={"s": {"command": "x"}},
        bundles=[{"name": "odd", "mcp-servers": ["s"], "marker": "dependency_groups == 'x'"}],
    )
    assert agent_tools_objects(search=search) == []


def test_distribution_with_a_problem_offers_nothing(site: Path, search: SearchPath) -> None:
    fake_distribution(site, "broken", raw_manifest="[")
    weather(site)
    assert [b.qualified_name for b in agent_tools_objects(search=search)] == [
        "weather-tools/weather-tools"
    ]
    with pytest.raises(InvalidManifest):
        resolve_tools("broken", search)
    with pytest.raises(InvalidManifest):
        resolve_tools("broken/x", search)


def test_manifest_without_bundles_offers_an_implicit_one(site: Path, search: SearchPath) -> None:
    fake_distribution(site, "lazy", servers={"s": {"command": "x"}}, bundles=[])
    assert resolve_tools("lazy", search).server_names == ["lazy/s"]


def test_agent_tools_objects(site: Path, search: SearchPath) -> None:
    weather(site)
    two_bundles(site)
    names = [b.qualified_name for b in agent_tools_objects(search=search)]
    assert names == ["my-tools/my-tools", "my-tools/my-tools-dev", "weather-tools/weather-tools"]
    with_builtin = agent_tools_objects(include_builtin=True, search=search)
    assert with_builtin[0].name == BUILTIN_BUNDLE and len(with_builtin) == 4
    assert [b.name for b in agent_tools_objects("*-dev", search=search)] == ["my-tools-dev"]
    assert len(agent_tools_objects("my-tools", search=search)) == 2  # the distribution name
    assert agent_tools_objects("zzz*", include_builtin=True, search=search) == []


def test_ad_hoc_string_naming_a_skill_directory_is_that_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path / "my-skill", {"SKILL.md": "---\nname: my-skill\ndescription: d\n---\n"})
    monkeypatch.chdir(tmp_path)
    bundle = AgentTools("mine", skills=["my-skill", "agenttools"])
    assert bundle.skills == (tmp_path / "my-skill", "agenttools")
    assert bundle.skill_names == ["my-skill", "agenttools"]
    sources = skill_sources(bundle)
    assert sources[0].directory == tmp_path / "my-skill"
    assert sources[1].identifier == "agenttools"
