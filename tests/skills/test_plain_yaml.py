"""skills/plain_yaml.py: frontmatter of plain ``key: value`` lines read without PyYAML, to
exactly what PyYAML's loader reads (the one the strict and lenient SKILL.md readers use), and
written as exactly what PyYAML's ``safe_dump`` writes (render_skill_md's call)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agenttools_runtime.errors import InvalidSkillFrontmatter
from agenttools_runtime.skills.plain_yaml import plain_mapping, plain_text
from agenttools_runtime.skills.skill_md import split_frontmatter
from agenttools_runtime.skills.yaml_loader import UniqueKeyLoader

SAMPLES = Path(__file__).resolve().parents[2] / "sample_packages"


def pyyaml(text: str) -> object:
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as exc:
        return f"error: {exc}"


# The pieces YAML treats specially: indicators, comment and mapping marks, whitespace that is
# and is not YAML's, line breaks of every kind, words and numbers it resolves to non-strings.
KEYS = st.sampled_from(
    ["name", "description", "a", "x-y", "k_2", "yes", "No", "null", "on", "1", "-a", "é",
     "name ", " name", "'q'", "a#b", "<<", "~", "a" * 200]
)  # fmt: skip
PIECES = st.sampled_from(
    ["word", "A", "z", " ", "  ", ":", ": ", "#", " #", "-", "?", "[", "]", "{", "}", ",",
     "'", '"', "&", "*", "!", "|", ">", "%", "@", "`", "~", ".", "0", "1.5", "2001-12-14",
     "0x1F", ".inf", "yes", "true", "Null", "=", "<<", "\t", "\xa0", "é", "→", "😀", "\x85",
     "\u2028", "\ufeff", "\x7f", "\x00", "\r", "\n", "\r\n", "---", "..."]
)  # fmt: skip
SEPARATORS = st.sampled_from([": ", ":  ", ":", " : ", ":\t", ":\xa0", "=", ": \n  "])
BREAKS = st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\n  ", "\n# c\n", "\x85", "\u2028"])


@st.composite
def frontmatter(draw: st.DrawFn) -> str:
    """Lines of keys, separators and values, mostly of the accepted shape with one or two
    special pieces in it (a value starting with a word, a key of letters, ": " between)."""
    near = draw(st.booleans())
    text = ""
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(["name", "description", "k_2"]) if near else KEYS)
        separator = ": " if near and draw(st.integers(0, 3)) else draw(SEPARATORS)
        start = draw(st.sampled_from(["word", "Z", "é", "😀"]) if near else PIECES)
        pieces = st.sampled_from(["w", " ", "x"]) | PIECES if near else PIECES
        value = start + "".join(draw(st.lists(pieces, max_size=6)))
        line_break = draw(st.sampled_from(["\n", "\r\n"]) | BREAKS if near else BREAKS)
        text += key + separator + value + line_break
    return text


@settings(max_examples=2000, deadline=None)
@given(frontmatter())
@example("name: a\ndescription: b\n")
@example("name: a\r\ndescription: b c: d\r\n")
@example("description: C# and F# tools, (for) [all] {x}, 100% @home\n")
def test_accepted_text_reads_as_pyyaml_reads_it(text: str) -> None:
    mapping = plain_mapping(text)
    if mapping is not None:
        assert mapping == pyyaml(text)


def safe_dump(mapping: dict[str, object]) -> str:
    return yaml.safe_dump(
        mapping, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )


@settings(max_examples=2000, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["name", "description", "k_2"]) | KEYS,
        st.tuples(
            st.sampled_from(["word", "Z", "é", "😀"]) | PIECES,
            st.lists(st.sampled_from(["w", " ", "x"]) | PIECES, max_size=6).map("".join),
        ).map("".join),
        max_size=4,
    )
)
@example({"name": "a", "description": "x " * 4_490 + "x"})
@example({"name": "a", "description": "x " * 5_100 + "x"})
@example({"k" * 100: "v", "k" * 101: "v", "k" * 128: "v"})
def test_written_text_is_what_pyyaml_writes(mapping: dict[str, object]) -> None:
    text = plain_text(mapping)
    if text is not None:
        assert text == safe_dump(mapping)
        assert plain_mapping(text) == mapping


@pytest.mark.parametrize(
    "text",
    [
        "name: weather-tools\ndescription: Look up weather, forecasts and alerts.\n",
        "name: a\r\ndescription: Café — “quoted” words, emoji 😀 and C# code\r\n",
        "name: a\n\ndescription: b\nlicense: MIT\ncompatibility: Python 3.10+\n",
        "name: a\ndescription: see https://example.org/x#y and a:b\n",
    ],
)
def test_plain_lines_are_read_without_pyyaml(text: str) -> None:
    assert plain_mapping(text) == pyyaml(text)


@pytest.mark.parametrize(
    "text",
    [
        "",  # PyYAML: None
        "name: a\nname: b\n",  # a repeated key: PyYAML's error
        "name: a\ndescription: >-\n  folded\n",
        "name: a\ndescription: two\n  lines\n",
        "name: a  # comment\n",
        "name: 'quoted'\n",
        "name: a\nmetadata:\n  k: v\n",
        "name: yes\n",
        "name: 1.0\n",
        "name: a: b\n",
        "name: a\n# comment\n",
        "name: a\tb\n",
        "name: a\rdescription: b\n",
        "name: a\u2028description: b\n",
    ],
)
def test_anything_else_is_left_to_pyyaml(text: str) -> None:
    assert plain_mapping(text) is None


def test_the_sample_packages_skills_need_no_pyyaml() -> None:
    """The common shape is the one read here: every SKILL.md of the sample packages whose
    frontmatter is one-line plain values (most of them) takes the quick path."""
    quick = 0
    for skill_md in sorted(SAMPLES.glob("**/SKILL.md")):
        try:
            front = split_frontmatter(skill_md.read_text(encoding="utf-8"))[0]
        except InvalidSkillFrontmatter:  # the samples of broken skills
            continue
        mapping = plain_mapping(front)
        if mapping is not None:
            quick += 1
            assert mapping == pyyaml(front), skill_md
    assert quick >= 1
