"""The executor seam: results in order, and no worker outlives a parent killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from korean_bpe.pre_tokenizers.executor import LocalProcessExecutor, SerialExecutor, ThreadExecutor


EXECUTORS = [
    pytest.param(SerialExecutor, 1, id="serial"),
    pytest.param(lambda: ThreadExecutor(2, prefetch=3), 6, id="threads"),
    pytest.param(lambda: LocalProcessExecutor(2, prefetch=3), 6, id="processes"),
]


@pytest.mark.parametrize("make, window", EXECUTORS)
def test_map_keeps_order(make, window):
    ex = make()
    try:
        words = ["아이언맨", "ㅠㅠ", "", "스파이더맨"] * 20
        assert list(ex.map(len, iter(words))) == [len(w) for w in words]
    finally:
        getattr(ex, "shutdown", lambda: None)()


@pytest.mark.parametrize("make, window", EXECUTORS)
def test_map_reads_its_input_lazily(make, window):
    """A generator that counts how far it was pulled: ``map`` reads nothing before the first
    result is asked for, then exactly ``workers * prefetch`` items ahead (one for the serial
    executor), and nothing more once the caller stops."""
    pulled = 0

    def reviews(n):
        nonlocal pulled
        for i in range(n):
            pulled += 1
            yield "영화 정말 재밌다 ㅋㅋ"[: i % 12]

    ex = make()
    try:
        results = ex.map(len, reviews(100_000))
        assert pulled == 0
        assert next(results) == 0
        assert pulled == window
        assert [next(results) for _ in range(5)] == [1, 2, 3, 4, 5]
        assert pulled == window + 5
        results.close()  # the caller stops early: the rest of the input is never read
        assert pulled == window + 5
    finally:
        getattr(ex, "shutdown", lambda: None)()


_PARENT = """
import os, sys, time
from korean_bpe.pre_tokenizers.executor import LocalProcessExecutor
ex = LocalProcessExecutor(2)
list(ex.map(abs, range(4)))
print(" ".join(str(p) for p in ex._pool._processes), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (already exited, not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_exit_when_the_parent_is_killed():
    proc = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(p) for p in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(p) for p in workers), "pool workers outlived their killed parent"
    finally:
        proc.kill()


_UNGUARDED = """
print("script top level", flush=True)
from korean_bpe.pre_tokenizers.executor import LocalProcessExecutor
ex = LocalProcessExecutor(2)
try:
    list(ex.map(abs, range(4)))
except Exception as exc:
    if __name__ != "__main__":  # a worker running the script again: it fails there
        raise
    print(type(exc).__name__, "|", exc, flush=True)
    print("broken pool dropped:", ex._pool is None, flush=True)
"""


_FROM_STDIN = """
from korean_bpe.compare.peers import PeerCrash, run_isolated
from korean_bpe.pre_tokenizers.executor import LocalProcessExecutor
try:
    run_isolated(sorted, "법률", what="sorting")
except PeerCrash as exc:
    print("PeerCrash |", exc)  # what it was: a 'native crash', kept as such in compare()'s model cache
except RuntimeError as exc:
    print("RuntimeError |", exc)
try:
    list(LocalProcessExecutor(2).map(len, ["영화"]))
except RuntimeError as exc:
    print(type(exc).__name__, "|", exc)
"""


def test_a_script_read_from_standard_input_gets_the_fix_before_any_worker_starts():
    """``python -`` names its main script '<stdin>', which a spawned process cannot import: every
    worker died starting, the isolated peer training was reported as a native crash (and compare()
    would keep that note in its model cache)."""
    proc = subprocess.run([sys.executable, "-"], input=_FROM_STDIN, capture_output=True, text=True, timeout=120)
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and "Traceback" not in proc.stderr, (proc.stdout, proc.stderr[-2000:])
    for line in lines:
        assert line.startswith("RuntimeError | worker processes cannot start here") and "'<stdin>' is not a file" in line
        assert "save the script to a file" in line and "n_jobs=1" in line


def test_a_script_without_the_main_guard_gets_the_fix(tmp_path):
    """Spawned workers import the main script: without ``if __name__ == "__main__":`` each runs
    it again and dies; the parent's error says so, and the broken pool is dropped."""
    script = tmp_path / "unguarded.py"
    script.write_text(_UNGUARDED, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120).stdout
    # the workers' prints may land on one line with each other's or the parent's: take them all out
    lines = [rest for rest in (line.replace("script top level", "") for line in out.splitlines()) if rest]
    assert out.count("script top level") >= 2  # the parent and at least one worker ran the top level
    assert lines[0].startswith("BrokenProcessPool | ")
    assert 'if __name__ == "__main__":' in lines[0] and "threads=True" in lines[0]
    assert lines[1] == "broken pool dropped: True"
