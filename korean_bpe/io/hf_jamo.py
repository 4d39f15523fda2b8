"""The jamo unit in a stock Hugging Face ``tokenizer.json``: decompose only the Hangul syllables,
recompose them on decode.

HF's ``NFD`` normalizer decomposes more than our jamo unit does (``é``, ``盧`` U+F933) and
reorders combining marks, and HF has no decoder that composes.  So the export uses:

* a ``Precompiled`` normalizer (SentencePiece's ``precompiled_charsmap``: a double-array trie from
  each of the 11,172 syllables to its two or three conjoining jamo, :func:`hangul_charsmap`),
  which leaves every other character alone, as :func:`korean_bpe.jamo.decompose` does;
* after the decoders that join the tokens, one ``Replace`` per syllable (L V T, then L V), as
  :func:`korean_bpe.jamo.compose` joins modern jamo back (:func:`recompose_decoders`).

One shape of text HF cannot follow: its ``Precompiled`` looks a grapheme cluster shorter than 6
UTF-8 bytes up whole and, when a syllable is its first character, writes the syllable's jamo for
the whole cluster: a syllable followed by a combining mark of U+0300..U+07FF (``"가\\u0301"``)
loses the mark (:func:`precompiled_drops`).

>>> charsmap = hangul_charsmap()
>>> len(charsmap) > 11172 * 4, _lookup(charsmap, "값".encode()), _lookup(charsmap, "a".encode())
(True, '값', None)
"""

from __future__ import annotations

import base64
import re
import struct
from functools import lru_cache
from typing import Any

from ..jamo import L_BASE, L_COUNT, S_BASE, S_COUNT, T_BASE, T_COUNT, V_BASE, V_COUNT, decompose

__all__ = ["hangul_charsmap", "jamo_normalizer", "recompose_decoders", "precompiled_drops"]

_LEAF = 1 << 8  # a unit whose node ends a key: its value sits at the node's base
_VALUE = 1 << 31  # a value unit (its label can never equal a byte)


def jamo_normalizer() -> dict[str, Any]:
    """The ``Precompiled`` normalizer stage of a jamo-unit ``tokenizer.json``."""
    return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(hangul_charsmap()).decode("ascii")}


def recompose_decoders() -> list[dict[str, Any]]:
    """``Replace`` decoders that write each modern L V T, then L V, jamo run as its syllable (the
    LVT runs first, so that an L V followed by a T joins all three, as :func:`korean_bpe.jamo.compose`)."""
    lvt = [s for s in map(chr, range(S_BASE, S_BASE + S_COUNT)) if (ord(s) - S_BASE) % T_COUNT]
    lv = [chr(S_BASE + k * T_COUNT) for k in range(L_COUNT * V_COUNT)]
    return [{"type": "Replace", "pattern": {"String": decompose(s)}, "content": s} for s in lvt + lv]


def precompiled_drops(text: str) -> bool:
    """Whether HF's ``Precompiled`` normalizer loses characters of ``text`` (see the module docstring).

    >>> precompiled_drops("가\\u0301"), precompiled_drops("가\\u11a8"), precompiled_drops("e\\u0301")
    (True, False, False)
    """
    return _SYLLABLE_MARK.search(text) is not None


# A syllable and a combining mark whose cluster is under 6 bytes: 3 + 2 (the marks of U+0300..U+07FF
# that extend a grapheme cluster: Mn and Me; U+0300..U+07FF holds no spacing mark)
_SYLLABLE_MARK = re.compile("[\uac00-\ud7a3](?=[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2"
                            "\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7"
                            "\u06e8\u06ea-\u06ed\u0711\u0730-\u074a\u07a6-\u07b0\u07eb-\u07f3\u07fd])")


@lru_cache(maxsize=1)
def hangul_charsmap() -> bytes:
    """SentencePiece's ``precompiled_charsmap`` mapping each Hangul syllable to its jamo: a
    little-endian u32 trie size in bytes, the trie (Darts double array, u32 units), then the
    replacements, each ended by a NUL byte."""
    keys: dict[bytes, int] = {}
    blob = bytearray()
    for cp in range(S_BASE, S_BASE + S_COUNT):
        keys[chr(cp).encode("utf-8")] = len(blob)
        blob += decompose(chr(cp)).encode("utf-8") + b"\0"
    units = _double_array(keys)
    return struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + bytes(blob)


def _double_array(keys: dict[bytes, int]) -> list[int]:
    """A Darts double array of ``keys`` (byte strings -> values) as HF's ``spm_precompiled``
    reads it: the unit at position ``p`` of a node holds its label (the byte that led there),
    the leaf flag and ``p ^ base``; the children of a node are at ``base ^ byte``, its value
    (a key ends there) at ``base``.  Bases are found left to right, first fit, one per node."""
    trie: dict[bytes, set[int]] = {b"": set()}  # prefix -> next bytes
    for key in keys:
        for i in range(len(key)):
            trie.setdefault(key[:i], set()).add(key[i])
            trie.setdefault(key[: i + 1], set())
    units = [0] * 1024
    used = {0}  # positions taken (0: the root's unit)
    bases: set[int] = set()
    position = {b"": 0}
    start: dict[tuple[int, ...], int] = {}  # per label set, the first base not yet refused (refusals last)
    for prefix in sorted(trie, key=lambda p: (len(p), p)):
        labels = tuple(sorted(trie[prefix]) + ([0] if prefix in keys else []))
        if not labels:
            continue
        base = start.get(labels, 1)
        while base in bases or any((base ^ c) in used for c in labels):
            base += 1
        start[labels] = base + 1
        bases.add(base)
        while len(units) <= base | 0xFF:
            units += [0] * len(units)
        p = position[prefix]
        units[p] |= (p ^ base) << 10
        for c in labels:
            used.add(base ^ c)
            if c == 0:
                units[base] = _VALUE | keys[prefix]
            else:
                position[prefix + bytes([c])] = base ^ c
                units[base ^ c] = c | (_LEAF if prefix + bytes([c]) in keys else 0)
    while units and units[-1] == 0:
        units.pop()
    return units


def _lookup(charsmap: bytes, key: bytes) -> str | None:
    """What HF's ``Precompiled`` finds for ``key`` (the first key that is a prefix of it), read
    back from the bytes as ``spm_precompiled`` reads them: a check of :func:`hangul_charsmap`."""
    (size,) = struct.unpack_from("<I", charsmap)
    units = struct.unpack_from(f"<{size // 4}I", charsmap, 4)
    blob = charsmap[4 + size:]

    def offset(u: int) -> int:
        return (u >> 10) << ((u & (1 << 9)) >> 6)

    pos = offset(units[0])
    for c in key:
        pos ^= c
        if pos >= len(units) or units[pos] & (_VALUE | 0xFF) != c:
            return None
        leaf = units[pos] & _LEAF
        pos ^= offset(units[pos])
        if leaf:
            start = units[pos] & (_VALUE - 1)
            return blob[start:blob.index(b"\0", start)].decode("utf-8")
    return None
