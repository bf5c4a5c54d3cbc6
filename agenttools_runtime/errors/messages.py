"""The one table of message texts: every error and warning tag and its template, whose
``{placeholders}`` the error's keyword fields fill. Data, not code: tests and docs read it."""

from __future__ import annotations

FORCE = '--force (overwrite="all")'
UPGRADE = '--upgrade (overwrite="upgrade")'

# tag -> template
MESSAGES: dict[str, str] = {
    # -- bundles and names ------------------------------------------------------------------
    "AgentToolsNotFound": 'No agent tools bundle found for name "{name}" in {environment}.',
    "InvalidAgentToolsObject": "Invalid agent tools bundle specification: {reason}.",
    "AgentToolsEmpty": 'The agent tools "{name}" contain no MCP servers or agent skills to deploy.',
    "AgentToolsBundleNameAmbiguous": (
        'The distribution "{distribution}" defines several agent tools bundles: {bundles}. '
        "Specify one of these names."
    ),
    "DistributionAgentToolsNotFound": 'Agent tools "{name}" not found in distribution "{distribution}".',
    "AgentToolsNotForEnvironment": (
        'The agent tools bundle "{name}" of "{distribution}" is not offered in {environment}: its marker {marker} is false there.'
    ),
    "EditableSourceMissing": (
        'The editable install of "{distribution}" takes its skill files from {path}, which does not exist '
        "(moved or deleted?). Reinstall it: {command}"
    ),
    "DistributionNotInstalled": (
        'The distribution "{name}" is not installed in {environment}. Install it with: {command}'
    ),
    "DistributionSkillNotFound": 'Agent skill "{name}" not found in distribution "{distribution}".',
    "DistributionServerNotFound": 'MCP server "{name}" not found in distribution "{distribution}".',
    "MCPServerNotFound": 'No MCP server found for name "{name}".',
    "MCPServerNameAmbiguous": (
        'Several installed distributions declare an MCP server named "{name}": {names}. '
        "Specify one of these names."
    ),
    "InvalidManifest": 'The agenttools manifest of "{distribution}" cannot be used: {reason}',
    "ManifestSchemaTooNew": (
        'The agenttools manifest of "{distribution}" has schema {schema}: it was built by a newer '
        "agenttools, and this one reads schema {supported} and older. Upgrade agenttools: pip "
        "install --upgrade agenttools"
    ),
    "InvalidPythonEnvironment": (
        "Cannot discover the distributions of the Python interpreter {python}: {reason}"
    ),
    "BundledFileMismatch": (
        'The file {path} of "{distribution}" does not match the hash recorded when it was built '
        "(tampered with or half uninstalled). Reinstall it: pip install --force-reinstall {distribution}"
    ),
    "BundledFileNotRegular": (
        'The file {path} of "{distribution}" is a symbolic link or not a regular file; '
        "agenttools copies only the regular files a wheel installed. "
        "Reinstall it: pip install --force-reinstall {distribution}"
    ),
    "BundledFileMissing": (
        'The file {path} of "{distribution}" is missing. Reinstall it: pip install --force-reinstall {distribution}'
    ),
    # -- skills -----------------------------------------------------------------------------
    "InvalidDistributionSkillDefinition": "Invalid agent skill definition in {path} ({reason}).",
    "AgentSkillNotFound": 'No agent skill found for "{name}".',
    "BuiltInAgentSkillMissing": (
        'The built-in agent skill "{name}" is missing from the installed agenttools package. '
        "Reinstall it with: pip install --force-reinstall agenttools"
    ),
    "InvalidAgentSkill": "Invalid agent skill specification: {reason}.",
    "InvalidAgentSkillName": (
        'Invalid agent skill name "{name}". Skill names must be 1 to 64 lowercase letters, '
        "digits, and hyphens, without leading, trailing, or consecutive hyphens."
    ),
    "InvalidAgentSkillDescription": (
        'The agent skill "{name}" needs a description of 1 to 1024 characters.'
    ),
    "InvalidSkillFrontmatter": "Invalid SKILL.md {source}: {reason}",
    "DuplicateAgentSkillName": 'Several skills named "{name}" were given.',
    "InvalidSkillsDirectory": (
        "Invalid skills directory: {path}. Expected a directory that contains skill folders."
    ),
    "NoSkillsLocation": (
        "Unable to determine where to install agent skills for {target}. "
        "Use --skills-dir (skills_dir=) to specify a directory."
    ),
    "AgentSkillExists": 'A different skill named "{name}" already exists at {path}. Use {option} to replace it.',
    "AgentSkillModified": (
        'The skill "{name}" at {path} has been modified since it was installed. '
        f"Use {FORCE} to replace it."
    ),
    "AgentSkillConflict": (
        f'A different skill named "{{name}}" is already installed at {{path}}. Use {FORCE} to replace it.'
    ),
    "AgentSkillUpdate": (
        f'A different version of the skill "{{name}}" is installed at {{path}}. Use {UPGRADE} to update it.'
    ),
    "AgentSkillShadowed": (
        '{client_name} also reads {path}, a different skill named "{name}": deploying this one '
        "would give {client_name} two skills of that name. Remove or rename one of them, or use "
        "{option} to deploy it anyway (that copy is left as it is)."
    ),
    "AgentSkillShadowedWarning": (
        'Warning: {client_name} also reads {path}, a different skill named "{name}": it now has '
        "two skills of that name ({duplicates})."
    ),
    "AgentSkillDuplicate": (
        'Warning: {client_name} also reads an identical copy of the skill "{name}" at {path}: '
        "it finds the skill in two folders ({duplicates})."
    ),
    "AgentSkillSeenTwice": (
        'Warning: {client_name} reads the skill "{name}" from {other} (deployment {uuid}) and '
        "also reads the folder of the new copy {path}: it finds the skill in two folders "
        "({duplicates})."
    ),
    "AgentSkillNewerVersionKept": (
        'The skill "{name}" at {path} was not replaced because the installed version ({installed_version}) '
        "is newer than {version}."
    ),
    "AgentSkillInUse": (
        'The skill "{name}" at {path} was not removed because other agent tools deployments still use it.'
    ),
    "AgentSkillNotRemoved": (
        'The skill "{name}" at {path} was modified after it was installed, so it was not removed. '
        "Run {command} to remove it."
    ),
    "AgentSkillReplacedNotRemoved": (
        'The skill "{name}" at {path} was replaced by something that is not a skill directory, '
        "so it was not removed."
    ),
    "InstallAgentSkill": 'Successfully installed agent skill "{name}".',
    "InstallAgentSkillNamed": 'Successfully installed agent skill "{name}" for {client_name}.',
    "UninstallAgentSkill": 'Successfully uninstalled agent skill "{name}".',
    "UninstallAgentSkillNamed": 'Successfully uninstalled agent skill "{name}" for {client_name}.',
    "AgentSkillNotInstalledAt": 'The agent skill "{name}" is not installed at {path}.',
    "AgentSkillUnreadable": "Unable to read the agent skill file {path}.",
    "AgentSkillUnsafeLink": (
        "The symbolic link {path} points outside its skill directory ({target}); "
        "skills may only link to files inside themselves."
    ),
    "AgentSkillWriteFailed": 'Writing the agent skill "{name}" to {path} failed ({reason}); it was rolled back.',
    "AgentSkillRemoveFailed": (
        'Removing the agent skill "{name}" at {path} failed ({reason}); it was left in place.'
    ),
    "AgentSkillBackupNotRemoved": (
        'The agent skill "{name}" was removed, but its backup at {backup} could not be deleted '
        "completely. Delete it manually."
    ),
    "AgentSkillBackupsLeft": (
        "Backups left by an interrupted agenttools operation were found at {backups}: each holds a "
        "skill directory that was being replaced or removed in {root}. Move back what you want "
        "to keep, then delete them."
    ),
    # -- clients and locations --------------------------------------------------------------
    "UnknownClient": 'Unknown client "{client}".{hint} Known clients: {known}.',
    "UnsupportedSkillsClient": "No automatic agent skill installation support for client {client_name}.",
    "UnsupportedSkillsClientProject": (
        "No automatic project-level agent skill installation support for client {client_name}."
    ),
    "UnknownSkillsLocation": (
        "Unable to determine the skills location for {client_name} on {os_name}. "
        "Use --skills-dir (skills_dir=) to specify a custom location."
    ),
    "UnsupportedMCPClient": "No automatic MCP server installation support for client {client_name}.",
    "UnsupportedMCPClientProject": (
        "No automatic project-level MCP server installation support for client {client_name}."
    ),
    "UnknownInstallLocation": (
        "Unable to determine the MCP configuration file of {client_name} on {os_name}. "
        "Use --config FILE to specify it."
    ),
    "InvalidProjectDirectory": "Invalid project directory: {directory}. Expected an existing directory.",
    # -- MCP config files -------------------------------------------------------------------
    "ConfigFileUnparseable": (
        "Cannot parse {file} ({reason}); it was not changed. Fix the file and try again."
    ),
    "ConfigFileInvalid": "Cannot edit {file}: {reason}; it was not changed.",
    "ConfigFileChanged": (
        "{file} was changed by another program while agenttools was editing it; "
        "nothing was written. Try again."
    ),
    "UnsupportedTransport": (
        'The MCP server "{server}" uses the {transport} transport, which {client_name} does not support.'
    ),
    "MCPServerNotInstalled": 'The MCP server configuration "{key}" is not present in {config_file}.',
    "InstallMCPServer": 'Successfully installed MCP server "{key}" into {config_file}.',
    "UninstallMCPServer": 'Successfully removed MCP server "{key}" from {config_file}.',
    "MCPServerNotRemoved": 'The MCP server configuration "{key}" could not be removed from {config_file}.',
    "MCPServerEntryExists": (
        'The MCP server configuration "{key}" in {config_file} was not written by an agenttools '
        "deployment. Use {option} to replace it{then}.{note}"
    ),
    "MCPServerEntryEdited": (
        'The MCP server configuration "{key}" in {config_file} was changed after deployment {uuid} '
        f"wrote it. Use {FORCE} to replace it (removing the deployment puts the changed entry back)."
    ),
    "MCPServerEntryModified": (
        'Warning: The MCP server configuration "{key}" in {config_file} was changed after agenttools '
        "wrote it, so it was not removed{origin}. {hint}"
    ),
    "MCPServerEntryNotRestored": (
        'Warning: The MCP server configuration "{key}" in {config_file} was removed after agenttools '
        "wrote it, so the entry it had replaced was not put back."
    ),
    "InvalidMCPServerNameOption": (
        'A server name override can only be used when deploying a single MCP server; "{name}" '
        "has {count} servers."
    ),
    "RunnerUnavailable": 'The MCP server "{server}" cannot be written with --runner {runner}: {reason}.',
    "MCPEntryMachineSpecific": (
        'Warning: The MCP server entry "{key}" in {config_file} runs {command}, a path on this '
        "machine only: the file is machine-specific (a teammate's checkout cannot start the "
        "server). {hint}"
    ),
    "DuplicateBundleConfigKey": (
        'The MCP servers {servers} of "{name}" would all be installed with the configuration key "{key}".'
    ),
    # -- deployments ------------------------------------------------------------------------
    "DeploymentExists": (
        'The agent tools "{name}" are already deployed to {target} (deployment {uuid}). '
        f"Use {UPGRADE} to replace the deployment."
    ),
    "DeploymentDiffers": (
        'The agent tools "{name}" are already deployed to {target} (deployment {uuid}) '
        f"{{difference}}. Use {UPGRADE} to replace the deployment, or 'agenttools sync' to "
        "upgrade every outdated one."
    ),
    "AgentSkillModifiedKept": (
        'Warning: The skill "{name}" at {path} was modified since agenttools wrote it, so it '
        f"was kept as it is, not replaced with {{version}}. Use {FORCE} to replace it."
    ),
    "AgentSkillLinksUnsupported": (
        "{client_name} is known not to follow symbolic links to skill directories ({source}), "
        "so --link cannot deploy to it; deploy without --link (the skills are copied)."
    ),
    "AgentSkillLinkNotEditable": (
        'The skills of "{name}" cannot be deployed as links: {reason}. --link deploys the '
        "skills of an editable install (pip install -e) as links to their live source."
    ),
    "DeploymentConfigKeyTaken": (
        'The MCP server key "{key}" in {config_file} is already written by deployment {uuid} of '
        f'"{{bundle}}". Use {UPGRADE} to replace that deployment{{rename}}.'
    ),
    "DeploymentsExistWarning": (
        "Warning: Some deployments were skipped because they already exist: {clients}. "
        f"Use {UPGRADE} to replace them."
    ),
    "DeploymentNotFound": 'No deployment found for "{id}".',
    "NoClientDetected": (
        "No AI client was detected on this machine. Name the clients to deploy to (TARGET, "
        "e.g. claude-code,cursor; see 'agenttools clients'), or use --all-clients."
    ),
    "DeploymentIdAmbiguous": 'The deployment id prefix "{id}" matches several deployments: {ids}.',
    "AgentSkillsNotDeployed": (
        'Warning: The agent skills of "{name}" were not installed because {client_name} does not support '
        "agent skills for this target."
    ),
    "MCPServersNotDeployed": (
        'Warning: The MCP servers of "{name}" were not installed because {client_name} does not support '
        "MCP servers for this target."
    ),
    "AgentSkillsNotDeployedWarning": (
        "Warning: Agent skills were not installed for these clients, which do not support "
        "them: {clients}."
    ),
    "AgentSkillConflictWarning": (
        "Warning: Some deployments were skipped because of conflicting agent skills. "
        f"Use {FORCE} to replace them."
    ),
    "AgentSkillNotInstalled": (
        'Warning: The agent skill "{name}" was not installed because a different or modified skill '
        f"with that name already exists at {{path}}. Use {FORCE} to replace it."
    ),
    "AgentSkillNotInstalledShadowed": (
        'Warning: The agent skill "{name}" was not installed because {client_name} also reads '
        f"{{path}}, a different skill of that name. Use {FORCE} to deploy it anyway (that copy "
        "is left as it is)."
    ),
    "AgentSkillsNotInstalledWarning": (
        "Warning: Some agent skills were not installed for these clients because different or "
        f"modified skills with the same names already exist: {{clients}}. Use {FORCE} to replace them."
    ),
    "InvalidSkillsDirectoryOption": (
        "Invalid value for the skills directory option: {value!r}. Expected None, a path, or the default."
    ),
    "InvalidOverwriteOption": 'Invalid overwrite value {value!r}. Expected "none", "upgrade" or "all".',
    "AgentToolsNothingToDeploy": 'Nothing from the agent tools "{name}" can be deployed to {target}.',
    "AgentSkillsDisabled": (
        'The agent tools "{name}" contain only agent skills, but --no-skills (skills_dir=None) '
        "disables installing them."
    ),
    "DeploymentNotRemoved": 'Warning: The replaced deployment "{uuid}" could not be removed completely.',
    "DeploymentLockTimeout": (
        "Timed out waiting for another process to finish modifying agent tools deployments."
    ),
    "InvalidDeploymentRecord": "The deployment record {path} cannot be read: {reason}",
    "BrokenDeploymentRecord": (
        "The deployment record {path} cannot be read: {reason}. Nothing was removed. {hint}"
    ),
    "BrokenDeploymentRecordHint": (
        "Repair the file, or delete the directory {directory} to forget the deployment "
        "('agenttools doctor --fix' then releases its skills; its MCP config entries stay in "
        "their files)."
    ),
    "DeploymentRollbackIncomplete": (
        'Warning: The failed deployment of "{name}" could not be rolled back completely: {reason}'
    ),
    "InterruptedOperationRecovered": "An interrupted {operation} was {outcome}.",
    "DeploymentNotFinished": (
        "Warning: The deployment {uuid} was committed, but finishing it failed ({reason}); "
        "the next agenttools command finishes it."
    ),
    "StateRecoveryFailed": (
        "An interrupted agenttools operation ({journal}) could not be finished: {reason}. Fix "
        "the cause and run the command again; 'agenttools doctor' shows what is left."
    ),
    # -- skill:// URIs and serving (texts of the skill:// scheme document) -----------------
    "SkillNotFound": "Skill not found: '{skill}'. Available: {available}",
    "SkillReferenceNotFound": "Reference not found: '{reference}' in skill '{skill}'",
    "SkillURISecurityError": "Security error: {reason}",
    "SkillPathTraversal": "Security error: Path traversal detected in URI",
    "SkillNullByte": "Security error: Null byte detected in URI",
    "InvalidSkillProviderName": (
        "Security error: Invalid provider name '{provider}'. Provider names start with a letter or "
        "digit, contain only letters, digits, hyphens and underscores, and have at most 63 "
        "characters."
    ),
    "InvalidSkillURI": "Invalid skill URI '{uri}': {reason}",
    "SkillProviderNotFound": "Provider not found: '{provider}'. Available providers: {available}",
    "SkillProviderExists": "A skill provider named '{provider}' is already registered.",
    "SkillProviderFailed": "The skill provider '{provider}' failed: {reason}",
    "MCPSDKMissing": (
        "{feature} needs the MCP Python SDK (mcp>=2.3), which is not installed. "
        "Install it with: pip install 'agenttools[serve]'"
    ),
    "SkillNameCollision": (
        "The skill '{skill}' is provided by {providers}; using {chosen}. Use a full URI "
        "(skill://PROVIDER/{skill}) to choose another."
    ),
    "ServedSkillsNamespaced": (
        "Several sources have a skill named '{skill}' ({origins}); each is served under its own "
        "prefix instead: {uris}"
    ),
    "SkillNotServed": "The skill '{skill}' at {location} is not served: {reason}",
    "SkillProviderSkipped": "The skill provider '{provider}' was skipped: {reason}",
    # -- project validation (hook and `agenttools validate`) --------------------------------
    "InvalidProject": "{report}",
    # -- building: the wrapping backend and `agenttools bundle` -----------------------------
    "InvalidWheel": "Cannot add agenttools files to {wheel}: {reason}",
    "InvalidSdist": "Cannot add the skill sources to the sdist {sdist}: {reason}",
    "WheelAlreadyBundled": (
        "{wheel} already carries different agenttools metadata ({difference}). "
        "Use --force to replace it."
    ),
    "WheelProjectMismatch": (
        '{wheel} is a wheel of "{wheel_name}", but the project in {project} is "{project_name}"; '
        "agenttools adds a project's files to that project's wheels only."
    ),
    "BuildBackendUnavailable": (
        'The build backend "{backend}" (tool.agenttools.backend in {pyproject}) cannot be '
        "imported: {reason}. Check the name, and that [build-system] requires lists the "
        "distribution that provides it."
    ),
    # -- the file system (the CLI's one line for an OSError) --------------------------------
    "FileOperationFailed": "Cannot {operation} {path}: {reason}.",
}
