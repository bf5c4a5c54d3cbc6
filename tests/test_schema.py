"""The one schema of [tool.agenttools] (agenttools_runtime/schema.py): the published JSON
schema (validate-pyproject plugin), the generated reference page, and agreement with the
validator."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenttools_runtime import names, schema

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_packages"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def pyproject(name: str) -> dict:
    return tomllib.loads((SAMPLES / name / "pyproject.toml").read_text(encoding="utf-8"))


def test_reference_page_is_generated_from_the_schema() -> None:
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import gen_reference
    finally:
        sys.path.remove(str(REPO / "docs"))
    assert (REPO / "docs" / "reference.md").read_text(encoding="utf-8") == gen_reference.generate()


def test_every_key_is_documented() -> None:
    text = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    for table in schema.TABLES:
        assert f"## `[{table.path}]`" in text
        for key in table.keys:
            assert f"| `{key.name}` |" in text


def test_json_schema_accepts_the_samples_and_rejects_typos() -> None:
    import fastjsonschema

    check = fastjsonschema.compile(schema.json_schema())
    for name in ("weather-tools", "multi-bundle", "skills-only"):
        check(pyproject(name)["tool"]["agenttools"])
    with pytest.raises(fastjsonschema.JsonSchemaException):
        check({"mcp-servers": {"a": {"modul": "x"}}})
    with pytest.raises(fastjsonschema.JsonSchemaException):
        check({"mcp-servers": {"a": {"module": "x", "command": "y"}}})
    with pytest.raises(fastjsonschema.JsonSchemaException):
        check({"bundles": [{"skills": ["a"]}]})  # a bundle needs a name


def test_json_schema_accepts_what_validate_only_warns_about(tmp_path: Path) -> None:
    """Client extension keys of an inline skill are warnings for `agenttools validate`, so
    validate-pyproject (through our schema) must not reject them."""
    import fastjsonschema

    from agenttools_runtime.project import errors_of, validate_project

    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling", "agenttools"]\n'
        'build-backend = "hatchling.build"\n[project]\nname = "p"\nversion = "1"\n'
        "[tool.hatch.build.hooks.agenttools]\n[tool.agenttools.skills.s]\n"
        'description = "d"\nbody = "b"\nargument-hint = "[x]"\nmodel = "haiku"\n'
        "disable-model-invocation = true\n"
    )
    assert errors_of(validate_project(tmp_path)) == []
    check = fastjsonschema.compile(schema.json_schema())
    check(tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["agenttools"])
    with pytest.raises(fastjsonschema.JsonSchemaException):
        check({"skills": {"s": {"description": "d", "body": "b", "argument_hint": "x"}}})


def test_validate_pyproject_uses_our_plugin() -> None:
    from validate_pyproject import api, plugins

    tools = {p.tool for p in plugins.list_from_entry_points()}
    assert "agenttools" in tools
    validator = api.Validator()
    validator(pyproject("weather-tools"))
    broken = pyproject("weather-tools")
    broken["tool"]["agenttools"]["mcp-servers"]["weather"]["transport"] = "websocket"
    with pytest.raises(Exception, match="agenttools"):
        validator(broken)


def test_validator_knows_exactly_the_schema_keys(tmp_path: Path) -> None:
    """Every schema key passes the validator's unknown-key check, and nothing else does."""
    from agenttools_runtime.project import validate_project

    server = {k.name: '"x"' for k in schema.SERVER.keys if k.kind == "string"}
    lines = ["[tool.agenttools.mcp-servers.s]"] + [f"{k} = {v}" for k, v in server.items()]
    lines.append("unknown-key = 1")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\n[tool.hatch.build.hooks.agenttools]\n' + "\n".join(lines)
    )
    unknown = [p for p in validate_project(tmp_path) if p.code == "UnknownKey"]
    assert [p.message.split(":")[0] for p in unknown] == [
        "tool.agenttools.mcp-servers.s.unknown-key"
    ]


# -- the naming rules of names.py, published in the JSON schema ------------------------------
def string_check(rule: schema.Text) -> Callable[[str], bool]:
    import fastjsonschema

    check = fastjsonschema.compile({"type": "string", **rule.json()})

    def accepts(value: str) -> bool:
        try:
            check(value)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return accepts


# text near the rules' edges: their characters, whitespace, separators, long runs
edgy_text = st.text(
    st.sampled_from("az09-_./ AZ\t\n\u00a0\u3000é") | st.characters(), max_size=80
) | st.builds(lambda n, c: c * n, st.integers(60, 1100), st.sampled_from("a -"))
RULES = [
    (schema.SKILL_NAME, names.is_skill_name),
    (schema.SKILL_NAME, lambda n: not names.skill_name_problems(n)),
    (schema.ITEM_NAME, names.is_item_name),
    (schema.SKILL_REFERENCE, names.is_skill_reference),
    (schema.DESCRIPTION, names.is_skill_description),
    (schema.DESCRIPTION, lambda d: not names.description_problems(d)),
    (schema.COMPATIBILITY, lambda c: not names.compatibility_problems(c)),
]


@pytest.mark.parametrize(("rule", "function"), RULES)
@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=edgy_text | st.sampled_from(["a", "a/b", "d/a", "d/" + "a" * 65, "a" * 64]))
def test_json_rules_equal_the_naming_rules(
    rule: schema.Text, function: Callable[[str], bool], text: str
) -> None:
    assert string_check(rule)(text) == function(text)


def test_validate_pyproject_applies_the_naming_rules() -> None:
    """What `agenttools validate` refuses as a name or a length, validate-pyproject refuses."""
    from validate_pyproject import api
    from validate_pyproject.error_reporting import ValidationError

    validator = api.Validator()
    base = pyproject("skills-only")
    validator(base)
    skills = base["tool"]["agenttools"]["skills"]
    bad = {
        "skill name": {"skills": {"My_Skill": {}}},
        "long skill name": {"skills": {"a" * 65: {}}},
        "description": {"skills": {"s": {"description": "x" * 1100, "body": "b"}}},
        "blank description": {"skills": {"s": {"description": "  ", "body": "b"}}},
        "compatibility": {
            "skills": {"s": {"description": "d", "body": "b", "compatibility": "c" * 501}}
        },
        "server name": {"mcp-servers": {"a/b": {"module": "m"}}},
        "bundle name": {"bundles": [{"name": " "}]},
        "bundle server": {"bundles": [{"name": "b", "mcp-servers": ["x/y"]}]},
        "bundle skill": {"bundles": [{"name": "b", "skills": ["other/My_Skill"]}]},
    }
    for what, table in bad.items():
        data = pyproject("skills-only")
        data["tool"]["agenttools"] = {**data["tool"]["agenttools"], **table}
        with pytest.raises(ValidationError):
            validator(data)
            pytest.fail(f"validate-pyproject accepted a bad {what}")
    good = pyproject("skills-only")
    good["tool"]["agenttools"]["bundles"] = [
        {"name": "My Bundle", "mcp-servers": ["My Server"], "skills": ["other.dist/s", *skills]}
    ]
    good["tool"]["agenttools"]["mcp-servers"] = {"My Server": {"module": "m"}}
    validator(good)
