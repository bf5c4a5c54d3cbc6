"""skill:// parsing and its security rules, with hostile URIs raw and percent-encoded."""

from __future__ import annotations

import pytest

from agenttools_runtime.errors import (
    InvalidSkillProviderName,
    InvalidSkillURI,
    SkillNullByte,
    SkillPathTraversal,
    SkillURISecurityError,
)
from agenttools_runtime.skilluri.parse import SkillURI, format_skill_uri, parse_skill_uri


@pytest.mark.parametrize(
    ("text", "provider", "path"),
    [
        ("skill://local/python-expert", "local", ("python-expert",)),
        ("skill://local/python-expert/", "local", ("python-expert",)),
        ("skill://local/python-expert/SKILL.md", "local", ("python-expert", "SKILL.md")),
        (
            "skill://local/python-expert/references/style-guide.md",
            "local",
            ("python-expert", "references", "style-guide.md"),
        ),
        ("skill://local/my%20skill", "local", ("my skill",)),
        (
            "skill://skills-server/pdf-processing/_manifest",
            "skills-server",
            ("pdf-processing", "_manifest"),
        ),
        ("SKILL://Local/x", "Local", ("x",)),  # scheme case-insensitive, provider kept as is
        ("skill://local/a%2Fb/c", "local", ("a", "b", "c")),  # an encoded / is a separator
        ("skill://local/x/%252e%252e", "local", ("x", "%2e%2e")),  # decoded once only
        # look-alikes of . and / are plain characters (no NFKC folding anywhere)
        ("skill://local/x/%EF%BC%8E%EF%BC%8E/y", "local", ("x", "\uff0e\uff0e", "y")),
        ("skill://local/x/a%EF%BC%8Fb", "local", ("x", "a\uff0fb")),
        ("skill://local/x/\u2025", "local", ("x", "\u2025")),
        ("python-expert", None, ("python-expert",)),
        ("python-expert/references/guide.md", None, ("python-expert", "references", "guide.md")),
        ("my%20skill", None, ("my skill",)),
        ("skill://a/x", "a", ("x",)),
        ("skill://" + "p" * 63 + "/x", "p" * 63, ("x",)),
        ("skill://A_b-9/x", "A_b-9", ("x",)),
    ],
)
def test_parse(text: str, provider: str | None, path: tuple[str, ...]) -> None:
    parsed = parse_skill_uri(text)
    assert parsed == SkillURI(provider, path)
    assert parsed.skill == path[0]
    assert parsed.reference == ("/".join(path[1:]) or None)


def test_canonical_text_round_trips() -> None:
    parsed = parse_skill_uri("skill://local/my%20skill/refs/a%23b.md")
    assert str(parsed) == "skill://local/my%20skill/refs/a%23b.md"
    assert parse_skill_uri(str(parsed)) == parsed
    assert format_skill_uri(None, ["x", "y z"]) == "x/y%20z"


TRAVERSAL = [
    "skill://local/../etc/passwd",
    "skill://local/x/../../etc/passwd",
    "skill://local/x/references/../../y",
    "skill://local/x/%2e%2e/y",
    "skill://local/x/%2E%2E/y",
    "skill://local/x/.%2e/y",
    "skill://local/x/%2e./y",
    "skill://local/x/a%2F..%2Fb",  # separators smuggled in one segment
    "skill://local/x/..%5Cetc",  # a backslash is a separator on Windows
    "skill://local/x/a\\b",
    "skill://local/%2e%2e",
    "../x",
    "x/../../y",
    "%2e%2e/x",
]


@pytest.mark.parametrize("text", TRAVERSAL)
def test_traversal_is_rejected(text: str) -> None:
    with pytest.raises(SkillPathTraversal) as info:
        parse_skill_uri(text)
    assert str(info.value) == "Security error: Path traversal detected in URI"
    assert isinstance(info.value, SkillURISecurityError)


NUL = [
    "skill://local/x/a\x00b",
    "skill://local/x\x00",
    "skill://lo\x00cal/x",
    "skill://local/x/a%00b",
    "skill://local/x%00/y",
    "skill://lo%00cal/x",
    "x\x00",
    "x%00",
    "x/ref%00.md",
]


@pytest.mark.parametrize("text", NUL)
def test_nul_is_rejected_raw_and_encoded(text: str) -> None:
    with pytest.raises(SkillNullByte, match="Security error: Null byte detected in URI"):
        parse_skill_uri(text)


@pytest.mark.parametrize(
    "provider",
    ["-bad", "_bad", "a.b", "a b", "p" * 64, "é", "a%2Fb", "a:1", "a@b"],
)
def test_provider_names(provider: str) -> None:
    with pytest.raises(InvalidSkillProviderName) as info:
        parse_skill_uri(f"skill://{provider}/x")
    assert str(info.value).startswith("Security error: Invalid provider name")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("http://local/x", "scheme"),
        ("skill://local", "no skill name"),
        ("skill://local/", "no skill name"),
        ("", "no skill name"),
        ("skill://local/x//y", "empty"),
        ("skill://local/x/./y", "'.'"),
        ("skill://local/./x", "'.'"),
        ("skill://local/x?y=1", "query"),
        ("skill://local/x#frag", "fragment"),
        ("skill://local/x/%ff", "UTF-8"),
        ("skill://local/x/%C0%AE%C0%AE/y", "UTF-8"),  # an overlong encoding of "."
        ("skill://local/x/" + "a/" * 2100 + "b", "longer"),
    ],
)
def test_malformed(text: str, why: str) -> None:
    with pytest.raises(InvalidSkillURI, match=why):
        parse_skill_uri(text)
