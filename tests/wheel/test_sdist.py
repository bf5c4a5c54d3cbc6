"""wheel/sdist.py: the project files a wheel build needs, added to an sdist that lacks them,
reproducibly; an sdist that lacks nothing is left as it is."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

import pytest

from agenttools_runtime.errors import InvalidSdist
from agenttools_runtime.wheel.sdist import add_files

TOP = "demo-1.0"


def make_sdist(path: Path, files: dict[str, bytes], top: str = TOP) -> Path:
    """An sdist as a backend writes it: a fixed gzip timestamp, owner and mtimes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = io.BytesIO()
    gz = gzip.GzipFile("demo-1.0.tar", "wb", fileobj=raw, mtime=1234567)
    with gz, tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mtime, info.mode = len(data), 1600000000, 0o664
            info.uname = info.gname = "builder"
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(raw.getvalue())
    return path


def project(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "project"
    files = {
        "pyproject.toml": b"[project]\n",
        "skills/a/SKILL.md": b"---\nname: a\n---\n",
        "skills/a/scripts/run.sh": b"#!/bin/sh\n",
        "docs/help.md": b"# Help\n",
    }
    out = {}
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out[rel] = path
    os.chmod(out["skills/a/scripts/run.sh"], 0o755)
    return out


def members(sdist: Path) -> list[tuple[str, bytes, int, int, str]]:
    with tarfile.open(sdist) as tar:
        return [
            (
                m.name,
                tar.extractfile(m).read() if m.isfile() else b"",  # type: ignore[union-attr]
                m.mtime,
                m.mode,
                m.uname,
            )
            for m in tar.getmembers()
        ]


def test_missing_files_are_added_after_the_backends_own(tmp_path: Path) -> None:
    files = project(tmp_path)
    sdist = make_sdist(
        tmp_path / "in" / "demo-1.0.tar.gz",
        {"PKG-INFO": b"Name: demo\n", "pyproject.toml": b"[project]\n", "src/demo.py": b""},
    )
    out = tmp_path / "out" / sdist.name
    added = add_files(sdist, out, files)
    assert added == ["docs/help.md", "skills/a/SKILL.md", "skills/a/scripts/run.sh"]
    before, after = members(sdist), members(out)
    assert after[: len(before)] == before  # the backend's members, as they were
    assert after[len(before) :] == [
        (f"{TOP}/docs/help.md", b"# Help\n", 1600000000, 0o644, "builder"),
        (f"{TOP}/skills/a/SKILL.md", b"---\nname: a\n---\n", 1600000000, 0o644, "builder"),
        (f"{TOP}/skills/a/scripts/run.sh", b"#!/bin/sh\n", 1600000000, 0o755, "builder"),
    ]
    header = out.read_bytes()[:10]
    assert int.from_bytes(header[4:8], "little") == 1234567  # the gzip timestamp kept


def test_the_rewrite_is_reproducible(tmp_path: Path) -> None:
    files = project(tmp_path)
    sdist = make_sdist(tmp_path / "in" / "demo-1.0.tar.gz", {"PKG-INFO": b"Name: demo\n"})
    add_files(sdist, tmp_path / "a" / sdist.name, files)
    for path in files.values():  # the sources' own timestamps do not matter
        os.utime(path, (1, 1))
    add_files(sdist, tmp_path / "b" / sdist.name, files)
    assert (tmp_path / "a" / sdist.name).read_bytes() == (tmp_path / "b" / sdist.name).read_bytes()


def test_a_complete_sdist_is_left_as_it_is(tmp_path: Path) -> None:
    files = project(tmp_path)
    content = {rel: path.read_bytes() for rel, path in files.items()}
    sdist = make_sdist(tmp_path / "in" / "demo-1.0.tar.gz", {"PKG-INFO": b"", **content})
    data = sdist.read_bytes()
    assert add_files(sdist, sdist, files) == []
    assert sdist.read_bytes() == data
    assert add_files(sdist, tmp_path / "copy" / sdist.name, files) == []
    assert (tmp_path / "copy" / sdist.name).read_bytes() == data


def test_an_sdist_without_one_top_directory_is_refused(tmp_path: Path) -> None:
    sdist = make_sdist(tmp_path / "in" / "demo-1.0.tar.gz", {"PKG-INFO": b""})
    other = make_sdist(tmp_path / "other.tar.gz", {"x": b""}, top="other-1.0")
    mixed = tmp_path / "in" / "mixed.tar.gz"
    with tarfile.open(mixed, "w:gz") as tar:
        for path in (sdist, other):
            with tarfile.open(path) as source:
                for member in source.getmembers():
                    tar.addfile(member, source.extractfile(member))
    with pytest.raises(InvalidSdist, match="not all in one top-level directory"):
        add_files(mixed, mixed, project(tmp_path))
    with pytest.raises(InvalidSdist):
        (tmp_path / "broken.tar.gz").write_bytes(b"not gzip")
        add_files(tmp_path / "broken.tar.gz", tmp_path / "x.tar.gz", project(tmp_path))
