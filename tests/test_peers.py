"""Peers (korean_bpe.compare.peers): each trains for real on the embedded corpus; spans, round
trips, vocabularies, determinism and missing packages are checked against the real libraries."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from korean_bpe.compare.peers import (
    PEERS,
    byte_level_decode,
    char_spans_from_byte_offsets,
    readable_bytes,
    train_peer,
)
from korean_bpe.corpus import iter_texts

from _strings import hard

pytest.importorskip("sentencepiece")
pytest.importorskip("tokenizers")
pytest.importorskip("kiwipiepy.bpe_trainer")

TEXTS = list(iter_texts())
TRAIN = TEXTS[:1000]
HELD_OUT = TEXTS[2000:2100]
VOCAB = 1500

#: the hard strings the lossless peers must give back exactly (HF and SentencePiece take no lone
#: surrogate; SentencePiece reads U+2581 as a space)
HARD = hard(no_surrogates=True, no_space_mark=True)

EXPECTED = {  # name: (pre_tokenizer, unit, lossless)
    "sentencepiece-bpe": ("", "sentencepiece", False),
    "sentencepiece-unigram": ("", "sentencepiece", False),
    "hf-bpe": ("", "byte", True),
    "hf-wordpiece": ("", "wordpiece", False),
    "kiwi-bpe": ("kiwi", "byte", True),
    "kiwi-swtokenizer": ("kiwi", "swtokenizer", False),
}

_trained: dict[str, object] = {}


def peer(name: str):
    if name not in _trained:
        _trained[name] = train_peer(name, TRAIN, vocab_size=VOCAB, seed=0)
    return _trained[name]


def test_peers_are_the_contract_tuple():
    assert PEERS == (
        "sentencepiece-bpe", "sentencepiece-unigram", "hf-bpe", "hf-wordpiece", "kiwi-bpe", "kiwi-swtokenizer",
    )
    assert set(EXPECTED) == set(PEERS)


@pytest.mark.parametrize("name", PEERS)
def test_attributes_and_vocab_size(name):
    p = peer(name)
    pre, unit, lossless = EXPECTED[name]
    assert (p.strategy, p.kind, p.pre_tokenizer, p.unit, p.lossless) == (name, "peer", pre, unit, lossless)
    assert isinstance(p.unk_ids, frozenset)
    # the size is reached exactly, or reported as reached (never more than asked, but for
    # SwTokenizer's fixed Hangul fallback, which is far below 1500 here)
    if name in ("sentencepiece-bpe", "sentencepiece-unigram", "hf-bpe", "hf-wordpiece", "kiwi-swtokenizer"):
        assert p.vocab_size == VOCAB
    else:  # kiwi-bpe stops where no pair occurs min_pair_frequency=5 times
        assert 256 < p.vocab_size <= VOCAB
    ids = [i for doc in p.encode_batch(HELD_OUT) for i in doc]
    assert ids and 0 <= min(ids) and max(ids) < p.vocab_size


@pytest.mark.parametrize("name", PEERS)
def test_encode_batch_equals_single_encodes_and_pieces(name):
    p = peer(name)
    texts = HELD_OUT[:20] + HARD
    batch = p.encode_batch(texts)
    assert batch == [p.encode(t) for t in texts]
    for text, ids in zip(texts, batch):
        assert all(type(i) is int for i in ids)
        pieces = p.pieces(text)
        assert len(pieces) == len(ids)
        starts = [s for _, s, _ in pieces]
        assert starts == sorted(starts)
        assert all(0 <= s <= e <= len(text) for _, s, e in pieces)


def _surface_ok(name: str, token: str, span: str, first: bool) -> bool:
    """The readable token against the text its span covers, per peer."""
    if name.startswith("sentencepiece"):
        if first and token.startswith("\u2581"):  # the dummy prefix "▁" covers no text
            token = token[1:]
        return token == "<unk>" or token.replace("\u2581", " ") == span
    if name == "hf-wordpiece":
        return token == "[UNK]" or token.removeprefix("##") == span
    if name in ("hf-bpe", "kiwi-bpe"):
        token = token.replace("\u2581", " ")  # a leading space shown as ▁, as the other rows show it
        if "<0x" not in token:  # whole characters: the very text
            return token == span
        # bytes of a partial character: the whole characters inside, plus the partial ones at
        # either end, each of which the span covers whole
        whole = re.sub(r"(<0x[0-9A-F]{2}>)+", "", token)
        return whole in span and len(whole) < len(span) <= len(whole) + 2
    raise AssertionError(name)


@pytest.mark.parametrize("name", [n for n in PEERS if n != "kiwi-swtokenizer"])
def test_pieces_spans_reproduce_the_text(name):
    p = peer(name)
    for text in HELD_OUT + HARD:
        pieces = p.pieces(text)
        bad = [(t, text[s:e]) for i, (t, s, e) in enumerate(pieces) if not _surface_ok(name, t, text[s:e], i == 0)]
        assert not bad, (text, bad[:5])
        # the spans tile the text: nothing skipped, nothing covered twice (byte pieces of one
        # character share it); WordPiece drops white space, so only its non-space text is covered
        covered = set()
        for _, s, e in pieces:
            covered.update(range(s, e))
        missing = {i for i in range(len(text)) if i not in covered}
        if name == "hf-wordpiece":
            assert all(text[i].isspace() for i in missing), (text, sorted(missing))
        else:
            assert not missing, (text, sorted(missing))


def test_sentencepiece_spans_are_characters_on_non_bmp_text():
    p = peer("sentencepiece-bpe")
    text = "😀 법률 😀"  # the emoji is 4 UTF-8 bytes, 1 character, unknown to the model
    pieces = p.pieces(text)
    assert pieces[-1][1:] == (5, 6)
    assert [t for t, s, e in pieces if (s, e) == (0, 1)] == ["<unk>"]
    assert p.decode(p.encode(text)) == " ⁇  법률  ⁇ "


def test_hf_offsets_are_characters_on_korean():
    p = peer("hf-bpe")
    text = "법률 😀 법률"
    pieces = p.pieces(text)
    # hf-bpe's leading space is shown as ▁, as the other rows show it (the offsets are the characters')
    assert [(t, s, e) for t, s, e in pieces if t.lstrip("▁") == "법률"] == [("법률", 0, 2), ("▁법률", 4, 7)]
    assert [(s, e) for t, s, e in pieces if t.startswith("<0x")] == [(3, 4)] * 4  # 😀 as 4 byte tokens


def test_swtokenizer_spans_cover_its_morphemes():
    p = peer("kiwi-swtokenizer")
    text = "이 법률은 공포한 날부터 시행한다."
    pieces = p.pieces(text)
    assert [(t, text[s:e]) for t, s, e in pieces if "/" not in t and not t.startswith("##")][:2] == [
        ("이", "이"), ("법률", "법률"),
    ]
    assert ("은/J", "은") in [(t, text[s:e]) for t, s, e in pieces]
    assert ("ᆫ/E", "한") in [(t, text[s:e]) for t, s, e in pieces]  # a coda morpheme covers its syllable


@pytest.mark.parametrize("name", PEERS)
def test_lossless_is_true_to_decode(name):
    p = peer(name)
    docs = HELD_OUT + HARD
    failed = [t for t, ids in zip(docs, p.encode_batch(docs)) if p.decode(ids) != t]
    if p.lossless:
        assert failed == []
    else:  # a peer that does not claim it really loses something
        assert failed


@pytest.mark.parametrize("name", PEERS)
def test_vocab_surfaces(name):
    p = peer(name)
    surfaces = p.vocab_surfaces()
    assert all(isinstance(b, bytes) for b in surfaces)
    assert b"\xe2\x96\x81" not in b"".join(surfaces)  # no ▁ marker
    assert not any(b.startswith(b"##") for b in surfaces)
    assert not {b"<unk>", b"[UNK]", b"<s>", b"</s>"} & set(surfaces)
    assert "법률".encode() in surfaces or " 법률".encode() in surfaces
    if name.startswith("sentencepiece"):
        assert len(surfaces) == p.vocab_size - 3  # <unk> <s> </s>
    elif name == "hf-wordpiece":
        assert len(surfaces) == p.vocab_size - 1  # [UNK]
        assert "률".encode() in surfaces  # "##률" and "률" both stand for 률
    elif name in ("hf-bpe", "kiwi-bpe"):
        assert len(surfaces) == p.vocab_size == len(set(surfaces))
        assert {bytes([b]) for b in range(256)} <= set(surfaces)  # every byte: nothing is unknown
    else:  # SwTokenizer: tags stripped, the glue token and [UNK] left out
        assert len(surfaces) == p.vocab_size - 2
        assert "ᆫ".encode() in surfaces and not any(b.endswith(b"/E") for b in surfaces)


@pytest.mark.parametrize("name", PEERS)
def test_unk_ids(name):
    p = peer(name)
    if name in ("hf-bpe", "kiwi-bpe"):
        assert p.unk_ids == frozenset()
        return
    (unk,) = p.unk_ids
    ids = p.encode("법률 🦜")  # the parrot is in no training text
    assert unk in ids and ids.count(unk) == 1
    assert unk not in p.encode("법률")


@pytest.mark.parametrize("name", [n for n in PEERS if n != "hf-wordpiece"])
def test_training_is_deterministic(name):
    again = train_peer(name, TRAIN, vocab_size=VOCAB, seed=0)
    first = peer(name)
    assert again.vocab_size == first.vocab_size
    assert again.vocab_surfaces() == first.vocab_surfaces()
    assert again.encode_batch(HELD_OUT) == first.encode_batch(HELD_OUT)


def test_hf_wordpiece_is_deterministic_up_to_hf_ties():
    """HF's WordPiece trainer numbers the "##" symbols in hash-map order, and equal-count merges
    fall to the smaller ids (huggingface/tokenizers#1794, fix proposed in PR #2066): two trainings
    can differ in a few last-chosen tokens.  What compare() measures barely moves."""
    first, again = peer("hf-wordpiece"), train_peer("hf-wordpiece", TRAIN, vocab_size=VOCAB, seed=0)
    a, b = set(first.tokenizer.get_vocab()), set(again.tokenizer.get_vocab())
    assert len(a) == len(b) == VOCAB and len(a ^ b) <= 0.03 * VOCAB
    docs = TEXTS[1000:]
    same = sum(x == y for x, y in zip(
        [[t for t, _, _ in first.pieces(d)] for d in docs], [[t for t, _, _ in again.pieces(d)] for d in docs]
    ))
    assert same >= 0.98 * len(docs)


@pytest.mark.parametrize("name", ["kiwi-bpe", "kiwi-swtokenizer"])
def test_kiwi_peers_leave_no_file_behind(name, tmp_path):
    p = train_peer(name, TRAIN[:200], vocab_size=600, workdir=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert p.encode("법률")


def test_sentencepiece_trains_in_memory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    train_peer("sentencepiece-unigram", TRAIN[:200], vocab_size=600)
    assert list(tmp_path.iterdir()) == []


def test_small_corpus_reports_the_size_reached():
    texts = ["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5
    assert train_peer("sentencepiece-unigram", texts, vocab_size=40).vocab_size == 16
    assert train_peer("kiwi-bpe", texts, vocab_size=400).vocab_size < 400


@pytest.mark.parametrize(
    "module, name",
    [
        ("sentencepiece", "sentencepiece-bpe"),
        ("sentencepiece", "sentencepiece-unigram"),
        ("tokenizers", "hf-bpe"),
        ("tokenizers", "hf-wordpiece"),
        ("kiwipiepy", "kiwi-bpe"),
        ("kiwipiepy", "kiwi-swtokenizer"),
    ],
)
def test_missing_package_is_an_import_error_with_the_hint(module, name, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # fault injection: the import fails
    with pytest.raises(ImportError, match="pip install"):
        train_peer(name, TRAIN[:50], vocab_size=600)


def test_old_kiwipiepy_without_the_bpe_trainer_names_the_version(monkeypatch):
    monkeypatch.setitem(sys.modules, "kiwipiepy.bpe_trainer", None)  # as in kiwipiepy < 0.24
    with pytest.raises(ImportError, match=r'kiwipiepy >= 0\.24.*pip install -U "kiwipiepy>=0\.24"'):
        train_peer("kiwi-bpe", TRAIN[:50], vocab_size=600)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(name="bpe"), ValueError, "unknown peer 'bpe': choose one of sentencepiece-bpe"),
        (dict(texts="이 영화"), TypeError, r"not one string: pass \[text\]"),
        (dict(texts=[b"bytes"]), TypeError, "must hold strings, got bytes"),
        (dict(texts=["", "  "]), ValueError, "no non-blank text"),
        (dict(vocab_size=0), ValueError, "vocab_size must be a positive int, got 0"),
        (dict(vocab_size=100), ValueError, "vocab_size above the number of distinct characters"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    args = dict(name="sentencepiece-bpe", texts=TRAIN[:200], vocab_size=600) | kwargs
    with pytest.raises(error, match=match):
        train_peer(args.pop("name"), args.pop("texts"), **args)


def test_char_spans_from_byte_offsets_by_hand():
    text = "a😀한"  # bytes: a=0, 😀=1..4, 한=5..7
    assert char_spans_from_byte_offsets(text, [(0, 1), (1, 5), (5, 8), (2, 3), (6, 8), (8, 8)]) == [
        (0, 1), (1, 2), (2, 3), (1, 2), (2, 3), (3, 3),
    ]
    with pytest.raises(ValueError, match="outside the 8 bytes"):
        char_spans_from_byte_offsets(text, [(0, 9)])


def test_byte_level_helpers():
    assert byte_level_decode("Ġë²ķë¥ł") == " 법률".encode()
    assert readable_bytes(" 법률".encode()[:3]) == " <0xEB><0xB2>"
    with pytest.raises(ValueError, match="not a GPT-2 byte-level token"):
        byte_level_decode("법")


def test_importing_peers_loads_no_peer_library():
    code = (
        "import sys, korean_bpe.compare.peers; "
        "print(sorted(m for m in ('sentencepiece', 'tokenizers', 'kiwipiepy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_sentencepiece_with_byte_fallback_is_lossless(model_type):
    from korean_bpe.compare.peers import train_sentencepiece

    p = train_sentencepiece(TRAIN, vocab_size=VOCAB, model_type=model_type, byte_fallback=True)
    assert p.lossless and p.vocab_size == VOCAB
    docs = HELD_OUT + HARD
    assert [p.decode(ids) for ids in p.encode_batch(docs)] == docs
    pieces = p.pieces("법 🦜")  # the parrot: 4 byte pieces, each covering the character
    assert [(t, s, e) for t, s, e in pieces if t.startswith("<0x")] == [
        ("<0xF0>", 2, 3), ("<0x9F>", 2, 3), ("<0xA6>", 2, 3), ("<0x9C>", 2, 3),
    ]
    assert {bytes([b]) for b in range(256)} <= set(p.vocab_surfaces())


def test_a_native_crash_in_the_isolated_child_is_a_runtime_error():
    import os

    from korean_bpe.compare.peers import run_isolated

    with pytest.raises(RuntimeError, match="SwTokenizer.train on 3 texts crashed its process"):
        run_isolated(os.abort, what="SwTokenizer.train on 3 texts")  # the child dies of SIGABRT
    assert run_isolated(sorted, "법률", what="sorting") == ["률", "법"]


def test_the_isolated_child_is_kept_for_the_next_call_and_replaced_after_a_crash():
    """One child for every call (Kiwi's model loaded once: a new child spent some 4 s of CPU on it
    at every size of a comparison); a crash ends it and the next call gets a new one."""
    import os

    from korean_bpe.compare.peers import PeerCrash, end_isolated, run_isolated

    first = run_isolated(os.getpid, what="its pid")
    assert first != os.getpid() and run_isolated(os.getpid, what="its pid") == first
    with pytest.raises(PeerCrash):
        run_isolated(os.abort, what="an abort")
    second = run_isolated(os.getpid, what="its pid")
    assert second not in (first, os.getpid())
    end_isolated()
    assert run_isolated(os.getpid, what="its pid") not in (first, second, os.getpid())


def test_a_comparison_ends_the_isolated_child_once_the_peers_sizes_are_trained():
    """The child (and its Kiwi, some 500 MB) serves one row's sizes, then ends: compare() leaves no
    process of this one behind (other tests' analyzer pools may be running beside it)."""
    import multiprocessing

    from korean_bpe.compare import compare
    from korean_bpe.compare.peers import end_isolated

    end_isolated()
    before = {p.pid for p in multiprocessing.active_children()}
    texts = TEXTS[:400]
    result = compare(texts[:300], eval_texts=texts[300:], strategies=["kiwi-swtokenizer"], vocab_sizes=[500, 600],
                     gold=None, n_jobs=1, model_cache=False, show_progress=False)
    assert sorted(result.table["vocab_size"]) == [500, 600] and not any("skipped" in n for n in result.notes)
    assert {p.pid for p in multiprocessing.active_children()} <= before


def test_swtokenizer_trains_in_process_too():
    from korean_bpe.compare.peers import train_kiwi_swtokenizer

    inproc = train_kiwi_swtokenizer(TRAIN, vocab_size=VOCAB, isolate=False)
    assert inproc.vocab_surfaces() == peer("kiwi-swtokenizer").vocab_surfaces()
    assert inproc.encode_batch(HELD_OUT) == peer("kiwi-swtokenizer").encode_batch(HELD_OUT)


def test_a_review_that_crashes_kiwipiepy_swtokenizer_does_not_crash_the_caller():
    # one NSMC review (its first 8 words) segfaults kiwipiepy 0.24.1's SwTokenizer.train; the
    # child process takes the crash, the caller gets a RuntimeError (or a tokenizer, once fixed)
    from korean_bpe.compare.peers import train_kiwi_swtokenizer

    review = "재밌는데 네이버에서 영화검색이 안되서 쿠엔틴 타란티노 필모에 와서만"
    try:
        sw = train_kiwi_swtokenizer([review], vocab_size=1000)
    except RuntimeError as exc:
        assert "SwTokenizer.train on 1 texts at vocab_size=1000 crashed its process" in str(exc)
    else:
        assert sw.encode("영화검색")


@pytest.mark.parametrize("name", ["hf-bpe", "kiwi-bpe"])
def test_truncating_a_greedy_bpe_peer_equals_training_at_that_size(name):
    """compare() trains TRUNCATABLE_PEERS once at the largest size: the cut model must be the one
    training at the smaller size gives, id for id on held-out text, vocabulary for vocabulary."""
    from korean_bpe.compare.peers import TRUNCATABLE_PEERS

    assert name in TRUNCATABLE_PEERS
    big = peer(name)
    for size in (600, 1000):
        cut, trained = big.truncate(size), train_peer(name, TRAIN, vocab_size=size, seed=0)
        assert cut.vocab_size == trained.vocab_size == size
        assert cut.vocab_surfaces() == trained.vocab_surfaces()
        assert cut.encode_batch(HELD_OUT + HARD) == trained.encode_batch(HELD_OUT + HARD)
    assert big.truncate(big.vocab_size + 10) is big


def test_truncate_refuses_a_wordpiece_model():
    with pytest.raises(ValueError, match="only a BPE model"):
        peer("hf-wordpiece").truncate(600)
