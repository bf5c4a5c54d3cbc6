"""The schema of ``agenttools.toml`` (one typed table drives validation, the JSON schema and
the reference page), its lossless edits, the lock's format, and finding the project."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import jsonschema
import pytest

from agenttools_runtime.errors import LockInvalid, ProjectFileInvalid
from agenttools_runtime.project_state import editing, lockfile, lockwrite, schema
from agenttools_runtime.project_state.finding import find_project_file
from agenttools_runtime.project_state.lockfile import (
    FIND_LINKS,
    SIMPLE_API,
    Lock,
    LockedDeployment,
    LockedDistribution,
    LockedEntry,
    LockedFile,
    Pin,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = """\
# what this project uses
[agenttools]
clients = ["claude-code", "cursor", "gemini-cli"]   # everyone's
index-url = "https://pypi.example/simple/"

[[bundle]]
requirement = "weather-tools>=1.2"  # PEP 508
bundles = ["weather-tools"]
clients = ["claude-code"]
runner = "uvx"
"""


def test_the_reference_page_and_json_schema_are_generated_from_the_schema() -> None:
    script = REPO / "docs" / "gen_project_schema.py"
    spec = importlib.util.spec_from_file_location("gen_project_schema", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0, "run: python docs/gen_project_schema.py"
    page = module.PAGE.read_text(encoding="utf-8")
    for _, _, keys in schema.TABLES:
        for key in keys:
            assert f"| `{key.name}` |" in page


def test_the_json_schema_accepts_what_parse_accepts_and_refuses_unknown_keys() -> None:
    published = schema.json_schema()
    jsonschema.Draft202012Validator.check_schema(published)
    data = tomllib.loads(EXAMPLE)
    jsonschema.validate(data, published)
    parsed = schema.parse(EXAMPLE, Path("agenttools.toml"))
    assert [(b.distribution, b.clients, b.runner, b.scope) for b in parsed.bundles] == [
        ("weather-tools", ("claude-code",), "uvx", "project")
    ]
    data["bundle"][0]["requirment"] = "x"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, published)
    with pytest.raises(
        ProjectFileInvalid,
        match=r'agenttools.toml:12: bundle\[1\]: "weather-tools" is listed twice',
    ):
        schema.parse(
            EXAMPLE + '\n[[bundle]]\nrequirement = "Weather_Tools"\n', Path("agenttools.toml")
        )


def test_add_and_drop_keep_comments_order_and_formatting(tmp_path: Path) -> None:
    path = tmp_path / "agenttools.toml"
    path.write_text(EXAMPLE, encoding="utf-8")
    more = editing.added(path, "other-tools==2.0", clients=["cursor"], scope="project")
    assert (
        more.text
        == EXAMPLE
        + '\n[[bundle]]\nrequirement = "other-tools==2.0"\nclients = ["cursor"]\nscope = "project"\n'
    )
    path.write_text(more.text, encoding="utf-8")
    back = editing.dropped(path, "Other_Tools")
    assert back.text == EXAMPLE + "\n"
    path.write_text(back.text, encoding="utf-8")
    none = editing.dropped(path, "weather-tools")
    assert "[[bundle]]" not in none.text and none.text.startswith("# what this project uses\n")
    assert '"claude-code", "cursor", "gemini-cli"]   # everyone\'s' in none.text
    fresh = editing.added(
        tmp_path / "new" / "agenttools.toml", "weather-tools", clients=["claude-code"]
    )
    assert (
        fresh.text
        == '[agenttools]\nclients = ["claude-code"]\n\n[[bundle]]\nrequirement = "weather-tools"\n'
    )


def lock_of(*files: str) -> Lock:
    pin = Pin("weather-tools", "1.2.0", "weather_tools-1.2.0-py3-none-any.whl", "a" * 64)
    deployment = LockedDeployment(
        "weather-tools/weather-tools", "weather-tools", "claude-code", "project", "uvx",
        (LockedEntry(".mcp.json", "weather", "b" * 64, "weather-tools/weather", ("WEATHER_UNITS",)),),
        tuple(LockedFile(f, "c" * 64) for f in files),
    )  # fmt: skip
    index = "https://i/simple/"
    dep = Pin("mcp", "2.3.0", "mcp-2.3.0-py3-none-any.whl", "d" * 64, index, SIMPLE_API)
    # (a dependency from another source than its distribution's)
    linked = Pin("plain-dist", "1.0", "plain_dist-1.0-py3-none-any.whl", "f" * 64, "/w", FIND_LINKS)
    distribution = LockedDistribution(
        "weather-tools>=1.2", pin, index, (dep, linked), index_kind=SIMPLE_API
    )
    return Lock("sha256:" + "e" * 64, (distribution,), (deployment,))


def test_the_lock_is_deterministic_round_trips_and_names_only_project_paths(tmp_path: Path) -> None:
    lock = lock_of(".claude/skills/a/SKILL.md", ".claude/skills/a/b.md")
    text = lockwrite.dumps(lock)
    assert text == lockwrite.dumps(lock_of(".claude/skills/a/SKILL.md", ".claude/skills/a/b.md"))
    path = tmp_path / "agenttools.lock"
    assert lockwrite.write(path, lock) and not lockwrite.write(path, lock)  # (no rewrite)
    again = lockfile.read(path)
    assert again is not None and lockwrite.dumps(again) == text
    assert again.deployments[0].entries[0].settings == ("WEATHER_UNITS",)
    assert again.distributions[0].dependencies[0].name == "mcp"
    assert again.distributions[0].index_kind == SIMPLE_API
    assert 'index = "https://i/simple/"\nindex-kind = "simple-api"\n' in text
    # a dependency's source is written only when it is not its distribution's
    assert text.count('index = "https://i/simple/"') == 1
    assert 'f"\nindex = "/w"\nindex-kind = "find-links"\n' in text
    sources = [(d.index, d.index_kind) for d in again.distributions[0].dependencies]
    assert sources == [("https://i/simple/", SIMPLE_API), ("/w", FIND_LINKS)]
    earlier = lockfile.loads(text.replace('index-kind = "simple-api"\n', ""), path)
    assert earlier.distributions[0].index_kind is None  # (not recorded: inferred when syncing)
    with pytest.raises(
        LockInvalid, match='index-kind "mirror" is neither simple-api nor find-links'
    ):
        lockfile.loads(text.replace('"simple-api"', '"mirror"'), path)
    for bad in ("../outside", "/etc/passwd", "C:/x"):
        with pytest.raises(LockInvalid, match="is not a path inside the project"):
            lockfile.loads(lockwrite.dumps(lock_of(bad)), path)
    with pytest.raises(LockInvalid, match="is not a SHA-256"):
        lockfile.loads(text.replace("a" * 64, "x"), path)
    assert lockfile.read(tmp_path / "none.lock") is None


def test_the_project_is_found_walking_up(tmp_path: Path) -> None:
    (tmp_path / "agenttools.toml").write_text("")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_file(deep) == tmp_path / "agenttools.toml"
    (deep / "agenttools.toml").mkdir()  # (a directory of that name is not the file)
    assert find_project_file(deep) == tmp_path / "agenttools.toml"


def test_a_locked_entry_names_the_settings_a_user_gives_never_a_literal_or_a_value() -> None:
    from agenttools_runtime.mcp.server import MCPServer
    from agenttools_runtime.mcp.settings import Setting
    from agenttools_runtime.project_state import locking

    server = MCPServer(
        "keyed",
        command="keyed-mcp",
        env={"UNITS": "metric"},  # the author's literal: in the entry's digest, not a setting
        settings=(Setting("REGION", choices=("eu", "us")), Setting("API_KEY", secret=True)),
    )
    assert locking._setting_names(server) == ("API_KEY", "REGION")
