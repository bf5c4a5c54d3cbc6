"""Declared settings at build time: validated by the one schema, carried in the manifest
(schema 2, only when a server declares them), read back typed, shown by ``show``, and
published in ``server.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agenttools_runtime.errors import ManifestSchemaTooNew
from agenttools_runtime.wheel.manifest import SCHEMA_VERSION, from_json, parse
from tests.helpers.envs import run
from tests.helpers.wheels import build_sample_wheel, manifest_bytes
from tests.settings.sample import SAMPLE, venv_with, wheel_v1


def test_the_wheel_carries_the_declared_settings_typed(tmp_path_factory) -> None:
    data = manifest_bytes(wheel_v1(tmp_path_factory))
    raw = json.loads(data)
    assert raw["schema"] == 2
    env = raw["mcp-servers"]["forecast"]["env"]
    assert env["FORECAST_REGION"] == "eu"  # a literal value stays a string
    assert env["FORECAST_API_KEY"] == {
        "description": "Your API key for the forecast service",
        "required": True,
        "secret": True,
    }
    manifest = parse(data, "keyed-forecast")
    forecast, alerts = manifest.servers["forecast"], manifest.servers["alerts"]
    assert forecast.env == {"FORECAST_REGION": "eu"}
    assert tuple(s.name for s in forecast.settings) == ("FORECAST_API_KEY", "FORECAST_UNITS")
    units = forecast.settings[1]
    assert (units.choices, units.default, units.required, units.secret) == (
        ("metric", "imperial"),
        "metric",
        False,
        False,
    )
    assert alerts.headers == {}
    (header,) = alerts.settings
    assert (header.name, header.kind, header.secret, header.required) == (
        "Authorization",
        "header",
        True,
        True,
    )
    assert manifest.to_bytes() == data  # one writer, one reader


def test_a_wheel_without_settings_keeps_schema_1(tmp_path_factory) -> None:
    """An agenttools that reads schema 1 still reads every wheel that declares no setting."""
    raw = json.loads(manifest_bytes(build_sample_wheel("weather-tools", tmp_path_factory)))
    assert raw["schema"] == 1


def test_a_reader_refuses_a_newer_schema_clearly() -> None:
    """What an agenttools of schema 1 does with this wheel, one schema up: refuses it,
    saying it was built by a newer agenttools."""
    newer = {"schema": SCHEMA_VERSION + 1, "distribution": "d", "version": "1"}
    with pytest.raises(ManifestSchemaTooNew, match="built by a newer agenttools"):
        from_json(newer, "d")
    # and a schema-1 manifest stays readable
    old = {"schema": 1, "distribution": "d", "version": "1",
           "mcp-servers": {"s": {"command": "x", "env": {"A": "1"}}}}  # fmt: skip
    assert from_json(old, "d").servers["s"].env == {"A": "1"}


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('required = "yes"', "must be a boolean (got string)"),
        ('secret = true\ndefault = "x"', "a secret has no default"),
        ('choices = ["a", "b"]\ndefault = "c"', '"c" is not one of "a", "b"'),
        ("choices = []", "needs at least one choice"),
        ("requird = true", 'unknown key "requird"; did you mean "required"?'),
    ],
)
def test_validate_refuses_a_setting_that_cannot_be_asked_for(
    tmp_path: Path, capsys, table: str, expected: str
) -> None:
    project = tmp_path / "p"
    shutil.copytree(SAMPLE, project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text("utf-8")
    text += f"\n[tool.agenttools.mcp-servers.forecast.env.EXTRA]\n{table}\n"
    pyproject.write_text(text)
    ran = run(capsys, "validate", str(project))
    assert ran.status == 1
    line = next(x for x in ran.out.splitlines() if "env.EXTRA" in x)
    assert expected in line, ran.out
    assert line.startswith(f"{pyproject}:")  # the file and line of the setting


def test_a_header_setting_needs_a_header_name(tmp_path: Path, capsys) -> None:
    project = tmp_path / "p"
    shutil.copytree(SAMPLE, project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text("utf-8") + '\n[tool.agenttools.mcp-servers.alerts.headers."X Y"]\n'
    pyproject.write_text(text)
    ran = run(capsys, "validate", str(project))
    assert ran.status == 1
    assert '"X Y" is not the name of an HTTP header' in ran.out


def test_show_lists_each_setting_without_a_value(tmp_path: Path, tmp_path_factory, capsys) -> None:
    venv = venv_with(tmp_path / "venv", wheel_v1(tmp_path_factory))
    ran = run(capsys, "show", "keyed-forecast", "--python", str(venv.python))
    assert ran.status == 0, ran.err
    assert (
        "setting: FORECAST_API_KEY (env, required, secret): Your API key for the forecast service"
        in ran.out
    )
    assert (
        "setting: FORECAST_UNITS (env): Units of the forecasts [one of metric, imperial; "
        "default metric]" in ran.out
    )
    assert "setting: Authorization (header, required, secret)" in ran.out
    data = run(capsys, "show", "keyed-forecast", "--python", str(venv.python), "--json").json()
    forecast = next(s for s in data["bundle"]["mcp_servers"] if s["name"].endswith("/forecast"))
    assert forecast["env"] == {"FORECAST_REGION": "eu"}
    assert [s["name"] for s in forecast["settings"]] == ["FORECAST_API_KEY", "FORECAST_UNITS"]
    assert forecast["settings"][1]["choices"] == ["metric", "imperial"]


def test_server_json_publishes_the_settings(tmp_path: Path, capsys) -> None:
    """The MCP registry's environmentVariables: isRequired, isSecret, default, choices; a
    literal as its fixed value."""
    project = tmp_path / "p"
    shutil.copytree(SAMPLE, project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text("utf-8").replace(
        "[tool.agenttools.mcp-servers.alerts]",
        '[tool.agenttools.mcp-servers.forecast.registry]\nname = "io.github.example/keyed-forecast"'
        "\n\n[tool.agenttools.mcp-servers.alerts]",
    )
    pyproject.write_text(text)
    readme = project / "README.md"
    readme.write_text(readme.read_text() + "\nmcp-name: io.github.example/keyed-forecast\n")
    ran = run(capsys, "server-json", str(project))
    assert ran.status == 0, ran.err + ran.out
    (package,) = json.loads(ran.out)["packages"]
    variables = {v["name"]: v for v in package["environmentVariables"]}
    assert variables["FORECAST_REGION"] == {"name": "FORECAST_REGION", "value": "eu"}
    assert variables["FORECAST_API_KEY"]["isSecret"] is True
    assert variables["FORECAST_API_KEY"]["isRequired"] is True
    assert variables["FORECAST_UNITS"]["choices"] == ["metric", "imperial"]
    assert variables["FORECAST_UNITS"]["default"] == "metric"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('"--days={days}"', '"--days={day}"'), "{day} is not declared in placeholders"),
        (('choices = ["1", "3"]', 'choices = ["1", "3"]\nsecret = true'),
         "a secret goes in env, not in args"),
        (('"--days={days}"', '"--days"'), "no argument holds {days}"),
    ],
)  # fmt: skip
def test_placeholders_match_the_arguments(
    tmp_path: Path, capsys, change: tuple[str, str], expected: str
) -> None:
    from tests.settings.sample import with_placeholders

    project = with_placeholders(tmp_path / "p")
    assert run(capsys, "validate", str(project)).status == 0
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8").replace(*change))
    ran = run(capsys, "validate", str(project))
    assert ran.status == 1 and expected in ran.out, ran.out


def test_placeholders_in_the_wheel_and_in_server_json(
    tmp_path: Path, tmp_path_factory, capsys
) -> None:
    from tests.settings.sample import wheel_with_placeholders, with_placeholders

    manifest = parse(manifest_bytes(wheel_with_placeholders(tmp_path_factory)), "keyed-forecast")
    forecast = manifest.servers["forecast"]
    assert [(s.name, s.kind) for s in forecast.settings if s.kind == "arg"] == [
        ("days", "arg"),  # (the manifest's keys are sorted)
        ("region", "arg"),
    ]
    project = with_placeholders(tmp_path / "p")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8").replace(
        "[tool.agenttools.mcp-servers.alerts]",
        '[tool.agenttools.mcp-servers.forecast.registry]\nname = "io.github.example/kf"'
        "\n\n[tool.agenttools.mcp-servers.alerts]",
    ))  # fmt: skip
    readme = project / "README.md"
    readme.write_text(readme.read_text() + "\nmcp-name: io.github.example/kf\n")
    ran = run(capsys, "server-json", str(project))
    assert ran.status == 0, ran.err + ran.out
    arguments = json.loads(ran.out)["packages"][0]["packageArguments"]
    assert arguments[1] == {
        "type": "positional",
        "value": "{region}",
        "variables": {
            "region": {"default": "eu", "description": "Region", "isRequired": False,
                       "isSecret": False}
        },
    }  # fmt: skip
