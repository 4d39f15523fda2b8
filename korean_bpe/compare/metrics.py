"""Pure metric functions over token counts and token sequences (no training, no I/O).

Every function takes plain numbers or lists and returns a float; an empty denominator gives
``nan`` (not an error), so a table can hold a strategy that had nothing to measure.

>>> fertility(n_tokens=7, n_words=4)
1.75
>>> chars_per_token(n_chars=21, n_tokens=7)
3.0
>>> unk_rate([[5, 0, 9], [0]], unk_ids={0})
0.5
>>> whole_word_rate([["▁영화"], ["▁재밌", "다"], ["▁정말"]])
0.6666666666666666
>>> round_trip_rate(["영화 정말 재밌다", "굿"], ["영화 정말 재밌다", "<unk>"])
0.5

Morpheme boundaries, one rule for every strategy and for the gold analyzer: the boundaries of a
segmentation are the character-offset *ends* of its token (or morpheme) spans that fall strictly
inside an 어절 (a white-space word), where a span that covers part of a character covers that whole
character.  Kiwi analyses 갔다 as 가/VV (0, 1) + 었/EP (0, 1) + 다/EF (1, 2): one boundary, at 1.

>>> words = word_spans("학교에 갔다")
>>> words
[(0, 3), (4, 6)]
>>> gold = internal_boundaries([(0, 2), (2, 3), (4, 5), (4, 5), (5, 6)], words)  # 학교|에 가+었|다
>>> predicted = internal_boundaries([(0, 3), (4, 5), (5, 6)], words)            # 학교에 | 갔|다
>>> gold, predicted
([frozenset({2}), frozenset({5})], [frozenset(), frozenset({5})])
>>> boundary_scores(predicted, gold)
(1.0, 0.5, 0.6666666666666666)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from ..jamo import compose

__all__ = [
    "ratio", "fertility", "chars_per_token", "unk_rate", "whole_word_rate", "round_trip_rate", "throughput",
    "split_indices", "bytes_per_token", "continued_word_rate", "unrepresentable_char_rate",
    "renyi_efficiency", "word_spans", "internal_boundaries", "boundary_scores", "incomplete_hangul_rate",
    "partial_char_end_rate", "residue_rate", "single_token_retention",
    "jamo_token_rate", "probe_accuracy", "probe_predictions", "RENYI_ALPHA", "token_edit_distance",
    "token_stability",
]

#: Rényi order of :func:`renyi_efficiency` (Zouhar et al. 2023's best correlate of BLEU)
RENYI_ALPHA = 2.5


def ratio(num: float, den: float) -> float:
    """``num / den``, NaN for a zero denominator (a rate of nothing is not 0).

    >>> ratio(1, 4), ratio(3, 0)
    (0.25, nan)
    """
    return num / den if den else math.nan


def fertility(*, n_tokens: int, n_words: int) -> float:
    """Tokens per word (words: white-space separated 어절 of the original text); lower is better."""
    return ratio(n_tokens, n_words)


def chars_per_token(*, n_chars: int, n_tokens: int) -> float:
    """Characters of the original text per token; higher means more compression."""
    return ratio(n_chars, n_tokens)


def unk_rate(encoded: Iterable[Sequence[int]], *, unk_ids: Collection[int]) -> float:
    """Share of all tokens whose id is in ``unk_ids``.

    >>> unk_rate([[1, 2], [3]], unk_ids={0})
    0.0
    """
    total = unknown = 0
    for ids in encoded:
        total += len(ids)
        unknown += sum(1 for i in ids if i in unk_ids)
    return ratio(unknown, total)


def token_edit_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """The Levenshtein distance between two token-id sequences: the fewest insertions, deletions
    and substitutions of one token that turn ``a`` into ``b`` (an int, not a float).

    Their common prefix and suffix are cut first (a perturbation changes a few tokens in the
    middle), then the rest is Myers' bit-parallel algorithm (Hyyrö's form, 2001): one pass over
    ``b`` with ``a`` held as the bits of a Python int, ~15 int operations a token of ``b`` whatever
    ``a``'s length (~5 us for two 20-token documents that differ at one point).

    >>> token_edit_distance([5, 7, 9, 2], [5, 8, 9, 2, 4])   # 7 -> 8, insert 4
    2
    >>> token_edit_distance([], [1, 2]), token_edit_distance([3, 3], [3, 3])
    (2, 0)
    """
    lo, hi_a, hi_b = 0, len(a), len(b)
    while lo < hi_a and lo < hi_b and a[lo] == b[lo]:
        lo += 1
    while hi_a > lo and hi_b > lo and a[hi_a - 1] == b[hi_b - 1]:
        hi_a, hi_b = hi_a - 1, hi_b - 1
    m = hi_a - lo
    if m == 0 or hi_b == lo:
        return max(m, hi_b - lo)
    peq: dict[int, int] = {}  # token -> the bits of its positions in a[lo:hi_a]
    for k in range(m):
        peq[a[lo + k]] = peq.get(a[lo + k], 0) | (1 << k)
    full, top = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = full, 0, m  # vertical +1 / -1 deltas of the DP column; the last cell
    for k in range(lo, hi_b):
        eq = peq.get(b[k], 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & full  # the first row of the DP grows by one each column: a +1 shifted in
        mh = (mh << 1) & full
        pv = mh | (~(xv | ph) & full)
        mv = ph & xv
    return score


def token_stability(clean: Sequence[int], noisy: Sequence[int]) -> float:
    """How much of the clean token sequence survives: ``1 - token_edit_distance(clean, noisy) /
    max(len(clean), len(noisy))``, 1.0 for two empty sequences (0/0 counts as no distance).

    >>> token_stability([5, 7, 9, 2], [5, 8, 9, 2, 4])   # 1 - 2/5
    0.6
    >>> token_stability([], []), token_stability([1], [])
    (1.0, 0.0)
    """
    longest = max(len(clean), len(noisy))
    return 1.0 - token_edit_distance(clean, noisy) / longest if longest else 1.0


def whole_word_rate(
    words_tokens: Iterable[Sequence[object]], *, ignore: Collection[object] = (), unk_ids: Collection[object] = ()
) -> float:
    """Share of words encoded as exactly one token (each item: the tokens of one word alone).

    Tokens in ``ignore`` do not count (e.g. a lone ``▁`` that only stands for the space before the
    word), and a word that comes out as a single unknown token (in ``unk_ids``) is not whole.

    >>> whole_word_rate([[1], [2, 3], [], [4]])
    0.5
    >>> whole_word_rate([[9, 1], [9, 0], [9, 2, 3]], ignore={9}, unk_ids={0})   # 9: the lone ▁
    0.3333333333333333
    """
    n = whole = 0
    for toks in words_tokens:
        n += 1
        kept = [t for t in toks if t not in ignore] if ignore else toks
        whole += len(kept) == 1 and kept[0] not in unk_ids
    return ratio(whole, n)


def round_trip_rate(originals: Sequence[str], decoded: Sequence[str]) -> float:
    """Share of texts that decode back to exactly the original string."""
    if len(originals) != len(decoded):
        raise ValueError(f"originals and decoded must have the same length, got {len(originals)} and {len(decoded)}")
    return ratio(sum(a == b for a, b in zip(originals, decoded)), len(originals))


def throughput(n_items: int, seconds: float) -> float:
    """Items per second (``inf`` for a time of zero with items; ``nan`` without items).

    >>> throughput(500, 0.25)
    2000.0
    """
    if n_items == 0:
        return math.nan
    return n_items / seconds if seconds > 0 else math.inf


def split_indices(n: int, *, test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Deterministic train/test split of ``range(n)``: ``round(n * test_fraction)`` test indices
    (at least 1 when ``n >= 2``), chosen by a seeded shuffle; both lists sorted.

    >>> split_indices(10, test_fraction=0.2, seed=0)
    ([0, 1, 2, 3, 4, 5, 6, 9], [7, 8])
    """
    import random

    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
    if n < 2:
        raise ValueError(f"need at least 2 documents to hold some out, got {n}")
    order = list(range(n))
    random.Random(seed).shuffle(order)
    k = min(n - 1, max(1, round(n * test_fraction)))
    return sorted(order[k:]), sorted(order[:k])


# -- size ------------------------------------------------------------------------------------------


def bytes_per_token(*, n_bytes: int, n_tokens: int) -> float:
    """UTF-8 bytes of the original text per token: ``n_bytes / n_tokens``; higher means more compression.

    A Hangul syllable is 3 bytes, so one token per syllable is 3.0:

    >>> bytes_per_token(n_bytes=len("재밌다".encode()), n_tokens=3)
    3.0
    """
    return ratio(n_bytes, n_tokens)


def continued_word_rate(tokens_per_word: Iterable[int]) -> float:
    """Share of 어절 (each occurrence) cut into two or more tokens: ``#{w : n_w >= 2} / #words``.

    ``tokens_per_word`` holds one count per word occurrence; a word that came out as no token at all
    (dropped by a lossy pipeline) counts as a word that is not continued.

    >>> continued_word_rate([1, 2, 3])   # 영화 | 재밌 다 | 최 고 야
    0.6666666666666666
    """
    n = continued = 0
    for k in tokens_per_word:
        n += 1
        continued += k >= 2
    return ratio(continued, n)


def unrepresentable_char_rate(char_counts: Mapping[str, int], *, known: Callable[[str], bool]) -> float:
    """Share of characters (with their counts) that the vocabulary cannot represent at all:
    ``sum(c_x for x with not known(x)) / sum(c_x)``.

    ``known(ch)`` says whether a character can be encoded without ``<unk>`` (in the alphabet, or
    through byte fallback).

    >>> unrepresentable_char_rate({"영": 2, "화": 2, "뷁": 1}, known=lambda ch: ch in "영화")
    0.2
    """
    total = unknown = 0
    for ch, c in char_counts.items():
        total += c
        if not known(ch):
            unknown += c
    return ratio(unknown, total)


# -- Rényi efficiency --------------------------------------------------------------------------------


def renyi_efficiency(
    counts: Mapping[object, int] | Iterable[int], *, alpha: float = RENYI_ALPHA, vocab_size: int | None = None
) -> float:
    """Rényi efficiency of a unigram token distribution (Zouhar et al. 2023, "Tokenization and the
    Noiseless Channel"): ``H_a(p) / log |V|``.

    ``p_i = c_i / sum(c)`` from the token counts (a mapping token -> count, or the counts alone);
    ``H_a(p) = log(sum_i p_i^a) / (1 - a)``; at ``a = 1`` its limit, the Shannon entropy
    ``-sum_i p_i log p_i``; at ``a = 0``, ``log`` of the number of observed types.  ``|V|`` is
    ``vocab_size`` (the vocabulary of the row) or, when ``None``, the number of token types with a
    non-zero count.  The result is in [0, 1]: 1 for tokens used uniformly over the whole vocabulary.

    ``alpha`` defaults to 2.5, the paper's best correlate of downstream BLEU; the
    ``tokenization-scorer`` package defaults to 3, so pass ``alpha=3.0`` to compare with it.
    ``nan`` when there are no counts or ``|V| <= 1`` (``log |V| = 0``).

    Worked by hand: counts 2, 1, 1 give p = 1/2, 1/4, 1/4; at a = 2, sum p^2 = 3/8, H_2 = log(8/3)
    and the efficiency over the 3 observed types is log(8/3) / log 3:

    >>> from collections import Counter
    >>> counts = Counter(["▁영화", "▁재밌", "다", "▁영화"])
    >>> renyi_efficiency(counts, alpha=2)
    0.8927892607143721
    >>> renyi_efficiency(counts, alpha=2, vocab_size=4)   # log(8/3) / log 4: one type never used
    0.7075187496394219
    >>> renyi_efficiency([5, 5, 5])                       # uniform over the vocabulary
    1.0
    """
    values = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    if any(c < 0 for c in values):
        raise ValueError(f"counts must not be negative, got {min(values)}")
    if not (alpha >= 0) or math.isinf(alpha):
        raise ValueError(f"alpha must be a finite number >= 0 (2.5 in the paper), got {alpha!r}")
    values = [c for c in values if c]
    types = len(values)
    if vocab_size is None:
        vocab_size = types
    elif vocab_size < types:
        raise ValueError(
            f"vocab_size={vocab_size} is smaller than the {types} token types that have counts; "
            "pass the vocabulary's full size (or vocab_size=None for the observed types)"
        )
    total = math.fsum(values)
    if not total or vocab_size <= 1:
        return math.nan
    if alpha == 0:
        entropy = math.log(types)
    elif alpha == 1:
        entropy = -math.fsum(c / total * math.log(c / total) for c in values)
    else:  # log sum p^a, shifted by its largest term so that a large alpha cannot underflow to log(0)
        logs = [alpha * math.log(c / total) for c in values]
        top = max(logs)
        entropy = (top + math.log(math.fsum(math.exp(x - top) for x in logs))) / (1 - alpha)
    return entropy / math.log(vocab_size)


# -- morpheme boundaries -----------------------------------------------------------------------------

_WORD = re.compile(r"\S+")  # \s is str.isspace(): the same words as str.split()


def word_spans(text: str) -> list[tuple[int, int]]:
    """The 어절 of ``text`` (its white-space separated words, as ``text.split()`` finds them) as
    ``(start, end)`` character spans.

    >>> word_spans(" 영화 정말  재밌다")
    [(1, 3), (4, 6), (8, 11)]
    """
    return [m.span() for m in _WORD.finditer(text)]


def internal_boundaries(
    spans: Iterable[tuple[int, int]], words: Sequence[tuple[int, int]]
) -> list[frozenset[int]]:
    """Per 어절 ``(s, e)`` of ``words``, the ends ``k`` of the given spans with ``s < k < e``.

    ``spans`` are token (or morpheme) character spans in any order; a token that covers part of a
    character (a jamo, a byte) must be given as covering that whole character, so jamo tokens of one
    syllable all end at the syllable's end.  Only ends count: a token running across a space (a
    superword) adds no boundary inside the words it joins, and a span of zero width (a lone marker)
    adds its position.  ``words`` are sorted, non-overlapping spans (as :func:`word_spans` gives).

    >>> text = "한국어를 했었다"                  # Kiwi: 한국어/NNP 를/JKO 하/VV 었었/EP 다/EF
    >>> internal_boundaries([(0, 3), (3, 4), (5, 6), (5, 7), (7, 8)], word_spans(text))
    [frozenset({3}), frozenset({6, 7})]
    """
    import bisect

    ends: list[int] = []
    for start, end in spans:
        if end < start:
            raise ValueError(f"a span must have start <= end, got ({start}, {end})")
        ends.append(end)
    ends.sort()
    out = []
    for s, e in words:
        lo, hi = bisect.bisect_right(ends, s), bisect.bisect_left(ends, e)
        out.append(frozenset(ends[lo:hi]))
    return out


def boundary_scores(
    predicted: Iterable[Collection[int]], gold: Iterable[Collection[int]]
) -> tuple[float, float, float]:
    """Micro-averaged (precision, recall, F1) of predicted boundaries against gold ones, over all 어절.

    With ``tp = sum_w |P_w & G_w|``: precision ``tp / sum_w |P_w|``, recall ``tp / sum_w |G_w|``,
    F1 ``2 tp / (sum_w |P_w| + sum_w |G_w|)`` (the harmonic mean of the two, and 0.0 rather than
    ``nan`` when one side has boundaries and the other none).  Each ``nan`` on an empty denominator.

    >>> boundary_scores([{2}, {1}], [{1, 2}, set()])   # 먹었|다 영|화, gold 먹|었|다 영화: tp = 1
    (0.5, 0.5, 0.5)
    """
    tp = n_pred = n_gold = 0
    n_words = 0
    pred_iter, gold_iter = iter(predicted), iter(gold)
    sentinel = object()
    while True:
        p, g = next(pred_iter, sentinel), next(gold_iter, sentinel)
        if p is sentinel or g is sentinel:
            if p is not g:
                raise ValueError(
                    f"predicted and gold must hold one boundary set per word each; one ran out after {n_words} words"
                )
            break
        n_words += 1
        n_pred += len(p)
        n_gold += len(g)
        tp += len(set(p) & set(g))  # type: ignore[arg-type]
    return ratio(tp, n_pred), ratio(tp, n_gold), ratio(2 * tp, n_pred + n_gold)


# -- partial syllables in a vocabulary --------------------------------------------------------------

_FIRST_SYLLABLE, _LAST_SYLLABLE = "가".encode(), "힣".encode()  # EA B0 80, ED 9E A3


def _is_continuation(b: int) -> bool:
    return 0x80 <= b <= 0xBF


def _starts_hangul(fragment: bytes) -> bool:
    """``fragment`` (1 or 2 bytes) is a proper prefix of the UTF-8 bytes of some syllable U+AC00..U+D7A3."""
    n = len(fragment)
    # UTF-8 keeps code point order byte-wise, so the prefixes of the range lie between its ends' prefixes
    return (_FIRST_SYLLABLE[:n] <= fragment <= _LAST_SYLLABLE[:n]
            and all(_is_continuation(b) for b in fragment[1:]))


def _open_tail(token: bytes) -> bytes:
    """The bytes after ``token``'s last lead byte when they are fewer than that byte announces (the
    token ends inside a character), else ``b""``; a token of continuation bytes only is returned
    whole (it ends inside a character or ends one: the token alone cannot tell)."""
    last = len(token) - 1
    while last > 0 and _is_continuation(token[last]):
        last -= 1
    tail = token[last:]
    lead = tail[0] if tail else 0
    need = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    if _is_continuation(lead):
        return tail
    return tail if len(tail) < need else b""


def _cuts_syllable(token: bytes) -> bool:
    head = 0
    while head < len(token) and _is_continuation(token[head]):
        head += 1
    if head:
        # 1 or 2 leading continuation bytes can always be a syllable's tail (3 are a 4-byte character's)
        return head <= 2
    tail = _open_tail(token)
    return bool(tail) and _starts_hangul(tail)


def partial_char_end_rate(surfaces: Iterable[bytes]) -> float:
    """Share of tokens whose bytes end inside a UTF-8 character: ``#{t : t's last character is cut}
    / #tokens`` (byte-level vocabularies; a token of whole characters never counts).  A token ends
    inside one when its last lead byte announces more bytes than follow it (exact); a token of
    continuation bytes only counts too (an upper bound: it may also end a character).  The
    Hangul-only, both-ends variant is :func:`incomplete_hangul_rate` (the same tail test).

    >>> han = "한".encode()                   # ED 95 9C
    >>> partial_char_end_rate([han, han[:2], "é".encode()[:1], b"ok" + han[:1], b"ok", han[1:]])  # 3 cut, 1 bound
    0.6666666666666666
    """
    return _share_of_tokens(surfaces, lambda token: bool(_open_tail(token)))


def _share_of_tokens(surfaces: Iterable[bytes], test: Callable[[bytes], bool]) -> float:
    """Share of the non-empty tokens ``surfaces`` (UTF-8 bytes) for which ``test`` holds, over all."""
    n = hit = 0
    for token in surfaces:
        if not isinstance(token, (bytes, bytearray)):
            raise TypeError(f"surfaces must be UTF-8 bytes, got {type(token).__name__} {token!r}; pass token.encode()")
        n += 1
        hit += bool(token) and test(bytes(token))
    return ratio(hit, n)


def incomplete_hangul_rate(surfaces: Iterable[bytes]) -> float:
    """Share of tokens whose bytes hold part of a Hangul syllable's UTF-8 encoding but not all of it:
    ``#{t : t cuts a syllable} / #tokens``.

    A syllable (U+AC00..U+D7A3) is 3 bytes, lead EA..ED.  A token cuts one when it *ends* with 1 or
    2 bytes that begin such a syllable (exact), or *starts* with 1 or 2 continuation bytes (taken as
    a syllable's tail: from the token alone they could also end another multi-byte character, so on
    text with many emoji or Latin accents this edge is an upper bound; 3 leading continuation bytes
    end a 4-byte character and do not count).  Each token counts once.  Whole syllables, and the
    bytes of conjoining jamo (U+1100..U+11FF, lead E1: letters, not syllables; see
    :func:`jamo_token_rate`), do not count.

    >>> han = "한".encode()                   # ED 95 9C
    >>> incomplete_hangul_rate([han, han[:2], han[2:], "한국".encode()[2:5], "ᄒ".encode(), b"ok"])
    0.5
    """
    return _share_of_tokens(surfaces, _cuts_syllable)


_L = "\u1100-\u115e\ua960-\ua97c"  # leading consonants (U+115F is the filler)
_V = "\u1161-\u11a7\ud7b0-\ud7c6"  # vowels (U+1160 is the filler)
_T = "\u11a8-\u11ff\ud7cb-\ud7fb"  # trailing consonants
_WHOLE_BLOCK = re.compile(f"[{_L}]+[{_V}]+[{_T}]*|[\uac00-\ud7a3][{_T}]+")
_CONJOINING = re.compile("[\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]")


def jamo_token_rate(surfaces: Iterable[bytes]) -> float:
    """Share of tokens holding conjoining jamo that do not compose into whole syllables:
    ``#{t : compose(t) still holds a conjoining jamo outside a whole syllable block} / #tokens``.

    Each token is decoded from UTF-8 (a cut character is dropped: byte fragments are
    :func:`incomplete_hangul_rate`'s business) and composed with :func:`korean_bpe.jamo.compose`;
    it counts when a conjoining jamo (U+1100..U+11FF, Hangul Jamo Extended-A/B) is left that is not
    part of a whole ``L+ V+ T*`` block (so old Hangul ᄒᆞᆫ, which has no precomposed form, is whole;
    a filler makes a block partial).  Compatibility jamo (ㅋ U+314B, ㅠ U+3160) as users type them in
    ㅋㅋ or ㅠㅠ are whole letters, not pieces of a syllable: they do not count.

    >>> from korean_bpe.jamo import decompose
    >>> tokens = [decompose("한"), decompose("한")[:2], decompose("한")[2:], "ㅋㅋ", "영화"]
    >>> jamo_token_rate(t.encode() for t in tokens)    # 한 composes back; 하 + ᆫ and ᆫ alone do not
    0.2
    >>> jamo_token_rate([decompose("하")[:1].encode() + "다".encode()])   # ᄒ다
    1.0
    """
    n = partial = 0
    for token in surfaces:
        if not isinstance(token, (bytes, bytearray)):
            raise TypeError(f"surfaces must be UTF-8 bytes, got {type(token).__name__} {token!r}; pass token.encode()")
        n += 1
        text = bytes(token).decode("utf-8", errors="ignore")
        if not _CONJOINING.search(text):  # compose only removes jamo: nothing to count
            continue
        text = compose(text)
        if _CONJOINING.search(text):
            partial += _CONJOINING.search(_WHOLE_BLOCK.sub("", text)) is not None
    return ratio(partial, n)


# -- vocabulary hygiene --------------------------------------------------------------------------------

#: an intermediate token is a residue when fewer than this share of its held-out occurrences are its own
RESIDUE_SHARE = 0.01
#: the most frequent held-out 어절 that :func:`single_token_retention` reads
STRR_WORDS = 1000


def residue_rate(merges: Sequence[tuple[int, int, int]], usage: Mapping[int, int], *, vocab_size: int,
                 share: float = RESIDUE_SHARE) -> float:
    """Share of the vocabulary that is an intermediate residue (Picky BPE, LiteToken): a token made
    by a merge and a part of a later merge, that the held-out encoding almost never emits
    itself: ``#{t : u(t) < share * (u(t) + inside(t))} / vocab_size``, where ``u(t)`` counts
    ``t`` among the held-out tokens and ``inside(t)`` counts it inside their merge trees (each
    node of the tree of each emitted token).  ``merges``: ``(left, right, result)`` ids in merge
    order (the first merge making a token is its tree); ``usage``: id -> held-out count.  Tokens
    never met on held-out text, inside or alone, are not residues (they are unused).

    Merges 0 1 -> 3 (ab), 3 2 -> 4 (abc); held-out: abc 99 times, ab once: ab is used once of 100
    occurrences (1% is not below 1%), so no residue; without that one use it is one:

    >>> residue_rate([(0, 1, 3), (3, 2, 4)], {4: 99, 3: 1}, vocab_size=5)
    0.0
    >>> residue_rate([(0, 1, 3), (3, 2, 4)], {4: 99}, vocab_size=5)
    0.2
    """
    children: dict[int, tuple[int, int]] = {}
    parts: set[int] = set()
    for left, right, result in merges:
        children.setdefault(result, (left, right))
        parts.update((left, right))
    inside: dict[int, int] = {}
    below: dict[int, dict[int, int]] = {}  # token -> its tree's nodes (without itself), with multiplicity

    def nodes(t: int) -> dict[int, int]:
        got = below.get(t)
        if got is None:
            got = {}
            stack = list(children.get(t, ()))
            while stack:
                x = stack.pop()
                got[x] = got.get(x, 0) + 1
                stack.extend(children.get(x, ()))
            below[t] = got
        return got

    for t, n in usage.items():
        for x, k in nodes(t).items():
            inside[x] = inside.get(x, 0) + n * k
    residues = sum(1 for t in parts & children.keys()  # merged tokens: the alphabet cannot be a residue
                   if inside.get(t, 0) and usage.get(t, 0) < share * (usage.get(t, 0) + inside[t]))
    return ratio(residues, vocab_size)


def single_token_retention(word_counts: Mapping[str, int], encode: Callable[[list[str]], list[list[int]]], *,
                           unk_ids: Collection[int] = (), top: int = STRR_WORDS) -> float:
    """STRR: share of the occurrences of the ``top`` most frequent held-out 어절 (``word_counts``:
    white-space word -> occurrences; ties by code point) whose encoding, each 어절 encoded alone as
    a text, is one token other than ``<unk>`` (``unk_ids``): ``sum(n(w) : encode(w) = [t], t not
    unknown) / sum(n(w))``.

    >>> encode = lambda words: [{"영화": [5], "재밌다": [6, 7], "꿀잼": [0]}[w] for w in words]
    >>> single_token_retention({"영화": 3, "재밌다": 1, "꿀잼": 1}, encode, unk_ids={0})     # 3 of 5
    0.6
    """
    frequent = sorted(word_counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    encoded = encode([w for w, _ in frequent])
    kept = sum(n for (_, n), ids in zip(frequent, encoded) if len(ids) == 1 and ids[0] not in unk_ids)
    return ratio(kept, sum(n for _, n in frequent))


# -- extrinsic probe ----------------------------------------------------------------------------------


def probe_accuracy(
    train_docs: Sequence[Sequence[int]],
    train_labels: Sequence[int],
    test_docs: Sequence[Sequence[int]],
    test_labels: Sequence[int],
    *,
    seed: int = 0,
) -> float:
    """Accuracy on the test documents of a logistic regression fitted on bag-of-token counts of the
    training documents: ``#{d : predicted(d) == label(d)} / #test docs`` (:func:`probe_predictions`).
    ``nan`` without test documents.

    >>> docs = [[1, 2], [1, 2, 2], [3, 4], [3, 3, 4]]   # ids of 좋다 최고 / 좋다 최고 최고 / 별로 지루 / ...
    >>> probe_accuracy(docs, [1, 1, 0, 0], [[2], [4, 3], [1, 4, 4]], [1, 0, 0])
    1.0
    """
    if len(test_docs) != len(test_labels):
        raise ValueError(
            f"test_docs and test_labels must have the same length, got {len(test_docs)} and {len(test_labels)}: "
            "pass one label per test document"
        )
    predicted = probe_predictions(train_docs, train_labels, test_docs, seed=seed)
    return ratio(sum(int(p) == int(t) for p, t in zip(predicted, test_labels)), len(test_docs))


def probe_predictions(
    train_docs: Sequence[Sequence[int]],
    train_labels: Sequence[int],
    test_docs: Sequence[Sequence[int]],
    *,
    seed: int = 0,
) -> list[int]:
    """The label a logistic regression fitted on bag-of-token counts of the training documents
    predicts for each test document.

    Features: ``x_d[i]`` = how many times token id ``i`` occurs in document ``d`` (a sparse CSR
    matrix, one column per id up to the largest seen in either split); scikit-learn's
    ``LogisticRegression`` (L2, ``C=1``, L-BFGS, ``max_iter=1000``, ``random_state=seed``; binary or
    multinomial).  Needs scikit-learn (``pip install "korean_bpe[eval]"``).  NSMC's 165k training
    reviews fit in seconds.

    >>> probe_predictions([[1, 2], [1, 2, 2], [3, 4], [3, 3, 4]], [1, 1, 0, 0], [[2], [4, 3], [1, 4, 4]])
    [1, 0, 0]
    """
    if len(train_docs) != len(train_labels):
        raise ValueError(
            f"train_docs and train_labels must have the same length, got {len(train_docs)} and {len(train_labels)}: "
            "pass one label per training document"
        )
    classes = sorted(set(train_labels))
    if len(classes) < 2:
        raise ValueError(
            f"train_labels hold a single class ({classes}): probe_accuracy needs at least two classes in "
            "train_labels; pass labelled training documents of every class (NSMC: 0 and 1)"
        )
    if len(test_docs) == 0:
        return []
    from .._optional import require

    linear_model = require("sklearn.linear_model", purpose="probe_accuracy's logistic regression")
    sparse = require("scipy.sparse", purpose="probe_accuracy's bag-of-tokens matrix")
    import numpy as np

    train, test = _bag_of_tokens(train_docs, np), _bag_of_tokens(test_docs, np)
    n_features = max(train[3], test[3]) + 1
    x_train = sparse.csr_matrix(train[:3], shape=(len(train_docs), n_features))
    x_test = sparse.csr_matrix(test[:3], shape=(len(test_docs), n_features))
    x_train.sum_duplicates()  # repeated ids in a row become one count
    x_test.sum_duplicates()
    threadpoolctl = require("threadpoolctl", purpose="probe_accuracy's logistic regression")
    model = linear_model.LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000, random_state=seed)
    # L-BFGS updates one vector of |V| weights: multi-threaded BLAS only spins on it (on NSMC at 32k ids,
    # 12.8 s of CPU against 1.0 s with one thread; liblinear gives the same accuracy in ~10 s)
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        model.fit(x_train, np.asarray(train_labels))
    return [int(v) for v in model.predict(x_test)]


def _bag_of_tokens(docs: Sequence[Sequence[int]], np):  # noqa: ANN001, ANN202 - numpy is imported lazily
    """(data, indices, indptr, largest id) of the CSR rows of ``docs``, built without Python dicts."""
    import itertools

    lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.fromiter(itertools.chain.from_iterable(docs), dtype=np.int64, count=int(indptr[-1]))
    if indices.size and indices.min() < 0:
        raise ValueError(f"token ids must be >= 0, got {int(indices.min())}")
    largest = int(indices.max()) if indices.size else 0
    return np.ones(indices.size, dtype=np.float64), indices, indptr, largest
