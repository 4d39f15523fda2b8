"""Encoding options: BPE-dropout, Hangul fallback, offsets (``encode_with_offsets``).

Real components only: trained tokenizers on real texts (NSMC test reviews when present, else the
embedded konlpy corpus), the real analyzers (Okt on its JVM, Kiwi, MeCab), the real HF
``tokenizers`` / ``transformers`` loading our export.
"""

from __future__ import annotations

import json
import math
import random
import unicodedata
from itertools import groupby

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer
from korean_bpe.encoding import merge_dropout
from korean_bpe.jamo import compose, decompose, is_syllable
from korean_bpe.markers import NoMarker
from korean_bpe.jamo import hangul_spellings as _hangul_pieces
from korean_bpe.tokenizer import BYTE_TOKENS, JAMO_ALPHABET
from korean_bpe.trainer import BPEModel
from korean_bpe.units import apply_marker, strip_marker

from _strings import hard

# U+2581 in the text decodes as a space under the ▁ marker
HARD = hard(no_space_mark=True)

TRAIN = 1500  # texts the shared tokenizers are trained on; the rest are held out


@pytest.fixture(scope="module")
def texts(real_texts):
    return list(real_texts)


@pytest.fixture(scope="module")
def held_out(texts):
    return texts[TRAIN:]


_TOKS: dict = {}


def trained(texts, pre_tokenizer="whitespace", unit="syllable", vocab_size=1200, **kw):
    key = (json.dumps(pre_tokenizer, sort_keys=True), unit, vocab_size, tuple(sorted(kw.items())))
    if key not in _TOKS:
        extra = 256 if kw.get("byte_fallback") else 0
        _TOKS[key] = Tokenizer.train(texts[:TRAIN], vocab_size=vocab_size + extra, pre_tokenizer=pre_tokenizer,
                                     unit=unit, limit_alphabet={"syllable": 700, "jamo": 300}.get(unit), **kw)
    return _TOKS[key]


# --- BPE-dropout -------------------------------------------------------------------------------

def test_merge_dropout_hand_cases():
    pairs = {(0, 1): (0, 5), (5, 5): (1, 6)}
    assert merge_dropout([0, 1, 0, 1], dict(pairs), 0.0, random.Random(0)) == [6]
    assert merge_dropout([0, 1, 0, 1], dict(pairs), 1.0, random.Random(0)) == [0, 1, 0, 1]
    assert merge_dropout([0, -1, 1], dict(pairs), 0.0, random.Random(0)) == [0, -1, 1]  # unknown never merges



def _rescan_dropout(ids, pairs, p, rng):
    """The spec of ``merge_dropout`` written the slow way (its former body): every step rescans all
    the pairs, sorts the candidates by (rank, position) and draws for them in that order."""
    while True:
        cands = sorted((m[0], i, m[1]) for i, pair in enumerate(zip(ids, ids[1:])) if (m := pairs.get(pair)) is not None)
        for _, i, new in cands:
            if rng.random() >= p:
                ids[i:i + 2] = [new]
                break
        else:
            return ids


def _merge_table(draw):
    """Random merges over symbols 0..3, each new id fresh (as in a trained model), ranks in order."""
    table, symbols = {}, [0, 1, 2, 3]
    for rank in range(draw(st.integers(0, 12))):
        pair = (draw(st.sampled_from(symbols)), draw(st.sampled_from(symbols)))
        if pair not in table:
            table[pair] = (rank, len(symbols))
            symbols.append(len(symbols))
    return table


@settings(max_examples=300, deadline=None)
@given(data=st.data(), p=st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), seed=st.integers(0, 2**32))
def test_merge_dropout_draws_like_the_rescan(data, p, seed):
    # same seed, same ids and the same number of draws as the rescan it replaced
    pairs = data.draw(st.builds(_merge_table, st.just(data.draw)))
    ids = data.draw(st.lists(st.sampled_from([-1, 0, 1, 2, 3]), max_size=40))
    fast_rng, slow_rng = random.Random(seed), random.Random(seed)
    assert merge_dropout(list(ids), pairs, p, fast_rng) == _rescan_dropout(list(ids), pairs, p, slow_rng)
    assert fast_rng.random() == slow_rng.random()


class _CountingPairs(dict):
    lookups = 0

    def get(self, key, default=None):
        type(self).lookups += 1
        return super().get(key, default)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5])
def test_merge_dropout_looks_up_linearly_many_pairs(p):
    # a word of n symbols that merges down to one token: a rescan per merge looks up ~n*n/2 pairs,
    # the heap a few per symbol (counted, not timed)
    n = 4096
    pairs = _CountingPairs({(0, 0): (0, 1)})
    for r in range(1, 12):
        pairs[(r, r)] = (r, r + 1)
    _CountingPairs.lookups = 0
    out = merge_dropout([0] * n, pairs, p, random.Random(0))
    assert out == [12] if p == 0 else len(out) > 1
    assert _CountingPairs.lookups < 20 * n


DROPOUT_CASES = [("whitespace", "syllable"), ("whitespace", "jamo"), ("raw", "syllable"), ("raw", "byte"),
                 ({"type": "raw", "split_by_whitespace": False}, "jamo")]


@pytest.mark.parametrize("pt, unit", DROPOUT_CASES)
def test_dropout_zero_is_todays_encoding(texts, held_out, pt, unit):
    tok = trained(texts, pt, unit)
    sample = HARD + held_out[:300]
    expected = [tok.encode(t) for t in sample]
    assert [tok.encode(t, dropout=0.0, seed=3) for t in sample] == expected
    assert tok.encode_batch(sample, dropout=0) == expected


@pytest.mark.parametrize("pt, unit", DROPOUT_CASES)
def test_dropout_one_gives_the_unit_symbols(texts, held_out, pt, unit):
    tok = trained(texts, pt, unit, byte_fallback=(unit != "byte"))
    for t in HARD + held_out[:100]:
        got = tok.tokenize(t, dropout=1.0)
        symbols = [s for w in tok.pre_tokenizer(t) for s in apply_marker(tok.unit.split(w), tok.marker)]
        # every symbol is its own token (unknown ones become their byte tokens)
        expected = [s if s in tok.vocab else b for s in symbols
                    for b in ([s] if s in tok.vocab else [BYTE_TOKENS[x] for x in s.encode("utf-8", "surrogatepass")])]
        assert got == expected, t


@pytest.mark.parametrize("pt, unit", DROPOUT_CASES)
def test_dropout_decodes_exactly_and_is_reproducible(texts, held_out, pt, unit):
    tok = trained(texts, pt, unit)
    sample = HARD + held_out[:200]
    before = [tok.encode(t) for t in sample]
    changed = 0
    for k, t in enumerate(sample):
        ids = tok.encode(t, dropout=0.3, seed=k)
        assert ids == tok.encode(t, dropout=0.3, seed=k)  # same seed, same ids
        assert tok.decode(ids) == tok.decode(before[k])
        changed += ids != before[k]
    assert changed > len(sample) // 3
    # the word cache is bypassed: nothing from the dropout runs leaks into the usual encoding
    assert [tok.encode(t) for t in sample] == before
    batch = tok.encode_batch(sample, dropout=0.3, seed=7)
    assert batch == tok.encode_batch(sample, dropout=0.3, seed=7)
    assert batch != tok.encode_batch(sample, dropout=0.3, seed=8)


def test_dropout_mean_length_grows_with_p(texts, held_out):
    tok = trained(texts)
    sample = held_out[:300]
    means = [sum(map(len, tok.encode_batch(sample, dropout=p, seed=0))) / len(sample)
             for p in (0.0, 0.05, 0.1, 0.3, 0.6, 1.0)]
    assert means == sorted(means) and len(set(means)) == len(means), means


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_skips_one_merge_with_probability_p(p):
    """One merge (가 + 나): each occurrence of 가나 stays two tokens with probability p;
    the count is Binomial(n, p), checked within 4.5 standard deviations (fixed seed)."""
    tok = Tokenizer(BPEModel(("<unk>",), ("가", "나"), (("가", "나"),)), marker=NoMarker(glue_words=True))  # encode only
    n = 4000
    ids = tok.encode(" ".join(["가나"] * n), dropout=p, seed=12345)
    skipped = len(ids) - n
    assert abs(skipped - n * p) <= 4.5 * math.sqrt(n * p * (1 - p)), skipped


def test_dropout_argument_errors(texts):
    tok = trained(texts)
    for bad in (-0.1, 1.5, "0.1", True, float("nan")):
        with pytest.raises(ValueError, match="dropout must be a probability"):
            tok.encode("영화", dropout=bad)
    with pytest.raises(TypeError, match="seed must be an int"):
        tok.encode("영화", dropout=0.1, seed="1")


def test_hf_export_with_dropout_behaves_like_dropout(texts, held_out, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    tok = trained(texts, "raw", "syllable", byte_fallback=True)
    path = tok.to_huggingface(tmp_path / "tokenizer.json", dropout=0.3)
    assert json.loads(path.read_text(encoding="utf-8"))["model"]["dropout"] == 0.3
    hf = tokenizers.Tokenizer.from_file(str(path))
    for t in held_out[:50]:
        if len(t) < 10:
            continue
        runs = {tuple(hf.encode(t).ids) for _ in range(8)}
        for ids in runs:
            assert tok.decode(list(ids)) == t  # every HF dropout segmentation decodes exactly (ours)
            assert hf.decode(list(ids), skip_special_tokens=False) == t  # and with HF's decoder
        assert len(runs) > 1 or len(tok.encode(t)) == len(t) + 1
    with pytest.raises(ValueError, match="dropout must be None or a probability"):
        tok.to_huggingface(tmp_path / "x.json", dropout=0.0)


# --- Hangul fallback ---------------------------------------------------------------------------

def test_hangul_pieces_split_as_kiwipiepy():
    assert _hangul_pieces("값") == (("가", "\u11b9"), ("\u1100", "\u1161", "\u11b9"))
    assert _hangul_pieces("뷁") == (("붸", "\u11b0"), ("\u1107", "\u1170", "\u11b0"))
    assert _hangul_pieces("가") == (("\u1100", "\u1161"),)
    assert _hangul_pieces("a") == () and _hangul_pieces("ㅋ") == ()
    assert len(JAMO_ALPHABET) == 67 == len(set(JAMO_ALPHABET))


def test_hangul_fallback_hand_case():
    alphabet = ("▁", "영", "화", "가") + JAMO_ALPHABET
    tok = Tokenizer(BPEModel(("<unk>",), alphabet, (("▁", "영"), ("▁영", "화"))), hangul_fallback=True)
    # 값: 가 is in the vocabulary, so 가 + ᆹ; 뷁: 붸 is not, so ᄇ ᅰ ᆰ; 가: itself; 'a': <unk>
    assert tok.tokenize("영화 값 뷁 가a") == ["▁영화", "▁", "가", "\u11b9", "▁", "\u1107", "\u1170", "\u11b0",
                                            "▁", "가", "<unk>"]
    assert tok.decode(tok.encode("영화 값 뷁 가")) == "영화 값 뷁 가"
    plain = Tokenizer(tok.model)
    assert plain.tokenize("값") == ["▁", "<unk>"]


def test_hangul_fallback_option_errors():
    model = BPEModel(("<unk>",), ("가",), ())
    with pytest.raises(ValueError, match="needs the 'syllable' or 'jamo' unit"):
        Tokenizer.train(["가나 가나"] * 3, vocab_size=400, unit="byte", hangul_fallback=True)
    with pytest.raises(ValueError, match="works with marker"):
        Tokenizer(model, marker="</w>", hangul_fallback=True)
    with pytest.raises(TypeError, match="hangul_fallback must be True or False"):
        Tokenizer(model, hangul_fallback="yes")


@pytest.mark.parametrize("pt", ["whitespace", "raw"])
def test_hangul_fallback_round_trips_and_leaves_no_hangul_unk(texts, held_out, pt):
    small = {"pre_tokenizer": pt, "vocab_size": 500}  # trained small: many held-out syllables unseen
    plain = Tokenizer.train(texts[:300], limit_alphabet=300, **small)
    fb = Tokenizer.train(texts[:300], limit_alphabet=300, hangul_fallback=True, **small)
    assert set(JAMO_ALPHABET) <= set(fb.vocab) and fb.hangul_fallback
    unk_plain = unk_fb = 0
    for t in HARD + held_out:
        ids, offsets = fb.encode_with_offsets(t)
        assert ids == fb.encode(t)
        expected = t if pt == "raw" else " ".join(t.split())
        if fb.unk_token not in fb.tokenize(t):
            assert fb.decode(ids) == compose(expected)
        unk_fb += sum(is_syllable(t[s:e]) for i, (s, e) in zip(ids, offsets) if i == fb.token_to_id("<unk>"))
        unk_plain += sum(is_syllable(t[s:e]) for i, (s, e) in zip(*plain.encode_with_offsets(t))
                         if i == plain.token_to_id("<unk>"))
    assert unk_plain > 100 and unk_fb == 0  # no Hangul syllable is <unk> any more


def test_hangul_fallback_with_byte_fallback_is_lossless(texts, held_out):
    fb = Tokenizer.train(texts[:300], vocab_size=800, pre_tokenizer="raw", limit_alphabet=300,
                         byte_fallback=True, hangul_fallback=True)
    for t in HARD + held_out:
        assert fb.decode(fb.encode(t)) == compose(t)
        assert "<unk>" not in fb.tokenize(t)
    assert fb.decode(fb.encode("쀓뷁 햏햏")) == "쀓뷁 햏햏"


def test_hangul_fallback_is_saved_and_loaded(texts, tmp_path):
    fb = Tokenizer.train(texts[:300], vocab_size=500, limit_alphabet=300, hangul_fallback=True)
    fb.save(tmp_path / "m")
    config = json.loads((tmp_path / "m" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["hangul_fallback"] is True
    back = Tokenizer.load(tmp_path / "m")
    assert back.hangul_fallback and back.tokenize("쀓뷁 햏햏") == fb.tokenize("쀓뷁 햏햏")
    del config["hangul_fallback"]  # a file written before the option: no fallback
    (tmp_path / "m" / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    assert not Tokenizer.load(tmp_path / "m").hangul_fallback


def test_hangul_fallback_dropout_and_jamo_unit(texts, held_out):
    fb = Tokenizer.train(texts[:300], vocab_size=500, limit_alphabet=300, hangul_fallback=True)
    for k, t in enumerate(held_out[:200]):
        assert fb.decode(fb.encode(t, dropout=0.2, seed=k)) == fb.decode(fb.encode(t))
    jamo = Tokenizer.train(texts[:300], vocab_size=300, unit="jamo", hangul_fallback=True)
    assert all(not is_syllable(t[s:e]) for t in held_out[:300]
               for i, (s, e) in zip(*jamo.encode_with_offsets(t)) if i == jamo.token_to_id("<unk>"))


# --- offsets -----------------------------------------------------------------------------------

def check_offsets(tok, text, *, covers_all=True):
    """ids == encode(text); spans in bounds, left to right; each token's characters (markers
    aside, jamo decomposed, bytes as the byte unit spells them) are in the text of its span; every
    character but white space is in some span."""
    ids, offsets = tok.encode_with_offsets(text)
    assert ids == tok.encode(text), text
    assert len(offsets) == len(ids)
    last = 0
    for s, e in offsets:
        assert 0 <= s <= e <= len(text) and s >= last, (text, offsets)  # in bounds, left to right
        last = s
    lossless = getattr(tok.pre_tokenizer, "lossless", False)
    specials = set(tok.special_tokens)
    for i, (s, e) in zip(ids, offsets):
        token, span = tok.id_to_token[i], text[s:e]
        if token in specials:
            assert len(span) == 1 or (len(span) == 2 and span[0].isspace()), (text, token, span)
            continue
        if token in BYTE_TOKENS:
            glued = tok.marker if tok.marker in ("##", "</w>") else ""  # bytes of a marked symbol ('##ᆞ')
            symbols = glued + "".join(tok.unit.split(span))  # a jamo unit's unknown jamo: that jamo's bytes
            assert len(span) == 1 and int(token[3:5], 16) in symbols.encode("utf-8", "surrogatepass"), (text, span)
            continue
        if lossless:
            span = span.replace(" ", "\u2581")
        if tok.marker is not None and tok.marker != "\u2581":
            token = strip_marker(token, tok.marker)
        have = "".join(tok.unit.split(span)) if tok.unit.name == "byte" else decompose(unicodedata.normalize("NFC", span))
        want = token if tok.unit.name == "byte" else decompose(token)
        mark = "".join(tok.unit.split("\u2581"))
        ok = want in have or any(want.startswith(m) and want[len(m):] in have for m in (mark, "\u2581"))
        assert ok, (text, (s, e), text[s:e], tok.id_to_token[i])
    if covers_all:
        covered = set()
        for s, e in offsets:
            covered.update(range(s, e))
        missing = [c for k, c in enumerate(text) if k not in covered and not c.isspace()]
        assert not missing, (text, missing)
    return ids, offsets


OFFSET_CASES = [
    ("whitespace", "syllable", {}), ("whitespace", "syllable", {"byte_fallback": True}),
    ("whitespace", "syllable", {"hangul_fallback": True}), ("whitespace", "jamo", {}),
    ("whitespace", "byte", {}), ("whitespace", "syllable", {"marker": "</w>"}),
    ("whitespace", "syllable", {"marker": "##", "byte_fallback": True, "vocab_size": 2500}), ("whitespace", "jamo", {"marker": "##"}),
    ("raw", "syllable", {"byte_fallback": True}), ("raw", "jamo", {}), ("raw", "byte", {}),
    ("raw", "syllable", {"hangul_fallback": True, "byte_fallback": True}),
    ({"type": "raw", "split_by_whitespace": False}, "syllable", {}),
    ({"type": "raw", "add_dummy_prefix": False}, "jamo", {"byte_fallback": True}),
]


@pytest.mark.parametrize("pt, unit, kw", OFFSET_CASES)
def test_offsets_every_simple_pipeline(texts, held_out, pt, unit, kw):
    tok = trained(texts, pt, unit, **kw)
    for t in HARD + held_out[:300]:
        check_offsets(tok, t)


def test_offsets_hand_cases():
    texts = ["영화 정말 재밌다", "영화 진짜 최고"] * 3
    tok = Tokenizer.train(texts, vocab_size=30)
    assert tok.tokenize("영화 정말") == ["▁영화", "▁정말"]
    assert tok.encode_with_offsets("영화 정말")[1] == [(0, 2), (2, 5)]  # ▁ of ▁정말: the space before
    assert tok.encode_with_offsets("  영화\t정말")[1] == [(2, 4), (4, 7)]
    raw = Tokenizer.train(texts, vocab_size=30, pre_tokenizer="raw")
    assert raw.tokenize(" 영화  정말") == ["▁", "▁영화", "▁", "▁정말"]
    # dummy ▁ aligned with the first character (as HF), real spaces with themselves
    assert raw.encode_with_offsets(" 영화  정말")[1] == [(0, 1), (0, 3), (3, 4), (4, 7)]
    jamo = Tokenizer.train(texts, vocab_size=30, unit="jamo")
    ids, offsets = jamo.encode_with_offsets("영화 짱")
    assert offsets == [(0, 2), (2, 3), (3, 4), (3, 4), (3, 4)]  # ᄍ ᅡ ᆼ all point at 짱
    byte = Tokenizer.train(texts, vocab_size=300, unit="byte", pre_tokenizer="raw")
    ids, offsets = byte.encode_with_offsets("짱")
    assert byte.decode(ids) == "짱" and offsets == [(0, 1)] * len(ids)  # dummy ▁ + three bytes of 짱
    assert tok.encode_with_offsets("") == ([], [])


def test_offsets_with_dropout_follow_the_tokens(texts, held_out):
    tok = trained(texts, "raw", "jamo")
    plain = [tok.encode_with_offsets(t) for t in held_out[:100]]  # each word's segment cached: dropout must not use it
    assert [ids for ids, _ in plain] == tok.encode_batch(held_out[:100])
    for k, t in enumerate(held_out[:100]):
        ids, offsets = tok.encode_with_offsets(t, dropout=0.4, seed=k)
        assert ids == tok.encode(t, dropout=0.4, seed=k)
        assert tok.decode(ids) == tok.decode(tok.encode(t))


def test_offsets_refuse_rewritten_words():
    from korean_bpe.pre_tokenizers.base import BasePreTokenizer

    class Upper(BasePreTokenizer):
        name = "upper-test"

        def __call__(self, text):
            return text.upper().split()

    tok = Tokenizer(BPEModel(("<unk>",), tuple("▁ab"), ()), pre_tokenizer=Upper())
    with pytest.raises(ValueError, match="not the text from offset 0"):
        tok.encode_with_offsets("ab")



def test_offsets_follow_a_custom_pre_tokenizers_declarations():
    # not raw: only its declarations (piece_kind "marked", add_dummy_prefix) say that its pieces
    # keep every space as ▁ and start each line with a ▁ that stands for no character
    from korean_bpe.pre_tokenizers.base import BasePreTokenizer
    from korean_bpe.pre_tokenizers.simple import restore_sentencepiece, sentencepiece_pieces

    class Pieces(BasePreTokenizer):
        name = "pieces-test"
        lossless = True
        piece_kind = "marked"
        add_dummy_prefix = True

        def __call__(self, text):
            return sentencepiece_pieces(text)

        def restore(self, words):
            return restore_sentencepiece(words)

    model = BPEModel(("<unk>",), tuple("▁영화재밌다"), (("재", "밌"), ("▁", "영")))
    tok = Tokenizer(model, pre_tokenizer=Pieces(), marker=None)
    ids, offsets = tok.encode_with_offsets("영화 재밌다")
    assert [tok.id_to_token[i] for i in ids] == ["▁영", "화", "▁", "재밌", "다"]
    assert offsets == [(0, 1), (1, 2), (2, 3), (3, 5), (5, 6)]  # the dummy ▁ goes with 영, as in HF
    raw = Tokenizer(model, pre_tokenizer="raw", marker=None)
    for t in ["영화 재밌다", "영화  재밌다\n다", " 영화"]:
        assert tok.encode_with_offsets(t) == raw.encode_with_offsets(t)

@pytest.mark.parametrize("pt, unit", [("whitespace", "syllable"), ("whitespace", "jamo"), ("raw", "syllable"),
                                      ("raw", "jamo"), ("raw", "byte"),
                                      ({"type": "raw", "split_by_whitespace": False}, "syllable")])
def test_offsets_match_transformers_return_offsets_mapping(texts, held_out, tmp_path, pt, unit):
    pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    tok = trained(texts, pt, unit)
    path = tok.to_huggingface(tmp_path / "tokenizer.json")
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))
    sample = hard(no_surrogates=True, no_space_mark=True) + held_out[:300]  # HF takes no lone surrogate
    differ = []
    for t in sample:
        ids, offsets = tok.encode_with_offsets(t)
        enc = fast(t, return_offsets_mapping=True, add_special_tokens=False)
        if enc["input_ids"] != ids:
            differ.append(t)
            continue
        assert [tuple(o) for o in enc["offset_mapping"]] == offsets, t
    assert differ == []


# --- morpheme pre-tokenizers -------------------------------------------------------------------

ANALYZER_TEXTS = HARD + ["아이언맨은 올해 최고의 영화가 아닐까", "\u1112\u1161\u11ab글 영화 NFD 입력이에요",
                         "했다 갔다 와인과 와인", "책이 이것 이것이"]


def _analyzer_cases():
    cases = []
    for name in ("kiwi", "mecab", "okt"):
        for lossless in (False, True):
            cases.append(pytest.param(name, lossless, id=f"{name}-{'lossless' if lossless else 'analysis'}"))
    return cases


@pytest.mark.parametrize("name, lossless", _analyzer_cases())
def test_offsets_morpheme_pre_tokenizers(texts, held_out, name, lossless):
    pytest.importorskip({"kiwi": "kiwipiepy", "mecab": "mecab", "okt": "konlpy"}[name])
    if name == "okt":
        pytest.importorskip("jpype")
    pt = {"type": name, "lossless": True, "drop": []} if lossless else {"type": name}
    if name == "okt":
        pt["cache"] = False
    tok = Tokenizer.train(texts[:300], vocab_size=900, pre_tokenizer=pt, unit="syllable", byte_fallback=True,
                          limit_alphabet=400)
    jamo = Tokenizer.train(texts[:300], vocab_size=400, pre_tokenizer=pt, unit="jamo", limit_alphabet=80)
    sample = ANALYZER_TEXTS + held_out[:150]
    for t in sample:
        for tk in (tok, jamo):
            check_offsets(tk, t, covers_all=lossless)
        ids, offsets = tok.encode_with_offsets(t)
        if lossless:
            assert tok.decode(ids) == t  # syllable + byte fallback, lossless mode: exact
        else:
            # analysis mode: the characters the spans cover, white space aside, are exactly the
            # kept words, in order, in the original text (NFD input stays NFD)
            covered = sorted({k for s, e in offsets for k in range(s, e)})
            assert "".join(t[k] for k in covered if not t[k].isspace()) == "".join(tok.pre_tokenizer(t)), t


# --- command line ------------------------------------------------------------------------------

def test_cli_hangul_fallback_dropout_offsets(tmp_path):
    from test_cli import fails, ok

    corpus = tmp_path / "reviews.txt"
    corpus.write_text("\n".join(["영화 진짜 재밌어요 최고", "정말 최고의 영화 또 보고 싶다"] * 5) + "\n", encoding="utf-8")
    model = tmp_path / "model"
    ok("train", str(corpus), "--vocab-size", "120", "--hangul-fallback", "--no-progress", "-o", str(model))
    assert Tokenizer.load(model).hangul_fallback
    out = ok("encode", "-m", str(model), "--offsets", "영화 짱").stdout
    assert out == "▁영화@0:2 ▁@2:3 짜@3:4 ᆼ@3:4\n"  # 짜 (from 진짜) + the 종성 ᆼ
    ids = ok("encode", "-m", str(model), "--ids", "--offsets", "영화 짱").stdout.split()
    assert [int(x.split("@")[0]) for x in ids] == Tokenizer.load(model).encode("영화 짱")
    runs = [ok("encode", "-m", str(model), "--dropout", "0.5", "--seed", "3", "영화 최고의 영화", "정말 최고").stdout
            for _ in range(2)]
    assert runs[0] == runs[1]
    lines = runs[0].splitlines()
    tok = Tokenizer.load(model)
    assert lines == [" ".join(tok.tokenize("영화 최고의 영화", dropout=0.5, seed=3)),
                     " ".join(tok.tokenize("정말 최고", dropout=0.5, seed=4))]  # text k: seed S+k-1
    assert "expected a probability" in usage_error("encode", "-m", str(model), "--dropout", "2", "영화")
    hf = json.loads(ok("export-hf", "-m", str(model), "-o", "-", "--dropout", "0.1").stdout)
    assert hf["model"]["dropout"] == 0.1
    assert "HF's BPE refuses dropout 0" in fails("export-hf", "-m", str(model), "-o", "-", "--dropout", "0")


def usage_error(*args):
    """argparse errors print the usage first: only the last line matters here."""
    from test_cli import run

    proc = run(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    return proc.stderr.splitlines()[-1]


def test_continued_training_keeps_hangul_fallback():
    base = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=100, hangul_fallback=True)
    with pytest.warns(UserWarning, match="not in the initial alphabet"):  # 법 률 개 ... were never seen
        more = Tokenizer.train(["법률 개정안 제출", "개정안 제출"] * 3, vocab_size=130, initial=base)
    assert "<unk>" not in more.tokenize("법률 개정안")  # ... and the fallback spells them with jamo
    assert more.hangul_fallback and more.decode(more.encode("값 뷁")) == "값 뷁"
    plain = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30)
    with pytest.raises(ValueError, match="cannot add the jamo alphabet"):
        Tokenizer.train(["법률 개정안 제출"] * 3, vocab_size=40, initial=plain, hangul_fallback=True)


def test_train_from_counts_with_hangul_fallback():
    from korean_bpe.counting import WordCounts

    texts = ["영화 정말 재밌다", "영화 진짜 최고"] * 3
    fb = Tokenizer.train_from_counts(WordCounts.from_texts(texts), vocab_size=100, hangul_fallback=True)
    assert fb.hangul_fallback and fb.model == Tokenizer.train(texts, vocab_size=100, hangul_fallback=True).model
    with pytest.raises(ValueError, match="limit_alphabet=10 is too small"):
        Tokenizer.train_from_counts(WordCounts.from_texts(texts), vocab_size=100, hangul_fallback=True,
                                    limit_alphabet=10)
