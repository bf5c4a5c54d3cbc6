"""install / uninstall of MCP entries for every client, on real files under a temporary HOME."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agenttools_runtime import fs
from agenttools_runtime.clients import Client, all_clients, mcp_config_location
from agenttools_runtime.errors import (
    ConfigFileChanged,
    ConfigFileInvalid,
    ConfigFileUnparseable,
    UnknownInstallLocation,
    UnsupportedTransport,
)
from agenttools_runtime.mcp.entries import build_entry
from agenttools_runtime.mcp.install import (
    add_server_entry,
    install_mcp_server,
    read_server_entries,
    remove_server_entry,
    resolve_mcp_target,
    uninstall_mcp_server,
)
from agenttools_runtime.mcp.server import Environment, MCPServer
from tests.helpers.faults import inject
from tests.mcp.samples import BROKEN, existing_text, only_insertions

CLIENTS = sorted(all_clients().values(), key=lambda c: c.id)
ENV = Environment(Path("/opt/venv/bin/python"), Path("/opt/venv/bin"))
SERVER = MCPServer(
    "weather", module="weather_tools.server", env={"WEATHER_UNITS": "metric"}, environment=ENV
)


@pytest.fixture(params=CLIENTS, ids=lambda c: c.id)
def client(request: pytest.FixtureRequest) -> Client:
    return request.param  # type: ignore[no-any-return]


def config_path(client: Client, home: Path) -> Path:
    for os_name in ("unix", "macos", "windows"):
        try:
            return mcp_config_location(client, os_name)
        except UnknownInstallLocation:
            continue
    raise AssertionError(client)


def test_install_into_missing_file(client: Client, home: Path) -> None:
    path = config_path(client, home)
    result = install_mcp_server(client, SERVER, config=path)
    assert result.created_file and not result.replaced_entry
    assert result.config_file == path
    assert read_server_entries(path, client)["weather"] == build_entry(client, SERVER)


@pytest.mark.parametrize("content", ["", "  \n\t\n"])
def test_install_into_empty_file(client: Client, home: Path, content: str) -> None:
    path = config_path(client, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    assert add_server_entry(path, client, "weather", SERVER) is False
    assert read_server_entries(path, client) == {"weather": build_entry(client, SERVER)}


@pytest.mark.parametrize("comments", [False, True], ids=["plain", "comments"])
def test_install_keeps_everything_else(client: Client, home: Path, comments: bool) -> None:
    path = config_path(client, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = existing_text(client, comments)
    path.write_text(original)
    assert add_server_entry(path, client, "weather", SERVER) is False
    after = path.read_text()
    assert only_insertions(original, after), after
    entries = read_server_entries(path, client)
    assert {"other", "weather"} <= set(entries)
    assert entries["weather"] == build_entry(client, SERVER)
    # reinstalling the same entry writes nothing; a changed one replaces only itself
    assert add_server_entry(path, client, "weather", SERVER) is True
    assert path.read_text() == after
    changed = MCPServer("weather", command="weather-mcp", args=("--fast",))
    assert add_server_entry(path, client, "weather", changed) is True
    assert read_server_entries(path, client)["weather"] == build_entry(client, changed)
    assert read_server_entries(path, client)["other"] == entries["other"]
    # uninstall restores the original bytes
    assert remove_server_entry(path, client, "weather") is True
    assert path.read_text() == original
    assert remove_server_entry(path, client, "weather") is False
    assert path.read_text() == original


def test_uninstall_last_entry_leaves_empty_container(client: Client, home: Path) -> None:
    path = config_path(client, home)
    install_mcp_server(client, SERVER, config=path)
    result = uninstall_mcp_server(client, "weather", config=path)
    assert result.removed
    assert read_server_entries(path, client) == {}
    assert path.exists()


def test_uninstall_missing_file_is_not_installed(client: Client, home: Path) -> None:
    path = config_path(client, home)
    result = uninstall_mcp_server(client, "weather", config=path)
    assert result.removed is False
    assert not path.exists()
    assert not path.parent.exists() or path.parent == home


def test_unparseable_file_is_never_rewritten(client: Client, home: Path) -> None:
    path = config_path(client, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    text, _pos = BROKEN[client.config_format]
    path.write_text(text)
    with pytest.raises(ConfigFileUnparseable) as info:
        add_server_entry(path, client, "weather", SERVER)
    assert str(path) in str(info.value) and "line" in str(info.value)
    with pytest.raises(ConfigFileUnparseable):
        remove_server_entry(path, client, "weather")
    assert path.read_text() == text
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp files left


def test_remote_server_has_the_client_form_or_a_clear_error(client: Client) -> None:
    remote = MCPServer("docs", url="https://example.org/mcp", headers={"Authorization": "Bearer t"})
    try:
        entry = build_entry(client, remote)
    except UnsupportedTransport as exc:
        assert client.display_name in str(exc)
        return
    flat = repr(entry)
    assert "https://example.org/mcp" in flat and "Bearer t" in flat
    assert "command" not in entry and "cmd" not in entry


@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_script_server_uses_the_environment_console_script(client: Client, platform: str) -> None:
    script = MCPServer("weather", script="weather-mcp", environment=ENV)
    entry = build_entry(client, script, platform=platform)
    flat = repr(entry)
    suffix = ".exe" if platform == "win32" else ""
    assert f"/opt/venv/bin/weather-mcp{suffix}'" in flat


@pytest.mark.parametrize("os_name", ["macos", "windows", "unix"])
def test_install_at_each_os_location(client: Client, home: Path, os_name: str) -> None:
    column = client.mcp_config  # the table's own word: a path for every OS, or one per OS
    if isinstance(column, dict) and "if_exists" not in column and column.get(os_name) is None:
        # a client without a config file on that OS: the location says so, precisely
        with pytest.raises(UnknownInstallLocation):
            mcp_config_location(client, os_name)
        return
    path = mcp_config_location(client, os_name)
    result = install_mcp_server(client, SERVER, config=path, platform="win32")
    assert result.config_file == path and path.is_file()
    assert "weather" in read_server_entries(path, client)


def test_module_server_entry_is_absolute_interpreter() -> None:
    generic = all_clients()["claude-code"]
    assert build_entry(generic, SERVER) == {
        "type": "stdio",
        "command": "/opt/venv/bin/python",
        "args": ["-m", "weather_tools.server"],
        "env": {"WEATHER_UNITS": "metric"},
    }


def test_key_override_and_config_key(home: Path) -> None:
    client = all_clients()["cursor"]
    keyed = MCPServer("weather", module="w", config_key="wx", environment=ENV)
    assert install_mcp_server(client, keyed).key == "wx"
    assert install_mcp_server(client, keyed, key="other-name").key == "other-name"
    assert set(read_server_entries(mcp_config_location(client), client)) == {"wx", "other-name"}


def test_project_scope(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    target = resolve_mcp_target("claude-code", project=project)
    assert target.config_file == project / ".mcp.json" and target.scope == project
    install_mcp_server(target, SERVER)
    assert "weather" in read_server_entries(project / ".mcp.json", target.client)
    # an explicit file at that place is recognised by its exact location
    again = resolve_mcp_target("claude-code", config=project / ".mcp.json")
    assert again.scope == project


def test_explicit_file_for_other_client_has_unknown_scope(tmp_path: Path) -> None:
    target = resolve_mcp_target("cursor", config=tmp_path / "custom.json")
    assert target.client.id == "cursor" and target.scope is None
    guessed = resolve_mcp_target(None, config=mcp_config_location("claude-code"))
    assert guessed.client.id == "claude-code" and guessed.scope == "user"


def test_vscode_legacy_settings_json(home: Path, tmp_path: Path) -> None:
    vscode = all_clients()["vscode"]
    settings = tmp_path / "settings.json"
    settings.write_text('{\n  // editor\n  "editor.fontSize": 14\n}\n')
    add_server_entry(settings, vscode, "weather", SERVER)
    text = settings.read_text()
    assert '"mcp": {\n    "servers": {\n      "weather": {' in text
    assert "// editor" in text and '"editor.fontSize": 14,' in text


def test_container_that_is_not_a_mapping_is_refused(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": "oops"}')
    with pytest.raises(ConfigFileInvalid):
        add_server_entry(path, all_clients()["cursor"], "weather", SERVER)
    assert path.read_text() == '{"mcpServers": "oops"}'


def test_permissions_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    os.chmod(path, 0o640)
    add_server_entry(path, all_clients()["cursor"], "weather", SERVER)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_new_user_file_is_private_and_new_project_file_is_shared(
    home: Path, tmp_path: Path
) -> None:
    """A new user config file may hold tokens (env, headers): owner only. A new project
    file is meant to be committed and read by others: the umask decides, as for any file."""
    user = install_mcp_server("claude-code", SERVER).config_file
    assert stat.S_IMODE(user.stat().st_mode) == 0o600
    project = tmp_path / "proj"
    project.mkdir()
    old = os.umask(0o027)
    try:
        shared = install_mcp_server("claude-code", SERVER, project=project).config_file
    finally:
        os.umask(old)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640


def test_concurrent_change_is_redone_on_the_new_contents(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    cursor = all_clients()["cursor"]
    changes = iter(['{"mcpServers": {"theirs": {"command": "x"}}}'])

    def client_rewrites(operation: str, target: Path) -> None:
        if operation == "checkpoint:mcp-config-reread":
            text = next(changes, None)
            if text is not None:
                target.write_text(text)

    with fs.observe(client_rewrites):
        add_server_entry(path, cursor, "weather", SERVER)
    assert set(read_server_entries(path, cursor)) == {"theirs", "weather"}


def test_repeated_concurrent_changes_fail_clearly(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    counter = iter(range(100))

    def client_rewrites(operation: str, target: Path) -> None:
        if operation == "checkpoint:mcp-config-reread":
            target.write_text(f'{{"n": {next(counter)}}}')

    with fs.observe(client_rewrites), pytest.raises(ConfigFileChanged):
        add_server_entry(path, all_clients()["cursor"], "weather", SERVER)
    assert path.read_text() == '{"n": 1}'


def test_failed_write_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"a": 1}')
    with inject(fail_at=1), pytest.raises(OSError):
        add_server_entry(path, all_clients()["cursor"], "weather", SERVER)
    assert path.read_text() == '{"a": 1}'
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".mcp.json")]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_linked_config_file_is_edited_where_it_lives(tmp_path: Path) -> None:
    """Dotfiles kept in a repository are often linked into place: the link stays a link and
    the file it points to gets the entry (and loses it again)."""
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    link = tmp_path / "mcp.json"
    link.symlink_to(real)
    cursor = all_clients()["cursor"]
    add_server_entry(link, cursor, "weather", SERVER)
    assert link.is_symlink() and "weather" in read_server_entries(real, cursor)
    assert remove_server_entry(link, cursor, "weather")
    assert link.is_symlink()
    assert real.read_text() == '{"mcpServers": {"other": {"command": "x"}}}\n'
