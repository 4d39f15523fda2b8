"""What the Sejong-tag analyzers (``kiwi``, ``mecab``) share: the ``drop`` option, morpheme spans
merged into words, NFD input, lossless pieces.

Okt's three classic drop classes expressed in Sejong tags
---------------------------------------------------------
Okt tags ASCII punctuation ``Punctuation``, every other non-Hangul, non-Latin, non-digit character
(emoji, Hanja, ``♥``, ``『``, kana, Cyrillic, ``①``) ``Foreign``, Latin ``Alpha`` and runs of
compatibility jamo (``ㅋㅋ``, ``ㅠㅠ``, ``ㄹㅇ``) ``KoreanParticle``; the classic pre-processing drops
``Josa``, ``Punctuation`` and ``Foreign`` and keeps Latin (``MCU``), numbers and ``ㅋㅋ``.  The same
spirit in each analyzer's own tags:

=============== ===================================== =========================================
generic name    Kiwi (kiwipiepy)                      MeCab (mecab-ko-dic)
=============== ===================================== =========================================
``Josa``        JKS JKC JKG JKO JKB JKV JKQ JX JC     JKS JKC JKG JKO JKB JKV JKQ JX JC
``Punctuation`` SF SP SS SSO SSC SE SO SW             SF SP SSO SSC SC SE SY
``Foreign``     SH W_EMOJI                            SH
kept            SL (Latin), SN (numbers), SW_JAMO     SL, SN, IC (``ㅋㅋ``), UNKNOWN (``ㅠㅠ``)
=============== ===================================== =========================================

* Latin (``SL``) is kept, as Okt keeps ``Alpha``: ``MCU``, ``IMAX`` survive.  MeCab also tags kana
  and Cyrillic ``SL``, so they are kept by MeCab (Okt drops them as ``Foreign``).
* Kiwi tags symbols, other scripts *and* runs of compatibility jamo ``SW``.  This pre-tokenizer
  reports a Kiwi ``SW`` morpheme made only of compatibility jamo (U+3131..U+318E) with the
  pseudo-tag ``SW_JAMO`` (Okt's ``KoreanParticle``), so the default keeps ``ㅋㅋ`` and ``ㅠㅠ``;
  add ``"SW_JAMO"`` to ``drop`` to remove them too.
* MeCab emoji are ``SY`` (dropped with ``Punctuation``; Okt drops them as ``Foreign``).  MeCab
  knows common Hanja words as nouns (``漢字`` -> NNG), which are then kept.

``drop`` takes generic names (``"Josa"``, ``"Punctuation"``, ``"Foreign"``, any case) and/or the
analyzer's own tags (``"JKS"``, ``"SF"``); the config stores the expanded, sorted tag list, so a
saved config means the same thing even if this table changes.  A morpheme whose tag is compound
(MeCab ``NP+JX`` for ``난``) or irregular (Kiwi ``VV-I``) is dropped only when *every* part is.

Words are surfaces
------------------
A word is always a substring of the input: Kiwi reports morpheme *forms* (``했`` -> ``하/VV`` +
``었/EP``, both on the span of ``했``), so morphemes whose spans overlap are merged into one word
(``아닐까``, ``함``), exactly as Okt's default (``stem=False``) gives surfaces.  A merged word is
dropped only when all its morphemes are (``난`` = ``나/NP`` + ``ㄴ/JX`` stays).

A word never holds white space, in any mode: Kiwi has multi-word proper nouns (``미션 임파서블``
is one ``NNP`` morpheme), and such a morpheme becomes one word per run of non-white-space
characters (``미션``, ``임파서블``; lossless: ``미션``, ``▁임파서블``), see :func:`split_white_space`.

Text in NFD (conjoining jamo) is analysed in its composed form (see :func:`korean_bpe.jamo.compose`)
so the analyzer sees syllables; offsets are mapped back, and words are slices of the original.

Lossless mode (``lossless=True``, which needs ``drop=()``) keeps every character: the merged spans
go through :func:`~korean_bpe.pre_tokenizers.base.pieces_from_spans` (spaces become ``▁`` glued to
the next piece, line breaks are pieces of their own), so ``restore(pt(text)) == text`` for every
text without ``▁`` (U+2581) in it, as for ``raw``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..jamo import compose, decompose_syllable
from ..progress import Progress, start_progress
from ..tokens import SURROGATE, UNWRITABLE  # lone surrogates (analysers refuse them); a space or line break
from .base import BasePreTokenizer, pieces_from_spans, raw_pieces, restore_marked

__all__ = [
    "GENERIC_NAMES", "JOSA_TAGS", "SejongPreTokenizer", "resolve_drop", "merge_spans",
    "compose_with_offsets", "split_white_space", "prepare_text", "WHITE_SPACE",
]

GENERIC_NAMES: tuple[str, ...] = ("Josa", "Punctuation", "Foreign")
#: the Sejong josa (particle) tags, the same in Kiwi and mecab-ko-dic
JOSA_TAGS: tuple[str, ...] = ("JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ", "JX", "JC")

#: one white-space character (those of ``str.isspace()``: spaces, tabs, line breaks, U+3000, ...)
WHITE_SPACE = re.compile(r"\s")
_NOT_WHITE_RUN = re.compile(r"\S+")
_LEADING_JAMO = re.compile("[\u1100-\u1112]")  # compose() changes nothing without one
#: batches at least this long show a progress bar when ``show_progress`` is None (in a terminal)
PROGRESS_MIN = 2000
#: (drop set, tag) -> keep?  A few hundred entries at most (frozenset hashes are cached).
_KEEP: dict[tuple[frozenset[str], str], bool] = {}


def resolve_drop(
    drop: str | Iterable[str], *, groups: Mapping[str, Sequence[str]], tags: frozenset[str], analyzer: str
) -> tuple[str, ...]:
    """Expand generic names to tags, check every tag, return them sorted and unique.

    >>> resolve_drop(["josa", "SF"], groups={"Josa": ("JKS", "JX")}, tags=frozenset({"JKS", "JX", "SF"}), analyzer="X")
    ('JKS', 'JX', 'SF')
    """
    if isinstance(drop, str):
        drop = (drop,)
    try:
        items = list(drop)
    except TypeError:
        raise TypeError(f"drop must be an iterable of names or tags, e.g. drop=('Josa', 'SF'); got {drop!r}") from None
    by_lower = {k.lower(): k for k in groups}
    out: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"drop must hold strings (names or tags); got {item!r} in drop={items!r}")
        if item.lower() in by_lower:
            out.update(groups[by_lower[item.lower()]])
        elif item.upper() in tags:
            out.add(item.upper())
        else:
            raise ValueError(
                f"drop={items!r}: {item!r} is neither a group ({', '.join(groups)}) nor a {analyzer} tag "
                f"({' '.join(sorted(tags))})"
            )
    return tuple(sorted(out))


def merge_spans(
    morphemes: Iterable[tuple[int, int, str]], drop: frozenset[str]
) -> list[tuple[int, int, bool]]:
    """Merge morphemes whose spans overlap into words: ``(start, end, keep)``, sorted.

    ``keep`` is False only when every morpheme of the word has a dropped tag.  Spans that merely
    touch stay apart; empty spans are ignored.

    >>> merge_spans([(0, 2, "VCN"), (1, 3, "EC"), (3, 4, "JX")], frozenset({"JX"}))
    [(0, 3, True), (3, 4, False)]
    """
    words: list[list[Any]] = []
    for start, end, tag in sorted(morphemes):
        if end <= start:
            continue
        keep = _KEEP.get((drop, tag))
        if keep is None:
            keep = _KEEP[drop, tag] = not all(p.split("-")[0] in drop for p in tag.split("+"))
        if words and start < words[-1][1]:
            last = words[-1]
            if end > last[1]:
                last[1] = end
            last[2] = last[2] or keep
        else:
            words.append([start, end, keep])
    return [(s, e, k) for s, e, k in words]


def split_white_space(text: str, spans: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """Cut every span that holds white space into its runs of non-white-space characters.

    Kiwi knows multi-word proper nouns (``미션 임파서블``/NNP, one morpheme over a space); a word
    must never hold white space (``merges.txt`` is space-separated), so such a morpheme becomes
    one word per run: ``미션``, ``임파서블`` (``미션``, ``▁임파서블`` in lossless mode).

    >>> split_white_space("미션 임파서블 봤다", [(0, 7, True), (8, 9, True)])
    [(0, 2, True), (3, 7, True), (8, 9, True)]
    """
    out: list[tuple[int, int, bool]] = []
    search = WHITE_SPACE.search
    for s, e, k in spans:
        if search(text, s, e) is None:
            out.append((s, e, k))
        else:
            out.extend((m.start(), m.end(), k) for m in _NOT_WHITE_RUN.finditer(text, s, e))
    return out


def compose_with_offsets(text: str) -> tuple[str, list[int] | None]:
    """``compose(text)`` and, when it differs, the map from its offsets to offsets of ``text``.

    >>> c, m = compose_with_offsets("\u1112\u1161\u11ab글")
    >>> c, m
    ('한글', [0, 3, 4])
    >>> compose_with_offsets("한글")
    ('한글', None)
    >>> compose_with_offsets("가\u11a8\u1112\u119e\u11ab")  # an LV syllable + T: two characters, not three
    ('각ᄒᆞᆫ', [0, 2, 3, 4, 5])
    """
    if not _LEADING_JAMO.search(text):
        return text, None
    composed = compose(text)
    if composed == text:
        return text, None
    offsets = [0] * (len(composed) + 1)
    j = 0
    for i, ch in enumerate(composed):
        offsets[i] = j
        if ch == text[j]:
            j += 1
        elif len(decompose_syllable(text[j])) == 2:  # an LV syllable and a trailing jamo joined
            j += 2
        else:  # a syllable made from 2 or 3 conjoining jamo
            j += len(decompose_syllable(ch))
    offsets[len(composed)] = j
    return composed, offsets


def prepare_text(text: str) -> tuple[str, list[int] | None]:
    """The text the analyzer sees: composed Hangul, lone surrogates as U+FFFD (same length)."""
    composed, offsets = compose_with_offsets(text)
    if SURROGATE.search(composed):
        composed = SURROGATE.sub("\ufffd", composed)
    return composed, offsets


class SejongPreTokenizer(BasePreTokenizer):
    """Base of the ``kiwi`` and ``mecab`` pre-tokenizers (see the module docstring)."""

    analyzer: str = ""
    #: generic name -> the analyzer's tags
    GROUPS: Mapping[str, tuple[str, ...]] = {}
    #: every tag the analyzer (plus our pseudo-tags) can emit
    TAGS: frozenset[str] = frozenset()
    #: distributions whose versions make up ``analyzer_version``
    DISTRIBUTIONS: tuple[str, ...] = ()

    def __init__(self, *, drop: str | Iterable[str] | None = None, lossless: bool = False) -> None:
        if not isinstance(lossless, bool):
            raise TypeError(f"lossless must be True or False, got {lossless!r}")
        if drop is None:
            drop = () if lossless else GENERIC_NAMES
        self.drop: tuple[str, ...] = resolve_drop(drop, groups=self.GROUPS, tags=self.TAGS, analyzer=self.analyzer)
        if lossless and self.drop:
            raise ValueError(
                f"lossless=True keeps every morpheme, but drop={list(self.drop)!r} was given: "
                f"use get_pre_tokenizer({self.name!r}, lossless=True) (drop=()) or lossless=False"
            )
        self.lossless = lossless
        self._drop_set = frozenset(self.drop)

    # -- the analyzer, implemented by subclasses -------------------------------------------
    def _morphemes(self, text: str) -> list[tuple[int, int, str]]:  # pragma: no cover - abstract
        """``(start, end, tag)`` of every morpheme of ``text`` (already composed)."""
        raise NotImplementedError

    def _morphemes_many(self, texts: list[str]) -> Iterator[list[tuple[int, int, str]]]:
        return (self._morphemes(t) for t in texts)

    def _spans_many(self, texts: list[str]) -> Iterator[list[tuple[int, int]]]:
        """``(start, end)`` of every morpheme of each (composed) text, as the analyzer gives them."""
        return ([(s, e) for s, e, _ in morphemes] for morphemes in self._morphemes_many(texts))

    def morpheme_spans(self, texts: Iterable[str]) -> list[list[tuple[int, int]]]:
        """``(start, end)`` of every morpheme of each text: character offsets of the text (NFD
        text mapped back, as for the words), sorted, empty spans left out, nothing dropped.
        Morphemes whose spans overlap stay apart (Kiwi gives ``했`` as ``하`` + ``었``, both on
        its span); MeCab cuts an inflected token into its morphemes
        (:func:`korean_bpe.pre_tokenizers.mecab.fused_spans`).  ``korean_bpe.compare`` reads its
        gold morpheme boundaries here."""
        texts = list(texts)
        prepared = [prepare_text(t) for t in texts]
        todo = [i for i, t in enumerate(texts) if t]
        out: list[list[tuple[int, int]]] = [[] for _ in texts]
        for i, spans in zip(todo, self._spans_many([prepared[i][0] for i in todo])):
            offsets = prepared[i][1]
            out[i] = sorted({(s, e) if offsets is None else (offsets[s], offsets[e]) for s, e in spans if s < e})
        return out

    # -- shared --------------------------------------------------------------------------
    @property
    def analyzer_version(self) -> str:
        """The analyzer's package versions (part of cache keys), read without loading it."""
        from importlib.metadata import PackageNotFoundError, version

        parts = []
        for dist in self.DISTRIBUTIONS:
            try:
                parts.append(f"{dist} {version(dist)}")
            except PackageNotFoundError:
                parts.append(f"{dist} (not installed)")
        return "; ".join(parts)

    def _words(self, text: str, offsets: list[int] | None, morphemes: list[tuple[int, int, str]]) -> list[str]:
        spans = merge_spans(morphemes, self._drop_set)
        if offsets is not None:
            spans = [(offsets[s], offsets[e], k) for s, e, k in spans]
        spans = split_white_space(text, spans)
        if not self.lossless:
            return [w for s, e, keep in spans if keep and not (w := text[s:e]).isspace()]
        pieces = pieces_from_spans(text, [(s, e) for s, e, _ in spans])
        if any(UNWRITABLE.search(p) for p in pieces):  # a morpheme spanning a space or line break
            pieces = [q for p in pieces for q in (raw_pieces(p) if UNWRITABLE.search(p) else (p,))]
        return pieces

    def pos(self, text: str) -> list[tuple[str, str]]:
        """``(surface, tag)`` of every morpheme of ``text``, nothing dropped (the analyzer sees
        the text composed; the surfaces are slices of ``text``, so NFD stays NFD; an irregular
        form's morphemes may overlap).  See ``KiwiPreTokenizer().pos("돈날림ㅠㅠ!!")``."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        composed, offsets = prepare_text(text)
        morphemes = self._morphemes(composed) if composed else []
        if offsets is not None:
            morphemes = [(offsets[s], offsets[e], tag) for s, e, tag in morphemes]
        return [(text[s:e], tag) for s, e, tag in morphemes]

    def __call__(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not text:
            return []
        composed, offsets = prepare_text(text)
        return self._words(text, offsets, self._morphemes(composed))

    def batch(self, texts: Iterable[str], *, show_progress: bool | Progress | None = None) -> list[list[str]]:
        """``[self(t) for t in texts]`` in one analyzer pass; ``show_progress``: a tqdm bar on
        stderr (None: only for batches of 2,000 texts or more when stderr is a terminal), or a
        :class:`korean_bpe.progress.Progress`."""
        texts = list(texts)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"texts must hold str, got {type(t).__name__}: {t!r}")
        prepared = [prepare_text(t) for t in texts]
        todo = [i for i, t in enumerate(texts) if t]
        out: list[list[str]] = [[] for _ in texts]
        results = self._morphemes_many([prepared[i][0] for i in todo])
        progress = start_progress(show_progress, total=len(todo), desc=self.name, unit="text", min_total=PROGRESS_MIN)
        try:
            for i, morphemes in zip(todo, results):
                out[i] = self._words(texts[i], prepared[i][1], morphemes)
                progress.update(1)
        finally:
            progress.close()
        return out

    def restore(self, words: Sequence[str]) -> str:
        """Lossless mode: the exact text; analysis mode: the words joined by one space."""
        return restore_marked(words) if self.lossless else " ".join(words)

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name, "drop": list(self.drop), "lossless": self.lossless}

    def __repr__(self) -> str:
        """Whole groups shown by name: ``KiwiPreTokenizer(drop=('Josa', 'Punctuation', 'Foreign'), lossless=False)``."""
        rest = set(self.drop)
        names: list[str] = []
        for name, tags in self.GROUPS.items():
            if set(tags) <= rest:
                names.append(name)
                rest -= set(tags)
        return f"{type(self).__name__}(drop={(*names, *sorted(rest))!r}, lossless={self.lossless!r})"
