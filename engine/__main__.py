"""``python -m engine deadwood --jsonl`` / ``python -m engine score --jsonl``: see :mod:`engine.tools.cli`."""

import sys

from engine.tools.cli import main

sys.exit(main())
