"""``--find-links`` locations, each of the kinds pip and uv accept: a local directory of wheels,
a local HTML page of links (relative ones too), either by path or by ``file:`` URL (one slash,
``file:/path``, too), and a page of links over HTTP — read by agenttools itself (``show
--index``, ``list --index``, the ``uvx`` runner's wheel); a local wheel such a page publishes
another hash for is refused."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.helpers.envs import environments, run
from tests.helpers.index import IndexServer
from tests.helpers.index_fixtures import Releases

pytestmark = pytest.mark.slow

KINDS = [
    "directory",
    "directory-url",
    "directory-url-one-slash",
    "html-file",
    "html-file-url",
    "html-file-url-one-slash",
    "http-page",
]


def page_of_links(page: Path, wheels: list[Path], fragment: str = "") -> Path:
    """An HTML page at *page* linking each of *wheels* by a path relative to the page."""
    page.parent.mkdir(parents=True, exist_ok=True)
    links = [
        f'<a href="{quote(os.path.relpath(w, page.parent))}{fragment}">{w.name}</a><br>'
        for w in wheels
    ]
    page.write_text("<html><body>\n" + "\n".join(links) + "\n</body></html>\n", encoding="utf-8")
    return page


def location(kind: str, tmp_path: Path, wheelhouse: Path, plain_http: str) -> str:
    """The wheelhouse as a find-links location of *kind*."""
    if kind == "http-page":
        return plain_http
    where = wheelhouse
    if not kind.startswith("directory"):
        where = page_of_links(tmp_path / "pages" / "links.html", sorted(wheelhouse.iterdir()))
    if kind.endswith("-one-slash"):  # (file:/path, which pip and uv take too)
        return f"file:{where}"
    return where.as_uri() if kind.endswith("-url") else str(where)


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_find_links_location_is_read(
    kind: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    wheelhouse: Path,
    plain_http: str,
) -> None:
    where = location(kind, tmp_path, wheelhouse, plain_http)
    shown = run(
        capsys, "show", "weather-tools", "--index", "--no-index", "--find-links", where, "--json"
    )
    assert shown.status == 0, shown.err
    assert shown.json()["version"] == "1.3.0"
    listed = run(capsys, "list", "--index", "--find-links", where, "--json")
    assert listed.status == 0, listed.err
    rows = {r["distribution"]: r["version"] for r in listed.json()["distributions"]}
    assert rows == {"skills-only": "0.1.0", "weather-tools": "1.3.0"}


def test_a_local_wheel_whose_page_publishes_another_hash_is_refused(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    wheelhouse: Path,
    releases: Releases,
) -> None:
    state = tmp_path / "agenttools-state"
    wheel = (wheelhouse / releases.old.name).resolve()
    actual = hashlib.sha256(wheel.read_bytes()).hexdigest()
    page = page_of_links(tmp_path / "mirror" / "links.html", [wheel], f"#sha256={'0' * 64}")
    argv = ("deploy", "claude-code", "weather-tools", "--no-index", "--find-links", str(page))
    refused = run(capsys, *argv, "--runner", "uvx", "--install")
    assert refused.status == 1, refused.out
    assert "Traceback" not in refused.err
    assert f"The file {wheel.name} from {page} does not match its published hash" in refused.err
    assert f"sha256 {'0' * 64}, got {actual}" in refused.err
    assert environments(state) == []
    assert not (home / ".claude.json").exists()

    page_of_links(page, [wheel], f"#sha256={actual}")
    done = run(capsys, *argv, "--runner", "uvx", "--install")
    assert done.status == 0, done.err
    assert len(environments(state)) == 1
    assert (home / ".claude" / "skills" / "weather-report" / "SKILL.md").is_file()


def resolved_sources(state: Path) -> dict[str, str | None]:
    """``{distribution: the source its receipt names}`` of the one environment in *state*."""
    (name,) = environments(state)
    data = json.loads((state / "envs" / name / "agenttools-receipt.json").read_text())
    return {d["name"]: d.get("index") for d in data["resolved"]}


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_a_receipt_names_the_find_links_a_wheel_came_from_beside_an_index(
    installer: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    old_index: IndexServer,
    releases: Releases,
) -> None:
    # the index has 1.2.0 and every dependency; the find-links 1.3.0 only
    links = tmp_path / "links"
    links.mkdir()
    (links / releases.new.name).symlink_to(releases.new.resolve())
    url = old_index.url()
    done = run(
        capsys,
        "deploy",
        "claude-code",
        "weather-tools",
        "-i",
        url,
        "--find-links",
        str(links),
        "--installer",
        installer,
        "--install",
    )
    assert done.status == 0, done.err
    sources = resolved_sources(tmp_path / "agenttools-state")
    assert sources.pop("weather-tools") == str(links)
    assert len(sources) > 10 and set(sources.values()) == {url}


def test_a_receipt_names_the_extra_index_a_wheel_came_from(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    old_index: IndexServer,
    index: IndexServer,
) -> None:
    # (skills-only is on the extra index only)
    done = run(
        capsys,
        "deploy",
        "claude-code",
        "skills-only",
        "-i",
        old_index.url(),
        "--extra-index-url",
        index.url(),
        "--install",
    )
    assert done.status == 0, done.err
    assert resolved_sources(tmp_path / "agenttools-state") == {"skills-only": index.url()}
