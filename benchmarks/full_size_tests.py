#!/usr/bin/env python
"""The tests marked ``sampled`` at the sizes they were written for (``KOREAN_BPE_FULL_TESTS=1``).

``make test`` runs them on a sample of the movie reviews (``tests/_sizes.py``: 2,000 NSMC test
reviews through every HF client, 600 through the transformers wrapper, a few hundred jamo decodes
through HF, ...), so that the suite stays within minutes; this script runs the same checks on all
of them (all 55,106 test reviews through every HF client, all of ratings_train for the raw export,
...). It takes most of an hour on two cores. Extra arguments go to pytest:

    .venv/bin/python benchmarks/full_size_tests.py             # every sampled test
    .venv/bin/python benchmarks/full_size_tests.py -n 2 -k hf_clients
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    env = {**os.environ, "KOREAN_BPE_FULL_TESTS": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "sampled", "tests", *(sys.argv[1:] if argv is None else argv)]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
