"""SKILL.md parsing and deterministic generation (skills/skill_md.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools_runtime.errors import InvalidSkillFrontmatter
from agenttools_runtime.skills.skill_md import (
    parse_skill_md,
    read_skill_md,
    render_skill_md,
    split_frontmatter,
)


def test_split_and_parse() -> None:
    text = "---\nname: a\ndescription: b\n---\n\n# Body\n"
    assert split_frontmatter(text) == ("name: a\ndescription: b\n", "\n# Body\n", 5)
    doc = parse_skill_md(text)
    assert doc.frontmatter == {"name": "a", "description": "b"}
    assert doc.body == "\n# Body\n"
    assert doc.body_line == 5


def test_parse_crlf_and_bom() -> None:
    doc = parse_skill_md("\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nx\r\n")
    assert doc.frontmatter == {"name": "a", "description": "b"}


def test_empty_frontmatter_is_an_empty_mapping() -> None:
    assert parse_skill_md("---\n---\n").frontmatter == {}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "must start with"),
        ("name: a\n", "must start with"),
        ("---\nname: a\n", "not closed"),
        ("---\nname: [a\n---\n", "not valid YAML at line"),
        ("---\n- a\n---\n", "mapping"),
        ("---\njust text\n---\n", "mapping"),
    ],
)
def test_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(InvalidSkillFrontmatter) as info:
        parse_skill_md(text, "skills/x/SKILL.md")
    assert fragment in str(info.value)
    assert "skills/x/SKILL.md" in str(info.value)


def test_read_skill_md_rejects_non_utf8(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"---\nname: \xff\n---\n")
    with pytest.raises(InvalidSkillFrontmatter) as info:
        read_skill_md(path)
    assert "UTF-8" in str(info.value)


def test_render_minimal() -> None:
    assert render_skill_md("a", "b", "") == "---\nname: a\ndescription: b\n---\n"
    assert (
        render_skill_md("a", "b", "\n\nBody\n\n\n") == "---\nname: a\ndescription: b\n---\n\nBody\n"
    )


def test_render_full_order_and_determinism() -> None:
    kwargs = dict(
        license="Apache-2.0",
        compatibility="Python 3.10+",
        allowed_tools="Read Grep",
        metadata={"b": 1, "a": False},
        extra={"zeta": [1, 2], "alpha": "x", "name": "ignored", "allowed-tools": "ignored"},
    )
    text = render_skill_md("skill", "Does: things", "Body\r\nline\r\n", **kwargs)  # type: ignore[arg-type]
    assert text == (
        "---\n"
        "name: skill\n"
        "description: 'Does: things'\n"
        "license: Apache-2.0\n"
        "compatibility: Python 3.10+\n"
        "allowed-tools: Read Grep\n"
        "metadata:\n  b: '1'\n  a: 'false'\n"
        "zeta:\n- 1\n- 2\n"
        "alpha: x\n"
        "---\n\nBody\nline\n"
    )
    again = render_skill_md("skill", "Does: things", "Body\r\nline\r\n", **kwargs)  # type: ignore[arg-type]
    assert again.encode() == text.encode()
    assert "\r" not in text and text.endswith("line\n") and not text.endswith("\n\n")


def test_render_allowed_tools_from_extra() -> None:
    text = render_skill_md("s", "d", "", extra={"allowed-tools": "Bash"})
    assert "allowed-tools: Bash\n" in text


def test_render_round_trips() -> None:
    text = render_skill_md("s", 'Ünïcode — "quotes"\nand lines', "Body", metadata={"k": "v"})
    doc = parse_skill_md(text)
    assert doc.frontmatter == {
        "name": "s",
        "description": 'Ünïcode — "quotes"\nand lines',
        "metadata": {"k": "v"},
    }
    assert doc.body.strip() == "Body"


def test_one_rule_for_repeated_keys_in_both_modes(tmp_path: Path) -> None:
    from agenttools_runtime.skills.skill_md import check

    text = "---\nname: a\nname: b\ndescription: d\n---\n"
    with pytest.raises(InvalidSkillFrontmatter, match="duplicate key 'name'"):
        parse_skill_md(text)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text(text)
    frontmatter, findings = check(tmp_path / "a" / "SKILL.md", None)
    assert frontmatter is None
    assert [(f.code, f.line) for f in findings] == [("InvalidSkillDefinition", 3)]


def test_frontmatter_nested_3000_deep_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    from agenttools_runtime.skills.skill_md import check

    text = "---\nname: a\ndescription: d\nmetadata: " + "[" * 3000 + "]" * 3000 + "\n---\n"
    with pytest.raises(InvalidSkillFrontmatter, match="nested more than 100 levels deep"):
        parse_skill_md(text)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text(text)
    frontmatter, findings = check(tmp_path / "a" / "SKILL.md", None)
    assert frontmatter is None and "nested more than" in findings[-1].message
