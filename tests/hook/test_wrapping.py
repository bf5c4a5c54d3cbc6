"""agenttools_hook.backend in-process, wrapping a tiny in-tree backend (``backend-path``):
every hook delegated, the files added to wheels, prepared metadata and sdists, the optional
hooks present exactly when the wrapped backend has them, and every failure a clear
``AgentToolsBuildError``. tests/hook/test_backend.py runs the real backends and frontends."""

from __future__ import annotations

import json
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenttools_hook import backend, delegate, wrapping
from agenttools_hook.errors import AgentToolsBuildError
from agenttools_runtime.wheel import archive

TINY = '''"""A tiny PEP 517 backend: a wheel of one module, an sdist, metadata."""
import io, os, pathlib, tarfile, types, zipfile

NAME, VERSION = "{name}", "2.0.dev1"  # the version is dynamic: known only here
DIST_INFO = f"{{NAME.replace('-', '_')}}-{{VERSION}}.dist-info"
METADATA = f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n\\n".encode()


def get_requires_for_build_wheel(config_settings=None):
    return ["tiny-requirement"]


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    directory = pathlib.Path(metadata_directory, DIST_INFO)
    directory.mkdir()
    (directory / "METADATA").write_bytes(METADATA)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{{NAME.replace('-', '_')}}-{{VERSION}}-py3-none-any.whl"
    files = {{"tiny_demo/__init__.py": b"", f"{{DIST_INFO}}/METADATA": METADATA}}
    record = "".join(f"{{path}},,\\n" for path in files) + f"{{DIST_INFO}}/RECORD,,\\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        for path, data in {{**files, f"{{DIST_INFO}}/RECORD": record.encode()}}.items():
            wheel.writestr(zipfile.ZipInfo(path, (2000, 1, 1, 0, 0, 0)), data)
    return name


build_editable = build_wheel
prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_sdist(sdist_directory, config_settings=None):
    name = f"{{NAME.replace('-', '_')}}-{{VERSION}}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        for path, data in (("PKG-INFO", METADATA), ("pyproject.toml", b"")):
            info = tarfile.TarInfo(f"{{name[:-7]}}/{{path}}")
            info.size = len(data)
            sdist.addfile(info, io.BytesIO(data))
    return name


# an object exposing the mandatory hooks only ("tinyback:minimal")
minimal = types.SimpleNamespace(build_wheel=build_wheel, build_sdist=build_sdist)
'''

PYPROJECT = """[build-system]
requires = ["agenttools"]
build-backend = "agenttools_hook.backend"

[project]
name = "tiny-demo"
dynamic = ["version"]

[tool.agenttools]
backend = "{backend}"
backend-path = ["_build"]

[tool.agenttools.skills.tiny-skill]

[tool.agenttools.skills.tiny-inline]
description = "Inline."
body-file = "docs/body.md"
"""


@pytest.fixture(autouse=True)
def clean_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test imports its own ``tinyback``; sys.path and sys.modules are put back."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    sys.modules.pop("tinyback", None)


def make_project(
    root: Path, monkeypatch: pytest.MonkeyPatch, spec: str = "tinyback", name: str = "tiny-demo"
) -> Path:
    files = {
        "pyproject.toml": PYPROJECT.format(backend=spec),
        "_build/tinyback.py": TINY.format(name=name),
        "skills/tiny-skill/SKILL.md": "---\nname: tiny-skill\ndescription: Tiny.\n---\n\nBody.\n",
        "docs/body.md": "The body.\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    monkeypatch.chdir(root)
    return root


def test_get_requires_are_the_wrapped_backends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path / "p", monkeypatch)
    assert backend.get_requires_for_build_wheel() == ["tiny-requirement"]
    assert backend.get_requires_for_build_sdist() == []  # the backend has none: PEP 517's default
    assert backend.get_requires_for_build_editable() == []


def test_build_wheel_adds_the_manifest_with_the_built_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path / "p", monkeypatch)
    out = tmp_path / "dist"
    out.mkdir()
    name = backend.build_wheel(str(out))
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing staged next to it
    files = archive.read_contents(out / name).bundled
    manifest = json.loads(files["extra_metadata/agenttools/manifest.json"])
    assert manifest["version"] == "2.0.dev1" and "source-root" not in manifest
    assert sorted(files) == [
        "extra_metadata/agenttools/manifest.json",
        "extra_metadata/agenttools/skills/tiny-inline/SKILL.md",
        "extra_metadata/agenttools/skills/tiny-skill/SKILL.md",
    ]


def test_prepared_metadata_matches_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path / "p", monkeypatch)
    metadata, out = tmp_path / "metadata", tmp_path / "dist"
    metadata.mkdir(), out.mkdir()
    dist_info = metadata / backend.prepare_metadata_for_build_wheel(str(metadata))
    name = backend.build_wheel(str(out), None, str(dist_info))
    prepared = {
        p.relative_to(dist_info).as_posix(): p.read_bytes()
        for p in (dist_info / "extra_metadata").rglob("*")
        if p.is_file()
    }
    assert prepared == archive.read_contents(out / name).bundled


def test_build_editable_records_the_live_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p", monkeypatch)
    out = tmp_path / "dist"
    out.mkdir()
    name = backend.build_editable(str(out))
    manifest = json.loads(
        archive.read_contents(out / name).bundled["extra_metadata/agenttools/manifest.json"]
    )
    assert manifest["source-root"] == str(project)
    metadata = tmp_path / "metadata"
    metadata.mkdir()
    dist_info = metadata / backend.prepare_metadata_for_build_editable(str(metadata))
    prepared = json.loads((dist_info / "extra_metadata/agenttools/manifest.json").read_text())
    assert prepared == manifest


def test_build_sdist_adds_what_a_wheel_build_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path / "p", monkeypatch)
    out = tmp_path / "dist"
    out.mkdir()
    name = backend.build_sdist(str(out))
    with tarfile.open(out / name) as sdist:
        names = sorted(n.split("/", 1)[1] for n in sdist.getnames())
    assert names == [
        "PKG-INFO",
        "_build/tinyback.py",  # the in-tree backend builds the wheel from the sdist too
        "docs/body.md",
        "pyproject.toml",
        "skills/tiny-skill/SKILL.md",
    ]
    assert "added to the sdist what" in capsys.readouterr().err


def test_optional_hooks_exist_exactly_when_the_wrapped_backend_has_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path / "full", monkeypatch)
    for hook in ("build_editable", "prepare_metadata_for_build_wheel"):
        assert hasattr(backend, hook)
    sys.modules.pop("tinyback")
    make_project(tmp_path / "minimal", monkeypatch, spec="tinyback:minimal")
    for hook in (
        "build_editable",
        "prepare_metadata_for_build_wheel",
        "prepare_metadata_for_build_editable",
    ):
        assert not hasattr(backend, hook)
    assert not hasattr(backend, "no_such_hook")
    assert set(backend._OPTIONAL) == set(delegate.OPTIONAL_HOOKS)
    out = tmp_path / "dist"
    out.mkdir()
    wheel = out / backend.build_wheel(str(out))
    assert archive.read_contents(wheel).bundled  # module:object works


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda text: text.replace('backend = "tinyback"', 'backnd = "tinyback"'),
            'UnknownKey: tool.agenttools.backnd: unknown key "backnd"; did you mean "backend"?',
        ),
        (
            lambda text: text.replace('backend = "tinyback"\n', ""),
            "pyproject.toml:9: MissingBackend: tool.agenttools: build-backend is "
            '"agenttools_hook.backend", so backend must name the backend',
        ),
        (
            lambda text: text.replace('"tinyback"', '"no_such_module"'),
            'The build backend "no_such_module" (tool.agenttools.backend in '
            f"{'{root}'}/pyproject.toml) cannot be imported: No module named 'no_such_module'",
        ),
        (
            lambda text: text.replace('"tinyback"', '"json"'),
            "cannot be imported: it was loaded from",  # not from backend-path
        ),
        (
            lambda text: text.replace('"tinyback"', '"tinyback:nothing"'),
            "cannot be imported: tinyback has no attribute nothing",
        ),
        (  # found by validation before anything is imported: no recursion into itself
            lambda text: text.replace('"tinyback"', '"agenttools_hook.backend"'),
            'InvalidValue: tool.agenttools.backend: "agenttools_hook.backend" is agenttools '
            "itself; name the backend it wraps",
        ),
        (
            lambda text: text.replace('["_build"]', '["../elsewhere"]'),
            'PathOutsideProject: tool.agenttools.backend-path[0]: "../elsewhere" must be a '
            "directory inside the project",
        ),
    ],
    ids=[
        "misspelled",
        "missing",
        "not-importable",
        "not-from-backend-path",
        "no-attribute",
        "itself",
        "path-outside",
    ],
)
def test_an_unusable_backend_setting_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: object, message: str
) -> None:
    project = make_project(tmp_path / "p", monkeypatch)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(edit(pyproject.read_text()))  # type: ignore[operator]
    for hook in (backend.get_requires_for_build_wheel, backend.get_requires_for_build_sdist):
        with pytest.raises(AgentToolsBuildError) as caught:
            hook()
        assert message.format(root=project) in str(caught.value)
        assert caught.value.__traceback__ is not None
        assert caught.value.__cause__ is None and caught.value.__suppress_context__


# a file name only POSIX can hold (on Windows a backslash separates, and "\x" is the drive's root)
POSIX_NAME = pytest.mark.skipif(sys.platform == "win32", reason="a file name with a backslash")


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param("_other/../_build", id="dotdot-inside"),
        pytest.param("{root}/_build", id="absolute-inside"),
        pytest.param("", id="empty"),
        pytest.param("\\_build", marks=POSIX_NAME, id="backslash-leading"),
    ],
)
def test_a_backend_path_the_backend_refuses_is_a_located_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """Before, validation took these (each names a directory of the project) and the
    hooks then refused them with "backend must name the backend to wrap", or imported
    from a directory validation had not looked at."""
    from agenttools_runtime.project import validate_project

    project = make_project(tmp_path / "p", monkeypatch)
    (project / "_other").mkdir()
    entry = entry.format(root=project.as_posix())
    if entry.startswith("\\"):  # the backend is there too: only the rule refuses it
        (project / entry).mkdir()
        (project / entry / "tinyback.py").write_text((project / "_build/tinyback.py").read_text())
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('["_build"]', f"['{entry}']"))
    message = (
        f'PathOutsideProject: tool.agenttools.backend-path[0]: "{entry}" must be a directory '
        "inside the project"
    )
    assert any(message in p.format(project) for p in validate_project(project))
    for hook in (backend.get_requires_for_build_wheel, backend.get_requires_for_build_sdist):
        with pytest.raises(AgentToolsBuildError, match=re.escape(message)):
            hook()


@pytest.mark.parametrize(
    "root",
    [
        pytest.param("\\skills", marks=POSIX_NAME, id="backslash-leading"),
        pytest.param("skills\\..\\skills", marks=POSIX_NAME, id="backslash-dotdot"),
    ],
)
def test_a_root_the_manifest_reader_refuses_fails_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    """Before, the wheel built, and deploying it failed: "the manifest.skills.tiny-skill.path
    is not inside the project"."""
    project = make_project(tmp_path / "p", monkeypatch)
    (project / "skills").rename(project / root)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace(
        "[tool.agenttools]\n", f"[tool.agenttools]\nroot = '{root}'\n"
    )
    pyproject.write_text(text)
    out = tmp_path / "dist"
    out.mkdir()
    message = f'PathOutsideProject: tool.agenttools.root: "{root}" must be a directory inside'
    for hook in (backend.build_wheel, backend.build_sdist):
        with pytest.raises(AgentToolsBuildError, match=re.escape(message)):
            hook(str(out))
    assert list(out.iterdir()) == []


def test_a_broken_project_fails_before_the_wrapped_backend_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p", monkeypatch)
    (project / "skills" / "tiny-skill" / "SKILL.md").write_text("---\nname: other\n---\n")
    out = tmp_path / "dist"
    out.mkdir()
    for hook in (backend.build_wheel, backend.build_sdist):
        with pytest.raises(AgentToolsBuildError, match=r"skills/tiny-skill/SKILL.md:\d+: "):
            hook(str(out))
    assert list(out.iterdir()) == []


def test_a_wheel_of_another_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path / "p", monkeypatch, name="somebody-else")
    out = tmp_path / "dist"
    out.mkdir()
    with pytest.raises(
        AgentToolsBuildError, match='is a wheel of "somebody-else", but the project'
    ):
        backend.build_wheel(str(out))
    assert list(out.iterdir()) == []


def test_the_wheel_is_still_a_valid_zip_with_record_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path / "p", monkeypatch)
    out = tmp_path / "dist"
    out.mkdir()
    with zipfile.ZipFile(out / backend.build_wheel(str(out))) as wheel:
        assert wheel.testzip() is None
        record = wheel.read("tiny_demo-2.0.dev1.dist-info/RECORD").decode().splitlines()
    assert record[-1] == "tiny_demo-2.0.dev1.dist-info/RECORD,,"
    assert record[2].startswith(
        "tiny_demo-2.0.dev1.dist-info/extra_metadata/agenttools/manifest.json,sha256="
    )


def test_a_build_killed_midway_is_cleaned_up_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build killed while the wrapped backend runs leaves its hidden directory in
    ``dist/``; the next build on this host removes it, and only it: a running build's, another
    host's and any other name stay."""
    import os
    import signal
    import subprocess

    project = make_project(tmp_path / "p", monkeypatch)
    backend_file = project / "_build" / "tinyback.py"
    backend_file.write_text(
        backend_file.read_text() + "\n_build_wheel = build_wheel\n\n\n"
        "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    if os.environ.get('TINY_KILL'):  # killed while it builds\n"
        "        os.kill(os.getpid(), 9)\n"
        "    return _build_wheel(wheel_directory, config_settings, metadata_directory)\n"
    )
    out = tmp_path / "dist"
    out.mkdir()
    killed = subprocess.run(
        [sys.executable, "-c", HOOK_PROCESS, "build_wheel", str(out)],
        cwd=project,
        env={**os.environ, "TINY_KILL": "1"},
        capture_output=True,
    )
    assert killed.returncode == -signal.SIGKILL
    (abandoned,) = out.iterdir()
    assert abandoned.name.startswith(wrapping.BUILD_DIRECTORY_PREFIX)
    prefix = f"{wrapping.BUILD_DIRECTORY_PREFIX}{wrapping._host()}"
    kept = {
        f"{prefix}-{os.getpid()}-0123456789ab",  # a build running (this process)
        f"{wrapping.BUILD_DIRECTORY_PREFIX}elsewhere.example-{abandoned.name.split('-')[-2]}-ab",
        f"{wrapping.BUILD_DIRECTORY_PREFIX}0123456789ab",  # named as before hosts and processes
        "notes.txt",
    }
    for name in kept:
        (out / name).mkdir()
    name = backend.build_wheel(str(out))
    assert {p.name for p in out.iterdir()} == {*kept, name}


# One hook in a new interpreter, as frontends run each.
HOOK_PROCESS = """
import json, os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "_build"))
from agenttools_hook import backend
print(json.dumps(getattr(backend, sys.argv[1])(*sys.argv[2:])))
"""
