"""docs/concepts.md, the map of the code: every concept names its one module, and every module
it names exists (a moved module makes this fail until the map follows)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNTIME = REPO / "agenttools_runtime"


def table_rows(heading: str) -> list[list[str]]:
    """The cells of the table under *heading* in docs/concepts.md (header and rule skipped)."""
    text = (REPO / "docs" / "concepts.md").read_text("utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def named_modules(cell: str) -> list[str]:
    return [m for m in re.findall(r"`([^`]+)`", cell) if m.endswith((".py", "/"))]


def test_every_concept_names_modules_that_exist() -> None:
    rows = table_rows("The pieces")
    assert len(rows) >= 15
    for concept, _what, module, _page in rows:
        modules = named_modules(module)
        assert modules, f"{concept}: names no module"
        for name in modules:
            assert (RUNTIME / name).exists(), f"{concept}: {name} does not exist"


def test_every_project_module_is_on_the_map() -> None:
    rows = table_rows("The project checks")
    listed = {named_modules(module)[0] for module, _owns in rows}
    on_disk = {
        f"project/{p.name}" for p in (RUNTIME / "project").glob("*.py") if p.name != "__init__.py"
    }
    assert listed == on_disk
