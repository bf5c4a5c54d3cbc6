"""The message table and the error tree: every class has its text; str() is the user's sentence;
errors are built from keyword fields that fill their template (checked at every construction site)."""

from __future__ import annotations

import ast
import inspect
import pickle
import string
from pathlib import Path

import pytest

from agenttools_runtime import errors

FAMILIES = (
    errors.AgentToolsError,
    errors.AgentToolsWarning,
    errors.AgentToolsErrors,
    errors.DistributionError,
    errors.ManifestError,
    errors.BundleError,
    errors.SkillError,
    errors.SkillConflictError,
    errors.ClientError,
    errors.ConfigFileError,
    errors.DeployError,
    errors.URIError,
    errors.ProjectError,
    errors.BuildError,
)
CLASSES = [
    obj
    for _, obj in inspect.getmembers(errors, inspect.isclass)
    if issubclass(obj, (errors.AgentToolsError, errors.AgentToolsWarning)) and obj not in FAMILIES
]
SOURCES = sorted(
    p
    for package in ("agenttools_runtime", "agenttools_hook", "agenttools")
    for p in (Path(__file__).resolve().parent.parent / package).rglob("*.py")
)


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_class_has_a_message(cls: type) -> None:
    assert cls.tag in errors.MESSAGES  # type: ignore[attr-defined]


@pytest.mark.parametrize("tag", sorted(errors.MESSAGES))
def test_templates_use_named_fields_only(tag: str) -> None:
    assert all(f.isidentifier() for f in _fields(errors.MESSAGES[tag]))


def test_every_leaf_is_in_a_family() -> None:
    loose = [c.__name__ for c in CLASSES if issubclass(c, errors.AgentToolsError)]
    loose = [n for n in loose if getattr(errors, n).__bases__ == (errors.AgentToolsError,)]
    # an optional dependency missing, a file operation the system refused (any domain's):
    # no family of their own
    assert sorted(loose) == ["FileOperationFailed", "MCPSDKMissing"]


def test_a_family_catches_its_leaves() -> None:
    with pytest.raises(errors.ManifestError):
        raise errors.ManifestSchemaTooNew(distribution="d", schema=9, supported=1)
    with pytest.raises(errors.SkillError):
        raise errors.AgentSkillModified(name="a", path="/x/a")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_construction_is_keyword_only_and_fills_its_template(source: Path) -> None:
    names = {c.__name__: c for c in CLASSES}
    problems = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in names:
            continue
        given = {k.arg for k in node.keywords}
        missing = _fields(errors.MESSAGES[names[name].tag]) - given
        if node.args or (missing and None not in given):  # None: a **mapping, checked at run time
            problems.append(f"{source.name}:{node.lineno} {name}: positional or missing {missing}")
    assert not problems, problems


def test_str_is_the_formatted_message() -> None:
    err = errors.AgentSkillExists(
        name="weather", path="/h/.claude/skills/weather", option="--force"
    )
    assert str(err) == (
        'A different skill named "weather" already exists at /h/.claude/skills/weather. '
        "Use --force to replace it."
    )
    assert err.to_json() == {
        "tag": "AgentSkillExists",
        "message": str(err),
        "name": "weather",
        "path": "/h/.claude/skills/weather",
        "option": "--force",
    }


def test_a_list_field_reads_as_its_items_and_stays_a_list_in_json() -> None:
    err = errors.DeploymentIdAmbiguous(id="ab", ids=["ab1", "ab2"])
    assert str(err) == 'The deployment id prefix "ab" matches several deployments: ab1, ab2.'
    assert err.to_json()["ids"] == ["ab1", "ab2"]


def test_error_group_lists_every_message() -> None:
    modified = errors.AgentSkillModified(name="a", path="/x/a")
    update = errors.AgentSkillUpdate(name="b", path="/x/b")
    group = errors.AgentToolsErrors([modified, update])
    assert str(group).splitlines() == [modified.message, update.message]
    assert [e["tag"] for e in group.to_json()["errors"]] == [
        "AgentSkillModified",
        "AgentSkillUpdate",
    ]


def test_warning_and_error_can_share_a_text() -> None:
    warning = errors.AgentSkillRemoveFailedWarning(name="a", path="/x/a", reason="busy")
    assert warning.tag == "AgentSkillRemoveFailed"
    assert str(warning) == str(errors.AgentSkillRemoveFailed(name="a", path="/x/a", reason="busy"))


def test_errors_and_warnings_survive_pickling() -> None:
    err = errors.AgentSkillExists(name="w", path="/x/w", option="--force")
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.data == err.data
    warning = errors.AgentSkillInUse(name="w", path="/x/w")
    assert str(type(warning)(*warning.args)) == str(warning)  # how pytest-xdist rebuilds it
    group = pickle.loads(pickle.dumps(errors.AgentToolsErrors([err])))
    assert str(group) == str(err)


def test_missing_fields_do_not_raise() -> None:
    assert "{path}" in str(errors.AgentSkillInUse(name="w"))


@pytest.mark.parametrize("module", ["base", "builds", "families", "leaves"])
def test_every_lazy_class_is_re_exported_for_type_checkers(module: str) -> None:
    """The classes of ``errors/base.py``, ``errors/builds.py``, ``errors/families.py`` and
    ``errors/leaves.py`` are created on first use (the package's ``__getattr__``); its ``TYPE_CHECKING`` imports name
    each of them, so mypy sees them all."""
    import importlib

    home = importlib.import_module(f"agenttools_runtime.errors.{module}")
    package = Path(errors.__file__).read_text(encoding="utf-8")
    static = {
        alias.asname
        for node in ast.walk(ast.parse(package))
        if isinstance(node, ast.ImportFrom) and node.module == home.__name__
        for alias in node.names
    }
    defined = {
        n
        for n, v in vars(home).items()
        if isinstance(v, type) and v.__module__ == home.__name__ and not n.startswith("_")
    }
    assert defined <= static
    assert all(getattr(errors, n) is getattr(home, n) for n in static)


def test_a_star_import_gives_every_error_warning_and_helper() -> None:
    """``from agenttools_runtime.errors import *`` (in a new interpreter: nothing created
    yet) names every class ``errors.X`` does, and the package's helpers, as it did before the
    classes were created on first use — and no submodule or import machinery."""
    import subprocess
    import sys

    script = (
        "from agenttools_runtime.errors import *\n"
        "print(sorted(n for n in dir() if not n.startswith('__')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    names = set(ast.literal_eval(done.stdout))
    expected = {cls.__name__ for cls in (*FAMILIES, *CLASSES)}
    assert expected <= names
    assert {"format_message", "MESSAGES", "FORCE", "UPGRADE"} <= names
    assert not names & {"base", "builds", "families", "leaves", "messages", "TYPE_CHECKING"}
