"""The ownership rules of config entries, in each format (JSON, JSONC, TOML, YAML), as a user
meets them under a temporary home: the user's own entry under the key a deploy writes is a
conflict (``MCPServerEntryExists``) unless ``--force``, and removing the forced deployment
puts the user's bytes back exactly; an entry a deployment wrote that the user then edited is
kept by ``remove`` (``MCPServerEntryModified``) unless ``remove --force``, is a conflict for
the next deploy (``MCPServerEntryEdited``), and ``mcp install|uninstall`` follow the same
rules. Every step asserts the config file's bytes."""

from __future__ import annotations

import json
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime import paths
from agenttools_runtime.cli import main
from agenttools_runtime.clients import Client, get_client, mcp_config_location
from agenttools_runtime.deploy import deploy, deployed
from agenttools_runtime.errors import (
    MCPServerEntryEdited,
    MCPServerEntryExists,
    MCPServerEntryModified,
)
from agenttools_runtime.mcp.entries import container_for
from agenttools_runtime.mcp.formats import get_format, plain
from agenttools_runtime.mcp.install import read_server_entries

from .conftest import bundle, server


@dataclass(frozen=True)
class Format:
    client: str
    text: str  # the user's file: their "weather" server (with a token) and "theirs"
    edit: dict[str, Any]  # what the user adds to an entry (disabling it, an env var)


FORMATS = {
    "json": Format(
        "claude-code",
        '{\n  "numStartups": 3,\n  "mcpServers": {\n    "theirs": {"command": "their-server"},\n'
        '    "weather": {"command": "my-own", "args": ["--token", "s3cret"]}\n  },\n'
        '  "tipsHistory": {}\n}\n',
        {"env": {"WEATHER_UNITS": "metric"}},
    ),
    "jsonc": Format(
        "zed",
        '// Zed settings\n{\n  "theme": "One Dark",\n  "context_servers": {\n'
        "    // my weather server\n"
        '    "weather": {\n      "command": "my-own",   // mine\n'
        '      "args": ["--token", "s3cret"],\n    },\n'
        '    "theirs": {"command": "their-server"},\n  },\n}\n',
        {"env": {"WEATHER_UNITS": "metric"}},
    ),
    "toml": Format(
        "codex",
        '# my codex\nmodel = "o3"\n\n[mcp_servers.weather]\ncommand = "my-own"  # mine\n'
        'args = ["--token", "s3cret"]\n\n[mcp_servers.theirs]\ncommand = "their-server"\n',
        {"enabled": False},
    ),
    "yaml": Format(
        "goose",
        "# goose\nextensions:\n  weather:\n    name: weather\n    cmd: my-own  # mine\n"
        "    args: [--token, s3cret]\n    enabled: true\n    type: stdio\n"
        "  theirs:\n    name: theirs\n    cmd: their-server\n    enabled: true\n    type: stdio\n",
        {"enabled": False},
    ),
}

WEATHER = bundle("weather-tools", servers=[server("weather")])


@pytest.fixture(params=sorted(FORMATS))
def fmt(request: pytest.FixtureRequest) -> Format:
    return FORMATS[request.param]


def config_of(fmt: Format) -> Path:
    return mcp_config_location(get_client(fmt.client))


def write(path: Path, text: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.read_bytes()


def entries(fmt: Format) -> dict[str, Any]:
    client = get_client(fmt.client)
    return plain(read_server_entries(config_of(fmt), client))


def without_weather(fmt: Format) -> str:
    """The user's file without their "weather" server (a deploy then writes a new entry)."""
    client = get_client(fmt.client)
    config = config_of(fmt)
    return get_format(client.config_format).remove_entry(
        fmt.text, container_for(client, config), "weather"
    )[0]


def user_edits(fmt: Format, key: str = "weather") -> Any:
    """The user changes the entry *key* (as an editor would: the format's own edit); returns
    the entry as it then is."""
    client: Client = get_client(fmt.client)
    config = config_of(fmt)
    edited = {**entries(fmt)[key], **fmt.edit}
    text = get_format(client.config_format).set_entry(
        config.read_text(encoding="utf-8"), container_for(client, config), key, edited, {}
    )[0]
    config.write_text(text, encoding="utf-8")
    return entries(fmt)[key]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    """``agenttools ARGV --json``: the exit status, the JSON printed, and stderr."""
    status = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


# -- the user's own entry ------------------------------------------------------------------------


def test_the_users_entry_is_refused_then_forced_then_put_back_exactly(fmt: Format) -> None:
    config = config_of(fmt)
    original = write(config, fmt.text)
    mine = entries(fmt)["weather"]

    # refused, naming the file, the key and --force; nothing written, nothing recorded
    with pytest.raises(MCPServerEntryExists) as refused:
        deploy(fmt.client, WEATHER)
    assert f'"weather" in {config}' in str(refused.value) and "--force" in str(refused.value)
    assert config.read_bytes() == original and deployed() == []
    # the dry run labels it, and says the deploy would fail
    plan = deploy(fmt.client, WEATHER, dry_run=True)
    assert not plan.ok and plan.to_json()["mcp_servers"][0]["existing"] == "foreign"
    assert "replaces an entry agenttools did not write (only with --force" in plan.render()
    assert config.read_bytes() == original

    # --force: replaced; the record keeps the user's entry as it was
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forced = deploy(fmt.client, WEATHER, overwrite="all")
    assert entries(fmt)["weather"] != mine
    (recorded,) = forced.record.mcp_servers
    assert recorded.origin is not None and recorded.origin.value == mine
    assert "s3cret" in (recorded.origin.text or "")

    # remove: the user's bytes are back, exactly
    result = forced.remove()
    assert result.removed and [e.outcome for e in result.entries] == ["restored"]
    assert config.read_bytes() == original
    assert deployed() == []


def test_the_users_entry_comes_back_in_a_file_changed_since(fmt: Format) -> None:
    """Between the forced deploy and its removal the user adds a server and edits another:
    the removal puts their entry's exact text back and keeps the rest as they made it."""
    config = config_of(fmt)
    write(config, fmt.text)
    client = get_client(fmt.client)
    form, container = get_format(client.config_format), container_for(client, config)
    span = form.entry_span(fmt.text, container, "weather")
    assert span is not None
    their_text = fmt.text[span[0] : span[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forced = deploy(fmt.client, WEATHER, overwrite="all")
    theirs = user_edits(fmt, "theirs")
    added = {"command": "new-one"} if fmt.client != "goose" else {"name": "new", "cmd": "x"}
    text = form.set_entry(config.read_text(encoding="utf-8"), container, "new", added, {})[0]
    config.write_text(text, encoding="utf-8")

    forced.remove()
    after = config.read_text(encoding="utf-8")
    span = form.entry_span(after, container, "weather")
    assert span is not None and after[span[0] : span[1]] == their_text
    now = entries(fmt)
    assert now["theirs"] == theirs and set(now) == {"weather", "theirs", "new"}


def test_an_identical_entry_is_kept_and_left_by_the_removal(fmt: Format) -> None:
    """An entry that is already what the deploy would write is no conflict: the deploy keeps
    it as it is, and the removal leaves it (it was there before)."""
    config = config_of(fmt)
    write(config, without_weather(fmt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = deploy(fmt.client, WEATHER)
    first_bytes = config.read_bytes()
    from agenttools_runtime.deploy import records

    # the record went (by hand): the entry is nobody's
    records.delete_record(first.uuid, paths.deployments_dir())
    plan = deploy(fmt.client, WEATHER, dry_run=True)
    assert plan.to_json()["mcp_servers"][0]["existing"] == "identical" and plan.ok
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second = deploy(fmt.client, WEATHER)
    assert config.read_bytes() == first_bytes
    second.remove()
    assert config.read_bytes() == first_bytes


# -- an entry the user edited after a deploy wrote it ---------------------------------------------


def test_an_edited_entry_is_kept_by_remove(fmt: Format) -> None:
    config = config_of(fmt)
    write(config, without_weather(fmt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = deploy(fmt.client, WEATHER)
    edited = user_edits(fmt)
    before = config.read_bytes()

    with pytest.warns(MCPServerEntryModified, match='"weather" in .* was changed after'):
        result = ours.remove()
    # the deployment is gone; the entry is the user's now, as they left it; the result says so
    assert result.removed and deployed() == []
    assert [(e.key, e.outcome) for e in result.entries] == [("weather", "kept")]
    assert result.to_json()["mcp_servers"][0]["outcome"] == "kept"
    assert config.read_bytes() == before and entries(fmt)["weather"] == edited


def test_remove_force_deletes_an_edited_entry(fmt: Format) -> None:
    config = config_of(fmt)
    start = write(config, without_weather(fmt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = deploy(fmt.client, WEATHER)
    user_edits(fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no MCPServerEntryModified: --force says remove it
        result = ours.remove(force=True)
    assert [(e.key, e.outcome) for e in result.entries] == [("weather", "removed")]
    assert "weather" not in entries(fmt) and deployed() == []
    assert entries(fmt) == plain(
        read_server_entries_text(fmt, start.decode("utf-8"))
    )  # everything else as it was


def read_server_entries_text(fmt: Format, text: str) -> dict[str, Any]:
    client = get_client(fmt.client)
    form = get_format(client.config_format)
    return dict(form.read_entries(text, container_for(client, config_of(fmt))))


def test_an_edited_entry_is_a_conflict_for_the_next_deploy(fmt: Format) -> None:
    """``--upgrade`` replaces a deployment, not the user's edit of it: that takes --force, and
    removing the forced deployment puts the edited entry back."""
    config = config_of(fmt)
    write(config, without_weather(fmt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        deploy(fmt.client, WEATHER)
    edited = user_edits(fmt)
    before = config.read_bytes()
    with pytest.raises(MCPServerEntryEdited, match="changed after deployment"):
        deploy(fmt.client, WEATHER, overwrite="upgrade")
    assert config.read_bytes() == before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forced = deploy(fmt.client, WEATHER, overwrite="all")
    assert entries(fmt)["weather"] != edited
    forced.remove()
    assert config.read_bytes() == before and deployed() == []


# -- the CLI: mcp install, mcp uninstall, remove -------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.hostile.corpus import weather_site

    return weather_site(tmp_path_factory.mktemp("ownership"))


def test_mcp_install_refuses_the_users_entry_and_uninstall_puts_it_back(
    fmt: Format, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_of(fmt)
    original = write(config, fmt.text)
    install = ["mcp", "install", fmt.client, "weather-tools/weather", "--path", str(site)]
    status, out, _err = cli(capsys, *install)
    assert status == 1 and out["error"]["tag"] == "MCPServerEntryExists"
    assert config.read_bytes() == original

    # a forced deploy owns the key; mcp uninstall then goes by the removal's rule: the user's
    # entry is put back instead of deleting the key, and the record no longer lists it
    status, out, err = cli(
        capsys, "deploy", fmt.client, "weather-tools", "--path", str(site), "--force"
    )
    assert status == 0, err
    uid = out["deployment"]["uuid"]
    status, out, err = cli(capsys, "mcp", "uninstall", fmt.client, "weather")
    assert status == 0, err
    assert out["outcome"] == "restored" and out["deployments"] == [uid]
    assert config.read_bytes() == original
    assert all(d.config_keys == [] for d in deployed())


def test_mcp_uninstall_keeps_an_edited_entry_a_deployment_owns(
    fmt: Format, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_of(fmt)
    write(config, without_weather(fmt))
    status, out, err = cli(capsys, "deploy", fmt.client, "weather-tools", "--path", str(site))
    assert status == 0, err
    user_edits(fmt)
    edited = config.read_bytes()
    status, out, err = cli(capsys, "mcp", "uninstall", fmt.client, "weather")
    assert status == 1 and out["outcome"] == "kept"
    assert "was changed after agenttools wrote it" in err and "--force" in err
    assert config.read_bytes() == edited
    status, out, err = cli(capsys, "mcp", "uninstall", fmt.client, "weather", "--force")
    assert status == 0 and out["outcome"] == "removed", err
    assert "weather" not in entries(fmt)


def test_remove_cli_exit_status_tells_the_truth(
    fmt: Format, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config file that no longer parses: remove exits 1, prints no "Removed", lists what
    is left and why; the deployment stays listed; once the file is fixed, remove finishes."""
    config = config_of(fmt)
    write(config, without_weather(fmt))
    status, out, err = cli(capsys, "deploy", fmt.client, "weather-tools", "--path", str(site))
    assert status == 0, err
    uid = out["deployment"]["uuid"]
    good = config.read_bytes()
    config.write_bytes(good + b"\n[[[ not the format\n")
    broken = config.read_bytes()

    assert main(["remove", uid]) == 1
    out, err = capsys.readouterr()
    assert "Removed" not in out
    assert f"Not removed completely: deployment {uid}" in out
    assert f'MCP server "weather" in {config}: Cannot parse {config}' in out
    assert f"then run 'agenttools remove {uid}' again" in out
    assert config.read_bytes() == broken
    assert [d.uuid for d in deployed()] == [uid]
    status, data, _err = cli(capsys, "remove", uid)
    assert status == 1 and data["ok"] is False and data["removed"] is None
    assert [e["key"] for e in data["left"]] == ["weather"]

    config.write_bytes(good)
    assert main(["remove", uid]) == 0
    out, _err = capsys.readouterr()
    assert out.startswith(f"Removed deployment {uid}")
    assert deployed() == [] and "weather" not in entries(fmt)


# -- a record that cannot be read ------------------------------------------------------------------


def test_a_broken_record_is_listed_and_says_what_can_be_done(
    site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``deployed`` lists it as broken with the path, the reason and what to do; ``remove``
    changes nothing and says the same; its entry, which now looks like the user's, is a
    conflict (for another entry) whose message points at the broken record; once its directory is deleted,
    ``doctor --fix`` releases its skills."""
    from agenttools_runtime.deploy import records

    status, out, err = cli(capsys, "deploy", "claude-code", "weather-tools", "--path", str(site))
    assert status == 0, err
    uid = out["deployment"]["uuid"]
    path = records.record_path(uid, paths.deployments_dir())
    path.write_text('{"version": 1, "uuid": ', encoding="utf-8")
    skill = home / ".claude" / "skills" / "weather-report"
    config = home / ".claude.json"
    before = config.read_bytes()

    status, out, _err = cli(capsys, "deployed")
    assert status == 0
    (broken,) = out["deployments"]
    assert broken["uuid"] == uid and broken["status"] == "broken"
    assert broken["path"] == str(path)
    (finding,) = broken["findings"]
    assert finding["message"].startswith(f"The deployment record {path} cannot be read: ")
    assert f"delete the directory {path.parent}" in finding["message"]
    assert main(["deployed"]) == 0
    text = capsys.readouterr().out
    assert f"{uid[:8]}  ?" in text and f"broken  The deployment record {path}" in text
    assert "'agenttools doctor --fix' then releases its skills" in text

    status, out, _err = cli(capsys, "remove", uid[:8])
    assert status == 1 and out["error"]["tag"] == "BrokenDeploymentRecord"
    assert (
        "Nothing was removed. Repair the file, or delete the directory" in out["error"]["message"]
    )
    with pytest.raises(MCPServerEntryExists, match=r"1 deployment record\(s\) cannot be read"):
        deploy("claude-code", bundle("other", servers=[server("weather")]))  # another entry
    assert config.read_bytes() == before and skill.is_dir()

    status, out, _err = cli(capsys, "doctor")
    assert status == 1
    (finding,) = [f for f in out["findings"] if f["kind"] == "unreadable"]
    assert "Repair the file, or delete the directory" in finding["detail"]
    shutil.rmtree(path.parent)
    status, out, err = cli(capsys, "doctor", "--fix")
    assert status == 0, out
    assert not skill.exists()  # released: nothing references it any more
