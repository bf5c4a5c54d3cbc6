"""Every document an export writes is validated against the published JSON schema of its format
before anything is written (``schemas/``, with where each came from in ``schemas/README.md``).

jsonschema is imported when a document is validated (an export, a ``server.json``), never on
the start-up of another command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenttools_runtime import errors

SCHEMAS = Path(__file__).resolve().parent / "schemas"
MAX_PROBLEMS = 5
_MAX_MESSAGE = 300  # characters of one problem (a hostile value is not echoed whole)


def load_schema(name: str) -> dict[str, Any]:
    """The vendored schema *name* (a file of ``schemas/``)."""
    value: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return value


def problems(document: Any, schema_name: str) -> list[str]:
    """Where and why *document* breaks the schema *schema_name*: ``at /path: message``,
    the most relevant first; empty when it is valid."""
    from jsonschema import exceptions, validators

    schema = load_schema(schema_name)
    validator = validators.validator_for(schema)(schema)
    found = list(validator.iter_errors(document))
    if not found:
        return []
    best = exceptions.best_match(found)
    ordered = [best, *(e for e in found if e is not best)]
    return [_describe(e) for e in ordered]


def check(document: Any, schema_name: str, format_name: str) -> None:
    """``ExportSchemaViolation`` listing the first problems of *document*, if any."""
    found = problems(document, schema_name)
    if found:
        listed = "; ".join(found[:MAX_PROBLEMS])
        if len(found) > MAX_PROBLEMS:
            listed += f"; and {len(found) - MAX_PROBLEMS} more"
        raise errors.ExportSchemaViolation(
            format_name=format_name,
            schema=load_schema(schema_name).get("$id", schema_name),
            problems=listed,
        )


def _describe(error: Any) -> str:
    path = "/" + "/".join(str(p) for p in error.absolute_path)
    message = str(error.message)
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 1] + "…"
    return f"at {path}: {message}"
