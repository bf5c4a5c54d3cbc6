"""``validate`` never raises: fuzzing ``[tool.agenttools]`` with hypothesis.

Generated ``pyproject.toml`` files put a value of every TOML type (string, integer, float,
boolean, offset and local date-times, dates, times, arrays, inline tables, arrays of tables)
in every position of ``[tool.agenttools]`` — the table itself, ``root``, ``mcp-servers`` and
each server and server key, ``skills`` and each skill and skill key, ``bundles`` and each
bundle, bundle key and list item — and now and then in the tables around it (``[project]``,
``[build-system]``, the hook's table, hatch's wheel target), mixed with values of the right
shape, hostile strings (NUL, 300 characters, ``..``, absolute paths) and names that break the
naming rules. The layout varies too: header tables, inline tables, dotted keys.

The property: :func:`validate_project` returns problems — each with a known code, the file and,
for a key of the file, its line — or none; it never raises. A project without errors also
compiles into a manifest (the hook's path) that is JSON. Profiles: ``tests/helpers/fuzz.py``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenttools_runtime import schema
from agenttools_runtime.project import (
    CODES,
    Project,
    ProjectInvalid,
    build_manifest,
    errors_of,
    load_project,
    validate_project,
)
from tests.helpers.fuzz import fuzz

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# -- TOML values of every type -------------------------------------------------------------

HOSTILE_STRINGS = [
    "",
    " ",
    "skills",
    "weather",
    "weather-report",
    "pkg.server",
    "pkg",
    "..",
    "../outside",
    "/etc",
    "C:\\Windows",
    "a\x00b",
    "x" * 300,
    "a/" * 200,
    "a.b." * 80,
    "ｆｏｏ",
    "Weather-Report",
    "a--b",
    "-a",
    "dist/skill",
    "other-dist/some-skill",
    "/",
    "stdio",
    "http",
    "sse",
    "https://example.org/mcp",
    "http://[::1",
    "ftp://x",
    "sys_platform == 'linux'",
    "sys_platform == 'win32'",
    "python_version >= '3.8' and os_name == 'nt'",
    "dependency_groups == 'x'",
    "extra == 'x'",
    "python_version > 'abc'",
    "platform_release >= '1'",
    "not a marker",
    "---",
    "line\nbreak",
    "\u2028",
    "\x7f",
    "\U0001f600",
    "hatchling.build",
    "agenttools",
    "agenttools>=1; python_version<'3'",
    "[tool.agenttools]",
    "${HOME}",
    "%APPDATA%",
]

TZ = st.sampled_from(
    [None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone.max]
)
STRINGS = st.one_of(st.sampled_from(HOSTILE_STRINGS), st.text(max_size=20))
SCALARS = st.one_of(
    STRINGS,
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.datetimes(timezones=TZ),
    st.dates(),
    st.times(),
)
KEYS = st.one_of(
    st.sampled_from(["a", "", "name", "description", "x y", "k\u00e9", "1", "a.b", '"q"']),
    st.text(max_size=8),
)


def toml_values(scalars: st.SearchStrategy[Any] = SCALARS) -> st.SearchStrategy[Any]:
    """Any TOML value: scalars, arrays (mixed types), inline tables, arrays of tables."""
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(KEYS, inner, max_size=3),
            st.lists(st.dictionaries(KEYS, inner, max_size=2), min_size=1, max_size=2),
        ),
        max_leaves=6,
    )


ANY = toml_values()


def maybe(shape: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right shape, sometimes any TOML value at all."""
    return st.one_of(shape, shape, shape, ANY)


def string_list(items: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return maybe(st.lists(st.one_of(items, items, items, ANY), max_size=4))


def tables(
    keys: list[str], values: dict[str, st.SearchStrategy[Any]]
) -> st.SearchStrategy[dict[str, Any]]:
    """A table with some of *keys* (and now and then an unknown one), each its shape or any
    value."""
    known = st.sampled_from(keys)
    return st.lists(st.one_of(known, known, known, KEYS), unique=True, max_size=len(keys)).flatmap(
        lambda chosen: st.fixed_dictionaries({k: maybe(values.get(k, ANY)) for k in chosen})
    )


SERVER_NAMES = st.sampled_from(["weather", "other", "", "a/b", "My Server", "x" * 300, "\x00"])
SKILL_NAMES = st.sampled_from(
    ["weather-report", "bad-skill", "missing", "Weather", "a--b", "x" * 70, "", "ｆｏｏ", "dist/x"]
)
MODULES = st.sampled_from(["pkg.server", "pkg", "nowhere.mod", "1bad", "", "a..b", "a" * 300])
SERVER = tables(
    [k.name for k in schema.SERVER.keys],
    {
        "module": MODULES,
        "script": st.sampled_from(["weather-mcp", "nope", ""]),
        "command": STRINGS,
        "url": STRINGS,
        "args": string_list(STRINGS),
        "env": st.dictionaries(KEYS, STRINGS, max_size=2),
        "headers": st.dictionaries(KEYS, STRINGS, max_size=2),
        "transport": st.sampled_from(["stdio", "http", "sse", "ws"]),
        "config-key": STRINGS,
        "description": STRINGS,
    },
)
SKILL = tables(
    [k.name for k in schema.SKILL.keys] + ["hooks", "model", "argument-hint"],
    {
        "description": STRINGS,
        "body": STRINGS,
        "body-file": st.sampled_from(
            ["docs/body.md", "missing.md", "../x.md", "a\x00b", "x" * 300]
        ),
        "license": STRINGS,
        "compatibility": STRINGS,
        "allowed-tools": st.one_of(STRINGS, string_list(STRINGS)),
        "metadata": st.dictionaries(KEYS, SCALARS, max_size=2),
    },
)
REFERENCES = st.one_of(SKILL_NAMES, SERVER_NAMES, STRINGS)
BUNDLE = tables(
    [k.name for k in schema.BUNDLE.keys],
    {
        "name": st.one_of(SERVER_NAMES, STRINGS),
        "description": STRINGS,
        "mcp-servers": string_list(SERVER_NAMES),
        "skills": string_list(REFERENCES),
        "marker": STRINGS,
    },
)
AGENTTOOLS = tables(
    [k.name for k in schema.AGENTTOOLS.keys],
    {
        "root": st.sampled_from(["skills", "", "..", "/abs", "a\x00b", "x" * 300, "skills/../.."]),
        "mcp-servers": st.dictionaries(SERVER_NAMES, maybe(SERVER), max_size=3),
        "skills": st.dictionaries(SKILL_NAMES, maybe(SKILL), max_size=3),
        "bundles": st.lists(maybe(BUNDLE), max_size=3),
    },
)
PROJECT = st.fixed_dictionaries(
    {"name": st.one_of(st.just("weather-tools"), st.just("weather-tools"), ANY)},
    optional={
        "version": st.just("1.0"),
        "scripts": maybe(st.dictionaries(st.sampled_from(["weather-mcp", "x"]), STRINGS)),
        "dynamic": maybe(st.lists(st.sampled_from(["scripts", "version"]))),
    },
)
WHEEL_TARGET = st.fixed_dictionaries(
    {}, optional={"packages": string_list(STRINGS), "sources": ANY, "hooks": ANY}
)
HATCH = st.fixed_dictionaries(
    {
        "build": st.fixed_dictionaries(
            {"hooks": maybe(st.fixed_dictionaries({"agenttools": maybe(st.just({}))}))},
            optional={
                "sources": ANY,
                "targets": maybe(st.fixed_dictionaries({"wheel": maybe(WHEEL_TARGET)})),
            },
        )
    }
)
BUILD_SYSTEM = maybe(
    st.fixed_dictionaries(
        {
            "requires": maybe(st.just(["hatchling", "agenttools"])),
            "build-backend": maybe(st.just("hatchling.build")),
        }
    )
)


@st.composite
def pyprojects(draw: st.DrawFn) -> dict[str, Any]:
    """The parsed ``pyproject.toml``: ``[tool.agenttools]`` always, mostly of its shape, the
    tables around it mostly right."""
    tool: dict[str, Any] = {"agenttools": draw(maybe(AGENTTOOLS)), "hatch": draw(maybe(HATCH))}
    return {"build-system": draw(BUILD_SYSTEM), "project": draw(PROJECT), "tool": tool}


# -- a TOML writer (every layout a person may use) -----------------------------------------


def toml_string(value: str) -> str:
    # JSON escapes are TOML escapes, except that TOML has no "\/" and wants DEL escaped
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def write_toml(data: dict[str, Any], rng: random.Random) -> str:
    lines: list[str] = []
    _write_table(lines, (), data, rng)
    return "\n".join(lines) + "\n"


def _write_table(
    lines: list[str], path: tuple[str, ...], table: dict[str, Any], rng: random.Random
) -> None:
    later: list[tuple[str, Any]] = []
    for key, value in table.items():
        header_table = isinstance(value, dict) and value and rng.random() < 0.7
        array_of_tables = (
            isinstance(value, list)
            and value
            and all(isinstance(v, dict) for v in value)
            and rng.random() < 0.7
        )
        if header_table or array_of_tables:
            later.append((key, value))
        elif path and isinstance(value, dict) and value and rng.random() < 0.3:
            for sub, subvalue in value.items():  # dotted keys
                lines.append(f"{toml_key(key)}.{toml_key(sub)} = {toml_value(subvalue)}")
        else:
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    for key, value in later:
        sub_path = (*path, key)
        header = ".".join(toml_key(p) for p in sub_path)
        if isinstance(value, dict):
            lines.append(f"[{header}]")
            _write_table(lines, sub_path, value, rng)
        else:
            for item in value:
                lines.append(f"[[{header}]]")
                _write_table(lines, sub_path, item, rng)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


# -- the project around it -----------------------------------------------------------------

SKILL_MD = "---\nname: {name}\ndescription: {description}\n---\n\nBody.\n"


@pytest.fixture(scope="module")
def project_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project with a valid skill, an invalid one, a server module and a body file; each
    example writes only its pyproject.toml."""
    root = tmp_path_factory.mktemp("fuzzed-project")
    files = {
        "skills/weather-report/SKILL.md": SKILL_MD.format(name="weather-report", description="d"),
        "skills/bad-skill/SKILL.md": "---\nname: Bad\ndescription: [unclosed\n---\n",
        "src/pkg/__init__.py": "",
        "src/pkg/server.py": "",
        "docs/body.md": "# Body\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    yield root


# hypothesis warns that the reprs of these strategies are long (the hostile strings)
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

ROW = re.compile(r"^(?:tool|project|build-system)\b")


@fuzz(ci_examples=400)
@given(pyprojects(), st.randoms(use_true_random=False))
def test_validate_gives_located_problems_never_a_traceback(
    project_dir: Path, data: dict[str, Any], rng: random.Random
) -> None:
    text = write_toml(data, rng)
    assert _same(tomllib.loads(text), data), text  # the writer writes what was generated
    pyproject = project_dir / "pyproject.toml"
    pyproject.write_text(text, encoding="utf-8")

    problems = validate_project(project_dir)

    for problem in problems:
        assert problem.code in CODES, problem
        assert problem.severity in ("error", "warning")
        assert problem.path.is_relative_to(project_dir), problem
        json.dumps(problem.to_json())
        line = problem.format(project_dir)
        assert "Traceback" not in line
        if problem.path == pyproject:  # about a key: named, and its line found
            assert ROW.match(problem.message) or problem.code == "MissingConfig", problem
            if problem.message.split(".", 1)[0].split(":", 1)[0] in data:
                assert problem.line is not None, (problem, text)
            if problem.line is not None:
                assert 1 <= problem.line <= text.count("\n"), (problem, text)
    if not errors_of(problems):
        project = load_project(project_dir)
        assert isinstance(project, Project)
        try:
            plan = build_manifest(project, "1.0")
        except ProjectInvalid as exc:  # only MissingConfig: a table that declares nothing
            assert {p.code for p in exc.problems} == {"MissingConfig"}
        else:
            json.loads(plan.manifest.to_bytes())  # the manifest the wheel carries is JSON


def test_the_toml_writer_covers_every_type() -> None:
    value = {
        "s": "a\x00\x7f\n",
        "i": -(2**63),
        "f": [math.inf, -0.0, 1e-5],
        "b": True,
        "odt": dt.datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc),
        "ldt": dt.datetime(2001, 2, 3, 4, 5, 6),
        "d": dt.date(2001, 2, 3),
        "t": dt.time(4, 5, 6, 7),
        "a": [1, "x", [True]],
        "it": {"": {"a.b": 1}},
        "aot": [{"x": 1}, {"y": {"z": 2}}],
    }
    for seed in range(5):
        assert _same(
            tomllib.loads(write_toml({"tool": {"agenttools": value}}, random.Random(seed))),
            {"tool": {"agenttools": value}},
        )
