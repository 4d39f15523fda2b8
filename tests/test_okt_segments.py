"""The batch's run memo (``run_segments``) against konlpy's own ``Okt().pos`` on the real JVM.

The batch analyses each distinct run of Hangul once and concatenates the analyses of a piece's
segments; a cut in the wrong place (next to a number's unit, inside a hashtag, a URL, a mention)
changes Okt's answer, and these tests must then fail.
"""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from korean_bpe.pre_tokenizers.okt import OktPreTokenizer, run_segments

pytest.importorskip("konlpy")
pytest.importorskip("jpype")

#: pieces (no spaces) mixing Hangul with jamo, digits, Latin, punctuation, emoji and the
#: characters that let Okt's URL/e-mail/mention/hashtag/cash-tag/number chunks take Hangul in
MIXED = [
    "영화ㅋㅋ최고!!", "ㅋㅋ영화ㅋㅋ", "영화ㅋㅋㅋ재밌다ㅠㅠ", "재밌다ㅎ", "ㅡㅡ별로", "좋다...정말", "(최고)", "'기생충'은",
    "😉영화😉", "영화♥♥♥", "★★★★★최고", "영화ABC영화", "CGV에서", "영화IMAX로", "굿굿good",
    "10년을", "20년전", "3만원짜리영화ㅋ", "그600원조차", "(1995년작", "4분의1이나", "2등!!!", "7년전에",
    "1점도아깝다", "10점만점에10점", "“20일이상”을", "제43조중“20일이상”을", "10년,최고", "3개월.최고", "2시간30분동안", "3.5점", "1/10점", "영화2편", "1편보다2편이",
    "#영화스타그램", "최고#영화", "영화＃최고", "영화@abc", "메일abc@def.com로", "＠영화", "$영화", "영화$AAPL주식",
    "영화abc.com에서", "www.영화.com", "https://영화.한국", "naver.com영화", "a.b영화", "영화.끝", "끝.a영화",
    "é.영화", "ã영화.co", "영화ㅋㅋ10년", "ㅋ1ㅋ영화", "ᄒᆞᆫ영화", "갑툭튀ㄷㄷ", "ㄱㄴㄷ가나다ABC123",
]


@pytest.fixture(scope="module")
def konlpy_okt():
    from korean_bpe.pre_tokenizers.okt import _start_okt

    return _start_okt()


def test_run_segments_cut_only_where_okt_does_not_look_across():
    assert run_segments("영화ㅋㅋ최고!!") == ["영화", "ㅋㅋ", "최고", "!!"]
    assert run_segments("😉영화😉") == ["😉", "영화", "😉"]
    assert run_segments("영화ABC영화") == ["영화", "ABC", "영화"]
    assert run_segments("좋다...정말") == ["좋다", "...", "정말"]
    assert run_segments("영화") == ["영화"] and run_segments("ㅋㅋ") == ["ㅋㅋ"] and run_segments("") == [""]
    # a run right after a digit stays with it (10년: one Number token)
    assert run_segments("10년을") == ["10년을"]
    assert run_segments("ㅋ1ㅋ영화") == ["ㅋ1ㅋ", "영화"]
    assert run_segments("그600원조차") == ["그", "600원조차"]
    assert run_segments("“20일이상”을") == ["“20일이상”", "을"]  # 이상” is one Foreign token
    # what a URL, e-mail, mention, hashtag or cash tag needs: not cut at all
    for piece in ("#영화스타그램", "영화＃최고", "영화@abc", "＠영화", "$영화", "영화abc.com에서", "https://영화.한국",
                  "a.b영화", "é.영화"):
        assert run_segments(piece) == [piece], piece
    assert run_segments("영화.끝") == ["영화", ".", "끝"]  # a dot after Hangul starts no host name
    for piece in MIXED:
        assert "".join(run_segments(piece)) == piece


def test_segment_analyses_concatenated_are_okts_analysis_of_the_piece(konlpy_okt):
    """Tags too: each cut piece's analysis is the concatenation of its segments' (one JVM call
    per segment and per piece, nothing joined)."""
    cut = [p for p in MIXED if len(run_segments(p)) > 1]
    assert len(cut) > 25
    for piece in MIXED:
        whole = konlpy_okt.pos(piece)
        parts = [pair for s in run_segments(piece) for pair in konlpy_okt.pos(s)]
        assert parts == whole, piece
    # and the cut the rule refuses would be wrong: Okt does look across these boundaries
    assert konlpy_okt.pos("10년을") != konlpy_okt.pos("10") + konlpy_okt.pos("년을")
    assert konlpy_okt.pos("#영화스타그램") != konlpy_okt.pos("#") + konlpy_okt.pos("영화스타그램")


@pytest.mark.parametrize("options", [{}, {"drop": ()}, {"lossless": True}])
def test_batch_equals_konlpy_pos_on_mixed_pieces(konlpy_okt, options):
    texts = [*MIXED, " ".join(MIXED), "영화 " * 3 + "10년을 ㅋㅋ영화", *MIXED[::-1]]
    pt = OktPreTokenizer(cache=False, workers=1, **options)
    assert pt.batch(texts) == [pt(t) for t in texts]
    if options.get("drop") == ():  # the words are konlpy's surfaces, nothing dropped
        assert pt.batch(texts) == [[w for w, _ in konlpy_okt.pos(t) for w in w.split()] for t in texts]
    stats = pt._batcher.last_stats
    assert stats["texts"] < len({p for t in texts for p in t.split()}) + 40  # segments, each once


def test_batch_analyses_each_distinct_run_once(konlpy_okt):
    """영화 appears in many pieces; the batch sends each distinct segment to Okt once."""
    seen: list[str] = []

    class Recording:
        def map(self, fn, items):
            for chunk in items:
                seen.extend(chunk)
                yield fn(chunk)

    texts = ["영화!", "영화ㅋㅋ", "(영화)", "영화...", "ㅋㅋ영화ㅋㅋ"]
    pt = OktPreTokenizer(cache=False, drop=(), executor=Recording())
    assert pt.batch(texts) == [[w for w, _ in konlpy_okt.pos(t)] for t in texts]
    assert sorted(seen) == sorted(set(seen)) and seen.count("영화") == 1
    assert set(seen) == {"영화", "!", "ㅋㅋ", "(", ")", "..."}


SEG_ALPHABET = st.sampled_from(list("영화가재밌다ㅋㅎㅠ10a.#@$!?😉 ") + ["년", "원", "만", "com", "://"])


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(st.lists(SEG_ALPHABET, max_size=12).map("".join), min_size=1, max_size=8))
def test_any_mix_batch_equals_per_text(konlpy_okt, texts):
    pt = OktPreTokenizer(cache=False, workers=1, drop=())
    assert pt.batch(texts) == [[w for w, _ in konlpy_okt.pos(t) for w in w.split()] for t in texts]
