"""The ``skill://`` URI syntax (parse and format) and the security rules every provider keeps.

Raw and percent-encoded NUL bytes and ``..`` segments are rejected before anything is looked
up, provider names are checked (:func:`agenttools_runtime.names.is_provider_name`), and a
reference is resolved (symbolic links too) and must stay inside its skill directory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from agenttools_runtime.errors import (
    InvalidSkillProviderName,
    InvalidSkillURI,
    SkillNullByte,
    SkillPathTraversal,
    SkillReferenceNotFound,
)
from agenttools_runtime.names import is_provider_name
from agenttools_runtime.skills.walk import VCS_NAMES

SCHEME = "skill"
MAX_REFERENCE_LENGTH = 4096


@dataclass(frozen=True, slots=True)
class SkillURI:
    """A parsed ``skill://`` URI or bare name.

    ``provider`` is None for a bare name (looked up across providers). ``path`` holds the
    decoded path segments after the provider: the skill name first, then the reference path.
    Every segment is free of NUL, ``/``, ``\\``, ``.`` and ``..``.
    """

    provider: str | None
    path: tuple[str, ...]

    @property
    def skill(self) -> str:
        return self.path[0]

    @property
    def reference(self) -> str | None:
        """The reference path (``/``-separated), None for the skill itself."""
        return "/".join(self.path[1:]) or None

    def __str__(self) -> str:
        return format_skill_uri(self.provider, self.path)


def format_skill_uri(provider: str | None, path: Sequence[str]) -> str:
    """The canonical text of a URI: every segment percent-encoded; bare when no provider."""
    encoded = "/".join(quote(segment, safe="") for segment in path)
    return encoded if provider is None else f"{SCHEME}://{provider}/{encoded}"


def parse_skill_uri(text: str) -> SkillURI:
    """Parse ``skill://provider/skill[/reference]`` or a bare ``skill[/reference]``.

    Segments are percent-decoded one at a time (so ``%2e%2e`` is ``..`` and ``%2F`` is a
    separator). Raises ``SkillNullByte`` for a raw or encoded NUL, ``SkillPathTraversal`` for a
    ``..`` segment (or a backslash, a separator elsewhere), ``InvalidSkillProviderName``, and
    ``InvalidSkillURI`` for anything else malformed (another scheme, no skill name, empty or
    ``.`` segments, a query or fragment). A trailing ``/`` is ignored.
    """
    if "\0" in text:
        raise SkillNullByte(uri=text)
    scheme, sep, rest = text.partition("://")
    provider: str | None = None
    if sep:
        if scheme.lower() != SCHEME:
            raise InvalidSkillURI(uri=text, reason=f"the scheme must be '{SCHEME}', not '{scheme}'")
        raw_provider, _, raw_path = rest.partition("/")
        provider = _decode(raw_provider, text)
        if not is_provider_name(provider):
            raise InvalidSkillProviderName(provider=provider, uri=text)
    else:
        raw_path = text
    if "?" in raw_path or "#" in raw_path:
        raise InvalidSkillURI(
            uri=text, reason="a query or fragment is not allowed (percent-encode ? and #)"
        )
    raw_path = raw_path.removesuffix("/")
    raws = raw_path.split("/") if raw_path else ()
    segments = [segment for raw in raws for segment in _decode(raw, text).split("/")]
    if any(segment == ".." or "\\" in segment for segment in segments):
        raise SkillPathTraversal(uri=text)
    if not segments:
        raise InvalidSkillURI(uri=text, reason="no skill name")
    if any(segment in ("", ".") for segment in segments):
        raise InvalidSkillURI(uri=text, reason="empty or '.' path segment")
    if len("/".join(segments[1:])) > MAX_REFERENCE_LENGTH:
        raise InvalidSkillURI(uri=text, reason=f"reference longer than {MAX_REFERENCE_LENGTH}")
    return SkillURI(provider, tuple(segments))


def _decode(raw: str, uri: str) -> str:
    try:
        decoded = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise InvalidSkillURI(uri=uri, reason="a percent-encoded sequence is not UTF-8") from None
    if "\0" in decoded:
        raise SkillNullByte(uri=uri)
    return decoded


def is_segment(name: str) -> bool:
    """One path segment that leads nowhere else: not empty, ``.`` or ``..``; no separator
    (``/`` or ``\\``) and no NUL."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def is_listable(name: str) -> bool:
    """A skill name a server may give: one segment without control characters (a newline in
    a name would forge lines of the listing an agent reads)."""
    return is_segment(name) and name.isprintable()


def safe_skill_path(directory: Path, reference: Sequence[str], skill: str | None = None) -> Path:
    """``directory/reference`` after checking it stays inside *directory* once every symbolic
    link is resolved, and is a regular file. Version-control metadata is never served.

    Raises ``SkillPathTraversal`` (escapes) or ``SkillReferenceNotFound`` (absent, not a file).
    """
    rel = "/".join(reference)
    name = directory.name if skill is None else skill
    if "\0" in rel:
        raise SkillNullByte(reference=rel)
    if not reference or not all(is_segment(s) for s in reference):
        raise SkillPathTraversal(reference=rel)
    try:
        root = Path(os.path.realpath(directory))
        target = Path(os.path.realpath(directory.joinpath(*reference)))
    except OSError:  # a name or path too long for this system, a link loop (Windows)
        raise SkillReferenceNotFound(reference=rel, skill=name) from None
    if target != root and root not in target.parents:
        raise SkillPathTraversal(reference=rel, target=target)
    # VCS metadata (credentials in .git/config) under any alias: a link, another letter case
    parts = (*reference, *target.relative_to(root).parts)
    # os.path.isfile: False for anything but a regular file, and for every OSError
    if any(part.lower() in VCS_NAMES for part in parts) or not os.path.isfile(target):
        raise SkillReferenceNotFound(reference=rel, skill=name)
    return target
