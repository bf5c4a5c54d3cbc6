"""A client config file kept as a symbolic link (``~/.claude.json`` → ``~/dotfiles/claude.json``,
dotfiles in a repository): every restore, replace and delete of the file acts on the link's
target and keeps the link — the forward edit, the rollback of a deploy that failed after
writing it (a file-size limit, a read-only skills root), the rollback of a killed deploy (the
file as written, or changed by the client since), and the removal that puts the user's own
entry back. Real processes where the failure is the system's."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deploy, deployed
from agenttools_runtime.errors import MCPServerEntryExists
from tests.helpers.venvs import fake_site

from .conftest import bundle, server

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("crashing_child.py")
DOTFILE = (
    '{\n  // kept in git\n  "theme": "dark",\n  "mcpServers": {\n'
    '    "weather": {"command": "my-own", "args": ["--token", "s3cret"]},\n'
    '    "theirs": {"command": "their-server"}\n  }\n}\n'
)
OLD = 946684800  # 2000-01-01: the dotfile's time, until something writes it
BIG = 256 * 1024  # the skill's data file: larger than the file-size limit below


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``weather-tools``: server ``weather-feed`` (not the user's key), skill
    ``weather-report`` with a data file of BIG bytes."""
    from tests.helpers.venvs import fake_distribution, skill_files

    site = fake_site(tmp_path_factory.mktemp("linked") / "venv")
    fake_distribution(
        site,
        "weather-tools",
        servers={"weather-feed": {"module": "weather_tools.server"}},
        skills={
            "weather-report": skill_files(
                "weather-report", "Weather reports.", {"data/stations.bin": b"s" * BIG}
            )
        },
    )
    return site


@pytest.fixture
def linked(home: Path) -> tuple[Path, Path]:
    """``~/.claude.json``, a relative link to ``~/dotfiles/claude.json`` (the user's file)."""
    dotfile = home / "dotfiles" / "claude.json"
    dotfile.parent.mkdir()
    dotfile.write_text(DOTFILE, encoding="utf-8")
    link = home / ".claude.json"
    link.symlink_to(Path("dotfiles") / "claude.json")
    return link, dotfile


def assert_link_kept(link: Path, dotfile: Path, data: bytes) -> None:
    assert link.is_symlink() and os.readlink(link) == str(Path("dotfiles") / "claude.json")
    assert dotfile.read_bytes() == data


def agenttools(
    *argv: str | Path, preexec: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agenttools", *map(str, argv)],
        capture_output=True,
        text=True,
        preexec_fn=preexec,
        cwd=REPO,
        timeout=120,
        check=False,
    )


def file_size_limit(size: int) -> Callable[[], None]:
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """*directory* cannot take a new entry: ``chattr +i`` for root (whom permissions do not
    stop), mode 0555 for anyone else."""
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", directory], check=False).returncode:
            pytest.skip("root, and chattr +i is not available here")
        try:
            yield
        finally:
            subprocess.run([chattr, "-i", directory], check=True)
    else:
        mode = directory.stat().st_mode
        directory.chmod(0o555)
        try:
            yield
        finally:
            directory.chmod(mode)


# -- a deploy that fails after writing the config file ----------------------------------------


def _failed_deploy_keeps_the_link(
    link: Path, dotfile: Path, run: Callable[[], subprocess.CompletedProcess[str]]
) -> str:
    data = dotfile.read_bytes()
    os.utime(dotfile, (OLD, OLD))
    done = run()
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr, done.stderr
    assert_link_kept(link, dotfile, data)
    # the config file was written and then put back (an atomic replace: a new file, of
    # today): the failure came after the edit, and the rollback went through the link
    assert dotfile.stat().st_mtime > OLD
    assert not list(dotfile.parent.glob(".*.tmp")) and deployed() == []
    return done.stderr


def test_a_file_size_limit_on_the_skill_copy(
    home: Path, site: Path, linked: tuple[Path, Path]
) -> None:
    link, dotfile = linked
    argv = ("deploy", "claude-code", "weather-tools", "--path", site)
    limited = file_size_limit(BIG // 2)
    err = _failed_deploy_keeps_the_link(link, dotfile, lambda: agenttools(*argv, preexec=limited))
    assert 'agent skill "weather-report"' in err and "(File too large)" in err
    assert not (home / ".claude" / "skills" / "weather-report").exists()


def test_a_read_only_skills_root(home: Path, site: Path, linked: tuple[Path, Path]) -> None:
    link, dotfile = linked
    root = home / ".claude" / "skills"
    root.mkdir(parents=True)
    with read_only(root):
        err = _failed_deploy_keeps_the_link(
            link,
            dotfile,
            lambda: agenttools("deploy", "claude-code", "weather-tools", "--path", site),
        )
    assert f'agent skill "weather-report" to {root}' in err
    assert list(root.iterdir()) == []


# -- a deploy killed after writing the config file ----------------------------------------------


@pytest.mark.parametrize("client_changed_it", [False, True], ids=["as-written", "changed-since"])
def test_a_killed_deploy_is_rolled_back_through_the_link(
    home: Path, site: Path, linked: tuple[Path, Path], client_changed_it: bool
) -> None:
    link, dotfile = linked
    data = dotfile.read_bytes()
    argv = ["deploy", "claude-code", "weather-tools", "--path", str(site)]
    done = subprocess.run(
        [sys.executable, CHILD, "KILL", "point:deploy:mcp-written", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == -9, done
    assert link.is_symlink() and "weather-feed" in dotfile.read_text()
    expected = data
    if client_changed_it:  # the client rewrote the file meanwhile: only our entry goes
        text = dotfile.read_text().replace('"theme": "dark"', '"theme": "light"')
        dotfile.write_text(text)
        expected = data.replace(b'"theme": "dark"', b'"theme": "light"')
    listed = agenttools("deployed")  # the next command rolls the dead one back first
    assert listed.returncode == 0 and "No deployments." in listed.stdout, listed
    assert_link_kept(link, dotfile, expected)


# -- the user's entry replaced with --force, then put back by the removal -----------------------


def test_remove_puts_the_users_entry_back_through_the_link(linked: tuple[Path, Path]) -> None:
    link, dotfile = linked
    data = dotfile.read_bytes()
    tools = bundle("weather-tools", servers=[server("weather")])
    with pytest.raises(MCPServerEntryExists):
        deploy("claude-code", tools)
    assert_link_kept(link, dotfile, data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forced = deploy("claude-code", tools, overwrite="all")
    assert link.is_symlink()
    assert json.loads(dotfile.read_text().replace("// kept in git", ""))["mcpServers"][
        "weather"
    ] != {"command": "my-own", "args": ["--token", "s3cret"]}
    result = forced.remove()
    assert [e.outcome for e in result.entries] == ["restored"]
    assert_link_kept(link, dotfile, data)


def test_doctor_finds_a_temp_file_beside_the_linked_file(linked: tuple[Path, Path]) -> None:
    """An edit killed between its temp file and the rename leaves the temp file beside the
    file the link points to: doctor looks there too, and deletes it with --fix."""
    from agenttools_runtime.deploy.doctor import diagnose

    link, dotfile = linked
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        deploy("claude-code", bundle("feed", servers=[server("weather-feed")]))
    data = dotfile.read_bytes()
    left = dotfile.parent / ".claude.json.agenttools-k1ll3d.tmp"
    left.write_bytes(data[:10])
    found = [f for f in diagnose().findings if f.kind == "temp-file"]
    assert [f.path for f in found] == [str(left)]
    assert diagnose(fix=True).ok and not left.exists()
    assert_link_kept(link, dotfile, data)
