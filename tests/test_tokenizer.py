"""korean_bpe.Tokenizer: the tutorial case, encode/decode on real reviews, <unk> and byte fallback,
training (from a generator, refused tokens), the compiled and pure-Python merge loops against each
other and against HF tokenizers' BPE model."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import korean_bpe.encoding.encoder as encoder_module
from korean_bpe import BPEModel, Tokenizer
from korean_bpe.encoding.encoder import Encoder
from korean_bpe.encoding.specials import SpecialTokenTextError
from korean_bpe.encoding import merge_ids
from korean_bpe.jamo import compose, decompose
from korean_bpe.markers import NoMarker
from korean_bpe.pre_tokenizers import PRE_TOKENIZERS, BasePreTokenizer
from korean_bpe.tokenizer import BYTE_TOKENS

from _strings import korean_heavy

TUTORIAL = BPEModel(("<unk>",), tuple("bghnpsu"), (("u", "g"), ("u", "n"), ("h", "ug")))
#: The tutorial has no word marker: whitespace with marker=None, which Tokenizer refuses (decode would
#: glue the words) unless asked for explicitly, as models saved before that check are loaded.
GLUED = NoMarker(glue_words=True)



def unfused(tok: Tokenizer) -> Tokenizer:
    """``tok`` with an encoder whose compiled core does not cut the text (pre_tokenizer.batch,
    then the compiled piece path)."""
    tok._built_encoder = Encoder(tok.model, tok._vocab, pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok._mark,
                                 fallback=tok._fallback, cache_size=tok._encoder.cache.maxsize, fuse=False)
    return tok

def pure_python(monkeypatch: pytest.MonkeyPatch, tok: Tokenizer) -> Tokenizer:
    """The same tokenizer without the compiled merge loop."""
    monkeypatch.setattr(encoder_module, "MergeTable", None)
    return Tokenizer(tok.model, pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok._mark,
                     byte_fallback=tok.byte_fallback, unk_token=tok.unk_token)


# --- the tutorial case -------------------------------------------------------------------------


def test_tutorial_case_exactly():
    tok = Tokenizer(TUTORIAL, marker=GLUED)
    assert list(tok.vocab) == ["<unk>", "b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]
    assert tok.tokenize("pug bug mug") == ["p", "ug", "b", "ug", "<unk>", "ug"]
    assert tok.encode("pug bug mug") == [5, 8, 1, 8, 0, 8]
    assert tok.tokenize("hug pun bun hugs") == ["hug", "p", "un", "b", "un", "hug", "s"]


def test_tutorial_case_pure_python(monkeypatch):
    tok = pure_python(monkeypatch, Tokenizer(TUTORIAL, marker=GLUED))
    assert tok._encoder.compiled is None
    assert tok.tokenize("pug bug mug") == ["p", "ug", "b", "ug", "<unk>", "ug"]


def test_properties():
    tok = Tokenizer(TUTORIAL, marker=GLUED)
    assert tok.vocab_size == 11 and tok.id_to_token[8] == "ug" and tok.token_to_id("hug") == 10
    assert tok.special_tokens == ("<unk>",) and tok.unk_token == "<unk>" and tok.marker is None
    assert tok.pre_tokenizer.to_config() == {"type": "whitespace"} and tok.unit.to_config() == {"type": "syllable"}
    assert tok.merges == TUTORIAL.merges and tok.model is TUTORIAL
    tok.vocab["zzz"] = 99  # a copy: the tokenizer is not changed
    assert tok.token_to_id("zzz") is None
    assert "vocab_size=11" in repr(tok)


# --- trained on real reviews -------------------------------------------------------------------


@pytest.fixture(scope="module")
def ws_syllable(real_texts):
    return Tokenizer.train(real_texts, vocab_size=3000)


def test_default_marker_and_spaces(ws_syllable, real_texts):
    tok = ws_syllable
    assert tok.marker == "▁"
    for text in real_texts[:300]:
        ids = tok.encode(text)
        tokens = tok.tokenize(text)
        assert [tok.id_to_token[i] for i in ids] == tokens
        assert sum(t.startswith("▁") for t in tokens) == len(text.split())
        if "<unk>" not in tokens:
            assert tok.decode(ids) == " ".join(text.split())


def test_encode_batch_equals_encode(ws_syllable, real_texts):
    texts = real_texts[:500]
    assert ws_syllable.encode_batch(texts) == [ws_syllable.encode(t) for t in texts]
    assert ws_syllable.encode_batch(tuple(texts[:5])) == [ws_syllable.encode(t) for t in texts[:5]]
    assert ws_syllable.decode_batch(ws_syllable.encode_batch(texts[:5])) == [ws_syllable.decode(ws_syllable.encode(t)) for t in texts[:5]]


def test_merges_applied_by_rank(ws_syllable, real_texts):
    # The most frequent two-syllable Hangul word of the training texts ("영화" in movie reviews)
    # has its merge among the first few ranks, so the marked word is one token.
    counts = Counter(w for t in real_texts for w in t.split() if len(w) == 2 and all("가" <= c <= "힣" for c in w))
    word = max(sorted(counts), key=counts.__getitem__)
    assert ws_syllable.tokenize(word) == ["▁" + word]
    ranks = ws_syllable.model.ranks
    assert min(ranks.get((word[0], word[1]), 10**9), ranks.get(("▁" + word[0], word[1]), 10**9)) < 100


def test_small_cache_same_ids(ws_syllable, real_texts):
    small = Tokenizer(ws_syllable.model, cache_size=7)
    texts = real_texts[:300]
    assert small.encode_batch(texts) == ws_syllable.encode_batch(texts)
    assert len(small._encoder.cache) <= 7
    if small._encoder.compiled is not None:  # the fused whitespace path keeps its own word cache
        assert small._encoder.plan.fused and 0 < small._encoder.compiled.cached_words() <= 7
        small.clear_cache()
        assert small._encoder.compiled.cached_words() == 0


def test_clear_cache_keeps_ids(ws_syllable, real_texts):
    texts = real_texts[:200]
    first = ws_syllable.encode_batch(texts)
    if ws_syllable._encoder.compiled is not None:
        assert ws_syllable._encoder.compiled.cached_words() > 0
    ws_syllable.clear_cache()
    if ws_syllable._encoder.compiled is not None:
        assert ws_syllable._encoder.compiled.cached_words() == 0
    assert ws_syllable.encode_batch(texts) == first == ws_syllable.encode_batch(texts)


# White space of every kind str.split() knows (the fused compiled path scans it itself), unknown
# symbols (the slow path inside the fused loop), astral characters, conjoining jamo.
_WS_TEXT = korean_heavy(30, no_space_mark=False)


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "raw"])
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@settings(max_examples=150, deadline=None)
@given(texts=st.lists(_WS_TEXT, max_size=6), cache_size=st.sampled_from([1, 3, 1 << 19]))
def test_fused_path_equals_general_path(real_texts, pre_tokenizer, unit, texts, cache_size):
    """The compiled core's own cut (whitespace: str.split(); raw: SentencePiece's pieces) gives the
    ids of pre_tokenizer.batch + the compiled piece path, whatever the cache size."""
    if encoder_module.MergeTable is None:
        pytest.skip("korean_bpe._encode is not compiled here")
    key = (pre_tokenizer, unit, cache_size)
    if key not in _FUSED:
        base = _FUSED.setdefault((pre_tokenizer, unit), Tokenizer.train(
            real_texts[:300], vocab_size=1500, pre_tokenizer=pre_tokenizer, unit=unit, show_progress=False))
        fused = Tokenizer(base.model, pre_tokenizer=pre_tokenizer, unit=unit, cache_size=cache_size)
        general = unfused(Tokenizer(base.model, pre_tokenizer=pre_tokenizer, unit=unit, cache_size=cache_size))
        _FUSED[key] = fused, general
    fused, general = _FUSED[key]
    assert fused._encoder.plan.fused and fused._encoder.plan.cut == pre_tokenizer.replace("raw", "sentencepiece")
    expected = general.encode_batch(texts)
    assert fused.encode_batch(texts) == expected
    assert [fused.encode(t) for t in texts] == expected
    assert fused._encoder.compiled.cached_words() <= cache_size


_FUSED: dict = {}


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
@pytest.mark.parametrize("pre_tokenizer,marker", [("whitespace", "▁"), ("whitespace", "</w>"), ("whitespace", "##"),
                                                  ({"type": "raw", "add_dummy_prefix": False}, None), ("raw", None),
                                                  ("raw", "</w>")])
def test_compiled_equals_pure_python(monkeypatch, real_texts, unit, pre_tokenizer, marker):
    if encoder_module.MergeTable is None:
        pytest.skip("korean_bpe._encode is not compiled here")
    texts = real_texts[:400]
    tok = Tokenizer.train(texts, vocab_size=1500 if unit != "syllable" else 2500, pre_tokenizer=pre_tokenizer,
                          unit=unit, marker=marker, byte_fallback=unit != "byte")
    slow = pure_python(monkeypatch, tok)
    probe = real_texts[400:700] + ["ㅋㅋㅋㅋ 😀😀 ᄒᆞᆫ글 \u1112\u1161\u11ab 갃", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﷺ"]
    assert tok.encode_batch(probe) == slow.encode_batch(probe)


def test_matches_hf_bpe_model(real_texts):
    """Our merge loop gives HF tokenizers' BPE ids, word by word (jamo words decomposed, every marker)."""
    hf = pytest.importorskip("tokenizers")
    words = sorted({w for t in real_texts[:800] for w in t.split()})
    for unit, marker in [("syllable", "▁"), ("jamo", None), ("syllable", "</w>"), ("jamo", "##")]:
        pre = "raw" if marker is None else "whitespace"  # marker=None needs a lossless pre-tokenizer
        tok = Tokenizer.train(real_texts[:800], vocab_size=2000, unit=unit, marker=marker, pre_tokenizer=pre)
        vocab = tok.vocab
        kwargs = {"end_of_word_suffix": "</w>"} if marker == "</w>" else {}
        if marker == "##":
            kwargs = {"continuing_subword_prefix": "##"}
        model = hf.models.BPE(vocab, list(tok.merges), unk_token="<unk>", **kwargs)
        h = hf.Tokenizer(model)
        inputs = [("▁" if marker in ("▁", None) else "") + (decompose(w) if unit == "jamo" else w) for w in words]
        expected = [e.ids for e in h.encode_batch(inputs, add_special_tokens=False)]
        assert tok.encode_batch(words) == expected, (unit, marker)


# --- merge loop on made-up merge tables ---------------------------------------------------------


@st.composite
def merge_tables(draw):
    """Random merges over ids 0..4 (possibly out of rank order, overlapping, repeated symbols)."""
    n_base = 5
    n_merges = draw(st.integers(0, 12))
    pairs = {}
    next_id = n_base
    for rank in range(n_merges):
        a = draw(st.integers(0, next_id - 1))
        b = draw(st.integers(0, next_id - 1))
        if (a, b) not in pairs:
            pairs[(a, b)] = (rank, next_id)
            next_id += 1
    word = draw(st.lists(st.integers(-1, n_base - 1), max_size=14))
    return pairs, word


def _hf_heap_reference(ids, pairs):
    """HF's Word::merge_all, transcribed: a heap of (rank, pos), stale entries skipped."""
    import heapq

    syms = list(ids)
    alive = [True] * len(syms)
    nxt = list(range(1, len(syms) + 1))
    prv = list(range(-1, len(syms) - 1))
    heap = [(pairs[(syms[i], syms[i + 1])][0], i) for i in range(len(syms) - 1) if (syms[i], syms[i + 1]) in pairs]
    heapq.heapify(heap)
    while heap:
        rank, pos = heapq.heappop(heap)
        if not alive[pos] or nxt[pos] >= len(syms):
            continue
        j = nxt[pos]
        cur = pairs.get((syms[pos], syms[j]))
        if cur is None or cur[0] != rank:
            continue
        syms[pos] = cur[1]
        alive[j] = False
        nxt[pos] = nxt[j]
        if nxt[pos] < len(syms):
            prv[nxt[pos]] = pos
        if prv[pos] >= 0 and (syms[prv[pos]], syms[pos]) in pairs:
            heapq.heappush(heap, (pairs[(syms[prv[pos]], syms[pos])][0], prv[pos]))
        if nxt[pos] < len(syms) and (syms[pos], syms[nxt[pos]]) in pairs:
            heapq.heappush(heap, (pairs[(syms[pos], syms[nxt[pos]])][0], pos))
    return [s for s, a in zip(syms, alive) if a]


@settings(max_examples=400, deadline=None)
@given(merge_tables())
def test_merge_loops_agree_with_hf_heap(table):
    pairs, word = table
    expected = _hf_heap_reference(word, pairs)
    assert merge_ids(list(word), pairs) == expected
    if encoder_module.MergeTable is not None:
        triples = sorted(((a, b, new) for (a, b), (rank, new) in pairs.items()), key=lambda t: pairs[t[:2]][0])
        compiled = encoder_module.MergeTable(triples, {})
        assert compiled.merge_ids(word) == expected  # words of up to 32 symbols take the small loop
        assert compiled.merge_ids_heap(word) == expected  # the heap, which longer words take


def test_overlapping_repeats_merge_leftmost_first():
    # ㅋ ㅋ ㅋ with the merge ㅋ+ㅋ: the leftmost pair merges first ("ㅋㅋ", "ㅋ"), as HF does.
    tok = Tokenizer(BPEModel(("<unk>",), ("ㅋ",), (("ㅋ", "ㅋ"),)), marker=GLUED)
    assert tok.tokenize("ㅋㅋㅋ") == ["ㅋㅋ", "ㅋ"]
    assert tok.tokenize("ㅋㅋㅋㅋㅋ") == ["ㅋㅋ", "ㅋㅋ", "ㅋ"]


# --- unknown symbols ----------------------------------------------------------------------------


def test_unk_without_byte_fallback(ws_syllable):
    tok = ws_syllable
    text = "영화 😀🎬 최고"
    tokens = tok.tokenize(text)
    assert tokens.count("<unk>") == 2  # one <unk> per unknown symbol, never fused
    assert "<unk>" in tok.decode(tok.encode(text))
    assert tok.decode(tok.encode(text), skip_special_tokens=True) == "영화  최고"  # the word is there, empty


def test_unk_token_none_raises_naming_the_symbol():
    tok = Tokenizer(TUTORIAL, marker=GLUED, unk_token=None)
    assert tok.tokenize("hug") == ["hug"]
    with pytest.raises(ValueError, match="'m'.*'mug'"):
        tok.encode("mug")


def test_byte_fallback_encodes_bytes_and_decodes_exactly(real_texts):
    tok = Tokenizer.train(real_texts[:500], vocab_size=2000, byte_fallback=True)
    assert tok.id_to_token[1:257] == BYTE_TOKENS  # right after <unk>
    assert tok.special_tokens == ("<unk>",)
    tokens = tok.tokenize("영화 😀")
    assert tokens[-4:] == ["<0xF0>", "<0x9F>", "<0x98>", "<0x80>"]
    for text in ["영화 😀 최고", "𝔘𝔫𝔦 ᄒᆞᆫ글 ㅋㅋ", "a\u0301 é"]:
        assert "<unk>" not in tok.tokenize(text)
        assert tok.decode(tok.encode(text)) == " ".join(text.split())


def test_byte_fallback_requires_byte_tokens():
    with pytest.raises(ValueError, match="<0x00>"):
        Tokenizer(TUTORIAL, byte_fallback=True)


# --- decode ----------------------------------------------------------------------------------------


def test_decode_rejects_bad_ids():
    tok = Tokenizer(TUTORIAL, marker=GLUED)
    with pytest.raises(ValueError, match="id 11 "):
        tok.decode([1, 11])
    with pytest.raises(ValueError, match="-1"):
        tok.decode([-1])
    assert tok.decode([]) == ""


def test_decode_special_tokens_in_byte_unit(real_texts):
    tok = Tokenizer.train(real_texts[:300], vocab_size=600, unit="byte", special_tokens=("<unk>", "[사용자]"))
    user = tok.token_to_id("[사용자]")
    ids = tok.encode("안녕 하세요")
    assert tok.decode(ids[:1] + [user] + ids[1:]).count("[사용자]") == 1
    assert tok.decode([user] + ids, skip_special_tokens=True) == "안녕 하세요"


def test_jamo_nfd_input_comes_back_nfc(real_texts):
    tok = Tokenizer.train(real_texts[:500], vocab_size=1000, unit="jamo", byte_fallback=True)
    nfd = "\u1112\u1161\u11ab\u1100\u1173\u11af 영화"  # 한글 typed as conjoining jamo
    assert tok.encode(nfd) == tok.encode("한글 영화")
    assert tok.decode(tok.encode(nfd)) == "한글 영화" == compose(nfd)


# --- training ----------------------------------------------------------------------------------------


def test_train_from_generator_equals_list(real_texts):
    texts = real_texts[:400]
    consumed = []

    def gen():
        for t in texts:
            consumed.append(t)
            yield t

    a = Tokenizer.train(gen(), vocab_size=1500)
    b = Tokenizer.train(list(texts), vocab_size=1500)
    assert len(consumed) == len(texts)
    assert a.model == b.model


def test_train_chunks_large_input(monkeypatch, real_texts):
    import korean_bpe.counting as counting_module
    from korean_bpe import words as fast

    monkeypatch.setattr(counting_module, "_CHUNK", 7)
    calls = []
    original, original_counter = counting_module._count_cut, fast.word_counter

    def spy(texts, *args, **kw):  # the compiled whitespace counting, batch by batch
        calls.append(len(texts))
        return original(texts, *args, **kw)

    class SpyCounter:  # Tokenizer.train keeps its counts in the compiled counter, fed batch by batch
        def __init__(self, counter):
            self.counter = counter

        def update(self, texts, *threads):
            calls.append(len(texts))
            self.counter.update(texts, *threads)

        def __getattr__(self, name):
            return getattr(self.counter, name)

        def __len__(self):
            return len(self.counter)

    monkeypatch.setattr(counting_module, "_count_cut", spy)
    if original_counter() is not None:
        monkeypatch.setattr(fast, "word_counter", lambda **kw: SpyCounter(original_counter(**kw)))
    tok = Tokenizer.train(iter(real_texts[:50]), vocab_size=600)
    assert calls and max(calls) == 7 and sum(calls) == 50
    monkeypatch.undo()
    assert tok.model == Tokenizer.train(real_texts[:50], vocab_size=600).model


class KeepLines(BasePreTokenizer):
    """A custom pre-tokenizer that keeps the whole text, spaces included (not registered)."""

    name = "keep_lines"
    lossless = True

    def __call__(self, text):
        return [text]

    def restore(self, words):
        return "".join(words)


def test_train_refuses_space_in_a_token_naming_it():
    with pytest.raises(ValueError, match=r"word '영화 최고', whose symbol holds the token ' ' with a space \(U\+0020\).*merges\.txt"):
        Tokenizer.train(["영화 최고", "영화 최고"], vocab_size=20, pre_tokenizer=KeepLines())


def test_train_refuses_line_break_in_a_token():
    with pytest.raises(ValueError, match=r"line break \(U\+2028\)"):
        Tokenizer.train(["영화\u2028최고"] * 2, vocab_size=20, pre_tokenizer=KeepLines())


def test_hand_built_model_with_space_refused():
    with pytest.raises(ValueError, match="merge 0.*'a b'"):
        Tokenizer(BPEModel(("<unk>",), ("a b", "c"), (("a b", "c"),)))


def test_raw_line_breaks_are_unmerged_tokens_and_round_trip(tmp_path):
    # raw keeps each line break as a piece of its own (the konlpy bills hold form feeds): a
    # one-symbol word is never merged, so it may be a token; the model saves, loads and decodes.
    texts = ["가나다 라마\x0c바사", "가나\n다라", "가나다 가나"] * 3
    for unit in ("syllable", "jamo", "byte"):
        tok = Tokenizer.train(texts, vocab_size=300, pre_tokenizer="raw", unit=unit)
        assert all(not ({"\n", "\x0c"} & {a[-1:], b[:1]}) for a, b in tok.merges)
        again = Tokenizer.load(tok.save(tmp_path / unit))
        for text in texts:
            assert again.encode(text) == tok.encode(text)
            assert tok.decode(tok.encode(text)) == text


def test_bad_merge_order_refused():
    with pytest.raises(ValueError, match="merge 0.*'ug'"):
        Tokenizer(BPEModel(("<unk>",), tuple("ghu"), (("h", "ug"), ("u", "g"))))


def test_option_errors():
    with pytest.raises(ValueError, match="marker='▁' cannot be used with the pre-tokenizer"):
        Tokenizer(TUTORIAL, pre_tokenizer="raw", marker="▁")
    with pytest.raises(ValueError, match="marker="):
        Tokenizer(TUTORIAL, marker="@@")
    with pytest.raises(ValueError, match="unk_token='<oov>'"):
        Tokenizer(TUTORIAL, unk_token="<oov>")
    with pytest.raises(TypeError, match="single string"):
        Tokenizer.train("영화 최고", vocab_size=10)
    with pytest.raises(TypeError, match="text 1 is int"):
        Tokenizer.train(["영화", 3], vocab_size=10)
    tok = Tokenizer(TUTORIAL, marker=GLUED)
    with pytest.raises(TypeError, match="encode_batch"):
        tok.encode(["hug"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="single string"):
        tok.encode_batch("hug")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\] is NoneType"):
        tok.encode_batch(["hug", None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="no words"):
        Tokenizer.train(["", "   "], vocab_size=10)


def test_unk_token_added_to_special_tokens(real_texts):
    tok = Tokenizer.train(real_texts[:100], vocab_size=800, special_tokens=("<pad>", "<s>"))
    assert tok.special_tokens == ("<unk>", "<pad>", "<s>")
    assert tok.id_to_token[:3] == ("<unk>", "<pad>", "<s>")


def test_byte_unit_never_unknown_with_any_marker(real_texts):
    for marker in ("▁", "</w>", "##", None):
        pre = "raw" if marker is None else "whitespace"  # marker=None needs a lossless pre-tokenizer
        tok = Tokenizer.train(real_texts[:200], vocab_size=700, unit="byte", marker=marker, pre_tokenizer=pre)
        text = "😀 ᄒᆞᆫ글 \x00\x7f ﷺ"
        assert "<unk>" not in tok.tokenize(text), marker
        expected = " ".join(text.split()) if marker is not None else text
        assert tok.decode(tok.encode(text)) == expected


def test_morpheme_analysis_mode_default_marker(real_texts):
    """Morpheme pre-tokenizers in analysis mode get the ▁ marker; lossless mode gets None and round-trips."""
    if "kiwi" not in PRE_TOKENIZERS:
        pytest.skip("the kiwi pre-tokenizer is not available")
    pytest.importorskip("kiwipiepy")
    kiwi = PRE_TOKENIZERS.build("kiwi")
    # (Kiwi can return a surface with a space inside, e.g. '미션 임파서블'; training refuses it.)
    texts = [t for t in real_texts[:250] if not any(" " in w for w in kiwi(t))]
    analysis = Tokenizer.train(texts, vocab_size=1500, pre_tokenizer="kiwi")
    assert analysis.marker == "▁"
    lossless = Tokenizer.train(texts, vocab_size=1500, pre_tokenizer={"type": "kiwi", "lossless": True},
                               byte_fallback=True)
    assert lossless.marker is None
    for t in texts[:50]:
        assert lossless.decode(lossless.encode(t)) == t


def test_encode_batch_from_threads(real_texts):
    """Threads sharing one tokenizer (small cache, unknown symbols through the slow path, which
    runs Python code inside the compiled loop) get the ids of a single thread."""
    from concurrent.futures import ThreadPoolExecutor

    base = Tokenizer.train(real_texts[:300], vocab_size=1200, byte_fallback=True, show_progress=False)
    texts = [t + " 😀" + chr(0x4E00 + k) for k, t in enumerate(real_texts[300:900])]
    expected = base.encode_batch(texts)
    shared = Tokenizer(base.model, byte_fallback=True, cache_size=50)
    chunks = [texts[k::7] for k in range(7)] * 3
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(shared.encode_batch, chunks))
    for chunk, got in zip(chunks, results):
        assert got == [expected[texts.index(t)] for t in chunk]


# --- literal special-token text (issue 14, item 2) ---------------------------------------------

SPELLS_SPECIALS = ["<0x41>", "<unk>", "가나"] * 10


@pytest.fixture(scope="module")
def raw_fallback():
    """raw + byte fallback on a corpus that spells special tokens: the bug made ``<0x41>``."""
    return Tokenizer.train(SPELLS_SPECIALS, vocab_size=400, pre_tokenizer="raw", byte_fallback=True, min_frequency=1)


def test_literal_special_token_text_is_refused_by_default(raw_fallback):
    tok = raw_fallback
    for call in (tok.encode, tok.tokenize, lambda t: tok.encode_batch(["가나", t])):
        with pytest.raises(ValueError) as err:
            call("가나 <0x41> 가나")
        msg = str(err.value)
        assert "'<0x41>'" in msg and "disallowed_special=()" in msg and "disallowed_special=" in msg
    with pytest.raises(ValueError, match="'<unk>'"):
        tok.encode("보고 <unk> 싶다")


def test_literal_special_token_text_round_trips_as_text_when_allowed(raw_fallback):
    tok = raw_fallback
    for text in ["<0x41>", "<unk>x", "<unk><0x41>가나<0x1>"]:  # every character in the alphabet
        ids = tok.encode(text, disallowed_special=())
        assert tok.decode(ids) == text  # never "A"
        assert tok.decode(ids, skip_special_tokens=True) == text  # ordinary text never vanishes
        assert not set(ids) & {tok.token_to_id("<unk>"), tok.token_to_id("<0x41>")}
    # one token allowed as text, the others still refused
    assert tok.decode(tok.encode("<unk>", disallowed_special={"<0x41>"})) == "<unk>"
    with pytest.raises(ValueError, match="'<0x41>'"):
        tok.encode("<unk><0x41>", disallowed_special={"<0x41>"})
    assert tok.encode_batch(["<unk>"], disallowed_special=()) == [tok.encode("<unk>", disallowed_special=())]


def test_a_batch_is_searched_for_special_text_and_the_first_text_named(raw_fallback):
    # many texts are searched joined, first for the tokens' first character ("<") alone: texts
    # holding "<" but no token pass, and the error names the first text that spells one
    tok = raw_fallback
    texts = ["가나 < 가나", "a<b", "<0x4"] * 10 + ["가나"] * 10
    assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]
    for k in (0, 17, 39):
        bad = texts[:k] + ["가나 <unk>"] + texts[k:] + ["<0x41>"]
        with pytest.raises(SpecialTokenTextError, match=rf"texts\[{k}\] holds '<unk>'"):
            tok.encode_batch(bad)
    assert len(tok.encode_batch(["<unk>"] * 40, disallowed_special={"<0x41>"})) == 40


def test_str_subclasses_are_encoded_as_their_text(raw_fallback):
    class Text(str):
        pass

    tok = raw_fallback
    assert tok.encode(Text("가나 가나")) == tok.encode("가나 가나")
    assert tok.encode_batch([Text("가나"), "가나 가나", Text("")]) == tok.encode_batch(["가나", "가나 가나", ""])
    with pytest.raises(TypeError, match=r"texts must hold strings; texts\[1\] is bytes"):
        tok.encode_batch([Text("가나"), b"x"])


def test_merges_of_an_older_model_that_make_a_special_token_are_not_applied():
    """A model trained before the trainer cut special runs may hold a merge whose result is a
    special token; encoding never applies it (the text stays ordinary symbols)."""
    model = BPEModel(("<unk>", "<s>"), tuple("<>s"), (("<", "s"), ("<s", ">")))
    tok = Tokenizer(model, marker=GLUED)
    ids = tok.encode("<s>", disallowed_special=())
    assert tok.tokenize("a") == ["<unk>"] and [tok.id_to_token[i] for i in ids] == ["<s", ">"]
    assert tok.decode(ids, skip_special_tokens=True) == "<s>"


# --- lone surrogates (issue 14, item 3) ---------------------------------------------------------


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_lone_surrogates_round_trip_with_every_unit(unit):
    """The syllable and jamo units keep a lone surrogate through byte fallback (surrogatepass
    bytes), the byte unit as its own bytes: never three U+FFFD."""
    tok = Tokenizer.train(["영화 정말 재밌다 abc"] * 4, vocab_size=400, pre_tokenizer="raw", unit=unit,
                          byte_fallback=unit != "byte")
    for text in ["a\ud800b", "영화\udfff 정말", "\ud83d\ude00"]:
        assert tok.decode(tok.encode(text)) == text


def test_a_trained_tokenizer_builds_its_encoder_once_on_first_use(real_texts, monkeypatch, tmp_path):
    """Training and saving never build the encoder; the first encode does, once, however many
    threads ask at once; the ids are those of a tokenizer built from the same model."""
    import threading

    built = []
    original = Encoder.__init__

    def counted(self, *args, **kwargs):
        built.append(threading.get_ident())
        original(self, *args, **kwargs)

    monkeypatch.setattr(Encoder, "__init__", counted)
    tok = Tokenizer.train(real_texts[:500], vocab_size=1200, limit_alphabet=400, show_progress=False)
    tok.save(tmp_path / "m")
    assert built == []
    results: list[list[list[int]]] = []
    start = threading.Barrier(4)

    def encode() -> None:
        start.wait()
        results.append(tok.encode_batch(real_texts[:50]))

    threads = [threading.Thread(target=encode) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(built) == 1 and len(results) == 4
    fresh = Tokenizer(tok.model)  # built at once: a model from elsewhere is checked when made
    assert len(built) == 2
    assert all(r == fresh.encode_batch(real_texts[:50]) for r in results)
