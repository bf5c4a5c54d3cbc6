"""What a deploy plan meets before anything is written: who owns each config key it would
write (an entry no deployment wrote, or one the user edited, is a conflict unless
``--force``), the other copies of its skills the client reads (duplicates, shadows, copies
seen twice), and the user's modified skills an upgrade keeps."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from agenttools_runtime import errors, regular_files
from agenttools_runtime.clients import Client, get_client
from agenttools_runtime.deploy import ownership, plan, records, shared
from agenttools_runtime.deploy.deploy_plan import DeployPlan
from agenttools_runtime.deploy.plan import Action, Decision, Level
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.deploy.targets import read_roots_by_client
from agenttools_runtime.errors import FORCE as FORCE_HINT
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning, broken_record_hint
from agenttools_runtime.mcp.entries import build_entry
from agenttools_runtime.mcp.formats import plain
from agenttools_runtime.mcp.install import read_server_entries


def unreadable_in_the_way(
    result: DeployPlan, store: Store, candidates: Iterable[str]
) -> list[AgentToolsError]:
    """The records that cannot be read and may be this deployment, each a
    ``DeploymentMayBeUnreadable`` (none with ``--force``): a deploy beside one would record
    the same files twice, found only once the record is repaired. They are the *candidates*
    (those the index names for this bundle and client, unreadable now) and the records the
    index could not read whose JSON names the same bundle and client, and not another scope.
    (One whose JSON says nothing may be any deployment: sharing its skills is refcounting as
    ever, and an identical config entry it wrote is taken over as the user's would be.)"""
    suspects = set(candidates)
    unread = suspects | (store.index.record_names - store.index.records.keys())
    if not unread or result.level is Level.ALL:
        return []
    target = result.target
    found: list[AgentToolsError] = []
    for name in sorted(unread):
        path = records.record_path(name, store.state.deployments)
        try:
            records.read_record(path)
            continue  # (readable by now)
        except errors.InvalidDeploymentRecord as exc:
            reason = exc.reason
        said = _said(path)
        tools = said.get("agent_tools")
        where = said.get("location_key")
        same = (
            said.get("client") == target.client.id
            and isinstance(tools, dict)
            and tools.get("name") == result.tools.name
            # (one that says another scope is not this deployment; one that says none may be)
            and (not isinstance(where, str) or where == target.location_key)
        )
        if name in suspects or same:
            found.append(
                errors.DeploymentMayBeUnreadable(
                    path=path,
                    reason=reason,
                    name=result.tools.name,
                    target=target.client.display_name,
                    hint=broken_record_hint(path),
                )
            )
    return found


def _said(path: Path) -> dict[str, object]:
    """What the unreadable record *path* says, as far as it is a JSON object."""
    try:
        said = json.loads(regular_files.read_bytes(path))
    except (OSError, ValueError, RecursionError):
        return {}
    return said if type(said) is dict else {}


def keep_modified(result: DeployPlan) -> None:
    """Skills of the replaced deployments that the user modified stay as they are: the new
    deployment references them (their baseline and version unchanged, so they still show as
    outdated and drifted) instead of failing on ``AgentSkillModified``."""
    replaced = {r.uuid for r in result.replaced}
    for index, sp in enumerate(result.skills):
        if sp.decision.conflict != "AgentSkillModified" or sp.entry is None:
            continue
        if not replaced & set(sp.entry.references):
            continue  # not this deployment's own skill: a conflict as ever
        keep = Decision(Action.ADD_REFERENCE, None)
        result.skills[index] = replace(sp, decision=keep)
        result.kept_modified.append(sp.source.name)
        result.warnings.append(
            errors.AgentSkillModifiedKept(
                name=sp.source.name,
                path=sp.directory,
                version=sp.source.version or "the new version",
            )
        )


def other_copy_warnings(result: DeployPlan, store: Store) -> list[AgentToolsWarning]:
    """What the client will see otherwise than the source says — a skill folder whose name is
    not the skill's — or twice: an identical copy in another root it reads, a different one
    deployed over with --force, and, for each new copy, another deployment's client that
    reads its root and has the skill from another one."""
    target = result.target
    found: list[AgentToolsWarning] = []
    behaviour = duplicates_text(target.client)
    for sp in result.skills:
        folder = sp.source.directory
        if folder is not None and folder.name != sp.source.name and sp.decision.action:
            # (a folder of another name: deployed under the SKILL.md's, as validate warns)
            found.append(
                errors.AgentSkillNameDiffers(
                    source=folder, folder=folder.name, name=sp.source.name, path=sp.directory
                )
            )
        for other in sp.others:
            fields = {"name": sp.source.name, "path": other.directory}
            fields.update(client_name=sp.client_name, duplicates=behaviour)
            if other.role is plan.CopyRole.DUPLICATE:
                found.append(errors.AgentSkillDuplicate(**fields))
            elif other.role is plan.CopyRole.OTHER_VERSION:
                found.append(errors.AgentSkillOtherVersion(**fields))
            elif other.role is plan.CopyRole.SHADOW and sp.decision.action is not None:
                found.append(errors.AgentSkillShadowedWarning(**fields))  # (deployed with --force)
    created = [sp.directory for sp in result.skills if sp.decision.action is Action.CREATE]
    if not created or target.scope is None or target.skills_dir is not None:
        return found
    scope_reads = read_roots_by_client(target.scope)
    for seen in shared.seen_twice(
        created, scope_reads, target.location_key, target.client.id, store
    ):
        client = get_client(seen.client)
        found.append(
            errors.AgentSkillSeenTwice(
                name=seen.name,
                path=seen.path,
                other=seen.other,
                uuid=seen.uuid,
                client_name=client.display_name,
                duplicates=duplicates_text(client),
            )
        )
    return found


def duplicates_text(client: Client) -> str:
    reads = client.skill_reads
    if reads is not None and reads.duplicates:
        return f"{client.display_name} {reads.duplicates}"
    return f"which one {client.display_name} uses is up to it"


def inspect_config(result: DeployPlan, store: Store) -> None:
    """What each key holds now (:class:`~agenttools_runtime.deploy.ownership.EntryState`):
    an entry no deployment wrote, or one the user changed since a deployment wrote it, is a
    conflict unless ``--force`` (``MCPServerEntryExists``, ``MCPServerEntryEdited``, added to
    ``errors``); a config file that cannot be edited is an error now, before anything is
    written (raised outside a dry run)."""
    config_file = result.target.config_file
    client = result.target.client
    assert config_file is not None
    try:
        current = read_server_entries(config_file, client)
    except AgentToolsError as exc:  # the deploy would fail the same way, changing nothing
        result.errors.append(exc)
        return
    for sp in result.servers:
        found = list(ownership.owners(store, sp.key, config_file))
        owner = found[-1] if found else None
        state = ownership.classify(
            plain(current.get(sp.key)),
            None if owner is None else owner[1],
            plain(build_entry(client, sp.server, sp.key)),
            present=sp.key in current,
        )
        result.existing_entries[sp.key] = state.value
        if not state.needs_force or result.level is Level.ALL:
            continue
        if owner is not None:
            result.errors.append(
                errors.MCPServerEntryEdited(key=sp.key, config_file=config_file, uuid=owner[0].uuid)
            )
        else:
            result.errors.append(
                errors.MCPServerEntryExists(
                    key=sp.key,
                    config_file=config_file,
                    option=FORCE_HINT,
                    then=" (removing the deployment puts it back)",
                    note=unreadable_records_note(store),
                )
            )


def unreadable_records_note(store: Store) -> str:
    """A record that cannot be read may be the one that wrote an entry that looks foreign:
    say so (the listing shows them)."""
    broken = [
        item
        for item in records.iter_records(store.state.deployments)
        if not isinstance(item, DeploymentRecord)
    ]
    if not broken:
        return ""
    return (
        f" ({len(broken)} deployment record(s) cannot be read and may be the one that wrote it: "
        "see 'agenttools deployed'.)"
    )
