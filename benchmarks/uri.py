"""skill:// resolution cost against the floor, and ``agenttools skill`` start-up.

Builds a temporary HOME with N skills in each of K client skill folders (half of them the same
skill deployed to several clients, as agenttools does), then times in this process,
interleaved, R rounds each:

- raw:     ``open(root/name/SKILL.md).read()`` for the first root holding the name (the floor:
           no listing, no checks);
- resolve: ``SkillResolver([LocalSkillProvider()]).resolve(name, args)`` in a fresh resolver
           (what one CLI run does: list every root, check the URI, read, substitute);
- list:    ``list_skills()`` over the same resolver (every SKILL.md parsed).

Then the wall time of ``python -m agenttools skill NAME ARGS`` and ``skill --list`` against
``python -m agenttools --version`` (the CLI frame alone), in subprocesses with that HOME.

Run: ``python benchmarks/uri.py [N] [K]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from agenttools_runtime.skilluri.providers.local import LocalSkillProvider, local_skill_roots
from agenttools_runtime.skilluri.resolver import SkillResolver

ROUNDS = 11
STARTUP_ROUNDS = 7
CLIENT_DIRS = (".claude", ".cursor", ".codex", ".gemini", ".config/opencode")


def make_home(home: Path, count: int, clients: int) -> None:
    for c, client in enumerate(CLIENT_DIRS[:clients]):
        root = home.joinpath(*client.split("/"), "skills")
        for i in range(count):
            # skills 0..count/2 are the same everywhere; the others differ per client
            name = f"skill-{i}"
            body = "Shared body $1." if i < count // 2 else f"Client {c} body $1."
            folder = root / name
            (folder / "references").mkdir(parents=True, exist_ok=True)
            (folder / "SKILL.md").write_text(
                f"---\nname: {name}\ndescription: Skill number {i}.\n---\n\n{body}\n"
            )
            (folder / "references" / "guide.md").write_text("# Guide\n" * 20)


def timed(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    warnings.simplefilter("ignore")  # the differing copies are reported on every round
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["HOME"] = str(home)
        os.environ["USERPROFILE"] = str(home)
        make_home(home, count, clients)
        os.chdir(tmp)
        name = f"skill-{count - 1}"
        roots = local_skill_roots()

        def raw() -> object:
            for root in roots:
                path = root / name / "SKILL.md"
                if path.is_file():
                    return path.read_text()
            return None

        def resolve() -> object:
            return SkillResolver([LocalSkillProvider()]).resolve(name, "x")

        def listing() -> object:
            return SkillResolver([LocalSkillProvider()]).list_skills().render()

        results = {"raw": 0.0, "resolve": 0.0, "list": 0.0}
        for _ in range(3):  # interleaved, so load changes hit every variant alike
            results["raw"] += timed(raw, ROUNDS)
            results["resolve"] += timed(resolve, ROUNDS)
            results["list"] += timed(listing, ROUNDS)
        print(f"{count} skills x {clients} client folders ({len(roots)} roots scanned)")
        for key, value in results.items():
            print(f"  {key:8} {value / 3 * 1000:8.2f} ms   {value / results['raw']:6.1f}x raw")

        def cli(*args: str) -> Callable[[], object]:
            command = [sys.executable, "-m", "agenttools", *args]
            return lambda: subprocess.run(command, capture_output=True, check=True)

        base = timed(cli("--version"), STARTUP_ROUNDS)
        print(f"  CLI --version            {base * 1000:8.1f} ms")
        for args in (("skill", name, "x", "--path", tmp), ("skill", "--list", "--path", tmp)):
            value = timed(cli(*args), STARTUP_ROUNDS)
            label = " ".join(args[:3] if args[1] != "--list" else args[:2])
            print(f"  CLI {label:20} {value * 1000:8.1f} ms   {value / base:5.2f}x --version")


if __name__ == "__main__":
    main()
