"""``agenttools serve``: our server read by the official MCP client (every digest verified),
by FastMCP's own client (``read_skill`` checks sizes and digests: the interoperability proof),
and the SEP-2640 methods."""

from __future__ import annotations

import base64
import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.errors import ServedSkillsNamespaced, SkillNotServed, SkillProviderSkipped
from agenttools_runtime.serve import build_server, collect_skills
from tests.helpers.venvs import fake_distribution, skill_files, write_tree

mcp = pytest.importorskip("mcp")
needs_fastmcp = pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("fastmcp") is None,
    reason="fastmcp needs Python 3.11",
)
from mcp_types import TextResourceContents  # noqa: E402

CRLF_SKILL = (
    "---\r\nname: crlf\r\ndescription: Windows line endings.\r\n---\r\n\r\nKeep\r\nthem.\r\n"
)
TRICKY_FILES: dict[str, str | bytes] = {
    "references/bom.md": "\ufeff# BOM kept\n",
    "references/latin1.txt": b"caf\xe9\n",  # text/plain but not UTF-8: served as a blob
    "scripts/run.sh": "#!/bin/sh\r\necho hi\r\n",
    "assets/logo.png": bytes(range(256)),
    "data/config.json": '{"a": 1}\r\n',
    "my file #1.md": "spaces and a hash\n",
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site-packages"
    fake_distribution(
        path,
        "weather-tools",
        "1.2.0",
        skills={
            "weather-report": skill_files("weather-report", "Report the weather.", TRICKY_FILES),
            "crlf": {"description": "Windows line endings.", "files": {"SKILL.md": CRLF_SKILL}},
            "shared": skill_files("shared", "Shared by weather-tools."),
            "same": skill_files("same", "Identical in both."),
        },
    )
    fake_distribution(
        path,
        "other-tools",
        skills={
            "shared": skill_files("shared", "Shared by other-tools."),
            "same": skill_files("same", "Identical in both."),
            "dated": {
                "description": "x",
                "files": {
                    "SKILL.md": "---\nname: dated\ndescription: x\nreleased: 2024-01-01\n---\n"
                },
            },
        },
    )
    # a name the build hook refuses: the whole distribution has a problem, the others serve
    fake_distribution(path, "bad-names", skills={"Bad_Name": skill_files("Bad_Name")})
    return path


def collect(site: Path, **kwargs: Any) -> tuple[list[Any], list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skills = collect_skills(SearchPath.for_paths([site]), **kwargs)
    return skills, caught


def test_collect_namespaces_different_same_named_skills(site: Path) -> None:
    skills, caught = collect(site)
    uris = [s.uri for s in skills]
    assert uris == [
        "skill://agenttools/SKILL.md",  # agenttools' own built-in skill
        "skill://crlf/SKILL.md",
        "skill://other-tools/shared/SKILL.md",
        "skill://same/SKILL.md",  # identical copies: served once
        "skill://weather-report/SKILL.md",
        "skill://weather-tools/shared/SKILL.md",
    ]
    namespaced = [str(w.message) for w in caught if w.category is ServedSkillsNamespaced]
    assert namespaced == [
        "Several sources have a skill named 'shared' (other-tools, weather-tools); each is "
        "served under its own prefix instead: skill://other-tools/shared/SKILL.md, "
        "skill://weather-tools/shared/SKILL.md"
    ]
    skipped = sorted(str(w.message) for w in caught if w.category is SkillNotServed)
    assert len(skipped) == 1
    assert "'dated'" in skipped[0] and "not JSON" in skipped[0]
    (bad,) = [str(w.message) for w in caught if w.category is SkillProviderSkipped]
    assert "'bad-names'" in bad and 'skill "Bad_Name"' in bad


def test_include_local_adds_client_skills(
    site: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_tree(
        home / ".claude" / "skills" / "mine",
        {"SKILL.md": "---\nname: mine\ndescription: Mine.\n---\n"},
    )
    without, _ = collect(site)
    with_local, _ = collect(site, include_local=True)
    assert "skill://mine/SKILL.md" not in [s.uri for s in without]
    (mine,) = [s for s in with_local if s.name == "mine"]
    assert mine.uri == "skill://mine/SKILL.md" and mine.origin == "local"


async def _read_bytes(client: Any, uri: str) -> tuple[bytes, Any]:
    result = await client.read_resource(uri)
    (content,) = result.contents
    if isinstance(content, TextResourceContents):
        return content.text.encode("utf-8"), content
    return base64.b64decode(content.blob), content


def test_mcp_client_reads_every_file_and_every_digest_matches(site: Path) -> None:
    skills, _ = collect(site)
    server = build_server(skills)

    async def main() -> None:
        async with mcp.Client(server) as client:
            listed = {str(r.uri): r for r in (await client.list_resources()).resources}
            for skill in skills:
                manifest_resource = listed[skill.manifest_uri]
                assert manifest_resource.mime_type == "application/json"
                assert manifest_resource.description == f"File listing for {skill.name}"
                raw, _ = await _read_bytes(client, skill.manifest_uri)
                manifest = json.loads(raw)
                assert raw.decode() == json.dumps(manifest, indent=2)  # FastMCP's layout
                assert manifest["skill"] == skill.name
                paths = [f["path"] for f in manifest["files"]]
                assert paths == sorted(paths) and "SKILL.md" in paths
                on_disk = skill.directory
                for entry in manifest["files"]:
                    uri = skill.file_uri(entry["path"])
                    assert uri in listed
                    data, _ = await _read_bytes(client, uri)
                    assert len(data) == entry["size"]
                    assert entry["hash"] == "sha256:" + hashlib.sha256(data).hexdigest()
                    # byte-exact with the installed file
                    assert data == on_disk.joinpath(*entry["path"].split("/")).read_bytes()
            md = listed["skill://weather-report/SKILL.md"]
            assert md.mime_type == "text/markdown"
            assert md.description == "Report the weather."
            assert listed["skill://weather-report/assets/logo.png"].mime_type == "image/png"
            assert "skill://weather-report/my%20file%20%231.md" in listed
            _, latin1 = await _read_bytes(client, "skill://weather-report/references/latin1.txt")
            assert not isinstance(latin1, TextResourceContents)  # not UTF-8: a blob
            _, crlf = await _read_bytes(client, "skill://crlf/SKILL.md")
            assert crlf.text == CRLF_SKILL  # no newline translation

    anyio.run(main)


@needs_fastmcp
def test_sep_2640_methods(site: Path) -> None:
    from fastmcp import Client
    from fastmcp.skills import SkillsClientExtension
    from mcp import MCPError

    skills, _ = collect(site)
    server = build_server(skills)

    async def main() -> None:
        async with Client(server, extensions=[SkillsClientExtension()]) as client:
            entries = await client.list_skills()
            assert [e.uri for e in entries] == [s.uri for s in skills]
            entry = await client.get_skill("skill://weather-report/SKILL.md")
            assert entry.frontmatter.root == {
                "name": "weather-report",
                "description": "Report the weather.",
            }
            assert isinstance(entry.resources, list)
            assert len(entry.resources) == 1 + len(TRICKY_FILES)
            namespaced = await client.get_skill("skill://weather-tools/shared/SKILL.md")
            assert namespaced.frontmatter.description == "Shared by weather-tools."
            with pytest.raises(MCPError) as info:
                await client.get_skill("skill://nope/SKILL.md")
            assert info.value.error.code == -32602
            assert "Unknown skill URI: skill://nope/SKILL.md" in str(info.value)

    anyio.run(main)


@needs_fastmcp
@pytest.mark.parametrize("extension", [False, True], ids=["manifest", "skills-extension"])
def test_fastmcp_read_skill_verifies_our_digests(
    site: Path, extension: bool, tmp_path: Path
) -> None:
    from fastmcp import Client
    from fastmcp.skills import SkillsClientExtension

    skills, _ = collect(site)
    server = build_server(skills)
    extensions = [SkillsClientExtension()] if extension else []

    async def main() -> None:
        async with Client(server, extensions=extensions) as client:
            for skill in skills:
                read = await client.read_skill(skill.uri)  # raises on any size/digest mismatch
                assert read.name == skill.name
                assert dict(read.files) == dict(skill.files)
            read = await client.read_skill("skill://weather-report/SKILL.md")
            target = read.to_directory(tmp_path / "out" / "weather-report")
            assert (target / "scripts" / "run.sh").read_bytes() == b"#!/bin/sh\r\necho hi\r\n"

    anyio.run(main)


@needs_fastmcp
def test_fastmcp_lists_skill_resources(site: Path) -> None:
    from fastmcp import Client

    skills, _ = collect(site)

    async def main() -> None:
        async with Client(build_server(skills)) as client:
            found = sorted(str(r.uri) for r in await client.list_skill_resources())
            assert found == sorted(s.uri for s in skills)

    anyio.run(main)


def test_serve_list_cli(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agenttools_runtime.cli import main

    assert main(["serve", "--list", "--path", str(site), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["skills"][1]["uri"] == "skill://crlf/SKILL.md"
    assert "served under its own prefix" in captured.err


def test_a_tampered_wheel_skill_is_not_served(site: Path) -> None:
    from agenttools_runtime.discovery import find_distributions

    (dist,) = [
        d for d in find_distributions(SearchPath.for_paths([site])) if d.name == "weather-tools"
    ]
    (dist.skills_dir / "crlf" / "SKILL.md").write_text("---\nname: crlf\ndescription: evil\n---\n")
    skills, caught = collect(site)
    assert "skill://crlf/SKILL.md" not in [s.uri for s in skills]
    (message,) = [str(w.message) for w in caught if "'crlf'" in str(w.message)]
    assert "is not served" in message and "does not match the hash" in message


def test_every_skill_is_a_prompt_too(site: Path) -> None:
    skills, _ = collect(site)
    server = build_server(skills)

    async def main() -> None:
        async with mcp.Client(server) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert sorted(prompts) == sorted(s.path for s in skills)
            report = prompts["weather-report"]
            assert report.description == "Report the weather."
            assert [(a.name, a.required) for a in report.arguments or ()] == [("arguments", False)]
            plain = await client.get_prompt("crlf")
            assert plain.messages[0].content.text == CRLF_SKILL
            namespaced = await client.get_prompt("weather-tools/shared", {"arguments": "x y"})
            assert "Shared by weather-tools." in namespaced.messages[0].content.text

    anyio.run(main)


def test_prompt_substitutes_arguments_in_the_body_only() -> None:
    from agenttools_runtime.serve import ServedSkill

    text = "---\nname: greet\ndescription: $1 stays\n---\nHello $1 and $2 ($ARGUMENTS)\n"
    skill = ServedSkill("greet", "greet", "t", "$1 stays", {}, {"SKILL.md": text.encode()})

    async def main() -> str:
        async with mcp.Client(build_server([skill])) as client:
            result = await client.get_prompt("greet", {"arguments": "Ann Bob"})
            return str(result.messages[0].content.text)

    assert anyio.run(main) == (
        "---\nname: greet\ndescription: $1 stays\n---\nHello Ann and Bob (Ann Bob)\n"
    )


FRONTMATTER_CASES = {
    # a block scalar last: FastMCP's client reads the block without its final newline
    "literal": "---\nname: literal\ndescription: |\n  Line one.\n  Line two.\n---\nBody\n",
    "folded": "---\nname: folded\ndescription: >\n  Folded\n  text.\n---\nBody\n",
    "kept": "---\nname: kept\nlicense: MIT\ndescription: |+\n  Kept.\n\n---\nBody\n",
    "bom": "\ufeff---\nname: bom\ndescription: With a BOM.\n---\nBody\n",
}


@needs_fastmcp
@pytest.mark.parametrize("extension", [False, True], ids=["manifest", "skills-extension"])
def test_fastmcp_reads_every_frontmatter_layout(tmp_path: Path, extension: bool) -> None:
    """The SEP-2640 entry's frontmatter must equal what FastMCP's client parses from SKILL.md
    (it refuses the skill otherwise)."""
    from fastmcp import Client
    from fastmcp.skills import SkillsClientExtension

    site = tmp_path / "site"
    fake_distribution(
        site,
        "layouts",
        skills={
            name: {"description": "x", "files": {"SKILL.md": text}}
            for name, text in FRONTMATTER_CASES.items()
        },
    )
    skills, caught = collect(site)
    assert not [w for w in caught if w.category is SkillNotServed]
    extensions = [SkillsClientExtension()] if extension else []

    async def main() -> None:
        async with Client(build_server(skills), extensions=extensions) as client:
            for name in FRONTMATTER_CASES:
                read = await client.read_skill(f"skill://{name}/SKILL.md")
                assert read.name == name

    anyio.run(main)
    (literal,) = [s for s in skills if s.name == "literal"]
    assert literal.frontmatter["description"] == "Line one.\nLine two."
    assert literal.description == "Line one.\nLine two."


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("--- \nname: spaced\ndescription: x\n---\n", "frontmatter"),
        ("---\nname: spaced\ndescription: x\n--- \n", "frontmatter"),
        ("---\nname: spaced\ndescription: x\ndescription: y\n---\n", "duplicate"),
        ("---\nname: spaced\ndescription: &d x\nother: *d\n---\n", "alias"),
        ("---\nname: spaced\ndescription: x\n1: y\n---\n", "key"),
    ],
)
def test_frontmatter_fastmcp_refuses_is_not_served(tmp_path: Path, text: str, why: str) -> None:
    site = tmp_path / "site"
    fake_distribution(
        site, "odd", skills={"spaced": {"description": "x", "files": {"SKILL.md": text}}}
    )
    skills, caught = collect(site)
    assert "skill://spaced/SKILL.md" not in [s.uri for s in skills]
    (message,) = [str(w.message) for w in caught if w.category is SkillNotServed]
    assert "'spaced'" in message and why in message
