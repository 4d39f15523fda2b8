"""``kiwi``: the Kiwi morpheme analyzer (kiwipiepy) as a pre-tokenizer.

>>> kiwi = KiwiPreTokenizer()
>>> kiwi("스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함")
['스파이더맨', '슈퍼맨', '배트맨', '아이언맨', '올해', '최고', '영화', '아닐까', '생각', '함']
>>> kiwi("어제 IMAX 봤는데 ㅋㅋ 개쩔어!")
['어제', 'IMAX', '봤', '는데', 'ㅋㅋ', '개', '쩔', '어']

Words are surfaces, never Kiwi's morpheme forms: Kiwi analyses ``봤`` as ``보/VV + 었/EP`` on the
same character, so the two are one word ``봤``; ``아닐까`` is one word because ``아니/VCN`` covers
``아닐`` and ``ㄹ까/EC`` covers ``닐까``; ``함`` (``하/XSV + ㅁ/EF``) likewise.

Default ``drop=("Josa", "Punctuation", "Foreign")`` in Kiwi's tags (Sejong tag set):

=============== ====================================================================
``Josa``        JKS JKC JKG JKO JKB JKV JKQ JX JC
``Punctuation`` SF SP SS SSO SSC SE SO SW (SW: symbols and non-Korean scripts)
``Foreign``     SH (Hanja), W_EMOJI
kept            SL (Latin, as Okt keeps Alpha: ``MCU``), SN, SW_JAMO (``ㅋㅋ``, ``ㅠㅠ``), W_URL ...
=============== ====================================================================

``SW_JAMO`` is this pre-tokenizer's name for a Kiwi ``SW`` morpheme made only of compatibility
jamo (Okt's ``KoreanParticle``); the full rules are in :mod:`korean_bpe.pre_tokenizers._sejong`.

Lossless mode keeps every character and restores the text:

>>> lossless = KiwiPreTokenizer(lossless=True)
>>> lossless("아이언맨은 올해 봤다!!")
['아이언맨', '은', '▁올해', '▁봤', '다', '!!']
>>> lossless.restore(lossless("아이언맨은 올해 봤다!!"))
'아이언맨은 올해 봤다!!'

``batch`` hands the texts to Kiwi in one call (Kiwi spreads them over its worker threads); the
result equals the per-text one.  kiwipiepy is imported, and its model loaded (about 2 s), by the
first call, once per process.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from .._optional import require
from ._analyzer import ProcessWide
from ._sejong import JOSA_TAGS, SejongPreTokenizer
from .base import PRE_TOKENIZERS

__all__ = ["KiwiPreTokenizer", "KIWI_TAGS", "KIWI_GROUPS"]

#: kiwipiepy's tags (``kiwipiepy.utils._valid_tags``) plus the pseudo-tag ``SW_JAMO``
KIWI_TAGS: frozenset[str] = frozenset(
    """NNG NNP NNB NR NP VV VA VX VCP VCN MM MAG MAJ IC JKS JKC JKG JKO JKB JKV JKQ JX JC
    EP EF EC ETN ETM XPN XSN XSV XSA XSM XR SF SP SS SSO SSC SE SO SW SB SL SH SN UN
    W_URL W_EMAIL W_HASHTAG W_MENTION W_SERIAL W_EMOJI Z_CODA Z_SIOT
    USER0 USER1 USER2 USER3 USER4 SW_JAMO""".split()
)

KIWI_GROUPS: dict[str, tuple[str, ...]] = {
    "Josa": JOSA_TAGS,
    "Punctuation": ("SF", "SP", "SS", "SSO", "SSC", "SE", "SO", "SW"),
    "Foreign": ("SH", "W_EMOJI"),
}

_COMPAT_JAMO_RUN = re.compile("[\u3131-\u318e]+")

#: the process-wide ``kiwipiepy.Kiwi`` (loaded once; Kiwi is thread-safe for analysis)
_kiwi = ProcessWide(lambda: require("kiwipiepy").Kiwi())
_get_kiwi = _kiwi.get


def _spans(text: str, tokens: Iterable[Any]) -> list[tuple[int, int, str]]:
    out = []
    for tok in tokens:
        start, end, tag = tok.start, tok.end, tok.tag
        if tag == "SW" and _COMPAT_JAMO_RUN.fullmatch(text, start, end):
            tag = "SW_JAMO"
        out.append((start, end, tag))
    return out


@PRE_TOKENIZERS.register("kiwi")
class KiwiPreTokenizer(SejongPreTokenizer):
    """Kiwi (kiwipiepy) morphemes as words; see the module docstring.

    Options (keyword-only): ``drop`` (generic names and/or Kiwi tags; ``None`` means
    ``("Josa", "Punctuation", "Foreign")``, or ``()`` when ``lossless``), ``lossless``.
    """

    name = "kiwi"
    analyzer = "Kiwi"
    GROUPS = KIWI_GROUPS
    TAGS = KIWI_TAGS
    DISTRIBUTIONS = ("kiwipiepy", "kiwipiepy_model")

    def _morphemes(self, text: str) -> list[tuple[int, int, str]]:
        return _spans(text, _get_kiwi().tokenize(text))

    def _morphemes_many(self, texts: list[str]) -> Iterator[list[tuple[int, int, str]]]:
        if not texts:
            return iter(())
        results = _get_kiwi().tokenize(texts)
        return (_spans(t, toks) for t, toks in zip(texts, results))
