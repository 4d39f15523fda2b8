"""korean_bpe.progress and the per-merge callback: a Progress of one's own hears every stage of
Tokenizer.train (counting, merges) and of a morpheme analysis; ``on_merge`` passes through
Tokenizer.train, train_from_counts and continued training, and hears exactly ``tok.merges``."""

from __future__ import annotations

import warnings

import pytest

from korean_bpe import Tokenizer
from korean_bpe.counting import WordCounts, count_words
from korean_bpe.pre_tokenizers import get_pre_tokenizer
from korean_bpe.progress import NO_PROGRESS, Progress, TqdmProgress, start_progress


class Recorder:
    """A Progress that writes down what it hears: ("start", desc, total, unit), ("update", n),
    ("note", text), ("close",)."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def start(self, total, *, desc, unit):
        self.events.append(("start", desc, total, unit))

    def update(self, n=1):
        self.events.append(("update", n))

    def note(self, text):
        self.events.append(("note", text))

    def close(self):
        self.events.append(("close",))

    def stages(self) -> list[tuple[str, int | None, int]]:
        """(desc, total, items updated) per stage, checking that each stage is closed."""
        out: list[tuple[str, int | None, int]] = []
        for event in self.events:
            if event[0] == "start":
                out.append((event[1], event[2], 0))
            elif event[0] == "update":
                desc, total, done = out[-1]
                out[-1] = (desc, total, done + event[1])
        assert [e[0] for e in self.events].count("close") == len(out)
        return out


def test_a_progress_of_ones_own_hears_counting_then_merges(real_texts):
    texts = real_texts[:300]
    rec = Recorder()
    assert isinstance(rec, Progress)
    tok = Tokenizer.train(texts, vocab_size=600, unit="jamo", show_progress=rec)
    n_start = tok.vocab_size - len(tok.merges)
    assert len(tok.merges) == 600 - n_start > 100
    assert rec.stages() == [("pre-tokenizing", None, len(texts)), ("BPE merges", 600 - n_start, len(tok.merges))]
    # a listener changes nothing: the counting takes its batched path, the merges are the same
    assert tok.model == Tokenizer.train(texts, vocab_size=600, unit="jamo", show_progress=False).model


def test_counting_with_a_progress_counts_the_same(real_texts):
    texts = real_texts[:200]
    rec = Recorder()
    for name in ("whitespace", "raw"):
        pt = get_pre_tokenizer(name)
        assert count_words(texts, pt, show_progress=rec) == count_words(texts, pt, show_progress=False)
    assert rec.stages() == [("pre-tokenizing", None, len(texts))] * 2


def test_show_progress_values():
    assert start_progress(False, total=3, desc="d", unit="u") is NO_PROGRESS
    assert start_progress(None, total=3, desc="d", unit="u") is NO_PROGRESS  # pytest's stderr is no terminal
    bar = start_progress(True, total=3, desc="d", unit="u")
    assert isinstance(bar, TqdmProgress)
    bar.close()
    with pytest.raises(TypeError, match="show_progress must be True, False, None"):
        Tokenizer.train(["영화 재밌다"], vocab_size=10, show_progress="yes")


def test_kiwi_batch_reports_to_a_progress():
    pytest.importorskip("kiwipiepy")
    kiwi = get_pre_tokenizer("kiwi")
    rec = Recorder()
    texts = ["영화 정말 재밌어요", "", "배우 연기가 좋아요"]
    assert kiwi.batch(texts, show_progress=rec) == kiwi.batch(texts, show_progress=False)
    assert rec.stages() == [("kiwi", 2, 2)]  # the empty text is not analysed


# --- on_merge ----------------------------------------------------------------------------------------------------


def test_on_merge_hears_every_merge_of_tokenizer_train(real_texts):
    heard: list[tuple[int, tuple[str, str], int]] = []
    tok = Tokenizer.train(real_texts[:300], vocab_size=700, unit="jamo", on_merge=lambda *a: heard.append(a))
    assert len(tok.merges) > 100
    assert [rank for rank, _, _ in heard] == list(range(len(tok.merges)))
    assert tuple(pair for _, pair, _ in heard) == tok.merges
    counts = [count for _, _, count in heard]
    assert counts == sorted(counts, reverse=True) and counts[-1] >= 2  # min_frequency=2
    assert tok.model == Tokenizer.train(real_texts[:300], vocab_size=700, unit="jamo").model


def test_on_merge_through_train_from_counts_with_the_continuation_marker(real_texts):
    counts = WordCounts.from_texts(real_texts[:300])
    heard: list[tuple[int, tuple[str, str], int]] = []
    tok = Tokenizer.train_from_counts(counts, vocab_size=900, unit="jamo", marker="##", on_merge=lambda *a: heard.append(a))
    assert tuple(pair for _, pair, _ in heard) == tok.merges
    assert any(b.startswith("##") for _, (_, b), _ in heard)
    # the new token of each merge is in the vocabulary, '##' of the right part dropped
    assert all(tok.model.merged_token(a, b) in tok.vocab for _, (a, b), _ in heard)
    first = heard[0][1]
    words = counts.symbol_counts(unit="jamo", marker="##")
    assert heard[0][2] == sum(c * sum(1 for p in zip(w, w[1:]) if p == first) for w, c in words.items())


def test_on_merge_in_continued_training_ranks_after_the_old_merges(real_texts):
    old = Tokenizer.train(real_texts[:200], vocab_size=400, unit="jamo")
    heard: list[tuple[int, tuple[str, str], int]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # symbols outside the old alphabet: not the point here
        new = Tokenizer.train(real_texts[200:500], vocab_size=550, initial=old, on_merge=lambda *a: heard.append(a))
    n_old = len(old.merges)
    assert len(new.merges) > n_old
    assert [rank for rank, _, _ in heard] == list(range(n_old, len(new.merges)))
    assert tuple(pair for _, pair, _ in heard) == new.merges[n_old:]


def test_on_merge_must_be_callable():
    with pytest.raises(TypeError, match="on_merge"):
        Tokenizer.train(["영화 재밌다 영화"], vocab_size=10, on_merge="print")


def test_compare_reports_each_strategy_to_a_progress():
    pytest.importorskip("pandas")
    from korean_bpe.compare import compare

    texts = ["영화 정말 재밌다", "배우 연기가 좋아요", "영화가 너무 지루해요", "정말 최고의 영화"] * 10
    rec = Recorder()
    df = compare(texts, eval_texts=texts[:4], strategies=["whitespace/syllable", "whitespace/jamo"], vocab_sizes=[60],
                 gold=None, show_progress=rec)
    assert len(df) == 2
    assert rec.events == [("start", "strategies", 2, "strategy"), ("note", "whitespace/syllable"), ("update", 1),
                          ("note", "whitespace/jamo"), ("update", 1), ("close",)]
