r"""Error messages on one line: how the package quotes an exception inside its own message.

>>> one_line(ValueError("bad\n   value"))
'bad value'
>>> one_line(FileNotFoundError(2, "No such file or directory", "영화.txt"))
'file not found: 영화.txt'
>>> one_line(OSError("libjvm.so: cannot open"), named=True)
'OSError: libjvm.so: cannot open'
"""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(exc: BaseException, *, named: bool = False) -> str:
    """``exc``'s message with its white space runs as one space.  ``named``: prefixed with the
    exception's type and cut at 300 characters (a cause quoted inside another message); else an
    ``OSError`` names its file (``file not found: 영화.txt``) and an empty message is the type's name."""
    text = " ".join(str(exc).split())
    if named:
        if len(text) > 300:
            text = text[:297] + "..."
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"file not found: {exc.filename}"
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return text or type(exc).__name__
