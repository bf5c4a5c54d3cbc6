"""multi-bundle: an agenttools sample with several bundles."""

__version__ = "0.3.0"
