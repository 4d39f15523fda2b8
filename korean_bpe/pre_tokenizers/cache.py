"""On-disk cache of analyzer output, so that a second run over the same corpus is nearly free.

One SQLite database per analyzer (``okt.sqlite3``, ``kiwi.sqlite3``, ...) in :func:`cache_dir`.
Each database holds *namespaces*, one per analyzer set-up: the analyzer's name, its version
(e.g. konlpy and the Okt jar) and the options the analysis depends on (``norm``, ``stem``), as
canonical JSON.  An entry is keyed by ``(namespace, BLAKE2b-128 of the text)`` and stores the text
and the analysis (JSON).  Change the version or an option and the lookups go to another namespace:
stale results are never returned.

Faults: the database runs in WAL mode and every :meth:`AnalysisCache.put_many` is one
transaction, so a run killed mid-way (even by ``SIGKILL``) leaves only whole entries, and two runs
writing at once wait for each other (``busy_timeout``) instead of failing.  A database that cannot
be read raises :class:`CacheError` naming the call that removes it; when the file is corrupt
(``CacheError.corrupt``), the analyzers move it aside with :func:`move_aside`
(``okt.sqlite3.corrupt-20261123T101500``, removed by :func:`clear_cache`) and start a new one.
A valid cache that cannot be written (a read-only directory or file) is opened read-only
(:attr:`AnalysisCache.read_only`): lookups work, new entries are not stored.

Location: ``$KOREAN_BPE_CACHE_DIR`` when set, else the user cache directory from ``platformdirs``
(``~/.cache/korean_bpe`` on Linux).  ``korean-bpe cache list`` / ``clear`` use :func:`list_caches`
and :func:`clear_cache`.

>>> import tempfile, os
>>> os.environ["KOREAN_BPE_CACHE_DIR"] = tempfile.mkdtemp()
>>> with AnalysisCache("demo") as c:
...     ns = c.namespace({"analyzer": "demo", "version": "1", "options": {}})
...     _ = c.put_many(ns, [("아이언맨은", ["아이언맨/Noun", "은/Josa"])])
...     c.get_many(ns, ["아이언맨은", "슈퍼맨"])
{'아이언맨은': ['아이언맨/Noun', '은/Josa']}
>>> [(i.name, i.entries) for i in list_caches()]
[('demo', 1)]
>>> clear_cache()
1
>>> del os.environ["KOREAN_BPE_CACHE_DIR"]
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CacheInfo", "AnalysisCache", "CacheError", "cache_dir", "list_caches", "clear_cache",
    "text_key", "ENV_VAR", "SCHEMA_VERSION", "move_aside", "moved_aside", "is_corruption",
]

#: environment variable that overrides the cache location
ENV_VAR = "KOREAN_BPE_CACHE_DIR"
#: bumped whenever the table layout changes; older files are refused with a clear message
SCHEMA_VERSION = 1
_SUFFIX = ".sqlite3"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_BUSY_TIMEOUT_MS = 120_000
_LOOKUP_BATCH = 500  # SQLite allows 999+ parameters; stay well below
#: get_many scans the whole namespace when asked for at least _SCAN_MIN texts and the namespace
#: holds at most _SCAN_RATIO times as many entries (a sequential read beats 500-key lookups)
_SCAN_MIN = 20_000
_SCAN_RATIO = 3
_SCAN_BATCH = 20_000


def _retry_busy(statement: Any) -> Any:
    """``statement()``, retried while SQLite says the database is locked or busy, up to the busy
    timeout.  Switching to WAL takes an exclusive lock and SQLite does not wait for it (no busy
    handler there): two processes creating the same cache at once would otherwise see "database
    is locked" at once and one of them would run without its cache."""
    deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
    pause = 0.005
    while True:
        try:
            return statement()
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


class CacheError(RuntimeError):
    """A cache database cannot be used; the message names the file and how to remove it.

    ``path`` is the database, ``reason`` SQLite's word for the fault, ``corrupt`` whether the file
    itself is damaged (not a database, a malformed page) rather than, e.g., of a newer schema, and
    ``inode`` the file's inode when the fault was seen (see :func:`move_aside`)."""

    def __init__(self, message: str, *, path: Path | None = None, reason: str = "", corrupt: bool = False,
                 inode: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason
        self.corrupt = corrupt
        self.inode = inode


def is_corruption(exc: BaseException) -> bool:
    """Whether an error of reading a cache says the file is damaged (``SQLITE_CORRUPT``,
    ``SQLITE_NOTADB``; or bytes damaged inside an entry, which SQLite does not check: a text that
    is no longer UTF-8, which Python's ``sqlite3`` cannot decode, or an analysis that is no longer
    JSON), as opposed to busy, locked, read-only or full."""
    if isinstance(exc, json.JSONDecodeError):
        return True
    if isinstance(exc, sqlite3.OperationalError) and str(exc).startswith("Could not decode to UTF-8"):
        return True
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(exc, sqlite3.OperationalError):
        return False
    name = getattr(exc, "sqlite_errorname", None)
    if name:
        return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
    text = str(exc)
    return "malformed" in text or "not a database" in text


def _is_read_only(exc: BaseException) -> bool:
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name:
        return name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM"))
    text = str(exc)
    return "readonly" in text or "unable to open" in text


@dataclass(frozen=True)
class CacheInfo:
    """One analyzer's cache: ``name`` (e.g. ``"okt"``), number of ``entries``, ``bytes`` on disk
    (database plus WAL), ``path`` of the database; when it cannot be read, ``entries`` is -1 and
    ``problem`` says why (``"corrupt: ..."`` or ``"unreadable: ..."``)."""

    name: str
    entries: int
    bytes: int
    path: Path
    problem: str = ""


def cache_dir() -> Path:
    """Where caches live: ``$KOREAN_BPE_CACHE_DIR`` or the user cache directory (not created here);
    ValueError when the variable names something that is not a directory."""
    env = os.environ.get(ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if path.exists() and not path.is_dir():
            raise ValueError(f"{ENV_VAR}={env} is not a directory: point it at a directory (created if missing) "
                             f"or unset it to use the user cache directory")
        return path
    import platformdirs

    return Path(platformdirs.user_cache_dir("korean_bpe", appauthor=False))


def text_key(text: str) -> bytes:
    """The 16-byte key of a text (BLAKE2b-128 of its UTF-8, lone surrogates passed through).

    >>> text_key("ㅋㅋ").hex()
    'ca83bcfb6e620df9f9c7970b3b084cc6'
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"cache name must be a simple file-name word such as 'okt' (letters, digits, '_', '-', '.'), got {name!r}"
        )
    return name


def _db_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


class AnalysisCache:
    """The cache database of one analyzer: ``AnalysisCache("okt")``.

    Values are any JSON-serialisable analysis (stored as JSON text).  Use as a context manager or
    call :meth:`close`.  Safe to use from several processes at once; one object per thread.

    ``read_only`` is True when the database exists but cannot be written (a read-only directory or
    file): it is then opened read-only, :meth:`get_many` works, :meth:`put_many` stores nothing and
    :meth:`namespace` gives ``-1`` for a set-up the file does not hold.
    """

    def __init__(self, name: str, *, directory: str | os.PathLike[str] | None = None) -> None:
        self.name = _check_name(name)
        self.directory = Path(directory) if directory is not None else cache_dir()
        self.path = self.directory / f"{self.name}{_SUFFIX}"
        self.read_only = False
        self._namespaces: dict[str, int] = {}
        self.directory.mkdir(parents=True, exist_ok=True)
        self.inode = _inode(self.path)
        try:
            self._conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            try:
                self._setup()
                if not os.access(self.path, os.W_OK):  # a read-only file in a writable directory
                    self._conn.execute("PRAGMA query_only = ON")
                    self.read_only = True
            except sqlite3.OperationalError as exc:
                if not (_is_read_only(exc) and self.path.is_file()):
                    raise
                self._conn.close()
                self._conn = self._open_read_only()
                self.read_only = True
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and _is_read_only(exc) and not self.path.is_file():
                fix = f"its directory cannot be written; point {ENV_VAR} to a directory you can write"
            else:
                fix = (f"remove it with korean_bpe.pre_tokenizers.cache.clear_cache({self.name!r}) or "
                       f"`korean-bpe cache clear {self.name}`")
            raise CacheError(
                f"the analysis cache {str(self.path)!r} cannot be used ({exc}); {fix}",
                path=self.path, reason=str(exc), corrupt=is_corruption(exc), inode=self.inode,
            ) from None

    def _open_read_only(self) -> sqlite3.Connection:
        """The database read-only (:func:`_connect_read_only`), of this version's schema."""
        conn = _connect_read_only(self.path)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            conn.close()
            raise sqlite3.DatabaseError(f"schema version {version}, this korean_bpe reads version {SCHEMA_VERSION}")
        return conn

    def _setup(self) -> None:
        c = self._conn
        c.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        _retry_busy(lambda: c.execute("PRAGMA journal_mode = WAL").fetchone())
        c.execute("PRAGMA synchronous = NORMAL")
        version = c.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            c.execute("BEGIN IMMEDIATE")
            try:
                # re-read inside the write lock: another process may have created it meanwhile
                if c.execute("PRAGMA user_version").fetchone()[0] == 0:
                    c.execute(
                        "CREATE TABLE IF NOT EXISTS namespaces ("
                        " id INTEGER PRIMARY KEY, spec TEXT NOT NULL UNIQUE, created REAL NOT NULL)"
                    )
                    c.execute(
                        "CREATE TABLE IF NOT EXISTS entries ("
                        " ns INTEGER NOT NULL, key BLOB NOT NULL, text TEXT NOT NULL, value TEXT NOT NULL,"
                        " PRIMARY KEY (ns, key)) WITHOUT ROWID"
                    )
                    c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
        elif version != SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"schema version {version}, this korean_bpe reads version {SCHEMA_VERSION}")

    # -- namespaces ---------------------------------------------------------------------------

    def namespace(self, spec: Mapping[str, Any]) -> int:
        """The id of the namespace for an analyzer set-up (created on first use).

        ``spec`` is JSON-serialisable, typically ``{"analyzer", "version", "options"}``; key order
        does not matter.
        """
        canon = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        ns = self._namespaces.get(canon)
        if ns is not None:
            return ns
        c = self._conn
        if self.read_only:
            row = c.execute("SELECT id FROM namespaces WHERE spec = ?", (canon,)).fetchone()
            return row[0] if row is not None else -1
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute("INSERT OR IGNORE INTO namespaces (spec, created) VALUES (?, ?)", (canon, time.time()))
            ns = c.execute("SELECT id FROM namespaces WHERE spec = ?", (canon,)).fetchone()[0]
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        self._namespaces[canon] = ns
        return ns

    def namespaces(self) -> dict[int, dict[str, Any]]:
        """``{id: spec}`` of every namespace in this database."""
        return {i: json.loads(s) for i, s in self._conn.execute("SELECT id, spec FROM namespaces")}

    # -- entries ------------------------------------------------------------------------------

    def get_many(self, ns: int, texts: Iterable[str]) -> dict[str, Any]:
        """``{text: analysis}`` for the texts found in namespace ``ns`` (missing ones are absent).

        Asked for many texts (a warm run over a corpus), it reads the namespace in one scan when
        that is at most a few times more rows than asked for; otherwise it looks the keys up.
        """
        texts = texts if isinstance(texts, (list, tuple, set, dict)) else list(texts)
        if len(texts) >= _SCAN_MIN:
            (n,) = self._conn.execute("SELECT COUNT(*) FROM entries WHERE ns = ?", (ns,)).fetchone()
            if n <= _SCAN_RATIO * len(texts):
                return self._scan(ns, texts)
        keyed: dict[bytes, str] = {text_key(t): t for t in texts}
        keys = list(keyed)
        found: dict[str, Any] = {}
        c = self._conn
        for i in range(0, len(keys), _LOOKUP_BATCH):
            part = keys[i : i + _LOOKUP_BATCH]
            marks = ",".join("?" * len(part))
            rows = c.execute(
                f"SELECT key, text, value FROM entries WHERE ns = ? AND key IN ({marks})", (ns, *part)
            ).fetchall()
            if not rows:
                continue
            # one JSON parse per query, not per row: the values are JSON texts, so is their list
            values = json.loads("[" + ",".join(row[2] for row in rows) + "]")
            for (key, text, _), value in zip(rows, values):
                if keyed[key] == text:  # guards the (astronomically unlikely) hash collision
                    found[text] = value
        return found

    def _scan(self, ns: int, texts: Iterable[str]) -> dict[str, Any]:
        wanted = texts if isinstance(texts, (set, dict)) else set(texts)
        found: dict[str, Any] = {}
        cur = self._conn.execute("SELECT text, value FROM entries WHERE ns = ?", (ns,))
        while batch := cur.fetchmany(_SCAN_BATCH):
            rows = [row for row in batch if row[0] in wanted]
            if rows:  # one JSON parse per batch, as in get_many
                values = json.loads("[" + ",".join(row[1] for row in rows) + "]")
                found.update(zip((row[0] for row in rows), values))
        return found

    def put_many(self, ns: int, items: Iterable[tuple[str, Any]]) -> int:
        """Store ``(text, analysis)`` pairs in one transaction; returns how many were stored (none
        when :attr:`read_only`)."""
        rows = [
            (ns, text_key(t), t, json.dumps(v, ensure_ascii=False, separators=(",", ":"))) for t, v in items
        ]
        if not rows or self.read_only:
            return 0
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.executemany("INSERT OR REPLACE INTO entries (ns, key, text, value) VALUES (?, ?, ?, ?)", rows)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return len(rows)

    def entries(self, ns: int | None = None) -> Iterable[tuple[int, str, Any]]:
        """Every ``(namespace, text, analysis)``, optionally of one namespace (for checks and tools)."""
        if ns is None:
            cur = self._conn.execute("SELECT ns, text, value FROM entries")
        else:
            cur = self._conn.execute("SELECT ns, text, value FROM entries WHERE ns = ?", (ns,))
        for n, text, value in cur:
            yield n, text, json.loads(value)

    def count(self, ns: int | None = None) -> int:
        """Number of entries (of one namespace, or all)."""
        if ns is None:
            return self._conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        return self._conn.execute("SELECT COUNT(*) FROM entries WHERE ns = ?", (ns,)).fetchone()[0]

    def integrity_check(self) -> str:
        """SQLite's own consistency check: ``'ok'`` when the file is sound."""
        return self._conn.execute("PRAGMA integrity_check").fetchone()[0]

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> AnalysisCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AnalysisCache({self.name!r}, directory={str(self.directory)!r})"


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """Open the database ``path`` read-only, without creating files: ``mode=ro`` shares the
    writers' locks when their ``-shm`` file exists (or can be made); else (no one can write here:
    a WAL database cannot be opened so) ``immutable=1`` reads the file as is."""
    uri = path.resolve().as_uri()
    last: sqlite3.DatabaseError | None = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = sqlite3.connect(uri + query, uri=True, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            conn.execute("SELECT COUNT(*) FROM namespaces").fetchone()
        except sqlite3.OperationalError as exc:
            conn.close()
            last = exc
            continue
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn
    assert last is not None
    raise last


def _read_every_entry(conn: sqlite3.Connection) -> int:
    """The number of entries, each one read as the analyzers read it: SQLite's quick check of the
    file's structure, then every text and analysis decoded from UTF-8 and every analysis checked to
    be JSON (bytes damaged inside an entry pass the structure check).  Raises what
    :func:`is_corruption` recognises; about a second per 100 MB."""
    problem = conn.execute("PRAGMA quick_check").fetchone()[0]
    if problem != "ok":
        raise sqlite3.DatabaseError(f"database disk image is malformed: {problem}")
    n = 0
    cur = conn.execute("SELECT text, value, json_valid(value) FROM entries")
    while batch := cur.fetchmany(_SCAN_BATCH):
        bad = next((row for row in batch if not row[2]), None)
        if bad is not None:
            json.loads(bad[1])  # raises the JSONDecodeError
        n += len(batch)
    return n


def moved_aside(*, directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """The corrupt databases :func:`move_aside` left in :func:`cache_dir` (or ``directory``),
    sorted; :func:`clear_cache` removes them."""
    d = Path(directory) if directory is not None else cache_dir()
    return sorted(p for p in d.glob(f"*{_SUFFIX}.corrupt-*") if not p.name.endswith(("-wal", "-shm"))) \
        if d.is_dir() else []


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def move_aside(path: str | os.PathLike[str], *, inode: int | None = None) -> Path | None:
    """Rename a corrupt database (and its ``-wal`` / ``-shm``) to ``NAME.sqlite3.corrupt-STAMP``,
    so that a new one can start and the damaged file stays for inspection; returns the new name.

    With ``inode``, only the file seen to be corrupt is moved: if another process already moved it
    and started a new database, that one is left alone and None is returned.
    """
    path = Path(path)
    if inode is not None and _inode(path) != inode:
        return None
    stamp = time.strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return None
    for extra in ("-wal", "-shm"):
        try:
            os.replace(path.with_name(path.name + extra), aside.with_name(aside.name + extra))
        except FileNotFoundError:
            pass
    return aside


def _cache_paths(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob(f"*{_SUFFIX}") if p.is_file())


def list_caches(*, directory: str | os.PathLike[str] | None = None) -> list[CacheInfo]:
    """Every analyzer cache in :func:`cache_dir` (or ``directory``), sorted by name.

    Each database is read whole (:func:`_read_every_entry`), read-only, as the analyzers read it
    (a cache the user cannot write included); one that cannot be read is listed with
    ``entries=-1`` and its ``problem``.
    """
    d = Path(directory) if directory is not None else cache_dir()
    out: list[CacheInfo] = []
    for p in _cache_paths(d):
        size = sum(f.stat().st_size for f in _db_files(p) if f.exists())
        problem = ""
        try:
            conn = _connect_read_only(p)
            try:
                n = _read_every_entry(conn)
            finally:
                conn.close()
        except (sqlite3.DatabaseError, ValueError) as exc:
            reason = str(exc).split(" with text ")[0]  # not the undecodable bytes Python's sqlite3 quotes
            n, problem = -1, f"{'corrupt' if is_corruption(exc) else 'unreadable'}: {reason}"
        out.append(CacheInfo(name=p.name[: -len(_SUFFIX)], entries=n, bytes=size, path=p, problem=problem))
    return out


def clear_cache(name: str | None = None, *, directory: str | os.PathLike[str] | None = None) -> int:
    """Delete one analyzer's cache (``"okt"``), or every cache when ``name`` is None.

    Returns the number of entries removed (unreadable databases are removed and count 0; so are
    the corrupt ones moved aside, ``NAME.sqlite3.corrupt-*``).  A process still writing to a removed cache keeps writing to the deleted file, harmlessly.
    """
    d = Path(directory) if directory is not None else cache_dir()
    if name is not None:
        _check_name(name)
        infos = [i for i in list_caches(directory=d) if i.name == name]
    else:
        infos = list_caches(directory=d)
    removed = 0
    for info in infos:
        removed += max(info.entries, 0)
        for f in _db_files(info.path):
            try:
                f.unlink()
            except FileNotFoundError:
                pass
    pattern = f"{name}{_SUFFIX}.corrupt-*" if name is not None else f"*{_SUFFIX}.corrupt-*"
    for f in d.glob(pattern) if d.is_dir() else ():  # databases moved aside as corrupt
        try:
            f.unlink()
        except FileNotFoundError:
            pass
    return removed
