"""The resolver reading skills from MCP servers (our own ``agenttools serve``): in process, and
over real stdio in a subprocess."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.errors import (
    SkillNameCollision,
    SkillNotFound,
    SkillProviderFailed,
    SkillProviderSkipped,
    SkillReferenceNotFound,
)
from agenttools_runtime.serve import build_server, collect_skills
from agenttools_runtime.skilluri.providers.local import LocalSkillProvider
from agenttools_runtime.skilluri.providers.mcp import MCPSkillProvider
from agenttools_runtime.skilluri.resolver import SkillResolver
from tests.helpers.venvs import fake_distribution, fake_site, skill_files, write_tree

pytest.importorskip("mcp")

GREETING = "---\nname: greeting\ndescription: Greet.\n---\nHello $1 from $2!\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "venv")
    fake_distribution(
        path,
        "weather-tools",
        skills={
            "greeting": {"description": "Greet.", "files": {"SKILL.md": GREETING}},
            "weather-report": skill_files(
                "weather-report",
                "Report.",
                {"references/units.md": "metric\r\n", "b.bin": b"\x00\xff"},
            ),
            "shared": skill_files("shared", "From weather."),
        },
    )
    fake_distribution(path, "other-tools", skills={"shared": skill_files("shared", "From other.")})
    return path


@pytest.fixture
def server(site: Path) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build_server(collect_skills(SearchPath.for_paths([site])))


def test_in_process_provider(server: object) -> None:
    provider = MCPSkillProvider("skills-server", server)
    with SkillResolver([LocalSkillProvider([]), provider]) as resolver:
        names = [(s.name, s.path) for s in provider.skills()]
        assert names == [
            ("agenttools", "agenttools"),  # the built-in skill
            ("greeting", "greeting"),
            ("shared", "other-tools/shared"),
            ("shared", "weather-tools/shared"),
            ("weather-report", "weather-report"),
        ]
        resolved = resolver.resolve("greeting", "Ann Bob")
        assert resolved.uri == "skill://skills-server/greeting"
        assert resolved.content == GREETING.replace("$1 from $2", "Ann from Bob").encode()
        ref = resolver.resolve("skill://skills-server/weather-report/references/units.md")
        assert ref.content == b"metric\r\n"
        assert resolver.resolve("skill://skills-server/weather-report/b.bin").content == b"\x00\xff"
        manifest = json.loads(
            resolver.resolve("skill://skills-server/weather-report/_manifest").content
        )
        assert manifest["skill"] == "weather-report"
        # a namespaced skill by its full path, and by name (first path wins, reported)
        full = resolver.resolve("skill://skills-server/weather-tools/shared")
        assert b"From weather." in full.content
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            by_name = resolver.resolve("skill://skills-server/shared")
        assert b"From other." in by_name.content
        assert any(w.category is SkillNameCollision for w in caught)
        with pytest.raises(
            SkillReferenceNotFound, match=r"Reference not found: 'nope\.md' in skill 'greeting'"
        ):
            resolver.resolve("skill://skills-server/greeting/nope.md")
        with pytest.raises(
            SkillNotFound, match="Available: agenttools, greeting, shared, shared, weather-report"
        ):
            resolver.resolve("skill://skills-server/missing")


def test_local_has_priority_over_mcp(server: object, home: Path) -> None:
    write_tree(
        home / ".claude" / "skills" / "greeting",
        {"SKILL.md": "---\nname: greeting\ndescription: L.\n---\nLocal $1\n"},
    )
    with SkillResolver(
        [LocalSkillProvider([home / ".claude" / "skills"]), MCPSkillProvider("srv", server)]
    ) as resolver:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resolved = resolver.resolve("greeting", "x")
        assert resolved.provider == "local" and resolved.content.endswith(b"Local x\n")
        assert resolved.also_provided_by == ("srv",)
        assert any("using skill://local/greeting" in str(w.message) for w in caught)


def test_an_unreachable_server(home: Path, tmp_path: Path) -> None:
    write_tree(
        home / ".claude" / "skills" / "mine",
        {"SKILL.md": "---\nname: mine\ndescription: M.\n---\n"},
    )
    dead = MCPSkillProvider("dead", [sys.executable, "-c", "import sys; sys.exit(3)"], timeout=20)
    with SkillResolver([LocalSkillProvider([home / ".claude" / "skills"]), dead]) as resolver:
        with pytest.raises(SkillProviderFailed, match="The skill provider 'dead' failed"):
            resolver.resolve("skill://dead/x")
        # a bare name still resolves; the dead server is reported, not fatal
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert resolver.resolve("mine").provider == "local"
            listing = resolver.list_skills()
        assert any(w.category is SkillProviderSkipped for w in caught)
        assert listing.providers[1].error is not None


def test_usable_from_inside_an_event_loop(server: object) -> None:
    import anyio

    async def main() -> bytes:
        with SkillResolver([MCPSkillProvider("srv", server)]) as resolver:
            return resolver.resolve("greeting", "A B").content

    assert anyio.run(main).endswith(b"Hello A from B!\n")


@pytest.mark.slow
def test_resolver_reads_our_server_over_stdio(
    site: Path, home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """`agenttools skill --mcp` against `python -m agenttools serve` in a subprocess; one
    server start-up serves the listing and every read until the resolver is closed."""
    from agenttools_runtime.cli import main

    starts = tmp_path / "starts.txt"
    launcher = (
        "import runpy, sys; "
        f"open({str(starts)!r}, 'a').write('x'); "
        f"sys.argv = ['agenttools', 'serve', '--path', {str(site)!r}]; "
        "runpy.run_module('agenttools', run_name='__main__')"
    )
    with SkillResolver(
        [MCPSkillProvider("agenttools", [sys.executable, "-c", launcher])]
    ) as resolver:
        resolved = resolver.resolve("skill://agenttools/greeting", "Ann Bob")
        assert resolved.content == (
            b"---\nname: greeting\ndescription: Greet.\n---\nHello Ann from Bob!\n"
        )
        assert resolver.resolve("weather-report/references/units.md").content == b"metric\r\n"
        assert resolver.resolve("weather-report/b.bin").content == b"\x00\xff"
    assert starts.read_text() == "x"

    command = f"{sys.executable} -m agenttools serve --path {site}"
    status = main(
        [
            "skill",
            "--no-local",
            "--path",
            str(tmp_path / "empty"),
            "--mcp",
            f"srv={command}",
            "--list",
        ]
    )
    out = capfd.readouterr().out
    assert status == 0
    assert "## srv (5 skills)" in out and "URI: `skill://srv/weather-tools/shared`" in out


def test_prompts_are_skills_too() -> None:
    """AgentPool's "MCP prompt-based skills": skill://server/prompt renders the prompt."""
    from mcp.server.mcpserver import MCPServer

    from agenttools_runtime.serve import ServedSkill

    greeting = ServedSkill(
        "greeting", "greeting", "t", "Greet.", {"name": "greeting"}, {"SKILL.md": GREETING.encode()}
    )
    server = build_server([greeting])
    assert isinstance(server, MCPServer)

    @server.prompt(description="Review code for a language.")
    def code_review(language: str, focus: str = "bugs") -> str:
        return f"Review this {language} code, focus on {focus}."

    @server.prompt(description="Summarize text.")
    def summarize(text: str) -> str:
        return f"Summarize: {text}"

    @server.prompt(name="greeting", description="Shadowed by the resource skill of that name.")
    def greeting_prompt() -> str:
        return "never"

    with SkillResolver([MCPSkillProvider("copilot", server)]) as resolver:
        listing = resolver.list_skills().render()
        assert listing.count("**greeting**") == 1
        assert (
            "- **code_review**: Review code for a language.\n  URI: `skill://copilot/code_review`"
            in listing
        )
        review = resolver.resolve("skill://copilot/code_review", "python security issues")
        assert review.content == b"Review this python code, focus on security issues."
        assert (
            resolver.resolve("code_review", "go").content == b"Review this go code, focus on bugs."
        )
        # a single argument takes the whole string
        summary = resolver.resolve("summarize", "a b  c").content
        assert summary == b"Summarize: a b  c"
        # the resource skill wins over a prompt of the same name
        assert resolver.resolve("greeting", "A B").content.endswith(b"Hello A from B!\n")
        with pytest.raises(SkillReferenceNotFound):
            resolver.resolve("skill://copilot/summarize/notes.md")
        with pytest.raises(SkillProviderFailed, match="could not be rendered"):
            resolver.resolve("code_review")  # a required argument is missing


DYING_SERVER = """
import os
from mcp.server import MCPServer

server = MCPServer("dying")


@server.resource("skill://hi/SKILL.md", mime_type="text/markdown", description="Hi.")
def hi() -> str:
    os._exit(3)  # the server dies while answering


server.run()
"""


def test_a_server_that_dies_mid_read_is_a_failure_not_a_missing_file(tmp_path: Path) -> None:
    script = tmp_path / "dying.py"
    script.write_text(DYING_SERVER)
    provider = MCPSkillProvider("dying", [sys.executable, str(script)])
    with SkillResolver([provider]) as resolver:
        assert [s.name for s in provider.skills()] == ["hi"]
        with pytest.raises(SkillProviderFailed, match="The skill provider 'dying' failed"):
            resolver.resolve("skill://dying/hi")


SILENT_SERVER = """
import time
time.sleep(600)  # never answers
"""


def _running(script: Path) -> list[int]:
    """The live processes running *script* (found by command line: a loaded machine can
    start the server after the provider gave up, or never)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().split(") ")[-1][:1]
        except OSError:  # not a process, or it ended meanwhile
            continue
        if os.fsencode(script) in argv and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_server_that_never_answers_is_stopped(tmp_path: Path) -> None:
    import signal
    import time

    script = tmp_path / "silent.py"
    script.write_text(SILENT_SERVER)
    provider = MCPSkillProvider("silent", [sys.executable, str(script)], timeout=2)
    try:
        with pytest.raises(SkillProviderFailed, match=r"no answer within 2 s"):
            provider.skills()
        # generous under load, and far from the server's own end after 600 s
        deadline = time.monotonic() + 120
        while _running(script) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(script), "the server was left running"
    finally:
        for pid in _running(script):
            os.kill(pid, signal.SIGKILL)


FASTMCP_SERVER = """
import sys
from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

server = FastMCP("fastmcp-skills")
server.add_provider(SkillsDirectoryProvider([sys.argv[1]]))
server.run(show_banner=False, log_level="ERROR")
"""


@pytest.mark.slow
@pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("fastmcp") is None, reason="needs fastmcp"
)
def test_resolver_reads_a_fastmcp_skills_server(tmp_path: Path) -> None:
    """FastMCP's own skills provider over real stdio, nested skill paths included."""
    root = tmp_path / "skills"
    write_tree(
        root,
        {
            "pdf-processing/SKILL.md": "---\nname: pdf-processing\ndescription: PDFs.\n---\n$1\n",
            "pdf-processing/scripts/extract.py": "print('hi')\r\n",
            "pdf-processing/logo.png": b"\x89PNG\x00\xff",
            "ops/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy.\n---\nGo\n",
        },
    )
    script = tmp_path / "server.py"
    script.write_text(FASTMCP_SERVER)
    server = [sys.executable, str(script), str(root)]
    with SkillResolver([MCPSkillProvider("fm", server)]) as resolver:
        listing = resolver.list_skills().render()
        assert "## fm (2 skills)" in listing and "URI: `skill://fm/ops/deploy`" in listing
        assert resolver.resolve("pdf-processing", "x").content.endswith(b"---\nx\n")
        assert resolver.resolve("pdf-processing/logo.png").content == b"\x89PNG\x00\xff"
        extract = resolver.resolve("skill://fm/pdf-processing/scripts/extract.py")
        assert extract.content == b"print('hi')\r\n"
        assert resolver.resolve("deploy").uri == "skill://fm/ops/deploy"
        manifest = json.loads(resolver.resolve("pdf-processing/_manifest").content)
        assert [f["path"] for f in manifest["files"]] == [
            "SKILL.md",
            "logo.png",
            "scripts/extract.py",
        ]
        with pytest.raises(SkillReferenceNotFound):
            resolver.resolve("pdf-processing/nope.md")


def test_names_with_control_characters_are_not_skills() -> None:
    """A server cannot forge lines of the listing an agent reads."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("forger")

    @server.resource("skill://evil%0A-%20**forged**/SKILL.md", description="E.")
    def forged_resource() -> str:
        return "x"

    @server.prompt(name="p\n- **forged**: injected", description="P.")
    def forged_prompt() -> str:
        return "x"

    @server.prompt(name="fine", description="F.")
    def fine() -> str:
        return "fine"

    with SkillResolver([MCPSkillProvider("srv", server)]) as resolver:
        listing = resolver.list_skills().render()
        assert "forged" not in listing
        assert listing.endswith("## srv (1 skill)\n- **fine**: F.\n  URI: `skill://srv/fine`")


def test_a_server_without_skills_has_none() -> None:
    """A plain tools server (no resources, no prompts) is a provider with no skills, not a
    failure."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("tools-only")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    with SkillResolver([MCPSkillProvider("tools", server)]) as resolver:
        assert resolver.list_skills().providers[0].skills == ()
        with pytest.raises(SkillNotFound, match=r"Available: \(none\)"):
            resolver.resolve("skill://tools/anything")


@pytest.mark.parametrize(
    ("command", "posix", "words"),
    [
        ("uvx docs-mcp --name 'a b'", True, ["uvx", "docs-mcp", "--name", "a b"]),
        # Windows: backslashes are path separators, double quotes group
        (r"C:\tools\docs.exe --x", False, [r"C:\tools\docs.exe", "--x"]),
        (
            r'"C:\Program Files\py\python.exe" -m srv',
            False,
            [r"C:\Program Files\py\python.exe", "-m", "srv"],
        ),
    ],
)
def test_server_command_lines(command: str, posix: bool, words: list[str]) -> None:
    from agenttools_runtime.skilluri.mcp_client import split_command

    assert split_command(command, posix=posix) == words
