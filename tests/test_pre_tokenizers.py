"""``raw`` and ``whitespace``, and the protocol / registry / config round trip of every registered
pre-tokenizer (the analyzers' own behaviour is tested in test_kiwi_mecab.py and the Okt tests)."""

import json
import pickle
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from korean_bpe.pre_tokenizers import (
    PRE_TOKENIZERS, BasePreTokenizer, PreTokenizer, RawPreTokenizer, WhitespacePreTokenizer, get_pre_tokenizer,
)
from korean_bpe.pre_tokenizers.base import LINE_BREAKS, pieces_from_spans, raw_pieces, restore_marked, spans_from_surfaces

EDGE = [
    "", " ", "ㅋㅋㅋ", "ㅠㅠ", "먹겠습니당!", "😉한국어abc123", "ᄒᆞᆫ글", unicodedata.normalize("NFD", "한국어 텍스트"),
    "...!!! ?? ~~", "  앞뒤  공백  ", "줄\n바꿈\r\n끝\n", "탭\t\t문자", "\u2028\u00a0\u3000", "어제 IMAX 봤는데 ㅋㅋ " * 500,
]
SEED = "스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함"
HANGULISH = st.text(
    alphabet=st.sampled_from(list("가각값힣ㅋㅠ ab1.!\n\t\r😉") + ["\u1100", "\u1161", "\u11a8", "\u119e", "\u2028", "\u00a0"]),
    max_size=40,
)


# -- raw ---------------------------------------------------------------------------------------

def test_raw_pinned():
    assert RawPreTokenizer()(SEED) == [SEED.replace(" ", "▁")]
    assert RawPreTokenizer()("어제 봤는데\n\nㅋㅋ ") == ["어제▁봤는데", "\n", "\n", "ㅋㅋ▁"]
    assert RawPreTokenizer()("") == [] and RawPreTokenizer()(" ") == ["▁"]


@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:15]))
def test_raw_edge_round_trip(text):
    raw = RawPreTokenizer()
    pieces = raw(text)
    assert raw.restore(pieces) == text
    assert all(p for p in pieces) and not any(" " in p for p in pieces)
    assert all(len(p) == 1 for p in pieces if set(p) & set(LINE_BREAKS))


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_raw_round_trips_any_text_without_the_space_mark(text):
    raw = RawPreTokenizer()
    if "▁" in text:
        assert raw.restore(raw(text)) == text.replace("▁", " ")  # documented: ▁ comes back as a space
    else:
        assert raw.restore(raw(text)) == text


# -- whitespace ----------------------------------------------------------------------------------

def test_whitespace_pinned():
    assert WhitespacePreTokenizer()(SEED) == ["스파이더맨,", "슈퍼맨,", "배트맨,", "아이언맨은", "올해", "최고의", "영화가", "아닐까", "생각함"]
    assert WhitespacePreTokenizer()("") == [] and WhitespacePreTokenizer()(" \t\n") == []


@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:15]))
def test_whitespace_edge(text):
    ws = WhitespacePreTokenizer()
    words = ws(text)
    assert all(w and not any(c.isspace() for c in w) for w in words)
    assert ws.restore(words) == " ".join(text.split())


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), HANGULISH))
def test_whitespace_lossless_up_to_runs_of_white_space(text):
    ws = WhitespacePreTokenizer()
    assert ws.restore(ws(text)) == " ".join(text.split())
    if text == " ".join(text.split()):  # already single-spaced, no outer space: exact
        assert ws.restore(ws(text)) == text


# -- batch == per text --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["raw", "whitespace"])
def test_batch_equals_per_text(name, real_texts):
    pt = get_pre_tokenizer(name)
    texts = [*real_texts, *EDGE]
    assert pt.batch(texts) == [pt(t) for t in texts]
    assert pt.batch(iter(texts)) == pt.batch(texts)
    assert pt.batch([]) == []


def test_raw_round_trips_real_texts(real_texts):
    raw = RawPreTokenizer()
    texts = [t for t in real_texts if "▁" not in t]
    assert [raw.restore(p) for p in raw.batch(texts)] == texts


# -- the shared span helpers -------------------------------------------------------------------

def test_pieces_from_spans_keeps_every_character():
    text = "  아이언맨은\t올해\n최고!"
    spans = spans_from_surfaces(text, ["아이언맨", "은", "올해", "최고"])
    pieces = pieces_from_spans(text, spans)
    assert pieces == ["▁▁아이언맨", "은", "\t", "올해", "\n", "최고", "!"]
    assert restore_marked(pieces) == text


def test_span_helpers_refuse_bad_input():
    with pytest.raises(ValueError, match="sorted and non-overlapping"):
        pieces_from_spans("아이언맨", [(0, 3), (2, 4)])
    with pytest.raises(ValueError, match="changed the surface"):
        spans_from_surfaces("봤는데", ["보", "았"])
    assert raw_pieces("\r\n") == ["\r", "\n"]


# -- protocol, registry and config round trip for every registered pre-tokenizer -----------------

def test_registry_names():
    assert {"raw", "whitespace", "kiwi", "mecab"} <= set(PRE_TOKENIZERS.names())
    assert PRE_TOKENIZERS.names() == sorted(PRE_TOKENIZERS.names())


@pytest.mark.parametrize("name", PRE_TOKENIZERS.names())
def test_protocol_and_config_round_trip(name):
    pt = get_pre_tokenizer(name)
    assert isinstance(pt, PreTokenizer) and isinstance(pt, BasePreTokenizer)
    assert pt.name == name and isinstance(pt.lossless, bool)
    cfg = pt.to_config()
    assert cfg["type"] == name
    assert json.loads(json.dumps(cfg, ensure_ascii=False)) == cfg  # JSON-safe, saveable
    again = get_pre_tokenizer(cfg)
    assert again == pt and again.to_config() == cfg and hash(again) == hash(pt)
    assert get_pre_tokenizer(dict(cfg)) == pt  # a copy rebuilds the same
    assert get_pre_tokenizer(pt) is pt  # built objects pass through
    assert pickle.loads(pickle.dumps(pt)) == pt
    assert repr(pt).startswith(type(pt).__name__ + "(")
    with pytest.raises(TypeError, match="already built"):
        get_pre_tokenizer(pt, lossless=True)


def test_config_errors_are_clear():
    with pytest.raises(ValueError, match=r"unknown pre-tokenizer 'nope'; choose one of .*'raw'.*'whitespace'"):
        get_pre_tokenizer("nope")
    with pytest.raises(ValueError, match="needs a 'type' key"):
        get_pre_tokenizer({"drop": []})
    with pytest.raises(ValueError, match="bad pre-tokenizer config"):
        get_pre_tokenizer({"type": "whitespace", "lowercase": True})


def test_raw_and_whitespace_equality():
    assert RawPreTokenizer() == get_pre_tokenizer("raw") != WhitespacePreTokenizer()
    assert RawPreTokenizer().lossless and not WhitespacePreTokenizer().lossless
