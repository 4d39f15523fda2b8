"""korean_bpe.hf.KoreanBPETokenizerFast: a transformers tokenizer that runs our analyzers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")
np = pytest.importorskip("numpy")

from korean_bpe import Tokenizer  # noqa: E402
from korean_bpe.corpus import iter_texts  # noqa: E402
from korean_bpe.hf import MODEL_SUBDIR, KoreanBPETokenizerFast  # noqa: E402

from _reviews import MOVIE_REVIEWS  # noqa: E402  (tests/_reviews.py)

REVIEWS = list(MOVIE_REVIEWS) * 4

PIPELINES = [
    pytest.param({"type": name, "lossless": lossless}, id=f"{name}-{'lossless' if lossless else 'analysis'}")
    for name in ("okt", "kiwi", "mecab") for lossless in (False, True)
]


def _needs(name: str) -> None:
    if name == "kiwi":
        pytest.importorskip("kiwipiepy")
    elif name == "mecab":
        pytest.importorskip("mecab")
    else:
        pytest.importorskip("konlpy")


@pytest.fixture(scope="module")
def embedded() -> list[str]:
    """Real text, always here: the konlpy corpus (law), a few documents with their line breaks
    and some hundred single lines."""
    docs = list(iter_texts(None))
    lines = [line for doc in docs for line in doc.splitlines() if line.strip()]
    return docs[:3] + lines[:300]


@pytest.fixture(scope="module")
def kiwi_tok() -> KoreanBPETokenizerFast:
    pytest.importorskip("kiwipiepy")
    kb = Tokenizer.train(REVIEWS, vocab_size=120, pre_tokenizer="kiwi", special_tokens=("<unk>", "<pad>"))
    return KoreanBPETokenizerFast.from_korean_bpe(kb, pad_token="<pad>")


@pytest.mark.parametrize("pre_tokenizer", PIPELINES)
def test_same_ids_as_korean_bpe_on_the_embedded_corpus(pre_tokenizer: dict[str, object], embedded: list[str]) -> None:
    _needs(str(pre_tokenizer["type"]))
    if pre_tokenizer["lossless"]:
        pre_tokenizer = {**pre_tokenizer, "drop": []}
    kb = Tokenizer.train(embedded[3:200], vocab_size=1500, pre_tokenizer=pre_tokenizer)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    texts = embedded + REVIEWS[:6]  # unseen law lines, three whole documents, reviews full of <unk>
    ours = kb.encode_batch(texts)
    assert tok(texts)["input_ids"] == ours
    assert [tok(t)["input_ids"] for t in texts[:20]] == ours[:20]  # one text at a time too
    assert [tok.decode(ids) for ids in ours[:50]] == [kb.decode(ids) for ids in ours[:50]]
    if pre_tokenizer["lossless"]:
        assert tok.decode(ours[0]) == kb.decode(ours[0])


@pytest.mark.nsmc
@pytest.mark.parametrize("pre_tokenizer", PIPELINES)
def test_same_ids_as_korean_bpe_on_nsmc_reviews(pre_tokenizer: dict[str, object], nsmc: Path) -> None:
    _needs(str(pre_tokenizer["type"]))
    if pre_tokenizer["lossless"]:
        pre_tokenizer = {**pre_tokenizer, "drop": []}
    train = list(iter_texts(nsmc / "ratings_train.txt", limit=3000))
    test = list(iter_texts(nsmc / "ratings_test.txt", limit=2000))
    kb = Tokenizer.train(train, vocab_size=3000, pre_tokenizer=pre_tokenizer)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    assert tok(test)["input_ids"] == kb.encode_batch(test)


@pytest.mark.parametrize("unit", ["jamo", "byte"])
def test_other_units_give_the_same_ids(unit: str) -> None:
    pytest.importorskip("kiwipiepy")
    kb = Tokenizer.train(REVIEWS, vocab_size=400, pre_tokenizer="kiwi", unit=unit)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    texts = [*REVIEWS[:6], "영화관 최고!! 🎬"]
    assert tok(texts)["input_ids"] == kb.encode_batch(texts)
    assert [tok.decode(ids) for ids in kb.encode_batch(texts)] == [kb.decode(ids) for ids in kb.encode_batch(texts)]


def test_padding_truncation_and_masks(kiwi_tok: KoreanBPETokenizerFast) -> None:
    kb = kiwi_tok.korean_bpe
    texts = ["영화 최고", "정말 최고의 영화 또 보고 싶다"]
    a, b = kb.encode_batch(texts)
    pad = kb.token_to_id("<pad>")
    assert kiwi_tok.pad_token_id == pad
    out = kiwi_tok(texts, padding=True)
    assert out["input_ids"] == [a + [pad] * (len(b) - len(a)), b]
    assert out["attention_mask"] == [[1] * len(a) + [0] * (len(b) - len(a)), [1] * len(b)]
    left = kiwi_tok(texts, padding=True, padding_side="left")
    assert left["input_ids"][0] == [pad] * (len(b) - len(a)) + a
    assert left["attention_mask"][0] == [0] * (len(b) - len(a)) + [1] * len(a)
    cut = kiwi_tok(texts, truncation=True, max_length=3, padding="max_length")
    assert cut["input_ids"] == [(a + [pad] * 3)[:3], b[:3]]
    assert cut["attention_mask"][1] == [1, 1, 1]
    arrays = kiwi_tok(texts, padding="max_length", max_length=12, return_tensors="np")
    assert arrays["input_ids"].shape == (2, 12) and arrays["input_ids"].dtype == np.int64
    assert arrays["attention_mask"].sum(axis=1).tolist() == [len(a), len(b)]
    assert kiwi_tok.batch_decode(arrays["input_ids"], skip_special_tokens=True) == [kb.decode(a), kb.decode(b)]


def test_return_tensors_pt_where_torch_is_installed(kiwi_tok: KoreanBPETokenizerFast) -> None:
    torch = pytest.importorskip("torch")
    out = kiwi_tok(["영화 최고", "정말 재밌다"], padding=True, return_tensors="pt")
    assert isinstance(out["input_ids"], torch.Tensor)


def test_pairs_and_pre_analysed_words(kiwi_tok: KoreanBPETokenizerFast) -> None:
    kb = kiwi_tok.korean_bpe
    out = kiwi_tok("영화 최고", "정말 재밌다")
    assert out["input_ids"] == kb.encode("영화 최고") + kb.encode("정말 재밌다")
    batch = kiwi_tok([("영화 최고", "정말 재밌다"), ("최고", "영화")])["input_ids"]
    assert batch == [out["input_ids"], kb.encode("최고") + kb.encode("영화")]
    assert kiwi_tok(["영화 최고", "최고"], ["정말 재밌다", "영화"])["input_ids"] == batch
    assert kiwi_tok.encode("영화 최고") == kb.encode("영화 최고")
    assert kiwi_tok.tokenize("영화 최고") == kb.tokenize("영화 최고")
    words = kb.pre_tokenizer("정말 재밌다")
    assert kiwi_tok(words, is_split_into_words=True)["input_ids"] == kb.encode("정말 재밌다")
    assert kiwi_tok("")["input_ids"] == [] and kiwi_tok(["", "영화"])["input_ids"] == [[], kb.encode("영화")]


def test_save_and_load_keep_the_korean_bpe_model(kiwi_tok: KoreanBPETokenizerFast, tmp_path: Path) -> None:
    kiwi_tok.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "KoreanBPETokenizer"  # transformers drops "Fast"
    assert config["pad_token"] == "<pad>"
    assert not any(k.startswith("korean_bpe_") for k in config)  # file paths are not stored
    ours = json.loads((tmp_path / MODEL_SUBDIR / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert ours["pre_tokenizer"]["type"] == "kiwi"
    back = KoreanBPETokenizerFast.from_pretrained(tmp_path)
    assert isinstance(back, KoreanBPETokenizerFast)
    assert back.korean_bpe.id_to_token == kiwi_tok.korean_bpe.id_to_token
    assert back(REVIEWS[:6], padding=True)["input_ids"] == kiwi_tok(REVIEWS[:6], padding=True)["input_ids"]
    assert back.pad_token_id == kiwi_tok.pad_token_id
    # AutoTokenizer, from the directory alone: auto_map names the one-line module that imports our class
    from transformers import AutoTokenizer

    assert config["auto_map"] == {"AutoTokenizer": [None, "tokenization_korean_bpe.KoreanBPETokenizerFast"]}
    auto = AutoTokenizer.from_pretrained(tmp_path, trust_remote_code=True)
    assert type(auto).__name__ == "KoreanBPETokenizerFast" and auto.korean_bpe.id_to_token == back.korean_bpe.id_to_token
    assert auto(REVIEWS[:6])["input_ids"] == kiwi_tok.korean_bpe.encode_batch(REVIEWS[:6])
    auto.save_pretrained(tmp_path / "again")  # and saves again without copying korean_bpe's source
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == [
        "korean_bpe", "tokenization_korean_bpe.py", "tokenizer.json", "tokenizer_config.json"]


def test_add_tokens_keeps_the_analyzer_for_the_rest(kiwi_tok: KoreanBPETokenizerFast, tmp_path: Path) -> None:
    tok = KoreanBPETokenizerFast.from_korean_bpe(kiwi_tok.korean_bpe, pad_token="<pad>")
    kb = tok.korean_bpe
    assert tok.add_tokens(["넷플릭스"]) == 1
    assert tok.add_tokens(["[MASK]"], special_tokens=True) == 1
    net, mask = tok.convert_tokens_to_ids(["넷플릭스", "[MASK]"])
    assert (net, mask) == (kb.vocab_size, kb.vocab_size + 1)  # after the model's ids, none moved
    ids = tok("넷플릭스영화 정말 [MASK] 최고")["input_ids"]
    assert ids == [net, *kb.encode("영화 정말 "), mask, *kb.encode(" 최고")]
    assert tok.decode(ids) == " ".join(["넷플릭스", kb.decode(kb.encode("영화 정말 ")), "[MASK]", kb.decode(kb.encode("최고"))])
    assert "[MASK]" not in tok.decode(ids, skip_special_tokens=True)
    tok.save_pretrained(tmp_path)
    back = KoreanBPETokenizerFast.from_pretrained(tmp_path)
    assert back("넷플릭스영화 정말 [MASK] 최고")["input_ids"] == ids


def test_overflowing_tokens_with_stride(kiwi_tok: KoreanBPETokenizerFast) -> None:
    kb = kiwi_tok.korean_bpe
    texts = ["정말 최고의 영화 또 보고 싶다 영화 진짜 재밌어요 최고", "영화 최고"]
    full = kb.encode(texts[0])
    assert len(full) > 12
    out = kiwi_tok(texts, truncation=True, max_length=6, stride=2, return_overflowing_tokens=True)
    windows = [w for w, s in zip(out["input_ids"], out["overflow_to_sample_mapping"]) if s == 0]
    assert all(len(w) <= 6 for w in windows) and len(windows) > 2
    assert all(w[-2:] == v[:2] for w, v in zip(windows, windows[1:]))  # consecutive windows share `stride` ids
    assert windows[0] + [i for w in windows[1:] for i in w[2:]] == full  # and together spell the text
    assert out["overflow_to_sample_mapping"][-1] == 1 and out["input_ids"][-1] == kb.encode(texts[1])


def test_offsets_are_refused_with_an_analyzer_and_exact_without(kiwi_tok: KoreanBPETokenizerFast) -> None:
    with pytest.raises(ValueError, match="return_offsets_mapping=True is not supported with the morpheme pre-tokenizer"):
        kiwi_tok("영화 최고", return_offsets_mapping=True)
    kb = Tokenizer.train(REVIEWS, vocab_size=120)  # whitespace: the pre-tokenizer runs inside tokenizer.json
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    text = "  정말 최고의   영화"
    out = tok(text, return_offsets_mapping=True)
    assert out["input_ids"] == kb.encode(text)
    tokens = kb.tokenize(text)
    # HF's span of a ▁-marked token starts at the space the ▁ stands for (the first word has none)
    assert [text[s:e] for s, e in out["offset_mapping"]] == ["정말", " 최고의", " 영화"]
    assert [text[s:e].strip() for s, e in out["offset_mapping"]] == [t.lstrip("▁") for t in tokens]


def test_a_directory_without_our_model_is_refused_with_the_fix(tmp_path: Path) -> None:
    kb = Tokenizer.train(REVIEWS, vocab_size=60)
    kb.to_huggingface(tmp_path)  # tokenizer.json only: no korean_bpe/ directory
    with pytest.raises(ValueError, match=r"needs a korean_bpe model: KoreanBPETokenizerFast.from_korean_bpe\(tok\)"):
        KoreanBPETokenizerFast.from_pretrained(tmp_path)
    with pytest.raises(TypeError, match="korean_bpe_tokenizer must be a korean_bpe.Tokenizer, got BPEModel"):
        KoreanBPETokenizerFast.from_korean_bpe(kb.model)  # type: ignore[arg-type]
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    with pytest.raises(ValueError, match=r"id 999 is neither a model id \(0\.\.59\)"):
        tok.decode([1, 999])


def test_decode_joins_around_added_tokens_as_the_pieces_keep_spaces() -> None:
    """decode asks pieces_keep_spaces (piece_kind), not the lossless flag: where the two disagree
    (stages written outside the package, tests/test_markers.py's), the runs around an added token
    are joined as the marker checks judge the pieces.  Old: '영화 정말[NEW]재밌다' and
    'movie  [NEW]  정말'."""
    from test_markers import _LowerMarked, _SplitAtSpaces  # tests/test_markers.py

    split = Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20, pre_tokenizer=_SplitAtSpaces())
    assert split.pre_tokenizer.lossless and split.marker == "\u2581"  # lossless, yet its pieces hold no space
    tok = KoreanBPETokenizerFast.from_korean_bpe(split)
    assert tok.add_tokens(["[NEW]"]) == 1
    new = tok.convert_tokens_to_ids("[NEW]")
    assert tok.decode([*split.encode("영화 정말"), new, *split.encode("재밌다")]) == "영화 정말 [NEW] 재밌다"

    lower = Tokenizer.train(["Movie 정말 Movie"] * 3, vocab_size=20, pre_tokenizer=_LowerMarked())
    assert not lower.pre_tokenizer.lossless and lower.marker is None  # not lossless, yet it keeps every space
    tok = KoreanBPETokenizerFast.from_korean_bpe(lower)
    assert tok.add_tokens(["[NEW]"]) == 1
    new = tok.convert_tokens_to_ids("[NEW]")
    assert tok.decode([*lower.encode("Movie "), new, *lower.encode(" 정말")]) == "movie [NEW] 정말"
