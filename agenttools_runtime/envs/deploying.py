"""Deploying from managed environments: ``deploy … DIST --install`` (an environment for the
request, then the deployment from it, as one journaled operation), the managed environments as
one more place discovery looks, and the recovery every environment command starts with.

The deploy itself is the caller's (a function of the environment's
:class:`~agenttools_runtime.discovery.SearchPath`), so that one client, several, a dry run and
an upgrade all go through the same steps here.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TypeVar

from agenttools_runtime import paths, state_directories
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.envs import layout, provision, recovery, refs
from agenttools_runtime.envs.envlock import environments_lock
from agenttools_runtime.envs.index import IndexOptions
from agenttools_runtime.envs.installer import find_installer
from agenttools_runtime.envs.layout import ManagedEnvironment
from agenttools_runtime.envs.receipt import METADATA, VENV
from agenttools_runtime.envs.requirement import InstallRequest
from agenttools_runtime.errors import AgentToolsWarning

T = TypeVar("T")


def managed_search(environment: ManagedEnvironment) -> SearchPath:
    """Where discovery looks for what *environment* holds: its site-packages (its
    interpreter found beside it)."""
    return SearchPath.for_paths([environment.site_packages])


def find_managed(request: InstallRequest) -> ManagedEnvironment | None:
    """The newest complete managed environment that holds a version of *request*'s
    distribution that it allows (index requests only): discovery's one more place."""
    if request.kind != "index" or request.requirement is None:
        return None
    specifier = request.requirement.specifier
    return layout.newest(
        lambda _, r, version: (
            r.distribution == request.name and specifier.contains(version, prereleases=True)
        )
    )


def recover_environments() -> list[AgentToolsWarning]:
    """Finish or undo what interrupted deployments and environment operations left (call
    with the environments lock held): the deployment state first, then the environments."""
    from agenttools_runtime.deploy.lock import finish_interrupted

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AgentToolsWarning)
        finish_interrupted()  # (takes the deployment lock only when a journal is left)
    said: list[AgentToolsWarning] = [
        c.message for c in caught if isinstance(c.message, AgentToolsWarning)
    ]
    said.extend(recovery.recover())
    return said


def install_and_deploy(
    request: InstallRequest,
    deploy: Callable[[SearchPath], T],
    *,
    options: IndexOptions,
    installer: str | None = None,
    metadata_only: bool = False,
) -> tuple[T, list[AgentToolsWarning]]:
    """An environment for *request* (see :mod:`agenttools_runtime.envs.provision`), then
    ``deploy(search)`` from it: its outcome, and the warnings about environments (removed,
    kept, recovered). A new environment is kept only when the deploy succeeded; afterwards
    every environment that no deployment uses goes (those the deploy replaced). Raises what
    provisioning and the deploy raise; nothing of a new environment is left then (nor made
    when the deploy cannot be: ``StateDirectoryUnusable``)."""
    state_directories.check(paths.state_paths())
    with environments_lock():
        said = recover_environments()
        chosen = find_installer(installer)
        done = provision.provision(
            request, options, chosen, layout_name=METADATA if metadata_only else VENV
        )
        try:
            outcome = deploy(managed_search(done.environment))
        except BaseException:
            provision.abandon(done)
            raise
        said.extend(provision.commit(done))
        said.extend(collect_unused())
    return outcome, said


def deploy_from_managed(
    environment: ManagedEnvironment, deploy: Callable[[SearchPath], T]
) -> tuple[T, list[AgentToolsWarning]]:
    """``deploy(search)`` from an existing managed environment, holding the environments
    lock so that it is not removed meanwhile; then what no deployment uses goes."""
    with environments_lock():
        said = recover_environments()
        if not environment.path.is_dir():
            from agenttools_runtime.errors import ManagedEnvironmentNotFound

            raise ManagedEnvironmentNotFound(name=environment.name)
        outcome = deploy(managed_search(environment))
        said.extend(collect_unused())
    return outcome, said


def collect_unused() -> list[AgentToolsWarning]:
    """Remove every managed environment that no deployment uses (environments lock held)."""
    names = [env.name for env in layout.environments()]
    return list(refs.release_unused(names))
