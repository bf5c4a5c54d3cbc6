"""The error tree: every class has its own template, in a family; str() is the user's sentence;
errors are built from keyword fields that fill their template (checked at every construction
site of the package); ``import *`` names them all; docs/errors.md lists them."""

from __future__ import annotations

import ast
import importlib.util
import pickle
import string
from pathlib import Path

import pytest

from agenttools_runtime import errors
from agenttools_runtime.errors import base

REPO = Path(__file__).resolve().parent.parent
MESSAGE_BASES = (errors.AgentToolsError, errors.AgentToolsWarning)
EVERY = [
    value
    for value in (getattr(errors, name) for name in errors.__all__)
    if isinstance(value, type) and issubclass(value, MESSAGE_BASES)
]
FAMILIES = [
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
    errors.SkillURISecurityError,
    errors.ProjectError,
    errors.BuildError,
    errors.PackageIndexError,
    errors.ManagedEnvironmentError,
    errors.ExportError,
    errors.ServerJsonError,
    errors.ProjectStateError,
]
LEAVES = [cls for cls in EVERY if cls not in FAMILIES]
BY_NAME = {cls.__name__: cls for cls in EVERY}
SOURCES = sorted(
    p
    for package in ("agenttools_runtime", "agenttools_hook", "agenttools")
    for p in (REPO / package).rglob("*.py")
)
MODULES = [
    "base",
    "builds",
    "clients",
    "deployments",
    "distributions",
    "exports",
    "project_state",
    "skills",
    "texts",
    "uris",
]
KEPT_HOME = {"fill"}  # base's filler, which texts.py uses too: not re-exported


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("cls", LEAVES, ids=lambda c: c.__name__)
def test_every_leaf_has_its_own_template_of_named_fields(cls: type[errors.AgentToolsError]) -> None:
    assert "template" in vars(cls) and cls.template
    assert all(f.isidentifier() for f in _fields(cls.template))
    # the tag names the class (one warning shares an error's text, and says so)
    assert cls.tag == cls.__name__ or BY_NAME[cls.tag].template == cls.template


def test_families_have_no_template_and_every_leaf_is_in_one() -> None:
    assert not [f.__name__ for f in FAMILIES if f.template]
    loose = [c.__name__ for c in LEAVES if c.__bases__ == (errors.AgentToolsError,)]
    # an optional dependency missing, a file operation the system refused (any domain's):
    # no family of their own
    assert sorted(loose) == ["FileOperationFailed", "MCPSDKMissing"]
    assert sorted(c.__name__ for c in EVERY) == sorted(
        {*(f.__name__ for f in FAMILIES), *(c.__name__ for c in LEAVES)}
    )


def test_a_family_catches_its_leaves() -> None:
    with pytest.raises(errors.ManifestError):
        raise errors.ManifestSchemaTooNew(distribution="d", schema=9, supported=1)
    with pytest.raises(errors.DistributionError):
        raise errors.InvalidManifest(distribution="d", reason="r")
    with pytest.raises(errors.SkillError):
        raise errors.AgentSkillModified(name="a", path="/x/a")
    with pytest.raises(errors.DeploymentExists):
        raise errors.DeploymentDiffers(name="n", target="t", uuid="u", difference="d")
    assert issubclass(errors.SkillConflictError, errors.SkillError)
    assert not issubclass(errors.BundleError, errors.DistributionError)


@pytest.mark.parametrize("module", MODULES)
def test_each_module_lists_what_it_defines(module: str) -> None:
    """A module's ``__all__`` is every public name it defines, so the package's ``__all__``
    (their sum) and ``import *`` miss none."""
    home = importlib.import_module(f"agenttools_runtime.errors.{module}")
    tree = ast.parse(Path(str(home.__file__)).read_text(encoding="utf-8"))
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
    defined = {n for n in defined if not n.startswith("_")} - KEPT_HOME
    assert sorted(home.__all__) == sorted(defined)


def test_a_star_import_gives_every_error_warning_and_helper() -> None:
    names: dict[str, object] = {}
    exec("from agenttools_runtime.errors import *", names)
    exported = set(names) - {"__builtins__"}
    assert {cls.__name__ for cls in EVERY} <= exported
    assert {"format_message", "TEXTS", "FORCE", "UPGRADE"} <= exported
    assert not exported & {*MODULES, "annotations", "fill"}
    assert len(errors.__all__) == len(set(errors.__all__))


def test_str_is_the_formatted_message_and_fields_are_data_and_attributes() -> None:
    err = errors.AgentSkillExists(
        name="weather", path="/h/.claude/skills/weather", option="--force"
    )
    assert (
        str(err)
        == err.message
        == (
            'A different skill named "weather" already exists at /h/.claude/skills/weather. '
            "Use --force to replace it."
        )
    )
    assert err.to_json() == {
        "tag": "AgentSkillExists",
        "message": str(err),
        "name": "weather",
        "path": "/h/.claude/skills/weather",
        "option": "--force",
    }
    assert err.data["path"] == err.path == "/h/.claude/skills/weather"


def test_a_list_field_reads_as_its_items_and_stays_a_list_in_json() -> None:
    err = errors.DeploymentIdAmbiguous(id="ab", ids=["ab1", "ab2"])
    assert str(err) == 'The deployment id prefix "ab" matches several deployments: ab1, ab2.'
    assert err.to_json()["ids"] == ["ab1", "ab2"]
    assert errors.DeploymentLockTimeout(timeout=0.5).to_json()["timeout"] == 0.5


def test_the_overwrite_levels_are_spelled_in_the_templates() -> None:
    assert errors.FORCE in str(errors.AgentSkillModified(name="a", path="/x/a"))
    assert errors.UPGRADE in str(errors.AgentSkillUpdate(name="a", path="/x/a"))
    assert "{name}" not in str(errors.AgentSkillModifiedKept(name="a", path="p", version="1"))


def test_error_group_lists_every_message() -> None:
    modified = errors.AgentSkillModified(name="a", path="/x/a")
    update = errors.AgentSkillUpdate(name="b", path="/x/b")
    group = errors.AgentToolsErrors([modified, update])
    assert isinstance(group, errors.AgentToolsError) and group.errors == [modified, update]
    assert str(group).splitlines() == [modified.message, update.message]
    assert group.to_json()["tag"] == "AgentToolsErrors"
    assert [e["tag"] for e in group.to_json()["errors"]] == [
        "AgentSkillModified",
        "AgentSkillUpdate",
    ]


def test_warning_and_error_can_share_a_text() -> None:
    warning = errors.AgentSkillRemoveFailedWarning(name="a", path="/x/a", reason="busy")
    assert isinstance(warning, UserWarning)
    assert warning.tag == "AgentSkillRemoveFailed"
    assert str(warning) == str(errors.AgentSkillRemoveFailed(name="a", path="/x/a", reason="busy"))


def test_a_subclass_without_a_text_keeps_its_parents_tag() -> None:
    """(``project/invalid.py``'s ``ProjectInvalid`` is one: its ``--json`` tag is
    ``InvalidProject``.)"""

    class Mine(errors.InvalidProject):
        def __init__(self, lines: list[str]) -> None:
            self.lines = lines
            super().__init__(report="\n".join(lines), lines=len(lines))

    err = Mine(["a", "b"])
    assert err.tag == "InvalidProject" and str(err) == "a\nb"
    assert err.lines == ["a", "b"]  # (an attribute set before the fields is kept)


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
    assert base.fill("{a} {b!r}", {"b": "x"}) == "{a} 'x'"


def test_format_message_fills_the_other_texts() -> None:
    assert errors.format_message("InstallAgentSkill", name="w") == (
        'Successfully installed agent skill "w".'
    )
    assert set(errors.TEXTS).isdisjoint(BY_NAME)  # (a text is never an error's)


# -- every construction site of the package -----------------------------------------------
def _construction_sites() -> list[tuple[str, ast.Call, str]]:
    """``(where, call, name)`` for every call of an error or warning class by name
    (``errors.X(…)`` or ``X(…)``) and of ``format_message("NAME", …)``."""
    sites = []
    for source in SOURCES:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name is None or not (name in BY_NAME or name == "format_message"):
                if isinstance(func, ast.Attribute) and _is_errors(func.value) and name[0].isupper():
                    name = func.attr  # errors.X(…) of a name that may not exist
                else:
                    continue
            sites.append((f"{source.relative_to(REPO)}:{node.lineno}", node, name))
    return sites


def _is_errors(node: ast.expr) -> bool:
    # (the package is imported as ``errors``; a local list of that name has no capitals)
    return isinstance(node, ast.Name) and node.id == "errors"


SITES = _construction_sites()


def test_the_construction_sites_are_found() -> None:
    names = {name for _, _, name in SITES}
    assert len(SITES) > 200 and {"format_message", "InvalidAgentSkillName"} <= names


def test_every_error_the_package_names_exists() -> None:
    """``errors.X`` anywhere in the package, called or not, and every name imported from the
    errors package, is a name the package defines."""
    missing = []
    for source in SOURCES:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and _is_errors(node.value)
                and node.attr[0].isupper()
            ):
                names = [node.attr]
            elif isinstance(node, ast.ImportFrom) and node.module == "agenttools_runtime.errors":
                names = [alias.name for alias in node.names]
            else:
                continue
            missing += [f"{source.name}:{node.lineno} {n}" for n in names if not hasattr(errors, n)]
    assert not missing, missing


def test_every_construction_is_keyword_only_and_fills_its_template() -> None:
    problems = []
    for where, call, name in SITES:
        if name == "format_message":
            first = call.args[0] if call.args else None
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue  # (a name chosen at run time: tests/cli check each printed text)
            template = errors.TEXTS.get(first.value)
            if template is None:
                problems.append(f"{where} format_message: no text {first.value!r}")
                continue
            positional = call.args[1:]
        else:
            if name == "AgentToolsErrors":
                continue  # (the aggregate: a list of errors)
            template = BY_NAME[name].template if name in BY_NAME else None
            if not template:
                problems.append(f"{where} {name}: no such error, or a family")
                continue
            positional = call.args
        given = {k.arg for k in call.keywords}
        reserved = given & {"data", "tag", "template", "message", "args", "errors"}
        missing = _fields(template) - given
        if positional or reserved or (missing and None not in given):  # None: **mapping
            problems.append(f"{where} {name}: positional, reserved {reserved} or missing {missing}")
    assert not problems, problems


def test_docs_errors_md_matches_the_tree() -> None:
    script = REPO / "docs" / "gen_errors.py"
    spec = importlib.util.spec_from_file_location("gen_errors", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.render()
    assert module.DOC.read_text(encoding="utf-8") == text, "run: python docs/gen_errors.py"
    for cls in LEAVES:
        assert f"| `{cls.__name__}`" in text
    assert module.main(["--check"]) == 0
