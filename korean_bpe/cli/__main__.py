"""``python -m korean_bpe.cli``: the ``korean-bpe`` command."""

import sys

from . import main

sys.exit(main())
