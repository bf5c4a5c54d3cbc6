"""FastMCP's ``_manifest`` of a skill: the JSON listing of its files with sizes and digests
(``skill://{skill}/_manifest``), as every provider answers it and ``agenttools serve`` serves
it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

# the reference that names a skill's file listing instead of one of its files
MANIFEST_REFERENCE = "_manifest"


def digest(data: bytes) -> str:
    """``sha256:<hex>`` over the raw bytes (the FastMCP / SEP-2640 digest)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()  # raw bytes, unlike hash_bytes


def file_listing_json(name: str, files: Mapping[str, bytes]) -> str:
    """FastMCP's ``_manifest`` text: ``{"skill", "files": [{"path", "size", "hash"}]}``
    sorted by path, indented by 2, exactly as ``json.dumps`` writes it there."""
    entries = [
        {"path": path, "size": len(data), "hash": digest(data)}
        for path, data in sorted(files.items())
    ]
    return json.dumps({"skill": name, "files": entries}, indent=2)
