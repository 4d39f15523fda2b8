"""The tie rule, written once: which pair BPE merges next, and which id each symbol gets.

HF tokenizers' ``BpeTrainer`` (checked against tokenizers 0.23) and both of our trainers do this:

1. **Ids.**  Special tokens first (in the given order), then the alphabet, one id per symbol in
   code-point order, then (only when a word marker glues onto symbols: ``</w>`` or ``##``) the
   marked symbols such as ``'t</w>'`` or ``'##다'``, then each merge result takes the next free id
   (a merge whose result string already has an id reuses it).
2. **Pick.**  The next merge is the pair with the highest count; among equal counts, the pair
   ``(left_id, right_id)`` that is smaller (compare left ids, then right ids).
3. **Count.**  A word ``a a a`` holds the pair ``(a, a)`` twice (overlapping windows, as HF and
   subword-nmt count), but merging it rewrites left to right without overlap: ``aa a``.

Worked example (Wikipedia's ``aaabdaaabac``, one word): ids ``a=0 b=1 c=2 d=3``.  ``(a, a)`` is
counted 4 times and merged first (``aa=4``); then ``(a, b)`` and ``(aa, a)`` both have count 2 and
``(0, 1) < (4, 0)``, so ``a b`` comes before ``aa a``, as the tutorials say:

>>> counts = {(0, 1): 2, (4, 0): 2, (1, 3): 1}
>>> best_pair(counts)
(0, 1)
>>> sorted(["ᄀ", "a", "가", "Z"], key=symbol_sort_key)
['Z', 'a', 'ᄀ', '가']

The tutorials' own loops (Sennrich et al. 2016, the HF course) take ``max`` over a dict and break
ties by dict insertion order, which can differ: on ``low 5, lower 2, newest 6, widest 3`` they
merge ``n e`` before ``e w`` (both count 8); the rule above merges ``e w`` first, as HF does
(``e``'s id is smaller than ``n``'s).

Where HF is not deterministic we fix a rule: HF numbers the marked symbols (``'t</w>'``,
``'##다'``) in the iteration order of a hash map (it changes from run to run); we number them in
code-point order of the marked string.  HF's ``limit_alphabet`` drops the least frequent
characters but breaks count ties by hash order; we keep the more frequent, and among equal counts
the smaller code point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["pair_key", "best_pair", "symbol_sort_key", "order_symbols", "keep_alphabet"]


def pair_key(pair: tuple[int, int], count: int) -> tuple[int, int, int]:
    """Sort key of a candidate merge: the best candidate has the *largest* key.

    >>> max([((5, 1), 3), ((2, 7), 3), ((9, 9), 2)], key=lambda pc: pair_key(*pc))
    ((2, 7), 3)
    """
    return (count, -pair[0], -pair[1])


def best_pair(pair_counts: Mapping[tuple[int, int], int]) -> tuple[int, int]:
    """The pair to merge next: highest count, then smallest ``(left_id, right_id)``."""
    return max(pair_counts.items(), key=lambda pc: pair_key(pc[0], pc[1]))[0]


def symbol_sort_key(symbol: str) -> tuple[int, ...]:
    """Code-point order (what HF sorts its alphabet by); for one character it is ``ord``."""
    return tuple(map(ord, symbol))


def order_symbols(symbols: Iterable[str]) -> list[str]:
    """The distinct ``symbols`` in id order (code-point order)."""
    return sorted(set(symbols), key=symbol_sort_key)


def keep_alphabet(frequencies: Mapping[str, int], limit: int | None) -> set[str]:
    """The alphabet kept under ``limit_alphabet``: the ``limit`` most frequent symbols, ties going
    to the smaller code point (HF breaks such ties arbitrarily; see the module docstring).

    >>> sorted(keep_alphabet({"ㅋ": 9, "ㅎ": 4, "가": 4, "a": 1}, 2))
    ['ㅋ', 'ㅎ']
    """
    if limit is None or len(frequencies) <= limit:
        return set(frequencies)
    ranked = sorted(frequencies, key=lambda s: (-frequencies[s], symbol_sort_key(s)))
    return set(ranked[:limit])
