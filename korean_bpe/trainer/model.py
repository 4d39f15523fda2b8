"""The trained BPE model: special tokens, alphabet and ordered merges.  The vocabulary is derived.

>>> m = BPEModel(special_tokens=(), alphabet=tuple("bghnpsu"), merges=(("u", "g"), ("u", "n"), ("h", "ug")))
>>> m.vocab
{'b': 0, 'g': 1, 'h': 2, 'n': 3, 'p': 4, 's': 5, 'u': 6, 'ug': 7, 'un': 8, 'hug': 9}
>>> m.truncate(1).vocab_size
8
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

__all__ = ["BPEModel"]


@dataclass(frozen=True)
class BPEModel:
    """Ids: special tokens first, then the alphabet in the given order (the trainer sorts it by
    code point), then one id per merge result in merge order (a merge whose result already has an
    id adds none).  ``merges`` is a prefix-usable list: ``truncate(n)`` is the model of ``n`` merges.
    """

    special_tokens: tuple[str, ...]
    alphabet: tuple[str, ...]
    merges: tuple[tuple[str, str], ...]
    #: ``"##"`` when trained on WordPiece-style marked words: ``'##하' + '##다'`` gives ``'##하다'``
    #: (HF's rule: the right part loses its prefix); ``None``: a merge result is ``left + right``.
    continuing_subword_prefix: str | None = None

    def __post_init__(self) -> None:
        # Normalise lists to tuples so the model is hashable and immutable.
        object.__setattr__(self, "special_tokens", tuple(self.special_tokens))
        object.__setattr__(self, "alphabet", tuple(self.alphabet))
        object.__setattr__(self, "merges", tuple((a, b) for a, b in self.merges))

    def to_dict(self) -> dict[str, Any]:
        """The model as plain, JSON-ready data; :meth:`from_dict` reads it back.

        >>> m = BPEModel(special_tokens=("<unk>",), alphabet=("가", "다"), merges=(("가", "다"),))
        >>> m.to_dict()
        {'special_tokens': ['<unk>'], 'alphabet': ['가', '다'], 'merges': [['가', '다']], 'continuing_subword_prefix': None}
        >>> BPEModel.from_dict(m.to_dict()) == m
        True
        """
        return {"special_tokens": list(self.special_tokens), "alphabet": list(self.alphabet),
                "merges": [list(pair) for pair in self.merges],
                "continuing_subword_prefix": self.continuing_subword_prefix}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BPEModel:
        """The model of :meth:`to_dict`'s ``data`` (KeyError for a missing field, ValueError for a
        merge that is not a pair)."""
        merges = []
        for pair in data["merges"]:
            if len(pair) != 2:
                raise ValueError(f"a merge is a pair of tokens, got {pair!r}")
            merges.append((pair[0], pair[1]))
        return cls(special_tokens=tuple(data["special_tokens"]), alphabet=tuple(data["alphabet"]), merges=tuple(merges),
                   continuing_subword_prefix=data["continuing_subword_prefix"])

    @cached_property
    def id_to_token(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.special_tokens, *self.alphabet, *self.merged_tokens)))

    @cached_property
    def merged_tokens(self) -> tuple[str, ...]:
        """The token each merge makes (:meth:`merged_token`), in rank order."""
        prefix = self.continuing_subword_prefix
        if not prefix:
            return tuple(a + b for a, b in self.merges)
        return tuple(self.merged_token(a, b) for a, b in self.merges)

    def merged_token(self, left: str, right: str) -> str:
        """The token a merge produces: ``left + right``, without ``right``'s continuing prefix.

        >>> BPEModel((), (), (), continuing_subword_prefix="##").merged_token("##하", "##다")
        '##하다'
        """
        prefix = self.continuing_subword_prefix
        if prefix and right.startswith(prefix):
            return left + right[len(prefix):]
        return left + right

    @cached_property
    def vocab(self) -> dict[str, int]:
        """token -> id."""
        return {tok: i for i, tok in enumerate(self.id_to_token)}

    @cached_property
    def ranks(self) -> dict[tuple[str, str], int]:
        """(left, right) -> merge rank (0 is applied first)."""
        return {pair: rank for rank, pair in enumerate(self.merges)}

    @property
    def vocab_size(self) -> int:
        return len(self.id_to_token)

    def truncate(self, num_merges: int) -> BPEModel:
        """The model after the first ``num_merges`` merges (same alphabet and special tokens)."""
        if num_merges < 0:
            raise ValueError(f"num_merges must be >= 0, got {num_merges}")
        return BPEModel(
            special_tokens=self.special_tokens, alphabet=self.alphabet, merges=self.merges[:num_merges],
            continuing_subword_prefix=self.continuing_subword_prefix,
        )
