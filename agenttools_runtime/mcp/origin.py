"""What a config key held before agenttools wrote it, and putting that back byte-for-byte.

When a write replaces an entry (``--force`` over the user's own, or an interrupted deploy's
undo), :func:`capture` keeps three things: the entry's data, its exact text in the file, and
the *hunk* of the file that the write changed, widened to cover the whole written entry (the
text there before and after, and where it was). :func:`restore` puts the entry back in the
first way that holds, each checked by re-reading the result (the key holds the old data and,
with the key taken out, the file is the same as the current one with the key taken out — so
nothing outside the entry moved):

1. the hunk, where the written text still stands: the file's bytes from before the write;
2. the entry's old text in place of the current entry: its bytes, in today's surroundings;
3. the entry's data, written as the format writes a new entry.

Texts only: the file system is :func:`agenttools_runtime.mcp.formats.edit_config_file`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenttools_runtime.jsonform import Form
from agenttools_runtime.mcp.formats import (
    Container,
    ParseError,
    StructureError,
    plain,
    same_data,
)

if TYPE_CHECKING:
    from agenttools_runtime.mcp.formats import ConfigFormat


@dataclass(frozen=True, slots=True)
class Hunk(Form):
    """The part of the file a write changed: ``before`` became ``after`` at ``start``. When
    the written entry's span was known, ``lead``/``trail`` say how far the hunk reaches
    before and after that span (so it is found again wherever the entry moved)."""

    WHAT = "a hunk"
    start: int
    before: str
    after: str
    lead: int | None = None
    trail: int | None = None


@dataclass(frozen=True, slots=True)
class Origin(Form):
    """An entry a write replaced: its ``value`` (plain data), its exact ``text`` in the file
    (None when its span was unknown), and the ``hunk`` of the write (None: unknown)."""

    WHAT = "an entry's origin"
    value: Any
    text: str | None = None
    hunk: Hunk | None = None


def capture(
    fmt: ConfigFormat, container: Container, key: str, before: str, after: str, value: Any
) -> Origin:
    """The origin of the entry *key* that held *value* in *before*, which a write turned
    into *after*."""
    old_span = fmt.entry_span(before, container, key)
    text = None if old_span is None else before[old_span[0] : old_span[1]]
    if before == after:  # nothing written (an identical entry): the hunk is the entry
        if old_span is None or text is None:
            return Origin(value, text)
        return Origin(value, text, Hunk(old_span[0], text, text, 0, 0))
    span = fmt.entry_span(after, container, key)
    prefix, suffix = common_ends(before, after)
    start, end = prefix, len(after) - suffix
    lead = trail = None
    if span is not None:  # widen to the whole written entry (the common parts around it)
        lead_start, end = min(start, span[0]), max(end, span[1])
        start, lead, trail = lead_start, span[0] - lead_start, end - span[1]
    end_before = end + len(before) - len(after)
    return Origin(value, text, Hunk(start, before[start:end_before], after[start:end], lead, trail))


def restore(fmt: ConfigFormat, container: Container, key: str, text: str, origin: Origin) -> str:
    """*text* with the entry *key* holding *origin* again (see the module docstring);
    unchanged when it already does, byte for byte."""
    current = fmt.read_entries(text, container)
    candidates: list[str] = []
    span = fmt.entry_span(text, container, key) if key in current else None
    hunk = origin.hunk
    if hunk is not None:
        places = [hunk.start]
        if span is not None and hunk.lead is not None:
            places.insert(0, span[0] - hunk.lead)
        for at in dict.fromkeys(places):
            if at >= 0 and text.startswith(hunk.after, at):
                candidates.append(text[:at] + hunk.before + text[at + len(hunk.after) :])
    if span is not None and origin.text is not None:
        candidates.append(text[: span[0]] + origin.text + text[span[1] :])
    if candidates:
        without = fmt.remove_entry(text, container, key)[0]
        for candidate in candidates:
            if _holds(fmt, container, key, candidate, origin.value, without):
                return candidate
    return fmt.set_entry(text, container, key, origin.value, {})[0]


def _holds(
    fmt: ConfigFormat, container: Container, key: str, text: str, value: Any, without: str
) -> bool:
    """*text* holds *value* under *key*, and nothing else differs from the file it came from
    (both with the key taken out are the same text)."""
    try:
        entries = fmt.read_entries(text, container)
        if key not in entries or not same_data(plain(entries[key]), value):
            return False
        return fmt.remove_entry(text, container, key)[0] == without
    except (ParseError, StructureError, ValueError):
        return False


def common_ends(a: str, b: str) -> tuple[int, int]:
    """The lengths of the longest common prefix of *a* and *b* and of the longest common
    suffix of what follows it (slices compared in C: a config file may be megabytes)."""
    prefix = _longest(min(len(a), len(b)), lambda n: a[:n] == b[:n])
    limit = min(len(a), len(b)) - prefix
    return prefix, _longest(limit, lambda n: a[len(a) - n :] == b[len(b) - n :])


def _longest(limit: int, same: Callable[[int], bool]) -> int:
    """The largest n up to *limit* for which ``same(n)`` holds (it holds for every smaller
    one too): a binary search."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low
