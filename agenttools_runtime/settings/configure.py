"""The values one deploy gives its servers' declared settings, per target.

For each server that declares settings, the value of each comes from, in order: what the user
gave (``--env``, ``--env-file``, ``configure``), what the deployment this one replaces had
(its record for plain values; for a secret, the user-scope config entry it wrote, which is
the secret's only home), the answer to a prompt (required settings, on a terminal), the
declared default. A value kept from before whose setting the new version no longer declares
is dropped with a note. Secrets:

- user scope: the value goes into the entry; the record keeps a salted digest in its place;
- project scope: the entry gets the client's own reference to an environment variable of
  that name (``secret_reference`` in the client table: ``${VAR}`` in Claude Code's
  ``.mcp.json``, ``${env:VAR}`` in VS Code and Cursor, ``env_vars`` in Codex), and the user
  sets the variable where the client runs; a client without one is refused
  (``SecretHasNoReference``, saying how to set it).

What a record keeps per server entry (``settings``): ``{VAR: value}`` for plain values,
``{VAR: {"secret": digest}}`` or ``{VAR: {"reference": VARIABLE}}`` for secrets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agenttools_runtime import errors, paths
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.resolved import ResolvedTools, ServerPlan
from agenttools_runtime.deploy.targets import USER_SCOPE, DeployTarget
from agenttools_runtime.errors import AgentToolsWarning
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.mcp.settings import Ask, Setting, resolve_values
from agenttools_runtime.settings import secrets

SETTINGS = "settings"  # the key of a record's server entry


def with_settings(
    resolved: ResolvedTools,
    where: DeployTarget,
    given: Mapping[str, Mapping[str, str]],
    ask: Ask | None,
) -> tuple[ResolvedTools, list[AgentToolsWarning]]:
    """*resolved* with each server's settings filled in for *where* (see the module
    docstring), and the notes of values dropped. *given*: values by server name, then
    setting name. Raises ``SettingNotDeclared`` (a value for no setting),
    ``SettingValueInvalid`` (a value outside its choices, or for no server of the bundle), ``RequiredSettingsMissing`` (one error listing every value missing for a
    server) and ``SecretHasNoReference``."""
    names = [sp.server.name for sp in resolved.servers]
    for server in given:
        if server not in names:
            raise errors.SettingValueInvalid(
                name="a setting",  # (not its name: it may be a secret typed without one)
                server=server,
                reason="is given for a server the bundle does not have",
            )
    if where.config_file is None:
        return resolved, []  # no MCP config here: nothing is written (the deploy says why)
    if not any(sp.server.settings for sp in resolved.servers):
        for sp in resolved.servers:  # (values for a server with no settings: a typo)
            if given.get(sp.server.name):
                resolve_values(sp.key, (), given[sp.server.name], None)
        return resolved, []
    prior = prior_records(resolved, where)
    entries = _current_entries(where, resolved, prior)
    version = str(resolved.agent_tools.get("distribution_version") or "this version")
    notes: list[AgentToolsWarning] = []
    plans = []
    for sp in resolved.servers:
        kept = _kept_values(sp, prior, where, entries.get(sp.key))
        declared = {s.name for s in sp.server.settings}
        dropped = sorted(n for n in kept if n not in declared)
        if dropped:
            notes.append(errors.SettingsDropped(server=sp.key, names=dropped, version=version))
        values_before = {n: v for n, v in kept.items() if n in declared}
        values = {**values_before, **given.get(sp.server.name, {})}
        configured = _configured(sp, where, values, ask, prior)
        # a secret's value before (a dry run shows the entry there now): masked too
        secret_names = {s.name for s in sp.server.settings if s.secret}
        before = {v: "" for n, v in kept.items() if n in secret_names}
        plans.append(replace(configured, secrets={**before, **configured.secrets}))
        recorded = (configured.settings or {}).values()
        referenced = [
            v["reference"] for v in recorded if isinstance(v, Mapping) and "reference" in v
        ]
        if referenced:
            notes.append(
                errors.SecretsFromEnvironment(
                    config_file=where.config_file,
                    names=referenced,
                    server=sp.key,
                    client_name=where.client.display_name,
                )
            )
    return replace(resolved, servers=tuple(plans)), notes


def _configured(
    sp: ServerPlan,
    where: DeployTarget,
    values: Mapping[str, str],
    ask: Ask | None,
    prior: Sequence[DeploymentRecord],
) -> ServerPlan:
    server = sp.server
    if not server.settings:
        resolve_values(sp.key, (), values, None)  # (a value for no setting: refused)
        return sp
    project = where.scope not in (USER_SCOPE, None)
    reference = where.client.secret_reference if project else None
    if project:
        # a secret is never asked for or written in project scope: a reference, or refused
        secret_names = [s.name for s in server.settings if s.secret]
        if secret_names and reference is None:
            from agenttools_runtime.clients import all_clients

            able = [c for c, row in all_clients().items() if row.secret_reference]
            raise errors.SecretHasNoReference(
                server=sp.key,
                names=secret_names,
                client_name=where.client.display_name,
                config_file=where.config_file,
                clients=", ".join(able),
                client=where.client.id,
            )
        values = {n: v for n, v in values.items() if n not in secret_names}
        asked: tuple[Setting, ...] = tuple(s for s in server.settings if not s.secret)
    else:
        asked = server.settings
    resolved = resolve_values(sp.key, asked, values, ask)
    before = _recorded(prior, where, sp.key)
    record: dict[str, Any] = {}
    digests: dict[str, str] = {}
    configured = server.configured(resolved)
    for setting in server.settings:
        if setting.secret and project:
            assert reference is not None  # (refused above)
            variable = reference_variable(sp.key, setting)
            record[setting.name] = {"reference": variable}
            configured = _referenced(configured, setting, variable, reference)
        elif setting.name in resolved:
            value = resolved[setting.name]
            if setting.secret:
                previous = before.get(setting.name)
                old = previous.get("secret") if isinstance(previous, Mapping) else None
                digests[value] = secrets.kept_digest(value, old)
                record[setting.name] = {"secret": digests[value]}
            else:
                record[setting.name] = value
    return replace(sp, server=configured, settings=record, secrets=digests)


def reference_variable(key: str, setting: Setting) -> str:
    """The environment variable a project file refers to for *setting*: its own name for
    an environment variable; ``<KEY>_<HEADER>`` (upper case, other characters ``_``) for a
    header."""
    if setting.kind == "env":
        return setting.name
    return re.sub(r"[^A-Z0-9_]", "_", f"{key}_{setting.name}".upper())


def _referenced(
    server: MCPServer, setting: Setting, variable: str, reference: Mapping[str, Any]
) -> MCPServer:
    """*server* passing *setting* by the client's reference to *variable*."""
    if setting.kind == "env":
        template = reference.get("env")
        if template is not None:
            env = {**server.env, setting.name: template.replace("{name}", variable)}
            return replace(server, env=env)
        return replace(server, env_vars=(*server.env_vars, variable))
    template = reference.get("headers")
    if template is not None:
        headers = {**server.headers, setting.name: template.replace("{name}", variable)}
        return replace(server, headers=headers)
    return replace(server, header_vars={**server.header_vars, setting.name: variable})


def prior_records(resolved: ResolvedTools, where: DeployTarget) -> list[DeploymentRecord]:
    """The deployments a deploy of *resolved* to *where* replaces (read unlocked: what it
    gives is a starting point, checked again under the lock), oldest first."""
    from agenttools_runtime.deploy import engine
    from agenttools_runtime.deploy.store import Store

    if not paths.state_paths().deployments.is_dir():
        return []
    return engine.conflicting_records(Store.open(), engine.new_probe(resolved, where))


def _recorded(
    prior: Sequence[DeploymentRecord], where: DeployTarget, key: str
) -> Mapping[str, Any]:
    """The ``settings`` the newest of *prior* recorded for the entry *key* of this file."""
    file_key = None if where.config_file is None else paths.canonical_path_key(where.config_file)
    found: Mapping[str, Any] = {}
    for record in prior:
        for entry in record.mcp_servers:
            if entry.config_key == key and paths.canonical_path_key(entry.config_file) == file_key:
                value = entry.extra.get(SETTINGS)
                found = value if isinstance(value, Mapping) else {}
    return found


def _kept_values(
    sp: ServerPlan,
    prior: Sequence[DeploymentRecord],
    where: DeployTarget,
    current: Mapping[str, Any] | None,
) -> dict[str, str]:
    """The values the replaced deployment gave *sp*'s entry: plain ones from its record, a
    secret's from the entry it wrote (user scope; what the user put there since counts)."""
    kept: dict[str, str] = {}
    for name, value in _recorded(prior, where, sp.key).items():
        if isinstance(value, str):
            kept[name] = value
        elif isinstance(value, Mapping) and "secret" in value and current is not None:
            found = _value_in_entry(current, name)
            if found is not None:
                kept[name] = found
    return kept


def _value_in_entry(entry: Mapping[str, Any], name: str) -> str | None:
    """The value of the environment variable or header *name* in a client entry, whatever
    the client calls those tables (``env``, ``envs``, ``environment``, ``headers``,
    ``http_headers``, ``requestOptions.headers``)."""
    for key in ("env", "envs", "environment", "headers", "http_headers"):
        table = entry.get(key)
        if isinstance(table, Mapping) and isinstance(table.get(name), str):
            return str(table[name])
    options = entry.get("requestOptions")
    if isinstance(options, Mapping) and isinstance(options.get("headers"), Mapping):
        value = options["headers"].get(name)
        return value if isinstance(value, str) else None
    return None


def _current_entries(
    where: DeployTarget, resolved: ResolvedTools, prior: Sequence[DeploymentRecord]
) -> Mapping[str, Any]:
    """The entries of the target's config file, when a replaced deployment kept a secret
    there (the only place its value is); else nothing is read."""
    from agenttools_runtime.mcp.install import read_server_entries

    wanted = any(
        isinstance(v, Mapping) and "secret" in v
        for sp in resolved.servers
        for v in _recorded(prior, where, sp.key).values()
    )
    if not wanted or where.config_file is None:
        return {}
    return read_server_entries(where.config_file, where.client)
