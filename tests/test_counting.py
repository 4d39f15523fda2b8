"""korean_bpe.counting: compiled == plain-Python counts, WordCounts adds up, its TSV round trip and
errors, exact counts above 2**32 (and 2**63), training from counts == training from texts (Python
and CLI, byte for byte)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from korean_bpe import Tokenizer
from korean_bpe.cli import main
from korean_bpe.counting import CountsFileError, WordCounts, count_words, holds_any, split_words
from korean_bpe.pre_tokenizers import get_pre_tokenizer
from korean_bpe.trainer import train_bpe
from korean_bpe.units import get_unit

from _strings import HUGE_LINE, SURROGATES
from _strings import hard as hard_strings

from korean_bpe.words import core

_counting = core()  # the compiled counting core, None when not built
needs_compiled = pytest.mark.skipif(_counting is None, reason="compiled core not built")

HARD = [*hard_strings(), *SURROGATES, HUGE_LINE]  # lone surrogates too: the TSV escapes them (\udXXX)
PRE_TOKENIZERS = [
    "whitespace", "raw", {"type": "raw", "split_by_whitespace": False},
    {"type": "raw", "add_dummy_prefix": False}, {"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": False},
]


def _hide_compiled(monkeypatch):
    for module in ("korean_bpe._counting", "korean_bpe.trainer._merge"):
        monkeypatch.setitem(sys.modules, module, None)


# --- counting ------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", PRE_TOKENIZERS, ids=str)
@pytest.mark.parametrize("compiled", [True, False])
def test_count_words_equals_the_pre_tokenizer_counted(spec, compiled, monkeypatch, real_texts):
    if compiled and _counting is None:
        pytest.skip("compiled core not built")
    if not compiled:
        _hide_compiled(monkeypatch)
    pt = get_pre_tokenizer(spec)
    texts = HARD + list(real_texts[:2000])
    expected = dict(Counter(w for t in texts for w in pt(t)))
    got = count_words(iter(texts), pt)
    assert got == expected
    assert list(got) == list(expected)  # first-seen order either way


@needs_compiled
@pytest.mark.parametrize("spec", ["whitespace", "raw"])
@pytest.mark.parametrize("unit, marker", [("syllable", "▁"), ("jamo", "▁"), ("jamo", "</w>"), ("syllable", None)])
def test_compact_counts_are_the_dict_and_split_the_same(spec, unit, marker, real_texts):
    """count_words(compact=True) keeps the counts in the compiled counter (no str per word):
    the same items, and split_words reads the same symbols from it."""
    from korean_bpe.words import CountedWords

    pt = get_pre_tokenizer(spec)
    texts = HARD + list(real_texts[:2000])
    plain = count_words(texts, pt)
    compact = count_words(iter(texts), pt, compact=True)
    assert isinstance(compact, CountedWords) and len(compact) == len(plain)
    assert compact == plain and list(compact) == list(plain)
    assert dict(split_words(compact, get_unit(unit), marker=marker)) == dict(split_words(plain, get_unit(unit), marker=marker))
    for chars in (" ", "\n", "\x0c", "\t", "ㅋ", "\u2581", "\U0001F609"):
        assert holds_any(compact, chars) == holds_any(plain, chars) == any(chars in w for w in plain), repr(chars)
    assert count_words(texts, pt, compact=True, into={}) == plain  # into: a dict, as asked
    compact.clear()  # Tokenizer.train frees the words once split
    assert len(compact) == 0 and dict(compact) == {} and not holds_any(compact, "ㅋ")


@needs_compiled
def test_annotations_admit_the_read_only_counts():
    """count_words(compact=True) and split_words give read-only mappings when compiled: every
    annotation that receives or returns them says Mapping (they said dict), and count_words
    without compact still promises (and gives) a dict."""
    import typing

    import korean_bpe.counting as counting_module
    import korean_bpe.trainer.pipeline as pipeline_module

    def admits(function, name, module, value):
        annotation = eval(function.__annotations__[name], vars(module))  # noqa: S307 - our own annotation
        return isinstance(value, typing.get_origin(annotation) or annotation)

    pt = get_pre_tokenizer("whitespace")
    texts = ["영화 정말 재밌다", "영화 최고"]
    compact = count_words(texts, pt, compact=True)
    assert not isinstance(compact, dict)  # the compiled counter: read-only
    assert admits(pipeline_module._fit, "counts", pipeline_module, compact)
    symbols = WordCounts.from_texts(texts).symbol_counts(unit="syllable", marker="▁")
    assert not isinstance(symbols, dict)
    assert admits(WordCounts.symbol_counts, "return", counting_module, symbols)
    split = counting_module.split_words(compact, get_unit("syllable"), marker="▁")
    assert admits(counting_module.split_words, "return", counting_module, split)
    overloads = {typing.get_type_hints(o)["compact"]: typing.get_type_hints(o)["return"]
                 for o in typing.get_overloads(count_words)}
    assert overloads == {typing.Literal[False]: dict[str, int], bool: Mapping[str, int]}
    assert type(count_words(texts, pt)) is dict


def test_count_words_raw_by_hand():
    pt = get_pre_tokenizer("raw")
    assert count_words([" 두  칸\n굿 ", "칸▁칸"], pt) == {"▁": 3, "▁두": 1, "▁칸": 3, "\n": 1, "▁굿": 1}
    assert count_words(["", "\n\n"], pt) == {"\n": 2}


def test_count_words_rejects_non_strings():
    with pytest.raises(TypeError, match="text 2 is int"):
        count_words(["a", "b", 3], get_pre_tokenizer("whitespace"))
    with pytest.raises(TypeError, match="not a single string"):
        count_words("영화", get_pre_tokenizer("whitespace"))


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@pytest.mark.parametrize("marker", [None, "▁", "</w>", "##"])
def test_split_words_compiled_equals_python(unit, marker, monkeypatch):
    words = count_words(HARD, get_pre_tokenizer("whitespace"))
    words.update({"\u1100\u1161": 2, "가": 3})  # NFD and NFC of 가 meet under jamo
    compiled = split_words(words, get_unit(unit), marker=marker)
    _hide_compiled(monkeypatch)
    python = split_words(words, get_unit(unit), marker=marker)
    assert compiled == python
    assert sum(compiled.values()) == sum(words.values())  # every word kept, counts added
    if unit == "jamo":
        key = ("▁",) * (marker == "▁") + (("ᄀ", "ᅡ</w>") if marker == "</w>" else
                                           ("ᄀ", "##ᅡ") if marker == "##" else ("ᄀ", "ᅡ"))
        assert compiled[key] == 2 + 3  # the NFD and NFC spellings add up


# --- WordCounts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["whitespace", "raw"])
def test_two_halves_add_up_to_the_whole(spec, real_texts):
    texts = HARD + list(real_texts[:3000])
    half = len(texts) // 2
    whole = WordCounts.from_texts(texts, pre_tokenizer=spec)
    a = WordCounts.from_texts(texts[:half], pre_tokenizer=spec)
    b = WordCounts.from_texts(texts[half:], pre_tokenizer=spec)
    assert a + b == whole and b + a == whole
    assert (a + b).items() == whole.items()  # the same order too: sorted
    a += b
    assert a == whole and a.total == whole.total == sum(len(get_pre_tokenizer(spec)(t)) for t in texts)
    c = WordCounts(pre_tokenizer=spec)
    c.update(texts[:10])
    c.update(texts[10:])
    assert c == whole


def test_items_sorted_by_count_then_code_point():
    counts = WordCounts({"나": 2, "가": 2, "다": 5, "A": 2})
    assert counts.items() == [("다", 5), ("A", 2), ("가", 2), ("나", 2)]
    assert list(counts) == ["다", "A", "가", "나"] and len(counts) == 4 and counts["가"] == 2 and "다" in counts


def test_bad_values_refused():
    with pytest.raises(ValueError, match="must be an int >= 1, got 0"):
        WordCounts({"영화": 0})
    with pytest.raises(ValueError, match="non-empty strings"):
        WordCounts({"": 1})
    with pytest.raises(ValueError, match="different pre-tokenizers"):
        WordCounts({"a": 1}).merge(WordCounts({"▁a": 1}, pre_tokenizer="raw"))


# --- the TSV file --------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", PRE_TOKENIZERS, ids=str)
def test_tsv_round_trip(spec, tmp_path, real_texts):
    counts = WordCounts.from_texts(HARD + list(real_texts[:500]), pre_tokenizer=spec)
    counts.merge(WordCounts({"거대한": 2**70}, pre_tokenizer=spec) if spec == "whitespace" else
                 WordCounts({"▁거대한": 2**70}, pre_tokenizer=spec))
    path = counts.save(tmp_path / "counts.tsv")
    back = WordCounts.load(path)
    assert back == counts and back.items() == counts.items()
    assert back.pre_tokenizer == get_pre_tokenizer(spec)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0].startswith('#{"format": "korean_bpe word counts", "version": 1, "pre_tokenizer": ')
    assert lines[-1] == "" and len(lines) == len(counts) + 2  # one line a word, no stray line break


def test_tsv_escapes_by_hand(tmp_path):
    counts = WordCounts({"\n": 3, "▁탭\t안": 2, "백\\t": 1, "\r": 1}, pre_tokenizer="raw")
    text = counts.save(tmp_path / "c.tsv").read_text(encoding="utf-8")
    assert text.split("\n", 1)[1] == "\\n\t3\n▁탭\\t안\t2\n\\r\t1\n백\\\\t\t1\n"
    assert WordCounts.load(tmp_path / "c.tsv") == counts


def test_tsv_escapes_lone_surrogates_by_hand(tmp_path):
    """A lone surrogate (UTF-8 cannot hold one) is written \\udXXX and read back; a surrogate pair
    written as two code points stays two; a backslash before 'u' stays a backslash."""
    counts = WordCounts({"영화\udc80": 3, "\ud83d\ude00": 2, "a\\ud800": 1, "\ud800\t": 1}, pre_tokenizer="raw")
    path = counts.save(tmp_path / "c.tsv")
    text = path.read_bytes().decode("utf-8")  # strict UTF-8
    assert text.split("\n", 1)[1] == "영화\\udc80\t3\n\\ud83d\\ude00\t2\na\\\\ud800\t1\n\\ud800\\t\t1\n"
    assert text.startswith('#{"format": "korean_bpe word counts", "version": 1,')  # old files still read
    back = WordCounts.load(path)
    assert back == counts and back.items() == counts.items()


HEADER = '#{"format": "korean_bpe word counts", "version": 1, "pre_tokenizer": {"type": "whitespace"}}\n'


@pytest.mark.parametrize("body, message", [
    ("", "line 1: the file is empty"),
    ("영화\t3\n", "line 1: expected the header"),
    ("#{not json\n", "line 1: the header is not JSON"),
    ('#{"format": "korean_bpe word counts", "version": 2, "pre_tokenizer": {"type": "whitespace"}}\n', "version 2"),
    ('#{"format": "korean_bpe word counts", "version": 1}\n', "names no pre-tokenizer"),
    (HEADER + "영화\t3\n재밌다 2\n", "line 3: expected 'word<TAB>count', got '재밌다 2' \\(no tab\\)"),
    (HEADER + "영화\t3\n재밌다\t0\n", "line 3: the count '0'"),
    (HEADER + "영화\t-3\n", "line 2: the count '-3'"),
    (HEADER + "영화\t3\r\n", "line 2: the count '3\\\\r'"),
    (HEADER + "\t3\n", "line 2: empty word"),
    (HEADER + "영화\t3\n영화\t4\n", "line 3: the word '영화' is already on line 2"),
    (HEADER + "영\\x화\t3\n", "line 2: unknown escape"),
    (HEADER + "영\\u0041\t3\n", "line 2: unknown escape '\\\\\\\\u'"),  # only surrogates, one spelling a word
    (HEADER + "영\\uD800\t3\n", "line 2: unknown escape"),  # lowercase only
    (HEADER + "영\\ud80\t3\n", "line 2: unknown escape"),
    (HEADER + "영화\t3\n재밌다\t2", "line 3: the file ends in the middle of a line"),
    (HEADER[:-2] + ', "words": 3}\n영화\t3\n', "announces 3 words but the file holds 1"),
])
def test_bad_tsv_lines_are_named(tmp_path, body, message):
    path = tmp_path / "bad.tsv"
    path.write_text(body, encoding="utf-8", newline="")
    with pytest.raises(CountsFileError, match=message) as info:
        WordCounts.load(path)
    assert str(path) in str(info.value)


def test_tsv_not_utf8_named(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_bytes(HEADER.encode() + "영화\t3\n".encode("cp949"))
    with pytest.raises(CountsFileError, match="not UTF-8"):
        WordCounts.load(path)


# --- counts above 2**32 ----------------------------------------------------------------------------


@needs_compiled
def test_compiled_counting_adds_exactly_above_2_32():
    big = 2**40 + 7
    got = count_words(["ㅋㅋ 하하", "ㅋㅋ"], get_pre_tokenizer("whitespace"), into={"ㅋㅋ": big})
    assert got == {"ㅋㅋ": big + 2, "하하": 1} and type(got["ㅋㅋ"]) is int


@pytest.mark.parametrize("engine", ["compiled", "python", "reference"])
@pytest.mark.parametrize("scale", [2**33, 2**62])  # int64 in the compiled engine; beyond: exact Python ints
def test_counts_above_2_32_train_exactly(engine, scale):
    if engine == "compiled" and _counting is None:
        pytest.skip("compiled core not built")
    counts = WordCounts({"ㅋㅋㅋ": scale + 1, "ㅋㅎ": 3 * scale, "하하": 5})
    seen = []
    train_bpe(counts.symbol_counts(unit="syllable", marker=None), num_merges=3, min_frequency=1, special_tokens=(),
              engine=engine, on_merge=lambda rank, pair, count: seen.append((pair, count)))
    # (ㅋ,ㅎ) 3s beats (ㅋ,ㅋ) 2(s+1) (twice in ㅋㅋㅋ); then ㅋㅋ ㅋ: (ㅋㅋ,ㅋ) s+1; (하,하) 5 never wins
    assert seen == [(("ㅋ", "ㅎ"), 3 * scale), (("ㅋ", "ㅋ"), 2 * scale + 2), (("ㅋㅋ", "ㅋ"), scale + 1)]


def test_counts_above_2_32_through_tokenizer():
    counts = WordCounts({"ㅋㅋㅋ": 2**33 + 1, "ㅋㅎ": 3 * 2**33, "하하": 5})
    tok = Tokenizer.train_from_counts(counts, vocab_size=9, min_frequency=1)
    # ids <unk>0 ▁1 ㅋ2 ㅎ3 하4; s = 2**33: (▁,ㅋ) 4s+1; (▁ㅋ,ㅎ) 3s; (▁ㅋ,ㅋ) and (ㅋ,ㅋ) tie at s+1:
    # the smaller ids (2, 2) first; then (▁ㅋ,ㅋㅋ) s+1
    assert tok.model.merges == (("▁", "ㅋ"), ("▁ㅋ", "ㅎ"), ("ㅋ", "ㅋ"), ("▁ㅋ", "ㅋㅋ"))
    assert tok.tokenize("ㅋㅋㅋ ㅋㅎ") == ["▁ㅋㅋㅋ", "▁ㅋㅎ"]


# --- training from counts ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec, unit, marker", [
    ("whitespace", "syllable", "default"), ("whitespace", "jamo", "default"), ("whitespace", "byte", "default"),
    ("whitespace", "jamo", "</w>"), ("whitespace", "syllable", "##"), ("raw", "syllable", "default"),
    ("raw", "jamo", "default"), ({"type": "raw", "split_by_whitespace": False}, "syllable", "default"),
])
def test_train_from_counts_equals_train(spec, unit, marker, tmp_path, real_texts):
    texts = HARD + list(real_texts[:1500])
    kw = {} if marker == "default" else {"marker": marker}
    # 4,000: room for merges above the alphabet of 1,500 movie reviews, doubled by the ## marker
    direct = Tokenizer.train(texts, vocab_size=4000, pre_tokenizer=spec, unit=unit, **kw)
    counts = WordCounts.from_texts(texts[:700], pre_tokenizer=spec) + WordCounts.from_texts(texts[700:], pre_tokenizer=spec)
    counts.save(tmp_path / "c.tsv")
    via = Tokenizer.train_from_counts(WordCounts.load(tmp_path / "c.tsv"), vocab_size=4000, unit=unit, **kw)
    assert via.model == direct.model and len(direct.model.merges) > 100
    assert via.encode_batch(texts[:200]) == direct.encode_batch(texts[:200])
    direct.save(tmp_path / "a")
    via.save(tmp_path / "b")
    for name in ("vocab.json", "merges.txt", "tokenizer_config.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_train_from_counts_pre_tokenizer_checked():
    counts = WordCounts.from_texts(["영화 정말 재밌다"] * 3, pre_tokenizer="raw")
    same = Tokenizer.train_from_counts(counts, vocab_size=20, pre_tokenizer={"type": "raw"})
    assert same.tokenize("영화 정말") == ["▁영화", "▁정말"]
    with pytest.raises(ValueError, match="is not the pre-tokenizer these counts were made with"):
        Tokenizer.train_from_counts(counts, vocab_size=20, pre_tokenizer="whitespace")
    with pytest.raises(ValueError, match="word counts are empty"):
        Tokenizer.train_from_counts(WordCounts(), vocab_size=20)
    with pytest.raises(TypeError, match="WordCounts.load"):
        Tokenizer.train_from_counts({"영화": 3}, vocab_size=20)  # type: ignore[arg-type]


def test_cli_count_then_train_counts_equals_train(tmp_path, real_texts, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(t.replace("\n", " ") for t in real_texts[:2000]) + "\n", encoding="utf-8")
    for pt in ("whitespace", "raw"):
        assert main(["count", str(corpus), "--pre-tokenizer", pt, "-o", str(tmp_path / f"{pt}.tsv")]) == 0
        assert main(["train", "--counts", str(tmp_path / f"{pt}.tsv"), "--unit", "jamo", "--vocab-size", "900",
                     "-o", str(tmp_path / f"{pt}-counts")]) == 0
        assert main(["train", str(corpus), "--pre-tokenizer", pt, "--unit", "jamo", "--vocab-size", "900",
                     "-o", str(tmp_path / f"{pt}-texts")]) == 0
        for name in ("vocab.json", "merges.txt", "tokenizer_config.json"):
            a = (tmp_path / f"{pt}-counts" / name).read_bytes()
            assert a == (tmp_path / f"{pt}-texts" / name).read_bytes()
        assert len((tmp_path / f"{pt}-texts" / "merges.txt").read_text(encoding="utf-8").splitlines()) > 500
    capsys.readouterr()
    assert main(["train", "--counts", str(tmp_path / "raw.tsv"), "--pre-tokenizer", "whitespace",
                 "-o", str(tmp_path / "x")]) == 1
    assert "was counted with the pre-tokenizer {'type': 'raw'" in capsys.readouterr().err
    assert main(["train", str(corpus), "--counts", str(tmp_path / "raw.tsv"), "-o", str(tmp_path / "x")]) == 1
    assert "either CORPUS" in capsys.readouterr().err
    (tmp_path / "bad.tsv").write_text(HEADER + "영화\t3\n재밌다\n", encoding="utf-8")
    assert main(["train", "--counts", str(tmp_path / "bad.tsv"), "-o", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert "bad.tsv, line 3: expected 'word<TAB>count'" in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
def test_cli_train_counts_with_lone_surrogates_equals_train(unit, tmp_path, real_texts):
    """Words with lone surrogates (Python text, e.g. decoded with surrogateescape): the counts file
    holds them (\\udXXX), 'korean-bpe train --counts' gives the model training on the texts gives,
    file for file, and it loads back."""
    texts = [*SURROGATES, "영화\udc80 정말 재밌다 a\ud800b", *real_texts[:300]] * 2
    WordCounts.from_texts(texts).save(tmp_path / "c.tsv")
    assert main(["train", "--counts", str(tmp_path / "c.tsv"), "--unit", unit, "--vocab-size", "1500",
                 "-o", str(tmp_path / "cli")]) == 0
    direct = Tokenizer.train(texts, vocab_size=1500, unit=unit)
    assert any("\udc80" in t for t in direct.id_to_token) or unit == "byte"
    direct.save(tmp_path / "py")
    for name in ("vocab.json", "merges.txt", "tokenizer_config.json"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes()
    back = Tokenizer.load(tmp_path / "cli")
    assert back.model == direct.model
    assert back.decode(back.encode("영화\udc80 a\ud800b")) == "영화\udc80 a\ud800b"


def test_cli_count_refuses_a_file_with_a_surrogate_spelled_in_bytes(tmp_path, capsys):
    """Files are read as strict UTF-8: ED A0 80 (a lone surrogate as surrogatepass spells it) is
    named by line, nothing written; lone surrogates come into counts from Python text only."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes("영화 좋다\n".encode() + "a\ud800b 영화\n".encode("utf-8", "surrogatepass"))
    capsys.readouterr()
    assert main(["count", str(corpus), "-o", str(tmp_path / "c.tsv")]) == 1
    err = capsys.readouterr().err
    assert "not UTF-8 text: line 2" in err and err.count("\n") == 1
    assert not (tmp_path / "c.tsv").exists()


def test_str_subclasses_are_counted_as_their_text_and_other_items_named() -> None:
    class Text(str):
        pass

    pt = get_pre_tokenizer("whitespace")
    plain = ["영화 재밌다", "영화", "ㅋㅋ 최고"] * 3
    expected = count_words(plain, pt)
    for texts in ([Text(t) for t in plain], iter([Text(t) for t in plain])):  # in memory, and a stream
        assert count_words(texts, pt) == expected
    with pytest.raises(TypeError, match=r"texts must hold strings; text 4 is bytes"):
        count_words(iter(plain[:4] + [b"x"]), pt)
