"""Training on several threads (issue 33): ``num_threads`` changes nothing but the time (the
encode half is tests/test_threads.py).

The compiled counting reads slices of the texts at once, and the engine's words and initial pair
index are built on threads; the counts (and their first-seen order), the merges and the
vocabulary must be those of one thread, on hard strings and on real reviews.
"""

from __future__ import annotations

import sys
import unicodedata
from collections import Counter

import pytest
from _strings import HUGE_LINE, SURROGATES
from _strings import hard as hard_strings

from korean_bpe import Tokenizer
from korean_bpe.counting import count_words, split_words
from korean_bpe.pre_tokenizers import get_pre_tokenizer
from korean_bpe.trainer import train_bpe
from korean_bpe.units import get_unit

from korean_bpe.words import core

_counting = core()  # the compiled counting core, None when not built
if _counting is not None:
    from korean_bpe import _tasks  # what decides how many threads a compiled step takes

needs_compiled = pytest.mark.skipif(_counting is None, reason="compiled core not built")


@pytest.fixture(autouse=True)
def tiny_inputs_on_threads(monkeypatch):
    """A share of work smaller than ``PARALLEL_MIN`` stays on the calling thread: these inputs are
    small, so every step is made to take the threads it is given."""
    if _counting is not None:
        monkeypatch.setattr(_tasks, "PARALLEL_MIN", 1)

THREADS = (1, 2, 3)
#: hard strings (empty and blank lines, emoji, NFD, compatibility jamo, line breaks of every kind,
#: lone surrogates, a 200,000-syllable line) among repeated Korean reviews, so that merges happen
EDGE = [
    *hard_strings(), *SURROGATES, HUGE_LINE, "", "", "   ", unicodedata.normalize("NFD", "재밌다 진짜 재밌다"),
    "ㅋㅋㅋㅋ ㅠㅠ 재밌다", "<unk> 글자 그대로 <unk>", "<un k>",
    *["이 영화 정말 재밌었어요 ㅋㅋㅋ 최고", "진짜 재미없다 ㅠㅠ 돈 아까움", "배우들 연기 최고 재밌다"] * 7,
]


@needs_compiled
@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "raw"])
def test_counts_identical_whatever_the_threads(pre_tokenizer):
    pt = get_pre_tokenizer(pre_tokenizer)
    expected = dict(Counter(w for t in EDGE for w in pt(t)))
    for n in THREADS:
        got = count_words(EDGE, pt, num_threads=n)
        assert list(got.items()) == list(expected.items()), n  # the counts, in first-seen order
        compact = count_words(EDGE, pt, compact=True, num_threads=n)
        assert list(compact.items()) == list(expected.items()), n
        streamed = count_words(iter(EDGE), pt, into={"재밌다": 5}, num_threads=n)  # batches, added into a dict
        assert streamed == {"재밌다": 5 + expected.get("재밌다", 0), **{w: c for w, c in expected.items() if w != "재밌다"}}


def test_counts_identical_while_the_tables_grow():
    """200,000 distinct words (the tables grow several times while the words of a text wait to be
    added, fetched ahead) in texts of every str kind (ASCII, Hangul, emoji), each word seen 1-3
    times: the plain count, in first-seen order, for 1, 2 and 3 threads."""
    pt = get_pre_tokenizer("whitespace")
    kinds = ("w{}", "영화{}점", "😀{}ㅋ")
    texts = [" ".join(kinds[(k + j) % 3].format((k * 7919 + j) % 200_000) for j in range(5)) for k in range(120_000)]
    expected = dict(Counter(w for t in texts for w in t.split()))
    assert len(expected) > 100_000
    for n in THREADS:
        got = count_words(texts, pt, compact=True, num_threads=n)
        assert list(got.items()) == list(expected.items()), n


@needs_compiled
def test_counter_slices_and_batches():
    """More threads than texts, one text, none, and several batches into one counter."""
    for mode in (0, 1):
        one = _counting.WordCounter(mode)
        one.update(EDGE)
        for n in (2, 3, 64):
            wc = _counting.WordCounter(mode)
            wc.update(EDGE[:40], n)
            wc.update([], n)
            wc.update(EDGE[40:41], n)
            wc.update(iter(EDGE[41:]), n)
            assert list(wc.to_dict().items()) == list(one.to_dict().items()), (mode, n)


@needs_compiled
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@pytest.mark.parametrize("marker", [None, "▁", "</w>", "##"])
def test_split_identical_whatever_the_threads(unit, marker):
    """The flat symbol table: the same symbols, ids (first-seen order), words and counts."""
    for pre_tokenizer in ("whitespace", "raw"):
        counts = count_words(EDGE, get_pre_tokenizer(pre_tokenizer), compact=True, num_threads=1)
        one = split_words(counts, get_unit(unit), marker=marker, num_threads=1).words
        for n in (2, 3, 64):
            ws = split_words(counts, get_unit(unit), marker=marker, num_threads=n).words
            assert ws.symbols == one.symbols
            assert list(ws.to_dict().items()) == list(one.to_dict().items())
            assert (ws.total, ws.longest, ws.frequencies()) == (one.total, one.longest, one.frequencies())


@needs_compiled
def test_counter_refuses_a_second_thread_while_counting():
    """The counting runs without the GIL: another Python thread reading or counting into the same
    counter meanwhile gets a clear error, never a half-written table."""
    import threading

    wc = _counting.WordCounter(_counting.MODE_WHITESPACE)
    started, seen = threading.Event(), []

    class Texts(list):  # the counter copies its texts first: that copy says when counting begins
        def __iter__(self):
            started.set()
            return super().__iter__()

    def other():
        started.wait(5)
        while True:
            try:
                wc.to_dict()
            except RuntimeError as exc:
                seen.append(str(exc))
                return
            if len(wc):  # the count ended before this thread got in: nothing to see
                return

    t = threading.Thread(target=other)
    t.start()
    wc.update(Texts(["재밌다 진짜 재밌다 " * 2000] * 300), 2)
    t.join()
    assert wc.to_dict() == {"재밌다": 2 * 2000 * 300, "진짜": 2000 * 300}
    assert seen and all("counting or splitting in another thread" in m for m in seen)


@needs_compiled
def test_small_inputs_stay_on_one_thread(monkeypatch):
    """Below ``PARALLEL_MIN`` code points a thread, the counting runs here: no thread is started
    (and with the fixture's ``PARALLEL_MIN=1``, the tests here do run on threads)."""
    import threading

    start = threading.Thread.start
    started = []

    def spy(self):
        started.append(self)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", spy)
    small = EDGE[:-30]  # without the 200,000-syllable line: 15,952 code points
    model = Tokenizer.train(small, vocab_size=300, num_threads=4).model
    assert len(started) >= 4 * 3  # counting, split, engine: each step on threads
    started.clear()
    monkeypatch.setattr(_tasks, "PARALLEL_MIN", 32768)
    assert Tokenizer.train(small, vocab_size=300, num_threads=4).model == model
    assert started == []


@needs_compiled
def test_counter_refuses_bad_texts_before_counting():
    wc = _counting.WordCounter(_counting.MODE_WHITESPACE)
    with pytest.raises(TypeError, match="texts must hold str, got int 3"):
        wc.update(["재밌다 진짜", 3, "최고"], 2)
    assert len(wc) == 0  # nothing counted: the texts are checked first


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "raw"])
def test_tokenizer_train_identical_whatever_the_threads(pre_tokenizer, unit):
    models = [Tokenizer.train(EDGE, vocab_size=900, pre_tokenizer=pre_tokenizer, unit=unit, min_frequency=1,
                              num_threads=n) for n in THREADS]
    assert len(models[0].merges) > 100
    for tok in models[1:]:
        assert tok.model == models[0].model
        assert tok.id_to_token == models[0].id_to_token
    from korean_bpe.counting import WordCounts

    counts = WordCounts.from_texts(EDGE, pre_tokenizer=pre_tokenizer, num_threads=1)
    for n in THREADS:  # from counts (korean-bpe train --counts --threads N)
        tok = Tokenizer.train_from_counts(counts, vocab_size=900, unit=unit, min_frequency=1, num_threads=n)
        assert tok.model == models[0].model


@pytest.mark.parametrize("options", [
    {"special_tokens": ("<unk>", "<s>")},  # words spelling <unk> are cut: the fill's cut lists
    {"limit_alphabet": 40},  # symbols left out of the words (id -1)
    {"max_token_length": 3},
], ids=str)
def test_train_bpe_identical_whatever_the_threads(options):
    words = split_words(count_words(EDGE, get_pre_tokenizer("whitespace"), compact=True, num_threads=1),
                        get_unit("syllable"), marker="▁")
    models = [train_bpe(words, vocab_size=400, min_frequency=1, num_threads=n, **options) for n in (1, 2, 3, 8, 64)]
    assert len(models[0].merges) > 20
    assert all(m == models[0] for m in models[1:])


@pytest.mark.nsmc
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_nsmc_merges_identical_for_one_two_three_threads(nsmc, unit):
    from korean_bpe.corpus import load_nsmc

    texts = load_nsmc("train", limit=20000, directory=nsmc).texts
    merges = [Tokenizer.train(texts, vocab_size=8000, unit=unit, num_threads=n, show_progress=False).merges
              for n in THREADS]
    assert len(merges[0]) > 5000
    assert merges[1] == merges[0] and merges[2] == merges[0]


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), ("2", TypeError), (True, TypeError),
                                        (1.5, TypeError)])
def test_bad_num_threads_refused_before_any_work(bad, error):
    read = []

    def texts():
        for t in ["재밌다 진짜", "최고"]:
            read.append(t)
            yield t

    with pytest.raises(error, match=r"num_threads must be an int >= 1 \(or None: every core\)"):
        Tokenizer.train(texts(), vocab_size=20, num_threads=bad)
    with pytest.raises(error, match=r"num_threads must be an int >= 1 \(or None: every core\)"):
        count_words(texts(), get_pre_tokenizer("whitespace"), num_threads=bad)
    with pytest.raises(error, match=r"num_threads must be an int >= 1 \(or None: every core\)"):
        train_bpe({("재", "밌"): 2}, vocab_size=10, num_threads=bad)
    from korean_bpe.counting import WordCounts

    with pytest.raises(error, match=r"num_threads must be an int >= 1 \(or None: every core\)"):
        Tokenizer.train_from_counts(WordCounts.from_texts(["재밌다 진짜"]), vocab_size=20, num_threads=bad)
    assert read == []  # refused before a text was read


def test_pure_python_takes_num_threads(monkeypatch):
    """Without the compiled core the counting and the training are plain Python on one thread:
    the option is accepted, the counts and the model are the same."""
    expected = count_words(EDGE, get_pre_tokenizer("raw"), num_threads=1)
    model = Tokenizer.train(EDGE, vocab_size=400, unit="jamo", min_frequency=1, num_threads=1).model
    for module in ("korean_bpe._counting", "korean_bpe.trainer._merge"):
        monkeypatch.setitem(sys.modules, module, None)
    assert count_words(EDGE, get_pre_tokenizer("raw"), num_threads=3) == expected
    assert Tokenizer.train(EDGE, vocab_size=400, unit="jamo", min_frequency=1, num_threads=3).model == model
