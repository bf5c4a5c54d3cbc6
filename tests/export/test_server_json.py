"""The MCP registry's server.json of a server that declares
``[tool.agenttools.mcp-servers.NAME.registry]``: valid against the registry's published schema,
printed by ``agenttools server-json``, written into the sdist by the hook and by the wrapping
backend (never into the wheel's manifest), and refused by validate with file:line when the
registry could not take it."""

from __future__ import annotations

import json
import sys
import tarfile
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenttools_hook import backend
from agenttools_runtime.cli import main
from agenttools_runtime.export.server_json import SCHEMA_FILE, SCHEMA_URL
from agenttools_runtime.export.validation import problems
from tests.helpers.wheels import build_sdist, build_wheel

PYPROJECT = """\
[build-system]
requires = ["hatchling", "agenttools"]
build-backend = "hatchling.build"

[project]
name = "regdemo"
version = "0.4.1"
description = "A demo server for the registry."
readme = "README.md"
urls = {{ Repository = "https://github.com/example/regdemo", Homepage = "https://example.org/regdemo" }}

[project.scripts]
regdemo = "regdemo.server:main"

[tool.hatch.build.targets.wheel]
packages = ["src/regdemo"]

[tool.hatch.build.hooks.agenttools]

{servers}
"""
MODULE_SERVER = """\
[tool.agenttools.mcp-servers.demo]
module = "regdemo.server"
args = ["--quiet"]
env = { DEMO_MODE = "fast" }

[tool.agenttools.mcp-servers.demo.registry]
name = "io.github.example/regdemo"
title = "Regdemo"
"""
README = "# regdemo\n\n<!-- mcp-name: io.github.example/regdemo -->\n"


def make_project(root: Path, servers: str = MODULE_SERVER, readme: str = README) -> Path:
    files = {
        "pyproject.toml": PYPROJECT.format(servers=servers),
        "README.md": readme,
        "src/regdemo/__init__.py": "",
        "src/regdemo/server.py": "def main():\n    pass\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _server_json(project: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:  # type: ignore[type-arg]
    assert main(["server-json", str(project), *extra]) == 0, capsys.readouterr().err
    document: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    assert problems(document, SCHEMA_FILE) == []
    return document


def test_a_module_server_is_the_pypi_package_run_with_uvx(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _server_json(make_project(tmp_path / "p"), capsys)
    assert document == {
        "$schema": SCHEMA_URL,
        "name": "io.github.example/regdemo",
        "title": "Regdemo",
        "description": "A demo server for the registry.",
        "version": "0.4.1",
        "repository": {"url": "https://github.com/example/regdemo", "source": "github"},
        "websiteUrl": "https://example.org/regdemo",
        "packages": [
            {
                "registryType": "pypi",
                "registryBaseUrl": "https://pypi.org",
                "identifier": "regdemo",
                "version": "0.4.1",
                "runtimeHint": "uvx",
                "transport": {"type": "stdio"},
                "packageArguments": [{"type": "positional", "value": "--quiet"}],
                "environmentVariables": [{"name": "DEMO_MODE", "value": "fast"}],
            }
        ],
    }


def test_a_url_server_is_a_remote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    servers = """\
[tool.agenttools.mcp-servers.docs]
description = "Documentation search."
url = "https://docs.example.org/mcp"
transport = "sse"
headers = { X-Tenant = "public" }

[tool.agenttools.mcp-servers.docs.registry]
name = "io.github.example/regdemo"
"""
    document = _server_json(make_project(tmp_path / "p", servers), capsys)
    assert document["remotes"] == [
        {
            "type": "sse",
            "url": "https://docs.example.org/mcp",
            "headers": [{"name": "X-Tenant", "value": "public"}],
        }
    ]
    assert "packages" not in document and document["description"] == "Documentation search."


def test_written_to_a_file_and_for_another_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path / "p")
    out = tmp_path / "out" / "server.json"
    assert main(["server-json", str(project), "-o", str(out), "--version", "0.5.0"]) == 0
    document = json.loads(out.read_text())
    assert document["version"] == document["packages"][0]["version"] == "0.5.0"
    assert out.read_bytes().endswith(b"}\n")


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_the_projects_warnings_are_warnings_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    """Bug: they were printed as 'agenttools: …' (the prefix of an error), and not at all
    with --json, where every other command prints its warnings as 'Warning: …' on stderr;
    then as 'Warning: skills/…/SKILL.md:1: warning: UndeclaredSkill: …' (warning twice)."""
    project = make_project(tmp_path / "p")
    (project / "skills" / "extra").mkdir(parents=True)
    skill = "---\nname: extra\ndescription: Nobody declares it.\n---\nBody\n"
    (project / "skills" / "extra" / "SKILL.md").write_text(skill)
    assert main(["server-json", str(project), *(["--json"] if as_json else [])]) == 0
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert (document["server"] if as_json else document)["name"] == "io.github.example/regdemo"
    (line,) = err.splitlines()
    assert line.startswith(
        "Warning: skills/extra/SKILL.md:1: UndeclaredSkill: skills/extra holds a SKILL.md"
    ), err
    assert line.casefold().count("warning") == 1


def test_a_project_without_a_registry_entry_says_how_to_declare_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_packages" / "weather-tools"
    assert main(["server-json", str(sample)]) == 1
    err = capsys.readouterr().err
    assert "[tool.agenttools.mcp-servers.NAME.registry]" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("readme", "servers", "code", "key"),
    [
        ("# regdemo\n", MODULE_SERVER, "RegistryReadme", 'name = "io.github.example/regdemo"'),
        (
            README,
            MODULE_SERVER.replace('module = "regdemo.server"', 'module = "regdemo.other"'),
            "RegistryScript",
            "[tool.agenttools.mcp-servers.demo.registry]",
        ),
    ],
)
def test_validate_fails_with_file_and_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    readme: str,
    servers: str,
    code: str,
    key: str,
) -> None:
    project = make_project(tmp_path / "p", servers, readme)
    (project / "src/regdemo/other.py").write_text("")
    assert main(["validate", str(project)]) == 1
    out = capsys.readouterr().out
    lines = (project / "pyproject.toml").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith(key))
    assert f"pyproject.toml:{line}: {code}: " in out, out
    assert main(["server-json", str(project)]) == 1  # the same checks refuse it


@pytest.mark.slow
def test_the_hook_writes_it_into_the_sdist_and_not_into_the_wheel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path / "p")
    expected = _server_json(project, capsys)
    sdist = build_sdist(project, tmp_path / "dist")
    with tarfile.open(sdist) as archive:
        member = archive.extractfile("regdemo-0.4.1/server.json")
        assert member is not None
        assert json.loads(member.read()) == expected
    wheel = build_wheel(project, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as archive:
        manifest = json.loads(
            archive.read("regdemo-0.4.1.dist-info/extra_metadata/agenttools/manifest.json")
        )
        assert not [n for n in archive.namelist() if n.endswith("server.json")]
    assert "registry" not in manifest["mcp-servers"]["demo"]


TINY = '''\
"""A tiny PEP 517 backend with a dynamic version: the sdist alone."""
import io, os, tarfile

def build_sdist(sdist_directory, config_settings=None):
    name = "regdemo-0.7.0.dev2.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        data = b"Metadata-Version: 2.1\\nName: regdemo\\nVersion: 0.7.0.dev2\\n\\n"
        info = tarfile.TarInfo("regdemo-0.7.0.dev2/PKG-INFO")
        info.size = len(data)
        sdist.addfile(info, io.BytesIO(data))
    return name

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise NotImplementedError
'''


@pytest.fixture
def clean_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    sys.modules.pop("tinyregistry", None)


@pytest.mark.slow
def test_the_wrapping_backend_writes_it_for_the_version_it_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_imports: None
) -> None:
    project = make_project(tmp_path / "p")
    text = (project / "pyproject.toml").read_text()
    text = text.replace(
        'build-backend = "hatchling.build"', 'build-backend = "agenttools_hook.backend"'
    )
    text = text.replace('version = "0.4.1"', 'dynamic = ["version"]')
    text = text.replace("[tool.hatch.build.hooks.agenttools]\n", "")
    text += textwrap.dedent(
        """
        [tool.agenttools]
        backend = "tinyregistry"
        backend-path = ["_build"]
        """
    )
    (project / "pyproject.toml").write_text(text)
    (project / "_build").mkdir()
    (project / "_build" / "tinyregistry.py").write_text(TINY)
    monkeypatch.chdir(project)
    out = tmp_path / "dist"
    out.mkdir()
    name = backend.build_sdist(str(out))
    with tarfile.open(out / name) as archive:
        member = archive.extractfile("regdemo-0.7.0.dev2/server.json")
        assert member is not None
        document = json.loads(member.read())
    assert problems(document, SCHEMA_FILE) == []
    assert document["version"] == document["packages"][0]["version"] == "0.7.0.dev2"
