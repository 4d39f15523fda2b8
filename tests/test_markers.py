"""korean_bpe.markers: each word marker on hand-computed cases, and the defects that went with
the strings: a word starting with ``##`` lost it on decode, a word holding the text ``</w>`` was cut
there, and ``marker=None`` with ``whitespace`` glued every word together."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from korean_bpe import BPEModel, Tokenizer
from korean_bpe.markers import (
    MARKERS, ContinuationMarker, EndOfWordMarker, NoMarker, SpaceMarker, get_marker, guess_marker, pieces_keep_spaces,
)
from korean_bpe.pre_tokenizers import PRE_TOKENIZERS, get_pre_tokenizer
from korean_bpe.pre_tokenizers.base import BasePreTokenizer, raw_pieces, restore_marked
from korean_bpe.trainer import train_bpe
from korean_bpe.units import apply_marker, strip_marker, words_from_tokens

# --- one object per kind ---------------------------------------------------------------------------


def test_registry_and_strings():
    assert MARKERS.names() == ["continuation", "end_of_word", "none", "space"]
    kinds = {"\u2581": SpaceMarker, "</w>": EndOfWordMarker, "##": ContinuationMarker, None: NoMarker}
    for text, cls in kinds.items():
        mark = get_marker(text)
        assert type(mark) is cls and mark.text == text
        assert MARKERS.build(mark.to_config()) == mark  # rebuilt from its config, like every stage
        assert get_marker(mark) is mark
    with pytest.raises(ValueError, match="marker='@@' is not supported"):
        get_marker("@@")


@pytest.mark.parametrize("text, symbols, marked", [
    ("\u2581", ("값", "이"), ("\u2581", "값", "이")),
    ("</w>", ("값", "이"), ("값", "이</w>")),
    ("##", ("값", "이"), ("값", "##이")),
    (None, ("값", "이"), ("값", "이")),
    ("</w>", ("값",), ("값</w>",)),
    ("##", ("값",), ("값",)),
    ("\u2581", (), ()),
])
def test_apply(text, symbols, marked):
    assert get_marker(text).apply(symbols) == marked == apply_marker(symbols, text)


@pytest.mark.parametrize("text, tokens, words", [
    ("\u2581", ["\u2581영화", "\u2581", "재밌", "다"], [["영화"], ["재밌", "다"]]),
    ("</w>", ["영", "화</w>", "재밌", "다</w>"], [["영", "화"], ["재밌", "다"]]),
    ("##", ["영", "##화", "재밌", "##다"], [["영", "화"], ["재밌", "다"]]),
    (None, ["\u2581영화", "\u2581재밌다"], [["\u2581영화", "\u2581재밌다"]]),
    # a marker alone is text: '##' and '</w>' carry nothing after (before) it, so they mark nothing
    ("##", ["##", "##a"], [["##", "a"]]),
    ("</w>", ["</w>", "x</w>"], [["</w>", "x"]]),
])
def test_words(text, tokens, words):
    assert get_marker(text).words(tokens) == words == words_from_tokens(tokens, text)


def test_strip_and_base():
    assert strip_marker("##다", "##") == "다" and strip_marker("다</w>", "</w>") == "다"
    assert strip_marker("\u2581영화", "\u2581") == "영화" and strip_marker("\u2581영화", None) == "\u2581영화"
    assert get_marker("##").strip("##") == "##" and get_marker("</w>").strip("</w>") == "</w>"
    # the trainer's alphabet: a glued marker's bare symbol; ▁ is a symbol of its own
    assert get_marker("##").base("##이") == "이" and get_marker("\u2581").base("\u2581") == "\u2581"


def test_marked_alphabet_and_byte_fallback_pieces():
    assert get_marker("</w>").marked_alphabet(("가", "나")) == ("가", "나", "가</w>", "나</w>")
    assert get_marker("##").marked_alphabet(("가",)) == ("가", "##가")
    assert get_marker("\u2581").marked_alphabet(("가",)) == ("가",)
    assert get_marker("##").fallback_pieces("가##나##다") == ["가", "##나", "##다"]
    assert get_marker("</w>").fallback_pieces("가나</w>다") == ["가나</w>", "다"]


def test_hf_fields():
    assert get_marker("##").hf_model() == {"continuing_subword_prefix": "##", "end_of_word_suffix": None}
    assert get_marker("</w>").hf_model() == {"continuing_subword_prefix": None, "end_of_word_suffix": "</w>"}
    assert get_marker("\u2581").hf_model() == get_marker(None).hf_model() == {
        "continuing_subword_prefix": None, "end_of_word_suffix": None}
    assert get_marker("##").hf_token_decoders(raw=False, byte=False, byte_fallback=False) == [
        {"type": "WordPiece", "prefix": "##", "cleanup": False}]
    assert get_marker("</w>").hf_token_decoders(raw=False, byte=False, byte_fallback=False) == [
        {"type": "Replace", "pattern": {"String": "</w>"}, "content": " "}]
    assert [d["type"] for d in get_marker("\u2581").hf_normalizers(raw=False, byte=False)] == [
        "Replace", "Prepend", "Replace", "Replace"]  # strip, prepend, an empty text stays empty, a marker per word
    assert get_marker("\u2581").hf_normalizers(raw=False, byte=True) == []


def test_alphabet_checks():
    assert get_marker("</w>").alphabet_problem(["가", "\u2581"]) == (
        "no alphabet token ends with '</w>', which marker '</w>' glues to the last symbol of every word")
    assert get_marker("##").alphabet_problem(["가", "##가"]) is None
    assert get_marker("\u2581").alphabet_problem(["가"]) == "the alphabet has no '▁', which marker '▁' puts before every word"
    assert get_marker(None).alphabet_problem(["가", "가</w>"]) == "the alphabet token '가</w>' is not one symbol"
    assert (guess_marker(["가", "가</w>"]), guess_marker(["가", "##가"]), guess_marker(["\u2581", "가"]),
            guess_marker(["가"])) == ("</w>", "##", "\u2581", None)


# --- ## : a word that starts with ## keeps it -------------------------------------------------------


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_continuation_keeps_a_leading_hash_hash(unit):
    text = "##a ## a##b"
    tok = Tokenizer.train([text] * 5, vocab_size=600 if unit == "byte" else 40, marker="##", unit=unit,
                          min_frequency=1)
    assert ("#", "###") not in tok.merges  # it would start the word "##" with '##'
    assert tok.tokenize(text) == ["#", "###a", "#", "###", "a##b"]
    assert tok.decode(tok.encode(text)) == text


def test_continuation_cut_is_the_only_change_to_training():
    """Words that do not start with '##' train as before: the merges HF's trainer learns."""
    words = {("#", "###", "##a"): 5, ("a", "###", "##b"): 3}
    assert train_bpe(words, num_merges=3, min_frequency=1, special_tokens=(), marker="##").merges == (
        ("###", "##a"), ("a", "###"), ("a#", "##b"))  # not ('#', '###'), which HF learns first (count 5)
    assert train_bpe({("a", "###", "##b"): 3}, num_merges=2, min_frequency=1, special_tokens=(), marker="##").merges == (
        ("a", "###"), ("a#", "##b"))


def test_continuation_old_model_with_the_merge_still_encodes_as_before():
    """A model trained before the cut holds ('#', '###'): encode is unchanged; decode gets '##' alone right."""
    model = BPEModel(("<unk>",), ("#", "a", "###", "##a"), (("#", "###"),), continuing_subword_prefix="##")
    tok = Tokenizer(model, marker="##")
    assert tok.tokenize("## a") == ["##", "a"]
    assert tok.decode(tok.encode("## a")) == "## a"


def test_hf_decodes_our_export_of_a_leading_hash_hash(tmp_path):
    """HF's WordPiece decoder on our export gives the text back; HF's own trainer learns ('#', '###')
    and loses the word '##' (pinned divergence: we do not follow HF's trainer there)."""
    tokenizers = pytest.importorskip("tokenizers")
    text = "##a ## a##b"
    tok = Tokenizer.train([text] * 5, vocab_size=40, marker="##", min_frequency=1)
    hf = tokenizers.Tokenizer.from_file(str(tok.to_huggingface(tmp_path / "tokenizer.json")))
    for t in (text, "a ##a", "## ##"):
        assert hf.encode(t).ids == tok.encode(t)
        assert hf.decode(tok.encode(t)) == tok.decode(tok.encode(t)) == t

    theirs = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>", continuing_subword_prefix="##"))
    theirs.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    theirs.decoder = tokenizers.decoders.WordPiece(prefix="##", cleanup=False)
    theirs.train_from_iterator([text] * 5, tokenizers.trainers.BpeTrainer(
        vocab_size=40, min_frequency=1, special_tokens=["<unk>"], continuing_subword_prefix="##"))
    assert json.loads(theirs.to_str())["model"]["merges"][0] == ["#", "###"]
    assert theirs.decode(theirs.encode(text).ids) == "##a a##b"


_hashy_words = st.text(alphabet="#a가", min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.lists(_hashy_words, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=6),
       unit=st.sampled_from(["syllable", "jamo"]))
def test_continuation_round_trip(texts, unit):
    tok = Tokenizer.train(texts * 2, vocab_size=60, marker="##", unit=unit, min_frequency=1)
    for t in texts:
        assert tok.decode(tok.encode(t)) == t
    assert not any(tok.tokenize(w)[0].startswith("##") for t in texts for w in t.split())


# --- </w> : a word holding the text </w> is not cut there ---------------------------------------------


def test_end_of_word_text_inside_a_word():
    # 'a</w>' is frequent (four words) but never the end of one: without the cut it becomes a token
    # and "a</w>e" decodes as "a e"
    tok = Tokenizer.train(["a</w>b a</w>c a</w>d a</w>e"] * 5, vocab_size=19, marker="</w>", min_frequency=1)
    assert tok.tokenize("a</w>e") == ["a</w", ">", "e</w>"]
    assert tok.decode(tok.encode("a</w>e")) == "a</w>e"
    assert not any("</w>" in get_marker("</w>").strip(t) for t in tok.vocab)
    # only words with a bare '>' are looked at: the marker's own '>' does not count
    end = get_marker("</w>")
    assert (end.may_cut("가</w>"), end.may_cut(">"), end.may_cut("></w>")) == (False, True, True)
    assert end.cuts(["가", "나</w>"]) == [] and end.cuts(["a</w", ">b</w>"]) == [1]


def test_hf_decodes_our_export_of_the_text_end_of_word(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    tok = Tokenizer.train(["a</w>b a</w>c a</w>d a</w>e </w>"] * 5, vocab_size=19, marker="</w>", min_frequency=1)
    hf = tokenizers.Tokenizer.from_file(str(tok.to_huggingface(tmp_path / "tokenizer.json")))
    for t in ("a</w>e", "</w> a</w>b", "a</w></w>"):
        assert hf.encode(t).ids == tok.encode(t)
        assert hf.decode(tok.encode(t)) == tok.decode(tok.encode(t)) == t


# --- None : refused where it would glue the words ----------------------------------------------------


def test_none_with_whitespace_is_refused():
    model = BPEModel(("<unk>",), tuple("영화정말재밌다"), ())
    fix = r"use marker='▁' \(default\) or a lossless pre-tokenizer such as raw"
    with pytest.raises(ValueError, match=r"marker=None with the pre-tokenizer WhitespacePreTokenizer\(\).*" + fix):
        Tokenizer(model, marker=None)
    with pytest.raises(ValueError, match="marker=None.*영화정말재밌다"):
        Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20, marker=None)
    with pytest.raises(ValueError, match="marker=None"):
        Tokenizer.train_from_counts(_counts(["영화 정말 재밌다"]), vocab_size=20, marker=None)
    # a lossless pre-tokenizer keeps the spaces in its pieces: None is its default
    raw = Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20, pre_tokenizer="raw", marker=None)
    assert raw.decode(raw.encode("영화 정말 재밌다")) == "영화 정말 재밌다"


def _counts(texts):
    from korean_bpe.counting import WordCounts

    return WordCounts.from_texts(texts)


def test_none_with_morpheme_analysis_mode_is_refused():
    if "kiwi" not in PRE_TOKENIZERS:
        pytest.skip("the kiwi pre-tokenizer is not available")
    pytest.importorskip("kiwipiepy")
    with pytest.raises(ValueError, match="marker=None with the pre-tokenizer KiwiPreTokenizer"):
        Tokenizer(BPEModel(("<unk>",), tuple("영화"), ()), pre_tokenizer="kiwi", marker=None)
    Tokenizer(BPEModel(("<unk>",), tuple("영화"), ()), pre_tokenizer={"type": "kiwi", "lossless": True}, marker=None)


def test_saved_none_with_whitespace_loads_with_a_warning(tmp_path):
    """Such models were saved before the check: they load, encode as before, and say why decode glues."""
    model = BPEModel(("<unk>",), tuple("영화정말재밌다"), (("영", "화"), ("재", "밌")))
    saved = Tokenizer(model, marker=NoMarker(glue_words=True)).save(tmp_path / "old")
    config = json.loads((saved / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["marker"] is None and config["pre_tokenizer"] == {"type": "whitespace"}  # as old saves wrote it
    with pytest.warns(UserWarning, match="marker null.*glues the words together.*marker='▁'"):
        old = Tokenizer.load(saved)
    assert old.marker is None and old.tokenize("영화 정말 재밌다") == ["영화", "정", "말", "재밌", "다"]
    assert old.decode(old.encode("영화 정말 재밌다")) == "영화정말재밌다"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = Tokenizer(BPEModel(("<unk>",), ("\u2581", *"영화"), ())).save(tmp_path / "new")
        assert Tokenizer.load(new).marker == "\u2581"  # the default marker: no warning


def test_default_marker_is_never_refused():
    for spec, expected in (("whitespace", "\u2581"), ("raw", None), ({"type": "raw", "add_dummy_prefix": False}, None)):
        tok = Tokenizer(BPEModel(("<unk>",), ("\u2581", *"영화"), ()), pre_tokenizer=get_pre_tokenizer(spec))
        assert tok.marker == expected
        assert tok.decode(tok.encode("영화 영화")) == "영화 영화"


# --- the pre-tokenizer's declaration (piece_kind), not its lossless flag, decides -----------------------


class _SplitAtSpaces(BasePreTokenizer):
    """Lossless (``text.split(" ")``, joined again with ``" "``), yet its pieces hold no space."""

    name = "split_at_spaces"
    lossless = True
    piece_kind = "words"

    def __call__(self, text):
        return text.split(" ")

    def restore(self, words):
        return " ".join(words)


class _LowerMarked(BasePreTokenizer):
    """Pieces keep every space as ``▁`` (``piece_kind = "marked"``), but lower-cased: not lossless."""

    name = "lower_marked"
    lossless = False
    piece_kind = "marked"

    def __call__(self, text):
        return raw_pieces(text.lower())

    def restore(self, words):
        return restore_marked(words)


def test_none_follows_piece_kind_where_it_and_lossless_disagree():
    """The lossless flag said marker=None was fine for pieces without spaces (decode glued the
    words) and refused it for pieces that keep them; the default marker followed the flag too."""
    model = BPEModel(("<unk>",), tuple("영화정말재밌다"), ())
    split = _SplitAtSpaces()
    with pytest.raises(ValueError, match=r"marker=None with the pre-tokenizer _SplitAtSpaces\(\), which drops the spaces"):
        Tokenizer(model, pre_tokenizer=split, marker=None)
    tok = Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20, pre_tokenizer=split)
    assert tok.marker == "\u2581" and tok.decode(tok.encode("영화 정말 재밌다")) == "영화 정말 재밌다"

    lower = _LowerMarked()
    with pytest.raises(ValueError, match="marker='▁' cannot be used with the pre-tokenizer _LowerMarked.*piece_kind 'marked'"):
        Tokenizer(BPEModel(("<unk>",), ("\u2581", *"movie"), ()), pre_tokenizer=lower, marker="\u2581")
    tok = Tokenizer.train(["Movie 정말 Movie"] * 3, vocab_size=20, pre_tokenizer=lower)
    assert tok.marker is None and "".join(tok.tokenize("Movie 정말")) == "movie\u2581정말"
    assert tok.decode(tok.encode("Movie  정말")) == "movie  정말"  # lower-cased, every space kept


class _Undeclared:
    """A stage written before piece_kind (no BasePreTokenizer): raw's pieces, only ``lossless``
    declared, as compare's table of computed words is."""

    name = "undeclared"
    lossless = True

    def __call__(self, text):
        return raw_pieces(text)

    def batch(self, texts, *, show_progress=None):
        return [self(t) for t in texts]

    def restore(self, words):
        return restore_marked(words)

    def to_config(self):
        return {"type": self.name}


def test_a_stage_declaring_no_piece_kind_is_refused_with_the_fix():
    """Declarations are read one way, with BasePreTokenizer's defaults: a stage that lacks them is
    refused by name (no reader guesses a default of its own)."""
    with pytest.raises(TypeError, match="does not declare piece_kind, compiled_cut, add_dummy_prefix, pos, drop, "
                                        "analyzer_version; subclass korean_bpe.pre_tokenizers.BasePreTokenizer"):
        Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20, pre_tokenizer=_Undeclared())

    class Declared(_Undeclared, BasePreTokenizer):
        pass

    tok = Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20, pre_tokenizer=Declared())
    assert tok.marker is None and tok.decode(tok.encode("영화  정말")) == "영화  정말"
    with pytest.raises(ValueError, match="marker='▁' cannot be used"):
        Tokenizer(tok.model, pre_tokenizer=Declared(), marker="\u2581")


@pytest.mark.parametrize("spec", [
    *PRE_TOKENIZERS.names(),
    *({"type": name, "lossless": True} for name in PRE_TOKENIZERS.names()
      if name not in ("raw", "whitespace", "mob", "morpheme_boundaries")),  # those two: no lossless option
    {"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": False},
], ids=str)
def test_every_registered_pre_tokenizer_declares_what_its_flag_says(spec):
    """For the registered stages the declaration and the flag agree, so reading the declaration
    changes nothing for them: None is accepted exactly when the pieces keep the spaces, ▁ exactly
    when they do not, and the default marker is the accepted one (no analyzer is started)."""
    pt = get_pre_tokenizer(spec)
    keeps = pieces_keep_spaces(pt)
    assert keeps == pt.lossless == (pt.piece_kind == "marked")
    for marker, accepted in ((None, keeps), ("\u2581", not keeps)):
        if accepted:
            get_marker(marker).check_pre_tokenizer(pt)
        else:
            with pytest.raises(ValueError):
                get_marker(marker).check_pre_tokenizer(pt)
    from korean_bpe.tokenizer import default_marker

    assert default_marker(pt) == (None if keeps else "\u2581")


def _space_words_by_definition(tokens):
    """A ▁ token starts a word, every token joins the current word without its leading ▁."""
    words, current = [], None
    for tok in tokens:
        if current is None or tok.startswith("\u2581"):
            current = []
            words.append(current)
        rest = tok[1:] if tok.startswith("\u2581") else tok
        if rest:
            current.append(rest)
    return words


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="\u2581가ᄀa", max_size=4), max_size=8))
def test_space_marker_words_follow_the_definition(tokens):
    assert get_marker("\u2581").words(tokens) == _space_words_by_definition(tokens)
