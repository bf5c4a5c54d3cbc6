"""The pure parts of the managed-environment library: index options and their sources,
credential redaction, what DIST means, PEP 751 lock files, installers' essential lines, the
receipt's form."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from agenttools_runtime.envs import receipt
from agenttools_runtime.envs.index import IndexOptions, redact, redact_text
from agenttools_runtime.envs.installer import essential_line
from agenttools_runtime.envs.pylock import (
    LockFileError,
    ResolvedDistribution,
    hashed_requirements,
    read,
)
from agenttools_runtime.envs.requirement import parse_request
from agenttools_runtime.errors.environments import (
    InvalidReceipt,
    InvalidRequirement,
    UnsupportedRequirement,
)

INDEX_VARIABLES = (
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "UV_DEFAULT_INDEX",
    "UV_INDEX_URL",
    "UV_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "UV_NO_INDEX",
)


@pytest.fixture(autouse=True)
def no_index_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """None of pip's and uv's index variables is set (the tests set theirs)."""
    for name in INDEX_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_options_come_from_the_command_line_then_pip_then_uv(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert IndexOptions.from_sources().indexes == ("https://pypi.org/simple",)
    monkeypatch.setenv("UV_INDEX_URL", "https://old.example/simple")
    assert IndexOptions.from_sources().index_url == "https://old.example/simple"
    monkeypatch.setenv("PIP_INDEX_URL", "https://pip.example/simple")
    monkeypatch.setenv("UV_DEFAULT_INDEX", "https://uv.example/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "https://a.example/simple  https://b.example/simple")
    monkeypatch.setenv("UV_FIND_LINKS", "/wheels/one,/wheels/two")
    monkeypatch.setenv("UV_NO_INDEX", "1")
    found = IndexOptions.from_sources()
    assert found.index_url == "https://pip.example/simple"
    assert found.extra_index_urls == ("https://a.example/simple", "https://b.example/simple")
    assert found.find_links == ("/wheels/one", "/wheels/two")
    assert found.no_index and found.indexes == ()
    given = IndexOptions.from_sources(index_url="https://cli.example/simple")
    assert given.index_url == "https://cli.example/simple"


def test_a_named_uv_index_is_its_url(monkeypatch: pytest.MonkeyPatch) -> None:
    # (uv's NAME=URL in UV_DEFAULT_INDEX and UV_INDEX; a name is letters, digits, - _ .)
    monkeypatch.setenv("UV_DEFAULT_INDEX", "corp=https://u:secret@h.example/simple")
    monkeypatch.setenv("UV_INDEX", "a.b=https://a.example/simple https://b.example/x=y /s/a=b")
    found = IndexOptions.from_sources()
    assert found.index_url == "https://u:secret@h.example/simple"
    assert found.extra_index_urls == (
        "https://a.example/simple",
        "https://b.example/x=y",
        "/s/a=b",
    )
    assert "secret" not in repr(found.to_json()) and "secret" not in found.describe()
    monkeypatch.setenv("PIP_INDEX_URL", "https://pip.example/simple?a=b")
    assert IndexOptions.from_sources().index_url == "https://pip.example/simple?a=b"


def test_relative_find_links_become_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = IndexOptions.from_sources(find_links=["wheels", "https://h.example/links.html"])
    assert found.find_links == (str(tmp_path / "wheels"), "https://h.example/links.html")
    # (an index that is a path is a local tree, made absolute too)
    tree = IndexOptions.from_sources(index_url="simple", extra_index_urls=["~/more"])
    assert tree.index_url == str(tmp_path / "simple")
    assert tree.extra_index_urls == (os.path.expanduser("~/more"),)
    # (file: with one slash is a URL, for pip and uv alike)
    urls = ["file:/srv/wheels", "file:///srv/wheels"]
    assert IndexOptions.from_sources(find_links=urls).find_links == tuple(urls)


def test_credentials_are_removed_from_urls_options_and_text() -> None:
    assert (
        redact("https://user:pw@host.example:8443/simple/") == "https://host.example:8443/simple/"
    )
    assert redact("https://__token__@host.example/simple") == "https://host.example/simple"
    assert redact("/local/dir") == "/local/dir"
    assert "secret" not in redact("corp=https://u:secret@h.example/simple")  # (not a URL)
    text = "Failed to fetch https://u:secret@h.example/simple/x/ and http://tok@h2/y"
    assert "secret" not in redact_text(text) and "tok@" not in redact_text(text)
    unquoted = "at https://user:p@ss-word@h.example/simple/ and a@b.example"
    assert redact_text(unquoted) == "at https://***@h.example/simple/ and a@b.example"
    assert redact("https://user:p@ss-word@h.example/simple/") == "https://h.example/simple/"
    options = IndexOptions.from_sources(
        index_url="https://u:secret@h.example/simple",
        extra_index_urls=["https://v:other@i.example/simple"],
    )
    assert "secret" not in repr(options.to_json()) and "other" not in options.describe()
    assert options.installer_arguments("uv")[:2] == [
        "--default-index",
        "https://u:secret@h.example/simple",
    ]
    assert options.installer_arguments("pip")[:2] == [
        "--index-url",
        "https://u:secret@h.example/simple",
    ]
    recorded = IndexOptions.from_json(options.to_json())
    assert recorded.index_url == "https://h.example/simple"
    back = recorded.with_credentials_of(options)
    assert back.index_url == "https://u:secret@h.example/simple"
    assert recorded.with_credentials_of(IndexOptions()).index_url == "https://h.example/simple"


def test_an_installer_gets_credentials_in_its_environment_only() -> None:
    secret, plain = "https://u:secret@h.example/simple", "https://open.example/simple"
    links = ("https://tok@w.example/links/", "/srv/my wheels")
    options = IndexOptions(
        index_url=secret, extra_index_urls=(plain, secret), find_links=links, no_index=True
    )
    # uv: every location in the variables its options read (split as it splits the options)
    args, variables = options.for_installer("uv", {"UV_INDEX": "https://mine.example/simple"})
    assert args == ["--no-index"]
    assert variables == {
        "UV_DEFAULT_INDEX": secret,
        "UV_INDEX": f"{plain} {secret}",
        "UV_FIND_LINKS": ",".join(links),
    }
    # pip: a location with credentials in the variable, after the user's value there (pip
    # adds its options' values to the variable's: the same list as before), others as options
    args, variables = options.for_installer("pip", {"PIP_EXTRA_INDEX_URL": "https://mine/s"})
    assert args == ["--extra-index-url", plain, "--find-links", "/srv/my wheels", "--no-index"]
    assert variables == {
        "PIP_INDEX_URL": secret,
        "PIP_EXTRA_INDEX_URL": f"https://mine/s {secret}",
        "PIP_FIND_LINKS": links[0],
    }
    assert IndexOptions().for_installer("pip", {}) == ([], {})
    assert IndexOptions().for_installer("uv", {}) == ([], {})


def test_what_dist_means(tmp_path: Path) -> None:
    assert parse_request("Weather_Tools>=1.2").text == "weather-tools>=1.2"
    pinned = parse_request("weather-tools==1.2.0")
    assert (pinned.kind, pinned.name, pinned.pinned_version) == ("index", "weather-tools", "1.2.0")
    wheel = tmp_path / "weather_tools-1.2.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    found = parse_request(str(wheel))
    assert (found.kind, found.name, found.pinned_version) == ("wheel", "weather-tools", "1.2.0")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "My_Proj"\n')
    assert parse_request(str(project)).name == "my-proj"
    with pytest.raises(UnsupportedRequirement, match="version control"):
        parse_request("git+https://example.org/repo.git")
    with pytest.raises(UnsupportedRequirement, match="direct URL"):
        parse_request("weather-tools @ https://example.org/w.whl")
    with pytest.raises(InvalidRequirement, match="no such file"):
        parse_request(str(tmp_path / "missing-1.0-py3-none-any.whl"))
    with pytest.raises(InvalidRequirement):
        parse_request("weather tools ===")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidRequirement, match="pyproject"):
        parse_request(str(tmp_path / "empty"))


UV_LOCK = """lock-version = "1.0"
created-by = "uv"
[[packages]]
name = "Pydantic_Core"
version = "2.50.5"
wheels = [
  { url = "https://files.example/pydantic_core-2.50.5-cp311-cp311-win_amd64.whl", hashes = { sha256 = "aa" } },
  { url = "https://files.example/pydantic_core-2.50.5-py3-none-any.whl", hashes = { sha256 = "bb" } },
]
[[packages]]
name = "weather-tools"
version = "1.2.0"
archive = { path = "dist/weather_tools-1.2.0-py3-none-any.whl", hashes = { sha256 = "cc" } }
"""
PIP_LOCK = """lock-version = "1.0"
created-by = "pip"
[[packages]]
name = "anyio"
version = "4.16.0"
[[packages.wheels]]
name = "anyio-4.16.0-py3-none-any.whl"
url = "http://u:pw@127.0.0.1/packages/anyio-4.16.0-py3-none-any.whl"
[packages.wheels.hashes]
sha256 = "dd"
"""


def test_lock_files_of_both_installers(tmp_path: Path) -> None:
    uv = read(UV_LOCK, tmp_path)
    assert [(d.name, d.version, d.file, d.sha256) for d in uv] == [
        ("pydantic-core", "2.50.5", "pydantic_core-2.50.5-py3-none-any.whl", "bb"),
        ("weather-tools", "1.2.0", "weather_tools-1.2.0-py3-none-any.whl", "cc"),
    ]
    assert uv[1].path == str(tmp_path / "dist" / "weather_tools-1.2.0-py3-none-any.whl")
    (pip,) = read(PIP_LOCK, tmp_path)
    assert pip.url == "http://127.0.0.1/packages/anyio-4.16.0-py3-none-any.whl"
    lines, hashed = hashed_requirements([*uv, pip])
    assert hashed and lines[0] == "pydantic-core==2.50.5 --hash=sha256:bb"
    assert lines[1].startswith("weather-tools @ file://") and lines[1].endswith("--hash=sha256:cc")
    with pytest.raises(LockFileError, match="lock-version"):
        read('lock-version = "2.0"\n', tmp_path)
    with pytest.raises(LockFileError, match="TOML"):
        read("[[packages", tmp_path)


def test_a_lock_file_package_without_a_wheel_for_here_takes_its_sdist(tmp_path: Path) -> None:
    """A lock made on another platform: its wheels do not install here, its sdist builds; a
    wheels list of no tables is no wheels (not a crash)."""
    head = 'lock-version = "1.0"\ncreated-by = "x"\n[[packages]]\nname = "a"\nversion = "1"\n'
    sdist = 'sdist = {name = "a-1.tar.gz", url = "https://x.test/a-1.tar.gz"}\n'
    elsewhere = (
        'wheels = [{name = "a-1-cp27-cp27m-win32.whl", url = "https://x.test/w.whl"},'
        ' {name = "a-1-xx11-none-plan9_mips.whl", url = "https://x.test/p.whl"}]\n'
    )
    (chosen,) = read(head + sdist + elsewhere, tmp_path)
    assert chosen.file == "a-1.tar.gz"
    (only,) = read(head + elsewhere, tmp_path)  # (no sdist: the most specific still)
    assert only.file is not None and only.file.endswith(".whl")
    (odd,) = read(head + sdist + 'wheels = ["x"]\n', tmp_path)
    assert odd.file == "a-1.tar.gz"


def test_the_essential_line_of_an_installer() -> None:
    uv = (
        "error: No solution found when resolving dependencies\n"
        "  cause: Because weather-tools==9.9 was not found in the package registry, we can "
        "conclude that your requirements are unsatisfiable.\n"
    )
    assert essential_line(uv).startswith("No solution found when resolving dependencies (Because")
    pip = (
        "WARNING: something\nERROR: Cannot install a==1 and b==2 because these package versions "
        "have conflicting dependencies.\nERROR: ResolutionImpossible: see https://u:pw@h/x\n"
    )
    assert essential_line(pip) == (
        "Cannot install a==1 and b==2 because these package versions have conflicting dependencies."
    )
    retry = "WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(\"http://u:pw@h/simple\")'\nERROR: No matching distribution found for x\n"
    assert "pw" not in essential_line(retry) and "connection" in essential_line(retry)
    assert essential_line("just this\n\n") == "just this"


# -- receipts ----------------------------------------------------------------------------------
def a_receipt() -> receipt.Receipt:
    return receipt.Receipt(
        requirement="weather-tools",
        kind="index",
        distribution="weather-tools",
        version="1.2.0",
        key="k" * 16,
        index=IndexOptions(index_url="https://u:secret@h.example/simple", find_links=("/w",)),
        interpreter="/usr/bin/python3",
        python_version="3.11.7",
        installer="uv",
        installer_version="0.5.1",
        resolved=(ResolvedDistribution("weather-tools", "1.2.0", "w.whl", "0" * 64),),
        created="2026-12-02T06:00:00Z",
        extra={"from-a-later-version": [1]},
    )


def test_a_receipt_is_written_nested_without_credentials_and_read_back(tmp_path: Path) -> None:
    written = a_receipt()
    receipt.write(tmp_path, written)
    data = json.loads((tmp_path / receipt.RECEIPT_FILE).read_bytes())
    assert data["interpreter"] == {"path": "/usr/bin/python3", "version": "3.11.7"}
    assert data["installer"] == {"name": "uv", "version": "0.5.1"}
    assert data["index"]["index_url"] == "https://h.example/simple"  # (never the secret)
    assert data["resolved"] == [
        {"name": "weather-tools", "version": "1.2.0", "file": "w.whl", "sha256": "0" * 64}
    ]
    assert data["schema"] == receipt.SCHEMA and data["from-a-later-version"] == [1]
    read = receipt.read(tmp_path)
    assert read == replace(written, index=written.index.redacted())
    receipt.write(tmp_path, read)  # (rewritten as it was: unknown keys kept)
    assert json.loads((tmp_path / receipt.RECEIPT_FILE).read_bytes()) == data


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"schema": True}, "schema True, this agenttools reads 1"),
        ({"requirement": 5}, "the receipt.requirement is not a string"),
        ({"kind": "url"}, "the receipt.kind is not a request kind"),
        ({"layout": "conda"}, "the receipt.layout is not a layout"),
        ({"created": None}, "the receipt.created is not a string"),
        ({"interpreter": {"path": "/p"}}, "the receipt.interpreter has no version"),
        ({"installer": "uv"}, "the receipt.installer is not an object"),
        ({"index": {"find_links": None}}, "the receipt.index.find_links is not an array"),
        ({"index": {"no_index": 1}}, "the receipt.index.no_index is not true or false"),
        ({"resolved": [{"name": "a"}]}, "the receipt.resolved[0] has no version"),
        ({"resolved": [{"name": "a", "version": "1", "url": 3}]}, "resolved[0].url is not"),
    ],
)
def test_a_receipt_agenttools_never_writes_is_refused_naming_the_field(
    tmp_path: Path, change: dict[str, object], reason: str
) -> None:
    receipt.write(tmp_path, a_receipt())
    path = tmp_path / receipt.RECEIPT_FILE
    path.write_text(json.dumps({**json.loads(path.read_bytes()), **change}), "utf-8")
    with pytest.raises(InvalidReceipt, match=re.escape(reason)):
        receipt.read(tmp_path)
