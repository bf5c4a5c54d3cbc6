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

from agenttools_runtime import fs
from agenttools_runtime.envs.index import IndexOptions
from agenttools_runtime.envs.pylock import ResolvedDistribution
from agenttools_runtime.errors import InvalidReceipt

RECEIPT_FILE = "agenttools-receipt.json"
LOCK_FILE = "pylock.toml"
SCHEMA = 1

VENV, METADATA = "venv", "metadata"  # a virtual environment; only a wheel's .dist-info (uvx)


@dataclass(frozen=True, slots=True)
class Receipt:
    """See the module docstring. ``kind`` is the request's (``index``, ``wheel``,
    ``directory``); ``layout`` :data:`VENV` or :data:`METADATA`; ``key`` the identity of the
    request (:func:`agenttools_runtime.envs.layout.request_key`) that a rerun finds it by;
    ``source_sha256`` the hash of the wheel a file or directory request installed."""

    requirement: str
    kind: str
    distribution: str
    version: str
    key: str
    index: IndexOptions
    interpreter: str
    python_version: str
    installer: str
    installer_version: str
    resolved: tuple[ResolvedDistribution, ...] = ()
    layout: str = VENV
    source_sha256: str | None = None
    created: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "schema": SCHEMA,
            "requirement": self.requirement,
            "kind": self.kind,
            "distribution": self.distribution,
            "version": self.version,
            "key": self.key,
            "index": self.index.to_json(),
            "interpreter": {"path": self.interpreter, "version": self.python_version},
            "installer": {"name": self.installer, "version": self.installer_version},
            "resolved": [d.to_json() for d in self.resolved],
            "layout": self.layout,
            "source_sha256": self.source_sha256,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Receipt:
        """Raises ``ValueError`` (or ``KeyError``, ``TypeError``) for a receipt of another
        shape; a newer schema is refused."""
        schema = data.get("schema")
        if schema != SCHEMA:
            raise ValueError(f"schema {schema!r}, this agenttools reads {SCHEMA}")
        known = {"schema", "requirement", "kind", "distribution", "version", "key", "index",
                 "interpreter", "installer", "resolved", "layout", "source_sha256", "created"}  # fmt: skip
        return cls(
            requirement=str(data["requirement"]),
            kind=str(data["kind"]),
            distribution=str(data["distribution"]),
            version=str(data["version"]),
            key=str(data["key"]),
            index=IndexOptions.from_json(data["index"]),
            interpreter=str(data["interpreter"]["path"]),
            python_version=str(data["interpreter"]["version"]),
            installer=str(data["installer"]["name"]),
            installer_version=str(data["installer"]["version"]),
            resolved=tuple(ResolvedDistribution.from_json(d) for d in data["resolved"]),
            layout=str(data.get("layout", VENV)),
            source_sha256=data.get("source_sha256"),
            created=str(data.get("created", "")),
            extra={k: v for k, v in data.items() if k not in known},
        )


def read(environment: Path) -> Receipt:
    """The receipt of the environment directory *environment*. Raises ``InvalidReceipt``
    (missing: an incomplete environment; unreadable; of another shape)."""
    path = environment / RECEIPT_FILE
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise InvalidReceipt(
            path=str(environment), reason="it has no receipt (incomplete)"
        ) from None
    except (OSError, ValueError) as exc:
        raise InvalidReceipt(path=str(environment), reason=str(exc)) from None
    try:
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return Receipt.from_json(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidReceipt(path=str(environment), reason=f"of another shape ({exc})") from None


def write(environment: Path, receipt: Receipt) -> None:
    """Write the receipt atomically (the environment's commit point)."""
    text = json.dumps(receipt.to_json(), indent=2, sort_keys=True) + "\n"
    fs.write_bytes_atomic(environment / RECEIPT_FILE, text.encode("utf-8"))
