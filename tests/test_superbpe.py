"""SuperBPE (korean_bpe.trainer.superbpe): whitespace-bounded merges up to the transition size,
then merges across spaces with a limit on words per token."""

from __future__ import annotations

from collections import Counter

import pytest

from korean_bpe import Tokenizer
from korean_bpe.trainer.superbpe import stage_one_words, train_superbpe
from korean_bpe.units import get_unit

TEXTS = ["할 수 있다", "할 수 없다", "볼 수 있다"] * 3


def test_the_stage_switch_at_the_transition():
    """Lines ▁할▁수▁있다, ▁할▁수▁없다, ▁볼▁수▁있다 (3 each).  Ids: <unk> 0, then by code point ▁ 1,
    다 2, 볼 3, 수 4, 없 5, 있 6, 할 7.  Stage 1 is raw BPE up to t = 14 tokens: ▁수 8, ▁있 9, ▁할 10,
    ▁있다 11, ▁볼 12, ▁없 13, never a ▁ inside a token.  Stage 2 segments the lines with them:
    (▁할,▁수) and (▁수,▁있다) count 6, and (8, 11) < (10, 8): ▁수▁있다 14; then, all at 3,
    (▁수,▁없) (8, 13), (▁할,▁수▁있다) (10, 14), (▁할,▁수▁없) (10, 15), (▁볼,▁수▁있다) (12, 14),
    (▁할▁수▁없,다) (17, 2).  With superword_max_words=1 no superword fits: only ▁없 + 다."""
    t = 14
    tok = Tokenizer.train(TEXTS, vocab_size=20, superword_transition=t)
    assert tok.merges[: t - 8] == (("▁", "수"), ("▁", "있"), ("▁", "할"), ("▁있", "다"), ("▁", "볼"), ("▁", "없"))
    assert tok.merges[: t - 8] == Tokenizer.train(TEXTS, vocab_size=t, pre_tokenizer="raw").merges  # stage 1 = raw
    assert tok.merges[t - 8:] == (("▁수", "▁있다"), ("▁수", "▁없"), ("▁할", "▁수▁있다"), ("▁할", "▁수▁없"),
                                  ("▁볼", "▁수▁있다"), ("▁할▁수▁없", "다"))
    assert tok.tokenize("할 수 있다") == ["▁할▁수▁있다"]
    assert tok.pre_tokenizer.to_config() == {"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": True}
    one = Tokenizer.train(TEXTS, vocab_size=20, superword_transition=t, superword_max_words=1)
    assert one.merges[t - 8:] == (("▁없", "다"),)
    assert one.tokenize("할 수 있다") == ["▁할", "▁수", "▁있다"]


#: engine -> the word-limited SuperBPE model of _word_limit_model: each engine trains once a module (the
#: reference engine, pure Python, takes minutes on whole lines: it trained four times, once per case and
#: again for the reference case's own comparison)
_WORD_LIMIT_MODELS: dict[str, object] = {}


def _word_limit_model(engine, lines):
    from korean_bpe.trainer import api

    if engine not in _WORD_LIMIT_MODELS:
        real = api._get_engine
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(api, "_get_engine", lambda _name: real(engine))
            _WORD_LIMIT_MODELS[engine] = train_superbpe(lines, get_unit("syllable"), vocab_size=1300, transition=900,
                                                        max_words=1, min_frequency=2, special_tokens=("<unk>",))
    return _WORD_LIMIT_MODELS[engine]


@pytest.fixture(scope="module")
def whole_lines(real_texts):
    from korean_bpe.counting import WordCounts

    return dict(WordCounts.from_texts(real_texts[:200] * 2, pre_tokenizer={"type": "raw", "split_by_whitespace": False}).items())


@pytest.mark.parametrize("engine", ["reference", "python", "auto"])
def test_word_limit_in_every_engine(engine, whole_lines):
    """At most max_words ▁ a token, whatever the engine; the reference and fast engines agree."""
    got = _word_limit_model(engine, whole_lines)
    assert _word_limit_model("reference", whole_lines).merges == got.merges
    tokens = got.id_to_token
    assert max(t.count("▁") for t in tokens) == 1  # the limit is reached ('다▁영화'), never passed
    unlimited = train_superbpe(whole_lines, get_unit("syllable"), vocab_size=1300, transition=900, max_words=None,
                               min_frequency=2, special_tokens=("<unk>",))
    assert max(t.count("▁") for t in unlimited.id_to_token) > 1


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_hf_tokenizers_loads_the_export_with_our_ids(unit, real_texts, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    train, test = real_texts[:500], real_texts[500:800]
    size = 1500 if unit != "byte" else 1800
    tok = Tokenizer.train(train, vocab_size=size, unit=unit, superword_transition=size - 300)
    space = "".join(tok.unit.split("▁"))  # 'âĸģ' under byte
    assert any(space in t[1:] for t in tok.id_to_token)  # superwords were learned
    hf = tokenizers.Tokenizer.from_file(str(tok.to_huggingface(tmp_path / "tokenizer.json")))
    ids = tok.encode_batch(test)
    assert [e.ids for e in hf.encode_batch(test, add_special_tokens=False)] == ids
    if unit == "byte":
        assert tok.decode_batch(ids) == [t.replace("\u2581", " ") for t in test]


def test_stage_one_words_are_raws_words():
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    text = " 할  수\t있다 "
    line = get_pre_tokenizer({"type": "raw", "split_by_whitespace": False})(text)
    assert stage_one_words({line[0]: 2}) == {w: 2 * n for w, n in Counter(get_pre_tokenizer("raw")(text)).items()}


def test_options_are_checked():
    with pytest.raises(ValueError, match="superword_transition must be an int in 1..vocab_size"):
        Tokenizer.train(TEXTS, vocab_size=20, superword_transition=30)
    with pytest.raises(ValueError, match="cuts lines at spaces itself"):
        Tokenizer.train(TEXTS, vocab_size=20, superword_transition=15, pre_tokenizer="raw")
    with pytest.raises(ValueError, match="superword_max_words"):
        Tokenizer.train(TEXTS, vocab_size=20, superword_transition=15, superword_max_words=0)


def test_cli_trains_superbpe(tmp_path):
    from korean_bpe.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    assert main(["train", str(corpus), "--vocab-size", "20", "--superword-transition", "14", "-o",
                 str(tmp_path / "model"), "--no-progress"]) == 0
    tok = Tokenizer.load(tmp_path / "model")
    assert tok.model == Tokenizer.train(TEXTS, vocab_size=20, superword_transition=14).model
    assert main(["train", str(corpus), "--vocab-size", "20", "--superword-transition", "14", "--pre-tokenizer",
                 "raw", "-o", str(tmp_path / "m2")]) == 1


def test_an_early_transition_is_said_with_the_asked_and_the_actual_size(tmp_path, monkeypatch):
    """Issue 43: on a small corpus the whitespace-bounded stage runs out of pairs before the transition
    asked, and the merges crossed spaces from there with no word. TEXTS: stage 1 stops at 15 tokens
    (ids 8..13 of the test above, then ▁없+다); asked 18."""
    import warnings

    from korean_bpe.trainer.superbpe import EarlyTransitionWarning

    with pytest.warns(EarlyTransitionWarning) as caught:
        tok = Tokenizer.train(TEXTS, vocab_size=20, superword_transition=18)
    (early,) = [w.message for w in caught if isinstance(w.message, EarlyTransitionWarning)]
    assert (early.asked, early.actual) == (18, 15)
    assert "ran out of pairs (min_frequency=2) at 15 tokens, before superword_transition=18" in str(early)
    assert tok.merges[:7] == Tokenizer.train(TEXTS, vocab_size=18, pre_tokenizer="raw").merges  # raw stops at 15 too
    assert tok.merges[7:] and all("▁" in right for _, right in tok.merges[7:])  # from 15 tokens on: across spaces
    with warnings.catch_warnings():
        warnings.simplefilter("error", EarlyTransitionWarning)
        Tokenizer.train(TEXTS, vocab_size=20, superword_transition=15)  # reached exactly: nothing to say

    pytest.importorskip("pandas")
    from korean_bpe.compare import compare

    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path / "cache"))
    expected = ("superbpe/syllable: SuperBPE's whitespace-bounded stage ran out of pairs at 15 tokens, before the "
                "transition asked (20, 80% of 25): its merges cross spaces from 15 tokens on")
    for cached in (False, True):  # the second run reads the model from compare's cache
        result = compare(TEXTS * 4, eval_texts=TEXTS, strategies=["superbpe/syllable"], vocab_sizes=[25], gold=None,
                         show_progress=False)
        assert [n for n in result.notes if "SuperBPE" in n] == [expected]
        assert list(result.table["model_cached"]) == [cached]
