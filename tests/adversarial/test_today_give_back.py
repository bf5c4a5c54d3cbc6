"""Adversarial: deploy then remove (and mcp install then uninstall) gives the config file back
byte for byte, for every format, now that what a write adds is learned by removing the new
entry from the written text (``deploy/litter.py``, no probe entry).

Hypothesis draws config texts from fragments of each format (containers null, ``[ ]``,
``{ }``, missing; comments, BOM, CRLF, mixed newlines, tabs, trailing white space, document
markers) and entry keys that need quoting; each text the CLI accepts goes through the real
``mcp install`` + ``mcp uninstall`` and ``deploy`` + ``remove`` under a home of its own, and
the home must come back byte for byte. A text the CLI refuses must be left as it was. Then
the cases one example cannot reach: two writers in one file, the user's change elsewhere
meanwhile, a give-back whose context is ambiguous for more than its 160 characters."""

from __future__ import annotations

import codecs
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenttools_runtime.cli import main
from tests.helpers.fuzz import fuzz
from tests.helpers.venvs import environment_scripts, fake_distribution, fake_site

BOM = codecs.BOM_UTF8.decode("utf-8")

# client -> (its config file, home-relative; its format)
CLIENTS = {
    "claude-code": (".claude.json", "json"),
    "zed": (".config/zed/settings.json", "json"),
    "opencode": (".config/opencode/opencode.json", "json"),
    "gemini-cli": (".gemini/settings.json", "json"),
    "codex": (".codex/config.toml", "toml"),
    "goose": (".config/goose/config.yaml", "yaml"),
    "continue": (".continue/config.yaml", "yaml"),
}
CONTAINER_KEYS = ['"mcpServers"', '"context_servers"', '"mcp"', '"a"', '"theme"']
WS = st.lists(st.sampled_from([" ", "\t", "\n", "\r\n", "// c\n", "/* c */"]), max_size=3).map(
    "".join
)
JSON_VALUES = st.sampled_from(
    ["null", "{}", "{ }", "{\n}", "[ ]", "1", '"s"', '{"mcpServers": null}', '{"o": {}}']
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """An object (or now and then not one) of members whose keys are the containers', with
    white space, comments and a trailing comma anywhere they may go."""
    members = []
    for _ in range(draw(st.integers(0, 3))):
        key, value = draw(st.sampled_from(CONTAINER_KEYS)), draw(JSON_VALUES)
        members.append(draw(WS) + key + draw(WS) + ":" + draw(WS) + value + draw(WS))
    inside = ",".join(members) + ("," if members and draw(st.booleans()) else "")
    text = draw(WS) + "{" + inside + draw(WS) + "}" + draw(WS)
    return draw(st.sampled_from([text, text, text, "", draw(WS)]))


# the lines of a TOML and a YAML file, joined with a newline each and trailing blanks
LINES = {
    "toml": [
        "[mcp_servers]",
        "[mcp_servers.o]",
        'command = "x"',
        "a = 1",
        "mcp_servers = {}",
        'mcp_servers.o.command = "x"',
        "[b]",
        "[[arr]]",
        "# c",
        "",
    ],
    "yaml": [
        "extensions:",
        "extensions: null",
        "extensions: ~  # c",
        "extensions: {}",
        "extensions: { }",
        "mcpServers:",
        "mcpServers: []",
        "mcpServers: [ ]  # c",
        "mcpServers: null",
        "  o:",
        "    cmd: x",
        "  - name: o",
        "    command: x",
        "a: 1",
        "name: x",
        "version: 1",
        "schema: v1",
        "---",
        "...",
        "# c",
        "",
    ],
}


@st.composite
def line_texts(draw: st.DrawFn, fmt: str) -> str:
    newline = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    text = ""
    for line in draw(st.lists(st.sampled_from(LINES[fmt]), max_size=7)):
        end = draw(st.sampled_from(["\n", "\r\n"])) if newline == "mixed" else newline
        text += line + draw(st.sampled_from(["", "", " ", "  \t"])) + end
    if text and draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final newline
    return text


KEYS = st.sampled_from(["weather", "we.ather", "a b", "yes", "1", "\u00e9t\u00e9"])


@st.composite
def config_texts(draw: st.DrawFn, client: str) -> str:
    """A text of *client*'s format, now and then with a BOM."""
    fmt = CLIENTS[client][1]
    text = draw(json_texts() if fmt == "json" else line_texts(fmt))
    if draw(st.booleans()) and draw(st.booleans()):
        text = BOM + text
    return text


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under *root*: a file's bytes, None for a directory."""
    return {
        str(p.relative_to(root)): None if p.is_dir() and not p.is_symlink() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


@contextlib.contextmanager
def own_home() -> Iterator[Path]:
    """A home and state directory of one hypothesis example (the test's fixtures are the
    test's, shared by all its examples)."""
    saved = {name: os.environ.get(name) for name in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME")}
    with tempfile.TemporaryDirectory(prefix="adv-home-") as top:
        home = Path(top) / "home"
        home.mkdir()
        os.environ["HOME"] = os.environ["USERPROFILE"] = str(home)
        os.environ["AGENTTOOLS_HOME"] = str(Path(top) / "state")
        try:
            yield home
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``weather-tools`` (one server with an environment variable, so its entry is nested),
    its environment's scripts first on the PATH."""
    site = fake_site(tmp_path_factory.mktemp("venv"))
    server = {"command": "weather-mcp", "args": ["-v"], "env": {"UNITS": "metric"}}
    fake_distribution(site, "weather-tools", servers={"weather": server})
    scripts = environment_scripts(site)
    assert scripts is not None
    saved = os.environ["PATH"]
    os.environ["PATH"] = os.pathsep.join([str(scripts), saved])
    yield site
    os.environ["PATH"] = saved


def cli(*argv: str) -> int:
    with contextlib.redirect_stdout(open(os.devnull, "w")) as out, contextlib.redirect_stderr(out):
        return main(list(argv))


def write(home: Path, client: str, text: str) -> Path:
    config = home / CLIENTS[client][0]
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(text.encode("utf-8"))
    return config


def round_trip(home: Path, client: str, text: str, write_argv: list[str], undo: list[str]) -> None:
    write(home, client, text)
    before = tree(home)
    status = cli(*write_argv)
    if status != 0:  # refused (not parseable, not a mapping): left as it was
        assert tree(home) == before, (client, text)
        return
    assert cli(*undo) == 0, (client, text)
    assert tree(home) == before, (client, text)


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_mcp_install_then_uninstall_gives_any_text_back(client: str, site: Path) -> None:
    @fuzz(ci_examples=40)
    @given(text=config_texts(client), key=KEYS)
    def check(text: str, key: str) -> None:
        with own_home() as home:
            install = ["mcp", "install", client, "weather-tools/weather", "--path", str(site)]
            undo = ["mcp", "uninstall", client, key]
            round_trip(home, client, text, [*install, "--name", key], undo)

    check()


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_deploy_then_remove_gives_any_text_back(client: str, site: Path) -> None:
    @fuzz(ci_examples=25)
    @given(text=config_texts(client))
    def check(text: str) -> None:
        with own_home() as home:
            deploy = ["deploy", client, "weather-tools", "--no-skills", "--path", str(site)]
            round_trip(home, client, text, deploy, ["remove", "--all"])

    check()


# -- named cases -----------------------------------------------------------------------------

CASES = [
    ("claude-code", BOM + '{\r\n  "mcpServers": null\r\n}\r\n'),
    ("claude-code", '{"mcpServers": [ ]}'),  # refused: a list is no object
    ("claude-code", '{"mcpServers": { \t }}   \n\n'),
    ("claude-code", BOM + "  \r\n"),
    ("claude-code", '{"a": 1}\n\n\n   '),
    ("zed", BOM + '// mine\r\n{\r\n  "context_servers": null, // later\r\n}\r\n'),
    ("zed", '{\n  "context_servers": /* none yet */ null\n}'),
    ("opencode", '{"$schema": "https://opencode.ai/config.json", "mcp": null}'),
    ("codex", BOM + 'model = "o3"\r\n\r\n[mcp_servers]\r\n'),
    ("codex", "[mcp_servers]   # mine\n\n\n[profiles.x]\nmodel = 'o3'   \n"),
    ("codex", "   \n\t\n"),
    ("goose", BOM + "extensions: ~   # later\r\nx: 1\r\n"),
    ("goose", "---\nextensions: { }\n...\n"),
    ("continue", "mcpServers: [ ]   # mine\r\nname: x\r\n"),
    ("continue", BOM + "name: mine\nversion: 0.1\nschema: v1\nmcpServers: null\n"),
    *[(c, BOM + ws) for c in ("zed", "codex", "goose", "continue") for ws in ("\r\n", " \t ")],
    ("codex", "# only a comment, no newline"),
    ("goose", "# only a comment\r\n\r\n"),
    ("zed", "/* only a comment */"),
    ("opencode", '{"mcp": {}, "mcp": null}'),  # a duplicate key: the last one counts
    ("claude-code", '{"mcpServers": null, "mcpServers": {}}'),
]


@pytest.mark.parametrize(
    ("client", "text"), CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)]
)
def test_named_edge_texts_come_back_through_both_commands(
    client: str, text: str, site: Path
) -> None:
    for key in ("weather", "we.ather"):
        with own_home() as home:
            install = ["mcp", "install", client, "weather-tools/weather", "--name", key]
            undo = ["mcp", "uninstall", client, key]
            round_trip(home, client, text, [*install, "--path", str(site)], undo)
    with own_home() as home:
        deploy = ["deploy", client, "weather-tools", "--no-skills", "--path", str(site)]
        round_trip(home, client, text, deploy, ["remove", "--all"])


def test_a_deploy_and_an_mcp_install_in_one_file_give_it_back_in_either_order(
    site: Path,
) -> None:
    """The deploy's write made the null container an object; the install after it found it
    one. Whichever goes last puts ``null`` back."""
    text = '{\n  "theme": "x",\n  "mcpServers": null\n}\n'
    deploy = ["deploy", "claude-code", "weather-tools", "--no-skills", "--path", str(site)]
    install = ["mcp", "install", "claude-code", "weather-tools/weather", "--name", "w2"]
    install += ["--path", str(site)]
    for undo_order in (
        [["remove", "--all"], ["mcp", "uninstall", "claude-code", "w2"]],
        [["mcp", "uninstall", "claude-code", "w2"], ["remove", "--all"]],
    ):
        with own_home() as home:
            config = write(home, "claude-code", text)
            assert cli(*deploy) == 0 and cli(*install) == 0
            first, second = undo_order
            assert cli(*first) == 0
            assert "null" not in config.read_text()  # the other entry is still there
            assert cli(*second) == 0
            assert config.read_text() == text, undo_order


def test_the_users_change_elsewhere_stays_and_the_null_comes_back(site: Path) -> None:
    with own_home() as home:
        config = write(home, "goose", "# mine\nextensions: null\nGOOSE_MODEL: a\n")
        install = ["mcp", "install", "goose", "weather-tools/weather", "--path", str(site)]
        assert cli(*install) == 0
        config.write_text(config.read_text().replace("GOOSE_MODEL: a", "GOOSE_MODEL: b"))
        assert cli("mcp", "uninstall", "goose", "weather") == 0
        assert config.read_text() == "# mine\nextensions: null\nGOOSE_MODEL: b\n"


def test_a_give_back_ambiguous_beyond_its_context_still_finds_its_place(site: Path) -> None:
    """The text before the null container is repeated, 200 characters of it, in front of an
    empty ``mcpServers`` object deeper down: the give-back's ``{}`` cannot be told apart by
    the 160 characters around it, and the removal must still put ``null`` where it was."""
    pad = "p" * 200
    text = (
        '{"z": {"pad": "' + pad + '", "mcpServers": {}}, "pad": "' + pad + '", '
        '"mcpServers": null}\n'
    )
    with own_home() as home:
        round_trip(
            home,
            "claude-code",
            text,
            ["mcp", "install", "claude-code", "weather-tools/weather", "--path", str(site)],
            ["mcp", "uninstall", "claude-code", "weather"],
        )


def test_a_config_that_was_never_written_is_not_touched_by_the_cleanup(site: Path) -> None:
    """An identical redeploy writes nothing; removing it gives back the first write's text,
    and a second remove of nothing changes nothing."""
    with own_home() as home:
        text = '{"mcpServers": null}'
        config = write(home, "claude-code", text)
        deploy = ["deploy", "claude-code", "weather-tools", "--no-skills", "--path", str(site)]
        assert cli(*deploy) == 0 and cli(*deploy) == 0
        assert cli("remove", "--all") == 0
        assert config.read_text() == text
        assert cli("remove", "--all") in (0, 1)
        assert config.read_text() == text


@pytest.mark.parametrize("client", ["goose", "continue"])
def test_a_yaml_text_the_reader_takes_is_never_written_unparsable(client: str, site: Path) -> None:
    text = "\n\n\t... a: b"
    with own_home() as home:
        install = ["mcp", "install", client, "weather-tools/weather", "--path", str(site)]
        round_trip(home, client, text, install, ["mcp", "uninstall", client, "weather"])


# -- the writes that still learn from a probe entry, and the ones around them ----------------

TWO_SERVERS = {
    "weather": {"command": "weather-mcp", "env": {"UNITS": "metric"}},
    "alerts": {"command": "alerts-mcp", "args": ["--quiet"]},
}
EDGES = [
    ("claude-code", BOM + '{\r\n  "mcpServers": null\r\n}\r\n'),
    ("zed", '// mine\n{\n  "context_servers": { } // none\n}   \n'),
    ("codex", "model = 'o3'   \r\n\r\n"),
    ("goose", "extensions: ~\nx: 1"),
    ("continue", "mcpServers: [ ]\n"),
]
EDGE_IDS = [f"{c}-{i}" for i, (c, _) in enumerate(EDGES)]


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = fake_site(tmp_path_factory.mktemp("venv2"))
    fake_distribution(site, "storm-tools", servers=TWO_SERVERS)
    scripts = environment_scripts(site)
    assert scripts is not None
    saved = os.environ["PATH"]
    os.environ["PATH"] = os.pathsep.join([str(scripts), saved])
    yield site
    os.environ["PATH"] = saved


@pytest.mark.parametrize(("client", "text"), EDGES, ids=EDGE_IDS)
def test_a_deploy_of_two_servers_at_once_gives_the_file_back(
    client: str, text: str, two_servers: Path
) -> None:
    with own_home() as home:
        deploy = ["deploy", client, "storm-tools", "--no-skills", "--path", str(two_servers)]
        round_trip(home, client, text, deploy, ["remove", "--all"])


@pytest.mark.parametrize(("client", "text"), EDGES, ids=EDGE_IDS)
def test_an_upgraded_deployment_gives_the_file_back_when_removed(
    client: str, text: str, tmp_path: Path
) -> None:
    """Deployed at 1.0, upgraded to 2.0 whose entry differs (replaced: the write that still
    learns from a probe entry), removed."""
    site = fake_site(tmp_path / "venv")
    fake_distribution(site, "weather-tools", "1.0.0", servers={"weather": {"command": "w-mcp"}})
    scripts = environment_scripts(site)
    assert scripts is not None
    with own_home() as home:
        write(home, client, text)
        before = tree(home)
        deploy = ["deploy", client, "weather-tools", "--no-skills", "--path", str(site)]
        saved = os.environ["PATH"]
        os.environ["PATH"] = os.pathsep.join([str(scripts), saved])
        try:
            assert cli(*deploy) == 0
            first = (home / CLIENTS[client][0]).read_bytes()
            shutil.rmtree(site / "weather_tools-1.0.0.dist-info")  # pip install -U
            server = {"command": "w-mcp", "args": ["--v2"], "env": {"NEW": "1"}}
            fake_distribution(site, "weather-tools", "2.0.0", servers={"weather": server})
            assert cli(*deploy, "--upgrade") == 0
            assert (home / CLIENTS[client][0]).read_bytes() != first  # replaced
            assert cli("remove", "--all") == 0
        finally:
            os.environ["PATH"] = saved
        assert tree(home) == before


def test_the_users_entry_replaced_with_force_comes_back_with_the_null_beside_it(
    site: Path,
) -> None:
    """A file with the user's own ``weather`` entry in a YAML list, and another container
    null: deploy --force, then remove: the user's entry as it was, byte for byte."""
    text = "name: mine\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: weather  # mine\n    command: old\nmodels: ~\n"
    with own_home() as home:
        config = write(home, "continue", text)
        deploy = ["deploy", "continue", "weather-tools", "--no-skills", "--path", str(site)]
        assert cli(*deploy) == 1  # the user's entry: a conflict without --force
        assert config.read_text() == text
        assert cli(*deploy, "--force") == 0
        assert "old" not in config.read_text()
        assert cli("remove", "--all") == 0
        assert config.read_text() == text


def test_a_linked_config_file_gets_its_bytes_back_and_stays_a_link(site: Path) -> None:
    with own_home() as home:
        real = home / "dotfiles" / "claude.json"
        real.parent.mkdir()
        real.write_bytes(b'{"mcpServers": null}\r\n')
        (home / ".claude.json").symlink_to(real)
        before = tree(home)
        deploy = ["deploy", "claude-code", "weather-tools", "--no-skills", "--path", str(site)]
        assert cli(*deploy) == 0
        assert b"weather" in real.read_bytes()
        assert cli("remove", "--all") == 0
        assert tree(home) == before
        assert os.readlink(home / ".claude.json") == str(real)


@pytest.mark.parametrize("client", ["claude-code", "codex", "goose", "continue"])
def test_an_identical_entry_the_user_wrote_is_still_there_after_remove(
    client: str, site: Path
) -> None:
    """The user's file already holds exactly the entry a deploy would write (copied from a
    teammate's): the deploy changes nothing, and its removal must not take the user's
    entry away."""
    with own_home() as home:
        deploy = ["deploy", client, "weather-tools", "--no-skills", "--path", str(site)]
        assert cli(*deploy) == 0
        written = (home / CLIENTS[client][0]).read_bytes()
    with own_home() as home:
        config = write(home, client, written.decode("utf-8"))
        assert cli(*deploy) == 0
        assert config.read_bytes() == written
        assert cli("remove", "--all") == 0
        assert config.read_bytes() == written


@pytest.mark.parametrize(
    "text",
    ["base: &b {}\nextensions: *b\n", "extensions: &b {}\nother: *b\n"],
    ids=["alias", "anchor"],
)
def test_an_anchored_or_aliased_yaml_container_is_given_back_or_left_alone(
    text: str, site: Path
) -> None:
    with own_home() as home:
        install = ["mcp", "install", "goose", "weather-tools/weather", "--path", str(site)]
        write(home, "goose", text)
        before = tree(home)
        status = main_status(install)
        if status != 0:
            assert tree(home) == before
            return
        assert main_status(["mcp", "uninstall", "goose", "weather"]) == 0
        assert tree(home) == before


def main_status(argv: list[str]) -> int:
    """:func:`cli`, with what escapes the CLI's error boundary (a traceback a user would
    see) as a failure of its own."""
    try:
        return cli(*argv)
    except Exception as exc:  # (main() lets it through: python -m agenttools prints it)
        raise AssertionError(f"{argv}: a traceback: {exc!r}") from exc


@pytest.mark.parametrize(
    "text",
    [
        "<<: {extensions: {}}\n",
        "extensions:\n  <<: {o: {cmd: x}}\n",
        "extensions: !!omap\n- a: 1\n",
    ],
    ids=["merge-key", "merge-key-inside", "omap"],
)
@pytest.mark.parametrize("command", ["mcp install", "deploy"])
def test_a_yaml_merge_key_is_a_clear_error_not_a_traceback(
    command: str, text: str, site: Path
) -> None:
    if command == "deploy":
        argv = ["deploy", "goose", "weather-tools", "--no-skills", "--path", str(site)]
    else:
        argv = ["mcp", "install", "goose", "weather-tools/weather", "--path", str(site)]
    with own_home() as home:
        write(home, "goose", text)
        before = tree(home)
        assert main_status(argv) in (0, 1)
        assert tree(home) == before or main_status(["remove", "--all"]) == 0


@pytest.mark.parametrize(
    ("client", "relative", "text"),
    [
        ("claude-code", ".mcp.json", BOM + '{\r\n  "mcpServers": null\r\n}\r\n'),
        ("claude-code", ".mcp.json", "  \n"),
        ("vscode", ".vscode/mcp.json", '{\n  "servers": { }, // mine\n  "inputs": []\n}'),
        ("claude-code", ".mcp.json", '{"mcpServers": {}}   '),
    ],
    ids=["bom-crlf-null", "white-space", "jsonc-spaced", "trailing-blanks"],
)
def test_a_project_file_gets_its_bytes_back(
    client: str, relative: str, text: str, site: Path, tmp_path: Path
) -> None:
    with own_home():
        project = tmp_path / "project"
        config = project / relative
        config.parent.mkdir(parents=True)
        config.write_bytes(text.encode("utf-8"))
        before = tree(project)
        deploy = ["deploy", client, "weather-tools", "--no-skills", "--project", str(project)]
        assert cli(*deploy, "--runner", "python", "--path", str(site)) == 0
        assert config.read_bytes() != text.encode("utf-8")
        assert cli("remove", "--all") == 0
        assert tree(project) == before
