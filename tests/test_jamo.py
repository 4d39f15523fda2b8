import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from korean_bpe import jamo

from _strings import HARD, HUGE_LINE, SURROGATES, hangulish


def test_constants_derive_from_each_other():
    assert jamo.S_COUNT == 11172 == jamo.L_COUNT * jamo.V_COUNT * jamo.T_COUNT
    assert chr(jamo.S_BASE + jamo.S_COUNT - 1) == "힣"


def test_every_syllable_matches_unicode_nfd_and_recomposes():
    for i in range(jamo.S_COUNT):
        s = chr(jamo.S_BASE + i)
        d = jamo.decompose(s)
        assert d == unicodedata.normalize("NFD", s)
        assert all(jamo.is_conjoining_jamo(c) for c in d)
        assert jamo.compose(d) == s


def test_known_values():
    assert [hex(ord(c)) for c in jamo.decompose("값")] == ["0x1100", "0x1161", "0x11b9"]
    assert jamo.compose("\u1112\u1161\u11ab\u1100\u1173\u11af") == "한글"


@pytest.mark.parametrize("text", [*HARD, HUGE_LINE, *SURROGATES], ids=lambda t: repr(t[:20]))
def test_edge_strings_round_trip(text):
    """Exact round trip, but for NFD input, which comes back as its NFC."""
    expected = unicodedata.normalize("NFC", text) if text != jamo.compose(text) else text
    assert jamo.compose(jamo.decompose(text)) == expected


def test_compatibility_jamo_untouched():
    for text in ["ㅋㅋ", "ㅠㅠ", "ㄹㅇ"]:
        assert jamo.decompose(text) == text
        assert all(jamo.is_compatibility_jamo(c) for c in text)
        assert not any(jamo.is_conjoining_jamo(c) for c in jamo.decompose(text))


def test_old_hangul_and_stray_jamo_untouched():
    old = "\u1112\u119e\u11ab"  # ᄒᆞᆫ: arae-a is not a modern vowel
    assert jamo.compose(old) == old
    assert jamo.compose("\u11ab") == "\u11ab"
    assert jamo.compose("\u1100") == "\u1100"


def test_nfd_input_comes_back_in_nfc():
    nfd = unicodedata.normalize("NFD", "한국어 ㅋㅋ")
    assert jamo.decompose(nfd) == nfd
    assert jamo.compose(nfd) == "한국어 ㅋㅋ" == unicodedata.normalize("NFC", nfd)
    mixed = "한" + unicodedata.normalize("NFD", "글")
    assert jamo.compose(jamo.decompose(mixed)) == "한글"


def _hangul_nfc_stable(s: str) -> bool:
    return jamo.compose(s) == s


@given(st.text())
def test_round_trip_arbitrary_unicode(s):
    if _hangul_nfc_stable(s):
        assert jamo.compose(jamo.decompose(s)) == s
    else:  # only NFD Hangul in the input is changed, and only into its NFC form
        assert jamo.compose(jamo.decompose(s)) == jamo.compose(s)


@given(hangulish())
def test_round_trip_korean_heavy(s):
    out = jamo.compose(jamo.decompose(s))
    assert out == jamo.compose(s)
    assert unicodedata.normalize("NFC", out) == unicodedata.normalize("NFC", s)
    if _hangul_nfc_stable(s):
        assert out == s


def test_lv_syllable_plus_trailing_consonant_composes_like_nfc():
    s = "가\u11a8새\u11ab"
    assert jamo.compose(s) == unicodedata.normalize("NFC", s) == "각샌"
    assert jamo.compose(jamo.decompose(s)) == "각샌"
    assert jamo.compose("각\u11a8") == "각\u11a8"  # LVT + T does not compose (NFC agrees)
    assert unicodedata.normalize("NFC", "각\u11a8") == "각\u11a8"


@given(st.text(alphabet=st.one_of(st.characters(min_codepoint=0xAC00, max_codepoint=0xAC40),
                                  st.characters(min_codepoint=0x1100, max_codepoint=0x11FF))))
def test_compose_equals_nfc_on_hangul(s):
    assert jamo.compose(s) == unicodedata.normalize("NFC", s)


# -- the compiled compose against its definition ----------------------------------------------------

_COMPOSE_ALPHABET = (
    [chr(c) for c in range(0x1100, 0x1114)] + [chr(c) for c in range(0x1160, 0x1177)]
    + [chr(c) for c in range(0x11A6, 0x11C4)]  # L, V, T and the code points just around them
    + ["가", "개", "각", "힣", "a", " ", "\ud800", "😉", "ᆞ", "ㅋ"]  # LV, LVT, others, a lone surrogate
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_COMPOSE_ALPHABET), max_size=12).map("".join))
def test_compose_equals_its_readable_definition(text):
    from korean_bpe.jamo import compose, compose_reference

    assert compose(text) == compose_reference(text)


def test_compose_is_compiled_when_the_core_is_built():
    import importlib.util

    from korean_bpe import jamo

    built = importlib.util.find_spec("korean_bpe._jamo") is not None
    assert (jamo.compose is not jamo.compose_reference) == built
    word = jamo.decompose("값진 영화")
    assert jamo.compose(word) == "값진 영화" and jamo.compose("abc") == "abc"
