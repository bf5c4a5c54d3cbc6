"""The Agent Skills rules for names and descriptions, checked before any path is built."""

from __future__ import annotations

import re

from agenttools_runtime.errors import InvalidAgentSkillDescription, InvalidAgentSkillName

NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024


def is_valid_name(name: object) -> bool:
    """1–64 lowercase ASCII letters, digits and single inner hyphens."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= MAX_NAME_LENGTH
        and NAME_PATTERN.fullmatch(name) is not None
    )


def validate_name(name: object) -> str:
    """Return *name* if it is a valid skill name, else raise ``InvalidAgentSkillName``.

    So ``""``, ``".."`` or ``"a/b"`` can never resolve to a skills root or outside it.
    """
    if not is_valid_name(name):
        raise InvalidAgentSkillName(name=name)
    assert isinstance(name, str)
    return name


def is_valid_description(description: object) -> bool:
    return (
        isinstance(description, str)
        and description.strip() != ""
        and len(description) <= MAX_DESCRIPTION_LENGTH
    )


def validate_description(name: str, description: object) -> str:
    """Return *description* if it is 1–1024 characters and not blank, else raise
    ``InvalidAgentSkillDescription`` (clients skip skills without one)."""
    if not is_valid_description(description):
        raise InvalidAgentSkillDescription(name=name)
    assert isinstance(description, str)
    return description
