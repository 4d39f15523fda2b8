"""The hate-speech and KLUE-NER tasks (:mod:`korean_bpe.compare.tasks.hate`, :mod:`.ner`): their
readers' errors, the hand-counted boundary and ceiling cases, each task on a small input in seconds,
and the real data (``../shared/corpora``, or ``$KOREAN_BPE_HATE_SPEECH_DIR`` /
``$KOREAN_BPE_KLUE_NER_DIR``) where it is present."""

from __future__ import annotations

import math
import sys

import pytest

pytest.importorskip("pandas")

from korean_bpe.compare import Downstream, Statistics, compare  # noqa: E402
from korean_bpe.compare.tasks import TASKS, HateTask, NerTask, Task, get_task  # noqa: E402
from korean_bpe.compare.tasks.hate import HATE_DOWNSTREAM, hate_speech_dir, read_comments  # noqa: E402
from korean_bpe.compare.tasks.ner import (  # noqa: E402
    NerSentence, entity_counts, klue_ner_path, read_klue_ner, read_klue_ner_lines, split_sentences, token_spans,
)
from korean_bpe.corpus import CorpusError  # noqa: E402

from _reviews import MOVIE_REVIEWS  # noqa: E402

HEADER = "comments\tcontain_gender_bias\tbias\thate"
GOOD = ["송중기 시대극은 믿고본다. 첫회 신선하고 좋았다.", "배우들 연기 정말 좋네요", "오늘 방송 재밌었어요", "노래 너무 좋다"]
BAD = ["지현우 나쁜놈", "진짜 최악이다 나쁜놈", "이런 쓰레기 같은 방송", "나쁜놈 들 다 나가라"]


def _write_hate(directory, *, train_rows: int = 120, dev_rows: int = 40, one_class: bool = False) -> None:
    """A tiny hate-speech directory: good comments labelled none, bad ones offensive."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, n in (("train.tsv", train_rows), ("dev.tsv", dev_rows)):
        lines = [HEADER]
        for k in range(n):
            bad = k % 2 and not one_class
            text = (BAD if bad else GOOD)[k % 4]
            lines.append(f"{text}\tFalse\t{'others' if bad else 'none'}\t{'offensive' if bad else 'none'}")
        (directory / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _texts(n: int) -> list[str]:
    import random

    rng = random.Random(0)
    return [" ".join(rng.choice(MOVIE_REVIEWS) for _ in range(rng.randrange(1, 4))) for _ in range(n)]


# -- hate: the reader -----------------------------------------------------------------------------


def test_the_comment_reader_refuses_what_it_cannot_read(tmp_path) -> None:
    with pytest.raises(CorpusError, match="train.tsv not found"):
        read_comments(tmp_path / "train.tsv")
    (tmp_path / "a.tsv").write_text("comments\thate\n좋다\tnone\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"no label column 'bias': its columns are comments, hate; give label="):
        read_comments(tmp_path / "a.tsv", label="bias")
    (tmp_path / "b.tsv").write_text("comments\thate\n좋다\tnone\n나쁜놈\toffensive\textra\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"b.tsv, line 3: 3 tab-separated fields where the header has 2"):
        read_comments(tmp_path / "b.tsv")
    (tmp_path / "c.tsv").write_text("comments\thate\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="holds no comments"):
        read_comments(tmp_path / "c.tsv")
    (tmp_path / "d.tsv").write_text("comments\thate\n좋다\t\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="line 2: the 'hate' label is empty"):
        read_comments(tmp_path / "d.tsv")
    got = read_comments(tmp_path / "a.tsv")
    assert (got.texts, got.labels) == (["좋다"], ["none"])


def test_the_hate_task_refuses_before_any_work(tmp_path, monkeypatch) -> None:
    _write_hate(tmp_path / "one", one_class=True)
    with pytest.raises(ValueError, match="every training comment has the label 'none'.*two classes"):
        HateTask(tmp_path / "one")
    with pytest.raises(CorpusError, match="dev.tsv not found"):
        _write_hate(tmp_path / "half")
        (tmp_path / "half" / "dev.tsv").unlink()
        HateTask(tmp_path / "half")
    with pytest.raises(CorpusError, match="is a file: give the directory"):
        HateTask(tmp_path / "half" / "train.tsv")
    with pytest.raises(TypeError, match="must be a korean_bpe.compare.Downstream"):
        HateTask(tmp_path / "one", downstream=3)
    monkeypatch.setitem(sys.modules, "torch", None)  # torch absent: the install line
    _write_hate(tmp_path / "ok")
    with pytest.raises(ImportError, match=r'pip install "korean_bpe\[downstream\]"'):
        HateTask(tmp_path / "ok")


def test_the_hate_task_is_a_registered_task(tmp_path) -> None:
    pytest.importorskip("torch")
    _write_hate(tmp_path)
    task = get_task({"type": "hate", "path": str(tmp_path), "label": "bias", "downstream": {"seeds": 2}})
    assert isinstance(task, Task) and "hate" in TASKS.names() and task.labels == "unused"
    config = task.to_config()
    assert (config["label"], config["classes"], config["train_comments"], config["dev_comments"]) == \
        ("bias", ["none", "others"], 120, 40)
    assert config["downstream"]["seeds"] == 2
    # a dict changes the hate task's own defaults: batches of 32 (the downstream's 256 are too few steps here)
    assert config["downstream"]["batch_size"] == 32 and HateTask(tmp_path).settings == HATE_DOWNSTREAM


@pytest.fixture(scope="module")
def hate_run(tmp_path_factory):
    pytest.importorskip("torch")
    directory = tmp_path_factory.mktemp("hate")
    _write_hate(directory)
    # 120 comments: batches of 8 (15 steps an epoch; the default 256, one) and a higher rate than the defaults'
    task = HateTask(directory, downstream=Downstream(seeds=2, epochs=3, dim=8, batch_size=8, learning_rate=0.02))

    def run():
        return compare((GOOD + BAD) * 30, strategies=["baseline/syllable", "baseline/word"], vocab_sizes=[300], gold=None,
                       show_progress=False, model_cache=False, statistics=Statistics(resamples=200, reference="baseline/syllable"), tasks=[task])

    return run(), run


def test_the_hate_task_measures_each_row_deterministically(hate_run) -> None:
    result, run = hate_run
    df = result.table.set_index("strategy")
    # the words of the toy comments (the corpus holds them) separate its two classes: every dev comment right
    assert df.loc["baseline/word", "hate_accuracy"] == 1.0 and df.loc["baseline/word", "hate_macro_f1"] == 1.0
    for name in ("baseline/syllable", "baseline/word"):
        assert df.loc[name, "hate_macro_f1_ci_low"] <= df.loc[name, "hate_macro_f1"] <= df.loc[name, "hate_macro_f1_ci_high"]
        assert df.loc[name, "hate_s"] > 0
    assert 0 < df.loc["baseline/word", "hate_accuracy_p"] <= 1  # tested against baseline/syllable's reference
    again = run().table
    cols = ["hate_macro_f1", "hate_accuracy", "hate_macro_f1_ci_low", "hate_macro_f1_ci_high", "hate_accuracy_p"]
    assert again[cols].equals(result.table[cols])  # the same seed: the same numbers
    assert result.config["tasks"]["hate"]["dev_comments"] == 40


# -- ner: the reader ------------------------------------------------------------------------------

NER_LINES = [
    "## 토큰, 레이블 구분자 : \\t", "## 컬럼명 : CHAR\tNE_TAG",
    "## s1\t<경찰:OG>은 <박:PS>씨의 딸", "경\tB-OG", "찰\tI-OG", "은\tO", " \tO", "박\tB-PS", "씨\tO", "의\tO", " \tO",
    "딸\tO", "",
    "## s2\t<16명:QT>", "1\tB-QT", "6\tI-QT", "명\tI-QT", "",
]


def test_the_ner_reader_gives_sentences_and_character_spans() -> None:
    got = read_klue_ner_lines(NER_LINES)
    assert got == [NerSentence("s1", "경찰은 박씨의 딸", ((0, 2, "OG"), (4, 5, "PS"))),
                   NerSentence("s2", "16명", ((0, 3, "QT"),))]


def test_the_ner_reader_refuses_a_malformed_line_with_its_number(tmp_path) -> None:
    path = tmp_path / "ner.tsv"
    path.write_text("\n".join(NER_LINES[:5] + ["찰 I-OG"] + NER_LINES[6:]) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"ner.tsv, line 6: expected one character, a tab and a BIO tag"):
        read_klue_ner(path)
    path.write_text("\n".join(NER_LINES[:5] + ["찰\tX-OG"]) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="line 6: expected one character"):
        read_klue_ner(path)
    with pytest.raises(CorpusError, match=r"line 3: I-PS continues no PS entity \(the tag before is O\)"):
        read_klue_ner_lines(["## a\t", "x\tO", "y\tI-PS"])
    with pytest.raises(CorpusError, match="holds no sentence"):
        read_klue_ner_lines(NER_LINES[:2])
    with pytest.raises(CorpusError, match="not found"):
        read_klue_ner(tmp_path / "absent.tsv")
    with pytest.raises(ValueError, match="test_fraction"):
        NerTask(path, test_fraction=1.0)


# -- ner: hand-counted boundaries and ceilings ------------------------------------------------------


def test_an_entity_at_the_very_start_and_the_very_end_of_a_sentence() -> None:
    text = "서울에서 2021년"  # <서울:LC> at 0..2, <2021년:DT> at 5..10, the sentence's last character
    entities = [(0, 2, "LC"), (5, 10, "DT")]
    assert entity_counts(entities, [(0, 2), (2, 4), (5, 9), (9, 10)]) == (0, 4, 2, 2)  # both recoverable
    assert entity_counts(entities, [(0, 4), (5, 10)]) == (1, 4, 1, 2)  # 서울에서: the end at 2 is inside
    assert entity_counts(entities, [(0, 1), (1, 3), (3, 4), (5, 7), (7, 10)]) == (1, 4, 1, 2)  # 울에 crosses 2
    assert len(text) == 10


def test_a_particle_glued_to_a_name() -> None:
    s = read_klue_ner_lines(NER_LINES)[0]  # <경찰:OG>은 <박:PS>씨의 딸
    words = [(0, 3), (4, 7), (8, 9)]  # 어절: 경찰은 박씨의 딸
    assert entity_counts(s.entities, words) == (2, 4, 0, 2)  # 경찰|은 and 박|씨 both inside a token
    morphemes = [(0, 2), (2, 3), (4, 5), (5, 6), (6, 7), (8, 9)]
    assert entity_counts(s.entities, morphemes) == (0, 4, 2, 2)
    assert entity_counts(s.entities, [(0, 2), (2, 3), (4, 6), (6, 7), (8, 9)]) == (1, 4, 1, 2)  # 박씨 one token


def test_a_token_crossing_an_entity_edge_and_trimmed_spans() -> None:
    # 16명 (QT, 0..3) and a token "6명을" that starts inside it and runs past its end
    assert entity_counts([(0, 3, "QT")], [(0, 1), (1, 4)]) == (1, 2, 0, 1)
    # a token ending exactly at the end but starting inside: the start is fine, the entity is not
    assert entity_counts([(1, 3, "QT")], [(0, 2), (2, 3)]) == (1, 2, 0, 1)
    # white space trimmed: a byte-level token " 박" starts at the name, a marker spells nothing
    spans = token_spans("딸 박씨", [("딸", 0, 1), ("Ġ박", 1, 3), ("씨", 3, 4), ("▁", 4, 4)])
    assert spans == [(0, 1), (2, 3), (3, 4)]
    assert entity_counts([(2, 3, "PS")], spans) == (0, 2, 1, 1)
    assert entity_counts([], spans) == (0, 0, 0, 0)


def test_the_split_is_seeded_and_stated() -> None:
    train, test = split_sentences(100, test_fraction=0.2, seed=3)
    assert len(test) == 20 and sorted(train + test) == list(range(100))
    assert split_sentences(100, test_fraction=0.2, seed=3) == (train, test)
    assert split_sentences(100, test_fraction=0.2, seed=4)[1] != test
    assert split_sentences(1, test_fraction=0.2, seed=0) == ([], [0])


def _ner_file(tmp_path, n: int = 50):
    """``n`` copies of the two sentences of :data:`NER_LINES` (ids made distinct)."""
    lines = []
    for k in range(n):
        lines += [line.replace("## s", f"## {k}-s") for line in NER_LINES[2:]]
    path = tmp_path / "klue-ner-v1.1_dev.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_ner_task_counts_each_row_exactly(tmp_path) -> None:
    _ner_file(tmp_path)
    task = NerTask(tmp_path, test_fraction=0.5, split_seed=1, tagger=False)  # a directory: the file in it
    assert task.to_config() | {"path": ""} == {"path": "", "sentences": 100, "test_fraction": 0.5, "split_seed": 1,
                                               "test_sentences": 50, "train_sentences": 50,
                                               "test_entities": task.to_config()["test_entities"], "tagger": False}
    long = sum(len(task.sentences[i].entities) == 2 for i in task.test_idx)  # the first sentence, 2 entities
    result = compare(_texts(240), strategies=["baseline/syllable", "baseline/word"], vocab_sizes=[300], gold=None,
                     show_progress=False, model_cache=False, statistics=Statistics(resamples=200, reference="baseline/syllable"), tasks=[task])
    df = result.table.set_index("strategy")
    # syllables: every boundary is a token boundary
    assert df.loc["baseline/syllable", "ner_boundary_crossing"] == 0 and df.loc["baseline/syllable", "ner_ceiling_f1"] == 1
    # words (whitespace): 경찰|은 and 박|씨 inside a token, 16명 a whole word: 2 of 4 + 0 of 2 boundaries
    entities = 2 * long + (50 - long)
    assert df.loc["baseline/word", "ner_boundary_crossing"] == pytest.approx(2 * long / (2 * entities))
    assert df.loc["baseline/word", "ner_ceiling_f1"] == pytest.approx(2 * (50 - long) / ((50 - long) + entities))
    low, high = df.loc["baseline/word", ["ner_ceiling_f1_ci_low", "ner_ceiling_f1_ci_high"]]
    assert low < df.loc["baseline/word", "ner_ceiling_f1"] < high
    assert df.loc["baseline/word", "ner_ceiling_f1_p"] == pytest.approx(2 / 201)  # always below the syllables


def test_the_ner_task_without_entities_says_so(tmp_path) -> None:
    path = tmp_path / "plain.tsv"
    path.write_text("\n".join(["## a\t가나", "가\tO", "나\tO", ""] * 30), encoding="utf-8")
    result = compare(_texts(240), strategies=["baseline/word"], vocab_sizes=[100], gold=None, show_progress=False,
                     model_cache=False, statistics=Statistics(resamples=200), tasks=[NerTask(path)])
    assert math.isnan(result.table["ner_ceiling_f1"].iloc[0]) and math.isnan(result.table["ner_ceiling_f1_ci_low"].iloc[0])
    assert any("hold no entity" in note for note in result.notes)


# -- the real data, where present ------------------------------------------------------------------


@pytest.mark.skipif(klue_ner_path() is None, reason="KLUE-NER not in ../shared/corpora/klue-ner (or $KOREAN_BPE_KLUE_NER_DIR)")
def test_klue_ner_as_published() -> None:
    task = NerTask()
    assert len(task.sentences) == 5000 and sum(len(s.entities) for s in task.sentences) == 14257
    first = task.sentences[0]
    assert first.text.startswith("경찰은 또") and first.entities[:2] == ((0, 2, "OG"), (21, 22, "PS"))
    assert task.to_config()["test_sentences"] == 1000


@pytest.mark.skipif(hate_speech_dir() is None,
                    reason="hate speech not in ../shared/corpora/korean-hate-speech (or $KOREAN_BPE_HATE_SPEECH_DIR)")
def test_the_hate_speech_data_as_published() -> None:
    pytest.importorskip("torch")
    task = HateTask()
    assert (len(task.train.texts), len(task.dev.texts), task.classes) == (7896, 471, ["hate", "none", "offensive"])
    assert [task.dev.labels.count(c) for c in ("none", "offensive", "hate")] == [160, 189, 122]
    assert HateTask(label="bias").classes == ["gender", "none", "others"]


# -- the command line ------------------------------------------------------------------------------


def test_the_cli_refuses_a_bad_task_before_reading_the_corpus(tmp_path) -> None:
    from test_cli import fails

    missing, out = str(tmp_path / "no-such-corpus.txt"), str(tmp_path / "out")
    line = fails("compare", missing, "-o", out, "--task", "sentiment", here=True)
    assert "argument --task: unknown task 'sentiment'; choose one of" in line and "hate" in line and "ner" in line
    line = fails("compare", missing, "-o", out, "--task", f"ner={tmp_path / 'absent'}", here=True)
    assert "argument --task ner=" in line and "absent not found" in line
    line = fails("compare", missing, "-o", out, "--task", "probe", here=True)
    assert "argument --task probe: the probe task runs with labels" in line
    # what is missing is the task's own word (task_from_spec), not a generic "not found"
    line = fails("compare", missing, "-o", out, "--task", f"hate={tmp_path / 'absent'}", here=True)
    assert "argument --task hate=" in line and "train.tsv not found: the hate-speech data needs train.tsv and " \
        "dev.tsv" in line
    line = fails("compare", missing, "-o", out, "--task", "nsmc=", here=True)
    assert "argument --task nsmc=: task spec 'nsmc=': nothing after '='; give nsmc=PATH" in line
    (tmp_path / "bad.tsv").write_text("## a\t가\n가 B-PS\n", encoding="utf-8")
    line = fails("compare", missing, "-o", out, "--task", f"ner={tmp_path / 'bad.tsv'}", here=True)
    assert "argument --task ner=" in line and "bad.tsv, line 2: expected one character" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(hate_speech_dir() is None or klue_ner_path() is None,
                    reason="the hate-speech or KLUE-NER data is not in ../shared/corpora (or the KOREAN_BPE_* variables)")
def test_the_cli_runs_both_tasks_on_the_real_data(tmp_path) -> None:
    pytest.importorskip("torch")
    from test_cli import ok

    corpus = tmp_path / "reviews.txt"
    corpus.write_text("\n".join(_texts(600)) + "\n", encoding="utf-8")
    # the real files' heads, in their own formats (the whole data trains a tagger and 3 classifiers: minutes)
    hate = tmp_path / "hate"
    hate.mkdir()
    for name, keep in (("train.tsv", 1500), ("dev.tsv", 471)):
        lines = (hate_speech_dir() / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (hate / name).write_text("".join(lines[:keep + 1]), encoding="utf-8")
    blocks = klue_ner_path().read_text(encoding="utf-8").split("\n\n")
    ner = tmp_path / "klue-ner-head.tsv"
    ner.write_text("\n\n".join(blocks[:600]) + "\n", encoding="utf-8")
    proc = ok("compare", str(corpus), "--limit", "400", "--strategies", "whitespace/syllable", "--vocab-sizes", "500",
              "--gold", "none", "--no-progress", "--no-model-cache", "--jobs", "1", "-o", str(tmp_path / "out"),
              "--task", f"hate={hate}", "--task", f"ner={ner}", here=True)
    assert "task hate (95% intervals)" in proc.stdout and "task ner (95% intervals)" in proc.stdout
    import pandas as pd

    table = pd.read_csv(tmp_path / "out" / "table.csv")
    assert len(table) == 1 and 0 < table["hate_macro_f1"].iloc[0] < 1
    assert table["hate_macro_f1_ci_low"].iloc[0] < table["hate_macro_f1"].iloc[0] < table["hate_macro_f1_ci_high"].iloc[0]
    assert 0.5 < table["ner_ceiling_f1"].iloc[0] <= 1 and 0 <= table["ner_boundary_crossing"].iloc[0] < 0.5
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "ner_ceiling_f1" in report and "--task hate=" in report
