"""Generate docs/reference.md from the one schema definition (agenttools_runtime/schema.py)
and the table of problem codes (agenttools_runtime/project/).

    python docs/gen_reference.py          # rewrite docs/reference.md
    python docs/gen_reference.py --check  # exit 1 if it is out of date

tests/test_schema.py fails when the committed page differs from this output.
"""

from __future__ import annotations

import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "reference.md"


def generate() -> str:
    from agenttools_runtime.project import CODES
    from agenttools_runtime.schema import reference_markdown

    lines = [
        reference_markdown().rstrip("\n"),
        "",
        "## Problem codes",
        "",
        "`agenttools validate` and the build hook report `path:line: code: message`; warnings",
        "read `path:line: warning: code: message` and never fail a build.",
        "",
        "| code | severity | meaning |",
        "|---|---|---|",
    ]
    lines += [
        f"| `{code}` | {severity} | {meaning} |" for code, (severity, meaning) in CODES.items()
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    return write_or_check(REFERENCE, generate(), "docs/gen_reference.py", argv)


def write_or_check(page: Path, text: str, script: str, argv: list[str]) -> int:
    """Write *text* to *page*, or with ``--check`` exit 1 when the page differs from it."""
    if "--check" in argv:
        current = page.read_text(encoding="utf-8") if page.exists() else ""
        if current != text:
            print(f"{page} is out of date; run: python {script}")
            return 1
        return 0
    page.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
