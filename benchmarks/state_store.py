"""The deploy engine's work figures, each a ratio of two things measured side by side,
interleaved, in one run (every run's figures are printed, then the medians and the median of
the pairwise ratios).

1. ``scale``: ``deploy()`` of a 50-skill bundle (one MCP server) into a state that already
   holds 1,000 deployments, against the same deploy into an empty state (in-process, CPU and
   wall). Target: ≤ 1.2×.
2. ``redeploy``: ``agenttools deploy claude-code big --upgrade`` over an identical deployment
   of 50 skills × 20 files (16 MB), against ``diff -rq`` of the source tree and the deployed
   tree, as whole processes; beside it the floor, the interpreter importing what a deploy
   imports. And what the redeploys wrote: every file under HOME and the state directory
   compared before and after by times, inode and bytes (the lock file left out). Target:
   ≤ 3×, no file written.
3. ``fresh``: ``agenttools deploy claude-code big`` of those files into a new HOME and state
   directory each run (a machine that never deployed or verified this wheel; nothing synced
   in between), against (a) a bare Python loop that reads, SHA-256-hashes and writes the same
   files into a new directory (target ≤ 2×) and (b) the npm ``skills`` CLI's ``skills add
   DIR -g -a claude-code --skill '*' --copy -y`` of the same skill folders into a new HOME
   (target ≤ 0.5×). The peer is installed once into the test cache
   (``$AGENTTOOLS_TEST_CACHE/npm-peers/``, default ``.test-cache`` in the checkout) with
   npm's HOME and cache inside it; without Node.js and npm that ratio is left out.
4. ``fsync``: a fresh 50-skill deploy as it is (journal, config file, record and index
   fsynced; registry entries not, the journal holds them) against every registry entry
   fsynced with its directory too, in-process: fsync calls and time.

Child processes run this interpreter with bytecode cached in a temporary directory (as an
installed package has it) after warm-up runs. Run: ``python benchmarks/state_store.py
[--rounds R] [--only scale,redeploy,fresh,fsync] [--existing N] [--baseline DIR]``; with
``--baseline /path/to/an/earlier/checkout`` the whole-process deploys also run with
``PYTHONPATH`` set to it, interleaved (the before and after of a change, in one run).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agenttools_runtime.bundles import AgentTools  # noqa: E402
from agenttools_runtime.mcp.server import MCPServer  # noqa: E402
from agenttools_runtime.skills.hashing import hash_bytes  # noqa: E402

SKILLS = 50
FILES = 20
FILE_SIZE = 16 * 1024
# the npm skills CLI: 1.4.9 is its last release that runs on Node.js 18-21 (1.5 needs 22.20)
PEER = ("skills", "1.4.9")


# -- measuring -------------------------------------------------------------------------------


def run_process(command: list[str], env: dict[str, str], cwd: str | None = None) -> float:
    """The CPU seconds (user + system) of one whole process, from start to exit."""
    proc = subprocess.Popen(
        command,
        env=env,
        # not in the checkout: `python -m` puts the working directory first on the module
        # path, before a --baseline's PYTHONPATH
        cwd=cwd or env["HOME"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1) or (code == 1 and command[0] != "diff"):  # (diff: 1 = differ)
        assert proc.stderr is not None
        raise SystemExit(f"{command} failed: {proc.stderr.read().decode()}")
    return usage.ru_utime + usage.ru_stime


def report(name: str, a_label: str, b_label: str, a: list[float], b: list[float]) -> float:
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    ratio = statistics.median(ratios)
    print(
        f"  {name:<9} {a_label}: {statistics.median(a) * 1000:7.1f} ms   "
        f"{b_label}: {statistics.median(b) * 1000:7.1f} ms   ratio {ratio:5.2f}x "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f}; {len(ratios)} pairs)"
    )
    pairs = " ".join(f"{x * 1000:.0f}/{y * 1000:.0f}" for x, y in zip(a, b, strict=True))
    print(f"            runs (ms): {pairs}")
    return ratio


def child_env(home: Path, state: Path, pycache: Path) -> dict[str, str]:
    """This process's environment with *home* and *state* for agenttools, bytecode cached."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(home), USERPROFILE=str(home), AGENTTOOLS_HOME=str(state))
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


@contextlib.contextmanager
def environment(root: Path) -> Iterator[None]:
    """A HOME and a state directory under *root*, for this process (in-process figures)."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    saved = {k: os.environ.get(k) for k in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME")}
    os.environ.update(HOME=str(home), USERPROFILE=str(home), AGENTTOOLS_HOME=str(root / "state"))
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def quiet(fn: Callable[[], object]) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def snapshot(*roots: Path) -> dict[str, tuple[object, ...]]:
    """Every file, folder and link under *roots*: times, inode, mode and bytes."""
    found: dict[str, tuple[object, ...]] = {}
    for root in roots:
        for directory, folders, files in os.walk(root):
            for name in ["", *folders, *files]:
                path = os.path.join(directory, name) if name else directory
                info = os.lstat(path)
                data = Path(path).read_bytes() if os.path.isfile(path) else None
                found[path] = (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode, data)
    return found


# -- fixtures --------------------------------------------------------------------------------


def write_distribution(site: Path, name: str = "big") -> Path:
    """A distribution of *SKILLS* skills × *FILES* files of *FILE_SIZE* bytes, laid out as
    the build hook lays it out; returns the directory holding its skill trees."""
    dist_info = site / f"{name}-1.0.dist-info"
    skills_dir = dist_info / "extra_metadata" / "agenttools" / "skills"
    skills: dict[str, object] = {}
    for s in range(SKILLS):
        skill = f"skill-{s:02d}"
        files: dict[str, str] = {}
        for f in range(FILES):
            rel = "SKILL.md" if f == 0 else f"references/part-{f:02d}.md"
            text = f"---\nname: {skill}\ndescription: Skill {s}.\n---\n\n" if f == 0 else ""
            seed = hashlib.sha256(f"{skill}/{rel}".encode()).hexdigest()
            while len(text) < FILE_SIZE:
                text += seed + "\n"
            text = text[:FILE_SIZE]
            path = skills_dir / skill / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, newline="")
            files[rel] = hash_bytes(text.encode())
        skills[skill] = {
            "description": f"Skill {s}.",
            "kind": "directory",
            "path": f"skills/{skill}",
            "files": dict(sorted(files.items())),
        }
    manifest = {
        "schema": 1,
        "distribution": name,
        "version": "1.0",
        "root": "skills",
        "bundles": [
            {"name": name, "implicit": True, "mcp-servers": ["srv"], "skills": sorted(skills)}
        ],
        # (a command that is there: the deploy checks that its entry can start)
        "mcp-servers": {"srv": {"command": sys.executable, "args": ["-c", "pass"]}},
        "skills": skills,
    }
    (dist_info / "extra_metadata" / "agenttools" / "manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True)
    )
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\n")
    (dist_info / "RECORD").write_text("")
    # settled, as an installed wheel is (the verified-files cache records no file changed
    # within two seconds of its read)
    time.sleep(2.1)
    return skills_dir


def small_bundle(name: str, skills: int, servers: int = 1) -> AgentTools:
    specs = tuple(
        {"name": f"{name}-s{i}", "description": f"Skill {i}.", "body": "Do it.\n" * 40}
        for i in range(skills)
    )
    return AgentTools(
        name=name,
        skills=specs,  # type: ignore[arg-type]
        mcp_servers=tuple(
            MCPServer(name=f"{name}-srv{i}", command=sys.executable, args=("-c", str(i)))
            for i in range(servers)
        ),
    )


@contextlib.contextmanager
def no_fsync() -> Iterator[None]:
    """Setting up 1,000 deployments without waiting for the disk (not what is measured)."""
    real = os.fsync
    os.fsync = lambda fd: None  # type: ignore[assignment]
    try:
        yield
    finally:
        os.fsync = real


def peer_command() -> list[str] | None:
    """The npm skills CLI, installed into the test cache once (npm's HOME and cache there
    too, never the user's); None without Node.js and npm, or when it cannot be installed."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        return None
    configured = os.environ.get("AGENTTOOLS_TEST_CACHE")
    cache = (Path(configured) if configured else REPO / ".test-cache") / "npm-peers"
    package, version = PEER
    directory = cache / f"{package}-{version}"
    binary = directory / "node_modules" / ".bin" / package
    if not binary.exists():
        directory.mkdir(parents=True, exist_ok=True)
        (cache / "home").mkdir(exist_ok=True)
        env = {**os.environ, "HOME": str(cache / "home"), "npm_config_cache": str(cache / "npm")}
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", f"{package}@{version}"],
            cwd=directory,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0 or not binary.exists():
            print(f"  (the npm {package} CLI could not be installed: {done.stderr.strip()[-200:]})")
            return None
    return [str(binary)]


# -- the figures -----------------------------------------------------------------------------


def scale(tmp: Path, rounds: int, existing: int) -> None:
    from agenttools_runtime.deploy import deploy

    clients = ["cursor", "codex", "windsurf", "kiro", "cline", "gemini-cli", "qwen-code"]
    crowded, empty = tmp / "crowded", tmp / "empty"
    with environment(crowded), no_fsync():
        start = time.perf_counter()
        for i in range(existing):
            quiet(lambda i=i: deploy(clients[i % len(clients)], small_bundle(f"b{i}", 1)))
        print(f"  (set up {existing} deployments in {time.perf_counter() - start:.1f} s)")
    tools = small_bundle("measured", SKILLS)
    times: dict[str, list[float]] = {"crowded": [], "empty": [], "crowded-cpu": [], "empty-cpu": []}
    for _ in range(rounds):
        for label, root in (("crowded", crowded), ("empty", empty)):
            with environment(root):
                wall, cpu = time.perf_counter(), time.process_time()
                dep = quiet(lambda: deploy("claude-code", tools))
                times[label].append(time.perf_counter() - wall)
                times[f"{label}-cpu"].append(time.process_time() - cpu)
                quiet(dep.remove)  # type: ignore[attr-defined]
    print(f"scale: deploy of {SKILLS} skills with {existing} existing deployments vs none")
    report("wall", f"{existing}", "none", times["crowded"], times["empty"])
    report("cpu", f"{existing}", "none", times["crowded-cpu"], times["empty-cpu"])


# The interpreter importing what a deploy imports, and nothing more: the floor of any deploy.
IMPORTS_CMD = [
    sys.executable,
    "-c",
    "import agenttools_runtime.cli, agenttools_runtime.cli.deploy, "
    "agenttools_runtime.deploy.engine, agenttools_runtime.deploy.apply, "
    "agenttools_runtime.deploy.resolved, agenttools_runtime.discovery, "
    "agenttools_runtime.mcp.formats.json_format",
]


def redeploy(tmp: Path, rounds: int, tree: Path, baseline: str | None) -> None:
    site = tree.parents[3]
    home, state = tmp / "redeploy" / "home", tmp / "redeploy" / "state"
    home.mkdir(parents=True)
    env = child_env(home, state, tmp / "pycache")
    deploy = [sys.executable, "-m", "agenttools", "deploy", "claude-code", "big",
              "--path", str(site)]  # fmt: skip
    upgrade = [*deploy, "--upgrade"]
    diff = ["diff", "-rq", str(tree), str(home / ".claude" / "skills")]
    run_process(deploy, env)
    for _ in range(2):  # (bytecode compiled)
        run_process(upgrade, env), run_process(IMPORTS_CMD, env)
    before = snapshot(home, state)
    times: dict[str, list[float]] = {"engine": [], "diff": [], "floor": [], "before": []}
    for _ in range(rounds):
        times["engine"].append(run_process(upgrade, env))
        times["diff"].append(run_process(diff, env))
        times["floor"].append(run_process(IMPORTS_CMD, env))
        if baseline is not None:  # an earlier checkout's engine
            times["before"].append(run_process(upgrade, {**env, "PYTHONPATH": baseline}))
    after = snapshot(home, state)
    lock = str(state / "deployments" / ".lock")
    changed = sorted(
        p for p in before.keys() | after.keys() if p != lock and before.get(p) != after.get(p)
    )
    print(f"redeploy: identical 'deploy --upgrade' of {SKILLS}x{FILES} files vs diff -rq")
    report("cpu", "engine", "diff -rq", times["engine"], times["diff"])
    report("floor cpu", "imports", "diff -rq", times["floor"], times["diff"])
    if times["before"]:
        report("cpu", "before", "diff -rq", times["before"], times["diff"])
    print(f"  files changed by {rounds} identical redeploys (after a first one): {len(changed)}")
    for path in changed[:10]:
        print(f"    {path}")


# The least a Python process can do for a fresh deploy: read, hash and write every file.
HASH_COPY_CMD = [
    sys.executable,
    "-c",
    "import hashlib, os, sys\n"
    "src, dst = sys.argv[1], sys.argv[2]\n"
    "for d, _, files in os.walk(src):\n"
    "    out = os.path.join(dst, os.path.relpath(d, src))\n"
    "    os.makedirs(out, exist_ok=True)\n"
    "    for f in files:\n"
    "        with open(os.path.join(d, f), 'rb') as a, open(os.path.join(out, f), 'wb') as b:\n"
    "            data = a.read()\n"
    "            hashlib.sha256(data).hexdigest()\n"
    "            b.write(data)\n",
]


def fresh(tmp: Path, rounds: int, tree: Path, baseline: str | None) -> None:
    """Each run into a new HOME and state directory, nothing synced or removed in between
    (the page cache as a busy machine has it), the three commands in turn."""
    site = tree.parents[3]
    runs = tmp / "fresh"
    counter = iter(range(1_000_000))

    def new_home() -> tuple[Path, dict[str, str]]:
        root = runs / str(next(counter))
        (root / "home").mkdir(parents=True)
        env = child_env(root / "home", root / "state", tmp / "pycache")
        env["npm_config_cache"] = str(root / "npm")
        env["DISABLE_TELEMETRY"] = env["DO_NOT_TRACK"] = "1"  # (the peer's: no network)
        return root / "home", env

    deploy = [sys.executable, "-m", "agenttools", "deploy", "claude-code", "big",
              "--path", str(site)]  # fmt: skip
    peer = peer_command()
    peer_add = None
    if peer is not None:
        peer_add = [*peer, "add", str(tree), "-g", "-a", "claude-code", "--skill", "*",
                    "--copy", "-y"]  # fmt: skip
    times: dict[str, list[float]] = {"deploy": [], "floor": [], "peer": [], "before": []}
    for _ in range(2):  # bytecode compiled, caches warm
        run_process(deploy, new_home()[1])
        if peer_add is not None:
            run_process(peer_add, new_home()[1])
    for _ in range(rounds):
        times["deploy"].append(run_process(deploy, new_home()[1]))
        home, env = new_home()
        times["floor"].append(run_process([*HASH_COPY_CMD, str(tree), str(home / "copy")], env))
        if peer_add is not None:
            home, env = new_home()
            times["peer"].append(run_process(peer_add, env))
            assert len(list((home / ".claude" / "skills").iterdir())) == SKILLS
        if baseline is not None:
            times["before"].append(run_process(deploy, {**new_home()[1], "PYTHONPATH": baseline}))
    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
    print(f"fresh: deploy of {SKILLS}x{FILES} files ({size / 1e6:.1f} MB) into a new HOME")
    report("cpu", "deploy", "py read+sha256+write", times["deploy"], times["floor"])
    if times["peer"]:
        report(
            "cpu", "deploy", f"npm {PEER[0]} {PEER[1]} add --copy", times["deploy"], times["peer"]
        )
    if times["before"]:
        report("cpu", "before", "py read+sha256+write", times["before"], times["floor"])
    shutil.rmtree(runs, ignore_errors=True)


def fsync_batching(tmp: Path, rounds: int) -> None:
    from agenttools_runtime.deploy import deploy, registry

    tools = small_bundle("durable", SKILLS)
    real_write = registry.write_entry
    real_fsync = os.fsync
    calls = {"n": 0}

    def counting(fd: int) -> None:
        calls["n"] += 1
        real_fsync(fd)

    def every_entry_durable(entry: object, state: object, **kwargs: object) -> None:
        real_write(entry, state, durable=True)  # type: ignore[arg-type]

    times: dict[str, list[float]] = {"batched": [], "every file": []}
    counts: dict[str, int] = {}
    os.fsync = counting  # type: ignore[assignment]
    try:
        for _ in range(rounds):
            for label in ("batched", "every file"):
                with environment(tmp / f"fsync-{label.replace(' ', '-')}"):
                    if label == "every file":
                        registry.write_entry = every_entry_durable  # type: ignore[assignment]
                    calls["n"] = 0
                    start = time.perf_counter()
                    dep = quiet(lambda: deploy("claude-code", tools))
                    times[label].append(time.perf_counter() - start)
                    counts[label] = calls["n"]
                    registry.write_entry = real_write  # type: ignore[assignment]
                    quiet(dep.remove)  # type: ignore[attr-defined]
    finally:
        os.fsync = real_fsync
        registry.write_entry = real_write  # type: ignore[assignment]
    print(f"fsync: fresh deploy of {SKILLS} skills, fsync calls: {counts}")
    report("wall", "batched", "every file", times["batched"], times["every file"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--existing", type=int, default=1000)
    parser.add_argument("--only", default="scale,redeploy,fresh,fsync")
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also run the whole-process deploys with PYTHONPATH=DIR (an earlier checkout)",
    )
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        tree = write_distribution(tmp / "site") if wanted & {"redeploy", "fresh"} else tmp
        if "scale" in wanted:
            scale(tmp, args.rounds, args.existing)
        if "redeploy" in wanted:
            redeploy(tmp, args.rounds, tree, args.baseline)
        if "fresh" in wanted:
            fresh(tmp, args.rounds, tree, args.baseline)
        if "fsync" in wanted:
            fsync_batching(tmp, args.rounds)


if __name__ == "__main__":
    main()
