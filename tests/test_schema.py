"""The one schema of [tool.agenttools] (agenttools_runtime/schema.py): the published JSON
schema (validate-pyproject plugin), the generated reference page, and agreement with the
validator."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agenttools_runtime import schema

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

    from agenttools_runtime.validate import errors_of, validate_project

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
    from agenttools_runtime.validate import validate_project

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
