"""Adversarial: what an index publishes as a wheel's SHA-256 is the index's text, not a hash
until checked. ``show DIST --index`` reads the manifest of a wheel through HTTP range
requests (the wheel is never whole here, so its hash cannot be checked) and keeps the
manifest in the cache under the published hash: a "hash" that is a path must not decide
where agenttools writes. A real HTTP server on loopback (range requests answered, 206),
serving a real wheel of the ``skills-only`` sample."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenttools_runtime.envs.simple import JSON_TYPE
from tests.helpers.envs import run
from tests.helpers.index_fixtures import isolated_installers  # noqa: F401 (a fixture)
from tests.helpers.wheels import SAMPLES, build_wheel

pytestmark = pytest.mark.slow


class _Index(http.server.BaseHTTPRequestHandler):
    """``/simple/skills-only/``: one link, to the wheel, with the fragment the test sets;
    ``/files/NAME``: the wheel, a ``Range: bytes=-N`` or ``bytes=A-B`` answered with 206."""

    wheel: bytes = b""
    filename: str = ""
    fragment: str = ""
    json_form = False  # the project page as PEP 691 JSON, not PEP 503 HTML

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/simple/skills-only" and self.json_form:
            name, _, published = self.fragment.partition("=")
            listed = {"filename": self.filename, "url": f"/files/{self.filename}"}
            page = {"meta": {"api-version": "1.0"}, "name": "skills-only", "files": [listed]}
            listed["hashes"] = {name: published}
            self._send(200, json.dumps(page).encode(), JSON_TYPE)
        elif self.path.rstrip("/") == "/simple/skills-only":
            link = f'<a href="/files/{self.filename}#{self.fragment}">{self.filename}</a>'
            self._send(200, f"<html><body>{link}</body></html>".encode(), "text/html")
        elif self.path == f"/files/{self.filename}":
            self._file()
        else:
            self._send(404, b"", "text/plain")

    def _file(self) -> None:
        data, wanted = self.wheel, self.headers.get("Range", "")
        if not wanted.startswith("bytes="):
            self._send(200, data, "application/octet-stream")
            return
        first, _, last = wanted[len("bytes=") :].partition("-")
        if not first:
            start, end = max(0, len(data) - int(last)), len(data) - 1
        else:
            start, end = int(first), min(int(last) if last else len(data) - 1, len(data) - 1)
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.wfile.write(data[start : end + 1])

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(SAMPLES / "skills-only", tmp_path_factory.mktemp("w"))


@pytest.fixture
def index(wheel: Path) -> Iterator[type[_Index]]:
    handler = type("Index", (_Index,), {"wheel": wheel.read_bytes(), "filename": wheel.name})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}/simple/"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    thread.join(timeout=30)
    server.server_close()


def show(capsys: pytest.CaptureFixture[str], url: str) -> tuple[int, str, str]:
    done = run(capsys, "show", "skills-only", "--index", "--index-url", url, "--json")
    assert "Traceback" not in done.out + done.err
    return done.status, done.out, done.err


@pytest.mark.parametrize("json_form", [False, True], ids=["html", "json"])
def test_a_true_hash_reads_the_manifest_by_ranges(
    isolated_installers: None,  # noqa: F811
    index: type[_Index],
    capsys: pytest.CaptureFixture[str],
    json_form: bool,
) -> None:
    """(The server and the range reading work: the test below means what it says.)"""
    index.json_form = json_form
    index.fragment = "sha256=" + hashlib.sha256(index.wheel).hexdigest()
    status, out, err = show(capsys, index.url)  # type: ignore[attr-defined]
    assert status == 0, err
    assert "changelog-entry" in out


@pytest.mark.parametrize(
    "published",
    ["path", "x" * 64, "abc", "a" * 63 + "/"],
    ids=["a path", "64 letters", "too short", "a slash"],
)
@pytest.mark.parametrize("json_form", [False, True], ids=["html", "json"])
def test_a_published_hash_that_is_not_one_writes_nothing_and_says_so(
    isolated_installers: None,  # noqa: F811
    index: type[_Index],
    capsys: pytest.CaptureFixture[str],
    home: Path,
    published: str,
    json_form: bool,
) -> None:
    """A link 'skills_only-0.1.0-py3-none-any.whl#sha256=../../…/HOME/.claude' made ``show
    --index`` replace ~/.claude.json with the wheel's manifest.json (the published hash was
    joined into the cache path ``manifests/<sha256>.json`` unchecked)."""
    config = home / ".claude.json"
    config.write_text('{"numStartups": 3, "mcpServers": {}}\n')
    if published == "path":
        published = "../" * 40 + str(home / ".claude").lstrip("/")
    index.fragment = "sha256=" + published
    index.json_form = json_form
    status, out, _ = show(capsys, index.url)  # type: ignore[attr-defined]
    assert config.read_text() == '{"numStartups": 3, "mcpServers": {}}\n'
    assert status == 1
    assert "IndexFileInvalid" in out
    assert "is not a SHA-256 digest" in out
