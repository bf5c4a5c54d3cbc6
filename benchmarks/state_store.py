"""The state store's figures (issue 10), each a ratio of two things measured side by side,
interleaved, in one run (the medians and the median of the pairwise ratios are printed).

1. ``scale``: ``deploy()`` of a 50-skill bundle (one MCP server) into a state that already
   holds 1,000 deployments, against the same deploy into an empty state (in-process, CPU
   and wall). Target: ≤ 1.2×.
2. ``redeploy``: ``agenttools deploy claude-code big --upgrade`` over an identical deployment
   of 50 skills × 20 files, against ``diff -rq`` of the source tree and the installed tree,
   as whole processes; and the number of file
   system mutations the engine's redeploy makes (target: none of a skill directory or of the
   registry; the first redeploy after a fresh deploy writes the cache of verified wheel
   files). Target: ≤ 3×.
3. ``fresh``: ``agenttools deploy claude-code big`` of those 50 × 20 files (16 MB) into an
   empty HOME, against ``cp -r`` of the tree, as whole processes (each followed by an
   untimed removal): *cold*, the wheel's files never verified before (read and hashed), and
   *warm*, verified by an earlier deploy and unchanged since (their stat checked against the
   cache of verified files, ``agenttools_runtime/verified.py``). Target: ≤ 3×. Beside them,
   the floor: the interpreter importing what a deploy imports, and a plain Python copy loop.
4. ``fsync``: a fresh 50-skill deploy as it is (journal, config file, record and index
   fsynced; registry entries not, the journal holds them) against every registry entry
   fsynced with its directory too (the earlier scheme), in-process: fsync calls and time.

Child processes run this interpreter with bytecode cached in a temporary directory (as an
installed package has it) after warm-up runs. Run: ``python benchmarks/state_store.py
[--rounds R] [--only scale,redeploy,fresh,fsync] [--existing N] [--baseline DIR]``; with
``--baseline /path/to/an/earlier/checkout`` the redeploy and fresh deploys also run with
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

from agenttools_runtime import fs, verified  # noqa: E402
from agenttools_runtime.bundles import AgentTools  # noqa: E402
from agenttools_runtime.mcp.server import MCPServer  # noqa: E402
from agenttools_runtime.skills.hashing import hash_bytes  # noqa: E402

SKILLS = 50
FILES = 20
FILE_SIZE = 16 * 1024


# -- measuring -------------------------------------------------------------------------------


def run_process(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process, from start to exit."""
    start = time.perf_counter()
    # not in the checkout: `python -m` puts the working directory first on the module path,
    # before a --baseline's PYTHONPATH
    proc = subprocess.Popen(
        command,
        env=env,
        cwd=env["HOME"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        assert proc.stderr is not None
        raise SystemExit(f"{command} failed: {proc.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def report(name: str, a_label: str, b_label: str, a: list[float], b: list[float]) -> float:
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    ratio = statistics.median(ratios)
    print(
        f"  {name:<9} {a_label}: {statistics.median(a) * 1000:8.1f} ms   "
        f"{b_label}: {statistics.median(b) * 1000:8.1f} ms   ratio {ratio:5.2f}x "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f})"
    )
    return ratio


@contextlib.contextmanager
def environment(root: Path) -> Iterator[dict[str, str]]:
    """A HOME and a state directory under *root*, for this process and its children."""
    home, state = root / "home", root / "state"
    home.mkdir(parents=True, exist_ok=True)
    saved = {k: os.environ.get(k) for k in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME")}
    os.environ.update(HOME=str(home), USERPROFILE=str(home), AGENTTOOLS_HOME=str(state))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
    try:
        yield env
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
        "mcp-servers": {"srv": {"command": "big-mcp", "args": ["serve"]}},
        "skills": skills,
    }
    (dist_info / "extra_metadata" / "agenttools" / "manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True)
    )
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\n")
    (dist_info / "RECORD").write_text("")
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
            MCPServer(name=f"{name}-srv{i}", command="srv", args=(str(i),)) for i in range(servers)
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


def redeploy(tmp: Path, rounds: int, baseline: str | None = None) -> None:
    from agenttools_runtime.cli import main

    site = tmp / "site"
    tree = write_distribution(site)
    with environment(tmp / "redeploy") as env:
        home = Path(env["HOME"])
        argv = ["deploy", "claude-code", "big", "--upgrade", "--path", str(site)]
        quiet(lambda: main(argv[:3] + argv[4:]))
        # the first redeploy after a fresh deploy writes the cache of verified wheel files (the
        # fresh deploy found no state to keep it in); the ones after it write nothing
        with fs.inject() as first:
            quiet(lambda: main(argv))
        with fs.inject() as counter:
            quiet(lambda: main(argv))
        skill_or_registry = [
            p for _op, p in counter.log if "skills" in p.parts or ".skill-registry" in p.parts
        ]
        cache = [p for _op, p in first.log if verified.DIRECTORY in p.parts]
        a_cmd = [sys.executable, "-m", "agenttools", *argv]
        b_cmd = ["diff", "-rq", str(tree), str(home / ".claude" / "skills")]
        times: dict[str, list[float]] = {k: [] for k in ("a", "b", "ac", "bc", "old")}
        for _ in range(rounds):
            wall, cpu = run_process(a_cmd, env)
            times["a"].append(wall), times["ac"].append(cpu)
            wall, cpu = _run_diff(b_cmd, env)
            times["b"].append(wall), times["bc"].append(cpu)
            if baseline is not None:  # the engine of an earlier checkout
                times["old"].append(run_process(a_cmd, {**env, "PYTHONPATH": baseline})[1])
        parts = _parts(site, rounds, "upgrade")
    print(f"redeploy: identical 'deploy --upgrade' of {SKILLS}x{FILES} files vs diff -rq")
    print(
        f"  mutations of an identical redeploy by the engine: {counter.count} "
        f"(skill directories and registry: {len(skill_or_registry)}); of the first one after "
        f"a fresh deploy: {first.count} (the cache of verified wheel files: {len(cache)})"
    )
    report("wall", "engine", "diff -rq", times["a"], times["b"])
    report("cpu", "engine", "diff -rq", times["ac"], times["bc"])
    if times["old"]:
        report("cpu", "before", "diff -rq", times["old"], times["bc"])
    print(parts)


def _parts(site: Path, rounds: int, overwrite: str) -> str:
    """In-process CPU of a deploy's two halves: resolving the bundle (discovery, reading and
    verifying every source file against its recorded hash) and the deploy itself (lock,
    index, plan, journal, writes, record)."""
    from agenttools_runtime.deploy import engine
    from agenttools_runtime.deploy.plan import Level
    from agenttools_runtime.deploy.resolved import resolve
    from agenttools_runtime.deploy.targets import resolve_target
    from agenttools_runtime.discovery import SearchPath

    source: list[float] = []
    own: list[float] = []
    target, level = resolve_target("claude-code"), Level.parse(overwrite)
    for _ in range(rounds):
        start = time.process_time()
        resolved = resolve("big", search=SearchPath.for_paths([site]))
        middle = time.process_time()
        quiet(lambda r=resolved: engine.execute(r, target, level))  # type: ignore[misc]
        source.append(middle - start)
        own.append(time.process_time() - middle)
    return (
        f"  in-process CPU: resolving and verifying the source "
        f"{statistics.median(source) * 1000:.1f} ms, the deploy's own work "
        f"{statistics.median(own) * 1000:.1f} ms"
    )


def _run_diff(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, _status, usage = os.wait4(proc.pid, 0)  # diff exits 1 when trees differ: fine
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


# The floor of a fresh deploy as a Python process: the interpreter importing what a deploy
# imports (and nothing more; the collector set as the CLI sets it, cli._as_process), and a
# plain copy loop of the tree (no checks, no records).
IMPORTS_CMD = [
    sys.executable,
    "-c",
    "import gc; gc.set_threshold(100_000, 50, 50)\n"
    "import agenttools_runtime.cli.deploy, agenttools_runtime.deploy.engine, "
    "agenttools_runtime.deploy.apply, agenttools_runtime.deploy.resolved, "
    "agenttools_runtime.discovery, agenttools_runtime.mcp.formats.json_format\n"
    "gc.freeze()",
]


def copy_loop(*, hashing: bool) -> str:
    """A plain Python copy of the tree ``argv[1]`` to ``argv[2]``: each file read whole and
    written, hashed by SHA-256 between the two with *hashing*."""
    body = "data = a.read()\n"
    if hashing:
        body += "            hashlib.sha256(data).hexdigest()\n"
    return (
        f"import {'hashlib, ' if hashing else ''}os, sys\n"
        "src, dst = sys.argv[1], sys.argv[2]\n"
        "for d, _, files in os.walk(src):\n"
        "    out = os.path.join(dst, os.path.relpath(d, src))\n"
        "    os.makedirs(out, exist_ok=True)\n"
        "    for f in files:\n"
        "        with open(os.path.join(d, f), 'rb') as a, open(os.path.join(out, f), 'wb') as b:\n"
        f"            {body}"
        "            b.write(data)\n"
    )


COPY_CMD = [sys.executable, "-S", "-c", copy_loop(hashing=False)]


def fresh(tmp: Path, rounds: int, baseline: str | None = None) -> None:
    from agenttools_runtime.deploy import deployed, remove_deployment

    site = tmp / "site"
    tree = site / "big-1.0.dist-info" / "extra_metadata" / "agenttools" / "skills"
    if not tree.exists():
        tree = write_distribution(site)
    with environment(tmp / "fresh") as env:
        home = Path(env["HOME"])
        a_cmd = [sys.executable, "-m", "agenttools", "deploy", "claude-code", "big",
                 "--path", str(site)]  # fmt: skip
        copy = tmp / "copy"
        b_cmd = ["cp", "-r", str(tree), str(copy)]

        def reset(keep_cache: bool) -> None:
            for d in deployed():
                quiet(lambda d=d: remove_deployment(d.uuid))
            shutil.rmtree(copy, ignore_errors=True)
            (home / ".claude.json").unlink(missing_ok=True)
            if not keep_cache:  # as on a machine that never verified this wheel
                cache = Path(env["AGENTTOOLS_HOME"]) / "deployments" / verified.DIRECTORY
                shutil.rmtree(cache, ignore_errors=True)

        floors: dict[str, list[float]] = {"imports": [], "copy": [], "imports before": []}
        size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
        print(f"fresh: deploy of {SKILLS}x{FILES} files ({size / 1e6:.1f} MB) vs cp -r")
        # cold: the wheel's files read and hashed; warm: verified before (deployed, removed,
        # deployed again), found unchanged by their stat
        for label, keep_cache in (("cold", False), ("warm", True)):
            for _ in range(2):
                run_process(a_cmd, env)
                reset(keep_cache=True)
            a: list[float] = []
            b: list[float] = []
            ac: list[float] = []
            bc: list[float] = []
            old: list[float] = []
            for _ in range(rounds):
                reset(keep_cache)
                # each from a clean page cache: dirty pages the one before left would be
                # written back in the next one's time (cp -r's CPU tripled after a deploy)
                os.sync()
                wall, cpu = run_process(a_cmd, env)
                a.append(wall), ac.append(cpu)
                os.sync()
                wall, cpu = run_process(b_cmd, env)
                b.append(wall), bc.append(cpu)
                shutil.rmtree(copy, ignore_errors=True)
                if baseline is not None:
                    reset(keep_cache)
                    os.sync()
                    old.append(run_process(a_cmd, {**env, "PYTHONPATH": baseline})[1])
                if label == "warm":  # the floor: the engine's imports, a plain Python copy
                    floors["imports"].append(run_process(IMPORTS_CMD, env)[1])
                    if baseline is not None:
                        before = {**env, "PYTHONPATH": baseline}
                        floors["imports before"].append(run_process(IMPORTS_CMD, before)[1])
                    os.sync()
                    floors["copy"].append(run_process([*COPY_CMD, str(tree), str(copy)], env)[1])
                    shutil.rmtree(copy, ignore_errors=True)
            reset(keep_cache=True)
            report(f"{label} wall", "deploy", "cp -r", a, b)
            report(f"{label} cpu", "deploy", "cp -r", ac, bc)
            if old:
                report(f"{label} cpu", "before", "cp -r", old, bc)
                report(f"{label} cpu", "deploy", "before", ac, old)
        report("floor cpu", "imports", "cp -r", floors["imports"], bc)
        if floors["imports before"]:
            report("floor cpu", "imports", "before", floors["imports"], floors["imports before"])
        report("floor cpu", "py copy", "cp -r", floors["copy"], bc)


# The least a Python process can do for a cold deploy: read, hash and write every file.
HASH_COPY_CMD = [sys.executable, "-c", copy_loop(hashing=True)]


def fresh_new(tmp: Path, rounds: int, baseline: str | None = None) -> None:
    """``fresh`` as a user meets it: each deploy into a new HOME and state directory (a
    machine that never deployed or verified this wheel), each ``cp -r`` into a new directory,
    nothing synced or removed in between (the page cache as a busy machine has it), in turn."""
    site = tmp / "site"
    tree = site / "big-1.0.dist-info" / "extra_metadata" / "agenttools" / "skills"
    if not tree.exists():
        tree = write_distribution(site)
    runs = tmp / "fresh-new"
    runs.mkdir(exist_ok=True)
    counter = iter(range(1_000_000))

    def new_env(extra: dict[str, str] | None = None) -> dict[str, str]:
        root = runs / str(next(counter))
        (root / "home").mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(HOME=str(root / "home"), USERPROFILE=str(root / "home"))
        env.update(AGENTTOOLS_HOME=str(root / "state"), **(extra or {}))
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        return env

    deploy = [sys.executable, "-m", "agenttools", "deploy", "claude-code", "big",
              "--path", str(site)]  # fmt: skip
    times: dict[str, list[float]] = {"deploy": [], "cp": [], "before": [], "floor": []}
    for _ in range(2):  # bytecode compiled, caches warm
        run_process(deploy, new_env())
    for _ in range(rounds):
        times["deploy"].append(run_process(deploy, new_env())[1])
        env = new_env()
        times["cp"].append(run_process(["cp", "-r", str(tree), env["HOME"] + "/copy"], env)[1])
        if baseline is not None:
            times["before"].append(run_process(deploy, new_env({"PYTHONPATH": baseline}))[1])
        env = new_env()
        times["floor"].append(run_process([*HASH_COPY_CMD, str(tree), env["HOME"] + "/c"], env)[1])
    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
    print(f"fresh-new: deploy of {SKILLS}x{FILES} files ({size / 1e6:.1f} MB) into a new HOME "
          "vs cp -r into a new directory, nothing synced")  # fmt: skip
    report("cpu", "deploy", "cp -r", times["deploy"], times["cp"])
    if times["before"]:
        report("cpu", "before", "cp -r", times["before"], times["cp"])
        report("cpu", "deploy", "before", times["deploy"], times["before"])
    report("floor cpu", "py hash+copy", "cp -r", times["floor"], times["cp"])
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

    def every_entry_durable(entry: object, state: object, *, durable: bool = False) -> None:
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
    parser.add_argument("--only", default="scale,redeploy,fresh,fresh-new,fsync")
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also run the deploys with PYTHONPATH=DIR (an earlier checkout), interleaved",
    )
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if "scale" in wanted:
            scale(tmp, args.rounds, args.existing)
        if "redeploy" in wanted:
            redeploy(tmp, args.rounds, args.baseline)
        if "fresh" in wanted:
            fresh(tmp, args.rounds, args.baseline)
        if "fresh-new" in wanted:
            fresh_new(tmp, args.rounds, args.baseline)
        if "fsync" in wanted:
            fsync_batching(tmp, args.rounds)


if __name__ == "__main__":
    main()
