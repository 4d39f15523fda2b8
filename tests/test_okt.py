"""The ``okt`` pre-tokenizer on the real JVM (konlpy 0.6.0, open-korean-text 2.1.0).

Nothing is mocked except to inject faults (a broken Java, a broken JPype).  Every batch here runs
with ``cache=False`` (the cache has its own tests in ``test_cache.py``), so each one really goes
through the joined JVM calls and, where asked, the worker processes.
"""

import json
import os
import pickle
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from korean_bpe.pre_tokenizers import PreTokenizer, get_pre_tokenizer
from korean_bpe.pre_tokenizers import _analyzer
from korean_bpe.pre_tokenizers.base import LINE_BREAKS
from korean_bpe.pre_tokenizers.okt import DEFAULT_DROP, OKT_TAGS, JavaNotFoundError, OktPreTokenizer, okt_version

from _sizes import sized
from _strings import LONG_LINE as LONG, SEED, hangulish
from _strings import hard as hard_strings

pytest.importorskip("konlpy")
pytest.importorskip("jpype")

DATA = Path(__file__).resolve().parent.parent / "data"
SEED_WORDS = ["스파이더맨", "슈퍼맨", "배트맨", "아이언맨", "올해", "최고", "영화", "아닐까", "생각", "함"]
EDGE = hard_strings(no_space_mark=True)  # ▁ is the lossless pieces' space mark


@pytest.fixture(scope="module")
def okt():
    return OktPreTokenizer(cache=False)


@pytest.fixture(scope="module")
def lossless():
    return OktPreTokenizer(lossless=True, cache=False)


@pytest.fixture(scope="module")
def keep_all():
    return OktPreTokenizer(drop=(), cache=False)


def assert_slices(words, text):
    """Words are non-empty slices of ``text``, in order, without white space."""
    cursor = 0
    for w in words:
        assert w and not any(c.isspace() for c in w), (w, text)
        i = text.find(w, cursor)
        assert i >= 0, (w, text)
        cursor = i + len(w)


def assert_lossless_pieces(pieces, text, pt):
    assert pt.restore(pieces) == text
    assert all(pieces)
    for p in pieces:  # no piece holds a space or joins a line break to anything
        assert " " not in p
        assert not (set(p) & set(LINE_BREAKS)) or len(p) == 1


# -- the seed sentence and the golden dictionary -----------------------------------------------

def test_seed_sentence(okt):
    assert okt(SEED) == SEED_WORDS
    assert okt.batch([SEED, SEED]) == [SEED_WORDS, SEED_WORDS]


def test_golden_dictionary_of_the_okt_tutorial(okt, okt_sentences):
    """The classic tutorial: counting the default words of its seven sentences gives exactly the
    47-entry dictionary of data/okt_tutorial_expected.json (konlpy 0.6.0)."""
    expected = json.loads((DATA / "okt_tutorial_expected.json").read_text(encoding="utf-8"))
    assert expected["analyzer"] == "okt" and tuple(expected["drop"]) == DEFAULT_DROP
    assert len(okt_sentences) == 7 and len(expected["counts"]) == 47
    counts = Counter(w for s in okt_sentences for w in okt(s))
    assert dict(counts) == expected["counts"]
    assert list(counts) == list(expected["counts"])  # first-seen order too
    assert Counter(w for ws in okt.batch(okt_sentences) for w in ws) == counts


def test_pos_is_konlpys_pos(okt):
    from konlpy.tag import Okt

    for text in [SEED, "어제 배트맨 봤는데 ㅠㅠ ㄹㅇ 돈날림ㅠㅠ!!", "먹겠습니당!"]:
        assert okt.pos(text) == Okt().pos(text)


# -- edge strings -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", EDGE, ids=lambda t: repr(t[:20]))
def test_edge_strings(okt, lossless, keep_all, text):
    for pt in (okt, keep_all):
        words = pt(text)
        assert isinstance(words, list)
        assert_slices(words, text)
        assert pt.restore(words) == " ".join(words)
    assert_lossless_pieces(lossless(text), text, lossless)
    # every mode drops exactly the white space and nothing else with drop=()
    assert "".join(keep_all(text)) == "".join(text.split())


def test_edge_expectations(okt, lossless, keep_all):
    assert okt("") == [] and okt(" ") == [] and okt("\t\n\r\n") == []
    assert lossless("") == [] and lossless(" ") == ["▁"]
    assert okt("ㅋㅋㅋ") == ["ㅋㅋㅋ"] and okt("ㅠㅠ") == ["ㅠㅠ"]  # KoreanParticle: kept
    assert okt("먹겠습니당!") == ["먹겠", "습", "니당"]  # Okt's own (odd) analysis, "!" dropped
    assert lossless("먹겠습니당!") == ["먹겠", "습", "니당", "!"]
    assert okt("😉한국어abc123") == ["한국어", "abc", "123"]  # the emoji is Foreign: dropped
    assert keep_all("😉한국어abc123") == ["😉", "한국어", "abc", "123"]
    # old Hangul is Foreign to Okt: dropped by default, kept whole with drop=()
    assert okt("ᄒᆞᆫ글") == ["글"] and keep_all("ᄒᆞᆫ글") == ["ᄒᆞᆫ", "글"]
    assert okt("...!!! ?? ~~ ^^ ;; ★☆ (\"\")") == []
    # tabs and line breaks: never words; lossless keeps them, each line break a piece
    assert okt("영화\t좋다\n\n굿\r\n") == ["영화", "좋다", "굿"]
    assert lossless("영화\t좋다\n\n굿\r\n") == ["영화", "\t", "좋다", "\n", "\n", "굿", "\r", "\n"]
    # Okt's Foreign runs may hold white space Java does not split on: cut into words
    assert keep_all("😉\xa0😉 좋다") == ["😉", "😉", "좋다"]
    assert lossless("😉\u2028😉") == ["😉", "\u2028", "😉"]
    # characters the JVM bridge cannot take (lone surrogates) are kept, not a crash
    assert keep_all("lone \ud800 x") == ["lone", "\ud800", "x"]


def test_nfd_input_gets_the_nfc_analysis(okt, lossless):
    """Okt reads conjoining jamo as Foreign; we hand it the composed text and slice the words
    out of the original, so NFD input gives the NFC words in NFD characters."""
    nfc = "어제 배트맨 봤는데 돈날림 한국어 영화를 봤다"
    nfd = unicodedata.normalize("NFD", nfc)
    assert okt(nfd) == [unicodedata.normalize("NFD", w) for w in okt(nfc)]
    assert okt(nfd) and all(unicodedata.is_normalized("NFD", w) for w in okt(nfd))
    assert lossless(nfd) == [unicodedata.normalize("NFD", w) for w in lossless(nfc)]
    mixed = "영화 " + unicodedata.normalize("NFD", "돈날림") + "ㅠㅠ 😉 끝"
    assert lossless.restore(lossless(mixed)) == mixed
    assert okt.batch([nfd, mixed]) == [okt(nfd), okt(mixed)]


def test_very_long_line(okt, lossless):
    words = okt(LONG)
    assert words[:5] == ["어제", "IMAX", "스파이더맨", "봤는데", "쩔어"]
    assert words.count("ㅋㅋ") == 300 and len(words) == 1800
    assert lossless.restore(lossless(LONG)) == LONG
    assert okt.batch([LONG, SEED, LONG]) == [words, SEED_WORDS, words]


# -- options ----------------------------------------------------------------------------------

def test_norm_and_stem_rewrite_surfaces():
    assert OktPreTokenizer(stem=True, cache=False)("어제 IMAX 봤는데 쩔어!") == ["어제", "IMAX", "보다", "쩔다"]
    plain, norm = OktPreTokenizer(cache=False), OktPreTokenizer(norm=True, cache=False)
    assert plain("그래욬ㅋㅋ 안녕하세욬ㅋㅋㅋ") == ["그래욬", "ㅋㅋ", "안녕하세", "욬", "ㅋㅋㅋ"]
    assert norm("그래욬ㅋㅋ 안녕하세욬ㅋㅋㅋ") == ["그래요", "ㅋㅋ", "안녕하세요", "ㅋㅋㅋ"]
    texts = ["사랑햌ㅋㅋ", "어제 IMAX 봤는데 쩔어!", SEED, "", "됔ㅋㅋ 그래욬ㅋㅋ"]
    for pt in (norm, OktPreTokenizer(norm=True, stem=True, cache=False)):
        assert pt.batch(texts) == [pt(t) for t in texts]


@pytest.mark.parametrize("kwargs", [{"norm": True}, {"stem": True}, {"norm": True, "stem": True}])
def test_norm_stem_refused_in_lossless_mode(kwargs):
    with pytest.raises(ValueError, match="lossless=True cannot restore text that norm/stem rewrote"):
        OktPreTokenizer(lossless=True, **kwargs)
    with pytest.raises(ValueError, match="norm=False, stem=False"):
        get_pre_tokenizer({"type": "okt", "drop": [], "lossless": True, **kwargs})


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"drop": "Josa"}, TypeError, "not the string 'Josa'"),
        ({"drop": ("Josa", "NNG")}, ValueError, r"unknown Okt tags \['NNG'\]"),
        ({"drop": ("Josa",), "lossless": True}, ValueError, "needs drop=()"),
        ({"norm": 1}, TypeError, "norm must be True or False"),
        ({"lossless": "yes"}, TypeError, "lossless must be True or False"),
        ({"workers": 0}, ValueError, "workers must be a positive int"),
    ],
)
def test_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        OktPreTokenizer(**kwargs)


def test_type_errors(okt):
    with pytest.raises(TypeError, match="text must be a str"):
        okt(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="item 1 is int"):
        okt.batch(["ok", 3])  # type: ignore[list-item]


def test_drop_option_and_tags(keep_all):
    assert OKT_TAGS >= set(DEFAULT_DROP)
    nouns_only = OktPreTokenizer(drop=sorted(OKT_TAGS - {"Noun"}), cache=False)
    assert nouns_only(SEED) == ["스파이더맨", "슈퍼맨", "배트맨", "아이언맨", "올해", "최고", "영화", "생각", "함"]
    assert keep_all(SEED) == [w.lstrip("▁") for w in OktPreTokenizer(lossless=True, cache=False)(SEED)]


def test_config_round_trip_and_pickle(okt, lossless):
    assert okt.to_config() == {"type": "okt", "drop": ["Josa", "Punctuation", "Foreign"], "norm": False,
                               "stem": False, "lossless": False}
    assert lossless.to_config() == {"type": "okt", "drop": [], "norm": False, "stem": False, "lossless": True}
    for pt in (okt, lossless, OktPreTokenizer(stem=True, drop=("Josa",), cache=False)):
        cfg = pt.to_config()
        again = get_pre_tokenizer(json.loads(json.dumps(cfg)))
        assert again == pt and again.to_config() == cfg and again(SEED) == pt(SEED)
        assert isinstance(pt, PreTokenizer)
        copy = pickle.loads(pickle.dumps(pt))
        assert copy == pt and copy(SEED) == pt(SEED) and copy._batcher.cache is False
    assert okt_version().startswith("konlpy 0.6.0; open-korean-text 2.1.0; format ")


# -- real texts: batch == per text, lossless ---------------------------------------------------

#: texts that cannot share a joined JVM call (see okt_analyzer) or stress the joining
AWKWARD = ["", " ", "\t탭으로 시작", "탭으로 끝\t", "줄바꿈 끝\n", "공백 뒤 탭 \t", "\ue000 구분자", "a\x00b",
           "   ", "ㅋㅋ", "ㅋㅋ", SEED, "\n\n", "끝 공백  ", "😉\u2028😉"]


#: real texts in the batches below: 850 (1,000 with the repeats), two JVM calls of 500 joined texts and
#: more; 2,000 with KOREAN_BPE_FULL_TESTS=1 (each test analyses them several times: 3 s a thousand)
BATCH_REVIEWS = sized(850, 2000)


@pytest.fixture(scope="module")
def batch_texts(real_texts):
    cut = BATCH_REVIEWS * 3 // 4
    texts = [*real_texts[:cut], *AWKWARD, *real_texts[cut:BATCH_REVIEWS], *real_texts[:50]]  # duplicates too
    return texts


@pytest.fixture(scope="module")
def per_text(okt, lossless, batch_texts):
    """The reference: each text analysed alone (one JVM call each)."""
    return {"default": [okt(t) for t in batch_texts], "lossless": [lossless(t) for t in batch_texts]}


@pytest.mark.sampled
def test_batch_equals_per_text_serial(batch_texts, per_text):
    """Joined JVM calls (pieces joined by spaces, texts by separators) never change the output
    (cache off, this thread)."""
    assert len(batch_texts) > 900  # two joined calls of 500 texts at least
    okt = OktPreTokenizer(cache=False, workers=1)
    assert okt.batch(batch_texts) == per_text["default"]
    assert okt._batcher.last_stats["executor"] == "SerialExecutor()"
    lossless = OktPreTokenizer(lossless=True, cache=False, workers=1)
    assert lossless.batch(batch_texts) == per_text["lossless"]


@pytest.mark.sampled
def test_batch_equals_per_text_two_threads(monkeypatch, okt, lossless, batch_texts, per_text):
    """The default from 2,000 texts (THREADS_MIN): two threads calling this process's JVM at once."""
    monkeypatch.setattr(_analyzer, "THREADS_MIN", 100)  # our ~1,000 texts would otherwise stay in one thread
    pt = OktPreTokenizer(cache=False, workers=2)
    assert pt.batch(batch_texts) == per_text["default"]
    stats = pt._batcher.last_stats
    assert stats["executor"] == "ThreadExecutor(workers=2)" and stats["chunks"] >= 8
    pt = OktPreTokenizer(cache=False, workers=2, lossless=True)
    assert pt.batch(batch_texts) == per_text["lossless"]


@pytest.mark.sampled
def test_batch_equals_per_text_two_worker_processes(monkeypatch, batch_texts, per_text):
    """The same through the shared pool of two worker processes (two more JVMs)."""
    monkeypatch.setattr(_analyzer, "PARALLEL_MIN", 100)  # our ~1,000 texts would otherwise stay here
    monkeypatch.setattr(_analyzer, "PARALLEL_MIN_CHARS", 100)
    pt = OktPreTokenizer(cache=False, workers=2, threads=False)
    assert pt.batch(batch_texts) == per_text["default"]
    stats = pt._batcher.last_stats
    assert stats["executor"] == "LocalProcessExecutor(workers=2)" and stats["chunks"] >= 8


def test_lossless_on_real_texts(lossless, real_texts, per_text, batch_texts):
    for text, pieces in zip(batch_texts, per_text["lossless"]):
        if "▁" not in text:
            assert_lossless_pieces(pieces, text, lossless)
    assert sum("▁" not in t for t in real_texts) > 1900


def test_default_words_on_real_texts(per_text, batch_texts, keep_all):
    for text, words in zip(batch_texts, per_text["default"]):
        assert_slices(words, text)
    # Josa, punctuation and foreign tokens go, the rest stays: reviews and the embedded legal
    # text both keep about two thirds of the morphemes.
    kept, every = sum(map(len, per_text["default"])), sum(map(len, per_text["lossless"]))
    assert 0.5 * every < kept < 0.9 * every, (kept, every)


HANGULISH = hangulish(60)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(st.one_of(st.text(max_size=40), HANGULISH), min_size=1, max_size=6))
def test_any_text(texts):
    """Arbitrary Unicode (lone surrogates, NUL, old Hangul, NFD, our own separator): lossless
    round trip, words are slices without white space, batch == per text."""
    texts = [t.replace("▁", "") for t in texts]
    okt, lossless = OktPreTokenizer(cache=False, drop=()), OktPreTokenizer(lossless=True, cache=False)
    per_text = [okt(t) for t in texts]
    for t, words in zip(texts, per_text):
        assert_slices(words, t)
        assert lossless.restore(lossless(t)) == t
    assert okt.batch(texts) == per_text
    assert lossless.batch(texts) == [lossless(t) for t in texts]


# -- Java missing or broken: one clear error ----------------------------------------------------

FAULT_REPORT = """
import sys
from korean_bpe.pre_tokenizers.okt import OktPreTokenizer, JavaNotFoundError
pt = OktPreTokenizer(cache=False, workers={workers}, threads={threads})
try:
    pt.batch(["한국어 문장"] * {n})
except JavaNotFoundError as exc:
    print("JavaNotFoundError|" + str(exc) + "|" + str(exc.__suppress_context__ or exc.__cause__ is not None)
          + "|" + pt._batcher.last_stats["executor"])
"""


def run_with_fault(prelude: str, *, env: dict | None = None, workers: int = 1, n: int = 1, threads: bool = True) -> list[str]:
    code = prelude + FAULT_REPORT.format(workers=workers, n=n, threads=threads)
    if workers > 1:  # go through the worker pool even for a few texts
        code = code.replace("from korean_bpe.pre_tokenizers.okt", "import korean_bpe.pre_tokenizers._analyzer as a; a.PARALLEL_MIN = a.PARALLEL_MIN_CHARS = a.THREADS_MIN = 1\nfrom korean_bpe.pre_tokenizers.okt", 1)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout.strip().split("|")


def assert_java_message(parts: list[str], *fragments: str) -> None:
    assert parts[0] == "JavaNotFoundError", parts
    message = parts[1]
    for f in (*fragments, "Install a JDK", "apt install openjdk-17-jdk", "JAVA_HOME",
              "'whitespace', 'raw', 'kiwi' and 'mecab' work without Java"):
        assert f in message, (f, message)
    assert parts[2] == "True"  # raised `from None`/with a cause kept: no JPype traceback chain shown


def test_no_java_found():
    """JPype finds no JVM at all (as on a machine without Java)."""
    prelude = (
        "import jpype\n"
        "def nowhere(): raise jpype.JVMNotFoundException('No JVM shared library file (libjvm.so) found. "
        "Try setting up the JAVA_HOME environment variable properly.')\n"
        "jpype.getDefaultJVMPath = nowhere\n"
    )
    assert_java_message(run_with_fault(prelude), "No Java runtime was found", "JVMNotFoundException")


@pytest.fixture(scope="module")
def broken_java_home(tmp_path_factory):
    """A JAVA_HOME whose libjvm.so is not a library: JPype picks it, the JVM cannot start."""
    home = tmp_path_factory.mktemp("broken_jdk")
    (home / "lib" / "server").mkdir(parents=True)
    (home / "lib" / "server" / "libjvm.so").write_text("not a shared library")
    return str(home)


def test_broken_java(broken_java_home):
    parts = run_with_fault("", env={"JAVA_HOME": broken_java_home})
    assert_java_message(parts, "failed to start", broken_java_home)
    assert parts[3] == "SerialExecutor()"


def test_broken_java_in_worker_processes(broken_java_home):
    """The error crosses the process pool intact (JavaNotFoundError pickles)."""
    parts = run_with_fault("", env={"JAVA_HOME": broken_java_home}, workers=2, n=50, threads=False)
    assert_java_message(parts, "failed to start")
    assert parts[3] == "LocalProcessExecutor(workers=2)"
    parts = run_with_fault("", env={"JAVA_HOME": broken_java_home}, workers=2, n=50)
    assert_java_message(parts, "failed to start")
    assert parts[3] == "ThreadExecutor(workers=2)"


def test_broken_jpype():
    prelude = "import sys\nsys.modules['jpype'] = None  # `import jpype` now raises ImportError\n"
    assert_java_message(run_with_fault(prelude), "JPype", "pip install --force-reinstall JPype1")


def test_building_okt_imports_no_java():
    """Importing korean_bpe, building the pre-tokenizer and its config start no JVM."""
    code = (
        "import sys, korean_bpe\n"
        "from korean_bpe.pre_tokenizers import get_pre_tokenizer\n"
        "from korean_bpe.pre_tokenizers.okt import okt_version\n"
        "pt = get_pre_tokenizer('okt', drop=('Josa',)); pt.to_config(); repr(pt); okt_version()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('konlpy', 'jpype', '_jpype')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- a corpus the analysis empties (issue 14, item 15) ------------------------------------------


def test_training_on_what_the_analysis_drops_names_the_tags_and_the_fix():
    from korean_bpe import Tokenizer

    texts = ["!!! ...", "?? !!", "^^;; ~~"] * 3
    with pytest.raises(ValueError) as err:
        Tokenizer.train(texts, vocab_size=30, pre_tokenizer={"type": "okt", "cache": False})
    msg = str(err.value)
    assert "white space" not in msg and "the okt analysis dropped" in msg
    assert "Punctuation ('!!!')" in msg
    assert "{'type': 'okt', 'drop': []}" in msg and "{'type': 'okt', 'lossless': True}" in msg


# --- long runs without spaces are cut before Okt sees them (issue 14, item 13) -----------------

from korean_bpe.pre_tokenizers import okt as okt_module  # noqa: E402

#: real reviews with their spaces removed: long Hangul runs, then punctuation, Latin, digits, ㅋㅋ
SPAM = "".join((
    "스파이더맨파프롬홈은최고의영화이다아이언맨이없어도충분히재밌었고졸면서본첫영화였는데도마지막장면은기억에남는다" * 4,
    "!!!", "진짜로정말로강력추천합니다", "ㅋㅋㅋㅋㅋ", "10점만점에10점", "IMAX로꼭보세요",
) * 3)


class _Recorder:
    """Okt with its JVM ``tokenize`` wrapped: every string the real analyzer is given is kept."""

    def __init__(self, okt):
        self._okt = okt
        self.seen: list[str] = []
        recorder = self

        class Jki:
            def tokenize(self, text, norm, stem):
                recorder.seen.append(str(text))
                return okt.jki.tokenize(text, norm, stem)

        self.jki = Jki()


def _longest_run(text: str) -> int:
    """The longest run of Hangul syllables: what Okt parses as one Korean chunk."""
    import re

    return max((len(m) for m in re.findall("[가-힣]+", text)), default=0)


@pytest.mark.parametrize("limit", [40, 97])
def test_long_runs_reach_okt_cut_to_the_limit_and_restore_exactly(monkeypatch, limit):
    from konlpy.tag import Okt

    real = okt_module._start_okt()
    recorders: list[_Recorder] = []

    def start():
        recorders.append(_Recorder(real))
        return recorders[-1]

    monkeypatch.setattr(okt_module, "_start_okt", start)
    monkeypatch.setattr(_analyzer, "_LOADED", {})  # a fresh analyzer, built through the recorder
    monkeypatch.setattr(okt_module, "MAX_RUN", limit, raising=False)
    text = f"어제 본 영화 {SPAM} 끝!\n다음 줄 {SPAM[:limit + 3]}"
    assert _longest_run(text) > 2 * limit
    lossless, plain = OktPreTokenizer(lossless=True, cache=False), OktPreTokenizer(cache=False)
    pieces = lossless(text)
    assert lossless.restore(pieces) == text
    assert lossless.batch([text, SEED]) == [pieces, lossless(SEED)]
    assert plain.batch([text]) == [plain(text)]
    assert isinstance(real, Okt) and recorders and recorders[0].seen
    assert max(_longest_run(s) for r in recorders for s in r.seen) <= limit
    # short runs are not touched: the analysis of the seed is Okt's own
    assert plain(SEED) == SEED_WORDS


def test_cut_long_runs_cuts_only_long_hangul_runs_into_equal_pieces_after_an_ending():
    cut = okt_module.cut_long_runs
    assert cut("영화재밌고연기최고", limit=3) == ["영화재", "밌고연", "기최고"]  # no ending: equal hard cuts
    assert cut("정말재밌다진짜최고", limit=6) == ["정말재밌다", "진짜최고"]  # right after 다
    assert cut("짧은 글, 그대로" * 40, limit=5) == ["짧은 글, 그대로" * 40]  # runs of at most 3
    assert cut("." * 500 + "ㅋ" * 500 + "a1" * 500, limit=5) == ["." * 500 + "ㅋ" * 500 + "a1" * 500]  # not Hangul
    text = "가" * 23 + "!" + "나" * 7
    assert cut(text, limit=10) == ["가" * 8, "가" * 8, "가" * 7 + "!" + "나" * 7]
    assert "".join(cut(SPAM, limit=40)) == SPAM and max(map(_longest_run, cut(SPAM, limit=40))) <= 40


# -- issue 43: the JVM's signal handlers (notebooks/compare_strategies ended in SIGSEGV) -----------

SIGNAL_SCRIPT = """
import os, signal, sys, threading, time
if {interactive}:
    sys.ps1 = "In : "  # what an IPython / Jupyter kernel sets: JPype then passes SIGINT and SIGTERM to Python
if {handler}:
    signal.signal(signal.SIGTERM, lambda *a: (print("handled", flush=True), sys.exit(0)))
from korean_bpe.pre_tokenizers.okt import OktPreTokenizer
pt = OktPreTokenizer(cache=False)
if {in_thread}:
    out = []
    worker = threading.Thread(target=lambda: out.append(pt("영화 정말 재밌다")))
    worker.start(); worker.join()
    print(out[0], flush=True)
else:
    print(pt.batch(["영화 정말 재밌다"] * 3)[0], flush=True)
{ending}
"""
SIGTERM_NOW = "os.kill(os.getpid(), signal.SIGTERM); time.sleep(20); print('survived', flush=True)"


@pytest.mark.parametrize(("interactive", "handler", "in_thread", "ending"), [
    pytest.param(True, False, False, SIGTERM_NOW, id="jupyter-shutdown"),  # was SIGSEGV + hs_err_pid*.log
    pytest.param(False, True, False, SIGTERM_NOW, id="script-handler"),  # was status 143, handler skipped
    pytest.param(True, False, True, "", id="started-in-a-thread-exit"),  # never ended (JPype's shutdown waited)
    pytest.param(False, False, True, SIGTERM_NOW, id="started-in-a-thread-sigterm"),
])
def test_a_process_that_used_okt_ends_as_python_does_without_a_jvm(tmp_path: Path, interactive: bool, handler: bool,
                                                                  in_thread: bool, ending: str) -> None:
    """A Jupyter kernel that ran Okt crashed (SIGSEGV in JPype's SIGTERM handler: PyErr_SetInterruptEx
    from a Java thread) when its shutdown sent SIGTERM, leaving an hs_err_pid*.log; a script's SIGTERM
    ended in Java (status 143), skipping Python's handler (korean-bpe's, which stops its workers); a
    process whose JVM started in a thread never ended. Now: a plain exit is status 0; SIGTERM runs
    Python's handler (status 0) or, without one, terminates as Python does (-SIGTERM); never a
    crash, never an hs_err file."""
    import signal

    code = SIGNAL_SCRIPT.format(interactive=interactive, handler=handler, in_thread=in_thread, ending=ending)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                              env={**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")})
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the process did not end: {exc.stdout!r}") from None
    assert not list(tmp_path.glob("hs_err_pid*.log")), proc.stdout + proc.stderr
    assert proc.stdout.startswith("['영화', '정말', '재밌다']\n"), proc.stdout + proc.stderr
    assert "survived" not in proc.stdout and "Fatal" not in proc.stderr, proc.stderr
    if not ending:
        assert proc.returncode == 0, proc.stderr
    elif handler:
        assert (proc.returncode, proc.stdout.splitlines()[-1]) == (0, "handled"), proc.stdout + proc.stderr
    else:
        assert proc.returncode == -signal.SIGTERM, proc.stdout + proc.stderr


# -- JPype's link between the two garbage collectors ------------------------------------------------

GC_SCRIPT = """
import gc
import _jpype
print(_jpype._collect in gc.callbacks, flush=True)
from korean_bpe.pre_tokenizers.okt import OktPreTokenizer
print(OktPreTokenizer(cache=False)("영화 정말 재밌다"), flush=True)
print(_jpype._collect in gc.callbacks, len(gc.callbacks), flush=True)
"""


def test_python_collects_as_without_a_jvm_once_okt_started_it(tmp_path: Path) -> None:
    """JPype reads glibc's malloc statistics (a walk of every free block) at the start and end of
    every Python collection, young ones included, and runs Java's full collection when they grew:
    encode_batch ran 2.5x slower in a process that had started Okt, plain Python code on a fragmented
    heap over a thousand times slower (benchmarks/bench_jvm_gc.py). Once Okt has started the JVM,
    JPype's callback is out of gc.callbacks."""
    proc = subprocess.run([sys.executable, "-c", GC_SCRIPT], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          env={**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["False", "['영화', '정말', '재밌다']", "False 0"], proc.stdout
