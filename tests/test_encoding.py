"""korean_bpe.encoding: the readable reference encoder, the compiled core and the pure-Python
fallback give the same ids, on hand-computed cases and on hard strings, for every unit, with and
without byte and Hangul fallback; the path a tokenizer takes follows what its stages declare."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import korean_bpe.encoding.encoder as encoder_module
from korean_bpe import BPEModel, Tokenizer
from korean_bpe.encoding.encoder import Encoder
from korean_bpe.encoding import EncodePlan, bpe_encode, reference
from korean_bpe.markers import NoMarker
from korean_bpe.pre_tokenizers import BasePreTokenizer
from korean_bpe.tokenizer import BYTE_TOKENS, JAMO_ALPHABET
from korean_bpe.units import ByteUnit, JamoUnit, SyllableUnit

from _strings import SURROGATES, hangulish, hard, korean_heavy

COMPILED = encoder_module.MergeTable is not None
TUTORIAL = BPEModel(("<unk>",), tuple("bghnpsu"), (("u", "g"), ("u", "n"), ("h", "ug")))
#: no word marker with whitespace, asked for explicitly (Tokenizer refuses marker=None there)
GLUED = NoMarker(glue_words=True)


class PythonCutSyllable(SyllableUnit):
    """The syllable unit without its declaration: Python cuts the words, the core only merges."""

    compiled_symbols = None


class PythonCutJamo(JamoUnit):
    compiled_symbols = None


class PythonCutByte(ByteUnit):
    compiled_symbols = None


PYTHON_CUT = {"syllable": PythonCutSyllable, "jamo": PythonCutJamo, "byte": PythonCutByte}


class SplitPreTokenizer(BasePreTokenizer):
    """Not the whitespace class, but it declares the same pieces: it gets the fused path."""

    name = "split"
    piece_kind = "whitespace"

    def __call__(self, text: str) -> list[str]:
        return text.split()



def unfused(tok: Tokenizer) -> Tokenizer:
    """``tok`` with an encoder whose compiled core does not cut the text (pre_tokenizer.batch,
    then the compiled piece path)."""
    tok._built_encoder = Encoder(tok.model, tok._vocab, pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok._mark,
                                 fallback=tok._fallback, cache_size=tok._encoder.cache.maxsize, fuse=False)
    return tok

def _rebuild(tok: Tokenizer, **changes) -> Tokenizer:
    options = dict(pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok._mark, byte_fallback=tok.byte_fallback,
                   unk_token=tok.unk_token, hangul_fallback=tok.hangul_fallback)
    options.update(changes)
    return Tokenizer(tok.model, **options)


def every_path(tok: Tokenizer) -> dict[str, Tokenizer | None]:
    """The tokenizer on each encoding path (None: the reference encoder)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(encoder_module, "MergeTable", None)
        pure = _rebuild(tok)
    assert pure._encoder.compiled is None
    paths: dict[str, Tokenizer | None] = {"reference": None, "pure Python": pure, "as declared": tok}
    if COMPILED:
        paths["compiled merges, Python cut"] = _rebuild(tok, unit=PYTHON_CUT[tok.unit.name]())
        assert paths["compiled merges, Python cut"]._encoder.plan.symbols is None
        if tok._encoder.plan.fused:
            pieces = _rebuild(tok)
            unfused(pieces)
            paths["compiled pieces"] = pieces
    return paths


def ids_on_every_path(tok: Tokenizer, texts: list[str]) -> dict[str, list[list[int]]]:
    out = {}
    for name, t in every_path(tok).items():
        if t is None:
            out[name] = [reference.encode(tok, x) for x in texts]
        else:
            out[name] = t.encode_batch(texts, disallowed_special=())
            assert [t.encode(x, disallowed_special=()) for x in texts] == out[name], name
    return out


def assert_same_everywhere(tok: Tokenizer, texts: list[str]) -> list[list[int]]:
    got = ids_on_every_path(tok, texts)
    expected = got.pop("reference")
    for name, ids in got.items():
        assert ids == expected, f"{name} differs from the reference on {tok!r}"
    return expected


# --- hand-computed cases -----------------------------------------------------------------------


def test_reference_tutorial_merges():
    merges = [("u", "g"), ("u", "n"), ("h", "ug")]
    words = "hug pug pun bun hugs".split()
    assert [bpe_encode(list(w), merges) for w in words] == [["hug"], ["p", "ug"], ["p", "un"], ["b", "un"], ["hug", "s"]]
    # "u g" ranks before "u n": in "gun" nothing merges but u n; "hugun": h+u+g first -> hug, then u+n
    assert bpe_encode(list("hugun"), merges) == ["hug", "un"]
    assert bpe_encode([], merges) == [] and bpe_encode(["u"], merges) == ["u"]


def test_reference_korean_and_marker_prefix():
    merges = [("재", "밌"), ("▁", "재밌"), ("밌", "다")]
    # 재+밌 (rank 0) first takes 밌 away from 밌+다 (rank 2); then ▁+재밌
    assert bpe_encode(["▁", "재", "밌", "다"], merges) == ["▁재밌", "다"]
    model = BPEModel((), ("가", "##나"), (("가", "##나"),), continuing_subword_prefix="##")
    assert bpe_encode(["가", "##나"], model.merges, merged=model.merged_token) == ["가나"]


def test_reference_equal_ranks_leftmost_first():
    # ㅋ ㅋ ㅋ with ㅋ+ㅋ: the leftmost pair merges first, as HF does
    assert bpe_encode(list("ㅋㅋㅋ"), [("ㅋ", "ㅋ")]) == ["ㅋㅋ", "ㅋ"]
    assert bpe_encode(list("ㅋㅋㅋㅋ"), [("ㅋ", "ㅋ"), ("ㅋㅋ", "ㅋㅋ")]) == ["ㅋㅋㅋㅋ"]


def test_tutorial_on_every_path():
    tok = Tokenizer(TUTORIAL, marker=GLUED)
    ids = assert_same_everywhere(tok, ["pug bug mug", "hug pun bun hugs"])
    assert [[tok.id_to_token[i] for i in x] for x in ids] == [
        ["p", "ug", "b", "ug", "<unk>", "ug"], ["hug", "p", "un", "b", "un", "hug", "s"]]


def test_korean_marker_on_every_path():
    tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
    assert assert_same_everywhere(tok, ["영화 재밌다", "영화관"]) == [[8, 1, 9, 4], [8, 0]]


def test_hangul_fallback_on_every_path():
    tok = Tokenizer(BPEModel(("<unk>",), ("▁", "가", *JAMO_ALPHABET), ()), hangul_fallback=True)
    ids = assert_same_everywhere(tok, ["값 뷁", "가값"])
    assert ["".join(tok.id_to_token[i] for i in x) for x in ids] == ["▁가\u11b9▁\u1107\u1170\u11b0", "▁가가\u11b9"]


def test_byte_fallback_on_every_path():
    model = BPEModel(("<unk>", *BYTE_TOKENS), ("▁", "가"), (("▁", "가"),))
    tok = Tokenizer(model, byte_fallback=True)
    ids = assert_same_everywhere(tok, ["가값", "\ud800"])
    assert [[tok.id_to_token[i] for i in x] for x in ids] == [
        ["▁가", "<0xEA>", "<0xB0>", "<0x92>"], ["▁", "<0xED>", "<0xA0>", "<0x80>"]]  # U+D800 as surrogatepass


def test_byte_unit_on_every_path():
    unit = ByteUnit()
    b = unit.split("가")  # EA B0 80
    model = BPEModel(("<unk>",), unit.initial_alphabet, ((b[0], b[1]), (b[0] + b[1], b[2])))
    tok = Tokenizer(model, pre_tokenizer="raw", unit="byte")
    ids = assert_same_everywhere(tok, ["가 가나", "😀"])
    assert [tok.id_to_token[i] for i in ids[0]] == [*unit.split("▁"), "".join(b), *unit.split("▁"), "".join(b),
                                                   *unit.split("나")]
    assert len(ids[1]) == 3 + 4  # ▁ (3 bytes) then the 4 bytes of the emoji


@pytest.mark.skipif(not COMPILED, reason="korean_bpe.encoding._encode is not compiled here")
def test_merge_table_is_told_its_cut_once_by_name():
    """The compiled table learns how it cuts texts from one set_cut(...) call, by name (no number
    crosses from Python): a bad name, a SentencePiece cut without its ▁ id, texts given to a table
    that cuts none, pieces before any set_cut are each refused with what to do."""
    vocab = {"▁": 0, "재": 1, "밌": 2, "다": 3, "재밌": 4}
    spell = lambda word: [vocab.get(ch, 0) for ch in word]  # noqa: E731 - what spells an unknown word
    table = encoder_module.MergeTable([(1, 2, 4)], {t: i for t, i in vocab.items() if len(t) == 1})
    table.set_vocab_size(len(vocab))
    table.set_symbols(-1, "chars")
    with pytest.raises(ValueError, match="call set_cut"):
        table.merge_pieces([["재밌다"]])
    with pytest.raises(ValueError, match="cut must be 'whitespace', 'sentencepiece' or None, got 2"):
        table.set_cut(2, spell=spell, maxsize=10)
    with pytest.raises(ValueError, match="needs spell_piece"):
        table.set_cut("sentencepiece", spell=spell, maxsize=10)
    table.set_cut(None, spell=spell, maxsize=10)
    with pytest.raises(ValueError, match="use merge_pieces"):
        table.merge_chunk(["재밌다"])
    assert table.merge_pieces([["재밌다", "다"], []]).lists() == [[4, 3, 3], []]
    table.set_cut("whitespace", spell=spell, maxsize=10)
    assert table.encode_chunk(["재밌다  다", ""]) == [[4, 3, 3], []]
    table.set_cut("sentencepiece", spell=spell, spell_piece=lambda s: spell("▁" + s), space_id=0, maxsize=10)
    assert table.encode_chunk(["재밌다 다"]) == [[0, 4, 3, 0, 3]]


# --- the path follows the declarations --------------------------------------------------------


@pytest.mark.skipif(not COMPILED, reason="korean_bpe.encoding._encode is not compiled here")
@pytest.mark.parametrize("pre_tokenizer,unit,marker,symbols,fused", [
    ("whitespace", "syllable", "▁", "chars", True),
    ("whitespace", "jamo", GLUED, "jamo", True),
    ("whitespace", "byte", "▁", "bytes", True),
    ("raw", "syllable", None, "chars", True),
    ("raw", "jamo", None, "jamo", True),
    ("raw", "byte", None, "bytes", False),
    ({"type": "raw", "split_by_whitespace": False}, "jamo", None, "jamo", False),
    ("whitespace", "syllable", "</w>", None, False),
    ("whitespace", "jamo", "##", None, False),
    (SplitPreTokenizer(), "jamo", "▁", "jamo", True),
    ("whitespace", PythonCutSyllable(), "▁", None, False),
])
def test_plan_from_declarations(real_texts, pre_tokenizer, unit, marker, symbols, fused):
    tok = Tokenizer.train(real_texts[:100], vocab_size=1500, pre_tokenizer=pre_tokenizer, unit=unit, marker=marker,
                          show_progress=False)
    prefix = tok.token_to_id("▁") if marker == "▁" and symbols else -1
    assert tok._encoder.plan[:3] == EncodePlan(symbols, fused, prefix)[:3]
    assert_same_everywhere(tok, real_texts[100:130] + ["영화  정말\n재밌다 ㅋㅋ 😀 값"])


# --- properties over hard strings ----------------------------------------------------------------

#: texts that spell a special or byte token, or a marker: ordinary text with disallowed_special=()
SPECIAL_TEXT = ["<unk>", "영화<unk>", "<0x41>", "##", "</w>", "##다 </w>"]
hard_text = st.one_of(korean_heavy(30, no_space_mark=False), hangulish(40), st.sampled_from(SPECIAL_TEXT))

# (unit, byte_fallback, hangul_fallback) x pre-tokenizer: every unit, with and without each fallback
OPTIONS = [("syllable", False, False), ("syllable", True, False), ("syllable", False, True), ("syllable", True, True),
           ("jamo", False, False), ("jamo", True, False), ("jamo", False, True), ("byte", False, False)]
PRE_TOKENIZERS = ["whitespace", "raw", {"type": "raw", "split_by_whitespace": False}]
_TRAINED: dict = {}


def trained(real_texts, unit, byte_fallback, hangul_fallback, pre_tokenizer, cache_size):
    key = (unit, byte_fallback, hangul_fallback, repr(pre_tokenizer))
    if key not in _TRAINED:
        _TRAINED[key] = Tokenizer.train(
            real_texts[:200], vocab_size={"syllable": 2000, "jamo": 500, "byte": 800}[unit] + 256 * byte_fallback + 67 * hangul_fallback,
            pre_tokenizer=pre_tokenizer, unit=unit, byte_fallback=byte_fallback, hangul_fallback=hangul_fallback,
            show_progress=False)
    sized = (*key, cache_size)
    if sized not in _TRAINED:
        _TRAINED[sized] = _rebuild(_TRAINED[key], cache_size=cache_size)
    return _TRAINED[sized]


@pytest.mark.parametrize("unit,byte_fallback,hangul_fallback,pre_tokenizer",
                         [(*o, p) for o, p in product(OPTIONS, PRE_TOKENIZERS)],
                         ids=[f"{o[0]}-bytefb{int(o[1])}-hangulfb{int(o[2])}-{p if isinstance(p, str) else 'superword'}"
                              for o, p in product(OPTIONS, PRE_TOKENIZERS)])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(hard_text, min_size=1, max_size=4), cache_size=st.sampled_from([1, 3, 1 << 19]))
def test_every_path_gives_the_reference_ids(real_texts, unit, byte_fallback, hangul_fallback, pre_tokenizer, texts,
                                            cache_size):
    tok = trained(real_texts, unit, byte_fallback, hangul_fallback, pre_tokenizer, cache_size)
    assert_same_everywhere(tok, texts + texts[:1])  # the first text again: from the cache
    if COMPILED:
        assert tok._encoder.compiled.cached_words() <= cache_size


@pytest.mark.parametrize("unit,byte_fallback,hangul_fallback", OPTIONS)
@pytest.mark.parametrize("pre_tokenizer", PRE_TOKENIZERS, ids=["whitespace", "raw", "superword"])
def test_hard_strings_every_path(real_texts, unit, byte_fallback, hangul_fallback, pre_tokenizer):
    """Every shared hard string (the long lines aside: the reference is quadratic), the lone
    surrogates and the special tokens' text, all in one batch and one by one."""
    tok = trained(real_texts, unit, byte_fallback, hangul_fallback, pre_tokenizer, 1 << 19)
    assert_same_everywhere(tok, hard(no_long=True) + list(SURROGATES) + SPECIAL_TEXT)


@pytest.mark.parametrize("name", ["kiwi", "mecab"])
@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_lossless_morpheme_pieces_every_path(real_texts, name, unit):
    """Lossless morpheme mode (a real analyser): the compiled piece path gives the reference ids."""
    pytest.importorskip({"kiwi": "kiwipiepy", "mecab": "mecab"}[name])
    tok = Tokenizer.train(real_texts[:200], vocab_size=2000 if unit == "syllable" else 600,
                          pre_tokenizer={"type": name, "drop": [], "lossless": True}, unit=unit, show_progress=False)
    assert tok._encoder.plan.symbols == (tok.unit.compiled_symbols if COMPILED else None) and not tok._encoder.plan.fused
    assert_same_everywhere(tok, real_texts[200:260] + ["영화  정말\n재밌다 ㅋㅋ 😀", "값 뷁 \u1112\u1161\u11ab"])
