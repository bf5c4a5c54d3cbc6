"""wheel/backend_scan.py: ``[tool.agenttools] backend`` and ``backend-path`` read from
pyproject.toml's lines answer exactly what tomllib reads, or not at all."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agenttools_runtime.wheel.backend_scan import backend_setting
from tests.hook.backends import BACKENDS, pyproject

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SAMPLES = Path(__file__).resolve().parents[2] / "sample_packages"


def parsed(text: str) -> tuple[object, object] | None:
    """What the wrapping backend reads from tomllib's parse; None for a file that is no TOML
    (a frontend refuses it before any hook runs)."""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    tool = config.get("tool", {})
    table = tool.get("agenttools", {}) if isinstance(tool, dict) else tool
    if not isinstance(table, dict):
        return ("not a table", table)
    return table.get("backend"), table.get("backend-path", [])


HEADERS = st.sampled_from(
    ["[tool.agenttools]", "[tool]", '[ tool . "agenttools" ]', "[tool.'agenttools']",
     "[tool.agenttools.skills.x]", "[tool.agenttools.backend]", "[[tool.agenttools.bundles]]",
     "[project]", "[build-system]", "[tool.other]", "[[tool.agenttools]]", "[[tool]]",
     '["tool".agenttools]', "[tool.agenttools.backend-path]", '[project.entry-points."a.b"]',
     "[tool.agenttools] # the wrapper", "[tool.agenttools.mcp-servers.s]", "[tool.hatch]"]
)  # fmt: skip
KEYS = st.sampled_from(
    ["backend", "backend-path", '"backend"', "'backend-path'", "agenttools.backend",
     "tool.agenttools.backend", "name", "agenttools", "tool", "x.y", "skills", "backend.x",
     "agenttools.backend-path", "backend . x", "requires", '"a=b"']
)  # fmt: skip
STRINGS = st.sampled_from(
    ['"uv_build"', "'uv_build'", '"setuptools.build_meta"', '"a#b"', '"x[y]"', "'x\"y'",
     '"a\\"b"', '"a\\\\b"', '"q\'s"', '"pkg:obj"', '"."', '"in-tree"', '""', "'a,b'",
     '"""multi"""', "'''multi'''", '"""\n[tool.agenttools]\nbackend = "evil"\n"""']
)  # fmt: skip
SCALARS = STRINGS | st.sampled_from(["1", "true", "1979-05-27", "[]", "{}", '{ backend = "x" }'])


@st.composite
def arrays(draw: st.DrawFn) -> str:
    items = draw(st.lists(SCALARS, max_size=3))
    if draw(st.booleans()):
        return "[" + ", ".join(items) + ("," if items and draw(st.booleans()) else "") + "]"
    lines = "".join(f"  {item},{draw(st.sampled_from(['', ' # c', ' # ]']))}\n" for item in items)
    return "[\n" + lines + "]"


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["header", "pair", "pair", "comment", "blank"]))
        if kind == "header":
            lines.append(draw(HEADERS))
        elif kind == "pair":
            value = draw(SCALARS | arrays())
            comment = draw(st.sampled_from(["", " # note", " # [x]", ' # "']))
            lines.append(f"{draw(KEYS)} = {value}{comment}")
        elif kind == "comment":
            lines.append(draw(st.sampled_from(["# [tool.agenttools]", '# backend = "x"'])))
        else:
            lines.append("")
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + end


@st.composite
def near_documents(draw: st.DrawFn) -> str:
    """The shape the reader answers: other tables, then ``[tool.agenttools]`` (spelled in one
    of the ways TOML allows) with ``backend`` and maybe ``backend-path`` and other keys, then
    sub-tables; and sometimes one line of :func:`documents` anywhere in it."""
    simple = st.sampled_from(['"src"', "'lib'", '"a#b"', '"x[y]"', "'a,b'", '"."'])
    lines = ["[project]", f"name = {draw(STRINGS)}", f"dependencies = {draw(arrays())}"]
    lines.append(draw(st.sampled_from(["[tool.agenttools]", '[ tool . "agenttools" ]',
                                       "[tool.'agenttools'] # c", '["tool"."agenttools"]'])))  # fmt: skip
    lines.append(f"backend = {draw(STRINGS)}")
    if draw(st.booleans()):
        paths = draw(st.lists(simple, max_size=3))
        lines.append("backend-path = [" + ", ".join(paths) + "]")
    if draw(st.booleans()):
        lines.append(f"{draw(KEYS)} = {draw(SCALARS)}")
    lines += ["[tool.agenttools.skills.x]", f"backend = {draw(STRINGS)}"]
    if draw(st.booleans()):
        extra = draw(documents()).strip("\r\n")
        lines.insert(draw(st.integers(0, len(lines))), extra)
    return "\n".join(lines) + "\n"


@settings(max_examples=3000, deadline=None)
@given(documents() | near_documents())
@example('[tool.agenttools]\nbackend = "uv_build"\n')
@example('[tool.agenttools]\nbackend = "b"\n[tool]\nagenttools.x = 1\n')
@example('[tool.agenttools]\nbackend = "b"\nbackend-path = [\n  "a", # c\n  \'b\',\n]\n')
def test_an_answer_is_what_tomllib_reads(text: str) -> None:
    answer = backend_setting(text)
    expected = parsed(text)
    if answer is not None and expected is not None:
        assert answer == expected


@pytest.mark.parametrize("key", sorted(BACKENDS))
def test_the_common_shape_is_answered(key: str) -> None:
    text = pyproject(BACKENDS[key])
    assert backend_setting(text) == parsed(text)
    assert backend_setting(text) is not None


def test_sample_projects_are_answered_or_left_to_tomllib() -> None:
    answered = 0
    for path in sorted(SAMPLES.glob("**/pyproject.toml")):
        text = path.read_text(encoding="utf-8")
        answer = backend_setting(text)
        if answer is not None:
            answered += 1
            assert answer == parsed(text), path
    assert answered >= 2


@pytest.mark.parametrize(
    "text",
    [
        '[tool.agenttools]\nbackend = "a\\u0062"\n',  # an escape
        '[tool]\nagenttools.backend = "b"\n',  # a dotted key
        'tool.agenttools.backend = "b"\n',
        '[tool]\nagenttools = { backend = "b" }\n',  # an inline table
        '[tool.agenttools]\nbackend = "b"\nbackend = "c"\n',  # twice (no TOML)
        "[tool.agenttools]\nbackend = 1\n",
        '[tool.agenttools]\nbackend = "b"\nbackend-path = "x"\n',
        'description = """\n[tool.agenttools]\nbackend = "evil"\n"""\n',  # a multi-line string
        "[tool.agenttools]\n",  # no backend: the validator says what is missing
        '[tool.agenttools]\nbackend = "b\n',  # a string that does not end
    ],
)
def test_other_shapes_are_left_to_tomllib(text: str) -> None:
    assert backend_setting(text) is None
