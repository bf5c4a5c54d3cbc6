"""The ``keyed-forecast`` sample (a server with a required secret and an optional setting with
choices, a url server with a secret header): its real wheels, version 1.0.0 as it is and a
2.0.0 that adds one setting and drops another, installed into real venvs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.venvs import Venv, create_venv
from tests.helpers.wheels import SAMPLES, build_sample_wheel, build_wheel

SAMPLE = SAMPLES / "keyed-forecast"
SECRET = "sk-test-4f7c0a91e2"  # the API key: must never show up where it does not belong
TOKEN = "Bearer tok-8d21b6e0"  # the alerts header


def wheel_v1(factory: pytest.TempPathFactory) -> Path:
    return build_sample_wheel("keyed-forecast", factory)


def wheel_v2(factory: pytest.TempPathFactory) -> Path:
    """2.0.0: ``FORECAST_UNITS`` is gone, ``FORECAST_STATION`` (optional) is new."""
    project = factory.mktemp("keyed-forecast-2") / "keyed-forecast"
    shutil.copytree(SAMPLE, project)
    text = (project / "pyproject.toml").read_text("utf-8")
    start = text.index("[tool.agenttools.mcp-servers.forecast.env.FORECAST_UNITS]")
    end = text.index("[tool.agenttools.mcp-servers.alerts]")
    station = (
        "[tool.agenttools.mcp-servers.forecast.env.FORECAST_STATION]\n"
        'description = "A station to prefer"\n\n'
    )
    text = text[:start] + station + text[end:]
    (project / "pyproject.toml").write_text(text.replace('version = "1.0.0"', 'version = "2.0.0"'))
    return build_wheel(project, factory.mktemp("keyed-forecast-2-wheel"))


def venv_with(path: Path, wheel: Path) -> Venv:
    return create_venv(path, [wheel])


PLACEHOLDERS = """args = ["--region", "{region}", "--days={days}"]

[tool.agenttools.mcp-servers.forecast.placeholders.region]
description = "Region"
default = "eu"

[tool.agenttools.mcp-servers.forecast.placeholders.days]
choices = ["1", "3"]

"""


def with_placeholders(project: Path) -> Path:
    """A copy of the sample whose forecast server takes ``{region}`` and ``{days}`` in its
    arguments."""
    shutil.copytree(SAMPLE, project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text("utf-8")
    marker = "[tool.agenttools.mcp-servers.forecast.env]"
    pyproject.write_text(text.replace(marker, PLACEHOLDERS + marker))
    return project


def wheel_with_placeholders(factory: pytest.TempPathFactory) -> Path:
    project = with_placeholders(factory.mktemp("keyed-forecast-args") / "keyed-forecast")
    return build_wheel(project, factory.mktemp("keyed-forecast-args-wheel"))
