"""The installers a managed environment is made with: ``uv`` (``uv pip compile`` resolves,
``uv venv`` creates, ``uv pip install`` installs) when it is available, else ``python -m venv``
and pip (``pip lock`` resolves, ``pip install`` installs, both run by the pip of the
interpreter agenttools runs in, with ``--python``). Both write the resolution as a PEP 751
``pylock.toml``; the environment is then installed from exactly that list, each file checked
against its hash. A failure is one :class:`InstallerFailed` whose reason is the installer's
essential line, credentials removed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime.envs.index import IndexOptions, redact_text
from agenttools_runtime.envs.installer_names import INSTALLERS
from agenttools_runtime.errors import InstallerFailed, InstallerUnavailable

PIP_LOCK_VERSION = (25, 1)  # the first pip with `pip lock` (PEP 751)
_PIP_QUIET = ("--disable-pip-version-check", "--no-input")


@dataclass(frozen=True, slots=True)
class Installer:
    """An installer that can be run: ``name`` (``uv`` or ``pip``), the ``command`` that runs
    it, its ``version``."""

    name: str
    command: tuple[str, ...]
    version: str

    def describe(self) -> str:
        return f"{self.name} {self.version}"

    def failed(self, action: str, what: str, reason: str) -> InstallerFailed:
        """The error of this installer failing to *action* *what* (a request, a path)."""
        return InstallerFailed(installer=self.name, action=action, requirement=what, reason=reason)


def find_installer(choice: str | None = None) -> Installer:
    """*choice* (``uv`` or ``pip``), or uv when it can be found, else pip. Raises
    ``InstallerUnavailable``: the one asked for (or any) cannot be run."""
    if choice is not None and choice not in INSTALLERS:
        raise InstallerUnavailable(installer=choice, reason=f"use one of {', '.join(INSTALLERS)}")
    if choice in (None, "uv"):
        found = _uv()
        if found is not None:
            return found
        if choice == "uv":
            raise InstallerUnavailable(
                installer="uv", reason="no uv executable beside this interpreter or on PATH"
            )
    return _pip()


def _uv() -> Installer | None:
    scripts = sysconfig.get_path("scripts")
    candidates = [os.path.join(scripts, "uv" + (".exe" if os.name == "nt" else ""))]
    on_path = shutil.which("uv")
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if not os.path.isfile(candidate):
            continue
        try:
            done = subprocess.run(
                [candidate, "--version"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            continue
        words = done.stdout.split()
        if done.returncode == 0 and len(words) >= 2 and words[0] == "uv":
            return Installer("uv", (candidate,), words[1])
    return None


def _pip() -> Installer:
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("pip")
    except PackageNotFoundError:
        raise InstallerUnavailable(
            installer="pip", reason=f"neither uv nor pip is installed for {sys.executable}"
        ) from None
    from packaging.version import Version

    if Version(found).release[:2] < PIP_LOCK_VERSION:
        raise InstallerUnavailable(
            installer="pip",
            reason=f"pip {found} cannot write a lock file (pip lock needs pip 25.1 or later): "
            f"upgrade it ({sys.executable} -m pip install -U pip) or install uv",
        )
    return Installer("pip", (sys.executable, "-m", "pip"), found)


# -- the steps -------------------------------------------------------------------------------


def lock(
    installer: Installer,
    requirements: Sequence[str],
    options: IndexOptions,
    output: Path,
    *,
    what: str,
) -> None:
    """Resolve *requirements* for this interpreter and write the PEP 751 lock file *output*.
    *what* names the request in messages."""
    python = sys.executable
    spec = output.with_name(output.name + ".in")
    spec.write_text("".join(f"{line}\n" for line in requirements), encoding="utf-8")
    source, out = os.fspath(spec), os.fspath(output)
    try:
        if installer.name == "uv":
            args = ["pip", "compile", source, "--format", "pylock.toml", "-o", out]
            args += ["--python", python, "--quiet", "--no-header"]
        else:
            args = ["--python", python, *_PIP_QUIET, "lock", "-r", source, "-o", out, "--quiet"]
        _run(installer, args, options, "resolve", what)
    finally:
        spec.unlink(missing_ok=True)


def create_venv(installer: Installer, path: Path) -> None:
    """A new virtual environment at *path* (which must not exist) for this interpreter."""
    python = sys.executable
    if installer.name == "uv":
        command = [*installer.command, "venv", os.fspath(path), "--python", python, "--quiet"]
    else:
        command = [python, "-m", "venv", "--without-pip", os.fspath(path)]
    _run_command(installer, command, "create", str(path))


def install_locked(
    installer: Installer, python: Path, lock_file: Path, options: IndexOptions, *, what: str
) -> None:
    """Install exactly the packages of the PEP 751 *lock_file* into the environment of
    *python* (the files it names, checked against its hashes)."""
    args = _install(installer, python, lock_file)
    if installer.name == "uv":
        args += ["--preview-features", "pylock"]
    _run(installer, [*args, "--quiet"], options, "install", what)


def install_pinned(
    installer: Installer,
    python: Path,
    lines: Sequence[str],
    options: IndexOptions,
    *,
    require_hashes: bool,
    what: str,
) -> None:
    """Install exactly *lines* (pinned requirements, see ``pylock.hashed_requirements``) into
    the environment of *python*, no dependencies beyond them."""
    spec = python.parent.parent / ".agenttools-install.txt"
    spec.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    try:
        args = [*_install(installer, python, spec), "--no-deps", "--quiet"]
        if require_hashes:
            args.append("--require-hashes")
        _run(installer, args, options, "install", what)
    finally:
        spec.unlink(missing_ok=True)


def build_wheel(installer: Installer, project: Path, out_dir: Path, options: IndexOptions) -> Path:
    """Build *project*'s wheel into *out_dir* (an empty directory); its path."""
    out, source = os.fspath(out_dir), os.fspath(project)
    if installer.name == "uv":
        args = ["build", "--wheel", "--out-dir", out, source, "--quiet"]
    else:
        args = [*_PIP_QUIET, "wheel", "--no-deps", "-w", out, source, "--quiet"]
    _run(installer, args, options, "build", str(project))
    wheels = sorted(out_dir.glob("*.whl"))
    if len(wheels) != 1:
        reason = f"expected one wheel in {out_dir}, found {len(wheels)}"
        raise installer.failed("build", str(project), reason)
    return wheels[0]


def _install(installer: Installer, python: Path, requirements: Path) -> list[str]:
    """The start of *installer*'s command line installing *requirements* into *python*'s
    environment."""
    if installer.name == "uv":
        return ["pip", "install", "--python", os.fspath(python), "-r", os.fspath(requirements)]
    return ["--python", os.fspath(python), *_PIP_QUIET, "install", "-r", os.fspath(requirements)]


def _run(
    installer: Installer, args: Sequence[str], options: IndexOptions, action: str, what: str
) -> None:
    """Run *installer* with *args* and the index *options*, their credentials in its
    environment only (another user can read its command line); ``InstallerFailed`` (its
    essential line) when it fails."""
    extra, variables = options.for_installer(installer.name, os.environ)
    command = [*installer.command, *args, *extra]
    _run_command(installer, command, action, what, {**os.environ, **variables})


def _run_command(
    installer: Installer,
    command: Sequence[str],
    action: str,
    what: str,
    env: Mapping[str, str] | None = None,
) -> None:
    """Run *command* (in the environment *env*, else this process's)."""
    try:
        done = subprocess.run(
            list(command),
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except OSError as exc:
        raise installer.failed(action, what, exc.strerror or str(exc)) from None
    if done.returncode != 0:
        output = f"{done.stderr}\n{done.stdout}"
        reason = essential_line(output) or f"exit status {done.returncode}"
        raise installer.failed(action, what, reason)


def essential_line(output: str) -> str:
    """The line of an installer's failure output that says what went wrong, in one line,
    with the credentials of any URL in it removed: uv's conclusion (``╰─▶ Because …``) or
    its ``error:`` line with the last ``Caused by:``; pip's first ``ERROR:`` line (or, when
    it could not connect, the connection error it retried on)."""
    lines = [line.rstrip() for line in output.splitlines()]
    text = ""
    for i, line in enumerate(lines):
        if "╰─▶" in line:
            block = [line.split("╰─▶", 1)[1].strip()]
            for rest in lines[i + 1 :]:
                if not rest.strip() or not rest.startswith("      "):
                    break
                block.append(rest.strip())
            text = " ".join(block)
            break
    if not text:
        errors = [ln.strip() for ln in lines if ln.strip().lower().startswith("error:")]
        causes = [
            ln.strip().split(":", 1)[1].strip()
            for ln in lines
            if ln.strip().lower().startswith(("caused by:", "cause:"))
        ]
        connection = [ln.strip() for ln in lines if "Retrying" in ln and "connection" in ln.lower()]
        if connection:
            text = connection[-1]
        elif errors:
            text = errors[0].split(":", 1)[1].strip()
            if causes and causes[-1] not in text:
                text += f" ({causes[-1]})"
    if not text:
        text = next((ln.strip() for ln in reversed(lines) if ln.strip()), "")
    return redact_text(text)
