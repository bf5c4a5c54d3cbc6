"""The AI clients that ship as npm packages, installed once into the test cache.

``npm install --no-audit --no-fund <package>@<version>`` per client into
``<test cache>/npm-clients/<id>-<version>`` (``.test-cache`` in the checkout, or
``$AGENTTOOLS_TEST_CACHE``: tests/helpers/cache.py), under a file lock so parallel test workers
and concurrent runs share one install, and runs pinning another version keep theirs. All
clients install at once in background threads as soon as a run has collected a ``clients``
test (tests/conftest.py), while the other tests run. A client whose install fails (twice) is
skipped with npm's reason — except in CI (``CI=true``), where every client listed here must
install and run.

The clients health-check each MCP server they list with a time-out of their own (5 s for
Gemini CLI and Qwen Code), which a loaded machine can miss: :func:`list_servers` lists again
until the listing shows what the test waits for, or a generous deadline passes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.cache import cache_path

REPO = Path(__file__).resolve().parents[2]
CACHE = cache_path("npm-clients")


@dataclass(frozen=True)
class NpmClient:
    """One client: its npm package (pinned: the versions verified here), its executable,
    how it lists MCP servers, and — for clients that health-check the servers they list —
    what a connected server looks like in that listing (``{key}`` is the entry key)."""

    client: str
    package: str
    version: str
    executable: str
    list_command: tuple[str, ...] = ("mcp", "list")
    connected: str | None = None
    setup: Mapping[str, str] = field(default_factory=dict)  # HOME-relative file -> content
    existing: str = ""  # the config file as the user left it: other servers, settings, comments
    rewrites_config: bool = False  # the client rewrites its own config file when it runs
    shows_command: bool = True  # its listing shows the whole command line

    @property
    def directory(self) -> Path:
        return CACHE / f"{self.client}-{self.version}"

    @property
    def binary(self) -> Path:
        return self.directory / "node_modules" / ".bin" / self.executable

    def connected_pattern(self, key: str) -> re.Pattern[str] | None:
        if self.connected is None:
            return None
        return re.compile(self.connected.format(key=re.escape(key)))


# Each client's config as a user may have it. Comments where the client accepts them:
# Gemini CLI and Qwen Code read comments but reject trailing commas; OpenCode reads both.
CLAUDE_JSON = """{
  "numStartups": 12,
  "theme": "dark",
  "mcpServers": {
    "other": {"type": "stdio", "command": "uvx", "args": ["other-mcp"], "env": {}}
  },
  "projects": {"/home/me/app": {"allowedTools": [], "history": [{"display": "hi"}]}}
}
"""
CODEX_TOML = """# Codex settings
model = "o3"  # the default model

[mcp_servers.other]
command = "uvx"
args = ["other-mcp"]
startup_timeout_sec = 30

[profiles.fast]
model = "gpt-5"
"""
GEMINI_JSONC = """// edited by hand
{
  "ui": {
    "theme": "GitHub" // a light theme
  },
  /* servers */
  "mcpServers": {
    "other": {"command": "uvx", "args": ["other-mcp"]}
  }
}
"""
OPENCODE_JSONC = """{
  "$schema": "https://opencode.ai/config.json",
  // my theme
  "theme": "opencode",
  "mcp": {
    "other": {"type": "local", "command": ["uvx", "other-mcp"], "enabled": false},
  },
}
"""
AUGMENT_JSON = """{
  "model": "sonnet4",
  "mcpServers": {
    "other": {"command": "uvx", "args": ["other-mcp"]}
  }
}
"""
COPILOT_JSON = """{
  "mcpServers": {
    "other": {"type": "local", "command": "uvx", "args": ["other-mcp"], "tools": ["*"]}
  }
}
"""

CLIENTS: dict[str, NpmClient] = {
    c.client: c
    for c in (
        NpmClient(
            "claude-code",
            "@anthropic-ai/claude-code",
            "2.1.197",
            "claude",
            connected=r"{key}: .* - ✔ Connected",
            existing=CLAUDE_JSON,
            rewrites_config=True,  # it adds firstStartTime, userID, ... on every run
        ),
        NpmClient("codex", "@openai/codex", "0.171.0", "codex", existing=CODEX_TOML),
        NpmClient(
            "gemini-cli",
            "@google/gemini-cli",
            "0.61.0",
            "gemini",
            connected=r"✓ {key}: .*- Connected",
            # Gemini CLI disables every MCP server in folders the user has not trusted
            setup={".gemini/trustedFolders.json": '{{"{cwd}": "TRUST_FOLDER"}}'},
            existing=GEMINI_JSONC,
        ),
        NpmClient(
            "opencode",
            "opencode-ai",
            "1.18.33",
            "opencode",
            connected=r"✓ {key}\s.*connected",
            existing=OPENCODE_JSONC,
        ),
        NpmClient(
            "qwen-code",
            "@qwen-code/qwen-code",
            "0.15.10",
            "qwen",
            connected=r"{key}: .* - Connected",
            existing=GEMINI_JSONC,
            rewrites_config=True,  # it migrates the file ("$version": 4) and re-indents it
        ),
        NpmClient(  # lists names and types only
            "copilot-cli",
            "@github/copilot",
            "1.0.102",
            "copilot",
            existing=COPILOT_JSON,
            shows_command=False,
        ),
        # Auggie lists what its settings hold (its cloud-side servers need an account: warned);
        # its listing cuts long commands short
        NpmClient(
            "augment-code",
            "@augmentcode/auggie",
            "0.36.0",
            "auggie",
            existing=AUGMENT_JSON,
            shows_command=False,
        ),
    )
}


@dataclass(frozen=True)
class InstallOutcome:
    client: NpmClient
    ok: bool
    seconds: float
    detail: str


NPM_ATTEMPTS = 2  # a dropped connection to the registry must not fail CI
NPM_TIMEOUT = 900  # seconds, for one npm install


def install(client: NpmClient) -> InstallOutcome:
    """Install *client* into its cache directory unless that exact version is there."""
    from filelock import FileLock

    CACHE.mkdir(parents=True, exist_ok=True)
    stamp = client.directory / ".installed"
    wanted = f"{client.package}@{client.version}\n"
    with FileLock(os.fspath(client.directory.with_name(client.directory.name + ".lock"))):
        if stamp.is_file() and stamp.read_text() == wanted and client.binary.exists():
            return InstallOutcome(client, True, 0.0, "cached")
        npm = shutil.which("npm")
        if npm is None:
            return InstallOutcome(client, False, 0.0, "npm is not installed")
        start = time.monotonic()
        for _ in range(NPM_ATTEMPTS):
            detail = _npm_install(npm, client, wanted.strip())
            if detail is None:
                stamp.write_text(wanted)
                return InstallOutcome(client, True, time.monotonic() - start, "installed")
        return InstallOutcome(client, False, time.monotonic() - start, detail)


def _npm_install(npm: str, client: NpmClient, spec: str) -> str | None:
    """One ``npm install`` into a new directory; ``None`` or what went wrong."""
    if client.directory.exists():
        shutil.rmtree(client.directory)
    client.directory.mkdir(parents=True)
    (client.directory / "package.json").write_text('{"private": true}\n')
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", spec],
            cwd=client.directory,
            env=install_env(),
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"npm install did not finish within {NPM_TIMEOUT} s"
    if done.returncode != 0 or not client.binary.exists():
        lines = (done.stderr or done.stdout).strip().splitlines()
        return " / ".join(lines[-5:]) or "no binary"
    return None


def install_env() -> dict[str, str]:
    """The environment of ``npm install``: HOME, npm's cache and every folder a package's
    install script may create (OpenCode's makes ``~/.config/opencode`` and more; node-gyp
    caches headers in ``~/.cache``) inside the test cache, never the developer's home —
    where they would make ``agenttools clients`` see clients that were never installed."""
    home = cache_path("npm-home")
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
    env.update(
        HOME=os.fspath(home),
        USERPROFILE=os.fspath(home),
        XDG_CONFIG_HOME=os.fspath(home / ".config"),
        XDG_CACHE_HOME=os.fspath(home / ".cache"),
        XDG_DATA_HOME=os.fspath(home / ".local" / "share"),
        npm_config_cache=os.fspath(cache_path("npm-cache")),
        npm_config_update_notifier="false",
    )
    return env


# This process's installs by client id: started once, awaited by every test that needs one.
_INSTALLS: dict[str, Future[InstallOutcome]] = {}


def start_installs(clients: Iterable[NpmClient] | None = None) -> None:
    """Start installing *clients* (default: all) in background threads, all at once (npm
    mostly waits on the network), unless this process started them already. Returns at once."""
    todo = [c for c in clients or CLIENTS.values() if c.client not in _INSTALLS]
    if not todo:
        return
    pool = ThreadPoolExecutor(max_workers=len(todo), thread_name_prefix="npm-install")
    for client in todo:
        _INSTALLS[client.client] = pool.submit(install, client)
    pool.shutdown(wait=False)  # the threads finish their installs; nothing new is queued


def installed(clients: Iterable[NpmClient] | None = None) -> dict[str, InstallOutcome]:
    """Every client of *clients* (default: all) installed, or not with npm's reason, by id."""
    wanted = list(clients or CLIENTS.values())
    start_installs(wanted)
    return {c.client: _INSTALLS[c.client].result() for c in wanted}


def client_env(home: Path) -> dict[str, str]:
    """A minimal environment: the temporary HOME, no credentials, no colours, offline."""
    env = {
        "HOME": os.fspath(home),
        "USERPROFILE": os.fspath(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "FORCE_COLOR": "0",
        "DISABLE_AUTOUPDATER": "1",
        "NO_UPDATE_NOTIFIER": "1",
    }
    return env


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_client(
    client: NpmClient,
    home: Path,
    cwd: Path,
    *args: str,
    timeout: float = 180,
    path: Sequence[Path] = (),
) -> subprocess.CompletedProcess[str]:
    """Run *client* with *args*; *path*: directories put first on its ``PATH`` (where it
    finds console scripts written by name)."""
    env = client_env(home)
    if path:
        env["PATH"] = os.pathsep.join([*(os.fspath(p) for p in path), env["PATH"]])
    done = subprocess.run(
        [os.fspath(client.binary), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    done.stdout = _ANSI.sub("", done.stdout)
    done.stderr = _ANSI.sub("", done.stderr)
    return done


LISTING_DEADLINE = 300  # seconds: generous, a listing takes 1-10 s when the machine is loaded


def list_servers(
    client: NpmClient,
    home: Path,
    cwd: Path,
    *,
    until: Callable[[str], object] | None = None,
    deadline: float = LISTING_DEADLINE,
    path: Sequence[Path] = (),
) -> subprocess.CompletedProcess[str]:
    """The client's MCP server listing (output without colours; *path* as for
    :func:`run_client`), polled as :func:`listing` does."""
    return listing(
        client, home, cwd, client.list_command, until=until, deadline=deadline, path=path
    )


def listing(
    client: NpmClient,
    home: Path,
    cwd: Path,
    command: Sequence[str],
    *,
    until: Callable[[str], object] | None = None,
    deadline: float = LISTING_DEADLINE,
    path: Sequence[Path] = (),
) -> subprocess.CompletedProcess[str]:
    """What ``client *command*`` prints (output without colours; *path* as for
    :func:`run_client`). With *until*, run it again until ``until(stdout + stderr)`` holds for
    a run that exits 0, or *deadline* seconds have passed: the last run either way, for the
    caller's assertions."""
    start, attempts = time.monotonic(), 0
    while True:
        listed = run_client(client, home, cwd, *command, path=path)
        attempts += 1
        if until is None or (listed.returncode == 0 and until(listed.stdout + listed.stderr)):
            break
        if time.monotonic() - start >= deadline:
            break
    if attempts > 1:  # shown with -rA, and with a failure
        print(f"{client.client}: listed {attempts} times in {time.monotonic() - start:.0f} s")
    return listed
