"""Skill specifications → normalized sources (skills/source.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agenttools_runtime.errors import (
    AgentSkillNotFound,
    AgentSkillUnsafeLink,
    InvalidAgentSkill,
    InvalidAgentSkillDescription,
    InvalidAgentSkillName,
    InvalidSkillFrontmatter,
)
from agenttools_runtime.paths import canonical_path_key
from agenttools_runtime.skills.hashing import hash_bytes, hash_text
from agenttools_runtime.skills.source import skill_from_directory, to_source
from agenttools_runtime.skills.spec import Skill, SkillSource
from tests.helpers.skills import make_skill


def test_directory_source_lists_files_sorted_with_hashes(tmp_path: Path) -> None:
    directory = make_skill(
        tmp_path, files={"scripts/run.sh": "#!/bin/sh\necho hi\n", "references/a.md": "A\n"}
    )
    source = to_source(directory)
    assert source.name == "demo-skill"
    assert source.description == "Demo skill."
    assert list(source.files) == ["SKILL.md", "references/a.md", "scripts/run.sh"]
    assert source.files["references/a.md"] == directory / "references" / "a.md"
    assert source.manifest["references/a.md"] == hash_bytes(b"A\n")
    assert source.identifier == "File:" + canonical_path_key(directory)
    assert source.version is None
    assert source.directory == directory
    assert source.executable == frozenset({"scripts/run.sh"})


def test_str_path_and_skill_md_path_are_directory_sources(tmp_path: Path) -> None:
    directory = make_skill(tmp_path)
    assert to_source(str(directory)).identifier == to_source(directory / "SKILL.md").identifier


def test_executable_mode_marks_file_executable(tmp_path: Path) -> None:
    directory = make_skill(tmp_path, files={"bin/tool": "no shebang\n", "plain.txt": "x\n"})
    tool = directory / "bin" / "tool"
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    assert to_source(directory).executable == frozenset({"bin/tool"})


def test_directory_source_skips_junk_and_vcs(tmp_path: Path) -> None:
    directory = make_skill(
        tmp_path,
        files={
            ".DS_Store": b"\0junk",
            "__pycache__/x.pyc": b"\0",
            ".git/HEAD": "ref\n",
            "Thumbs.db": "x",
            "desktop.ini": "x",
            "keep.md": "k\n",
        },
    )
    assert list(to_source(directory).files) == ["SKILL.md", "keep.md"]


def test_link_leaving_the_skill_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    directory = make_skill(tmp_path)
    os.symlink(outside, directory / "leak.txt")
    with pytest.raises(AgentSkillUnsafeLink) as info:
        to_source(directory)
    assert "leak.txt" in str(info.value)


def test_link_inside_the_skill_is_followed(tmp_path: Path) -> None:
    directory = make_skill(tmp_path, files={"real.md": "R\n"})
    os.symlink("real.md", directory / "alias.md")
    source = to_source(directory)
    assert source.manifest["alias.md"] == source.manifest["real.md"]


def test_inline_mapping_generates_deterministic_skill_md() -> None:
    spec = {
        "name": "inline-skill",
        "description": "Inline.",
        "body": "Body text.\r\n",
        "license": "MIT",
        "allowed_tools": ["Read", "Bash"],
        "metadata": {"version": 2, "flag": True},
        "x-custom": "kept",
        "another": 1,
    }
    first = to_source(spec)
    second = to_source(dict(spec))
    text = first.files["SKILL.md"]
    assert isinstance(text, str)
    assert text == second.files["SKILL.md"]
    assert text == (
        "---\n"
        "name: inline-skill\n"
        "description: Inline.\n"
        "license: MIT\n"
        "allowed-tools:\n- Read\n- Bash\n"
        "metadata:\n  version: '2'\n  flag: 'true'\n"
        "x-custom: kept\n"
        "another: 1\n"
        "---\n\nBody text.\n"
    )
    assert first.manifest == {"SKILL.md": hash_text(text)}
    assert first.identifier is None
    assert first.directory is None
    assert to_source(spec, "AgentTools:bundle/inline-skill").identifier == (
        "AgentTools:bundle/inline-skill"
    )


def test_skill_object_with_directory_is_a_directory_source(tmp_path: Path) -> None:
    directory = make_skill(tmp_path)
    skill = skill_from_directory(directory)
    assert skill.path == directory
    assert skill.body == "\nDo the thing.\n"
    assert to_source(skill, "ignored").identifier == "File:" + canonical_path_key(directory)


def test_skill_object_without_directory_is_generated(tmp_path: Path) -> None:
    skill = Skill("gen", "Generated.", body="B", path=tmp_path / "nowhere")
    source = to_source(skill, "default-id")
    assert source.identifier == "default-id"
    assert source.files == {"SKILL.md": "---\nname: gen\ndescription: Generated.\n---\n\nB\n"}


def test_identifier_and_version_overrides(tmp_path: Path) -> None:
    directory = make_skill(tmp_path)
    source = to_source(directory, identifier="dist/demo-skill", version="1.2.0")
    assert (source.identifier, source.version) == ("dist/demo-skill", "1.2.0")
    assert to_source(source) is source


@pytest.mark.parametrize("name", ["", "..", "a/b", "Upper", "-a", "a-", "a--b", "x" * 65, 5])
def test_invalid_names(name: object) -> None:
    with pytest.raises(InvalidAgentSkillName):
        to_source({"name": name, "description": "d", "body": ""})


@pytest.mark.parametrize("description", [None, "", "   \n", "x" * 1025, 3])
def test_invalid_descriptions(description: object) -> None:
    with pytest.raises(InvalidAgentSkillDescription):
        to_source({"name": "ok", "description": description, "body": ""})


def test_directory_name_comes_from_frontmatter(tmp_path: Path) -> None:
    directory = make_skill(tmp_path, name="folder")
    (directory / "SKILL.md").write_text("---\nname: other-name\ndescription: D\n---\n")
    assert to_source(directory).name == "other-name"


@pytest.mark.parametrize(
    "text",
    [
        "no frontmatter\n",
        "---\nname: x\n",
        "---\n: [\n---\n",
        "---\n- a\n---\n",
        "---\ndescription: d\n---\n",
    ],
)
def test_invalid_frontmatter(tmp_path: Path, text: str) -> None:
    directory = tmp_path / "bad"
    directory.mkdir()
    (directory / "SKILL.md").write_text(text)
    with pytest.raises(InvalidSkillFrontmatter) as info:
        to_source(directory)
    assert "SKILL.md" in str(info.value)


def test_missing_and_non_skill_directories(tmp_path: Path) -> None:
    with pytest.raises(AgentSkillNotFound):
        to_source(tmp_path / "absent")
    with pytest.raises(InvalidAgentSkill):
        to_source(tmp_path)


@pytest.mark.parametrize(
    "spec",
    [
        42,
        {"name": "a", "description": "d", "body": 3},
        {"name": "a", "description": "d", "metadata": [1]},
        {"name": "a", "description": "d", "allowed-tools": 5},
        {"name": "a", "description": "d", "license": 1},
        {"name": "a", "description": "d", "x": object()},
    ],
)
def test_invalid_specs(spec: object) -> None:
    with pytest.raises(InvalidAgentSkill):
        to_source(spec)  # type: ignore[arg-type]


def test_skill_source_is_frozen() -> None:
    source = to_source({"name": "a", "description": "d"})
    assert isinstance(source, SkillSource)
    with pytest.raises(AttributeError):
        source.name = "b"  # type: ignore[misc]


def test_frontmatter_pyyaml_cannot_write_is_an_invalid_skill() -> None:
    skill = Skill(name="a-b", description="d", body="x", extra={"x-thing": object()})
    with pytest.raises(InvalidAgentSkill, match='frontmatter of "a-b" cannot be written'):
        to_source(skill)


def test_one_line_frontmatter_is_written_as_pyyaml_writes_it() -> None:
    source = to_source(Skill(name="a-b", description="Notes: on C# (and more).", body="Body."))
    assert source.files["SKILL.md"] == (
        "---\nname: a-b\ndescription: 'Notes: on C# (and more).'\n---\n\nBody.\n"
    )
    source = to_source(Skill(name="a-b", description="Notes on C# (and more).", body="Body."))
    assert source.files["SKILL.md"] == (
        "---\nname: a-b\ndescription: Notes on C# (and more).\n---\n\nBody.\n"
    )
