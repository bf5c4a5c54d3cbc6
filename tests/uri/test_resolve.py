"""Resolution against real client skill directories under the temporary HOME and installed
distributions (dist-info trees laid out as the build hook writes them)."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from agenttools_runtime.discovery import SearchPath, find_distributions
from agenttools_runtime.errors import (
    SkillNameCollision,
    SkillNotFound,
    SkillPathTraversal,
    SkillProviderExists,
    SkillProviderNotFound,
    SkillReferenceNotFound,
)
from agenttools_runtime.skilluri.providers.distribution import DistributionSkillProvider
from agenttools_runtime.skilluri.providers.local import LocalSkillProvider, local_skill_roots
from agenttools_runtime.skilluri.resolver import SkillResolver, resolve_skill
from tests.helpers.venvs import fake_distribution, skill_files, write_tree

GREETING = (
    "---\nname: greeting\ndescription: Generate a personalized greeting.\n---\n\n"
    "# Skill: greeting\n\nCreate a greeting for $1 from $2.\nUse a $3 tone.\n"
)


def make_skill(root: Path, name: str, body: str | None = None, **extra: str | bytes) -> Path:
    text = (
        body
        if body is not None
        else f"---\nname: {name}\ndescription: The {name} skill.\n---\n\nDo {name}.\n"
    )
    write_tree(
        root / name, {"SKILL.md": text, **{k.replace("__", "/"): v for k, v in extra.items()}}
    )
    return root / name


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    monkeypatch.chdir(directory)
    return directory


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site-packages"
    path.mkdir()
    fake_distribution(
        path,
        "weather-tools",
        "1.2.0",
        skills={
            "weather-report": skill_files(
                "weather-report",
                "Report the weather.",
                {"references/units.md": "Use $1 units.\r\n", "logo.png": b"\x89PNG\x00\xff"},
            ),
            "greeting": {
                "description": "Dist greeting.",
                "files": {"SKILL.md": GREETING.replace("$3 tone", "dist tone")},
            },
        },
    )
    fake_distribution(path, "Other_Tools", "0.1", skills={"other": skill_files("other")})
    fake_distribution(path, "no-skills", "1.0", servers={"s": {"module": "x"}})
    return path


def test_local_roots_cover_every_client_once(home: Path, project: Path) -> None:
    roots = local_skill_roots()
    assert home / ".claude" / "skills" in roots
    assert home / ".cursor" / "skills" in roots
    assert project / ".claude" / "skills" in roots
    # folders clients read but agenttools writes for none (Gemini CLI writes .agents/skills)
    assert home / ".gemini" / "skills" in roots and home / ".codex" / "skills" in roots
    # project scope first
    assert roots.index(project / ".claude" / "skills") < roots.index(home / ".claude" / "skills")
    keys = [os.path.realpath(r) for r in roots]
    assert len(keys) == len(set(keys))


def test_bare_name_from_a_client_directory(home: Path, project: Path) -> None:
    make_skill(home / ".claude" / "skills", "greeting", GREETING)
    resolver = SkillResolver([LocalSkillProvider()])
    resolved = resolver.resolve("greeting", "Alice Company formal")
    assert resolved.uri == "skill://local/greeting"
    assert resolved.kind == "skill"
    assert resolved.text is not None
    assert "Create a greeting for Alice from Company.\nUse a formal tone." in resolved.text
    assert resolved.text.startswith("---\nname: greeting\n")  # frontmatter untouched
    assert resolved.skill.directory == home / ".claude" / "skills" / "greeting"
    # no arguments: the file verbatim
    assert resolver.resolve("skill://local/greeting").content == GREETING.encode()
    assert resolver.resolve("skill://local/greeting/SKILL.md").content == GREETING.encode()


def test_references_and_manifest(home: Path, project: Path) -> None:
    make_skill(
        home / ".cursor" / "skills",
        "python-expert",
        references__guide_md="# Guide $1\n",
        data__blob_bin=b"\x00\x01\xfe",
    )
    resolver = SkillResolver([LocalSkillProvider()])
    ref = resolver.resolve("skill://local/python-expert/references/guide_md", "x")
    assert ref.kind == "reference"
    assert ref.content == b"# Guide $1\n"  # references are never substituted
    blob = resolver.resolve("python-expert/data/blob_bin")
    assert blob.content == b"\x00\x01\xfe" and blob.text is None
    manifest = resolver.resolve("skill://local/python-expert/_manifest")
    assert manifest.kind == "manifest"
    data = json.loads(manifest.content)
    assert data["skill"] == "python-expert"
    assert [f["path"] for f in data["files"]] == [
        "SKILL.md",
        "data/blob_bin",
        "references/guide_md",
    ]
    assert data["files"][1] == {
        "path": "data/blob_bin",
        "size": 3,
        "hash": "sha256:" + __import__("hashlib").sha256(b"\x00\x01\xfe").hexdigest(),
    }
    assert manifest.content.decode().startswith('{\n  "skill": "python-expert",\n  "files": [\n')
    with pytest.raises(SkillReferenceNotFound) as info:
        resolver.resolve("skill://local/python-expert/guide.md")
    assert str(info.value) == "Reference not found: 'guide.md' in skill 'python-expert'"
    with pytest.raises(SkillReferenceNotFound):  # a directory is not a file
        resolver.resolve("skill://local/python-expert/references")


def test_url_encoded_skill_name(home: Path, project: Path) -> None:
    make_skill(home / ".claude" / "skills", "my skill", "# Skill: my skill\n\nSpaces.\n")
    resolved = SkillResolver([LocalSkillProvider()]).resolve("skill://local/my%20skill")
    assert resolved.content == b"# Skill: my skill\n\nSpaces.\n"
    assert resolved.skill.description == "Skill: my skill"  # first line, heading stripped
    assert resolved.uri == "skill://local/my%20skill"


def test_not_found_lists_available(home: Path, project: Path) -> None:
    make_skill(home / ".claude" / "skills", "python-expert")
    make_skill(project / ".claude" / "skills", "refactoring")
    resolver = SkillResolver([LocalSkillProvider()])
    with pytest.raises(SkillNotFound) as info:
        resolver.resolve("my-skill")
    assert str(info.value) == "Skill not found: 'my-skill'. Available: python-expert, refactoring"
    with pytest.raises(SkillNotFound, match="Available: python-expert, refactoring"):
        resolver.resolve("skill://local/my-skill")
    with pytest.raises(SkillProviderNotFound, match="Provider not found: 'nope'"):
        resolver.resolve("skill://nope/python-expert")


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_symlinks_are_resolved_and_kept_inside(home: Path, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    skill = make_skill(home / ".claude" / "skills", "linky", inside_txt="inside")
    (skill / "escape.txt").symlink_to(outside)
    (skill / "up").symlink_to(skill.parent)
    (skill / "ok.txt").symlink_to(skill / "inside_txt")
    resolver = SkillResolver([LocalSkillProvider()])
    with pytest.raises(SkillPathTraversal, match="Path traversal detected in URI"):
        resolver.resolve("skill://local/linky/escape.txt")
    with pytest.raises(SkillPathTraversal):
        resolver.resolve("skill://local/linky/up/other/SKILL.md")
    assert resolver.resolve("skill://local/linky/ok.txt").content == b"inside"
    # a skill folder that is itself a link (a deployed symlink) works: its target is the root
    real = make_skill(tmp_path / "elsewhere", "linked", ref_txt="r")
    (home / ".claude" / "skills" / "linked").symlink_to(real)
    resolver = SkillResolver([LocalSkillProvider()])
    assert resolver.resolve("skill://local/linked/ref_txt").content == b"r"


def test_hostile_uris_never_read_outside(home: Path, project: Path, tmp_path: Path) -> None:
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "secret").write_text("secret")
    make_skill(home / ".claude" / "skills", "x")
    resolver = SkillResolver([LocalSkillProvider()])
    for uri in (
        "skill://local/x/../../secret",
        "skill://local/x/%2e%2e/%2e%2e/secret",
        "skill://local/x/..%2f..%2fsecret",
        "x/%2E%2E/%2E%2E/secret",
        "skill://local/..%2fx/SKILL.md",
    ):
        with pytest.raises(SkillPathTraversal):
            resolver.resolve(uri)
    for uri in ("skill://local/x/SKILL.md%00.txt", "x/a\x00"):
        with pytest.raises(Exception, match="Null byte"):
            resolver.resolve(uri)
    # double encoding is decoded once: a file literally named "%2e%2e", which is absent
    with pytest.raises(SkillReferenceNotFound):
        resolver.resolve("skill://local/x/%252e%252e/%252e%252e/secret")


def test_version_control_metadata_is_not_served(home: Path, project: Path) -> None:
    make_skill(home / ".claude" / "skills", "vcs", **{".git__config": "[core]"})
    with pytest.raises(SkillReferenceNotFound):
        SkillResolver([LocalSkillProvider()]).resolve("skill://local/vcs/.git/config")


def test_local_duplicates_identical_are_silent_different_are_reported(
    home: Path, project: Path
) -> None:
    make_skill(home / ".claude" / "skills", "same")
    make_skill(home / ".cursor" / "skills", "same")
    make_skill(
        project / ".claude" / "skills", "diff", "---\nname: diff\ndescription: P.\n---\nProject\n"
    )
    make_skill(home / ".claude" / "skills", "diff", "---\nname: diff\ndescription: U.\n---\nUser\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resolved = SkillResolver([LocalSkillProvider()]).resolve("same")
    assert resolved.skill.directory == home / ".claude" / "skills" / "same"
    assert not caught  # "diff" was not asked for: nothing to say about it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        provider = LocalSkillProvider()
        names = [s.name for s in provider.skills()]
    assert names == ["diff", "same"]
    messages = [str(w.message) for w in caught if issubclass(w.category, SkillNameCollision)]
    assert len(messages) == 1 and "'diff'" in messages[0]
    # the project scope wins
    assert provider.find("diff").directory == project / ".claude" / "skills" / "diff"  # type: ignore[union-attr]


def test_distribution_providers(home: Path, project: Path, site: Path) -> None:
    search = SearchPath.for_paths([site])
    resolver = SkillResolver.default(search=search)
    assert [p.name for p in resolver.providers] == [
        "local",
        "other-tools",
        "weather-tools",
        "agenttools",  # its own built-in skills
    ]
    resolved = resolver.resolve("skill://weather-tools/weather-report")
    assert resolved.kind == "skill"
    assert resolved.skill.directory is not None
    assert resolved.skill.directory.parts[-4:] == ("agenttools", "skills", "weather-report") or (
        resolved.skill.directory.name == "weather-report"
    )
    ref = resolver.resolve("skill://weather-tools/weather-report/references/units.md", "x")
    assert ref.content == b"Use $1 units.\r\n"  # verbatim, CRLF kept
    assert resolver.resolve("weather-report/logo.png").content == b"\x89PNG\x00\xff"
    # a distribution provider answers to its unnormalized name too
    assert resolver.resolve("skill://Other_Tools/other").provider == "other-tools"
    manifest = json.loads(
        resolver.resolve("skill://weather-tools/weather-report/_manifest").content
    )
    assert [f["path"] for f in manifest["files"]] == ["SKILL.md", "logo.png", "references/units.md"]


def test_distribution_serves_only_listed_files(home: Path, project: Path, site: Path) -> None:
    (dist,) = [
        d for d in find_distributions(SearchPath.for_paths([site])) if d.name == "weather-tools"
    ]
    stray = dist.skills_dir / "weather-report" / "stray.txt"
    stray.write_text("not in the manifest")
    provider = DistributionSkillProvider(dist)
    resolver = SkillResolver([provider])
    with pytest.raises(SkillReferenceNotFound):
        resolver.resolve("skill://weather-tools/weather-report/stray.txt")
    assert "stray.txt" not in provider.files(provider.find("weather-report"))  # type: ignore[arg-type]


def test_editable_distribution_uses_live_files(home: Path, project: Path, tmp_path: Path) -> None:
    source = tmp_path / "src-project"
    make_skill(source / "skills", "live", notes_md="live notes")
    site = tmp_path / "site-editable"
    fake_distribution(
        site,
        "live-tools",
        skills={
            "live": {"description": "Live.", "files": {"SKILL.md": "stale"}, "path": "skills/live"}
        },
        source_root=source,
    )
    resolver = SkillResolver.default(search=SearchPath.for_paths([site]), local=False)
    assert resolver.resolve("skill://live-tools/live/notes_md").content == b"live notes"
    assert b"Do live." in resolver.resolve("live").content


def test_priority_and_collision_report(home: Path, project: Path, site: Path) -> None:
    make_skill(home / ".claude" / "skills", "greeting", GREETING)
    resolver = SkillResolver.default(search=SearchPath.for_paths([site]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resolved = resolver.resolve("greeting", "A B C")
    assert resolved.provider == "local"  # local first
    assert resolved.also_provided_by == ("weather-tools",)
    (warning,) = [w for w in caught if issubclass(w.category, SkillNameCollision)]
    assert str(warning.message) == (
        "The skill 'greeting' is provided by local, weather-tools; using skill://local/greeting. "
        "Use a full URI (skill://PROVIDER/greeting) to choose another."
    )
    # the explicit URI reaches the shadowed one, silently
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explicit = resolver.resolve("skill://weather-tools/greeting", "A B C")
    assert not [w for w in caught if issubclass(w.category, SkillNameCollision)]
    assert b"Use a dist tone." in explicit.content


def test_register_rejects_duplicates() -> None:
    resolver = SkillResolver([LocalSkillProvider([])])
    with pytest.raises(SkillProviderExists):
        resolver.register(LocalSkillProvider([]))


def test_listing_format(home: Path, project: Path, site: Path) -> None:
    make_skill(
        home / ".claude" / "skills",
        "python-expert",
        "---\nname: python-expert\ndescription: Expert Python development techniques\n---\n",
    )
    make_skill(home / ".claude" / "skills", "greeting", GREETING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        listing = SkillResolver.default(search=SearchPath.for_paths([site])).list_skills()
    text = listing.render()
    assert text.startswith(
        "Available skills:\n\n## local (2 skills)\n"
        "- **greeting**: Generate a personalized greeting.\n"
        "  URI: `skill://local/greeting`\n"
        "- **python-expert**: Expert Python development techniques\n"
        "  URI: `skill://local/python-expert`\n\n"
        "## other-tools (1 skill)\n"
    )
    assert (
        "- **greeting**: Dist greeting.\n  URI: `skill://weather-tools/greeting`\n"
        "  Shadowed: the bare name 'greeting' resolves to local\n"
    ) in text
    data = listing.to_json()
    assert [p["name"] for p in data["providers"]] == [
        "local",
        "other-tools",
        "weather-tools",
        "agenttools",
    ]
    shadowed = next(s for s in data["providers"][2]["skills"] if s["name"] == "greeting")
    assert shadowed["resolves_bare_name"] is False


def test_empty_listing() -> None:
    assert SkillResolver([LocalSkillProvider([])]).list_skills().render() == "No skills available"


def test_resolve_skill_function(home: Path, project: Path) -> None:
    make_skill(home / ".gemini" / "skills", "greeting", GREETING)
    resolved = resolve_skill("greeting", ["Bob", "Acme", "warm"], search=SearchPath.for_paths([]))
    assert b"Create a greeting for Bob from Acme.\nUse a warm tone." in resolved.content


def test_claude_convention_through_the_resolver(home: Path, project: Path) -> None:
    make_skill(
        home / ".claude" / "skills",
        "fix",
        "---\nname: fix\ndescription: Fix.\narguments: issue\n---\nFix $issue ($0, $ARGUMENTS[1]) $1\n",
    )
    resolver = SkillResolver([LocalSkillProvider()])
    text = resolver.resolve("fix", '"#12 bug" high', convention="claude").text
    assert text is not None and text.endswith("Fix #12 bug (#12 bug, high) high\n")


def test_wheel_copies_are_verified(home: Path, project: Path, site: Path) -> None:
    from agenttools_runtime.errors import BundledFileMismatch, BundledFileMissing

    (dist,) = [
        d for d in find_distributions(SearchPath.for_paths([site])) if d.name == "weather-tools"
    ]
    folder = dist.skills_dir / "weather-report"
    (folder / "references" / "units.md").write_text("tampered\n")
    (folder / "logo.png").unlink()
    resolver = SkillResolver([DistributionSkillProvider(dist)])
    with pytest.raises(BundledFileMismatch, match="does not match the hash"):
        resolver.resolve("skill://weather-tools/weather-report/references/units.md")
    with pytest.raises(BundledFileMissing, match=r"logo\.png"):
        resolver.resolve("skill://weather-tools/weather-report/logo.png")
    with pytest.raises(BundledFileMissing):
        resolver.resolve("skill://weather-tools/weather-report/_manifest")
    # untouched files still load; a CRLF checkout of the same text is not tampering
    assert b"Report the weather." in resolver.resolve("weather-report").content


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_a_skill_md_linking_out_leaks_nothing(home: Path, project: Path, tmp_path: Path) -> None:
    """Listing a skill reads its description: never through a link leaving the skill."""
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    folder = home / ".claude" / "skills" / "evil"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(secret)
    resolver = SkillResolver([LocalSkillProvider()])
    listing = resolver.list_skills().render()
    assert "PRIVATE KEY" not in listing
    assert "- **evil**:\n" in listing
    with pytest.raises(SkillPathTraversal):
        resolver.resolve("evil")
    # a chain of links ending outside, and a loop of links
    chain = make_skill(home / ".claude" / "skills", "chain")
    (chain / "a").symlink_to("b")
    (chain / "b").symlink_to(secret)
    (chain / "l1").symlink_to("l2")
    (chain / "l2").symlink_to("l1")
    resolver = SkillResolver([LocalSkillProvider()])
    with pytest.raises(SkillPathTraversal):
        resolver.resolve("skill://local/chain/a")
    with pytest.raises(SkillReferenceNotFound):
        resolver.resolve("skill://local/chain/l1")


@pytest.mark.parametrize(
    "reference",
    [
        "a" * 300,  # longer than a file name may be
        "/".join(["d" * 200] * 20),  # longer than a path may be
        "%EF%BC%8E%EF%BC%8E/x",  # fullwidth dots: a plain name, not ..
        "%EF%BC%8F",  # fullwidth solidus: a plain name, not a separator
        "%E2%80%A5",  # two dot leader
    ],
)
def test_odd_references_are_not_found_never_a_crash(
    home: Path, project: Path, reference: str
) -> None:
    make_skill(home / ".claude" / "skills", "x")
    with pytest.raises(SkillReferenceNotFound):
        SkillResolver([LocalSkillProvider()]).resolve(f"skill://local/x/{reference}")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_special_files_are_not_part_of_a_skill(home: Path, project: Path) -> None:
    """A named pipe would block every reader: it is neither listed, hashed nor read."""
    folder = make_skill(home / ".claude" / "skills", "piped", notes_md="n")
    os.mkfifo(folder / "pipe")
    provider = LocalSkillProvider()
    skill = provider.find("piped")
    assert skill is not None
    assert sorted(provider.files(skill)) == ["SKILL.md", "notes_md"]
    resolver = SkillResolver([provider])
    manifest = json.loads(resolver.resolve("piped/_manifest").content)
    assert [f["path"] for f in manifest["files"]] == ["SKILL.md", "notes_md"]
    with pytest.raises(SkillReferenceNotFound):
        resolver.resolve("piped/pipe")


def test_not_found_says_nothing_about_other_skills(home: Path, project: Path) -> None:
    """Listing the available names for the error reads no skill and reports no collision."""
    make_skill(project / ".claude" / "skills", "diff", "---\nname: diff\ndescription: P.\n---\n")
    make_skill(home / ".claude" / "skills", "diff", "---\nname: diff\ndescription: U.\n---\n")
    resolver = SkillResolver([LocalSkillProvider()])
    for uri in ("nope", "skill://local/nope"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(SkillNotFound, match="Available: diff"):
                resolver.resolve(uri)
        assert not caught


def test_listing_keeps_one_line_per_description(home: Path, project: Path) -> None:
    make_skill(
        home / ".claude" / "skills",
        "multi",
        "---\nname: multi\ndescription: |\n  First line.\n  Second   line.\n---\n",
    )
    text = SkillResolver([LocalSkillProvider()]).list_skills().render()
    assert "- **multi**: First line. Second line.\n  URI: `skill://local/multi`" in text


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_link_loops_in_a_skills_folder_are_skipped(home: Path, project: Path) -> None:
    root = home / ".claude" / "skills"
    make_skill(root, "ok")
    (root / "self").symlink_to(root / "self")
    (root / "ping").symlink_to(root / "pong")
    (root / "pong").symlink_to(root / "ping")
    (root / "md-loop").mkdir()
    (root / "md-loop" / "SKILL.md").symlink_to(root / "md-loop" / "SKILL.md")
    resolver = SkillResolver([LocalSkillProvider()])
    assert [s.name for s in resolver.list_skills().providers[0].skills] == ["ok"]
    assert resolver.resolve("ok").provider == "local"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_comparing_same_named_folders_reads_no_special_file(home: Path, project: Path) -> None:
    """Two folders of one name are compared file by file; a named pipe in one must not hang
    the listing."""
    make_skill(home / ".claude" / "skills", "x")
    other = make_skill(home / ".cursor" / "skills", "x")
    os.mkfifo(other / "pipe")
    outcome: list[object] = []

    def listing() -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            SkillResolver([LocalSkillProvider()]).list_skills()
        outcome.append([w.category for w in caught])

    import threading

    thread = threading.Thread(target=listing, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():  # unblock the reader, then fail
        with open(other / "pipe", "wb"):
            pass
        pytest.fail("the listing blocked on a named pipe")
    assert outcome == [[]]  # the same files (the pipe is no file): nothing to report


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_same_named_folders_that_cannot_be_read_are_reported(
    home: Path, project: Path, tmp_path: Path
) -> None:
    for client, target in ((".claude", "a.txt"), (".cursor", "b.txt")):
        (tmp_path / target).write_text(target)
        folder = make_skill(home / client / "skills", "x")
        (folder / "link").symlink_to(tmp_path / target)  # leaves the skill: unreadable whole
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LocalSkillProvider().skills()
    assert [w.category for w in caught] == [SkillNameCollision]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_version_control_metadata_is_not_served_through_a_link(home: Path, project: Path) -> None:
    """`.git/config` can hold credentials: no alias reaches it (a link, another case)."""
    folder = make_skill(home / ".claude" / "skills", "vcs", **{".git__config": "token"})
    (folder / "docs").symlink_to(folder / ".git")
    resolver = SkillResolver([LocalSkillProvider()])
    for uri in ("skill://local/vcs/docs/config", "skill://local/vcs/.GIT/config"):
        with pytest.raises(SkillReferenceNotFound):
            resolver.resolve(uri)
    manifest = json.loads(resolver.resolve("skill://local/vcs/_manifest").content)
    assert [f["path"] for f in manifest["files"]] == ["SKILL.md"]
