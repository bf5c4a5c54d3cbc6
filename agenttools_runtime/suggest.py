""" "Did you mean": the known names closest to a mistyped one (clients, bundles, servers,
commands), by :mod:`difflib`. The names of what is installed come from
:mod:`agenttools_runtime.name_hints`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

# difflib's ratio a name must reach to be suggested: the rule of the validator's "did you
# mean" for keys (project/keys.py) and of pypa/build; below it, "weather-tools" would be
# offered "agenttools" (0.61) for any name that merely ends in "tools"
CUTOFF = 0.8


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to *n* of *candidates* closest to *word*, best first, compared case-insensitively;
    a candidate *word* is a prefix of counts too (``weather`` → ``weather-tools``)."""
    by_fold: dict[str, str] = {}
    for candidate in candidates:
        by_fold.setdefault(candidate.casefold(), candidate)
    folded = word.casefold()
    found = difflib.get_close_matches(folded, list(by_fold), n=n, cutoff=CUTOFF)
    if not found and len(folded) >= 3:
        found = sorted(f for f in by_fold if f.startswith(folded))[:n]
    return [by_fold[f] for f in found]


def did_you_mean(word: str, candidates: Iterable[str] | Mapping[str, str]) -> str:
    """``' Did you mean "cursor"?'`` (or ``' Did you mean "a" or "b"?'``), else ``""``.
    *candidates* may map each spelling to the name to suggest (an alias to its client id)."""
    spellings: dict[str, str] = (
        dict(candidates) if isinstance(candidates, Mapping) else {c: c for c in candidates}
    )
    names: list[str] = []
    for match in close_matches(word, spellings):
        if spellings[match] not in names and spellings[match] != word:
            names.append(spellings[match])
    if not names:
        return ""
    return " Did you mean " + " or ".join(f'"{n}"' for n in names[:2]) + "?"
