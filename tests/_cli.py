"""``korean-bpe`` run in the test's own process: :func:`korean_bpe.cli.main` with the arguments, an
environment, a working directory and a standard input of the test's choosing, its output captured.

A ``korean-bpe compare`` in a fresh process spends some 14 s of CPU before and beside its work
(importing PyTorch, scikit-learn, pandas and matplotlib, starting Kiwi, the first plot's fonts): a
400-review comparison with the downstream stage takes 21 s in a new process and 7 s in one that ran
one before (measured 2026-11-29).  The tests whose subject is the command's output run it here; those
whose subject is the process (the installed entry point, a signal, two processes at once, a worker
killed, an install without a compiler) start a real one.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None, cwd: str | os.PathLike[str] | None) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    """A UTF-8 text stream over bytes, with the ``buffer`` the commands read and write raw bytes through."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None)


def run_cli(*args: str, stdin: bytes | str | None = None, env: Mapping[str, str] | None = None,
            cwd: str | os.PathLike[str] | Path | None = None) -> subprocess.CompletedProcess[str]:
    """``korean-bpe ARGS`` in this process: its exit status (argparse's own exits included) and what
    it wrote to standard output and standard error, decoded, as :func:`subprocess.run` gives them.
    ``env`` replaces the environment for the call (as ``subprocess.run``'s does), ``cwd`` the working
    directory; both are restored after it."""
    from korean_bpe.cli import main

    data = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    streams = (sys.stdin, sys.stdout, sys.stderr)
    out, err = _stream(), _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream(data), out, err
    try:
        with _environment(env, cwd):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: --help, --version, a usage error
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode("utf-8"))  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(["korean-bpe", *args], code, texts[0], texts[1])

