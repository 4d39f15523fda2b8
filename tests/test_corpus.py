"""korean_bpe.corpus: the embedded default corpus, plain text, NSMC tables, stdin, and its errors."""

import io
import subprocess
import sys
import types
import unicodedata
from pathlib import Path

import pytest

from korean_bpe import corpus
from korean_bpe.corpus import CorpusError, NsmcSplit, default_corpus_paths, iter_texts, load_nsmc, nsmc_dir, nsmc_path

from _strings import HUGE_LINE, hard

NFD = unicodedata.normalize("NFD", "한국어 영화")
# every hard string a file line can hold (one line, not blank, UTF-8), and the 200,000-character line
HARD_LINES = [*hard(no_surrogates=True, no_line_breaks=True, no_blank=True), HUGE_LINE]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


# -- the embedded default corpus ---------------------------------------------------------------

def test_default_corpus_is_the_konlpy_text():
    paths = default_corpus_paths()
    assert paths[0].parts[-3:] == ("corpus", "kolaw", "constitution.txt")
    assert len(paths) == 11 and all(p.parent.name == "kobill" for p in paths[1:])
    docs = list(iter_texts())
    assert docs[0] == "대한민국헌법"
    assert len(docs) > 2000 and all(d.strip() for d in docs)
    assert sum(len(d) for d in docs) > 50_000
    # exactly the non-blank lines of the files, in order; lines end at "\n" only, so the form
    # feeds (page breaks) of the bills stay inside their documents
    expected = [l.rstrip("\r") for p in paths for l in p.read_text(encoding="utf-8").split("\n") if l.strip()]
    assert docs == expected
    assert "\x0c법률  제        호" in docs


def test_default_corpus_does_not_import_konlpy():
    code = (
        "import sys\nfrom korean_bpe.corpus import iter_texts\n"
        "n = sum(1 for _ in iter_texts())\n"
        "print(n, sorted(m for m in sys.modules if m.split('.')[0] in ('konlpy', 'jpype', 'pandas')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert int(out[0]) > 2000 and out[1].strip() == "[]"


def test_iter_texts_is_lazy_and_limited():
    it = iter_texts(limit=3)
    assert isinstance(it, types.GeneratorType)
    assert len(list(it)) == 3
    assert next(iter_texts(limit=1)) == "대한민국헌법"


# -- plain text --------------------------------------------------------------------------------

def test_plain_text_hard_lines(tmp_path):
    data = ("\n".join(HARD_LINES) + "\n\n   \n").encode("utf-8")
    p = write(tmp_path, "hard.txt", data)
    assert list(iter_texts(p)) == HARD_LINES  # nothing normalized, blank lines skipped
    assert list(iter_texts(str(p), limit=2)) == HARD_LINES[:2]


def test_plain_text_bom_and_crlf(tmp_path):
    p = write(tmp_path, "bom.txt", b"\xef\xbb\xbf" + "첫 줄\r\n둘째 줄\r\n\r\n셋째\r".encode("utf-8"))
    assert list(iter_texts(p)) == ["첫 줄", "둘째 줄", "셋째\r"]  # a lone final \r is not a line ending


def test_plain_text_first_line_with_tab_is_not_a_header(tmp_path):
    p = write(tmp_path, "tabs.txt", "영화\t좋다\n둘째\n".encode("utf-8"))
    assert list(iter_texts(p)) == ["영화\t좋다", "둘째"]


# -- NSMC tables ------------------------------------------------------------------------------

def test_nsmc_table(tmp_path):
    rows = ["id\tdocument\tlabel", "1\t굳 ㅋ\t1", "2\t\t0", "3\tNA\t0", "4\t" + NFD + "\t1", '5\t"인용" 그대로\t1', "6\t1004\t1"]
    p = write(tmp_path, "ratings.txt", ("\n".join(rows) + "\n").encode("utf-8"))
    assert list(iter_texts(p)) == ["굳 ㅋ", "NA", NFD, '"인용" 그대로', "1004"]  # empty review skipped, strings kept


def test_nsmc_table_in_chunks_crlf_bom_and_other_columns(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "_CHUNK_ROWS", 3)
    body = "".join(f"{i}\t77\t{i % 10}\t리뷰 {i}번\r\n" for i in range(10))
    p = write(tmp_path, "reviews.tsv", b"\xef\xbb\xbf" + ("id\tmovie_id\trating\tdocument\r\n" + body).encode("utf-8"))
    assert list(iter_texts(p)) == [f"리뷰 {i}번" for i in range(10)]
    assert list(iter_texts(p, column="rating", limit=4)) == ["0", "1", "2", "3"]
    with pytest.raises(CorpusError, match=r"no column 'text' in the header \['id', 'movie_id', 'rating', 'document'\]"):
        list(iter_texts(p, column="text"))


def test_nsmc_table_with_a_tab_inside_a_document(tmp_path, monkeypatch):
    """One field too many (caught by the reader) or more (pandas' parser error): the same message,
    with the line and the byte offset where the row starts, as korean_bpe.distributed's shards say."""
    head = "id\tdocument\tlabel\n1\t좋다\t1\n"
    at = len(head.encode("utf-8"))
    p = write(tmp_path, "bad.tsv", (head + "2\t탭\t안에\t0\n").encode("utf-8"))
    with pytest.raises(CorpusError) as exc:
        list(iter_texts(p))
    assert str(exc.value) == (f"{p}: malformed table: line 3, byte offset {at}: a row of 4 tab-separated fields, "
                              "more than the 3 of the header (a tab inside a document?); replace the tabs inside "
                              "documents with spaces")
    p = write(tmp_path, "bad2.tsv", (head + "\r\n" * 2 + "2\ta\tb\tc\td\n").encode("utf-8"))
    with pytest.raises(CorpusError, match=rf"bad2.tsv: malformed table: line 5, byte offset {at + 4}: a row of 5 "):
        list(iter_texts(p))
    # a lone "\r" ends a row (as pandas reads it): the offset is the row's, the line the line's
    p = write(tmp_path, "bad3.tsv", (head + "2\t영화\t1\r3\ta\tb\t0\n").encode("utf-8"))
    row = at + len("2\t영화\t1\r".encode("utf-8"))
    with pytest.raises(CorpusError, match=rf"bad3.tsv: malformed table: line 3, byte offset {row}: a row of 4 "):
        list(iter_texts(p))
    # pandas drops the surplus fields of a first row, with only a warning, when one of them is empty:
    # the reader read 'x' and lost '0'; now refused, as the shards do
    p = write(tmp_path, "bad5.tsv", b"id\tdocument\tlabel\n0\tx\tx\t\t0\n")
    with pytest.raises(CorpusError, match=r"bad5.tsv: malformed table: line 2, byte offset 18: a row of 5 "):
        list(iter_texts(p))
    # a surplus field after a line that is not UTF-8: the first bad line is named, as the shards do
    p = write(tmp_path, "bad4.tsv", head.encode("utf-8") + "2\t깨짐\t0\n".encode("cp949") + b"3\ta\tb\t0\n")
    with pytest.raises(CorpusError, match=rf"bad4.tsv: not UTF-8 text: line 3, byte offset {at + 2}"):
        list(iter_texts(p))
    # standard input (a pipe) cannot be read twice: pandas' row number
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(_Pipe((head + "2\t탭\t안에\t0\n").encode("utf-8"))))
    with pytest.raises(CorpusError, match=r"<stdin>: malformed table: data row 2 has more than the 3 fields"):
        list(iter_texts("-"))


class _Pipe(io.BytesIO):
    """Bytes that cannot seek, as standard input from a pipe."""

    def seekable(self):
        return False


def test_real_nsmc(nsmc):
    assert nsmc_dir() == nsmc
    assert nsmc_path("train").name == "ratings_train.txt" and nsmc_path("all").name == "reviews.tsv"
    docs = list(iter_texts(nsmc_path("test"), limit=1000))
    assert len(docs) == 1000 and docs[1] == "안봐야 할 영화는 너무 많다."
    assert all(d.strip() for d in docs)
    assert next(iter_texts(nsmc_path("all"))) == "뻔한 스토리지만, 택시 시리즈는 괜찮음..6점"


def test_nsmc_dir_from_env(tmp_path, monkeypatch):
    (tmp_path / "ratings_test.txt").write_text("id\tdocument\tlabel\n1\t좋아요\t1\n", encoding="utf-8")
    monkeypatch.setenv("KOREAN_BPE_NSMC_DIR", str(tmp_path))
    assert nsmc_dir() == tmp_path
    assert list(iter_texts(nsmc_path("test"))) == ["좋아요"]
    with pytest.raises(CorpusError, match="ratings_train.txt not found"):
        nsmc_path("train")
    with pytest.raises(ValueError, match="split='dev'"):
        nsmc_path("dev")


def test_load_nsmc(tmp_path, monkeypatch):
    (tmp_path / "ratings_test.txt").write_text("id\tdocument\tlabel\n1\t좋아요 ㅋㅋ\t1\n2\t \t0\n3\tNA\t0\n4\t별로\t0\n",
                                             encoding="utf-8")
    (tmp_path / "reviews.tsv").write_text("id\tmovie_id\trating\tdocument\n1\t7\t10\t최고\n", encoding="utf-8")
    got = load_nsmc("test", directory=tmp_path)
    assert got == NsmcSplit(["좋아요 ㅋㅋ", "NA", "별로"], [1, 0, 0], tmp_path / "ratings_test.txt")  # blank row 2 skipped
    assert load_nsmc("test", limit=2, directory=str(tmp_path)).texts == ["좋아요 ㅋㅋ", "NA"]
    assert load_nsmc("all", directory=tmp_path) == NsmcSplit(["최고"], None, tmp_path / "reviews.tsv")  # ratings, no labels
    monkeypatch.setenv("KOREAN_BPE_NSMC_DIR", str(tmp_path))
    assert load_nsmc("test").labels == [1, 0, 0]
    with pytest.raises(CorpusError, match="ratings_train.txt not found"):
        load_nsmc("train")
    with pytest.raises(CorpusError, match="ratings_test.txt not found"):
        load_nsmc("test", directory=tmp_path / "elsewhere")


def test_real_nsmc_loads_whole(nsmc):
    train = load_nsmc("train", directory=nsmc)
    assert len(train.texts) == len(train.labels) == 165_320 and set(train.labels) == {0, 1}


def test_nsmc_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("KOREAN_BPE_NSMC_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setattr(corpus, "__file__", str(tmp_path / "korean_bpe" / "corpus.py"))
    assert nsmc_dir() is None
    with pytest.raises(CorpusError, match="KOREAN_BPE_NSMC_DIR"):
        nsmc_path("train")
    with pytest.raises(CorpusError, match="the NSMC corpus was not found: set KOREAN_BPE_NSMC_DIR"):
        load_nsmc("test")


# -- stdin -----------------------------------------------------------------------------------------

def test_stdin_plain_and_table(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("하나\n\n둘 ㅋㅋ\n".encode("utf-8"))))
    assert list(iter_texts("-")) == ["하나", "둘 ㅋㅋ"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("id\tdocument\tlabel\n1\t굳\t1\n".encode("utf-8"))))
    assert list(iter_texts("-")) == ["굳"]


def test_stdin_through_a_pipe():
    code = "from korean_bpe.corpus import iter_texts\nprint('|'.join(iter_texts('-')))"
    out = subprocess.run([sys.executable, "-c", code], input="첫째\r\n둘째\n".encode("utf-8"), capture_output=True, check=True)
    assert out.stdout.decode("utf-8").strip() == "첫째|둘째"


# -- errors ----------------------------------------------------------------------------------------

def test_missing_file_and_directory_raise_at_call(tmp_path):
    with pytest.raises(CorpusError, match=r"corpus file not found: .*missing.txt"):
        iter_texts(tmp_path / "missing.txt")  # no next() needed
    with pytest.raises(CorpusError, match="is a directory"):
        iter_texts(tmp_path)
    assert issubclass(CorpusError, ValueError)


@pytest.mark.parametrize("limit", [0, -1, 1.5, True])
def test_bad_limit(limit):
    with pytest.raises(ValueError, match="limit must be a positive int"):
        iter_texts(limit=limit)


def test_bad_source_and_column(tmp_path):
    with pytest.raises(TypeError, match="source must be"):
        iter_texts(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="column"):
        iter_texts(column="")


def test_non_utf8_names_file_line_and_byte(tmp_path):
    p = write(tmp_path, "cp949.txt", "좋다\n".encode("utf-8") + "영화".encode("cp949") + b"\n")
    docs = iter_texts(p)
    assert next(docs) == "좋다"  # raised when detected, not before
    with pytest.raises(CorpusError, match=r"cp949.txt: not UTF-8 text: line 2, byte offset 7 \(byte 0xbf\)"):
        next(docs)


def test_non_utf8_in_a_table(tmp_path):
    data = "id\tdocument\tlabel\n1\t좋다\t1\n".encode("utf-8") + b"2\t\xff\xfe\t0\n"
    p = write(tmp_path, "bad.tsv", data)
    with pytest.raises(CorpusError, match=r"bad.tsv: not UTF-8 text: line 3, byte offset 31 \(byte 0xff\)"):
        list(iter_texts(p))


def test_non_utf8_header(tmp_path):
    p = write(tmp_path, "h.txt", b"\xff\n")
    with pytest.raises(CorpusError, match=r"line 1, byte offset 0"):
        list(iter_texts(p))


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \n\t\n", b"\xef\xbb\xbf\r\n", b"id\tdocument\tlabel\n1\t\t0\n"])
def test_empty_corpus(tmp_path, data):
    p = write(tmp_path, "empty.txt", data)
    with pytest.raises(CorpusError, match=r"empty.txt: the corpus is empty \(no non-blank document\)"):
        list(iter_texts(p))


def test_messages_are_one_line(tmp_path):
    p = write(tmp_path, "x.txt", b"ok\n\x80\n")
    with pytest.raises(CorpusError) as exc:
        list(iter_texts(p))
    assert "\n" not in str(exc.value)


def test_default_corpus_without_konlpy(monkeypatch):
    monkeypatch.setattr(corpus, "find_spec", lambda name: None)
    with pytest.raises(CorpusError, match="pip install konlpy"):
        iter_texts()


def test_iter_labelled_keeps_each_label_with_its_document(tmp_path) -> None:
    from korean_bpe.corpus import iter_labelled

    tsv = tmp_path / "r.tsv"
    tsv.write_text("id\tdocument\tlabel\n1\t영화 최고\t1\n2\t \t0\n3\t별로다\t0\n4\t재밌다 ㅋㅋ\t1\n", encoding="utf-8")
    assert list(iter_labelled(tsv)) == [("영화 최고", "1"), ("별로다", "0"), ("재밌다 ㅋㅋ", "1")]  # blank row 2 skipped
    assert list(iter_labelled(tsv, limit=2)) == [("영화 최고", "1"), ("별로다", "0")]
    plain = tmp_path / "p.txt"
    plain.write_text("영화 최고\n\n별로다\n", encoding="utf-8")
    assert list(iter_labelled(plain)) == [("영화 최고", None), ("별로다", None)]
    no_label = tmp_path / "n.tsv"
    no_label.write_text("id\tdocument\n1\t영화\n", encoding="utf-8")
    assert list(iter_labelled(no_label)) == [("영화", None)]
