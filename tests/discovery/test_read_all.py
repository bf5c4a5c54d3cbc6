"""How a wheel's skill file is read (``discovery._read_all``, ``_file_bytes``): one ``read``
of the size its ``lstat`` gave plus a byte, and on to the end whenever the file is not that
size any more — never a prefix taken for the whole, never a hang on a pipe swapped in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools_runtime import discovery
from agenttools_runtime.errors import BundledFileMismatch, BundledFileMissing
from tests.helpers.venvs import fake_distribution, skill_files


def read(path: Path, size: int | None) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return discovery._read_all(fd, size)
    finally:
        os.close(fd)


@pytest.mark.parametrize("length", [0, 1, 4095, 4096, 70_000, 1_500_000])
@pytest.mark.parametrize("said", ["exact", "grown", "shrunk", "unknown"])
def test_every_byte_whatever_size_the_lstat_gave(tmp_path: Path, length: int, said: str) -> None:
    data = bytes(range(256)) * (length // 256) + b"x" * (length % 256)
    path = tmp_path / "file"
    path.write_bytes(data)
    # the size an earlier lstat gave: the file, or one that has grown or shrunk since
    size = {"exact": length, "grown": max(length - 7, 0), "shrunk": length + 9, "unknown": None}
    assert read(path, size[said]) == data


def test_a_changed_file_is_refused_not_half_read(tmp_path: Path) -> None:
    """A wheel file that grew after its lstat: read whole, so its hash does not match."""
    site = tmp_path / "site"
    fake_distribution(
        site, "weather-tools", skills={"weather-report": skill_files("weather-report")}
    )
    dist = discovery.get_distribution("weather-tools", discovery.SearchPath.for_paths([site]))
    skill_md = dist.skills_dir / "weather-report" / "SKILL.md"
    original = skill_md.read_bytes()
    entry = dist.manifest.skills["weather-report"] if dist.manifest else None
    assert entry is not None
    # the bytes as listed, read with the size they had: accepted
    assert dist._checked_bytes(entry, "SKILL.md", str(skill_md), len(original)) == original
    skill_md.write_bytes(original + b"appended\n")
    with pytest.raises(BundledFileMismatch):
        dist._checked_bytes(entry, "SKILL.md", str(skill_md), len(original))
    skill_md.unlink()
    with pytest.raises(BundledFileMissing):
        dist._checked_bytes(entry, "SKILL.md", str(skill_md), len(original))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes: POSIX")
def test_a_pipe_in_place_of_a_file_does_not_hang(tmp_path: Path) -> None:
    """A pipe swapped in after the lstat (no writer): opened without blocking, read as no
    bytes, and then refused by its hash — where a plain open would wait for a writer."""
    site = tmp_path / "site"
    fake_distribution(
        site, "weather-tools", skills={"weather-report": skill_files("weather-report")}
    )
    dist = discovery.get_distribution("weather-tools", discovery.SearchPath.for_paths([site]))
    skill_md = dist.skills_dir / "weather-report" / "SKILL.md"
    size = skill_md.stat().st_size
    skill_md.unlink()
    os.mkfifo(skill_md)
    entry = dist.manifest.skills["weather-report"] if dist.manifest else None
    assert entry is not None
    with pytest.raises(BundledFileMismatch):
        dist._checked_bytes(entry, "SKILL.md", str(skill_md), size)
