"""SKILL.md parsing and deterministic generation (skills/skill_md.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools_runtime.errors import InvalidSkillFrontmatter
from agenttools_runtime.serve import wire_frontmatter
from agenttools_runtime.skills.skill_md import (
    check,
    parse_skill_md,
    read_skill_md,
    render_skill_md,
    skill_description,
    skill_frontmatter,
    split_skill_md,
    split_skill_text,
)


def test_split_and_parse() -> None:
    text = "---\nname: a\ndescription: b\n---\n\n# Body\n"
    assert split_skill_md(text) == ("name: a\ndescription: b", "\n# Body\n")
    doc = parse_skill_md(text)
    assert doc.frontmatter == {"name": "a", "description": "b"}
    assert doc.body == "\n# Body\n"


# -- the rules, one test each --------------------------------------------------------------


def test_a_byte_order_mark_is_skipped() -> None:
    doc = parse_skill_md("\ufeff---\nname: a\ndescription: b\n---\nx\n")
    assert doc.frontmatter == {"name": "a", "description": "b"}
    assert doc.body == "x\n"


def test_crlf_lines_are_lines() -> None:
    doc = parse_skill_md("---\r\nname: a\r\ndescription: |\r\n  one\r\n  two\r\n---\r\nx\r\n")
    assert doc.frontmatter == {"name": "a", "description": "one\ntwo"}
    assert doc.body == "x\r\n"


def test_fences_are_lines_of_exactly_three_dashes() -> None:
    # "--- " and "----" are not fences: the block runs to the next line of exactly ---
    doc = parse_skill_md("---\nname: a\ndescription: 'b\n---- c'\n---\nbody\n")
    assert doc.frontmatter == {"name": "a", "description": "b ---- c"}
    for text in ("--- \nname: a\n---\n", "----\nname: a\n---\n", " ---\nname: a\n---\n"):
        with pytest.raises(InvalidSkillFrontmatter, match="must start with YAML frontmatter"):
            parse_skill_md(text)
    with pytest.raises(InvalidSkillFrontmatter, match="not properly closed"):
        parse_skill_md("---\nname: a\n--- \n")


def test_only_newline_ends_a_line() -> None:
    # U+2028 and a lone CR end lines for str.splitlines, never a fence here
    with pytest.raises(InvalidSkillFrontmatter, match="not properly closed"):
        parse_skill_md("---\nname: a\u2028---\u2028")
    with pytest.raises(InvalidSkillFrontmatter, match="not properly closed"):
        parse_skill_md("---\nname: a\r---\r")


def test_the_line_break_before_the_closing_fence_is_not_the_yamls() -> None:
    # as FastMCP's client reads it: a block scalar written last ends without a newline
    text = "---\nname: a\ndescription: |\n  Line one.\n  Line two.\n---\n"
    assert parse_skill_md(text).frontmatter["description"] == "Line one.\nLine two."
    assert wire_frontmatter(text.encode()) == parse_skill_md(text).frontmatter


def test_the_closing_fence_may_end_the_file() -> None:
    doc = parse_skill_md("---\nname: a\n---")
    assert (doc.frontmatter, doc.body) == ({"name": "a"}, "")


def test_an_empty_block_is_an_empty_mapping() -> None:
    assert parse_skill_md("---\n---\n").frontmatter == {}
    assert parse_skill_md("---\n\n---\nbody").frontmatter == {}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "must start with YAML frontmatter"),
        ("name: a\n", "must start with YAML frontmatter"),
        ("\n---\nname: a\n---\n", "must start with YAML frontmatter"),
        ("---", "not properly closed"),
        ("---\nname: a\n", "not properly closed"),
        ("---\nname: [a\n---\n", "Invalid YAML in frontmatter"),
        ("---\n- a\n---\n", "must be a YAML mapping"),
        ("---\njust text\n---\n", "must be a YAML mapping"),
        ("---\nname: a\nname: b\n---\n", "duplicate key 'name'"),
        ("---\n1: a\n---\n", "a key that is not a string (1)"),
        ("---\n? [a, b]\n: x\n---\n", "a key that is not a string (['a', 'b'])"),
        ("---\nname: &n a\ndescription: *n\n---\n", "aliases are not allowed"),
        ("---\nm: &m [*m]\n---\n", "aliases are not allowed"),
    ],
)
def test_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(InvalidSkillFrontmatter) as info:
        parse_skill_md(text, "skills/x/SKILL.md")
    assert fragment in str(info.value)
    assert "skills/x/SKILL.md" in str(info.value)


def test_a_yaml_error_names_its_line() -> None:
    with pytest.raises(InvalidSkillFrontmatter) as info:
        parse_skill_md("---\nname: a\ndescription: [b\n---\n", "x/SKILL.md")
    assert "x/SKILL.md:" in str(info.value)


# -- every caller reads by the same rules ------------------------------------------------------

AGREED = [
    "---\nname: a\ndescription: b\n---\nBody $1\n",
    "\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nBody $1\r\n",
    "---\nname: a\ndescription: >\n  folded\n  text\n---\n",
    "---\nname: a\ndescription: b\nmetadata:\n  k: v\n---\n",
    "---\n---\nBody\n",
]
REFUSED = [
    "no frontmatter $1\n",
    "--- \nname: a\ndescription: b\n--- \nBody $1\n",
    "---\nname: a\ndescription: b\n",
    "---\nname: a\nname: a\ndescription: b\n---\nBody $1\n",
    "---\nname: &x a\ndescription: *x\n---\n",
    "---\n- a\n---\nBody\n",
    "---\ntrue: a\ndescription: b\n---\n",
]


@pytest.mark.parametrize("text", AGREED + REFUSED)
def test_every_reader_agrees(text: str, tmp_path: Path) -> None:
    """The runtime's reader, the strict mode, serve's wire reading and the lenient readings
    (listings, argument substitution) take and refuse the same texts, to the same mapping."""
    try:
        expected: dict[str, object] | None = parse_skill_md(text).frontmatter
    except InvalidSkillFrontmatter:
        expected = None
    assert (expected is not None) == (text in AGREED)
    skill = tmp_path / "a"
    skill.mkdir()
    (skill / "SKILL.md").write_text(text, encoding="utf-8", newline="")
    strict, findings = check(skill / "SKILL.md", None)
    if text.startswith("\ufeff"):  # read alike, but reported: several clients reject it
        assert [f.code for f in findings] == ["SkillFrontmatterBOM"]
    else:
        assert strict == expected, findings
    try:
        wire: dict[str, object] | None = wire_frontmatter(text.encode())
    except ValueError:
        wire = None
    assert wire == expected
    assert skill_frontmatter(text) == (expected or {})
    head, body = split_skill_text(text)
    assert head + body == text
    if expected is not None:
        assert body == parse_skill_md(text).body
    if expected is not None and "description" in expected:
        assert skill_description(text) == expected["description"].strip()  # type: ignore[union-attr]


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
    text = "---\nname: a\nname: b\ndescription: d\n---\n"
    with pytest.raises(InvalidSkillFrontmatter, match="duplicate key 'name'"):
        parse_skill_md(text)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text(text)
    frontmatter, findings = check(tmp_path / "a" / "SKILL.md", None)
    assert frontmatter is None
    assert [(f.code, f.line) for f in findings] == [("InvalidSkillDefinition", 3)]


def test_frontmatter_nested_3000_deep_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    text = "---\nname: a\ndescription: d\nmetadata: " + "[" * 3000 + "]" * 3000 + "\n---\n"
    with pytest.raises(InvalidSkillFrontmatter, match="nested more than 100 levels deep"):
        parse_skill_md(text)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text(text)
    frontmatter, findings = check(tmp_path / "a" / "SKILL.md", None)
    assert frontmatter is None and "nested more than" in findings[-1].message
