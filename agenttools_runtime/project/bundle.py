"""``agenttools bundle``: a project's agenttools files added to a wheel built by anything
(``maturin build``, ``cibuildwheel``, a CI pipeline), with ``RECORD`` rewritten and every
other member left as it is (:mod:`agenttools_runtime.wheel.archive`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime.errors import ProjectWarning
from agenttools_runtime.project.build import for_artifact, load_plan
from agenttools_runtime.wheel import archive, contents


@dataclass(frozen=True)
class BundleResult:
    """What ``bundle_wheel`` did: *outcome* ``added``, ``replaced`` (``--force``) or
    ``unchanged`` (the wheel already carried exactly these files)."""

    wheel: Path  # the written wheel
    distribution: str
    version: str
    outcome: archive.Outcome
    files: tuple[str, ...]  # .dist-info-relative paths of the agenttools files
    warnings: tuple[ProjectWarning, ...] = ()  # the project's (its check's warnings)

    def to_json(self) -> dict[str, object]:
        return {
            "wheel": str(self.wheel),
            "distribution": self.distribution,
            "version": self.version,
            "outcome": self.outcome,
            "files": list(self.files),
            "warnings": [str(w) for w in self.warnings],
        }


def bundle_wheel(
    wheel: Path, project: Path, out_dir: Path | None = None, *, force: bool = False
) -> BundleResult:
    """Check the project in *project* (as ``agenttools validate`` does, less the checks of
    its own build set-up) and write *wheel* with its files to *out_dir* (default: in place).

    Raises :class:`~agenttools_runtime.project.ProjectInvalid` (every problem, located),
    ``InvalidWheel``, ``WheelProjectMismatch`` (a wheel of another distribution) and
    ``WheelAlreadyBundled`` (different agenttools files, without *force*).
    """
    info = archive.read_info(wheel)
    plan = load_plan(project, info.version, build_setup=False)
    plan = for_artifact(plan, info.name, info.version, artifact=wheel, project=project)
    members = contents.members(plan)
    output = (wheel.parent if out_dir is None else out_dir) / wheel.name
    outcome = archive.add_members(wheel, output, members, replace=force)
    return BundleResult(
        wheel=output,
        distribution=info.name,
        version=info.version,
        outcome=outcome,
        files=tuple(f"{info.dist_info}/{m.path}" for m in members),
        warnings=tuple(ProjectWarning(problem=p.format(project)) for p in plan.warnings),
    )
