"""Morphology at training time only (``morpheme_boundaries``): merges never cross a morpheme
boundary inside an 어절, and the trained tokenizer encodes plain text without the analyzer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from korean_bpe import Tokenizer
from korean_bpe.counting import WordCounts, cut_symbols, split_words
from korean_bpe.markers import MORPHEME_CUT, get_marker
from korean_bpe.pre_tokenizers import MorphemeBoundaries, get_pre_tokenizer
from korean_bpe.pre_tokenizers.boundaries import mark_boundaries
from korean_bpe.units import get_unit

CUT = MORPHEME_CUT


def test_a_morpheme_boundary_is_never_merged_across():
    """'영화를 봤다', five times, MeCab's morphemes 영화|를 봤|다.  Ids: <unk> 0, then the alphabet by
    code point: ▁ 1, 다 2, 를 3, 봤 4, 영 5, 화 6.  Training words: ▁ 영 화, 를, ▁ 봤, 다 (5 each); the
    pairs (▁,영) (영,화) (▁,봤) count 5: (1,4) first, then (1,5), then (▁영, 화); 화+를 and 봤+다, which
    cross a boundary, are never counted.  Plain raw training learns them."""
    texts = ["영화를 봤다"] * 5
    tok = Tokenizer.train(texts, vocab_size=100, pre_tokenizer=MorphemeBoundaries(analyzer="mecab"))
    assert tok.merges == (("▁", "봤"), ("▁", "영"), ("▁영", "화"))
    assert tok.tokenize("영화를 봤다") == ["▁영화", "를", "▁봤", "다"]
    plain = Tokenizer.train(texts, vocab_size=100, pre_tokenizer="raw")
    assert plain.tokenize("영화를 봤다") == ["▁영화를", "▁봤다"]
    assert tok.pre_tokenizer == get_pre_tokenizer("raw") and tok.marker is None


@pytest.mark.parametrize("marker, expected", [
    ("▁", [("▁", "영", "화"), ("를",)]),
    ("</w>", [("영", "화"), ("를</w>",)]),
    ("##", [("영", "##화"), ("##를",)]),
    (None, [("영", "화"), ("를",)]),
])
def test_cut_symbols_marks_the_word_whole_then_cuts(marker, expected):
    assert cut_symbols(f"영화{CUT}를", get_unit("syllable"), get_marker(marker)) == expected


def test_cut_symbols_units():
    assert cut_symbols(f"▁값{CUT}이", get_unit("jamo"), get_marker(None)) == [("▁", "ᄀ", "ᅡ", "ᆹ"), ("ᄋ", "ᅵ")]
    byte = cut_symbols(f"값{CUT}이", get_unit("byte"), get_marker("▁"))
    assert [len(p) for p in byte] == [4, 3] and byte[0][0] == "▁"
    assert split_words({f"값{CUT}이": 2, "값이": 1}, get_unit("syllable"), marker="▁") == {
        ("▁", "값"): 2, ("이",): 2, ("▁", "값", "이"): 1}


def test_mark_boundaries_only_inside_an_eojeol():
    assert mark_boundaries("영화를  봤다\n굿", ["영화", "를", "▁▁봤", "다", "\n", "굿"]) == f"영화{CUT}를  봤{CUT}다\n굿"
    assert mark_boundaries("영화를", ["영화"]) == "영화를"  # morphemes that do not spell the text cut nothing
    assert mark_boundaries(f"영{CUT}화", ["영", "화"]) == f"영{CUT}화"  # a U+FFFF of the text is dropped first


def test_counts_file_and_texts_train_the_same_model(tmp_path):
    """The cut words survive a counts file (U+FFFF written as it is) and train the same model."""
    texts = ["아이언맨은 최고의 영화다", "최고의 영화를 봤다", "아이언맨이 최고다"] * 3
    pt = get_pre_tokenizer({"type": "morpheme_boundaries", "analyzer": "mecab", "base": "whitespace"})
    counts = WordCounts.from_texts(texts, pre_tokenizer=pt)
    assert counts[f"최고{CUT}의"] == 6
    again = WordCounts.load(counts.save(tmp_path / "counts.tsv"))
    assert again == counts and again.pre_tokenizer == pt
    from_counts = Tokenizer.train_from_counts(again, vocab_size=40, unit="jamo")
    from_texts = Tokenizer.train(texts, vocab_size=40, unit="jamo", pre_tokenizer=pt)
    assert from_counts.model == from_texts.model
    assert from_texts.pre_tokenizer == get_pre_tokenizer("whitespace") and from_texts.marker == "▁"
    assert not any(m[0].endswith("최고") and m[1].startswith("의") for m in from_texts.merges)


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_raw_decode_is_exact(unit, real_texts):
    texts = real_texts[:300]
    tok = Tokenizer.train(texts, vocab_size=1200, unit=unit, pre_tokenizer=MorphemeBoundaries(analyzer="mecab"))
    assert tok.decode_batch(tok.encode_batch(texts)) == [t.replace("\u2581", " ") for t in texts]


def test_config_and_errors():
    pt = MorphemeBoundaries(analyzer="kiwi", base="whitespace")
    assert pt.to_config() == {"type": "morpheme_boundaries",
                              "analyzer": {"type": "kiwi", "drop": [], "lossless": True},
                              "base": {"type": "whitespace"}}
    assert get_pre_tokenizer(pt.to_config()) == pt
    with pytest.raises(ValueError, match="lossless"):
        MorphemeBoundaries(analyzer={"type": "kiwi"})
    with pytest.raises(ValueError, match="raw"):
        MorphemeBoundaries(base={"type": "raw", "split_by_whitespace": False})


def test_saved_model_encodes_with_no_analyzer_importable(tmp_path):
    """The model trained with Kiwi's and MeCab's boundaries loads and encodes, to the same ids,
    in a process where importing any analyzer fails."""
    texts = ["아이언맨은 최고의 영화다", "최고의 영화를 봤다 ㅋㅋ"] * 4
    for analyzer in ("kiwi", "mecab"):
        tok = Tokenizer.train(texts, vocab_size=40, pre_tokenizer=MorphemeBoundaries(analyzer=analyzer))
        tok.save(tmp_path / analyzer)
        assert analyzer not in (tmp_path / analyzer / "tokenizer_config.json").read_text(encoding="utf-8")
    code = f"""
import json, sys
for name in ("kiwipiepy", "mecab", "konlpy", "jpype", "jpype1"):
    sys.modules[name] = None  # import raises ImportError
from korean_bpe import Tokenizer
out = {{}}
for analyzer in ("kiwi", "mecab"):
    tok = Tokenizer.load({str(tmp_path)!r} + "/" + analyzer)
    out[analyzer] = tok.encode_batch({texts!r})
try:
    import kiwipiepy
except ImportError:
    out["blocked"] = True
print(json.dumps(out))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(run.stdout)
    assert got.pop("blocked") is True
    for analyzer in ("kiwi", "mecab"):
        assert got[analyzer] == Tokenizer.load(tmp_path / analyzer).encode_batch(texts)


@pytest.mark.nsmc
@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_hf_tokenizers_gives_our_ids_on_nsmc(nsmc, tmp_path, unit):
    """tokenizer.json of a model trained with MeCab's boundaries (5k NSMC train reviews, raw): HF
    ``tokenizers`` gives our ids on 2k NSMC test reviews, and decodes them to our text."""
    tokenizers = pytest.importorskip("tokenizers")
    from korean_bpe.corpus import load_nsmc

    train = load_nsmc("train", limit=5000, directory=nsmc).texts
    test = load_nsmc("test", limit=2000, directory=nsmc).texts
    ours = Tokenizer.train(train, vocab_size=2000 if unit != "byte" else 2300, unit=unit,
                           pre_tokenizer=MorphemeBoundaries(analyzer="mecab"), show_progress=False)
    hf = tokenizers.Tokenizer.from_file(str(ours.to_huggingface(tmp_path / "tokenizer.json")))
    ids = ours.encode_batch(test)
    assert [e.ids for e in hf.encode_batch(test, add_special_tokens=False)] == ids
    assert [hf.decode(x, skip_special_tokens=False) for x in ids[:300]] == ours.decode_batch(ids[:300])


def test_cli_trains_with_morpheme_boundaries(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("영화를 봤다\n" * 5, encoding="utf-8")
    from korean_bpe.cli import main

    assert main(["train", str(corpus), "--vocab-size", "100", "--morpheme-boundaries", "mecab",
                 "-o", str(tmp_path / "model"), "--no-progress"]) == 0
    tok = Tokenizer.load(tmp_path / "model")
    assert tok.merges == (("▁", "봤"), ("▁", "영"), ("▁영", "화")) and tok.pre_tokenizer.name == "raw"
    assert main(["count", str(corpus), "--morpheme-boundaries", "mecab", "-o", str(tmp_path / "c.tsv"),
                 "--no-progress"]) == 0
    assert main(["train", "--counts", str(tmp_path / "c.tsv"), "--vocab-size", "100", "-o", str(tmp_path / "m2"),
                 "--no-progress"]) == 0
    assert Tokenizer.load(tmp_path / "m2").model == tok.model


def test_compare_rows_train_as_the_public_api(real_texts):
    """compare's mecab-train row is Tokenizer.train with MorphemeBoundaries(analyzer="mecab") on the
    same texts (read from compare's one MeCab analysis), encodes with raw, and has its
    SentencePiece peer trained with pretokenization_delimiter beside it."""
    from korean_bpe.compare import compare

    train, test = real_texts[:400], real_texts[400:500]
    names = ["mecab-train/syllable", "sentencepiece-bpe/mecab-train"]
    result = compare(train, eval_texts=test, strategies=["mecab-train"], vocab_sizes=[1200], gold=None,
                     show_progress=False, model_cache=False, keep_segmenters=True)
    table = result.table
    assert set(names) <= set(table["strategy"]) and len(table) == 4
    assert set(table.loc[table["strategy"].str.startswith("mecab-train"), "pre_tokenizer"]) == {"raw"}
    ours = result.segmenters[("mecab-train/syllable", 1200)].tokenizer
    expected = Tokenizer.train(train, vocab_size=1200, pre_tokenizer=MorphemeBoundaries(analyzer="mecab"))
    assert ours.model == expected.model and ours.pre_tokenizer == get_pre_tokenizer("raw")
    peer = result.segmenters[("sentencepiece-bpe/mecab-train", 1200)]
    assert peer.encode_batch(["영화를 봤다"]) == [peer.processor.encode("영화를 봤다")]


@pytest.mark.parametrize("gold", ["kiwi", "mecab"])
def test_training_only_rows_are_graded_by_their_own_analyzer(real_texts, gold):
    """A ``<gold>-train`` row and its SentencePiece peer learnt their merges from the gold analyzer's
    morphemes, so their morph F1 is graded by their own ruler (self_graded, ‡) as the rows that run
    it at encode time, whichever pre-tokenizer encodes them; the other analyzer's rows and
    whitespace BPE are not.  Before, only the analyzer-at-encode rows were marked."""
    from korean_bpe.compare import compare

    other = "mecab" if gold == "kiwi" else "kiwi"
    names = [f"{gold}-train/syllable", f"sentencepiece-bpe/{gold}-train", f"{other}-train/syllable",
             f"{gold}/syllable", "whitespace/syllable"]
    table = compare(real_texts[:300], eval_texts=real_texts[300:340], strategies=names, vocab_sizes=[1200],
                    gold=gold, show_progress=False, model_cache=False).table.set_index("strategy")
    assert table.loc[names, "self_graded"].tolist() == [True, True, False, True, False]
    assert table.loc[f"{gold}-train/syllable", "pre_tokenizer"] == "raw"


# --- MoB ------------------------------------------------------------------------------------------


def test_mob_marks_a_known_analysis():
    """MeCab: 아이언맨 + 은, 최고 + 의, 영화 + 를, 봤 + 다.  ▁ opens each 어절 (the first one's a
    dummy, as raw's), ▂ each morpheme that continues one; a line break starts a new line."""
    from korean_bpe.pre_tokenizers.boundaries import MOB_MARK, mob_pieces

    assert MOB_MARK == "▂"
    mob = get_pre_tokenizer({"type": "mob"})
    text = "아이언맨은 최고의 영화를  봤다\n굿"
    assert mob(text) == ["▁아이언맨", "▂은", "▁최고", "▂의", "▁영화", "▂를", "▁▁봤", "▂다", "\n", "▁굿"]
    assert mob.restore(mob(text)) == text
    assert mob_pieces(["▁", "\n", "▁가"]) == ["▁▁", "\n", "▁▁가"]


def test_mob_training_never_takes_a_morpheme_initial_right_side():
    """'영화를 봤다' five times: words ▁영화, ▂를, ▁봤, ▂다.  Ids: <unk> 0, ▁ 1, ▂ 2, 다 3, 를 4, 봤 5,
    영 6, 화 7.  Pairs of count 5: (▁,봤) (1,5), (▁,영) (1,6), (영,화), (▂,다) (2,3), (▂,를) (2,4):
    by ids (1,5), (1,6), (2,3), (2,4), then (▁영, 화).  The marks merge into their morpheme's
    token; no right side ever starts one."""
    tok = Tokenizer.train(["영화를 봤다"] * 5, vocab_size=100, pre_tokenizer={"type": "mob"})
    assert tok.merges == (("▁", "봤"), ("▁", "영"), ("▂", "다"), ("▂", "를"), ("▁영", "화"))
    assert tok.tokenize("영화를 봤다") == ["▁영화", "▂를", "▁봤", "▂다"]
    assert tok.decode(tok.encode("영화를 봤다")) == "영화를 봤다"
    assert tok.encode_with_offsets("영화를 봤다")[1] == [(0, 2), (2, 3), (3, 5), (5, 6)]  # ▁: the space, as raw


@pytest.mark.parametrize("engine", ["reference", "python"])
def test_mob_and_cut_words_train_alike_in_every_engine(engine, real_texts):
    """The reference trainer and the fast ones learn the same merges from MoB's words and from
    words cut at morpheme boundaries (pieces that are words of their own)."""
    from korean_bpe.trainer import train_bpe

    texts = real_texts[:300]
    for pt in ({"type": "mob"}, {"type": "morpheme_boundaries", "analyzer": "mecab"}):
        counts = WordCounts.from_texts(texts, pre_tokenizer=pt)
        words = split_words(dict(counts.items()), get_unit("jamo"), marker=None)
        fast = train_bpe(words, vocab_size=400, engine="auto")
        assert train_bpe(words, vocab_size=400, engine=engine).merges == fast.merges
        assert not any(b.startswith("▂") for _, b in fast.merges)


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_mob_decode_is_exact(unit, real_texts):
    texts = real_texts[:300]
    tok = Tokenizer.train(texts, vocab_size=1200, unit=unit, pre_tokenizer={"type": "mob", "analyzer": "kiwi"})
    assert tok.decode_batch(tok.encode_batch(texts)) == [t.replace("\u2581", " ") for t in texts]


def test_compare_mob_rows_read_the_analysis_of_their_analyzer_once(real_texts, monkeypatch, tmp_path):
    """mob/<unit> and mecab/<unit> in one comparison: MeCab analyses the texts once (a spy on its
    batch), and the mob rows are the public API's MoB tokenizer."""
    from korean_bpe.compare import compare
    from korean_bpe.pre_tokenizers.mecab import MecabPreTokenizer

    calls = []
    real_batch = MecabPreTokenizer.batch

    def spy(self, texts, **kw):
        texts = list(texts)
        calls.append(texts)
        return real_batch(self, texts, **kw)

    monkeypatch.setattr(MecabPreTokenizer, "batch", spy)
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))  # an empty analysis cache: MeCab must run
    train, test = real_texts[:400], real_texts[400:500]
    result = compare(train, eval_texts=test, strategies=["mecab/syllable", "mob/syllable"], vocab_sizes=[1200],
                     gold=None, show_progress=False, model_cache=False, keep_segmenters=True)
    assert list(result.table["strategy"]) == ["mecab/syllable", "mob/syllable"]
    assert sum(train[0] in texts for texts in calls) == 1  # the one analysis of the training texts
    ours = result.segmenters[("mob/syllable", 1200)].tokenizer
    assert ours.model == Tokenizer.train(train, vocab_size=1200, pre_tokenizer={"type": "mob"}).model


def test_the_peer_names_are_the_strategy_names():
    from korean_bpe.compare.peers import TRAIN_ONLY_PEERS
    from korean_bpe.compare.strategies import MORE_STRATEGIES, TRAIN_ONLY

    assert set(TRAIN_ONLY_PEERS) == {n for n in MORE_STRATEGIES if n.startswith("sentencepiece-bpe/")}
    assert {n.split("/")[1] for n in TRAIN_ONLY_PEERS} == set(TRAIN_ONLY)


@pytest.mark.parametrize("marker", [None, "▁", "</w>", "##"])
@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_split_words_of_cut_words_is_cut_symbols_word_by_word(marker, unit):
    """The grouped (compiled) split of cut words gives the counts of cut_symbols word by word."""
    words = {f"▁영화{CUT}를": 3, f"재밌{CUT}다{CUT}!": 2, "최고": 4, f"영화{CUT}다": 1, f"{CUT}다": 1, "다": 2}
    if marker is not None:
        words = {w.replace("▁", ""): n for w, n in words.items()}
    u, m = get_unit(unit), get_marker(marker)
    expected: dict = {}
    for word, count in words.items():
        for key in cut_symbols(word, u, m):
            expected[key] = expected.get(key, 0) + count
    assert dict(split_words(words, u, marker=m).items()) == expected
