"""The hard strings and the hypothesis text strategies every test shares (one list, not seven).

``HARD`` is the union of the lists the tests used to keep each for themselves (units, jamo,
pre-tokenizers, Okt, Kiwi/MeCab, counting, engine, encoding options, HF export, peers, corpus);
a test that cannot take some kind of string says so by calling :func:`hard` with the matching
``no_*`` flag, never by keeping a private list.

>>> "" in HARD and "안녕하세요" in HARD and "lone \\ud800 surrogate 한국" in HARD
True
>>> any("\\ud800" in t for t in hard(no_surrogates=True))
False
"""

from __future__ import annotations

import unicodedata

from hypothesis import strategies as st

SPACE_MARK = "\u2581"  # ▁: the raw pre-tokenizer's (and SentencePiece's) stand-in for a space
LINE_BREAK_CHARS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # str.splitlines()' line boundaries

#: the seed sentence of the analyzer tests (Okt's classic example, with josa and commas)
SEED = "스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함"
#: a long line (~8,000 characters): the analyzers' chunking and the caches
LONG_LINE = "어제 IMAX 스파이더맨봤는데 쩔어!! ㅋㅋ " * 300
#: a huge one-word line (200,000 syllables): readers and splitters only, analyzers would take minutes
HUGE_LINE = "가" * 200_000

HARD: tuple[str, ...] = (
    # the minimal cases (minbpe's class x strings): empty, one space, one character, a greeting
    "", " ", "가", "닭", "힣", "안녕하세요", "값이",
    # real Korean, informal and formal
    "먹겠습니당!", "감사히 먹겠습니당!", "제임스웹우주천체망원경", SEED, "재밌다 진짜 재밌다", "값이 값이 값",
    "똠방각하 쀓뷁 햏햏 읎다", "스파이더맨 파프롬홈은 MCU 최고의 영화이다",
    "제임스웹우주천체망원경 1,234원 (2024년) 감사히 먹겠습니당!",
    # compatibility jamo (ㅋㅋ ㅠㅠ ㄹㅇ), the Hangul filler U+3164
    "ㅋ", "ㅋㅋㅋ", "ㅠㅠ", "ㅋㅋㅋㅋ ㅋㅋㅋㅋ ㅎㅎ", "ㅋㅋㅋㅋ ㅠㅠ ㄹㅇ 개꿀잼", "ㅋ" * 50, "\u3164",
    # NFD (conjoining jamo) input, alone and mixed with NFC; an LV syllable + a trailing consonant
    unicodedata.normalize("NFD", "한국어"), unicodedata.normalize("NFD", "한국어 영화"),
    unicodedata.normalize("NFD", "한국어 텍스트"), unicodedata.normalize("NFD", "한국어 영화를 봤다"),
    unicodedata.normalize("NFD", "한글 자모로 풀어 쓴 글"), "NFD 섞임: " + unicodedata.normalize("NFD", "돈날림") + " 끝",
    "\u1100\u1161 가 NFD-와-NFC", "\u1112\u1161\u11ab\u1100\u1173\u11af NFD", "가\u11a8", "\u1100\u1161", "한\u1161",
    # old Hangul (arae-a U+119E is no modern vowel)
    "ᄒᆞᆫ글",
    # emoji: astral, flags, skin tone, a ZWJ family
    "😉한국어abc123", "😉한국어abc123 ㅋㅋㅋ ㅠㅠ", "emoji 😉😉 and ascii", "🇰🇷", "이 영화 정말 재밌었어요ㅋㅋㅋ 😀👍🏻  최고!!",
    "가족 👨\u200d👩\u200d👧 영화 최고", "😉\xa0😉 좋다", "😉\u2028😉",
    # U+2581 itself (raw's space mark, SentencePiece's too)
    "영화관 ▁ 표시▁ ▁앞",
    # white space: outer, doubled, tabs, line breaks of every kind, NBSP, ideographic space
    "  앞뒤  공백\t탭\n줄바꿈  ", "  앞뒤 공백\t탭\n줄바꿈  ", "  앞뒤  공백  ", "  앞뒤 공백  ", "  앞뒤 공백 ",
    "  앞뒤 공백과\t탭 ", "\n 첫 줄\n\n  둘째 줄 ", "줄\n바꿈\r\n끝\n", "탭\t\t문자", "\t\n\r\n", "영화\n\n좋다\r\n",
    "영화\t좋다\n\n굿\r\n", "x\n\ny\r\nz", "\r", "탭\t안에", "끝에 공백 ", "\t앞 탭", "뒤 탭\t", "끝 줄바꿈\n",
    "a\x1cb\u3000c\xa0d\u2028e", "a\x1cb\u3000c\xa0d\u2028e\x85f", "\u2028\u00a0\u3000", "nbsp\u00a0split 전각\u3000공백",
    "x\u3000y 한국", "\u3000영화 최고", "\xa0영화 \u2003#명작\u2028최고", " 앞", "뒤 ", "  두  칸  ", "  두 칸  띄고\t탭\n줄바꿈 ",
    # control and invisible characters, private use (Okt's separator), backslashes
    "\u0000\t\n", "a\x00b 한국", "\ufeff", "\ue000 구분자 \ue000", "백\\슬래시 \\t 그대로",
    # punctuation only
    "...!!! ?? ~~", "...!!! ?? ~~ ^^ ;; ★☆ (\"\")",
    # mixed scripts, URLs, quotes
    "é", "Café 日本語 けいおん", "漢字 ひらがな Привет ①②", "MCU 최고 IMAX 3D!!! 10/10 ^^ ㄹㅇ 돈날림ㅠㅠ",
    "https://naver.com 에서 #해시태그 @멘션 봄", '"따옴표" 그대로 NA null',
    # a lone surrogate (from surrogateescape or broken JSON)
    "lone \ud800 surrogate 한국",
    # long lines
    LONG_LINE, "어제 IMAX 봤는데 ㅋㅋ " * 500,
)

#: lone surrogates, and a surrogate pair written as two code points
SURROGATES = ("\ud800", "a\udfffb", "영화\udc80", "\ud83d\ude00", "\ud83d😀")

#: NFD input whose jamo unit round trip is its NFC (the NFD strings of ``HARD``)
NFD = tuple(t for t in HARD if not unicodedata.is_normalized("NFC", t))


def hard(*, no_surrogates: bool = False, no_line_breaks: bool = False, no_space_mark: bool = False,
         no_blank: bool = False, no_long: bool = False) -> list[str]:
    """``HARD`` minus what a test cannot take: lone surrogates (anything that must be encoded as
    UTF-8: HF, files), line breaks (one document a line), U+2581 (it means a space to ``raw``),
    blank strings (readers skip them), the long lines (slow peers)."""
    out = []
    for t in HARD:
        if no_surrogates and any(0xD800 <= ord(c) <= 0xDFFF for c in t):
            continue
        if no_line_breaks and any(c in LINE_BREAK_CHARS for c in t):
            continue
        if no_space_mark and SPACE_MARK in t:
            continue
        if no_blank and not t.strip():
            continue
        if no_long and len(t) > 1000:
            continue
        out.append(t)
    return out


# -- hypothesis strategies ------------------------------------------------------------------------

#: odd characters worth drawing often: white space and line breaks of every kind, NUL, zero-width
#: space, BOM, private use, an emoji, an ideograph, ASCII letters, digits and punctuation
ODD_CHARS = list(" \n\t\r.!?,~^ㅋㅠabc123😉漢\x00\x1c\x1f\x85\u2028\u200b\ufeff\xa0\u3000\ue000")

#: one character, Hangul-heavy: syllables, modern and old conjoining jamo, compatibility jamo,
#: a few common syllables and the odd characters (all NFC-stable but the jamo)
_hangul_only_char = st.one_of(
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),
    st.characters(min_codepoint=0x1100, max_codepoint=0x11FF),
    st.characters(min_codepoint=0x3131, max_codepoint=0x318E),
    st.sampled_from(list("가각값힣") + ODD_CHARS),
)
#: the same, or any code point at all (lone surrogates included)
hangul_char = st.one_of(_hangul_only_char, st.characters())


def hangulish(max_size: int = 60, *, hangul_only: bool = False) -> st.SearchStrategy[str]:
    """Hangul-heavy text, one character at a time (see :data:`hangul_char`); may hold lone
    surrogates and U+2581, unless ``hangul_only``: then only Hangul and the odd characters, whose
    NFC changes nothing but the jamo."""
    return st.text(alphabet=_hangul_only_char if hangul_only else hangul_char, max_size=max_size)


#: pieces of review-like text: syllables, frequent words, compatibility jamo runs, emoji (a ZWJ
#: family too), old Hangul, NFD syllables, white space of every kind str.split() knows, Latin
#: and combining marks, astral letters, and any character but a surrogate
_syllable = st.integers(0xAC00, 0xD7A3).map(chr)
_PIECES = [
    _syllable,
    st.sampled_from(list("영화정말재밌다최고의진짜는이가을를에서도 ") + ["영화", "재밌다", "ㅋㅋㅋ", "ㅠㅠ"]),
    st.sampled_from(["ㅋ", "ㅋㅋ", "ㅋㅋㅋㅋ", "ㅠㅠ", "ㅎㅎ", "ㄹㅇ", "ㅜ", "ㄷㄷ"]),
    st.sampled_from(["😀", "😂", "👍🏻", "❤️", "🇰🇷", "🎬", "👨\u200d👩\u200d👧", "𝔘"]),
    st.sampled_from(["ᄒᆞᆫ글", "ᄀᆞᄅᆞᆷ", "ᄫ", "ᅀ", "ᆢ", "\u115f\u1160", "\u1112\u1161\u11ab"]),
    _syllable.map(lambda s: unicodedata.normalize("NFD", s)),
    st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\u200b"]),
    st.sampled_from(["IMAX", "MCU", "vs", "3D", "10점", "!!", "...", "?", "~", "^^", "ㅡㅡ", "a\u0301", "é"]),
]


def korean_heavy(max_size: int = 30, *, no_space_mark: bool = True) -> st.SearchStrategy[str]:
    """Review-like text made of up to ``max_size`` pieces (see ``_PIECES``), never a lone
    surrogate; nor U+2581 unless ``no_space_mark=False``."""
    other = st.characters(blacklist_categories=("Cs",), blacklist_characters=SPACE_MARK if no_space_mark else "")
    return st.lists(st.one_of(*_PIECES, other), max_size=max_size).map("".join)


#: any text without lone surrogates nor U+2581 (what every lossless pipeline must give back)
any_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=SPACE_MARK), max_size=60)


def tie_words(*, max_len: int = 12, max_count: int = 50, max_words: int = 12) -> st.SearchStrategy[dict[str, int]]:
    """Word counts over a four-letter alphabet (``ㅋㅎab``): many equal pair counts, so the tie
    rule decides most merges."""
    return st.dictionaries(st.text(alphabet="ㅋㅎab", min_size=1, max_size=max_len), st.integers(1, max_count),
                           min_size=1, max_size=max_words)
