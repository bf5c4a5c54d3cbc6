"""Adversarial inputs to the state index's log (``index.log``): lines that parse but have the
wrong shapes, garbage in the middle, logs of other generations, an index of the earlier format
beside a log, a log without an index. None may crash an operation or make it lose track of an
entry or a record; ``doctor`` reports and ``doctor --fix`` repairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import deploy, index
from tests.helpers.venvs import fake_site

from .conftest import bundle, inline, server
from .invariants import inconsistencies


def _base() -> paths.StatePaths:
    deploy("codex", bundle("one", [inline("a"), inline("b")], [server("s1")]))
    deploy("zed", bundle("two", [inline("c")]))
    deploy("cursor", bundle("three", [inline("d")], [server("s3")]))
    state_paths = paths.state_paths()
    assert state_paths.index_log.exists()
    return state_paths


def _line(state_paths: paths.StatePaths, ops: object, **extra: object) -> bytes:
    stored = index.read_stored(state_paths)
    assert stored is not None
    line = {
        "generation": stored.generation,
        "ops": ops,
        "needs_sweep": False,
        "pending": [],
        "stamp": index.stamp(state_paths),
    }
    line.update(extra)
    return json.dumps(line).encode() + b"\n"


def _consistent(state: Path, state_paths: paths.StatePaths) -> None:
    fresh = index.rebuild(state_paths)
    loaded = index.load(state_paths)
    assert loaded.skills == fresh.skills and loaded.records == fresh.records
    assert inconsistencies(state) == []


BAD_OPS: list[object] = [
    [["+r", "0" * 32, 5]],
    [["+r", "0" * 32, "abcde"]],
    [["+r", "0" * 32, {"a": 1}]],
    [["+r", "0" * 32, ["skills", "x", "codex", "k"]]],
    [["+r", "0" * 32, ["skills", "x", "codex", "k", 7]]],
    [["+r", "0" * 32, ["skills", "x", "codex", "k", [5]]]],
    [["+r", 5, ["skills", "x", "codex", "k", []]]],
    [["+s", "k", 5]],
    [["+s", "k", ["a", "b"]]],
    [["+s", "k", [1, 2, 3]]],
    [["+s", 5, "x"]],
    [["-s", 5]],
    [["-r", [1]]],
    [["??", "x"]],
    [[]],
    [5],
    "+s",
    {"+s": 1},
    5,
]


@pytest.mark.parametrize("ops", BAD_OPS, ids=[json.dumps(o)[:40] for o in BAD_OPS])
def test_a_log_line_of_the_wrong_shape_crashes_nothing(
    home: Path, state: Path, ops: object
) -> None:
    state_paths = _base()
    with state_paths.index_log.open("ab") as log:
        log.write(_line(state_paths, ops))
    deploy("goose", bundle("four", [inline("e")], [server("s4")]))
    deploy("cursor", bundle("three", [inline("d")], [server("s3")]))
    _consistent(state, state_paths)


@pytest.mark.parametrize(
    "extra",
    [
        {"pending": "abc"},
        {"pending": 5},
        {"pending": [["x"]]},
        {"stamp": "x"},
        {"needs_sweep": "yes"},
    ],
)
def test_a_log_line_with_wrong_fields_crashes_nothing(
    home: Path, state: Path, extra: dict[str, object]
) -> None:
    state_paths = _base()
    with state_paths.index_log.open("ab") as log:
        log.write(_line(state_paths, [], **extra))
    deploy("goose", bundle("four", [inline("e")]))
    _consistent(state, state_paths)


@pytest.mark.parametrize("garbage", [b"[]", b"null", b'"x"', b"{}", b"\xff\xfe", b"[" * 5000])
def test_garbage_in_the_middle_of_the_log(home: Path, state: Path, garbage: bytes) -> None:
    state_paths = _base()
    log = state_paths.index_log.read_bytes()
    state_paths.index_log.write_bytes(garbage + b"\n" + log)
    deploy("goose", bundle("four", [inline("e")]))
    _consistent(state, state_paths)


def test_an_index_of_the_earlier_format_ignores_a_log_beside_it(home: Path, state: Path) -> None:
    """An index written without a generation (before the log existed) with a log beside it
    (lines that describe changes it may or may not hold): the log is not replayed, and the
    next save writes the index whole and deletes the log."""
    state_paths = _base()
    data = json.loads(state_paths.index.read_bytes())
    del data["generation"]
    state_paths.index.write_text(json.dumps(data))
    loaded = index.read_stored(state_paths)
    assert loaded is not None and loaded.ops is None
    _consistent(state, state_paths)
    deploy("goose", bundle("four", [inline("e")]))
    assert not state_paths.index_log.exists()
    assert json.loads(state_paths.index.read_bytes())["generation"]
    _consistent(state, state_paths)
    # and without a log beside it
    data = json.loads(state_paths.index.read_bytes())
    del data["generation"]
    state_paths.index.write_text(json.dumps(data))
    deploy("zed", bundle("five", [inline("f")]))
    _consistent(state, state_paths)


def test_a_log_without_an_index(home: Path, state: Path) -> None:
    state_paths = _base()
    state_paths.index.unlink()
    assert index.read_stored(state_paths) is None
    _consistent(state, state_paths)
    deploy("goose", bundle("four", [inline("e")]))
    assert not state_paths.index_log.exists()  # written whole: the old log deleted
    _consistent(state, state_paths)


def test_a_log_only_of_another_generation(home: Path, state: Path) -> None:
    state_paths = _base()
    log = state_paths.index_log.read_bytes()
    other = b"\n".join(
        json.dumps({**json.loads(raw), "generation": "f" * 16}).encode() for raw in log.splitlines()
    )
    state_paths.index_log.write_bytes(other + b"\n")
    stored = index.read_stored(state_paths)
    assert stored is not None and stored.ops == []  # lines skipped: the index as written
    _consistent(state, state_paths)  # (what they held: the listings and a rebuild restore)
    deploy("goose", bundle("four", [inline("e")]))
    _consistent(state, state_paths)


@pytest.mark.parametrize("ops", [*BAD_OPS[:3], [["+s", "k", [1, 2, 3]]]])
def test_doctor_reports_and_fixes_a_log_of_the_wrong_shape(
    home: Path, state: Path, ops: object
) -> None:
    from agenttools_runtime.deploy.doctor import diagnose

    state_paths = _base()
    with state_paths.index_log.open("ab") as log:
        log.write(_line(state_paths, ops))
    report = diagnose()
    assert [f.kind for f in report.findings] == ["index"]
    diagnose(fix=True)
    assert diagnose().findings == []
    assert not state_paths.index_log.exists()
    _consistent(state, state_paths)


def test_a_huge_log(home: Path, state: Path) -> None:
    """A log far past its share of the index (grown by hand, or by an agenttools whose
    threshold differed): read whole, then folded into a new index by the next save."""
    state_paths = _base()
    filler = _line(state_paths, [["-r", "not-a-record"]]) * 20_000
    with state_paths.index_log.open("ab") as log:
        log.write(filler)
    assert state_paths.index_log.stat().st_size > 1_000_000
    _consistent(state, state_paths)
    deploy("goose", bundle("four", [inline("e")]))
    assert not state_paths.index_log.exists()
    _consistent(state, state_paths)


def test_a_change_only_to_the_log_is_still_up_to_date(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, state: Path
) -> None:
    """A line appended to ``index.log`` (the last one again: a change to the log that changes
    nothing else): the next identical redeploy replays it and is still "up to date"."""
    from agenttools_runtime.cli import main
    from agenttools_runtime.deploy import deployed
    from tests.helpers.weather import weather

    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    argv = ["deploy", "claude-code", "weather-tools/weather-tools", "--path", str(site)]
    assert main(argv) == 0
    state_paths = paths.state_paths()
    [uid] = [d.uuid for d in deployed()]
    with state_paths.index_log.open("ab") as log:
        log.write(_line(state_paths, []))
    capsys.readouterr()
    assert main([*argv, "--upgrade"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert [d.uuid for d in deployed()] == [uid]
    assert inconsistencies(state) == []
