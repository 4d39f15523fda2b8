"""The merge engines (compiled and pure Python) against a brute-force recount, golden cases and HF.

The brute force recounts every pair of every word before each merge (HF's counting: a word with
count ``c`` adds ``c`` per adjacent position, so ``ㅋ ㅋ ㅋ`` holds ``(ㅋ, ㅋ)`` twice), picks the
highest count and then the smaller ``(left, right)`` pair, and merges left to right without
overlap.  Both engines must give exactly its merges, counts included.
"""

from __future__ import annotations

import importlib
import logging
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_bpe.jamo import decompose
from korean_bpe import words as words_module
from korean_bpe.trainer import fast
from korean_bpe.trainer.fast import get_engine, merge_engine, words_to_ids

from _strings import HARD, tie_words

from korean_bpe._optional import compiled as compiled_module
from korean_bpe.counting import count_words, split_words
from korean_bpe.pre_tokenizers.base import get_pre_tokenizer
from korean_bpe.units import get_unit

_merge = compiled_module(fast.CORE)  # the compiled engine (korean_bpe/trainer/_merge.pyx), None when not built
_counting = words_module.core()      # the compiled counting core (korean_bpe/_counting.pyx)

needs_compiled = pytest.mark.skipif(
    _merge is None,
    reason="compiled engine korean_bpe.trainer._merge not built (no C++ compiler or Cython at install)",
)

ENGINES = [pytest.param(merge_engine, id="python")]
if _merge is not None:
    ENGINES.append(pytest.param(_merge.merge_engine, id="compiled"))


def brute_force(words, counts, *, next_id, on_merge):
    """The definition: recount everything, pick, merge everywhere; repeat."""
    ws = [list(w) for w in words]
    while True:
        pairs: dict[tuple[int, int], int] = {}
        for w, c in zip(ws, counts):
            for p in zip(w, w[1:]):
                pairs[p] = pairs.get(p, 0) + c
        if not pairs:
            return
        (a, b), cnt = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
        new = on_merge(a, b, cnt)
        if new < 0:
            return
        for k, w in enumerate(ws):
            out, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(new)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            ws[k] = out


def run_fresh(engine, words, counts, next_id, limit=None):
    """Merges as (left, right, count), each new token taking the next id."""
    out: list[tuple[int, int, int]] = []

    def on_merge(a, b, c):
        if limit is not None and len(out) >= limit:
            return -1
        out.append((a, b, c))
        return next_id + len(out) - 1

    engine(words, counts, next_id=next_id, on_merge=on_merge)
    return out


def run_strings(engine, words: dict, limit=None):
    """Train on strings (or tuples of symbols), symbols in code-point order, merged strings reusing
    ids (as HF does when ``"a"+"bc"`` and ``"ab"+"c"`` give one token).  Returns merges as strings."""
    alphabet = sorted({ch for w in words for ch in w})
    tokens = list(alphabet)
    ids = {s: i for i, s in enumerate(tokens)}
    merges: list[tuple[str, str, int]] = []

    def on_merge(a, b, c):
        if limit is not None and len(merges) >= limit:
            return -1
        s = tokens[a] + tokens[b]
        merges.append((tokens[a], tokens[b], c))
        if s not in ids:
            ids[s] = len(tokens)
            tokens.append(s)
        return ids[s]

    engine([[ids[ch] for ch in w] for w in words], list(words.values()), next_id=len(tokens), on_merge=on_merge)
    return merges


# ---------------------------------------------------------------- golden cases


@pytest.mark.parametrize("engine", ENGINES)
def test_wikipedia_aaabdaaabac(engine):
    # a=0 b=1 c=2 d=3; new ids 4, 5, ...: "a a" -> 4, "a b" -> 5, "aa ab" -> 6, "a c" -> 7
    a, b, c, d = 0, 1, 2, 3
    word = [a, a, a, b, d, a, a, a, b, a, c]
    merges = run_fresh(engine, [word], [1], next_id=4)
    assert merges[:4] == [(a, a, 4), (a, b, 2), (4, 5, 2), (a, c, 1)]  # (a,a) at 4 positions
    assert merges == run_fresh(brute_force, [word], [1], next_id=4)


@pytest.mark.parametrize("engine", ENGINES)
def test_hug_pug_pun_bun_hugs(engine):
    merges = run_strings(engine, {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, limit=3)
    # u g: 10+5+5 = 20; u n: 12+4 = 16; h ug: 10+5 = 15
    assert merges == [("u", "g", 20), ("u", "n", 16), ("h", "ug", 15)]


@pytest.mark.parametrize("engine", ENGINES)
def test_repeated_symbol_overlaps(engine):
    ㅋ = 0
    # ㅋㅋㅋㅋㅋ (x3): (ㅋ,ㅋ) at 4 positions -> 12; merging gives ㅋㅋ ㅋㅋ ㅋ (ㅋㅋ = 1):
    # (1,1) 3 and (1,0) 3 tie, the smaller pair (1,0) goes first: ㅋㅋ ㅋㅋㅋ, then (1,2) 3
    merges = run_fresh(engine, [[ㅋ] * 5], [3], next_id=1)
    assert merges == [(0, 0, 12), (1, 0, 3), (1, 2, 3)]
    # ㅋㅋㅋ: (ㅋ,ㅋ) twice, merged once (left first): ㅋㅋ ㅋ
    assert run_fresh(engine, [[ㅋ] * 3], [1], next_id=1) == [(0, 0, 2), (1, 0, 1)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("word", ["aaaa", "ㅋㅋㅋㅋㅋ", "abababab", "aaabdaaabac", "ㅎㅎㅎㅋㅋㅋㅎㅎㅎ"])
def test_tricky_words_match_brute_force(engine, word):
    words = {word: 3, word[:-1]: 2, word[1:]: 7}
    assert run_strings(engine, words) == run_strings(brute_force, words)


@pytest.mark.parametrize("engine", ENGINES)
def test_existing_id_and_stop(engine):
    # "ab" is already a symbol, so merging a+b returns its id: (ab, x) then counts 5 + 3
    words = {("a", "b", "x"): 5, ("ab", "x"): 3, ("a", "b"): 1, ("x", "a", "b", "a", "b"): 2}
    merges = run_strings(engine, words)
    assert merges[:2] == [("a", "b", 10), ("ab", "x", 8)]
    assert merges == run_strings(brute_force, words)
    # a token reached twice: ㅋㅋ+ㅋ here, ㅋ+ㅋㅋ where ㅋㅋ was a symbol already
    words = {("ㅋ", "ㅋ", "ㅋ", "!"): 4, ("ㅋ", "ㅋㅋ", "!"): 3, ("ㅋㅋ", "ㅋ"): 1}
    merges = run_strings(engine, words)
    assert merges == run_strings(brute_force, words)
    made = [l + r for l, r, _ in merges]
    assert len(made) > len(set(made))
    # -1 stops at once: only the merges asked for happen
    assert run_strings(engine, words, limit=2) == merges[:2]
    assert run_fresh(engine, [[0, 1, 0, 1]], [1], next_id=2, limit=0) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_runs_until_no_pair_left(engine):
    merges = run_fresh(engine, [[0, 1, 2], [3], [2, 2]], [2, 9, 1], next_id=4)
    assert merges == [(0, 1, 2), (4, 2, 2), (2, 2, 1)]
    assert run_fresh(engine, [[0], [1], []], [1, 2, 3], next_id=2) == []
    assert run_fresh(engine, [], [], next_id=0) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_inputs_not_modified_and_errors(engine):
    words, counts = [[0, 1, 0, 1]], [2]
    run_fresh(engine, words, counts, next_id=2)
    assert words == [[0, 1, 0, 1]] and counts == [2]
    with pytest.raises(ValueError, match="same length"):
        engine([[0, 1]], [1, 2], next_id=2, on_merge=lambda a, b, c: -1)
    with pytest.raises(ValueError, match="counts must be positive"):
        engine([[0, 1]], [0], next_id=2, on_merge=lambda a, b, c: -1)
    with pytest.raises(ValueError, match="next_id"):
        engine([[0, 1]], [1], next_id=-1, on_merge=lambda a, b, c: -1)


@pytest.mark.parametrize("engine", ENGINES)
def test_huge_counts_stay_exact(engine):
    big = 2**62
    words, counts = [[0, 1, 0, 1], [1, 0], [0, 0, 0]], [big, big + 7, 3]
    assert run_fresh(engine, words, counts, next_id=2) == run_fresh(brute_force, words, counts, next_id=2)
    assert run_fresh(engine, words, counts, next_id=2)[0] == (1, 0, 2 * big + 7)


# ---------------------------------------------------------------- random tables

#: counts: small, around the compiled engine's first queue floor (1,024) and its halvings (a pair
#: counted fewer times waits in a list until the heap runs dry: merge_engine.hpp, enqueue), huge
word_tables = st.dictionaries(
    keys=st.lists(st.integers(0, 3), min_size=1, max_size=9).map(tuple),
    values=st.one_of(st.integers(1, 5), st.integers(1, 3000), st.integers(1, 2**40)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word_tables)
def test_engines_equal_brute_force_on_random_tables(table):
    words, counts = [list(w) for w in table], list(table.values())
    expected = run_fresh(brute_force, words, counts, next_id=4)
    assert run_fresh(merge_engine, words, counts, next_id=4) == expected
    if _merge is not None:
        assert run_fresh(_merge.merge_engine, words, counts, next_id=4) == expected


@settings(max_examples=200, deadline=None)
@given(tie_words())
def test_engines_equal_brute_force_with_reused_ids(table):
    expected = run_strings(brute_force, table)
    assert run_strings(merge_engine, table) == expected
    if _merge is not None:
        assert run_strings(_merge.merge_engine, table) == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_a_token_made_again_meets_the_pairs_of_a_new_one(engine):
    # xx is new: its pair (ab, xx) waits outside the compiled engine's table (merge_engine.hpp,
    # is_new_token); a+b then makes the symbol "ab" again, whose gained (ab, xx) must find it
    words = {("a", "b", "x", "x"): 3, ("ab", "x", "x"): 2, ("x", "x"): 10}
    assert run_strings(engine, words) == [("x", "x", 15), ("a", "b", 3), ("ab", "xx", 5)]


#: words over symbols some of which are the others joined: merges make them again
symbol_words = st.dictionaries(
    keys=st.lists(st.sampled_from(["a", "b", "ab", "x", "xx", "bx"]), min_size=1, max_size=8).map(tuple),
    values=st.integers(1, 20),
    min_size=1,
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(symbol_words)
def test_engines_equal_brute_force_when_merges_make_symbols_again(table):
    expected = run_strings(brute_force, table)
    assert run_strings(merge_engine, table) == expected
    if _merge is not None:
        assert run_strings(_merge.merge_engine, table) == expected


# ---------------------------------------------------------------- against HF tokenizers


def hf_merges(texts, vocab_size):
    tokenizers = pytest.importorskip("tokenizers")
    import json

    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=1, special_tokens=[], show_progress=False
    )
    tok.train_from_iterator(texts, trainer=trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_same_merges_as_hf_on_real_reviews(engine, unit, real_texts):
    texts = [decompose(t) for t in real_texts] if unit == "jamo" else list(real_texts)
    counts: dict[str, int] = {}
    for t in texts:
        for w in t.split():
            counts[w] = counts.get(w, 0) + 1
    alphabet = len({ch for w in counts for ch in w})
    vocab_size = alphabet + 1500
    ours = run_strings(engine, counts, limit=1500)
    assert [(l, r) for l, r, _ in ours] == hf_merges(texts, vocab_size)


@pytest.mark.parametrize("word", ["aaaa", "ㅋㅋㅋㅋㅋ", "abababab"])
def test_same_merges_as_hf_on_tricky_words(word):
    counts = {word: 1, "a" + word: 2}
    texts = [w for w, c in counts.items() for _ in range(c)]
    ours = run_strings(get_engine(), counts)
    alphabet = len({ch for w in counts for ch in w})
    assert [(l, r) for l, r, _ in ours] == hf_merges(texts, alphabet + len(ours))


# ---------------------------------------------------------------- compiled vs fallback


@needs_compiled
def test_get_engine_is_compiled_when_built():
    assert get_engine() is _merge.merge_engine
    assert fast.compiled_available()


def test_fallback_without_compiled_module(monkeypatch, caplog, real_texts):
    counts: dict[str, int] = {}
    for t in real_texts[:300]:
        for w in t.split():
            counts[w] = counts.get(w, 0) + 1
    expected = run_strings(get_engine(), counts, limit=300)
    monkeypatch.setitem(sys.modules, fast.CORE, None)  # import now fails
    plain = importlib.reload(fast)
    try:
        with caplog.at_level(logging.WARNING, logger="korean_bpe.trainer.fast"):
            engine = plain.get_engine()
            plain.get_engine()
        assert engine is plain.merge_engine
        assert not plain.compiled_available()
        notes = [r for r in caplog.records if "compiled BPE engine not available" in r.getMessage()]
        assert len(notes) == 1  # said once
        assert run_strings(engine, counts, limit=300) == expected
        assert plain.words_to_ids({("값", "이"): 2}, {"값": 5, "이": 6}) == ([[5, 6]], [2])
    finally:
        monkeypatch.undo()
        importlib.reload(fast)


@pytest.mark.parametrize("compiled", [False, True])
def test_words_to_ids(compiled, monkeypatch):
    if compiled and _merge is None:
        pytest.skip("compiled engine not built")
    fn = _merge.words_to_ids if compiled else words_to_ids
    if not compiled:
        monkeypatch.setitem(sys.modules, fast.CORE, None)
    table = {("ᄀ", "ᅡ", "ᆹ"): 3, ("▁", "값"): 1}
    ids = {"ᄀ": 0, "ᅡ": 1, "ᆹ": 2, "▁": 3, "값": 4}
    assert fn(table, ids) == ([[0, 1, 2], [3, 4]], [3, 1])
    assert fn(list(table.items()), ids) == ([[0, 1, 2], [3, 4]], [3, 1])
    with pytest.raises(KeyError):
        fn({("ᄂ",): 1}, ids)


# ---------------------------------------------------------------- text -> engine input helpers

HARD_TEXTS = list(HARD)  # the hard strings of the counting helpers


def _without_compiled(monkeypatch):
    for module in (words_module.CORE, fast.CORE):
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize("compiled", [False, True])
def test_count_words_equals_counter(compiled, monkeypatch, real_texts):
    from collections import Counter

    if compiled and _merge is None:
        pytest.skip("compiled engine not built")
    if not compiled:
        _without_compiled(monkeypatch)
    texts = HARD_TEXTS + list(real_texts)
    expected = dict(Counter(w for t in texts for w in t.split()))
    got = count_words(iter(texts), get_pre_tokenizer("whitespace"))
    assert got == expected and list(got) == list(expected)  # same counts, first-seen order
    with pytest.raises(TypeError, match="texts must hold str"):
        count_words(["좋다", 3], get_pre_tokenizer("whitespace"))


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@pytest.mark.parametrize("marker", [None, "\u2581", "</w>", "##"])
def test_split_words_equals_units(compiled, unit, marker, monkeypatch, real_texts):
    from korean_bpe.units import apply_marker

    if compiled and _merge is None:
        pytest.skip("compiled engine not built")
    if not compiled:
        _without_compiled(monkeypatch)
    words = count_words(HARD_TEXTS + list(real_texts[:500]), get_pre_tokenizer("whitespace"))
    expected: dict = {}
    u = get_unit(unit)
    for w, c in words.items():
        key = apply_marker(u.split(w), marker)
        expected[key] = expected.get(key, 0) + c
    got = split_words(words, get_unit(unit), marker=marker)
    assert got == expected and list(got) == list(expected)
    if compiled:  # the compiled dict path too (what counts beyond int64 take)
        as_dict = _counting.split_counts(words, unit, marker)
        assert as_dict == expected and list(as_dict) == list(expected)
    if unit == "jamo":  # 가 (NFC) and ᄀ+ᅡ (NFD) give the same jamo: their counts add up
        assert got[apply_marker(("\u1100", "\u1161"), marker)] == words["가"] + words["\u1100\u1161"]
    counts = fast.symbol_counts(got)
    assert sum(counts.values()) == sum(c * len(k) for k, c in got.items())
    with pytest.raises(ValueError, match="marker"):
        split_words(words, get_unit(unit), marker="@@")


@pytest.mark.parametrize("compiled", [False, True])
def test_symbol_counts_and_words_to_ids_with_unshared_symbols(compiled, monkeypatch):
    if compiled and _merge is None:
        pytest.skip("compiled engine not built")
    if not compiled:
        _without_compiled(monkeypatch)
    # symbols built separately (equal strings, different objects) and huge counts stay exact
    table = {tuple("".join(["ᄏ"]) for _ in range(3)): 2**62, ("ᄒ", "".join(["ᄏ"])): 5}
    assert fast.symbol_counts(table) == {"ᄏ": 3 * 2**62 + 5, "ᄒ": 5}
    table = {(str(i % 7), str(i % 5)): i + 1 for i in range(100)}
    expected: dict = {}
    for k, c in table.items():
        for s in k:
            expected[s] = expected.get(s, 0) + c
    assert fast.symbol_counts(table) == expected
    ids = {s: n for n, s in enumerate(sorted(expected))}
    words, counts = fast.words_to_ids(iter(list(table.items())), ids)
    assert words == [[ids[s] for s in k] for k in table] and counts == list(table.values())


# ---------------------------------------------------------------- flat word table (split_ids -> train_bpe)

flat_words = st.dictionaries(
    st.text(alphabet="ㅋ가각<unk>s#▁😉\u1100\u1161/w", min_size=1, max_size=9), st.integers(1, 6), min_size=1, max_size=14
)


@needs_compiled
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=flat_words, unit=st.sampled_from(["syllable", "jamo"]),
       marker=st.sampled_from([None, "\u2581", "</w>", "##"]), extra=st.integers(0, 30),
       min_frequency=st.integers(0, 3), limit=st.sampled_from([None, 2, 4]), max_len=st.sampled_from([None, 2, 3]),
       specials=st.sampled_from([("<unk>",), ("<unk>", "ㅋㅋ", "<s>"), ("##가", "ᄀ</w>")]))
def test_flat_table_trains_as_the_dict(words, unit, marker, extra, min_frequency, limit, max_len, specials):
    """The compiled table (symbol ids in flat arrays, merges named in C++) gives the model of the
    dict path (tuples, the Python step), under every option that changes the ids or the stop."""
    from korean_bpe.trainer import train_bpe

    table = words_module.split_ids(words, unit=unit, marker=marker)
    assert isinstance(table, words_module.SymbolCounts)
    as_dict = _counting.split_counts(words, unit, marker)
    assert table == as_dict and list(table) == list(as_dict) and table.words.marker == marker
    options = dict(vocab_size=len(specials) + 2 * len({s for k in as_dict for s in k}) + extra,
                   min_frequency=min_frequency, special_tokens=specials, limit_alphabet=limit, max_token_length=max_len)
    seen: list = []
    flat = train_bpe(table, **options, on_merge=lambda rank, pair, count: seen.append((rank, pair)))
    assert flat == train_bpe(as_dict, **options)
    derived = type(flat)(flat.special_tokens, flat.alphabet, flat.merges, flat.continuing_subword_prefix)
    assert flat.id_to_token == derived.id_to_token  # the ids the trainer filled in are the model's own
    assert flat == train_bpe(table, **options)  # no listener: the loop never leaves C++
    assert seen == list(enumerate(flat.merges))
    for tok in specials:  # a run spelling a special token is cut, never merged into it
        assert all(flat.merged_token(*m) != tok for m in flat.merges)


@needs_compiled
def test_flat_table_by_hand():
    from korean_bpe.trainer import train_bpe

    table = words_module.split_ids({"ㅋㅋㅋ": 4, "<unk>ㅋ": 2, "가": 9}, unit="syllable", marker="\u2581")
    words = table.words
    assert words.symbols == ["▁", "ㅋ", "<", "u", "n", "k", ">", "가"] and len(words) == 3
    assert words.frequencies() == [15, 14, 2, 2, 2, 2, 2, 9]
    model = train_bpe(table, num_merges=10, special_tokens=("<unk>",))
    # (▁, 가) 9; ▁ ㅋ ㅋ ㅋ x4: (ㅋ, ㅋ) 8; then (▁, ㅋㅋ) and (ㅋㅋ, ㅋ) tie at 4, ids ▁=6 ㅋㅋ=10 ㅋ=7
    # (after <unk> and < > k n u): the smaller pair first.  "<unk>" is cut before its ">"
    assert model.merges[:4] == (("▁", "가"), ("ㅋ", "ㅋ"), ("▁", "ㅋㅋ"), ("▁ㅋㅋ", "ㅋ"))
    assert "<unk>" not in [model.merged_token(*m) for m in model.merges]
    assert train_bpe(table, num_merges=10, special_tokens=("<unk>",)) == train_bpe(dict(table), num_merges=10,
                                                                                   special_tokens=("<unk>",))


@needs_compiled
def test_split_ids_leaves_huge_counts_to_the_dict_path():
    assert words_module.split_ids({"가나": 2**63}, unit="syllable", marker=None) is None
    assert words_module.split_ids({"가나": 2**61, "나가": 2**61, "가가": 2**61, "나나": 2**61}, unit="syllable",
                          marker=None) is None  # the symbol counts would pass 2**63
    assert words_module.split_ids({"가나": 0}, unit="syllable", marker=None) is None  # the dict path says why
    assert words_module.split_ids({"가나": 2}, unit="byte", marker=None) is None
