"""``python -m korean_bpe``: the ``korean-bpe`` command."""

import sys

from .cli import main

sys.exit(main())
