"""The CLI's error boundary, with real processes: a file operation the system refuses is one
line naming the operation and the path, exit 1, after rollback (nothing on disk changed); a
closed output pipe ends quietly.

The refusals are real: an immutable file (``chattr +i`` as root, a read-only directory
otherwise), a file-size limit (``RLIMIT_FSIZE``, as ``ulimit -f``), a read-only and a full file
system (a small tmpfs mounted in a private mount namespace: ``unshare -m``; skipped where that
is not allowed), a name too long, a file where a directory belongs, a FIFO or a device where a
config file belongs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.hostile.corpus import snapshot, weather_site

ONE_LINE = re.compile(r"^agenttools: [^\n]+\n$")
REASONS = {"EPERM": "Operation not permitted", "EACCES": "Permission denied"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return weather_site(tmp_path_factory.mktemp("boundary"))


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"  # (no folder: a command that fails leaves none)


def agenttools(
    *argv: str | Path,
    preexec: Callable[[], None] | None = None,
    wrap: list[str] | None = None,
    stdout: int | None = subprocess.PIPE,
) -> subprocess.CompletedProcess[str]:
    """``python -m agenttools ARGV`` in a fresh process (HOME and AGENTTOOLS_HOME are the
    test's); *wrap* runs it inside another command (``unshare …``)."""
    command = [sys.executable, "-m", "agenttools", *map(str, argv)]
    return subprocess.run(
        [*(wrap or []), *command],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
        cwd=Path(os.environ["HOME"]).parent,
        timeout=120,
        check=False,
    )


def assert_one_line_refusal(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    shown = f"exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
    assert done.returncode == 1, shown
    assert "Traceback" not in done.stderr, shown
    assert ONE_LINE.match(done.stderr), shown
    for needle in needles:
        assert needle in done.stderr, shown


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[str]:
    """Make *path* impossible to replace: ``chattr +i`` for root (whom permissions do not
    stop), a read-only parent directory for anyone else. Yields the errno name to expect."""
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", path], check=False).returncode:
            pytest.skip("root, and chattr +i is not available here")
        try:
            yield "EPERM"
        finally:
            subprocess.run([chattr, "-i", path], check=True)
    else:
        mode = path.parent.stat().st_mode
        path.parent.chmod(0o555)
        try:
            yield "EACCES"
        finally:
            path.parent.chmod(mode)


def file_size_limit(size: int) -> Callable[[], None]:
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


# -- file operations the system refuses ----------------------------------------------------


def test_deploy_into_an_immutable_config(home: Path, state: Path, site: Path) -> None:
    config = home / ".claude.json"
    config.write_text('{\n  "theme": "dark"\n}\n')
    before = snapshot(home, state)
    with immutable(config) as code:
        done = agenttools("deploy", "claude-code", "weather-tools", "--path", site)
        assert_one_line_refusal(done, f"({code})", str(home))
        assert snapshot(home, state) == before


def test_mcp_install_into_an_immutable_config(home: Path, state: Path, site: Path) -> None:
    config = home / ".claude.json"
    config.write_text("{}\n")
    before = snapshot(home, state)
    with immutable(config) as code:
        done = agenttools("mcp", "install", "claude-code", "weather-tools/weather", "--path", site)
        assert_one_line_refusal(done, f"agenttools: Cannot write {config}: ", f"({code})")
        assert snapshot(home, state) == before


@pytest.mark.parametrize("limit", [3000, 1024], ids=["config-too-large", "record-too-large"])
def test_deploy_under_a_file_size_limit(home: Path, state: Path, site: Path, limit: int) -> None:
    """``ulimit -f``: the write that crosses the limit fails with EFBIG (Python ignores
    SIGXFSZ); the skills already copied are rolled back."""
    config = home / ".claude.json"
    config.write_text(json_padding(limit - 200 if limit > 2000 else 10))
    before = snapshot(home, state)
    done = agenttools(
        "deploy", "claude-code", "weather-tools", "--path", site, preexec=file_size_limit(limit)
    )
    assert_one_line_refusal(done, "File too large (EFBIG)")
    if limit > 2000:  # the config file is what crosses the limit
        assert done.stderr.startswith(f"agenttools: Cannot write {config}: "), done.stderr
    assert snapshot(home, state) == before


def skill_folder(parent: Path) -> Path:
    """A skill folder outside the home directory: ``weather-report/SKILL.md``."""
    folder = parent / "weather-report"
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.md").write_text(
        "---\nname: weather-report\ndescription: Weather reports.\n---\n\nBody.\n"
    )
    return folder


def json_padding(size: int) -> str:
    return '{\n  "padding": "' + "x" * max(0, size - 20) + '"\n}\n'


def test_skills_install_into_a_read_only_directory(home: Path, state: Path, site: Path) -> None:
    root = home / "skills"
    root.mkdir()
    before = snapshot(home, state)
    with read_only_directory(root) as code:
        done = agenttools(
            "skills", "install", "claude-code", skill_folder(home.parent), "--skills-dir", root
        )
        assert_one_line_refusal(done, REASONS[code], str(root))
        assert snapshot(home, state) == before


@contextlib.contextmanager
def read_only_directory(directory: Path) -> Iterator[str]:
    if os.geteuid() == 0:
        with immutable(directory) as code:
            yield code
    else:
        mode = directory.stat().st_mode
        directory.chmod(0o555)
        try:
            yield "EACCES"
        finally:
            directory.chmod(mode)


def test_a_name_too_long(home: Path, state: Path, site: Path) -> None:
    root = home / ("n" * 300)
    before = snapshot(home, state)
    done = agenttools(
        "skills", "install", "claude-code", skill_folder(home.parent), "--skills-dir", root
    )
    assert_one_line_refusal(done, "(ENAMETOOLONG)", str(root))
    assert snapshot(home, state) == before


def test_a_file_where_a_directory_belongs(home: Path, state: Path, site: Path) -> None:
    (home / "not-a-dir").write_text("a file\n")
    before = snapshot(home, state)
    done = agenttools(
        "deploy", "claude-code", "weather-tools", "--path", site,
        "--skills-dir", home / "not-a-dir" / "skills",
    )  # fmt: skip
    assert_one_line_refusal(done, "Not a directory", str(home / "not-a-dir"))
    assert snapshot(home, state) == before


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_config_that_is_no_regular_file(home: Path, state: Path, site: Path, kind: str) -> None:
    """Reading a FIFO would wait forever, a device (``/dev/zero``) never end."""
    config = home / ".claude.json"
    if kind == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to("/dev/zero")
    before = snapshot(home, state)
    for argv in (
        ("mcp", "install", "claude-code", "weather-tools/weather", "--path", site),
        ("mcp", "list", "claude-code"),
        ("deploy", "claude-code", "weather-tools", "--path", site),
    ):
        done = agenttools(*argv)
        assert done.returncode == 1, done
        assert "not a regular file" in done.stderr, done.stderr
        assert snapshot(home, state) == before


# -- a file system that is read-only or full (a private tmpfs) -----------------------------


def _unshare() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare for a private mount namespace")
    probe = subprocess.run([unshare, "-m", "true"], capture_output=True, check=False)
    if probe.returncode:
        pytest.skip("unshare -m is not allowed here")
    return [unshare, "-m", "sh", "-c"]


def in_private_tmpfs(
    mountpoint: Path, size: str, setup: str, argv: list[str], readonly: bool
) -> subprocess.CompletedProcess[str]:
    """Run ``agenttools ARGV`` with a tmpfs of *size* on *mountpoint* (private to the
    process), prepared by the shell commands *setup*, remounted read-only if asked. The
    listing of the tmpfs before and after (``sha256sum``) goes to stdout after the output."""
    command = shlex.join([sys.executable, "-m", "agenttools", *argv])
    listing = f"cd {shlex.quote(str(mountpoint))} && find . -type f | sort | xargs -r sha256sum"
    script = " && ".join(
        [
            f"mount -t tmpfs -o size={size} agenttools-test {shlex.quote(str(mountpoint))}",
            setup or "true",
            *([f"mount -o remount,ro {shlex.quote(str(mountpoint))}"] if readonly else []),
            f"( {listing} ) > {shlex.quote(str(mountpoint.parent / 'before.txt'))}",
            f'{{ {command}; echo "status=$?" >&2; }}',
            f"( {listing} ) > {shlex.quote(str(mountpoint.parent / 'after.txt'))}",
        ]
    )
    mountpoint.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [*_unshare(), script], capture_output=True, text=True, timeout=120, check=False
    )
    if "mount: " in done.stderr and "status=" not in done.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    return done


def test_mcp_install_on_a_read_only_file_system(home: Path, state: Path, site: Path) -> None:
    codex = home / ".codex"
    done = in_private_tmpfs(
        codex,
        "64k",
        f"printf 'model = \"o3\"\\n' > {shlex.quote(str(codex / 'config.toml'))}",
        ["mcp", "install", "codex", "weather-tools/weather", "--path", str(site)],
        readonly=True,
    )
    stderr, status = done.stderr.rsplit("status=", 1)
    assert status.strip() == "1", done.stderr
    assert stderr == (
        f"agenttools: Cannot write {codex / 'config.toml'}: Read-only file system (EROFS).\n"
    )
    assert (home / "before.txt").read_text() == (home / "after.txt").read_text()


def test_deploy_on_a_full_file_system(home: Path, state: Path, site: Path) -> None:
    """The skills root's file system is full: the copy fails with ENOSPC, the config entry
    written before is taken out again, nothing is recorded."""
    claude = home / ".claude"
    config = home / ".claude.json"
    config.write_text("{}\n")
    before = snapshot(config, state)
    done = in_private_tmpfs(
        claude,
        "16k",
        f"head -c 16384 /dev/zero > {shlex.quote(str(claude / 'filler'))} || true",
        ["deploy", "claude-code", "weather-tools", "--path", str(site)],
        readonly=False,
    )
    stderr, status = done.stderr.rsplit("status=", 1)
    assert status.strip() == "1", done.stderr
    assert ONE_LINE.match(stderr), stderr
    assert "No space left on device" in stderr and "rolled back" in stderr, stderr
    assert (home / "before.txt").read_text() == (home / "after.txt").read_text()
    assert snapshot(config, state) == before


# -- a closed pipe -------------------------------------------------------------------------

PIPED_COMMANDS = [
    ["clients", "--json"],
    ["deployed"],
    ["skill", "--list"],
    ["validate", "--json"],
    ["show", "weather-tools"],
    ["list"],
]


@pytest.mark.parametrize("argv", PIPED_COMMANDS, ids=[" ".join(a) for a in PIPED_COMMANDS])
def test_a_closed_pipe_ends_quietly(home: Path, state: Path, site: Path, argv: list[str]) -> None:
    """The reader is gone before the command writes (``cmd | head`` once head has exited):
    no traceback, nothing on stderr, the status of a process that SIGPIPE ended."""
    extra = ["--path", str(site)] if argv[0] in ("skill", "show", "list") else []
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = agenttools(*argv, *extra, stdout=write_end)
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 141


@pytest.mark.parametrize("argv", PIPED_COMMANDS, ids=[" ".join(a) for a in PIPED_COMMANDS])
def test_piped_into_head(home: Path, state: Path, site: Path, argv: list[str]) -> None:
    """A real shell pipeline: ``agenttools … | head -1``. Whether the pipe closes before the
    last write is a race; either way nothing is said on stderr."""
    extra = ["--path", str(site)] if argv[0] in ("skill", "show", "list") else []
    command = shlex.join([sys.executable, "-m", "agenttools", *argv, *extra])
    bash = shutil.which("bash") or pytest.skip("needs bash (PIPESTATUS)")
    done = subprocess.run(
        [bash, "-c", f'{command} | head -1; echo "status=${{PIPESTATUS[0]}}" >&2'],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stderr in ("status=0\n", "status=141\n"), done.stderr
    assert len(done.stdout.splitlines()) == 1
