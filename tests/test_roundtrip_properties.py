"""Hypothesis: ``decode(encode(x)) == x`` for every lossless pipeline, trained on real texts at a
small vocabulary, over arbitrary Unicode and Korean-heavy text (emoji, ㅋㅋ/ㅠㅠ compatibility jamo,
old Hangul, NFD input, odd white space).

Exactly what comes back:

* ``raw`` pre-tokenizer: ``x`` itself (text without U+2581, which raw uses for spaces), for the
  syllable and byte units; the jamo unit gives ``compose(decompose(x))``: Hangul recomposed (NFD
  syllables come back NFC), everything else untouched.  Needs ``byte_fallback=True`` (or the byte
  unit) for symbols outside the alphabet; without it, text drawn from the alphabet round-trips and
  each unknown symbol is one ``<unk>``.
* ``whitespace``: the same, with every run of white space made one space (``" ".join(x.split())``).
"""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer
from korean_bpe.jamo import compose, decompose
from korean_bpe.pre_tokenizers import PRE_TOKENIZERS
from korean_bpe.units import SPACE_MARK

from _strings import any_text, korean_heavy
from _strings import hard as hard_strings

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# --- strategies ------------------------------------------------------------------------------------

texts = st.one_of(any_text, korean_heavy(25))


def expected_raw(tok: Tokenizer, x: str) -> str:
    return compose(decompose(x)) if tok.unit.name == "jamo" else x


def expected_whitespace(tok: Tokenizer, x: str) -> str:
    return expected_raw(tok, " ".join(x.split()))


# --- tokenizers, trained once per module on real texts at a small vocabulary -----------------------------


@pytest.fixture(scope="module")
def pipelines(real_texts):
    out = {}
    texts = real_texts[:600]
    for unit in ("syllable", "jamo", "byte"):
        for byte_fallback in (False, True) if unit != "byte" else (False,):  # the byte unit needs none (refused)
            vocab = 3000 if unit == "syllable" else 1200
            out["raw", unit, byte_fallback] = Tokenizer.train(
                texts, vocab_size=vocab, pre_tokenizer="raw", unit=unit, byte_fallback=byte_fallback)
        out["whitespace", unit, unit != "byte"] = Tokenizer.train(
            texts, vocab_size=3000 if unit == "syllable" else 1200, unit=unit, byte_fallback=unit != "byte")
    # raw's other cuts: superword (merges cross spaces), and the old cut (no dummy prefix either)
    for name, options, unit in (("raw-superword", {"split_by_whitespace": False}, "syllable"),
                                ("raw-old", {"split_by_whitespace": False, "add_dummy_prefix": False}, "byte")):
        out[name, unit, unit != "byte"] = Tokenizer.train(texts, vocab_size=3000 if unit == "syllable" else 1200,
                                                          pre_tokenizer={"type": "raw", **options}, unit=unit,
                                                          byte_fallback=unit != "byte")
    return out


LOSSLESS = [("raw", "syllable", True), ("raw", "jamo", True), ("raw", "byte", False),
            ("raw-superword", "syllable", True), ("raw-old", "byte", False)]


@pytest.mark.parametrize("key", LOSSLESS, ids=lambda k: "-".join(map(str, k)))
@SETTINGS
@given(x=texts)
def test_raw_round_trip(pipelines, key, x):
    tok = pipelines[key]
    ids = tok.encode(x)
    assert "<unk>" not in tok.tokenize(x)
    assert tok.decode(ids) == expected_raw(tok, x)
    if not any(0x1100 <= ord(c) <= 0x11FF for c in x):  # no conjoining jamo typed: exactly x
        assert tok.decode(ids) == x


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
@SETTINGS
@given(x=texts)
def test_whitespace_round_trip_up_to_spacing(pipelines, unit, x):
    tok = pipelines["whitespace", unit, unit != "byte"]
    assert tok.decode(tok.encode(x, disallowed_special=())) == expected_whitespace(tok, x)


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@SETTINGS
@given(data=st.data())
def test_raw_without_byte_fallback_in_alphabet(pipelines, unit, data):
    """Without byte fallback: text made of alphabet symbols round-trips exactly."""
    tok = pipelines["raw", unit, False]
    alphabet = sorted(s for s in tok.model.alphabet if len(s) == 1 and s != SPACE_MARK)
    pieces = data.draw(st.lists(st.one_of(st.sampled_from(alphabet), st.just(" ")), max_size=40))
    x = "".join(pieces)
    if unit == "jamo":
        x = compose(x)  # a text whose jamo are all known
        assume(all(s in tok.vocab for s in decompose(x) if s != " "))
    assert "<unk>" not in tok.tokenize(x)
    assert tok.decode(tok.encode(x, disallowed_special=())) == expected_raw(tok, x)


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@SETTINGS
@given(x=texts)
def test_raw_without_byte_fallback_unknown_symbols(pipelines, unit, x):
    """Each symbol outside the alphabet is one <unk>; everything else decodes back in place."""
    tok = pipelines["raw", unit, False]
    symbols = [s for piece in tok.pre_tokenizer(x) for s in tok.unit.split(piece)]
    unknown = [s for s in symbols if s not in tok.vocab]
    tokens = tok.tokenize(x)
    assert tokens.count("<unk>") == len(unknown)
    known_back = tok.decode(tok.encode(x), skip_special_tokens=True)
    kept = "".join(s for s in symbols if s in tok.vocab)
    kept = tok.pre_tokenizer.restore([compose(kept) if unit == "jamo" else kept])  # dummy prefixes off, ▁ -> space
    assert known_back == kept


@SETTINGS
@given(x=texts)
def test_encode_batch_agrees_with_encode(pipelines, x):
    tok = pipelines["raw", "jamo", True]
    assert tok.encode_batch([x, x + " 영화", ""]) == [tok.encode(x), tok.encode(x + " 영화"), []]


def test_lossless_morpheme_mode_round_trip(real_texts):
    """Lossless morpheme mode (kiwi; okt when present) round-trips real reviews and hard strings."""
    hard = hard_strings(no_space_mark=True)
    tried = 0
    for config in ({"type": "kiwi", "lossless": True}, {"type": "okt", "drop": [], "lossless": True}):
        if config["type"] not in PRE_TOKENIZERS:
            continue
        try:
            pt = PRE_TOKENIZERS.build(config)
            pt("영화")
        except (ImportError, ValueError, TypeError):
            continue
        tried += 1
        for unit in ("syllable", "jamo"):
            tok = Tokenizer.train(real_texts[:300], vocab_size=1500, pre_tokenizer=pt, unit=unit, byte_fallback=True)
            assert tok.marker is None
            for x in real_texts[300:400] + hard:
                back = tok.decode(tok.encode(x, disallowed_special=()))
                assert back == (compose(decompose(x)) if unit == "jamo" else x), (config, unit, x)
    if not tried:
        pytest.skip("no lossless morpheme pre-tokenizer available")


def _lossless_analysers() -> list[str]:
    out = []
    for name in ("kiwi", "mecab"):
        if name not in PRE_TOKENIZERS:
            continue
        try:
            PRE_TOKENIZERS.build({"type": name, "drop": [], "lossless": True})("영화")
        except (ImportError, ValueError, TypeError, RuntimeError):
            continue
        out.append(name)
    return out


@pytest.fixture(scope="module")
def morpheme_pipelines(real_texts):
    out = {}
    for name in _lossless_analysers():
        pt = PRE_TOKENIZERS.build({"type": name, "drop": [], "lossless": True})
        for unit in ("syllable", "jamo"):
            out[name, unit] = Tokenizer.train(real_texts[:300], vocab_size=1500, pre_tokenizer=pt, unit=unit,
                                              byte_fallback=True, show_progress=False)
    return out


@pytest.mark.parametrize("name", ["kiwi", "mecab"])
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(x=texts)
def test_lossless_morpheme_mode_round_trip_property(morpheme_pipelines, name, unit, x):
    """Lossless morpheme mode (a real analyser) gives every text back, as the raw pipeline does."""
    if (name, unit) not in morpheme_pipelines:
        pytest.skip(f"{name} (lossless) is not available")
    tok = morpheme_pipelines[name, unit]
    assert tok.marker is None and tok.pre_tokenizer.lossless
    assert tok.decode(tok.encode(x, disallowed_special=())) == expected_raw(tok, x)


@pytest.fixture(scope="module")
def marked_raw_pipelines(real_texts):
    return {
        (unit, marker): Tokenizer.train(real_texts[:400], vocab_size=(3000 if unit == "syllable" else 1200) * 2,
                                        pre_tokenizer="raw", unit=unit, marker=marker, byte_fallback=unit != "byte",
                                        show_progress=False)
        for unit in ("syllable", "jamo", "byte")
        for marker in ("</w>", "##")
    }


@pytest.mark.parametrize("marker", ["</w>", "##"])
@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
@SETTINGS
@given(x=texts)
def test_raw_round_trip_with_word_markers(marked_raw_pipelines, unit, marker, x):
    """The raw pre-tokenizer stays lossless with the "</w>" and "##" markers (byte fallback on, but for the byte unit)."""
    tok = marked_raw_pipelines[unit, marker]
    assert tok.marker == marker
    assert tok.decode(tok.encode(x, disallowed_special=())) == expected_raw(tok, x)
