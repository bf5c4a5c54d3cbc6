"""SHA-256 digests, without importing hashlib for small data.

``import hashlib`` loads OpenSSL: about 3 ms, which is what CPython's own SHA-256 (the module
hashlib falls back to) takes to hash 1 MB, and more than a build's check of a small project,
or a deploy of skills verified before (``agenttools_runtime/verified.py``: the manifest, the
digests a record keeps, 200 KB for 50 skills), hashes in all. So the interpreter's own
SHA-256 hashes the first 512 KB a process hashes, while nothing has imported hashlib yet
(at worst half the import's cost spent hashing more slowly); anything more goes to hashlib
(a deploy reading 16 MB of skill files never verified: OpenSSL hashes them five times
faster). The digests are the same.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import _Hash

_SMALL = 1 << 19  # bytes, in all

# What the interpreter's own SHA-256 hashed so far in this process (a count, not a cache:
# what it holds changes no digest, only which module computes it).
_hashed_here = [0]


def sha256(data: bytes) -> _Hash:
    """A SHA-256 hash object of *data* (``digest()``, ``hexdigest()``, ``update()``)."""
    if _hashed_here[0] + len(data) < _SMALL and "hashlib" not in sys.modules:
        own = _interpreter_sha256()
        if own is not None:
            _hashed_here[0] += len(data)
            return own(data)
    import hashlib

    return hashlib.sha256(data)


def _interpreter_sha256() -> Callable[[bytes], _Hash] | None:
    if sys.implementation.name != "cpython":  # PyPy's are pure Python
        return None
    import importlib

    # (a failed import is not remembered: ask for the one module this version has)
    name = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    try:
        own: Callable[[bytes], _Hash] = importlib.import_module(name).sha256
    except (ImportError, AttributeError):  # built without it
        return None
    return own
