"""The stat cache of verified skill files (``agenttools_runtime/verified.py``): a file verified
and unchanged since is not read again; any change that a write makes — content, size, time,
a new file in its place, even with its modification time set back — is read and hashed anew;
the cache is written only where agenttools keeps state, and a torn one is empty; a file that
changed too shortly before it was read is not recorded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools_runtime import installed_skills, paths, verified
from agenttools_runtime.discovery import InstalledDistribution, SearchPath, get_distribution
from agenttools_runtime.errors import BundledFileMismatch
from agenttools_runtime.installed_skills import verify_skill
from agenttools_runtime.mcp.server import Environment
from agenttools_runtime.skill_sources import distribution_skill_source
from agenttools_runtime.skills import hashing
from tests.helpers.venvs import fake_distribution, skill_files

FILES = {"references/a.md": "# A\n", "references/b.md": "# B\n", "scripts/run.sh": "#!/bin/sh\n"}


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The distributions here are written just before they are read: their files are taken
    as settled at once (the racily-clean rule has its own tests below)."""
    monkeypatch.setattr(verified, "RACY_NS", 0)


@pytest.fixture
def state(home: Path) -> Path:
    """The deployments directory, as agenttools leaves it after any deploy."""
    deployments = paths.state_paths().deployments
    deployments.mkdir(parents=True)
    return deployments


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    fake_distribution(
        site, "weather-tools", skills={"weather-report": skill_files("weather-report", extra=FILES)}
    )
    return site


def dist(site: Path) -> InstalledDistribution:
    search = SearchPath((site,), Environment(Path("/env/bin/python"), Path("/env/bin")))
    return get_distribution("weather-tools", search)


def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the files hashed from now on (discovery verifies a wheel's skill files)."""
    count = [0]
    real = hashing.hash_bytes

    def counting(data: bytes) -> str:
        count[0] += 1
        return real(data)

    monkeypatch.setattr(installed_skills, "hash_bytes", counting)
    return count


def skill_file(site: Path, rel: str) -> Path:
    info = next(site.glob("*.dist-info"))
    return info / "extra_metadata" / "agenttools" / "skills" / "weather-report" / rel


def test_a_verified_file_is_not_read_again(
    site: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = hashed(monkeypatch)
    verify_skill(dist(site), "weather-report")
    assert count == [4]  # SKILL.md and the three others
    verify_skill(dist(site), "weather-report")
    distribution_skill_source(dist(site), "weather-report")
    assert count == [4]
    (cache,) = (state / verified.DIRECTORY).iterdir()
    assert cache.suffix == ".json"


@pytest.mark.parametrize(
    "change",
    ["content", "same size, time set back", "replaced by an identical copy", "cache torn"],
)
def test_a_changed_file_is_read_again(
    change: str, site: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verify_skill(dist(site), "weather-report")
    target = skill_file(site, "references/a.md")
    before = target.stat()
    if change == "content":
        target.write_text("# A, and more\n")
    elif change == "same size, time set back":
        target.write_text("# Z\n")  # as long as "# A\n"
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert target.stat().st_mtime_ns == before.st_mtime_ns
    elif change == "replaced by an identical copy":
        copy = target.with_suffix(".new")
        copy.write_bytes(target.read_bytes())
        os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
        copy.replace(target)
    else:
        (cache,) = (state / verified.DIRECTORY).iterdir()
        cache.write_bytes(cache.read_bytes()[:-7])
    count = hashed(monkeypatch)
    if change in ("content", "same size, time set back"):
        with pytest.raises(BundledFileMismatch):
            verify_skill(dist(site), "weather-report")
        return
    verify_skill(dist(site), "weather-report")
    assert count == ([1] if change == "replaced by an identical copy" else [4])
    verify_skill(dist(site), "weather-report")
    assert count == ([1] if change == "replaced by an identical copy" else [4])


def test_another_manifest_is_verified_anew(
    site: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verify_skill(dist(site), "weather-report")
    count = hashed(monkeypatch)
    info = next(site.glob("*.dist-info"))
    fake_distribution(  # the same files, another hash for one of them (a reinstalled wheel)
        site,
        "weather-tools",
        skills={
            "weather-report": skill_files(
                "weather-report", extra={**FILES, "scripts/run.sh": "#!/bin/bash\n"}
            )
        },
    )
    assert next(site.glob("*.dist-info")) == info
    verify_skill(dist(site), "weather-report")
    assert count[0] >= 1


def test_no_state_no_cache(site: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = hashed(monkeypatch)
    verify_skill(dist(site), "weather-report")
    verify_skill(dist(site), "weather-report")
    assert count == [8]  # read every time
    assert not paths.state_paths().deployments.exists()  # no state made by looking


def test_a_file_changed_just_before_it_was_read_is_not_recorded(
    site: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Changed within ``RACY_NS`` of the read, a file may change again in the same clock
    tick without its stat showing it (git's "racily clean" entries): read every time."""
    monkeypatch.setattr(verified, "RACY_NS", 3_600 * 10**9)  # (every file here is that recent)
    count = hashed(monkeypatch)
    verify_skill(dist(site), "weather-report")
    verify_skill(dist(site), "weather-report")
    assert count == [8]
    assert all(
        verified.VerifiedFiles(info, "weather-report").files == {} for info in site.iterdir()
    )


def test_remember_records_only_what_did_not_change_since_it_was_read(
    site: Path, home: Path
) -> None:
    """The first deploy on a machine records what it verified once it made the state: each
    file as it is now, unless it changed since the read began (then it may not be the file
    that was read)."""
    info = next(site.glob("*.dist-info"))
    directory = skill_file(site, "SKILL.md").parent
    manifest = verify_skill(dist(site), "weather-report")
    assert not paths.state_paths().deployments.exists()  # (no state then: nothing kept)
    paths.state_paths().deployments.mkdir(parents=True)  # (the deploy's lock made it)
    read_since = os.stat(skill_file(site, "scripts/run.sh")).st_ctime_ns + 1
    skill_file(site, "references/a.md").write_text("# A, changed since\n")
    verified.remember(info, "weather-report", directory, manifest, read_since)
    assert sorted(verified.VerifiedFiles(info, "weather-report").files) == sorted(
        rel for rel in manifest if rel != "references/a.md"
    )
