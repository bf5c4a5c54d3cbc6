"""Skill install cost against a plain copy of the same directory.

In a temporary directory, with one skill directory of N files (small text files in a few
subdirectories), times interleaved, R rounds each:

- copytree:  ``shutil.copytree`` of the source, then ``shutil.rmtree`` (the baseline);
- install:   ``install_skills(root, source)`` then ``uninstall_skills`` (listing, hashing,
             frontmatter parsing, preflight, the backup-safe create, exec bits; and back);
- identical: ``install_skills`` over an identical installed copy (hash both sides, write
             nothing);
- replace:   ``install_skills(..., overwrite="all")`` over a different installed copy
             (move to a backup, create, delete the backup).

Prints the medians and the ratios against copytree.
Run: ``python benchmarks/skills.py [N] [R]``.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agenttools_runtime.skills.install import install_skills, uninstall_skills


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        source = make_source(base / "src" / "bench-skill", files)
        root = base / "root"
        copy = base / "copy"
        other = make_source(base / "other" / "bench-skill", files, marker="other")

        def copytree() -> None:
            shutil.copytree(source, copy)
            shutil.rmtree(copy)

        def install() -> None:
            install_skills(root, source)
            uninstall_skills(root, "bench-skill")

        def identical() -> None:
            install_skills(root, source)

        def replace() -> None:
            install_skills(root, other, "all")
            install_skills(root, source, "all")

        times: dict[str, list[float]] = {"copytree": [], "install": []}
        run_rounds(times, {"copytree": copytree, "install": install}, rounds)
        install_skills(root, source)
        run_rounds(times, {"identical": identical, "replace": replace}, rounds)
        times["replace"] = [t / 2 for t in times["replace"]]  # two replaces per round

    baseline = statistics.median(times["copytree"])
    print(f"skill of {files} files, {rounds} rounds (median ms, ratio to copytree + rmtree)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<10} {median * 1000:8.2f} ms   x{median / baseline:5.2f}")


def run_rounds(
    times: dict[str, list[float]], cases: dict[str, Callable[[], None]], rounds: int
) -> None:
    for _ in range(rounds):
        for name, case in cases.items():  # interleaved, so drift hits every case alike
            start = time.perf_counter()
            case()
            times.setdefault(name, []).append(time.perf_counter() - start)


def make_source(directory: Path, files: int, marker: str = "") -> Path:
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(
        f"---\nname: {directory.name}\ndescription: Benchmark skill.\n---\n\nBody {marker}\n"
    )
    for index in range(files - 1):
        sub = directory / f"part-{index % 5}"
        sub.mkdir(exist_ok=True)
        (sub / f"file-{index}.md").write_text(f"line {index} {marker}\n" * 20)
    return directory


if __name__ == "__main__":
    main()
