"""How much of a corpus the scale tests read: a sample in ``make test``, everything on request.

The tests marked ``sampled`` check a sample of the movie reviews (a few thousand, the jamo decodes
through Hugging Face a few hundred) so that the suite stays within minutes; with
``KOREAN_BPE_FULL_TESTS=1`` they read the sizes they were written for (all 55,106 test reviews,
...), the same checks: ``benchmarks/full_size_tests.py`` runs them so.

>>> sized(500, 55_106) in (500, 55_106)
True
"""

from __future__ import annotations

import os

#: KOREAN_BPE_FULL_TESTS=1: the full sizes
FULL = os.environ.get("KOREAN_BPE_FULL_TESTS", "") not in ("", "0")


def sized(sample: int, full: int | None) -> int | None:
    """``full`` (None: everything) with KOREAN_BPE_FULL_TESTS=1, else ``sample``."""
    return full if FULL else sample
