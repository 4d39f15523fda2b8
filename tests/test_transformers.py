"""korean_bpe.hf.KoreanBPETokenizerFast: a transformers tokenizer that runs our analyzers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
np = pytest.importorskip("numpy")

from korean_bpe import Tokenizer  # noqa: E402
from korean_bpe.corpus import iter_texts  # noqa: E402
from korean_bpe.hf import MODEL_SUBDIR, KoreanBPETokenizerFast  # noqa: E402

from _reviews import MOVIE_REVIEWS  # noqa: E402  (tests/_reviews.py)
from _sizes import sized  # noqa: E402

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
@pytest.mark.sampled
@pytest.mark.parametrize("pre_tokenizer", PIPELINES)
def test_same_ids_as_korean_bpe_on_nsmc_reviews(pre_tokenizer: dict[str, object], nsmc: Path) -> None:
    """Trained on 2,000 reviews, ids, offsets and alignment on the first 600 test reviews (3,000 and
    2,000 with KOREAN_BPE_FULL_TESTS=1)."""
    _needs(str(pre_tokenizer["type"]))
    if pre_tokenizer["lossless"]:
        pre_tokenizer = {**pre_tokenizer, "drop": []}
    train = list(iter_texts(nsmc / "ratings_train.txt", limit=sized(2000, 3000)))
    test = list(iter_texts(nsmc / "ratings_test.txt", limit=sized(600, 2000)))
    kb = Tokenizer.train(train, vocab_size=3000, pre_tokenizer=pre_tokenizer)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    out = tok(test, return_offsets_mapping=True)
    assert out["input_ids"] == kb.encode_batch(test)
    for k, text in enumerate(test):  # offsets = encode_with_offsets; alignment methods agree with them
        _check_alignment(out, kb, text, k)


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


def test_a_batch_is_worked_out_in_the_calling_thread(kiwi_tok: KoreanBPETokenizerFast,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # the fast tokenizer calls the carrier from its own threads (rayon): our tokens and spans are
    # worked out before, in the calling thread, once per distinct text, not there, under the GIL
    import threading

    from korean_bpe import hf

    seen: list[tuple[str, str]] = []
    original = hf._carried_words

    def recording(kb: Tokenizer, text: str) -> list:
        seen.append((threading.current_thread().name, text))
        return original(kb, text)

    monkeypatch.setattr(hf, "_carried_words", recording)
    texts = REVIEWS[:40] * 2 + ["영화 \ud800 재밌다"]  # each text twice, and a lone surrogate
    batch = kiwi_tok(texts, padding=True, return_offsets_mapping=True)
    assert {name for name, _ in seen} == {threading.current_thread().name}
    assert sorted(t for _, t in seen) == sorted(set(texts))
    kb = kiwi_tok.korean_bpe
    for k in (0, 40, len(texts) - 1):
        ids, offsets = kb.encode_with_offsets(texts[k], disallowed_special=())
        n = len(ids)
        assert batch["input_ids"][k][:n] == ids and [tuple(o) for o in batch["offset_mapping"][k][:n]] == offsets


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


def _check_alignment(enc, kb: Tokenizer, text: str, batch_index: int = 0) -> None:
    """transformers' alignment methods on one encoded text agree with encode_with_offsets."""
    ids, offsets = kb.encode_with_offsets(text, disallowed_special=())
    assert enc["input_ids"][batch_index] == ids
    assert [tuple(o) for o in enc["offset_mapping"][batch_index]] == offsets
    assert [tuple(enc.token_to_chars(batch_index, i)) for i in range(len(ids))] == offsets
    words = enc.word_ids(batch_index)
    for w in set(words):
        tokens = [i for i, x in enumerate(words) if x == w]
        span = enc.word_to_chars(batch_index, w)
        assert (span.start, span.end) == (min(offsets[i][0] for i in tokens), max(offsets[i][1] for i in tokens))
    first: dict[int, int] = {}  # character -> the first token whose span covers it
    for i, (a, b) in enumerate(offsets):
        for c in range(a, b):
            first.setdefault(c, i)
    for c in range(len(text)):
        assert enc.char_to_token(batch_index, c) == first.get(c), (text, c)


OFFSET_TEXTS = ["영화 정말 재밌어요", "  정말 최고의   영화\n또 보고 싶다 ", "스파이더맨 봤는데 쩔어 ㅠㅠ 🎬", ""]


@pytest.mark.parametrize("pre_tokenizer", [*PIPELINES, "whitespace", "raw"])
def test_offsets_and_alignment_are_encode_with_offsets(pre_tokenizer) -> None:
    """Item 1-2 of issue 22: return_offsets_mapping and token_to_chars / char_to_token /
    word_to_chars in the text, as Tokenizer.encode_with_offsets gives them (old: refused with an
    analyzer, and spans inside each analysed word: token_to_chars [(0,2),(0,3),(0,3),(0,2)])."""
    if isinstance(pre_tokenizer, dict):
        _needs(str(pre_tokenizer["type"]))
    kb = Tokenizer.train(REVIEWS, vocab_size=120, pre_tokenizer=pre_tokenizer)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    enc = tok(OFFSET_TEXTS, return_offsets_mapping=True)
    for k, text in enumerate(OFFSET_TEXTS):
        _check_alignment(enc, kb, text, k)
    one = tok(OFFSET_TEXTS[0], return_offsets_mapping=True)
    assert one["offset_mapping"] == kb.encode_with_offsets(OFFSET_TEXTS[0])[1]


@pytest.mark.parametrize("unit", ["jamo", "byte"])
def test_offsets_of_the_other_units(unit: str) -> None:
    pytest.importorskip("kiwipiepy")
    kb = Tokenizer.train(REVIEWS, vocab_size=300, pre_tokenizer="kiwi", unit=unit)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    texts = [*REVIEWS[:6], "영화관 최고!! 🎬"]
    enc = tok(texts, return_offsets_mapping=True)
    for k, text in enumerate(texts):
        _check_alignment(enc, kb, text, k)


def test_offsets_survive_pairs_truncation_padding_and_added_tokens(kiwi_tok: KoreanBPETokenizerFast) -> None:
    tok = KoreanBPETokenizerFast.from_korean_bpe(kiwi_tok.korean_bpe, pad_token="<pad>")
    kb = tok.korean_bpe
    tok.add_tokens(["[MASK]"], special_tokens=True)
    text, pair = "정말 [MASK] 최고의 영화 또 보고 싶다", "영화 진짜 재밌어요"
    enc = tok(text, pair, return_offsets_mapping=True)
    first, second = kb.encode_with_offsets("정말 "), kb.encode_with_offsets(" 최고의 영화 또 보고 싶다")
    shifted = [(a + 9, b + 9) for a, b in second[1]]  # " 최고의..." starts after "정말 [MASK]"
    assert enc["offset_mapping"] == first[1] + [(3, 9)] + shifted + kb.encode_with_offsets(pair)[1]
    assert enc.sequence_ids() == [0] * (len(first[0]) + 1 + len(second[0])) + [1] * len(kb.encode(pair))
    assert enc.char_to_token(4) == len(first[0]) and enc.char_to_token(0, sequence_index=1) == len(enc["input_ids"]) - len(kb.encode(pair))
    full = kb.encode_with_offsets(REVIEWS[4])
    out = tok(REVIEWS[4], truncation=True, max_length=4, stride=1, return_overflowing_tokens=True,
              return_offsets_mapping=True)
    for w, window in enumerate(out["offset_mapping"]):  # every window: a slice of the full spans
        start = w * 3
        assert window == full[1][start:start + 4] and out["input_ids"][w] == full[0][start:start + 4]
        assert [tuple(out.token_to_chars(w, i)) for i in range(len(window))] == window
    padded = tok(["영화", REVIEWS[4]], padding=True, return_offsets_mapping=True)
    assert padded["offset_mapping"][0][len(kb.encode("영화")):] == [(0, 0)] * (len(full[0]) - len(kb.encode("영화")))


def test_okt_norm_gives_its_ids_without_offsets() -> None:
    """Okt with norm=True rewrites words ("안녕하세욬" -> "안녕하세요"): no span in the text to give,
    so each token spans the whole text, and the ids are still Tokenizer.encode's."""
    _needs("okt")
    kb = Tokenizer.train(REVIEWS, vocab_size=120, pre_tokenizer={"type": "okt", "norm": True})
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    text = "안녕하세욬ㅋㅋ 영화 최고"
    with pytest.raises(ValueError, match="not the text from offset"):
        kb.encode_with_offsets(text)
    out = tok(text, return_offsets_mapping=True)
    assert out["input_ids"] == kb.encode(text)
    assert set(out["offset_mapping"]) == {(0, len(text))}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """Every name lookup and connection fails at once, and is recorded (a fault injected: the Hub
    client would otherwise retry for minutes where there is no network)."""
    import socket

    tried: list[tuple[object, ...]] = []

    def refuse(*args: object, **kwargs: object) -> None:
        tried.append(args)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    return tried


@pytest.mark.parametrize("name", ["./my-modle/", "my-modle/", "../models/my-modle", "models/v2/my-modle", "~/my-modle"])
def test_from_pretrained_on_a_missing_local_folder_fails_at_once(name: str, tmp_path: Path, no_network: list,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 43: a mistyped folder spent 257 s retrying the Hub, then said the repo id was malformed."""
    import time

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    start = time.perf_counter()
    with pytest.raises(FileNotFoundError) as info:
        KoreanBPETokenizerFast.from_pretrained(name)
    assert time.perf_counter() - start < 0.5
    message = str(info.value)
    assert message.startswith(f"no such folder: {name!r} (") and "save_pretrained(dir)" in message
    assert "export-hf -m model/ -o dir/" in message and "Repo id" not in message
    assert no_network == []
    with pytest.raises(FileNotFoundError, match="no such folder"):
        KoreanBPETokenizerFast.from_pretrained(tmp_path / "my-modle")  # a Path: always a folder of this machine


def test_from_pretrained_names_the_folder_it_meant_and_loads_with_a_tilde(tmp_path: Path, no_network: list,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("kiwipiepy")
    kb = Tokenizer.train(REVIEWS, vocab_size=60, pre_tokenizer="kiwi")
    KoreanBPETokenizerFast.from_korean_bpe(kb).save_pretrained(tmp_path / "my-model")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"no such folder: './my-modle/' .*did you mean './my-model'\?"):
        KoreanBPETokenizerFast.from_pretrained("./my-modle/")
    back = KoreanBPETokenizerFast.from_pretrained("~/my-model")  # transformers alone would ask the Hub for '~/my-model'
    assert back("영화 정말 재밌다")["input_ids"] == kb.encode("영화 정말 재밌다")
    assert no_network == []


def test_from_pretrained_offline_refuses_a_name_neither_here_nor_cached(tmp_path: Path, no_network: list,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, a bare name that is no folder and not in the Hub cache: said so, not transformers'
    "needs a korean_bpe model" (which the class raised when transformers found nothing)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match=r"^no such folder: 'my-modle' \(offline .*not in the Hub cache"):
        KoreanBPETokenizerFast.from_pretrained("my-modle", cache_dir=str(tmp_path / "hub"))
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with pytest.raises(FileNotFoundError, match="offline"):
        KoreanBPETokenizerFast.from_pretrained("my-org/my-modle", local_files_only=True, cache_dir=str(tmp_path / "hub"))
    assert no_network == []


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


# --- issue 22, items 3-8: each test fails on the wrapper before it -----------------------------------


def test_save_after_load_keeps_the_vocabulary_out_of_tokenizer_config(kiwi_tok: KoreanBPETokenizerFast,
                                                                        tmp_path: Path) -> None:
    """transformers 5 hands from_pretrained's vocab= and merges= to a class with its own __init__;
    they used to land in tokenizer_config.json at the next save (164 KB at 8,000 tokens)."""
    fresh = KoreanBPETokenizerFast.from_korean_bpe(kiwi_tok.korean_bpe, pad_token="<pad>")  # no truncation left set
    fresh.save_pretrained(tmp_path / "a")
    KoreanBPETokenizerFast.from_pretrained(tmp_path / "a").save_pretrained(tmp_path / "b")
    first, again = (json.loads((tmp_path / d / "tokenizer_config.json").read_text(encoding="utf-8")) for d in "ab")
    assert "vocab" not in again and "merges" not in again
    loaded = {"is_local", "local_files_only"}  # transformers' own, written after any from_pretrained
    assert {k: v for k, v in again.items() if k not in loaded} == first


def test_decode_refuses_negative_ids(kiwi_tok: KoreanBPETokenizerFast) -> None:
    """A -1 in the ids used to end decode there: decode([a, -1, b, c]) gave a's text alone."""
    ids = kiwi_tok.korean_bpe.encode("영화 정말 최고")
    for bad in (-1, -2):
        with pytest.raises(ValueError, match=rf"id {bad} is neither a model id"):
            kiwi_tok.decode([ids[0], bad, *ids[1:]])


def test_added_token_with_a_model_tokens_text_keeps_its_spaces() -> None:
    """add_tokens of a string already in the vocabulary keeps the model id (HF's rule); decode used
    to glue it into the run of model ids around it ('영화이언맨은 최고')."""
    kb = Tokenizer.train(REVIEWS, vocab_size=120)
    assert "이언맨은" in kb.vocab  # a token inside a word (no ▁)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    assert tok.add_tokens(["이언맨은"]) == 1 and tok.convert_tokens_to_ids("이언맨은") == kb.vocab["이언맨은"]  # HF counts it, its id stays
    ids = tok("영화 이언맨은 최고")["input_ids"]
    assert ids == [*kb.encode("영화"), kb.vocab["이언맨은"], *kb.encode("최고")]
    assert tok.decode(ids) == "영화 이언맨은 최고"


@pytest.mark.parametrize("unit,byte_fallback", [("syllable", False), ("syllable", True), ("byte", False)])
def test_lone_surrogates_get_our_ids(unit: str, byte_fallback: bool) -> None:
    """A lone surrogate cannot reach Rust: it used to end in TypeError: TextEncodeInput must be ...
    Now the ids and offsets are ours (<unk>, its byte tokens ED A0 80, or byte symbols)."""
    kb = Tokenizer.train(REVIEWS, vocab_size=400, unit=unit, byte_fallback=byte_fallback,
                         pre_tokenizer={"type": "raw", "split_by_whitespace": True})
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    texts = ["영화\ud800 최고", "\udfff", "정말 \ud83d\ude09 재밌다"]  # the last: two lone halves, not an emoji
    out = tok(texts, return_offsets_mapping=True)
    for k, text in enumerate(texts):
        _check_alignment(out, kb, text, k)
    if byte_fallback or unit == "byte":
        assert [tok.decode(ids) for ids in out["input_ids"]] == texts
    with pytest.raises(ValueError, match="U\\+F0000..U\\+F07FF that stands in for them"):
        tok(["영화\ud800", "\U000f0000"])
    with pytest.raises(ValueError, match="a pre-split word holds a lone surrogate"):
        tok(["영화", "\ud800"], is_split_into_words=True)


def test_a_damaged_tokenizer_json_is_named(kiwi_tok: KoreanBPETokenizerFast, tmp_path: Path) -> None:
    """A truncated tokenizer.json used to give a bare JSONDecodeError naming no file."""
    kiwi_tok.save_pretrained(tmp_path)
    path = tmp_path / "tokenizer.json"
    path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{path}: not a valid tokenizer.json .*save the tokenizer again"):
        KoreanBPETokenizerFast.from_pretrained(tmp_path)
    # through AutoTokenizer (transformers hands the file to the Rust parser there: another error type)
    with pytest.raises(ValueError, match=rf"{path}: not a valid tokenizer.json .*save the tokenizer again"):
        transformers.AutoTokenizer.from_pretrained(tmp_path, trust_remote_code=True)
    # a damaged file that is not tokenizer.json keeps transformers' own error
    kiwi_tok.save_pretrained(tmp_path)
    (tmp_path / "tokenizer_config.json").write_text("{", encoding="utf-8")
    with pytest.raises(json.JSONDecodeError):
        KoreanBPETokenizerFast.from_pretrained(tmp_path)


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "kiwi"])
def test_hangul_fallback_is_applied(pre_tokenizer: str) -> None:
    """An unseen syllable: jamo tokens, as Tokenizer.encode gives them (used to be <unk>)."""
    if pre_tokenizer == "kiwi":
        _needs("kiwi")
    kb = Tokenizer.train(REVIEWS, vocab_size=200, pre_tokenizer=pre_tokenizer, hangul_fallback=True)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb)
    texts = ["영화관 최고", "넷플릭스 영화 봤다"]
    out = tok(texts, return_offsets_mapping=True)
    assert kb.unk_token not in tok.convert_ids_to_tokens(out["input_ids"][0])
    for k, text in enumerate(texts):
        _check_alignment(out, kb, text, k)
    assert tok.batch_decode(out["input_ids"]) == kb.decode_batch(out["input_ids"])


@pytest.mark.parametrize("pre_tokenizer", [{"type": "kiwi", "lossless": True}, {"type": "okt"}])
def test_train_new_from_iterator_keeps_the_pipeline(pre_tokenizer: dict[str, object]) -> None:
    """transformers rebuilt the object from init_kwargs and crashed ("needs a korean_bpe model")."""
    _needs(str(pre_tokenizer["type"]))
    kb = Tokenizer.train(REVIEWS, vocab_size=120, pre_tokenizer=pre_tokenizer, special_tokens=("<unk>", "<pad>"),
                         hangul_fallback=True)
    tok = KoreanBPETokenizerFast.from_korean_bpe(kb, pad_token="<pad>", model_max_length=64)
    batches = [REVIEWS[:6], REVIEWS[6:]]
    new = tok.train_new_from_iterator(iter(batches), 110, new_special_tokens=["[MASK]"],
                                      special_tokens_map={"<pad>": "[PAD]"})
    assert type(new) is KoreanBPETokenizerFast and new.model_max_length == 64
    same = Tokenizer.train(REVIEWS, vocab_size=110, pre_tokenizer=pre_tokenizer, hangul_fallback=True,
                           special_tokens=("<unk>", "[PAD]", "[MASK]"))
    assert new.korean_bpe.id_to_token == same.id_to_token and new.korean_bpe.pre_tokenizer == kb.pre_tokenizer
    assert (new.pad_token, new.pad_token_id) == ("[PAD]", same.vocab["[PAD]"])
    assert new(REVIEWS[:6])["input_ids"] == same.encode_batch(REVIEWS[:6])


def test_train_new_from_iterator_refuses_rows_that_are_not_texts(kiwi_tok: KoreanBPETokenizerFast) -> None:
    """Dataset rows (dicts) trained on their keys ("text"), ints gave a bare "'int' object is not
    iterable": texts or lists/tuples of texts only, anything else a TypeError naming the item."""
    with pytest.raises(TypeError, match=r"text_iterator item 0 is a dict \(\{'text': '영화 정말'\}\), not a text"):
        kiwi_tok.train_new_from_iterator([{"text": "영화 정말"}], 60)
    with pytest.raises(TypeError, match=r"text_iterator item 2 is a int \(7\)"):
        kiwi_tok.train_new_from_iterator(iter(["영화 정말", ("재밌다",), 7]), 60)
    with pytest.raises(TypeError, match=r"item 0 is a list \(\['영화', 3\]\)"):
        kiwi_tok.train_new_from_iterator([["영화", 3]], 60)
    texts = ["영화 정말 재밌어요", "배우 연기가 좋아요", "영화가 좋아요"]
    new = kiwi_tok.train_new_from_iterator([(texts[0],), [texts[1]], texts[2]], 60)
    assert new.korean_bpe.id_to_token == kiwi_tok.train_new_from_iterator(texts, 60).korean_bpe.id_to_token


def test_an_analyzer_model_is_exported_as_the_folder_that_runs_it(tmp_path: Path) -> None:
    """An analyzer model's stock export gave other ids than ours on text, with no warning (HF
    cannot run the analysis).  The library refuses it with the fix; export-hf -o DIR/ writes the
    KoreanBPETokenizerFast folder and says how to load it, and both ways it names give our ids."""
    from transformers import AutoTokenizer

    from korean_bpe.cli import main

    pytest.importorskip("mecab")
    kb = Tokenizer.train(REVIEWS, vocab_size=120, pre_tokenizer="mecab", special_tokens=("<unk>", "<pad>"))
    model = kb.save(tmp_path / "model")
    for write in (lambda: kb.to_huggingface(tmp_path / "t.json"), lambda: kb.to_huggingface(f"{tmp_path}/f/")):
        with pytest.raises(ValueError, match=r"no Hugging Face client can run.*KoreanBPETokenizerFast.from_korean_bpe"):
            write()
    assert not (tmp_path / "t.json").exists() and not (tmp_path / "f").exists()
    assert main(["export-hf", "-m", str(model), "-o", str(tmp_path / "t.json")]) == 1
    out = f"{tmp_path}/hf/"
    assert main(["export-hf", "-m", str(model), "-o", out]) == 0
    texts = [*MOVIE_REVIEWS, "스파이더맨 파프롬홈은 MCU 최고의 영화이다"]
    ours = kb.encode_batch(texts)
    for loaded in (KoreanBPETokenizerFast.from_pretrained(out), AutoTokenizer.from_pretrained(out, trust_remote_code=True)):
        assert type(loaded).__name__ == "KoreanBPETokenizerFast" and loaded.pad_token == "<pad>"
        assert loaded(texts)["input_ids"] == ours
        assert [loaded.decode(x) for x in ours] == kb.decode_batch(ours)
    # the file for analysed words, on request: our ids for our words
    import tokenizers

    hf = tokenizers.Tokenizer.from_file(str(kb.to_huggingface(tmp_path / "words.json", pretokenized=True)))
    assert [hf.encode(kb.pre_tokenizer(t), is_pretokenized=True).ids for t in texts] == ours


def test_a_stock_export_onto_a_save_pretrained_folder_is_refused(kiwi_tok: KoreanBPETokenizerFast,
                                                                  tmp_path: Path) -> None:
    """export-hf -o onto a save_pretrained folder replaced its tokenizer.json and tokenizer_config.json
    (its model sits in korean_bpe/, out of the model-directory guard's sight)."""
    from korean_bpe.cli import main

    folder = tmp_path / "wrapped"
    kiwi_tok.save_pretrained(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    stock = Tokenizer.train(REVIEWS, vocab_size=60)
    model = stock.save(tmp_path / "stock")
    for out in (folder, f"{folder}/"):
        with pytest.raises(ValueError, match="is a KoreanBPETokenizerFast folder"):
            stock.to_huggingface(out)
        assert main(["export-hf", "-m", str(model), "-o", str(out)]) == 1
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
