"""The mutation layer: atomic writes, removal of links as links, fault injection."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from agenttools_runtime import fs
from tests.helpers.faults import inject


def test_write_bytes_atomic_creates_and_replaces(tmp_path: Path) -> None:
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    target = tmp_path / "config.json"
    fs.write_bytes_atomic(target, b"one")
    assert target.read_bytes() == b"one"
    fs.write_bytes_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]  # no temp files left


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_write_bytes_atomic_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "secret.json"
    target.write_bytes(b"{}")
    target.chmod(0o600)
    fs.write_bytes_atomic(target, b'{"a": 1}')
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_failed_write_leaves_original_and_no_temp_file(tmp_path: Path) -> None:
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    target = tmp_path / "config.json"
    target.write_bytes(b"original")
    with inject(fail_at=1) as injector, pytest.raises(OSError) as info:
        fs.write_bytes_atomic(target, b"new")
    assert info.value.errno == errno.EIO
    assert injector.log == [("write", target)]
    assert target.read_bytes() == b"original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


def test_inject_counts_mutations_and_checkpoints(tmp_path: Path) -> None:
    with inject(fail_at=3) as injector:
        fs.mkdir(tmp_path / "a")
        fs.write_bytes(tmp_path / "a" / "f", b"x")
        fs.checkpoint("between")  # checkpoints are not counted as mutations
        with pytest.raises(OSError):
            fs.write_bytes(tmp_path / "a" / "g", b"y")
    assert injector.count == 3
    assert ("checkpoint:between", Path()) in injector.log
    assert not (tmp_path / "a" / "g").exists()
    # outside the block nothing is observed any more
    fs.write_bytes(tmp_path / "a" / "g", b"y")
    assert (tmp_path / "a" / "g").read_bytes() == b"y"


def test_inject_fails_at_named_checkpoint() -> None:
    with inject(fail_at_checkpoint="after-config"), pytest.raises(OSError):
        fs.checkpoint("before-config")
        fs.checkpoint("after-config")


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_remove_entry_removes_links_as_links(tmp_path: Path) -> None:
    target_dir = tmp_path / "real"
    target_dir.mkdir()
    (target_dir / "keep.txt").write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(target_dir, target_is_directory=True)
    fs.remove_entry(link)
    assert not os.path.lexists(link)
    assert (target_dir / "keep.txt").read_text() == "keep"

    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    fs.remove_entry(dangling)
    assert not os.path.lexists(dangling)


def test_rmtree_removes_read_only_files(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    ro = tree / "sub" / "ro.txt"
    ro.write_text("x")
    ro.chmod(0o444)
    fs.rmtree(tree)
    assert not tree.exists()
