"""Discovery cost: our scan against the raw limit and the naive importlib.metadata scan.

Creates a temporary site-packages of N realistic distributions (METADATA ≈1.5 kB, WHEEL,
RECORD, INSTALLER, top_level.txt, a third with entry_points.txt, a package directory each),
of which M carry an agenttools manifest and skill files, then times in this process,
interleaved, R rounds each:

- raw:   ``os.scandir`` of the directory + ``os.path.isfile`` of each dist-info's manifest (the
         floor: no parsing, no objects);
- naive: ``importlib.metadata.distributions(path=[dir])`` + ``read_text`` of the manifest, with
         importlib's per-directory listing cache cleared before each round (as in a fresh
         process, which is what every CLI run is);
- ours:  ``find_distributions`` — the scan, duplicate handling and parsing + checking the M
         manifests into ``InstalledDistribution`` objects;
- ours+bundles: ``agent_tools_objects`` — the above plus building every ``AgentTools``.

Then the start-up time of ``python -m agenttools list`` against ``python -c pass`` (and
``--version``, the CLI frame alone) with this interpreter, in subprocesses.

Targets (issue 4): ours ≤ 1.0× naive and ≤ 3× raw; ``list`` ≤ 2× ``python -c pass``.
Run: ``python benchmarks/discovery.py [N] [M]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agenttools_runtime.bundles import agent_tools_objects
from agenttools_runtime.discovery import SearchPath, find_distributions
from agenttools_runtime.mcp.server import Environment
from agenttools_runtime.skills.hashing import hash_text
from agenttools_runtime.wheel.layout import MANIFEST_FILE

ROUNDS = 11
STARTUP_ROUNDS = 15

METADATA = """Metadata-Version: 2.1
Name: {name}
Version: {version}
Summary: A realistic distribution number {index} for the discovery benchmark.
Home-page: https://example.org/{name}
Author: Example Author
Author-email: author@example.org
License: MIT
Project-URL: Documentation, https://example.org/{name}/docs
Project-URL: Source, https://github.com/example/{name}
Classifier: Development Status :: 5 - Production/Stable
Classifier: Intended Audience :: Developers
Classifier: License :: OSI Approved :: MIT License
Classifier: Programming Language :: Python :: 3
Classifier: Programming Language :: Python :: 3.11
Requires-Python: >=3.8
Requires-Dist: requests>=2.0
Requires-Dist: typing-extensions; python_version < "3.10"
Provides-Extra: test
Requires-Dist: pytest; extra == "test"
Description-Content-Type: text/markdown

# {name}

{body}
"""

SKILL_MD = "---\nname: {skill}\ndescription: {description}\n---\n\n# {skill}\n\n{body}\n"


def make_site(root: Path, count: int, carriers: int) -> None:
    """Write *count* dist-info directories (every ``count // carriers``-th with a manifest)."""
    step = max(1, count // carriers) if carriers else count + 1
    made = 0
    for index in range(count):
        name = f"package-{index:04d}"
        module = name.replace("-", "_")
        version = f"{index % 7}.{index % 13}.{index % 5}"
        dist_info = root / f"{module}-{version}.dist-info"
        dist_info.mkdir(parents=True)
        (root / module).mkdir()
        (root / module / "__init__.py").write_text("")
        body = "Lorem ipsum dolor sit amet. " * 30
        (dist_info / "METADATA").write_text(
            METADATA.format(name=name, version=version, index=index, body=body)
        )
        (dist_info / "WHEEL").write_text(
            "Wheel-Version: 1.0\nGenerator: hatchling 1.27.0\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        )
        (dist_info / "INSTALLER").write_text("pip\n")
        (dist_info / "top_level.txt").write_text(module + "\n")
        record = [f"{module}/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0"]
        record += [f"{dist_info.name}/{f},," for f in ("METADATA", "WHEEL", "INSTALLER")]
        if index % 3 == 0:
            (dist_info / "entry_points.txt").write_text(
                f"[console_scripts]\n{name} = {module}:main\n"
            )
        if carriers and index % step == 0 and made < carriers:
            made += 1
            _add_manifest(dist_info, name, version)
        (dist_info / "RECORD").write_text("\n".join(record) + "\n")


def _add_manifest(dist_info: Path, name: str, version: str) -> None:
    skills = {}
    for skill in (f"{name}-usage", f"{name}-reference"):
        description = f"How to use {name}: commands, options and examples. Use when asked."
        text = SKILL_MD.format(skill=skill, description=description, body="Steps. " * 40)
        skill_dir = dist_info / "extra_metadata" / "agenttools" / "skills" / skill
        skill_dir.mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text(text)
        skills[skill] = {
            "description": description,
            "kind": "directory",
            "path": f"skills/{skill}",
            "files": {"SKILL.md": hash_text(text)},
            "executable": [],
        }
    manifest = {
        "schema": 1,
        "distribution": name,
        "version": version,
        "root": "skills",
        "bundles": [
            {"name": name, "implicit": True, "mcp-servers": ["server"], "skills": sorted(skills)}
        ],
        "mcp-servers": {
            "server": {
                "description": f"{name} tools",
                "module": f"{name.replace('-', '_')}.server",
                "env": {"LOG_LEVEL": "info"},
            }
        },
        "skills": skills,
    }
    path = dist_info / MANIFEST_FILE
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


# -- the methods -----------------------------------------------------------------------------
def raw_probe(root: Path) -> int:
    found = 0
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name.endswith(".dist-info") and os.path.isfile(
                os.path.join(entry.path, MANIFEST_FILE)
            ):
                found += 1
    return found


def naive_scan(root: Path) -> int:
    import importlib.metadata as metadata

    found = 0
    for dist in metadata.distributions(path=[str(root)]):
        if dist.read_text(MANIFEST_FILE) is not None:
            found += 1
    return found


def _clear_importlib_cache() -> None:
    import importlib.metadata as metadata

    clear = getattr(metadata.FastPath.__new__, "cache_clear", None)
    if clear is not None:
        clear()


def time_rounds(methods: dict[str, Callable[[], int]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(rounds):
        for name, method in methods.items():
            if name == "naive":
                _clear_importlib_cache()
            start = time.perf_counter()
            method()
            times[name].append(time.perf_counter() - start)
    return times


def startup(commands: dict[str, list[str]], rounds: int) -> dict[str, list[float]]:
    # An installed wheel has its bytecode compiled by pip: measure with .pyc files written
    # (one warm-up run each), whatever PYTHONDONTWRITEBYTECODE says in this shell.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(rounds):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True
            )
            times[name].append(time.perf_counter() - start)
    return times


def report(title: str, times: dict[str, list[float]], baseline: str) -> None:
    print(title)
    base = statistics.median(times[baseline])
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:14s} min {min(values) * 1000:7.2f} ms  median {median * 1000:7.2f} ms"
            f"  {median / base:5.2f}x {baseline}"
        )


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    carriers = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    environment = Environment.current()
    with tempfile.TemporaryDirectory(prefix="agenttools-bench-") as tmp:
        root = Path(tmp) / "site-packages"
        root.mkdir()
        make_site(root, count, carriers)
        search = SearchPath((root,), environment)
        assert raw_probe(root) == carriers
        assert naive_scan(root) == carriers
        assert len(find_distributions(search)) == carriers
        assert len(agent_tools_objects(search=search)) == carriers
        methods: dict[str, Callable[[], int]] = {
            "raw": lambda: raw_probe(root),
            "naive": lambda: naive_scan(root),
            "ours": lambda: len(find_distributions(search)),
            "ours+bundles": lambda: len(agent_tools_objects(search=search)),
        }
        times = time_rounds(methods, ROUNDS)
    print(f"Python {sys.version.split()[0]}, {count} distributions, {carriers} with bundles")
    report(f"discovery ({ROUNDS} rounds, interleaved)", times, "naive")
    raw = statistics.median(times["raw"])
    ours = statistics.median(times["ours"])
    naive = statistics.median(times["naive"])
    print(
        f"  ours / naive = {ours / naive:.2f} (target <= 1.0), "
        f"ours / raw = {ours / raw:.2f} (target <= 3)"
    )

    import importlib.metadata as metadata

    installed = sum(1 for _ in metadata.distributions())
    python = sys.executable
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "--version": [python, "-m", "agenttools", "--version"],
        "list": [python, "-m", "agenttools", "list"],
    }
    start_times = startup(commands, STARTUP_ROUNDS)
    print()
    report(
        f"start-up ({STARTUP_ROUNDS} rounds; this environment: {installed} distributions)",
        start_times,
        "python -c pass",
    )
    ratio = statistics.median(start_times["list"]) / statistics.median(
        start_times["python -c pass"]
    )
    print(f"  list / python -c pass = {ratio:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
