"""agenttools export: each format's files from the sample packages (project directories and
real wheels), the published schemas they validate against, the name rules, and how the
settings a user gives would reach each format — never as a value of a secret."""

from __future__ import annotations

import json
import textwrap
import warnings
from pathlib import Path

import pytest

from agenttools_runtime import errors
from agenttools_runtime.export import (
    FORMATS,
    agent_plugin,
    claude_plugin,
    codex_plugin,
    export,
    gemini_extension,
    render,
)
from agenttools_runtime.export.common import ExportedServer
from agenttools_runtime.export.output import RECORD
from agenttools_runtime.export.server_json import _input
from agenttools_runtime.export.source import load_package
from agenttools_runtime.export.validation import problems
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.mcp.settings import Setting
from tests.helpers.wheels import build_sample_wheel, tree

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_packages"
WEATHER = SAMPLES / "weather-tools"
PLUGINS = ("agent-plugin", "claude-plugin", "codex-plugin", "gemini-extension")
SKILLS = (
    "skills/forecast-help/SKILL.md",
    "skills/station-lookup/SKILL.md",
    "skills/weather-report/SKILL.md",
    "skills/weather-report/references/units.md",
    "skills/weather-report/scripts/report.py",
)
MANIFESTS = {
    "agent-plugin": ("mcp.json", "plugin.json"),
    "claude-plugin": (".claude-plugin/plugin.json",),
    "codex-plugin": (".codex-plugin/plugin.json", ".mcp.json"),
    "gemini-extension": ("gemini-extension.json",),
}
UVX = ["--from", "weather-tools==1.2.0", "weather-mcp"]


def _json(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("fmt", PLUGINS)
def test_each_format_holds_its_manifest_the_skills_and_the_pinned_server(
    fmt: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = export(fmt, [str(WEATHER)], out)
    assert set(tree(out)) == {*MANIFESTS[fmt], *SKILLS, RECORD}
    assert set(result.written.written) == {*MANIFESTS[fmt], *SKILLS}
    assert (out / "skills/weather-report/scripts/report.py").stat().st_mode & 0o111
    assert (out / "skills/weather-report/SKILL.md").read_bytes() == (
        WEATHER / "skills/weather-report/SKILL.md"
    ).read_bytes()
    servers = {
        "agent-plugin": lambda: _json(out / "mcp.json")["mcpServers"],
        "claude-plugin": lambda: _json(out / ".claude-plugin/plugin.json")["mcpServers"],
        "codex-plugin": lambda: _json(out / ".mcp.json")["mcpServers"],
        "gemini-extension": lambda: _json(out / "gemini-extension.json")["mcpServers"],
    }[fmt]()
    assert list(servers) == ["weather"]
    assert servers["weather"]["command"] == "uvx"
    assert servers["weather"]["args"] == UVX
    assert servers["weather"]["env"] == {"WEATHER_UNITS": "metric"}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [*PLUGINS, "claude-marketplace", "codex-marketplace"])
def test_the_wheel_and_the_project_give_the_same_bytes_every_time(
    fmt: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    wheel = build_sample_wheel("weather-tools", tmp_path_factory)
    name = "weather-market" if fmt.endswith("marketplace") else None  # (default: the dir's)
    export(fmt, [str(WEATHER)], tmp_path / "from-project", name=name)
    export(fmt, [str(wheel)], tmp_path / "from-wheel", name=name)
    export(fmt, [str(wheel)], tmp_path / "again", name=name)
    first = tree(tmp_path / "from-project")
    assert first == tree(tmp_path / "from-wheel") == tree(tmp_path / "again")
    for rel, data in first.items():
        if rel.endswith(".json"):
            assert data.endswith(b"}\n") and b"\r" not in data
            assert data == (json.dumps(json.loads(data), indent=2, sort_keys=True) + "\n").encode()


@pytest.mark.parametrize("version", agent_plugin.SPEC_VERSIONS)
def test_agent_plugins_output_validates_against_the_spec_schemas(
    version: str, tmp_path: Path
) -> None:
    out = tmp_path / version
    export("agent-plugin", [str(WEATHER)], out, spec_version=version)
    plugin, mcp = _json(out / "plugin.json"), _json(out / "mcp.json")
    assert plugin["$schema"] == f"https://agent-plugins.org/schemas/{version}/plugin.schema.json"
    assert problems(plugin, f"agent-plugins-{version}-plugin.schema.json") == []
    assert problems(mcp, f"agent-plugins-{version}-mcp.schema.json") == []
    other = next(v for v in agent_plugin.SPEC_VERSIONS if v != version)
    # each document names its version: the other version's schema refuses it
    assert problems(plugin, f"agent-plugins-{other}-plugin.schema.json")


def test_a_name_the_format_refuses_is_an_error_with_a_name_it_accepts(tmp_path: Path) -> None:
    with pytest.raises(errors.ExportNameInvalid) as caught:
        export("claude-plugin", [str(WEATHER)], tmp_path / "a", name="Weather Tools")
    assert "kebab-case" in str(caught.value) and "--name weather-tools" in str(caught.value)
    assert not (tmp_path / "a").exists()
    # each format its own rule: periods are Agent Plugins names, not Gemini CLI ones
    export("agent-plugin", [str(WEATHER)], tmp_path / "b", name="weather.tools")
    assert _json(tmp_path / "b/plugin.json")["name"] == "weather.tools"
    with pytest.raises(errors.ExportNameInvalid, match="only letters"):
        export("gemini-extension", [str(WEATHER)], tmp_path / "c", name="weather.tools")
    with pytest.raises(errors.ExportNameInvalid, match="1-64"):
        export("agent-plugin", [str(WEATHER)], tmp_path / "d", name="weather--tools")


def test_a_module_without_a_console_script_runs_under_the_same_pinned_install(
    tmp_path: Path,
) -> None:
    export("claude-plugin", [f"{SAMPLES / 'multi-bundle'}#toolkit"], tmp_path / "t")
    entry = _json(tmp_path / "t/.claude-plugin/plugin.json")["mcpServers"]["toolkit"]
    assert entry["command"] == "uvx"
    assert entry["args"] == ["--from", "multi-bundle==0.3.0", "python", "-m", "multi_bundle.server"]


def _project(root: Path, servers: str, name: str = "remote-tools") -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["hatchling", "agenttools"]
            build-backend = "hatchling.build"

            [project]
            name = "{name}"
            version = "2.0.0"
            description = "Tools behind a URL."

            [tool.hatch.build.hooks.agenttools]
            """
        )
        + textwrap.dedent(servers),
        encoding="utf-8",
    )
    return root


def test_url_servers_in_each_format(tmp_path: Path) -> None:
    project = _project(
        tmp_path / "p",
        """
        [tool.agenttools.mcp-servers.docs]
        url = "https://docs.example.org/mcp"
        headers = { X-Tenant = "public" }
        """,
    )
    package = load_package(str(project))
    claude = render("claude-plugin", [package]).documents[".claude-plugin/plugin.json"]
    assert claude["mcpServers"]["docs"] == {
        "type": "http",
        "url": "https://docs.example.org/mcp",
        "headers": {"X-Tenant": "public"},
    }
    agent = render("agent-plugin", [package]).documents["mcp.json"]["mcpServers"]["docs"]
    assert agent == {
        "type": "streamable-http",
        "url": "https://docs.example.org/mcp",
        "headers": {"X-Tenant": "public"},
    }
    codex = render("codex-plugin", [package]).documents[".mcp.json"]["mcpServers"]["docs"]
    assert codex == {"url": "https://docs.example.org/mcp", "http_headers": {"X-Tenant": "public"}}
    gemini = render("gemini-extension", [package]).documents["gemini-extension.json"]
    assert gemini["mcpServers"]["docs"] == {
        "httpUrl": "https://docs.example.org/mcp",
        "headers": {"X-Tenant": "public"},
    }


def test_what_a_format_cannot_hold_is_an_error_naming_the_server(tmp_path: Path) -> None:
    sse = load_package(
        str(
            _project(
                tmp_path / "sse",
                '[tool.agenttools.mcp-servers.feed]\nurl = "https://x.example/sse"\ntransport = "sse"\n',
            )
        )
    )
    with pytest.raises(errors.UnsupportedTransport, match="Codex"):
        render("codex-plugin", [sse])
    plain = load_package(
        str(
            _project(
                tmp_path / "http",
                '[tool.agenttools.mcp-servers.feed]\nurl = "http://x.example/mcp"\n',
            )
        )
    )
    with pytest.raises(errors.ExportUnsupported, match="HTTPS"):
        render("agent-plugin", [plain])
    local = load_package(
        str(
            _project(
                tmp_path / "local",
                '[tool.agenttools.mcp-servers.feed]\nurl = "http://127.0.0.1:8080/mcp"\n',
            )
        )
    )
    assert render("agent-plugin", [local]).documents["mcp.json"]["mcpServers"]["feed"]["url"]


# -- settings the user gives (the declared settings of the "settings and secrets" issue) ------
SECRET_VALUE = "sk-THIS-MUST-NOT-LEAK"
SETTINGS = (
    Setting("API_KEY", SECRET_VALUE, secret=True, required=True, description="Your API key"),
    Setting("UNITS", None, default="metric", choices=("metric", "imperial")),
    Setting("WEATHER_REGION", "eu"),  # literal: written as it is
)


def _exported() -> list[ExportedServer]:
    server = MCPServer(
        "weather",
        command="uvx",
        args=("--from", "weather-tools==1.2.0", "weather-mcp"),
        env={"WEATHER_REGION": "eu"},
    )
    return [ExportedServer("weather", server, tuple(s for s in SETTINGS if not s.is_literal))]


def test_claude_code_asks_for_them_as_user_config_options() -> None:
    document = claude_plugin.servers_document(_exported())
    entry = document["mcpServers"]["weather"]
    assert entry["env"] == {
        "WEATHER_REGION": "eu",
        "API_KEY": "${user_config.API_KEY}",
        "UNITS": "${user_config.UNITS}",
    }
    assert document["userConfig"]["API_KEY"] == {
        "type": "string",
        "title": "API_KEY",
        "description": "Your API key",
        "required": True,
        "sensitive": True,
    }
    assert document["userConfig"]["UNITS"]["default"] == "metric"
    assert "metric, imperial" in document["userConfig"]["UNITS"]["description"]
    plugin = {"name": "weather-tools", **document}
    assert problems(plugin, claude_plugin.SCHEMA) == []
    assert SECRET_VALUE not in json.dumps(document)


def test_gemini_cli_asks_for_them_as_extension_settings() -> None:
    document = gemini_extension.servers_document(_exported())
    assert document["settings"] == [
        {"name": "API_KEY", "description": "Your API key", "envVar": "API_KEY", "sensitive": True},
        {
            "name": "UNITS",
            "description": "The value of UNITS.",
            "envVar": "UNITS",
            "sensitive": False,
        },
    ]
    assert problems({"name": "w", "version": "1", **document}, "gemini-extension.schema.json") == []
    assert SECRET_VALUE not in json.dumps(document)


def test_codex_passes_them_through_from_its_environment() -> None:
    document = codex_plugin.servers_document(_exported())
    assert document["mcpServers"]["weather"]["env_vars"] == ["API_KEY", "UNITS"]
    assert document["mcpServers"]["weather"]["env"] == {"WEATHER_REGION": "eu"}
    assert problems(document, "codex-mcp.schema.json") == []
    assert SECRET_VALUE not in json.dumps(document)


def test_agent_plugins_has_no_place_for_them_and_says_so() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        document = agent_plugin.servers_document(_exported())
    assert document["mcpServers"]["weather"]["env"] == {"WEATHER_REGION": "eu"}
    told = sorted(
        w.message.name for w in caught if isinstance(w.message, errors.ExportSettingNotExported)
    )
    assert told == ["API_KEY", "UNITS"]
    assert SECRET_VALUE not in json.dumps(document)


def test_server_json_declares_them_as_inputs() -> None:
    assert [_input(s) for s in SETTINGS] == [
        {"name": "API_KEY", "isRequired": True, "isSecret": True, "description": "Your API key"},
        {
            "name": "UNITS",
            "isRequired": False,
            "isSecret": False,
            "default": "metric",
            "choices": ["metric", "imperial"],
        },
        {"name": "WEATHER_REGION", "value": "eu"},
    ]


def test_every_format_is_listed() -> None:
    assert sorted(FORMATS) == sorted([*PLUGINS, "claude-marketplace", "codex-marketplace"])
