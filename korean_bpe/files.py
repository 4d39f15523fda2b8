"""Writing files as a user expects of any program that saves: atomically, through symbolic links,
never over a special file, with the permissions the umask gives.

* :func:`atomic_write_text` writes a file by a temporary file beside it, flushed to disk and
  renamed into place (:func:`atomic_write` does the same for a file another library writes, e.g.
  a matplotlib figure), so that a crash leaves the old file or the new one, never half of one.  A
  symbolic link is written through: its target gets the new text and the link stays.  A FIFO, a
  device, a socket or a directory at the path is refused (writing to ``/dev/null`` or a pipe
  through a rename would replace it with a regular file).  A new file gets the mode the umask
  gives (``0o666 & ~umask``, as ``open()`` does); a replaced file keeps its mode.
* :func:`staged_dir` writes several files into a folder all or none (a report, an HF folder): they
  are written into a temporary folder inside it and renamed into place once all are written.
* A write that fails (the disk full, an I/O error) raises an ``OSError`` of the same ``errno`` that
  names the file, says what was kept and, for a full disk or quota, the fix (:func:`write_error`):
  ``out/report.html: No space left on device; nothing in out was changed (...): free space ...``.
* :func:`check_output_file` and :func:`check_output_dir_place` run the same checks up front, so
  that a long computation does not end in an error about its output.
* :func:`open_input_file` / :func:`read_input_file` open a file the program reads whole (a model
  file, a counts file) only once it is known to be a regular file of at most a stated size: a
  link to ``/dev/zero``, a FIFO or a directory is refused at once, naming the file
  (:class:`InputFileError`), never read until memory runs out or waited on forever.
* :func:`new_dir_mode` / :func:`new_file_mode`: what ``mkdir`` / ``open`` would give under the
  current umask (``tempfile.mkdtemp`` and ``mkstemp`` create 0700 / 0600: fix their modes with these).

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> os.symlink("real.json", f"{d}/link.json")
>>> atomic_write_text(f"{d}/link.json", '{"영화": 1}\\n').name
'link.json'
>>> open(f"{d}/real.json", encoding="utf-8").read()
'{"영화": 1}\\n'
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "atomic_write", "atomic_write_text", "write_text_synced", "check_output_file", "check_output_dir_place", "current_umask", "new_dir_mode",
    "new_file_mode", "fsync_dir", "existing_parent", "resolve_output_file", "describe_file_type", "same_file", "is_stdin",
    "InputFileError", "open_input_file", "read_input_file", "format_bytes", "write_error", "staged_dir",
]


def current_umask() -> int:
    """The process's umask, read without changing it where Linux allows (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):  # pragma: no cover - not Linux, or an old kernel
        pass
    mask = os.umask(0o022)  # pragma: no cover
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0o666`` less the umask (``0o644`` under 022)."""
    return 0o666 & ~current_umask()


def new_dir_mode() -> int:
    """The mode ``mkdir`` gives a new directory: ``0o777`` less the umask (``0o755`` under 022)."""
    return 0o777 & ~current_umask()


def describe_file_type(mode: int) -> str:
    """``'a named pipe (FIFO)'``, ``'a character device'``, ... for ``st_mode``.

    >>> describe_file_type(stat.S_IFIFO)
    'a named pipe (FIFO)'
    """
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "a special file"  # pragma: no cover


class NotRegularFileError(ValueError):
    """The output path names something other than a regular file (a FIFO, a device, a directory).

    ``path`` is the path given, ``kind`` what is there (``'a named pipe (FIFO)'``)."""

    def __init__(self, path: Path, kind: str, *, through: Path | None = None) -> None:
        self.path = path
        self.kind = kind
        via = f" (the symbolic link points to {through})" if through is not None else ""
        super().__init__(f"{path} is {kind}, not a regular file{via}: writing would replace it; give the path of "
                         "a regular file")


class InputFileError(ValueError):
    """A file to read is not a regular file, or is larger than its limit: ``path`` is the path
    given, ``reason`` what is wrong and the fix; the message is ``'{path}: {reason}'``."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def format_bytes(n: int) -> str:
    """``n`` bytes in the largest binary unit it fills: ``'1 GiB'``, ``'64 MiB'``, ``'512 bytes'``.

    >>> format_bytes(2**30), format_bytes(3 * 2**20 // 2), format_bytes(512)
    ('1 GiB', '1.5 MiB', '512 bytes')
    """
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def open_input_file(path: str | os.PathLike[str], *, what: str, max_bytes: int) -> BinaryIO:
    """``path`` opened to read (binary), once the open file is known to be a regular file of at most
    ``max_bytes`` bytes: anything else raises :class:`InputFileError` naming the file, what is there
    and the limit (``what`` names the kind of file, e.g. ``'a model file'``).  The file is opened
    without blocking and checked with ``fstat`` before any read, so a FIFO never hangs and a link
    to ``/dev/zero`` is never read; the size is the one checked (no other path is looked at).
    ``OSError`` (a missing file, no permission) goes on to the caller.
    """
    given = Path(path)
    fd = os.open(given, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            via = f" (the symbolic link points to {os.readlink(given)})" if given.is_symlink() else ""
            raise InputFileError(given, f"is {describe_file_type(st.st_mode)}{via}, not a regular file: {what} must "
                                        "be a regular file; replace it with the file itself")
        if st.st_size > max_bytes:
            raise InputFileError(given, f"is {format_bytes(st.st_size)}, more than the {format_bytes(max_bytes)} "
                                        f"{what} may be: it is not one; give the right file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input_file(path: str | os.PathLike[str], *, what: str, max_bytes: int) -> bytes:
    """The bytes of ``path``, checked as :func:`open_input_file` does; at most ``max_bytes`` are
    read even from a file that grows while it is read (it is refused as too large)."""
    data = bytearray()
    with open_input_file(path, what=what, max_bytes=max_bytes) as f:
        while len(data) <= max_bytes and (chunk := f.read(min(2**20, max_bytes + 1 - len(data)))):
            data += chunk
    if len(data) > max_bytes:
        raise InputFileError(Path(path), f"grew past the {format_bytes(max_bytes)} {what} may be while it was read; "
                                         "give a file that no other program is writing")
    return bytes(data)


def resolve_output_file(path: str | os.PathLike[str]) -> Path:
    """Where writing ``path`` must really go: symbolic links followed to their (possibly missing)
    target; refuses anything but a regular file or nothing (:class:`NotRegularFileError`), and a
    parent that is a file.  Only ``stat`` is called: a FIFO is never opened."""
    given = Path(path)
    real = Path(os.path.realpath(given))
    try:
        st = os.stat(given)  # follows links, even /proc/self/fd magic ones that realpath cannot name
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise NotRegularFileError(given, describe_file_type(st.st_mode),
                                  through=Path(os.readlink(given)) if given.is_symlink() else None)
    existing_parent(real)
    return real


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether writing path ``a`` would write the file at path ``b``: the same path once symbolic
    links are followed (either may be missing), or the same existing file (a hard link).

    >>> d = tempfile.mkdtemp()
    >>> os.symlink("corpus.txt", f"{d}/link.txt")
    >>> same_file(f"{d}/link.txt", f"{d}/corpus.txt"), same_file(f"{d}/a.txt", f"{d}/corpus.txt")
    (True, False)
    """
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def is_stdin(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` is what standard input reads (``< path``, or ``cat path |`` seen
    as ``/dev/stdin``): the same device and inode.  False when either cannot be looked at."""
    try:
        a, b = os.fstat(0), os.stat(path)
    except (OSError, ValueError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def existing_parent(target: Path) -> Path:
    """The nearest existing ancestor of ``target``, which must be a directory (else ValueError)."""
    for ancestor in target.parents:
        if ancestor.exists():
            if not ancestor.is_dir():
                raise ValueError(f"{ancestor} is a file, not a directory, so {target} cannot be created under it; "
                                 "give a path in a directory")
            return ancestor
    return Path(target.anchor)  # pragma: no cover - the root always exists


def _probe_writable(directory: Path) -> None:
    """Create and remove a temporary directory in ``directory``: the one sure test (root passes
    ``os.access`` everywhere, but not a read-only file system)."""
    probe = tempfile.mkdtemp(prefix=".korean_bpe-probe-", dir=directory)
    os.rmdir(probe)


def check_output_file(path: str | os.PathLike[str]) -> Path:
    """Check, before any work, that a file can be written at ``path``; returns where it will go.

    Refuses special files (:class:`NotRegularFileError`), a parent that is a file, and a place the
    user cannot write (ValueError naming the directory).
    """
    real = resolve_output_file(path)
    where = existing_parent(real)
    try:
        _probe_writable(where)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {where} is not writable ({exc.strerror}); choose a place you can "
                         "write") from None
    return real


def check_output_dir_place(directory: Path, *, what: str = "the output") -> None:
    """Check that ``directory`` (a real path, links resolved) can be created or replaced: its
    nearest existing ancestor is a directory the user can write.  Renaming a directory into
    place needs its parent to be writable, so the check is on the parent."""
    where = existing_parent(directory)
    try:
        _probe_writable(where)
    except OSError as exc:
        raise ValueError(f"cannot write {what} in {where}: {exc.strerror}; choose a directory you can write") from None


def atomic_write_text(path: str | os.PathLike[str], text: str, *, errors: str = "strict") -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically; returns ``path``.

    Symbolic links are written through (the link stays); special files are refused; the parent
    directories are created; a new file gets ``0o666 & ~umask``, a replaced one keeps its mode.
    ``errors`` is the encoding's (``"backslashreplace"`` shows a lone surrogate as ``\\ud800``).
    """
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8", errors=errors, newline="\n"))


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], object]) -> Path:
    """Have ``write(tmp)`` write a temporary file beside ``path`` (same suffix, so that writers that
    read the format from it, as matplotlib's ``savefig``, still do), then flush it to disk and
    rename it onto ``path``, as :func:`atomic_write_text`; returns ``path``.  When ``write``
    raises, the temporary file is removed, ``path`` is left as it was and the error goes on.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> atomic_write(f"{d}/영화.txt", lambda tmp: tmp.write_bytes("재밌다".encode())).name
    '영화.txt'
    >>> os.listdir(d)
    ['영화.txt']
    """
    given = Path(path)
    target = resolve_output_file(given)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    kept = "no file was written" if mode is None else "the file was left as it was"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp" + target.suffix, dir=target.parent)
    except OSError as exc:
        raise write_error(exc, given, kept=kept) from exc
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fchmod(fd, new_file_mode() if mode is None else mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.filename not in (None, str(tmp), os.fspath(tmp)):  # another file's error: the writer's own
            raise
        raise write_error(exc, given, kept=kept) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)
    return given


#: errno values a write may fail with that more room fixes
_NO_ROOM = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def write_error(exc: OSError, path: str | os.PathLike[str], *, kept: str) -> OSError:
    """``exc``, raised while writing ``path``, as an ``OSError`` of the same ``errno`` (so the
    same subclass) that names ``path`` and says what was ``kept``; a full disk or quota adds the fix.
    Python's own says only ``[Errno 28] No space left on device``: a write has no file name.

    >>> exc = write_error(OSError(errno.ENOSPC, "No space left on device"), "counts.tsv", kept="no file was written")
    >>> exc.filename, exc.strerror
    ('counts.tsv', 'No space left on device; no file was written: free space on that disk, or write to another one')
    """
    reason = os.strerror(exc.errno) if exc.errno else " ".join(str(exc).split()) or type(exc).__name__
    fix = ": free space on that disk, or write to another one" if exc.errno in _NO_ROOM else ""
    return OSError(exc.errno, f"{reason}; {kept}{fix}", os.fspath(path))


@contextmanager
def staged_dir(directory: str | os.PathLike[str]) -> Iterator[Path]:
    """Write files into ``directory`` all or none: the block writes them into the folder it is
    given (a temporary one inside ``directory``, which is created when missing); when the block
    ends, each file is renamed onto its name in ``directory`` (a symbolic link there written
    through, a FIFO or device refused before any is renamed), other files in ``directory`` left
    alone.  When the block raises, the temporary folder is removed, and ``directory`` too if it
    was created for it, so nothing in ``directory`` changes; an ``OSError`` about a file being
    written is raised again naming the file's place in ``directory`` (:func:`write_error`).

    >>> d = tempfile.mkdtemp()
    >>> with staged_dir(f"{d}/report") as stage:
    ...     _ = (stage / "report.md").write_text("# 영화", encoding="utf-8")
    >>> os.listdir(f"{d}/report")
    ['report.md']
    """
    final = Path(directory)
    created = [p for p in (final, *final.parents) if not os.path.lexists(p)]
    kept = f"nothing was written ({final} was not created)" if created else \
        f"nothing in {final} was changed (what was written was removed)"
    stage: Path | None = None
    try:
        final.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".korean_bpe-staged-", dir=final))
        yield stage
        names = sorted(p.name for p in stage.iterdir())
        targets = [resolve_output_file(final / name) for name in names]  # refuses a FIFO before any rename
    except BaseException as exc:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        for p in created:  # the deepest first; never one that holds something else
            try:
                p.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):
            inside = stage is not None and exc.filename is not None and Path(exc.filename).is_relative_to(stage)
            if stage is None or exc.filename is None or inside:  # else another file's error: the writer's own
                where = final / Path(exc.filename).relative_to(stage) if inside else final
                raise write_error(exc, where, kept=kept) from exc
        raise
    for k, (name, target) in enumerate(zip(names, targets)):
        try:
            if target.exists():  # a replaced file keeps its mode, as atomic_write's does
                os.chmod(stage / name, stat.S_IMODE(target.stat().st_mode))
            try:
                os.replace(stage / name, target)
            except OSError as exc:  # a link to another file system: copy there, atomically
                if exc.errno != errno.EXDEV:
                    raise
                atomic_write(target, lambda tmp, src=stage / name: shutil.copyfile(src, tmp))
        except OSError as exc:
            done = f"{', '.join(names[:k])} replaced; " if k else ""
            raise write_error(exc, final / name, kept=f"{done}it and the files after it are left in {stage}") from exc
    os.rmdir(stage)
    fsync_dir(final)


def write_text_synced(path: Path, text: str, *, errors: str = "strict") -> None:
    """Write ``text`` to ``path`` (UTF-8, ``\\n`` line ends, mode ``0o666 & ~umask`` when new) and
    flush it to disk before returning; ``errors`` is the encoding's (``"surrogatepass"`` writes a
    lone surrogate as ``ED A0 80``...)."""
    with open(path, "w", encoding="utf-8", errors=errors, newline="\n") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def fsync_dir(path: Path) -> None:
    """Flush a directory's entries (a rename in it) to disk, where the platform allows."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
