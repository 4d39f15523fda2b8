"""The Hugging Face export: ``tokenizers`` and ``transformers`` load it and give our ids, id for id,
on real reviews, for the raw and whitespace pre-tokenizers, every unit and every marker."""

from __future__ import annotations

import json
import unicodedata

import pytest

from korean_bpe import Tokenizer
from korean_bpe.io.hf import PY_WHITESPACE, export_tokenizer_json, hf_token_names, tokenizer_json
from korean_bpe.jamo import decompose
from korean_bpe.trainer import BPEModel

tokenizers = pytest.importorskip("tokenizers")

HARD = [
    "", " ", "ㅋㅋㅋ", "ㅠㅠ", "먹겠습니당!", "😉한국어abc123", "ᄒᆞᆫ글", "감사히 먹겠습니당!",
    "  앞뒤  공백\t탭\n줄바꿈  ", "a\x1cb\u3000c\xa0d\u2028e", "x\n\ny\r\nz", "영화관 ▁ 표시▁ ▁앞",
    "스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함", "제임스웹우주천체망원경",
    "MCU 최고 IMAX 3D!!! 10/10 ^^ ㄹㅇ 돈날림ㅠㅠ", "Café 日本語 けいおん",
]

# (pre-tokenizer, unit, marker or "default", byte_fallback)
CASES = [
    ("whitespace", "syllable", "default", False),
    ("whitespace", "syllable", "default", True),
    ("whitespace", "syllable", "</w>", True),
    ("whitespace", "syllable", "##", False),
    ("whitespace", "jamo", "default", False),
    ("whitespace", "jamo", "default", True),
    ("whitespace", "jamo", "</w>", False),
    ("whitespace", "jamo", "##", True),
    ("whitespace", "byte", "default", False),
    ("whitespace", "byte", "</w>", False),
    ("whitespace", "byte", "##", False),
    ("raw", "syllable", "default", False),
    ("raw", "syllable", "default", True),
    ("raw", "syllable", "</w>", False),
    ("raw", "jamo", "default", False),
    ("raw", "jamo", "##", True),
    ("raw", "byte", "default", False),
    ("raw", "byte", "</w>", False),
    ({"type": "raw", "add_dummy_prefix": False}, "byte", None, False),
    # raw's other cuts: superword (merges cross spaces), no dummy prefix, and the old cut
    ({"type": "raw", "split_by_whitespace": False}, "syllable", "default", True),
    ({"type": "raw", "split_by_whitespace": False}, "byte", "default", False),
    ({"type": "raw", "add_dummy_prefix": False}, "jamo", "default", True),
    ({"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": False}, "syllable", "default", False),
]


def _train(texts, pre, unit, marker, byte_fallback):
    kw = {} if marker == "default" else {"marker": marker}
    size = {"syllable": 3000, "jamo": 1500, "byte": 1200}[unit]
    if marker == "##" and unit != "byte":
        size *= 2  # the alphabet holds every symbol twice, with and without "##"
    return Tokenizer.train(texts, vocab_size=size + (256 if byte_fallback else 0), pre_tokenizer=pre, unit=unit,
                           byte_fallback=byte_fallback, show_progress=False, **kw)


def _nfd_safe(text: str) -> bool:
    """HF's NFD normalizer and our jamo unit agree on this text (see korean_bpe.io.hf)."""
    return unicodedata.normalize("NFD", text) == decompose(text)


@pytest.fixture(scope="module")
def split(real_texts):
    lines = ["\n".join(real_texts[i:i + 4]) for i in range(1500, 1600, 4)]  # a dummy prefix a line
    return real_texts[:1500], real_texts[1500:2000] + HARD + lines


@pytest.mark.parametrize("pre,unit,marker,byte_fallback", CASES, ids=lambda v: (
    "-".join(f"{k}={v}" for k, v in v.items() if k != "type") if isinstance(v, dict) else None))
def test_tokenizers_gives_our_ids_and_text(split, tmp_path, pre, unit, marker, byte_fallback):
    train, test = split
    ours = _train(train, pre, unit, marker, byte_fallback)
    path = export_tokenizer_json(ours, tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    assert hf.get_vocab_size() == ours.vocab_size
    if unit == "jamo":
        test = [t for t in test if _nfd_safe(t)]
    assert len(test) > 400
    ids = [ours.encode(t) for t in test]
    assert [e.ids for e in hf.encode_batch(test)] == ids
    # somewhere the test split needs the fallback (or <unk>), so that path is compared too
    unknown = {ours.vocab[t] for t in ours.special_tokens} | {ours.vocab[f"<0x{b:02X}>"] for b in range(256) if byte_fallback}
    if unit != "byte":
        assert any(unknown.intersection(x) for x in ids)
    # decode: HF gives jamo back as conjoining jamo (no NFC step in HF): compose it ourselves
    for t, x in zip(test, ids):
        if marker == "##" and byte_fallback:
            break  # a run of byte tokens across two words loses the boundary in HF (documented)
        assert unicodedata.normalize("NFC", hf.decode(x, skip_special_tokens=False)) == unicodedata.normalize("NFC", ours.decode(x)), t


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_transformers_loads_the_export(split, tmp_path, unit):
    transformers = pytest.importorskip("transformers")
    train, test = split
    ours = _train(train, "whitespace", unit, "default", False)
    path = ours.to_huggingface(tmp_path / "tokenizer.json")
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path), unk_token="<unk>")
    test = [t for t in test if _nfd_safe(t)][:300]
    assert [fast(t)["input_ids"] for t in test] == [ours.encode(t) for t in test]
    assert fast.convert_tokens_to_ids("<unk>") == ours.vocab["<unk>"]
    x = ours.encode("스파이더맨 파프롬홈은 MCU 최고의 영화이다")
    assert unicodedata.normalize("NFC", fast.decode(x)) == ours.decode(x)


def test_morpheme_pre_tokenizer_is_fed_analysed_words(split, tmp_path):
    pytest.importorskip("mecab")
    train, test = split
    ours = Tokenizer.train(train[:600], vocab_size=2500, pre_tokenizer="mecab", show_progress=False)
    hf = tokenizers.Tokenizer.from_file(str(ours.to_huggingface(tmp_path / "t.json")))
    for text in test[:100]:
        words = ours.pre_tokenizer(text)
        assert hf.encode(" ".join(words)).ids == ours.encode(text)
        assert hf.encode(words, is_pretokenized=True).ids == ours.encode(text)


def test_exported_json_pins_the_stages(tmp_path):
    ours = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 재밌어요"] * 3, vocab_size=30, show_progress=False)
    path = export_tokenizer_json(ours, tmp_path)  # a directory: tokenizer.json inside
    assert path == tmp_path / "tokenizer.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == "1.0"
    assert [n["type"] for n in data["normalizer"]["normalizers"]] == ["Replace", "Strip", "Prepend", "Replace"]
    assert data["pre_tokenizer"] == {"type": "WhitespaceSplit"}
    assert data["model"]["type"] == "BPE" and data["model"]["unk_token"] == "<unk>"
    assert data["model"]["vocab"] == ours.vocab
    assert data["model"]["merges"] == [list(m) for m in ours.model.merges]
    assert data["added_tokens"][0] == {"id": 0, "content": "<unk>", "single_word": False, "lstrip": False,
                                      "rstrip": False, "normalized": False, "special": True}
    assert data == tokenizer_json(ours)
    assert not list(tmp_path.glob(".tokenizer.*"))  # no temporary file left behind


def test_whitespace_normalizer_matches_python_str_split(tmp_path):
    # Python's str.split() also splits on U+001C..U+001F, which Rust's is_whitespace does not
    assert set("\x1c\x1d\x1e\x1f\u3000\xa0") <= set(PY_WHITESPACE)
    ours = Tokenizer.train(["가 나 다"] * 3, vocab_size=10, show_progress=False)
    hf = tokenizers.Tokenizer.from_file(str(export_tokenizer_json(ours, tmp_path / "t.json")))
    text = "가\x1c나\u3000다\xa0\t 가"
    assert hf.encode(text).ids == ours.encode(text) == ours.encode("가 나 다 가")


def test_legacy_concatenated_hash_model_is_renamed():
    legacy = BPEModel(("<unk>",), ("가", "나", "##나", "##다"), (("가", "##나"), ("##나", "##다")))
    assert hf_token_names(legacy, marker="##") == ("<unk>", "가", "나", "##나", "##다", "가나", "##나다")
    with pytest.raises(ValueError, match="without the '##' prefix"):
        hf_token_names(BPEModel((), ("가", "나"), (("가", "나"),)), marker="##")


def test_unknown_unit_is_refused():
    ours = Tokenizer.train(["가 나 다"] * 3, vocab_size=10, show_progress=False)

    class Odd:
        name = "morse"

    ours._unit = Odd()  # a custom unit HF cannot reproduce
    with pytest.raises(ValueError, match="unit 'morse' has no HF equivalent"):
        tokenizer_json(ours)


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_nsmc_scale_export_agrees_id_for_id(nsmc, tmp_path, unit):
    """On the movie reviews at scale (20k train reviews, 8k vocab, the first 5k test reviews),
    ``tokenizers`` and ``transformers`` running our export give our ids for every review (jamo:
    every review where HF's NFD is our jamo unit; the others are the documented CJK
    compatibility ideographs / kana)."""
    import pandas as pd

    transformers = pytest.importorskip("transformers")
    read = lambda split, n: pd.read_csv(nsmc / f"ratings_{split}.txt", sep="\t", quoting=3,  # noqa: E731
                                        keep_default_na=False, nrows=n)["document"].astype(str).tolist()
    train, test = read("train", 20_000), read("test", 5_000)
    ours = Tokenizer.train(train, vocab_size=8000, unit=unit, show_progress=False)
    path = ours.to_huggingface(tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path), unk_token="<unk>")
    if unit == "jamo":
        test = [t for t in test if _nfd_safe(t)]
    assert len(test) > 4900
    ids = ours.encode_batch(test)
    assert [e.ids for e in hf.encode_batch(test, add_special_tokens=False)] == ids
    assert fast(test, add_special_tokens=False)["input_ids"] == ids
    assert sum(map(len, ids)) > 3 * len(test)  # real segmentation happened
    unk = ours.token_to_id("<unk>")
    checked = 0
    for t, x in list(zip(test, ids))[:500]:
        assert unicodedata.normalize("NFC", fast.decode(x)) == ours.decode(x)
        if unk not in x:
            assert ours.decode(x) == " ".join(compose_if(unit, t).split())
            checked += 1
    assert checked > 450


def compose_if(unit: str, text: str) -> str:
    from korean_bpe.jamo import compose

    return compose(decompose(text)) if unit == "jamo" else text


# --- byte fallback survives HF decoding (issue 14, item 1) -------------------------------------

FALLBACK_STRINGS = ["졸면서 본 첫 영홬", "돈날림ㅠㅠ 😉 쀍", "Café 日本語 けいおん 盧"]


def _hf_decoders(ours, tmp_path):
    """Three HF ways to decode, with their defaults: tokenizers' decode (skip_special_tokens=True),
    transformers from the tokenizer object and from the file, with skip_special_tokens=True."""
    transformers = pytest.importorskip("transformers")
    path = ours.to_huggingface(tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    from_object = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizers.Tokenizer.from_file(str(path)))
    from_file = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path), unk_token="<unk>")
    return [
        ("tokenizers", lambda ids: hf.decode(ids)),
        ("transformers tokenizer_object", lambda ids: from_object.decode(ids, skip_special_tokens=True)),
        ("transformers tokenizer_file", lambda ids: from_file.decode(ids, skip_special_tokens=True)),
    ]


def _check_fallback_survives(ours, texts, tmp_path):
    byte_ids = {ours.vocab[f"<0x{b:02X}>"] for b in range(256)}
    ids = ours.encode_batch(texts)
    assert sum(bool(byte_ids.intersection(x)) for x in ids) >= 3  # the fallback path is exercised
    # HF gives jamo back as conjoining jamo (no NFC decoder): compose them, and only them
    compose = (lambda s: unicodedata.normalize("NFC", s)) if ours.unit.name == "jamo" else (lambda s: s)
    for name, decode in _hf_decoders(ours, tmp_path):
        lost = [t for t, x in zip(texts, ids) if compose(decode(x)) != ours.decode(x)]
        assert lost == [], (name, len(lost), lost[:3])
    return ids


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_byte_fallback_text_survives_hf_default_decode(tmp_path, unit):
    """The byte tokens are ordinary vocabulary (as SentencePiece exports them), so neither
    ``tokenizers``' default decode nor ``transformers``' ``skip_special_tokens=True`` deletes
    the characters that went through byte fallback (``영홬`` used to come back as ``영``)."""
    from korean_bpe.corpus import iter_texts

    texts = list(iter_texts(limit=3000))
    ours = Tokenizer.train(texts[:2000], vocab_size=1500 + 256, unit=unit, byte_fallback=True, show_progress=False)
    test = [t for t in texts[2000:] + FALLBACK_STRINGS if unit != "jamo" or _nfd_safe(t)]
    ids = _check_fallback_survives(ours, test, tmp_path)
    assert ours.decode(ids[test.index("졸면서 본 첫 영홬")]) == "졸면서 본 첫 영홬"
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    assert [t["content"] for t in data["added_tokens"]] == ["<unk>"]  # no <0xNN> among them
    assert data["model"]["vocab"]["<0xEA>"] == ours.vocab["<0xEA>"]


@pytest.mark.nsmc
def test_byte_fallback_text_survives_hf_decode_on_nsmc(nsmc, tmp_path):
    """Every NSMC test review decodes through HF to our text, byte-fallback characters included."""
    import pandas as pd

    read = lambda split, n: pd.read_csv(nsmc / f"ratings_{split}.txt", sep="\t", quoting=3,  # noqa: E731
                                        keep_default_na=False, nrows=n)["document"].astype(str).tolist()
    ours = Tokenizer.train(read("train", 20_000), vocab_size=3000 + 256, byte_fallback=True, show_progress=False)
    test = read("test", None) + FALLBACK_STRINGS
    _check_fallback_survives(ours, test, tmp_path)


# --- raw, SentencePiece style: Metaspace ------------------------------------------------------------


def _raw_agrees(ours: Tokenizer, texts: list[str], tmp_path) -> list[list[int]]:
    hf = tokenizers.Tokenizer.from_file(str(ours.to_huggingface(tmp_path / "tokenizer.json")))
    ids = ours.encode_batch(texts)
    assert [e.ids for e in hf.encode_batch(texts)] == ids
    assert [hf.decode(x, skip_special_tokens=False) for x in ids] == ours.decode_batch(ids)
    return ids


def test_raw_export_pins_the_stages(tmp_path):
    ours = Tokenizer.train(["아이언맨 또 보고 싶다", "또 보고\n싶다"] * 3, vocab_size=30, pre_tokenizer="raw")
    data = tokenizer_json(ours)
    assert data["pre_tokenizer"]["pretokenizers"][1] == {
        "type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True}
    assert [n["type"] for n in data["normalizer"]["normalizers"][:3]] == ["Replace", "Prepend", "Replace"]
    hf = tokenizers.Tokenizer.from_file(str(export_tokenizer_json(ours, tmp_path)))
    assert hf.encode("아이언맨 또 보고").tokens == ours.tokenize("아이언맨 또 보고") == ["▁아이언맨", "▁또", "▁보고"]
    assert hf.encode(" 또  보고\n싶다 ").tokens == ["▁", "▁또", "▁", "▁보고", "\n", "▁싶다", "▁"] == \
        ours.tokenize(" 또  보고\n싶다 ")
    assert hf.decode(ours.encode(" 또  보고\n싶다 ")) == " 또  보고\n싶다 "


def test_raw_export_on_the_embedded_corpus(tmp_path):
    """The embedded konlpy corpus (law and bill text: indented lines, form feeds), every line and
    the lines joined into multi-line documents, id for id and text for text, for each raw cut."""
    from korean_bpe.corpus import iter_texts

    docs = list(iter_texts())
    texts = docs + ["\n".join(docs[i:i + 7]) for i in range(0, len(docs), 7)]
    for options in ({}, {"split_by_whitespace": False}):
        ours = Tokenizer.train(docs, vocab_size=3000, pre_tokenizer={"type": "raw", **options}, byte_fallback=True)
        ids = _raw_agrees(ours, texts, tmp_path)
        assert ours.decode_batch(ids) == [t.replace("▁", " ") for t in texts]


def test_legacy_raw_model_exports_its_old_ids(tmp_path):
    from test_serialization import RAW_V1, RAW_V1_IDS

    old = Tokenizer.load(RAW_V1)
    assert _raw_agrees(old, list(RAW_V1_IDS), tmp_path) == list(RAW_V1_IDS.values())


@pytest.mark.nsmc
@pytest.mark.slow
def test_raw_export_on_nsmc(nsmc, tmp_path):
    """Raw on the movie reviews: trained on all of ratings_train (165k) at 32k, every test review."""
    from korean_bpe.corpus import iter_texts

    ours = Tokenizer.train(iter_texts(nsmc / "ratings_train.txt"), vocab_size=32000, pre_tokenizer="raw",
                           byte_fallback=True)
    test = list(iter_texts(nsmc / "ratings_test.txt"))
    ids = _raw_agrees(ours, test, tmp_path)
    assert sum(map(len, ids)) > 10 * len(test)
    assert not any("▁" in t[1:] for t in ours.id_to_token)  # no token crosses a space
