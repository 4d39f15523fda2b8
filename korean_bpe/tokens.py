r"""What a token may be, for every room that makes or reads tokens: the 256 byte-fallback tokens,
the characters no token of ``merges.txt`` may hold, and the lone surrogates that strict UTF-8
cannot hold.  The encoder, the trainer and the model files all read these rules here (standard
library only; the layer order of ``docs/API.md``).

>>> BYTE_TOKENS[0x41], len(BYTE_TOKENS)
('<0x41>', 256)
>>> bool(UNWRITABLE.search("재 밌")), bool(SURROGATE.search("영화\udc80"))
(True, True)
"""

from __future__ import annotations

import re

__all__ = ["LINE_BREAKS", "BYTE_TOKENS", "UNWRITABLE", "SURROGATE", "check_writable_token", "plain_text"]

#: every character ``str.splitlines`` breaks on; each becomes a piece of its own
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

#: The 256 byte-fallback tokens, ``<0x00>`` .. ``<0xFF>`` (HF / SentencePiece spelling).  With
#: ``byte_fallback=True``, ``Tokenizer.train`` puts them right after the special tokens.
BYTE_TOKENS: tuple[str, ...] = tuple(f"<0x{b:02X}>" for b in range(256))

#: A character no token of ``merges.txt`` may hold: the space between the two tokens of a line, and
#: the line breaks.  ``UNWRITABLE.search("\x00".join(tokens))`` checks many tokens at once.
UNWRITABLE = re.compile(f"[ {re.escape(LINE_BREAKS)}]")


#: A lone surrogate (U+D800..U+DFFF), which strict UTF-8 cannot hold: our model files spell it as
#: ``surrogatepass`` UTF-8 (``ED A0 80`` for U+D800, as the byte unit does); a Hugging Face
#: ``tokenizer.json`` cannot hold it.
SURROGATE = re.compile("[\ud800-\udfff]")


def check_writable_token(token: str, *, where: str) -> None:
    """Refuse a token that ``merges.txt`` (one ``left right`` merge a line) cannot hold.

    >>> check_writable_token("재밌", where="the alphabet")
    >>> check_writable_token("재 밌", where="the alphabet")
    Traceback (most recent call last):
    ...
    ValueError: the alphabet holds the token '재 밌' with a space (U+0020) inside; merges.txt writes one 'left right' merge a line, so tokens cannot contain spaces or line breaks (use a pre-tokenizer that splits on them, e.g. 'whitespace' or 'raw')
    """
    bad = next((c for c in token if c == " " or c in LINE_BREAKS), None)
    if bad is None and token:
        return
    what = "nothing (an empty token)" if not token else (
        "a space (U+0020)" if bad == " " else f"a line break (U+{ord(bad):04X})"  # type: ignore[arg-type]
    )
    raise ValueError(
        f"{where} holds the token {token!r} with {what} inside; merges.txt writes one 'left right' merge a "
        "line, so tokens cannot contain spaces or line breaks (use a pre-tokenizer that splits on them, "
        "e.g. 'whitespace' or 'raw')"
    )


def plain_text(text: str) -> str:
    """The text of ``text``, a ``str`` or a ``str`` subclass, as a plain ``str``: ``str.__str__``,
    whatever the subclass's own ``__str__`` returns.  The one rule for a subclass everywhere a text
    is read (encode, encode_batch, encode_with_offsets, encode_pretokenized, counting): its text.

    >>> class Shouting(str):
    ...     def __str__(self) -> str:
    ...         return self.upper()
    >>> plain_text(Shouting("abc")), type(plain_text(Shouting("abc"))).__name__
    ('abc', 'str')
    """
    return text if type(text) is str else str.__str__(text)
