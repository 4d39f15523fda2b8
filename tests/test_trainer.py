"""train_bpe: argument checks, vocabulary semantics, agreement (reference == fast engines == HF
tokenizers) on real reviews and on random tables, determinism across PYTHONHASHSEED, callbacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_bpe.trainer import BPEModel, fast, train_bpe, train_reference
from korean_bpe.trainer.api import prepare_words
from korean_bpe.units import apply_marker, get_unit

from _strings import tie_words
from test_trainer_golden import ENGINES, hf_train

FAST_ENGINES = [e for e in ENGINES if e != "reference"]


def word_counts(texts: list[str], unit: str = "syllable", marker: str | None = None) -> Counter[tuple[str, ...]]:
    u = get_unit(unit)
    words = Counter(w for t in texts for w in t.split())
    return Counter({apply_marker(u.split(w), marker): c for w, c in words.items()})


def hf_texts(texts: list[str], unit: str) -> list[str]:
    """What HF must see to work on the same symbols: jamo-decomposed words for the jamo unit."""
    u = get_unit(unit)
    return [" ".join("".join(u.split(w)) for w in t.split()) for t in texts]


# --- arguments ----------------------------------------------------------------------------------

WC = {("ㅋ", "ㅋ", "ㅋ"): 3, ("하", "하"): 2}


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: train_bpe(WC), ValueError, ["vocab_size", "num_merges"]),
        (lambda: train_bpe(["ㅋㅋ"], num_merges=1), TypeError, ["word_counts", "mapping"]),
        (lambda: train_bpe({"ㅋㅋ": 1}, num_merges=1), TypeError, ["tuple('ㅋㅋ')"]),
        (lambda: train_bpe({("ㅋ", ""): 1}, num_merges=1), ValueError, ["non-empty str"]),
        (lambda: train_bpe({(): 1}, num_merges=1), ValueError, ["empty word"]),
        (lambda: train_bpe({("ㅋ", "ㅋ"): 0}, num_merges=1), ValueError, ["positive"]),
        (lambda: train_bpe({("ㅋ", "ㅋ"): 1.5}, num_merges=1), TypeError, ["int count"]),
        (lambda: train_bpe(WC, vocab_size=2), ValueError, ["vocab_size=2", "vocab_size >= 3"]),
        (lambda: train_bpe(WC, num_merges=-1), ValueError, ["num_merges"]),
        (lambda: train_bpe(WC, num_merges="3"), TypeError, ["num_merges"]),
        (lambda: train_bpe(WC, num_merges=3, special_tokens="<unk>"), TypeError, ["special_tokens=('<unk>',)"]),
        (lambda: train_bpe(WC, num_merges=3, special_tokens=("",)), ValueError, ["special_tokens"]),
        (lambda: train_bpe(WC, num_merges=3, limit_alphabet=-1), ValueError, ["limit_alphabet"]),
        (lambda: train_bpe(WC, num_merges=3, on_merge=1), TypeError, ["on_merge"]),
        (lambda: train_bpe(WC, num_merges=3, show_progress="yes"), TypeError, ["show_progress"]),
        (lambda: train_bpe(WC, num_merges=3, engine="rust"), ValueError, ["engine='rust'"]),
        (lambda: train_bpe(WC, num_merges=3, marker="@@"), ValueError, ["marker='@@'"]),
        (lambda: train_bpe(WC, num_merges=3, marker="</w>"), ValueError, ["apply_marker"]),
        (lambda: train_bpe(WC, num_merges=3, initial_alphabet=[""]), ValueError, ["initial_alphabet"]),
    ],
)
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    for w in words:
        assert w in str(info.value)


def test_vocab_size_counts_specials_alphabet_and_merges():
    model = train_bpe(WC, vocab_size=5, min_frequency=1, special_tokens=("<unk>", "<pad>"))
    assert model.id_to_token == ("<unk>", "<pad>", "ㅋ", "하", "ㅋㅋ")
    assert model.vocab_size == 5
    assert train_bpe(WC, vocab_size=4, special_tokens=("<unk>", "<pad>")).merges == ()


def test_num_merges_and_vocab_size_together_stop_at_the_first_limit():
    assert len(train_bpe(WC, vocab_size=100, num_merges=1, min_frequency=1).merges) == 1
    assert len(train_bpe(WC, vocab_size=4, num_merges=10, min_frequency=1).merges) == 1


def test_min_frequency_stops_below_it():
    counts: list[int] = []
    model = train_bpe(WC, num_merges=10, min_frequency=4, on_merge=lambda r, p, c: counts.append(c))
    assert model.merges == (("ㅋ", "ㅋ"),)  # count 6; next best (ㅋㅋ, ㅋ) has 3 < 4
    assert counts == [6]
    assert len(train_bpe(WC, num_merges=10, min_frequency=1).merges) == 3


def test_special_token_equal_to_a_symbol_keeps_one_id():
    model = train_bpe(WC, num_merges=1, special_tokens=("<unk>", "하"))
    assert model.id_to_token[:3] == ("<unk>", "하", "ㅋ")


def test_prepare_words_orders_alphabet_by_code_point_then_marked_symbols():
    id_to_token, words, counts, alphabet, prefix = prepare_words(
        word_counts(["먹었다 가다 값이"], marker="</w>"), special_tokens=("<unk>",)
    )
    assert id_to_token == ["<unk>", "가", "값", "다", "먹", "었", "이", "다</w>", "이</w>"]
    assert prefix is None
    assert sorted(counts) == [1, 1, 1] and all(len(w) >= 2 for w in words)


def test_marker_auto_detects_wordpiece_prefix():
    model = train_bpe(word_counts(["하다 하다 하다"], marker="##"), num_merges=1, min_frequency=1)
    assert model.merges == (("하", "##다"),)
    assert model.continuing_subword_prefix == "##"
    assert "하다" in model.vocab and "##다" in model.vocab and "다" in model.vocab


def test_limit_alphabet_drops_rare_symbols_from_words_like_hf():
    # counts: ㅋ 13, ㅎ 6, 하 4, 아 1  ->  limit 3 drops 아: "ㅋ아ㅋ" becomes "ㅋㅋ"
    words = {"ㅋㅋㅋ": 3, "ㅋ아ㅋ": 1, "ㅎㅎㅎ": 2, "하하": 2}
    ours = train_bpe({tuple(w): c for w, c in words.items()}, vocab_size=20, min_frequency=1, limit_alphabet=3)
    hf = hf_train(words, vocab_size=20, special_tokens=("<unk>",), limit_alphabet=3)
    assert "아" not in ours.vocab
    assert ours.vocab == hf["vocab"]
    assert list(ours.merges) == [tuple(m) for m in hf["merges"]]
    assert ours.merges[0] == ("ㅋ", "ㅋ")


def test_limit_alphabet_ties_keep_the_smaller_code_point_and_initial_alphabet():
    words = {("b", "b"): 1, ("a", "a"): 1, ("c", "c"): 1}
    assert train_bpe(words, num_merges=0, limit_alphabet=2, special_tokens=()).alphabet == ("a", "b")
    model = train_bpe(words, num_merges=0, limit_alphabet=2, special_tokens=(), initial_alphabet=["z"])
    assert model.alphabet == ("a", "z")


def test_initial_alphabet_forces_all_256_bytes_like_hf():
    unit = get_unit("byte")
    texts = ["ㅋㅋㅋ 재밌다 재밌어요", "재미 없다 ㅋㅋ"]
    words = Counter(w for t in texts for w in t.split())
    ours = train_bpe({unit.split(w): c for w, c in words.items()}, vocab_size=300, min_frequency=1,
                     initial_alphabet=unit.initial_alphabet)
    assert ours.alphabet == tuple(sorted(unit.initial_alphabet))
    byte_words = {"".join(unit.split(w)): c for w, c in words.items()}
    hf = hf_train(byte_words, vocab_size=300, special_tokens=("<unk>",), initial_alphabet=unit.initial_alphabet)
    assert ours.vocab == hf["vocab"]
    assert list(ours.merges) == [tuple(m) for m in hf["merges"]]


# --- agreement on real reviews ------------------------------------------------------------------


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_reference_equals_fast_engines_on_real_reviews(real_texts, unit):
    wc = word_counts(real_texts[:300], unit)
    ref = train_reference(wc, num_merges=300, min_frequency=1)
    assert len(ref.merges) == 300
    for engine in FAST_ENGINES:
        assert train_bpe(wc, num_merges=300, min_frequency=1, engine=engine).merges == ref.merges, engine


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@pytest.mark.parametrize("vocab_size", [500, 2000])
def test_same_merges_and_vocab_as_hf_on_real_reviews(real_texts, unit, vocab_size):
    texts = real_texts
    wc = word_counts(texts, unit)
    alphabet = len({s for w in wc for s in w}) + 1
    if vocab_size <= alphabet:
        vocab_size = alphabet + 300
    hf = hf_train(Counter(w for t in hf_texts(texts, unit) for w in t.split()), vocab_size=vocab_size,
                  special_tokens=("<unk>",), min_frequency=2)
    for engine in FAST_ENGINES:
        ours = train_bpe(wc, vocab_size=vocab_size, engine=engine)
        assert list(ours.merges) == [tuple(m) for m in hf["merges"]], engine
        assert ours.vocab == hf["vocab"]


@pytest.mark.parametrize("marker", ["</w>", "##"])
def test_same_merges_as_hf_with_glued_markers(real_texts, marker):
    """HF numbers the marked symbols (``다</w>``) in hash order, so give our engine HF's own ids
    and check that it then makes HF's merges, merge for merge."""
    texts = real_texts[:1000]
    hf = hf_train(Counter(w for t in texts for w in t.split()), vocab_size=3000, special_tokens=("<unk>",),
                  marker=marker, min_frequency=1)
    hf_merges = [tuple(m) for m in hf["merges"]]
    id_to_token = [t for t, _ in sorted(hf["vocab"].items(), key=lambda kv: kv[1])]
    n_initial = len(id_to_token) - len({_merged(a, b, marker) for a, b in hf_merges})
    ours = _run_engine_with_ids(word_counts(texts, marker=marker), id_to_token[:n_initial], marker,
                                len(id_to_token))
    assert ours == hf_merges


def _merged(a: str, b: str, marker: str) -> str:
    return a + b[2:] if marker == "##" and b.startswith("##") else a + b


def _run_engine_with_ids(wc, initial: list[str], marker: str, vocab_size: int) -> list[tuple[str, str]]:
    id_to_token = list(initial)
    token_to_id = {t: i for i, t in enumerate(id_to_token)}
    words = [[token_to_id[s] for s in w] for w in wc if len(w) > 1]
    counts = [wc[w] for w in wc if len(w) > 1]
    merges: list[tuple[str, str]] = []

    def on_merge(left: int, right: int, count: int) -> int:
        if len(id_to_token) >= vocab_size:
            return -1
        a, b = id_to_token[left], id_to_token[right]
        tok = _merged(a, b, marker)
        merges.append((a, b))
        if tok not in token_to_id:
            token_to_id[tok] = len(id_to_token)
            id_to_token.append(tok)
        return token_to_id[tok]

    fast.get_engine()(words, counts, next_id=len(id_to_token), on_merge=on_merge)
    return merges


@pytest.mark.nsmc
def test_same_merges_as_hf_on_nsmc_subset(nsmc):
    import pandas as pd

    texts = pd.read_csv(nsmc / "ratings_train.txt", sep="\t", quoting=3, keep_default_na=False,
                        nrows=20000)["document"].astype(str).tolist()
    for unit in ("syllable", "jamo"):
        hf = hf_train(Counter(w for t in hf_texts(texts, unit) for w in t.split()), vocab_size=4000,
                      special_tokens=("<unk>",), min_frequency=2)
        ours = train_bpe(word_counts(texts, unit), vocab_size=4000)
        assert list(ours.merges) == [tuple(m) for m in hf["merges"]], unit


# --- random tables ------------------------------------------------------------------------------

random_words = tie_words()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=random_words, extra=st.integers(0, 40))
def test_random_tables_reference_equals_engines_and_hf(words, extra):
    wc = {tuple(w): c for w, c in words.items()}
    vocab_size = len({s for w in wc for s in w}) + 1 + extra
    ref = train_reference(wc, vocab_size=vocab_size, min_frequency=1)
    for engine in FAST_ENGINES:
        assert train_bpe(wc, vocab_size=vocab_size, min_frequency=1, engine=engine) == ref, engine
    hf = hf_train(words, vocab_size=vocab_size, special_tokens=("<unk>",))
    assert list(ref.merges) == [tuple(m) for m in hf["merges"]]
    assert ref.vocab == hf["vocab"]


@settings(max_examples=60, deadline=None)
@given(words=random_words, n=st.integers(0, 30), marker=st.sampled_from([None, "▁", "</w>", "##"]))
def test_random_tables_with_markers_reference_equals_engines(words, n, marker):
    wc = {apply_marker(tuple(w), marker): c for w, c in words.items()}
    ref = train_reference(wc, num_merges=n, min_frequency=1)
    for engine in FAST_ENGINES:
        assert train_bpe(wc, num_merges=n, min_frequency=1, engine=engine) == ref, engine


# --- determinism, prefixes, callbacks, progress -------------------------------------------------

_TRAIN_SCRIPT = """
import json, sys
from collections import Counter
from korean_bpe.trainer import train_bpe
from korean_bpe.units import apply_marker, get_unit
texts = json.load(open(sys.argv[1], encoding="utf-8"))
out = {}
for unit in ("syllable", "jamo"):
    for marker in (None, "</w>"):
        u = get_unit(unit)
        wc = Counter(apply_marker(u.split(w), marker) for t in texts for w in t.split())
        m = train_bpe(wc, vocab_size=len({s for w in wc for s in w}) + 400, min_frequency=1, limit_alphabet=200)
        out[f"{unit}-{marker}"] = [m.id_to_token, m.merges]
print(json.dumps(out, ensure_ascii=False))
"""


def test_same_merges_across_processes_and_hash_seeds(real_texts, tmp_path):
    path = tmp_path / "texts.json"
    path.write_text(json.dumps(real_texts[:800], ensure_ascii=False), encoding="utf-8")
    outputs = []
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", _TRAIN_SCRIPT, str(path)], capture_output=True, text=True,
                             env=env, check=True)
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]["jamo-None"][1]) > 100


def test_truncate_is_training_with_fewer_merges(real_texts):
    wc = word_counts(real_texts[:500])
    full = train_bpe(wc, num_merges=200, min_frequency=1)
    for n in (0, 1, 50, 199):
        assert train_bpe(wc, num_merges=n, min_frequency=1) == full.truncate(n)
    assert full.truncate(50).vocab_size == full.vocab_size - 150


def test_on_merge_records_rank_pair_count(real_texts):
    wc = word_counts(real_texts[:300], "jamo")
    history: list[tuple[int, tuple[str, str], int]] = []
    model = train_bpe(wc, num_merges=100, on_merge=lambda *args: history.append(args))
    assert [r for r, _, _ in history] == list(range(100))
    assert tuple(p for _, p, _ in history) == model.merges
    counts = [c for _, _, c in history]
    assert counts == sorted(counts, reverse=True) and counts[-1] >= 2
    # the first count is the real number of adjacent (left, right) windows in the corpus
    first = history[0][1]
    assert counts[0] == sum(c * sum(1 for p in zip(w, w[1:]) if p == first) for w, c in wc.items())


def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    train_bpe(WC, num_merges=3, min_frequency=1)  # stderr is captured: not a terminal
    assert capsys.readouterr().err == ""
    train_bpe(WC, num_merges=3, min_frequency=1, show_progress=False)
    assert capsys.readouterr().err == ""
    train_bpe(WC, num_merges=3, min_frequency=1, show_progress=True)
    err = capsys.readouterr().err
    assert "BPE merges" in err and "3/3" in err


def test_progress_bar_on_by_default_on_a_terminal(monkeypatch):
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    train_bpe(WC, num_merges=3, min_frequency=1)  # show_progress=None: on, since stderr is a terminal
    assert "BPE merges" in term.getvalue() and "3/3" in term.getvalue()
    term.truncate(0)
    term.seek(0)
    train_bpe(WC, num_merges=3, min_frequency=1, show_progress=False)  # asked off
    assert term.getvalue() == ""


# --- without a compiler -------------------------------------------------------------------------

_FALLBACK_SCRIPT = """
import json, sys
# an editable install of the checkout (make install) finds its compiled modules for any name
# the copy lacks: leave only the copy importable, as on a machine without a compiler
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
from collections import Counter
import korean_bpe
from korean_bpe.trainer import fast, train_bpe
from korean_bpe.units import get_unit
assert korean_bpe.__file__.startswith(sys.argv[2]), korean_bpe.__file__
texts = json.load(open(sys.argv[1], encoding="utf-8"))
from korean_bpe import jamo
out = {"compiled": fast.compiled_available(), "compose": jamo.compose is jamo.compose_reference}
for unit in ("syllable", "jamo"):
    u = get_unit(unit)
    wc = Counter(u.split(w) for t in texts for w in t.split())
    out[unit] = train_bpe(wc, vocab_size=len({s for w in wc for s in w}) + 301).merges
print(json.dumps(out, ensure_ascii=False))
"""


@pytest.mark.slow
def test_installs_and_trains_the_same_without_a_compiler(real_texts, tmp_path):
    """Install a copy of the package with a compiler that always fails (``CC=/bin/false``): pip
    succeeds, no compiled module is built, and training gives the compiled build's merges, with one
    line on stderr saying the slower pure-Python engine is in use."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    src, site = tmp_path / "src", tmp_path / "site"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(root / name, src / name)
    shutil.copytree(root / "korean_bpe", src / "korean_bpe",
                    ignore=shutil.ignore_patterns("*.so", "*.cpp", "__pycache__"))
    env = {**os.environ, "CC": "/bin/false", "CXX": "/bin/false"}
    env.pop("KOREAN_BPE_NO_EXT", None)
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps", "--no-index",
         "--target", str(site), str(src)],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    assert "pure-Python fallback" in pip.stdout + pip.stderr
    assert (site / "korean_bpe" / "trainer" / "fast.py").is_file()
    assert not list(site.rglob("*.so"))  # _counting, trainer/_merge, _jamo, encoding/_encode, _tasks

    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(real_texts[:300], ensure_ascii=False), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", _FALLBACK_SCRIPT, str(texts), str(site)], capture_output=True,
                         text=True, env={**env, "PYTHONPATH": str(site)}, cwd=tmp_path, check=True)
    got = json.loads(run.stdout)
    assert got["compiled"] is False and got["compose"] is True  # the pure-Python compose serves
    notes = [line for line in run.stderr.splitlines() if "compiled BPE engine not available" in line]
    assert len(notes) == 1 and "pure-Python engine" in notes[0]
    for unit in ("syllable", "jamo"):
        wc = word_counts(real_texts[:300], unit)
        here = train_bpe(wc, vocab_size=len({s for w in wc for s in w}) + 301)  # compiled when built
        assert len(here.merges) == 300
        assert [tuple(m) for m in got[unit]] == list(here.merges), unit


def test_train_bpe_falls_back_to_python_with_the_same_merges(real_texts, monkeypatch, caplog):
    """In process: with the compiled module hidden, ``engine="auto"`` runs the pure-Python engine
    (and says so once), with the same merges."""
    import importlib
    import logging

    wc = word_counts(real_texts[:300], "jamo")
    expected = train_bpe(wc, num_merges=300)
    monkeypatch.setitem(sys.modules, "korean_bpe.trainer._merge", None)  # import now fails
    plain = importlib.reload(fast)
    try:
        plain._noted = False
        with caplog.at_level(logging.WARNING, logger="korean_bpe.trainer.fast"):
            got = train_bpe(wc, num_merges=300)
            train_bpe(wc, num_merges=3)
        assert got == expected
        assert sum("using the pure-Python engine" in r.getMessage() for r in caplog.records) == 1
    finally:
        monkeypatch.undo()
        importlib.reload(fast)


def test_model_is_a_bpemodel_with_the_alphabet_in_code_point_order(real_texts):
    model = train_bpe(word_counts(real_texts[:200]), vocab_size=1000)
    assert isinstance(model, BPEModel)
    assert list(model.alphabet) == sorted(model.alphabet)
    assert model.id_to_token[0] == "<unk>"


# --- a trained model keeps the merge chain rule (Tokenizer.train does not check it again) --------


@pytest.mark.parametrize("options", [
    dict(unit="syllable"), dict(unit="jamo", marker="</w>"), dict(unit="byte", pre_tokenizer="raw"),
    dict(unit="jamo", pre_tokenizer="raw", byte_fallback=True), dict(marker="##", special_tokens=("<unk>", "##다")),
    dict(hangul_fallback=True, unit="syllable", limit_alphabet=200),
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_every_trained_model_keeps_the_merge_chain_rule(options, real_texts):
    from korean_bpe import Tokenizer
    from korean_bpe.tokenizer import _check_model

    tok = Tokenizer.train(real_texts[:300] + ["<unk> ##다 ㅋㅋ 😀 \ud800"] * 3, vocab_size=2500, min_frequency=1,
                          show_progress=False, **options)
    _check_model(tok.model)  # what Tokenizer(model) would check, and Tokenizer.train no longer does
    again = Tokenizer(tok.model, pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok.marker,
                      byte_fallback=tok.byte_fallback, unk_token=tok.unk_token, hangul_fallback=tok.hangul_fallback)
    sample = real_texts[300:340]
    assert again.encode_batch(sample, disallowed_special=()) == tok.encode_batch(sample, disallowed_special=())
    assert len(tok.model.merges) > 100


# --- special tokens are never made by merges (issue 14, item 2) ---------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_merges_never_make_a_special_token(engine):
    """``< s >`` spells the special token ``<s>``: the word is cut before its last symbol, so the
    pair ``<s`` + ``>`` is never counted.  ``<``+``s`` (count 5+2) goes first, then ``s``+``>``
    from ``s>`` alone (2): the literal text stays ordinary symbols, never the special's id."""
    words = {tuple("<s>"): 5, tuple("s>"): 2}
    model = train_bpe(words, num_merges=5, min_frequency=1, special_tokens=("<s>",), engine=engine)
    assert model.merges == (("<", "s"), ("s", ">"))
    assert model.id_to_token == ("<s>", "<", ">", "s", "<s", "s>")


@pytest.mark.parametrize("marker", [None, "</w>", "##"])
def test_no_merge_result_is_a_special_token_on_any_marker(marker):
    specials = ("<unk>", "<0x41>", "##ab", "ab</w>")
    texts = ["x<unk>y <0x41> <unk> ab abab"] * 4
    model = train_bpe(word_counts(texts, marker=marker), num_merges=100, min_frequency=1, special_tokens=specials,
                      marker=marker)
    made = {model.merged_token(a, b) for a, b in model.merges}
    assert len(made) > 5 and made.isdisjoint(specials)
