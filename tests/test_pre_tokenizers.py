"""``raw`` and ``whitespace``, and the protocol / registry / config round trip of every registered
pre-tokenizer (the analyzers' own behaviour is tested in test_kiwi_mecab.py and the Okt tests)."""

import json
import pickle

import pytest
from hypothesis import given, settings, strategies as st

from korean_bpe.pre_tokenizers import (
    PRE_TOKENIZERS, BasePreTokenizer, PreTokenizer, RawPreTokenizer, WhitespacePreTokenizer, get_pre_tokenizer,
)
from korean_bpe.pre_tokenizers.base import LINE_BREAKS, pieces_from_spans, raw_pieces, restore_marked, spans_from_surfaces

from _strings import HARD, HUGE_LINE, SEED, hangulish
from _strings import hard as hard_strings

EDGE = [*HARD, HUGE_LINE]
HANGULISH = hangulish(40)


# -- raw ---------------------------------------------------------------------------------------

#: every combination of raw's options; (False, False) is the cut of models saved before they existed
RAW_OPTIONS = [(True, True), (False, True), (True, False), (False, False)]


def raw_with(split_by_whitespace, add_dummy_prefix):
    return RawPreTokenizer(split_by_whitespace=split_by_whitespace, add_dummy_prefix=add_dummy_prefix)


def test_raw_pinned():
    raw = RawPreTokenizer()
    assert raw("아이언맨 또 보고") == ["▁아이언맨", "▁또", "▁보고"]
    assert raw(SEED) == ["▁" + w for w in SEED.split(" ")]
    # n spaces before a word: n - 1 pieces "▁" then "▁word" (SentencePiece's SplitIntoWords);
    # a leading space adds to the dummy prefix, a trailing one is a piece "▁"
    assert raw("어제 봤는데\n\n  ㅋㅋ ") == ["▁어제", "▁봤는데", "\n", "\n", "▁", "▁", "▁ㅋㅋ", "▁"]
    assert raw("") == [] and raw(" ") == ["▁", "▁"] and raw("\n") == ["\n"]
    assert raw("탭\t문자\u3000전각") == ["▁탭\t문자\u3000전각"]  # only U+0020 cuts, as in SentencePiece
    assert raw("a▁b") == raw("a b") == ["▁a", "▁b"]  # a ▁ in the text is a space (it comes back as one)


def test_raw_options_pinned():
    text = " 어제 봤는데\nㅋㅋ"
    assert raw_with(False, True)(text) == ["▁▁어제▁봤는데", "\n", "▁ㅋㅋ"]  # superword: merges may cross spaces
    assert raw_with(True, False)(text) == ["▁어제", "▁봤는데", "\n", "ㅋㅋ"]
    assert raw_with(False, False)(text) == ["▁어제▁봤는데", "\n", "ㅋㅋ"] == raw_pieces(text)  # the old cut


def test_raw_matches_sentencepiece_word_boundaries(real_texts):
    """SentencePiece itself (identity normalization, spaces kept, no script/number splits) marks
    spaces and the dummy prefix exactly as raw does, and never cuts a piece across raw's pieces."""
    spm = pytest.importorskip("sentencepiece")
    import io

    texts = [t for t in real_texts if not set(t) & set(LINE_BREAKS + "▁")][:300]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=model, vocab_size=len(set("".join(texts))) + 300, model_type="bpe",
        normalization_rule_name="identity", remove_extra_whitespaces=False, character_coverage=1.0,
        split_by_unicode_script=False, split_by_number=False, minloglevel=2, hard_vocab_limit=False)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    raw = RawPreTokenizer()
    hard = [t for t in hard_strings(no_space_mark=True, no_surrogates=True) if not set(t) & set(LINE_BREAKS)]
    for text in texts + hard:
        ours, theirs = raw(text), sp.encode(text, out_type=str)
        assert "".join(theirs) == "".join(ours), text
        cuts = {sum(map(len, theirs[:k])) for k in range(len(theirs) + 1)}
        assert {sum(map(len, ours[:k])) for k in range(len(ours) + 1)} <= cuts, text
        assert sp.decode(theirs) == raw.restore(ours) == text


@pytest.mark.parametrize("options", RAW_OPTIONS)
@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:15]))
def test_raw_edge_round_trip(text, options):
    raw = raw_with(*options)
    pieces = raw(text)
    assert raw.restore(pieces) == text.replace("▁", " ")  # documented: ▁ comes back as a space
    assert all(p for p in pieces) and not any(" " in p for p in pieces)
    assert all(len(p) == 1 for p in pieces if set(p) & set(LINE_BREAKS))


@pytest.mark.parametrize("options", RAW_OPTIONS)
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), HANGULISH, st.text(st.sampled_from(list(" \n가a▁")), max_size=12)))
def test_raw_round_trips_any_text_without_the_space_mark(options, text):
    raw = raw_with(*options)
    pieces = raw(text)
    if "▁" in text:
        assert raw.restore(pieces) == text.replace("▁", " ")  # documented: ▁ comes back as a space
    else:
        assert raw.restore(pieces) == text
    split_by_whitespace, add_dummy_prefix = options
    for k, p in enumerate(pieces):
        assert p and " " not in p
        if set(p) & set(LINE_BREAKS):
            assert len(p) == 1
        elif split_by_whitespace:  # one word a piece: no merge can cross a space
            assert "▁" not in p[1:]
            after_break = k == 0 or pieces[k - 1] in LINE_BREAKS
            assert p.startswith("▁") or (not add_dummy_prefix and after_break), pieces
    assert raw.batch([text, text]) == [pieces, pieces]


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


@pytest.mark.parametrize("options", RAW_OPTIONS)
def test_raw_round_trips_real_texts(real_texts, options):
    raw = raw_with(*options)
    texts = [t for t in real_texts if "▁" not in t]
    texts.append("\n".join(texts[:50]))  # many lines: a dummy prefix each
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


def test_raw_config_keeps_the_options():
    assert RawPreTokenizer().to_config() == {"type": "raw", "split_by_whitespace": True, "add_dummy_prefix": True}
    superword = get_pre_tokenizer("raw", split_by_whitespace=False)
    assert superword.to_config() == {"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": True}
    assert get_pre_tokenizer(superword.to_config()) == superword != RawPreTokenizer()
    assert repr(superword) == "RawPreTokenizer(split_by_whitespace=False, add_dummy_prefix=True)"
    assert get_pre_tokenizer({"type": "raw"}) == RawPreTokenizer()  # in code, a missing key is the default
    with pytest.raises(TypeError, match="split_by_whitespace must be True or False"):
        RawPreTokenizer(split_by_whitespace="no")
    with pytest.raises(ValueError, match="bad pre-tokenizer config"):
        get_pre_tokenizer({"type": "raw", "split": True})
