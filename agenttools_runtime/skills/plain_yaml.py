"""The YAML frontmatter that is only ``key: value`` lines of plain strings, read without PyYAML.

Most SKILL.md frontmatter is ``name: …`` and ``description: …`` on one line each. Importing
PyYAML costs a build process more than everything else its checks do (its reader compiles
a large character class at import), so :func:`plain_mapping` reads that common shape
itself and gives up on anything else: for every text it accepts, the result equals what
PyYAML's safe loader returns (tests/skills/test_plain_yaml.py compares the two on generated
text); for the rest it returns None and the caller asks PyYAML. :func:`plain_text` is the way back: the
text PyYAML's ``safe_dump`` writes for a mapping of such strings.
"""

from __future__ import annotations

# YAML 1.1 words PyYAML's resolver turns into booleans and null: a key or value spelled so
# is not a string.
_NOT_STRINGS = frozenset(
    ("yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
     "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL")
)  # fmt: skip
_KEY_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
# PyYAML reads a longer key only in the "? key" form (and refuses plain ones from 1,024
# characters); far beyond any frontmatter key.
_MAX_KEY = 100
# PyYAML's emitter, at SKILL.md's width of 10,000, folds no shorter line.
_MAX_LINE = 9_000


def plain_mapping(text: str) -> dict[str, str] | None:
    """The mapping PyYAML's safe loader reads from *text* when every line is empty or
    ``key: value`` at the start of the line: the key ASCII letters, digits, ``-`` and ``_``
    (starting with a letter), one or more spaces after the colon, and the value a plain
    scalar on that line that starts with a letter and holds no ``": "``, ``" #"`` or
    trailing colon; no key twice, no word YAML reads as a boolean or null. Else None."""
    text = text.replace("\r\n", "\n")
    if not _printable(text):
        return None
    mapping: dict[str, str] = {}
    for line in text.split("\n"):
        if not line:
            continue
        key, separator, rest = line.partition(": ")
        value = rest.lstrip(" ").rstrip(" ")
        if (
            not separator
            or not key
            or len(key) > _MAX_KEY
            or not key[0].isascii()
            or not key[0].isalpha()
            or not _KEY_CHARACTERS.issuperset(key)
            or not value
            or not (value[0].isalpha() if value[0].isascii() else value[0] >= "\xa0")
            or ": " in value
            or " #" in value
            or value.endswith(":")
            or key in _NOT_STRINGS
            or value in _NOT_STRINGS
            or key in mapping
        ):
            return None
        mapping[key] = value
    return mapping or None


def plain_text(mapping: dict[str, object]) -> str | None:
    """What ``yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True,
    default_flow_style=False, width=10_000)`` writes when every key and value is a string
    :func:`plain_mapping` reads back from one ``key: value`` line; else None."""
    lines = []
    for key, value in mapping.items():
        if not isinstance(value, str) or len(key) + len(value) > _MAX_LINE:
            return None
        lines.append(f"{key}: {value}\n")
    text = "".join(lines)
    return text if plain_mapping(text) == mapping else None


def _printable(text: str) -> bool:
    """Lines of characters Python calls printable: printable ASCII and, beyond it, none of
    the controls, line and paragraph separators, format characters (the byte order mark),
    surrogates, private or unassigned code points; all of them printable to YAML too."""
    return text.replace("\n", "").isprintable()
