"""Argument substitution in a skill's text, in one regular-expression pass (inserted text is
never scanned again): the seed convention (``$1`` is the first argument, ``$ARGUMENTS`` and
``$@`` all of them) or Claude Code's (``$0`` is the first, ``$ARGUMENTS[N]``, shell-style
quoting, named arguments)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agenttools_runtime.skills.skill_md import skill_frontmatter, split_skill_text

if TYPE_CHECKING:
    Convention = Literal["seed", "claude"]

CONVENTIONS: tuple[Convention, ...] = ("seed", "claude")

# seed: $1…$N (1-based; "$1x" is the first argument then "x", as in AgentPool), $ARGUMENTS, $@
_SEED_PLACEHOLDER = re.compile(r"\$(?:(?P<all>ARGUMENTS|@)|(?P<nth>[1-9][0-9]*))")
# claude, in Claude Code's precedence: $name, $ARGUMENTS[N], $N not followed by a word
# character, $ARGUMENTS
_CLAUDE_PLACEHOLDER = (
    r"\$(?:{named}ARGUMENTS\[(?P<indexed>[0-9]+)\]|(?P<nth>[0-9]+)(?!\w)|(?P<all>ARGUMENTS))"
)
_ARGUMENT_NAME = re.compile(r"[A-Za-z_]\w*")


def substitute_arguments(
    text: str,
    arguments: str | Sequence[str] | None,
    convention: Convention = "seed",
    *,
    names: Sequence[str] = (),
) -> str:
    """Replace argument placeholders in *text* in a single pass.

    *arguments* is the argument string as typed (split on whitespace for ``seed``,
    shell-style for ``claude``) or an already split list. None leaves *text* unchanged.
    Inserted values are never scanned again, ``$10`` is the tenth argument (never ``$1``
    followed by ``0``), and a placeholder without an argument stays as written.

    - ``seed``: ``$1``…``$N`` are 1-based; ``$ARGUMENTS`` and ``$@`` are the whole string.
    - ``claude``: ``$0``…``$N`` (not followed by a letter, digit or ``_``) and
      ``$ARGUMENTS[N]`` are 0-based; ``$ARGUMENTS`` is the whole string; ``$name`` for each of
      *names* (the frontmatter ``arguments``) in order; when *text* has no placeholder at all,
      ``ARGUMENTS: <string>`` is appended.

    Raises ``ValueError`` for an unknown convention.
    """
    check_convention(convention)
    if arguments is None:
        return text
    raw, positional = split_arguments(arguments, convention)
    base = 1 if convention == "seed" else 0
    named = {n: str(i) for i, n in enumerate(names) if _ARGUMENT_NAME.fullmatch(n)}
    if convention == "seed":
        pattern = _SEED_PLACEHOLDER
    else:
        longest_first = sorted(named, key=len, reverse=True)
        alternatives = "|".join(re.escape(n) for n in longest_first)
        pattern = re.compile(
            _CLAUDE_PLACEHOLDER.format(
                named=rf"(?P<name>{alternatives})(?![\[\w])|" if named else ""
            )
        )

    def replace(match: re.Match[str]) -> str:
        groups = match.groupdict()
        if groups["all"]:
            return raw
        name = groups.get("name")
        digits = named[name] if name else groups.get("indexed") or groups["nth"]
        found = _nth(positional, digits, base)
        return match.group(0) if found is None else found

    substituted, count = pattern.subn(replace, text)
    if convention == "claude" and count == 0 and raw.strip():
        substituted = f"{text.rstrip(chr(10))}\n\nARGUMENTS: {raw}\n"
    return substituted


def substitute_skill_md(
    data: bytes, arguments: str | Sequence[str] | None, convention: Convention = "seed"
) -> bytes:
    """SKILL.md's bytes with *arguments* substituted in its body (never in the frontmatter;
    ``claude`` takes the frontmatter ``arguments`` as names). Bytes that are not UTF-8 are
    kept as they are."""
    text = data.decode("utf-8", errors="surrogateescape")
    head, body = split_skill_text(text)
    names = argument_names(skill_frontmatter(text)) if convention == "claude" else []
    body = substitute_arguments(body, arguments, convention, names=names)
    return (head + body).encode("utf-8", errors="surrogateescape")


def argument_names(frontmatter: Mapping[str, Any]) -> list[str]:
    """Claude Code's named arguments: frontmatter ``arguments`` as a list or a
    space-separated string."""
    value = frontmatter.get("arguments")
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def check_convention(convention: str) -> None:
    """Raises ``ValueError`` unless *convention* is one of :data:`CONVENTIONS`."""
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown argument convention {convention!r}; use seed or claude")


def split_arguments(
    arguments: str | Sequence[str], convention: Convention
) -> tuple[str, list[str]]:
    """``(the whole argument string, the arguments one by one)`` as *convention* splits them."""
    if not isinstance(arguments, str):
        items = [str(a) for a in arguments]
        return (" ".join(items) if convention == "seed" else shlex.join(items)), items
    if convention == "seed":
        return arguments, arguments.split()
    try:
        return arguments, shlex.split(arguments)
    except ValueError:  # an unbalanced quote: Claude Code is lenient, so are we
        return arguments, arguments.split()


def _nth(items: Sequence[str], digits: str, base: int) -> str | None:
    """``items[digits - base]``; None when out of range. A number longer than any index is out
    of range without ``int()``, which refuses strings of more than 4300 digits."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(len(items) + base)):
        return None
    index = int(digits) - base
    return items[index] if 0 <= index < len(items) else None
