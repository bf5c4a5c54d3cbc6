"""A managed environment's receipt, ``<env>/agenttools-receipt.json``: what it was made from
and what it holds — the request as asked, the index options (credentials removed), the
interpreter and installer with their versions, and every resolved distribution with its
version, file and SHA-256 (from the installer's ``pylock.toml``, kept beside it). Written last,
atomically: an environment with a receipt is complete. It is enough to make the environment
again (``doctor --fix``) and to lock it (``agenttools.lock``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, jsonform, regular_files
from agenttools_runtime.envs.index import IndexOptions
from agenttools_runtime.envs.pylock import ResolvedDistribution
from agenttools_runtime.errors import InvalidReceipt

RECEIPT_FILE = "agenttools-receipt.json"
LOCK_FILE = "pylock.toml"
SCHEMA = 1

VENV, METADATA = "venv", "metadata"  # a virtual environment; only a wheel's .dist-info (uvx)


KINDS = ("index", "wheel", "directory")  # (an install request's: envs.requirement.Kind)


@dataclass(frozen=True, slots=True)
class Receipt(jsonform.Form):
    """See the module docstring. ``kind`` is the request's (``index``, ``wheel``,
    ``directory``); ``layout`` :data:`VENV` or :data:`METADATA`; ``key`` the identity of the
    request (:func:`agenttools_runtime.envs.layout.request_key`) that a rerun finds it by;
    ``source_sha256`` the hash of the wheel a file or directory request installed. The JSON
    nests the interpreter (``path``, ``version``) and the installer (``name``, ``version``)."""

    WHAT = "the receipt"
    requirement: str
    kind: str = field(metadata=jsonform.key(check=KINDS.__contains__, means="a request kind"))
    distribution: str
    version: str
    key: str
    index: IndexOptions
    interpreter: str = field(metadata=jsonform.key("interpreter.path"))
    python_version: str = field(metadata=jsonform.key("interpreter.version"))
    installer: str = field(metadata=jsonform.key("installer.name"))
    installer_version: str = field(metadata=jsonform.key("installer.version"))
    resolved: tuple[ResolvedDistribution, ...]
    layout: str = field(
        default=VENV, metadata=jsonform.key(check=(VENV, METADATA).__contains__, means="a layout")
    )
    source_sha256: str | None = None
    created: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)

    def to_json(self) -> dict[str, Any]:
        return {**jsonform.Form.to_json(self), "schema": SCHEMA}

    @classmethod
    def from_json(cls, data: object, what: str | None = None) -> Receipt:
        """Raises ``ValueError`` (:class:`~agenttools_runtime.jsonform.Malformed`, naming
        the field) for a receipt of another shape than agenttools writes; a newer schema is
        refused."""
        what = what or cls.WHAT
        if type(data) is not dict:
            raise jsonform.Malformed(f"{what} is not an object")
        if data.get("schema") != SCHEMA or type(data.get("schema")) is not int:
            raise jsonform.Malformed(
                f"schema {data.get('schema')!r}, this agenttools reads {SCHEMA}"
            )
        return jsonform.load(cls, data, what, frozenset({"schema"}))


def read(environment: Path) -> Receipt:
    """The receipt of the environment directory *environment*. Raises ``InvalidReceipt``
    (missing: an incomplete environment; unreadable; of another shape)."""
    path = environment / RECEIPT_FILE
    try:
        data = json.loads(regular_files.read_bytes(path))
    except FileNotFoundError:
        raise InvalidReceipt(
            path=str(environment), reason="it has no receipt (incomplete)"
        ) from None
    except (OSError, ValueError) as exc:
        raise InvalidReceipt(path=str(environment), reason=str(exc)) from None
    try:
        return Receipt.from_json(data)
    except ValueError as exc:
        raise InvalidReceipt(path=str(environment), reason=f"of another shape ({exc})") from None


def write(environment: Path, receipt: Receipt) -> None:
    """Write the receipt atomically (the environment's commit point)."""
    text = json.dumps(receipt.to_json(), indent=2, sort_keys=True) + "\n"
    fs.write_bytes_atomic(environment / RECEIPT_FILE, text.encode("utf-8"))
