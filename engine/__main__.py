"""``python -m engine deadwood --jsonl`` / ``python -m engine score --jsonl``: see :mod:`engine.cli`."""

import sys

from engine.cli import main

sys.exit(main())
