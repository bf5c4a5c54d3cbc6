"""Upgrading managed environments as one transaction each (``sync --upgrade``): the newest
version the environment's request allows on its index is resolved; a new environment is built
beside the old one; every deployment using the old one is deployed again from the new one (the
``--upgrade`` rules: modified skills are kept); then the old one goes. A failure deploys the
deployments already switched back from the old environment and removes the new one; a kill is
finished or undone by the next command (the environments journal, the deployment journals).

Credentials are never recorded: the index URLs of the receipt get them back from the options
and environment variables of this command when a URL is the same once redacted.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agenttools_runtime.deploy.records import DeploymentRecord, load_records
from agenttools_runtime.envs import installer as installers
from agenttools_runtime.envs import provision
from agenttools_runtime.envs.deploying import managed_search, recover_environments
from agenttools_runtime.envs.envlock import environments_lock
from agenttools_runtime.envs.index import IndexOptions
from agenttools_runtime.envs.layout import ManagedEnvironment, environments
from agenttools_runtime.envs.receipt import METADATA, Receipt
from agenttools_runtime.envs.refs import references
from agenttools_runtime.envs.requirement import parse_request
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning

if TYPE_CHECKING:
    from agenttools_runtime.deploy.server_checks import Check

UP_TO_DATE, WOULD_UPGRADE, UPGRADED, FAILED = "up to date", "would upgrade", "upgraded", "failed"


@dataclass
class Upgrade:
    """One environment's upgrade: the deployments using it, the version it has and the one
    resolved (``newest``; None when resolving failed), the ``result`` and a ``detail``
    sentence, the new environment's name, the warnings."""

    environment: ManagedEnvironment
    deployments: list[DeploymentRecord]
    current: str
    newest: str | None = None
    result: str = ""
    detail: str = ""
    new_environment: str | None = None
    warnings: list[AgentToolsWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.result != FAILED

    @property
    def distribution(self) -> str:
        r = self.environment.receipt
        return r.distribution if r is not None else self.environment.name

    def done(self, result: str) -> None:
        """*result*, said in the detail: the version, and the one it moves to."""
        moves = "" if result == UP_TO_DATE else f" → {self.newest}"
        self.result, self.detail = result, f"{self.distribution} {self.current}{moves}"

    def to_json(self) -> dict[str, object]:
        return {
            "environment": self.environment.name,
            "distribution": self.distribution,
            "current": self.current,
            "newest": self.newest,
            "result": self.result,
            "ok": self.ok,
            "detail": self.detail,
            "new_environment": self.new_environment,
            "deployments": [
                {"uuid": r.uuid, "client": r.client, "bundle": r.toolset_name}
                for r in self.deployments
            ],
            "warnings": [w.to_json() for w in self.warnings],
        }


def upgrade_all(
    given: IndexOptions, *, dry_run: bool = False, force: bool = False, check: Check = "start"
) -> list[Upgrade]:
    """Upgrade every managed environment a deployment uses (see the module docstring);
    *given*: this command's index options (their credentials are used for the recorded
    URLs); *dry_run*: resolve only and say what would change; *force*: modified skills are
    replaced (``--force``); *check*: whether each server of the new version must start
    (see :func:`~agenttools_runtime.deploy.sync.redeploy`; one that cannot keeps the
    environment as it was)."""
    with environments_lock():
        said = recover_environments()
        for warning in said:
            warnings.warn(warning, stacklevel=2)
        by_uuid = {r.uuid: r for r in load_records()}
        refs = references()
        items = []
        for env in environments():
            users = [by_uuid[u] for u in refs.of(env.name) if u in by_uuid]
            if env.receipt is None or not users:
                continue
            item = Upgrade(env, users, env.receipt.version)
            try:
                if dry_run:
                    _plan(item, env.receipt, given)
                else:
                    _upgrade(item, env.receipt, given, force, check)
            except AgentToolsError as exc:
                item.result, item.detail = FAILED, str(exc)
            items.append(item)
    return items


def _plan(item: Upgrade, receipt: Receipt, given: IndexOptions) -> None:
    item.newest = resolve_version(receipt, given)
    item.done(UP_TO_DATE if item.newest == receipt.version else WOULD_UPGRADE)


def resolve_version(receipt: Receipt, given: IndexOptions) -> str:
    """The version of the receipt's distribution that its request resolves to now."""
    request = parse_request(receipt.requirement)
    options = receipt.index.with_credentials_of(given)
    if request.kind == "wheel":
        return request.pinned_version or receipt.version
    if receipt.layout == METADATA and request.requirement is not None:
        from agenttools_runtime.envs import http, remote

        found = remote.find_wheel(
            request.requirement, options, timeout=http.timeout_from_environment()
        )
        return str(found.version)
    version, _ = provision.resolve_only(
        request, options, installers.find_installer(receipt.installer)
    )
    return version


def _upgrade(
    item: Upgrade, receipt: Receipt, given: IndexOptions, force: bool, check: Check
) -> None:
    from agenttools_runtime.deploy.sync import redeploy

    installer = installers.find_installer(receipt.installer)
    done = provision.provision(
        parse_request(receipt.requirement),
        receipt.index.with_credentials_of(given),
        installer,
        layout_name=receipt.layout,
        replaces=(item.environment.name,),
        reuse=False,
    )
    new = done.environment
    item.newest = new.receipt.version if new.receipt is not None else None
    if new.name == item.environment.name:
        item.done(UP_TO_DATE)
        return
    switched: list[DeploymentRecord] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AgentToolsWarning)
            from agenttools_runtime.mcp.runners import uvx_sources

            with uvx_sources(tuple(receipt.index.installer_arguments("uv"))):
                for record in item.deployments:
                    redeploy(record, force=force, search=managed_search(new), check=check)
                    switched.append(record)
        item.warnings.extend(c.message for c in caught if isinstance(c.message, AgentToolsWarning))
    except BaseException:
        _switch_back(switched, item.environment)
        provision.abandon(done)
        raise
    item.warnings.extend(provision.commit(done))
    item.new_environment = new.name
    item.done(UPGRADED)


def _switch_back(switched: list[DeploymentRecord], old: ManagedEnvironment) -> None:
    """Deploy what was switched to the new environment again from the old one."""
    from agenttools_runtime.deploy.sync import redeploy

    for record in switched:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # (back to what ran before: not refused for a check it was not made for)
                redeploy(record, search=managed_search(old), check="none")
        except AgentToolsError:
            continue  # (left on the new environment, which a deployment then keeps)
