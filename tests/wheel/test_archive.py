"""wheel/archive.py: agenttools' files added to a finished wheel. Every other member keeps
its bytes, attributes and place; RECORD keeps its lines and gains correct ones; a wheel
carrying other agenttools files is refused unless replaced; nothing half-written is left."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import zipfile
from pathlib import Path

import pytest

from agenttools_runtime.errors import InvalidWheel, WheelAlreadyBundled
from agenttools_runtime.wheel import archive
from agenttools_runtime.wheel.contents import Member

DIST_INFO = "demo-1.0.dist-info"
RECORD_TEXT = (
    "demo/__init__.py,sha256=abc,3\r\n"
    "demo/data.bin,sha256=def,1000\r\n"
    f"{DIST_INFO}/METADATA,sha256=ghi,40\r\n"
    f"{DIST_INFO}/RECORD,,\r\n"
)
MEMBERS = (
    Member("extra_metadata/agenttools/manifest.json", b'{"schema": 1}\n'),
    Member("extra_metadata/agenttools/skills/a/SKILL.md", b"---\nname: a\n---\n"),
    Member("extra_metadata/agenttools/skills/a/scripts/run.sh", b"#!/bin/sh\n", executable=True),
)


def make_wheel(path: Path, record: str = RECORD_TEXT) -> Path:
    """A wheel as backends write them: stored and deflated members, a directory entry, odd
    timestamps and modes, RECORD last."""
    path.parent.mkdir(parents=True, exist_ok=True)
    entries: list[tuple[str, bytes, int, tuple[int, ...], int]] = [
        ("demo/", b"", zipfile.ZIP_STORED, (2020, 1, 2, 3, 4, 6), 0o40755),
        ("demo/__init__.py", b"x=1", zipfile.ZIP_DEFLATED, (2021, 5, 6, 7, 8, 10), 0o100644),
        ("demo/data.bin", os.urandom(1000), zipfile.ZIP_STORED, (1999, 9, 9, 9, 9, 8), 0o100755),
        (
            f"{DIST_INFO}/METADATA",
            b"Metadata-Version: 2.1\nName: Demo\nVersion: 1.0\n\n",
            zipfile.ZIP_DEFLATED,
            (2016, 1, 1, 0, 0, 0),
            0o100644,
        ),
    ]
    entries.append(
        (f"{DIST_INFO}/RECORD", record.encode(), zipfile.ZIP_DEFLATED, (2016, 1, 1, 0, 0, 0), 0o600)
    )
    with zipfile.ZipFile(path, "w") as out:
        for name, data, compression, date_time, mode in entries:
            info = zipfile.ZipInfo(name, date_time)  # type: ignore[arg-type]
            info.compress_type = compression
            info.external_attr = mode << 16
            out.writestr(info, data)
    return path


def record_rows(wheel: Path) -> list[list[str]]:
    with zipfile.ZipFile(wheel) as z:
        return list(csv.reader(io.StringIO(z.read(f"{DIST_INFO}/RECORD").decode())))


def test_members_are_added_before_record_and_nothing_else_changes(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    out = tmp_path / "out" / wheel.name
    assert archive.add_members(wheel, out, MEMBERS) == "added"
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(out) as after:
        old = [i.filename for i in before.infolist()]
        new = [i.filename for i in after.infolist()]
        ours = [f"{DIST_INFO}/{m.path}" for m in MEMBERS]
        assert new == old[:-1] + ours + old[-1:]
        for info in before.infolist():
            moved = after.getinfo(info.filename)
            attributes = ("date_time", "external_attr", "compress_type", "create_system")
            assert [getattr(moved, a) for a in attributes] == [getattr(info, a) for a in attributes]
            if not info.filename.endswith("RECORD"):
                assert after.read(moved) == before.read(info)
        metadata = before.getinfo(f"{DIST_INFO}/METADATA")
        for member in MEMBERS:
            info = after.getinfo(f"{DIST_INFO}/{member.path}")
            assert after.read(info) == member.data
            assert info.date_time == metadata.date_time  # the wheel's own timestamp
            assert info.compress_type == metadata.compress_type
            assert info.external_attr >> 16 == (0o100755 if member.executable else 0o100644)


def test_record_keeps_its_lines_and_gains_correct_ones(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    archive.add_members(wheel, wheel, MEMBERS)
    with zipfile.ZipFile(wheel) as z:
        text = z.read(f"{DIST_INFO}/RECORD").decode()
    lines = text.split("\r\n")
    assert lines[:3] == RECORD_TEXT.split("\r\n")[:3]  # byte for byte, CRLF kept
    assert lines[-2:] == [f"{DIST_INFO}/RECORD,,", ""]
    for member, line in zip(MEMBERS, lines[3:-2], strict=True):
        digest = base64.urlsafe_b64encode(hashlib.sha256(member.data).digest()).rstrip(b"=")
        assert line == f"{DIST_INFO}/{member.path},sha256={digest.decode()},{len(member.data)}"


def test_a_record_without_its_own_line_gets_the_rows_at_the_end(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl", record="demo/__init__.py,,")
    archive.add_members(wheel, wheel, MEMBERS[:1])
    rows = record_rows(wheel)
    assert rows[0] == ["demo/__init__.py", "", ""]
    assert rows[1][0] == f"{DIST_INFO}/extra_metadata/agenttools/manifest.json"


def test_same_files_again_is_unchanged_and_copied_as_is(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    archive.add_members(wheel, wheel, MEMBERS)
    data = wheel.read_bytes()
    assert archive.add_members(wheel, wheel, MEMBERS) == "unchanged"
    assert wheel.read_bytes() == data
    copy = tmp_path / "elsewhere" / wheel.name
    assert archive.add_members(wheel, copy, MEMBERS) == "unchanged"
    assert copy.read_bytes() == data


def test_other_agenttools_files_are_refused_unless_replaced(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    archive.add_members(wheel, wheel, MEMBERS)
    before = wheel.read_bytes()
    changed = (Member(MEMBERS[0].path, b'{"schema": 1, "other": true}\n'), MEMBERS[1])
    with pytest.raises(WheelAlreadyBundled) as caught:
        archive.add_members(wheel, wheel, changed)
    assert "differs: extra_metadata/agenttools/manifest.json" in str(caught.value)
    assert "not declared: extra_metadata/agenttools/skills/a/scripts/run.sh" in str(caught.value)
    assert wheel.read_bytes() == before
    assert archive.add_members(wheel, wheel, changed, replace=True) == "replaced"
    assert archive.read_contents(wheel).bundled == {m.path: m.data for m in changed}
    paths = [row[0] for row in record_rows(wheel)]
    assert f"{DIST_INFO}/extra_metadata/agenttools/skills/a/scripts/run.sh" not in paths
    assert len(paths) == len(set(paths)) == 6


def test_the_result_is_reproducible(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    archive.add_members(wheel, tmp_path / "a" / wheel.name, MEMBERS)
    archive.add_members(wheel, tmp_path / "b" / wheel.name, MEMBERS)
    assert (tmp_path / "a" / wheel.name).read_bytes() == (tmp_path / "b" / wheel.name).read_bytes()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot be read as a zip file"),
        ({"x/METADATA": b""}, "exactly one .dist-info directory with a METADATA (found: none)"),
        ({f"{DIST_INFO}/METADATA": b"Name: demo\n\n"}, "RECORD is missing"),
        (
            {f"{DIST_INFO}/METADATA": b"Name: demo\n\n", f"{DIST_INFO}/RECORD": b""},
            "METADATA lacks Name or Version",
        ),
    ],
)
def test_what_is_not_a_wheel_is_a_clear_error(
    tmp_path: Path, content: dict[str, bytes] | None, reason: str
) -> None:
    wheel = tmp_path / "in" / "demo-1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    if content is None:
        wheel.write_bytes(b"not a zip")
    else:
        with zipfile.ZipFile(wheel, "w") as z:
            for name, data in content.items():
                z.writestr(name, data)
    with pytest.raises(InvalidWheel, match=re.escape(reason)):
        archive.add_members(wheel, wheel.parent / "out.whl", MEMBERS)
    assert [p.name for p in wheel.parent.iterdir()] == [wheel.name]  # nothing written


def test_a_corrupt_member_fails_and_leaves_no_file_behind(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "in" / "demo-1.0-py3-none-any.whl")
    data = bytearray(wheel.read_bytes())
    with zipfile.ZipFile(wheel) as z:
        stored = z.getinfo("demo/data.bin")  # stored: its bytes are in the file as they are
        offset = stored.header_offset + 30 + len(stored.filename) + len(stored.extra) + 10
    data[offset] ^= 0xFF
    wheel.write_bytes(bytes(data))
    with pytest.raises(InvalidWheel, match="a member cannot be read"):
        archive.add_members(wheel, wheel, MEMBERS)
    assert wheel.read_bytes() == bytes(data)
    assert [p.name for p in wheel.parent.iterdir()] == [wheel.name]


def test_write_members_fills_a_prepared_dist_info(tmp_path: Path) -> None:
    archive.write_members(tmp_path, MEMBERS)
    script = tmp_path / "extra_metadata/agenttools/skills/a/scripts/run.sh"
    assert script.read_bytes() == b"#!/bin/sh\n"
    assert script.stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "extra_metadata/agenttools/manifest.json").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("size", [0, 1, 2, 3, 100, 4096])
def test_record_rows_hash_as_pip_checks_them(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert archive.record_row("a/b.py", data) == ("a/b.py", f"sha256={digest}", str(size))


@pytest.mark.parametrize(
    "row",
    [
        ("pkg/a.py", "sha256=abc", "12"),
        ("pkg/a,b.py", "sha256=abc", "12"),
        ('pkg/"q".py', "", ""),
        ("pkg/line\nbreak.py", "sha256=abc", "1"),
        ("pkg/cr\r.py", "sha256=abc", "1"),
        ("", "", ""),
        ("pkg/ space .py", "sha256=x", "0"),
    ],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_record_lines_are_csv(row: tuple[str, str, str], newline: str) -> None:
    """RECORD lines written and read as the csv module writes and reads them (which it
    does itself only for fields that need quoting)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=newline).writerow(row)
    line = archive._csv_line(row, newline)
    assert line == buffer.getvalue()
    try:
        expected = next(csv.reader([line.rstrip("\r\n")]))[0]
    except csv.Error:  # a lone CR, which csv writes unquoted and then refuses to read
        return
    assert archive._first_field(line.rstrip("\r\n")) == expected
