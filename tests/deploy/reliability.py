"""The random-kill and signal trials: a real ``agenttools`` process deploying, upgrading or
removing a bundle of 100 skills and 2 MCP servers is sent SIGKILL, SIGINT or SIGTERM at a
seeded random moment (a named point of the operation, its K-th file system mutation, or a
random delay measured from outside); then the next plain command runs, then everything is
removed.

A trial passes when:

- the next plain command (the same command again, or ``deployed``) succeeds without
  ``--force``;
- after it, records, registry, index, skill directories and config entries agree, and no
  backup, staging directory, temp file or journal is left (:mod:`tests.deploy.invariants`);
- after SIGINT/SIGTERM, the killed process itself left no journal, exited with 128 + the
  signal, and said the truth: "rolled back" (every file under HOME as before the command,
  the same records), "committed" (the new deployment recorded, the replaced one gone),
  "removed", or "nothing was deployed";
- after removing every deployment, every file under HOME is byte-identical to the start (the
  user's own skill and config entry included) and the state holds no records, no registry
  entries and no journals.

``tests/deploy/test_random_kill.py`` runs a CI-sized set; ``benchmarks/reliability.py --runs
N`` runs N seeded trials and prints trials / inconsistencies / orphans / retries needing
--force / lost user data.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed, records
from tests.deploy.invariants import inconsistencies, orphans, snapshot, untracked_skills
from tests.helpers.state import iter_entries
from tests.helpers.venvs import environment_scripts, fake_distribution, fake_site, skill_files

CHILD = Path(__file__).with_name("crashing_child.py")
SKILLS = 100
OPERATIONS = ("deploy", "upgrade", "remove")
# and, on demand (benchmarks/reliability.py --operations): remove --all of two deployments,
# and mcp install into a config file that is a link (~/.codex/config.toml → ~/dotfiles)
MORE_OPERATIONS = ("remove-all", "mcp-install")
USER_CONFIG = (
    '{\n  // my own servers\n  "mcpServers": {\n    "theirs": {"command": "their-server"}\n  }\n}\n'
)
EXIT = {"INT": 130, "TERM": 143}

NAMED = {
    "deploy": [
        "point:deploy:journal-written",
        "point:deploy:mcp-written",
        "point:deploy:skills-written",
        "point:deploy:entry-written@{entry}",
        "point:deploy:registry-written",
        "point:deploy:record-written",
    ],
    "upgrade": [
        "point:deploy:journal-written",
        "point:deploy:skills-written",
        "point:deploy:entry-written@{entry}",
        "point:deploy:record-written",
        "point:remove:journal-written",
        "after:remove:journal-written@{after}",
        "point:deploy:replaced-removed",
    ],
    "remove": [
        "point:remove:journal-written",
        "after:remove:journal-written@{after}",
    ],
    "remove-all": [
        "point:remove:journal-written",
        "point:remove:journal-written@2",
        "after:remove:journal-written@{after}",
        "point:atomic-write:temp-written",
    ],
    "mcp-install": [
        "point:atomic-write:temp-written",
        "point:mcp-config-reread",
    ],
}


@dataclass(frozen=True)
class Trial:
    """One run: the operation, the signal, and when (a child MOMENT, or ``delay:SECONDS``)."""

    operation: str
    signal: str
    moment: str
    seed: int

    def describe(self) -> str:
        return f"{self.operation} {self.signal} at {self.moment} (seed {self.seed})"


@dataclass
class Result:
    trial: Trial
    status: int = 0
    message: str = ""
    inconsistencies: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    needed_force: bool = False
    lost: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.inconsistencies or self.orphans or self.needed_force or self.lost)

    def describe(self) -> str:
        parts = [self.trial.describe(), f"exit {self.status}"]
        for name in ("inconsistencies", "orphans", "lost"):
            items = getattr(self, name)
            if items:
                parts.append(f"{name}: {items[:5]}")
        if self.needed_force:
            parts.append("the next command needed --force")
        return "; ".join(parts)


class Lab:
    """Two versions of a distribution ``big`` (100 skills of two files, 2 servers; 2.0
    changes 20 skills, drops 10 and adds 10) in two site directories, and a fresh HOME + state per trial."""

    def __init__(self, root: Path, skills: int = SKILLS) -> None:
        self.root = root
        self.skills = skills
        self.sites = {1: fake_site(root / "site-1"), 2: fake_site(root / "site-2")}
        _big(self.sites[1], "1.0", skills, changed=0)
        _big(self.sites[2], "2.0", skills, changed=20)
        self.count = 0
        self.mutations: dict[str, int] = {}
        self.durations: dict[str, float] = {}

    # -- trials --------------------------------------------------------------------------

    def calibrate(self, operations: tuple[str, ...] = OPERATIONS) -> None:
        """Run each operation once, unkilled: its number of mutations and its duration."""
        for operation in operations:
            with self._trial_dirs() as (home, state):
                _user_files(home)
                argv = self._prepare(operation)
                start = time.monotonic()
                proc = self._child("KILL", "never", argv, home, state)
                self.durations[operation] = time.monotonic() - start
                assert proc.returncode == 0, proc.stderr
                self.mutations[operation] = _mutations(proc.stderr)

    def trials(
        self,
        count: int,
        seed: int,
        signals: tuple[str, ...],
        operations: tuple[str, ...] = OPERATIONS,
    ) -> list[Trial]:
        """*count* trials drawn from *seed*: operations and signals in turn, moments random."""
        rng = random.Random(seed)
        made: list[Trial] = []
        for number in range(count):
            operation = operations[number % len(operations)]
            sig = signals[(number // len(operations)) % len(signals)]
            made.append(
                Trial(operation, sig, self._moment(rng, operation), seed * 100_000 + number)
            )
        return made

    def _moment(self, rng: random.Random, operation: str) -> str:
        kind = rng.choice(("named", "named", "write", "delay"))
        if kind == "named":
            template = rng.choice(NAMED[operation])
            return template.format(entry=rng.randint(1, self.skills), after=rng.randint(1, 40))
        if kind == "write":
            return f"write:{rng.randint(1, max(1, self.mutations.get(operation, 200)))}"
        duration = self.durations.get(operation, 1.0)
        return f"delay:{rng.uniform(0.2 * duration, duration):.3f}"

    def run(self, trial: Trial) -> Result:
        result = Result(trial)
        with self._trial_dirs() as (home, state):
            _user_files(home)
            start = snapshot(home)
            argv = self._prepare(trial.operation)
            before_home, before_records = snapshot(home), _record_ids()
            proc = self._child(trial.signal, trial.moment, argv, home, state)
            result.status, result.message = proc.returncode, _message(proc.stderr)
            if trial.signal != "KILL":
                self._check_signal(result, home, state, before_home, before_records)
            self._next_command(result, trial.operation, argv)
            result.inconsistencies += inconsistencies(state)
            result.orphans += orphans(home, state)
            result.inconsistencies += [
                f"untracked {p}"
                for p in untracked_skills([home / ".claude" / "skills"], state, ["mine"])
            ]
            for deployment in deployed():
                if _cli("remove", deployment.uuid)[0] != 0:
                    result.inconsistencies.append(f"remove {deployment.uuid} failed")
            if trial.operation == "mcp-install" and _cli("mcp", "uninstall", "codex", "alpha")[0]:
                result.inconsistencies.append("mcp uninstall failed")
            end = snapshot(home)
            result.lost += [f"changed {p}" for p in sorted(start) if end.get(p) != start[p]]
            result.lost += [f"left {p}" for p in sorted(set(end) - set(start))]
            result.orphans += orphans(home, state)
            if list(iter_entries()) or records.load_records():
                result.lost.append("registry entries or records left after removing everything")
        return result

    # -- steps ---------------------------------------------------------------------------

    def _prepare(self, operation: str) -> list[str]:
        """The deployment an upgrade or removal starts from; returns the command line of the
        operation."""
        deploy_v1 = ["deploy", "claude-code", "big", "--path", str(self.sites[1])]
        if operation == "deploy":
            return deploy_v1
        status, err = _cli(*deploy_v1)
        assert status == 0, err
        if operation == "upgrade":
            return ["deploy", "claude-code", "big", "--upgrade", "--path", str(self.sites[2])]
        if operation == "mcp-install":
            return ["mcp", "install", "codex", "big/alpha", "--path", str(self.sites[1])]
        if operation == "remove-all":
            status, err = _cli("deploy", "codex", "big", "--path", str(self.sites[1]))
            assert status == 0, err
            return ["remove", "--all"]
        (only,) = deployed()
        return ["remove", only.uuid]

    def _child(
        self, sig: str, moment: str, argv: list[str], home: Path, state: Path
    ) -> subprocess.CompletedProcess[str]:
        env = child_environment(self.root / "pycache")
        env.update(HOME=str(home), AGENTTOOLS_HOME=str(state))
        command = [sys.executable, str(CHILD), sig, moment, *argv]
        if not moment.startswith("delay:"):
            return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        delay = float(moment.split(":", 1)[1])
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), sig, "never", *argv],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            proc.communicate(timeout=delay)  # the trial's random moment (not a wait)
        except subprocess.TimeoutExpired:
            proc.send_signal(getattr(signal, f"SIG{sig}"))
        out, err = proc.communicate(timeout=300)
        return subprocess.CompletedProcess(command, proc.returncode, out, err)

    def _check_signal(
        self,
        result: Result,
        home: Path,
        state: Path,
        before_home: dict[str, object],
        before_records: set[str],
    ) -> None:
        journals = state / "deployments" / ".journal"
        if journals.exists() and any(journals.iterdir()):
            result.inconsistencies.append("the interrupted process left a journal")
        if result.trial.moment.startswith("delay:"):
            return  # the signal may have come during start-up, or after the end
        if result.status == 0:
            return  # it came after the last mutation: nothing to say
        if result.status != EXIT[result.trial.signal]:
            result.inconsistencies.append(f"exit status {result.status}: {result.message}")
            return
        message, now = result.message, _record_ids()
        if "rolled back" in message or "nothing was" in message:
            if snapshot(home) != before_home or now != before_records:
                result.inconsistencies.append(f"said '{message}' but changed something")
        elif "was committed" in message:
            if now == before_records or len(now) != 1:
                result.inconsistencies.append(f"said '{message}' but records are {now}")
        # mcp install / uninstall: the one edit was made whole (see deploy/mcp_entry.py)
        elif "was written into" in message or "was finished" in message:
            if snapshot(home) == before_home:
                result.inconsistencies.append(f"said '{message}' but nothing changed")
        # the remove loop (cli/removing.py) names what it removed: "interrupted; removed ID"
        elif "was removed" in message or "interrupted; removed " in message:
            if now:
                result.inconsistencies.append(f"said '{message}' but records are {now}")
        else:
            result.inconsistencies.append(f"an interruption without an outcome: {message!r}")

    def _next_command(self, result: Result, operation: str, argv: list[str]) -> None:
        """``deployed``, then the command again unless it is done (a deploy that was
        committed is there: running it again would rightly say DeploymentExists)."""
        if operation in ("remove", "remove-all") and not _to_remove(operation, argv):
            # the kill came after the removal's record went: the next command of any kind
            # finishes what is left (a temp log of the lock, a journal that rolls forward or
            # back); the removal runs again only if that put the deployment back
            status, err = _cli("deployed")
            if status == 0 and _to_remove(operation, argv):
                status, err = _cli(*argv)
        elif operation in ("remove", "remove-all", "mcp-install"):
            # the same command again, first: it finishes what the killed one started
            status, err = _cli(*argv)
            if status == 0:
                status, err = _cli("deployed")
        else:
            status, err = _cli("deployed")
        # an upgrade again is fine either way (the same, or a no-op)
        again = operation == "upgrade" or (operation == "deploy" and not _record_ids())
        if status == 0 and again:
            status, err = _cli(*argv)
        if status != 0:
            result.needed_force = "--force" in err
            result.inconsistencies.append(f"the next command failed: {err.strip()}")

    @contextlib.contextmanager
    def _trial_dirs(self) -> Iterator[tuple[Path, Path]]:
        self.count += 1
        home = self.root / f"trial-{self.count}" / "home"
        state = self.root / f"trial-{self.count}" / "state"
        home.mkdir(parents=True)
        saved = {k: os.environ.get(k) for k in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME", "PATH")}
        os.environ.update(HOME=str(home), USERPROFILE=str(home), AGENTTOOLS_HOME=str(state))
        # (the servers' command, big-mcp, is a console script of each site's environment)
        scripts = [str(environment_scripts(site)) for site in self.sites.values()]
        os.environ["PATH"] = os.pathsep.join([*scripts, saved["PATH"] or ""])
        try:
            yield home, state
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def child_environment(pycache: Path) -> dict[str, str]:
    """This environment, with bytecode cached in *pycache* (outside the checkout), so that the
    children do not all compile every module again when writing bytecode is turned off."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _user_files(home: Path) -> None:
    """The user's own config entry (with a comment) and skill, there before agenttools; and
    Codex's config file, a link into the user's dotfiles."""
    (home / ".claude.json").write_text(USER_CONFIG)
    dotfile = home / "dotfiles" / "codex.toml"
    dotfile.parent.mkdir()
    dotfile.write_text('# mine\n[mcp_servers.mine]\ncommand = "my-server"\n')
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").symlink_to(Path("..") / "dotfiles" / "codex.toml")
    mine = home / ".claude" / "skills" / "mine"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: mine\ndescription: Mine.\n---\n\nMine.\n")


def _big(site: Path, version: str, count: int, changed: int) -> None:
    skills = {}
    names = [f"skill-{i:03d}" for i in range(count)]
    if changed:  # 2.0: drops the first ten, adds ten new ones
        names = names[10:] + [f"skill-{i:03d}" for i in range(count, count + 10)]
    for index, name in enumerate(names):
        body = f"Version {version}.\n" if index < changed else "Unchanged.\n"
        table = skill_files(name, f"Skill {name}.", {"notes.md": body * 20})
        skills[name] = table
    fake_distribution(
        site,
        "big",
        version,
        servers={
            "alpha": {"command": "big-mcp", "args": ["alpha"]},
            "beta": {"command": "big-mcp", "args": ["beta", version]},
        },
        skills=skills,
    )


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status = main(list(argv))
    return status, err.getvalue()


def _to_remove(operation: str, argv: list[str]) -> bool:
    """Whether what the removal *argv* removes is still recorded."""
    return argv[1] in _record_ids() if operation == "remove" else bool(_record_ids())


def _record_ids() -> set[str]:
    return {r.uuid for r in records.load_records()}


def _mutations(stderr: str) -> int:
    for line in stderr.splitlines():
        if line.startswith("mutations: "):
            return int(line.split()[1])
    return 0


def _message(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("agenttools: ")]
    return lines[-1] if lines else ""


def summarize(results: list[Result]) -> dict[str, int]:
    return {
        "trials": len(results),
        "inconsistencies": sum(1 for r in results if r.inconsistencies),
        "orphans": sum(1 for r in results if r.orphans),
        "retries needing --force": sum(1 for r in results if r.needed_force),
        "lost or left user data": sum(1 for r in results if r.lost),
    }


def report(results: list[Result]) -> str:
    summary = summarize(results)
    return json.dumps(summary)
