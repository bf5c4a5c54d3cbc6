"""Argument substitution: one pass, never rescanned, ``$10`` is not ``$1``; both conventions."""

from __future__ import annotations

import pytest

from agenttools_runtime.skills.skill_md import split_skill_text
from agenttools_runtime.skilluri.arguments import argument_names, substitute_arguments

ELEVEN = "a b c d e f g h i j k"


@pytest.mark.parametrize(
    ("text", "arguments", "expected"),
    [
        # the seed's example
        (
            "Create a greeting for $1 from $2.\nUse a $3 tone.",
            "Alice Company formal",
            "Create a greeting for Alice from Company.\nUse a formal tone.",
        ),
        # $10 and $11 are the tenth and eleventh arguments (AgentPool gives "a0 a1")
        ("$1 $10 $11", ELEVEN, "a j k"),
        ("$2$1", "x y", "yx"),
        # inserted text is never scanned again (AgentPool turns this into "p$2q" then "pq"...)
        ("$1$2", "p $2q", "p$2q"),
        ("$1 $ARGUMENTS", "$ARGUMENTS $1", "$ARGUMENTS $ARGUMENTS $1"),
        # missing positionals stay as written; $0 is not a seed placeholder
        ("only-one $1 $2 $3", "x", "only-one x $2 $3"),
        ("$0 $1", "x", "$0 x"),
        ("$01", "x", "$01"),
        # $ARGUMENTS and $@ are the string as given
        ("[$ARGUMENTS] [$@]", "  a   b ", "[  a   b ] [  a   b ]"),
        ("$ARGUMENTS|$1", "", "|$1"),
        # whitespace split, no quoting in the seed convention
        ("$1|$2", '"Alice Smith" formal', '"Alice|Smith"'),
        # no escapes: $$ and \$ are not special
        ("\\$1 $$1", "x", "\\x $x"),
        ("cost: $ 5 and $x", "a", "cost: $ 5 and $x"),
    ],
)
def test_seed(text: str, arguments: str, expected: str) -> None:
    assert substitute_arguments(text, arguments) == expected


def test_none_leaves_text_unchanged() -> None:
    text = "$1 $ARGUMENTS $@ $0"
    assert substitute_arguments(text, None) == text
    assert substitute_arguments(text, None, "claude") == text


def test_a_list_is_used_as_split() -> None:
    assert substitute_arguments("$1|$2|$ARGUMENTS", ["Alice Smith", "formal"]) == (
        "Alice Smith|formal|Alice Smith formal"
    )
    assert substitute_arguments("$0|$ARGUMENTS", ["My Button", "red"], "claude") == (
        "My Button|'My Button' red"
    )


@pytest.mark.parametrize(
    ("text", "arguments", "expected"),
    [
        ("$0 $1", "first second", "first second"),
        ("$ARGUMENTS[0]/$ARGUMENTS[1]", "first second", "first/second"),
        # shell-style quoting; $ARGUMENTS is the string as typed, quotes kept
        ("$0|$1|$ARGUMENTS", '"My Button" red', 'My Button|red|"My Button" red'),
        ("$10 $1", "a b c d e f g h i j k", "k b"),
        ("$2 $ARGUMENTS[5]", "a", "$2 $ARGUMENTS[5]"),
        ("$0$1", "p $1q", "p$1q"),
        # an unbalanced quote falls back to a whitespace split
        ("$0|$1", "it's fine", "it's|fine"),
        # $@ is not a Claude Code placeholder
        ("$@ $0", "x", "$@ x"),
    ],
)
def test_claude(text: str, arguments: str, expected: str) -> None:
    assert substitute_arguments(text, arguments, "claude") == expected


def test_claude_appends_arguments_when_no_placeholder() -> None:
    assert substitute_arguments("Do it.\n", "now please", "claude") == (
        "Do it.\n\nARGUMENTS: now please\n"
    )
    assert substitute_arguments("Do it.\n", "", "claude") == "Do it.\n"
    assert substitute_arguments("Do it.\n", "now", "seed") == "Do it.\n"


def test_claude_named_arguments() -> None:
    text = "Fix $issue in $component ($issues is not a name) $0"
    names = argument_names({"arguments": "issue component"})
    assert names == ["issue", "component"]
    assert substitute_arguments(text, "123 parser", "claude", names=names) == (
        "Fix 123 in parser ($issues is not a name) 123"
    )
    assert argument_names({"arguments": ["a", "b"]}) == ["a", "b"]
    assert argument_names({}) == []


def test_unknown_convention() -> None:
    with pytest.raises(ValueError, match="convention"):
        substitute_arguments("x", "y", "bash")  # type: ignore[arg-type]


def test_split_skill_text_keeps_the_frontmatter_verbatim() -> None:
    text = "---\r\nname: x\r\ndescription: $1\r\n---\r\nBody $1\r\n"
    head, body = split_skill_text(text)
    assert head == "---\r\nname: x\r\ndescription: $1\r\n---\r\n"
    assert body == "Body $1\r\n"
    assert split_skill_text("# No frontmatter $1\n") == ("", "# No frontmatter $1\n")


@pytest.mark.parametrize(
    ("text", "arguments", "expected"),
    [
        # Claude Code's $N is a run of digits not followed by a word character
        ("$0x $1_ $0", "a b", "$0x $1_ a"),
        ("$01", "a b", "b"),
        ("$ARGUMENTS[01]", "a b", "b"),
        # a named argument followed by [ or a word character is not that name
        ("$issue[0] $issue_x $issue.", "7", "$issue[0] $issue_x 7."),
        # $ at the very end, $$
        ("cost $", "a", "cost $\n\nARGUMENTS: a\n"),
        ("$$0", "a", "$a"),
    ],
)
def test_claude_placeholder_boundaries(text: str, arguments: str, expected: str) -> None:
    assert substitute_arguments(text, arguments, "claude", names=["issue"]) == expected


@pytest.mark.parametrize("convention", ["seed", "claude"])
def test_a_huge_placeholder_number_is_a_missing_argument(convention: str) -> None:
    """Python refuses int() of more than 4300 digits: such a placeholder is simply missing."""
    texts = ["$" + "9" * 5000]
    if convention == "claude":
        texts.append(f"$ARGUMENTS[{'9' * 5000}]")
    for text in texts:
        result = substitute_arguments(f"{text} $ARGUMENTS", "a b", convention)  # type: ignore[arg-type]
        assert result == f"{text} a b"


def test_very_many_arguments() -> None:
    arguments = [f"a{i}" for i in range(100_000)]
    assert substitute_arguments("$1 $99999 $100000 $100001", arguments) == (
        "a0 a99998 a99999 $100001"
    )
    assert substitute_arguments("$0 $99999 $100000", arguments, "claude") == "a0 a99999 $100000"


def test_seed_adjacent_text() -> None:
    # AgentPool's str.replace semantics for adjacent text, minus its rescanning and $10 bugs
    assert substitute_arguments("x$ARGUMENTSy $1x $@@ end $", "a b") == "xa by ax a b@ end $"
