"""The NER task's tagger (:mod:`korean_bpe.compare.tasks.ner`): BIO labels over tokens and back to
character spans, a hand-made set it must learn, a row that crosses every entity, the ceiling on the
real data, seeds, folds and the inputs it refuses.  Real torch, small inputs, seconds."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pandas")
pytest.importorskip("torch")

from korean_bpe.compare import Statistics, compare  # noqa: E402
from korean_bpe.compare.tasks import NerTask, get_task  # noqa: E402
from korean_bpe.compare.tasks.ner import (  # noqa: E402
    NerTagger, bio_tags, entity_counts, fold_sentences, klue_ner_path, predict_tags, read_klue_ner_lines,
    tagged_entities, token_spans, trimmed_pieces,
)

from _reviews import MOVIE_REVIEWS  # noqa: E402

FAST = NerTagger(epochs=8, seeds=2, layers=1, batch_size=8, learning_rate=2e-2)


def _texts(n: int) -> list[str]:
    import random

    rng = random.Random(0)
    return [" ".join(rng.choice(MOVIE_REVIEWS) for _ in range(rng.randrange(1, 4))) for _ in range(n)]


def _sentence(ident: str, marked: str) -> list[str]:
    """KLUE-NER lines of one sentence written with ``<text:TYPE>`` marks."""
    import re

    lines, text = [f"## {ident}\t{marked}"], ""
    for m in re.finditer(r"<([^:>]+):([A-Z]+)>|([^<])", marked):
        if m.group(3) is not None:
            lines.append(f"{m.group(3)}\tO")
            text += m.group(3)
        else:
            lines += [f"{c}\t{'B' if k == 0 else 'I'}-{m.group(2)}" for k, c in enumerate(m.group(1))]
    return lines + [""]


def _file(tmp_path, sentences: list[str], name: str = "ner.tsv"):
    path = tmp_path / name
    path.write_text("\n".join(line for k, s in enumerate(sentences) for line in _sentence(f"s{k}", s)),
                    encoding="utf-8")
    return path


def _run(task, strategies, *, reference=None):
    """The task on a comparison trained on its own sentences' text (so that the baselines know its
    characters and 어절) and some reviews."""
    texts = [s.text for s in task.sentences][:100] + _texts(100)
    return compare(texts, strategies=strategies, vocab_sizes=[200], gold=None, show_progress=False,
                   model_cache=False, statistics=Statistics(resamples=200, reference=reference), tasks=[task])


# -- labels and spans -------------------------------------------------------------------------------


def test_bio_tags_mark_the_token_where_an_entity_starts_and_those_inside_it() -> None:
    entities = [(0, 2, "OG"), (4, 5, "PS")]  # 경찰은 박씨의 딸: <경찰:OG>은 <박:PS>씨의 딸
    assert bio_tags(entities, [(0, 1), (1, 2), (2, 3), (4, 5), (5, 7), (8, 9)]) == \
        ["B-OG", "I-OG", "O", "B-PS", "O", "O"]
    assert bio_tags(entities, [(0, 3), (4, 7), (8, 9)]) == ["B-OG", "B-PS", "O"]  # 어절: the particles come along
    assert bio_tags(entities, [(1, 3), (3, 3)]) == ["I-OG", "O"]  # begins inside; an empty span is O


def test_tags_back_to_spans_as_conlleval_reads_them() -> None:
    spans = [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert tagged_entities(spans, ["B-PS", "I-PS", "B-PS", "I-PS"]) == [(0, 2, "PS"), (2, 4, "PS")]
    assert tagged_entities(spans, ["I-PS", "I-PS", "I-OG", "O"]) == [(0, 2, "PS"), (2, 3, "OG")]
    assert tagged_entities(spans, ["O"] * 4) == []
    with pytest.raises(ValueError, match="one tag per token span"):
        tagged_entities(spans, ["O"])


def test_gold_tags_recover_exactly_the_recoverable_entities() -> None:
    """Decoding the gold BIO tags finds every entity whose edges are token boundaries (what the
    ceiling counts) and no other: the tagger's F1 is bounded by the ceiling."""
    lines = _sentence("a", "<경찰:OG>은 <박:PS>씨의 <서울 시청:LC>에서 <3일:DT>")
    s = read_klue_ner_lines(lines)[0]
    for pieces in ([(c, k, k + 1) for k, c in enumerate(s.text)],                      # characters
                   [("경찰은", 0, 3), ("▁박씨의", 3, 7), ("▁서울", 7, 10), ("▁시청에서", 10, 15), ("▁3일", 15, 18)],
                   [("경찰", 0, 2), ("은", 2, 3), ("▁", 3, 4), ("박", 4, 5), ("씨의", 5, 7), ("▁서울", 7, 10),
                    ("▁시청", 10, 13), ("에서", 13, 15), ("▁3", 15, 17), ("일", 17, 18)]):
        trimmed = trimmed_pieces(s.text, pieces)
        spans = [(a, b) for _, a, b in trimmed]
        found = set(tagged_entities(spans, bio_tags(s.entities, spans)))
        _, _, recoverable, _ = entity_counts(s.entities, token_spans(s.text, pieces))
        assert len(found & set(s.entities)) == recoverable
    assert found == set(s.entities)  # the last segmentation keeps every edge, the ▁ piece skipped


def test_folds_cover_every_sentence_once() -> None:
    folds = fold_sentences(10, folds=3, seed=1)
    assert sorted(i for _, test in folds for i in test) == list(range(10))
    assert all(sorted(train + test) == list(range(10)) for train, test in folds)
    assert [len(test) for _, test in folds] == [4, 3, 3]
    with pytest.raises(ValueError, match="need 2 to 10 folds"):
        fold_sentences(10, folds=11, seed=0)


# -- the model --------------------------------------------------------------------------------------


def test_the_tagger_learns_a_trivial_set_and_a_seed_gives_the_same_tags() -> None:
    train = [["서울", "에", "갔다"], ["어제", "부산", "에", "왔다"], ["집", "에", "갔다"]] * 20
    labels = [[1, 0, 0], [0, 1, 0, 0], [0, 0, 0]] * 20
    test = [["부산", "에", "갔다"], ["집", "에", "왔다"], ["처음", "보는", "말"]]
    got = predict_tags(train, labels, test, n_tags=2, settings=FAST, seed=3)
    assert got == [[[1, 0, 0], [0, 0, 0], [0, 0, 0]]] * 2  # unseen tokens: the unknown row, tagged O
    assert predict_tags(train, labels, test, n_tags=2, settings=FAST, seed=3) == got
    with pytest.raises(ValueError, match="one label per token"):
        predict_tags(train, labels[:-1], test, n_tags=2, settings=FAST)
    with pytest.raises(ValueError, match=r"a label is a tag number below n_tags=2"):
        predict_tags([["a"]], [[5]], test, n_tags=2, settings=FAST)


def test_the_settings_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match=r"NerTagger\(epochs=0\): must be an int >= 1"):
        NerTagger(epochs=0)
    with pytest.raises(ValueError, match=r"NerTagger\(device='tpu'\)"):
        NerTagger(device="tpu")
    with pytest.raises(TypeError, match="NerTask\\(tagger=...\\) must be"):
        NerTask(tagger="yes")  # refused before any file is read


# -- the task ---------------------------------------------------------------------------------------

#: entities that are always the same syllables: a tagger of syllables learns them exactly
TRIVIAL = ["<서울:LC>에 갔다", "어제 <서울:LC>에서 <박:PS>씨를 만났다", "<박:PS>씨의 딸", "오늘 집에 왔다",
           "<서울:LC>", "<박:PS>씨 <서울:LC>"]


@pytest.fixture(scope="module")
def trivial_file(tmp_path_factory):
    return _file(tmp_path_factory.mktemp("ner"), TRIVIAL * 20)



def test_the_task_learns_entities_that_are_always_the_same_tokens(trivial_file) -> None:
    """Syllable tokens make every entity recoverable and always the same tokens: F1 1.0, at the
    ceiling, entities at the very start and end of a sentence included (``<서울:LC>``, ``...<서울:LC>``)."""
    task = NerTask(trivial_file, tagger=FAST)
    result = _run(task, ["baseline/syllable", "baseline/word"], reference="baseline/syllable")
    df = result.table.set_index("strategy")
    assert df.loc["baseline/syllable", "ner_entity_f1"] == 1.0 == df.loc["baseline/syllable", "ner_ceiling_f1"]
    assert df.loc["baseline/syllable", "ner_entity_precision"] == 1.0 == df.loc["baseline/syllable", "ner_entity_recall"]
    assert df.loc["baseline/syllable", "ner_f1_seed_sd"] == 0.0
    # whole 어절: 서울에, 박씨를... cross the entities but 서울 and 박씨 alone at the ends do not
    word = df.loc["baseline/word"]
    assert 0 < word["ner_entity_f1"] <= word["ner_ceiling_f1"] < 1
    assert word["ner_entity_f1_ci_low"] <= word["ner_entity_f1"] <= word["ner_entity_f1_ci_high"]
    assert 0 <= word["ner_entity_f1_p"] <= 1  # against baseline/syllable
    config = result.config["tasks"]["ner"]
    assert config["tagger"]["seeds"] == 2 and config["tagger"]["epochs"] == 8 and config["test_sentences"] == 24
    assert "BIO over tokens" in config["tagger"]["labels"]


def test_the_same_seed_gives_the_same_f1_and_interval(tmp_path) -> None:
    path = _file(tmp_path, TRIVIAL * 10 + ["<부산:LC> 사는 <김:PS>씨", "<3일:DT> 오후 <5시:TI>", "경찰 <10명:QT>"] * 6)
    cols = ["ner_entity_f1", "ner_entity_f1_ci_low", "ner_entity_f1_ci_high", "ner_f1_seed_sd"]
    one = _run(NerTask(path, tagger=FAST), ["baseline/word"]).table[cols]
    again = _run(NerTask(path, tagger=FAST), ["baseline/word"]).table[cols]
    assert one.equals(again)


def test_a_rerun_reads_the_taggers_tags_back_from_the_model_cache(tmp_path, monkeypatch) -> None:
    """With the model cache, each split's tags are kept: a rerun trains no tagger and gives the same
    table (an edited entry: tagged again, the same numbers)."""
    import json

    from korean_bpe.compare.tasks import ner

    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path / "cache"))
    calls, real = [], ner.predict_tags
    monkeypatch.setattr(ner, "predict_tags", lambda *a, **k: calls.append(1) or real(*a, **k))
    path = _file(tmp_path, TRIVIAL * 10 + ["<부산:LC> 사는 <김:PS>씨", "경찰 <10명:QT>"] * 6)
    texts = [s.text for s in NerTask(path).sentences][:100] + _texts(100)

    def run():
        calls.clear()
        return compare(texts, strategies=["baseline/word", "whitespace/syllable"], vocab_sizes=[200], gold=None,
                       show_progress=False, statistics=Statistics(resamples=200),
                       tasks=[NerTask(path, tagger=FAST)]).table.filter(regex="^ner_(?!s$)")

    first = run()
    assert len(calls) == 2 and first["ner_entity_f1"].notna().all()
    again = run()
    assert calls == [] and again.equals(first)
    for p in (tmp_path / "cache" / "models").glob("*.json"):
        entry = json.loads(p.read_text())
        if entry["kind"] == "ner-tagger":
            entry["tags"][0][0] = []  # the checksum no longer matches
            p.write_text(json.dumps(entry))
    assert run().equals(first) and len(calls) == 2


def test_a_tagger_that_finds_no_entity_is_noted_and_not_the_verdicts_evidence(trivial_file) -> None:
    """A tagger that tags every token O (too little training for it) says nothing of the tokens:
    its rows are left out of the entity-tagging verdict (the exact boundary metrics stay), and a
    note says so."""
    import numpy as np

    from korean_bpe.compare import columns
    from korean_bpe.compare.assemble import build_frame
    from korean_bpe.compare.rows import Row
    from korean_bpe.compare.tasks.ner import _tagger_columns
    from korean_bpe.compare.verdict import verdicts

    blind = np.zeros((2, 3, 3), dtype=np.int64)
    blind[:, :, 2] = 2  # tp, predicted, gold: every seed finds nothing of the 6 entities
    learned = blind.copy()
    learned[:, :, :2] = 1
    none, some = _tagger_columns(blind), _tagger_columns(learned)
    assert none["ner_entity_f1"] == 0.0 and none["ner_entity_unlearned"].startswith("it tags every token O")
    assert some["ner_entity_f1"] == 2 / 3 and some["ner_entity_unlearned"] == ""
    rng = np.random.default_rng(0)

    def row(name: str, found: dict) -> Row:
        center = 0.9 if found is none else 0.6  # the blind rows would be crowned if they were candidates
        return Row({"strategy": name, "kind": "bpe", "vocab_size": 1000, "actual_vocab_size": 1000, "unk_rate": 0.0,
                    **found, "ner_entity_f1": center, "ner_boundary_crossing": 0.1},
                   reference="whitespace/syllable",
                   replicates={"ner_entity_f1": center + rng.normal(0, 0.01, 400),
                               "ner_boundary_crossing": 0.1 + rng.normal(0, 0.01, 400)})

    rows = [row("whitespace/syllable", none), row("raw/syllable", none), row("whitespace/jamo", some),
            row("raw/jamo", some)]
    task = NerTask(trivial_file, tagger=FAST)
    names, dtypes = columns.task_columns(task.columns)
    for r in rows:  # the table's integer columns, which these hand-made rows do not measure
        r.columns.update({name: 0 for name in names if name not in r.columns and str(dtypes[name]).startswith("int")})
    notes: list[str] = []
    build_frame(rows, [task], confidence=0.95, reference=None, notes=notes, resamples=400)
    (note,) = [n for n in notes if "learned nothing" in n]
    assert note.startswith("ner_entity at vocabulary size 1,000: the model of whitespace/syllable, raw/syllable "
                           "learned nothing (it tags every token O") and "left out of the verdict" in note
    found = {v.family: v for v in verdicts(rows, [task], alpha=0.05)}
    assert found["entity tagging"].compared == 2 and found["entity tagging"].best in ("whitespace/jamo", "raw/jamo")
    assert found["entity boundaries"].compared == 4  # the exact metric does not depend on the tagger
    for r in rows:  # without the flag the blind rows win: the test above is not vacuous
        r.columns["ner_entity_unlearned"] = ""
    (tagging,) = [v for v in verdicts(rows, [task], alpha=0.05) if v.family == "entity tagging"]
    assert tagging.best in ("whitespace/syllable", "raw/syllable")


def test_a_row_whose_tokens_cross_every_entity_gets_f1_zero(tmp_path) -> None:
    # every entity is followed by a particle in the same 어절: no whole 어절 token can match one
    path = _file(tmp_path, ["<경찰:OG>은 또", "<박:PS>씨의 딸", "그 <서울:LC>에서"] * 15)
    df = _run(NerTask(path, tagger=FAST), ["baseline/word"]).table.iloc[0]
    assert df["ner_ceiling_f1"] == 0 and df["ner_entity_f1"] == 0 and df["ner_entity_recall"] == 0
    assert df["ner_boundary_crossing"] == 0.5  # every end inside a token, every start at one


def test_without_the_tagger_only_the_exact_metrics(trivial_file) -> None:
    task = get_task({"type": "ner", "path": str(trivial_file), "tagger": False})
    assert task.metrics == ("ner_boundary_crossing", "ner_ceiling_f1")
    assert task.verdict == (("entity boundaries", "ner_boundary_crossing"),)
    assert NerTask(trivial_file, tagger=FAST).verdict[0] == ("entity tagging", "ner_entity_f1")
    result = _run(task, ["baseline/syllable"])
    assert "ner_entity_f1" not in result.table and result.table["ner_ceiling_f1"].iloc[0] == 1
    assert result.config["tasks"]["ner"]["tagger"] is False


def test_the_verdict_across_tasks_leads_with_the_tagger(trivial_file) -> None:
    from korean_bpe.compare.tasks import NoiseTask

    tasks = [NerTask(trivial_file, tagger=FAST), NoiseTask()]
    texts = [s.text for s in tasks[0].sentences][:100] + _texts(140)
    result = compare(texts, strategies=["whitespace/syllable", "whitespace/jamo"], vocab_sizes=[60], gold=None,
                     show_progress=False, model_cache=False, statistics=Statistics(resamples=200), tasks=tasks)
    (found,) = result.summary
    assert found.tasks[-2:] == (("entity tagging", "ner_entity_f1"), ("noise stability", "noise_stability"))
    assert "ner_entity_f1" in {v.metric for v in result.verdicts}


def test_k_folds_test_every_sentence_once(trivial_file) -> None:
    task = NerTask(trivial_file, folds=3, tagger=FAST)
    assert task.test_idx == list(range(120)) and len(task.splits) == 3
    df = _run(task, ["baseline/syllable"]).table.iloc[0]
    assert df["ner_entity_f1"] == 1.0 and df["ner_ceiling_f1"] == 1.0
    config = task.to_config()
    assert config["folds"] == 3 and config["test_sentences"] == 120 and "test_fraction" not in config
    with pytest.raises(ValueError, match=r"NerTask\(folds=1\): must be an int >= 2"):
        NerTask(trivial_file, folds=1)
    with pytest.raises(ValueError, match=r"NerTask\(folds=500\): .* holds 120 sentences; give folds <= 120"):
        NerTask(trivial_file, folds=500)


def test_a_one_sentence_file_refuses_the_tagger_and_keeps_the_exact_metrics(tmp_path) -> None:
    path = _file(tmp_path, ["<서울:LC>에 갔다"])
    with pytest.raises(ValueError, match="holds 1 sentence, all of them test sentences: the tagger has nothing to "
                                         "train on; give a file of more sentences, or tagger=False"):
        NerTask(path)
    task = NerTask(path, tagger=False)
    assert task.test_idx == [0]
    df = _run(task, ["baseline/syllable"]).table.iloc[0]
    assert df["ner_ceiling_f1"] == 1 and math.isnan(df["ner_ceiling_f1_ci_low"])  # one sentence: no interval


def test_training_sentences_without_an_entity_say_so(tmp_path) -> None:
    # the split puts the one sentence with an entity in test (seed 0: sentence 7 of 10 is tested)
    sentences = ["오늘 집에 왔다"] * 10
    sentences[7] = "<서울:LC>에 갔다"
    task = NerTask(_file(tmp_path, sentences), test_fraction=0.2, tagger=FAST)
    assert 7 in task.test_idx
    result = _run(task, ["baseline/syllable"])
    assert result.table["ner_entity_f1"].iloc[0] == 0
    assert any("training sentences hold no entity: the tagger of baseline/syllable learns to predict none" in n
               for n in result.notes)


@pytest.mark.skipif(klue_ner_path() is None, reason="KLUE-NER not in ../shared/corpora/klue-ner (or $KOREAN_BPE_KLUE_NER_DIR)")
def test_on_klue_ner_the_f1_stays_below_the_ceiling(tmp_path) -> None:
    """A fifth of KLUE-NER (1,000 sentences, 200 tested), a whole-어절 row and a syllable row: each F1
    is a real number, at most its ceiling; the 어절 row's ceiling bounds it well below the syllables'."""
    full = klue_ner_path().read_text(encoding="utf-8").split("\n\n")
    (tmp_path / "ner.tsv").write_text("\n\n".join(full[:1000]) + "\n", encoding="utf-8")  # the header opens the first
    task = NerTask(tmp_path / "ner.tsv", tagger=NerTagger(seeds=1, epochs=3))
    assert len(task.sentences) == 1000
    df = _run(task, ["baseline/syllable", "baseline/word"]).table.set_index("strategy")
    for row in df.index:
        assert 0 < df.loc[row, "ner_entity_f1"] <= df.loc[row, "ner_ceiling_f1"]
    assert df.loc["baseline/word", "ner_ceiling_f1"] < 0.6 < df.loc["baseline/syllable", "ner_ceiling_f1"]
