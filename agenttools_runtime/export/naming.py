"""The name rule of each format, checked before anything is rendered, with a name that passes
it offered instead (``Weather_Tools`` → ``weather-tools``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agenttools_runtime import errors

MAX_LENGTH = 64


@dataclass(frozen=True, slots=True)
class NameRule:
    """A format's rule for plugin (or marketplace) names: a pattern the whole name matches,
    what it says in words, and where it comes from."""

    pattern: str
    says: str

    def problem(self, name: str) -> str | None:
        if not name:
            return "it is empty"
        if len(name) > MAX_LENGTH:
            return f"it is longer than {MAX_LENGTH} characters"
        if re.fullmatch(self.pattern, name) is None:
            return self.says
        return None


KEBAB = NameRule(
    r"[a-z0-9]+(?:-[a-z0-9]+)*",
    "it must be kebab-case: lowercase letters, digits and single hyphens between them",
)
# Codex 0.171: the name is a directory of its plugin cache and half of NAME@MARKETPLACE
CODEX = NameRule(
    r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?",
    "it must be letters, digits, '.', '_' and '-', starting and ending with a letter or digit",
)
RULES: dict[str, NameRule] = {
    # Agent Plugins 1.0.0/1.1.0 §5.5 (the schema's pattern)
    "agent-plugin": NameRule(
        r"(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?",
        "it must be 1-64 lowercase letters, digits, hyphens and periods, start and end with a "
        "letter or digit, without -- or ..",
    ),
    # Claude Code 2.1.197: spaces are refused; anything but kebab-case is warned about
    # ("the Claude.ai marketplace sync requires kebab-case")
    "claude-plugin": KEBAB,
    "claude-marketplace": KEBAB,
    "codex-plugin": CODEX,
    "codex-marketplace": CODEX,
    # Gemini CLI 0.61: "Only letters (a-z, A-Z), numbers (0-9), and dashes (-) are allowed."
    "gemini-extension": NameRule(
        r"[A-Za-z0-9-]+", "only letters (a-z, A-Z), digits (0-9) and dashes (-) are allowed"
    ),
}


def suggest(name: str) -> str:
    """A kebab-case name close to *name*, which every format accepts."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:MAX_LENGTH].rstrip("-") or "plugin"


def check_name(name: str, format_id: str, format_name: str) -> str:
    """*name* when it passes the rule of *format_id*; ``ExportNameInvalid`` with a suggestion
    otherwise."""
    problem = RULES[format_id].problem(name)
    if problem is not None:
        raise errors.ExportNameInvalid(
            name=name, format_name=format_name, reason=problem, suggestion=suggest(name)
        )
    return name
