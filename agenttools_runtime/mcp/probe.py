"""Start a stdio server as a client would and talk MCP to it, standard library only:
``initialize`` within a timeout (``deploy --check``), then, for ``show --tools``, its tools,
prompts and resources (``tools/list``, ``prompts/list``, ``resources/list``, every page).

The server runs with the environment of this process plus the entry's ``env``; it is stopped
(stdin closed, then terminated, then killed) whatever happens.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PROTOCOL = "2025-06-18"
LISTS = (("tools", "tools/list"), ("prompts", "prompts/list"), ("resources", "resources/list"))


class ProbeFailed(Exception):
    """The server did not start, exited, answered with an error, or not in time."""


@dataclass(frozen=True, slots=True)
class Probe:
    """What a server said: its ``serverInfo`` and, when listed, its tools, prompts and
    resources (each as the server gave it)."""

    server_info: Mapping[str, Any]
    listed: Mapping[str, list[Mapping[str, Any]]] = field(default_factory=dict)


def probe(
    command: Sequence[str], env: Mapping[str, str], timeout: float, *, listing: bool = False
) -> Probe:
    """Run *command*, complete ``initialize`` (and the lists with *listing*) within
    *timeout* seconds in all; :class:`ProbeFailed` saying what went wrong."""
    try:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env},
        )
    except OSError as exc:
        raise ProbeFailed(f"it cannot be started ({exc.strerror or exc})") from None
    lines: queue.Queue[bytes | None] = queue.Queue()
    errors: list[bytes | None] = []
    readers = [
        threading.Thread(target=_pump, args=(process.stdout, lines.put), daemon=True),
        threading.Thread(target=_pump, args=(process.stderr, errors.append), daemon=True),
    ]
    for reader in readers:
        reader.start()
    session = _Session(process, lines, errors, readers[1], timeout)
    try:
        init = session.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "agenttools", "version": "check"},
            },
        )
        session.notify("notifications/initialized")
        capabilities = init.get("capabilities") or {}
        listed = {
            kind: session.all_pages(method, kind)
            for kind, method in LISTS
            if listing and kind in capabilities
        }
        return Probe(init.get("serverInfo") or {}, listed)
    finally:
        _stop(process)


def _pump(stream: Any, put: Any) -> None:
    for line in iter(stream.readline, b""):
        put(line)
    put(None)


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        process.terminate()
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class _Session:
    def __init__(
        self,
        process: subprocess.Popen[bytes],
        lines: queue.Queue[bytes | None],
        errors: list[bytes | None],
        errors_reader: threading.Thread,
        timeout: float,
    ) -> None:
        self.process, self.lines, self.errors = process, lines, errors
        self.errors_reader = errors_reader
        self.deadline, self.timeout, self.next_id = time.monotonic() + timeout, timeout, 0

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.process.stdin.flush()
        except OSError:
            raise ProbeFailed(self._exited()) from None

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def request(self, method: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise ProbeFailed(f"no answer to {method} within {self.timeout:g} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise ProbeFailed(self._exited())
            try:
                message = json.loads(line)
            except ValueError:
                continue  # (a server's stray output)
            if not isinstance(message, dict) or message.get("id") != self.next_id:
                continue
            if "error" in message:
                error = message["error"] if isinstance(message["error"], dict) else {}
                raise ProbeFailed(f"{method} failed: {error.get('message', 'an error')}")
            result = message.get("result")
            return result if isinstance(result, dict) else {}

    def all_pages(self, method: str, kind: str) -> list[Mapping[str, Any]]:
        items: list[Mapping[str, Any]] = []
        cursor: str | None = None
        while True:
            page = self.request(method, {"cursor": cursor} if cursor else {})
            items += [i for i in page.get(kind) or [] if isinstance(i, dict)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                return items

    def _exited(self) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "it closed its output"
        # the process has exited, but its last words may still be in the pipe
        self.errors_reader.join(timeout=2)
        tail = (
            b"".join(e for e in self.errors if e)
            .decode("utf-8", "replace")
            .strip()
            .splitlines()[-1:]
        )
        return f"it exited with status {code}" + (f": {tail[0]}" if tail else "")
