"""What goes wrong resolving a ``skill://`` URI (unsafe, unknown skill or reference, a provider
missing or failing), and the warnings of serving skills; the texts of the skill:// scheme
document."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError, AgentToolsWarning

__all__ = [
    "InvalidSkillProviderName",
    "InvalidSkillURI",
    "ServedSkillsNamespaced",
    "SkillNameCollision",
    "SkillNotFound",
    "SkillNotServed",
    "SkillNullByte",
    "SkillPathTraversal",
    "SkillProviderExists",
    "SkillProviderFailed",
    "SkillProviderNotFound",
    "SkillProviderSkipped",
    "SkillReferenceNotFound",
    "SkillURISecurityError",
    "URIError",
]


class URIError(AgentToolsError):
    """A ``skill://`` URI that is unsafe or does not resolve, or a provider that failed."""


class InvalidSkillURI(URIError):
    template = "Invalid skill URI '{uri}': {reason}"


class SkillNotFound(URIError):
    template = "Skill not found: '{skill}'. Available: {available}"


class SkillReferenceNotFound(URIError):
    template = "Reference not found: '{reference}' in skill '{skill}'"


class SkillProviderNotFound(URIError):
    template = "Provider not found: '{provider}'. Available providers: {available}"


class SkillProviderExists(URIError):
    template = "A skill provider named '{provider}' is already registered."


class SkillProviderFailed(URIError):
    template = "The skill provider '{provider}' failed: {reason}"


class SkillURISecurityError(URIError):
    """A ``skill://`` URI rejected for safety (traversal, NUL, a bad provider name)."""


class SkillPathTraversal(SkillURISecurityError):
    template = "Security error: Path traversal detected in URI"


class SkillNullByte(SkillURISecurityError):
    template = "Security error: Null byte detected in URI"


class InvalidSkillProviderName(SkillURISecurityError):
    template = (
        "Security error: Invalid provider name '{provider}'. Provider names start with a letter "
        "or digit, contain only letters, digits, hyphens and underscores, and have at most 63 "
        "characters."
    )


# -- warnings ----------------------------------------------------------------------------------
class SkillNameCollision(AgentToolsWarning):
    template = (
        "The skill '{skill}' is provided by {providers}; using {chosen}. Use a full URI "
        "(skill://PROVIDER/{skill}) to choose another."
    )


class ServedSkillsNamespaced(AgentToolsWarning):
    template = (
        "Several sources have a skill named '{skill}' ({origins}); each is served under its own "
        "prefix instead: {uris}"
    )


class SkillNotServed(AgentToolsWarning):
    template = "The skill '{skill}' at {location} is not served: {reason}"


class SkillProviderSkipped(AgentToolsWarning):
    template = "The skill provider '{provider}' was skipped: {reason}"
