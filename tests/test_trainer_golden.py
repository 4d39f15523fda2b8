"""Golden merges, worked out by hand and checked against HF tokenizers 0.23 (min_frequency=1).

Each case runs on every engine (the textbook reference loop, the pure-Python incremental engine,
the compiled one when built) and on HF's BpeTrainer itself.
"""

from __future__ import annotations

import json

import pytest

from korean_bpe.trainer import BPEModel, train_bpe
from korean_bpe.trainer.ties import best_pair, order_symbols
from korean_bpe.units import apply_marker


def _engines() -> list[str]:
    from korean_bpe.trainer import fast

    engines = ["reference", "python"]
    if fast.compiled_available():
        engines.append("compiled")
    return engines


ENGINES = _engines()

LOW = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

#: (name, word counts, marker, special tokens, vocab_size, expected merges)
GOLDEN = [
    # Wikipedia: (a, a) counts 4 (two overlapping windows in each "aaa"); then (a, b) and (aa, a)
    # tie at 2 and ids a=0 b=1 beat aa=4, a=0.
    ("wikipedia", {"aaabdaaabac": 1}, None, (), 9,
     [("a", "a"), ("a", "b"), ("aa", "ab"), ("a", "c"), ("d", "aaab")]),
    # HF course: vocab b g h n p s u (7) + 3 merges = 10.  u g 20, u n 16, h ug 15.
    ("hf_course", {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, None, (), 10,
     [("u", "g"), ("u", "n"), ("h", "ug")]),
    # Sennrich et al.: e s 9, es t 9, l o 7, lo w 7; then n e, e w and w est tie at 6 and the ids
    # (d=0 e=1 i=2 l=3 n=4 ... w=9) pick e w: (1, 9) < (4, 1).  The tutorials' dict-order loop
    # merges n e first (test_tie_rule_differs_from_dict_order_loop).
    ("sennrich", LOW, None, (), 100,
     [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w"), ("e", "w"), ("n", "ew"), ("new", "est"),
      ("d", "est"), ("i", "dest"), ("w", "idest"), ("e", "r"), ("low", "er")]),
    # With HF's end_of_word_suffix: t</w>, w</w>, r</w> are symbols of their own.
    ("sennrich_eow", LOW, "</w>", (), 100,
     [("e", "s"), ("es", "t</w>"), ("l", "o"), ("e", "w"), ("n", "ew"), ("new", "est</w>"),
      ("lo", "w</w>"), ("d", "est</w>"), ("i", "dest</w>"), ("w", "idest</w>"), ("e", "r</w>"),
      ("w", "er</w>"), ("lo", "wer</w>")]),
    # With HF's continuing_subword_prefix: '##e' + '##s' gives '##es'.
    ("sennrich_wordpiece", LOW, "##", (), 100,
     [("##e", "##s"), ("##es", "##t"), ("l", "##o"), ("lo", "##w"), ("n", "##e"), ("##w", "##est"),
      ("ne", "##west"), ("w", "##i"), ("##d", "##est"), ("wi", "##dest"), ("##e", "##r"),
      ("low", "##er")]),
    # Repeated symbols: ㅋㅋㅋㅋ x3 holds (ㅋ, ㅋ) three times -> 9 + ㅋㅋㅋ x2 (4) = 13.
    ("kekeke", {"ㅋㅋㅋㅋ": 3, "ㅋㅋㅋ": 2, "ㅎㅎ": 4}, None, ("<unk>",), 100,
     [("ㅋ", "ㅋ"), ("ㅎ", "ㅎ"), ("ㅋㅋ", "ㅋㅋ"), ("ㅋㅋ", "ㅋ")]),
]


def _word_counts(words: dict[str, int], marker: str | None) -> dict[tuple[str, ...], int]:
    return {apply_marker(tuple(w), marker): c for w, c in words.items()}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDEN, ids=[c[0] for c in GOLDEN])
def test_golden_merges(case, engine):
    _, words, marker, specials, vocab_size, expected = case
    model = train_bpe(_word_counts(words, marker), vocab_size=vocab_size, min_frequency=1,
                      special_tokens=specials, engine=engine)
    assert list(model.merges) == expected  # the whole list: every word fully merged, or vocab_size reached


@pytest.mark.parametrize("engine", ENGINES)
def test_hf_course_stops_at_vocab_size_10(engine):
    model = train_bpe(_word_counts(GOLDEN[1][1], None), vocab_size=10, min_frequency=1,
                      special_tokens=(), engine=engine)
    assert model.vocab == {"b": 0, "g": 1, "h": 2, "n": 3, "p": 4, "s": 5, "u": 6, "ug": 7, "un": 8, "hug": 9}


def test_tie_rule_differs_from_dict_order_loop():
    """The tutorials' loop (max over a dict, first key wins ties) merges n e before e w."""
    from collections import Counter

    words = {tuple(w): c for w, c in LOW.items()}
    for _ in range(4):  # e s, es t, l o, lo w
        pairs: Counter[tuple[str, str]] = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                pairs[p] += c
        best = max(pairs, key=pairs.get)  # type: ignore[arg-type]
        words = {_merge(w, best): c for w, c in words.items()}
    pairs = Counter()
    for w, c in words.items():
        for p in zip(w, w[1:]):
            pairs[p] += c
    assert pairs[("n", "e")] == pairs[("e", "w")] == 6
    assert max(pairs, key=pairs.get) == ("n", "e")  # type: ignore[arg-type]
    ids = {s: i for i, s in enumerate(order_symbols("lowernewestwidest"))}
    by_id = {(ids[a], ids[b]): pairs[(a, b)] for a, b in pairs if a in ids and b in ids}
    assert best_pair(by_id) == (ids["e"], ids["w"])


def _merge(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    out: list[str] = []
    i = 0
    while i < len(word):
        if word[i : i + 2] == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


# --- the same cases in HF tokenizers ------------------------------------------------------------


def hf_train(words: dict[str, int], *, vocab_size: int, special_tokens=(), marker: str | None = None,
             min_frequency: int = 1, limit_alphabet: int | None = None, initial_alphabet=()) -> dict:
    """Train HF's BpeTrainer on whitespace-separated words; return its model JSON."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    extra = {}
    if marker == "</w>":
        extra["end_of_word_suffix"] = "</w>"
    if marker == "##":
        extra["continuing_subword_prefix"] = "##"
    if limit_alphabet is not None:
        extra["limit_alphabet"] = limit_alphabet
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=list(special_tokens),
        show_progress=False, initial_alphabet=list(initial_alphabet), **extra,
    )
    tok.train_from_iterator([" ".join([w] * c) for w, c in words.items()], trainer)
    return json.loads(tok.to_str())["model"]


@pytest.mark.parametrize("case", GOLDEN, ids=[c[0] for c in GOLDEN])
def test_golden_merges_are_hf_merges(case):
    _, words, marker, specials, vocab_size, expected = case
    model = hf_train(words, vocab_size=vocab_size, special_tokens=specials, marker=marker)
    assert [tuple(m) for m in model["merges"]] == expected
    ours = train_bpe(_word_counts(words, marker), vocab_size=vocab_size, min_frequency=1, special_tokens=specials)
    assert list(ours.merges) == [tuple(m) for m in model["merges"]]
    if marker is None:  # with markers HF numbers t</w>, w</w>, r</w> in hash order (see ties.py)
        assert ours.vocab == model["vocab"]
    else:
        assert set(ours.vocab) == set(model["vocab"])


def test_bpe_model_roundtrip_of_golden():
    model = train_bpe(_word_counts(LOW, "##"), vocab_size=100, min_frequency=1, special_tokens=())
    assert isinstance(model, BPEModel)
    assert model.continuing_subword_prefix == "##"
    assert "##es" in model.vocab and "##e##s" not in model.vocab
    assert model.vocab["lower"] == model.vocab_size - 1
