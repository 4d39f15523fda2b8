"""Units (syllable, jamo, byte): split/join round trips, the byte table, markers, the registry."""

import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from korean_bpe.jamo import decompose
from korean_bpe.units import (
    MARKERS, SPACE_MARK, UNITS, ByteUnit, JamoUnit, SyllableUnit, Unit, apply_marker, bytes_to_unicode,
    check_marker, get_unit, strip_marker, words_from_tokens,
)

from _strings import HARD, HUGE_LINE, NFD, SURROGATES, hangulish

EDGE = [*HARD, HUGE_LINE]
HANGULISH = hangulish(30, hangul_only=True)
UNIT_NAMES = ["syllable", "jamo", "byte"]


@pytest.mark.parametrize("name", UNIT_NAMES)
@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:20]))
def test_edge_round_trip(name, text):
    unit = get_unit(name)
    symbols = unit.split(text)
    assert isinstance(symbols, tuple) and all(isinstance(s, str) and s for s in symbols)
    # NFD input comes back as its NFC under jamo (the jamo of 한 are the same either way)
    assert unit.join(symbols) == (unicodedata.normalize("NFC", text) if name == "jamo" and text in NFD else text)


def test_pinned_splits():
    assert get_unit("syllable").split("값이") == ("값", "이")
    assert get_unit("jamo").split("값이") == ("\u1100", "\u1161", "\u11b9", "\u110b", "\u1175")
    assert get_unit("jamo").split("ㅋㅋ") == ("ㅋ", "ㅋ")  # compatibility jamo stay
    assert get_unit("byte").split("한") == ("í", "ķ", "ľ")
    assert get_unit("byte").split("a ") == ("a", "Ġ")  # GPT-2: space is Ġ


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_syllable_and_byte_round_trip_any_text(text):
    for name in ("syllable", "byte"):
        unit = get_unit(name)
        assert unit.join(unit.split(text)) == text
    assert len(get_unit("byte").split(text)) == len(text.encode("utf-8"))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), HANGULISH))
def test_jamo_round_trip_exact_for_nfc_stable_text(text):
    unit = get_unit("jamo")
    if unicodedata.is_normalized("NFC", text):
        assert unit.join(unit.split(text)) == text


@settings(max_examples=300, deadline=None)
@given(HANGULISH)
def test_jamo_round_trip_gives_nfc_of_hangul_otherwise(text):
    """On Hangul, jamo join(split(x)) is exactly NFC (conjoining jamo never have a combining class,
    so NFC only composes L+V(+T) and LV+T).  ``compose(x) == x`` alone is *not* enough for an exact
    round trip when ``compose`` leaves an LV syllable + T pair alone: ``"가" + U+11A8`` comes back
    as ``"각"`` (its NFC)."""
    unit = get_unit("jamo")
    assert unit.join(unit.split(text)) == unicodedata.normalize("NFC", text)
    assert unit.split(text) == tuple(decompose(text))


@pytest.mark.parametrize("text", NFD, ids=repr)
def test_jamo_on_nfd_input_comes_back_composed(text):
    unit = get_unit("jamo")
    assert unit.join(unit.split(text)) == unicodedata.normalize("NFC", text)


def test_jamo_symbols_are_conjoining_for_every_syllable():
    unit = get_unit("jamo")
    for cp in range(0xAC00, 0xD7A4, 37):
        s = chr(cp)
        symbols = unit.split(s)
        assert "".join(symbols) == unicodedata.normalize("NFD", s)
        assert all(0x1100 <= ord(c) <= 0x11FF for c in symbols)
        assert unit.join(symbols) == s


def test_byte_table_covers_all_bytes_with_printable_symbols():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    symbols = list(table.values())
    assert len(set(symbols)) == 256
    assert all(len(c) == 1 and c.isprintable() and not c.isspace() for c in symbols)
    unit = ByteUnit()
    assert set(unit.initial_alphabet) == set(symbols) and len(unit.initial_alphabet) == 256
    assert unit.join(unit.split(bytes(range(128)).decode("ascii"))) == bytes(range(128)).decode("ascii")
    assert table[ord("a")] == "a" and table[ord(" ")] == "Ġ"


def test_byte_join_of_broken_utf8_and_bad_symbols():
    unit = ByteUnit()
    assert unit.join(unit.split("한")[:2]) == "\ufffd"
    assert unit.join(unit.split("한국")[:4]) == "한\ufffd"
    with pytest.raises(ValueError, match="not a byte-unit symbol"):
        unit.join(["한"])




@pytest.mark.parametrize("name", UNIT_NAMES)
@pytest.mark.parametrize("text", SURROGATES, ids=repr)
def test_lone_surrogates_are_kept_by_every_unit(name, text):
    """Lone surrogates (Python strings from surrogateescape / broken JSON) come back as they
    went in, under every unit; the byte unit spells them as surrogatepass UTF-8 (ED A0 80)."""
    unit = get_unit(name)
    assert unit.join(unit.split(text)) == text


def test_byte_unit_spells_a_lone_surrogate_as_three_bytes_and_still_replaces_broken_utf8():
    unit = ByteUnit()
    assert unit.split("\ud800") == tuple(bytes_to_unicode()[b] for b in b"\xed\xa0\x80")
    assert unit.join(unit.split("\ud800한")[:4]) == "\ud800\ufffd"  # a cut 한: replaced, the surrogate kept
    assert unit.join([bytes_to_unicode()[b] for b in b"\xed\xa0"]) == "\ufffd\ufffd"  # a cut surrogate


# -- markers -------------------------------------------------------------------------------------

WORD = st.lists(st.sampled_from(["값", "이", "ᄀ", "ᅡ", "ㅋ", "a", "1", "!", "😉", "í"]), min_size=1, max_size=6)


def test_apply_marker_pinned():
    assert apply_marker(("값", "이"), None) == ("값", "이")
    assert apply_marker(("값", "이"), SPACE_MARK) == ("▁", "값", "이")
    assert apply_marker(("값", "이"), "</w>") == ("값", "이</w>")
    assert apply_marker(("값", "이"), "##") == ("값", "##이")
    assert apply_marker((), "</w>") == ()
    with pytest.raises(ValueError, match="marker='@@' is not supported"):
        apply_marker(("값",), "@@")
    with pytest.raises(ValueError, match="marker="):
        check_marker("@@")
    assert [check_marker(m) for m in MARKERS] == list(MARKERS)


@settings(max_examples=200, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=6), st.sampled_from([SPACE_MARK, "</w>", "##"]))
def test_markers_round_trip(words, marker):
    tokens = [t for w in words for t in apply_marker(tuple(w), marker)]
    assert words_from_tokens(tokens, marker) == words
    assert [strip_marker(t, marker) for t in tokens if t != SPACE_MARK] == [s for w in words for s in w]


@settings(max_examples=200, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=6), st.sampled_from([SPACE_MARK, "</w>"]), st.randoms(use_true_random=False))
def test_markers_survive_merges(words, marker, rnd):
    """Merging adjacent symbols inside a word (what BPE does) keeps the word boundaries."""
    merged_words = []
    tokens = []
    for w in words:
        toks = list(apply_marker(tuple(w), marker))
        while len(toks) > 1 and rnd.random() < 0.6:
            i = rnd.randrange(len(toks) - 1)
            toks[i:i + 2] = [toks[i] + toks[i + 1]]
        tokens.extend(toks)
        merged_words.append("".join(w))
    assert ["".join(g) for g in words_from_tokens(tokens, marker)] == merged_words


def test_no_marker_is_one_group():
    assert words_from_tokens(["값", "이", "좋"], None) == [["값", "이", "좋"]]
    assert words_from_tokens([], None) == []


# -- registry ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", UNIT_NAMES)
def test_registry_config_round_trip(name):
    unit = get_unit(name)
    assert isinstance(unit, Unit) and unit.name == name
    cfg = unit.to_config()
    assert cfg == {"type": name}
    again = get_unit(cfg)
    assert type(again) is type(unit) and again.split("값이 ㅋ") == unit.split("값이 ㅋ")
    assert get_unit(unit) is unit
    assert repr(unit).endswith("()")


def test_registry_errors():
    assert UNITS.names() == ["byte", "jamo", "syllable"]
    with pytest.raises(ValueError, match=r"unknown unit 'char'; choose one of 'byte', 'jamo', 'syllable'"):
        get_unit("char")
    with pytest.raises(ValueError, match="needs a 'type' key"):
        get_unit({"name": "jamo"})
    with pytest.raises(ValueError, match="bad unit config"):
        get_unit({"type": "jamo", "compose": False})
    assert isinstance(get_unit("syllable"), SyllableUnit) and isinstance(get_unit("jamo"), JamoUnit)
