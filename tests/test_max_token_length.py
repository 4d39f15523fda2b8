"""``max_token_length``: HF's own test cases (its trainer tests, Korean words among them), every
engine equal to the reference loop, the length rule for each marker, agreement with HF tokenizers
(our ``n`` is HF's ``n + 1``: see :func:`korean_bpe.trainer.train_bpe`), Tokenizer.train and the CLI."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer
from korean_bpe.trainer import train_bpe, train_reference
from korean_bpe.units import apply_marker, get_unit

from _strings import tie_words
from test_trainer_golden import ENGINES

tokenizers = pytest.importorskip("tokenizers")


def symbols_of(token: str, marker: str | None) -> int:
    """A token's length as max_token_length counts it: ``</w>`` and ``##`` count nothing."""
    if marker == "</w>" and token.endswith("</w>"):
        token = token[:-4]
    return len(token.replace("##", "")) if marker == "##" else len(token)


def hf_vocab_and_merges(texts: list[str], *, vocab_size: int, max_token_length: int | None, min_frequency: int = 0,
                        special_tokens=(), marker: str | None = None) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """HF's BpeTrainer on whitespace-separated words."""
    import json

    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    extra = {"end_of_word_suffix": "</w>"} if marker == "</w>" else {"continuing_subword_prefix": "##"} if marker == "##" else {}
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                             special_tokens=list(special_tokens), max_token_length=max_token_length,
                                             **extra)
    tok.train_from_iterator(texts, trainer)
    model = json.loads(tok.to_str())["model"]
    return model["vocab"], [tuple(m) for m in model["merges"]]


# --- HF's own cases (tokenizers/src/models/bpe/trainer.rs) ----------------------------------------

#: bpe_test_max_token_length_direct_assert: each word twice, max_token_length=2, min_frequency=0,
#: and the exact vocabulary HF expects
HF_DIRECT = ["sin", "Sin", "Lon", "Ano", "짧은한", "긴한글", "短字符", "长字符", "短い文", "長い文", "so", "GP"]
HF_DIRECT_VOCAB = {
    "短": 12, "n": 6, "i": 5, "s": 8, "字符": 23, "長": 14, "긴": 17, "い文": 22, "L": 2, "in": 21, "o": 7, "은한": 29,
    "S": 4, "P": 3, "so": 27, "符": 13, "文": 11, "字": 10, "짧": 19, "GP": 25, "글": 16, "G": 1, "An": 24, "长": 15,
    "A": 0, "Lo": 26, "긴한": 28, "い": 9, "한": 20, "은": 18,
}

#: bpe_test_max_token_length_16: long words (Korean, Chinese, Japanese of 10 and 16 characters), twice
HF_LONG = [
    "singlelongtokenwithoutcasechange", "singleLongTokenWithCamelCaseChange", "Longsingletokenwithpunctu@t!onwithin",
    "Anotherlongsingletokenwithnumberw1th1n", "짧은한글문자열짧은한", "긴한글문자열긴한글문자열긴한글문",
    "短字符串短字符串短字", "长字符串长字符串长字符串长字符串", "短い文字列短い文字列", "長い文字列長い文字列長い文字列長",
    "so", "GPT-2",
]


@pytest.mark.parametrize("engine", ENGINES)
def test_hf_direct_assert_case(engine):
    model = train_bpe({tuple(w): 2 for w in HF_DIRECT}, vocab_size=30000, min_frequency=0, special_tokens=(),
                      max_token_length=2, engine=engine)
    assert model.vocab == HF_DIRECT_VOCAB


@pytest.mark.parametrize("engine", ENGINES)
def test_hf_long_words_case(engine):
    model = train_bpe({tuple(w): 2 for w in HF_LONG}, vocab_size=30000, min_frequency=0, special_tokens=(),
                      max_token_length=16, engine=engine)
    lengths = {t: len(t) for t in model.vocab}
    assert max(lengths.values()) == 16  # the limit is reached, never passed
    assert {"긴한글문자열긴한글문자열긴한글문", "长字符串长字符串长字符串长字符串", "長い文字列長い文字列長い文字列長"} <= set(lengths)
    assert "짧은한글문자열짧은한" in lengths  # 10 characters: a whole word
    unlimited = train_bpe({tuple(w): 2 for w in HF_LONG}, vocab_size=30000, min_frequency=0, special_tokens=())
    assert max(map(len, unlimited.vocab)) == 38  # without the limit the longest word becomes one token


def test_hf_cases_in_hf_itself():
    """The same two cases through HF's BpeTrainer: its n = 2 is ours (HF cannot go below 2), its
    n = 17 is our 16 (HF keeps tokens shorter than n)."""
    vocab, _ = hf_vocab_and_merges([" ".join([w] * 2) for w in HF_DIRECT], vocab_size=30000, max_token_length=2)
    assert vocab == HF_DIRECT_VOCAB
    ours = train_bpe({tuple(w): 2 for w in HF_LONG}, vocab_size=30000, min_frequency=0, special_tokens=(),
                     max_token_length=16)
    vocab, merges = hf_vocab_and_merges([" ".join([w] * 2) for w in HF_LONG], vocab_size=30000, max_token_length=17)
    assert list(ours.merges) == merges and ours.vocab == vocab
    vocab16, _ = hf_vocab_and_merges([" ".join([w] * 2) for w in HF_LONG], vocab_size=30000, max_token_length=16)
    assert max(map(len, vocab16)) == 15  # HF's own n = 16 stops at 15 characters


# --- the rule, on every engine ------------------------------------------------------------------


def test_one_symbol_tokens_make_no_merge_and_bad_values_are_refused():
    words = {tuple("ㅋㅋㅋㅋ"): 3, tuple("재밌다"): 2}
    assert train_bpe(words, num_merges=10, min_frequency=1, max_token_length=1).merges == ()
    # ㅋ ㅋ counts 9; 밌 다 and 재 밌 tie at 2 and ids 밌=3 다=2 beat 재=4 밌=3 (code-point order);
    # then ㅋㅋ+ㅋㅋ and 재+밌다 would be longer than 2: no more merges
    assert train_bpe(words, num_merges=10, min_frequency=1, max_token_length=2).merges == (("ㅋ", "ㅋ"), ("밌", "다"))
    assert train_bpe(words, num_merges=10, min_frequency=1, max_token_length=3).merges == (
        ("ㅋ", "ㅋ"), ("밌", "다"), ("재", "밌다"))
    for bad, error in ((0, ValueError), (-3, ValueError), ("3", TypeError), (True, TypeError), (2.0, TypeError)):
        with pytest.raises(error, match="max_token_length"):
            train_bpe(words, num_merges=10, max_token_length=bad)


@pytest.mark.parametrize("marker", [None, "▁", "</w>", "##"])
def test_markers_count_as_hf_counts(marker):
    """▁ is a symbol of its own (one); </w> and ## are part of the symbol they mark (nothing)."""
    words = {apply_marker(tuple(w), marker): c for w, c in {"재밌어요": 5, "재밌다": 3, "최고예요": 4}.items()}
    for n in (2, 3, 4):
        model = train_bpe(words, vocab_size=1000, min_frequency=1, special_tokens=(), max_token_length=n)
        assert max(symbols_of(t, marker) for t in model.vocab) == n
        if n < max(map(len, words)):  # a word still longer than n: n + 1 merges more
            longer = train_bpe(words, vocab_size=1000, min_frequency=1, special_tokens=(), max_token_length=n + 1)
            assert len(longer.merges) > len(model.merges)


random_words = tie_words()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=random_words, n=st.integers(1, 6), marker=st.sampled_from([None, "▁", "</w>", "##"]))
def test_reference_equals_engines_with_the_limit(words, n, marker):
    wc = {apply_marker(tuple(w), marker): c for w, c in words.items()}
    ref = train_reference(wc, num_merges=40, min_frequency=1, max_token_length=n)
    assert all(symbols_of(t, marker) <= n for t in ref.vocab if t not in ref.special_tokens)
    for engine in ENGINES[1:]:
        assert train_bpe(wc, num_merges=40, min_frequency=1, max_token_length=n, engine=engine) == ref, engine


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_reference_equals_engines_on_real_texts(real_texts, unit):
    u = get_unit(unit)
    wc = Counter(u.split(w) for t in real_texts[:300] for w in t.split())
    ref = train_reference(wc, num_merges=300, min_frequency=1, max_token_length=3)
    assert len(ref.merges) == 300 and max(len(a + b) for a, b in ref.merges) == 3
    for engine in ENGINES[1:]:
        assert train_bpe(wc, num_merges=300, min_frequency=1, max_token_length=3, engine=engine).merges == ref.merges


# --- agreement with HF tokenizers on real texts ------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_our_n_is_hf_n_plus_one_on_real_texts(real_texts, unit, n):
    u = get_unit(unit)
    texts = [" ".join("".join(u.split(w)) for w in t.split()) for t in real_texts[:1500]]  # jamo: HF sees jamo
    words = Counter(w for t in texts for w in t.split())
    vocab, merges = hf_vocab_and_merges(texts, vocab_size=2500, max_token_length=n + 1, min_frequency=2,
                                        special_tokens=("<unk>",))
    for engine in ENGINES[1:]:
        ours = train_bpe(Counter({tuple(w): c for w, c in words.items()}), vocab_size=2500, max_token_length=n,
                         engine=engine)
        assert list(ours.merges) == merges and ours.vocab == vocab, engine
    assert max(len(a + b) for a, b in merges) == n


def test_word_start_marker_counts_one_as_in_hf(real_texts):
    """The ▁ marker is a character of the word in HF (Metaspace) and a symbol of ours: both count it."""
    texts = [" ".join("▁" + w for w in t.split()) for t in real_texts[:1500]]
    vocab, merges = hf_vocab_and_merges(texts, vocab_size=2500, max_token_length=4, min_frequency=2,
                                        special_tokens=("<unk>",))
    ours = train_bpe(Counter(("▁", *w) for t in real_texts[:1500] for w in t.split()), vocab_size=2500,
                     max_token_length=3)
    assert list(ours.merges) == merges and ours.vocab == vocab
    assert max(len(a + b) for a, b in ours.merges) == 3 and any(len(a + b) == 3 and a.startswith("▁") for a, b in ours.merges)


# --- Tokenizer.train and the command line ---------------------------------------------------------


@pytest.mark.parametrize("pre_tokenizer,unit", [("whitespace", "syllable"), ("raw", "jamo"), ("raw", "byte")])
def test_tokenizer_train_keeps_every_token_within_the_limit(real_texts, pre_tokenizer, unit):
    tok = Tokenizer.train(real_texts[:800], vocab_size=1500, pre_tokenizer=pre_tokenizer, unit=unit,
                          max_token_length=3)
    # every symbol of these units is one character of the token (a jamo, a byte character, ▁)
    merged = [tok.model.merged_token(a, b) for a, b in tok.merges]
    assert merged and max(map(len, merged)) == 3
    free = Tokenizer.train(real_texts[:800], vocab_size=1500, pre_tokenizer=pre_tokenizer, unit=unit)
    assert max(len(free.model.merged_token(a, b)) for a, b in free.merges) > 3
    held_out = real_texts[900:1100]
    assert [tok.decode(x) for x in tok.encode_batch(held_out)] == [free.decode(x) for x in free.encode_batch(held_out)]
    assert sum(map(len, tok.encode_batch(held_out))) > sum(map(len, free.encode_batch(held_out)))


def test_engine_without_limit_is_unchanged(real_texts):
    wc = Counter(tuple(w) for t in real_texts[:300] for w in t.split())
    for engine in ENGINES:
        assert train_bpe(wc, num_merges=200, max_token_length=None, engine=engine) == train_bpe(wc, num_merges=200)
