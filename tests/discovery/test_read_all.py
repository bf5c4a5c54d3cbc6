"""How a wheel's skill file is read (``regular_files.read_all``, ``_checked_bytes``): one ``read``
of the size its ``lstat`` gave plus a byte, and on to the end whenever the file is not that
size any more — never a prefix taken for the whole, never a hang on a pipe swapped in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools_runtime import discovery, installed_skills, regular_files
from agenttools_runtime.errors import (
    BundledFileMismatch,
    BundledFileMissing,
    BundledFileNotRegular,
)
from agenttools_runtime.installed_skills import verify_skill
from tests.helpers.venvs import fake_distribution, skill_files


def read(path: Path, size: int) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return regular_files.read_all(fd, size)
    finally:
        os.close(fd)


@pytest.mark.parametrize("length", [0, 1, 4095, 4096, 70_000, 1_500_000])
@pytest.mark.parametrize("said", ["exact", "grown", "shrunk"])
def test_every_byte_whatever_size_the_lstat_gave(tmp_path: Path, length: int, said: str) -> None:
    data = bytes(range(256)) * (length // 256) + b"x" * (length % 256)
    path = tmp_path / "file"
    path.write_bytes(data)
    # the size an earlier lstat gave: the file, or one that has grown or shrunk since
    size = {"exact": length, "grown": max(length - 7, 0), "shrunk": length + 9}
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
    assert (
        installed_skills._checked_bytes(dist, entry, "SKILL.md", str(skill_md), len(original))
        == original
    )
    skill_md.write_bytes(original + b"appended\n")
    with pytest.raises(BundledFileMismatch):
        installed_skills._checked_bytes(dist, entry, "SKILL.md", str(skill_md), len(original))
    skill_md.unlink()
    with pytest.raises(BundledFileMissing):
        installed_skills._checked_bytes(dist, entry, "SKILL.md", str(skill_md), len(original))


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
        installed_skills._checked_bytes(dist, entry, "SKILL.md", str(skill_md), size)


def _swap_to_pipe(path: Path, data: bytes | None) -> int:
    """A pipe in place of *path*, with a writer holding it open (that wrote *data*)."""
    path.unlink()
    os.mkfifo(path)
    writer = os.open(path, os.O_RDWR)  # (a writer that never closes: no end of file)
    if data is not None:
        os.write(writer, data)
    return writer


def _swap_to_other_inode(path: Path, data: bytes) -> None:
    staged = path.with_name("staged")
    staged.write_bytes(data)
    os.replace(staged, path)


def _swap_to_link(path: Path, data: bytes) -> None:
    target = path.with_name("elsewhere")
    target.write_bytes(data)
    path.unlink()
    path.symlink_to(target)


def _swap_to_directory(path: Path, data: bytes) -> None:
    path.unlink()
    path.mkdir()


# what is swapped in for SKILL.md between its lstat and its read -> what verifying says
SWAPS = {
    "a pipe whose writer wrote nothing": (lambda p, d: _swap_to_pipe(p, None), BundledFileMissing),
    "a pipe whose writer wrote other bytes": (
        lambda p, d: _swap_to_pipe(p, b"x" * len(d)),
        BundledFileMismatch,
    ),
    "another file of the same size": (
        lambda p, d: _swap_to_other_inode(p, b"x" * len(d)),
        BundledFileMismatch,
    ),
    "another file, longer": (lambda p, d: _swap_to_other_inode(p, d + b"x"), BundledFileMismatch),
    "another file, shorter": (lambda p, d: _swap_to_other_inode(p, d[:-1]), BundledFileMismatch),
    "an empty file": (lambda p, d: p.write_bytes(b""), BundledFileMismatch),
    "a link to the same bytes": (_swap_to_link, BundledFileMissing),
    "a directory": (_swap_to_directory, BundledFileMissing),
    "the same bytes, another file": (_swap_to_other_inode, None),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes, links: POSIX")
@pytest.mark.parametrize("swap", list(SWAPS))
def test_a_file_swapped_after_its_lstat_is_refused_or_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    """Whatever replaces a wheel's file between the lstat that found it regular and its read
    (a real swap, in that window): refused with a clear error, never a hang, never bytes that
    do not match the manifest — and not remembered as verified (the next deploy refuses it
    again)."""
    site = tmp_path / "site"
    fake_distribution(
        site, "weather-tools", skills={"weather-report": skill_files("weather-report")}
    )
    dist = discovery.get_distribution("weather-tools", discovery.SearchPath.for_paths([site]))
    skill_md = dist.skills_dir / "weather-report" / "SKILL.md"
    original = skill_md.read_bytes()
    replace, refused = SWAPS[swap]
    found_regular = installed_skills._regular_file
    swapped: list[object] = []

    def regular_then_swapped(*args: object) -> tuple[str, os.stat_result]:
        path, info = found_regular(*args)  # type: ignore[arg-type]
        if path == str(skill_md) and not swapped:
            swapped.append(replace(skill_md, original))
        return path, info

    monkeypatch.setattr(installed_skills, "_regular_file", regular_then_swapped)
    contents: dict[str, bytes] = {}
    try:
        if refused is None:
            installed_skills.verify_skill(dist, "weather-report", contents)
            assert swapped and contents["SKILL.md"] == original
            return
        with pytest.raises(refused):
            installed_skills.verify_skill(dist, "weather-report", contents)
        assert swapped and "SKILL.md" not in contents
        monkeypatch.undo()
        with pytest.raises((BundledFileMismatch, BundledFileMissing, BundledFileNotRegular)):
            verify_skill(dist, "weather-report")  # (nothing cached as verified)
    finally:
        for writer in swapped:
            if isinstance(writer, int):
                os.close(writer)
