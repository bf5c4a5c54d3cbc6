import sys

from agenttools_runtime.cli import main

sys.exit(main())
