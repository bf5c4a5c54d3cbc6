"""sha256.py: the same digests as hashlib's, whichever SHA-256 computes them."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from agenttools_runtime.sha256 import sha256


@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, (1 << 20) - 1, 1 << 20, (1 << 20) + 1])
def test_digests_are_hashlibs(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha256(data).digest() == hashlib.sha256(data).digest()


def printed(script: str) -> list[str]:
    """The lines *script* prints, run by a new interpreter (one that imported nothing)."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_small_data_is_hashed_without_importing_hashlib() -> None:
    """In a process that has not imported hashlib (a build hook's), small data leaves it
    unimported; 1 MB and more imports it."""
    script = (
        "import sys\n"
        "from agenttools_runtime.sha256 import sha256\n"
        "small = sha256(b'abc').hexdigest()\n"
        "print(small, 'hashlib' in sys.modules)\n"
        "sha256(bytes(1 << 20))\n"
        "print('hashlib' in sys.modules)\n"
    )
    first, second = printed(script)
    assert first == f"{hashlib.sha256(b'abc').hexdigest()} False"
    assert second == "True"


def test_hashlib_is_imported_once_much_was_hashed_in_all() -> None:
    """Small pieces, past 512 KB in all: hashlib (OpenSSL hashes the rest faster)."""
    script = (
        "import sys\n"
        "from agenttools_runtime.sha256 import sha256\n"
        "for _ in range(31):\n"
        "    sha256(bytes(1 << 14))\n"
        "print('hashlib' in sys.modules)\n"
        "sha256(bytes(1 << 14))\n"
        "print('hashlib' in sys.modules)\n"
    )
    assert printed(script) == ["False", "True"]
