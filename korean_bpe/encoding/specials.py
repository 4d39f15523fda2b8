"""The special-token policy: text never becomes a special token.

Training never makes one by merging (a run of symbols that spells one is cut, see
:func:`korean_bpe.trainer.api.cut_special_runs`), and ``encode`` refuses a text that spells one
(``"<unk>"``, or ``"<0x41>"`` with byte fallback), as tiktoken does, with a
:class:`SpecialTokenTextError` naming the token and the fixes.  ``disallowed_special=()`` encodes
such text as ordinary text.  Unlike tiktoken there is no ``allowed_special``: put special ids
around encoded text yourself.

>>> policy = SpecialTokens(("<unk>", "<pad>"))
>>> policy.check("영화 재밌다", "all") is None
True
>>> policy.check("영화 <pad>", "all")
Traceback (most recent call last):
...
korean_bpe.encoding.specials.SpecialTokenTextError: the text holds '<pad>', the text of a special token, at offset 3; encode never turns text into a special token. To encode it as ordinary text, pass disallowed_special=() (every special token's text), or disallowed_special=tok.special_tokens_set - {'<pad>'} (this one only); for the special token itself, add its id, tok.token_to_id('<pad>'), to the ids yourself
>>> policy.check("영화 <pad>", {"<unk>"}) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Literal, NamedTuple

__all__ = ["SpecialTokenTextError", "SpecialTokens", "Disallowed"]

#: what ``encode(..., disallowed_special=...)`` takes: ``"all"`` or a collection of special tokens
Disallowed = Literal["all"] | Collection[str]


class SpecialTokenTextError(ValueError):
    """``encode`` was given a text that spells a disallowed special token; ``token`` and
    ``offset`` (in the text) say which and where."""

    def __init__(self, message: str, *, token: str, offset: int) -> None:
        super().__init__(message)
        self.token = token
        self.offset = offset


class SpecialTokens:
    """The special tokens whose text ``encode`` refuses (a model's, byte tokens included), with
    one compiled search per ``disallowed_special`` value, made on first use."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = frozenset(tokens)
        #: no token holds the joiner, so :meth:`check_all` may search the texts joined by it
        self._joinable = not any(_JOINER in t for t in self.tokens)
        self._searches: dict[frozenset[str], _Search | None] = {}

    def regex(self, disallowed: Any) -> re.Pattern[str] | None:
        """The search for ``disallowed``'s text (None: nothing to look for); refuses a bad value."""
        search = self._search(disallowed)
        return None if search is None else search.regex

    def _search(self, disallowed: Any) -> _Search | None:
        """:meth:`regex` and its tokens' first characters, made once per ``disallowed`` value."""
        if disallowed == "all":
            key = self.tokens
        elif isinstance(disallowed, str) or not isinstance(disallowed, Iterable):
            raise TypeError(f"disallowed_special must be 'all' or a collection of special tokens such as "
                            f"('<unk>',), got {disallowed!r}")
        else:
            key = frozenset(disallowed)
        try:
            return self._searches[key]
        except KeyError:
            pass
        unknown = sorted(key - self.tokens)
        if unknown:
            raise ValueError(f"disallowed_special holds {unknown[0]!r}, which is not a special token of this tokenizer; "
                             f"its special tokens are tok.special_tokens_set ({len(self.tokens)} tokens)")
        search = None
        if key:  # an empty token's first character is "": always searched
            search = _Search(re.compile("|".join(map(re.escape, sorted(key, key=len, reverse=True)))),
                             sorted({t[:1] for t in key}))
        self._searches[key] = search
        return search

    def check(self, text: str, disallowed: Any) -> None:
        """Raise :class:`SpecialTokenTextError` when ``text`` spells a disallowed special token."""
        regex = self.regex(disallowed)
        if regex is not None:
            _refuse(regex.search(text), "the text")

    def check_all(self, texts: Sequence[str], disallowed: Any) -> None:
        """:meth:`check` for every text; the error names the text by its index.  Many texts are
        searched as one string, joined by a character no disallowed token holds (a search call
        per text costs more than the search), then text by text only when that finds one.  The
        joined texts are first searched for the tokens' first characters alone (``str``'s own
        search, several times the regular expression's speed): most batches hold none."""
        found = self._search(disallowed)
        if found is None:
            return
        if len(texts) > 16 and self._joinable:
            joined = _JOINER.join(texts)
            if not any(c in joined for c in found.firsts) or found.regex.search(joined) is None:
                return
        search = found.regex.search
        for k, text in enumerate(texts):
            _refuse(search(text), f"texts[{k}]")


class _Search(NamedTuple):
    """One ``disallowed_special`` value's search: the regular expression, and the first
    characters of its tokens (what :meth:`SpecialTokens.check_all` looks for first)."""

    regex: re.Pattern[str]
    firsts: list[str]


#: joins the texts :meth:`SpecialTokens.check_all` searches at once (a special token holding it is
#: searched for text by text)
_JOINER = "\x00"


def _refuse(found: re.Match[str] | None, where: str) -> None:
    if found is None:
        return
    token = found.group()
    raise SpecialTokenTextError(
        f"{where} holds {token!r}, the text of a special token, at offset {found.start()}; encode never turns text "
        f"into a special token. To encode it as ordinary text, pass disallowed_special=() (every special token's "
        f"text), or disallowed_special=tok.special_tokens_set - {{{token!r}}} (this one only); for the special "
        f"token itself, add its id, tok.token_to_id({token!r}), to the ids yourself",
        token=token, offset=found.start(),
    )
