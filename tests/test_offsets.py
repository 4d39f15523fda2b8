"""The one offsets module (korean_bpe.encoding.offsets): its two views on every pre-tokenizer x unit
x marker, checked against what they promise (real tokenizers, hypothesis texts)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer
from korean_bpe.encoding.offsets import find_in_order, token_offsets, word_bases, word_places
from korean_bpe.pre_tokenizers import get_pre_tokenizer

from _strings import hard, korean_heavy

PIPELINES = [  # (pre-tokenizer, marker): every valid pairing of the non-analyzer stages
    ("whitespace", "▁"), ("whitespace", "</w>"), ("whitespace", "##"),
    ("raw", None), ("raw", "</w>"), ("raw", "##"),
    ({"type": "raw", "split_by_whitespace": False}, None),
]
UNITS = ["syllable", "jamo", "byte"]
_TRAINED: dict = {}


def trained(real_texts, pre_tokenizer, marker, unit) -> Tokenizer:
    key = (repr(pre_tokenizer), marker, unit)
    if key not in _TRAINED:
        _TRAINED[key] = Tokenizer.train(real_texts[:150], vocab_size={"syllable": 3000, "jamo": 800, "byte": 1400}[unit],
                                        pre_tokenizer=pre_tokenizer, unit=unit, marker=marker, show_progress=False)
    return _TRAINED[key]


def spelled(tok: Tokenizer, text: str) -> tuple[list[int], list[tuple[int, int]]]:
    return token_offsets(text, tok.pre_tokenizer(text), pre_tokenizer=tok.pre_tokenizer, unit=tok.unit,
                         marker=tok._mark, segment=tok._encoder.segment, view="spelled")


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("pre_tokenizer,marker", PIPELINES, ids=[f"{p if isinstance(p, str) else 'superword'}-{m}"
                                                                   for p, m in PIPELINES])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(korean_heavy(30, no_space_mark=True), st.sampled_from(hard(no_surrogates=True,
                                                                                  no_space_mark=True))))
def test_both_views_give_the_ids_and_ordered_spans_inside_the_text(real_texts, pre_tokenizer, marker, unit, text):
    tok = trained(real_texts, pre_tokenizer, marker, unit)
    ids, hf = tok.encode_with_offsets(text, disallowed_special=())
    ids2, sp = spelled(tok, text)
    assert ids == ids2 == tok.encode(text, disallowed_special=())
    for spans in (hf, sp):
        assert len(spans) == len(ids)
        assert all(0 <= a <= b <= len(text) for a, b in spans)
        assert [a for a, _ in spans] == sorted(a for a, _ in spans)
    # the views differ only where a character stands for none: an hf span holds its spelled one
    assert all(ha <= sa and sb <= hb or sa == sb for (ha, hb), (sa, sb) in zip(hf, sp))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=korean_heavy(40, no_space_mark=True))
def test_spelled_raw_syllable_spans_tile_the_text(real_texts, text):
    """raw is lossless and a syllable token spells whole characters: the distinct spelled spans of
    the tokens, in order, cover the text exactly once (a line break is a token of its own)."""
    tok = trained(real_texts, "raw", None, "syllable")
    spans = [s for s in dict.fromkeys(spelled(tok, text)[1]) if s[0] < s[1]]
    assert [i for a, b in spans for i in range(a, b)] == list(range(len(text)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=korean_heavy(40, no_space_mark=True))
def test_spelled_whitespace_spans_tile_the_words(real_texts, text):
    """whitespace drops the white space: the spelled spans cover every other character once."""
    tok = trained(real_texts, "whitespace", "▁", "syllable")
    spans = [s for s in dict.fromkeys(spelled(tok, text)[1]) if s[0] < s[1]]
    assert [i for a, b in spans for i in range(a, b)] == [i for i, ch in enumerate(text) if not ch.isspace()]


def test_hand_cases():
    tok = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30)
    # the ▁ marker: hf gives it the space before its word, spelled nothing
    assert tok.encode_with_offsets("영화 짱")[1] == [(0, 2), (2, 3), (3, 4)]
    assert spelled(tok, "영화 짱")[1] == [(0, 2), (3, 3), (3, 4)]
    raw = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30, pre_tokenizer="raw")
    # raw's dummy prefix: hf aligns it with the first character (a lone ▁ opening the text), spelled
    # gives it nothing; a ▁ written for a real space spans that space in both views
    assert raw.encode_with_offsets(" 영화")[1] == [(0, 1), (0, 3)]
    assert spelled(raw, " 영화")[1] == [(0, 0), (0, 3)]
    assert spelled(raw, "영화\n정말")[1] == [(0, 2), (2, 3), (3, 5)]


def test_word_places_and_find_in_order():
    ws, raw = get_pre_tokenizer("whitespace"), get_pre_tokenizer("raw")
    assert [(w.places, w.start, w.stand_ins) for w in word_places("영화  정말", ["영화", "정말"], ws)] == \
        [([0, 1], 0, 0), ([4, 5], 4, 0)]
    assert [(w.places, w.start, w.stand_ins) for w in word_places("영화\n굿", ["▁영화", "\n", "▁굿"], raw)] == \
        [([0, 0, 1], 0, 1), ([2], 2, 0), ([2, 3], 3, 1)]
    with pytest.raises(ValueError, match="not the text from offset 0"):
        list(word_places("영화", ["영하"], ws))
    assert [(w.places, w.stand_ins) for w in word_places("영화", ["영하", "화"], ws, strict=False)] == \
        [([0, 0], 2), ([1], 0)]
    assert find_in_order("아이언맨은 올해", ["아이언맨", "", "은", "올해"]) == [(0, 4), (4, 5), (6, 8)]
    with pytest.raises(ValueError, match="the analyzer changed the surface"):
        find_in_order("영화", ["영하"])


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "raw", {"type": "raw", "split_by_whitespace": False},
                                           {"type": "kiwi", "lossless": True, "drop": []}], ids=str)
@settings(max_examples=60, deadline=None)
@given(text=st.one_of(korean_heavy(40, no_space_mark=True), st.sampled_from(hard(no_surrogates=True,
                                                                                  no_space_mark=True))))
def test_word_bases_say_what_word_places_say(pre_tokenizer, text):
    """compare's compact placement: character i >= z of a word is text[base + i], z its stand-ins."""
    if isinstance(pre_tokenizer, dict):
        pytest.importorskip("kiwipiepy")
    pt = get_pre_tokenizer(pre_tokenizer)
    words = pt(text)
    for place, (base, z) in zip(word_places(text, words, pt), word_bases(text, words, pt), strict=True):
        assert z == place.stand_ins
        assert all(place.places[i] == base + i for i in range(z, len(place.word)))
    # a word that is not the text (an analyzer that rewrote it) stands for nothing, where the search stopped
    assert word_bases("영화 좋다", ["영화", "조타"], get_pre_tokenizer("whitespace")) == [(0, 0), (0, 2)]
