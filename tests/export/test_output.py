"""Writing an export: a new directory appears whole; into an existing one only the export's
files change, what the previous export wrote is replaced or removed, and anything else in the
way — the user's file, a file changed since, a link — stops it before it writes anything."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agenttools_runtime import errors, fs
from agenttools_runtime.export.output import RECORD, OutputFile, Tree, write_tree
from tests.helpers.wheels import tree


def _tree(**files: str) -> Tree:
    return Tree({rel.replace("__", "/"): OutputFile(text.encode()) for rel, text in files.items()})


def test_a_new_directory_is_built_beside_its_place_and_renamed_in(tmp_path: Path) -> None:
    seen: list[tuple[str, Path]] = []
    with fs.observe(lambda op, path: seen.append((op, path))):
        result = write_tree(_tree(a="1", skills__x__SKILL_md="2"), tmp_path / "out")
    assert tree(tmp_path / "out") == {
        "a": b"1",
        "skills/x/SKILL_md": b"2",
        RECORD: (tmp_path / "out" / RECORD).read_bytes(),
    }
    assert result.written == ("a", "skills/x/SKILL_md")
    renames = [path for op, path in seen if op == "rename"]
    assert len(renames) == 1 and renames[0].parent == tmp_path
    assert not [p for p in tmp_path.iterdir() if p.name not in ("out", "home")]  # no staging
    record = json.loads((tmp_path / "out" / RECORD).read_text())
    assert sorted(record["files"]) == ["a", "skills/x/SKILL_md"]


def test_the_same_export_again_writes_nothing(tmp_path: Path) -> None:
    write_tree(_tree(a="1"), tmp_path / "out")
    before = os.stat(tmp_path / "out" / "a").st_mtime_ns
    result = write_tree(_tree(a="1"), tmp_path / "out")
    assert result.written == () and result.unchanged == ("a",)
    assert os.stat(tmp_path / "out" / "a").st_mtime_ns == before


def test_a_new_export_replaces_and_removes_what_the_last_one_wrote(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(_tree(a="1", old__b="2"), out)
    (out / "mine.txt").write_text("the user's")
    result = write_tree(_tree(a="3", c="4"), out)
    assert result.written == ("a", "c") and result.removed == ("old/b",)
    assert tree(out) == {
        "a": b"3",
        "c": b"4",
        "mine.txt": b"the user's",
        RECORD: (out / RECORD).read_bytes(),
    }
    assert not (out / "old").exists()


@pytest.mark.parametrize("how", ["user file", "changed since", "link on the way"])
def test_anything_in_the_way_stops_it_before_it_writes(tmp_path: Path, how: str) -> None:
    out = tmp_path / "out"
    write_tree(_tree(a="1", skills__x__f="2"), out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if how == "user file":
        (out / "b").write_text("the user's b")
        wanted = _tree(a="9", b="9", skills__x__f="9")
        in_the_way = ["b"]
    elif how == "changed since":
        (out / "a").write_text("edited by hand")
        wanted = _tree(a="9", skills__x__f="9")
        in_the_way = ["a"]
    else:
        fs.rmtree(out / "skills")
        (out / "skills").symlink_to(elsewhere, target_is_directory=True)
        wanted = _tree(a="9", skills__x__f="9")
        in_the_way = ["skills/x/f"]
    before = tree(out)
    with pytest.raises(errors.ExportOutputConflict) as caught:
        write_tree(wanted, out)
    assert caught.value.paths == in_the_way
    assert "--force" in str(caught.value)
    assert tree(out) == before
    assert list(elsewhere.iterdir()) == []
    forced = write_tree(wanted, out, force=True)
    assert set(in_the_way) <= set(forced.written)
    assert (out / in_the_way[0]).read_text() == "9"
    assert list(elsewhere.iterdir()) == []  # the link itself was replaced, never written through


def test_a_record_that_is_not_ours_is_not_trusted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "a").write_text("the user's")
    (out / RECORD).write_text(json.dumps({"files": {"a": "0" * 64, "../../x": "1" * 64}}))
    with pytest.raises(errors.ExportOutputConflict):
        write_tree(_tree(a="1"), out)
    assert (out / "a").read_text() == "the user's"


def test_a_file_where_the_directory_should_be_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file")
    with pytest.raises(errors.ExportOutputConflict):
        write_tree(_tree(a="1"), tmp_path / "out")
    assert (tmp_path / "out").read_text() == "a file"


def test_an_empty_directory_is_filled(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    write_tree(_tree(a="1"), tmp_path / "out")
    assert (tmp_path / "out" / "a").read_text() == "1"
