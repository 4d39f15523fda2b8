"""``train_bpe``: word counts in, :class:`BPEModel` out.

Training never walks running text: it takes each distinct word once, as a tuple of unit symbols
with its word marker applied, and its count.

>>> model = train_bpe({("l", "o", "w"): 5, ("l", "o", "w", "e", "r"): 2, ("n", "e", "w", "e", "s", "t"): 6,
...                    ("w", "i", "d", "e", "s", "t"): 3}, num_merges=5, min_frequency=1, special_tokens=())
>>> model.merges
(('e', 's'), ('es', 't'), ('l', 'o'), ('lo', 'w'), ('e', 'w'))
>>> train_bpe({("ㅋ", "ㅋ", "ㅋ", "ㅋ"): 3, ("ㅎ", "ㅎ"): 2}, vocab_size=5).merges   # <unk> ㅋ ㅎ + 2
(('ㅋ', 'ㅋ'), ('ㅋㅋ', 'ㅋㅋ'))
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

from .._gc import paused
from .._threads import resolve_threads
from ..markers import MARKER_TEXTS, Marker, get_marker
from ..progress import NO_PROGRESS, Progress, check_show_progress, start_progress
from .model import BPEModel
from .ties import keep_alphabet, order_symbols, symbol_sort_key

__all__ = [
    "train_bpe", "prepare_words", "cut_special_runs", "cut_ambiguous", "learn_merges", "merge_step", "ENGINES",
    "check_options", "check_max_token_length", "check_special_tokens",
]

ENGINES = ("auto", "reference", "python", "compiled")

OnMerge = Callable[[int, tuple[str, str], int], Any]
Engine = Callable[..., None]


def train_bpe(
    word_counts: Mapping[tuple[str, ...], int],
    *,
    vocab_size: int | None = None,
    num_merges: int | None = None,
    min_frequency: int = 2,
    special_tokens: Sequence[str] = ("<unk>",),
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
    marker: str | Marker | None = "auto",
    max_token_length: int | None = None,
    on_merge: OnMerge | None = None,
    show_progress: bool | Progress | None = None,
    engine: str = "auto",
    num_threads: int | None = None,
) -> BPEModel:
    """Learn BPE merges from ``word_counts`` (symbol tuple -> count), as HF ``BpeTrainer`` does.

    - ``vocab_size``: stop when special tokens + alphabet + merge results reach it (HF's count);
      ``num_merges``: stop after that many merges.  Give one or both (training stops at the first
      limit reached).
    - ``min_frequency``: stop when the best pair occurs fewer times.
    - ``special_tokens`` get the first ids and are never made by a merge: a run of symbols that
      spells one (the literal text ``<unk>``) is cut before its last symbol
      (:func:`cut_special_runs`); ``limit_alphabet`` keeps only the N most frequent
      symbols and deletes the others from the words (as HF does; encoding maps them to ``<unk>`` or
      byte fallback); ``initial_alphabet`` symbols are always kept (the byte unit passes all 256).
    - ``marker``: the word marker applied to the symbols (``None``, ``"▁"``, ``"</w>"``, ``"##"``);
      ``"auto"`` reads it from the words.  With ``</w>``/``##`` the alphabet holds the bare symbols
      and the marked ones (``'다'`` and ``'다</w>'``), numbered as in :mod:`.ties`; with ``##``,
      ``'##하' + '##다'`` gives ``'##하다'``, as in HF.  Where a merge would hide a marker, the word is
      cut (:func:`cut_ambiguous`): with ``##`` no word's first token starts with ``##`` (HF's trainer
      learns ``'#' + '###'`` from the word ``##``, and its decoder then loses it), with ``</w>`` no
      token holds the text ``</w>``; other words train exactly as in HF.
    - ``max_token_length``: no merge makes a token of more than that many symbols (the unit's:
      characters, jamo or bytes); see below.
    - ``on_merge(rank, (left, right), count)`` is called after each merge (``rank``: its index in
      ``model.merges``; ``count``: the pair's occurrences when it was merged); ``show_progress``
      shows a tqdm bar (default: only when stderr is a terminal), or reports to a
      :class:`korean_bpe.progress.Progress`.
    - ``engine``: ``"auto"`` (compiled when built, else pure Python), or one of ``"compiled"``,
      ``"python"``, ``"reference"`` (the slow textbook loop) to force it.
    - ``num_threads``: threads that build the compiled engine's words and initial pair index from
      :func:`korean_bpe.counting.split_words`'s compiled table (``None``: every core, or
      ``KOREAN_BPE_NUM_THREADS``; ``1``: this thread); the merge loop itself is one thread.  The merges are the same
      whatever the number.

    The cyclic garbage collector is paused while training (millions of small lists, no cycles)
    and restored afterwards, also on error; other threads see it paused meanwhile.

    Tie rule (HF ``BpeTrainer``'s, written once in :mod:`korean_bpe.trainer.ties`): the pair with
    the highest count goes first; among equal counts, the pair of smaller ids ``(left, right)``
    (compare left ids, then right ids), where special tokens take the first ids, the alphabet the
    next ones in code-point order, and each merge result the next free id.  A word ``a a a``
    holds ``(a, a)`` twice.  So the result is the same on every run, whatever ``PYTHONHASHSEED``:

    >>> train_bpe({tuple("aaabdaaabac"): 1}, num_merges=3, min_frequency=1, special_tokens=()).merges
    (('a', 'a'), ('a', 'b'), ('aa', 'ab'))

    (``a b`` and ``aa a`` both count 2 after ``a a``; ids ``a=0 b=1`` beat ``aa=4 a=0``.)

    ``max_token_length`` (HF ``BpeTrainer``'s option): the best pair among those whose merged token
    would hold at most that many symbols.  A token's length is the number of the words' symbols it
    spans: a syllable (or any character) under ``syllable``, a jamo under ``jamo``, a byte under
    ``byte``; the ``▁`` word-start marker is a symbol of its own and counts one, while ``</w>``
    and ``##`` are part of the symbol they mark and count nothing (``'어요</w>'`` and ``'##어요'``
    have length 2), as HF counts.  Syllable BPE on Korean otherwise learns whole 어절 with their
    particles:

    >>> words = {tuple("재밌어요"): 5, tuple("재밌다"): 3}
    >>> train_bpe(words, num_merges=10, min_frequency=1, special_tokens=()).merges
    (('재', '밌'), ('어', '요'), ('재밌', '어요'), ('재밌', '다'))
    >>> train_bpe(words, num_merges=10, min_frequency=1, special_tokens=(), max_token_length=3).merges
    (('재', '밌'), ('어', '요'), ('재밌', '다'))

    HF's own ``BpeTrainer(max_token_length=n)`` keeps tokens *shorter* than ``n`` (its check is
    ``<``, in ``word.rs``) and never limits the first merges of two single symbols
    (huggingface/tokenizers#1461): our ``max_token_length=n`` gives HF's merges for
    ``max_token_length=n + 1``, for every ``n >= 2``; HF has no equivalent of ``n = 1`` (no merge).
    """
    check_options(vocab_size, num_merges, min_frequency, limit_alphabet, on_merge, show_progress, engine)
    check_max_token_length(max_token_length)
    specials = check_special_tokens(special_tokens)
    threads = resolve_threads(num_threads)
    with paused():  # millions of small lists and no cycles: the cyclic collector would only rescan them
        return _train(word_counts, vocab_size, num_merges, min_frequency, specials, limit_alphabet,
                      initial_alphabet, marker, max_token_length, on_merge, show_progress, engine, threads)


def _train(
    word_counts: Mapping[tuple[str, ...], int], vocab_size: int | None, num_merges: int | None,
    min_frequency: int, specials: tuple[str, ...], limit_alphabet: int | None, initial_alphabet: Iterable[str],
    marker: str | Marker | None, max_token_length: int | None, on_merge: OnMerge | None,
    show_progress: bool | Progress | None, engine: str, num_threads: int = 1,
) -> BPEModel:
    flat = _flat_words(word_counts, marker, engine)
    if flat is not None:  # compiled symbol ids: no tuple or list per word, merges named in C++
        id_to_token, alphabet, prefix, new_ids, cuts = _prepare_ids(
            flat, special_tokens=specials, limit_alphabet=limit_alphabet, initial_alphabet=initial_alphabet)
        words: list[list[int]] = []
        counts: list[int] = []
    else:
        prepared = _prepare_words(
            word_counts, special_tokens=specials, limit_alphabet=limit_alphabet,
            initial_alphabet=initial_alphabet, marker=marker,
        )
        id_to_token, words, counts, alphabet, mark = prepared
        prefix = mark.continuing_prefix
        words, counts = cut_special_runs(words, counts, id_to_token, specials, prefix=prefix)
        words, counts = cut_ambiguous(words, counts, id_to_token, mark)
    initial_size = len(id_to_token)
    if vocab_size is not None and vocab_size < initial_size:
        if vocab_size <= len(specials):
            raise ValueError(
                f"vocab_size={vocab_size} leaves no room after the {len(specials)} special tokens "
                f"({', '.join(map(repr, specials[:3]))}{', ...' if len(specials) > 3 else ''}) and the "
                f"{len(alphabet)} alphabet symbols; use vocab_size >= {initial_size} (byte fallback alone "
                "adds 256 special tokens)"
            )
        raise ValueError(
            f"vocab_size={vocab_size} is smaller than the {len(specials)} special tokens + {len(alphabet)} "
            f"alphabet symbols ({initial_size}); use vocab_size >= {initial_size}, or limit_alphabet="
            f"{vocab_size - len(specials)} to shrink the alphabet"
        )
    if flat is not None:
        merges = _learn_merges_flat(
            flat, new_ids, cuts, id_to_token, special_tokens=specials, prefix=prefix, vocab_size=vocab_size,
            num_merges=num_merges, min_frequency=min_frequency, max_token_length=max_token_length, on_merge=on_merge,
            show_progress=show_progress, num_threads=num_threads,
        )
        model = BPEModel(special_tokens=specials, alphabet=tuple(alphabet), merges=tuple(merges),
                         continuing_subword_prefix=prefix)
        # the ids the model derives are these (specials, alphabet, then each new merge result):
        # its cached_property is filled with them rather than computed again
        model.__dict__["id_to_token"] = tuple(id_to_token)
        return model
    merges = learn_merges(
        engine, words, counts, id_to_token, special_tokens=specials, prefix=prefix, vocab_size=vocab_size,
        num_merges=num_merges, min_frequency=min_frequency, max_token_length=max_token_length, on_merge=on_merge,
        show_progress=show_progress,
    )
    return BPEModel(
        special_tokens=specials, alphabet=tuple(alphabet), merges=tuple(merges),
        continuing_subword_prefix=prefix,
    )


def prepare_words(
    word_counts: Mapping[tuple[str, ...], int],
    *,
    special_tokens: tuple[str, ...] = (),
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
    marker: str | None = "auto",
) -> tuple[list[str], list[list[int]], list[int], list[str], str | None]:
    """Validate ``word_counts`` and map it to ids: ``(id_to_token, words, counts, alphabet,
    continuing_subword_prefix)``.  Words of one symbol (no pair to merge) are left out.

    >>> prepare_words({("값", "이</w>"): 2, ("이</w>",): 1})
    (['값', '이', '이</w>'], [[0, 2]], [2], ['값', '이', '이</w>'], None)
    """
    *prepared, mark = _prepare_words(word_counts, special_tokens=special_tokens, limit_alphabet=limit_alphabet,
                                     initial_alphabet=initial_alphabet, marker=marker)
    return (*prepared, mark.continuing_prefix)  # type: ignore[return-value]


def _prepare_words(
    word_counts: Mapping[tuple[str, ...], int], *, special_tokens: tuple[str, ...], limit_alphabet: int | None,
    initial_alphabet: Iterable[str], marker: Any,
) -> tuple[list[str], list[list[int]], list[int], list[str], Marker]:
    """:func:`prepare_words` with the resolved marker object last."""
    if not isinstance(word_counts, Mapping):
        raise TypeError(
            f"word_counts must be a mapping from symbol tuples to counts, got {type(word_counts).__name__}; "
            "e.g. collections.Counter(unit.split(w) for w in words)"
        )
    keys = list(word_counts)
    values = list(word_counts.values())
    _check_keys(keys)
    _check_counts(keys, values)
    initial = _check_initial_alphabet(initial_alphabet)
    if limit_alphabet is not None and (not isinstance(limit_alphabet, int) or isinstance(limit_alphabet, bool) or limit_alphabet < 0):
        raise ValueError(f"limit_alphabet must be None or an int >= 0, got {limit_alphabet!r}")
    symbols = set(chain.from_iterable(keys))
    bad = [s for s in symbols if not isinstance(s, str) or not s]
    if bad:
        word = next(k for k in keys if any(s in bad for s in k))
        raise ValueError(
            f"word_counts key {word!r} holds {bad[0]!r}; every symbol must be a non-empty str "
            "(split words with a unit: get_unit('syllable').split(word))"
        )
    mark = _resolve_marker(marker, keys)
    id_to_token, alphabet, kept, bases = _alphabet(
        symbols, mark.base, special_tokens, limit_alphabet, initial,
        frequencies=lambda: _symbol_frequencies(word_counts),
        big=lambda: sum(values) * max(map(len, keys)) + 1,  # more than any count: initial symbols go last
    )
    token_to_id = {tok: i for i, tok in enumerate(id_to_token)}

    if kept is None:  # nothing left out of the alphabet
        words, counts = _words_to_ids(word_counts, token_to_id)
    else:
        words, counts = [], []
        for key, count in zip(keys, values):
            ids = [token_to_id[s] for s in key if bases[s] in kept]
            if len(ids) > 1:
                words.append(ids)
                counts.append(count)
    return id_to_token, words, counts, alphabet, mark


def _alphabet(
    symbols: Iterable[str], base: Callable[[str], str], special_tokens: tuple[str, ...], limit_alphabet: int | None,
    initial: list[str], *, frequencies: Callable[[], Mapping[str, int]], big: Callable[[], int],
) -> tuple[list[str], list[str], set[str] | None, dict[str, str]]:
    """``(id_to_token, alphabet, kept, bases)``: the bare symbols (plus ``initial``), limited to the
    ``limit_alphabet`` most frequent (``frequencies()``: symbol -> count; ``big()``: more than any
    count, so that initial symbols go last), in code-point order after the special tokens, then
    the marked symbols whose bare one is kept; ``kept``: the bare symbols kept, ``None`` when
    none was left out; ``bases``: each symbol's bare symbol."""
    bases = {s: base(s) for s in symbols}
    all_bases = set(bases.values()) | set(initial)
    if limit_alphabet is not None and len(all_bases) > limit_alphabet:
        freq: dict[str, int] = dict.fromkeys(all_bases, 0)
        for s, count in frequencies().items():
            freq[bases[s]] += count
        more = big()
        for s in initial:
            freq[s] = more
        kept: set[str] | None = keep_alphabet(freq, limit_alphabet)
    else:
        kept = None
    bare = all_bases if kept is None else kept
    specials = set(special_tokens)
    alphabet = [s for s in order_symbols(bare) if s not in specials]
    marked = order_symbols(s for s, b in bases.items() if s != b and b in bare)
    alphabet += [s for s in marked if s not in bare and s not in specials]
    id_to_token = list(dict.fromkeys((*special_tokens, *alphabet)))
    return id_to_token, alphabet, kept, bases


def _flat_words(word_counts: Any, marker: Any, engine: str) -> Any:
    """The compiled flat word table of ``word_counts`` when training can take it as it is: a
    :class:`~korean_bpe.words.SymbolCounts` made with this marker, for the compiled engine."""
    from ..words import SymbolCounts

    if engine not in ("auto", "compiled") or not isinstance(word_counts, SymbolCounts):
        return None
    if not (isinstance(marker, str) and marker == "auto"):
        try:
            same = get_marker(marker) == get_marker(word_counts.words.marker)
        except ValueError:
            return None  # the dict path says what is wrong with it
        if not same:
            return None  # another marker: the dict path checks the words against it
    if isinstance(marker, str) and marker == "auto" and word_counts.words.marker == "##" and word_counts.words.longest < 2:
        return None  # "auto" finds no ## in words of one symbol: the dict path says what it finds
    return word_counts


def _prepare_ids(
    flat: Any, *, special_tokens: tuple[str, ...], limit_alphabet: int | None, initial_alphabet: Iterable[str],
) -> tuple[list[str], list[str], str | None, list[int], list[tuple[int, list[int]]]]:
    """:func:`prepare_words` + :func:`cut_special_runs` + :func:`cut_ambiguous` for a compiled flat
    word table: ``(id_to_token, alphabet, prefix, new_ids, cuts)``, ``new_ids[i]`` the token id of
    the table's symbol ``i`` (``-1``: left out of the alphabet), ``cuts`` the cuts by word."""
    ws = flat.words
    initial = _check_initial_alphabet(initial_alphabet)
    if limit_alphabet is not None and (not isinstance(limit_alphabet, int) or isinstance(limit_alphabet, bool) or limit_alphabet < 0):
        raise ValueError(f"limit_alphabet must be None or an int >= 0, got {limit_alphabet!r}")
    mark = get_marker(ws.marker)
    symbols = ws.symbols
    id_to_token, alphabet, kept, bases = _alphabet(
        symbols, mark.base, special_tokens, limit_alphabet, initial,
        frequencies=lambda: dict(zip(symbols, ws.frequencies())), big=lambda: ws.total * ws.longest + 1,
    )
    token_to_id = {tok: i for i, tok in enumerate(id_to_token)}
    new_ids = [token_to_id[s] if kept is None or bases[s] in kept else -1 for s in symbols]
    prefix = mark.continuing_prefix
    cuts: list[tuple[int, list[int]]] = []
    starts = _special_starts(id_to_token, special_tokens)
    may_cut = mark.may_cut
    triggers = {i for i, tok in enumerate(id_to_token) if may_cut(tok)}
    if not starts and not triggers:
        return id_to_token, alphabet, prefix, new_ids, cuts
    find = _special_cutter(id_to_token, special_tokens, starts, prefix) if starts else None
    flags = [i in starts or i in triggers for i in range(len(id_to_token))]
    for k, word in ws.words_holding(new_ids, flags):  # as cut_special_runs, then cut_ambiguous on the pieces
        cut = find(word) if find is not None and not starts.isdisjoint(word) else []
        if triggers:
            bounds = [0, *cut, len(word)]
            more = [a + c for a, b in zip(bounds, bounds[1:]) if b - a > 1 and not triggers.isdisjoint(word[a:b])
                    for c in mark.cuts([id_to_token[i] for i in word[a:b]])]
            cut = sorted(set(cut) | set(more))
        if cut:
            cuts.append((k, cut))
    return id_to_token, alphabet, prefix, new_ids, cuts


def _special_starts(id_to_token: Sequence[str], special_tokens: Sequence[str]) -> set[int]:
    """Ids of the tokens that begin a special token's text (where a run spelling one can start)."""
    prefixes = {t[:k] for t in special_tokens for k in range(1, len(t))}
    return {i for i, tok in enumerate(id_to_token) if tok in prefixes}


def _special_cutter(
    id_to_token: Sequence[str], special_tokens: Sequence[str], starts: set[int], prefix: str | None,
) -> Callable[[Sequence[int]], list[int]]:
    """``cuts(word)``: the sorted positions where ``word`` (ids) must be cut so that no run of its
    symbols spells a special token (just before each such run's last symbol)."""
    specials = set(special_tokens)
    longest = max(map(len, specials))
    plen = len(prefix) if prefix else 0

    def cuts(word: Sequence[int]) -> list[int]:
        out = set()
        for i, first in enumerate(word):
            if first not in starts:
                continue
            text = id_to_token[first]
            for j in range(i + 1, len(word)):
                right = id_to_token[word[j]]
                text += right[plen:] if plen and right.startswith(prefix) else right  # type: ignore[arg-type]
                if len(text) > longest:
                    break
                if text in specials:
                    out.add(j)
        return sorted(out)

    return cuts


def cut_special_runs(
    words: list[list[int]], counts: list[int], id_to_token: Sequence[str], special_tokens: Sequence[str],
    *, prefix: str | None = None,
) -> tuple[list[list[int]], list[int]]:
    """Cut each word where a run of its symbols spells a special token, just before the run's
    last symbol, so that no merge can ever make a special token (a merge makes the text of a run
    of adjacent symbols).  The literal text of a special token stays ordinary symbols: ``<s>``
    may become ``<s`` + ``>``, never the special ``<s>``.  Pieces of one symbol are left out
    (nothing to merge).  ``prefix``: the continuing-subword prefix (``"##"``), which a merge
    drops from its right part.

    >>> cut_special_runs([[1, 3, 2, 3]], [5], ["<s>", "<", ">", "s"], ["<s>"])   # < s > s: < s | > s
    ([[1, 3], [2, 3]], [5, 5])
    """
    starts = _special_starts(id_to_token, special_tokens)
    if not starts:
        return words, counts
    find = _special_cutter(id_to_token, special_tokens, starts, prefix)
    disjoint = starts.isdisjoint
    all_cuts: dict[int, list[int]] = {}
    for k, word in enumerate(words):  # only words holding the start of a special token are read
        if disjoint(word):
            continue
        cuts = find(word)
        if cuts:
            all_cuts[k] = cuts
    if not all_cuts:  # the usual case: nothing spells a special token, the words stay as they are
        return words, counts
    out_words: list[list[int]] = []
    out_counts: list[int] = []
    for k, (word, count) in enumerate(zip(words, counts)):
        cut = all_cuts.get(k)
        if cut is None:
            out_words.append(word)
            out_counts.append(count)
            continue
        bounds = [0, *cut, len(word)]
        for a, b in zip(bounds, bounds[1:]):
            if b - a > 1:
                out_words.append(word[a:b])
                out_counts.append(count)
    return out_words, out_counts


def cut_ambiguous(
    words: list[list[int]], counts: list[int], id_to_token: Sequence[str], mark: Marker,
) -> tuple[list[list[int]], list[int]]:
    """Cut each word where the marker says a merge would make a token that decode reads as
    something else (:meth:`korean_bpe.markers.Marker.cuts`): with ``##``, the word ``##a`` is
    ``'#' '###' '##a'`` and ``'#' + '###'`` would start it with ``##``, the mark of a continuation;
    with ``</w>``, no token may hold the text ``</w>``.  Pieces of one symbol are left out.

    >>> from korean_bpe.markers import get_marker
    >>> cut_ambiguous([[0, 1, 2], [0, 2]], [3, 4], ["#", "###", "##a"], get_marker("##"))
    ([[1, 2], [0, 2]], [3, 4])
    """
    may_cut = mark.may_cut
    triggers = {i for i, tok in enumerate(id_to_token) if may_cut(tok)}
    if not triggers:
        return words, counts
    disjoint = triggers.isdisjoint
    all_cuts: dict[int, list[int]] = {}
    for k, word in enumerate(words):
        if len(word) > 1 and not disjoint(word):
            cut = mark.cuts([id_to_token[i] for i in word])
            if cut:
                all_cuts[k] = cut
    if not all_cuts:  # the usual case: the words stay as they are
        return words, counts
    out_words: list[list[int]] = []
    out_counts: list[int] = []
    for k, (word, count) in enumerate(zip(words, counts)):
        bounds = [0, *all_cuts.get(k, ()), len(word)]
        for a, b in zip(bounds, bounds[1:]):
            if b - a > 1:
                out_words.append(word[a:b])
                out_counts.append(count)
    return out_words, out_counts


# --- checks -------------------------------------------------------------------------------------


def check_options(
    vocab_size: Any, num_merges: Any, min_frequency: Any, limit_alphabet: Any, on_merge: Any,
    show_progress: Any, engine: Any,
) -> None:
    """Refuse a bad value of these :func:`train_bpe` options (``TypeError``, ``ValueError``)."""
    if vocab_size is None and num_merges is None:
        raise ValueError("give vocab_size (special tokens + alphabet + merges, as HF counts it) or num_merges, or both")
    for name, value in (("vocab_size", vocab_size), ("num_merges", num_merges), ("min_frequency", min_frequency)):
        if value is None and name != "min_frequency":
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    if limit_alphabet is not None and (not isinstance(limit_alphabet, int) or isinstance(limit_alphabet, bool)):
        raise TypeError(f"limit_alphabet must be None or an int, got {type(limit_alphabet).__name__} {limit_alphabet!r}")
    if on_merge is not None and not callable(on_merge):
        raise TypeError(f"on_merge must be a callable on_merge(rank, pair, count) or None, got {on_merge!r}")
    check_show_progress(show_progress)
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not known; use one of {ENGINES!r}")


def check_max_token_length(max_token_length: Any) -> None:
    """Refuse a ``max_token_length`` that is neither None nor an int >= 1."""
    if max_token_length is None:
        return
    if not isinstance(max_token_length, int) or isinstance(max_token_length, bool):
        raise TypeError(f"max_token_length must be None or an int, got {type(max_token_length).__name__} "
                        f"{max_token_length!r}")
    if max_token_length < 1:
        raise ValueError(f"max_token_length must be >= 1 (symbols per token) or None (no limit), got "
                         f"{max_token_length}")


def check_special_tokens(special_tokens: Any) -> tuple[str, ...]:
    """``special_tokens`` as a tuple of non-empty strings, duplicates dropped (first kept); a string or
    a non-string refused."""
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a sequence of strings, got the string {special_tokens!r}; "
                        f"write special_tokens=({special_tokens!r},)")
    try:
        specials = tuple(special_tokens)
    except TypeError:
        raise TypeError(f"special_tokens must be a sequence of strings, got {special_tokens!r}") from None
    for tok in specials:
        if not isinstance(tok, str) or not tok:
            raise ValueError(f"special_tokens must be non-empty strings, got {tok!r} in {specials!r}")
    return tuple(dict.fromkeys(specials))


def _check_initial_alphabet(initial_alphabet: Any) -> list[str]:
    if isinstance(initial_alphabet, str):
        return list(initial_alphabet)  # "abc" -> a, b, c, as HF takes it
    out = list(initial_alphabet)
    for s in out:
        if not isinstance(s, str) or not s:
            raise ValueError(f"initial_alphabet must hold non-empty strings, got {s!r}")
    return out


def _words_to_ids(word_counts: Mapping[tuple[str, ...], int], token_to_id: dict[str, int]) -> tuple[list[list[int]], list[int]]:
    """Words as id lists, those of one symbol (no pair) left out."""
    try:
        from .fast import words_to_ids
    except ImportError:
        get = token_to_id.__getitem__
        items = [(key, count) for key, count in word_counts.items() if len(key) > 1]
        return [list(map(get, key)) for key, _ in items], [count for _, count in items]
    return words_to_ids(word_counts, token_to_id, min_length=2)


def _symbol_frequencies(word_counts: Mapping[tuple[str, ...], int]) -> dict[str, int]:
    try:
        from .fast import symbol_counts
    except ImportError:
        out: dict[str, int] = {}
        for key, count in word_counts.items():
            for s in key:
                out[s] = out.get(s, 0) + count
        return out
    return symbol_counts(word_counts)


def _check_keys(keys: list[Any]) -> None:
    if not keys or (set(map(type, keys)) == {tuple} and min(map(len, keys)) > 0):
        return
    for k in keys:
        if not isinstance(k, tuple):
            hint = f"tuple({k!r})" if isinstance(k, str) else "a tuple of symbols"
            raise TypeError(f"word_counts keys must be tuples of symbols, got {type(k).__name__} {k!r}; use {hint}")
        if not k:
            raise ValueError("word_counts holds an empty word (); drop it: every word needs at least one symbol")


def _check_counts(keys: list[Any], values: list[Any]) -> None:
    types = set(map(type, values))
    if not types <= {int}:
        for k, v in zip(keys, values):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"word_counts[{k!r}] must be an int count, got {type(v).__name__} {v!r}")
    if values and min(values) <= 0:
        k, v = next((k, v) for k, v in zip(keys, values) if v <= 0)
        raise ValueError(f"word_counts[{k!r}] = {v}; counts must be positive (drop words that never occur)")


def _resolve_marker(marker: Any, keys: list[tuple[str, ...]]) -> Marker:
    if marker == "auto":
        multi = [k for k in keys if len(k) > 1]
        end, cont = get_marker("</w>"), get_marker("##")
        if keys and all(end.is_marked(k[-1]) for k in keys):
            return end
        if multi and all(cont.is_marked(s) for k in multi for s in k[1:]) and not any(k[0].startswith("##") for k in keys):
            return cont
        return get_marker(None)
    try:
        mark = get_marker(marker)
    except ValueError:
        raise ValueError(f"marker={marker!r} is not supported; use 'auto' or one of {MARKER_TEXTS!r}") from None
    mark.check_words(keys)
    return mark


# --- engine and merge loop ------------------------------------------------------------------------


def _get_engine(name: str) -> Engine:
    if name == "reference":
        from .reference import reference_engine

        return reference_engine
    try:
        from . import fast
    except ImportError:  # the fast engine is not there: the reference loop gives the same merges
        if name in ("python", "compiled"):
            raise
        from .reference import reference_engine

        return reference_engine
    if name == "python":
        return fast.merge_engine
    if name == "compiled":
        if not fast.compiled_available():
            raise ValueError("engine='compiled' but the compiled core was not built (no C++ compiler or Cython at "
                             "install time); reinstall with one, or use engine='auto'")
        from ._merge import merge_engine as compiled

        return compiled
    return fast.get_engine()


def learn_merges(
    engine: str, words: list[list[int]], counts: list[int], id_to_token: list[str], *,
    special_tokens: Sequence[str], prefix: str | None, vocab_size: int | None, num_merges: int | None,
    min_frequency: int, max_token_length: int | None = None, on_merge: OnMerge | None = None,
    show_progress: bool | Progress | None = None, first_rank: int = 0, symbol_lengths: dict[int, int] | None = None,
) -> list[tuple[str, str]]:
    """Run ``engine`` (a name of :data:`ENGINES`) on ``words`` (id lists, ``counts`` each) and return
    the merges it makes; new tokens are appended to ``id_to_token``, numbered from its length.
    Shared by :func:`train_bpe` and :func:`korean_bpe.trainer.continued.continue_bpe`.

    Training stops at ``num_merges`` new merges, at ``vocab_size`` tokens (``id_to_token``
    included), or when the best pair occurs fewer than ``min_frequency`` times
    (:func:`merge_step`).  ``on_merge(rank, (left, right), count)`` hears each merge, ``rank``
    counting from ``first_rank`` (the number of merges of a model being extended);
    ``show_progress`` as everywhere (:mod:`korean_bpe.progress`).  ``symbol_lengths``: the
    ``max_token_length`` lengths of the starting ids that are not 1 (every engine takes them).
    """
    initial_size = len(id_to_token)
    target = min(n for n in (num_merges, None if vocab_size is None else vocab_size - initial_size) if n is not None)
    merges: list[tuple[str, str]] = []
    progress = start_progress(show_progress, total=target, desc="BPE merges", unit="merge")
    try:
        if target > 0 and words:
            step = merge_step(
                id_to_token, merges, special_tokens=special_tokens, prefix=prefix, vocab_size=vocab_size,
                max_merges=num_merges, min_frequency=min_frequency, first_rank=first_rank, on_merge=on_merge,
                progress=progress,
            )
            extra = {} if symbol_lengths is None else {"symbol_lengths": symbol_lengths}
            _get_engine(engine)(words, counts, next_id=initial_size, on_merge=step, max_token_length=max_token_length,
                                **extra)
    finally:
        progress.close()
    return merges


def _learn_merges_flat(
    flat: Any, new_ids: list[int], cuts: list[tuple[int, list[int]]], id_to_token: list[str], *,
    special_tokens: Sequence[str], prefix: str | None, vocab_size: int | None, num_merges: int | None,
    min_frequency: int, max_token_length: int | None = None, on_merge: OnMerge | None = None,
    show_progress: bool | Progress | None = None, num_threads: int = 1,
) -> list[tuple[str, str]]:
    """:func:`learn_merges` for a compiled flat word table (:func:`_prepare_ids`): the whole loop
    runs in C++ (``trainer/_merge.pyx``'s ``train_ids``: the rule of :func:`merge_step`, token texts and ids kept
    there); ``on_merge`` and the progress hear each merge only when there is one to hear."""
    from ._merge import train_ids

    initial_size = len(id_to_token)
    target = min(n for n in (num_merges, None if vocab_size is None else vocab_size - initial_size) if n is not None)
    progress = start_progress(show_progress, total=target, desc="BPE merges", unit="merge")
    listener = None
    if on_merge is not None or progress is not NO_PROGRESS:
        update = progress.update

        def listener(rank: int, pair: tuple[str, str], count: int) -> None:
            if on_merge is not None:
                on_merge(rank, pair, count)
            update(1)

    try:
        if target <= 0:
            return []
        # the C++ loop counts in int64: a larger limit (2**63 and up) is no limit, as in the Python engines
        cap = 2**63 - 1
        return train_ids(flat.words, new_ids, cuts, id_to_token, min_count=min(min_frequency, cap),  # type: ignore[no-any-return]
                         max_merges=None if num_merges is None or num_merges >= cap else num_merges,
                         vocab_size=None if vocab_size is None or vocab_size >= cap else vocab_size,
                         prefix=prefix, specials=special_tokens,
                         max_token_length=max_token_length, on_merge=listener, num_threads=num_threads)
    finally:
        progress.close()


def merge_step(
    id_to_token: list[str], merges: list[tuple[str, str]], *, special_tokens: Sequence[str], prefix: str | None,
    vocab_size: int | None, max_merges: int | None, min_frequency: int, first_rank: int = 0,
    on_merge: OnMerge | None = None, progress: Progress = NO_PROGRESS,
) -> Callable[[int, int, int], int]:
    """The ``on_merge(left_id, right_id, count) -> new_id`` that an engine calls for its best pair:
    ``-1`` (stop) when ``count < min_frequency``, ``max_merges`` merges are made or ``id_to_token``
    holds ``vocab_size`` tokens; else the merge is appended to ``merges``, its token (``left +
    right``, without ``right``'s continuing ``prefix``) to ``id_to_token`` if new, and its id returned.

    ``on_merge(first_rank + k, (left, right), count)`` and ``progress.update(1)`` hear merge ``k``;
    without them (None, :data:`~korean_bpe.progress.NO_PROGRESS`) the step calls nothing more.

    >>> tokens, merges = ["재", "밌", "다"], []
    >>> step = merge_step(tokens, merges, special_tokens=(), prefix=None, vocab_size=None, max_merges=1,
    ...                   min_frequency=2)
    >>> step(0, 1, 5), step(3, 2, 3), tokens, merges          # the second merge is one too many
    (3, -1, ['재', '밌', '다', '재밌'], [('재', '밌')])
    """
    token_to_id = {tok: i for i, tok in enumerate(id_to_token)}
    special_set = frozenset(special_tokens)
    most = max_merges if max_merges is not None else sys.maxsize
    plen = len(prefix) if prefix else 0

    def step(left: int, right: int, count: int) -> int:
        if count < min_frequency or len(merges) >= most:
            return -1
        if vocab_size is not None and len(id_to_token) >= vocab_size:
            return -1
        a, b = id_to_token[left], id_to_token[right]
        token = a + b[plen:] if plen and b.startswith(prefix) else a + b  # type: ignore[arg-type]
        assert token not in special_set, f"merge {a!r} + {b!r} made the special token {token!r}"  # cut_special_runs
        new_id = token_to_id.get(token)
        if new_id is None:
            new_id = token_to_id[token] = len(id_to_token)
            id_to_token.append(token)
        merges.append((a, b))
        return new_id

    if on_merge is None and progress is NO_PROGRESS:
        return step
    update = progress.update

    def step_and_tell(left: int, right: int, count: int) -> int:
        new_id = step(left, right, count)
        if new_id >= 0:
            if on_merge is not None:
                on_merge(first_rank + len(merges) - 1, merges[-1], count)
            update(1)
        return new_id

    return step_and_tell
