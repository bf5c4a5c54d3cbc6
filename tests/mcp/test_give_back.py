"""What agenttools adds to a client's config file and then takes away leaves the file byte for
byte as it was — or absent, with no directory left, if it was absent. A corpus of edge-case
files for every client format (JSON, JSONC, TOML, YAML mapping and YAML list containers):
null containers, empty containers with space inside, empty and whitespace-only files, a BOM,
comments, flow style, missing containers and required keys; each through ``mcp install`` +
``mcp uninstall`` and through a tracked ``deploy`` + ``remove``, compared byte for byte. A
dangling link is refused (nothing created where it points), and an install into an empty
home leaves nothing that makes detection call the client installed."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.clients import get_client
from agenttools_runtime.detection import detect
from tests.helpers.venvs import activate, fake_distribution, fake_site

ABSENT = None  # the file does not exist
BOM = codecs.BOM_UTF8.decode("utf-8")

# client -> (the config file, home-relative; its edge cases)
CORPUS: dict[str, tuple[str, list[str | None]]] = {
    "claude-code": (
        ".claude.json",
        [
            ABSENT,
            "",
            "  \n",
            "\n\n\n",
            "{}",
            "{}\n",
            '{"a": 1}',
            '{\n  "a": 1\n}\n',
            '{"a": 1, "mcpServers": { }}\n',
            '{"mcpServers": null}\n',
            '{\n  "mcpServers": {\n  }\n}\n',
            BOM + '{"a": 1}\n',
            BOM,
        ],
    ),
    "gemini-cli": (".gemini/settings.json", [ABSENT, "\t\n", '{\n  "theme": "dark"\n}\n']),
    "zed": (  # JSONC
        ".config/zed/settings.json",
        [
            ABSENT,
            "",
            " \n",
            '// Zed settings\n{\n  "theme": "One Dark"\n}\n',
            '{\n  "theme": "One Dark", // mine\n}\n',
            '{\n  /* block */ "context_servers": null\n}\n',
        ],
    ),
    "codex": (  # TOML
        ".codex/config.toml",
        [
            ABSENT,
            "",
            "\n",
            "\n\n# comment\n",
            'model = "o3"\n',
            'model = "o3"  # the default\n\n[other]\nx = 1\n',
            "[mcp_servers]\n",
        ],
    ),
    "goose": (  # YAML, a mapping of entries
        ".config/goose/config.yaml",
        [
            ABSENT,
            "",
            "  \n",
            "extensions:\n",
            "extensions:\nother: 1\n",
            "extensions: # mine\n",
            "extensions: { } # mine\n",
            "extensions: {}\n",
            "GOOSE_MODEL: x  # model\n",
        ],
    ),
    "continue": (  # YAML, a list of entries; name/version/schema required
        ".continue/config.yaml",
        [
            ABSENT,
            "",
            "models: []\n",
            "mcpServers: [ ] # mine\n",
            "mcpServers: [] # mine\n",
            "mcpServers:\n",
            "name: x\nversion: 1.0.0\nschema: v1\nmcpServers: [{name: a, command: b}] # mine\n",
        ],
    ),
    "opencode": (".config/opencode/opencode.json", [ABSENT, "", '{\n  "model": "x"\n}\n']),
}
CASES = [(c, i) for c, (_, texts) in CORPUS.items() for i in range(len(texts))]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = fake_site(tmp_path / "venv")
    fake_distribution(
        site, "weather-tools", servers={"weather": {"command": "weather-mcp", "args": ["-v"]}}
    )
    activate(monkeypatch, site)  # (its servers' commands: console scripts there)
    return site


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under *root*: a file's bytes, None for a directory."""
    return {
        str(p.relative_to(root)): None if p.is_dir() and not p.is_symlink() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> None:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0, (argv, out, err)


def prepare(home: Path, client: str, index: int) -> tuple[Path, dict[str, bytes | None]]:
    rel, texts = CORPUS[client]
    config = home / rel
    text = texts[index]
    if text is not None:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_bytes(text.encode("utf-8"))
    return config, tree(home)


@pytest.mark.parametrize(("client", "index"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_mcp_install_then_uninstall_gives_the_file_back(
    client: str, index: int, site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, before = prepare(home, client, index)
    run(capsys, "mcp", "install", client, "weather-tools/weather", "--path", str(site))
    assert config.read_bytes() != before.get(str(config.relative_to(home)))  # it was written
    run(capsys, "mcp", "uninstall", client, "weather")
    assert tree(home) == before


@pytest.mark.parametrize(("client", "index"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_deploy_then_remove_gives_the_file_back(
    client: str, index: int, site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, before = prepare(home, client, index)
    run(capsys, "deploy", client, "weather-tools", "--no-skills", "--path", str(site))
    assert config.exists()
    run(capsys, "remove", "--all")
    assert tree(home) == before


def test_two_installs_are_taken_back_by_the_last_uninstall(
    site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file two entries were written into comes back when the second is gone, not before."""
    config, before = prepare(home, "zed", 3)
    run(capsys, "mcp", "install", "zed", "weather-tools/weather", "--path", str(site))
    run(
        capsys,
        "mcp",
        "install",
        "zed",
        "weather-tools/weather",
        "--name",
        "w2",
        "--path",
        str(site),
    )
    run(capsys, "mcp", "uninstall", "zed", "weather")
    assert '"w2"' in config.read_text() and "context_servers" in config.read_text()
    run(capsys, "mcp", "uninstall", "zed", "w2")
    assert tree(home) == before


def test_a_file_the_user_changed_meanwhile_keeps_their_change(
    site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the user added is theirs: the container stays around it, their key stays."""
    config, _ = prepare(home, "zed", 3)
    run(capsys, "mcp", "install", "zed", "weather-tools/weather", "--path", str(site))
    config.write_text(config.read_text().replace('"theme"', '"vim_mode": true,\n  "theme"'))
    run(capsys, "mcp", "uninstall", "zed", "weather")
    text = config.read_text()
    assert '"vim_mode": true' in text and '"theme": "One Dark"' in text and "weather" not in text


def test_an_empty_home_stays_empty_and_undetected(
    site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mcp install`` then ``mcp uninstall`` into a home without the client: no file, no
    folder, and detection does not call the client installed, meanwhile or after."""
    for client in CORPUS:
        run(capsys, "mcp", "install", client, "weather-tools/weather", "--path", str(site))
        assert not detect(get_client(client)).traces  # only agenttools created the file
        run(capsys, "mcp", "uninstall", client, "weather")
        assert tree(home) == {}, client
        assert not detect(get_client(client)).detected


def test_a_dangling_link_is_refused_and_nothing_is_created(
    site: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".claude.json"
    config.symlink_to(home / "dotfiles" / "claude.json")
    for argv in (
        ("mcp", "install", "claude-code", "weather-tools/weather", "--path", str(site)),
        ("deploy", "claude-code", "weather-tools", "--no-skills", "--path", str(site)),
    ):
        assert main(list(argv)) == 1
        err = capsys.readouterr().err
        assert "symbolic link to" in err and "which does not exist" in err, err
    assert not (home / "dotfiles").exists()
    assert os.readlink(config) == str(home / "dotfiles" / "claude.json")
    run(capsys, "mcp", "uninstall", "claude-code", "weather")  # nothing there: not an error
