"""agenttools runtime: the library behind the ``agenttools`` API and CLI.

Modules do one job each; see ``docs/concepts.md``. Nothing heavy is imported here.
"""

__version__ = "0.1.0"
