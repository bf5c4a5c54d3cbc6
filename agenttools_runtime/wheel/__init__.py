"""The build↔runtime contract: what the build hook puts into a wheel's ``.dist-info`` and how
the runtime reads it back (:mod:`.manifest`, :mod:`.layout`)."""
