#!/usr/bin/env python3
"""Check a commit message against the Conventional Commits rules of this skill.

Usage: check_commit_message.py FILE   (or - to read standard input)
Prints one line per problem; exit status 0 when the message is fine, 1 otherwise.
"""

from __future__ import annotations

import re
import sys

TYPES = (
    "feat",
    "fix",
    "docs",
    "refactor",
    "perf",
    "test",
    "build",
    "ci",
    "chore",
    "style",
    "revert",
)
SUBJECT = re.compile(r"(?P<type>[a-z]+)(?:\((?P<scope>[^()\s]+)\))?(?P<bang>!)?: (?P<summary>.+)")
MAX_SUBJECT = 72


def problems(message: str) -> list[str]:
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    if not lines or not lines[0].strip():
        return ["the message is empty"]
    found = []
    subject = lines[0]
    match = SUBJECT.fullmatch(subject)
    if match is None:
        found.append('the subject must look like "type(scope): summary"')
    else:
        if match["type"] not in TYPES:
            found.append(f'unknown type "{match["type"]}"; use one of: {", ".join(TYPES)}')
        if match["summary"].endswith("."):
            found.append("the summary must not end with a period")
    if len(subject) > MAX_SUBJECT:
        found.append(f"the subject is {len(subject)} characters long; keep it to {MAX_SUBJECT}")
    if len(lines) > 1 and lines[1].strip():
        found.append("leave a blank line between the subject and the body")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    if argv[1] == "-":
        text = sys.stdin.read()
    else:
        with open(argv[1], encoding="utf-8") as handle:
            text = handle.read()
    found = problems(text)
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
