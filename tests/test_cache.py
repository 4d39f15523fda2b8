"""The on-disk analysis cache (korean_bpe.pre_tokenizers.cache) under the real Okt, and its fault tolerance.

Every test gets its own cache directory; the user's cache is never touched.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from korean_bpe.pre_tokenizers import cache as cache_module
from korean_bpe.pre_tokenizers.cache import ENV_VAR, AnalysisCache, CacheError, cache_dir, clear_cache, list_caches, text_key
from korean_bpe.pre_tokenizers import _analyzer
from korean_bpe.pre_tokenizers import okt as okt_module
from korean_bpe.pre_tokenizers._analyzer import AnalyzerSpec, BatchAnalyzer
from korean_bpe.pre_tokenizers.okt import OktPreTokenizer

pytest.importorskip("konlpy")

SEED = "스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함"
DEMO = AnalyzerSpec(name="demo", version="1", options=(("upper", False),),
                    factory="korean_bpe.pre_tokenizers._analyzer:split_analyzer")


@pytest.fixture(autouse=True)
def no_user_cache(tmp_path, monkeypatch):
    """Point the default cache directory into tmp: no test may write the user's cache."""
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "default_cache"))


@pytest.fixture(scope="module")
def texts(real_texts):
    return real_texts[:400] + ["그래욬ㅋㅋ 안녕하세욬ㅋㅋㅋ", "어제 IMAX 봤는데 쩔어!", SEED, "", "  ", "탭\t있는 글"]


@pytest.fixture(scope="module")
def reference(texts):
    return [OktPreTokenizer(cache=False)(t) for t in texts]


def namespace_of(pt: OktPreTokenizer, directory) -> int:
    with AnalysisCache("okt", directory=directory) as c:
        return c.namespace(pt._batcher.spec.cache_spec())


# -- the hit path ------------------------------------------------------------------------------

def test_warm_batch_does_no_analyzer_work(tmp_path, monkeypatch, texts, reference):
    cold = OktPreTokenizer(cache_dir=tmp_path)
    assert cold.batch(texts) == reference
    first = cold._batcher.last_stats
    assert first["cached"] == 0 and first["analyzed"] == first["unique"] > len(texts)  # pieces, not reviews

    def no_analysis(*args, **kwargs):
        raise AssertionError("the analyzer ran although every text was cached")

    monkeypatch.setattr(_analyzer, "_analyze_chunk", no_analysis)
    warm = OktPreTokenizer(cache_dir=tmp_path)
    assert warm.batch(texts) == reference
    assert warm.batch(list(reversed(texts))) == list(reversed(reference))
    stats = warm._batcher.last_stats
    assert stats["analyzed"] == 0 and stats["chunks"] == 0 and stats["cached"] == first["unique"]
    lossless = OktPreTokenizer(cache_dir=tmp_path, lossless=True)  # same analysis, other words
    assert [lossless.restore(p) for p in lossless.batch(texts)] == texts
    assert lossless._batcher.last_stats["analyzed"] == 0


def test_cached_values_are_what_batch_returns(tmp_path, texts, reference):
    """Proof the cache is read: a value planted in the namespace comes back from batch."""
    pt = OktPreTokenizer(cache_dir=tmp_path)
    pt.batch(texts)
    ns = namespace_of(pt, tmp_path)
    with AnalysisCache("okt", directory=tmp_path) as c:
        assert c.get_many(ns, ["최고의", "없는말입니다"]) == {"최고의": ["최고/Noun", "의/Josa"]}
        c.put_many(ns, [("최고의", ["최/Noun", "고의/Noun"])])
    assert OktPreTokenizer(cache_dir=tmp_path).batch(["최고의 영화"]) == [["최", "고의", "영화"]]
    assert OktPreTokenizer(cache=False).batch(["최고의 영화"]) == [["최고", "영화"]]


# -- invalidation -------------------------------------------------------------------------------

def test_options_change_the_namespace(tmp_path, texts, reference):
    plain = OktPreTokenizer(cache_dir=tmp_path)
    assert plain.batch(texts) == reference
    n_plain = plain._batcher.last_stats["analyzed"]
    for kwargs in ({"norm": True}, {"stem": True}, {"norm": True, "stem": True}):
        pt = OktPreTokenizer(cache_dir=tmp_path, **kwargs)
        out = pt.batch(texts)
        stats = pt._batcher.last_stats
        assert stats["cached"] == 0 and stats["analyzed"] == stats["unique"], kwargs
        assert out[-6:] == [OktPreTokenizer(cache=False, **kwargs)(t) for t in texts[-6:]]
        assert out != reference  # the rewritten surfaces: never the plain cached ones
    assert OktPreTokenizer(norm=True, cache_dir=tmp_path)("그래욬ㅋㅋ 안녕하세욬ㅋㅋㅋ") == ["그래요", "ㅋㅋ", "안녕하세요", "ㅋㅋㅋ"]
    # drop is applied after the cache: another drop reuses the analyses
    keep_all = OktPreTokenizer(cache_dir=tmp_path, drop=())
    keep_all.batch(texts)
    assert keep_all._batcher.last_stats["analyzed"] == 0
    with AnalysisCache("okt", directory=tmp_path) as c:
        specs = sorted(json.dumps(s["options"], sort_keys=True) for s in c.namespaces().values())
        assert specs == ['{"max_run": 100, "norm": false, "stem": false}', '{"max_run": 100, "norm": false, "stem": true}',
                         '{"max_run": 100, "norm": true, "stem": false}', '{"max_run": 100, "norm": true, "stem": true}']
        assert c.count() >= n_plain


def test_analyzer_version_changes_the_namespace(tmp_path, monkeypatch, texts, reference):
    OktPreTokenizer(cache_dir=tmp_path).batch(texts)
    real = okt_module.okt_version()
    monkeypatch.setattr(okt_module, "okt_version", lambda: real.replace("format ", "format 99"))
    newer = OktPreTokenizer(cache_dir=tmp_path)
    assert newer._batcher.spec.version != real
    assert newer.batch(texts) == reference
    assert newer._batcher.last_stats["cached"] == 0
    with AnalysisCache("okt", directory=tmp_path) as c:
        versions = sorted(s["version"] for s in c.namespaces().values())
    assert versions == sorted([real, real.replace("format ", "format 99")])


def test_changed_text_is_analysed_unchanged_texts_are_not(tmp_path, texts, reference):
    pt = OktPreTokenizer(cache_dir=tmp_path)
    pt.batch(texts)
    changed = [*texts[:-1], texts[-1] + " 완전히새로운말입니다", "또새로운말입니다 아닐까"]
    out = pt.batch(changed)
    stats = pt._batcher.last_stats
    assert stats["analyzed"] == 2  # only the two new pieces
    assert out[:-2] == reference[:-1]
    assert out[-2:] == [OktPreTokenizer(cache=False)(t) for t in changed[-2:]]


# -- location, listing, clearing ---------------------------------------------------------------------

def test_environment_variable_sets_the_place(tmp_path, monkeypatch):
    place = tmp_path / "elsewhere" / "kb"
    monkeypatch.setenv(ENV_VAR, str(place))
    assert cache_dir() == place and not place.exists()
    OktPreTokenizer().batch([SEED, "어제 IMAX 봤는데"])  # no cache_dir: the variable decides
    assert (place / "okt.sqlite3").is_file()
    infos = list_caches()
    assert [(i.name, i.path) for i in infos] == [("okt", place / "okt.sqlite3")] and infos[0].entries == 10 + 3  # the segments (okt.run_segments)
    monkeypatch.delenv(ENV_VAR)
    import platformdirs

    assert cache_dir() == Path(platformdirs.user_cache_dir("korean_bpe", appauthor=False))


def test_list_and_clear(tmp_path):
    OktPreTokenizer(cache_dir=tmp_path).batch([SEED])
    with AnalysisCache("demo", directory=tmp_path) as c:
        ns = c.namespace({"analyzer": "demo", "version": "1", "options": {}})
        assert c.put_many(ns, [("ㅋㅋ", ["ㅋㅋ"]), ("영화", ["영화"])]) == 2
    (tmp_path / "broken.sqlite3").write_bytes(b"this is not a database" * 100)
    infos = {i.name: i for i in list_caches(directory=tmp_path)}
    assert sorted(infos) == ["broken", "demo", "okt"]
    # SEED: 9 pieces, 10 distinct segments (스파이더맨, -> 스파이더맨 + ,; the commas are one)
    assert infos["demo"].entries == 2 and infos["okt"].entries == 10 and infos["broken"].entries == -1
    assert all(i.bytes > 0 for i in infos.values())
    with pytest.raises(CacheError, match=r"clear_cache\('broken'\).*korean-bpe cache clear broken"):
        AnalysisCache("broken", directory=tmp_path)
    assert clear_cache("demo", directory=tmp_path) == 2
    assert [i.name for i in list_caches(directory=tmp_path)] == ["broken", "okt"]
    assert clear_cache(directory=tmp_path) == 10
    assert list_caches(directory=tmp_path) == [] and not list(tmp_path.glob("*.sqlite3*"))
    assert clear_cache("okt", directory=tmp_path) == 0
    with pytest.raises(ValueError, match="cache name must be a simple file-name word"):
        clear_cache("../okt", directory=tmp_path)


def test_corrupt_cache_is_moved_aside_and_a_new_one_started(tmp_path, texts, reference):
    (tmp_path / "okt.sqlite3").write_bytes(b"garbage" * 1000)
    pt = OktPreTokenizer(cache_dir=tmp_path)
    with pytest.warns(RuntimeWarning) as record:
        assert pt.batch(texts[:50]) == reference[:50]
    messages = [str(w.message) for w in record if issubclass(w.category, RuntimeWarning)]
    [aside] = tmp_path.glob("okt.sqlite3.corrupt-*")
    assert messages == [f"the analysis cache {tmp_path / 'okt.sqlite3'} was corrupted (file is not a database); "
                        f"moved it to {aside} and started a new one"]
    assert aside.read_bytes() == b"garbage" * 1000
    assert pt._batcher.last_stats["cached"] == 0
    again = OktPreTokenizer(cache_dir=tmp_path)  # the next run reads the new cache, silently
    assert again.batch(texts[:50]) == reference[:50]
    assert again._batcher.last_stats["analyzed"] == 0 and again._batcher.last_stats["cached"] > 0
    assert clear_cache("okt", directory=tmp_path) > 0 and not list(tmp_path.glob("okt.sqlite3*"))


def test_cache_found_corrupt_while_reading_is_moved_aside(tmp_path, monkeypatch):
    b = BatchAnalyzer(DEMO, cache_dir=tmp_path, workers=1)
    b.analyze_batch(["영화 정말 재밌다"])

    def malformed(self, ns, texts):  # a page of the file went bad after it was opened
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(AnalysisCache, "get_many", malformed)
    with pytest.warns(RuntimeWarning, match=r"was corrupted \(database disk image is malformed\); moved it to "):
        assert b.analyze_batch(["영화 정말 재밌다"]) == [["영화", "정말", "재밌다"]]
    monkeypatch.undo()
    assert len(list(tmp_path.glob("demo.sqlite3.corrupt-*"))) == 1
    fresh = BatchAnalyzer(DEMO, cache_dir=tmp_path, workers=1)
    fresh.analyze_batch(["영화 정말 재밌다"])  # the new cache got the analysis of the faulty run
    assert fresh.last_stats["analyzed"] == 0 and fresh.last_stats["cached"] == 1


READ_ONLY_CHILD = """
import json, sys, warnings
from korean_bpe.pre_tokenizers._analyzer import AnalyzerSpec, BatchAnalyzer
spec = AnalyzerSpec(name="demo", version="1", options=(("upper", False),),
                    factory="korean_bpe.pre_tokenizers._analyzer:split_analyzer")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    b = BatchAnalyzer(spec, cache_dir=sys.argv[1], workers=1)
    out = b.analyze_batch(["영화 정말 재밌다", "새 리뷰 하나"])
    out += b.analyze_batch(["영화 정말 재밌다"])
print(json.dumps({"out": out, "cached": b.last_stats["cached"], "warnings": [str(w.message) for w in caught]},
                 ensure_ascii=False))
"""


@pytest.mark.parametrize("read_only", ["directory", "file"])
def test_read_only_cache_is_read(read_only):
    """A valid cache in a directory (or a file) the user cannot write: read (a planted value comes
    back), not written, and the warning says read-only.  Root ignores permissions: the run is
    unprivileged."""
    import shutil
    import tempfile

    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: cannot make a directory read-only for the run")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        if subprocess.run([*prefix, sys.executable, "-c", "import korean_bpe"], capture_output=True).returncode:
            pytest.skip("the unprivileged user cannot import korean_bpe from this checkout")
    place = Path(tempfile.mkdtemp(prefix="korean_bpe-ro-cache-"))
    try:
        with AnalysisCache("demo", directory=place) as c:
            ns = c.namespace(DEMO.cache_spec())
            c.put_many(ns, [("영화 정말 재밌다", ["PLANTED"])])
        db = place / "demo.sqlite3"
        before = (db.stat().st_size, db.stat().st_mtime_ns, db.read_bytes())
        os.chmod(db, 0o444)
        if read_only == "directory":
            os.chmod(place, 0o555)
        elif prefix:
            os.chown(place, 65534, 65534)  # the run's user may write the directory, not the file
        proc = subprocess.run([*prefix, sys.executable, "-c", READ_ONLY_CHILD, str(place)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
        assert got["out"] == [["PLANTED"], ["새", "리뷰", "하나"], ["PLANTED"]] and got["cached"] == 1
        assert got["warnings"] == [f"the analysis cache {place / 'demo.sqlite3'} is read-only (its directory or file "
                                   "cannot be written): reading it, but new analyses are not stored"]
        assert (db.stat().st_size, db.stat().st_mtime_ns, db.read_bytes()) == before
        if read_only == "directory":
            assert [p.name for p in place.iterdir()] == ["demo.sqlite3"]
    finally:
        os.chmod(place, 0o755)
        shutil.rmtree(place)


def test_cli_cache_list_and_clear(tmp_path):
    OktPreTokenizer(cache_dir=tmp_path).batch([SEED])
    env = {**os.environ, ENV_VAR: str(tmp_path)}
    exe = Path(sys.executable).with_name("korean-bpe")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "korean_bpe.cli"]
    out = subprocess.run([*cmd, "cache", "list"], env=env, capture_output=True, text=True, check=True).stdout
    assert f"cache directory: {tmp_path}" in out
    assert any(line.split()[:3] == ["okt", "10", "entries"] for line in out.splitlines()), out
    out = subprocess.run([*cmd, "cache", "clear", "okt"], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "removed 10 cached entries from 'okt'"
    out = subprocess.run([*cmd, "cache", "list"], env=env, capture_output=True, text=True, check=True).stdout
    assert "(no caches)" in out


# -- faults: a killed run, two runs at once ----------------------------------------------------------

CHILD = """
import json, sys
from korean_bpe.pre_tokenizers import _analyzer
from korean_bpe.pre_tokenizers._analyzer import AnalyzerSpec, BatchAnalyzer
from korean_bpe.pre_tokenizers.okt import OktPreTokenizer
cache_dir, texts_file, chunk, kind = sys.argv[1:5]
texts = json.load(open(texts_file, encoding="utf-8"))
if kind == "okt":
    b = OktPreTokenizer(cache_dir=cache_dir, workers=1)._batcher
else:
    b = BatchAnalyzer(AnalyzerSpec(name="demo", version="1", options=(("upper", False),),
                      factory="korean_bpe.pre_tokenizers._analyzer:split_analyzer"), cache_dir=cache_dir, workers=1)
b.chunk_size = int(chunk)
_analyzer.FLUSH_SECONDS = 0.0  # a transaction per finished chunk, as often as it goes: the kill lands between or inside them
print("start", flush=True)
b.analyze_batch(texts)
print(json.dumps(b.last_stats), flush=True)
"""


def start_child(tmp_path, cache_path, texts, chunk, kind, tag=""):
    f = tmp_path / f"texts{tag}.json"
    f.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    return subprocess.Popen([sys.executable, "-c", CHILD, str(cache_path), str(f), str(chunk), kind],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def entries_now(path: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def kill_when(proc, db: Path, at_least: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while entries_now(db) < at_least:
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.communicate()}"
        assert time.monotonic() < deadline, "the run wrote nothing in time"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


def test_okt_run_killed_mid_way_leaves_whole_entries(tmp_path, real_texts):
    """SIGKILL an Okt run (one JVM, commits every 10 pieces) once it has written some chunks:
    the cache opens, passes SQLite's integrity check, holds whole chunks only, each entry equal
    to Okt's analysis, and the next run reuses them and does the rest."""
    pieces = list(dict.fromkeys(p for t in real_texts for p in okt_module.space_pieces(t) or ()))[:6000]
    proc = start_child(tmp_path, tmp_path, pieces, 10, "okt")
    kill_when(proc, tmp_path / "okt.sqlite3", at_least=200)
    pt = OktPreTokenizer(cache_dir=tmp_path)
    ns = namespace_of(pt, tmp_path)
    with AnalysisCache("okt", directory=tmp_path) as c:
        assert c.integrity_check() == "ok"
        stored = {text: value for _, text, value in c.entries(ns)}
    assert 200 <= len(stored) < len(pieces) and len(stored) % 10 == 0
    assert set(stored) == set(pieces[: len(stored)])  # chunks are committed in order
    assert stored == dict(zip(stored, pt._batcher.analyze(list(stored))))
    more = pieces[: len(stored) + 300]
    assert pt._batcher.analyze_batch(more) == pt._batcher.analyze(more)
    assert pt._batcher.last_stats["cached"] == len(stored) and pt._batcher.last_stats["analyzed"] == 300


def test_fast_writer_killed_repeatedly(tmp_path):
    """Kill a writer that commits 100 entries every few milliseconds, five times at random
    moments: each time the file is sound and holds whole chunks, correct values only."""
    texts = [f"영화 {i} 번째 리뷰 ㅋㅋ" for i in range(300_000)]
    db = tmp_path / "demo.sqlite3"
    for round_ in range(5):
        before = entries_now(db)
        proc = start_child(tmp_path, tmp_path, texts, 100, "demo", tag=round_)
        kill_when(proc, db, at_least=before + 1000 + 3000 * round_)
        with AnalysisCache("demo", directory=tmp_path) as c:
            assert c.integrity_check() == "ok"
            n = c.count()
            assert n % 100 == 0 and n < len(texts)
            for _, text, value in c.entries():
                assert value == text.split()


def test_two_runs_at_once(tmp_path, real_texts):
    """Two Okt runs write the same cache at the same time (overlapping texts, a commit every 20
    pieces): both succeed and the cache reads back every piece with Okt's analysis."""
    pieces = list(dict.fromkeys(p for t in real_texts for p in okt_module.space_pieces(t) or ()))[:1600]
    a = start_child(tmp_path, tmp_path, pieces[:1000], 20, "okt", tag="a")
    b = start_child(tmp_path, tmp_path, pieces[600:], 20, "okt", tag="b")
    outs = [p.communicate(timeout=300) for p in (a, b)]
    assert a.returncode == 0 and b.returncode == 0, outs
    stats = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    assert stats[0]["unique"] == 1000 and stats[1]["unique"] == 1000
    pt = OktPreTokenizer(cache_dir=tmp_path)
    with AnalysisCache("okt", directory=tmp_path) as c:
        assert c.integrity_check() == "ok" and c.count() == len(pieces), outs
        assert len(c.namespaces()) == 1
    assert pt._batcher.analyze_batch(pieces) == pt._batcher.analyze(pieces)
    assert pt._batcher.last_stats["analyzed"] == 0


def test_demo_runs_at_once_with_heavy_contention(tmp_path):
    texts = [f"리뷰 {i} 좋아요" for i in range(40_000)]
    procs = [start_child(tmp_path, tmp_path, texts[i * 10_000 : i * 10_000 + 20_000], 10, "demo", tag=i) for i in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    with AnalysisCache("demo", directory=tmp_path) as c:
        assert c.integrity_check() == "ok" and c.count() == 40_000
        ns = c.namespace(DEMO.cache_spec())
        assert c.get_many(ns, texts) == {t: t.split() for t in texts}


def test_text_key_is_stable():
    """Keys must not depend on PYTHONHASHSEED or the process: a fixed digest."""
    assert text_key("ㅋㅋ").hex() == "ca83bcfb6e620df9f9c7970b3b084cc6"
    assert text_key("lone \ud800") != text_key("lone \ufffd")
    assert cache_module.SCHEMA_VERSION == 1


def test_get_many_scan_and_lookup_agree(tmp_path, monkeypatch):
    """Large requests read the namespace in one scan, small ones look keys up: same answer,
    other namespaces never leak in."""
    texts = [f"리뷰 {i} ㅋㅋ" for i in range(30_000)]
    with AnalysisCache("demo", directory=tmp_path) as c:
        ns, other = c.namespace({"v": 1}), c.namespace({"v": 2})
        c.put_many(ns, [(t, t.split()) for t in texts[:25_000]])
        c.put_many(other, [(t, ["stale"]) for t in texts])
        asked = texts[10_000:]  # 20,000 texts, 15,000 of them cached
        expected = {t: t.split() for t in texts[10_000:25_000]}
        calls = []
        real_scan = c._scan
        monkeypatch.setattr(c, "_scan", lambda *a: calls.append(1) or real_scan(*a))
        assert c.get_many(ns, asked) == expected and calls == [1]
        assert c.get_many(ns, iter(asked)) == expected and calls == [1, 1]
        assert c.get_many(ns, asked[:5000]) == {t: expected[t] for t in asked[:5000] if t in expected}
        assert calls == [1, 1]  # small request: key lookups
        monkeypatch.setattr(cache_module, "_SCAN_RATIO", 0.1)  # namespace "too big" to scan
        assert c.get_many(ns, asked) == expected and calls == [1, 1]


_CREATE_AT_ONCE = """
import sys, time
from korean_bpe.pre_tokenizers.cache import AnalysisCache
directory, start, tag = sys.argv[1], float(sys.argv[2]), sys.argv[3]
while time.time() < start:
    pass
with AnalysisCache("okt", directory=directory) as c:
    c.put_many(c.namespace({"type": "race"}), [(f"{tag}{i}", [tag]) for i in range(5)])
print("ok")
"""


def test_processes_creating_the_cache_at_once_all_keep_it(tmp_path):
    """Two processes opening a cache that does not exist yet, at the same instant: switching to WAL
    takes an exclusive lock SQLite does not wait for, so one of them used to get "database is
    locked" and run uncached (about one pair in four on 2 cores).  Every pair must now succeed and
    the cache hold both processes' entries."""
    for round_ in range(12):
        directory = tmp_path / f"r{round_}"
        start = time.time() + 0.5
        procs = [subprocess.Popen([sys.executable, "-c", _CREATE_AT_ONCE, str(directory), str(start), tag],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for tag in "ab"]
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0] and all(o.strip() == "ok" for o, _ in outs), outs
        with AnalysisCache("okt", directory=directory) as c:
            assert c.count() == 10
