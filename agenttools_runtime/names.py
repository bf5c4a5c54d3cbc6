"""Every naming rule of agenttools, and its message: skill names and descriptions (the Agent
Skills spec, in skills-ref's wording), server and bundle item names, distribution names,
``"dist/item"`` references and ``skill://`` provider names.

The build hook (through ``validate``), discovery of installed manifests, bundles, skill
installation and ``skill://`` resolution all check names here, so a name the hook accepts is
one the runtime accepts, and the reverse. Kept free of heavy imports: ``list`` starts with it.
The patterns are strings that ``re`` compiles on first use (and caches): compiling is pure
Python, and a build through ``agenttools_hook.backend`` matches two of the six.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import TypeGuard

from agenttools_runtime.dist_scan import canonical_dist_name as canonical_dist_name
from agenttools_runtime.errors import InvalidAgentSkillDescription, InvalidAgentSkillName

# -- skills (agentskills.io specification) ---------------------------------------------------
SKILL_FILE = "SKILL.md"  # the file that makes a folder a skill
SKILL_NAME_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
MAX_SKILL_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500


def is_skill_name(name: object) -> TypeGuard[str]:
    """1–64 lowercase ASCII letters, digits and single inner hyphens."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= MAX_SKILL_NAME_LENGTH
        and re.fullmatch(SKILL_NAME_PATTERN, name) is not None
    )


def check_skill_name(name: object) -> str:
    """Return *name* if it is a valid skill name, else raise ``InvalidAgentSkillName``.

    So ``""``, ``".."`` or ``"a/b"`` can never resolve to a skills root or outside it.
    """
    if not is_skill_name(name):
        raise InvalidAgentSkillName(name=name)
    return name


def skill_name_problems(name: str, directory: str | None = None) -> list[str]:
    """Why *name* is not a skill name (empty when it is), in skills-ref's messages, plus the
    spec's rules skills-ref relaxes: ASCII only, and the name exactly as written (skills-ref
    strips and NFKC-normalizes it first, so ``" foo"`` or a full-width ``ｆｏｏ`` would pass it
    while clients and the runtime, which compare the raw name with the directory, refuse them).
    *directory*: the skill's folder name, which must equal the name."""
    raw = name
    name = nfkc(name.strip())
    out: list[str] = []
    if not name:
        return ["Field 'name' must be a non-empty string"]
    if raw != name:
        out.append(
            f"Skill name {json.dumps(raw, ensure_ascii=False)} must be written exactly as "
            f"'{name}' (no surrounding spaces, no full-width or other compatibility characters)"
        )
    if len(name) > MAX_SKILL_NAME_LENGTH:
        out.append(
            f"Skill name '{name}' exceeds {MAX_SKILL_NAME_LENGTH} character limit "
            f"({len(name)} chars)"
        )
    if name != name.lower():
        out.append(f"Skill name '{name}' must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        out.append("Skill name cannot start or end with a hyphen")
    if "--" in name:
        out.append("Skill name cannot contain consecutive hyphens")
    if not all(c.isalnum() or c == "-" for c in name):
        out.append(
            f"Skill name '{name}' contains invalid characters. "
            "Only letters, digits, and hyphens are allowed."
        )
    elif not name.isascii():
        out.append(
            f"Skill name '{name}' contains non-ASCII characters; the Agent Skills spec allows "
            "only a-z, 0-9 and hyphens, and several clients reject other letters"
        )
    if directory is not None and nfkc(directory) != name:
        out.append(f"Directory name '{directory}' must match skill name '{name}'")
    return out


def nfkc(text: str) -> str:
    """*text* NFKC-normalized (as skills-ref compares names)."""
    return unicodedata.normalize("NFKC", text)


def is_skill_description(description: object) -> TypeGuard[str]:
    return (
        isinstance(description, str)
        and description.strip() != ""
        and len(description) <= MAX_DESCRIPTION_LENGTH
    )


def check_skill_description(name: str, description: object) -> str:
    """Return *description* if it is 1–1024 characters and not blank, else raise
    ``InvalidAgentSkillDescription`` (clients skip skills without one)."""
    if not is_skill_description(description):
        raise InvalidAgentSkillDescription(name=name)
    return description


def description_problems(description: str) -> list[str]:
    if not description.strip():
        return ["Field 'description' must be a non-empty string"]
    if len(description) > MAX_DESCRIPTION_LENGTH:
        return [
            f"Description exceeds {MAX_DESCRIPTION_LENGTH} character limit "
            f"({len(description)} chars)"
        ]
    return []


def compatibility_problems(compatibility: str) -> list[str]:
    if len(compatibility) > MAX_COMPATIBILITY_LENGTH:
        return [
            f"Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit "
            f"({len(compatibility)} chars)"
        ]
    if not compatibility.strip():
        return ["Field 'compatibility' must be 1-500 characters when present"]
    return []


# -- server and bundle names ("items") -------------------------------------------------------
# any text without "/" (it separates the distribution in a reference) and not only whitespace
ITEM_NAME_PATTERN = r"[^/]*[^\s/][^/]*"


def is_item_name(name: object) -> bool:
    """A server or bundle name: any non-blank text without ``/`` (``/`` separates the
    distribution in a reference)."""
    return isinstance(name, str) and re.fullmatch(ITEM_NAME_PATTERN, name) is not None


def item_name_problem(name: object, what: str) -> str | None:
    """Why *name* is not a *what* ("server", "bundle") name, or None."""
    if is_item_name(name):
        return None
    return f"the {what} name {json.dumps(name)} must be a non-empty name without '/'"


# -- distributions ---------------------------------------------------------------------------
# PEP 508 (and packaging's validate=True): ASCII letters and digits at both ends, . _ - inside
DIST_NAME_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"


def is_dist_name(name: object) -> bool:
    return isinstance(name, str) and re.fullmatch(DIST_NAME_PATTERN, name) is not None


# -- references: "item" or "dist/item" -------------------------------------------------------
# A name-shaped reference (dist-name characters): where a string may be a name or a path (a
# skill list), one that matches is a name, anything else a path.
NAME_SHAPED_REFERENCE = rf"(?:{DIST_NAME_PATTERN}/)?[A-Za-z0-9][A-Za-z0-9._-]*"


def is_name_shaped(reference: str) -> bool:
    """Whether *reference* is name-shaped (a name or ``dist/name``, not a path)."""
    return re.fullmatch(NAME_SHAPED_REFERENCE, reference) is not None


def split_reference(reference: str) -> tuple[str | None, str]:
    """``"dist/item"`` → ``("dist", "item")``; ``"item"`` → ``(None, "item")``."""
    dist, slash, item = reference.rpartition("/")
    return (dist if slash else None), item


def is_item_reference(reference: object) -> bool:
    """A bundle's server or skill reference as the build hook allows it: ``"name"`` or
    ``"dist/name"``, the name non-blank, the distribution a distribution name."""
    if not isinstance(reference, str):
        return False
    dist, item = split_reference(reference)
    return item.strip() != "" and (dist is None or is_dist_name(dist))


# a skill name (its length in a lookahead), optionally after a distribution name and "/"
SKILL_REFERENCE_PATTERN = (
    rf"(?:{DIST_NAME_PATTERN}/)?(?=[^/]{{1,{MAX_SKILL_NAME_LENGTH}}}$){SKILL_NAME_PATTERN}"
)


def is_skill_reference(reference: object) -> bool:
    """A bundle's skill reference: a skill name, or ``"dist/skill-name"``."""
    return (
        isinstance(reference, str) and re.fullmatch(SKILL_REFERENCE_PATTERN, reference) is not None
    )


def qualified_skill_reference(reference: str) -> bool:
    """``"dist/anything-but-slash"``: a reference to another distribution's skill as a user
    may type it (checked as a skill name afterwards, so the message names the rule)."""
    dist, item = split_reference(reference)
    return dist is not None and is_dist_name(dist) and item != ""


# -- skill:// providers ----------------------------------------------------------------------
PROVIDER_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}"


def is_provider_name(name: object) -> bool:
    """A ``skill://`` provider name: a letter or digit, then letters, digits, ``-`` and
    ``_``, at most 63 characters."""
    return isinstance(name, str) and re.fullmatch(PROVIDER_NAME_PATTERN, name) is not None
