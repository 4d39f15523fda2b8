"""korean_bpe.distributed: counting on a real Dask LocalCluster (two worker processes) gives the local
counts word for word (whitespace, raw, okt, kiwi; Python and CLI); a worker killed mid-run; a shard
that is not UTF-8; shards cut anywhere read every line once (hypothesis); dask stays unimported."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from itertools import chain
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from korean_bpe.cli import main
from korean_bpe.corpus import CorpusError, default_corpus_paths, iter_texts
from korean_bpe.counting import WordCounts
from korean_bpe.distributed import Shard, count_files, iter_shard_lines, iter_shard_texts, plan_shards

# --- no cluster needed ----------------------------------------------------------------------------


def test_import_korean_bpe_loads_no_dask():
    code = ("import sys, korean_bpe, korean_bpe.cli, korean_bpe.distributed\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_missing_dask_names_the_extra(monkeypatch, tmp_path):
    from korean_bpe._optional import MissingDependencyError

    path = tmp_path / "a.txt"
    path.write_text("영화 최고\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=r'pip install "korean_bpe\[distributed\]"'):
        count_files([path], scheduler="local")


def test_plan_shards_cuts_each_file_and_checks_its_arguments(tmp_path):
    a, b, empty = tmp_path / "a.txt", tmp_path / "b.tsv", tmp_path / "empty.txt"
    a.write_bytes(b"x" * 25)
    b.write_text("id\tdocument\tlabel\n1\t영화\t0\n", encoding="utf-8")
    empty.write_bytes(b"")
    shards = plan_shards([a, b, empty], shard_bytes=10)
    assert [(Path(s.path).name, s.start, s.end, s.column, s.fields) for s in shards] == [
        ("a.txt", 0, 10, None, 0), ("a.txt", 10, 20, None, 0), ("a.txt", 20, 25, None, 0),
        ("b.tsv", 0, 10, 1, 3), ("b.tsv", 10, 20, 1, 3), ("b.tsv", 20, 29, 1, 3),
        ("empty.txt", 0, 0, None, 0),
    ]
    with pytest.raises(CorpusError, match="corpus file not found"):
        plan_shards([tmp_path / "missing.txt"])
    with pytest.raises(CorpusError, match="is a directory"):
        plan_shards([tmp_path])
    with pytest.raises(ValueError, match="shard_bytes must be a positive int"):
        plan_shards([a], shard_bytes=0)
    with pytest.raises(TypeError, match="not one path"):
        plan_shards(str(a))
    with pytest.raises(CorpusError, match="no column 'text'"):
        plan_shards([b], column="text")


LINE = st.text(st.sampled_from("가힣a ㅋ😀\t\r"), max_size=6)


@st.composite
def files(draw, *, table: bool = False):
    """File bytes: lines of 1-4 byte characters, empty lines, \\n or \\r\\n endings, maybe no final
    line break, maybe a byte-order mark; a table has a header and tab-separated rows."""
    lines = draw(st.lists(LINE, max_size=12))
    if table:
        # a lone "\r" ends a table row for pandas (the local reader), with quirks around blank rows
        # that are not copied: tables here hold none (test_a_lone_cr_ends_a_table_row_as_locally)
        lines = [f"{draw(st.integers(0, 99))}\t{line.replace(chr(9), ' ').replace(chr(13), '')}\t"
                 f"{draw(st.sampled_from('01'))}" for line in lines]
        lines.insert(0, "id\tdocument\tlabel")
    ends = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, ends))
    if lines and draw(st.booleans()):
        text = text.rstrip("\n")  # no final line break (a "\r" may stay: part of the last line)
    bom = draw(st.booleans())
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def _local_documents(path: Path) -> list[str]:
    try:
        return list(iter_texts(path))
    except CorpusError as exc:
        assert "the corpus is empty" in str(exc)
        return []


@settings(max_examples=300, deadline=None)
@given(data=files(), shard_bytes=st.integers(1, 40))
def test_shards_read_every_line_once(data, shard_bytes):
    f = io.BytesIO(data)
    expected, at = [], 0
    for line in io.BytesIO(data):  # what iterating over the file gives
        expected.append((at, line))
        at += len(line)
    got = [pair for start in range(0, len(data), shard_bytes)
           for pair in iter_shard_lines(f, start, min(start + shard_bytes, len(data)))]
    assert got == expected


@settings(max_examples=150, deadline=None)
@given(data=st.one_of(files(), files(table=True)), shard_bytes=st.integers(1, 40))
def test_shards_yield_the_documents_of_the_local_reader(data, shard_bytes, tmp_path_factory):
    path = tmp_path_factory.mktemp("shards") / "corpus.txt"
    path.write_bytes(data)
    shards = plan_shards([path], shard_bytes=shard_bytes)
    assert [doc for s in shards for doc in iter_shard_texts(s)] == _local_documents(path)


def test_a_lone_cr_ends_a_table_row_as_locally(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes("id\tdocument\tlabel\n1\t영화\r좋아\t1\n2\tab\t0\r\n".encode())
    assert _local_documents(path) == ["영화", "1", "ab"]
    assert [d for s in plan_shards([path], shard_bytes=5) for d in iter_shard_texts(s)] == ["영화", "1", "ab"]


@st.composite
def tables_with_a_surplus_field(draw):
    """A table (files(table=True)) with tabs put into one or more of its documents."""
    lines = draw(files(table=True)).split(b"\n")
    rows = [k for k in range(1, len(lines)) if lines[k].count(b"\t") == 2]
    assume(rows)
    for k in draw(st.lists(st.sampled_from(rows), min_size=1, max_size=3, unique=True)):
        first, rest = lines[k].split(b"\t", 1)
        lines[k] = first + b"\t" + b"\t".join([b"x"] * draw(st.integers(1, 3))) + b"\t" + rest
    return b"\n".join(lines)


def _first_error(documents):
    with pytest.raises(CorpusError) as exc:
        for _ in documents:
            pass
    return str(exc.value)


@settings(max_examples=100, deadline=None)
@given(data=tables_with_a_surplus_field(), shard_bytes=st.integers(1, 40))
def test_a_row_with_a_surplus_field_fails_the_shards_as_locally(data, shard_bytes, tmp_path_factory):
    """The same words, line and byte offset from pandas' local reader and from the shards, one after
    the other (korean_bpe.corpus.table_documents on both paths)."""
    path = tmp_path_factory.mktemp("surplus") / "t.tsv"
    path.write_bytes(data)
    local = _first_error(iter_texts(path))
    assert "a row of" in local and "byte offset" in local
    shards = plan_shards([path], shard_bytes=shard_bytes)
    assert _first_error(doc for s in shards for doc in iter_shard_texts(s)) == local


def test_a_line_cut_inside_a_character_belongs_to_the_shard_where_it_starts(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes("가나\n다라\n".encode())  # 7 + 7 bytes; byte 8 is inside 다
    first, second = Shard(str(path), 0, 8), Shard(str(path), 8, 14)
    assert list(iter_shard_texts(first)) == ["가나", "다라"]
    assert list(iter_shard_texts(second)) == []


def test_a_worker_that_cannot_open_the_file_says_where_files_must_be(tmp_path):
    with pytest.raises(CorpusError, match="every worker must see the files at the same path"):
        list(iter_shard_texts(Shard(str(tmp_path / "elsewhere.txt"), 0, 10)))


# --- on a real LocalCluster -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def kolaw_kobill() -> list[Path]:
    """The embedded corpus: the constitution and ten bills (65,000 characters)."""
    return default_corpus_paths()


class _Steps:
    """A korean_bpe.progress.Progress that records what it hears."""

    def __init__(self):
        self.seen = []

    def start(self, total, *, desc, unit):
        self.seen.append((desc, total, unit))

    def update(self, n=1):
        self.seen.append(n)

    def note(self, text):
        self.seen.append(text)

    def close(self):
        self.seen.append("closed")


def _local(paths, pre_tokenizer) -> WordCounts:
    return WordCounts.from_texts(chain.from_iterable(iter_texts(p) for p in paths), pre_tokenizer=pre_tokenizer)


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "raw"])
def test_counts_equal_the_local_counts(client, kolaw_kobill, pre_tokenizer):
    steps = _Steps()
    got = count_files(kolaw_kobill, pre_tokenizer=pre_tokenizer, scheduler=client, shard_bytes=7000, split_every=3,
                      show_progress=steps)
    assert len(plan_shards(kolaw_kobill, shard_bytes=7000)) == 27  # the tree adds 27 -> 9 -> 3 -> 1
    assert steps.seen == [("counting shards", 27, "shard")] + [1] * 27 + ["closed"]
    expected = _local(kolaw_kobill, pre_tokenizer)
    assert got == expected
    assert got.items() == expected.items()
    assert got.pre_tokenizer_config == expected.pre_tokenizer_config


@pytest.mark.parametrize("pre_tokenizer", ["okt", "kiwi"])
def test_analyzer_counts_equal_the_local_counts(client, kolaw_kobill, pre_tokenizer, tmp_path):
    if pre_tokenizer == "kiwi":
        pytest.importorskip("kiwipiepy")
    paths = kolaw_kobill[1:5]  # four bills, 14,000 characters
    got = count_files(paths, pre_tokenizer=pre_tokenizer, scheduler=client, shard_bytes=6000, cache_dir=tmp_path)
    assert got.items() == _local(paths, pre_tokenizer).items()
    assert got["자녀"] > 50 and "자녀의" not in got  # morphemes (자녀 + 의), not 어절

    def built():  # what each worker process built and keeps
        from korean_bpe import distributed

        return sorted(json for json in distributed._BUILT if f'"type": "{pre_tokenizer}"' in json)

    kept = client.run(built)
    assert len(kept) == 2 and all(len(v) == 1 for v in kept.values())  # one analyzer per worker process


def test_morpheme_boundaries_count_on_dask_as_locally(client, kolaw_kobill):
    """Training words cut at MeCab's morphemes (morpheme_boundaries) count on the workers as here,
    and train the same model (the tokenizer then encodes with raw alone)."""
    from korean_bpe import Tokenizer

    pt = {"type": "morpheme_boundaries", "analyzer": "mecab"}
    paths = kolaw_kobill[1:3]
    got = count_files(paths, pre_tokenizer=pt, scheduler=client, shard_bytes=6000)
    expected = _local(paths, pt)
    assert got.items() == expected.items() and got["▁자녀\uffff의"] > 0
    tok = Tokenizer.train_from_counts(got, vocab_size=300)
    assert tok.model == Tokenizer.train_from_counts(expected, vocab_size=300).model and tok.pre_tokenizer.name == "raw"


def test_the_cli_counts_on_a_scheduler_address(client, kolaw_kobill, tmp_path):
    files = [str(p) for p in kolaw_kobill[:3]]
    address = client.scheduler.address
    assert main(["count", *files, "--scheduler", address, "--shard-mb", "1", "-o", str(tmp_path / "dask.tsv")]) == 0
    assert main(["count", *files, "-o", str(tmp_path / "local.tsv")]) == 0
    assert (tmp_path / "dask.tsv").read_text(encoding="utf-8") == (tmp_path / "local.tsv").read_text(encoding="utf-8")


def test_the_cli_starts_a_local_cluster_and_refuses_stdin(capsys, tmp_path):
    pytest.importorskip("distributed")
    corpus = tmp_path / "reviews.txt"
    corpus.write_text("아이언맨 최고\n노잼\n아이언맨 또 보고 싶다\n", encoding="utf-8")
    assert main(["count", str(corpus), "--scheduler", "local", "-o", str(tmp_path / "c.tsv")]) == 0
    assert WordCounts.load(tmp_path / "c.tsv").items()[:2] == [("아이언맨", 2), ("노잼", 1)]
    assert main(["count", "-", "--scheduler", "local", "-o", str(tmp_path / "c.tsv")]) == 1
    assert "--scheduler counts whole files" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["인코딩이 깨진 리뷰".encode("cp949"),
                                 "lone \ud800 surrogate".encode("utf-8", "surrogatepass")], ids=["cp949", "surrogate"])
def test_a_shard_that_is_not_utf8_fails_the_run_with_the_local_error(client, tmp_path, bad):
    """A file is strict UTF-8 on both paths: a lone surrogate spelled ED A0 80 is refused too."""
    path = tmp_path / "reviews.txt"
    lines = [f"{k}번째 리뷰 정말 재밌다".encode() for k in range(400)]
    lines[300] = bad
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(CorpusError) as local:
        list(iter_texts(path))
    assert "line 301, byte offset" in str(local.value)
    with pytest.raises(CorpusError) as remote:
        count_files([path], scheduler=client, shard_bytes=1000)
    assert str(remote.value) == str(local.value)


def test_a_table_row_with_a_surplus_field_fails_the_run_with_the_local_error(client, tmp_path):
    path = tmp_path / "ratings.tsv"
    rows = ["id\tdocument\tlabel", *(f"{k}\t{k}번째 리뷰 정말 재밌다\t1" for k in range(400))]
    rows[301] = "300\t탭이\t들어간 리뷰\t0"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as local:
        list(iter_texts(path))
    assert f"line 302, byte offset {len(chr(10).join(rows[:301]).encode()) + 1}: a row of 4" in str(local.value)
    with pytest.raises(CorpusError) as remote:
        count_files([path], scheduler=client, shard_bytes=1000)
    assert str(remote.value) == str(local.value)


def test_a_file_without_documents_fails_as_locally(client, tmp_path):
    good, blank = tmp_path / "good.txt", tmp_path / "blank.txt"
    good.write_text("영화 최고\n", encoding="utf-8")
    blank.write_text("\n  \n\r\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=f"{blank}: the corpus is empty"):
        count_files([good, blank], scheduler=client)


def test_a_worker_killed_mid_run_is_replaced_and_the_counts_stay_exact(client, kolaw_kobill, tmp_path):
    """Both workers are held inside a shard (the test owns the write lock of their analysis cache),
    one worker process is killed with SIGKILL, the lock is let go: Dask runs the dead worker's shard
    again and the counts are exact."""
    from korean_bpe.pre_tokenizers.cache import AnalysisCache

    paths = kolaw_kobill[5:8]
    expected = _local(paths, {"type": "okt"})
    cache_dir = tmp_path / "cache"
    AnalysisCache("okt", directory=cache_dir).close()  # the database exists: the test can hold its lock
    lock = sqlite3.connect(cache_dir / "okt.sqlite3", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # the workers' first write waits (SQLite's busy timeout: 120 s)
    result: dict[str, object] = {}

    def run():
        try:
            result["counts"] = count_files(paths, pre_tokenizer="okt", scheduler=client, shard_bytes=4000,
                                           cache_dir=cache_dir)
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            result["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    try:
        busy = _wait(lambda: {w: ks for w, ks in client.processing().items()
                              if any("korean_bpe-count" in str(k) for k in ks)} or None, lambda b: len(b) == 2)
        victim = sorted(busy)[0]
        killed_keys = busy[victim]
        pid = client.run(os.getpid, workers=[victim])[victim]
        assert thread.is_alive()
        os.kill(pid, signal.SIGKILL)
        _wait(lambda: client.scheduler_info()["workers"], lambda ws: victim not in ws)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    thread.join(timeout=300)
    assert "error" not in result, result.get("error")
    assert result["counts"] == expected

    def story(dask_scheduler, keys=killed_keys):
        return [(t[1], t[2]) for key in keys for t in dask_scheduler.story(key)]

    transitions = client.run_on_scheduler(story)
    assert transitions.count(("waiting", "processing")) >= 2  # the killed shard ran again
    assert ("processing", "memory") in transitions


def _wait(get, ok, timeout: float = 120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = get()
        if value is not None and ok(value):
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting; last value {value!r}")
