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


def test_digests_on_both_sides_of_the_512_kb_boundary() -> None:
    """In a new interpreter (nothing imported hashlib: the pytest process has): each piece's
    digest, whole and updated (a copy), against hashlib's, as the pieces cross 512 KB in all —
    the last byte under it, exactly 512 KB in one piece, bytearray and memoryview pieces —
    and which SHA-256 hashed it (the interpreter's own below the boundary only)."""
    script = (
        "import sys\n"
        "from agenttools_runtime.sha256 import sha256\n"
        "S = 1 << 19\n"
        "data = bytes(range(256)) * (S // 128)\n"
        "pieces = [b'', bytearray(data[:7]), memoryview(data)[7:S - 1], data[:1], data[:S],\n"
        "          data[:S + 1], memoryview(data)[3:9]]\n"
        "made = []\n"
        "for piece in pieces:\n"
        "    whole = sha256(piece)\n"
        "    updated = whole.copy()\n"
        "    updated.update(b'more')\n"
        "    made.append((type(whole).__module__, whole.hexdigest(), updated.hexdigest()))\n"
        "import hashlib\n"
        "for (module, whole, updated), piece in zip(made, pieces):\n"
        "    expected = hashlib.sha256(piece)\n"
        "    print(module, whole == expected.hexdigest(), end=' ')\n"
        "    expected.update(b'more')\n"
        "    print(updated == expected.hexdigest())\n"
    )
    lines = printed(script)
    own = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    # (0 + 7 + 524,280 bytes: under 512 KB; the next byte reaches it: hashlib from then on)
    assert lines == [f"{own} True True"] * 3 + ["_hashlib True True"] * 4
