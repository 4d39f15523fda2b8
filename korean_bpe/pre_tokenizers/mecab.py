"""``mecab``: MeCab with the mecab-ko-dic dictionary (python-mecab-ko) as a pre-tokenizer.

>>> mecab = MecabPreTokenizer()
>>> mecab("스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함")
['스파이더맨', '슈퍼맨', '배트맨', '아이언맨', '올해', '최고', '영화', '아닐까', '생각', '함']

MeCab's morphemes are substrings of the text (with character offsets); an inflected form the
dictionary stores whole keeps a compound tag (``아닐까`` is ``VCN+EC``, ``함`` is ``XSA+ETN``) and
stays one word.  Default ``drop=("Josa", "Punctuation", "Foreign")`` in mecab-ko-dic's tags:

=============== ====================================================================
``Josa``        JKS JKC JKG JKO JKB JKV JKQ JX JC
``Punctuation`` SF SP SSO SSC SC SE SY (SY: other symbols, emoji included)
``Foreign``     SH (Hanja the dictionary does not know as a word)
kept            SL (Latin, as Okt keeps Alpha: ``MCU``), SN, IC (``ㅋㅋ``), UNKNOWN (``ㅠㅠ``)
=============== ====================================================================

A compound tag is dropped only when every part is: ``난`` (``NP+JX``) stays.  See
:mod:`korean_bpe.pre_tokenizers._sejong` for the full rules, shared with ``kiwi``.

Lossless mode keeps every character and restores the text:

>>> lossless = MecabPreTokenizer(lossless=True)
>>> lossless("아이언맨은 올해 봤다!!")
['아이언맨', '은', '▁올해', '▁봤', '다', '!', '!']
>>> lossless.restore(lossless("아이언맨은 올해 봤다!!"))
'아이언맨은 올해 봤다!!'

MeCab is fast (tens of thousands of short texts a second), so ``batch`` is a plain loop over the
texts in this process; python-mecab-ko is imported, and the dictionary opened, by the first call.
"""

from __future__ import annotations


from .._optional import require
from ._analyzer import ProcessWide
from ._sejong import JOSA_TAGS, SejongPreTokenizer
from .base import PRE_TOKENIZERS

__all__ = ["MecabPreTokenizer", "MECAB_TAGS", "MECAB_GROUPS"]

#: mecab-ko-dic's tags (its ``pos-id.def``); compound tags join these with ``+``
MECAB_TAGS: frozenset[str] = frozenset(
    """NNG NNP NNB NNBC NR NP VV VA VX VCP VCN MM MAG MAJ IC JKS JKC JKG JKO JKB JKV JKQ JX JC
    EP EF EC ETN ETM XPN XSN XSV XSA XR SF SP SSO SSC SC SE SY SL SH SN UNKNOWN""".split()
)

MECAB_GROUPS: dict[str, tuple[str, ...]] = {
    "Josa": JOSA_TAGS,
    "Punctuation": ("SF", "SP", "SSO", "SSC", "SC", "SE", "SY"),
    "Foreign": ("SH",),
}

#: the process-wide ``mecab.MeCab()`` (opened once)
_tagger = ProcessWide(lambda: require("mecab").MeCab())
_get_tagger = _tagger.get


@PRE_TOKENIZERS.register("mecab")
class MecabPreTokenizer(SejongPreTokenizer):
    """MeCab-ko (python-mecab-ko + mecab-ko-dic) morphemes as words; see the module docstring.

    Options (keyword-only): ``drop`` (generic names and/or mecab-ko-dic tags; ``None`` means
    ``("Josa", "Punctuation", "Foreign")``, or ``()`` when ``lossless``), ``lossless``.
    """

    name = "mecab"
    analyzer = "MeCab"
    GROUPS = MECAB_GROUPS
    TAGS = MECAB_TAGS
    DISTRIBUTIONS = ("python-mecab-ko", "python-mecab-ko-dic")

    def _morphemes(self, text: str) -> list[tuple[int, int, str]]:
        return [(s, e, tag) for s, e, tag, _ in self._tokens(text)]

    def _tokens(self, text: str) -> list[tuple[int, int, str, str]]:
        """``(start, end, tag, expression)`` of MeCab's tokens of ``text``: ``expression`` is the
        morphemes of an inflected token (``Inflect``/``Preanalysis``: ``했었`` is ``하/VV/*+았었/EP/*``),
        ``""`` for the others (compound nouns, ``영화관`` = ``영화/NNG/*+관/NNG/*``, included)."""
        if "\x00" in text:  # MeCab reads a C string: it would stop at the first NUL
            text = text.replace("\x00", " ")
        return [(m.span.start, m.span.end, m.feature.pos,
                 (m.feature.expression or "") if m.feature.type in ("Inflect", "Preanalysis") else "")
                for m in _get_tagger().parse(text)]
