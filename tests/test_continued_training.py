"""Continued training: Tokenizer.train(..., initial=tok) keeps every old id and merge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer
from korean_bpe.corpus import iter_texts
from korean_bpe.trainer import BPEModel, train_bpe
from korean_bpe.trainer.continued import continue_bpe, segment_words

# A hand-made set of movie reviews (the embedded corpus is law text: constitution and bills).
from _reviews import MOVIE_REVIEWS  # noqa: E402  (tests/_reviews.py)

REVIEWS = [
    *MOVIE_REVIEWS,
    "배우들 연기가 정말 좋았다",
    "스토리가 너무 지루하고 별로",
    "감독의 연출이 최고였다",
    "다시 보고 싶은 영화입니다",
] * 5


@pytest.fixture(scope="module")
def law_texts() -> list[str]:
    return list(iter_texts(None))


@pytest.fixture(scope="module")
def law(law_texts: list[str]) -> Tokenizer:
    return Tokenizer.train(law_texts, vocab_size=3000)


def _tokens(tok: Tokenizer, texts: list[str]) -> int:
    return sum(map(len, tok.encode_batch(texts)))


def _check_extends(old: Tokenizer, new: Tokenizer) -> None:
    assert new.id_to_token[: old.vocab_size] == old.id_to_token  # old ids never move
    assert new.merges[: len(old.merges)] == old.merges  # old merges are a prefix
    assert new.model.alphabet == old.model.alphabet
    assert new.model.special_tokens == old.model.special_tokens


# --- the core, by hand ---------------------------------------------------------------------------


def test_segment_words_applies_the_old_merges_and_cuts_at_unknown_symbols() -> None:
    # 재 밌 다 -> 재밌 다 (id 3, 0); 재밌 alone is one token (nothing to merge); 꿀 cuts its word
    m = BPEModel((), ("다", "밌", "재"), (("재", "밌"),))
    words, counts, unknown = segment_words(m, {("재", "밌", "다"): 2, ("재", "밌"): 1, ("꿀", "재", "밌", "다"): 1,
                                               ("다", "꿀", "다"): 4})
    assert (words, counts, unknown) == ([[3, 0]], [3], {"꿀": 5})


def test_continue_bpe_by_hand() -> None:
    # old: a b c, merge (a, b) -> ab (id 3).  New text: "abc" x3, "cc" x2.
    # Segmented with the old merge: [ab, c] x3, [c, c] x2.  Pairs: (ab, c)=3 > (c, c)=2.
    old = BPEModel((), ("a", "b", "c"), (("a", "b"),))
    new = continue_bpe(old, {tuple("abc"): 3, tuple("cc"): 2}, num_merges=5, min_frequency=1).model
    assert new.merges == (("a", "b"), ("ab", "c"), ("c", "c"))
    assert new.vocab == {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "cc": 5}
    # vocab_size counts the old tokens: room for one more
    assert continue_bpe(old, {tuple("abc"): 3, tuple("cc"): 2}, vocab_size=5, min_frequency=1).model.merges == (
        ("a", "b"), ("ab", "c"))
    with pytest.raises(ValueError, match="vocab_size=3 is smaller than the initial model's 4 tokens"):
        continue_bpe(old, {tuple("abc"): 3}, vocab_size=3)


def test_continue_bpe_engines_agree() -> None:
    old = train_bpe({tuple("영화재밌다"): 3, tuple("정말최고"): 2}, num_merges=2, min_frequency=1)
    words = {tuple("영화정말재밌다"): 4, tuple("정말최고영화"): 3, tuple("재밌다재밌다"): 2}
    results = {engine: continue_bpe(old, words, num_merges=8, min_frequency=1, engine=engine).model.merges
               for engine in ("reference", "python", "auto")}
    assert len(set(results.values())) == 1, results
    assert len(results["auto"]) == 10


def test_a_merge_whose_token_already_exists_adds_no_id() -> None:
    # old merges (b, c) -> bc and (a, bc) -> abc; new text "ab c": (a, b) then (ab, c) makes abc again
    old = BPEModel((), ("a", "b", "c"), (("b", "c"), ("a", "bc")))
    with pytest.warns(UserWarning, match=r"1 symbols of the new text \(1 of its 15 symbols, 6.7%; most often 'x'\)"):
        new = continue_bpe(old, {("a", "b"): 5, ("a", "b", "x", "a", "b"): 1}, num_merges=1, min_frequency=1)
    assert new.model.merges[-1] == ("a", "b") and new.model.vocab["ab"] == 5
    assert new.unknown_symbols == {"x": 1}


# --- Tokenizer.train(initial=...) ------------------------------------------------------------------


def test_law_model_adapted_to_reviews_keeps_ids_and_shortens_reviews(law: Tokenizer, law_texts: list[str]) -> None:
    with pytest.warns(UserWarning, match=r"symbols of the new text \(\d+ of its \d+ symbols.* are not in the initial alphabet"):
        adapted = Tokenizer.train(REVIEWS, vocab_size=law.vocab_size + 200, initial=law)
    _check_extends(law, adapted)
    assert adapted.vocab_size > law.vocab_size
    before, after = _tokens(law, REVIEWS), _tokens(adapted, REVIEWS)
    assert after < before, (before, after)
    # old-domain text: the same tokens or fewer, text by text, and the same decoding
    old_ids = law.encode_batch(law_texts)
    new_ids = adapted.encode_batch(law_texts)
    assert all(len(n) <= len(o) for o, n in zip(old_ids, new_ids))
    assert [law.decode(i) for i in old_ids] == [adapted.decode(i) for i in new_ids]


@pytest.mark.filterwarnings("ignore:.*not in the initial alphabet")
def test_save_and_load_a_continued_model(law: Tokenizer, tmp_path: Path) -> None:
    adapted = Tokenizer.train(REVIEWS, vocab_size=law.vocab_size + 50, initial=law)
    back = Tokenizer.load(adapted.save(tmp_path / "m"))
    assert back.id_to_token == adapted.id_to_token and back.merges == adapted.merges
    assert back.encode_batch(REVIEWS) == adapted.encode_batch(REVIEWS)


@pytest.mark.filterwarnings("ignore:.*not in the initial alphabet")
def test_continuing_twice_equals_continuing_once_when_nothing_stops_early(law: Tokenizer) -> None:
    once = Tokenizer.train(REVIEWS, vocab_size=law.vocab_size + 40, initial=law)
    half = Tokenizer.train(REVIEWS, vocab_size=law.vocab_size + 20, initial=law)
    twice = Tokenizer.train(REVIEWS, vocab_size=law.vocab_size + 40, initial=half)
    _check_extends(half, twice)
    # the second run starts from the first 20 merges, which the text has already absorbed
    assert twice.merges == once.merges


@pytest.mark.parametrize("options", [{"unit": "jamo"}, {"marker": "</w>"}, {"marker": "##"}, {"byte_fallback": True}])
def test_every_unit_and_marker_continues(options: dict[str, object]) -> None:
    base = Tokenizer.train(REVIEWS[:5] * 2, vocab_size=400, **options)  # type: ignore[arg-type]
    adapted = Tokenizer.train(REVIEWS, vocab_size=base.vocab_size + 30, initial=base)
    _check_extends(base, adapted)
    assert adapted.marker == base.marker and adapted.byte_fallback == base.byte_fallback
    assert _tokens(adapted, REVIEWS) < _tokens(base, REVIEWS)
    assert all(adapted.decode(adapted.encode(t)) == base.decode(base.encode(t)) for t in REVIEWS)


@pytest.mark.parametrize(("options", "message"), [
    ({"pre_tokenizer": "raw"}, r"pre_tokenizer=\{'type': 'raw'.* differs from the initial tokenizer's \{'type': 'whitespace'"),
    ({"unit": "jamo"}, r"unit=\{'type': 'jamo'\} differs from the initial tokenizer's \{'type': 'syllable'\}"),
    ({"marker": "</w>"}, r"marker='</w>' differs from the initial tokenizer's '▁'"),
    ({"byte_fallback": True}, "byte_fallback=True differs"),
    ({"special_tokens": ("<unk>", "<pad>")}, r"special_tokens=\('<unk>', '<pad>'\) differs"),
    ({"limit_alphabet": 10}, "limit_alphabet=10 is not supported with initial="),
    ({"max_token_length": 3}, "max_token_length=3 is not supported with initial="),
])
def test_a_mismatched_option_is_refused_by_name(options: dict[str, object], message: str) -> None:
    base = Tokenizer.train(REVIEWS, vocab_size=150)
    with pytest.raises(ValueError, match=message):
        Tokenizer.train(REVIEWS, vocab_size=200, initial=base, **options)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="initial must be a korean_bpe.Tokenizer"):
        Tokenizer.train(REVIEWS, vocab_size=200, initial=base.model)  # type: ignore[arg-type]


def test_okt_analysis_continues_with_the_initial_pre_tokenizer() -> None:
    base = Tokenizer.train(REVIEWS[:5] * 2, vocab_size=300, pre_tokenizer="okt")
    adapted = Tokenizer.train(REVIEWS, vocab_size=base.vocab_size + 30, initial=base)  # okt by default
    _check_extends(base, adapted)
    assert adapted.pre_tokenizer == base.pre_tokenizer
    assert _tokens(adapted, REVIEWS) <= _tokens(base, REVIEWS)


@pytest.mark.nsmc
@pytest.mark.filterwarnings("ignore:.*not in the initial alphabet")
def test_law_model_adapted_to_nsmc_reviews(law: Tokenizer, nsmc: Path, law_texts: list[str]) -> None:
    train = list(iter_texts(nsmc / "ratings_train.txt", limit=20_000))
    test = list(iter_texts(nsmc / "ratings_test.txt", limit=5_000))
    adapted = Tokenizer.train(train, vocab_size=law.vocab_size + 3000, initial=law)
    _check_extends(law, adapted)
    before, after = _tokens(law, test) / len(test), _tokens(adapted, test) / len(test)
    print(f"\nNSMC tokens/review: law {before:.2f} -> adapted {after:.2f}")
    assert after < 0.9 * before
    assert all(len(n) <= len(o) for o, n in zip(law.encode_batch(law_texts), adapted.encode_batch(law_texts)))


# --- CLI -------------------------------------------------------------------------------------------


def test_cli_train_initial(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "korean-bpe"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "korean_bpe.cli"]
    corpus = tmp_path / "reviews.txt"
    corpus.write_text("\n".join(REVIEWS) + "\n", encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300)

    first = run("train", "--limit", "200", "--vocab-size", "800", "--no-progress", "-o", str(tmp_path / "law"))
    assert first.returncode == 0, first.stderr
    second = run("train", str(corpus), "--initial", str(tmp_path / "law"), "--vocab-size", "850", "--no-progress",
                 "-o", str(tmp_path / "adapted"))
    assert second.returncode == 0, second.stderr
    assert "new tokens after" in second.stderr
    law, adapted = Tokenizer.load(tmp_path / "law"), Tokenizer.load(tmp_path / "adapted")
    _check_extends(law, adapted)
    assert _tokens(adapted, REVIEWS) < _tokens(law, REVIEWS)
    bad = run("train", str(corpus), "--initial", str(tmp_path / "law"), "--unit", "jamo", "--vocab-size", "900",
              "-o", str(tmp_path / "bad"))
    assert bad.returncode == 1 and "--unit jamo differs from the --initial model" in bad.stderr
    assert "Traceback" not in bad.stderr


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from("가나다라"), min_size=2, max_size=30), min_size=1, max_size=5))
def test_segment_words_merges_with_the_encoders_loop(words) -> None:
    # one merge loop for encoding and continued training: korean_bpe.encoding's (its own copy,
    # _apply_merges, is gone), and the same segmentation as merge_ids word by word
    from korean_bpe import encoding
    from korean_bpe.trainer import continued

    assert continued.merge_ids is encoding.merge_ids and not hasattr(continued, "_apply_merges")
    m = BPEModel((), tuple("가나다라"), (("가", "나"), ("다", "라"), ("가나", "다라"), ("나", "가"), ("라", "가나")))
    vocab = m.vocab
    pairs = {(vocab[a], vocab[b]): (r, vocab[a + b]) for r, (a, b) in enumerate(m.merges)}
    expected: dict[tuple[int, ...], int] = {}
    for w in words:
        ids = tuple(encoding.merge_ids([vocab[s] for s in w], pairs))
        if len(ids) > 1:
            expected[ids] = expected.get(ids, 0) + 1
    counts: dict[tuple[str, ...], int] = {}
    for w in words:
        counts[tuple(w)] = counts.get(tuple(w), 0) + 1
    got, got_counts, unknown = segment_words(m, counts)
    assert dict(zip(map(tuple, got), got_counts)) == expected and unknown == {}
