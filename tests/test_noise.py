"""Korean noise (:mod:`korean_bpe.noise`) and the comparison's ``noise`` task: each perturbation on
hand-checked Korean, determinism whatever the process, identity at rate 0, valid Unicode for any
text, the 두벌식 mapping read back, the errors; the task's columns, its exact values on a hand case,
its intervals."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from korean_bpe import noise
from korean_bpe.compare.metrics import token_edit_distance, token_stability
from korean_bpe.jamo import decompose, decompose_syllable, is_compatibility_jamo, is_syllable
from korean_bpe.noise import PERTURBATIONS, from_qwerty, perturb, to_qwerty

from _reviews import MOVIE_REVIEWS
from _strings import HARD, SURROGATES, hangulish, korean_heavy

ROOT = Path(__file__).resolve().parent.parent
LONG = " ".join(MOVIE_REVIEWS) * 3  # long enough that two seeds always draw differently


def one(text: str, name: str, *, rate: float = 1.0, seed: int = 0) -> str:
    return perturb([text], name, rate=rate, seed=seed)[0]


def outcomes(text: str, name: str, seeds: int = 300) -> set[str]:
    """Every output of ``name`` at rate 1 on ``text`` over ``seeds`` seeds."""
    return set(perturb([text] * seeds, name, rate=1.0, seed=0))


# --- each perturbation, by hand ---------------------------------------------------------------------


def test_spacing_removed_drops_spaces_between_words_only():
    assert one("정말 재밌어요  최고", "spacing_removed") == "정말재밌어요최고"
    assert one(" 영화\t좋다\n굿 ", "spacing_removed") == " 영화\t좋다\n굿 "  # outer spaces, tabs, line breaks stay


def test_spacing_inserted_splits_between_syllables_only():
    assert one("영화ABC 좋아", "spacing_inserted") == "영 화ABC 좋 아"
    assert one("ㅋㅋ abc 1", "spacing_inserted") == "ㅋㅋ abc 1"


def test_keyboard_typo_slips_one_jamo_to_a_neighbouring_key_of_its_kind():
    # 가: ㄱ is r (neighbours e t d f: ㄷ ㅅ ㅇ ㄹ), ㅏ is k (i o j l m: ㅑ ㅐ ㅓ ㅣ ㅡ); , and . are no jamo
    assert outcomes("가", "keyboard_typo") == set("다사아라") | set("갸개거기그")
    # 닭: the compound 받침 ㄺ is two keys and never slips; ㄷ is e (w r s d: ㅈ ㄱ ㄴ ㅇ), ㅏ as above
    assert outcomes("닭", "keyboard_typo") == set("잙갉낡앍") | set("댥댉덝딝듥")
    assert perturb(["안녕하세요"] * 2, "keyboard_typo", rate=0.3, seed=0) == ["안냥하세요", "안녕하시요"]


def test_batchim_dropped_and_added():
    assert one("좋아요 있어요 닭 ㅋ", "batchim_dropped") == "조아요 이어요 다 ㅋ"
    assert outcomes("가", "batchim_added") == {"강", "감", "간"}
    assert one("닭", "batchim_added") == "닭"  # a syllable with a 받침 keeps it
    assert one("고마워 정말", "batchim_added", rate=0.5, seed=2) == "고마웡 정말"


def test_initials_abbreviate_words_of_syllables():
    assert one("응응 감사합니다! ㅋㅋ 영화abc 12", "initials") == "ㅇㅇ ㄱㅅㅎㄴㄷ! ㅋㅋ ㅇㅎabc 12"
    assert one("죄송 " + unicodedata.normalize("NFD", "한"), "initials") == "ㅈㅅ " + unicodedata.normalize("NFD", "한")


def test_elongation_stretches_the_end_of_a_word():
    assert one("너무 좋다 ㅋㅋ", "elongation", seed=1) == "너무우우 좋다아아 ㅋㅋㅋㅋ"
    stretched = outcomes("봐 요 대박 10 wow!", "elongation", seeds=60)
    assert stretched == {f"봐{'아' * a} 요{'오' * b} 대박 10 wow{'!' * c}"
                         for a in (2, 3) for b in (2, 3) for c in (3, 4)}


def test_nfd_is_unicode_nfd_of_hangul():
    text = "한국어 영화, 정말 재밌다 ㅋㅋ"
    assert one(text, "nfd") == unicodedata.normalize("NFD", text) != text
    assert len(one("한국어", "nfd")) == 8


def test_compat_jamo_spells_syllables_out():
    assert one("닭 한 ㅋ", "compat_jamo") == "ㄷㅏㄺ ㅎㅏㄴ ㅋ"


def test_wrong_layout_types_the_qwerty_keys():
    assert one("안녕 ㅋㅋ 반가워", "wrong_layout") == "dkssud zz qksrkdnj"
    assert to_qwerty("꿀잼 의자 닭 왜") == "Rnfwoa dmlwk ekfr dho"
    assert one("영화 ABC", "wrong_layout") == "dudghk ABC"


def test_mix_gives_each_document_one_perturbation():
    got = outcomes("정말 재밌어요", "mix", seeds=80)
    for name in ("spacing_removed", "nfd", "compat_jamo", "wrong_layout", "initials"):
        assert one("정말 재밌어요", name) in got, name
    assert len(got) >= 8  # eleven kinds, some with several outcomes


def test_a_list_of_names_applies_them_in_order():
    assert perturb(["좋아요 ㅋㅋ"], ["batchim_dropped", "wrong_layout"], rate=1.0, seed=0) == ["whdkdy zz"]
    assert perturb(["좋아요 ㅋㅋ"], ["wrong_layout", "batchim_dropped"], rate=1.0, seed=0) == ["whgdkdy zz"]


# --- determinism, rate 0 -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PERTURBATIONS)
def test_same_seed_same_output_other_seed_other_output(name):
    texts = [LONG, "정말 재밌어요"]
    first = perturb(texts, name, rate=0.1, seed=5)
    assert first == perturb(texts, name, rate=0.1, seed=5)
    assert first[0] != LONG
    assert perturb(texts, name, rate=0.1, seed=6)[0] != first[0]
    # a document's result does not depend on the others
    assert perturb(["다른 문서", "정말 재밌어요"], name, rate=0.5, seed=5)[1] == perturb(texts, name, rate=0.5, seed=5)[1]


def test_the_same_output_whatever_pythonhashseed():
    code = ("import json, sys; from korean_bpe.noise import PERTURBATIONS, perturb; "
            "print(json.dumps({n: perturb([sys.argv[1]], n, rate=0.3, seed=7) for n in PERTURBATIONS}))")
    runs = []
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code, LONG[:600]], env=env, capture_output=True, text=True,
                             check=True, cwd=ROOT)
        runs.append(json.loads(out.stdout))
    assert runs[0] == runs[1]
    assert runs[0] == {n: perturb([LONG[:600]], n, rate=0.3, seed=7) for n in PERTURBATIONS}


@settings(max_examples=150, deadline=None)
@given(text=korean_heavy(), name=st.sampled_from(PERTURBATIONS), seed=st.integers(0, 2**40))
def test_rate_zero_is_the_identity(text, name, seed):
    assert perturb([text, ""], name, rate=0, seed=seed) == [text, ""]


# --- valid Unicode and what each keeps ---------------------------------------------------------------


def unpaired_jamo(text: str) -> int:
    """Conjoining vowels (U+1160..U+11A7) with no initial, vowel or open syllable before them, and
    finals (U+11A8..U+11FF) with no vowel, final or syllable before them."""
    n = 0
    for prev, ch in zip(" " + text, text):
        if "\u1160" <= ch <= "\u11a7":
            n += not ("\u1100" <= prev <= "\u11a7" or (is_syllable(prev) and len(decompose_syllable(prev)) == 2))
        elif "\u11a8" <= ch <= "\u11ff":
            n += not ("\u1160" <= prev <= "\u11ff" or is_syllable(prev))
    return n


def _surrogates(text: str) -> int:
    return sum(0xD800 <= ord(c) <= 0xDFFF for c in text)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(hangulish(), korean_heavy()), name=st.sampled_from(PERTURBATIONS),
       rate=st.sampled_from([0.3, 1.0]), seed=st.integers(0, 1000))
def test_valid_unicode_out_for_any_text(text, name, rate, seed):
    out = one(text, name, rate=rate, seed=seed)
    assert isinstance(out, str)
    assert _surrogates(out) == _surrogates(text)  # none made, the text's own kept
    assert unpaired_jamo(out) <= unpaired_jamo(text)
    if not _surrogates(text):
        out.encode("utf-8")  # strict: a lone surrogate would raise


@pytest.mark.parametrize("name", PERTURBATIONS)
def test_the_hard_strings(name):
    for text in [*HARD, *SURROGATES, ""]:
        out = one(text, name, seed=3)
        assert _surrogates(out) == _surrogates(text) and unpaired_jamo(out) <= unpaired_jamo(text), repr(text[:30])


@settings(max_examples=200, deadline=None)
@given(text=korean_heavy(), rate=st.sampled_from([0.3, 1.0]), seed=st.integers(0, 1000))
def test_what_each_perturbation_keeps(text, rate, seed):
    def run(name: str) -> str:
        return one(text, name, rate=rate, seed=seed)

    def without(s: str, drop) -> list[str]:  # noqa: ANN001
        return [c for c in s if not drop(c)]

    removed, inserted = run("spacing_removed"), run("spacing_inserted")
    assert removed.replace(" ", "") == text.replace(" ", "") == inserted.replace(" ", "")
    assert len(removed) <= len(text) <= len(inserted)
    for name, same in (("keyboard_typo", 2), ("batchim_dropped", 2), ("batchim_added", 2)):
        out = run(name)
        assert len(out) == len(text), name
        for a, b in zip(text, out):
            if a != b:  # a syllable became another syllable
                assert is_syllable(a) and is_syllable(b), name
                ja, jb = decompose_syllable(a), decompose_syllable(b)
                if name == "keyboard_typo":
                    assert len(ja) == len(jb) and sum(x != y for x, y in zip(ja, jb)) == 1
                else:
                    assert ja[:same] == jb[:same] and len(ja) != len(jb)
    assert unicodedata.normalize("NFC", run("nfd")) == unicodedata.normalize("NFC", text)
    compat = run("compat_jamo")
    assert without(compat, lambda c: is_syllable(c) or is_compatibility_jamo(c)) == \
        without(text, lambda c: is_syllable(c) or is_compatibility_jamo(c))
    for name in ("initials", "elongation", "wrong_layout"):  # word by word: the white space stays
        out = run(name)
        assert [c for c in out if c.isspace()] == [c for c in text if c.isspace()], name
        assert len(out.split()) == len(text.split()), name
    for before, after in zip(text.split(), run("elongation").split()):
        assert after.startswith(before)


_SYLLABLES_AND_MORE = st.text(alphabet=st.one_of(st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),
                                                 st.sampled_from(list(" 0123456789.,!?~😉\n"))), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_SYLLABLES_AND_MORE)
def test_the_keyboard_layout_mapping_round_trips(text):
    assert from_qwerty(to_qwerty(text)) == text
    assert from_qwerty(one(text, "wrong_layout")) == text


def test_every_syllable_round_trips_alone_and_in_pairs():
    syllables = [chr(c) for c in range(0xAC00, 0xD7A4)]
    assert [from_qwerty(to_qwerty(s)) for s in syllables] == syllables
    pairs = [a + b for a in "각갃갉않닭" for b in "사아가과의"]  # a 받침 meets the next initial
    assert [from_qwerty(to_qwerty(p)) for p in pairs] == pairs
    assert to_qwerty("ㅋㅋ ㅠㅠ") == "zz bb" and from_qwerty("zz bb") == "ㅋㅋ ㅠㅠ"


# --- the registry and the errors ----------------------------------------------------------------------


def test_the_registered_names_and_their_notes():
    assert set(PERTURBATIONS) == set(noise.NOISE.names()) and len(PERTURBATIONS) == 11
    for name in PERTURBATIONS:
        kind = noise.NOISE.build(name)
        assert ">>>" in kind.doc and any(is_syllable(c) for c in kind.doc), name
        assert kind.name == name and kind.unit and kind.summary and kind.label, name
        line = noise.describe(name, rate=0.25)
        assert line.startswith(f"{name} at 25%: ") and kind.unit in line and "\n" not in line
    assert noise.describe(["nfd", "wrong_layout"], rate=1).count("; then ") == 1


@pytest.mark.parametrize("kwargs, error, match", [
    ({"name": "typo"}, ValueError, "unknown noise perturbation 'typo'; choose one of"),
    ({"name": []}, TypeError, "non-empty list"),
    ({"name": ["nfd", 3]}, TypeError, "named by a string"),
    ({"rate": 1.5}, ValueError, r"rate must be from 0 to 1 .* rate=0.1"),
    ({"rate": -0.1}, ValueError, "rate must be from 0 to 1"),
    ({"rate": math.nan}, ValueError, "rate must be from 0 to 1"),
    ({"rate": "0.1"}, TypeError, "rate must be a number"),
    ({"rate": True}, TypeError, "rate must be a number"),
    ({"seed": -1}, ValueError, "non-negative"),
    ({"seed": 1.0}, TypeError, "seed must be an int"),
    ({"texts": "정말 재밌어요"}, TypeError, r"not one string; write \['정말 재밌어요'\]"),
    ({"texts": ["좋다", 3]}, TypeError, "texts must be strings, got int"),
])
def test_bad_arguments_are_refused_with_the_fix(kwargs, error, match):
    args = {"texts": ["좋다"], "name": "nfd", "rate": 0.1, "seed": 0} | kwargs
    with pytest.raises(error, match=match):
        perturb(args.pop("texts"), args.pop("name"), **args)


# --- token stability ----------------------------------------------------------------------------------


def levenshtein(a, b) -> int:  # noqa: ANN001
    """The textbook dynamic programme: the definition :func:`token_edit_distance` must agree with."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def test_token_edit_distance_by_hand():
    kitten, sitting = [ord(c) for c in "kitten"], [ord(c) for c in "sitting"]
    assert token_edit_distance(kitten, sitting) == 3 == token_edit_distance(sitting, kitten)
    assert token_edit_distance([1, 2, 3], [3, 2, 1]) == 2
    assert token_edit_distance(list(range(100)), list(range(1, 101))) == 2  # 100 bits: past a machine word
    assert token_stability(kitten, sitting) == pytest.approx(1 - 3 / 7)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=40), st.lists(st.integers(0, 4), max_size=40))
def test_token_edit_distance_is_levenshtein(a, b):
    assert token_edit_distance(a, b) == levenshtein(a, b)
    assert 0.0 <= token_stability(a, b) <= 1.0


# --- the noise task -----------------------------------------------------------------------------------


class CharSegmenter:
    """One token a character: its code point, 0 (unknown) for anything but a Hangul syllable or a space."""

    unk_ids = frozenset({0})

    def encode_batch(self, texts):  # noqa: ANN001, ANN201
        return [[ord(c) if is_syllable(c) or c == " " else 0 for c in t] for t in texts]


def _row(texts: list[str]) -> SimpleNamespace:
    seg = CharSegmenter()
    encoded = seg.encode_batch(texts)
    words = [len(t.split()) for t in texts]
    held = SimpleNamespace(texts=texts, n_words=sum(words), words_per_doc=words, labels=None)
    return SimpleNamespace(segmenter=seg, encoded=encoded, n_tokens=sum(map(len, encoded)), held=held, seed=0,
                           labelled=None, shared={})


def test_the_task_on_a_hand_case():
    from korean_bpe.compare.tasks import NoiseTask

    task = NoiseTask({"spacing_removed": 1.0, "wrong_layout": 1.0, "nfd": 0.0})
    measured = task.measure(_row(["정말 재밌어요", "안녕"]))
    got = measured.columns
    # spacing_removed: 7 tokens -> 6 (the space gone): 1 - 1/7; 안녕 has no space: 1
    assert got["noise_spacing_removed_stability"] == pytest.approx((6 / 7 + 1) / 2)
    assert got["noise_spacing_removed_fertility_change"] == pytest.approx((8 - 9) / 3)  # W = 3 clean 어절
    # wrong_layout: 정말 재밌어요 -> wjdakf woalTdjdy (15 unknown tokens vs 7: 7 substituted, 8 inserted);
    # 안녕 -> dkssud (6 unknown vs 2: 2 substituted, 4 inserted)
    assert got["noise_wrong_layout_stability"] == pytest.approx(((1 - 15 / 16) + (1 - 6 / 6)) / 2)
    assert got["noise_wrong_layout_fertility_change"] == pytest.approx((22 - 9) / 3)
    assert got["noise_wrong_layout_unk_rate_change"] == pytest.approx(21 / 22 - 0)  # the space stays known
    assert got["noise_nfd_stability"] == 1.0 and got["noise_nfd_fertility_change"] == 0.0
    assert got["noise_stability"] == pytest.approx(sum(
        (a + b + 1) / 3 for a, b in [(6 / 7, 1 - 15 / 16), (1, 0)]) / 2)
    assert not any("accuracy" in k for k in got)  # no labels: no accuracy drop, and a note says why
    assert measured.notes == ("noise: no labels, so no accuracy drop: its columns stay empty (give compare() labels, "
                              "or korean-bpe compare a labelled corpus such as nsmc-sample)",)


def test_the_task_resamples_its_documents_as_every_metric():
    import numpy as np

    from korean_bpe.compare import stats
    from korean_bpe.compare.tasks import NoiseTask

    task = NoiseTask(["nfd", "initials"])
    evidence = [[1.0] * 30 + [0.5] * 10, [0.0] * 40]
    reps = task.replicates({"stability": evidence}, point={}, resamples=50, seed=4)
    counts = stats.resample_counts(40, resamples=50, seed=4)
    assert np.allclose(reps["noise_nfd_stability"], (counts[:, :30].sum(1) + 0.5 * counts[:, 30:].sum(1)) / 40)
    assert np.allclose(reps["noise_initials_stability"], 0.0)
    assert np.allclose(reps["noise_stability"], reps["noise_nfd_stability"] / 2)


def test_the_task_refuses_bad_settings():
    from korean_bpe.compare.tasks import NoiseTask

    with pytest.raises(ValueError, match="unknown noise perturbation 'typo'"):
        NoiseTask(["typo"])
    with pytest.raises(TypeError, match=r"write \['nfd'\]"):
        NoiseTask("nfd")
    with pytest.raises(ValueError, match="rate must be from 0 to 1"):
        NoiseTask({"nfd": 2})
    with pytest.raises(ValueError, match="at least one"):
        NoiseTask([])
    with pytest.raises(ValueError, match=r"dropout rate must be a number from 0 to below 1 \(e.g. dropout=0.1\)"):
        NoiseTask(dropout=1.0)
    with pytest.raises(TypeError, match="NoiseTask.downstream=.... must be a korean_bpe.compare.Downstream"):
        NoiseTask(downstream="cnn")
    config = NoiseTask(rate=0.2).to_config()
    assert config["perturbations"] == dict.fromkeys(PERTURBATIONS, 0.2) and config["dropout"] == 0.1
    assert config["downstream"]["model"] == "cnn" and NoiseTask(dropout=0).dropout is None
    assert config["test_docs"] == 2000
    with pytest.raises(ValueError, match=r"NoiseTask\(test_docs=1\): must be an integer of 2 or more"):
        NoiseTask(test_docs=1)


def test_the_task_reads_a_seeded_sample_of_the_documents():
    from korean_bpe.compare.tasks import NoiseTask

    texts = [f"리뷰 {k}번 정말 재밌어요" for k in range(50)]
    keep, made = NoiseTask(["nfd"], test_docs=20).noisy(texts, seed=3)
    assert len(keep) == 20 and keep == sorted(keep) and made["nfd"] == perturb([texts[i] for i in keep], "nfd",
                                                                              rate=0.1, seed=3)
    assert NoiseTask(["nfd"], test_docs=20).noisy(texts, seed=3)[0] == keep  # the same for every row and process
    assert NoiseTask(["nfd"], test_docs=20).noisy(texts, seed=4)[0] != keep
    assert NoiseTask(["nfd"], test_docs=50).noisy(texts, seed=3)[0] is None  # all of them
    three = ["정말 재밌어요", "안녕", "영화 최고 최고"]
    task = NoiseTask({"spacing_removed": 1.0}, test_docs=2)
    got = task.measure(_row(three)).columns
    sample = [three[i] for i in task.noisy(three, seed=0)[0]]
    # one token a character: removing s spaces of n characters leaves 1 - s / n of the sequence
    assert got["noise_spacing_removed_stability"] == pytest.approx(sum(1 - t.count(" ") / len(t) for t in sample) / 2)
    assert got["noise_spacing_removed_fertility_change"] == pytest.approx(
        -sum(t.count(" ") for t in sample) / sum(len(t.split()) for t in sample))


@pytest.fixture(scope="module")
def noise_run():
    pytest.importorskip("pandas")
    import random

    from korean_bpe.compare import Statistics, compare

    rng = random.Random(0)
    texts = [" ".join(rng.choice(MOVIE_REVIEWS) for _ in range(rng.randrange(1, 4))) for _ in range(240)]
    task = {"type": "noise", "perturbations": {"keyboard_typo": 0.2, "wrong_layout": 0.1, "nfd": 0.0}}
    return compare(texts, strategies=["whitespace/syllable", "whitespace/jamo", "baseline/word"], vocab_sizes=[80],
                   gold=None, show_progress=False, model_cache=False, statistics=Statistics(resamples=200),
                   tasks=[task], keep_segmenters=True)


def test_compare_gives_the_noise_columns(noise_run):
    names = ("keyboard_typo", "wrong_layout", "nfd")
    expected = [c for n in names for c in (f"noise_{n}_stability", f"noise_{n}_fertility_change",
                                           f"noise_{n}_unk_rate_change", f"noise_{n}_accuracy_drop",
                                           f"noise_{n}_dropout_accuracy_drop")] \
        + ["noise_s", "noise_dropout_s", "noise_stability", "noise_accuracy_drop", "noise_dropout_accuracy_drop",
           "noise_dropout_accuracy"]
    table = noise_run.table
    assert [c for c in table.columns if c.startswith("noise_") and not c.endswith(("_low", "_high", "_p", "_holm"))] \
        == expected
    assert noise_run.config["tasks"]["noise"]["perturbations"] == {"keyboard_typo": 0.2, "wrong_layout": 0.1,
                                                                   "nfd": 0.0}
    df = table.set_index("strategy")
    assert df.filter(like="accuracy").isna().all().all()  # no labels: the accuracy columns stay empty, once noted
    assert (df["noise_s"] > 0).all() and df["noise_dropout_s"].isna().all()  # no classifier, so no dropout one
    assert noise_run.notes.count("noise: no labels, so no accuracy drop: its columns stay empty (give compare() "
                                 "labels, or korean-bpe compare a labelled corpus such as nsmc-sample)") == 1
    assert (df["noise_nfd_stability"] == 1.0).all() and (df["noise_nfd_fertility_change"] == 0.0).all()
    assert (df["noise_nfd_unk_rate_change"] == 0.0).all()
    for name in df.index:  # every row loses some tokens to the typos; the jamo row reads NFD as its own jamo
        assert 0 < df.loc[name, "noise_keyboard_typo_stability"] < 1
        for metric in ("noise_keyboard_typo_stability", "noise_wrong_layout_stability", "noise_stability"):
            low, high = df.loc[name, f"{metric}_ci_low"], df.loc[name, f"{metric}_ci_high"]
            assert low <= df.loc[name, metric] <= high and low < high, (name, metric)
    assert 0 < df.loc["baseline/word", "noise_stability_p"] <= 1  # tested against whitespace/syllable
    assert df.loc["baseline/word", "noise_wrong_layout_unk_rate_change"] > 0  # a Latin word is unknown to it
    (verdict,) = [v for v in noise_run.verdicts if v.family == "noise stability"]  # the most robust row
    candidates = df.loc[["whitespace/syllable", "whitespace/jamo"], "noise_stability"]  # words: a reference point
    assert verdict.metric == "noise_stability" and verdict.value == candidates.max()
    assert df.loc[verdict.best, "noise_stability"] == verdict.value and verdict.compared == 2
    assert list(verdict.reference_points) == ["baseline/word"]


def test_the_columns_are_the_row_tokens_compared(noise_run):
    held = noise_run.held_out
    noisy = perturb(held, "keyboard_typo", rate=0.2, seed=0)  # the run's seed
    df = noise_run.table.set_index("strategy")
    for name in df.index:
        seg = noise_run.segmenters[(name, 80)]
        clean, ids = seg.encode_batch(held), seg.encode_batch(noisy)
        expected = sum(token_stability(a, b) for a, b in zip(clean, ids)) / len(held)
        assert df.loc[name, "noise_keyboard_typo_stability"] == pytest.approx(expected)
        n_words = sum(len(t.split()) for t in held)
        assert df.loc[name, "noise_keyboard_typo_fertility_change"] == pytest.approx(
            (sum(map(len, ids)) - sum(map(len, clean))) / n_words)


def test_the_printed_task_table_goes_long_when_wide(noise_run):
    """Ten noise columns do not fit 100 characters: a line per row and interval metric instead."""
    from korean_bpe.compare.table import format_task
    from korean_bpe.compare.tasks import get_task

    task = get_task({"type": "noise", "perturbations": {"keyboard_typo": 0.2, "wrong_layout": 0.1, "nfd": 0.0}})
    lines = format_task(noise_run.table, task.columns).splitlines()
    assert lines[0].split() == ["strategy", "vocab", "metric", "value", "[interval]"]
    assert len(lines) == 1 + 3 * 4 + 1 and lines[-1] == "(7 more columns of this task in table.csv and the report)"
    assert max(map(len, lines)) <= 100
    row = noise_run.table.set_index("strategy").loc["baseline/word"]
    (line,) = [x for x in lines if x.startswith("baseline/word") and " noise_stability " in x]
    assert line.endswith(f"{row['noise_stability'] * 100:.2f} [{row['noise_stability_ci_low'] * 100:.2f}, "
                         f"{row['noise_stability_ci_high'] * 100:.2f}]")
    narrow = format_task(noise_run.table, task.columns[:1])  # one column fits: the wide table, as before
    assert narrow.splitlines()[0].split()[:3] == ["strategy", "vocab", "noise_keyboard_typo_stability"]


def test_the_report_draws_the_stability_alone_without_labels(noise_run, tmp_path):
    pytest.importorskip("matplotlib")
    written = noise_run.write_report(tmp_path / "r")
    md = written["report.md"].read_text(encoding="utf-8")
    assert "## Noise\n\n![Robustness to Korean noise](noise.png)" in md
    stability = noise_run.noise("stability")
    assert list(stability.columns) == ["keyboard_typo", "wrong_layout", "nfd", "mean"]
    assert (stability["nfd"] == 1.0).all()
    with pytest.raises(ValueError, match="dropout=True adds the BPE-dropout classifier's rows"):
        noise_run.noise("stability", dropout=True)
